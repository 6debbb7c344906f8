// SPDX-License-Identifier: GPL-2.0
// RoCEv2 framing (IBTA Annex A17): Ethernet, IPv4 or IPv6, UDP to port
// 4791, then the IB part (ib_hdr.h) ending in the 4-byte ICRC. The ICRC is
// CRC-32 over eight bytes of ones (the LRH a RoCEv2 packet does not have),
// the IP, UDP and IB headers with the fields routers may change masked to
// ones, and the rest of the IB part; it is stored little-endian, as rxe
// and ConnectX write it.
#pragma once

#include "lib/types.h"

namespace scx::hca {

constexpr u32 eth_hlen = 14;
constexpr u32 ipv4_hlen = 20;
constexpr u32 ipv6_hlen = 40;
constexpr u32 udp_hlen = 8;
constexpr u16 ethertype_ipv4 = 0x0800;
constexpr u16 ethertype_ipv6 = 0x86dd;

// A GID of the form ::ffff:a.b.c.d is an IPv4 address (RoCEv2 over IPv4).
bool gid_is_v4(const u8 *gid);

// What the sender puts below the IB part, from the QP's path and the netdev.
struct roce_route {
	u8 smac[6], dmac[6];
	u8 sgid[16], dgid[16];   // both IPv4-mapped, or both IPv6
	u8 tclass = 0;           // DSCP << 2 | ECN
	u8 hop_limit = 64;
	u32 flow_label = 0;      // IPv6
	u16 sport = 0xc000;      // UDP source port: the QP's flow entropy
	u16 ip_id = 0;           // IPv4 identification
};

// Bytes below the IB part: Ethernet + IP + UDP.
constexpr u32 roce_lower_len(bool v6) { return eth_hlen + (v6 ? ipv6_hlen : ipv4_hlen) + udp_hlen; }

// Writes Ethernet, IP (its checksum included) and UDP headers for an IB
// part of ib_len bytes (BTH .. ICRC) at frame; returns their length.
u32 roce_frame_build(u8 *frame, const roce_route &r, u32 ib_len);

// The ICRC of the packet whose IP header is at l3 and whose IB part ends
// at l3 + len (ICRC included); v6 as the IP version.
u32 roce_icrc(const u8 *l3, u32 len, bool v6);

// Computes the ICRC of a frame roce_frame_build started (the IB part
// written after it) and stores it in the frame's last four bytes.
void roce_frame_seal(u8 *frame, u32 frame_len);

// A received frame, classified.
enum class roce_rx_verdict : u8 {
	ok,
	not_roce,      // not UDP to 4791 over IP: the host stack's
	bad_eth,       // shorter than an Ethernet header
	bad_ip,        // IP header short, options, fragment, bad length or checksum
	bad_udp,       // UDP length inconsistent or too short for BTH + ICRC
	bad_icrc,
};

struct roce_rx {
	bool v6 = false;
	const u8 *ib = nullptr;  // the BTH
	u32 ib_len = 0;          // BTH .. ICRC inclusive
	u8 smac[6];
	// IPv4 addresses as mapped GIDs; set for every verdict but not_roce
	// and bad_eth, so a bad packet's owner is known.
	u8 sgid[16], dgid[16];
	u16 sport = 0;
	u8 tclass = 0, hop_limit = 0;
	u32 flow_label = 0;
};

// Checks a frame's Ethernet, IP and UDP headers and its ICRC. len is the
// frame's length (Ethernet padding after the IP datagram is ignored).
roce_rx_verdict roce_frame_parse(const u8 *frame, u32 len, roce_rx *out);

} // namespace scx::hca
