// SPDX-License-Identifier: GPL-2.0
// Memory windows on the data path: UMR bind/unbind/local invalidate, remote
// access through a window, SEND_WITH_INV (fixture: dp_fixture.h).
#include "dp_fixture.h"

namespace {
// Its own suite: the fixture class is per file (dp_fixture.h is internal to each).
class DpWindows : public Dp {};
} // namespace

namespace {

// A UMR WQE as libmlx5 posts it for a window (after the ctrl segment):
// the UMR control segment, the mkey segment and, for a bind, one KLM.
wqe_b umr_wqe(u8 flags, u64 mask, u8 free_bits, u8 access, u32 qpn_tag, u64 start, u64 len, u32 mr_key,
	      u64 mr_va, bool klm)
{
	wqe_b w;
	u8 *u = w.grow(48);
	u[0] = flags;
	put16(u + 4, klm ? 4 : 0);
	put64(u + 8, mask);
	u8 *m = w.grow(64);
	m[0] = free_bits;
	m[2] = access;
	put32(m + 4, qpn_tag);
	put64(m + 16, start);
	put64(m + 24, len);
	if (klm) {
		u8 *k = w.grow(64);
		put32(k, u32(len));
		put32(k + 4, mr_key);
		put64(k + 8, mr_va);
	}
	return w;
}

constexpr u8 op_umr = 0x25, op_send_inval = 0x01, cqe_resp_send_inv = 4, synd_mw_bind = 0x06;
constexpr u8 umr_inline = 0x80, umr_check_not_free = 0x20, umr_xlt_offset = 0x10;
constexpr u8 mw_rw = 0x20, mw_lw = 0x08;

send_opts umr_opts(u32 mw_key)
{
	send_opts o;
	u32 be = __builtin_bswap32(mw_key);
	std::memcpy(&o.imm_raw, &be, 4);
	return o;
}

} // namespace

// Type 1 window: a bind on a region without remote rights grants the
// window's (remote write), through the window's key and range only; an
// unbind takes them back, and the old key then fails as a bad rkey does.
TEST_F(DpWindows, WindowType1BindGrantsItsRightsAndUnbindRevokesThem)
{
	pair_t p = pair();
	mr_t &region = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	u32 mw;
	ASSERT_EQ(scx_verbs_create_mw(drv, pd, false, &mw), 0);
	const char msg[] = "through a window";
	wqe_b direct;
	direct.raddr(region.va(0), mw).inl(msg, sizeof(msg));

	u32 bound = (mw & ~0xffu) | ((mw + 1) & 0xff);
	wqe_b bind = umr_wqe(umr_inline | umr_xlt_offset, 0x203C2041, 0, mw_rw | mw_lw, 0xffffff00 | (bound & 0xff),
			     region.va(512), 1024, region.key, region.va(512), true);
	EXPECT_EQ(post_send(*p.b, op_umr, bind, umr_opts(mw)), 0);
	pump();
	auto c = drain(*p.bs);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode(), cqe_op::req);
	EXPECT_EQ(c[0].wqe_opcode(), op_umr);

	wqe_b w;
	w.raddr(region.va(600), bound).inl(msg, sizeof(msg));
	post_send(*p.a, op::rdma_write, w);
	pump();
	c = drain(*p.as);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode(), cqe_op::req);
	EXPECT_EQ(std::memcmp(region.cpu() + 600, msg, sizeof(msg)), 0);

	// Unbind (free, new tag): the key that worked is refused now.
	u32 after = (bound & ~0xffu) | ((bound + 1) & 0xff);
	wqe_b unbind = umr_wqe(umr_inline | umr_xlt_offset, 0x20002000, 0x40, 0, 0xffffff00 | (after & 0xff), 0, 0,
			       0, 0, false);
	post_send(*p.b, op_umr, unbind, umr_opts(bound));
	pump();
	c = drain(*p.bs);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode(), cqe_op::req);
	wqe_b again;
	again.raddr(region.va(800), bound).inl(msg, sizeof(msg));
	post_send(*p.a, op::rdma_write, again);
	pump();
	c = drain(*p.as);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode(), cqe_op::req_err);
	EXPECT_EQ(c[0].syndrome(), synd::rem_access);
	EXPECT_EQ(region.cpu()[800], guard_byte);
	EXPECT_TRUE(guards_intact(region));
	EXPECT_EQ(scx_verbs_destroy_mkey(drv, mw), 0);
}

// Type 2 window bound to the responder QP: SEND_WITH_INV frees it and the
// receiver sees the key in its CQE; a bind that must find the window free
// but finds it bound fails with the memory-window bind error.
TEST_F(DpWindows, WindowType2SendWithInvalidateAndCheckNotFree)
{
	pair_t p = pair();
	mr_t &region = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	mr_t &rbuf = make_mr(64, SCX_ACCESS_LOCAL_WRITE);
	u32 mw;
	ASSERT_EQ(scx_verbs_create_mw(drv, pd, true, &mw), 0);
	u32 bound = (mw & ~0xffu) | ((mw + 1) & 0xff);
	wqe_b bind = umr_wqe(umr_inline | umr_xlt_offset | umr_check_not_free, 0x203C6041, 0, mw_rw | mw_lw,
			     p.b->qpn << 8 | (bound & 0xff), region.va(0), 4096, region.key, region.va(0), true);
	post_send(*p.b, op_umr, bind, umr_opts(mw));
	pump();
	auto c = drain(*p.bs);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode(), cqe_op::req);

	// Bound to b: a's write through it lands.
	const char msg[] = "type 2";
	wqe_b w;
	w.raddr(region.va(100), bound).inl(msg, sizeof(msg));
	post_send(*p.a, op::rdma_write, w);
	pump();
	c = drain(*p.as);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode(), cqe_op::req);
	EXPECT_EQ(std::memcmp(region.cpu() + 100, msg, sizeof(msg)), 0);

	// SEND_WITH_INV naming it: the receive completes with the key.
	post_recv(*p.b, {{rbuf.va(), 64, rbuf.key}});
	wqe_b s;
	post_send(*p.a, op_send_inval, s, umr_opts(bound));
	pump();
	c = drain(*p.as);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode(), cqe_op::req);
	auto r = drain(*p.br);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].opcode(), cqe_resp_send_inv);
	EXPECT_EQ(__builtin_bswap32(r[0].imm_raw()), bound);

	// Free again: binding it with check-not-free works once...
	u32 next = (bound & ~0xffu) | ((bound + 1) & 0xff);
	bind = umr_wqe(umr_inline | umr_xlt_offset | umr_check_not_free, 0x203C6041, 0, mw_rw | mw_lw,
		       p.b->qpn << 8 | (next & 0xff), region.va(0), 4096, region.key, region.va(0), true);
	post_send(*p.b, op_umr, bind, umr_opts(bound));
	pump();
	c = drain(*p.bs);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode(), cqe_op::req);
	// ...and not while bound.
	post_send(*p.b, op_umr, bind, umr_opts(next));
	pump();
	c = drain(*p.bs);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode(), cqe_op::req_err);
	EXPECT_EQ(c[0].syndrome(), synd_mw_bind);
	EXPECT_EQ(state(*p.b), u32(SCX_QPS_ERR));
	EXPECT_TRUE(guards_intact(region));
	EXPECT_EQ(scx_verbs_destroy_mkey(drv, mw), 0);
}
