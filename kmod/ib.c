// SPDX-License-Identifier: GPL-2.0
/*
 * The ib_device of a softcx function, speaking the mlx5 user ABI so that the
 * stock libmlx5 binds to it. Glue only: attributes and objects come from
 * core_cpp (softcx/verbs.h), which asks the firmware by PRM command.
 */
#include "kmod.h"

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/iter.h>
#include <rdma/mlx5-abi.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>

#include "ib.h"
#include "ib_priv.h"
#include "iommu.h"

static struct scx_ib_settings scx_settings;

bool scx_ib_devx_granted(void)
{
	return scx_settings.devx;
}
static LIST_HEAD(scx_ibdevs);
static DEFINE_MUTEX(scx_ibdevs_lock);

static int scx_query_device(struct ib_device *ib, struct ib_device_attr *attr, struct ib_udata *udata)
{
	struct scx_ib_device_attr a;
	int err;

	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	err = scx_verbs_query_device(to_drv(ib), &a);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = a.fw_ver;
	attr->sys_image_guid = cpu_to_be64(a.sys_image_guid);
	attr->max_mr_size = a.max_mr_size;
	attr->page_size_cap = a.page_size_cap;
	attr->vendor_id = a.vendor_id;
	attr->vendor_part_id = scx_settings.vendor_part_id;
	attr->hw_ver = scx_settings.hw_ver;
	attr->max_qp = a.max_qp;
	attr->max_qp_wr = a.max_qp_wr;
	/* Windows of type 1 and 2B, as mlx5 reports them. */
	/* Fast registration (REG_MR, LOCAL_INV, remote invalidation) for
	 * kernel consumers.
	 */
	attr->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN | IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID | IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B | IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->max_fast_reg_page_list_len = SCX_MAX_FRWR_PAGES;
	/*
	 * ON_DEMAND_PAGING only so that the core lets an ODP registration
	 * reach reg_user_mr, which refuses it with EOPNOTSUPP (the answer for
	 * an access flag the device lacks; odp_caps stay empty, so no one is
	 * told ODP works). Without it the core answers EINVAL, which users
	 * such as rdma-core's tests read as a bug, not a missing feature.
	 */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG | IBK_ON_DEMAND_PAGING;
	attr->max_send_sge = a.max_send_sge;
	attr->max_recv_sge = a.max_recv_sge;
	attr->max_sge_rd = a.max_send_sge;
	attr->max_cq = a.max_cq;
	attr->max_cqe = a.max_cqe;
	attr->max_mr = a.max_mr;
	attr->max_mw = a.max_mr;
	attr->max_pd = a.max_pd;
	attr->max_qp_rd_atom = a.max_qp_rd_atom;
	attr->max_qp_init_rd_atom = a.max_qp_init_rd_atom;
	attr->max_res_rd_atom = a.max_qp_rd_atom * a.max_qp;
	attr->atomic_cap = a.atomic ? IB_ATOMIC_HCA : IB_ATOMIC_NONE;
	attr->max_ah = INT_MAX;
	attr->max_srq = a.max_srq;
	attr->max_srq_wr = a.max_srq_wr;
	attr->max_srq_sge = a.max_srq_sge;
	attr->max_pkeys = a.max_pkeys;
	attr->local_ca_ack_delay = a.local_ca_ack_delay;
	return 0;
}

static int scx_query_port(struct ib_device *ib, u32 port, struct ib_port_attr *attr)
{
	struct scx_ibdev *sdev = to_sdev(ib);
	struct scx_ib_device_attr a;
	int up, err;

	err = scx_verbs_query_device(sdev->kdev->drv, &a);
	if (err)
		return err;
	up = scx_verbs_port_up(sdev->kdev->drv);
	if (up < 0)
		return up;
	/* The core zeroed attr. */
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = min(attr->max_mtu, iboe_get_mtu(READ_ONCE(sdev->netdev->mtu)));
	attr->gid_tbl_len = a.gid_table_len;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = a.max_msg_sz;
	attr->pkey_tbl_len = 1; /* RoCE: only the default P_Key */
	return ib_get_eth_speed(ib, port, &attr->active_speed, &attr->active_width);
}

static int scx_get_port_immutable(struct ib_device *ib, u32 port, struct ib_port_immutable *im)
{
	struct ib_port_attr attr = {};
	int err;

	err = ib_query_port(ib, port, &attr);
	if (err)
		return err;
	im->pkey_tbl_len = attr.pkey_tbl_len;
	im->gid_tbl_len = attr.gid_tbl_len;
	im->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	im->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer scx_get_link_layer(struct ib_device *ib, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int scx_query_pkey(struct ib_device *ib, u32 port, u16 index, u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

/*
 * The core keeps the GID table; the device gets a copy (SET_ROCE_ADDRESS)
 * for the source address of what it sends, as mlx5 programs its firmware.
 */
static int scx_add_gid(const struct ib_gid_attr *attr, void **context)
{
	u8 mac[ETH_ALEN];
	u16 vlan;
	int err;

	err = rdma_read_gid_l2_fields(attr, &vlan, mac);
	if (err)
		return err;
	return scx_verbs_set_gid(to_drv(attr->device), attr->index, attr->gid.raw, mac,
				 attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP,
				 ipv6_addr_v4mapped((const struct in6_addr *)attr->gid.raw));
}

static int scx_del_gid(const struct ib_gid_attr *attr, void **context)
{
	return scx_verbs_set_gid(to_drv(attr->device), attr->index, NULL, NULL, false, false);
}

static int scx_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct scx_ucontext *uc = container_of(ibuc, struct scx_ucontext, ibuc);
	struct mlx5_ib_alloc_ucontext_resp resp = {};
	struct mlx5_ib_alloc_ucontext_req_v2 req = {};
	struct scx_ib_device_attr a;
	u32 total;
	int err;

	if (udata->inlen < sizeof(struct mlx5_ib_alloc_ucontext_req))
		return -EINVAL;
	err = ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req)));
	if (err)
		return err;
	/*
	 * DevX unless devx=0 took it away: libmlx5 then retries without
	 * it, and mlx5dv users who insist see EOPNOTSUPP.
	 */
	if ((req.flags & MLX5_IB_ALLOC_UCTX_DEVX) && !scx_settings.devx)
		return -EOPNOTSUPP;
	if ((req.flags & ~MLX5_IB_ALLOC_UCTX_DEVX) || req.comp_mask)
		return -EOPNOTSUPP;
	if (req.reserved0 || req.reserved1 || req.reserved2)
		return -EINVAL;
	total = ALIGN(req.total_num_bfregs, 2);
	if (!total || req.num_low_latency_bfregs > total - 1)
		return -EINVAL;
	if (total / 2 > SCX_MAX_USER_UARS - SCX_DYN_UAR_PAGES)
		return -ENOMEM;
	err = scx_verbs_query_device(to_drv(ibuc->device), &a);
	if (err)
		return err;

	/* A DevX context's uid first: its UARs carry it, as all its objects. */
	if (req.flags & MLX5_IB_ALLOC_UCTX_DEVX) {
		err = scx_devx_create_uctx(to_drv(ibuc->device), 0, &uc->devx_uid);
		if (err)
			return err;
	}
	/* Static UARs, one bfreg pair per page, no BlueFlame (bf_reg_size 0). */
	mutex_init(&uc->dyn_lock);
	mutex_init(&uc->dbrec_lock);
	INIT_LIST_HEAD(&uc->dbrec_pages);
	/*
	 * A lib that takes dynamic UARs (MLX5_LIB_CAP_DYN_UAR) gets no static
	 * page: it allocates UAR objects for its QPs and CQs, and the NC page
	 * mlx5dv_devx_alloc_uar hands out.
	 */
	if (!(req.lib_caps & MLX5_LIB_CAP_DYN_UAR))
		err = scx_alloc_uars(uc, total / 2);
	if (err)
		goto err_uars;

	resp.qp_tab_size = a.max_qp;
	resp.bf_reg_size = 0;
	resp.tot_bfregs = uc->num_uars ? total : 0;
	/* Pages the lib may add with mmap(MLX5_IB_MMAP_ALLOC_WC), two bfregs each */
	resp.num_dyn_bfregs = SCX_DYN_UAR_PAGES * 2;
	resp.cache_line_size = cache_line_size();
	resp.max_sq_desc_sz = (a.max_send_sge + 1) * 16;
	resp.max_rq_desc_sz = a.max_recv_sge * 16;
	resp.max_send_wqebb = a.max_qp_wr;
	resp.max_recv_wr = a.max_qp_wr;
	resp.max_srq_recv_wr = a.max_srq_wr;
	resp.num_ports = 1;
	resp.cqe_version = min_t(u8, req.max_cqe_version, a.cqe_version);
	resp.cmds_supp_uhw = MLX5_USER_CMDS_SUPP_UHW_CREATE_AH;
	resp.log_uar_size = PAGE_SHIFT;
	resp.num_uars_per_page = 1;
	resp.response_length = min_t(size_t, udata->outlen, sizeof(resp));
	err = ib_copy_to_udata(udata, &resp, resp.response_length);
	if (err)
		goto err_uars;
	scx_obj_inc(ibuc->device, SCX_OBJ_UCTX);
	return 0;

err_uars:
	scx_free_uars(uc);
	scx_devx_destroy_ctx_uid(uc);
	return err;
}

static void scx_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct scx_ucontext *uc = container_of(ibuc, struct scx_ucontext, ibuc);

	/* The core destroys a context's objects first: no record is pinned. */
	WARN_ON(!list_empty(&uc->dbrec_pages));
	scx_free_uars(uc);
	scx_devx_destroy_ctx_uid(uc);
	scx_obj_dec(ibuc->device, SCX_OBJ_UCTX);
}

/* Called by the core once the ib_device is unregistered: free the function. */
static void scx_dealloc_driver(struct ib_device *ib)
{
	struct scx_ibdev *sdev = to_sdev(ib);

	scx_devx_cleanup(sdev);
	scx_kdev_destroy(sdev->kdev);
	netdev_put(sdev->netdev, &sdev->netdev_tracker);
	/* Last: module exit waits for the list to empty. */
	mutex_lock(&scx_ibdevs_lock);
	list_del_init(&sdev->node);
	mutex_unlock(&scx_ibdevs_lock);
}

static const struct ib_device_ops scx_ib_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_MLX5,
	.uverbs_abi_ver = MLX5_IB_UVERBS_ABI_VERSION,

	.add_gid = scx_add_gid,
	.alloc_hw_port_stats = scx_alloc_hw_port_stats,
	.alloc_mr = scx_alloc_mr,
	.alloc_mw = scx_alloc_mw,
	.alloc_pd = scx_alloc_pd,
	.alloc_ucontext = scx_alloc_ucontext,
	.counter_alloc_stats = scx_counter_alloc_stats,
	.counter_bind_qp = scx_counter_bind_qp,
	.counter_dealloc = scx_counter_dealloc,
	.counter_unbind_qp = scx_counter_unbind_qp,
	.counter_update_stats = scx_counter_update_stats,
	.create_ah = scx_create_ah,
	.create_cq = scx_create_cq,
	.create_qp = scx_create_qp,
	.create_srq = scx_create_srq,
	.create_user_ah = scx_create_ah,
	.dealloc_driver = scx_dealloc_driver,
	.dealloc_pd = scx_dealloc_pd,
	.dealloc_ucontext = scx_dealloc_ucontext,
	.dealloc_mw = scx_dealloc_mw,
	.del_gid = scx_del_gid,
	.dereg_mr = scx_dereg_mr,
	.destroy_ah = scx_destroy_ah,
	.destroy_cq = scx_destroy_cq,
	.destroy_qp = scx_destroy_qp,
	.destroy_srq = scx_destroy_srq,
	.disassociate_ucontext = scx_disassociate_ucontext,
	.get_dma_mr = scx_get_dma_mr,
	.get_hw_stats = scx_get_hw_stats,
	.get_link_layer = scx_get_link_layer,
	.get_port_immutable = scx_get_port_immutable,
	.map_mr_sg = scx_map_mr_sg,
	.mmap = scx_mmap,
	.mmap_free = scx_mmap_free,
	.modify_qp = scx_modify_qp,
	.modify_srq = scx_modify_srq,
	.poll_cq = scx_poll_cq,
	.post_recv = scx_post_recv,
	.post_send = scx_post_send,
	.post_srq_recv = scx_post_srq_recv,
	.query_device = scx_query_device,
	.query_pkey = scx_query_pkey,
	.query_port = scx_query_port,
	.query_qp = scx_query_qp,
	.query_srq = scx_query_srq,
	.reg_user_mr = scx_reg_user_mr,
	.rereg_user_mr = scx_rereg_user_mr,
	.req_notify_cq = scx_req_notify_cq,
	.resize_cq = scx_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, scx_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, scx_ibcq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, scx_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, scx_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, scx_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, scx_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, scx_ucontext, ibuc),
};

/* PORT_CHANGE from the firmware (hardirq); ib_dispatch_event may be used here. */
static void scx_port_event(void *ctx, u8 port, u8 sub_type)
{
	struct scx_ibdev *sdev = ctx;
	struct ib_event ev = {
		.device = &sdev->ib,
		.element.port_num = port,
		/* PRM port_change sub types: 1 down, 4 active. */
		.event = sub_type == 4 ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR,
	};

	ib_dispatch_event(&ev);
}

/* A QP's async event, hardirq: to its handler (uverbs: the async fd). */
static void scx_qp_event(void *ctx, u32 qpn, u8 event_type)
{
	struct scx_ibdev *sdev = ctx;
	struct ib_event ev = { .device = &sdev->ib };
	unsigned long flags;
	struct scx_qp *qp;

	switch (event_type) {
	case SCX_QP_EVENT_COMM_EST:
		ev.event = IB_EVENT_COMM_EST;
		break;
	case SCX_QP_EVENT_SQ_DRAINED:
		ev.event = IB_EVENT_SQ_DRAINED;
		break;
	case SCX_QP_EVENT_PATH_MIG:
		ev.event = IB_EVENT_PATH_MIG;
		break;
	case SCX_QP_EVENT_PATH_MIG_FAILED:
		ev.event = IB_EVENT_PATH_MIG_ERR;
		break;
	case SCX_QP_EVENT_FATAL:
		ev.event = IB_EVENT_QP_FATAL;
		break;
	case SCX_QP_EVENT_REQ_ERR:
		ev.event = IB_EVENT_QP_REQ_ERR;
		break;
	case SCX_QP_EVENT_ACCESS_ERR:
		ev.event = IB_EVENT_QP_ACCESS_ERR;
		break;
	case SCX_QP_EVENT_LAST_WQE_REACHED:
		ev.event = IB_EVENT_QP_LAST_WQE_REACHED;
		break;
	default:
		return;
	}
	/* Held across the call: destroy_qp erases the entry first. */
	xa_lock_irqsave(&sdev->qps, flags);
	qp = xa_load(&sdev->qps, qpn);
	if (qp && qp->ibqp.event_handler) {
		ev.element.qp = &qp->ibqp;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	xa_unlock_irqrestore(&sdev->qps, flags);
}

/* An SRQ's async event, hardirq: the limit reached, or a fatal error. */
static void scx_srq_event(void *ctx, u32 srqn, u8 event_type)
{
	struct scx_ibdev *sdev = ctx;
	struct ib_event ev = { .device = &sdev->ib };
	unsigned long flags;
	struct scx_srq *srq;

	switch (event_type) {
	case SCX_SRQ_EVENT_LIMIT:
		ev.event = IB_EVENT_SRQ_LIMIT_REACHED;
		break;
	case SCX_SRQ_EVENT_CATAS:
		ev.event = IB_EVENT_SRQ_ERR;
		break;
	default:
		return;
	}
	/* Held across the call: destroy_srq erases the entry first. */
	xa_lock_irqsave(&sdev->srqs, flags);
	srq = xa_load(&sdev->srqs, srqn);
	if (srq && srq->ibsrq.event_handler) {
		ev.element.srq = &srq->ibsrq;
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	xa_unlock_irqrestore(&sdev->srqs, flags);
}

static bool scx_netdev_link_up(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

/*
 * Recovery after the firmware died, as mlx5_core's health recovery does it
 * (unload, then load the function again): the ib_device goes (users are
 * disassociated; the driver answers their destroys itself), and a new
 * function comes up under the same name on the same netdev.
 */
struct scx_recovery {
	struct work_struct work;
	struct scx_ibdev *sdev;		/* held by ib_device_try_get */
	struct net_device *ndev;
	netdevice_tracker tracker;
	const char *name;		/* kstrdup'd: the device's name */
	unsigned int recoveries;
};

static struct workqueue_struct *scx_recovery_wq;
static bool scx_recovery_off;	/* module exit; under scx_ibdevs_lock */

static void scx_recover(struct work_struct *w)
{
	struct scx_recovery *r = container_of(w, struct scx_recovery, work);
	int err;

	ib_unregister_device_and_put(&r->sdev->ib);
	err = scx_ib_add(r->name, r->ndev, r->recoveries);
	if (err)
		pr_err("%s: recovery failed: %d\n", r->name, err);
	else
		pr_info("%s: recovered from a firmware fatal error (%u so far)\n", r->name,
			r->recoveries);
	netdev_put(r->ndev, &r->tracker);
	kfree(r->name);
	kfree(r);
}

/* The health poll found the firmware dead (process context). */
static void scx_fatal(void *ctx)
{
	struct scx_ibdev *sdev = ctx;
	struct ib_event ev = {
		.device = &sdev->ib,
		.element.port_num = 1,
		.event = IB_EVENT_DEVICE_FATAL,
	};
	struct scx_recovery *r;

	ib_dispatch_event(&ev);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (r)
		r->name = kstrdup(dev_name(&sdev->ib.dev), GFP_KERNEL);
	if (!r || !r->name) {
		kfree(r);
		return;
	}
	mutex_lock(&scx_ibdevs_lock);
	/* A device already on its way out (link delete, rmmod) stays out. */
	if (scx_recovery_off || !ib_device_try_get(&sdev->ib)) {
		mutex_unlock(&scx_ibdevs_lock);
		kfree(r->name);
		kfree(r);
		return;
	}
	INIT_WORK(&r->work, scx_recover);
	r->sdev = sdev;
	r->ndev = sdev->netdev;
	netdev_hold(r->ndev, &r->tracker, GFP_KERNEL);
	r->recoveries = sdev->kdev->recoveries + 1;
	queue_work(scx_recovery_wq, &r->work);
	mutex_unlock(&scx_ibdevs_lock);
}

int scx_ib_add(const char *name, struct net_device *ndev, unsigned int recoveries)
{
	struct scx_kdev_params p = {
		.num_comp_eqs = scx_settings.comp_eqs,
		.pci_device = scx_settings.vendor_part_id,
		.cmd_timeout_ms = scx_settings.cmd_timeout_ms,
		.health_poll_ms = scx_settings.health_poll_ms,
		.dp_active_us = scx_settings.dp_active_us,
		/* Trapped doorbells need no poller: it may sleep longer. */
		.dp_idle_max_us = scx_settings.dp_idle_max_us ?:
				  (scx_uar_trapping() ? 100000 : 16000),
		.dp_doorbells_trap = scx_uar_trapping(),
		.devx_objects = scx_settings.devx,
		.dc = scx_settings.dc,
	};
	struct scx_ib_device_attr a;
	struct scx_ibdev *sdev;
	int err;

	sdev = ib_alloc_device(scx_ibdev, ib);
	if (!sdev)
		return -ENOMEM;
	INIT_LIST_HEAD(&sdev->node);
	xa_init_flags(&sdev->qps, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&sdev->srqs, XA_FLAGS_LOCK_IRQ);
	scx_uar_rearm_init(sdev);
	scx_devx_events_init(sdev);
	sdev->netdev = ndev;
	netdev_hold(ndev, &sdev->netdev_tracker, GFP_KERNEL);
	memcpy(p.mac, ndev->dev_addr, ETH_ALEN);
	p.mtu = ndev->mtu;
	p.link_up = scx_netdev_link_up(ndev);
	p.port_event = scx_port_event;
	p.qp_event = scx_qp_event;
	p.srq_event = scx_srq_event;
	p.user_event = scx_devx_dispatch;
	p.fatal = scx_fatal;
	p.port_event_ctx = sdev;
	sdev->link_up = p.link_up;
	sdev->kdev = scx_kdev_create(name, &p);
	if (IS_ERR(sdev->kdev)) {
		err = PTR_ERR(sdev->kdev);
		goto err_put;
	}
	sdev->kdev->recoveries = recoveries;
	scx_wire_attach(sdev->kdev, ndev);
	scx_debugfs_add(sdev->kdev, scx_debugfs_root());
	err = scx_verbs_query_device(sdev->kdev->drv, &a);
	if (err)
		goto err_kdev;
	/* Freed with the function (its sets go with the hca), never alone. */
	err = scx_counters_add(sdev);
	if (err)
		goto err_kdev;
	err = scx_devx_init(sdev);
	if (err)
		goto err_kdev;

	sdev->ib.node_type = RDMA_NODE_IB_CA;
	sdev->ib.phys_port_cnt = 1;
	sdev->ib.num_comp_vectors = a.num_comp_vectors;
	sdev->ib.node_guid = cpu_to_be64(a.node_guid);
	sdev->ib.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_GET_CONTEXT);
	strscpy(sdev->ib.node_desc, "softcx", sizeof(sdev->ib.node_desc));
	ib_set_device_ops(&sdev->ib, &scx_ib_ops);
	sdev->ib.driver_def = scx_devx_defs;
	err = ib_device_set_netdev(&sdev->ib, ndev, 1);
	if (err)
		goto err_kdev;
	/* The function's device is the parent, and DMA goes through its IOMMU. */
	sdev->ib.dev.parent = &sdev->kdev->fn->dev;
	err = ib_register_device(&sdev->ib, name, &sdev->kdev->fn->dev);
	if (err)
		goto err_kdev;
	mutex_lock(&scx_ibdevs_lock);
	list_add_tail(&sdev->node, &scx_ibdevs);
	mutex_unlock(&scx_ibdevs_lock);
	pr_info("%s: ib device on %s\n", dev_name(&sdev->ib.dev), netdev_name(ndev));
	return 0;

err_kdev:
	scx_kdev_destroy(sdev->kdev);
err_put:
	netdev_put(ndev, &sdev->netdev_tracker);
	ib_dealloc_device(&sdev->ib);
	return err;
}

static int scx_newlink(const char *ibdev_name, struct net_device *ndev)
{
	return scx_ib_add(ibdev_name, ndev, 0);
}

static struct rdma_link_ops scx_link_ops = {
	.type = "softcx",
	.newlink = scx_newlink,
};

/*
 * Carrier and admin changes of a bound netdev become PORT_CHANGE events;
 * its MTU is the port's, which bounds the QPs' path MTU.
 */
static int scx_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct scx_ibdev *sdev;

	mutex_lock(&scx_ibdevs_lock);
	list_for_each_entry(sdev, &scx_ibdevs, node) {
		if (sdev->netdev != ndev)
			continue;
		switch (event) {
		case NETDEV_UP:
		case NETDEV_DOWN:
		case NETDEV_CHANGE:
			if (sdev->link_up != scx_netdev_link_up(ndev)) {
				sdev->link_up = !sdev->link_up;
				scx_hca_link(sdev->kdev, sdev->link_up);
			}
			break;
		case NETDEV_CHANGEMTU:
			scx_hca_mtu(sdev->kdev, READ_ONCE(ndev->mtu));
			break;
		case NETDEV_UNREGISTER:
			scx_wire_netdev_gone(sdev->kdev);
			ib_unregister_device_queued(&sdev->ib);
			break;
		}
	}
	mutex_unlock(&scx_ibdevs_lock);
	return NOTIFY_DONE;
}

static struct notifier_block scx_netdev_nb = {
	.notifier_call = scx_netdev_event,
};

int scx_ib_init(const struct scx_ib_settings *s)
{
	int err;

	scx_settings = *s;
	err = scx_counters_init();
	if (err)
		return err;
	scx_recovery_wq = alloc_ordered_workqueue("softcx-recovery", 0);
	if (!scx_recovery_wq)
		return -ENOMEM;
	err = register_netdevice_notifier(&scx_netdev_nb);
	if (err) {
		destroy_workqueue(scx_recovery_wq);
		return err;
	}
	rdma_link_register(&scx_link_ops);
	return 0;
}

void scx_ib_exit(void)
{
	struct scx_ibdev *sdev;

	rdma_link_unregister(&scx_link_ops);
	unregister_netdevice_notifier(&scx_netdev_nb);
	/* A recovery under way finishes (its device is removed below). */
	mutex_lock(&scx_ibdevs_lock);
	scx_recovery_off = true;
	mutex_unlock(&scx_ibdevs_lock);
	flush_workqueue(scx_recovery_wq);
	/*
	 * Unregister what is left; dealloc_driver takes each off the list. A
	 * device already being removed (rdma link delete) is waited for.
	 */
	for (;;) {
		mutex_lock(&scx_ibdevs_lock);
		sdev = list_first_entry_or_null(&scx_ibdevs, struct scx_ibdev, node);
		if (sdev && !ib_device_try_get(&sdev->ib)) {
			mutex_unlock(&scx_ibdevs_lock);
			msleep(20);
			continue;
		}
		mutex_unlock(&scx_ibdevs_lock);
		if (!sdev)
			break;
		ib_unregister_device_and_put(&sdev->ib);
	}
	destroy_workqueue(scx_recovery_wq);
}
