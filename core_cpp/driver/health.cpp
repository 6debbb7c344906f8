// SPDX-License-Identifier: GPL-2.0
#include "driver/health.h"

#include "prm/init_seg.h"
#include "prm/reg.h"

namespace scx::driver {

health_monitor::verdict health_monitor::poll(bus::mmio &bar)
{
	if (dead_)
		return verdict::dead;
	polls_++;
	u32 fw_rev = bar.read32(prm::reg_offset(prm::init_seg::fw_rev));
	u32 count = u32(prm::reg_get(bar.read32(prm::reg_offset(prm::init_seg::health_counter)),
				     prm::initial_seg::health_counter));
	if (fw_rev == ~0u) {
		dead_ = true;
		cause_ = "the BAR reads all ones";
		return verdict::dead_now;
	}
	if (started_ && count == last_) {
		if (++misses_ >= max_misses) {
			dead_ = true;
			cause_ = "the health counter did not move for 3 polls";
			return verdict::dead_now;
		}
	} else {
		misses_ = 0;
	}
	started_ = true;
	last_ = count;
	return verdict::alive;
}

} // namespace scx::driver
