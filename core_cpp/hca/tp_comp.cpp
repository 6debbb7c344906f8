// SPDX-License-Identifier: GPL-2.0
// The completer: ACKs, NAKs, READ responses and atomic ACKs against the
// window. An answer acknowledges every request before its PSN; a READ or
// atomic passed over without its data means that data was lost (an
// implied NAK). Sequence NAKs and timeouts go back to the PSN named
// (go-back-N, each attempt counted against retry_cnt), an RNR NAK waits
// its timer (rnr_retry, 7 never runs out), other NAKs fail the WQE.
// WQEs complete in SQ order.
#include "hca/tp.h"

namespace scx::hca {

namespace {

namespace sy = wire::aeth_synd;

bool is_rd_atomic(tp_op o) { return o == tp_op::read || o == tp_op::cmp_swap || o == tp_op::fetch_add; }

// The window index of the started WQE whose PSNs hold psn, or q.tail.
u32 find_flight(const tp_qp &q, u32 psn)
{
	for (u32 i = q.head; i != q.tail; i++) {
		const tp_flight &f = q.flights[i % q.flight_cap];
		if (!f.started)
			break;
		i32 d = psn_diff(psn, f.psn);
		if (d >= 0 && u32(d) < f.npkts)
			return i;
	}
	return q.tail;
}

// The first WQE of the window still owed an answer, or null.
tp_flight *first_unacked(tp_qp &q)
{
	for (u32 i = q.head; i != q.tail; i++) {
		tp_flight &f = q.flights[i % q.flight_cap];
		if (!f.started)
			return nullptr;
		if (!f.acked && !f.syndrome)
			return &f;
	}
	return nullptr;
}

// An answer within a SEND or WRITE (its AckReq every 2^n packets):
// the packets before psn (and psn itself if inclusive) arrived. true:
// that is news.
bool ack_part(tp_flight &f, u32 psn, bool inclusive)
{
	if (f.acked || f.syndrome || is_rd_atomic(f.wr.op) || f.wr.op == tp_op::local)
		return false;
	i32 k = psn_diff(psn, f.psn) + (inclusive ? 1 : 0);
	if (k <= 0 || u32(k) <= f.acked_pkts)
		return false;
	f.acked_pkts = u32(k);
	return true;
}

} // namespace

void transport::comp_response(tp_qp &q, const ib_hdr &h, const ib_layout &l, const u8 *payload, u64 now)
{
	// Nothing sent carries this PSN: not an answer to us.
	tp_flight *f = first_unacked(q);
	if (!f || psn_diff(h.psn, q.next_psn) >= 0) {
		q.cnt.dropped++;
		return;
	}
	if (l.op->kind & ib_kind::read)
		comp_read_data(q, h, l, payload, now);
	else if (l.op->kind & ib_kind::atomic)
		comp_atomic_ack(q, h, now);
	else
		comp_aeth(q, h, now);
	comp_retire(q);
}

void transport::comp_aeth(tp_qp &q, const ib_hdr &h, u64 now)
{
	u32 retry = 0;
	u8 kind = h.syndrome & sy::kind_mask, code = h.syndrome & sy::value_mask;
	if (kind == sy::ack) {
		if (comp_ack_upto(q, h.psn, true, &retry, now))
			comp_retry_from(q, retry, now, false);
		return;
	}
	// A NAK older than what is still out is stale (a duplicate answer).
	tp_flight *oldest = first_unacked(q);
	if (psn_diff(h.psn, oldest->psn) < 0) {
		q.cnt.dropped++;
		return;
	}
	// A NAK acknowledges what is before its PSN; a READ there without
	// its data was lost, and is where going back (or failing) starts.
	bool lost_read = comp_ack_upto(q, h.psn, false, &retry, now);
	u32 from = lost_read ? retry : h.psn;
	if (kind == sy::rnr_nak) {
		q.cnt.rnr_naks_rcvd++;
		ops_.note(q, q.rnr_left ? tp_note::rnr_nak : tp_note::rnr_nak_final);
		if (!q.rnr_left) {
			comp_fail_at(q, from, tp_synd::rnr_retry_exc);
			return;
		}
		if (q.rnr_left != 7)
			q.rnr_left--;
		if (comp_rewind(q, from)) {
			q.rnr_at = now + tp_rnr_timer_ns(code);
			q.retry_at = 0;
		}
		return;
	}
	if (kind != sy::nak) {
		q.cnt.dropped++;
		return;
	}
	if (code == sy::psn_seq_err) {
		q.cnt.seq_naks_rcvd++;
		ops_.note(q, tp_note::seq_nak_rcvd);
		comp_retry_from(q, from, now, false);
		return;
	}
	comp_fail_at(q, from,
		     code == sy::invalid_request ? tp_synd::remote_inv_req :
		     code == sy::remote_access	 ? tp_synd::remote_access :
						   tp_synd::remote_op);
}

// Marks every SEND/WRITE up to psn acknowledged. true: a READ or atomic
// before psn has not got its data; *retry_psn is where it resumes.
bool transport::comp_ack_upto(tp_qp &q, u32 psn, bool inclusive, u32 *retry_psn, u64 now)
{
	bool progress = false, lost = false;
	for (u32 i = q.head; i != q.tail; i++) {
		tp_flight &f = q.flights[i % q.flight_cap];
		if (!f.started)
			break;
		i32 d = psn_diff(psn_add(f.psn, f.npkts - 1), psn);
		if (d > 0 || (d == 0 && !inclusive)) {
			progress |= ack_part(f, psn, inclusive);
			break;
		}
		if (f.acked || f.syndrome)
			continue;
		if (is_rd_atomic(f.wr.op)) {
			q.cnt.out_of_seq++;
			ops_.note(q, tp_note::implied_nak);
			*retry_psn = psn_add(f.psn, f.read_pkts);
			lost = true;
			break;
		}
		f.acked = true;
		progress = true;
	}
	if (progress)
		comp_progress(q, now);
	return lost;
}

// Something was acknowledged: the retry budgets start over and the timer
// covers what is still out.
void transport::comp_progress(tp_qp &q, u64 now)
{
	q.retry_left = q.a.retry_cnt;
	q.rnr_left = q.a.rnr_retry;
	q.rewound = false;
	q.retry_at = first_unacked(q) ? now + tp_ack_timeout_ns(q.a.timeout) : 0;
}

void transport::comp_retry_from(tp_qp &q, u32 psn, u64 now, bool timeout)
{
	// Answers behind the first lost packet all say the same: go back
	// once. They answer what was sent before the repeat, which the
	// responder takes in order, so the repeat's answer comes after them:
	// the timer waits from the last of them (a peer streaming a long
	// READ's responses is not a lost packet; rxe waits so too).
	if (!timeout && q.rewound && q.rewind_psn == psn) {
		q.retry_at = now + tp_ack_timeout_ns(q.a.timeout);
		return;
	}
	if (find_flight(q, psn) == q.tail)
		return;
	if (timeout)
		ops_.note(q, q.a.timeout && !q.retry_left ? tp_note::timeout_final : tp_note::timeout);
	if (q.a.timeout && !q.retry_left) {
		comp_fail_at(q, psn, tp_synd::retry_exc);
		return;
	}
	if (q.a.timeout)
		q.retry_left--;
	if (timeout)
		q.cnt.retrans_timeout++;
	else
		q.cnt.retrans_nak++;
	comp_rewind(q, psn);
	q.rewound = true;
	q.rewind_psn = psn;
	q.retry_at = now + tp_ack_timeout_ns(q.a.timeout);
	ops_.schedule(q);
}

// Moves the cursor back to the packet with psn. false: no WQE sent has it.
bool transport::comp_rewind(tp_qp &q, u32 psn)
{
	u32 i = find_flight(q, psn);
	if (i == q.tail)
		return false;
	tp_flight &f = q.flights[i % q.flight_cap];
	q.cur = i;
	// A READ asks again for what it lacks; an atomic is one packet.
	q.cur_pkt = is_rd_atomic(f.wr.op) ? 0 : u32(psn_diff(psn, f.psn));
	return true;
}

void transport::comp_fail_at(tp_qp &q, u32 psn, u8 syndrome)
{
	u32 i = find_flight(q, psn);
	tp_flight *hit = i != q.tail && !q.flights[i % q.flight_cap].acked ? &q.flights[i % q.flight_cap] :
									      first_unacked(q);
	if (hit)
		hit->syndrome = syndrome;
	q.halted = true;
	comp_retire(q);
}

void transport::comp_read_data(tp_qp &q, const ib_hdr &h, const ib_layout &l, const u8 *payload, u64 now)
{
	u32 retry;
	if ((l.op->ext & ib_ext::aeth) && comp_ack_upto(q, h.psn, false, &retry, now)) {
		comp_retry_from(q, retry, now, false);
		return;
	}
	tp_flight *f = first_unacked(q);
	if (!f || f->wr.op != tp_op::read) {
		q.cnt.dropped++;
		return;
	}
	u32 want = psn_add(f->psn, f->read_pkts);
	i32 d = psn_diff(h.psn, want);
	if (d != 0) {
		// Behind: a duplicate. Ahead: responses were lost.
		if (d < 0) {
			q.cnt.dropped++;
			return;
		}
		q.cnt.out_of_seq++;
		ops_.note(q, tp_note::implied_nak);
		comp_retry_from(q, want, now, false);
		return;
	}
	u32 off = f->read_pkts * q.a.mtu, left = f->wr.len - off, plen = l.payload_len;
	bool last = l.op->kind & ib_kind::last;
	if (last ? plen != left : (plen != q.a.mtu || left <= q.a.mtu)) {
		q.cnt.dropped++;   // not the response this READ can have
		return;
	}
	if (plen && !ops_.scatter(q, f->wr, off, payload, plen)) {
		f->syndrome = tp_synd::local_prot;
		q.halted = true;
		return;
	}
	f->read_pkts++;
	if (last) {
		f->acked = true;
		q.rd_outstanding--;
	}
	comp_progress(q, now);
}

void transport::comp_atomic_ack(tp_qp &q, const ib_hdr &h, u64 now)
{
	u32 retry;
	if (comp_ack_upto(q, h.psn, false, &retry, now)) {
		comp_retry_from(q, retry, now, false);
		return;
	}
	tp_flight *f = first_unacked(q);
	if (!f || (f->wr.op != tp_op::cmp_swap && f->wr.op != tp_op::fetch_add) || f->psn != h.psn) {
		q.cnt.dropped++;
		return;
	}
	// The value as the responder's memory held it, in host order (the
	// atomic itself works on host-order memory, as mlx5 on x86 does).
	if (!ops_.scatter(q, f->wr, 0, reinterpret_cast<const u8 *>(&h.orig), 8)) {
		f->syndrome = tp_synd::local_prot;
		q.halted = true;
		return;
	}
	f->acked = true;
	q.rd_outstanding--;
	comp_progress(q, now);
}

// Completes, in order, what is finished at the head of the window; a failed
// WQE completes with its error and puts the QP in error.
void transport::comp_retire(tp_qp &q)
{
	while (q.head != q.tail) {
		tp_flight &f = q.flights[q.head % q.flight_cap];
		if (f.syndrome) {
			ops_.complete(q, f.wr, f.syndrome);
			q.head++;
			ops_.fatal(q, tp_fatal::requester);
			flush(q);
			return;
		}
		if (!f.acked)
			break;
		ops_.complete(q, f.wr, 0);
		q.head++;
	}
	// A late ACK can overtake a retransmission: it resumes after what
	// is done.
	if (i32(q.cur - q.head) < 0) {
		q.cur = q.head;
		q.cur_pkt = 0;
	}
}

} // namespace scx::hca
