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

// The next packet's entry, under the lock; null when the ring is full.
// Published by the caller's release of tail_.
dp_rx_pkt *dp_ring::add(u32 len, const u8 *grh, u8 l3)
{
	u32 t = tail_.load(mo::relaxed);
	if (t - head_.load(mo::acquire) == n_) {
		dropped_++;
		return nullptr;
	}
	dp_rx_pkt *p = &pkts_[t % n_];
	p->len = len;
	p->l3 = l3;
	p->has_grh = grh != nullptr;
	if (grh)
		copy_bytes(p->grh, grh, sizeof(p->grh));
	return p;
}

bool dp_ring::push(const u8 *pkt, u32 len, const u8 *grh, u8 l3)
{
	if (len > max_pkt)
		return false;
	lock_guard g(lock_);
	u32 ct = ctail_.load(mo::relaxed);
	if (ct - chead_.load(mo::acquire) == copies_) {
		dropped_++;
		return false;
	}
	dp_rx_pkt *p = add(len, grh, l3);
	if (!p)
		return false;
	u8 *to = store(ct);
	copy_bytes(to, pkt, len);
	p->data = to;
	p->frame = nullptr;
	ctail_.store(ct + 1, mo::relaxed);
	tail_.store(tail_.load(mo::relaxed) + 1, mo::release);
	return true;
}

bool dp_ring::lend(const u8 *pkt, u32 len, const u8 *grh, u8 l3, void *frame)
{
	lock_guard g(lock_);
	dp_rx_pkt *p = add(len, grh, l3);
	if (!p)
		return false;
	p->data = pkt;
	p->frame = frame;
	tail_.store(tail_.load(mo::relaxed) + 1, mo::release);
	return true;
}

// A hint for a sender (a consumer may free room the next moment).
bool dp_ring::full()
{
	return tail_.load(mo::acquire) - head_.load(mo::acquire) == n_ ||
	       ctail_.load(mo::acquire) - chead_.load(mo::acquire) == copies_;
}

// The consumer's: no producer moves head_.
dp_rx_pkt *dp_ring::front()
{
	u32 h = head_.load(mo::relaxed);
	return h != tail_.load(mo::acquire) ? &pkts_[h % n_] : nullptr;
}

void *dp_ring::pop()
{
	u32 h = head_.load(mo::relaxed);
	if (h == tail_.load(mo::acquire))
		return nullptr;
	void *frame = pkts_[h % n_].frame;
	// Copies were made in packet order: the oldest buffer is this one's,
	// free for a producer once chead_ says so.
	if (!frame)
		chead_.store(chead_.load(mo::relaxed) + 1, mo::release);
	head_.store(h + 1, mo::release);
	return frame;
}

} // namespace scx::hca
