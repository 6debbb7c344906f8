// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of entering a device, with no transport work behind it:
 *   getppid     a null system call;
 *   doorbell    (mlx5 devices: softcx) a store to a QP's UAR doorbell, the
 *               QP in RESET, so the store traps and is emulated but nothing
 *               is sent;
 *   post_send   (other devices: rxe) ibv_post_send on a QP in RESET, which
 *               the kernel takes and refuses.
 * Prints "getppid NS doorbell NS" or "getppid NS post_send NS", nanoseconds
 * per call, each the best of five batches of COUNT.
 *   trap_floor DEV [COUNT]
 */
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

enum entry { E_GETPPID, E_DOORBELL, E_POST_SEND };

struct target {
	struct ibv_qp *qp;
	volatile uint64_t *reg;
	uint64_t doorbell;	/* a SEND's control segment, its first 8 bytes */
};

static int enter(enum entry e, struct target *t)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;

	switch (e) {
	case E_GETPPID:
		return getppid() > 0 ? 0 : -1;
	case E_DOORBELL:
		*t->reg = t->doorbell;
		return 0;
	case E_POST_SEND:
		/* Refused in the kernel: the QP is in RESET. */
		return ibv_post_send(t->qp, &wr, &bad) ? 0 : -1;
	}
	return -1;
}

static double best_ns(enum entry e, struct target *t, int count)
{
	double best = 0;
	int b, i;

	for (b = 0; b < 5; b++) {
		double t0 = now_ns(), ns;

		for (i = 0; i < count; i++)
			if (enter(e, t))
				return -1;
		ns = (now_ns() - t0) / count;
		if (b == 0 || ns < best)
			best = ns;
	}
	return best;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

int main(int argc, char **argv)
{
	int count = argc > 2 ? atoi(argv[2]) : 20000;
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .cap = { 16, 16, 1, 1, 0 } };
	struct target t = { 0 };
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	enum entry e;
	double sys, dev;

	if (argc < 2 || count < 1)
		return fprintf(stderr, "usage: trap_floor DEV [COUNT]\n"), 2;
	ctx = open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!cq)
		return fprintf(stderr, "trap_floor: cannot open %s\n", argv[1]), 1;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	t.qp = ibv_create_qp(pd, &qa);
	if (!t.qp)
		return fprintf(stderr, "trap_floor: no QP\n"), 1;
	e = E_POST_SEND;
	if (mlx5dv_is_supported(ctx->device)) {
		struct mlx5dv_obj o = { .qp = { .in = t.qp } };
		struct mlx5_wqe_ctrl_seg ctrl;
		struct mlx5dv_qp dq;

		o.qp.out = &dq;
		if (mlx5dv_init_obj(&o, MLX5DV_OBJ_QP))
			return fprintf(stderr, "trap_floor: mlx5dv_init_obj failed\n"), 1;
		t.reg = dq.bf.reg;
		/* WQE 0, one 16-byte unit: as libmlx5 rings it, never fetched. */
		mlx5dv_set_ctrl_seg(&ctrl, 0, MLX5_OPCODE_SEND, 0, t.qp->qp_num, 0, 1, 0, 0);
		memcpy(&t.doorbell, &ctrl, sizeof(t.doorbell));
		e = E_DOORBELL;
	}
	sys = best_ns(E_GETPPID, &t, count);
	dev = best_ns(e, &t, count);
	if (sys < 0 || dev < 0)
		return fprintf(stderr, "trap_floor: an entry failed\n"), 1;
	printf("getppid %.0f %s %.0f\n", sys, e == E_DOORBELL ? "doorbell" : "post_send", dev);
	ibv_destroy_qp(t.qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
