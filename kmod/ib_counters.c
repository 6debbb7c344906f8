// SPDX-License-Identifier: GPL-2.0
/*
 * Counters through the RDMA core (rdma statistic, hw_counters in sysfs),
 * backed by the hca's Q counter sets as mlx5_ib backs them: the port has a
 * set of its own that every QP counts into from RESET->INIT on, and a QP
 * bound to an rdma_counter (rdma statistic qp bind, or auto mode) moves to
 * that counter's set. The port's hw_counters show its own set; the core
 * adds the bound counters' sets for `rdma statistic show link`.
 */
#include "kmod.h"

#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>

#include "ib_priv.h"

/* The counters of query_q_counter_out, named as mlx5 names them. */
#define SCX_Q_COUNTERS_MAX 32
static struct rdma_stat_desc scx_q_descs[SCX_Q_COUNTERS_MAX];
static unsigned int scx_q_ndescs;

int scx_counters_init(void)
{
	unsigned int i, n = scx_verbs_q_counter_count();

	if (n > SCX_Q_COUNTERS_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		scx_q_descs[i].name = scx_verbs_q_counter_name(i);
	scx_q_ndescs = n;
	return 0;
}

/* The port's own set; its QPs count into it unless bound elsewhere. */
int scx_counters_add(struct scx_ibdev *sdev)
{
	return scx_verbs_alloc_q_counter(sdev->kdev->drv, &sdev->port_counter_set);
}

static struct rdma_hw_stats *scx_alloc_stats(void)
{
	return rdma_alloc_hw_stats_struct(scx_q_descs, scx_q_ndescs, RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* Every counter of one set into stats; the number filled, or an errno. */
static int scx_read_set(struct ib_device *ib, u32 set, struct rdma_hw_stats *stats)
{
	u32 v[SCX_Q_COUNTERS_MAX];
	unsigned int i;
	int err;

	err = scx_verbs_query_q_counter(to_drv(ib), set, false, v);
	if (err)
		return err;
	for (i = 0; i < scx_q_ndescs && i < stats->num_counters; i++)
		stats->value[i] = v[i];
	return i;
}

struct rdma_hw_stats *scx_alloc_hw_port_stats(struct ib_device *ib, u32 port)
{
	return scx_alloc_stats();
}

int scx_get_hw_stats(struct ib_device *ib, struct rdma_hw_stats *stats, u32 port, int index)
{
	/* Port 0 would be device-wide counters, which softcx has none of. */
	if (!port)
		return 0;
	return scx_read_set(ib, to_sdev(ib)->port_counter_set, stats);
}

struct rdma_hw_stats *scx_counter_alloc_stats(struct rdma_counter *counter)
{
	return scx_alloc_stats();
}

int scx_counter_update_stats(struct rdma_counter *counter)
{
	int n = scx_read_set(counter->device, counter->id, counter->stats);

	return n < 0 ? n : 0;
}

/* The counter's set, allocated with its first QP. */
int scx_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *qp)
{
	bool fresh = !counter->id;
	int err;

	if (fresh) {
		err = scx_verbs_alloc_q_counter(to_drv(qp->device), &counter->id);
		if (err)
			return err;
	}
	err = scx_qp_set_counter(qp, counter);
	if (err && fresh) {
		scx_verbs_dealloc_q_counter(to_drv(qp->device), counter->id);
		counter->id = 0;
	}
	return err;
}

int scx_counter_unbind_qp(struct ib_qp *qp)
{
	return scx_qp_set_counter(qp, NULL);
}

int scx_counter_dealloc(struct rdma_counter *counter)
{
	if (!counter->id)
		return 0;
	return scx_verbs_dealloc_q_counter(to_drv(counter->device), counter->id);
}
