/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * softcx's own user-visible constants. The verbs ABI is mlx5's
 * (rdma/mlx5-abi.h); this file only names what is softcx-specific.
 */
#ifndef SOFTCX_UAPI_H
#define SOFTCX_UAPI_H

#define SOFTCX_DRV_NAME "softcx"
/* Directory under debugfs holding one subdirectory per device. */
#define SOFTCX_DEBUGFS_DIR "softcx"

#endif
