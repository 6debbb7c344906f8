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
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "softcx/selfcheck.h"
#include "softcx.h"
#include "device.h"
#include "ib.h"
#include "iommu.h"

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
MODULE_PARM_DESC(cmd_polling, "complete commands by polling the command queue, never by the command EQ's interrupt (default 0)");

static bool cmd_checksum;
module_param(cmd_checksum, bool, 0444);
MODULE_PARM_DESC(cmd_checksum, "sign command entries and mailboxes with the PRM's signature bytes, checked by the hca (default 0)");

static uint dp_active_us = 2000;
module_param(dp_active_us, uint, 0444);
MODULE_PARM_DESC(dp_active_us, "data path: poll every few us for this long after work, in us (default 2000)");

static uint dp_idle_max_us;
module_param(dp_idle_max_us, uint, 0444);
MODULE_PARM_DESC(dp_idle_max_us,
		 "data path: longest sleep between polls when idle, in us (default 0: 100000 with uar_trap, else 16000)");

static unsigned int health_poll_ms = 1000;
module_param(health_poll_ms, uint, 0444);
MODULE_PARM_DESC(health_poll_ms,
		 "firmware health poll period in ms; 3 polls without a tick are fatal (default 1000)");

static char *netdev;
module_param(netdev, charp, 0444);
MODULE_PARM_DESC(netdev, "create an RDMA device softcx_<netdev> on this netdev at load (default none: rdma link add creates them)");

static uint vendor_part_id = 0x1017;
module_param(vendor_part_id, uint, 0444);
MODULE_PARM_DESC(vendor_part_id, "PCI device id reported as vendor_part_id (default 0x1017, ConnectX-5)");

static uint hw_ver;
module_param(hw_ver, uint, 0444);
MODULE_PARM_DESC(hw_ver, "hardware revision reported (default 0)");

static bool devx = true;
module_param(devx, bool, 0444);
MODULE_PARM_DESC(devx, "grant DevX user contexts, as mlx5_ib does (default on)");

static bool dc = true;
module_param(dc, bool, 0444);
MODULE_PARM_DESC(dc, "offer DC initiators and targets (default on)");

static LIST_HEAD(scx_devices);
static DEFINE_MUTEX(scx_devices_lock);
static struct dentry *scx_debugfs_dir;

struct dentry *scx_debugfs_root(void)
{
	return scx_debugfs_dir;
}

static int scx_add_device(int index)
{
	struct scx_kdev_params p = {
		.num_comp_eqs = comp_eqs,
		.pci_device = vendor_part_id,
		.cmd_timeout_ms = cmd_timeout_ms,
		.cmd_polling = cmd_polling,
		.cmd_checksum = cmd_checksum,
		.dp_active_us = dp_active_us,
		.dp_idle_max_us = dp_idle_max_us,
		.health_poll_ms = health_poll_ms,
	};
	struct scx_kdev *kdev;
	char name[16];

	snprintf(name, sizeof(name), "softcx%d", index);
	p.link_up = true;
	kdev = scx_kdev_create(name, &p);

	if (IS_ERR(kdev))
		return PTR_ERR(kdev);
	scx_debugfs_add(kdev, scx_debugfs_dir);
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
		scx_kdev_destroy(kdev);
	}
	mutex_unlock(&scx_devices_lock);
}

/* The netdev= parameter: one RDMA device on that interface. */
static int scx_add_param_netdev(void)
{
	struct net_device *ndev;
	char name[IB_DEVICE_NAME_MAX];
	int err;

	if (!netdev || !*netdev)
		return 0;
	ndev = dev_get_by_name(&init_net, netdev);
	if (!ndev) {
		pr_err("netdev %s not found\n", netdev);
		return -ENODEV;
	}
	snprintf(name, sizeof(name), "softcx_%s", netdev);
	err = scx_ib_add(name, ndev, 0);
	dev_put(ndev);
	return err;
}

static int __init softcx_init(void)
{
	struct scx_ib_settings ibs = {
		.vendor_part_id = vendor_part_id,
		.hw_ver = hw_ver,
		.comp_eqs = comp_eqs,
		.cmd_timeout_ms = cmd_timeout_ms,
		.dp_active_us = dp_active_us,
		.dp_idle_max_us = dp_idle_max_us,
		.health_poll_ms = health_poll_ms,
		.devx = devx,
		.dc = dc,
	};
	unsigned int i;
	int err;

	err = scx_bus_init();
	if (err)
		return err;
	scx_debugfs_dir = debugfs_create_dir(SOFTCX_DEBUGFS_DIR, NULL);
	scx_debugfs_add_global(scx_debugfs_dir);
	err = scx_ib_init(&ibs);
	if (err)
		goto err_debugfs;
	for (i = 0; i < num_devices; i++) {
		err = scx_add_device(i);
		if (err)
			goto err_devices;
	}
	err = scx_add_param_netdev();
	if (err)
		goto err_devices;
	pr_info("loaded (%s), %u device(s)\n", scx_core_version(), num_devices);
	return 0;

err_devices:
	scx_ib_exit();
	scx_remove_all();
err_debugfs:
	debugfs_remove_recursive(scx_debugfs_dir);
	scx_bus_exit();
	return err;
}

static void __exit softcx_exit(void)
{
	scx_ib_exit();
	scx_remove_all();
	debugfs_remove_recursive(scx_debugfs_dir);
	scx_bus_exit();
	pr_info("unloaded\n");
}

module_init(softcx_init);
module_exit(softcx_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("softcx: software RDMA HCA behind the mlx5 interfaces");
MODULE_AUTHOR("softcx developers");
MODULE_VERSION(SCX_VERSION);
MODULE_ALIAS_RDMA_LINK("softcx");
