/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The environment core_cpp runs in: everything it needs from the kernel (or,
 * on the host, from libc and threads), as plain C functions. kmod/ implements
 * it for the kernel and tests/host for GoogleTest. No kernel header here: this
 * file is compiled by both the kernel's C compiler and the freestanding C++.
 */
#ifndef SOFTCX_ENV_H
#define SOFTCX_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Memory. SCX_MEM_ATOMIC may be used from any context. */
enum { SCX_MEM_ZERO = 1, SCX_MEM_ATOMIC = 2 };
void *scx_env_alloc(size_t size, unsigned int flags);
void scx_env_free(void *ptr);

/*
 * Memory the hca owns (its UAR pages): page aligned, zeroed; *dma is its
 * address for mapping it to user space. The host env also uses it for the
 * device-visible memory of tests.
 */
void *scx_env_dma_alloc(size_t size, uint64_t *dma);
void scx_env_dma_free(void *cpu, size_t size, uint64_t dma);
/*
 * The IOMMU: what a function's device reaches at bus address dma, or NULL
 * (refused, counted and logged once) when its driver mapped nothing there.
 * `dom` is the function's domain (scx_hca_params.dma_domain); the host env
 * has one for all and ignores it.
 */
struct scx_dma_domain;
void *scx_env_dma_to_cpu(struct scx_dma_domain *dom, uint64_t dma, size_t len);

/*
 * Spinlocks, usable from hardirq context (irqsave). Locks of one class share
 * a lockdep class; distinct classes may nest in a fixed order.
 */
struct scx_spinlock;
enum { SCX_LOCK_CLASSES = 16 };
struct scx_spinlock *scx_env_spin_new(unsigned int lock_class);
void scx_env_spin_free(struct scx_spinlock *lock);
unsigned long scx_env_spin_lock(struct scx_spinlock *lock);
void scx_env_spin_unlock(struct scx_spinlock *lock, unsigned long flags);
/* Takes the lock only if it is free (then *flags as from spin_lock): true. */
bool scx_env_spin_trylock(struct scx_spinlock *lock, unsigned long *flags);
/* By the holder: whether another context is waiting for the lock (a hint). */
bool scx_env_spin_contended(struct scx_spinlock *lock);

/* One-shot waits (command completion): sleep only in process context. */
struct scx_completion;
struct scx_completion *scx_env_completion_new(void);
void scx_env_completion_free(struct scx_completion *c);
void scx_env_completion_reinit(struct scx_completion *c);
void scx_env_complete(struct scx_completion *c);
/* 0 when completed, -ETIMEDOUT (as a negative errno) otherwise. */
int scx_env_completion_wait(struct scx_completion *c, unsigned int timeout_ms);

/*
 * Deferred work in process context, run one item at a time per queue.
 * Queueing an item that is already pending never delays it: if the new
 * request is due sooner, the item runs at that sooner time.
 */
struct scx_work;
typedef void (*scx_work_fn)(void *arg);
struct scx_work *scx_env_work_new(scx_work_fn fn, void *arg);
void scx_env_work_free(struct scx_work *w); /* waits for a running instance */
void scx_env_work_queue(struct scx_work *w);
void scx_env_work_queue_delayed(struct scx_work *w, unsigned int delay_us);

uint64_t scx_env_now_ns(void);
void scx_env_relax(void); /* a busy-wait iteration */
void scx_env_sleep_us(unsigned int us);
bool scx_env_in_atomic(void);

/*
 * Tracepoints (softcx:cmd_post, softcx:cmd_done, softcx:eqe in the kernel;
 * no-ops on the host). `dev` is the function's name.
 */
void scx_env_trace_cmd_post(const char *dev, uint16_t opcode, uint8_t slot, uint8_t token);
void scx_env_trace_cmd_done(const char *dev, uint16_t opcode, uint8_t slot, uint8_t status,
			    uint32_t syndrome, uint64_t latency_ns);
void scx_env_trace_eqe(const char *dev, uint32_t eqn, uint8_t type, uint32_t cons_index);

enum scx_log_level { SCX_LOG_ERR = 3, SCX_LOG_WARN = 4, SCX_LOG_INFO = 6, SCX_LOG_DEBUG = 7 };
void scx_env_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A broken internal invariant: logged loudly (a WARNING in the kernel, which
 * every guest test treats as a failure). Returns, so callers can recover.
 */
void scx_env_bug(const char *what);

#ifdef __cplusplus
}
#endif
#endif
