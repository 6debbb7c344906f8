// SPDX-License-Identifier: GPL-2.0
// Event queues of the hca, driven as a driver would: CREATE_EQ with a PAS
// list, EQEs read by owner bit across many laps, consumer-index and arm
// doorbells written to the EQ's UAR page, interrupts only when armed, and
// the events the device reports (command completion, port change, page
// request).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "hca/syndrome.h"
#include "hca_harness.h"
#include "host_env.h"
#include "prm/eq.h"
#include "prm/pages.h"
#include "prm/uar.h"

using namespace hca_test;
using namespace scx;
namespace st = prm::cmd_stat;

namespace {

struct eq_rig : hca_rig {
	u32 uar = 0;
	bool ready()
	{
		if (!up())
			return false;
		uar = alloc_uar(poster);
		return uar != 0;
	}
};

u8 query_eq(hca_rig &rig, u32 eqn, std::vector<u8> *out, u32 *synd = nullptr)
{
	auto c = cmd_in(prm::op::query_eq, prm::query_eq_in::size_bytes);
	prm::set(c.data(), prm::query_eq_in::eq_number, eqn);
	return status_of(rig.poster, c, prm::query_eq_out::size_bytes, out, synd);
}

u8 destroy_eq(hca_rig &rig, u32 eqn, u32 *synd = nullptr)
{
	auto c = cmd_in(prm::op::destroy_eq, prm::destroy_eq_in::size_bytes);
	prm::set(c.data(), prm::destroy_eq_in::eq_number, eqn);
	return status_of(rig.poster, c, 16, nullptr, synd);
}

// CREATE_EQ of an EQ that listens for CMD events reports its own
// completion there: take that EQE out of the way.
void drain_own_completion(test_eq &eq)
{
	u8 e[64];
	ASSERT_TRUE(eventually([&] { return eq.next(e); }));
	EXPECT_EQ(prm::get(e, prm::eqe::event_type), prm::event_type::cmd);
	eq.doorbell(false);
}

} // namespace

TEST(HcaEq, CreateQueryDestroy)
{
	eq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_eq eq;
	ASSERT_EQ(create_eq(rig, rig.uar, 7, 3, {prm::event_type::cmd, prm::event_type::port_change}, &eq), 0);
	std::vector<u8> out;
	ASSERT_EQ(query_eq(rig, eq.eqn, &out), 0);
	const u8 *eqc = prm::at(out.data(), prm::query_eq_out::eq_context_entry);
	EXPECT_EQ(prm::get(eqc, prm::eqc::log_eq_size), 7u);
	EXPECT_EQ(prm::get(eqc, prm::eqc::uar_page), rig.uar);
	EXPECT_EQ(prm::get(eqc, prm::eqc::intr), 3u);
	EXPECT_EQ(prm::get(out.data(), prm::query_eq_out::event_bitmask),
		  (u64(1) << prm::event_type::cmd) | (u64(1) << prm::event_type::port_change));
	EXPECT_EQ(destroy_eq(rig, eq.eqn), 0);
	u32 synd = 0;
	EXPECT_EQ(query_eq(rig, eq.eqn, &out, &synd), st::bad_res_err);
	EXPECT_EQ(synd, hca::synd::eq_invalid);
	EXPECT_EQ(destroy_eq(rig, eq.eqn, &synd), st::bad_res_err);
}

TEST(HcaEq, CreateRejectsBadContexts)
{
	eq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_eq eq;
	u32 synd = 0;
	EXPECT_EQ(create_eq(rig, rig.uar, 4, 8, {}, &eq, &synd), st::bad_param_err); // 8 vectors: 0..7
	EXPECT_EQ(synd, hca::synd::eq_bad_vector);
	EXPECT_EQ(create_eq(rig, rig.uar, 17, 0, {}, &eq, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::eq_bad_size);
	EXPECT_EQ(create_eq(rig, rig.uar + 1, 4, 0, {}, &eq, &synd), st::bad_res_err);
	EXPECT_EQ(synd, hca::synd::uar_invalid);

	// A PAS entry that is not page aligned, one the device cannot reach,
	// and a list shorter than the ring.
	namespace in = prm::create_eq_in;
	auto c = cmd_in(prm::op::create_eq, in::size_bytes + 8);
	u8 *eqc = prm::at(c.data(), in::eq_context_entry);
	prm::set(eqc, prm::eqc::log_eq_size, 6);
	prm::set(eqc, prm::eqc::uar_page, rig.uar);
	dma_mem ring = rig.poster.arena().alloc(4096);
	store_be<u64>(c.data() + in::pas.byte_off, ring.bus + 64);
	EXPECT_EQ(status_of(rig.poster, c, 16, nullptr, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::eq_bad_page);
	store_be<u64>(c.data() + in::pas.byte_off, 0x7fff00000000ull);
	EXPECT_EQ(status_of(rig.poster, c, 16, nullptr, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::eq_bad_page);
	prm::set(eqc, prm::eqc::log_eq_size, 7); // 8 KiB: two pages, one given
	store_be<u64>(c.data() + in::pas.byte_off, ring.bus);
	EXPECT_EQ(status_of(rig.poster, c, 16, nullptr, &synd), st::bad_inp_len_err);
	EXPECT_EQ(synd, hca::synd::short_list);
	prm::set(eqc, prm::eqc::log_eq_size, 6);
	prm::set(eqc, prm::eqc::page_offset, 1);
	EXPECT_EQ(status_of(rig.poster, c, 16, nullptr, &synd), st::bad_param_err);
	EXPECT_EQ(synd, hca::synd::eq_bad_offset);
}

TEST(HcaEq, NotBeforeInitHca)
{
	hca_rig rig;
	ASSERT_TRUE(rig.ok);
	ASSERT_EQ(status_of(rig.poster, cmd_in(prm::op::enable_hca, 16), 12), 0);
	u32 synd = 0;
	EXPECT_EQ(status_of(rig.poster, cmd_in(prm::op::create_eq, prm::create_eq_in::size_bytes + 8), 16, nullptr,
			    &synd),
		  st::bad_sys_state_err);
	EXPECT_EQ(synd, hca::synd::not_initialized);
}

// Command completions as EQEs: many laps around an 8-entry ring, the owner
// bit flipping each lap, the consumer index handed back each time.
TEST(HcaEq, WrapsManyLapsWithOwnerFlips)
{
	eq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_eq eq;
	ASSERT_EQ(create_eq(rig, rig.uar, 3, 1, {prm::event_type::cmd}, &eq), 0);
	drain_own_completion(eq);
	const u32 n = 8 * 4 + 3; // four laps and a bit
	u32 owners[2] = {0, 0};
	for (u32 i = 1; i <= n; i++) {
		u32 slot = i % 32;
		ASSERT_TRUE(nop(rig.poster, slot));
		u8 e[64];
		ASSERT_TRUE(eventually([&] { return eq.next(e); })) << "EQE " << i;
		EXPECT_EQ(prm::get(e, prm::eqe::event_type), prm::event_type::cmd);
		const u8 *d = prm::at(e, prm::eqe::event_data);
		EXPECT_EQ(prm::get(d, prm::cmd_inter_comp_event::command_completion_vector), 1u << slot);
		owners[prm::get(e, prm::eqe::owner)]++;
		EXPECT_EQ(prm::get(e, prm::eqe::owner), (i >> 3) & 1);
		eq.doorbell(false);
	}
	// EQEs 0..35 of the EQ: laps 0, 2, 4 have owner 0 (8 + 8 + 4 incl.
	// the CREATE_EQ one), laps 1, 3 owner 1.
	EXPECT_EQ(owners[0], 8u + 8 + 3);
	EXPECT_EQ(owners[1], 8u * 2);
	// Nothing more than was posted.
	u8 e[64];
	EXPECT_FALSE(eq.next(e));
	// Never armed: never interrupted.
	EXPECT_EQ(rig.irq.count(1), 0u);
	std::vector<u8> out;
	ASSERT_EQ(query_eq(rig, eq.eqn, &out), 0);
	const u8 *eqc = prm::at(out.data(), prm::query_eq_out::eq_context_entry);
	// The EQE of the QUERY_EQ itself is written after its output.
	EXPECT_EQ(prm::get(eqc, prm::eqc::producer_counter), n + 1);
	EXPECT_EQ(prm::get(eqc, prm::eqc::consumer_counter), n + 1);
}

TEST(HcaEq, InterruptsOnlyWhenArmed)
{
	eq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_eq eq;
	ASSERT_EQ(create_eq(rig, rig.uar, 4, 2, {prm::event_type::cmd}, &eq), 0);
	drain_own_completion(eq);
	u8 e[64];
	// Not armed: the EQE is written, no interrupt.
	ASSERT_TRUE(nop(rig.poster));
	ASSERT_TRUE(eventually([&] { return eq.next(e); }));
	EXPECT_EQ(rig.irq.count(2), 0u);
	// Arm with everything consumed, then one event: one interrupt.
	eq.doorbell(true);
	ASSERT_TRUE(nop(rig.poster));
	ASSERT_TRUE(eventually([&] { return rig.irq.count(2) == 1; }));
	ASSERT_TRUE(eventually([&] { return eq.next(e); }));
	// Fired: further events without re-arming stay silent.
	ASSERT_TRUE(nop(rig.poster));
	ASSERT_TRUE(eventually([&] { return eq.next(e); }));
	EXPECT_EQ(rig.irq.count(2), 1u);
	// Arming while an EQE is still unconsumed interrupts at once.
	ASSERT_TRUE(nop(rig.poster));
	ASSERT_TRUE(eventually([&] { return eq.pending(); }));
	u32 before_ci = eq.ci;
	eq.doorbell(true); // ci does not cover the new EQE yet
	EXPECT_EQ(rig.irq.count(2), 2u);
	ASSERT_TRUE(eventually([&] { return eq.next(e); }));
	EXPECT_EQ(eq.ci, before_ci + 1);
	// A doorbell through another UAR page is not this EQ's.
	u32 other = alloc_uar(rig.poster);
	eq.doorbell(false);
	test_eq wrong = eq;
	wrong.uar = other;
	wrong.doorbell(true);
	ASSERT_TRUE(nop(rig.poster));
	ASSERT_TRUE(eventually([&] { return eq.next(e); }));
	EXPECT_EQ(rig.irq.count(2), 2u);
	EXPECT_EQ(rig.irq.total(), 2u);
}

TEST(HcaEq, HandlerRingsDoorbellFromTheInterrupt)
{
	eq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_eq eq;
	ASSERT_EQ(create_eq(rig, rig.uar, 4, 5, {prm::event_type::cmd}, &eq), 0);
	drain_own_completion(eq);
	std::atomic<u32> seen{0};
	// What a hardirq handler does: drain, update ci, re-arm, from inside
	// the device's raise().
	rig.irq.on_raise = [&](u32) {
		u8 e[64];
		while (eq.next(e))
			seen++;
		eq.doorbell(true);
	};
	eq.doorbell(true);
	for (u32 i = 0; i < 40; i++)
		ASSERT_TRUE(nop(rig.poster, i % 32));
	ASSERT_TRUE(eventually([&] { return seen.load() == 40; }));
	EXPECT_EQ(rig.irq.count(5), 40u);
	rig.dev.stop();
	rig.irq.on_raise = nullptr;
}

TEST(HcaEq, OverrunDropsEventsAndRecovers)
{
	eq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_eq eq;
	ASSERT_EQ(create_eq(rig, rig.uar, 2, 0, {prm::event_type::cmd}, &eq), 0);
	drain_own_completion(eq);
	for (u32 i = 0; i < 6; i++)
		ASSERT_TRUE(nop(rig.poster));
	std::vector<u8> out;
	ASSERT_EQ(query_eq(rig, eq.eqn, &out), 0);
	// One consumed (CREATE_EQ's) plus four in flight: the rest dropped.
	EXPECT_EQ(prm::get(prm::at(out.data(), prm::query_eq_out::eq_context_entry), prm::eqc::producer_counter), 5u);
	u8 e[64];
	for (u32 i = 0; i < 4; i++)
		ASSERT_TRUE(eq.next(e));
	EXPECT_FALSE(eq.next(e));
	eq.doorbell(false);
	ASSERT_TRUE(nop(rig.poster));
	ASSERT_TRUE(eventually([&] { return eq.next(e); }));
	EXPECT_EQ(prm::get(e, prm::eqe::owner), 1u); // EQE 5: second lap of four entries

}

TEST(HcaEq, PortChangeEvents)
{
	eq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_eq eq;
	ASSERT_EQ(create_eq(rig, rig.uar, 4, 0, {prm::event_type::port_change}, &eq), 0);
	EXPECT_FALSE(rig.dev.set_link(true)); // already up: no change
	EXPECT_TRUE(rig.dev.set_link(false));
	EXPECT_TRUE(rig.dev.set_link(true));
	u8 e[64];
	ASSERT_TRUE(eq.next(e));
	EXPECT_EQ(prm::get(e, prm::eqe::event_type), prm::event_type::port_change);
	EXPECT_EQ(prm::get(e, prm::eqe::event_sub_type), prm::port_change_subtype::down);
	EXPECT_EQ(prm::get(prm::at(e, prm::eqe::event_data), prm::port_state_change_event::port_num), 1u);
	ASSERT_TRUE(eq.next(e));
	EXPECT_EQ(prm::get(e, prm::eqe::event_sub_type), prm::port_change_subtype::active);
	EXPECT_FALSE(eq.next(e));
}

TEST(HcaEq, PageRequestAfterInit)
{
	eq_rig rig;
	ASSERT_TRUE(rig.ready());
	test_eq eq;
	ASSERT_EQ(create_eq(rig, rig.uar, 4, 0, {prm::event_type::page_request}, &eq), 0);
	u8 e[64];
	ASSERT_TRUE(eventually([&] { return eq.next(e); }));
	EXPECT_EQ(prm::get(e, prm::eqe::event_type), prm::event_type::page_request);
	const u8 *d = prm::at(e, prm::eqe::event_data);
	u32 want = prm::get(d, prm::pages_req_event::num_pages);
	EXPECT_EQ(want, hca::device_config{}.regular_pages);
	EXPECT_EQ(prm::get(d, prm::pages_req_event::function_id), 0u);
	// QUERY_PAGES(regular) agrees; after the give it wants nothing.
	std::vector<u8> out;
	ASSERT_EQ(status_of(rig.poster, cmd_in(prm::op::query_pages, 16, prm::query_pages_op_mod::regular_pages), 16,
			    &out),
		  0);
	EXPECT_EQ(prm::get(out.data(), prm::query_pages_out::num_pages), want);
	ASSERT_TRUE(give_pages(rig.poster, want, &rig.pages));
	ASSERT_EQ(status_of(rig.poster, cmd_in(prm::op::query_pages, 16, prm::query_pages_op_mod::regular_pages), 16,
			    &out),
		  0);
	EXPECT_EQ(prm::get(out.data(), prm::query_pages_out::num_pages), 0u);
}

TEST(HcaEq, NoLeaksAcrossARig)
{
	long before = host_env::live_allocations();
	{
		eq_rig rig;
		ASSERT_TRUE(rig.ready());
		test_eq eq;
		ASSERT_EQ(create_eq(rig, rig.uar, 8, 0, {prm::event_type::cmd}, &eq), 0);
		ASSERT_TRUE(nop(rig.poster));
	}
	EXPECT_EQ(host_env::live_allocations(), before);
	EXPECT_EQ(host_env::bug_count(), 0u);
}
