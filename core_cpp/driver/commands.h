// SPDX-License-Identifier: GPL-2.0
// Thin wrappers for the firmware commands the control plane uses: each
// builds its PRM input, runs it through the command interface, and returns
// the output fields a caller needs. No state of their own.
#pragma once

#include "driver/cmd_if.h"

namespace scx::driver::cmd {

status nop(cmd_if &c, u32 flags = 0);

status enable_hca(cmd_if &c, u16 function_id = 0);
status disable_hca(cmd_if &c, u16 function_id = 0);
// QUERY_ISSI, then SET_ISSI 1 when supported; *issi gets what is in force.
status set_issi(cmd_if &c, u16 *issi);
status init_hca(cmd_if &c);
status teardown_hca(cmd_if &c);

// One capability page (hca_cap_union, 4096 bytes) of the given type/mode.
status query_hca_cap(cmd_if &c, u16 type, u16 mode, u8 *cap);
// Sets the current values of one capability page (4096 bytes).
status set_hca_cap(cmd_if &c, u16 type, const u8 *cap);

result<u32> alloc_uar(cmd_if &c, u16 uid = 0);
status dealloc_uar(cmd_if &c, u32 uar, u16 uid = 0);
// DEALLOC_UAR of a UAR a QP, CQ or EQ may still name: the device's
// BAD_RES_STATE (it frees no UAR in use) is errc::busy and no log line,
// for the caller keeps the UAR and frees it later; any other failure is
// logged as dealloc_uar's.
status release_uar(cmd_if &c, u32 uar, u16 uid = 0);
result<u32> alloc_pd(cmd_if &c, u16 uid = 0);
status dealloc_pd(cmd_if &c, u32 pd, u16 uid = 0);
result<u32> alloc_q_counter(cmd_if &c, u16 uid = 0);
status dealloc_q_counter(cmd_if &c, u32 set);
// QUERY_Q_COUNTER into out (query_q_counter_out::size_bytes); clear:
// the set restarts from zero after this read.
status query_q_counter(cmd_if &c, u32 set, bool clear, u8 *out);

// CREATE_MKEY with a caller-built input (mkc and translations); sets the
// opcode and returns the key: mkey_index << 8 | mkc.mkey_7_0.
result<u32> create_mkey(cmd_if &c, void *in, u32 inlen);
status destroy_mkey(cmd_if &c, u32 mkey, u16 uid = 0);

// A user context (DevX uid) with the given uctx.cap bits; its uid.
result<u16> create_uctx(cmd_if &c, u32 cap);
status destroy_uctx(cmd_if &c, u16 uid);

struct adapter_info {
	u32 ieee_vendor_id;
	u16 vsd_vendor_id;
	char psid[17];
};
status query_adapter(cmd_if &c, adapter_info *info);
// The vport's link state (query_vport_state_out::state).
result<u8> query_vport_state(cmd_if &c, u16 op_mod = 0, u16 vport = 0);

} // namespace scx::driver::cmd
