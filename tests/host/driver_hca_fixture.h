// SPDX-License-Identifier: GPL-2.0
// The driver against the real hca (core_cpp/hca) through the PRM interface
// only: BAR0, DMA memory and interrupt vectors of a host test platform. The
// fixture the driver-on-hca tests share.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "driver/device.h"
#include "hca/device.h"
#include "host_env.h"
#include "test_platform.h"

namespace driver_hca_test {

using namespace scx;

template <typename F> inline bool wait_for(F cond, int ms = 5000)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
	while (!cond()) {
		if (std::chrono::steady_clock::now() > end)
			return false;
		std::this_thread::sleep_for(std::chrono::microseconds(200));
	}
	return true;
}

// The hca behind a plain wrapper. hca::device is polymorphic and built
// without RTTI; UBSan's vptr check would want its typeinfo at every call
// from this (RTTI) test code, so only these few functions touch it.
#define NO_VPTR __attribute__((no_sanitize("vptr")))
class hca_box {
public:
	NO_VPTR hca_box(test_platform &p, const hca::device_config &cfg) : d_(new hca::device(p, p, cfg)) {}
	NO_VPTR ~hca_box() { delete d_; }
	hca_box(const hca_box &) = delete;
	hca_box &operator=(const hca_box &) = delete;
	NO_VPTR status init() { return d_->init(); }
	NO_VPTR bus::mmio &bar0() { return d_->bar0(); }
	NO_VPTR hca::fault_hooks &faults() { return d_->faults(); }
	NO_VPTR bool set_link(bool up) { return d_->set_link(up); }
	NO_VPTR hca::cqe_result post_cqe(u32 cqn, const u8 *cqe) { return d_->post_cqe(cqn, cqe); }
	NO_VPTR hca::hca_state state() { return d_->state(); }
	NO_VPTR u32 fw_pages_held() { return d_->fw_pages_held(); }

private:
	hca::device *d_;
};

class DriverHca : public ::testing::Test {
protected:
	void SetUp() override
	{
		baseline_ = host_env::live_allocations();
		cfg.name = "sx0";
		cfg.num_comp_eqs = 2;
	}
	void TearDown() override
	{
		drv.reset();
		hw.reset();
		EXPECT_EQ(plat.dma_live(), 0);
		EXPECT_EQ(host_env::live_allocations(), baseline_);
		EXPECT_EQ(host_env::bug_count(), 0u);
		EXPECT_EQ(host_env::sleep_in_atomic_count(), 0u);
	}
	status start()
	{
		hw = std::make_unique<hca_box>(plat, hw_cfg);
		status s = hw->init();
		if (!s)
			return s;
		drv = std::make_unique<driver::device>();
		return drv->init(hw->bar0(), plat, cfg);
	}
	driver::cmd_if &cmd() { return drv->cmd(); }

	test_platform plat;
	hca::device_config hw_cfg;
	driver::device_config cfg;
	std::unique_ptr<hca_box> hw;
	std::unique_ptr<driver::device> drv;
	long baseline_ = 0;
};

} // namespace driver_hca_test
