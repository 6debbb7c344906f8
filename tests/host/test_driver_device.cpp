// SPDX-License-Identifier: GPL-2.0
// The driver's bring-up, event queues, firmware pages and CQ table against
// the fake firmware in full mode (core_cpp/hca has its own suite).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "driver/device.h"
#include "host_env.h"
#include "prm/cmd.h"
#include "prm/cq.h"
#include "prm/eq.h"
#include "prm/hca_cap.h"
#include "softcx/driver.h"
#include "test_driver_fake.h"
#include "test_platform.h"

using namespace scx;
using driver::core_cq;
using driver::device;

namespace {

template <typename F> bool wait_for(F cond, int ms = 5000)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
	while (!cond()) {
		if (std::chrono::steady_clock::now() > end)
			return false;
		std::this_thread::sleep_for(std::chrono::microseconds(200));
	}
	return true;
}

class Device : public ::testing::Test {
protected:
	void SetUp() override
	{
		baseline_ = host_env::live_allocations();
		fw = std::make_unique<fake_fw>(&plat);
		fw->full = true;
		cfg.name = "t0";
		cfg.num_comp_eqs = 2;
	}
	void TearDown() override
	{
		dev.reset();
		fw.reset();
		EXPECT_EQ(host_env::live_allocations(), baseline_);
		EXPECT_EQ(plat.dma_live(), 0);
		EXPECT_EQ(host_env::bug_count(), 0u);
		EXPECT_EQ(host_env::sleep_in_atomic_count(), 0u);
	}
	status start()
	{
		dev = std::make_unique<device>();
		return dev->init(*fw, plat, cfg);
	}

	// A CQ on completion EQ `ci`: the fake only looks at the EQ number.
	status create_cq(core_cq &cq, uint32_t ci)
	{
		uint8_t in[prm::create_cq_in::size_bytes + 8] = {};
		uint8_t *cqc = prm::at(in, prm::create_cq_in::cq_context);
		prm::set(cqc, prm::cqc::c_eqn_or_apu_element, dev->comp_eqn(ci));
		prm::set(cqc, prm::cqc::log_cq_size, 6);
		return dev->create_cq(cq, in, sizeof(in));
	}

	test_platform plat;
	std::unique_ptr<fake_fw> fw;
	std::unique_ptr<device> dev;
	driver::device_config cfg;
	long baseline_ = 0;
};

} // namespace

TEST_F(Device, BringUpAndTeardownLeaveNothingBehind)
{
	ASSERT_TRUE(start());
	EXPECT_EQ(dev->cmd().current_mode(), driver::cmd_if::mode::events);
	EXPECT_EQ(dev->issi(), 1);
	EXPECT_EQ(dev->uar(), 3u);
	EXPECT_EQ(dev->num_eqs(), 3u);
	EXPECT_EQ(fw->eq_count(), 3u);
	EXPECT_EQ(fw->pages_held(), fw->boot_pages + fw->init_pages);
	EXPECT_EQ(dev->pages().stats().held, fw->boot_pages + fw->init_pages);
	EXPECT_EQ(plat.irq_name(0), "t0-async");
	EXPECT_EQ(plat.irq_name(1), "t0-comp0");
	EXPECT_EQ(plat.irq_name(2), "t0-comp1");
	ASSERT_NE(dev->cap(prm::cap_type::general, prm::cap_mode::cur), nullptr);
	uint64_t irqs = plat.handled(0);
	for (int i = 0; i < 50; i++)
		ASSERT_TRUE(driver::cmd::nop(dev->cmd()));
	EXPECT_GE(plat.handled(0), irqs + 50); // each completion came as an event
	dev->teardown();
	EXPECT_EQ(fw->eq_count(), 0u);
	EXPECT_EQ(fw->pages_held(), 0u);
	EXPECT_FALSE(plat.registered(0));
	EXPECT_FALSE(plat.registered(1));
	EXPECT_EQ(plat.dma_live(), 0);
}

TEST_F(Device, PollingOnlyConfiguration)
{
	cfg.use_events = false;
	ASSERT_TRUE(start());
	EXPECT_EQ(dev->cmd().current_mode(), driver::cmd_if::mode::polling);
	for (int i = 0; i < 50; i++)
		ASSERT_TRUE(driver::cmd::nop(dev->cmd()));
}

TEST_F(Device, AsyncEqWrapsManyLaps)
{
	cfg.async_eq_nent = 1; // 1 + spare -> a 256-entry ring
	ASSERT_TRUE(start());
	const driver::eq *aq = dev->eq_at(0);
	ASSERT_NE(aq, nullptr);
	uint32_t nent = aq->stats().nent;
	EXPECT_EQ(nent, 256u);
	for (uint32_t i = 0; i < 4 * nent; i++)
		ASSERT_TRUE(driver::cmd::nop(dev->cmd()));
	auto st = aq->stats();
	EXPECT_GE(st.eqes, 4u * nent);
	EXPECT_GE(st.cons_index / nent, 4u); // laps
	EXPECT_EQ(fw->overflows(), 0u);
}

TEST_F(Device, PageRequestsAtRunTime)
{
	ASSERT_TRUE(start());
	unsigned before = fw->pages_held();
	ASSERT_TRUE(fw->post_page_request(0, 40));
	ASSERT_TRUE(wait_for([&] { return fw->pages_held() == before + 40; }));
	ASSERT_TRUE(fw->post_page_request(0, -25));
	ASSERT_TRUE(wait_for([&] { return fw->pages_held() == before + 15; }));
	ASSERT_TRUE(wait_for([&] { return dev->pages().stats().held == before + 15; }));
	EXPECT_EQ(dev->pages().stats().requests, 2u);
}

TEST_F(Device, ManagePagesWithLongChains)
{
	ASSERT_TRUE(start());
	// 600 page addresses: an input chain of 10 blocks; taking them back, an
	// output chain as long.
	ASSERT_TRUE(dev->pages().give(0, 600));
	EXPECT_GE(fw->max_in_blocks(), 10u);
	uint32_t got = 0;
	ASSERT_TRUE(dev->pages().reclaim(0, 600, &got));
	EXPECT_EQ(got, 600u);
	EXPECT_GE(fw->max_out_blocks(), 10u);
}

namespace {

struct counted_cq {
	core_cq cq;
	std::atomic<int> comps{0};
	std::atomic<int> events{0};
	std::atomic<bool> alive{true};
	std::atomic<int> after_death{0};
};

void on_comp(core_cq *, void *ctx)
{
	auto *c = static_cast<counted_cq *>(ctx);
	if (!c->alive.load())
		c->after_death++;
	c->comps++;
}

void on_event(core_cq *, uint8_t, uint8_t, void *ctx) { static_cast<counted_cq *>(ctx)->events++; }

} // namespace

TEST_F(Device, CompletionEventsReachCallbacksThroughTheTasklet)
{
	std::atomic<int> scheduled{0};
	struct hook_ctx {
		device *dev = nullptr;
		std::atomic<int> *scheduled;
	} hc{nullptr, &scheduled};
	cfg.ctx = &hc;
	// The "tasklet" runs right away here; the count shows it was asked for.
	cfg.schedule_tasklet = [](void *ctx, uint32_t ci) {
		auto *h = static_cast<hook_ctx *>(ctx);
		(*h->scheduled)++;
		h->dev->run_completions(ci);
	};
	ASSERT_TRUE(start());
	hc.dev = dev.get();
	counted_cq c;
	c.cq.comp = on_comp;
	c.cq.event = on_event;
	c.cq.ctx = &c;
	ASSERT_TRUE(create_cq(c.cq, 1));
	EXPECT_EQ(c.cq.eq_index, 1u);
	for (int i = 0; i < 10; i++)
		ASSERT_TRUE(fw->post_comp(dev->comp_eqn(1), c.cq.cqn));
	EXPECT_EQ(c.comps.load(), 10);
	EXPECT_EQ(c.cq.arm_sn.load(), 10u);
	EXPECT_EQ(scheduled.load(), 10);
	uint8_t d[28] = {};
	prm::set(d, prm::cq_error::cqn, c.cq.cqn);
	prm::set(d, prm::cq_error::syndrome, prm::cq_error_syndrome::cq_overrun);
	ASSERT_TRUE(fw->post_eqe(prm::event_type::cq_error, 0, d));
	EXPECT_EQ(c.events.load(), 1);
	// Unknown CQ: counted, nothing called.
	ASSERT_TRUE(fw->post_comp(dev->comp_eqn(0), 0xabcd));
	EXPECT_EQ(dev->bogus_events(), 1u);
	ASSERT_TRUE(dev->destroy_cq(c.cq));
	EXPECT_EQ(dev->cqs().count(), 0u);
}

TEST_F(Device, PortChangeAndOtherEventsGoToHooks)
{
	struct seen {
		std::atomic<int> port{0}, sub{0}, other{0}, srqn{0}, srq_type{0};
	} s;
	cfg.ctx = &s;
	cfg.port_event = [](void *ctx, uint8_t port, uint8_t sub) {
		static_cast<seen *>(ctx)->port = port;
		static_cast<seen *>(ctx)->sub = sub;
	};
	cfg.async_event = [](void *ctx, uint8_t type, uint8_t, const uint8_t *) {
		static_cast<seen *>(ctx)->other = type;
	};
	cfg.srq_event = [](void *ctx, uint32_t srqn, uint8_t type) {
		static_cast<seen *>(ctx)->srqn = int(srqn);
		static_cast<seen *>(ctx)->srq_type = type;
	};
	ASSERT_TRUE(start());
	uint8_t d[28] = {};
	prm::set(d, prm::port_state_change_event::port_num, 1);
	ASSERT_TRUE(fw->post_eqe(prm::event_type::port_change, prm::port_change_subtype::active, d));
	EXPECT_EQ(s.port.load(), 1);
	EXPECT_EQ(s.sub.load(), prm::port_change_subtype::active);
	// SRQ events go to their own hook, with the SRQ number.
	uint8_t q[28] = {};
	prm::set(q, prm::eqe_qp_srq::number, 0x123);
	ASSERT_TRUE(fw->post_eqe(prm::event_type::srq_rq_limit, 0, q));
	EXPECT_EQ(s.srqn.load(), 0x123);
	EXPECT_EQ(s.srq_type.load(), prm::event_type::srq_rq_limit);
	// What the driver has no hook for goes to the catch-all.
	ASSERT_TRUE(fw->post_eqe(prm::event_type::internal_error, 0, d));
	EXPECT_EQ(s.other.load(), prm::event_type::internal_error);
}

TEST_F(Device, CqDestroyRacesCompletions)
{
	// Completions run from a work item, as a tasklet would run later.
	struct tasklet_ctx {
		device *dev = nullptr;
		scx_work *work[2] = {};
	} tc;
	cfg.ctx = &tc;
	cfg.schedule_tasklet = [](void *ctx, uint32_t ci) {
		scx_env_work_queue(static_cast<tasklet_ctx *>(ctx)->work[ci]);
	};
	ASSERT_TRUE(start());
	tc.dev = dev.get();
	struct run_arg {
		tasklet_ctx *tc;
		uint32_t ci;
	} args[2] = {{&tc, 0}, {&tc, 1}};
	for (int i = 0; i < 2; i++)
		tc.work[i] = scx_env_work_new(
			[](void *a) {
				auto *ra = static_cast<run_arg *>(a);
				ra->tc->dev->run_completions(ra->ci);
			},
			&args[i]);

	std::atomic<bool> stop{false};
	std::atomic<uint32_t> target_cqn{0};
	std::atomic<uint32_t> target_ci{0};
	std::vector<std::thread> posters;
	for (int i = 0; i < 3; i++)
		posters.emplace_back([&] {
			while (!stop.load()) {
				uint32_t ci = target_ci.load();
				fw->post_comp(dev->comp_eqn(ci), target_cqn.load());
			}
		});
	int total = 0, after_death = 0;
	for (int round = 0; round < 100; round++) {
		auto *c = new counted_cq;
		c->cq.comp = on_comp;
		c->cq.ctx = c;
		uint32_t ci = uint32_t(round & 1);
		ASSERT_TRUE(create_cq(c->cq, ci));
		target_ci = ci;
		target_cqn = c->cq.cqn;
		std::this_thread::sleep_for(std::chrono::microseconds(300));
		ASSERT_TRUE(dev->destroy_cq(c->cq));
		c->alive = false; // from here on a callback would be a use after free
		total += c->comps.load();
		after_death += c->after_death.load();
		delete c;
	}
	stop = true;
	for (auto &t : posters)
		t.join();
	for (auto *w : tc.work)
		scx_env_work_free(w);
	EXPECT_EQ(after_death, 0);
	EXPECT_GT(total, 0);
	EXPECT_GT(dev->bogus_events(), 0u); // events for CQs already gone
}

TEST_F(Device, CApiBringsUpRunsNopAndReportsStats)
{
	struct shim {
		test_platform *plat;
		scx_drv *drv = nullptr;
	} sh{&plat};
	scx_drv_params p{};
	p.name = "capi0";
	p.bar = bus::to_bar(fw.get());
	p.ctx = &sh;
	p.dma_alloc = [](void *ctx, size_t size, uint64_t *dma) {
		return static_cast<shim *>(ctx)->plat->dma_alloc(size, dma);
	};
	p.dma_free = [](void *ctx, void *cpu, size_t size, uint64_t dma) {
		static_cast<shim *>(ctx)->plat->dma_free(cpu, size, dma);
	};
	// The "kernel": its hardirq handler forwards to scx_drv_handle_irq.
	p.request_irq = [](void *ctx, unsigned vector, const char *name, scx_drv *drv) {
		auto *s = static_cast<shim *>(ctx);
		s->drv = drv; // one function per shim here
		return s->plat->request_irq(
			vector, name, [](void *c, uint32_t v) { scx_drv_handle_irq(static_cast<shim *>(c)->drv, v); },
			s);
	};
	p.free_irq = [](void *ctx, unsigned vector) { static_cast<shim *>(ctx)->plat->free_irq(vector); };
	p.num_comp_eqs = 3;
	scx_drv *drv = nullptr;
	ASSERT_EQ(scx_drv_init(&p, &drv), 0);
	EXPECT_EQ(sh.drv, drv);
	EXPECT_EQ(scx_drv_exec_nop(drv), 0);
	scx_drv_info info;
	scx_drv_get_info(drv, &info);
	EXPECT_EQ(info.num_eqs, 4u);
	EXPECT_EQ(info.cmd_slots, 32u);
	EXPECT_EQ(info.cmd_events, 1u);
	EXPECT_EQ(info.fw_major, 16);
	bool saw_nop = false;
	unsigned rows = 0;
	scx_drv_cmd_stat cs;
	for (unsigned i = 0; scx_drv_get_cmd_stat(drv, i, &cs) == 0; i++, rows++)
		if (cs.opcode == prm::op::nop) {
			saw_nop = true;
			EXPECT_STREQ(cs.name, "NOP");
			EXPECT_EQ(cs.count, 1u);
		}
	EXPECT_TRUE(saw_nop);
	EXPECT_GT(rows, 40u);
	scx_drv_eq_stat es;
	EXPECT_EQ(scx_drv_get_eq_stat(drv, 0, &es), 0);
	EXPECT_EQ(es.vector, 0u);
	EXPECT_EQ(scx_drv_get_eq_stat(drv, 3, &es), 0);
	EXPECT_EQ(es.vector, 3u);
	EXPECT_EQ(scx_drv_get_eq_stat(drv, 4, &es), -2);
	EXPECT_EQ(plat.irq_name(3), "capi0-comp2");
	scx_drv_teardown(drv);
}
