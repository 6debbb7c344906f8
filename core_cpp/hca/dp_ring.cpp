// SPDX-License-Identifier: GPL-2.0
#include "hca/dp_ring.h"

#include "lib/new.h"

namespace scx::hca {

dp_ring::~dp_ring()
{
	free_bytes(mem_);
}

status dp_ring::init(u32 slots)
{
	stride_ = (sizeof(dp_rx_pkt) + max_pkt + 63) & ~63u;
	mem_ = static_cast<u8 *>(alloc_bytes(usize(stride_) * slots));
	if (!mem_)
		return errc::nomem;
	n_ = slots;
	return lock_.init(lock_class::hca_dp_rx);
}

bool dp_ring::push(const u8 *pkt, u32 len, const u8 *grh, u8 l3)
{
	if (len > max_pkt)
		return false;
	lock_guard g(lock_);
	if (tail_ - head_ == n_) {
		dropped_++;
		return false;
	}
	dp_rx_pkt *p = slot(tail_);
	p->len = len;
	p->l3 = l3;
	p->has_grh = grh != nullptr;
	if (grh)
		copy_bytes(p->grh, grh, sizeof(p->grh));
	copy_bytes(p->data, pkt, len);
	tail_++;
	return true;
}

bool dp_ring::full()
{
	lock_guard g(lock_);
	return tail_ - head_ == n_;
}

dp_rx_pkt *dp_ring::front()
{
	lock_guard g(lock_);
	return head_ != tail_ ? slot(head_) : nullptr;
}

void dp_ring::pop()
{
	lock_guard g(lock_);
	if (head_ != tail_)
		head_++;
}

} // namespace scx::hca
