// SPDX-License-Identifier: GPL-2.0
/*
 * iommu_bug: the hca must never follow a buggy driver's page table into
 * memory nobody mapped for it. Plain libibverbs on one softcx device: the
 * driver-bug switches in debugfs (inject "mtt_hole 1" / "short_list 1") make
 * the next MR's table wrong, then RDMA READs go through it:
 *  - mtt_hole: the last MTT entry is 0. A READ of the pages before it works;
 *    a READ of the last page completes with IBV_WC_REM_ACCESS_ERR and the
 *    IOMMU's refusal counter rises by exactly one per access;
 *  - short_list: the table stops short of the region. A READ past its
 *    entries fails the same way as a translation fault (dp
 *    translation_faults +1), and the IOMMU is never asked.
 * Guard bytes around the destination buffer stay intact throughout.
 *
 *   iommu_bug -d softcx_0 -g GID_INDEX -D /sys/kernel/debug/softcx/softcx_0
 * Prints RESULT lines; exits 1 if any failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vt.h"

#define PAGE 4096
#define ROUNDS 5
#define GUARD 0x5a

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid gid;
	int gidx;
	const char *dbg;
	uint8_t *dst; /* 3 pages: a guard page on each side of the middle one */
	struct ibv_mr *dst_mr;
};

/*
 * One RDMA READ of len bytes at raddr into the middle page of dst, on a
 * fresh pair of QPs (an error leaves both in ERR). Two QPs, not one
 * connected to itself: the responder's error puts its QP in ERR, which
 * would flush the very READ that is to report it. Returns the completion
 * status, or -1 when none came.
 */
static int read_once(struct ctx *c, uint64_t raddr, uint32_t rkey, uint32_t len)
{
	struct ibv_qp_init_attr ia = { .send_cq = c->cq, .recv_cq = c->cq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 1, .max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct ibv_sge sge = { .addr = (uintptr_t)(c->dst + PAGE), .length = len, .lkey = c->dst_mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_qp *qp = ibv_create_qp(c->pd, &ia);
	struct ibv_qp *peer = ibv_create_qp(c->pd, &ia);
	struct ibv_wc wc;
	int status = -1, n = 0;
	time_t t0 = time(NULL);

	if (!qp || !peer)
		goto out;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (vt_connect_rc(qp, peer->qp_num, &c->gid, c->gidx, 0) &&
	    vt_connect_rc(peer, qp->qp_num, &c->gid, c->gidx, IBV_ACCESS_REMOTE_READ) &&
	    !ibv_post_send(qp, &wr, &bad)) {
		while ((n = ibv_poll_cq(c->cq, 1, &wc)) == 0 && time(NULL) - t0 < 10)
			usleep(100);
		if (n == 1)
			status = wc.status;
	}
out:
	if (peer)
		ibv_destroy_qp(peer);
	if (qp)
		ibv_destroy_qp(qp);
	return status;
}

static bool guards_intact(struct ctx *c)
{
	for (size_t i = 0; i < PAGE; i++)
		if (c->dst[i] != GUARD || c->dst[2 * PAGE + i] != GUARD)
			return false;
	return true;
}

/* A source region of `pages` pages registered with the bug switched on. */
static struct ibv_mr *buggy_mr(struct ctx *c, const char *bug, uint8_t **buf, unsigned pages)
{
	char cmd[32];

	if (posix_memalign((void **)buf, PAGE, (size_t)pages * PAGE))
		return NULL;
	memset(*buf, 0x77, (size_t)pages * PAGE);
	snprintf(cmd, sizeof(cmd), "%s 1", bug);
	if (!vt_inject(c->dbg, cmd))
		return NULL;
	return ibv_reg_mr(c->pd, *buf, (size_t)pages * PAGE, IBV_ACCESS_REMOTE_READ);
}

/* READs through a table with a hole or a short end: which counter must move. */
static void run_case(struct ctx *c, const char *bug, const char *file, const char *name,
		     const char *other_file, const char *other)
{
	long long before, after, other_before, other_after;
	unsigned pages = 4, good = 0, refused = 0;
	uint8_t *src = NULL;
	struct ibv_mr *mr = buggy_mr(c, bug, &src, pages);
	char tag[64];
	int i, st;

	snprintf(tag, sizeof(tag), "iommu_%s_setup", bug);
	if (!mr) {
		vt_result(tag, false, "could not register the buggy MR: %s", strerror(errno));
		return;
	}
	other_before = vt_counter(c->dbg, other_file, other);
	for (i = 0; i < ROUNDS; i++) {
		memset(c->dst + PAGE, 0, PAGE);
		st = read_once(c, (uintptr_t)src + 8, mr->rkey, 256);
		good += st == IBV_WC_SUCCESS && c->dst[PAGE] == 0x77;
		before = vt_counter(c->dbg, file, name);
		memset(c->dst + PAGE, 0, PAGE);
		st = read_once(c, (uintptr_t)src + (pages - 1) * PAGE + 64, mr->rkey, 256);
		after = vt_counter(c->dbg, file, name);
		if (st == IBV_WC_REM_ACCESS_ERR && after - before == 1 && c->dst[PAGE] == 0)
			refused++;
		else
			fprintf(stderr, "%s round %d: status %d (%s), %s %lld -> %lld\n", bug, i, st,
				st >= 0 ? ibv_wc_status_str(st) : "no completion", name, before, after);
	}
	other_after = vt_counter(c->dbg, other_file, other);
	snprintf(tag, sizeof(tag), "iommu_%s_good_pages", bug);
	vt_result(tag, good == ROUNDS, "%u/%u READs before the bad entry completed with the data", good, ROUNDS);
	snprintf(tag, sizeof(tag), "iommu_%s_refused", bug);
	vt_result(tag, refused == ROUNDS, "%u/%u READs through it: REM_ACCESS_ERR, %s/%s +1 each", refused,
	       ROUNDS, file, name);
	snprintf(tag, sizeof(tag), "iommu_%s_only_that_counter", bug);
	vt_result(tag, other_after == other_before, "%s/%s %lld -> %lld", other_file, other, other_before,
	       other_after);
	snprintf(tag, sizeof(tag), "iommu_%s_guards", bug);
	vt_result(tag, guards_intact(c), "guard pages around the destination");
	ibv_dereg_mr(mr);
	free(src);
}

int main(int argc, char **argv)
{
	const char *dev = "softcx_0";
	struct ctx c = { .gidx = 0, .dbg = NULL };
	int opt;

	while ((opt = getopt(argc, argv, "d:g:D:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': c.gidx = atoi(optarg); break;
		case 'D': c.dbg = optarg; break;
		default: return 2;
		}
	}
	if (!c.dbg)
		return 2;
	c.ctx = vt_open(dev);
	if (!c.ctx || ibv_query_gid(c.ctx, 1, c.gidx, &c.gid) || !(c.pd = ibv_alloc_pd(c.ctx)) ||
	    !(c.cq = ibv_create_cq(c.ctx, 16, NULL, NULL, 0)) || posix_memalign((void **)&c.dst, PAGE, 3 * PAGE)) {
		vt_result("iommu_setup", false, "device %s: %s", dev, strerror(errno));
		return 1;
	}
	memset(c.dst, GUARD, 3 * PAGE);
	c.dst_mr = ibv_reg_mr(c.pd, c.dst + PAGE, PAGE, IBV_ACCESS_LOCAL_WRITE);
	if (!c.dst_mr) {
		vt_result("iommu_setup", false, "ibv_reg_mr: %s", strerror(errno));
		return 1;
	}
	run_case(&c, "mtt_hole", "iommu", "refused", "dp", "translation_faults");
	run_case(&c, "short_list", "dp", "translation_faults", "iommu", "refused");
	ibv_dereg_mr(c.dst_mr);
	ibv_destroy_cq(c.cq);
	ibv_dealloc_pd(c.pd);
	ibv_close_device(c.ctx);
	free(c.dst);
	return vt_failures ? 1 : 0;
}
