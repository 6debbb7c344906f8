// SPDX-License-Identifier: GPL-2.0
// MODIFY_CQ op_mod RESIZE on the hca: the RESIZE CQE at the old producer
// index (owner bit of the old lap), the next CQE at the following index in
// the new ring, BAD_SIZE_OUTS_CQES when the unpolled CQEs do not fit, and
// the checks on malformed input.
#include <gtest/gtest.h>

#include <cstring>

#include "hca/syndrome.h"
#include "hca_harness.h"
#include "prm/cq.h"
#include "prm/eq.h"

using namespace hca_test;
using namespace scx;
namespace st = prm::cmd_stat;
using hca::cqe_result;

namespace {

// A ring of 64-byte CQEs in test memory, every slot INVALID with owner 1.
struct ring {
	dma_mem mem{};
	u32 log_size = 0;
	u32 pages = 0;

	void make(dma_arena &a, u32 log)
	{
		log_size = log;
		pages = u32(((64u << log) + 4095) / 4096);
		mem = a.alloc(size_t(pages) * 4096);
		for (u32 i = 0; i < (1u << log); i++) {
			u8 *c = slot(i);
			prm::set(c, prm::cqe64::opcode, prm::cqe_opcode::invalid);
			prm::set(c, prm::cqe64::owner, 1);
		}
	}
	u8 *slot(u32 index) { return mem.cpu + 64 * (index & ((1u << log_size) - 1)); }
	// The CQE at counter `index` if the hca has written it for that lap.
	bool at(u32 index, u8 *cqe)
	{
		fence();
		std::memcpy(cqe, slot(index), 64);
		return prm::get(cqe, prm::cqe64::opcode) != prm::cqe_opcode::invalid &&
		       prm::get(cqe, prm::cqe64::owner) == ((index >> log_size) & 1);
	}
};

struct resize_rig : hca_rig {
	u32 uar = 0;
	u32 cqn = 0;
	test_eq comp;
	ring cur;
	dma_mem dbr{};

	bool ready(u32 log_size)
	{
		if (!up() || !(uar = alloc_uar(poster)))
			return false;
		if (create_eq(*this, uar, 6, 1, {}, &comp))
			return false;
		namespace in = prm::create_cq_in;
		cur.make(poster.arena(), log_size);
		dbr = poster.arena().alloc(64);
		auto c = cmd_in(prm::op::create_cq, in::size_bytes + cur.pages * 8);
		u8 *cqc = prm::at(c.data(), in::cq_context);
		prm::set(cqc, prm::cqc::log_cq_size, log_size);
		prm::set(cqc, prm::cqc::uar_page, uar);
		prm::set(cqc, prm::cqc::c_eqn_or_apu_element, comp.eqn);
		prm::set(cqc, prm::cqc::dbr_addr, dbr.bus);
		for (u32 i = 0; i < cur.pages; i++)
			store_be<u64>(prm::at(c.data(), in::pas, i, 8), cur.mem.bus + 4096ull * i);
		std::vector<u8> out;
		if (status_of(poster, c, prm::create_cq_out::size_bytes, &out))
			return false;
		cqn = prm::get(out.data(), prm::create_cq_out::cqn);
		return true;
	}
	void set_ci(u32 ci) { prm::set(dbr.cpu, prm::cq_dbrec::set_ci, ci & 0xffffff); }
	// MODIFY_CQ RESIZE to the ring `r` (its pages in the PAS list).
	std::vector<u8> resize_in(const ring &r, u32 select = 0x7)
	{
		namespace in = prm::modify_cq_in;
		auto m = cmd_in(prm::op::modify_cq, in::size_bytes + r.pages * 8, prm::modify_cq_op_mod::resize_cq);
		prm::set(m.data(), in::cqn, cqn);
		prm::set(m.data(), in::modify_field_select_resize_field_select, select);
		u8 *cqc = prm::at(m.data(), in::cq_context);
		prm::set(cqc, prm::cqc::log_cq_size, r.log_size);
		prm::set(cqc, prm::cqc::log_page_size, 0);
		prm::set(cqc, prm::cqc::cqe_sz, prm::cqe_size::bytes_64);
		for (u32 i = 0; i < r.pages; i++)
			store_be<u64>(prm::at(m.data(), in::pas, i, 8), r.mem.bus + 4096ull * i);
		return m;
	}
	u8 run(const std::vector<u8> &m, u32 *synd = nullptr)
	{
		return status_of(poster, m, prm::modify_cq_out::size_bytes, nullptr, synd);
	}
	u32 query_log_size()
	{
		auto q = cmd_in(prm::op::query_cq, prm::query_cq_in::size_bytes);
		prm::set(q.data(), prm::query_cq_in::cqn, cqn);
		std::vector<u8> out;
		if (status_of(poster, q, prm::query_cq_out::size_bytes, &out))
			return ~0u;
		return prm::get(prm::at(out.data(), prm::query_cq_out::cq_context), prm::cqc::log_cq_size);
	}
};

std::vector<u8> make_cqe(u16 wqe_counter)
{
	std::vector<u8> c(64);
	prm::set(c.data(), prm::cqe64::opcode, prm::cqe_opcode::req);
	prm::set(c.data(), prm::cqe64::qpn, 0x42);
	prm::set(c.data(), prm::cqe64::wqe_counter, wqe_counter);
	return c;
}

} // namespace

// Grow with CQEs outstanding, past a lap of the old ring: the RESIZE CQE
// lands at the old slot of pi with the old lap's owner bit, the next CQE at
// pi+1 in the new ring with the new ring's owner bit.
TEST(HcaCqResize, GrowWithOutstandingCqes)
{
	resize_rig rig;
	ASSERT_TRUE(rig.ready(2)); // 4 entries
	// Six CQEs, the first three polled: pi = 6, ci = 3 (second lap).
	for (u16 i = 0; i < 6; i++) {
		ASSERT_EQ(rig.dev.post_cqe(rig.cqn, make_cqe(i).data()), cqe_result::posted);
		if (i == 2)
			rig.set_ci(3);
	}
	rig.set_ci(3);
	ring big;
	big.make(rig.poster.arena(), 4); // 16 entries
	ASSERT_EQ(rig.run(rig.resize_in(big)), 0);
	EXPECT_EQ(rig.query_log_size(), 4u);

	u8 e[64];
	ASSERT_TRUE(rig.cur.at(6, e)); // old slot 2, owner of lap 1
	EXPECT_EQ(prm::get(e, prm::cqe64::opcode), prm::cqe_opcode::resize_cq);
	EXPECT_EQ(prm::get(e, prm::cqe64::owner), 1u);
	EXPECT_EQ(rig.cur.slot(6), rig.cur.slot(2));
	// The CQEs before it are untouched.
	ASSERT_TRUE(rig.cur.at(5, e));
	EXPECT_EQ(prm::get(e, prm::cqe64::wqe_counter), 5u);

	// The consumer moves 3..5 to 4..6 of the new ring and polls on.
	ASSERT_EQ(rig.dev.post_cqe(rig.cqn, make_cqe(100).data()), cqe_result::posted);
	ASSERT_TRUE(big.at(7, e));
	EXPECT_EQ(prm::get(e, prm::cqe64::wqe_counter), 100u);
	EXPECT_EQ(prm::get(e, prm::cqe64::owner), 0u);
	EXPECT_FALSE(rig.cur.at(7, e)); // nothing more in the old ring

	// Across a lap of the new ring: index 16 is slot 0 with owner 1.
	rig.set_ci(7);
	for (u16 i = 8; i <= 16; i++)
		ASSERT_EQ(rig.dev.post_cqe(rig.cqn, make_cqe(i).data()), cqe_result::posted) << i;
	ASSERT_TRUE(big.at(16, e));
	EXPECT_EQ(prm::get(e, prm::cqe64::wqe_counter), 16u);
	EXPECT_EQ(prm::get(e, prm::cqe64::owner), 1u);
}

// Shrink: refused with BAD_SIZE_OUTS_CQES while the unpolled CQEs do not
// fit, the CQ unchanged; accepted once they do, the owner bits then those
// of the smaller ring.
TEST(HcaCqResize, ShrinkBelowOutstandingFails)
{
	resize_rig rig;
	ASSERT_TRUE(rig.ready(3)); // 8 entries
	for (u16 i = 0; i < 6; i++)
		ASSERT_EQ(rig.dev.post_cqe(rig.cqn, make_cqe(i).data()), cqe_result::posted);
	ring small;
	small.make(rig.poster.arena(), 1); // 2 entries
	u32 synd = 0;
	EXPECT_EQ(rig.run(rig.resize_in(small), &synd), st::bad_size_outs_cqes_err);
	EXPECT_EQ(synd, hca::synd::cq_resize_outstanding);
	EXPECT_EQ(rig.query_log_size(), 3u);
	u8 e[64];
	EXPECT_FALSE(rig.cur.at(6, e)); // no RESIZE CQE
	ASSERT_EQ(rig.dev.post_cqe(rig.cqn, make_cqe(6).data()), cqe_result::posted);
	ASSERT_TRUE(rig.cur.at(6, e));
	EXPECT_EQ(prm::get(e, prm::cqe64::wqe_counter), 6u);

	// One CQE left unpolled: it and the next fit in two entries.
	rig.set_ci(6);
	ASSERT_EQ(rig.run(rig.resize_in(small), &synd), 0);
	ASSERT_TRUE(rig.cur.at(7, e));
	EXPECT_EQ(prm::get(e, prm::cqe64::opcode), prm::cqe_opcode::resize_cq);
	EXPECT_EQ(prm::get(e, prm::cqe64::owner), 0u);
	rig.set_ci(8); // the consumer moved 6 to 7 and polled it
	ASSERT_EQ(rig.dev.post_cqe(rig.cqn, make_cqe(8).data()), cqe_result::posted);
	ASSERT_TRUE(small.at(8, e)); // slot 0, lap 4: owner 0
	EXPECT_EQ(prm::get(e, prm::cqe64::owner), 0u);
	EXPECT_EQ(prm::get(e, prm::cqe64::wqe_counter), 8u);
	ASSERT_EQ(rig.dev.post_cqe(rig.cqn, make_cqe(9).data()), cqe_result::posted);
	ASSERT_TRUE(small.at(9, e));
	EXPECT_EQ(prm::get(e, prm::cqe64::wqe_counter), 9u);
	EXPECT_EQ(prm::get(e, prm::cqe64::owner), 0u);
	// Full now: a third would overrun.
	EXPECT_EQ(rig.dev.post_cqe(rig.cqn, make_cqe(10).data()), cqe_result::overrun);
}

TEST(HcaCqResize, RejectsMalformedInput)
{
	resize_rig rig;
	ASSERT_TRUE(rig.ready(2));
	ring r;
	r.make(rig.poster.arena(), 3);
	u32 synd = 0;
	namespace in = prm::modify_cq_in;

	auto m = rig.resize_in(r);
	prm::set(m.data(), prm::mbox_in::op_mod, 2);
	EXPECT_EQ(rig.run(m, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::bad_op_mod);

	m = rig.resize_in(r);
	prm::set(m.data(), in::cqn, rig.cqn + 77);
	EXPECT_EQ(rig.run(m, &synd), st::bad_res_err);
	EXPECT_EQ(synd, hca::synd::cq_invalid);

	m = rig.resize_in(r);
	prm::set(prm::at(m.data(), in::cq_context), prm::cqc::log_cq_size, 31);
	EXPECT_EQ(rig.run(m, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_bad_size);

	m = rig.resize_in(r, 0x8 | 0x7);
	EXPECT_EQ(rig.run(m, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_bad_resize_select);

	m = rig.resize_in(r);
	prm::set(prm::at(m.data(), in::cq_context), prm::cqc::cqe_sz, 3);
	EXPECT_EQ(rig.run(m, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_bad_cqe_size);

	m = rig.resize_in(r);
	prm::set(prm::at(m.data(), in::cq_context), prm::cqc::page_offset, 1);
	EXPECT_EQ(rig.run(m, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_bad_offset);

	m = rig.resize_in(r);
	store_be<u64>(prm::at(m.data(), in::pas, 0, 8), r.mem.bus + 8);
	EXPECT_EQ(rig.run(m, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_bad_page);

	m = rig.resize_in(r);
	prm::set(m.data(), in::cq_umem_valid, 1);
	EXPECT_EQ(rig.run(m, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_umem_unsupported);

	// The PAS list cut short.
	m = rig.resize_in(r);
	m.resize(in::size_bytes);
	EXPECT_EQ(rig.run(m, &synd), st::bad_inp_len_err);
	EXPECT_EQ(synd, hca::synd::short_list);

	// None of these touched the CQ.
	EXPECT_EQ(rig.query_log_size(), 2u);
	u8 e[64];
	EXPECT_FALSE(rig.cur.at(0, e));
	ASSERT_EQ(rig.run(rig.resize_in(r)), 0);
	EXPECT_EQ(rig.query_log_size(), 3u);
}
