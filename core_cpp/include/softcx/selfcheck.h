/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small probes of core_cpp's foundations (env, memory, locks, atomics,
 * endianness, virtual dispatch), called by the KUnit suites in the kernel and
 * by GoogleTest on the host: the same C++ checked in both environments.
 */
#ifndef SOFTCX_SELFCHECK_H
#define SOFTCX_SELFCHECK_H

#include "softcx/env.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stores v as a device (big-endian) field into out[4]; returns it read back. */
uint32_t scx_check_be32(uint32_t v, uint8_t out[4]);
/* Same for a 64-bit field in out[8]. */
uint64_t scx_check_be64(uint64_t v, uint8_t out[8]);

/*
 * Allocates count objects of size bytes with new[], fills each with a pattern,
 * checks all patterns, frees them. 0, -ENOMEM or -EIO (pattern clobbered).
 */
int scx_check_alloc(unsigned int count, unsigned int size);

/* Virtual dispatch through a base pointer: area of a (kind 0) rect or (1) square. */
int scx_check_virtual(int kind, int a, int b);

/* fetch_add/compare_exchange/exchange sequence on a shared counter. */
struct scx_atomic_probe {
	uint64_t counter;
};
void scx_check_atomic_add(struct scx_atomic_probe *p, unsigned int n);
/* Returns the number of successful CAS increments out of n attempts. */
unsigned int scx_check_atomic_cas(struct scx_atomic_probe *p, unsigned int n);

/*
 * Takes a lock of class test_a, then test_b inside it, n times, bumping a
 * counter under both. Returns the counter.
 */
unsigned int scx_check_lock_nesting(unsigned int n);

/*
 * Queues deferred work that completes a completion after delay_us (or never,
 * when fire is false) and waits up to timeout_ms: 0 or -ETIMEDOUT.
 */
int scx_check_work_completion(bool fire, unsigned int delay_us, unsigned int timeout_ms);

/* The core's version string, shown at module load. */
const char *scx_core_version(void);

#ifdef __cplusplus
}
#endif
#endif
