// SPDX-License-Identifier: GPL-2.0
// DC targets, driver side (dct.h).
#include "driver/dct.h"

#include "driver/device.h"
#include "prm/cmd.h"
#include "prm/dct.h"
#include "prm/qp.h"

namespace scx::driver {

namespace {

// How long a destroy waits for DCT_DRAINED before it ends the DCT anyway
// (a device that never answers must not hang the process), and how often
// it looks at the device's health meanwhile.
constexpr u32 drain_wait_ms = 10000;
constexpr u32 drain_poll_ms = 100;

} // namespace

status dct_drains::init() { return lock_.init(lock_class::drv_dct); }

bool dct_drains::watch(u32 dctn, completion *done)
{
	lock_guard g(lock_);
	for (waiter &w : w_)
		if (!w.done) {
			w = waiter{dctn, done};
			return true;
		}
	return false;
}

void dct_drains::unwatch(u32 dctn)
{
	lock_guard g(lock_);
	for (waiter &w : w_)
		if (w.done && w.dctn == dctn)
			w = waiter{};
}

bool dct_drains::drained(u32 dctn)
{
	lock_guard g(lock_);
	for (waiter &w : w_)
		if (w.done && w.dctn == dctn) {
			w.done->complete();
			return true;
		}
	return false;
}

namespace cmd {

namespace {

status run_dctn(cmd_if &c, u16 opcode, u32 dctn, u16 uid, u32 flags = 0)
{
	static_assert(prm::drain_dct_in::dctn.bit_off == prm::destroy_dct_in::dctn.bit_off);
	u8 in[prm::destroy_dct_in::size_bytes] = {};
	u8 out[prm::mbox_out::size_bytes] = {};
	prm::set(in, prm::destroy_dct_in::opcode, opcode);
	prm::set(in, prm::destroy_dct_in::uid, uid);
	prm::set(in, prm::destroy_dct_in::dctn, dctn);
	return c.exec(in, sizeof(in), out, sizeof(out), flags);
}

} // namespace

result<u32> create_dct(cmd_if &c, const dct_params &p, u16 uid)
{
	namespace in = prm::create_dct_in;
	namespace dc = prm::dctc;
	u8 buf[in::size_bytes] = {};
	prm::set(buf, in::opcode, prm::op::create_dct);
	prm::set(buf, in::uid, uid);
	u8 *d = prm::at(buf, in::dct_context_entry);
	prm::set(d, dc::pd, p.pd);
	prm::set(d, dc::cqn, p.cqn);
	prm::set(d, dc::srqn_xrqn, p.srqn);
	prm::set(d, dc::user_index, p.user_index);
	prm::set(d, dc::dc_access_key, p.dc_key);
	prm::set(d, dc::rre, p.rre);
	prm::set(d, dc::rwe, p.rwe);
	prm::set(d, dc::rae, p.rae);
	if (p.rae)
		prm::set(d, dc::atomic_mode, prm::qpc_atomic_mode::ib_spec);
	prm::set(d, dc::port, p.port);
	prm::set(d, dc::mtu, p.mtu);
	prm::set(d, dc::min_rnr_nak, p.min_rnr_timer);
	prm::set(d, dc::my_addr_index, p.sgid_index);
	prm::set(d, dc::hop_limit, p.hop_limit);
	prm::set(d, dc::tclass, p.tclass);
	prm::set(d, dc::dscp, p.tclass >> 2);
	prm::set(d, dc::pkey_index, p.pkey_index);
	prm::set(d, dc::flow_label, p.flow_label);
	prm::set(d, dc::eth_prio, p.eth_prio);
	u8 out[prm::create_dct_out::size_bytes] = {};
	SCX_TRY(c.exec(buf, sizeof(buf), out, sizeof(out)));
	return u32(prm::get(out, prm::create_dct_out::dctn));
}

status drain_dct(cmd_if &c, u32 dctn, u16 uid, bool quiet)
{
	return run_dctn(c, prm::op::drain_dct, dctn, uid, quiet ? cmd_if::f_quiet : 0);
}

status destroy_dct(cmd_if &c, u32 dctn, u16 uid) { return run_dctn(c, prm::op::destroy_dct, dctn, uid); }

status query_dct(cmd_if &c, u32 dctn, u8 *dctc)
{
	u8 in[prm::query_dct_in::size_bytes] = {};
	u8 out[prm::query_dct_out::size_bytes] = {};
	prm::set(in, prm::query_dct_in::opcode, prm::op::query_dct);
	prm::set(in, prm::query_dct_in::dctn, dctn);
	SCX_TRY(c.exec(in, sizeof(in), out, sizeof(out)));
	copy_bytes(dctc, prm::at(out, prm::query_dct_out::dct_context_entry), prm::dctc::size_bytes);
	return status::ok();
}

status arm_dct(cmd_if &c, u32 dctn)
{
	u8 in[prm::arm_dct_in::size_bytes] = {};
	u8 out[prm::mbox_out::size_bytes] = {};
	prm::set(in, prm::arm_dct_in::opcode, prm::op::arm_dct_for_key_violation);
	prm::set(in, prm::arm_dct_in::dct_number, dctn);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

} // namespace cmd

status end_dct(device &dev, u32 dctn, u16 uid)
{
	completion done;
	SCX_TRY(done.init());
	// A free waiter slot: others' destroys are short.
	for (u32 tries = 0; !dev.dct_drains().watch(dctn, &done); tries++) {
		if (tries * drain_poll_ms >= drain_wait_ms)
			return errc::busy;
		scx_env_sleep_us(drain_poll_ms * 1000);
	}
	// Drained already (a DRAIN_DCT before this one, a DevX user's): no
	// event to wait for, and nothing worth a line in the log.
	status s = cmd::drain_dct(dev.cmd(), dctn, uid, true);
	bool wait = bool(s);
	for (u32 waited = 0; wait && waited < drain_wait_ms; waited += drain_poll_ms) {
		if (done.wait(drain_poll_ms) || dev.health().dead())
			break;
	}
	dev.dct_drains().unwatch(dctn);
	return cmd::destroy_dct(dev.cmd(), dctn, uid);
}

} // namespace scx::driver
