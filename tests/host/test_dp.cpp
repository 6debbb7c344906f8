// SPDX-License-Identifier: GPL-2.0
// The hca's data path on one port, driven as libmlx5 drives it (the
// fixture, dp_fixture.h, says how).
#include "dp_fixture.h"
#include "host_env.h"
#include "lib/sync.h"

// SEND gathers from several data segments (one crossing a page of an MR
// that starts mid-page) and scatters into a two-segment receive; SEND_IMM
// with inline data carries the raw immediate and the solicited bit.
TEST_F(Dp, SendGatherAndInlineLandInPostedReceives)
{
	pair_t p = pair();
	mr_t &src = make_mr(6000, 0, 0x123);
	mr_t &dst = make_mr(8192, SCX_ACCESS_LOCAL_WRITE);
	fill(src.cpu(), src.len, 1);
	// Receive 0: 100 bytes, then 5000 (the 2nd segment crosses a page).
	post_recv(*p.b, {{dst.va(0), 100, dst.key}, {dst.va(200), 5000, dst.key}});
	post_recv(*p.b, {{dst.va(6000), 64, dst.key}});

	wqe_b w;
	w.data(src.va(10), 50, src.key).data(src.va(3900), 400, src.key).data(src.va(5000), 30, src.key);
	EXPECT_EQ(post_send(*p.a, op::send, w), 0);
	const char msg[] = "inline bytes travel inside the WQE!!";
	wqe_b wi;
	wi.inl(msg, sizeof(msg));
	send_opts so;
	so.fm_ce_se = ce_signaled | se_solicited;
	so.imm_raw = 0x44332211; // raw, as the lib stores wr.imm_data
	EXPECT_EQ(post_send(*p.a, op::send_imm, wi, so), 1);
	pump();

	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 2u);
	EXPECT_EQ(req[0].opcode(), cqe_op::req);
	EXPECT_EQ(req[0].wqe_opcode(), op::send);
	EXPECT_EQ(req[0].qpn(), p.a->qpn);
	EXPECT_EQ(req[0].wqe_counter(), 0);
	EXPECT_EQ(req[0].user_index(), p.a->uidx);
	EXPECT_EQ(req[1].wqe_opcode(), op::send_imm);
	EXPECT_EQ(req[1].wqe_counter(), 1);

	auto rsp = drain(*p.br);
	ASSERT_EQ(rsp.size(), 2u);
	EXPECT_EQ(rsp[0].opcode(), cqe_op::resp_send);
	EXPECT_EQ(rsp[0].byte_cnt(), 480u);
	EXPECT_EQ(rsp[0].qpn(), p.b->qpn);
	EXPECT_EQ(rsp[0].src_qpn(), p.a->qpn);
	EXPECT_EQ(rsp[0].wqe_counter(), 0);
	EXPECT_EQ(rsp[0].user_index(), p.b->uidx);
	EXPECT_FALSE(rsp[0].solicited());
	EXPECT_EQ(rsp[1].opcode(), cqe_op::resp_send_imm);
	EXPECT_EQ(rsp[1].byte_cnt(), sizeof(msg));
	EXPECT_EQ(rsp[1].imm_raw(), 0x44332211u);
	EXPECT_EQ(rsp[1].wqe_counter(), 1);
	EXPECT_TRUE(rsp[1].solicited());
	EXPECT_TRUE(drain(*p.ar).empty());
	EXPECT_TRUE(drain(*p.bs).empty());

	// The gathered bytes, in order, scattered 100 + 380.
	std::vector<u8> want;
	want.insert(want.end(), src.cpu() + 10, src.cpu() + 60);
	want.insert(want.end(), src.cpu() + 3900, src.cpu() + 4300);
	want.insert(want.end(), src.cpu() + 5000, src.cpu() + 5030);
	EXPECT_EQ(std::memcmp(dst.cpu(), want.data(), 100), 0);
	EXPECT_EQ(std::memcmp(dst.cpu() + 200, want.data() + 100, 380), 0);
	EXPECT_EQ(dst.cpu()[100], guard_byte); // the gap between the segments
	EXPECT_EQ(dst.cpu()[580], guard_byte); // after the 480 bytes
	EXPECT_EQ(std::memcmp(dst.cpu() + 6000, msg, sizeof(msg)), 0);
	EXPECT_EQ(dst.cpu()[6000 + sizeof(msg)], guard_byte);
	EXPECT_TRUE(guards_intact(dst));
	EXPECT_EQ(state(*p.a), u32(SCX_QPS_RTS));
	EXPECT_EQ(state(*p.b), u32(SCX_QPS_RTS));
	// No event without an arm request.
	EXPECT_EQ(p.br->events.load(), 0);
}

// Inline bytes ahead of pointer segments (UCX puts its header inline and
// the payload in registered memory): the message is the inline bytes,
// then the list, in order, across packets of the path MTU. Inline data
// after a pointer segment is refused (LOCAL_QP_OP_ERR).
TEST_F(Dp, InlineHeaderThenDataSegmentsGatherInOrder)
{
	pair_t p = pair();
	mr_t &src = make_mr(8192, 0);
	mr_t &dst = make_mr(8192, SCX_ACCESS_LOCAL_WRITE);
	fill(src.cpu(), src.len, 3);
	post_recv(*p.b, {{dst.va(0), 4096, dst.key}});
	const u8 hdr[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	wqe_b w;
	w.inl(hdr, sizeof(hdr)).data(src.va(100), 2000, src.key).data(src.va(5000), 1000, src.key);
	EXPECT_EQ(post_send(*p.a, op::send, w), 0);
	pump();
	auto rsp = drain(*p.br);
	ASSERT_EQ(rsp.size(), 1u);
	EXPECT_EQ(rsp[0].opcode(), cqe_op::resp_send);
	EXPECT_EQ(rsp[0].byte_cnt(), 3008u);
	std::vector<u8> want(hdr, hdr + sizeof(hdr));
	want.insert(want.end(), src.cpu() + 100, src.cpu() + 2100);
	want.insert(want.end(), src.cpu() + 5000, src.cpu() + 6000);
	EXPECT_EQ(std::memcmp(dst.cpu(), want.data(), want.size()), 0);
	EXPECT_EQ(dst.cpu()[3008], guard_byte);
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].opcode(), cqe_op::req);

	wqe_b bad;
	bad.data(src.va(0), 16, src.key).inl(hdr, sizeof(hdr));
	EXPECT_EQ(post_send(*p.a, op::send, bad), 1);
	pump();
	req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	expect_err(req[0], cqe_op::req_err, synd::loc_qp_op, 0x6a, p.a->qpn, 1, p.a->uidx);
	EXPECT_TRUE(guards_intact(dst));
}

// A WQE that starts in the last WQEBB of the SQ continues at its start.
TEST_F(Dp, WqeWrappingTheRingIsReadAcrossItsEnd)
{
	cq_t &as = make_cq(), &ar = make_cq(), &bs = make_cq(), &br = make_cq();
	qp_t &a = make_qp(SCX_QPT_RC, as, ar, 0, 8);
	qp_t &b = make_qp(SCX_QPT_RC, bs, br);
	bring_up(a, b.qpn, {});
	bring_up(b, a.qpn, {});
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < 7; i++)
		post_send(a, op::nop, wqe_b{});
	pump();
	ASSERT_EQ(drain(as).size(), 7u);
	u8 msg[100];
	fill(msg, sizeof(msg), 9);
	post_recv(b, {{dst.va(), 4096, dst.key}});
	wqe_b w;
	w.inl(msg, sizeof(msg)); // ds 8: two WQEBBs, 7 and 0
	EXPECT_EQ(post_send(a, op::send, w), 7);
	pump();
	auto req = drain(as);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].opcode(), cqe_op::req);
	EXPECT_EQ(req[0].wqe_counter(), 7);
	auto rsp = drain(br);
	ASSERT_EQ(rsp.size(), 1u);
	EXPECT_EQ(rsp[0].byte_cnt(), sizeof(msg));
	EXPECT_EQ(std::memcmp(dst.cpu(), msg, sizeof(msg)), 0);
	// And the ring goes on from WQEBB 1 (counter 9).
	post_recv(b, {{dst.va(), 4096, dst.key}});
	EXPECT_EQ(post_send(a, op::send, w), 9);
	pump();
	req = drain(as);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].wqe_counter(), 9);
}

// No receive posted: the SEND is RNR-NAKed and retried on the responder's
// min_rnr_timer; nothing completes until a receive is there.
TEST_F(Dp, RnrWaitsUntilAReceiveIsPosted)
{
	pair_t p = pair();
	mr_t &dst = make_mr(256, SCX_ACCESS_LOCAL_WRITE);
	const char msg[] = "late receiver";
	wqe_b w;
	w.inl(msg, sizeof(msg));
	post_send(*p.a, op::send, w);
	// Several timer periods (10 us each) without a receive.
	auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
	while (std::chrono::steady_clock::now() < until)
		scx_hca_poll(hca);
	cqe_t e;
	EXPECT_FALSE(next_cqe(*p.as, &e));
	EXPECT_FALSE(next_cqe(*p.br, &e));
	EXPECT_GE(dp_stats().rnr_naks, 2u); // retried, rnr_retry 7 is unlimited
	EXPECT_EQ(state(*p.a), u32(SCX_QPS_RTS));

	// A receive moves only RCV_DBR (no doorbell): the timer finds it.
	post_recv(*p.b, {{dst.va(), 256, dst.key}});
	ASSERT_TRUE(pump_until([&] { return next_cqe(*p.as, &e); }));
	EXPECT_EQ(e.opcode(), cqe_op::req);
	EXPECT_EQ(e.wqe_counter(), 0);
	auto rsp = drain(*p.br);
	ASSERT_EQ(rsp.size(), 1u);
	EXPECT_EQ(rsp[0].opcode(), cqe_op::resp_send);
	EXPECT_EQ(rsp[0].byte_cnt(), sizeof(msg));
	EXPECT_EQ(std::memcmp(dst.cpu(), msg, sizeof(msg)), 0);
	pump();
	EXPECT_TRUE(drain(*p.as).empty()); // exactly once
	EXPECT_TRUE(drain(*p.br).empty());
}

TEST_F(Dp, RdmaWriteAndWriteWithImmediate)
{
	pair_t p = pair();
	mr_t &src = make_mr(4096, 0);
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE, 0x40);
	mr_t &rbuf = make_mr(64, SCX_ACCESS_LOCAL_WRITE);
	fill(src.cpu(), src.len, 3);
	wqe_b w;
	w.raddr(dst.va(1000), dst.key).data(src.va(0), 300, src.key).data(src.va(2000), 200, src.key);
	EXPECT_EQ(post_send(*p.a, op::rdma_write, w), 0);
	pump();
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].opcode(), cqe_op::req);
	EXPECT_EQ(req[0].wqe_opcode(), op::rdma_write);
	EXPECT_EQ(std::memcmp(dst.cpu() + 1000, src.cpu(), 300), 0);
	EXPECT_EQ(std::memcmp(dst.cpu() + 1300, src.cpu() + 2000, 200), 0);
	EXPECT_EQ(dst.cpu()[999], guard_byte);
	EXPECT_EQ(dst.cpu()[1500], guard_byte);
	EXPECT_TRUE(drain(*p.br).empty()); // a plain write is invisible to the responder

	// WRITE_IMM consumes a receive WQE (its buffer untouched) and
	// completes it as RESP_WR_IMM with the immediate and the length.
	post_recv(*p.b, {{rbuf.va(), 64, rbuf.key}});
	const char msg[] = "written with an immediate";
	wqe_b wi;
	wi.raddr(dst.va(3000), dst.key).inl(msg, sizeof(msg));
	send_opts so;
	so.imm_raw = 0xdeadbeef;
	EXPECT_EQ(post_send(*p.a, op::rdma_write_imm, wi, so), 1);
	pump();
	req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].wqe_opcode(), op::rdma_write_imm);
	EXPECT_EQ(req[0].wqe_counter(), 1);
	auto rsp = drain(*p.br);
	ASSERT_EQ(rsp.size(), 1u);
	EXPECT_EQ(rsp[0].opcode(), cqe_op::resp_wr_imm);
	EXPECT_EQ(rsp[0].imm_raw(), 0xdeadbeefu);
	EXPECT_EQ(rsp[0].byte_cnt(), sizeof(msg));
	EXPECT_EQ(rsp[0].wqe_counter(), 0);
	EXPECT_EQ(rsp[0].qpn(), p.b->qpn);
	EXPECT_EQ(std::memcmp(dst.cpu() + 3000, msg, sizeof(msg)), 0);
	EXPECT_EQ(rbuf.cpu()[0], guard_byte);
	EXPECT_TRUE(guards_intact(dst));
}

TEST_F(Dp, RdmaReadScattersAndReportsTheByteCount)
{
	pair_t p = pair();
	mr_t &remote = make_mr(8192, SCX_ACCESS_REMOTE_READ);
	mr_t &local = make_mr(4096, SCX_ACCESS_LOCAL_WRITE, 0x10);
	fill(remote.cpu(), remote.len, 5);
	wqe_b w;
	w.raddr(remote.va(4000), remote.key).data(local.va(0), 150, local.key).data(local.va(1000), 250, local.key);
	post_send(*p.a, op::rdma_read, w);
	pump();
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].opcode(), cqe_op::req);
	EXPECT_EQ(req[0].wqe_opcode(), op::rdma_read);
	EXPECT_EQ(req[0].byte_cnt(), 400u);
	EXPECT_EQ(std::memcmp(local.cpu(), remote.cpu() + 4000, 150), 0);
	EXPECT_EQ(std::memcmp(local.cpu() + 1000, remote.cpu() + 4150, 250), 0);
	EXPECT_EQ(local.cpu()[150], guard_byte);
	EXPECT_EQ(local.cpu()[1250], guard_byte);
	EXPECT_TRUE(guards_intact(local));
	EXPECT_TRUE(drain(*p.br).empty());
}

// 8-byte atomics in host byte order (the device's atomic capability says
// so); the original value lands in the local buffer.
TEST_F(Dp, AtomicsAreHostEndianAndReturnTheOriginal)
{
	pair_t p = pair();
	mr_t &target = make_mr(64, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_ATOMIC);
	mr_t &result = make_mr(64, SCX_ACCESS_LOCAL_WRITE);
	u64 v = 100;
	std::memcpy(target.cpu() + 8, &v, 8);
	auto old = [&](u32 at) {
		u64 r;
		std::memcpy(&r, result.cpu() + at, 8);
		return r;
	};
	auto now = [&] {
		u64 r;
		std::memcpy(&r, target.cpu() + 8, 8);
		return r;
	};

	wqe_b fa;
	fa.raddr(target.va(8), target.key).atomic(5, 0xffff /* stale: FA ignores it */).data(result.va(0), 8, result.key);
	post_send(*p.a, op::atomic_fa, fa);
	pump();
	EXPECT_EQ(old(0), 100u);
	EXPECT_EQ(now(), 105u);

	wqe_b cs;
	cs.raddr(target.va(8), target.key).atomic(7, 105).data(result.va(8), 8, result.key);
	post_send(*p.a, op::atomic_cs, cs);
	wqe_b miss;
	miss.raddr(target.va(8), target.key).atomic(1, 999).data(result.va(16), 8, result.key);
	post_send(*p.a, op::atomic_cs, miss);
	pump();
	EXPECT_EQ(old(8), 105u);
	EXPECT_EQ(old(16), 7u); // compare failed: nothing swapped, original back
	EXPECT_EQ(now(), 7u);

	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 3u);
	EXPECT_EQ(req[0].wqe_opcode(), op::atomic_fa);
	EXPECT_EQ(req[1].wqe_opcode(), op::atomic_cs);
	for (const cqe_t &e : req) {
		EXPECT_EQ(e.opcode(), cqe_op::req);
		EXPECT_EQ(e.byte_cnt(), 8u);
	}
	EXPECT_EQ(result.cpu()[24], guard_byte);
	EXPECT_TRUE(guards_intact(target));

	// A misaligned target is an invalid request: REM_INV_REQ.
	wqe_b bad;
	bad.raddr(target.va(12), target.key).atomic(1, 0).data(result.va(24), 8, result.key);
	post_send(*p.a, op::atomic_fa, bad);
	pump();
	req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	expect_err(req[0], cqe_op::req_err, synd::rem_inv_req, 0x8a, p.a->qpn, 3, p.a->uidx);
	EXPECT_EQ(now(), 7u);
	EXPECT_EQ(state(*p.a), u32(SCX_QPS_ERR));
}

// Unsignaled WQEs complete silently; the next signaled one reports its own
// index, which tells the lib that everything before it is done too.
TEST_F(Dp, UnsignaledWqesRetireWithTheNextSignaledOne)
{
	pair_t p = pair();
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < 4; i++)
		post_recv(*p.b, {{dst.va(i * 1024), 1024, dst.key}});
	u8 msg[100];
	fill(msg, sizeof(msg), 4);
	send_opts quiet;
	quiet.fm_ce_se = 0;
	wqe_b two_bbs;
	two_bbs.inl(msg, 100); // ds 8: WQEBBs 0-1
	wqe_b one_bb;
	one_bb.inl(msg, 20);
	EXPECT_EQ(post_send(*p.a, op::send, two_bbs, quiet), 0);
	EXPECT_EQ(post_send(*p.a, op::send, one_bb, quiet), 2);
	EXPECT_EQ(post_send(*p.a, op::send, two_bbs, quiet), 3);
	pump();
	cqe_t e;
	EXPECT_FALSE(next_cqe(*p.as, &e));
	EXPECT_EQ(post_send(*p.a, op::send, one_bb), 5);
	pump();
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].wqe_counter(), 5);
	EXPECT_EQ(req[0].wqe_opcode(), op::send);
	auto rsp = drain(*p.br);
	ASSERT_EQ(rsp.size(), 4u); // the receiver completes every message
	const u32 lens[4] = {100, 20, 100, 20};
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(rsp[i].wqe_counter(), i);
		EXPECT_EQ(rsp[i].byte_cnt(), lens[i]);
		EXPECT_EQ(std::memcmp(dst.cpu() + i * 1024, msg, lens[i]), 0);
	}
}

// UD: the receiver gets a 40-byte GRH before the payload (byte_cnt counts
// it) and the GRH flag; a wrong Q_Key is dropped silently, the sender
// completes anyway; a Q_Key with its top bit set means the sender's own.
TEST_F(Dp, UdSendCarriesAGrhAndDropsOnQkeyMismatch)
{
	cq_t &xs = make_cq(), &xr = make_cq(), &ys = make_cq(), &yr = make_cq();
	qp_t &x = make_qp(SCX_QPT_UD, xs, xr);
	qp_t &y = make_qp(SCX_QPT_UD, ys, yr);
	const u32 qkey = 0x11223344;
	bring_up(x, 0, {}, qkey);
	bring_up(y, 0, {}, qkey);
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	post_recv(y, {{dst.va(0), 40 + 256, dst.key}});
	u8 msg[200];
	fill(msg, sizeof(msg), 8);
	// The sender's GID (entry 0, which the AV names) is the source address.
	const u8 sgid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 7};
	const u8 smac[6] = {0x02, 0x5c, 0, 0, 0, 7};
	ASSERT_EQ(scx_verbs_set_gid(drv, 0, sgid, smac, true, true), 0);
	EXPECT_NE(scx_verbs_set_gid(drv, 256, sgid, smac, true, true), 0); // beyond the table
	// The destination is this port's other address (a port with addresses
	// answers only to its own, see test_dp_fabric.cpp).
	ASSERT_EQ(scx_verbs_set_gid(drv, 1, gid_v4, smac, true, true), 0);
	ASSERT_EQ(scx_verbs_set_gid(drv, 2, gid_v6, smac, true, false), 0);

	wqe_b w;
	w.av(qkey, y.qpn, gid_v4).inl(msg, sizeof(msg));
	post_send(x, op::send, w);
	pump();
	auto req = drain(xs);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].opcode(), cqe_op::req);
	auto rsp = drain(yr);
	ASSERT_EQ(rsp.size(), 1u);
	EXPECT_EQ(rsp[0].opcode(), cqe_op::resp_send);
	EXPECT_EQ(rsp[0].byte_cnt(), 240u);
	EXPECT_EQ(rsp[0].src_qpn(), x.qpn);
	EXPECT_NE((rsp[0].flags_rqpn() >> 28) & 3, 0u); // IBV_WC_GRH
	EXPECT_EQ((rsp[0].flags_rqpn() >> 24) & 3, 2u);  // RoCE L3 header: IPv4
	EXPECT_EQ(rsp[0].qpn(), y.qpn);
	EXPECT_EQ(rsp[0].user_index(), y.uidx);
	// RoCEv2 over IPv4: 20 unused bytes, then the IPv4 header.
	const u8 *ip = dst.cpu() + 20;
	EXPECT_EQ(ip[0], 0x45);
	EXPECT_EQ(ip[9], 17); // UDP
	EXPECT_EQ(get16(ip + 2), 20u + 8 + 12 + 8 + 200 + 4);
	EXPECT_EQ(std::memcmp(ip + 12, sgid + 12, 4), 0);   // source address
	EXPECT_EQ(std::memcmp(ip + 16, gid_v4 + 12, 4), 0); // destination address
	u32 sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += get16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	EXPECT_EQ(sum, 0xffffu); // header checksum
	EXPECT_EQ(std::memcmp(dst.cpu() + 40, msg, sizeof(msg)), 0);

	// Wrong Q_Key: dropped, the receive stays for the next message.
	post_recv(y, {{dst.va(1024), 40 + 256, dst.key}});
	wqe_b wrong;
	wrong.av(qkey + 1, y.qpn, gid_v4).inl(msg, 10);
	post_send(x, op::send, wrong);
	pump();
	req = drain(xs);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].opcode(), cqe_op::req);
	EXPECT_TRUE(drain(yr).empty());
	EXPECT_EQ(dst.cpu()[1024 + 40], guard_byte);

	// Top bit set: the sender's own Q_Key, which matches; IPv6 this time.
	wqe_b own;
	own.av(0x80000000u, y.qpn, gid_v6).inl(msg, 30);
	post_send(x, op::send, own);
	pump();
	rsp = drain(yr);
	ASSERT_EQ(rsp.size(), 1u);
	EXPECT_EQ(rsp[0].wqe_counter(), 1);
	EXPECT_EQ(rsp[0].byte_cnt(), 70u);
	EXPECT_EQ((rsp[0].flags_rqpn() >> 24) & 3, 1u); // IPv6
	const u8 *g6 = dst.cpu() + 1024;
	EXPECT_EQ(g6[0] >> 4, 6);
	EXPECT_EQ(g6[6], 17);
	// UDP, BTH, DETH, the payload and its pad to 4 bytes, ICRC: as on the wire.
	EXPECT_EQ(get16(g6 + 4), 8u + 12 + 8 + 30 + 2 + 4);
	EXPECT_EQ(std::memcmp(g6 + 24, gid_v6, 16), 0);
	EXPECT_EQ(std::memcmp(dst.cpu() + 1024 + 40, msg, 30), 0);
	EXPECT_EQ(state(x), u32(SCX_QPS_RTS));
	EXPECT_EQ(state(y), u32(SCX_QPS_RTS));
}

// An SRQ hands out WQEs along the next_wqe_index chain the lib keeps, and
// the CQE names the SRQ index it used.
TEST_F(Dp, SrqReceivesFollowTheNextWqeChain)
{
	cq_t &as = make_cq(), &ar = make_cq(), &bs = make_cq(), &br = make_cq();
	srq_t &s = make_srq(br); // 8 WQEs of 64 bytes: next segment + 3 data segments
	ASSERT_TRUE(s.alive);
	qp_t &a = make_qp(SCX_QPT_RC, as, ar);
	qp_t &b = make_qp(SCX_QPT_RC, bs, br, s.srqn);
	bring_up(a, b.qpn, {});
	bring_up(b, a.qpn, {});
	mr_t &dst = make_mr(8 * 256, SCX_ACCESS_LOCAL_WRITE);

	// The free list 0 -> 5 -> 2 -> 7 -> 1; each WQE receives into its own
	// 256-byte slot.
	auto write_wqe = [&](u16 idx, u16 next) { srq_wqe(s, idx, next, dst, idx * 256, 256); };
	auto post = [&] { srq_post(s); };
	write_wqe(0, 5);
	write_wqe(5, 2);
	write_wqe(2, 7);
	write_wqe(7, 1);
	post();
	post();
	post();

	u8 msg[64];
	for (int i = 0; i < 3; i++) {
		fill(msg, sizeof(msg), u8(i * 16));
		wqe_b w;
		w.inl(msg, u32(sizeof(msg)));
		post_send(a, op::send, w);
	}
	pump();
	auto rsp = drain(br);
	ASSERT_EQ(rsp.size(), 3u);
	const u16 order[3] = {0, 5, 2};
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(rsp[i].opcode(), cqe_op::resp_send);
		EXPECT_EQ(rsp[i].wqe_counter(), order[i]);
		EXPECT_EQ(rsp[i].qpn(), b.qpn);
		EXPECT_EQ(rsp[i].user_index(), b.uidx); // the QP's, also for SRQ receives
		fill(msg, sizeof(msg), u8(i * 16));
		EXPECT_EQ(std::memcmp(dst.cpu() + order[i] * 256, msg, sizeof(msg)), 0);
	}
	EXPECT_EQ(dst.cpu()[256], guard_byte); // slot 1 is not on the chain yet

	// The SRQ is empty: the 4th message waits (RNR) until WQE 7 is posted.
	wqe_b w;
	w.inl(msg, 8);
	post_send(a, op::send, w);
	pump();
	EXPECT_TRUE(drain(br).empty());
	post();
	cqe_t e;
	ASSERT_TRUE(pump_until([&] { return next_cqe(br, &e); }));
	EXPECT_EQ(e.wqe_counter(), 7);
	EXPECT_EQ(drain(as).size(), 4u);
	destroy_qp(b); // the SRQ outlives the QP on it
}

// The SRQ producer counter libmlx5 writes is 16 bits: after 65535 WQEs it
// wraps to 0 and receives go on (found by the guest's robust traffic, which
// stalled at exactly 65535 operations).
TEST_F(Dp, SrqProducerCounterWrapsAfter65535Wqes)
{
	cq_t &as = make_cq(), &ar = make_cq(), &bs = make_cq(), &br = make_cq();
	srq_t &s = make_srq(br); // 8 WQEs, a ring: i -> i + 1
	ASSERT_TRUE(s.alive);
	qp_t &a = make_qp(SCX_QPT_RC, as, ar);
	qp_t &b = make_qp(SCX_QPT_RC, bs, br, s.srqn);
	bring_up(a, b.qpn, {});
	bring_up(b, a.qpn, {});
	mr_t &dst = make_mr(8 * 256, SCX_ACCESS_LOCAL_WRITE);
	for (u16 i = 0; i < 8; i++)
		srq_wqe(s, i, u16((i + 1) % 8), dst, i * 256, 256);
	u8 msg[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	constexpr u32 total = 65536 + 24;
	u32 received = 0, bad = 0;
	for (u32 done = 0; done < total; done += 8) {
		for (int i = 0; i < 8; i++) {
			srq_post(s);
			wqe_b w;
			w.inl(msg, u32(sizeof(msg)));
			post_send(a, op::send, w);
		}
		pump();
		for (auto &e : drain(br)) {
			received++;
			bad += e.opcode() != cqe_op::resp_send;
		}
		drain(as);
		if (received != done + 8)
			break;
	}
	EXPECT_EQ(received, total) << "receives stopped at the 16-bit wrap";
	EXPECT_EQ(bad, 0u);
	destroy_qp(b);
}

// Arming through the arm word of the CQ doorbell record, as libmlx5's
// ibv_req_notify_cq does it: the very first request is all zeroes and must
// arm; one COMP EQE per arm reaches the driver's completion callback;
// solicited-only arms ignore unsolicited CQEs; arming over CQEs that are
// already there fires at once.
TEST_F(Dp, CqArmWordArmsAndCompletionEventsReachTheCallback)
{
	pair_t p = pair();
	cq_t &c = *p.br;
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < 8; i++)
		post_recv(*p.b, {{dst.va(i * 256), 256, dst.key}});
	const char msg[] = "event";
	wqe_b w;
	w.inl(msg, sizeof(msg));
	send_opts sol;
	sol.fm_ce_se = ce_signaled | se_solicited;

	// The device marked the word at creation, so an all-zero request is new.
	EXPECT_NE(load_be32(c.dbr + 4) & 0x80000000u, 0u);
	arm_cq(c, 0, false);
	EXPECT_EQ(load_be32(c.dbr + 4), 0u);
	pump();
	EXPECT_EQ(load_be32(c.dbr + 4), 0x80000000u); // seen, and nothing else changed
	EXPECT_EQ(c.events.load(), 0);                 // no CQE yet

	post_send(*p.a, op::send, w);
	pump();
	EXPECT_EQ(c.events.load(), 1);
	post_send(*p.a, op::send, w);
	pump();
	EXPECT_EQ(c.events.load(), 1); // one event per arm
	EXPECT_EQ(drain(c).size(), 2u);

	// Solicited only: the unsolicited CQE does not fire, the solicited does.
	// The arm and the SEND reach the device in the same pass; the arm was
	// made first, so the unsolicited CQE is not "already there" for it.
	arm_cq(c, 1, true);
	post_send(*p.a, op::send, w);
	pump();
	EXPECT_EQ(c.events.load(), 1);
	post_send(*p.a, op::send, w, sol);
	pump();
	EXPECT_EQ(c.events.load(), 2);
	auto rsp = drain(c);
	ASSERT_EQ(rsp.size(), 2u);
	EXPECT_FALSE(rsp[0].solicited());
	EXPECT_TRUE(rsp[1].solicited());

	// A CQE written while disarmed, then an arm naming the index before it.
	post_send(*p.a, op::send, w);
	pump();
	EXPECT_EQ(c.events.load(), 2);
	arm_cq(c, 2, false);
	pump();
	EXPECT_EQ(c.events.load(), 3);

	// A record-only arm (no UAR store) is seen by the next pass any
	// doorbell causes, before that pass's CQE, which then fires it.
	EXPECT_EQ(drain(c).size(), 1u);
	arm_cq(c, 3, false, false);
	post_send(*p.a, op::send, w);
	pump();
	EXPECT_EQ(c.events.load(), 4);
	EXPECT_EQ(p.as->events.load(), 0); // the sender's CQ was never armed
	EXPECT_EQ(c.errors.load(), 0);
}

// A 4-entry CQ: the owner bit alternates per lap (next_cqe checks it, an
// entry from the previous lap is not taken for a new one); writing past
// the consumer index is an overrun that reaches the driver as CQ_ERROR.
TEST_F(Dp, CqOwnerBitLapsAndOverrunRaisesCqError)
{
	cq_t &small = make_cq(2), &ar = make_cq(), &bs = make_cq(), &br = make_cq();
	qp_t &a = make_qp(SCX_QPT_RC, small, ar);
	qp_t &b = make_qp(SCX_QPT_RC, bs, br);
	bring_up(a, b.qpn, {});
	bring_up(b, a.qpn, {});
	for (int lap = 0; lap < 3; lap++) {
		for (int i = 0; i < 3; i++)
			post_send(a, op::nop, wqe_b{});
		pump();
		auto req = drain(small);
		ASSERT_EQ(req.size(), 3u) << lap;
		for (int i = 0; i < 3; i++)
			EXPECT_EQ(req[i].wqe_counter(), lap * 3 + i);
	}
	EXPECT_EQ(small.ci, 9u);
	for (int i = 0; i < 5; i++)
		post_send(a, op::nop, wqe_b{});
	pump();
	// The CQ_ERROR event arrives by interrupt, maybe after pump() returned.
	EXPECT_TRUE(c_wait_for([&] { return small.errors.load() == 1; }, 2000));
	EXPECT_EQ(small.errors.load(), 1);
	auto req = drain(small);
	ASSERT_EQ(req.size(), 4u); // the fifth found no room
	EXPECT_EQ(req[3].wqe_counter(), 12);
}

// A zero-length SEND (ctrl only, ds 1, as libmlx5 builds it) consumes a
// receive and completes with byte_cnt 0.
TEST_F(Dp, ZeroLengthSend)
{
	pair_t p = pair();
	mr_t &dst = make_mr(64, SCX_ACCESS_LOCAL_WRITE);
	post_recv(*p.b, {{dst.va(), 64, dst.key}});
	send_opts so;
	so.imm_raw = 0x01020304;
	post_send(*p.a, op::send_imm, wqe_b{}, so);
	pump();
	auto rsp = drain(*p.br);
	ASSERT_EQ(rsp.size(), 1u);
	EXPECT_EQ(rsp[0].opcode(), cqe_op::resp_send_imm);
	EXPECT_EQ(rsp[0].byte_cnt(), 0u);
	EXPECT_EQ(rsp[0].imm_raw(), 0x01020304u);
	EXPECT_EQ(drain(*p.as).size(), 1u);
	EXPECT_EQ(dst.cpu()[0], guard_byte);
}

// Error CQEs count as solicited for a solicited-only arm.
TEST_F(Dp, SolicitedOnlyArmFiresOnErrorCompletions)
{
	pair_t p = pair();
	cq_t &c = *p.as;
	arm_cq(c, 0, true);
	pump();
	mr_t &src = make_mr(64, 0);
	wqe_b w;
	w.data(src.va(), 8, src.key ^ 0x80); // no such key
	post_send(*p.a, op::send, w);
	pump();
	EXPECT_EQ(c.events.load(), 1);
	auto req = drain(c);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].opcode(), cqe_op::req_err);
}

// Destroying QPs, CQs and MRs while a poller thread runs the data path and
// WQEs are in flight: no crash, no access to freed memory (ASan), nothing
// written into the destroyed objects' memory afterwards (TearDown).
TEST_F(Dp, DestroyWhileThePollerRuns)
{
	start_poller();
	u8 payload[512];
	fill(payload, sizeof(payload), 2);
	int ok = 0, failed = 0;
	for (int it = 0; it < 18; it++) {
		cq_t &as = make_cq(), &ar = make_cq(), &bs = make_cq(), &br = make_cq();
		qp_t &a = make_qp(SCX_QPT_RC, as, ar);
		qp_t &b = make_qp(SCX_QPT_RC, bs, br);
		bring_up(a, b.qpn, {});
		bring_up(b, a.qpn, {});
		mr_t &src = make_mr(4096, 0);
		mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
		std::memcpy(src.cpu(), payload, sizeof(payload));
		arm_cq(as, 0, false);
		arm_cq(br, 0, false);
		// Every third round the responder has no receives: the SENDs
		// sit in RNR waits (timers armed) when their QP goes.
		if (it % 3 != 2)
			for (int i = 0; i < 8; i++)
				post_recv(b, {{dst.va(i * 512), 512, dst.key}});
		for (int i = 0; i < 8; i++) {
			wqe_b w;
			if (i & 1)
				w.raddr(dst.va(i * 512), dst.key).data(src.va(), 512, src.key);
			else
				w.data(src.va(), 512, src.key);
			post_send(a, i & 1 ? op::rdma_write : op::send, w);
		}
		// The source key goes first, with WQEs possibly still queued:
		// they either ran before it or fail with LOC_PROT, nothing else.
		destroy_mr(src);
		std::this_thread::sleep_for(std::chrono::microseconds(50 * (it % 4)));
		for (auto &e : drain(as)) {
			if (e.opcode() == cqe_op::req)
				ok++;
			else if (e.opcode() == cqe_op::req_err &&
				 (e.syndrome() == synd::loc_prot || e.syndrome() == synd::flush))
				failed++;
			else
				ADD_FAILURE() << "opcode " << int(e.opcode()) << " syndrome " << int(e.syndrome());
		}
		if (it % 2)
			destroy_mr(dst); // the responder's key under a possible write
		if (it % 3 == 1) {
			// A flush the poller may be running when the QP goes.
			scx_qp_attr none{};
			EXPECT_EQ(modify(a, SCX_QPS_RTS, SCX_QPS_ERR, 0, none), 0);
		}
		destroy_qp(a);
		destroy_qp(b);
		destroy_cq(as);
		destroy_cq(ar);
		destroy_cq(bs);
		destroy_cq(br);
		if (!(it % 2))
			destroy_mr(dst);
	}
	stop_poller();
	// Something ran: the test is not vacuous about WQEs in flight. A
	// packet naming its payload that the source key's end overtook is
	// lost (the WQE fails after its ACK timeout, past the drains above).
	EXPECT_GT(u64(ok + failed) + dp_stats().rx_stale_ref, 0u);
	EXPECT_EQ(host_env::bug_count(), 0u);
}

// Objects made faster than the driver hands the hca firmware pages: a
// command that runs short is held until the pages it asked for arrive (as
// firmware holds it; the driver keeps a slot for MANAGE_PAGES), so none
// fails with EAGAIN while they are on their way.
TEST_F(Dp, ManyQpsInARowWaitForPagesInsteadOfFailing)
{
	retry_eagain = false;
	cq_t &c = make_cq();
	for (int i = 0; i < 1000 && !HasFailure(); i++)
		make_qp(SCX_QPT_RC, c, c, 0, 16, 4, 6);
	EXPECT_EQ(qps_.size(), 1000u);
	// Every one of them exists on the device.
	scx_qp_attr a{};
	EXPECT_EQ(scx_verbs_query_qp(drv, qps_.back()->qpn, &a), 0);
}

// A QP buffer that starts inside its first page (libmlx5 aligns a parent
// domain allocator's QP buffer to 1/64 of its size only): the QPC's
// page_offset says where, and sends, receives and their wrap-around all go
// through it. An offset the page_offset quanta cannot say is refused.
TEST_F(Dp, QpBufferMayStartInsideItsFirstPage)
{
	qp_buf_offset = 5 * 64;
	pair_t p = pair();
	ASSERT_TRUE(p.a->alive && p.b->alive);
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	u8 msg[48];
	for (int i = 0; i < 40; i++) { // more than the 16 receive WQEs: the rings wrap
		post_recv(*p.b, {{dst.va(0), 64, dst.key}});
		fill(msg, sizeof(msg), u8(i));
		wqe_b w;
		w.inl(msg, sizeof(msg));
		post_send(*p.a, op::send, w);
		pump();
		auto rsp = drain(*p.br);
		ASSERT_EQ(rsp.size(), 1u) << i;
		EXPECT_EQ(rsp[0].opcode(), cqe_op::resp_send);
		EXPECT_EQ(std::memcmp(dst.cpu(), msg, sizeof(msg)), 0) << i;
		ASSERT_EQ(drain(*p.as).size(), 1u);
	}
	EXPECT_TRUE(guards_intact(dst));

	cq_t &c = make_cq();
	qp_buf_offset = 8;
	qp_create_may_fail = true;
	make_qp(SCX_QPT_RC, c, c);
	EXPECT_EQ(qp_create_rc, -EINVAL);
}

// The data path runs the QPs a doorbell, a packet or a timer names,
// never every QP.
class DpSched : public Dp {
protected:
	// QP turns the data path gives n SENDs from a to b, each pumped to
	// its completions.
	u64 visits_for(pair_t &p, mr_t &dst, int n)
	{
		u64 before = dp_stats().qp_visits;
		for (int i = 0; i < n; i++) {
			post_recv(*p.b, {{dst.va(), 64, dst.key}});
			post_send(*p.a, op::send, wqe_b().inl("ping", 4));
			pump();
			EXPECT_EQ(drain(*p.br).size(), 1u);
			EXPECT_EQ(drain(*p.as).size(), 1u);
		}
		return dp_stats().qp_visits - before;
	}
};

TEST_F(DpSched, AMessageCostsTheSameTurnsWithOrWithoutIdleQps)
{
	pair_t p = pair();
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	u64 alone = visits_for(p, dst, 20);
	EXPECT_GT(alone, 0u);
	// 300 idle QPs in RTS, connected to each other, nothing posted.
	cq_t &cq = make_cq();
	std::vector<qp_t *> idle;
	for (int i = 0; i < 300; i++)
		idle.push_back(&make_qp(SCX_QPT_RC, cq, cq, 0, 4, 4));
	for (size_t i = 0; i < idle.size(); i++)
		bring_up(*idle[i], idle[i ^ 1]->qpn, rc_opts{});
	pump();
	u64 crowded = visits_for(p, dst, 20);
	EXPECT_EQ(crowded, alone);
}

// A doorbell store another QP's store replaced before the device saw it:
// the send queue moved all the same, and the sweep finds it.
TEST_F(DpSched, ASendWhoseDoorbellWasLostIsFoundByTheSweep)
{
	pair_t p = pair();
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	post_recv(*p.b, {{dst.va(), 64, dst.key}});
	u64 sweeps = dp_stats().sweeps;
	send_opts so;
	so.ring = false;
	post_send(*p.a, op::send, wqe_b().inl("lost", 4), so);
	std::vector<cqe_t> got;
	ASSERT_TRUE(pump_until([&] {
		auto c = drain(*p.br);
		got.insert(got.end(), c.begin(), c.end());
		return !got.empty();
	}));
	EXPECT_EQ(std::memcmp(dst.cpu(), "lost", 4), 0);
	EXPECT_GT(dp_stats().sweeps, sweeps);
}

// A trapped doorbell runs the QPs its UAR page named and the loopback
// peers they send to, in the writer's context; another process's work
// (here: a doorbell on another UAR page, not yet run) stays the poller's.
TEST_F(DpSched, ATrapRunsTheRungQpAndItsPeerOnly)
{
	pair_t x = pair(), y = pair();
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	u32 uar2 = 0;
	ASSERT_EQ(scx_verbs_alloc_uar(drv, 0, &uar2), 0);
	u8 *page2 = static_cast<u8 *>(scx_hca_uar_page(hca, uar2));
	ASSERT_NE(page2, nullptr);
	post_recv(*x.b, {{dst.va(0), 64, dst.key}});
	post_recv(*y.b, {{dst.va(64), 64, dst.key}});
	// X's doorbell lands on the other page, unseen so far.
	post_send(*x.a, op::send, wqe_b().inl("xx", 2));
	u64 *w = reinterpret_cast<u64 *>(uar_page + 0x800);
	u64 v = __atomic_exchange_n(w, u64(0), __ATOMIC_ACQ_REL);
	__atomic_store_n(reinterpret_cast<u64 *>(page2 + 0x800), v, __ATOMIC_RELEASE);
	post_send(*y.a, op::send, wqe_b().inl("yy", 2));

	// The trap: Y's SEND, its receive, its ACK, both CQEs; X left over.
	EXPECT_TRUE(scx_hca_uar_store(hca, uar, nullptr));
	EXPECT_EQ(drain(*y.br).size(), 1u);
	EXPECT_EQ(drain(*y.as).size(), 1u);
	EXPECT_EQ(std::memcmp(dst.cpu() + 64, "yy", 2), 0);
	EXPECT_TRUE(drain(*x.br).empty());
	EXPECT_TRUE(drain(*x.as).empty());
	// Nor did it take X's store from the other page: that page's own
	// trap, or the poller, does.
	EXPECT_NE(__atomic_load_n(reinterpret_cast<u64 *>(page2 + 0x800), __ATOMIC_ACQUIRE), 0u);

	pump();
	EXPECT_EQ(drain(*x.br).size(), 1u);
	EXPECT_EQ(drain(*x.as).size(), 1u);
	EXPECT_EQ(std::memcmp(dst.cpu(), "xx", 2), 0);
	EXPECT_EQ(scx_verbs_dealloc_uar(drv, uar2), 0);
}

// A trapped doorbell reads the arm words of the CQs its doorbells named,
// however many CQs there are; the poller reads every CQ's. An arm that
// trapped still gets its event from the trap of the send that follows.
TEST_F(DpSched, ATrapReadsOnlyTheArmWordsOfTheCqsItNamed)
{
	pair_t p = pair();
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < 40; i++)
		make_cq();
	// The poller's pass (of a SEND here) reads all 42.
	post_recv(*p.b, {{dst.va(), 64, dst.key}});
	post_send(*p.a, op::send, wqe_b().inl("ping", 4));
	u64 before = dp_stats().arm_reads;
	pump();
	EXPECT_GE(dp_stats().arm_reads - before, 42u);
	EXPECT_EQ(drain(*p.br).size(), 1u);
	EXPECT_EQ(drain(*p.as).size(), 1u);

	arm_cq(*p.br, 0, false);
	before = dp_stats().arm_reads;
	scx_hca_uar_store(hca, uar, nullptr);
	EXPECT_EQ(dp_stats().arm_reads - before, 1u);
	EXPECT_EQ(load_be32(p.br->dbr + 4), 0x80000001u); // seen by the trap (ci 1)

	post_recv(*p.b, {{dst.va(), 64, dst.key}});
	post_send(*p.a, op::send, wqe_b().inl("ping", 4));
	before = dp_stats().arm_reads;
	scx_hca_uar_store(hca, uar, nullptr);
	EXPECT_EQ(dp_stats().arm_reads - before, 0u);
	EXPECT_EQ(drain(*p.br).size(), 1u);
	EXPECT_EQ(p.br->events.load(), 1);
}

// A trap says whether its writer took one of the QP's completions since
// the QP's last doorbell: a writer posting ahead (a bandwidth test) may be
// left to the poller, one waiting on each completion (a latency test) not.
TEST_F(DpSched, ATrapSaysWhetherItsWriterTookACompletionBetweenDoorbells)
{
	pair_t p = pair();
	mr_t &dst = make_mr(4096, SCX_ACCESS_LOCAL_WRITE | all_remote);
	auto write_and_ring = [&] {
		post_send(*p.a, op::rdma_write, wqe_b().raddr(dst.va(), dst.key).inl("ab", 2));
		bool paced = false;
		scx_hca_uar_store(hca, uar, &paced);
		return paced;
	};
	EXPECT_FALSE(write_and_ring());
	EXPECT_FALSE(write_and_ring());
	EXPECT_EQ(drain(*p.as).size(), 2u);
	EXPECT_TRUE(write_and_ring());
	EXPECT_EQ(drain(*p.as).size(), 1u);
	EXPECT_TRUE(write_and_ring());
	// Posting ahead again: nothing taken since.
	EXPECT_FALSE(write_and_ring());
	EXPECT_FALSE(write_and_ring());

	// A receive completion taken counts too (a ping-pong's).
	post_recv(*p.a, {{dst.va(), 64, dst.key}});
	post_send(*p.b, op::send, wqe_b().inl("pong", 4));
	pump();
	EXPECT_EQ(drain(*p.ar).size(), 1u);
	EXPECT_TRUE(write_and_ring());
}

// A pass holds the data path's lock for up to hold_us between packets,
// but not while someone waits for it: a command gets in after the packet
// in progress, not after the pass. Here the hold is 100 s; the same pass
// of 16 QPs' 64 KiB WRITEs lets the lock go a few times with no waiter,
// and after every packet while one waits.
TEST_F(Dp, AWaiterGetsTheLockAfterThePacketNotThePass)
{
	constexpr int npairs = 16;
	constexpr u32 len = 64 * 1024;
	constexpr unsigned dp_lock = unsigned(scx::lock_class::hca_dp);
	std::vector<pair_t> ps;
	for (int i = 0; i < npairs; i++)
		ps.push_back(pair());
	mr_t &src = make_mr(len, 0);
	mr_t &dst = make_mr(size_t(len) * npairs, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	fill(src.cpu(), len, 7);
	pump(); // the QPs' moves to RTS are swept now, not in the passes below
	scx_hca_dp_hold_us(hca, 100000000);
	// One pass: what it received and how often it let the lock go.
	auto one_pass = [&](bool waiter) {
		for (int i = 0; i < npairs; i++) {
			send_opts so;
			so.ring = false;
			wqe_b w;
			w.raddr(dst.va(size_t(len) * i), dst.key).data(src.va(), len, src.key);
			post_send(*ps[i].a, op::rdma_write, w, so);
		}
		// Found by the next pass's sweep, once one is due.
		std::this_thread::sleep_for(std::chrono::milliseconds(15));
		u64 rx = dp_stats().rx_pkts;
		u64 unlocks = host_env::unlocks(dp_lock);
		host_env::force_contended(waiter);
		scx_hca_poll(hca);
		host_env::force_contended(false);
		return std::pair{dp_stats().rx_pkts - rx, host_env::unlocks(dp_lock) - unlocks};
	};
	auto [alone_rx, alone_unlocks] = one_pass(false);
	auto [waited_rx, waited_unlocks] = one_pass(true);
	EXPECT_GT(alone_rx, 256u);
	EXPECT_LT(alone_unlocks, 16u);
	EXPECT_GT(waited_rx, 256u);
	EXPECT_GE(waited_unlocks, waited_rx);
	scx_hca_dp_hold_us(hca, 20);
	int done = 0;
	for (int spins = 0; done < 2 * npairs && spins < 10000; spins++) {
		scx_hca_poll(hca);
		for (auto &p : ps)
			done += int(drain(*p.as).size());
	}
	EXPECT_EQ(done, 2 * npairs);
	for (int i = 0; i < npairs; i++)
		EXPECT_EQ(std::memcmp(dst.cpu() + size_t(len) * i, src.cpu(), len), 0) << i;
}
