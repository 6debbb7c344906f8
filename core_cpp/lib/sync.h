// SPDX-License-Identifier: GPL-2.0
// RAII wrappers over the env's spinlock and completion.
#pragma once

#include "lib/status.h"
#include "softcx/env.h"

namespace scx {

// Lock classes: locks of different classes may nest, outer class first.
enum class lock_class : unsigned {
	hca_cmd = 0,
	hca_eq,
	hca_objects,
	hca_cq,
	drv_cmd,
	drv_eq,
	drv_cq_table,
	test_a,
	test_b,
	hca_qp,
	hca_srq,
	hca_dp,
	hca_dp_rx,
	hca_dp_kdb,
	hca_dct,
	drv_dct,
};

class spinlock {
public:
	spinlock() = default;
	spinlock(const spinlock &) = delete;
	spinlock &operator=(const spinlock &) = delete;
	~spinlock() { scx_env_spin_free(lock_); }

	status init(lock_class c)
	{
		lock_ = scx_env_spin_new(static_cast<unsigned>(c));
		return lock_ ? status::ok() : errc::nomem;
	}
	// Always inline: the environment records who took a lock by its
	// return address (kmod's lock_times), which must be the real site.
	[[gnu::always_inline]] unsigned long lock() { return scx_env_spin_lock(lock_); }
	[[gnu::always_inline]] void unlock(unsigned long flags) { scx_env_spin_unlock(lock_, flags); }
	[[gnu::always_inline]] bool try_lock(unsigned long *flags) { return scx_env_spin_trylock(lock_, flags); }
	// By its holder: someone waits for it.
	bool contended() { return scx_env_spin_contended(lock_); }

private:
	scx_spinlock *lock_ = nullptr;
};

class lock_guard {
public:
	[[gnu::always_inline]] explicit lock_guard(spinlock &l) : l_(l), flags_(l.lock()) {}
	[[gnu::always_inline]] ~lock_guard() { l_.unlock(flags_); }
	// Lets waiters in (and interrupts, if the lock held them off), then
	// takes the lock again: what was read under it may have changed.
	[[gnu::always_inline]] void relax()
	{
		l_.unlock(flags_);
		flags_ = l_.lock();
	}
	lock_guard(const lock_guard &) = delete;
	lock_guard &operator=(const lock_guard &) = delete;

private:
	spinlock &l_;
	unsigned long flags_;
};

class completion {
public:
	completion() = default;
	completion(const completion &) = delete;
	completion &operator=(const completion &) = delete;
	~completion() { scx_env_completion_free(c_); }

	status init()
	{
		c_ = scx_env_completion_new();
		return c_ ? status::ok() : errc::nomem;
	}
	void reinit() { scx_env_completion_reinit(c_); }
	void complete() { scx_env_complete(c_); }
	status wait(unsigned timeout_ms)
	{
		return scx_env_completion_wait(c_, timeout_ms) == 0 ? status::ok() : status(errc::timedout);
	}

private:
	scx_completion *c_ = nullptr;
};

} // namespace scx
