// SPDX-License-Identifier: GPL-2.0
// The QP table: MODIFY/QUERY/DESTROY_QP (CREATE_QP: qp_create.cpp), the
// QPs' runtime state the data path reads, and where their queues lie (the
// context image itself: qpc_image.cpp).
#include "hca/qp.h"

#include "hca/qpc_image.h"
#include "hca/syndrome.h"
#include "hca/uctx.h"
#include "hca/tp.h"
#include "prm/hca_cap.h"
#include "prm/qp.h"

namespace scx::hca {

namespace st = prm::cmd_stat;
namespace qs = prm::qpc_state;
namespace opt = prm::qp_optpar;
namespace gen = prm::cmd_hca_cap;

status qp_table::init(const qp_deps &deps, u32 log_max_qp)
{
	d_ = deps;
	SCX_TRY(lock_.init(lock_class::hca_qp));
	ntps_ = (1u << log_max_qp) - first_qpn;
	tps_ = static_cast<tp_qp **>(alloc_bytes(sizeof(tp_qp *) * ntps_));
	runs_ = static_cast<qpn_run *>(alloc_bytes(sizeof(qpn_run) * max_runs));
	if (!tps_ || !runs_)
		return errc::nomem;
	zero_bytes(runs_, sizeof(qpn_run) * max_runs);
	return table_.init(first_qpn, ntps_);
}

qp_table::~qp_table()
{
	collect();
	for (u32 i = 0; tps_ && i < ntps_; i++)
		tp_qp_delete(tps_[i]);
	free_bytes(tps_);
	free_bytes(runs_);
	tp_qp_delete(spare_);
	while (ctx_spares_) {
		tp_qp *next = static_cast<tp_qp *>(ctx_spares_->owner);
		tp_qp_delete(ctx_spares_);
		ctx_spares_ = next;
	}
}

// Under lock_ (and the data path's spinlock, where memory is not freed).
void qp_table::bury(tp_qp *t)
{
	if (!t)
		return;
	t->owner = graveyard_;
	graveyard_ = t;
}

void qp_table::collect()
{
	tp_qp *t;
	{
		lock_guard g(lock_);
		t = graveyard_;
		graveyard_ = nullptr;
	}
	while (t) {
		tp_qp *next = static_cast<tp_qp *>(t->owner);
		tp_qp_delete(t);
		t = next;
	}
}

void qp_table::prepare_create()
{
	{
		lock_guard g(lock_);
		if (spare_)
			return;
	}
	tp_qp *t = tp_qp_new(max_flights, 1u << hca_limits::log_max_ra);
	{
		lock_guard g(lock_);
		if (!spare_) {
			spare_ = t;
			t = nullptr;
		}
	}
	tp_qp_delete(t);
}

// As many QPs as the current log_max_qp allows (a driver may lower it with
// SET_HCA_CAP), QPNs 0 and 1 counted.
u32 qp_table::max_live() const
{
	u32 log = prm::get(d_.cap->general(), gen::log_max_qp);
	u32 n = (1u << log) > first_qpn ? (1u << log) - first_qpn : 0;
	return min(n, table_.capacity());
}

// The values a transition is about to take, against the device's limits
// and the QP's service type; false: the command failed.
bool qp_table::modify_check(cmd_ctx &c, const qp_runtime &now, const u8 *qpc, u32 mask)
{
	namespace q = prm::qpc;
	namespace a = prm::ads;
	const u8 *gcap = d_.cap->general();
	const u8 *path = prm::at(qpc, q::primary_address_path);
	const bool rc = now.st == prm::qpc_st::rc, dci = now.st == prm::qpc_st::dci;
	const bool conn = rc || now.st == prm::qpc_st::uc;
	u32 pkeys = 128u << prm::get(gcap, gen::pkey_table_size);
	u32 ports = prm::get(gcap, gen::num_ports);
	u32 log_ra = prm::get(gcap, gen::log_max_ra_res_qp);
	u32 log_ra_req = dci ? prm::get(gcap, gen::log_max_ra_req_dc) : prm::get(gcap, gen::log_max_ra_req_qp);
	bool init_attrs = c.opcode == prm::op::rst2init_qp;
	if (init_attrs || (mask & opt::pri_port)) {
		u32 port = prm::get(path, a::vhca_port_num);
		if (port < 1 || port > ports)
			return c.fail(st::bad_param_err, synd::qp_bad_port);
	}
	if ((init_attrs || (mask & opt::pkey_index)) && prm::get(path, a::pkey_index) >= pkeys)
		return c.fail(st::bad_param_err, synd::qp_bad_pkey);
	if (init_attrs || (mask & opt::counter_set_id)) {
		u32 counter = prm::get(qpc, q::counter_set_id);
		if (counter && !d_.q_counters->valid(counter))
			return c.fail(st::bad_res_err, synd::qp_bad_counter);
		if (counter && !uid_may_name(c.uid, d_.q_counters->owner(counter)))
			return c.fail(st::bad_res_err, synd::uid_foreign);
	}
	if (((init_attrs && rc) || (mask & opt::rae)) && prm::get(qpc, q::rae) &&
	    prm::get(qpc, q::atomic_mode) > prm::qpc_atomic_mode::up_to_8b)
		return c.fail(st::bad_param_err, synd::qp_unsupported);
	if (c.opcode == prm::op::init2rtr_qp && (conn || dci)) {
		u32 mtu = prm::get(qpc, q::mtu);
		if (mtu < prm::qpc_mtu::bytes_256 || mtu > prm::qpc_mtu::bytes_4k)
			return c.fail(st::bad_param_err, synd::qp_bad_mtu);
		// Its packets must fit the port's frames (a jumbo path MTU
		// needs a jumbo netdev).
		if (mtu > d_.port->max_path_mtu())
			return c.fail(st::bad_param_err, synd::qp_mtu_over_port);
		if (prm::get(qpc, q::log_msg_max) > prm::get(gcap, gen::log_max_msg))
			return c.fail(st::bad_param_err, synd::qp_bad_msg_max);
	}
	// A DCI's WQEs carry the destination; a connected QP's path is here.
	if (c.opcode == prm::op::init2rtr_qp && conn) {
		if (prm::get(qpc, q::remote_qpn) < first_qpn)
			return c.fail(st::bad_param_err, synd::qp_bad_remote_qpn);
		if (prm::get(path, a::src_addr_index) >= prm::get(gcap, gen::gid_table_size))
			return c.fail(st::bad_param_err, synd::qp_bad_gid_index);
		if (prm::get(path, a::vhca_port_num) > ports)
			return c.fail(st::bad_param_err, synd::qp_bad_port);
		if (rc && prm::get(qpc, q::log_rra_max) > log_ra)
			return c.fail(st::bad_param_err, synd::qp_bad_rd_atomic);
	}
	if (c.opcode == prm::op::rtr2rts_qp && (rc || dci) && prm::get(qpc, q::log_sra_max) > log_ra_req)
		return c.fail(st::bad_param_err, synd::qp_bad_rd_atomic);
	if ((mask & opt::pm_state) && prm::get(qpc, q::pm_state) != prm::qpc_pm_state::migrated)
		return c.fail(st::bad_param_err, synd::qp_bad_pm_state);
	return true;
}

// The transition on the context image and the runtime, under the table's
// lock; null if the QP is gone.
qp_ctx *qp_table::modify_apply(u32 qpn, const transition &t, const u8 *qpc, u32 mask)
{
	namespace q = prm::qpc;
	lock_guard g(lock_);
	qp_ctx *qp = table_.get(qpn);
	if (!qp)
		return nullptr;
	u8 *img = static_cast<u8 *>(d_.pages->slot(qp->image_slot));
	qp_runtime &rt = qp->rt;
	if (t.to == qs::rst) {
		clear_transport(img);
		rt.sq_ci = 0;
		rt.rq_ci = 0;
		rt.flush_pending = 0;
		rt.comm_est = 0;
		rt.last_wqe = 0;
	} else if (t.to == qs::err) {
		// Work posted before is flushed by the data path.
		if (rt.state != qs::rst)
			rt.flush_pending = 1;
	} else {
		merge(img, qpc, t, rt.st, mask);
	}
	u8 from = rt.state;
	rt.state = t.to;
	prm::set(img, q::state, t.to);
	decode(rt, img);
	sync_transport(rt, from);
	rt.generation++;
	state_epoch_++;
	return qp;
}

void qp_table::modify(cmd_ctx &c)
{
	const transition *t = find_transition(c.opcode);
	if (!t)
		return (void)c.fail(st::bad_op_err, synd::bad_opcode);
	// Every transition with a context has the rst2init_qp_in layout; 2ERR
	// and 2RST the qp_2rst_in one. Their outputs are 16 bytes.
	u32 inlen = t->has_qpc ? prm::rst2init_qp_in::size_bytes : prm::qp_2rst_in::size_bytes;
	if (!c.need_in(inlen, synd::short_input) ||
	    !c.need_out(prm::rst2init_qp_out::size_bytes, synd::short_output))
		return;
	u8 in[prm::rst2init_qp_in::size_bytes] = {};
	if (!c.read_in(0, in, inlen))
		return (void)c.fail(st::bad_inp_len_err, synd::short_input);
	namespace mi = prm::rst2init_qp_in;
	static_assert(mi::qpn.bit_off == prm::qp_2rst_in::qpn.bit_off &&
		      mi::reserved_at_40.bit_off == prm::qp_2rst_in::reserved_at_40.bit_off);
	if (prm::get(in, mi::reserved_at_40))
		return (void)c.fail(st::bad_param_err, synd::qp_reserved);
	u32 qpn = prm::get(in, mi::qpn);
	u32 mask = t->has_qpc ? u32(prm::get(in, mi::opt_param_mask)) : 0;
	const u8 *qpc = prm::at(in, mi::qpc);

	qp_runtime now;
	if (!lookup(qpn, &now) || now.dctn)
		return (void)c.fail(st::bad_res_err, synd::qp_invalid);
	if (!uid_may_name(c.uid, now.uid))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	if (t->from != any_state && now.state != t->from)
		return (void)c.fail(st::bad_qp_state_err, synd::qp_bad_state);
	if (mask & ~t->allowed[st_index(now.st)])
		return (void)c.fail(st::bad_param_err, synd::qp_bad_opt_param);

	if (!modify_check(c, now, qpc, mask))
		return;

	namespace q = prm::qpc;
	// A new receive CQ or SRQ (UD RTS2RTS): attach the new one first.
	u32 new_cq = prm::get(qpc, q::cqn_rcv), new_srq = prm::get(qpc, q::srqn_rmpn_xrqn);
	if ((mask & opt::srqn) && now.rq_type != prm::qp_rq_type::srq)
		return (void)c.fail(st::bad_param_err, synd::qp_bad_opt_param);
	if (((mask & opt::cqn_rcv) && !uid_may_name(c.uid, d_.cqs->owner(new_cq))) ||
	    ((mask & opt::srqn) && !uid_may_name(c.uid, d_.srqs->owner(new_srq))))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	if ((mask & opt::cqn_rcv) && !d_.cqs->attach(new_cq))
		return (void)c.fail(st::bad_res_err, synd::qp_bad_cq);
	if ((mask & opt::srqn) && !d_.srqs->attach(new_srq)) {
		if (mask & opt::cqn_rcv)
			d_.cqs->detach(new_cq);
		return (void)c.fail(st::bad_res_err, synd::qp_bad_srq);
	}

	qp_ctx *qp = modify_apply(qpn, *t, qpc, mask);
	if (!qp) { // only this command context removes QPs: cannot happen
		now.cqn_rcv = new_cq;
		now.srqn = new_srq;
		c.fail(st::bad_res_err, synd::qp_invalid);
	}
	// The receive CQ or SRQ given up (the new ones when the QP vanished).
	if (mask & opt::cqn_rcv)
		d_.cqs->detach(now.cqn_rcv);
	if (mask & opt::srqn)
		d_.srqs->detach(now.srqn);
}

void qp_table::query(cmd_ctx &c)
{
	namespace out = prm::query_qp_out;
	namespace q = prm::qpc;
	if (!c.need_in(prm::query_qp_in::size_bytes, synd::short_input) ||
	    !c.need_out(out::size_bytes, synd::short_output))
		return;
	if (prm::get(c.in, prm::query_qp_in::reserved_at_40))
		return (void)c.fail(st::bad_param_err, synd::qp_reserved);
	qp_runtime rt;
	u8 img[q::size_bytes];
	{
		lock_guard g(lock_);
		qp_ctx *qp = table_.get(prm::get(c.in, prm::query_qp_in::qpn));
		if (!qp || qp->rt.dctn)
			return (void)c.fail(st::bad_res_err, synd::qp_invalid);
		if (!uid_may_name(c.uid, qp->rt.uid))
			return (void)c.fail(st::bad_res_err, synd::uid_foreign);
		rt = qp->rt;
		copy_bytes(img, d_.pages->slot(qp->image_slot), sizeof(img));
	}
	prm::set(img, q::state, rt.state);
	prm::set(img, q::hw_sq_wqebb_counter, rt.sq_ci);
	prm::set(img, q::hw_rq_counter, rt.rq_ci);
	// What the driver has posted: its doorbell record.
	const u8 *rec = static_cast<const u8 *>(d_.dma->map(rt.dbr_addr, prm::qp_dbrec::size_bytes));
	if (rec) {
		u8 snap[prm::qp_dbrec::size_bytes];
		copy_bytes(snap, rec, sizeof(snap));
		prm::set(img, q::sw_sq_wqebb_counter, prm::get(snap, prm::qp_dbrec::snd_counter) & 0xffff);
		prm::set(img, q::sw_rq_counter, prm::get(snap, prm::qp_dbrec::rcv_counter));
	}
	copy_bytes(prm::at(c.out, out::qpc), img, sizeof(img));
	for (u32 i = 0; i < rt.pas.count && out::pas.byte_off + (i + 1) * 8 <= c.outlen; i++)
		c.out_be64(out::pas.byte_off + i * 8, d_.pages->list_get(rt.pas, i));
}

void qp_table::free_qp(qp_ctx *q)
{
	const qp_runtime &rt = q->rt;
	live_--;
	if (rt.rq_type == prm::qp_rq_type::srq)
		d_.srqs->detach(rt.srqn);
	d_.cqs->detach(rt.cqn_rcv);
	d_.cqs->detach(rt.cqn_snd);
	d_.pds->unref(rt.pd);
	d_.uars->unref(rt.uar);
	fw_list pas = rt.pas;
	u32 image = q->image_slot, slot = q->slot;
	{
		lock_guard g(lock_);
		if (rt.qpn - first_qpn < ntps_ && tps_[rt.qpn - first_qpn] == rt.tp)
			tps_[rt.qpn - first_qpn] = nullptr;
		// Commands hold the data path's lock: these are final.
		if (rt.tp)
			tp_counters_add(gone_, rt.tp->cnt);
		bury(rt.tp);
	}
	d_.pages->free_list(pas);
	release_umems(rt);
	d_.pages->free_slot(image);
	d_.pages->free_slot(slot);
}

void qp_table::destroy(cmd_ctx &c)
{
	namespace in = prm::destroy_qp_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::destroy_qp_out::size_bytes, synd::short_output))
		return;
	if (prm::get(c.in, in::reserved_at_40))
		return (void)c.fail(st::bad_param_err, synd::qp_reserved);
	qp_ctx *qp;
	{
		lock_guard g(lock_);
		u32 qpn = prm::get(c.in, in::qpn);
		qp = table_.get(qpn);
		if (qp && qp->rt.dctn)
			return (void)c.fail(st::bad_res_err, synd::qp_invalid);
		if (qp && !uid_may_name(c.uid, qp->rt.uid))
			return (void)c.fail(st::bad_res_err, synd::uid_foreign);
		table_.remove(qpn);
		if (qp && qp->rt.gsi)
			gsi_qpn_ = 0;
		epoch_++;
	}
	if (!qp)
		return (void)c.fail(st::bad_res_err, synd::qp_invalid);
	free_qp(qp);
}

bool qp_table::any_owned_by(u16 uid)
{
	bool found = false;
	lock_guard g(lock_);
	table_.for_each([&](u32, qp_ctx *q) { found = found || q->rt.uid == uid; });
	for (u32 i = 0; i < max_runs && !found; i++)
		found = runs_[i].used && runs_[i].uid == uid;
	return found;
}

bool qp_table::lookup(u32 qpn, qp_runtime *out)
{
	lock_guard g(lock_);
	qp_ctx *q = table_.get(qpn);
	if (!q)
		return false;
	*out = q->rt;
	return true;
}

bool qp_table::sq_addr(const qp_runtime &rt, u64 off, u64 *bus) const
{
	if (off >= u64(rt.sq_wqebbs) * prm::qp_wq::send_wqe_bb)
		return false;
	return wq_bus_addr(*d_.pages, rt.pas, rt.page_shift, rt.page_offset, rt.sq_offset + off, bus);
}

u32 qp_table::sq_span(const qp_runtime &rt, u64 off, u32 max, u64 *bus) const
{
	if (!sq_addr(rt, off, bus))
		return 0;
	u64 page = u64(1) << rt.page_shift;
	u64 n = page - ((u64(rt.page_offset) + rt.sq_offset + off) & (page - 1));
	u64 to_end = u64(rt.sq_wqebbs) * prm::qp_wq::send_wqe_bb - off;
	if (n > to_end)
		n = to_end;
	return u32(n < max ? n : max);
}

bool qp_table::rq_addr(const qp_runtime &rt, u64 off, u64 *bus) const
{
	if (off >= u64(rt.rq_wqes) << rt.rq_stride_shift)
		return false;
	return wq_bus_addr(*d_.pages, rt.pas, rt.page_shift, rt.page_offset, off, bus);
}

void qp_table::reset()
{
	for (u32 n = 0; n < table_.capacity(); n++) {
		qp_ctx *q;
		{
			lock_guard g(lock_);
			// DCT contexts go with their DCTs (dct_table::reset).
			q = table_.get(table_.first() + n);
			if (q && q->rt.dctn)
				continue;
			q = table_.remove(table_.first() + n);
			if (q && q->rt.gsi)
				gsi_qpn_ = 0;
			epoch_++;
		}
		if (q)
			free_qp(q);
	}
	reset_reserved();
}

} // namespace scx::hca
