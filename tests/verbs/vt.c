// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the guest's verbs test programs (see vt.h). */
#define _GNU_SOURCE
#include "vt.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

int vt_failures;

void vt_result(const char *name, bool pass, const char *fmt, ...)
{
	char d[768] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d, sizeof(d), fmt, ap);
	va_end(ap);
	printf("RESULT %s %s%s%s\n", name, pass ? "PASS" : "FAIL", d[0] ? " " : "", d);
	fflush(stdout);
	if (!pass)
		vt_failures++;
}

struct ibv_context *vt_open(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n = 0;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx && !errno)
		errno = ENODEV;
	return ctx;
}

bool vt_uverbs_path(const char *name, char *path, size_t len)
{
	char p[256], dev[64];
	struct dirent *d;
	DIR *dir = opendir("/sys/class/infiniband_verbs");
	bool found = false;

	while (dir && !found && (d = readdir(dir))) {
		FILE *f;

		if (strncmp(d->d_name, "uverbs", 6))
			continue;
		snprintf(p, sizeof(p), "/sys/class/infiniband_verbs/%.40s/ibdev", d->d_name);
		f = fopen(p, "r");
		if (f && fscanf(f, "%63s", dev) == 1 && !strcmp(dev, name)) {
			snprintf(path, len, "/dev/infiniband/%.40s", d->d_name);
			found = true;
		}
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return found;
}

long long vt_counter(const char *dir, const char *file, const char *key)
{
	char path[512], k[64];
	long long v, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", k, &v) == 2)
		if (!strcmp(k, key))
			found = v;
	fclose(f);
	return found;
}

bool vt_inject(const char *dir, const char *cmd)
{
	char path[512];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/inject", dir);
	f = fopen(path, "w");
	if (!f)
		return false;
	ok = fputs(cmd, f) >= 0;
	return fclose(f) == 0 && ok;
}

bool vt_objects_read(const char *dir, struct vt_objects *o)
{
	char path[512], name[16];
	long v;
	FILE *f;

	o->n = 0;
	snprintf(path, sizeof(path), "%s/objects", dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (o->n < VT_MAX_TYPES && fscanf(f, "%15s %ld", name, &v) == 2) {
		memcpy(o->name[o->n], name, sizeof(name));
		o->val[o->n++] = v;
	}
	fclose(f);
	return o->n > 0;
}

bool vt_objects_equal(const struct vt_objects *a, const struct vt_objects *b, char *diff,
		      size_t len)
{
	size_t off = 0;
	bool eq = a->n == b->n;

	diff[0] = 0;
	for (int i = 0; i < a->n; i++) {
		long v = -1;

		for (int j = 0; j < b->n; j++)
			if (!strcmp(a->name[i], b->name[j]))
				v = b->val[j];
		if (v == a->val[i])
			continue;
		eq = false;
		if (off < len)
			off += snprintf(diff + off, len - off, " %s:%ld->%ld", a->name[i], a->val[i], v);
	}
	return eq;
}

bool vt_objects_settle(const char *dir, const struct vt_objects *base, int ms, char *diff,
		       size_t len)
{
	struct vt_objects now;

	for (int waited = 0;; waited += 20) {
		if (vt_objects_read(dir, &now) && vt_objects_equal(base, &now, diff, len))
			return true;
		if (waited >= ms)
			return false;
		usleep(20000);
	}
}

static bool modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		fprintf(stderr, "ibv_modify_qp(qp %u): %s\n", qp->qp_num, strerror(ret));
	return !ret;
}

bool vt_connect_rc(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid, int gidx,
		   int access)
{
	return vt_connect_rc_rnr(qp, dest, gid, gidx, access, 7);
}

bool vt_connect_rc_rnr(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid, int gidx,
		       int access, int rnr_retry)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = (unsigned int)access };

	if (!modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return false;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = (uint8_t)gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (!modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return false;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 1;
	a.rnr_retry = (uint8_t)rnr_retry;
	a.max_rd_atomic = 1;
	return modify(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				      IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

long long vt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

uint64_t vt_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

void vt_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

void vt_be32(uint8_t *p, uint32_t v)
{
	vt_be16(p, v >> 16);
	vt_be16(p + 2, v & 0xffff);
}

uint32_t vt_prm_get(const uint8_t *p, unsigned int bit_off, unsigned int width)
{
	uint64_t v = 0;
	unsigned int i, first = bit_off / 8, last = (bit_off + width - 1) / 8;

	for (i = first; i <= last; i++)
		v = v << 8 | p[i];
	v >>= 7 - (bit_off + width - 1) % 8;
	return v & ((1ull << width) - 1);
}

void vt_prm_put(uint8_t *p, unsigned int bit_off, unsigned int width, uint32_t v)
{
	uint8_t *d = p + bit_off / 32 * 4;
	uint32_t dw = (uint32_t)d[0] << 24 | d[1] << 16 | d[2] << 8 | d[3];
	unsigned int shift = 32 - width - bit_off % 32;
	uint32_t mask = width == 32 ? ~0u : ((1u << width) - 1) << shift;

	vt_be32(d, (dw & ~mask) | ((v << shift) & mask));
}

void vt_hdr(uint8_t *in, uint16_t opcode, uint16_t op_mod)
{
	memset(in, 0, 16);
	vt_be16(in, opcode);
	vt_be16(in + 6, op_mod);
}

struct ibv_context *vt_devx_open(const char *dev, int *err)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *c = NULL;
	int i;

	*err = ENODEV;
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev)) {
			errno = 0;
			c = mlx5dv_open_device(list[i], &attr);
			*err = c ? 0 : errno;
		}
	if (list)
		ibv_free_device_list(list);
	return c;
}

struct mlx5dv_devx_obj *vt_devx_cq(struct ibv_context *ctx, uint32_t uar, uint32_t eqn, uint32_t ring,
				   uint32_t rec, uint32_t *cqn)
{
	uint8_t in[0x110] = {}, out[16] = {};
	struct mlx5dv_devx_obj *obj;

	vt_be16(in, 0x400); /* CREATE_CQ */
	vt_prm_put(in + VT_CQC, 0x63, 5, 6);	/* log_cq_size */
	vt_prm_put(in + VT_CQC, 0x68, 24, uar);
	vt_prm_put(in + VT_CQC, 0xa0, 32, eqn);
	vt_prm_put(in + VT_CQC, 0x20, 32, rec);	/* dbr_umem_id */
	vt_prm_put(in, 0x2c0, 32, ring);	/* cq_umem_id */
	obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	*cqn = obj ? vt_prm_get(out, 0x48, 24) : 0;
	return obj;
}
