// SPDX-License-Identifier: GPL-2.0
// Queue pairs and shared receive queues of the hca, by raw commands:
// CREATE_QP with its page list and every check on it, the PRM state machine
// (each legal transition, each illegal one answering BAD_QP_STATE), what the
// transitions take from their context and the optional-parameter mask,
// QUERY_QP, DESTROY_QP from every state, 2RST resetting the device's
// indices, QP numbers and exhaustion, CREATE/QUERY/ARM/DESTROY_SRQ, and a
// teardown that leaves every firmware page free.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "hca/syndrome.h"
#include "hca_harness.h"
#include "hca_objs.h"
#include "prm/cq.h"
#include "prm/eq.h"
#include "prm/hca.h"
#include "prm/hca_cap.h"
#include "prm/pages.h"
#include "prm/pd.h"
#include "prm/q_counter.h"
#include "prm/qp.h"
#include "prm/srq.h"
#include "prm/uar.h"
#include "prm/umem.h"

using namespace hca_test;
using namespace scx;
namespace st = prm::cmd_stat;
namespace synd = hca::synd;
namespace qs = prm::qpc_state;
namespace q = prm::qpc;
namespace ads = prm::ads;
namespace optp = prm::qp_optpar;

namespace {

u8 query_qp(qp_rig &rig, u32 qpn, std::vector<u8> *ctx, u32 extra_out = 0, std::vector<u8> *raw = nullptr)
{
	auto c = cmd_in(prm::op::query_qp, prm::query_qp_in::size_bytes);
	prm::set(c.data(), prm::query_qp_in::qpn, qpn);
	std::vector<u8> out;
	u8 r = run(rig, c, prm::query_qp_out::size_bytes + extra_out, nullptr, &out);
	if (!r) {
		const u8 *p = prm::at(out.data(), prm::query_qp_out::qpc);
		ctx->assign(p, p + q::size_bytes);
		if (raw)
			*raw = out;
	}
	return r;
}

u8 qp_state(qp_rig &rig, u32 qpn)
{
	std::vector<u8> ctx;
	if (query_qp(rig, qpn, &ctx))
		return 0xff;
	return u8(prm::get(ctx.data(), q::state));
}

using ctx_t = std::vector<u8>;

ctx_t blank() { return ctx_t(q::size_bytes, 0); }

// Valid contexts for the three main transitions.
ctx_t ctx_init(u8 st)
{
	ctx_t c = blank();
	u8 *path = prm::at(c.data(), q::primary_address_path);
	prm::set(c.data(), q::st, st);
	prm::set(path, ads::vhca_port_num, 1);
	prm::set(path, ads::pkey_index, 0);
	if (st == prm::qpc_st::ud) {
		prm::set(c.data(), q::q_key, 0x11111111);
	} else {
		prm::set(c.data(), q::rwe, 1);
		if (st == prm::qpc_st::rc) {
			prm::set(c.data(), q::rre, 1);
			prm::set(c.data(), q::rae, 1);
			prm::set(c.data(), q::atomic_mode, prm::qpc_atomic_mode::ib_spec);
		}
	}
	return c;
}

const u8 k_gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2};

ctx_t ctx_rtr(u8 st, u32 remote = 0x42)
{
	ctx_t c = blank();
	u8 *path = prm::at(c.data(), q::primary_address_path);
	prm::set(c.data(), q::st, st);
	prm::set(c.data(), q::mtu, st == prm::qpc_st::ud ? prm::qpc_mtu::bytes_4k : prm::qpc_mtu::bytes_1k);
	prm::set(c.data(), q::log_msg_max, st == prm::qpc_st::ud ? 12 : 30);
	if (st != prm::qpc_st::ud) {
		prm::set(c.data(), q::remote_qpn, remote);
		prm::set(c.data(), q::next_rcv_psn, 0x100);
		prm::set(path, ads::rmac_47_32, 0x025c);
		prm::set(path, ads::rmac_31_0, 0x00000002);
		std::memcpy(prm::at(path, ads::rgid_rip), k_gid, 16);
		prm::set(path, ads::src_addr_index, 1);
		prm::set(path, ads::hop_limit, 64);
		prm::set(path, ads::udp_sport, 0xc001);
		prm::set(path, ads::vhca_port_num, 1);
	}
	if (st == prm::qpc_st::rc) {
		prm::set(c.data(), q::log_rra_max, 2);
		prm::set(c.data(), q::min_rnr_nak, 12);
	}
	return c;
}

ctx_t ctx_rts(u8 st)
{
	ctx_t c = blank();
	prm::set(c.data(), q::st, st);
	prm::set(c.data(), q::next_send_psn, 0x200);
	if (st == prm::qpc_st::rc) {
		prm::set(c.data(), q::retry_count, 7);
		prm::set(c.data(), q::rnr_retry, 6);
		prm::set(c.data(), q::log_sra_max, 2);
		prm::set(prm::at(c.data(), q::primary_address_path), ads::ack_timeout, 14);
	}
	return c;
}

u8 modify(qp_rig &rig, u16 op, u32 qpn, const ctx_t &ctx, u32 opt = 0, u32 *synd = nullptr)
{
	bool with_ctx = op != prm::op::qp_2err && op != prm::op::qp_2rst;
	auto c = cmd_in(op, with_ctx ? prm::rst2init_qp_in::size_bytes : prm::qp_2rst_in::size_bytes);
	prm::set(c.data(), prm::rst2init_qp_in::qpn, qpn);
	if (with_ctx) {
		prm::set(c.data(), prm::rst2init_qp_in::opt_param_mask, opt);
		std::memcpy(prm::at(c.data(), prm::rst2init_qp_in::qpc), ctx.data(), q::size_bytes);
	}
	return run(rig, c, 16, synd);
}

u8 to_err(qp_rig &rig, u32 qpn) { return modify(rig, prm::op::qp_2err, qpn, blank()); }
u8 to_rst(qp_rig &rig, u32 qpn) { return modify(rig, prm::op::qp_2rst, qpn, blank()); }

// From RESET to `target` along the legal path (ERR: from RTS).
bool walk(qp_rig &rig, u32 qpn, u8 st, u8 target)
{
	if (target == qs::rst)
		return true;
	if (modify(rig, prm::op::rst2init_qp, qpn, ctx_init(st)))
		return false;
	if (target == qs::init)
		return true;
	if (modify(rig, prm::op::init2rtr_qp, qpn, ctx_rtr(st)))
		return false;
	if (target == qs::rtr)
		return true;
	if (modify(rig, prm::op::rtr2rts_qp, qpn, ctx_rts(st)))
		return false;
	if (target == qs::rts)
		return true;
	return target == qs::err && to_err(rig, qpn) == 0;
}

struct op_case {
	u16 op;
	const char *name;
	u8 from; // 0xff: any state
	u8 to;
};
const op_case k_ops[] = {
	{prm::op::rst2init_qp, "RST2INIT", qs::rst, qs::init},
	{prm::op::init2init_qp, "INIT2INIT", qs::init, qs::init},
	{prm::op::init2rtr_qp, "INIT2RTR", qs::init, qs::rtr},
	{prm::op::rtr2rts_qp, "RTR2RTS", qs::rtr, qs::rts},
	{prm::op::rts2rts_qp, "RTS2RTS", qs::rts, qs::rts},
	{prm::op::sqerr2rts_qp, "SQERR2RTS", qs::sqer, qs::rts},
	{prm::op::sqd_rts_qp, "SQD_RTS", qs::sqd, qs::rts},
	{prm::op::qp_2err, "2ERR", 0xff, qs::err},
	{prm::op::qp_2rst, "2RST", 0xff, qs::rst},
};
const u8 k_states[] = {qs::rst, qs::init, qs::rtr, qs::rts, qs::err};

ctx_t ctx_for(u16 op, u8 st)
{
	switch (op) {
	case prm::op::rst2init_qp: return ctx_init(st);
	case prm::op::init2rtr_qp: return ctx_rtr(st);
	case prm::op::rtr2rts_qp: return ctx_rts(st);
	default: return blank();
	}
}

// Every firmware page can be taken back: nothing lives in them any more.
void expect_all_pages_free(qp_rig &rig)
{
	u32 held = rig.dev.fw_pages_held();
	auto take = cmd_in(prm::op::manage_pages, 16, prm::manage_pages_op_mod::hca_return_pages);
	prm::set(take.data(), prm::manage_pages_in::input_num_entries, held);
	std::vector<u8> out;
	ASSERT_EQ(run(rig, take, 16 + held * 8, nullptr, &out), 0);
	EXPECT_EQ(prm::get(out.data(), prm::manage_pages_out::output_num_entries), held);
	EXPECT_EQ(rig.dev.fw_pages_held(), 0u);
}

u8 teardown(qp_rig &rig)
{
	auto td = cmd_in(prm::op::teardown_hca, 16);
	prm::set(td.data(), prm::teardown_hca_in::profile, prm::teardown_profile::graceful_close);
	return run(rig, td);
}

u8 srq_cmd(qp_rig &rig, u16 op, u32 srqn, u32 *synd = nullptr, std::vector<u8> *out = nullptr)
{
	auto c = cmd_in(op, 16);
	prm::set(c.data(), prm::destroy_srq_in::srqn, srqn);
	return run(rig, c, op == prm::op::query_srq ? prm::query_srq_out::size_bytes : 16, synd, out);
}

u8 arm_srq(qp_rig &rig, u32 srqn, u32 lwm, u16 op_mod = prm::arm_rq_op_mod::srq, u32 *synd = nullptr)
{
	auto c = cmd_in(prm::op::arm_rq, prm::arm_rq_in::size_bytes, op_mod);
	prm::set(c.data(), prm::arm_rq_in::srq_number, srqn);
	prm::set(c.data(), prm::arm_rq_in::lwm, lwm);
	return run(rig, c, 16, synd);
}

} // namespace

TEST(HcaQp, CapsAdvertiseWhatCreateQpAccepts)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	std::vector<u8> out;
	ASSERT_EQ(run(rig, cmd_in(prm::op::query_hca_cap, 16, prm::hca_cap_op_mod(prm::cap_type::general, prm::cap_mode::cur)),
		      prm::query_hca_cap_out::size_bytes, nullptr, &out),
		  0);
	const u8 *g = prm::at(out.data(), prm::query_hca_cap_out::capability);
	namespace gen = prm::cmd_hca_cap;
	EXPECT_EQ(prm::get(g, gen::log_max_qp), hca::hca_limits::log_max_qp);
	EXPECT_EQ(prm::get(g, gen::log_max_qp_sz), hca::hca_limits::log_max_qp_sz);
	EXPECT_EQ(prm::get(g, gen::log_max_srq), hca::hca_limits::log_max_srq);
	EXPECT_EQ(prm::get(g, gen::log_max_srq_sz), hca::hca_limits::log_max_srq_sz);
	EXPECT_EQ(prm::get(g, gen::max_wqe_sz_sq), hca::hca_limits::max_wqe_sz_sq);
	EXPECT_EQ(prm::get(g, gen::max_wqe_sz_rq), hca::hca_limits::max_wqe_sz_rq);
	EXPECT_EQ(prm::get(g, gen::rc), 1u);
	EXPECT_EQ(prm::get(g, gen::uc), 1u);
	EXPECT_EQ(prm::get(g, gen::ud), 1u);
	EXPECT_EQ(prm::get(g, gen::xrc), 0u);
	// The largest queues the caps allow are accepted: a 2^15-WQEBB SQ and
	// a 2^15 x 512-byte RQ (18 MiB of buffer, 4608 pages)...
	qp_spec s = spec_for(rig);
	s.log_sq = prm::get(g, gen::log_max_qp_sz);
	s.log_rq = prm::get(g, gen::log_max_qp_sz);
	s.log_rq_stride = 5; // 16 << 5 = max_wqe_sz_rq
	ASSERT_TRUE(give_pages(rig.poster, 16, &rig.pages)); // the page list: 1 index + 9 data pages
	test_qp big;
	u32 sy = 0;
	ASSERT_EQ(create_qp(rig, s, &big, &sy), 0) << std::hex << sy;
	hca::qp_runtime rt;
	ASSERT_TRUE(rig.dev.qps().lookup(big.qpn, &rt));
	EXPECT_EQ(rt.sq_wqebbs, 1u << 15);
	EXPECT_EQ(rt.rq_wqes, 1u << 15);
	EXPECT_EQ(rt.rq_stride_shift, 9u);
	EXPECT_EQ(rt.pas.count, big.npas);
	EXPECT_EQ(destroy_qp(rig, big.qpn), 0);
	// ... one step beyond is not.
	s.log_rq_stride = 6;
	EXPECT_EQ(create_qp(rig, s, &big, &sy), st::bad_param_err);
	EXPECT_EQ(sy, synd::qp_bad_rq_size);
}

TEST(HcaQp, CreateQueryDestroy)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	test_qp qp;
	ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
	EXPECT_GE(qp.qpn, 2u);
	EXPECT_LT(qp.qpn, 1u << 24);
	EXPECT_EQ(qp.npas, 1u); // 1 KiB RQ + 1 KiB SQ
	std::vector<u8> ctx, raw;
	ASSERT_EQ(query_qp(rig, qp.qpn, &ctx, 16, &raw), 0);
	const u8 *c = ctx.data();
	EXPECT_EQ(prm::get(c, q::state), qs::rst);
	EXPECT_EQ(prm::get(c, q::st), prm::qpc_st::rc);
	EXPECT_EQ(prm::get(c, q::pd), rig.pd);
	EXPECT_EQ(prm::get(c, q::cqn_snd), rig.cq[0]);
	EXPECT_EQ(prm::get(c, q::cqn_rcv), rig.cq[1]);
	EXPECT_EQ(prm::get(c, q::uar_page), rig.uar);
	EXPECT_EQ(prm::get(c, q::user_index), 0x123u);
	EXPECT_EQ(prm::get(c, q::log_sq_size), 4u);
	EXPECT_EQ(prm::get(c, q::log_rq_size), 4u);
	EXPECT_EQ(prm::get(c, q::log_rq_stride), 2u);
	EXPECT_EQ(prm::get(c, q::dbr_addr), qp.dbr.bus);
	// The page list follows when the output has room for it.
	EXPECT_EQ(load_be<u64>(raw.data() + prm::query_qp_out::pas.byte_off), qp.buf.bus);

	// The data path's view: RQ at the buffer start, SQ after it.
	hca::qp_runtime rt;
	ASSERT_TRUE(rig.dev.qps().lookup(qp.qpn, &rt));
	EXPECT_EQ(rt.qpn, qp.qpn);
	EXPECT_EQ(rt.state, qs::rst);
	EXPECT_EQ(rt.rq_wqes, 16u);
	EXPECT_EQ(rt.rq_stride_shift, 6u);
	EXPECT_EQ(rt.sq_wqebbs, 16u);
	EXPECT_EQ(rt.sq_offset, 1024u);
	EXPECT_EQ(rt.dbr_addr, qp.dbr.bus);
	EXPECT_EQ(rt.user_index, 0x123u);
	u64 bus = 0;
	ASSERT_TRUE(rig.dev.qps().rq_addr(rt, 64, &bus));
	EXPECT_EQ(bus, qp.buf.bus + 64);
	ASSERT_TRUE(rig.dev.qps().sq_addr(rt, 0, &bus));
	EXPECT_EQ(bus, qp.buf.bus + 1024);
	EXPECT_FALSE(rig.dev.qps().sq_addr(rt, 1024, &bus));
	EXPECT_FALSE(rig.dev.qps().rq_addr(rt, 1024, &bus));
	EXPECT_EQ(rig.dev.qps().count(), 1u);

	u32 sy = 0;
	EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
	EXPECT_FALSE(rig.dev.qps().lookup(qp.qpn, &rt));
	EXPECT_EQ(destroy_qp(rig, qp.qpn, &sy), st::bad_res_err);
	EXPECT_EQ(sy, synd::qp_invalid);
	EXPECT_EQ(query_qp(rig, qp.qpn, &ctx), st::bad_res_err);
	EXPECT_EQ(modify(rig, prm::op::rst2init_qp, qp.qpn, ctx_init(prm::qpc_st::rc), 0, &sy), st::bad_res_err);
	EXPECT_EQ(sy, synd::qp_invalid);
	EXPECT_EQ(destroy_qp(rig, 0, &sy), st::bad_res_err);
	EXPECT_EQ(destroy_qp(rig, 1, &sy), st::bad_res_err);
}

TEST(HcaQp, BufferWithPageOffsetAndMultiplePages)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	qp_spec s = spec_for(rig);
	s.log_sq = 7;        // 8 KiB
	s.log_rq = 6;        // 64 x 64 B = 4 KiB
	s.page_offset = 32;  // half a page in
	test_qp qp;
	ASSERT_EQ(create_qp(rig, s, &qp), 0);
	EXPECT_EQ(qp.npas, 4u); // 2 KiB + 12 KiB over 4 KiB pages
	hca::qp_runtime rt;
	ASSERT_TRUE(rig.dev.qps().lookup(qp.qpn, &rt));
	EXPECT_EQ(rt.page_offset, 2048u);
	u64 bus = 0;
	ASSERT_TRUE(rig.dev.qps().rq_addr(rt, 0, &bus));
	EXPECT_EQ(bus, qp.buf.bus + 2048);
	ASSERT_TRUE(rig.dev.qps().sq_addr(rt, 64 * 127, &bus));
	EXPECT_EQ(bus, qp.buf.bus + 2048 + 4096 + 64 * 127);
	// One page short of what the sizes need: the list must be there.
	s.npas = 3;
	u32 sy = 0;
	test_qp shorter;
	EXPECT_EQ(create_qp(rig, s, &shorter, &sy), st::bad_inp_len_err);
	EXPECT_EQ(sy, synd::short_list);
	EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
}

// DevX: work queues and doorbell record in user memory (UMEM), named by
// umem id and offset instead of a page list.
TEST(HcaQp, WorkQueuesAndDoorbellRecordInUmems)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	dma_mem wq = rig.poster.arena().alloc(2 * 4096), rec = rig.poster.arena().alloc(4096);
	auto umem = [&](const dma_mem &m, u32 pages, u32 first) {
		namespace in = prm::create_umem_in;
		auto c = cmd_in(prm::op::create_umem, in::size_bytes + pages * 8);
		prm::set(prm::at(c.data(), in::umem), prm::umem::page_offset, first);
		prm::set(prm::at(c.data(), in::umem), prm::umem::num_of_mtt, pages);
		for (u32 i = 0; i < pages; i++)
			store_be<u64>(c.data() + in::size_bytes + 8 * i, (m.bus + 4096 * i) | 3);
		std::vector<u8> out;
		EXPECT_EQ(run(rig, c, prm::create_umem_out::size_bytes, nullptr, &out), 0);
		return u32(prm::get(out.data(), prm::create_umem_out::umem_id));
	};
	u32 wq_id = umem(wq, 2, 0x200), rec_id = umem(rec, 1, 0);
	// 1 KiB of RQ then 1 KiB of SQ, starting 0x200 + 0x900 into the first
	// page: the SQ's second half lies on the second page.
	qp_spec s = spec_for(rig);
	s.npas = 0;
	s.tweak = [&](u8 *in) {
		u8 *qpc = prm::at(in, prm::create_qp_in::qpc);
		prm::set(in, prm::create_qp_in::wq_umem_valid, 1);
		prm::set(in, prm::create_qp_in::wq_umem_id, wq_id);
		prm::set(in, prm::create_qp_in::wq_umem_offset, 0x900);
		prm::set(qpc, q::dbr_umem_valid, 1);
		prm::set(qpc, q::dbr_umem_id, rec_id);
		prm::set(qpc, q::dbr_addr, 0x80);
	};
	test_qp qp;
	ASSERT_EQ(create_qp(rig, s, &qp), 0);
	hca::qp_runtime rt;
	ASSERT_TRUE(rig.dev.qps().lookup(qp.qpn, &rt));
	EXPECT_EQ(rt.dbr_addr, rec.bus + 0x80);
	u64 bus = 0;
	ASSERT_TRUE(rig.dev.qps().rq_addr(rt, 64, &bus));
	EXPECT_EQ(bus, wq.bus + 0xb00 + 64);
	ASSERT_TRUE(rig.dev.qps().sq_addr(rt, 0, &bus));
	EXPECT_EQ(bus, wq.bus + 0xf00);
	ASSERT_TRUE(rig.dev.qps().sq_addr(rt, 0x200, &bus));
	EXPECT_EQ(bus, wq.bus + 4096 + 0x100);
	// A umem that would have to hold more than it has is refused.
	qp_spec big = s;
	big.log_sq = 8; // 16 KiB of SQ
	u32 sy = 0;
	test_qp none;
	EXPECT_EQ(create_qp(rig, big, &none, &sy), st::bad_param_err);
	EXPECT_EQ(sy, synd::umem_out_of_range);
	// The umems stay while the QP uses them, and go after it.
	auto destroy = [&](u32 id, u32 *synd) {
		auto c = cmd_in(prm::op::destroy_umem, prm::destroy_umem_in::size_bytes);
		prm::set(c.data(), prm::destroy_umem_in::umem_id, id);
		return run(rig, c, 16, synd);
	};
	EXPECT_EQ(destroy(wq_id, &sy), st::bad_res_state_err);
	EXPECT_EQ(sy, synd::umem_busy);
	EXPECT_EQ(destroy(rec_id, &sy), st::bad_res_state_err);
	EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
	EXPECT_EQ(destroy(wq_id, nullptr), 0);
	EXPECT_EQ(destroy(rec_id, nullptr), 0);
}

TEST(HcaQp, QueuelessAndSrqQpsNeedNoBuffer)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	test_srq srq;
	srq_spec ss;
	ss.pd = rig.pd;
	ASSERT_EQ(create_srq(rig, ss, &srq), 0);
	qp_spec s = spec_for(rig);
	s.rq_type = prm::qp_rq_type::srq;
	s.srqn = srq.srqn;
	test_qp a, b;
	ASSERT_EQ(create_qp(rig, s, &a), 0);
	EXPECT_EQ(a.npas, 1u); // just the SQ
	hca::qp_runtime rt;
	ASSERT_TRUE(rig.dev.qps().lookup(a.qpn, &rt));
	EXPECT_EQ(rt.srqn, srq.srqn);
	EXPECT_EQ(rt.rq_wqes, 0u);
	EXPECT_EQ(rt.sq_offset, 0u);
	s.rq_type = prm::qp_rq_type::zero_len;
	s.no_sq = true;
	ASSERT_EQ(create_qp(rig, s, &b), 0);
	EXPECT_EQ(b.npas, 0u);
	ASSERT_TRUE(rig.dev.qps().lookup(b.qpn, &rt));
	EXPECT_EQ(rt.sq_wqebbs, 0u);
	EXPECT_EQ(rt.rq_wqes, 0u);
	EXPECT_EQ(rt.srqn, 0u);
	u64 bus;
	EXPECT_FALSE(rig.dev.qps().sq_addr(rt, 0, &bus));
	// Both walk the whole state machine.
	EXPECT_TRUE(walk(rig, a.qpn, prm::qpc_st::rc, qs::rts));
	EXPECT_TRUE(walk(rig, b.qpn, prm::qpc_st::rc, qs::rts));
	EXPECT_EQ(destroy_qp(rig, a.qpn), 0);
	EXPECT_EQ(destroy_qp(rig, b.qpn), 0);
	EXPECT_EQ(srq_cmd(rig, prm::op::destroy_srq, srq.srqn), 0);
}

TEST(HcaQp, CreateRejectsBadContexts)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	struct bad {
		const char *what;
		std::function<void(qp_spec &)> edit;
		u8 status;
		u32 synd;
	};
	dma_mem far_dbr = rig.poster.arena().alloc(64);
	const bad cases[] = {
		{"XRC", [](qp_spec &s) { s.st = prm::qpc_st::xrc; }, st::bad_param_err, synd::qp_bad_st},
		{"DCI with an RQ", [](qp_spec &s) { s.st = prm::qpc_st::dci; }, st::bad_param_err, synd::qp_bad_rq_type},
		{"raw", [](qp_spec &s) { s.st = prm::qpc_st::raw_datagram; }, st::bad_param_err, synd::qp_bad_st},
		{"pm armed",
		 [](qp_spec &s) {
			 s.tweak = [](u8 *in) {
				 prm::set(prm::at(in, prm::create_qp_in::qpc), q::pm_state, prm::qpc_pm_state::armed);
			 };
		 },
		 st::bad_param_err, synd::qp_bad_pm_state},
		{"wq signature",
		 [](qp_spec &s) { s.tweak = [](u8 *in) { prm::set(prm::at(in, prm::create_qp_in::qpc), q::wq_signature, 1); }; },
		 st::bad_param_err, synd::qp_unsupported},
		{"cross channel",
		 [](qp_spec &s) { s.tweak = [](u8 *in) { prm::set(prm::at(in, prm::create_qp_in::qpc), q::cd_master, 1); }; },
		 st::bad_param_err, synd::qp_unsupported},
		{"end padding",
		 [](qp_spec &s) {
			 s.tweak = [](u8 *in) { prm::set(prm::at(in, prm::create_qp_in::qpc), q::end_padding_mode, 1); };
		 },
		 st::bad_param_err, synd::qp_unsupported},
		{"input qpn", [](qp_spec &s) { s.tweak = [](u8 *in) { prm::set(in, prm::create_qp_in::input_qpn, 5); }; },
		 st::bad_param_err, synd::qp_input_qpn_unsupported},
		{"reserved", [](qp_spec &s) { s.tweak = [](u8 *in) { prm::set(in, prm::create_qp_in::reserved_at_40, 1); }; },
		 st::bad_param_err, synd::qp_reserved},
		{"opt mask", [](qp_spec &s) { s.tweak = [](u8 *in) { prm::set(in, prm::create_qp_in::opt_param_mask, 2); }; },
		 st::bad_param_err, synd::qp_bad_opt_param},
		{"wq in no umem",
		 [](qp_spec &s) { s.tweak = [](u8 *in) { prm::set(in, prm::create_qp_in::wq_umem_valid, 1); }; },
		 st::bad_res_err, synd::umem_invalid},
		{"dbr in no umem",
		 [](qp_spec &s) { s.tweak = [](u8 *in) { prm::set(prm::at(in, prm::create_qp_in::qpc), q::dbr_umem_valid, 1); }; },
		 st::bad_res_err, synd::umem_invalid},
		{"crq", [](qp_spec &s) { s.rq_type = prm::qp_rq_type::crq; }, st::bad_param_err, synd::qp_bad_rq_type},
		{"rq type 5", [](qp_spec &s) { s.rq_type = 5; }, st::bad_param_err, synd::qp_bad_rq_type},
		{"rq stride", [](qp_spec &s) { s.log_rq_stride = 6; }, st::bad_param_err, synd::qp_bad_rq_size},
		{"page size",
		 [](qp_spec &s) { s.tweak = [](u8 *in) { prm::set(prm::at(in, prm::create_qp_in::qpc), q::log_page_size, 19); }; },
		 st::bad_param_err, synd::qp_bad_page_size},
		{"dbr misaligned", [&](qp_spec &s) { s.dbr = far_dbr.bus + 4; }, st::bad_param_err, synd::qp_bad_dbr},
		{"dbr unmapped", [](qp_spec &s) { s.dbr = 0x7fff00000000ull; }, st::bad_param_err, synd::qp_bad_dbr},
		{"no pd", [](qp_spec &s) { s.pd = 0; }, st::bad_res_err, synd::qp_bad_pd},
		{"pd + 1", [&](qp_spec &s) { s.pd = rig.pd + 1; }, st::bad_res_err, synd::qp_bad_pd},
		{"uar", [&](qp_spec &s) { s.uar = rig.uar + 1; }, st::bad_res_err, synd::uar_invalid},
		{"counter",
		 [](qp_spec &s) { s.tweak = [](u8 *in) { prm::set(prm::at(in, prm::create_qp_in::qpc), q::counter_set_id, 9); }; },
		 st::bad_res_err, synd::qp_bad_counter},
		{"send cq", [](qp_spec &s) { s.cqn_snd = 999; }, st::bad_res_err, synd::qp_bad_cq},
		{"recv cq", [](qp_spec &s) { s.cqn_rcv = 999; }, st::bad_res_err, synd::qp_bad_cq},
		{"srq", [](qp_spec &s) { s.rq_type = prm::qp_rq_type::srq; s.srqn = 77; }, st::bad_res_err, synd::qp_bad_srq},
		{"short list", [](qp_spec &s) { s.npas = 0; }, st::bad_inp_len_err, synd::short_list},
		{"misaligned page",
		 [](qp_spec &s) {
			 s.tweak = [](u8 *in) {
				 u8 *pas = in + prm::create_qp_in::pas.byte_off;
				 store_be<u64>(pas, load_be<u64>(pas) + 512);
			 };
		 },
		 st::bad_param_err, synd::qp_bad_page},
		{"unmapped page",
		 [](qp_spec &s) {
			 s.tweak = [](u8 *in) { store_be<u64>(in + prm::create_qp_in::pas.byte_off, 0x7fff00000000ull); };
		 },
		 st::bad_param_err, synd::qp_bad_page},
	};
	for (const auto &b : cases) {
		qp_spec s = spec_for(rig);
		b.edit(s);
		test_qp qp;
		u32 sy = 0;
		EXPECT_EQ(create_qp(rig, s, &qp, &sy), b.status) << b.what;
		EXPECT_EQ(sy, b.synd) << b.what << std::hex << " got " << sy;
	}
	EXPECT_EQ(rig.dev.qps().count(), 0u);
	// A short command, and an output too short for the QPN.
	u32 sy = 0;
	EXPECT_EQ(run(rig, cmd_in(prm::op::create_qp, 0x100), 16, &sy), st::bad_inp_len_err);
	EXPECT_EQ(sy, synd::short_input);
	EXPECT_EQ(run(rig, cmd_in(prm::op::create_qp, prm::create_qp_in::size_bytes), 8, &sy), st::bad_outp_len_err);
	// Nothing the failures touched stays referenced: CQs, PD, UAR can go
	// and every firmware page is free.
	EXPECT_EQ(destroy_cq(rig, rig.cq[0]), 0);
	EXPECT_EQ(destroy_cq(rig, rig.cq[1]), 0);
	EXPECT_EQ(dealloc_pd(rig, rig.pd), 0);
	auto de = cmd_in(prm::op::destroy_eq, prm::destroy_eq_in::size_bytes);
	prm::set(de.data(), prm::destroy_eq_in::eq_number, rig.eq.eqn);
	EXPECT_EQ(run(rig, de), 0);
	auto du = cmd_in(prm::op::dealloc_uar, prm::dealloc_uar_in::size_bytes);
	prm::set(du.data(), prm::dealloc_uar_in::uar, rig.uar);
	EXPECT_EQ(run(rig, du), 0);
	expect_all_pages_free(rig);
}

TEST(HcaQp, EveryLegalTransitionForRcUcUd)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	for (u8 stype : {prm::qpc_st::rc, prm::qpc_st::uc, prm::qpc_st::ud}) {
		SCOPED_TRACE(int(stype));
		test_qp qp;
		ASSERT_EQ(create_qp(rig, spec_for(rig, stype), &qp), 0);
		u32 gen0 = 0;
		hca::qp_runtime rt;
		ASSERT_TRUE(rig.dev.qps().lookup(qp.qpn, &rt));
		gen0 = rt.generation;
		EXPECT_EQ(modify(rig, prm::op::rst2init_qp, qp.qpn, ctx_init(stype)), 0);
		EXPECT_EQ(qp_state(rig, qp.qpn), qs::init);
		EXPECT_EQ(modify(rig, prm::op::init2init_qp, qp.qpn, ctx_t(blank())), 0);
		EXPECT_EQ(qp_state(rig, qp.qpn), qs::init);
		EXPECT_EQ(modify(rig, prm::op::init2rtr_qp, qp.qpn, ctx_rtr(stype)), 0);
		EXPECT_EQ(qp_state(rig, qp.qpn), qs::rtr);
		EXPECT_EQ(modify(rig, prm::op::rtr2rts_qp, qp.qpn, ctx_rts(stype)), 0);
		EXPECT_EQ(qp_state(rig, qp.qpn), qs::rts);
		EXPECT_EQ(modify(rig, prm::op::rts2rts_qp, qp.qpn, blank()), 0);
		EXPECT_EQ(qp_state(rig, qp.qpn), qs::rts);

		// What the transitions took, in QUERY_QP and in the runtime.
		std::vector<u8> ctx;
		ASSERT_EQ(query_qp(rig, qp.qpn, &ctx), 0);
		const u8 *c = ctx.data();
		const u8 *path = prm::at(c, q::primary_address_path);
		ASSERT_TRUE(rig.dev.qps().lookup(qp.qpn, &rt));
		EXPECT_EQ(rt.state, qs::rts);
		EXPECT_EQ(rt.generation, gen0 + 5);
		EXPECT_EQ(rt.next_send_psn, 0x200u);
		EXPECT_EQ(prm::get(c, q::next_send_psn), 0x200u);
		EXPECT_EQ(prm::get(path, ads::vhca_port_num), 1u);
		if (stype == prm::qpc_st::ud) {
			EXPECT_EQ(rt.q_key, 0x11111111u);
			EXPECT_EQ(prm::get(c, q::q_key), 0x11111111u);
			EXPECT_EQ(rt.access, 0u);
			EXPECT_EQ(rt.remote_qpn, 0u);
		} else {
			EXPECT_EQ(rt.remote_qpn, 0x42u);
			EXPECT_EQ(prm::get(c, q::remote_qpn), 0x42u);
			EXPECT_EQ(rt.next_rcv_psn, 0x100u);
			EXPECT_EQ(rt.mtu, prm::qpc_mtu::bytes_1k);
			EXPECT_EQ(0, std::memcmp(rt.path.rgid, k_gid, 16));
			EXPECT_EQ(rt.path.rmac[0], 0x02);
			EXPECT_EQ(rt.path.rmac[1], 0x5c);
			EXPECT_EQ(rt.path.rmac[5], 0x02);
			EXPECT_EQ(rt.path.src_addr_index, 1u);
			EXPECT_EQ(rt.path.hop_limit, 64u);
			EXPECT_EQ(rt.path.udp_sport, 0xc001u);
		}
		if (stype == prm::qpc_st::rc) {
			EXPECT_EQ(rt.access, hca::qp_access::remote_read | hca::qp_access::remote_write |
						     hca::qp_access::remote_atomic);
			EXPECT_EQ(rt.retry_count, 7u);
			EXPECT_EQ(rt.rnr_retry, 6u);
			EXPECT_EQ(rt.min_rnr_nak, 12u);
			EXPECT_EQ(rt.log_sra_max, 2u);
			EXPECT_EQ(rt.log_rra_max, 2u);
			EXPECT_EQ(rt.path.ack_timeout, 14u);
			EXPECT_EQ(prm::get(c, q::rre), 1u);
		}
		if (stype == prm::qpc_st::uc) {
			EXPECT_EQ(rt.access, hca::qp_access::remote_write);
		}

		// Any state to ERR and to RESET; ERR to ERR; RESET to RESET.
		EXPECT_EQ(to_err(rig, qp.qpn), 0);
		EXPECT_EQ(qp_state(rig, qp.qpn), qs::err);
		EXPECT_EQ(to_err(rig, qp.qpn), 0);
		EXPECT_EQ(to_rst(rig, qp.qpn), 0);
		EXPECT_EQ(qp_state(rig, qp.qpn), qs::rst);
		EXPECT_EQ(to_rst(rig, qp.qpn), 0);
		EXPECT_EQ(to_err(rig, qp.qpn), 0); // RESET -> ERR too
		EXPECT_EQ(to_rst(rig, qp.qpn), 0);
		// And once more through the machine after the reset.
		EXPECT_TRUE(walk(rig, qp.qpn, stype, qs::rts));
		EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
	}
}

// A DC initiator: created with no RQ of its own (or naming an SRQ, as
// mlx5_ib does), walked to RTS with the attributes mlx5_ib gives it. It
// has no path (each WQE names its target), grants nothing remote, takes
// no optional parameter but the access bits at RTR (UCX's DevX path sets
// RAE), and its rd_atomic limit is the DC one.
TEST(HcaQp, DcInitiatorTransitions)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	const u8 dci = prm::qpc_st::dci;
	test_srq srq;
	srq_spec ss;
	ss.pd = rig.pd;
	ASSERT_EQ(create_srq(rig, ss, &srq), 0);
	qp_spec s = spec_for(rig, dci);
	s.rq_type = prm::qp_rq_type::zero_len;
	test_qp a, b;
	ASSERT_EQ(create_qp(rig, s, &a), 0);
	s.rq_type = prm::qp_rq_type::srq;
	s.srqn = srq.srqn;
	ASSERT_EQ(create_qp(rig, s, &b), 0);
	u32 sy = 0;
	for (const test_qp *qp : {&a, &b}) {
		ASSERT_EQ(modify(rig, prm::op::rst2init_qp, qp->qpn, ctx_init(dci)), 0);
		// No optional parameter in any transition.
		ctx_t c = blank();
		prm::set(prm::at(c.data(), q::primary_address_path), ads::pkey_index, 0);
		EXPECT_EQ(modify(rig, prm::op::init2init_qp, qp->qpn, c, optp::pkey_index, &sy), st::bad_param_err);
		EXPECT_EQ(sy, synd::qp_bad_opt_param);
		EXPECT_EQ(modify(rig, prm::op::init2init_qp, qp->qpn, c), 0);
		// RTR: an MTU and a message size, no remote QPN or path.
		c = blank();
		prm::set(c.data(), q::mtu, prm::qpc_mtu::bytes_1k);
		prm::set(c.data(), q::log_msg_max, 30);
		EXPECT_EQ(modify(rig, prm::op::init2rtr_qp, qp->qpn, c, optp::q_key, &sy), st::bad_param_err);
		EXPECT_EQ(sy, synd::qp_bad_opt_param);
		prm::set(c.data(), q::mtu, 0);
		EXPECT_EQ(modify(rig, prm::op::init2rtr_qp, qp->qpn, c, 0, &sy), st::bad_param_err);
		EXPECT_EQ(sy, synd::qp_bad_mtu);
		prm::set(c.data(), q::mtu, prm::qpc_mtu::bytes_1k);
		prm::set(c.data(), q::rae, 1);
		ASSERT_EQ(modify(rig, prm::op::init2rtr_qp, qp->qpn, c, optp::rae), 0);
		// RTS: the requester's attributes, bounded by the DC limits.
		c = ctx_rts(prm::qpc_st::rc);
		prm::set(c.data(), q::st, dci);
		prm::set(c.data(), q::log_sra_max, 5);
		EXPECT_EQ(modify(rig, prm::op::rtr2rts_qp, qp->qpn, c, 0, &sy), st::bad_param_err);
		EXPECT_EQ(sy, synd::qp_bad_rd_atomic);
		prm::set(c.data(), q::log_sra_max, 2);
		ASSERT_EQ(modify(rig, prm::op::rtr2rts_qp, qp->qpn, c), 0);
		prm::set(c.data(), q::min_rnr_nak, 3);
		EXPECT_EQ(modify(rig, prm::op::rts2rts_qp, qp->qpn, c, optp::rnr_timeout, &sy), st::bad_param_err);
		EXPECT_EQ(sy, synd::qp_bad_opt_param);

		hca::qp_runtime rt;
		ASSERT_TRUE(rig.dev.qps().lookup(qp->qpn, &rt));
		EXPECT_EQ(rt.state, qs::rts);
		EXPECT_EQ(rt.st, dci);
		EXPECT_EQ(rt.access, 0u); // ctx_init's rwe is not a DCI's
		EXPECT_EQ(rt.mtu, prm::qpc_mtu::bytes_1k);
		EXPECT_EQ(rt.log_msg_max, 30u);
		EXPECT_EQ(rt.next_send_psn, 0x200u);
		EXPECT_EQ(rt.retry_count, 7u);
		EXPECT_EQ(rt.rnr_retry, 6u);
		EXPECT_EQ(rt.log_sra_max, 2u);
		EXPECT_EQ(rt.path.ack_timeout, 14u);
		EXPECT_EQ(rt.remote_qpn, 0u);
		ASSERT_NE(rt.tp, nullptr);
		EXPECT_EQ(rt.tp->a.st, hca::tp_st::dci);
		EXPECT_EQ(rt.tp->a.max_rd_atomic, 4u);
		std::vector<u8> ctx;
		ASSERT_EQ(query_qp(rig, qp->qpn, &ctx), 0);
		EXPECT_EQ(prm::get(ctx.data(), q::st), dci);
		EXPECT_EQ(prm::get(ctx.data(), q::retry_count), 7u);
		EXPECT_EQ(prm::get(ctx.data(), q::rwe), 0u);
		EXPECT_EQ(to_err(rig, qp->qpn), 0);
		EXPECT_EQ(to_rst(rig, qp->qpn), 0);
	}
	// The SRQ it named is held while it lives.
	EXPECT_EQ(srq_cmd(rig, prm::op::destroy_srq, srq.srqn, &sy), st::bad_res_state_err);
	EXPECT_EQ(destroy_qp(rig, a.qpn), 0);
	EXPECT_EQ(destroy_qp(rig, b.qpn), 0);
	EXPECT_EQ(srq_cmd(rig, prm::op::destroy_srq, srq.srqn), 0);
}

TEST(HcaQp, EveryIllegalTransitionAnswersBadQpState)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	test_qp qp;
	ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
	int legal = 0, illegal = 0;
	for (u8 from : k_states) {
		for (const auto &o : k_ops) {
			SCOPED_TRACE(std::string(o.name) + " from state " + std::to_string(from));
			ASSERT_EQ(to_rst(rig, qp.qpn), 0);
			ASSERT_TRUE(walk(rig, qp.qpn, prm::qpc_st::rc, from));
			u32 sy = 0;
			u8 r = modify(rig, o.op, qp.qpn, ctx_for(o.op, prm::qpc_st::rc), 0, &sy);
			if (o.from == 0xff || o.from == from) {
				EXPECT_EQ(r, 0);
				EXPECT_EQ(qp_state(rig, qp.qpn), o.to);
				legal++;
			} else {
				EXPECT_EQ(r, st::bad_qp_state_err);
				EXPECT_EQ(sy, synd::qp_bad_state);
				EXPECT_EQ(qp_state(rig, qp.qpn), from); // unchanged
				illegal++;
			}
		}
	}
	// 5 states x 9 operations: 2ERR and 2RST from all 5, the other five
	// each from one state (SQERR2RTS and SQD_RTS from none reachable).
	EXPECT_EQ(legal, 15);
	EXPECT_EQ(illegal, 30);
	EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
}

TEST(HcaQp, OptionalParametersPerTransition)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	test_qp rc, ud;
	ASSERT_EQ(create_qp(rig, spec_for(rig, prm::qpc_st::rc), &rc), 0);
	ASSERT_EQ(create_qp(rig, spec_for(rig, prm::qpc_st::ud), &ud), 0);
	u32 sy = 0;
	// RST2INIT takes no optional parameters.
	EXPECT_EQ(modify(rig, prm::op::rst2init_qp, rc.qpn, ctx_init(prm::qpc_st::rc), optp::rre, &sy),
		  st::bad_param_err);
	EXPECT_EQ(sy, synd::qp_bad_opt_param);
	EXPECT_EQ(qp_state(rig, rc.qpn), qs::rst);
	ASSERT_EQ(modify(rig, prm::op::rst2init_qp, rc.qpn, ctx_init(prm::qpc_st::rc)), 0);
	ASSERT_EQ(modify(rig, prm::op::rst2init_qp, ud.qpn, ctx_init(prm::qpc_st::ud)), 0);
	// INIT2INIT: access and pkey for RC, Q_Key for UD; not Q_Key for RC.
	ctx_t c = blank();
	prm::set(c.data(), q::rwe, 1);
	prm::set(prm::at(c.data(), q::primary_address_path), ads::pkey_index, 5);
	EXPECT_EQ(modify(rig, prm::op::init2init_qp, rc.qpn, c, optp::rwe | optp::rre | optp::rae | optp::pkey_index), 0);
	hca::qp_runtime rt;
	ASSERT_TRUE(rig.dev.qps().lookup(rc.qpn, &rt));
	EXPECT_EQ(rt.access, hca::qp_access::remote_write);
	EXPECT_EQ(rt.path.pkey_index, 5u);
	EXPECT_EQ(modify(rig, prm::op::init2init_qp, rc.qpn, c, optp::q_key, &sy), st::bad_param_err);
	EXPECT_EQ(sy, synd::qp_bad_opt_param);
	prm::set(c.data(), q::q_key, 0x2222);
	EXPECT_EQ(modify(rig, prm::op::init2init_qp, ud.qpn, c, optp::q_key), 0);
	ASSERT_TRUE(rig.dev.qps().lookup(ud.qpn, &rt));
	EXPECT_EQ(rt.q_key, 0x2222u);
	// Alternate paths are not supported; undefined bits neither.
	EXPECT_EQ(modify(rig, prm::op::init2rtr_qp, rc.qpn, ctx_rtr(prm::qpc_st::rc), optp::alt_addr_path, &sy),
		  st::bad_param_err);
	EXPECT_EQ(sy, synd::qp_bad_opt_param);
	EXPECT_EQ(modify(rig, prm::op::init2rtr_qp, rc.qpn, ctx_rtr(prm::qpc_st::rc), 1u << 30, &sy),
		  st::bad_param_err);
	ASSERT_EQ(modify(rig, prm::op::init2rtr_qp, rc.qpn, ctx_rtr(prm::qpc_st::rc)), 0);
	ASSERT_EQ(modify(rig, prm::op::rtr2rts_qp, rc.qpn, ctx_rts(prm::qpc_st::rc)), 0);
	ASSERT_EQ(modify(rig, prm::op::init2rtr_qp, ud.qpn, ctx_rtr(prm::qpc_st::ud)), 0);
	ASSERT_EQ(modify(rig, prm::op::rtr2rts_qp, ud.qpn, ctx_rts(prm::qpc_st::ud)), 0);
	// RTS2RTS: the RNR timer for RC; a new receive CQ for UD, and it moves
	// the CQ references along.
	c = blank();
	prm::set(c.data(), q::min_rnr_nak, 3);
	EXPECT_EQ(modify(rig, prm::op::rts2rts_qp, rc.qpn, c, optp::rnr_timeout), 0);
	ASSERT_TRUE(rig.dev.qps().lookup(rc.qpn, &rt));
	EXPECT_EQ(rt.min_rnr_nak, 3u);
	EXPECT_EQ(modify(rig, prm::op::rts2rts_qp, rc.qpn, c, optp::cqn_rcv, &sy), st::bad_param_err);
	u32 cq3 = rig.make_cq();
	prm::set(c.data(), q::cqn_rcv, cq3);
	EXPECT_EQ(modify(rig, prm::op::rts2rts_qp, ud.qpn, c, optp::cqn_rcv), 0);
	ASSERT_TRUE(rig.dev.qps().lookup(ud.qpn, &rt));
	EXPECT_EQ(rt.cqn_rcv, cq3);
	EXPECT_EQ(destroy_cq(rig, cq3, &sy), st::bad_res_state_err);
	EXPECT_EQ(sy, synd::cq_busy);
	prm::set(c.data(), q::cqn_rcv, 999);
	EXPECT_EQ(modify(rig, prm::op::rts2rts_qp, ud.qpn, c, optp::cqn_rcv, &sy), st::bad_res_err);
	EXPECT_EQ(sy, synd::qp_bad_cq);
	// SRQN on a QP without an SRQ.
	EXPECT_EQ(modify(rig, prm::op::rts2rts_qp, ud.qpn, c, optp::srqn, &sy), st::bad_param_err);
	EXPECT_EQ(sy, synd::qp_bad_opt_param);
	// PM state other than migrated.
	c = blank();
	prm::set(c.data(), q::pm_state, prm::qpc_pm_state::armed);
	EXPECT_EQ(modify(rig, prm::op::rts2rts_qp, rc.qpn, c, optp::pm_state, &sy), st::bad_param_err);
	EXPECT_EQ(sy, synd::qp_bad_pm_state);
	EXPECT_EQ(destroy_qp(rig, ud.qpn), 0);
	EXPECT_EQ(destroy_cq(rig, cq3), 0);
	EXPECT_EQ(destroy_qp(rig, rc.qpn), 0);
}

TEST(HcaQp, TransitionsCheckWhatTheyTake)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	test_qp qp;
	ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
	struct bad {
		const char *what;
		u16 op;
		std::function<void(u8 *)> edit;
		u8 status;
		u32 synd;
	};
	auto path = [](u8 *c) { return prm::at(c, q::primary_address_path); };
	const bad cases[] = {
		{"port 0", prm::op::rst2init_qp, [&](u8 *c) { prm::set(path(c), ads::vhca_port_num, 0); },
		 st::bad_param_err, synd::qp_bad_port},
		{"port 2", prm::op::rst2init_qp, [&](u8 *c) { prm::set(path(c), ads::vhca_port_num, 2); },
		 st::bad_param_err, synd::qp_bad_port},
		{"pkey", prm::op::rst2init_qp, [&](u8 *c) { prm::set(path(c), ads::pkey_index, 128); },
		 st::bad_param_err, synd::qp_bad_pkey},
		{"counter", prm::op::rst2init_qp, [](u8 *c) { prm::set(c, q::counter_set_id, 3); }, st::bad_res_err,
		 synd::qp_bad_counter},
		{"atomic mode", prm::op::rst2init_qp,
		 [](u8 *c) { prm::set(c, q::atomic_mode, prm::qpc_atomic_mode::up_to_16b); }, st::bad_param_err,
		 synd::qp_unsupported},
		{"mtu 0", prm::op::init2rtr_qp, [](u8 *c) { prm::set(c, q::mtu, 0); }, st::bad_param_err,
		 synd::qp_bad_mtu},
		{"mtu 8k", prm::op::init2rtr_qp, [](u8 *c) { prm::set(c, q::mtu, 6); }, st::bad_param_err,
		 synd::qp_bad_mtu},
		{"mtu 2k on a 1500 port", prm::op::init2rtr_qp,
		 [](u8 *c) { prm::set(c, q::mtu, prm::qpc_mtu::bytes_2k); }, st::bad_param_err,
		 synd::qp_mtu_over_port},
		{"remote qpn 1", prm::op::init2rtr_qp, [](u8 *c) { prm::set(c, q::remote_qpn, 1); }, st::bad_param_err,
		 synd::qp_bad_remote_qpn},
		{"msg max", prm::op::init2rtr_qp, [](u8 *c) { prm::set(c, q::log_msg_max, 31); }, st::bad_param_err,
		 synd::qp_bad_msg_max},
		{"rra", prm::op::init2rtr_qp, [](u8 *c) { prm::set(c, q::log_rra_max, 5); }, st::bad_param_err,
		 synd::qp_bad_rd_atomic},
		{"path port", prm::op::init2rtr_qp, [&](u8 *c) { prm::set(path(c), ads::vhca_port_num, 3); },
		 st::bad_param_err, synd::qp_bad_port},
		{"sra", prm::op::rtr2rts_qp, [](u8 *c) { prm::set(c, q::log_sra_max, 5); }, st::bad_param_err,
		 synd::qp_bad_rd_atomic},
	};
	for (const auto &b : cases) {
		SCOPED_TRACE(b.what);
		ASSERT_EQ(to_rst(rig, qp.qpn), 0);
		u8 before = b.op == prm::op::rst2init_qp ? qs::rst : b.op == prm::op::init2rtr_qp ? qs::init : qs::rtr;
		ASSERT_TRUE(walk(rig, qp.qpn, prm::qpc_st::rc, before));
		ctx_t c = ctx_for(b.op, prm::qpc_st::rc);
		b.edit(c.data());
		u32 sy = 0;
		EXPECT_EQ(modify(rig, b.op, qp.qpn, c, 0, &sy), b.status);
		EXPECT_EQ(sy, b.synd) << std::hex << sy;
		EXPECT_EQ(qp_state(rig, qp.qpn), before);
	}
	// Reserved bits next to the QPN, and short commands.
	u32 sy = 0;
	ASSERT_EQ(to_rst(rig, qp.qpn), 0);
	auto c = cmd_in(prm::op::qp_2err, 16);
	prm::set(c.data(), prm::qp_2err_in::qpn, qp.qpn);
	prm::set(c.data(), prm::qp_2err_in::reserved_at_40, 1);
	EXPECT_EQ(run(rig, c, 16, &sy), st::bad_param_err);
	EXPECT_EQ(sy, synd::qp_reserved);
	auto shorter = cmd_in(prm::op::rst2init_qp, 0x100);
	prm::set(shorter.data(), prm::rst2init_qp_in::qpn, qp.qpn);
	EXPECT_EQ(run(rig, shorter, 16, &sy), st::bad_inp_len_err);
	EXPECT_EQ(sy, synd::short_input);
	EXPECT_EQ(qp_state(rig, qp.qpn), qs::rst);
	EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
}

TEST(HcaQp, APathMtuNeedsAPortMtuItsPacketsFit)
{
	// A port of 1500 bytes carries 1024-byte packets (1024 + the 96 a
	// RoCEv2 packet may add); 4096 needs a jumbo port, 4192 bytes at least.
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	test_qp qp;
	ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
	struct step {
		u16 port_mtu;
		u8 path_mtu;
		u8 status;
	};
	const step steps[] = {
		{1500, prm::qpc_mtu::bytes_1k, 0},      {1500, prm::qpc_mtu::bytes_2k, st::bad_param_err},
		{4191, prm::qpc_mtu::bytes_4k, st::bad_param_err}, {4192, prm::qpc_mtu::bytes_4k, 0},
		{9000, prm::qpc_mtu::bytes_4k, 0},      {352, prm::qpc_mtu::bytes_256, 0},
		{351, prm::qpc_mtu::bytes_256, st::bad_param_err},
	};
	for (const step &s : steps) {
		SCOPED_TRACE(testing::Message() << "port " << s.port_mtu << " path " << int(s.path_mtu));
		rig.dev.set_mtu(s.port_mtu);
		ASSERT_EQ(to_rst(rig, qp.qpn), 0);
		ASSERT_TRUE(walk(rig, qp.qpn, prm::qpc_st::rc, qs::init));
		ctx_t c = ctx_for(prm::op::init2rtr_qp, prm::qpc_st::rc);
		prm::set(c.data(), q::mtu, s.path_mtu);
		u32 sy = 0;
		EXPECT_EQ(modify(rig, prm::op::init2rtr_qp, qp.qpn, c, 0, &sy), s.status);
		if (s.status) {
			EXPECT_EQ(sy, synd::qp_mtu_over_port);
		}
		EXPECT_EQ(qp_state(rig, qp.qpn), s.status ? qs::init : qs::rtr);
	}
	EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
}

TEST(HcaQp, DestroyFromEveryStateReleasesWhatItUsed)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	for (u8 state : k_states) {
		SCOPED_TRACE(int(state));
		test_qp qp;
		ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
		ASSERT_TRUE(walk(rig, qp.qpn, prm::qpc_st::rc, state));
		ASSERT_EQ(qp_state(rig, qp.qpn), state);
		// In use: the CQs and the PD cannot go.
		u32 sy = 0;
		EXPECT_EQ(destroy_cq(rig, rig.cq[0], &sy), st::bad_res_state_err);
		EXPECT_EQ(sy, synd::cq_busy);
		EXPECT_EQ(destroy_cq(rig, rig.cq[1], &sy), st::bad_res_state_err);
		EXPECT_EQ(dealloc_pd(rig, rig.pd, &sy), st::bad_res_state_err);
		EXPECT_EQ(sy, synd::pd_busy);
		EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
	}
	EXPECT_EQ(rig.dev.qps().count(), 0u);
	EXPECT_EQ(destroy_cq(rig, rig.cq[0]), 0);
	EXPECT_EQ(destroy_cq(rig, rig.cq[1]), 0);
	EXPECT_EQ(dealloc_pd(rig, rig.pd), 0);
}

TEST(HcaQp, ResetForgetsIndicesAndAttributes)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	test_qp qp;
	ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
	ASSERT_TRUE(walk(rig, qp.qpn, prm::qpc_st::rc, qs::rts));
	// The data path consumed some work; the driver posted more.
	ASSERT_TRUE(rig.dev.qps().update(qp.qpn, [](hca::qp_runtime &rt) {
		rt.sq_ci = 12;
		rt.rq_ci = 5;
	}));
	prm::set(qp.dbr.cpu, prm::qp_dbrec::rcv_counter, 9);
	prm::set(qp.dbr.cpu, prm::qp_dbrec::snd_counter, 20);
	std::vector<u8> ctx;
	ASSERT_EQ(query_qp(rig, qp.qpn, &ctx), 0);
	EXPECT_EQ(prm::get(ctx.data(), q::hw_sq_wqebb_counter), 12u);
	EXPECT_EQ(prm::get(ctx.data(), q::hw_rq_counter), 5u);
	EXPECT_EQ(prm::get(ctx.data(), q::sw_sq_wqebb_counter), 20u);
	EXPECT_EQ(prm::get(ctx.data(), q::sw_rq_counter), 9u);
	// ERR: outstanding work is to be flushed by the data path.
	ASSERT_EQ(to_err(rig, qp.qpn), 0);
	hca::qp_runtime rt;
	ASSERT_TRUE(rig.dev.qps().lookup(qp.qpn, &rt));
	EXPECT_EQ(rt.flush_pending, 1u);
	EXPECT_EQ(rt.sq_ci, 12u);
	u32 gen = rt.generation;
	ASSERT_EQ(to_rst(rig, qp.qpn), 0);
	ASSERT_TRUE(rig.dev.qps().lookup(qp.qpn, &rt));
	EXPECT_EQ(rt.sq_ci, 0u);
	EXPECT_EQ(rt.rq_ci, 0u);
	EXPECT_EQ(rt.flush_pending, 0u);
	EXPECT_EQ(rt.generation, gen + 1);
	EXPECT_EQ(rt.remote_qpn, 0u);
	EXPECT_EQ(rt.next_send_psn, 0u);
	EXPECT_EQ(rt.access, 0u);
	// What CREATE_QP set stays.
	EXPECT_EQ(rt.sq_wqebbs, 16u);
	EXPECT_EQ(rt.cqn_snd, rig.cq[0]);
	ASSERT_EQ(query_qp(rig, qp.qpn, &ctx), 0);
	EXPECT_EQ(prm::get(ctx.data(), q::state), qs::rst);
	EXPECT_EQ(prm::get(ctx.data(), q::hw_sq_wqebb_counter), 0u);
	EXPECT_EQ(prm::get(ctx.data(), q::remote_qpn), 0u);
	EXPECT_EQ(prm::get(ctx.data(), q::log_sq_size), 4u);
	EXPECT_EQ(prm::get(ctx.data(), q::pd), rig.pd);
	EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
}

TEST(HcaQp, QpnsAreNeverZeroOrOneAndRunOut)
{
	// A driver may lower log_max_qp before INIT_HCA: 2^4 QPNs, 0 and 1
	// reserved, 14 QPs.
	qp_rig rig;
	ASSERT_TRUE(rig.ok);
	ASSERT_EQ(run(rig, cmd_in(prm::op::enable_hca, 16), 12), 0);
	for (u16 mod : {prm::query_pages_op_mod::boot_pages, prm::query_pages_op_mod::init_pages}) {
		std::vector<u8> out;
		ASSERT_EQ(run(rig, cmd_in(prm::op::query_pages, 16, mod), 16, nullptr, &out), 0);
		ASSERT_TRUE(give_pages(rig.poster, prm::get(out.data(), prm::query_pages_out::num_pages), &rig.pages));
	}
	std::vector<u8> out;
	ASSERT_EQ(run(rig, cmd_in(prm::op::query_hca_cap, 16, prm::hca_cap_op_mod(prm::cap_type::general, prm::cap_mode::cur)),
		      prm::query_hca_cap_out::size_bytes, nullptr, &out),
		  0);
	auto set = cmd_in(prm::op::set_hca_cap, prm::set_hca_cap_in::size_bytes,
			  prm::hca_cap_op_mod(prm::cap_type::general, 0));
	std::memcpy(prm::at(set.data(), prm::set_hca_cap_in::capability),
		    prm::at(out.data(), prm::query_hca_cap_out::capability), prm::hca_cap_union::size_bytes);
	prm::set(prm::at(set.data(), prm::set_hca_cap_in::capability), prm::cmd_hca_cap::log_max_qp, 4);
	ASSERT_EQ(run(rig, set), 0);
	ASSERT_EQ(run(rig, cmd_in(prm::op::init_hca, prm::init_hca_in::size_bytes)), 0);
	ASSERT_TRUE(give_pages(rig.poster, 64, &rig.pages));
	ASSERT_TRUE(rig.ready(false));

	qp_spec s = spec_for(rig);
	s.no_sq = true;
	s.rq_type = prm::qp_rq_type::zero_len;
	std::set<u32> qpns;
	std::vector<test_qp> qps(14);
	for (auto &qp : qps) {
		ASSERT_EQ(create_qp(rig, s, &qp), 0);
		EXPECT_GE(qp.qpn, 2u);
		EXPECT_LT(qp.qpn, 1u << 24);
		qpns.insert(qp.qpn);
	}
	EXPECT_EQ(qpns.size(), 14u);
	test_qp extra;
	u32 sy = 0;
	EXPECT_EQ(create_qp(rig, s, &extra, &sy), st::no_res_err);
	EXPECT_EQ(sy, synd::qp_exhausted);
	// One freed, one more; many rounds never give 0 or 1.
	for (int round = 0; round < 200; round++) {
		test_qp &victim = qps[round % qps.size()];
		ASSERT_EQ(destroy_qp(rig, victim.qpn), 0);
		ASSERT_EQ(create_qp(rig, s, &victim), 0);
		ASSERT_GE(victim.qpn, 2u);
	}
	EXPECT_EQ(create_qp(rig, s, &extra, &sy), st::no_res_err);
	for (auto &qp : qps)
		EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
}

TEST(HcaQp, FirmwareMemoryRunsOutThenMorePagesHelp)
{
	hca::device_config cfg;
	cfg.regular_pages = 0;
	qp_rig rig(cfg);
	ASSERT_TRUE(rig.ready());
	// Each QP with a buffer takes two context slots and a page list (an
	// index page and a data page): the 24 startup pages run out soon.
	std::vector<test_qp> qps;
	u32 sy = 0;
	u8 r;
	for (;;) {
		test_qp qp;
		if ((r = create_qp(rig, spec_for(rig), &qp, &sy)) != 0)
			break;
		qps.push_back(qp);
		ASSERT_LT(qps.size(), 100u);
	}
	EXPECT_EQ(r, st::no_res_err);
	EXPECT_EQ(sy, synd::no_fw_memory);
	EXPECT_GT(qps.size(), 3u);
	ASSERT_TRUE(give_pages(rig.poster, 8, &rig.pages));
	test_qp more;
	EXPECT_EQ(create_qp(rig, spec_for(rig), &more), 0);
	qps.push_back(more);
	for (auto &qp : qps)
		EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
	EXPECT_EQ(destroy_cq(rig, rig.cq[0]), 0);
	EXPECT_EQ(destroy_cq(rig, rig.cq[1]), 0);
	auto de = cmd_in(prm::op::destroy_eq, prm::destroy_eq_in::size_bytes);
	prm::set(de.data(), prm::destroy_eq_in::eq_number, rig.eq.eqn);
	EXPECT_EQ(run(rig, de), 0);
	expect_all_pages_free(rig);
}

TEST(HcaSrq, CreateQueryArmDestroy)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	test_srq srq;
	srq_spec ss;
	ss.pd = rig.pd;
	ss.lwm = 4;
	ASSERT_EQ(create_srq(rig, ss, &srq), 0);
	EXPECT_GE(srq.srqn, 1u);
	std::vector<u8> out;
	ASSERT_EQ(srq_cmd(rig, prm::op::query_srq, srq.srqn, nullptr, &out), 0);
	const u8 *c = prm::at(out.data(), prm::query_srq_out::srq_context_entry);
	EXPECT_EQ(prm::get(c, prm::srqc::state), prm::srqc_state::good);
	EXPECT_EQ(prm::get(c, prm::srqc::log_srq_size), 6u);
	EXPECT_EQ(prm::get(c, prm::srqc::log_rq_stride), 1u);
	EXPECT_EQ(prm::get(c, prm::srqc::pd), rig.pd);
	EXPECT_EQ(prm::get(c, prm::srqc::lwm), 4u);
	EXPECT_EQ(prm::get(c, prm::srqc::dbr_addr), srq.dbr.bus);
	hca::srq_runtime rt;
	ASSERT_TRUE(rig.dev.srqs().lookup(srq.srqn, &rt));
	EXPECT_EQ(rt.log_size, 6u);
	EXPECT_EQ(rt.stride_shift, 5u);
	EXPECT_EQ(rt.limit_armed, 1u);
	u64 bus = 0;
	ASSERT_TRUE(rig.dev.srqs().wq_addr(rt, 32 * 10, &bus));
	EXPECT_EQ(bus, srq.buf.bus + 320);
	EXPECT_FALSE(rig.dev.srqs().wq_addr(rt, 2048, &bus));

	// ARM_RQ: the limit, below the size, for op_mod SRQ only.
	u32 sy = 0;
	EXPECT_EQ(arm_srq(rig, srq.srqn, 10), 0);
	ASSERT_TRUE(rig.dev.srqs().lookup(srq.srqn, &rt));
	EXPECT_EQ(rt.lwm, 10u);
	EXPECT_EQ(arm_srq(rig, srq.srqn, 64, prm::arm_rq_op_mod::srq, &sy), st::bad_param_err);
	EXPECT_EQ(sy, synd::srq_bad_lwm);
	EXPECT_EQ(arm_srq(rig, srq.srqn, 1, prm::arm_rq_op_mod::xrq, &sy), st::bad_param_err);
	EXPECT_EQ(sy, synd::bad_op_mod);
	EXPECT_EQ(arm_srq(rig, 999, 1, prm::arm_rq_op_mod::srq, &sy), st::bad_res_err);
	EXPECT_EQ(sy, synd::srq_invalid);
	EXPECT_EQ(arm_srq(rig, srq.srqn, 0), 0);
	ASSERT_TRUE(rig.dev.srqs().lookup(srq.srqn, &rt));
	EXPECT_EQ(rt.limit_armed, 0u);

	// A QP on it holds it.
	qp_spec s = spec_for(rig);
	s.rq_type = prm::qp_rq_type::srq;
	s.srqn = srq.srqn;
	test_qp qp;
	ASSERT_EQ(create_qp(rig, s, &qp), 0);
	EXPECT_EQ(srq_cmd(rig, prm::op::destroy_srq, srq.srqn, &sy), st::bad_res_state_err);
	EXPECT_EQ(sy, synd::srq_busy);
	EXPECT_EQ(dealloc_pd(rig, rig.pd, &sy), st::bad_res_state_err);
	EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
	EXPECT_EQ(srq_cmd(rig, prm::op::destroy_srq, srq.srqn), 0);
	EXPECT_EQ(srq_cmd(rig, prm::op::destroy_srq, srq.srqn, &sy), st::bad_res_err);
	EXPECT_EQ(sy, synd::srq_invalid);
	EXPECT_EQ(srq_cmd(rig, prm::op::query_srq, srq.srqn, &sy), st::bad_res_err);
	EXPECT_FALSE(rig.dev.srqs().lookup(srq.srqn, &rt));
	EXPECT_EQ(dealloc_pd(rig, rig.pd), 0);
}

TEST(HcaSrq, CreateRejectsBadContexts)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	struct bad {
		const char *what;
		std::function<void(srq_spec &)> edit;
		u8 status;
		u32 synd;
	};
	auto ctx = [](u8 *in) { return prm::at(in, prm::create_srq_in::srq_context_entry); };
	const bad cases[] = {
		{"stride", [](srq_spec &s) { s.log_stride = 6; }, st::bad_param_err, synd::srq_bad_stride},
		{"lwm", [](srq_spec &s) { s.lwm = 64; }, st::bad_param_err, synd::srq_bad_lwm},
		{"pd", [](srq_spec &s) { s.pd = 0; }, st::bad_res_err, synd::srq_bad_pd},
		{"signature", [&](srq_spec &s) { s.tweak = [&](u8 *in) { prm::set(ctx(in), prm::srqc::wq_signature, 1); }; },
		 st::bad_param_err, synd::srq_unsupported},
		{"page size", [&](srq_spec &s) { s.tweak = [&](u8 *in) { prm::set(ctx(in), prm::srqc::log_page_size, 19); }; },
		 st::bad_param_err, synd::srq_bad_page_size},
		{"dbr", [&](srq_spec &s) { s.tweak = [&](u8 *in) { prm::set(ctx(in), prm::srqc::dbr_addr, 0x7fff00000000ull); }; },
		 st::bad_param_err, synd::srq_bad_dbr},
		{"page",
		 [](srq_spec &s) {
			 s.tweak = [](u8 *in) { store_be<u64>(in + prm::create_srq_in::pas.byte_off, 0x7fff00000000ull); };
		 },
		 st::bad_param_err, synd::srq_bad_page},
	};
	for (const auto &b : cases) {
		srq_spec s;
		s.pd = rig.pd;
		b.edit(s);
		test_srq srq;
		u32 sy = 0;
		EXPECT_EQ(create_srq(rig, s, &srq, &sy), b.status) << b.what;
		EXPECT_EQ(sy, b.synd) << b.what;
	}
	EXPECT_EQ(rig.dev.srqs().count(), 0u);
	// A list shorter than the size needs.
	srq_spec s;
	s.pd = rig.pd;
	s.log_size = 8; // 8 KiB: two pages
	s.tweak = [](u8 *in) { prm::set(prm::at(in, prm::create_srq_in::srq_context_entry), prm::srqc::log_srq_size, 9); };
	test_srq srq;
	u32 sy = 0;
	EXPECT_EQ(create_srq(rig, s, &srq, &sy), st::bad_inp_len_err);
	EXPECT_EQ(sy, synd::short_list);
	EXPECT_EQ(dealloc_pd(rig, rig.pd), 0);
}

TEST(HcaQp, TeardownWithLiveQpsAndSrqsFreesEverything)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ready());
	test_srq srq;
	srq_spec ss;
	ss.pd = rig.pd;
	ASSERT_EQ(create_srq(rig, ss, &srq), 0);
	std::vector<test_qp> qps(5);
	for (size_t i = 0; i < qps.size(); i++) {
		qp_spec s = spec_for(rig, i % 2 ? prm::qpc_st::ud : prm::qpc_st::rc);
		if (i == 4) {
			s.rq_type = prm::qp_rq_type::srq;
			s.srqn = srq.srqn;
		}
		ASSERT_EQ(create_qp(rig, s, &qps[i]), 0);
		ASSERT_TRUE(walk(rig, qps[i].qpn, s.st, k_states[i]));
	}
	EXPECT_EQ(rig.dev.qps().count(), 5u);
	ASSERT_EQ(teardown(rig), 0);
	EXPECT_EQ(rig.dev.qps().count(), 0u);
	EXPECT_EQ(rig.dev.srqs().count(), 0u);
	expect_all_pages_free(rig);
	EXPECT_EQ(run(rig, cmd_in(prm::op::disable_hca, 16), 12), 0);
	// Up again: the tables start empty.
	ASSERT_TRUE(rig.ready());
	test_qp qp;
	ASSERT_EQ(create_qp(rig, spec_for(rig), &qp), 0);
	EXPECT_EQ(destroy_qp(rig, qp.qpn), 0);
}

TEST(HcaQp, CommandsNeedAnInitializedHca)
{
	qp_rig rig;
	ASSERT_TRUE(rig.ok);
	ASSERT_EQ(run(rig, cmd_in(prm::op::enable_hca, 16), 12), 0);
	for (u16 op : {prm::op::create_qp, prm::op::rst2init_qp, prm::op::qp_2rst, prm::op::query_qp, prm::op::destroy_qp,
		       prm::op::create_srq, prm::op::arm_rq}) {
		u32 sy = 0;
		EXPECT_EQ(run(rig, cmd_in(op, 0x110), 16, &sy), st::bad_sys_state_err) << op;
		EXPECT_EQ(sy, synd::not_initialized);
	}
}
