// SPDX-License-Identifier: GPL-2.0
// User contexts: CREATE_UCTX / DESTROY_UCTX and which uid may send what.
#include "hca/uctx.h"

#include "hca/syndrome.h"
#include "lib/new.h"
#include "prm/cmd.h"
#include "prm/uctx.h"

namespace scx::hca {

namespace st = prm::cmd_stat;

uctx_table::~uctx_table() { free_bytes(live_); }

status uctx_table::init(u32 count)
{
	count_ = count;
	live_ = static_cast<u8 *>(alloc_bytes(count));
	if (!live_)
		return errc::nomem;
	reset();
	return status::ok();
}

void uctx_table::reset()
{
	for (u32 i = 0; i < count_; i++)
		live_[i] = 0;
	cursor_ = 1;
}

bool uctx_table::valid_uid(u16 uid) const
{
	return uid == 0 || uid == prm::shared_resource_uid || (uid < count_ && live_[uid]);
}

bool uctx_table::kernel_only(u16 opcode)
{
	switch (opcode) {
	case prm::op::enable_hca:
	case prm::op::disable_hca:
	case prm::op::init_hca:
	case prm::op::teardown_hca:
	case prm::op::set_issi:
	case prm::op::set_hca_cap:
	case prm::op::query_pages:
	case prm::op::manage_pages:
	case prm::op::create_eq:
	case prm::op::destroy_eq:
	case prm::op::query_eq:
	case prm::op::set_roce_address:
	case prm::op::create_uctx:
	case prm::op::destroy_uctx:
		return true;
	default:
		return false;
	}
}

void uctx_table::create(cmd_ctx &c)
{
	if (!c.need_in(prm::create_uctx_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::create_uctx_out::size_bytes, synd::short_output))
		return;
	// softcx offers none of the optional rights (uctx_cap is 0).
	if (prm::get(prm::at(c.in, prm::create_uctx_in::uctx), prm::uctx::cap))
		return (void)c.fail(st::bad_param_err, synd::uctx_bad_cap);
	// From a rotating cursor: a destroyed context's uid is not handed out
	// again at once, so a stale uid shows.
	for (u32 n = 0; n + 1 < count_; n++) {
		u32 uid = 1 + (cursor_ - 1 + n) % (count_ - 1);
		if (live_[uid])
			continue;
		live_[uid] = 1;
		cursor_ = 1 + uid % (count_ - 1);
		prm::set(c.out, prm::create_uctx_out::uid, uid);
		return;
	}
	c.fail(st::no_res_err, synd::uctx_exhausted);
}

bool uctx_table::destroy_check(cmd_ctx &c, u16 &uid)
{
	if (!c.need_in(prm::destroy_uctx_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::destroy_uctx_out::size_bytes, synd::short_output))
		return false;
	uid = u16(prm::get(c.in, prm::destroy_uctx_in::uid));
	if (!uid || uid >= count_ || !live_[uid])
		return c.fail(st::bad_param_err, synd::uctx_invalid);
	return true;
}

} // namespace scx::hca
