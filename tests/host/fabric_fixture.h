// SPDX-License-Identifier: GPL-2.0
// Two softcx ports, as two devices in one kernel (test_dp_fabric.cpp) or
// two hosts on a wire (test_dp_wire.cpp). The fixture's helpers work on
// port A; on_b() points them at port B for a while.
#pragma once

#include "dp_fixture.h"

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
		ASSERT_EQ(scx_verbs_alloc_pd(drv, 0, &pd), 0);
		ASSERT_EQ(scx_verbs_alloc_uar(drv, 0, &uar), 0);
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

	// SEND, WRITE_IMM, READ and FETCH_ADD between the QPs of x, data and
	// CQEs checked on both sides.
	void exchange_rc_verbs(cross_t &x)
	{
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
