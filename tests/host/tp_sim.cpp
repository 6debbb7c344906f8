// SPDX-License-Identifier: GPL-2.0
#include "tp_sim.h"

#include <algorithm>

namespace scx::hca::sim {

namespace sy = wire::aeth_synd;

bool node::in_key(u32 rkey, u64 va, u32 len, u8 access, u64 *off)
{
	auto it = keys.find(rkey);
	if (it == keys.end() || (it->second.access & access) != access)
		return false;
	// Keys address by offset from the key's base: va is that offset.
	if (va > it->second.len || len > it->second.len - va)
		return false;
	*off = it->second.base + va;
	return true;
}

tp_fetch node::fetch_wqe(tp_qp &q, tp_send_wr *wr)
{
	qp &s = of(q);
	if (s.sq.empty())
		return tp_fetch::none;
	*wr = s.sq.front().wr;
	s.local[wr->index] = s.sq.front().local;
	s.sq.pop_front();
	return s.sq.empty() ? tp_fetch::last : tp_fetch::ok;
}

bool node::gather(tp_qp &q, const tp_send_wr &wr, u32 off, u8 *dst, u32 len)
{
	u64 at = of(q).local.at(wr.index) + off;
	if (at + len > mem.size())
		return false;
	memcpy(dst, &mem[at], len);
	return true;
}

bool node::scatter(tp_qp &q, const tp_send_wr &wr, u32 off, const u8 *src, u32 len)
{
	u64 at = of(q).local.at(wr.index) + off;
	if (at + len > mem.size())
		return false;
	memcpy(&mem[at], src, len);
	return true;
}

void node::complete(tp_qp &q, const tp_send_wr &wr, u8 syndrome)
{
	of(q).done.push_back({wr.index, syndrome});
	of(q).local.erase(wr.index);
}

tp_recv node::recv_take(tp_qp &q, u32 *handle, u32 *cap)
{
	qp &s = of(q);
	if (s.rq.empty())
		return tp_recv::none;
	recv_buf b = s.rq.front();
	s.rq.pop_front();
	s.taken[b.id] = b;
	*handle = b.id;
	*cap = b.cap;
	if (s.recv_fault_next) {
		s.recv_fault_next = false;
		return tp_recv::fault;
	}
	return tp_recv::ok;
}

bool node::recv_scatter(tp_qp &q, u32 handle, u32 off, const tp_payload &src, u32 len)
{
	const recv_buf &b = of(q).taken.at(handle);
	if (u64(off) + len > b.cap || !src.bytes)   // the simulated link carries bytes
		return false;
	memcpy(&mem[b.off + off], src.bytes, len);
	return true;
}

void node::recv_complete(tp_qp &q, u32 handle, const tp_recv_done &d)
{
	of(q).recvd.push_back({handle, d});
	of(q).taken.erase(handle);
}

u8 node::remote_check(tp_qp &, u32 rkey, u64 va, u32 len, u8 access)
{
	u64 off;
	return in_key(rkey, va, len, access, &off) ? 0 : sy::remote_access;
}

u8 node::remote_write(tp_qp &, u32 rkey, u64 va, const tp_payload &src, u32 len)
{
	u64 off;
	if (!in_key(rkey, va, len, tp_access::write, &off) || !src.bytes)
		return sy::remote_access;
	memcpy(&mem[off], src.bytes, len);
	return 0;
}

u8 node::remote_read(tp_qp &, u32 rkey, u64 va, u8 *dst, u32 len)
{
	u64 off;
	if (!in_key(rkey, va, len, tp_access::read, &off))
		return sy::remote_access;
	memcpy(dst, &mem[off], len);
	return 0;
}

u8 node::remote_atomic(tp_qp &, const ib_hdr &h, u64 *orig)
{
	u64 off;
	if (!in_key(h.rkey, h.va, 8, tp_access::atomic, &off))
		return sy::remote_access;
	u64 v;
	memcpy(&v, &mem[off], 8);
	*orig = v;
	if ((h.opcode & wire::bth_op::mask) == wire::bth_op::fetch_add)
		v += h.swap_add;
	else if (v == h.compare)
		v = h.swap_add;
	memcpy(&mem[off], &v, 8);
	atomics_executed++;
	return 0;
}

bool node::invalidate(tp_qp &, u32 rkey) { return keys.erase(rkey) == 1; }

u8 *link::tx_begin(tp_qp &q, const void *route, u32 len)
{
	if (down)
		return nullptr;
	qp &s = node::of(q);
	qp *to = s.peer;
	if (q.a.st == tp_st::ud || q.a.st == tp_st::dci) {
		// The "address vector" of the simulation: the destination qp*
		// (for DC, the target's context for this initiator).
		memcpy(&to, route, sizeof(to));
	}
	building.assign(len, 0);
	building_to = to;
	return building.data();
}

void link::tx_commit(tp_qp &)
{
	sent++;
	u8 opc = building[0];
	if (prm::get(building.data(), wire::bth::ack_req))
		ack_reqs++;
	if ((opc & wire::bth_transport::mask) == wire::bth_transport::dc &&
	    prm::get(building.data() + wire::bth::size_bytes, wire::dceth::connect))
		dc_connects++;
	// A slow wire queues what is sent faster than it can carry.
	u64 &free_at = wire_free[building_to->n];
	free_at = std::max(now, free_at) + rates.pkt_ns;
	if (rates.pkt_ns) {
		u64 &most = max_queued[building_to->n];
		most = std::max(most, (free_at - now) / rates.pkt_ns);
	}
	bool aimed = drop_opcode == opc && drop_opcode_left;
	if (aimed || chance(rates.drop)) {
		if (aimed)
			drop_opcode_left--;
		dropped++;
		return;
	}
	u64 at = free_at + rates.latency_ns;
	if (chance(rates.reorder)) {
		reordered++;
		at += rates.reorder_ns;
	}
	push(building_to, building, at);
	if (chance(rates.dup)) {
		duplicated++;
		push(building_to, building, at + rates.latency_ns / 2 + 1);
	}
}

static bool later(const link::packet &x, const link::packet &y)
{
	return x.at != y.at ? x.at > y.at : x.seq > y.seq;
}

void link::push(qp *to, const std::vector<u8> &b, u64 at)
{
	in_flight.push_back({at, seq++, to, b});
	std::push_heap(in_flight.begin(), in_flight.end(), later);
}

bool link::pop_due(u64 t, packet *out)
{
	if (in_flight.empty() || in_flight.front().at > t)
		return false;
	std::pop_heap(in_flight.begin(), in_flight.end(), later);
	*out = std::move(in_flight.back());
	in_flight.pop_back();
	return true;
}

qp &world::add_qp(node &n, const tp_qp_attr &at, u32 window, u32 res)
{
	n.qps.push_back(std::make_unique<qp>());
	qp &q = *n.qps.back();
	q.n = &n;
	q.t.a = at;
	q.t.owner = &q;
	q.flights.resize(window);
	q.res.resize(res);
	q.t.flights = q.flights.data();
	q.t.flight_cap = window;
	q.t.res = q.res.data();
	q.t.res_cap = res;
	return q;
}

void world::connect(qp &x, qp &y)
{
	x.peer = &y;
	y.peer = &x;
	x.t.a.dest_qpn = y.t.a.qpn;
	y.t.a.dest_qpn = x.t.a.qpn;
	y.t.a.rq_psn = x.t.a.sq_psn;
	x.t.a.rq_psn = y.t.a.sq_psn;
	for (qp *q : {&x, &y}) {
		transport::start_responder(q->t);
		transport::start_requester(q->t);
	}
}

void world::post_send(qp &q, tp_send_wr wr, u64 local)
{
	wr.index = q.next_index++;
	q.sq.push_back({wr, local});
	transport::doorbell(q.t);
	q.scheduled = true;
}

void world::post_recv(qp &q, u64 off, u32 cap, u32 id)
{
	q.rq.push_back({off, cap, id});
}

u32 world::add_key(node &n, u64 base, u32 len, u8 access)
{
	u32 k = 0x100 + u32(n.keys.size()) * 0x100 + 0x11;
	n.keys[k] = {base, len, access};
	return k;
}

void world::run(u64 until_ns, u64 max_steps)
{
	for (u64 step = 0; step < max_steps && now <= until_ns; step++) {
		bool busy = false;
		net.now = now;
		for (node *n : {&a, &b})
			for (auto &q : n->qps)
				if (transport::has_tx(q->t, now) || q->scheduled) {
					q->scheduled = false;
					busy |= eng(*q).send(q->t, now, 16) > 0;
				}
		link::packet p;
		while (net.pop_due(now, &p)) {
			busy = true;
			tp_rx_meta m;
			static const u8 grh[40] = {};
			m.grh = grh;
			m.l3 = 4;
			eng(*p.to).receive(p.to->t, p.bytes.data(), u32(p.bytes.size()), m, now);
		}
		u64 next = net.next_at();
		for (node *n : {&a, &b})
			for (auto &q : n->qps) {
				eng(*q).tick(q->t, now);
				u64 t = transport::next_timer(q->t);
				if (t)
					next = std::min(next, t);
				busy |= q->scheduled;
			}
		// 16 packets a QP every 100 ns while there is work; otherwise
		// on to the next arrival or timer.
		if (busy) {
			now += 100;
			continue;
		}
		if (next == ~0ull)
			return;
		now = std::max(now + 1, next);
	}
}

} // namespace scx::hca::sim
