// SPDX-License-Identifier: GPL-2.0
#include "hca/dct.h"

#include "hca/qp.h"
#include "hca/syndrome.h"
#include "hca/uctx.h"
#include "prm/cmd.h"
#include "prm/dct.h"
#include "prm/eq.h"
#include "prm/qp.h"

namespace scx::hca {

namespace st = prm::cmd_stat;
namespace gen = prm::cmd_hca_cap;
namespace dc = prm::dctc;

status dct_table::init(const dct_deps &d, u32 first, u32 count)
{
	d_ = d;
	SCX_TRY(lock_.init(lock_class::hca_dct));
	return table_.init(first, count);
}

// The dctc's values against the device's limits.
bool dct_table::check(cmd_ctx &c, const u8 *dctc)
{
	const u8 *gcap = d_.cap->general();
	u32 mtu = prm::get(dctc, dc::mtu);
	if (mtu < prm::qpc_mtu::bytes_256 || mtu > prm::qpc_mtu::bytes_4k)
		return c.fail(st::bad_param_err, synd::dct_bad_mtu);
	if (mtu > d_.port->max_path_mtu())
		return c.fail(st::bad_param_err, synd::dct_mtu_over_port);
	u32 port = prm::get(dctc, dc::port);
	if (port < 1 || port > prm::get(gcap, gen::num_ports))
		return c.fail(st::bad_param_err, synd::dct_bad_port);
	if (prm::get(dctc, dc::pkey_index) >= (128u << prm::get(gcap, gen::pkey_table_size)))
		return c.fail(st::bad_param_err, synd::dct_bad_pkey);
	// (my_addr_index: 8 bits, and the GID table has 256 entries.)
	static_assert(hca_limits::gid_table_size >= 256);
	if (prm::get(dctc, dc::rae) && prm::get(dctc, dc::atomic_mode) > prm::qpc_atomic_mode::up_to_8b)
		return c.fail(st::bad_param_err, synd::dct_bad_atomic_mode);
	if (prm::get(dctc, dc::cs_res) > prm::qpc_cs_res::up_to_64b)
		return c.fail(st::bad_param_err, synd::dct_unsupported);
	u32 pd = prm::get(dctc, dc::pd);
	if (!d_.pds->valid(pd))
		return c.fail(st::bad_res_err, synd::dct_bad_pd);
	u32 counter = prm::get(dctc, dc::counter_set_id);
	if (counter && !d_.q_counters->valid(counter))
		return c.fail(st::bad_res_err, synd::dct_bad_counter);
	if (!uid_may_name(c.uid, d_.pds->owner(pd)) ||
	    (counter && !uid_may_name(c.uid, d_.q_counters->owner(counter))))
		return c.fail(st::bad_res_err, synd::uid_foreign);
	return true;
}

// Takes the CQ and SRQ the DCT names (undone on failure).
bool dct_table::attach(cmd_ctx &c, const u8 *dctc)
{
	u32 cqn = prm::get(dctc, dc::cqn), srqn = prm::get(dctc, dc::srqn_xrqn);
	if (!d_.cqs->attach(cqn))
		return c.fail(st::bad_res_err, synd::dct_bad_cq);
	if (!d_.srqs->attach(srqn)) {
		d_.cqs->detach(cqn);
		return c.fail(st::bad_res_err, synd::dct_bad_srq);
	}
	if (!uid_may_name(c.uid, d_.cqs->owner(cqn)) || !uid_may_name(c.uid, d_.srqs->owner(srqn))) {
		d_.srqs->detach(srqn);
		d_.cqs->detach(cqn);
		return c.fail(st::bad_res_err, synd::uid_foreign);
	}
	return true;
}

void dct_table::detach(const dct_runtime &rt)
{
	d_.srqs->detach(rt.srqn);
	d_.cqs->detach(rt.cqn);
}

void dct_table::decode(dct_runtime &rt, const u8 *dctc, u16 uid)
{
	rt = dct_runtime{};
	rt.pd = prm::get(dctc, dc::pd);
	rt.cqn = prm::get(dctc, dc::cqn);
	rt.srqn = prm::get(dctc, dc::srqn_xrqn);
	rt.user_index = prm::get(dctc, dc::user_index);
	rt.dc_key = prm::get(dctc, dc::dc_access_key);
	rt.state = prm::dctc_state::active;
	rt.access = u8((prm::get(dctc, dc::rre) ? qp_access::remote_read : 0) |
		       (prm::get(dctc, dc::rwe) ? qp_access::remote_write : 0) |
		       (prm::get(dctc, dc::rae) ? qp_access::remote_atomic : 0));
	rt.atomic_mode = u8(prm::get(dctc, dc::atomic_mode));
	rt.min_rnr_nak = u8(prm::get(dctc, dc::min_rnr_nak));
	rt.mtu = u8(prm::get(dctc, dc::mtu));
	rt.my_addr_index = u8(prm::get(dctc, dc::my_addr_index));
	rt.hop_limit = u8(prm::get(dctc, dc::hop_limit));
	rt.tclass = u8(prm::get(dctc, dc::tclass));
	rt.dscp = u8(prm::get(dctc, dc::dscp));
	rt.eth_prio = u8(prm::get(dctc, dc::eth_prio));
	rt.cs_res = u8(prm::get(dctc, dc::cs_res));
	rt.counter_set_id = u8(prm::get(dctc, dc::counter_set_id));
	rt.pkey_index = u16(prm::get(dctc, dc::pkey_index));
	rt.flow_label = prm::get(dctc, dc::flow_label);
	rt.uid = uid;
}

void dct_table::create(cmd_ctx &c)
{
	namespace in = prm::create_dct_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::create_dct_out::size_bytes, synd::short_output))
		return;
	u8 dctc[dc::size_bytes];
	copy_bytes(dctc, prm::at(c.in, in::dct_context_entry), sizeof(dctc));
	if (!check(c, dctc) || !attach(c, dctc))
		return;
	auto slot = d_.pages->alloc_slot();
	result<u32> dctn = slot ? d_.qps->hold_number() : result<u32>(errc::nomem);
	if (!slot || !dctn) {
		if (slot)
			d_.pages->free_slot(*slot);
		d_.srqs->detach(prm::get(dctc, dc::srqn_xrqn));
		d_.cqs->detach(prm::get(dctc, dc::cqn));
		return (void)c.fail(st::no_res_err, slot ? synd::dct_exhausted : synd::no_fw_memory);
	}
	auto *t = static_cast<dct_ctx *>(d_.pages->slot(*slot));
	t->slot = *slot;
	decode(t->rt, dctc, c.uid);
	t->rt.dctn = *dctn;
	if (!create_contexts(t->rt)) {
		d_.qps->release_number(*dctn);
		d_.pages->free_slot(*slot);
		d_.srqs->detach(prm::get(dctc, dc::srqn_xrqn));
		d_.cqs->detach(prm::get(dctc, dc::cqn));
		return (void)c.fail(st::no_res_err, synd::no_fw_memory);
	}
	prm::set(dctc, dc::state, prm::dctc_state::active);
	prm::set(dctc, dc::dc_access_key_violation_count, 0);
	copy_bytes(t->dctc, dctc, sizeof(dctc));
	{
		lock_guard g(lock_);
		table_.put(*dctn, t);
		live_++;
	}
	d_.pds->ref(t->rt.pd);
	prm::set(c.out, prm::create_dct_out::dctn, *dctn);
}

// Its responder contexts; none if they cannot all be made.
bool dct_table::create_contexts(dct_runtime &rt)
{
	for (u32 i = 0; i < dct_contexts; i++) {
		result<u32> qpn = d_.qps->create_context(rt);
		if (!qpn) {
			destroy_contexts(rt);
			return false;
		}
		rt.ctx_qpn[i] = *qpn;
	}
	return true;
}

void dct_table::destroy_contexts(dct_runtime &rt)
{
	for (u32 &qpn : rt.ctx_qpn) {
		if (qpn)
			d_.qps->destroy_context(qpn);
		qpn = 0;
	}
}

void dct_table::free_dct(dct_ctx *t)
{
	live_--;
	destroy_contexts(t->rt);
	detach(t->rt);
	d_.pds->unref(t->rt.pd);
	d_.qps->release_number(t->rt.dctn);
	d_.pages->free_slot(t->slot);
}

// DESTROY_DCT, in any state: mlx5_ib drains first, but a DCT that was
// not drained is ended all the same.
void dct_table::destroy(cmd_ctx &c)
{
	namespace in = prm::destroy_dct_in;
	if (!c.need_in(in::size_bytes, synd::short_input) || !c.need_out(prm::mbox_out::size_bytes, synd::short_output))
		return;
	u32 dctn = prm::get(c.in, in::dctn);
	dct_ctx *t;
	{
		lock_guard g(lock_);
		t = table_.get(dctn);
		if (t && !uid_may_name(c.uid, t->rt.uid))
			return (void)c.fail(st::bad_res_err, synd::uid_foreign);
		table_.remove(dctn);
	}
	if (!t)
		return (void)c.fail(st::bad_res_err, synd::dct_invalid);
	free_dct(t);
}

// The DCT owes no initiator anything more: it says so (outside lock_,
// which the EQs' lock never nests in).
void dct_table::drained(u32 dctn)
{
	u8 data[prm::eqe::event_data.size] = {};
	prm::set(data, prm::eqe_dct::number, dctn);
	d_.eqs->post_event(prm::event_type::dct_drained, 0, data);
}

// The DCT a command names, if its uid may name it (else the command has
// failed), under lock_.
dct_ctx *dct_table::named(cmd_ctx &c, u32 dctn)
{
	dct_ctx *t = table_.get(dctn);
	if (!t)
		return c.fail(st::bad_res_err, synd::dct_invalid), nullptr;
	if (!uid_may_name(c.uid, t->rt.uid))
		return c.fail(st::bad_res_err, synd::uid_foreign), nullptr;
	return t;
}

// DRAIN_DCT: the DCT takes no request from now on (dp_dc.cpp drops what
// comes for a DCT that is not active). Its contexts hold no request half
// done between two commands (the data path runs a packet at a time under
// the lock commands take), so it is drained at once: DCT_DRAINED follows
// the command's completion on the async EQ. Answers a context still had
// queued (READ responses) go out as they would.
void dct_table::drain(cmd_ctx &c)
{
	namespace in = prm::drain_dct_in;
	if (!c.need_in(in::size_bytes, synd::short_input) || !c.need_out(prm::mbox_out::size_bytes, synd::short_output))
		return;
	u32 dctn;
	{
		lock_guard g(lock_);
		dct_ctx *t = named(c, prm::get(c.in, in::dctn));
		if (!t)
			return;
		if (t->rt.state != prm::dctc_state::active)
			return (void)c.fail(st::bad_res_state_err, synd::dct_not_active);
		t->rt.state = prm::dctc_state::drained;
		dctn = t->rt.dctn;
	}
	drained(dctn);
}

void dct_table::query(cmd_ctx &c)
{
	namespace out = prm::query_dct_out;
	if (!c.need_in(prm::query_dct_in::size_bytes, synd::short_input) ||
	    !c.need_out(out::size_bytes, synd::short_output))
		return;
	lock_guard g(lock_);
	dct_ctx *t = named(c, prm::get(c.in, prm::query_dct_in::dctn));
	if (!t)
		return;
	u8 *dctc = prm::at(c.out, out::dct_context_entry);
	copy_bytes(dctc, t->dctc, dc::size_bytes);
	prm::set(dctc, dc::state, t->rt.state);
	prm::set(dctc, dc::dc_access_key_violation_count, t->rt.key_violations);
}

// ARM_DCT_FOR_KEY_VIOLATION: the next initiator with a wrong key raises
// DCT_KEY_VIOLATION (once; then it must be armed again).
void dct_table::arm(cmd_ctx &c)
{
	if (!c.need_in(prm::arm_dct_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::mbox_out::size_bytes, synd::short_output))
		return;
	lock_guard g(lock_);
	dct_ctx *t = named(c, prm::get(c.in, prm::arm_dct_in::dct_number));
	if (!t)
		return;
	t->rt.key_armed = 1;
}

void dct_table::reset()
{
	for (u32 n = 0; n < table_.capacity(); n++) {
		dct_ctx *t;
		{
			lock_guard g(lock_);
			t = table_.remove(table_.first() + n);
		}
		if (t)
			free_dct(t);
	}
}

bool dct_table::any_owned_by(u16 uid)
{
	bool found = false;
	lock_guard g(lock_);
	table_.for_each([&](u32, dct_ctx *t) { found = found || t->rt.uid == uid; });
	return found;
}

} // namespace scx::hca
