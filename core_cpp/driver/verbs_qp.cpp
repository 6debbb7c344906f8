// SPDX-License-Identifier: GPL-2.0
// Queue pairs for user verbs: verbs attributes turned into the PRM QP
// commands (the role of mlx5_ib's qp.c state table and attribute encoding).
#include "driver/c_drv.h"
#include "driver/dct.h"
#include "driver/qp_cmds.h"
#include "prm/cmd.h"
#include "prm/dct.h"
#include "prm/qp.h"
#include "prm/srq.h"
#include "softcx/verbs.h"

using namespace scx;
namespace qc = scx::driver::cmd;

namespace {

u8 qpc_st(u32 type)
{
	switch (type) {
	case SCX_QPT_RC:
		return prm::qpc_st::rc;
	case SCX_QPT_UC:
		return prm::qpc_st::uc;
	case SCX_QPT_DCI:
		return prm::qpc_st::dci;
	default:
		return prm::qpc_st::ud;
	}
}

// log2 rounded up, for the "max outstanding reads/atomics" fields.
u8 log2_up(u32 v) { return v <= 1 ? 0 : u8(ilog2(v - 1) + 1); }

qc::qp_access_bits access_bits(u32 access)
{
	qc::qp_access_bits b;
	b.remote_read = access & SCX_ACCESS_REMOTE_READ;
	b.remote_write = access & SCX_ACCESS_REMOTE_WRITE;
	b.remote_atomic = access & SCX_ACCESS_REMOTE_ATOMIC;
	return b;
}

u32 access_optpar(u32 mask)
{
	return mask & SCX_QP_ACCESS_FLAGS ? prm::qp_optpar::rre | prm::qp_optpar::rwe | prm::qp_optpar::rae : 0;
}

// The optional parameters a transition sends: mlx5_ib's table has no DCI
// column, so a DCI's transitions carry none.
u32 optpar_for(u32 type, u32 opt) { return type == SCX_QPT_DCI ? 0 : opt; }

status to_init(driver::device &dev, u32 qpn, const scx_qp_attr &a)
{
	qc::qp_init_attr ia;
	ia.pkey_index = a.pkey_index;
	ia.port = a.port ? a.port : 1;
	ia.access = access_bits(a.access);
	ia.q_key = a.qkey;
	ia.counter_set_id = a.counter_set_id;
	return qc::rst2init_qp(dev.cmd(), qpn, qpc_st(a.type), ia);
}

status to_rtr(driver::device &dev, u32 qpn, const scx_qp_attr &a)
{
	qc::qp_rtr_attr r;
	r.mtu = a.path_mtu;
	r.remote_qpn = a.dest_qpn;
	r.rq_psn = a.rq_psn;
	r.log_rra_max = log2_up(a.max_dest_rd_atomic);
	r.min_rnr_timer = a.min_rnr_timer;
	copy_bytes(r.path.rmac, a.dmac, sizeof(r.path.rmac));
	copy_bytes(r.path.rgid, a.dgid, sizeof(r.path.rgid));
	r.path.sgid_index = a.sgid_index;
	r.path.hop_limit = a.hop_limit;
	r.path.tclass = a.tclass;
	r.path.flow_label = a.flow_label;
	r.path.udp_sport = a.udp_sport;
	r.path.sl = a.sl;
	r.path.port = a.port ? a.port : 1;
	r.opt_param_mask = access_optpar(a.mask);
	r.access = access_bits(a.access);
	if (a.mask & SCX_QP_PKEY_INDEX) {
		r.opt_param_mask |= prm::qp_optpar::pkey_index;
		r.pkey_index = a.pkey_index;
	}
	if (a.mask & SCX_QP_QKEY) {
		r.opt_param_mask |= prm::qp_optpar::q_key;
		r.q_key = a.qkey;
	}
	r.opt_param_mask = optpar_for(a.type, r.opt_param_mask);
	return qc::init2rtr_qp(dev.cmd(), qpn, qpc_st(a.type), r);
}

status to_rts(driver::device &dev, u32 qpn, const scx_qp_attr &a)
{
	qc::qp_rts_attr r;
	r.sq_psn = a.sq_psn;
	r.retry_count = a.retry_cnt;
	r.rnr_retry = a.rnr_retry;
	r.ack_timeout = a.timeout;
	r.log_sra_max = log2_up(a.max_rd_atomic);
	r.opt_param_mask = access_optpar(a.mask);
	r.access = access_bits(a.access);
	if (a.mask & SCX_QP_MIN_RNR_TIMER) {
		r.opt_param_mask |= prm::qp_optpar::rnr_timeout;
		r.min_rnr_timer = a.min_rnr_timer;
	}
	if (a.mask & SCX_QP_QKEY) {
		r.opt_param_mask |= prm::qp_optpar::q_key;
		r.q_key = a.qkey;
	}
	if (a.mask & SCX_QP_COUNTER) {
		r.opt_param_mask |= prm::qp_optpar::counter_set_id;
		r.counter_set_id = a.counter_set_id;
	}
	r.opt_param_mask = optpar_for(a.type, r.opt_param_mask);
	return qc::rtr2rts_qp(dev.cmd(), qpn, qpc_st(a.type), r);
}

// INIT->INIT and RTS->RTS: only the optional attributes in the mask change
// (the verbs rules already limited them to what each transition takes).
status modify_in_place(driver::device &dev, u16 opcode, u32 qpn, const scx_qp_attr &a)
{
	namespace q = prm::qpc;
	u8 qpc[q::size_bytes] = {};
	u32 opt = access_optpar(a.mask);
	prm::set(qpc, q::st, qpc_st(a.type));
	prm::set(qpc, q::pm_state, prm::qpc_pm_state::migrated);
	prm::set(qpc, q::rre, (a.access & SCX_ACCESS_REMOTE_READ) != 0);
	prm::set(qpc, q::rwe, (a.access & SCX_ACCESS_REMOTE_WRITE) != 0);
	prm::set(qpc, q::rae, (a.access & SCX_ACCESS_REMOTE_ATOMIC) != 0);
	if (a.mask & SCX_QP_QKEY) {
		prm::set(qpc, q::q_key, a.qkey);
		opt |= prm::qp_optpar::q_key;
	}
	if (a.mask & SCX_QP_PKEY_INDEX) {
		prm::set(prm::at(qpc, q::primary_address_path), prm::ads::pkey_index, a.pkey_index);
		opt |= prm::qp_optpar::pkey_index;
	}
	if (a.mask & SCX_QP_MIN_RNR_TIMER) {
		prm::set(qpc, q::min_rnr_nak, a.min_rnr_timer);
		opt |= prm::qp_optpar::rnr_timeout;
	}
	if (a.mask & SCX_QP_COUNTER) {
		prm::set(qpc, q::counter_set_id, a.counter_set_id);
		opt |= prm::qp_optpar::counter_set_id;
	}
	return qc::modify_qp(dev.cmd(), opcode, qpn, optpar_for(a.type, opt), qpc);
}

// A buffer's start within its first page, in the 64ths of a page the QPC
// and SRQC count (mlx5's page_offset quanta); false if it is not on one.
bool page_offset_quanta(u32 bytes, u32 page_shift, u32 *quanta)
{
	u32 quantum = u32(1) << (page_shift - 6);
	if (bytes >= (u32(1) << page_shift) || bytes % quantum)
		return false;
	*quanta = bytes / quantum;
	return true;
}

} // namespace

extern "C" {

int scx_verbs_create_qp(struct scx_drv *drv, const struct scx_qp_create_params *p, uint32_t *qpn)
{
	if (p->type != SCX_QPT_RC && p->type != SCX_QPT_UC && p->type != SCX_QPT_UD && p->type != SCX_QPT_DCI)
		return -int(errc::notsupp);
	if (p->type == SCX_QPT_DCI && p->rq_wqes)
		return -int(errc::inval);
	if ((p->sq_wqebbs && !is_pow2(p->sq_wqebbs)) || (p->rq_wqes && !is_pow2(p->rq_wqes)) ||
	    (p->rq_wqes && p->rq_wqe_shift < 4) || p->page_shift < 12 || !p->npages)
		return -int(errc::inval);
	qc::qp_params q;
	q.st = qpc_st(p->type);
	q.pd = p->pdn;
	q.cqn_snd = p->send_cqn;
	q.cqn_rcv = p->recv_cqn;
	q.uar = p->uar_index;
	q.no_sq = !p->sq_wqebbs;
	q.log_sq_size = p->sq_wqebbs ? ilog2(p->sq_wqebbs) : 0;
	if (p->has_srq) {
		q.rq_type = prm::qp_rq_type::srq;
		q.srqn = p->srqn;
	} else if (p->rq_wqes) {
		q.rq_type = prm::qp_rq_type::non_zero;
		q.log_rq_size = ilog2(p->rq_wqes);
		q.rq_wqe_shift = p->rq_wqe_shift;
	} else {
		q.rq_type = prm::qp_rq_type::zero_len;
	}
	q.user_index = p->user_index;
	q.dbr_addr = p->dbr_addr;
	q.buf.pas = p->pages;
	q.buf.npas = p->npages;
	q.buf.log_page_size = p->page_shift - 12;
	if (!page_offset_quanta(p->page_offset, p->page_shift, &q.buf.page_offset))
		return -int(errc::inval);
	q.block_lb_mc = p->block_mcast_loopback != 0;
	result<u32> n = qc::create_qp(drv->dev.cmd(), q, p->uid);
	if (!n)
		return n.error().to_errno();
	*qpn = *n;
	return 0;
}

int scx_verbs_destroy_qp(struct scx_drv *drv, uint32_t qpn)
{
	return qc::destroy_qp(drv->dev.cmd(), qpn).to_errno();
}

int scx_verbs_modify_qp(struct scx_drv *drv, uint32_t qpn, const struct scx_qp_attr *a)
{
	driver::device &dev = drv->dev;
	u32 from = a->cur_state, to = a->new_state;
	status s;
	if (to == SCX_QPS_RESET)
		s = qc::qp_to_rst(dev.cmd(), qpn);
	else if (to == SCX_QPS_ERR)
		s = qc::qp_to_err(dev.cmd(), qpn);
	else if (from == SCX_QPS_RESET && to == SCX_QPS_INIT)
		s = to_init(dev, qpn, *a);
	else if (from == SCX_QPS_INIT && to == SCX_QPS_INIT)
		s = modify_in_place(dev, prm::op::init2init_qp, qpn, *a);
	else if (from == SCX_QPS_INIT && to == SCX_QPS_RTR)
		s = to_rtr(dev, qpn, *a);
	else if (from == SCX_QPS_RTR && to == SCX_QPS_RTS)
		s = to_rts(dev, qpn, *a);
	else if (from == SCX_QPS_RTS && to == SCX_QPS_RTS)
		s = modify_in_place(dev, prm::op::rts2rts_qp, qpn, *a);
	else
		s = errc::notsupp; // SQD / SQE transitions
	return s.to_errno();
}

int scx_verbs_query_qp(struct scx_drv *drv, uint32_t qpn, struct scx_qp_attr *a)
{
	namespace q = prm::qpc;
	u8 qpc[q::size_bytes] = {};
	status s = qc::query_qp(drv->dev.cmd(), qpn, qpc);
	if (!s)
		return s.to_errno();
	static const u8 states[16] = {
		[prm::qpc_state::rst] = SCX_QPS_RESET, [prm::qpc_state::init] = SCX_QPS_INIT,
		[prm::qpc_state::rtr] = SCX_QPS_RTR,   [prm::qpc_state::rts] = SCX_QPS_RTS,
		[prm::qpc_state::sqer] = SCX_QPS_SQE,  [5] = SCX_QPS_ERR,
		[prm::qpc_state::err] = SCX_QPS_ERR,   [prm::qpc_state::sqd] = SCX_QPS_SQD,
	};
	const u8 *path = prm::at(qpc, q::primary_address_path);
	*a = {};
	a->new_state = a->cur_state = states[prm::get(qpc, q::state) & 15];
	a->qkey = prm::get(qpc, q::q_key);
	a->rq_psn = prm::get(qpc, q::next_rcv_psn);
	a->sq_psn = prm::get(qpc, q::next_send_psn);
	a->dest_qpn = prm::get(qpc, q::remote_qpn);
	a->path_mtu = u8(prm::get(qpc, q::mtu));
	a->access = (prm::get(qpc, q::rre) ? SCX_ACCESS_REMOTE_READ : 0) |
		    (prm::get(qpc, q::rwe) ? SCX_ACCESS_REMOTE_WRITE : 0) |
		    (prm::get(qpc, q::rae) ? SCX_ACCESS_REMOTE_ATOMIC : 0);
	a->timeout = u8(prm::get(path, prm::ads::ack_timeout));
	a->retry_cnt = u8(prm::get(qpc, q::retry_count));
	a->rnr_retry = u8(prm::get(qpc, q::rnr_retry));
	a->min_rnr_timer = u8(prm::get(qpc, q::min_rnr_nak));
	a->max_rd_atomic = u8(1u << prm::get(qpc, q::log_sra_max));
	a->max_dest_rd_atomic = u8(1u << prm::get(qpc, q::log_rra_max));
	a->pkey_index = u16(prm::get(path, prm::ads::pkey_index));
	a->port = 1;
	a->sgid_index = u8(prm::get(path, prm::ads::src_addr_index));
	a->hop_limit = u8(prm::get(path, prm::ads::hop_limit));
	a->tclass = u8(prm::get(path, prm::ads::tclass));
	a->flow_label = prm::get(path, prm::ads::flow_label);
	copy_bytes(a->dgid, prm::at(path, prm::ads::rgid_rip), sizeof(a->dgid));
	return 0;
}

int scx_verbs_create_srq(struct scx_drv *drv, const struct scx_srq_create_params *p, uint32_t *srqn)
{
	if (p->wqe_shift < 4 || p->page_shift < 12 || !p->npages)
		return -int(errc::inval);
	qc::srq_params q;
	q.pd = p->pdn;
	q.cqn = p->cqn;
	q.log_size = p->log_size;
	q.wqe_shift = p->wqe_shift;
	q.dbr_addr = p->dbr_addr;
	q.buf.pas = p->pages;
	q.buf.npas = p->npages;
	q.buf.log_page_size = p->page_shift - 12;
	if (!page_offset_quanta(p->page_offset, p->page_shift, &q.buf.page_offset))
		return -int(errc::inval);
	result<u32> n = qc::create_srq(drv->dev.cmd(), q, p->uid);
	if (!n)
		return n.error().to_errno();
	*srqn = *n;
	return 0;
}

int scx_verbs_destroy_srq(struct scx_drv *drv, uint32_t srqn)
{
	return qc::destroy_srq(drv->dev.cmd(), srqn).to_errno();
}

int scx_verbs_arm_srq(struct scx_drv *drv, uint32_t srqn, uint16_t limit)
{
	return qc::arm_srq(drv->dev.cmd(), srqn, limit).to_errno();
}

int scx_verbs_query_srq(struct scx_drv *drv, uint32_t srqn, uint16_t *limit)
{
	u8 srqc[prm::srqc::size_bytes] = {};
	status s = qc::query_srq(drv->dev.cmd(), srqn, srqc);
	if (!s)
		return s.to_errno();
	*limit = u16(prm::get(srqc, prm::srqc::lwm));
	return 0;
}

} // extern "C"

extern "C" {

int scx_verbs_create_dct(struct scx_drv *drv, const struct scx_dct_params *p, uint32_t *dctn)
{
	driver::cmd::dct_params d;
	d.pd = p->pdn;
	d.cqn = p->cqn;
	d.srqn = p->srqn;
	d.user_index = p->user_index;
	d.dc_key = p->dc_key;
	d.rre = p->access & SCX_ACCESS_REMOTE_READ;
	d.rwe = p->access & SCX_ACCESS_REMOTE_WRITE;
	d.rae = p->access & SCX_ACCESS_REMOTE_ATOMIC;
	d.port = p->port ? p->port : 1;
	d.mtu = p->path_mtu;
	d.min_rnr_timer = p->min_rnr_timer;
	d.sgid_index = p->sgid_index;
	d.hop_limit = p->hop_limit;
	d.tclass = p->tclass;
	d.pkey_index = p->pkey_index;
	d.flow_label = p->flow_label;
	d.eth_prio = p->sl & 7;
	result<u32> n = driver::cmd::create_dct(drv->dev.cmd(), d, p->uid);
	if (!n)
		return n.error().to_errno();
	*dctn = *n;
	return 0;
}

int scx_verbs_dc_modify_ok(uint32_t type, uint32_t cur, uint32_t next, uint32_t mask)
{
	// Exactly the required attributes, and optional ones at most.
	auto exact = [&](u32 req, u32 opt) {
		req |= SCX_QP_STATE;
		return (mask & req) == req && !(mask & ~(req | opt)) ? 0 : -int(errc::inval);
	};
	if (!(mask & SCX_QP_STATE))
		return -int(errc::inval);
	if (type == SCX_QPT_DCT) {
		if (cur == SCX_QPS_RESET && next == SCX_QPS_INIT)
			return exact(SCX_QP_ACCESS_FLAGS | SCX_QP_PKEY_INDEX | SCX_QP_PORT, 0);
		if (cur == SCX_QPS_INIT && next == SCX_QPS_RTR)
			return exact(SCX_QP_MIN_RNR_TIMER | SCX_QP_AV | SCX_QP_PATH_MTU, 0);
		return -int(errc::inval);
	}
	if (type != SCX_QPT_DCI)
		return -int(errc::inval);
	if (next == SCX_QPS_RESET)
		return exact(0, 0);
	if (cur == SCX_QPS_RESET && next == SCX_QPS_INIT)
		return exact(SCX_QP_PKEY_INDEX | SCX_QP_PORT, 0);
	if (cur == SCX_QPS_INIT && next == SCX_QPS_INIT)
		return exact(0, SCX_QP_PKEY_INDEX | SCX_QP_PORT);
	if (cur == SCX_QPS_INIT && next == SCX_QPS_RTR)
		return exact(SCX_QP_PATH_MTU, SCX_QP_PKEY_INDEX | SCX_QP_AV);
	if (cur == SCX_QPS_RTR && next == SCX_QPS_RTS)
		return exact(SCX_QP_TIMEOUT | SCX_QP_RETRY_CNT | SCX_QP_RNR_RETRY | SCX_QP_MAX_QP_RD_ATOMIC |
				     SCX_QP_SQ_PSN,
			     SCX_QP_MIN_RNR_TIMER);
	if (cur == SCX_QPS_RTS && next == SCX_QPS_RTS)
		return exact(0, SCX_QP_MIN_RNR_TIMER);
	if (cur != SCX_QPS_RESET && next == SCX_QPS_ERR)
		return exact(0, 0);
	return -int(errc::inval);
}

int scx_verbs_destroy_dct(struct scx_drv *drv, uint32_t dctn, uint16_t uid)
{
	return driver::end_dct(drv->dev, dctn, uid).to_errno();
}

int scx_verbs_query_dct(struct scx_drv *drv, uint32_t dctn, uint8_t *state, uint32_t *key_violations)
{
	u8 dctc[prm::dctc::size_bytes] = {};
	status s = driver::cmd::query_dct(drv->dev.cmd(), dctn, dctc);
	if (!s)
		return s.to_errno();
	*state = u8(prm::get(dctc, prm::dctc::state));
	*key_violations = prm::get(dctc, prm::dctc::dc_access_key_violation_count);
	return 0;
}

int scx_verbs_arm_dct(struct scx_drv *drv, uint32_t dctn)
{
	return driver::cmd::arm_dct(drv->dev.cmd(), dctn).to_errno();
}

} // extern "C"
