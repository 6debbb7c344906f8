// SPDX-License-Identifier: GPL-2.0
// How the data path reaches the memory a WQE names: a (key, address,
// length) triple is checked once against the memory key the commands
// created (key and variant, PD, access rights, bounds) and becomes a
// mem_seg; copies then walk segments page by page through the key's
// translation table. Nothing outside a registered, checked range is ever
// mapped.
#pragma once

#include "hca/fw_pages.h"
#include "hca/mkey.h"
#include "lib/bus.h"

namespace scx::hca {

enum class mem_fault : u8 { none, key, pd, access, bounds, unmapped };

struct mem_seg {
	u64 va;          // first byte, in the key's address space
	u32 len;
	u8 pa;           // physical-address key: the address is the bus address
	u8 page_shift;
	u16 pad;
	u64 base;        // address of translation entry 0's first byte
	fw_list mtt;
	u32 mtt_given; // entries written: past them nothing translates
};

// Bytes a list maps to, valid while the lock that resolved it is held.
struct mem_piece {
	const u8 *p;
	u32 n;
};

// A scatter/gather list after its keys were checked.
struct sg_list {
	static constexpr u32 max = 64;
	mem_seg seg[max];
	u32 n = 0;
	u64 total = 0;
};

class mem_resolver {
public:
	void init(bus::dma_space &dma, fw_pages &pages, mkey_table &mkeys)
	{
		dma_ = &dma;
		pages_ = &pages;
		mkeys_ = &mkeys;
	}

	// `access` is the mkey_access bits the operation needs (local read
	// is implied by any valid key). A memory window serves remote access
	// only, to the responder QP `qpn` if it is bound to one.
	mem_fault resolve(u32 key, u32 pd, u8 access, u64 va, u64 len, mem_seg *seg, u32 qpn = no_qpn);
	// Adds [va, va+len) under key to the list (zero lengths add nothing).
	mem_fault add(sg_list &l, u32 key, u32 pd, u8 access, u64 va, u32 len, u32 qpn = no_qpn);

	static constexpr u32 no_qpn = 0xffffff;

	// Bytes at offset `off` of the segment, contiguous for *n <= want.
	u8 *map(const mem_seg &s, u64 off, u32 want, u32 *n);

	// Copies between lists and plain buffers; false if a page of the
	// translation table points nowhere (the key's pages vanished).
	bool write(const sg_list &dst, u64 dst_off, const u8 *src, u64 len);
	bool read(u8 *dst, const sg_list &src, u64 src_off, u64 len);
	bool copy(const sg_list &dst, u64 dst_off, const sg_list &src, u64 src_off, u64 len);
	// [off, off + len) of the list as at most max contiguous pieces in
	// out: how many, or 0 if a byte does not translate or more are needed.
	u32 pieces(const sg_list &l, u64 off, u64 len, mem_piece *out, u32 max);
	// Whether every byte of [off, off + len) of the list translates.
	bool readable(const sg_list &l, u64 off, u64 len);
	// From a list another device's resolver checked (its keys, its
	// translation tables): a peer port's requester.
	bool copy(const sg_list &dst, u64 dst_off, mem_resolver &src_mem, const sg_list &src, u64 src_off, u64 len);

	// Accesses past the MTT entries a key was given (the IOMMU counts
	// what it refuses itself).
	u64 translation_faults() const { return translation_faults_; }

private:
	u64 translation_faults_ = 0;
	bus::dma_space *dma_ = nullptr;
	fw_pages *pages_ = nullptr;
	mkey_table *mkeys_ = nullptr;
};

} // namespace scx::hca
