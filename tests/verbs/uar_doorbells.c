// SPDX-License-Identifier: GPL-2.0
/*
 * uar_doorbells: the UAR doorbell page as applications abuse it. Doorbells
 * are rung by hand (mlx5dv: the WQE written into the SQ, the doorbell record,
 * then the ctrl segment's first 8 bytes stored to the QP's BlueFlame
 * register), so each case knows exactly which store rang it.
 *
 *   uar_doorbells -d DEV -g GIDX -D DEBUGFS_DIR -P GAP_PARAM [-n THREADS] [-i WQES]
 *
 * Cases (RESULT names):
 *   threads      THREADS threads, a QP each, ring -i doorbells each at once
 *                on UAR pages they share: every WRITE lands, none is lost;
 *                the stores were emulated (uar_stores_emulated rose)
 *   sse_store    a 16-byte SSE store (movdqa): emulated (uar_stores_emulated
 *                rose, uar_traps did not), the WRITE lands
 *   avx_store    a 32-byte AVX store (vmovdqu %ymm, as UCX copies WQEs to
 *                BlueFlame): emulated, the WRITE lands
 *   movnti_store a non-temporal 64-bit store: not decoded, the page is
 *                mapped for it (uar_traps rose), the store lands and the
 *                WQE completes
 *   fork_child   a forked child has no UAR mapping (the page is not
 *                copied): its store is SIGSEGV; a context of its own works
 *   fork_parent  the parent's doorbells still work after the child's end
 *   mremap_move  the page moved elsewhere (MREMAP_FIXED): doorbells at the
 *                new address are emulated, the old address is SIGSEGV;
 *                moved back, libmlx5's own posts work again
 *   mremap_grow  growing the mapping is refused (VM_DONTEXPAND)
 *   mprotect_exec making it executable is refused
 *   streaming    32 doorbells back to back on one page, with the module's
 *                stream gap (-P, its uar_stream_gap_us file) widened so
 *                that the timing of this machine cannot decide it: the
 *                page goes to the poller (uar_streams rose), every WRITE
 *                lands, and once its stores paused the thread re-arms the
 *                trap (the page's entry goes: /proc/self/pagemap), so the
 *                next doorbell is emulated again
 * "Emulated" means the store is decoded and replayed in the kernel; the
 * other forms that are served at all are served by mapping the page.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <immintrin.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "vt.h"

#define PAGE 4096
#define SLOT 64			/* bytes each WRITE carries */
#define WAIT_MS 10000

static const char *dev_name, *dbg = "-", *gap_param;
static int gidx, n_threads = 4, n_wqes = 200;

/* A self-connected RC QP whose SQ is driven by hand. */
struct dbq {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;		/* [0, PAGE): source, [PAGE, 2 PAGE): sink */
	struct mlx5dv_qp dv;
	uint16_t pi;		/* next producer index */
	volatile uint64_t *reg;	/* where doorbells go; dv.bf.reg unless moved */
};

static void dbq_down(struct dbq *q)
{
	if (q->qp)
		ibv_destroy_qp(q->qp);
	if (q->cq)
		ibv_destroy_cq(q->cq);
	if (q->mr)
		ibv_dereg_mr(q->mr);
	if (q->pd)
		ibv_dealloc_pd(q->pd);
	free(q->buf);
	memset(q, 0, sizeof(*q));
}

static bool dbq_up(struct dbq *q, struct ibv_context *ctx)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .sq_sig_all = 1,
				       .cap = { .max_send_wr = 64, .max_recv_wr = 1,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct mlx5dv_obj obj;
	union ibv_gid gid;

	memset(q, 0, sizeof(*q));
	q->ctx = ctx;
	if (ibv_query_gid(ctx, 1, gidx, &gid) || !(q->pd = ibv_alloc_pd(ctx)) ||
	    !(q->cq = ibv_create_cq(ctx, 128, NULL, NULL, 0)) ||
	    posix_memalign((void **)&q->buf, PAGE, 2 * PAGE))
		return false;
	memset(q->buf, 0, 2 * PAGE);
	qa.send_cq = qa.recv_cq = q->cq;
	if (!(q->mr = ibv_reg_mr(q->pd, q->buf, 2 * PAGE, access)) ||
	    !(q->qp = ibv_create_qp(q->pd, &qa)))
		return false;
	obj.qp.in = q->qp;
	obj.qp.out = &q->dv;
	if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP) ||
	    q->dv.sq.stride != 64 || q->dv.sq.wqe_cnt < 64)
		return false;
	q->reg = q->dv.bf.reg;
	return vt_connect_rc(q->qp, q->qp->qp_num, &gid, gidx, access);
}

/*
 * Write an RDMA WRITE of slot `slot` (source byte `slot` * SLOT to the
 * sink's) into the SQ and its doorbell record; returns the ctrl segment's
 * first 8 bytes, the doorbell value.
 */
static uint64_t dbq_prepare(struct dbq *q, unsigned int slot, uint8_t fill)
{
	uint8_t *wqe = (uint8_t *)q->dv.sq.buf + (q->pi & (q->dv.sq.wqe_cnt - 1)) * 64;
	struct mlx5_wqe_raddr_seg *r = (void *)(wqe + sizeof(struct mlx5_wqe_ctrl_seg));
	struct mlx5_wqe_data_seg *d = (void *)(r + 1);
	uint64_t db;

	memset(q->buf + slot * SLOT, fill, SLOT);
	mlx5dv_set_ctrl_seg((void *)wqe, q->pi, MLX5_OPCODE_RDMA_WRITE, 0, q->qp->qp_num,
			    MLX5_WQE_CTRL_CQ_UPDATE, 3, 0, 0);
	r->raddr = htobe64((uintptr_t)q->buf + PAGE + slot * SLOT);
	r->rkey = htobe32(q->mr->rkey);
	r->reserved = 0;
	mlx5dv_set_data_seg(d, SLOT, q->mr->lkey, (uintptr_t)q->buf + slot * SLOT);
	q->pi++;
	atomic_thread_fence(memory_order_release);
	q->dv.dbrec[MLX5_SND_DBR] = htobe32(q->pi);
	atomic_thread_fence(memory_order_seq_cst);
	memcpy(&db, wqe, sizeof(db));
	return db;
}

/* One plain 64-bit store: the form libmlx5 uses and softcx emulates. */
static void ring64(volatile uint64_t *reg, uint64_t v)
{
	*reg = v;
}

/* n completions, all successful, within WAIT_MS. */
static bool dbq_reap(struct dbq *q, int n, char *why, size_t len)
{
	long long end = vt_now_ms() + WAIT_MS;
	struct ibv_wc wc[16];

	while (n > 0 && vt_now_ms() < end) {
		int got = ibv_poll_cq(q->cq, n < 16 ? n : 16, wc);

		for (int i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				snprintf(why, len, "completion %s", ibv_wc_status_str(wc[i].status));
				return false;
			}
		n -= got > 0 ? got : 0;
	}
	if (n)
		snprintf(why, len, "%d completions missing after %d ms", n, WAIT_MS);
	return !n;
}

/* The sink's slot holds fill. */
static bool dbq_landed(const struct dbq *q, unsigned int slot, uint8_t fill)
{
	for (int i = 0; i < SLOT; i++)
		if (q->buf[PAGE + slot * SLOT + i] != fill)
			return false;
	return true;
}

/* One doorbell by a 64-bit store at reg, its WRITE reaped and checked. */
static bool dbq_one(struct dbq *q, uint8_t fill, char *why, size_t len)
{
	ring64(q->reg, dbq_prepare(q, 0, fill));
	if (!dbq_reap(q, 1, why, len))
		return false;
	if (!dbq_landed(q, 0, fill)) {
		snprintf(why, len, "the WRITE did not land");
		return false;
	}
	return true;
}

/* ---- SIGSEGV probes ---------------------------------------------------- */

static sigjmp_buf probe_env;

static void on_segv(int sig)
{
	siglongjmp(probe_env, sig);
}

/* true when a 64-bit store at p faults (SIGSEGV or SIGBUS). */
static bool store_faults(volatile uint64_t *p)
{
	struct sigaction sa = { .sa_handler = on_segv }, old_segv, old_bus;
	bool faulted;

	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (sigsetjmp(probe_env, 1)) {
		faulted = true;
	} else {
		*p = 0;
		faulted = false;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return faulted;
}

/* ---- the cases --------------------------------------------------------- */

struct worker {
	pthread_t tid;
	struct dbq q;
	atomic_bool *go;
	int done;
	char why[160];
};

/* n_wqes WRITEs in bursts of up to 32, each burst's slots checked. */
static void *worker_run(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load(w->go))
		;
	for (int sent = 0; sent < n_wqes;) {
		int burst = n_wqes - sent < 32 ? n_wqes - sent : 32;

		for (int i = 0; i < burst; i++)
			ring64(w->q.reg, dbq_prepare(&w->q, (unsigned int)i,
						     (uint8_t)(sent + i + 1)));
		if (!dbq_reap(&w->q, burst, w->why, sizeof(w->why)))
			return NULL;
		for (int i = 0; i < burst; i++)
			if (!dbq_landed(&w->q, (unsigned int)i, (uint8_t)(sent + i + 1))) {
				snprintf(w->why, sizeof(w->why), "WRITE %d did not land", sent + i);
				return NULL;
			}
		sent += burst;
		w->done = sent;
	}
	return NULL;
}

static void case_threads(struct ibv_context *ctx)
{
	struct worker *w = calloc((size_t)n_threads, sizeof(*w));
	long long emu0 = vt_counter(dbg, "dp", "uar_stores_emulated"), emu1;
	atomic_bool go = false;
	uintptr_t pages[64];
	int n_pages = 0, started = 0, total = 0;
	char why[200] = "";
	bool ok = w != NULL;

	for (int i = 0; ok && i < n_threads; i++) {
		uintptr_t pg;
		int k = 0;

		w[i].go = &go;
		ok = dbq_up(&w[i].q, ctx);
		pg = (uintptr_t)w[i].q.reg & ~(uintptr_t)(PAGE - 1);
		while (k < n_pages && pages[k] != pg)
			k++;
		if (ok && k == n_pages && n_pages < 64)
			pages[n_pages++] = pg;
		ok = ok && !pthread_create(&w[i].tid, NULL, worker_run, &w[i]);
		started += ok;
	}
	if (!ok)
		snprintf(why, sizeof(why), "setup: %s", strerror(errno));
	atomic_store(&go, true);
	for (int i = 0; i < started; i++) {
		pthread_join(w[i].tid, NULL);
		total += w[i].done;
		if (w[i].why[0] && ok) {
			ok = false;
			snprintf(why, sizeof(why), "thread %d: %s", i, w[i].why);
		}
	}
	emu1 = vt_counter(dbg, "dp", "uar_stores_emulated");
	if (ok && emu0 >= 0 && emu1 <= emu0) {
		ok = false;
		snprintf(why, sizeof(why), "no store emulated (%lld -> %lld)", emu0, emu1);
	}
	if (ok)
		vt_result("threads", true, "%d threads on %d UAR page(s): %d WRITEs landed, %lld stores emulated",
			  n_threads, n_pages, total, emu1 - emu0);
	else
		vt_result("threads", false, "%s", why);
	for (int i = 0; w && i < n_threads; i++)
		dbq_down(&w[i].q);
	free(w);
}

/* The ways a doorbell is stored in the vector cases. */
enum vec_store { VS_SSE, VS_AVX, VS_MOVNTI };

/* The ctrl segment's first 8 bytes (and zeros after them) stored by kind. */
__attribute__((target("avx"))) static void ring_vec(volatile uint64_t *reg, uint64_t db, enum vec_store kind)
{
	void *p = (void *)(uintptr_t)reg;

	switch (kind) {
	case VS_SSE:
		_mm_store_si128(p, _mm_set_epi64x(0, (long long)db));
		break;
	case VS_AVX:
		/* as UCX copies a WQE into a BlueFlame register */
		_mm256_storeu_si256(p, _mm256_set_epi64x(0, 0, 0, (long long)db));
		break;
	case VS_MOVNTI:
		_mm_stream_si64(p, (long long)db);
		break;
	}
}

/*
 * A doorbell by a vector store (the register is 32-byte aligned: 0x800 or
 * 0x900 in the page). SSE and AVX stores are emulated (uar_stores_emulated
 * rose, uar_traps did not); movnti is not decoded, so the page is mapped
 * for it (uar_traps rose). Either way the store lands and the WQE completes.
 */
static void case_vec_store(struct ibv_context *ctx, enum vec_store kind, const char *name)
{
	long long traps0 = vt_counter(dbg, "dp", "uar_traps"), traps1;
	long long emu0 = vt_counter(dbg, "dp", "uar_stores_emulated"), emu1;
	bool emulated = kind != VS_MOVNTI;
	char why[200] = "";
	struct dbq q;
	bool ok = dbq_up(&q, ctx);

	if (!ok) {
		snprintf(why, sizeof(why), "setup: %s", strerror(errno));
	} else {
		ring_vec(q.reg, dbq_prepare(&q, 0, 0x3c), kind);
		ok = dbq_reap(&q, 1, why, sizeof(why));
		if (ok && !dbq_landed(&q, 0, 0x3c)) {
			ok = false;
			snprintf(why, sizeof(why), "the WRITE did not land");
		}
	}
	traps1 = vt_counter(dbg, "dp", "uar_traps");
	emu1 = vt_counter(dbg, "dp", "uar_stores_emulated");
	if (ok && (traps0 < 0 || emu0 < 0)) {
		ok = false;
		snprintf(why, sizeof(why), "no uar_traps / uar_stores_emulated counters");
	} else if (ok && emulated && (emu1 <= emu0 || traps1 != traps0)) {
		ok = false;
		snprintf(why, sizeof(why), "not emulated: stores emulated %lld -> %lld, traps %lld -> %lld", emu0, emu1,
			 traps0, traps1);
	} else if (ok && !emulated && traps1 <= traps0) {
		ok = false;
		snprintf(why, sizeof(why), "uar_traps did not rise (%lld)", traps1);
	}
	vt_result(name, ok, "%s", !ok ? why : emulated ? "emulated, the WRITE landed" :
		  "mapped for the store, which landed");
	dbq_down(&q);
}

/* The child's half: exit 0 when all it must see holds, else 10+. */
static int fork_child(struct dbq *parent)
{
	struct ibv_context *ctx;
	char why[200];
	struct dbq q;
	int rc;

	if (!store_faults(parent->reg))
		return 10;	/* the parent's UAR page reached the child */
	if (!(ctx = vt_open(dev_name)))
		return 11;
	rc = dbq_up(&q, ctx) && dbq_one(&q, 0x77, why, sizeof(why)) ? 0 : 12;
	dbq_down(&q);
	ibv_close_device(ctx);
	return rc;
}

static void case_fork(struct ibv_context *ctx)
{
	static const char *const child_why[] = {
		[10] = "a store to the parent's UAR page did not fault in the child",
		[11] = "the child could not open the device",
		[12] = "the child's own context did not work",
	};
	char why[200] = "";
	struct dbq q;
	int status = 0;
	pid_t pid;
	bool ok = dbq_up(&q, ctx) && dbq_one(&q, 0x11, why, sizeof(why));

	if (!ok) {
		vt_result("fork_child", false, "setup: %s", why[0] ? why : strerror(errno));
		vt_result("fork_parent", false, "setup");
		dbq_down(&q);
		return;
	}
	pid = fork();
	if (pid == 0)
		_exit(fork_child(&q));
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		vt_result("fork_child", true, "no UAR mapping in the child (SIGSEGV); its own context works");
	else if (WIFEXITED(status) && WEXITSTATUS(status) >= 10 && WEXITSTATUS(status) <= 12)
		vt_result("fork_child", false, "%s", child_why[WEXITSTATUS(status)]);
	else
		vt_result("fork_child", false, "child status 0x%x", status);
	ok = dbq_one(&q, 0x22, why, sizeof(why));
	vt_result("fork_parent", ok, "%s", ok ? "doorbells work after the child" : why);
	dbq_down(&q);
}

static void case_mremap(struct ibv_context *ctx)
{
	long long emu0 = vt_counter(dbg, "dp", "uar_stores_emulated"), emu1;
	char why[200] = "";
	struct dbq q;
	bool ok = dbq_up(&q, ctx) && dbq_one(&q, 0x41, why, sizeof(why));
	uint8_t *page = (uint8_t *)((uintptr_t)q.dv.bf.reg & ~(uintptr_t)(PAGE - 1));
	size_t off = (uintptr_t)q.dv.bf.reg & (PAGE - 1);
	void *hole = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *moved = NULL;
	void *grown;

	if (!ok)
		snprintf(why, sizeof(why), "setup: %s", strerror(errno));
	if (ok)
		moved = mremap(page, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	if (ok && moved != hole) {
		ok = false;
		snprintf(why, sizeof(why), "mremap: %s", strerror(errno));
	}
	if (ok) {
		q.reg = (volatile uint64_t *)((uint8_t *)moved + off);
		for (int i = 0; ok && i < 3; i++)
			ok = dbq_one(&q, (uint8_t)(0x50 + i), why, sizeof(why));
		if (ok && !store_faults((volatile uint64_t *)q.dv.bf.reg)) {
			ok = false;
			snprintf(why, sizeof(why), "the old address still reaches the page");
		}
		emu1 = vt_counter(dbg, "dp", "uar_stores_emulated");
		if (ok && emu0 >= 0 && emu1 < emu0 + 3) {
			ok = false;
			snprintf(why, sizeof(why), "stores emulated %lld -> %lld", emu0, emu1);
		}
		/* back home, where libmlx5 knows it */
		if (mremap(moved, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, page) != page && ok) {
			ok = false;
			snprintf(why, sizeof(why), "mremap back: %s", strerror(errno));
		}
		q.reg = q.dv.bf.reg;
		if (ok)
			ok = dbq_one(&q, 0x60, why, sizeof(why));
	}
	vt_result("mremap_move", ok, "%s",
		  ok ? "emulated at the new address, SIGSEGV at the old, works moved back" : why);

	grown = q.qp ? mremap(page, PAGE, 2 * PAGE, 0) : NULL;
	vt_result("mremap_grow", grown == MAP_FAILED, "%s",
		  grown == MAP_FAILED ? strerror(errno) : "the mapping grew");
	errno = 0;
	ok = q.qp && mprotect(page, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC) != 0;
	vt_result("mprotect_exec", ok, "%s", ok ? strerror(errno) : "PROT_EXEC allowed");
	/* the posts libmlx5 makes itself go to the page where it left it */
	dbq_down(&q);
	if (hole != MAP_FAILED && moved != hole)
		munmap(hole, PAGE);
}

/* Reads a numeric file, then writes v to it unless v < 0; -1: unreadable. */
static long long param_swap(const char *path, long long v)
{
	long long old = -1;
	FILE *f = fopen(path, "r+");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &old) != 1)
		old = -1;
	if (old >= 0 && v >= 0 && (fseek(f, 0, SEEK_SET) || fprintf(f, "%lld\n", v) < 0))
		old = -1;
	if (fclose(f))
		old = -1;
	return old;
}

/*
 * Whether this process has a page table entry for p's page
 * (/proc/self/pagemap's present bit): a UAR page whose trap is armed has
 * none. -1: unreadable.
 */
static int page_present(const volatile void *p)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	off_t at = (off_t)((uintptr_t)p / PAGE) * (off_t)sizeof(e);
	ssize_t n = fd >= 0 ? pread(fd, &e, sizeof(e), at) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)sizeof(e) ? (int)(e >> 63) : -1;
}

/* Waits up to WAIT_MS for p's page to lose its entry (the trap re-armed). */
static bool page_rearmed(const volatile void *p)
{
	long long end = vt_now_ms() + WAIT_MS;
	int present;

	while ((present = page_present(p)) == 1 && vt_now_ms() < end)
		usleep(1000);
	return present == 0;
}

/* Waits up to WAIT_MS for a debugfs counter to pass `than`. */
static long long counter_above(const char *key, long long than)
{
	long long end = vt_now_ms() + WAIT_MS, v;

	while ((v = vt_counter(dbg, "dp", key)) <= than && vt_now_ms() < end)
		usleep(1000);
	return v;
}

static void case_streaming(struct ibv_context *ctx)
{
	long long gap0 = gap_param ? param_swap(gap_param, 1000000) : -1;
	long long str0 = vt_counter(dbg, "dp", "uar_streams");
	long long emu0 = vt_counter(dbg, "dp", "uar_stores_emulated");
	long long rearm0 = vt_counter(dbg, "dp", "uar_rearms_by_thread");
	long long str1 = -1, emu1 = -1, rearm1 = -1, emu2 = -1;
	char why[200] = "";
	struct dbq q = { 0 };
	bool ok = gap0 >= 0 && str0 >= 0 && emu0 >= 0 && rearm0 >= 0 && dbq_up(&q, ctx);

	if (!ok)
		snprintf(why, sizeof(why), "setup: gap %lld, counters %lld/%lld/%lld: %s", gap0,
			 str0, emu0, rearm0, strerror(errno));
	for (int i = 0; ok && i < 32; i++)
		ring64(q.reg, dbq_prepare(&q, (unsigned int)i, (uint8_t)(0x80 + i)));
	ok = ok && dbq_reap(&q, 32, why, sizeof(why));
	for (int i = 0; ok && i < 32; i++)
		if (!dbq_landed(&q, (unsigned int)i, (uint8_t)(0x80 + i))) {
			ok = false;
			snprintf(why, sizeof(why), "WRITE %d did not land", i);
		}
	if (ok) {
		str1 = vt_counter(dbg, "dp", "uar_streams");
		emu1 = vt_counter(dbg, "dp", "uar_stores_emulated");
		rearm1 = counter_above("uar_rearms_by_thread", rearm0);
		/* the streak may have begun in an earlier case: emulated rose, by up to 8 */
		ok = str1 > str0 && emu1 > emu0 && rearm1 > rearm0;
		if (!ok)
			snprintf(why, sizeof(why), "streams %lld -> %lld, emulated %lld -> %lld, re-armed by the thread %lld -> %lld",
				 str0, str1, emu0, emu1, rearm0, rearm1);
	}
	/*
	 * The counter counts every page's re-arms (an earlier case's page
	 * may be the one that just went): wait for this page's own.
	 */
	if (ok && !page_rearmed(q.reg)) {
		ok = false;
		snprintf(why, sizeof(why), "the page was still mapped %d ms after the stores paused (pagemap: %d)",
			 WAIT_MS, page_present(q.reg));
	}
	if (ok)
		emu1 = vt_counter(dbg, "dp", "uar_stores_emulated");
	/* re-armed: the next store traps and is emulated again */
	ok = ok && dbq_one(&q, 0x7e, why, sizeof(why));
	if (ok) {
		emu2 = vt_counter(dbg, "dp", "uar_stores_emulated");
		ok = emu2 > emu1;
		if (!ok)
			snprintf(why, sizeof(why), "the store after the pause was not emulated (%lld; traps %lld)", emu2,
				 vt_counter(dbg, "dp", "uar_traps"));
	}
	if (gap0 >= 0 && param_swap(gap_param, gap0) < 0 && ok) {
		ok = false;
		snprintf(why, sizeof(why), "restoring %s: %s", gap_param, strerror(errno));
	}
	if (ok)
		vt_result("streaming", true, "32 WRITEs landed; streams %lld -> %lld, emulated +%lld, re-armed after the pause, then emulated again",
			  str0, str1, emu1 - emu0);
	else
		vt_result("streaming", false, "%s", why);
	if (q.ctx)
		dbq_down(&q);
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	int c;

	while ((c = getopt(argc, argv, "d:g:D:P:n:i:")) != -1) {
		switch (c) {
		case 'P': gap_param = optarg; break;
		case 'd': dev_name = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'D': dbg = optarg; break;
		case 'n': n_threads = atoi(optarg); break;
		case 'i': n_wqes = atoi(optarg); break;
		default: return 2;
		}
	}
	if (!dev_name || n_threads < 1 || n_wqes < 1) {
		fprintf(stderr, "usage: %s -d DEV -g GIDX -D DEBUGFS_DIR -P GAP_PARAM [-n THREADS] [-i WQES]\n",
			argv[0]);
		return 2;
	}
	if (!(ctx = vt_open(dev_name))) {
		vt_result("setup", false, "%s: %s", dev_name, strerror(errno));
		return 1;
	}
	case_threads(ctx);
	case_vec_store(ctx, VS_SSE, "sse_store");
	if (__builtin_cpu_supports("avx"))
		case_vec_store(ctx, VS_AVX, "avx_store");
	else
		vt_result("avx_store", false, "this CPU has no AVX");
	case_vec_store(ctx, VS_MOVNTI, "movnti_store");
	case_fork(ctx);
	case_mremap(ctx);
	case_streaming(ctx);
	ibv_close_device(ctx);
	return vt_failures ? 1 : 0;
}
