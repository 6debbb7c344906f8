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

#include <rdma/ib_verbs.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME softcx_ib
#include <rdma/uverbs_named_ioctl.h>

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

DECLARE_UVERBS_GLOBAL_METHODS(MLX5_IB_OBJECT_DEVX,
			      &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OTHER),
			      &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_QUERY_EQN));

static bool scx_devx_supported(struct ib_device *ib)
{
	return to_sdev(ib)->devx_whitelist_uid != 0;
}

const struct uapi_definition scx_devx_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX, UAPI_DEF_IS_OBJ_SUPPORTED(scx_devx_supported)),
	{},
};
