// SPDX-License-Identifier: GPL-2.0
// The packet transport's side of the poller: the in-kernel link that
// carries a packet into the receive ring of the port owning its
// destination GID (this one, or another softcx port on the fabric) or, for
// an address no port here has, onto the netdev (dp_wire.cpp); the receive
// ring drained into the engine.
#include "hca/dp.h"

#include "prm/qp.h"
#include "prm/wqe.h"

namespace scx::hca {

namespace qs = prm::qpc_state;

namespace {

constexpr u32 grh_bytes = 40;
constexpr u32 udp_bytes = 8;

qp_runtime &rt_of(tp_qp &q) { return *static_cast<qp_runtime *>(q.owner); }

const u8 *dest_gid(const tp_qp &q, const void *route)
{
	if (tp_per_wqe_dest(q.a.st))
		return prm::at(static_cast<const u8 *>(route), prm::av::rgid);
	return static_cast<const qp_path *>(route)->rgid;
}

bool is_ipv4_mapped(const u8 *g)
{
	for (u32 i = 0; i < 10; i++)
		if (g[i])
			return false;
	return g[10] == 0xff && g[11] == 0xff;
}

} // namespace

u8 *dp_link::tx_begin(tp_qp &q, const void *route, u32 len)
{
	data_path &d = dp_;
	settle();
	if (len > dp_ring::max_pkt || !route)
		return nullptr;
	u32 slot = fabric::none;
	// A port with no address of its own answers everything itself.
	if (d.d_.port && d.d_.port->any_roce_address() && !d.route(rt_of(q), dest_gid(q, route), &slot)) {
		// A peer port could not be asked now: as a busy link, later.
		d.stats_.peer_busy++;
		d.busy_ = true;
		d.more_ = true;
		return nullptr;
	}
	if (slot == fabric::none && d.rx_.full()) {
		d.more_ = true;
		return nullptr;
	}
	// No softcx port here has it: the netdev's, if the port has one. DC's
	// format is softcx's own: its packets are lost rather than sent there.
	wire_ = slot == data_path::unreachable && d.wire_xmit_ && q.a.st != tp_st::dci && q.a.st != tp_st::dct;
	if (wire_ && !d.wire_ready_.load(mo::acquire)) {
		// The netdev's queue is full: later, as a busy link.
		d.wire_tx_full_++;
		d.busy_ = true;
		d.more_ = true;
		return nullptr;
	}
	slot_ = slot;
	route_ = route;
	len_ = len;
	by_ref_ = false;
	if (wire_ || slot == data_path::unreachable)
		return d.tx_buf_ + wire_room;
	return reserve(q, len);
}

// Room in the receiving port's ring, the packet built there. A port gone
// or routed anew since, or a full ring: the packet is built aside and
// lost at commit, as on a wire.
u8 *dp_link::reserve(tp_qp &q, u32 len)
{
	data_path &d = dp_;
	data_path *to = &d;
	if (slot_ != fabric::none) {
		to = fabric::hold(slot_);
		// The port in the slot is still the one routed to.
		if (to && fabric::epoch() != rt_of(q).route_epoch) {
			fabric::release(slot_);
			to = nullptr;
		}
	}
	u8 *buf = to ? to->rx_.reserve(len, &ticket_) : nullptr;
	if (!buf) {
		if (to && to != &d)
			fabric::release(slot_);
		return d.tx_buf_ + wire_room;
	}
	to_ = to;
	return buf;
}

// A reservation tx_begin made and nobody committed: no packet.
void dp_link::settle()
{
	if (!to_)
		return;
	to_->rx_.abandon(ticket_);
	if (to_ != &dp_)
		fabric::release(slot_);
	to_ = nullptr;
}

void dp_link::tx_commit(tp_qp &q)
{
	data_path &d = dp_;
	if (wire_) {
		wire_commit(q);
		return;
	}
	data_path *to = to_;
	to_ = nullptr;
	// Lost as on a wire: RC's requester times out and sends it again.
	if (!to) {
		d.stats_.tx_lost++;
		return;
	}
	u8 grh[grh_bytes];
	const u8 *g = nullptr;
	const u8 *gid = dest_gid(q, route_);
	u8 l3 = is_ipv4_mapped(gid) ? 4 : 6;
	// A datagram's receiver learns its sender's address from the GRH, as
	// a DC target learns where to answer.
	if (tp_per_wqe_dest(q.a.st)) {
		const u8 *av = static_cast<const u8 *>(route_);
		const u8 *sgid = d.d_.port ? d.d_.port->roce_address(prm::get(av, prm::av::sgid_index)) : nullptr;
		d.write_grh(av, sgid, udp_bytes + len_, grh);
		g = grh;
	}
	to->rx_.commit(ticket_, len_, g, l3, by_ref_ ? &ref_ : nullptr);
	d.stats_.tx_by_ref += by_ref_;
	if (to != &d) {
		d.stats_.peer_requests++;
		to->wake_rx();
		fabric::release(slot_);
	}
}

// The packet being built goes into this port's own ring (only there is
// the requester's memory under the lock its responder holds), and its
// message has a gather list alone, mapped over the packet's bytes: it
// names the payload. Bytes that do not map are gathered, so the WQE fails
// with LOC_PROT now; named, the packet would be lost at the responder on
// every retry and the WQE end with RETRY_EXC_ERR instead.
bool dp_link::tx_ref(tp_qp &q, const tp_send_wr &wr, const tp_payload_ref &r)
{
	data_path &d = dp_;
	const u8 *inl;
	u32 inl_len;
	if (!d.policy_.payload_ref || wire_ || to_ != &d || q.a.st != tp_st::rc ||
	    d.wr_list(rt_of(q), wr, &inl, &inl_len) || inl ||
	    !d.mem_.readable(d.wr_l_, r.off, r.len))
		return false;
	by_ref_ = true;
	ref_ = r;
	return true;
}

// The port whose address table holds gid: *slot a peer's, fabric::none
// for this one, unreachable if no port has it (the packet is lost, as on a
// wire). Cached in rt until the fabric changes or the GID does.
bool data_path::route(qp_runtime &rt, const u8 *gid, u32 *slot)
{
	u32 epoch = fabric::epoch();
	if (rt.route_epoch == epoch && same_bytes(rt.route_gid, gid, 16)) {
		*slot = rt.route_slot;
		return true;
	}
	u32 found = fabric::none;
	if (!d_.port->has_roce_address(gid)) {
		found = unreachable;
		for (u32 i = 0; slot_ != fabric::none && i < fabric::max_ports && found == unreachable; i++) {
			if (i == slot_)
				continue;
			data_path *peer = fabric::hold(i);
			if (!peer)
				continue;
			unsigned long flags;
			if (!peer->lock_.try_lock(&flags)) {
				fabric::release(i);
				return false;
			}
			if (peer->d_.port && peer->d_.port->has_roce_address(gid))
				found = i;
			peer->lock_.unlock(flags);
			fabric::release(i);
		}
	}
	rt.route_epoch = epoch;
	rt.route_slot = found;
	copy_bytes(rt.route_gid, gid, 16);
	*slot = found;
	return true;
}

bool data_path::drain_rx(u32 budget)
{
	u32 n = 0;
	for (; n < budget; n++) {
		if (n)
			relax();
		dp_rx_pkt *p = trap_ ? rx_.front() : nullptr;
		if (p && !trap_takes(*p))
			break;
		if (!rx_one())
			break;
	}
	return n > 0;
}

// The packet at the front of the receive ring, into the engine of the QP
// it names. false: the ring is empty.
bool data_path::rx_one()
{
	dp_rx_pkt *p = rx_.front();
	if (!p)
		return false;
	u32 qpn = p->len >= wire::bth::size_bytes ? u32(prm::get(p->data, wire::bth::dest_qp)) : 0;
	debt_++;
	stats_.rx_pkts++;
	qp_runtime *rt = qpn ? d_.qps->dp_get(qpn) : nullptr;
	bool dc = !rt && qpn && dc_target(*p, qpn, &rt);
	// A trap's pass took it for one of its DCIs: the context answering
	// joins them, as an RC peer does.
	if (dc && rt && trap_)
		trap_add(rt->qpn);
	tp_rx_meta m;
	if (rt && rt->tp && p->by_ref && !resolve_ref(*p, &m)) {
		// Lost, as on a wire: the requester (if it lives) sends it again.
		stats_.rx_stale_ref++;
	} else if (rt && rt->tp) {
		m.grh = p->has_grh ? p->grh : nullptr;
		m.l3 = p->l3;
		// The port's totals of what the QP's parser refused, which
		// outlive the QP.
		const tp_counters &c = rt->tp->cnt;
		u64 pkey = c.bad_pkey, bad = c.malformed, qkey = c.bad_qkey;
		engine_.receive(*rt->tp, p->data, p->len, m, now_);
		link_.settle();
		stats_.rx_bad_pkey += c.bad_pkey - pkey;
		stats_.rx_malformed += c.malformed - bad;
		stats_.rx_bad_qkey += c.bad_qkey - qkey;
		// An answer may have armed the timer (what is left is
		// owed by then) with nothing to send.
		track_timer(*rt);
	} else if (!dc) {
		stats_.rx_no_qp++;
	}
	void *frame = rx_.pop();
	if (frame)
		wire_release_(wire_ctx_, frame);
	return true;
}

// The requester's message a packet names, if it is still there: the same
// incarnation of the QP, the WQE still in its window with the same first
// PSN, its gather list valid and mapped over the packet's bytes (in
// ref_pieces_, or wr_l_ when they do not fit: nothing in between
// resolves another list). Checked now, under the lock the copy runs
// under: the lock may have gone since the packet was built.
bool data_path::resolve_ref(const dp_rx_pkt &p, tp_rx_meta *m)
{
	const tp_payload_ref &r = p.ref;
	qp_runtime *rt = d_.qps->dp_get(r.src_qpn);
	tp_qp *q = rt ? rt->tp : nullptr;
	if (!q || q->gen != r.gen || q->in_error || u32(r.slot - q->head) >= u32(q->tail - q->head))
		return false;
	const tp_flight &f = q->flights[r.slot % q->flight_cap];
	const u8 *inl;
	u32 inl_len;
	if (!f.started || f.psn != r.psn || u64(r.off) + r.len > f.wr.len ||
	    wr_list(*rt, f.wr, &inl, &inl_len) || inl)
		return false;
	ref_n_ = mem_.pieces(wr_l_, r.off, r.len, ref_pieces_, ref_pieces_max);
	if (!ref_n_ && !mem_.readable(wr_l_, r.off, r.len))
		return false;
	m->ref_src = &wr_l_;
	m->ref_off = r.off;
	m->ref_len = r.len;
	return true;
}

// A QP in ERR: what the engine holds completes first (in SQ order, with
// the receive in progress), then the WQEs it never fetched.
void data_path::flush(qp_runtime &rt)
{
	debt_++;
	if (!rt.tp->in_error)
		engine_.flush(*rt.tp);
	link_.settle();
	forget_lists();
	flush_queues(rt);
}

} // namespace scx::hca
