// SPDX-License-Identifier: GPL-2.0
// Receive memory pools through DEVX_OBJ, as UCX's DevX path makes them: a
// cyclic RMP whose ring and doorbell record live in a umem, feeding an RC
// QP's receives in ring order whatever next_wqe_index says; QUERY_RMP and
// MODIFY_RMP through the object's handle; an RMP in ERR gives no WQE, and
// one in use cannot be destroyed (fixture: dp_fixture.h).
#include "dp_fixture.h"

#include "prm/cmd.h"
#include "prm/pd.h"
#include "prm/rmp.h"

namespace {

namespace prm = scx::prm;

class DpRmp : public Dp {
protected:
	// A DevX context with a PD and a umem over one page: 8 WQEs of 64
	// bytes at its start, the doorbell record at dbr_off.
	static constexpr u32 dbr_off = 2048;
	void SetUp() override
	{
		Dp::SetUp();
		if (HasFatalFailure())
			return;
		ASSERT_EQ(scx_devx_create_uctx(drv, 0, &uid), 0);
		ring = mem(4096);
		u64 page = bus_of(ring);
		ASSERT_EQ(scx_devx_create_umem(drv, uid, 12, 0, &page, 1, false, &umem), 0);
		u8 in[16] = {}, out[16] = {};
		prm::set(in, prm::mbox_in::opcode, prm::op::alloc_pd);
		ASSERT_EQ(scx_devx_obj_create(drv, uid, in, 16, out, 16, &pd_name, pd_end), 0);
		upd = u32(prm::get(out, prm::alloc_pd_out::pd));
	}
	void TearDown() override
	{
		if (rmp_name) {
			EXPECT_EQ(scx_devx_obj_destroy(drv, rmp_end), 0);
		}
		if (pd_name) {
			EXPECT_EQ(scx_devx_obj_destroy(drv, pd_end), 0);
		}
		if (umem) {
			EXPECT_EQ(scx_devx_destroy_umem(drv, uid, umem), 0);
		}
		if (uid) {
			EXPECT_EQ(scx_devx_destroy_uctx(drv, uid), 0);
		}
		Dp::TearDown();
	}
	// CREATE_RMP of 8 WQEs of 64 bytes; the bus addresses the command
	// carries are never used: the driver forces the umem bits.
	int create(u8 wq_type, u32 *rmpn)
	{
		u8 in[prm::create_rmp_in::size_bytes] = {}, out[prm::create_rmp_out::size_bytes] = {};
		prm::set(in, prm::mbox_in::opcode, prm::op::create_rmp);
		u8 *ctx = prm::at(in, prm::create_rmp_in::ctx);
		prm::set(ctx, prm::rmpc::state, prm::rmpc_state::rdy);
		u8 *wq = prm::at(ctx, prm::rmpc::wq);
		prm::set(wq, prm::wq::wq_type, wq_type);
		prm::set(wq, prm::wq::pd, upd);
		prm::set(wq, prm::wq::log_wq_sz, 3);
		prm::set(wq, prm::wq::log_wq_stride, 6);
		prm::set(wq, prm::wq::dbr_addr, dbr_off);
		prm::set(wq, prm::wq::dbr_umem_id, umem);
		prm::set(wq, prm::wq::wq_umem_id, umem);
		int rc = scx_devx_obj_create(drv, uid, in, sizeof(in), out, sizeof(out), &rmp_name, rmp_end);
		*rmpn = u32(prm::get(out, prm::create_rmp_out::rmpn));
		return rc;
	}
	int use(int method, void *in, u32 inlen, void *out, u32 outlen)
	{
		return scx_devx_obj_use(drv, uid, method, rmp_name, in, inlen, out, outlen);
	}
	// WQE idx: a next_wqe_index the cyclic ring must ignore, one data
	// segment of len bytes at dst + off.
	void wqe(u16 idx, u16 next, const mr_t &dst, u64 off, u32 len)
	{
		u8 *w = ring + size_t(idx) * 64;
		std::memset(w, 0, 64);
		put16(w + 2, next);
		put32(w + 16, len);
		put32(w + 20, dst.key);
		put64(w + 24, dst.va(off));
		put32(w + 36, invalid_lkey);
	}
	void post(u16 n) { store_be32(ring + dbr_off, posted += n); }
	// a -> b, RC, b receiving from RMP rmpn.
	struct pair_t {
		qp_t *a, *b;
		cq_t *br;
	};
	pair_t connect(u32 rmpn)
	{
		cq_t &as = make_cq(), &ar = make_cq(), &bs = make_cq(), &br = make_cq();
		qp_t &a = make_qp(SCX_QPT_RC, as, ar);
		qp_t &b = make_qp(SCX_QPT_RC, bs, br, rmpn);
		EXPECT_TRUE(b.alive);
		bring_up(a, b.qpn, {});
		bring_up(b, a.qpn, {});
		return {&a, &b, &br};
	}
	void send(qp_t &a, const u8 *msg, u32 len)
	{
		wqe_b w;
		w.inl(msg, len);
		post_send(a, op::send, w);
	}

	u16 uid = 0;
	u32 umem = 0, upd = 0;
	u16 posted = 0;
	u8 *ring = nullptr;
	u64 pd_name = 0, rmp_name = 0;
	u8 pd_end[16] = {}, rmp_end[16] = {};
};

} // namespace

TEST_F(DpRmp, CyclicRmpFeedsReceivesInRingOrder)
{
	u32 rmpn = 0;
	ASSERT_EQ(create(prm::wq_type::cyclic, &rmpn), 0);
	auto [a, b, br] = connect(rmpn);
	mr_t &dst = make_mr(8 * 256, SCX_ACCESS_LOCAL_WRITE);
	// next_wqe_index points backwards: a linked list would go 0, 7, 6.
	for (u16 i = 0; i < 8; i++)
		wqe(i, u16((8 - i) % 8 ? 8 - i - 1 : 7), dst, i * 256, 256);
	post(3);
	u8 msg[64];
	for (int i = 0; i < 3; i++) {
		fill(msg, sizeof(msg), u8(i * 16));
		send(*a, msg, sizeof(msg));
	}
	pump();
	auto rsp = drain(*br);
	ASSERT_EQ(rsp.size(), 3u);
	for (u16 i = 0; i < 3; i++) {
		EXPECT_EQ(rsp[i].opcode(), cqe_op::resp_send);
		EXPECT_EQ(rsp[i].wqe_counter(), i);
		EXPECT_EQ(rsp[i].byte_cnt(), sizeof(msg));
		fill(msg, sizeof(msg), u8(i * 16));
		EXPECT_EQ(std::memcmp(dst.cpu() + i * 256, msg, sizeof(msg)), 0);
	}

	// QUERY_RMP through its handle: ready, cyclic, 3 WQEs taken.
	u8 q[prm::query_rmp_in::size_bytes] = {}, qo[prm::query_rmp_out::size_bytes] = {};
	prm::set(q, prm::mbox_in::opcode, prm::op::query_rmp);
	prm::set(q, prm::query_rmp_in::rmpn, rmpn);
	ASSERT_EQ(use(2, q, sizeof(q), qo, sizeof(qo)), 0);
	const u8 *ctx = prm::at(qo, prm::query_rmp_out::rmp_context);
	const u8 *wq = prm::at(ctx, prm::rmpc::wq);
	EXPECT_EQ(prm::get(ctx, prm::rmpc::state), prm::rmpc_state::rdy);
	EXPECT_EQ(prm::get(wq, prm::wq::wq_type), prm::wq_type::cyclic);
	EXPECT_EQ(prm::get(wq, prm::wq::log_wq_sz), 3u);
	EXPECT_EQ(prm::get(wq, prm::wq::hw_counter), 3u);
	EXPECT_EQ(prm::get(wq, prm::wq::wq_umem_valid), 1u);

	// In use by b: not destroyed.
	EXPECT_NE(scx_devx_obj_destroy(drv, rmp_end), 0);

	// MODIFY_RMP to ERR (naming its state RDY): it hands out no more WQEs,
	// and a modify naming the wrong current state is refused.
	u8 m[prm::modify_rmp_in::size_bytes] = {}, mo[16] = {};
	prm::set(m, prm::mbox_in::opcode, prm::op::modify_rmp);
	prm::set(m, prm::modify_rmp_in::rmpn, rmpn);
	prm::set(m, prm::modify_rmp_in::rmp_state, prm::rmpc_state::err);
	prm::set(prm::at(m, prm::modify_rmp_in::ctx), prm::rmpc::state, prm::rmpc_state::err);
	EXPECT_NE(use(1, m, sizeof(m), mo, sizeof(mo)), 0);
	prm::set(m, prm::modify_rmp_in::rmp_state, prm::rmpc_state::rdy);
	ASSERT_EQ(use(1, m, sizeof(m), mo, sizeof(mo)), 0);
	post(1);
	send(*a, msg, sizeof(msg));
	pump();
	EXPECT_TRUE(drain(*br).empty());
	ASSERT_EQ(use(2, q, sizeof(q), qo, sizeof(qo)), 0);
	EXPECT_EQ(prm::get(ctx, prm::rmpc::state), prm::rmpc_state::err);
	EXPECT_EQ(prm::get(wq, prm::wq::hw_counter), 3u);

	destroy_qp(*b);
	EXPECT_EQ(scx_devx_obj_destroy(drv, rmp_end), 0);
	rmp_name = 0;
}

// A linked-list RMP follows next_wqe_index, as an SRQ does; an RMP is not
// an SRQ to SRQ commands, and what softcx lacks (striding WQEs, basic
// WQEs on a linked list) is refused with the PRM status.
TEST_F(DpRmp, LinkedListRmpFollowsTheChainAndRefusals)
{
	u32 rmpn = 0;
	ASSERT_EQ(create(prm::wq_type::linked_list, &rmpn), 0);
	auto [a, b, br] = connect(rmpn);
	mr_t &dst = make_mr(8 * 256, SCX_ACCESS_LOCAL_WRITE);
	for (u16 i = 0; i < 8; i++)
		wqe(i, u16((i + 3) % 8), dst, i * 256, 256);
	post(3);
	u8 msg[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	for (int i = 0; i < 3; i++)
		send(*a, msg, sizeof(msg));
	pump();
	auto rsp = drain(*br);
	ASSERT_EQ(rsp.size(), 3u);
	const u16 order[3] = {0, 3, 6};
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(rsp[i].wqe_counter(), order[i]);
	// QUERY_SRQ and DESTROY_SRQ do not name an RMP.
	u16 limit = 0;
	EXPECT_NE(scx_verbs_query_srq(drv, rmpn, &limit), 0);
	EXPECT_NE(scx_verbs_destroy_srq(drv, rmpn), 0);
	destroy_qp(*b);

	// Striding WQEs are refused (BAD_PARAM, EREMOTEIO from the device).
	u32 other = 0;
	u64 keep_name = rmp_name;
	u8 keep_end[16];
	std::memcpy(keep_end, rmp_end, sizeof(keep_end));
	EXPECT_EQ(create(prm::wq_type::cyclic_striding, &other), -EREMOTEIO);
	rmp_name = keep_name;
	std::memcpy(rmp_end, keep_end, sizeof(keep_end));
}
