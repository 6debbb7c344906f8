// SPDX-License-Identifier: GPL-2.0
// The receive ring as the in-kernel link uses it: a packet is built in
// room the ring reserved, so reservations keep their order whatever order
// they are committed in, an abandoned one is no packet and frees its room,
// and a full ring refuses (and counts) what does not fit.
#include <gtest/gtest.h>

#include <cstring>

#include "hca/dp_ring.h"

using scx::hca::dp_ring;
using scx::hca::dp_rx_pkt;

namespace {

struct Ring : ::testing::Test {
	dp_ring r;
	void SetUp() override { ASSERT_TRUE(r.init(4, 3).ok()); }

	// Builds a one-byte packet tagged v in reserved room.
	bool build(uint8_t v, uint32_t *ticket)
	{
		uint8_t *b = r.reserve(1, ticket);
		if (!b)
			return false;
		b[0] = v;
		return true;
	}
	int take()
	{
		dp_rx_pkt *p = r.front();
		if (!p)
			return -1;
		int v = p->data[0];
		r.pop();
		return v;
	}
};

TEST_F(Ring, AReservationHoldsBackThoseAfterItUntilCommitted)
{
	uint32_t a, b;
	ASSERT_TRUE(build(1, &a));
	ASSERT_TRUE(build(2, &b));
	r.commit(b, 1, nullptr, 4);
	EXPECT_EQ(r.front(), nullptr);   // 2 is ready, 1 is not
	r.commit(a, 1, nullptr, 4);
	EXPECT_EQ(take(), 1);
	EXPECT_EQ(take(), 2);
	EXPECT_EQ(take(), -1);
}

TEST_F(Ring, AnAbandonedReservationIsNoPacketAndFreesItsRoom)
{
	uint32_t a, b, c;
	ASSERT_TRUE(build(1, &a));
	ASSERT_TRUE(build(2, &b));
	ASSERT_TRUE(build(3, &c));
	EXPECT_TRUE(r.full());   // three copies, all reserved
	r.abandon(b);
	r.commit(a, 1, nullptr, 4);
	r.commit(c, 1, nullptr, 4);
	EXPECT_EQ(take(), 1);
	EXPECT_EQ(take(), 3);    // 2 passed over
	EXPECT_EQ(take(), -1);
	EXPECT_FALSE(r.full());
	for (uint8_t v = 4; v < 7; v++) {   // all three copies free again
		uint32_t t;
		ASSERT_TRUE(build(v, &t)) << int(v);
		r.commit(t, 1, nullptr, 6);
	}
	dp_rx_pkt *p = r.front();
	ASSERT_NE(p, nullptr);
	EXPECT_EQ(p->l3, 6);
	EXPECT_EQ(r.dropped(), 0u);
}

TEST_F(Ring, AFullRingRefusesAndCounts)
{
	uint32_t t[3];
	for (auto &x : t)
		ASSERT_TRUE(build(9, &x));
	uint32_t more;
	EXPECT_EQ(r.reserve(1, &more), nullptr);
	uint8_t pkt[1] = {7};
	EXPECT_FALSE(r.push(pkt, 1, nullptr, 4));
	EXPECT_EQ(r.dropped(), 2u);
	EXPECT_EQ(r.reserve(dp_ring::max_pkt + 1, &more), nullptr);
	for (auto x : t)
		r.commit(x, 1, nullptr, 4);
	EXPECT_EQ(take(), 9);
	EXPECT_TRUE(r.push(pkt, 1, nullptr, 4));
}

// A lent frame (the wire's) takes an entry but none of the copies.
TEST_F(Ring, LentFramesTakeNoCopy)
{
	uint8_t frame[1] = {5};
	uint32_t a;
	ASSERT_TRUE(build(1, &a));
	ASSERT_TRUE(r.lend(frame, 1, nullptr, 4, frame));
	r.commit(a, 1, nullptr, 4);
	EXPECT_EQ(take(), 1);
	dp_rx_pkt *p = r.front();
	ASSERT_NE(p, nullptr);
	EXPECT_EQ(p->frame, frame);
	EXPECT_EQ(r.pop(), frame);
}

} // namespace
