// SPDX-License-Identifier: GPL-2.0
// Two softcx ports on the fabric, as two devices in one kernel: a QP on
// port A reaches a QP on port B by B's GID, each port's QPs numbered on
// their own (the first QP of each has the same number, so only the address
// tells them apart). The fixture's helpers work on port A; on_b() points
// them at port B for a while.
#include "dp_fixture.h"
#include "host_env.h"

#include <set>

namespace {

const u8 gid_a[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 0, 1};
const u8 gid_b[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 2, 0, 1};
const u8 gid_nobody[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 3, 0, 1};
const u8 mac_a[6] = {0x02, 0x5c, 0, 0, 1, 1};
const u8 mac_b[6] = {0x02, 0x5c, 0, 0, 2, 1};

// Port B: its own hca, driver and interrupt controller, wired as CMachine
// wires port A.
struct port_b {
	test_platform plat;
	scx_hca *hca = nullptr;
	scx_drv *drv = nullptr;
	std::atomic<scx_drv *> drv_seen{nullptr};
	u32 pd = 0, uar = 0;
	u8 *uar_page = nullptr;
	std::atomic<int> wakes{0};

	static port_b *of(void *ctx) { return static_cast<port_b *>(ctx); }
	static void raise(void *ctx, unsigned vec) { of(ctx)->plat.raise(vec); }
	static void *dma_alloc(void *ctx, size_t size, uint64_t *dma) { return of(ctx)->plat.dma_alloc(size, dma); }
	static void dma_free(void *ctx, void *cpu, size_t size, uint64_t dma) { of(ctx)->plat.dma_free(cpu, size, dma); }
	static void irq_entry(void *drv, uint32_t vec) { scx_drv_handle_irq(static_cast<scx_drv *>(drv), vec); }
	static int request_irq(void *ctx, unsigned vec, const char *name, scx_drv *d)
	{
		return of(ctx)->plat.request_irq(vec, name, irq_entry, d);
	}
	static void free_irq(void *ctx, unsigned vec) { of(ctx)->plat.free_irq(vec); }
	static void schedule_tasklet(void *ctx, unsigned eq) { scx_drv_run_tasklet(of(ctx)->drv_seen.load(), eq); }
	static void wake(void *ctx) { of(ctx)->wakes++; }

	void start()
	{
		c_function_up(this, "ccq1", 0, &hca, &drv);
		ASSERT_FALSE(::testing::Test::HasFatalFailure());
		drv_seen = drv;
		ASSERT_EQ(scx_verbs_alloc_pd(drv, &pd), 0);
		ASSERT_EQ(scx_verbs_alloc_uar(drv, &uar), 0);
		uar_page = static_cast<u8 *>(scx_hca_uar_page(hca, uar));
		ASSERT_NE(uar_page, nullptr);
	}
};

void no_wake(void *) {}

class Fabric : public Dp {
protected:
	void SetUp() override
	{
		Dp::SetUp();
		ASSERT_FALSE(HasFatalFailure());
		b_.start();
		ASSERT_FALSE(HasFatalFailure());
		ASSERT_EQ(scx_verbs_set_gid(drv, 0, gid_a, mac_a, true, true), 0);
		ASSERT_EQ(scx_verbs_set_gid(b_.drv, 0, gid_b, mac_b, true, true), 0);
		ASSERT_EQ(scx_hca_join_fabric(hca, no_wake, nullptr), 0);
		ASSERT_EQ(scx_hca_join_fabric(b_.hca, port_b::wake, &b_), 0);
	}

	void TearDown() override
	{
		stop_poller();
		stop_b_poller();
		if (b_.hca) {
			// Port B's objects go with port B; the fixture then tears down A.
			swap_ports();
			for (auto &q : qps_)
				if (q->alive && on_b_.count(q.get())) {
					EXPECT_EQ(scx_verbs_destroy_qp(drv, q->qpn), 0);
					q->alive = false;
				}
			for (auto &m : mrs_)
				if (m->alive && on_b_.count(m.get())) {
					EXPECT_EQ(scx_verbs_destroy_mkey(drv, m->key), 0);
					m->alive = false;
				}
			for (auto &c : cqs_)
				if (c->h && on_b_.count(c.get())) {
					EXPECT_EQ(scx_verbs_destroy_cq(drv, c->h), 0);
					c->h = nullptr;
				}
			EXPECT_EQ(scx_verbs_dealloc_pd(drv, pd), 0);
			EXPECT_EQ(scx_verbs_dealloc_uar(drv, uar), 0);
			scx_drv_teardown(drv);
			scx_hca_destroy(hca);
			swap_ports();
			b_.hca = nullptr;
			b_.drv = nullptr;
			EXPECT_EQ(b_.plat.dma_live(), 0);
		}
		Dp::TearDown();
	}

	void swap_ports()
	{
		std::swap(hca, b_.hca);
		std::swap(drv, b_.drv);
		std::swap(pd, b_.pd);
		std::swap(uar, b_.uar);
		std::swap(uar_page, b_.uar_page);
	}
	// Runs f with the helpers on port B; what it creates is B's.
	template <typename F> void on_b(F f)
	{
		size_t q = qps_.size(), m = mrs_.size(), c = cqs_.size();
		swap_ports();
		f();
		swap_ports();
		for (; q < qps_.size(); q++)
			on_b_.insert(qps_[q].get());
		for (; m < mrs_.size(); m++)
			on_b_.insert(mrs_[m].get());
		for (; c < cqs_.size(); c++)
			on_b_.insert(cqs_[c].get());
	}
	void pump_both(int rounds = 6)
	{
		for (int i = 0; i < rounds; i++) {
			scx_hca_poll(hca);
			scx_hca_poll(b_.hca);
		}
	}
	void start_b_poller()
	{
		b_stop_ = false;
		b_poller_ = std::thread([this] {
			while (!b_stop_.load())
				scx_hca_poll(b_.hca);
		});
	}
	void stop_b_poller()
	{
		if (!b_poller_.joinable())
			return;
		b_stop_ = true;
		b_poller_.join();
	}
	scx_hca_dp_stats stats_of(scx_hca *h)
	{
		scx_hca_dp_stats s{};
		scx_hca_get_dp_stats(h, &s);
		return s;
	}

	// An RC (or UC) QP on each port, connected by address.
	struct cross_t {
		qp_t *a, *b;
		cq_t *as, *ar, *bs, *br;
	};
	cross_t cross(u32 type = SCX_QPT_RC, rc_opts o = {})
	{
		cross_t x{};
		x.as = &make_cq();
		x.ar = &make_cq();
		x.a = &make_qp(type, *x.as, *x.ar);
		on_b([&] {
			x.bs = &make_cq();
			x.br = &make_cq();
			x.b = &make_qp(type, *x.bs, *x.br);
		});
		bring_up(*x.a, x.b->qpn, o, 0, gid_b);
		on_b([&] { bring_up(*x.b, x.a->qpn, o, 0, gid_a); });
		return x;
	}

	// The doorbell of WQE idx of B's QP q, into B's UAR page.
	void ring_b(qp_t &q, u16 idx)
	{
		u64 raw;
		std::memcpy(&raw, q.sq() + size_t(idx & (q.sq_bbs - 1)) * 64, 8);
		__atomic_store_n(reinterpret_cast<u64 *>(b_.uar_page + 0x800), raw, __ATOMIC_RELEASE);
	}

	port_b b_;
	std::set<const void *> on_b_;
	std::thread b_poller_;
	std::atomic<bool> b_stop_{false};
};

} // namespace

// SEND, WRITE_IMM, READ and FETCH_ADD between the ports: data lands in the
// other port's memory through its keys, CQEs on both sides name the peer
// QP, and no QP of the requester's own port (one with the same number is
// there) sees anything.
TEST_F(Fabric, RcVerbsCrossBetweenPorts)
{
	cross_t x = cross();
	EXPECT_EQ(x.a->qpn, x.b->qpn); // only the GID tells the ports apart
	mr_t &a_mem = make_mr(8192, SCX_ACCESS_LOCAL_WRITE | all_remote);
	mr_t *b_mem = nullptr;
	on_b([&] { b_mem = &make_mr(8192, SCX_ACCESS_LOCAL_WRITE | all_remote, 0x40); });
	fill(a_mem.cpu(), 4096, 3);
	fill(b_mem->cpu() + 4096, 4096, 9);

	// A sends to B.
	on_b([&] { post_recv(*x.b, {{b_mem->va(0), 2000, b_mem->key}}); });
	post_send(*x.a, op::send, wqe_b().data(a_mem.va(0), 1500, a_mem.key));
	pump_both();
	auto sc = drain(*x.as);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].opcode(), cqe_op::req);
	auto rc = drain(*x.br);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].opcode(), cqe_op::resp_send);
	EXPECT_EQ(rc[0].byte_cnt(), 1500u);
	EXPECT_EQ(rc[0].qpn(), x.b->qpn);
	EXPECT_EQ(rc[0].src_qpn(), x.a->qpn);
	EXPECT_EQ(rc[0].user_index(), x.b->uidx);
	EXPECT_EQ(std::memcmp(b_mem->cpu(), a_mem.cpu(), 1500), 0);
	EXPECT_TRUE(drain(*x.ar).empty());

	// B writes into A's memory with an immediate.
	post_recv(*x.a, {});
	send_opts imm;
	imm.imm_raw = 0x78563412;
	on_b([&] {
		post_send(*x.b, op::rdma_write_imm,
			  wqe_b().raddr(a_mem.va(5000), a_mem.key).data(b_mem->va(4096), 700, b_mem->key), imm);
	});
	pump_both();
	rc = drain(*x.ar);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].opcode(), cqe_op::resp_wr_imm);
	EXPECT_EQ(rc[0].imm_raw(), 0x78563412u);
	EXPECT_EQ(rc[0].src_qpn(), x.b->qpn);
	EXPECT_EQ(std::memcmp(a_mem.cpu() + 5000, b_mem->cpu() + 4096, 700), 0);
	EXPECT_EQ(drain(*x.bs).size(), 1u);

	// A reads from B's memory, then adds to a word of it.
	post_send(*x.a, op::rdma_read, wqe_b().raddr(b_mem->va(4096 + 100), b_mem->key).data(a_mem.va(6000), 900, a_mem.key));
	u64 word = 40;
	std::memcpy(b_mem->cpu() + 256, &word, 8);
	post_send(*x.a, op::atomic_fa, wqe_b().raddr(b_mem->va(256), b_mem->key).atomic(2, 0).data(a_mem.va(7000), 8, a_mem.key));
	pump_both();
	sc = drain(*x.as);
	ASSERT_EQ(sc.size(), 2u);
	EXPECT_EQ(sc[0].byte_cnt(), 900u);
	EXPECT_EQ(sc[1].byte_cnt(), 8u);
	EXPECT_EQ(std::memcmp(a_mem.cpu() + 6000, b_mem->cpu() + 4096 + 100, 900), 0);
	u64 old = 0;
	std::memcpy(&old, a_mem.cpu() + 7000, 8);
	EXPECT_EQ(old, 40u);
	std::memcpy(&word, b_mem->cpu() + 256, 8);
	EXPECT_EQ(word, 42u);
	EXPECT_TRUE(guards_intact(a_mem));
	EXPECT_TRUE(guards_intact(*b_mem));
	EXPECT_GE(stats_of(hca).peer_requests, 3u);
	EXPECT_GE(stats_of(b_.hca).peer_requests, 1u);
}

// The responder's checks are the responder port's: a key of port A's
// (valid there) used against port B is a bad rkey there, NAKed, and both
// QPs end in error as on one port.
TEST_F(Fabric, RemoteKeysAreCheckedOnTheResponderPort)
{
	cross_t x = cross();
	mr_t &a_mem = make_mr(4096, SCX_ACCESS_LOCAL_WRITE | all_remote);
	post_send(*x.a, op::rdma_write, wqe_b().raddr(a_mem.va(0), a_mem.key).inl("abcd", 4));
	pump_both();
	auto sc = drain(*x.as);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].opcode(), cqe_op::req_err);
	EXPECT_EQ(sc[0].syndrome(), synd::rem_access);
	EXPECT_EQ(state(*x.a), u32(SCX_QPS_ERR));
	u32 b_state = 0;
	on_b([&] { b_state = state(*x.b); });
	EXPECT_EQ(b_state, u32(SCX_QPS_ERR));
	EXPECT_EQ(a_mem.cpu()[0], guard_byte);
}

// UD: the AV's GID picks the port, its QPN the QP there; the receive's GRH
// carries the sender's address as source. The same QPN with A's own GID is
// A's QP (loopback).
TEST_F(Fabric, UdDatagramsGoToThePortOwningTheGid)
{
	const u32 qkey = 0x1234;
	cq_t &xs = make_cq(), &xr = make_cq();
	qp_t &x = make_qp(SCX_QPT_UD, xs, xr);
	bring_up(x, 0, {}, qkey);
	qp_t *y = nullptr;
	cq_t *ys = nullptr, *yr = nullptr;
	mr_t *b_mem = nullptr;
	on_b([&] {
		ys = &make_cq();
		yr = &make_cq();
		y = &make_qp(SCX_QPT_UD, *ys, *yr);
		bring_up(*y, 0, {}, qkey);
		b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
		post_recv(*y, {{b_mem->va(0), 40 + 256, b_mem->key}});
	});
	EXPECT_EQ(x.qpn, y->qpn);
	mr_t &a_mem = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	post_recv(x, {{a_mem.va(0), 40 + 256, a_mem.key}});

	u8 msg[100];
	fill(msg, sizeof(msg), 5);
	wqe_b to_b;
	to_b.av(qkey, y->qpn, gid_b).inl(msg, sizeof(msg));
	post_send(x, op::send, to_b);
	pump_both();
	auto rb = drain(*yr);
	ASSERT_EQ(rb.size(), 1u);
	EXPECT_EQ(rb[0].byte_cnt(), 140u);
	EXPECT_EQ(rb[0].src_qpn(), x.qpn);
	const u8 *ip = b_mem->cpu() + 20;
	EXPECT_EQ(std::memcmp(ip + 12, gid_a + 12, 4), 0); // source: port A's address
	EXPECT_EQ(std::memcmp(ip + 16, gid_b + 12, 4), 0);
	EXPECT_EQ(std::memcmp(b_mem->cpu() + 40, msg, sizeof(msg)), 0);
	EXPECT_TRUE(drain(xr).empty());

	wqe_b to_self;
	to_self.av(qkey, x.qpn, gid_a).inl(msg, 20);
	post_send(x, op::send, to_self);
	pump_both();
	auto ra = drain(xr);
	ASSERT_EQ(ra.size(), 1u);
	EXPECT_EQ(ra[0].byte_cnt(), 60u);
	EXPECT_TRUE(drain(*yr).empty());
	EXPECT_EQ(drain(xs).size(), 2u);
}

// An address no port has goes unanswered: RC retries until retry_cnt runs
// out. Routes follow the address tables: once B drops its GID, a QP that
// reached B before gets no answer either.
TEST_F(Fabric, AddressesNobodyHasGoUnanswered)
{
	rc_opts o;
	o.timeout = 1;   // 8 us
	o.retry_cnt = 1;
	cq_t &s1 = make_cq(), &r1 = make_cq();
	qp_t &lost = make_qp(SCX_QPT_RC, s1, r1);
	bring_up(lost, 0x77, o, 0, gid_nobody);
	post_send(lost, op::send, wqe_b().inl("x", 1));
	std::vector<cqe_t> got;
	auto collect = [&](cq_t &c) {
		for (auto &e : drain(c))
			got.push_back(e);
		return !got.empty();
	};
	ASSERT_TRUE(pump_until([&] { return collect(s1); }));
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].opcode(), cqe_op::req_err);
	EXPECT_EQ(got[0].syndrome(), 0x15); // transport retry counter exceeded
	EXPECT_EQ(state(lost), u32(SCX_QPS_ERR));

	cross_t x = cross(SCX_QPT_RC, o);
	mr_t *b_mem = nullptr;
	on_b([&] {
		b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE | all_remote);
	});
	post_send(*x.a, op::rdma_write, wqe_b().raddr(b_mem->va(0), b_mem->key).inl("abcd", 4));
	pump_both();
	ASSERT_EQ(drain(*x.as).size(), 1u);
	EXPECT_EQ(std::memcmp(b_mem->cpu(), "abcd", 4), 0);

	ASSERT_EQ(scx_verbs_set_gid(b_.drv, 0, nullptr, nullptr, true, true), 0);
	post_send(*x.a, op::rdma_write, wqe_b().raddr(b_mem->va(8), b_mem->key).inl("efgh", 4));
	got.clear();
	ASSERT_TRUE(pump_until([&] { return collect(*x.as); }));
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].opcode(), cqe_op::req_err);
	EXPECT_EQ(got[0].syndrome(), 0x15); // transport retry counter exceeded
	EXPECT_EQ(b_mem->cpu()[8], guard_byte);
}

// Both ports send to each other at once, each from its own poller thread,
// so each often finds the other's lock taken: nothing is lost, duplicated
// or reordered, and nobody runs out of retries (a busy port is not a lost
// packet).
TEST_F(Fabric, BothWaysAtOnceUnderContention)
{
	rc_opts o;
	o.retry_cnt = 0;
	o.rnr_retry = 7;
	cross_t x = cross(SCX_QPT_RC, o);
	mr_t &a_mem = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	mr_t *b_mem = nullptr;
	on_b([&] { b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE); });
	constexpr u32 n = 3000;
	start_poller();
	start_b_poller();
	u32 posted_a = 0, posted_b = 0, recv_a = 0, recv_b = 0, sent_a = 0, sent_b = 0;
	u32 expect_a = 0, expect_b = 0, unused_a = 0, unused_b = 0;
	bool ok = true;
	auto check = [&](cq_t &c, u32 *count, u32 *expect, bool recv) {
		for (auto &e : drain(c)) {
			if (e.opcode() != (recv ? cqe_op::resp_send_imm : cqe_op::req)) {
				ADD_FAILURE() << "opcode " << int(e.opcode()) << " syndrome " << int(e.syndrome());
				ok = false;
			}
			if (recv && e.imm_raw() != *expect) {
				ADD_FAILURE() << "message " << e.imm_raw() << " where " << *expect << " was next";
				ok = false;
			}
			(*expect)++;
			(*count)++;
		}
	};
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
	while (ok && (recv_a < n || recv_b < n || sent_a < n || sent_b < n) && std::chrono::steady_clock::now() < end) {
		// Keep receives ahead of the sends (RNR NAKs otherwise, which
		// are retried but slow the test).
		while (posted_a < n && posted_a - recv_b < 8) {
			post_recv(*x.b, {{b_mem->va(0), 64, b_mem->key}});
			send_opts so;
			so.imm_raw = posted_a;
			post_send(*x.a, op::send_imm, wqe_b().inl("ab", 2), so);
			posted_a++;
		}
		while (posted_b < n && posted_b - recv_a < 8) {
			post_recv(*x.a, {{a_mem.va(0), 64, a_mem.key}});
			send_opts so;
			so.imm_raw = posted_b;
			so.ring = false; // the pollers read hca, uar_page: no swap_ports here
			u16 idx = post_send(*x.b, op::send_imm, wqe_b().inl("cd", 2), so);
			ring_b(*x.b, idx);
			posted_b++;
		}
		check(*x.br, &recv_b, &expect_b, true);
		check(*x.ar, &recv_a, &expect_a, true);
		check(*x.as, &sent_a, &unused_a, false);
		check(*x.bs, &sent_b, &unused_b, false);
	}
	stop_poller();
	stop_b_poller();
	EXPECT_EQ(recv_a, n);
	EXPECT_EQ(recv_b, n);
	// How often a port found the other busy (timing decides; reported).
	RecordProperty("peer_busy", std::to_string(stats_of(hca).peer_busy + stats_of(b_.hca).peer_busy));
	EXPECT_EQ(state(*x.a), u32(SCX_QPS_RTS));
}

// A peer port whose lock is taken (on PREEMPT_RT possibly by a task the
// poller itself preempted) is not spun on: each round it holds up asks to
// be called again after a delay that doubles up to the policy's cap, a
// trapped doorbell leaves the work to the poller, and once the lock is
// free the message goes through and the delays start over.
TEST_F(Fabric, APeerPortHeldUpIsRetriedAfterAGrowingDelay)
{
	cross_t x = cross();
	mr_t *b_mem = nullptr;
	on_b([&] { b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE); });
	on_b([&] {
		post_recv(*x.b, {{b_mem->va(0), 64, b_mem->key}});
		post_recv(*x.b, {{b_mem->va(64), 64, b_mem->key}});
	});
	// A first message routes A's QP to port B (routing may take locks too).
	post_send(*x.a, op::send, wqe_b().inl("ab", 2));
	pump_both();
	ASSERT_EQ(drain(*x.br).size(), 1u);
	ASSERT_EQ(drain(*x.as).size(), 1u);
	u64 busy0 = stats_of(hca).peer_busy;

	host_env::fail_trylocks(100);
	post_send(*x.a, op::send, wqe_b().inl("cd", 2));
	if (packet_transport()) {
		// Packets go into B's receive ring, which has a lock of its
		// own: B's data path being busy holds nothing up.
		pump_both();
		host_env::fail_trylocks(0);
		ASSERT_EQ(drain(*x.br).size(), 1u);
		EXPECT_EQ(std::memcmp(b_mem->cpu() + 64, "cd", 2), 0);
		EXPECT_EQ(drain(*x.as).size(), 1u);
		EXPECT_EQ(stats_of(hca).peer_busy, busy0);
		return;
	}
	// The trap's rounds stop at the first held-up one and wake the poller.
	EXPECT_TRUE(scx_hca_uar_store(hca));
	u64 after_trap = stats_of(hca).peer_busy;
	EXPECT_EQ(after_trap, busy0 + 1);
	std::vector<u32> delays;
	for (int i = 0; i < 9; i++)
		delays.push_back(scx_hca_poll(hca));
	EXPECT_EQ(delays, (std::vector<u32>{4, 8, 16, 32, 64, 128, 256, 256, 256}));
	EXPECT_EQ(stats_of(hca).peer_busy, after_trap + 9);
	EXPECT_TRUE(drain(*x.br).empty());
	EXPECT_TRUE(drain(*x.as).empty());

	host_env::fail_trylocks(0);
	u32 s = scx_hca_poll(hca);
	EXPECT_GT(s, 0u);
	pump_both();
	auto rc = drain(*x.br);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(std::memcmp(b_mem->cpu() + 64, "cd", 2), 0);
	EXPECT_EQ(drain(*x.as).size(), 1u);
	EXPECT_EQ(state(*x.a), u32(SCX_QPS_RTS));

	// Held up again: the delays start from the bottom.
	on_b([&] { post_recv(*x.b, {{b_mem->va(128), 64, b_mem->key}}); });
	host_env::fail_trylocks(1);
	post_send(*x.a, op::send, wqe_b().inl("ef", 2));
	EXPECT_EQ(scx_hca_poll(hca), 2u);
	host_env::fail_trylocks(0);
	pump_both();
	EXPECT_EQ(drain(*x.br).size(), 1u);
	EXPECT_EQ(std::memcmp(b_mem->cpu() + 128, "ef", 2), 0);
}
