// SPDX-License-Identifier: GPL-2.0
// core_cpp/lib and the selfcheck probes on the host env.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "host_env.h"
#include "lib/endian.h"
#include "lib/status.h"
#include "softcx/selfcheck.h"

using namespace scx;

TEST(Endian, FieldsAreBigEndianInMemory)
{
	uint8_t b[4];
	EXPECT_EQ(scx_check_be32(0xa1b2c3d4, b), 0xa1b2c3d4u);
	EXPECT_EQ(b[0], 0xa1);
	EXPECT_EQ(b[3], 0xd4);
	uint8_t b8[8];
	EXPECT_EQ(scx_check_be64(0x1122334455667788ull, b8), 0x1122334455667788ull);
	EXPECT_EQ(b8[0], 0x11);
	EXPECT_EQ(b8[7], 0x88);
	be16 h;
	h.set(0x0102);
	EXPECT_EQ(reinterpret_cast<uint8_t *>(&h)[0], 0x01);
}

TEST(Status, ErrnoRoundTrip)
{
	status s = errc::timedout;
	EXPECT_FALSE(s.is_ok());
	EXPECT_EQ(s.to_errno(), -110);
	result<int> r = 7;
	ASSERT_TRUE(r);
	EXPECT_EQ(*r, 7);
	result<int> e = errc::inval;
	EXPECT_FALSE(e);
	EXPECT_EQ(e.error().to_errno(), -22);
}

TEST(Selfcheck, AllocAndVirtual)
{
	long before = host_env::live_allocations();
	EXPECT_EQ(scx_check_alloc(64, 128), 0);
	EXPECT_EQ(scx_check_virtual(0, 6, 7), 42);
	EXPECT_EQ(scx_check_virtual(1, 9, 0), 81);
	EXPECT_EQ(host_env::live_allocations(), before);
}

TEST(Selfcheck, AtomicsFromThreads)
{
	scx_atomic_probe p{0};
	std::vector<std::thread> t;
	for (int i = 0; i < 4; i++)
		t.emplace_back([&p, i] {
			if (i & 1)
				scx_check_atomic_cas(&p, 20000);
			else
				scx_check_atomic_add(&p, 20000);
		});
	for (auto &th : t)
		th.join();
	EXPECT_EQ(p.counter, 80000u);
}

TEST(Selfcheck, LocksAndWork)
{
	EXPECT_EQ(scx_check_lock_nesting(1000), 1000u);
	EXPECT_EQ(scx_check_work_completion(true, 1000, 5000), 0);
	EXPECT_EQ(scx_check_work_completion(false, 0, 20), -110);
	EXPECT_EQ(host_env::sleep_in_atomic_count(), 0u);
	EXPECT_EQ(host_env::bug_count(), 0u);
}

TEST(HostEnv, DmaTranslationRefusesUnknownMemory)
{
	uint64_t dma = 0;
	void *p = scx_env_dma_alloc(8192, &dma);
	ASSERT_NE(p, nullptr);
	EXPECT_EQ(scx_env_dma_to_cpu(nullptr, dma + 100, 16), static_cast<char *>(p) + 100);
	EXPECT_EQ(scx_env_dma_to_cpu(nullptr, dma + 8190, 16), nullptr);
	int local = 0;
	EXPECT_EQ(scx_env_dma_to_cpu(nullptr, reinterpret_cast<uintptr_t>(&local), 4), nullptr);
	scx_env_dma_free(p, 8192, dma);
	EXPECT_EQ(scx_env_dma_to_cpu(nullptr, dma, 16), nullptr);
}
