// SPDX-License-Identifier: GPL-2.0
// The InfiniBand transport headers as RoCEv2 carries them (IBTA vol. 1
// ch. 9.2-9.3, Annex A17), declared as the PRM layouts are: big-endian bit
// strings, bit 0 the most significant bit of the first byte. A packet after
// the UDP header is BTH, the extended headers its opcode names (in the order
// DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH), the payload, 0-3
// pad bytes and the 4-byte ICRC. Wire formats, not the PRM: test_prm_ifc
// (which checks core_cpp/prm against mlx5_ifc.h) does not see them;
// test_roce_wire pins them against frames built outside softcx.
#pragma once

#include "prm/field.h"

namespace scx::wire::roce {
constexpr u16 udp_dport = 4791;
constexpr u32 icrc_bytes = 4;
} // namespace scx::wire::roce

// Base transport header.
namespace scx::wire::bth {
constexpr prm::field<0x00, 8> opcode{};
constexpr prm::field<0x08, 1> se{};        // solicited event
constexpr prm::field<0x09, 1> mig_req{};
constexpr prm::field<0x0a, 2> pad_cnt{};
constexpr prm::field<0x0c, 4> tver{};      // transport header version: 0
constexpr prm::field<0x10, 16> pkey{};
constexpr prm::field<0x20, 8> resv8a{};    // FECN, BECN, reserved: not covered by the ICRC
constexpr prm::field<0x20, 1> fecn{};
constexpr prm::field<0x21, 1> becn{};
constexpr prm::field<0x28, 24> dest_qp{};
constexpr prm::field<0x40, 1> ack_req{};
constexpr prm::field<0x41, 7> resv7{};
constexpr prm::field<0x48, 24> psn{};
constexpr u32 size_bytes = 12;
} // namespace scx::wire::bth

// Datagram extended transport header (UD).
namespace scx::wire::deth {
constexpr prm::field<0x00, 32> qkey{};
constexpr prm::field<0x28, 24> src_qp{};
constexpr u32 size_bytes = 8;
} // namespace scx::wire::deth

// RDMA extended transport header: the first packet of a WRITE, a READ request.
namespace scx::wire::reth {
constexpr prm::field<0x00, 64> va{};
constexpr prm::field<0x40, 32> rkey{};
constexpr prm::field<0x60, 32> dma_len{};
constexpr u32 size_bytes = 16;
} // namespace scx::wire::reth

namespace scx::wire::atomic_eth {
constexpr prm::field<0x00, 64> va{};
constexpr prm::field<0x40, 32> rkey{};
constexpr prm::field<0x60, 64> swap_add{};
constexpr prm::field<0xa0, 64> compare{};
constexpr u32 size_bytes = 28;
} // namespace scx::wire::atomic_eth

// ACK extended transport header: every acknowledgement and READ response
// but the middle ones.
namespace scx::wire::aeth {
constexpr prm::field<0x00, 8> syndrome{};
constexpr prm::field<0x08, 24> msn{};
constexpr u32 size_bytes = 4;
} // namespace scx::wire::aeth

namespace scx::wire::atomic_ack_eth {
constexpr prm::field<0x00, 64> orig{};   // the remote data before the operation
constexpr u32 size_bytes = 8;
} // namespace scx::wire::atomic_ack_eth

namespace scx::wire::immdt {
constexpr prm::field<0x00, 32> imm{};
constexpr u32 size_bytes = 4;
} // namespace scx::wire::immdt

// Invalidate extended transport header: SEND with invalidate.
namespace scx::wire::ieth {
constexpr prm::field<0x00, 32> rkey{};
constexpr u32 size_bytes = 4;
} // namespace scx::wire::ieth

// softcx's DC extended transport header. Dynamically connected transport
// is a ConnectX extension whose wire format is not public; softcx carries
// DC requests between its own ports under manufacturer-specific opcodes
// (0xc0 | the RC operation, IBTA 9.2.3 leaves 0xc0-0xff to vendors), with
// this header right after the BTH: the access key the initiator presents,
// its DCI's number (responses go there, as RC opcodes), and whether the
// packet opens a connection (the first packet of the first message after
// the DCI's window was empty, each time it is sent).
namespace scx::wire::dceth {
constexpr prm::field<0x00, 64> dc_key{};
constexpr prm::field<0x40, 1> connect{};
constexpr prm::field<0x48, 24> dci_qp{};
constexpr u32 size_bytes = 12;
} // namespace scx::wire::dceth

// AETH syndrome: bits 6-5 the kind, 4-0 a credit count, an RNR timer code
// or a NAK code (IBTA 9.7.5.2.1).
namespace scx::wire::aeth_synd {
constexpr u8 kind_mask = 0x60;
constexpr u8 value_mask = 0x1f;
constexpr u8 ack = 0x00;
constexpr u8 rnr_nak = 0x20;
constexpr u8 nak = 0x60;
constexpr u8 credits_invalid = 0x1f;   // an ACK that carries no credit count
// NAK codes.
constexpr u8 psn_seq_err = 0x00;
constexpr u8 invalid_request = 0x01;
constexpr u8 remote_access = 0x02;
constexpr u8 remote_op = 0x03;
constexpr u8 invalid_rd_request = 0x04;
} // namespace scx::wire::aeth_synd

// BTH opcodes: bits 7-5 the transport, 4-0 the operation (IBTA table 38;
// include/rdma/ib_pack.h numbers them the same way).
namespace scx::wire::bth_transport {
constexpr u8 rc = 0x00;
constexpr u8 uc = 0x20;
constexpr u8 rd = 0x40;
constexpr u8 ud = 0x60;
constexpr u8 cnp = 0x80;
constexpr u8 dc = 0xc0;    // softcx's DC requests (manufacturer-specific range)
constexpr u8 mask = 0xe0;
} // namespace scx::wire::bth_transport

namespace scx::wire::bth_op {
constexpr u8 send_first = 0x00;
constexpr u8 send_middle = 0x01;
constexpr u8 send_last = 0x02;
constexpr u8 send_last_imm = 0x03;
constexpr u8 send_only = 0x04;
constexpr u8 send_only_imm = 0x05;
constexpr u8 write_first = 0x06;
constexpr u8 write_middle = 0x07;
constexpr u8 write_last = 0x08;
constexpr u8 write_last_imm = 0x09;
constexpr u8 write_only = 0x0a;
constexpr u8 write_only_imm = 0x0b;
constexpr u8 read_request = 0x0c;
constexpr u8 read_resp_first = 0x0d;
constexpr u8 read_resp_middle = 0x0e;
constexpr u8 read_resp_last = 0x0f;
constexpr u8 read_resp_only = 0x10;
constexpr u8 ack = 0x11;
constexpr u8 atomic_ack = 0x12;
constexpr u8 cmp_swap = 0x13;
constexpr u8 fetch_add = 0x14;
constexpr u8 send_last_inv = 0x16;
constexpr u8 send_only_inv = 0x17;
constexpr u8 mask = 0x1f;
} // namespace scx::wire::bth_op
