// SPDX-License-Identifier: GPL-2.0
// The driver's QP and SRQ command wrappers (driver/qp_cmds.h) against the
// real hca, through the driver's own device: create, the transitions,
// query, destroy, SRQs, and how firmware answers reach the caller as errnos.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "driver/device.h"
#include "driver/qp_cmds.h"
#include "hca/device.h"
#include "host_env.h"
#include "prm/cmd.h"
#include "prm/cq.h"
#include "prm/qp.h"
#include "prm/srq.h"
#include "test_platform.h"

using namespace scx;
namespace qs = prm::qpc_state;

namespace {

// The hca behind a plain wrapper (see test_driver_hca.cpp: the hca is
// built without RTTI, so UBSan's vptr check stays out of these calls).
#define NO_VPTR __attribute__((no_sanitize("vptr")))
class hw_box {
public:
	NO_VPTR hw_box(test_platform &p, const hca::device_config &cfg) : d_(new hca::device(p, p, cfg)) {}
	NO_VPTR ~hw_box() { delete d_; }
	hw_box(const hw_box &) = delete;
	hw_box &operator=(const hw_box &) = delete;
	NO_VPTR status init() { return d_->init(); }
	NO_VPTR bus::mmio &bar0() { return d_->bar0(); }
	NO_VPTR hca::fault_hooks &faults() { return d_->faults(); }
	NO_VPTR bool qp(u32 qpn, hca::qp_runtime *rt) { return d_->qps().lookup(qpn, rt); }
	NO_VPTR bool srq(u32 srqn, hca::srq_runtime *rt) { return d_->srqs().lookup(srqn, rt); }

private:
	hca::device *d_;
};

// A block of DMA memory the test gives the device.
struct dma_block {
	test_platform *plat = nullptr;
	u8 *cpu = nullptr;
	u64 bus = 0;
	usize len = 0;
	bool alloc(test_platform &p, usize n)
	{
		plat = &p;
		len = n;
		cpu = static_cast<u8 *>(p.dma_alloc(n, &bus));
		return cpu != nullptr;
	}
	void free()
	{
		if (cpu)
			plat->dma_free(cpu, len, bus);
		cpu = nullptr;
	}
};

class DriverQp : public ::testing::Test {
protected:
	void SetUp() override
	{
		baseline_ = host_env::live_allocations();
		cfg.name = "qp0";
		hw = std::make_unique<hw_box>(plat, hw_cfg);
		ASSERT_TRUE(hw->init());
		drv = std::make_unique<driver::device>();
		ASSERT_TRUE(drv->init(hw->bar0(), plat, cfg));
		auto p = driver::cmd::alloc_pd(cmd());
		ASSERT_TRUE(p);
		pd = *p;
		cq = std::make_unique<test_cq[]>(2);
		ASSERT_TRUE(make_cq(&cq[0]));
		ASSERT_TRUE(make_cq(&cq[1]));
	}
	void TearDown() override
	{
		for (int i = 0; cq && i < 2; i++) {
			test_cq &c = cq[i];
			if (c.ring.cpu) {
				EXPECT_TRUE(drv->destroy_cq(c.cq));
			}
		}
		EXPECT_TRUE(driver::cmd::dealloc_pd(cmd(), pd));
		for (int i = 0; cq && i < 2; i++) {
			test_cq &c = cq[i];
			c.ring.free();
			c.dbr.free();
		}
		cq.reset();
		for (auto &b : blocks_)
			b.free();
		drv.reset();
		hw.reset();
		EXPECT_EQ(plat.dma_live(), 0);
		EXPECT_EQ(host_env::live_allocations(), baseline_);
		EXPECT_EQ(host_env::bug_count(), 0u);
	}
	driver::cmd_if &cmd() { return drv->cmd(); }

	struct test_cq {
		driver::core_cq cq;
		dma_block ring, dbr;
	};
	bool make_cq(test_cq *c)
	{
		if (!c->ring.alloc(plat, 4096) || !c->dbr.alloc(plat, 64))
			return false;
		std::vector<u8> in(prm::create_cq_in::size_bytes + 8);
		u8 *cqc = prm::at(in.data(), prm::create_cq_in::cq_context);
		prm::set(cqc, prm::cqc::log_cq_size, 6);
		prm::set(cqc, prm::cqc::uar_page, drv->uar());
		prm::set(cqc, prm::cqc::c_eqn_or_apu_element, drv->comp_eqn(0));
		prm::set(cqc, prm::cqc::dbr_addr, c->dbr.bus);
		store_be<u64>(prm::at(in.data(), prm::create_cq_in::pas, 0, 8), c->ring.bus);
		return drv->create_cq(c->cq, in.data(), u32(in.size())).is_ok();
	}
	dma_block &block(usize n)
	{
		blocks_.emplace_back();
		EXPECT_TRUE(blocks_.back().alloc(plat, n));
		return blocks_.back();
	}

	// An RC/UC/UD QP with a 16-entry RQ of 64-byte WQEs and a 32-WQEBB SQ:
	// 3 KiB of buffer in one page.
	driver::cmd::qp_params params(u8 st)
	{
		driver::cmd::qp_params p;
		p.st = st;
		p.pd = pd;
		p.cqn_snd = cq[0].cq.cqn;
		p.cqn_rcv = cq[1].cq.cqn;
		p.uar = drv->uar();
		p.log_sq_size = 5;
		p.rq_type = prm::qp_rq_type::non_zero;
		p.log_rq_size = 4;
		p.rq_wqe_shift = 6;
		p.user_index = 0x4567;
		dma_block &buf = block(4096), &dbr = block(64);
		pas_.push_back(buf.bus);
		p.buf.pas = &pas_.back();
		p.buf.npas = driver::cmd::wq_pas_count(16 * 64 + 32 * 64, 0, 0);
		p.dbr_addr = dbr.bus;
		return p;
	}

	test_platform plat;
	hca::device_config hw_cfg;
	driver::device_config cfg;
	std::unique_ptr<hw_box> hw;
	std::unique_ptr<driver::device> drv;
	u32 pd = 0;
	std::unique_ptr<test_cq[]> cq; // owns completions: gone before the leak check
	std::deque<dma_block> blocks_;
	std::deque<u64> pas_;
	long baseline_ = 0;
};

driver::cmd::qp_rtr_attr rtr_attr(u32 remote)
{
	driver::cmd::qp_rtr_attr a;
	a.mtu = prm::qpc_mtu::bytes_1k;
	a.remote_qpn = remote;
	a.rq_psn = 0x1234;
	a.log_rra_max = 2;
	a.min_rnr_timer = 12;
	const u8 mac[6] = {0x02, 0x5c, 0, 0, 0, 9};
	std::memcpy(a.path.rmac, mac, 6);
	a.path.rgid[10] = a.path.rgid[11] = 0xff;
	a.path.rgid[12] = 10;
	a.path.rgid[15] = 9;
	a.path.sgid_index = 1;
	a.path.udp_sport = 0xc123;
	return a;
}

} // namespace

TEST_F(DriverQp, PasCount)
{
	EXPECT_EQ(driver::cmd::wq_pas_count(0, 0, 0), 0u);
	EXPECT_EQ(driver::cmd::wq_pas_count(1, 0, 0), 1u);
	EXPECT_EQ(driver::cmd::wq_pas_count(4096, 0, 0), 1u);
	EXPECT_EQ(driver::cmd::wq_pas_count(4097, 0, 0), 2u);
	EXPECT_EQ(driver::cmd::wq_pas_count(4096, 0, 1), 2u);   // 64 bytes in
	EXPECT_EQ(driver::cmd::wq_pas_count(8192, 1, 32), 2u);  // 8 KiB pages, half a page in
}

TEST_F(DriverQp, RcConnectsThroughTheTypedTransitions)
{
	auto qpn = driver::cmd::create_qp(cmd(), params(prm::qpc_st::rc));
	ASSERT_TRUE(qpn);
	EXPECT_GE(*qpn, 2u);
	u8 qpc[prm::qpc::size_bytes];
	ASSERT_TRUE(driver::cmd::query_qp(cmd(), *qpn, qpc));
	EXPECT_EQ(prm::get(qpc, prm::qpc::state), qs::rst);
	EXPECT_EQ(prm::get(qpc, prm::qpc::user_index), 0x4567u);
	EXPECT_EQ(prm::get(qpc, prm::qpc::log_rq_stride), 2u);

	driver::cmd::qp_init_attr ia;
	ia.access.remote_read = ia.access.remote_write = ia.access.remote_atomic = true;
	ASSERT_TRUE(driver::cmd::rst2init_qp(cmd(), *qpn, prm::qpc_st::rc, ia));
	ASSERT_TRUE(driver::cmd::init2rtr_qp(cmd(), *qpn, prm::qpc_st::rc, rtr_attr(0x99)));
	driver::cmd::qp_rts_attr ra;
	ra.sq_psn = 0x777;
	ra.log_sra_max = 3;
	ASSERT_TRUE(driver::cmd::rtr2rts_qp(cmd(), *qpn, prm::qpc_st::rc, ra));
	ASSERT_TRUE(driver::cmd::query_qp(cmd(), *qpn, qpc));
	EXPECT_EQ(prm::get(qpc, prm::qpc::state), qs::rts);
	EXPECT_EQ(prm::get(qpc, prm::qpc::remote_qpn), 0x99u);
	EXPECT_EQ(prm::get(qpc, prm::qpc::next_send_psn), 0x777u);
	EXPECT_EQ(prm::get(qpc, prm::qpc::next_rcv_psn), 0x1234u);

	// The device's own view, as the data path will see it.
	hca::qp_runtime rt;
	ASSERT_TRUE(hw->qp(*qpn, &rt));
	EXPECT_EQ(rt.access, hca::qp_access::remote_read | hca::qp_access::remote_write | hca::qp_access::remote_atomic);
	EXPECT_EQ(rt.path.rmac[5], 9u);
	EXPECT_EQ(rt.path.rgid[15], 9u);
	EXPECT_EQ(rt.path.udp_sport, 0xc123u);
	EXPECT_EQ(rt.path.ack_timeout, 14u);
	EXPECT_EQ(rt.retry_count, 7u);
	EXPECT_EQ(rt.log_sra_max, 3u);
	EXPECT_EQ(rt.log_rra_max, 2u);
	EXPECT_EQ(rt.min_rnr_nak, 12u);
	EXPECT_EQ(rt.cqn_snd, cq[0].cq.cqn);
	EXPECT_EQ(rt.sq_offset, 1024u);

	// RTS2RTS with an optional field through the generic form.
	u8 mod[prm::qpc::size_bytes] = {};
	prm::set(mod, prm::qpc::min_rnr_nak, 5);
	ASSERT_TRUE(driver::cmd::modify_qp(cmd(), prm::op::rts2rts_qp, *qpn, prm::qp_optpar::rnr_timeout, mod));
	ASSERT_TRUE(hw->qp(*qpn, &rt));
	EXPECT_EQ(rt.min_rnr_nak, 5u);

	// Wrong-state transitions and unknown ones are EINVAL.
	EXPECT_EQ(driver::cmd::rst2init_qp(cmd(), *qpn, prm::qpc_st::rc, ia).code(), errc::inval);
	EXPECT_EQ(driver::cmd::modify_qp(cmd(), prm::op::qp_2err, *qpn, 0, mod).code(), errc::inval);
	ASSERT_TRUE(driver::cmd::qp_to_err(cmd(), *qpn));
	ASSERT_TRUE(driver::cmd::query_qp(cmd(), *qpn, qpc));
	EXPECT_EQ(prm::get(qpc, prm::qpc::state), qs::err);
	EXPECT_EQ(driver::cmd::rtr2rts_qp(cmd(), *qpn, prm::qpc_st::rc, ra).code(), errc::inval);
	ASSERT_TRUE(driver::cmd::qp_to_rst(cmd(), *qpn));
	ASSERT_TRUE(driver::cmd::query_qp(cmd(), *qpn, qpc));
	EXPECT_EQ(prm::get(qpc, prm::qpc::state), qs::rst);
	EXPECT_EQ(prm::get(qpc, prm::qpc::remote_qpn), 0u);
	// Again from the start after the reset.
	ASSERT_TRUE(driver::cmd::rst2init_qp(cmd(), *qpn, prm::qpc_st::rc, ia));

	// A CQ in use cannot go (BAD_RES_STATE); the QP can, from any state.
	u8 din[prm::destroy_cq_in::size_bytes] = {}, dout[prm::destroy_cq_out::size_bytes] = {};
	prm::set(din, prm::destroy_cq_in::opcode, prm::op::destroy_cq);
	prm::set(din, prm::destroy_cq_in::cqn, cq[0].cq.cqn);
	EXPECT_EQ(cmd().exec(din, sizeof(din), dout, sizeof(dout)).code(), errc::inval);
	ASSERT_TRUE(driver::cmd::destroy_qp(cmd(), *qpn));
	EXPECT_EQ(driver::cmd::destroy_qp(cmd(), *qpn).code(), errc::inval);
	EXPECT_EQ(driver::cmd::query_qp(cmd(), *qpn, qpc).code(), errc::inval);
}

TEST_F(DriverQp, UdAndUcQps)
{
	auto ud = driver::cmd::create_qp(cmd(), params(prm::qpc_st::ud));
	auto uc = driver::cmd::create_qp(cmd(), params(prm::qpc_st::uc));
	ASSERT_TRUE(ud);
	ASSERT_TRUE(uc);
	EXPECT_NE(*ud, *uc);
	driver::cmd::qp_init_attr ia;
	ia.q_key = 0x11112222;
	ia.pkey_index = 3;
	ASSERT_TRUE(driver::cmd::rst2init_qp(cmd(), *ud, prm::qpc_st::ud, ia));
	driver::cmd::qp_rtr_attr ra;
	ra.mtu = prm::qpc_mtu::bytes_4k;
	ra.log_msg_max = 12;
	ASSERT_TRUE(driver::cmd::init2rtr_qp(cmd(), *ud, prm::qpc_st::ud, ra));
	driver::cmd::qp_rts_attr sa;
	sa.sq_psn = 5;
	sa.opt_param_mask = prm::qp_optpar::q_key;
	sa.q_key = 0x33334444;
	ASSERT_TRUE(driver::cmd::rtr2rts_qp(cmd(), *ud, prm::qpc_st::ud, sa));
	hca::qp_runtime rt;
	ASSERT_TRUE(hw->qp(*ud, &rt));
	EXPECT_EQ(rt.state, qs::rts);
	EXPECT_EQ(rt.q_key, 0x33334444u);
	EXPECT_EQ(rt.path.pkey_index, 3u);
	EXPECT_EQ(rt.access, 0u);

	ia.access.remote_write = true;
	ASSERT_TRUE(driver::cmd::rst2init_qp(cmd(), *uc, prm::qpc_st::uc, ia));
	ASSERT_TRUE(driver::cmd::init2rtr_qp(cmd(), *uc, prm::qpc_st::uc, rtr_attr(*ud)));
	// An optional bit UC does not take in RTR2RTS.
	sa.opt_param_mask = prm::qp_optpar::rnr_timeout;
	EXPECT_EQ(driver::cmd::rtr2rts_qp(cmd(), *uc, prm::qpc_st::uc, sa).code(), errc::inval);
	sa.opt_param_mask = 0;
	ASSERT_TRUE(driver::cmd::rtr2rts_qp(cmd(), *uc, prm::qpc_st::uc, sa));
	ASSERT_TRUE(hw->qp(*uc, &rt));
	EXPECT_EQ(rt.access, hca::qp_access::remote_write);
	EXPECT_EQ(rt.remote_qpn, *ud);
	ASSERT_TRUE(driver::cmd::destroy_qp(cmd(), *ud));
	ASSERT_TRUE(driver::cmd::destroy_qp(cmd(), *uc));
}

TEST_F(DriverQp, SrqAndAQpOnIt)
{
	dma_block &buf = block(8192), &dbr = block(64);
	u64 pas[2] = {buf.bus, buf.bus + 4096};
	driver::cmd::srq_params sp;
	sp.pd = pd;
	sp.log_size = 8;  // 256 x 32 bytes: two pages
	sp.wqe_shift = 5;
	sp.lwm = 16;
	sp.cqn = cq[1].cq.cqn;
	sp.dbr_addr = dbr.bus;
	sp.buf.pas = pas;
	sp.buf.npas = driver::cmd::wq_pas_count(u64(256) * 32, 0, 0);
	ASSERT_EQ(sp.buf.npas, 2u);
	auto srqn = driver::cmd::create_srq(cmd(), sp);
	ASSERT_TRUE(srqn);
	EXPECT_NE(*srqn, 0u);
	u8 ctx[prm::srqc::size_bytes];
	ASSERT_TRUE(driver::cmd::query_srq(cmd(), *srqn, ctx));
	EXPECT_EQ(prm::get(ctx, prm::srqc::log_srq_size), 8u);
	EXPECT_EQ(prm::get(ctx, prm::srqc::log_rq_stride), 1u);
	EXPECT_EQ(prm::get(ctx, prm::srqc::lwm), 16u);
	EXPECT_EQ(prm::get(ctx, prm::srqc::state), prm::srqc_state::good);
	ASSERT_TRUE(driver::cmd::arm_srq(cmd(), *srqn, 32));
	EXPECT_EQ(driver::cmd::arm_srq(cmd(), *srqn, 256).code(), errc::inval);
	hca::srq_runtime srt;
	ASSERT_TRUE(hw->srq(*srqn, &srt));
	EXPECT_EQ(srt.lwm, 32u);
	EXPECT_EQ(srt.pas.count, 2u);

	auto p = params(prm::qpc_st::rc);
	p.rq_type = prm::qp_rq_type::srq;
	p.srqn = *srqn;
	p.buf.npas = driver::cmd::wq_pas_count(32 * 64, 0, 0);
	auto qpn = driver::cmd::create_qp(cmd(), p);
	ASSERT_TRUE(qpn);
	hca::qp_runtime rt;
	ASSERT_TRUE(hw->qp(*qpn, &rt));
	EXPECT_EQ(rt.srqn, *srqn);
	EXPECT_EQ(rt.rq_wqes, 0u);
	EXPECT_EQ(driver::cmd::destroy_srq(cmd(), *srqn).code(), errc::inval); // in use
	ASSERT_TRUE(driver::cmd::destroy_qp(cmd(), *qpn));
	ASSERT_TRUE(driver::cmd::destroy_srq(cmd(), *srqn));
	EXPECT_EQ(driver::cmd::query_srq(cmd(), *srqn, ctx).code(), errc::inval);
}

TEST_F(DriverQp, FirmwareAnswersBecomeErrnos)
{
	auto p = params(prm::qpc_st::rc);
	// Bad parameters and resources: EINVAL.
	auto bad = p;
	bad.pd = pd + 1;
	EXPECT_EQ(driver::cmd::create_qp(cmd(), bad).error(), errc::inval);
	bad = p;
	bad.st = prm::qpc_st::xrc;
	EXPECT_EQ(driver::cmd::create_qp(cmd(), bad).error(), errc::inval);
	bad = p;
	bad.rq_wqe_shift = 3; // refused before any command
	EXPECT_EQ(driver::cmd::create_qp(cmd(), bad).error(), errc::inval);
	u8 small[16] = {};
	EXPECT_EQ(driver::cmd::create_qp(cmd(), small, sizeof(small)).error(), errc::inval);
	// Out of resources: EAGAIN (NO_RES), as mlx5_core maps it.
	ASSERT_TRUE(hw->faults().fail(prm::op::create_qp, prm::cmd_stat::no_res_err));
	EXPECT_EQ(driver::cmd::create_qp(cmd(), p).error(), errc::again);
	// And then it works.
	auto qpn = driver::cmd::create_qp(cmd(), p);
	ASSERT_TRUE(qpn);
	ASSERT_TRUE(driver::cmd::destroy_qp(cmd(), *qpn));
}
