// SPDX-License-Identifier: GPL-2.0
/*
 * A softcx function in the kernel: the hca (device side), an IRQ domain for
 * its MSI-X vectors, and the driver side brought up through BAR0, with its
 * interrupt handlers on request_irq() and one tasklet per completion EQ.
 */
#include "kmod.h"

#include <linux/debugfs.h>
#include <linux/interrupt.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "softcx/driver.h"
#include "softcx/hca.h"
#include "device.h"
#include "iommu.h"
#include "irq.h"

static void scx_raise_irq(void *ctx, unsigned int vector)
{
	struct scx_kdev *kdev = ctx;

	scx_irqs_raise(kdev->irqs, vector);
}

static irqreturn_t scx_irq_handler(int irq, void *dev_id)
{
	struct scx_vector *v = dev_id;

	atomic_long_inc(&v->calls);
	if (in_hardirq())
		atomic_long_inc(&v->hardirq_calls);
	scx_drv_handle_irq(v->drv, v->index);
	return IRQ_HANDLED;
}

/* Completion EQ tasklet: runs the completion callbacks of its CQs. */
static void scx_tasklet(struct tasklet_struct *t)
{
	struct scx_comp_tasklet *ct = from_tasklet(ct, t, t);

	scx_drv_run_tasklet(ct->kdev->vectors[ct->eq + 1].drv, ct->eq);
}

/* The driver's rings, mailboxes and firmware pages: coherent DMA memory. */
static void *scx_dma_alloc(void *ctx, size_t size, uint64_t *dma)
{
	struct scx_kdev *kdev = ctx;
	dma_addr_t addr;
	void *cpu = dma_alloc_coherent(&kdev->fn->dev, size, &addr, GFP_KERNEL);

	if (cpu)
		*dma = addr;
	return cpu;
}

static void scx_dma_free(void *ctx, void *cpu, size_t size, uint64_t dma)
{
	struct scx_kdev *kdev = ctx;

	if (cpu)
		dma_free_coherent(&kdev->fn->dev, size, cpu, dma);
}

static int scx_request_irq(void *ctx, unsigned int vector, const char *name, struct scx_drv *drv)
{
	struct scx_kdev *kdev = ctx;
	struct scx_vector *v;
	int err;

	if (vector >= kdev->num_vectors)
		return -EINVAL;
	v = &kdev->vectors[vector];
	v->kdev = kdev;
	v->drv = drv;
	v->index = vector;
	strscpy(v->name, name, sizeof(v->name));
	err = request_irq(scx_irqs_virq(kdev->irqs, vector), scx_irq_handler, 0, v->name, v);
	if (!err)
		v->requested = true;
	return err;
}

static void scx_free_irq(void *ctx, unsigned int vector)
{
	struct scx_kdev *kdev = ctx;
	struct scx_vector *v;

	if (vector >= kdev->num_vectors || !kdev->vectors[vector].requested)
		return;
	v = &kdev->vectors[vector];
	free_irq(scx_irqs_virq(kdev->irqs, vector), v);
	v->requested = false;
}

static void scx_schedule_tasklet(void *ctx, unsigned int eq_index)
{
	struct scx_kdev *kdev = ctx;

	if (eq_index < kdev->num_vectors - 1)
		tasklet_schedule(&kdev->tasklets[eq_index].t);
}

static void scx_port_event(void *ctx, u8 port, u8 sub_type)
{
	struct scx_kdev *kdev = ctx;

	kdev->port_event(kdev->port_event_ctx, port, sub_type);
}

static void scx_qp_event(void *ctx, u32 qpn, u8 event_type)
{
	struct scx_kdev *kdev = ctx;

	kdev->qp_event(kdev->port_event_ctx, qpn, event_type);
}

static void scx_srq_event(void *ctx, u32 srqn, u8 event_type)
{
	struct scx_kdev *kdev = ctx;

	kdev->srq_event(kdev->port_event_ctx, srqn, event_type);
}

static void scx_user_event(void *ctx, u64 key, const u8 *eqe)
{
	struct scx_kdev *kdev = ctx;

	kdev->user_event(kdev->port_event_ctx, key, eqe);
}

void scx_hca_link(struct scx_kdev *kdev, bool up)
{
	scx_hca_set_link(kdev->hca, up);
}

void scx_hca_mtu(struct scx_kdev *kdev, unsigned int mtu)
{
	scx_hca_set_mtu(kdev->hca, min_t(unsigned int, mtu, U16_MAX));
}

struct page *scx_kdev_uar_page(struct scx_kdev *kdev, u32 uar)
{
	void *p = scx_hca_uar_page(kdev->hca, uar);

	return p ? virt_to_page(p) : NULL;
}

/*
 * The hca's data path runs here: user space posts work and arms CQs by
 * writing memory, never entering the kernel, so the device polls. It says
 * how long it may sleep: not at all right after work, longer as it idles.
 */
static bool scx_dp_fifo = true;
module_param_named(dp_fifo, scx_dp_fifo, bool, 0444);

MODULE_PARM_DESC(dp_fifo, "data-path thread at real-time priority (1) or at nice -20 (0) (default 1)");

static unsigned int scx_dp_hold_us = 20;
module_param_named(dp_hold_us, scx_dp_hold_us, uint, 0444);
MODULE_PARM_DESC(dp_hold_us,
		 "data path: let the lock go between packets once held this long, in us; 0: after every packet (default 20)");

static bool scx_dp_payload_ref = true;
module_param_named(dp_payload_ref, scx_dp_payload_ref, bool, 0444);
MODULE_PARM_DESC(dp_payload_ref,
		 "data path: RC packets between QPs of one port name their payload, one copy (default 1)");

/*
 * The poller must look again soon (new work, a new timer). The flag covers
 * a wake-up between its poll and its sleep, which would otherwise be lost.
 */
static void scx_dp_wake(struct scx_kdev *kdev)
{
	atomic_set(&kdev->dp_woken, 1);
	wake_up_process(kdev->dp_thread);
}

void scx_kdev_wake(struct scx_kdev *kdev)
{
	scx_dp_wake(kdev);
}

/* A peer port's request left work for this port's poller. */
static void scx_dp_wake_peer(void *ctx)
{
	scx_dp_wake(ctx);
}

bool scx_kdev_uar_store(struct scx_kdev *kdev, u32 uar)
{
	bool paced = false;

	if (scx_hca_uar_store(kdev->hca, uar, &paced))
		scx_dp_wake(kdev);
	scx_wire_flush(kdev);
	return paced;
}

void scx_kdev_dp_stream(struct scx_kdev *kdev)
{
	scx_hca_dp_stay_active(kdev->hca);
	scx_dp_wake(kdev);
}

u32 scx_kdev_uar_stores(struct scx_kdev *kdev, u32 uar)
{
	return scx_hca_uar_stores(kdev->hca, uar);
}

void scx_kdev_defer(struct scx_kdev *kdev, struct scx_dp_defer *d)
{
	llist_add(&d->node, &kdev->dp_deferred);
}

/* Runs new and waiting deferred work; what is not done yet waits on. */
static void scx_dp_run_deferred(struct scx_kdev *kdev, struct llist_head *waiting)
{
	struct llist_node *list = llist_del_all(&kdev->dp_deferred);
	struct llist_node *old = llist_del_all(waiting);
	struct scx_dp_defer *d, *next;

	llist_for_each_entry_safe(d, next, old, node)
		if (!d->fn(d))
			llist_add(&d->node, waiting);
	llist_for_each_entry_safe(d, next, list, node)
		if (!d->fn(d))
			llist_add(&d->node, waiting);
}

#define SCX_DP_SPIN_NS (500 * NSEC_PER_USEC)
#define SCX_DP_WIRE_WAIT_US 50

static int scx_dp_thread(void *arg)
{
	struct scx_kdev *kdev = arg;
	LLIST_HEAD(waiting);
	u64 spin_since = 0;

	/*
	 * Real-time (lowest FIFO priority), so a doorbell is seen as soon as
	 * the thread's timer fires, not when busy-polling applications on the
	 * same CPUs give up theirs; between polls it sleeps, so they still run.
	 */
	if (scx_dp_fifo)
		sched_set_fifo_low(current);
	else
		set_user_nice(current, MIN_NICE);
	while (!kthread_should_stop()) {
		unsigned int us;
		ktime_t until;

		atomic_set(&kdev->dp_woken, 0);
		scx_dp_run_deferred(kdev, &waiting);
		us = scx_hca_poll(kdev->hca);
		/* Frames the netdev could not take yet: back soon for them. */
		if (scx_wire_flush(kdev) && us > SCX_DP_WIRE_WAIT_US)
			us = SCX_DP_WIRE_WAIT_US;
		/*
		 * Work left: poll again at once, but a real-time thread never
		 * spins for long. Softirqs (the netdev's receive) and other
		 * tasks on this CPU get a turn every SCX_DP_SPIN_NS at least,
		 * not only when RT throttling steps in, a second later.
		 */
		if (!us) {
			if (!spin_since) {
				spin_since = ktime_get_ns();
			} else if (ktime_get_ns() - spin_since > SCX_DP_SPIN_NS) {
				spin_since = 0;
				usleep_range(20, 40);
			}
			cond_resched();
			continue;
		}
		spin_since = 0;
		/*
		 * A wake-up (and kthread_stop) ends the sleep early; deferred
		 * work waiting keeps it short, but not shorter: what it waits
		 * for needs the CPU.
		 */
		if (!llist_empty(&waiting) && us > 100)
			us = 100;
		until = ktime_add_us(ktime_get(), us);
		set_current_state(TASK_IDLE);
		if (llist_empty(&kdev->dp_deferred) && !atomic_read(&kdev->dp_woken) &&
		    !kthread_should_stop())
			schedule_hrtimeout_range(&until, (u64)(us / 4 + 2) * NSEC_PER_USEC,
						 HRTIMER_MODE_ABS);
		__set_current_state(TASK_RUNNING);
	}
	/* Device removal: each is told once more, and must finish now. */
	kdev->dp_stopping = true;
	scx_dp_run_deferred(kdev, &waiting);
	WARN_ON_ONCE(!llist_empty(&waiting));
	return 0;
}

/* mlx5_core's poll_health: a counter that stood still three times is death. */
static void scx_health_work(struct work_struct *w)
{
	struct scx_kdev *kdev = container_of(to_delayed_work(w), struct scx_kdev, health_work);

	if (scx_drv_health_poll(kdev->drv)) {	/* the driver logged why */
		if (kdev->fatal)
			kdev->fatal(kdev->port_event_ctx);
		return;	/* nothing to watch any more; teardown follows */
	}
	schedule_delayed_work(&kdev->health_work, msecs_to_jiffies(kdev->health_poll_ms));
}

/* The device itself: the hca behind the function's DMA domain and vectors. */
static int scx_kdev_hca_create(struct scx_kdev *kdev, const struct scx_kdev_params *p)
{
	struct scx_hca_params hp = {};

	hp.dma_domain = &kdev->fn->dom;
	hp.num_vectors = kdev->num_vectors;
	hp.ctx = kdev;
	hp.raise_irq = scx_raise_irq;
	memcpy(hp.mac, p->mac, sizeof(hp.mac));
	hp.mtu = p->mtu;
	hp.link_down = !p->link_up;
	hp.devx_objects = p->devx_objects;
	hp.dc = p->dc;
	return scx_hca_create(&hp, &kdev->hca);
}

/* The driver's bring-up against the hca's BAR, with the caller's event hooks. */
static int scx_kdev_drv_init(struct scx_kdev *kdev, const struct scx_kdev_params *p)
{
	struct scx_drv_params dp = {};

	dp.name = kdev->name;
	dp.bar = scx_hca_bar(kdev->hca);
	dp.ctx = kdev;
	dp.dma_alloc = scx_dma_alloc;
	dp.dma_free = scx_dma_free;
	dp.request_irq = scx_request_irq;
	dp.free_irq = scx_free_irq;
	dp.schedule_tasklet = scx_schedule_tasklet;
	dp.cmd_timeout_ms = p->cmd_timeout_ms;
	dp.num_comp_eqs = kdev->num_vectors - 1;
	dp.cmd_polling = p->cmd_polling;
	dp.cmd_checksum = p->cmd_checksum;
	dp.port_event = p->port_event ? scx_port_event : NULL;
	kdev->port_event = p->port_event;
	dp.qp_event = p->qp_event ? scx_qp_event : NULL;
	kdev->qp_event = p->qp_event;
	dp.srq_event = p->srq_event ? scx_srq_event : NULL;
	kdev->srq_event = p->srq_event;
	dp.user_event = p->user_event ? scx_user_event : NULL;
	kdev->user_event = p->user_event;
	kdev->port_event_ctx = p->port_event_ctx;
	kdev->fatal = p->fatal;
	kdev->health_poll_ms = p->health_poll_ms ?: 1000;
	INIT_DELAYED_WORK(&kdev->health_work, scx_health_work);
	return scx_drv_init(&dp, &kdev->drv);
}

struct scx_kdev *scx_kdev_create(const char *name, const struct scx_kdev_params *p)
{
	struct scx_kdev *kdev;
	unsigned int i;
	int err;

	kdev = kzalloc(sizeof(*kdev), GFP_KERNEL);
	if (!kdev)
		return ERR_PTR(-ENOMEM);
	strscpy(kdev->name, name, sizeof(kdev->name));
	init_llist_head(&kdev->dp_deferred);
	skb_queue_head_init(&kdev->wire_txq);
	kdev->num_vectors = clamp_t(unsigned int, p->num_comp_eqs, 1, SCX_MAX_VECTORS - 1) + 1;
	for (i = 0; i < kdev->num_vectors - 1; i++) {
		tasklet_setup(&kdev->tasklets[i].t, scx_tasklet);
		kdev->tasklets[i].kdev = kdev;
		kdev->tasklets[i].eq = i;
	}

	kdev->fn = scx_fn_create(kdev->name, p->pci_device);
	if (IS_ERR(kdev->fn)) {
		err = PTR_ERR(kdev->fn);
		goto err_free;
	}
	kdev->irqs = scx_irqs_create(kdev->name, kdev->num_vectors);
	if (!kdev->irqs) {
		err = -ENOMEM;
		goto err_fn;
	}
	err = scx_kdev_hca_create(kdev, p);
	if (err)
		goto err_irqs;
	err = scx_kdev_drv_init(kdev, p);
	if (err) {
		pr_err("%s: bring-up failed: %d\n", kdev->name, err);
		goto err_hca;
	}
	scx_hca_dp_policy(kdev->hca, p->dp_active_us, p->dp_idle_max_us, p->dp_doorbells_trap);
	scx_hca_dp_hold_us(kdev->hca, scx_dp_hold_us);
	scx_hca_dp_payload_ref(kdev->hca, scx_dp_payload_ref);
	kdev->dp_thread = kthread_run(scx_dp_thread, kdev, "%s-dp", kdev->name);
	if (IS_ERR(kdev->dp_thread)) {
		err = PTR_ERR(kdev->dp_thread);
		kdev->dp_thread = NULL;
		goto err_drv;
	}
	/* Other softcx ports reach this one by its GIDs (and it theirs). */
	if (scx_hca_join_fabric(kdev->hca, scx_dp_wake_peer, kdev))
		pr_warn("%s: fabric full, reachable only from itself\n", kdev->name);
	schedule_delayed_work(&kdev->health_work, msecs_to_jiffies(kdev->health_poll_ms));
	pr_info("%s: up, %u completion EQs\n", kdev->name, kdev->num_vectors - 1);
	return kdev;

err_drv:
	scx_drv_teardown(kdev->drv);
err_hca:
	scx_hca_destroy(kdev->hca);
err_irqs:
	scx_irqs_destroy(kdev->irqs);
err_fn:
	scx_fn_destroy(kdev->fn);
err_free:
	for (i = 0; i < kdev->num_vectors - 1; i++)
		tasklet_kill(&kdev->tasklets[i].t);
	kfree(kdev);
	return ERR_PTR(err);
}

void scx_kdev_destroy(struct scx_kdev *kdev)
{
	unsigned int i;

	debugfs_remove_recursive(kdev->debugfs);
	scx_wire_detach(kdev);
	cancel_delayed_work_sync(&kdev->health_work);
	/* Peers stop waking the thread before it goes. */
	scx_hca_leave_fabric(kdev->hca);
	if (kdev->dp_thread)
		kthread_stop(kdev->dp_thread);
	scx_drv_teardown(kdev->drv);
	for (i = 0; i < kdev->num_vectors - 1; i++)
		tasklet_kill(&kdev->tasklets[i].t);
	scx_hca_destroy(kdev->hca);
	scx_irqs_destroy(kdev->irqs);
	scx_fn_destroy(kdev->fn);
	pr_info("%s: removed\n", kdev->name);
	kfree(kdev);
}
