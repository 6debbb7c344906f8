// SPDX-License-Identifier: GPL-2.0
// Reserved QP numbers: the general object RESERVED_QPN. Each object holds a
// run of 2^log_obj_range QPNs (at most 2^log_reserved_qpn_granularity, the
// cap), aligned to its size, which CREATE_QP never hands out while it
// lives; obj_id is its first QPN. libmlx5 hands them to users as
// mlx5dv_reserved_qpn_alloc() numbers, which a DC user's CM connection
// carries in place of a QP of its own. A run is only a number: no packet
// is ever accepted for it.
#include "hca/qp.h"

#include "hca/syndrome.h"
#include "hca/uctx.h"
#include "prm/cmd.h"
#include "prm/gen_obj.h"

namespace scx::hca {

namespace st = prm::cmd_stat;
namespace hdr = prm::general_obj_in_cmd_hdr;
namespace out_hdr = prm::general_obj_out_cmd_hdr;

qp_table::qpn_run *qp_table::find_run(u32 first)
{
	for (u32 i = 0; i < max_runs; i++)
		if (runs_[i].used && runs_[i].first == first)
			return &runs_[i];
	return nullptr;
}

// The run a command's obj_id names, if its uid may name it (else the
// command has failed), under lock_.
qp_table::qpn_run *qp_table::named_run(cmd_ctx &c)
{
	qpn_run *r = find_run(prm::get(c.in, hdr::obj_id));
	if (!r)
		return c.fail(st::bad_res_err, synd::gen_obj_invalid), nullptr;
	if (!uid_may_name(c.uid, r->uid))
		return c.fail(st::bad_res_err, synd::uid_foreign), nullptr;
	return r;
}

void qp_table::create_reserved(cmd_ctx &c)
{
	if (!c.need_in(hdr::size_bytes, synd::short_input) ||
	    !c.need_out(out_hdr::size_bytes, synd::short_output))
		return;
	u32 log = prm::get(c.in, hdr::log_obj_range);
	u32 most = prm::get(d_.cap->general_2(), prm::cmd_hca_cap_2::log_reserved_qpn_granularity);
	if (log > most)
		return (void)c.fail(st::bad_param_err, synd::gen_obj_bad_range);
	lock_guard g(lock_);
	qpn_run *slot = nullptr;
	for (u32 i = 0; i < max_runs && !slot; i++)
		if (!runs_[i].used)
			slot = &runs_[i];
	if (!slot || reserved_ + (1u << log) > hca_limits::max_reserved_qpns)
		return (void)c.fail(st::no_res_err, synd::gen_obj_exhausted);
	result<u32> first = table_.hold_run(log);
	if (!first)
		return (void)c.fail(st::no_res_err, synd::gen_obj_exhausted);
	*slot = qpn_run{*first, c.uid, u8(log), 1};
	reserved_ += 1u << log;
	prm::set(c.out, out_hdr::obj_id, *first);
}

void qp_table::query_reserved(cmd_ctx &c)
{
	if (!c.need_in(hdr::size_bytes, synd::short_input) ||
	    !c.need_out(out_hdr::size_bytes + prm::reserved_qpn::size_bytes, synd::short_output))
		return;
	lock_guard g(lock_);
	qpn_run *r = named_run(c);
	if (r)
		prm::set(c.out, out_hdr::obj_id, r->first);
}

void qp_table::destroy_reserved(cmd_ctx &c)
{
	if (!c.need_in(hdr::size_bytes, synd::short_input) ||
	    !c.need_out(out_hdr::size_bytes, synd::short_output))
		return;
	lock_guard g(lock_);
	qpn_run *r = named_run(c);
	if (!r)
		return;
	table_.release_run(r->first, 1u << r->log);
	reserved_ -= 1u << r->log;
	r->used = 0;
}

result<u32> qp_table::hold_number()
{
	lock_guard g(lock_);
	return table_.hold_run(0);
}

void qp_table::release_number(u32 qpn)
{
	lock_guard g(lock_);
	table_.release_run(qpn, 1);
}

// TEARDOWN_HCA: every run goes.
void qp_table::reset_reserved()
{
	lock_guard g(lock_);
	for (u32 i = 0; i < max_runs; i++) {
		qpn_run &r = runs_[i];
		if (r.used)
			table_.release_run(r.first, 1u << r.log);
		r.used = 0;
	}
	reserved_ = 0;
}

} // namespace scx::hca
