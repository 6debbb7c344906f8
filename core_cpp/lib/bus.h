// SPDX-License-Identifier: GPL-2.0
// What a PCIe function and its driver share, and nothing more: register
// accesses to BAR0, memory addressed by bus address, and interrupt vectors.
// The driver (core_cpp/driver) and the hca (core_cpp/hca) meet only here;
// neither ever calls the other's objects.
#pragma once

#include "lib/types.h"

namespace scx::bus {

// BAR0 as the driver sees it: the init segment at offset 0 and UAR pages at
// (index * 4096). Values are in CPU order; the device stores them big-endian,
// as ioread32be/iowrite32be do.
class mmio {
public:
	virtual u32 read32(u32 offset) = 0;
	virtual void write32(u32 offset, u32 value) = 0;
	virtual void write64(u32 offset, u64 value) = 0;

protected:
	~mmio() = default;
};

// How the device reaches memory: a bus address range becomes a pointer, or
// null (an IOMMU fault) when nothing was mapped there.
class dma_space {
public:
	virtual void *map(u64 bus_addr, usize len) = 0;

protected:
	~dma_space() = default;
};

// Device -> host interrupts (MSI-X vectors).
class irq_sink {
public:
	virtual void raise(u32 vector) = 0;

protected:
	~irq_sink() = default;
};

// Driver-side platform services: device-visible memory and interrupt
// registration. kmod/ implements it with pages and request_irq; tests with
// host memory and direct calls.
class platform {
public:
	virtual void *dma_alloc(usize size, u64 *bus_addr) = 0;
	virtual void dma_free(void *cpu, usize size, u64 bus_addr) = 0;
	// Afterwards, an interrupt on `vector` calls handler(ctx, vector) in
	// hardirq context; returns 0 or a negative errno.
	using irq_handler = void (*)(void *ctx, u32 vector);
	virtual int request_irq(u32 vector, const char *name, irq_handler handler, void *ctx) = 0;
	virtual void free_irq(u32 vector) = 0;

protected:
	~platform() = default;
};

} // namespace scx::bus
