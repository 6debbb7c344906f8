// SPDX-License-Identifier: GPL-2.0
/*
 * UAR objects (MLX5_IB_OBJECT_UAR): a UAR page a context allocates when it
 * wants one, as libmlx5 does for every QP and CQ once the context has no
 * static pages (MLX5_LIB_CAP_DYN_UAR), and mlx5dv_devx_alloc_uar. BF and NC
 * pages are the same page here (softcx has no BlueFlame: bf_reg_size 0);
 * the type is only checked. The page, its mapping and its doorbell trap
 * are ib_uar.c's; this file is the uverbs glue.
 */
#include "kmod.h"

#include <rdma/ib_verbs.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME softcx_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "ib_priv.h"

static int UVERBS_HANDLER(MLX5_IB_METHOD_UAR_OBJ_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE);
	struct scx_ucontext *uc = container_of(uobj->context, struct scx_ucontext, ibuc);
	struct scx_uar_entry *ue;
	u32 type, length = PAGE_SIZE, page_id;
	u64 offset;
	int err;

	err = uverbs_get_const(&type, attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE);
	if (err)
		return err;
	if (type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF && type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC)
		return -EOPNOTSUPP;
	ue = scx_uar_obj_new(uc, &offset);
	if (IS_ERR(ue))
		return PTR_ERR(ue);
	page_id = uc->uar_index[ue->slot];
	uobj->object = ue;
	uverbs_finalize_uobj_create(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE);
	scx_obj_inc(uobj->context->device, SCX_OBJ_UAR);
	err = uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET, &offset, sizeof(offset));
	if (!err)
		err = uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH, &length,
				     sizeof(length));
	if (!err)
		err = uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID, &page_id,
				     sizeof(page_id));
	return err;
}

static int scx_uar_obj_cleanup(struct ib_uobject *uobj, enum rdma_remove_reason why,
			       struct uverbs_attr_bundle *attrs)
{
	struct scx_ucontext *uc = container_of(uobj->context, struct scx_ucontext, ibuc);

	scx_uar_obj_free(uc, uobj->object);
	scx_obj_dec(uobj->context->device, SCX_OBJ_UAR);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_UAR_OBJ_ALLOC,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE, MLX5_IB_OBJECT_UAR, UVERBS_ACCESS_NEW,
			UA_MANDATORY),
	UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE, enum mlx5_ib_uapi_uar_alloc_type,
			     UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID, UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH, UVERBS_ATTR_TYPE(u32),
			    UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET, UVERBS_ATTR_TYPE(u64),
			    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(
	MLX5_IB_METHOD_UAR_OBJ_DESTROY,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE, MLX5_IB_OBJECT_UAR,
			UVERBS_ACCESS_DESTROY, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_UAR,
			    UVERBS_TYPE_ALLOC_IDR(scx_uar_obj_cleanup),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_ALLOC),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_DESTROY));

const struct uapi_definition scx_uar_obj_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_UAR),
	{},
};
