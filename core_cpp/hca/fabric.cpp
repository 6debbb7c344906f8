// SPDX-License-Identifier: GPL-2.0
#include "hca/fabric.h"

#include "softcx/env.h"

namespace scx::hca {

constinit atomic<data_path *> fabric::slots_[max_ports] = {};
constinit atomic<u32> fabric::users_[max_ports] = {};
// Starts above 0, which a zeroed route cache holds.
constinit atomic<u32> fabric::epoch_{1};

u32 fabric::join(data_path *dp)
{
	for (u32 i = 0; i < max_ports; i++) {
		data_path *empty = nullptr;
		if (slots_[i].compare_exchange(empty, dp)) {
			addresses_changed();
			return i;
		}
	}
	return none;
}

void fabric::leave(u32 slot)
{
	if (slot >= max_ports)
		return;
	slots_[slot].store(nullptr);
	addresses_changed();
	// hold() counts itself in before it looks at the slot, so a user
	// either sees it empty or is seen here (both sequentially consistent).
	while (users_[slot].load())
		scx_env_sleep_us(10);
}

data_path *fabric::hold(u32 slot)
{
	if (slot >= max_ports)
		return nullptr;
	users_[slot].fetch_add(1);
	data_path *dp = slots_[slot].load();
	if (!dp)
		users_[slot].fetch_sub(1);
	return dp;
}

void fabric::release(u32 slot)
{
	users_[slot].fetch_sub(1, mo::release);
}

} // namespace scx::hca
