// SPDX-License-Identifier: GPL-2.0
// DC targets, driver side (the role of mlx5_ib's DCT code): CREATE_DCT from
// the attributes a verbs DCT has when it reaches RTR, QUERY_DCT and
// ARM_DCT_FOR_KEY_VIOLATION; and its end, as mlx5_core ends one: DRAIN_DCT,
// then DESTROY_DCT once the DCT_DRAINED event said nothing more is in
// flight. The wait ends also when the device has failed, and at the latest
// after drain_wait_ms: a destroy never hangs.
#pragma once

#include "driver/cmd_if.h"
#include "lib/sync.h"

namespace scx::driver {

class device;

// Who waits for which DCT_DRAINED: the event (hardirq) completes them.
class dct_drains {
public:
	static constexpr u32 max_waiters = 16;
	status init();
	// Before DRAIN_DCT: false if every slot is taken (the caller waits a
	// little and tries again).
	bool watch(u32 dctn, completion *done);
	void unwatch(u32 dctn);
	// DCT_DRAINED for dctn; false if nobody waited for it.
	bool drained(u32 dctn);

private:
	struct waiter {
		u32 dctn;
		completion *done;
	};
	spinlock lock_;
	waiter w_[max_waiters] = {};
};

namespace cmd {

struct dct_params {
	u32 pd = 0, cqn = 0, srqn = 0;
	u32 user_index = 0xffffff;
	u64 dc_key = 0;
	bool rre = false, rwe = false, rae = false;
	u8 port = 1;
	u8 mtu = 0;                // prm::qpc_mtu
	u8 min_rnr_timer = 0;
	u8 sgid_index = 0;
	u8 hop_limit = 64;
	u8 tclass = 0;
	u16 pkey_index = 0;
	u32 flow_label = 0;
	u8 eth_prio = 0;
};
result<u32> create_dct(cmd_if &c, const dct_params &p, u16 uid = 0);
status drain_dct(cmd_if &c, u32 dctn, u16 uid = 0, bool quiet = false);
status destroy_dct(cmd_if &c, u32 dctn, u16 uid = 0);
// QUERY_DCT: the dctc (prm::dctc::size_bytes) as the device keeps it.
status query_dct(cmd_if &c, u32 dctn, u8 *dctc);
status arm_dct(cmd_if &c, u32 dctn);

} // namespace cmd

// DRAIN_DCT, the wait for DCT_DRAINED, DESTROY_DCT.
status end_dct(device &dev, u32 dctn, u16 uid);

} // namespace scx::driver
