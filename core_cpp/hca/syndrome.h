// SPDX-License-Identifier: GPL-2.0
// Every command failure the hca reports, with the 32-bit syndrome that goes
// into mbox_out.syndrome next to the PRM status. Real firmware uses opaque
// per-site values; softcx's are stable and readable instead:
//
//     0x5c AA SS XX    0x5c = softcx, AA = area, SS = site within the area,
//                      XX = 0 (reserved for a detail such as a field index)
//
// A value is never reused for another site; tests and the driver's error log
// may rely on it. Areas: 01 transport/header, 02 lifecycle, 03 caps, 04 pages,
// 05 UAR, 06 EQ, 07 CQ, 08 PD, 09 mkey, 0a Q counter, 0b vport, 0f injected.
#pragma once

#include "lib/types.h"

namespace scx::hca::synd {

constexpr u32 make(u32 area, u32 site) { return 0x5c000000u | (area << 16) | (site << 8); }

// 01: header and lengths (any command)
constexpr u32 bad_opcode = make(0x01, 0x01);          // BAD_OP: opcode not implemented
constexpr u32 hdr_reserved = make(0x01, 0x02);        // BAD_PARAM: mbox_in reserved bits set
constexpr u32 uid_not_supported = make(0x01, 0x03);   // BAD_PARAM: uid != 0 (no DEVX)
constexpr u32 short_input = make(0x01, 0x04);         // BAD_INP_LEN: inlen < command layout
constexpr u32 short_output = make(0x01, 0x05);        // BAD_OUTP_LEN: outlen < output layout
constexpr u32 bad_op_mod = make(0x01, 0x06);          // BAD_PARAM: op_mod not defined
constexpr u32 not_enabled = make(0x01, 0x07);         // BAD_SYS_STATE: before ENABLE_HCA
constexpr u32 not_initialized = make(0x01, 0x08);     // BAD_SYS_STATE: before INIT_HCA
constexpr u32 short_list = make(0x01, 0x09);          // BAD_INP_LEN: PAS/MTT list beyond inlen
constexpr u32 bad_function = make(0x01, 0x0a);        // BAD_PARAM: function_id/other_* != 0

// 02: lifecycle
constexpr u32 already_enabled = make(0x02, 0x01);     // BAD_SYS_STATE: ENABLE_HCA twice
constexpr u32 disable_initialized = make(0x02, 0x02); // BAD_SYS_STATE: DISABLE_HCA before teardown
constexpr u32 bad_issi = make(0x02, 0x03);            // BAD_PARAM: SET_ISSI to unsupported ISSI
constexpr u32 issi_after_init = make(0x02, 0x04);     // BAD_SYS_STATE: SET_ISSI after INIT_HCA
constexpr u32 already_initialized = make(0x02, 0x05); // BAD_SYS_STATE: INIT_HCA twice
constexpr u32 init_pages_missing = make(0x02, 0x06);  // BAD_SYS_STATE: INIT_HCA without boot+init pages
constexpr u32 bad_teardown_profile = make(0x02, 0x07);// BAD_PARAM: unknown teardown profile

// 03: capabilities
constexpr u32 bad_cap_type = make(0x03, 0x01);        // BAD_PARAM: cap page not provided
constexpr u32 set_cap_after_init = make(0x03, 0x02);  // BAD_SYS_STATE: SET_HCA_CAP after INIT_HCA
constexpr u32 cap_above_max = make(0x03, 0x03);       // BAD_PARAM: a settable cap above its max
constexpr u32 bad_cap_value = make(0x03, 0x04);       // BAD_PARAM: a settable cap with a bad value

// 04: firmware pages
constexpr u32 page_misaligned = make(0x04, 0x01);     // BAD_PARAM: page address not 4 KiB aligned
constexpr u32 page_unmapped = make(0x04, 0x02);       // BAD_PARAM: page address not reachable
constexpr u32 page_duplicate = make(0x04, 0x03);      // BAD_PARAM: page given twice
constexpr u32 page_table_full = make(0x04, 0x04);     // NO_RES: more pages than the hca tracks
constexpr u32 no_fw_memory = make(0x04, 0x05);        // NO_RES: no free context memory in fw pages

// 05: UAR
constexpr u32 uar_exhausted = make(0x05, 0x01);       // NO_RES: all UARs allocated
constexpr u32 uar_invalid = make(0x05, 0x02);         // BAD_RES: UAR not allocated
constexpr u32 uar_busy = make(0x05, 0x03);            // BAD_RES_STATE: UAR used by an EQ/CQ

// 06: EQ
constexpr u32 eq_exhausted = make(0x06, 0x01);        // NO_RES: all EQ numbers in use
constexpr u32 eq_invalid = make(0x06, 0x02);          // BAD_RES: no such EQ
constexpr u32 eq_bad_size = make(0x06, 0x03);         // BAD_PARAM: log_eq_size above the cap
constexpr u32 eq_bad_vector = make(0x06, 0x04);       // BAD_PARAM: intr >= number of vectors
constexpr u32 eq_bad_page = make(0x06, 0x05);         // BAD_PARAM: PAS entry misaligned/unmapped
constexpr u32 eq_bad_offset = make(0x06, 0x06);       // BAD_PARAM: page_offset != 0
constexpr u32 eq_busy = make(0x06, 0x07);             // BAD_RES_STATE: EQ still has CQs
constexpr u32 eq_bad_page_size = make(0x06, 0x08);    // BAD_PARAM: log_page_size too large

// 07: CQ
constexpr u32 cq_exhausted = make(0x07, 0x01);        // NO_RES: all CQ numbers in use
constexpr u32 cq_invalid = make(0x07, 0x02);          // BAD_RES: no such CQ
constexpr u32 cq_bad_size = make(0x07, 0x03);         // BAD_PARAM: log_cq_size above the cap
constexpr u32 cq_bad_eq = make(0x07, 0x04);           // BAD_RES: c_eqn names no EQ
constexpr u32 cq_bad_page = make(0x07, 0x05);         // BAD_PARAM: PAS entry misaligned/unmapped
constexpr u32 cq_bad_offset = make(0x07, 0x06);       // BAD_PARAM: page_offset != 0
constexpr u32 cq_bad_cqe_size = make(0x07, 0x07);     // BAD_PARAM: cqe_sz not 64/128
constexpr u32 cq_bad_dbr = make(0x07, 0x08);          // BAD_PARAM: doorbell record unreachable
constexpr u32 cq_resize_unsupported = make(0x07, 0x09); // BAD_PARAM: MODIFY_CQ resize
constexpr u32 cq_umem_unsupported = make(0x07, 0x0a); // BAD_PARAM: cq_umem_valid/dbr_umem_valid
constexpr u32 cq_bad_page_size = make(0x07, 0x0b);    // BAD_PARAM: log_page_size too large

// 08: PD
constexpr u32 pd_exhausted = make(0x08, 0x01);        // NO_RES: all PDs allocated
constexpr u32 pd_invalid = make(0x08, 0x02);          // BAD_RES: no such PD
constexpr u32 pd_busy = make(0x08, 0x03);             // BAD_RES_STATE: PD still has mkeys

// 09: mkey
constexpr u32 mkey_exhausted = make(0x09, 0x01);      // NO_RES: all mkey indices in use
constexpr u32 mkey_invalid = make(0x09, 0x02);        // BAD_RES: no such mkey
constexpr u32 mkey_bad_access_mode = make(0x09, 0x03);// BAD_PARAM: access mode not PA/MTT
constexpr u32 mkey_bad_pd = make(0x09, 0x04);         // BAD_RES: mkc.pd names no PD
constexpr u32 mkey_bad_mtt_size = make(0x09, 0x05);   // BAD_PARAM: actual > octword size / too big
constexpr u32 mkey_bad_mtt = make(0x09, 0x06);        // BAD_PARAM: MTT entry misaligned
constexpr u32 mkey_bad_page_size = make(0x09, 0x07);  // BAD_PARAM: log_page_size out of range
constexpr u32 mkey_umem_unsupported = make(0x09, 0x08); // BAD_PARAM: mkey_umem_valid
constexpr u32 mkey_bad_range = make(0x09, 0x09);      // BAD_PARAM: start+len overflows/too long

// 0a: Q counters
constexpr u32 q_counter_exhausted = make(0x0a, 0x01); // NO_RES: all counter sets in use
constexpr u32 q_counter_invalid = make(0x0a, 0x02);   // BAD_RES: no such counter set

// 0b: vport
constexpr u32 vport_bad_op_mod = make(0x0b, 0x01);    // BAD_PARAM: not the local vNIC vport
constexpr u32 vport_other = make(0x0b, 0x02);         // BAD_PARAM: other_vport / vport_number

// 0f: fault injection (fault_hooks::fail_opcode with syndrome 0 uses this)
constexpr u32 injected = make(0x0f, 0x01);

} // namespace scx::hca::synd
