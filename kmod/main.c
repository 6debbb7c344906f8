// SPDX-License-Identifier: GPL-2.0
/*
 * softcx: an RDMA device in software that speaks the mlx5 interfaces.
 * Module entry points and parameters; the device logic lives in core_cpp.
 */
#include "kmod.h"

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "softcx/selfcheck.h"
#include "softcx.h"
#include "device.h"

static unsigned int num_devices;
module_param(num_devices, uint, 0444);
MODULE_PARM_DESC(num_devices, "softcx functions to create at load (default 0)");

static unsigned int comp_eqs = 2;
module_param(comp_eqs, uint, 0444);
MODULE_PARM_DESC(comp_eqs, "completion EQs (and vectors) per function (default 2)");

static unsigned int cmd_timeout_ms = 60000;
module_param(cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms, "per-command timeout in ms (default 60000)");

static bool cmd_polling;
module_param(cmd_polling, bool, 0444);
MODULE_PARM_DESC(cmd_polling, "complete commands by polling, never by event");

static bool cmd_checksum;
module_param(cmd_checksum, bool, 0444);
MODULE_PARM_DESC(cmd_checksum, "sign command entries and mailboxes");

static LIST_HEAD(scx_devices);
static DEFINE_MUTEX(scx_devices_lock);
static struct dentry *scx_debugfs_root;

static int scx_add_device(int index)
{
	struct scx_kdev_params p = {
		.num_comp_eqs = comp_eqs,
		.cmd_timeout_ms = cmd_timeout_ms,
		.cmd_polling = cmd_polling,
		.cmd_checksum = cmd_checksum,
	};
	struct scx_kdev *kdev = scx_kdev_create(index, &p);

	if (IS_ERR(kdev))
		return PTR_ERR(kdev);
	scx_debugfs_add(kdev, scx_debugfs_root);
	mutex_lock(&scx_devices_lock);
	list_add_tail(&kdev->node, &scx_devices);
	mutex_unlock(&scx_devices_lock);
	return 0;
}

static void scx_remove_all(void)
{
	struct scx_kdev *kdev, *tmp;

	mutex_lock(&scx_devices_lock);
	list_for_each_entry_safe(kdev, tmp, &scx_devices, node) {
		list_del(&kdev->node);
		debugfs_remove_recursive(kdev->debugfs);
		scx_kdev_destroy(kdev);
	}
	mutex_unlock(&scx_devices_lock);
}

static int __init softcx_init(void)
{
	unsigned int i;
	int err;

	scx_debugfs_root = debugfs_create_dir(SOFTCX_DEBUGFS_DIR, NULL);
	for (i = 0; i < num_devices; i++) {
		err = scx_add_device(i);
		if (err) {
			scx_remove_all();
			debugfs_remove_recursive(scx_debugfs_root);
			return err;
		}
	}
	pr_info("loaded (%s), %u device(s)\n", scx_core_version(), num_devices);
	return 0;
}

static void __exit softcx_exit(void)
{
	scx_remove_all();
	debugfs_remove_recursive(scx_debugfs_root);
	pr_info("unloaded\n");
}

module_init(softcx_init);
module_exit(softcx_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("softcx: software RDMA HCA behind the mlx5 interfaces");
MODULE_AUTHOR("softcx developers");
