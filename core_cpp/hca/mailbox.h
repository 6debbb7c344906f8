// SPDX-License-Identifier: GPL-2.0
// A chain of command mailboxes (prm::cmd_if_box) as the device walks it:
// validated once before the command runs (mapping, alignment, block numbers,
// token, signatures), then read or written as one flat byte range of
// 512-byte data blocks. A cursor makes sequential access O(1) per block.
#pragma once

#include "lib/bus.h"
#include "lib/types.h"

namespace scx::hca {

class mailbox_chain {
public:
	void bind(bus::dma_space &dma) { dma_ = &dma; }

	// Walk nblocks starting at first; 0 (delivery OK) or the
	// prm::delivery_stat code describing the first defect.
	u8 validate(u64 first, u32 nblocks, u8 token, bool input);

	// Data bytes [off, off + len) of the chain; false if a block vanished
	// since validation (the driver unmapped it under the device).
	bool read(u32 off, void *dst, u32 len);
	bool write(u32 off, const void *src, u32 len);
	// Recompute both signatures of every block (after writing output).
	bool seal();

	u32 blocks() const { return n_; }

private:
	u8 *block(u32 i);
	static u64 next_of(const u8 *blk);

	bus::dma_space *dma_ = nullptr;
	u64 first_ = 0;
	u32 n_ = 0;
	u32 cur_i_ = 0;
	u64 cur_addr_ = 0;
};

} // namespace scx::hca
