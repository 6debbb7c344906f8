// SPDX-License-Identifier: GPL-2.0
// The IB transport part of a packet (BTH .. ICRC): what each opcode
// carries, and headers built from and parsed into one plain struct. Every
// packet the transport engine sends or receives goes through these two
// functions; the wire framing (Ethernet, IP, UDP, the ICRC) is roce_frame's.
#pragma once

#include "lib/status.h"
#include "wire/roce.h"

namespace scx::hca {

// The extended headers an opcode carries.
namespace ib_ext {
constexpr u8 deth = 1 << 0;
constexpr u8 reth = 1 << 1;
constexpr u8 atomic_eth = 1 << 2;
constexpr u8 aeth = 1 << 3;
constexpr u8 atomic_ack_eth = 1 << 4;
constexpr u8 immdt = 1 << 5;
constexpr u8 ieth = 1 << 6;
constexpr u8 dceth = 1 << 7;   // softcx's DC header (wire::dceth)
} // namespace ib_ext

// What an opcode is.
namespace ib_kind {
constexpr u16 first = 1 << 0;     // starts a message (only = first | last)
constexpr u16 last = 1 << 1;      // ends one
constexpr u16 payload = 1 << 2;   // carries data
constexpr u16 request = 1 << 3;   // requester -> responder
constexpr u16 response = 1 << 4;  // responder -> requester
constexpr u16 send = 1 << 5;
constexpr u16 write = 1 << 6;
constexpr u16 read = 1 << 7;      // READ request or response
constexpr u16 atomic = 1 << 8;    // atomic request or its ACK
constexpr u16 ack = 1 << 9;       // a plain ACK/NAK
} // namespace ib_kind

struct ib_op_info {
	u8 ext;     // ib_ext bits
	u16 kind;   // ib_kind bits
};

// The opcodes this device sends and accepts: RC, UC (SEND and WRITE), UD
// (SEND only) and DC requests (RC's requests with a DCETH). null for any
// other (RD, XRC, CNP, reserved).
const ib_op_info *ib_op_lookup(u8 opcode);

// The IB headers of one packet, each field as a number (the byte order is
// the layouts'). Only the fields of the opcode's headers are used.
struct ib_hdr {
	u8 opcode = 0;
	bool se = false, mig_req = false, ack_req = false;
	u8 pad = 0;           // bytes after the payload, so it ends on 4 bytes
	u16 pkey = 0xffff;
	u32 dest_qp = 0;
	u32 psn = 0;
	u32 qkey = 0, src_qp = 0;              // DETH
	u64 va = 0;                            // RETH / AtomicETH
	u32 rkey = 0, dma_len = 0;
	u64 swap_add = 0, compare = 0;         // AtomicETH
	u8 syndrome = 0;                       // AETH
	u32 msn = 0;
	u64 orig = 0;                          // AtomicAckETH
	u32 imm = 0;                           // ImmDt
	u32 inv_rkey = 0;                      // IETH
	u64 dc_key = 0;                        // DCETH
	u32 dci_qp = 0;
	bool dc_connect = false;
};

// Bytes of BTH + the opcode's extended headers.
u32 ib_hdr_len(const ib_op_info &op);

// Writes h's BTH and extended headers at buf (room for 64 bytes); returns
// their length, 0 for an opcode this device does not know.
u32 ib_hdr_build(u8 *buf, const ib_hdr &h);

// One received IB part, BTH to ICRC inclusive, as ib_hdr_parse found it.
struct ib_layout {
	const ib_op_info *op = nullptr;
	u32 hdr_len = 0;      // BTH + extended headers
	u32 payload_len = 0;  // without the pad
};

// Why a packet was refused (each counted by the receiver).
enum class ib_malformed : u8 {
	none,
	short_hdr,      // shorter than its headers + pad + ICRC
	bad_opcode,     // not one of ib_op_lookup's
	bad_tver,       // transport header version not 0
	bad_pad,        // pad or payload where the opcode carries none
};

// Parses len bytes (BTH .. ICRC) into *h and *l. Checks only what the
// packet says of itself; QP, PSN, P_Key and ICRC checks are the receiver's.
ib_malformed ib_hdr_parse(const u8 *p, u32 len, ib_hdr *h, ib_layout *l);

// 24-bit PSN arithmetic (IBTA 9.7.1): a - b as a signed distance, so
// "a is after b" is psn_diff(a, b) > 0 across the wrap.
constexpr u32 psn_mask = 0xffffff;
constexpr i32 psn_diff(u32 a, u32 b) { return i32((a - b) << 8) >> 8; }
constexpr u32 psn_add(u32 psn, u32 n) { return (psn + n) & psn_mask; }

} // namespace scx::hca
