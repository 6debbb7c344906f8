// SPDX-License-Identifier: GPL-2.0
#include "hca/roce_frame.h"

#include "lib/crc32.h"
#include "lib/endian.h"
#include "wire/net.h"
#include "wire/roce.h"

namespace scx::hca {
namespace {

constexpr u8 v4_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

// RFC 1071 one's-complement sum over an IPv4 header.
u16 ipv4_checksum(const u8 *h)
{
	u32 sum = 0;
	for (u32 i = 0; i < wire::ipv4::size_bytes; i += 2)
		sum += load_be<u16>(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return u16(~sum);
}

u32 build_ipv4(u8 *h, const roce_route &r, u32 udp_len)
{
	zero_bytes(h, wire::ipv4::size_bytes);
	prm::set(h, wire::ipv4::version, 4);
	prm::set(h, wire::ipv4::ihl, 5);
	prm::set(h, wire::ipv4::tos, r.tclass);
	prm::set(h, wire::ipv4::tot_len, wire::ipv4::size_bytes + udp_len);
	prm::set(h, wire::ipv4::id, r.ip_id);
	prm::set(h, wire::ipv4::df, 1);
	prm::set(h, wire::ipv4::ttl, r.hop_limit);
	prm::set(h, wire::ipv4::protocol, wire::ipv4::proto_udp);
	copy_bytes(h + wire::ipv4::saddr.byte_off, r.sgid + 12, 4);
	copy_bytes(h + wire::ipv4::daddr.byte_off, r.dgid + 12, 4);
	prm::set(h, wire::ipv4::check, ipv4_checksum(h));
	return wire::ipv4::size_bytes;
}

u32 build_ipv6(u8 *h, const roce_route &r, u32 udp_len)
{
	zero_bytes(h, wire::ipv6::size_bytes);
	prm::set(h, wire::ipv6::version, 6);
	prm::set(h, wire::ipv6::tclass, r.tclass);
	prm::set(h, wire::ipv6::flow_label, r.flow_label & 0xfffff);
	prm::set(h, wire::ipv6::payload_len, udp_len);
	prm::set(h, wire::ipv6::next_hdr, wire::ipv4::proto_udp);
	prm::set(h, wire::ipv6::hop_limit, r.hop_limit);
	copy_bytes(prm::at(h, wire::ipv6::saddr), r.sgid, 16);
	copy_bytes(prm::at(h, wire::ipv6::daddr), r.dgid, 16);
	return wire::ipv6::size_bytes;
}

// IPv4 header at h, frame bytes after it avail: the UDP datagram's
// length, or 0 when the header is not one a RoCE packet may have.
u32 parse_ipv4(const u8 *h, u32 avail, roce_rx *rx)
{
	if (avail < wire::ipv4::size_bytes || prm::get(h, wire::ipv4::version) != 4 ||
	    prm::get(h, wire::ipv4::ihl) != 5 || ipv4_checksum(h) != 0)
		return 0;
	u32 tot = prm::get(h, wire::ipv4::tot_len);
	if (tot > avail || tot < wire::ipv4::size_bytes + wire::udp::size_bytes ||
	    prm::get(h, wire::ipv4::mf) || prm::get(h, wire::ipv4::frag_off))
		return 0;
	rx->tclass = u8(prm::get(h, wire::ipv4::tos));
	rx->hop_limit = u8(prm::get(h, wire::ipv4::ttl));
	return tot - wire::ipv4::size_bytes;
}

u32 parse_ipv6(const u8 *h, u32 avail, roce_rx *rx)
{
	if (avail < wire::ipv6::size_bytes || prm::get(h, wire::ipv6::version) != 6)
		return 0;
	u32 pl = prm::get(h, wire::ipv6::payload_len);
	if (pl > avail - wire::ipv6::size_bytes || pl < wire::udp::size_bytes)
		return 0;
	rx->tclass = u8(prm::get(h, wire::ipv6::tclass));
	rx->flow_label = prm::get(h, wire::ipv6::flow_label);
	rx->hop_limit = u8(prm::get(h, wire::ipv6::hop_limit));
	return pl;
}

// The addresses as GIDs, from a header known to be long enough.
void parse_addrs(const u8 *h, bool v6, roce_rx *rx)
{
	if (v6) {
		copy_bytes(rx->sgid, prm::at(h, wire::ipv6::saddr), 16);
		copy_bytes(rx->dgid, prm::at(h, wire::ipv6::daddr), 16);
		return;
	}
	copy_bytes(rx->sgid, v4_mapped_prefix, 12);
	copy_bytes(rx->dgid, v4_mapped_prefix, 12);
	copy_bytes(rx->sgid + 12, h + wire::ipv4::saddr.byte_off, 4);
	copy_bytes(rx->dgid + 12, h + wire::ipv4::daddr.byte_off, 4);
}

// Next header of an IPv6 packet, or the protocol of an IPv4 one.
u8 l4_proto(const u8 *l3, bool v6)
{
	return u8(v6 ? prm::get(l3, wire::ipv6::next_hdr) : prm::get(l3, wire::ipv4::protocol));
}

} // namespace

bool gid_is_v4(const u8 *gid) { return same_bytes(gid, v4_mapped_prefix, 12); }

u32 roce_frame_build(u8 *frame, const roce_route &r, u32 ib_len)
{
	bool v6 = !gid_is_v4(r.dgid);
	copy_bytes(frame + wire::eth::dmac_off, r.dmac, 6);
	copy_bytes(frame + wire::eth::smac_off, r.smac, 6);
	store_be<u16>(frame + wire::eth::ethertype_off, v6 ? ethertype_ipv6 : ethertype_ipv4);
	u8 *l3 = frame + eth_hlen;
	u32 udp_len = wire::udp::size_bytes + ib_len;
	u32 n = v6 ? build_ipv6(l3, r, udp_len) : build_ipv4(l3, r, udp_len);
	u8 *uh = l3 + n;
	prm::set(uh, wire::udp::sport, r.sport);
	prm::set(uh, wire::udp::dport, wire::roce::udp_dport);
	prm::set(uh, wire::udp::len, udp_len);
	prm::set(uh, wire::udp::check, 0);   // RoCEv2 relies on the ICRC
	return eth_hlen + n + wire::udp::size_bytes;
}

u32 roce_icrc(const u8 *l3, u32 len, bool v6)
{
	u32 iphl = v6 ? wire::ipv6::size_bytes : wire::ipv4::size_bytes;
	u32 masked_len = iphl + wire::udp::size_bytes + wire::bth::size_bytes;
	u8 m[8 + ipv6_hlen + udp_hlen + wire::bth::size_bytes];
	for (u32 i = 0; i < 8; i++)
		m[i] = 0xff;
	u8 *ip = m + 8;
	copy_bytes(ip, l3, masked_len);
	if (v6) {
		prm::set(ip, wire::ipv6::tclass, 0xff);
		prm::set(ip, wire::ipv6::flow_label, 0xfffff);
		prm::set(ip, wire::ipv6::hop_limit, 0xff);
	} else {
		prm::set(ip, wire::ipv4::tos, 0xff);
		prm::set(ip, wire::ipv4::ttl, 0xff);
		prm::set(ip, wire::ipv4::check, 0xffff);
	}
	prm::set(ip + iphl, wire::udp::check, 0xffff);
	prm::set(ip + iphl + wire::udp::size_bytes, wire::bth::resv8a, 0xff);
	u32 crc = crc32_update(~0u, m, 8 + masked_len);
	crc = crc32_update(crc, l3 + masked_len, len - masked_len - wire::roce::icrc_bytes);
	return ~crc;
}

void roce_frame_seal(u8 *frame, u32 frame_len)
{
	bool v6 = load_be<u16>(frame + wire::eth::ethertype_off) == ethertype_ipv6;
	u32 icrc = roce_icrc(frame + eth_hlen, frame_len - eth_hlen, v6);
	le<u32> v;
	v.set(icrc);
	copy_bytes(frame + frame_len - wire::roce::icrc_bytes, &v, sizeof(v));
}

roce_rx_verdict roce_frame_parse(const u8 *frame, u32 len, roce_rx *rx)
{
	if (len < eth_hlen)
		return roce_rx_verdict::bad_eth;
	u16 type = load_be<u16>(frame + wire::eth::ethertype_off);
	if (type != ethertype_ipv4 && type != ethertype_ipv6)
		return roce_rx_verdict::not_roce;
	*rx = roce_rx{};
	rx->v6 = type == ethertype_ipv6;
	copy_bytes(rx->smac, frame + wire::eth::smac_off, 6);
	const u8 *l3 = frame + eth_hlen;
	u32 avail = len - eth_hlen;
	// A datagram for another protocol or port is the stack's, whatever
	// else its headers say; one for 4791 must be a well-formed RoCE packet.
	// What cannot be read that far is the stack's too.
	if (avail < (rx->v6 ? ipv6_hlen : ipv4_hlen) || l4_proto(l3, rx->v6) != wire::ipv4::proto_udp)
		return roce_rx_verdict::not_roce;
	u32 iphl = rx->v6 ? ipv6_hlen : 4 * u32(prm::get(l3, wire::ipv4::ihl));
	if (iphl < ipv4_hlen || avail < iphl + udp_hlen ||
	    prm::get(l3 + iphl, wire::udp::dport) != wire::roce::udp_dport)
		return roce_rx_verdict::not_roce;
	parse_addrs(l3, rx->v6, rx);
	u32 udp_len = rx->v6 ? parse_ipv6(l3, avail, rx) : parse_ipv4(l3, avail, rx);
	if (!udp_len)
		return roce_rx_verdict::bad_ip;
	const u8 *uh = l3 + iphl;
	if (prm::get(uh, wire::udp::len) != udp_len ||
	    udp_len < udp_hlen + wire::bth::size_bytes + wire::roce::icrc_bytes)
		return roce_rx_verdict::bad_udp;
	rx->sport = u16(prm::get(uh, wire::udp::sport));
	rx->ib = uh + udp_hlen;
	rx->ib_len = udp_len - udp_hlen;
	const u8 *icrc_at = rx->ib + rx->ib_len - wire::roce::icrc_bytes;
	le<u32> want;
	copy_bytes(&want, icrc_at, sizeof(want));
	if (roce_icrc(l3, iphl + udp_len, rx->v6) != want.get())
		return roce_rx_verdict::bad_icrc;
	return roce_rx_verdict::ok;
}

} // namespace scx::hca
