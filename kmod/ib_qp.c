// SPDX-License-Identifier: GPL-2.0
/* Queue pairs of a softcx ib_device: created, moved and queried by PRM command. */
#include "kmod.h"

#include <linux/etherdevice.h>
#include <rdma/mlx5-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ib_priv.h"

/*
 * The create flags libmlx5 may send that softcx takes. Scatter to CQE is
 * an offer the device may decline: without sctr_data_cqe in its
 * capabilities (softcx has none), mlx5_ib drops both flags and the data
 * goes to the buffers, so softcx does the same (UCX asks for it).
 */
#define SCX_QP_FLAGS_OK (MLX5_QP_FLAG_SCATTER_CQE | MLX5_QP_FLAG_ALLOW_SCATTER_CQE | \
			 MLX5_QP_FLAG_BFREG_INDEX | MLX5_QP_FLAG_UAR_PAGE_INDEX)

/*
 * What libmlx5's create command asks of the queues, against the device's
 * limits. The buffer may start inside its first page (libmlx5 aligns a
 * parent domain's QP buffer only to 1/64 of its size); the driver refuses
 * what the QPC's page_offset cannot say.
 */
static int scx_uqp_check(const struct ib_qp_init_attr *init, const struct mlx5_ib_create_qp *ucmd,
			 const struct scx_ib_device_attr *a, int type)
{
	const struct ib_qp_cap *cap = &init->cap;
	u32 ok = SCX_QP_FLAGS_OK | (type == SCX_QPT_DCI ? MLX5_QP_FLAG_TYPE_DCI : 0);

	if ((ucmd->flags & ~ok) || (type == SCX_QPT_DCI && ucmd->rq_wqe_count) ||
	    ((ucmd->flags & MLX5_QP_FLAG_BFREG_INDEX) && (ucmd->flags & MLX5_QP_FLAG_UAR_PAGE_INDEX)))
		return -EINVAL;
	if (cap->max_send_wr > a->max_qp_wr || cap->max_recv_wr > a->max_qp_wr ||
	    cap->max_send_sge > a->max_send_sge || cap->max_recv_sge > a->max_recv_sge ||
	    cap->max_inline_data > a->max_send_sge * 16)
		return -EINVAL;
	if (ucmd->sq_wqe_count > a->max_qp_wr || ucmd->rq_wqe_count > a->max_qp_wr ||
	    /* No RQ of its own (SRQ, or none): libmlx5 leaves the shift 0. */
	    (ucmd->rq_wqe_count && (ucmd->rq_wqe_shift < 4 ||
				    (1U << min(ucmd->rq_wqe_shift, 31U)) > a->max_recv_sge * 16)) ||
	    (ucmd->uidx & ~0xffffffU) || (init->srq && ucmd->rq_wqe_count))
		return -EINVAL;
	if (!ucmd->rq_wqe_count && !ucmd->sq_wqe_count)
		return -EINVAL;
	return 0;
}

/* The QP's queues as libmlx5 laid them out in its buffer. */
static void scx_uqp_params(struct scx_qp_create_params *p, const struct ib_qp_init_attr *init,
			   const struct mlx5_ib_create_qp *ucmd, struct scx_ucontext *uc,
			   struct scx_pd *pd)
{
	p->pdn = pd->pdn;
	p->uid = pd->uid; /* as mlx5_ib: a QP is its PD's context's */
	p->send_cqn = container_of(init->send_cq, struct scx_ibcq, ibcq)->cqn;
	p->recv_cqn = container_of(init->recv_cq, struct scx_ibcq, ibcq)->cqn;
	if (init->srq) {
		p->has_srq = 1;
		p->srqn = init->srq->ext.xrc.srq_num;
	}
	p->user_index = ucmd->uidx;
	p->sq_wqebbs = ucmd->sq_wqe_count;
	p->rq_wqes = ucmd->rq_wqe_count;
	p->rq_wqe_shift = ucmd->rq_wqe_shift;
	p->page_shift = PAGE_SHIFT;
	p->page_offset = ucmd->buf_addr & ~PAGE_MASK;
	p->block_mcast_loopback = !!(init->create_flags & IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK);
}

/* A user QP (or DCI): its buffer and doorbell record pinned, then CREATE_QP. */
int scx_create_uqp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata,
			  int type)
{
	struct scx_ucontext *uc = rdma_udata_to_drv_context(udata, struct scx_ucontext, ibuc);
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	struct scx_pd *pd = container_of(ibqp->pd, struct scx_pd, ibpd);
	struct mlx5_ib_create_qp_resp resp = {};
	struct scx_qp_create_params p = { .type = type };
	struct mlx5_ib_create_qp ucmd = {};
	struct scx_ib_device_attr a;
	u64 bytes;
	u32 qpn;
	int err;

	if (!uc)
		return -EOPNOTSUPP;
	if (udata->inlen < offsetof(struct mlx5_ib_create_qp, sq_buf_addr))
		return -EINVAL;
	err = ib_copy_from_udata(&ucmd, udata, min(udata->inlen, sizeof(ucmd)));
	if (err)
		return err;
	err = scx_verbs_query_device(to_drv(ibqp->device), &a);
	if (err)
		return err;
	err = scx_uqp_check(init, &ucmd, &a, type);
	if (!err)
		err = scx_uar_of_create(uc, ucmd.flags & MLX5_QP_FLAG_UAR_PAGE_INDEX,
					ucmd.flags & MLX5_QP_FLAG_BFREG_INDEX, ucmd.bfreg_index,
					&p.uar_index);
	if (err)
		return err;
	bytes = ((u64)ucmd.rq_wqe_count << ucmd.rq_wqe_shift) +
		(u64)ucmd.sq_wqe_count * SCX_SEND_WQE_BB;

	mutex_init(&qp->lock);
	qp->umem = ib_umem_get(ibqp->device, ucmd.buf_addr, bytes, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(qp->umem))
		return PTR_ERR(qp->umem);
	err = scx_pin_dbrec(udata, ucmd.db_addr, &qp->dbrec, &p.dbr_addr);
	if (err)
		goto err_umem;
	scx_uqp_params(&p, init, &ucmd, uc, pd);
	p.pages = scx_umem_pages(qp->umem, PAGE_SHIFT, &p.npages);
	if (!p.pages) {
		err = -ENOMEM;
		goto err_db;
	}
	err = scx_verbs_create_qp(to_drv(ibqp->device), &p, &qpn);
	kvfree(p.pages);
	if (err)
		goto err_db;
	ibqp->qp_num = qpn;
	qp->state = IB_QPS_RESET;
	/* libmlx5 reports the send side itself; the receive side is ours. */
	init->cap.max_recv_wr = ucmd.rq_wqe_count;
	init->cap.max_recv_sge = ucmd.rq_wqe_count ? (1U << ucmd.rq_wqe_shift) / 16 : 0;
	qp->cap = init->cap;
	qp->dc_type = type == SCX_QPT_DCI ? SCX_QPT_DCI : 0;
	resp.bfreg_index = 0;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err_qp;
	/* Async events find the QP from here on. */
	err = xa_insert_irq(&to_sdev(ibqp->device)->qps, qpn, qp, GFP_KERNEL);
	if (err)
		goto err_qp;
	scx_obj_inc(ibqp->device, SCX_OBJ_QP);
	return 0;

err_qp:
	scx_verbs_destroy_qp(to_drv(ibqp->device), qpn);
err_db:
	scx_unpin_dbrec(qp->dbrec);
err_umem:
	ib_umem_release(qp->umem);
	return err;
}

int scx_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata)
{
	int type;

	switch (init->qp_type) {
	case IB_QPT_RC:
		type = SCX_QPT_RC;
		break;
	case IB_QPT_UC:
		type = SCX_QPT_UC;
		break;
	case IB_QPT_UD:
		type = SCX_QPT_UD;
		break;
	case IB_QPT_DRIVER:
		return scx_create_dc_qp(ibqp, init, udata);
	case IB_QPT_GSI:
		/* The port's QP1 is the kernel's (ib_mad). */
		if (udata)
			return -EOPNOTSUPP;
		type = -1;
		break;
	default:
		return -EOPNOTSUPP;
	}
	/* mlx5_ib's one create flag for UD that softcx has: block_lb_mc. */
	if (init->create_flags & ~IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK ||
	    (init->create_flags && init->qp_type != IB_QPT_UD))
		return -EOPNOTSUPP;
	if (!udata)
		return scx_create_kqp(ibqp, init);
	return scx_create_uqp(ibqp, init, udata, type);
}

int scx_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	int err;

	if (qp->kqp)
		return scx_destroy_kqp(ibqp);
	if (qp->dc_type == SCX_QPT_DCT)
		return scx_destroy_dct(ibqp);
	err = scx_verbs_destroy_qp(to_drv(ibqp->device), ibqp->qp_num);
	if (err)
		return err;
	/* No async event reaches the QP after this (see scx_qp_event). */
	xa_erase_irq(&to_sdev(ibqp->device)->qps, ibqp->qp_num);
	scx_unpin_dbrec(qp->dbrec);
	ib_umem_release(qp->umem);
	scx_obj_dec(ibqp->device, SCX_OBJ_QP);
	return 0;
}

int scx_check_qp_attr(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask)
{
	struct scx_ib_device_attr a;
	int err;

	err = scx_verbs_query_device(to_drv(ibqp->device), &a);
	if (err)
		return err;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= 1)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) && (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > a.max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic > a.max_qp_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)))
		return -EOPNOTSUPP;
	if ((mask & IB_QP_AV) && !(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH))
		return -EINVAL;
	return 0;
}

static void scx_fill_path(struct ib_qp *ibqp, struct ib_qp_attr *attr, struct scx_qp_attr *m)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(&attr->ah_attr);

	memcpy(m->dmac, attr->ah_attr.roce.dmac, ETH_ALEN);
	memcpy(m->dgid, grh->dgid.raw, sizeof(m->dgid));
	m->sgid_index = grh->sgid_index;
	m->hop_limit = grh->hop_limit;
	m->tclass = grh->traffic_class;
	m->flow_label = grh->flow_label;
	m->sl = rdma_ah_get_sl(&attr->ah_attr);
	m->udp_sport = rdma_get_udp_sport(grh->flow_label, ibqp->qp_num,
					  attr->dest_qp_num);
}

int scx_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	struct scx_qp_attr m = {};
	enum ib_qp_state cur, new;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (qp->dc_type == SCX_QPT_DCT)
		return scx_modify_dct(ibqp, attr, mask, udata);
	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	mutex_lock(&qp->lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (qp->dc_type == SCX_QPT_DCI ? scx_verbs_dc_modify_ok(SCX_QPT_DCI, cur, new, mask) :
	    !ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = scx_check_qp_attr(ibqp, attr, mask);
	if (err)
		goto out;
	/* Nothing to tell the device: RESET to RESET with no attributes. */
	if (cur == IB_QPS_RESET && new == IB_QPS_RESET)
		goto out;

	/* GSI: UD to the device, QP1 to the wire. */
	m.type = ibqp->qp_type == IB_QPT_RC ? SCX_QPT_RC :
		 ibqp->qp_type == IB_QPT_UC ? SCX_QPT_UC : SCX_QPT_UD;
	if (qp->dc_type == SCX_QPT_DCI)
		m.type = SCX_QPT_DCI;
	m.cur_state = cur;
	m.new_state = new;
	m.mask = mask;
	m.access = scx_access(attr->qp_access_flags);
	m.qkey = attr->qkey;
	m.rq_psn = attr->rq_psn;
	m.sq_psn = attr->sq_psn;
	m.dest_qpn = attr->dest_qp_num;
	m.path_mtu = attr->path_mtu;
	m.timeout = attr->timeout;
	m.retry_cnt = attr->retry_cnt;
	m.rnr_retry = attr->rnr_retry;
	m.min_rnr_timer = attr->min_rnr_timer;
	m.max_rd_atomic = attr->max_rd_atomic;
	m.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	m.port = 1;
	m.pkey_index = attr->pkey_index;
	/* The Q counter set: at INIT, and again on the way to RTS for a QP
	 * bound to a counter while it was not in RTS (scx_qp_set_counter).
	 */
	m.counter_set_id = ibqp->counter ? ibqp->counter->id : to_sdev(ibqp->device)->port_counter_set;
	if (cur == IB_QPS_RTR && new == IB_QPS_RTS)
		m.mask |= SCX_QP_COUNTER;
	if (mask & IB_QP_AV)
		scx_fill_path(ibqp, attr, &m);
	err = scx_verbs_modify_qp(to_drv(ibqp->device), scx_qp_hwn(ibqp), &m);
	/* The device counts its queues from 0 again after RESET. */
	if (!err && qp->kqp && new == IB_QPS_RESET)
		scx_kqp_reset(qp->kqp);
	if (!err)
		WRITE_ONCE(qp->state, new);
out:
	mutex_unlock(&qp->lock);
	return err;
}

/*
 * Count the QP into counter's Q counter set (NULL: the port's own), as
 * rdma_counter binding asks: at once when it is in RTS (RTS->RTS), else
 * from RESET->INIT or RTR->RTS on. The core reads qp->counter back.
 */
int scx_qp_set_counter(struct ib_qp *ibqp, struct rdma_counter *counter)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	struct scx_qp_attr m = {};
	int err = 0;

	mutex_lock(&qp->lock);
	if (qp->dc_type) {
		/* A DC QP counts into its port's set (no DC column in mlx5's table). */
		err = -EOPNOTSUPP;
	} else if (qp->state == IB_QPS_RTS) {
		m.type = ibqp->qp_type == IB_QPT_RC ? SCX_QPT_RC :
			 ibqp->qp_type == IB_QPT_UC ? SCX_QPT_UC : SCX_QPT_UD;
		m.cur_state = IB_QPS_RTS;
		m.new_state = IB_QPS_RTS;
		m.mask = SCX_QP_STATE | SCX_QP_COUNTER;
		m.port = 1;
		m.counter_set_id = counter ? counter->id : to_sdev(ibqp->device)->port_counter_set;
		err = scx_verbs_modify_qp(to_drv(ibqp->device), scx_qp_hwn(ibqp), &m);
	}
	if (!err)
		ibqp->counter = counter;
	mutex_unlock(&qp->lock);
	return err;
}

int scx_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
			struct ib_qp_init_attr *init)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	struct scx_qp_attr q;
	int err;

	if (qp->dc_type == SCX_QPT_DCT) {
		scx_query_dct(ibqp, attr);
		goto init;
	}
	err = scx_verbs_query_qp(to_drv(ibqp->device), scx_qp_hwn(ibqp), &q);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = q.new_state;
	attr->cur_qp_state = q.new_state;
	attr->path_mtu = q.path_mtu ? q.path_mtu : IB_MTU_256;
	attr->qkey = q.qkey;
	attr->rq_psn = q.rq_psn;
	attr->sq_psn = q.sq_psn;
	attr->dest_qp_num = q.dest_qpn;
	attr->qp_access_flags = scx_ib_access(q.access);
	attr->pkey_index = q.pkey_index;
	attr->port_num = 1;
	attr->timeout = q.timeout;
	attr->retry_cnt = q.retry_cnt;
	attr->rnr_retry = q.rnr_retry;
	attr->min_rnr_timer = q.min_rnr_timer;
	attr->max_rd_atomic = q.max_rd_atomic;
	attr->max_dest_rd_atomic = q.max_dest_rd_atomic;
	attr->cap = qp->cap;
	if (ibqp->qp_type == IB_QPT_RC || ibqp->qp_type == IB_QPT_UC) {
		attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
		rdma_ah_set_port_num(&attr->ah_attr, 1);
		rdma_ah_set_grh(&attr->ah_attr, NULL, q.flow_label, q.sgid_index, q.hop_limit,
				q.tclass);
		rdma_ah_set_dgid_raw(&attr->ah_attr, q.dgid);
	}
init:
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = IB_SIGNAL_REQ_WR;
	return 0;
}

int scx_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init, struct ib_udata *udata)
{
	struct scx_srq *srq = container_of(ibsrq, struct scx_srq, ibsrq);
	struct scx_pd *pd = container_of(ibsrq->pd, struct scx_pd, ibpd);
	struct mlx5_ib_create_srq_resp resp = {};
	struct scx_srq_create_params p = {};
	struct mlx5_ib_create_srq ucmd = {};
	struct scx_ib_device_attr a;
	u32 max, desc, srqn;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!udata)
		return scx_create_ksrq(ibsrq, init);
	if (udata->inlen < offsetof(struct mlx5_ib_create_srq, uidx))
		return -EINVAL;
	err = ib_copy_from_udata(&ucmd, udata, min(udata->inlen, sizeof(ucmd)));
	if (err)
		return err;
	if (ucmd.flags)
		return -EINVAL;
	err = scx_verbs_query_device(to_drv(ibsrq->device), &a);
	if (err)
		return err;
	/* max_wr 0 is one WQE (libmlx5 and mlx5_ib round max_wr + 1 up). */
	if (init->attr.max_wr > a.max_srq_wr || init->attr.max_sge > a.max_srq_sge)
		return -EINVAL;
	/* The sizes libmlx5 derived the same way for its buffer. */
	max = roundup_pow_of_two(init->attr.max_wr + 1);
	desc = max_t(u32, 32, roundup_pow_of_two(16 + 16 * init->attr.max_sge));

	srq->umem = ib_umem_get(ibsrq->device, ucmd.buf_addr, (size_t)max * desc, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(srq->umem))
		return PTR_ERR(srq->umem);
	err = scx_pin_dbrec(udata, ucmd.db_addr, &srq->dbrec, &p.dbr_addr);
	if (err)
		goto err_umem;
	p.pdn = pd->pdn;
	p.uid = pd->uid;
	p.log_size = ilog2(max);
	p.wqe_shift = ilog2(desc);
	p.page_shift = PAGE_SHIFT;
	p.page_offset = ucmd.buf_addr & ~PAGE_MASK;
	p.pages = scx_umem_pages(srq->umem, PAGE_SHIFT, &p.npages);
	if (!p.pages) {
		err = -ENOMEM;
		goto err_db;
	}
	err = scx_verbs_create_srq(to_drv(ibsrq->device), &p, &srqn);
	kvfree(p.pages);
	if (err)
		goto err_db;
	if (init->attr.srq_limit) {
		err = scx_verbs_arm_srq(to_drv(ibsrq->device), srqn, init->attr.srq_limit);
		if (err)
			goto err_srq;
	}
	ibsrq->ext.xrc.srq_num = srqn;
	srq->max_wr = max - 1;
	srq->max_sge = (desc - 16) / 16;
	init->attr.max_wr = srq->max_wr;
	init->attr.max_sge = srq->max_sge;
	resp.srqn = srqn;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err_srq;
	/* Async events (the limit) find the SRQ from here on. */
	err = xa_insert_irq(&to_sdev(ibsrq->device)->srqs, srqn, srq, GFP_KERNEL);
	if (err)
		goto err_srq;
	scx_obj_inc(ibsrq->device, SCX_OBJ_SRQ);
	return 0;

err_srq:
	scx_verbs_destroy_srq(to_drv(ibsrq->device), srqn);
err_db:
	scx_unpin_dbrec(srq->dbrec);
err_umem:
	ib_umem_release(srq->umem);
	return err;
}

int scx_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct scx_srq *srq = container_of(ibsrq, struct scx_srq, ibsrq);
	int err;

	err = srq->ksrq ? scx_ksrq_destroy(srq->ksrq) :
			  scx_verbs_destroy_srq(to_drv(ibsrq->device), ibsrq->ext.xrc.srq_num);
	if (err)
		return err;
	xa_erase_irq(&to_sdev(ibsrq->device)->srqs, ibsrq->ext.xrc.srq_num);
	scx_unpin_dbrec(srq->dbrec);
	ib_umem_release(srq->umem);
	scx_obj_dec(ibsrq->device, SCX_OBJ_SRQ);
	return 0;
}

int scx_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr, enum ib_srq_attr_mask mask,
		   struct ib_udata *udata)
{
	struct scx_srq *srq = container_of(ibsrq, struct scx_srq, ibsrq);

	/* Resizing is not supported, as on mlx5. */
	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->max_wr)
			return -EINVAL;
		return scx_verbs_arm_srq(to_drv(ibsrq->device), ibsrq->ext.xrc.srq_num, attr->srq_limit);
	}
	return 0;
}

int scx_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct scx_srq *srq = container_of(ibsrq, struct scx_srq, ibsrq);
	u16 limit;
	int err;

	err = scx_verbs_query_srq(to_drv(ibsrq->device), ibsrq->ext.xrc.srq_num, &limit);
	if (err)
		return err;
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = limit;
	return 0;
}
