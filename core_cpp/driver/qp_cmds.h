// SPDX-License-Identifier: GPL-2.0
// Thin wrappers for the QP and SRQ commands (the role of mlx5_ib's qpc.c and
// srq_cmd.c): each builds its PRM input from plain parameters, runs it
// through the command interface and returns what the caller needs. No state
// of their own; the verbs layer keeps its QP/SRQ objects and decides which
// transition to send (ib_modify_qp_is_ok) and which optional bits to set.
//
// Errors are errnos as cmd_if maps firmware statuses: a transition from the
// wrong state (BAD_QP_STATE), a bad parameter or resource -> EINVAL, no free
// QP number or firmware memory -> EAGAIN.
#pragma once

#include "driver/cmd_if.h"

namespace scx::driver::cmd {

// The work queue buffer as the device sees it: a list of 4 KiB <<
// log_page_size pages, the data starting page_offset 64ths of a page into
// the first (the qpc/srqc encoding).
struct wq_buffer {
	const u64 *pas = nullptr;  // bus addresses, page aligned
	u32 npas = 0;
	u32 log_page_size = 0;
	u32 page_offset = 0;
};

// Pages a buffer of `bytes` needs (what the device expects in the list).
u32 wq_pas_count(u64 bytes, u32 log_page_size, u32 page_offset);

struct qp_params {
	u8 st = 0;                 // prm::qpc_st: rc, uc or ud
	u32 pd = 0;
	u32 cqn_snd = 0;
	u32 cqn_rcv = 0;
	u32 uar = 0;               // UAR page its send doorbells go through
	bool no_sq = false;
	u32 log_sq_size = 0;       // SQ of 2^log_sq_size 64-byte WQEBBs
	u8 rq_type = 0;            // prm::qp_rq_type: non_zero, srq or zero_len
	u32 log_rq_size = 0;       // non_zero: 2^log_rq_size WQEs ...
	u32 rq_wqe_shift = 4;      // ... of 1 << rq_wqe_shift bytes (>= 4)
	u32 srqn = 0;              // rq_type srq
	u32 user_index = 0xffffff; // cqe_version 1: into every CQE of the QP
	u64 dbr_addr = 0;          // 8-byte doorbell record (receive, send counters)
	wq_buffer buf;             // RQ at offset 0, SQ after it
	u8 cs_req = 0;             // scatter to CQE (accepted, not done by softcx)
	u8 cs_res = 0;
	u8 ts_format = 0;
	bool rlky = false;         // kernel QPs: reserved lkey enabled
	bool fre = false;          // kernel QPs: fast registration enabled
	bool block_lb_mc = false;  // no multicast loopback to this QP
};

// CREATE_QP from parameters; the QP starts in RESET. Returns the QPN.
result<u32> create_qp(cmd_if &c, const qp_params &p, u16 uid = 0);
// CREATE_QP with a caller-built input (create_qp_in with qpc and PAS list);
// sets the opcode and returns the QPN.
result<u32> create_qp(cmd_if &c, void *in, u32 inlen);
status destroy_qp(cmd_if &c, u32 qpn, u16 uid = 0);
// QUERY_QP: the context as the device keeps it (prm::qpc::size_bytes bytes).
status query_qp(cmd_if &c, u32 qpn, u8 *qpc);

// A transition that carries a context: opcode one of prm::op::rst2init_qp,
// init2init_qp, init2rtr_qp, rtr2rts_qp, rts2rts_qp, sqerr2rts_qp,
// sqd_rts_qp; qpc is prm::qpc::size_bytes bytes, opt_param_mask
// prm::qp_optpar bits.
status modify_qp(cmd_if &c, u16 opcode, u32 qpn, u32 opt_param_mask, const u8 *qpc, u16 uid = 0);
// 2ERR and 2RST: from any state.
status qp_to_err(cmd_if &c, u32 qpn, u16 uid = 0);
status qp_to_rst(cmd_if &c, u32 qpn, u16 uid = 0);

// Typed forms of the three transitions every connection goes through; they
// fill the qpc fields the device takes in each (hca/qp.h lists them).
// Access bits: remote read/write/atomic as prm::qpc rre/rwe/rae.
struct qp_access_bits {
	bool remote_read = false;
	bool remote_write = false;
	bool remote_atomic = false;
};

struct qp_init_attr {
	u16 pkey_index = 0;
	u8 port = 1;
	qp_access_bits access;     // RC; UC uses remote_write only
	u32 q_key = 0;             // UD
	u8 counter_set_id = 0;
};
status rst2init_qp(cmd_if &c, u32 qpn, u8 st, const qp_init_attr &a, u16 uid = 0);

// The RoCE address of the remote side (primary path).
struct qp_path_attr {
	u8 rmac[6] = {};
	u8 rgid[16] = {};
	u8 sgid_index = 0;
	u8 hop_limit = 64;
	u8 tclass = 0;
	u32 flow_label = 0;
	u16 udp_sport = 0;
	u8 sl = 0;                 // ads eth_prio (sl & 7)
	u8 port = 1;
};

struct qp_rtr_attr {
	u8 mtu = 0;                // prm::qpc_mtu (IB enum ib_mtu)
	u8 log_msg_max = 30;
	u32 remote_qpn = 0;
	u32 rq_psn = 0;
	u8 log_rra_max = 0;        // RC: log2 max_dest_rd_atomic (rounded up)
	u8 min_rnr_timer = 0;      // RC
	qp_path_attr path;         // RC/UC
	u32 opt_param_mask = 0;    // optional fields below, as prm::qp_optpar
	qp_access_bits access;     // with rre/rwe/rae bits
	u16 pkey_index = 0;        // with pkey_index
	u32 q_key = 0;             // UD, with q_key
};
status init2rtr_qp(cmd_if &c, u32 qpn, u8 st, const qp_rtr_attr &a, u16 uid = 0);

struct qp_rts_attr {
	u32 sq_psn = 0;
	u8 retry_count = 7;        // RC
	u8 rnr_retry = 7;          // RC
	u8 ack_timeout = 14;       // RC
	u8 log_sra_max = 0;        // RC: log2 max_rd_atomic (rounded up)
	u32 opt_param_mask = 0;    // optional fields below, as prm::qp_optpar
	qp_access_bits access;     // with rre/rwe/rae bits
	u8 min_rnr_timer = 0;      // with rnr_timeout
	u32 q_key = 0;             // UD, with q_key
	u8 counter_set_id = 0;     // with counter_set_id
};
status rtr2rts_qp(cmd_if &c, u32 qpn, u8 st, const qp_rts_attr &a, u16 uid = 0);

struct srq_params {
	u32 pd = 0;
	u32 log_size = 0;          // 2^log_size WQEs ...
	u32 wqe_shift = 5;         // ... of 1 << wqe_shift bytes (>= 4)
	u16 lwm = 0;               // limit; 0: none
	u32 cqn = 0;               // kept, not used by a basic SRQ
	u64 dbr_addr = 0;          // doorbell record (producer counter)
	wq_buffer buf;
	bool rlky = false;
};

result<u32> create_srq(cmd_if &c, const srq_params &p, u16 uid = 0);
status destroy_srq(cmd_if &c, u32 srqn, u16 uid = 0);
// QUERY_SRQ: the context (prm::srqc::size_bytes bytes).
status query_srq(cmd_if &c, u32 srqn, u8 *srqc);
// ARM_RQ for an SRQ: the limit below which SRQ_RQ_LIMIT fires once.
status arm_srq(cmd_if &c, u32 srqn, u16 lwm, u16 uid = 0);

} // namespace scx::driver::cmd
