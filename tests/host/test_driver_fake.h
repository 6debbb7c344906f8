// SPDX-License-Identifier: GPL-2.0
// A minimal firmware for unit tests of the driver, independent of
// core_cpp/hca: the init segment, the command doorbell, mailbox chains
// (checked: block numbers, tokens, signatures), NOP, an echo command, and
// fault injection (held commands, injected command or delivery status).
// Completion clears the ownership bit and calls on_complete, which a test
// may wire to cmd_if::complete to play the command EQE.
//
// With `full` set it also answers the bring-up commands with plausible
// values, keeps firmware pages, and runs event queues: CREATE/DESTROY_EQ,
// EQEs written by owner bit, the UAR arm/ci doorbells, and a CMD EQE for
// every completed command once an EQ asks for them.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/bus.h"

class fake_fw final : public scx::bus::mmio {
public:
	// Not an mlx5 opcode: output data = input data.
	static constexpr uint16_t op_echo = 0x0f00;

	explicit fake_fw(scx::bus::irq_sink *irq = nullptr);
	~fake_fw();

	uint32_t read32(uint32_t off) override;
	void write32(uint32_t off, uint32_t v) override;
	void write64(uint32_t, uint64_t) override {}

	// Geometry and identity the init segment reports.
	uint32_t cmdif_rev = 5;
	uint32_t log_sz = 5, log_stride = 6;
	std::atomic<int> initializing_reads{3};
	// Execute on a worker thread after this delay instead of in the
	// doorbell write.
	std::atomic<unsigned> delay_us{0};
	bool sign_output = false;
	bool full = false;
	uint32_t boot_pages = 4, init_pages = 8;

	// Faults.
	std::atomic<int> hold_opcode{-1};        // such commands wait for release_held()
	std::atomic<int> status_opcode{-1};      // ... answer with this status/syndrome
	std::atomic<uint8_t> status{0};
	std::atomic<uint32_t> syndrome{0};
	std::atomic<int> delivery_opcode{-1};    // ... or with this delivery status
	std::atomic<uint8_t> delivery{0};

	std::function<void(uint32_t vector)> on_complete;

	// Event queues (full mode). post_eqe: false if no EQ takes the type
	// (or the one named by eqn) or it would overflow.
	bool post_eqe(uint8_t type, uint8_t sub_type, const uint8_t data[28], int eqn = -1);
	bool post_comp(uint32_t eqn, uint32_t cqn);
	bool post_page_request(uint16_t func_id, int32_t npages);
	unsigned eq_count();
	uint64_t overflows() const { return overflows_.load(); }
	unsigned pages_held();
	std::vector<uint32_t> eqns();

	void release_held();
	unsigned held();
	uint64_t executed() const { return executed_.load(); }
	unsigned max_in_flight() const { return max_in_flight_.load(); }
	unsigned max_in_blocks() const { return max_in_blocks_.load(); }
	unsigned max_out_blocks() const { return max_out_blocks_.load(); }
	uint8_t last_token() const { return last_token_.load(); }
	uint64_t cmdq_addr() const { return cmdq_; }

private:
	struct fake_eq {
		uint32_t eqn, log, vector;
		uint64_t mask;
		std::vector<uint64_t> pages;
		uint32_t pi = 0, ci = 0;
		bool armed = false;
	};

	void ring(uint32_t bits);
	void execute(uint32_t slot);
	void worker();
	void run_full(uint16_t op, std::vector<uint8_t> &in, std::vector<uint8_t> &out);
	void eq_doorbell(uint32_t off, uint32_t v);

	scx::bus::irq_sink *irq_;
	std::mutex eq_mu_;
	std::vector<fake_eq> eqs_;
	uint32_t next_eqn_ = 0, next_cqn_ = 1;
	std::vector<uint64_t> pages_;
	std::atomic<uint64_t> overflows_{0};

	std::mutex mu_;
	std::condition_variable cv_;
	std::deque<uint32_t> queue_;
	std::vector<uint32_t> held_;
	bool stop_ = false;
	std::thread thread_;
	uint32_t addr_h_ = 0;
	uint64_t cmdq_ = 0;
	std::atomic<uint64_t> executed_{0};
	std::atomic<unsigned> in_flight_{0}, max_in_flight_{0};
	std::atomic<unsigned> max_in_blocks_{0}, max_out_blocks_{0};
	std::atomic<uint8_t> last_token_{0};
};
