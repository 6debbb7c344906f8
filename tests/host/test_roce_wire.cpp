// SPDX-License-Identifier: GPL-2.0
// The wire formats of the transport: CRC-32, the IB headers of every opcode,
// RoCEv2 framing and the ICRC. The ICRC vectors were made outside softcx:
// the IPv4 ones by scapy's contrib/roce.py (python3-scapy 2.5.0, Debian 12),
// the IPv6 one by zlib.crc32 over the masked headers (scapy 2.5 has no IPv6
// ICRC).
#include <gtest/gtest.h>

#include <vector>

#include "hca/ib_hdr.h"
#include "hca/roce_frame.h"
#include "lib/crc32.h"
#include "wire/net.h"

using namespace scx;
using namespace scx::hca;
namespace op = scx::wire::bth_op;
namespace tr = scx::wire::bth_transport;

namespace {

// Ether/IP(10.0.0.1 -> 10.0.0.2, DF)/UDP(0xc123 -> 4791)/BTH(RC SEND_ONLY,
// pad 3, dqpn 0x12, AckReq, PSN 0x100)/"hello, world!"/pad/ICRC.
const std::vector<u8> scapy_send_only = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45,
	0x00, 0x00, 0x3c, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x26, 0xaf, 0x0a, 0x00, 0x00, 0x01,
	0x0a, 0x00, 0x00, 0x02, 0xc1, 0x23, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x04, 0x30, 0xff,
	0xff, 0x00, 0x00, 0x00, 0x12, 0x80, 0x00, 0x01, 0x00, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2c,
	0x20, 0x77, 0x6f, 0x72, 0x6c, 0x64, 0x21, 0x00, 0x00, 0x00, 0xfd, 0xf3, 0x4f, 0x1a,
};
// The ACK back (TOS 0x02: ECT), AETH credits-invalid, MSN 1.
const std::vector<u8> scapy_ack = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00, 0x45,
	0x02, 0x00, 0x30, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x26, 0xb9, 0x0a, 0x00, 0x00, 0x02,
	0x0a, 0x00, 0x00, 0x01, 0xc1, 0x23, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00, 0x11, 0x00, 0xff,
	0xff, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x01, 0x00, 0x1f, 0x00, 0x00, 0x01, 0x8f, 0x52,
	0xc2, 0x9e,
};
// IPv6 fd00::1 -> fd00::2, TC 0x0a, flow label 0x12345, hop limit 64,
// RC SEND_ONLY PSN 0xfffffe, "abcdefgh".
const std::vector<u8> zlib_v6_send_only = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x86, 0xdd, 0x60,
	0xa1, 0x23, 0x45, 0x00, 0x20, 0x11, 0x40, 0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xd0, 0x00, 0x12, 0xb7, 0x00, 0x20,
	0x00, 0x00, 0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x34, 0x00, 0xff, 0xff, 0xfe, 0x61,
	0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x49, 0x05, 0x53, 0xd9,
};

roce_rx_verdict parse(const std::vector<u8> &f, roce_rx *rx)
{
	return roce_frame_parse(f.data(), u32(f.size()), rx);
}

void fix_ipv4_checksum(std::vector<u8> &f)
{
	u8 *ip = f.data() + eth_hlen;
	prm::set(ip, wire::ipv4::check, 0);
	u32 sum = 0;
	for (u32 i = 0; i < ipv4_hlen; i += 2)
		sum += u32(ip[i]) << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	prm::set(ip, wire::ipv4::check, ~sum & 0xffff);
}

} // namespace

TEST(Crc32, StandardCheckValueAndSplitInput)
{
	EXPECT_EQ(crc32("123456789", 9), 0xcbf43926u);
	u32 c = crc32_update(~0u, "1234", 4);
	EXPECT_EQ(~crc32_update(c, "56789", 5), 0xcbf43926u);
	// rxe's ICRC seed: the running CRC after the eight bytes of ones.
	const u8 ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	EXPECT_EQ(crc32_update(~0u, ones, 8), 0xdebb20e3u);
}

// The table-driven steps against the polynomial applied a bit at a time,
// for every length to past a few steps and every alignment of a split.
TEST(Crc32, MatchesTheBitwiseDefinition)
{
	u8 buf[300];
	for (u32 i = 0; i < sizeof(buf); i++)
		buf[i] = u8(i * 167 + 13);
	auto bitwise = [](const u8 *p, u32 n) {
		u32 c = ~0u;
		for (u32 i = 0; i < n; i++) {
			c ^= p[i];
			for (int k = 0; k < 8; k++)
				c = (c >> 1) ^ (c & 1 ? 0xedb88320u : 0);
		}
		return ~c;
	};
	for (u32 n = 0; n <= sizeof(buf); n++) {
		u32 want = bitwise(buf, n);
		ASSERT_EQ(crc32(buf, n), want) << n;
		u32 cut = n / 3 + n % 7;
		if (cut <= n) {
			ASSERT_EQ(~crc32_update(crc32_update(~0u, buf, cut), buf + cut, n - cut), want) << n;
		}
	}
}

TEST(IbHdr, OpcodeTableLengths)
{
	struct {
		u8 opcode;
		u32 len;
	} want[] = {
		{tr::rc | op::send_only, 12},        {tr::rc | op::send_only_imm, 16},
		{tr::rc | op::send_only_inv, 16},    {tr::rc | op::write_first, 28},
		{tr::rc | op::write_middle, 12},     {tr::rc | op::write_only_imm, 32},
		{tr::rc | op::write_last_imm, 16},   {tr::rc | op::read_request, 28},
		{tr::rc | op::read_resp_first, 16},  {tr::rc | op::read_resp_middle, 12},
		{tr::rc | op::read_resp_only, 16},   {tr::rc | op::ack, 16},
		{tr::rc | op::atomic_ack, 24},       {tr::rc | op::cmp_swap, 40},
		{tr::rc | op::fetch_add, 40},        {tr::uc | op::write_only_imm, 32},
		{tr::uc | op::send_last_imm, 16},    {tr::ud | op::send_only, 20},
		{tr::ud | op::send_only_imm, 24},    {tr::dc | op::send_only, 24},
		{tr::dc | op::write_first, 40},      {tr::dc | op::read_request, 40},
		{tr::dc | op::cmp_swap, 52},         {tr::dc | op::send_only_inv, 28},
	};
	for (auto &w : want) {
		const ib_op_info *i = ib_op_lookup(w.opcode);
		ASSERT_NE(i, nullptr) << std::hex << int(w.opcode);
		EXPECT_EQ(ib_hdr_len(*i), w.len) << std::hex << int(w.opcode);
	}
	// Not this device's: reserved, RD, XRC, CNP, UC READ/atomics, UD WRITE.
	for (u8 bad : {u8(0x15), u8(0x18), u8(0x1f), u8(0x40), u8(0xa0), u8(0x81),
		       u8(tr::uc | op::read_request), u8(tr::uc | op::cmp_swap), u8(tr::uc | op::send_only_inv),
		       u8(tr::ud | op::send_first), u8(tr::ud | op::write_only),
		       // DC: requests only, its answers are RC's.
		       u8(tr::dc | op::ack), u8(tr::dc | op::read_resp_only), u8(tr::dc | op::atomic_ack)})
		EXPECT_EQ(ib_op_lookup(bad), nullptr) << std::hex << int(bad);
	// The kinds the engine dispatches on.
	EXPECT_TRUE(ib_op_lookup(tr::rc | op::read_resp_middle)->kind & ib_kind::payload);
	EXPECT_FALSE(ib_op_lookup(tr::rc | op::read_request)->kind & ib_kind::payload);
	EXPECT_EQ(ib_op_lookup(tr::rc | op::send_only)->kind & (ib_kind::first | ib_kind::last),
		  ib_kind::first | ib_kind::last);
	EXPECT_TRUE(ib_op_lookup(tr::rc | op::atomic_ack)->kind & ib_kind::response);
}

TEST(IbHdr, EveryOpcodeRoundTrips)
{
	for (u32 code = 0; code < 256; code++) {
		const ib_op_info *info = ib_op_lookup(u8(code));
		if (!info)
			continue;
		ib_hdr h;
		h.opcode = u8(code);
		h.se = code & 1;
		h.ack_req = true;
		h.pad = (info->kind & ib_kind::payload) ? 2 : 0;
		h.pkey = 0x8001;
		h.dest_qp = 0xabcdef;
		h.psn = 0xfedcba;
		h.qkey = 0x80010000;
		h.src_qp = 0x123456;
		h.va = 0x1122334455667788ull;
		h.rkey = 0x99aabbcc;
		h.dma_len = 0x10000;
		h.swap_add = 0x0102030405060708ull;
		h.compare = 0xf0e0d0c0b0a09080ull;
		h.syndrome = 0x61;
		h.msn = 0x654321;
		h.orig = 0xdeadbeefcafef00dull;
		h.imm = 0x12345678;
		h.inv_rkey = 0x87654321;
		h.dc_key = 0x0badc0de0badf00dull;
		h.dci_qp = 0x345678;
		h.dc_connect = true;
		u8 buf[128] = {};
		u32 n = ib_hdr_build(buf, h);
		ASSERT_EQ(n, ib_hdr_len(*info));
		u32 len = n + 6 + h.pad + 4;   // 6 bytes of payload where allowed
		if (!(info->kind & ib_kind::payload))
			len = n + 4;
		ib_hdr g;
		ib_layout l;
		ASSERT_EQ(ib_hdr_parse(buf, len, &g, &l), ib_malformed::none) << std::hex << code;
		EXPECT_EQ(l.hdr_len, n);
		EXPECT_EQ(l.payload_len, (info->kind & ib_kind::payload) ? 6u : 0u);
		EXPECT_EQ(g.opcode, h.opcode);
		EXPECT_EQ(g.se, h.se);
		EXPECT_EQ(g.pkey, h.pkey);
		EXPECT_EQ(g.dest_qp, h.dest_qp);
		EXPECT_EQ(g.psn, h.psn);
		EXPECT_TRUE(g.ack_req);
		// Each field of the opcode's headers came back; the others stay 0.
		using namespace ib_ext;
		auto has = [&](u8 bit) { return (info->ext & bit) != 0; };
		EXPECT_EQ(g.qkey, has(deth) ? h.qkey : 0);
		EXPECT_EQ(g.src_qp, has(deth) ? h.src_qp : 0);
		EXPECT_EQ(g.va, has(reth) || has(atomic_eth) ? h.va : 0);
		EXPECT_EQ(g.rkey, has(reth) || has(atomic_eth) ? h.rkey : 0);
		EXPECT_EQ(g.dma_len, has(reth) ? h.dma_len : 0);
		EXPECT_EQ(g.swap_add, has(atomic_eth) ? h.swap_add : 0);
		EXPECT_EQ(g.compare, has(atomic_eth) ? h.compare : 0);
		EXPECT_EQ(g.syndrome, has(aeth) ? h.syndrome : 0);
		EXPECT_EQ(g.msn, has(aeth) ? h.msn : 0);
		EXPECT_EQ(g.orig, has(atomic_ack_eth) ? h.orig : 0);
		EXPECT_EQ(g.imm, has(immdt) ? h.imm : 0);
		EXPECT_EQ(g.inv_rkey, has(ieth) ? h.inv_rkey : 0);
		EXPECT_EQ(g.dc_key, has(dceth) ? h.dc_key : 0);
		EXPECT_EQ(g.dci_qp, has(dceth) ? h.dci_qp : 0);
		EXPECT_EQ(g.dc_connect, has(dceth));
		// Exactly DC's opcodes carry a DCETH.
		EXPECT_EQ(has(dceth), (code & wire::bth_transport::mask) == wire::bth_transport::dc);
	}
}

TEST(IbHdr, MalformedPacketsAreNamed)
{
	ib_hdr h, g;
	ib_layout l;
	u8 buf[64] = {};
	h.opcode = tr::rc | op::ack;
	u32 n = ib_hdr_build(buf, h);
	EXPECT_EQ(ib_hdr_parse(buf, n + 4, &g, &l), ib_malformed::none);
	EXPECT_EQ(ib_hdr_parse(buf, n + 3, &g, &l), ib_malformed::short_hdr);  // AETH cut
	EXPECT_EQ(ib_hdr_parse(buf, 15, &g, &l), ib_malformed::short_hdr);
	EXPECT_EQ(ib_hdr_parse(buf, n + 8, &g, &l), ib_malformed::bad_pad);    // payload on an ACK
	prm::set(buf, wire::bth::pad_cnt, 1);
	EXPECT_EQ(ib_hdr_parse(buf, n + 5, &g, &l), ib_malformed::bad_pad);
	prm::set(buf, wire::bth::pad_cnt, 0);
	prm::set(buf, wire::bth::tver, 1);
	EXPECT_EQ(ib_hdr_parse(buf, n + 4, &g, &l), ib_malformed::bad_tver);
	prm::set(buf, wire::bth::tver, 0);
	prm::set(buf, wire::bth::opcode, 0x15);
	EXPECT_EQ(ib_hdr_parse(buf, n + 4, &g, &l), ib_malformed::bad_opcode);
	// A SEND whose pad is longer than what follows the headers.
	h.opcode = tr::rc | op::send_only;
	h.pad = 3;
	n = ib_hdr_build(buf, h);
	EXPECT_EQ(ib_hdr_parse(buf, n + 2 + 4, &g, &l), ib_malformed::short_hdr);
	EXPECT_EQ(ib_hdr_parse(buf, n + 3 + 4, &g, &l), ib_malformed::none);
	EXPECT_EQ(l.payload_len, 0u);
}

TEST(IbHdr, PsnArithmeticWraps)
{
	EXPECT_EQ(psn_diff(0, 0xffffff), 1);
	EXPECT_EQ(psn_diff(0xffffff, 0), -1);
	EXPECT_EQ(psn_diff(5, 5), 0);
	EXPECT_EQ(psn_diff(0x7fffff, 0), 0x7fffff);
	EXPECT_EQ(psn_diff(0x800000, 0), -0x800000);
	EXPECT_EQ(psn_add(0xfffffe, 3), 1u);
}

TEST(RoceFrame, IcrcMatchesScapyAndZlib)
{
	for (const auto *f : {&scapy_send_only, &scapy_ack, &zlib_v6_send_only}) {
		roce_rx rx;
		ASSERT_EQ(parse(*f, &rx), roce_rx_verdict::ok);
		ib_hdr h;
		ib_layout l;
		ASSERT_EQ(ib_hdr_parse(rx.ib, rx.ib_len, &h, &l), ib_malformed::none);
	}
	roce_rx rx;
	ASSERT_EQ(parse(scapy_send_only, &rx), roce_rx_verdict::ok);
	EXPECT_FALSE(rx.v6);
	EXPECT_EQ(rx.sport, 0xc123);
	EXPECT_TRUE(gid_is_v4(rx.sgid));
	EXPECT_EQ(rx.sgid[15], 1);
	EXPECT_EQ(rx.dgid[15], 2);
	ib_hdr h;
	ib_layout l;
	ASSERT_EQ(ib_hdr_parse(rx.ib, rx.ib_len, &h, &l), ib_malformed::none);
	EXPECT_EQ(h.opcode, tr::rc | op::send_only);
	EXPECT_EQ(h.psn, 0x100u);
	EXPECT_EQ(h.dest_qp, 0x12u);
	EXPECT_EQ(l.payload_len, 13u);
	EXPECT_EQ(0, memcmp(rx.ib + l.hdr_len, "hello, world!", 13));
	ASSERT_EQ(parse(zlib_v6_send_only, &rx), roce_rx_verdict::ok);
	EXPECT_TRUE(rx.v6);
	EXPECT_EQ(rx.flow_label, 0x12345u);
	EXPECT_EQ(rx.tclass, 0x0a);
}

TEST(RoceFrame, BuiltFramesAreScapysBytes)
{
	// The same SEND_ONLY as scapy's, built here.
	roce_route r;
	const u8 smac[6] = {2, 0, 0, 0, 0, 1}, dmac[6] = {2, 0, 0, 0, 0, 2};
	memcpy(r.smac, smac, 6);
	memcpy(r.dmac, dmac, 6);
	const u8 sg[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
	memcpy(r.sgid, sg, 16);
	memcpy(r.dgid, sg, 16);
	r.dgid[15] = 2;
	r.sport = 0xc123;
	ib_hdr h;
	h.opcode = tr::rc | op::send_only;
	h.pad = 3;
	h.dest_qp = 0x12;
	h.ack_req = true;
	h.psn = 0x100;
	std::vector<u8> f(scapy_send_only.size());
	u32 ib_len = 12 + 13 + 3 + 4;
	u32 lower = roce_frame_build(f.data(), r, ib_len);
	ASSERT_EQ(lower, roce_lower_len(false));
	ASSERT_EQ(ib_hdr_build(f.data() + lower, h), 12u);
	memcpy(f.data() + lower + 12, "hello, world!", 13);
	roce_frame_seal(f.data(), u32(f.size()));
	EXPECT_EQ(f, scapy_send_only);
}

TEST(RoceFrame, MaskedFieldsMayChangeOthersMayNot)
{
	roce_rx rx;
	// TTL, TOS (ECN marking), the UDP checksum and FECN/BECN are not covered.
	auto f = scapy_send_only;
	f[eth_hlen + 8] = 3;        // TTL
	f[eth_hlen + 1] = 0x03;     // ECN CE
	fix_ipv4_checksum(f);
	f[eth_hlen + ipv4_hlen + 6] = 0x12;   // UDP checksum
	f[eth_hlen + ipv4_hlen + udp_hlen + 4] = 0x40;   // BECN
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::ok);
	// One payload bit, the PSN, the source port, an address: ICRC.
	for (u32 at : {60u, 53u, 35u, 29u}) {
		f = scapy_send_only;
		f[at] ^= 0x01;
		if (at < eth_hlen + ipv4_hlen)
			fix_ipv4_checksum(f);
		EXPECT_EQ(parse(f, &rx), roce_rx_verdict::bad_icrc) << at;
	}
	// IPv6: hop limit and flow label are masked too.
	f = zlib_v6_send_only;
	f[eth_hlen + 7] = 1;
	f[eth_hlen + 3] ^= 0xff;
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::ok);
	f[eth_hlen + 8] ^= 1;      // source address
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::bad_icrc);
}

TEST(RoceFrame, ClassifiesWhatIsNotRoceAndWhatIsBroken)
{
	roce_rx rx;
	auto f = scapy_send_only;
	EXPECT_EQ(roce_frame_parse(f.data(), 10, &rx), roce_rx_verdict::bad_eth);
	f[12] = 0x08, f[13] = 0x06;   // ARP
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::not_roce);
	f = scapy_send_only;
	f[eth_hlen + 9] = 6;          // TCP
	fix_ipv4_checksum(f);
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::not_roce);
	f = scapy_send_only;
	f[eth_hlen + ipv4_hlen + 3] = 0x35;   // UDP to port 4661
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::not_roce);
	// Ethernet padding after the datagram is not part of it.
	f = scapy_send_only;
	f.resize(f.size() + 6, 0);
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::ok);
	EXPECT_EQ(rx.ib_len, 12u + 16 + 4);
	// Broken IPv4: checksum, options, a fragment, a total length past the frame.
	f = scapy_send_only;
	f[eth_hlen + 10] ^= 1;
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::bad_ip);
	// IP options (four NOPs): a RoCE packet may not have them.
	f = scapy_send_only;
	f.insert(f.begin() + eth_hlen + ipv4_hlen, 4, 0x01);
	f[eth_hlen] = 0x46;
	f[eth_hlen + 3] += 4;
	fix_ipv4_checksum(f);
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::bad_ip);
	f = scapy_send_only;
	f[eth_hlen + 6] |= 0x20;      // MF
	fix_ipv4_checksum(f);
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::bad_ip);
	f = scapy_send_only;
	f.resize(f.size() - 1);
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::bad_ip);
	// UDP length not the datagram's, or too short for BTH + ICRC.
	f = scapy_send_only;
	f[eth_hlen + ipv4_hlen + 5] -= 4;
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::bad_udp);
	f = scapy_send_only;
	f.resize(eth_hlen + ipv4_hlen + udp_hlen + 8);
	f[eth_hlen + 3] = ipv4_hlen + udp_hlen + 8;
	f[eth_hlen + ipv4_hlen + 5] = udp_hlen + 8;
	fix_ipv4_checksum(f);
	EXPECT_EQ(parse(f, &rx), roce_rx_verdict::bad_udp);
}
