// SPDX-License-Identifier: GPL-2.0
// One softcx function as its driver sees it (the role of mlx5_core's
// main.c): the bring-up sequence from "firmware initializing" to event
// queues and interrupts, its teardown in reverse, and the dispatch of every
// event the async and completion EQs deliver.
#pragma once

#include "driver/cmd_if.h"
#include "driver/commands.h"
#include "driver/cq.h"
#include "driver/eq.h"
#include "driver/dct.h"
#include "driver/health.h"
#include "driver/pages.h"

namespace scx::driver {

struct device_config {
	const char *name = "softcx0"; // log prefix and IRQ names
	cmd_config cmd{};
	u32 num_comp_eqs = 1;         // on vectors 1..N
	u32 async_eq_nent = 256;
	u32 comp_eq_nent = 1024;
	bool use_events = true;       // false: commands keep polling
	u32 page_reclaim_timeout_ms = 5000;

	// Hooks to the layer above; ctx is passed back.
	void *ctx = nullptr;
	// Run comp EQ `comp_index`'s completions soon (a tasklet); null: run
	// them from the interrupt handler itself.
	void (*schedule_tasklet)(void *ctx, u32 comp_index) = nullptr;
	// PORT_CHANGE (hardirq).
	void (*port_event)(void *ctx, u8 port, u8 sub_type) = nullptr;
	void (*qp_event)(void *ctx, u32 qpn, u8 event_type) = nullptr;
	void (*srq_event)(void *ctx, u32 srqn, u8 event_type) = nullptr;
	void (*dct_event)(void *ctx, u32 dctn, u8 event_type) = nullptr;
	// Any other async event (QP/SRQ/WQ errors...; hardirq). data: eqe::event_data.
	void (*async_event)(void *ctx, u8 type, u8 sub_type, const u8 *data) = nullptr;
	// An EQE DevX subscribers may wait for (hardirq): key as
	// devx::eqe_event_key gives it. Completions and CQ errors come here
	// only for CQs the driver does not know (DevX CQs).
	void (*user_event)(void *ctx, u64 key, const u8 *eqe) = nullptr;
};

class device {
public:
	static constexpr u32 max_comp_eqs = 32;
	static constexpr u32 tasklet_batch = 256;

	device() = default;
	device(const device &) = delete;
	device &operator=(const device &) = delete;
	~device() { teardown(); }

	status init(bus::mmio &bar, bus::platform &plat, const device_config &cfg);
	// Reverse of init; safe after a partial init and when called twice.
	void teardown();

	cmd_if &cmd() { return cmd_; }
	fw_pages &pages() { return pages_; }
	cq_table &cqs() { return cqs_; }
	const char *name() const { return cfg_.name; }
	bus::mmio &bar() const { return *bar_; } // UAR doorbells of kernel-owned queues
	u32 uar() const { return uar_; }
	u16 issi() const { return issi_; }
	u8 vport_state() const { return vport_state_; }
	const cmd::adapter_info &adapter() const { return adapter_; }

	// EQ i: 0 = async, 1..N = completion EQ i-1.
	u32 num_eqs() const { return ncomp_ + (async_.created() ? 1 : 0); }
	const eq *eq_at(u32 i) const;
	u32 num_comp_eqs() const { return ncomp_; }
	u32 comp_eqn(u32 comp_index) const { return comp_[comp_index].eqn(); }

	// A capability page read after INIT_HCA (type: prm::cap_type general,
	// atomic or roce; mode: prm::cap_mode); null if not read.
	const u8 *cap(u16 type, u16 mode) const;

	// One health poll (from the platform's timer). true exactly once: when
	// the firmware is first found dead; the command interface is then in
	// its error state, and the caller tells the users and recovers.
	bool health_poll();
	const health_monitor &health() const { return health_; }

	// The tasklet body of comp EQ `comp_index`.
	void run_completions(u32 comp_index);

	// CQ commands on a caller-built input (cq_context, pas); the CQ is
	// entered into the table so its events reach its callbacks.
	status create_cq(core_cq &cq, void *in, u32 inlen);
	// Out of the table, DESTROY_CQ, then waits for running handlers.
	status destroy_cq(core_cq &cq);
	status query_cq(core_cq &cq, void *out, u32 outlen);
	status modify_cq(core_cq &cq, void *in, u32 inlen);

	u64 bogus_events() const { return bogus_.load(mo::relaxed); }
	// Destroys waiting for DCT_DRAINED (dct.h).
	driver::dct_drains &dct_drains() { return drains_; }

private:
	// The EQs' owner callbacks (hardirq).
	static void on_eqe(void *ctx, eq &q, const u8 *eqe);
	static void on_batch_done(void *ctx, eq &q);
	void eq_event(eq &q, const u8 *eqe);
	void eq_batch_done(eq &q);
	bool user_event(const u8 *eqe);

	status function_setup();
	status set_caps();
	status read_caps();
	status create_eqs();
	u8 *cap_buf(u16 type, u16 mode) const;
	void schedule(u32 comp_index);

	device_config cfg_{};
	bus::mmio *bar_ = nullptr;
	bus::platform *plat_ = nullptr;
	cmd_if cmd_;
	health_monitor health_;
	driver::dct_drains drains_;
	fw_pages pages_;
	cq_table cqs_;
	eq async_;
	eq comp_[max_comp_eqs];
	cq_tasklet tasklets_[max_comp_eqs];
	bool comp_pending_[max_comp_eqs] = {}; // per EQ, touched by its handler only
	char irq_names_[1 + max_comp_eqs][32] = {};
	u32 ncomp_ = 0;
	u8 *caps_ = nullptr; // 3 types x 2 modes x hca_cap_union

	bool cmd_up_ = false, enabled_ = false, pages_up_ = false, inited_ = false, uar_ok_ = false;
	u32 uar_ = 0;
	u16 issi_ = 0;
	u8 vport_state_ = 0;
	cmd::adapter_info adapter_{};
	atomic<u64> bogus_{0};
};

} // namespace scx::driver
