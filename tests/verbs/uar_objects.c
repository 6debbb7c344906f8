// SPDX-License-Identifier: GPL-2.0
/*
 * uar_objects: UAR objects (MLX5_IB_OBJECT_UAR) and the dynamic UARs
 * libmlx5 builds on them (MLX5_LIB_CAP_DYN_UAR: no static pages).
 *
 *   uar_objects -d DEV -g GIDX -D DEBUGFS_DIR
 *
 *   uar_dyn_ctx        a context opened by libmlx5 holds UAR objects (its
 *                      NC page) and no more; an RC QP and its CQ on them
 *                      carry a WRITE to the QP itself, and the CQ's event
 *                      (armed through the NC page) arrives
 *   uar_devx_alloc     mlx5dv_devx_alloc_uar NC: the context's NC page; BF:
 *                      one more UAR object, another page; both mapped at
 *                      a driver-object mmap offset (command >= 9)
 *   uar_obj_refusals   an unknown type: EOPNOTSUPP; an mmap offset no
 *                      object holds, or one destroyed: EINVAL; stores to a
 *                      mapping whose object is gone go nowhere (no fault)
 *   uar_obj_quota      objects until the context's pages run out: ENOMEM,
 *                      then all destroyed, the count back to where it was
 *   uar_cq_foreign     a CQ naming another context's UAR page, or no page
 *                      of its own: EINVAL; its own page: created
 *   uar_ctx_close      everything back to the baseline once closed
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/mlx5_user_ioctl_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/mlx5-abi.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl.h>

#include "vt.h"

#define PAGE 4096

static const char *dbg;

static long long uars(void)
{
	return vt_counter(dbg, "objects", "uar");
}

struct uar_obj {
	uint32_t handle, page_id, length;
	uint64_t offset;
};

/* One uverbs ioctl: its header and up to 8 attributes. */
struct ioctl_msg {
	struct ib_uverbs_ioctl_hdr h;
	struct ib_uverbs_attr a[8];
};

static void set_attr(struct ioctl_msg *m, int i, uint16_t id, uint16_t len, uint64_t data)
{
	memset(&m->a[i], 0, sizeof(m->a[i]));
	m->a[i].attr_id = id;
	m->a[i].len = len;
	m->a[i].data = data;
}

/* The mlx5 driver's ioctl of `method` on `object` with m's first n attributes; 0 or the errno. */
static int call(struct ibv_context *ctx, uint16_t object, uint16_t method, struct ioctl_msg *m, int n)
{
	m->h = (struct ib_uverbs_ioctl_hdr){
		.length = (uint16_t)(sizeof(m->h) + n * sizeof(m->a[0])),
		.object_id = object,
		.method_id = method,
		.num_attrs = (uint16_t)n,
		.driver_id = RDMA_DRIVER_MLX5,
	};
	return ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, m) ? errno : 0;
}

/* MLX5_IB_METHOD_UAR_OBJ_ALLOC of `type`; 0 or the errno. */
static int obj_alloc(struct ibv_context *ctx, uint32_t type, struct uar_obj *o)
{
	struct ioctl_msg m;
	int err;

	set_attr(&m, 0, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE, 0, 0);
	set_attr(&m, 1, MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE, 8, type);
	set_attr(&m, 2, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET, 8, (uintptr_t)&o->offset);
	set_attr(&m, 3, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH, 4, (uintptr_t)&o->length);
	set_attr(&m, 4, MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID, 4, (uintptr_t)&o->page_id);
	for (int i = 0; i < 5; i++)
		m.a[i].flags = UVERBS_ATTR_F_MANDATORY;
	err = call(ctx, MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_ALLOC, &m, 5);
	if (!err)
		o->handle = (uint32_t)m.a[0].data;
	return err;
}

static int obj_destroy(struct ibv_context *ctx, uint32_t handle)
{
	struct ioctl_msg m;

	set_attr(&m, 0, MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE, 0, handle);
	m.a[0].flags = UVERBS_ATTR_F_MANDATORY;
	return call(ctx, MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_DESTROY, &m, 1);
}

/* The mmap command byte of an offset (bits 8-15 of its page number). */
static unsigned int mmap_cmd(uint64_t offset)
{
	return (unsigned int)((offset / PAGE) >> 8) & 0xff;
}

/* An RC QP and CQ of ctx: a WRITE to itself, and the CQ's event. */
static void dyn_ctx(struct ibv_context *ctx, int gidx, long long base)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ch ? ibv_create_cq(ctx, 16, NULL, ch, 0) : NULL, *ev_cq;
	static char src[64] = "written through a QP on a UAR object", dst[64];
	struct ibv_mr *ms = pd ? ibv_reg_mr(pd, src, sizeof(src), 0) : NULL;
	struct ibv_mr *md = pd ? ibv_reg_mr(pd, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE) : NULL;
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .cap = { 4, 4, 1, 1, 0 } };
	struct ibv_qp *qp = NULL;
	union ibv_gid gid;
	struct ibv_wc wc;
	void *ev_ctx;
	long long held = uars();
	bool ok = false;

	if (cq && ms && md) {
		qa.send_cq = qa.recv_cq = cq;
		qp = ibv_create_qp(pd, &qa);
	}
	if (qp && !ibv_query_gid(ctx, 1, gidx, &gid) &&
	    vt_connect_rc(qp, qp->qp_num, &gid, gidx, IBV_ACCESS_REMOTE_WRITE) &&
	    !ibv_req_notify_cq(cq, 0)) {
		struct ibv_sge sge = { (uintptr_t)src, sizeof(src), ms->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)dst;
		wr.wr.rdma.rkey = md->rkey;
		ok = !ibv_post_send(qp, &wr, &bad) && !ibv_get_cq_event(ch, &ev_cq, &ev_ctx) &&
		     ev_cq == cq && ibv_poll_cq(cq, 1, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
		     !strcmp(dst, src);
		if (ev_cq == cq)
			ibv_ack_cq_events(cq, 1);
	}
	vt_result("uar_dyn_ctx", ok && held == base + 1,
		  "UAR objects %lld (baseline %lld, the context's NC page: +1), WRITE and event %s",
		  held, base, ok ? "ok" : "failed");
	if (qp)
		ibv_destroy_qp(qp);
	if (md)
		ibv_dereg_mr(md);
	if (ms)
		ibv_dereg_mr(ms);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ch)
		ibv_destroy_comp_channel(ch);
}

static void devx_alloc(struct ibv_context *ctx)
{
	long long before = uars();
	struct mlx5dv_devx_uar *nc = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	struct mlx5dv_devx_uar *bf = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	long long after = uars();
	bool ok = nc && bf && nc->page_id && bf->page_id && nc->page_id != bf->page_id &&
		  nc->base_addr && bf->base_addr && mmap_cmd(nc->mmap_off) >= 9 &&
		  mmap_cmd(bf->mmap_off) >= 9 && after == before + 1;

	vt_result("uar_devx_alloc", ok,
		  "NC page %u (mmap command %u), BF page %u (command %u), UAR objects %lld -> %lld",
		  nc ? nc->page_id : 0, nc ? mmap_cmd(nc->mmap_off) : 0, bf ? bf->page_id : 0,
		  bf ? mmap_cmd(bf->mmap_off) : 0, before, after);
	if (bf)
		mlx5dv_devx_free_uar(bf);
}

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* A store to p; the signal it raised, or 0. */
static int store_at(volatile uint64_t *p)
{
	struct sigaction sa = { .sa_handler = on_fault }, old_segv, old_bus;
	int sig;

	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sig = sigsetjmp(fault_jmp, 1);
	if (!sig)
		*p = 0x1234;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return sig;
}

static void refusals(struct ibv_context *ctx)
{
	struct uar_obj o = {};
	int bad_type = obj_alloc(ctx, 7, &o), made, nowhere = -1;
	void *stale = MAP_FAILED, *unheld = MAP_FAILED, *gone = MAP_FAILED;
	int unheld_err = 0, gone_err = 0;

	made = obj_alloc(ctx, MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF, &o);
	if (!made) {
		/* One page on: nothing is there (each object has one page). */
		unheld = mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, ctx->cmd_fd, (off_t)o.offset + PAGE);
		unheld_err = errno;
		stale = mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, ctx->cmd_fd, (off_t)o.offset);
		if (stale != MAP_FAILED)
			store_at((volatile uint64_t *)((char *)stale + 0x800));
		made = obj_destroy(ctx, o.handle);
		gone = mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, ctx->cmd_fd, (off_t)o.offset);
		gone_err = errno;
		if (stale != MAP_FAILED)
			nowhere = store_at((volatile uint64_t *)((char *)stale + 0x800));
	}
	vt_result("uar_obj_refusals",
		  bad_type == EOPNOTSUPP && !made && o.length == PAGE && unheld == MAP_FAILED &&
		  unheld_err == EINVAL && gone == MAP_FAILED && gone_err == EINVAL && nowhere == 0,
		  "type 7: %s; object: %s, length %u; mmap past it: %s; after destroy: %s, a store to the old mapping: %s",
		  strerror(bad_type), strerror(made), o.length, strerror(unheld_err),
		  strerror(gone_err), nowhere ? "signal" : "no fault");
	if (stale != MAP_FAILED)
		munmap(stale, PAGE);
	if (unheld != MAP_FAILED)
		munmap(unheld, PAGE);
	if (gone != MAP_FAILED)
		munmap(gone, PAGE);
}

static void quota(struct ibv_context *ctx)
{
	static struct uar_obj o[300];
	long long before = uars(), peak;
	int n = 0, err = 0, undone = 0;

	while (n < 300 && !(err = obj_alloc(ctx, MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC, &o[n])))
		n++;
	peak = uars();
	for (int i = 0; i < n; i++)
		undone += obj_destroy(ctx, o[i].handle) != 0;
	vt_result("uar_obj_quota", n > 100 && err == ENOMEM && peak == before + n && !undone &&
		  uars() == before, "%d objects, then %s; %lld -> %lld -> %lld, %d not destroyed",
		  n, strerror(err), before, peak, uars(), undone);
}

/* CREATE_CQ by ioctl with libmlx5's udata and the UAR page given. */
static int create_cq(struct ibv_context *ctx, void *ring, uint64_t *dbrec, uint32_t flags,
		     uint32_t page)
{
	struct mlx5_ib_create_cq udata = {
		.buf_addr = (uintptr_t)ring, .db_addr = (uintptr_t)dbrec, .cqe_size = 64,
		.flags = flags, .uar_page_index = page,
	};
	uint8_t out[64];
	uint32_t resp_cqe = 0;
	struct ioctl_msg m;

	set_attr(&m, 0, UVERBS_ATTR_CREATE_CQ_HANDLE, 0, 0);
	m.a[0].flags = UVERBS_ATTR_F_MANDATORY;
	set_attr(&m, 1, UVERBS_ATTR_CREATE_CQ_CQE, 4, 63);
	set_attr(&m, 2, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 8, 0);
	set_attr(&m, 3, UVERBS_ATTR_CREATE_CQ_RESP_CQE, 4, (uintptr_t)&resp_cqe);
	set_attr(&m, 4, UVERBS_ATTR_UHW_IN, sizeof(udata), (uintptr_t)&udata);
	set_attr(&m, 5, UVERBS_ATTR_UHW_OUT, sizeof(out), (uintptr_t)out);
	set_attr(&m, 6, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 4, 0);
	return call(ctx, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, &m, 7);
}

static void cq_foreign(struct ibv_context *ctx, const char *dev)
{
	struct ibv_context *other = vt_open(dev);
	struct mlx5dv_devx_uar *theirs = other ? mlx5dv_devx_alloc_uar(other, MLX5DV_UAR_ALLOC_TYPE_NC) : NULL;
	struct mlx5dv_devx_uar *mine = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	void *ring = NULL;
	uint64_t *dbrec = NULL;
	int foreign = -1, none = -1, own = -1;

	if (!posix_memalign(&ring, PAGE, 64 * 64) && !posix_memalign((void **)&dbrec, 64, 64) &&
	    theirs && mine) {
		memset(ring, 0, 64 * 64);
		foreign = create_cq(ctx, ring, dbrec, MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX,
				    theirs->page_id);
		none = create_cq(ctx, ring, dbrec, 0, 0);
		own = create_cq(ctx, ring, dbrec, MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX,
				mine->page_id);
	}
	vt_result("uar_cq_foreign", foreign == EINVAL && none == EINVAL && own == 0,
		  "another context's page %u: %s; no page: %s; its own page %u: %s",
		  theirs ? theirs->page_id : 0, strerror(foreign), strerror(none),
		  mine ? mine->page_id : 0, strerror(own));
	if (other)
		ibv_close_device(other);
	/* The CQ made goes with its context. */
	free(ring);
	free(dbrec);
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	struct ibv_context *ctx;
	long long base;
	int gidx = 0, c;

	while ((c = getopt(argc, argv, "d:g:D:")) != -1) {
		if (c == 'd')
			dev = optarg;
		else if (c == 'g')
			gidx = atoi(optarg);
		else if (c == 'D')
			dbg = optarg;
	}
	if (!dev || !dbg) {
		fprintf(stderr, "usage: %s -d DEV -g GIDX -D DEBUGFS_DIR\n", argv[0]);
		return 2;
	}
	base = uars();
	ctx = vt_open(dev);
	if (!ctx) {
		vt_result("uar_dyn_ctx", false, "cannot open %s: %s", dev, strerror(errno));
		return 1;
	}
	dyn_ctx(ctx, gidx, base);
	devx_alloc(ctx);
	refusals(ctx);
	quota(ctx);
	cq_foreign(ctx, dev);
	ibv_close_device(ctx);
	vt_result("uar_ctx_close", uars() == base, "UAR objects %lld, baseline %lld", uars(), base);
	return vt_failures ? 1 : 0;
}
