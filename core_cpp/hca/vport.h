// SPDX-License-Identifier: GPL-2.0
// The function's one vport and its port: link state, MTU, MAC address and
// GUIDs (QUERY_VPORT_STATE, QUERY_NIC_VPORT_CONTEXT), and the PORT_CHANGE
// event when the link goes down or up.
#pragma once

#include "hca/cmd_ctx.h"
#include "hca/config.h"
#include "hca/eq.h"
#include "lib/atomic.h"

namespace scx::hca {

class vport {
public:
	void init(const device_config &cfg, eq_engine &eqs);

	void query_state(cmd_ctx &c);
	void query_nic_context(cmd_ctx &c);
	void query_esw_functions(cmd_ctx &c);
	// The port's RoCE address (GID) table, which the data path reads for
	// the source address of what it sends.
	void set_roce_address(cmd_ctx &c);
	static constexpr u32 roce_table_size = 256;
	// Entry `index` (16 bytes, network order), or null if it is unset.
	const u8 *roce_address(u32 index) const
	{
		return index < roce_table_size && roce_[index].valid ? roce_[index].l3 : nullptr;
	}
	// Whether the table holds gid (a packet to it is this port's).
	bool has_roce_address(const u8 *gid) const;
	// Whether any entry is set.
	bool any_roce_address() const { return roce_used_ != 0; }
	void reset_roce();

	// Change the link state; a change is reported with a PORT_CHANGE EQE
	// (sub type DOWN or ACTIVE) to the EQ subscribed to it. Returns
	// whether an EQE was written.
	bool set_link(bool up);
	// The port's MAC address: the source of every frame it sends.
	const u8 *mac() const { return cfg_.mac; }
	bool link_up() const { return link_.load(); }
	// The port's Ethernet MTU (the netdev's, as the NIC side sets it).
	void set_mtu(u16 mtu) { mtu_.store(mtu); }
	u16 mtu() const { return mtu_.load(); }
	// The largest path MTU (prm::qpc_mtu) whose RoCEv2 packets, headers
	// and ICRC with them, fit in a frame of the port's MTU; 0: none.
	u8 max_path_mtu() const;

private:
	bool check_vport(cmd_ctx &c, bool other, u32 number);

	struct roce_entry {
		u8 l3[16];
		u8 valid;
	};

	device_config cfg_{};
	eq_engine *eqs_ = nullptr;
	roce_entry roce_[roce_table_size] = {};
	u32 roce_used_ = 0;  // entries past this one are all unset
	atomic<bool> link_{true};
	atomic<u16> mtu_{1500};
};

} // namespace scx::hca
