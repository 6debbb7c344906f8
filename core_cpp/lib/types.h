// SPDX-License-Identifier: GPL-2.0
// Fixed-width types and the few freestanding helpers the core uses. Only the
// compiler's own freestanding headers are reachable (-nostdinc).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace scx {

using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;
using i32 = int32_t;
using i64 = int64_t;
using usize = size_t;

template <typename T> constexpr T min(T a, T b) { return a < b ? a : b; }
template <typename T> constexpr T max(T a, T b) { return a < b ? b : a; }

constexpr bool is_pow2(u64 v) { return v && !(v & (v - 1)); }
constexpr u32 ilog2(u64 v) { return v ? 63 - __builtin_clzll(v) : 0; }
constexpr u64 align_up(u64 v, u64 a) { return (v + a - 1) & ~(a - 1); }

template <typename T> constexpr T &&move(T &v) { return static_cast<T &&>(v); }

inline void copy_bytes(void *dst, const void *src, usize n) { __builtin_memcpy(dst, src, n); }
inline void zero_bytes(void *dst, usize n) { __builtin_memset(dst, 0, n); }
inline bool same_bytes(const void *a, const void *b, usize n) { return __builtin_memcmp(a, b, n) == 0; }

} // namespace scx
