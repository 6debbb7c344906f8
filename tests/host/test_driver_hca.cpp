// SPDX-License-Identifier: GPL-2.0
// The driver against the real hca (core_cpp/hca) through the PRM interface
// only: BAR0, DMA memory and interrupt vectors of a host test platform.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "driver/cmd_names.h"
#include "driver/commands.h"
#include "driver/device.h"
#include "hca/device.h"
#include "host_env.h"
#include "prm/cmd.h"
#include "prm/cmdq.h"
#include "prm/cq.h"
#include "prm/eq.h"
#include "prm/hca_cap.h"
#include "prm/mkey.h"
#include "prm/uar.h"
#include "prm/vport.h"
#include "softcx/driver.h"
#include "driver_hca_fixture.h"
#include "test_platform.h"

using namespace scx;
using namespace driver_hca_test;
using driver::core_cq;

namespace {

u64 stat_count(driver::cmd_if &c, u16 op, driver::cmd_op_stat *out = nullptr)
{
	driver::cmd_op_stat st{};
	EXPECT_TRUE(c.op_stat(driver::opcode_stat_index(op), &st));
	if (out)
		*out = st;
	return st.count;
}

} // namespace

TEST_F(DriverHca, InitAndTeardownWithoutLeaks)
{
	ASSERT_TRUE(start());
	EXPECT_EQ(hw->state(), hca::hca_state::initialized);
	EXPECT_EQ(cmd().current_mode(), driver::cmd_if::mode::events);
	EXPECT_EQ(drv->issi(), 1);
	EXPECT_EQ(drv->num_eqs(), 3u);
	EXPECT_EQ(cmd().fw_rev_major(), hw_cfg.fw_major);
	EXPECT_EQ(cmd().fw_rev_minor(), hw_cfg.fw_minor);
	EXPECT_EQ(cmd().fw_rev_subminor(), hw_cfg.fw_subminor);
	EXPECT_EQ(drv->vport_state(), prm::vport_state::up);
	const u8 *gen = drv->cap(prm::cap_type::general, prm::cap_mode::cur);
	ASSERT_NE(gen, nullptr);
	EXPECT_GT(prm::get(gen, prm::cmd_hca_cap::log_max_cq), 0u);
	EXPECT_EQ(plat.irq_name(0), "sx0-async");
	EXPECT_EQ(plat.irq_name(2), "sx0-comp1");
	// Regular pages arrive by PAGE_REQUEST once INIT_HCA is done.
	EXPECT_TRUE(wait_for([&] { return drv->pages().stats().held == hw->fw_pages_held(); }));
	EXPECT_TRUE(wait_for([&] { return drv->pages().stats().requests > 0; }));
	EXPECT_TRUE(driver::cmd::nop(cmd()));
	drv->teardown();
	EXPECT_EQ(hw->state(), hca::hca_state::disabled);
	EXPECT_EQ(hw->fw_pages_held(), 0u);
	EXPECT_EQ(drv->pages().stats().held, 0u);
	EXPECT_FALSE(plat.registered(0));
	EXPECT_FALSE(plat.registered(1));
	EXPECT_EQ(plat.dma_live(), 0);
}

TEST_F(DriverHca, TenThousandNopsFromThirtyTwoThreads)
{
	ASSERT_TRUE(start());
	constexpr int threads = 32, per = 313;
	std::atomic<int> fails{0};
	std::vector<std::thread> t;
	u64 irqs = plat.handled(0);
	for (int i = 0; i < threads; i++)
		t.emplace_back([&] {
			for (int k = 0; k < per; k++)
				if (!driver::cmd::nop(cmd()))
					fails++;
		});
	for (auto &th : t)
		th.join();
	EXPECT_EQ(fails.load(), 0);
	driver::cmd_op_stat st;
	EXPECT_EQ(stat_count(cmd(), prm::op::nop, &st), u64(threads * per));
	EXPECT_EQ(st.errors, 0u);
	EXPECT_GT(st.lat_avg_ns, 0u);
	EXPECT_GT(plat.handled(0), irqs); // completions came as events
	EXPECT_EQ(cmd().abandoned(), 0u);
}

TEST_F(DriverHca, PollingModeAndSwitching)
{
	cfg.use_events = false;
	ASSERT_TRUE(start());
	EXPECT_EQ(cmd().current_mode(), driver::cmd_if::mode::polling);
	for (int i = 0; i < 500; i++)
		ASSERT_TRUE(driver::cmd::nop(cmd()));
	cmd().use_events();
	for (int i = 0; i < 500; i++)
		ASSERT_TRUE(driver::cmd::nop(cmd()));
	cmd().use_polling();
	for (int i = 0; i < 500; i++)
		ASSERT_TRUE(driver::cmd::nop(cmd(), i & 1 ? driver::cmd_if::f_polling : 0));
	EXPECT_EQ(stat_count(cmd(), prm::op::nop), 1500u);
}

TEST_F(DriverHca, MailboxChainsThroughRealCommands)
{
	ASSERT_TRUE(start());
	// No page request may slip in between: the checks below are exact.
	ASSERT_TRUE(wait_for([&] {
		return drv->pages().stats().requests > 0 && drv->pages().stats().held == hw->fw_pages_held();
	}));
	cmd().reset_max_blocks();
	// QUERY_ADAPTER: 272-byte output, one block.
	driver::cmd::adapter_info ai{};
	ASSERT_TRUE(driver::cmd::query_adapter(cmd(), &ai));
	EXPECT_EQ(cmd().max_out_blocks(), 1u);
	// MANAGE_PAGES with 100 addresses: 816 bytes, two blocks.
	ASSERT_TRUE(drv->pages().give(0, 100));
	EXPECT_EQ(cmd().max_in_blocks(), 2u);
	// QUERY_HCA_CAP: a 4 KiB page, eight blocks.
	std::vector<u8> cap(prm::hca_cap_union::size_bytes);
	ASSERT_TRUE(driver::cmd::query_hca_cap(cmd(), prm::cap_type::general, prm::cap_mode::max, cap.data()));
	EXPECT_EQ(cmd().max_out_blocks(), 8u);
	EXPECT_EQ(prm::get(cap.data(), prm::cmd_hca_cap::log_max_cq),
		  prm::get(drv->cap(prm::cap_type::general, prm::cap_mode::max), prm::cmd_hca_cap::log_max_cq));
	// MANAGE_PAGES with 600 addresses in and, taking them back, out: ten.
	ASSERT_TRUE(drv->pages().give(0, 600));
	EXPECT_GE(cmd().max_in_blocks(), 10u);
	u32 got = 0;
	ASSERT_TRUE(drv->pages().reclaim(0, 700, &got));
	EXPECT_GE(got, 600u);
	EXPECT_GE(cmd().max_out_blocks(), 10u);
	EXPECT_EQ(drv->pages().stats().held, hw->fw_pages_held());
}

TEST_F(DriverHca, SignedCommandsBothWays)
{
	cfg.cmd.checksum = true; // entries and blocks signed; output verified
	ASSERT_TRUE(start());
	for (int i = 0; i < 200; i++)
		ASSERT_TRUE(driver::cmd::nop(cmd()));
	std::vector<u8> cap(prm::hca_cap_union::size_bytes);
	ASSERT_TRUE(driver::cmd::query_hca_cap(cmd(), prm::cap_type::general, prm::cap_mode::cur, cap.data()));
	ASSERT_TRUE(drv->pages().give(0, 300));
}

TEST_F(DriverHca, DelayedCommandTimesOutAndItsSlotComesBack)
{
	cfg.cmd.timeout_ms = 100;
	ASSERT_TRUE(start());
	ASSERT_TRUE(hw->faults().delay(prm::op::nop, 400));
	EXPECT_EQ(driver::cmd::nop(cmd()).code(), errc::timedout);
	EXPECT_EQ(cmd().abandoned(), 1u);
	// Other commands go on meanwhile (the firmware works through its
	// queue in order, so they may wait for the delayed one).
	EXPECT_TRUE(wait_for([&] { return cmd().abandoned() == 0; }, 3000));
	for (int i = 0; i < 50; i++)
		ASSERT_TRUE(driver::cmd::nop(cmd()));
	driver::cmd_op_stat st;
	stat_count(cmd(), prm::op::nop, &st);
	EXPECT_EQ(st.timeouts, 1u);
}

TEST_F(DriverHca, DroppedCommandTimesOutAndTheQueueStillWorks)
{
	cfg.cmd.timeout_ms = 100;
	ASSERT_TRUE(start());
	ASSERT_TRUE(hw->faults().drop(prm::op::nop));
	EXPECT_EQ(driver::cmd::nop(cmd()).code(), errc::timedout);
	for (int i = 0; i < 100; i++)
		ASSERT_TRUE(driver::cmd::nop(cmd()));
	EXPECT_EQ(cmd().abandoned(), 1u); // never returned: the slot stays the device's
}

TEST_F(DriverHca, InjectedStatusAndDeliveryErrorsBecomeErrnos)
{
	ASSERT_TRUE(start());
	namespace s = prm::cmd_stat;
	struct {
		u8 st;
		errc e;
	} cases[] = {{s::bad_param_err, errc::inval}, {s::bad_op_err, errc::inval},  {s::lim_err, errc::nomem},
		     {s::no_res_err, errc::again},     {s::res_busy, errc::busy},       {s::bad_inp_len_err, errc::io},
		     {s::bad_outp_len_err, errc::io},  {s::bad_res_state_err, errc::inval},
		     {s::bad_qp_state_err, errc::inval}, {s::int_err, errc::io}};
	for (auto &c : cases) {
		ASSERT_TRUE(hw->faults().fail(prm::op::nop, c.st, 0x5eed));
		EXPECT_EQ(driver::cmd::nop(cmd()).code(), c.e) << "status " << unsigned(c.st);
	}
	namespace d = prm::delivery_stat;
	ASSERT_TRUE(hw->faults().fail_delivery(prm::op::nop, d::fw_err));
	EXPECT_EQ(driver::cmd::nop(cmd()).code(), errc::io);
	ASSERT_TRUE(hw->faults().fail_delivery(prm::op::nop, d::tok_err));
	EXPECT_EQ(driver::cmd::nop(cmd()).code(), driver::errc_badr);
	EXPECT_TRUE(driver::cmd::nop(cmd()));
	driver::cmd_op_stat st;
	stat_count(cmd(), prm::op::nop, &st);
	EXPECT_EQ(st.errors, sizeof(cases) / sizeof(cases[0]) + 2);
}

TEST_F(DriverHca, AsyncEqWrapsManyLaps)
{
	cfg.async_eq_nent = 1; // a 256-entry ring
	ASSERT_TRUE(start());
	const driver::eq *aq = drv->eq_at(0);
	u32 nent = aq->stats().nent;
	EXPECT_EQ(nent, 256u);
	for (u32 i = 0; i < 4 * nent; i++)
		ASSERT_TRUE(driver::cmd::nop(cmd()));
	EXPECT_GE(aq->stats().eqes, 4u * nent);
	EXPECT_GE(aq->stats().cons_index / nent, 4u);
}

TEST_F(DriverHca, LinkChangesReachThePortHook)
{
	struct seen {
		std::atomic<int> n{0}, port{0}, sub{0};
	} s;
	cfg.ctx = &s;
	cfg.port_event = [](void *ctx, u8 port, u8 sub) {
		auto *p = static_cast<seen *>(ctx);
		p->port = port;
		p->sub = sub;
		p->n++;
	};
	ASSERT_TRUE(start());
	ASSERT_TRUE(hw->set_link(false));
	ASSERT_TRUE(wait_for([&] { return s.n.load() == 1; }));
	EXPECT_EQ(s.sub.load(), prm::port_change_subtype::down);
	EXPECT_EQ(s.port.load(), 1);
	ASSERT_TRUE(hw->set_link(true));
	ASSERT_TRUE(wait_for([&] { return s.n.load() == 2; }));
	EXPECT_EQ(s.sub.load(), prm::port_change_subtype::active);
}

namespace {

// A kernel-style CQ: ring and doorbell record in DMA memory, armed through
// the driver's UAR page as mlx5_cq_arm does.
struct test_cq {
	core_cq cq;
	test_platform *plat = nullptr;
	u8 *ring = nullptr, *dbrec = nullptr;
	u64 ring_dma = 0, dbrec_dma = 0;
	std::atomic<int> comps{0};
	std::atomic<bool> alive{true};
	std::atomic<int> after_death{0};
	std::atomic<int> events{0};
	std::atomic<int> last_event{-1};
	u32 posted = 0;

	static constexpr u32 log_size = 6;

	bool alloc(test_platform &p)
	{
		plat = &p;
		ring = static_cast<u8 *>(p.dma_alloc(4096, &ring_dma));
		dbrec = static_cast<u8 *>(p.dma_alloc(4096, &dbrec_dma));
		for (u32 i = 0; ring && i < (1u << log_size); i++)
			prm::set(ring + i * 64, prm::cqe64::op_own, 0xf1); // invalid, hw-owned
		return ring && dbrec;
	}
	void free()
	{
		plat->dma_free(ring, 4096, ring_dma);
		plat->dma_free(dbrec, 4096, dbrec_dma);
	}
	std::vector<u8> create_in(driver::device &d, u32 ci)
	{
		std::vector<u8> in(prm::create_cq_in::size_bytes + 8);
		u8 *cqc = prm::at(in.data(), prm::create_cq_in::cq_context);
		prm::set(cqc, prm::cqc::log_cq_size, log_size);
		prm::set(cqc, prm::cqc::uar_page, d.uar());
		prm::set(cqc, prm::cqc::c_eqn_or_apu_element, d.comp_eqn(ci));
		prm::set(cqc, prm::cqc::log_page_size, 0);
		prm::set(cqc, prm::cqc::dbr_addr, dbrec_dma);
		store_be<u64>(prm::at(in.data(), prm::create_cq_in::pas, 0, 8), ring_dma);
		return in;
	}
	// Everything posted so far is consumed; ask for the next completion.
	NO_VPTR void consume_and_arm(bus::mmio &bar, u32 uar)
	{
		u32 sn = cq.arm_sn.load() & 3;
		prm::set(dbrec, prm::cq_dbrec::set_ci, posted & 0xffffff);
		prm::set(dbrec, prm::cq_dbrec::arm_sn, sn);
		prm::set(dbrec, prm::cq_dbrec::arm_cmd, prm::cq_arm_cmd::req_not);
		prm::set(dbrec, prm::cq_dbrec::arm_ci, posted & 0xffffff);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		u8 db[8] = {};
		prm::set(db, prm::cq_doorbell::arm_sn, sn);
		prm::set(db, prm::cq_doorbell::cmd, prm::cq_arm_cmd::req_not);
		prm::set(db, prm::cq_doorbell::ci, posted & 0xffffff);
		prm::set(db, prm::cq_doorbell::cqn, cq.cqn);
		bar.write64(uar * prm::uar_page::size + prm::uar_page::cq_doorbell, load_be<u64>(db));
	}
};

void count_event(core_cq *, u8 type, u8, void *ctx)
{
	auto *c = static_cast<test_cq *>(ctx);
	c->last_event = type;
	c->events++;
}

void count_comp(core_cq *, void *ctx)
{
	auto *c = static_cast<test_cq *>(ctx);
	if (!c->alive.load())
		c->after_death++;
	c->comps++;
}

} // namespace

TEST_F(DriverHca, CqCompletionsThroughTasklet)
{
	struct tctx {
		driver::device *dev = nullptr;
		std::atomic<int> scheduled{0};
	} tc;
	cfg.ctx = &tc;
	cfg.schedule_tasklet = [](void *ctx, u32 ci) {
		auto *t = static_cast<tctx *>(ctx);
		t->scheduled++;
		t->dev->run_completions(ci);
	};
	ASSERT_TRUE(start());
	tc.dev = drv.get();
	test_cq c;
	ASSERT_TRUE(c.alloc(plat));
	c.cq.comp = count_comp;
	c.cq.event = count_event;
	c.cq.ctx = &c;
	auto in = c.create_in(*drv, 1);
	ASSERT_TRUE(drv->create_cq(c.cq, in.data(), u32(in.size())));
	u8 cqe[64] = {};
	for (int i = 0; i < 20; i++) {
		c.consume_and_arm(hw->bar0(), drv->uar());
		ASSERT_EQ(hw->post_cqe(c.cq.cqn, cqe), hca::cqe_result::posted);
		c.posted++;
		ASSERT_TRUE(wait_for([&] { return c.comps.load() == i + 1; }));
	}
	EXPECT_EQ(c.cq.arm_sn.load(), 20u);
	EXPECT_GE(tc.scheduled.load(), 20);
	// Not armed: a completion is written but raises no event.
	ASSERT_EQ(hw->post_cqe(c.cq.cqn, cqe), hca::cqe_result::posted);
	c.posted++;
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_EQ(c.comps.load(), 20);
	const driver::eq *q1 = drv->eq_at(2);
	EXPECT_GE(q1->stats().eqes, 20u);
	EXPECT_GE(q1->stats().irqs, 20u);

	// QUERY_CQ and MODIFY_CQ on it.
	std::vector<u8> qout(prm::query_cq_out::size_bytes);
	ASSERT_TRUE(drv->query_cq(c.cq, qout.data(), u32(qout.size())));
	const u8 *qc = prm::at(qout.data(), prm::query_cq_out::cq_context);
	EXPECT_EQ(prm::get(qc, prm::cqc::log_cq_size), test_cq::log_size);
	EXPECT_EQ(prm::get(qc, prm::cqc::c_eqn_or_apu_element), drv->comp_eqn(1));
	std::vector<u8> min(prm::modify_cq_in::size_bytes);
	prm::set(min.data(), prm::modify_cq_in::modify_field_select_resize_field_select,
		 prm::cq_modify::period | prm::cq_modify::count);
	u8 *mc = prm::at(min.data(), prm::modify_cq_in::cq_context);
	prm::set(mc, prm::cqc::cq_period, 7);
	prm::set(mc, prm::cqc::cq_max_count, 9);
	ASSERT_TRUE(drv->modify_cq(c.cq, min.data(), u32(min.size())));
	ASSERT_TRUE(drv->query_cq(c.cq, qout.data(), u32(qout.size())));
	EXPECT_EQ(prm::get(qc, prm::cqc::cq_period), 7u);
	EXPECT_EQ(prm::get(qc, prm::cqc::cq_max_count), 9u);

	// Never consumed: the CQ overruns and the event callback hears of it.
	for (u32 i = 0; i <= (1u << test_cq::log_size); i++)
		if (hw->post_cqe(c.cq.cqn, cqe) != hca::cqe_result::posted)
			break;
	ASSERT_TRUE(wait_for([&] { return c.events.load() == 1; }));
	EXPECT_EQ(c.last_event.load(), prm::event_type::cq_error);
	ASSERT_TRUE(drv->destroy_cq(c.cq));
	c.free();
}

TEST_F(DriverHca, CqDestroyRacesCompletions)
{
	struct tctx {
		driver::device *dev = nullptr;
		scx_work *work[2] = {};
		u32 ci[2] = {0, 1};
	} tc;
	cfg.ctx = &tc;
	cfg.schedule_tasklet = [](void *ctx, u32 ci) { scx_env_work_queue(static_cast<tctx *>(ctx)->work[ci]); };
	ASSERT_TRUE(start());
	tc.dev = drv.get();
	struct arg {
		tctx *t;
		u32 ci;
	} args[2] = {{&tc, 0}, {&tc, 1}};
	for (int i = 0; i < 2; i++)
		tc.work[i] = scx_env_work_new([](void *a) {
			auto *x = static_cast<arg *>(a);
			x->t->dev->run_completions(x->ci);
		}, &args[i]);

	int total = 0, after_death = 0;
	for (int round = 0; round < 60; round++) {
		// Three CQs per round, each with a thread completing on it as
		// fast as it can while the main thread destroys them.
		std::unique_ptr<test_cq> cqs[3];
		for (auto &c : cqs) {
			c = std::make_unique<test_cq>();
			ASSERT_TRUE(c->alloc(plat));
			c->cq.comp = count_comp;
			c->cq.ctx = c.get();
			auto in = c->create_in(*drv, u32(round & 1));
			ASSERT_TRUE(drv->create_cq(c->cq, in.data(), u32(in.size())));
		}
		std::atomic<bool> stop{false};
		std::vector<std::thread> posters;
		for (auto &c : cqs)
			posters.emplace_back([&, cp = c.get()] {
				u8 cqe[64] = {};
				while (!stop.load()) {
					cp->consume_and_arm(hw->bar0(), drv->uar());
					if (hw->post_cqe(cp->cq.cqn, cqe) != hca::cqe_result::posted)
						break; // destroyed under us
					cp->posted++;
				}
			});
		std::this_thread::sleep_for(std::chrono::microseconds(500));
		for (auto &c : cqs) {
			ASSERT_TRUE(drv->destroy_cq(c->cq));
			c->alive = false; // a callback from here on would be a use after free
		}
		stop = true;
		for (auto &p : posters)
			p.join();
		for (auto &c : cqs) {
			total += c->comps.load();
			after_death += c->after_death.load();
			c->free();
		}
	}
	for (auto *w : tc.work)
		scx_env_work_free(w);
	EXPECT_EQ(after_death, 0);
	EXPECT_GT(total, 0);
	EXPECT_EQ(drv->cqs().count(), 0u);
}

TEST_F(DriverHca, PdAndMkeyWrappers)
{
	ASSERT_TRUE(start());
	auto pd = driver::cmd::alloc_pd(cmd());
	ASSERT_TRUE(pd);
	auto pd2 = driver::cmd::alloc_pd(cmd());
	ASSERT_TRUE(pd2);
	EXPECT_NE(*pd, *pd2);
	std::vector<u8> in(prm::create_mkey_in::size_bytes);
	u8 *mkc = prm::at(in.data(), prm::create_mkey_in::memory_key_mkey_entry);
	prm::set(mkc, prm::mkc::access_mode_1_0, prm::mkc_access_mode::pa);
	prm::set(mkc, prm::mkc::lr, 1);
	prm::set(mkc, prm::mkc::lw, 1);
	prm::set(mkc, prm::mkc::length64, 1);
	prm::set(mkc, prm::mkc::pd, *pd);
	prm::set(mkc, prm::mkc::mkey_7_0, 0x42);
	prm::set(mkc, prm::mkc::qpn, 0xffffff);
	auto key = driver::cmd::create_mkey(cmd(), in.data(), u32(in.size()));
	ASSERT_TRUE(key);
	EXPECT_EQ(*key & 0xff, 0x42u);
	EXPECT_TRUE(driver::cmd::destroy_mkey(cmd(), *key));
	EXPECT_EQ(driver::cmd::destroy_mkey(cmd(), *key).code(), errc::inval);
	EXPECT_TRUE(driver::cmd::dealloc_pd(cmd(), *pd2));
	EXPECT_TRUE(driver::cmd::dealloc_pd(cmd(), *pd));
}

TEST_F(DriverHca, CApiOnTheHca)
{
	hw = std::make_unique<hca_box>(plat, hw_cfg);
	ASSERT_TRUE(hw->init());
	struct shim {
		test_platform *plat;
		scx_drv *drv = nullptr;
		std::atomic<int> tasklets{0};
	} sh{&plat};
	scx_drv_params p{};
	p.name = "capi0";
	p.bar = bus::to_bar(&hw->bar0());
	p.ctx = &sh;
	p.dma_alloc = [](void *ctx, size_t size, uint64_t *dma) {
		return static_cast<shim *>(ctx)->plat->dma_alloc(size, dma);
	};
	p.dma_free = [](void *ctx, void *cpu, size_t size, uint64_t dma) {
		static_cast<shim *>(ctx)->plat->dma_free(cpu, size, dma);
	};
	p.request_irq = [](void *ctx, unsigned vector, const char *name, scx_drv *drv) {
		auto *s = static_cast<shim *>(ctx);
		s->drv = drv;
		return s->plat->request_irq(
			vector, name, [](void *c, uint32_t v) { scx_drv_handle_irq(static_cast<shim *>(c)->drv, v); },
			s);
	};
	p.free_irq = [](void *ctx, unsigned vector) { static_cast<shim *>(ctx)->plat->free_irq(vector); };
	p.schedule_tasklet = [](void *ctx, unsigned ci) {
		auto *s = static_cast<shim *>(ctx);
		s->tasklets++;
		scx_drv_run_tasklet(s->drv, ci);
	};
	p.num_comp_eqs = 2;
	p.cmd_timeout_ms = 5000;
	scx_drv *d = nullptr;
	ASSERT_EQ(scx_drv_init(&p, &d), 0);
	for (int i = 0; i < 100; i++)
		ASSERT_EQ(scx_drv_exec_nop(d), 0);
	scx_drv_info info;
	scx_drv_get_info(d, &info);
	EXPECT_EQ(info.num_eqs, 3u);
	EXPECT_EQ(info.cmd_events, 1u);
	EXPECT_EQ(info.fw_major, hw_cfg.fw_major);
	EXPECT_GT(info.fw_pages, 0u);
	scx_drv_cmd_stat cs;
	bool found = false;
	for (unsigned i = 0; scx_drv_get_cmd_stat(d, i, &cs) == 0; i++)
		if (cs.opcode == prm::op::nop) {
			found = true;
			EXPECT_EQ(cs.count, 100u);
			EXPECT_LE(cs.lat_min_ns, cs.lat_avg_ns);
			EXPECT_LE(cs.lat_avg_ns, cs.lat_max_ns);
		}
	EXPECT_TRUE(found);
	scx_drv_eq_stat es;
	ASSERT_EQ(scx_drv_get_eq_stat(d, 0, &es), 0);
	EXPECT_GE(es.eqes, 100u);
	EXPECT_GE(es.irqs, 1u);
	scx_drv_teardown(d);
	EXPECT_EQ(hw->fw_pages_held(), 0u);
}

namespace {

std::vector<host_env::trace_event> traced(const std::vector<host_env::trace_event> &all,
					  host_env::trace_event::kind_t kind, u16 opcode)
{
	std::vector<host_env::trace_event> v;
	for (auto &e : all)
		if (e.kind == kind && (kind == host_env::trace_event::eqe || e.opcode == opcode))
			v.push_back(e);
	return v;
}

} // namespace

TEST_F(DriverHca, TracepointsSeeEveryCommandAndEqe)
{
	using te = host_env::trace_event;
	ASSERT_TRUE(start());
	host_env::trace_record(true);
	for (int i = 0; i < 10; i++)
		ASSERT_TRUE(driver::cmd::nop(cmd()));
	host_env::trace_record(false);
	auto all = host_env::trace_take();
	auto posts = traced(all, te::cmd_post, prm::op::nop);
	auto dones = traced(all, te::cmd_done, prm::op::nop);
	ASSERT_EQ(posts.size(), 10u);
	ASSERT_EQ(dones.size(), 10u);
	for (int i = 0; i < 10; i++) {
		EXPECT_EQ(posts[i].dev, "sx0");
		EXPECT_NE(posts[i].token, 0);
		EXPECT_EQ(dones[i].slot, posts[i].slot);
		EXPECT_EQ(dones[i].status, 0);
		EXPECT_EQ(dones[i].syndrome, 0u);
		EXPECT_GT(dones[i].latency_ns, 0u);
	}
	// Every NOP completed by a CMD EQE on the async EQ, in ring order.
	int cmd_eqes = 0;
	u32 last_ci = 0;
	bool first = true;
	for (auto &e : traced(all, te::eqe, 0)) {
		if (e.eqn != drv->eq_at(0)->eqn())
			continue;
		EXPECT_TRUE(first || e.cons_index == last_ci + 1);
		first = false;
		last_ci = e.cons_index;
		if (e.type == prm::event_type::cmd)
			cmd_eqes++;
	}
	EXPECT_GE(cmd_eqes, 10);
	// Each post precedes its done.
	int open = 0;
	for (auto &e : all) {
		if (e.opcode != prm::op::nop || e.kind == te::eqe)
			continue;
		open += e.kind == te::cmd_post ? 1 : -1;
		EXPECT_GE(open, 0);
	}
	EXPECT_EQ(open, 0);
}

TEST_F(DriverHca, TracepointsCarryStatusSyndromeAndFailures)
{
	using te = host_env::trace_event;
	cfg.cmd.timeout_ms = 100;
	ASSERT_TRUE(start());
	host_env::trace_record(true);
	ASSERT_TRUE(hw->faults().fail(prm::op::nop, prm::cmd_stat::bad_param_err, 0x5eed));
	EXPECT_FALSE(driver::cmd::nop(cmd()));
	ASSERT_TRUE(hw->faults().fail_delivery(prm::op::nop, prm::delivery_stat::fw_err));
	EXPECT_FALSE(driver::cmd::nop(cmd()));
	ASSERT_TRUE(hw->faults().drop(prm::op::nop));
	EXPECT_EQ(driver::cmd::nop(cmd()).code(), errc::timedout);
	host_env::trace_record(false);
	auto dones = traced(host_env::trace_take(), te::cmd_done, prm::op::nop);
	ASSERT_EQ(dones.size(), 3u);
	EXPECT_EQ(dones[0].status, prm::cmd_stat::bad_param_err);
	EXPECT_EQ(dones[0].syndrome, 0x5eedu);
	EXPECT_EQ(dones[1].status, 0xfe); // no output: the delivery status as syndrome
	EXPECT_EQ(dones[1].syndrome, prm::delivery_stat::fw_err);
	EXPECT_EQ(dones[2].status, 0xfe); // timed out
	EXPECT_EQ(dones[2].syndrome, 0u);
	EXPECT_GE(dones[2].latency_ns, 100u * 1000 * 1000);
}
