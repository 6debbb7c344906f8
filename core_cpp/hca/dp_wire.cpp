// SPDX-License-Identifier: GPL-2.0
// The RoCEv2 link on the port's netdev: a packet for an address no softcx
// port of this kernel owns leaves as an Ethernet frame (IPv4 or IPv6, UDP
// to 4791, ICRC sealed); a frame from the netdev addressed to this port is
// checked whole (IP, UDP, ICRC) before its IB part joins the receive ring,
// as a NIC classifies before the host stack sees anything.
#include "hca/dp.h"

#include "hca/roce_frame.h"
#include "lib/endian.h"
#include "prm/qp.h"
#include "prm/wqe.h"
#include "wire/net.h"

namespace scx::hca {

namespace {

constexpr u32 grh_bytes = 40;

// The flow label the RDMA core derives from a QP pair when the path has
// none, and the UDP source port (0xc000 and up) folded from a flow label.
u32 pair_flow_label(u32 lqpn, u32 rqpn)
{
	u64 v = u64(lqpn) * rqpn;
	v ^= v >> 20;
	v ^= v >> 40;
	return u32(v) & 0xfffff;
}

u16 flow_label_sport(u32 fl)
{
	u32 lo = (fl & 0x3fff) ^ ((fl & 0xfc000) >> 14);
	return u16(0xc000 | lo);
}

// What the frame's lower headers say, from the path of a connected QP or
// the address vector of a UD WQE. false: no source address to send from.
bool fill_route(const vport &port, const tp_qp &q, const void *route, roce_route *r)
{
	const u8 *sgid, *dgid;
	u8 hop;
	u16 sport;
	if (tp_per_wqe_dest(q.a.st)) {
		const u8 *av = static_cast<const u8 *>(route);
		sgid = port.roce_address(prm::get(av, prm::av::sgid_index));
		dgid = prm::at(av, prm::av::rgid);
		store_be<u32>(r->dmac, prm::get(av, prm::av::rmac_47_16));
		store_be<u16>(r->dmac + 4, u16(prm::get(av, prm::av::rmac_15_0)));
		r->tclass = u8(prm::get(av, prm::av::tclass));
		r->flow_label = prm::get(av, prm::av::flow_label);
		hop = u8(prm::get(av, prm::av::hop_limit));
		// mlx5's AV keeps the UDP source port where IB keeps the LID.
		sport = u16(prm::get(av, prm::av::rlid));
		if (sport < 0xc000)
			sport = flow_label_sport(r->flow_label ? r->flow_label
							       : pair_flow_label(q.a.qpn, prm::get(av, prm::av::dqpn)));
	} else {
		const qp_path &p = *static_cast<const qp_path *>(route);
		sgid = port.roce_address(p.src_addr_index);
		dgid = p.rgid;
		copy_bytes(r->dmac, p.rmac, 6);
		r->tclass = p.tclass ? p.tclass : u8(p.dscp << 2);
		r->flow_label = p.flow_label;
		hop = p.hop_limit;
		sport = p.udp_sport;
		if (!sport)
			sport = flow_label_sport(p.flow_label ? p.flow_label
							      : pair_flow_label(q.a.qpn, q.a.dest_qpn));
	}
	if (!sgid || gid_is_v4(sgid) != gid_is_v4(dgid))
		return false;
	copy_bytes(r->smac, port.mac(), 6);
	copy_bytes(r->sgid, sgid, 16);
	copy_bytes(r->dgid, dgid, 16);
	r->hop_limit = hop ? hop : 64;
	r->sport = sport;
	return true;
}

// The 40 bytes a UD receive starts with: the IPv6 header, or an IPv4
// header after 20 bytes of zeros, as a ConnectX writes them.
void received_grh(const roce_rx &r, u8 *grh)
{
	u32 ip_len = r.v6 ? ipv6_hlen : ipv4_hlen;
	zero_bytes(grh, grh_bytes);
	const u8 *l3 = r.ib - udp_hlen - ip_len;
	copy_bytes(grh + grh_bytes - ip_len, l3, ip_len);
}

} // namespace

void dp_link::wire_commit(tp_qp &q)
{
	data_path &d = dp_;
	roce_route r;
	if (!fill_route(*d.d_.port, q, route_, &r)) {
		d.stats_.tx_lost++;
		return;
	}
	r.ip_id = d.wire_ip_id_++;
	u32 lower = roce_lower_len(!gid_is_v4(r.dgid));
	u8 *frame = d.tx_buf_ + wire_room - lower;
	roce_frame_build(frame, r, len_);
	roce_frame_seal(frame, lower + len_);
	d.wire_xmit_(d.wire_ctx_, frame, lower + len_);
	d.wire_tx_frames_++;
	d.wire_tx_bytes_ += lower + len_;
}

void data_path::attach_wire(wire_xmit_fn xmit, wire_release_fn release, void *ctx)
{
	lock_guard g(lock_);
	wire_xmit_ = xmit;
	wire_release_ = release;
	wire_ctx_ = ctx;
	wire_ready_.store(true, mo::release);
}

void data_path::detach_wire()
{
	lock_guard g(lock_);
	while (rx_.front()) {
		void *frame = rx_.pop();
		if (frame)
			wire_release_(wire_ctx_, frame);
	}
	wire_xmit_ = nullptr;
	wire_release_ = nullptr;
	wire_ctx_ = nullptr;
	wire_ready_.store(true, mo::release);
}

wire_rx_result data_path::wire_rx(const u8 *frame, u32 len, void *frame_ref)
{
	if (!d_.port)
		return wire_rx_result::pass;
	roce_rx r;
	roce_rx_verdict v = roce_frame_parse(frame, len, &r);
	// Too short to say whose, or not RoCE: the stack decides.
	if (v == roce_rx_verdict::not_roce || v == roce_rx_verdict::bad_eth)
		return wire_rx_result::pass;
	// Another function's, or a host's on this netdev (rdma_rxe's).
	if (!d_.port->has_roce_address(r.dgid))
		return wire_rx_result::pass;
	switch (v) {
	case roce_rx_verdict::bad_ip: wire_rx_.rx_bad_ip.fetch_add(1); return wire_rx_result::dropped;
	case roce_rx_verdict::bad_udp: wire_rx_.rx_bad_udp.fetch_add(1); return wire_rx_result::dropped;
	case roce_rx_verdict::bad_icrc: wire_rx_.rx_bad_icrc.fetch_add(1); return wire_rx_result::dropped;
	default: break;
	}
	u8 grh[grh_bytes];
	received_grh(r, grh);
	if (!rx_.lend(r.ib, r.ib_len, grh, r.v6 ? 6 : 4, frame_ref)) {
		wire_rx_.rx_ring_full.fetch_add(1);
		return wire_rx_result::dropped;
	}
	wire_rx_.rx_frames.fetch_add(1);
	wire_rx_.rx_bytes.fetch_add(len);
	wake_rx();
	return wire_rx_result::held;
}

dp_wire_stats data_path::wire_stats() const
{
	dp_wire_stats s{};
	s.tx_frames = read_once(wire_tx_frames_);
	s.tx_bytes = read_once(wire_tx_bytes_);
	s.rx_frames = wire_rx_.rx_frames.load();
	s.rx_bytes = wire_rx_.rx_bytes.load();
	s.rx_bad_ip = wire_rx_.rx_bad_ip.load();
	s.rx_bad_udp = wire_rx_.rx_bad_udp.load();
	s.rx_bad_icrc = wire_rx_.rx_bad_icrc.load();
	s.rx_ring_full = wire_rx_.rx_ring_full.load();
	s.tx_link_full = read_once(wire_tx_full_);
	return s;
}

} // namespace scx::hca
