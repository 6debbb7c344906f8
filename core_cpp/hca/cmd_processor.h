// SPDX-License-Identifier: GPL-2.0
// The firmware's command engine. The driver writes the queue address to the
// init segment and rings command doorbells; the engine runs in its own work
// context, never in the caller's: for each rung slot it validates the entry
// and its mailbox chains (the delivery layer), hands the command to the
// executor, writes the output and delivery status, gives the entry back by
// clearing the ownership bit and, when an EQ asked for CMD events, posts a
// command-completion EQE carrying the slot's bit.
#pragma once

#include "hca/cmd_ctx.h"
#include "hca/eq.h"
#include "hca/faults.h"
#include "hca/mailbox.h"
#include "lib/atomic.h"
#include "lib/bus.h"
#include "lib/sync.h"
#include "softcx/env.h"

namespace scx::hca {

// Who executes a delivered command (the device's dispatcher).
class cmd_executor {
public:
	virtual void execute(cmd_ctx &c) = 0;

protected:
	~cmd_executor() = default;
};

class cmd_processor {
public:
	static constexpr u32 log_cmdq_size = 5;    // 32 slots
	static constexpr u32 log_cmdq_stride = 6;  // 64-byte entries
	static constexpr u32 max_msg = 1u << 20;   // longest input or output
	static constexpr u32 buf_size = 8192;      // copied to contiguous buffers

	cmd_processor() = default;
	cmd_processor(const cmd_processor &) = delete;
	cmd_processor &operator=(const cmd_processor &) = delete;
	~cmd_processor();

	status init(bus::dma_space &dma, eq_engine &eqs, fault_hooks &faults, cmd_executor &exec,
		    u32 boot_delay_us);
	// Stop executing; waits for a running pass to finish.
	void stop();
	// The firmware died: doorbells are ignored from now on, commands posted
	// stay owned by the device forever (until stop()).
	void hang();

	// Init segment registers.
	u32 addr_h() const { return addr_h_.load(); }
	u32 addr_l_sz() const;
	bool initializing() const;
	void write_addr_h(u32 v) { addr_h_.store(v); }
	void write_addr_l(u32 v);
	void ring(u32 mask);
	// DISABLE_HCA (from the executor, in the work context): commands the
	// engine still holds (delayed) are dropped, never completed, so nothing
	// touches the queue or their mailboxes once the driver frees them.
	void drop_held() { drop_held_ = true; }

	u64 executed() const { return executed_.load(mo::relaxed); }

private:
	enum state : u32 { booting, idle, pending, running, broken, stopped, hung };

	static void work_fn(void *arg) { static_cast<cmd_processor *>(arg)->run(); }
	void run();
	// false: the slot is deferred until *due (ns).
	bool process(u32 slot, u64 *due);
	void kick(u32 delay_us);
	u8 deliver(const u8 *e, u32 inlen, u32 outlen);
	// true: hold the command for pages (cmd_ctx::wait_for_pages).
	bool execute(const u8 *e, u32 inlen, u32 outlen, const fault_hooks::action &f);
	void complete(u32 slot, u8 *entry, u8 *snap, u8 dstat, bool output);

	bus::dma_space *dma_ = nullptr;
	eq_engine *eqs_ = nullptr;
	fault_hooks *faults_ = nullptr;
	cmd_executor *exec_ = nullptr;
	spinlock work_lock_;  // work_ against stop()
	scx_work *work_ = nullptr;
	atomic<u32> state_{booting};
	atomic<u32> addr_h_{0};
	atomic<u32> addr_l_{0};
	atomic<u32> pending_{0};
	atomic<u64> executed_{0};
	// Only the work context touches these.
	u64 base_ = 0;
	u32 deferred_ = 0;
	bool drop_held_ = false;
	u64 due_[32] = {};
	// A command waiting for pages runs again every page_retry_us until
	// this deadline (0: not waiting), then fails as it did.
	u64 page_wait_until_[32] = {};
	static constexpr u32 page_retry_us = 200;
	static constexpr u64 page_wait_ns = 1000ull * 1000 * 1000;
	u8 *in_buf_ = nullptr;
	u8 *out_buf_ = nullptr;
	mailbox_chain in_chain_;
	mailbox_chain out_chain_;
};

} // namespace scx::hca
