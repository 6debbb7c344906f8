// SPDX-License-Identifier: GPL-2.0
// Firmware pages (the role of mlx5_core's pagealloc.c): 4 KiB pages of host
// memory the device asks for in QUERY_PAGES at boot and init, and at run
// time with PAGE_REQUEST events, handed over and taken back with
// MANAGE_PAGES. The driver tracks every page it gave by bus address so it
// can free exactly what the device returns, and whatever is left when the
// device is gone.
#pragma once

#include "lib/atomic.h"
#include "lib/bus.h"
#include "lib/sync.h"

namespace scx::driver {

class cmd_if;

struct fw_pages_stats {
	u32 held;            // pages the device holds now
	u64 given;
	u64 reclaimed;
	u64 requests;        // PAGE_REQUEST events
	u64 give_failed;     // pages the driver could not provide
	u64 requests_dropped;
};

class fw_pages {
public:
	// Pages per MANAGE_PAGES command (input or output of 16 KiB + header).
	static constexpr u32 max_per_cmd = 2048;

	fw_pages() = default;
	fw_pages(const fw_pages &) = delete;
	fw_pages &operator=(const fw_pages &) = delete;
	~fw_pages() { fini(); }

	status init(cmd_if &cmd, bus::platform &plat, const char *name);
	// Frees every page still tracked: only once the device no longer uses
	// them (after DISABLE_HCA).
	void fini();

	// QUERY_PAGES (boot or init) and give what it asks for.
	status satisfy_startup(bool boot);
	status give(u16 func_id, u32 npages, bool event = false);
	// Asks for up to npages back; *claimed says how many came.
	status reclaim(u16 func_id, u32 npages, u32 *claimed, bool event = false);
	// Takes everything back, giving up after timeout_ms without progress.
	status reclaim_all(u32 timeout_ms);

	// PAGE_REQUEST (hardirq): positive = give, negative = take back.
	void request(u16 func_id, i32 npages);
	// Stops serving requests and waits for a running one.
	void stop();

	fw_pages_stats stats() const;

private:
	struct node {
		u64 dma;
		void *cpu;
		node *next;
	};
	struct req {
		u16 func_id;
		i32 npages;
	};
	static constexpr u32 req_ring = 64;

	static void work_fn(void *arg);
	node *alloc_page();
	void free_page(node *n);
	void track(node *n);
	node *untrack(u64 dma);
	void notify_cant_give(u16 func_id);

	cmd_if *cmd_ = nullptr;
	bus::platform *plat_ = nullptr;
	const char *name_ = "softcx";
	spinlock lock_;      // the page table
	node **buckets_ = nullptr;
	u32 mask_ = 0;
	u32 held_ = 0;
	u16 func_id_ = 0;

	spinlock req_lock_;  // the request ring, filled in hardirq context
	req reqs_[req_ring] = {};
	u32 req_head_ = 0, req_tail_ = 0;
	scx_work *work_ = nullptr;
	atomic<bool> serving_{false};

	atomic<u64> given_{0}, reclaimed_{0}, requests_{0}, give_failed_{0}, dropped_{0};
};

} // namespace scx::driver
