// SPDX-License-Identifier: GPL-2.0
// Two softcx ports on the fabric, as two devices in one kernel: a QP on
// port A reaches a QP on port B by B's GID, each port's QPs numbered on
// their own (the first QP of each has the same number, so only the address
// tells them apart). The fixture's helpers work on port A; on_b() points
// them at port B for a while.
#include "fabric_fixture.h"
#include "host_env.h"

// SEND, WRITE_IMM, READ and FETCH_ADD between the ports: data lands in the
// other port's memory through its keys, CQEs on both sides name the peer
// QP, and no QP of the requester's own port (one with the same number is
// there) sees anything.
TEST_F(Fabric, RcVerbsCrossBetweenPorts)
{
	cross_t x = cross();
	EXPECT_EQ(x.a->qpn, x.b->qpn); // only the GID tells the ports apart
	exchange_rc_verbs(x);
	EXPECT_GE(stats_of(hca).peer_requests, 3u);
	EXPECT_GE(stats_of(b_.hca).peer_requests, 1u);
}

// The responder's checks are the responder port's: a key of port A's
// (valid there) used against port B is a bad rkey there, NAKed, and both
// QPs end in error as on one port.
TEST_F(Fabric, RemoteKeysAreCheckedOnTheResponderPort)
{
	cross_t x = cross();
	mr_t &a_mem = make_mr(4096, SCX_ACCESS_LOCAL_WRITE | all_remote);
	post_send(*x.a, op::rdma_write, wqe_b().raddr(a_mem.va(0), a_mem.key).inl("abcd", 4));
	pump_both();
	auto sc = drain(*x.as);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].opcode(), cqe_op::req_err);
	EXPECT_EQ(sc[0].syndrome(), synd::rem_access);
	EXPECT_EQ(state(*x.a), u32(SCX_QPS_ERR));
	u32 b_state = 0;
	on_b([&] { b_state = state(*x.b); });
	EXPECT_EQ(b_state, u32(SCX_QPS_ERR));
	EXPECT_EQ(a_mem.cpu()[0], guard_byte);
}

// UD: the AV's GID picks the port, its QPN the QP there; the receive's GRH
// carries the sender's address as source. The same QPN with A's own GID is
// A's QP (loopback).
TEST_F(Fabric, UdDatagramsGoToThePortOwningTheGid)
{
	const u32 qkey = 0x1234;
	cq_t &xs = make_cq(), &xr = make_cq();
	qp_t &x = make_qp(SCX_QPT_UD, xs, xr);
	bring_up(x, 0, {}, qkey);
	qp_t *y = nullptr;
	cq_t *ys = nullptr, *yr = nullptr;
	mr_t *b_mem = nullptr;
	on_b([&] {
		ys = &make_cq();
		yr = &make_cq();
		y = &make_qp(SCX_QPT_UD, *ys, *yr);
		bring_up(*y, 0, {}, qkey);
		b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
		post_recv(*y, {{b_mem->va(0), 40 + 256, b_mem->key}});
	});
	EXPECT_EQ(x.qpn, y->qpn);
	mr_t &a_mem = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	post_recv(x, {{a_mem.va(0), 40 + 256, a_mem.key}});

	u8 msg[100];
	fill(msg, sizeof(msg), 5);
	wqe_b to_b;
	to_b.av(qkey, y->qpn, gid_b).inl(msg, sizeof(msg));
	post_send(x, op::send, to_b);
	pump_both();
	auto rb = drain(*yr);
	ASSERT_EQ(rb.size(), 1u);
	EXPECT_EQ(rb[0].byte_cnt(), 140u);
	EXPECT_EQ(rb[0].src_qpn(), x.qpn);
	const u8 *ip = b_mem->cpu() + 20;
	EXPECT_EQ(std::memcmp(ip + 12, gid_a + 12, 4), 0); // source: port A's address
	EXPECT_EQ(std::memcmp(ip + 16, gid_b + 12, 4), 0);
	EXPECT_EQ(std::memcmp(b_mem->cpu() + 40, msg, sizeof(msg)), 0);
	EXPECT_TRUE(drain(xr).empty());

	wqe_b to_self;
	to_self.av(qkey, x.qpn, gid_a).inl(msg, 20);
	post_send(x, op::send, to_self);
	pump_both();
	auto ra = drain(xr);
	ASSERT_EQ(ra.size(), 1u);
	EXPECT_EQ(ra[0].byte_cnt(), 60u);
	EXPECT_TRUE(drain(*yr).empty());
	EXPECT_EQ(drain(xs).size(), 2u);
}

// An address no port has goes unanswered: RC retries until retry_cnt runs
// out. Routes follow the address tables: once B drops its GID, a QP that
// reached B before gets no answer either.
TEST_F(Fabric, AddressesNobodyHasGoUnanswered)
{
	rc_opts o;
	o.timeout = 1;   // 8 us
	o.retry_cnt = 1;
	cq_t &s1 = make_cq(), &r1 = make_cq();
	qp_t &lost = make_qp(SCX_QPT_RC, s1, r1);
	bring_up(lost, 0x77, o, 0, gid_nobody);
	post_send(lost, op::send, wqe_b().inl("x", 1));
	std::vector<cqe_t> got;
	auto collect = [&](cq_t &c) {
		for (auto &e : drain(c))
			got.push_back(e);
		return !got.empty();
	};
	ASSERT_TRUE(pump_until([&] { return collect(s1); }));
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].opcode(), cqe_op::req_err);
	EXPECT_EQ(got[0].syndrome(), 0x15); // transport retry counter exceeded
	EXPECT_EQ(state(lost), u32(SCX_QPS_ERR));

	cross_t x = cross(SCX_QPT_RC, o);
	mr_t *b_mem = nullptr;
	on_b([&] {
		b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE | all_remote);
	});
	post_send(*x.a, op::rdma_write, wqe_b().raddr(b_mem->va(0), b_mem->key).inl("abcd", 4));
	pump_both();
	ASSERT_EQ(drain(*x.as).size(), 1u);
	EXPECT_EQ(std::memcmp(b_mem->cpu(), "abcd", 4), 0);

	ASSERT_EQ(scx_verbs_set_gid(b_.drv, 0, nullptr, nullptr, true, true), 0);
	post_send(*x.a, op::rdma_write, wqe_b().raddr(b_mem->va(8), b_mem->key).inl("efgh", 4));
	got.clear();
	ASSERT_TRUE(pump_until([&] { return collect(*x.as); }));
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].opcode(), cqe_op::req_err);
	EXPECT_EQ(got[0].syndrome(), 0x15); // transport retry counter exceeded
	EXPECT_EQ(b_mem->cpu()[8], guard_byte);
}

// Both ports send to each other at once, each from its own poller thread,
// so each often finds the other's lock taken: nothing is lost, duplicated
// or reordered (a busy port is not a lost packet). A lost packet shows at
// its responder as a later one out of sequence, and a timeout's resend of
// it is no duplicate there; a thread the host merely descheduled past the
// ACK timeout makes a resend that is one. So the test asks the counters,
// not the clock: no packet out of sequence, no sequence NAK, and every
// timeout resend (rare: the timeout is ~0.5 s) answered as a duplicate.
TEST_F(Fabric, BothWaysAtOnceUnderContention)
{
	rc_opts o;
	o.timeout = 17;   // 4.096 us << 17: ~0.54 s
	o.retry_cnt = 7;
	o.rnr_retry = 7;
	cross_t x = cross(SCX_QPT_RC, o);
	mr_t &a_mem = make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
	mr_t *b_mem = nullptr;
	on_b([&] { b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE); });
	constexpr u32 n = 3000;
	start_poller();
	start_b_poller();
	u32 posted_a = 0, posted_b = 0, recv_a = 0, recv_b = 0, sent_a = 0, sent_b = 0;
	u32 expect_a = 0, expect_b = 0, unused_a = 0, unused_b = 0;
	bool ok = true;
	auto check = [&](cq_t &c, u32 *count, u32 *expect, bool recv) {
		for (auto &e : drain(c)) {
			if (e.opcode() != (recv ? cqe_op::resp_send_imm : cqe_op::req)) {
				ADD_FAILURE() << "opcode " << int(e.opcode()) << " syndrome " << int(e.syndrome());
				ok = false;
			}
			if (recv && e.imm_raw() != *expect) {
				ADD_FAILURE() << "message " << e.imm_raw() << " where " << *expect << " was next";
				ok = false;
			}
			(*expect)++;
			(*count)++;
		}
	};
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
	while (ok && (recv_a < n || recv_b < n || sent_a < n || sent_b < n) && std::chrono::steady_clock::now() < end) {
		// Keep receives ahead of the sends (RNR NAKs otherwise, which
		// are retried but slow the test).
		while (posted_a < n && posted_a - recv_b < 8) {
			post_recv(*x.b, {{b_mem->va(0), 64, b_mem->key}});
			send_opts so;
			so.imm_raw = posted_a;
			post_send(*x.a, op::send_imm, wqe_b().inl("ab", 2), so);
			posted_a++;
		}
		while (posted_b < n && posted_b - recv_a < 8) {
			post_recv(*x.a, {{a_mem.va(0), 64, a_mem.key}});
			send_opts so;
			so.imm_raw = posted_b;
			so.ring = false; // the pollers read hca, uar_page: no swap_ports here
			u16 idx = post_send(*x.b, op::send_imm, wqe_b().inl("cd", 2), so);
			ring_b(*x.b, idx);
			posted_b++;
		}
		check(*x.br, &recv_b, &expect_b, true);
		check(*x.ar, &recv_a, &expect_a, true);
		check(*x.as, &sent_a, &unused_a, false);
		check(*x.bs, &sent_b, &unused_b, false);
	}
	stop_poller();
	stop_b_poller();
	EXPECT_EQ(recv_a, n);
	EXPECT_EQ(recv_b, n);
	// How often a port found the other busy (timing decides; reported).
	RecordProperty("peer_busy", std::to_string(stats_of(hca).peer_busy + stats_of(b_.hca).peer_busy));
	EXPECT_EQ(state(*x.a), u32(SCX_QPS_RTS));
	EXPECT_EQ(state(*x.b), u32(SCX_QPS_RTS));
	scx_hca_qp_counters ca{}, cb{};
	scx_hca_port_counters(hca, &ca);
	scx_hca_port_counters(b_.hca, &cb);
	EXPECT_EQ(ca.out_of_seq + cb.out_of_seq, 0u);
	EXPECT_EQ(ca.seq_naks_sent + cb.seq_naks_sent, 0u);
	EXPECT_EQ(ca.retrans_nak + cb.retrans_nak, 0u);
	EXPECT_LE(ca.retrans_timeout, cb.dup_requests);
	EXPECT_LE(cb.retrans_timeout, ca.dup_requests);
	RecordProperty("retrans_timeout", std::to_string(ca.retrans_timeout + cb.retrans_timeout));
}

// A peer port whose lock is taken (on PREEMPT_RT possibly by a task the
// poller itself preempted) is not waited for: packets go into its receive
// ring, which has a lock of its own.
TEST_F(Fabric, APeerPortBusyHoldsNothingUp)
{
	cross_t x = cross();
	mr_t *b_mem = nullptr;
	on_b([&] { b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE); });
	on_b([&] {
		post_recv(*x.b, {{b_mem->va(0), 64, b_mem->key}});
		post_recv(*x.b, {{b_mem->va(64), 64, b_mem->key}});
	});
	// A first message routes A's QP to port B (routing may take locks too).
	post_send(*x.a, op::send, wqe_b().inl("ab", 2));
	pump_both();
	ASSERT_EQ(drain(*x.br).size(), 1u);
	ASSERT_EQ(drain(*x.as).size(), 1u);
	u64 busy0 = stats_of(hca).peer_busy;

	host_env::fail_trylocks(100);
	post_send(*x.a, op::send, wqe_b().inl("cd", 2));
	pump_both();
	host_env::fail_trylocks(0);
	ASSERT_EQ(drain(*x.br).size(), 1u);
	EXPECT_EQ(std::memcmp(b_mem->cpu() + 64, "cd", 2), 0);
	EXPECT_EQ(drain(*x.as).size(), 1u);
	EXPECT_EQ(stats_of(hca).peer_busy, busy0);
	EXPECT_EQ(state(*x.a), u32(SCX_QPS_RTS));
}

// Finding which port owns a GID asks each peer under its lock, and one that
// is taken is not spun on: each round held up by it asks to be called again
// after a delay that doubles up to the policy's cap, a trapped doorbell
// leaves the work to the poller, and once the lock is free the message goes
// through and the delays start over.
TEST_F(Fabric, ARouteHeldUpIsRetriedAfterAGrowingDelay)
{
	cross_t x = cross();
	mr_t *b_mem = nullptr;
	on_b([&] { b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE); });
	on_b([&] { post_recv(*x.b, {{b_mem->va(0), 64, b_mem->key}}); });
	u64 busy0 = stats_of(hca).peer_busy;

	host_env::fail_trylocks(1000000);
	post_send(*x.a, op::send, wqe_b().inl("ab", 2));
	EXPECT_TRUE(scx_hca_uar_store(hca, uar, nullptr));
	u64 after_trap = stats_of(hca).peer_busy;
	EXPECT_GT(after_trap, busy0);
	std::vector<u32> delays;
	for (int i = 0; i < 9; i++)
		delays.push_back(scx_hca_poll(hca));
	EXPECT_EQ(delays, (std::vector<u32>{4, 8, 16, 32, 64, 128, 256, 256, 256}));
	EXPECT_GT(stats_of(hca).peer_busy, after_trap);
	EXPECT_TRUE(drain(*x.br).empty());
	EXPECT_TRUE(drain(*x.as).empty());

	host_env::fail_trylocks(0);
	pump_both();
	ASSERT_EQ(drain(*x.br).size(), 1u);
	EXPECT_EQ(std::memcmp(b_mem->cpu(), "ab", 2), 0);
	EXPECT_EQ(drain(*x.as).size(), 1u);
	EXPECT_EQ(state(*x.a), u32(SCX_QPS_RTS));
}
