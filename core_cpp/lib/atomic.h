// SPDX-License-Identifier: GPL-2.0
// Atomics on the compiler builtins: lock-prefixed instructions, no libatomic,
// usable in the kernel and on the host alike.
#pragma once

#include "lib/types.h"

namespace scx {

enum class mo : int {
	relaxed = __ATOMIC_RELAXED,
	acquire = __ATOMIC_ACQUIRE,
	release = __ATOMIC_RELEASE,
	acq_rel = __ATOMIC_ACQ_REL,
	seq_cst = __ATOMIC_SEQ_CST,
};

template <typename T> class atomic {
	static_assert(sizeof(T) <= 8, "no wider atomics in the kernel");

public:
	constexpr atomic() = default;
	constexpr atomic(T v) : v_(v) {}
	atomic(const atomic &) = delete;
	atomic &operator=(const atomic &) = delete;

	T load(mo o = mo::seq_cst) const { return __atomic_load_n(&v_, int(o)); }
	void store(T v, mo o = mo::seq_cst) { __atomic_store_n(&v_, v, int(o)); }
	T exchange(T v, mo o = mo::seq_cst) { return __atomic_exchange_n(&v_, v, int(o)); }
	bool compare_exchange(T &expected, T desired, mo o = mo::seq_cst)
	{
		return __atomic_compare_exchange_n(&v_, &expected, desired, false, int(o),
						   int(o == mo::acq_rel || o == mo::release ? mo::acquire : o));
	}
	T fetch_add(T d, mo o = mo::seq_cst) { return __atomic_fetch_add(&v_, d, int(o)); }
	T fetch_sub(T d, mo o = mo::seq_cst) { return __atomic_fetch_sub(&v_, d, int(o)); }
	T fetch_or(T d, mo o = mo::seq_cst) { return __atomic_fetch_or(&v_, d, int(o)); }
	T fetch_and(T d, mo o = mo::seq_cst) { return __atomic_fetch_and(&v_, d, int(o)); }

private:
	T v_{};
};

inline void fence(mo o = mo::seq_cst) { __atomic_thread_fence(int(o)); }

// A volatile access to memory another agent (device or CPU) also writes.
template <typename T> inline T read_once(const T &v) { return *static_cast<const volatile T *>(&v); }
template <typename T> inline void write_once(T &v, T x) { *static_cast<volatile T *>(&v) = x; }

} // namespace scx
