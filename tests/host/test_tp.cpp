// SPDX-License-Identifier: GPL-2.0
// The transport engine on a simulated link (tp_sim.h): every opcode, then a
// million mixed messages over a link that drops, duplicates and reorders;
// RNR, retry exhaustion and every NAK; PSN wrap-around; READ and atomic
// replay on duplicates; UC losing only the damaged message; UD's Q_Key.
#include <gtest/gtest.h>

#include <numeric>

#include "tp_sim.h"

using namespace scx;
using namespace scx::hca;
using namespace scx::hca::sim;

namespace {

tp_qp_attr attr(tp_st st, u32 qpn, u32 sq_psn)
{
	tp_qp_attr a;
	a.st = st;
	a.qpn = qpn;
	a.mtu = 1024;
	a.sq_psn = sq_psn;
	a.timeout = 5;          // 131 us
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.min_rnr_timer = 1;    // 10 us
	a.max_rd_atomic = 4;
	a.max_dest_rd_atomic = 4;
	a.qkey = 0x1234;
	return a;
}

tp_send_wr wr_of(tp_op op, u32 len, u64 raddr = 0, u32 rkey = 0)
{
	tp_send_wr w;
	w.op = op;
	w.len = len;
	w.raddr = raddr;
	w.rkey = rkey;
	return w;
}

void fill(std::vector<u8> &m, u64 off, u32 len, u32 seed)
{
	for (u32 i = 0; i < len; i++)
		m[off + i] = u8(seed * 131 + i * 7 + (i >> 8));
}

bool same(const std::vector<u8> &x, u64 xo, const std::vector<u8> &y, u64 yo, u32 len)
{
	return memcmp(&x[xo], &y[yo], len) == 0;
}

struct pair_fixture {
	world w;
	qp &a, &b;
	u32 b_key;
	pair_fixture(u64 seed, tp_st st = tp_st::rc, u32 psn_a = 100, u32 psn_b = 5000)
		: w(seed, 4 << 20), a(w.add_qp(w.a, attr(st, 0x11, psn_a))), b(w.add_qp(w.b, attr(st, 0x22, psn_b)))
	{
		w.connect(a, b);
		b_key = w.add_key(w.b, 0x40000, 0x40000, tp_access::write | tp_access::read | tp_access::atomic);
	}
};

} // namespace

TEST(Transport, EveryRcOpcodeWithoutLoss)
{
	pair_fixture f(1);
	world &w = f.w;
	fill(w.a.mem, 0, 0x10000, 1);
	fill(w.b.mem, 0x40000, 0x10000, 2);
	for (u32 i = 0; i < 4; i++)
		w.post_recv(f.b, 0x20000 + i * 0x4000, 0x4000, i);
	u32 inv_key = w.add_key(w.b, 0x90000, 64, tp_access::write);
	w.post_send(f.a, wr_of(tp_op::send, 3000), 0);                        // 3 packets
	tp_send_wr si = wr_of(tp_op::send_imm, 0);                             // empty
	si.imm = 0xabcdef01;
	w.post_send(f.a, si, 0);
	w.post_send(f.a, wr_of(tp_op::write, 5000, 0x100, f.b_key), 0x1000);  // 5 packets
	tp_send_wr wi = wr_of(tp_op::write_imm, 1024, 0x3000, f.b_key);
	wi.imm = 7;
	w.post_send(f.a, wi, 0x3000);
	w.post_send(f.a, wr_of(tp_op::read, 4000, 0x8000, f.b_key), 0x8000);
	tp_send_wr cs = wr_of(tp_op::cmp_swap, 8, 0xc000, f.b_key);
	u64 before;
	memcpy(&before, &w.b.mem[0x4c000], 8);
	cs.compare = before;
	cs.swap_add = 0x5555;
	w.post_send(f.a, cs, 0xd000);
	tp_send_wr fa = wr_of(tp_op::fetch_add, 8, 0xc000, f.b_key);
	fa.swap_add = 3;
	w.post_send(f.a, fa, 0xd008);
	tp_send_wr sv = wr_of(tp_op::send_inv, 10);
	sv.imm = inv_key;
	w.post_send(f.a, sv, 0);
	w.run();

	ASSERT_EQ(f.a.done.size(), 8u);
	for (u32 i = 0; i < 8; i++) {
		EXPECT_EQ(f.a.done[i].index, i);
		EXPECT_EQ(f.a.done[i].syndrome, 0) << i;
	}
	ASSERT_EQ(f.b.recvd.size(), 4u);
	EXPECT_EQ(f.b.recvd[0].d.len, 3000u);
	EXPECT_TRUE(same(w.b.mem, 0x20000, w.a.mem, 0, 3000));
	EXPECT_EQ(f.b.recvd[1].d.kind, tp_recv_kind::send_imm);
	EXPECT_EQ(f.b.recvd[1].d.imm, 0xabcdef01u);
	EXPECT_EQ(f.b.recvd[1].d.len, 0u);
	EXPECT_TRUE(same(w.b.mem, 0x40100, w.a.mem, 0x1000, 5000));
	EXPECT_EQ(f.b.recvd[2].d.kind, tp_recv_kind::write_imm);
	EXPECT_EQ(f.b.recvd[2].d.len, 1024u);
	EXPECT_EQ(f.b.recvd[2].d.imm, 7u);
	EXPECT_TRUE(same(w.a.mem, 0x8000, w.b.mem, 0x48000, 4000));
	u64 got_cs, got_fa, now_v;
	memcpy(&got_cs, &w.a.mem[0xd000], 8);
	memcpy(&got_fa, &w.a.mem[0xd008], 8);
	memcpy(&now_v, &w.b.mem[0x4c000], 8);
	EXPECT_EQ(got_cs, before);
	EXPECT_EQ(got_fa, 0x5555u);
	EXPECT_EQ(now_v, 0x5558u);
	EXPECT_EQ(f.b.recvd[3].d.kind, tp_recv_kind::send_inv);
	EXPECT_EQ(f.b.recvd[3].d.imm, inv_key);
	EXPECT_EQ(w.b.keys.count(inv_key), 0u);
	EXPECT_EQ(f.b.established, 1u);
	// Nothing went twice on a clean link.
	EXPECT_EQ(f.a.t.cnt.retrans_timeout + f.a.t.cnt.retrans_nak, 0u);
	EXPECT_EQ(f.b.t.cnt.dup_requests, 0u);
}

// Many messages of every kind, in batches, over a link that loses,
// duplicates and reorders: each SEND arrives once, in order, intact; each
// READ returns the responder's bytes; each atomic executes once.
//   A's memory: WRITE source 0x30000, atomic results 0x3f000, READ
//   targets 0x40000 + 4 KiB slots, SEND sources 0x100000 + 5 KiB slots.
//   B's memory: the key at 0x40000 (READs from its first 128 KiB, WRITEs
//   at +0x30000, the counter at +0x3f000), receives 0x100000 + 5 KiB slots.
static void lossy_run(u64 seed, u32 messages, const link_rates &rates, u32 psn_a)
{
	pair_fixture f(seed, tp_st::rc, psn_a, 0xfffff0);
	world &w = f.w;
	w.net.rates = rates;
	fill(w.b.mem, 0x40000, 0x30000, 9);
	std::mt19937 rng{u32(seed)};
	u32 sends = 0, adds = 0, posted = 0;
	const u64 counter_off = 0x3f000, slot = 0x1400;
	u64 zero = 0;
	memcpy(&w.b.mem[0x40000 + counter_off], &zero, 8);
	while (posted < messages) {
		u32 batch = std::min<u32>(200, messages - posted);
		u32 first_done = u32(f.a.done.size()), first_recv = u32(f.b.recvd.size());
		struct check {
			u64 a_off, b_off;
			u32 len;
		};
		std::vector<check> sent, read;
		for (u32 i = 0; i < batch; i++) {
			u32 pick = rng() % 10;
			// Sizes: mostly small, some of several MTUs.
			u32 len = rng() % 4 == 0 ? 1 + rng() % 5000 : rng() % 300;
			if (pick < 5) {
				u64 src = 0x100000 + slot * (sends % 256), dst = 0x100000 + slot * (sends % 256);
				fill(w.a.mem, src, len, sends);
				w.post_recv(f.b, dst, u32(slot), sends);
				tp_send_wr s = wr_of(tp_op::send_imm, len);
				s.imm = sends++;
				w.post_send(f.a, s, src);
				sent.push_back({src, dst, len});
			} else if (pick < 7) {
				w.post_send(f.a, wr_of(tp_op::write, len, 0x30000 + rng() % 0x1000, f.b_key), 0x30000);
			} else if (pick < 9) {
				len = std::min<u32>(len, 0x1000);
				u64 ro = rng() % 0x20000, dst = 0x40000 + 0x1000 * (read.size() % 64);
				w.post_send(f.a, wr_of(tp_op::read, len, ro, f.b_key), dst);
				read.push_back({dst, 0x40000 + ro, len});
			} else {
				tp_send_wr a = wr_of(tp_op::fetch_add, 8, counter_off, f.b_key);
				a.swap_add = 1;
				w.post_send(f.a, a, 0x3f000 + 8 * (adds++ % 64));
			}
		}
		posted += batch;
		w.run();
		ASSERT_EQ(f.a.done.size(), first_done + batch) << "seed " << seed << " after " << posted;
		for (u32 i = 0; i < batch; i++)
			ASSERT_EQ(f.a.done[first_done + i].syndrome, 0) << "seed " << seed << " message " << posted - batch + i;
		// Each SEND once, in order, intact.
		ASSERT_EQ(f.b.recvd.size(), first_recv + sent.size());
		for (u32 i = 0; i < sent.size(); i++) {
			const auto &r = f.b.recvd[first_recv + i].d;
			ASSERT_EQ(r.imm, sends - sent.size() + i);
			ASSERT_EQ(r.len, sent[i].len);
			ASSERT_EQ(r.syndrome, 0);
			ASSERT_TRUE(same(w.b.mem, sent[i].b_off, w.a.mem, sent[i].a_off, sent[i].len)) << "send " << r.imm;
		}
		for (u32 i = 0; i < read.size() && i < 64; i++)
			ASSERT_TRUE(same(w.a.mem, read[i].a_off, w.b.mem, read[i].b_off, read[i].len)) << "read " << i;
	}
	u64 v;
	memcpy(&v, &w.b.mem[0x40000 + counter_off], 8);
	EXPECT_EQ(v, adds) << "each fetch-and-add executed exactly once";
	EXPECT_EQ(w.b.atomics_executed, adds);
	const tp_counters &ca = f.a.t.cnt, &cb = f.b.t.cnt;
	printf("  %u messages: %llu packets sent, %llu dropped, %llu duplicated, %llu reordered; "
	       "A: %llu timeouts, %llu NAK retries, %llu seq NAKs in; B: %llu dups, %llu ahead, %llu seq NAKs out\n",
	       messages, (unsigned long long)w.net.sent, (unsigned long long)w.net.dropped,
	       (unsigned long long)w.net.duplicated, (unsigned long long)w.net.reordered,
	       (unsigned long long)ca.retrans_timeout, (unsigned long long)ca.retrans_nak,
	       (unsigned long long)ca.seq_naks_rcvd, (unsigned long long)cb.dup_requests,
	       (unsigned long long)cb.out_of_seq, (unsigned long long)cb.seq_naks_sent);
	if (rates.drop > 0) {
		EXPECT_GT(f.a.t.cnt.retrans_timeout + f.a.t.cnt.retrans_nak, 0u);
		EXPECT_GT(f.b.t.cnt.dup_requests + f.b.t.cnt.out_of_seq, 0u);
	}
}

TEST(Transport, AMillionMessagesOnALossyLinkEachOnceInOrder)
{
	link_rates r;
	r.drop = 0.01;
	r.dup = 0.005;
	r.reorder = 0.01;
	lossy_run(11, 1000000, r, 0xffff00);
}

TEST(Transport, PsnWrapsAcrossTheWholeSpace)
{
	// The requester starts just below 2^24 and the responder's reads
	// start there too: every PSN comparison crosses the wrap.
	link_rates r;
	r.drop = 0.02;
	lossy_run(12, 2000, r, 0xfffffa);
}

TEST(Transport, HarshLinksStillDeliverExactlyOnce)
{
	struct {
		double drop, dup, reorder;
	} cases[] = {{0.05, 0, 0}, {0, 0.1, 0}, {0, 0, 0.2}, {0.03, 0.03, 0.03}, {0.1, 0.05, 0.05}};
	u64 seed = 100;
	for (auto &c : cases) {
		link_rates r;
		r.drop = c.drop;
		r.dup = c.dup;
		r.reorder = c.reorder;
		SCOPED_TRACE(testing::Message() << "drop " << c.drop << " dup " << c.dup << " reorder " << c.reorder);
		seed++;
		lossy_run(seed, 5000, r, u32(seed * 977));
		if (HasFatalFailure())
			return;
	}
}

namespace {
namespace bop = wire::bth_op;
namespace btr = wire::bth_transport;
} // namespace

TEST(Transport, RnrWaitsForAReceiveThenRunsOut)
{
	pair_fixture f(3);
	world &w = f.w;
	w.post_send(f.a, wr_of(tp_op::send, 100), 0);
	w.run(w.now + 2000000);
	EXPECT_TRUE(f.a.done.empty());
	EXPECT_GE(f.a.t.cnt.rnr_naks_rcvd, 10u);   // a NAK every 10 us for 2 ms
	EXPECT_EQ(f.a.t.cnt.rnr_naks_rcvd, f.b.t.cnt.rnr_naks_sent);
	w.post_recv(f.b, 0x1000, 200, 1);
	w.run();
	ASSERT_EQ(f.a.done.size(), 1u);
	EXPECT_EQ(f.a.done[0].syndrome, 0);
	ASSERT_EQ(f.b.recvd.size(), 1u);

	// rnr_retry 2: the third RNR NAK fails the WQE, the next is flushed.
	pair_fixture g(4);
	g.a.t.a.rnr_retry = 2;
	transport::start_requester(g.a.t);
	g.w.post_send(g.a, wr_of(tp_op::send, 100), 0);
	g.w.post_send(g.a, wr_of(tp_op::send, 100), 0);
	g.w.run();
	ASSERT_EQ(g.a.done.size(), 2u);
	EXPECT_EQ(g.a.done[0].syndrome, tp_synd::rnr_retry_exc);
	EXPECT_EQ(g.a.done[1].syndrome, tp_synd::wr_flush);
	EXPECT_EQ(g.a.t.cnt.rnr_naks_rcvd, 3u);
	ASSERT_EQ(g.a.fatals.size(), 1u);
	EXPECT_EQ(g.a.fatals[0], tp_fatal::requester);
}

TEST(Transport, RetryCountRunsOutOnADeadLink)
{
	pair_fixture f(5);
	world &w = f.w;
	f.a.t.a.retry_cnt = 3;
	transport::start_requester(f.a.t);
	w.net.rates.drop = 1.0;
	w.post_send(f.a, wr_of(tp_op::write, 10, 0, f.b_key), 0);
	w.run();
	ASSERT_EQ(f.a.done.size(), 1u);
	EXPECT_EQ(f.a.done[0].syndrome, tp_synd::retry_exc);
	// The first attempt and three retries.
	EXPECT_EQ(w.net.sent, 4u);
	EXPECT_EQ(f.a.t.cnt.retrans_timeout, 3u);
}

namespace {

// A 256 KiB WRITE and SEND from a to b over a wire that carries a packet a
// microsecond: each takes about twice the ACK timeout (131 us) to send.
struct long_messages {
	pair_fixture f{6};
	explicit long_messages(u8 log_ack_req_freq)
	{
		world &w = f.w;
		w.net.rates.pkt_ns = 1000;
		f.a.t.a.log_ack_req_freq = log_ack_req_freq;
		fill(w.a.mem, 0, 0x40000, 3);
		w.post_recv(f.b, 0x100000, 0x40000, 0);
		w.post_send(f.a, wr_of(tp_op::write, 0x40000, 0, f.b_key), 0);
		w.post_send(f.a, wr_of(tp_op::send, 0x40000), 0);
		w.run();
	}
};

} // namespace

TEST(Transport, MessagesLongerThanTheAckTimeoutAreAckedAsTheyGo)
{
	long_messages m(4);
	world &w = m.f.w;
	ASSERT_EQ(m.f.a.done.size(), 2u);
	EXPECT_EQ(m.f.a.done[0].syndrome, 0);
	EXPECT_EQ(m.f.a.done[1].syndrome, 0);
	EXPECT_TRUE(same(w.b.mem, 0x40000, w.a.mem, 0, 0x40000));
	ASSERT_EQ(m.f.b.recvd.size(), 1u);
	EXPECT_TRUE(same(w.b.mem, 0x100000, w.a.mem, 0, 0x40000));
	EXPECT_EQ(m.f.a.t.cnt.retrans_timeout, 0u);
	// AckReq on every 16th PSN and on each message's last packet, nowhere
	// else (the responder's ACKs never carry it).
	u64 want = 0;
	for (u32 psn = 100; psn < 100 + 512; psn++)
		want += (psn + 1) % 16 == 0 || psn == 100 + 255 || psn == 100 + 511;
	EXPECT_EQ(w.net.ack_reqs, want);
}

TEST(Transport, RareAckRequestsStillComeEveryHalfWindow)
{
	// The QPC asks for an ACK every 2^15 packets: the requester asks every
	// half window all the same, or its window would close with nothing
	// asked and only the timer would open it again.
	long_messages m(15);
	EXPECT_EQ(m.f.a.t.cnt.retrans_timeout, 0u);
	u64 want = 0, half = tp_window_pkts / 2;
	for (u32 psn = 100; psn < 100 + 512; psn++)
		want += (psn + 1) % half == 0 || psn == 100 + 255 || psn == 100 + 511;
	EXPECT_EQ(m.f.w.net.ack_reqs, want);
}

TEST(Transport, ASlowWireHoldsAWindowNotTheWholeSendQueue)
{
	// Eight 256 KiB WRITEs (2048 packets) over a wire that carries one
	// packet in 20 us. Posted at once, they would all wait on the wire,
	// each ACK later than the last; the window keeps it to 128 packets.
	pair_fixture f(8);
	world &w = f.w;
	w.net.rates.pkt_ns = 20000;
	f.a.t.a.timeout = 14;   // 67 ms: the wire is slow, not lossy
	transport::start_requester(f.a.t);
	fill(w.a.mem, 0, 0x40000, 5);
	for (int i = 0; i < 8; i++)
		w.post_send(f.a, wr_of(tp_op::write, 0x40000, 0, f.b_key), 0);
	w.run();
	ASSERT_EQ(f.a.done.size(), 8u);
	for (const completion &c : f.a.done)
		EXPECT_EQ(c.syndrome, 0);
	EXPECT_TRUE(same(w.b.mem, 0x40000, w.a.mem, 0, 0x40000));
	EXPECT_EQ(f.a.t.cnt.retrans_timeout, 0u);
	EXPECT_EQ(f.a.t.cnt.tx_pkts, 2048u);
	EXPECT_LE(w.net.max_queued[&w.b], u64(tp_window_pkts));
	EXPECT_GE(w.net.max_queued[&w.b], u64(tp_window_pkts) - 16);
}

TEST(Transport, NaksFailTheWqeAndBothQps)
{
	struct {
		const char *what;
		u8 want_req, want_recv;
		tp_fatal want_resp;
	} cases[] = {
		{"write with a bad rkey", tp_synd::remote_access, 0, tp_fatal::access},
		{"misaligned atomic", tp_synd::remote_inv_req, 0, tp_fatal::inval_req},
		{"receive WQE unreadable", tp_synd::remote_op, tp_synd::local_prot, tp_fatal::local},
		{"send longer than the receive", tp_synd::remote_inv_req, tp_synd::local_len, tp_fatal::local},
		{"read past the key", tp_synd::remote_access, 0, tp_fatal::access},
	};
	for (u32 i = 0; i < 5; i++) {
		SCOPED_TRACE(cases[i].what);
		pair_fixture f(20 + i);
		world &w = f.w;
		w.post_recv(f.b, 0x1000, 64, 1);
		switch (i) {
		case 0: w.post_send(f.a, wr_of(tp_op::write, 10, 0, f.b_key + 0x100), 0); break;
		case 1: w.post_send(f.a, wr_of(tp_op::fetch_add, 8, 4, f.b_key), 0x100); break;
		case 2: f.b.recv_fault_next = true; w.post_send(f.a, wr_of(tp_op::send, 10), 0); break;
		case 3: w.post_send(f.a, wr_of(tp_op::send, 65), 0); break;
		case 4: w.post_send(f.a, wr_of(tp_op::read, 16, 0x3fff8, f.b_key), 0x100); break;
		}
		w.post_send(f.a, wr_of(tp_op::write, 10, 0, f.b_key), 0);
		w.run();
		ASSERT_EQ(f.a.done.size(), 2u);
		EXPECT_EQ(f.a.done[0].syndrome, cases[i].want_req);
		EXPECT_EQ(f.a.done[1].syndrome, tp_synd::wr_flush);
		ASSERT_EQ(f.b.fatals.size(), 1u);
		EXPECT_EQ(f.b.fatals[0], cases[i].want_resp);
		if (cases[i].want_recv) {
			ASSERT_EQ(f.b.recvd.size(), 1u);
			EXPECT_EQ(f.b.recvd[0].d.syndrome, cases[i].want_recv);
		}
	}
}

TEST(Transport, DuplicateReadIsAnsweredAgainAndAtomicNotRun)
{
	pair_fixture f(6);
	world &w = f.w;
	fill(w.b.mem, 0x40000, 0x4000, 3);
	// The middle response of a 3-packet READ is lost once.
	w.net.drop_opcode = btr::rc | bop::read_resp_middle;
	w.net.drop_opcode_left = 1;
	w.post_send(f.a, wr_of(tp_op::read, 3000, 0x100, f.b_key), 0x2000);
	w.run();
	ASSERT_EQ(f.a.done.size(), 1u);
	EXPECT_EQ(f.a.done[0].syndrome, 0);
	EXPECT_TRUE(same(w.a.mem, 0x2000, w.b.mem, 0x40100, 3000));
	EXPECT_EQ(f.b.t.cnt.dup_requests, 1u);   // the READ asked again, from its middle

	// The ACK of a fetch-and-add is lost: the request comes again and gets
	// the saved answer; the add happens once.
	w.net.drop_opcode = btr::rc | bop::atomic_ack;
	w.net.drop_opcode_left = 1;
	u64 v = 40;
	memcpy(&w.b.mem[0x40800], &v, 8);
	tp_send_wr a = wr_of(tp_op::fetch_add, 8, 0x800, f.b_key);
	a.swap_add = 2;
	w.post_send(f.a, a, 0x3000);
	w.run();
	ASSERT_EQ(f.a.done.size(), 2u);
	EXPECT_EQ(f.a.done[1].syndrome, 0);
	u64 got, now_v;
	memcpy(&got, &w.a.mem[0x3000], 8);
	memcpy(&now_v, &w.b.mem[0x40800], 8);
	EXPECT_EQ(got, 40u);
	EXPECT_EQ(now_v, 42u);
	EXPECT_EQ(w.b.atomics_executed, 1u);
	EXPECT_EQ(f.b.t.cnt.dup_requests, 2u);
	EXPECT_GE(f.a.t.cnt.retrans_timeout, 1u);
}

TEST(Transport, UcLosesOnlyTheDamagedMessage)
{
	pair_fixture f(7, tp_st::uc);
	world &w = f.w;
	fill(w.a.mem, 0, 0x4000, 5);
	w.post_recv(f.b, 0x10000, 0x4000, 1);
	w.post_recv(f.b, 0x20000, 0x4000, 2);
	w.net.drop_opcode = btr::uc | bop::send_middle;
	w.net.drop_opcode_left = 1;
	w.post_send(f.a, wr_of(tp_op::send, 3000), 0);       // loses its middle
	w.post_send(f.a, wr_of(tp_op::send, 2500), 0x1000);  // arrives whole
	w.post_send(f.a, wr_of(tp_op::write, 100, 0, f.b_key), 0x2000);
	w.run();
	// UC completes what it sent; the responder has only the whole message,
	// in the receive the damaged one had taken.
	ASSERT_EQ(f.a.done.size(), 3u);
	for (auto &d : f.a.done)
		EXPECT_EQ(d.syndrome, 0);
	ASSERT_EQ(f.b.recvd.size(), 1u);
	EXPECT_EQ(f.b.recvd[0].id, 1u);
	EXPECT_EQ(f.b.recvd[0].d.len, 2500u);
	EXPECT_TRUE(same(w.b.mem, 0x10000, w.a.mem, 0x1000, 2500));
	EXPECT_TRUE(same(w.b.mem, 0x40000, w.a.mem, 0x2000, 100));
	EXPECT_TRUE(f.b.fatals.empty());
	EXPECT_EQ(f.b.t.cnt.out_of_seq, 1u);
}

TEST(Transport, UdChecksTheQkeyAndPrependsTheGrh)
{
	world w(8, 1 << 20);
	qp &a = w.add_qp(w.a, attr(tp_st::ud, 0x31, 0));
	qp &b = w.add_qp(w.b, attr(tp_st::ud, 0x32, 0));
	for (qp *q : {&a, &b}) {
		transport::start_responder(q->t);
		transport::start_requester(q->t);
	}
	fill(w.a.mem, 0, 256, 1);
	w.post_recv(b, 0x1000, 40 + 256, 1);
	qp *to = &b;
	tp_send_wr s = wr_of(tp_op::send, 200);
	s.dest_qpn = 0x32;
	memcpy(s.ud_av, &to, sizeof(to));
	s.qkey = 0x9999;                 // not b's: dropped
	w.post_send(a, s, 0);
	s.qkey = 0x1234;
	w.post_send(a, s, 0);
	w.run();
	ASSERT_EQ(a.done.size(), 2u);
	EXPECT_EQ(b.t.cnt.bad_qkey, 1u);
	EXPECT_EQ(b.t.cnt.dropped, 0u);
	ASSERT_EQ(b.recvd.size(), 1u);
	EXPECT_EQ(b.recvd[0].d.len, 240u);
	EXPECT_EQ(b.recvd[0].d.src_qp, 0x31u);
	EXPECT_TRUE(same(w.b.mem, 0x1000 + 40, w.a.mem, 0, 200));
}

TEST(Transport, ForeignPkeyAndMalformedAreDroppedAndCounted)
{
	pair_fixture f(7);
	world &w = f.w;
	w.post_recv(f.b, 0x20000, 0x4000, 0);
	static u8 buf[4096];
	// A SEND-only request for b at its expected PSN, as the wire could
	// bring it (the engine's caller checked the ICRC).
	auto deliver = [&](u8 opcode, u16 pkey, u32 payload) {
		ib_hdr h;
		h.opcode = opcode;
		h.pkey = pkey;
		h.psn = f.b.t.epsn;
		h.dest_qp = f.b.t.a.qpn;
		h.ack_req = true;
		u32 hl = ib_hdr_build(buf, h);
		tp_rx_meta m;
		w.eng_b.receive(f.b.t, buf, hl + payload + 4, m, w.now);
	};
	deliver(btr::rc | bop::send_only, 0x1234, 16);      // another partition
	deliver(btr::rc | bop::send_only, 0xffff, 1024 + 4); // past the 1024-byte path MTU
	deliver(btr::uc | bop::send_only, 0xffff, 16);      // a UC header to an RC QP
	EXPECT_EQ(f.b.t.cnt.bad_pkey, 1u);
	EXPECT_EQ(f.b.t.cnt.malformed, 2u);
	EXPECT_EQ(f.b.t.cnt.rx_pkts, 0u);
	EXPECT_TRUE(f.b.recvd.empty());
	// Nothing of them was taken: the QP carries on.
	fill(w.a.mem, 0, 100, 9);
	w.post_send(f.a, wr_of(tp_op::send, 100), 0);
	w.run();
	ASSERT_EQ(f.a.done.size(), 1u);
	EXPECT_EQ(f.a.done[0].syndrome, 0);
	ASSERT_EQ(f.b.recvd.size(), 1u);
	EXPECT_TRUE(same(w.b.mem, 0x20000, w.a.mem, 0, 100));
}
