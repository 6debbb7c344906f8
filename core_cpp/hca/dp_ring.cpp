// SPDX-License-Identifier: GPL-2.0
#include "hca/dp_ring.h"

#include "lib/new.h"

namespace scx::hca {

dp_ring::~dp_ring()
{
	free_bytes(pkts_);
	free_bytes(mem_);
}

status dp_ring::init(u32 pkts, u32 copies)
{
	pkts_ = static_cast<dp_rx_pkt *>(alloc_bytes(sizeof(dp_rx_pkt) * usize(pkts)));
	mem_ = static_cast<u8 *>(alloc_bytes(usize(max_pkt) * copies));
	if (!pkts_ || !mem_)
		return errc::nomem;
	n_ = pkts;
	copies_ = copies;
	return lock_.init(lock_class::hca_dp_rx);
}

// The next packet's entry, under the lock, not ready yet; null when the
// ring is full. Published (as pending) by the caller's release of tail_.
dp_rx_pkt *dp_ring::add()
{
	u32 t = tail_.load(mo::relaxed);
	if (t - head_.load(mo::acquire) == n_) {
		dropped_++;
		return nullptr;
	}
	dp_rx_pkt *p = &pkts_[t % n_];
	p->ready.store(false, mo::relaxed);
	p->skip = false;
	return p;
}

void dp_ring::describe(dp_rx_pkt &p, u32 len, const u8 *grh, u8 l3)
{
	p.len = len;
	p.l3 = l3;
	p.has_grh = grh != nullptr;
	if (grh)
		copy_bytes(p.grh, grh, sizeof(p.grh));
}

u8 *dp_ring::reserve(u32 len, u32 *ticket)
{
	if (len > max_pkt)
		return nullptr;
	lock_guard g(lock_);
	u32 ct = ctail_.load(mo::relaxed);
	if (ct - chead_.load(mo::acquire) == copies_) {
		dropped_++;
		return nullptr;
	}
	dp_rx_pkt *p = add();
	if (!p)
		return nullptr;
	u32 t = tail_.load(mo::relaxed);
	p->data = store(ct);
	p->frame = nullptr;
	*ticket = t;
	ctail_.store(ct + 1, mo::relaxed);
	tail_.store(t + 1, mo::release);
	return store(ct);
}

void dp_ring::commit(u32 ticket, u32 len, const u8 *grh, u8 l3, const tp_payload_ref *ref)
{
	dp_rx_pkt &p = pkts_[ticket % n_];
	describe(p, len, grh, l3);
	p.by_ref = ref != nullptr;
	if (ref)
		p.ref = *ref;
	p.ready.store(true, mo::release);
}

void dp_ring::abandon(u32 ticket)
{
	dp_rx_pkt &p = pkts_[ticket % n_];
	p.skip = true;
	p.len = 0;
	p.by_ref = false;
	p.ready.store(true, mo::release);
}

bool dp_ring::push(const u8 *pkt, u32 len, const u8 *grh, u8 l3)
{
	u32 ticket;
	u8 *to = reserve(len, &ticket);
	if (!to)
		return false;
	copy_bytes(to, pkt, len);
	commit(ticket, len, grh, l3);
	return true;
}

bool dp_ring::lend(const u8 *pkt, u32 len, const u8 *grh, u8 l3, void *frame)
{
	lock_guard g(lock_);
	dp_rx_pkt *p = add();
	if (!p)
		return false;
	describe(*p, len, grh, l3);
	p->by_ref = false;
	p->data = pkt;
	p->frame = frame;
	p->ready.store(true, mo::relaxed);
	tail_.store(tail_.load(mo::relaxed) + 1, mo::release);
	return true;
}

// A hint for a sender (a consumer may free room the next moment).
bool dp_ring::full()
{
	return tail_.load(mo::acquire) - head_.load(mo::acquire) == n_ ||
	       ctail_.load(mo::acquire) - chead_.load(mo::acquire) == copies_;
}

// The consumer's: no producer moves head_. Abandoned entries are passed
// over; one reserved and not committed yet ends the look.
dp_rx_pkt *dp_ring::front()
{
	for (;;) {
		dp_rx_pkt *p = ready_front();
		if (!p || !p->skip)
			return p;
		pop();
	}
}

dp_rx_pkt *dp_ring::ready_front()
{
	u32 h = head_.load(mo::relaxed);
	if (h == tail_.load(mo::acquire))
		return nullptr;
	dp_rx_pkt *p = &pkts_[h % n_];
	return p->ready.load(mo::acquire) ? p : nullptr;
}

void *dp_ring::pop()
{
	dp_rx_pkt *p = ready_front();
	if (!p)
		return nullptr;
	void *frame = p->frame;
	// Copies were made in packet order: the oldest buffer is this one's,
	// free for a producer once chead_ says so.
	if (!frame)
		chead_.store(chead_.load(mo::relaxed) + 1, mo::release);
	head_.store(head_.load(mo::relaxed) + 1, mo::release);
	return frame;
}

} // namespace scx::hca
