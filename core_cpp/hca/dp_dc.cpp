// SPDX-License-Identifier: GPL-2.0
// DC targets on the data path. A request for a DCT's number goes to the
// responder context its initiator (source GID and DCI number) holds; on a
// connect, to one it may take: a context no initiator holds, one left in
// error, else the one idle longest (nothing left to send or receive), so
// an initiator keeps its context for as long as it may still need it.
// Before that, the request must be well-formed DC with a GRH, for an active
// DCT, presenting the DCT's access key; a wrong key is counted on the DCT
// (QUERY_DCT's violation count) and raises DCT_KEY_VIOLATION when armed.
// DC's wire format is softcx's own, so DC stays between softcx ports of
// one kernel: a DC request from the netdev is dropped, and a DCI's packets
// never leave for it (dp_link.cpp).
#include "hca/dct.h"
#include "hca/dp.h"
#include "hca/ib_hdr.h"
#include "hca/qpc_image.h"
#include "prm/dct.h"
#include "prm/eq.h"
#include "prm/qp.h"
#include "lib/endian.h"
#include "wire/net.h"
#include "wire/roce.h"

namespace scx::hca {

namespace {

// The sender's GID from the 40 bytes a receive starts with: an IPv6
// header, or an IPv4 header in the last 20 (as an IPv4-mapped GID).
void source_gid(const u8 *grh, u8 l3, u8 *gid)
{
	if (l3 == 4) {
		const u8 *ip = grh + wire::ipv6::size_bytes - wire::ipv4::size_bytes;
		zero_bytes(gid, 10);
		gid[10] = gid[11] = 0xff;
		store_be<u32>(gid + 12, prm::get(ip, wire::ipv4::saddr));
	} else {
		copy_bytes(gid, prm::at(grh, wire::ipv6::saddr), wire::ipv6::saddr.size);
	}
}

// Whether context rt may be handed to a new initiator now.
bool context_free(const qp_runtime &rt, u64 now)
{
	const tp_qp &q = *rt.tp;
	if (!q.ready_resp || q.in_error)
		return true;
	return !q.have_recv && !q.in_msg && !transport::has_tx(q, now) && !transport::next_timer(q);
}

} // namespace

// The wrong access key: counted, and DCT_KEY_VIOLATION if it was armed.
void data_path::dc_key_violation(dct_runtime &t)
{
	t.key_violations++;
	if (!t.key_armed)
		return;
	t.key_armed = 0;
	u8 data[prm::eqe::event_data.size] = {};
	prm::set(data, prm::eqe_dct::number, t.dctn);
	d_.eqs->post_event(prm::event_type::dct_key_violation, 0, data);
}

// The context of initiator (gid, dci) on t, or on a connect one to give it;
// null: none (the packet is dropped).
qp_runtime *data_path::dc_context(dct_runtime &t, const u8 *gid, u32 dci, bool connect)
{
	qp_runtime *pick = nullptr;
	for (u32 qpn : t.ctx_qpn) {
		qp_runtime *rt = qpn ? d_.qps->dp_get(qpn) : nullptr;
		if (!rt || !rt->tp)
			continue;
		const tp_qp &q = *rt->tp;
		if (q.ready_resp && !q.in_error && q.a.dest_qpn == dci && same_bytes(rt->path.rgid, gid, 16))
			return rt;
		if (connect && context_free(*rt, now_) && (!pick || rt->dc_last < pick->dc_last))
			pick = rt;
	}
	if (!pick)
		return nullptr;
	// Given anew: the initiator's address is where it answers; the
	// connect packet starts its responder (transport::dc_admit).
	tp_qp &q = *pick->tp;
	tp_qp_reset(q);
	pick->remote_qpn = dci;
	copy_bytes(pick->path.rgid, gid, 16);
	pick->route_epoch = 0;
	sync_transport(*pick, prm::qpc_state::rtr);
	stats_.dc_connects++;
	return pick;
}

// A packet for number dctn, which no QP has. false: no DCT has it either.
// true: *out the context to take it, or null (dropped and counted here).
bool data_path::dc_target(const dp_rx_pkt &p, u32 dctn, qp_runtime **out)
{
	*out = nullptr;
	dct_runtime *t = d_.dcts ? d_.dcts->dp_get(dctn) : nullptr;
	if (!t)
		return false;
	ib_hdr h;
	ib_layout l;
	if (p.frame || !p.has_grh || ib_hdr_parse(p.data, p.len, &h, &l) != ib_malformed::none ||
	    (h.opcode & wire::bth_transport::mask) != wire::bth_transport::dc || !(l.op->kind & ib_kind::request)) {
		stats_.rx_dc_dropped++;
		return true;
	}
	if (t->state != prm::dctc_state::active) {
		stats_.rx_dc_dropped++;
		return true;
	}
	if (h.dc_key != t->dc_key) {
		dc_key_violation(*t);
		stats_.rx_dc_dropped++;
		return true;
	}
	u8 gid[16];
	source_gid(p.grh, p.l3, gid);
	*out = dc_context(*t, gid, h.dci_qp, h.dc_connect && (l.op->kind & ib_kind::first));
	if (!*out) {
		stats_.rx_dc_dropped++;
		return true;
	}
	(*out)->dc_last = now_;
	return true;
}

} // namespace scx::hca
