// SPDX-License-Identifier: GPL-2.0
/*
 * core_cpp's foundations under the real kernel env: kvmalloc'd memory,
 * lockdep-classed irqsave spinlocks, kernel atomics from several threads,
 * workqueue + completion, and big-endian device fields.
 */
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/completion.h>

#include "softcx/selfcheck.h"
#include "../kmod/test_api.h"

static const struct scx_test_api *api;

static void core_be_fields(struct kunit *test)
{
	u8 b4[4], b8[8];
	const u8 want4[4] = { 0x12, 0x34, 0x56, 0x78 };
	const u8 want8[8] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };

	KUNIT_EXPECT_EQ(test, api->be32(0x12345678, b4), 0x12345678u);
	KUNIT_EXPECT_EQ(test, memcmp(b4, want4, 4), 0);
	KUNIT_EXPECT_EQ(test, api->be64(0x0102030405060708ull, b8), 0x0102030405060708ull);
	KUNIT_EXPECT_EQ(test, memcmp(b8, want8, 8), 0);
}

static void core_alloc(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, api->alloc(64, 128), 0);
	/* Larger than a slab page: the env falls back to vmalloc. */
	KUNIT_EXPECT_EQ(test, api->alloc(4, 1 << 20), 0);
}

static void core_virtual_dispatch(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, api->virtual_area(0, 6, 7), 42);
	KUNIT_EXPECT_EQ(test, api->virtual_area(1, 9, 0), 81);
#ifdef SOFTCX_KUNIT_FAIL_DEMO
	/* Built with KUNIT_FAIL_DEMO=1: proves a failing case fails make check. */
	KUNIT_EXPECT_EQ(test, api->virtual_area(0, 2, 2), 5);
#endif
}

struct atomic_worker {
	struct scx_atomic_probe *probe;
	unsigned int n;
	bool cas;
	struct completion done;
};

static int atomic_thread(void *arg)
{
	struct atomic_worker *w = arg;

	if (w->cas)
		api->atomic_cas(w->probe, w->n);
	else
		api->atomic_add(w->probe, w->n);
	complete(&w->done);
	return 0;
}

static void core_atomics_threads(struct kunit *test)
{
	struct scx_atomic_probe probe = { 0 };
	struct atomic_worker w[4];
	int i;

	for (i = 0; i < 4; i++) {
		struct task_struct *t;

		w[i] = (struct atomic_worker){ .probe = &probe, .n = 20000, .cas = i & 1 };
		init_completion(&w[i].done);
		t = kthread_run(atomic_thread, &w[i], "scx-atomic%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	for (i = 0; i < 4; i++)
		wait_for_completion(&w[i].done);
	KUNIT_EXPECT_EQ(test, probe.counter, 80000ull);
}

static void core_lock_nesting(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, api->lock_nesting(1000), 1000u);
}

static void core_work_completion(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, api->work_completion(true, 1000, 5000), 0);
	KUNIT_EXPECT_EQ(test, api->work_completion(false, 0, 50), -ETIMEDOUT);
}

static int core_init(struct kunit *test)
{
	api = scx_test_api();
	return 0;
}

static struct kunit_case core_cases[] = {
	KUNIT_CASE(core_be_fields),
	KUNIT_CASE(core_alloc),
	KUNIT_CASE(core_virtual_dispatch),
	KUNIT_CASE(core_atomics_threads),
	KUNIT_CASE(core_lock_nesting),
	KUNIT_CASE(core_work_completion),
	{}
};

static struct kunit_suite core_suite = {
	.name = "softcx_core",
	.init = core_init,
	.test_cases = core_cases,
};
kunit_test_suite(core_suite);
