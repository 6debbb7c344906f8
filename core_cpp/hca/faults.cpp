// SPDX-License-Identifier: GPL-2.0
#include "hca/faults.h"

#include "hca/syndrome.h"

namespace scx::hca {

status fault_hooks::add(action a, u16 opcode, u32 count)
{
	if (!count)
		return errc::inval;
	if (a.k == kind::fail && !a.syndrome)
		a.syndrome = synd::injected;
	lock_guard g(lock_);
	for (rule &r : rules_) {
		if (!r.left) {
			r = rule{a, opcode, count};
			return status::ok();
		}
	}
	return errc::nospc;
}

void fault_hooks::clear()
{
	lock_guard g(lock_);
	for (rule &r : rules_)
		r.left = 0;
}

fault_hooks::action fault_hooks::take(u16 opcode)
{
	lock_guard g(lock_);
	for (rule &r : rules_) {
		if (r.left && (r.opcode == any_opcode || r.opcode == opcode)) {
			r.left--;
			return r.a;
		}
	}
	return {};
}

} // namespace scx::hca
