// SPDX-License-Identifier: GPL-2.0
// Plain numbered resources: UARs, protection and transport domains and Q
// counter sets.
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
	auto uar = uars_.alloc(c.uid);
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
	if (!uid_may_name(c.uid, uars_.owner(uar)))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
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
	auto pd = pds_.alloc(c.uid);
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
	if (!uid_may_name(c.uid, pds_.owner(pd)))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	if (pds_.busy(pd))
		return (void)c.fail(st::bad_res_state_err, synd::pd_busy);
	pds_.free(pd);
}

void device::alloc_td(cmd_ctx &c)
{
	if (!c.need_in(prm::alloc_transport_domain_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::alloc_transport_domain_out::size_bytes, synd::short_output))
		return;
	auto td = tds_.alloc(c.uid);
	if (!td)
		return (void)c.fail(st::no_res_err, synd::td_exhausted);
	prm::set(c.out, prm::alloc_transport_domain_out::transport_domain, *td);
}

void device::dealloc_td(cmd_ctx &c)
{
	if (!c.need_in(prm::dealloc_transport_domain_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::dealloc_transport_domain_out::size_bytes, synd::short_output))
		return;
	u32 td = prm::get(c.in, prm::dealloc_transport_domain_in::transport_domain);
	if (!tds_.valid(td))
		return (void)c.fail(st::bad_res_err, synd::td_invalid);
	if (!uid_may_name(c.uid, tds_.owner(td)))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	tds_.free(td);
}

void device::alloc_q_counter(cmd_ctx &c)
{
	if (!c.need_in(prm::alloc_q_counter_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::alloc_q_counter_out::size_bytes, synd::short_output))
		return;
	auto id = q_counters_.alloc(c.uid);
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
	if (!uid_may_name(c.uid, q_counters_.owner(id)))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
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
	if (id && !uid_may_name(c.uid, q_counters_.owner(id)))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	counters_.query(id, c.out, prm::get(c.in, prm::query_q_counter_in::clear));
}

// Whether an object of user context uid remains (DESTROY_UCTX refuses).
bool device::uid_in_use(u16 uid)
{
	return pds_.any_owned_by(uid) || tds_.any_owned_by(uid) || uars_.any_owned_by(uid) || q_counters_.any_owned_by(uid) ||
	       cqs_.any_owned_by(uid) || srqs_.any_owned_by(uid) || qps_.any_owned_by(uid) ||
	       mkeys_.any_owned_by(uid);
}

} // namespace scx::hca
