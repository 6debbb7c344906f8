// SPDX-License-Identifier: GPL-2.0
#include "driver/commands.h"

#include "lib/new.h"
#include "prm/cmd.h"
#include "prm/hca.h"
#include "prm/hca_cap.h"
#include "prm/mkey.h"
#include "prm/pd.h"
#include "prm/q_counter.h"
#include "prm/uar.h"
#include "prm/uctx.h"
#include "prm/vport.h"

namespace scx::driver::cmd {

namespace {

// Every output starts with the 16-byte mbox_out header even where the PRM
// layout is shorter.
constexpr u32 out_len(u32 prm_size) { return max(prm_size, prm::mbox_out::size_bytes); }

} // namespace

status nop(cmd_if &c, u32 flags)
{
	u8 in[prm::nop_in::size_bytes] = {};
	u8 out[out_len(prm::nop_out::size_bytes)] = {};
	prm::set(in, prm::nop_in::opcode, prm::op::nop);
	return c.exec(in, sizeof(in), out, sizeof(out), flags);
}

status enable_hca(cmd_if &c, u16 function_id)
{
	u8 in[prm::enable_hca_in::size_bytes] = {};
	u8 out[out_len(prm::enable_hca_out::size_bytes)] = {};
	prm::set(in, prm::enable_hca_in::opcode, prm::op::enable_hca);
	prm::set(in, prm::enable_hca_in::function_id, function_id);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

status disable_hca(cmd_if &c, u16 function_id)
{
	u8 in[prm::disable_hca_in::size_bytes] = {};
	u8 out[out_len(prm::disable_hca_out::size_bytes)] = {};
	prm::set(in, prm::disable_hca_in::opcode, prm::op::disable_hca);
	prm::set(in, prm::disable_hca_in::function_id, function_id);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

status set_issi(cmd_if &c, u16 *issi)
{
	u8 qin[prm::query_issi_in::size_bytes] = {};
	u8 qout[prm::query_issi_out::size_bytes] = {};
	prm::set(qin, prm::query_issi_in::opcode, prm::op::query_issi);
	status s = c.exec(qin, sizeof(qin), qout, sizeof(qout), cmd_if::f_quiet);
	if (s.code() == errc::remoteio) {
		// Firmware without QUERY_ISSI speaks ISSI 0.
		scx_env_log(SCX_LOG_WARN, "%s: QUERY_ISSI not supported by firmware, ISSI is 0", c.name());
		*issi = 0;
		return status::ok();
	}
	SCX_TRY(s);
	u32 sup = u32(prm::get(qout, prm::query_issi_out::supported_issi_dw0));
	if (sup & (1u << 1)) {
		u8 in[prm::set_issi_in::size_bytes] = {};
		u8 out[out_len(prm::set_issi_out::size_bytes)] = {};
		prm::set(in, prm::set_issi_in::opcode, prm::op::set_issi);
		prm::set(in, prm::set_issi_in::current_issi, 1);
		SCX_TRY(c.exec(in, sizeof(in), out, sizeof(out)));
		*issi = 1;
		return status::ok();
	}
	if (sup & 1u || !sup) {
		*issi = 0;
		return status::ok();
	}
	return errc::notsupp;
}

status init_hca(cmd_if &c)
{
	u8 in[prm::init_hca_in::size_bytes] = {};
	u8 out[out_len(prm::init_hca_out::size_bytes)] = {};
	prm::set(in, prm::init_hca_in::opcode, prm::op::init_hca);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

status teardown_hca(cmd_if &c)
{
	u8 in[prm::teardown_hca_in::size_bytes] = {};
	u8 out[out_len(prm::teardown_hca_out::size_bytes)] = {};
	prm::set(in, prm::teardown_hca_in::opcode, prm::op::teardown_hca);
	prm::set(in, prm::teardown_hca_in::profile, prm::teardown_profile::graceful_close);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

status query_hca_cap(cmd_if &c, u16 type, u16 mode, u8 *cap)
{
	namespace qo = prm::query_hca_cap_out;
	u8 in[prm::query_hca_cap_in::size_bytes] = {};
	prm::set(in, prm::query_hca_cap_in::opcode, prm::op::query_hca_cap);
	prm::set(in, prm::query_hca_cap_in::op_mod, prm::hca_cap_op_mod(type, mode));
	u8 *out = static_cast<u8 *>(alloc_bytes(qo::size_bytes));
	if (!out)
		return errc::nomem;
	status s = c.exec(in, sizeof(in), out, qo::size_bytes);
	if (s)
		copy_bytes(cap, prm::at(out, qo::capability), qo::capability.size);
	free_bytes(out);
	return s;
}

status set_hca_cap(cmd_if &c, u16 type, const u8 *cap)
{
	namespace si = prm::set_hca_cap_in;
	u8 *in = static_cast<u8 *>(alloc_bytes(si::size_bytes));
	if (!in)
		return errc::nomem;
	prm::set(in, si::opcode, prm::op::set_hca_cap);
	prm::set(in, si::op_mod, u16(type << 1));
	copy_bytes(prm::at(in, si::capability), cap, si::capability.size);
	u8 out[prm::set_hca_cap_out::size_bytes] = {};
	status s = c.exec(in, si::size_bytes, out, sizeof(out));
	free_bytes(in);
	return s;
}

result<u32> alloc_uar(cmd_if &c, u16 uid)
{
	u8 in[prm::alloc_uar_in::size_bytes] = {};
	u8 out[prm::alloc_uar_out::size_bytes] = {};
	prm::set(in, prm::alloc_uar_in::opcode, prm::op::alloc_uar);
	prm::set(in, prm::alloc_uar_in::uid, uid);
	SCX_TRY(c.exec(in, sizeof(in), out, sizeof(out)));
	return u32(prm::get(out, prm::alloc_uar_out::uar));
}

namespace {

status run_dealloc_uar(cmd_if &c, u32 uar, u16 uid, u32 flags)
{
	u8 in[prm::dealloc_uar_in::size_bytes] = {};
	u8 out[prm::dealloc_uar_out::size_bytes] = {};
	prm::set(in, prm::dealloc_uar_in::opcode, prm::op::dealloc_uar);
	prm::set(in, prm::dealloc_uar_in::uid, uid);
	prm::set(in, prm::dealloc_uar_in::uar, uar);
	return c.exec(in, sizeof(in), out, sizeof(out), flags);
}

} // namespace

status dealloc_uar(cmd_if &c, u32 uar, u16 uid)
{
	return run_dealloc_uar(c, uar, uid, 0);
}

status release_uar(cmd_if &c, u32 uar, u16 uid)
{
	return run_dealloc_uar(c, uar, uid, cmd_if::f_quiet_busy);
}

result<u32> alloc_pd(cmd_if &c, u16 uid)
{
	u8 in[prm::alloc_pd_in::size_bytes] = {};
	u8 out[prm::alloc_pd_out::size_bytes] = {};
	prm::set(in, prm::alloc_pd_in::opcode, prm::op::alloc_pd);
	prm::set(in, prm::alloc_pd_in::uid, uid);
	SCX_TRY(c.exec(in, sizeof(in), out, sizeof(out)));
	return u32(prm::get(out, prm::alloc_pd_out::pd));
}

status dealloc_pd(cmd_if &c, u32 pd, u16 uid)
{
	u8 in[prm::dealloc_pd_in::size_bytes] = {};
	u8 out[prm::dealloc_pd_out::size_bytes] = {};
	prm::set(in, prm::dealloc_pd_in::opcode, prm::op::dealloc_pd);
	prm::set(in, prm::dealloc_pd_in::uid, uid);
	prm::set(in, prm::dealloc_pd_in::pd, pd);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

result<u16> create_uctx(cmd_if &c, u32 cap)
{
	u8 in[prm::create_uctx_in::size_bytes] = {};
	u8 out[prm::create_uctx_out::size_bytes] = {};
	prm::set(in, prm::create_uctx_in::opcode, prm::op::create_uctx);
	prm::set(prm::at(in, prm::create_uctx_in::uctx), prm::uctx::cap, cap);
	SCX_TRY(c.exec(in, sizeof(in), out, sizeof(out)));
	return u16(prm::get(out, prm::create_uctx_out::uid));
}

status destroy_uctx(cmd_if &c, u16 uid)
{
	u8 in[prm::destroy_uctx_in::size_bytes] = {};
	u8 out[prm::destroy_uctx_out::size_bytes] = {};
	prm::set(in, prm::destroy_uctx_in::opcode, prm::op::destroy_uctx);
	prm::set(in, prm::destroy_uctx_in::uid, uid);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

result<u32> alloc_q_counter(cmd_if &c, u16 uid)
{
	u8 in[prm::alloc_q_counter_in::size_bytes] = {};
	u8 out[prm::alloc_q_counter_out::size_bytes] = {};
	prm::set(in, prm::alloc_q_counter_in::opcode, prm::op::alloc_q_counter);
	prm::set(in, prm::alloc_q_counter_in::uid, uid);
	SCX_TRY(c.exec(in, sizeof(in), out, sizeof(out)));
	return u32(prm::get(out, prm::alloc_q_counter_out::counter_set_id));
}

status dealloc_q_counter(cmd_if &c, u32 set)
{
	u8 in[prm::dealloc_q_counter_in::size_bytes] = {};
	u8 out[prm::dealloc_q_counter_out::size_bytes] = {};
	prm::set(in, prm::dealloc_q_counter_in::opcode, prm::op::dealloc_q_counter);
	prm::set(in, prm::dealloc_q_counter_in::counter_set_id, set);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

status query_q_counter(cmd_if &c, u32 set, bool clear, u8 *out)
{
	u8 in[prm::query_q_counter_in::size_bytes] = {};
	prm::set(in, prm::query_q_counter_in::opcode, prm::op::query_q_counter);
	prm::set(in, prm::query_q_counter_in::clear, clear);
	prm::set(in, prm::query_q_counter_in::counter_set_id, set);
	return c.exec(in, sizeof(in), out, prm::query_q_counter_out::size_bytes);
}

result<u32> create_mkey(cmd_if &c, void *in, u32 inlen)
{
	namespace ci = prm::create_mkey_in;
	if (inlen < ci::size_bytes)
		return errc::inval;
	prm::set(in, ci::opcode, prm::op::create_mkey);
	u8 out[prm::create_mkey_out::size_bytes] = {};
	SCX_TRY(c.exec(in, inlen, out, sizeof(out)));
	u32 index = u32(prm::get(out, prm::create_mkey_out::mkey_index));
	u32 key = u32(prm::get(prm::at(static_cast<u8 *>(in), ci::memory_key_mkey_entry), prm::mkc::mkey_7_0));
	return index << 8 | key;
}

status destroy_mkey(cmd_if &c, u32 mkey, u16 uid)
{
	u8 in[prm::destroy_mkey_in::size_bytes] = {};
	u8 out[prm::destroy_mkey_out::size_bytes] = {};
	prm::set(in, prm::destroy_mkey_in::opcode, prm::op::destroy_mkey);
	prm::set(in, prm::destroy_mkey_in::uid, uid);
	prm::set(in, prm::destroy_mkey_in::mkey_index, mkey >> 8);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

status query_adapter(cmd_if &c, adapter_info *info)
{
	namespace qo = prm::query_adapter_out;
	namespace pb = prm::query_adapter_param_block;
	u8 in[prm::query_adapter_in::size_bytes] = {};
	u8 out[qo::size_bytes] = {};
	prm::set(in, prm::query_adapter_in::opcode, prm::op::query_adapter);
	SCX_TRY(c.exec(in, sizeof(in), out, sizeof(out)));
	const u8 *blk = prm::at(out, qo::query_adapter_struct);
	info->ieee_vendor_id = u32(prm::get(blk, pb::ieee_vendor_id));
	info->vsd_vendor_id = u16(prm::get(blk, pb::vsd_vendor_id));
	copy_bytes(info->psid, prm::at(blk, pb::vsd_contd_psid), pb::vsd_contd_psid.size);
	info->psid[16] = 0;
	return status::ok();
}

result<u8> query_vport_state(cmd_if &c, u16 op_mod, u16 vport)
{
	u8 in[prm::query_vport_state_in::size_bytes] = {};
	u8 out[prm::query_vport_state_out::size_bytes] = {};
	prm::set(in, prm::query_vport_state_in::opcode, prm::op::query_vport_state);
	prm::set(in, prm::query_vport_state_in::op_mod, op_mod);
	prm::set(in, prm::query_vport_state_in::vport_number, vport);
	if (vport)
		prm::set(in, prm::query_vport_state_in::other_vport, 1);
	SCX_TRY(c.exec(in, sizeof(in), out, sizeof(out)));
	return u8(prm::get(out, prm::query_vport_state_out::state));
}

} // namespace scx::driver::cmd
