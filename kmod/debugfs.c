// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs per device, /sys/kernel/debug/softcx/<dev>/:
 *   info       firmware, ISSI, UAR, EQ count, command mode, pages, hca counters
 *   cmd_stats  per opcode: count, errors, timeouts, latency min/avg/max (ns)
 *   eqs        per EQ: eqn, vector, size, consumer index, interrupts, EQEs
 *   inject     fault injection: "delay OP MS [N]", "drop OP [N]",
 *              "fail OP STATUS SYNDROME [N]", "clear", "link up|down"
 *   nop        write N: run N NOP commands (errors come back from write())
 */
#include "kmod.h"

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "softcx/driver.h"
#include "softcx/hca.h"
#include "device.h"

static int scx_info_show(struct seq_file *m, void *unused)
{
	struct scx_kdev *kdev = m->private;
	struct scx_drv_info di;
	struct scx_hca_info hi;

	scx_drv_get_info(kdev->drv, &di);
	scx_hca_get_info(kdev->hca, &hi);
	seq_printf(m, "fw_ver %u.%u.%u\nissi %u\nuar %u\nnum_eqs %u\ncmd_slots %u\n",
		   di.fw_major, di.fw_minor, di.fw_subminor, di.issi, di.uar, di.num_eqs,
		   di.cmd_slots);
	seq_printf(m, "cmd_mode %s\nfw_pages %u\nvport_state %u\nvendor_id 0x%x\n",
		   di.cmd_events ? "events" : "polling", di.fw_pages, di.vport_state, di.vendor_id);
	seq_printf(m, "hca_state %u\nhca_fw_pages %u\nhca_commands %llu\nhca_eqes %llu\nhca_interrupts %llu\n",
		   hi.state, hi.fw_pages, hi.commands, hi.eqes, hi.interrupts);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scx_info);

static int scx_cmd_stats_show(struct seq_file *m, void *unused)
{
	struct scx_kdev *kdev = m->private;
	struct scx_drv_cmd_stat st;
	unsigned int i;

	seq_puts(m, "opcode name count errors timeouts lat_min_ns lat_avg_ns lat_max_ns\n");
	for (i = 0; !scx_drv_get_cmd_stat(kdev->drv, i, &st); i++) {
		if (!st.count)
			continue;
		seq_printf(m, "0x%04x %s %llu %llu %llu %llu %llu %llu\n", st.opcode, st.name,
			   st.count, st.errors, st.timeouts, st.lat_min_ns, st.lat_avg_ns,
			   st.lat_max_ns);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scx_cmd_stats);

static int scx_eqs_show(struct seq_file *m, void *unused)
{
	struct scx_kdev *kdev = m->private;
	struct scx_drv_eq_stat st;
	unsigned int i;

	seq_puts(m, "index eqn vector nent cons_index irqs eqes\n");
	for (i = 0; !scx_drv_get_eq_stat(kdev->drv, i, &st); i++)
		seq_printf(m, "%u %u %u %u %u %llu %llu\n", i, st.eqn, st.vector, st.nent,
			   st.cons_index, st.irqs, st.eqes);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scx_eqs);

static int scx_inject_parse(struct scx_kdev *kdev, char *cmd)
{
	unsigned int op, a, b, n = 1;
	char word[8];

	if (sscanf(cmd, "delay %i %u %u", &op, &a, &n) >= 2)
		return scx_hca_fault_delay(kdev->hca, op, a, n);
	if (sscanf(cmd, "drop %i %u", &op, &n) >= 1)
		return scx_hca_fault_drop(kdev->hca, op, n);
	if (sscanf(cmd, "fail %i %i %i %u", &op, &a, &b, &n) >= 3)
		return scx_hca_fault_fail(kdev->hca, op, a, b, n);
	if (sscanf(cmd, "link %7s", word) == 1 && (!strcmp(word, "up") || !strcmp(word, "down"))) {
		scx_hca_set_link(kdev->hca, !strcmp(word, "up"));
		return 0;
	}
	if (!strcmp(strim(cmd), "clear")) {
		scx_hca_fault_clear(kdev->hca);
		return 0;
	}
	return -EINVAL;
}

static ssize_t scx_inject_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	struct scx_kdev *kdev = file_inode(f)->i_private;
	char buf[64];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	err = scx_inject_parse(kdev, buf);
	return err ? err : len;
}

static const struct file_operations scx_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = scx_inject_write,
	.llseek = no_llseek,
};

static ssize_t scx_nop_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	struct scx_kdev *kdev = file_inode(f)->i_private;
	unsigned int n, i;
	int err;

	err = kstrtouint_from_user(ubuf, len, 0, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		err = scx_drv_exec_nop(kdev->drv);
		if (err)
			return err;
		cond_resched();
	}
	return len;
}

static const struct file_operations scx_nop_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = scx_nop_write,
	.llseek = no_llseek,
};

void scx_debugfs_add(struct scx_kdev *kdev, struct dentry *root)
{
	struct dentry *d = debugfs_create_dir(kdev->name, root);

	kdev->debugfs = d;
	debugfs_create_file("info", 0444, d, kdev, &scx_info_fops);
	debugfs_create_file("cmd_stats", 0444, d, kdev, &scx_cmd_stats_fops);
	debugfs_create_file("eqs", 0444, d, kdev, &scx_eqs_fops);
	debugfs_create_file("inject", 0200, d, kdev, &scx_inject_fops);
	debugfs_create_file("nop", 0200, d, kdev, &scx_nop_fops);
}
