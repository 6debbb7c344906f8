// SPDX-License-Identifier: GPL-2.0
#include "hca/device.h"

#include "hca/syndrome.h"
#include "prm/cq.h"
#include "prm/eq.h"

namespace scx::hca {

namespace op = prm::op;
namespace st = prm::cmd_stat;

device::device(bus::dma_space &dma, bus::irq_sink &irq, const device_config &cfg)
	: dma_(dma), irq_(irq), cfg_(cfg)
{
}

device::~device()
{
	// No command runs after this; what the hca held is driver memory.
	cmd_.stop();
}

status device::init()
{
	using L = hca_limits;
	if (!cfg_.num_vectors)
		return errc::inval;
	regular_pages_ = cfg_.regular_pages;
	SCX_TRY(pages_.init(dma_, cfg_.max_pages));
	SCX_TRY(uars_.init(L::first_uar, L::num_uars));
	SCX_TRY(pds_.init(1, (1u << L::log_max_pd) - 1));
	SCX_TRY(tds_.init(1, (1u << L::log_max_transport_domain) - 1));
	SCX_TRY(q_counters_.init(1, L::max_q_counters - 1));
	SCX_TRY(uctxs_.init(1u << L::log_max_uctx));
	SCX_TRY(umems_.init(dma_, pages_, (1u << L::log_max_umem) - 1));
	caps_.init(cfg_);
	SCX_TRY(faults_.init());
	SCX_TRY(eqs_.init(dma_, irq_, pages_, uars_,
			  eq_limits{1u << L::log_max_eq, L::log_max_eq_sz, cfg_.num_vectors}));
	SCX_TRY(cqs_.init(dma_, pages_, uars_, umems_, eqs_, 1u << L::log_max_cq, L::log_max_cq_sz));
	SCX_TRY(mkeys_.init(pages_, pds_, 1u << L::log_max_mkey));
	SCX_TRY(srqs_.init(dma_, pages_, pds_, umems_, 1u << L::log_max_srq, L::log_max_srq_sz, L::max_wqe_sz_rq));
	SCX_TRY(qps_.init(qp_deps{&dma_, &pages_, &pds_, &uars_, &q_counters_, &cqs_, &srqs_, &umems_, &caps_, &vport_},
			  L::log_max_qp));
	SCX_TRY(dcts_.init(dct_deps{&pages_, &pds_, &q_counters_, &cqs_, &srqs_, &qps_, &eqs_, &caps_, &vport_},
			   qp_table::first_qpn, (1u << L::log_max_qp) - qp_table::first_qpn));
	vport_.init(cfg_, eqs_);
	SCX_TRY(uar_win_.init(L::first_uar, L::num_uars));
	SCX_TRY(dp_.init(dp_deps{&dma_, &pages_, &qps_, &cqs_, &srqs_, &mkeys_, &uar_win_, &eqs_, &vport_, &counters_, &dcts_}, 1u << L::log_max_qp,
			 1u << L::log_max_cq));
	regs_.init(cfg_, cmd_, eqs_, cqs_, dp_, L::first_uar, L::num_uars);
	return cmd_.init(dma_, eqs_, faults_, dispatch_, cfg_.boot_delay_us);
}

bus::mmio &device::bar0() { return regs_; }

bool device::need(cmd_ctx &c, hca_state s)
{
	hca_state now = state();
	if (u32(now) >= u32(s))
		return true;
	return c.fail(st::bad_sys_state_err,
		      now == hca_state::disabled ? synd::not_enabled : synd::not_initialized);
}

// What every command header must satisfy: no reserved bits; a uid that
// names a live user context, on a command a user context may send
// (uctx.h).
bool device::header_ok(cmd_ctx &c)
{
	if (prm::get(c.in, prm::mbox_in::reserved_at_20))
		return c.fail(st::bad_param_err, synd::hdr_reserved);
	c.uid = u16(prm::get(c.in, prm::mbox_in::uid));
	if (c.uid && uctx_table::kernel_only(c.opcode))
		return c.fail(st::bad_param_err, synd::uid_kernel_only);
	if (!uctxs_.valid_uid(c.uid))
		return c.fail(st::bad_param_err, synd::uctx_invalid);
	return true;
}

void device::execute(cmd_ctx &c)
{
	if (!header_ok(c))
		return;
	qps_.collect();
	if (c.opcode == op::create_qp)
		qps_.prepare_create();
	else if (c.opcode == op::create_dct)
		qps_.prepare_contexts(dct_contexts);
	// No object the data path uses changes under a WQE in flight.
	lock_guard dp(dp_.lock());
	dp_.command_ran();
	c.dp_hold = &dp;
	if (!function_cmd(c) && !queue_cmd(c) && !resource_cmd(c))
		c.fail(st::bad_op_err, synd::bad_opcode);
	// What the command changed is seen afresh, also by a pass that ran
	// while it relaxed the lock.
	dp_.command_ran();
	c.dp_hold = nullptr;
	after_command(c);
}

// The function's life cycle and its pages; false: not one of these.
bool device::function_cmd(cmd_ctx &c)
{
	constexpr hca_state E = hca_state::enabled, I = hca_state::initialized;
	switch (c.opcode) {
	case op::enable_hca: enable_hca(c); break;
	case op::disable_hca: if (need(c, E)) disable_hca(c); break;
	case op::query_issi: if (need(c, E)) query_issi(c); break;
	case op::set_issi: if (need(c, E)) set_issi(c); break;
	case op::query_hca_cap: if (need(c, E)) caps_.query(c); break;
	case op::set_hca_cap:
		if (need(c, E)) {
			if (state() == I)
				c.fail(st::bad_sys_state_err, synd::set_cap_after_init);
			else
				caps_.set(c);
		}
		break;
	case op::init_hca: if (need(c, E)) init_hca(c); break;
	case op::teardown_hca: if (need(c, I)) teardown_hca(c); break;
	case op::query_adapter: if (need(c, E)) query_adapter(c); break;
	case op::query_pages: if (need(c, E)) query_pages(c); break;
	case op::manage_pages: if (need(c, E)) manage_pages(c); break;
	case op::nop: if (need(c, E)) nop(c); break;
	default: return false;
	}
	return true;
}

// EQs, CQs, QPs, SRQs and DCTs; false: not one of these.
bool device::queue_cmd(cmd_ctx &c)
{
	constexpr hca_state I = hca_state::initialized;
	switch (c.opcode) {
	case op::create_eq: if (need(c, I)) eqs_.create(c); break;
	case op::destroy_eq: if (need(c, I)) eqs_.destroy(c); break;
	case op::query_eq: if (need(c, I)) eqs_.query(c); break;
	case op::create_cq: if (need(c, I)) cqs_.create(c); break;
	case op::destroy_cq: if (need(c, I)) cqs_.destroy(c); break;
	case op::query_cq: if (need(c, I)) cqs_.query(c); break;
	case op::modify_cq:
		if (need(c, I)) {
			// A resize counts the CQEs still to come for WQEs already
			// posted: have them written first.
			if (c.op_mod == prm::modify_cq_op_mod::resize_cq)
				dp_.settle();
			cqs_.modify(c);
		}
		break;
	case op::create_qp: if (need(c, I)) qps_.create(c); break;
	case op::destroy_qp: if (need(c, I)) qps_.destroy(c); break;
	case op::query_qp: if (need(c, I)) qps_.query(c); break;
	case op::rst2init_qp:
	case op::init2init_qp:
	case op::init2rtr_qp:
	case op::rtr2rts_qp:
	case op::rts2rts_qp:
	case op::sqerr2rts_qp:
	case op::sqd_rts_qp:
	case op::qp_2err:
	case op::qp_2rst: if (need(c, I)) qps_.modify(c); break;
	case op::create_srq: if (need(c, I)) srqs_.create(c); break;
	case op::destroy_srq: if (need(c, I)) srqs_.destroy(c); break;
	case op::query_srq: if (need(c, I)) srqs_.query(c); break;
	case op::arm_rq: if (need(c, I)) srqs_.arm(c); break;
	case op::create_rmp: if (need(c, I)) srqs_.create_rmp(c); break;
	case op::modify_rmp: if (need(c, I)) srqs_.modify_rmp(c); break;
	case op::query_rmp: if (need(c, I)) srqs_.query_rmp(c); break;
	case op::destroy_rmp: if (need(c, I)) srqs_.destroy_rmp(c); break;
	case op::create_dct: if (need(c, I)) dcts_.create(c); break;
	case op::destroy_dct: if (need(c, I)) dcts_.destroy(c); break;
	case op::drain_dct: if (need(c, I)) dcts_.drain(c); break;
	case op::query_dct: if (need(c, I)) dcts_.query(c); break;
	case op::arm_dct_for_key_violation: if (need(c, I)) dcts_.arm(c); break;
	default: return false;
	}
	return true;
}

// UARs, PDs, TDs, mkeys, counters, the vport, user contexts and their
// memory; false: not one of these.
bool device::resource_cmd(cmd_ctx &c)
{
	constexpr hca_state I = hca_state::initialized;
	switch (c.opcode) {
	case op::alloc_uar: if (need(c, I)) alloc_uar(c); break;
	case op::dealloc_uar: if (need(c, I)) dealloc_uar(c); break;
	case op::query_esw_functions: if (need(c, I)) vport_.query_esw_functions(c); break;
	case op::query_vport_state: if (need(c, I)) vport_.query_state(c); break;
	case op::query_nic_vport_context: if (need(c, I)) vport_.query_nic_context(c); break;
	case op::set_roce_address: if (need(c, I)) vport_.set_roce_address(c); break;
	case op::alloc_pd: if (need(c, I)) alloc_pd(c); break;
	case op::dealloc_pd: if (need(c, I)) dealloc_pd(c); break;
	case op::alloc_transport_domain: if (need(c, I)) alloc_td(c); break;
	case op::dealloc_transport_domain: if (need(c, I)) dealloc_td(c); break;
	case op::create_mkey: if (need(c, I)) mkeys_.create(c); break;
	case op::destroy_mkey: if (need(c, I)) mkeys_.destroy(c); break;
	case op::query_mkey: if (need(c, I)) mkeys_.query(c); break;
	case op::alloc_q_counter: if (need(c, I)) alloc_q_counter(c); break;
	case op::dealloc_q_counter: if (need(c, I)) dealloc_q_counter(c); break;
	case op::query_q_counter: if (need(c, I)) query_q_counter(c); break;
	case op::create_uctx: if (need(c, I)) uctxs_.create(c); break;
	case op::create_umem: if (need(c, I)) umems_.create(c); break;
	case op::destroy_umem: if (need(c, I)) umems_.destroy(c); break;
	case op::create_general_object:
	case op::modify_general_object:
	case op::query_general_object:
	case op::destroy_general_object: if (need(c, I)) general_obj(c); break;
	case op::destroy_uctx:
		if (need(c, I))
			uctxs_.destroy(c, [&](u16 uid) { return uid_in_use(uid); });
		break;
	default: return false;
	}
	return true;
}

void device::after_command(cmd_ctx &c)
{
	const bool short_of_pages = c.status == st::no_res_err && c.syndrome == synd::no_fw_memory;
	const bool can_ask = state() == hca_state::initialized && eqs_.subscribed(prm::event_type::page_request);
	// The driver was asked for pages it has not given yet: the command
	// waits for them (and a request already out is not repeated), unless
	// the request has gone unanswered for long: a driver that does not
	// serve page requests gets the failure at once, as before.
	if (short_of_pages && can_ask && pages_.held() < pages_target() &&
	    scx_env_now_ns() - asked_at_ < page_answer_ns)
		c.wait_for_pages = true;
	// Out of context memory: ask for more regular pages, as firmware does.
	if (short_of_pages && !c.wait_for_pages && pages_target() + 16 <= cfg_.max_pages) {
		regular_pages_ += 16;
		page_request_due_ = true;
	}
	// Running low after an object was made: ask ahead, so that creating
	// many objects in a row does not fail while the pages are on their way.
	if (c.status == st::ok && state() == hca_state::initialized && pages_.held() >= pages_target() &&
	    pages_.idle_pages() < low_water_pages && pages_target() + grow_pages <= cfg_.max_pages) {
		regular_pages_ += grow_pages;
		page_request_due_ = true;
	}
	if (!page_request_due_ || !can_ask)
		return;
	page_request_due_ = false;
	i32 want = i32(pages_target()) - i32(pages_.held());
	if (want <= 0)
		return;
	if (short_of_pages)
		c.wait_for_pages = true;
	asked_at_ = scx_env_now_ns();
	u8 data[prm::eqe::event_data.size] = {};
	prm::set(data, prm::pages_req_event::num_pages, u32(want));
	eqs_.post_event(prm::event_type::page_request, 0, data);
}

} // namespace scx::hca
