// SPDX-License-Identifier: GPL-2.0
// Command mailboxes: 576-byte blocks the device reads input from and writes
// output to, each 1024-byte aligned (the next_pointer field has no low bits),
// carved four to a DMA page and kept on a free list. Chains are taken in
// process context (growing the pool when needed) and may be returned from any
// context, including the interrupt handler that learns a timed-out command
// finally completed.
#pragma once

#include "lib/bus.h"
#include "lib/sync.h"

namespace scx::driver {

struct mailbox {
	u8 *buf;       // cmd_if_box layout
	u64 dma;
	mailbox *next; // CPU view of the chain the device follows by next_pointer
};

class mailbox_pool {
public:
	mailbox_pool() = default;
	mailbox_pool(const mailbox_pool &) = delete;
	mailbox_pool &operator=(const mailbox_pool &) = delete;
	~mailbox_pool() { fini(); }

	status init(bus::platform &plat);
	// Frees every page; all chains must have been returned.
	void fini();

	// n zeroed blocks, chained for the device: next_pointer, block_number
	// and token set. n == 0 yields null. Process context.
	result<mailbox *> get_chain(u32 n, u8 token);
	void put_chain(mailbox *head);

	u32 total() const { return total_; }
	u32 free_count() const { return nfree_; }

	static constexpr u32 per_page = 4096 / 1024;

private:
	struct page {
		void *cpu;
		u64 dma;
		page *next;
		mailbox boxes[per_page];
	};

	status grow(u32 pages);

	bus::platform *plat_ = nullptr;
	spinlock lock_;
	mailbox *free_ = nullptr;
	page *pages_ = nullptr;
	u32 nfree_ = 0;
	u32 total_ = 0;
};

} // namespace scx::driver
