// SPDX-License-Identifier: GPL-2.0
#include "hca/srq.h"

#include "hca/caps.h"
#include "hca/syndrome.h"
#include "hca/uctx.h"
#include "prm/srq.h"
#include "prm/wqe.h"

namespace scx::hca {

namespace st = prm::cmd_stat;

bool wq_bus_addr(const fw_pages &pages, const fw_list &pas, u32 page_shift, u32 page_offset, u64 off, u64 *bus)
{
	u64 pos = off + page_offset;
	if (pos < off || (pos >> page_shift) >= pas.count)
		return false;
	*bus = pages.list_get(pas, u32(pos >> page_shift)) + (pos & ((u64(1) << page_shift) - 1));
	return true;
}

status srq_table::init(bus::dma_space &dma, fw_pages &pages, id_pool &pds, umem_table &umems, u32 max_srqs,
		       u32 log_max_srq_sz, u32 max_stride)
{
	dma_ = &dma;
	pages_ = &pages;
	pds_ = &pds;
	umems_ = &umems;
	log_max_srq_sz_ = log_max_srq_sz;
	max_stride_ = max_stride;
	SCX_TRY(lock_.init(lock_class::hca_srq));
	return table_.init(first_srqn, max_srqs - first_srqn);
}

void srq_table::create(cmd_ctx &c)
{
	namespace in = prm::create_srq_in;
	namespace sc = prm::srqc;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::create_srq_out::size_bytes, synd::short_output))
		return;
	u8 ctx[sc::size_bytes];
	if (!c.read_in(in::srq_context_entry.byte_off, ctx, sizeof(ctx)))
		return (void)c.fail(st::bad_inp_len_err, synd::short_input);
	u32 log_size = prm::get(ctx, sc::log_srq_size);
	u32 stride_shift = 4 + prm::get(ctx, sc::log_rq_stride);
	u32 log_page = prm::get(ctx, sc::log_page_size);
	u32 pd = prm::get(ctx, sc::pd);
	u64 dbr = prm::get(ctx, sc::dbr_addr);
	u32 lwm = prm::get(ctx, sc::lwm);
	if (prm::get(ctx, sc::wq_signature) || prm::get(ctx, sc::cont_srq))
		return (void)c.fail(st::bad_param_err, synd::srq_unsupported);
	if (log_size > log_max_srq_sz_)
		return (void)c.fail(st::bad_param_err, synd::srq_bad_size);
	if ((1u << stride_shift) > max_stride_)
		return (void)c.fail(st::bad_param_err, synd::srq_bad_stride);
	if (log_page > hca_limits::max_log_page)
		return (void)c.fail(st::bad_param_err, synd::srq_bad_page_size);
	if (lwm >= (1u << log_size))
		return (void)c.fail(st::bad_param_err, synd::srq_bad_lwm);
	if ((dbr & 7) || !dma_->map(dbr, prm::srq_dbrec::size_bytes))
		return (void)c.fail(st::bad_param_err, synd::srq_bad_dbr);
	if (!pds_->valid(pd))
		return (void)c.fail(st::bad_res_err, synd::srq_bad_pd);
	if (!uid_may_name(c.uid, pds_->owner(pd)))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);

	// page_offset counts 64ths of a page (srq_cmd.c get_pas_size).
	u32 page_shift = 12 + log_page;
	u32 offset = prm::get(ctx, sc::page_offset) << (page_shift - 6);
	u64 bytes = (u64(1) << log_size) << stride_shift;
	u32 npas = u32((offset + bytes + (u64(1) << page_shift) - 1) >> page_shift);
	if (!c.need_in(in::pas.byte_off + npas * 8, synd::short_list))
		return;

	srq_ctx *s = new_slot(c);
	if (!s)
		return;
	srq_runtime &rt = s->rt;
	rt.page_shift = u8(page_shift);
	if (!read_pas(c, rt, in::pas.byte_off, npas, synd::srq_bad_page))
		return (void)pages_->free_slot(s->slot);
	rt.pd = pd;
	rt.cqn = prm::get(ctx, sc::cqn);
	rt.log_size = u8(log_size);
	rt.stride_shift = u8(stride_shift);
	rt.state = prm::srqc_state::good;
	rt.next_seg = prm::wqe_srq_next_seg::size_bytes;
	rt.page_offset = offset;
	rt.dbr_addr = dbr;
	rt.lwm = u16(lwm);
	rt.limit_armed = lwm != 0;
	rt.rlky = u8(prm::get(ctx, sc::rlky));
	rt.uid = c.uid;
	copy_bytes(s->srqc, ctx, sizeof(ctx));
	u32 srqn;
	if (publish(c, s, &srqn))
		prm::set(c.out, prm::create_srq_out::srqn, srqn);
}

srq_ctx *srq_table::new_slot(cmd_ctx &c)
{
	auto slot = pages_->alloc_slot();
	if (!slot)
		return c.fail(st::no_res_err, synd::no_fw_memory), nullptr;
	auto *s = static_cast<srq_ctx *>(pages_->slot(*slot));
	zero_bytes(s, sizeof(*s));
	s->slot = *slot;
	return s;
}

bool srq_table::read_pas(cmd_ctx &c, srq_runtime &rt, u32 pas_off, u32 npas, u32 bad_page)
{
	auto list = pages_->alloc_list(npas);
	if (!list)
		return c.fail(st::no_res_err, synd::no_fw_memory);
	rt.pas = *list;
	for (u32 i = 0; i < npas; i++) {
		bool good = true;
		u64 pa = c.in_be64(pas_off + i * 8, &good);
		if (!good || (pa & ((u64(1) << rt.page_shift) - 1)) || !dma_->map(pa, usize(1) << rt.page_shift)) {
			pages_->free_list(rt.pas);
			return c.fail(st::bad_param_err, bad_page);
		}
		pages_->list_set(rt.pas, i, pa);
	}
	return true;
}

bool srq_table::publish(cmd_ctx &c, srq_ctx *s, u32 *number)
{
	result<u32> n = errc::nospc;
	{
		lock_guard g(lock_);
		n = table_.insert(s);
		if (n)
			s->rt.srqn = *n;
	}
	if (!n) {
		free_memory(s->rt);
		pages_->free_slot(s->slot);
		return c.fail(st::no_res_err, synd::srq_exhausted);
	}
	live_++;
	pds_->ref(s->rt.pd);
	*number = *n;
	return true;
}

// What an SRQ's or RMP's memory holds: its page list and umems.
void srq_table::free_memory(srq_runtime &rt)
{
	pages_->free_list(rt.pas);
	if (rt.wq_umem)
		umems_->release(rt.wq_umem);
	if (rt.dbr_umem)
		umems_->release(rt.dbr_umem);
}

void srq_table::free_srq(srq_ctx *s)
{
	live_--;
	pds_->unref(s->rt.pd);
	free_memory(s->rt);
	pages_->free_slot(s->slot);
}

void srq_table::destroy(cmd_ctx &c)
{
	namespace in = prm::destroy_srq_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::destroy_srq_out::size_bytes, synd::short_output))
		return;
	if (prm::get(c.in, in::reserved_at_40))
		return (void)c.fail(st::bad_param_err, synd::srq_reserved);
	destroy_one(c, prm::get(c.in, in::srqn), false);
}

void srq_table::destroy_one(cmd_ctx &c, u32 n, bool rmp)
{
	srq_ctx *s;
	{
		lock_guard g(lock_);
		s = table_.get(n);
		if (!s || s->rt.rmp != rmp)
			return (void)c.fail(st::bad_res_err, rmp ? synd::rmp_invalid : synd::srq_invalid);
		if (!uid_may_name(c.uid, s->rt.uid))
			return (void)c.fail(st::bad_res_err, synd::uid_foreign);
		if (s->rt.users)
			return (void)c.fail(st::bad_res_state_err, synd::srq_busy);
		table_.remove(n);
	}
	free_srq(s);
}

void srq_table::query(cmd_ctx &c)
{
	namespace out = prm::query_srq_out;
	namespace sc = prm::srqc;
	if (!c.need_in(prm::query_srq_in::size_bytes, synd::short_input) ||
	    !c.need_out(out::size_bytes, synd::short_output))
		return;
	if (prm::get(c.in, prm::query_srq_in::reserved_at_40))
		return (void)c.fail(st::bad_param_err, synd::srq_reserved);
	srq_runtime rt;
	u8 ctx[sc::size_bytes];
	{
		lock_guard g(lock_);
		srq_ctx *s = table_.get(prm::get(c.in, prm::query_srq_in::srqn));
		if (!s || s->rt.rmp)
			return (void)c.fail(st::bad_res_err, synd::srq_invalid);
		if (!uid_may_name(c.uid, s->rt.uid))
			return (void)c.fail(st::bad_res_err, synd::uid_foreign);
		rt = s->rt;
		copy_bytes(ctx, s->srqc, sizeof(ctx));
	}
	prm::set(ctx, sc::state, rt.state);
	prm::set(ctx, sc::lwm, rt.lwm);
	prm::set(ctx, sc::wqe_cnt, rt.consumed & 0xffff);
	copy_bytes(prm::at(c.out, out::srq_context_entry), ctx, sizeof(ctx));
	// The page list follows, as far as the output reaches.
	for (u32 i = 0; i < rt.pas.count && out::pas.byte_off + (i + 1) * 8 <= c.outlen; i++)
		c.out_be64(out::pas.byte_off + i * 8, pages_->list_get(rt.pas, i));
}

void srq_table::arm(cmd_ctx &c)
{
	namespace in = prm::arm_rq_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::arm_rq_out::size_bytes, synd::short_output))
		return;
	if (c.op_mod != prm::arm_rq_op_mod::srq)
		return (void)c.fail(st::bad_param_err, synd::bad_op_mod);
	if (prm::get(c.in, in::reserved_at_40))
		return (void)c.fail(st::bad_param_err, synd::srq_reserved);
	u32 lwm = prm::get(c.in, in::lwm);
	lock_guard g(lock_);
	// An RMP's limit is set with MODIFY_RMP.
	srq_ctx *s = table_.get(prm::get(c.in, in::srq_number));
	if (!s || s->rt.rmp)
		return (void)c.fail(st::bad_res_err, synd::srq_invalid);
	if (!uid_may_name(c.uid, s->rt.uid))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	// log_size lives in a firmware page: bounded before the shift.
	if (s->rt.log_size > log_max_srq_sz_ || lwm >= (1u << s->rt.log_size))
		return (void)c.fail(st::bad_param_err, synd::srq_bad_lwm);
	s->rt.lwm = u16(lwm);
	s->rt.limit_armed = lwm != 0;
	s->rt.generation++;
}

u16 srq_table::owner(u32 srqn)
{
	lock_guard g(lock_);
	srq_ctx *s = table_.get(srqn);
	return s ? s->rt.uid : 0;
}

bool srq_table::any_owned_by(u16 uid)
{
	bool found = false;
	lock_guard g(lock_);
	table_.for_each([&](u32, srq_ctx *s) { found = found || s->rt.uid == uid; });
	return found;
}

bool srq_table::attach(u32 srqn)
{
	lock_guard g(lock_);
	srq_ctx *s = table_.get(srqn);
	if (s)
		s->rt.users++;
	return s != nullptr;
}

void srq_table::detach(u32 srqn)
{
	lock_guard g(lock_);
	srq_ctx *s = table_.get(srqn);
	if (s && s->rt.users)
		s->rt.users--;
}

bool srq_table::lookup(u32 srqn, srq_runtime *out)
{
	lock_guard g(lock_);
	srq_ctx *s = table_.get(srqn);
	if (!s)
		return false;
	*out = s->rt;
	return true;
}

bool srq_table::wq_addr(const srq_runtime &rt, u64 off, u64 *bus) const
{
	if (off >= (u64(1) << rt.log_size) << rt.stride_shift)
		return false;
	return wq_bus_addr(*pages_, rt.pas, rt.page_shift, rt.page_offset, off, bus);
}

void srq_table::reset()
{
	for (u32 n = 0; n < table_.capacity(); n++) {
		srq_ctx *s;
		{
			lock_guard g(lock_);
			s = table_.remove(table_.first() + n);
		}
		if (s)
			free_srq(s);
	}
}

} // namespace scx::hca
