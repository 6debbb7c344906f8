// SPDX-License-Identifier: GPL-2.0
// Errors are values: a status (an errno) or a result<T> carrying a value or a
// status. Negative errno numbers, as the kernel uses them, so the shim passes
// them through unchanged.
#pragma once

#include "lib/types.h"

namespace scx {

// The errno values used by the core (Linux numbering, shared by host and kernel).
enum class errc : int {
	ok = 0,
	perm = 1,        // EPERM
	noent = 2,       // ENOENT
	io = 5,          // EIO
	again = 11,      // EAGAIN
	nomem = 12,      // ENOMEM
	fault = 14,      // EFAULT
	busy = 16,       // EBUSY
	exist = 17,      // EEXIST
	inval = 22,      // EINVAL
	nospc = 28,      // ENOSPC
	range = 34,      // ERANGE
	notsupp = 95,    // EOPNOTSUPP
	timedout = 110,  // ETIMEDOUT
	remoteio = 121,  // EREMOTEIO
	canceled = 125,  // ECANCELED
};

class [[nodiscard]] status {
public:
	constexpr status() = default;
	constexpr status(errc e) : err_(e) {}
	static constexpr status ok() { return {}; }

	constexpr bool is_ok() const { return err_ == errc::ok; }
	constexpr explicit operator bool() const { return is_ok(); }
	constexpr errc code() const { return err_; }
	// As the kernel wants it: 0 or a negative errno.
	constexpr int to_errno() const { return -static_cast<int>(err_); }
	constexpr bool operator==(const status &o) const = default;

private:
	errc err_ = errc::ok;
};

template <typename T> class [[nodiscard]] result {
public:
	constexpr result(T v) : value_(v) {}
	constexpr result(status s) : status_(s) {}
	constexpr result(errc e) : status_(e) {}

	constexpr bool is_ok() const { return status_.is_ok(); }
	constexpr explicit operator bool() const { return is_ok(); }
	constexpr status error() const { return status_; }
	constexpr const T &value() const { return value_; }
	constexpr T &value() { return value_; }
	constexpr const T &operator*() const { return value_; }
	constexpr T &operator*() { return value_; }
	constexpr const T *operator->() const { return &value_; }
	constexpr T *operator->() { return &value_; }

private:
	T value_{};
	status status_{};
};

// Early return on failure: SCX_TRY(expr) for a status-returning expression.
#define SCX_TRY(expr)                                    \
	do {                                             \
		::scx::status scx_try_s_ = (expr);       \
		if (!scx_try_s_.is_ok())                 \
			return scx_try_s_;               \
	} while (0)

} // namespace scx
