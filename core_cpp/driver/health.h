// SPDX-License-Identifier: GPL-2.0
// Watching the firmware's pulse, as mlx5_core's health poller does: the
// init segment's health counter must move between two polls; a counter
// that stands still for max_misses polls in a row, or a BAR that reads all
// ones (the function fell off the bus), means the firmware is gone. The
// caller polls from a timer; poll() says so once, when it first sees it.
#pragma once

#include "lib/bus.h"

namespace scx::driver {

class health_monitor {
public:
	static constexpr u32 max_misses = 3;
	enum class verdict : u8 { alive, dead_now, dead };

	verdict poll(bus::mmio &bar);
	bool dead() const { return dead_; }
	// Why poll() said dead, for the log.
	const char *cause() const { return cause_; }
	u32 misses() const { return misses_; }
	u64 polls() const { return polls_; }

private:
	bool started_ = false;
	bool dead_ = false;
	const char *cause_ = "";
	u32 last_ = 0;
	u32 misses_ = 0;
	u64 polls_ = 0;
};

} // namespace scx::driver
