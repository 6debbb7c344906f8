// SPDX-License-Identifier: GPL-2.0
// DC through the data path, as libmlx5 drives it: DCIs (SCX_QPT_DCI) whose
// WQEs carry a DC address vector (access key, DCT number, the target's
// address), and DCTs made through the driver (CREATE_DCT), receiving into
// an SRQ. The initiators and the target are on this port (it answers to
// its own addresses), so every packet goes through the in-kernel link,
// the DCT's responder contexts and the RC engine.
#include "dp_fixture.h"

#include <set>

namespace {

constexpr u64 dc_key = 0x1122334455667788ull;
const u8 sgid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 7};
const u8 smac[6] = {0x02, 0x5c, 0, 0, 0, 7};

// struct mlx5_wqe_av as libmlx5's mlx5dv_wr_set_dc_addr fills it: the
// access key where UD has its Q_Key, the DCT number with the extended-AV
// bit, then the RoCEv2 address (source GID index 0).
void dc_av(wqe_b &w, u64 key, u32 dctn, const u8 gid[16])
{
	u8 *p = w.grow(48);
	put64(p, key);
	put32(p + 8, 0x80000000u | dctn);
	put16(p + 14, 0xc001);
	std::memcpy(p + 20, smac, 6);
	p[27] = 64;
	put32(p + 28, 0);
	std::memcpy(p + 32, gid, 16);
}

class Dc : public Dp {
protected:
	void SetUp() override
	{
		Dp::SetUp();
		if (HasFatalFailure())
			return;
		ASSERT_EQ(scx_verbs_set_gid(drv, 0, sgid, smac, true, true), 0);
		ASSERT_EQ(scx_verbs_set_gid(drv, 1, gid_v4, smac, true, true), 0);
	}

	// A DCI walked to RTS as mlx5_ib's DCI rules allow.
	qp_t &make_dci(cq_t &scq, cq_t &rcq, u8 retry_cnt = 7, u8 timeout = 14)
	{
		qp_t &q = make_qp(SCX_QPT_DCI, scq, rcq, 0, 64, 0);
		scx_qp_attr a{};
		EXPECT_EQ(modify(q, SCX_QPS_RESET, SCX_QPS_INIT, SCX_QP_PKEY_INDEX | SCX_QP_PORT, a), 0);
		a.path_mtu = 3; // 1024
		EXPECT_EQ(modify(q, SCX_QPS_INIT, SCX_QPS_RTR, SCX_QP_PATH_MTU, a), 0);
		a.sq_psn = start_psn;
		a.timeout = timeout;
		a.retry_cnt = retry_cnt;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		EXPECT_EQ(modify(q, SCX_QPS_RTR, SCX_QPS_RTS,
				 SCX_QP_SQ_PSN | SCX_QP_TIMEOUT | SCX_QP_RETRY_CNT | SCX_QP_RNR_RETRY |
					 SCX_QP_MAX_QP_RD_ATOMIC,
				 a),
			  0);
		return q;
	}

	struct dct_t {
		u32 dctn = 0;
		u32 uidx = 0;
		cq_t *cq = nullptr;
		srq_t *srq = nullptr;
	};
	dct_t make_dct(u32 access = all_remote)
	{
		dct_t t;
		t.cq = &make_cq();
		t.srq = &make_srq(*t.cq, 5);
		t.uidx = 0x5000 + u32(dcts_.size());
		scx_dct_params p{};
		p.pdn = pd;
		p.cqn = t.cq->cqn;
		p.srqn = t.srq->srqn;
		p.user_index = t.uidx;
		p.dc_key = dc_key;
		p.access = access;
		p.port = 1;
		p.path_mtu = 3;
		p.min_rnr_timer = 1;
		p.hop_limit = 64;
		p.sgid_index = 1;
		EXPECT_EQ(scx_verbs_create_dct(drv, &p, &t.dctn), 0);
		dcts_.push_back(t.dctn);
		return t;
	}
	// The CQEs of c so far added to v: whether it holds n now.
	bool gather(cq_t &c, std::vector<cqe_t> &v, size_t n)
	{
		auto more = drain(c);
		v.insert(v.end(), more.begin(), more.end());
		return v.size() >= n;
	}
	// n SRQ WQEs, each of len bytes at dst + i * len.
	void srq_fill(srq_t &s, const mr_t &dst, u32 n, u32 len)
	{
		for (u32 i = 0; i < n; i++) {
			srq_wqe(s, u16(i), u16(i + 1), dst, u64(i) * len, len);
			srq_post(s);
		}
	}
	void TearDown() override
	{
		for (u32 d : dcts_)
			EXPECT_EQ(scx_verbs_destroy_dct(drv, d, 0), 0);
		Dp::TearDown();
	}
	std::vector<u32> dcts_;
};

} // namespace

// SEND, SEND with immediate, WRITE, READ and atomics from a DCI to a DCT:
// the target's CQEs name the DCT and the initiator, the data lands.
TEST_F(Dc, SendWriteReadAndAtomicsReachTheTarget)
{
	cq_t &ds = make_cq(), &dr = make_cq();
	qp_t &dci = make_dci(ds, dr);
	dct_t t = make_dct();
	mr_t &rx = make_mr(8192, SCX_ACCESS_LOCAL_WRITE | all_remote);
	mr_t &tx = make_mr(8192, SCX_ACCESS_LOCAL_WRITE);
	srq_fill(*t.srq, rx, 4, 2048);
	fill(tx.cpu(), 4096, 3);

	// A SEND of 1500 bytes (two packets at MTU 1024), then one with
	// immediate data.
	wqe_b w;
	dc_av(w, dc_key, t.dctn, gid_v4);
	w.data(tx.va(0), 1500, tx.key);
	post_send(dci, op::send, w);
	wqe_b w2;
	dc_av(w2, dc_key, t.dctn, gid_v4);
	w2.data(tx.va(0), 16, tx.key);
	send_opts imm;
	imm.imm_raw = 0x78563412;
	post_send(dci, op::send_imm, w2, imm);
	std::vector<cqe_t> req, rsp;
	ASSERT_TRUE(pump_until([&] { return gather(ds, req, 2) && gather(*t.cq, rsp, 2); }));
	ASSERT_EQ(req.size(), 2u);
	EXPECT_EQ(req[0].opcode(), cqe_op::req);
	EXPECT_EQ(req[1].opcode(), cqe_op::req);
	ASSERT_EQ(rsp.size(), 2u);
	EXPECT_EQ(rsp[0].opcode(), cqe_op::resp_send);
	EXPECT_EQ(rsp[0].byte_cnt(), 1500u);
	EXPECT_EQ(rsp[0].qpn(), t.dctn);
	EXPECT_EQ(rsp[0].src_qpn(), dci.qpn);
	EXPECT_EQ(rsp[0].user_index(), t.uidx);
	EXPECT_EQ(std::memcmp(rx.cpu(), tx.cpu(), 1500), 0);
	EXPECT_EQ(rsp[1].opcode(), cqe_op::resp_send_imm);
	EXPECT_EQ(rsp[1].imm_raw(), 0x78563412u);
	EXPECT_EQ(rsp[1].qpn(), t.dctn);

	// WRITE into the target's MR, READ it back elsewhere.
	fill(tx.cpu(), 3000, 9);
	wqe_b ww;
	dc_av(ww, dc_key, t.dctn, gid_v4);
	ww.raddr(rx.va(4096), rx.key).data(tx.va(0), 3000, tx.key);
	post_send(dci, op::rdma_write, ww);
	wqe_b wr;
	dc_av(wr, dc_key, t.dctn, gid_v4);
	wr.raddr(rx.va(4096), rx.key).data(tx.va(4096), 3000, tx.key);
	post_send(dci, op::rdma_read, wr);
	// A fetch-and-add on the target's memory (host byte order, as the
	// device's atomic caps say).
	u64 v = 40;
	std::memcpy(rx.cpu() + 8000, &v, 8);
	wqe_b wa;
	dc_av(wa, dc_key, t.dctn, gid_v4);
	wa.raddr(rx.va(8000), rx.key).atomic(2, 0).data(tx.va(8000), 8, tx.key);
	post_send(dci, op::atomic_fa, wa);
	req.clear();
	ASSERT_TRUE(pump_until([&] { return gather(ds, req, 3); }));
	for (auto &e : req)
		EXPECT_EQ(e.opcode(), cqe_op::req) << std::hex << int(e.syndrome());
	EXPECT_EQ(std::memcmp(rx.cpu() + 4096, tx.cpu(), 3000), 0);
	EXPECT_EQ(std::memcmp(tx.cpu() + 4096, tx.cpu(), 3000), 0);
	std::memcpy(&v, tx.cpu() + 8000, 8);
	EXPECT_EQ(v, 40u); // the original value
	std::memcpy(&v, rx.cpu() + 8000, 8);
	EXPECT_EQ(v, 42u);
	EXPECT_TRUE(drain(*t.cq).empty()); // WRITE and READ consume no receive
	auto st = dp_stats();
	EXPECT_GE(st.dc_connects, 1u);
	EXPECT_EQ(st.rx_dc_dropped, 0u);
}

// A wrong access key: the target drops the request and counts it (and
// says so once armed); the initiator retries, then fails the WQE.
TEST_F(Dc, AWrongKeyIsRefusedAndCounted)
{
	cq_t &ds = make_cq(), &dr = make_cq();
	qp_t &dci = make_dci(ds, dr, 1, 8);
	dct_t t = make_dct();
	mr_t &rx = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	srq_fill(*t.srq, rx, 2, 2048);
	ASSERT_EQ(scx_verbs_arm_dct(drv, t.dctn), 0);
	wqe_b w;
	dc_av(w, dc_key + 1, t.dctn, gid_v4);
	u8 msg[32] = {};
	w.inl(msg, sizeof(msg));
	post_send(dci, op::send, w);
	cqe_t e{};
	ASSERT_TRUE(pump_until([&] { return next_cqe(ds, &e); }));
	EXPECT_EQ(e.opcode(), cqe_op::req_err);
	EXPECT_EQ(e.syndrome(), 0x15); // transport retry counter exceeded
	EXPECT_TRUE(drain(*t.cq).empty());
	u8 state = 0xff;
	u32 violations = 0;
	ASSERT_EQ(scx_verbs_query_dct(drv, t.dctn, &state, &violations), 0);
	EXPECT_EQ(state, 0u); // active
	EXPECT_EQ(violations, 2u); // the first try and its one retry
	EXPECT_TRUE(pump_until([&] { return events.count(true, t.dctn, 0x1d) == 1; }));
	EXPECT_GE(dp_stats().rx_dc_dropped, 2u);
}

// More initiators than a DCT has contexts, one after another and then all
// at once: contexts idle again are handed on, every message arrives once.
TEST_F(Dc, InitiatorsOutnumberingTheContextsAreAllServed)
{
	cq_t &ds = make_cq(8), &dr = make_cq();
	dct_t t = make_dct();
	const u32 n = 12;
	mr_t &rx = make_mr(2 * n * 128, SCX_ACCESS_LOCAL_WRITE);
	srq_fill(*t.srq, rx, 2 * n, 128);
	std::vector<qp_t *> dcis;
	for (u32 i = 0; i < n; i++)
		dcis.push_back(&make_dci(ds, dr));
	auto send_from = [&](u32 i) {
		u8 msg[64];
		fill(msg, sizeof(msg), u8(i));
		wqe_b w;
		dc_av(w, dc_key, t.dctn, gid_v4);
		w.inl(msg, sizeof(msg));
		post_send(*dcis[i], op::send, w);
	};
	// One after another.
	for (u32 i = 0; i < n; i++) {
		send_from(i);
		std::vector<cqe_t> req;
		ASSERT_TRUE(pump_until([&] { return gather(ds, req, 1); })) << i;
		EXPECT_EQ(req[0].opcode(), cqe_op::req) << i;
	}
	std::vector<cqe_t> rsp;
	ASSERT_TRUE(pump_until([&] { return gather(*t.cq, rsp, n); }));
	ASSERT_EQ(rsp.size(), n);
	for (u32 i = 0; i < n; i++) {
		EXPECT_EQ(rsp[i].opcode(), cqe_op::resp_send);
		EXPECT_EQ(rsp[i].src_qpn(), dcis[i]->qpn);
		EXPECT_EQ(rsp[i].byte_cnt(), 64u);
	}
	// All at once: more connects than contexts; a context is handed on
	// once it has answered, or an initiator finding none retries.
	for (u32 i = 0; i < n; i++)
		send_from(i);
	std::vector<cqe_t> req;
	ASSERT_TRUE(pump_until([&] { return gather(ds, req, n); }, 10000));
	for (auto &e : req)
		EXPECT_EQ(e.opcode(), cqe_op::req) << std::hex << int(e.syndrome());
	rsp.clear();
	ASSERT_TRUE(pump_until([&] { return gather(*t.cq, rsp, n); }));
	std::set<u32> from;
	for (auto &e : rsp) {
		EXPECT_EQ(e.opcode(), cqe_op::resp_send);
		from.insert(e.src_qpn());
	}
	EXPECT_EQ(from.size(), size_t(n));
	EXPECT_GE(dp_stats().dc_connects, u64(n));
}

// A DCT destroyed: DRAIN_DCT, DCT_DRAINED, DESTROY_DCT; an initiator that
// still sends to its number gets no answer and fails its WQE.
TEST_F(Dc, ADestroyedTargetIsDrainedFirstAndAnswersNoMore)
{
	cq_t &ds = make_cq(), &dr = make_cq();
	qp_t &dci = make_dci(ds, dr, 1, 8);
	dct_t t = make_dct();
	u32 dctn = t.dctn;
	ASSERT_EQ(scx_verbs_destroy_dct(drv, dctn, 0), 0);
	dcts_.clear();
	EXPECT_EQ(events.count(true, dctn, 0x1c), 1);
	u8 state;
	u32 v;
	EXPECT_NE(scx_verbs_query_dct(drv, dctn, &state, &v), 0);
	wqe_b w;
	dc_av(w, dc_key, dctn, gid_v4);
	u8 msg[8] = {};
	w.inl(msg, sizeof(msg));
	post_send(dci, op::send, w);
	cqe_t e{};
	ASSERT_TRUE(pump_until([&] { return next_cqe(ds, &e); }));
	EXPECT_EQ(e.opcode(), cqe_op::req_err);
	EXPECT_EQ(e.syndrome(), 0x15);
}

// mlx5_ib's rules for moving DC QPs, as the kmod applies them.
TEST(DcModifyRules, DciAndDctTransitionsTakeWhatMlx5IbTakes)
{
	const u32 S = SCX_QP_STATE;
	struct rule {
		u32 type, cur, next, mask;
		bool ok;
	};
	const rule rules[] = {
		{SCX_QPT_DCI, SCX_QPS_RESET, SCX_QPS_INIT, S | SCX_QP_PKEY_INDEX | SCX_QP_PORT, true},
		{SCX_QPT_DCI, SCX_QPS_RESET, SCX_QPS_INIT, S | SCX_QP_PKEY_INDEX, false},
		{SCX_QPT_DCI, SCX_QPS_RESET, SCX_QPS_INIT, S | SCX_QP_PKEY_INDEX | SCX_QP_PORT | SCX_QP_ACCESS_FLAGS, false},
		{SCX_QPT_DCI, SCX_QPS_INIT, SCX_QPS_INIT, S | SCX_QP_PORT, true},
		{SCX_QPT_DCI, SCX_QPS_INIT, SCX_QPS_RTR, S | SCX_QP_PATH_MTU, true},
		{SCX_QPT_DCI, SCX_QPS_INIT, SCX_QPS_RTR, S | SCX_QP_PATH_MTU | SCX_QP_AV, true},
		{SCX_QPT_DCI, SCX_QPS_INIT, SCX_QPS_RTR, S | SCX_QP_PATH_MTU | SCX_QP_DEST_QPN, false},
		{SCX_QPT_DCI, SCX_QPS_RTR, SCX_QPS_RTS,
		 S | SCX_QP_TIMEOUT | SCX_QP_RETRY_CNT | SCX_QP_RNR_RETRY | SCX_QP_MAX_QP_RD_ATOMIC | SCX_QP_SQ_PSN, true},
		{SCX_QPT_DCI, SCX_QPS_RTR, SCX_QPS_RTS, S | SCX_QP_SQ_PSN, false},
		{SCX_QPT_DCI, SCX_QPS_RTS, SCX_QPS_RTS, S | SCX_QP_MIN_RNR_TIMER, true},
		{SCX_QPT_DCI, SCX_QPS_RTS, SCX_QPS_ERR, S, true},
		{SCX_QPT_DCI, SCX_QPS_RESET, SCX_QPS_ERR, S, false},
		{SCX_QPT_DCI, SCX_QPS_ERR, SCX_QPS_RESET, S, true},
		{SCX_QPT_DCI, SCX_QPS_INIT, SCX_QPS_RTS, S, false},
		{SCX_QPT_DCT, SCX_QPS_RESET, SCX_QPS_INIT, S | SCX_QP_ACCESS_FLAGS | SCX_QP_PKEY_INDEX | SCX_QP_PORT, true},
		{SCX_QPT_DCT, SCX_QPS_RESET, SCX_QPS_INIT, S | SCX_QP_PKEY_INDEX | SCX_QP_PORT, false},
		{SCX_QPT_DCT, SCX_QPS_INIT, SCX_QPS_RTR, S | SCX_QP_MIN_RNR_TIMER | SCX_QP_AV | SCX_QP_PATH_MTU, true},
		{SCX_QPT_DCT, SCX_QPS_INIT, SCX_QPS_RTR, S | SCX_QP_AV | SCX_QP_PATH_MTU, false},
		{SCX_QPT_DCT, SCX_QPS_RTR, SCX_QPS_RTS, S, false},
		{SCX_QPT_DCT, SCX_QPS_RTR, SCX_QPS_ERR, S, false},
		{SCX_QPT_DCT, SCX_QPS_RESET, SCX_QPS_INIT, SCX_QP_ACCESS_FLAGS | SCX_QP_PKEY_INDEX | SCX_QP_PORT, false},
		{SCX_QPT_RC, SCX_QPS_RESET, SCX_QPS_INIT, S | SCX_QP_PKEY_INDEX | SCX_QP_PORT, false},
	};
	for (const rule &r : rules)
		EXPECT_EQ(scx_verbs_dc_modify_ok(r.type, r.cur, r.next, r.mask), r.ok ? 0 : -EINVAL)
			<< std::hex << r.type << " " << r.cur << "->" << r.next << " mask " << r.mask;
}
