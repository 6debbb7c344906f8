// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel verbs: CQs and QPs of kernel consumers (ib_mad, rdma_cm, NVMe over
 * RDMA), on rings the driver owns (softcx/kverbs.h writes the WQEs and
 * decodes the CQEs). post_send and create_ah may be called with interrupts
 * off under the caller's spinlocks: nothing on those paths sleeps.
 */
#include "kmod.h"

#include <rdma/ib_cache.h>

#include "ib_priv.h"
#include "softcx/kverbs.h"

/* ib_sge is what the core hands over; scx_ksge has its layout. */
static_assert(sizeof(struct ib_sge) == sizeof(struct scx_ksge));
static_assert(offsetof(struct ib_sge, addr) == offsetof(struct scx_ksge, addr));
static_assert(offsetof(struct ib_sge, length) == offsetof(struct scx_ksge, length));
static_assert(offsetof(struct ib_sge, lkey) == offsetof(struct scx_ksge, lkey));

/* CQEs decoded per call into the device's ring. */
#define SCX_POLL_BATCH 16

static void scx_kcq_comp(struct scx_drv_cq *dcq, void *ctx)
{
	scx_ib_cq_comp(ctx);
}

static void scx_kcq_event(struct scx_drv_cq *dcq, u8 type, u8 syndrome, void *ctx)
{
	scx_ib_cq_error(ctx);
}

int scx_create_kcq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr)
{
	struct scx_ibcq *cq = container_of(ibcq, struct scx_ibcq, ibcq);
	struct scx_drv_cq_params p = {};
	struct scx_ib_device_attr a;
	struct scx_drv_cq_info info;
	u32 entries;
	int err;

	err = scx_verbs_query_device(to_drv(ibcq->device), &a);
	if (err)
		return err;
	if (attr->cqe < 1 || attr->cqe > a.max_cqe || attr->cqe >= 1 << 16 ||
	    attr->comp_vector >= a.num_comp_vectors)
		return -EINVAL;
	entries = roundup_pow_of_two(attr->cqe + 1);
	spin_lock_init(&cq->lock);
	p.comp_eq = attr->comp_vector;
	p.log_size = ilog2(entries);
	p.comp = scx_kcq_comp;
	p.event = scx_kcq_event;
	p.ctx = ibcq;
	err = scx_drv_cq_create(to_drv(ibcq->device), &p, &cq->kcq);
	if (err)
		return err;
	scx_drv_cq_get_info(cq->kcq, &info);
	cq->cqn = info.cqn;
	ibcq->cqe = entries - 1;
	scx_obj_inc(ibcq->device, SCX_OBJ_CQ);
	return 0;
}

int scx_destroy_kcq(struct ib_cq *ibcq)
{
	struct scx_ibcq *cq = container_of(ibcq, struct scx_ibcq, ibcq);
	int err;

	err = scx_drv_cq_destroy(cq->kcq);
	if (err)
		return err;
	cq->kcq = NULL;
	scx_obj_dec(ibcq->device, SCX_OBJ_CQ);
	return 0;
}

static const enum ib_wc_status scx_wc_status[] = {
	[SCX_KWC_SUCCESS] = IB_WC_SUCCESS,
	[SCX_KWC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[SCX_KWC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[SCX_KWC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[SCX_KWC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[SCX_KWC_MW_BIND_ERR] = IB_WC_MW_BIND_ERR,
	[SCX_KWC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[SCX_KWC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
	[SCX_KWC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[SCX_KWC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[SCX_KWC_REM_OP_ERR] = IB_WC_REM_OP_ERR,
	[SCX_KWC_RETRY_EXC_ERR] = IB_WC_RETRY_EXC_ERR,
	[SCX_KWC_RNR_RETRY_EXC_ERR] = IB_WC_RNR_RETRY_EXC_ERR,
	[SCX_KWC_REM_ABORT_ERR] = IB_WC_REM_ABORT_ERR,
	[SCX_KWC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
};

static const enum ib_wc_opcode scx_wc_opcode[] = {
	[SCX_KWC_SEND] = IB_WC_SEND,
	[SCX_KWC_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[SCX_KWC_RDMA_READ] = IB_WC_RDMA_READ,
	[SCX_KWC_COMP_SWAP] = IB_WC_COMP_SWAP,
	[SCX_KWC_FETCH_ADD] = IB_WC_FETCH_ADD,
	[SCX_KWC_LOCAL_INV] = IB_WC_LOCAL_INV,
	[SCX_KWC_REG_MR] = IB_WC_REG_MR,
	[SCX_KWC_RECV] = IB_WC_RECV,
	[SCX_KWC_RECV_RDMA_WITH_IMM] = IB_WC_RECV_RDMA_WITH_IMM,
};

static void scx_fill_wc(struct ib_wc *wc, struct scx_qp *qp, const struct scx_kcqe *c, u64 wr_id, u8 opcode)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = c->status < ARRAY_SIZE(scx_wc_status) ? scx_wc_status[c->status] : IB_WC_GENERAL_ERR;
	wc->opcode = opcode < ARRAY_SIZE(scx_wc_opcode) ? scx_wc_opcode[opcode] : IB_WC_SEND;
	wc->vendor_err = c->vendor_err;
	wc->byte_len = c->byte_len;
	wc->qp = &qp->ibqp;
	wc->port_num = 1;
	if (c->send || c->status != SCX_KWC_SUCCESS)
		return;
	wc->src_qp = c->src_qp;
	if (c->flags & SCX_KWC_WITH_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = (__force __be32)c->imm_be;
	} else if (c->flags & SCX_KWC_WITH_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = c->inv_rkey;
	}
	if (c->flags & SCX_KWC_GRH) {
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = c->network == 4 ? RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	}
}

/*
 * One CQE into a work completion: the QP it names, the request it ends.
 * false for a CQE of no kernel QP or of no request in flight (a QP
 * destroyed with completions still queued): skipped, never trusted.
 */
static bool scx_take_cqe(struct scx_ibdev *sdev, const struct scx_kcqe *c, struct ib_wc *wc)
{
	struct scx_qp *qp = xa_load(&sdev->qps, c->qpn);
	u8 opcode = c->opcode;
	u64 wr_id;
	int err;

	if (qp && qp->kqp && !c->send && qp->ibqp.srq) {
		struct scx_srq *srq = container_of(qp->ibqp.srq, struct scx_srq, ibsrq);

		spin_lock(&srq->lock);
		err = scx_ksrq_complete(srq->ksrq, c, &wr_id);
		spin_unlock(&srq->lock);
	} else {
		err = qp && qp->kqp ? scx_kqp_complete(qp->kqp, c, &wr_id, &opcode) : -EINVAL;
	}
	if (err) {
		pr_warn_ratelimited("softcx: %s: a CQE for QPN 0x%x matches no request\n",
				    dev_name(&sdev->ib.dev), c->qpn);
		return false;
	}
	scx_fill_wc(wc, qp, c, wr_id, opcode);
	return true;
}

int scx_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct scx_ibcq *cq = container_of(ibcq, struct scx_ibcq, ibcq);
	struct scx_ibdev *sdev = to_sdev(ibcq->device);
	struct scx_kcqe batch[SCX_POLL_BATCH];
	unsigned long flags;
	unsigned int n, i;
	int done = 0;

	if (!cq->kcq)
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, flags);
	while (done < num_entries) {
		n = scx_drv_cq_poll_cqes(cq->kcq, batch, min(num_entries - done, SCX_POLL_BATCH));
		if (!n)
			break;
		for (i = 0; i < n; i++)
			done += scx_take_cqe(sdev, &batch[i], &wc[done]);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return done;
}

int scx_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct scx_ibcq *cq = container_of(ibcq, struct scx_ibcq, ibcq);
	unsigned long irq;
	int ret = 0;

	if (!cq->kcq)
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, irq);
	scx_drv_cq_arm(cq->kcq, (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && scx_drv_cq_pending(cq->kcq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irq);
	return ret;
}

int scx_create_kqp(struct ib_qp *ibqp, struct ib_qp_init_attr *init)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	struct scx_pd *pd = container_of(ibqp->pd, struct scx_pd, ibpd);
	struct scx_kqp_params p = {};
	struct scx_kqp_caps caps;
	u32 qpn;
	int err;

	if (init->qp_type == IB_QPT_RC)
		p.type = SCX_KQPT_RC;
	else if (init->qp_type == IB_QPT_UC)
		p.type = SCX_KQPT_UC;
	else if (init->qp_type == IB_QPT_GSI)
		p.type = SCX_KQPT_GSI;
	else
		p.type = SCX_KQPT_UD;
	p.pdn = pd->pdn;
	p.send_cqn = container_of(init->send_cq, struct scx_ibcq, ibcq)->cqn;
	p.recv_cqn = container_of(init->recv_cq, struct scx_ibcq, ibcq)->cqn;
	p.max_send_wr = max(init->cap.max_send_wr, 1U);
	p.max_recv_wr = init->cap.max_recv_wr;
	if (init->srq) {
		struct scx_srq *srq = container_of(init->srq, struct scx_srq, ibsrq);

		if (!srq->ksrq)
			return -EINVAL;
		p.has_srq = 1;
		p.srqn = init->srq->ext.xrc.srq_num;
		p.max_recv_wr = 0;
	}
	p.max_send_sge = init->cap.max_send_sge;
	p.max_recv_sge = init->cap.max_recv_sge;
	p.max_inline = init->cap.max_inline_data;
	p.dma_lkey = ibqp->pd->local_dma_lkey;
	err = scx_kqp_create(to_drv(ibqp->device), &p, &qp->kqp);
	if (err)
		return err;
	qpn = scx_kqp_qpn(qp->kqp);
	scx_kqp_get_caps(qp->kqp, &caps);
	init->cap.max_send_wr = caps.max_send_wr;
	init->cap.max_recv_wr = caps.max_recv_wr;
	init->cap.max_send_sge = caps.max_send_sge;
	init->cap.max_recv_sge = caps.max_recv_sge;
	init->cap.max_inline_data = caps.max_inline;
	mutex_init(&qp->lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->state = IB_QPS_RESET;
	qp->cap = init->cap;
	/* The core and its peers know the GSI QP as QP 1, as mlx5_ib does. */
	ibqp->qp_num = init->qp_type == IB_QPT_GSI ? 1 : qpn;
	err = xa_insert_irq(&to_sdev(ibqp->device)->qps, qpn, qp, GFP_KERNEL);
	if (err) {
		scx_kqp_destroy(qp->kqp);
		qp->kqp = NULL;
		return err;
	}
	scx_obj_inc(ibqp->device, SCX_OBJ_QP);
	return 0;
}

int scx_destroy_kqp(struct ib_qp *ibqp)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	struct scx_ibcq *scq = container_of(ibqp->send_cq, struct scx_ibcq, ibcq);
	struct scx_ibcq *rcq = container_of(ibqp->recv_cq, struct scx_ibcq, ibcq);
	unsigned long flags;
	int err;

	/* First the device stops writing CQEs for it, then pollers stop
	 * finding it: a poll that found it holds its CQ's lock meanwhile.
	 */
	err = scx_kqp_stop(qp->kqp);
	if (err)
		return err;
	xa_erase_irq(&to_sdev(ibqp->device)->qps, scx_kqp_qpn(qp->kqp));
	spin_lock_irqsave(&scq->lock, flags);
	spin_unlock_irqrestore(&scq->lock, flags);
	spin_lock_irqsave(&rcq->lock, flags);
	spin_unlock_irqrestore(&rcq->lock, flags);
	/* Stopped: this only frees. */
	scx_kqp_destroy(qp->kqp);
	qp->kqp = NULL;
	scx_obj_dec(ibqp->device, SCX_OBJ_QP);
	return 0;
}

static int scx_kwr_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_SEND: return SCX_KWR_SEND;
	case IB_WR_SEND_WITH_IMM: return SCX_KWR_SEND_IMM;
	case IB_WR_SEND_WITH_INV: return SCX_KWR_SEND_INV;
	case IB_WR_RDMA_WRITE: return SCX_KWR_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM: return SCX_KWR_WRITE_IMM;
	case IB_WR_RDMA_READ: return SCX_KWR_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP: return SCX_KWR_ATOMIC_CS;
	case IB_WR_ATOMIC_FETCH_AND_ADD: return SCX_KWR_ATOMIC_FA;
	case IB_WR_REG_MR: return SCX_KWR_REG_MR;
	case IB_WR_LOCAL_INV: return SCX_KWR_LOCAL_INV;
	default: return -EINVAL;
	}
}

/* One ib_send_wr as the core hands it over, in softcx's terms. */
static int scx_kwr_of(struct scx_qp *qp, const struct ib_send_wr *wr, struct scx_kwr *k)
{
	int op = scx_kwr_opcode(wr->opcode);

	if (op < 0)
		return op;
	memset(k, 0, sizeof(*k));
	k->wr_id = wr->wr_id;
	k->opcode = op;
	k->num_sge = wr->num_sge;
	k->sg = (const struct scx_ksge *)wr->sg_list;
	if (qp->sig_all || (wr->send_flags & IB_SEND_SIGNALED))
		k->flags |= SCX_KWR_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		k->flags |= SCX_KWR_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		k->flags |= SCX_KWR_FENCE;
	if (wr->send_flags & IB_SEND_INLINE)
		k->flags |= SCX_KWR_INLINE;
	if (op == SCX_KWR_SEND_IMM || op == SCX_KWR_WRITE_IMM)
		k->imm_be = (__force u32)wr->ex.imm_data;
	if (op == SCX_KWR_SEND_INV || op == SCX_KWR_LOCAL_INV)
		k->inv_rkey = wr->ex.invalidate_rkey;
	if (op == SCX_KWR_REG_MR) {
		struct scx_mr *mr = container_of(reg_wr(wr)->mr, struct scx_mr, ibmr);

		if (!reg_wr(wr)->mr || !mr->kmr)
			return -EINVAL;
		k->mr = mr->kmr;
		k->reg_key = reg_wr(wr)->key;
		k->reg_access = scx_access(reg_wr(wr)->access);
	} else if (op == SCX_KWR_LOCAL_INV) {
		/* nothing more: the key is in inv_rkey */
	} else if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		if (!ud_wr(wr)->ah)
			return -EINVAL;
		k->av = container_of(ud_wr(wr)->ah, struct scx_ah, ibah)->av;
		k->remote_qpn = ud_wr(wr)->remote_qpn;
		k->remote_qkey = ud_wr(wr)->remote_qkey;
	} else if (op == SCX_KWR_ATOMIC_CS || op == SCX_KWR_ATOMIC_FA) {
		k->remote_addr = atomic_wr(wr)->remote_addr;
		k->rkey = atomic_wr(wr)->rkey;
		k->compare_add = atomic_wr(wr)->compare_add;
		k->swap = atomic_wr(wr)->swap;
	} else if (op >= SCX_KWR_WRITE) {
		k->remote_addr = rdma_wr(wr)->remote_addr;
		k->rkey = rdma_wr(wr)->rkey;
	}
	return 0;
}

int scx_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr, const struct ib_send_wr **bad_wr)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct scx_kwr k;
	unsigned long flags;
	int err = 0;

	if (!qp->kqp)
		return -EINVAL;
	/* Sends wait for RTS; in ERR they are taken and flushed. */
	if (state == IB_QPS_RESET || state == IB_QPS_INIT || state == IB_QPS_RTR) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		err = scx_kwr_of(qp, wr, &k);
		if (!err)
			err = scx_kqp_post_send(qp->kqp, &k);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	scx_kqp_ring_sq(qp->kqp);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return err;
}

int scx_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr, const struct ib_recv_wr **bad_wr)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	unsigned long flags;
	int err = 0;

	if (!qp->kqp || ibqp->srq)
		return -EINVAL;
	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	for (; wr; wr = wr->next) {
		err = scx_kqp_post_recv(qp->kqp, wr->wr_id, (const struct scx_ksge *)wr->sg_list, wr->num_sge);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	scx_kqp_ring_rq(qp->kqp);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	return err;
}

struct ib_mr *scx_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct scx_pd *pd = container_of(ibpd, struct scx_pd, ibpd);
	struct scx_mr *mr;
	u32 key;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = scx_verbs_create_dma_mkey(to_drv(ibpd->device), pd->pdn, scx_access(access), &key);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	scx_obj_inc(ibpd->device, SCX_OBJ_MR);
	return &mr->ibmr;
}

/* A kernel AH: the address vector its UD WQEs carry, built once. */
void scx_kah_build(struct scx_ah *ah, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	struct scx_kav_params p = {};

	memcpy(p.dmac, attr->roce.dmac, ETH_ALEN);
	memcpy(p.dgid, grh->dgid.raw, sizeof(p.dgid));
	p.sgid_index = grh->sgid_index;
	p.hop_limit = grh->hop_limit;
	p.traffic_class = grh->traffic_class;
	p.sl = rdma_ah_get_sl(attr);
	p.flow_label = grh->flow_label;
	/* The flow label picks the UDP source port (entropy), as the core
	 * defines it; without one, the first port of the RoCE range.
	 */
	p.udp_sport = grh->flow_label ? rdma_flow_label_to_udp_sport(grh->flow_label) : 0xc000;
	scx_kav_build(&p, ah->av);
}

/* Fast registration (ib_alloc_mr): a free key and the page list for REG_MR. */
struct ib_mr *scx_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type, u32 max_num_sg)
{
	struct scx_pd *pd = container_of(ibpd, struct scx_pd, ibpd);
	struct scx_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > SCX_MAX_FRWR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_mr;
	}
	mr->max_pages = max_num_sg;
	err = scx_kmr_create(to_drv(ibpd->device), pd->pdn, max_num_sg, &mr->kmr);
	if (err)
		goto err_pages;
	mr->ibmr.lkey = scx_kmr_key(mr->kmr);
	mr->ibmr.rkey = mr->ibmr.lkey;
	scx_obj_inc(ibpd->device, SCX_OBJ_MR);
	return &mr->ibmr;

err_pages:
	kfree(mr->pages);
err_mr:
	kfree(mr);
	return ERR_PTR(err);
}

static int scx_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct scx_mr *mr = container_of(ibmr, struct scx_mr, ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

int scx_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents, unsigned int *sg_offset)
{
	struct scx_mr *mr = container_of(ibmr, struct scx_mr, ibmr);
	int n, err;

	mr->npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, scx_set_page);
	if (n <= 0)
		return n;
	err = scx_kmr_set_pages(mr->kmr, mr->pages, mr->npages, ilog2(ibmr->page_size), ibmr->iova,
				ibmr->length);
	return err ? err : n;
}

int scx_create_ksrq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init)
{
	struct scx_srq *srq = container_of(ibsrq, struct scx_srq, ibsrq);
	struct scx_pd *pd = container_of(ibsrq->pd, struct scx_pd, ibpd);
	struct scx_ib_device_attr a;
	u32 srqn;
	int err;

	err = scx_verbs_query_device(to_drv(ibsrq->device), &a);
	if (err)
		return err;
	if (init->attr.max_wr > a.max_srq_wr || init->attr.max_sge > a.max_srq_sge)
		return -EINVAL;
	spin_lock_init(&srq->lock);
	err = scx_ksrq_create(to_drv(ibsrq->device), pd->pdn, init->attr.max_wr, init->attr.max_sge, &srq->ksrq);
	if (err)
		return err;
	srqn = scx_ksrq_srqn(srq->ksrq);
	if (init->attr.srq_limit) {
		err = scx_verbs_arm_srq(to_drv(ibsrq->device), srqn, init->attr.srq_limit);
		if (err)
			goto err_srq;
	}
	ibsrq->ext.xrc.srq_num = srqn;
	scx_ksrq_get_caps(srq->ksrq, &srq->max_wr, &srq->max_sge);
	init->attr.max_wr = srq->max_wr;
	init->attr.max_sge = srq->max_sge;
	/* Async events (the limit) find the SRQ from here on. */
	err = xa_insert_irq(&to_sdev(ibsrq->device)->srqs, srqn, srq, GFP_KERNEL);
	if (err)
		goto err_srq;
	scx_obj_inc(ibsrq->device, SCX_OBJ_SRQ);
	return 0;

err_srq:
	scx_ksrq_destroy(srq->ksrq);
	srq->ksrq = NULL;
	return err;
}

int scx_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr, const struct ib_recv_wr **bad_wr)
{
	struct scx_srq *srq = container_of(ibsrq, struct scx_srq, ibsrq);
	unsigned long flags;
	int err = 0;

	if (!srq->ksrq)
		return -EINVAL;
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		err = scx_ksrq_post_recv(srq->ksrq, wr->wr_id, (const struct scx_ksge *)wr->sg_list, wr->num_sge);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	scx_ksrq_ring(srq->ksrq);
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}
