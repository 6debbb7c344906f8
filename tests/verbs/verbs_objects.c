// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_objects: userspace object lifetime test for an RDMA device, through
 * the stock libibverbs and its provider (libmlx5 for softcx, librxe for rxe).
 *
 *   verbs_objects -d DEV [-g GID_INDEX] [-n ITER] [--debugfs DIR] [--hold]
 *                 [--mlx5]
 *
 * Cases (one "RESULT <case> PASS|FAIL details" line each, the guest
 * harness's format; exit status 1 if any failed):
 *   mlx5dv              mlx5dv_query_device + mlx5dv_init_obj(PD) when the
 *                       provider is mlx5 (--mlx5: required, FAIL otherwise)
 *   objects_cycle       ITER x {PD, MR, CQ, QP RC/UC/UD, SRQ, AH}, create and
 *                       destroy in reverse; failures counted per type
 *   qp_state_walk       RC RESET>INIT>RTR>RTS>ERR>RESET, loopback to itself,
 *                       each state read back with ibv_query_qp
 *   invalid_transitions bad transitions, bad masks, out-of-range attributes;
 *                       each must fail with the errno the kernel RDMA core /
 *                       mlx5_ib / libibverbs use (see the table at the case)
 *   debugfs_baseline    (--debugfs) DIR/objects counts rise with the objects
 *                       and return to baseline after the cycle
 *   debugfs_final       (--debugfs) ... and after all the other cases
 * --hold creates one of each object, prints "HOLDING pid=<pid> ..." and sleeps
 * until killed (the caller checks the objects go away with SIGKILL).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "vt.h"

#define PORT 1
#define MR_PAGES 4
#define SMALL_CQE 16
#define SMALL_WR 16

struct env {
	struct ibv_device *dev;
	struct ibv_context *ctx;
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gidx;
	void *buf;		/* the MRs' memory, shared by all iterations */
	size_t buf_len;
	const char *debugfs;
};

/* ibv_modify_qp & co. return the errno; some paths only set errno. */
static int ret_errno(int ret)
{
	return ret > 0 ? ret : (errno ? errno : EIO);
}

static const char *errname(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOSYS: return "ENOSYS";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENODEV: return "ENODEV";
	case EIO: return "EIO";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case EAGAIN: return "EAGAIN";
	case ENOSPC: return "ENOSPC";
	case E2BIG: return "E2BIG";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	default: {
		static char b[16];
		snprintf(b, sizeof(b), "errno%d", e);
		return b;
	}
	}
}

/* ---- objects --------------------------------------------------------- */

enum obj_type { O_PD, O_MR, O_CQ, O_QP_RC, O_QP_UC, O_QP_UD, O_SRQ, O_AH, O_NTYPES };
static const char *const obj_name[O_NTYPES] = {
	"pd", "mr", "cq", "qp_rc", "qp_uc", "qp_ud", "srq", "ah",
};

struct objs {
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp[3]; /* RC, UC, UD */
	struct ibv_srq *srq;
	struct ibv_ah *ah;
};

struct obj_stats {
	unsigned int tried, create_fail, destroy_fail, skipped;
	int first_errno;
};

static void note_fail(struct obj_stats *s, int e, bool destroy)
{
	if (destroy)
		s->destroy_fail++;
	else
		s->create_fail++;
	if (!s->first_errno)
		s->first_errno = e ? e : EIO;
}

static bool have_srq(const struct env *e)
{
	return e->attr.orig_attr.max_srq > 0;
}

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = SMALL_WR, .max_recv_wr = SMALL_WR,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};

	return ibv_create_qp(pd, &ia);
}

static struct ibv_ah *create_ah(struct env *e, struct ibv_pd *pd)
{
	/* RoCE needs a GRH; with it, the same attributes also suit IB. */
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .dgid = e->gid, .sgid_index = (uint8_t)e->gidx, .hop_limit = 64 },
		.dlid = e->port.lid,
		.port_num = PORT,
	};

	return ibv_create_ah(pd, &aa);
}

/*
 * Create one of each object; every failure is counted, and what depends on
 * a failed object is skipped (counted as skipped, not as a failure).
 */
static void objs_create(struct env *e, struct objs *o, struct obj_stats *st)
{
	static const enum ibv_qp_type qpt[3] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };

	memset(o, 0, sizeof(*o));
	st[O_PD].tried++;
	o->pd = ibv_alloc_pd(e->ctx);
	if (!o->pd) {
		note_fail(&st[O_PD], errno, false);
		for (int t = O_MR; t < O_NTYPES; t++)
			if (t != O_CQ) /* the only one without a PD */
				st[t].skipped++;
	}
	if (o->pd) {
		st[O_MR].tried++;
		o->mr = ibv_reg_mr(o->pd, e->buf, e->buf_len,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
		if (!o->mr)
			note_fail(&st[O_MR], errno, false);
	}
	st[O_CQ].tried++;
	o->cq = ibv_create_cq(e->ctx, SMALL_CQE, NULL, NULL, 0);
	if (!o->cq)
		note_fail(&st[O_CQ], errno, false);
	for (int i = 0; i < 3; i++) {
		if (!o->pd)
			continue;
		if (!o->cq) {
			st[O_QP_RC + i].skipped++;
			continue;
		}
		st[O_QP_RC + i].tried++;
		o->qp[i] = create_qp(o->pd, o->cq, qpt[i]);
		if (!o->qp[i])
			note_fail(&st[O_QP_RC + i], errno, false);
	}
	if (o->pd && have_srq(e)) {
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = SMALL_WR, .max_sge = 1 } };

		st[O_SRQ].tried++;
		o->srq = ibv_create_srq(o->pd, &sa);
		if (!o->srq)
			note_fail(&st[O_SRQ], errno, false);
	} else if (o->pd) {
		st[O_SRQ].skipped++;
	}
	if (o->pd) {
		st[O_AH].tried++;
		o->ah = create_ah(e, o->pd);
		if (!o->ah)
			note_fail(&st[O_AH], errno, false);
	}
}

/* Destroy in reverse order of creation. */
static void objs_destroy(struct objs *o, struct obj_stats *st)
{
	int rc;

	if (o->ah && (rc = ibv_destroy_ah(o->ah)))
		note_fail(&st[O_AH], ret_errno(rc), true);
	if (o->srq && (rc = ibv_destroy_srq(o->srq)))
		note_fail(&st[O_SRQ], ret_errno(rc), true);
	for (int i = 2; i >= 0; i--)
		if (o->qp[i] && (rc = ibv_destroy_qp(o->qp[i])))
			note_fail(&st[O_QP_RC + i], ret_errno(rc), true);
	if (o->cq && (rc = ibv_destroy_cq(o->cq)))
		note_fail(&st[O_CQ], ret_errno(rc), true);
	if (o->mr && (rc = ibv_dereg_mr(o->mr)))
		note_fail(&st[O_MR], ret_errno(rc), true);
	if (o->pd && (rc = ibv_dealloc_pd(o->pd)))
		note_fail(&st[O_PD], ret_errno(rc), true);
	memset(o, 0, sizeof(*o));
}

/* ---- debugfs objects file -------------------------------------------- */

#define MAX_COUNTS 16
struct counts {
	bool ok;
	int n;
	char name[MAX_COUNTS][16];
	long val[MAX_COUNTS];
};

/* DIR/objects: one "type N" line per object type. */
static struct counts read_counts(const char *dir)
{
	struct counts c = { 0 };
	char path[512], name[16];
	long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/objects", dir);
	f = fopen(path, "r");
	if (!f)
		return c;
	while (c.n < MAX_COUNTS && fscanf(f, "%15s %ld", name, &v) == 2) {
		memcpy(c.name[c.n], name, sizeof(name));
		c.val[c.n++] = v;
	}
	fclose(f);
	c.ok = c.n > 0;
	return c;
}

static long count_of(const struct counts *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return c->val[i];
	return -1;
}

static void counts_str(const struct counts *c, char *out, size_t len)
{
	size_t off = 0;

	out[0] = 0;
	for (int i = 0; i < c->n && off < len; i++)
		off += snprintf(out + off, len - off, "%s%s=%ld", i ? "," : "", c->name[i], c->val[i]);
}

/* "" when equal, else the differing types (before->after). */
static bool counts_equal(const struct counts *a, const struct counts *b, char *diff, size_t len)
{
	size_t off = 0;
	bool eq = a->n == b->n;

	diff[0] = 0;
	for (int i = 0; i < a->n; i++) {
		long v = count_of(b, a->name[i]);

		if (v != a->val[i]) {
			eq = false;
			if (off < len)
				off += snprintf(diff + off, len - off, " %s:%ld->%ld", a->name[i],
						a->val[i], v);
		}
	}
	return eq;
}

/* The counts with one set of objects alive must be baseline + that set. */
static bool counts_track(const struct counts *base, const struct counts *now,
			 const struct objs *o, char *diff, size_t len)
{
	const struct { const char *name; long n; } want[] = {
		{ "pd", !!o->pd },
		{ "mr", !!o->mr },
		{ "cq", !!o->cq },
		{ "qp", !!o->qp[0] + !!o->qp[1] + !!o->qp[2] },
		{ "srq", !!o->srq },
		{ "ah", !!o->ah },
		{ "uctx", 0 },
	};
	size_t off = 0;
	bool ok = true;

	diff[0] = 0;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		long b = count_of(base, want[i].name), v = count_of(now, want[i].name);

		if (b < 0 || v != b + want[i].n) {
			ok = false;
			if (off < len)
				off += snprintf(diff + off, len - off, " %s:%ld+%ld!=%ld",
						want[i].name, b, want[i].n, v);
		}
	}
	return ok;
}

/* ---- cases ----------------------------------------------------------- */

static void case_mlx5dv(struct env *e, bool require)
{
	struct mlx5dv_context dv = { 0 };
	struct mlx5dv_pd dvpd = { 0 };
	struct mlx5dv_obj obj = { 0 };
	struct ibv_pd *pd;
	int rc;

	if (!mlx5dv_is_supported(e->dev)) {
		if (require)
			vt_result("mlx5dv", false, "%s is not driven by the mlx5 provider",
			       ibv_get_device_name(e->dev));
		else
			printf("INFO mlx5dv: %s is not an mlx5 provider device\n",
			       ibv_get_device_name(e->dev));
		return;
	}
	rc = mlx5dv_query_device(e->ctx, &dv);
	if (rc) {
		vt_result("mlx5dv", false, "mlx5dv_query_device: %s", errname(ret_errno(rc)));
		return;
	}
	/* init_obj on a PD reads the provider's own object: only libmlx5 can. */
	pd = ibv_alloc_pd(e->ctx);
	if (!pd) {
		vt_result("mlx5dv", false, "version=%u flags=0x%llx; alloc_pd: %s", dv.version,
		       (unsigned long long)dv.flags, errname(errno));
		return;
	}
	obj.pd.in = pd;
	obj.pd.out = &dvpd;
	rc = mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD);
	vt_result("mlx5dv", rc == 0, "version=%u flags=0x%llx init_obj(pd)=%s pdn=0x%x", dv.version,
	       (unsigned long long)dv.flags, errname(rc ? ret_errno(rc) : 0), dvpd.pdn);
	ibv_dealloc_pd(pd);
}

static void case_objects_cycle(struct env *e, int iters)
{
	struct obj_stats st[O_NTYPES] = { 0 };
	struct counts base = { 0 }, after;
	char details[512], diff[256] = "", cnt[256];
	bool track_ok = false, tracked = false, pass = true;
	size_t off = 0;
	struct objs o;

	if (e->debugfs)
		base = read_counts(e->debugfs);
	for (int i = 0; i < iters; i++) {
		objs_create(e, &o, st);
		/* First round: the debugfs counts must show exactly these objects. */
		if (i == 0 && e->debugfs && base.ok) {
			struct counts now = read_counts(e->debugfs);

			tracked = true;
			track_ok = now.ok && counts_track(&base, &now, &o, diff, sizeof(diff));
		}
		objs_destroy(&o, st);
	}

	details[0] = 0;
	off = snprintf(details, sizeof(details), "iter=%d", iters);
	for (int t = 0; t < O_NTYPES; t++) {
		struct obj_stats *s = &st[t];

		if (s->create_fail || s->destroy_fail) {
			pass = false;
			off += snprintf(details + off, sizeof(details) - off, " %s:%u/%u_create_%u_destroy_failed(%s)",
					obj_name[t], s->create_fail, s->tried, s->destroy_fail,
					errname(s->first_errno));
		} else if (s->skipped) {
			off += snprintf(details + off, sizeof(details) - off, " %s:skipped", obj_name[t]);
		}
		if (off >= sizeof(details))
			break;
	}
	/* SRQ skipped because the device has none is fine; dependents are not. */
	for (int t = 0; t < O_NTYPES; t++)
		if (st[t].skipped && !(t == O_SRQ && !have_srq(e)))
			pass = false;
	if (pass)
		snprintf(details + off, sizeof(details) - off, " all ok%s",
			 have_srq(e) ? "" : " (no SRQ: max_srq=0)");
	vt_result("objects_cycle", pass, "%s", details);

	if (!e->debugfs)
		return;
	if (!base.ok) {
		vt_result("debugfs_baseline", false, "no objects file in %s", e->debugfs);
		return;
	}
	after = read_counts(e->debugfs);
	counts_str(&base, cnt, sizeof(cnt));
	if (!after.ok) {
		vt_result("debugfs_baseline", false, "objects file gone after the cycle");
		return;
	}
	{
		char d2[256];
		bool back = counts_equal(&base, &after, d2, sizeof(d2));

		vt_result("debugfs_baseline", back && tracked && track_ok,
		       "baseline %s;%s%s%s%s", cnt,
		       track_ok ? " live counts ok" : " live counts wrong:", track_ok ? "" : diff,
		       back ? "; back to baseline" : "; not back:", back ? "" : d2);
	}
}

static int qp_state(struct ibv_qp *qp, int *err)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int rc = ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);

	*err = rc ? ret_errno(rc) : 0;
	return rc ? -1 : (int)a.qp_state;
}

static const char *state_name(int s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return s >= 0 && s <= IBV_QPS_ERR ? n[s] : "?";
}

static int to_init(struct ibv_qp *qp, int extra_mask)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_ACCESS_FLAGS | extra_mask);
}

/* RTR looping back to the QP itself: its own QPN, its own GID. */
static int to_rtr(struct env *e, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = e->port.active_mtu,
		.dest_qp_num = qp->qp_num,
		.rq_psn = 0,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.grh = { .dgid = e->gid, .sgid_index = (uint8_t)e->gidx, .hop_limit = 64 },
			.dlid = e->port.lid,
			.port_num = PORT,
		},
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

static int to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = 0,
		.max_rd_atomic = 1,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

static void case_qp_state_walk(struct env *e)
{
	struct ibv_pd *pd = ibv_alloc_pd(e->ctx);
	struct ibv_cq *cq = pd ? ibv_create_cq(e->ctx, SMALL_CQE, NULL, NULL, 0) : NULL;
	struct ibv_qp *qp = cq ? create_qp(pd, cq, IBV_QPT_RC) : NULL;
	char walk[256] = "";
	size_t off = 0;
	int err, s, rc = 0;

	if (!qp) {
		vt_result("qp_state_walk", false, "setup: %s failed: %s",
		       !pd ? "alloc_pd" : !cq ? "create_cq" : "create_qp(RC)", errname(errno));
		goto out;
	}
	s = qp_state(qp, &err);
	off += snprintf(walk + off, sizeof(walk) - off, "qpn=0x%x mtu=%d %s", qp->qp_num,
			128 << e->port.active_mtu, state_name(s));
	if (s != IBV_QPS_RESET) {
		vt_result("qp_state_walk", false, "%s: new QP not in RESET (query %s)", walk, errname(err));
		goto out;
	}
	for (int step = 0; step < 5; step++) {
		static const enum ibv_qp_state next[5] = {
			IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_ERR, IBV_QPS_RESET,
		};

		switch (step) {
		case 0: rc = to_init(qp, 0); break;
		case 1: rc = to_rtr(e, qp); break;
		case 2: rc = to_rts(qp); break;
		default: rc = to_state(qp, next[step]); break;
		}
		if (rc) {
			vt_result("qp_state_walk", false, "%s: modify to %s: %s", walk,
			       state_name(next[step]), errname(ret_errno(rc)));
			goto out;
		}
		s = qp_state(qp, &err);
		off += snprintf(walk + off, sizeof(walk) - off, ">%s", state_name(s));
		if (s != (int)next[step]) {
			vt_result("qp_state_walk", false, "%s: query says %s after modify to %s (%s)",
			       walk, state_name(s), state_name(next[step]), errname(err));
			goto out;
		}
		/* At RTR the loopback path must read back as set. */
		if (next[step] == IBV_QPS_RTR) {
			struct ibv_qp_attr a;
			struct ibv_qp_init_attr ia;

			rc = ibv_query_qp(qp, &a, IBV_QP_DEST_QPN | IBV_QP_PATH_MTU, &ia);
			if (rc || a.dest_qp_num != qp->qp_num || a.path_mtu != e->port.active_mtu) {
				vt_result("qp_state_walk", false,
				       "%s: RTR attrs read back wrong (rc %d dest_qpn 0x%x mtu %d)",
				       walk, rc, rc ? 0 : a.dest_qp_num, rc ? 0 : (int)a.path_mtu);
				goto out;
			}
		}
	}
	vt_result("qp_state_walk", true, "%s", walk);
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
}

/* One errno check: "name=GOT" in the details, FAIL when GOT != want. */
struct echeck {
	char buf[768];
	size_t off;
	bool pass;
};

static void echeck(struct echeck *c, const char *what, int got, int want)
{
	bool ok = got == want;

	if (c->off < sizeof(c->buf))
		c->off += snprintf(c->buf + c->off, sizeof(c->buf) - c->off, " %s=%s%s%s", what,
				   errname(got), ok ? "" : "(want ", ok ? "" : errname(want));
	if (!ok && c->off < sizeof(c->buf))
		c->off += snprintf(c->buf + c->off, sizeof(c->buf) - c->off, ")");
	if (!ok)
		c->pass = false;
}

/* An errno only reported, "name=GOT(info)": no expectation holds everywhere. */
static void einfo(struct echeck *c, const char *what, int got)
{
	if (c->off < sizeof(c->buf))
		c->off += snprintf(c->buf + c->off, sizeof(c->buf) - c->off, " %s=%s(info)", what,
				   errname(got));
}

/*
 * Expected errnos, from the code that decides them (the man pages only say
 * "the value of errno"):
 *  RESET->RTR, INIT->RTS, a mask bit not allowed for the transition, a
 *   required bit missing: ib_modify_qp_is_ok() false -> EINVAL (mlx5_ib_modify_qp
 *   and rxe_qp_chk_attr alike).
 *  A mask bit beyond the ones libibverbs knows: ibv_cmd_modify_qp() refuses
 *   it in userspace with EOPNOTSUPP (the kernel's uverbs would too).
 *  cqe > max_cqe: mlx5_ib_create_cq / rxe_cq_chk_attr -> EINVAL.
 *  max_send_wr > max_qp_wr, max_send_sge and max_recv_sge > max_sge:
 *   libmlx5's mlx5_calc_sq_size/mlx5_calc_send_wqe/mlx5_calc_rcv_wqe (before
 *   the kernel) or rxe_qp_chk_cap -> EINVAL.
 *  reg_mr on unmapped memory: ib_umem_get() pinning fails -> EFAULT.
 */
static void case_invalid_transitions(struct env *e)
{
	struct ibv_pd *pd = ibv_alloc_pd(e->ctx);
	struct ibv_cq *cq = pd ? ibv_create_cq(e->ctx, SMALL_CQE, NULL, NULL, 0) : NULL;
	struct ibv_qp *qp = cq ? create_qp(pd, cq, IBV_QPT_RC) : NULL;
	struct echeck c = { .pass = true };
	int err, s, rc;

	if (!pd) {
		vt_result("invalid_transitions", false, "setup: alloc_pd: %s", errname(errno));
		return;
	}
	if (!qp) {
		c.pass = false;
		c.off += snprintf(c.buf + c.off, sizeof(c.buf) - c.off, " setup:%s=%s",
				  !cq ? "create_cq" : "create_qp", errname(errno));
	} else {
		rc = to_rtr(e, qp);
		echeck(&c, "reset_to_rtr", rc ? ret_errno(rc) : 0, EINVAL);
		/* SQ_PSN belongs to RTR->RTS, not to RESET->INIT. */
		rc = to_init(qp, IBV_QP_SQ_PSN);
		echeck(&c, "init_mask_extra_bit", rc ? ret_errno(rc) : 0, EINVAL);
		{
			struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = PORT };

			/* RESET->INIT requires PKEY_INDEX, PORT and ACCESS_FLAGS. */
			rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT);
			echeck(&c, "init_mask_missing_bits", rc ? ret_errno(rc) : 0, EINVAL);
		}
		rc = to_init(qp, 1 << 30);
		echeck(&c, "init_mask_unknown_bit", rc ? ret_errno(rc) : 0, EOPNOTSUPP);
		/* A failed modify must leave the QP where it was. */
		s = qp_state(qp, &err);
		if (s != IBV_QPS_RESET) {
			c.pass = false;
			c.off += snprintf(c.buf + c.off, sizeof(c.buf) - c.off,
					  " state_after_failures=%s(%s)", state_name(s), errname(err));
		}
		rc = to_init(qp, 0);
		echeck(&c, "reset_to_init", rc ? ret_errno(rc) : 0, 0);
		rc = to_rts(qp);
		echeck(&c, "init_to_rts", rc ? ret_errno(rc) : 0, EINVAL);
		s = qp_state(qp, &err);
		if (s != IBV_QPS_INIT) {
			c.pass = false;
			c.off += snprintf(c.buf + c.off, sizeof(c.buf) - c.off,
					  " state_after_init_to_rts=%s(%s)", state_name(s),
					  errname(err));
		}
		ibv_destroy_qp(qp);
	}

	{
		struct ibv_cq *big;
		int cqe = e->attr.orig_attr.max_cqe;

		errno = 0;
		big = cqe < INT32_MAX ? ibv_create_cq(e->ctx, cqe + 1, NULL, NULL, 0) : NULL;
		echeck(&c, "cq_cqe_over_max", big ? 0 : errno, EINVAL);
		if (big)
			ibv_destroy_cq(big);
	}
	if (cq) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.cap = { .max_send_wr = (uint32_t)e->attr.orig_attr.max_qp_wr + 1,
				 .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};
		struct ibv_qp *bad;

		errno = 0;
		bad = ibv_create_qp(pd, &ia);
		echeck(&c, "qp_send_wr_over_max", bad ? 0 : errno, EINVAL);
		if (bad)
			ibv_destroy_qp(bad);

		/*
		 * Verbs report one max_sge, the lower of the send and receive
		 * limits, so only both over it at once is out of range for sure.
		 */
		ia.cap.max_send_wr = 1;
		ia.cap.max_send_sge = (uint32_t)e->attr.orig_attr.max_sge + 1;
		ia.cap.max_recv_sge = ia.cap.max_send_sge;
		errno = 0;
		bad = ibv_create_qp(pd, &ia);
		echeck(&c, "qp_sge_over_max", bad ? 0 : errno, EINVAL);
		if (bad)
			ibv_destroy_qp(bad);
		/*
		 * Send side alone: not an error where the send limit is higher
		 * (mlx5 with max_wqe_sz_sq > max_wqe_sz_rq; libmlx5 checks it
		 * against max_sq_desc_sz, the kernel not at all), so only noted.
		 */
		ia.cap.max_recv_sge = 1;
		errno = 0;
		bad = ibv_create_qp(pd, &ia);
		einfo(&c, "qp_send_sge_over_max_sge", bad ? 0 : errno);
		if (bad)
			ibv_destroy_qp(bad);
	}
	{
		/* An address range that was mapped a moment ago and is not now. */
		size_t len = MR_PAGES * (size_t)sysconf(_SC_PAGESIZE);
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct ibv_mr *mr;

		if (p != MAP_FAILED && munmap(p, len) == 0) {
			errno = 0;
			mr = ibv_reg_mr(pd, p, len, IBV_ACCESS_LOCAL_WRITE);
			echeck(&c, "reg_mr_unmapped", mr ? 0 : errno, EFAULT);
			if (mr)
				ibv_dereg_mr(mr);
		}
	}
	if (cq)
		ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	vt_result("invalid_transitions", c.pass, "%s", c.buf + (c.buf[0] == ' '));
}

static void case_debugfs_final(struct env *e, const struct counts *base)
{
	struct counts now = read_counts(e->debugfs);
	char d[256], cnt[256];

	if (!base->ok || !now.ok) {
		vt_result("debugfs_final", false, "no objects file in %s", e->debugfs);
		return;
	}
	counts_str(&now, cnt, sizeof(cnt));
	if (counts_equal(base, &now, d, sizeof(d)))
		vt_result("debugfs_final", true, "%s", cnt);
	else
		vt_result("debugfs_final", false, "not back to baseline:%s", d);
}

static void hold(struct env *e)
{
	struct obj_stats st[O_NTYPES] = { 0 };
	struct objs o;

	objs_create(e, &o, st);
	printf("HOLDING pid=%d pd=%d mr=%d cq=%d qp=%d srq=%d ah=%d\n", (int)getpid(), !!o.pd,
	       !!o.mr, !!o.cq, !!o.qp[0] + !!o.qp[1] + !!o.qp[2], !!o.srq, !!o.ah);
	fflush(stdout);
	/* The caller ends this with SIGKILL: cleanup is the kernel's job. */
	for (;;)
		pause();
}

static void usage(void)
{
	fprintf(stderr, "usage: verbs_objects -d DEV [-g GID_INDEX] [-n ITER] [--debugfs DIR] "
			"[--hold] [--mlx5]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "debugfs", required_argument, NULL, 'D' },
		{ "hold", no_argument, NULL, 'H' },
		{ "mlx5", no_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	struct env e = { .gidx = 0 };
	const char *devname = NULL;
	bool hold_mode = false, need_mlx5 = false;
	struct ibv_device **list;
	struct counts base = { 0 };
	int iters = 1000, n, opt;

	while ((opt = getopt_long(argc, argv, "d:g:n:", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': devname = optarg; break;
		case 'g': e.gidx = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 'D': e.debugfs = optarg; break;
		case 'H': hold_mode = true; break;
		case 'M': need_mlx5 = true; break;
		default: usage();
		}
	}
	if (!devname || iters < 1 || e.gidx < 0 || optind != argc)
		usage();

	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			e.dev = list[i];
	if (!e.dev) {
		vt_result("open_device", false, "%s not found", devname);
		return 1;
	}
	e.ctx = ibv_open_device(e.dev);
	if (!e.ctx || ibv_query_device_ex(e.ctx, NULL, &e.attr) ||
	    ibv_query_port(e.ctx, PORT, &e.port) || ibv_query_gid(e.ctx, PORT, e.gidx, &e.gid)) {
		vt_result("open_device", false, "%s: open/query: %s", devname, errname(errno));
		return 1;
	}
	e.buf_len = MR_PAGES * (size_t)sysconf(_SC_PAGESIZE);
	e.buf = aligned_alloc((size_t)sysconf(_SC_PAGESIZE), e.buf_len);
	if (!e.buf)
		return 1;
	memset(e.buf, 0, e.buf_len);
	printf("INFO %s: max_cqe=%d max_qp_wr=%d max_sge=%d max_srq=%d port_state=%d "
	       "active_mtu=%d link_layer=%d gid[%d]=%016llx:%016llx\n",
	       devname, e.attr.orig_attr.max_cqe, e.attr.orig_attr.max_qp_wr,
	       e.attr.orig_attr.max_sge, e.attr.orig_attr.max_srq, e.port.state,
	       128 << e.port.active_mtu, e.port.link_layer, e.gidx,
	       (unsigned long long)be64toh(e.gid.global.subnet_prefix),
	       (unsigned long long)be64toh(e.gid.global.interface_id));
	fflush(stdout);

	if (hold_mode)
		hold(&e);

	if (e.debugfs)
		base = read_counts(e.debugfs);
	case_mlx5dv(&e, need_mlx5);
	case_objects_cycle(&e, iters);
	case_qp_state_walk(&e);
	case_invalid_transitions(&e);
	if (e.debugfs)
		case_debugfs_final(&e, &base);

	free(e.buf);
	ibv_close_device(e.ctx);
	ibv_free_device_list(list);
	return vt_failures ? 1 : 0;
}
