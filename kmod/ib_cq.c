// SPDX-License-Identifier: GPL-2.0
/*
 * Resizing a user CQ: libmlx5 hands over a new ring it allocated; it is
 * pinned here and given to the device with MODIFY_CQ (op_mod RESIZE). The
 * device writes a RESIZE CQE in the old ring and continues in the new one;
 * the library moves the unpolled CQEs over itself.
 */
#include "kmod.h"

#include <linux/mm.h>
#include <rdma/mlx5-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ib_priv.h"

/* Resizes are rare: one lock for all CQs keeps two of one CQ apart. */
static DEFINE_MUTEX(scx_resize_lock);

int scx_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct scx_ibcq *cq = container_of(ibcq, struct scx_ibcq, ibcq);
	struct mlx5_ib_resize_cq ucmd = {};
	struct scx_cq_params p = {};
	struct scx_ib_device_attr a;
	struct ib_umem *umem;
	u32 entries;
	int err;

	/* Kernel CQs are not served (see scx_create_cq). */
	if (!udata)
		return -EOPNOTSUPP;
	err = scx_verbs_query_device(to_drv(ibcq->device), &a);
	if (err)
		return err;
	if (cqe < 1 || cqe > a.max_cqe)
		return -EINVAL;
	if (udata->inlen < sizeof(ucmd))
		return -EINVAL;
	err = ib_copy_from_udata(&ucmd, udata, sizeof(ucmd));
	if (err)
		return err;
	if (ucmd.reserved0 || ucmd.reserved1)
		return -EINVAL;
	if ((ucmd.cqe_size != 64 && ucmd.cqe_size != 128) || (ucmd.buf_addr & ~PAGE_MASK))
		return -EINVAL;
	entries = roundup_pow_of_two(cqe + 1);
	if (entries == ibcq->cqe + 1)
		return 0;

	mutex_lock(&scx_resize_lock);
	umem = ib_umem_get(ibcq->device, ucmd.buf_addr, (size_t)entries * ucmd.cqe_size,
			   IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto out;
	}
	p.log_size = ilog2(entries);
	p.cqe_size = ucmd.cqe_size;
	p.page_shift = PAGE_SHIFT;
	p.pages = scx_umem_pages(umem, PAGE_SHIFT, &p.npages);
	if (!p.pages) {
		err = -ENOMEM;
		goto err_umem;
	}
	err = scx_verbs_resize_cq(to_drv(ibcq->device), cq->core, &p);
	kvfree(p.pages);
	if (err)
		goto err_umem;
	ib_umem_release(cq->umem);
	cq->umem = umem;
	ibcq->cqe = entries - 1;
	goto out;

err_umem:
	ib_umem_release(umem);
out:
	mutex_unlock(&scx_resize_lock);
	return err;
}
