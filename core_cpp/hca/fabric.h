// SPDX-License-Identifier: GPL-2.0
// The wire between the softcx ports of one kernel. A port that joins it can
// be reached by the others: a requester whose destination GID is in another
// port's RoCE address table hands its request to that port's responder, as
// two ConnectX ports on one switch reach each other by address.
//
// Module-wide and fixed-size, so that nothing is allocated for it: a slot
// per joined port. A user holds a slot (a count) while it uses the data path
// in it; leave() empties the slot and waits until nobody holds it, so a
// port can go away under traffic from its peers. Routes are cached by
// requesters against epoch(), which moves whenever a port joins or leaves
// or any port's address table changes.
#pragma once

#include "lib/atomic.h"
#include "lib/types.h"

namespace scx::hca {

class data_path;

class fabric {
public:
	static constexpr u32 max_ports = 16;
	static constexpr u32 none = ~0u;

	// A slot for dp, or none if every slot is taken (the port then only
	// reaches itself).
	static u32 join(data_path *dp);
	// Process context: sleeps until the last user of the slot let go.
	static void leave(u32 slot);

	static u32 epoch() { return epoch_.load(mo::acquire); }
	static void addresses_changed() { epoch_.fetch_add(1, mo::acq_rel); }

	// The data path in slot, safe from leave() until release(slot); null
	// if the slot is empty.
	static data_path *hold(u32 slot);
	static void release(u32 slot);

private:
	static atomic<data_path *> slots_[max_ports];
	static atomic<u32> users_[max_ports];
	static atomic<u32> epoch_;
};

} // namespace scx::hca
