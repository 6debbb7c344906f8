// SPDX-License-Identifier: GPL-2.0
// The DevX rules of the driver (driver/devx.h, driver/devx_obj.h) against
// the real hca: which commands DEVX_OTHER and DEVX_OBJ carry, the uid each
// runs under, memory forced into umems, and the destroy command an object
// is created with.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "driver/commands.h"
#include "driver/qp_cmds.h"
#include "driver/devx.h"
#include "driver/devx_obj.h"
#include "driver_hca_fixture.h"
#include "prm/cmd.h"
#include "prm/cq.h"
#include "prm/dct.h"
#include "prm/eq.h"
#include "prm/gen_obj.h"
#include "prm/pd.h"
#include "prm/hca_cap.h"
#include "prm/vport.h"

using namespace scx;
using namespace driver_hca_test;

namespace {

// CREATE_CQ of 64 CQEs at the start of umem, its record in the umem's
// second page. The command does not say the memory is in umems: the
// driver does.
std::vector<u8> devx_cq_cmd(u32 uar, u32 eqn, u32 umem)
{
	std::vector<u8> in(prm::create_cq_in::size_bytes);
	prm::set(in.data(), prm::mbox_in::opcode, prm::op::create_cq);
	u8 *cqc = prm::at(in.data(), prm::create_cq_in::cq_context);
	prm::set(cqc, prm::cqc::log_cq_size, 6);
	prm::set(cqc, prm::cqc::uar_page, uar);
	prm::set(cqc, prm::cqc::c_eqn_or_apu_element, eqn);
	prm::set(cqc, prm::cqc::dbr_umem_id, umem);
	prm::set(cqc, prm::cqc::dbr_addr, 4096);
	prm::set(in.data(), prm::create_cq_in::cq_umem_id, umem);
	return in;
}

} // namespace

// DEVX_OTHER's rules (driver/devx.h): the driver picks the uid, whatever the
// caller wrote; a context without DevX reaches only the whitelisted queries.
TEST_F(DriverHca, DevxGeneralCommandsRunUnderTheDriversUid)
{
	ASSERT_TRUE(start());
	result<u16> wl = driver::cmd::create_uctx(cmd(), 0), mine = driver::cmd::create_uctx(cmd(), 0);
	ASSERT_TRUE(wl && mine);
	ASSERT_NE(*wl, *mine);
	auto hdr = [](u16 op, u16 op_mod, u16 forged_uid) {
		std::vector<u8> in(16);
		prm::set(in.data(), prm::mbox_in::opcode, op);
		prm::set(in.data(), prm::mbox_in::op_mod, op_mod);
		prm::set(in.data(), prm::mbox_in::uid, forged_uid);
		return in;
	};
	std::vector<u8> out(16 + 4096);
	// A context without DevX: the general caps, under the whitelist uid.
	auto in = hdr(prm::op::query_hca_cap, prm::cap_type::general << 1 | prm::cap_mode::cur, 0x1234);
	ASSERT_TRUE(driver::devx::general(*drv, 0, *wl, in.data(), 16, out.data(), u32(out.size())));
	EXPECT_EQ(prm::get(in.data(), prm::mbox_in::uid), *wl);
	const u8 *gen = drv->cap(prm::cap_type::general, prm::cap_mode::cur);
	EXPECT_EQ(prm::get(out.data() + 16, prm::cmd_hca_cap::log_max_qp), prm::get(gen, prm::cmd_hca_cap::log_max_qp));
	in = hdr(prm::op::query_esw_functions, 0, 0);
	EXPECT_TRUE(driver::devx::general(*drv, 0, *wl, in.data(), 16, out.data(), prm::query_esw_functions_out::size_bytes));
	// ...with no whitelist uid, nothing; and no other command at all.
	in = hdr(prm::op::query_hca_cap, 0, 0);
	EXPECT_EQ(driver::devx::general(*drv, 0, 0, in.data(), 16, out.data(), 16).code(), errc::notsupp);
	in = hdr(prm::op::nop, 0, *mine);
	EXPECT_EQ(driver::devx::general(*drv, 0, *wl, in.data(), 16, out.data(), 16).code(), errc::inval);
	// A DevX context: its own uid, the general list only.
	in = hdr(prm::op::nop, 0, 0);
	EXPECT_TRUE(driver::devx::general(*drv, *mine, *wl, in.data(), 16, out.data(), 16));
	EXPECT_EQ(prm::get(in.data(), prm::mbox_in::uid), *mine);
	for (u16 op : {prm::op::create_uctx, prm::op::create_cq, prm::op::manage_pages, prm::op::create_eq}) {
		in = hdr(op, 0, 0);
		EXPECT_EQ(driver::devx::general(*drv, *mine, *wl, in.data(), 16, out.data(), 16).code(), errc::inval)
			<< std::hex << op;
	}
	// The general range reaches the device, which answers for itself.
	in = hdr(0xb01, 0, 0);
	EXPECT_EQ(driver::devx::general(*drv, *mine, *wl, in.data(), 16, out.data(), 16).code(), errc::remoteio);
	EXPECT_EQ(prm::get(out.data(), prm::mbox_out::status), prm::cmd_stat::bad_op_err);
	// Completion vectors name the comp EQs, and no more.
	for (u32 v = 0; v < drv->num_comp_eqs(); v++) {
		result<u32> eqn = driver::devx::query_eqn(*drv, v);
		ASSERT_TRUE(eqn);
		EXPECT_EQ(*eqn, drv->comp_eqn(v));
	}
	EXPECT_EQ(driver::devx::query_eqn(*drv, drv->num_comp_eqs()).error().code(), errc::noent);
	EXPECT_TRUE(driver::cmd::destroy_uctx(cmd(), *mine));
	EXPECT_TRUE(driver::cmd::destroy_uctx(cmd(), *wl));
}

// DEVX_OBJ (driver/devx_obj.h): a CQ a DevX context makes on its umems,
// used through the handle that names it, and destroyed by the command
// built when it was made.
TEST_F(DriverHca, DevxObjectsLiveInUmemsAndDieByTheirOwnCommand)
{
	ASSERT_TRUE(start());
	result<u16> u = driver::cmd::create_uctx(cmd(), 0), other = driver::cmd::create_uctx(cmd(), 0);
	ASSERT_TRUE(u && other);
	u64 ring_dma = 0;
	u8 *ring = static_cast<u8 *>(plat.dma_alloc(2 * 4096, &ring_dma));
	ASSERT_NE(ring, nullptr);
	u64 pages[2] = {ring_dma, ring_dma + 4096};
	result<u32> umem = driver::devx::create_umem(*drv, *u, 12, 0, pages, 2, true);
	ASSERT_TRUE(umem);
	result<u32> uar = driver::cmd::alloc_uar(cmd(), *u);
	ASSERT_TRUE(uar);

	std::vector<u8> in = devx_cq_cmd(*uar, drv->comp_eqn(0), *umem), out(prm::create_cq_out::size_bytes);
	u64 name = 0;
	driver::devx::obj_destroy_cmd destroy;
	ASSERT_TRUE(driver::devx::obj_create(*drv, *u, in.data(), u32(in.size()), out.data(), u32(out.size()), &name,
					     &destroy));
	u32 cqn = u32(prm::get(out.data(), prm::create_cq_out::cqn));
	EXPECT_EQ(name, driver::devx::obj_name(prm::op::create_cq, cqn));
	EXPECT_EQ(prm::get(in.data(), prm::create_cq_in::cq_umem_valid), 1u);
	EXPECT_EQ(prm::get(destroy.in, prm::destroy_cq_in::cqn), cqn);
	EXPECT_EQ(prm::get(destroy.in, prm::mbox_in::uid), *u);

	// Query through the handle that names it; a command naming another
	// CQ, or a method that does not carry the command, is refused.
	std::vector<u8> q(prm::query_cq_in::size_bytes), qo(prm::query_cq_out::size_bytes);
	prm::set(q.data(), prm::mbox_in::opcode, prm::op::query_cq);
	prm::set(q.data(), prm::query_cq_in::cqn, cqn);
	EXPECT_TRUE(driver::devx::obj_use(*drv, *u, driver::devx::obj_method::query, name, q.data(), u32(q.size()),
					  qo.data(), u32(qo.size())));
	EXPECT_EQ(prm::get(prm::at(qo.data(), prm::query_cq_out::cq_context), prm::cqc::log_cq_size), 6u);
	EXPECT_EQ(driver::devx::obj_use(*drv, *u, driver::devx::obj_method::query, name + 1, q.data(), u32(q.size()),
					qo.data(), u32(qo.size()))
			  .code(),
		  errc::inval);
	EXPECT_EQ(driver::devx::obj_use(*drv, *u, driver::devx::obj_method::modify, name, q.data(), u32(q.size()),
					qo.data(), u32(qo.size()))
			  .code(),
		  errc::inval);
	// Another context's uid may not reach it: the device says so.
	EXPECT_EQ(driver::devx::obj_use(*drv, *other, driver::devx::obj_method::query, name, q.data(), u32(q.size()),
					qo.data(), u32(qo.size()))
			  .code(),
		  errc::remoteio);
	EXPECT_EQ(prm::get(qo.data(), prm::mbox_out::status), prm::cmd_stat::bad_res_err);

	// What may not be made through DEVX_OBJ: objects a ConnectX offers
	// there and softcx does not are absent (EOPNOTSUPP), anything else is
	// not a create (EINVAL); nothing by a context without DevX.
	for (u16 op : {prm::op::create_srq, prm::op::create_mkey, prm::op::create_eq, prm::op::create_rq,
		       prm::op::create_sq, prm::op::create_general_object, prm::op::create_uctx, prm::op::nop}) {
		std::vector<u8> x(0x110);
		prm::set(x.data(), prm::mbox_in::opcode, op);
		bool absent = op != prm::op::create_uctx && op != prm::op::nop;
		EXPECT_EQ(driver::devx::obj_create(*drv, *u, x.data(), u32(x.size()), out.data(), u32(out.size()), &name,
						   &destroy)
				  .code(),
			  absent ? errc::notsupp : errc::inval)
			<< std::hex << op;
	}
	std::vector<u8> pd(16);
	prm::set(pd.data(), prm::mbox_in::opcode, prm::op::alloc_pd);
	EXPECT_EQ(driver::devx::obj_create(*drv, 0, pd.data(), 16, out.data(), 16, &name, &destroy).code(), errc::inval);

	// The umem stays while the CQ is on it; the CQ's own command ends it.
	EXPECT_EQ(driver::devx::destroy_umem(*drv, *u, *umem).code(), errc::inval); // BAD_RES_STATE
	driver::devx::obj_destroy_cmd cq_destroy = destroy;
	prm::set(pd.data(), prm::mbox_in::opcode, prm::op::alloc_pd);
	ASSERT_TRUE(driver::devx::obj_create(*drv, *u, pd.data(), 16, out.data(), 16, &name, &destroy));
	EXPECT_EQ(name >> 32, prm::op::alloc_pd);
	EXPECT_TRUE(driver::devx::obj_destroy(*drv, destroy));
	EXPECT_TRUE(driver::devx::obj_destroy(*drv, cq_destroy));
	EXPECT_TRUE(driver::devx::destroy_umem(*drv, *u, *umem));
	EXPECT_TRUE(driver::cmd::dealloc_uar(cmd(), *uar, *u));
	EXPECT_TRUE(driver::cmd::destroy_uctx(cmd(), *u));
	EXPECT_TRUE(driver::cmd::destroy_uctx(cmd(), *other));
	plat.dma_free(ring, 2 * 4096, ring_dma);
}

// RESERVED_QPN is a general object: named as mlx5_ib names one (its
// obj_type in the create code), destroyed by DESTROY_GENERAL_OBJECT of that
// type; other general object types are absent.
TEST_F(DriverHca, DevxReservedQpnIsAGeneralObject)
{
	ASSERT_TRUE(start());
	result<u16> u = driver::cmd::create_uctx(cmd(), 0);
	ASSERT_TRUE(u);
	namespace gh = prm::general_obj_in_cmd_hdr;
	std::vector<u8> in(gh::size_bytes + prm::reserved_qpn::size_bytes), out(prm::general_obj_out_cmd_hdr::size_bytes);
	prm::set(in.data(), gh::opcode, prm::op::create_general_object);
	prm::set(in.data(), gh::obj_type, prm::obj_type::reserved_qpn);
	prm::set(in.data(), gh::log_obj_range, 3);
	u64 name = 0;
	driver::devx::obj_destroy_cmd destroy;
	ASSERT_TRUE(driver::devx::obj_create(*drv, *u, in.data(), u32(in.size()), out.data(), u32(out.size()), &name,
					     &destroy));
	u32 first = u32(prm::get(out.data(), prm::general_obj_out_cmd_hdr::obj_id));
	EXPECT_EQ(first % 8, 0u);
	EXPECT_EQ(name, driver::devx::obj_name(prm::obj_type::reserved_qpn << 16 | prm::op::create_general_object, first));
	EXPECT_EQ(prm::get(destroy.in, gh::opcode), prm::op::destroy_general_object);
	EXPECT_EQ(prm::get(destroy.in, gh::obj_type), prm::obj_type::reserved_qpn);
	EXPECT_EQ(prm::get(destroy.in, gh::obj_id), first);
	EXPECT_EQ(prm::get(destroy.in, gh::uid), *u);

	std::vector<u8> q(gh::size_bytes), qo(prm::general_obj_out_cmd_hdr::size_bytes + prm::reserved_qpn::size_bytes);
	prm::set(q.data(), gh::opcode, prm::op::query_general_object);
	prm::set(q.data(), gh::obj_type, prm::obj_type::reserved_qpn);
	prm::set(q.data(), gh::obj_id, first);
	EXPECT_TRUE(driver::devx::obj_use(*drv, *u, driver::devx::obj_method::query, name, q.data(), u32(q.size()),
					  qo.data(), u32(qo.size())));
	// The same number as another type's object is another name.
	prm::set(q.data(), gh::obj_type, 0x13);
	EXPECT_EQ(driver::devx::obj_use(*drv, *u, driver::devx::obj_method::query, name, q.data(), u32(q.size()),
					qo.data(), u32(qo.size()))
			  .code(),
		  errc::inval);
	prm::set(in.data(), gh::obj_type, 0x13);
	EXPECT_EQ(driver::devx::obj_create(*drv, *u, in.data(), u32(in.size()), out.data(), u32(out.size()), &name,
					   &destroy)
			  .code(),
		  errc::notsupp);

	EXPECT_FALSE(driver::cmd::destroy_uctx(cmd(), *u));
	prm::set(in.data(), gh::obj_type, prm::obj_type::reserved_qpn);
	driver::devx::obj_destroy_cmd keep;
	ASSERT_TRUE(driver::devx::obj_create(*drv, *u, in.data(), u32(in.size()), out.data(), u32(out.size()), &name,
					     &keep));
	EXPECT_TRUE(driver::devx::obj_destroy(*drv, keep));
	EXPECT_FALSE(driver::devx::obj_destroy(*drv, keep));
	// destroy still holds the first run's command.
	prm::set(destroy.in, gh::obj_id, first);
	prm::set(destroy.in, gh::obj_type, prm::obj_type::reserved_qpn);
	EXPECT_TRUE(driver::devx::obj_destroy(*drv, destroy));
	EXPECT_TRUE(driver::cmd::destroy_uctx(cmd(), *u));
}

namespace {

struct drained_log {
	std::atomic<int> drained{0};
	std::atomic<u32> last{0};
};

void on_dct_event(void *ctx, u32 dctn, u8 type)
{
	auto *l = static_cast<drained_log *>(ctx);
	if (type == prm::event_type::dct_drained) {
		l->last = dctn;
		l->drained++;
	}
}

} // namespace

// A DCT through DEVX_OBJ (as UCX's DevX path makes its DC targets): made on
// the context's own PD, CQ and SRQ, queried and armed through its handle,
// refused to another context, and destroyed as mlx5_core ends a DCT:
// DRAIN_DCT and its DCT_DRAINED event before DESTROY_DCT.
TEST_F(DriverHca, DevxDctIsDrainedBeforeItIsDestroyed)
{
	drained_log log;
	cfg.ctx = &log;
	cfg.dct_event = on_dct_event;
	ASSERT_TRUE(start());
	result<u16> u = driver::cmd::create_uctx(cmd(), 0), other = driver::cmd::create_uctx(cmd(), 0);
	ASSERT_TRUE(u && other);
	u64 mem_dma = 0;
	u8 *mem = static_cast<u8 *>(plat.dma_alloc(3 * 4096, &mem_dma));
	ASSERT_NE(mem, nullptr);
	u64 pages[2] = {mem_dma, mem_dma + 4096};
	result<u32> umem = driver::devx::create_umem(*drv, *u, 12, 0, pages, 2, true);
	result<u32> uar = driver::cmd::alloc_uar(cmd(), *u);
	ASSERT_TRUE(umem && uar);
	u64 name = 0;
	driver::devx::obj_destroy_cmd pd_end, cq_end, dct_end;

	std::vector<u8> in(16), out(prm::create_cq_out::size_bytes);
	prm::set(in.data(), prm::mbox_in::opcode, prm::op::alloc_pd);
	ASSERT_TRUE(driver::devx::obj_create(*drv, *u, in.data(), 16, out.data(), 16, &name, &pd_end));
	u32 pdn = u32(prm::get(out.data(), prm::alloc_pd_out::pd));
	in = devx_cq_cmd(*uar, drv->comp_eqn(0), *umem);
	ASSERT_TRUE(driver::devx::obj_create(*drv, *u, in.data(), u32(in.size()), out.data(), u32(out.size()), &name,
					     &cq_end));
	u32 cqn = u32(prm::get(out.data(), prm::create_cq_out::cqn));
	// The SRQ a verbs SRQ of a DevX context is: made with its uid.
	driver::cmd::srq_params sp;
	sp.pd = pdn;
	sp.log_size = 4;
	sp.dbr_addr = mem_dma + 2 * 4096 + 64;
	u64 srq_page = mem_dma + 2 * 4096;
	sp.buf.pas = &srq_page;
	sp.buf.npas = 1;
	result<u32> srqn = driver::cmd::create_srq(cmd(), sp, *u);
	ASSERT_TRUE(srqn);

	std::vector<u8> d(prm::create_dct_in::size_bytes), dout(prm::create_dct_out::size_bytes);
	prm::set(d.data(), prm::mbox_in::opcode, prm::op::create_dct);
	u8 *dctc = prm::at(d.data(), prm::create_dct_in::dct_context_entry);
	prm::set(dctc, prm::dctc::pd, pdn);
	prm::set(dctc, prm::dctc::cqn, cqn);
	prm::set(dctc, prm::dctc::srqn_xrqn, *srqn);
	prm::set(dctc, prm::dctc::dc_access_key, 0x1234);
	prm::set(dctc, prm::dctc::port, 1);
	prm::set(dctc, prm::dctc::mtu, 3);
	ASSERT_TRUE(driver::devx::obj_create(*drv, *u, d.data(), u32(d.size()), dout.data(), u32(dout.size()), &name,
					     &dct_end));
	u32 dctn = u32(prm::get(dout.data(), prm::create_dct_out::dctn));
	EXPECT_EQ(name, driver::devx::obj_name(prm::op::create_dct, dctn));
	EXPECT_EQ(prm::get(dct_end.in, prm::mbox_in::opcode), prm::op::destroy_dct);
	EXPECT_EQ(prm::get(dct_end.in, prm::destroy_dct_in::dctn), dctn);

	std::vector<u8> q(prm::query_dct_in::size_bytes), qo(prm::query_dct_out::size_bytes);
	prm::set(q.data(), prm::mbox_in::opcode, prm::op::query_dct);
	prm::set(q.data(), prm::query_dct_in::dctn, dctn);
	ASSERT_TRUE(driver::devx::obj_use(*drv, *u, driver::devx::obj_method::query, name, q.data(), u32(q.size()),
					  qo.data(), u32(qo.size())));
	EXPECT_EQ(prm::get(prm::at(qo.data(), prm::query_dct_out::dct_context_entry), prm::dctc::dc_access_key),
		  0x1234u);
	EXPECT_EQ(driver::devx::obj_use(*drv, *other, driver::devx::obj_method::query, name, q.data(),
					u32(q.size()), qo.data(), u32(qo.size()))
			  .code(),
		  errc::remoteio);
	std::vector<u8> arm(prm::arm_dct_in::size_bytes);
	prm::set(arm.data(), prm::mbox_in::opcode, prm::op::arm_dct_for_key_violation);
	prm::set(arm.data(), prm::arm_dct_in::dct_number, dctn);
	EXPECT_TRUE(driver::devx::obj_use(*drv, *u, driver::devx::obj_method::modify, name, arm.data(),
					  u32(arm.size()), out.data(), 16));
	// A query is not a modify, nor another DCT's number this one's.
	EXPECT_EQ(driver::devx::obj_use(*drv, *u, driver::devx::obj_method::modify, name, q.data(), u32(q.size()),
					qo.data(), u32(qo.size()))
			  .code(),
		  errc::inval);
	prm::set(arm.data(), prm::arm_dct_in::dct_number, dctn + 1);
	EXPECT_EQ(driver::devx::obj_use(*drv, *u, driver::devx::obj_method::modify, name, arm.data(),
					u32(arm.size()), out.data(), 16)
			  .code(),
		  errc::inval);

	// The SRQ and CQ stay while the DCT is on them; its end drains it.
	EXPECT_FALSE(driver::devx::obj_destroy(*drv, cq_end));
	EXPECT_TRUE(driver::devx::obj_destroy(*drv, dct_end));
	EXPECT_TRUE(wait_for([&] { return log.drained.load() == 1; }));
	EXPECT_EQ(log.last.load(), dctn);
	EXPECT_EQ(driver::devx::obj_use(*drv, *u, driver::devx::obj_method::query, name, q.data(), u32(q.size()),
					qo.data(), u32(qo.size()))
			  .code(),
		  errc::remoteio);
	EXPECT_FALSE(driver::devx::obj_destroy(*drv, dct_end));

	EXPECT_TRUE(driver::cmd::destroy_srq(cmd(), *srqn, *u));
	EXPECT_TRUE(driver::devx::obj_destroy(*drv, cq_end));
	EXPECT_TRUE(driver::devx::obj_destroy(*drv, pd_end));
	EXPECT_TRUE(driver::devx::destroy_umem(*drv, *u, *umem));
	EXPECT_TRUE(driver::cmd::dealloc_uar(cmd(), *uar, *u));
	EXPECT_TRUE(driver::cmd::destroy_uctx(cmd(), *u));
	EXPECT_TRUE(driver::cmd::destroy_uctx(cmd(), *other));
	plat.dma_free(mem, 3 * 4096, mem_dma);
}
