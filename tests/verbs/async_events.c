// SPDX-License-Identifier: GPL-2.0
/*
 * async_events: the affiliated asynchronous events and memory-window bind
 * rights, as an application sees them through plain libibverbs.
 *
 *   async_events -d DEV -g GIDX
 *
 * Every case uses two RC QPs of this device connected to each other, A the
 * requester and B the responder, each with its own CQ, so an event or CQE
 * names the side it belongs to:
 *   srq_limit        IBV_EVENT_SRQ_LIMIT_REACHED when a receive leaves fewer
 *                    WQEs than the limit; once, until armed again; never early
 *   qp_access_mr     a WRITE to a region without remote write: REM_ACCESS_ERR
 *                    at A, IBV_EVENT_QP_ACCESS_ERR on B (B in ERR), none on A
 *   qp_access_qp     the same when B's QP, not the region, lacks remote write
 *   qp_req_err       a misaligned atomic: REM_INV_REQ_ERR at A,
 *                    IBV_EVENT_QP_REQ_ERR on B
 *   mw_bind_rights   a type 1 window bound with remote read only: READ through
 *                    it works, WRITE through it is REM_ACCESS_ERR
 *   mw_bind_no_lw    binding remote write on a region without local write:
 *                    IBV_WC_MW_BIND_ERR (IBA C10-74)
 *   mw_bind_range    a window beyond its region: IBV_WC_MW_BIND_ERR
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vt.h"

#define PAGE 4096
#define WAIT_MS 5000
#define QUIET_MS 300

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gidx;
static uint8_t *buf;		/* 4 pages: A's source, B's targets */

struct pair {
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];	/* [0] A, [1] B */
};

/* ---- events: read with a timeout, each one acked at once --------------- */

struct seen {
	enum ibv_event_type type;
	void *elem;		/* the qp, srq or cq the event names */
};

static const char *elem_name(const struct pair *p, void *elem)
{
	if (p && elem == p->qp[0])
		return "A";
	if (p && elem == p->qp[1])
		return "B";
	return "other";
}

/* The next event within ms; false when none came. */
static bool next_event(int ms, struct seen *s)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	if (poll(&pfd, 1, ms) <= 0 || ibv_get_async_event(ctx, &ev))
		return false;
	s->type = ev.event_type;
	s->elem = ev.element.qp;	/* a union: qp, srq and cq alike */
	ibv_ack_async_event(&ev);
	return true;
}

/*
 * Events within ms until one of `type` on `elem`; anything else that comes
 * first is described in `other`. With type < 0: true when nothing comes.
 */
static bool await_event(const struct pair *p, int type, void *elem, int ms, char *other,
			size_t len)
{
	struct seen s;

	other[0] = '\0';
	while (next_event(ms, &s)) {
		if ((int)s.type == type && s.elem == elem)
			return true;
		snprintf(other + strlen(other), len - strlen(other), " %s on %s",
			 ibv_event_type_str(s.type), elem_name(p, s.elem));
	}
	return type < 0 && !other[0];
}

/* ---- pairs and completions --------------------------------------------- */

static void pair_down(struct pair *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->qp[i])
			ibv_destroy_qp(p->qp[i]);
		if (p->cq[i])
			ibv_destroy_cq(p->cq[i]);
	}
	memset(p, 0, sizeof(*p));
}

/* A→B and B→A, with the remote access each QP grants; srq: B's receives. */
static bool pair_up(struct pair *p, int access_a, int access_b, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .sq_sig_all = 1,
				       .cap = { .max_send_wr = 16, .max_recv_wr = 16,
						.max_send_sge = 1, .max_recv_sge = 1 } };

	memset(p, 0, sizeof(*p));
	for (int i = 0; i < 2; i++) {
		if (!(p->cq[i] = ibv_create_cq(ctx, 32, NULL, NULL, 0)))
			return false;
		qa.send_cq = qa.recv_cq = p->cq[i];
		qa.srq = i ? srq : NULL;
		if (!(p->qp[i] = ibv_create_qp(pd, &qa)))
			return false;
	}
	return vt_connect_rc(p->qp[0], p->qp[1]->qp_num, &gid, gidx, access_a) &&
	       vt_connect_rc(p->qp[1], p->qp[0]->qp_num, &gid, gidx, access_b);
}

/* One completion of cq within WAIT_MS. */
static bool one_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	long long end = vt_now_ms() + WAIT_MS;

	do {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n == 1;
	} while (vt_now_ms() < end);
	return false;
}

/* One WR on A (RDMA or atomic), its completion in wc. */
static bool post_a(struct pair *p, enum ibv_wr_opcode op, uint32_t rkey, uint64_t raddr,
		   struct ibv_mr *local, size_t off, uint32_t len, struct ibv_wc *wc)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf + off, .length = len, .lkey = local->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op }, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return !ibv_post_send(p->qp[0], &wr, &bad) && one_wc(p->cq[0], wc);
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	return ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) ? -1 : (int)a.qp_state;
}

/* ---- the cases --------------------------------------------------------- */

/* B's receives through an SRQ of 8 WQEs, limit 4, then 2. */
static void case_srq_limit(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr lim = { .srq_limit = 4 }, q;
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4 * PAGE, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	char other[200], why[300] = "";
	struct pair p = { 0 };
	struct ibv_wc wc;
	bool ok = mr && srq && pair_up(&p, 0, 0, srq);

	for (int i = 0; ok && i < 8; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf + PAGE + 64 * i, .length = 64,
				       .lkey = mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

		ok = !ibv_post_srq_recv(srq, &wr, &bad);
	}
	ok = ok && !ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT);
	if (!ok)
		snprintf(why, sizeof(why), "setup: %s", strerror(errno));
	/* send k messages; each must arrive at B */
	for (int sent = 0, want = 4; ok && sent < 7; ) {
		while (ok && sent < want) {
			ok = post_a(&p, IBV_WR_SEND, 0, 0, mr, 64 * sent, 64, &wc) &&
			     wc.status == IBV_WC_SUCCESS && one_wc(p.cq[1], &wc) &&
			     wc.status == IBV_WC_SUCCESS && wc.wr_id == (uint64_t)sent;
			sent++;
		}
		if (!ok) {
			snprintf(why, sizeof(why), "send %d failed", sent);
			break;
		}
		if (sent == 4 || sent == 6) {
			/* 4 left (not fewer than 4), or 2 left after firing: nothing */
			ok = await_event(&p, -1, NULL, QUIET_MS, other, sizeof(other));
			if (!ok)
				snprintf(why, sizeof(why), "%d WQEs left:%s", 8 - sent, other);
			want = sent + 1;
		} else if (sent == 5 || sent == 7) {
			ok = await_event(&p, IBV_EVENT_SRQ_LIMIT_REACHED, srq, WAIT_MS, other,
					 sizeof(other));
			if (!ok)
				snprintf(why, sizeof(why), "%d WQEs left, no SRQ_LIMIT_REACHED%s",
					 8 - sent, other);
			/* fired: disarmed, the limit reads 0 until armed again */
			if (ok && sent == 5 && (ibv_query_srq(srq, &q) || q.srq_limit)) {
				ok = false;
				snprintf(why, sizeof(why), "limit after the event: %u", q.srq_limit);
			}
			if (ok && sent == 5) {
				lim.srq_limit = 2;
				ok = !ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT);
			}
			want = sent + 1;
		}
	}
	vt_result("srq_limit", ok, "%s", ok ? "fired at 3 of limit 4 and 1 of limit 2, once each" : why);
	pair_down(&p);
	if (srq)
		ibv_destroy_srq(srq);
	if (mr)
		ibv_dereg_mr(mr);
}

/*
 * A WRITE B may not take: the region lacks remote write (qp_rights false)
 * or B's QP does.
 */
static void case_qp_access(bool qp_rights)
{
	int mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			(qp_rights ? IBV_ACCESS_REMOTE_WRITE : 0);
	int qp_access = IBV_ACCESS_REMOTE_READ | (qp_rights ? 0 : IBV_ACCESS_REMOTE_WRITE);
	struct ibv_mr *src = ibv_reg_mr(pd, buf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *dst = ibv_reg_mr(pd, buf + PAGE, PAGE, mr_access);
	const char *name = qp_rights ? "qp_access_qp" : "qp_access_mr";
	char other[200] = "", why[300] = "";
	struct pair p;
	struct ibv_wc wc = { 0 };
	bool ok;

	memset(buf + PAGE, 0x5a, PAGE);
	memset(buf, 0xa5, 64);
	ok = src && dst && pair_up(&p, 0, qp_access, NULL);
	if (!ok)
		snprintf(why, sizeof(why), "setup: %s", strerror(errno));
	if (ok && !(post_a(&p, IBV_WR_RDMA_WRITE, dst->rkey, (uintptr_t)dst->addr, src, 0, 64, &wc) &&
		    wc.status == IBV_WC_REM_ACCESS_ERR)) {
		ok = false;
		snprintf(why, sizeof(why), "A's completion: %s", ibv_wc_status_str(wc.status));
	}
	if (ok && !await_event(&p, IBV_EVENT_QP_ACCESS_ERR, p.qp[1], WAIT_MS, other, sizeof(other))) {
		ok = false;
		snprintf(why, sizeof(why), "no QP_ACCESS_ERR on B;%s", other);
	}
	if (ok && !await_event(&p, -1, NULL, QUIET_MS, other, sizeof(other))) {
		ok = false;
		snprintf(why, sizeof(why), "more events:%s", other);
	}
	if (ok && qp_state(p.qp[1]) != (int)IBV_QPS_ERR) {
		ok = false;
		snprintf(why, sizeof(why), "B in state %d, not ERR", qp_state(p.qp[1]));
	}
	for (int i = 0; ok && i < PAGE; i++)
		if (buf[PAGE + i] != 0x5a) {
			ok = false;
			snprintf(why, sizeof(why), "the refused WRITE changed byte %d", i);
		}
	vt_result(name, ok, "%s", ok ? "REM_ACCESS_ERR at A, QP_ACCESS_ERR on B, B in ERR" : why);
	pair_down(&p);
	if (dst)
		ibv_dereg_mr(dst);
	if (src)
		ibv_dereg_mr(src);
}

/* A fetch-and-add at an address not 8-byte aligned. */
static void case_qp_req_err(void)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 2 * PAGE, access);
	char other[200] = "", why[300] = "";
	struct pair p;
	struct ibv_wc wc = { 0 };
	bool ok;

	memset(buf + PAGE, 0, 64);
	ok = mr && pair_up(&p, 0, IBV_ACCESS_REMOTE_ATOMIC, NULL);
	if (!ok)
		snprintf(why, sizeof(why), "setup: %s", strerror(errno));
	if (ok && !(post_a(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, mr->rkey, (uintptr_t)buf + PAGE + 4, mr, 0,
			   8, &wc) && wc.status == IBV_WC_REM_INV_REQ_ERR)) {
		ok = false;
		snprintf(why, sizeof(why), "A's completion: %s", ibv_wc_status_str(wc.status));
	}
	if (ok && !await_event(&p, IBV_EVENT_QP_REQ_ERR, p.qp[1], WAIT_MS, other, sizeof(other))) {
		ok = false;
		snprintf(why, sizeof(why), "no QP_REQ_ERR on B;%s", other);
	}
	if (ok && !await_event(&p, -1, NULL, QUIET_MS, other, sizeof(other))) {
		ok = false;
		snprintf(why, sizeof(why), "more events:%s", other);
	}
	for (int i = 0; ok && i < 64; i++)
		if (buf[PAGE + i]) {
			ok = false;
			snprintf(why, sizeof(why), "the refused atomic changed byte %d", i);
		}
	vt_result("qp_req_err", ok, "%s", ok ? "REM_INV_REQ_ERR at A, QP_REQ_ERR on B" : why);
	pair_down(&p);
	if (mr)
		ibv_dereg_mr(mr);
}

/* Bind `mw` through A's send queue; the bind's completion in wc. */
static bool bind_a(struct pair *p, struct ibv_mw *mw, struct ibv_mr *mr, void *addr, size_t len,
		   int rights, struct ibv_wc *wc)
{
	struct ibv_mw_bind b = { .wr_id = 77, .send_flags = IBV_SEND_SIGNALED,
				 .bind_info = { .mr = mr, .addr = (uintptr_t)addr, .length = len,
						.mw_access_flags = (unsigned int)rights } };

	return !ibv_bind_mw(p->qp[0], mw, &b) && one_wc(p->cq[0], wc);
}

/*
 * A binds a window on a region that grants no remote rights, with remote
 * read only; B (the remote side) reads through it, then tries to write.
 */
static void case_mw_bind_rights(void)
{
	struct ibv_mr *region = ibv_reg_mr(pd, buf + PAGE, PAGE,
					   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	struct ibv_mr *local = ibv_reg_mr(pd, buf + 2 * PAGE, PAGE, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	char why[300] = "";
	struct pair p;
	struct ibv_wc wc = { 0 };
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	/* A's QP grants both: the refusal of the WRITE is the window's */
	bool ok = region && local && mw &&
		  pair_up(&p, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE, 0, NULL);

	if (!ok)
		snprintf(why, sizeof(why), "setup: %s", strerror(errno));
	for (int i = 0; i < 256; i++)
		buf[PAGE + 512 + i] = (uint8_t)(i * 7 + 1);
	memset(buf + 2 * PAGE, 0, PAGE);
	if (ok && !(bind_a(&p, mw, region, buf + PAGE + 512, 256, IBV_ACCESS_REMOTE_READ, &wc) &&
		    wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW)) {
		ok = false;
		snprintf(why, sizeof(why), "bind: %s", ibv_wc_status_str(wc.status));
	}
	/* B reads the window's 256 bytes */
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf + 2 * PAGE, .length = 256, .lkey = local->lkey };
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = (uintptr_t)buf + PAGE + 512;
	wr.wr.rdma.rkey = mw ? mw->rkey : 0;
	if (ok && !(!ibv_post_send(p.qp[1], &wr, &bad) && one_wc(p.cq[1], &wc) &&
		    wc.status == IBV_WC_SUCCESS && !memcmp(buf + 2 * PAGE, buf + PAGE + 512, 256))) {
		ok = false;
		snprintf(why, sizeof(why), "READ through the window: %s", ibv_wc_status_str(wc.status));
	}
	/* ... and may not write through it */
	wr.opcode = IBV_WR_RDMA_WRITE;
	if (ok && !(!ibv_post_send(p.qp[1], &wr, &bad) && one_wc(p.cq[1], &wc) &&
		    wc.status == IBV_WC_REM_ACCESS_ERR)) {
		ok = false;
		snprintf(why, sizeof(why), "WRITE through a read-only window: %s",
			 ibv_wc_status_str(wc.status));
	}
	for (int i = 0; ok && i < 256; i++)
		if (buf[PAGE + 512 + i] != (uint8_t)(i * 7 + 1)) {
			ok = false;
			snprintf(why, sizeof(why), "the refused WRITE changed byte %d", i);
		}
	vt_result("mw_bind_rights", ok, "%s",
		  ok ? "READ through a remote-read window, WRITE REM_ACCESS_ERR" : why);
	pair_down(&p);
	if (mw)
		ibv_dealloc_mw(mw);
	if (local)
		ibv_dereg_mr(local);
	if (region)
		ibv_dereg_mr(region);
}

/*
 * Binds the device must refuse: remote write on a region without local
 * write (no_lw), or a window past the region's end.
 */
static void case_mw_bind_refused(bool no_lw)
{
	int access = IBV_ACCESS_MW_BIND | (no_lw ? 0 : IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *region = ibv_reg_mr(pd, buf + PAGE, PAGE, access);
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	size_t len = no_lw ? 256 : PAGE + 64;
	char why[300] = "";
	struct pair p;
	struct ibv_wc wc = { 0 };
	bool ok = region && mw && pair_up(&p, 0, 0, NULL);

	if (!ok)
		snprintf(why, sizeof(why), "setup: %s", strerror(errno));
	if (ok && !(bind_a(&p, mw, region, buf + PAGE, len,
			   IBV_ACCESS_REMOTE_READ | (no_lw ? IBV_ACCESS_REMOTE_WRITE : 0), &wc) &&
		    wc.status == IBV_WC_MW_BIND_ERR)) {
		ok = false;
		snprintf(why, sizeof(why), "bind completed %s", ibv_wc_status_str(wc.status));
	}
	vt_result(no_lw ? "mw_bind_no_lw" : "mw_bind_range", ok, "%s",
		  ok ? "IBV_WC_MW_BIND_ERR" : why);
	pair_down(&p);
	if (mw)
		ibv_dealloc_mw(mw);
	if (region)
		ibv_dereg_mr(region);
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	int c;

	while ((c = getopt(argc, argv, "d:g:")) != -1) {
		if (c == 'd')
			dev = optarg;
		else if (c == 'g')
			gidx = atoi(optarg);
		else
			return 2;
	}
	if (!dev) {
		fprintf(stderr, "usage: %s -d DEV -g GIDX\n", argv[0]);
		return 2;
	}
	if (!(ctx = vt_open(dev)) || ibv_query_gid(ctx, 1, gidx, &gid) || !(pd = ibv_alloc_pd(ctx)) ||
	    posix_memalign((void **)&buf, PAGE, 4 * PAGE) ||
	    fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK)) {
		vt_result("setup", false, "%s: %s", dev, strerror(errno));
		return 1;
	}
	memset(buf, 0, 4 * PAGE);
	case_srq_limit();
	case_qp_access(false);
	case_qp_access(true);
	case_qp_req_err();
	case_mw_bind_rights();
	case_mw_bind_refused(true);
	case_mw_bind_refused(false);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	return vt_failures ? 1 : 0;
}
