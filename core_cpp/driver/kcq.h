// SPDX-License-Identifier: GPL-2.0
// A CQ whose ring the kernel side owns (the role of mlx5_ib's kernel CQs
// on top of mlx5_core's cq.c): the ring and its doorbell record in DMA
// memory, CREATE_CQ through device::create_cq so its events reach the
// callbacks, CQEs consumed by their owner bit, the consumer index published
// in the doorbell record, and arming through the driver's UAR page as
// mlx5_cq_arm does.
#pragma once

#include "driver/device.h"
#include "softcx/kverbs.h"

namespace scx::driver {

struct kcq_config {
	u32 comp_index = 0;          // completion EQ (0-based) that serves the CQ
	u32 log_size = 6;            // log2 of the number of 64-byte CQEs
	cq_comp_fn comp = nullptr;   // tasklet context, once per completion event
	cq_event_fn event = nullptr; // hardirq context (CQ_ERROR)
	void *ctx = nullptr;
};

// A CQE as kernel verbs see it (the WQE it completes, status, lengths).
void decode_cqe(const u8 *cqe, scx_kcqe *out);

class kcq {
public:
	static constexpr u32 max_log_size = 16;

	kcq() = default;
	kcq(const kcq &) = delete;
	kcq &operator=(const kcq &) = delete;
	~kcq();

	// Process context.
	status create(device &dev, bus::platform &plat, const kcq_config &cfg);
	// DESTROY_CQ, then waits until no handler or tasklet holds the CQ and
	// frees the ring. If the command fails the device may still write the
	// ring: it stays allocated and this object must not be freed (the
	// error is returned so the caller can leak it knowingly).
	status destroy();

	// Consumes up to `max` CQEs the device has handed over (owner bit of
	// the current lap, opcode not INVALID) and publishes the new consumer
	// index. Returns how many. poll() and arm() must not run concurrently.
	u32 poll(u32 max);
	// The same, each CQE decoded into out (mlx5_ib's poll_one).
	u32 poll(scx_kcqe *out, u32 max);
	// A CQE is waiting to be polled.
	bool pending() const { return ready() != nullptr; }
	// Asks for a completion event on the next CQE (the next solicited one
	// if solicited_only); CQEs written but not yet consumed fire it at once.
	void arm(bool solicited_only = false);

	u32 cqn() const { return cq_.cqn; }
	u32 comp_index() const { return cq_.eq_index; }
	u32 cons_index() const { return ci_; }
	const core_cq &core() const { return cq_; }

private:
	const u8 *ready() const;
	void publish_ci();
	void free_mem();

	device *dev_ = nullptr;
	bus::platform *plat_ = nullptr;
	core_cq cq_;
	u8 *mem_ = nullptr; // ring pages, then one page holding the doorbell record
	u64 mem_dma_ = 0;
	usize mem_bytes_ = 0;
	u8 *dbrec_ = nullptr;
	u32 log_size_ = 0;
	u32 ci_ = 0;
	bool created_ = false;
};

} // namespace scx::driver
