// SPDX-License-Identifier: GPL-2.0
// DC on the engine: a DCI is an RC requester whose WQEs each name a target
// (DCT number, access key, address vector), a DCT hands each initiator one
// of its responder contexts, which is an RC responder for as long as the
// connection lasts. The wire format is softcx's (wire::dceth).
//
// Connections: a DCI opens one whenever it starts a WQE with nothing
// outstanding, and keeps it while it sends to the same target; a WQE for
// another target waits until every earlier one is answered. Every packet
// of the opening WQE's first PSN carries the connect bit, retransmissions
// included, so the target can tell a new connection (a connect at a PSN
// it has not opened at) from the opening sent again (a duplicate, which
// the responder answers as RC does), and an older opening (a late copy)
// from a new one. A packet with no connection at the target is dropped;
// its initiator times out and retries.
#include "hca/tp.h"

namespace scx::hca {

namespace {

// Whether two WQEs go to the same DC target.
bool same_target(const tp_send_wr &a, const tp_send_wr &b)
{
	return a.dest_qpn == b.dest_qpn && a.dc_key == b.dc_key && same_bytes(a.ud_av, b.ud_av, sizeof(a.ud_av));
}

} // namespace

// Whether f, the WQE at the cursor, may be given its PSNs now: with
// nothing outstanding (it opens a connection), or to the target of the
// connection open.
bool transport::dc_may_start(const tp_qp &q, const tp_flight &f)
{
	return q.head == q.cur || same_target(q.flights[q.head % q.flight_cap].wr, f.wr);
}

// A DC request reached context q: false drops it. q.ready_resp says
// whether q holds a connection (a context its owner has just taken for
// this initiator holds none).
bool transport::dc_admit(tp_qp &q, const ib_hdr &h, const ib_layout &l)
{
	bool opens = h.dc_connect && (l.op->kind & ib_kind::first);
	if (!opens)
		return q.ready_resp && h.dci_qp == q.a.dest_qpn;
	if (q.ready_resp && h.dci_qp == q.a.dest_qpn) {
		// The opening again is answered as RC answers a duplicate; an
		// opening from before it (a copy the network held back) would
		// replay what was done, and is dropped.
		i32 d = psn_diff(h.psn, q.dc_conn_psn);
		if (d <= 0)
			return d == 0;
	}
	// A new connection: the responder starts over at its PSN.
	q.a.dest_qpn = h.dci_qp;
	q.a.rq_psn = h.psn;
	q.dc_conn_psn = h.psn;
	q.established = false;
	start_responder(q);
	return true;
}

} // namespace scx::hca
