// SPDX-License-Identifier: GPL-2.0
// A user context's UAR freed while a CQ and a QP still name it, in the
// order the kernel runs a process's end: libmlx5's ibv_close_device frees
// its UAR objects (clean_dyn_uars) before uverbs destroys what the process
// left (perftest 4.5's ib_send_bw client leaves its receive CQ), and the
// context's uid goes last (scx_dealloc_ucontext). The hca refuses to free
// a UAR something names; a refused DEALLOC_UAR, as kmod's UAR object sent
// it, left the UAR and so the DevX context behind. kmod now releases a UAR
// object's page with scx_verbs_release_uar and, while it is busy, keeps it
// until the context goes (fixture: dp_fixture.h).
#include "dp_fixture.h"

namespace {

class UarRelease : public Dp {
protected:
	// A DevX context (the default) with a PD, a UAR object's page and a
	// CQ and an RC QP on that page, as libmlx5 makes them.
	void SetUp() override
	{
		Dp::SetUp();
		if (HasFatalFailure())
			return;
		ASSERT_EQ(scx_devx_create_uctx(drv, 0, &uid), 0);
		ASSERT_EQ(scx_verbs_alloc_pd(drv, uid, &upd), 0);
		ASSERT_EQ(scx_verbs_alloc_uar(drv, uid, &uuar), 0);

		u8 *ring = mem(4096), *cq_dbr = mem(64);
		for (u32 i = 0; i < 64; i++)
			ring[i * 64 + 63] = cqe_op::invalid << 4;
		u64 cq_page = bus_of(ring);
		scx_cq_params c{};
		c.log_size = 6;
		c.cqe_size = 64;
		c.uar_index = uuar;
		c.page_shift = 12;
		c.npages = 1;
		c.pages = &cq_page;
		c.dbr_addr = bus_of(cq_dbr);
		c.uid = uid;
		c.comp = [](void *) {};
		ASSERT_EQ(again([&] { return scx_verbs_create_cq(drv, &c, &ucq, &ucqn); }), 0);

		u8 *buf = mem(4096), *qp_dbr = mem(64);
		u64 qp_page = bus_of(buf);
		scx_qp_create_params q{};
		q.type = SCX_QPT_RC;
		q.pdn = upd;
		q.send_cqn = ucqn;
		q.recv_cqn = ucqn;
		q.uar_index = uuar;
		q.sq_wqebbs = 32;
		q.rq_wqes = 16;
		q.rq_wqe_shift = 6;
		q.dbr_addr = bus_of(qp_dbr);
		q.page_shift = 12;
		q.npages = 1;
		q.pages = &qp_page;
		q.uid = uid;
		ASSERT_EQ(again([&] { return scx_verbs_create_qp(drv, &q, &uqpn); }), 0);
	}
	void TearDown() override
	{
		if (uqpn) {
			EXPECT_EQ(scx_verbs_destroy_qp(drv, uqpn), 0);
		}
		if (ucq) {
			EXPECT_EQ(scx_verbs_destroy_cq(drv, ucq), 0);
		}
		if (upd) {
			EXPECT_EQ(scx_verbs_dealloc_pd(drv, upd), 0);
		}
		if (uuar) {
			EXPECT_EQ(scx_verbs_dealloc_uar(drv, uuar), 0);
		}
		if (uid) {
			EXPECT_EQ(scx_devx_destroy_uctx(drv, uid), 0);
		}
		Dp::TearDown();
	}
	// What uverbs destroys of what the process left, newest first.
	void core_cleanup()
	{
		EXPECT_EQ(scx_verbs_destroy_qp(drv, uqpn), 0);
		uqpn = 0;
		EXPECT_EQ(scx_verbs_destroy_cq(drv, ucq), 0);
		ucq = nullptr;
		EXPECT_EQ(scx_verbs_dealloc_pd(drv, upd), 0);
		upd = 0;
	}

	u16 uid = 0;
	u32 upd = 0, uuar = 0, ucqn = 0, uqpn = 0;
	scx_cq *ucq = nullptr;
};

// The symptom: DEALLOC_UAR (BAD_RES_STATE, uar_busy) while the CQ and QP
// live, then DESTROY_UCTX (BAD_RES_STATE, uctx_busy) once they are gone,
// for the UAR is still the context's.
TEST_F(UarRelease, ADeallocRefusedWhileInUseLeavesTheUarAndTheContext)
{
	EXPECT_NE(scx_verbs_dealloc_uar(drv, uuar), 0);
	core_cleanup();
	EXPECT_NE(scx_devx_destroy_uctx(drv, uid), 0);
	// Still there: TearDown frees the UAR, then the context.
}

// The fix's contract: busy is -EBUSY (and no line in the log) while the
// CQ and QP name the UAR; once the core destroyed them, the UAR goes and
// then the context.
TEST_F(UarRelease, AReleaseWhileInUseIsBusyAndSucceedsOnceTheUsersAreGone)
{
	EXPECT_EQ(scx_verbs_release_uar(drv, uuar), -EBUSY);
	core_cleanup();
	EXPECT_EQ(scx_verbs_release_uar(drv, uuar), 0);
	uuar = 0;
	EXPECT_EQ(scx_devx_destroy_uctx(drv, uid), 0);
	uid = 0;
}

// Nothing names it: released at once, as DEALLOC_UAR would.
TEST_F(UarRelease, AReleaseOfAnUnusedUarFreesIt)
{
	core_cleanup();
	EXPECT_EQ(scx_verbs_release_uar(drv, uuar), 0);
	// Gone: a second release is the device's "no such UAR", not busy.
	EXPECT_NE(scx_verbs_release_uar(drv, uuar), -EBUSY);
	EXPECT_NE(scx_verbs_release_uar(drv, uuar), 0);
	uuar = 0;
}

} // namespace
