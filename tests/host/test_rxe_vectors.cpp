// SPDX-License-Identifier: GPL-2.0
// RoCEv2 frames as rdma_rxe put them on a wire: two stock guests on a QEMU
// socket link, captured with AF_PACKET on one of them
// (tests/vm/rxe-vectors.sh wrote vectors/rxe_frames.inc). Each frame's
// ICRC is recomputed here from IBTA's rule, bit by bit and with no code of
// softcx's, and must be the one rxe sent; then softcx's classifier (which
// checks the ICRC its own way) and header parser must take every frame,
// and the frames must cover the kinds of packet the transport exchanges.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "hca/ib_hdr.h"
#include "hca/roce_frame.h"

using namespace scx;
using namespace scx::hca;
namespace op = scx::wire::bth_op;
namespace tr = scx::wire::bth_transport;

namespace {

const char *const rxe_frames[] = {
#include "vectors/rxe_frames.inc"
};

std::vector<u8> unhex(const char *s)
{
	std::vector<u8> v;
	auto nib = [](char c) { return u8(c <= '9' ? c - '0' : c - 'a' + 10); };
	for (; s[0] && s[1]; s += 2)
		v.push_back(u8(nib(s[0]) << 4 | nib(s[1])));
	return v;
}

// CRC-32 of IEEE 802.3 (reflected polynomial 0xedb88320), a bit at a time.
u32 crc32_bitwise(u32 crc, const std::vector<u8> &d)
{
	for (u8 b : d) {
		crc ^= b;
		for (int i = 0; i < 8; i++)
			crc = crc & 1 ? crc >> 1 ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

struct layout {
	bool v6;
	size_t l3, l4, bth, end; // offsets; end: just past the ICRC
};

layout layout_of(const std::vector<u8> &f)
{
	layout l{};
	l.v6 = f[12] == 0x86 && f[13] == 0xdd;
	l.l3 = 14;
	if (l.v6) {
		l.l4 = l.l3 + 40;
		l.end = l.l4 + (size_t(f[l.l3 + 4]) << 8 | f[l.l3 + 5]);
	} else {
		l.l4 = l.l3 + size_t(f[l.l3] & 0xf) * 4;
		l.end = l.l3 + (size_t(f[l.l3 + 2]) << 8 | f[l.l3 + 3]);
	}
	l.bth = l.l4 + 8;
	return l;
}

// The ICRC the sender put in the frame's last four bytes (little-endian).
u32 icrc_sent(const std::vector<u8> &f, const layout &l)
{
	return u32(f[l.end - 4]) | u32(f[l.end - 3]) << 8 | u32(f[l.end - 2]) << 16 | u32(f[l.end - 1]) << 24;
}

// The ICRC as Annex A17 defines it: 64 bits of ones standing for the LRH;
// the IP header with the traffic class, flow label, TTL / hop limit and
// IPv4 checksum all ones; the UDP header with its checksum all ones; the
// BTH with its reserved byte (FECN, BECN) all ones; then the rest of the
// packet up to the ICRC.
u32 icrc_by_the_spec(const std::vector<u8> &f, const layout &l)
{
	std::vector<u8> m(8, 0xff);
	m.insert(m.end(), f.begin() + l.l3, f.begin() + l.end - 4);
	size_t ip = 8, udp = 8 + (l.l4 - l.l3), bth = udp + 8;
	if (l.v6) {
		m[ip] |= 0x0f;
		m[ip + 1] = m[ip + 2] = m[ip + 3] = 0xff;
		m[ip + 7] = 0xff;
	} else {
		m[ip + 1] = 0xff;
		m[ip + 8] = 0xff;
		m[ip + 10] = m[ip + 11] = 0xff;
	}
	m[udp + 6] = m[udp + 7] = 0xff;
	m[bth + 4] = 0xff;
	return ~crc32_bitwise(~0u, m);
}

} // namespace

TEST(RxeFrames, IcrcIsTheSpecsAndSoftcxTakesEveryFrame)
{
	ASSERT_GE(std::size(rxe_frames), 20u);
	std::set<std::pair<u8, bool>> kinds;
	for (const char *hex : rxe_frames) {
		std::vector<u8> f = unhex(hex);
		layout l = layout_of(f);
		ASSERT_LE(l.end, f.size()) << hex;
		EXPECT_EQ(icrc_by_the_spec(f, l), icrc_sent(f, l)) << hex;
		// Ethernet may have padded a short frame: softcx sees what the IP
		// header says.
		f.resize(l.end);
		roce_rx rx;
		ASSERT_EQ(roce_frame_parse(f.data(), u32(f.size()), &rx), roce_rx_verdict::ok) << hex;
		EXPECT_EQ(rx.v6, l.v6);
		ib_hdr h;
		ib_layout il;
		ASSERT_EQ(ib_hdr_parse(rx.ib, rx.ib_len, &h, &il), ib_malformed::none) << hex;
		EXPECT_EQ(h.opcode, f[l.bth]);
		kinds.insert({h.opcode, l.v6});
	}
	// What the capture exchanged (rxe-capture.sh): a SEND of 3000 bytes at
	// MTU 1024, UD SENDs, WRITEs and READs of 3000 bytes, fetch-and-adds,
	// over IPv4, and an RC SEND over IPv6, with their ACKs.
	for (u8 want : {u8(tr::rc | op::send_first), u8(tr::rc | op::send_middle), u8(tr::rc | op::send_last),
			u8(tr::rc | op::ack), u8(tr::ud | op::send_only),
			u8(tr::rc | op::write_first), u8(tr::rc | op::write_middle),
			u8(tr::rc | op::write_last), u8(tr::rc | op::read_request),
			u8(tr::rc | op::read_resp_first), u8(tr::rc | op::read_resp_middle),
			u8(tr::rc | op::read_resp_last), u8(tr::rc | op::fetch_add),
			u8(tr::rc | op::atomic_ack)})
		EXPECT_TRUE(kinds.count({want, false})) << "no IPv4 frame of opcode 0x" << std::hex << int(want);
	EXPECT_TRUE(kinds.count({u8(tr::rc | op::send_only), true}) || kinds.count({u8(tr::rc | op::send_last), true}))
		<< "no IPv6 RC SEND";
}

// A flipped bit anywhere the ICRC covers is caught by both computations.
TEST(RxeFrames, AFlippedCoveredBitFailsBoth)
{
	std::vector<u8> f = unhex(rxe_frames[0]);
	layout l = layout_of(f);
	f.resize(l.end);
	f[l.bth + 7] ^= 0x01; // the PSN's low bit
	EXPECT_NE(icrc_by_the_spec(f, l), icrc_sent(f, l));
	roce_rx rx;
	EXPECT_EQ(roce_frame_parse(f.data(), u32(f.size()), &rx), roce_rx_verdict::bad_icrc);
}
