// SPDX-License-Identifier: GPL-2.0
// The headers below a RoCEv2 packet (Ethernet II, IPv4 RFC 791, IPv6 RFC
// 8200, UDP RFC 768), declared as the PRM layouts are.
#pragma once

#include "prm/field.h"

// Not dword-aligned: byte offsets.
namespace scx::wire::eth {
constexpr u32 dmac_off = 0;
constexpr u32 smac_off = 6;
constexpr u32 ethertype_off = 12;   // 16 bits, big-endian
constexpr u32 size_bytes = 14;
} // namespace scx::wire::eth

namespace scx::wire::ipv4 {
constexpr prm::field<0x00, 4> version{};
constexpr prm::field<0x04, 4> ihl{};
constexpr prm::field<0x08, 8> tos{};
constexpr prm::field<0x10, 16> tot_len{};
constexpr prm::field<0x20, 16> id{};
constexpr prm::field<0x30, 1> reserved_flag{};
constexpr prm::field<0x31, 1> df{};
constexpr prm::field<0x32, 1> mf{};
constexpr prm::field<0x33, 13> frag_off{};
constexpr prm::field<0x40, 8> ttl{};
constexpr prm::field<0x48, 8> protocol{};
constexpr prm::field<0x50, 16> check{};
constexpr prm::field<0x60, 32> saddr{};
constexpr prm::field<0x80, 32> daddr{};
constexpr u32 size_bytes = 20;
constexpr u8 proto_udp = 17;
} // namespace scx::wire::ipv4

namespace scx::wire::ipv6 {
constexpr prm::field<0x00, 4> version{};
constexpr prm::field<0x04, 8> tclass{};
constexpr prm::field<0x0c, 20> flow_label{};
constexpr prm::field<0x20, 16> payload_len{};
constexpr prm::field<0x30, 8> next_hdr{};
constexpr prm::field<0x38, 8> hop_limit{};
constexpr prm::block<0x40, 16> saddr{};
constexpr prm::block<0xc0, 16> daddr{};
constexpr u32 size_bytes = 40;
} // namespace scx::wire::ipv6

namespace scx::wire::udp {
constexpr prm::field<0x00, 16> sport{};
constexpr prm::field<0x10, 16> dport{};
constexpr prm::field<0x20, 16> len{};
constexpr prm::field<0x30, 16> check{};
constexpr u32 size_bytes = 8;
} // namespace scx::wire::udp
