// SPDX-License-Identifier: GPL-2.0
// The packet engine's cost natively, with no emulator in the way: the
// core built at -O2 without sanitizers, loopback through data_path, the
// host tests' Dp fixture playing libmlx5 (WQEs, doorbell, CQ polling) and
// the writer's trap (scx_hca_uar_store). Each figure is the median of
// five runs; a message is posted, rung and polled to its completion
// before the next, so each is one message's whole round: WQE fetch,
// packets, responder, ACK, completer, CQEs. A yardstick for work on the
// engine, whose guest figures swing with the emulator run to run.
#include "dp_fixture.h"

#include <algorithm>
#include <cstdio>

namespace {

using clk = std::chrono::steady_clock;

class Engine : public Dp {
protected:
	// Polls (as the poller would) until n CQEs are in c.
	void wait_cqes(cq_t &c, size_t n)
	{
		size_t got = 0;
		for (int spins = 0; got < n && spins < 1000000; spins++) {
			got += drain(c).size();
			if (got < n)
				scx_hca_poll(hca);
		}
		ASSERT_EQ(got, n);
	}
	// Median µs per message of five runs of n messages, each posted by
	// post() and completed when done() returns.
	template <typename Post, typename Done> double per_msg(int n, Post post, Done done)
	{
		std::vector<double> runs;
		for (int r = 0; r < 5; r++) {
			auto t0 = clk::now();
			for (int i = 0; i < n; i++) {
				post();
				scx_hca_uar_store(hca, uar, nullptr);
				done();
			}
			runs.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count() / n);
		}
		std::sort(runs.begin(), runs.end());
		return runs[2];
	}
	void report(const char *what, double us, const char *extra = "")
	{
		std::printf("%-30s %9.3f us/message%s\n", what, us, extra);
	}
};

TEST_F(Engine, WriteSendAtomic)
{
	pair_t p = pair();
	constexpr u32 big = 64 * 1024;
	mr_t &src = make_mr(big, 0);
	mr_t &dst = make_mr(big, SCX_ACCESS_LOCAL_WRITE | all_remote);
	mr_t &rbuf = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	fill(src.cpu(), big, 1);

	double w2 = per_msg(20000, [&] {
		post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).data(src.va(), 2, src.key));
	}, [&] { wait_cqes(*p.as, 1); });
	report("rdma_write 2 B", w2);

	double w64k = per_msg(500, [&] {
		post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).data(src.va(), big, src.key));
	}, [&] { wait_cqes(*p.as, 1); });
	char extra[64];
	std::snprintf(extra, sizeof(extra), " (path MTU 1024: %.3f us a packet, %.0f MB/s)", w64k / 64,
		      big / w64k);
	report("rdma_write 64 KiB", w64k, extra);
	EXPECT_EQ(std::memcmp(dst.cpu(), src.cpu(), big), 0);

	// The same with the payload in every packet (dp_payload_ref=0): two
	// copies instead of one.
	scx_hca_dp_payload_ref(hca, false);
	double w64c = per_msg(500, [&] {
		post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).data(src.va(), big, src.key));
	}, [&] { wait_cqes(*p.as, 1); });
	scx_hca_dp_payload_ref(hca, true);
	std::snprintf(extra, sizeof(extra), " (payload carried: %.3f us a packet, %.0f MB/s)", w64c / 64,
		      big / w64c);
	report("rdma_write 64 KiB", w64c, extra);

	double s2 = per_msg(20000, [&] {
		post_recv(*p.b, {{rbuf.va(), 64, rbuf.key}});
		post_send(*p.a, op::send, wqe_b().data(src.va(), 2, src.key));
	}, [&] {
		wait_cqes(*p.as, 1);
		wait_cqes(*p.br, 1);
	});
	report("send 2 B", s2);

	double fa = per_msg(20000, [&] {
		post_send(*p.a, op::atomic_fa,
			  wqe_b().raddr(dst.va(), dst.key).atomic(1, 0).data(rbuf.va(), 8, rbuf.key));
	}, [&] { wait_cqes(*p.as, 1); });
	report("atomic fetch_add 8 B", fa);
}

} // namespace
