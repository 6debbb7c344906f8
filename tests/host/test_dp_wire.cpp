// SPDX-License-Identifier: GPL-2.0
// Two softcx ports as two hosts: not on one fabric, each with a RoCEv2 link
// whose frames the test carries to the other port's receive entry, as a
// cable would (and, when told to, damages or drops them). Only the packet
// transport has a wire.
#include "fabric_fixture.h"

#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "hca/roce_frame.h"

namespace {

using scx::hca::roce_frame_parse;
using scx::hca::roce_rx;
using scx::hca::roce_rx_verdict;

const u8 host_mac[6] = {0x02, 0x5c, 0x00, 0x00, 0x00, 0x01};  // both ports' default

class Wire : public Fabric {
protected:
	void SetUp() override
	{
		Fabric::SetUp();
		ASSERT_FALSE(HasFatalFailure());
		// Two hosts: nothing between them but the wire.
		scx_hca_leave_fabric(hca);
		scx_hca_leave_fabric(b_.hca);
		a_end_ = {this, &b_.hca, &a_sent_};
		b_end_ = {this, &hca, &b_sent_};
		scx_hca_attach_wire(hca, xmit, release, &a_end_);
		scx_hca_attach_wire(b_.hca, xmit, release, &b_end_);
	}

	void TearDown() override
	{
		if (hca)
			scx_hca_detach_wire(hca);
		if (b_.hca)
			scx_hca_detach_wire(b_.hca);
		// Every frame a port held came back, by the time it detached.
		EXPECT_EQ(held_, 0);
		Fabric::TearDown();
	}

	// A received frame in a buffer of its own, as an skb: the port may
	// keep it until it gives it back through release().
	scx_wire_rx_result rx(scx_hca *h, const u8 *f, size_t len)
	{
		auto *buf = new std::vector<u8>(f, f + len);
		scx_wire_rx_result r = scx_hca_wire_rx(h, buf->data(), u32(len), buf);
		if (r == SCX_WIRE_RX_HELD)
			held_++;
		else
			delete buf;
		return r;
	}
	scx_wire_rx_result rx(scx_hca *h, const std::vector<u8> &f) { return rx(h, f.data(), f.size()); }
	static void release(void *ctx, void *frame_ref)
	{
		static_cast<end *>(ctx)->w->held_--;
		delete static_cast<std::vector<u8> *>(frame_ref);
	}

	// One end of the cable: where its frames go, what it sent.
	struct end {
		Wire *w;
		scx_hca **to;
		std::vector<std::vector<u8>> *sent;
	};
	static void xmit(void *ctx, const void *frame, uint32_t len)
	{
		end &e = *static_cast<end *>(ctx);
		const u8 *f = static_cast<const u8 *>(frame);
		e.sent->emplace_back(f, f + len);
		std::vector<u8> copy(f, f + len);
		if (e.w->damage_ > 0) {
			e.w->damage_--;
			copy[len - 1] ^= 0x40;  // the ICRC's last byte
		}
		if (e.w->drop_ > 0) {
			e.w->drop_--;
			return;
		}
		// A link that takes only so many frames between two pumps.
		if (e.w->burst_ && e.w->in_burst_++ >= e.w->burst_) {
			e.w->burst_drops_++;
			return;
		}
		e.w->delivered_ += e.w->rx(*e.to, copy) == SCX_WIRE_RX_HELD ? 1 : 0;
	}

	scx_hca_wire_stats wire_of(scx_hca *h)
	{
		scx_hca_wire_stats s{};
		scx_hca_get_wire_stats(h, &s);
		return s;
	}

	// n READs of len from B's memory (filled with v) into A's, posted
	// at once on x.a; A's memory and B's.
	std::pair<mr_t *, mr_t *> post_reads(cross_t &x, u32 len, u32 n, u8 v)
	{
		mr_t *a_mem = &make_mr(len * n, SCX_ACCESS_LOCAL_WRITE);
		mr_t *b_mem = nullptr;
		on_b([&] {
			b_mem = &make_mr(len * n, SCX_ACCESS_LOCAL_WRITE | all_remote);
			fill(b_mem->cpu(), len * n, v);
		});
		for (u32 i = 0; i < n; i++)
			post_send(*x.a, op::rdma_read,
				  wqe_b().raddr(b_mem->va(i * len), b_mem->key).data(a_mem->va(i * len), len, a_mem->key));
		return {a_mem, b_mem};
	}

	// n READs all completed without error, and A's memory holds B's bytes.
	void expect_reads_whole(const std::vector<cqe_t> &done, u32 n, mr_t *a_mem, mr_t *b_mem, u32 bytes)
	{
		for (auto &c : done)
			if (c.opcode() != cqe_op::req)
				ADD_FAILURE() << "CQE " << int(c.opcode()) << " syndrome " << int(c.syndrome());
		EXPECT_EQ(done.size(), n);
		EXPECT_EQ(std::memcmp(a_mem->cpu(), b_mem->cpu(), bytes), 0);
	}

	end a_end_{}, b_end_{};
	std::vector<std::vector<u8>> a_sent_, b_sent_;
	int damage_ = 0, drop_ = 0, delivered_ = 0;
	int burst_ = 0, in_burst_ = 0, burst_drops_ = 0;
	int held_ = 0;  // frames the ports hold
};

} // namespace

// The verbs of RcVerbsCrossBetweenPorts, as frames on a wire: nothing goes
// by the fabric, every frame is taken by the other side.
TEST_F(Wire, RcVerbsCrossTheWire)
{
	cross_t x = cross();
	exchange_rc_verbs(x);
	EXPECT_EQ(stats_of(hca).peer_requests, 0u);
	scx_hca_wire_stats a = wire_of(hca), b = wire_of(b_.hca);
	EXPECT_EQ(a.tx_frames, a_sent_.size());
	EXPECT_EQ(b.tx_frames, b_sent_.size());
	EXPECT_GE(a.tx_frames, 4u);
	EXPECT_EQ(b.rx_frames, a.tx_frames);
	EXPECT_EQ(a.rx_frames, b.tx_frames);
	EXPECT_EQ(a.rx_bad_icrc + b.rx_bad_icrc + a.rx_bad_ip + b.rx_bad_udp, 0u);
}

// Every frame is RoCEv2 as the path says: IPv4 from A's GID to B's, UDP
// from the QP's udp_sport to 4791, the path's destination MAC, the port's
// own MAC as source, and an ICRC that checks.
TEST_F(Wire, FramesFollowThePath)
{
	cross_t x = cross();
	post_send(*x.a, op::send, wqe_b().inl("hello", 5));
	on_b([&] { post_recv(*x.b, {}); });
	pump_both();
	ASSERT_FALSE(a_sent_.empty());
	for (auto &f : a_sent_) {
		roce_rx r;
		ASSERT_EQ(roce_frame_parse(f.data(), u32(f.size()), &r), roce_rx_verdict::ok);
		EXPECT_FALSE(r.v6);
		EXPECT_EQ(std::memcmp(r.sgid, gid_a, 16), 0);
		EXPECT_EQ(std::memcmp(r.dgid, gid_b, 16), 0);
		EXPECT_EQ(r.sport, 0xc001);  // the QPC's udp_sport (bring_up)
		EXPECT_EQ(r.hop_limit, 64);
		const u8 dmac[6] = {0x02, 0, 0, 0, 0, 9};  // bring_up's dmac
		EXPECT_EQ(std::memcmp(f.data(), dmac, 6), 0);
		EXPECT_EQ(std::memcmp(f.data() + 6, host_mac, 6), 0);
		EXPECT_EQ(load_be32(r.ib + 4) & 0xffffff, x.b->qpn);  // BTH destination QP
	}
}

// A frame whose ICRC is wrong is dropped and counted, never delivered;
// RC sends the packet again and the message arrives once.
TEST_F(Wire, BadIcrcIsDroppedCountedAndRetransmitted)
{
	rc_opts o;
	o.timeout = 1;  // 8 us: the retransmission comes soon
	cross_t x = cross(SCX_QPT_RC, o);
	mr_t *b_mem = nullptr;
	on_b([&] {
		b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
		post_recv(*x.b, {{b_mem->va(0), 64, b_mem->key}});
	});
	damage_ = 1;
	post_send(*x.a, op::send, wqe_b().inl("payload", 7));
	for (int i = 0; i < 200 && drain(*x.as).empty(); i++)
		pump_both(1);
	EXPECT_EQ(wire_of(b_.hca).rx_bad_icrc, 1u);
	auto rc = drain(*x.br);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].byte_cnt(), 7u);
	EXPECT_EQ(std::memcmp(b_mem->cpu(), "payload", 7), 0);
	EXPECT_GE(stats_of(hca).retries, 1u);
}

// What is not RoCEv2 for this port is the host stack's: another protocol,
// another UDP port, another host's address. The hca leaves it alone.
TEST_F(Wire, FramesNotForThePortPassToTheStack)
{
	cross_t x = cross();
	post_send(*x.a, op::send, wqe_b().inl("x", 1));
	on_b([&] { post_recv(*x.b, {}); });
	pump_both();
	ASSERT_FALSE(a_sent_.empty());
	std::vector<u8> f = a_sent_[0];
	scx_hca_wire_stats before = wire_of(b_.hca);

	std::vector<u8> arp = f;
	arp[12] = 0x08, arp[13] = 0x06;
	EXPECT_EQ(rx(b_.hca, arp), SCX_WIRE_RX_PASS);
	std::vector<u8> other_port = f;
	other_port[14 + 20 + 2] = 0x13;  // UDP destination port 0x13b7, not 4791
	EXPECT_EQ(rx(b_.hca, other_port), SCX_WIRE_RX_PASS);
	// A frame to B's address is not A's.
	EXPECT_EQ(rx(hca, f), SCX_WIRE_RX_PASS);
	std::vector<u8> other_host = f;
	other_host[14 + 19] ^= 1;  // destination IPv4 address
	EXPECT_EQ(rx(b_.hca, other_host), SCX_WIRE_RX_PASS);

	scx_hca_wire_stats after = wire_of(b_.hca);
	EXPECT_EQ(after.rx_frames, before.rx_frames);
	EXPECT_EQ(after.rx_bad_ip + after.rx_bad_udp + after.rx_bad_icrc, 0u);
}

// Malformed frames for this port: each kind dropped and counted by exactly
// the number sent; the QP's traffic goes on.
TEST_F(Wire, MalformedFramesAreCountedByKind)
{
	cross_t x = cross();
	mr_t *b_mem = nullptr;
	on_b([&] {
		b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
		post_recv(*x.b, {{b_mem->va(0), 64, b_mem->key}});
		post_recv(*x.b, {{b_mem->va(64), 64, b_mem->key}});
	});
	post_send(*x.a, op::send, wqe_b().inl("x", 1));
	pump_both();
	ASSERT_FALSE(a_sent_.empty());
	const std::vector<u8> f = a_sent_[0];
	scx_hca_wire_stats s0 = wire_of(b_.hca);

	std::vector<u8> bad_csum = f;
	bad_csum[14 + 10] ^= 0xff;  // IPv4 header checksum
	std::vector<u8> bad_len = f;
	bad_len[14 + 20 + 5] = 12;  // UDP length shorter than BTH and ICRC
	std::vector<u8> bad_icrc = f;
	bad_icrc[f.size() - 2] ^= 1;
	std::vector<u8> truncated(f.begin(), f.end() - 10);  // IP length past the frame
	// Well-formed frames (ICRC sealed again) the QP's parser refuses.
	std::vector<u8> pkey = f;
	pkey[14 + 20 + 8 + 2] = 0x12;  // BTH P_Key: another partition
	scx::hca::roce_frame_seal(pkey.data(), u32(pkey.size()));
	std::vector<u8> opcode = f;
	opcode[14 + 20 + 8] = 0x1f;    // a reserved RC opcode
	scx::hca::roce_frame_seal(opcode.data(), u32(opcode.size()));
	scx_hca_dp_stats d0;
	scx_hca_get_dp_stats(b_.hca, &d0);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(rx(b_.hca, bad_csum), SCX_WIRE_RX_DROPPED);
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(rx(b_.hca, bad_len), SCX_WIRE_RX_DROPPED);
	EXPECT_EQ(rx(b_.hca, bad_icrc), SCX_WIRE_RX_DROPPED);
	EXPECT_EQ(rx(b_.hca, truncated), SCX_WIRE_RX_DROPPED);
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(rx(b_.hca, pkey), SCX_WIRE_RX_HELD);  // refused by the QP
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(rx(b_.hca, opcode), SCX_WIRE_RX_HELD);  // refused by the QP
	pump_both();
	scx_hca_dp_stats d1;
	scx_hca_get_dp_stats(b_.hca, &d1);
	EXPECT_EQ(d1.rx_bad_pkey - d0.rx_bad_pkey, 2u);
	EXPECT_EQ(d1.rx_malformed - d0.rx_malformed, 3u);

	scx_hca_wire_stats s1 = wire_of(b_.hca);
	EXPECT_EQ(s1.rx_bad_ip - s0.rx_bad_ip, 4u);  // 3 checksums, 1 truncated
	EXPECT_EQ(s1.rx_bad_udp - s0.rx_bad_udp, 2u);
	EXPECT_EQ(s1.rx_bad_icrc - s0.rx_bad_icrc, 1u);
	EXPECT_EQ(s1.rx_frames, s0.rx_frames + 5);  // the ones the parser refused

	EXPECT_EQ(drain(*x.br).size(), 1u);
	EXPECT_EQ(drain(*x.as).size(), 1u);
	post_send(*x.a, op::send, wqe_b().inl("after", 5));
	pump_both();
	EXPECT_EQ(drain(*x.as).size(), 1u);
	auto rc = drain(*x.br);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].opcode(), cqe_op::resp_send);
	EXPECT_EQ(rc[0].byte_cnt(), 5u);
	EXPECT_EQ(std::memcmp(b_mem->cpu() + 64, "after", 5), 0);
}

// A burst the data path has not caught up with waits in the receive ring
// as the frames themselves, not copies: far more than the in-kernel
// link's copies (256) are held, each handled once its turn comes and then
// given back; past the ring's bound a frame is dropped and counted.
TEST_F(Wire, ABurstWaitsInTheRingAsTheFramesThemselves)
{
	cross_t x = cross();
	on_b([&] {
		mr_t &m = make_mr(64, SCX_ACCESS_LOCAL_WRITE);
		post_recv(*x.b, {{m.va(0), 64, m.key}});
	});
	post_send(*x.a, op::send, wqe_b().inl("x", 1));
	pump_both();
	auto sc = drain(*x.as);
	ASSERT_EQ(sc.size(), 1u);
	ASSERT_EQ(sc[0].opcode(), cqe_op::req);
	ASSERT_FALSE(a_sent_.empty());
	const std::vector<u8> f = a_sent_[0];
	const int bound = 8192;
	scx_hca_wire_stats s0 = wire_of(b_.hca);
	// B's poller does not run meanwhile: the whole burst waits.
	int held = 0;
	for (int i = 0; i < bound; i++)
		held += rx(b_.hca, f) == SCX_WIRE_RX_HELD;
	EXPECT_EQ(held, bound);
	EXPECT_EQ(held_, bound);
	EXPECT_EQ(rx(b_.hca, f), SCX_WIRE_RX_DROPPED);
	scx_hca_wire_stats s1 = wire_of(b_.hca);
	EXPECT_EQ(s1.rx_ring_full - s0.rx_ring_full, 1u);
	EXPECT_EQ(s1.rx_frames - s0.rx_frames, u64(bound));
	for (int i = 0; i < 200 && held_; i++)
		pump_both(1);
	EXPECT_EQ(held_, 0);
	// Each one was handled: the SEND again, a duplicate each time.
	u64 dups = 0;
	scx_hca_for_each_qp_counters(
		b_.hca, [](void *ctx, const scx_hca_qp_counters *c) { *static_cast<u64 *>(ctx) += c->dup_requests; },
		&dups);
	EXPECT_EQ(dups, u64(bound));
	EXPECT_EQ(drain(*x.br).size(), 1u);
}

// UD over the wire: the receive's first 40 bytes hold the IPv4 header as
// it came off the wire (after 20 zero bytes).
TEST_F(Wire, UdReceiveStartsWithTheWireHeader)
{
	const u32 qkey = 0x1234;
	cq_t &xs = make_cq(), &xr = make_cq();
	qp_t &x = make_qp(SCX_QPT_UD, xs, xr);
	bring_up(x, 0, {}, qkey);
	qp_t *y = nullptr;
	cq_t *yr = nullptr;
	mr_t *b_mem = nullptr;
	on_b([&] {
		cq_t &ys = make_cq();
		yr = &make_cq();
		y = &make_qp(SCX_QPT_UD, ys, *yr);
		bring_up(*y, 0, {}, qkey);
		b_mem = &make_mr(4096, SCX_ACCESS_LOCAL_WRITE);
		post_recv(*y, {{b_mem->va(0), 40 + 256, b_mem->key}});
	});
	u8 msg[100];
	fill(msg, sizeof(msg), 5);
	post_send(x, op::send, wqe_b().av(qkey, y->qpn, gid_b).inl(msg, sizeof(msg)));
	pump_both();
	auto rb = drain(*yr);
	ASSERT_EQ(rb.size(), 1u);
	EXPECT_EQ(rb[0].byte_cnt(), 140u);
	EXPECT_EQ(rb[0].src_qpn(), x.qpn);
	ASSERT_EQ(a_sent_.size(), 1u);
	const u8 zeros[20] = {};
	EXPECT_EQ(std::memcmp(b_mem->cpu(), zeros, 20), 0);
	EXPECT_EQ(std::memcmp(b_mem->cpu() + 20, a_sent_[0].data() + 14, 20), 0);
	EXPECT_EQ(std::memcmp(b_mem->cpu() + 40, msg, sizeof(msg)), 0);
	EXPECT_EQ(drain(xs).size(), 1u);
}

// READs of many packets, four outstanding, on a link that drops what
// exceeds a burst (as a full receive queue does): every READ completes,
// its data whole, however often the responses were cut.
TEST_F(Wire, LongReadsSurviveBurstLoss)
{
	rc_opts o;
	o.timeout = 8;  // ~1 ms
	cross_t x = cross(SCX_QPT_RC, o);
	const u32 len = 16 * 1024, n = 8;
	burst_ = 12;
	auto [a_mem, b_mem] = post_reads(x, len, n, 7);
	std::vector<cqe_t> done;
	// Tail drop leaves only timeouts (~1 ms each) to find the loss: give
	// it time, not a number of rounds.
	auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
	int rounds = 0;
	while (done.size() < n && std::chrono::steady_clock::now() < until) {
		rounds++;
		in_burst_ = 0;
		pump_both(1);
		for (auto &c : drain(*x.as))
			done.push_back(c);
	}
	expect_reads_whole(done, n, a_mem, b_mem, len * n);
	EXPECT_EQ(done.size(), n) << rounds << " rounds";
	EXPECT_GT(burst_drops_, 0);
}

// A pass may last longer than an ACK timeout (it lets the lock go between
// packets, and the CPU may go elsewhere each time): a timer armed in it
// counts from when its packet went or came, not from when the pass began.
// Here each lock release on A's side costs 150 µs of clock, so a pass of
// A's that takes a READ's responses spans several ACK timeouts (4 ms)
// while it sends the next READs; A's next pass, before B answers, finds
// no timer expired.
TEST_F(Wire, TimersCountFromThePacketNotFromThePassStart)
{
	rc_opts o;
	o.timeout = 10;  // ~4.2 ms
	o.retry_cnt = 0;
	cross_t x = cross(SCX_QPT_RC, o);
	scx_hca_dp_hold_us(hca, 0);  // A lets the lock go after every packet
	const u32 len = 32 * 1024, n = 12;
	// Four READs go at once (max_rd_atomic); each later one is sent by
	// the pass that completes an earlier one.
	auto [a_mem, b_mem] = post_reads(x, len, n, 3);
	std::vector<cqe_t> done;
	u64 longest_pass = 0;
	auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
	while (done.size() < n && std::chrono::steady_clock::now() < until) {
		u64 t0 = scx_env_now_ns();
		host_env::clock_step_per_unlock(150000);
		scx_hca_poll(hca);
		host_env::clock_step_per_unlock(0);
		longest_pass = std::max(longest_pass, scx_env_now_ns() - t0);
		// Before B answers: what A's timers say now.
		scx_hca_poll(hca);
		scx_hca_poll(b_.hca);
		for (auto &c : drain(*x.as))
			done.push_back(c);
	}
	expect_reads_whole(done, n, a_mem, b_mem, len * n);
	// The setting holds: A's passes outlast the ACK timeout...
	EXPECT_GT(longest_pass, 3 * 4200000ull);
	// ...and not one timed out.
	EXPECT_EQ(stats_of(hca).retries, 0u);
}

// A READ response lost at the front of a long stream: the requester goes
// back once, and its repeated READ is answered only after the responses
// to the READs sent before it, which take longer than the ACK timeout to
// arrive. Those answers show the responder at work: the timer waits from
// the last of them, so the one retry allowed is not used up by timeouts
// and every READ completes.
TEST_F(Wire, AnswersAheadOfARepeatKeepItsTimerWaiting)
{
	rc_opts o;
	o.timeout = 8;  // ~1 ms
	o.retry_cnt = 1;
	cross_t x = cross(SCX_QPT_RC, o);
	scx_hca_dp_hold_us(hca, 0);  // A lets the lock go after every packet
	const u32 len = 16 * 1024, n = 4;
	auto [a_mem, b_mem] = post_reads(x, len, n, 9);
	scx_hca_poll(hca);  // the READs go out
	drop_ = 1;          // B's first response
	scx_hca_poll(b_.hca);
	ASSERT_EQ(drop_, 0);
	std::vector<cqe_t> done;
	for (int i = 0; i < 50 && done.size() < n; i++) {
		// 50 us a packet: the 63 answers ahead take ~3 ms on A's side.
		host_env::clock_step_per_unlock(50000);
		scx_hca_poll(hca);
		host_env::clock_step_per_unlock(0);
		scx_hca_poll(hca);
		scx_hca_poll(b_.hca);
		for (auto &c : drain(*x.as))
			done.push_back(c);
	}
	expect_reads_whole(done, n, a_mem, b_mem, len * n);
	// One go-back for the lost response, none for a timeout.
	std::pair<u64, u64> nak_timeout{};
	scx_hca_for_each_qp_counters(
		hca,
		[](void *ctx, const scx_hca_qp_counters *c) {
			auto *p = static_cast<std::pair<u64, u64> *>(ctx);
			p->first += c->retrans_nak;
			p->second += c->retrans_timeout;
		},
		&nak_timeout);
	EXPECT_EQ(nak_timeout.first, 1u);
	EXPECT_EQ(nak_timeout.second, 0u);
}

// After work the poller polls closely (every 2 us) for a while, lest a
// doorbell landing unseen in a mapped UAR page wait. Where doorbells trap
// (the kernel's default), a packet's work is no sign of one coming: the
// poller backs off instead and leaves the CPU to the application, which
// on a one-CPU host is what answers the packet.
TEST_F(Wire, AfterAPacketThePollerStaysCloseOnlyIfDoorbellsDoNotTrap)
{
	cross_t x = cross();
	for (bool trap : {false, true}) {
		SCOPED_TRACE(trap ? "doorbells trap" : "doorbells polled");
		scx_hca_dp_policy(b_.hca, 0, 0, trap);
		mr_t *m = nullptr;
		on_b([&] {
			m = &make_mr(64, SCX_ACCESS_LOCAL_WRITE);
			post_recv(*x.b, {{m->va(0), 64, m->key}});
		});
		// Past the close polling of B's earlier work.
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
		post_send(*x.a, op::send, wqe_b().inl("x", 1));
		scx_hca_poll(hca);                  // the frame is in B's ring
		u32 us = scx_hca_poll(b_.hca);      // B takes it: no doorbell
		ASSERT_EQ(drain(*x.br).size(), 1u);
		if (trap)
			EXPECT_GE(us, 1000u);
		else
			EXPECT_LE(us, 2u);
		pump_both();
		EXPECT_EQ(drain(*x.as).size(), 1u);
	}
}

// A port's transport totals are every QP's counters, and keep what a QP
// counted after it is destroyed.
TEST_F(Wire, PortCountersKeepWhatDestroyedQpsCounted)
{
	cross_t x = cross();
	exchange_rc_verbs(x);
	struct live_t {
		u64 tx = 0, rx = 0, tx_bytes = 0;
		bool has_a = false;
		u32 a_qpn = 0;
	} live;
	live.a_qpn = x.a->qpn;
	scx_hca_for_each_qp_counters(
		hca,
		[](void *ctx, const scx_hca_qp_counters *c) {
			auto *l = static_cast<live_t *>(ctx);
			l->tx += c->tx_pkts;
			l->rx += c->rx_pkts;
			l->tx_bytes += c->tx_bytes;
			l->has_a |= c->qpn == l->a_qpn;
		},
		&live);
	ASSERT_TRUE(live.has_a);
	scx_hca_qp_counters before{};
	scx_hca_port_counters(hca, &before);
	EXPECT_GT(before.tx_pkts, 0u);
	EXPECT_GT(before.rx_pkts, 0u);
	EXPECT_EQ(before.tx_pkts, live.tx);
	EXPECT_EQ(before.rx_pkts, live.rx);
	EXPECT_EQ(before.tx_bytes, live.tx_bytes);

	ASSERT_EQ(scx_verbs_destroy_qp(drv, x.a->qpn), 0);
	x.a->alive = false;
	live = live_t{};
	live.a_qpn = x.a->qpn;
	scx_hca_for_each_qp_counters(
		hca, [](void *ctx, const scx_hca_qp_counters *c) {
			auto *l = static_cast<live_t *>(ctx);
			l->has_a |= c->qpn == l->a_qpn;
		},
		&live);
	EXPECT_FALSE(live.has_a);
	scx_hca_qp_counters after{};
	scx_hca_port_counters(hca, &after);
	EXPECT_EQ(after.tx_pkts, before.tx_pkts);
	EXPECT_EQ(after.rx_pkts, before.rx_pkts);
	EXPECT_EQ(after.tx_bytes, before.tx_bytes);
	EXPECT_EQ(after.retrans_timeout, before.retrans_timeout);
}

// A full link (the netdev's queue, scx_hca_wire_ready false) holds the
// engine back: nothing goes to the wire, nothing is lost, no timer counts
// it against the retry budget; once the link has room the message goes,
// once, with no retransmission.
TEST_F(Wire, AFullLinkHoldsPacketsBackAndLosesNone)
{
	rc_opts o;
	o.timeout = 1;  // 8 us: a packet thought lost would be resent at once
	o.retry_cnt = 0;
	cross_t x = cross(SCX_QPT_RC, o);
	const u32 len = 8 * 1024;
	mr_t &a_mem = make_mr(len, SCX_ACCESS_LOCAL_WRITE);
	fill(a_mem.cpu(), len, 5);
	mr_t *b_mem = nullptr;
	on_b([&] {
		b_mem = &make_mr(len, SCX_ACCESS_LOCAL_WRITE);
		post_recv(*x.b, {{b_mem->va(0), len, b_mem->key}});
	});
	scx_hca_wire_ready(hca, false);
	post_send(*x.a, op::send, wqe_b().data(a_mem.va(0), len, a_mem.key));
	auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
	while (std::chrono::steady_clock::now() < until)
		pump_both(1);
	EXPECT_TRUE(a_sent_.empty());
	EXPECT_GT(wire_of(hca).tx_link_full, 0u);
	EXPECT_TRUE(drain(*x.as).empty());
	scx_hca_wire_ready(hca, true);
	std::vector<cqe_t> done;
	for (int i = 0; i < 200 && done.empty(); i++) {
		pump_both(1);
		done = drain(*x.as);
	}
	ASSERT_EQ(done.size(), 1u);
	EXPECT_EQ(done[0].opcode(), cqe_op::req);
	auto rc = drain(*x.br);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].byte_cnt(), len);
	EXPECT_EQ(std::memcmp(b_mem->cpu(), a_mem.cpu(), len), 0);
	EXPECT_EQ(a_sent_.size(), 8u);  // 8 packets of 1 KiB, none twice
	EXPECT_EQ(stats_of(hca).retries, 0u);
}
