// SPDX-License-Identifier: GPL-2.0
/*
 * A software IOMMU for softcx functions. Each function is a device on the
 * "softcx" bus whose dma_map_ops hand out IOVAs and record, per IOVA page,
 * which physical page it stands for. The hca turns a bus address into a
 * pointer only through that table (scx_env_dma_to_cpu), so a driver bug
 * (an MTT entry never written, a page list shorter than its region) ends in
 * a refused access, counted and logged once, instead of a stray one.
 *
 * IOVA space is allocated in naturally aligned power-of-two blocks and never
 * reused; each block's pages map onto the physically contiguous pages of one
 * mapping (one sg segment, one coherent buffer, one mapped page range).
 */
#include "kmod.h"

#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "softcx/env.h"
#include "iommu.h"

#ifndef CONFIG_DMA_OPS
#error "softcx needs CONFIG_DMA_OPS: its IOMMU is a device's dma_map_ops"
#endif

/* IOVAs start at 1 TiB: no physical address or zero-filled entry is one. */
#define SCX_IOVA_FIRST_PFN (1ULL << (40 - PAGE_SHIFT))
#define SCX_ORDER_BITS 6

static struct scx_dma_domain *dev_dom(struct device *dev)
{
	return &container_of(dev, struct scx_fn, dev)->dom;
}

static unsigned long iova_alloc(struct scx_dma_domain *dom, unsigned long npages, unsigned int *order)
{
	u64 old, start;

	*order = order_base_2(npages);
	old = atomic64_read(&dom->next_pfn);
	do {
		start = ALIGN(old, 1ULL << *order);
	} while (!atomic64_try_cmpxchg(&dom->next_pfn, &old, start + npages));
	return start;
}

/* Store `entry` for IOVA pages [first, first + n) in aligned chunks. */
static int iova_store(struct scx_dma_domain *dom, unsigned long first, unsigned long n, void *entry)
{
	unsigned long pfn = first, end = first + n, flags;

	while (pfn < end) {
		/* Multi-page entries need CONFIG_XARRAY_MULTI; else page by page. */
		unsigned int order = !IS_ENABLED(CONFIG_XARRAY_MULTI) ? 0 :
				     min_t(unsigned int, __ffs(pfn), ilog2(end - pfn));
		XA_STATE_ORDER(xas, &dom->pages, pfn, order);

		do {
			xas_lock_irqsave(&xas, flags);
			xas_store(&xas, entry);
			xas_unlock_irqrestore(&xas, flags);
		} while (xas_nomem(&xas, GFP_ATOMIC | __GFP_NOWARN));
		if (xas_error(&xas))
			return xas_error(&xas);
		pfn += 1UL << order;
	}
	return 0;
}

static dma_addr_t dom_map(struct scx_dma_domain *dom, phys_addr_t phys, size_t size)
{
	unsigned long npages = PFN_UP(offset_in_page(phys) + size);
	unsigned int order;
	unsigned long iova;
	void *entry;

	if (!size || atomic_add_unless(&dom->fail_next_map, -1, 0))
		return DMA_MAPPING_ERROR;
	iova = iova_alloc(dom, npages, &order);
	entry = xa_mk_value(PHYS_PFN(phys) << SCX_ORDER_BITS | order);
	if (iova_store(dom, iova, npages, entry)) {
		iova_store(dom, iova, npages, NULL);
		return DMA_MAPPING_ERROR;
	}
	atomic64_add(npages, &dom->mapped_pages);
	atomic64_inc(&dom->mappings);
	return PFN_PHYS(iova) + offset_in_page(phys);
}

/* The physical page behind IOVA page `pfn`, or 0 when nothing is mapped. */
static unsigned long dom_lookup(struct scx_dma_domain *dom, unsigned long pfn)
{
	void *entry = xa_load(&dom->pages, pfn);
	unsigned long v, order;

	if (!xa_is_value(entry))
		return 0;
	v = xa_to_value(entry);
	order = v & ((1UL << SCX_ORDER_BITS) - 1);
	return (v >> SCX_ORDER_BITS) + (pfn & ((1UL << order) - 1));
}

static void dom_unmap(struct scx_dma_domain *dom, dma_addr_t dma, size_t size)
{
	unsigned long first = PHYS_PFN(dma), npages = PFN_UP(offset_in_page(dma) + size), i;

	for (i = 0; i < npages; i++) {
		if (!dom_lookup(dom, first + i)) {
			atomic64_inc(&dom->bad_unmaps);
			WARN_ONCE(1, "softcx: %s: unmap of unmapped IOVA %#llx+%zu\n", dom->name,
				  (u64)dma, size);
			return;
		}
	}
	iova_store(dom, first, npages, NULL);
	atomic64_sub(npages, &dom->mapped_pages);
	atomic64_dec(&dom->mappings);
}

void *scx_env_dma_to_cpu(struct scx_dma_domain *dom, uint64_t dma, size_t len)
{
	unsigned long first = PHYS_PFN(dma), n, i, ppfn = 0;
	u64 last;

	if (!len || check_add_overflow(dma, (u64)len - 1, &last))
		goto refuse;
	n = PHYS_PFN(last) - first + 1;
	for (i = 0; i < n; i++) {
		unsigned long p = dom_lookup(dom, first + i);

		/* Every page mapped, and the run physically contiguous. */
		if (!p || (i && p != ppfn + i))
			goto refuse;
		if (!i)
			ppfn = p;
	}
	return (u8 *)page_address(pfn_to_page(ppfn)) + offset_in_page(dma);

refuse:
	atomic64_inc(&dom->refused);
	if (!atomic_xchg(&dom->logged, 1))
		pr_warn("softcx: %s: IOMMU refused a device access to %#llx+%zu (not mapped for it); further refusals are only counted\n",
			dom->name, dma, len);
	return NULL;
}

static void *scx_dma_alloc(struct device *dev, size_t size, dma_addr_t *dma, gfp_t gfp,
			   unsigned long attrs)
{
	void *cpu = alloc_pages_exact(PAGE_ALIGN(size), (gfp & ~__GFP_HIGHMEM) | __GFP_ZERO);

	if (!cpu)
		return NULL;
	*dma = dom_map(dev_dom(dev), virt_to_phys(cpu), PAGE_ALIGN(size));
	if (*dma == DMA_MAPPING_ERROR) {
		free_pages_exact(cpu, PAGE_ALIGN(size));
		return NULL;
	}
	return cpu;
}

static void scx_dma_free(struct device *dev, size_t size, void *cpu, dma_addr_t dma,
			 unsigned long attrs)
{
	dom_unmap(dev_dom(dev), dma, PAGE_ALIGN(size));
	free_pages_exact(cpu, PAGE_ALIGN(size));
}

static dma_addr_t scx_map_page(struct device *dev, struct page *page, unsigned long offset,
			       size_t size, enum dma_data_direction dir, unsigned long attrs)
{
	return dom_map(dev_dom(dev), page_to_phys(page) + offset, size);
}

static void scx_unmap_page(struct device *dev, dma_addr_t dma, size_t size,
			   enum dma_data_direction dir, unsigned long attrs)
{
	dom_unmap(dev_dom(dev), dma, size);
}

static void scx_unmap_sg(struct device *dev, struct scatterlist *sgl, int nents,
			 enum dma_data_direction dir, unsigned long attrs)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i)
		dom_unmap(dev_dom(dev), sg_dma_address(sg), sg_dma_len(sg));
}

/* One IOVA block per segment: segments are never merged. */
static int scx_map_sg(struct device *dev, struct scatterlist *sgl, int nents,
		      enum dma_data_direction dir, unsigned long attrs)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i) {
		sg_dma_address(sg) = dom_map(dev_dom(dev), sg_phys(sg), sg->length);
		if (sg_dma_address(sg) == DMA_MAPPING_ERROR) {
			scx_unmap_sg(dev, sgl, i, dir, attrs);
			return -ENOMEM;
		}
		sg_dma_len(sg) = sg->length;
	}
	return nents;
}

static int scx_dma_supported(struct device *dev, u64 mask)
{
	return mask == DMA_BIT_MASK(64);
}

static const struct dma_map_ops scx_dma_ops = {
	.alloc = scx_dma_alloc,
	.free = scx_dma_free,
	.map_page = scx_map_page,
	.unmap_page = scx_unmap_page,
	.map_sg = scx_map_sg,
	.unmap_sg = scx_unmap_sg,
	.dma_supported = scx_dma_supported,
};

/*
 * The function's identity in sysfs, as a ConnectX PCI function shows it
 * (vendor, device): software that recognises a ConnectX by the parent of
 * its ib_device (UCX's mlx5 transports) finds one. No PCI function is
 * faked, so no PCI driver (mlx5_core) can ever bind to it.
 */
#define SCX_PCI_VENDOR_MELLANOX 0x15b3

static ssize_t vendor_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", SCX_PCI_VENDOR_MELLANOX);
}
static DEVICE_ATTR_RO(vendor);

static ssize_t device_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", container_of(dev, struct scx_fn, dev)->pci_device);
}
static DEVICE_ATTR_RO(device);

static struct attribute *scx_fn_attrs[] = {
	&dev_attr_vendor.attr,
	&dev_attr_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(scx_fn);

static struct bus_type scx_bus = {
	.name = "softcx",
	.dev_groups = scx_fn_groups,
};

int scx_bus_init(void)
{
	return bus_register(&scx_bus);
}

void scx_bus_exit(void)
{
	bus_unregister(&scx_bus);
}

static void scx_fn_release(struct device *dev)
{
	struct scx_fn *fn = container_of(dev, struct scx_fn, dev);

	/* Every mapping the driver made is gone by now; one left is a leak. */
	WARN_ONCE(atomic64_read(&fn->dom.mappings), "softcx: %s: %lld DMA mappings leaked\n",
		  dev_name(dev), (s64)atomic64_read(&fn->dom.mappings));
	xa_destroy(&fn->dom.pages);
	kfree(fn);
}

struct scx_fn *scx_fn_create(const char *name, u16 pci_device)
{
	struct scx_fn *fn = kzalloc(sizeof(*fn), GFP_KERNEL);
	int err;

	if (!fn)
		return ERR_PTR(-ENOMEM);
	xa_init_flags(&fn->dom.pages, XA_FLAGS_LOCK_IRQ);
	atomic64_set(&fn->dom.next_pfn, SCX_IOVA_FIRST_PFN);
	fn->pci_device = pci_device;
	device_initialize(&fn->dev);
	fn->dev.bus = &scx_bus;
	fn->dev.release = scx_fn_release;
	fn->dev.dma_parms = &fn->dma_parms;
	fn->dev.dma_mask = &fn->dev.coherent_dma_mask;
	set_dma_ops(&fn->dev, &scx_dma_ops);
	err = dma_set_mask_and_coherent(&fn->dev, DMA_BIT_MASK(64));
	if (!err)
		err = dma_set_max_seg_size(&fn->dev, UINT_MAX);
	if (!err)
		err = dev_set_name(&fn->dev, "%s", name);
	if (!err)
		err = device_add(&fn->dev);
	if (err) {
		put_device(&fn->dev);
		return ERR_PTR(err);
	}
	fn->dom.name = dev_name(&fn->dev);
	return fn;
}

void scx_fn_destroy(struct scx_fn *fn)
{
	device_unregister(&fn->dev);
}
