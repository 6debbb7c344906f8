/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vt: what the guest's verbs test programs share — the harness's RESULT
 * line, opening a device by name, the device's debugfs counters and
 * switches, and an RC QP brought to RTS towards a QP number.
 */
#ifndef SOFTCX_VT_H
#define SOFTCX_VT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* Results that failed so far; a program exits 1 when it is not 0. */
extern int vt_failures;

/* "RESULT name PASS|FAIL details", flushed so a pipe reader sees it. */
void vt_result(const char *name, bool pass, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The device called `name`, opened; NULL (errno set) if absent. */
struct ibv_context *vt_open(const char *name);

/* /dev/infiniband/uverbsN of the device called `name`, into path. */
bool vt_uverbs_path(const char *name, char *path, size_t len);

/* A value of debugfs DIR/FILE ("key value" lines); -1 if absent. */
long long vt_counter(const char *dir, const char *file, const char *key);

/* Write `cmd` to DIR/inject (the driver-bug and fault switches). */
bool vt_inject(const char *dir, const char *cmd);

/* DIR/objects, the live verbs objects per type. */
#define VT_MAX_TYPES 16
struct vt_objects {
	int n;
	char name[VT_MAX_TYPES][16];
	long val[VT_MAX_TYPES];
};

bool vt_objects_read(const char *dir, struct vt_objects *o);
/* true when equal; else the differing types ("qp:3->4 ...") in diff. */
bool vt_objects_equal(const struct vt_objects *a, const struct vt_objects *b, char *diff,
		      size_t len);
/* Reread DIR/objects until it equals `base` or `ms` pass. */
bool vt_objects_settle(const char *dir, const struct vt_objects *base, int ms, char *diff,
		       size_t len);

/*
 * An RC QP to RTS towards `dest` on this port (RoCE: through the GID at
 * gidx; dest may be the QP itself), with the remote access given.
 */
bool vt_connect_rc(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid, int gidx,
		   int access);
/* The same with an RNR retry count of its own (7: the default, forever). */
bool vt_connect_rc_rnr(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid, int gidx,
		       int access, int rnr_retry);

/* Big-endian stores into a PRM mailbox. */
void vt_be16(uint8_t *p, uint16_t v);
void vt_be32(uint8_t *p, uint32_t v);
/* Bits [bit_off, bit_off + width) of a big-endian PRM layout (width <= 32). */
uint32_t vt_prm_get(const uint8_t *p, unsigned int bit_off, unsigned int width);
/* The same bits set to v (within one dword). */
void vt_prm_put(uint8_t *p, unsigned int bit_off, unsigned int width, uint32_t v);
/* A command's 16-byte header: opcode and op_mod, the rest zero. */
void vt_hdr(uint8_t *in, uint16_t opcode, uint16_t op_mod);

/* The device called `dev` opened as a DevX context; NULL and *err if not. */
struct ibv_context *vt_devx_open(const char *dev, int *err);
/* cq_context's offset in create_cq_in and query_cq_out (mlx5_ifc.h). */
#define VT_CQC 0x10
/*
 * A DevX CQ of 64 CQEs (DEVX_OBJ CREATE_CQ) on umem `ring`, its doorbell
 * record at the start of umem `rec`, events to EQ eqn; *cqn its number.
 */
struct mlx5dv_devx_obj;
struct mlx5dv_devx_obj *vt_devx_cq(struct ibv_context *ctx, uint32_t uar, uint32_t eqn, uint32_t ring,
				   uint32_t rec, uint32_t *cqn);

/* Milliseconds of CLOCK_MONOTONIC, for deadlines. */
long long vt_now_ms(void);

/* A small xorshift generator: each program prints its seed. */
uint64_t vt_rand(uint64_t *state);

#endif
