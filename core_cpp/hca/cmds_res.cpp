// SPDX-License-Identifier: GPL-2.0
// Plain numbered resources: UARs, protection and transport domains and Q
// counter sets.
// None may be freed while an object still uses it.
#include "hca/device.h"
#include "hca/syndrome.h"
#include "prm/gen_obj.h"
#include "prm/pd.h"
#include "prm/q_counter.h"
#include "prm/uar.h"

namespace scx::hca {

namespace st = prm::cmd_stat;
namespace op = prm::op;

namespace {

// ALLOC_*: a free number of pool for the command's context, into field.
template <typename F> result<u32> take(cmd_ctx &c, id_pool &pool, u32 in_size, u32 out_size, F field, u32 exhausted)
{
	if (!c.need_in(in_size, synd::short_input) || !c.need_out(out_size, synd::short_output))
		return errc::inval;
	auto id = pool.alloc(c.uid);
	if (!id) {
		c.fail(st::no_res_err, exhausted);
		return errc::nospc;
	}
	prm::set(c.out, field, *id);
	return *id;
}

// DEALLOC_*: the number named by field exists, is the command's context's
// and nothing uses it (busy 0: nothing can).
template <typename F>
result<u32> give_back(cmd_ctx &c, id_pool &pool, u32 in_size, u32 out_size, F field, u32 invalid, u32 busy)
{
	if (!c.need_in(in_size, synd::short_input) || !c.need_out(out_size, synd::short_output))
		return errc::inval;
	u32 id = prm::get(c.in, field);
	u32 bad = !pool.valid(id) ? invalid : !uid_may_name(c.uid, pool.owner(id)) ? synd::uid_foreign : 0;
	if (bad) {
		c.fail(st::bad_res_err, bad);
		return errc::inval;
	}
	if (busy && pool.busy(id)) {
		c.fail(st::bad_res_state_err, busy);
		return errc::busy;
	}
	pool.free(id);
	return id;
}

} // namespace

void device::alloc_uar(cmd_ctx &c)
{
	auto uar = take(c, uars_, prm::alloc_uar_in::size_bytes, prm::alloc_uar_out::size_bytes, prm::alloc_uar_out::uar,
			synd::uar_exhausted);
	if (uar)
		uar_win_.set_live(*uar, true);
}

void device::dealloc_uar(cmd_ctx &c)
{
	auto uar = give_back(c, uars_, prm::dealloc_uar_in::size_bytes, prm::dealloc_uar_out::size_bytes,
			     prm::dealloc_uar_in::uar, synd::uar_invalid, synd::uar_busy);
	if (uar)
		uar_win_.set_live(*uar, false);
}

void device::alloc_pd(cmd_ctx &c)
{
	(void)take(c, pds_, prm::alloc_pd_in::size_bytes, prm::alloc_pd_out::size_bytes, prm::alloc_pd_out::pd,
		   synd::pd_exhausted);
}

void device::dealloc_pd(cmd_ctx &c)
{
	(void)give_back(c, pds_, prm::dealloc_pd_in::size_bytes, prm::dealloc_pd_out::size_bytes,
			prm::dealloc_pd_in::pd, synd::pd_invalid, synd::pd_busy);
}

void device::alloc_td(cmd_ctx &c)
{
	(void)take(c, tds_, prm::alloc_transport_domain_in::size_bytes, prm::alloc_transport_domain_out::size_bytes,
		   prm::alloc_transport_domain_out::transport_domain, synd::td_exhausted);
}

void device::dealloc_td(cmd_ctx &c)
{
	(void)give_back(c, tds_, prm::dealloc_transport_domain_in::size_bytes,
			prm::dealloc_transport_domain_out::size_bytes, prm::dealloc_transport_domain_in::transport_domain,
			synd::td_invalid, 0);
}

void device::alloc_q_counter(cmd_ctx &c)
{
	auto id = take(c, q_counters_, prm::alloc_q_counter_in::size_bytes, prm::alloc_q_counter_out::size_bytes,
		       prm::alloc_q_counter_out::counter_set_id, synd::q_counter_exhausted);
	if (id)
		counters_.reset(*id);
}

void device::dealloc_q_counter(cmd_ctx &c)
{
	(void)give_back(c, q_counters_, prm::dealloc_q_counter_in::size_bytes,
			prm::dealloc_q_counter_out::size_bytes, prm::dealloc_q_counter_in::counter_set_id,
			synd::q_counter_invalid, 0);
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

// The one general object type softcx has is a run of reserved QPNs
// (qp_reserve.cpp); its obj_type sits where other commands have op_mod.
void device::general_obj(cmd_ctx &c)
{
	if (!cfg_.general_objects)
		return (void)c.fail(st::bad_op_err, synd::bad_opcode);
	if (!c.need_in(prm::general_obj_in_cmd_hdr::size_bytes, synd::short_input))
		return;
	if (prm::get(c.in, prm::general_obj_in_cmd_hdr::obj_type) != prm::obj_type::reserved_qpn)
		return (void)c.fail(st::bad_param_err, synd::gen_obj_bad_type);
	switch (c.opcode) {
	case op::create_general_object: qps_.create_reserved(c); break;
	case op::query_general_object: qps_.query_reserved(c); break;
	case op::destroy_general_object: qps_.destroy_reserved(c); break;
	default: c.fail(st::bad_param_err, synd::gen_obj_no_modify); break;
	}
}

// Whether an object of user context uid remains (DESTROY_UCTX refuses).
bool device::uid_in_use(u16 uid)
{
	return pds_.any_owned_by(uid) || tds_.any_owned_by(uid) || uars_.any_owned_by(uid) || q_counters_.any_owned_by(uid) ||
	       cqs_.any_owned_by(uid) || srqs_.any_owned_by(uid) || qps_.any_owned_by(uid) || dcts_.any_owned_by(uid) ||
	       mkeys_.any_owned_by(uid) || umems_.any_owned_by(uid);
}

} // namespace scx::hca
