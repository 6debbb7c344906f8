// SPDX-License-Identifier: GPL-2.0
// The responder: requests in PSN order. The expected PSN executes; one
// ahead of it earns a single sequence NAK until the expected one comes;
// one behind is a duplicate — a SEND or WRITE is acknowledged again, a
// READ or atomic answered again from its saved resource (an atomic is
// never executed twice). Errors a requester can be told of are NAKed; UC
// drops what it cannot take; UD checks the Q_Key and takes one packet.
// ACKs are coalesced: one pending answer, sent with the QP's next packets.
#include "hca/tp.h"

namespace scx::hca {

namespace {

namespace op = wire::bth_op;
namespace tr = wire::bth_transport;
namespace sy = wire::aeth_synd;

constexpr u8 ack_synd = sy::ack | sy::credits_invalid;
constexpr u32 max_dma_len = 1u << 31;
constexpr u32 grh_bytes = 40;
// QP1 (GSI) carries MADs: 256 bytes, never more (max_mad_size).
constexpr u32 mad_bytes = 256;

u8 read_resp_opcode(u32 k, u32 start, u32 n)
{
	bool first = k == start, last = k == n - 1;
	if (first && last)
		return op::read_resp_only;
	return first ? op::read_resp_first : last ? op::read_resp_last : op::read_resp_middle;
}

} // namespace

void transport::start_responder(tp_qp &q)
{
	q.epsn = q.a.rq_psn & psn_mask;
	q.msn = 0;
	q.nak_sent = q.uc_drop = q.have_recv = q.ack_pending = q.nak_due = false;
	q.in_msg = 0;
	q.res_next = q.res_tx = q.res_tx_pkt = q.res_tx_start = q.res_fresh = 0;
	for (u32 i = 0; i < q.res_cap; i++)
		q.res[i] = tp_rd_res{};
	q.ready_resp = true;
}

void transport::resp_ack(tp_qp &q, u32 psn, u8 synd)
{
	// A pending NAK says all an ACK would (it acknowledges what precedes
	// its PSN) and more: it is not replaced by one.
	if (q.ack_pending && (q.ack_synd & sy::kind_mask) != sy::ack && (synd & sy::kind_mask) == sy::ack)
		return;
	q.ack_pending = true;
	q.ack_psn = psn;
	q.ack_synd = synd;
}

void transport::resp_request(tp_qp &q, const ib_hdr &h, const ib_layout &l, const tp_payload &payload)
{
	i32 d = psn_diff(h.psn, q.epsn);
	if (d > 0) {
		q.cnt.out_of_seq++;
		ops_.note(q, tp_note::out_of_seq);
		if (!q.nak_sent) {
			q.nak_sent = true;
			q.cnt.seq_naks_sent++;
			resp_ack(q, q.epsn, sy::nak | sy::psn_seq_err);
		}
		return;
	}
	if (d < 0) {
		q.cnt.dup_requests++;
		ops_.note(q, tp_note::dup_request);
		resp_duplicate(q, h);
		return;
	}
	q.nak_sent = false;
	resp_execute(q, h, l, payload);
}

// UC: a gap loses the message it cut (its receive WQE serves the next
// one); packets of a message whose start was lost are dropped.
void transport::resp_uc_request(tp_qp &q, const ib_hdr &h, const ib_layout &l, const tp_payload &payload)
{
	i32 d = psn_diff(h.psn, q.epsn);
	if (d < 0) {
		q.cnt.dup_requests++;
		ops_.note(q, tp_note::dup_request);
		return;
	}
	bool first = l.op->kind & ib_kind::first;
	if (d > 0) {
		q.cnt.out_of_seq++;
		ops_.note(q, tp_note::out_of_seq);
	}
	if (d > 0 || (q.in_msg && first)) {
		q.in_msg = 0;
		q.recv_off = 0;
	}
	q.epsn = h.psn;
	if (!q.in_msg && !first) {
		q.cnt.dropped++;
		q.epsn = psn_add(h.psn, 1);
		return;
	}
	if (!resp_execute(q, h, l, payload) && !q.in_error) {
		q.in_msg = 0;
		q.recv_off = 0;
		q.epsn = psn_add(h.psn, 1);
	}
}

void transport::resp_duplicate(tp_qp &q, const ib_hdr &h)
{
	const ib_op_info *info = ib_op_lookup(h.opcode);
	if (!(info->kind & (ib_kind::read | ib_kind::atomic))) {
		// Done already: say again how far we are.
		resp_ack(q, psn_add(q.epsn, psn_mask), ack_synd);
		return;
	}
	u32 kept = min(q.res_cap, q.res_next);
	for (u32 n = 0; n < kept; n++) {
		u32 i = q.res_next - 1 - n;
		tp_rd_res &r = q.res[i % q.res_cap];
		i32 d = psn_diff(h.psn, r.psn);
		if (!r.valid || d < 0 || u32(d) >= r.npkts || r.atomic != bool(info->kind & ib_kind::atomic))
			continue;
		// Answer it again from that packet, and what followed it (the
		// requester goes back N: it asks for those again too).
		bool later = i32(i - q.res_tx) > 0 || (i == q.res_tx && u32(d) >= q.res_tx_pkt);
		if (!later) {
			q.res_tx = i;
			q.res_tx_pkt = q.res_tx_start = u32(d);
		}
		return;
	}
	q.cnt.dropped++;   // older than the resources kept: it times out
}

// The expected PSN: executes it. false: not taken (NAKed, RNR, dropped).
bool transport::resp_execute(tp_qp &q, const ib_hdr &h, const ib_layout &l, const tp_payload &payload)
{
	u16 kind = l.op->kind;
	bool first = kind & ib_kind::first;
	// Inside a message only its own middle and last packets; outside it
	// only a first or only packet (IBTA 9.7.5.2.5).
	bool in_order = q.in_msg ? !first && ((q.in_msg == 1 && (kind & ib_kind::send)) ||
					      (q.in_msg == 2 && (kind & ib_kind::write))) :
				   first;
	if (!in_order) {
		resp_nak(q, h.psn, sy::invalid_request, tp_fatal::inval_req);
		return false;
	}
	if (kind & ib_kind::send)
		return resp_send(q, h, l, payload);
	if (kind & ib_kind::write)
		return resp_write(q, h, l, payload);
	if (kind & ib_kind::read)
		return resp_read(q, h);
	return resp_atomic(q, h);
}

bool transport::resp_take_recv(tp_qp &q, u32 psn)
{
	if (q.have_recv)
		return true;
	u32 handle = 0, cap = 0;
	switch (ops_.recv_take(q, &handle, &cap)) {
	case tp_recv::ok:
		q.have_recv = true;
		q.recv_handle = handle;
		q.recv_cap = cap;
		q.recv_off = 0;
		return true;
	case tp_recv::fault:
		q.have_recv = true;
		q.recv_handle = handle;
		resp_recv_error(q, psn, tp_synd::local_prot, sy::remote_op);
		return false;
	case tp_recv::none:
		break;
	}
	if (tp_acked(q.a.st)) {
		// Until the request comes again, what follows it is dropped
		// without a sequence NAK (that would override this one).
		q.nak_sent = true;
		q.cnt.rnr_naks_sent++;
		resp_ack(q, psn, sy::rnr_nak | (q.a.min_rnr_timer & sy::value_mask));
	}
	return false;
}

bool transport::resp_send(tp_qp &q, const ib_hdr &h, const ib_layout &l, const tp_payload &payload)
{
	u16 kind = l.op->kind;
	bool last = kind & ib_kind::last;
	u32 plen = l.payload_len;
	if (plen > q.a.mtu || (!last && plen != q.a.mtu)) {
		resp_nak(q, h.psn, sy::invalid_request, tp_fatal::inval_req);
		return false;
	}
	if ((kind & ib_kind::first) && !resp_take_recv(q, h.psn))
		return false;
	if (u64(q.recv_off) + plen > q.recv_cap) {
		resp_recv_error(q, h.psn, tp_synd::local_len, sy::invalid_request);
		return false;
	}
	if (plen && !ops_.recv_scatter(q, q.recv_handle, q.recv_off, payload, plen)) {
		resp_recv_error(q, h.psn, tp_synd::local_prot, sy::remote_op);
		return false;
	}
	q.recv_off += plen;
	q.in_msg = last ? 0 : 1;
	if (last) {
		bool inv = l.op->ext & ib_ext::ieth, imm = l.op->ext & ib_ext::immdt;
		// SEND with invalidate frees the responder's key it names.
		if (inv && !ops_.invalidate(q, h.inv_rkey)) {
			resp_recv_error(q, h.psn, tp_synd::remote_inv_req, sy::invalid_request);
			return false;
		}
		tp_recv_done d;
		d.kind = inv ? tp_recv_kind::send_inv : imm ? tp_recv_kind::send_imm : tp_recv_kind::send;
		d.len = q.recv_off;
		d.imm = inv ? h.inv_rkey : h.imm;
		d.src_qp = q.a.dest_qpn;
		d.solicited = h.se;
		q.have_recv = false;
		ops_.recv_complete(q, q.recv_handle, d);
		q.msn = psn_add(q.msn, 1);
	}
	q.epsn = psn_add(q.epsn, 1);
	if (h.ack_req)
		resp_ack(q, h.psn, ack_synd);
	return true;
}

bool transport::resp_write(tp_qp &q, const ib_hdr &h, const ib_layout &l, const tp_payload &payload)
{
	u16 kind = l.op->kind;
	bool last = kind & ib_kind::last, imm = l.op->ext & ib_ext::immdt;
	if (kind & ib_kind::first) {
		u8 c = h.dma_len > max_dma_len ? sy::invalid_request :
						 ops_.remote_check(q, h.rkey, h.va, h.dma_len, tp_access::write);
		if (c) {
			resp_refuse(q, h.psn, c);
			return false;
		}
		q.wr_va = h.va;
		q.wr_rkey = h.rkey;
		q.wr_left = q.wr_total = h.dma_len;
	}
	u32 plen = l.payload_len;
	if (last ? plen != q.wr_left : (plen != q.a.mtu || q.wr_left <= q.a.mtu)) {
		resp_nak(q, h.psn, sy::invalid_request, tp_fatal::inval_req);
		return false;
	}
	// The immediate needs a receive WQE: without one, RNR before any byte
	// of this packet is placed.
	if (imm && !resp_take_recv(q, h.psn))
		return false;
	if (plen) {
		u8 c = ops_.remote_write(q, q.wr_rkey, q.wr_va, payload, plen);
		if (c) {
			resp_nak(q, h.psn, c, tp_fatal::access);
			return false;
		}
	}
	q.wr_va += plen;
	q.wr_left -= plen;
	q.in_msg = last ? 0 : 2;
	if (last && imm) {
		tp_recv_done d;
		d.kind = tp_recv_kind::write_imm;
		d.len = q.wr_total;
		d.imm = h.imm;
		d.src_qp = q.a.dest_qpn;
		d.solicited = h.se;
		q.have_recv = false;
		ops_.recv_complete(q, q.recv_handle, d);
	}
	if (last)
		q.msn = psn_add(q.msn, 1);
	q.epsn = psn_add(q.epsn, 1);
	if (h.ack_req)
		resp_ack(q, h.psn, ack_synd);
	return true;
}

// A resource for a new READ or atomic. null: every one still owes its
// first answer (the requester exceeded max_dest_rd_atomic): NAKed.
tp_rd_res *transport::resp_new_res(tp_qp &q, const ib_hdr &h)
{
	if (q.res_next - q.res_fresh >= q.res_cap) {
		resp_nak(q, h.psn, sy::invalid_request, tp_fatal::inval_req);
		return nullptr;
	}
	// A re-answer still due for the slot taken now is dropped.
	if (q.res_next >= q.res_cap && i32(q.res_tx - (q.res_next - q.res_cap)) <= 0) {
		q.res_tx = q.res_next - q.res_cap + 1;
		q.res_tx_pkt = q.res_tx_start = 0;
	}
	tp_rd_res &r = q.res[q.res_next % q.res_cap];
	r = tp_rd_res{};
	r.valid = true;
	r.psn = h.psn;
	return &r;
}

// A READ or atomic executed: its resource kept for the answer (and a
// duplicate), the message counted, the PSNs its answer takes consumed.
void transport::resp_keep_res(tp_qp &q, tp_rd_res &r, u32 npkts)
{
	r.npkts = npkts;
	q.msn = psn_add(q.msn, 1);
	r.msn = q.msn;
	q.res_next++;
	q.epsn = psn_add(r.psn, npkts);
}

// A first packet's memory check failed: NAKed, with the event its kind raises.
void transport::resp_refuse(tp_qp &q, u32 psn, u8 code)
{
	resp_nak(q, psn, code, code == sy::remote_access ? tp_fatal::access : tp_fatal::inval_req);
}

bool transport::resp_read(tp_qp &q, const ib_hdr &h)
{
	u8 c = h.dma_len > max_dma_len ? sy::invalid_request :
					 ops_.remote_check(q, h.rkey, h.va, h.dma_len, tp_access::read);
	if (c) {
		resp_refuse(q, h.psn, c);
		return false;
	}
	tp_rd_res *r = resp_new_res(q, h);
	if (!r)
		return false;
	r->va = h.va;
	r->rkey = h.rkey;
	r->len = h.dma_len;
	resp_keep_res(q, *r, tp_npkts(h.dma_len, q.a.mtu));
	return true;
}

bool transport::resp_atomic(tp_qp &q, const ib_hdr &h)
{
	u8 c = h.va & 7 ? sy::invalid_request : ops_.remote_check(q, h.rkey, h.va, 8, tp_access::atomic);
	if (c) {
		resp_refuse(q, h.psn, c);
		return false;
	}
	tp_rd_res *r = resp_new_res(q, h);
	if (!r)
		return false;
	c = ops_.remote_atomic(q, h, &r->orig);
	if (c) {
		r->valid = false;
		resp_nak(q, h.psn, c, tp_fatal::access);
		return false;
	}
	r->atomic = true;
	resp_keep_res(q, *r, 1);
	return true;
}

void transport::resp_ud(tp_qp &q, const ib_hdr &h, const ib_layout &l, const u8 *payload, const tp_rx_meta &m)
{
	u32 plen = l.payload_len;
	// A datagram larger than a MAD is no MAD: QP1 drops it before it
	// takes a receive (ib_mad would not post that one again).
	if (h.qkey != q.a.qkey) {
		q.cnt.bad_qkey++;
		return;
	}
	if (plen > q.a.mtu || !m.grh || (q.a.qpn == gsi_wire_qpn && plen > mad_bytes)) {
		q.cnt.malformed++;
		return;
	}
	u32 handle = 0, cap = 0;
	tp_recv r = ops_.recv_take(q, &handle, &cap);
	if (r == tp_recv::none) {
		q.cnt.dropped++;   // UD has no RNR: the datagram is lost
		return;
	}
	tp_recv_done d;
	d.kind = (l.op->ext & ib_ext::immdt) ? tp_recv_kind::send_imm : tp_recv_kind::send;
	d.imm = h.imm;
	d.src_qp = h.src_qp;
	d.solicited = h.se;
	d.l3 = m.l3;
	d.len = grh_bytes + plen;
	if (r == tp_recv::fault)
		d.syndrome = tp_synd::local_prot;
	else if (u64(grh_bytes) + plen > cap)
		d.syndrome = tp_synd::local_len;
	else if (!ops_.recv_scatter(q, handle, 0, tp_payload{m.grh}, grh_bytes) ||
		 (plen && !ops_.recv_scatter(q, handle, grh_bytes, tp_payload{payload}, plen)))
		d.syndrome = tp_synd::local_prot;
	ops_.recv_complete(q, handle, d);
}

// The receive WQE in use failed: its error CQE; RC NAKs the request, and
// RC and UC responders go to error.
void transport::resp_recv_error(tp_qp &q, u32 psn, u8 syndrome, u8 nak_code)
{
	tp_recv_done d;
	d.syndrome = syndrome;
	q.have_recv = false;
	ops_.recv_complete(q, q.recv_handle, d);
	if (tp_acked(q.a.st))
		resp_emit_ack(q, psn, sy::nak | nak_code);
	resp_fail(q, tp_fatal::local);
}

// An error the requester is told of (RC) and that ends this QP; UC has
// no NAK and drops the message instead. Answers owed to earlier READs and
// atomics go first: the requester must not see the NAK before them (it
// would take their data for lost).
void transport::resp_nak(tp_qp &q, u32 psn, u8 code, tp_fatal why)
{
	if (!tp_acked(q.a.st))
		return;
	if (q.res_tx == q.res_next) {
		resp_nak_now(q, psn, code, why);
		return;
	}
	q.nak_due = true;
	q.nak_psn = psn;
	q.nak_code = code;
	q.nak_why = why;
}

void transport::resp_nak_now(tp_qp &q, u32 psn, u8 code, tp_fatal why)
{
	q.nak_due = false;
	// Sent now: the flush that follows forgets pending answers.
	resp_emit_ack(q, psn, sy::nak | code);
	resp_fail(q, why);
}

void transport::resp_fail(tp_qp &q, tp_fatal why)
{
	ops_.fatal(q, why);
	flush(q);
}

bool transport::resp_send_one(tp_qp &q)
{
	if (q.res_tx != q.res_next)
		return resp_emit_res(q);
	if (q.nak_due) {
		resp_nak_now(q, q.nak_psn, q.nak_code, q.nak_why);
		return false;
	}
	if (!q.ack_pending || !resp_emit_ack(q, q.ack_psn, q.ack_synd))
		return false;
	q.ack_pending = false;
	return true;
}

bool transport::resp_emit_ack(tp_qp &q, u32 psn, u8 synd)
{
	ib_hdr h;
	h.opcode = tr::rc | op::ack;
	h.pkey = q.a.pkey;
	h.dest_qp = q.a.dest_qpn;
	h.psn = psn;
	h.syndrome = synd;
	h.msn = q.msn;
	u32 hl, wl;
	if (!tx_begin(q, q.a.route, h, 0, &hl, &wl))
		return false;
	tx_commit(q, wl);
	return true;
}

// The next packet owed for res[res_tx]: a READ response or an atomic ACK.
bool transport::resp_emit_res(tp_qp &q)
{
	tp_rd_res &r = q.res[q.res_tx % q.res_cap];
	u32 k = q.res_tx_pkt;
	u32 off = r.atomic ? 0 : k * q.a.mtu;
	u32 plen = r.atomic ? 0 : min(q.a.mtu, r.len - off);
	ib_hdr h;
	h.opcode = tr::rc | (r.atomic ? op::atomic_ack : read_resp_opcode(k, q.res_tx_start, r.npkts));
	h.pkey = q.a.pkey;
	h.dest_qp = q.a.dest_qpn;
	h.psn = psn_add(r.psn, k);
	h.pad = u8(-plen & 3);
	h.syndrome = ack_synd;
	h.msn = r.msn;
	h.orig = r.orig;
	u32 hl, wl;
	u8 *buf = tx_begin(q, q.a.route, h, plen, &hl, &wl);
	if (!buf)
		return false;
	if (plen) {
		// The key is checked again for every packet: it may be gone.
		u8 c = ops_.remote_read(q, r.rkey, r.va + off, buf + hl, plen);
		if (c) {
			resp_nak_now(q, h.psn, c, tp_fatal::access);
			return false;
		}
	}
	tx_commit(q, wl);
	if (++q.res_tx_pkt >= r.npkts) {
		q.res_tx++;
		q.res_tx_pkt = q.res_tx_start = 0;
		if (i32(q.res_tx - q.res_fresh) > 0)
			q.res_fresh = q.res_tx;
	}
	return true;
}

} // namespace scx::hca
