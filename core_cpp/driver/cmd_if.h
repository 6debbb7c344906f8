// SPDX-License-Identifier: GPL-2.0
// The command interface, driver side (the role of mlx5_core's cmd.c): the
// command queue page whose address goes into the init segment, up to 32
// commands in flight in its slots, tokens, optional signatures, mailbox
// chains for long inputs and outputs, the command doorbell, and completion
// either by polling the ownership bit or by the command-completion event the
// async EQ's handler passes to complete().
//
// A command that times out keeps its slot and mailboxes until the device
// hands the slot back (ownership bit clear): memory the device may still
// write is never reused early.
#pragma once

#include "driver/mailbox_pool.h"
#include "lib/atomic.h"
#include "lib/bus.h"
#include "lib/sync.h"

namespace scx::driver {

struct cmd_config {
	u32 timeout_ms = 60000;         // per command (module parameter in the kernel)
	u32 fw_init_timeout_ms = 10000; // waiting for the initializing bit
	bool checksum = false;          // sign entries and mailboxes (cmdif_checksum)
	// Keep the last slot for MANAGE_PAGES, as mlx5_core does, so page
	// requests the firmware needs to finish other commands always get one.
	bool reserve_page_slot = true;
};

// Statistics of one opcode (debugfs: one line each).
struct cmd_op_stat {
	u16 opcode;    // 0xffff: all opcodes without a name
	u64 count;     // finished (including failed and timed out)
	u64 errors;    // delivery, status or timeout errors
	u64 timeouts;
	u64 lat_min_ns; // of commands the device completed
	u64 lat_avg_ns;
	u64 lat_max_ns;
};

class cmd_if {
public:
	enum class mode : u32 { polling, events };
	// exec() flags.
	static constexpr u32 f_polling = 1; // poll even in events mode
	static constexpr u32 f_quiet = 2;   // status != OK -> remoteio, not logged
	// BAD_RES_STATE (the object is in use) -> busy, not logged: the caller
	// expects it; any other failure is logged as usual.
	static constexpr u32 f_quiet_busy = 4;

	cmd_if() = default;
	cmd_if(const cmd_if &) = delete;
	cmd_if &operator=(const cmd_if &) = delete;
	~cmd_if() { fini(); }

	// Brings the interface up in polling mode: waits for the firmware,
	// checks cmdif_rev, hands the queue page to the device.
	status init(bus::mmio &bar, bus::platform &plat, const cmd_config &cfg, const char *name);
	// After the device stopped using the queue (DISABLE_HCA or later).
	void fini();

	// Runs one command and waits for it. `in` starts with mbox_in, `out` with
	// mbox_out (outlen >= 16). Ok only if delivered and status OK; every
	// failure is logged once, naming the opcode.
	status exec(const void *in, u32 inlen, void *out, u32 outlen, u32 flags = 0);

	// The firmware is gone (the health monitor said so). Commands in
	// flight end now; this and every later one gets the answer mlx5_core
	// gives in its internal-error state: success for commands that only
	// release something (so teardown runs to its end), an I/O error for
	// the rest. Their slots stay with the dead device.
	void enter_error_state() { internal_error_.store(1, mo::release); }
	bool in_error() const { return internal_error_.load(mo::acquire) != 0; }
	// Commands answered so by the driver itself.
	u64 answered_in_error() const { return error_answers_.load(mo::relaxed); }

	void use_events() { mode_.store(u32(mode::events)); }
	void use_polling() { mode_.store(u32(mode::polling)); }
	mode current_mode() const { return mode(mode_.load()); }

	// The command-completion EQE: `vector` has a bit per finished slot.
	// Hardirq context.
	void complete(u32 vector);

	u16 fw_rev_major() const { return fw_major_; }
	u16 fw_rev_minor() const { return fw_minor_; }
	u16 fw_rev_subminor() const { return fw_sub_; }
	u32 slots() const { return nslots_; }
	// Slots held by timed-out commands the device has not returned yet.
	u32 abandoned() const { return abandoned_.load(); }
	// Event-mode commands found complete by their ownership bit because no
	// event came (in time).
	u64 recovered() const { return recovered_.load(); }
	// Longest mailbox chains used so far (debugfs; tests).
	u32 max_in_blocks() const { return max_in_blocks_.load(mo::relaxed); }
	u32 max_out_blocks() const { return max_out_blocks_.load(mo::relaxed); }
	void reset_max_blocks()
	{
		max_in_blocks_.store(0);
		max_out_blocks_.store(0);
	}
	const char *name() const { return name_; }

	// Row `index` of the per-opcode statistics; false past the last row.
	bool op_stat(u32 index, cmd_op_stat *out) const;

private:
	// A slot's state word: the phase in the low bits and a generation
	// above them, bumped for every command, so a stale completion bit can
	// never claim the next command that uses the slot.
	enum : u32 { st_idle, st_in_flight, st_claimed, st_abandoned, st_mask = 3, gen_one = 4 };
	static constexpr u32 event_nap_ms = 100;

	struct slot {
		completion done;
		atomic<u32> state{st_idle};
		mailbox *in = nullptr;
		mailbox *out = nullptr;
		u16 opcode = 0;
		u64 t_start = 0;
	};

	// What the cmd_done tracepoint reports: the command's status and
	// syndrome (mbox_out), or trace_no_output when there is no output to
	// read, with the delivery status as syndrome (0 for a timeout).
	static constexpr u8 trace_no_output = 0xfe; // mlx5's MLX5_DRIVER_STATUS_ABORTED
	struct done_info {
		u8 status = trace_no_output;
		u32 syndrome = 0;
	};

	struct op_counters {
		atomic<u64> count, errors, timeouts, completed, sum_ns, min_ns, max_ns;
	};

	u8 *entry(u32 idx) const { return cmdq_ + (idx << log_stride_); }
	bool owned_by_hw(u32 idx) const;
	status wait_fw_ready(u32 timeout_ms);
	u8 next_token();
	result<u32> alloc_slot(bool page_cmd);
	void free_slot(u32 idx);
	void reclaim_returned();
	bool try_reclaim(u32 idx);
	void fill_entry(u32 idx, const void *in, u32 inlen, u32 outlen, u8 token);
	status wait_done(u32 idx, u32 gen, bool polling);
	status finish(u32 idx, void *out, u32 outlen, u32 flags, const void *in, done_info *di);
	void account(u16 opcode, status s, bool timed_out, u64 ns);
	status error_answer(u16 opcode, void *out, u32 outlen);

	bus::mmio *bar_ = nullptr;
	bus::platform *plat_ = nullptr;
	cmd_config cfg_{};
	const char *name_ = "softcx";
	bool up_ = false;

	u8 *cmdq_ = nullptr;
	u64 cmdq_dma_ = 0;
	u32 log_stride_ = 0;
	u32 nslots_ = 0;
	u32 regular_mask_ = 0;
	u32 page_mask_ = 0;
	u16 fw_major_ = 0, fw_minor_ = 0, fw_sub_ = 0;

	mailbox_pool pool_;
	spinlock lock_;      // free_mask_, waiters_
	u32 free_mask_ = 0;
	u32 waiters_ = 0;
	completion slot_freed_; // wakes callers waiting for a slot
	atomic<u32> token_{0};
	atomic<u32> mode_{u32(mode::polling)};
	atomic<u32> abandoned_{0};
	atomic<u64> recovered_{0};
	atomic<u32> internal_error_{0};
	atomic<u64> error_answers_{0};
	atomic<u32> max_in_blocks_{0}, max_out_blocks_{0};
	slot slots_[32];
	op_counters *stats_ = nullptr; // [stat_opcodes]
};

} // namespace scx::driver
