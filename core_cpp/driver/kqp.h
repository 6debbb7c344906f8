// SPDX-License-Identifier: GPL-2.0
// A QP whose rings the kernel side owns (the role of mlx5_ib's kernel QPs):
// RQ and SQ in one DMA buffer, the doorbell record on a page after it,
// CREATE_QP through the command wrappers, and each work request written as
// the mlx5 WQE a ConnectX reads — ctrl segment, the address vector (UD),
// remote address and atomic segments, then data or inline segments. A
// send doorbell is the doorbell record, then the WQE's first 8 bytes
// written to the driver's UAR page. Completions are matched back to the
// requests by the CQE's WQE counter, as mlx5_ib does.
#pragma once

#include "driver/device.h"
#include "lib/atomic.h"
#include "softcx/kverbs.h"

namespace scx::driver {

class kqp {
public:
	kqp() = default;
	kqp(const kqp &) = delete;
	kqp &operator=(const kqp &) = delete;
	~kqp();

	// Process context.
	status create(device &dev, bus::platform &plat, const scx_kqp_params &p);
	// DESTROY_QP: from its return on the device writes no CQE for the
	// QP; the rings stay until destroy().
	status stop();
	// stop() if not done yet, then frees the rings; if the command fails
	// they stay (the device may still read them) and this object must
	// be leaked.
	status destroy();
	// The QP went to RESET (the device starts its counters at 0 again):
	// so do the rings. Nothing may be posted or completed meanwhile.
	void reset();

	u32 qpn() const { return qpn_; }
	const scx_kqp_caps &caps() const { return caps_; }

	status post_send(const scx_kwr &wr);
	void ring_sq();
	status post_recv(u64 wr_id, const scx_ksge *sg, u32 n);
	void ring_rq();
	status complete(const scx_kcqe &c, u64 *wr_id, u8 *opcode);

private:
	// Where one WQE of the SQ is being written: 16-byte units from its
	// first WQEBB on, wrapping at the ring's end.
	struct sq_cursor {
		kqp *q;
		u32 start;   // WQEBB counter of the WQE
		u32 pos = 0; // bytes written
		u8 *unit();  // the next 16-byte unit (advances)
	};
	struct sq_slot {
		u64 wr_id;
		u32 next;    // WQEBB counter after this WQE
		u8 opcode;   // scx_kwc_opcode
		u8 live;
	};

	status size_queues(const scx_kqp_params &p, const u8 *gen);
	status alloc_rings();
	status create_cmd(const scx_kqp_params &p);
	void free_rings();
	bool datagram() const { return type_ == SCX_KQPT_UD || type_ == SCX_KQPT_GSI; }
	u32 sq_base_bytes() const;
	u32 send_bytes(const scx_kwr &wr) const;
	u8 check_send(const scx_kwr &wr) const;
	void write_send(const scx_kwr &wr, u32 bytes);
	void write_data(sq_cursor &c, const scx_kwr &wr);
	void write_umr(sq_cursor &c, const scx_kwr &wr);
	void publish(u32 byte_off, u32 counter);
	u8 *sq_bb(u32 counter) { return mem_ + rq_bytes_ + (counter & (sq_bbs_ - 1)) * 64; }

	device *dev_ = nullptr;
	bus::platform *plat_ = nullptr;
	u32 qpn_ = 0;
	bool created_ = false;
	u8 type_ = 0;              // scx_kqp_type
	scx_kqp_caps caps_{};
	u32 max_wqe_bytes_ = 0;    // the largest send WQE the SQ takes
	u32 dma_lkey_ = 0;         // REG_MR: the key its page lists are read by
	u8 *mem_ = nullptr;        // RQ, SQ, then a page with the doorbell record
	u64 mem_dma_ = 0;
	usize mem_bytes_ = 0;
	u8 *dbrec_ = nullptr;
	u32 rq_bytes_ = 0, sq_bytes_ = 0;

	u32 sq_bbs_ = 0;           // WQEBBs in the SQ, a power of two
	u32 sq_head_ = 0;          // WQEBB counter of the next WQE
	u32 sq_rung_ = 0;          // ... when the doorbell was last rung
	atomic<u32> sq_tail_{0};   // first WQEBB not completed
	u32 sq_posted_ = 0;        // requests posted ...
	atomic<u32> sq_done_{0};   // ... and completed
	u32 last_ctrl_ = 0;        // WQEBB counter of the last WQE written
	sq_slot *sq_slots_ = nullptr;

	u32 rq_wqes_ = 0;          // a power of two; 0 with an SRQ
	u32 rq_shift_ = 4;
	atomic<u32> rq_head_{0};
	atomic<u32> rq_tail_{0};
	u64 *rq_wrid_ = nullptr;
};

} // namespace scx::driver
