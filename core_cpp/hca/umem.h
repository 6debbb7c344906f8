// SPDX-License-Identifier: GPL-2.0
// User memory (DevX UMEM): CREATE_UMEM / DESTROY_UMEM, and the spans of a
// umem that objects created from it use instead of a page list of their
// own. A umem belongs to its creator's uid and only that uid's objects may
// use it (uctx.h); it cannot be destroyed while an object uses it.
#pragma once

#include "hca/cmd_ctx.h"
#include "hca/fw_pages.h"
#include "hca/objects.h"
#include "lib/bus.h"

namespace scx::hca {

// A umem's state, kept in a firmware-page slot; its MTTs in a list.
struct umem_ctx {
	u32 slot;
	u32 id;
	u16 uid;
	u8 page_shift;
	u8 writable;   // every MTT has wr_en
	u32 page_offset;
	u32 users;     // objects built on it
	fw_list mtts;  // page addresses
};
static_assert(sizeof(umem_ctx) <= fw_pages::slot_size);

// Part of a umem as an object uses it: the pages [offset, offset + len)
// falls in, copied into a list of the object's own, and where the object
// starts in the first of them.
struct umem_span {
	fw_list pages;
	u32 first_offset = 0;
	u8 page_shift = 0;
	u32 umem_id = 0;
};

class umem_table {
public:
	umem_table() = default;
	umem_table(const umem_table &) = delete;
	umem_table &operator=(const umem_table &) = delete;

	status init(bus::dma_space &dma, fw_pages &pages, u32 max_umems);

	void create(cmd_ctx &c);
	void destroy(cmd_ctx &c);

	// The span [offset, offset + len) of umem id for an object of the
	// command's uid (write: the device writes it). Fails the command
	// (BAD_RES: no such umem or another uid's; BAD_PARAM: out of range, or
	// read-only for write; NO_RES: no firmware memory) and returns false;
	// else the umem counts one more user until release(id); the caller
	// owns (and frees) out->pages.
	bool take(cmd_ctx &c, u32 id, u64 offset, u64 len, bool write, umem_span *out);
	// One address: a doorbell record of `len` bytes at `offset`, which must
	// not cross a page. The same refusals and counting as take().
	bool take_address(cmd_ctx &c, u32 id, u64 offset, u32 len, bool write, u64 *addr);
	// An object built by take() or take_address() is gone.
	void release(u32 id);

	bool any_owned_by(u16 uid);
	// TEARDOWN_HCA: every umem goes.
	void reset();

private:
	umem_ctx *usable(cmd_ctx &c, u32 id, bool write);
	bool locate(cmd_ctx &c, const umem_ctx &u, u64 offset, u64 len, u64 *start);
	bool read_mtts(cmd_ctx &c, umem_ctx &u, u64 n);
	void free_umem(umem_ctx *u);

	bus::dma_space *dma_ = nullptr;
	fw_pages *pages_ = nullptr;
	obj_table<umem_ctx> table_;
};

} // namespace scx::hca
