// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_cmd: the command interface of a whole softcx function on the real
 * kernel, against a device that misbehaves on purpose (the hca's fault
 * injection): a dropped command times out with -ETIMEDOUT after the
 * configured timeout and one log line naming it, a late one gives its slot
 * back, an error status becomes the errno mlx5_core would return, and the
 * queue keeps working after each. Statuses and opcodes are the kernel's own
 * mlx5 constants.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mlx5/device.h>

#include "softcx/driver.h"
#include "softcx/hca.h"
#include "softcx_kunit.h"

#define SCX_TIMEOUT_MS 300
/* Slack over the timeout for TCG and the 100 ms event-mode naps. */
#define SCX_TIMEOUT_SLACK_MS 3000

static u64 nop_stat(struct kunit *test, struct scx_drv_cmd_stat *st)
{
	struct scx_kunit_fn *fn = test->priv;

	KUNIT_ASSERT_EQ(test, fn->api->cmd_stat(fn->kdev, MLX5_CMD_OP_NOP, st), 0);
	KUNIT_ASSERT_STREQ(test, st->name, "NOP");
	return st->count;
}

static bool kmsg_wait(const char *needle, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	do {
		if (scx_kunit_kmsg_has(needle))
			return true;
		msleep(20);
	} while (time_before(jiffies, end));
	return false;
}

/* A dropped NOP: -ETIMEDOUT after the timeout, counted and logged; NOPs work after. */
static void cmd_drop_times_out(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	const struct scx_test_api *api = fn->api;
	struct scx_drv_cmd_stat st0, st1;
	struct scx_kdev_params p;
	struct scx_drv_info di;
	struct scx_kdev *kdev;
	char line[96];
	ktime_t t0;
	s64 ms;
	int i;

	scx_kunit_default_params(&p);
	p.cmd_timeout_ms = SCX_TIMEOUT_MS;
	kdev = scx_kunit_fn_up(test, "scxk-drop", &p);
	api->drv_info(kdev, &di);
	KUNIT_ASSERT_EQ(test, di.cmd_events, 1u);
	nop_stat(test, &st0);

	KUNIT_ASSERT_EQ(test, api->fault_drop(kdev, MLX5_CMD_OP_NOP, 1), 0);
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), -ETIMEDOUT);
	ms = ktime_ms_delta(ktime_get(), t0);
	KUNIT_EXPECT_GE(test, ms, (s64)SCX_TIMEOUT_MS);
	KUNIT_EXPECT_LE(test, ms, (s64)(SCX_TIMEOUT_MS + SCX_TIMEOUT_SLACK_MS));
	nop_stat(test, &st1);
	KUNIT_EXPECT_EQ(test, st1.count - st0.count, 1ull);
	KUNIT_EXPECT_EQ(test, st1.timeouts - st0.timeouts, 1ull);
	KUNIT_EXPECT_EQ(test, st1.errors - st0.errors, 1ull);
	snprintf(line, sizeof(line), "scxk-drop: NOP(0x%x) timed out after %u ms",
		 MLX5_CMD_OP_NOP, SCX_TIMEOUT_MS);
	KUNIT_EXPECT_TRUE_MSG(test, scx_kunit_kmsg_has(line), "no log line \"%s\"", line);

	/* The queue still works; so it does after several more lost commands. */
	KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), 0);
	KUNIT_ASSERT_EQ(test, api->fault_drop(kdev, MLX5_CMD_OP_NOP, 3), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), -ETIMEDOUT);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), 0);
	nop_stat(test, &st1);
	KUNIT_EXPECT_EQ(test, st1.count - st0.count, 13ull);
	KUNIT_EXPECT_EQ(test, st1.timeouts - st0.timeouts, 4ull);
	KUNIT_EXPECT_EQ(test, st1.errors - st0.errors, 4ull);
	api->drv_info(kdev, &di);
	KUNIT_EXPECT_EQ(test, di.cmd_events, 1u);
}

/* A NOP the device finishes late: -ETIMEDOUT, then its slot comes back with a log line. */
static void cmd_late_completion(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	const struct scx_test_api *api = fn->api;
	struct scx_drv_cmd_stat st0, st1;
	struct scx_kdev_params p;
	struct scx_kdev *kdev;
	char line[96];
	int i;

	scx_kunit_default_params(&p);
	p.cmd_timeout_ms = SCX_TIMEOUT_MS;
	kdev = scx_kunit_fn_up(test, "scxk-late", &p);
	nop_stat(test, &st0);
	KUNIT_ASSERT_EQ(test, api->fault_delay(kdev, MLX5_CMD_OP_NOP, 3 * SCX_TIMEOUT_MS, 1), 0);
	KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), -ETIMEDOUT);
	snprintf(line, sizeof(line), "scxk-late: NOP(0x%x) completed after its timeout",
		 MLX5_CMD_OP_NOP);
	KUNIT_EXPECT_TRUE_MSG(test, kmsg_wait(line, 5000), "no log line \"%s\"", line);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), 0);
	nop_stat(test, &st1);
	KUNIT_EXPECT_EQ(test, st1.count - st0.count, 5ull);
	KUNIT_EXPECT_EQ(test, st1.timeouts - st0.timeouts, 1ull);
}

/*
 * A NOP the device is still working on when the driver gives up: the next
 * commands run in other slots at once, they do not wait behind it.
 */
static void cmd_slow_command_not_blocking(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	const struct scx_test_api *api = fn->api;
	struct scx_kdev_params p;
	struct scx_kdev *kdev;
	ktime_t t0;
	int i;

	scx_kunit_default_params(&p);
	p.cmd_timeout_ms = SCX_TIMEOUT_MS;
	kdev = scx_kunit_fn_up(test, "scxk-slow", &p);
	KUNIT_ASSERT_EQ(test, api->fault_delay(kdev, MLX5_CMD_OP_NOP, 10 * SCX_TIMEOUT_MS, 1), 0);
	KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), -ETIMEDOUT);
	t0 = ktime_get();
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), 0);
	/* Well before the slow one is done. */
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), (s64)(5 * SCX_TIMEOUT_MS));
}

/*
 * Teardown with every DESTROY_EQ lost: the device keeps the EQs and writes
 * command completions into them until TEARDOWN_HCA, so the driver must not
 * free their rings before the function is disabled (KASAN watches).
 */
static void cmd_teardown_lost_destroy_eq(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	struct scx_kdev_params p;
	struct scx_kdev *kdev;
	char line[64];

	scx_kunit_default_params(&p);
	p.cmd_timeout_ms = SCX_TIMEOUT_MS;
	kdev = scx_kunit_fn_up(test, "scxk-eqlost", &p);
	KUNIT_ASSERT_EQ(test, fn->api->fault_drop(kdev, MLX5_CMD_OP_DESTROY_EQ, 3), 0);
	/* Down without clearing the fault (scx_kunit_fn_down would). */
	fn->kdev = NULL;
	fn->api->kdev_destroy(kdev);
	snprintf(line, sizeof(line), "scxk-eqlost: DESTROY_EQ(0x%x) timed out", MLX5_CMD_OP_DESTROY_EQ);
	KUNIT_EXPECT_TRUE(test, scx_kunit_kmsg_has(line));
	KUNIT_EXPECT_TRUE(test, scx_kunit_kmsg_has("scxk-eqlost: removed"));
}

struct status_case {
	u8 status;
	int err;
	const char *name;
};

/* cmd_status_to_err of mlx5_core's cmd.c, as the driver README documents it. */
static const struct status_case status_cases[] = {
	{ MLX5_CMD_STAT_INT_ERR, -EIO, "internal error" },
	{ MLX5_CMD_STAT_BAD_OP_ERR, -EINVAL, "bad operation" },
	{ MLX5_CMD_STAT_BAD_PARAM_ERR, -EINVAL, "bad parameter" },
	{ MLX5_CMD_STAT_BAD_SYS_STATE_ERR, -EIO, "bad system state" },
	{ MLX5_CMD_STAT_BAD_RES_ERR, -EINVAL, "bad resource" },
	{ MLX5_CMD_STAT_RES_BUSY, -EBUSY, "resource busy" },
	{ MLX5_CMD_STAT_LIM_ERR, -ENOMEM, "limits exceeded" },
	{ MLX5_CMD_STAT_BAD_RES_STATE_ERR, -EINVAL, "bad resource state" },
	{ MLX5_CMD_STAT_IX_ERR, -EINVAL, "bad index" },
	{ MLX5_CMD_STAT_NO_RES_ERR, -EAGAIN, "no resources" },
	{ MLX5_CMD_STAT_BAD_INP_LEN_ERR, -EIO, "bad input length" },
	{ MLX5_CMD_STAT_BAD_OUTP_LEN_ERR, -EIO, "bad output length" },
	{ MLX5_CMD_STAT_BAD_QP_STATE_ERR, -EINVAL, "bad QP state" },
};

/* Each injected status: its errno and a log line with status and syndrome; NOP works after. */
static void cmd_status_errno(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	const struct scx_test_api *api = fn->api;
	struct scx_drv_cmd_stat st0, st1;
	struct scx_kdev_params p;
	struct scx_kdev *kdev;
	char line[160];
	unsigned int i;

	scx_kunit_default_params(&p);
	kdev = scx_kunit_fn_up(test, "scxk-stat", &p);
	nop_stat(test, &st0);
	for (i = 0; i < ARRAY_SIZE(status_cases); i++) {
		const struct status_case *c = &status_cases[i];
		u32 synd = 0x5c000 + i;

		KUNIT_ASSERT_EQ(test, api->fault_fail(kdev, MLX5_CMD_OP_NOP, c->status, synd, 1), 0);
		KUNIT_EXPECT_EQ_MSG(test, api->exec_nop(kdev), c->err, "status 0x%x", c->status);
		snprintf(line, sizeof(line),
			 "scxk-stat: NOP(0x%x) op_mod(0x0) failed, status %s(0x%x), syndrome (0x%x), err(%d)",
			 MLX5_CMD_OP_NOP, c->name, c->status, synd, c->err);
		KUNIT_EXPECT_TRUE_MSG(test, scx_kunit_kmsg_has(line), "no log line \"%s\"", line);
		KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), 0);
	}
	nop_stat(test, &st1);
	KUNIT_EXPECT_EQ(test, st1.count - st0.count, 2ull * ARRAY_SIZE(status_cases));
	KUNIT_EXPECT_EQ(test, st1.errors - st0.errors, (u64)ARRAY_SIZE(status_cases));
	KUNIT_EXPECT_EQ(test, st1.timeouts, st0.timeouts);
}

/* A fault fires `count` times on its opcode only; other commands are untouched. */
static void cmd_fault_scope(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	const struct scx_test_api *api = fn->api;
	struct scx_drv_cq_params cp = { .comp_eq = 0, .log_size = 4 };
	struct scx_drv_cmd_stat st;
	struct scx_kdev_params p;
	struct scx_kdev *kdev;

	scx_kunit_default_params(&p);
	kdev = scx_kunit_fn_up(test, "scxk-scope", &p);
	KUNIT_ASSERT_EQ(test, api->fault_fail(kdev, MLX5_CMD_OP_NOP, MLX5_CMD_STAT_RES_BUSY, 0, 2), 0);
	KUNIT_ASSERT_EQ(test, api->fault_fail(kdev, MLX5_CMD_OP_CREATE_CQ,
					       MLX5_CMD_STAT_BAD_PARAM_ERR, 0, 1), 0);
	KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), -EBUSY);
	KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), -EBUSY);
	KUNIT_EXPECT_EQ(test, api->exec_nop(kdev), 0);
	/* A failed CREATE_CQ leaves nothing behind (kmemleak checks after the run). */
	KUNIT_EXPECT_EQ(test, api->cq_create(kdev, &cp, &fn->cq[0]), -EINVAL);
	fn->cq[0] = NULL;
	KUNIT_ASSERT_EQ(test, api->cq_create(kdev, &cp, &fn->cq[0]), 0);
	KUNIT_EXPECT_EQ(test, api->cmd_stat(kdev, MLX5_CMD_OP_CREATE_CQ, &st), 0);
	KUNIT_EXPECT_EQ(test, st.count, 2ull);
	KUNIT_EXPECT_EQ(test, st.errors, 1ull);
	KUNIT_EXPECT_EQ(test, api->cq_destroy(fn->cq[0]), 0);
	fn->cq[0] = NULL;
}

/* cmd_polling: commands never switch to events, and still complete. */
static void cmd_polling_mode(struct kunit *test)
{
	struct scx_kunit_fn *fn = test->priv;
	struct scx_drv_cmd_stat st0, st1;
	struct scx_kdev_params p;
	struct scx_drv_info di;
	struct scx_kdev *kdev;
	int i;

	scx_kunit_default_params(&p);
	p.cmd_polling = true;
	kdev = scx_kunit_fn_up(test, "scxk-poll", &p);
	fn->api->drv_info(kdev, &di);
	KUNIT_EXPECT_EQ(test, di.cmd_events, 0u);
	nop_stat(test, &st0);
	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test, fn->api->exec_nop(kdev), 0);
	nop_stat(test, &st1);
	KUNIT_EXPECT_EQ(test, st1.count - st0.count, 16ull);
	KUNIT_EXPECT_EQ(test, st1.errors, st0.errors);
}

static struct kunit_case cmd_cases[] = {
	KUNIT_CASE(cmd_drop_times_out),
	KUNIT_CASE(cmd_late_completion),
	KUNIT_CASE(cmd_slow_command_not_blocking),
	KUNIT_CASE(cmd_teardown_lost_destroy_eq),
	KUNIT_CASE(cmd_status_errno),
	KUNIT_CASE(cmd_fault_scope),
	KUNIT_CASE(cmd_polling_mode),
	{}
};

static struct kunit_suite cmd_suite = {
	.name = "softcx_cmd",
	.init = scx_kunit_fn_init,
	.exit = scx_kunit_fn_exit,
	.test_cases = cmd_cases,
};
kunit_test_suite(cmd_suite);
