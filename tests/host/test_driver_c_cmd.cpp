// SPDX-License-Identifier: GPL-2.0
// The command interface of a whole function through the C APIs
// (c_machine.h) against a device that is slow on purpose.
#include <gtest/gtest.h>

#include "c_machine.h"

namespace {

constexpr uint16_t op_nop = 0x80d;

using ms = std::chrono::milliseconds;

int64_t nop_ms(scx_drv *drv, int *rc)
{
	auto t0 = std::chrono::steady_clock::now();
	*rc = scx_drv_exec_nop(drv);
	return std::chrono::duration_cast<ms>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

// A command the device is still working on when the driver gives up keeps
// its slot; the other slots go on at once, they do not wait for it.
TEST_F(CMachine, SlowCommandDoesNotHoldUpTheOthers)
{
	start(200);
	ASSERT_EQ(scx_hca_fault_delay(hca, op_nop, 2000, 1), 0);
	int rc = 0;
	int64_t t = nop_ms(drv, &rc);
	EXPECT_EQ(rc, -ETIMEDOUT);
	EXPECT_GE(t, 200);
	for (int i = 0; i < 4; i++) {
		t = nop_ms(drv, &rc);
		EXPECT_EQ(rc, 0) << i;
		EXPECT_LT(t, 150) << i;
	}
	// The late completion gives the slot back.
	std::this_thread::sleep_for(ms(2000));
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(scx_drv_exec_nop(drv), 0);
}

// Teardown while the device still holds a slow command: DISABLE_HCA ends it,
// nothing touches the queue or the mailboxes the driver frees afterwards.
TEST_F(CMachine, TeardownWithASlowCommandOutstanding)
{
	quarantine = true;
	start(200);
	ASSERT_EQ(scx_hca_fault_delay(hca, op_nop, 300, 1), 0);
	EXPECT_EQ(scx_drv_exec_nop(drv), -ETIMEDOUT);
	scx_drv_teardown(drv);
	drv = nullptr;
	// Past the delay, with the driver's memory gone (ASan would see a write).
	std::this_thread::sleep_for(ms(400));
	scx_hca_info hi;
	scx_hca_get_info(hca, &hi);
	EXPECT_EQ(hi.state, 0u); // disabled
}

// DESTROY_EQ lost: the device still has the EQs and keeps writing command
// completions into them until TEARDOWN_HCA, so their rings must outlive
// the failed destroy (they are freed once the function is disabled).
TEST_F(CMachine, LostDestroyEqKeepsTheRingUntilDisable)
{
	constexpr uint16_t op_destroy_eq = 0x302;
	quarantine = true;
	start(200);
	ASSERT_EQ(scx_hca_fault_drop(hca, op_destroy_eq, 3), 0);
	scx_drv_teardown(drv);
	drv = nullptr;
	scx_hca_info hi;
	scx_hca_get_info(hca, &hi);
	EXPECT_EQ(hi.state, 0u); // disabled all the same
}
