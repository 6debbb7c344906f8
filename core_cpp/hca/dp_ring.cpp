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
dp_rx_pkt *dp_ring::add(u32 len, const u8 *grh, u8 l3)
{
	if (tail_ - head_ == n_) {
		dropped_++;
		return nullptr;
	}
	dp_rx_pkt *p = &pkts_[tail_ % n_];
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
	if (ctail_ - chead_ == copies_) {
		dropped_++;
		return false;
	}
	dp_rx_pkt *p = add(len, grh, l3);
	if (!p)
		return false;
	u8 *to = store(ctail_++);
	copy_bytes(to, pkt, len);
	p->data = to;
	p->frame = nullptr;
	tail_++;
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
	tail_++;
	return true;
}

bool dp_ring::full()
{
	lock_guard g(lock_);
	return tail_ - head_ == n_ || ctail_ - chead_ == copies_;
}

dp_rx_pkt *dp_ring::front()
{
	lock_guard g(lock_);
	return head_ != tail_ ? &pkts_[head_ % n_] : nullptr;
}

void *dp_ring::pop()
{
	lock_guard g(lock_);
	if (head_ == tail_)
		return nullptr;
	void *frame = pkts_[head_ % n_].frame;
	// Copies were made in packet order: the oldest buffer is this one's.
	if (!frame)
		chead_++;
	head_++;
	return frame;
}

} // namespace scx::hca
