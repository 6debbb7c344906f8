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
#include <rdma/ib_mad.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/iter.h>
#include <rdma/mlx5-abi.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>

#include "softcx/verbs.h"
#include "device.h"
#include "ib.h"

/* Static UAR pages a user context may ask for (mlx5's limit). */
#define SCX_MAX_USER_UARS 256
#define SCX_MMAP_CMD_SHIFT 8
/* A send WQE basic block (WQEBB). */
#define SCX_SEND_WQE_BB 64

struct scx_ibdev {
	struct ib_device ib;
	struct scx_kdev *kdev;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	struct list_head node;
	bool link_up;
};

struct scx_ucontext {
	struct ib_ucontext ibuc;
	unsigned int num_uars;
	u32 uar_index[SCX_MAX_USER_UARS];
	struct scx_uar_entry *entries[SCX_MAX_USER_UARS];
};

/* A user UAR page: ordinary memory the user maps; the hca owns its index. */
struct scx_uar_entry {
	struct rdma_user_mmap_entry rdma_entry;
	struct page *page;
};

struct scx_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

struct scx_ah {
	struct ib_ah ibah;
};

struct scx_qp {
	struct ib_qp ibqp;
	struct mutex lock; /* serialises modify_qp and keeps state */
	enum ib_qp_state state;
	struct ib_qp_cap cap;
	struct ib_umem *umem;
	struct ib_umem *db_umem;
};

struct scx_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
};

struct scx_ibcq {
	struct ib_cq ibcq;
	u32 cqn;
	struct scx_cq *core;
	struct ib_umem *umem;
	struct ib_umem *db_umem;
};

static struct scx_ib_settings scx_settings;
static LIST_HEAD(scx_ibdevs);
static DEFINE_MUTEX(scx_ibdevs_lock);

static struct scx_ibdev *to_sdev(struct ib_device *ib)
{
	return container_of(ib, struct scx_ibdev, ib);
}

static struct scx_drv *to_drv(struct ib_device *ib)
{
	return to_sdev(ib)->kdev->drv;
}

static void scx_obj_inc(struct ib_device *ib, enum scx_obj_type t)
{
	atomic_inc(&to_sdev(ib)->kdev->objs[t]);
}

static void scx_obj_dec(struct ib_device *ib, enum scx_obj_type t)
{
	atomic_dec(&to_sdev(ib)->kdev->objs[t]);
}

/*
 * Bus addresses of a pinned user buffer in blocks of 1 << shift. Without a
 * DMA device the core hands out kernel virtual addresses; the hca, like a
 * device without an IOMMU, is given physical ones.
 */
static u64 *scx_umem_pages(struct ib_umem *umem, unsigned int shift, u32 *n)
{
	struct ib_block_iter biter;
	u64 *pages;
	u32 i = 0;

	*n = ib_umem_num_dma_blocks(umem, 1UL << shift);
	pages = kvmalloc_array(*n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	rdma_umem_for_each_dma_block(umem, &biter, 1UL << shift)
		pages[i++] = virt_to_phys((void *)(uintptr_t)rdma_block_iter_dma_address(&biter));
	return pages;
}

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
	attr->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN | IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = a.max_send_sge;
	attr->max_recv_sge = a.max_recv_sge;
	attr->max_sge_rd = a.max_send_sge;
	attr->max_cq = a.max_cq;
	attr->max_cqe = a.max_cqe;
	attr->max_mr = a.max_mr;
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

static void scx_free_uars(struct scx_ucontext *uc)
{
	struct scx_drv *drv = to_drv(uc->ibuc.device);
	unsigned int i;

	for (i = 0; i < uc->num_uars; i++) {
		/* The page itself goes when its last mapping does (mmap_free). */
		rdma_user_mmap_entry_remove(&uc->entries[i]->rdma_entry);
		scx_verbs_dealloc_uar(drv, uc->uar_index[i]);
	}
	uc->num_uars = 0;
}

static int scx_alloc_uars(struct scx_ucontext *uc, unsigned int count)
{
	struct scx_drv *drv = to_drv(uc->ibuc.device);
	struct scx_uar_entry *e;
	int err;

	while (uc->num_uars < count) {
		unsigned int i = uc->num_uars;

		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (!e)
			return -ENOMEM;
		e->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!e->page) {
			kfree(e);
			return -ENOMEM;
		}
		err = scx_verbs_alloc_uar(drv, &uc->uar_index[i]);
		if (!err)
			err = rdma_user_mmap_entry_insert_exact(&uc->ibuc, &e->rdma_entry, PAGE_SIZE, i);
		if (err) {
			if (uc->uar_index[i])
				scx_verbs_dealloc_uar(drv, uc->uar_index[i]);
			__free_page(e->page);
			kfree(e);
			return err;
		}
		uc->entries[i] = e;
		uc->num_uars++;
	}
	return 0;
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
	/* No DevX: libmlx5 retries without it and mlx5dv users see EOPNOTSUPP. */
	if (req.flags & MLX5_IB_ALLOC_UCTX_DEVX)
		return -EOPNOTSUPP;
	if (req.flags || req.comp_mask)
		return -EOPNOTSUPP;
	if (req.reserved0 || req.reserved1 || req.reserved2)
		return -EINVAL;
	total = ALIGN(req.total_num_bfregs, 2);
	if (!total || req.num_low_latency_bfregs > total - 1)
		return -EINVAL;
	if (total / 2 > SCX_MAX_USER_UARS)
		return -ENOMEM;
	err = scx_verbs_query_device(to_drv(ibuc->device), &a);
	if (err)
		return err;

	/* Static UARs, one bfreg pair per page, no BlueFlame (bf_reg_size 0). */
	err = scx_alloc_uars(uc, total / 2);
	if (err)
		goto err_uars;

	resp.qp_tab_size = a.max_qp;
	resp.bf_reg_size = 0;
	resp.tot_bfregs = total;
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
	return err;
}

static void scx_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	scx_free_uars(container_of(ibuc, struct scx_ucontext, ibuc));
	scx_obj_dec(ibuc->device, SCX_OBJ_UCTX);
}

/* Device removal with contexts open: the core zaps their mappings itself. */
static void scx_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int scx_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	unsigned long cmd = vma->vm_pgoff >> SCX_MMAP_CMD_SHIFT;
	unsigned long index = vma->vm_pgoff & ((1UL << SCX_MMAP_CMD_SHIFT) - 1);
	struct rdma_user_mmap_entry *entry;
	struct scx_uar_entry *e;
	int err;

	switch (cmd) {
	case MLX5_IB_MMAP_REGULAR_PAGE:
	case MLX5_IB_MMAP_WC_PAGE:
	case MLX5_IB_MMAP_NC_PAGE:
		break;
	default:
		return -EINVAL;
	}
	entry = rdma_user_mmap_entry_get_pgoff(ibuc, index);
	if (!entry)
		return -EINVAL;
	e = container_of(entry, struct scx_uar_entry, rdma_entry);
	err = rdma_user_mmap_io(ibuc, vma, page_to_pfn(e->page), PAGE_SIZE, vma->vm_page_prot,
				entry);
	rdma_user_mmap_entry_put(entry);
	return err;
}

static void scx_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct scx_uar_entry *e = container_of(entry, struct scx_uar_entry, rdma_entry);

	__free_page(e->page);
	kfree(e);
}

static int scx_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct scx_pd *pd = container_of(ibpd, struct scx_pd, ibpd);
	struct mlx5_ib_alloc_pd_resp resp = {};
	int err;

	err = scx_verbs_alloc_pd(to_drv(ibpd->device), &pd->pdn);
	if (err)
		return err;
	if (udata) {
		resp.pdn = pd->pdn;
		err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
		if (err) {
			scx_verbs_dealloc_pd(to_drv(ibpd->device), pd->pdn);
			return err;
		}
	}
	scx_obj_inc(ibpd->device, SCX_OBJ_PD);
	return 0;
}

static int scx_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct scx_pd *pd = container_of(ibpd, struct scx_pd, ibpd);
	int err;

	err = scx_verbs_dealloc_pd(to_drv(ibpd->device), pd->pdn);
	if (!err)
		scx_obj_dec(ibpd->device, SCX_OBJ_PD);
	return err;
}

/* Pins the page of a user doorbell record; returns its bus address. */
static int scx_pin_dbrec(struct ib_device *ib, u64 uaddr, struct ib_umem **umem, u64 *bus)
{
	u64 *pages;
	u32 n;

	if (uaddr & 7)
		return -EINVAL;
	*umem = ib_umem_get(ib, uaddr & PAGE_MASK, PAGE_SIZE, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(*umem))
		return PTR_ERR(*umem);
	pages = scx_umem_pages(*umem, PAGE_SHIFT, &n);
	if (!pages) {
		ib_umem_release(*umem);
		return -ENOMEM;
	}
	*bus = pages[0] + (uaddr & ~PAGE_MASK);
	kvfree(pages);
	return 0;
}

static u32 scx_access(int acc)
{
	return (acc & IB_ACCESS_LOCAL_WRITE ? SCX_ACCESS_LOCAL_WRITE : 0) |
	       (acc & IB_ACCESS_REMOTE_WRITE ? SCX_ACCESS_REMOTE_WRITE : 0) |
	       (acc & IB_ACCESS_REMOTE_READ ? SCX_ACCESS_REMOTE_READ : 0) |
	       (acc & IB_ACCESS_REMOTE_ATOMIC ? SCX_ACCESS_REMOTE_ATOMIC : 0);
}

#define SCX_MR_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
		       IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_RELAXED_ORDERING)

static struct ib_mr *scx_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 iova,
				     int access, struct ib_udata *udata)
{
	struct scx_pd *pd = container_of(ibpd, struct scx_pd, ibpd);
	struct scx_mr_params p = {};
	struct scx_mr *mr;
	u32 key;
	int err;

	if (access & ~SCX_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	if (!length)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	p.pdn = pd->pdn;
	p.access = scx_access(access);
	p.iova = iova;
	p.length = length;
	p.page_shift = PAGE_SHIFT;
	ib_umem_find_best_pgsz(mr->umem, PAGE_SIZE, iova); /* sets the umem's iova */
	p.pages = scx_umem_pages(mr->umem, PAGE_SHIFT, &p.npages);
	if (!p.pages) {
		err = -ENOMEM;
		goto err_umem;
	}
	err = scx_verbs_create_mkey(to_drv(ibpd->device), &p, &key);
	kvfree(p.pages);
	if (err)
		goto err_umem;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	scx_obj_inc(ibpd->device, SCX_OBJ_MR);
	return &mr->ibmr;

err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int scx_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct scx_mr *mr = container_of(ibmr, struct scx_mr, ibmr);
	int err;

	err = scx_verbs_destroy_mkey(to_drv(ibmr->device), ibmr->lkey);
	if (err)
		return err;
	ib_umem_release(mr->umem);
	scx_obj_dec(ibmr->device, SCX_OBJ_MR);
	kfree(mr);
	return 0;
}

static void scx_cq_comp(void *ctx)
{
	struct ib_cq *ibcq = ctx;

	if (ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

static void scx_cq_event(void *ctx, u8 type)
{
	struct ib_cq *ibcq = ctx;
	struct ib_event ev = {
		.device = ibcq->device,
		.element.cq = ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (ibcq->event_handler)
		ibcq->event_handler(&ev, ibcq->cq_context);
}

static int scx_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	struct scx_ucontext *uc = rdma_udata_to_drv_context(udata, struct scx_ucontext, ibuc);
	struct scx_ibcq *cq = container_of(ibcq, struct scx_ibcq, ibcq);
	struct mlx5_ib_create_cq_resp resp = {};
	struct mlx5_ib_create_cq ucmd = {};
	struct scx_cq_params p = {};
	struct scx_ib_device_attr a;
	u32 entries, cqn;
	int err;

	/* Kernel consumers (no udata) are not served yet. */
	if (!udata || !uc)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (udata->inlen < offsetof(struct mlx5_ib_create_cq, flags))
		return -EINVAL;
	err = ib_copy_from_udata(&ucmd, udata, min(udata->inlen, sizeof(ucmd)));
	if (err)
		return err;
	if (ucmd.cqe_comp_en || ucmd.flags)
		return -EOPNOTSUPP;
	if ((ucmd.cqe_size != 64 && ucmd.cqe_size != 128) || (ucmd.buf_addr & ~PAGE_MASK) ||
	    (ucmd.db_addr & 7))
		return -EINVAL;
	err = scx_verbs_query_device(to_drv(ibcq->device), &a);
	if (err)
		return err;
	if (attr->cqe < 1 || attr->cqe > a.max_cqe)
		return -EINVAL;
	entries = roundup_pow_of_two(attr->cqe + 1);

	cq->umem = ib_umem_get(ibcq->device, ucmd.buf_addr, (size_t)entries * ucmd.cqe_size,
			       IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(cq->umem))
		return PTR_ERR(cq->umem);
	err = scx_pin_dbrec(ibcq->device, ucmd.db_addr, &cq->db_umem, &p.dbr_addr);
	if (err)
		goto err_umem;

	p.log_size = ilog2(entries);
	p.cqe_size = ucmd.cqe_size;
	p.uar_index = uc->uar_index[0];
	p.comp_vector = attr->comp_vector;
	p.page_shift = PAGE_SHIFT;
	p.ctx = ibcq;
	p.comp = scx_cq_comp;
	p.event = scx_cq_event;
	p.pages = scx_umem_pages(cq->umem, PAGE_SHIFT, &p.npages);
	if (!p.pages) {
		err = -ENOMEM;
		goto err_db;
	}
	err = scx_verbs_create_cq(to_drv(ibcq->device), &p, &cq->core, &cqn);
	kvfree(p.pages);
	if (err)
		goto err_db;
	cq->cqn = cqn;
	resp.cqn = cqn;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err_cq;
	ibcq->cqe = entries - 1;
	scx_obj_inc(ibcq->device, SCX_OBJ_CQ);
	return 0;

err_cq:
	scx_verbs_destroy_cq(to_drv(ibcq->device), cq->core);
err_db:
	ib_umem_release(cq->db_umem);
err_umem:
	ib_umem_release(cq->umem);
	return err;
}

static int scx_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct scx_ibcq *cq = container_of(ibcq, struct scx_ibcq, ibcq);
	int err;

	err = scx_verbs_destroy_cq(to_drv(ibcq->device), cq->core);
	ib_umem_release(cq->db_umem);
	ib_umem_release(cq->umem);
	scx_obj_dec(ibcq->device, SCX_OBJ_CQ);
	return err;
}


#define SCX_QP_FLAGS_OK MLX5_QP_FLAG_SCATTER_CQE

static int scx_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata)
{
	struct scx_ucontext *uc = rdma_udata_to_drv_context(udata, struct scx_ucontext, ibuc);
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	struct scx_pd *pd = container_of(ibqp->pd, struct scx_pd, ibpd);
	struct mlx5_ib_create_qp_resp resp = {};
	struct scx_qp_create_params p = {};
	struct mlx5_ib_create_qp ucmd = {};
	struct scx_ib_device_attr a;
	struct ib_cq *scq = init->send_cq, *rcq = init->recv_cq;
	u64 rq_bytes, sq_bytes;
	u32 qpn;
	int err;

	switch (init->qp_type) {
	case IB_QPT_RC:
		p.type = SCX_QPT_RC;
		break;
	case IB_QPT_UC:
		p.type = SCX_QPT_UC;
		break;
	case IB_QPT_UD:
		p.type = SCX_QPT_UD;
		break;
	default:
		return -EOPNOTSUPP;
	}
	/* Kernel consumers (no udata) are not served yet. */
	if (!udata || !uc)
		return -EOPNOTSUPP;
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (udata->inlen < offsetof(struct mlx5_ib_create_qp, sq_buf_addr))
		return -EINVAL;
	err = ib_copy_from_udata(&ucmd, udata, min(udata->inlen, sizeof(ucmd)));
	if (err)
		return err;
	if (ucmd.flags & ~SCX_QP_FLAGS_OK)
		return -EINVAL;
	err = scx_verbs_query_device(to_drv(ibqp->device), &a);
	if (err)
		return err;
	if (init->cap.max_send_wr > a.max_qp_wr || init->cap.max_recv_wr > a.max_qp_wr ||
	    init->cap.max_send_sge > a.max_send_sge || init->cap.max_recv_sge > a.max_recv_sge ||
	    init->cap.max_inline_data > a.max_send_sge * 16)
		return -EINVAL;
	if ((ucmd.buf_addr & ~PAGE_MASK) || ucmd.sq_wqe_count > a.max_qp_wr ||
	    ucmd.rq_wqe_count > a.max_qp_wr || ucmd.rq_wqe_shift < 4 ||
	    (1U << min(ucmd.rq_wqe_shift, 31U)) > a.max_recv_sge * 16 ||
	    (ucmd.uidx & ~0xffffffU) || (init->srq && ucmd.rq_wqe_count) ||
	    (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC && init->qp_type != IB_QPT_UD))
		return -EINVAL;
	rq_bytes = (u64)ucmd.rq_wqe_count << ucmd.rq_wqe_shift;
	sq_bytes = (u64)ucmd.sq_wqe_count * SCX_SEND_WQE_BB;
	if (!rq_bytes && !sq_bytes)
		return -EINVAL;

	mutex_init(&qp->lock);
	qp->umem = ib_umem_get(ibqp->device, ucmd.buf_addr, rq_bytes + sq_bytes, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(qp->umem))
		return PTR_ERR(qp->umem);
	err = scx_pin_dbrec(ibqp->device, ucmd.db_addr, &qp->db_umem, &p.dbr_addr);
	if (err)
		goto err_umem;

	p.pdn = pd->pdn;
	p.send_cqn = container_of(scq, struct scx_ibcq, ibcq)->cqn;
	p.recv_cqn = container_of(rcq, struct scx_ibcq, ibcq)->cqn;
	if (init->srq) {
		p.has_srq = 1;
		p.srqn = init->srq->ext.xrc.srq_num;
	}
	p.uar_index = uc->uar_index[0];
	p.user_index = ucmd.uidx;
	p.sq_wqebbs = ucmd.sq_wqe_count;
	p.rq_wqes = ucmd.rq_wqe_count;
	p.rq_wqe_shift = ucmd.rq_wqe_shift;
	p.page_shift = PAGE_SHIFT;
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
	resp.bfreg_index = 0;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err_qp;
	scx_obj_inc(ibqp->device, SCX_OBJ_QP);
	return 0;

err_qp:
	scx_verbs_destroy_qp(to_drv(ibqp->device), qpn);
err_db:
	ib_umem_release(qp->db_umem);
err_umem:
	ib_umem_release(qp->umem);
	return err;
}

static int scx_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	int err;

	err = scx_verbs_destroy_qp(to_drv(ibqp->device), ibqp->qp_num);
	if (err)
		return err;
	ib_umem_release(qp->db_umem);
	ib_umem_release(qp->umem);
	scx_obj_dec(ibqp->device, SCX_OBJ_QP);
	return 0;
}

static int scx_check_qp_attr(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask)
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

static int scx_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	struct scx_qp_attr m = {};
	enum ib_qp_state cur, new;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	mutex_lock(&qp->lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = scx_check_qp_attr(ibqp, attr, mask);
	if (err)
		goto out;
	/* Nothing to tell the device: RESET to RESET with no attributes. */
	if (cur == IB_QPS_RESET && new == IB_QPS_RESET)
		goto out;

	m.type = ibqp->qp_type == IB_QPT_RC ? SCX_QPT_RC :
		 ibqp->qp_type == IB_QPT_UC ? SCX_QPT_UC : SCX_QPT_UD;
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
	if (mask & IB_QP_AV)
		scx_fill_path(ibqp, attr, &m);
	err = scx_verbs_modify_qp(to_drv(ibqp->device), ibqp->qp_num, &m);
	if (!err)
		qp->state = new;
out:
	mutex_unlock(&qp->lock);
	return err;
}

static int scx_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
			struct ib_qp_init_attr *init)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);
	struct scx_qp_attr q;
	int err;

	err = scx_verbs_query_qp(to_drv(ibqp->device), ibqp->qp_num, &q);
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
	attr->qp_access_flags = (q.access & SCX_ACCESS_REMOTE_READ ? IB_ACCESS_REMOTE_READ : 0) |
				(q.access & SCX_ACCESS_REMOTE_WRITE ? IB_ACCESS_REMOTE_WRITE : 0) |
				(q.access & SCX_ACCESS_REMOTE_ATOMIC ? IB_ACCESS_REMOTE_ATOMIC : 0);
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
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = IB_SIGNAL_REQ_WR;
	return 0;
}

/*
 * Address handles are the user's own business on mlx5 (the AV lives in the
 * WQE); the kernel only tells libmlx5 the destination MAC the core resolved.
 */
static int scx_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init, struct ib_udata *udata)
{
	struct rdma_ah_attr *attr = init->ah_attr;
	struct mlx5_ib_create_ah_resp resp = {};
	size_t min_len = offsetofend(struct mlx5_ib_create_ah_resp, dmac);
	int err;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE || !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	if (udata) {
		if (udata->outlen < min_len)
			return -EINVAL;
		resp.response_length = min_len;
		memcpy(resp.dmac, attr->roce.dmac, ETH_ALEN);
		err = ib_copy_to_udata(udata, &resp, resp.response_length);
		if (err)
			return err;
	}
	scx_obj_inc(ibah->device, SCX_OBJ_AH);
	return 0;
}

static int scx_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	scx_obj_dec(ibah->device, SCX_OBJ_AH);
	return 0;
}

/* Called by the core once the ib_device is unregistered: free the function. */
static void scx_dealloc_driver(struct ib_device *ib)
{
	struct scx_ibdev *sdev = to_sdev(ib);

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

	.alloc_pd = scx_alloc_pd,
	.alloc_ucontext = scx_alloc_ucontext,
	.create_ah = scx_create_ah,
	.create_cq = scx_create_cq,
	.create_qp = scx_create_qp,
	.create_user_ah = scx_create_ah,
	.dealloc_driver = scx_dealloc_driver,
	.dealloc_pd = scx_dealloc_pd,
	.dealloc_ucontext = scx_dealloc_ucontext,
	.dereg_mr = scx_dereg_mr,
	.destroy_ah = scx_destroy_ah,
	.destroy_cq = scx_destroy_cq,
	.destroy_qp = scx_destroy_qp,
	.disassociate_ucontext = scx_disassociate_ucontext,
	.get_link_layer = scx_get_link_layer,
	.get_port_immutable = scx_get_port_immutable,
	.mmap = scx_mmap,
	.mmap_free = scx_mmap_free,
	.modify_qp = scx_modify_qp,
	.query_device = scx_query_device,
	.query_pkey = scx_query_pkey,
	.query_port = scx_query_port,
	.query_qp = scx_query_qp,
	.reg_user_mr = scx_reg_user_mr,

	INIT_RDMA_OBJ_SIZE(ib_ah, scx_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, scx_ibcq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, scx_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, scx_qp, ibqp),
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

static bool scx_netdev_link_up(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

int scx_ib_add(const char *name, struct net_device *ndev)
{
	struct scx_kdev_params p = {
		.num_comp_eqs = scx_settings.comp_eqs,
		.cmd_timeout_ms = scx_settings.cmd_timeout_ms,
	};
	struct scx_ib_device_attr a;
	struct scx_ibdev *sdev;
	int err;

	sdev = ib_alloc_device(scx_ibdev, ib);
	if (!sdev)
		return -ENOMEM;
	INIT_LIST_HEAD(&sdev->node);
	sdev->netdev = ndev;
	netdev_hold(ndev, &sdev->netdev_tracker, GFP_KERNEL);
	memcpy(p.mac, ndev->dev_addr, ETH_ALEN);
	p.mtu = ndev->mtu;
	p.link_up = scx_netdev_link_up(ndev);
	p.port_event = scx_port_event;
	p.port_event_ctx = sdev;
	sdev->link_up = p.link_up;
	sdev->kdev = scx_kdev_create(name, &p);
	if (IS_ERR(sdev->kdev)) {
		err = PTR_ERR(sdev->kdev);
		goto err_put;
	}
	scx_debugfs_add(sdev->kdev, scx_debugfs_root());
	err = scx_verbs_query_device(sdev->kdev->drv, &a);
	if (err)
		goto err_kdev;

	sdev->ib.node_type = RDMA_NODE_IB_CA;
	sdev->ib.phys_port_cnt = 1;
	sdev->ib.num_comp_vectors = a.num_comp_vectors;
	sdev->ib.node_guid = cpu_to_be64(a.node_guid);
	sdev->ib.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_GET_CONTEXT);
	strscpy(sdev->ib.node_desc, "softcx", sizeof(sdev->ib.node_desc));
	ib_set_device_ops(&sdev->ib, &scx_ib_ops);
	err = ib_device_set_netdev(&sdev->ib, ndev, 1);
	if (err)
		goto err_kdev;
	err = ib_register_device(&sdev->ib, name, NULL);
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
	return scx_ib_add(ibdev_name, ndev);
}

static struct rdma_link_ops scx_link_ops = {
	.type = "softcx",
	.newlink = scx_newlink,
};

/* Carrier and admin changes of a bound netdev become PORT_CHANGE events. */
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
		case NETDEV_UNREGISTER:
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
	err = register_netdevice_notifier(&scx_netdev_nb);
	if (err)
		return err;
	rdma_link_register(&scx_link_ops);
	return 0;
}

void scx_ib_exit(void)
{
	struct scx_ibdev *sdev;

	rdma_link_unregister(&scx_link_ops);
	unregister_netdevice_notifier(&scx_netdev_nb);
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
}
