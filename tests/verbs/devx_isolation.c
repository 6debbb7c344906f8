// SPDX-License-Identifier: GPL-2.0
/*
 * devx_isolation: one process's DevX context against another's. A victim
 * (a child) holds a DevX context with verbs objects (PD, MR, CQ, SRQ, an
 * RC QP connected to itself) and a DevX CQ on umems, and keeps RDMA WRITEs
 * going, every one checked. The attacker (this process), with a DevX
 * context of its own, reaches for the victim's objects and the kernel's
 * by their numbers, which it is told (as if guessed right):
 *
 *   devx_iso_handles   QUERY_CQ, QUERY_QP, MODIFY_CQ, 2ERR and DESTROY
 *                      commands naming the victim's CQs and QP sent through
 *                      the attacker's own handles: EINVAL (the object a
 *                      command names must be its handle's), the device
 *                      never asked
 *   devx_iso_general   DEVX_OTHER with commands outside the allow-list
 *                      (DESTROY_CQ, DESTROY_QP, DEALLOC_PD of the victim's
 *                      numbers; CREATE_EQ, MANAGE_PAGES, CREATE_UCTX,
 *                      ENABLE_HCA; DESTROY_CQ of the driver's own numbers
 *                      1..16): EINVAL, the device never asked
 *   devx_iso_naming    DEVX_OBJ creates that name the victim's objects: a
 *                      QP on its PD, a QP on its CQ, a DCT on its SRQ: the
 *                      device refuses each, EREMOTEIO with status BAD_RES
 *                      (0x5) and the foreign-uid syndrome (0x5c100600)
 *   devx_iso_malformed DEVX_OTHER of 8 bytes, a CREATE_CQ of 16 bytes,
 *                      a CREATE_QP of an undefined service type: EINVAL
 *                      (short) or EREMOTEIO with BAD_PARAM (0x3)
 *   devx_iso_victim    the victim's WRITEs kept landing, every one checked,
 *                      and its objects answer it afterwards
 *
 *   devx_isolation -d DEV -D DEBUGFS_DIR -g GIDX
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "vt.h"

#define OP_ENABLE_HCA 0x104
#define OP_MANAGE_PAGES 0x108
#define OP_CREATE_EQ 0x301
#define OP_CREATE_CQ 0x400
#define OP_DESTROY_CQ 0x401
#define OP_QUERY_CQ 0x402
#define OP_MODIFY_CQ 0x403
#define OP_CREATE_QP 0x500
#define OP_DESTROY_QP 0x501
#define OP_QP_2ERR 0x507
#define OP_QUERY_QP 0x50b
#define OP_CREATE_DCT 0x710
#define OP_DEALLOC_PD 0x801
#define OP_CREATE_UCTX 0xa04
#define STATUS_BAD_PARAM 0x3
#define STATUS_BAD_RES 0x5
#define SYND_UID_FOREIGN 0x5c100600u
/* qpc in create_qp_in, dctc in create_dct_in (bytes). */
#define QPC 0x18
#define DCTC 0x10

static const char *dev, *dbg;
static int gidx;

/* What the victim tells the attacker: its objects' numbers. */
struct victim_ids {
	uint32_t pdn, cqn, qpn, srqn, devx_cqn;
};

/* The device's count of one opcode so far (debugfs cmd_stats). */
static long long ran(uint16_t opcode)
{
	char path[512], name[64];
	unsigned int op;
	long long n, total = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cmd_stats", dbg);
	f = fopen(path, "r");
	if (!f)
		return -1;
	fscanf(f, "%*[^\n]\n");
	while (fscanf(f, "%x %63s %lld %*[^\n]\n", &op, name, &n) == 3)
		if (op == opcode)
			total = n;
	fclose(f);
	return total;
}

static uint8_t ring_mem[4096] __attribute__((aligned(4096))), rec_mem[4096] __attribute__((aligned(4096)));

/* A DevX CQ on two umems of this process. */
static struct mlx5dv_devx_obj *own_cq(struct ibv_context *ctx, uint32_t *uar_id, uint32_t *cqn)
{
	struct mlx5dv_devx_uar *uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	struct mlx5dv_devx_umem *ring = mlx5dv_devx_umem_reg(ctx, ring_mem, sizeof(ring_mem), IBV_ACCESS_LOCAL_WRITE);
	struct mlx5dv_devx_umem *rec = mlx5dv_devx_umem_reg(ctx, rec_mem, sizeof(rec_mem), IBV_ACCESS_LOCAL_WRITE);
	uint32_t eqn;

	if (!uar || !ring || !rec || mlx5dv_devx_query_eqn(ctx, 0, &eqn))
		return NULL;
	*uar_id = uar->page_id;
	return vt_devx_cq(ctx, uar->page_id, eqn, ring->umem_id, rec->umem_id, cqn);
}

/* The victim: its objects, then WRITEs until SIGTERM; reports n and bad. */
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void victim(int tell)
{
	enum { len = 512 };
	static uint8_t buf[2 * len];
	int err;
	struct ibv_context *ctx = vt_devx_open(dev, &err);
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	struct ibv_mr *mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE) : NULL;
	struct ibv_cq *cq = ctx ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq = pd ? ibv_create_srq(pd, &sa) : NULL;
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .cap = { 4, 4, 1, 1, 0 } };
	struct mlx5dv_pd dpd = { 0 };
	struct mlx5dv_cq dcq = { 0 };
	struct mlx5dv_srq dsrq = { .comp_mask = MLX5DV_SRQ_MASK_SRQN };
	struct mlx5dv_obj o = { 0 };
	struct mlx5dv_devx_obj *dxcq = NULL;
	struct victim_ids ids = { 0 };
	struct ibv_qp *qp = NULL;
	union ibv_gid gid;
	long long report[2] = { 0, 0 };
	uint32_t uar;
	uint8_t q[16], qo[0x110];

	signal(SIGTERM, on_term);
	qa.send_cq = qa.recv_cq = cq;
	if (mr && cq && srq)
		qp = ibv_create_qp(pd, &qa);
	o.pd.in = pd;
	o.pd.out = &dpd;
	o.cq.in = cq;
	o.cq.out = &dcq;
	o.srq.in = srq;
	o.srq.out = &dsrq;
	if (qp && !ibv_query_gid(ctx, 1, gidx, &gid) &&
	    vt_connect_rc(qp, qp->qp_num, &gid, gidx, IBV_ACCESS_REMOTE_WRITE) &&
	    !mlx5dv_init_obj(&o, MLX5DV_OBJ_PD | MLX5DV_OBJ_CQ | MLX5DV_OBJ_SRQ))
		dxcq = own_cq(ctx, &uar, &ids.devx_cqn);
	if (dxcq)
		ids = (struct victim_ids){ dpd.pdn, dcq.cqn, qp->qp_num, dsrq.srqn, ids.devx_cqn };
	if (write(tell, &ids, sizeof(ids)) != sizeof(ids) || !dxcq)
		_exit(1);
	while (!stop) {
		struct ibv_sge sge = { (uintptr_t)buf, len, mr->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;
		struct ibv_wc wc = { 0 };
		long long end = vt_now_ms() + 5000;
		int n = 0;

		for (int i = 0; i < len; i++)
			buf[i] = (uint8_t)(i * 7 + report[0]);
		wr.wr.rdma.remote_addr = (uintptr_t)(buf + len);
		wr.wr.rdma.rkey = mr->rkey;
		if (ibv_post_send(qp, &wr, &bad)) {
			report[1]++;
			break;
		}
		while (!n && vt_now_ms() < end)
			n = ibv_poll_cq(cq, 1, &wc);
		if (n != 1 || wc.status != IBV_WC_SUCCESS || memcmp(buf, buf + len, len)) {
			report[1]++;
			break;
		}
		report[0]++;
	}
	/* Its own objects still answer it. */
	vt_hdr(q, OP_QUERY_CQ, 0);
	vt_prm_put(q, 0x48, 24, ids.devx_cqn);
	if (mlx5dv_devx_obj_query(dxcq, q, sizeof(q), qo, sizeof(qo)))
		report[1]++;
	if (write(tell, report, sizeof(report)) != sizeof(report))
		_exit(1);
	_exit(0);
}

/* A device refusal: EREMOTEIO with this status (and syndrome, if not 0). */
static bool refused(int rc, const uint8_t *out, uint8_t status, uint32_t synd)
{
	return rc == EREMOTEIO && out[0] == status && (!synd || vt_prm_get(out, 0x20, 32) == synd);
}

static void handles(struct ibv_context *ctx, struct mlx5dv_devx_obj *cq, uint32_t cqn, struct ibv_qp *qp,
		    const struct victim_ids *v)
{
	uint8_t in[0x110], out[0x110];
	long long before = ran(OP_QUERY_CQ) + ran(OP_QUERY_QP) + ran(OP_MODIFY_CQ) + ran(OP_QP_2ERR);
	int rc[6];

	(void)ctx;
	memset(in, 0, sizeof(in));
	vt_hdr(in, OP_QUERY_CQ, 0);
	vt_prm_put(in, 0x48, 24, v->devx_cqn);
	rc[0] = mlx5dv_devx_obj_query(cq, in, 16, out, sizeof(out)) ? errno : 0;
	vt_prm_put(in, 0x48, 24, v->cqn);
	rc[1] = mlx5dv_devx_obj_query(cq, in, 16, out, sizeof(out)) ? errno : 0;
	vt_hdr(in, OP_MODIFY_CQ, 0);
	vt_prm_put(in, 0x48, 24, v->devx_cqn);
	rc[2] = mlx5dv_devx_obj_modify(cq, in, sizeof(in), out, 16) ? errno : 0;
	memset(in, 0, sizeof(in));
	vt_hdr(in, OP_QUERY_QP, 0);
	vt_prm_put(in, 0x48, 24, v->qpn);
	rc[3] = mlx5dv_devx_qp_query(qp, in, 16, out, sizeof(out)) ? errno : 0;
	vt_hdr(in, OP_QP_2ERR, 0);
	vt_prm_put(in, 0x48, 24, v->qpn);
	rc[4] = mlx5dv_devx_qp_modify(qp, in, 16, out, 16) ? errno : 0;
	/* A destroy is not a modify, even of its own CQ. */
	vt_hdr(in, OP_DESTROY_CQ, 0);
	vt_prm_put(in, 0x48, 24, cqn);
	rc[5] = mlx5dv_devx_obj_modify(cq, in, 16, out, 16) ? errno : 0;
	long long after = ran(OP_QUERY_CQ) + ran(OP_QUERY_QP) + ran(OP_MODIFY_CQ) + ran(OP_QP_2ERR);
	bool ok = after == before;

	for (int i = 0; i < 6; i++)
		ok = ok && rc[i] == EINVAL;
	vt_result("devx_iso_handles", ok,
		  "query DevX CQ 0x%x: %s, CQ 0x%x: %s; modify: %s; query QP 0x%x: %s, 2ERR: %s; "
		  "DESTROY_CQ as a modify: %s; device asked %lld times",
		  v->devx_cqn, strerror(rc[0]), v->cqn, strerror(rc[1]), strerror(rc[2]), v->qpn, strerror(rc[3]),
		  strerror(rc[4]), strerror(rc[5]), after - before);
}

static void general(struct ibv_context *ctx, const struct victim_ids *v)
{
	const struct {
		uint16_t op;
		unsigned int at, bits;
		uint32_t id;
	} cmds[] = {
		{ OP_DESTROY_CQ, 0x48, 24, v->cqn },   { OP_DESTROY_CQ, 0x48, 24, v->devx_cqn },
		{ OP_DESTROY_QP, 0x48, 24, v->qpn },   { OP_DEALLOC_PD, 0x48, 24, v->pdn },
		{ OP_CREATE_EQ, 0, 0, 0 },             { OP_MANAGE_PAGES, 0, 0, 0 },
		{ OP_CREATE_UCTX, 0, 0, 0 },           { OP_ENABLE_HCA, 0, 0, 0 },
	};
	long long before = ran(OP_DESTROY_CQ) + ran(OP_DESTROY_QP) + ran(OP_DEALLOC_PD);
	uint8_t in[0x100], out[0x100];
	int bad = 0, sent = 0;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		memset(in, 0, sizeof(in));
		vt_hdr(in, cmds[i].op, 0);
		if (cmds[i].bits)
			vt_prm_put(in, cmds[i].at, cmds[i].bits, cmds[i].id);
		sent++;
		if (!mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)) || errno != EINVAL)
			bad++;
	}
	/* The driver's own CQs (its EQ-side and kernel consumers' numbers). */
	for (uint32_t n = 1; n <= 16; n++) {
		memset(in, 0, sizeof(in));
		vt_hdr(in, OP_DESTROY_CQ, 0);
		vt_prm_put(in, 0x48, 24, n);
		sent++;
		if (!mlx5dv_devx_general_cmd(ctx, in, 16, out, 16) || errno != EINVAL)
			bad++;
	}
	long long after = ran(OP_DESTROY_CQ) + ran(OP_DESTROY_QP) + ran(OP_DEALLOC_PD);
	vt_result("devx_iso_general", !bad && after == before,
		  "%d commands outside the allow-list, %d not refused with EINVAL; device asked %lld times", sent,
		  bad, after - before);
}

/* DEVX_OBJ CREATE_QP (RC, 16 WQEBBs, no RQ) on pd with send/recv CQ cqn. */
static int create_qp(struct ibv_context *ctx, uint32_t pd, uint32_t cqn, uint32_t uar, uint32_t umem, uint8_t st,
		     uint8_t *out)
{
	uint8_t in[0x110] = { 0 };
	struct mlx5dv_devx_obj *o;

	vt_hdr(in, OP_CREATE_QP, 0);
	vt_prm_put(in + QPC, 0x8, 8, st);
	vt_prm_put(in + QPC, 0x13, 2, 3);       /* pm_state: migrated */
	vt_prm_put(in + QPC, 0x28, 24, pd);
	vt_prm_put(in + QPC, 0x50, 1, 0);
	vt_prm_put(in + QPC, 0x51, 4, 4);       /* log_sq_size */
	vt_prm_put(in + QPC, 0x68, 24, uar);
	vt_prm_put(in + QPC, 0x3e8, 24, cqn);
	vt_prm_put(in + QPC, 0x4e8, 24, cqn);
	vt_prm_put(in + QPC, 0x520, 32, 4096);  /* dbr_addr: the umem's second page */
	vt_prm_put(in + QPC, 0x565, 3, 3);      /* rq_type: zero length */
	vt_prm_put(in + QPC, 0x720, 32, umem);  /* dbr_umem_id */
	vt_prm_put(in, 0x840, 32, umem);        /* wq_umem_id */
	memset(out, 0, 16);
	o = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, 16);
	if (o) {
		mlx5dv_devx_obj_destroy(o);
		return 0;
	}
	return errno;
}

static void naming(struct ibv_context *ctx, uint32_t own_pd, uint32_t own_cq, uint32_t uar, const struct victim_ids *v)
{
	static uint8_t qmem[8192] __attribute__((aligned(4096)));
	struct mlx5dv_devx_umem *um = mlx5dv_devx_umem_reg(ctx, qmem, sizeof(qmem), IBV_ACCESS_LOCAL_WRITE);
	uint8_t o1[16], o2[16], o3[16], o4[16], in[0x80] = { 0 };
	int r1, r2, r3, r4 = -1;
	struct mlx5dv_devx_obj *dct;

	if (!um) {
		vt_result("devx_iso_naming", false, "umem: %s", strerror(errno));
		return;
	}
	/* Its own PD and CQ first: the command itself is good. */
	r4 = create_qp(ctx, own_pd, own_cq, uar, um->umem_id, 0, o4);
	r1 = create_qp(ctx, v->pdn, own_cq, uar, um->umem_id, 0, o1);
	r2 = create_qp(ctx, own_pd, v->cqn, uar, um->umem_id, 0, o2);
	vt_hdr(in, OP_CREATE_DCT, 0);
	vt_prm_put(in + DCTC, 0x48, 24, own_cq);
	vt_prm_put(in + DCTC, 0xa8, 24, v->srqn);
	vt_prm_put(in + DCTC, 0xc8, 24, own_pd);
	vt_prm_put(in + DCTC, 0x145, 3, 3);
	vt_prm_put(in + DCTC, 0x148, 8, 1);
	memset(o3, 0, sizeof(o3));
	dct = mlx5dv_devx_obj_create(ctx, in, sizeof(in), o3, sizeof(o3));
	r3 = dct ? 0 : errno;
	if (dct)
		mlx5dv_devx_obj_destroy(dct);
	vt_result("devx_iso_naming",
		  !r4 && refused(r1, o1, STATUS_BAD_RES, SYND_UID_FOREIGN) &&
			  refused(r2, o2, STATUS_BAD_RES, SYND_UID_FOREIGN) &&
			  refused(r3, o3, STATUS_BAD_RES, SYND_UID_FOREIGN),
		  "own PD and CQ: %s; the victim's PD: %s status 0x%x syndrome 0x%x; its CQ: %s 0x%x 0x%x; "
		  "a DCT on its SRQ: %s 0x%x 0x%x",
		  strerror(r4), strerror(r1), o1[0], vt_prm_get(o1, 0x20, 32), strerror(r2), o2[0],
		  vt_prm_get(o2, 0x20, 32), strerror(r3), o3[0], vt_prm_get(o3, 0x20, 32));
	mlx5dv_devx_umem_dereg(um);
}

static void malformed(struct ibv_context *ctx, uint32_t own_pd, uint32_t own_cq, uint32_t uar)
{
	static uint8_t qmem[8192] __attribute__((aligned(4096)));
	struct mlx5dv_devx_umem *um = mlx5dv_devx_umem_reg(ctx, qmem, sizeof(qmem), IBV_ACCESS_LOCAL_WRITE);
	uint8_t in[16] = { 0 }, out[16], o3[16];
	struct mlx5dv_devx_obj *cq;
	int r1, r2, r3 = -1;

	vt_hdr(in, 0x100, 0); /* QUERY_HCA_CAP, 8 bytes of it */
	r1 = mlx5dv_devx_general_cmd(ctx, in, 8, out, sizeof(out)) ? errno : 0;
	vt_hdr(in, OP_CREATE_CQ, 0);
	cq = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	r2 = cq ? 0 : errno;
	if (cq)
		mlx5dv_devx_obj_destroy(cq);
	if (um)
		r3 = create_qp(ctx, own_pd, own_cq, uar, um->umem_id, 0x1f, o3);
	vt_result("devx_iso_malformed", r1 == EINVAL && r2 == EINVAL && refused(r3, o3, STATUS_BAD_PARAM, 0),
		  "DEVX_OTHER of 8 bytes: %s; CREATE_CQ of 16 bytes: %s; CREATE_QP of service type 0x1f: %s "
		  "status 0x%x",
		  strerror(r1), strerror(r2), strerror(r3), um ? o3[0] : 0);
	if (um)
		mlx5dv_devx_umem_dereg(um);
}

static void attack(const struct victim_ids *v)
{
	int err;
	struct ibv_context *ctx = vt_devx_open(dev, &err);
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	struct ibv_cq *vcq = ctx ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .cap = { 4, 4, 1, 1, 0 } };
	struct ibv_qp *qp = NULL;
	struct mlx5dv_devx_obj *cq = NULL;
	struct mlx5dv_pd dpd = { 0 };
	struct mlx5dv_obj o = { 0 };
	uint32_t uar = 0, cqn = 0;

	qa.send_cq = qa.recv_cq = vcq;
	if (pd && vcq)
		qp = ibv_create_qp(pd, &qa);
	o.pd.in = pd;
	o.pd.out = &dpd;
	if (qp && !mlx5dv_init_obj(&o, MLX5DV_OBJ_PD))
		cq = own_cq(ctx, &uar, &cqn);
	if (!cq) {
		vt_result("devx_iso_handles", false, "the attacker's objects: %s", strerror(errno));
		return;
	}
	handles(ctx, cq, cqn, qp, v);
	general(ctx, v);
	naming(ctx, dpd.pdn, cqn, uar, v);
	malformed(ctx, dpd.pdn, cqn, uar);
	/* Everything goes with the context; the victim is not touched. */
	mlx5dv_devx_obj_destroy(cq);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(vcq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

int main(int argc, char **argv)
{
	struct victim_ids v = { 0 };
	long long report[2] = { -1, -1 };
	int c, to_parent[2];
	pid_t pid;

	while ((c = getopt(argc, argv, "d:D:g:")) != -1) {
		if (c == 'd')
			dev = optarg;
		else if (c == 'D')
			dbg = optarg;
		else if (c == 'g')
			gidx = atoi(optarg);
	}
	if (!dev || !dbg) {
		fprintf(stderr, "usage: %s -d DEV -D DEBUGFS_DIR -g GIDX\n", argv[0]);
		return 2;
	}
	if (pipe(to_parent))
		return 1;
	pid = fork();
	if (!pid) {
		close(to_parent[0]);
		victim(to_parent[1]);
	}
	close(to_parent[1]);
	if (pid < 0 || read(to_parent[0], &v, sizeof(v)) != sizeof(v) || !v.devx_cqn) {
		vt_result("devx_iso_victim", false, "the victim did not set up");
		if (pid > 0)
			kill(pid, SIGKILL);
		return 1;
	}
	/* Let it run a while, attack, let it run on. */
	usleep(300000);
	attack(&v);
	usleep(300000);
	kill(pid, SIGTERM);
	if (read(to_parent[0], report, sizeof(report)) != sizeof(report))
		report[1] = -1;
	waitpid(pid, NULL, 0);
	vt_result("devx_iso_victim", report[0] > 0 && report[1] == 0,
		  "%lld WRITEs landed and checked, %lld failed; its DevX CQ answers its query", report[0],
		  report[1]);
	return vt_failures ? 1 : 0;
}
