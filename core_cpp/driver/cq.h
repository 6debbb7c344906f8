// SPDX-License-Identifier: GPL-2.0
// Completion queues as the driver's event path sees them (the role of
// mlx5_core's cq.c and the CQ table of eq.c): a table from CQ number to the
// driver's CQ object, safe against a destroy racing the interrupt handler
// (lookup under a spinlock takes a reference; destroy waits until the last
// one is dropped), and the per-EQ "tasklet" list that moves completion
// callbacks out of hardirq context.
#pragma once

#include "lib/atomic.h"
#include "lib/sync.h"

namespace scx::driver {

struct core_cq;

// Completion callback: tasklet context (softirq in the kernel). It must
// not destroy its own CQ (destroy waits for the callback to return).
using cq_comp_fn = void (*)(core_cq *cq, void *ctx);
// Asynchronous CQ event (CQ_ERROR): hardirq context.
using cq_event_fn = void (*)(core_cq *cq, u8 event_type, u8 syndrome, void *ctx);

struct core_cq {
	// Set by the creator.
	cq_comp_fn comp = nullptr;
	cq_event_fn event = nullptr;
	void *ctx = nullptr;
	u16 uid = 0;

	// Filled in by create_cq.
	u32 cqn = 0;
	u32 eq_index = 0; // which completion EQ (and tasklet) serves it
	atomic<u32> arm_sn{0}; // completion events seen (for arming)
	atomic<u64> comp_calls{0}; // callbacks run by the tasklet

	// Table and tasklet bookkeeping.
	atomic<u32> refs{0};
	completion freed;
	bool freed_ready = false;
	core_cq *hash_next = nullptr;
	core_cq *tasklet_next = nullptr;
	bool queued = false; // on a tasklet list (under the tasklet's lock)
};

class cq_table {
public:
	cq_table() = default;
	cq_table(const cq_table &) = delete;
	cq_table &operator=(const cq_table &) = delete;
	~cq_table() { fini(); }

	status init(u32 buckets_log2 = 8);
	void fini();

	// The CQ starts with one reference, the table's user's.
	status insert(core_cq *cq);
	// After remove() no lookup finds the CQ any more.
	void remove(core_cq *cq);
	// A held CQ or null; any context.
	core_cq *get(u32 cqn);
	static void hold(core_cq *cq) { cq->refs.fetch_add(1); }
	static void put(core_cq *cq);
	// Drops the creator's reference and waits (sleeping) until no handler
	// or tasklet holds the CQ any more.
	static void put_and_wait(core_cq *cq, const char *who);
	u32 count() const { return count_; }

private:
	spinlock lock_;
	core_cq **buckets_ = nullptr;
	u32 mask_ = 0;
	u32 count_ = 0;
};

// The completion work of one EQ: CQs whose completion events arrived, in
// order, each once, until run() calls their callbacks.
class cq_tasklet {
public:
	status init();
	// Hardirq: queue a held CQ; the reference moves to the list (or is
	// dropped if the CQ is already queued). True if the list was empty.
	bool add(core_cq *cq);
	// The tasklet body: calls each queued CQ's comp callback once and drops
	// the list's reference. Returns how many callbacks ran; `limit` bounds
	// one run (the rest stays queued and more() is true).
	u32 run(u32 limit = ~0u);
	bool more();
	u64 runs() const { return runs_.load(mo::relaxed); }

private:
	spinlock lock_;
	core_cq *head_ = nullptr;
	core_cq *tail_ = nullptr;
	atomic<u64> runs_{0};
};

} // namespace scx::driver
