// SPDX-License-Identifier: GPL-2.0
#include "hca/qp.h"

#include "hca/syndrome.h"
#include "hca/tp.h"
#include "prm/hca_cap.h"
#include "prm/qp.h"

namespace scx::hca {

namespace st = prm::cmd_stat;
namespace qs = prm::qpc_state;
namespace opt = prm::qp_optpar;
namespace gen = prm::cmd_hca_cap;

namespace {

constexpr u8 any_state = 0xff;

// One PRM transition: the state it needs, the state it leaves, and the
// optional parameters it takes per service type (RC, UC, UD): mlx5_ib's
// opt_mask table without the alternate path.
struct transition {
	u16 opcode;
	u8 from;
	u8 to;
	bool has_qpc;
	u32 allowed[3];
};

constexpr u32 init2init_rc = opt::rre | opt::rae | opt::rwe | opt::pkey_index | opt::pri_port | opt::lag_tx_aff;
constexpr u32 init2rtr_rc = opt::rre | opt::rae | opt::rwe | opt::pkey_index | opt::lag_tx_aff;
constexpr u32 rtr2rts_rc = opt::rre | opt::rae | opt::rwe | opt::pm_state | opt::rnr_timeout;
constexpr u32 to_rts_rc = opt::rnr_timeout | opt::rwe | opt::rae | opt::rre;

constexpr transition transitions[] = {
	{prm::op::rst2init_qp, qs::rst, qs::init, true, {0, 0, 0}},
	{prm::op::init2init_qp, qs::init, qs::init, true,
	 {init2init_rc, opt::rwe | opt::pkey_index | opt::pri_port | opt::lag_tx_aff,
	  opt::pkey_index | opt::q_key | opt::pri_port}},
	{prm::op::init2rtr_qp, qs::init, qs::rtr, true,
	 {init2rtr_rc, opt::rwe | opt::pkey_index | opt::lag_tx_aff, opt::pkey_index | opt::q_key}},
	// A QP moves to another counter set on its way to RTS or in it (as
	// mlx5_ib binds a QP to a counter).
	{prm::op::rtr2rts_qp, qs::rtr, qs::rts, true,
	 {rtr2rts_rc | opt::counter_set_id, opt::rwe | opt::pm_state | opt::counter_set_id,
	  opt::q_key | opt::counter_set_id}},
	{prm::op::rts2rts_qp, qs::rts, qs::rts, true,
	 {rtr2rts_rc | opt::counter_set_id, opt::rwe | opt::pm_state | opt::counter_set_id,
	  opt::q_key | opt::srqn | opt::cqn_rcv | opt::counter_set_id}},
	{prm::op::sqerr2rts_qp, qs::sqer, qs::rts, true, {to_rts_rc, opt::rwe, opt::q_key}},
	{prm::op::sqd_rts_qp, qs::sqd, qs::rts, true, {to_rts_rc, opt::rwe, opt::q_key}},
	{prm::op::qp_2err, any_state, qs::err, false, {0, 0, 0}},
	{prm::op::qp_2rst, any_state, qs::rst, false, {0, 0, 0}},
};

const transition *find_transition(u16 opcode)
{
	for (const auto &t : transitions)
		if (t.opcode == opcode)
			return &t;
	return nullptr;
}

u32 st_index(u8 st)
{
	return st == prm::qpc_st::rc ? 0 : st == prm::qpc_st::uc ? 1 : 2;
}

template <typename F> void take(u8 *dst, const u8 *src, F f) { prm::set(dst, f, prm::get(src, f)); }

// The primary path's RoCE fields (INIT2RTR), not pkey_index (RST2INIT or
// its optional bit) nor ack_timeout (RTR2RTS).
void take_path(u8 *dst, const u8 *src)
{
	namespace a = prm::ads;
	take(dst, src, a::fl);
	take(dst, src, a::free_ar);
	take(dst, src, a::grh);
	take(dst, src, a::mlid);
	take(dst, src, a::rlid);
	take(dst, src, a::src_addr_index);
	take(dst, src, a::stat_rate);
	take(dst, src, a::hop_limit);
	take(dst, src, a::tclass);
	take(dst, src, a::flow_label);
	copy_bytes(prm::at(dst, a::rgid_rip), prm::at(src, a::rgid_rip), a::rgid_rip.size);
	take(dst, src, a::f_dscp);
	take(dst, src, a::f_ecn);
	take(dst, src, a::f_eth_prio);
	take(dst, src, a::ecn);
	take(dst, src, a::dscp);
	take(dst, src, a::udp_sport);
	take(dst, src, a::dei_cfi);
	take(dst, src, a::eth_prio);
	take(dst, src, a::sl);
	take(dst, src, a::rmac_47_32);
	take(dst, src, a::rmac_31_0);
	if (prm::get(src, a::vhca_port_num))
		take(dst, src, a::vhca_port_num);
}

// Into the image: what transition t takes from qpc for service type st.
void merge(u8 *img, const u8 *qpc, const transition &t, u8 st, u32 mask)
{
	namespace q = prm::qpc;
	u8 *ipath = prm::at(img, q::primary_address_path);
	const u8 *path = prm::at(qpc, q::primary_address_path);
	const bool rc = st == prm::qpc_st::rc, uc = st == prm::qpc_st::uc, ud = st == prm::qpc_st::ud;
	switch (t.opcode) {
	case prm::op::rst2init_qp:
		if (rc) {
			take(img, qpc, q::rre);
			take(img, qpc, q::rwe);
			take(img, qpc, q::rae);
			take(img, qpc, q::atomic_mode);
		}
		if (uc)
			take(img, qpc, q::rwe);
		if (ud)
			take(img, qpc, q::q_key);
		take(ipath, path, prm::ads::pkey_index);
		take(ipath, path, prm::ads::vhca_port_num);
		take(img, qpc, q::counter_set_id);
		break;
	case prm::op::init2rtr_qp:
		take(img, qpc, q::mtu);
		take(img, qpc, q::log_msg_max);
		if (rc || uc) {
			take(img, qpc, q::remote_qpn);
			take(img, qpc, q::next_rcv_psn);
			take_path(ipath, path);
		}
		if (rc) {
			take(img, qpc, q::log_rra_max);
			take(img, qpc, q::min_rnr_nak);
		}
		break;
	case prm::op::rtr2rts_qp:
		take(img, qpc, q::next_send_psn);
		if (rc) {
			take(img, qpc, q::retry_count);
			take(img, qpc, q::rnr_retry);
			take(img, qpc, q::log_sra_max);
			take(img, qpc, q::log_ack_req_freq);
			take(ipath, path, prm::ads::ack_timeout);
		}
		break;
	default:
		break;
	}
	if (mask & opt::rre)
		take(img, qpc, q::rre);
	if (mask & opt::rwe)
		take(img, qpc, q::rwe);
	if (mask & opt::rae) {
		take(img, qpc, q::rae);
		take(img, qpc, q::atomic_mode);
	}
	if (mask & opt::pkey_index)
		take(ipath, path, prm::ads::pkey_index);
	if (mask & opt::pri_port)
		take(ipath, path, prm::ads::vhca_port_num);
	if (mask & opt::q_key)
		take(img, qpc, q::q_key);
	if (mask & opt::rnr_timeout)
		take(img, qpc, q::min_rnr_nak);
	if (mask & opt::pm_state)
		take(img, qpc, q::pm_state);
	if (mask & opt::lag_tx_aff)
		take(img, qpc, q::lag_tx_port_affinity);
	if (mask & opt::cqn_rcv)
		take(img, qpc, q::cqn_rcv);
	if (mask & opt::srqn)
		take(img, qpc, q::srqn_rmpn_xrqn);
	if (mask & opt::counter_set_id)
		take(img, qpc, q::counter_set_id);
}

// 2RST: the transport attributes go back to nothing; what CREATE_QP set stays.
void clear_transport(u8 *img)
{
	namespace q = prm::qpc;
	prm::set(img, q::lag_tx_port_affinity, 0);
	prm::set(img, q::mtu, 0);
	prm::set(img, q::log_msg_max, 0);
	prm::set(img, q::counter_set_id, 0);
	prm::set(img, q::remote_qpn, 0);
	zero_bytes(prm::at(img, q::primary_address_path), q::primary_address_path.size);
	zero_bytes(prm::at(img, q::secondary_address_path), q::secondary_address_path.size);
	prm::set(img, q::log_ack_req_freq, 0);
	prm::set(img, q::log_sra_max, 0);
	prm::set(img, q::retry_count, 0);
	prm::set(img, q::rnr_retry, 0);
	prm::set(img, q::next_send_psn, 0);
	prm::set(img, q::log_rra_max, 0);
	prm::set(img, q::atomic_mode, 0);
	prm::set(img, q::rre, 0);
	prm::set(img, q::rwe, 0);
	prm::set(img, q::rae, 0);
	prm::set(img, q::min_rnr_nak, 0);
	prm::set(img, q::next_rcv_psn, 0);
	prm::set(img, q::q_key, 0);
}

// The runtime's view of the attributes held in the image.
void decode(qp_runtime &rt, const u8 *img)
{
	namespace q = prm::qpc;
	namespace a = prm::ads;
	const u8 *p = prm::at(img, q::primary_address_path);
	rt.cqn_rcv = prm::get(img, q::cqn_rcv);
	if (rt.rq_type == prm::qp_rq_type::srq)
		rt.srqn = prm::get(img, q::srqn_rmpn_xrqn);
	rt.mtu = u8(prm::get(img, q::mtu));
	rt.log_msg_max = u8(prm::get(img, q::log_msg_max));
	u8 acc = 0;
	if (rt.st == prm::qpc_st::rc) {
		acc |= prm::get(img, q::rre) ? qp_access::remote_read : 0;
		acc |= prm::get(img, q::rae) ? qp_access::remote_atomic : 0;
	}
	if (rt.st != prm::qpc_st::ud)
		acc |= prm::get(img, q::rwe) ? qp_access::remote_write : 0;
	rt.access = acc;
	rt.atomic_mode = u8(prm::get(img, q::atomic_mode));
	rt.retry_count = u8(prm::get(img, q::retry_count));
	rt.rnr_retry = u8(prm::get(img, q::rnr_retry));
	rt.min_rnr_nak = u8(prm::get(img, q::min_rnr_nak));
	rt.log_sra_max = u8(prm::get(img, q::log_sra_max));
	rt.log_ack_req_freq = u8(prm::get(img, q::log_ack_req_freq));
	rt.log_rra_max = u8(prm::get(img, q::log_rra_max));
	rt.pm_state = u8(prm::get(img, q::pm_state));
	rt.counter_set_id = u8(prm::get(img, q::counter_set_id));
	rt.cs_req = u8(prm::get(img, q::cs_req));
	rt.cs_res = u8(prm::get(img, q::cs_res));
	rt.rlky = u8(prm::get(img, q::rlky));
	rt.remote_qpn = prm::get(img, q::remote_qpn);
	rt.q_key = prm::get(img, q::q_key);
	rt.next_send_psn = prm::get(img, q::next_send_psn);
	rt.next_rcv_psn = prm::get(img, q::next_rcv_psn);
	qp_path &path = rt.path;
	store_be<u16>(path.rmac, u16(prm::get(p, a::rmac_47_32)));
	store_be<u32>(path.rmac + 2, prm::get(p, a::rmac_31_0));
	copy_bytes(path.rgid, prm::at(p, a::rgid_rip), sizeof(path.rgid));
	path.src_addr_index = u8(prm::get(p, a::src_addr_index));
	path.hop_limit = u8(prm::get(p, a::hop_limit));
	path.tclass = u8(prm::get(p, a::tclass));
	path.dscp = u8(prm::get(p, a::dscp));
	path.eth_prio = u8(prm::get(p, a::eth_prio));
	path.ack_timeout = u8(prm::get(p, a::ack_timeout));
	path.vhca_port_num = u8(prm::get(p, a::vhca_port_num));
	path.pkey_index = u16(prm::get(p, a::pkey_index));
	path.udp_sport = u16(prm::get(p, a::udp_sport));
	path.flow_label = prm::get(p, a::flow_label);
}

u32 path_mtu_bytes(u8 mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128u << mtu : 4096u;
}

// The transport state follows the context: the attributes every time,
// the responder's PSN at RTR, the requester's at RTS, nothing at RESET.
void sync_transport(qp_runtime &rt, u8 from)
{
	tp_qp &t = *rt.tp;
	if (rt.state == qs::rst) {
		tp_qp_reset(t);
		return;
	}
	tp_qp_attr &a = t.a;
	a.st = rt.st == prm::qpc_st::rc ? tp_st::rc : rt.st == prm::qpc_st::uc ? tp_st::uc : tp_st::ud;
	a.qpn = rt.qpn;
	a.dest_qpn = rt.remote_qpn;
	a.mtu = path_mtu_bytes(rt.mtu);
	a.sq_psn = rt.next_send_psn;
	a.rq_psn = rt.next_rcv_psn;
	a.retry_cnt = rt.retry_count;
	a.rnr_retry = rt.rnr_retry;
	a.min_rnr_timer = rt.min_rnr_nak;
	a.timeout = rt.path.ack_timeout;
	a.max_rd_atomic = u8(1u << min<u32>(rt.log_sra_max, hca_limits::log_max_ra));
	a.max_dest_rd_atomic = u8(1u << min<u32>(rt.log_rra_max, hca_limits::log_max_ra));
	a.log_ack_req_freq = rt.log_ack_req_freq;
	a.qkey = rt.q_key;
	a.route = &rt.path;
	if (rt.state == qs::rtr && from == qs::init)
		transport::start_responder(t);
	if (rt.state == qs::rts && from == qs::rtr)
		transport::start_requester(t);
}

} // namespace

status qp_table::init(const qp_deps &deps, u32 log_max_qp)
{
	d_ = deps;
	SCX_TRY(lock_.init(lock_class::hca_qp));
	ntps_ = (1u << log_max_qp) - first_qpn;
	tps_ = static_cast<tp_qp **>(alloc_bytes(sizeof(tp_qp *) * ntps_));
	if (!tps_)
		return errc::nomem;
	return table_.init(first_qpn, ntps_);
}

qp_table::~qp_table()
{
	collect();
	for (u32 i = 0; tps_ && i < ntps_; i++)
		tp_qp_delete(tps_[i]);
	free_bytes(tps_);
	tp_qp_delete(spare_);
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

void qp_table::create(cmd_ctx &c)
{
	namespace in = prm::create_qp_in;
	namespace q = prm::qpc;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::create_qp_out::size_bytes, synd::short_output))
		return;
	u8 hdr[in::size_bytes];
	if (!c.read_in(0, hdr, sizeof(hdr)))
		return (void)c.fail(st::bad_inp_len_err, synd::short_input);
	const u8 *qpc = prm::at(hdr, in::qpc);
	const u8 *gcap = d_.cap->general();

	if (prm::get(hdr, in::reserved_at_40) || prm::get(hdr, in::reserved_at_60))
		return (void)c.fail(st::bad_param_err, synd::qp_reserved);
	if (prm::get(hdr, in::opt_param_mask))
		return (void)c.fail(st::bad_param_err, synd::qp_bad_opt_param);
	if (prm::get(hdr, in::input_qpn))
		return (void)c.fail(st::bad_param_err, synd::qp_input_qpn_unsupported);
	if (prm::get(hdr, in::wq_umem_valid) || prm::get(qpc, q::dbr_umem_valid))
		return (void)c.fail(st::bad_param_err, synd::qp_umem_unsupported);
	u8 qst = u8(prm::get(qpc, q::st));
	if (qst != prm::qpc_st::rc && qst != prm::qpc_st::uc && qst != prm::qpc_st::ud)
		return (void)c.fail(st::bad_param_err, synd::qp_bad_st);
	// Features that change what the WQEs or the buffer mean.
	if (prm::get(qpc, q::wq_signature) || prm::get(qpc, q::cd_master) || prm::get(qpc, q::cd_slave_send) ||
	    prm::get(qpc, q::cd_slave_receive) || prm::get(qpc, q::offload_type) ||
	    prm::get(qpc, q::end_padding_mode) || prm::get(qpc, q::deth_sqpn) ||
	    prm::get(qpc, q::log_num_dci_stream_channels) || prm::get(qpc, q::log_num_dci_errored_streams))
		return (void)c.fail(st::bad_param_err, synd::qp_unsupported);
	if (prm::get(qpc, q::pm_state) != prm::qpc_pm_state::migrated)
		return (void)c.fail(st::bad_param_err, synd::qp_bad_pm_state);

	u32 log_qp_sz = prm::get(gcap, gen::log_max_qp_sz);
	u32 max_rq_stride = prm::get(gcap, gen::max_wqe_sz_rq);
	u8 rq_type = u8(prm::get(qpc, q::rq_type));
	u32 rq_wqes = 0, rq_shift = 0, log_rq = 0;
	if (rq_type == prm::qp_rq_type::non_zero) {
		log_rq = prm::get(qpc, q::log_rq_size);
		rq_shift = prm::qp_wq::min_rq_stride_shift + prm::get(qpc, q::log_rq_stride);
		if (log_rq > log_qp_sz || (1u << rq_shift) > max_rq_stride)
			return (void)c.fail(st::bad_param_err, synd::qp_bad_rq_size);
		rq_wqes = 1u << log_rq;
	} else if (rq_type != prm::qp_rq_type::srq && rq_type != prm::qp_rq_type::zero_len) {
		return (void)c.fail(st::bad_param_err, synd::qp_bad_rq_type);
	}
	u32 sq_wqebbs = 0, log_sq = 0;
	if (!prm::get(qpc, q::no_sq)) {
		log_sq = prm::get(qpc, q::log_sq_size);
		if (log_sq > log_qp_sz)
			return (void)c.fail(st::bad_param_err, synd::qp_bad_sq_size);
		sq_wqebbs = 1u << log_sq;
	}
	u32 log_page = prm::get(qpc, q::log_page_size);
	if (log_page > hca_limits::max_log_page)
		return (void)c.fail(st::bad_param_err, synd::qp_bad_page_size);
	u64 dbr = prm::get(qpc, q::dbr_addr);
	if ((dbr & 7) || !d_.dma->map(dbr, prm::qp_dbrec::size_bytes))
		return (void)c.fail(st::bad_param_err, synd::qp_bad_dbr);
	u32 pd = prm::get(qpc, q::pd);
	if (!d_.pds->valid(pd))
		return (void)c.fail(st::bad_res_err, synd::qp_bad_pd);
	u32 uar = prm::get(qpc, q::uar_page);
	if (!d_.uars->valid(uar))
		return (void)c.fail(st::bad_res_err, synd::uar_invalid);
	u32 counter = prm::get(qpc, q::counter_set_id);
	if (counter && !d_.q_counters->valid(counter))
		return (void)c.fail(st::bad_res_err, synd::qp_bad_counter);

	// RQ first, then the SQ; page_offset counts 64ths of a page.
	u32 page_shift = 12 + log_page;
	u32 offset = prm::get(qpc, q::page_offset) << (page_shift - 6);
	u32 sq_offset = rq_wqes << rq_shift;
	u64 bytes = u64(sq_offset) + u64(sq_wqebbs) * prm::qp_wq::send_wqe_bb;
	u32 npas = bytes ? u32((offset + bytes + (u64(1) << page_shift) - 1) >> page_shift) : 0;
	if (!c.need_in(in::pas.byte_off + npas * 8, synd::short_list))
		return;
	if (live_ >= max_live())
		return (void)c.fail(st::no_res_err, synd::qp_exhausted);

	// The objects it uses; undone in reverse on any later failure.
	u32 cqn_snd = prm::get(qpc, q::cqn_snd), cqn_rcv = prm::get(qpc, q::cqn_rcv);
	u32 srqn = prm::get(qpc, q::srqn_rmpn_xrqn);
	bool with_srq = rq_type == prm::qp_rq_type::srq;
	if (!d_.cqs->attach(cqn_snd))
		return (void)c.fail(st::bad_res_err, synd::qp_bad_cq);
	if (!d_.cqs->attach(cqn_rcv)) {
		d_.cqs->detach(cqn_snd);
		return (void)c.fail(st::bad_res_err, synd::qp_bad_cq);
	}
	auto undo_attach = [&] {
		if (with_srq)
			d_.srqs->detach(srqn);
		d_.cqs->detach(cqn_rcv);
		d_.cqs->detach(cqn_snd);
	};
	if (with_srq && !d_.srqs->attach(srqn)) {
		with_srq = false;
		undo_attach();
		return (void)c.fail(st::bad_res_err, synd::qp_bad_srq);
	}

	auto slot = d_.pages->alloc_slot();
	if (!slot) {
		undo_attach();
		return (void)c.fail(st::no_res_err, synd::no_fw_memory);
	}
	auto image = d_.pages->alloc_slot();
	if (!image) {
		d_.pages->free_slot(*slot);
		undo_attach();
		return (void)c.fail(st::no_res_err, synd::no_fw_memory);
	}
	auto *qp = static_cast<qp_ctx *>(d_.pages->slot(*slot));
	u8 *img = static_cast<u8 *>(d_.pages->slot(*image));
	qp->slot = *slot;
	qp->image_slot = *image;
	qp->rt.pas = fw_list{};
	{
		lock_guard g(lock_);
		qp->rt.tp = spare_;
		spare_ = nullptr;
	}
	auto undo_mem = [&] {
		lock_guard g(lock_);
		if (!spare_)
			spare_ = qp->rt.tp;
		else
			bury(qp->rt.tp);
		d_.pages->free_list(qp->rt.pas);
		d_.pages->free_slot(*image);
		d_.pages->free_slot(*slot);
		undo_attach();
	};
	auto list = d_.pages->alloc_list(npas);
	if (!list || !qp->rt.tp) {
		undo_mem();
		return (void)c.fail(st::no_res_err, synd::no_fw_memory);
	}
	qp_runtime &rt = qp->rt;
	rt.pas = *list;
	for (u32 i = 0; i < npas; i++) {
		c.relax_at(i);
		bool good = true;
		u64 pa = c.in_be64(in::pas.byte_off + i * 8, &good);
		if (!good || (pa & ((u64(1) << page_shift) - 1)) || !d_.dma->map(pa, usize(1) << page_shift)) {
			undo_mem();
			return (void)c.fail(st::bad_param_err, synd::qp_bad_page);
		}
		d_.pages->list_set(rt.pas, i, pa);
	}

	copy_bytes(img, qpc, q::size_bytes);
	prm::set(img, q::state, qs::rst);
	prm::set(img, q::hw_sq_wqebb_counter, 0);
	prm::set(img, q::sw_sq_wqebb_counter, 0);
	prm::set(img, q::hw_rq_counter, 0);
	prm::set(img, q::sw_rq_counter, 0);
	clear_transport(img); // RESET has none, whatever the create context held
	prm::set(img, q::counter_set_id, counter);
	rt.st = qst;
	rt.state = qs::rst;
	rt.rq_type = rq_type;
	rt.pd = pd;
	rt.cqn_snd = cqn_snd;
	rt.srqn = with_srq ? srqn : 0;
	rt.user_index = prm::get(qpc, q::user_index);
	rt.uar = uar;
	rt.page_shift = u8(page_shift);
	rt.log_sq_size = u8(log_sq);
	rt.log_rq_size = u8(log_rq);
	rt.rq_stride_shift = u8(rq_shift);
	rt.page_offset = offset;
	rt.sq_offset = sq_offset;
	rt.sq_wqebbs = sq_wqebbs;
	rt.rq_wqes = rq_wqes;
	rt.dbr_addr = dbr;
	decode(rt, img);

	result<u32> qpn = errc::nospc;
	{
		lock_guard g(lock_);
		qpn = table_.insert(qp);
		if (qpn) {
			rt.qpn = *qpn;
			rt.tp->owner = &rt;
			rt.dp_active = rt.dp_timed = 0;
			// The window never holds more WQEs than the SQ can.
			if (sq_wqebbs && sq_wqebbs < rt.tp->flight_cap)
				rt.tp->flight_cap = sq_wqebbs;
			u32 i = *qpn - first_qpn;
			// Left by a QP whose pages were forgotten (DISABLE_HCA).
			bury(tps_[i]);
			tps_[i] = rt.tp;
			rt.tp->a.qpn = *qpn;
			epoch_++;
		}
	}
	if (!qpn) {
		undo_mem();
		return (void)c.fail(st::no_res_err, synd::qp_exhausted);
	}
	live_++;
	d_.pds->ref(pd);
	d_.uars->ref(uar);
	prm::set(c.out, prm::create_qp_out::qpn, *qpn);
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
	if (!lookup(qpn, &now))
		return (void)c.fail(st::bad_res_err, synd::qp_invalid);
	if (t->from != any_state && now.state != t->from)
		return (void)c.fail(st::bad_qp_state_err, synd::qp_bad_state);
	if (mask & ~t->allowed[st_index(now.st)])
		return (void)c.fail(st::bad_param_err, synd::qp_bad_opt_param);

	// Values the transition is about to take.
	namespace q = prm::qpc;
	namespace a = prm::ads;
	const u8 *gcap = d_.cap->general();
	const u8 *path = prm::at(qpc, q::primary_address_path);
	const bool rc = now.st == prm::qpc_st::rc, conn = now.st != prm::qpc_st::ud;
	u32 pkeys = 128u << prm::get(gcap, gen::pkey_table_size);
	u32 ports = prm::get(gcap, gen::num_ports);
	u32 log_ra = prm::get(gcap, gen::log_max_ra_res_qp);
	u32 log_ra_req = prm::get(gcap, gen::log_max_ra_req_qp);
	bool init_attrs = c.opcode == prm::op::rst2init_qp;
	if (init_attrs || (mask & opt::pri_port)) {
		u32 port = prm::get(path, a::vhca_port_num);
		if (port < 1 || port > ports)
			return (void)c.fail(st::bad_param_err, synd::qp_bad_port);
	}
	if ((init_attrs || (mask & opt::pkey_index)) && prm::get(path, a::pkey_index) >= pkeys)
		return (void)c.fail(st::bad_param_err, synd::qp_bad_pkey);
	if (init_attrs || (mask & opt::counter_set_id)) {
		u32 counter = prm::get(qpc, q::counter_set_id);
		if (counter && !d_.q_counters->valid(counter))
			return (void)c.fail(st::bad_res_err, synd::qp_bad_counter);
	}
	if (((init_attrs && rc) || (mask & opt::rae)) && prm::get(qpc, q::rae) &&
	    prm::get(qpc, q::atomic_mode) > prm::qpc_atomic_mode::up_to_8b)
		return (void)c.fail(st::bad_param_err, synd::qp_unsupported);
	if (c.opcode == prm::op::init2rtr_qp && conn) {
		u32 mtu = prm::get(qpc, q::mtu);
		if (mtu < prm::qpc_mtu::bytes_256 || mtu > prm::qpc_mtu::bytes_4k)
			return (void)c.fail(st::bad_param_err, synd::qp_bad_mtu);
		// Its packets must fit the port's frames (a jumbo path MTU
		// needs a jumbo netdev).
		if (mtu > d_.port->max_path_mtu())
			return (void)c.fail(st::bad_param_err, synd::qp_mtu_over_port);
		if (prm::get(qpc, q::log_msg_max) > prm::get(gcap, gen::log_max_msg))
			return (void)c.fail(st::bad_param_err, synd::qp_bad_msg_max);
		if (prm::get(qpc, q::remote_qpn) < first_qpn)
			return (void)c.fail(st::bad_param_err, synd::qp_bad_remote_qpn);
		if (prm::get(path, a::src_addr_index) >= prm::get(gcap, gen::gid_table_size))
			return (void)c.fail(st::bad_param_err, synd::qp_bad_gid_index);
		if (prm::get(path, a::vhca_port_num) > ports)
			return (void)c.fail(st::bad_param_err, synd::qp_bad_port);
		if (rc && prm::get(qpc, q::log_rra_max) > log_ra)
			return (void)c.fail(st::bad_param_err, synd::qp_bad_rd_atomic);
	}
	if (c.opcode == prm::op::rtr2rts_qp && rc && prm::get(qpc, q::log_sra_max) > log_ra_req)
		return (void)c.fail(st::bad_param_err, synd::qp_bad_rd_atomic);
	if ((mask & opt::pm_state) && prm::get(qpc, q::pm_state) != prm::qpc_pm_state::migrated)
		return (void)c.fail(st::bad_param_err, synd::qp_bad_pm_state);

	// A new receive CQ or SRQ (UD RTS2RTS): attach the new one first.
	u32 new_cq = prm::get(qpc, q::cqn_rcv), new_srq = prm::get(qpc, q::srqn_rmpn_xrqn);
	if ((mask & opt::srqn) && now.rq_type != prm::qp_rq_type::srq)
		return (void)c.fail(st::bad_param_err, synd::qp_bad_opt_param);
	if ((mask & opt::cqn_rcv) && !d_.cqs->attach(new_cq))
		return (void)c.fail(st::bad_res_err, synd::qp_bad_cq);
	if ((mask & opt::srqn) && !d_.srqs->attach(new_srq)) {
		if (mask & opt::cqn_rcv)
			d_.cqs->detach(new_cq);
		return (void)c.fail(st::bad_res_err, synd::qp_bad_srq);
	}

	qp_ctx *qp;
	{
		lock_guard g(lock_);
		qp = table_.get(qpn);
		if (qp) {
			u8 *img = static_cast<u8 *>(d_.pages->slot(qp->image_slot));
			qp_runtime &rt = qp->rt;
			if (t->to == qs::rst) {
				clear_transport(img);
				rt.sq_ci = 0;
				rt.rq_ci = 0;
				rt.flush_pending = 0;
				rt.comm_est = 0;
				rt.last_wqe = 0;
			} else if (t->to == qs::err) {
				// Work posted before is flushed by the data path.
				if (rt.state != qs::rst)
					rt.flush_pending = 1;
			} else {
				merge(img, qpc, *t, rt.st, mask);
			}
			u8 from = rt.state;
			rt.state = t->to;
			prm::set(img, q::state, t->to);
			decode(rt, img);
			sync_transport(rt, from);
			rt.generation++;
			state_epoch_++;
		}
	}
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
		if (!qp)
			return (void)c.fail(st::bad_res_err, synd::qp_invalid);
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
		qp = table_.remove(prm::get(c.in, in::qpn));
		epoch_++;
	}
	if (!qp)
		return (void)c.fail(st::bad_res_err, synd::qp_invalid);
	free_qp(qp);
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
			q = table_.remove(table_.first() + n);
			epoch_++;
		}
		if (q)
			free_qp(q);
	}
}

} // namespace scx::hca
