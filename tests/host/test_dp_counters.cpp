// SPDX-License-Identifier: GPL-2.0
// Q counter sets as the data path fills them: requests a responder takes,
// the errors each side sees, RNR NAKs and ACK timeouts, each in the set of
// the QP it happened to (requester's or responder's), read through
// QUERY_Q_COUNTER by the driver's names (fixture: dp_fixture.h).
#include <map>
#include <string>

#include "dp_fixture.h"

namespace {

class DpCounters : public Dp {
protected:
	using counts = std::map<std::string, u32>;

	// Every counter of a set that is not zero, by name.
	counts read(u32 set, bool clear = false)
	{
		std::vector<u32> v(scx_verbs_q_counter_count());
		EXPECT_EQ(scx_verbs_query_q_counter(drv, set, clear, v.data()), 0);
		counts c;
		for (unsigned int i = 0; i < v.size(); i++)
			if (v[i])
				c[scx_verbs_q_counter_name(i)] = v[i];
		return c;
	}
	u32 alloc_set()
	{
		u32 set = 0;
		EXPECT_EQ(scx_verbs_alloc_q_counter(drv, &set), 0);
		EXPECT_NE(set, 0u);
		return set;
	}
	// RTS -> RTS into another set, as mlx5_ib binds a QP to a counter.
	int bind(qp_t &q, u32 set)
	{
		scx_qp_attr a{};
		a.counter_set_id = u8(set);
		return modify(q, SCX_QPS_RTS, SCX_QPS_RTS, SCX_QP_COUNTER, a);
	}
};

} // namespace

TEST_F(DpCounters, NamesAreMlx5sInTheLayoutsOrder)
{
	ASSERT_EQ(scx_verbs_q_counter_count(), 29u);
	EXPECT_STREQ(scx_verbs_q_counter_name(0), "rx_write_requests");
	EXPECT_STREQ(scx_verbs_q_counter_name(6), "rnr_nak_retry_err");
	EXPECT_STREQ(scx_verbs_q_counter_name(28), "req_cqe_flush_error");
	EXPECT_EQ(scx_verbs_q_counter_name(29), nullptr);
}

// WRITEs, READs and an atomic count in the responder's set only.
TEST_F(DpCounters, RequestsCountInTheRespondersSet)
{
	pair_t p = pair();
	u32 sa = alloc_set(), sb = alloc_set();
	ASSERT_EQ(bind(*p.a, sa), 0);
	ASSERT_EQ(bind(*p.b, sb), 0);
	mr_t &dst = make_mr(512, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE | SCX_ACCESS_REMOTE_READ |
					 SCX_ACCESS_REMOTE_ATOMIC);
	mr_t &local = make_mr(512, SCX_ACCESS_LOCAL_WRITE);
	const char msg[] = "counted";
	for (int i = 0; i < 3; i++) {
		wqe_b w;
		w.raddr(dst.va(16 * i), dst.key).inl(msg, sizeof(msg));
		post_send(*p.a, op::rdma_write, w);
	}
	for (int i = 0; i < 2; i++) {
		wqe_b r;
		r.raddr(dst.va(), dst.key).data(local.va(64 * i), 64, local.key);
		post_send(*p.a, op::rdma_read, r);
	}
	wqe_b fa;
	fa.raddr(dst.va(256), dst.key).atomic(1, 0).data(local.va(256), 8, local.key);
	post_send(*p.a, op::atomic_fa, fa);
	pump();
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 6u);
	for (const cqe_t &e : req)
		EXPECT_EQ(e.opcode(), cqe_op::req);
	EXPECT_EQ(read(sb), (counts{{"rx_write_requests", 3}, {"rx_read_requests", 2}, {"rx_atomic_requests", 1}}));
	EXPECT_EQ(read(sa), counts{});
	EXPECT_EQ(read(0), counts{});
}

// A wrong rkey: the requester's set has the error CQE and its cause, the
// responder's the access error it detected and its flushed receive.
TEST_F(DpCounters, RemoteAccessErrorCountsOnBothSides)
{
	pair_t p = pair();
	u32 sa = alloc_set(), sb = alloc_set();
	ASSERT_EQ(bind(*p.a, sa), 0);
	ASSERT_EQ(bind(*p.b, sb), 0);
	mr_t &dst = make_mr(512, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	post_recv(*p.b, {{dst.va(), 512, dst.key}});
	const char msg[] = "wrong key";
	wqe_b w;
	w.raddr(dst.va(), dst.key ^ 0x01).inl(msg, sizeof(msg));
	post_send(*p.a, op::rdma_write, w);
	pump();
	ASSERT_EQ(drain(*p.as).size(), 1u);
	ASSERT_EQ(drain(*p.br).size(), 1u);
	EXPECT_EQ(read(sa), (counts{{"req_cqe_error", 1}, {"req_remote_access_errors", 1}}));
	EXPECT_EQ(read(sb), (counts{{"rx_write_requests", 1}, {"resp_remote_access_errors", 1},
				    {"resp_cqe_flush_error", 1}}));
}

// rnr_retry 1: two RNR NAKs, the first retried (rnr_nak_retry_err), the
// second fatal (an error CQE); the responder dropped both for want of a
// receive (out_of_buffer).
TEST_F(DpCounters, RnrNaksAndOutOfBuffer)
{
	rc_opts oa;
	oa.rnr_retry = 1;
	pair_t p = pair(SCX_QPT_RC, oa);
	u32 sa = alloc_set(), sb = alloc_set();
	ASSERT_EQ(bind(*p.a, sa), 0);
	ASSERT_EQ(bind(*p.b, sb), 0);
	const char msg[] = "no receive";
	wqe_b w;
	w.inl(msg, sizeof(msg));
	post_send(*p.a, op::send, w);
	ASSERT_TRUE(pump_until([&] { return state(*p.a) == SCX_QPS_ERR; }));
	pump();
	EXPECT_EQ(read(sa), (counts{{"rnr_nak_retry_err", 1}, {"req_cqe_error", 1}}));
	EXPECT_EQ(read(sb), (counts{{"out_of_buffer", 2}}));
}

// Nobody answers: retry_cnt 1 is one ACK timeout the QP retries after
// (local_ack_timeout_err) and a second that ends it.
TEST_F(DpCounters, AckTimeoutsThenRetriesExceeded)
{
	cq_t &as = make_cq(), &ar = make_cq(), &bs = make_cq(), &br = make_cq();
	qp_t &a = make_qp(SCX_QPT_RC, as, ar);
	qp_t &b = make_qp(SCX_QPT_RC, bs, br);
	rc_opts o;
	o.timeout = 1;
	o.retry_cnt = 1;
	bring_up(a, b.qpn, o);
	u32 sa = alloc_set();
	ASSERT_EQ(bind(a, sa), 0);
	const char msg[] = "hello?";
	wqe_b w;
	w.inl(msg, sizeof(msg));
	post_send(a, op::send, w);
	cqe_t e;
	ASSERT_TRUE(pump_until([&] { return next_cqe(as, &e); }));
	EXPECT_EQ(read(sa), (counts{{"local_ack_timeout_err", 1}, {"req_cqe_error", 1},
				    {"req_transport_retries_exceeded", 1}}));
}

// QP set 0 until bound; a set read with clear starts again from zero; a
// set nobody allocated cannot be bound, and counting stays where it was.
TEST_F(DpCounters, BindingMovesCountingAndClearResets)
{
	pair_t p = pair();
	mr_t &dst = make_mr(512, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	const char msg[] = "w";
	auto write = [&] {
		wqe_b w;
		w.raddr(dst.va(), dst.key).inl(msg, sizeof(msg));
		post_send(*p.a, op::rdma_write, w);
		pump();
		ASSERT_EQ(drain(*p.as).size(), 1u);
	};
	write();
	EXPECT_EQ(read(0), (counts{{"rx_write_requests", 1}}));
	u32 s = alloc_set();
	ASSERT_EQ(bind(*p.b, s), 0);
	write();
	write();
	EXPECT_EQ(read(0), (counts{{"rx_write_requests", 1}}));
	EXPECT_EQ(read(s, true), (counts{{"rx_write_requests", 2}}));
	EXPECT_EQ(read(s), counts{});
	EXPECT_NE(bind(*p.b, 60), 0);
	write();
	EXPECT_EQ(read(s), (counts{{"rx_write_requests", 1}}));
	ASSERT_EQ(bind(*p.b, 0), 0);
	write();
	EXPECT_EQ(read(0), (counts{{"rx_write_requests", 2}}));
	// Freed with a count in it, then handed out again: from zero.
	ASSERT_EQ(scx_verbs_dealloc_q_counter(drv, s), 0);
	std::vector<u32> v(scx_verbs_q_counter_count());
	EXPECT_NE(scx_verbs_query_q_counter(drv, s, false, v.data()), 0);
	u32 again = 0;
	for (int i = 0; i < 64 && again != s; i++)
		ASSERT_EQ(scx_verbs_alloc_q_counter(drv, &again), 0);
	ASSERT_EQ(again, s);
	EXPECT_EQ(read(s), counts{});
}
