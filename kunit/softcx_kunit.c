// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for softcx, loaded as a module on the test kernel, and the
 * helpers the suites that run whole softcx functions share.
 */
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kmsg_dump.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "softcx/driver.h"
#include "softcx/hca.h"
#include "softcx_kunit.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("softcx KUnit suites");

int scx_kunit_fn_init(struct kunit *test)
{
	struct scx_kunit_fn *fn = kunit_kzalloc(test, sizeof(*fn), GFP_KERNEL);

	if (!fn)
		return -ENOMEM;
	fn->api = scx_test_api();
	test->priv = fn;
	return 0;
}

void scx_kunit_fn_down(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	int i;

	if (!fn->kdev)
		return;
	fn->api->fault_clear(fn->kdev);
	for (i = 0; i < SCX_KUNIT_MAX_CQS; i++) {
		if (fn->cq[i])
			KUNIT_EXPECT_EQ(test, fn->api->cq_destroy(fn->cq[i]), 0);
		fn->cq[i] = NULL;
	}
	fn->api->kdev_destroy(fn->kdev);
	fn->kdev = NULL;
}

void scx_kunit_fn_exit(struct kunit *test)
{
	scx_kunit_fn_down(test);
}

void scx_kunit_default_params(struct scx_kdev_params *p)
{
	memset(p, 0, sizeof(*p));
	p->num_comp_eqs = 2;
	p->link_up = true;
	p->cmd_timeout_ms = 10000;
}

struct scx_kdev *scx_kunit_fn_up(struct kunit *test, const char *name,
				 const struct scx_kdev_params *p)
{
	struct scx_kunit_fn *fn = test->priv;
	struct scx_kdev *kdev;

	KUNIT_ASSERT_NULL(test, fn->kdev);
	kdev = fn->api->kdev_create(name, p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, kdev);
	fn->kdev = kdev;
	scx_kunit_quiesce(test);
	return kdev;
}

/* Every vector's interrupt count and handler runs, for scx_kunit_quiesce(). */
static bool scx_kunit_irq_state(struct scx_kunit_fn *fn, unsigned long *irqs)
{
	unsigned long runs, hard;
	bool settled = true;
	unsigned int v;

	for (v = 0; v < fn->kdev->num_vectors; v++) {
		irqs[v] = fn->api->vector_irqs(fn->kdev, v);
		fn->api->vector_handler_runs(fn->kdev, v, &runs, &hard);
		settled &= runs == irqs[v];
	}
	return settled;
}

void scx_kunit_quiesce(struct kunit *test)
{
	unsigned long a[SCX_MAX_VECTORS], b[SCX_MAX_VECTORS];
	struct scx_kunit_fn *fn = test->priv;
	int i;

	for (i = 0; i < 100; i++) {
		bool quiet = scx_kunit_irq_state(fn, a);

		msleep(SCX_KUNIT_QUIET_MS);
		quiet &= scx_kunit_irq_state(fn, b);
		if (quiet && !memcmp(a, b, fn->kdev->num_vectors * sizeof(a[0])))
			return;
	}
	KUNIT_FAIL(test, "%s: interrupts never stopped", fn->kdev->name);
}

bool scx_kunit_kmsg_has(const char *needle)
{
	struct kmsg_dump_iter iter;
	const size_t size = 1024;
	bool found = false;
	size_t len;
	char *line;

	line = kmalloc(size, GFP_KERNEL);
	if (!line)
		return false;
	kmsg_dump_rewind(&iter);
	while (!found && kmsg_dump_get_line(&iter, false, line, size - 1, &len)) {
		line[len] = 0;
		found = strstr(line, needle);
	}
	kfree(line);
	return found;
}

/* Sum of the CPU columns of one /proc/interrupts line ("  NN:  c0  c1  chip ... name"). */
static long scx_kunit_irq_line(char *line, unsigned int virq, const char *name)
{
	unsigned int cpu, ncpu = num_online_cpus();
	char *p = skip_spaces(line), *colon = strchr(p, ':');
	unsigned int n;
	long sum = 0;

	if (!colon)
		return -ENOENT;
	*colon = 0;
	if (kstrtouint(p, 10, &n) || n != virq)
		return -ENOENT;
	p = colon + 1;
	for (cpu = 0; cpu < ncpu; cpu++) {
		long v = 0;

		p = skip_spaces(p);
		if (!isdigit(*p))
			return -EINVAL;
		while (isdigit(*p))
			v = v * 10 + (*p++ - '0');
		sum += v;
	}
	p = strim(p);
	if (strlen(p) < strlen(name) || strcmp(p + strlen(p) - strlen(name), name))
		return -EINVAL;
	return sum;
}

long scx_kunit_proc_interrupts(unsigned int virq, const char *name)
{
	const size_t size = 256 * 1024;
	struct file *f;
	loff_t pos = 0;
	size_t len = 0;
	long ret = -ENOENT;
	char *buf, *cur, *line;
	ssize_t r;

	buf = kvzalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	f = filp_open("/proc/interrupts", O_RDONLY, 0);
	if (IS_ERR(f)) {
		kvfree(buf);
		return PTR_ERR(f);
	}
	while (len < size - 1 && (r = kernel_read(f, buf + len, size - 1 - len, &pos)) > 0)
		len += r;
	filp_close(f, NULL);
	buf[len] = 0;
	cur = buf;
	while (ret == -ENOENT && (line = strsep(&cur, "\n")))
		ret = scx_kunit_irq_line(line, virq, name);
	kvfree(buf);
	return ret;
}
