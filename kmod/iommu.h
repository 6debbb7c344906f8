/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SOFTCX_IOMMU_H
#define SOFTCX_IOMMU_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/xarray.h>

/*
 * The IOMMU domain of one softcx function: the only memory its hca may
 * reach is what its driver mapped through the DMA API on the function's
 * device (scx_fn_dev()). Bus addresses are IOVAs, never physical addresses.
 */
struct scx_dma_domain {
	struct xarray pages;	/* IOVA page -> xa_mk_value(phys page << 6 | block order) */
	atomic64_t next_pfn;	/* IOVA pages are handed out once, never reused */
	atomic64_t mapped_pages;
	atomic64_t mappings;
	atomic64_t refused;	/* device accesses outside every mapping */
	atomic64_t bad_unmaps;	/* driver unmapped what it had not mapped */
	atomic_t logged;	/* the first refusal is logged, the rest counted */
	/* Test switch: refuse the next mapping of the driver (map error) */
	atomic_t fail_next_map;
	const char *name;
};

/* The function's device: parent of its ib_device and its DMA device. */
struct scx_fn {
	struct device dev;
	u16 pci_device;		/* the ConnectX device id it shows in sysfs */
	struct device_dma_parameters dma_parms;
	struct scx_dma_domain dom;
};

int scx_bus_init(void);
void scx_bus_exit(void);
/*
 * A new function device named `name`, registered on the softcx bus, with
 * the identity of a ConnectX function whose PCI device id is pci_device.
 */
struct scx_fn *scx_fn_create(const char *name, u16 pci_device);
void scx_fn_destroy(struct scx_fn *fn);

#endif
