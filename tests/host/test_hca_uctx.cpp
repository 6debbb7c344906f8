// SPDX-License-Identifier: GPL-2.0
// User contexts (DevX uids): CREATE_UCTX / DESTROY_UCTX, the uid in every
// command header, what only the driver (uid 0) may send, and which objects
// a command of a user context may name (hca/uctx.h).
#include <gtest/gtest.h>

#include <set>

#include "hca/syndrome.h"
#include "hca_objs.h"
#include "prm/hca_cap.h"
#include "prm/mkey.h"
#include "prm/pages.h"
#include "prm/q_counter.h"
#include "prm/uar.h"
#include "prm/uctx.h"
#include "prm/vport.h"

using namespace hca_test;
using namespace scx;
namespace st = prm::cmd_stat;
namespace synd = hca::synd;

namespace {

// ALLOC_UAR, ALLOC_Q_COUNTER...: the number in field of the output, 0 if refused.
template <typename F> u32 alloc_number(hca_rig &rig, u16 op, F field)
{
	std::vector<u8> out;
	if (run(rig, cmd_in(op, 16), 16, nullptr, &out))
		return 0;
	return u32(prm::get(out.data(), field));
}

u8 dealloc_uar(hca_rig &rig, u32 uar, u32 *s = nullptr)
{
	auto c = cmd_in(prm::op::dealloc_uar, 16);
	prm::set(c.data(), prm::dealloc_uar_in::uar, uar);
	return run(rig, c, 16, s);
}

u8 query_q_counter(hca_rig &rig, u32 id, u32 *s = nullptr)
{
	auto c = cmd_in(prm::op::query_q_counter, prm::query_q_counter_in::size_bytes);
	prm::set(c.data(), prm::query_q_counter_in::counter_set_id, id);
	return run(rig, c, prm::query_q_counter_out::size_bytes, s);
}

// A physical-address mkey on pd (no translation list).
u8 create_pa_mkey(hca_rig &rig, u32 pd, u32 *index, u32 *s = nullptr)
{
	namespace in = prm::create_mkey_in;
	auto c = cmd_in(prm::op::create_mkey, in::size_bytes);
	u8 *mkc = prm::at(c.data(), in::memory_key_mkey_entry);
	prm::set(mkc, prm::mkc::access_mode_1_0, prm::mkc_access_mode::pa);
	prm::set(mkc, prm::mkc::lr, 1);
	prm::set(mkc, prm::mkc::qpn, 0xffffff);
	prm::set(mkc, prm::mkc::pd, pd);
	prm::set(mkc, prm::mkc::length64, 1);
	std::vector<u8> out;
	u8 r = run(rig, c, 16, s, &out);
	if (!r)
		*index = prm::get(out.data(), prm::create_mkey_out::mkey_index);
	return r;
}

u8 qp_cmd(hca_rig &rig, u16 op, u32 qpn, u32 *s = nullptr)
{
	u32 inlen = op == prm::op::query_qp ? prm::query_qp_in::size_bytes : prm::qp_2rst_in::size_bytes;
	auto c = cmd_in(op, inlen);
	prm::set(c.data(), prm::query_qp_in::qpn, qpn);
	return run(rig, c, op == prm::op::query_qp ? prm::query_qp_out::size_bytes : 16, s);
}

} // namespace

TEST(HcaUctx, CreateAndDestroy)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	u32 s = 0;
	u16 a = create_uctx(rig), b = create_uctx(rig);
	EXPECT_NE(a, 0);
	EXPECT_NE(b, 0);
	EXPECT_NE(a, b);
	// No optional rights are offered (uctx_cap 0).
	std::vector<u8> out;
	auto cap = cmd_in(prm::op::query_hca_cap, prm::query_hca_cap_in::size_bytes,
			  prm::hca_cap_op_mod(prm::cap_type::general, prm::cap_mode::cur));
	ASSERT_EQ(run(rig, cap, prm::query_hca_cap_out::size_bytes, nullptr, &out), 0);
	const u8 *g = prm::at(out.data(), prm::query_hca_cap_out::capability);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::log_max_uctx), hca::hca_limits::log_max_uctx);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::uctx_cap), 0u);
	EXPECT_EQ(create_uctx(rig, prm::uctx_cap::raw_tx, &s), 0);
	EXPECT_EQ(s, synd::uctx_bad_cap);
	// A user context cannot make another.
	{
		as_uid as(a);
		EXPECT_EQ(create_uctx(rig, 0, &s), 0);
		EXPECT_EQ(s, synd::uid_kernel_only);
	}
	EXPECT_EQ(destroy_uctx(rig, b), 0);
	EXPECT_EQ(destroy_uctx(rig, b, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::uctx_invalid);
	EXPECT_EQ(destroy_uctx(rig, 0, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::uctx_invalid);
	// A destroyed context's uid stamps nothing any more.
	{
		as_uid as(b);
		EXPECT_EQ(run(rig, cmd_in(prm::op::alloc_pd, 16), 16, &s), st::bad_param_err);
		EXPECT_EQ(s, synd::uctx_invalid);
	}
	// Nor is it handed out again at once.
	u16 c = create_uctx(rig);
	EXPECT_NE(c, 0);
	EXPECT_NE(c, b);
	// Contexts run out at 2^log_max_uctx - 1 (uid 0 is the driver's).
	std::set<u16> uids = {a, c};
	for (u16 u; (u = create_uctx(rig, 0, &s)) != 0;)
		EXPECT_TRUE(uids.insert(u).second);
	EXPECT_EQ(s, synd::uctx_exhausted);
	EXPECT_EQ(uids.size(), (1u << hca::hca_limits::log_max_uctx) - 1);
	EXPECT_EQ(uids.count(0), 0u);
}

TEST(HcaUctx, OnlyTheDriverSetsTheFunctionUp)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	u16 uid = create_uctx(rig);
	ASSERT_NE(uid, 0);
	as_uid as(uid);
	u32 s = 0;
	for (u16 op : {prm::op::query_pages, prm::op::manage_pages, prm::op::query_eq, prm::op::destroy_eq,
		       prm::op::set_hca_cap, prm::op::set_roce_address, prm::op::teardown_hca, prm::op::destroy_uctx}) {
		SCOPED_TRACE(op);
		EXPECT_EQ(run(rig, cmd_in(op, 0x40), 16, &s), st::bad_param_err);
		EXPECT_EQ(s, synd::uid_kernel_only);
	}
	// What a context may ask: the capabilities, the adapter, a NOP.
	EXPECT_EQ(run(rig,
		      cmd_in(prm::op::query_hca_cap, prm::query_hca_cap_in::size_bytes,
			     prm::hca_cap_op_mod(prm::cap_type::general, prm::cap_mode::cur)),
		      prm::query_hca_cap_out::size_bytes),
		  0);
	EXPECT_EQ(run(rig, cmd_in(prm::op::nop, 16), 16), 0);
}

TEST(HcaUctx, ObjectsNameOnlyTheirContext)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready()); // the driver's UAR, PD, EQ and two CQs (uid 0)
	u16 u = create_uctx(rig), v = create_uctx(rig);
	ASSERT_TRUE(u && v);
	u32 s = 0;
	u32 uar_u = 0, pd_u = 0, cq_u[2] = {}, mkey_u = 0;
	test_qp qp;
	{
		as_uid as(u);
		// The driver's PD, UAR and CQs are not the context's.
		EXPECT_EQ(create_qp(rig, spec_for(rig), &qp, &s), st::bad_res_err);
		EXPECT_EQ(s, synd::uid_foreign);
		EXPECT_EQ(rig.make_cq(), ~0u); // on the driver's UAR
		uar_u = alloc_number(rig, prm::op::alloc_uar, prm::alloc_uar_out::uar);
		pd_u = rig.alloc_pd();
		ASSERT_TRUE(uar_u && pd_u);
		std::swap(rig.uar, uar_u); // make_cq's UAR: the context's
		cq_u[0] = rig.make_cq();   // completing to the driver's EQ
		cq_u[1] = rig.make_cq();
		std::swap(rig.uar, uar_u);
		ASSERT_NE(cq_u[0], ~0u);
		ASSERT_NE(cq_u[1], ~0u);
		qp_spec sp = spec_for(rig);
		sp.pd = pd_u;
		sp.uar = uar_u;
		sp.cqn_snd = cq_u[0];
		sp.cqn_rcv = cq_u[1];
		ASSERT_EQ(create_qp(rig, sp, &qp), 0);
		EXPECT_EQ(qp_cmd(rig, prm::op::query_qp, qp.qpn), 0);
		ASSERT_EQ(create_pa_mkey(rig, pd_u, &mkey_u), 0);
	}
	{
		// Another context may name none of them, nor build on them.
		as_uid as(v);
		for (u16 op : {prm::op::query_qp, prm::op::qp_2err, prm::op::destroy_qp}) {
			EXPECT_EQ(qp_cmd(rig, op, qp.qpn, &s), st::bad_res_err);
			EXPECT_EQ(s, synd::uid_foreign);
		}
		EXPECT_EQ(destroy_cq(rig, cq_u[0], &s), st::bad_res_err);
		EXPECT_EQ(s, synd::uid_foreign);
		EXPECT_EQ(dealloc_pd(rig, pd_u, &s), st::bad_res_err);
		EXPECT_EQ(s, synd::uid_foreign);
		EXPECT_EQ(dealloc_uar(rig, uar_u, &s), st::bad_res_err);
		EXPECT_EQ(s, synd::uid_foreign);
		test_srq srq;
		srq_spec ss;
		ss.pd = pd_u;
		EXPECT_EQ(create_srq(rig, ss, &srq, &s), st::bad_res_err);
		EXPECT_EQ(s, synd::uid_foreign);
		u32 m = 0;
		EXPECT_EQ(create_pa_mkey(rig, pd_u, &m, &s), st::bad_res_err);
		EXPECT_EQ(s, synd::uid_foreign);
		auto qm = cmd_in(prm::op::query_mkey, prm::query_mkey_in::size_bytes);
		prm::set(qm.data(), prm::query_mkey_in::mkey_index, mkey_u);
		EXPECT_EQ(run(rig, qm, prm::query_mkey_out::size_bytes, &s), st::bad_res_err);
		EXPECT_EQ(s, synd::uid_foreign);
	}
	// The driver sees everything; the context cannot go while its objects stay.
	EXPECT_EQ(qp_cmd(rig, prm::op::query_qp, qp.qpn), 0);
	EXPECT_EQ(destroy_uctx(rig, u, &s), st::bad_res_state_err);
	EXPECT_EQ(s, synd::uctx_busy);
	{
		as_uid as(u);
		EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
		auto dm = cmd_in(prm::op::destroy_mkey, prm::destroy_mkey_in::size_bytes);
		prm::set(dm.data(), prm::destroy_mkey_in::mkey_index, mkey_u);
		EXPECT_EQ(run(rig, dm), 0);
		EXPECT_EQ(destroy_cq(rig, cq_u[0]), 0);
		EXPECT_EQ(destroy_cq(rig, cq_u[1]), 0);
		EXPECT_EQ(dealloc_pd(rig, pd_u), 0);
	}
	EXPECT_EQ(destroy_uctx(rig, u, &s), st::bad_res_state_err); // its UAR
	{
		as_uid as(u);
		EXPECT_EQ(dealloc_uar(rig, uar_u), 0);
	}
	EXPECT_EQ(destroy_uctx(rig, u), 0);
	EXPECT_EQ(destroy_uctx(rig, v), 0);
}

TEST(HcaUctx, SharedCountersServeEveryContext)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	u16 u = create_uctx(rig), v = create_uctx(rig);
	ASSERT_TRUE(u && v);
	u32 shared = 0, own = 0, s = 0;
	{
		// mlx5_ib allocates its counter sets with the shared uid.
		as_uid as(prm::shared_resource_uid);
		shared = alloc_number(rig, prm::op::alloc_q_counter, prm::alloc_q_counter_out::counter_set_id);
	}
	{
		as_uid as(u);
		own = alloc_number(rig, prm::op::alloc_q_counter, prm::alloc_q_counter_out::counter_set_id);
	}
	ASSERT_TRUE(shared && own);
	as_uid as(v);
	EXPECT_EQ(query_q_counter(rig, shared), 0);
	EXPECT_EQ(query_q_counter(rig, 0), 0); // the function's default set
	EXPECT_EQ(query_q_counter(rig, own, &s), st::bad_res_err);
	EXPECT_EQ(s, synd::uid_foreign);
}

TEST(HcaUctx, EswFunctionsAnswerAnyUidForAFunctionWithoutVfs)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	u16 u = create_uctx(rig);
	ASSERT_TRUE(u);
	namespace out = prm::query_esw_functions_out;
	namespace hp = prm::host_params_context;
	std::vector<u8> o;
	u32 s = 0;
	{
		// The kernel's whitelist uid (a context made at device init)
		// sends it for any user process.
		as_uid as(u);
		ASSERT_EQ(run(rig, cmd_in(prm::op::query_esw_functions, 16), out::size_bytes, &s, &o), 0);
	}
	ASSERT_EQ(o.size(), size_t(out::size_bytes));
	const u8 *h = prm::at(o.data(), out::host_params_context);
	EXPECT_EQ(prm::get(h, hp::host_pf_not_exist), 0u);
	EXPECT_EQ(prm::get(h, hp::host_pf_disabled), 0u);
	EXPECT_EQ(prm::get(h, hp::host_num_of_vfs), 0u);
	EXPECT_EQ(prm::get(h, hp::host_total_vfs), 0u);
	// Not an eswitch manager, as the answer says.
	std::vector<u8> cap;
	ASSERT_EQ(run(rig, cmd_in(prm::op::query_hca_cap, 16, 1), 16 + 4096, nullptr, &cap), 0);
	EXPECT_EQ(prm::get(cap.data() + 16, prm::cmd_hca_cap::eswitch_manager), 0u);
	EXPECT_EQ(run(rig, cmd_in(prm::op::query_esw_functions, 16), 16, &s), st::bad_outp_len_err);
	EXPECT_EQ(run(rig, cmd_in(prm::op::query_esw_functions, 16, 1), out::size_bytes, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::vport_bad_op_mod);
	EXPECT_EQ(destroy_uctx(rig, u), 0);
}
