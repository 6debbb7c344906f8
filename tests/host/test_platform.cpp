// SPDX-License-Identifier: GPL-2.0
#include "test_platform.h"

#include "softcx/env.h"

void *test_platform::dma_alloc(scx::usize size, uint64_t *bus_addr)
{
	void *p = scx_env_dma_alloc(size, bus_addr);
	if (p)
		dma_live_++;
	return p;
}

void test_platform::dma_free(void *cpu, scx::usize size, uint64_t bus_addr)
{
	if (cpu)
		dma_live_--;
	scx_env_dma_free(cpu, size, bus_addr);
}

int test_platform::request_irq(uint32_t vector, const char *name, irq_handler handler, void *ctx)
{
	if (vector >= max_vectors || !handler)
		return -22;
	vec &v = vecs_[vector];
	std::lock_guard<std::mutex> g(v.mu);
	if (v.handler)
		return -16;
	v.handler = handler;
	v.ctx = ctx;
	v.name = name ? name : "";
	return 0;
}

void test_platform::free_irq(uint32_t vector)
{
	if (vector >= max_vectors)
		return;
	vec &v = vecs_[vector];
	std::unique_lock<std::mutex> g(v.mu);
	v.handler = nullptr;
	v.pending = false;
	// As the kernel's free_irq: a handler running elsewhere finishes first.
	v.cv.wait(g, [&v] { return !v.running; });
}

void *test_platform::map(uint64_t bus_addr, scx::usize len) { return scx_env_dma_to_cpu(nullptr, bus_addr, len); }

void test_platform::raise(uint32_t vector)
{
	if (vector >= max_vectors)
		return;
	vec &v = vecs_[vector];
	irq_handler h;
	void *ctx;
	{
		std::lock_guard<std::mutex> g(v.mu);
		v.raised++;
		if (!v.handler) {
			v.lost++;
			return;
		}
		if (v.running) {
			v.pending = true;
			return;
		}
		v.running = true;
		h = v.handler;
		ctx = v.ctx;
	}
	for (;;) {
		h(ctx, vector);
		std::lock_guard<std::mutex> g(v.mu);
		v.handled++;
		if (!v.pending || !v.handler) {
			v.running = false;
			v.cv.notify_all();
			return;
		}
		v.pending = false;
		h = v.handler;
		ctx = v.ctx;
	}
}

uint64_t test_platform::raised(uint32_t vector)
{
	std::lock_guard<std::mutex> g(vecs_[vector].mu);
	return vecs_[vector].raised;
}

uint64_t test_platform::handled(uint32_t vector)
{
	std::lock_guard<std::mutex> g(vecs_[vector].mu);
	return vecs_[vector].handled;
}

uint64_t test_platform::lost(uint32_t vector)
{
	std::lock_guard<std::mutex> g(vecs_[vector].mu);
	return vecs_[vector].lost;
}

bool test_platform::registered(uint32_t vector)
{
	std::lock_guard<std::mutex> g(vecs_[vector].mu);
	return vecs_[vector].handler != nullptr;
}

std::string test_platform::irq_name(uint32_t vector)
{
	std::lock_guard<std::mutex> g(vecs_[vector].mu);
	return vecs_[vector].name;
}
