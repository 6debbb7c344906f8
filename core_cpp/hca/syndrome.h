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
// 05 UAR, 06 EQ, 07 CQ, 08 PD, 09 mkey, 0a Q counter, 0b vport, 0c QP, 0d SRQ,
// 0f injected, 10 user contexts (uids), 11 user memory, 12 general objects,
// 13 DC targets, 14 receive memory pools (RMPs; the rest as SRQs, 0d).
#pragma once

#include "lib/types.h"

namespace scx::hca::synd {

constexpr u32 make(u32 area, u32 site) { return 0x5c000000u | (area << 16) | (site << 8); }

// 01: header and lengths (any command)
constexpr u32 bad_opcode = make(0x01, 0x01);          // BAD_OP: opcode not implemented
constexpr u32 hdr_reserved = make(0x01, 0x02);        // BAD_PARAM: mbox_in reserved bits set
constexpr u32 uid_not_supported = make(0x01, 0x03);   // (no longer reported: uids name user contexts, area 10)
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
constexpr u32 bad_cap_type = make(0x03, 0x01);        // BAD_PARAM: no such cap type (query), or none to set
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
constexpr u32 uar_busy = make(0x05, 0x03);            // BAD_RES_STATE: UAR used by an EQ/CQ/QP

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
constexpr u32 cq_resize_unsupported = make(0x07, 0x09); // (no longer reported: MODIFY_CQ resize is served)
constexpr u32 cq_umem_unsupported = make(0x07, 0x0a); // BAD_PARAM: cq_umem_valid/dbr_umem_valid
constexpr u32 cq_bad_page_size = make(0x07, 0x0b);    // BAD_PARAM: log_page_size too large
constexpr u32 cq_busy = make(0x07, 0x0c);             // BAD_RES_STATE: CQ still used by a QP
constexpr u32 cq_resize_outstanding = make(0x07, 0x0d); // BAD_SIZE_OUTS_CQES: unpolled CQEs exceed the new size
constexpr u32 cq_bad_state = make(0x07, 0x0e);        // BAD_RES_STATE: CQ in error or its dbr/ring unreachable
constexpr u32 cq_bad_resize_select = make(0x07, 0x0f); // BAD_PARAM: unknown resize_field_select bit

// 08: PD
constexpr u32 pd_exhausted = make(0x08, 0x01);        // NO_RES: all PDs allocated
constexpr u32 pd_invalid = make(0x08, 0x02);          // BAD_RES: no such PD
constexpr u32 pd_busy = make(0x08, 0x03);             // BAD_RES_STATE: PD still has mkeys/QPs/SRQs
constexpr u32 td_exhausted = make(0x08, 0x04);        // NO_RES: all transport domains allocated
constexpr u32 td_invalid = make(0x08, 0x05);          // BAD_RES: no such transport domain

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
constexpr u32 roce_addr_index = make(0x0b, 0x03);     // BAD_PARAM: RoCE address index beyond the table
constexpr u32 roce_addr_port = make(0x0b, 0x04);      // BAD_PARAM: no such port

// 0c: QP
constexpr u32 qp_exhausted = make(0x0c, 0x01);        // NO_RES: as many QPs as log_max_qp allows
constexpr u32 qp_invalid = make(0x0c, 0x02);          // BAD_RES: no such QP
constexpr u32 qp_bad_state = make(0x0c, 0x03);        // BAD_QP_STATE: transition not allowed from the QP's state
constexpr u32 qp_reserved = make(0x0c, 0x04);         // BAD_PARAM: reserved bits of the command set
constexpr u32 qp_input_qpn_unsupported = make(0x0c, 0x05); // BAD_PARAM: CREATE_QP input_qpn != 0
constexpr u32 qp_umem_unsupported = make(0x0c, 0x06); // (no longer reported: QPs may live in umems, area 11)
constexpr u32 qp_bad_st = make(0x0c, 0x07);           // BAD_PARAM: st not RC, UC or UD
constexpr u32 qp_unsupported = make(0x0c, 0x08);      // BAD_PARAM: wq_signature, cross-channel, offloads, DCI, end padding
constexpr u32 qp_bad_pm_state = make(0x0c, 0x09);     // BAD_PARAM: pm_state not MIGRATED (no APM)
constexpr u32 qp_bad_pd = make(0x0c, 0x0a);           // BAD_RES: qpc.pd names no PD
constexpr u32 qp_bad_cq = make(0x0c, 0x0b);           // BAD_RES: cqn_snd/cqn_rcv names no CQ
constexpr u32 qp_bad_srq = make(0x0c, 0x0c);          // BAD_RES: rq_type SRQ and srqn names no SRQ
constexpr u32 qp_bad_rq_type = make(0x0c, 0x0d);      // BAD_PARAM: rq_type CRQ or undefined
constexpr u32 qp_bad_rq_size = make(0x0c, 0x0e);      // BAD_PARAM: log_rq_size/log_rq_stride above the caps
constexpr u32 qp_bad_sq_size = make(0x0c, 0x0f);      // BAD_PARAM: log_sq_size above log_max_qp_sz
constexpr u32 qp_bad_page_size = make(0x0c, 0x10);    // BAD_PARAM: log_page_size too large
constexpr u32 qp_bad_page = make(0x0c, 0x11);         // BAD_PARAM: PAS entry misaligned/unmapped
constexpr u32 qp_bad_dbr = make(0x0c, 0x12);          // BAD_PARAM: doorbell record misaligned/unreachable
constexpr u32 qp_bad_counter = make(0x0c, 0x13);      // BAD_RES: counter_set_id names no counter set
constexpr u32 qp_bad_opt_param = make(0x0c, 0x14);    // BAD_PARAM: opt_param_mask bit not allowed here
constexpr u32 qp_bad_port = make(0x0c, 0x15);         // BAD_PARAM: vhca_port_num not a port
constexpr u32 qp_bad_pkey = make(0x0c, 0x16);         // BAD_PARAM: pkey_index beyond the pkey table
constexpr u32 qp_bad_mtu = make(0x0c, 0x17);          // BAD_PARAM: RC/UC INIT2RTR mtu not 256..4096
constexpr u32 qp_bad_remote_qpn = make(0x0c, 0x18);   // BAD_PARAM: RC/UC INIT2RTR remote_qpn 0 or 1
constexpr u32 qp_bad_gid_index = make(0x0c, 0x19);    // BAD_PARAM: src_addr_index beyond the GID table
constexpr u32 qp_bad_rd_atomic = make(0x0c, 0x1a);    // BAD_PARAM: log_sra_max/log_rra_max above the caps
constexpr u32 qp_bad_msg_max = make(0x0c, 0x1b);      // BAD_PARAM: log_msg_max above log_max_msg
constexpr u32 qp_mtu_over_port = make(0x0c, 0x1c);    // BAD_PARAM: RC/UC INIT2RTR mtu's packets exceed the port MTU
constexpr u32 qp_gsi_exists = make(0x0c, 0x1d);       // BAD_PARAM: st QP1 while the port has one

// 0d: SRQ
constexpr u32 srq_exhausted = make(0x0d, 0x01);       // NO_RES: all SRQ numbers in use
constexpr u32 srq_invalid = make(0x0d, 0x02);         // BAD_RES: no such SRQ
constexpr u32 srq_busy = make(0x0d, 0x03);            // BAD_RES_STATE: SRQ still used by a QP
constexpr u32 srq_bad_size = make(0x0d, 0x04);        // BAD_PARAM: log_srq_size above log_max_srq_sz
constexpr u32 srq_bad_stride = make(0x0d, 0x05);      // BAD_PARAM: WQE stride above max_wqe_sz_rq
constexpr u32 srq_bad_pd = make(0x0d, 0x06);          // BAD_RES: srqc.pd names no PD
constexpr u32 srq_bad_page_size = make(0x0d, 0x07);   // BAD_PARAM: log_page_size too large
constexpr u32 srq_bad_page = make(0x0d, 0x08);        // BAD_PARAM: PAS entry misaligned/unmapped
constexpr u32 srq_bad_dbr = make(0x0d, 0x09);         // BAD_PARAM: doorbell record misaligned/unreachable
constexpr u32 srq_unsupported = make(0x0d, 0x0a);     // BAD_PARAM: wq_signature or cont_srq set
constexpr u32 srq_bad_lwm = make(0x0d, 0x0b);         // BAD_PARAM: lwm not below the SRQ size
constexpr u32 srq_reserved = make(0x0d, 0x0c);        // BAD_PARAM: reserved bits of the command set

// 10: user contexts (DevX uids)
constexpr u32 uctx_exhausted = make(0x10, 0x01);      // NO_RES: as many user contexts as log_max_uctx allows
constexpr u32 uctx_invalid = make(0x10, 0x02);        // BAD_PARAM: the uid (header or DESTROY_UCTX) names no user context
constexpr u32 uctx_busy = make(0x10, 0x03);           // BAD_RES_STATE: DESTROY_UCTX while objects of its uid remain
constexpr u32 uctx_bad_cap = make(0x10, 0x04);        // BAD_PARAM: uctx.cap asks for a right uctx_cap does not offer
constexpr u32 uid_kernel_only = make(0x10, 0x05);     // BAD_PARAM: a command only uid 0 (the driver) may send
constexpr u32 uid_foreign = make(0x10, 0x06);         // BAD_RES: names an object of another user context

// 11: user memory (DevX UMEM)
constexpr u32 umem_exhausted = make(0x11, 0x01);      // NO_RES: all umem ids in use
constexpr u32 umem_invalid = make(0x11, 0x02);        // BAD_RES: no such umem
constexpr u32 umem_busy = make(0x11, 0x03);           // BAD_RES_STATE: DESTROY_UMEM while an object uses it
constexpr u32 umem_bad_layout = make(0x11, 0x04);     // BAD_PARAM: page size, page_offset or num_of_mtt out of range
constexpr u32 umem_bad_mtt = make(0x11, 0x05);        // BAD_PARAM: an MTT misaligned, unreadable or unmapped
constexpr u32 umem_unsupported = make(0x11, 0x06);    // BAD_PARAM: ats set
constexpr u32 umem_out_of_range = make(0x11, 0x07);   // BAD_PARAM: an object's offset/length outside its umem
constexpr u32 umem_read_only = make(0x11, 0x08);      // BAD_PARAM: the device must write an object in a umem without wr_en

// 12: general objects (RESERVED_QPN)
constexpr u32 gen_obj_bad_type = make(0x12, 0x01);    // BAD_PARAM: an obj_type softcx does not have
constexpr u32 gen_obj_invalid = make(0x12, 0x02);     // BAD_RES: no such object of that type
constexpr u32 gen_obj_exhausted = make(0x12, 0x03);   // NO_RES: no free run of QPNs (or max_reserved_qpns held)
constexpr u32 gen_obj_bad_range = make(0x12, 0x04);   // BAD_PARAM: log_obj_range above the granularity
constexpr u32 gen_obj_no_modify = make(0x12, 0x05);   // BAD_PARAM: MODIFY of a type with nothing to modify

// 13: DC targets
constexpr u32 dct_exhausted = make(0x13, 0x01);       // NO_RES: no QPN left for a DCT
constexpr u32 dct_invalid = make(0x13, 0x02);         // BAD_RES: no such DCT
constexpr u32 dct_bad_pd = make(0x13, 0x03);          // BAD_RES: dctc.pd names no PD
constexpr u32 dct_bad_cq = make(0x13, 0x04);          // BAD_RES: dctc.cqn names no CQ
constexpr u32 dct_bad_srq = make(0x13, 0x05);         // BAD_RES: dctc.srqn_xrqn names no SRQ
constexpr u32 dct_bad_counter = make(0x13, 0x06);     // BAD_RES: counter_set_id names no counter set
constexpr u32 dct_bad_mtu = make(0x13, 0x07);         // BAD_PARAM: mtu not 256..4096
constexpr u32 dct_mtu_over_port = make(0x13, 0x08);   // BAD_PARAM: mtu's packets exceed the port MTU
constexpr u32 dct_bad_port = make(0x13, 0x09);        // BAD_PARAM: port not a port
constexpr u32 dct_bad_pkey = make(0x13, 0x0a);        // BAD_PARAM: pkey_index beyond the pkey table
constexpr u32 dct_bad_gid_index = make(0x13, 0x0b);   // (not reported: every my_addr_index is in the 256-entry GID table)
constexpr u32 dct_bad_atomic_mode = make(0x13, 0x0c); // BAD_PARAM: rae with an atomic_mode the caps do not offer
constexpr u32 dct_not_active = make(0x13, 0x0d);      // BAD_RES_STATE: DRAIN_DCT of a DCT draining or drained
constexpr u32 dct_unsupported = make(0x13, 0x0e);     // BAD_PARAM: cs_res above 64 bytes

// 14: receive memory pools (CREATE/MODIFY/QUERY/DESTROY_RMP)
constexpr u32 rmp_unsupported = make(0x14, 0x01);     // BAD_PARAM: striding, signature, hairpin or other wq feature
constexpr u32 rmp_bad_state = make(0x14, 0x02);       // BAD_PARAM: created not RDY, or a state an RMP cannot move to
constexpr u32 rmp_state_mismatch = make(0x14, 0x03);  // BAD_RES_STATE: MODIFY_RMP's rmp_state is not the RMP's
constexpr u32 rmp_invalid = make(0x14, 0x04);         // BAD_RES: the number names no RMP (an SRQ, or nothing)

// 0f: fault injection (fault_hooks::fail_opcode with syndrome 0 uses this)
constexpr u32 injected = make(0x0f, 0x01);

} // namespace scx::hca::synd
