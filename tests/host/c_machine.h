// SPDX-License-Identifier: GPL-2.0
// A softcx function assembled from the two C APIs the way kmod/device.c
// wires it: the hca's raise_irq goes to an interrupt controller (the test
// platform) whose handler calls scx_drv_handle_irq, and the tasklet hook
// calls scx_drv_run_tasklet.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "host_env.h"
#include "softcx/driver.h"
#include "softcx/hca.h"
#include "test_platform.h"

template <typename F> bool c_wait_for(F cond, int ms = 5000)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
	while (!cond()) {
		if (std::chrono::steady_clock::now() > end)
			return false;
		std::this_thread::sleep_for(std::chrono::microseconds(200));
	}
	return true;
}

// An hca and its driver, wired through m's static callbacks (raise,
// dma_alloc, dma_free, request_irq, free_irq, schedule_tasklet; ctx m).
template <typename M>
void c_function_up(M *m, const char *name, unsigned cmd_timeout_ms, scx_hca **hca, scx_drv **drv)
{
	scx_hca_params hp{};
	hp.num_vectors = 3;
	hp.ctx = m;
	hp.raise_irq = M::raise;
	ASSERT_EQ(scx_hca_create(&hp, hca), 0);
	scx_drv_params dp{};
	dp.name = name;
	dp.bar = scx_hca_bar(*hca);
	dp.ctx = m;
	dp.dma_alloc = M::dma_alloc;
	dp.dma_free = M::dma_free;
	dp.request_irq = M::request_irq;
	dp.free_irq = M::free_irq;
	dp.schedule_tasklet = M::schedule_tasklet;
	dp.num_comp_eqs = 2;
	dp.cmd_timeout_ms = cmd_timeout_ms;
	if constexpr (requires { &M::qp_event; })
		dp.qp_event = M::qp_event;
	if constexpr (requires { &M::srq_event; })
		dp.srq_event = M::srq_event;
	if constexpr (requires { &M::dct_event; })
		dp.dct_event = M::dct_event;
	ASSERT_EQ(scx_drv_init(&dp, drv), 0);
}

// Async events as the driver passes them on (hardirq in the kernel).
struct async_ev {
	bool srq;      // an SRQ's event, else a QP's
	uint32_t num;  // its QPN / SRQN
	uint8_t type;  // the PRM event type
};
class async_log {
public:
	void add(bool srq, uint32_t num, uint8_t type)
	{
		std::lock_guard<std::mutex> g(mu_);
		evs_.push_back({srq, num, type});
	}
	// How many events of this kind arrived so far.
	int count(bool srq, uint32_t num, uint8_t type)
	{
		std::lock_guard<std::mutex> g(mu_);
		int n = 0;
		for (auto &e : evs_)
			n += e.srq == srq && e.num == num && e.type == type;
		return n;
	}

private:
	std::mutex mu_;
	std::vector<async_ev> evs_;
};

class CMachine : public ::testing::Test {
	template <typename M> friend void c_function_up(M *, const char *, unsigned, scx_hca **, scx_drv **);

protected:
	void SetUp() override { baseline_ = host_env::live_allocations(); }
	void TearDown() override
	{
		if (drv)
			scx_drv_teardown(drv);
		if (hca)
			scx_hca_destroy(hca);
		for (auto &q : quarantined_) {
			const uint8_t *b = static_cast<const uint8_t *>(q.cpu);
			size_t bad = 0;
			for (size_t i = 0; i < q.size; i++)
				bad += b[i] != poison;
			EXPECT_EQ(bad, 0u) << "the device wrote " << bad << " bytes of freed DMA memory";
			plat.dma_free(q.cpu, q.size, q.dma);
		}
		EXPECT_EQ(plat.dma_live(), 0);
		EXPECT_EQ(host_env::live_allocations(), baseline_);
		EXPECT_EQ(host_env::bug_count(), 0u);
		EXPECT_EQ(host_env::sleep_in_atomic_count(), 0u);
	}

	static void raise(void *ctx, unsigned vec) { static_cast<CMachine *>(ctx)->plat.raise(vec); }
	static void qp_event(void *ctx, uint32_t qpn, uint8_t type) { static_cast<CMachine *>(ctx)->events.add(false, qpn, type); }
	static void srq_event(void *ctx, uint32_t srqn, uint8_t type)
	{
		static_cast<CMachine *>(ctx)->events.add(true, srqn, type);
	}
	// A DCT's events are logged as an SRQ's are (by number and type).
	static void dct_event(void *ctx, uint32_t dctn, uint8_t type)
	{
		static_cast<CMachine *>(ctx)->events.add(true, dctn, type);
	}
	static void *dma_alloc(void *ctx, size_t size, uint64_t *dma)
	{
		return static_cast<CMachine *>(ctx)->plat.dma_alloc(size, dma);
	}
	// With quarantine on, freed DMA memory stays mapped, poisoned, until
	// TearDown checks that the device never wrote it (what KASAN would see).
	static void dma_free(void *ctx, void *cpu, size_t size, uint64_t dma)
	{
		auto *t = static_cast<CMachine *>(ctx);
		if (!t->quarantine) {
			t->plat.dma_free(cpu, size, dma);
			return;
		}
		memset(cpu, poison, size);
		t->quarantined_.push_back({cpu, size, dma});
	}
	static void irq_entry(void *drv, uint32_t vec) { scx_drv_handle_irq(static_cast<scx_drv *>(drv), vec); }
	static int request_irq(void *ctx, unsigned vec, const char *name, scx_drv *d)
	{
		return static_cast<CMachine *>(ctx)->plat.request_irq(vec, name, irq_entry, d);
	}
	static void free_irq(void *ctx, unsigned vec) { static_cast<CMachine *>(ctx)->plat.free_irq(vec); }
	static void schedule_tasklet(void *ctx, unsigned eq)
	{
		auto *t = static_cast<CMachine *>(ctx);
		t->tasklets++;
		scx_drv_run_tasklet(t->drv_seen.load(), eq);
	}

	// cmd_timeout_ms 0: the driver's default.
	void start(unsigned cmd_timeout_ms = 0)
	{
		c_function_up(this, "ccq0", cmd_timeout_ms, &hca, &drv);
		drv_seen = drv;
	}

	static constexpr uint8_t poison = 0x6b;
	struct freed {
		void *cpu;
		size_t size;
		uint64_t dma;
	};
	bool quarantine = false;
	std::vector<freed> quarantined_;

	test_platform plat;
	async_log events;
	scx_hca *hca = nullptr;
	scx_drv *drv = nullptr;
	std::atomic<scx_drv *> drv_seen{nullptr};
	std::atomic<int> tasklets{0};
	long baseline_ = 0;
};
