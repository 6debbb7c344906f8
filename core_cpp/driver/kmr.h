// SPDX-License-Identifier: GPL-2.0
// A fast-registration key (the role of mlx5_ib's ib_alloc_mr MRs): an
// MTT-mode key created free with UMR enabled, and a page list in DMA memory
// that REG_MR work requests (kqp) hand to the device by address.
#pragma once

#include "driver/device.h"
#include "softcx/kverbs.h"

namespace scx::driver {

class kmr {
public:
	kmr() = default;
	kmr(const kmr &) = delete;
	kmr &operator=(const kmr &) = delete;
	~kmr();

	status create(device &dev, bus::platform &plat, u32 pdn, u32 max_pages);
	// DESTROY_MKEY, then the list goes; if the command fails the list is
	// kept (the device may still read it) and this object must be leaked.
	status destroy();
	status set_pages(const u64 *pages, u32 n, u32 page_shift, u64 iova, u64 length);

	u32 key() const { return key_; }
	// What a REG_MR carries: the list (bus address, entries) and range.
	u64 list_bus() const { return list_dma_; }
	u32 entries() const { return n_; }
	u32 page_shift() const { return page_shift_; }
	u64 iova() const { return iova_; }
	u64 length() const { return length_; }

private:
	void free_list();

	device *dev_ = nullptr;
	bus::platform *plat_ = nullptr;
	bool created_ = false;
	u32 key_ = 0;
	u32 cap_ = 0;             // entries the list (and the key) hold
	u8 *list_ = nullptr;      // big-endian MTT entries
	u64 list_dma_ = 0;
	usize list_bytes_ = 0;
	u32 n_ = 0, page_shift_ = 12;
	u64 iova_ = 0, length_ = 0;
};

} // namespace scx::driver

// The C handle (softcx/kverbs.h).
struct scx_kmr {
	scx::driver::kmr m;
};
