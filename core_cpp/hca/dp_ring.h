// SPDX-License-Identifier: GPL-2.0
// A port's receive ring: the packets the in-kernel link delivered to it
// (from its own QPs or another port's), waiting for its data path. Any
// port may add to it; only its own data path takes from it, under its own
// lock, so a sender never needs the receiving port's lock. The ring's lock
// is held for one packet's copy at most.
#pragma once

#include "lib/status.h"
#include "lib/sync.h"

namespace scx::hca {

struct dp_rx_pkt {
	u32 len;            // of the IB part in bytes (BTH .. ICRC)
	u8 l3;              // 4 or 6
	bool has_grh;       // UD: grh holds what the receive starts with
	u8 grh[40];
	u8 data[];
};

class dp_ring {
public:
	// Room for one packet of the largest path MTU and its headers.
	static constexpr u32 max_pkt = 4096 + 128;

	dp_ring() = default;
	~dp_ring();
	dp_ring(const dp_ring &) = delete;
	dp_ring &operator=(const dp_ring &) = delete;

	status init(u32 slots);
	// Copies the packet in; false when the ring is full (it is lost, as
	// on a wire whose receiver is behind).
	bool push(const u8 *pkt, u32 len, const u8 *grh, u8 l3);
	bool full();
	// The oldest packet, or null; pop() once it has been handled.
	dp_rx_pkt *front();
	void pop();
	u64 dropped() const { return dropped_; }

private:
	dp_rx_pkt *slot(u32 i) { return reinterpret_cast<dp_rx_pkt *>(mem_ + usize(i % n_) * stride_); }

	spinlock lock_;
	u8 *mem_ = nullptr;
	u32 n_ = 0, stride_ = 0;
	u32 head_ = 0, tail_ = 0;  // taken from head_, added at tail_
	u64 dropped_ = 0;
};

} // namespace scx::hca
