// SPDX-License-Identifier: GPL-2.0
// The object behind the C handle struct scx_drv, shared by the C API files
// (c_api.cpp, verbs_c_api.cpp).
#pragma once

#include "driver/device.h"
#include "softcx/driver.h"

namespace scx::driver {

// bus::platform over the shim's callbacks. Interrupts: the shim's handler
// calls scx_drv_handle_irq, which finds the handler the driver registered
// for that vector here.
class c_platform final : public bus::platform {
public:
	static constexpr u32 max_vectors = 1 + driver::device::max_comp_eqs;

	c_platform(const scx_drv_params &p, scx_drv *drv) : p_(p), drv_(drv) {}

	void *dma_alloc(usize size, u64 *bus_addr) override { return p_.dma_alloc(p_.ctx, size, bus_addr); }
	void dma_free(void *cpu, usize size, u64 bus_addr) override { p_.dma_free(p_.ctx, cpu, size, bus_addr); }

	int request_irq(u32 vector, const char *name, irq_handler h, void *ctx) override
	{
		if (vector >= max_vectors)
			return -int(errc::inval);
		// Published before the interrupt can fire.
		slots_[vector].ctx = ctx;
		__atomic_store_n(&slots_[vector].handler, h, __ATOMIC_RELEASE);
		int rc = p_.request_irq(p_.ctx, vector, name, drv_);
		if (rc)
			__atomic_store_n(&slots_[vector].handler, irq_handler(nullptr), __ATOMIC_RELEASE);
		return rc;
	}

	void free_irq(u32 vector) override
	{
		if (vector >= max_vectors)
			return;
		p_.free_irq(p_.ctx, vector); // waits for a running handler
		__atomic_store_n(&slots_[vector].handler, irq_handler(nullptr), __ATOMIC_RELEASE);
	}

	void dispatch(u32 vector)
	{
		if (vector >= max_vectors)
			return;
		irq_handler h = __atomic_load_n(&slots_[vector].handler, __ATOMIC_ACQUIRE);
		if (h)
			h(slots_[vector].ctx, vector);
	}

private:
	struct slot {
		irq_handler handler = nullptr;
		void *ctx = nullptr;
	};
	scx_drv_params p_;
	scx_drv *drv_;
	slot slots_[max_vectors];
};

} // namespace scx::driver

struct scx_drv {
	explicit scx_drv(const scx_drv_params &p) : plat(p, this) {}
	scx::driver::c_platform plat;
	scx::driver::device dev;
	char name[24] = {};
};
