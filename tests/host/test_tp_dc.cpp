// SPDX-License-Identifier: GPL-2.0
// DC on the transport engine (hca/tp_dc.cpp), on the simulated link: a DCI
// reaches two targets, one connection at a time, in SQ order; a target's
// context opens on the connect bit, answers the opening sent again as a
// duplicate, and drops what comes with no connection; loss, duplication
// and reordering deliver every message once.
#include <gtest/gtest.h>

#include "tp_sim.h"

using namespace scx;
using namespace scx::hca;
using namespace scx::hca::sim;

namespace {

constexpr u64 key1 = 0x1ee7a330, key2 = 0x0badc0de;

tp_qp_attr attr(tp_st st, u32 qpn)
{
	tp_qp_attr a;
	a.st = st;
	a.qpn = qpn;
	a.mtu = 1024;
	a.sq_psn = 0xfffff0;   // the PSNs wrap early on
	a.timeout = 5;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.min_rnr_timer = 1;
	a.max_rd_atomic = 4;
	a.max_dest_rd_atomic = 4;
	return a;
}

// A DCI on node a; on node b two targets' contexts for it (as a DCT hands
// one to each initiator), each with its own memory and receive queue.
struct dc_fixture {
	world w;
	qp &dci, &t1, &t2;
	u32 rkey;
	explicit dc_fixture(u64 seed)
		: w(seed, 4 << 20), dci(w.add_qp(w.a, attr(tp_st::dci, 0x31))), t1(w.add_qp(w.b, attr(tp_st::dct, 0x41))),
		  t2(w.add_qp(w.b, attr(tp_st::dct, 0x42)))
	{
		transport::start_requester(dci.t);
		// A context holds no connection until a connect opens one.
		t1.peer = t2.peer = &dci;
		rkey = w.add_key(w.b, 0x40000, 0x40000, tp_access::write | tp_access::read | tp_access::atomic);
	}
	void post(qp &target, tp_op op, u32 len, u64 local, u64 raddr = 0)
	{
		tp_send_wr wr{};
		wr.op = op;
		wr.len = len;
		wr.raddr = raddr;
		wr.rkey = rkey;
		wr.dest_qpn = target.t.a.qpn;
		wr.dc_key = &target == &t1 ? key1 : key2;
		qp *to = &target;
		memcpy(wr.ud_av, &to, sizeof(to));
		w.post_send(dci, wr, local);
	}
};

void fill(std::vector<u8> &m, u64 off, u32 len, u32 seed)
{
	for (u32 i = 0; i < len; i++)
		m[off + i] = u8(seed * 131 + i * 7 + (i >> 8));
}

} // namespace

TEST(TransportDc, TwoTargetsOneConnectionAtATime)
{
	dc_fixture f(1);
	world &w = f.w;
	fill(w.a.mem, 0, 0x20000, 3);
	for (u32 i = 0; i < 4; i++) {
		w.post_recv(f.t1, 0x10000 + i * 0x2000, 0x2000, i);
		w.post_recv(f.t2, 0x18000 + i * 0x2000, 0x2000, 10 + i);
	}
	// t1, t1 (one connection), t2, t1, t2 (each a new one), a WRITE to
	// t2 in the same connection, a READ back from t1 (new).
	f.post(f.t1, tp_op::send, 3000, 0);
	f.post(f.t1, tp_op::send, 100, 0x1000);
	f.post(f.t2, tp_op::send, 2048, 0x2000);
	f.post(f.t1, tp_op::send, 0, 0);
	f.post(f.t2, tp_op::send, 5000, 0x3000);
	f.post(f.t2, tp_op::write, 4000, 0x8000, 0x100);
	f.post(f.t1, tp_op::read, 4000, 0x30000, 0x100);
	w.run();
	ASSERT_EQ(f.dci.done.size(), 7u);
	for (u32 i = 0; i < 7; i++) {
		EXPECT_EQ(f.dci.done[i].index, i);
		EXPECT_EQ(f.dci.done[i].syndrome, 0) << i;
	}
	EXPECT_EQ(w.net.dc_connects, 5u);
	ASSERT_EQ(f.t1.recvd.size(), 3u);
	ASSERT_EQ(f.t2.recvd.size(), 2u);
	EXPECT_EQ(f.t1.recvd[0].d.len, 3000u);
	EXPECT_EQ(f.t1.recvd[1].d.len, 100u);
	EXPECT_EQ(f.t1.recvd[2].d.len, 0u);
	EXPECT_EQ(f.t2.recvd[0].d.len, 2048u);
	EXPECT_EQ(f.t2.recvd[1].d.len, 5000u);
	EXPECT_EQ(f.t1.recvd[0].d.src_qp, 0x31u);
	EXPECT_EQ(memcmp(&w.b.mem[0x10000], &w.a.mem[0], 3000), 0);
	EXPECT_EQ(memcmp(&w.b.mem[0x18000 + 0x2000], &w.a.mem[0x3000], 5000), 0);
	EXPECT_EQ(memcmp(&w.b.mem[0x40100], &w.a.mem[0x8000], 4000), 0);
	EXPECT_EQ(memcmp(&w.a.mem[0x30000], &w.b.mem[0x40100], 4000), 0);
	EXPECT_TRUE(f.t1.fatals.empty());
	EXPECT_TRUE(f.t2.fatals.empty());
}

// The opening lost: sent again with the connect bit, it opens then. An
// answer lost: the opening comes again and is a duplicate, not a second
// message.
TEST(TransportDc, OpeningLostOrAnsweredTwice)
{
	namespace op = wire::bth_op;
	namespace tr = wire::bth_transport;
	dc_fixture f(2);
	world &w = f.w;
	w.post_recv(f.t1, 0x10000, 0x1000, 1);
	w.post_recv(f.t1, 0x11000, 0x1000, 2);
	w.net.drop_opcode = tr::dc | op::send_only;
	w.net.drop_opcode_left = 1;
	f.post(f.t1, tp_op::send, 64, 0);
	w.run();
	ASSERT_EQ(f.dci.done.size(), 1u);
	EXPECT_EQ(f.dci.done[0].syndrome, 0);
	EXPECT_EQ(f.t1.recvd.size(), 1u);
	EXPECT_EQ(w.net.dc_connects, 2u);

	w.net.drop_opcode = tr::rc | op::ack;
	w.net.drop_opcode_left = 1;
	f.post(f.t1, tp_op::send, 64, 0);
	w.run();
	ASSERT_EQ(f.dci.done.size(), 2u);
	EXPECT_EQ(f.dci.done[1].syndrome, 0);
	EXPECT_EQ(f.t1.recvd.size(), 2u);   // once, though it came twice
	EXPECT_EQ(f.t1.t.cnt.dup_requests, 1u);
}

// A packet for a context that holds no connection (it never saw an
// opening) is dropped, and nothing reaches the responder.
TEST(TransportDc, NoConnectionNoDelivery)
{
	namespace op = wire::bth_op;
	namespace tr = wire::bth_transport;
	dc_fixture f(3);
	world &w = f.w;
	w.post_recv(f.t1, 0x10000, 0x4000, 1);
	ib_hdr h;
	h.opcode = tr::dc | op::send_only;
	h.dest_qp = 0x41;
	h.psn = 7;
	h.dci_qp = 0x31;
	h.dc_key = key1;
	u8 pkt[64] = {};
	u32 n = ib_hdr_build(pkt, h);
	tp_rx_meta m;
	w.eng_b.receive(f.t1.t, pkt, n + 4, m, w.now);
	EXPECT_EQ(f.t1.t.cnt.dropped, 1u);
	EXPECT_TRUE(f.t1.recvd.empty());
	EXPECT_FALSE(f.t1.t.ready_resp);
	// The same with the connect bit opens, and is delivered.
	h.dc_connect = true;
	ib_hdr_build(pkt, h);
	w.eng_b.receive(f.t1.t, pkt, n + 4, m, w.now);
	EXPECT_EQ(f.t1.recvd.size(), 1u);
	EXPECT_EQ(f.t1.t.a.dest_qpn, 0x31u);
	// RC's answers are not a context's: malformed.
	h.opcode = tr::rc | op::send_only;
	n = ib_hdr_build(pkt, h);
	w.eng_b.receive(f.t1.t, pkt, n + 4, m, w.now);
	EXPECT_EQ(f.t1.t.cnt.malformed, 1u);
}

// Many messages, bursts to alternating targets, over a link that loses,
// duplicates and reorders: each delivered once, in order, data intact;
// each atomic executed once.
void lossy_bursts(u64 seed)
{
	SCOPED_TRACE(seed);
	dc_fixture f(seed);
	world &w = f.w;
	w.net.rates.drop = 0.03;
	w.net.rates.dup = 0.03;
	w.net.rates.reorder = 0.03;
	fill(w.a.mem, 0, 0x40000, 9);
	constexpr u32 n = 400;
	for (u32 i = 0; i < n; i++) {
		w.post_recv(f.t1, 0x100000 + u64(i) * 0x1000, 0x1000, i);
		w.post_recv(f.t2, 0x300000 + u64(i) * 0x1000, 0x1000, i);
	}
	u32 sends1 = 0, sends2 = 0, atomics = 0;
	for (u32 i = 0; i < n; i++) {
		qp &t = (i / 3) % 2 ? f.t2 : f.t1;   // bursts of 3
		if (i % 7 == 6) {
			f.post(t, tp_op::fetch_add, 8, 0x80000 + i * 8, 0x200);
			atomics++;
		} else {
			f.post(t, tp_op::send, 1 + (i * 613) % 4000, (i * 97) % 0x30000);
			(&t == &f.t1 ? sends1 : sends2)++;
		}
		if (i % 50 == 49)
			w.run();
	}
	w.run();
	ASSERT_EQ(f.dci.done.size(), n);
	for (u32 i = 0; i < n; i++)
		ASSERT_EQ(f.dci.done[i].syndrome, 0) << i;
	EXPECT_EQ(f.t1.recvd.size(), sends1);
	EXPECT_EQ(f.t2.recvd.size(), sends2);
	EXPECT_EQ(w.b.atomics_executed, atomics);
	u64 v;
	memcpy(&v, &w.b.mem[0x40200], 8);
	EXPECT_EQ(v, 0u);   // fetch_add of swap_add 0: the value stays
	EXPECT_GT(w.net.dropped, 0u);
}

TEST(TransportDc, LossyLinkBurstsToTwoTargets)
{
	for (u64 seed = 4; seed < 40; seed++)
		lossy_bursts(seed);
}
