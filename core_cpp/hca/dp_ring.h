// SPDX-License-Identifier: GPL-2.0
// A port's receive ring: the packets waiting for its data path, in the
// order they came. The in-kernel link (from its own QPs or another port's)
// reserves room in the ring's buffers and builds the packet there (no
// staging copy), then commits it; the wire lends the ring the received
// frame itself, which the ring hands back once the packet is taken, as a
// NIC's receive queue holds buffers the host posted. Any port may add to
// it: the ring's lock is held only to hand out an entry, so a sender never
// needs the receiving port's lock. Only the port's own data path takes
// from it, under its own lock: it reads and retires packets with no lock
// of the ring's, as a NIC's consumer index needs none, and stops at an
// entry reserved and not yet committed (packets stay in order).
#pragma once

#include "hca/tp.h"
#include "lib/atomic.h"
#include "lib/status.h"
#include "lib/sync.h"

namespace scx::hca {

struct dp_rx_pkt {
	const u8 *data;     // the IB part (BTH .. ICRC)
	u32 len;            // of the IB part in bytes
	u8 l3;              // 4 or 6
	bool has_grh;       // UD: grh holds what the receive starts with
	u8 grh[40];
	void *frame;        // the wire's frame data lies in, or null (a copy)
	bool skip;          // reserved and abandoned: no packet
	// From this port's own requester: the payload is named by ref, and
	// data holds none of it (len counts it as the wire would).
	bool by_ref;
	tp_payload_ref ref;
	atomic<bool> ready; // committed (or abandoned): the consumer may look
};

class dp_ring {
public:
	// Room for one packet of the largest path MTU and its headers.
	static constexpr u32 max_pkt = 4096 + 128;

	dp_ring() = default;
	~dp_ring();
	dp_ring(const dp_ring &) = delete;
	dp_ring &operator=(const dp_ring &) = delete;

	// Up to pkts packets waiting, copies of at most copies of them.
	status init(u32 pkts, u32 copies);
	// Room for a packet of len bytes, built in place, then commit() or
	// abandon() with the ticket; null when the ring is full (the packet is
	// lost, as on a wire whose receiver is behind). Packets reserved after
	// it wait for it.
	u8 *reserve(u32 len, u32 *ticket);
	void commit(u32 ticket, u32 len, const u8 *grh, u8 l3, const tp_payload_ref *ref = nullptr);
	void abandon(u32 ticket);
	// Copies the packet in (reserve + commit).
	bool push(const u8 *pkt, u32 len, const u8 *grh, u8 l3);
	// Takes pkt, lying in frame, without a copy: pop() returns frame
	// once the packet is handled. false: full; frame stays the caller's.
	bool lend(const u8 *pkt, u32 len, const u8 *grh, u8 l3, void *frame);
	bool full();
	// The oldest packet, or null; pop() once it has been handled, which
	// returns the frame it lay in, if it was lent.
	dp_rx_pkt *front();
	void *pop();
	u64 dropped() const { return dropped_; }

private:
	dp_rx_pkt *add();
	static void describe(dp_rx_pkt &p, u32 len, const u8 *grh, u8 l3);
	dp_rx_pkt *ready_front();
	u8 *store(u32 i) { return mem_ + usize(i % copies_) * max_pkt; }

	spinlock lock_;
	dp_rx_pkt *pkts_ = nullptr;
	u8 *mem_ = nullptr;
	u32 n_ = 0, copies_ = 0;
	// Packets taken from head_, handed out at tail_; copies use the
	// buffers in the same order, from chead_ to ctail_. The consumer
	// alone moves the heads, producers (under lock_) the tails; an entry
	// is the consumer's once its ready flag is set (release), the
	// producer's again once head_ passed it (release).
	atomic<u32> head_{0}, tail_{0}, chead_{0}, ctail_{0};
	u64 dropped_ = 0;
};

} // namespace scx::hca
