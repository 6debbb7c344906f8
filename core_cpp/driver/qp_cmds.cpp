// SPDX-License-Identifier: GPL-2.0
#include "driver/qp_cmds.h"

#include "lib/new.h"
#include "prm/cmd.h"
#include "prm/qp.h"
#include "prm/srq.h"

namespace scx::driver::cmd {

namespace {

// An input of `fixed` bytes followed by a PAS list, zeroed.
u8 *alloc_in(u32 fixed, u32 npas, u32 *inlen)
{
	*inlen = fixed + npas * 8;
	return static_cast<u8 *>(alloc_bytes(*inlen));
}

void put_pas(u8 *in, u32 off, const wq_buffer &b)
{
	for (u32 i = 0; i < b.npas; i++)
		store_be<u64>(in + off + i * 8, b.pas[i]);
}

void set_access(u8 *qpc, const qp_access_bits &a)
{
	prm::set(qpc, prm::qpc::rre, a.remote_read);
	prm::set(qpc, prm::qpc::rwe, a.remote_write);
	prm::set(qpc, prm::qpc::rae, a.remote_atomic);
	if (a.remote_atomic)
		prm::set(qpc, prm::qpc::atomic_mode, prm::qpc_atomic_mode::ib_spec);
}

// A transition's input; the output is the 16-byte header (and ECE).
status run_modify(cmd_if &c, u16 opcode, u32 qpn, u32 opt_param_mask, const u8 *qpc, u16 uid)
{
	namespace mi = prm::rst2init_qp_in;
	u8 in[mi::size_bytes] = {};
	u8 out[prm::rst2init_qp_out::size_bytes] = {};
	prm::set(in, mi::opcode, opcode);
	prm::set(in, mi::uid, uid);
	prm::set(in, mi::qpn, qpn);
	prm::set(in, mi::opt_param_mask, opt_param_mask);
	copy_bytes(prm::at(in, mi::qpc), qpc, prm::qpc::size_bytes);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

status run_qpn_only(cmd_if &c, u16 opcode, u32 qpn, u16 uid)
{
	static_assert(prm::qp_2err_in::qpn.bit_off == prm::qp_2rst_in::qpn.bit_off &&
		      prm::destroy_qp_in::qpn.bit_off == prm::qp_2rst_in::qpn.bit_off);
	u8 in[prm::qp_2rst_in::size_bytes] = {};
	u8 out[prm::qp_2rst_out::size_bytes] = {};
	prm::set(in, prm::qp_2rst_in::opcode, opcode);
	prm::set(in, prm::qp_2rst_in::uid, uid);
	prm::set(in, prm::qp_2rst_in::qpn, qpn);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

} // namespace

u32 wq_pas_count(u64 bytes, u32 log_page_size, u32 page_offset)
{
	if (!bytes)
		return 0;
	u32 shift = 12 + log_page_size;
	u64 start = u64(page_offset) << (shift - 6);
	return u32((start + bytes + (u64(1) << shift) - 1) >> shift);
}

result<u32> create_qp(cmd_if &c, const qp_params &p, u16 uid)
{
	namespace in = prm::create_qp_in;
	namespace q = prm::qpc;
	if (p.rq_wqe_shift < prm::qp_wq::min_rq_stride_shift || (p.buf.npas && !p.buf.pas))
		return errc::inval;
	u32 inlen;
	u8 *buf = alloc_in(in::size_bytes, p.buf.npas, &inlen);
	if (!buf)
		return errc::nomem;
	prm::set(buf, in::uid, uid);
	u8 *qpc = prm::at(buf, in::qpc);
	prm::set(qpc, q::st, p.st);
	prm::set(qpc, q::pm_state, prm::qpc_pm_state::migrated);
	prm::set(qpc, q::pd, p.pd);
	prm::set(qpc, q::uar_page, p.uar);
	prm::set(qpc, q::user_index, p.user_index);
	prm::set(qpc, q::cqn_snd, p.cqn_snd);
	prm::set(qpc, q::cqn_rcv, p.cqn_rcv);
	prm::set(qpc, q::rq_type, p.rq_type);
	if (p.rq_type == prm::qp_rq_type::non_zero) {
		prm::set(qpc, q::log_rq_size, p.log_rq_size);
		prm::set(qpc, q::log_rq_stride, p.rq_wqe_shift - prm::qp_wq::min_rq_stride_shift);
	} else if (p.rq_type == prm::qp_rq_type::srq) {
		prm::set(qpc, q::srqn_rmpn_xrqn, p.srqn);
	}
	if (p.no_sq)
		prm::set(qpc, q::no_sq, 1);
	else
		prm::set(qpc, q::log_sq_size, p.log_sq_size);
	prm::set(qpc, q::log_page_size, p.buf.log_page_size);
	prm::set(qpc, q::page_offset, p.buf.page_offset);
	prm::set(qpc, q::dbr_addr, p.dbr_addr);
	prm::set(qpc, q::cs_req, p.cs_req);
	prm::set(qpc, q::cs_res, p.cs_res);
	prm::set(qpc, q::ts_format, p.ts_format);
	prm::set(qpc, q::rlky, p.rlky);
	prm::set(qpc, q::fre, p.fre);
	prm::set(qpc, q::block_lb_mc, p.block_lb_mc);
	put_pas(buf, in::pas.byte_off, p.buf);
	result<u32> r = create_qp(c, buf, inlen);
	free_bytes(buf);
	return r;
}

result<u32> create_qp(cmd_if &c, void *in, u32 inlen)
{
	namespace ci = prm::create_qp_in;
	if (inlen < ci::size_bytes)
		return errc::inval;
	prm::set(in, ci::opcode, prm::op::create_qp);
	u8 out[prm::create_qp_out::size_bytes] = {};
	SCX_TRY(c.exec(in, inlen, out, sizeof(out)));
	return u32(prm::get(out, prm::create_qp_out::qpn));
}

status destroy_qp(cmd_if &c, u32 qpn, u16 uid) { return run_qpn_only(c, prm::op::destroy_qp, qpn, uid); }

status query_qp(cmd_if &c, u32 qpn, u8 *qpc)
{
	namespace qo = prm::query_qp_out;
	u8 in[prm::query_qp_in::size_bytes] = {};
	prm::set(in, prm::query_qp_in::opcode, prm::op::query_qp);
	prm::set(in, prm::query_qp_in::qpn, qpn);
	u8 *out = static_cast<u8 *>(alloc_bytes(qo::size_bytes));
	if (!out)
		return errc::nomem;
	status s = c.exec(in, sizeof(in), out, qo::size_bytes);
	if (s)
		copy_bytes(qpc, prm::at(out, qo::qpc), prm::qpc::size_bytes);
	free_bytes(out);
	return s;
}

status modify_qp(cmd_if &c, u16 opcode, u32 qpn, u32 opt_param_mask, const u8 *qpc, u16 uid)
{
	switch (opcode) {
	case prm::op::rst2init_qp:
	case prm::op::init2init_qp:
	case prm::op::init2rtr_qp:
	case prm::op::rtr2rts_qp:
	case prm::op::rts2rts_qp:
	case prm::op::sqerr2rts_qp:
	case prm::op::sqd_rts_qp:
		return run_modify(c, opcode, qpn, opt_param_mask, qpc, uid);
	default:
		return errc::inval;
	}
}

status qp_to_err(cmd_if &c, u32 qpn, u16 uid) { return run_qpn_only(c, prm::op::qp_2err, qpn, uid); }
status qp_to_rst(cmd_if &c, u32 qpn, u16 uid) { return run_qpn_only(c, prm::op::qp_2rst, qpn, uid); }

status rst2init_qp(cmd_if &c, u32 qpn, u8 st, const qp_init_attr &a, u16 uid)
{
	namespace q = prm::qpc;
	u8 qpc[q::size_bytes] = {};
	u8 *path = prm::at(qpc, q::primary_address_path);
	prm::set(qpc, q::st, st);
	prm::set(qpc, q::pm_state, prm::qpc_pm_state::migrated);
	prm::set(path, prm::ads::pkey_index, a.pkey_index);
	prm::set(path, prm::ads::vhca_port_num, a.port);
	prm::set(qpc, q::counter_set_id, a.counter_set_id);
	if (st == prm::qpc_st::ud)
		prm::set(qpc, q::q_key, a.q_key);
	else if (st != prm::qpc_st::dci)
		set_access(qpc, a.access);
	return run_modify(c, prm::op::rst2init_qp, qpn, 0, qpc, uid);
}

status init2rtr_qp(cmd_if &c, u32 qpn, u8 st, const qp_rtr_attr &a, u16 uid)
{
	namespace q = prm::qpc;
	namespace ad = prm::ads;
	u8 qpc[q::size_bytes] = {};
	u8 *path = prm::at(qpc, q::primary_address_path);
	prm::set(qpc, q::st, st);
	prm::set(qpc, q::pm_state, prm::qpc_pm_state::migrated);
	prm::set(qpc, q::mtu, a.mtu);
	prm::set(qpc, q::log_msg_max, a.log_msg_max);
	if (st == prm::qpc_st::rc || st == prm::qpc_st::uc) {
		const qp_path_attr &p = a.path;
		prm::set(qpc, q::remote_qpn, a.remote_qpn);
		prm::set(qpc, q::next_rcv_psn, a.rq_psn);
		prm::set(path, ad::rmac_47_32, load_be<u16>(p.rmac));
		prm::set(path, ad::rmac_31_0, load_be<u32>(p.rmac + 2));
		copy_bytes(prm::at(path, ad::rgid_rip), p.rgid, sizeof(p.rgid));
		prm::set(path, ad::src_addr_index, p.sgid_index);
		prm::set(path, ad::hop_limit, p.hop_limit);
		prm::set(path, ad::tclass, p.tclass);
		prm::set(path, ad::dscp, p.tclass >> 2);
		prm::set(path, ad::flow_label, p.flow_label);
		prm::set(path, ad::udp_sport, p.udp_sport);
		prm::set(path, ad::eth_prio, p.sl & 7);
		prm::set(path, ad::vhca_port_num, p.port);
	}
	if (st == prm::qpc_st::rc) {
		prm::set(qpc, q::log_rra_max, a.log_rra_max);
		prm::set(qpc, q::min_rnr_nak, a.min_rnr_timer);
	}
	if (a.opt_param_mask & (prm::qp_optpar::rre | prm::qp_optpar::rwe | prm::qp_optpar::rae))
		set_access(qpc, a.access);
	if (a.opt_param_mask & prm::qp_optpar::pkey_index)
		prm::set(path, ad::pkey_index, a.pkey_index);
	if (a.opt_param_mask & prm::qp_optpar::q_key)
		prm::set(qpc, q::q_key, a.q_key);
	return run_modify(c, prm::op::init2rtr_qp, qpn, a.opt_param_mask, qpc, uid);
}

status rtr2rts_qp(cmd_if &c, u32 qpn, u8 st, const qp_rts_attr &a, u16 uid)
{
	namespace q = prm::qpc;
	u8 qpc[q::size_bytes] = {};
	u8 *path = prm::at(qpc, q::primary_address_path);
	prm::set(qpc, q::st, st);
	prm::set(qpc, q::pm_state, prm::qpc_pm_state::migrated);
	prm::set(qpc, q::next_send_psn, a.sq_psn);
	if (st == prm::qpc_st::rc || st == prm::qpc_st::dci) {
		prm::set(qpc, q::retry_count, a.retry_count);
		prm::set(qpc, q::rnr_retry, a.rnr_retry);
		prm::set(qpc, q::log_sra_max, a.log_sra_max);
		prm::set(path, prm::ads::ack_timeout, a.ack_timeout);
	}
	if (a.opt_param_mask & (prm::qp_optpar::rre | prm::qp_optpar::rwe | prm::qp_optpar::rae))
		set_access(qpc, a.access);
	if (a.opt_param_mask & prm::qp_optpar::rnr_timeout)
		prm::set(qpc, q::min_rnr_nak, a.min_rnr_timer);
	if (a.opt_param_mask & prm::qp_optpar::q_key)
		prm::set(qpc, q::q_key, a.q_key);
	if (a.opt_param_mask & prm::qp_optpar::counter_set_id)
		prm::set(qpc, q::counter_set_id, a.counter_set_id);
	return run_modify(c, prm::op::rtr2rts_qp, qpn, a.opt_param_mask, qpc, uid);
}

result<u32> create_srq(cmd_if &c, const srq_params &p, u16 uid)
{
	namespace in = prm::create_srq_in;
	namespace sc = prm::srqc;
	if (p.wqe_shift < 4 || (p.buf.npas && !p.buf.pas))
		return errc::inval;
	u32 inlen;
	u8 *buf = alloc_in(in::size_bytes, p.buf.npas, &inlen);
	if (!buf)
		return errc::nomem;
	prm::set(buf, in::opcode, prm::op::create_srq);
	prm::set(buf, in::uid, uid);
	u8 *ctx = prm::at(buf, in::srq_context_entry);
	prm::set(ctx, sc::log_srq_size, p.log_size);
	prm::set(ctx, sc::log_rq_stride, p.wqe_shift - 4);
	prm::set(ctx, sc::rlky, p.rlky);
	prm::set(ctx, sc::page_offset, p.buf.page_offset);
	prm::set(ctx, sc::cqn, p.cqn);
	prm::set(ctx, sc::log_page_size, p.buf.log_page_size);
	prm::set(ctx, sc::pd, p.pd);
	prm::set(ctx, sc::lwm, p.lwm);
	prm::set(ctx, sc::dbr_addr, p.dbr_addr);
	put_pas(buf, in::pas.byte_off, p.buf);
	u8 out[prm::create_srq_out::size_bytes] = {};
	status s = c.exec(buf, inlen, out, sizeof(out));
	free_bytes(buf);
	SCX_TRY(s);
	return u32(prm::get(out, prm::create_srq_out::srqn));
}

status destroy_srq(cmd_if &c, u32 srqn, u16 uid)
{
	u8 in[prm::destroy_srq_in::size_bytes] = {};
	u8 out[prm::destroy_srq_out::size_bytes] = {};
	prm::set(in, prm::destroy_srq_in::opcode, prm::op::destroy_srq);
	prm::set(in, prm::destroy_srq_in::uid, uid);
	prm::set(in, prm::destroy_srq_in::srqn, srqn);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

status query_srq(cmd_if &c, u32 srqn, u8 *srqc)
{
	namespace qo = prm::query_srq_out;
	u8 in[prm::query_srq_in::size_bytes] = {};
	prm::set(in, prm::query_srq_in::opcode, prm::op::query_srq);
	prm::set(in, prm::query_srq_in::srqn, srqn);
	u8 *out = static_cast<u8 *>(alloc_bytes(qo::size_bytes));
	if (!out)
		return errc::nomem;
	status s = c.exec(in, sizeof(in), out, qo::size_bytes);
	if (s)
		copy_bytes(srqc, prm::at(out, qo::srq_context_entry), prm::srqc::size_bytes);
	free_bytes(out);
	return s;
}

status arm_srq(cmd_if &c, u32 srqn, u16 lwm, u16 uid)
{
	u8 in[prm::arm_rq_in::size_bytes] = {};
	u8 out[prm::arm_rq_out::size_bytes] = {};
	prm::set(in, prm::arm_rq_in::opcode, prm::op::arm_rq);
	prm::set(in, prm::arm_rq_in::op_mod, prm::arm_rq_op_mod::srq);
	prm::set(in, prm::arm_rq_in::uid, uid);
	prm::set(in, prm::arm_rq_in::srq_number, srqn);
	prm::set(in, prm::arm_rq_in::lwm, lwm);
	return c.exec(in, sizeof(in), out, sizeof(out));
}

} // namespace scx::driver::cmd
