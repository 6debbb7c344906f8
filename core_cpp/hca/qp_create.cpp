// SPDX-License-Identifier: GPL-2.0
// CREATE_QP, in steps: the header and context checked, the queues'
// geometry, the CQs and SRQ attached, firmware memory and the page list,
// the context image and runtime, then the QPN. Each step that fails undoes
// what the ones before it took.
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
namespace gen = prm::cmd_hca_cap;
namespace in = prm::create_qp_in;
namespace q = prm::qpc;

// What CREATE_QP asked for, as the steps work it out.
struct qp_table::create_plan {
	u8 st = 0;            // the service type the QP runs (QP1: UD)
	bool gsi = false;
	u8 rq_type = 0;
	u32 rq_wqes = 0, rq_shift = 0, log_rq = 0;
	u32 sq_wqebbs = 0, log_sq = 0;
	u32 page_shift = 0, offset = 0, sq_offset = 0, npas = 0;
	u64 dbr = 0;
	bool wq_umem = false, dbr_umem = false; // DevX: the WQs / the record in umems
	u32 pd = 0, uar = 0, counter = 0;
	u32 cqn_snd = 0, cqn_rcv = 0, srqn = 0;
	bool with_srq = false;
	u16 uid = 0;          // the creating command's (uctx.h)
	u32 slot = 0, image = 0;
};

// The header and the context's features: only what this device runs.
bool qp_table::create_check(cmd_ctx &c, const u8 *hdr, create_plan &p)
{
	const u8 *qpc = prm::at(hdr, in::qpc);
	p.uid = c.uid;
	if (prm::get(hdr, in::reserved_at_40) || prm::get(hdr, in::reserved_at_60))
		return c.fail(st::bad_param_err, synd::qp_reserved);
	if (prm::get(hdr, in::opt_param_mask))
		return c.fail(st::bad_param_err, synd::qp_bad_opt_param);
	if (prm::get(hdr, in::input_qpn))
		return c.fail(st::bad_param_err, synd::qp_input_qpn_unsupported);
	p.wq_umem = prm::get(hdr, in::wq_umem_valid);
	p.dbr_umem = prm::get(qpc, q::dbr_umem_valid);
	p.st = u8(prm::get(qpc, q::st));
	// QP1 (GSI) is a UD QP that packets address as QPN 1; one per port.
	p.gsi = p.st == prm::qpc_st::qp1;
	if (p.gsi)
		p.st = prm::qpc_st::ud;
	if (p.st != prm::qpc_st::rc && p.st != prm::qpc_st::uc && p.st != prm::qpc_st::ud &&
	    p.st != prm::qpc_st::dci)
		return c.fail(st::bad_param_err, synd::qp_bad_st);
	// Features that change what the WQEs or the buffer mean.
	if (prm::get(qpc, q::wq_signature) || prm::get(qpc, q::cd_master) || prm::get(qpc, q::cd_slave_send) ||
	    prm::get(qpc, q::cd_slave_receive) || prm::get(qpc, q::offload_type) ||
	    prm::get(qpc, q::end_padding_mode) || prm::get(qpc, q::deth_sqpn) ||
	    prm::get(qpc, q::log_num_dci_stream_channels) || prm::get(qpc, q::log_num_dci_errored_streams))
		return c.fail(st::bad_param_err, synd::qp_unsupported);
	if (prm::get(qpc, q::pm_state) != prm::qpc_pm_state::migrated)
		return c.fail(st::bad_param_err, synd::qp_bad_pm_state);
	return true;
}

// The queues' sizes and where they lie, and the objects the context names.
bool qp_table::create_geometry(cmd_ctx &c, const u8 *qpc, create_plan &p)
{
	const u8 *gcap = d_.cap->general();
	u32 log_qp_sz = prm::get(gcap, gen::log_max_qp_sz);
	p.rq_type = u8(prm::get(qpc, q::rq_type));
	if (p.rq_type == prm::qp_rq_type::non_zero) {
		p.log_rq = prm::get(qpc, q::log_rq_size);
		p.rq_shift = prm::qp_wq::min_rq_stride_shift + prm::get(qpc, q::log_rq_stride);
		if (p.log_rq > log_qp_sz || (1u << p.rq_shift) > prm::get(gcap, gen::max_wqe_sz_rq))
			return c.fail(st::bad_param_err, synd::qp_bad_rq_size);
		p.rq_wqes = 1u << p.log_rq;
	} else if (p.rq_type != prm::qp_rq_type::srq && p.rq_type != prm::qp_rq_type::zero_len) {
		return c.fail(st::bad_param_err, synd::qp_bad_rq_type);
	}
	// A DC initiator receives nothing: no RQ of its own (mlx5_ib names an
	// SRQ, which it never takes from).
	if (p.st == prm::qpc_st::dci && p.rq_type == prm::qp_rq_type::non_zero)
		return c.fail(st::bad_param_err, synd::qp_bad_rq_type);
	if (!prm::get(qpc, q::no_sq)) {
		p.log_sq = prm::get(qpc, q::log_sq_size);
		if (p.log_sq > log_qp_sz)
			return c.fail(st::bad_param_err, synd::qp_bad_sq_size);
		p.sq_wqebbs = 1u << p.log_sq;
	}
	u32 log_page = prm::get(qpc, q::log_page_size);
	if (log_page > hca_limits::max_log_page)
		return c.fail(st::bad_param_err, synd::qp_bad_page_size);
	p.dbr = prm::get(qpc, q::dbr_addr); // in a umem: an offset there
	if ((p.dbr & 7) || (!p.dbr_umem && !d_.dma->map(p.dbr, prm::qp_dbrec::size_bytes)))
		return c.fail(st::bad_param_err, synd::qp_bad_dbr);
	p.pd = prm::get(qpc, q::pd);
	if (!d_.pds->valid(p.pd))
		return c.fail(st::bad_res_err, synd::qp_bad_pd);
	p.uar = prm::get(qpc, q::uar_page);
	if (!d_.uars->valid(p.uar))
		return c.fail(st::bad_res_err, synd::uar_invalid);
	p.counter = prm::get(qpc, q::counter_set_id);
	if (p.counter && !d_.q_counters->valid(p.counter))
		return c.fail(st::bad_res_err, synd::qp_bad_counter);
	if (!uid_may_name(c.uid, d_.pds->owner(p.pd)) || !uid_may_name(c.uid, d_.uars->owner(p.uar)) ||
	    (p.counter && !uid_may_name(c.uid, d_.q_counters->owner(p.counter))))
		return c.fail(st::bad_res_err, synd::uid_foreign);
	// RQ first, then the SQ; page_offset counts 64ths of a page.
	p.page_shift = 12 + log_page;
	p.offset = prm::get(qpc, q::page_offset) << (p.page_shift - 6);
	p.sq_offset = p.rq_wqes << p.rq_shift;
	u64 bytes = u64(p.sq_offset) + u64(p.sq_wqebbs) * prm::qp_wq::send_wqe_bb;
	p.npas = bytes ? u32((p.offset + bytes + (u64(1) << p.page_shift) - 1) >> p.page_shift) : 0;
	if (p.wq_umem)
		return true; // the umem's pages, not the command's (create_memory)
	return c.need_in(in::pas.byte_off + p.npas * 8, synd::short_list);
}

// The CQs and the SRQ the QP completes to and receives from.
bool qp_table::create_attach(cmd_ctx &c, const u8 *qpc, create_plan &p)
{
	p.cqn_snd = prm::get(qpc, q::cqn_snd);
	p.cqn_rcv = prm::get(qpc, q::cqn_rcv);
	p.srqn = prm::get(qpc, q::srqn_rmpn_xrqn);
	if (!d_.cqs->attach(p.cqn_snd))
		return c.fail(st::bad_res_err, synd::qp_bad_cq);
	if (!d_.cqs->attach(p.cqn_rcv)) {
		d_.cqs->detach(p.cqn_snd);
		return c.fail(st::bad_res_err, synd::qp_bad_cq);
	}
	if (p.rq_type == prm::qp_rq_type::srq && !d_.srqs->attach(p.srqn)) {
		create_detach(p);
		return c.fail(st::bad_res_err, synd::qp_bad_srq);
	}
	p.with_srq = p.rq_type == prm::qp_rq_type::srq;
	if (!uid_may_name(c.uid, d_.cqs->owner(p.cqn_snd)) || !uid_may_name(c.uid, d_.cqs->owner(p.cqn_rcv)) ||
	    (p.with_srq && !uid_may_name(c.uid, d_.srqs->owner(p.srqn)))) {
		create_detach(p);
		return c.fail(st::bad_res_err, synd::uid_foreign);
	}
	return true;
}

void qp_table::create_detach(const create_plan &p)
{
	if (p.with_srq)
		d_.srqs->detach(p.srqn);
	d_.cqs->detach(p.cqn_rcv);
	d_.cqs->detach(p.cqn_snd);
}

// The QP's firmware memory (context, image, page list) and the spare
// transport state; nullptr (the command failed, attachments undone) if any
// is missing.
qp_ctx *qp_table::create_alloc(cmd_ctx &c, create_plan &p)
{
	auto slot = d_.pages->alloc_slot();
	auto image = slot ? d_.pages->alloc_slot() : result<u32>(errc::nomem);
	if (!slot || !image) {
		if (slot)
			d_.pages->free_slot(*slot);
		create_detach(p);
		return c.fail(st::no_res_err, synd::no_fw_memory), nullptr;
	}
	p.slot = *slot;
	p.image = *image;
	auto *qp = static_cast<qp_ctx *>(d_.pages->slot(p.slot));
	qp->slot = p.slot;
	qp->image_slot = p.image;
	qp->rt.pas = fw_list{};
	{
		lock_guard g(lock_);
		qp->rt.tp = spare_;
		spare_ = nullptr;
	}
	auto list = p.wq_umem ? result<fw_list>(fw_list{}) : d_.pages->alloc_list(p.npas);
	if (!list || !qp->rt.tp) {
		create_undo(qp, p);
		return c.fail(st::no_res_err, synd::no_fw_memory), nullptr;
	}
	qp->rt.pas = *list;
	return qp;
}

// Everything create_alloc and create_attach took.
void qp_table::create_undo(qp_ctx *qp, const create_plan &p)
{
	{
		lock_guard g(lock_);
		if (!spare_)
			spare_ = qp->rt.tp;
		else
			bury(qp->rt.tp);
	}
	d_.pages->free_list(qp->rt.pas);
	release_umems(qp->rt);
	d_.pages->free_slot(p.image);
	d_.pages->free_slot(p.slot);
	create_detach(p);
}

void qp_table::release_umems(const qp_runtime &rt)
{
	if (rt.wq_umem)
		d_.umems->release(rt.wq_umem);
	if (rt.dbr_umem)
		d_.umems->release(rt.dbr_umem);
}

// The work queues' pages (the command's, or a span of a umem) and, in a
// umem, the doorbell record; what the QP's addresses are computed from.
bool qp_table::create_memory(cmd_ctx &c, const u8 *hdr, qp_runtime &rt, create_plan &p)
{
	const u8 *qpc = prm::at(hdr, in::qpc);
	u64 bytes = u64(p.sq_offset) + u64(p.sq_wqebbs) * prm::qp_wq::send_wqe_bb;
	if (!p.wq_umem) {
		if (!create_pas(c, rt, p))
			return false;
	} else if (bytes) {
		umem_span s;
		u32 id = u32(prm::get(hdr, in::wq_umem_id));
		// The device writes received data into the RQ's scatter lists'
		// memory, not into the RQ: reading the WQs is enough.
		if (!d_.umems->take(c, id, prm::get(hdr, in::wq_umem_offset), bytes, false, &s))
			return false;
		rt.pas = s.pages;
		rt.wq_umem = u16(id);
		p.page_shift = s.page_shift;
		p.offset = s.first_offset;
	}
	if (p.dbr_umem) {
		u32 id = prm::get(qpc, q::dbr_umem_id);
		if (!d_.umems->take_address(c, id, p.dbr, prm::qp_dbrec::size_bytes, false, &p.dbr))
			return false;
		rt.dbr_umem = u16(id);
	}
	return true;
}

// The page list from the mailbox: each page aligned and reachable.
bool qp_table::create_pas(cmd_ctx &c, qp_runtime &rt, const create_plan &p)
{
	for (u32 i = 0; i < p.npas; i++) {
		c.relax_at(i);
		bool good = true;
		u64 pa = c.in_be64(in::pas.byte_off + i * 8, &good);
		if (!good || (pa & ((u64(1) << p.page_shift) - 1)) || !d_.dma->map(pa, usize(1) << p.page_shift))
			return c.fail(st::bad_param_err, synd::qp_bad_page);
		d_.pages->list_set(rt.pas, i, pa);
	}
	return true;
}

// The context image as QUERY_QP will show it in RESET, and the runtime
// the data path reads.
void qp_table::create_image(u8 *img, qp_runtime &rt, const u8 *qpc, const create_plan &p)
{
	copy_bytes(img, qpc, q::size_bytes);
	prm::set(img, q::st, p.st);
	prm::set(img, q::state, qs::rst);
	prm::set(img, q::hw_sq_wqebb_counter, 0);
	prm::set(img, q::sw_sq_wqebb_counter, 0);
	prm::set(img, q::hw_rq_counter, 0);
	prm::set(img, q::sw_rq_counter, 0);
	clear_transport(img); // RESET has none, whatever the create context held
	prm::set(img, q::counter_set_id, p.counter);
	rt.st = p.st;
	rt.gsi = p.gsi;
	rt.state = qs::rst;
	rt.rq_type = p.rq_type;
	rt.pd = p.pd;
	rt.cqn_snd = p.cqn_snd;
	rt.srqn = p.with_srq ? p.srqn : 0;
	rt.user_index = prm::get(qpc, q::user_index);
	rt.uar = p.uar;
	rt.uid = p.uid;
	rt.page_shift = u8(p.page_shift);
	rt.log_sq_size = u8(p.log_sq);
	rt.log_rq_size = u8(p.log_rq);
	rt.rq_stride_shift = u8(p.rq_shift);
	rt.page_offset = p.offset;
	rt.sq_offset = p.sq_offset;
	rt.sq_wqebbs = p.sq_wqebbs;
	rt.rq_wqes = p.rq_wqes;
	rt.dbr_addr = p.dbr;
	rt.seen_ci_snd = 0;
	rt.seen_ci_rcv = 0;
	decode(rt, img);
}

// A QPN for it, and its transport state under that number (QP1: refused if
// the port has one already).
result<u32> qp_table::create_publish(qp_ctx *qp, const create_plan &p)
{
	qp_runtime &rt = qp->rt;
	lock_guard g(lock_);
	if (p.gsi && gsi_qpn_)
		return errc::exist;
	result<u32> qpn = table_.insert(qp);
	if (!qpn)
		return qpn;
	if (p.gsi)
		gsi_qpn_ = *qpn;
	rt.qpn = *qpn;
	rt.tp->owner = &rt;
	rt.dp_active = rt.dp_timed = 0;
	// The window never holds more WQEs than the SQ can.
	if (p.sq_wqebbs && p.sq_wqebbs < rt.tp->flight_cap)
		rt.tp->flight_cap = p.sq_wqebbs;
	u32 i = *qpn - first_qpn;
	// Left by a QP whose pages were forgotten (DISABLE_HCA).
	bury(tps_[i]);
	tps_[i] = rt.tp;
	rt.tp->a.qpn = *qpn;
	epoch_++;
	return qpn;
}

void qp_table::create(cmd_ctx &c)
{
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::create_qp_out::size_bytes, synd::short_output))
		return;
	u8 hdr[in::size_bytes];
	if (!c.read_in(0, hdr, sizeof(hdr)))
		return (void)c.fail(st::bad_inp_len_err, synd::short_input);
	const u8 *qpc = prm::at(hdr, in::qpc);
	create_plan p;
	if (!create_check(c, hdr, p) || !create_geometry(c, qpc, p))
		return;
	if (live_ >= max_live())
		return (void)c.fail(st::no_res_err, synd::qp_exhausted);
	if (!create_attach(c, qpc, p))
		return;
	qp_ctx *qp = create_alloc(c, p);
	if (!qp)
		return;
	if (!create_memory(c, hdr, qp->rt, p)) {
		create_undo(qp, p);
		return;
	}
	create_image(static_cast<u8 *>(d_.pages->slot(p.image)), qp->rt, qpc, p);
	result<u32> qpn = create_publish(qp, p);
	if (!qpn) {
		create_undo(qp, p);
		if (qpn.error().code() == errc::exist)
			return (void)c.fail(st::bad_param_err, synd::qp_gsi_exists);
		return (void)c.fail(st::no_res_err, synd::qp_exhausted);
	}
	live_++;
	d_.pds->ref(p.pd);
	d_.uars->ref(p.uar);
	prm::set(c.out, prm::create_qp_out::qpn, *qpn);
}

} // namespace scx::hca
