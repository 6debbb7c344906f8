// SPDX-License-Identifier: GPL-2.0
// A simulated network for the transport engine: nodes with memory, keys,
// send and receive queues (tp_ops), and a link that loses, duplicates and
// reorders packets at chosen rates (tp_link), on a simulated clock that
// jumps to the next event.
#pragma once

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "hca/tp.h"

namespace scx::hca::sim {

struct key {
	u64 base;   // offset in the node's memory
	u32 len;
	u8 access;  // tp_access bits
};

struct completion {
	u16 index;
	u8 syndrome;
};

struct recv_buf {
	u64 off;
	u32 cap;
	u32 id;
};

struct recv_completion {
	u32 id;
	tp_recv_done d;
};

// A posted send: the WQE and the local buffer it gathers from (SEND,
// WRITE) or scatters into (READ, atomic).
struct post {
	tp_send_wr wr;
	u64 local = 0;
};

struct node;

struct qp {
	tp_qp t;
	node *n = nullptr;
	qp *peer = nullptr;   // RC/UC: where its packets go; UD: by dest_qpn
	std::vector<tp_flight> flights;
	std::vector<tp_rd_res> res;
	std::deque<post> sq;
	std::map<u16, u64> local;   // WQE index -> local buffer
	std::deque<recv_buf> rq;
	std::map<u32, recv_buf> taken;
	std::vector<completion> done;
	std::vector<recv_completion> recvd;
	std::vector<tp_fatal> fatals;
	bool scheduled = false;
	bool recv_fault_next = false;
	u16 next_index = 0;
	u32 established = 0;
};

struct node final : tp_ops {
	std::vector<u8> mem;
	std::map<u32, key> keys;
	std::vector<std::unique_ptr<qp>> qps;
	u32 atomics_executed = 0;

	explicit node(usize bytes) : mem(bytes) {}

	static qp &of(tp_qp &q) { return *static_cast<qp *>(q.owner); }
	bool in_key(u32 rkey, u64 va, u32 len, u8 access, u64 *off);

	tp_fetch fetch_wqe(tp_qp &q, tp_send_wr *wr) override;
	bool gather(tp_qp &q, const tp_send_wr &wr, u32 off, u8 *dst, u32 len) override;
	bool scatter(tp_qp &q, const tp_send_wr &wr, u32 off, const u8 *src, u32 len) override;
	void complete(tp_qp &q, const tp_send_wr &wr, u8 syndrome) override;
	u8 run_local(tp_qp &, const tp_send_wr &) override { return 0; }
	tp_recv recv_take(tp_qp &q, u32 *handle, u32 *cap) override;
	bool recv_scatter(tp_qp &q, u32 handle, u32 off, const tp_payload &src, u32 len) override;
	void recv_complete(tp_qp &q, u32 handle, const tp_recv_done &d) override;
	u8 remote_check(tp_qp &q, u32 rkey, u64 va, u32 len, u8 access) override;
	u8 remote_write(tp_qp &q, u32 rkey, u64 va, const tp_payload &src, u32 len) override;
	u8 remote_read(tp_qp &q, u32 rkey, u64 va, u8 *dst, u32 len) override;
	u8 remote_atomic(tp_qp &q, const ib_hdr &h, u64 *orig) override;
	bool invalidate(tp_qp &q, u32 rkey) override;
	void established(tp_qp &q) override { of(q).established++; }
	void fatal(tp_qp &q, tp_fatal why) override { of(q).fatals.push_back(why); }
	void schedule(tp_qp &q) override { of(q).scheduled = true; }
	void note(tp_qp &, tp_note) override {}
};

struct link_rates {
	double drop = 0, dup = 0, reorder = 0;
	u64 latency_ns = 2000;
	u64 reorder_ns = 20000;   // how late a reordered packet arrives
	u64 pkt_ns = 0;           // the wire's time per packet (0: unlimited)
};

struct link final : tp_link {
	struct packet {
		u64 at;
		u64 seq;
		qp *to;
		std::vector<u8> bytes;
	};
	link_rates rates;
	std::mt19937_64 rng;
	std::vector<packet> in_flight;   // a heap by (at, seq)
	std::vector<u8> building;
	qp *building_to = nullptr;
	u64 now = 0, seq = 0;
	u64 sent = 0, dropped = 0, duplicated = 0, reordered = 0;
	u64 ack_reqs = 0;         // packets sent with the BTH's AckReq bit
	u64 dc_connects = 0;      // DC requests sent with the connect bit
	std::map<const node *, u64> wire_free;   // per direction (by receiver): when its queue is sent
	std::map<const node *, u64> max_queued;  // per direction: the most packets its queue held
	// Drop the next drop_opcode_left packets whose BTH opcode is this.
	u32 drop_opcode = 0x100;
	u32 drop_opcode_left = 0;
	bool down = false;

	explicit link(u64 seed) : rng(seed) {}
	u8 *tx_begin(tp_qp &q, const void *route, u32 len) override;
	void tx_commit(tp_qp &q) override;
	bool chance(double p) { return p > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < p; }
	void push(qp *to, const std::vector<u8> &b, u64 at);
	bool pop_due(u64 t, packet *out);
	u64 next_at() const { return in_flight.empty() ? ~0ull : in_flight.front().at; }
};

// Nodes, QPs and the clock.
struct world {
	node a, b;
	link net;
	transport eng_a, eng_b;
	u64 now = 1000000;

	explicit world(u64 seed, usize mem = 1 << 20) : a(mem), b(mem), net(seed), eng_a(a, net), eng_b(b, net) {}
	transport &eng(qp &q) { return q.n == &a ? eng_a : eng_b; }
	qp &add_qp(node &n, const tp_qp_attr &at, u32 window = 64, u32 res = 4);
	// Connects x and y (RC/UC): each the other's destination, both started.
	void connect(qp &x, qp &y);
	// Runs until nothing is left to do or the clock passes until.
	void run(u64 until_ns = ~0ull, u64 max_steps = ~0ull);
	void post_send(qp &q, tp_send_wr wr, u64 local);
	void post_recv(qp &q, u64 off, u32 cap, u32 id);
	u32 add_key(node &n, u64 base, u32 len, u8 access);
};

} // namespace scx::hca::sim
