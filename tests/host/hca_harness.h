// SPDX-License-Identifier: GPL-2.0
// Test-side stand-ins for what surrounds an hca: device-visible memory, an
// interrupt controller that counts vectors, and a tiny command poster that
// drives the command queue exactly as a driver would (entries, mailbox
// chains, tokens, signatures, doorbell, polling the ownership bit) while
// letting a test corrupt any of it. Not a driver: no retries, no events.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "hca/device.h"

namespace hca_test {

using scx::u16;
using scx::u32;
using scx::u64;
using scx::u8;

struct dma_mem {
	u8 *cpu = nullptr;
	u64 bus = 0;
	size_t len = 0;
};

// Device memory the test owns; freed after the device is gone.
class dma_arena {
public:
	~dma_arena();
	dma_mem alloc(size_t len);
	void free(dma_mem &m);

private:
	std::vector<dma_mem> live_;
};

class env_dma final : public scx::bus::dma_space {
public:
	void *map(u64 bus_addr, scx::usize len) override;
};

class counting_irq final : public scx::bus::irq_sink {
public:
	void raise(u32 vector) override;
	u32 count(u32 vector) const { return counts_[vector % 64].load(); }
	u32 total() const;
	std::function<void(u32)> on_raise; // set before the device runs

private:
	std::atomic<u32> counts_[64] = {};
};

// BAR0 accesses. The hca is built without RTTI, so UBSan's vptr check in
// these (RTTI) test objects cannot vouch for its vtable: skip it here.
u32 bar_read32(scx::hca::device &dev, u32 off);
void bar_write32(scx::hca::device &dev, u32 off, u32 v);
void bar_write64(scx::hca::device &dev, u32 off, u64 v);

// A command as bytes: header with opcode and op_mod, zero-filled to size.
std::vector<u8> cmd_in(u16 opcode, u32 size, u16 op_mod = 0);

struct reply {
	bool completed = false; // ownership came back before the timeout
	u8 delivery = 0xff;
	u8 status = 0xff;
	u32 syndrome = 0;
	std::vector<u8> out;
	bool entry_sig_ok = true;  // entry signature xor == 0xff
	bool block_sigs_ok = true; // every output block's signatures verify
};

struct post_opts {
	u32 slot = 0;
	u8 token = 0x5a;
	bool sign = false;           // compute entry and block signatures
	int in_blocks = -1;          // override the number of input blocks built
	int out_blocks = -1;
	// Last chance to corrupt the entry or any block before the doorbell.
	std::function<void(u8 *entry, std::vector<u8 *> &in, std::vector<u8 *> &out)> tamper;
};

class cmd_poster {
public:
	explicit cmd_poster(scx::hca::device &dev) : dev_(dev) {}
	~cmd_poster();

	// Wait for boot, give the queue address, wait for the device again.
	bool start(unsigned timeout_ms = 2000);
	u32 read_reg(u32 off) { return bar_read32(dev_, off); }

	struct pending {
		u32 slot;
		u32 outlen;
		bool sign;
		dma_mem in_mem, out_mem;
		std::vector<u8 *> out_blocks;
	};
	pending post(const std::vector<u8> &in, u32 outlen, const post_opts &o = {});
	reply wait(pending &p, unsigned timeout_ms = 5000);
	bool owned_by_hw(u32 slot);
	reply exec(const std::vector<u8> &in, u32 outlen, const post_opts &o = {})
	{
		pending p = post(in, outlen, o);
		return wait(p);
	}
	u8 *entry(u32 slot) { return q_.cpu + slot * 64; }
	dma_arena &arena() { return arena_; }

private:
	scx::hca::device &dev_;
	dma_arena arena_;
	dma_mem q_{};
};

// ENABLE_HCA .. INIT_HCA with the pages the device asks for.
bool bring_up(cmd_poster &p, std::vector<dma_mem> *pages);
// Give n pages with MANAGE_PAGES; false on a non-OK answer.
bool give_pages(cmd_poster &p, u32 n, std::vector<dma_mem> *pages);

// Everything a test needs: memory, interrupts, the device, a poster.
struct hca_rig {
	explicit hca_rig(const scx::hca::device_config &cfg = {});
	~hca_rig();
	env_dma dma;
	counting_irq irq;
	scx::hca::device dev;
	cmd_poster poster;
	std::vector<dma_mem> pages;
	bool ok = false; // device init and queue setup succeeded
	bool up();       // bring_up() into `pages`
};

template <typename F> bool eventually(F &&pred, unsigned timeout_ms = 2000);

// An EQ as a test drives it: ring memory, consumer index, doorbells.
struct test_eq {
	hca_rig *rig = nullptr;
	u32 eqn = 0;
	u32 uar = 0;
	u32 log_size = 0;
	u32 ci = 0;
	dma_mem ring{};
	// The next EQE if software owns it (copied into e), else false.
	bool next(u8 *e);
	// Whether the next EQE is software's, without consuming it.
	bool pending();
	void doorbell(bool arm);
};

u32 alloc_uar(cmd_poster &p);
// CREATE_EQ of 2^log_size entries on vector intr for the given event types.
u8 create_eq(hca_rig &rig, u32 uar, u32 log_size, u32 intr, std::initializer_list<u8> events, test_eq *eq,
	     u32 *syndrome = nullptr);
// NOP through slot `slot`; true if it came back OK.
bool nop(cmd_poster &p, u32 slot = 0);

// Pass a command through and return its PRM status (delivery must be OK).
u8 status_of(cmd_poster &p, const std::vector<u8> &in, u32 outlen, std::vector<u8> *out = nullptr,
	     u32 *syndrome = nullptr);

} // namespace hca_test

#include <chrono>
#include <thread>

template <typename F> bool hca_test::eventually(F &&pred, unsigned timeout_ms)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
	while (!pred()) {
		if (std::chrono::steady_clock::now() > end)
			return false;
		std::this_thread::sleep_for(std::chrono::microseconds(100));
	}
	return true;
}
