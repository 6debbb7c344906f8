// SPDX-License-Identifier: GPL-2.0
// DC targets (hca/dct.h): CREATE_DCT checks what the dctc names and the
// device's limits, takes a number from the QPN space, QUERY_DCT returns the
// context with the device's state, DRAIN_DCT ends in DCT_DRAINED on the
// async EQ, DESTROY_DCT gives everything back, and user contexts reach only
// their own.
#include <gtest/gtest.h>

#include <algorithm>

#include "hca/syndrome.h"
#include "hca_objs.h"
#include "prm/cmd.h"
#include "prm/dct.h"
#include "prm/eq.h"
#include "prm/hca.h"

using namespace hca_test;
using namespace scx;
namespace st = prm::cmd_stat;
namespace synd = hca::synd;
namespace dc = prm::dctc;

namespace {

constexpr u64 key = 0x0badc0de12345678ull;

struct dct_rig : qp_rig {
	test_srq srq;
	test_eq aeq;   // the async EQ: DCT_DRAINED
	bool dct_ready()
	{
		if (!ready())
			return false;
		srq_spec s;
		s.pd = pd;
		return create_srq(*this, s, &srq) == 0 &&
		       create_eq(*this, uar, 4, 0, {prm::event_type::dct_drained}, &aeq) == 0;
	}
	std::vector<u8> dct_in()
	{
		auto c = cmd_in(prm::op::create_dct, prm::create_dct_in::size_bytes);
		u8 *x = prm::at(c.data(), prm::create_dct_in::dct_context_entry);
		prm::set(x, dc::pd, pd);
		prm::set(x, dc::cqn, cq[1]);
		prm::set(x, dc::srqn_xrqn, srq.srqn);
		prm::set(x, dc::user_index, 0x77);
		prm::set(x, dc::rre, 1);
		prm::set(x, dc::rwe, 1);
		prm::set(x, dc::rae, 1);
		prm::set(x, dc::atomic_mode, prm::qpc_atomic_mode::up_to_8b);
		prm::set(x, dc::min_rnr_nak, 12);
		prm::set(x, dc::mtu, prm::qpc_mtu::bytes_1k);
		prm::set(x, dc::port, 1);
		prm::set(x, dc::my_addr_index, 0);
		prm::set(x, dc::hop_limit, 64);
		prm::set(x, dc::dc_access_key, key);
		return c;
	}
	// The new DCT's number, or 0 (*s: the syndrome).
	u32 create(const std::vector<u8> &c, u32 *s = nullptr)
	{
		std::vector<u8> out;
		if (run(*this, c, prm::create_dct_out::size_bytes, s, &out))
			return 0;
		return prm::get(out.data(), prm::create_dct_out::dctn);
	}
	u8 dct_cmd(u16 op, u32 dctn, u32 *s = nullptr, std::vector<u8> *out = nullptr)
	{
		auto c = cmd_in(op, 16);
		prm::set(c.data(), prm::destroy_dct_in::dctn, dctn);
		return run(*this, c, op == prm::op::query_dct ? prm::query_dct_out::size_bytes : 16, s, out);
	}
};

template <typename F> std::vector<u8> with(std::vector<u8> c, F f)
{
	f(prm::at(c.data(), prm::create_dct_in::dct_context_entry));
	return c;
}

} // namespace

TEST(HcaDct, CreateQueryDrainDestroy)
{
	dct_rig rig;
	ASSERT_TRUE(rig.dct_ready());
	u32 dctn = rig.create(rig.dct_in());
	ASSERT_NE(dctn, 0u);
	// Its number is a QPN no QP gets.
	test_qp qp;
	ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
	EXPECT_NE(qp.qpn, dctn);
	u32 s = 0;
	EXPECT_EQ(destroy_qp(rig, dctn, &s), st::bad_res_err);

	std::vector<u8> out;
	ASSERT_EQ(rig.dct_cmd(prm::op::query_dct, dctn, nullptr, &out), 0);
	const u8 *x = prm::at(out.data(), prm::query_dct_out::dct_context_entry);
	EXPECT_EQ(prm::get(x, dc::state), prm::dctc_state::active);
	EXPECT_EQ(prm::get(x, dc::dc_access_key), key);
	EXPECT_EQ(prm::get(x, dc::srqn_xrqn), rig.srq.srqn);
	EXPECT_EQ(prm::get(x, dc::cqn), rig.cq[1]);
	EXPECT_EQ(prm::get(x, dc::user_index), 0x77u);
	EXPECT_EQ(prm::get(x, dc::min_rnr_nak), 12u);
	EXPECT_EQ(prm::get(x, dc::dc_access_key_violation_count), 0u);
	EXPECT_EQ(rig.dct_cmd(prm::op::arm_dct_for_key_violation, dctn), 0);

	// The SRQ and CQ are in use while it lives.
	auto dsrq = cmd_in(prm::op::destroy_srq, prm::destroy_srq_in::size_bytes);
	prm::set(dsrq.data(), prm::destroy_srq_in::srqn, rig.srq.srqn);
	EXPECT_EQ(run(rig, dsrq, 16, &s), st::bad_res_state_err);

	EXPECT_EQ(rig.dct_cmd(prm::op::drain_dct, dctn), 0);
	u8 e[64];
	ASSERT_TRUE(eventually([&] { return rig.aeq.next(e); }));
	EXPECT_EQ(prm::get(e, prm::eqe::event_type), prm::event_type::dct_drained);
	EXPECT_EQ(prm::get(prm::at(e, prm::eqe::event_data), prm::eqe_dct::number), dctn);
	ASSERT_EQ(rig.dct_cmd(prm::op::query_dct, dctn, nullptr, &out), 0);
	EXPECT_EQ(prm::get(prm::at(out.data(), prm::query_dct_out::dct_context_entry), dc::state),
		  prm::dctc_state::drained);
	EXPECT_EQ(rig.dct_cmd(prm::op::drain_dct, dctn, &s), st::bad_res_state_err);
	EXPECT_EQ(s, synd::dct_not_active);

	EXPECT_EQ(rig.dct_cmd(prm::op::destroy_dct, dctn), 0);
	EXPECT_EQ(rig.dct_cmd(prm::op::query_dct, dctn, &s), st::bad_res_err);
	EXPECT_EQ(s, synd::dct_invalid);
	EXPECT_EQ(rig.dct_cmd(prm::op::destroy_dct, dctn, &s), st::bad_res_err);
	EXPECT_EQ(run(rig, dsrq, 16), 0);
	EXPECT_EQ(rig.dev.dcts().count(), 0u);
}

TEST(HcaDct, CreateRefusals)
{
	dct_rig rig;
	ASSERT_TRUE(rig.dct_ready());
	struct bad {
		std::function<void(u8 *)> f;
		u8 status;
		u32 synd;
	};
	const bad cases[] = {
		{[](u8 *x) { prm::set(x, dc::mtu, 0); }, st::bad_param_err, synd::dct_bad_mtu},
		{[](u8 *x) { prm::set(x, dc::mtu, 6); }, st::bad_param_err, synd::dct_bad_mtu},
		{[](u8 *x) { prm::set(x, dc::mtu, prm::qpc_mtu::bytes_4k); }, st::bad_param_err,
		 synd::dct_mtu_over_port},
		{[](u8 *x) { prm::set(x, dc::port, 2); }, st::bad_param_err, synd::dct_bad_port},
		{[](u8 *x) { prm::set(x, dc::pkey_index, 128); }, st::bad_param_err, synd::dct_bad_pkey},
		{[](u8 *x) { prm::set(x, dc::atomic_mode, prm::qpc_atomic_mode::up_to_16b); }, st::bad_param_err,
		 synd::dct_bad_atomic_mode},
		{[](u8 *x) { prm::set(x, dc::cs_res, 3); }, st::bad_param_err, synd::dct_unsupported},
		{[](u8 *x) { prm::set(x, dc::pd, 0x3ff); }, st::bad_res_err, synd::dct_bad_pd},
		{[](u8 *x) { prm::set(x, dc::cqn, 0x3ff); }, st::bad_res_err, synd::dct_bad_cq},
		{[](u8 *x) { prm::set(x, dc::srqn_xrqn, 0x3ff); }, st::bad_res_err, synd::dct_bad_srq},
		{[](u8 *x) { prm::set(x, dc::counter_set_id, 60); }, st::bad_res_err, synd::dct_bad_counter},
	};
	for (const bad &b : cases) {
		u32 s = 0;
		std::vector<u8> out;
		EXPECT_EQ(run(rig, with(rig.dct_in(), b.f), prm::create_dct_out::size_bytes, &s, &out), b.status);
		EXPECT_EQ(s, b.synd);
	}
	// Nothing was kept: the SRQ and CQ can go.
	EXPECT_EQ(rig.dev.dcts().count(), 0u);
	auto dsrq = cmd_in(prm::op::destroy_srq, prm::destroy_srq_in::size_bytes);
	prm::set(dsrq.data(), prm::destroy_srq_in::srqn, rig.srq.srqn);
	EXPECT_EQ(run(rig, dsrq, 16), 0);
	u32 s = 0;
	EXPECT_EQ(rig.create(rig.dct_in(), &s), 0u);
	EXPECT_EQ(s, synd::dct_bad_srq);
}

TEST(HcaDct, UserContextsReachOnlyTheirOwn)
{
	dct_rig rig;
	ASSERT_TRUE(rig.dct_ready());
	u16 a = create_uctx(rig), b = create_uctx(rig);
	ASSERT_TRUE(a && b);
	u32 s = 0;
	// The driver's PD, CQ and SRQ are not a user context's to name.
	{
		as_uid as(a);
		EXPECT_EQ(rig.create(rig.dct_in(), &s), 0u);
		EXPECT_EQ(s, synd::uid_foreign);
	}
	// One made by the driver for nobody: a context cannot touch it.
	u32 dctn = rig.create(rig.dct_in());
	ASSERT_NE(dctn, 0u);
	{
		as_uid as(b);
		for (u16 op : {prm::op::query_dct, prm::op::drain_dct, prm::op::arm_dct_for_key_violation,
			       prm::op::destroy_dct}) {
			EXPECT_EQ(rig.dct_cmd(op, dctn, &s), st::bad_res_err) << std::hex << op;
			EXPECT_EQ(s, synd::uid_foreign);
		}
	}
	EXPECT_EQ(rig.dct_cmd(prm::op::destroy_dct, dctn), 0);
	EXPECT_EQ(destroy_uctx(rig, a), 0);
	EXPECT_EQ(destroy_uctx(rig, b), 0);
}

// A DCT's number is taken from the QPN space and given back: no QP gets
// it, nor one of its contexts' numbers; TEARDOWN_HCA ends them all.
TEST(HcaDct, NumbersComeFromTheQpnSpace)
{
	dct_rig rig;
	ASSERT_TRUE(rig.dct_ready());
	std::vector<u32> dcts;
	// Each DCT takes 1 + dct_contexts numbers (its responder contexts are
	// hidden QPs) and as many firmware slots: 16 leave the rig pages for QPs.
	for (int i = 0; i < 16; i++) {
		u32 d = rig.create(rig.dct_in());
		ASSERT_NE(d, 0u);
		dcts.push_back(d);
	}
	std::vector<u32> ctxs;
	for (u32 d : dcts) {
		hca::dct_runtime *t = rig.dev.dcts().dp_get(d);
		ASSERT_NE(t, nullptr);
		for (u32 q : t->ctx_qpn) {
			ASSERT_NE(q, 0u);
			ctxs.push_back(q);
		}
	}
	for (int i = 0; i < 64; i++) {
		test_qp qp;
		ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
		EXPECT_EQ(std::count(dcts.begin(), dcts.end(), qp.qpn), 0) << qp.qpn;
		EXPECT_EQ(std::count(ctxs.begin(), ctxs.end(), qp.qpn), 0) << qp.qpn;
		ASSERT_EQ(destroy_qp(rig, qp.qpn), 0);
	}
	// A context is no QP a command may name.
	u32 sy = 0;
	std::vector<u8> ctx;
	auto q = cmd_in(prm::op::query_qp, prm::query_qp_in::size_bytes);
	prm::set(q.data(), prm::query_qp_in::qpn, ctxs[0]);
	EXPECT_EQ(run(rig, q, prm::query_qp_out::size_bytes, &sy), st::bad_res_err);
	EXPECT_EQ(sy, synd::qp_invalid);
	EXPECT_EQ(destroy_qp(rig, ctxs[1], &sy), st::bad_res_err);
	EXPECT_EQ(sy, synd::qp_invalid);
	auto m = cmd_in(prm::op::qp_2err, prm::qp_2err_in::size_bytes);
	prm::set(m.data(), prm::qp_2err_in::qpn, ctxs[2]);
	EXPECT_EQ(run(rig, m, 16, &sy), st::bad_res_err);
	EXPECT_EQ(sy, synd::qp_invalid);
	EXPECT_EQ(rig.dev.dcts().count(), 16u);
	// DESTROY_DCT ends its contexts: their numbers go back.
	ASSERT_EQ(rig.dct_cmd(prm::op::destroy_dct, dcts.back()), 0);
	dcts.pop_back();
	hca::qp_runtime rt;
	EXPECT_FALSE(rig.dev.qps().lookup(ctxs.back(), &rt));
	EXPECT_TRUE(rig.dev.qps().lookup(ctxs.front(), &rt));
	EXPECT_EQ(rt.dctn, dcts.front());
	auto t = cmd_in(prm::op::teardown_hca, prm::teardown_hca_in::size_bytes);
	ASSERT_EQ(run(rig, t, prm::teardown_hca_out::size_bytes), 0);
	EXPECT_EQ(rig.dev.dcts().count(), 0u);
	EXPECT_FALSE(rig.dev.qps().lookup(ctxs.front(), &rt));
}
