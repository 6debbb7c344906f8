// SPDX-License-Identifier: GPL-2.0
// The requester: send WQEs into the window, each cut into packets of at
// most the path MTU with consecutive PSNs; the cursor walks the window, so
// a retransmission (tp_comp.cpp moves the cursor back) sends the very
// packets again from the same WQEs. READs and atomics wait for their turn
// under max_rd_atomic, and a fenced WQE for every earlier one of them.
#include "hca/tp.h"

#include "lib/atomic.h"

namespace scx::hca {

namespace {

// Every requester's incarnation is told apart, across QPs and devices: a
// payload reference outlives neither its QP nor a reset of it.
constinit atomic<u64> requester_gens{0};

namespace op = wire::bth_op;
namespace tr = wire::bth_transport;

// What a requester of this service sends.
u8 transport_bits(tp_st st)
{
	switch (st) {
	case tp_st::uc: return tr::uc;
	case tp_st::ud: return tr::ud;
	case tp_st::dci: return tr::dc;
	default: return tr::rc;
	}
}

bool per_wqe_dest(tp_st st) { return tp_per_wqe_dest(st); }

bool is_rd_atomic(tp_op o) { return o == tp_op::read || o == tp_op::cmp_swap || o == tp_op::fetch_add; }

// The opcode of packet k of n of a SEND or WRITE.
u8 data_opcode(tp_op o, u32 k, u32 n)
{
	bool first = k == 0, last = k == n - 1;
	bool write = o == tp_op::write || o == tp_op::write_imm;
	if (first && last) {
		switch (o) {
		case tp_op::send_imm: return op::send_only_imm;
		case tp_op::send_inv: return op::send_only_inv;
		case tp_op::write: return op::write_only;
		case tp_op::write_imm: return op::write_only_imm;
		default: return op::send_only;
		}
	}
	if (first)
		return write ? op::write_first : op::send_first;
	if (!last)
		return write ? op::write_middle : op::send_middle;
	switch (o) {
	case tp_op::send_imm: return op::send_last_imm;
	case tp_op::send_inv: return op::send_last_inv;
	case tp_op::write: return op::write_last;
	case tp_op::write_imm: return op::write_last_imm;
	default: return op::send_last;
	}
}

// Where f's packets go: its own address vector (UD, DC) or the QP's path.
const void *route_of(const tp_qp &q, const tp_flight &f)
{
	return per_wqe_dest(q.a.st) ? static_cast<const void *>(f.wr.ud_av) : q.a.route;
}

// A DC request's DCETH: the key f presents, the DCI, and whether the
// packet opens the connection (every time it is sent).
void dc_fields(const tp_qp &q, const tp_flight &f, ib_hdr *h)
{
	if (q.a.st != tp_st::dci)
		return;
	h->dc_key = f.wr.dc_key;
	h->dci_qp = q.a.qpn;
	h->dc_connect = h->psn == q.dc_conn_psn;
}

} // namespace

u64 tp_ack_timeout_ns(u8 timeout)
{
	// 0 is "infinite" in IBTA; a lost packet would then hang the QP, so
	// the device retries once a second and never runs out.
	if (!timeout || timeout > 31)
		return 1000000000ull;
	return 4096ull << timeout;
}

u64 tp_rnr_timer_ns(u8 code)
{
	// IBTA table 45, in units of 10 us; code 0 is 655.36 ms.
	static constexpr u32 t10us[32] = {
		65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
	};
	return u64(t10us[code & 31]) * 10000;
}

void transport::start_requester(tp_qp &q)
{
	q.gen = requester_gens.fetch_add(1, mo::relaxed) + 1;
	q.next_psn = q.a.sq_psn & psn_mask;
	q.head = q.tail = q.cur = q.cur_pkt = 0;
	q.rd_outstanding = 0;
	q.retry_left = q.a.retry_cnt;
	q.rnr_left = q.a.rnr_retry;
	q.retry_at = q.rnr_at = 0;
	q.fetch_done = q.halted = q.rewound = false;
	q.ready_req = true;
}

u8 *transport::tx_begin(tp_qp &q, const void *route, const ib_hdr &h, u32 payload, u32 *hdr_len,
			u32 *wire_len)
{
	const ib_op_info *info = ib_op_lookup(h.opcode);
	u32 hl = ib_hdr_len(*info);
	u32 len = hl + payload + h.pad + wire::roce::icrc_bytes;
	u8 *buf = link_.tx_begin(q, route, len);
	if (!buf)
		return nullptr;
	ib_hdr_build(buf, h);
	// Pad and ICRC: zero here; the link writes the ICRC.
	zero_bytes(buf + hl + payload, h.pad + wire::roce::icrc_bytes);
	*hdr_len = hl;
	*wire_len = len;
	return buf;
}

void transport::tx_commit(tp_qp &q, u32 wire_len)
{
	q.cnt.tx_pkts++;
	q.cnt.tx_bytes += wire_len;
	link_.tx_commit(q);
}

// Within a long message the requester asks for an ACK every 2^n packets
// (at least every half window): each one is progress the retransmission
// timer sees, so a message that takes longer than the ACK timeout to send
// is not retried for it, and the window moves before it is used up.
bool transport::ack_req_due(const tp_qp &q, u32 psn)
{
	u32 mask = (1u << min<u32>(q.a.log_ack_req_freq, tp_window_log - 1)) - 1;
	return (psn_add(psn, 1) & mask) == 0;
}

// Whether a SEND or WRITE packet with psn is within tp_window_pkts of the
// oldest PSN still unanswered (UC and UD have no answers: no window).
bool transport::req_window_open(const tp_qp &q, u32 psn)
{
	if (!tp_acked(q.a.st))
		return true;
	for (u32 i = q.head; i != q.tail; i++) {
		const tp_flight &f = q.flights[i % q.flight_cap];
		if (!f.started)
			break;
		if (f.acked || f.syndrome)
			continue;
		return psn_diff(psn, psn_add(f.psn, f.read_pkts + f.acked_pkts)) < i32(tp_window_pkts);
	}
	return true;
}

// The PSN of f's next packet (the WQE at the cursor).
u32 transport::req_next_psn(const tp_qp &q, const tp_flight &f)
{
	return f.started ? psn_add(f.psn, max(q.cur_pkt, f.acked_pkts)) : q.next_psn;
}

bool transport::req_may_start(const tp_qp &q, const tp_send_wr &wr)
{
	if (is_rd_atomic(wr.op) && q.rd_outstanding >= max<u32>(1, q.a.max_rd_atomic))
		return false;
	return !wr.fence || q.rd_outstanding == 0;
}

// Takes the next WQE into the window (not started: no PSN yet).
bool transport::req_fetch(tp_qp &q)
{
	if (q.fetch_done || q.halted || q.tail - q.head == q.flight_cap)
		return false;
	tp_flight &f = q.flights[q.tail % q.flight_cap];
	f = tp_flight{};
	tp_fetch r = ops_.fetch_wqe(q, &f.wr);
	if (r == tp_fetch::none) {
		q.fetch_done = true;
		return false;
	}
	// Nothing after it: no turn just to find the queue empty.
	q.fetch_done = r == tp_fetch::last;
	q.tail++;
	return true;
}

bool transport::req_send_one(tp_qp &q, u64 now)
{
	if (!q.ready_req || q.in_error || q.halted || q.rnr_at)
		return false;
	// What an ACK covered while it was being sent again is not resent.
	while (q.cur != q.tail && q.flights[q.cur % q.flight_cap].acked) {
		q.cur++;
		q.cur_pkt = 0;
	}
	if (q.cur != q.tail)
		q.cur_pkt = max(q.cur_pkt, q.flights[q.cur % q.flight_cap].acked_pkts);
	if (q.cur == q.tail && !req_fetch(q))
		return false;
	return req_emit(q, q.flights[q.cur % q.flight_cap], now);
}

bool transport::req_emit(tp_qp &q, tp_flight &f, u64 now)
{
	if (f.wr.syndrome) {
		// Refused by the data path: it fails in its turn, and nothing
		// after it is sent.
		f.syndrome = f.wr.syndrome;
		q.halted = true;
		q.cur++;
		comp_retire(q);
		return false;
	}
	if (f.wr.op == tp_op::local)
		return req_run_local(q, f);
	if (!is_rd_atomic(f.wr.op) && !req_window_open(q, req_next_psn(q, f)))
		return false;
	if (!f.started) {
		if (!req_may_start(q, f.wr) || (q.a.st == tp_st::dci && !dc_may_start(q, f)))
			return false;
		f.started = true;
		f.psn = q.next_psn;
		if (q.a.st == tp_st::dci && q.head == q.cur)
			q.dc_conn_psn = f.psn;   // it opens a connection
		f.npkts = f.wr.op == tp_op::cmp_swap || f.wr.op == tp_op::fetch_add ? 1 : tp_npkts(f.wr.len, q.a.mtu);
		q.next_psn = psn_add(q.next_psn, f.npkts);
		if (is_rd_atomic(f.wr.op))
			q.rd_outstanding++;
	}
	bool sent;
	switch (f.wr.op) {
	case tp_op::read:
		sent = req_emit_read(q, f);
		break;
	case tp_op::cmp_swap:
	case tp_op::fetch_add:
		sent = req_emit_atomic(q, f);
		break;
	default:
		sent = req_emit_data(q, f);
		break;
	}
	if (!sent)
		return false;
	if (tp_acked(q.a.st)) {
		if (!q.retry_at)
			q.retry_at = now + tp_ack_timeout_ns(q.a.timeout);
	} else if (q.cur_pkt == 0) {
		// UC and UD: a message is done once its last packet is out.
		f.acked = true;
		comp_retire(q);
	}
	return true;
}

// A local WQE when the cursor reaches it (a fenced one once the READs and
// atomics before it are answered): it takes no PSN, and is done at once.
bool transport::req_run_local(tp_qp &q, tp_flight &f)
{
	if (!req_may_start(q, f.wr))
		return false;
	f.started = true;
	f.psn = q.next_psn;
	f.syndrome = ops_.run_local(q, f.wr);
	f.acked = !f.syndrome;
	if (f.syndrome)
		q.halted = true;
	q.cur++;
	q.cur_pkt = 0;
	comp_retire(q);
	return true;
}

// Packet cur_pkt of a SEND or WRITE; moves the cursor past it.
bool transport::req_emit_data(tp_qp &q, tp_flight &f)
{
	u32 k = q.cur_pkt;
	u32 off = k * q.a.mtu;
	u32 plen = min(q.a.mtu, f.wr.len - off);
	ib_hdr h;
	h.opcode = u8(transport_bits(q.a.st) | data_opcode(f.wr.op, k, f.npkts));
	bool last = k == f.npkts - 1;
	h.se = last && f.wr.solicited;
	h.ack_req = tp_acked(q.a.st) && (last || ack_req_due(q, psn_add(f.psn, k)));
	h.pad = u8(-plen & 3);
	h.pkey = q.a.pkey;
	h.psn = psn_add(f.psn, k);
	h.dest_qp = per_wqe_dest(q.a.st) ? f.wr.dest_qpn : q.a.dest_qpn;
	dc_fields(q, f, &h);
	h.qkey = f.wr.qkey;
	h.src_qp = q.a.qpn;
	h.va = f.wr.raddr;
	h.rkey = f.wr.rkey;
	h.dma_len = f.wr.len;
	h.imm = f.wr.imm;
	h.inv_rkey = f.wr.imm;
	u32 hl, wl;
	u8 *buf = tx_begin(q, route_of(q, f), h, plen, &hl, &wl);
	if (!buf)
		return false;
	tp_payload_ref ref{q.gen, q.a.qpn, q.cur, f.psn, off, plen};
	bool by_ref = plen >= tp_ref_min && link_.tx_ref(q, f.wr, ref);
	if (plen && !by_ref && !ops_.gather(q, f.wr, off, buf + hl, plen)) {
		// The gather list stopped being valid under a WQE in flight:
		// the packet is not sent (tx_begin's buffer is reused).
		f.syndrome = tp_synd::local_prot;
		q.halted = true;
		comp_retire(q);
		return false;
	}
	tx_commit(q, wl);
	if (last) {
		q.cur++;
		q.cur_pkt = 0;
	} else {
		q.cur_pkt++;
	}
	return true;
}

// A request with no payload (READ, atomic): sent, the cursor past its WQE.
bool transport::req_emit_request(tp_qp &q, const tp_flight &f, const ib_hdr &h)
{
	u32 hl, wl;
	if (!tx_begin(q, route_of(q, f), h, 0, &hl, &wl))
		return false;
	tx_commit(q, wl);
	q.cur++;
	q.cur_pkt = 0;
	return true;
}

// The READ request for what has not arrived yet (all of it the first time).
bool transport::req_emit_read(tp_qp &q, tp_flight &f)
{
	u32 off = f.read_pkts * q.a.mtu;
	ib_hdr h;
	h.opcode = transport_bits(q.a.st) | op::read_request;
	h.ack_req = true;
	h.pkey = q.a.pkey;
	h.dest_qp = per_wqe_dest(q.a.st) ? f.wr.dest_qpn : q.a.dest_qpn;
	h.psn = psn_add(f.psn, f.read_pkts);
	dc_fields(q, f, &h);
	h.va = f.wr.raddr + off;
	h.rkey = f.wr.rkey;
	h.dma_len = f.wr.len - off;
	return req_emit_request(q, f, h);
}

bool transport::req_emit_atomic(tp_qp &q, tp_flight &f)
{
	ib_hdr h;
	h.opcode = transport_bits(q.a.st) | (f.wr.op == tp_op::cmp_swap ? op::cmp_swap : op::fetch_add);
	h.ack_req = true;
	h.pkey = q.a.pkey;
	h.dest_qp = per_wqe_dest(q.a.st) ? f.wr.dest_qpn : q.a.dest_qpn;
	h.psn = f.psn;
	dc_fields(q, f, &h);
	h.va = f.wr.raddr;
	h.rkey = f.wr.rkey;
	h.swap_add = f.wr.swap_add;
	h.compare = f.wr.compare;
	return req_emit_request(q, f, h);
}

u32 transport::send(tp_qp &q, u64 now, u32 budget)
{
	u32 n = 0;
	while (n < budget && (resp_send_one(q) || req_send_one(q, now)))
		n++;
	return n;
}

bool transport::has_tx(const tp_qp &q, u64 now)
{
	if (q.ack_pending || q.res_tx != q.res_next || q.nak_due)
		return true;
	if (!q.ready_req || q.in_error || q.halted || (q.rnr_at && now < q.rnr_at))
		return false;
	// A WQE that must wait for answers (the READ/atomic limit, a fence, a
	// full window) is not work: the answer that frees it schedules the QP.
	if (q.cur == q.tail)
		return !q.fetch_done && q.tail - q.head < q.flight_cap && req_window_open(q, q.next_psn);
	const tp_flight &f = q.flights[q.cur % q.flight_cap];
	if (f.acked || f.wr.syndrome)
		return true;
	if (!f.started && (!req_may_start(q, f.wr) || (q.a.st == tp_st::dci && !dc_may_start(q, f))))
		return false;
	return f.wr.op == tp_op::local || is_rd_atomic(f.wr.op) || req_window_open(q, req_next_psn(q, f));
}

} // namespace scx::hca
