// SPDX-License-Identifier: GPL-2.0
/*
 * big_wqe: one SEND of 2^LOG bytes (1 GiB by default) between two RC QPs of
 * one port, its gather list as many SGEs as the QP takes over one MR, the
 * receive's likewise: the largest single piece of work a user can hand the
 * device. bounded.sh runs it beside NOPs and ib_send_lat, and reads what
 * the driver measured of its own lock holds meanwhile. The MR is a source
 * slice and a sink slice: every send SGE is the source, every receive SGE
 * the sink, so the sink ends holding the source's bytes.
 *
 *   big_wqe DEVICE GID_INDEX [LOG_LEN]
 *
 * RESULT big_wqe PASS|FAIL: completed on both sides, the receive with the
 * whole length, and the sink equal to the source.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vt.h"

#define MAX_SGE 64

struct big {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp[2];
	uint8_t *buf;
	size_t slice;		/* the source is buf[0, slice), the sink after it */
	int send_sge, recv_sge, nsge;
};

/* The receiver's QP and the sender's, each with as many SGEs as it takes. */
static bool big_qps(struct big *b)
{
	static const int tries[] = { 64, 62, 32, 16 };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .send_cq = b->cq, .recv_cq = b->cq,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1 } };

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && !b->qp[1]; i++) {
		qa.cap.max_recv_sge = tries[i];
		b->qp[1] = ibv_create_qp(b->pd, &qa);
		b->recv_sge = tries[i];
	}
	qa.cap.max_recv_sge = 1;
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && !b->qp[0]; i++) {
		qa.cap.max_send_sge = tries[i];
		b->qp[0] = ibv_create_qp(b->pd, &qa);
		b->send_sge = tries[i];
	}
	return b->qp[0] && b->qp[1];
}

static bool big_up(struct big *b, const char *dev, int gidx, uint64_t len)
{
	int access = IBV_ACCESS_LOCAL_WRITE;
	union ibv_gid gid;

	b->ctx = vt_open(dev);
	if (!b->ctx || ibv_query_gid(b->ctx, 1, gidx, &gid))
		return false;
	b->pd = ibv_alloc_pd(b->ctx);
	b->cq = b->pd ? ibv_create_cq(b->ctx, 8, NULL, NULL, 0) : NULL;
	if (!b->cq || !big_qps(b))
		return false;
	/* Both lists are nsge slices: the whole message. */
	b->nsge = b->recv_sge < b->send_sge ? b->recv_sge : b->send_sge;
	b->slice = len / b->nsge;
	if (posix_memalign((void **)&b->buf, 4096, 2 * b->slice))
		return false;
	for (size_t i = 0; i < b->slice; i++)
		b->buf[i] = (uint8_t)(i * 7 + (i >> 12) + 1);
	memset(b->buf + b->slice, 0, b->slice);
	b->mr = ibv_reg_mr(b->pd, b->buf, 2 * b->slice, access);
	return b->mr && vt_connect_rc(b->qp[0], b->qp[1]->qp_num, &gid, gidx, access) &&
	       vt_connect_rc(b->qp[1], b->qp[0]->qp_num, &gid, gidx, access);
}

/* nsge SGEs, each the slice at off. */
static void big_list(struct big *b, struct ibv_sge *s, size_t off)
{
	for (int i = 0; i < b->nsge; i++) {
		s[i].addr = (uintptr_t)b->buf + off;
		s[i].length = (uint32_t)b->slice;
		s[i].lkey = b->mr->lkey;
	}
}

/* Both completions, within limit_s; their statuses and byte count. */
static bool big_wait(struct big *b, uint64_t len, int limit_s, char *why, size_t wlen)
{
	long long deadline = vt_now_ms() + limit_s * 1000ll;
	int got = 0;

	while (got < 2) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(b->cq, 1, &wc);

		if (n < 0) {
			snprintf(why, wlen, "ibv_poll_cq: %d", n);
			return false;
		}
		if (!n) {
			if (vt_now_ms() > deadline) {
				snprintf(why, wlen, "%d of 2 completions in %d s", got, limit_s);
				return false;
			}
			usleep(1000);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			snprintf(why, wlen, "%s (vendor_err 0x%x)", ibv_wc_status_str(wc.status),
				 wc.vendor_err);
			return false;
		}
		if (wc.opcode == IBV_WC_RECV && wc.byte_len != (uint32_t)len) {
			snprintf(why, wlen, "received %u bytes", wc.byte_len);
			return false;
		}
		got++;
	}
	return true;
}

int main(int argc, char **argv)
{
	struct ibv_sge ss[MAX_SGE], rs[MAX_SGE];
	struct ibv_recv_wr rwr = { .sg_list = rs }, *rbad;
	struct ibv_send_wr swr = { .sg_list = ss, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED },
			   *sbad;
	struct big b = { 0 };
	char why[128] = "";
	uint64_t len;
	long long t0;
	bool ok;

	if (argc < 3) {
		fprintf(stderr, "usage: big_wqe DEVICE GID_INDEX [LOG_LEN]\n");
		return 2;
	}
	len = 1ull << (argc > 3 ? atoi(argv[3]) : 30);
	if (!big_up(&b, argv[1], atoi(argv[2]), len)) {
		vt_result("big_wqe", false, "setup failed: %s", strerror(errno));
		return 1;
	}
	big_list(&b, ss, 0);
	big_list(&b, rs, b.slice);
	swr.num_sge = rwr.num_sge = b.nsge;
	t0 = vt_now_ms();
	ok = !ibv_post_recv(b.qp[1], &rwr, &rbad) && !ibv_post_send(b.qp[0], &swr, &sbad);
	if (!ok)
		snprintf(why, sizeof(why), "post failed");
	else
		ok = big_wait(&b, len, 900, why, sizeof(why));
	if (ok && memcmp(b.buf, b.buf + b.slice, b.slice) != 0) {
		ok = false;
		snprintf(why, sizeof(why), "the sink differs from the source");
	}
	vt_result("big_wqe", ok, "%llu bytes, %d SGEs of %zu over one MR, %lld ms%s%s",
		  (unsigned long long)len, b.nsge, b.slice, vt_now_ms() - t0, ok ? "" : ": ", why);
	return vt_failures ? 1 : 0;
}
