// SPDX-License-Identifier: GPL-2.0
// Queue pairs on the device side: CREATE_QP (buffer by PAS list, doorbell
// record, CQs, SRQ), the state machine of the PRM transitions (RST2INIT,
// INIT2INIT, INIT2RTR, RTR2RTS, RTS2RTS, SQERR2RTS, SQD_RTS, 2ERR, 2RST;
// a transition from the wrong state answers BAD_QP_STATE), QUERY_QP and
// DESTROY_QP (from any state).
//
// Each QP takes two firmware-page slots: one for qp_ctx (bookkeeping and the
// qp_runtime the data path works with) and one for the QP context image, as
// the driver set it through CREATE_QP and the transitions, which QUERY_QP
// returns with the device's own fields (state, counters) filled in.
//
// What each transition takes from its qpc (everything else in it is
// ignored, as mlx5_ib sends a full context every time):
//   RST2INIT   RC: rre rwe rae atomic_mode; UC: rwe; UD: q_key;
//              all: pkey_index, vhca_port_num (must be 1), counter_set_id
//   INIT2RTR   RC/UC: mtu (256..4096, and its packets within the port's
//              MTU), log_msg_max, remote_qpn (not 0/1),
//              the primary path's RoCE fields (rmac, rgid, src_addr_index,
//              hop_limit, tclass, flow_label, udp_sport, dscp, eth_prio ...),
//              next_rcv_psn; RC also log_rra_max, min_rnr_nak; UD: nothing
//   RTR2RTS    next_send_psn; RC also retry_count, rnr_retry, log_sra_max,
//              log_ack_req_freq
//              and the primary path's ack_timeout
//   INIT2INIT, RTS2RTS: optional fields only
// plus, in each, the optional fields its opt_param_mask selects; the bits
// allowed per transition and service type are mlx5_ib's (qp.c opt_mask),
// less the alternate path (no APM): any other bit answers BAD_PARAM.
#pragma once

#include "hca/caps.h"
#include "hca/cmd_ctx.h"
#include "hca/cq.h"
#include "hca/fw_pages.h"
#include "hca/objects.h"
#include "hca/srq.h"
#include "hca/tp.h"
#include "hca/umem.h"
#include "hca/vport.h"
#include "lib/bus.h"
#include "lib/sync.h"

namespace scx::hca {

struct dct_runtime;

struct transition;

struct tp_qp;

// Responder access a QP grants (qpc rre/rwe/rae).
namespace qp_access {
constexpr u8 remote_read = 1u << 0;
constexpr u8 remote_write = 1u << 1;
constexpr u8 remote_atomic = 1u << 2;
} // namespace qp_access

// The primary address path, RoCE view.
struct qp_path {
	u8 rmac[6];
	u8 rgid[16];
	u8 src_addr_index;  // GID table index of the source address
	u8 hop_limit;
	u8 tclass;
	u8 dscp;
	u8 eth_prio;
	u8 ack_timeout;     // 4.096 us << ack_timeout; 0: infinite
	u8 vhca_port_num;
	u16 pkey_index;
	u16 udp_sport;
	u32 flow_label;
};

// What the data path works with: decoded from the qpc at creation and by
// the transitions, plus the device's own queue state.
struct qp_runtime {
	u32 qpn;
	u8 st;              // prm::qpc_st: rc, uc or ud
	u8 gsi;             // the port's QP1 (created as st QP1, runs as UD)
	u8 state;           // prm::qpc_state
	u8 rq_type;         // prm::qp_rq_type: non_zero, srq or zero_len
	u8 flush_pending;   // entered ERR with work outstanding: flush it
	u32 pd;
	u32 cqn_snd;
	u32 cqn_rcv;
	u32 srqn;           // receives come from this SRQ (rq_type srq)
	u32 user_index;     // goes into every CQE of this QP (cqe_version 1)
	u32 uar;            // the UAR page its send doorbells arrive through

	// The work queue buffer: RQ at offset 0, SQ right after it.
	fw_list pas;
	u8 page_shift;      // log2 of the PAS page size
	u8 log_sq_size;     // log2 of sq_wqebbs
	u8 log_rq_size;     // log2 of rq_wqes
	u8 rq_stride_shift; // log2 of the RQ WQE stride in bytes
	u32 page_offset;    // bytes into the first PAS page where the buffer starts
	u32 sq_offset;      // byte offset of the SQ in the buffer
	u32 sq_wqebbs;      // 64-byte basic blocks; 0: no SQ
	u32 rq_wqes;        // 0: no RQ of its own
	u64 dbr_addr;       // doorbell record: BE32 receive counter, BE32 send counter

	// Device-side indices: what has been consumed. 2RST sets them to 0.
	u16 sq_ci;          // SQ consumer in WQEBBs
	u16 rq_ci;          // RQ consumer in WQEs
	u32 generation;     // bumped by every command that changes the QP

	// Events already reported (2RST clears them).
	u8 comm_est;        // COMM_EST reported
	u8 last_wqe;        // LAST_WQE_REACHED reported (QP on an SRQ, in ERR)

	// Transport attributes as the transitions left them.
	u8 mtu;             // prm::qpc_mtu
	u8 log_msg_max;
	u8 access;          // qp_access bits (UC: remote_write only; UD: none)
	u8 atomic_mode;
	u8 retry_count;
	u8 rnr_retry;
	u8 min_rnr_nak;
	u8 log_sra_max;     // outstanding RDMA read/atomic as requester: 2^log
	u8 log_rra_max;     // ... as responder
	u8 pm_state;
	u8 counter_set_id;
	u8 cs_req;
	u8 cs_res;
	u8 rlky;
	u8 log_ack_req_freq;  // the requester's AckReq cadence: 2^n packets
	u8 pad[1];
	u16 uid;            // its creator's user context (uctx.h)
	u16 wq_umem;        // the umem its work queues are in (0: pages of its own)
	u16 dbr_umem;       // the umem its doorbell record is in (0: none)
	u32 remote_qpn;
	u32 q_key;
	u32 next_send_psn;
	u32 next_rcv_psn;
	qp_path path;

	// The data path's last route: to the port in route_slot (fabric::none:
	// this one) for route_gid, while the fabric's epoch is route_epoch.
	u32 route_epoch;
	u32 route_slot;
	u8 route_gid[16];

	// A DC target's responder context (dct.h, dp_dc.cpp): the DCT it
	// answers for, which its CQEs name (0: a QP); when it last took a
	// packet, by the data path's clock.
	u32 dctn;
	u64 dc_last;

	// Its packet transport state (tp.h), synced by the transitions.
	tp_qp *tp;
	// On the data path's list of QPs with work / of QPs with a timer.
	u8 dp_active;
	u8 dp_timed;
	// Its CQs' consumer indexes at its last trapped doorbell
	// (data_path::consumed_since_doorbell).
	u32 seen_ci_snd;
	u32 seen_ci_rcv;
};

// The number a QP's CQEs name: its own, or a DCT context's DCT's.
inline u32 cqe_qpn(const qp_runtime &rt) { return rt.dctn ? rt.dctn : rt.qpn; }

struct qp_ctx {
	u32 slot;
	u32 image_slot;     // the qpc image (prm::qpc layout); a DCT context has none
	qp_runtime rt;
};
static_assert(sizeof(qp_ctx) <= fw_pages::slot_size);

struct qp_deps {
	bus::dma_space *dma;
	fw_pages *pages;
	id_pool *pds;
	id_pool *uars;
	id_pool *q_counters;
	cq_engine *cqs;
	srq_table *srqs;
	umem_table *umems;
	const caps *cap;    // current log_max_qp, pkey table size, ... at each command
	const vport *port;  // the port's MTU, which bounds a QP's path MTU
};

class qp_table {
public:
	static constexpr u32 first_qpn = 2; // QP0 and QP1 are the special QPs

	qp_table() = default;
	~qp_table();
	qp_table(const qp_table &) = delete;
	qp_table &operator=(const qp_table &) = delete;

	status init(const qp_deps &deps, u32 log_max_qp);

	// Before a CREATE_QP, in process context with no hca lock held: the
	// transport state it will need (create runs under the data path's
	// spinlock, where nothing may sleep).
	void prepare_create();
	// In process context: frees what destroyed QPs left (the transport
	// state is freed here, never under a spinlock).
	void collect();
	void create(cmd_ctx &c);
	// Every transition opcode (c.opcode says which).
	void modify(cmd_ctx &c);
	void query(cmd_ctx &c);
	void destroy(cmd_ctx &c);
	// Destroy every QP (TEARDOWN_HCA).
	void reset();
	// Whether some QP or reserved QPN run was made by user context uid
	// (uctx.h).
	bool any_owned_by(u16 uid);

	// Reserved QP numbers, the general object RESERVED_QPN
	// (qp_reserve.cpp): runs of QPNs no CREATE_QP hands out while held.
	void create_reserved(cmd_ctx &c);
	void query_reserved(cmd_ctx &c);
	void destroy_reserved(cmd_ctx &c);
	u32 reserved_count() const { return reserved_; }
	// One QPN for an object that is addressed as a QP is but is none (a
	// DCT), and its return.
	result<u32> hold_number();
	void release_number(u32 qpn);

	// DC targets' responder contexts: QPs no command names, each serving
	// one DC initiator at a time for its DCT (dct.cpp makes them with the
	// DCT, dp_dc.cpp hands them out). prepare_contexts runs in process
	// context before CREATE_DCT (the transport states they take); the
	// others under the data path's lock, as commands run.
	void prepare_contexts(u32 n);
	result<u32> create_context(const dct_runtime &t);
	void destroy_context(u32 qpn);

	// For the data path: a snapshot of QP qpn, or false.
	bool lookup(u32 qpn, qp_runtime *out);
	// Runs f(qp_runtime &) on the live QP under the table lock (keep it
	// short: no other hca lock may be taken inside); false if no such QP.
	template <typename F> bool update(u32 qpn, F &&f)
	{
		lock_guard g(lock_);
		qp_ctx *q = table_.get(qpn);
		if (!q)
			return false;
		f(q->rt);
		return true;
	}
	// Bus address of byte `off` of the SQ / of the RQ (false beyond it).
	bool sq_addr(const qp_runtime &rt, u64 off, u64 *bus) const;
	// sq_addr, and how many bytes from off lie in the same page and
	// before the ring's end (at most max); 0 if off is outside the ring.
	u32 sq_span(const qp_runtime &rt, u64 off, u32 max, u64 *bus) const;
	bool rq_addr(const qp_runtime &rt, u64 off, u64 *bus) const;
	// WQEs of one QP in flight at once (its transport window).
	static constexpr u32 max_flights = 64;
	u32 count() const { return live_; }

	// For the data path, which holds its lock (every command that changes
	// or frees a QP holds it too): the live QP, and the live QP numbers.
	qp_runtime *dp_get(u32 qpn)
	{
		// The GSI QP (st QP1) has a QPN of its own, as on a ConnectX.
		if (qpn == gsi_wire_qpn)
			qpn = gsi_qpn_;
		qp_ctx *q = table_.get(qpn);
		return q ? &q->rt : nullptr;
	}
	template <typename F> void for_each_qpn(F &&f)
	{
		table_.for_each([&](u32 qpn, qp_ctx *) { f(qpn); });
	}
	// What destroyed QPs counted, for the data path under its lock: a
	// port's totals outlive its QPs.
	const tp_counters &gone_counters() const { return gone_; }
	// Changes whenever a QP is created or destroyed / changes state.
	u32 epoch() const { return epoch_; }
	u32 state_epoch() const { return state_epoch_; }

private:
	void free_qp(qp_ctx *q);
	u32 max_live() const;
	bool modify_check(cmd_ctx &c, const qp_runtime &now, const u8 *qpc, u32 mask);
	qp_ctx *modify_apply(u32 qpn, const transition &t, const u8 *qpc, u32 mask);
	// CREATE_QP's steps (qp_create.cpp); each false/nullptr has failed
	// the command.
	struct create_plan;
	bool create_check(cmd_ctx &c, const u8 *hdr, create_plan &p);
	bool create_geometry(cmd_ctx &c, const u8 *qpc, create_plan &p);
	bool create_attach(cmd_ctx &c, const u8 *qpc, create_plan &p);
	void create_detach(const create_plan &p);
	qp_ctx *create_alloc(cmd_ctx &c, create_plan &p);
	void create_undo(qp_ctx *qp, const create_plan &p);
	bool create_pas(cmd_ctx &c, qp_runtime &rt, const create_plan &p);
	bool create_memory(cmd_ctx &c, const u8 *hdr, qp_runtime &rt, create_plan &p);
	void release_umems(const qp_runtime &rt);
	void create_image(u8 *img, qp_runtime &rt, const u8 *qpc, const create_plan &p);
	result<u32> create_publish(qp_ctx *qp, const create_plan &p);

	// A run of reserved QPNs: [first, first + 2^log), held for uid.
	struct qpn_run {
		u32 first;
		u16 uid;
		u8 log;
		u8 used;
	};
	static constexpr u32 max_runs = hca_limits::max_reserved_qpns;
	qpn_run *find_run(u32 first);
	qpn_run *named_run(cmd_ctx &c);
	void reset_reserved();

	qp_deps d_{};
	qpn_run *runs_ = nullptr;   // max_runs of them
	u32 reserved_ = 0;          // QPNs held in runs
	u32 live_ = 0;
	u32 gsi_qpn_ = 0;   // 0: none
	u32 epoch_ = 0;
	u32 state_epoch_ = 0;
	spinlock lock_;
	obj_table<qp_ctx> table_;
	// The transport state of each QP by QPN, and one ready for the next
	// CREATE_QP. Heap memory, not firmware pages: whatever a reset of the
	// pages forgets is still freed here, at the latest with the table.
	tp_qp **tps_ = nullptr;
	u32 ntps_ = 0;
	tp_qp *spare_ = nullptr;
	tp_qp *ctx_spares_ = nullptr;  // for DCT contexts, linked through owner
	u32 nctx_spares_ = 0;
	tp_qp *graveyard_ = nullptr;   // linked through owner
	tp_counters gone_{};
	void bury(tp_qp *t);
};

} // namespace scx::hca
