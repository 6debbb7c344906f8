// SPDX-License-Identifier: GPL-2.0
// BAR0 as the device decodes it: the initialization segment (firmware
// revision, command queue address, command doorbell, initializing flag,
// health counter, internal timer) and, from page caps::first_uar on, one
// 4 KiB UAR page per UAR number whose EQ and CQ doorbells it forwards.
#pragma once

#include "hca/config.h"
#include "hca/cmd_processor.h"
#include "hca/cq.h"
#include "hca/dp.h"
#include "hca/eq.h"
#include "lib/bus.h"

namespace scx::hca {

class bar0_regs final : public bus::mmio {
public:
	void init(const device_config &cfg, cmd_processor &cmd, eq_engine &eqs, cq_engine &cqs, data_path &dp,
		  u32 first_uar, u32 num_uars);

	u32 read32(u32 offset) override;
	void write32(u32 offset, u32 value) override;
	void write64(u32 offset, u64 value) override;

	// The health counter ticks every 2^20 ns (about 1 ms) of device time.
	static constexpr u32 health_tick_shift = 20;
	// The firmware died: the counter keeps its last value from now on.
	void freeze_health();

private:
	bool uar_page(u32 offset, u32 *uar, u32 *in_page) const;

	device_config cfg_{};
	cmd_processor *cmd_ = nullptr;
	eq_engine *eqs_ = nullptr;
	cq_engine *cqs_ = nullptr;
	data_path *dp_ = nullptr;
	u32 first_uar_ = 0;
	u32 num_uars_ = 0;
	u64 boot_ns_ = 0;
	atomic<u32> health_frozen_{0};
	u32 health_last_ = 0;
	u32 health_now(u64 now) const { return u32((now - boot_ns_) >> health_tick_shift); }
};

} // namespace scx::hca
