// SPDX-License-Identifier: GPL-2.0
// The UAR pages user space rings doorbells in, seen from the hca: only the
// pages of allocated UARs are watched, a store is counted as it lands (what
// a doorbell trap waits for before re-arming), and a store to a freed UAR's
// page is not a doorbell.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "c_machine.h"
#include "softcx/verbs.h"

namespace {

class UarWindow : public CMachine {
protected:
	uint64_t doorbells()
	{
		scx_hca_dp_stats s{};
		scx_hca_get_dp_stats(hca, &s);
		return s.doorbells;
	}
	// A doorbell as libmlx5 rings one: 8 bytes, big-endian, at +off.
	static void ring(void *page, uint32_t off, uint64_t v)
	{
		uint8_t b[8];
		for (int i = 0; i < 8; i++)
			b[i] = uint8_t(v >> (56 - 8 * i));
		std::memcpy(static_cast<uint8_t *>(page) + off, b, 8);
	}
};

TEST_F(UarWindow, OnlyAllocatedPagesAreWatchedAndStoresAreCounted)
{
	start();
	uint32_t uar = 0;
	ASSERT_EQ(scx_verbs_alloc_uar(drv, 0, &uar), 0);
	void *page = scx_hca_uar_page(hca, uar);
	ASSERT_NE(page, nullptr);

	uint32_t before = scx_hca_uar_stores(hca, uar);
	uint64_t db = doorbells();
	ring(page, 0x800, 0x0000010a00000102ull);
	// Landed but not yet taken: already counted.
	EXPECT_EQ(scx_hca_uar_stores(hca, uar), before + 1);
	scx_hca_poll(hca);
	EXPECT_EQ(doorbells(), db + 1);
	EXPECT_EQ(scx_hca_uar_stores(hca, uar), before + 1); // taken, still counted once
	ring(page, 0x20, 0x1000000000000005ull);
	ring(page, 0x900, 0x0000020a00000202ull);
	scx_hca_poll(hca);
	EXPECT_EQ(doorbells(), db + 3);
	EXPECT_EQ(scx_hca_uar_stores(hca, uar), before + 3);

	// Freed: the page is no longer watched.
	ASSERT_EQ(scx_verbs_dealloc_uar(drv, uar), 0);
	ring(page, 0x800, 0x0000030a00000302ull);
	scx_hca_poll(hca);
	EXPECT_EQ(doorbells(), db + 3);
	// Allocated again (the pool hands out the next number; the page of
	// this one stays the hca's), a store there is a doorbell once more.
	uint32_t again = 0;
	ASSERT_EQ(scx_verbs_alloc_uar(drv, 0, &again), 0);
	void *p2 = scx_hca_uar_page(hca, again);
	ASSERT_NE(p2, nullptr);
	ring(p2, 0x800, 0x0000040a00000402ull);
	scx_hca_poll(hca);
	EXPECT_EQ(doorbells(), db + 4);
	ASSERT_EQ(scx_verbs_dealloc_uar(drv, again), 0);
	// An unknown UAR has no page and no stores.
	EXPECT_EQ(scx_hca_uar_page(hca, 0xffffff), nullptr);
	EXPECT_EQ(scx_hca_uar_stores(hca, 0xffffff), 0u);
}

} // namespace
