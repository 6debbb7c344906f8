// SPDX-License-Identifier: GPL-2.0
// What comes in goes to the role it is for: requests to the responder,
// answers to the completer; what no QP state accepts is dropped and
// counted. Timers and the flush of a QP in error.
#include "hca/tp.h"

#include "lib/new.h"

namespace scx::hca {

namespace {

namespace tr = wire::bth_transport;

// What a QP of this service receives: a DCI gets RC's answers, a DCT's
// context DC's requests.
u8 transport_bits(tp_st st)
{
	switch (st) {
	case tp_st::rc:
	case tp_st::dci: return tr::rc;
	case tp_st::uc: return tr::uc;
	case tp_st::ud: return tr::ud;
	case tp_st::dct: return tr::dc;
	}
	return tr::rc;
}

// IBTA 10.9.3: the low 15 bits match and one side is a full member.
bool pkey_match(u16 a, u16 b)
{
	return (a & 0x7fff) && (a & 0x7fff) == (b & 0x7fff) && ((a | b) & 0x8000);
}

} // namespace

tp_qp *tp_qp_new(u32 flight_cap, u32 res_cap)
{
	usize bytes = sizeof(tp_qp) + sizeof(tp_flight) * flight_cap + sizeof(tp_rd_res) * res_cap;
	void *mem = alloc_bytes(bytes);
	if (!mem)
		return nullptr;
	tp_qp *q = new (mem) tp_qp;
	q->flights = new (q + 1) tp_flight[flight_cap];
	q->res = new (q->flights + flight_cap) tp_rd_res[res_cap];
	q->flight_cap = flight_cap;
	q->res_cap = res_cap;
	return q;
}

void tp_qp_delete(tp_qp *q)
{
	free_bytes(q);
}

void tp_qp_reset(tp_qp &q)
{
	tp_flight *flights = q.flights;
	tp_rd_res *res = q.res;
	u32 fc = q.flight_cap, rc = q.res_cap;
	tp_counters cnt = q.cnt;
	void *owner = q.owner;
	q = tp_qp{};
	q.flights = flights;
	q.res = res;
	q.flight_cap = fc;
	q.res_cap = rc;
	q.cnt = cnt;
	q.owner = owner;
}

void transport::receive(tp_qp &q, const u8 *pkt, u32 len, const tp_rx_meta &m, u64 now)
{
	ib_hdr h;
	ib_layout l;
	// What no packet for this QP can be is dropped before any state is
	// looked at (a NIC's parser): not a header of the QP's service, a
	// payload no path MTU allows, another partition's P_Key.
	if (ib_hdr_parse(pkt, len, &h, &l) != ib_malformed::none ||
	    (h.opcode & tr::mask) != transport_bits(q.a.st) || l.payload_len > q.a.mtu) {
		q.cnt.malformed++;
		return;
	}
	if (!pkey_match(h.pkey, q.a.pkey)) {
		q.cnt.bad_pkey++;
		return;
	}
	// Only an RC request's payload comes by reference (RC alone keeps the
	// requester's memory until the answer): nothing else may look for
	// bytes the packet does not hold.
	if (m.ref_src && (!(l.op->kind & ib_kind::request) || q.a.st != tp_st::rc || l.payload_len != m.ref_len)) {
		q.cnt.malformed++;
		return;
	}
	q.cnt.rx_pkts++;
	q.cnt.rx_bytes += len;
	const u8 *payload = pkt + l.hdr_len;
	tp_payload pl{payload};
	if (m.ref_src)
		pl = tp_payload{nullptr, m.ref_src, m.ref_off};
	if (l.op->kind & ib_kind::request) {
		// A DCI answers nobody; a DCT context only its initiator.
		if (q.a.st == tp_st::dci || (q.a.st == tp_st::dct && !dc_admit(q, h, l))) {
			q.cnt.dropped++;
			return;
		}
		if (!q.ready_resp || q.in_error || q.nak_due) {
			q.cnt.dropped++;
			return;
		}
		if (!q.established) {
			q.established = true;
			ops_.established(q);
		}
		if (q.a.st == tp_st::ud)
			resp_ud(q, h, l, payload, m);
		else if (q.a.st == tp_st::uc)
			resp_uc_request(q, h, l, pl);
		else
			resp_request(q, h, l, pl);
	} else if ((q.a.st == tp_st::rc || q.a.st == tp_st::dci) && q.ready_req && !q.in_error) {
		comp_response(q, h, l, payload, now);
	} else {
		q.cnt.dropped++;
		return;
	}
	if (!q.in_error && has_tx(q, now))
		ops_.schedule(q);
}

void transport::tick(tp_qp &q, u64 now)
{
	if (q.in_error)
		return;
	if (q.rnr_at && now >= q.rnr_at) {
		q.rnr_at = 0;
		ops_.schedule(q);
	}
	if (!q.retry_at || now < q.retry_at)
		return;
	// The oldest packet still unanswered goes again.
	for (u32 i = q.head; i != q.tail; i++) {
		tp_flight &f = q.flights[i % q.flight_cap];
		if (!f.started)
			break;
		if (f.acked || f.syndrome)
			continue;
		comp_retry_from(q, psn_add(f.psn, f.read_pkts + f.acked_pkts), now, true);
		return;
	}
	q.retry_at = 0;
}

u64 transport::next_timer(const tp_qp &q)
{
	if (q.in_error)
		return 0;
	if (q.rnr_at && (!q.retry_at || q.rnr_at < q.retry_at))
		return q.rnr_at;
	return q.retry_at;
}

void transport::flush(tp_qp &q)
{
	q.in_error = true;
	q.ready_req = q.ready_resp = false;
	for (; q.head != q.tail; q.head++)
		ops_.complete(q, q.flights[q.head % q.flight_cap].wr, tp_synd::wr_flush);
	q.cur = q.head;
	q.cur_pkt = 0;
	q.rd_outstanding = 0;
	q.retry_at = q.rnr_at = 0;
	if (q.have_recv) {
		tp_recv_done d;
		d.syndrome = tp_synd::wr_flush;
		ops_.recv_complete(q, q.recv_handle, d);
		q.have_recv = false;
	}
	q.in_msg = 0;
	q.ack_pending = false;
	q.nak_due = false;
	q.res_tx = q.res_fresh = q.res_next;
}

void tp_counters_add(tp_counters &sum, const tp_counters &c)
{
	sum.tx_pkts += c.tx_pkts;
	sum.tx_bytes += c.tx_bytes;
	sum.rx_pkts += c.rx_pkts;
	sum.rx_bytes += c.rx_bytes;
	sum.retrans_timeout += c.retrans_timeout;
	sum.retrans_nak += c.retrans_nak;
	sum.seq_naks_sent += c.seq_naks_sent;
	sum.seq_naks_rcvd += c.seq_naks_rcvd;
	sum.rnr_naks_sent += c.rnr_naks_sent;
	sum.rnr_naks_rcvd += c.rnr_naks_rcvd;
	sum.dup_requests += c.dup_requests;
	sum.out_of_seq += c.out_of_seq;
	sum.dropped += c.dropped;
	sum.bad_qkey += c.bad_qkey;
	sum.bad_pkey += c.bad_pkey;
	sum.malformed += c.malformed;
}

} // namespace scx::hca
