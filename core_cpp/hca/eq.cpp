// SPDX-License-Identifier: GPL-2.0
#include "hca/eq.h"

#include "hca/syndrome.h"
#include "prm/eq.h"
#include "prm/reg.h"
#include "prm/uar.h"

namespace scx::hca {

namespace st = prm::cmd_stat;
constexpr u32 eqe_size = prm::eqe::size_bytes;
constexpr u8 eqc_write_failure = 0xa;

status eq_engine::init(bus::dma_space &dma, bus::irq_sink &irq, fw_pages &pages, id_pool &uars,
		       const eq_limits &lim)
{
	dma_ = &dma;
	irq_ = &irq;
	pages_ = &pages;
	uars_ = &uars;
	lim_ = lim;
	SCX_TRY(lock_.init(lock_class::hca_eq));
	return table_.init(0, lim.max_eqs);
}

void eq_engine::create(cmd_ctx &c)
{
	namespace in = prm::create_eq_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::create_eq_out::size_bytes, synd::short_output))
		return;
	const u8 *eqc = prm::at(c.in, in::eq_context_entry);
	u32 log_size = prm::get(eqc, prm::eqc::log_eq_size);
	u32 uar = prm::get(eqc, prm::eqc::uar_page);
	u32 intr = prm::get(eqc, prm::eqc::intr);
	u32 log_page = prm::get(eqc, prm::eqc::log_page_size);
	if (log_size > lim_.log_max_eq_sz) {
		c.fail(st::bad_param_err, synd::eq_bad_size);
		return;
	}
	if (intr >= lim_.num_vectors) {
		c.fail(st::bad_param_err, synd::eq_bad_vector);
		return;
	}
	if (prm::get(eqc, prm::eqc::page_offset)) {
		c.fail(st::bad_param_err, synd::eq_bad_offset);
		return;
	}
	if (log_page > 18) {
		c.fail(st::bad_param_err, synd::eq_bad_page_size);
		return;
	}
	if (!uars_->valid(uar)) {
		c.fail(st::bad_res_err, synd::uar_invalid);
		return;
	}
	u32 page_shift = 12 + log_page;
	u64 ring = u64(eqe_size) << log_size;
	u32 npas = u32((ring + (u64(1) << page_shift) - 1) >> page_shift);
	if (!c.need_in(in::pas.byte_off + npas * 8, synd::short_list))
		return;

	auto slot = pages_->alloc_slot();
	if (!slot) {
		c.fail(st::no_res_err, synd::no_fw_memory);
		return;
	}
	auto *eq = static_cast<eq_ctx *>(pages_->slot(*slot));
	eq->slot = *slot;
	auto list = pages_->alloc_list(npas);
	if (!list) {
		pages_->free_slot(*slot);
		c.fail(st::no_res_err, synd::no_fw_memory);
		return;
	}
	eq->pas = *list;
	for (u32 i = 0; i < npas; i++) {
		c.relax_at(i);
		bool good = true;
		u64 pa = c.in_be64(in::pas.byte_off + i * 8, &good);
		if (!good || (pa & ((u64(1) << page_shift) - 1)) || !dma_->map(pa, usize(1) << page_shift)) {
			pages_->free_list(eq->pas);
			pages_->free_slot(*slot);
			c.fail(st::bad_param_err, synd::eq_bad_page);
			return;
		}
		pages_->list_set(eq->pas, i, pa);
	}
	eq->uar = uar;
	eq->intr = intr;
	eq->log_size = u8(log_size);
	eq->page_shift = u8(page_shift);
	for (u32 i = 0; i < 4; i++)
		eq->mask[i] = load_be<u64>(prm::at(c.in, in::event_bitmask) + 8 * i);

	result<u32> eqn = errc::nospc;
	{
		lock_guard g(lock_);
		eqn = table_.insert(eq);
		if (eqn)
			eq->eqn = *eqn;
	}
	if (!eqn) {
		pages_->free_list(eq->pas);
		pages_->free_slot(*slot);
		c.fail(st::no_res_err, synd::eq_exhausted);
		return;
	}
	uars_->ref(uar);
	prm::set(c.out, prm::create_eq_out::eq_number, *eqn);
}

void eq_engine::free_eq(eq_ctx *eq)
{
	uars_->unref(eq->uar);
	pages_->free_list(eq->pas);
	pages_->free_slot(eq->slot);
}

void eq_engine::destroy(cmd_ctx &c)
{
	namespace in = prm::destroy_eq_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::destroy_eq_out::size_bytes, synd::short_output))
		return;
	u32 eqn = prm::get(c.in, in::eq_number);
	eq_ctx *eq;
	{
		lock_guard g(lock_);
		eq = table_.get(eqn);
		if (!eq) {
			c.fail(st::bad_res_err, synd::eq_invalid);
			return;
		}
		if (eq->cq_refs) {
			c.fail(st::bad_res_state_err, synd::eq_busy);
			return;
		}
		table_.remove(eqn);
	}
	free_eq(eq);
}

void eq_engine::query(cmd_ctx &c)
{
	namespace out = prm::query_eq_out;
	if (!c.need_in(prm::query_eq_in::size_bytes, synd::short_input) ||
	    !c.need_out(out::size_bytes, synd::short_output))
		return;
	u32 eqn = prm::get(c.in, prm::query_eq_in::eq_number);
	lock_guard g(lock_);
	eq_ctx *eq = table_.get(eqn);
	if (!eq) {
		c.fail(st::bad_res_err, synd::eq_invalid);
		return;
	}
	u8 *eqc = prm::at(c.out, out::eq_context_entry);
	prm::set(eqc, prm::eqc::status, eq->status);
	prm::set(eqc, prm::eqc::st, eq->st);
	prm::set(eqc, prm::eqc::log_eq_size, eq->log_size);
	prm::set(eqc, prm::eqc::uar_page, eq->uar);
	prm::set(eqc, prm::eqc::intr, eq->intr);
	prm::set(eqc, prm::eqc::log_page_size, eq->page_shift - 12u);
	prm::set(eqc, prm::eqc::consumer_counter, eq->ci & 0xffffff);
	prm::set(eqc, prm::eqc::producer_counter, eq->pi & 0xffffff);
	prm::set(c.out, out::event_bitmask, eq->mask[0]);
}

bool eq_engine::write_eqe(eq_ctx &eq, u8 type, u8 sub_type, const u8 *data)
{
	// The context lives in a firmware page: sizes the driver overwrote
	// there are a write failure, not shifts out of range.
	if (eq.log_size > lim_.log_max_eq_sz || eq.page_shift < 12 || eq.page_shift > 30) {
		eq.status = eqc_write_failure;
		return false;
	}
	u32 nent = 1u << eq.log_size;
	if (eq.pi - eq.ci >= nent) {
		eq.overruns++;
		return false;
	}
	u64 off = u64(eq.pi & (nent - 1)) * eqe_size;
	u64 pa = pages_->list_get(eq.pas, u32(off >> eq.page_shift)) + (off & ((u64(1) << eq.page_shift) - 1));
	u8 *dst = static_cast<u8 *>(dma_->map(pa, eqe_size));
	if (!dst) {
		eq.status = eqc_write_failure;
		return false;
	}
	u8 e[eqe_size] = {};
	prm::set(e, prm::eqe::event_type, type);
	prm::set(e, prm::eqe::event_sub_type, sub_type);
	if (data)
		copy_bytes(prm::at(e, prm::eqe::event_data), data, prm::eqe::event_data.size);
	prm::set(e, prm::eqe::owner, (eq.pi >> eq.log_size) & 1);
	// Everything before the dword holding the owner bit is visible first.
	constexpr u32 last = prm::reg_offset(prm::eqe::owner);
	copy_bytes(dst, e, last);
	fence(mo::release);
	u32 tail;
	copy_bytes(&tail, e + last, 4);
	write_once(*reinterpret_cast<u32 *>(dst + last), tail);
	eq.pi++;
	eqes_.fetch_add(1, mo::relaxed);
	return true;
}

bool eq_engine::post(u32 eqn, u8 type, u8 sub_type, const u8 *data)
{
	bool fire = false;
	u32 vector = 0;
	{
		lock_guard g(lock_);
		eq_ctx *eq = table_.get(eqn);
		if (!eq || !write_eqe(*eq, type, sub_type, data))
			return false;
		if (eq->st == prm::eq_state::armed) {
			eq->st = prm::eq_state::fired;
			fire = true;
			vector = eq->intr;
		}
	}
	// Outside the lock: the handler may ring this EQ's doorbell at once.
	if (fire) {
		irqs_.fetch_add(1, mo::relaxed);
		irq_->raise(vector);
	}
	return true;
}

eq_ctx *eq_engine::find_subscriber(u8 type)
{
	eq_ctx *found = nullptr;
	table_.for_each([&](u32, eq_ctx *eq) {
		if (!found && (eq->mask[type / 64] >> (type % 64)) & 1)
			found = eq;
	});
	return found;
}

bool eq_engine::subscribed(u8 type)
{
	lock_guard g(lock_);
	return find_subscriber(type) != nullptr;
}

bool eq_engine::post_event(u8 type, u8 sub_type, const u8 *data)
{
	u32 eqn;
	{
		lock_guard g(lock_);
		eq_ctx *eq = find_subscriber(type);
		if (!eq)
			return false;
		eqn = eq->eqn;
	}
	return post(eqn, type, sub_type, data);
}

void eq_engine::doorbell(u32 uar, u32 offset, u32 value)
{
	u32 eqn = prm::reg_get(value, prm::eq_doorbell::eqn);
	u32 ci24 = prm::reg_get(value, prm::eq_doorbell::consumer_index);
	bool arm = offset == prm::uar_page::eq_doorbell_arm;
	bool fire = false;
	u32 vector = 0;
	{
		lock_guard g(lock_);
		eq_ctx *eq = table_.get(eqn);
		// Only the EQ's own UAR page may ring it.
		if (!eq || eq->uar != uar)
			return;
		u32 advance = (ci24 - eq->ci) & 0xffffff;
		eq->ci += min(advance, eq->pi - eq->ci);
		if (arm) {
			// Armed with EQEs still unconsumed: they fire at once.
			if (eq->pi != eq->ci) {
				eq->st = prm::eq_state::fired;
				fire = true;
				vector = eq->intr;
			} else {
				eq->st = prm::eq_state::armed;
			}
		}
	}
	if (fire) {
		irqs_.fetch_add(1, mo::relaxed);
		irq_->raise(vector);
	}
}

bool eq_engine::cq_attach(u32 eqn)
{
	lock_guard g(lock_);
	eq_ctx *eq = table_.get(eqn);
	if (eq)
		eq->cq_refs++;
	return eq != nullptr;
}

void eq_engine::cq_detach(u32 eqn)
{
	lock_guard g(lock_);
	eq_ctx *eq = table_.get(eqn);
	if (eq && eq->cq_refs)
		eq->cq_refs--;
}

void eq_engine::reset()
{
	// Command context only: nothing else creates or destroys EQs.
	for (u32 n = 0; n < table_.capacity(); n++) {
		eq_ctx *eq;
		{
			lock_guard g(lock_);
			eq = table_.remove(table_.first() + n);
		}
		if (eq)
			free_eq(eq);
	}
}

} // namespace scx::hca
