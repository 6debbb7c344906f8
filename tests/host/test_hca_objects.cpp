// SPDX-License-Identifier: GPL-2.0
// The hca's lifecycle and control objects: ENABLE/INIT/TEARDOWN/DISABLE
// state rules, ISSI, capabilities, firmware pages (given, used for contexts,
// taken back), UARs, PDs, mkeys, Q counters and the vport queries.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "hca/syndrome.h"
#include "hca_harness.h"
#include "prm/hca.h"
#include "prm/hca_cap.h"
#include "prm/mkey.h"
#include "prm/pages.h"
#include "prm/pd.h"
#include "prm/q_counter.h"
#include "prm/uar.h"
#include "prm/vport.h"

using namespace hca_test;
using namespace scx;
namespace st = prm::cmd_stat;
namespace synd = hca::synd;

namespace {

u8 run(hca_rig &rig, const std::vector<u8> &in, u32 outlen = 16, u32 *s = nullptr, std::vector<u8> *out = nullptr)
{
	return status_of(rig.poster, in, outlen, out, s);
}

u32 alloc_pd(hca_rig &rig)
{
	std::vector<u8> out;
	if (run(rig, cmd_in(prm::op::alloc_pd, 16), 16, nullptr, &out))
		return 0;
	return prm::get(out.data(), prm::alloc_pd_out::pd);
}

struct mkey_args {
	u32 pd = 0;
	u32 mode = prm::mkc_access_mode::mtt;
	u64 start = 0x10000;
	u64 len = 3 * 4096;
	u32 log_page = 12;
	u32 octwords = 2;            // capacity: 4 MTTs
	std::vector<u64> mtts;       // given entries (pairs)
	u8 key = 0x00;
	bool free = false;
};

u8 create_mkey(hca_rig &rig, const mkey_args &a, u32 *index, u32 *s = nullptr)
{
	namespace in = prm::create_mkey_in;
	auto c = cmd_in(prm::op::create_mkey, u32(in::size_bytes + a.mtts.size() * 8));
	u8 *mkc = prm::at(c.data(), in::memory_key_mkey_entry);
	prm::set(mkc, prm::mkc::access_mode_1_0, a.mode & 3);
	prm::set(mkc, prm::mkc::access_mode_4_2, a.mode >> 2);
	prm::set(mkc, prm::mkc::lr, 1);
	prm::set(mkc, prm::mkc::lw, 1);
	prm::set(mkc, prm::mkc::rr, 1);
	prm::set(mkc, prm::mkc::free, a.free);
	prm::set(mkc, prm::mkc::qpn, 0xffffff);
	prm::set(mkc, prm::mkc::mkey_7_0, a.key);
	prm::set(mkc, prm::mkc::pd, a.pd);
	prm::set(mkc, prm::mkc::start_addr, a.start);
	prm::set(mkc, prm::mkc::len, a.len);
	prm::set(mkc, prm::mkc::log_page_size, a.log_page);
	prm::set(mkc, prm::mkc::translations_octword_size, a.octwords);
	prm::set(c.data(), in::translations_octword_actual_size, u32(a.mtts.size() / 2));
	for (size_t i = 0; i < a.mtts.size(); i++)
		store_be<u64>(c.data() + in::klm_pas_mtt.byte_off + 8 * i, a.mtts[i]);
	std::vector<u8> out;
	u8 r = run(rig, c, 16, s, &out);
	if (!r)
		*index = prm::get(out.data(), prm::create_mkey_out::mkey_index);
	return r;
}

u8 destroy_mkey(hca_rig &rig, u32 index, u32 *s = nullptr)
{
	auto c = cmd_in(prm::op::destroy_mkey, 16);
	prm::set(c.data(), prm::destroy_mkey_in::mkey_index, index);
	return run(rig, c, 16, s);
}

} // namespace

TEST(HcaLifecycle, StateRules)
{
	hca_rig rig;
	ASSERT_TRUE(rig.ok);
	EXPECT_EQ(rig.dev.state(), hca::hca_state::disabled);
	u32 s = 0;
	EXPECT_EQ(run(rig, cmd_in(prm::op::query_issi, 16), 16, &s), st::bad_sys_state_err);
	EXPECT_EQ(s, synd::not_enabled);
	auto en = cmd_in(prm::op::enable_hca, 16);
	prm::set(en.data(), prm::enable_hca_in::function_id, 1);
	EXPECT_EQ(run(rig, en, 12, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::bad_function);
	EXPECT_EQ(run(rig, cmd_in(prm::op::enable_hca, 16), 12), 0);
	EXPECT_EQ(run(rig, cmd_in(prm::op::enable_hca, 16), 12, &s), st::bad_sys_state_err);
	EXPECT_EQ(s, synd::already_enabled);
	EXPECT_EQ(run(rig, cmd_in(prm::op::alloc_pd, 16), 16, &s), st::bad_sys_state_err);
	EXPECT_EQ(s, synd::not_initialized);

	// ISSI: 0 and 1 supported, 1 chosen.
	std::vector<u8> out;
	ASSERT_EQ(run(rig, cmd_in(prm::op::query_issi, 16), prm::query_issi_out::size_bytes, nullptr, &out), 0);
	EXPECT_EQ(prm::get(out.data(), prm::query_issi_out::current_issi), 0u);
	EXPECT_EQ(prm::get(out.data(), prm::query_issi_out::supported_issi_dw0), 3u);
	auto issi = cmd_in(prm::op::set_issi, 16);
	prm::set(issi.data(), prm::set_issi_in::current_issi, 2);
	EXPECT_EQ(run(rig, issi, 16, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::bad_issi);
	prm::set(issi.data(), prm::set_issi_in::current_issi, 1);
	EXPECT_EQ(run(rig, issi, 16), 0);

	// INIT_HCA wants its boot and init pages first.
	EXPECT_EQ(run(rig, cmd_in(prm::op::init_hca, 32), 16, &s), st::bad_sys_state_err);
	EXPECT_EQ(s, synd::init_pages_missing);
	ASSERT_EQ(run(rig, cmd_in(prm::op::query_pages, 16, prm::query_pages_op_mod::boot_pages), 16, nullptr, &out), 0);
	u32 boot = prm::get(out.data(), prm::query_pages_out::num_pages);
	EXPECT_EQ(boot, hca::device_config{}.boot_pages);
	ASSERT_TRUE(give_pages(rig.poster, boot, &rig.pages));
	ASSERT_EQ(run(rig, cmd_in(prm::op::query_pages, 16, prm::query_pages_op_mod::init_pages), 16, nullptr, &out), 0);
	u32 init = prm::get(out.data(), prm::query_pages_out::num_pages);
	EXPECT_EQ(init, hca::device_config{}.init_pages);
	ASSERT_TRUE(give_pages(rig.poster, init, &rig.pages));
	EXPECT_EQ(run(rig, cmd_in(prm::op::init_hca, 32), 16), 0);
	EXPECT_EQ(rig.dev.state(), hca::hca_state::initialized);
	EXPECT_EQ(run(rig, cmd_in(prm::op::init_hca, 32), 16, &s), st::bad_sys_state_err);
	EXPECT_EQ(s, synd::already_initialized);
	EXPECT_EQ(run(rig, issi, 16, &s), st::bad_sys_state_err);
	EXPECT_EQ(s, synd::issi_after_init);
	auto cap = cmd_in(prm::op::set_hca_cap, prm::set_hca_cap_in::size_bytes);
	EXPECT_EQ(run(rig, cap, 16, &s), st::bad_sys_state_err);
	EXPECT_EQ(s, synd::set_cap_after_init);
	EXPECT_EQ(run(rig, cmd_in(prm::op::disable_hca, 16), 12, &s), st::bad_sys_state_err);
	EXPECT_EQ(s, synd::disable_initialized);

	// Objects made now disappear with TEARDOWN_HCA.
	u32 pd = alloc_pd(rig);
	ASSERT_NE(pd, 0u);
	u32 uar = alloc_uar(rig.poster);
	test_eq eq;
	ASSERT_EQ(create_eq(rig, uar, 4, 0, {}, &eq), 0);
	auto td = cmd_in(prm::op::teardown_hca, 16);
	prm::set(td.data(), prm::teardown_hca_in::profile, 7);
	EXPECT_EQ(run(rig, td, 16, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::bad_teardown_profile);
	prm::set(td.data(), prm::teardown_hca_in::profile, prm::teardown_profile::graceful_close);
	EXPECT_EQ(run(rig, td, 16), 0);
	EXPECT_EQ(rig.dev.state(), hca::hca_state::enabled);
	// Every page is idle again and can be taken back.
	u32 held = rig.dev.fw_pages_held();
	auto take = cmd_in(prm::op::manage_pages, 16, prm::manage_pages_op_mod::hca_return_pages);
	prm::set(take.data(), prm::manage_pages_in::input_num_entries, held);
	ASSERT_EQ(run(rig, take, 16 + held * 8, nullptr, &out), 0);
	EXPECT_EQ(prm::get(out.data(), prm::manage_pages_out::output_num_entries), held);
	EXPECT_EQ(rig.dev.fw_pages_held(), 0u);
	EXPECT_EQ(run(rig, cmd_in(prm::op::disable_hca, 16), 12), 0);
	EXPECT_EQ(rig.dev.state(), hca::hca_state::disabled);
	// And up again from scratch.
	EXPECT_TRUE(rig.up());
}

TEST(HcaPages, GiveIsAllOrNothing)
{
	hca_rig rig;
	ASSERT_TRUE(rig.ok);
	ASSERT_EQ(run(rig, cmd_in(prm::op::enable_hca, 16), 12), 0);
	namespace in = prm::manage_pages_in;
	dma_mem a = rig.poster.arena().alloc(4096), b = rig.poster.arena().alloc(4096);
	auto give = cmd_in(prm::op::manage_pages, in::size_bytes + 16, prm::manage_pages_op_mod::allocation_success);
	prm::set(give.data(), in::input_num_entries, 2);
	store_be<u64>(give.data() + in::pas.byte_off, a.bus);
	store_be<u64>(give.data() + in::pas.byte_off + 8, b.bus + 8);
	u32 s = 0;
	EXPECT_EQ(run(rig, give, 16, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::page_misaligned);
	EXPECT_EQ(rig.dev.fw_pages_held(), 0u);
	store_be<u64>(give.data() + in::pas.byte_off + 8, a.bus);
	EXPECT_EQ(run(rig, give, 16, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::page_duplicate);
	EXPECT_EQ(rig.dev.fw_pages_held(), 0u);
	store_be<u64>(give.data() + in::pas.byte_off + 8, 0x7fff00000000ull);
	EXPECT_EQ(run(rig, give, 16, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::page_unmapped);
	store_be<u64>(give.data() + in::pas.byte_off + 8, b.bus);
	EXPECT_EQ(run(rig, give, 16), 0);
	EXPECT_EQ(rig.dev.fw_pages_held(), 2u);
	// The driver may say it has no pages; nothing changes.
	auto fail = cmd_in(prm::op::manage_pages, 16, prm::manage_pages_op_mod::allocation_fail);
	EXPECT_EQ(run(rig, fail, 16), 0);
	auto bad = cmd_in(prm::op::manage_pages, 16, 9);
	EXPECT_EQ(run(rig, bad, 16, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::bad_op_mod);
}

TEST(HcaPages, ContextsLiveInFirmwarePages)
{
	hca::device_config cfg;
	cfg.regular_pages = 0;
	hca_rig rig(cfg);
	ASSERT_TRUE(rig.up());
	u32 pd = alloc_pd(rig);
	// 24 pages, 16 contexts per page, but each MTT mkey also takes an
	// index and a data page: soon there is no context memory left.
	mkey_args a;
	a.pd = pd;
	std::vector<u32> keys;
	u32 s = 0, idx = 0;
	u8 r = 0;
	while ((r = create_mkey(rig, a, &idx, &s)) == 0)
		keys.push_back(idx);
	EXPECT_EQ(r, st::no_res_err);
	EXPECT_EQ(s, synd::no_fw_memory);
	EXPECT_GT(keys.size(), 5u);
	EXPECT_LT(keys.size(), 24u);
	// In use, no page can be taken back; more pages make room.
	auto take = cmd_in(prm::op::manage_pages, 16, prm::manage_pages_op_mod::hca_return_pages);
	prm::set(take.data(), prm::manage_pages_in::input_num_entries, 100);
	std::vector<u8> out;
	ASSERT_EQ(run(rig, take, 16 + 800, nullptr, &out), 0);
	u32 returned = prm::get(out.data(), prm::manage_pages_out::output_num_entries);
	ASSERT_TRUE(give_pages(rig.poster, 8, &rig.pages));
	EXPECT_EQ(create_mkey(rig, a, &idx, &s), 0);
	keys.push_back(idx);
	for (u32 k : keys)
		EXPECT_EQ(destroy_mkey(rig, k), 0);
	EXPECT_LE(returned, 1u);
	// Everything free again: all pages can go back now.
	u32 held = rig.dev.fw_pages_held();
	prm::set(take.data(), prm::manage_pages_in::input_num_entries, held);
	ASSERT_EQ(run(rig, take, 16 + held * 8, nullptr, &out), 0);
	EXPECT_EQ(prm::get(out.data(), prm::manage_pages_out::output_num_entries), held);
}

TEST(HcaCaps, QueryAndSet)
{
	hca_rig rig;
	ASSERT_TRUE(rig.ok);
	ASSERT_EQ(run(rig, cmd_in(prm::op::enable_hca, 16), 12), 0);
	auto query = [&](u16 type, u16 mode, std::vector<u8> *out) {
		return run(rig, cmd_in(prm::op::query_hca_cap, 16, prm::hca_cap_op_mod(type, mode)),
			   prm::query_hca_cap_out::size_bytes, nullptr, out);
	};
	std::vector<u8> out;
	ASSERT_EQ(query(prm::cap_type::general, prm::cap_mode::max, &out), 0);
	const u8 *g = prm::at(out.data(), prm::query_hca_cap_out::capability);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::log_max_eq), 6u);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::log_max_cq_sz), 18u);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::log_max_mkey), 14u);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::log_pg_sz), 12u);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::roce), 1u);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::atomic), 1u);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::cqe_version), 1u);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::log_max_msg), 30u);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::uar_4k), 1u);
	ASSERT_EQ(query(prm::cap_type::roce, prm::cap_mode::cur, &out), 0);
	const u8 *r = prm::at(out.data(), prm::query_hca_cap_out::capability);
	EXPECT_EQ(prm::get(r, prm::roce_cap::roce_version), prm::roce_version::v2_cap);
	EXPECT_EQ(prm::get(r, prm::roce_cap::r_roce_dest_udp_port), 4791u);
	ASSERT_EQ(query(prm::cap_type::atomic, prm::cap_mode::max, &out), 0);
	const u8 *a = prm::at(out.data(), prm::query_hca_cap_out::capability);
	EXPECT_EQ(prm::get(a, prm::atomic_caps::atomic_operations),
		  u32(prm::atomic_ops::cmp_swap | prm::atomic_ops::fetch_add));
	EXPECT_EQ(prm::get(a, prm::atomic_caps::atomic_size_qp), 8u);
	// Types softcx offers nothing of (here NIC flow tables, 7, and the
	// last one 6.1 knows, 0x26) read as all zeroes; beyond them, none.
	for (u16 type : {u16(7), u16(prm::cap_type::count - 1)}) {
		ASSERT_EQ(query(type, prm::cap_mode::cur, &out), 0);
		const u8 *z = prm::at(out.data(), prm::query_hca_cap_out::capability);
		EXPECT_EQ(std::count(z, z + prm::cmd_hca_cap::size_bytes, 0), prm::cmd_hca_cap::size_bytes);
	}
	u32 s = 0;
	EXPECT_EQ(run(rig, cmd_in(prm::op::query_hca_cap, 16, prm::hca_cap_op_mod(prm::cap_type::count, 0)),
		      prm::query_hca_cap_out::size_bytes, &s),
		  st::bad_param_err);
	EXPECT_EQ(s, synd::bad_cap_type);
	EXPECT_EQ(run(rig, cmd_in(prm::op::set_hca_cap, prm::set_hca_cap_in::size_bytes, prm::hca_cap_op_mod(7, 0)),
		      16, &s),
		  st::bad_param_err);
	EXPECT_EQ(s, synd::bad_cap_type);

	// SET_HCA_CAP: within the max, and only the settable fields change.
	auto set = cmd_in(prm::op::set_hca_cap, prm::set_hca_cap_in::size_bytes,
			  prm::hca_cap_op_mod(prm::cap_type::general, 0));
	u8 *v = prm::at(set.data(), prm::set_hca_cap_in::capability);
	prm::set(v, prm::cmd_hca_cap::log_max_qp, 13);
	EXPECT_EQ(run(rig, set, 16, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::cap_above_max);
	prm::set(v, prm::cmd_hca_cap::log_max_qp, 11);
	prm::set(v, prm::cmd_hca_cap::cmdif_checksum, 2);
	EXPECT_EQ(run(rig, set, 16, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::bad_cap_value);
	prm::set(v, prm::cmd_hca_cap::cmdif_checksum, prm::cmdif_checksum::disabled);
	prm::set(v, prm::cmd_hca_cap::log_max_cq, 2); // not settable: ignored
	EXPECT_EQ(run(rig, set, 16), 0);
	ASSERT_EQ(query(prm::cap_type::general, prm::cap_mode::cur, &out), 0);
	g = prm::at(out.data(), prm::query_hca_cap_out::capability);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::log_max_qp), 11u);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::cmdif_checksum), prm::cmdif_checksum::disabled);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::log_max_cq), 12u);
	ASSERT_EQ(query(prm::cap_type::general, prm::cap_mode::max, &out), 0);
	g = prm::at(out.data(), prm::query_hca_cap_out::capability);
	EXPECT_EQ(prm::get(g, prm::cmd_hca_cap::log_max_qp), 12u);

	auto seta = cmd_in(prm::op::set_hca_cap, prm::set_hca_cap_in::size_bytes,
			   prm::hca_cap_op_mod(prm::cap_type::atomic, 0));
	prm::set(prm::at(seta.data(), prm::set_hca_cap_in::capability), prm::atomic_caps::atomic_req_8B_endianness_mode, 1);
	EXPECT_EQ(run(rig, seta, 16), 0);
	ASSERT_EQ(query(prm::cap_type::atomic, prm::cap_mode::cur, &out), 0);
	EXPECT_EQ(prm::get(prm::at(out.data(), prm::query_hca_cap_out::capability),
			   prm::atomic_caps::atomic_req_8B_endianness_mode),
		  1u);
}

TEST(HcaResources, UarPdQCounter)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	std::set<u32> uars;
	for (int i = 0; i < 4; i++) {
		u32 u = alloc_uar(rig.poster);
		EXPECT_GE(u, hca::hca_limits::first_uar);
		EXPECT_TRUE(uars.insert(u).second);
	}
	u32 s = 0;
	auto du = cmd_in(prm::op::dealloc_uar, 16);
	prm::set(du.data(), prm::dealloc_uar_in::uar, *uars.begin());
	EXPECT_EQ(run(rig, du, 16), 0);
	EXPECT_EQ(run(rig, du, 16, &s), st::bad_res_err);
	EXPECT_EQ(s, synd::uar_invalid);

	u32 pd = alloc_pd(rig);
	ASSERT_NE(pd, 0u);
	auto dp = cmd_in(prm::op::dealloc_pd, 16);
	prm::set(dp.data(), prm::dealloc_pd_in::pd, pd);
	EXPECT_EQ(run(rig, dp, 16), 0);
	EXPECT_EQ(run(rig, dp, 16, &s), st::bad_res_err);
	EXPECT_EQ(s, synd::pd_invalid);

	std::vector<u8> out;
	ASSERT_EQ(run(rig, cmd_in(prm::op::alloc_q_counter, 16), 16, nullptr, &out), 0);
	u32 id = prm::get(out.data(), prm::alloc_q_counter_out::counter_set_id);
	EXPECT_NE(id, 0u);
	auto q = cmd_in(prm::op::query_q_counter, prm::query_q_counter_in::size_bytes);
	prm::set(q.data(), prm::query_q_counter_in::counter_set_id, id);
	ASSERT_EQ(run(rig, q, prm::query_q_counter_out::size_bytes, nullptr, &out), 0);
	EXPECT_EQ(prm::get(out.data(), prm::query_q_counter_out::out_of_sequence), 0u);
	auto d = cmd_in(prm::op::dealloc_q_counter, 16);
	prm::set(d.data(), prm::dealloc_q_counter_in::counter_set_id, id);
	EXPECT_EQ(run(rig, d, 16), 0);
	EXPECT_EQ(run(rig, q, prm::query_q_counter_out::size_bytes, &s), st::bad_res_err);
	EXPECT_EQ(s, synd::q_counter_invalid);
	// Counter sets run out.
	u32 n = 0;
	while (run(rig, cmd_in(prm::op::alloc_q_counter, 16), 16, &s) == 0)
		n++;
	EXPECT_EQ(n, hca::hca_limits::max_q_counters - 1);
	EXPECT_EQ(s, synd::q_counter_exhausted);
}

TEST(HcaResources, TransportDomains)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	auto alloc = [&](u32 *s) {
		std::vector<u8> out;
		if (run(rig, cmd_in(prm::op::alloc_transport_domain, 16), 16, s, &out))
			return 0u;
		return u32(prm::get(out.data(), prm::alloc_transport_domain_out::transport_domain));
	};
	auto dealloc = [&](u32 td, u32 *s) {
		auto c = cmd_in(prm::op::dealloc_transport_domain, 16);
		prm::set(c.data(), prm::dealloc_transport_domain_in::transport_domain, td);
		return run(rig, c, 16, s);
	};
	u32 s = 0;
	std::set<u32> tds;
	for (u32 td; (td = alloc(&s)) != 0;)
		EXPECT_TRUE(tds.insert(td).second);
	EXPECT_EQ(s, synd::td_exhausted);
	EXPECT_EQ(tds.size(), (1u << hca::hca_limits::log_max_transport_domain) - 1);
	u32 td = *tds.begin();
	EXPECT_EQ(dealloc(td, &s), 0);
	EXPECT_EQ(dealloc(td, &s), st::bad_res_err);
	EXPECT_EQ(s, synd::td_invalid);
	EXPECT_EQ(alloc(&s), td); // the only one free
}

TEST(HcaMkey, CreateQueryDestroy)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	mkey_args a;
	a.pd = alloc_pd(rig);
	a.key = 0x3c;
	a.mtts = {0x100000 | 3, 0x200000 | 3, 0x300000 | 1};
	a.mtts.push_back(0); // octword padding
	u32 idx = 0;
	ASSERT_EQ(create_mkey(rig, a, &idx), 0);
	EXPECT_GE(idx, 2u);
	u32 key = idx << 8 | a.key;
	auto q = cmd_in(prm::op::query_mkey, 16);
	prm::set(q.data(), prm::query_mkey_in::mkey_index, idx);
	std::vector<u8> out;
	ASSERT_EQ(run(rig, q, prm::query_mkey_out::size_bytes, nullptr, &out), 0);
	const u8 *mkc = prm::at(out.data(), prm::query_mkey_out::memory_key_mkey_entry);
	EXPECT_EQ(prm::get(mkc, prm::mkc::pd), a.pd);
	EXPECT_EQ(prm::get(mkc, prm::mkc::start_addr), a.start);
	EXPECT_EQ(prm::get(mkc, prm::mkc::len), a.len);
	EXPECT_EQ(prm::get(mkc, prm::mkc::mkey_7_0), a.key);
	EXPECT_EQ(prm::get(mkc, prm::mkc::access_mode_1_0), prm::mkc_access_mode::mtt);
	EXPECT_EQ(prm::get(mkc, prm::mkc::lr), 1u);
	EXPECT_EQ(prm::get(mkc, prm::mkc::rw), 0u);
	EXPECT_EQ(prm::get(mkc, prm::mkc::log_page_size), 12u);
	EXPECT_EQ(load_be<u64>(prm::at(out.data(), prm::query_mkey_out::bsf0_klm0_pas_mtt0_1) + 8), 0x200003u);

	// What the data path will see.
	hca::mkey_ctx m{};
	ASSERT_TRUE(rig.dev.mkeys().lookup(key, &m));
	EXPECT_EQ(m.pd, a.pd);
	EXPECT_EQ(m.access & hca::mkey_access::remote_write, 0);
	EXPECT_FALSE(rig.dev.mkeys().lookup(key ^ 1, &m)); // wrong variant
	u64 e = 0;
	ASSERT_TRUE(rig.dev.mkeys().mtt(key, 2, &e));
	EXPECT_EQ(e, 0x300001u);
	EXPECT_FALSE(rig.dev.mkeys().mtt(key, 4, &e));

	// The PD is in use now.
	u32 s = 0;
	auto dp = cmd_in(prm::op::dealloc_pd, 16);
	prm::set(dp.data(), prm::dealloc_pd_in::pd, a.pd);
	EXPECT_EQ(run(rig, dp, 16, &s), st::bad_res_state_err);
	EXPECT_EQ(s, synd::pd_busy);
	EXPECT_EQ(destroy_mkey(rig, idx), 0);
	EXPECT_EQ(destroy_mkey(rig, idx, &s), st::bad_res_err);
	EXPECT_EQ(s, synd::mkey_invalid);
	EXPECT_FALSE(rig.dev.mkeys().lookup(key, &m));
	EXPECT_EQ(run(rig, dp, 16), 0);
}

TEST(HcaMkey, RejectsBadRequests)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	mkey_args a;
	a.pd = alloc_pd(rig);
	u32 idx = 0, s = 0;
	mkey_args b = a;
	b.pd = a.pd + 100;
	EXPECT_EQ(create_mkey(rig, b, &idx, &s), st::bad_res_err);
	EXPECT_EQ(s, synd::mkey_bad_pd);
	b = a;
	b.mode = prm::mkc_access_mode::klms;
	EXPECT_EQ(create_mkey(rig, b, &idx, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::mkey_bad_access_mode);
	b = a;
	b.mtts = {0x100800, 0};
	EXPECT_EQ(create_mkey(rig, b, &idx, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::mkey_bad_mtt);
	b = a;
	b.mtts = {0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000};
	EXPECT_EQ(create_mkey(rig, b, &idx, &s), st::bad_param_err); // 3 octwords > 2
	EXPECT_EQ(s, synd::mkey_bad_mtt_size);
	b = a;
	b.len = 5 * 4096; // four MTTs cannot cover five pages
	EXPECT_EQ(create_mkey(rig, b, &idx, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::mkey_bad_range);
	b = a;
	b.log_page = 11;
	EXPECT_EQ(create_mkey(rig, b, &idx, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::mkey_bad_page_size);
	// The list announced is longer than the input.
	namespace in = prm::create_mkey_in;
	auto c = cmd_in(prm::op::create_mkey, in::size_bytes);
	u8 *mkc = prm::at(c.data(), in::memory_key_mkey_entry);
	prm::set(mkc, prm::mkc::access_mode_1_0, prm::mkc_access_mode::mtt);
	prm::set(mkc, prm::mkc::pd, a.pd);
	prm::set(mkc, prm::mkc::log_page_size, 12);
	prm::set(mkc, prm::mkc::translations_octword_size, 4);
	prm::set(c.data(), in::translations_octword_actual_size, 4);
	EXPECT_EQ(run(rig, c, 16, &s), st::bad_inp_len_err);
	EXPECT_EQ(s, synd::short_list);
	// A free key (for UMR) with room but no list, and a PA key.
	b = a;
	b.free = true;
	b.octwords = 64;
	EXPECT_EQ(create_mkey(rig, b, &idx), 0);
	b = a;
	b.mode = prm::mkc_access_mode::pa;
	b.len = u64(1) << 40;
	EXPECT_EQ(create_mkey(rig, b, &idx), 0);
}

TEST(HcaMkey, NeverTheInvalidLkey)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	ASSERT_TRUE(give_pages(rig.poster, 200, &rig.pages));
	mkey_args a;
	a.pd = alloc_pd(rig);
	a.mode = prm::mkc_access_mode::pa;
	a.key = 0;
	std::set<u32> seen;
	// Create and destroy repeatedly so indices wrap around the table.
	for (u32 i = 0; i < 600; i++) {
		u32 idx = 0;
		ASSERT_EQ(create_mkey(rig, a, &idx), 0);
		EXPECT_NE(idx << 8 | a.key, prm::lkey::invalid);
		EXPECT_GE(idx, 2u);
		seen.insert(idx);
		if (i % 3) {
			ASSERT_EQ(destroy_mkey(rig, idx), 0);
		}
	}
	EXPECT_EQ(seen.count(1), 0u);
	EXPECT_EQ(seen.count(0), 0u);
}

TEST(HcaVport, StateAndContext)
{
	hca::device_config cfg;
	cfg.mtu = 4096;
	cfg.mac[5] = 0x42;
	hca_rig rig(cfg);
	ASSERT_TRUE(rig.up());
	std::vector<u8> out;
	ASSERT_EQ(run(rig, cmd_in(prm::op::query_vport_state, 16), 16, nullptr, &out), 0);
	EXPECT_EQ(prm::get(out.data(), prm::query_vport_state_out::state), prm::vport_state::up);
	rig.dev.set_link(false);
	ASSERT_EQ(run(rig, cmd_in(prm::op::query_vport_state, 16), 16, nullptr, &out), 0);
	EXPECT_EQ(prm::get(out.data(), prm::query_vport_state_out::state), prm::vport_state::down);
	u32 s = 0;
	auto other = cmd_in(prm::op::query_vport_state, 16);
	prm::set(other.data(), prm::query_vport_state_in::other_vport, 1);
	prm::set(other.data(), prm::query_vport_state_in::vport_number, 3);
	EXPECT_EQ(run(rig, other, 16, &s), st::bad_param_err);
	EXPECT_EQ(s, synd::vport_other);
	EXPECT_EQ(run(rig, cmd_in(prm::op::query_vport_state, 16, prm::vport_state_op_mod::uplink), 16, &s),
		  st::bad_param_err);
	EXPECT_EQ(s, synd::vport_bad_op_mod);

	ASSERT_EQ(run(rig, cmd_in(prm::op::query_nic_vport_context, 16), prm::query_nic_vport_context_out::size_bytes,
		      nullptr, &out),
		  0);
	const u8 *v = prm::at(out.data(), prm::query_nic_vport_context_out::nic_vport_context);
	EXPECT_EQ(prm::get(v, prm::nic_vport_context::mtu), 4096u);
	EXPECT_EQ(prm::get(v, prm::nic_vport_context::roce_en), 1u);
	EXPECT_EQ(prm::get(v, prm::nic_vport_context::node_guid), cfg.node_guid);
	const u8 *mac = prm::at(v, prm::nic_vport_context::permanent_address);
	EXPECT_EQ(prm::get(mac, prm::mac_address_layout::mac_addr_47_32), 0x025cu);
	EXPECT_EQ(prm::get(mac, prm::mac_address_layout::mac_addr_31_0), 0x00000042u);
}
