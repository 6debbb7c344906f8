// SPDX-License-Identifier: GPL-2.0
// The machine a driver test runs on: device-visible memory from the host
// env, an interrupt controller that runs the registered handler on the
// thread that raises the vector (never twice at once for one vector, a
// raise during the handler runs it again afterwards, as a latched MSI), and
// the device's view of memory through scx_env_dma_to_cpu.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "lib/bus.h"

class test_platform final : public scx::bus::platform, public scx::bus::dma_space, public scx::bus::irq_sink {
public:
	static constexpr unsigned max_vectors = 64;

	test_platform() = default;
	test_platform(const test_platform &) = delete;
	test_platform &operator=(const test_platform &) = delete;
	~test_platform() = default;

	// bus::platform (the driver's side).
	void *dma_alloc(scx::usize size, uint64_t *bus_addr) override;
	void dma_free(void *cpu, scx::usize size, uint64_t bus_addr) override;
	int request_irq(uint32_t vector, const char *name, irq_handler handler, void *ctx) override;
	void free_irq(uint32_t vector) override;

	// bus::dma_space and bus::irq_sink (the device's side).
	void *map(uint64_t bus_addr, scx::usize len) override;
	void raise(uint32_t vector) override;

	// For tests.
	uint64_t raised(uint32_t vector);
	uint64_t handled(uint32_t vector);
	uint64_t lost(uint32_t vector); // raised with no handler registered
	bool registered(uint32_t vector);
	std::string irq_name(uint32_t vector);
	long dma_live() const { return dma_live_.load(); }

private:
	struct vec {
		std::mutex mu;
		std::condition_variable cv;
		irq_handler handler = nullptr;
		void *ctx = nullptr;
		std::string name;
		bool running = false;
		bool pending = false;
		uint64_t raised = 0, handled = 0, lost = 0;
	};
	vec vecs_[max_vectors];
	std::atomic<long> dma_live_{0};
};
