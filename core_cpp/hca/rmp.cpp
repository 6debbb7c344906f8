// SPDX-License-Identifier: GPL-2.0
// Receive memory pools (srq.h): CREATE/MODIFY/QUERY/DESTROY_RMP. An RMP is
// an SRQ made from a work queue context: linked-list (next_wqe_index, as an
// SRQ) or cyclic (WQEs taken in ring order), its WQEs in SRQ format (a
// 16-byte next segment, then data segments) unless basic_cyclic_rcv_wqe
// leaves the segment out of a cyclic one. Its ring and doorbell record are
// pages of the command or, for DevX users (UCX), spans of their umems. The
// wq's page_offset counts 64ths of a page, as an SRQ's does.
#include "hca/caps.h"
#include "hca/srq.h"
#include "hca/syndrome.h"
#include "hca/uctx.h"
#include "prm/rmp.h"
#include "prm/srq.h"
#include "prm/wqe.h"

namespace scx::hca {

namespace st = prm::cmd_stat;

namespace {

// wq features softcx does not have: striding WQEs, signatures, hairpin,
// header-data split, end padding, cross-channel.
bool wq_plain(const u8 *wqc)
{
	namespace w = prm::wq;
	u8 type = u8(prm::get(wqc, w::wq_type));
	return (type == prm::wq_type::linked_list || type == prm::wq_type::cyclic) && !prm::get(wqc, w::wq_signature) &&
	       !prm::get(wqc, w::end_padding_mode) && !prm::get(wqc, w::cd_slave) &&
	       !prm::get(wqc, w::hds_skip_first_sge) && !prm::get(wqc, w::log2_hds_buf_size) &&
	       !prm::get(wqc, w::log_hairpin_num_packets) && !prm::get(wqc, w::log_hairpin_data_sz) &&
	       !prm::get(wqc, w::log_wqe_num_of_strides) && !prm::get(wqc, w::two_byte_shift_en) &&
	       !prm::get(wqc, w::log_wqe_stride_size);
}

u8 rmp_state_of(const srq_runtime &rt)
{
	return rt.state == prm::srqc_state::good ? prm::rmpc_state::rdy : prm::rmpc_state::err;
}

} // namespace

// The ring (pages from the command, or a umem span) and the doorbell record
// (an address, or an offset in a umem); umems taken are released on failure.
bool srq_table::rmp_memory(cmd_ctx &c, const u8 *wqc, srq_runtime &rt, u64 bytes)
{
	namespace w = prm::wq;
	u64 dbr = prm::get(wqc, w::dbr_addr);
	if (dbr & 7)
		return c.fail(st::bad_param_err, synd::srq_bad_dbr);
	if (prm::get(wqc, w::dbr_umem_valid)) {
		u32 id = prm::get(wqc, w::dbr_umem_id);
		if (!umems_->take_address(c, id, dbr, prm::srq_dbrec::size_bytes, false, &dbr))
			return false;
		rt.dbr_umem = id;
	} else if (!dma_->map(dbr, prm::srq_dbrec::size_bytes)) {
		return c.fail(st::bad_param_err, synd::srq_bad_dbr);
	}
	rt.dbr_addr = dbr;
	bool ok;
	if (prm::get(wqc, w::wq_umem_valid)) {
		umem_span sp;
		u32 id = prm::get(wqc, w::wq_umem_id);
		// The device reads the ring; received data goes to the WQEs' buffers.
		ok = umems_->take(c, id, prm::get(wqc, w::wq_umem_offset), bytes, false, &sp);
		if (ok) {
			rt.pas = sp.pages;
			rt.page_shift = sp.page_shift;
			rt.page_offset = sp.first_offset;
			rt.wq_umem = id;
		}
	} else {
		rt.page_shift = u8(12 + prm::get(wqc, w::log_wq_pg_sz));
		rt.page_offset = prm::get(wqc, w::page_offset) << (rt.page_shift - 6);
		u64 page = u64(1) << rt.page_shift;
		u32 npas = u32((rt.page_offset + bytes + page - 1) >> rt.page_shift);
		ok = c.need_in(prm::create_rmp_in::size_bytes + npas * 8, synd::short_list) &&
		     read_pas(c, rt, prm::create_rmp_in::size_bytes, npas, synd::srq_bad_page);
	}
	if (!ok && rt.dbr_umem) {
		umems_->release(rt.dbr_umem);
		rt.dbr_umem = 0;
	}
	return ok;
}

void srq_table::create_rmp(cmd_ctx &c)
{
	namespace in = prm::create_rmp_in;
	namespace w = prm::wq;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::create_rmp_out::size_bytes, synd::short_output))
		return;
	u8 ctx[prm::rmpc::size_bytes];
	if (!c.read_in(in::ctx.byte_off, ctx, sizeof(ctx)))
		return (void)c.fail(st::bad_inp_len_err, synd::short_input);
	const u8 *wqc = prm::at(ctx, prm::rmpc::wq);
	bool cyclic = prm::get(wqc, w::wq_type) == prm::wq_type::cyclic;
	bool basic = prm::get(ctx, prm::rmpc::basic_cyclic_rcv_wqe);
	u32 log_size = prm::get(wqc, w::log_wq_sz), stride_shift = prm::get(wqc, w::log_wq_stride);
	u32 lwm = prm::get(wqc, w::lwm), pd = prm::get(wqc, w::pd);
	if (prm::get(ctx, prm::rmpc::state) != prm::rmpc_state::rdy)
		return (void)c.fail(st::bad_param_err, synd::rmp_bad_state);
	if (!wq_plain(wqc) || (basic && !cyclic))
		return (void)c.fail(st::bad_param_err, synd::rmp_unsupported);
	if (log_size > log_max_srq_sz_)
		return (void)c.fail(st::bad_param_err, synd::srq_bad_size);
	if (stride_shift < 4 || (1u << stride_shift) > max_stride_)
		return (void)c.fail(st::bad_param_err, synd::srq_bad_stride);
	if (prm::get(wqc, w::log_wq_pg_sz) > hca_limits::max_log_page)
		return (void)c.fail(st::bad_param_err, synd::srq_bad_page_size);
	if (lwm >= (1u << log_size))
		return (void)c.fail(st::bad_param_err, synd::srq_bad_lwm);
	if (!pds_->valid(pd))
		return (void)c.fail(st::bad_res_err, synd::srq_bad_pd);
	if (!uid_may_name(c.uid, pds_->owner(pd)))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);

	srq_ctx *s = new_slot(c);
	if (!s)
		return;
	srq_runtime &rt = s->rt;
	rt.uid = c.uid;
	if (!rmp_memory(c, wqc, rt, (u64(1) << log_size) << stride_shift))
		return (void)pages_->free_slot(s->slot);
	rt.rmp = 1;
	rt.cyclic = cyclic;
	rt.next_seg = basic ? 0 : u8(prm::wqe_srq_next_seg::size_bytes);
	rt.pd = pd;
	rt.log_size = u8(log_size);
	rt.stride_shift = u8(stride_shift);
	rt.state = prm::srqc_state::good;
	rt.lwm = u16(lwm);
	rt.limit_armed = lwm != 0;
	static_assert(sizeof(s->srqc) <= w::size_bytes);
	copy_bytes(s->srqc, wqc, sizeof(s->srqc));
	u32 rmpn;
	if (publish(c, s, &rmpn))
		prm::set(c.out, prm::create_rmp_out::rmpn, rmpn);
}

// The state (RDY to RDY or ERR; ERR stays) and, as the bitmask says, the
// limit.
void srq_table::modify_rmp(cmd_ctx &c)
{
	namespace in = prm::modify_rmp_in;
	if (!c.need_in(in::size_bytes, synd::short_input) || !c.need_out(prm::mbox_out::size_bytes, synd::short_output))
		return;
	const u8 *ctx = prm::at(c.in, in::ctx);
	u8 next = u8(prm::get(ctx, prm::rmpc::state));
	u32 lwm = prm::get(prm::at(ctx, prm::rmpc::wq), prm::wq::lwm);
	bool set_lwm = prm::get(c.in, in::bitmask_lwm);
	lock_guard g(lock_);
	srq_ctx *s = table_.get(prm::get(c.in, in::rmpn));
	if (!s || !s->rt.rmp)
		return (void)c.fail(st::bad_res_err, synd::rmp_invalid);
	if (!uid_may_name(c.uid, s->rt.uid))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	srq_runtime &rt = s->rt;
	u8 cur = rmp_state_of(rt);
	if (prm::get(c.in, in::rmp_state) != cur)
		return (void)c.fail(st::bad_res_state_err, synd::rmp_state_mismatch);
	if ((next != prm::rmpc_state::rdy && next != prm::rmpc_state::err) ||
	    (cur == prm::rmpc_state::err && next != cur))
		return (void)c.fail(st::bad_param_err, synd::rmp_bad_state);
	// log_size lives in a firmware page: bounded before the shift.
	if (set_lwm && (rt.log_size > log_max_srq_sz_ || lwm >= (1u << rt.log_size)))
		return (void)c.fail(st::bad_param_err, synd::srq_bad_lwm);
	if (set_lwm) {
		rt.lwm = u16(lwm);
		rt.limit_armed = lwm != 0;
	}
	rt.state = next == prm::rmpc_state::rdy ? prm::srqc_state::good : prm::srqc_state::error;
	rt.generation++;
}

void srq_table::query_rmp(cmd_ctx &c)
{
	namespace out = prm::query_rmp_out;
	namespace w = prm::wq;
	if (!c.need_in(prm::query_rmp_in::size_bytes, synd::short_input) ||
	    !c.need_out(out::size_bytes, synd::short_output))
		return;
	srq_runtime rt;
	u8 wq_head[sizeof(srq_ctx::srqc)];
	{
		lock_guard g(lock_);
		srq_ctx *s = table_.get(prm::get(c.in, prm::query_rmp_in::rmpn));
		if (!s || !s->rt.rmp)
			return (void)c.fail(st::bad_res_err, synd::rmp_invalid);
		if (!uid_may_name(c.uid, s->rt.uid))
			return (void)c.fail(st::bad_res_err, synd::uid_foreign);
		rt = s->rt;
		copy_bytes(wq_head, s->srqc, sizeof(wq_head));
	}
	u8 *ctx = prm::at(c.out, out::rmp_context);
	prm::set(ctx, prm::rmpc::state, rmp_state_of(rt));
	prm::set(ctx, prm::rmpc::basic_cyclic_rcv_wqe, rt.next_seg == 0);
	u8 *wqc = prm::at(ctx, prm::rmpc::wq);
	copy_bytes(wqc, wq_head, sizeof(wq_head));
	prm::set(wqc, w::lwm, rt.lwm);
	prm::set(wqc, w::hw_counter, rt.consumed);
	// A page list only for one the command gave, as far as the output reaches.
	for (u32 i = 0; !rt.wq_umem && i < rt.pas.count && out::size_bytes + (i + 1) * 8 <= c.outlen; i++)
		c.out_be64(out::size_bytes + i * 8, pages_->list_get(rt.pas, i));
}

void srq_table::destroy_rmp(cmd_ctx &c)
{
	namespace in = prm::destroy_rmp_in;
	if (!c.need_in(in::size_bytes, synd::short_input) || !c.need_out(prm::mbox_out::size_bytes, synd::short_output))
		return;
	destroy_one(c, prm::get(c.in, in::rmpn), true);
}

} // namespace scx::hca
