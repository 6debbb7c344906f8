// SPDX-License-Identifier: GPL-2.0
// The driver's health monitor against a firmware that dies (the hca's
// scx_hca_fw_die: its health counter stops, it serves nothing more): the
// death is seen after health_monitor::max_misses polls, commands in flight
// end at once, later ones get mlx5_core's internal-error answers, and the
// function still tears down completely.
#include <gtest/gtest.h>

#include "c_machine.h"

namespace {

using ms = std::chrono::milliseconds;

// The counter ticks about every millisecond: polls this far apart see it move.
void poll_gap() { std::this_thread::sleep_for(ms(5)); }

// Polls after the death until one says so; how many it took.
int polls_until_dead(scx_drv *drv, int limit = 10)
{
	for (int i = 1; i <= limit; i++) {
		poll_gap();
		if (scx_drv_health_poll(drv))
			return i;
	}
	return -1;
}

} // namespace

TEST_F(CMachine, HealthPollsOfALivingFirmwareSeeItsCounterMove)
{
	start();
	for (int i = 0; i < 6; i++) {
		poll_gap();
		EXPECT_FALSE(scx_drv_health_poll(drv)) << i;
	}
	scx_drv_health h{};
	scx_drv_get_health(drv, &h);
	EXPECT_FALSE(h.dead);
	EXPECT_EQ(h.misses, 0u);
	EXPECT_EQ(h.polls, 6u);
	EXPECT_EQ(scx_drv_exec_nop(drv), 0);
}

// The first poll after the death still sees the counter's last move; then
// three misses in a row, and the third says "dead" — once.
TEST_F(CMachine, StoppedHealthCounterIsFatalOnTheThirdMiss)
{
	start();
	EXPECT_FALSE(scx_drv_health_poll(drv));
	poll_gap();
	scx_hca_fw_die(hca);
	EXPECT_EQ(polls_until_dead(drv), 4);
	for (int i = 0; i < 3; i++)
		EXPECT_FALSE(scx_drv_health_poll(drv)) << "said twice";
	scx_drv_health h{};
	scx_drv_get_health(drv, &h);
	EXPECT_TRUE(h.dead);
	EXPECT_EQ(h.misses, 3u);
	// Now the driver answers: an I/O error for anything but a release.
	EXPECT_EQ(scx_drv_exec_nop(drv), -EIO);
	scx_drv_get_health(drv, &h);
	EXPECT_EQ(h.answered_in_error, 1u);
}

// A command the dead firmware will never complete ends when the monitor
// declares it dead, long before its 60 s timeout.
TEST_F(CMachine, CommandInFlightEndsWhenTheFirmwareIsDeclaredDead)
{
	start(60000);
	EXPECT_FALSE(scx_drv_health_poll(drv));
	poll_gap();
	scx_hca_fw_die(hca);
	std::atomic<int> rc{1};
	std::atomic<bool> done{false};
	std::thread t([&] {
		rc = scx_drv_exec_nop(drv);
		done = true;
	});
	std::this_thread::sleep_for(ms(100));
	EXPECT_FALSE(done.load()) << "the dead firmware answered";
	auto t0 = std::chrono::steady_clock::now();
	EXPECT_EQ(polls_until_dead(drv), 4);
	EXPECT_TRUE(c_wait_for([&] { return done.load(); }, 2000));
	t.join();
	EXPECT_EQ(rc.load(), -EIO);
	EXPECT_LT(std::chrono::duration_cast<ms>(std::chrono::steady_clock::now() - t0).count(), 2000);
}

// Teardown after the death: every release is answered by the driver, the
// firmware pages and the slot the hung command kept come back, nothing
// waits for a timeout (CMachine's TearDown checks every byte returned).
TEST_F(CMachine, TeardownOfADeadFunctionIsQuickAndComplete)
{
	quarantine = true;
	start(60000);
	EXPECT_FALSE(scx_drv_health_poll(drv));
	poll_gap();
	scx_hca_fw_die(hca);
	std::thread t([&] { EXPECT_EQ(scx_drv_exec_nop(drv), -EIO); });
	std::this_thread::sleep_for(ms(20));
	EXPECT_EQ(polls_until_dead(drv), 4);
	t.join();
	auto t0 = std::chrono::steady_clock::now();
	scx_drv_teardown(drv);
	drv = nullptr;
	EXPECT_LT(std::chrono::duration_cast<ms>(std::chrono::steady_clock::now() - t0).count(), 2000);
}
