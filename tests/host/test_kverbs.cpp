// SPDX-License-Identifier: GPL-2.0
// Kernel verbs (softcx/kverbs.h) against the real hca: QPs whose rings the
// driver owns, WQEs the driver writes, kernel CQs decoded into completions,
// buffers reached through a physical-address key (get_dma_mr), as kernel
// consumers (ib_mad, rdma_cm, nvme-rdma) will use them through the shim.
#include "dp_fixture.h"

#include <algorithm>

#include "softcx/kverbs.h"

namespace {

struct kcq_t {
	scx_drv_cq *h = nullptr;
	u32 cqn = 0;
	std::atomic<int> comps{0};
};

void on_kcomp(scx_drv_cq *, void *ctx) { static_cast<kcq_t *>(ctx)->comps++; }

struct kqp_t {
	scx_kqp *h = nullptr;
	qp_t shell; // what Dp's bring_up needs: the QPN and type
	scx_kqp_caps caps{};
};

struct done_t {
	u64 wr_id;
	u8 opcode;
	scx_kcqe c;
};

class KVerbs : public Dp {
protected:
	void SetUp() override
	{
		Dp::SetUp();
		ASSERT_FALSE(HasFatalFailure());
		ASSERT_EQ(scx_verbs_create_dma_mkey(drv, pd,
						    SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_READ |
							    SCX_ACCESS_REMOTE_WRITE | SCX_ACCESS_REMOTE_ATOMIC,
						    &dma_key),
			  0);
	}
	void TearDown() override
	{
		if (drv) {
			for (auto &q : kqps_)
				EXPECT_EQ(scx_kqp_destroy(q->h), 0);
			for (auto &c : kcqs_)
				EXPECT_EQ(scx_drv_cq_destroy(c->h), 0);
			EXPECT_EQ(scx_verbs_destroy_mkey(drv, dma_key), 0);
		}
		kqps_.clear();
		kcqs_.clear();
		Dp::TearDown();
	}

	kcq_t &kcq(u32 log = 7)
	{
		kcqs_.push_back(std::make_unique<kcq_t>());
		kcq_t &c = *kcqs_.back();
		scx_drv_cq_params p{};
		p.log_size = log;
		p.comp = on_kcomp;
		p.ctx = &c;
		EXPECT_EQ(scx_drv_cq_create(drv, &p, &c.h), 0);
		scx_drv_cq_info info{};
		scx_drv_cq_get_info(c.h, &info);
		c.cqn = info.cqn;
		return c;
	}
	kqp_t &kqp(u32 type, kcq_t &scq, kcq_t &rcq, u32 send_wr = 16, u32 send_sge = 2, u32 inl = 64)
	{
		kqps_.push_back(std::make_unique<kqp_t>());
		kqp_t &q = *kqps_.back();
		scx_kqp_params p{};
		p.type = type;
		p.pdn = pd;
		p.send_cqn = scq.cqn;
		p.recv_cqn = rcq.cqn;
		p.max_send_wr = send_wr;
		p.max_recv_wr = 16;
		p.max_send_sge = send_sge;
		p.max_recv_sge = 2;
		p.max_inline = inl;
		p.dma_lkey = dma_key;
		EXPECT_EQ(scx_kqp_create(drv, &p, &q.h), 0);
		scx_kqp_get_caps(q.h, &q.caps);
		q.shell.qpn = scx_kqp_qpn(q.h);
		q.shell.type = type == SCX_KQPT_RC ? SCX_QPT_RC : type == SCX_KQPT_UC ? SCX_QPT_UC : SCX_QPT_UD;
		return q;
	}
	// Two connected RC QPs, each with a send and a receive CQ.
	struct kpair {
		kqp_t *a, *b;
		kcq_t *as, *ar, *bs, *br;
	};
	kpair kpair_rc(u32 send_wr = 16, u32 send_sge = 2)
	{
		kpair p{};
		p.as = &kcq();
		p.ar = &kcq();
		p.bs = &kcq();
		p.br = &kcq();
		p.a = &kqp(SCX_KQPT_RC, *p.as, *p.ar, send_wr, send_sge);
		p.b = &kqp(SCX_KQPT_RC, *p.bs, *p.br, send_wr, send_sge);
		bring_up(p.a->shell, p.b->shell.qpn, {});
		bring_up(p.b->shell, p.a->shell.qpn, {});
		return p;
	}

	scx_ksge sg(const u8 *p, u32 len) { return {bus_of(p), len, dma_key}; }
	int send(kqp_t &q, scx_kwr w, bool ring = true)
	{
		int rc = scx_kqp_post_send(q.h, &w);
		if (ring)
			scx_kqp_ring_sq(q.h);
		return rc;
	}
	int recv(kqp_t &q, u64 wr_id, std::initializer_list<scx_ksge> l)
	{
		std::vector<scx_ksge> v(l);
		int rc = scx_kqp_post_recv(q.h, wr_id, v.data(), u32(v.size()));
		scx_kqp_ring_rq(q.h);
		return rc;
	}
	// Every completion of cq, matched to its request by kq (the QP the
	// CQE names must be kq).
	std::vector<done_t> reap(kcq_t &c, kqp_t &kq)
	{
		std::vector<done_t> out;
		scx_kcqe e[8];
		unsigned n;
		while ((n = scx_drv_cq_poll_cqes(c.h, e, 8)) > 0)
			for (unsigned i = 0; i < n; i++) {
				done_t d{};
				d.c = e[i];
				EXPECT_EQ(e[i].qpn, kq.shell.qpn);
				EXPECT_EQ(scx_kqp_complete(kq.h, &e[i], &d.wr_id, &d.opcode), 0);
				out.push_back(d);
			}
		return out;
	}
	// Pumps until cq holds n completions, reaped.
	std::vector<done_t> wait_done(kcq_t &c, kqp_t &kq, size_t n)
	{
		std::vector<done_t> all;
		pump_until([&] {
			auto more = reap(c, kq);
			all.insert(all.end(), more.begin(), more.end());
			return all.size() >= n;
		});
		EXPECT_EQ(all.size(), n);
		return all;
	}

	u32 dma_key = 0;
	std::vector<std::unique_ptr<kcq_t>> kcqs_;
	std::vector<std::unique_ptr<kqp_t>> kqps_;
};

scx_kwr wr_of(u64 id, u32 opcode, const scx_ksge *sg, u32 n, u32 flags = SCX_KWR_SIGNALED)
{
	scx_kwr w{};
	w.wr_id = id;
	w.opcode = opcode;
	w.sg = sg;
	w.num_sge = n;
	w.flags = flags;
	return w;
}

// A one-SGE request naming remote memory (WRITE, READ, atomics).
scx_kwr remote_wr(u64 id, u32 opcode, const scx_ksge *sg, u64 raddr, u32 rkey, u32 flags = SCX_KWR_SIGNALED)
{
	scx_kwr w = wr_of(id, opcode, sg, 1, flags);
	w.remote_addr = raddr;
	w.rkey = rkey;
	return w;
}

} // namespace

// SEND (two SGEs), SEND_IMM (inline), WRITE_IMM, READ and both atomics
// between two kernel RC QPs: the data lands, each completion names its
// request and carries what ib_wc needs.
TEST_F(KVerbs, RcOperationsCompleteWithTheirRequests)
{
	kpair p = kpair_rc();
	u8 *src = mem(8192), *dst = mem(8192);
	fill(src, 8192, 3);
	ASSERT_EQ(recv(*p.b, 100, {sg(dst, 3000), sg(dst + 4096, 3000)}), 0);
	ASSERT_EQ(recv(*p.b, 101, {sg(dst + 7000, 100)}), 0);
	ASSERT_EQ(recv(*p.b, 102, {sg(dst + 7200, 16)}), 0);

	scx_ksge two[2] = {sg(src, 2500), sg(src + 5000, 1000)};
	ASSERT_EQ(send(*p.a, wr_of(1, SCX_KWR_SEND, two, 2)), 0);
	const char msg[] = "inline kernel bytes";
	scx_ksge inl = {u64(uintptr_t(msg)), sizeof(msg), 0};
	scx_kwr w = wr_of(2, SCX_KWR_SEND_IMM, &inl, 1, SCX_KWR_SIGNALED | SCX_KWR_INLINE | SCX_KWR_SOLICITED);
	w.imm_be = 0x78563412;
	ASSERT_EQ(send(*p.a, w), 0);
	scx_ksge wsrc = sg(src + 100, 16);
	w = wr_of(3, SCX_KWR_WRITE_IMM, &wsrc, 1);
	w.remote_addr = bus_of(dst + 7300);
	w.rkey = dma_key;
	w.imm_be = 0x01000000;
	ASSERT_EQ(send(*p.a, w), 0);

	auto sent = wait_done(*p.as, *p.a, 3);
	auto got = wait_done(*p.br, *p.b, 3);
	ASSERT_EQ(sent.size(), 3u);
	ASSERT_EQ(got.size(), 3u);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(sent[i].wr_id, u64(1 + i));
		EXPECT_EQ(sent[i].c.status, SCX_KWC_SUCCESS);
		EXPECT_EQ(sent[i].c.send, 1);
		EXPECT_EQ(got[i].wr_id, u64(100 + i));
		EXPECT_EQ(got[i].c.status, SCX_KWC_SUCCESS);
	}
	EXPECT_EQ(sent[0].opcode, SCX_KWC_SEND);
	EXPECT_EQ(sent[2].opcode, SCX_KWC_RDMA_WRITE);
	EXPECT_EQ(got[0].opcode, SCX_KWC_RECV);
	EXPECT_EQ(got[0].c.byte_len, 3500u);
	EXPECT_EQ(0, std::memcmp(dst, src, 2500));
	EXPECT_EQ(0, std::memcmp(dst + 2500, src + 5000, 500));
	EXPECT_EQ(0, std::memcmp(dst + 4096, src + 5500, 500));
	EXPECT_EQ(got[1].c.byte_len, sizeof(msg));
	EXPECT_EQ(got[1].c.flags & (SCX_KWC_WITH_IMM | SCX_KWC_SOLICITED), SCX_KWC_WITH_IMM | SCX_KWC_SOLICITED);
	EXPECT_EQ(got[1].c.imm_be, 0x78563412u);
	EXPECT_EQ(0, std::memcmp(dst + 7000, msg, sizeof(msg)));
	EXPECT_EQ(got[2].opcode, SCX_KWC_RECV_RDMA_WITH_IMM);
	EXPECT_EQ(got[2].c.imm_be, 0x01000000u);
	EXPECT_EQ(0, std::memcmp(dst + 7300, src + 100, 16));

	// READ back, then the atomics on an 8-byte word of b's memory.
	u64 *word = reinterpret_cast<u64 *>(dst + 7400);
	*word = 40;
	scx_ksge rd = sg(src + 6000, 1000), old1 = sg(src + 7000, 8), old2 = sg(src + 7008, 8);
	ASSERT_EQ(send(*p.a, remote_wr(4, SCX_KWR_READ, &rd, bus_of(dst), dma_key), false), 0);
	w = remote_wr(5, SCX_KWR_ATOMIC_FA, &old1, bus_of(dst + 7400), dma_key);
	w.compare_add = 2;
	ASSERT_EQ(send(*p.a, w, false), 0);
	w = remote_wr(6, SCX_KWR_ATOMIC_CS, &old2, bus_of(dst + 7400), dma_key);
	w.compare_add = 42;
	w.swap = 7;
	ASSERT_EQ(send(*p.a, w), 0);
	sent = wait_done(*p.as, *p.a, 3);
	ASSERT_EQ(sent.size(), 3u);
	EXPECT_EQ(sent[0].opcode, SCX_KWC_RDMA_READ);
	EXPECT_EQ(sent[0].c.byte_len, 1000u);
	EXPECT_EQ(0, std::memcmp(src + 6000, dst, 1000));
	EXPECT_EQ(sent[1].opcode, SCX_KWC_FETCH_ADD);
	EXPECT_EQ(sent[2].opcode, SCX_KWC_COMP_SWAP);
	u64 v1, v2;
	std::memcpy(&v1, src + 7000, 8);
	std::memcpy(&v2, src + 7008, 8);
	EXPECT_EQ(v1, 40u);
	EXPECT_EQ(v2, 42u);
	EXPECT_EQ(*word, 7u);
}

// Unsignalled requests complete with the next signalled one (one CQE, the
// tail moves past all); the queue refuses what does not fit and takes
// again once completions free room; WQEs of several WQEBBs wrap the ring.
TEST_F(KVerbs, UnsignalledRequestsAndAFullQueue)
{
	kpair p = kpair_rc(8, 6);
	ASSERT_GE(p.a->caps.max_send_wr, 8u);
	ASSERT_GE(p.a->caps.max_send_sge, 6u);
	u8 *src = mem(4096), *dst = mem(4096);
	fill(src, 4096, 9);
	scx_ksge six[6];
	for (int i = 0; i < 6; i++)
		six[i] = sg(src + i * 100, 10);
	const u32 n = p.a->caps.max_send_wr;
	for (u32 round = 0; round < 5; round++) {
		std::memset(dst, 0, 4096);
		for (u32 i = 0; i < n; i++) {
			bool last = i + 1 == n;
			scx_kwr w = wr_of(1000 * round + i, SCX_KWR_WRITE, six, 6, last ? SCX_KWR_SIGNALED : 0);
			w.remote_addr = bus_of(dst + i * 64);
			w.rkey = dma_key;
			ASSERT_EQ(send(*p.a, w, false), 0) << "round " << round << " request " << i;
		}
		// Full: one more is refused, whatever its size.
		scx_kwr more = wr_of(1, SCX_KWR_SEND, six, 1);
		EXPECT_EQ(send(*p.a, more, false), -ENOMEM);
		scx_kqp_ring_sq(p.a->h);
		auto d = wait_done(*p.as, *p.a, 1);
		ASSERT_EQ(d.size(), 1u);
		EXPECT_EQ(d[0].wr_id, 1000u * round + n - 1);
		for (u32 i = 0; i < n; i++)
			for (int k = 0; k < 6; k++)
				ASSERT_EQ(0, std::memcmp(dst + i * 64 + k * 10, src + k * 100, 10)) << i << " " << k;
		pump(4);
		EXPECT_TRUE(reap(*p.as, *p.a).empty());
	}
}

// A UD send through an address vector built for a kernel AH: the receive
// starts with the GRH slot, names its source QP and network type.
TEST_F(KVerbs, UdSendCarriesTheAddressVector)
{
	kcq_t &as = kcq(), &ar = kcq(), &bs = kcq(), &br = kcq();
	kqp_t &a = kqp(SCX_KQPT_UD, as, ar), &b = kqp(SCX_KQPT_UD, bs, br);
	bring_up(a.shell, 0, {}, 0x1234);
	bring_up(b.shell, 0, {}, 0x1234);
	u8 *src = mem(4096), *dst = mem(4096);
	fill(src, 4096, 5);
	ASSERT_EQ(recv(b, 77, {sg(dst, 40 + 512)}), 0);
	scx_kav_params ap{};
	ap.dmac[0] = 0x02;
	ap.dmac[5] = 9;
	std::memcpy(ap.dgid, gid_v4, 16);
	ap.hop_limit = 64;
	ap.udp_sport = 0xc002;
	u8 av[SCX_KAV_BYTES];
	scx_kav_build(&ap, av);
	scx_ksge s = sg(src, 300);
	scx_kwr w = wr_of(9, SCX_KWR_SEND, &s, 1);
	w.av = av;
	w.remote_qpn = b.shell.qpn;
	w.remote_qkey = 0x1234;
	ASSERT_EQ(send(a, w), 0);
	auto sent = wait_done(as, a, 1);
	auto got = wait_done(br, b, 1);
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(sent[0].wr_id, 9u);
	EXPECT_EQ(got[0].wr_id, 77u);
	EXPECT_EQ(got[0].c.status, SCX_KWC_SUCCESS);
	EXPECT_EQ(got[0].c.byte_len, 340u);
	EXPECT_EQ(got[0].c.src_qp, a.shell.qpn);
	EXPECT_TRUE(got[0].c.flags & SCX_KWC_GRH);
	EXPECT_EQ(got[0].c.network, 4);
	EXPECT_EQ(0, std::memcmp(dst + 40, src, 300));

	// A wrong Q_Key is dropped; the QP's own (top bit) is not.
	w.remote_qkey = 0x4321;
	ASSERT_EQ(recv(b, 78, {sg(dst, 40 + 512)}), 0);
	ASSERT_EQ(send(a, w), 0);
	wait_done(as, a, 1);
	pump(20);
	EXPECT_TRUE(reap(br, b).empty());

	// Requests a UD QP cannot carry are refused and leave nothing behind.
	scx_kwr bad = wr_of(10, SCX_KWR_WRITE, &s, 1);
	bad.av = av;
	EXPECT_EQ(send(a, bad), -EINVAL);
	bad = wr_of(11, SCX_KWR_SEND, &s, 1);
	EXPECT_EQ(send(a, bad), -EINVAL); // no address vector
}

// After 2ERR every request still posted, and every one posted afterwards,
// completes with WR_FLUSH_ERR (what ib_drain_qp waits for).
TEST_F(KVerbs, ErrorStateFlushesEveryRequest)
{
	kpair p = kpair_rc();
	u8 *buf = mem(4096);
	ASSERT_EQ(recv(*p.b, 200, {sg(buf, 64)}), 0);
	ASSERT_EQ(recv(*p.b, 201, {sg(buf, 64)}), 0);
	scx_qp_attr a{};
	ASSERT_EQ(modify(p.b->shell, SCX_QPS_RTS, SCX_QPS_ERR, 0, a), 0);
	ASSERT_EQ(recv(*p.b, 202, {sg(buf, 64)}), 0);
	scx_ksge s = sg(buf, 8);
	scx_kwr w = wr_of(300, SCX_KWR_WRITE, &s, 1);
	w.remote_addr = bus_of(buf + 64);
	w.rkey = dma_key;
	ASSERT_EQ(send(*p.b, w), 0);
	auto r = wait_done(*p.br, *p.b, 3);
	auto s2 = wait_done(*p.bs, *p.b, 1);
	ASSERT_EQ(r.size(), 3u);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(r[i].wr_id, u64(200 + i));
		EXPECT_EQ(r[i].c.status, SCX_KWC_WR_FLUSH_ERR);
	}
	ASSERT_EQ(s2.size(), 1u);
	EXPECT_EQ(s2[0].wr_id, 300u);
	EXPECT_EQ(s2[0].c.status, SCX_KWC_WR_FLUSH_ERR);
}

// A completion that names no request in flight is refused, not trusted.
TEST_F(KVerbs, ACompletionForNothingInFlightIsRefused)
{
	kpair p = kpair_rc();
	scx_kcqe c{};
	c.qpn = p.a->shell.qpn;
	c.send = 1;
	u64 id;
	u8 op;
	EXPECT_EQ(scx_kqp_complete(p.a->h, &c, &id, &op), -EINVAL);
	c.send = 0;
	EXPECT_EQ(scx_kqp_complete(p.a->h, &c, &id, &op), -EINVAL);
}

// The port's GSI QP: created as st QP1 with a QPN of its own, addressed as
// QPN 1 by packets — a datagram to QPN 1 with the "use your own" Q_Key
// reaches it from itself, with source QP 1. A second one is refused.
TEST_F(KVerbs, GsiQpIsQpOneOnTheWire)
{
	kcq_t &s = kcq(), &r = kcq();
	kqp_t &g = kqp(SCX_KQPT_GSI, s, r);
	ASSERT_NE(g.shell.qpn, 1u);
	g.shell.type = SCX_QPT_UD;
	bring_up(g.shell, 0, {}, 0x80010000);
	scx_kqp_params p{};
	p.type = SCX_KQPT_GSI;
	p.pdn = pd;
	p.send_cqn = s.cqn;
	p.recv_cqn = r.cqn;
	p.max_send_wr = 4;
	p.max_recv_wr = 4;
	p.max_send_sge = 1;
	p.max_recv_sge = 1;
	scx_kqp *second = nullptr;
	EXPECT_EQ(scx_kqp_create(drv, &p, &second), -EINVAL);
	EXPECT_EQ(second, nullptr);

	u8 *buf = mem(4096);
	fill(buf, 256, 11);
	ASSERT_EQ(recv(g, 5, {sg(buf + 1024, 40 + 256)}), 0);
	scx_kav_params ap{};
	ap.dmac[0] = 0x02;
	ap.dmac[5] = 9;
	std::memcpy(ap.dgid, gid_v4, 16);
	ap.hop_limit = 64;
	u8 av[SCX_KAV_BYTES];
	scx_kav_build(&ap, av);
	scx_ksge two[2] = {sg(buf, 24), sg(buf + 24, 232)}; // a MAD as ib_mad posts it
	scx_kwr w = wr_of(6, SCX_KWR_SEND, two, 2);
	w.av = av;
	w.remote_qpn = 1;
	w.remote_qkey = 0x80000000;
	ASSERT_EQ(send(g, w), 0);
	auto sent = wait_done(s, g, 1);
	auto got = wait_done(r, g, 1);
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].c.status, SCX_KWC_SUCCESS);
	EXPECT_EQ(got[0].c.src_qp, 1u);
	EXPECT_EQ(got[0].c.byte_len, 296u);
	EXPECT_TRUE(got[0].c.flags & SCX_KWC_GRH);
	EXPECT_EQ(0, std::memcmp(buf + 1024 + 40, buf, 256));
	// Another Q_Key than QP1's own is dropped; so is a datagram larger
	// than a MAD, before it takes a receive: the next MAD gets that one.
	ASSERT_EQ(recv(g, 7, {sg(buf + 2048, 40 + 1024)}), 0);
	scx_hca_dp_stats st0{}, st1{};
	scx_hca_get_dp_stats(hca, &st0);
	w.remote_qkey = 0x1234;
	ASSERT_EQ(send(g, w), 0);
	wait_done(s, g, 1);
	scx_ksge big = sg(buf, 512);
	scx_kwr wb = wr_of(8, SCX_KWR_SEND, &big, 1);
	wb.av = av;
	wb.remote_qpn = 1;
	wb.remote_qkey = 0x80000000;
	ASSERT_EQ(send(g, wb), 0);
	wait_done(s, g, 1);
	pump(20);
	EXPECT_TRUE(reap(r, g).empty());
	scx_hca_get_dp_stats(hca, &st1);
	EXPECT_EQ(st1.rx_bad_qkey - st0.rx_bad_qkey, 1u);
	EXPECT_EQ(st1.rx_malformed - st0.rx_malformed, 1u);
	w.remote_qkey = 0x80000000;
	ASSERT_EQ(send(g, w), 0);
	wait_done(s, g, 1);
	got = wait_done(r, g, 1);
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].wr_id, 7u);
	EXPECT_EQ(got[0].c.byte_len, 296u);
}

// An unsignalled READ, then an atomic the remote key does not allow: the
// error completion names the atomic, the READ before it completed its data,
// and the QP's later requests are flushed.
TEST_F(KVerbs, AnErrorCompletionNamesTheFailedRequest)
{
	kpair p = kpair_rc();
	u32 no_atomic = 0;
	ASSERT_EQ(scx_verbs_create_dma_mkey(drv, pd,
					    SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_READ | SCX_ACCESS_REMOTE_WRITE,
					    &no_atomic),
		  0);
	u8 *src = mem(4096), *dst = mem(4096);
	fill(dst, 4096, 2);
	scx_ksge rd = sg(src, 500), old = sg(src + 1000, 8), w8 = sg(src + 2000, 8);
	ASSERT_EQ(send(*p.a, remote_wr(1, SCX_KWR_READ, &rd, bus_of(dst), no_atomic, 0), false), 0);
	scx_kwr w = remote_wr(2, SCX_KWR_ATOMIC_FA, &old, bus_of(dst + 1024), no_atomic);
	w.compare_add = 1;
	ASSERT_EQ(send(*p.a, w, false), 0);
	ASSERT_EQ(send(*p.a, remote_wr(3, SCX_KWR_WRITE, &w8, bus_of(dst + 2048), no_atomic)), 0);
	auto d = wait_done(*p.as, *p.a, 2);
	ASSERT_EQ(d.size(), 2u);
	EXPECT_EQ(d[0].wr_id, 2u);
	EXPECT_EQ(d[0].c.status, SCX_KWC_REM_ACCESS_ERR);
	EXPECT_EQ(d[1].wr_id, 3u);
	EXPECT_EQ(d[1].c.status, SCX_KWC_WR_FLUSH_ERR);
	EXPECT_EQ(0, std::memcmp(src, dst, 500));
	EXPECT_EQ(scx_verbs_destroy_mkey(drv, no_atomic), 0);
}

// Fast registration: a REG_MR gives a free key two scattered pages at an
// iova of the consumer's choosing; the peer writes through it (each part
// lands in its own page) but not past its length; LOCAL_INV ends it; a new
// REG_MR with a new tag serves again until SEND_WITH_INV from the peer
// invalidates it remotely.
TEST_F(KVerbs, FastRegistrationAndInvalidation)
{
	scx_kmr *mr = nullptr;
	ASSERT_EQ(scx_kmr_create(drv, pd, 16, &mr), 0);
	u8 *pg0 = mem(4096), *pg1 = mem(4096), *src = mem(8192), *rbuf = mem(4096);
	fill(src, 8192, 7);
	const u64 iova = 0x7000000000ull + 0x100, len = 8192 - 0x100;
	const u64 pages[2] = {bus_of(pg1), bus_of(pg0)};
	ASSERT_EQ(scx_kmr_set_pages(mr, pages, 2, 12, iova, len), 0);
	u64 too_many[17] = {};
	EXPECT_EQ(scx_kmr_set_pages(mr, too_many, 17, 12, iova, len), -EINVAL);
	auto reg = [&](kpair &p, u32 tag) {
		scx_kwr w = wr_of(1, SCX_KWR_REG_MR, nullptr, 0);
		w.mr = mr;
		w.reg_key = scx_kmr_key(mr) | tag;
		w.reg_access = SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE | SCX_ACCESS_REMOTE_READ;
		EXPECT_EQ(send(*p.a, w), 0);
		auto d = wait_done(*p.as, *p.a, 1);
		EXPECT_EQ(d.size(), 1u);
		EXPECT_EQ(d.empty() ? 0 : d[0].opcode, SCX_KWC_REG_MR);
		EXPECT_EQ(d.empty() ? 1 : d[0].c.status, SCX_KWC_SUCCESS);
		return w.reg_key;
	};
	// b writes n bytes of src at iova + off through key: its status.
	auto write = [&](kpair &p, u32 key, u64 off, u32 n) {
		scx_ksge s = sg(src, n);
		scx_kwr w = wr_of(2, SCX_KWR_WRITE, &s, 1);
		w.remote_addr = iova + off;
		w.rkey = key;
		EXPECT_EQ(send(*p.b, w), 0);
		auto d = wait_done(*p.bs, *p.b, 1);
		return d.empty() ? -1 : int(d[0].c.status);
	};

	kpair p = kpair_rc();
	u32 key = reg(p, 0x5a);
	EXPECT_EQ(write(p, key, 0, 7900), SCX_KWC_SUCCESS);
	EXPECT_EQ(0, std::memcmp(pg1 + 0x100, src, 4096 - 0x100));
	EXPECT_EQ(0, std::memcmp(pg0, src + 4096 - 0x100, 7900 - (4096 - 0x100)));
	EXPECT_EQ(write(p, key, len - 0x100, 0x200), SCX_KWC_REM_ACCESS_ERR);

	kpair q = kpair_rc();
	key = reg(q, 0x5b);
	EXPECT_EQ(write(q, key, 0, 16), SCX_KWC_SUCCESS);
	scx_kwr inv = wr_of(3, SCX_KWR_LOCAL_INV, nullptr, 0);
	inv.inv_rkey = key;
	ASSERT_EQ(send(*q.a, inv), 0);
	auto d = wait_done(*q.as, *q.a, 1);
	ASSERT_EQ(d.size(), 1u);
	EXPECT_EQ(d[0].opcode, SCX_KWC_LOCAL_INV);
	EXPECT_EQ(d[0].c.status, SCX_KWC_SUCCESS);
	EXPECT_EQ(write(q, key, 0, 16), SCX_KWC_REM_ACCESS_ERR);

	kpair r = kpair_rc();
	key = reg(r, 0x5c);
	ASSERT_EQ(recv(*r.a, 40, {sg(rbuf, 64)}), 0);
	scx_ksge s = sg(src, 32);
	scx_kwr si = wr_of(4, SCX_KWR_SEND_INV, &s, 1);
	si.inv_rkey = key;
	ASSERT_EQ(send(*r.b, si), 0);
	d = wait_done(*r.ar, *r.a, 1);
	ASSERT_EQ(d.size(), 1u);
	EXPECT_EQ(d[0].c.status, SCX_KWC_SUCCESS);
	EXPECT_TRUE(d[0].c.flags & SCX_KWC_WITH_INV);
	EXPECT_EQ(d[0].c.inv_rkey, key);
	wait_done(*r.bs, *r.b, 1);
	EXPECT_EQ(write(r, key, 0, 16), SCX_KWC_REM_ACCESS_ERR);
	EXPECT_EQ(scx_kmr_destroy(mr), 0);
}

// A kernel SRQ serving two RC QPs: each send takes the SRQ's next WQE,
// completions name it by its WQE counter and put it back on the chain,
// which goes round its ring several times; a full SRQ refuses a post.
TEST_F(KVerbs, SrqServesTwoQps)
{
	scx_ksrq *srq = nullptr;
	ASSERT_EQ(scx_ksrq_create(drv, pd, 6, 2, &srq), 0);
	u32 max_wr = 0, max_sge = 0;
	scx_ksrq_get_caps(srq, &max_wr, &max_sge);
	EXPECT_EQ(max_wr, 7u); // 8 WQEs, one always on the chain
	EXPECT_GE(max_sge, 2u);
	kcq_t &as = kcq(), &ar = kcq(), &br = kcq(), &bs = kcq();
	kqp_t &a1 = kqp(SCX_KQPT_RC, as, ar), &a2 = kqp(SCX_KQPT_RC, as, ar);
	auto on_srq = [&](kcq_t &s, kcq_t &r) -> kqp_t & {
		kqps_.push_back(std::make_unique<kqp_t>());
		kqp_t &q = *kqps_.back();
		scx_kqp_params p{};
		p.type = SCX_KQPT_RC;
		p.pdn = pd;
		p.send_cqn = s.cqn;
		p.recv_cqn = r.cqn;
		p.has_srq = 1;
		p.srqn = scx_ksrq_srqn(srq);
		p.max_send_wr = 4;
		p.max_send_sge = 1;
		p.dma_lkey = dma_key;
		EXPECT_EQ(scx_kqp_create(drv, &p, &q.h), 0);
		q.shell.qpn = scx_kqp_qpn(q.h);
		q.shell.type = SCX_QPT_RC;
		return q;
	};
	kqp_t &b1 = on_srq(bs, br), &b2 = on_srq(bs, br);
	bring_up(a1.shell, b1.shell.qpn, {});
	bring_up(b1.shell, a1.shell.qpn, {});
	bring_up(a2.shell, b2.shell.qpn, {});
	bring_up(b2.shell, a2.shell.qpn, {});
	u8 *src = mem(4096), *dst = mem(8 * 256);
	fill(src, 4096, 3);
	u64 next_id = 100;
	for (int round = 0; round < 4; round++) {
		for (u32 i = 0; i < 6; i++) {
			scx_ksge r = sg(dst + i * 256, 256);
			ASSERT_EQ(scx_ksrq_post_recv(srq, next_id + i, &r, 1), 0);
		}
		scx_ksrq_ring(srq);
		for (u32 i = 0; i < 6; i++) {
			scx_ksge s = sg(src + round * 16 + i, 100 + i);
			ASSERT_EQ(send(i % 2 ? a2 : a1, wr_of(i, SCX_KWR_SEND, &s, 1)), 0);
		}
		// Receives are taken in arrival order, whichever QP the send
		// came by: the length says which send filled which receive.
		std::vector<std::pair<u64, u32>> got;
		pump_until([&] {
			scx_kcqe e[8];
			unsigned n = scx_drv_cq_poll_cqes(br.h, e, 8);
			for (unsigned k = 0; k < n; k++) {
				u64 id = 0;
				EXPECT_EQ(e[k].status, SCX_KWC_SUCCESS);
				EXPECT_EQ(scx_ksrq_complete(srq, &e[k], &id), 0);
				got.push_back({id, e[k].byte_len});
			}
			return got.size() >= 6;
		});
		ASSERT_EQ(got.size(), 6u);
		std::sort(got.begin(), got.end());
		std::vector<u32> lens;
		for (u32 k = 0; k < 6; k++) {
			EXPECT_EQ(got[k].first, next_id + k);
			u32 i = got[k].second - 100;
			ASSERT_LT(i, 6u);
			lens.push_back(i);
			EXPECT_EQ(0, std::memcmp(dst + k * 256, src + round * 16 + i, 100 + i)) << round << " " << k;
		}
		std::sort(lens.begin(), lens.end());
		for (u32 i = 0; i < 6; i++)
			EXPECT_EQ(lens[i], i);
		// Both senders' completions share one CQ.
		u32 sent = 0;
		pump_until([&] {
			scx_kcqe e[8];
			unsigned n = scx_drv_cq_poll_cqes(as.h, e, 8);
			for (unsigned k = 0; k < n; k++) {
				u64 id;
				u8 op;
				kqp_t &q = e[k].qpn == a1.shell.qpn ? a1 : a2;
				EXPECT_EQ(scx_kqp_complete(q.h, &e[k], &id, &op), 0);
				sent++;
			}
			return sent >= 6;
		});
		EXPECT_EQ(sent, 6u);
		next_id += 100;
	}
	// Full: 7 posted, the 8th refused.
	scx_ksge r = sg(dst, 64);
	for (u32 i = 0; i < 7; i++)
		EXPECT_EQ(scx_ksrq_post_recv(srq, i, &r, 1), 0);
	EXPECT_EQ(scx_ksrq_post_recv(srq, 7, &r, 1), -ENOMEM);
	for (auto &q : kqps_)
		EXPECT_EQ(scx_kqp_destroy(q->h), 0);
	kqps_.clear();
	EXPECT_EQ(scx_ksrq_destroy(srq), 0);
}
