// SPDX-License-Identifier: GPL-2.0
#include "hca/uar_window.h"

#include "lib/endian.h"
#include "lib/new.h"
#include "prm/uar.h"
#include "softcx/env.h"

namespace scx::hca {

status uar_window::init(u32 first_uar, u32 num_uars)
{
	first_ = first_uar;
	count_ = num_uars;
	slots_ = static_cast<slot *>(alloc_bytes(sizeof(slot) * num_uars));
	if (!slots_)
		return errc::nomem;
	for (u32 i = 0; i < num_uars; i++)
		new (&slots_[i]) slot{};
	live_ = static_cast<u32 *>(alloc_bytes(sizeof(u32) * num_uars));
	where_ = static_cast<u32 *>(alloc_bytes(sizeof(u32) * num_uars));
	if (!live_ || !where_)
		return errc::nomem;
	for (u32 i = 0; i < num_uars; i++)
		where_[i] = ~0u;
	return status::ok();
}

uar_window::~uar_window()
{
	free_bytes(live_);
	free_bytes(where_);
	if (!slots_)
		return;
	for (u32 i = 0; i < count_; i++) {
		u64 *p = slots_[i].cpu.load();
		if (p)
			scx_env_dma_free(p, prm::uar_page::size, slots_[i].dma);
	}
	free_bytes(slots_);
}

void *uar_window::page(u32 uar)
{
	if (uar < first_ || uar - first_ >= count_)
		return nullptr;
	slot &s = slots_[uar - first_];
	u64 *p = s.cpu.load(mo::acquire);
	if (p)
		return p;
	u64 dma = 0;
	p = static_cast<u64 *>(scx_env_dma_alloc(prm::uar_page::size, &dma));
	if (!p)
		return nullptr;
	u64 *expected = nullptr;
	if (!s.cpu.compare_exchange(expected, p, mo::acq_rel)) {
		scx_env_dma_free(p, prm::uar_page::size, dma);
		return expected;
	}
	s.dma = dma; // read only by the destructor
	return p;
}

void uar_window::set_live(u32 uar, bool live)
{
	if (uar < first_ || uar - first_ >= count_)
		return;
	u32 i = uar - first_;
	if (live && where_[i] == ~0u) {
		where_[i] = nlive_;
		live_[nlive_++] = i;
	} else if (!live && where_[i] != ~0u) {
		u32 k = where_[i];
		u32 last = live_[--nlive_];
		live_[k] = last;
		where_[last] = k;
		where_[i] = ~0u;
	}
}

u32 uar_window::stores(u32 uar)
{
	if (uar < first_ || uar - first_ >= count_)
		return 0;
	slot &s = slots_[uar - first_];
	u64 *p = s.cpu.load(mo::acquire);
	u32 n = s.taken.load(mo::relaxed);
	if (!p)
		return n;
	for (u32 off : watched)
		n += read_once(p[off / 8]) != 0;
	return n;
}

u64 uar_window::from_be(u64 v)
{
	return load_be<u64>(&v);
}

} // namespace scx::hca
