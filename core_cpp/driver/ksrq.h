// SPDX-License-Identifier: GPL-2.0
// A shared receive queue whose ring the kernel side owns (mlx5_ib's kernel
// SRQs): WQEs of a next segment and data segments, chained by their next
// indexes into the list the device takes receives from; a posted WQE
// leaves the free chain at its head, a completed one joins it again at its
// tail (one WQE always stays there, as the device follows the links).
#pragma once

#include "driver/device.h"
#include "softcx/kverbs.h"

namespace scx::driver {

class ksrq {
public:
	ksrq() = default;
	ksrq(const ksrq &) = delete;
	ksrq &operator=(const ksrq &) = delete;
	~ksrq();

	status create(device &dev, bus::platform &plat, u32 pdn, u32 max_wr, u32 max_sge);
	// DESTROY_SRQ, then the ring goes (kept if the command fails).
	status destroy();

	u32 srqn() const { return srqn_; }
	u32 max_wr() const { return size_ - 1; }
	u32 max_sge() const { return max_sge_; }

	status post_recv(u64 wr_id, const scx_ksge *sg, u32 n);
	void ring();
	// The receive a CQE names by its WQE counter: its wr_id; the WQE
	// joins the free chain again. Serialised with post_recv by the caller.
	status complete(u16 wqe_counter, u64 *wr_id);

private:
	u8 *wqe(u32 i) { return mem_ + (usize(i) << shift_); }
	void free_mem();

	device *dev_ = nullptr;
	bus::platform *plat_ = nullptr;
	bool created_ = false;
	u32 srqn_ = 0;
	u32 size_ = 0, shift_ = 0, max_sge_ = 0;
	u8 *mem_ = nullptr;     // the ring, then a page with the doorbell record
	u64 mem_dma_ = 0;
	usize mem_bytes_ = 0;
	u8 *dbrec_ = nullptr;
	u64 *wrid_ = nullptr;
	u8 *posted_ = nullptr;  // per WQE: posted and not completed
	u32 head_ = 0, tail_ = 0;
	u16 counter_ = 0;
};

} // namespace scx::driver

struct scx_ksrq {
	scx::driver::ksrq s;
};
