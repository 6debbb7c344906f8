// SPDX-License-Identifier: GPL-2.0
// The packet transport (IBTA vol. 1 ch. 9): one engine for RC, UC and UD
// whatever the destination, in three roles as the spec gives them —
// the requester turns send WQEs into packets (tp_req.cpp), the responder
// executes requests and answers them (tp_resp.cpp), the completer acts on
// the answers: completions, retransmission, RNR waits, errors
// (tp_comp.cpp).
//
// The engine knows IBTA, not mlx5: send WQEs reach it parsed (tp_send_wr),
// memory, receive WQEs and completions through tp_ops (the data path's
// side: mkeys, the RQ/SRQ, CQEs), packets leave through a tp_link (the
// in-kernel link or RoCEv2 on the netdev) and come in through receive().
// Its caller holds the QP's lock around every call naming that QP.
#pragma once

#include "hca/ib_hdr.h"
#include "lib/status.h"

namespace scx::hca {

// The QPN packets give the port's GSI QP (QP1), whatever its own.
constexpr u32 gsi_wire_qpn = 1;

// dci: a DC initiator, a requester whose WQEs each name their target;
// dct: one of a DC target's responder contexts, serving one initiator at a
// time (DC: Mellanox's dynamically connected transport, tp_dc.cpp).
enum class tp_st : u8 { rc, uc, ud, dci, dct };

// Whether the service acknowledges (and so retransmits): RC and DC.
constexpr bool tp_acked(tp_st st) { return st == tp_st::rc || st == tp_st::dci || st == tp_st::dct; }
// Whether each WQE names its destination (an address vector: tp_send_wr's
// ud_av) rather than the QP's path.
constexpr bool tp_per_wqe_dest(tp_st st) { return st == tp_st::ud || st == tp_st::dci; }

// local: a WQE that sends nothing (NOP, UMR): run in its turn, in SQ order.
enum class tp_op : u8 { send, send_imm, send_inv, write, write_imm, read, cmp_swap, fetch_add, local };

// One send WQE as the transport needs it.
struct tp_send_wr {
	u16 index = 0;           // the SQ's WQE counter
	tp_op op = tp_op::send;
	bool solicited = false;
	bool fence = false;      // wait for earlier READs and atomics
	u32 len = 0;             // message bytes
	u32 imm = 0;             // ImmDt, or the R_Key a SEND_WITH_INV invalidates
	u64 raddr = 0;
	u32 rkey = 0;
	u64 swap_add = 0, compare = 0;
	u32 dest_qpn = 0, qkey = 0;   // UD; DC: dest_qpn is the DCT's number
	u64 dc_key = 0;               // DC: the access key the target checks
	// UD, DC: where to, for the link (mlx5's address vector; bytes it does
	// not use are zero: DC tells targets apart by it).
	u8 ud_av[48];
	u8 syndrome = 0;         // a WQE the data path refused: its error, nothing is sent
	u32 tag = 0;             // the data path's own (what its completion needs)
};

// The completion syndromes the engine reports (mlx5's, prm::cqe_syndrome).
namespace tp_synd {
constexpr u8 ok = 0;
constexpr u8 local_len = 0x01;
constexpr u8 local_qp_op = 0x02;
constexpr u8 local_prot = 0x04;
constexpr u8 wr_flush = 0x05;
constexpr u8 remote_inv_req = 0x12;
constexpr u8 remote_access = 0x13;
constexpr u8 remote_op = 0x14;
constexpr u8 retry_exc = 0x15;
constexpr u8 rnr_retry_exc = 0x16;
} // namespace tp_synd

// What a responder tells the data path about a finished receive.
namespace tp_recv_kind {
constexpr u8 send = 0;
constexpr u8 send_imm = 1;
constexpr u8 send_inv = 2;
constexpr u8 write_imm = 3;
} // namespace tp_recv_kind

struct tp_recv_done {
	u8 kind = tp_recv_kind::send;
	u8 l3 = 0;          // UD: 4 or 6, the GRH's IP version
	u32 len = 0;
	u32 imm = 0;        // or the invalidated R_Key
	u32 src_qp = 0;
	bool solicited = false;
	u8 syndrome = 0;    // a local error: an error CQE
};

// A WQE was taken (ok), and the send queue held nothing after it when
// looked at (last: the engine looks again only after a doorbell); none.
enum class tp_fetch : u8 { none, ok, last };
enum class tp_recv : u8 { none, ok, fault };

// Remote access the responder checks (mkey rights).
namespace tp_access {
constexpr u8 write = 1;
constexpr u8 read = 2;
constexpr u8 atomic = 4;
} // namespace tp_access

// Why a QP goes to ERR: a responder's NAK-worthy error (with the
// affiliated event it raises), a responder's local error (its error CQE
// says it), or a requester's failed WQE.
enum class tp_fatal : u8 { access, inval_req, local, requester };

struct tp_qp;

// Events the data path counts (mlx5's Q counters) beyond completions.
enum class tp_note : u8 {
	rnr_nak,          // an RNR NAK came, and the QP waits and retries
	rnr_nak_final,    // ... with no RNR retry left
	timeout,          // the ACK timer expired, and the QP retries
	timeout_final,    // ... with no retry left
	seq_nak_rcvd,     // a PSN sequence error NAK came
	implied_nak,      // an answer showed earlier READ/atomic data lost
	out_of_seq,       // the responder got a PSN ahead of the expected one
	dup_request,      // ... or one behind it
};

// The data path's side of the engine. Memory calls check keys, rights and
// bounds every time: a key may go away between two packets.
// A request's payload as the responder takes it: its bytes in the packet,
// or where the in-kernel link found them in the requester's memory
// (`src`, the link's own description, opaque here) from byte src_off.
struct tp_payload {
	const u8 *bytes = nullptr;
	const void *src = nullptr;
	u32 src_off = 0;
};

// On the in-kernel link a SEND or WRITE packet may name its payload
// instead of carrying it (one copy, as a NIC's internal loopback DMA):
// the requester's QP and incarnation, the WQE's place in its window and
// first PSN, and the packet's bytes in the message. The link checks all
// of it again when the packet is taken; a stale one is lost.
struct tp_payload_ref {
	u64 gen;
	u32 src_qpn;
	u32 slot;
	u32 psn;
	u32 off, len;
};

// Payloads shorter than this are copied into the packet: naming them
// costs about what copying them twice does.
inline constexpr u32 tp_ref_min = 512;

class tp_ops {
public:
	// The next send WQE of q's SQ (an error WQE has wr->syndrome set).
	virtual tp_fetch fetch_wqe(tp_qp &q, tp_send_wr *wr) = 0;
	// Bytes [off, off + len) of wr's message (its gather list or inline data).
	virtual bool gather(tp_qp &q, const tp_send_wr &wr, u32 off, u8 *dst, u32 len) = 0;
	// READ response data, or the 8 bytes an atomic returned, into wr's list.
	virtual bool scatter(tp_qp &q, const tp_send_wr &wr, u32 off, const u8 *src, u32 len) = 0;
	// wr is finished (syndrome 0: success), in SQ order.
	virtual void complete(tp_qp &q, const tp_send_wr &wr, u8 syndrome) = 0;
	// Runs a local WQE when its turn comes: 0 or its error syndrome.
	virtual u8 run_local(tp_qp &q, const tp_send_wr &wr) = 0;

	// The next receive WQE (RQ or SRQ): its handle and capacity in bytes.
	virtual tp_recv recv_take(tp_qp &q, u32 *handle, u32 *cap) = 0;
	virtual bool recv_scatter(tp_qp &q, u32 handle, u32 off, const tp_payload &src, u32 len) = 0;
	virtual void recv_complete(tp_qp &q, u32 handle, const tp_recv_done &d) = 0;
	// 0 or the NAK code (wire::aeth_synd) the access earns.
	virtual u8 remote_check(tp_qp &q, u32 rkey, u64 va, u32 len, u8 access) = 0;
	virtual u8 remote_write(tp_qp &q, u32 rkey, u64 va, const tp_payload &src, u32 len) = 0;
	virtual u8 remote_read(tp_qp &q, u32 rkey, u64 va, u8 *dst, u32 len) = 0;
	virtual u8 remote_atomic(tp_qp &q, const ib_hdr &h, u64 *orig) = 0;
	virtual bool invalidate(tp_qp &q, u32 rkey) = 0;

	// The first request on a QP in RTR (IBV_EVENT_COMM_EST).
	virtual void established(tp_qp &q) = 0;
	// q is in error now: the data path moves it to ERR and flushes.
	virtual void fatal(tp_qp &q, tp_fatal why) = 0;
	virtual void note(tp_qp &q, tp_note n) = 0;
	// q has packets to send or a timer: run send() for it soon.
	virtual void schedule(tp_qp &q) = 0;

protected:
	~tp_ops() = default;
};

// Where packets go.
class tp_link {
public:
	// Room for one IB part (BTH .. ICRC) of len bytes to route; null
	// when the link cannot take it now (the sender tries later).
	virtual u8 *tx_begin(tp_qp &q, const void *route, u32 len) = 0;
	// The packet tx_begin gave is written: send it. A tx_begin with no
	// tx_commit after it is abandoned (the next one may reuse the room).
	virtual void tx_commit(tp_qp &q) = 0;
	// Before the commit, instead of writing the payload: true if the
	// link carries it by reference (wr is the message it is part of).
	virtual bool tx_ref(tp_qp &, const tp_send_wr &, const tp_payload_ref &) { return false; }

protected:
	~tp_link() = default;
};

// What the link knows of a received packet beyond its IB part.
struct tp_rx_meta {
	const u8 *grh = nullptr;   // UD: the 40 bytes a receive starts with
	u8 l3 = 0;                 // 4 or 6
	// Set: the payload was carried by reference (the IB part holds no
	// payload bytes), resolved by the link.
	const void *ref_src = nullptr;
	u32 ref_off = 0, ref_len = 0;
};

// The counters of one QP (and, summed, of a port).
struct tp_counters {
	u64 tx_pkts, tx_bytes, rx_pkts, rx_bytes;
	u64 retrans_timeout, retrans_nak;     // retransmission rounds, by cause
	u64 seq_naks_sent, seq_naks_rcvd;
	u64 rnr_naks_sent, rnr_naks_rcvd;
	u64 dup_requests;                     // the responder saw a PSN again
	u64 out_of_seq;                       // packets ahead of the expected PSN
	u64 dropped;                          // packets no QP state accepts
	u64 bad_pkey;                         // dropped: the BTH's P_Key is not the QP's
	u64 malformed;                        // dropped: no valid header for this QP's
	                                      // service, or a payload past the path MTU
	                                      // (for QP1: past a MAD)
	u64 bad_qkey;                         // dropped: a datagram's Q_Key is not the QP's
};
// Adds one QP's counters to a sum (a port's totals).
void tp_counters_add(tp_counters &sum, const tp_counters &c);

// A WQE sent and not yet complete (the requester's window).
struct tp_flight {
	tp_send_wr wr;
	u32 psn = 0;         // its first PSN
	u32 npkts = 0;       // PSNs it takes (a READ: its responses; local: 0)
	bool started = false; // given its PSNs (or run, if local)
	u32 read_pkts = 0;   // READ responses placed so far
	u32 acked_pkts = 0;  // SEND/WRITE: packets an ACK covered so far
	bool acked = false;  // nothing more to hear for it
	u8 syndrome = 0;     // it failed: complete it with this
};

// A READ or atomic the responder executed, kept to answer a duplicate.
struct tp_rd_res {
	bool atomic = false;
	bool valid = false;
	u32 psn = 0, npkts = 0;
	u64 va = 0;
	u32 rkey = 0, len = 0;
	u64 orig = 0;         // atomic: the value returned
	u32 msn = 0;
};

struct tp_qp_attr {
	tp_st st = tp_st::rc;
	u32 qpn = 0, dest_qpn = 0;
	u32 mtu = 1024;           // path MTU, bytes
	u32 sq_psn = 0, rq_psn = 0;
	u8 retry_cnt = 7, rnr_retry = 7, min_rnr_timer = 0, timeout = 14;
	u8 max_rd_atomic = 1, max_dest_rd_atomic = 1;
	u8 log_ack_req_freq = 0;  // AckReq at least every 2^n packets (and on a last)
	u16 pkey = 0xffff;
	u32 qkey = 0;
	const void *route = nullptr;
};

// The transport state of one QP. The window (flights) and the responder
// resources are the owner's memory, sized when the QP is set up.
struct tp_qp {
	tp_qp_attr a;
	void *owner = nullptr;
	u64 gen = 0;              // the requester's incarnation (unique, from RTS)
	bool ready_req = false;   // RTS: the requester may send
	bool ready_resp = false;  // RTR or RTS: the responder accepts
	bool established = false;
	bool in_error = false;

	// Requester: the window is flights[head .. tail) (mod cap); the
	// cursor is the next packet to transmit, new or again.
	tp_flight *flights = nullptr;
	u32 flight_cap = 0, head = 0, tail = 0;
	u32 next_psn = 0;         // the PSN a new WQE starts at
	u32 cur = 0, cur_pkt = 0; // cursor: flight index, packet within
	u32 rd_outstanding = 0;   // READs and atomics in the window
	bool fetch_done = false;  // the SQ had nothing more at the last look
	bool halted = false;      // a WQE failed: nothing more is sent
	bool rewound = false;     // a retransmission from rewind_psn is under way
	u32 rewind_psn = 0;
	// DC: the PSN the current connection opened at (a DCI's, or the
	// initiator's for a DCT context).
	u32 dc_conn_psn = 0;
	u8 retry_left = 0, rnr_left = 0;
	u64 retry_at = 0;         // retransmission timer (0: off)
	u64 rnr_at = 0;           // RNR wait ends (0: not waiting)

	// Responder.
	u32 epsn = 0, msn = 0;
	bool nak_sent = false;    // a sequence NAK went out for epsn
	u8 in_msg = 0;            // 0 none, 1 SEND, 2 WRITE: a message in progress
	bool uc_drop = false;     // UC: the rest of a damaged message is dropped
	u32 recv_handle = 0, recv_cap = 0, recv_off = 0;
	bool have_recv = false;
	u64 wr_va = 0;            // WRITE in progress
	u32 wr_rkey = 0, wr_left = 0, wr_total = 0;
	// ACK / NAK to send: psn and syndrome (one coalesced answer).
	bool ack_pending = false;
	u32 ack_psn = 0;
	u8 ack_synd = 0;
	// A request failed behind READ responses / atomic ACKs still owed:
	// they go out first (the responder answers in order), then this NAK,
	// and the QP fails. Requests arriving meanwhile are dropped.
	bool nak_due = false;
	u32 nak_psn = 0;
	u8 nak_code = 0;
	tp_fatal nak_why = tp_fatal::access;
	// READs and atomics in arrival order, res[i % res_cap] for i in
	// [res_next - res_cap, res_next); those from res_tx on owe their
	// answer (READ responses from packet res_tx_pkt, numbered from
	// res_tx_start, or the atomic ACK). A duplicate rewinds res_tx; those
	// from res_fresh on were never answered (what the ring may not lose).
	tp_rd_res *res = nullptr;
	u32 res_cap = 0, res_next = 0, res_tx = 0, res_tx_pkt = 0, res_tx_start = 0, res_fresh = 0;

	tp_counters cnt{};
};

// A tp_qp with its window and responder resources in one allocation (null
// when memory is short), and its release.
tp_qp *tp_qp_new(u32 flight_cap, u32 res_cap);
void tp_qp_delete(tp_qp *q);
// Back to what a QP in RESET has (no PSNs, nothing in flight, counters kept).
void tp_qp_reset(tp_qp &q);

// 4.096 us << timeout: the local ACK timeout; 0 waits forever.
u64 tp_ack_timeout_ns(u8 timeout);
// The RNR NAK timer code in ns (IBTA table 45).
u64 tp_rnr_timer_ns(u8 code);
// Packets a message of len bytes takes at mtu (a zero-length one takes one).
constexpr u32 tp_npkts(u32 len, u32 mtu) { return len ? (len + mtu - 1) / mtu : 1; }
// An RC requester sends a SEND or WRITE packet at most this many PSNs past
// the oldest one still unanswered, and asks for an ACK at least every half
// of it. A slow responder (rdma_rxe on one vCPU) then has a window queued,
// not the whole SQ: its ACKs come back within the timeout, and going back
// resends a window at most. rdma_rxe's requester keeps the same bound.
inline constexpr u32 tp_window_log = 7;
inline constexpr u32 tp_window_pkts = 1u << tp_window_log;

class transport {
public:
	transport(tp_ops &ops, tp_link &link) : ops_(ops), link_(link) {}

	// After the QP's attributes are set (to RTR / RTS): starts its PSNs.
	static void start_responder(tp_qp &q);
	static void start_requester(tp_qp &q);

	// Sends what q has for the wire: answers first, then retransmissions
	// and new WQEs, at most budget packets. Returns the packets sent.
	u32 send(tp_qp &q, u64 now, u32 budget);
	// One received IB part (BTH .. ICRC, the ICRC already checked) for q,
	// which the caller found by the BTH's destination QP.
	void receive(tp_qp &q, const u8 *pkt, u32 len, const tp_rx_meta &m, u64 now);
	// New WQEs were posted (a doorbell): look at the SQ again.
	static void doorbell(tp_qp &q) { q.fetch_done = false; }
	// Expired timers of q (retransmission, RNR wait).
	void tick(tp_qp &q, u64 now);
	// The earliest time tick() has something to do for q (0: never).
	static u64 next_timer(const tp_qp &q);
	// Whether send() has something to do now.
	static bool has_tx(const tp_qp &q, u64 now);
	// Completes every WQE in the window with a flush error (the QP is in ERR).
	void flush(tp_qp &q);

private:
	// tp_dc.cpp
	static bool dc_may_start(const tp_qp &q, const tp_flight &f);
	static bool dc_admit(tp_qp &q, const ib_hdr &h, const ib_layout &l);
	// tp_req.cpp
	bool req_send_one(tp_qp &q, u64 now);
	bool req_fetch(tp_qp &q);
	bool req_emit(tp_qp &q, tp_flight &f, u64 now);
	bool req_run_local(tp_qp &q, tp_flight &f);
	bool req_emit_data(tp_qp &q, tp_flight &f);
	bool req_emit_read(tp_qp &q, tp_flight &f);
	bool req_emit_atomic(tp_qp &q, tp_flight &f);
	bool req_emit_request(tp_qp &q, const tp_flight &f, const ib_hdr &h);
	static bool req_may_start(const tp_qp &q, const tp_send_wr &wr);
	static bool req_window_open(const tp_qp &q, u32 psn);
	static u32 req_next_psn(const tp_qp &q, const tp_flight &f);
	static bool ack_req_due(const tp_qp &q, u32 psn);
	// tp_comp.cpp
	void comp_response(tp_qp &q, const ib_hdr &h, const ib_layout &l, const u8 *payload, u64 now);
	bool comp_ack_upto(tp_qp &q, u32 psn, bool inclusive, u32 *retry_psn, u64 now);
	void comp_retry_from(tp_qp &q, u32 psn, u64 now, bool timeout);
	bool comp_rewind(tp_qp &q, u32 psn);
	void comp_fail_at(tp_qp &q, u32 psn, u8 syndrome);
	void comp_read_data(tp_qp &q, const ib_hdr &h, const ib_layout &l, const u8 *payload, u64 now);
	void comp_atomic_ack(tp_qp &q, const ib_hdr &h, u64 now);
	void comp_aeth(tp_qp &q, const ib_hdr &h, u64 now);
	void comp_progress(tp_qp &q, u64 now);
	void comp_retire(tp_qp &q);
	// tp_resp.cpp
	void resp_request(tp_qp &q, const ib_hdr &h, const ib_layout &l, const tp_payload &payload);
	void resp_uc_request(tp_qp &q, const ib_hdr &h, const ib_layout &l, const tp_payload &payload);
	void resp_duplicate(tp_qp &q, const ib_hdr &h);
	bool resp_execute(tp_qp &q, const ib_hdr &h, const ib_layout &l, const tp_payload &payload);
	bool resp_send(tp_qp &q, const ib_hdr &h, const ib_layout &l, const tp_payload &payload);
	bool resp_write(tp_qp &q, const ib_hdr &h, const ib_layout &l, const tp_payload &payload);
	bool resp_read(tp_qp &q, const ib_hdr &h);
	bool resp_atomic(tp_qp &q, const ib_hdr &h);
	tp_rd_res *resp_new_res(tp_qp &q, const ib_hdr &h);
	void resp_keep_res(tp_qp &q, tp_rd_res &r, u32 npkts);
	void resp_refuse(tp_qp &q, u32 psn, u8 code);
	void resp_ud(tp_qp &q, const ib_hdr &h, const ib_layout &l, const u8 *payload, const tp_rx_meta &m);
	bool resp_take_recv(tp_qp &q, u32 psn);
	void resp_ack(tp_qp &q, u32 psn, u8 synd);
	void resp_nak(tp_qp &q, u32 psn, u8 code, tp_fatal why);
	void resp_nak_now(tp_qp &q, u32 psn, u8 code, tp_fatal why);
	void resp_fail(tp_qp &q, tp_fatal why);
	void resp_recv_error(tp_qp &q, u32 psn, u8 syndrome, u8 nak_code);
	bool resp_send_one(tp_qp &q);
	bool resp_emit_res(tp_qp &q);
	bool resp_emit_ack(tp_qp &q, u32 psn, u8 synd);

	// The packet being built: headers at buf, payload bytes after them;
	// *wire_len the IB part's whole length (pad and ICRC included).
	u8 *tx_begin(tp_qp &q, const void *route, const ib_hdr &h, u32 payload, u32 *hdr_len, u32 *wire_len);
	void tx_commit(tp_qp &q, u32 wire_len);

	tp_ops &ops_;
	tp_link &link_;
};

} // namespace scx::hca
