// SPDX-License-Identifier: GPL-2.0
/*
 * softcx: an RDMA device in software that speaks the mlx5 interfaces.
 * Module entry points; the device logic lives in core_cpp.
 */
#include "kmod.h"

#include <linux/module.h>

#include "softcx/selfcheck.h"
#include "softcx.h"

static int __init softcx_init(void)
{
	pr_info("loaded (%s)\n", scx_core_version());
	return 0;
}

static void __exit softcx_exit(void)
{
	pr_info("unloaded\n");
}

module_init(softcx_init);
module_exit(softcx_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("softcx: software RDMA HCA behind the mlx5 interfaces");
MODULE_AUTHOR("softcx developers");
