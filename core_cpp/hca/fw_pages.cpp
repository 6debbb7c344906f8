// SPDX-License-Identifier: GPL-2.0
#include "hca/fw_pages.h"

#include "hca/syndrome.h"
#include "lib/endian.h"
#include "lib/new.h"
#include "softcx/env.h"

namespace scx::hca {

fw_pages::~fw_pages() { free_bytes(descs_); }

status fw_pages::init(bus::dma_space &dma, u32 max_pages)
{
	dma_ = &dma;
	max_ = max_pages;
	descs_ = static_cast<desc *>(alloc_bytes(sizeof(desc) * max_pages));
	if (!descs_)
		return errc::nomem;
	reset();
	return status::ok();
}

void fw_pages::reset()
{
	for (u32 i = 0; i < max_; i++)
		descs_[i] = desc{0, nullptr, 0, kind::unused};
	held_ = 0;
	used_ = 0;
}

u32 fw_pages::give(u64 addr)
{
	if (addr & (page_size - 1))
		return synd::page_misaligned;
	u8 *cpu = static_cast<u8 *>(dma_->map(addr, page_size));
	if (!cpu)
		return synd::page_unmapped;
	u32 hole = no_page;
	for (u32 i = 0; i < used_; i++) {
		if (descs_[i].k == kind::unused) {
			if (hole == no_page)
				hole = i;
		} else if (descs_[i].addr == addr) {
			return synd::page_duplicate;
		}
	}
	if (hole == no_page) {
		if (used_ == max_)
			return synd::page_table_full;
		hole = used_++;
	}
	descs_[hole] = desc{addr, cpu, 0, kind::idle};
	held_++;
	return 0;
}

bool fw_pages::take(u64 *addr)
{
	// Hand back the most recently added idle page first: contexts tend to
	// live in the early ones.
	for (u32 i = used_; i-- > 0;) {
		if (descs_[i].k == kind::idle) {
			*addr = descs_[i].addr;
			descs_[i] = desc{0, nullptr, 0, kind::unused};
			held_--;
			while (used_ && descs_[used_ - 1].k == kind::unused)
				used_--;
			return true;
		}
	}
	return false;
}

bool fw_pages::forget(u64 addr)
{
	for (u32 i = 0; i < used_; i++) {
		if (descs_[i].k == kind::idle && descs_[i].addr == addr) {
			descs_[i] = desc{0, nullptr, 0, kind::unused};
			held_--;
			return true;
		}
	}
	return false;
}

u32 fw_pages::idle_pages() const
{
	u32 n = 0;
	for (u32 i = 0; i < used_; i++)
		n += descs_[i].k == kind::idle;
	return n;
}

result<u32> fw_pages::alloc_page()
{
	for (u32 i = 0; i < used_; i++) {
		if (descs_[i].k == kind::idle) {
			descs_[i].k = kind::whole;
			zero_bytes(descs_[i].cpu, page_size);
			return i;
		}
	}
	return errc::nospc;
}

void fw_pages::free_page(u32 page)
{
	if (page < used_ && descs_[page].k == kind::whole)
		descs_[page].k = kind::idle;
	else
		scx_env_bug("hca: freeing a firmware page that is not allocated");
}

result<u32> fw_pages::alloc_slot()
{
	u32 page = no_page;
	for (u32 i = 0; i < used_ && page == no_page; i++)
		if (descs_[i].k == kind::slots && descs_[i].used != 0xffff)
			page = i;
	if (page == no_page) {
		for (u32 i = 0; i < used_ && page == no_page; i++)
			if (descs_[i].k == kind::idle)
				page = i;
		if (page == no_page)
			return errc::nospc;
		descs_[page].k = kind::slots;
		descs_[page].used = 0;
	}
	desc &d = descs_[page];
	u32 s = u32(__builtin_ctz(~u32(d.used)));
	d.used |= u16(1u << s);
	zero_bytes(d.cpu + s * slot_size, slot_size);
	return page * slots_per_page + s;
}

void fw_pages::free_slot(u32 handle)
{
	u32 page = handle / slots_per_page, s = handle % slots_per_page;
	if (page >= used_ || descs_[page].k != kind::slots || !(descs_[page].used & (1u << s))) {
		scx_env_bug("hca: freeing a context slot that is not allocated");
		return;
	}
	descs_[page].used &= u16(~(1u << s));
	if (!descs_[page].used)
		descs_[page].k = kind::idle;
}

void *fw_pages::slot(u32 handle) const
{
	// A driver that wrote into pages it gave away may have changed a
	// handle kept in a context: it then reaches scratch, never beyond.
	u8 *p = page_of(handle / slots_per_page, kind::slots);
	if (!p || !(descs_[handle / slots_per_page].used & (1u << (handle % slots_per_page))))
		return scratch_;
	return p + (handle % slots_per_page) * slot_size;
}

result<fw_list> fw_pages::alloc_list(u32 count)
{
	fw_list l;
	l.count = count;
	if (!count)
		return l;
	if (count > max_list)
		return errc::range;
	u32 ndata = (count + list_per_page - 1) / list_per_page;
	if (idle_pages() < ndata + 1)
		return errc::nospc;
	auto idx = alloc_page();
	if (!idx)
		return idx.error();
	l.index_page = *idx;
	u8 *index = page_cpu(*idx);
	for (u32 i = 0; i < ndata; i++) {
		auto p = alloc_page();
		if (!p) { // cannot happen: counted above
			l.count = i * list_per_page;
			free_list(l);
			return errc::nospc;
		}
		store_be<u32>(index + 4 * i, *p);
	}
	return l;
}

void fw_pages::free_list(fw_list &l)
{
	if (l.index_page == no_page)
		return;
	// The list's descriptor and its index page are driver memory: what
	// a driver overwrote there names no whole page and is skipped.
	u8 *index = page_of(l.index_page, kind::whole);
	u32 ndata = min((l.count + list_per_page - 1) / list_per_page, page_size / 4);
	for (u32 i = 0; index && i < ndata; i++) {
		u32 p = load_be<u32>(index + 4 * i);
		if (page_of(p, kind::whole))
			free_page(p);
	}
	if (index)
		free_page(l.index_page);
	l = fw_list{};
}

u8 *fw_pages::list_data(const fw_list &l, u32 i) const
{
	// Index and data page numbers come from driver memory (see slot()).
	u8 *index = page_of(l.index_page, kind::whole);
	if (!index || i / list_per_page >= page_size / 4)
		return nullptr;
	return page_of(load_be<u32>(index + 4 * (i / list_per_page)), kind::whole);
}

u64 fw_pages::list_get(const fw_list &l, u32 i) const
{
	// 0 for a damaged list: no bus address the device can reach.
	u8 *data = list_data(l, i);
	return data ? load_be<u64>(data + 8 * (i % list_per_page)) : 0;
}

void fw_pages::list_set(const fw_list &l, u32 i, u64 v)
{
	if (u8 *data = list_data(l, i))
		store_be<u64>(data + 8 * (i % list_per_page), v);
}

} // namespace scx::hca
