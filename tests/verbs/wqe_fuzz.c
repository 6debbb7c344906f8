// SPDX-License-Identifier: GPL-2.0
/*
 * wqe_fuzz: malformed send WQEs against an mlx5 device (softcx), written
 * straight into the send queue through mlx5dv the way a raw-WQE user or a
 * broken provider could write them, past every check libmlx5 makes.
 *
 *   wqe_fuzz -d DEV -g GID_INDEX [-n ITER] [-s SEED] [-v]
 *
 * Two RC QPs on port 1 are connected to each other (RoCEv2 loopback through
 * the GID given). A (the requester) gets one random WQE per iteration:
 * opcodes valid and invalid, ds of 0 or larger than the WQE, lkeys and rkeys
 * valid, off by one, 0, 0x100 or random, addresses inside an MR, straddling
 * its ends, in the unregistered guard pages around it or wild, lengths of 0,
 * crossing the MR's end or huge, inline segments with lengths that lie. B
 * (the responder) keeps receives posted. The memory: three mmap'd regions
 * of guard page + pages + guard page, filled with a known pattern, of which
 * only the middle pages are registered:
 *   A  local write, remote write/read/atomic: the target of everything
 *   B  local read only: nothing may ever write any byte of it
 *   R  local write: B's receive buffers
 *
 * Every WQE is generated with what it must do: succeed (every field valid;
 * its effect on memory is then checked byte for byte; a third of the WQEs
 * are generated this way), fail (some field is certainly wrong), or either
 * (fields a device may read either way, such as a zero-length segment with
 * a bad key, or a ds that does not match the WQE). A signaled NOP goes
 * behind each WQE in the same doorbell; its CQE says the device is done.
 * A WQE with a ds that does not match it goes alone, and the pair is reset
 * after it. After an error the pair is reset (RESET, INIT, RTR, RTS) and a
 * valid RDMA WRITE must land. The CQEs are read through mlx5dv (for the
 * WQE index they name) and consumed through ibv_poll_cq. Every wait has a
 * timeout; a timeout is a failure (a hang).
 *
 * Cases (one "RESULT <case> PASS|FAIL details" line each, the guest
 * harness's format; exit status 1 if any failed):
 *   wqe_fuzz_setup        device, PD, MRs, CQs, QPs, mlx5dv views
 *   wqe_fuzz_bad_size     a WQE whose ds is 0, with a NOP behind it in the
 *                         same doorbell: an error CQE for the first and a
 *                         flush CQE for the NOP (at the start and every 500
 *                         iterations)
 *   wqe_fuzz_completions  every WQE completed in time, as expected: success
 *                         or error as generated; a signaled WQE has its CQE,
 *                         an unsignaled one only on error; the NOP fence
 *                         posted behind it completes, flushed after an
 *                         error (counts per status)
 *   wqe_fuzz_data         the WQEs that had to succeed did what they say to
 *                         A, R and B's receives, and nothing else to A
 *   wqe_fuzz_flush        after an error A reads back as ERR, and a QP that
 *                         went to ERR completes every posted receive
 *   wqe_fuzz_recovery     after every reset (RESET, INIT, RTR, RTS) and every
 *                         16 iterations a valid RDMA WRITE lands
 *   wqe_fuzz_guard        the guard pages of A and R and all of B still hold
 *                         the pattern, checked after every WQE
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "vt.h"

#define PORT 1
#define PG 4096u
#define A_PAGES 8
#define B_PAGES 2
#define R_PAGES 4
#define RECV_SLOTS 16u
#define RECV_SIZE (R_PAGES * PG / RECV_SLOTS)
#define MAX_UNITS 64u           /* 16-byte units in one WQE: 1 KiB */
#define MAX_SEGS 4u
#define WAIT_MS 10000u          /* generous: the guest runs under TCG */
#define CQ_DEPTH 256
#define SQ_WRS 64
#define CQ_SET_CI 0             /* CQ doorbell record word 0: consumer index */
#define MAX_DETAILS 30
#define MAX_TIMEOUTS 5          /* a device that hangs this often is broken */

/* What a region's key allows. */
enum { RT_LR = 1, RT_LW = 2, RT_RR = 4, RT_RW = 8, RT_RA = 16 };

struct region {
	const char *name;
	uint8_t *map;           /* guard page, registered pages, guard page */
	size_t map_len;
	uint8_t *mid;           /* the first registered byte */
	size_t size;            /* registered bytes */
	uint8_t salt;           /* makes each region's pattern its own */
	unsigned rights;
	bool whole;             /* no byte of the mapping may change */
	struct ibv_mr *mr;
};

struct cqv {
	struct ibv_cq *cq;
	struct mlx5dv_cq dv;
};

struct qpv {
	struct ibv_qp *qp;
	struct mlx5dv_qp dv;
	struct cqv scq, rcq;
	uint16_t head;          /* SQ producer in WQEBBs, as SND_DBR counts */
	uint64_t recv_posted;   /* receives since the last reset ... */
	uint64_t recv_done;     /* ... and their completions seen */
};

/* One CQE as the device wrote it, and the same completion through libmlx5. */
struct cqe_info {
	uint8_t opcode;         /* op_own[7:4] */
	uint8_t syndrome, vendor;
	uint16_t counter;       /* wqe_counter: which WQE it is for */
	uint32_t qpn;
	struct ibv_wc wc;
};

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	union ibv_gid gid;
	int gidx;
	bool atomics;           /* the device reports IBV_ATOMIC_HCA or GLOB */
	struct region a, b, r;
	struct qpv qa, qb;
	bool need_reset;
	bool abort;
	uint8_t *pre, *exp_a;   /* A before a WQE, and what it must be after */
	uint8_t *scratch;       /* expected bytes outside A, then gathered bytes */
	bool verbose;
};

static unsigned details;

/* Why something failed, for the first MAX_DETAILS problems only: a broken
 * device would otherwise print the same story thousands of times. */
static void detail(const char *fmt, ...)
{
	va_list ap;

	if (++details > MAX_DETAILS)
		return;
	va_start(ap, fmt);
	fputs("DETAIL ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
}

/* ---- small helpers ---------------------------------------------------- */

/* splitmix64: tiny, seedable, good enough to pick fields. */
static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)(rnd64() % n) : 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Device fields are big-endian at fixed offsets; bytes, not structs, so a
 * field can hold any value the fuzzer wants. */
static void put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static uint32_t get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint16_t get_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

static const char *st_name(int s)
{
	static char b[16];

	switch (s) {
	case IBV_WC_SUCCESS: return "success";
	case IBV_WC_LOC_LEN_ERR: return "loc_len";
	case IBV_WC_LOC_QP_OP_ERR: return "loc_qp_op";
	case IBV_WC_LOC_PROT_ERR: return "loc_prot";
	case IBV_WC_WR_FLUSH_ERR: return "flush";
	case IBV_WC_MW_BIND_ERR: return "mw_bind";
	case IBV_WC_BAD_RESP_ERR: return "bad_resp";
	case IBV_WC_LOC_ACCESS_ERR: return "loc_access";
	case IBV_WC_REM_INV_REQ_ERR: return "rem_inv_req";
	case IBV_WC_REM_ACCESS_ERR: return "rem_access";
	case IBV_WC_REM_OP_ERR: return "rem_op";
	case IBV_WC_RETRY_EXC_ERR: return "retry_exc";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "rnr_retry_exc";
	case IBV_WC_REM_ABORT_ERR: return "rem_abort";
	case IBV_WC_GENERAL_ERR: return "general";
	default:
		snprintf(b, sizeof(b), "status%d", s);
		return b;
	}
}

static void hexdump(const char *what, const uint8_t *p, unsigned units)
{
	if (details > MAX_DETAILS)
		return;
	printf("DETAIL   %s:", what);
	for (unsigned u = 0; u < units; u++) {
		printf(u % 2 ? " " : "\nDETAIL    ");
		for (unsigned i = 0; i < 16; i++)
			printf("%02x%s", p[u * 16 + i], i % 4 == 3 && i != 15 ? " " : "");
	}
	printf("\n");
	fflush(stdout);
}

/* ---- statistics ------------------------------------------------------- */

enum expect { XP_OK, XP_ANY, XP_ERR, XP_N };
static const char *const x_name[XP_N] = { "ok", "any", "err" };

#define N_ST 32
static struct {
	unsigned long wqes, structural, unsignaled;
	unsigned long exp[XP_N];
	unsigned long st[XP_N][N_ST];    /* fuzz WQE status, by expectation */
	unsigned long extra_cqes;       /* behind a structural WQE */
	unsigned long reset_cqes;       /* still in the CQs at RESET */
	unsigned long timeouts, mismatches;
	unsigned long fences, fences_flushed;
	unsigned long verified, unverified;
	unsigned long data_bad;
	unsigned long qp_errors, state_err, state_bad;
	unsigned long recv_ok, recv_err, recv_flush, recv_lost;
	unsigned long resets, reset_fail;
	unsigned long recov_ok, recov_fail, probes_ok, probes_fail;
	unsigned long guard_hits;
	unsigned long badsize_ok, badsize_fail;
	unsigned long wraps;            /* fuzzing restarted near the ring's end */
} S;

static void count_status(enum expect x, int status)
{
	S.st[x][status >= 0 && status < N_ST ? status : N_ST - 1]++;
}

/* ---- memory regions --------------------------------------------------- */

static uint8_t pat(const struct region *r, size_t off)
{
	return (uint8_t)(off * 131u + (off >> 8) * 7u + r->salt);
}

static bool region_init(struct ctx *c, struct region *r, const char *name, unsigned pages, uint8_t salt,
			unsigned rights, int access)
{
	r->name = name;
	r->map_len = (size_t)(pages + 2) * PG;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return false;
	}
	r->mid = r->map + PG;
	r->size = (size_t)pages * PG;
	r->salt = salt;
	r->rights = rights;
	for (size_t i = 0; i < r->map_len; i++)
		r->map[i] = pat(r, i);
	/* Only the middle pages: the guard pages are this process's memory,
	 * mapped and writable, but no key covers them. */
	r->mr = ibv_reg_mr(c->pd, r->mid, r->size, access);
	return r->mr != NULL;
}

/* A byte of the region that must still hold the pattern: the guard pages,
 * and for a region nothing may write, every byte. Returns the first
 * offset that does not, or -1; restores the pattern so the next hit is
 * seen as a new one. */
static long region_check(struct region *r)
{
	long first = -1;

	for (size_t i = 0; i < r->map_len; i++) {
		if (!r->whole && i >= PG && i < PG + r->size)
			continue;
		if (r->map[i] != pat(r, i)) {
			if (first < 0)
				first = (long)i;
			r->map[i] = pat(r, i);
		}
	}
	return first;
}

/* ---- CQs and the send queue ------------------------------------------- */

/* The CQE at libmlx5's consumer index (read from the CQ doorbell record,
 * where the provider keeps it), if the device has written it: its WQE
 * index and raw syndrome, which struct ibv_wc does not carry. Then
 * ibv_poll_cq consumes exactly that one, so the provider's consumer index
 * stays in step and the status is the one applications see. 1: got one,
 * 0: none yet, -1: the provider did not return it. */
static int cq_take(struct cqv *c, struct cqe_info *ci)
{
	uint32_t idx = be32toh(*(volatile __be32 *)&c->dv.dbrec[CQ_SET_CI]) & 0xffffff;
	uint8_t *e = (uint8_t *)c->dv.buf + (size_t)(idx & (c->dv.cqe_cnt - 1)) * c->dv.cqe_size;
	uint8_t own;

	if (c->dv.cqe_size == 128)
		e += 64; /* the 64-byte CQE is the second half of a 128-byte slot */
	own = __atomic_load_n(e + 63, __ATOMIC_ACQUIRE);
	if ((own >> 4) == MLX5_CQE_INVALID || (own & MLX5_CQE_OWNER_MASK) != !!(idx & c->dv.cqe_cnt))
		return 0;
	ci->opcode = own >> 4;
	ci->vendor = e[54];
	ci->syndrome = e[55];
	ci->qpn = get_be32(e + 56) & 0xffffff;
	ci->counter = get_be16(e + 60);
	memset(&ci->wc, 0, sizeof(ci->wc));
	return ibv_poll_cq(c->cq, 1, &ci->wc) == 1 ? 1 : -1;
}

/* Waits up to ms for a CQE; yields the CPU between looks (the device's
 * poller needs it more than we do under emulation). */
static int cq_wait(struct cqv *c, struct cqe_info *ci, unsigned ms)
{
	uint64_t end = now_ms() + ms;
	unsigned spins = 0;

	for (;;) {
		int r = cq_take(c, ci);

		if (r)
			return r;
		if (now_ms() > end)
			return 0;
		if (++spins > 100) {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		} else {
			sched_yield();
		}
	}
}

/* Copies a WQE into the ring at WQEBB `at`, 16 bytes at a time so that it
 * wraps around the ring's end the way the device reads it. */
static void sq_copy(struct qpv *q, uint16_t at, const uint8_t *w, unsigned units)
{
	size_t ring = (size_t)q->dv.sq.wqe_cnt * MLX5_SEND_WQE_BB;
	size_t start = (size_t)(at & (q->dv.sq.wqe_cnt - 1)) * MLX5_SEND_WQE_BB;

	for (unsigned u = 0; u < units; u++)
		memcpy((uint8_t *)q->dv.sq.buf + (start + (size_t)u * 16) % ring, w + u * 16, 16);
}

/* What libmlx5 does after writing WQEs: the doorbell record gets the new
 * producer count, then the UAR gets the first 8 bytes of the first new
 * WQE's ctrl segment. Each store must be visible before the next. The
 * doorbell names this QP whatever the WQE's own ctrl says: a real device
 * finds the QP by the doorbell. */
static void sq_ring(struct qpv *q, uint16_t first, uint8_t opcode, uint8_t ds)
{
	uint8_t db[8];
	uint64_t v;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*(volatile __be32 *)&q->dv.dbrec[MLX5_SND_DBR] = htobe32(q->head);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	put_be32(db, (uint32_t)first << 8 | opcode);
	put_be32(db + 4, q->qp->qp_num << 8 | ds);
	memcpy(&v, db, 8);
	*(volatile uint64_t *)q->dv.bf.reg = v;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void put_ctrl(uint8_t *w, uint8_t opmod, uint16_t idx, uint8_t opcode, uint32_t qpn, uint8_t ds,
		     uint8_t fm_ce_se, uint32_t imm_raw)
{
	put_be32(w, (uint32_t)opmod << 24 | (uint32_t)idx << 8 | opcode);
	put_be32(w + 4, qpn << 8 | ds);
	w[8] = 0; /* signature */
	w[9] = 0;
	w[10] = 0;
	w[11] = fm_ce_se;
	memcpy(w + 12, &imm_raw, 4);
}

static void put_raddr(uint8_t *s, uint64_t addr, uint32_t rkey)
{
	put_be64(s, addr);
	put_be32(s + 8, rkey);
	put_be32(s + 12, 0);
}

static void put_dseg(uint8_t *s, uint32_t len, uint32_t lkey, uint64_t addr)
{
	put_be32(s, len);
	put_be32(s + 4, lkey);
	put_be64(s + 8, addr);
}

/* ---- QPs -------------------------------------------------------------- */

static bool qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, const char *what)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret) {
		detail("ibv_modify_qp(QP 0x%x, %s): %s", qp->qp_num, what, strerror(ret > 0 ? ret : errno));
		return false;
	}
	return true;
}

static bool qp_reset(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	return qp_modify(qp, &a, IBV_QP_STATE, "RESET");
}

/* RESET to RTS, connected to dest. */
static bool qp_connect(struct ctx *c, struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = PORT;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (!qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "INIT"))
		return false;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = c->attr.max_qp_rd_atom < 4 ? (uint8_t)c->attr.max_qp_rd_atom : 4;
	a.min_rnr_timer = 1; /* 10 us: B always has receives, RNR is a surprise */
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = c->gid;
	a.ah_attr.grh.sgid_index = (uint8_t)c->gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = PORT;
	if (!qp_modify(qp, &a,
		       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		       "RTR"))
		return false;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;  /* 67 ms: an unanswered request fails in well under a second */
	a.retry_cnt = 3;
	a.rnr_retry = 3; /* never 7 (forever): an RNR must end */
	a.sq_psn = 0;
	a.max_rd_atomic = c->attr.max_qp_init_rd_atom < 4 ? (uint8_t)c->attr.max_qp_init_rd_atom : 4;
	return qp_modify(qp, &a,
			 IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				 IBV_QP_MAX_QP_RD_ATOMIC,
			 "RTS");
}

static bool cq_make(struct ctx *c, struct cqv *cq)
{
	struct mlx5dv_obj o;

	cq->cq = ibv_create_cq(c->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!cq->cq)
		return false;
	memset(&o, 0, sizeof(o));
	o.cq.in = cq->cq;
	o.cq.out = &cq->dv;
	return mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ) == 0 && cq->dv.cqe_cnt &&
	       !(cq->dv.cqe_cnt & (cq->dv.cqe_cnt - 1)) && (cq->dv.cqe_size == 64 || cq->dv.cqe_size == 128);
}

/* Each QP has CQs of its own, so that the CQEs of one never sit between
 * those of the other. */
static bool qp_make(struct ctx *c, struct qpv *q)
{
	struct ibv_qp_init_attr ia;
	struct mlx5dv_obj o;

	if (!cq_make(c, &q->scq) || !cq_make(c, &q->rcq))
		return false;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = q->scq.cq;
	ia.recv_cq = q->rcq.cq;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 0;
	ia.cap.max_send_wr = SQ_WRS;
	ia.cap.max_recv_wr = 2 * RECV_SLOTS;
	ia.cap.max_send_sge = MAX_SEGS;
	ia.cap.max_recv_sge = 1;
	q->qp = ibv_create_qp(c->pd, &ia);
	if (!q->qp)
		return false;
	memset(&o, 0, sizeof(o));
	o.qp.in = q->qp;
	o.qp.out = &q->dv;
	if (mlx5dv_init_obj(&o, MLX5DV_OBJ_QP))
		return false;
	/* The ring arithmetic below needs a power-of-two ring of 64-byte
	 * WQEBBs, big enough for the largest WQE plus a fence. */
	return q->dv.sq.buf && q->dv.bf.reg && q->dv.dbrec && q->dv.sq.stride == MLX5_SEND_WQE_BB &&
	       q->dv.sq.wqe_cnt >= 32 && !(q->dv.sq.wqe_cnt & (q->dv.sq.wqe_cnt - 1));
}

/* Keeps RECV_SLOTS receives posted on B, receive n in slot n % RECV_SLOTS
 * of R; wr_id is n. */
static void recv_topup(struct ctx *c)
{
	struct qpv *q = &c->qb;

	while (q->recv_posted - q->recv_done < RECV_SLOTS) {
		uint64_t n = q->recv_posted;
		struct ibv_sge sge = {
			.addr = (uintptr_t)(c->r.mid + (n % RECV_SLOTS) * RECV_SIZE),
			.length = RECV_SIZE,
			.lkey = c->r.mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = n, .sg_list = &sge, .num_sge = 1 }, *bad;
		int ret = ibv_post_recv(q->qp, &wr, &bad);

		if (ret) {
			detail("ibv_post_recv on B: %s", strerror(ret));
			c->need_reset = true;
			return;
		}
		q->recv_posted++;
	}
}

static void recv_count(const struct cqe_info *ci)
{
	if (ci->wc.status == IBV_WC_SUCCESS)
		S.recv_ok++;
	else if (ci->wc.status == IBV_WC_WR_FLUSH_ERR)
		S.recv_flush++;
	else
		S.recv_err++;
}

/* B's receive completions that are there now. */
static void recv_drain(struct ctx *c)
{
	struct cqe_info ci;

	while (cq_take(&c->qb.rcq, &ci) > 0) {
		c->qb.recv_done++;
		recv_count(&ci);
	}
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* Both QPs back to RTS with empty queues and empty CQs. libmlx5 removes a
 * QP's CQEs from its CQs at RESET, but not from CQs handed out through
 * mlx5dv (MLX5_CQ_FLAGS_DV_OWNED), so that is done here: once RESET has
 * returned the device writes no more CQEs for the QP (flushes included),
 * so what is in the CQs then is all there will be. */
static bool reset_pair(struct ctx *c)
{
	struct cqv *cqs[] = { &c->qa.scq, &c->qa.rcq, &c->qb.scq, &c->qb.rcq };
	struct cqe_info ci;

	if (!qp_reset(c->qa.qp) || !qp_reset(c->qb.qp)) {
		S.reset_fail++;
		c->abort = true;
		return false;
	}
	for (unsigned i = 0; i < 4; i++)
		while (cq_take(cqs[i], &ci) > 0)
			S.reset_cqes++;
	if (!qp_connect(c, c->qa.qp, c->qb.qp->qp_num) || !qp_connect(c, c->qb.qp, c->qa.qp->qp_num)) {
		S.reset_fail++;
		c->abort = true;
		return false;
	}
	/* RESET starts libmlx5's queues over and zeroes the doorbell record;
	 * the device's consumers start at 0 too. */
	c->qa.head = 0;
	c->qb.head = 0;
	c->qb.recv_posted = 0;
	c->qb.recv_done = 0;
	c->need_reset = false;
	S.resets++;
	recv_topup(c);
	return true;
}

/* ---- WQE generation --------------------------------------------------- */

struct seg {
	uint64_t addr;
	uint32_t len;
};

enum model { M_NONE, M_WRITE, M_READ, M_SEND, M_ATOMIC, M_NOP };

struct gen {
	uint8_t w[MAX_UNITS * 16];
	unsigned units;         /* 16-byte units written into the ring */
	uint8_t opcode, ds;
	bool signaled, structural;
	bool err, any;          /* a field that must fail / may fail */
	char why[300];
	enum model model;
	bool imm_op, fa;
	struct seg seg[MAX_SEGS + 1];
	unsigned nseg;
	uint64_t total;         /* bytes the local segments (or inline) name */
	bool inl;
	uint8_t inl_data[256];
	uint64_t raddr;
	uint32_t imm;
	uint64_t swap_add, compare;
};

static void note(struct gen *g, bool err, const char *fmt, ...)
{
	size_t n = strlen(g->why);
	va_list ap;

	if (err)
		g->err = true;
	else
		g->any = true;
	if (n + 4 >= sizeof(g->why))
		return;
	snprintf(g->why + n, sizeof(g->why) - n, "%s%s:", n ? "; " : "", err ? "ERR" : "ANY");
	n = strlen(g->why);
	va_start(ap, fmt);
	vsnprintf(g->why + n, sizeof(g->why) - n, fmt, ap);
	va_end(ap);
}

/* A third of the WQEs are generated clean: every field valid, so that the
 * successful paths get their share and their effects are checked too. */
static bool clean;

struct key {
	uint32_t key;
	struct region *r;       /* addresses are picked around this region */
	unsigned rights;
	const char *name;
};

static bool is_real_key(struct ctx *c, uint32_t k)
{
	return k == c->a.mr->lkey || k == c->a.mr->rkey || k == c->b.mr->lkey || k == c->b.mr->rkey ||
	       k == c->r.mr->lkey || k == c->r.mr->rkey;
}

static struct key pick_key(struct ctx *c, bool remote, unsigned need)
{
	uint32_t p = rnd(100);
	struct key k = { 0, &c->a, 0, "" };

#define KEY_OF(reg) (remote ? (reg)->mr->rkey : (reg)->mr->lkey)
	if (clean) /* a key with the rights needed: only A has remote ones */
		p = need == RT_LR ? (p < 60 ? 0 : p < 85 ? 55 : 63) : need == RT_LW && p >= 75 ? 63 : 0;
	if (p < 55) {
		k = (struct key){ KEY_OF(&c->a), &c->a, c->a.rights, "A" };
	} else if (p < 63) {
		k = (struct key){ KEY_OF(&c->b), &c->b, c->b.rights, "B" };
	} else if (p < 68) {
		k = (struct key){ KEY_OF(&c->r), &c->r, c->r.rights, "R" };
	} else if (p < 73) {
		k.key = KEY_OF(&c->a) + 1;
		k.name = "A+1";
	} else if (p < 78) {
		k.key = KEY_OF(&c->a) - 1;
		k.name = "A-1";
	} else if (p < 83) {
		k.key = 0;
		k.name = "0";
	} else if (p < 88) {
		k.key = 0x100;
		k.name = "0x100";
	} else {
		do
			k.key = (uint32_t)rnd64();
		while (is_real_key(c, k.key));
		k.name = "random";
	}
#undef KEY_OF
	/* An off-by-one key must not be another real one by chance. */
	if (!k.rights && is_real_key(c, k.key)) {
		k.key = 0x100;
		k.name = "0x100";
	}
	return k;
}

static uint32_t pick_len(void)
{
	uint32_t p = rnd(100);

	if (clean)
		return p < 70 ? 1 + rnd(256) : 257 + rnd(3840);
	if (p < 8)
		return 0;
	if (p < 50)
		return 1 + rnd(64);
	if (p < 80)
		return 65 + rnd(4032);
	if (p < 85)
		return 4097 + rnd(12288);
	if (p < 88)
		return A_PAGES * PG;
	if (p < 91)
		return A_PAGES * PG + 1 + rnd(4096);
	if (p < 94)
		return 0x7fffffff;
	if (p < 96)
		return 0x80000000u | (uint32_t)rnd64();
	if (p < 98)
		return 0xffffffff;
	return (uint32_t)rnd64();
}

/* An address for len bytes around region r; *good says whether
 * [addr, addr+len) lies inside its registered pages. */
static uint64_t pick_addr(struct ctx *c, struct region *r, uint64_t len, unsigned align, bool *good,
			  const char **name)
{
	uint64_t mid = (uintptr_t)r->mid, size = r->size, k, room;
	uint32_t p = clean ? 0 : rnd(100);

	*good = false;
	if (p < 70) {
		*name = "inside";
		if (len > size) {
			*name = "longer than the MR";
			return mid;
		}
		*good = true;
		return mid + (uint64_t)rnd((uint32_t)((size - len) / align + 1)) * align;
	}
	if (p < 75) {
		*name = "straddling the MR start";
		k = len >= 2 ? 1 + rnd((uint32_t)(len - 1 < 256 ? len - 1 : 256)) : 1;
		return mid - k;
	}
	if (p < 80) {
		*name = "straddling the MR end";
		if (len < 2)
			return mid + size;
		k = 1 + rnd((uint32_t)(len - 1 < 256 ? len - 1 : 256));
		return mid + size - k;
	}
	if (p < 85) {
		*name = "in a guard page";
		room = len < PG ? PG - len + 1 : 1;
		return rnd(2) ? (uintptr_t)r->map + rnd((uint32_t)room) : mid + size + rnd((uint32_t)room);
	}
	if (p < 89) {
		struct region *o = r == &c->a ? &c->b : &c->a;

		*name = "in another MR";
		return (uintptr_t)o->mid + rnd(PG);
	}
	if (p < 93) {
		*name = "near 0";
		return rnd(PG);
	}
	if (p < 97) {
		*name = "wild";
		return rnd64();
	}
	*name = "wrapping past 2^64";
	return 0xfffffffffffff000ull + rnd(PG);
}

/* A data segment: need is what the operation needs of its memory (RT_LR to
 * gather, RT_LW to scatter into); force_len >= 0 fixes the length. */
static void gen_dseg(struct ctx *c, struct gen *g, unsigned *pos, unsigned need, int64_t force_len)
{
	struct key k = pick_key(c, false, need);
	uint32_t len = force_len >= 0 ? (uint32_t)force_len : pick_len();
	const char *an;
	bool good;
	uint64_t addr = pick_addr(c, k.r, len, 1, &good, &an);

	put_dseg(g->w + *pos * 16, len, k.key, addr);
	(*pos)++;
	if (g->nseg < MAX_SEGS + 1)
		g->seg[g->nseg++] = (struct seg){ addr, len };
	g->total += len;
	if (!len)
		note(g, false, "zero-length sge (lkey %s)", k.name);
	else if (len & 0x80000000u)
		note(g, true, "sge length 0x%x", len);
	else if ((k.rights & need) != need)
		note(g, true, "lkey %s lacks %s", k.name, need == RT_LW ? "local write" : "local read");
	else if (!good)
		note(g, true, "sge of %u bytes %s of %s", len, an, k.r->name);
}

static void gen_raddr(struct ctx *c, struct gen *g, uint8_t *s, uint64_t len, unsigned need, bool atomic)
{
	struct key k = pick_key(c, true, need);
	const char *an;
	bool good;
	uint64_t addr = pick_addr(c, k.r, len, atomic ? 8 : 1, &good, &an);

	if (atomic && !clean && rnd(10) == 0) {
		addr = (addr & ~7ull) + 1 + rnd(7); /* misaligned whatever it was */
		good = false;
		an = "misaligned";
	}
	put_raddr(s, addr, k.key);
	g->raddr = addr;
	if (!len && !atomic)
		note(g, false, "zero-length remote op (rkey %s, address %s)", k.name, an);
	else if ((k.rights & need) != need)
		note(g, true, "rkey %s lacks remote %s", k.name,
		     need == RT_RW ? "write" : need == RT_RR ? "read" : "atomic");
	else if (!good)
		note(g, true, "remote %" PRIu64 " bytes %s of %s", len, an, k.r->name);
}

/* Inline data; its length field may lie. */
static void gen_inline(struct gen *g, unsigned *pos)
{
	uint32_t len = rnd(10) ? 1 + rnd(200) : 0, hdr = len;
	uint8_t *s = g->w + *pos * 16;
	unsigned units = (4 + len + 15) / 16;
	uint32_t p = rnd(100);

	for (uint32_t i = 0; i < len; i++)
		g->inl_data[i] = (uint8_t)rnd64();
	memcpy(s + 4, g->inl_data, len);
	if (clean) {
		/* as written */
	} else if (p < 10) {
		hdr = units * 16 - 4 + 1 + rnd(512);
		note(g, true, "inline length %u, room for %u", hdr, units * 16 - 4);
	} else if (p < 13) {
		hdr = 0x7fffffff;
		note(g, true, "inline length 0x7fffffff");
	} else if (p < 17 && len > 16) {
		/* The bytes past the stated length are read as segments. */
		hdr = rnd(len - 16);
		note(g, false, "inline length %u for %u bytes", hdr, len);
	}
	put_be32(s, MLX5_INLINE_SEG | hdr);
	g->inl = true;
	g->total = len;
	*pos += units;
}

static void gen_junk(struct gen *g, unsigned *pos, unsigned n)
{
	for (unsigned i = 0; i < n * 16; i++)
		g->w[*pos * 16 + i] = (uint8_t)rnd64();
	*pos += n;
}

/* Opcodes the PRM defines that this test does not model, and the gaps
 * between them: a device may implement them or refuse them. */
static const uint8_t other_ops[] = {
	MLX5_OPCODE_SEND_INVAL, MLX5_OPCODE_TSO, MLX5_OPCODE_ATOMIC_MASKED_CS, MLX5_OPCODE_ATOMIC_MASKED_FA,
	MLX5_OPCODE_FMR, MLX5_OPCODE_LOCAL_INVAL, MLX5_OPCODE_CONFIG_CMD, MLX5_OPCODE_SET_PSV,
	MLX5_OPCODE_UMR, MLX5_OPCODE_TAG_MATCHING, MLX5_OPCODE_FLOW_TBL_ACCESS, MLX5_OPCODE_MMO,
	0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0c, 0x0d, 0x0f, 0x13, 0x16, 0x17, 0x18, 0x1a,
};

static void gen_wqe(struct ctx *c, struct gen *g, uint16_t idx)
{
	uint32_t qpn = c->qa.qp->qp_num, p = rnd(100);
	unsigned pos = 1, n;
	uint8_t opmod = 0, fm;
	uint16_t widx = idx;

	memset(g, 0, sizeof(*g));
	g->imm = (uint32_t)rnd64();
	clean = rnd(3) == 0;
	if (clean)
		p = rnd(76); /* the operations modelled here */
	if (p < 23) {
		g->opcode = p < 18 ? MLX5_OPCODE_RDMA_WRITE : MLX5_OPCODE_RDMA_WRITE_IMM;
		g->imm_op = g->opcode == MLX5_OPCODE_RDMA_WRITE_IMM;
		pos = 2; /* unit 1: the remote address, filled in once the length is known */
		if (rnd(4) == 0) {
			gen_inline(g, &pos);
		} else {
			for (n = clean ? 1 + rnd(MAX_SEGS) : rnd(MAX_SEGS + 1); n; n--)
				gen_dseg(c, g, &pos, RT_LR, -1);
		}
		gen_raddr(c, g, g->w + 16, g->total, RT_RW, false);
		g->model = M_WRITE;
	} else if (p < 43) {
		g->opcode = p < 38 ? MLX5_OPCODE_SEND : MLX5_OPCODE_SEND_IMM;
		g->imm_op = g->opcode == MLX5_OPCODE_SEND_IMM;
		if (rnd(4) == 0) {
			gen_inline(g, &pos);
		} else {
			for (n = rnd(MAX_SEGS + 1); n; n--)
				gen_dseg(c, g, &pos, RT_LR, -1);
		}
		if (g->total > RECV_SIZE && !g->err)
			note(g, true, "send of %" PRIu64 " bytes into %u-byte receives", g->total, RECV_SIZE);
		g->model = M_SEND;
	} else if (p < 58) {
		g->opcode = MLX5_OPCODE_RDMA_READ;
		pos = 2;
		if (!clean && rnd(20) == 0) {
			gen_inline(g, &pos);
			note(g, true, "inline data in a read");
		} else {
			for (n = clean || rnd(10) ? 1 + rnd(MAX_SEGS) : 0; n; n--)
				gen_dseg(c, g, &pos, RT_LW, -1);
		}
		gen_raddr(c, g, g->w + 16, g->total, RT_RR, false);
		g->model = M_READ;
	} else if (p < 72) {
		g->opcode = p < 65 ? MLX5_OPCODE_ATOMIC_CS : MLX5_OPCODE_ATOMIC_FA;
		g->fa = g->opcode == MLX5_OPCODE_ATOMIC_FA;
		pos = 3; /* remote address, atomic operands, then the result buffer */
		gen_raddr(c, g, g->w + 16, 8, RT_RA, true);
		g->swap_add = rnd(4) ? rnd(1000) : rnd64();
		g->compare = rnd64();
		/* Half the compare-and-swaps compare equal, so they do swap. */
		/* (raddr may be any value: the bound must not wrap around 2^64) */
		if (!g->fa && rnd(2) && g->raddr >= (uintptr_t)c->a.mid &&
		    g->raddr <= (uintptr_t)c->a.mid + c->a.size - 8)
			memcpy(&g->compare, (void *)(uintptr_t)g->raddr, 8);
		put_be64(g->w + 32, g->swap_add);
		put_be64(g->w + 40, g->compare);
		n = clean ? 3 : rnd(20);
		if (n == 0) {
			note(g, true, "atomic without a result sge");
		} else if (n == 1) {
			gen_dseg(c, g, &pos, RT_LW, 8);
			gen_dseg(c, g, &pos, RT_LW, 8);
			note(g, true, "atomic with two result sges");
		} else if (n == 2) {
			gen_inline(g, &pos);
			note(g, true, "inline data in an atomic");
		} else {
			gen_dseg(c, g, &pos, RT_LW, clean || rnd(10) ? 8 : -1);
			if (g->total != 8 && !g->err)
				note(g, true, "atomic result sge of %" PRIu64 " bytes", g->total);
		}
		if (!c->atomics)
			note(g, false, "device reports no atomics");
		g->model = M_ATOMIC;
	} else if (p < 76) {
		g->opcode = MLX5_OPCODE_NOP;
		if (!clean && rnd(10) == 0) {
			gen_junk(g, &pos, 1 + rnd(4));
			note(g, false, "NOP with segments");
		}
		g->model = M_NOP;
	} else if (p < 81) {
		g->opcode = other_ops[rnd(sizeof(other_ops))];
		gen_junk(g, &pos, rnd(6));
		note(g, false, "opcode 0x%02x not modelled", g->opcode);
	} else {
		g->opcode = (uint8_t)(0x30 + rnd(0xd0));
		gen_junk(g, &pos, rnd(6));
		note(g, true, "invalid opcode 0x%02x", g->opcode);
	}

	g->units = pos;
	g->ds = (uint8_t)pos;
	g->signaled = rnd(100) >= 15;
	/* A size that does not match the WQE: the device may read past the
	 * WQE or stop inside it. Such a WQE goes alone, signaled. */
	if (!clean && rnd(100) < 10) {
		g->structural = true;
		g->signaled = true;
		switch (rnd(4)) {
		case 0:
			g->ds = 0;
			break;
		case 1: /* longer: what follows is junk in the ring */
			n = 1 + rnd(8);
			gen_junk(g, &pos, n);
			g->units = pos;
			g->ds = (uint8_t)pos;
			break;
		case 2:
			g->ds = (uint8_t)(pos > 1 ? 1 + rnd(pos - 1) : 2);
			break;
		default: /* more than any WQE (16 WQEBBs) */
			g->ds = (uint8_t)(65 + rnd(191));
			break;
		}
	}
	if (!clean && rnd(100) < 4) {
		uint32_t other = rnd(2) ? c->qb.qp->qp_num : rnd(1u << 24);

		if (other != qpn) {
			qpn = other;
			note(g, true, "ctrl names QP 0x%x", other);
		}
	}
	if (!clean && rnd(100) < 3) {
		opmod = (uint8_t)(1 + rnd(255));
		note(g, false, "opmod 0x%02x", opmod);
	}
	if (!clean && rnd(100) < 3) {
		widx = (uint16_t)(idx + 1 + rnd(0xfffe));
		note(g, false, "wqe_index 0x%04x at 0x%04x", widx, idx);
	}
	/* CE per signaled; SE and the fence bits at random: they change no
	 * outcome here. */
	fm = (g->signaled ? MLX5_WQE_CTRL_CQ_UPDATE : 0) | (rnd(4) ? 0 : MLX5_WQE_CTRL_SOLICITED) |
	     (rnd(8) ? 0 : MLX5_WQE_CTRL_FENCE);
	put_ctrl(g->w, opmod, widx, g->opcode, qpn, g->ds, fm, g->imm);
}

static enum expect expectation(const struct gen *g)
{
	if (g->structural)
		return g->ds == 0 ? XP_ERR : XP_ANY;
	if (g->err)
		return XP_ERR;
	return g->any ? XP_ANY : XP_OK;
}

static const char *op_name(uint8_t op)
{
	switch (op) {
	case MLX5_OPCODE_NOP: return "NOP";
	case MLX5_OPCODE_RDMA_WRITE: return "WRITE";
	case MLX5_OPCODE_RDMA_WRITE_IMM: return "WRITE_IMM";
	case MLX5_OPCODE_SEND: return "SEND";
	case MLX5_OPCODE_SEND_IMM: return "SEND_IMM";
	case MLX5_OPCODE_RDMA_READ: return "READ";
	case MLX5_OPCODE_ATOMIC_CS: return "CS";
	case MLX5_OPCODE_ATOMIC_FA: return "FA";
	default: return "op";
	}
}

static void describe(const struct gen *g, uint16_t idx, const char *what)
{
	detail("%s: WQE 0x%04x %s(0x%02x) ds=%u units=%u %s%s total=%" PRIu64 " expect=%s [%s]", what, idx,
	       op_name(g->opcode), g->opcode, g->ds, g->units, g->signaled ? "signaled" : "unsignaled",
	       g->structural ? " structural" : "", g->total, x_name[expectation(g)], g->why);
	hexdump("WQE bytes", g->w, g->units);
}

/* ---- what a WQE that must succeed does -------------------------------- */

struct chunk {
	uint8_t *dst;
	uint32_t len;
	uint8_t *want;
};

struct model_state {
	bool check;             /* false: ranges overlap, the result is not defined */
	struct chunk extra[MAX_SEGS + 1];  /* expected bytes outside A */
	unsigned nextra;
	bool recv;              /* B must complete a receive */
	uint64_t slot;          /* ... this one (its wr_id) */
	uint8_t payload[RECV_SIZE];
	uint32_t plen;
};

static bool in_a(struct ctx *c, uint64_t addr, uint64_t len)
{
	return addr >= (uintptr_t)c->a.mid && len <= c->a.size &&
	       addr - (uintptr_t)c->a.mid <= c->a.size - len;
}

/* Writes bytes into the expected image: into exp_a for A, else a chunk
 * compared on its own (R). */
static void expect_bytes(struct ctx *c, struct model_state *m, uint64_t addr, const uint8_t *src, uint32_t len,
			 size_t *scratch_used)
{
	if (!len)
		return;
	if (in_a(c, addr, len)) {
		memcpy(c->exp_a + (addr - (uintptr_t)c->a.mid), src, len);
		return;
	}
	if (m->nextra == MAX_SEGS + 1 || *scratch_used + len > 3 * A_PAGES * PG) {
		m->check = false;
		return;
	}
	m->extra[m->nextra++] = (struct chunk){ (uint8_t *)(uintptr_t)addr, len, c->scratch + *scratch_used };
	memcpy(c->scratch + *scratch_used, src, len);
	*scratch_used += len;
}

/* Works out, before the WQE is posted, what memory must hold after it
 * succeeds. Every segment of such a WQE names registered memory, so it can
 * be read here. */
static void model_prepare(struct ctx *c, struct gen *g, struct model_state *m)
{
	uint8_t *buf = c->scratch + 3 * A_PAGES * PG; /* gathered bytes: at most A's size */
	size_t used = 0;
	uint64_t off = 0;

	memset(m, 0, sizeof(*m));
	m->check = true;
	memcpy(c->pre, c->a.mid, c->a.size);
	memcpy(c->exp_a, c->pre, c->a.size);
	if (g->model == M_WRITE || g->model == M_SEND) {
		if (g->inl) {
			memcpy(buf, g->inl_data, g->total);
		} else {
			for (unsigned i = 0; i < g->nseg; i++) {
				memcpy(buf + off, (void *)(uintptr_t)g->seg[i].addr, g->seg[i].len);
				off += g->seg[i].len;
			}
		}
	}
	switch (g->model) {
	case M_WRITE:
		for (unsigned i = 0; !g->inl && i < g->nseg; i++)
			if (overlap(g->seg[i].addr, g->seg[i].len, g->raddr, g->total))
				m->check = false;
		expect_bytes(c, m, g->raddr, buf, (uint32_t)g->total, &used);
		if (g->imm_op) {
			m->recv = true;
			m->slot = c->qb.recv_done;
		}
		break;
	case M_SEND: {
		uint64_t slot = (uintptr_t)c->r.mid + (c->qb.recv_done % RECV_SLOTS) * RECV_SIZE;

		for (unsigned i = 0; !g->inl && i < g->nseg; i++)
			if (overlap(g->seg[i].addr, g->seg[i].len, slot, RECV_SIZE))
				m->check = false;
		m->recv = true;
		m->slot = c->qb.recv_done;
		m->plen = (uint32_t)g->total;
		memcpy(m->payload, buf, m->plen);
		break;
	}
	case M_READ:
		memcpy(buf, (void *)(uintptr_t)g->raddr, g->total);
		for (unsigned i = 0; i < g->nseg; i++) {
			if (overlap(g->seg[i].addr, g->seg[i].len, g->raddr, g->total))
				m->check = false;
			for (unsigned j = 0; j < i; j++)
				if (overlap(g->seg[i].addr, g->seg[i].len, g->seg[j].addr, g->seg[j].len))
					m->check = false;
			expect_bytes(c, m, g->seg[i].addr, buf + off, g->seg[i].len, &used);
			off += g->seg[i].len;
		}
		break;
	case M_ATOMIC: {
		uint64_t old, neu;

		memcpy(&old, (void *)(uintptr_t)g->raddr, 8);
		/* IBV_ATOMIC_HCA: the operands and the memory in host order. */
		neu = g->fa ? old + g->swap_add : old == g->compare ? g->swap_add : old;
		if (overlap(g->seg[0].addr, 8, g->raddr, 8))
			m->check = false;
		expect_bytes(c, m, g->raddr, (uint8_t *)&neu, 8, &used);
		expect_bytes(c, m, g->seg[0].addr, (uint8_t *)&old, 8, &used);
		break;
	}
	default:
		break;
	}
}

/* After the WQE succeeded: A byte for byte, the chunks outside A, and B's
 * receive. */
static void model_verify(struct ctx *c, struct gen *g, struct model_state *m, uint16_t idx)
{
	bool ok = true;

	if (m->recv) {
		struct cqe_info ci;
		int r = cq_wait(&c->qb.rcq, &ci, WAIT_MS);

		if (r <= 0) {
			describe(g, idx, r ? "receive completion unreadable" : "no receive completion on B");
			S.recv_lost++;
			c->need_reset = true;
			ok = false;
		} else {
			c->qb.recv_done++;
			recv_count(&ci);
			int want_op = g->model == M_WRITE ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
			uint8_t *slot = c->r.mid + (m->slot % RECV_SLOTS) * RECV_SIZE;

			if (ci.wc.status != IBV_WC_SUCCESS || ci.wc.wr_id != m->slot || (int)ci.wc.opcode != want_op ||
			    ci.wc.byte_len != g->total || (g->imm_op && ci.wc.imm_data != g->imm) ||
			    (g->imm_op != !!(ci.wc.wc_flags & IBV_WC_WITH_IMM)) ||
			    (g->model == M_SEND && m->check && memcmp(slot, m->payload, m->plen))) {
				describe(g, idx, "receive on B wrong");
				detail("  receive: status %s wr_id %" PRIu64 " (want %" PRIu64 ") opcode %d (want %d) "
				       "byte_len %u (want %" PRIu64 ") imm 0x%08x (want 0x%08x) flags 0x%x",
				       st_name(ci.wc.status), ci.wc.wr_id, m->slot, ci.wc.opcode, want_op,
				       ci.wc.byte_len, g->total, ci.wc.imm_data, g->imm, ci.wc.wc_flags);
				ok = false;
			}
		}
	}
	if (!m->check) {
		S.unverified++;
		if (!ok)
			S.data_bad++;
		return;
	}
	if (memcmp(c->a.mid, c->exp_a, c->a.size)) {
		size_t i = 0;

		while (c->a.mid[i] == c->exp_a[i])
			i++;
		describe(g, idx, "A after the WQE is not what it must be");
		detail("  first difference at A+0x%zx: 0x%02x, want 0x%02x (was 0x%02x)", i, c->a.mid[i], c->exp_a[i],
		       c->pre[i]);
		ok = false;
	}
	for (unsigned i = 0; i < m->nextra; i++) {
		if (memcmp(m->extra[i].dst, m->extra[i].want, m->extra[i].len)) {
			describe(g, idx, "bytes outside A not what they must be");
			ok = false;
		}
	}
	S.verified++;
	if (!ok)
		S.data_bad++;
}

/* ---- one WQE ------------------------------------------------------------ */

/* A requester CQE of A is for A: its QPN must say so. */
static bool cqe_sane(struct ctx *c, const struct cqe_info *ci)
{
	return ci->qpn == c->qa.qp->qp_num && ci->wc.qp_num == c->qa.qp->qp_num;
}

/* After A's error: A must read back as ERR (the device moved it there),
 * and if B went to ERR too, every receive posted on it must complete. */
static void after_error(struct ctx *c)
{
	uint64_t end = now_ms() + 2000;
	int st;

	S.qp_errors++;
	while ((st = qp_state(c->qa.qp)) != IBV_QPS_ERR && now_ms() < end)
		usleep(1000);
	if (st == IBV_QPS_ERR) {
		S.state_err++;
	} else {
		S.state_bad++;
		detail("QP A reads back as state %d after an error completion, not ERR", st);
	}
	if (qp_state(c->qb.qp) == IBV_QPS_ERR) {
		while (c->qb.recv_done < c->qb.recv_posted) {
			struct cqe_info ci;
			int r = cq_wait(&c->qb.rcq, &ci, WAIT_MS);

			if (r <= 0) {
				S.recv_lost += c->qb.recv_posted - c->qb.recv_done;
				detail("B is in ERR but %" PRIu64 " of its %" PRIu64 " receives never completed",
				       c->qb.recv_posted - c->qb.recv_done, c->qb.recv_posted);
				break;
			}
			c->qb.recv_done++;
			recv_count(&ci);
		}
	}
	c->need_reset = true;
}

static void timeout_hit(struct ctx *c)
{
	S.timeouts++;
	c->need_reset = true;
	if (S.timeouts >= MAX_TIMEOUTS) {
		detail("%lu timeouts: giving up", S.timeouts);
		c->abort = true;
	}
}

static void fuzz_one(struct ctx *c)
{
	struct gen g;
	struct model_state m = { 0 };
	struct cqe_info ci, fz = { 0 }, fe = { 0 };
	struct qpv *q = &c->qa;
	uint16_t idx = q->head, fence = 0;
	bool got_fz = false, got_fe = false, failed;
	enum expect x;
	int r;

	gen_wqe(c, &g, idx);
	x = expectation(&g);
	S.wqes++;
	S.exp[x]++;
	S.structural += g.structural;
	S.unsignaled += !g.signaled;
	if (c->verbose)
		describe(&g, idx, "post");
	if (x == XP_OK)
		model_prepare(c, &g, &m);
	sq_copy(q, idx, g.w, g.units);
	q->head += (g.units + 3) / 4;
	if (!g.structural) {
		/* A signaled NOP behind it, in the same doorbell: its CQE says
		 * the device is done with the fuzzed WQE, whatever that did. */
		uint8_t nop[16];

		fence = q->head;
		put_ctrl(nop, 0, fence, MLX5_OPCODE_NOP, q->qp->qp_num, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		sq_copy(q, fence, nop, 1);
		q->head++;
	}
	sq_ring(q, idx, g.opcode, g.ds);

	if (g.structural) {
		/* Where such a WQE ends is the device's guess: the first CQE
		 * must come, and name this WQE; then the pair is reset. */
		r = cq_wait(&q->scq, &ci, WAIT_MS);
		if (r <= 0) {
			describe(&g, idx, r ? "completion unreadable" : "no completion within the timeout");
			if (!r)
				timeout_hit(c);
			S.mismatches += r < 0;
			c->need_reset = true;
			return;
		}
		count_status(x, ci.wc.status);
		failed = ci.wc.status != IBV_WC_SUCCESS;
		if (ci.counter != idx || !cqe_sane(c, &ci) || (x == XP_ERR && !failed) ||
		    ci.wc.status == IBV_WC_WR_FLUSH_ERR) {
			S.mismatches++;
			describe(&g, idx, "unexpected first completion");
			detail("  CQE: counter 0x%04x qpn 0x%x status %s syndrome 0x%02x vendor 0x%02x", ci.counter,
			       ci.qpn, st_name(ci.wc.status), ci.syndrome, ci.vendor);
		}
		while (cq_take(&q->scq, &ci) > 0)
			S.extra_cqes++;
		c->need_reset = true;
		return;
	}

	while (!got_fe) {
		r = cq_wait(&q->scq, &ci, WAIT_MS);
		if (r <= 0) {
			describe(&g, idx, r ? "completion unreadable" : "no completion within the timeout");
			detail("  waiting for %s (fence NOP 0x%04x)", got_fz ? "the fence" : "the WQE or the fence",
			       fence);
			if (!r)
				timeout_hit(c);
			S.mismatches += r < 0;
			c->need_reset = true;
			return;
		}
		if (!cqe_sane(c, &ci) || (ci.counter != idx && ci.counter != fence) || (ci.counter == idx && got_fz)) {
			S.mismatches++;
			describe(&g, idx, "completion for no WQE posted");
			detail("  CQE: counter 0x%04x qpn 0x%x status %s", ci.counter, ci.qpn, st_name(ci.wc.status));
			continue;
		}
		if (ci.counter == idx) {
			got_fz = true;
			fz = ci;
		} else {
			got_fe = true;
			fe = ci;
		}
	}
	S.fences++;
	failed = got_fz && fz.wc.status != IBV_WC_SUCCESS;
	count_status(x, got_fz ? (int)fz.wc.status : IBV_WC_SUCCESS);
	if (g.signaled && !got_fz) {
		S.mismatches++;
		describe(&g, idx, "signaled WQE without a completion");
	} else if (!g.signaled && got_fz && !failed) {
		S.mismatches++;
		describe(&g, idx, "unsignaled WQE completed successfully");
	}
	if (failed && fz.wc.status == IBV_WC_WR_FLUSH_ERR) {
		S.mismatches++;
		describe(&g, idx, "flushed while the QP was in RTS");
	}
	if (fe.wc.status != (failed ? IBV_WC_WR_FLUSH_ERR : IBV_WC_SUCCESS)) {
		S.mismatches++;
		describe(&g, idx, failed ? "the NOP behind an error was not flushed" : "the NOP behind it failed");
		detail("  NOP: status %s syndrome 0x%02x", st_name(fe.wc.status), fe.syndrome);
	}
	S.fences_flushed += fe.wc.status == IBV_WC_WR_FLUSH_ERR;
	if ((x == XP_OK && failed) || (x == XP_ERR && !failed)) {
		S.mismatches++;
		describe(&g, idx, failed ? "expected success" : "expected an error");
		if (failed)
			detail("  got %s syndrome 0x%02x vendor 0x%02x", st_name(fz.wc.status), fz.syndrome,
			       fz.vendor);
	}
	if (failed)
		after_error(c);
	else if (x == XP_OK)
		model_verify(c, &g, &m, idx);
}

/* A valid RDMA WRITE of fresh bytes from one half of A to the other; it
 * must complete successfully and land. */
static bool valid_write(struct ctx *c)
{
	struct qpv *q = &c->qa;
	uint32_t len = 1 + rnd(PG), half = (uint32_t)c->a.size / 2;
	uint32_t src = rnd(half - len + 1), dst = half + rnd(half - len + 1);
	uint16_t idx = q->head;
	uint8_t w[48];
	struct cqe_info ci;
	int r;

	for (uint32_t i = 0; i < len; i++)
		c->a.mid[src + i] = (uint8_t)rnd64();
	put_ctrl(w, 0, idx, MLX5_OPCODE_RDMA_WRITE, q->qp->qp_num, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	put_raddr(w + 16, (uintptr_t)c->a.mid + dst, c->a.mr->rkey);
	put_dseg(w + 32, len, c->a.mr->lkey, (uintptr_t)c->a.mid + src);
	sq_copy(q, idx, w, 3);
	q->head++;
	sq_ring(q, idx, MLX5_OPCODE_RDMA_WRITE, 3);
	r = cq_wait(&q->scq, &ci, WAIT_MS);
	if (r <= 0) {
		detail("valid WRITE 0x%04x of %u bytes: %s", idx, len, r ? "completion unreadable" : "no completion");
		if (!r)
			timeout_hit(c);
		c->need_reset = true;
		return false;
	}
	if (ci.counter != idx || ci.wc.status != IBV_WC_SUCCESS || !cqe_sane(c, &ci) ||
	    memcmp(c->a.mid + dst, c->a.mid + src, len)) {
		detail("valid WRITE 0x%04x of %u bytes A+0x%x -> A+0x%x: CQE 0x%04x %s syndrome 0x%02x%s", idx, len, src,
		       dst, ci.counter, st_name(ci.wc.status), ci.syndrome,
		       memcmp(c->a.mid + dst, c->a.mid + src, len) ? ", data did not land" : "");
		c->need_reset = true;
		if (ci.wc.status != IBV_WC_SUCCESS)
			after_error(c);
		return false;
	}
	return true;
}

/* Moves the SQ head to a few WQEBBs before the ring's end with NOPs (the
 * last one signaled), so that the next WQEs wrap around it: after a reset
 * both sides start over at 0 and would rarely get there otherwise. */
static void near_ring_end(struct ctx *c)
{
	struct qpv *q = &c->qa;
	uint32_t cnt = q->dv.sq.wqe_cnt, target = cnt - 1 - rnd(12);
	uint16_t first = q->head, last = 0;
	uint8_t nop[16];
	struct cqe_info ci;
	int r;

	if ((q->head & (cnt - 1)) >= target)
		return;
	while ((q->head & (cnt - 1)) < target) {
		last = q->head;
		put_ctrl(nop, 0, last, MLX5_OPCODE_NOP, q->qp->qp_num, 1,
			 (q->head & (cnt - 1)) + 1 == target ? MLX5_WQE_CTRL_CQ_UPDATE : 0, 0);
		sq_copy(q, last, nop, 1);
		q->head++;
	}
	sq_ring(q, first, MLX5_OPCODE_NOP, 1);
	r = cq_wait(&q->scq, &ci, WAIT_MS);
	if (r > 0 && ci.counter == last && ci.wc.status == IBV_WC_SUCCESS && cqe_sane(c, &ci)) {
		S.wraps++;
		return;
	}
	S.mismatches++;
	detail("%u NOPs 0x%04x..0x%04x: %s counter 0x%04x status %s", (uint16_t)(last - first + 1), first, last,
	       r > 0 ? "CQE" : "no CQE", r > 0 ? ci.counter : 0, r > 0 ? st_name(ci.wc.status) : "-");
	if (!r)
		timeout_hit(c);
	c->need_reset = true;
}

/* A WQE of size 0 (ds 0) with a NOP behind it in the same doorbell: the
 * device must fail the first and still complete the NOP (flushed), not
 * lose it. (Only 0: the PRM's ds field is 6 bits, MLX5_WQE_CTRL_DS_MASK,
 * so a larger value is a different size to different devices.) */
static void bad_size(struct ctx *c)
{
	const uint8_t ds = 0;
	struct qpv *q = &c->qa;
	uint16_t idx = q->head, nop;
	uint8_t w[48];
	struct cqe_info ci;
	bool got_bad = false, got_nop = false, ok = true;

	if (c->need_reset && !reset_pair(c))
		return;
	put_ctrl(w, 0, idx, MLX5_OPCODE_RDMA_WRITE, q->qp->qp_num, ds, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	put_raddr(w + 16, (uintptr_t)c->a.mid, c->a.mr->rkey);
	put_dseg(w + 32, 64, c->a.mr->lkey, (uintptr_t)c->a.mid + PG);
	sq_copy(q, idx, w, 3);
	q->head++;
	nop = q->head;
	put_ctrl(w, 0, nop, MLX5_OPCODE_NOP, q->qp->qp_num, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sq_copy(q, nop, w, 1);
	q->head++;
	sq_ring(q, idx, MLX5_OPCODE_RDMA_WRITE, ds);
	while (!got_nop) {
		int r = cq_wait(&q->scq, &ci, WAIT_MS);

		if (r <= 0) {
			detail("bad_size ds=%u: WRITE 0x%04x %s, NOP 0x%04x no completion within %u ms", ds, idx,
			       got_bad ? "failed" : "no completion", nop, WAIT_MS);
			ok = false;
			break;
		}
		if (ci.counter == idx && !got_bad && ci.wc.status != IBV_WC_SUCCESS &&
		    ci.wc.status != IBV_WC_WR_FLUSH_ERR) {
			got_bad = true;
		} else if (ci.counter == nop && got_bad && ci.wc.status == IBV_WC_WR_FLUSH_ERR) {
			got_nop = true;
		} else {
			detail("bad_size ds=%u: unexpected CQE counter 0x%04x status %s syndrome 0x%02x (WRITE 0x%04x, "
			       "NOP 0x%04x)",
			       ds, ci.counter, st_name(ci.wc.status), ci.syndrome, idx, nop);
			ok = false;
			break;
		}
	}
	if (ok)
		S.badsize_ok++;
	else
		S.badsize_fail++;
	c->need_reset = true;
	reset_pair(c);
}

/* ---- setup and the run -------------------------------------------------- */

static bool setup(struct ctx *c, const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			c->ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!c->ctx) {
		vt_result("wqe_fuzz_setup", false, "cannot open %s", name);
		return false;
	}
	if (!mlx5dv_is_supported(c->ctx->device)) {
		vt_result("wqe_fuzz_setup", false, "%s is not driven by libmlx5", name);
		return false;
	}
	if (ibv_query_device(c->ctx, &c->attr) || ibv_query_port(c->ctx, PORT, &pa) ||
	    ibv_query_gid(c->ctx, PORT, c->gidx, &c->gid)) {
		vt_result("wqe_fuzz_setup", false, "query device/port/gid %d: %s", c->gidx, strerror(errno));
		return false;
	}
	c->atomics = c->attr.atomic_cap != IBV_ATOMIC_NONE;
	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd) {
		vt_result("wqe_fuzz_setup", false, "ibv_alloc_pd: %s", strerror(errno));
		return false;
	}
	c->b.whole = true;
	if (!region_init(c, &c->a, "A", A_PAGES, 0x11, RT_LR | RT_LW | RT_RR | RT_RW | RT_RA,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				 IBV_ACCESS_REMOTE_ATOMIC) ||
	    !region_init(c, &c->b, "B", B_PAGES, 0x5c, RT_LR, 0) ||
	    !region_init(c, &c->r, "R", R_PAGES, 0xa7, RT_LR | RT_LW, IBV_ACCESS_LOCAL_WRITE)) {
		vt_result("wqe_fuzz_setup", false, "MRs: %s", strerror(errno));
		return false;
	}
	c->pre = malloc(c->a.size);
	c->exp_a = malloc(c->a.size);
	c->scratch = malloc(4 * A_PAGES * PG);
	if (!c->pre || !c->exp_a || !c->scratch) {
		vt_result("wqe_fuzz_setup", false, "out of memory");
		return false;
	}
	if (!qp_make(c, &c->qa) || !qp_make(c, &c->qb)) {
		vt_result("wqe_fuzz_setup", false, "CQs/QPs or their mlx5dv views: %s", strerror(errno));
		return false;
	}
	if (!reset_pair(c)) {
		vt_result("wqe_fuzz_setup", false, "connecting the QPs failed");
		return false;
	}
	S.resets = 0;
	S.reset_cqes = 0;
	vt_result("wqe_fuzz_setup", true,
	       "%s port %d %s gid %d, QPs 0x%x -> 0x%x, SQ %u WQEBBs, CQEs %u bytes, atomics %s, MRs A 0x%x B 0x%x R 0x%x",
	       name, PORT, pa.state == IBV_PORT_ACTIVE ? "active" : "NOT ACTIVE", c->gidx, c->qa.qp->qp_num,
	       c->qb.qp->qp_num, c->qa.dv.sq.wqe_cnt, c->qa.scq.dv.cqe_size, c->atomics ? "yes" : "no",
	       c->a.mr->lkey, c->b.mr->lkey, c->r.mr->lkey);
	return true;
}

static void check_guards(struct ctx *c, unsigned long it)
{
	struct region *regs[] = { &c->a, &c->b, &c->r };

	for (unsigned i = 0; i < 3; i++) {
		long off = region_check(regs[i]);

		if (off >= 0) {
			S.guard_hits++;
			detail("iteration %lu: %s+0x%lx (mapping offset; registered 0x%x..0x%zx) changed", it, regs[i]->name,
			       off, PG, PG + regs[i]->size);
		}
	}
}

static void summary_status(char *b, size_t n, enum expect x)
{
	size_t used = 0;

	b[0] = 0;
	for (int s = 0; s < N_ST; s++)
		if (S.st[x][s] && used < n)
			used += (size_t)snprintf(b + used, n - used, "%s%s=%lu", used ? "," : "", st_name(s),
						 S.st[x][s]);
}

static void usage(void)
{
	fprintf(stderr, "usage: wqe_fuzz -d DEV -g GID_INDEX [-n ITER] [-s SEED] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct ctx c;
	const char *dev = NULL;
	unsigned long iters = 2000, it;
	struct timespec t0, t1;
	double secs;
	uint64_t seed = 1;
	char b[3][400];
	int opt;

	c.gidx = -1;
	while ((opt = getopt(argc, argv, "d:g:n:s:v")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': c.gidx = atoi(optarg); break;
		case 'n': iters = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'v': c.verbose = true; break;
		default: usage();
		}
	}
	if (!dev || c.gidx < 0)
		usage();
	rng_state = seed;
	/* libmlx5 prints every error CQE it polls to its debug stream; there
	 * will be thousands. */
	setenv("MLX5_DEBUG_FILE", "/dev/null", 0);
	printf("wqe_fuzz: device %s gid %d iterations %lu seed %" PRIu64 "\n", dev, c.gidx, iters, seed);
	fflush(stdout);
	if (!setup(&c, dev))
		return 1;

	bad_size(&c);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (it = 0; it < iters && !c.abort; it++) {
		if (c.need_reset) {
			if (!reset_pair(&c))
				break;
			if (valid_write(&c))
				S.recov_ok++;
			else
				S.recov_fail++;
			if (!c.need_reset && rnd(4) == 0)
				near_ring_end(&c);
		} else if (it % 16 == 15) {
			if (valid_write(&c))
				S.probes_ok++;
			else
				S.probes_fail++;
		}
		if (c.need_reset)
			continue;
		if (it % 500 == 250) {
			bad_size(&c);
			continue;
		}
		fuzz_one(&c);
		recv_drain(&c);
		if (!c.need_reset)
			recv_topup(&c);
		check_guards(&c, it);
		if (it % 500 == 499) {
			printf("progress: %lu iterations, %lu resets, %lu mismatches, %lu timeouts\n", it + 1, S.resets,
			       S.mismatches, S.timeouts);
			fflush(stdout);
		}
	}
	/* The last state is checked too. */
	if (!c.abort && reset_pair(&c)) {
		if (valid_write(&c))
			S.recov_ok++;
		else
			S.recov_fail++;
	}
	check_guards(&c, it);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	vt_result("wqe_fuzz_bad_size", !S.badsize_fail, "%lu of %lu: error CQE, then the NOP behind it flushed",
	       S.badsize_ok, S.badsize_ok + S.badsize_fail);
	summary_status(b[0], sizeof(b[0]), XP_OK);
	summary_status(b[1], sizeof(b[1]), XP_ERR);
	summary_status(b[2], sizeof(b[2]), XP_ANY);
	vt_result("wqe_fuzz_completions", !S.timeouts && !S.mismatches && it == iters,
	       "iterations %lu/%lu seed %" PRIu64 " wqes %lu (%lu unsignaled, %lu bad ds) timeouts %lu mismatches %lu; "
	       "must-succeed %lu {%s} must-fail %lu {%s} either %lu {%s}; NOP fences %lu (%lu flushed), %lu more CQEs "
	       "behind bad-ds WQEs, %lu restarts near the ring's end; %.0f WQEs/s [COUNT fuzzed_wqes=%lu]",
	       it, iters, seed, S.wqes, S.unsignaled, S.structural, S.timeouts, S.mismatches, S.exp[XP_OK], b[0],
	       S.exp[XP_ERR], b[1], S.exp[XP_ANY], b[2], S.fences, S.fences_flushed, S.extra_cqes, S.wraps,
	       secs > 0 ? (double)S.wqes / secs : 0.0, S.wqes);
	vt_result("wqe_fuzz_data", !S.data_bad && S.verified, "%lu successful WQEs checked byte for byte, %lu bad, %lu not "
	       "checkable (overlapping ranges)", S.verified, S.data_bad, S.unverified);
	vt_result("wqe_fuzz_flush", !S.state_bad && !S.recv_lost,
	       "%lu errors: A read back as ERR %lu times (not %lu); B receives %lu ok, %lu error, %lu flushed, %lu lost",
	       S.qp_errors, S.state_err, S.state_bad, S.recv_ok, S.recv_err, S.recv_flush, S.recv_lost);
	vt_result("wqe_fuzz_recovery", !S.recov_fail && !S.probes_fail && !S.reset_fail && S.recov_ok,
	       "%lu resets (%lu CQEs left over at RESET), valid WRITE after reset %lu ok %lu failed, every 16 "
	       "iterations %lu ok %lu failed",
	       S.resets, S.reset_cqes, S.recov_ok, S.recov_fail, S.probes_ok, S.probes_fail);
	vt_result("wqe_fuzz_guard", !S.guard_hits,
	       "A and R guard pages and all of B: %lu changes (checked after every WQE)", S.guard_hits);

	ibv_destroy_qp(c.qa.qp);
	ibv_destroy_qp(c.qb.qp);
	return vt_failures ? 1 : 0;
}
