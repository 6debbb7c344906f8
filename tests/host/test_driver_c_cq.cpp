// SPDX-License-Identifier: GPL-2.0
// Kernel-owned CQs (scx_drv_cq_*) against the real hca, with both sides
// driven through their C APIs (c_machine.h).
#include <gtest/gtest.h>

#include "c_machine.h"

namespace {

constexpr uint16_t op_create_cq = 0x400;
constexpr uint8_t stat_bad_param = 0x3;
constexpr uint8_t event_cq_error = 0x04;
constexpr uint8_t cq_overrun = 0x1;

struct probe {
	std::atomic<int> comps{0};
	std::atomic<int> events{0};
	std::atomic<int> last_type{-1}, last_synd{-1};
	scx_drv_cq *last_cq = nullptr;
};

void on_comp(scx_drv_cq *cq, void *ctx)
{
	auto *p = static_cast<probe *>(ctx);
	p->last_cq = cq;
	p->comps++;
}

void on_event(scx_drv_cq *, uint8_t type, uint8_t synd, void *ctx)
{
	auto *p = static_cast<probe *>(ctx);
	p->last_type = type;
	p->last_synd = synd;
	p->events++;
}

class DriverCCq : public CMachine {
protected:
	scx_drv_cq *make_cq(probe &p, unsigned comp_eq, unsigned log_size)
	{
		scx_drv_cq_params cp{};
		cp.comp_eq = comp_eq;
		cp.log_size = log_size;
		cp.comp = on_comp;
		cp.event = on_event;
		cp.ctx = &p;
		scx_drv_cq *cq = nullptr;
		EXPECT_EQ(scx_drv_cq_create(drv, &cp, &cq), 0);
		return cq;
	}

	int post(scx_drv_cq *cq, bool solicited = false)
	{
		scx_drv_cq_info ci;
		scx_drv_cq_get_info(cq, &ci);
		uint8_t cqe[64] = {};
		cqe[63] = 0x00; // MLX5_CQE_REQ << 4
		return scx_hca_post_cqe(hca, ci.cqn, cqe, solicited);
	}
};

} // namespace

TEST_F(DriverCCq, ArmedCqesReachTheCallbackAroundTheRing)
{
	start();
	probe p;
	scx_drv_cq *cq = make_cq(p, 1, 3);
	ASSERT_NE(cq, nullptr);
	scx_drv_cq_info ci;
	scx_drv_cq_get_info(cq, &ci);
	EXPECT_EQ(ci.comp_eq, 1u);
	scx_drv_eq_stat e1{}, e2{};
	ASSERT_EQ(scx_drv_get_eq_stat(drv, 1, &e1), 0);
	// Three laps of an 8-entry ring: the owner bit alternates.
	for (int i = 0; i < 24; i++) {
		scx_drv_cq_arm(cq, false);
		ASSERT_EQ(post(cq), 0);
		ASSERT_TRUE(c_wait_for([&] { return p.comps.load() == i + 1; })) << i;
		EXPECT_EQ(scx_drv_cq_poll(cq, 8), 1u) << i;
		EXPECT_EQ(scx_drv_cq_poll(cq, 8), 0u) << i;
	}
	EXPECT_EQ(p.last_cq, cq);
	scx_drv_cq_get_info(cq, &ci);
	EXPECT_EQ(ci.arm_sn, 24u);
	EXPECT_EQ(ci.comp_calls, 24u);
	EXPECT_EQ(ci.cons_index, 24u);
	EXPECT_GE(tasklets.load(), 24);
	// Completion EQ 1 (vector 2) took them; completion EQ 0 nothing.
	ASSERT_EQ(scx_drv_get_eq_stat(drv, 2, &e2), 0);
	EXPECT_GE(e2.eqes, 24u);
	EXPECT_EQ(e1.eqes, 0u);
	EXPECT_EQ(p.events.load(), 0);
	EXPECT_EQ(scx_drv_cq_destroy(cq), 0);
}

TEST_F(DriverCCq, ArmingRules)
{
	start();
	probe p;
	scx_drv_cq *cq = make_cq(p, 0, 4);
	ASSERT_NE(cq, nullptr);
	// Not armed: written, no event.
	ASSERT_EQ(post(cq), 0);
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_EQ(p.comps.load(), 0);
	EXPECT_EQ(scx_drv_cq_poll(cq, 8), 1u);
	// One arm, two CQEs: one event.
	scx_drv_cq_arm(cq, false);
	ASSERT_EQ(post(cq), 0);
	ASSERT_EQ(post(cq), 0);
	ASSERT_TRUE(c_wait_for([&] { return p.comps.load() == 1; }));
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_EQ(p.comps.load(), 1);
	EXPECT_EQ(scx_drv_cq_poll(cq, 1), 1u); // max is honoured
	EXPECT_EQ(scx_drv_cq_poll(cq, 8), 1u);
	// Arming over an unconsumed CQE fires at once.
	ASSERT_EQ(post(cq), 0);
	scx_drv_cq_arm(cq, false);
	ASSERT_TRUE(c_wait_for([&] { return p.comps.load() == 2; }));
	EXPECT_EQ(scx_drv_cq_poll(cq, 8), 1u);
	// Solicited only: an unsolicited CQE does not fire, a solicited one does.
	scx_drv_cq_arm(cq, true);
	ASSERT_EQ(post(cq, false), 0);
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_EQ(p.comps.load(), 2);
	ASSERT_EQ(post(cq, true), 0);
	ASSERT_TRUE(c_wait_for([&] { return p.comps.load() == 3; }));
	EXPECT_EQ(scx_drv_cq_poll(cq, 8), 2u);
	EXPECT_EQ(scx_drv_cq_destroy(cq), 0);
}

TEST_F(DriverCCq, OverrunReportsCqErrorAndDestroyedCqIsGone)
{
	start();
	probe p;
	scx_drv_cq *cq = make_cq(p, 1, 2);
	ASSERT_NE(cq, nullptr);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(post(cq), 0);
	EXPECT_EQ(post(cq), -ENOSPC);
	ASSERT_TRUE(c_wait_for([&] { return p.events.load() == 1; }));
	EXPECT_EQ(p.last_type.load(), event_cq_error);
	EXPECT_EQ(p.last_synd.load(), cq_overrun);
	EXPECT_EQ(p.comps.load(), 0);
	scx_drv_cq_info ci;
	scx_drv_cq_get_info(cq, &ci);
	EXPECT_EQ(scx_drv_cq_destroy(cq), 0);
	uint8_t cqe[64] = {};
	EXPECT_EQ(scx_hca_post_cqe(hca, ci.cqn, cqe, false), -ENOENT);
}

TEST_F(DriverCCq, CreateErrorsLeaveNothingBehind)
{
	// A leaked ring would show in TearDown (every DMA page back) and in ASan.
	start();
	probe p;
	scx_drv_cq_params cp{};
	cp.comp = on_comp;
	cp.ctx = &p;
	scx_drv_cq *cq = nullptr;
	cp.comp_eq = 2; // only 0 and 1 exist
	cp.log_size = 4;
	EXPECT_EQ(scx_drv_cq_create(drv, &cp, &cq), -EINVAL);
	cp.comp_eq = 0;
	cp.log_size = 0;
	EXPECT_EQ(scx_drv_cq_create(drv, &cp, &cq), -EINVAL);
	cp.log_size = 17;
	EXPECT_EQ(scx_drv_cq_create(drv, &cp, &cq), -EINVAL);
	cp.log_size = 4;
	ASSERT_EQ(scx_hca_fault_fail(hca, op_create_cq, stat_bad_param, 0, 1), 0);
	EXPECT_EQ(scx_drv_cq_create(drv, &cp, &cq), -EINVAL);
	EXPECT_EQ(cq, nullptr);
	// A larger ring spans several pages of the PAS list.
	cp.log_size = 10;
	ASSERT_EQ(scx_drv_cq_create(drv, &cp, &cq), 0);
	scx_drv_cq_arm(cq, false);
	scx_drv_cq_info ci;
	scx_drv_cq_get_info(cq, &ci);
	uint8_t cqe[64] = {};
	for (int i = 0; i < 200; i++)
		ASSERT_EQ(scx_hca_post_cqe(hca, ci.cqn, cqe, false), 0);
	ASSERT_TRUE(c_wait_for([&] { return p.comps.load() == 1; }));
	EXPECT_EQ(scx_drv_cq_poll(cq, 1000), 200u);
	EXPECT_EQ(scx_drv_cq_destroy(cq), 0);
}
