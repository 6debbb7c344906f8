// SPDX-License-Identifier: GPL-2.0
// Affiliated async events the data path raises, as the driver passes them
// on: the SRQ limit (SRQ_RQ_LIMIT), and the responder's own errors that no
// CQE reports (WQ_ACCESS_ERROR, WQ_INVAL_REQ_ERROR) (fixture: dp_fixture.h).
#include "dp_fixture.h"

namespace {
class DpEvents : public Dp {};

constexpr uint8_t ev_wq_inval_req = 0x10, ev_wq_access = 0x11, ev_srq_limit = 0x14;
} // namespace

// ARM_RQ's limit fires once, when a receive leaves fewer WQEs than the
// limit, and is disarmed then: later receives raise nothing until the next
// ARM_RQ, which fires on the next receive below it.
TEST_F(DpEvents, SrqLimitFiresOnceWhenFewerWqesRemain)
{
	cq_t &as = make_cq(), &ar = make_cq(), &bs = make_cq(), &br = make_cq();
	srq_t &s = make_srq(br);
	ASSERT_TRUE(s.alive);
	qp_t &a = make_qp(SCX_QPT_RC, as, ar);
	qp_t &b = make_qp(SCX_QPT_RC, bs, br, s.srqn);
	bring_up(a, b.qpn, {});
	bring_up(b, a.qpn, {});
	mr_t &dst = make_mr(8 * 64, SCX_ACCESS_LOCAL_WRITE);
	for (u16 i = 0; i < 7; i++)
		srq_wqe(s, i, u16(i + 1), dst, i * 64, 64);
	for (int i = 0; i < 6; i++)
		srq_post(s);
	ASSERT_EQ(scx_verbs_arm_srq(drv, s.srqn, 4), 0);

	const char msg[] = "limit";
	auto send_one = [&] {
		wqe_b w;
		w.inl(msg, sizeof(msg));
		post_send(a, op::send, w);
		pump();
	};
	auto limits = [&] { return events.count(true, s.srqn, ev_srq_limit); };
	send_one();
	send_one(); // 4 left: not fewer than the limit
	EXPECT_EQ(limits(), 0);
	send_one(); // 3 left
	EXPECT_TRUE(c_wait_for([&] { return limits() == 1; }, 2000));
	send_one(); // 2 left: disarmed
	EXPECT_EQ(limits(), 1);

	ASSERT_EQ(scx_verbs_arm_srq(drv, s.srqn, 2), 0);
	EXPECT_EQ(limits(), 1) << "arming below the count fires nothing by itself";
	send_one(); // 1 left
	EXPECT_TRUE(c_wait_for([&] { return limits() == 2; }, 2000));
	EXPECT_EQ(drain(br).size(), 5u);
	EXPECT_EQ(events.count(false, b.qpn, ev_wq_access), 0);
}

// A WRITE to a bad rkey: the requester learns it from its error CQE, the
// responder, which has no CQE for it, from WQ_ACCESS_ERROR on its QP.
TEST_F(DpEvents, ResponderAccessErrorRaisesWqAccessError)
{
	pair_t p = pair();
	mr_t &dst = make_mr(256, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	const char msg[] = "no such key";
	wqe_b w;
	w.raddr(dst.va(), dst.key ^ 0x01).inl(msg, sizeof(msg));
	post_send(*p.a, op::rdma_write, w);
	pump();
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].syndrome(), synd::rem_access);
	EXPECT_TRUE(c_wait_for([&] { return events.count(false, p.b->qpn, ev_wq_access) == 1; }, 2000));
	EXPECT_EQ(events.count(false, p.a->qpn, ev_wq_access), 0);
	EXPECT_EQ(events.count(false, p.b->qpn, ev_wq_inval_req), 0);
	EXPECT_EQ(state(*p.b), u32(SCX_QPS_ERR));
}

// A misaligned atomic is an invalid request: WQ_INVAL_REQ_ERROR at the
// responder, REM_INV_REQ at the requester.
TEST_F(DpEvents, ResponderInvalidRequestRaisesWqInvalReqError)
{
	pair_t p = pair();
	mr_t &target = make_mr(64, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_ATOMIC);
	mr_t &result = make_mr(64, SCX_ACCESS_LOCAL_WRITE);
	wqe_b bad;
	bad.raddr(target.va(12), target.key).atomic(1, 0).data(result.va(0), 8, result.key);
	post_send(*p.a, op::atomic_fa, bad);
	pump();
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].syndrome(), synd::rem_inv_req);
	EXPECT_TRUE(c_wait_for([&] { return events.count(false, p.b->qpn, ev_wq_inval_req) == 1; }, 2000));
	EXPECT_EQ(events.count(false, p.b->qpn, ev_wq_access), 0);
	EXPECT_EQ(events.count(false, p.a->qpn, ev_wq_inval_req), 0);
}
