// SPDX-License-Identifier: GPL-2.0
// Completion queues of the hca: CREATE/QUERY/MODIFY/DESTROY_CQ, CQEs posted
// by the data-path entry point and read by owner bit across laps, the
// consumer index in the doorbell record, arming through the UAR page (COMP
// EQEs on the CQ's EQ, solicited-only), and overrun reported as CQ_ERROR.
#include <gtest/gtest.h>

#include <cstring>

#include "hca/syndrome.h"
#include "hca_harness.h"
#include "prm/cq.h"
#include "prm/eq.h"
#include "prm/uar.h"

using namespace hca_test;
using namespace scx;
namespace st = prm::cmd_stat;
using hca::cqe_result;

namespace {

struct test_cq {
	hca_rig *rig = nullptr;
	u32 cqn = 0;
	u32 uar = 0;
	u32 log_size = 0;
	u32 entry = 64;
	u32 ci = 0;
	u32 sn = 0;
	dma_mem ring{}, dbr{};

	bool next(u8 *cqe)
	{
		u8 *slot = ring.cpu + entry * (ci & ((1u << log_size) - 1)) + (entry - 64);
		fence();
		std::memcpy(cqe, slot, 64);
		if (prm::get(cqe, prm::cqe64::opcode) == prm::cqe_opcode::invalid ||
		    prm::get(cqe, prm::cqe64::owner) != ((ci >> log_size) & 1))
			return false;
		ci++;
		return true;
	}
	void update_ci() { prm::set(dbr.cpu, prm::cq_dbrec::set_ci, ci & 0xffffff); }
	void arm(bool solicited)
	{
		u32 cmd = solicited ? prm::cq_arm_cmd::req_not_sol : prm::cq_arm_cmd::req_not;
		prm::set(dbr.cpu, prm::cq_dbrec::arm_sn, sn & 3);
		prm::set(dbr.cpu, prm::cq_dbrec::arm_cmd, cmd);
		prm::set(dbr.cpu, prm::cq_dbrec::arm_ci, ci & 0xffffff);
		u8 db[8] = {};
		prm::set(db, prm::cq_doorbell::arm_sn, sn & 3);
		prm::set(db, prm::cq_doorbell::cmd, cmd);
		prm::set(db, prm::cq_doorbell::ci, ci & 0xffffff);
		prm::set(db, prm::cq_doorbell::cqn, cqn);
		fence();
		bar_write64(rig->dev, uar * prm::uar_page::size + prm::uar_page::cq_doorbell, load_be<u64>(db));
		sn++;
	}
};

u8 create_cq(hca_rig &rig, u32 uar, u32 eqn, u32 log_size, bool big, test_cq *cq, u32 *synd = nullptr)
{
	namespace in = prm::create_cq_in;
	cq->rig = &rig;
	cq->uar = uar;
	cq->log_size = log_size;
	cq->entry = big ? 128 : 64;
	size_t bytes = size_t(cq->entry) << log_size;
	size_t npages = (bytes + 4095) / 4096;
	cq->ring = rig.poster.arena().alloc(npages * 4096);
	cq->dbr = rig.poster.arena().alloc(64);
	for (u32 i = 0; i < (1u << log_size); i++) {
		u8 *c = cq->ring.cpu + cq->entry * i + (cq->entry - 64);
		prm::set(c, prm::cqe64::opcode, prm::cqe_opcode::invalid);
		prm::set(c, prm::cqe64::owner, 1);
	}
	auto c = cmd_in(prm::op::create_cq, u32(in::size_bytes + npages * 8));
	u8 *cqc = prm::at(c.data(), in::cq_context);
	prm::set(cqc, prm::cqc::log_cq_size, log_size);
	prm::set(cqc, prm::cqc::uar_page, uar);
	prm::set(cqc, prm::cqc::c_eqn_or_apu_element, eqn);
	prm::set(cqc, prm::cqc::cqe_sz, big ? prm::cqe_size::bytes_128 : prm::cqe_size::bytes_64);
	prm::set(cqc, prm::cqc::dbr_addr, cq->dbr.bus);
	for (size_t i = 0; i < npages; i++)
		store_be<u64>(c.data() + in::pas.byte_off + 8 * i, cq->ring.bus + 4096 * i);
	std::vector<u8> out;
	u8 s = status_of(rig.poster, c, prm::create_cq_out::size_bytes, &out, synd);
	if (!s)
		cq->cqn = prm::get(out.data(), prm::create_cq_out::cqn);
	return s;
}

// A CQE as the data path would hand it over (owner bit set by the hca).
std::vector<u8> make_cqe(u32 qpn, u32 byte_cnt, u16 wqe_counter)
{
	std::vector<u8> c(64);
	prm::set(c.data(), prm::cqe64::opcode, prm::cqe_opcode::req);
	prm::set(c.data(), prm::cqe64::qpn, qpn);
	prm::set(c.data(), prm::cqe64::byte_cnt, byte_cnt);
	prm::set(c.data(), prm::cqe64::wqe_counter, wqe_counter);
	return c;
}

struct cq_rig : hca_rig {
	u32 uar = 0;
	test_eq comp, async;
	bool ready()
	{
		if (!up() || !(uar = alloc_uar(poster)))
			return false;
		return create_eq(*this, uar, 6, 1, {}, &comp) == 0 &&
		       create_eq(*this, uar, 4, 0, {prm::event_type::cq_error}, &async) == 0;
	}
};

} // namespace

TEST(HcaCq, CreateQueryModifyDestroy)
{
	cq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_cq cq;
	ASSERT_EQ(create_cq(rig, rig.uar, rig.comp.eqn, 5, false, &cq), 0);
	auto q = cmd_in(prm::op::query_cq, prm::query_cq_in::size_bytes);
	prm::set(q.data(), prm::query_cq_in::cqn, cq.cqn);
	std::vector<u8> out;
	ASSERT_EQ(status_of(rig.poster, q, prm::query_cq_out::size_bytes, &out), 0);
	const u8 *cqc = prm::at(out.data(), prm::query_cq_out::cq_context);
	EXPECT_EQ(prm::get(cqc, prm::cqc::log_cq_size), 5u);
	EXPECT_EQ(prm::get(cqc, prm::cqc::uar_page), rig.uar);
	EXPECT_EQ(prm::get(cqc, prm::cqc::c_eqn_or_apu_element), rig.comp.eqn);
	EXPECT_EQ(prm::get(cqc, prm::cqc::dbr_addr), cq.dbr.bus);

	auto m = cmd_in(prm::op::modify_cq, prm::modify_cq_in::size_bytes, prm::modify_cq_op_mod::modify_cq);
	prm::set(m.data(), prm::modify_cq_in::cqn, cq.cqn);
	prm::set(m.data(), prm::modify_cq_in::modify_field_select_resize_field_select,
		 prm::cq_modify::period | prm::cq_modify::count);
	u8 *mc = prm::at(m.data(), prm::modify_cq_in::cq_context);
	prm::set(mc, prm::cqc::cq_period, 16);
	prm::set(mc, prm::cqc::cq_max_count, 32);
	ASSERT_EQ(status_of(rig.poster, m, 16), 0);
	ASSERT_EQ(status_of(rig.poster, q, prm::query_cq_out::size_bytes, &out), 0);
	cqc = prm::at(out.data(), prm::query_cq_out::cq_context);
	EXPECT_EQ(prm::get(cqc, prm::cqc::cq_period), 16u);
	EXPECT_EQ(prm::get(cqc, prm::cqc::cq_max_count), 32u);
	u32 synd = 0;
	prm::set(m.data(), prm::mbox_in::op_mod, 2);
	EXPECT_EQ(status_of(rig.poster, m, 16, nullptr, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::bad_op_mod);

	// An EQ with a CQ on it cannot go; the UAR neither.
	auto de = cmd_in(prm::op::destroy_eq, prm::destroy_eq_in::size_bytes);
	prm::set(de.data(), prm::destroy_eq_in::eq_number, rig.comp.eqn);
	EXPECT_EQ(status_of(rig.poster, de, 16, nullptr, &synd), st::bad_res_state_err);
	EXPECT_EQ(synd, hca::synd::eq_busy);
	auto du = cmd_in(prm::op::dealloc_uar, prm::dealloc_uar_in::size_bytes);
	prm::set(du.data(), prm::dealloc_uar_in::uar, rig.uar);
	EXPECT_EQ(status_of(rig.poster, du, 16, nullptr, &synd), st::bad_res_state_err);
	EXPECT_EQ(synd, hca::synd::uar_busy);

	auto d = cmd_in(prm::op::destroy_cq, prm::destroy_cq_in::size_bytes);
	prm::set(d.data(), prm::destroy_cq_in::cqn, cq.cqn);
	EXPECT_EQ(status_of(rig.poster, d, 16), 0);
	EXPECT_EQ(status_of(rig.poster, d, 16, nullptr, &synd), st::bad_res_err);
	EXPECT_EQ(synd, hca::synd::cq_invalid);
	EXPECT_EQ(status_of(rig.poster, de, 16), 0);
	EXPECT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(1, 2, 3).data()), cqe_result::no_cq);
}

TEST(HcaCq, CreateRejectsBadContexts)
{
	cq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_cq cq;
	u32 synd = 0;
	EXPECT_EQ(create_cq(rig, rig.uar, 63, 4, false, &cq, &synd), st::bad_res_err);
	EXPECT_EQ(synd, hca::synd::cq_bad_eq);
	EXPECT_EQ(create_cq(rig, rig.uar, rig.comp.eqn, 19, false, &cq, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_bad_size);
	EXPECT_EQ(create_cq(rig, rig.uar + 3, rig.comp.eqn, 4, false, &cq, &synd), st::bad_res_err);
	EXPECT_EQ(synd, hca::synd::uar_invalid);
	namespace in = prm::create_cq_in;
	auto c = cmd_in(prm::op::create_cq, in::size_bytes + 8);
	u8 *cqc = prm::at(c.data(), in::cq_context);
	prm::set(cqc, prm::cqc::log_cq_size, 2);
	prm::set(cqc, prm::cqc::uar_page, rig.uar);
	prm::set(cqc, prm::cqc::c_eqn_or_apu_element, rig.comp.eqn);
	prm::set(cqc, prm::cqc::cqe_sz, 3);
	EXPECT_EQ(status_of(rig.poster, c, 16, nullptr, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_bad_cqe_size);
	prm::set(cqc, prm::cqc::cqe_sz, 0);
	prm::set(cqc, prm::cqc::dbr_addr, 0x7fff00000000ull);
	EXPECT_EQ(status_of(rig.poster, c, 16, nullptr, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_bad_dbr);
	prm::set(c.data(), in::cq_umem_valid, 1);
	EXPECT_EQ(status_of(rig.poster, c, 16, nullptr, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_umem_unsupported);
}

TEST(HcaCq, CqesAcrossLapsWithOwnerFlips)
{
	for (bool big : {false, true}) {
		SCOPED_TRACE(big ? "128-byte CQEs" : "64-byte CQEs");
		cq_rig rig;
		ASSERT_TRUE(rig.ready());
		test_cq cq;
		ASSERT_EQ(create_cq(rig, rig.uar, rig.comp.eqn, 3, big, &cq), 0);
		for (u32 i = 0; i < 8 * 3 + 5; i++) {
			ASSERT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(0x42, i * 10, u16(i)).data()), cqe_result::posted);
			u8 e[64];
			ASSERT_TRUE(cq.next(e)) << i;
			EXPECT_EQ(prm::get(e, prm::cqe64::owner), (i >> 3) & 1);
			EXPECT_EQ(prm::get(e, prm::cqe64::byte_cnt), i * 10);
			EXPECT_EQ(prm::get(e, prm::cqe64::wqe_counter), i & 0xffff);
			EXPECT_EQ(prm::get(e, prm::cqe64::qpn), 0x42u);
			EXPECT_EQ(prm::get(e, prm::cqe64::opcode), prm::cqe_opcode::req);
			cq.update_ci();
		}
		// Not armed: no completion events at all.
		u8 e[64];
		EXPECT_FALSE(rig.comp.next(e));
	}
}

TEST(HcaCq, ArmedCqPostsOneCompletionEvent)
{
	cq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_cq cq;
	ASSERT_EQ(create_cq(rig, rig.uar, rig.comp.eqn, 4, false, &cq), 0);
	rig.comp.doorbell(true); // the EQ interrupts on its next EQE
	cq.arm(false);
	ASSERT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(1, 1, 0).data()), cqe_result::posted);
	ASSERT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(1, 1, 1).data()), cqe_result::posted);
	u8 e[64];
	ASSERT_TRUE(rig.comp.next(e));
	EXPECT_EQ(prm::get(e, prm::eqe::event_type), prm::event_type::comp);
	EXPECT_EQ(prm::get(prm::at(e, prm::eqe::event_data), prm::comp_event::cq_number), cq.cqn);
	EXPECT_FALSE(rig.comp.next(e)); // fired: the second CQE adds no event
	EXPECT_EQ(rig.irq.count(1), 1u);
	rig.comp.doorbell(true);

	// Re-arming with CQEs not yet polled fires at once.
	cq.arm(false);
	ASSERT_TRUE(rig.comp.next(e));
	EXPECT_EQ(rig.irq.count(1), 2u);
	rig.comp.doorbell(true);

	// Poll everything, arm for solicited only: a plain CQE stays quiet.
	while (cq.next(e))
		;
	cq.update_ci();
	cq.arm(true);
	ASSERT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(1, 1, 2).data(), false), cqe_result::posted);
	EXPECT_FALSE(rig.comp.next(e));
	ASSERT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(1, 1, 3).data(), true), cqe_result::posted);
	ASSERT_TRUE(rig.comp.next(e));
	EXPECT_EQ(rig.irq.count(1), 3u);

	// A CQ doorbell through another UAR page is ignored.
	u32 other = alloc_uar(rig.poster);
	test_cq wrong = cq;
	wrong.uar = other;
	while (cq.next(e))
		;
	cq.update_ci();
	wrong.arm(false);
	ASSERT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(1, 1, 4).data()), cqe_result::posted);
	EXPECT_FALSE(rig.comp.next(e));
}

TEST(HcaCq, OverrunReportsCqError)
{
	cq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_cq cq;
	ASSERT_EQ(create_cq(rig, rig.uar, rig.comp.eqn, 2, false, &cq), 0);
	for (u32 i = 0; i < 4; i++)
		ASSERT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(1, 1, u16(i)).data()), cqe_result::posted);
	// The consumer index never moved: the fifth CQE overruns.
	EXPECT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(1, 1, 4).data()), cqe_result::overrun);
	u8 e[64];
	ASSERT_TRUE(rig.async.next(e));
	EXPECT_EQ(prm::get(e, prm::eqe::event_type), prm::event_type::cq_error);
	const u8 *d = prm::at(e, prm::eqe::event_data);
	EXPECT_EQ(prm::get(d, prm::cq_error::cqn), cq.cqn);
	EXPECT_EQ(prm::get(d, prm::cq_error::syndrome), prm::cq_error_syndrome::cq_overrun);
	// The CQ is in error now; the four CQEs are intact.
	EXPECT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(1, 1, 5).data()), cqe_result::overrun);
	for (u32 i = 0; i < 4; i++) {
		ASSERT_TRUE(cq.next(e));
		EXPECT_EQ(prm::get(e, prm::cqe64::wqe_counter), i);
	}
	auto q = cmd_in(prm::op::query_cq, prm::query_cq_in::size_bytes);
	prm::set(q.data(), prm::query_cq_in::cqn, cq.cqn);
	std::vector<u8> out;
	ASSERT_EQ(status_of(rig.poster, q, prm::query_cq_out::size_bytes, &out), 0);
	EXPECT_EQ(prm::get(prm::at(out.data(), prm::query_cq_out::cq_context), prm::cqc::status),
		  prm::cq_status::overflow);
}

TEST(HcaCq, ConsumerIndexMakesRoom)
{
	cq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_cq cq;
	ASSERT_EQ(create_cq(rig, rig.uar, rig.comp.eqn, 1, false, &cq), 0);
	u8 e[64];
	for (u32 i = 0; i < 100; i++) {
		ASSERT_EQ(rig.dev.post_cqe(cq.cqn, make_cqe(7, i, u16(i)).data()), cqe_result::posted) << i;
		if (i % 2) {
			ASSERT_TRUE(cq.next(e));
			ASSERT_TRUE(cq.next(e));
			cq.update_ci();
		}
	}
	EXPECT_FALSE(rig.async.next(e));
}
