// SPDX-License-Identifier: GPL-2.0
/*
 * counted_errors -d DEV -g GIDX -n N [-b]: traffic whose effect on the
 * port's counters is known in advance, for tests/vm/guest/counters.sh.
 *
 * Default: N SENDs that find no receive (rnr_retry 1: the first RNR NAK is
 * retried, the second ends the QP) and N RDMA WRITEs with a wrong rkey,
 * each on a new pair of RC QPs connected to each other; every one must end
 * in the error completion the verbs promise for it.
 *
 * -b: one pair; prints "QPN <requester> <responder>", waits for a line on
 * stdin (the caller binds counters to the QPs meanwhile), does N good
 * RDMA WRITEs from the requester to the responder, prints "DONE" and waits
 * for another line before it destroys the QPs (a bound counter lives only
 * as long as its QPs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vt.h"

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf;
	union ibv_gid gid;
	int gidx;
};

struct pair {
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *a, *b;
};

static void pair_down(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->cq_a)
		ibv_destroy_cq(p->cq_a);
	if (p->cq_b)
		ibv_destroy_cq(p->cq_b);
	memset(p, 0, sizeof(*p));
}

static struct ibv_qp *rc_qp(struct env *e, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(e->pd, &ia);
}

/* Requester a (with rnr_retry) and responder b, connected to each other. */
static bool pair_up(struct env *e, int rnr_retry, struct pair *p)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	memset(p, 0, sizeof(*p));
	if (!(p->cq_a = ibv_create_cq(e->ctx, 8, NULL, NULL, 0)) ||
	    !(p->cq_b = ibv_create_cq(e->ctx, 8, NULL, NULL, 0)) ||
	    !(p->a = rc_qp(e, p->cq_a)) || !(p->b = rc_qp(e, p->cq_b)) ||
	    !vt_connect_rc_rnr(p->a, p->b->qp_num, &e->gid, e->gidx, access, rnr_retry) ||
	    !vt_connect_rc(p->b, p->a->qp_num, &e->gid, e->gidx, access)) {
		pair_down(p);
		return false;
	}
	return true;
}

/* The next completion of cq within 10 s; false if none came. */
static bool one_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	long long end = vt_now_ms() + 10000;
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0 && vt_now_ms() < end)
		usleep(100);
	return n == 1;
}

/* One signaled WR of opcode from a (16 bytes of the MR), its completion. */
static bool post_one(struct env *e, struct pair *p, enum ibv_wr_opcode opcode, uint32_t rkey,
		     struct ibv_wc *wc)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 16, .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = opcode,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)e->buf + 2048;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(p->a, &wr, &bad) == 0 && one_wc(p->cq_a, wc);
}

/* n times, on a new pair each: opcode with rkey must end in status want. */
static void errors(struct env *e, const char *name, int n, int rnr_retry,
		   enum ibv_wr_opcode opcode, uint32_t rkey, enum ibv_wc_status want)
{
	struct ibv_wc wc;
	struct pair p;
	int ok = 0, i;

	for (i = 0; i < n; i++) {
		if (!pair_up(e, rnr_retry, &p)) {
			vt_result(name, false, "QP pair %d: %s", i, strerror(errno));
			return;
		}
		memset(&wc, 0, sizeof(wc));
		bool got = post_one(e, &p, opcode, rkey, &wc);

		pair_down(&p);
		if (!got || wc.status != want) {
			vt_result(name, false, "message %d: %s", i,
				  got ? ibv_wc_status_str(wc.status) : "no completion in 10 s");
			return;
		}
		ok++;
	}
	vt_result(name, true, "%d messages, each %s", ok, ibv_wc_status_str(want));
}

static void bound(struct env *e, int n)
{
	struct ibv_wc wc;
	struct pair p;
	char line[64];
	int i;

	if (!pair_up(e, 7, &p)) {
		vt_result("bound_writes", false, "QP pair: %s", strerror(errno));
		return;
	}
	printf("QPN %u %u\n", p.a->qp_num, p.b->qp_num);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin)) {
		vt_result("bound_writes", false, "no go-ahead on stdin");
		pair_down(&p);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!post_one(e, &p, IBV_WR_RDMA_WRITE, e->mr->rkey, &wc) || wc.status != IBV_WC_SUCCESS)
			break;
	}
	vt_result("bound_writes", i == n, "%d of %d WRITEs completed", i, n);
	printf("DONE\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		fprintf(stderr, "no line after DONE; destroying the QPs\n");
	pair_down(&p);
}

int main(int argc, char **argv)
{
	const char *dev = "softcx_0";
	struct env e = { .gidx = 1 };
	int n = 10, opt, pair_mode = 0;

	while ((opt = getopt(argc, argv, "d:g:n:b")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': e.gidx = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 'b': pair_mode = 1; break;
		default:
			fprintf(stderr, "usage: %s -d DEV -g GIDX -n N [-b]\n", argv[0]);
			return 2;
		}
	}
	e.buf = calloc(1, 4096);
	if (!e.buf || !(e.ctx = vt_open(dev)) || ibv_query_gid(e.ctx, 1, e.gidx, &e.gid) ||
	    !(e.pd = ibv_alloc_pd(e.ctx)) ||
	    !(e.mr = ibv_reg_mr(e.pd, e.buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))) {
		vt_result("counted_errors_setup", false, "%s: %s", dev, strerror(errno));
		return 1;
	}
	if (pair_mode) {
		bound(&e, n);
	} else {
		errors(&e, "rnr_exhausted", n, 1, IBV_WR_SEND, 0, IBV_WC_RNR_RETRY_EXC_ERR);
		errors(&e, "wrong_rkey", n, 7, IBV_WR_RDMA_WRITE, e.mr->rkey ^ 0x1,
		       IBV_WC_REM_ACCESS_ERR);
	}
	ibv_dereg_mr(e.mr);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.buf);
	return vt_failures ? 1 : 0;
}
