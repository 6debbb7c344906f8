// SPDX-License-Identifier: GPL-2.0
// Plain numbered resources: UARs, protection domains and Q counter sets.
// None may be freed while an object still uses it.
#include "hca/device.h"
#include "hca/syndrome.h"
#include "prm/pd.h"
#include "prm/q_counter.h"
#include "prm/uar.h"

namespace scx::hca {

namespace st = prm::cmd_stat;

void device::alloc_uar(cmd_ctx &c)
{
	if (!c.need_in(prm::alloc_uar_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::alloc_uar_out::size_bytes, synd::short_output))
		return;
	auto uar = uars_.alloc();
	if (!uar)
		return (void)c.fail(st::no_res_err, synd::uar_exhausted);
	uar_win_.set_live(*uar, true);
	prm::set(c.out, prm::alloc_uar_out::uar, *uar);
}

void device::dealloc_uar(cmd_ctx &c)
{
	if (!c.need_in(prm::dealloc_uar_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::dealloc_uar_out::size_bytes, synd::short_output))
		return;
	u32 uar = prm::get(c.in, prm::dealloc_uar_in::uar);
	if (!uars_.valid(uar))
		return (void)c.fail(st::bad_res_err, synd::uar_invalid);
	if (uars_.busy(uar))
		return (void)c.fail(st::bad_res_state_err, synd::uar_busy);
	uars_.free(uar);
	uar_win_.set_live(uar, false);
}

void device::alloc_pd(cmd_ctx &c)
{
	if (!c.need_in(prm::alloc_pd_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::alloc_pd_out::size_bytes, synd::short_output))
		return;
	auto pd = pds_.alloc();
	if (!pd)
		return (void)c.fail(st::no_res_err, synd::pd_exhausted);
	prm::set(c.out, prm::alloc_pd_out::pd, *pd);
}

void device::dealloc_pd(cmd_ctx &c)
{
	if (!c.need_in(prm::dealloc_pd_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::dealloc_pd_out::size_bytes, synd::short_output))
		return;
	u32 pd = prm::get(c.in, prm::dealloc_pd_in::pd);
	if (!pds_.valid(pd))
		return (void)c.fail(st::bad_res_err, synd::pd_invalid);
	if (pds_.busy(pd))
		return (void)c.fail(st::bad_res_state_err, synd::pd_busy);
	pds_.free(pd);
}

void device::alloc_q_counter(cmd_ctx &c)
{
	if (!c.need_in(prm::alloc_q_counter_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::alloc_q_counter_out::size_bytes, synd::short_output))
		return;
	auto id = q_counters_.alloc();
	if (!id)
		return (void)c.fail(st::no_res_err, synd::q_counter_exhausted);
	counters_.reset(*id);
	prm::set(c.out, prm::alloc_q_counter_out::counter_set_id, *id);
}

void device::dealloc_q_counter(cmd_ctx &c)
{
	if (!c.need_in(prm::dealloc_q_counter_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::dealloc_q_counter_out::size_bytes, synd::short_output))
		return;
	u32 id = prm::get(c.in, prm::dealloc_q_counter_in::counter_set_id);
	if (!q_counters_.valid(id))
		return (void)c.fail(st::bad_res_err, synd::q_counter_invalid);
	q_counters_.free(id);
}

void device::query_q_counter(cmd_ctx &c)
{
	if (!c.need_in(prm::query_q_counter_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::mbox_out::size_bytes, synd::short_output))
		return;
	// Set 0 is the function's default set and always exists.
	u32 id = prm::get(c.in, prm::query_q_counter_in::counter_set_id);
	if (id && !q_counters_.valid(id))
		return (void)c.fail(st::bad_res_err, synd::q_counter_invalid);
	counters_.query(id, c.out, prm::get(c.in, prm::query_q_counter_in::clear));
}

} // namespace scx::hca
