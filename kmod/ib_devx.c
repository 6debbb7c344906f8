// SPDX-License-Identifier: GPL-2.0
/*
 * The DevX part of the mlx5 user ABI: a DevX context's uid (CREATE_UCTX,
 * granted when the devx parameter is set) and MLX5_IB_OBJECT_DEVX's
 * DEVX_OTHER (any context: the whitelisted queries, which libmlx5 sends on
 * every context to read the capabilities; a DevX context: the general
 * commands, under its own uid) and QUERY_EQN. Which command may pass and
 * under which uid is the driver's rule (core_cpp/driver/devx.h); this file
 * moves the bytes.
 */
#include "kmod.h"

#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME softcx_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "ib_priv.h"

/* The size of general_obj_in_cmd_hdr / _out_: opcode, uid, op_mod; status. */
#define SCX_DEVX_HDR_BYTES 16

/*
 * The device's whitelist uid, as mlx5_ib makes one: a user context without
 * DevX sends its whitelisted queries under it. Before ib_register_device,
 * which looks at scx_devx_supported.
 */
int scx_devx_init(struct scx_ibdev *sdev)
{
	return scx_devx_create_uctx(sdev->kdev->drv, 0, &sdev->devx_whitelist_uid);
}

/* A DevX context's uid, once its objects are gone. */
void scx_devx_destroy_ctx_uid(struct scx_ucontext *uc)
{
	int err;

	if (!uc->devx_uid)
		return;
	err = scx_devx_destroy_uctx(to_drv(uc->ibuc.device), uc->devx_uid);
	/* A dead function (EIO) took every uid with it. */
	if (err && err != -EIO)
		pr_warn("%s: DESTROY_UCTX of uid %u: %d\n", dev_name(&uc->ibuc.device->dev),
			uc->devx_uid, err);
	uc->devx_uid = 0;
}

void scx_devx_cleanup(struct scx_ibdev *sdev)
{
	if (sdev->devx_whitelist_uid)
		scx_devx_destroy_uctx(sdev->kdev->drv, sdev->devx_whitelist_uid);
	sdev->devx_whitelist_uid = 0;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OTHER)(struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *ibuc = ib_uverbs_get_ucontext(attrs);
	void *in = uverbs_attr_get_alloced_ptr(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN);
	int inlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN);
	int outlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT);
	struct scx_ibdev *sdev;
	void *out;
	int err, err2;

	if (IS_ERR(ibuc))
		return PTR_ERR(ibuc);
	sdev = to_sdev(ibuc->device);
	out = uverbs_zalloc(attrs, outlen);
	if (IS_ERR(out))
		return PTR_ERR(out);
	err = scx_devx_general(sdev->kdev->drv, container_of(ibuc, struct scx_ucontext, ibuc)->devx_uid,
			       sdev->devx_whitelist_uid, in, inlen, out, outlen);
	if (err && err != -EREMOTEIO)
		return err;
	/* A firmware status goes back with its mailbox, as EREMOTEIO. */
	err2 = uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT, out, outlen);
	return err2 ?: err;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_QUERY_EQN)(struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *ibuc = ib_uverbs_get_ucontext(attrs);
	u32 vector, eqn;
	int err;

	if (IS_ERR(ibuc))
		return PTR_ERR(ibuc);
	if (uverbs_copy_from(&vector, attrs, MLX5_IB_ATTR_DEVX_QUERY_EQN_USER_VEC))
		return -EFAULT;
	err = scx_devx_query_eqn(to_drv(ibuc->device), vector, &eqn);
	if (err)
		return err;
	return uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_QUERY_EQN_DEV_EQN, &eqn, sizeof(eqn));
}

/* DEVX_QUERY_UAR: the hca's index of a bfreg's page (mlx5dv_devx_alloc_uar). */
static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_QUERY_UAR)(struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *ibuc = ib_uverbs_get_ucontext(attrs);
	u32 bfreg, uar;
	int err;

	if (IS_ERR(ibuc))
		return PTR_ERR(ibuc);
	if (uverbs_copy_from(&bfreg, attrs, MLX5_IB_ATTR_DEVX_QUERY_UAR_USER_IDX))
		return -EFAULT;
	err = scx_uar_of_bfreg(container_of(ibuc, struct scx_ucontext, ibuc), bfreg, &uar);
	if (err)
		return err;
	return uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_QUERY_UAR_DEV_IDX, &uar, sizeof(uar));
}

/* A DevX UMEM: pinned user memory the device knows by id. */
struct scx_devx_umem {
	struct ib_umem *umem;
	struct scx_drv *drv;
	u32 id;
	u16 uid;
};

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_UMEM_REG)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_HANDLE);
	struct scx_ucontext *uc = rdma_udata_to_drv_context(&attrs->driver_udata, struct scx_ucontext, ibuc);
	struct scx_devx_umem *obj;
	u64 addr, len, pgsz = PAGE_SIZE;
	u64 *pages;
	u32 n;
	int access, err;

	if (!uc->devx_uid)
		return -EINVAL;
	if (uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_DMABUF_FD))
		return -EOPNOTSUPP;
	if (uverbs_copy_from(&addr, attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_ADDR) ||
	    uverbs_copy_from(&len, attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_LEN))
		return -EFAULT;
	err = uverbs_get_flags32(&access, attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_ACCESS,
				 IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_RELAXED_ORDERING);
	if (err)
		return err;
	/* softcx maps user memory in pages of PAGE_SIZE: the caller must allow it. */
	err = uverbs_get_const_default(&pgsz, attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_PGSZ_BITMAP, PAGE_SIZE);
	if (err)
		return err;
	if (!(pgsz & PAGE_SIZE))
		return -EINVAL;
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	obj->umem = ib_umem_get(uc->ibuc.device, addr, len, access);
	if (IS_ERR(obj->umem)) {
		err = PTR_ERR(obj->umem);
		goto err_obj;
	}
	pages = scx_umem_pages(obj->umem, PAGE_SHIFT, &n);
	if (!pages) {
		err = -ENOMEM;
		goto err_umem;
	}
	obj->drv = to_drv(uc->ibuc.device);
	obj->uid = uc->devx_uid;
	err = scx_devx_create_umem(obj->drv, obj->uid, PAGE_SHIFT, ib_umem_offset(obj->umem), pages, n,
				   obj->umem->writable, &obj->id);
	kvfree(pages);
	if (err)
		goto err_umem;
	uobj->object = obj;
	scx_obj_inc(uc->ibuc.device, SCX_OBJ_UMEM);
	uverbs_finalize_uobj_create(attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_HANDLE);
	return uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_OUT_ID, &obj->id, sizeof(obj->id));

err_umem:
	ib_umem_release(obj->umem);
err_obj:
	kfree(obj);
	return err;
}

static int scx_devx_umem_cleanup(struct ib_uobject *uobj, enum rdma_remove_reason why,
				 struct uverbs_attr_bundle *attrs)
{
	struct scx_devx_umem *obj = uobj->object;
	int err = scx_devx_destroy_umem(obj->drv, obj->uid, obj->id);

	/*
	 * Still in use by an object of the device (which the core destroys
	 * first when it cleans up): the pages stay pinned while it may
	 * reach them. A dead function holds nothing (EIO).
	 */
	if (err && err != -EIO)
		return err;
	ib_umem_release(obj->umem);
	kfree(obj);
	scx_obj_dec(uobj->context->device, SCX_OBJ_UMEM);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_UMEM_REG,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_UMEM_REG_HANDLE, MLX5_IB_OBJECT_DEVX_UMEM, UVERBS_ACCESS_NEW,
			UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_UMEM_REG_ADDR, UVERBS_ATTR_TYPE(u64), UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_UMEM_REG_LEN, UVERBS_ATTR_TYPE(u64), UA_MANDATORY),
	UVERBS_ATTR_RAW_FD(MLX5_IB_ATTR_DEVX_UMEM_REG_DMABUF_FD, UA_OPTIONAL),
	UVERBS_ATTR_FLAGS_IN(MLX5_IB_ATTR_DEVX_UMEM_REG_ACCESS, enum ib_access_flags),
	UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_DEVX_UMEM_REG_PGSZ_BITMAP, u64),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_UMEM_REG_OUT_ID, UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(
	MLX5_IB_METHOD_DEVX_UMEM_DEREG,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_UMEM_DEREG_HANDLE, MLX5_IB_OBJECT_DEVX_UMEM, UVERBS_ACCESS_DESTROY,
			UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_DEVX_UMEM,
			    UVERBS_TYPE_ALLOC_IDR(scx_devx_umem_cleanup),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_UMEM_REG),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_UMEM_DEREG));

static u16 scx_attrs_uid(struct uverbs_attr_bundle *attrs)
{
	struct scx_ucontext *uc = rdma_udata_to_drv_context(&attrs->driver_udata, struct scx_ucontext, ibuc);

	return uc ? uc->devx_uid : 0;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OBJ_CREATE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE);
	void *in = uverbs_attr_get_alloced_ptr(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN);
	int inlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN);
	int outlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT);
	u16 uid = scx_attrs_uid(attrs);
	struct scx_devx_obj *obj;
	void *out;
	int err;

	if (!uid)
		return -EINVAL;
	out = uverbs_zalloc(attrs, outlen);
	if (IS_ERR(out))
		return PTR_ERR(out);
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	obj->drv = to_drv(uobj->context->device);
	INIT_LIST_HEAD(&obj->subs);
	err = scx_devx_obj_create(obj->drv, uid, in, inlen, out, outlen, &obj->name, obj->destroy);
	if (err) {
		kfree(obj);
		/* The device's answer goes back with its mailbox. */
		if (err == -EREMOTEIO)
			uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT, out, outlen);
		return err;
	}
	uobj->object = obj;
	scx_obj_inc(uobj->context->device, SCX_OBJ_DEVX_OBJ);
	uverbs_finalize_uobj_create(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE);
	err = uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT, out, outlen);
	return err;
}

static int scx_devx_obj_cleanup(struct ib_uobject *uobj, enum rdma_remove_reason why,
				struct uverbs_attr_bundle *attrs)
{
	struct scx_devx_obj *obj = uobj->object;
	int err = scx_devx_obj_destroy(obj->drv, obj->destroy);

	/* Refused (a QP still on a CQ...): it stays, and so does what it holds. */
	if (err && err != -EIO)
		return err;
	scx_devx_obj_subs_drop(to_sdev(uobj->context->device), &obj->subs);
	kfree(obj);
	scx_obj_dec(uobj->context->device, SCX_OBJ_DEVX_OBJ);
	return 0;
}

/* The name of what a modify or query handle refers to; 0: nothing DevX may touch. */
u64 scx_devx_handle_name(struct ib_uobject *uobj)
{
	switch (uobj_get_object_id(uobj)) {
	case MLX5_IB_OBJECT_DEVX_OBJ:
		return ((struct scx_devx_obj *)uobj->object)->name;
	case UVERBS_OBJECT_CQ:
		return scx_devx_cq_name(container_of(uobj->object, struct scx_ibcq, ibcq)->cqn);
	case UVERBS_OBJECT_QP:
		return scx_devx_qp_name(((struct ib_qp *)uobj->object)->qp_num);
	default:
		return 0;
	}
}

static int scx_devx_use_handle(struct uverbs_attr_bundle *attrs, int method, u16 handle, u16 cmd_in, u16 cmd_out)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, handle);
	void *in = uverbs_attr_get_alloced_ptr(attrs, cmd_in);
	int inlen = uverbs_attr_get_len(attrs, cmd_in);
	int outlen = uverbs_attr_get_len(attrs, cmd_out);
	u16 uid = scx_attrs_uid(attrs);
	u64 name;
	void *out;
	int err, err2;

	if (!uid)
		return -EINVAL;
	name = scx_devx_handle_name(uobj);
	if (!name)
		return -EINVAL;
	out = uverbs_zalloc(attrs, outlen);
	if (IS_ERR(out))
		return PTR_ERR(out);
	err = scx_devx_obj_use(to_drv(uobj->context->device), uid, method, name, in, inlen, out, outlen);
	if (err && err != -EREMOTEIO)
		return err;
	err2 = uverbs_copy_to(attrs, cmd_out, out, outlen);
	return err2 ?: err;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OBJ_MODIFY)(struct uverbs_attr_bundle *attrs)
{
	return scx_devx_use_handle(attrs, SCX_DEVX_MODIFY, MLX5_IB_ATTR_DEVX_OBJ_MODIFY_HANDLE,
				   MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_IN, MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_OUT);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OBJ_QUERY)(struct uverbs_attr_bundle *attrs)
{
	return scx_devx_use_handle(attrs, SCX_DEVX_QUERY, MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE,
				   MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT);
}

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_OBJ_CREATE,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE, MLX5_IB_OBJECT_DEVX_OBJ, UVERBS_ACCESS_NEW,
			UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN, UVERBS_ATTR_MIN_SIZE(SCX_DEVX_HDR_BYTES),
			   UA_MANDATORY, UA_ALLOC_AND_COPY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT, UVERBS_ATTR_MIN_SIZE(SCX_DEVX_HDR_BYTES),
			    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(
	MLX5_IB_METHOD_DEVX_OBJ_DESTROY,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_DESTROY_HANDLE, MLX5_IB_OBJECT_DEVX_OBJ, UVERBS_ACCESS_DESTROY,
			UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_OBJ_MODIFY,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_MODIFY_HANDLE, UVERBS_IDR_ANY_OBJECT, UVERBS_ACCESS_READ,
			UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_IN, UVERBS_ATTR_MIN_SIZE(SCX_DEVX_HDR_BYTES),
			   UA_MANDATORY, UA_ALLOC_AND_COPY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_OUT, UVERBS_ATTR_MIN_SIZE(SCX_DEVX_HDR_BYTES),
			    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_OBJ_QUERY,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE, UVERBS_IDR_ANY_OBJECT, UVERBS_ACCESS_READ,
			UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN, UVERBS_ATTR_MIN_SIZE(SCX_DEVX_HDR_BYTES),
			   UA_MANDATORY, UA_ALLOC_AND_COPY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT, UVERBS_ATTR_MIN_SIZE(SCX_DEVX_HDR_BYTES),
			    UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_DEVX_OBJ,
			    UVERBS_TYPE_ALLOC_IDR(scx_devx_obj_cleanup),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_CREATE),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_DESTROY),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_MODIFY),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_QUERY));

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_OTHER,
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OTHER_CMD_IN, UVERBS_ATTR_MIN_SIZE(SCX_DEVX_HDR_BYTES),
			   UA_MANDATORY, UA_ALLOC_AND_COPY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT, UVERBS_ATTR_MIN_SIZE(SCX_DEVX_HDR_BYTES),
			    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_QUERY_EQN,
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_QUERY_EQN_USER_VEC, UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_QUERY_EQN_DEV_EQN, UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_QUERY_UAR,
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_QUERY_UAR_USER_IDX, UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_QUERY_UAR_DEV_IDX, UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(MLX5_IB_OBJECT_DEVX,
			      &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OTHER),
			      &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_QUERY_EQN),
			      &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_QUERY_UAR));

static bool scx_devx_supported(struct ib_device *ib)
{
	return to_sdev(ib)->devx_whitelist_uid != 0;
}

/*
 * The objects only DevX contexts use are offered only when contexts may
 * be DevX ones (devx=1): otherwise a caller gets EPROTONOSUPPORT, as from
 * a device without DevX, and libmlx5 and its users take it as absent
 * (mlx5dv_create_mkey, say, instead of failing with EINVAL).
 */
bool scx_devx_ctx_objs_supported(struct ib_device *ib)
{
	return scx_devx_supported(ib) && scx_ib_devx_granted();
}

const struct uapi_definition scx_devx_defs[] = {
	UAPI_DEF_CHAIN(scx_uar_obj_defs),
	UAPI_DEF_CHAIN(scx_devx_event_defs),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX, UAPI_DEF_IS_OBJ_SUPPORTED(scx_devx_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX_OBJ,
				      UAPI_DEF_IS_OBJ_SUPPORTED(scx_devx_ctx_objs_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX_UMEM,
				      UAPI_DEF_IS_OBJ_SUPPORTED(scx_devx_ctx_objs_supported)),
	{},
};
