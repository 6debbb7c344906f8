// SPDX-License-Identifier: GPL-2.0
// Completion queues of the hca: CREATE/QUERY/MODIFY/DESTROY_CQ, CQEs posted
// by the data-path entry point and read by owner bit across laps, the
// consumer index in the doorbell record, arming through the UAR page (COMP
// EQEs on the CQ's EQ, solicited-only), overrun reported as CQ_ERROR, and
// a ring and doorbell record in user memory (DevX UMEM).
#include <gtest/gtest.h>

#include <cstring>

#include "hca/syndrome.h"
#include "hca_harness.h"
#include "prm/cq.h"
#include "prm/eq.h"
#include "prm/uar.h"
#include "prm/uctx.h"
#include "prm/umem.h"

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

namespace {

// CREATE_UMEM over npages pages of buf from page_offset, each MTT with
// the given low bits (1 read, 2 write), as uid.
u8 make_umem(hca_rig &rig, const dma_mem &buf, u32 npages, u32 page_offset, u64 rights, u16 uid, u32 *id,
	     u32 *synd = nullptr, bool misalign = false)
{
	namespace in = prm::create_umem_in;
	auto c = cmd_in(prm::op::create_umem, in::size_bytes + npages * 8);
	prm::set(c.data(), in::uid, uid);
	u8 *um = prm::at(c.data(), in::umem);
	prm::set(um, prm::umem::page_offset, page_offset);
	prm::set(um, prm::umem::num_of_mtt, npages);
	for (u32 i = 0; i < npages; i++)
		store_be<u64>(c.data() + in::size_bytes + 8 * i, (buf.bus + 4096 * i + (misalign ? 0x100 : 0)) | rights);
	std::vector<u8> out;
	u8 s = status_of(rig.poster, c, prm::create_umem_out::size_bytes, &out, synd);
	if (!s)
		*id = prm::get(out.data(), prm::create_umem_out::umem_id);
	return s;
}

u8 destroy_umem(hca_rig &rig, u32 id, u16 uid = 0, u32 *synd = nullptr)
{
	auto c = cmd_in(prm::op::destroy_umem, prm::destroy_umem_in::size_bytes);
	prm::set(c.data(), prm::destroy_umem_in::uid, uid);
	prm::set(c.data(), prm::destroy_umem_in::umem_id, id);
	return status_of(rig.poster, c, 16, nullptr, synd);
}

// CREATE_CQ of 2^log_size 64-byte CQEs with its ring at ring_off in umem
// ring_id and its doorbell record at dbr_off in umem dbr_id.
u8 create_umem_cq(cq_rig &rig, u32 log_size, u32 ring_id, u64 ring_off, u32 dbr_id, u64 dbr_off, u16 uid,
		  u32 *cqn, u32 *synd = nullptr)
{
	namespace in = prm::create_cq_in;
	auto c = cmd_in(prm::op::create_cq, in::size_bytes);
	prm::set(c.data(), in::uid, uid);
	u8 *cqc = prm::at(c.data(), in::cq_context);
	prm::set(cqc, prm::cqc::log_cq_size, log_size);
	prm::set(cqc, prm::cqc::uar_page, rig.uar);
	prm::set(cqc, prm::cqc::c_eqn_or_apu_element, rig.comp.eqn);
	prm::set(cqc, prm::cqc::dbr_umem_valid, 1);
	prm::set(cqc, prm::cqc::dbr_umem_id, dbr_id);
	prm::set(cqc, prm::cqc::dbr_addr, dbr_off);
	prm::set(c.data(), in::cq_umem_valid, 1);
	prm::set(c.data(), in::cq_umem_id, ring_id);
	prm::set(c.data(), in::cq_umem_offset, ring_off);
	std::vector<u8> out;
	u8 s = status_of(rig.poster, c, prm::create_cq_out::size_bytes, &out, synd);
	if (!s)
		*cqn = prm::get(out.data(), prm::create_cq_out::cqn);
	return s;
}

u16 new_uctx(hca_rig &rig)
{
	auto c = cmd_in(prm::op::create_uctx, prm::create_uctx_in::size_bytes);
	std::vector<u8> out;
	if (status_of(rig.poster, c, prm::create_uctx_out::size_bytes, &out))
		return 0;
	return u16(prm::get(out.data(), prm::create_uctx_out::uid));
}

} // namespace

TEST(HcaCq, RingAndDoorbellRecordInUmems)
{
	cq_rig rig;
	ASSERT_TRUE(rig.ready());
	constexpr u64 rw = 3;
	dma_mem ring = rig.poster.arena().alloc(3 * 4096), dbr = rig.poster.arena().alloc(4096);
	u32 ring_id = 0, dbr_id = 0, cqn = 0, synd = 0;
	// The buffer starts 0x100 into its first page; the ring 0x800 into the
	// buffer, so its 32 CQEs (2 KiB) cross into the second page.
	ASSERT_EQ(make_umem(rig, ring, 3, 0x100, rw, 0, &ring_id), 0);
	ASSERT_EQ(make_umem(rig, dbr, 1, 0, rw, 0, &dbr_id), 0);
	ASSERT_NE(ring_id, dbr_id);
	u8 *first = ring.cpu + 0x900;
	for (u32 i = 0; i < 32; i++) {
		prm::set(first + 64 * i, prm::cqe64::opcode, prm::cqe_opcode::invalid);
		prm::set(first + 64 * i, prm::cqe64::owner, 1);
	}
	ASSERT_EQ(create_umem_cq(rig, 5, ring_id, 0x800, dbr_id, 0x40, 0, &cqn), 0);
	for (u32 i = 0; i < 32 + 8; i++) {
		ASSERT_EQ(rig.dev.post_cqe(cqn, make_cqe(7, i, u16(i)).data()), cqe_result::posted) << i;
		const u8 *e = first + 64 * (i % 32);
		EXPECT_EQ(prm::get(e, prm::cqe64::owner), (i >> 5) & 1) << i;
		EXPECT_EQ(prm::get(e, prm::cqe64::byte_cnt), i) << i;
		// The consumer index goes to the record in the other umem: the
		// second lap overruns unless the hca reads it there.
		prm::set(dbr.cpu + 0x40, prm::cq_dbrec::set_ci, i + 1);
	}
	// Nothing outside the ring was written.
	EXPECT_EQ(ring.cpu[0x8ff], 0);
	EXPECT_EQ(ring.cpu[0x900 + 32 * 64], 0);
	// A umem something is built on stays.
	EXPECT_EQ(destroy_umem(rig, ring_id, 0, &synd), st::bad_res_state_err);
	EXPECT_EQ(synd, hca::synd::umem_busy);
	EXPECT_EQ(destroy_umem(rig, dbr_id, 0, &synd), st::bad_res_state_err);
	auto d = cmd_in(prm::op::destroy_cq, prm::destroy_cq_in::size_bytes);
	prm::set(d.data(), prm::destroy_cq_in::cqn, cqn);
	ASSERT_EQ(status_of(rig.poster, d, 16), 0);
	EXPECT_EQ(destroy_umem(rig, ring_id), 0);
	EXPECT_EQ(destroy_umem(rig, dbr_id), 0);
	EXPECT_EQ(destroy_umem(rig, dbr_id, 0, &synd), st::bad_res_err);
	EXPECT_EQ(synd, hca::synd::umem_invalid);
}

TEST(HcaCq, UmemRefusals)
{
	cq_rig rig;
	ASSERT_TRUE(rig.ready());
	dma_mem buf = rig.poster.arena().alloc(2 * 4096);
	u32 id = 0, ro = 0, cqn = 0, synd = 0;
	// Each MTT must be readable, page-aligned and reachable.
	EXPECT_EQ(make_umem(rig, buf, 2, 0, 2, 0, &id, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::umem_bad_mtt);
	EXPECT_EQ(make_umem(rig, buf, 2, 0, 3, 0, &id, &synd, true), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::umem_bad_mtt);
	EXPECT_EQ(make_umem(rig, buf, 2, 4096, 3, 0, &id, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::umem_bad_layout);
	EXPECT_EQ(make_umem(rig, buf, 0, 0, 3, 0, &id, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::umem_bad_layout);
	ASSERT_EQ(make_umem(rig, buf, 2, 0, 3, 0, &id), 0);
	ASSERT_EQ(make_umem(rig, buf, 2, 0, 1, 0, &ro), 0);
	// The ring must lie inside the umem, and the device must be let write it.
	EXPECT_EQ(create_umem_cq(rig, 6, id, 4096 + 64, id, 0, 0, &cqn, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::umem_out_of_range);
	EXPECT_EQ(create_umem_cq(rig, 5, ro, 0, id, 4096, 0, &cqn, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::umem_read_only);
	// A doorbell record may not cross a page.
	EXPECT_EQ(create_umem_cq(rig, 5, id, 0, id, 4096 - 4, 0, &cqn, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::cq_bad_dbr);
	EXPECT_EQ(create_umem_cq(rig, 5, id, 0, id, 2 * 4096, 0, &cqn, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::umem_out_of_range);
	EXPECT_EQ(create_umem_cq(rig, 5, id, 0, 999, 0, 0, &cqn, &synd), st::bad_res_err);
	EXPECT_EQ(synd, hca::synd::umem_invalid);
	// A user context's umem is its own.
	u16 a = new_uctx(rig), b = new_uctx(rig);
	ASSERT_TRUE(a && b);
	u32 mine = 0;
	ASSERT_EQ(make_umem(rig, buf, 1, 0, 3, a, &mine), 0);
	EXPECT_EQ(destroy_umem(rig, mine, b, &synd), st::bad_res_err);
	EXPECT_EQ(synd, hca::synd::uid_foreign);
	EXPECT_EQ(destroy_umem(rig, mine, a), 0);
	// Every failed create gave back what it took: both umems go.
	EXPECT_EQ(destroy_umem(rig, id), 0);
	EXPECT_EQ(destroy_umem(rig, ro), 0);
}
