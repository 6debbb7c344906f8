// SPDX-License-Identifier: GPL-2.0
// The UAR pages of BAR0 that user space maps: each is a page of memory the
// device watches (a software device has no MMIO decoder for user stores).
// libmlx5 rings its send doorbell (+0x800) and CQ arm doorbell (+0x20) there
// after updating the doorbell records, so a changed word says "look now",
// and its value (QPN, CQN) says where. The pages live as long as the device,
// like a BAR.
#pragma once

#include "lib/atomic.h"
#include "lib/status.h"
#include "lib/types.h"

namespace scx::hca {

class uar_window {
public:
	uar_window() = default;
	uar_window(const uar_window &) = delete;
	uar_window &operator=(const uar_window &) = delete;
	~uar_window();

	status init(u32 first_uar, u32 num_uars);

	// The memory behind UAR `uar` (allocated on first use, process
	// context only); null if `uar` is out of range or memory ran out.
	void *page(u32 uar);

	// Every doorbell written since the last call: f(uar, offset, value)
	// with the value in CPU order. Each word is taken atomically (a
	// store racing with the take is seen next time).
	template <typename F> u32 drain(F &&f)
	{
		u32 n = 0;
		for (u32 k = 0; k < nlive_; k++)
			n += drain_slot(live_[k], f);
		return n;
	}
	// The same for UAR `uar` alone (a trapped store's page: what the
	// other pages hold is theirs or the poller's to take).
	template <typename F> u32 drain_one(u32 uar, F &&f)
	{
		u32 i = uar - first_;
		return uar >= first_ && i < count_ && where_[i] != ~0u ? drain_slot(i, f) : 0;
	}

	// UAR `uar` was allocated (or freed): only allocated pages are
	// watched, so a poll costs what is in use, not what ever was. Under
	// the data path's lock, as drain().
	void set_live(u32 uar, bool live);
	void reset_live()
	{
		for (u32 k = 0; k < nlive_; k++)
			where_[live_[k]] = ~0u;
		nlive_ = 0;
	}

	// How many stores UAR `uar` has seen: those taken by drain() plus
	// those still in the page. It moves when a store lands, which is what
	// a doorbell trap waits for before re-arming (call under the data
	// path's lock, which drain() runs under).
	u32 stores(u32 uar);

	// The doorbells a page carries: CQ arm, then the send doorbells of
	// its (up to eight) bfregs.
	static constexpr u32 watched[] = {0x20, 0x800, 0x900, 0xa00, 0xb00, 0xc00, 0xd00, 0xe00, 0xf00};

private:
	static u64 from_be(u64 v);
	template <typename F> u32 drain_slot(u32 i, F &f)
	{
		u64 *p = slots_[i].cpu.load(mo::acquire);
		if (!p)
			return 0;
		u32 n = 0;
		for (u32 off : watched) {
			u64 *w = p + off / 8;
			if (!read_once(*w))
				continue;
			u64 v = __atomic_exchange_n(w, u64(0), __ATOMIC_ACQ_REL);
			if (v) {
				slots_[i].taken.fetch_add(1, mo::relaxed);
				f(first_ + i, off, from_be(v));
				n++;
			}
		}
		return n;
	}
	struct slot {
		atomic<u64 *> cpu;
		u64 dma;
		atomic<u32> taken;
	};
	slot *slots_ = nullptr;
	u32 first_ = 0;
	u32 count_ = 0;
	u32 *live_ = nullptr;   // slots of allocated UARs, unordered
	u32 *where_ = nullptr;  // slot -> its index in live_, or ~0u
	u32 nlive_ = 0;
};

} // namespace scx::hca
