// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_irq: the interrupt path of a whole softcx function on the real
 * kernel. The hca raises a vector, the IRQ domain delivers it through
 * irq_work in hardirq context to the handler request_irq() installed, which
 * is counted in /proc/interrupts; command completions arrive as events on
 * the async vector; a CQE on an armed CQ becomes a COMP EQE, an interrupt on
 * its completion vector, a tasklet and finally the CQ's callback in softirq
 * context. Constants come from the kernel's own mlx5 headers.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/mlx5/device.h>
#include <linux/preempt.h>
#include <linux/wait.h>

#include "softcx/driver.h"
#include "softcx/hca.h"
#include "softcx_kunit.h"

/* MLX5_CQE_REQ of linux/mlx5/cq.h: a send completion. */
#define SCX_CQE_REQ 0
#define SCX_WAIT_MS 5000
/* Time for an interrupt the device would wrongly raise to show up. */
#define SCX_QUIET_MS 100

/* Vectors: 0 async (commands, port, CQ errors), 1 + i completion EQ i. */
#define SCX_VEC_ASYNC 0
#define SCX_VEC_COMP(i) (1 + (i))

struct scx_irq_snap {
	unsigned long irqs, runs, hardirq_runs;
	long proc;
};

static void snap_vector(struct kunit *test, unsigned int vec, struct scx_irq_snap *s)
{
	struct scx_kunit_fn *fn = test->priv;

	s->irqs = fn->api->vector_irqs(fn->kdev, vec);
	fn->api->vector_handler_runs(fn->kdev, vec, &s->runs, &s->hardirq_runs);
}

/* Bring-up already took interrupts: commands complete by events after the async EQ. */
static void irq_function_up_down(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	const struct scx_test_api *api = fn->api;
	struct scx_kdev_params p;
	struct scx_drv_eq_stat eq;
	struct scx_drv_info di;
	struct scx_hca_info hi;
	struct scx_irq_snap s;
	unsigned int i, virq[3];
	struct scx_kdev *kdev;
	int round, t;

	scx_kunit_default_params(&p);
	for (round = 0; round < 2; round++) {
		kdev = scx_kunit_fn_up(test, "scxk-up", &p);
		api->drv_info(kdev, &di);
		KUNIT_EXPECT_EQ(test, di.cmd_events, 1u);
		KUNIT_EXPECT_EQ(test, di.num_eqs, 3u);
		KUNIT_EXPECT_GT(test, di.fw_major, 0);
		KUNIT_EXPECT_GT(test, di.fw_pages, 0u);
		KUNIT_EXPECT_EQ(test, di.vendor_id, 0x2c9u); /* Mellanox */
		/*
		 * The regular pages the device asks for after INIT_HCA come by
		 * PAGE_REQUEST and a work item: wait until both sides agree.
		 */
		for (t = 0; t < 250; t++) {
			api->drv_info(kdev, &di);
			api->hca_info(kdev, &hi);
			if (hi.fw_pages == di.fw_pages)
				break;
			msleep(20);
		}
		KUNIT_EXPECT_EQ(test, hi.state, 2u); /* initialized */
		KUNIT_EXPECT_EQ(test, hi.fw_pages, di.fw_pages);
		for (i = 0; i < 3; i++) {
			KUNIT_ASSERT_EQ(test, api->eq_stat(kdev, i, &eq), 0);
			KUNIT_EXPECT_EQ(test, eq.vector, i);
			virq[i] = api->vector_virq(kdev, i);
			KUNIT_EXPECT_GT(test, virq[i], 0u);
		}
		KUNIT_EXPECT_EQ(test, api->eq_stat(kdev, 3, &eq), -ENOENT);
		KUNIT_EXPECT_NE(test, virq[0], virq[1]);
		KUNIT_EXPECT_NE(test, virq[1], virq[2]);
		/* The bring-up commands issued after the async EQ came by interrupt. */
		snap_vector(test, SCX_VEC_ASYNC, &s);
		KUNIT_EXPECT_GT(test, s.irqs, 0ul);
		KUNIT_EXPECT_EQ(test, s.runs, s.irqs);
		KUNIT_EXPECT_EQ(test, s.hardirq_runs, s.runs);
		KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), 0);
		scx_kunit_fn_down(test);
	}
}

/* N NOPs by event: the async vector takes at least N interrupts, all in hardirq. */
static void irq_nop_events_count(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	const struct scx_test_api *api = fn->api;
	struct scx_drv_eq_stat eq0, eq1;
	struct scx_drv_cmd_stat st0, st1;
	struct scx_irq_snap a0, a1, c0, c1;
	struct scx_kdev_params p;
	struct scx_drv_info di;
	struct scx_kdev *kdev;
	const int n = 32;
	long proc0, proc1;
	unsigned int virq;
	int i;

	scx_kunit_default_params(&p);
	kdev = scx_kunit_fn_up(test, "scxk-nop", &p);
	api->drv_info(kdev, &di);
	KUNIT_ASSERT_EQ(test, di.cmd_events, 1u);
	virq = api->vector_virq(kdev, SCX_VEC_ASYNC);

	/*
	 * Bring-up leaves async work behind (a page request running ahead):
	 * the baseline is taken once it is done.
	 */
	scx_kunit_quiesce(test);
	snap_vector(test, SCX_VEC_ASYNC, &a0);
	snap_vector(test, SCX_VEC_COMP(0), &c0);
	KUNIT_ASSERT_EQ(test, api->eq_stat(kdev, 0, &eq0), 0);
	KUNIT_ASSERT_EQ(test, api->cmd_stat(kdev, MLX5_CMD_OP_NOP, &st0), 0);
	proc0 = scx_kunit_proc_interrupts(virq, "scxk-nop-async");
	KUNIT_ASSERT_GE(test, proc0, 0l);
	KUNIT_EXPECT_EQ(test, (unsigned long)proc0, a0.irqs);

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, api->exec_nop(kdev), 0);
		/*
		 * Apart, so no completion can fall into the handler run of the
		 * one before (that would be one interrupt for two events).
		 */
		usleep_range(200, 400);
	}
	scx_kunit_quiesce(test);
	snap_vector(test, SCX_VEC_ASYNC, &a1);
	snap_vector(test, SCX_VEC_COMP(0), &c1);
	KUNIT_ASSERT_EQ(test, api->eq_stat(kdev, 0, &eq1), 0);
	KUNIT_ASSERT_EQ(test, api->cmd_stat(kdev, MLX5_CMD_OP_NOP, &st1), 0);
	proc1 = scx_kunit_proc_interrupts(virq, "scxk-nop-async");

	KUNIT_EXPECT_EQ(test, st1.count - st0.count, (u64)n);
	KUNIT_EXPECT_EQ(test, st1.errors, st0.errors);
	KUNIT_EXPECT_GE(test, a1.irqs - a0.irqs, (unsigned long)n);
	KUNIT_EXPECT_GE(test, eq1.eqes - eq0.eqes, (u64)n);
	/* Every interrupt ran the handler, in hardirq context, and reached the EQ. */
	KUNIT_EXPECT_EQ(test, a1.runs - a0.runs, a1.irqs - a0.irqs);
	KUNIT_EXPECT_EQ(test, a1.hardirq_runs - a0.hardirq_runs, a1.runs - a0.runs);
	KUNIT_EXPECT_EQ(test, eq1.irqs - eq0.irqs, (u64)(a1.irqs - a0.irqs));
	/* /proc/interrupts shows the same count on the line named <dev>-async. */
	KUNIT_EXPECT_EQ(test, proc1, (long)a1.irqs);
	KUNIT_EXPECT_GE(test, proc1 - proc0, (long)n);
	/* Commands never touch a completion vector. */
	KUNIT_EXPECT_EQ(test, c1.irqs, c0.irqs);
}

struct cq_probe {
	atomic_t calls, in_hardirq, in_softirq, in_task;
	atomic_t events, event_type, event_synd, event_hardirq;
	wait_queue_head_t wq;
};

static void cq_probe_init(struct cq_probe *p)
{
	memset(p, 0, sizeof(*p));
	init_waitqueue_head(&p->wq);
}

/* The completion callback: record the context it runs in. */
static void cq_probe_comp(struct scx_drv_cq *cq, void *ctx)
{
	struct cq_probe *p = ctx;

	if (in_hardirq())
		atomic_inc(&p->in_hardirq);
	if (in_serving_softirq())
		atomic_inc(&p->in_softirq);
	if (in_task())
		atomic_inc(&p->in_task);
	atomic_inc(&p->calls);
	wake_up(&p->wq);
}

static void cq_probe_event(struct scx_drv_cq *cq, u8 type, u8 syndrome, void *ctx)
{
	struct cq_probe *p = ctx;

	atomic_set(&p->event_type, type);
	atomic_set(&p->event_synd, syndrome);
	if (in_hardirq())
		atomic_inc(&p->event_hardirq);
	atomic_inc(&p->events);
	wake_up(&p->wq);
}

static bool cq_wait_calls(struct cq_probe *p, int n)
{
	return wait_event_timeout(p->wq, atomic_read(&p->calls) >= n,
				  msecs_to_jiffies(SCX_WAIT_MS)) > 0;
}

static struct scx_drv_cq *make_cq(struct kunit *test, int slot, unsigned int comp_eq,
				  unsigned int log_size, struct cq_probe *probe)
{
	struct scx_kunit_fn *fn = test->priv;
	struct scx_drv_cq_params cp = {
		.comp_eq = comp_eq,
		.log_size = log_size,
		.comp = cq_probe_comp,
		.event = cq_probe_event,
		.ctx = probe,
	};

	KUNIT_ASSERT_EQ(test, fn->api->cq_create(fn->kdev, &cp, &fn->cq[slot]), 0);
	return fn->cq[slot];
}

static int post_cqe(struct kunit *test, struct scx_drv_cq *cq, u16 wqe_counter)
{
	struct scx_kunit_fn *fn = test->priv;
	struct scx_drv_cq_info ci;
	u8 cqe[64] = {};

	fn->api->cq_info(cq, &ci);
	cqe[60] = wqe_counter >> 8;
	cqe[61] = wqe_counter & 0xff;
	cqe[63] = SCX_CQE_REQ << 4;
	return fn->api->post_cqe(fn->kdev, ci.cqn, cqe, false);
}

/*
 * CQE on an armed CQ -> COMP EQE -> interrupt on the CQ's vector in hardirq
 * -> tasklet -> callback, in softirq context, once per armed CQE.
 */
static void irq_cq_completion_path(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	const struct scx_test_api *api = fn->api;
	struct scx_irq_snap v0, v1, o0, o1, a0, a1;
	struct scx_drv_cq_info ci;
	struct scx_kdev_params p;
	struct scx_drv_cq *cq;
	struct cq_probe *probe;
	const int k = 16;
	int i;

	probe = kunit_kzalloc(test, sizeof(*probe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, probe);
	cq_probe_init(probe);
	scx_kunit_default_params(&p);
	scx_kunit_fn_up(test, "scxk-cq", &p);
	cq = make_cq(test, 0, 1, 4, probe);
	api->cq_info(cq, &ci);
	KUNIT_EXPECT_EQ(test, ci.comp_eq, 1u);
	KUNIT_EXPECT_EQ(test, ci.cons_index, 0u);

	/*
	 * Bring-up and CREATE_CQ leave async work behind (command events, a
	 * page request running ahead): the baseline is taken once it is done.
	 */
	scx_kunit_quiesce(test);
	snap_vector(test, SCX_VEC_COMP(1), &v0);
	snap_vector(test, SCX_VEC_COMP(0), &o0);
	snap_vector(test, SCX_VEC_ASYNC, &a0);
	/* Around the ring once: 16 entries, owner bit flips on the second lap. */
	for (i = 0; i < k + 4; i++) {
		api->cq_arm(cq, false);
		KUNIT_ASSERT_EQ(test, post_cqe(test, cq, i), 0);
		KUNIT_ASSERT_TRUE_MSG(test, cq_wait_calls(probe, i + 1),
				      "no callback for CQE %d (calls %d)", i,
				      atomic_read(&probe->calls));
		KUNIT_EXPECT_EQ(test, api->cq_poll(cq, 8), 1u);
	}
	scx_kunit_quiesce(test);
	snap_vector(test, SCX_VEC_COMP(1), &v1);
	snap_vector(test, SCX_VEC_COMP(0), &o1);
	snap_vector(test, SCX_VEC_ASYNC, &a1);

	KUNIT_EXPECT_EQ(test, atomic_read(&probe->calls), k + 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->in_softirq), k + 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->in_hardirq), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->in_task), 0);
	api->cq_info(cq, &ci);
	KUNIT_EXPECT_EQ(test, ci.arm_sn, (u32)(k + 4));
	KUNIT_EXPECT_EQ(test, ci.comp_calls, (u64)(k + 4));
	KUNIT_EXPECT_EQ(test, ci.cons_index, (u32)(k + 4));
	/* One interrupt per armed CQE on the CQ's own vector, each in hardirq. */
	KUNIT_EXPECT_GE(test, v1.irqs - v0.irqs, (unsigned long)(k + 4));
	KUNIT_EXPECT_EQ(test, v1.runs - v0.runs, v1.irqs - v0.irqs);
	KUNIT_EXPECT_EQ(test, v1.hardirq_runs - v0.hardirq_runs, v1.runs - v0.runs);
	/* Neither the other completion vector nor the async one heard of it. */
	KUNIT_EXPECT_EQ(test, o1.irqs, o0.irqs);
	KUNIT_EXPECT_EQ(test, a1.irqs, a0.irqs);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->events), 0);
}

/* No event without arming; one event per arm; arming over a pending CQE fires at once. */
static void irq_cq_arming_rules(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	const struct scx_test_api *api = fn->api;
	struct scx_irq_snap v0, v1;
	struct scx_kdev_params p;
	struct scx_drv_cq *cq;
	struct cq_probe *probe;

	probe = kunit_kzalloc(test, sizeof(*probe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, probe);
	cq_probe_init(probe);
	scx_kunit_default_params(&p);
	scx_kunit_fn_up(test, "scxk-arm", &p);
	cq = make_cq(test, 0, 0, 6, probe);

	/* Never armed: the CQE lands in the ring, nothing interrupts. */
	snap_vector(test, SCX_VEC_COMP(0), &v0);
	KUNIT_ASSERT_EQ(test, post_cqe(test, cq, 1), 0);
	msleep(SCX_QUIET_MS);
	snap_vector(test, SCX_VEC_COMP(0), &v1);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->calls), 0);
	KUNIT_EXPECT_EQ(test, v1.irqs, v0.irqs);
	KUNIT_EXPECT_EQ(test, api->cq_poll(cq, 8), 1u);
	KUNIT_EXPECT_EQ(test, api->cq_poll(cq, 8), 0u);

	/* Armed once, two CQEs: one event, one callback. */
	api->cq_arm(cq, false);
	KUNIT_ASSERT_EQ(test, post_cqe(test, cq, 2), 0);
	KUNIT_ASSERT_EQ(test, post_cqe(test, cq, 3), 0);
	KUNIT_ASSERT_TRUE(test, cq_wait_calls(probe, 1));
	msleep(SCX_QUIET_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->calls), 1);
	KUNIT_EXPECT_EQ(test, api->cq_poll(cq, 8), 2u);

	/* A CQE not yet consumed when arming: the event is due at once. */
	KUNIT_ASSERT_EQ(test, post_cqe(test, cq, 4), 0);
	msleep(SCX_QUIET_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->calls), 1);
	api->cq_arm(cq, false);
	KUNIT_ASSERT_TRUE(test, cq_wait_calls(probe, 2));
	KUNIT_EXPECT_EQ(test, api->cq_poll(cq, 8), 1u);

	/* Solicited-only arming ignores an unsolicited CQE. */
	api->cq_arm(cq, true);
	KUNIT_ASSERT_EQ(test, post_cqe(test, cq, 5), 0);
	msleep(SCX_QUIET_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->calls), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->in_softirq), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->events), 0);
}

/* A CQ that is never consumed overruns: CQ_ERROR reaches its event callback in hardirq. */
static void irq_cq_overrun_event(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	struct scx_drv_cq_info ci;
	struct scx_kdev_params p;
	struct scx_drv_cq *cq;
	struct cq_probe *probe;
	u8 cqe[64] = {};
	int i, err = 0;

	probe = kunit_kzalloc(test, sizeof(*probe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, probe);
	cq_probe_init(probe);
	scx_kunit_default_params(&p);
	scx_kunit_fn_up(test, "scxk-ovr", &p);
	cq = make_cq(test, 0, 1, 2, probe);
	fn->api->cq_info(cq, &ci);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, post_cqe(test, cq, i), 0);
	err = fn->api->post_cqe(fn->kdev, ci.cqn, cqe, false);
	KUNIT_EXPECT_EQ(test, err, -ENOSPC);
	KUNIT_ASSERT_GT(test, wait_event_timeout(probe->wq, atomic_read(&probe->events) > 0,
						 msecs_to_jiffies(SCX_WAIT_MS)), 0l);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->events), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->event_type), MLX5_EVENT_TYPE_CQ_ERROR);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->event_synd), MLX5_CQ_ERROR_SYNDROME_CQ_OVERRUN);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->event_hardirq), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->calls), 0);
	/* Destroyed CQs are gone for the device too. */
	KUNIT_EXPECT_EQ(test, fn->api->cq_destroy(cq), 0);
	fn->cq[0] = NULL;
	KUNIT_EXPECT_EQ(test, fn->api->post_cqe(fn->kdev, ci.cqn, cqe, false), -ENOENT);
}

struct port_probe {
	atomic_t calls, in_hardirq, port, sub_type;
	wait_queue_head_t wq;
};

static void port_probe_event(void *ctx, u8 port, u8 sub_type)
{
	struct port_probe *p = ctx;

	if (in_hardirq())
		atomic_inc(&p->in_hardirq);
	atomic_set(&p->port, port);
	atomic_set(&p->sub_type, sub_type);
	atomic_inc(&p->calls);
	wake_up(&p->wq);
}

/* Link down and up: a PORT_CHANGE event each, on the async vector, in hardirq. */
static void irq_port_change(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	struct scx_irq_snap a0, a1;
	struct scx_kdev_params p;
	struct port_probe *probe;
	struct scx_kdev *kdev;

	probe = kunit_kzalloc(test, sizeof(*probe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, probe);
	init_waitqueue_head(&probe->wq);
	scx_kunit_default_params(&p);
	p.port_event = port_probe_event;
	p.port_event_ctx = probe;
	kdev = scx_kunit_fn_up(test, "scxk-port", &p);
	snap_vector(test, SCX_VEC_ASYNC, &a0);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->calls), 0);

	fn->api->set_link(kdev, false);
	KUNIT_ASSERT_GT(test, wait_event_timeout(probe->wq, atomic_read(&probe->calls) >= 1,
						 msecs_to_jiffies(SCX_WAIT_MS)), 0l);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->sub_type), MLX5_PORT_CHANGE_SUBTYPE_DOWN);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->port), 1);
	/* Already down: no change, no event. */
	fn->api->set_link(kdev, false);
	msleep(SCX_QUIET_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->calls), 1);

	fn->api->set_link(kdev, true);
	KUNIT_ASSERT_GT(test, wait_event_timeout(probe->wq, atomic_read(&probe->calls) >= 2,
						 msecs_to_jiffies(SCX_WAIT_MS)), 0l);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->sub_type), MLX5_PORT_CHANGE_SUBTYPE_ACTIVE);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->port), 1);
	msleep(SCX_QUIET_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->calls), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe->in_hardirq), 2);
	scx_kunit_quiesce(test);
	snap_vector(test, SCX_VEC_ASYNC, &a1);
	KUNIT_EXPECT_GE(test, a1.irqs - a0.irqs, 2ul);
	KUNIT_EXPECT_EQ(test, a1.hardirq_runs - a0.hardirq_runs, a1.irqs - a0.irqs);
	/* Commands still work with the link bounced. */
	KUNIT_EXPECT_EQ(test, fn->api->exec_nop(kdev), 0);
}

static struct kunit_case irq_cases[] = {
	KUNIT_CASE(irq_function_up_down),
	KUNIT_CASE(irq_nop_events_count),
	KUNIT_CASE(irq_cq_completion_path),
	KUNIT_CASE(irq_cq_arming_rules),
	KUNIT_CASE(irq_cq_overrun_event),
	KUNIT_CASE(irq_port_change),
	{}
};

static struct kunit_suite irq_suite = {
	.name = "softcx_irq",
	.init = scx_kunit_fn_init,
	.exit = scx_kunit_fn_exit,
	.test_cases = irq_cases,
};
kunit_test_suite(irq_suite);
