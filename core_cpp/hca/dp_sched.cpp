// SPDX-License-Identifier: GPL-2.0
// Which QPs the packet transport runs, and when: a QP gets a turn when a
// doorbell names it, a packet for it arrives, the engine has more for it
// to send, or its timer is due — never because it exists. Idle QPs cost
// nothing but the sweep, which reads each one's doorbell record now and
// then for a doorbell store that a later store on the same UAR word
// replaced before it was seen. A trapped doorbell's pass runs only the
// QPs of the writer's UAR page and the loopback peers their packets reach
// (as rxe runs a responder in its sender's context); all else waits for
// the poller.
#include "hca/dct.h"
#include "hca/dp.h"

#include "prm/qp.h"

namespace scx::hca {

namespace qs = prm::qpc_state;

namespace {

constexpr u32 rounds_per_pass = 16;   // send and receive turns in one pass
constexpr u32 pkts_per_turn = 16;     // packets one QP sends in one turn
constexpr u32 rx_per_turn = 64;       // packets taken from the ring in one turn
constexpr u32 clock_every = 4;        // units of work between relax()'s clock reads

bool sends(const qp_runtime &rt) { return rt.state == qs::rts || rt.state == qs::sqd; }

} // namespace

void data_path::activate(qp_runtime &rt)
{
	more_ = true;
	if (rt.dp_active)
		return;
	if (active_n_ == max_qps_) {
		sweep_ = true;   // cannot happen: each live QP is listed once
		return;
	}
	rt.dp_active = 1;
	active_[(active_head_ + active_n_++) % max_qps_] = rt.qpn;
}

void data_path::activate_qpn(u32 qpn)
{
	qp_runtime *rt = d_.qps->dp_get(qpn);
	if (rt)
		activate(*rt);
}

// Whether the writer consumed a completion of rt's (its send or receive
// CQ's consumer index moved) since rt's previous trapped doorbell. One
// that waits on its completions between doorbells (a latency test) is
// served best by the trap; one posting ahead (a bandwidth test) stores
// back to back with none consumed between, and the poller serves it.
bool data_path::consumed_since_doorbell(qp_runtime &rt)
{
	u32 s = 0, r = 0;
	d_.cqs->consumer_index(rt.cqn_snd, &s);
	if (rt.cqn_rcv != rt.cqn_snd)
		d_.cqs->consumer_index(rt.cqn_rcv, &r);
	bool moved = s != rt.seen_ci_snd || r != rt.seen_ci_rcv;
	rt.seen_ci_snd = s;
	rt.seen_ci_rcv = r;
	return moved;
}

// Every QP whose send queue moved without a doorbell seen for it.
void data_path::sweep()
{
	sweep_ = false;
	last_sweep_ = now_;
	stats_.sweeps++;
	for (u32 i = 0; i < nqp_; i++) {
		relax_every(i);
		qp_runtime *rt = d_.qps->dp_get(watch_qp_[i]);
		u32 v;
		if (rt && sends(*rt) &&
		    read_dbr(rt->dbr_addr, prm::qp_dbrec::snd_counter.byte_off, &v) && u16(v) != rt->sq_ci)
			activate(*rt);
	}
}

// QPs whose timer is due get a turn; those with none leave the list.
void data_path::run_timers()
{
	for (u32 i = 0; i < ntimed_;) {
		qp_runtime *rt = d_.qps->dp_get(timed_[i]);
		u64 t = rt && rt->tp ? transport::next_timer(*rt->tp) : 0;
		if (!t) {
			if (rt)
				rt->dp_timed = 0;
			timed_[i] = timed_[--ntimed_];
			continue;
		}
		if (t <= now_)
			activate(*rt);
		i++;
	}
}

// Between two packets: once the lock was held hold_us, or at once when
// someone waits for it, lets commands, other writers' doorbells, the
// receive softirq and interrupts in. Nothing read under the lock is
// trusted after it (QPs are looked up again; a command resets the cached
// lists). The pass's clock moves on either way. The clock is read every
// clock_every units of work (under emulation a read of it can cost what
// a small packet does), so a hold may run a few packets past hold_us;
// hold_us 0 lets go after every one.
void data_path::relax()
{
	if (!held_ || !debt_)
		return;
	if (!lock_.contended()) {
		if (policy_.hold_us && debt_ % clock_every)
			return;
		now_ = scx_env_now_ns();
		if (now_ - hold_since_ < u64(policy_.hold_us) * 1000)
			return;
	}
	debt_ = 0;
	held_->relax();
	hold_since_ = now_ = scx_env_now_ns();
}

// In a loop over a watch list: every 16th entry counts as work.
void data_path::relax_every(u32 i)
{
	if ((i & 15) == 15) {
		debt_++;
		relax();
	}
}

// One turn of a QP: its answers, retransmissions and new WQEs, up to a
// budget, relax() between packets. true if it sent something.
bool data_path::visit(u32 qpn)
{
	stats_.qp_visits++;
	bool sent = false;
	for (u32 k = 0; k < pkts_per_turn; k++) {
		if (k)
			relax();
		if (!visit_one(qpn, k == 0))
			break;
		sent = true;
	}
	qp_runtime *rt = d_.qps->dp_get(qpn);
	if (!rt || !rt->tp)
		return sent;
	if (!rt->tp->in_error && transport::has_tx(*rt->tp, now_))
		activate(*rt);
	track_timer(*rt);
	return sent;
}

// One packet of the QP's turn (the first also looks at its SQ and
// timers). false: it had nothing to send.
bool data_path::visit_one(u32 qpn, bool first)
{
	qp_runtime *rt = d_.qps->dp_get(qpn);
	if (!rt || !rt->tp)
		return false;
	if (rt->state == qs::err) {
		flush(*rt);
		return false;
	}
	if (!sends(*rt) && rt->state != qs::rtr)
		return false;
	tp_qp &t = *rt->tp;
	if (first) {
		transport::doorbell(t);
		engine_.tick(t, now_);
		link_.settle();
	}
	bool sent = engine_.send(t, now_, 1);
	link_.settle();
	if (!sent)
		return false;
	debt_++;
	return true;
}

// A QP whose engine armed a timer (sending, or on a packet received) is
// watched until it has none.
void data_path::track_timer(qp_runtime &rt)
{
	if (!rt.dp_timed && rt.tp && transport::next_timer(*rt.tp) && ntimed_ < max_qps_) {
		rt.dp_timed = 1;
		timed_[ntimed_++] = rt.qpn;
	}
}

bool data_path::trap_has(u32 qpn) const
{
	for (u32 i = 0; i < ntrap_; i++)
		if (trap_qps_[i] == qpn)
			return true;
	return false;
}

void data_path::trap_add(u32 qpn)
{
	if (ntrap_ < trap_max && !trap_has(qpn))
		trap_qps_[ntrap_++] = qpn;
}

// Whether a trap's pass takes packet p from the ring: it is for one of
// the trap's QPs, or for a QP of this port that one of them sent it to
// (its RC/UC peer, or a UD sender named in the DETH), which joins them.
bool data_path::trap_takes(const dp_rx_pkt &p)
{
	if (p.len < wire::bth::size_bytes)
		return true;   // dropped and counted, whoever takes it
	u32 qpn = u32(prm::get(p.data, wire::bth::dest_qp));
	if (trap_has(qpn))
		return true;
	qp_runtime *rt = d_.qps->dp_get(qpn);
	if (!rt && d_.dcts && d_.dcts->dp_get(qpn)) {
		// A DC request from one of the trap's DCIs (rx_one adds the
		// context that takes it).
		u32 hdr = wire::bth::size_bytes + wire::dceth::size_bytes;
		return p.len >= hdr && (prm::get(p.data, wire::bth::opcode) & wire::bth_transport::mask) ==
					       wire::bth_transport::dc &&
		       trap_has(u32(prm::get(p.data + wire::bth::size_bytes, wire::dceth::dci_qp))) &&
		       ntrap_ < trap_max;
	}
	if (!rt || !rt->tp)
		return false;
	u32 from = rt->tp->a.dest_qpn;
	if (rt->tp->a.st == tp_st::ud) {
		if (p.len < wire::bth::size_bytes + wire::deth::size_bytes)
			return false;
		from = u32(prm::get(p.data + wire::bth::size_bytes, wire::deth::src_qp));
	}
	if (!trap_has(from) || ntrap_ == trap_max)
		return false;
	trap_add(qpn);
	return true;
}

// Whether one of a trap's QPs still has a turn coming.
bool data_path::trap_owes()
{
	for (u32 i = 0; i < ntrap_; i++) {
		qp_runtime *rt = d_.qps->dp_get(trap_qps_[i]);
		if (rt && rt->dp_active)
			return true;
	}
	dp_rx_pkt *p = rx_.front();
	return p && trap_takes(*p);
}

// Arm words, sweeps, flushes and timers: the poller's part of a pass (a
// trap's looks only at the CQs whose arm doorbells it took and its own
// QPs in error).
void data_path::pass_lists()
{
	// The lists hold numbers, looked up at each use: the lock may go
	// every few entries (relax_every) whatever their length.
	// Taken before the lock may go: what is named meanwhile is the next
	// pass's.
	bool all = !trap_ || arm_all_;
	u32 named = narm_;
	narm_ = 0;
	arm_all_ = false;
	for (u32 i = 0; !all && i < named; i++)
		d_.cqs->poll_arm(arm_cqs_[i]);
	for (u32 i = 0; all && i < ncq_; i++) {
		relax_every(i);
		d_.cqs->poll_arm(watch_cq_[i]);
	}
	stats_.arm_reads += all ? ncq_ : named;
	relax();
	// A command moved QPs (to RTS with WQEs posted before, to ERR).
	if (sweep_epoch_ != d_.qps->state_epoch()) {
		sweep_epoch_ = d_.qps->state_epoch();
		sweep_ = true;
	}
	if (!trap_ && (sweep_ || now_ - last_sweep_ >= u64(policy_.sweep_us) * 1000))
		sweep();
	for (u32 i = 0; i < nerr_; i++) {
		relax();
		qp_runtime *rt = d_.qps->dp_get(watch_err_[i]);
		if (rt && rt->state == qs::err && rt->tp && (!trap_ || trap_has(rt->qpn)))
			flush(*rt);
	}
	relax();
	if (!trap_)
		run_timers();
	relax();
}

// The next QP listed for a turn (0: none this round); a trap's pass
// passes over others', which keep their place.
u32 data_path::next_turn()
{
	u32 qpn = active_[active_head_];
	active_head_ = (active_head_ + 1) % max_qps_;
	active_n_--;
	qp_runtime *rt = d_.qps->dp_get(qpn);
	if (!rt || !rt->dp_active)
		return 0;
	if (trap_ && !trap_has(qpn)) {
		active_[(active_head_ + active_n_++) % max_qps_] = qpn;
		return 0;
	}
	rt->dp_active = 0;
	return qpn;
}

void data_path::pass(u64 now)
{
	stats_.passes++;
	now_ = hold_since_ = now;
	rebuild_watch();
	// Keys may have changed since the last pass.
	forget_lists();
	pass_lists();
	bool progress = true;
	// Another round only for work it can find: a round after one that
	// merely did something would walk an empty ring and list (under
	// emulation ~2 us of a loopback trap's pass, the peer waiting on it).
	auto owed = [&] { return trap_ ? trap_owes() : active_n_ != 0 || rx_.front(); };
	u32 r = 0;
	for (; r < rounds_per_pass && (r == 0 || owed()); r++) {
		progress = drain_rx(rx_per_turn);
		// The QPs listed now; what a turn lists again waits its turn.
		for (u32 n = active_n_; n && active_n_; n--) {
			u32 qpn = next_turn();
			if (!qpn)
				continue;
			relax();
			if (visit(qpn))
				progress = true;
		}
	}
	trap_more_ = trap_ && owed();
	// Left: the rounds ran out while working, QPs listed, or packets
	// (for others than a trap's QPs, or come meanwhile).
	more_ = (progress && r == rounds_per_pass) || active_n_ || rx_.front();
	for (u32 i = 0; i < ntimed_; i++) {
		qp_runtime *rt = d_.qps->dp_get(timed_[i]);
		u64 t = rt && rt->tp ? transport::next_timer(*rt->tp) : 0;
		if (t && t < next_timer_)
			next_timer_ = t;
	}
}

} // namespace scx::hca
