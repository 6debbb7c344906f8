/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the softcx KUnit suites that run whole softcx functions
 * (kunit/softcx_kunit.c): one function per test case, torn down by the
 * suite's exit even when an assertion ends the case early.
 */
#ifndef SOFTCX_KUNIT_H
#define SOFTCX_KUNIT_H

#include <kunit/test.h>

#include "../kmod/device.h"
#include "../kmod/test_api.h"

#define SCX_KUNIT_MAX_CQS 4

/* test->priv of a case that runs a function. */
struct scx_kunit_fn {
	const struct scx_test_api *api;
	struct scx_kdev *kdev;
	struct scx_drv_cq *cq[SCX_KUNIT_MAX_CQS];
};

/* Suite init/exit: the context, and afterwards CQs and function destroyed. */
int scx_kunit_fn_init(struct kunit *test);
void scx_kunit_fn_exit(struct kunit *test);

/* Parameters of a function as the tests use it, unless a case changes them. */
void scx_kunit_default_params(struct scx_kdev_params *p);
/* Brings a function up (asserting it came up), records it for exit, quiesces. */
struct scx_kdev *scx_kunit_fn_up(struct kunit *test, const char *name,
				 const struct scx_kdev_params *p);
/* Tears the recorded function down now (CQs first). */
void scx_kunit_fn_down(struct kunit *test);

/*
 * Waits until no vector of the function takes interrupts for a while (the
 * firmware-page work after bring-up is done, say) and every interrupt taken
 * ran the handler. Fails the case if that never happens.
 */
#define SCX_KUNIT_QUIET_MS 50
void scx_kunit_quiesce(struct kunit *test);

/* Whether a line of the kernel log contains `needle`. */
bool scx_kunit_kmsg_has(const char *needle);
/*
 * The line of irq `virq` in /proc/interrupts: its counts summed over the
 * CPU columns, or a negative errno if it has no line or the line does not
 * end with `name`.
 */
long scx_kunit_proc_interrupts(unsigned int virq, const char *name);

#endif
