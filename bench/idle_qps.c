// SPDX-License-Identifier: GPL-2.0
/*
 * Idle cost: creates COUNT RC QPs on one device, connected in pairs and in
 * RTS, posts nothing, and sleeps SECONDS while the caller measures the
 * device's CPU use. Prints "ready" once the QPs are up, "done" at the end.
 *   idle_qps DEV GID_INDEX [COUNT [SECONDS]]
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int connect_qp(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid, int gidx)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int count = argc > 3 ? atoi(argv[3]) : 1000, secs = argc > 4 ? atoi(argv[4]) : 10;
	int gidx = argc > 2 ? atoi(argv[2]) : 0, n, i;
	union ibv_gid gid;

	if (argc < 3 || count < 2 || count % 2)
		return fprintf(stderr, "usage: idle_qps DEV GID_INDEX [EVEN_COUNT [SECONDS]]\n"), 2;
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx || ibv_query_gid(ctx, 1, gidx, &gid))
		return fprintf(stderr, "cannot open %s\n", argv[1]), 1;

	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	struct ibv_qp **qp = calloc(count, sizeof(*qp));

	if (!cq || !qp)
		return fprintf(stderr, "setup failed\n"), 1;
	for (i = 0; i < count; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		/*
		 * No retry on EAGAIN: softcx holds a command that ran short of
		 * firmware pages until the driver has given them.
		 */
		qp[i] = ibv_create_qp(pd, &ia);
		if (!qp[i])
			return fprintf(stderr, "create_qp %d failed: %s\n", i, strerror(errno)), 1;
	}
	for (i = 0; i < count; i += 2)
		if (connect_qp(qp[i], qp[i + 1]->qp_num, &gid, gidx) ||
		    connect_qp(qp[i + 1], qp[i]->qp_num, &gid, gidx))
			return fprintf(stderr, "connect %d failed\n", i), 1;
	printf("ready %d\n", count);
	fflush(stdout);
	sleep(secs);
	for (i = 0; i < count; i++)
		ibv_destroy_qp(qp[i]);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("done\n");
	return 0;
}
