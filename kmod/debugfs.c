// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs per device, /sys/kernel/debug/softcx/<dev>/:
 *   info       firmware, ISSI, UAR, EQ count, command mode, pages, hca counters
 *   cmd_stats  per opcode: count, errors, timeouts, latency min/avg/max (ns)
 *   eqs        per EQ: eqn, vector, size, consumer index, interrupts, EQEs
 *   inject     fault injection: "delay OP MS [N]", "drop OP [N]",
 *              "fail OP STATUS SYNDROME [N]", "clear", "link up|down"
 *   objects    live verbs objects per type
 *   dp         data path: doorbells seen, passes, WQEs, bytes, CQEs, errors,
 *              RNR NAKs, retries
 *   nop        write N: run N NOP commands (errors come back from write())
 *   bench_nop  write "N [T]": T threads (default 1) run N NOPs each, every one
 *              timed; read: the last run's ops/s and latency percentiles
 */
#include "kmod.h"

#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include "softcx/driver.h"
#include "softcx/hca.h"
#include "device.h"
#include "iommu.h"

static int scx_info_show(struct seq_file *m, void *unused)
{
	struct scx_kdev *kdev = m->private;
	struct scx_drv_health h;
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
	scx_drv_get_health(kdev->drv, &h);
	seq_printf(m, "health %s\nhealth_misses %u\nhealth_polls %llu\nanswered_in_error %llu\nrecoveries %u\n",
		   h.dead ? "internal_error" : "ok", h.misses, h.polls, h.answered_in_error,
		   kdev->recoveries);
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

static int scx_objects_show(struct seq_file *m, void *unused)
{
	static const char *const names[SCX_OBJ_MAX] = {
		[SCX_OBJ_UCTX] = "uctx", [SCX_OBJ_PD] = "pd", [SCX_OBJ_MR] = "mr",
		[SCX_OBJ_CQ] = "cq",	 [SCX_OBJ_QP] = "qp", [SCX_OBJ_SRQ] = "srq",
		[SCX_OBJ_AH] = "ah",	 [SCX_OBJ_MW] = "mw",	  [SCX_OBJ_UAR] = "uar",
		[SCX_OBJ_DEVX_SUB] = "devx_sub", [SCX_OBJ_DEVX_OBJ] = "devx_obj",
		[SCX_OBJ_UMEM] = "umem",
	};
	struct scx_kdev *kdev = m->private;
	int i;

	for (i = 0; i < SCX_OBJ_MAX; i++)
		seq_printf(m, "%s %d\n", names[i], atomic_read(&kdev->objs[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scx_objects);

/* The data path's counters (hca side). */
static int scx_dp_show(struct seq_file *m, void *unused)
{
	struct scx_kdev *kdev = m->private;
	struct scx_hca_dp_stats s;

	scx_hca_get_dp_stats(kdev->hca, &s);
	seq_printf(m, "doorbells %llu\npasses %llu\nwqes %llu\nbytes %llu\ncqes %llu\n"
		   "error_cqes %llu\nrnr_naks %llu\nretries %llu\npolls %llu\npoll_ns %llu\n",
		   s.doorbells, s.passes, s.wqes, s.bytes, s.cqes, s.error_cqes, s.rnr_naks, s.retries,
		   s.polls, s.poll_ns);
	seq_printf(m, "peer_requests %llu\npeer_busy %llu\n", s.peer_requests, s.peer_busy);
	seq_printf(m, "translation_faults %llu\n", s.translation_faults);
	seq_printf(m, "rx_pkts %llu\nrx_no_qp %llu\nrx_bad_pkey %llu\nrx_malformed %llu\nrx_bad_qkey %llu\n",
		   s.rx_pkts, s.rx_no_qp, s.rx_bad_pkey, s.rx_malformed, s.rx_bad_qkey);
	seq_printf(m, "rx_dc_dropped %llu\ndc_connects %llu\n", s.rx_dc_dropped, s.dc_connects);
	seq_printf(m, "tx_lost %llu\nqp_visits %llu\nsweeps %llu\narm_reads %llu\n", s.tx_lost,
		   s.qp_visits, s.sweeps, s.arm_reads);
	seq_printf(m, "tx_by_ref %llu\nrx_stale_ref %llu\n", s.tx_by_ref, s.rx_stale_ref);
	seq_printf(m, "uar_stores_emulated %lld\nuar_streams %lld\n",
		   atomic64_read(&kdev->uar_emulated), atomic64_read(&kdev->uar_streams));
	seq_printf(m, "uar_traps %lld\nuar_trap_ns %lld\nuar_rearms_by_writers %lld\nuar_rearms_by_thread %lld\n",
		   atomic64_read(&kdev->uar_traps), atomic64_read(&kdev->uar_trap_ns),
		   atomic64_read(&kdev->uar_rearms_fault),
		   atomic64_read(&kdev->uar_rearms_thread));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scx_dp);

/* The RoCEv2 link on the netdev: frames each way, and what was dropped. */
static int scx_wire_show(struct seq_file *m, void *unused)
{
	struct scx_kdev *kdev = m->private;
	struct scx_hca_wire_stats s;

	scx_hca_get_wire_stats(kdev->hca, &s);
	seq_printf(m, "tx_frames %llu\ntx_bytes %llu\ntx_drops %lld\nrx_frames %llu\nrx_bytes %llu\n",
		   s.tx_frames, s.tx_bytes, atomic64_read(&kdev->wire_tx_drops), s.rx_frames,
		   s.rx_bytes);
	seq_printf(m, "tx_link_full %llu\ntx_waits %lld\n", s.tx_link_full,
		   atomic64_read(&kdev->wire_tx_waits));
	seq_printf(m, "rx_bad_ip %llu\nrx_bad_udp %llu\nrx_bad_icrc %llu\nrx_ring_full %llu\nrx_unusable %lld\n",
		   s.rx_bad_ip, s.rx_bad_udp, s.rx_bad_icrc, s.rx_ring_full,
		   atomic64_read(&kdev->wire_rx_unusable));
	seq_printf(m, "rx_handler %s\n", kdev->wire_rx_on ? "on" : "off");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scx_wire);

struct scx_qp_lines {
	struct seq_file *m;
	unsigned int n;
};

static void scx_qp_counters_print(struct seq_file *m, const struct scx_hca_qp_counters *c)
{
	seq_printf(m, " %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
		   c->tx_pkts, c->tx_bytes, c->rx_pkts, c->rx_bytes,
		   c->retrans_timeout, c->retrans_nak, c->seq_naks_sent, c->seq_naks_rcvd,
		   c->rnr_naks_sent, c->rnr_naks_rcvd, c->dup_requests, c->out_of_seq, c->dropped,
		   c->bad_pkey, c->malformed, c->bad_qkey);
}

static void scx_qp_counters_line(void *ctx, const struct scx_hca_qp_counters *c)
{
	struct scx_qp_lines *l = ctx;

	seq_printf(l->m, "%#x %u", c->qpn, c->state);
	scx_qp_counters_print(l->m, c);
	l->n++;
}

/*
 * The transport counters of every QP, one line each, then the port's
 * totals (N: the live QPs), which keep what destroyed QPs counted.
 */
static int scx_qps_show(struct seq_file *m, void *unused)
{
	struct scx_kdev *kdev = m->private;
	struct scx_qp_lines l = { .m = m };
	struct scx_hca_qp_counters port;

	seq_puts(m, "qpn state tx_pkts tx_bytes rx_pkts rx_bytes retrans_timeout retrans_nak seq_naks_sent seq_naks_rcvd rnr_naks_sent rnr_naks_rcvd dup_requests out_of_seq dropped bad_pkey malformed bad_qkey\n");
	scx_hca_for_each_qp_counters(kdev->hca, scx_qp_counters_line, &l);
	scx_hca_port_counters(kdev->hca, &port);
	seq_printf(m, "port(%u) -", l.n);
	scx_qp_counters_print(m, &port);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scx_qps);

/* The function's IOMMU domain: what its hca may reach, and what it was refused. */
static int scx_iommu_show(struct seq_file *m, void *unused)
{
	struct scx_kdev *kdev = m->private;
	struct scx_dma_domain *d = &kdev->fn->dom;

	seq_printf(m, "mappings %lld\nmapped_pages %lld\nrefused %lld\nbad_unmaps %lld\n",
		   (s64)atomic64_read(&d->mappings), (s64)atomic64_read(&d->mapped_pages),
		   (s64)atomic64_read(&d->refused), (s64)atomic64_read(&d->bad_unmaps));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scx_iommu);

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
	/* Driver bugs, for the IOMMU and translation checks: the next n MRs. */
	if (sscanf(cmd, "mtt_hole %u", &n) == 1) {
		atomic_set(&kdev->bug_mtt_hole, n);
		return 0;
	}
	if (sscanf(cmd, "short_list %u", &n) == 1) {
		atomic_set(&kdev->bug_short_list, n);
		return 0;
	}
	/* The firmware dies: the health poll must notice, the function recover. */
	if (!strcmp(strim(cmd), "fw_fatal")) {
		scx_hca_fw_die(kdev->hca);
		return 0;
	}
	if (!strcmp(strim(cmd), "clear")) {
		scx_hca_fault_clear(kdev->hca);
		atomic_set(&kdev->bug_mtt_hole, 0);
		atomic_set(&kdev->bug_short_list, 0);
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

static int scx_lock_times_seq(struct seq_file *m, void *v)
{
	scx_lock_times_show(m);
	return 0;
}

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

/*
 * bench_nop: a benchmark, not a test. One run at a time, module-wide; the
 * last result is kept with the name of the device it ran on.
 */
#define SCX_BENCH_MAX_THREADS 32
#define SCX_BENCH_MAX_SAMPLES (1u << 20)

static DEFINE_MUTEX(scx_bench_lock);
static char scx_bench_dev[16];
static char scx_bench_last[192];

struct scx_bench;

struct scx_bench_worker {
	struct scx_bench *b;
	u64 *lat;
	unsigned int n, done;
	int err;
	u64 start_ns, end_ns;
};

struct scx_bench {
	struct scx_drv *drv;
	struct completion exited;
	bool abort;
	struct scx_bench_worker w[];
};

static void scx_bench_run(struct scx_bench_worker *w)
{
	unsigned int i;
	u64 t;

	w->start_ns = ktime_get_ns();
	for (i = 0; i < w->n; i++) {
		t = ktime_get_ns();
		w->err = scx_drv_exec_nop(w->b->drv);
		w->lat[i] = ktime_get_ns() - t;
		if (w->err)
			break;
		cond_resched();
	}
	w->done = i;
	w->end_ns = ktime_get_ns();
}

static int scx_bench_thread(void *arg)
{
	struct scx_bench_worker *w = arg;

	if (!READ_ONCE(w->b->abort))
		scx_bench_run(w);
	kthread_complete_and_exit(&w->b->exited, 0);
}

static int scx_bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least pct% of all at or below it. */
static u64 scx_bench_pct(const u64 *sorted, unsigned int n, unsigned int pct)
{
	return sorted[DIV_ROUND_UP(n * pct, 100) - 1];
}

static int scx_bench_start(struct scx_bench *b, unsigned int threads)
{
	struct task_struct *tasks[SCX_BENCH_MAX_THREADS];
	unsigned int i, created;
	int err = 0;

	for (created = 0; created < threads; created++) {
		tasks[created] = kthread_create(scx_bench_thread, &b->w[created], "scx_bench/%u",
						created);
		if (IS_ERR(tasks[created])) {
			err = PTR_ERR(tasks[created]);
			WRITE_ONCE(b->abort, true);
			break;
		}
	}
	for (i = 0; i < created; i++)
		wake_up_process(tasks[i]);
	for (i = 0; i < created; i++)
		wait_for_completion(&b->exited);
	return err;
}

static int scx_bench_nop(struct scx_kdev *kdev, unsigned int n, unsigned int threads)
{
	unsigned int total = n * threads, i;
	u64 first = U64_MAX, last = 0, elapsed;
	struct scx_drv_info di;
	struct scx_bench *b;
	u64 *lat;
	int err = 0;

	lat = kvmalloc_array(total, sizeof(*lat), GFP_KERNEL);
	b = kzalloc(struct_size(b, w, threads), GFP_KERNEL);
	if (!lat || !b) {
		err = -ENOMEM;
		goto out;
	}
	b->drv = kdev->drv;
	init_completion(&b->exited);
	for (i = 0; i < threads; i++) {
		b->w[i].b = b;
		b->w[i].lat = lat + (size_t)i * n;
		b->w[i].n = n;
	}
	if (threads == 1)
		scx_bench_run(&b->w[0]);
	else
		err = scx_bench_start(b, threads);
	for (i = 0; i < threads && !err; i++) {
		err = b->w[i].err;
		first = min(first, b->w[i].start_ns);
		last = max(last, b->w[i].end_ns);
	}
	if (err)
		goto out;

	sort(lat, total, sizeof(*lat), scx_bench_cmp, NULL);
	elapsed = max_t(u64, last - first, 1);
	scx_drv_get_info(kdev->drv, &di);
	strscpy(scx_bench_dev, kdev->name, sizeof(scx_bench_dev));
	snprintf(scx_bench_last, sizeof(scx_bench_last),
		 "n=%u threads=%u mode=%s ops_per_s=%llu p50_ns=%llu p99_ns=%llu max_ns=%llu\n",
		 n, threads, di.cmd_events ? "events" : "polling",
		 div64_u64((u64)total * NSEC_PER_SEC, elapsed), scx_bench_pct(lat, total, 50),
		 scx_bench_pct(lat, total, 99), lat[total - 1]);
out:
	kfree(b);
	kvfree(lat);
	return err;
}

static ssize_t scx_bench_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	struct scx_kdev *kdev = file_inode(f)->i_private;
	unsigned int n, threads = 1;
	char buf[32];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u", &n, &threads) < 1 || !n || !threads ||
	    threads > SCX_BENCH_MAX_THREADS || n > SCX_BENCH_MAX_SAMPLES / threads)
		return -EINVAL;
	err = mutex_lock_interruptible(&scx_bench_lock);
	if (err)
		return err;
	err = scx_bench_nop(kdev, n, threads);
	mutex_unlock(&scx_bench_lock);
	return err ? err : len;
}

static ssize_t scx_bench_read(struct file *f, char __user *ubuf, size_t len, loff_t *pos)
{
	struct scx_kdev *kdev = file_inode(f)->i_private;
	char buf[sizeof(scx_bench_last)];
	int err;

	err = mutex_lock_interruptible(&scx_bench_lock);
	if (err)
		return err;
	strscpy(buf, strcmp(scx_bench_dev, kdev->name) ? "no run\n" : scx_bench_last, sizeof(buf));
	mutex_unlock(&scx_bench_lock);
	return simple_read_from_buffer(ubuf, len, pos, buf, strlen(buf));
}

static const struct file_operations scx_bench_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = scx_bench_read,
	.write = scx_bench_write,
	.llseek = no_llseek,
};

static int scx_lock_times_open(struct inode *inode, struct file *f)
{
	return single_open(f, scx_lock_times_seq, NULL);
}

/* "off" stops the timing; any other write starts it over from now. */
static ssize_t scx_lock_times_write(struct file *f, const char __user *ubuf, size_t len,
				    loff_t *pos)
{
	char buf[8] = {};

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	scx_lock_times_reset(!sysfs_streq(buf, "off"));
	return len;
}

static const struct file_operations scx_lock_times_fops = {
	.owner = THIS_MODULE,
	.open = scx_lock_times_open,
	.read = seq_read,
	.write = scx_lock_times_write,
	.llseek = seq_lseek,
	.release = single_release,
};

void scx_debugfs_add_global(struct dentry *root)
{
	debugfs_create_file("lock_times", 0600, root, NULL, &scx_lock_times_fops);
}

void scx_debugfs_add(struct scx_kdev *kdev, struct dentry *root)
{
	struct dentry *d = debugfs_create_dir(kdev->name, root);

	kdev->debugfs = d;
	debugfs_create_file("info", 0444, d, kdev, &scx_info_fops);
	debugfs_create_file("cmd_stats", 0444, d, kdev, &scx_cmd_stats_fops);
	debugfs_create_file("eqs", 0444, d, kdev, &scx_eqs_fops);
	debugfs_create_file("inject", 0200, d, kdev, &scx_inject_fops);
	debugfs_create_file("nop", 0200, d, kdev, &scx_nop_fops);
	debugfs_create_file("objects", 0444, d, kdev, &scx_objects_fops);
	debugfs_create_file("dp", 0444, d, kdev, &scx_dp_fops);
	debugfs_create_file("wire", 0444, d, kdev, &scx_wire_fops);
	debugfs_create_file("qps", 0444, d, kdev, &scx_qps_fops);
	debugfs_create_file("iommu", 0444, d, kdev, &scx_iommu_fops);
	debugfs_create_file("bench_nop", 0600, d, kdev, &scx_bench_fops);
}
