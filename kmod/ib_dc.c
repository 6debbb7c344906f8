// SPDX-License-Identifier: GPL-2.0
/*
 * DC QPs of a softcx ib_device (IB_QPT_DRIVER, as mlx5_ib has them): a DC
 * initiator is a user QP with a send queue only (ib_qp.c does the rest),
 * a DC target exists in the device only from RTR on: create, RESET->INIT
 * and INIT->RTR gather its attributes, and INIT->RTR makes it, telling
 * libmlx5 its number in the modify response, as mlx5_ib does.
 */
#include "kmod.h"

#include <rdma/mlx5-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ib_priv.h"

/* A DCT: nothing in the device yet, its attributes kept. */
static int scx_create_dct(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			  const struct mlx5_ib_create_qp *ucmd)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	struct scx_pd *pd = container_of(ibqp->pd, struct scx_pd, ibpd);
	struct scx_dct_params *d;

	/* Scatter to CQE is declined, as for any QP (ib_qp.c). */
	if (ucmd->flags & ~(MLX5_QP_FLAG_TYPE_DCT | MLX5_QP_FLAG_SCATTER_CQE) ||
	    !init->srq || !init->recv_cq || (ucmd->uidx & ~0xffffffU))
		return -EINVAL;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->pdn = pd->pdn;
	d->uid = pd->uid;
	d->cqn = container_of(init->recv_cq, struct scx_ibcq, ibcq)->cqn;
	d->srqn = init->srq->ext.xrc.srq_num;
	d->user_index = ucmd->uidx;
	d->dc_key = ucmd->access_key;
	mutex_init(&qp->lock);
	qp->dc_type = SCX_QPT_DCT;
	qp->dct = d;
	qp->state = IB_QPS_RESET;
	scx_obj_inc(ibqp->device, SCX_OBJ_QP);
	return 0;
}

int scx_create_dc_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata)
{
	struct mlx5_ib_create_qp ucmd = {};
	struct scx_ib_device_attr a;
	int err;

	/* Without the dct cap, as mlx5_ib refuses. */
	err = scx_verbs_query_device(to_drv(ibqp->device), &a);
	if (err)
		return err;
	if (!a.dc || !udata || init->create_flags)
		return -EOPNOTSUPP;
	if (udata->inlen < offsetofend(struct mlx5_ib_create_qp, access_key))
		return -EINVAL;
	err = ib_copy_from_udata(&ucmd, udata, min(udata->inlen, sizeof(ucmd)));
	if (err)
		return err;
	switch (ucmd.flags & (MLX5_QP_FLAG_TYPE_DCI | MLX5_QP_FLAG_TYPE_DCT)) {
	case MLX5_QP_FLAG_TYPE_DCI:
		return scx_create_uqp(ibqp, init, udata, SCX_QPT_DCI);
	case MLX5_QP_FLAG_TYPE_DCT:
		return scx_create_dct(ibqp, init, &ucmd);
	default:
		return -EINVAL;
	}
}

int scx_destroy_dct(struct ib_qp *ibqp)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	int err;

	if (qp->dctn) {
		err = scx_verbs_destroy_dct(to_drv(ibqp->device), qp->dctn, qp->dct->uid);
		if (err)
			return err;
	}
	kfree(qp->dct);
	scx_obj_dec(ibqp->device, SCX_OBJ_QP);
	return 0;
}

/* INIT->RTR: CREATE_DCT; its number to libmlx5 in the response. */
static int scx_dct_rtr(struct ib_qp *ibqp, struct ib_qp_attr *attr, struct ib_udata *udata)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	const struct ib_global_route *grh = rdma_ah_read_grh(&attr->ah_attr);
	struct mlx5_ib_modify_qp_resp resp = {};
	struct scx_dct_params *d = qp->dct;
	size_t need = offsetofend(struct mlx5_ib_modify_qp_resp, dctn);
	u32 dctn;
	int err;

	if (!udata || udata->outlen < need)
		return -EINVAL;
	d->min_rnr_timer = attr->min_rnr_timer;
	d->tclass = grh->traffic_class;
	d->flow_label = grh->flow_label;
	d->path_mtu = attr->path_mtu;
	d->sgid_index = grh->sgid_index;
	d->hop_limit = grh->hop_limit;
	d->sl = rdma_ah_get_sl(&attr->ah_attr);
	err = scx_verbs_create_dct(to_drv(ibqp->device), d, &dctn);
	if (err)
		return err;
	resp.response_length = udata->outlen < sizeof(resp) ? need : sizeof(resp);
	resp.dctn = dctn;
	err = ib_copy_to_udata(udata, &resp, resp.response_length);
	if (err) {
		scx_verbs_destroy_dct(to_drv(ibqp->device), dctn, d->uid);
		return err;
	}
	qp->dctn = dctn;
	ibqp->qp_num = dctn;
	return 0;
}

int scx_modify_dct(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	enum ib_qp_state cur, new;
	int err;

	mutex_lock(&qp->lock);
	cur = qp->state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	err = scx_verbs_dc_modify_ok(SCX_QPT_DCT, cur, new, mask);
	if (!err)
		err = scx_check_qp_attr(ibqp, attr, mask);
	if (err)
		goto out;
	if (cur == IB_QPS_RESET) {
		qp->dct->access = scx_access(attr->qp_access_flags);
		qp->dct->pkey_index = attr->pkey_index;
		qp->dct->port = attr->port_num;
	} else {
		err = scx_dct_rtr(ibqp, attr, udata);
	}
	if (!err)
		qp->state = new;
out:
	mutex_unlock(&qp->lock);
	return err;
}

/* What the DCT was given (QUERY_DCT would say no more). */
void scx_query_dct(struct ib_qp *ibqp, struct ib_qp_attr *attr)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	const struct scx_dct_params *d = qp->dct;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->qp_access_flags = scx_ib_access(d->access);
	attr->pkey_index = d->pkey_index;
	attr->port_num = 1;
	attr->path_mtu = d->path_mtu ? d->path_mtu : IB_MTU_256;
	attr->min_rnr_timer = d->min_rnr_timer;
	attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr->ah_attr, 1);
	rdma_ah_set_grh(&attr->ah_attr, NULL, d->flow_label, d->sgid_index, d->hop_limit, d->tclass);
}
