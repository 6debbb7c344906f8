// SPDX-License-Identifier: GPL-2.0
// What goes wrong on the data path and how it is reported: bad keys, access
// rights and lengths, malformed WQEs, retries running out, QPs to error and
// their flushes, each with the mlx5 syndrome on the side that sees it
// (fixture: dp_fixture.h).
#include "dp_fixture.h"

namespace {
// Its own suite: the fixture class is per file (dp_fixture.h is internal to each).
class DpErrors : public Dp {};
} // namespace

// rnr_retry 0 means no retry at all: the first RNR NAK fails the WQE with
// RNR_RETRY_EXC at once (the responder's 491 ms timer never matters), the
// QP goes to ERR and everything behind it, send and receive, is flushed.
TEST_F(DpErrors, RnrRetryZeroFailsAtOnceAndFlushesTheRest)
{
	rc_opts oa, ob;
	oa.rnr_retry = 0;
	ob.min_rnr_timer = 31; // 491.52 ms
	pair_t p = pair(SCX_QPT_RC, oa, ob);
	mr_t &buf = make_mr(256, SCX_ACCESS_LOCAL_WRITE);
	post_recv(*p.a, {{buf.va(), 256, buf.key}});
	const char msg[] = "nobody listens";
	wqe_b w;
	w.inl(msg, sizeof(msg));
	post_send(*p.a, op::send, w);
	send_opts quiet;
	quiet.fm_ce_se = 0;
	post_send(*p.a, op::send, w, quiet);
	post_send(*p.a, op::send, w);
	auto t0 = std::chrono::steady_clock::now();
	ASSERT_TRUE(pump_until([&] { return state(*p.a) == SCX_QPS_ERR; }, 2000));
	pump();
	EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(300))
		<< "rnr_retry 0 waited for an RNR timer";
	EXPECT_EQ(dp_stats().rnr_naks, 1u);

	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 3u); // flushes complete unsignaled WQEs too
	expect_err(req[0], cqe_op::req_err, synd::rnr_retry_exc, 0x82, p.a->qpn, 0, p.a->uidx);
	expect_err(req[1], cqe_op::req_err, synd::flush, 0xf9, p.a->qpn, 1, p.a->uidx);
	expect_err(req[2], cqe_op::req_err, synd::flush, 0xf9, p.a->qpn, 2, p.a->uidx);
	auto rq = drain(*p.ar);
	ASSERT_EQ(rq.size(), 1u);
	expect_err(rq[0], cqe_op::resp_err, synd::flush, 0xf9, p.a->qpn, 0, p.a->uidx);
	// The responder did nothing wrong.
	EXPECT_EQ(state(*p.b), u32(SCX_QPS_RTS));
	EXPECT_TRUE(drain(*p.br).empty());
}

// A wrong rkey: REM_ACCESS on the requester, both QPs to ERR, the
// responder's posted receive flushed, its memory untouched.
TEST_F(DpErrors, BadRkeyIsRemoteAccessErrorAndTheResponderGoesToErr)
{
	pair_t p = pair();
	mr_t &dst = make_mr(512, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	post_recv(*p.b, {{dst.va(), 512, dst.key}});
	const char msg[] = "to the wrong key";
	wqe_b w;
	w.raddr(dst.va(), dst.key ^ 0x01).inl(msg, sizeof(msg)); // another key variant
	send_opts quiet;
	quiet.fm_ce_se = 0; // errors complete whether signaled or not
	post_send(*p.a, op::rdma_write, w, quiet);
	pump();
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	expect_err(req[0], cqe_op::req_err, synd::rem_access, 0x88, p.a->qpn, 0, p.a->uidx);
	EXPECT_EQ(state(*p.a), u32(SCX_QPS_ERR));
	EXPECT_EQ(state(*p.b), u32(SCX_QPS_ERR));
	auto rsp = drain(*p.br);
	ASSERT_EQ(rsp.size(), 1u);
	expect_err(rsp[0], cqe_op::resp_err, synd::flush, 0xf9, p.b->qpn, 0, p.b->uidx);
	EXPECT_TRUE(guards_intact(dst));
	EXPECT_EQ(dst.cpu()[0], guard_byte);
}

// A QP without remote write access refuses writes the same way, even with
// a key that allows them.
TEST_F(DpErrors, QpAccessFlagsGateRemoteOperations)
{
	rc_opts ob;
	ob.access = SCX_ACCESS_REMOTE_READ;
	pair_t p = pair(SCX_QPT_RC, {}, ob);
	mr_t &dst = make_mr(512, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE | SCX_ACCESS_REMOTE_READ);
	mr_t &local = make_mr(512, SCX_ACCESS_LOCAL_WRITE);
	fill(dst.cpu(), 64, 1);
	wqe_b r;
	r.raddr(dst.va(), dst.key).data(local.va(), 64, local.key);
	post_send(*p.a, op::rdma_read, r);
	pump();
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	EXPECT_EQ(req[0].opcode(), cqe_op::req); // reads are allowed
	EXPECT_EQ(std::memcmp(local.cpu(), dst.cpu(), 64), 0);
	const char msg[] = "no write access";
	wqe_b w;
	w.raddr(dst.va(100), dst.key).inl(msg, sizeof(msg));
	post_send(*p.a, op::rdma_write, w);
	pump();
	req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	expect_err(req[0], cqe_op::req_err, synd::rem_access, 0x88, p.a->qpn, 1, p.a->uidx);
	EXPECT_EQ(dst.cpu()[100], guard_byte);
	EXPECT_EQ(state(*p.b), u32(SCX_QPS_ERR));
}

// A wrong lkey is the requester's own fault: LOC_PROT, nothing reaches
// the responder, whose receive stays posted.
TEST_F(DpErrors, BadLkeyIsLocalProtectionError)
{
	pair_t p = pair();
	mr_t &src = make_mr(512, 0);
	mr_t &dst = make_mr(512, SCX_ACCESS_LOCAL_WRITE);
	post_recv(*p.b, {{dst.va(), 512, dst.key}});
	wqe_b w;
	w.data(src.va(), 64, src.key + 1);
	post_send(*p.a, op::send, w);
	pump();
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	expect_err(req[0], cqe_op::req_err, synd::loc_prot, 0x56, p.a->qpn, 0, p.a->uidx);
	EXPECT_EQ(req[0].wqe_opcode(), op::send);
	EXPECT_EQ(state(*p.a), u32(SCX_QPS_ERR));
	EXPECT_EQ(state(*p.b), u32(SCX_QPS_RTS));
	EXPECT_TRUE(drain(*p.br).empty());
	EXPECT_EQ(dst.cpu()[0], guard_byte);

	// A READ into memory registered without local write: LOC_PROT too.
	pair_t q = pair();
	mr_t &remote = make_mr(64, SCX_ACCESS_REMOTE_READ);
	wqe_b r;
	r.raddr(remote.va(), remote.key).data(src.va(), 64, src.key);
	post_send(*q.a, op::rdma_read, r);
	pump();
	req = drain(*q.as);
	ASSERT_EQ(req.size(), 1u);
	expect_err(req[0], cqe_op::req_err, synd::loc_prot, 0x56, q.a->qpn, 0, q.a->uidx);
	EXPECT_TRUE(guards_intact(src));
	EXPECT_EQ(src.cpu()[0], guard_byte);
}

// Every way of naming bytes past the end of a memory region fails as the
// side that owns the region sees it, and not one byte past it is written.
TEST_F(DpErrors, LengthsBeyondTheMrFailAndWriteNothingPastIt)
{
	const char big[200] = "0123456789";
	{ // RDMA WRITE running 16 bytes past the remote MR.
		pair_t p = pair();
		mr_t &dst = make_mr(256, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
		wqe_b w;
		w.raddr(dst.va(72), dst.key).inl(big, 200);
		post_send(*p.a, op::rdma_write, w);
		pump();
		auto req = drain(*p.as);
		ASSERT_EQ(req.size(), 1u);
		expect_err(req[0], cqe_op::req_err, synd::rem_access, 0x88, p.a->qpn, 0, p.a->uidx);
		EXPECT_TRUE(guards_intact(dst));
		EXPECT_EQ(dst.cpu()[72], guard_byte); // not even the part that fits
		EXPECT_EQ(state(*p.b), u32(SCX_QPS_ERR));
	}
	{ // A gather entry past the local MR.
		pair_t p = pair();
		mr_t &src = make_mr(128, 0, 0x800);
		mr_t &dst = make_mr(512, SCX_ACCESS_LOCAL_WRITE);
		post_recv(*p.b, {{dst.va(), 512, dst.key}});
		wqe_b w;
		w.data(src.va(64), 65, src.key);
		post_send(*p.a, op::send, w);
		pump();
		auto req = drain(*p.as);
		ASSERT_EQ(req.size(), 1u);
		expect_err(req[0], cqe_op::req_err, synd::loc_prot, 0x56, p.a->qpn, 0, p.a->uidx);
		EXPECT_EQ(dst.cpu()[0], guard_byte);
	}
	{ // A SEND longer than the receive WQE: LOC_LEN at the responder,
	  // REM_INV_REQ at the requester, both in ERR.
		pair_t p = pair();
		mr_t &dst = make_mr(512, SCX_ACCESS_LOCAL_WRITE);
		post_recv(*p.b, {{dst.va(0), 100, dst.key}, {dst.va(300), 50, dst.key}});
		wqe_b w;
		w.inl(big, 151);
		post_send(*p.a, op::send, w);
		pump();
		auto req = drain(*p.as);
		ASSERT_EQ(req.size(), 1u);
		expect_err(req[0], cqe_op::req_err, synd::rem_inv_req, 0x8a, p.a->qpn, 0, p.a->uidx);
		auto rsp = drain(*p.br);
		ASSERT_EQ(rsp.size(), 1u);
		expect_err(rsp[0], cqe_op::resp_err, synd::loc_len, 0x68, p.b->qpn, 0, p.b->uidx);
		EXPECT_TRUE(guards_intact(dst));
		EXPECT_EQ(dst.cpu()[0], guard_byte);
		EXPECT_EQ(dst.cpu()[300], guard_byte);
		EXPECT_EQ(state(*p.a), u32(SCX_QPS_ERR));
		EXPECT_EQ(state(*p.b), u32(SCX_QPS_ERR));
	}
	{ // A receive WQE whose scatter entry runs past its MR: the responder's
	  // LOC_PROT, the requester's REM_OP.
		pair_t p = pair();
		mr_t &dst = make_mr(100, SCX_ACCESS_LOCAL_WRITE, 0xf80);
		post_recv(*p.b, {{dst.va(0), 101, dst.key}});
		wqe_b w;
		w.inl(big, 10);
		post_send(*p.a, op::send, w);
		pump();
		auto req = drain(*p.as);
		ASSERT_EQ(req.size(), 1u);
		expect_err(req[0], cqe_op::req_err, synd::rem_op, 0x89, p.a->qpn, 0, p.a->uidx);
		auto rsp = drain(*p.br);
		ASSERT_EQ(rsp.size(), 1u);
		expect_err(rsp[0], cqe_op::resp_err, synd::loc_prot, 0x56, p.b->qpn, 0, p.b->uidx);
		EXPECT_TRUE(guards_intact(dst));
		EXPECT_EQ(dst.cpu()[0], guard_byte);
	}
	{ // An RDMA READ past the remote MR.
		pair_t p = pair();
		mr_t &remote = make_mr(64, SCX_ACCESS_REMOTE_READ);
		mr_t &local = make_mr(256, SCX_ACCESS_LOCAL_WRITE);
		wqe_b w;
		w.raddr(remote.va(32), remote.key).data(local.va(), 33, local.key);
		post_send(*p.a, op::rdma_read, w);
		pump();
		auto req = drain(*p.as);
		ASSERT_EQ(req.size(), 1u);
		expect_err(req[0], cqe_op::req_err, synd::rem_access, 0x88, p.a->qpn, 0, p.a->uidx);
		EXPECT_TRUE(guards_intact(local));
		EXPECT_EQ(local.cpu()[0], guard_byte);
	}
}

// The ctrl segment is checked like hardware does: a zero size, another
// QP's number or an opcode the device does not know is LOC_QP_OP.
TEST_F(DpErrors, MalformedCtrlIsLocalQpOperationError)
{
	const char msg[] = "x";
	wqe_b w;
	w.inl(msg, 1);
	{ // ds 0.
		pair_t p = pair();
		send_opts o;
		o.ds = 0;
		post_send(*p.a, op::send, w, o);
		pump();
		auto req = drain(*p.as);
		ASSERT_GE(req.size(), 1u);
		expect_err(req[0], cqe_op::req_err, synd::loc_qp_op, 0x6a, p.a->qpn, 0, p.a->uidx);
		EXPECT_EQ(state(*p.a), u32(SCX_QPS_ERR));
	}
	{ // Another QP's number in the ctrl; the WQE behind it is flushed.
		pair_t p = pair();
		send_opts o;
		o.qpn = p.b->qpn;
		post_send(*p.a, op::send, w, o);
		post_send(*p.a, op::send, w);
		pump();
		auto req = drain(*p.as);
		ASSERT_EQ(req.size(), 2u);
		expect_err(req[0], cqe_op::req_err, synd::loc_qp_op, 0x6a, p.a->qpn, 0, p.a->uidx);
		expect_err(req[1], cqe_op::req_err, synd::flush, 0xf9, p.a->qpn, 1, p.a->uidx);
		EXPECT_EQ(state(*p.a), u32(SCX_QPS_ERR));
		EXPECT_TRUE(drain(*p.br).empty());
		EXPECT_TRUE(drain(*p.bs).empty()); // B's SQ never saw it
	}
	{ // An opcode no verb produces.
		pair_t p = pair();
		post_send(*p.a, 0x1f, w);
		pump();
		auto req = drain(*p.as);
		ASSERT_EQ(req.size(), 1u);
		expect_err(req[0], cqe_op::req_err, synd::loc_qp_op, 0x6a, p.a->qpn, 0, p.a->uidx);
		EXPECT_EQ(req[0].wqe_opcode(), 0x1f);
	}
	{ // RDMA READ on UC is not an operation UC has.
		pair_t p = pair(SCX_QPT_UC);
		mr_t &m = make_mr(64, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_READ);
		wqe_b r;
		r.raddr(m.va(), m.key).data(m.va(), 8, m.key);
		post_send(*p.a, op::rdma_read, r);
		pump();
		auto req = drain(*p.as);
		ASSERT_EQ(req.size(), 1u);
		expect_err(req[0], cqe_op::req_err, synd::loc_qp_op, 0x6a, p.a->qpn, 0, p.a->uidx);
	}
}

// Moving a QP to ERR by command flushes what is posted, receives and
// sends alike, without any doorbell from the user.
TEST_F(DpErrors, QpToErrByCommandFlushesPostedWork)
{
	rc_opts ob;
	ob.min_rnr_timer = 31; // a sender stuck in RNR for 491 ms per try
	pair_t p = pair(SCX_QPT_RC, {}, ob);
	mr_t &buf = make_mr(1024, SCX_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < 3; i++)
		post_recv(*p.a, {{buf.va(i * 256), 256, buf.key}});
	const char msg[] = "stuck";
	wqe_b w;
	w.inl(msg, sizeof(msg));
	post_send(*p.a, op::send, w); // B has no receive: RNR wait
	send_opts quiet;
	quiet.fm_ce_se = 0;
	post_send(*p.a, op::send, w, quiet);
	pump();
	EXPECT_TRUE(drain(*p.as).empty());
	EXPECT_GE(dp_stats().rnr_naks, 1u);

	scx_qp_attr a{};
	ASSERT_EQ(modify(*p.a, SCX_QPS_RTS, SCX_QPS_ERR, 0, a), 0);
	EXPECT_EQ(state(*p.a), u32(SCX_QPS_ERR));
	// Well within the RNR timer: the flush may not wait for it.
	auto t0 = std::chrono::steady_clock::now();
	std::vector<cqe_t> req, rq;
	ASSERT_TRUE(pump_until(
		[&] {
			for (auto &e : drain(*p.as))
				req.push_back(e);
			for (auto &e : drain(*p.ar))
				rq.push_back(e);
			return req.size() >= 2 && rq.size() >= 3;
		},
		400))
		<< req.size() << " send and " << rq.size() << " receive flushes";
	EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(400));
	for (int i = 0; i < 2; i++)
		expect_err(req[i], cqe_op::req_err, synd::flush, 0xf9, p.a->qpn, u16(i), p.a->uidx);
	for (int i = 0; i < 3; i++)
		expect_err(rq[i], cqe_op::resp_err, synd::flush, 0xf9, p.a->qpn, u16(i), p.a->uidx);
	pump();
	EXPECT_TRUE(drain(*p.as).empty());
	EXPECT_TRUE(drain(*p.ar).empty());
	EXPECT_TRUE(drain(*p.br).empty()); // B never got the message

	// A receive posted to the QP in ERR is flushed too (no doorbell either).
	post_recv(*p.a, {{buf.va(0), 256, buf.key}});
	cqe_t e;
	ASSERT_TRUE(pump_until([&] { return next_cqe(*p.ar, &e); }, 400));
	expect_err(e, cqe_op::resp_err, synd::flush, 0xf9, p.a->qpn, 3, p.a->uidx);
	EXPECT_EQ(buf.cpu()[0], guard_byte);
}

// A QP with a long backlog goes to ERR: its flush CQEs come a chunk per
// pass (the data path's lock is never held for the whole queue), in
// order, until every WQE has one; receives after the sends.
TEST_F(DpErrors, ALongQueueIsFlushedInChunksInOrder)
{
	cq_t &sc = make_cq(11), &rc = make_cq(11);
	qp_t &q = make_qp(SCX_QPT_RC, sc, rc, 0, 1024, 512);
	scx_qp_attr a{};
	a.access = 0;
	ASSERT_EQ(modify(q, SCX_QPS_RESET, SCX_QPS_INIT, SCX_QP_PKEY_INDEX | SCX_QP_PORT | SCX_QP_ACCESS_FLAGS, a), 0);
	mr_t &buf = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	const int sends = 1000, recvs = 500;
	for (int i = 0; i < recvs; i++)
		post_recv(q, {{buf.va(), 64, buf.key}});
	for (int i = 0; i < sends; i++)
		post_send(q, op::send, wqe_b().inl("x", 1));
	pump();
	EXPECT_TRUE(drain(sc).empty()); // INIT: nothing is taken
	ASSERT_EQ(modify(q, SCX_QPS_INIT, SCX_QPS_ERR, 0, a), 0);

	std::vector<cqe_t> s, r;
	int polls = 0;
	while ((s.size() < size_t(sends) || r.size() < size_t(recvs)) && polls < 1000) {
		size_t before = s.size() + r.size();
		scx_hca_poll(hca);
		polls++;
		for (auto &e : drain(sc))
			s.push_back(e);
		for (auto &e : drain(rc))
			r.push_back(e);
		// One poll writes a chunk or two (64 each), not the whole queue.
		EXPECT_LE(s.size() + r.size() - before, 128u) << "poll " << polls;
		if (polls == 1) {
			EXPECT_TRUE(r.empty());
		}
	}
	ASSERT_EQ(s.size(), size_t(sends));
	ASSERT_EQ(r.size(), size_t(recvs));
	EXPECT_GT(polls, 10);
	for (int i = 0; i < sends; i++)
		expect_err(s[i], cqe_op::req_err, synd::flush, 0xf9, q.qpn, u16(i), q.uidx);
	for (int i = 0; i < recvs; i++)
		expect_err(r[i], cqe_op::resp_err, synd::flush, 0xf9, q.qpn, u16(i), q.uidx);
	pump();
	EXPECT_TRUE(drain(sc).empty());
	EXPECT_TRUE(drain(rc).empty());
}

// Nobody answers (the peer never left INIT): the requester retries on its
// ACK timeout retry_cnt times, then fails with RETRY_EXC; retry_cnt 1 is
// the first attempt and one retry.
TEST_F(DpErrors, TransportRetryExceededWhenNobodyAnswers)
{
	cq_t &as = make_cq(), &ar = make_cq(), &bs = make_cq(), &br = make_cq();
	qp_t &a = make_qp(SCX_QPT_RC, as, ar);
	qp_t &b = make_qp(SCX_QPT_RC, bs, br);
	rc_opts o;
	o.timeout = 1; // 8.192 us
	o.retry_cnt = 1;
	bring_up(a, b.qpn, o);
	scx_qp_attr init{};
	init.access = all_remote;
	ASSERT_EQ(modify(b, SCX_QPS_RESET, SCX_QPS_INIT, SCX_QP_PKEY_INDEX | SCX_QP_PORT | SCX_QP_ACCESS_FLAGS, init), 0);
	const char msg[] = "hello?";
	wqe_b w;
	w.inl(msg, sizeof(msg));
	post_send(a, op::send, w);
	cqe_t e;
	ASSERT_TRUE(pump_until([&] { return next_cqe(as, &e); }));
	expect_err(e, cqe_op::req_err, 0x15, 0x81, a.qpn, 0, a.uidx);
	EXPECT_EQ(dp_stats().retries, 2u); // unanswered attempts
	EXPECT_EQ(state(a), u32(SCX_QPS_ERR));
	EXPECT_EQ(state(b), u32(SCX_QPS_INIT));
}

// UC has no acknowledgements: a message nobody can receive is lost and the
// sender completes; the next one, with a receive posted, arrives.
TEST_F(DpErrors, UcDropsWhatTheResponderCannotTake)
{
	pair_t p = pair(SCX_QPT_UC);
	mr_t &dst = make_mr(512, SCX_ACCESS_LOCAL_WRITE | SCX_ACCESS_REMOTE_WRITE);
	const char one[] = "lost", two[] = "kept";
	wqe_b w1, w2;
	w1.inl(one, sizeof(one));
	w2.inl(two, sizeof(two));
	post_send(*p.a, op::send, w1);
	pump();
	EXPECT_EQ(drain(*p.as).size(), 1u);
	EXPECT_EQ(dp_stats().rnr_naks, 0u);
	post_recv(*p.b, {{dst.va(), 512, dst.key}});
	post_send(*p.a, op::send, w2);
	wqe_b wr;
	wr.raddr(dst.va(100), dst.key).inl(one, sizeof(one));
	post_send(*p.a, op::rdma_write, wr);
	pump();
	EXPECT_EQ(drain(*p.as).size(), 2u);
	auto rsp = drain(*p.br);
	ASSERT_EQ(rsp.size(), 1u);
	EXPECT_EQ(rsp[0].wqe_counter(), 0);
	EXPECT_EQ(std::memcmp(dst.cpu(), two, sizeof(two)), 0);
	EXPECT_EQ(std::memcmp(dst.cpu() + 100, one, sizeof(one)), 0);
}

// A driver that left an MTT entry unwritten (0): the data path follows it
// to bus address 0, which nobody mapped for the device, and the IOMMU
// refuses it. The READ fails with REM_ACCESS, one refusal per access, and
// nothing around either buffer changes. The pages before the hole work.
TEST_F(DpErrors, ReadThroughAnUnwrittenMttEntryIsRefusedByTheIommu)
{
	mr_t &src = make_mr(3 * 4096, SCX_ACCESS_REMOTE_READ, 0, mtt_bug::mtt_hole);
	fill(src.cpu(), src.len, 7);
	for (int round = 0; round < 3; round++) {
		pair_t p = pair();
		mr_t &dst = make_mr(256, SCX_ACCESS_LOCAL_WRITE);
		wqe_b ok;
		ok.raddr(src.va(100), src.key).data(dst.va(), 64, dst.key);
		post_send(*p.a, op::rdma_read, ok);
		pump();
		auto good = drain(*p.as);
		ASSERT_EQ(good.size(), 1u);
		EXPECT_EQ(good[0].opcode(), cqe_op::req);
		EXPECT_EQ(std::memcmp(dst.cpu(), src.cpu() + 100, 64), 0);

		unsigned long refused = host_env::dma_refused();
		wqe_b bad;
		bad.raddr(src.va(2 * 4096 + 8), src.key).data(dst.va(64), 64, dst.key);
		post_send(*p.a, op::rdma_read, bad);
		pump();
		auto req = drain(*p.as);
		ASSERT_EQ(req.size(), 1u);
		expect_err(req[0], cqe_op::req_err, synd::rem_access, 0x88, p.a->qpn, 1, p.a->uidx);
		EXPECT_EQ(host_env::dma_refused() - refused, 1u) << "round " << round;
		EXPECT_EQ(dst.cpu()[64], guard_byte); // the unmapped page's bytes never came
		EXPECT_EQ(state(*p.b), u32(SCX_QPS_ERR));
		EXPECT_TRUE(guards_intact(dst));
		EXPECT_TRUE(guards_intact(src));
	}
}

// A table filled short of its region: the key's range covers the last
// pages, its entries do not. The hca stops at the entries it was given
// (a translation fault, REM_ACCESS) and never asks the IOMMU for them.
TEST_F(DpErrors, ReadPastTheGivenMttEntriesIsATranslationFault)
{
	mr_t &src = make_mr(4 * 4096, SCX_ACCESS_REMOTE_READ, 0, mtt_bug::short_list);
	fill(src.cpu(), src.len, 9);
	pair_t p = pair();
	mr_t &dst = make_mr(256, SCX_ACCESS_LOCAL_WRITE);
	wqe_b ok;
	ok.raddr(src.va(4096 + 8), src.key).data(dst.va(), 64, dst.key);
	post_send(*p.a, op::rdma_read, ok);
	pump();
	auto good = drain(*p.as);
	ASSERT_EQ(good.size(), 1u);
	EXPECT_EQ(good[0].opcode(), cqe_op::req);
	EXPECT_EQ(std::memcmp(dst.cpu(), src.cpu() + 4096 + 8, 64), 0);

	unsigned long refused = host_env::dma_refused();
	u64 faults = dp_stats().translation_faults;
	wqe_b bad;
	bad.raddr(src.va(3 * 4096), src.key).data(dst.va(64), 64, dst.key);
	post_send(*p.a, op::rdma_read, bad);
	pump();
	auto req = drain(*p.as);
	ASSERT_EQ(req.size(), 1u);
	expect_err(req[0], cqe_op::req_err, synd::rem_access, 0x88, p.a->qpn, 1, p.a->uidx);
	EXPECT_EQ(dp_stats().translation_faults - faults, 1u);
	EXPECT_EQ(host_env::dma_refused(), refused);
	EXPECT_EQ(dst.cpu()[64], guard_byte);
	EXPECT_TRUE(guards_intact(dst));
	EXPECT_TRUE(guards_intact(src));
}
