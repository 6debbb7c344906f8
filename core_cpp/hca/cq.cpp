// SPDX-License-Identifier: GPL-2.0
#include "hca/cq.h"

#include "hca/syndrome.h"
#include "hca/uctx.h"
#include "prm/cq.h"
#include "prm/eq.h"
#include "prm/reg.h"

namespace scx::hca {

namespace st = prm::cmd_stat;

status cq_engine::init(bus::dma_space &dma, fw_pages &pages, id_pool &uars, umem_table &umems, eq_engine &eqs,
		       u32 max_cqs, u32 log_max_cq_sz)
{
	dma_ = &dma;
	pages_ = &pages;
	uars_ = &uars;
	umems_ = &umems;
	eqs_ = &eqs;
	log_max_cq_sz_ = log_max_cq_sz;
	SCX_TRY(lock_.init(lock_class::hca_cq));
	return table_.init(0, max_cqs);
}

bool cq_engine::ring_from_pas(cmd_ctx &c, cq_ctx &cq, u64 ring, u32 page_shift)
{
	namespace in = prm::create_cq_in;
	const u8 *cqc = prm::at(c.in, in::cq_context);
	if (prm::get(cqc, prm::cqc::page_offset))
		return c.fail(st::bad_param_err, synd::cq_bad_offset);
	if (page_shift > 30)
		return c.fail(st::bad_param_err, synd::cq_bad_page_size);
	u32 npas = u32((ring + (u64(1) << page_shift) - 1) >> page_shift);
	if (!c.need_in(in::pas.byte_off + npas * 8, synd::short_list))
		return false;
	auto list = pages_->alloc_list(npas);
	if (!list)
		return c.fail(st::no_res_err, synd::no_fw_memory);
	cq.pas = *list;
	cq.page_shift = u8(page_shift);
	for (u32 i = 0; i < npas; i++) {
		c.relax_at(i);
		bool good = true;
		u64 pa = c.in_be64(in::pas.byte_off + i * 8, &good);
		if (!good || (pa & ((u64(1) << page_shift) - 1)) || !dma_->map(pa, usize(1) << page_shift))
			return c.fail(st::bad_param_err, synd::cq_bad_page);
		pages_->list_set(cq.pas, i, pa);
	}
	return true;
}

bool cq_engine::ring_from_umem(cmd_ctx &c, cq_ctx &cq, u64 ring)
{
	namespace in = prm::create_cq_in;
	umem_span span;
	u32 id = u32(prm::get(c.in, in::cq_umem_id));
	if (!umems_->take(c, id, prm::get(c.in, in::cq_umem_offset), ring, true, &span))
		return false;
	cq.pas = span.pages;
	cq.page_shift = span.page_shift;
	cq.ring_offset = span.first_offset;
	cq.ring_umem = id;
	return true;
}

// What a CQ holds of pages and umems; a failed create's too.
void cq_engine::release_memory(cq_ctx &cq)
{
	pages_->free_list(cq.pas);
	if (cq.ring_umem)
		umems_->release(cq.ring_umem);
	if (cq.dbr_umem)
		umems_->release(cq.dbr_umem);
	pages_->free_slot(cq.slot);
}

void cq_engine::create(cmd_ctx &c)
{
	namespace in = prm::create_cq_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::create_cq_out::size_bytes, synd::short_output))
		return;
	const u8 *cqc = prm::at(c.in, in::cq_context);
	u32 log_size = prm::get(cqc, prm::cqc::log_cq_size);
	u32 uar = prm::get(cqc, prm::cqc::uar_page);
	u32 eqn = prm::get(cqc, prm::cqc::c_eqn_or_apu_element);
	u32 cqe_sz = prm::get(cqc, prm::cqc::cqe_sz);
	u64 dbr = prm::get(cqc, prm::cqc::dbr_addr);
	const bool dbr_umem = prm::get(cqc, prm::cqc::dbr_umem_valid);
	if (log_size > log_max_cq_sz_)
		return (void)c.fail(st::bad_param_err, synd::cq_bad_size);
	if (cqe_sz != prm::cqe_size::bytes_64 && cqe_sz != prm::cqe_size::bytes_128)
		return (void)c.fail(st::bad_param_err, synd::cq_bad_cqe_size);
	if ((dbr & 7) || (!dbr_umem && !dma_->map(dbr, prm::cq_dbrec::size_bytes)))
		return (void)c.fail(st::bad_param_err, synd::cq_bad_dbr);
	if (!uars_->valid(uar))
		return (void)c.fail(st::bad_res_err, synd::uar_invalid);
	if (!uid_may_name(c.uid, uars_->owner(uar)))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	if (!eqs_->cq_attach(eqn))
		return (void)c.fail(st::bad_res_err, synd::cq_bad_eq);

	auto slot = pages_->alloc_slot();
	if (!slot) {
		eqs_->cq_detach(eqn);
		return (void)c.fail(st::no_res_err, synd::no_fw_memory);
	}
	auto *cq = static_cast<cq_ctx *>(pages_->slot(*slot));
	cq->slot = *slot;
	cq->pas = fw_list{}; // the slot is zeroed: page 0 is not "no list"
	u32 entry = cqe_sz == prm::cqe_size::bytes_64 ? 64 : 128;
	u64 ring = u64(entry) << log_size;
	bool ok = prm::get(c.in, in::cq_umem_valid) ? ring_from_umem(c, *cq, ring)
						    : ring_from_pas(c, *cq, ring, 12 + prm::get(cqc, prm::cqc::log_page_size));
	if (ok && dbr_umem) {
		u32 id = prm::get(cqc, prm::cqc::dbr_umem_id);
		ok = umems_->take_address(c, id, dbr, prm::cq_dbrec::size_bytes, true, &dbr);
		if (ok)
			cq->dbr_umem = id;
	}
	if (!ok) {
		release_memory(*cq);
		eqs_->cq_detach(eqn);
		return;
	}
	cq->uar = uar;
	cq->uid = c.uid;
	cq->eqn = eqn;
	cq->log_size = u8(log_size);
	cq->cqe_size = u8(entry);
	cq->oi = u8(prm::get(cqc, prm::cqc::oi));
	cq->cq_period = u16(prm::get(cqc, prm::cqc::cq_period));
	cq->cq_max_count = u16(prm::get(cqc, prm::cqc::cq_max_count));
	cq->dbr_addr = dbr;
	publish(c, cq);
}

// A CQ made: numbered, visible to the data path, its arm word marked.
void cq_engine::publish(cmd_ctx &c, cq_ctx *cq)
{
	result<u32> cqn = errc::nospc;
	{
		lock_guard g(lock_);
		cqn = table_.insert(cq);
		if (cqn) {
			cq->cqn = *cqn;
			epoch_++;
		}
	}
	if (!cqn) {
		eqs_->cq_detach(cq->eqn);
		release_memory(*cq);
		return (void)c.fail(st::no_res_err, synd::cq_exhausted);
	}
	uars_->ref(cq->uar);
	// Nothing is requested yet: a marked word no request can equal (a
	// command drivers never use), so the first request, all zeroes, is new.
	if (u32 *w = arm_word(*cq))
		write_once(*w, cpu_to_be<u32>(prm::reg_set(prm::reg_set(0, prm::cq_dbrec::arm_mark, 1),
							    prm::cq_dbrec::arm_cmd, 7)));
	prm::set(c.out, prm::create_cq_out::cqn, *cqn);
}

void cq_engine::free_cq(cq_ctx *cq)
{
	eqs_->cq_detach(cq->eqn);
	uars_->unref(cq->uar);
	release_memory(*cq);
}

void cq_engine::destroy(cmd_ctx &c)
{
	if (!c.need_in(prm::destroy_cq_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::destroy_cq_out::size_bytes, synd::short_output))
		return;
	cq_ctx *cq;
	{
		lock_guard g(lock_);
		u32 cqn = prm::get(c.in, prm::destroy_cq_in::cqn);
		cq = table_.get(cqn);
		if (cq && !uid_may_name(c.uid, cq->uid))
			return (void)c.fail(st::bad_res_err, synd::uid_foreign);
		if (cq && cq->users)
			return (void)c.fail(st::bad_res_state_err, synd::cq_busy);
		table_.remove(cqn);
		epoch_++;
	}
	if (!cq)
		return (void)c.fail(st::bad_res_err, synd::cq_invalid);
	free_cq(cq);
}

u16 cq_engine::owner(u32 cqn)
{
	lock_guard g(lock_);
	cq_ctx *cq = table_.get(cqn);
	return cq ? cq->uid : 0;
}

bool cq_engine::any_owned_by(u16 uid)
{
	bool found = false;
	lock_guard g(lock_);
	table_.for_each([&](u32, cq_ctx *cq) { found = found || cq->uid == uid; });
	return found;
}

bool cq_engine::attach(u32 cqn)
{
	lock_guard g(lock_);
	cq_ctx *cq = table_.get(cqn);
	if (cq)
		cq->users++;
	return cq != nullptr;
}

void cq_engine::detach(u32 cqn)
{
	lock_guard g(lock_);
	cq_ctx *cq = table_.get(cqn);
	if (cq && cq->users)
		cq->users--;
}

bool cq_engine::consumer_index(u32 cqn, u32 *ci)
{
	lock_guard g(lock_);
	cq_ctx *cq = table_.get(cqn);
	return cq && consumer_index(*cq, ci);
}

bool cq_engine::consumer_index(const cq_ctx &cq, u32 *ci)
{
	const u8 *rec = static_cast<const u8 *>(dma_->map(cq.dbr_addr, prm::cq_dbrec::size_bytes));
	if (!rec)
		return false;
	u8 snap[prm::cq_dbrec::size_bytes];
	copy_bytes(snap, rec, sizeof(snap));
	*ci = prm::get(snap, prm::cq_dbrec::set_ci);
	return true;
}

void cq_engine::query(cmd_ctx &c)
{
	namespace out = prm::query_cq_out;
	if (!c.need_in(prm::query_cq_in::size_bytes, synd::short_input) ||
	    !c.need_out(out::size_bytes, synd::short_output))
		return;
	lock_guard g(lock_);
	cq_ctx *cq = table_.get(prm::get(c.in, prm::query_cq_in::cqn));
	if (!cq)
		return (void)c.fail(st::bad_res_err, synd::cq_invalid);
	if (!uid_may_name(c.uid, cq->uid))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	u8 *cqc = prm::at(c.out, out::cq_context);
	u32 ci = 0;
	consumer_index(*cq, &ci);
	prm::set(cqc, prm::cqc::status, cq->status);
	prm::set(cqc, prm::cqc::st, cq->st);
	prm::set(cqc, prm::cqc::cqe_sz, cq->cqe_size == 64 ? prm::cqe_size::bytes_64 : prm::cqe_size::bytes_128);
	prm::set(cqc, prm::cqc::oi, cq->oi);
	prm::set(cqc, prm::cqc::log_cq_size, cq->log_size);
	prm::set(cqc, prm::cqc::uar_page, cq->uar);
	prm::set(cqc, prm::cqc::cq_period, cq->cq_period);
	prm::set(cqc, prm::cqc::cq_max_count, cq->cq_max_count);
	prm::set(cqc, prm::cqc::c_eqn_or_apu_element, cq->eqn);
	prm::set(cqc, prm::cqc::log_page_size, cq->page_shift - 12u);
	prm::set(cqc, prm::cqc::consumer_counter, ci);
	prm::set(cqc, prm::cqc::producer_counter, cq->pi & 0xffffff);
	prm::set(cqc, prm::cqc::dbr_addr, cq->dbr_addr);
}

void cq_engine::modify(cmd_ctx &c)
{
	namespace in = prm::modify_cq_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::modify_cq_out::size_bytes, synd::short_output))
		return;
	if (c.op_mod == prm::modify_cq_op_mod::resize_cq)
		return resize(c);
	if (c.op_mod != prm::modify_cq_op_mod::modify_cq)
		return (void)c.fail(st::bad_param_err, synd::bad_op_mod);
	u32 select = prm::get(c.in, in::modify_field_select_resize_field_select);
	const u8 *cqc = prm::at(c.in, in::cq_context);
	lock_guard g(lock_);
	cq_ctx *cq = table_.get(prm::get(c.in, in::cqn));
	if (!cq)
		return (void)c.fail(st::bad_res_err, synd::cq_invalid);
	if (!uid_may_name(c.uid, cq->uid))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	if (select & prm::cq_modify::period)
		cq->cq_period = u16(prm::get(cqc, prm::cqc::cq_period));
	if (select & prm::cq_modify::count)
		cq->cq_max_count = u16(prm::get(cqc, prm::cqc::cq_max_count));
	if (select & prm::cq_modify::overrun)
		cq->oi = u8(prm::get(cqc, prm::cqc::oi));
}

// MODIFY_CQ op_mod RESIZE: a new ring (size, page size, PAS list). The
// device writes a RESIZE CQE at the producer index in the old ring and goes
// on at the next index in the new one; the consumer moves the CQEs it has
// not polled over (index i to i+1) when it meets that CQE. Refused with
// BAD_SIZE_OUTS_CQES when they would not fit. Runs under the data path's
// lock (device::execute), after it has done the work already posted, so no
// CQE is written meanwhile and none is still to come for old WQEs.
void cq_engine::resize(cmd_ctx &c)
{
	namespace in = prm::modify_cq_in;
	namespace rs = prm::cq_resize;
	u32 select = prm::get(c.in, in::modify_field_select_resize_field_select);
	const u8 *cqc = prm::at(c.in, in::cq_context);
	if (select & ~(rs::log_size | rs::page_offset | rs::page_size))
		return (void)c.fail(st::bad_param_err, synd::cq_bad_resize_select);
	if (prm::get(c.in, in::cq_umem_valid))
		return (void)c.fail(st::bad_param_err, synd::cq_umem_unsupported);
	u32 cqe_sz = prm::get(cqc, prm::cqc::cqe_sz);
	if (cqe_sz != prm::cqe_size::bytes_64 && cqe_sz != prm::cqe_size::bytes_128)
		return (void)c.fail(st::bad_param_err, synd::cq_bad_cqe_size);
	u32 cqn = prm::get(c.in, in::cqn);
	u32 log_size, page_shift;
	{
		lock_guard g(lock_);
		cq_ctx *cq = table_.get(cqn);
		if (!cq)
			return (void)c.fail(st::bad_res_err, synd::cq_invalid);
		if (!uid_may_name(c.uid, cq->uid))
			return (void)c.fail(st::bad_res_err, synd::uid_foreign);
		// A ring in a umem stays there (DevX resizes through a new umem,
		// which softcx does not take yet).
		if (cq->ring_umem)
			return (void)c.fail(st::bad_param_err, synd::cq_umem_unsupported);
		log_size = cq->log_size;
		page_shift = cq->page_shift;
	}
	if (select & rs::log_size)
		log_size = prm::get(cqc, prm::cqc::log_cq_size);
	if (select & rs::page_size)
		page_shift = 12 + prm::get(cqc, prm::cqc::log_page_size);
	if (log_size > log_max_cq_sz_)
		return (void)c.fail(st::bad_param_err, synd::cq_bad_size);
	if ((select & rs::page_offset) && prm::get(cqc, prm::cqc::page_offset))
		return (void)c.fail(st::bad_param_err, synd::cq_bad_offset);
	if (page_shift > 30)
		return (void)c.fail(st::bad_param_err, synd::cq_bad_page_size);

	u32 entry = cqe_sz == prm::cqe_size::bytes_64 ? 64 : 128;
	u64 ring = u64(entry) << log_size;
	u32 npas = u32((ring + (u64(1) << page_shift) - 1) >> page_shift);
	if (!c.need_in(in::pas.byte_off + npas * 8, synd::short_list))
		return;
	auto list = pages_->alloc_list(npas);
	if (!list)
		return (void)c.fail(st::no_res_err, synd::no_fw_memory);
	fw_list pas = *list;
	for (u32 i = 0; i < npas; i++) {
		c.relax_at(i);
		bool good = true;
		u64 pa = c.in_be64(in::pas.byte_off + i * 8, &good);
		if (!good || (pa & ((u64(1) << page_shift) - 1)) || !dma_->map(pa, usize(1) << page_shift)) {
			pages_->free_list(pas);
			return (void)c.fail(st::bad_param_err, synd::cq_bad_page);
		}
		pages_->list_set(pas, i, pa);
	}

	lock_guard g(lock_);
	cq_ctx *cq = table_.get(cqn);
	u32 ci = 0;
	if (!cq || cq->status != prm::cq_status::ok || !consumer_index(*cq, &ci)) {
		pages_->free_list(pas);
		return (void)c.fail(st::bad_res_state_err, synd::cq_bad_state);
	}
	// The CQEs not polled move to the new ring one index up, and the next
	// CQE goes right after them: all must fit.
	if (((cq->pi - ci) & 0xffffff) > (1u << log_size) - 1) {
		pages_->free_list(pas);
		return (void)c.fail(st::bad_size_outs_cqes_err, synd::cq_resize_outstanding);
	}
	u8 e[prm::cqe64::size_bytes] = {};
	prm::set(e, prm::cqe64::opcode, prm::cqe_opcode::resize_cq);
	if (!write_cqe(*cq, e)) {
		cq->status = prm::cq_status::write_fail;
		pages_->free_list(pas);
		return (void)c.fail(st::bad_res_state_err, synd::cq_bad_state);
	}
	cq->pi++;
	pages_->free_list(cq->pas);
	cq->pas = pas;
	cq->log_size = u8(log_size);
	cq->page_shift = u8(page_shift);
	cq->cqe_size = u8(entry);
}

// Write a CQE at the producer index (not advanced here), its owner bit
// the lap's, op_own last so the consumer never sees half of it.
bool cq_engine::write_cqe(const cq_ctx &cq, const u8 *cqe64)
{
	u32 nent = 1u << cq.log_size;
	u64 off = cq.ring_offset + u64(cq.pi & (nent - 1)) * cq.cqe_size + (cq.cqe_size - prm::cqe64::size_bytes);
	u64 pa = pages_->list_get(cq.pas, u32(off >> cq.page_shift)) + (off & ((u64(1) << cq.page_shift) - 1));
	u8 *dst = static_cast<u8 *>(dma_->map(pa, prm::cqe64::size_bytes));
	if (!dst)
		return false;
	u8 e[prm::cqe64::size_bytes];
	copy_bytes(e, cqe64, sizeof(e));
	prm::set(e, prm::cqe64::owner, (cq.pi >> cq.log_size) & 1);
	constexpr u32 last = prm::reg_offset(prm::cqe64::op_own);
	copy_bytes(dst, e, last);
	fence(mo::release);
	u32 tail;
	copy_bytes(&tail, e + last, 4);
	write_once(*reinterpret_cast<u32 *>(dst + last), tail);
	return true;
}

cqe_result cq_engine::post_cqe(u32 cqn, const u8 *cqe64, bool solicited)
{
	enum { none, comp, error } notify = none;
	u32 eqn = 0;
	cqe_result res = cqe_result::posted;
	{
		lock_guard g(lock_);
		cq_ctx *cq = table_.get(cqn);
		if (!cq)
			return cqe_result::no_cq;
		if (cq->status != prm::cq_status::ok)
			return cqe_result::overrun;
		// The context lives in a firmware page (see eq_engine::write_eqe).
		if (cq->log_size > log_max_cq_sz_ || cq->page_shift < 12 || cq->page_shift > 30 ||
		    (cq->cqe_size != 64 && cq->cqe_size != 128)) {
			cq->status = prm::cq_status::write_fail;
			return cqe_result::fault;
		}
		u32 nent = 1u << cq->log_size;
		u32 ci;
		if (!consumer_index(*cq, &ci)) {
			cq->status = prm::cq_status::write_fail;
			return cqe_result::fault;
		}
		if (((cq->pi - ci) & 0xffffff) >= nent) {
			// Overrun: the CQ stops; the driver hears of it unless
			// it asked to ignore overruns.
			cq->overruns++;
			if (cq->oi)
				return cqe_result::overrun;
			cq->status = prm::cq_status::overflow;
			notify = error;
			res = cqe_result::overrun;
		} else {
			if (!write_cqe(*cq, cqe64)) {
				cq->status = prm::cq_status::write_fail;
				return cqe_result::fault;
			}
			cq->pi++;
			if (solicited)
				cq->sol_pi = cq->pi;
			if (cq->st == prm::cq_state::armed && (!cq->solicited_only || solicited)) {
				cq->st = prm::cq_state::fired;
				notify = comp;
			}
		}
		eqn = cq->eqn;
	}
	if (notify == comp) {
		comp_event(eqn, cqn);
	} else if (notify == error) {
		u8 data[prm::eqe::event_data.size] = {};
		prm::set(data, prm::cq_error::cqn, cqn);
		prm::set(data, prm::cq_error::syndrome, prm::cq_error_syndrome::cq_overrun);
		eqs_->post_event(prm::event_type::cq_error, 0, data);
	}
	return res;
}

void cq_engine::comp_event(u32 eqn, u32 cqn)
{
	u8 data[prm::eqe::event_data.size] = {};
	prm::set(data, prm::comp_event::cq_number, cqn);
	eqs_->post(eqn, prm::event_type::comp, 0, data);
}

u32 *cq_engine::arm_word(const cq_ctx &cq)
{
	if (!cq.dbr_addr || (cq.dbr_addr & 7))
		return nullptr;
	return static_cast<u32 *>(dma_->map(cq.dbr_addr + 4, 4));
}

// Arm from a request word (arm_sn, cmd, ci as in the doorbell record);
// true if the completion event is due at once.
bool cq_engine::arm(cq_ctx &cq, u32 word)
{
	u8 w[4];
	store_be<u32>(w, word);
	cq.arm_sn = u8(prm::get(w, prm::cq_doorbell::arm_sn));
	cq.solicited_only = prm::get(w, prm::cq_doorbell::cmd) == prm::cq_arm_cmd::req_not_sol;
	// CQEs beyond the index the request names (solicited ones, if that
	// is what it asks for): the event is due now.
	u32 ci = prm::get(w, prm::cq_doorbell::ci);
	u32 pending = (cq.pi - ci) & 0xffffff;
	u32 sol_pending = (cq.sol_pi - ci) & 0xffffff;
	bool due = cq.solicited_only ? sol_pending && sol_pending <= pending : pending != 0;
	if (due) {
		cq.st = prm::cq_state::fired;
		return true;
	}
	cq.st = prm::cq_state::armed;
	return false;
}

void cq_engine::doorbell(u32 uar, u64 value)
{
	u32 cqn = u32(value) & 0xffffff;
	u32 word = u32(value >> 32);
	bool notify = false;
	u32 eqn = 0;
	{
		lock_guard g(lock_);
		cq_ctx *cq = table_.get(cqn);
		if (!cq || cq->uar != uar || cq->status != prm::cq_status::ok)
			return;
		// Drivers write the same word to the record first: mark it seen
		// there, so the record's poller does not act on it again.
		if (u32 *w = arm_word(*cq)) {
			u32 expect = cpu_to_be<u32>(word);
			u32 marked = cpu_to_be<u32>(word | prm::reg_set(0, prm::cq_dbrec::arm_mark, 1));
			__atomic_compare_exchange_n(w, &expect, marked, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
		}
		notify = arm(*cq, word);
		eqn = cq->eqn;
	}
	if (notify)
		comp_event(eqn, cqn);
}

void cq_engine::poll_arm(u32 cqn)
{
	bool notify = false;
	u32 eqn = 0;
	{
		lock_guard g(lock_);
		cq_ctx *cq = table_.get(cqn);
		if (!cq || cq->status != prm::cq_status::ok)
			return;
		u32 *w = arm_word(*cq);
		if (!w)
			return;
		const u32 mark = prm::reg_set(0, prm::cq_dbrec::arm_mark, 1);
		u32 raw = read_once(*w);
		u32 word;
		for (;;) {
			word = be_to_cpu<u32>(raw);
			if (word & mark)
				return;
			// The driver may store again meanwhile: then look again.
			if (__atomic_compare_exchange_n(w, &raw, cpu_to_be<u32>(word | mark), false, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				break;
		}
		notify = arm(*cq, word);
		eqn = cq->eqn;
	}
	if (notify)
		comp_event(eqn, cqn);
}

void cq_engine::reset()
{
	for (u32 n = 0; n < table_.capacity(); n++) {
		cq_ctx *cq;
		{
			lock_guard g(lock_);
			cq = table_.remove(table_.first() + n);
		}
		if (cq)
			free_cq(cq);
	}
}

} // namespace scx::hca
