// SPDX-License-Identifier: GPL-2.0
// General objects: RESERVED_QPN, the one type softcx has (hca/qp_reserve.cpp).
// A run of QPNs it holds is aligned to its size, never handed to a QP while
// it lives, named only by its own user context, and the caps say how large
// a run is.
#include <gtest/gtest.h>

#include <set>

#include "hca/caps.h"
#include "hca/syndrome.h"
#include "hca_objs.h"
#include "prm/gen_obj.h"
#include "prm/hca_cap.h"

using namespace hca_test;
using namespace scx;
namespace st = prm::cmd_stat;
namespace synd = hca::synd;
namespace gh = prm::general_obj_in_cmd_hdr;

namespace {

constexpr u32 granularity = hca::hca_limits::log_reserved_qpn_granularity;

std::vector<u8> gen_cmd(u16 op, u32 obj_id, u32 log = granularity, u16 type = prm::obj_type::reserved_qpn)
{
	auto c = cmd_in(op, gh::size_bytes + prm::reserved_qpn::size_bytes);
	prm::set(c.data(), gh::obj_type, type);
	prm::set(c.data(), gh::obj_id, obj_id);
	prm::set(c.data(), gh::log_obj_range, log);
	return c;
}

// The first QPN of a new run, or 0 (*s: the syndrome).
u32 reserve(hca_rig &rig, u32 log = granularity, u32 *s = nullptr)
{
	std::vector<u8> out;
	if (run(rig, gen_cmd(prm::op::create_general_object, 0, log), prm::general_obj_out_cmd_hdr::size_bytes, s,
		&out))
		return 0;
	return prm::get(out.data(), prm::general_obj_out_cmd_hdr::obj_id);
}

u8 unreserve(hca_rig &rig, u32 first, u32 *s = nullptr)
{
	return run(rig, gen_cmd(prm::op::destroy_general_object, first), 16, s);
}

std::vector<u8> query_cap(hca_rig &rig, u16 type)
{
	std::vector<u8> out;
	auto c = cmd_in(prm::op::query_hca_cap, prm::query_hca_cap_in::size_bytes,
			prm::hca_cap_op_mod(type, prm::cap_mode::cur));
	EXPECT_EQ(run(rig, c, prm::query_hca_cap_out::size_bytes, nullptr, &out), 0);
	return out;
}

} // namespace

TEST(HcaReservedQpn, CapsOfferIt)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	auto gen = query_cap(rig, prm::cap_type::general);
	const u8 *g = prm::at(gen.data(), prm::query_hca_cap_out::capability);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::hca_cap_2), 1u);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::general_obj_types), u64(1) << prm::obj_type::reserved_qpn);
	auto two = query_cap(rig, prm::cap_type::general_2);
	const u8 *g2 = prm::at(two.data(), prm::query_hca_cap_out::capability);
	EXPECT_EQ(prm::get(g2, prm::cmd_hca_cap_2::log_reserved_qpn_granularity), granularity);
}

TEST(HcaReservedQpn, RunsAreAlignedAndNoQpGetsTheirNumbers)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	u16 uid = create_uctx(rig);
	ASSERT_NE(uid, 0);
	std::set<u32> held;
	std::vector<u32> firsts;
	{
		as_uid as(uid);
		for (int i = 0; i < 20; i++) {
			u32 first = reserve(rig);
			ASSERT_NE(first, 0u);
			firsts.push_back(first);
			EXPECT_EQ(first % (1u << granularity), 0u);
			for (u32 k = 0; k < (1u << granularity); k++)
				EXPECT_TRUE(held.insert(first + k).second) << "QPN " << first + k << " reserved twice";
		}
		// A smaller run is allowed, aligned to its own size.
		u32 one = reserve(rig, 0);
		ASSERT_NE(one, 0u);
		firsts.push_back(one);
		EXPECT_TRUE(held.insert(one).second);
		std::vector<u8> out;
		EXPECT_EQ(run(rig, gen_cmd(prm::op::query_general_object, one),
			      prm::general_obj_out_cmd_hdr::size_bytes + prm::reserved_qpn::size_bytes, nullptr, &out),
			  0);
		EXPECT_EQ(prm::get(out.data(), prm::general_obj_out_cmd_hdr::obj_id), one);
	}
	// QPs created meanwhile (the cursor walks past every run) get other
	// numbers.
	for (int i = 0; i < 300; i++) {
		test_qp qp;
		ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
		EXPECT_EQ(held.count(qp.qpn), 0u) << "QP got reserved QPN " << qp.qpn;
		ASSERT_EQ(destroy_qp(rig, qp.qpn), 0);
	}
	// A reserved number is no QP.
	u32 s = 0;
	EXPECT_EQ(destroy_qp(rig, *held.begin(), &s), st::bad_res_err);
	EXPECT_EQ(s, synd::qp_invalid);
	// The context cannot go while it holds runs; they go with their
	// destroys.
	EXPECT_EQ(destroy_uctx(rig, uid, &s), st::bad_res_state_err);
	EXPECT_EQ(s, synd::uctx_busy);
	{
		as_uid as(uid);
		for (u32 f : firsts)
			EXPECT_EQ(unreserve(rig, f), 0);
	}
	EXPECT_EQ(destroy_uctx(rig, uid), 0);
}

TEST(HcaReservedQpn, Refusals)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	u16 a = create_uctx(rig), b = create_uctx(rig);
	ASSERT_TRUE(a && b);
	u32 s = 0, first;
	{
		as_uid as(a);
		EXPECT_EQ(reserve(rig, granularity + 1, &s), 0u);
		EXPECT_EQ(s, synd::gen_obj_bad_range);
		first = reserve(rig);
		ASSERT_NE(first, 0u);
		EXPECT_EQ(run(rig, gen_cmd(prm::op::create_general_object, 0, 0, 0x13), 16, &s), st::bad_param_err);
		EXPECT_EQ(s, synd::gen_obj_bad_type);
		EXPECT_EQ(run(rig, gen_cmd(prm::op::modify_general_object, first), 16, &s), st::bad_param_err);
		EXPECT_EQ(s, synd::gen_obj_no_modify);
		// Not the first QPN of a run, or no run at all.
		EXPECT_EQ(unreserve(rig, first + 1, &s), st::bad_res_err);
		EXPECT_EQ(s, synd::gen_obj_invalid);
		auto shrt = cmd_in(prm::op::create_general_object, 8);
		EXPECT_EQ(run(rig, shrt, 16, &s), st::bad_inp_len_err);
	}
	{
		// Another context can neither see nor free it.
		as_uid as(b);
		EXPECT_EQ(run(rig, gen_cmd(prm::op::query_general_object, first), 32, &s), st::bad_res_err);
		EXPECT_EQ(s, synd::uid_foreign);
		EXPECT_EQ(unreserve(rig, first, &s), st::bad_res_err);
		EXPECT_EQ(s, synd::uid_foreign);
	}
	{
		as_uid as(a);
		EXPECT_EQ(unreserve(rig, first), 0);
		EXPECT_EQ(unreserve(rig, first, &s), st::bad_res_err);
		EXPECT_EQ(s, synd::gen_obj_invalid);
	}
}

// At most max_reserved_qpns are held at once: the rest of the QPN space
// stays for QPs.
TEST(HcaReservedQpn, HalfTheSpaceAtMost)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	constexpr u32 runs = hca::hca_limits::max_reserved_qpns >> granularity;
	std::vector<u32> firsts;
	u32 s = 0;
	for (u32 i = 0; i < runs; i++) {
		u32 f = reserve(rig, granularity, &s);
		ASSERT_NE(f, 0u) << "run " << i << " syndrome " << std::hex << s;
		firsts.push_back(f);
	}
	EXPECT_EQ(reserve(rig, granularity, &s), 0u);
	EXPECT_EQ(s, synd::gen_obj_exhausted);
	test_qp qp;
	ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
	EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
	EXPECT_EQ(unreserve(rig, firsts.back()), 0);
	EXPECT_NE(reserve(rig), 0u);
}

// A device configured without general objects (softcx's devx=0) lists
// none and answers their commands as unknown.
TEST(HcaReservedQpn, AbsentWithoutGeneralObjects)
{
	hca::device_config cfg;
	cfg.general_objects = false;
	hca_rig rig(cfg);
	ASSERT_TRUE(rig.up());
	auto gen = query_cap(rig, prm::cap_type::general);
	EXPECT_EQ(prm::get(prm::at(gen.data(), prm::query_hca_cap_out::capability), prm::cmd_hca_cap::general_obj_types),
		  0u);
	auto two = query_cap(rig, prm::cap_type::general_2);
	EXPECT_EQ(prm::get(prm::at(two.data(), prm::query_hca_cap_out::capability),
			   prm::cmd_hca_cap_2::log_reserved_qpn_granularity),
		  0u);
	u32 s = 0;
	EXPECT_EQ(reserve(rig, granularity, &s), 0u);
	EXPECT_EQ(s, synd::bad_opcode);
}
