// SPDX-License-Identifier: GPL-2.0
// One softcx HCA: the hardware and firmware behind a ConnectX-style PCI
// function. Its only faces are the ones a real device has: BAR0 (register
// reads and writes), memory it reaches by bus address through dma_space,
// and interrupt vectors it raises on irq_sink. A driver talks to it through
// bar0() exactly as to hardware; the data path (later) posts completions
// through post_cqe(); tests inject faults through faults().
#pragma once

#include "hca/caps.h"
#include "hca/cmd_processor.h"
#include "hca/config.h"
#include "hca/cq.h"
#include "hca/dct.h"
#include "hca/dp.h"
#include "hca/eq.h"
#include "hca/faults.h"
#include "hca/fw_pages.h"
#include "hca/mkey.h"
#include "hca/objects.h"
#include "hca/qp.h"
#include "hca/regs.h"
#include "hca/srq.h"
#include "hca/uar_window.h"
#include "hca/uctx.h"
#include "hca/umem.h"
#include "hca/vport.h"
#include "lib/bus.h"

namespace scx::hca {

enum class hca_state : u32 { disabled, enabled, initialized };

class device {
public:
	device(bus::dma_space &dma, bus::irq_sink &irq, const device_config &cfg);
	~device();
	device(const device &) = delete;
	device &operator=(const device &) = delete;

	// Allocate tables and start the firmware (boot: "initializing" set).
	status init();

	// Stop the firmware: no command runs afterwards (the driver may then
	// free the queue, mailboxes and pages). Also done by the destructor.
	void stop() { cmd_.stop(); }
	// The firmware dies (fault injection): the health counter stops, no
	// command or doorbell is served any more. Only destruction follows.
	void die()
	{
		regs_.freeze_health();
		cmd_.hang();
		dp_.halt();
	}

	bus::mmio &bar0();
	fault_hooks &faults() { return faults_; }

	// Link down/up: a PORT_CHANGE EQE if an EQ subscribed to it.
	bool set_link(bool up) { return vport_.set_link(up); }
	void set_mtu(u16 mtu) { vport_.set_mtu(mtu); }

	// The data path's completion entry point (see cq_engine::post_cqe).
	cqe_result post_cqe(u32 cqn, const u8 *cqe64, bool solicited = false)
	{
		return cqs_.post_cqe(cqn, cqe64, solicited);
	}
	mkey_table &mkeys() { return mkeys_; }
	// The data path: one poll() round runs doorbells and the work they
	// reveal (the platform calls it from its own thread).
	data_path &dp() { return dp_; }
	// The memory behind a user-mappable UAR page (see uar_window).
	void *uar_page(u32 uar) { return uar_win_.page(uar); }
	// The data path's view of QPs and SRQs (lookup/update, WQ addresses).
	qp_table &qps() { return qps_; }
	srq_table &srqs() { return srqs_; }
	dct_table &dcts() { return dcts_; }

	// Introspection for tests and debugfs.
	hca_state state() const { return hca_state(state_.load()); }
	u32 fw_pages_held() const { return pages_.held(); }
	u64 commands_executed() const { return cmd_.executed(); }
	u64 eqes_written() const { return eqs_.eqes_written(); }
	u64 interrupts_raised() const { return eqs_.interrupts(); }

private:
	// The command processor's way in (device itself stays non-polymorphic,
	// so code built with RTTI can use it next to a core built without).
	class dispatcher final : public cmd_executor {
	public:
		explicit dispatcher(device &d) : d_(d) {}
		void execute(cmd_ctx &c) override { d_.execute(c); }

	private:
		device &d_;
	};

	void execute(cmd_ctx &c);
	bool header_ok(cmd_ctx &c);
	bool function_cmd(cmd_ctx &c);
	bool queue_cmd(cmd_ctx &c);
	bool resource_cmd(cmd_ctx &c);
	bool need(cmd_ctx &c, hca_state s);
	void after_command(cmd_ctx &c);
	u32 pages_target() const;

	// cmds_hca.cpp: lifecycle, adapter, NOP, pages
	void enable_hca(cmd_ctx &c);
	void disable_hca(cmd_ctx &c);
	void query_issi(cmd_ctx &c);
	void set_issi(cmd_ctx &c);
	void init_hca(cmd_ctx &c);
	void teardown_hca(cmd_ctx &c);
	void query_adapter(cmd_ctx &c);
	void nop(cmd_ctx &c);
	void query_pages(cmd_ctx &c);
	void manage_pages(cmd_ctx &c);
	// cmds_res.cpp: UAR, PD, Q counters, general objects
	void alloc_uar(cmd_ctx &c);
	void dealloc_uar(cmd_ctx &c);
	void alloc_pd(cmd_ctx &c);
	void alloc_td(cmd_ctx &c);
	void dealloc_td(cmd_ctx &c);
	bool uid_in_use(u16 uid);
	void dealloc_pd(cmd_ctx &c);
	void alloc_q_counter(cmd_ctx &c);
	void dealloc_q_counter(cmd_ctx &c);
	void query_q_counter(cmd_ctx &c);
	// CREATE/MODIFY/QUERY/DESTROY_GENERAL_OBJECT, by obj_type.
	void general_obj(cmd_ctx &c);

	bus::dma_space &dma_;
	bus::irq_sink &irq_;
	device_config cfg_;
	atomic<u32> state_{u32(hca_state::disabled)};
	u16 issi_ = 0;
	u32 regular_pages_ = 0;      // regular pages wanted after INIT_HCA
	static constexpr u32 low_water_pages = 16;
	static constexpr u32 grow_pages = 64;
	bool page_request_due_ = false;
	u64 asked_at_ = 0;           // when pages were last asked for
	// A command short of pages waits for them this long after they were
	// asked for (cmd_processor bounds each hold too).
	static constexpr u64 page_answer_ns = 500ull * 1000 * 1000;

	fw_pages pages_;
	id_pool uars_;
	id_pool pds_;
	id_pool tds_;               // transport domains
	id_pool q_counters_;
	uctx_table uctxs_;
	umem_table umems_;
	q_counter_sets counters_;   // what each set counted
	caps caps_;
	fault_hooks faults_;
	eq_engine eqs_;
	cq_engine cqs_;
	mkey_table mkeys_;
	srq_table srqs_;
	qp_table qps_;
	dct_table dcts_;
	vport vport_;
	uar_window uar_win_;
	data_path dp_;
	dispatcher dispatch_{*this};
	cmd_processor cmd_;
	bar0_regs regs_;
};

} // namespace scx::hca
