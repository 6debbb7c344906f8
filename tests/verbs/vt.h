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

/* Milliseconds of CLOCK_MONOTONIC, for deadlines. */
long long vt_now_ms(void);

/* A small xorshift generator: each program prints its seed. */
uint64_t vt_rand(uint64_t *state);

#endif
