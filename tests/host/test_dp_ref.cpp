// SPDX-License-Identifier: GPL-2.0
// Payloads by reference on the in-kernel link: an RC SEND or WRITE packet
// between two QPs of one port names the requester's message instead of
// carrying it, and the responder copies from there (one copy). The same
// packets, PSNs and checks run as with bytes; a packet whose message went
// away before it was taken is lost, never read (fixture: dp_fixture.h).
#include "dp_fixture.h"
#include "lib/sync.h"

namespace {

constexpr unsigned dp_lock = unsigned(scx::lock_class::hca_dp);
constexpr u32 mtu = 1024;   // the fixture's path MTU

class DpRef : public Dp {
protected:
	u64 by_ref() { return dp_stats().tx_by_ref; }
	// Polls until c has n CQEs and returns them.
	std::vector<cqe_t> wait(cq_t &c, size_t n)
	{
		std::vector<cqe_t> got;
		pump_until([&] {
			for (auto &e : drain(c))
				got.push_back(e);
			return got.size() >= n;
		});
		EXPECT_EQ(got.size(), n);
		return got;
	}
};

TEST_F(DpRef, RcPayloadsBetweenQpsOfOnePortGoByReference)
{
	pair_t p = pair();
	constexpr u32 big = 64 * 1024, msg = 4 * 1024;
	mr_t &src = make_mr(big, 0);
	mr_t &dst = make_mr(big, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	mr_t &rbuf = make_mr(msg, SCX_ACCESS_LOCAL_WRITE);
	fill(src.cpu(), big, 3);

	u64 r0 = by_ref();
	post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).data(src.va(), big, src.key));
	EXPECT_EQ(wait(*p.as, 1)[0].opcode(), cqe_op::req);
	EXPECT_EQ(std::memcmp(dst.cpu(), src.cpu(), big), 0);
	EXPECT_EQ(by_ref() - r0, big / mtu);

	// A SEND across two receive SGEs, its payload named packet by packet.
	u64 r1 = by_ref();
	post_recv(*p.b, {{rbuf.va(), 1000, rbuf.key}, {rbuf.va(1000), msg - 1000, rbuf.key}});
	post_send(*p.a, op::send, wqe_b().data(src.va(5), msg, src.key));
	EXPECT_EQ(wait(*p.br, 1)[0].byte_cnt(), msg);
	wait(*p.as, 1);
	EXPECT_EQ(std::memcmp(rbuf.cpu(), src.cpu() + 5, msg), 0);
	EXPECT_EQ(by_ref() - r1, msg / mtu);

	// Below tp_ref_min the bytes travel: naming them costs as much.
	u64 r2 = by_ref();
	post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).data(src.va(7), 100, src.key));
	wait(*p.as, 1);
	EXPECT_EQ(std::memcmp(dst.cpu(), src.cpu() + 7, 100), 0);
	EXPECT_EQ(by_ref(), r2);

	// Turned off (dp_payload_ref=0): the same messages, carried.
	scx_hca_dp_payload_ref(hca, false);
	std::memset(dst.cpu(), 0, big);
	post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).data(src.va(), big, src.key));
	wait(*p.as, 1);
	EXPECT_EQ(std::memcmp(dst.cpu(), src.cpu(), big), 0);
	EXPECT_EQ(by_ref(), r2);
	scx_hca_dp_payload_ref(hca, true);
	EXPECT_TRUE(guards_intact(dst));
	EXPECT_TRUE(guards_intact(rbuf));
	EXPECT_EQ(dp_stats().rx_stale_ref, 0u);
}

// A WQE with inline data fetched while the packets of the one before it
// wait in the ring: those still find their own message's list (the list
// cache does not keep naming a WQE whose list was overwritten).
TEST_F(DpRef, AnInlineWqeAfterAMessageLeavesItsListAlone)
{
	pair_t p = pair();
	constexpr u32 len = 8 * 1024;
	mr_t &src = make_mr(len, 0);
	mr_t &dst = make_mr(len, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	mr_t &rbuf = make_mr(64, SCX_ACCESS_LOCAL_WRITE);
	fill(src.cpu(), len, 4);
	const u8 hello[16] = "inline payload";
	post_recv(*p.b, {{rbuf.va(), 64, rbuf.key}});
	send_opts quiet;
	quiet.ring = false;
	post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).data(src.va(), len, src.key), quiet);
	post_send(*p.a, op::send, wqe_b().inl(hello, sizeof(hello)));
	auto e = wait(*p.as, 2);
	for (auto &c : e)
		EXPECT_EQ(c.opcode(), cqe_op::req);
	EXPECT_EQ(wait(*p.br, 1)[0].byte_cnt(), sizeof(hello));
	EXPECT_EQ(std::memcmp(dst.cpu(), src.cpu(), len), 0);
	EXPECT_EQ(std::memcmp(rbuf.cpu(), hello, sizeof(hello)), 0);
	EXPECT_EQ(dp_stats().rx_stale_ref, 0u);
	EXPECT_EQ(dp_stats().retries, 0u);
}

// UC completes a message once it is sent: its memory is the user's again
// before the responder takes the packets, so UC always carries bytes.
TEST_F(DpRef, UcCarriesItsBytes)
{
	pair_t p = pair(SCX_QPT_UC);
	constexpr u32 len = 8 * 1024;
	mr_t &src = make_mr(len, 0);
	mr_t &dst = make_mr(len, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	fill(src.cpu(), len, 9);
	u64 r0 = by_ref();
	post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).data(src.va(), len, src.key));
	wait(*p.as, 1);
	pump();
	EXPECT_EQ(std::memcmp(dst.cpu(), src.cpu(), len), 0);
	EXPECT_EQ(by_ref(), r0);
}

// The source key goes while the message's first packet waits in the ring
// (the pass let the lock go after it, as for a waiting command): that
// packet is lost and counted, nothing reads the freed memory, and the
// requester fails the WQE with LOC_PROT as it does without references.
TEST_F(DpRef, AMessageWhoseKeyWentIsLostNotRead)
{
	pair_t p = pair();
	constexpr u32 len = 16 * 1024;
	mr_t &src = make_mr(len, 0);
	mr_t &dst = make_mr(len, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	fill(src.cpu(), len, 5);
	std::memset(dst.cpu(), 0, len);
	pump();
	u64 r0 = by_ref(), stale0 = dp_stats().rx_stale_ref;
	unsigned long refused0 = host_env::dma_refused();
	bool gone = false;
	// After the first unlock that follows a packet by reference.
	std::function<void()> hook = [&] {
		if (by_ref() == r0) {
			host_env::after_unlock(dp_lock, hook);
			return;
		}
		destroy_mr(src);
		gone = true;
	};
	host_env::after_unlock(dp_lock, hook);
	host_env::force_contended(true);
	post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).data(src.va(), len, src.key));
	auto e = wait(*p.as, 1);
	host_env::force_contended(false);
	host_env::after_unlock(dp_lock, nullptr);
	ASSERT_TRUE(gone);
	ASSERT_EQ(e.size(), 1u);
	EXPECT_EQ(e[0].opcode(), cqe_op::req_err);
	EXPECT_EQ(e[0].syndrome(), synd::loc_prot);
	EXPECT_EQ(by_ref() - r0, 1u);
	EXPECT_EQ(dp_stats().rx_stale_ref - stale0, 1u);
	for (u32 i = 0; i < len; i++)
		ASSERT_EQ(dst.cpu()[i], 0) << i;
	EXPECT_EQ(host_env::dma_refused(), refused0);
	EXPECT_EQ(host_env::bug_count(), 0u);
}

// A source page the IOMMU refuses under a valid key (the driver left its
// MTT entry 0): the packets from there are gathered, not named, and the
// gather fails the WQE with LOC_PROT at once, as without references. Named,
// each would be lost at the responder and sent again until the retries ran
// out: RETRY_EXC_ERR, the wrong error, after every timeout. (It failed so
// before dp_link::tx_ref checked the bytes map.)
TEST_F(DpRef, ASourcePageTheIommuRefusesFailsWithLocProt)
{
	rc_opts o;
	o.retry_cnt = 1;
	o.timeout = 10;
	pair_t p = pair(SCX_QPT_RC, o, o);
	constexpr u32 len = 3 * 4096, good = 2 * 4096;
	mr_t &src = make_mr(len, 0, 0, mtt_bug::mtt_hole);
	mr_t &dst = make_mr(len, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	fill(src.cpu(), len, 6);
	std::memset(dst.cpu(), 0, len);
	pump();
	u64 r0 = by_ref(), stale0 = dp_stats().rx_stale_ref;
	post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).data(src.va(), len, src.key));
	auto e = wait(*p.as, 1);
	ASSERT_EQ(e.size(), 1u);
	EXPECT_EQ(e[0].opcode(), cqe_op::req_err);
	EXPECT_EQ(e[0].syndrome(), synd::loc_prot);
	EXPECT_EQ(by_ref() - r0, good / mtu); // the mapped pages' packets
	// Each of those was written whole, or taken after the WQE failed
	// and lost (counted); nothing of the refused page came.
	u64 written = 0;
	for (u32 at = 0; at < good; at += mtu) {
		bool whole = !std::memcmp(dst.cpu() + at, src.cpu() + at, mtu);
		written += whole;
		for (u32 i = at; !whole && i < at + mtu; i++)
			ASSERT_EQ(dst.cpu()[i], 0) << i;
	}
	EXPECT_EQ(written + dp_stats().rx_stale_ref - stale0, good / mtu);
	for (u32 i = good; i < len; i++)
		ASSERT_EQ(dst.cpu()[i], 0) << i;
	EXPECT_EQ(host_env::bug_count(), 0u);
}

} // namespace
