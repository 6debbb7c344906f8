// SPDX-License-Identifier: GPL-2.0
// The firmware pages: host memory the driver hands the device with
// MANAGE_PAGES. The hca keeps its object contexts (EQ, CQ, mkey) in 256-byte
// slots of these pages and its long lists (PAS, MTT) in whole pages, the way
// the real device keeps its ICM in them: nothing the driver gave is idle, and
// a page can be taken back only when nothing lives in it.
#pragma once

#include "lib/bus.h"
#include "lib/status.h"
#include "lib/types.h"

namespace scx::hca {

// A u64 array spread over firmware pages: an index page of page numbers,
// each naming a data page of 512 entries.
struct fw_list {
	u32 index_page = ~0u;
	u32 count = 0;
};

class fw_pages {
public:
	static constexpr u32 page_size = 4096;
	static constexpr u32 slot_size = 256;
	static constexpr u32 slots_per_page = page_size / slot_size;
	static constexpr u32 list_per_page = page_size / 8;
	static constexpr u32 max_list = (page_size / 4) * list_per_page;
	static constexpr u32 no_page = ~0u;

	fw_pages() = default;
	fw_pages(const fw_pages &) = delete;
	fw_pages &operator=(const fw_pages &) = delete;
	~fw_pages();

	status init(bus::dma_space &dma, u32 max_pages);

	// MANAGE_PAGES give: 0 or the failing syndrome (the status is
	// BAD_PARAM, or NO_RES for a full table).
	u32 give(u64 addr);
	// MANAGE_PAGES take: one page nothing lives in, or false.
	bool take(u64 *addr);
	// Undo a give (a MANAGE_PAGES that failed part-way): false if the page
	// is not held or is in use.
	bool forget(u64 addr);
	u32 held() const { return held_; }
	u32 idle_pages() const;

	// A zeroed 256-byte context slot; a handle for slot()/free_slot().
	result<u32> alloc_slot();
	void free_slot(u32 handle);
	void *slot(u32 handle) const;

	result<fw_list> alloc_list(u32 count);
	void free_list(fw_list &l);
	u64 list_get(const fw_list &l, u32 i) const;
	void list_set(const fw_list &l, u32 i, u64 v);

	// Forget every page (TEARDOWN/DISABLE after the driver reclaimed, or
	// device destruction): the memory is the driver's.
	void reset();

private:
	enum class kind : u8 { unused, idle, slots, whole };
	struct desc {
		u64 addr;
		u8 *cpu;
		u16 used; // slot bitmap when kind == slots
		kind k;
	};

	result<u32> alloc_page();
	void free_page(u32 page);
	u8 *page_cpu(u32 page) const { return descs_[page].cpu; }
	// Page numbers and slot handles read back from a context or a list
	// index live in driver memory: checked, null if not a page of kind k.
	u8 *page_of(u32 page, kind k) const
	{
		return page < used_ && descs_[page].k == k ? descs_[page].cpu : nullptr;
	}
	u8 *list_data(const fw_list &l, u32 i) const;

	bus::dma_space *dma_ = nullptr;
	desc *descs_ = nullptr;
	u32 max_ = 0;
	u32 held_ = 0;
	u32 used_ = 0; // descriptors ever used (high-water mark)
	mutable u8 scratch_[slot_size] = {}; // what a bad slot handle reaches instead
};

} // namespace scx::hca
