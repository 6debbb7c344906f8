// SPDX-License-Identifier: GPL-2.0
#include "hca/umem.h"

#include "hca/syndrome.h"
#include "hca/uctx.h"
#include "prm/umem.h"

namespace scx::hca {

namespace st = prm::cmd_stat;

// Pages of 4 KiB up to 1 GiB, as log_page_size's five bits allow at most.
constexpr u32 max_page_shift = 30;

status umem_table::init(bus::dma_space &dma, fw_pages &pages, u32 max_umems)
{
	dma_ = &dma;
	pages_ = &pages;
	return table_.init(1, max_umems);
}

bool umem_table::read_mtts(cmd_ctx &c, umem_ctx &u, u64 n)
{
	namespace in = prm::create_umem_in;
	const u64 mask = (u64(1) << u.page_shift) - 1;
	u.writable = 1;
	for (u32 i = 0; i < n; i++) {
		c.relax_at(i);
		bool good = true;
		u64 e = c.in_be64(in::size_bytes + i * prm::mtt::size_bytes, &good);
		// ptag is the address's bits 63..8; the low byte holds the rights.
		u64 pa = e & ~u64(0xff);
		if (!good || !(e & 1) || (pa & mask) || !dma_->map(pa, usize(mask + 1)))
			return c.fail(st::bad_param_err, synd::umem_bad_mtt);
		if (!(e & 2))
			u.writable = 0;
		pages_->list_set(u.mtts, i, pa);
	}
	return true;
}

void umem_table::create(cmd_ctx &c)
{
	namespace in = prm::create_umem_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::create_umem_out::size_bytes, synd::short_output))
		return;
	const u8 *um = prm::at(c.in, in::umem);
	u32 shift = 12 + u32(prm::get(um, prm::umem::log_page_size));
	u32 offset = u32(prm::get(um, prm::umem::page_offset));
	u64 n = prm::get(um, prm::umem::num_of_mtt);
	if (prm::get(um, prm::umem::ats))
		return (void)c.fail(st::bad_param_err, synd::umem_unsupported);
	if (shift > max_page_shift || offset >> shift)
		return (void)c.fail(st::bad_param_err, synd::umem_bad_layout);
	if (!n || n > fw_pages::max_list)
		return (void)c.fail(st::bad_param_err, synd::umem_bad_layout);
	if (!c.need_in(in::size_bytes + u32(n) * prm::mtt::size_bytes, synd::short_list))
		return;
	auto slot = pages_->alloc_slot();
	if (!slot)
		return (void)c.fail(st::no_res_err, synd::no_fw_memory);
	auto *u = static_cast<umem_ctx *>(pages_->slot(*slot));
	u->slot = *slot;
	u->uid = c.uid;
	u->page_shift = u8(shift);
	u->page_offset = offset;
	auto list = pages_->alloc_list(u32(n));
	if (!list) {
		pages_->free_slot(*slot);
		return (void)c.fail(st::no_res_err, synd::no_fw_memory);
	}
	u->mtts = *list;
	if (!read_mtts(c, *u, n))
		return free_umem(u);
	result<u32> id = table_.insert(u);
	if (!id) {
		free_umem(u);
		return (void)c.fail(st::no_res_err, synd::umem_exhausted);
	}
	u->id = *id;
	prm::set(c.out, prm::create_umem_out::umem_id, *id);
}

void umem_table::free_umem(umem_ctx *u)
{
	pages_->free_list(u->mtts);
	pages_->free_slot(u->slot);
}

void umem_table::destroy(cmd_ctx &c)
{
	namespace in = prm::destroy_umem_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::destroy_umem_out::size_bytes, synd::short_output))
		return;
	u32 id = u32(prm::get(c.in, in::umem_id));
	umem_ctx *u = table_.get(id);
	if (!u)
		return (void)c.fail(st::bad_res_err, synd::umem_invalid);
	if (!uid_may_name(c.uid, u->uid))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	if (u->users)
		return (void)c.fail(st::bad_res_state_err, synd::umem_busy);
	table_.remove(id);
	free_umem(u);
}

umem_ctx *umem_table::usable(cmd_ctx &c, u32 id, bool write)
{
	umem_ctx *u = table_.get(id);
	if (!u)
		c.fail(st::bad_res_err, synd::umem_invalid);
	else if (!uid_may_name(c.uid, u->uid))
		c.fail(st::bad_res_err, synd::uid_foreign);
	else if (write && !u->writable)
		c.fail(st::bad_param_err, synd::umem_read_only);
	else
		return u;
	return nullptr;
}

// Where [offset, offset + len) of u starts, counted from its first page;
// false (the command failed) if the range is empty or leaves the umem.
bool umem_table::locate(cmd_ctx &c, const umem_ctx &u, u64 offset, u64 len, u64 *start)
{
	u64 s = u64(u.page_offset) + offset;
	u64 end = s + len;
	if (!len || s < offset || end < s || end > (u64(u.mtts.count) << u.page_shift))
		return c.fail(st::bad_param_err, synd::umem_out_of_range);
	*start = s;
	return true;
}

bool umem_table::take(cmd_ctx &c, u32 id, u64 offset, u64 len, bool write, umem_span *out)
{
	umem_ctx *u = usable(c, id, write);
	u64 start = 0;
	if (!u || !locate(c, *u, offset, len, &start))
		return false;
	u32 first = u32(start >> u->page_shift);
	u32 n = u32(((start + len - 1) >> u->page_shift) - first + 1);
	auto list = pages_->alloc_list(n);
	if (!list)
		return c.fail(st::no_res_err, synd::no_fw_memory);
	for (u32 i = 0; i < n; i++) {
		c.relax_at(i);
		pages_->list_set(*list, i, pages_->list_get(u->mtts, first + i));
	}
	out->pages = *list;
	out->first_offset = u32(start & ((u64(1) << u->page_shift) - 1));
	out->page_shift = u->page_shift;
	out->umem_id = id;
	u->users++;
	return true;
}

bool umem_table::take_address(cmd_ctx &c, u32 id, u64 offset, u32 len, bool write, u64 *addr)
{
	umem_ctx *u = usable(c, id, write);
	u64 start = 0;
	if (!u || !locate(c, *u, offset, len, &start))
		return false;
	if ((start >> u->page_shift) != ((start + len - 1) >> u->page_shift))
		return c.fail(st::bad_param_err, synd::umem_out_of_range);
	*addr = pages_->list_get(u->mtts, u32(start >> u->page_shift)) + (start & ((u64(1) << u->page_shift) - 1));
	u->users++;
	return true;
}

void umem_table::release(u32 id)
{
	umem_ctx *u = table_.get(id);
	if (u && u->users)
		u->users--;
}

bool umem_table::any_owned_by(u16 uid)
{
	bool found = false;
	table_.for_each([&](u32, umem_ctx *u) { found = found || u->uid == uid; });
	return found;
}

void umem_table::reset()
{
	for (u32 n = 0; n < table_.capacity(); n++)
		if (umem_ctx *u = table_.remove(table_.first() + n))
			free_umem(u);
}

} // namespace scx::hca
