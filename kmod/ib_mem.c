// SPDX-License-Identifier: GPL-2.0
/*
 * Memory-side verbs objects of a softcx ib_device: PDs, user MRs, CQs and
 * address handles, each made by its PRM command through core_cpp.
 */
#include "kmod.h"

#include <linux/mm.h>
#include <rdma/iter.h>
#include <rdma/mlx5-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ib_priv.h"

/*
 * Bus addresses (IOVAs of the function's IOMMU) of a pinned user buffer, in
 * blocks of 1 << shift.
 */
u64 *scx_umem_pages(struct ib_umem *umem, unsigned int shift, u32 *n)
{
	struct ib_block_iter biter;
	u64 *pages;
	u32 i = 0;

	*n = ib_umem_num_dma_blocks(umem, 1UL << shift);
	pages = kvmalloc_array(*n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	rdma_umem_for_each_dma_block(umem, &biter, 1UL << shift)
		pages[i++] = rdma_block_iter_dma_address(&biter);
	return pages;
}

int scx_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct scx_pd *pd = container_of(ibpd, struct scx_pd, ibpd);
	struct mlx5_ib_alloc_pd_resp resp = {};
	int err;

	pd->uid = scx_udata_uid(udata);
	err = scx_verbs_alloc_pd(to_drv(ibpd->device), pd->uid, &pd->pdn);
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

int scx_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct scx_pd *pd = container_of(ibpd, struct scx_pd, ibpd);
	int err;

	err = scx_verbs_dealloc_pd(to_drv(ibpd->device), pd->pdn);
	if (!err)
		scx_obj_dec(ibpd->device, SCX_OBJ_PD);
	return err;
}

/* The context's pinned page holding uaddr, or a new one; NULL on error. */
static struct scx_dbrec_page *scx_dbrec_page_get(struct scx_ucontext *uc, u64 uaddr, int *err)
{
	struct scx_dbrec_page *pg;
	u64 *pages;
	u32 n;

	list_for_each_entry(pg, &uc->dbrec_pages, node) {
		if (pg->uaddr == (uaddr & PAGE_MASK)) {
			pg->refs++;
			return pg;
		}
	}
	pg = kzalloc(sizeof(*pg), GFP_KERNEL);
	if (!pg) {
		*err = -ENOMEM;
		return NULL;
	}
	pg->umem = ib_umem_get(uc->ibuc.device, uaddr & PAGE_MASK, PAGE_SIZE, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(pg->umem)) {
		*err = PTR_ERR(pg->umem);
		kfree(pg);
		return NULL;
	}
	pages = scx_umem_pages(pg->umem, PAGE_SHIFT, &n);
	if (!pages) {
		ib_umem_release(pg->umem);
		kfree(pg);
		*err = -ENOMEM;
		return NULL;
	}
	pg->bus = pages[0];
	kvfree(pages);
	pg->uc = uc;
	pg->uaddr = uaddr & PAGE_MASK;
	pg->refs = 1;
	list_add(&pg->node, &uc->dbrec_pages);
	return pg;
}

/* Pins the page of a user doorbell record; returns its bus address. */
int scx_pin_dbrec(struct ib_udata *udata, u64 uaddr, struct scx_dbrec_page **pg, u64 *bus)
{
	struct scx_ucontext *uc = rdma_udata_to_drv_context(udata, struct scx_ucontext, ibuc);
	int err = 0;

	if (uaddr & 7)
		return -EINVAL;
	if (!uc)
		return -EINVAL;
	mutex_lock(&uc->dbrec_lock);
	*pg = scx_dbrec_page_get(uc, uaddr, &err);
	mutex_unlock(&uc->dbrec_lock);
	if (!*pg)
		return err;
	*bus = (*pg)->bus + (uaddr & ~PAGE_MASK);
	return 0;
}

/* One record fewer on its page; the last one unpins it. */
void scx_unpin_dbrec(struct scx_dbrec_page *pg)
{
	struct scx_ucontext *uc;
	bool last;

	if (!pg)
		return;
	uc = pg->uc;
	mutex_lock(&uc->dbrec_lock);
	last = !--pg->refs;
	if (last)
		list_del(&pg->node);
	mutex_unlock(&uc->dbrec_lock);
	if (last) {
		ib_umem_release(pg->umem);
		kfree(pg);
	}
}

/*
 * The test switches that make this driver buggy on purpose (debugfs inject
 * mtt_hole / short_list): the hca must refuse what such a table points at.
 */
static void scx_mr_driver_bugs(struct scx_kdev *kdev, u64 *pages, struct scx_mr_params *p)
{
	if (p->npages > 1 && atomic_add_unless(&kdev->bug_mtt_hole, -1, 0))
		pages[p->npages - 1] = 0;
	if (p->npages > 2 && atomic_add_unless(&kdev->bug_short_list, -1, 0))
		p->nfilled = (p->npages - 1) & ~1u; /* whole octwords */
}

u32 scx_access(int acc)
{
	return (acc & IB_ACCESS_LOCAL_WRITE ? SCX_ACCESS_LOCAL_WRITE : 0) |
	       (acc & IB_ACCESS_REMOTE_WRITE ? SCX_ACCESS_REMOTE_WRITE : 0) |
	       (acc & IB_ACCESS_REMOTE_READ ? SCX_ACCESS_REMOTE_READ : 0) |
	       (acc & IB_ACCESS_REMOTE_ATOMIC ? SCX_ACCESS_REMOTE_ATOMIC : 0);
}

/* The remote access bits back in verbs terms (queries). */
int scx_ib_access(u32 acc)
{
	return (acc & SCX_ACCESS_REMOTE_READ ? IB_ACCESS_REMOTE_READ : 0) |
	       (acc & SCX_ACCESS_REMOTE_WRITE ? IB_ACCESS_REMOTE_WRITE : 0) |
	       (acc & SCX_ACCESS_REMOTE_ATOMIC ? IB_ACCESS_REMOTE_ATOMIC : 0);
}

/* MW_BIND is accepted and not enforced: mlx5's mkey context cannot say it. */
#define SCX_MR_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
		       IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_RELAXED_ORDERING | IB_ACCESS_MW_BIND)

struct ib_mr *scx_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 iova,
				     int access, struct ib_udata *udata)
{
	struct scx_pd *pd = container_of(ibpd, struct scx_pd, ibpd);
	struct scx_mr_params p = {};
	struct scx_mr *mr;
	u64 *pages;
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
	pages = scx_umem_pages(mr->umem, PAGE_SHIFT, &p.npages);
	if (!pages) {
		err = -ENOMEM;
		goto err_umem;
	}
	scx_mr_driver_bugs(to_sdev(ibpd->device)->kdev, pages, &p);
	p.pages = pages;
	err = scx_verbs_create_mkey(to_drv(ibpd->device), &p, &key);
	kvfree(pages);
	if (err)
		goto err_umem;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	/* The core sets these after a registration, not after a rereg. */
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->access = access;
	scx_obj_inc(ibpd->device, SCX_OBJ_MR);
	return &mr->ibmr;

err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

int scx_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct scx_mr *mr = container_of(ibmr, struct scx_mr, ibmr);
	int err;

	/* A fast-registration MR has its page list, a user MR its pages. */
	err = mr->kmr ? scx_kmr_destroy(mr->kmr) : scx_verbs_destroy_mkey(to_drv(ibmr->device), ibmr->lkey);
	if (err)
		return err;
	kfree(mr->pages);
	ib_umem_release(mr->umem);
	scx_obj_dec(ibmr->device, SCX_OBJ_MR);
	kfree(mr);
	return 0;
}

/*
 * Rereg of the translation: a new mkey over the new range, with the new
 * PD or access if the flags change them too; the core then destroys the
 * old MR and puts the new one (new keys) behind the same handle, the old
 * keys dead at once. A rereg of only the PD or access is EOPNOTSUPP:
 * a ConnectX keeps the keys then (mlx5_ib rewrites the mkey in place
 * with UMR), which softcx's driver cannot do yet, and users rely on it.
 */
struct ib_mr *scx_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start, u64 length, u64 iova,
				int access, struct ib_pd *pd, struct ib_udata *udata)
{
	struct scx_mr *mr = container_of(ibmr, struct scx_mr, ibmr);

	if (!(flags & IB_MR_REREG_TRANS))
		return ERR_PTR(-EOPNOTSUPP);
	if (!mr->umem)
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_PD))
		pd = ibmr->pd;
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	return scx_reg_user_mr(pd, start, length, iova, access, udata);
}

/* A memory window: a free key until the user binds it with a UMR WQE. */
int scx_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct scx_pd *pd = container_of(ibmw->pd, struct scx_pd, ibpd);
	struct mlx5_ib_alloc_mw req = {};
	u32 key;
	int err;

	if (udata && udata->inlen) {
		err = ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req)));
		if (err)
			return err;
		if (req.comp_mask || req.reserved1 || req.reserved2)
			return -EOPNOTSUPP;
		if (udata->inlen > sizeof(req) &&
		    !ib_is_udata_cleared(udata, sizeof(req), udata->inlen - sizeof(req)))
			return -EOPNOTSUPP;
	}
	err = scx_verbs_create_mw(to_drv(ibmw->device), pd->pdn, ibmw->type == IB_MW_TYPE_2, &key);
	if (err)
		return err;
	ibmw->rkey = key;
	scx_obj_inc(ibmw->device, SCX_OBJ_MW);
	return 0;
}

int scx_dealloc_mw(struct ib_mw *ibmw)
{
	int err = scx_verbs_destroy_mkey(to_drv(ibmw->device), ibmw->rkey);

	if (!err)
		scx_obj_dec(ibmw->device, SCX_OBJ_MW);
	return err;
}

/* A CQ's completion event and its error (CQ_ERROR), to the consumer. */
void scx_ib_cq_comp(struct ib_cq *ibcq)
{
	if (ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

void scx_ib_cq_error(struct ib_cq *ibcq)
{
	struct ib_event ev = {
		.device = ibcq->device,
		.element.cq = ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (ibcq->event_handler)
		ibcq->event_handler(&ev, ibcq->cq_context);
}

static void scx_cq_comp(void *ctx)
{
	scx_ib_cq_comp(ctx);
}

static void scx_cq_event(void *ctx, u8 type)
{
	scx_ib_cq_error(ctx);
}

int scx_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
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

	if (attr->flags)
		return -EOPNOTSUPP;
	if (!udata)
		return scx_create_kcq(ibcq, attr);
	if (!uc)
		return -EOPNOTSUPP;
	if (udata->inlen < offsetof(struct mlx5_ib_create_cq, flags))
		return -EINVAL;
	err = ib_copy_from_udata(&ucmd, udata, min(udata->inlen, sizeof(ucmd)));
	if (err)
		return err;
	if (ucmd.cqe_comp_en || (ucmd.flags & ~MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX))
		return -EOPNOTSUPP;
	if ((ucmd.cqe_size != 64 && ucmd.cqe_size != 128) || (ucmd.buf_addr & ~PAGE_MASK) ||
	    (ucmd.db_addr & 7))
		return -EINVAL;
	err = scx_uar_of_create(uc, ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX, false,
				ucmd.uar_page_index, &p.uar_index);
	if (!err)
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
	err = scx_pin_dbrec(udata, ucmd.db_addr, &cq->dbrec, &p.dbr_addr);
	if (err)
		goto err_umem;

	p.log_size = ilog2(entries);
	p.cqe_size = ucmd.cqe_size;
	p.uid = uc->devx_uid;
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
	scx_unpin_dbrec(cq->dbrec);
err_umem:
	ib_umem_release(cq->umem);
	return err;
}

int scx_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct scx_ibcq *cq = container_of(ibcq, struct scx_ibcq, ibcq);
	int err;

	if (cq->kcq)
		return scx_destroy_kcq(ibcq);
	err = scx_verbs_destroy_cq(to_drv(ibcq->device), cq->core);
	scx_unpin_dbrec(cq->dbrec);
	ib_umem_release(cq->umem);
	scx_obj_dec(ibcq->device, SCX_OBJ_CQ);
	return err;
}
/*
 * Address handles are the user's own business on mlx5 (the AV lives in the
 * WQE); the kernel only tells libmlx5 the destination MAC the core resolved.
 */
int scx_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init, struct ib_udata *udata)
{
	struct rdma_ah_attr *attr = init->ah_attr;
	struct mlx5_ib_create_ah_resp resp = {};
	size_t min_len = offsetofend(struct mlx5_ib_create_ah_resp, dmac);
	int err;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE || !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	if (!udata) {
		scx_kah_build(container_of(ibah, struct scx_ah, ibah), attr);
	} else {
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

int scx_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	scx_obj_dec(ibah->device, SCX_OBJ_AH);
	return 0;
}
