// SPDX-License-Identifier: GPL-2.0
// Device-visible integers are big-endian (PRM). be<T> stores the device
// byte order and converts only through get()/set(), so a raw host integer
// can never be written to a device field by accident.
#pragma once

#include "lib/types.h"

namespace scx {

constexpr u16 bswap(u16 v) { return __builtin_bswap16(v); }
constexpr u32 bswap(u32 v) { return __builtin_bswap32(v); }
constexpr u64 bswap(u64 v) { return __builtin_bswap64(v); }
constexpr u8 bswap(u8 v) { return v; }

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
template <typename T> constexpr T cpu_to_be(T v) { return bswap(v); }
template <typename T> constexpr T cpu_to_le(T v) { return v; }
#else
template <typename T> constexpr T cpu_to_be(T v) { return v; }
template <typename T> constexpr T cpu_to_le(T v) { return bswap(v); }
#endif
template <typename T> constexpr T be_to_cpu(T v) { return cpu_to_be(v); }
template <typename T> constexpr T le_to_cpu(T v) { return cpu_to_le(v); }

template <typename T> struct be {
	T raw;
	constexpr T get() const { return be_to_cpu(raw); }
	constexpr void set(T v) { raw = cpu_to_be(v); }
	static constexpr be make(T v) { return be{cpu_to_be(v)}; }
};
template <typename T> struct le {
	T raw;
	constexpr T get() const { return le_to_cpu(raw); }
	constexpr void set(T v) { raw = cpu_to_le(v); }
};

using be16 = be<u16>;
using be32 = be<u32>;
using be64 = be<u64>;
static_assert(sizeof(be32) == 4 && alignof(be32) == 4);

// Unaligned big-endian load/store on a byte buffer (mailboxes, WQE segments).
template <typename T> inline T load_be(const void *p)
{
	T v;
	__builtin_memcpy(&v, p, sizeof(v));
	return be_to_cpu(v);
}
template <typename T> inline void store_be(void *p, T v)
{
	v = cpu_to_be(v);
	__builtin_memcpy(p, &v, sizeof(v));
}

} // namespace scx
