// SPDX-License-Identifier: GPL-2.0
/*
 * devx_other: what a context reaches of the DevX ABI through libmlx5, as
 * mlx5_ib allows it: a context without DevX (softcx loaded with devx=0), or
 * with -x a DevX context (softcx's default).
 *
 *   devx_other -d DEV -D DEBUGFS_DIR [-x -g GIDX]
 *
 * Without DevX:
 *   devx_ctx_refused   mlx5dv_open_device(DEVX) fails with EOPNOTSUPP: no
 *                      DevX contexts yet; ibv_open_device still opens one
 *   hca_cap_general    DEVX_OTHER QUERY_HCA_CAP (general, current): status
 *                      0, log_max_qp as ibv_query_device's max_qp says
 *   hca_cap_short_out  the same into a 16-byte output: EREMOTEIO, and the
 *                      output holds the device's status (bad output length)
 *   esw_functions      QUERY_ESW_FUNCTIONS: status 0, no VFs
 *   not_whitelisted    NOP, QUERY_VPORT_STATE, CREATE_CQ: EINVAL, the device
 *                      never asked (its command count does not move)
 *   query_eqn          QUERY_EQN of every completion vector is the EQ the
 *                      driver's debugfs lists at that vector; one past the
 *                      last is ENOENT
 * With -x:
 *   devx_ctx_granted   mlx5dv_open_device(DEVX) opens a context
 *   devx_general_nop   DEVX_OTHER NOP, a general command, now reaches the
 *                      device under the context's uid (its count moves)
 *   devx_not_general   CREATE_CQ is still not DEVX_OTHER's: EINVAL
 *   devx_verbs_write   verbs objects of the DevX context (PD, MR, CQ and an
 *                      RC QP connected to itself, all with its uid, which the
 *                      device checks when the QP names the others): an RDMA
 *                      WRITE lands, data checked
 *   devx_hca_cap_general, devx_hca_cap_short_out, devx_query_eqn: as
 *                      above, under the context's own uid
 *   devx_umem          mlx5dv_devx_umem_reg of 3 pages starting 0x100 into
 *                      a page: an id, one CREATE_UMEM; dereg: one
 *                      DESTROY_UMEM; memory that is not mapped: EFAULT; a
 *                      umem left registered goes when the context closes
 *                      (one more DESTROY_UMEM)
 *   devx_obj_verbs     DEVX_OBJ query and modify on verbs objects of the
 *                      context: QUERY_CQ through the CQ's handle gives its
 *                      size, naming another CQ is EINVAL; QUERY_QP shows
 *                      RESET, 2ERR through the QP's handle moves it to ERR
 *   devx_obj_cq        a CQ made with DEVX_OBJ on two umems (ring, record),
 *                      queried through its object; its umem cannot go
 *                      while it lives; destroyed: DESTROY_CQ, then the
 *                      umems go; CREATE_SRQ through DEVX_OBJ: EOPNOTSUPP
 *                      (an object softcx does not offer there)
 *   devx_obj_close     a DevX CQ and its umems left at close: all destroyed
 *   devx_reserved_qpn  mlx5dv_reserved_qpn_alloc 1000 times: distinct
 *                      numbers, one CREATE_GENERAL_OBJECT per 8 (the
 *                      granularity the caps give), none of them the number
 *                      of a QP created meanwhile; all freed: as many
 *                      DESTROY_GENERAL_OBJECTs; freeing one twice: EINVAL
 *   devx_reserved_close  a run left at close is destroyed with the context
 * Without DevX, also:
 *   reserved_qpn_absent  mlx5dv_reserved_qpn_alloc: EOPNOTSUPP (the caps
 *                      list no general objects when DevX is not granted)
 *   umem_needs_devx    mlx5dv_devx_umem_reg: EPROTONOSUPPORT (with DevX
 *                      contexts not granted, the UMEM and OBJ objects are
 *                      not offered, as on a device without DevX), the
 *                      device not asked
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "vt.h"

/* Opcodes and layouts as mlx5_ifc.h gives them (big-endian mailboxes). */
#define OP_QUERY_HCA_CAP 0x100
#define OP_CREATE_CQ 0x400
#define OP_QUERY_ESW_FUNCTIONS 0x740
#define OP_QUERY_VPORT_STATE 0x750
#define OP_NOP 0x80d
#define OP_DESTROY_CQ 0x401
#define OP_QUERY_CQ 0x402
#define OP_CREATE_SRQ 0x700
#define OP_QUERY_QP 0x50b
#define OP_QP_2ERR 0x507
#define OP_CREATE_GENERAL_OBJECT 0xa00
#define OP_DESTROY_GENERAL_OBJECT 0xa03
#define OP_CREATE_UMEM 0xa08
#define OP_DESTROY_UMEM 0xa0a
#define STATUS_BAD_OUTP_LEN 0x51
#define CAP_OUT_BYTES (16 + 4096)
#define ESW_OUT_BYTES 0x80

/* A result name with the mode's prefix ("" or "devx_"). */
static const char *pfx = "";

static const char *named(const char *base)
{
	static char names[4][64];
	static unsigned int next;
	char *n = names[next++ % 4];

	snprintf(n, sizeof(names[0]), "%s%s", pfx, base);
	return n;
}

static void devx_ctx_refused(const char *dev)
{
	int err;
	struct ibv_context *c = vt_devx_open(dev, &err);

	if (c)
		ibv_close_device(c);
	vt_result("devx_ctx_refused", !c && err == EOPNOTSUPP, "mlx5dv_open_device(DEVX): %s",
		  c ? "opened" : strerror(err));
}

static void hca_cap(struct ibv_context *ctx)
{
	static uint8_t out[CAP_OUT_BYTES];
	struct ibv_device_attr da;
	uint8_t in[16];
	uint32_t log_max_qp;
	int err;

	/* op_mod: cap type general (0) << 1 | current (1). */
	vt_hdr(in, OP_QUERY_HCA_CAP, 1);
	err = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out));
	if (err || ibv_query_device(ctx, &da)) {
		vt_result(named("hca_cap_general"), false, "%s", strerror(err ?: errno));
	} else {
		/* cmd_hca_cap.log_max_qp: bit 0x9b, 5 bits; the caps at byte 16. */
		log_max_qp = vt_prm_get(out + 16, 0x9b, 5);
		vt_result(named("hca_cap_general"), out[0] == 0 && da.max_qp == 1 << log_max_qp,
			  "status %u, log_max_qp %u, max_qp %d", out[0], log_max_qp, da.max_qp);
	}
	memset(out, 0, 16);
	err = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, 16);
	vt_result(named("hca_cap_short_out"), err == EREMOTEIO && out[0] == STATUS_BAD_OUTP_LEN,
		  "%s, status 0x%x, syndrome 0x%x", strerror(err), out[0], vt_prm_get(out, 0x20, 32));
}

static void esw_functions(struct ibv_context *ctx)
{
	uint8_t in[16], out[ESW_OUT_BYTES];
	int err;

	memset(out, 0xff, sizeof(out));
	vt_hdr(in, OP_QUERY_ESW_FUNCTIONS, 0);
	err = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out));
	/* host_params_context at byte 0x10: host_num_of_vfs bits 0x10..0x1f. */
	vt_result("esw_functions", !err && out[0] == 0 && vt_prm_get(out + 0x10, 0x10, 16) == 0,
		  "%s, status 0x%x, num_of_vfs %u", strerror(err), out[0], vt_prm_get(out + 0x10, 0x10, 16));
}

/* How many commands of these opcodes the driver sent (debugfs cmd_stats). */
static long long cmd_count(const char *dbg, const uint16_t *ops, size_t n)
{
	char path[512], line[256], name[64];
	unsigned long long count;
	unsigned int op;
	long long sum = 0;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cmd_stats", dbg);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "0x%x %63s %llu", &op, name, &count) == 3)
			for (i = 0; i < n; i++)
				if (op == ops[i])
					sum += count;
	fclose(f);
	return sum;
}

static void not_whitelisted(struct ibv_context *ctx, const char *dbg)
{
	static const uint16_t ops[] = { OP_NOP, OP_QUERY_VPORT_STATE, OP_CREATE_CQ };
	const size_t nops = sizeof(ops) / sizeof(ops[0]);
	uint8_t in[64], out[64];
	char detail[128] = "";
	long long before = cmd_count(dbg, ops, nops), after;
	bool ok = true;
	size_t i;

	for (i = 0; i < nops; i++) {
		int err;

		memset(in, 0, sizeof(in));
		vt_hdr(in, ops[i], 0);
		err = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out));
		if (err != EINVAL) {
			ok = false;
			snprintf(detail, sizeof(detail), "opcode 0x%x: %s", ops[i], strerror(err));
		}
	}
	after = cmd_count(dbg, ops, nops);
	vt_result("not_whitelisted", ok && before >= 0 && after == before, "%s EINVAL each; commands %lld -> %lld",
		  detail, before, after);
}

/* The EQ numbers debugfs lists, by index (0 the async EQ, 1.. the comp ones). */
static int debugfs_eqns(const char *dbg, unsigned int *eqn, int max)
{
	char path[512], line[256];
	unsigned int idx, e;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/eqs", dbg);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %u", &idx, &e) == 2 && (int)idx < max) {
			eqn[idx] = e;
			n = (int)idx + 1 > n ? (int)idx + 1 : n;
		}
	fclose(f);
	return n;
}

static void query_eqn(struct ibv_context *ctx, const char *dbg)
{
	unsigned int listed[64];
	int n = debugfs_eqns(dbg, listed, 64), v, err;
	char detail[160] = "";
	bool ok = n >= 2 && ctx->num_comp_vectors == n - 1;
	uint32_t eqn;

	for (v = 0; ok && v < ctx->num_comp_vectors; v++) {
		err = mlx5dv_devx_query_eqn(ctx, v, &eqn);
		if (err || eqn != listed[v + 1]) {
			ok = false;
			snprintf(detail, sizeof(detail), "vector %d: %s, eqn %u, debugfs %u", v, strerror(err),
				 eqn, listed[v + 1]);
		}
	}
	err = mlx5dv_devx_query_eqn(ctx, ctx->num_comp_vectors, &eqn);
	if (ok && err != ENOENT) {
		ok = false;
		snprintf(detail, sizeof(detail), "vector %d (past the last): %s", ctx->num_comp_vectors,
			 strerror(err));
	}
	vt_result(named("query_eqn"), ok, "%d vectors, %d EQs listed %s", ctx->num_comp_vectors, n, detail);
}

static const uint16_t umem_create[] = { OP_CREATE_UMEM }, umem_destroy[] = { OP_DESTROY_UMEM };

static void umem_needs_devx(struct ibv_context *ctx, const char *dbg)
{
	static uint8_t buf[2 * 4096] __attribute__((aligned(4096)));
	long long before = cmd_count(dbg, umem_create, 1);
	struct mlx5dv_devx_umem *u;

	errno = 0;
	u = mlx5dv_devx_umem_reg(ctx, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	vt_result("umem_needs_devx", !u && errno == EPROTONOSUPPORT && cmd_count(dbg, umem_create, 1) == before, "%s",
		  u ? "registered" : strerror(errno));
	if (u)
		mlx5dv_devx_umem_dereg(u);
}

/* Registers, deregisters, is refused, and leaves one for close (*left). */
static void devx_umem(struct ibv_context *ctx, const char *dbg, long long *left)
{
	static uint8_t buf[4 * 4096] __attribute__((aligned(4096)));
	long long c0 = cmd_count(dbg, umem_create, 1), d0 = cmd_count(dbg, umem_destroy, 1), c1, d1;
	struct mlx5dv_devx_umem *u, *bad, *kept;
	char why[160] = "";
	int err = 0, bad_errno;
	uint32_t id;
	bool ok;

	u = mlx5dv_devx_umem_reg(ctx, buf + 0x100, 3 * 4096, IBV_ACCESS_LOCAL_WRITE);
	c1 = cmd_count(dbg, umem_create, 1);
	id = u ? u->umem_id : 0;
	ok = u && id && c1 == c0 + 1;
	if (!ok)
		snprintf(why, sizeof(why), "reg: %s, id %u, CREATE_UMEM %lld -> %lld", u ? "ok" : strerror(errno),
			 id, c0, c1);
	if (u)
		err = mlx5dv_devx_umem_dereg(u);
	d1 = cmd_count(dbg, umem_destroy, 1);
	if (ok && (err || d1 != d0 + 1)) {
		ok = false;
		snprintf(why, sizeof(why), "dereg: %s, DESTROY_UMEM %lld -> %lld", strerror(err), d0, d1);
	}
	/* An address range with nothing mapped behind it. */
	errno = 0;
	bad = mlx5dv_devx_umem_reg(ctx, (void *)0x10000, 4096, IBV_ACCESS_LOCAL_WRITE);
	bad_errno = errno;
	if (ok && (bad || bad_errno != EFAULT)) {
		ok = false;
		snprintf(why, sizeof(why), "unmapped memory: %s", bad ? "registered" : strerror(bad_errno));
	}
	if (bad)
		mlx5dv_devx_umem_dereg(bad);
	kept = mlx5dv_devx_umem_reg(ctx, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (ok && !kept) {
		ok = false;
		snprintf(why, sizeof(why), "second reg: %s", strerror(errno));
	}
	*left = cmd_count(dbg, umem_destroy, 1);
	vt_result("devx_umem", ok, "id %u, CREATE_UMEM %lld -> %lld, DESTROY_UMEM %lld -> %lld %s", id, c0, c1, d0,
		  d1, why);
}

/* NOP through DEVX_OTHER reaches the device; CREATE_CQ still does not. */
static void devx_general(struct ibv_context *ctx, const char *dbg)
{
	static const uint16_t nop[] = { OP_NOP };
	uint8_t in[64], out[64];
	long long before = cmd_count(dbg, nop, 1), after;
	int err;

	vt_hdr(in, OP_NOP, 0);
	err = mlx5dv_devx_general_cmd(ctx, in, 16, out, 16);
	after = cmd_count(dbg, nop, 1);
	vt_result("devx_general_nop", !err && out[0] == 0 && after == before + 1, "%s, status 0x%x; NOPs %lld -> %lld",
		  strerror(err), out[0], before, after);
	memset(in, 0, sizeof(in));
	vt_hdr(in, OP_CREATE_CQ, 0);
	err = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out));
	vt_result("devx_not_general", err == EINVAL, "CREATE_CQ: %s", strerror(err));
}

/* An RDMA WRITE between two halves of one MR, on a QP connected to itself. */
static void devx_verbs_write(struct ibv_context *ctx, int gidx)
{
	enum { len = 512 };
	static uint8_t buf[2 * len];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE) : NULL;
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .cap = { 4, 4, 1, 1, 0 } };
	struct ibv_qp *qp = NULL;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc = {};
	union ibv_gid gid;
	long long end;
	int i, n = 0;
	bool ok = false;

	qa.send_cq = qa.recv_cq = cq;
	if (pd && mr && cq)
		qp = ibv_create_qp(pd, &qa);
	if (!qp || ibv_query_gid(ctx, 1, gidx, &gid) ||
	    !vt_connect_rc(qp, qp->qp_num, &gid, gidx, IBV_ACCESS_REMOTE_WRITE)) {
		vt_result("devx_verbs_write", false, "setup: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	sge = (struct ibv_sge){ (uintptr_t)buf, len, mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)(buf + len);
	wr.wr.rdma.rkey = mr->rkey;
	if (ibv_post_send(qp, &wr, &bad)) {
		vt_result("devx_verbs_write", false, "post: %s", strerror(errno));
		goto out;
	}
	for (end = vt_now_ms() + 5000; n == 0 && vt_now_ms() < end;)
		n = ibv_poll_cq(cq, 1, &wc);
	ok = n == 1 && wc.status == IBV_WC_SUCCESS && !memcmp(buf, buf + len, len);
	vt_result("devx_verbs_write", ok, "qpn 0x%x: %d completion(s), status %s, data %s", qp->qp_num, n,
		  n == 1 ? ibv_wc_status_str(wc.status) : "-", memcmp(buf, buf + len, len) ? "differs" : "same");
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
	if (pd)
		ibv_dealloc_pd(pd);
}

/* Layouts (mlx5_ifc.h; rdma-core's for the umem fields). */
#define CQC VT_CQC
#define QPC_OUT 0x18		/* qpc in query_qp_out */

static int query_cq(struct ibv_cq *cq, uint32_t cqn, uint8_t *out, size_t outlen)
{
	uint8_t in[16];

	vt_hdr(in, OP_QUERY_CQ, 0);
	vt_prm_put(in, 0x48, 24, cqn);
	return mlx5dv_devx_cq_query(cq, in, sizeof(in), out, outlen);
}

/* Query and modify through verbs objects' handles; *uar the CQ's UAR. */
static void devx_obj_verbs(struct ibv_context *ctx, uint32_t *uar)
{
	static uint8_t out[0x110];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .cap = { 4, 4, 1, 1, 0 } };
	struct mlx5dv_cq dcq = {};
	struct mlx5dv_obj o = { .cq = { cq, &dcq } };
	struct ibv_qp *qp = NULL;
	uint8_t in[16];
	char why[160] = "";
	int err, state0 = -1, state1 = -1;
	bool ok;

	qa.send_cq = qa.recv_cq = cq;
	if (pd && cq)
		qp = ibv_create_qp(pd, &qa);
	ok = qp && !mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ);
	if (!ok)
		snprintf(why, sizeof(why), "setup: %s", strerror(errno));
	err = ok ? query_cq(cq, dcq.cqn, out, sizeof(out)) : 0;
	if (ok && (err || out[0] || 1u << vt_prm_get(out + CQC, 0x63, 5) != dcq.cqe_cnt)) {
		ok = false;
		snprintf(why, sizeof(why), "QUERY_CQ: %s, status 0x%x, log_cq_size %u, cqe_cnt %u", strerror(err),
			 out[0], vt_prm_get(out + CQC, 0x63, 5), dcq.cqe_cnt);
	}
	*uar = vt_prm_get(out + CQC, 0x68, 24);
	err = ok ? query_cq(cq, dcq.cqn + 1, out, sizeof(out)) : EINVAL;
	if (ok && err != EINVAL) {
		ok = false;
		snprintf(why, sizeof(why), "QUERY_CQ of another CQ through this one: %s", strerror(err));
	}
	if (ok) {
		vt_hdr(in, OP_QUERY_QP, 0);
		vt_prm_put(in, 0x48, 24, qp->qp_num);
		err = mlx5dv_devx_qp_query(qp, in, sizeof(in), out, sizeof(out));
		state0 = err ? -1 : (int)vt_prm_get(out + QPC_OUT, 0, 4);
		vt_hdr(in, OP_QP_2ERR, 0);
		vt_prm_put(in, 0x48, 24, qp->qp_num);
		err = err ?: mlx5dv_devx_qp_modify(qp, in, sizeof(in), out, 16);
		vt_hdr(in, OP_QUERY_QP, 0);
		vt_prm_put(in, 0x48, 24, qp->qp_num);
		err = err ?: mlx5dv_devx_qp_query(qp, in, sizeof(in), out, sizeof(out));
		state1 = err ? -1 : (int)vt_prm_get(out + QPC_OUT, 0, 4);
		/* qpc state: 0 RESET, 6 ERR */
		ok = !err && state0 == 0 && state1 == 6;
		if (!ok)
			snprintf(why, sizeof(why), "QP: %s, state %d then %d", strerror(err), state0, state1);
	}
	vt_result("devx_obj_verbs", ok, "cqn 0x%x, uar %u, qp state %d -> %d %s", dcq.cqn, *uar, state0, state1, why);
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
}

static const uint16_t cq_destroy[] = { OP_DESTROY_CQ };

static void devx_obj_cq(struct ibv_context *ctx, const char *dbg, uint32_t uar)
{
	static uint8_t ring[4096] __attribute__((aligned(4096))), rec[4096] __attribute__((aligned(4096)));
	struct mlx5dv_devx_umem *r = mlx5dv_devx_umem_reg(ctx, ring, sizeof(ring), IBV_ACCESS_LOCAL_WRITE);
	struct mlx5dv_devx_umem *d = mlx5dv_devx_umem_reg(ctx, rec, sizeof(rec), IBV_ACCESS_LOCAL_WRITE);
	struct mlx5dv_devx_obj *cq = NULL, *srq;
	uint8_t in[0x110] = {}, out[0x110];
	uint32_t eqn = 0, cqn = 0, rid = r ? r->umem_id : 0, did = d ? d->umem_id : 0;
	long long d0 = cmd_count(dbg, cq_destroy, 1);
	char why[160] = "";
	int err = 0;
	bool ok = r && d && !mlx5dv_devx_query_eqn(ctx, 0, &eqn);

	if (!ok)
		snprintf(why, sizeof(why), "umems/eqn: %s", strerror(errno));
	if (ok && !(cq = vt_devx_cq(ctx, uar, eqn, r->umem_id, d->umem_id, &cqn))) {
		ok = false;
		snprintf(why, sizeof(why), "CREATE_CQ: %s", strerror(errno));
	}
	if (ok) {
		vt_hdr(in, OP_QUERY_CQ, 0);
		vt_prm_put(in, 0x48, 24, cqn);
		err = mlx5dv_devx_obj_query(cq, in, 16, out, sizeof(out));
		ok = !err && !out[0] && vt_prm_get(out + CQC, 0x63, 5) == 6;
		if (!ok)
			snprintf(why, sizeof(why), "QUERY_CQ: %s, status 0x%x", strerror(err), out[0]);
	}
	/* Its ring's umem stays while it lives. */
	if (ok && !mlx5dv_devx_umem_dereg(r)) {
		ok = false;
		r = NULL;
		snprintf(why, sizeof(why), "the ring's umem went under its CQ");
	}
	err = cq ? mlx5dv_devx_obj_destroy(cq) : 0;
	if (ok && (err || cmd_count(dbg, cq_destroy, 1) != d0 + 1)) {
		ok = false;
		snprintf(why, sizeof(why), "destroy: %s", strerror(err));
	}
	if (ok && (mlx5dv_devx_umem_dereg(r) || mlx5dv_devx_umem_dereg(d))) {
		ok = false;
		snprintf(why, sizeof(why), "umems after the CQ: %s", strerror(errno));
	}
	memset(in, 0, sizeof(in));
	vt_be16(in, OP_CREATE_SRQ);
	errno = 0;
	srq = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, 16);
	if (ok && (srq || errno != EOPNOTSUPP)) {
		ok = false;
		snprintf(why, sizeof(why), "CREATE_SRQ: %s", srq ? "made" : strerror(errno));
	}
	vt_result("devx_obj_cq", ok, "cqn 0x%x on umems %u/%u %s", cqn, rid, did, why);
}

/* A DevX CQ and its umems left for close; returns the DESTROY_CQ count. */
static long long devx_obj_leave(struct ibv_context *ctx, const char *dbg, uint32_t uar)
{
	static uint8_t ring[4096] __attribute__((aligned(4096))), rec[4096] __attribute__((aligned(4096)));
	struct mlx5dv_devx_umem *r = mlx5dv_devx_umem_reg(ctx, ring, sizeof(ring), IBV_ACCESS_LOCAL_WRITE);
	struct mlx5dv_devx_umem *d = mlx5dv_devx_umem_reg(ctx, rec, sizeof(rec), IBV_ACCESS_LOCAL_WRITE);
	uint32_t eqn = 0, cqn = 0;

	if (!r || !d || mlx5dv_devx_query_eqn(ctx, 0, &eqn) || !vt_devx_cq(ctx, uar, eqn, r->umem_id, d->umem_id, &cqn))
		return -1;
	return cmd_count(dbg, cq_destroy, 1);
}

static const uint16_t gen_create[] = { OP_CREATE_GENERAL_OBJECT }, gen_destroy[] = { OP_DESTROY_GENERAL_OBJECT };

/* Whether qpn is among the n in qpns. */
static bool holds(const uint32_t *qpns, int n, uint32_t qpn)
{
	for (int i = 0; i < n; i++)
		if (qpns[i] == qpn)
			return true;
	return false;
}

/* An RC QP's number (0: none could be made). */
static uint32_t some_qpn(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .cap = { 4, 4, 1, 1, 0 } };
	struct ibv_qp *qp = NULL;
	uint32_t qpn = 0;

	qa.send_cq = qa.recv_cq = cq;
	if (pd && cq)
		qp = ibv_create_qp(pd, &qa);
	if (qp) {
		qpn = qp->qp_num;
		ibv_destroy_qp(qp);
	}
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	return qpn;
}

static void devx_reserved_qpn(struct ibv_context *ctx, const char *dbg)
{
	enum { n = 1000, per_run = 8 };
	static uint32_t qpns[n];
	long long c0 = cmd_count(dbg, gen_create, 1), d0 = cmd_count(dbg, gen_destroy, 1), c1, d1;
	uint32_t qpn = 0;
	char why[160] = "";
	int i, err = 0, got = 0;
	bool ok = true;

	for (; got < n && !(err = mlx5dv_reserved_qpn_alloc(ctx, &qpns[got])); got++)
		if (holds(qpns, got, qpns[got]))
			break;
	c1 = cmd_count(dbg, gen_create, 1);
	if (got < n) {
		ok = false;
		snprintf(why, sizeof(why), "alloc %d: %s", got, err ? strerror(err) : "a number twice");
	} else if (c1 - c0 != n / per_run) {
		ok = false;
		snprintf(why, sizeof(why), "%lld CREATE_GENERAL_OBJECTs for %d numbers", c1 - c0, n);
	}
	for (i = 0; ok && i < 20; i++) {
		qpn = some_qpn(ctx);
		if (!qpn || holds(qpns, n, qpn)) {
			ok = false;
			snprintf(why, sizeof(why), "QP %d: qpn 0x%x%s", i, qpn, qpn ? ", a reserved one" : "");
		}
	}
	for (i = 0; i < got; i++)
		if ((err = mlx5dv_reserved_qpn_dealloc(ctx, qpns[i])) && ok) {
			ok = false;
			snprintf(why, sizeof(why), "dealloc 0x%x: %s", qpns[i], strerror(err));
		}
	d1 = cmd_count(dbg, gen_destroy, 1);
	if (ok && d1 - d0 != c1 - c0) {
		ok = false;
		snprintf(why, sizeof(why), "%lld destroys for %lld creates", d1 - d0, c1 - c0);
	}
	err = got ? mlx5dv_reserved_qpn_dealloc(ctx, qpns[0]) : EINVAL;
	if (ok && err != EINVAL) {
		ok = false;
		snprintf(why, sizeof(why), "freed twice: %s", strerror(err));
	}
	vt_result("devx_reserved_qpn", ok, "%d numbers from 0x%x, %lld objects %s", got, got ? qpns[0] : 0,
		  c1 - c0, why);
}

static int devx_mode(const char *dev, const char *dbg, int gidx)
{
	int err;
	struct ibv_context *ctx = vt_devx_open(dev, &err);

	vt_result("devx_ctx_granted", ctx != NULL, "mlx5dv_open_device(DEVX): %s", strerror(err));
	if (!ctx)
		return 1;
	pfx = "devx_";
	hca_cap(ctx);
	devx_general(ctx, dbg);
	query_eqn(ctx, dbg);
	devx_verbs_write(ctx, gidx);
	long long left = -1, gone, cq_left, cq_gone;
	uint32_t uar = 0;
	devx_umem(ctx, dbg, &left);
	devx_obj_verbs(ctx, &uar);
	devx_obj_cq(ctx, dbg, uar);
	devx_reserved_qpn(ctx, dbg);
	cq_left = devx_obj_leave(ctx, dbg, uar);
	uint32_t kept = 0;
	long long gen_left = mlx5dv_reserved_qpn_alloc(ctx, &kept) ? -1 : cmd_count(dbg, gen_destroy, 1), gen_gone;
	left = cmd_count(dbg, umem_destroy, 1);
	ibv_close_device(ctx);
	gone = cmd_count(dbg, umem_destroy, 1);
	cq_gone = cmd_count(dbg, cq_destroy, 1);
	gen_gone = cmd_count(dbg, gen_destroy, 1);
	vt_result("devx_reserved_close", gen_left >= 0 && gen_gone == gen_left + 1,
		  "QPN 0x%x kept; DESTROY_GENERAL_OBJECT %lld -> %lld at close", kept, gen_left, gen_gone);
	/* At close: the CQ, then its two umems and the one devx_umem left. */
	vt_result("devx_umem_close", left >= 0 && gone == left + 3, "DESTROY_UMEM %lld -> %lld at close", left, gone);
	vt_result("devx_obj_close", cq_left >= 0 && cq_gone == cq_left + 1, "DESTROY_CQ %lld -> %lld at close",
		  cq_left, cq_gone);
	return vt_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *dev = "softcx_0", *dbg = NULL;
	struct ibv_context *ctx;
	int opt, gidx = -1;
	bool devx = false;

	while ((opt = getopt(argc, argv, "d:D:xg:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'D': dbg = optarg; break;
		case 'x': devx = true; break;
		case 'g': gidx = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s -d DEV -D DEBUGFS_DIR [-x -g GIDX]\n", argv[0]);
			return 2;
		}
	}
	if (!dbg || (devx && gidx < 0)) {
		fprintf(stderr, "%s: -D DEBUGFS_DIR is required, and -g GIDX with -x\n", argv[0]);
		return 2;
	}
	if (devx)
		return devx_mode(dev, dbg, gidx);
	devx_ctx_refused(dev);
	ctx = vt_open(dev);
	if (!ctx) {
		vt_result("devx_other_setup", false, "%s: %s", dev, strerror(errno));
		return 1;
	}
	hca_cap(ctx);
	esw_functions(ctx);
	not_whitelisted(ctx, dbg);
	umem_needs_devx(ctx, dbg);
	uint32_t qpn = 0;
	int err = mlx5dv_reserved_qpn_alloc(ctx, &qpn);
	vt_result("reserved_qpn_absent", err == EOPNOTSUPP, "mlx5dv_reserved_qpn_alloc: %s", strerror(err));
	query_eqn(ctx, dbg);
	ibv_close_device(ctx);
	return vt_failures ? 1 : 0;
}
