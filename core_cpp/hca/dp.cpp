// SPDX-License-Identifier: GPL-2.0
// The data path's rounds: doorbells in, a pass over the QPs they name
// (dp_sched.cpp), the poller's sleep; completions and asynchronous events.
#include "hca/dp.h"

#include "lib/new.h"
#include "prm/cq.h"
#include "prm/eq.h"
#include "prm/qp.h"
#include "prm/wqe.h"

namespace scx::hca {

namespace qs = prm::qpc_state;
namespace ctl = prm::wqe_ctrl_seg;

// Packets a port's receive ring holds: frames the wire lends it (a
// burst of READ responses at the smallest path MTU from a peer with many
// READs outstanding), of which the in-kernel link's copies are a few.
constexpr u32 rx_pkts = 8192;
constexpr u32 rx_copies = 256;
// Flush CQEs one call writes (flush_queues).
constexpr u32 flush_chunk = 64;

status data_path::init(const dp_deps &d, u32 max_qps, u32 max_cqs)
{
	d_ = d;
	mem_.init(*d.dma, *d.pages, *d.mkeys);
	max_qps_ = max_qps;
	max_cqs_ = max_cqs;
	watch_qp_ = static_cast<u32 *>(alloc_bytes(sizeof(u32) * max_qps));
	watch_cq_ = static_cast<u32 *>(alloc_bytes(sizeof(u32) * max_cqs));
	watch_err_ = static_cast<u32 *>(alloc_bytes(sizeof(u32) * max_qps));
	active_ = static_cast<u32 *>(alloc_bytes(sizeof(u32) * max_qps));
	timed_ = static_cast<u32 *>(alloc_bytes(sizeof(u32) * max_qps));
	if (!watch_qp_ || !watch_cq_ || !watch_err_ || !active_ || !timed_)
		return errc::nomem;
	SCX_TRY(rx_.init(rx_pkts, rx_copies));
	SCX_TRY(kdb_lock_.init(lock_class::hca_dp_kdb));
	return lock_.init(lock_class::hca_dp);
}

data_path::~data_path()
{
	if (slot_ != fabric::none)
		leave();
	free_bytes(watch_qp_);
	free_bytes(watch_cq_);
	free_bytes(watch_err_);
	free_bytes(active_);
	free_bytes(timed_);
}

// slot_ changes under the lock: the data path reads it there.
bool data_path::join(void (*wake)(void *), void *ctx)
{
	lock_guard g(lock_);
	if (slot_ != fabric::none)
		return true;
	wake_ = wake;
	wake_ctx_ = ctx;
	slot_ = fabric::join(this);
	return slot_ != fabric::none;
}

void data_path::leave()
{
	u32 slot;
	{
		lock_guard g(lock_);
		slot = slot_;
		slot_ = fabric::none;
	}
	// Outside the lock: a peer in the middle of a request to this port
	// may need it to finish.
	if (slot != fabric::none)
		fabric::leave(slot);
}

// A peer's request left work here (a QP in error to flush, more WQEs):
// this port's poller may be asleep.
void data_path::wake_poller()
{
	kick();
	wake_rx();
}

void data_path::kernel_doorbell(u32 qpn)
{
	{
		lock_guard g(kdb_lock_);
		bool seen = false;
		for (u32 i = 0; i < kdb_n_ && !seen; i++)
			seen = kdb_[i] == qpn;
		if (!seen && kdb_n_ < kdb_cap)
			kdb_[kdb_n_++] = qpn;
		else if (!seen)
			kdb_over_ = true;
		kdb_pending_.store(1, mo::release);
	}
	wake_rx();
}

// The QPs kernel doorbells named: each gets a turn. Returns how many.
u32 data_path::take_kernel_doorbells()
{
	// Every round asks; only a doorbell since the last one costs the lock.
	if (!kdb_pending_.exchange(0, mo::acq_rel))
		return 0;
	u32 q[kdb_cap];
	u32 n;
	bool over;
	{
		lock_guard g(kdb_lock_);
		n = kdb_n_;
		over = kdb_over_;
		copy_bytes(q, kdb_, n * sizeof(u32));
		kdb_n_ = 0;
		kdb_over_ = false;
	}
	for (u32 i = 0; i < n; i++)
		activate_qpn(q[i]);
	if (over)
		sweep_ = true;
	return n + over;
}

// Packets wait in the receive ring: the poller finds them there (no
// sweep, as a kick would make).
void data_path::wake_rx()
{
	if (wake_)
		wake_(wake_ctx_);
}

dp_stats data_path::stats()
{
	lock_guard g(lock_);
	dp_stats s = stats_;
	s.translation_faults = mem_.translation_faults();
	return s;
}

tp_counters data_path::port_counters()
{
	lock_guard g(lock_);
	tp_counters sum = d_.qps->gone_counters();
	d_.qps->for_each_qpn([&](u32 qpn) {
		qp_runtime *rt = d_.qps->dp_get(qpn);
		if (rt && rt->tp)
			tp_counters_add(sum, rt->tp->cnt);
	});
	return sum;
}

u8 data_path::vendor_err(u8 syndrome)
{
	namespace s = prm::cqe_syndrome;
	switch (syndrome) {
	case s::local_length_err: return 0x68;
	case s::local_qp_op_err: return 0x6a;
	case s::local_prot_err: return 0x56;
	case s::wr_flush_err: return 0xf9;
	case s::remote_inval_req_err: return 0x8a;
	case s::remote_access_err: return 0x88;
	case s::remote_op_err: return 0x89;
	case s::transport_retry_exc_err: return 0x81;
	case s::rnr_retry_exc_err: return 0x82;
	default: return 0;
	}
}

u32 data_path::poll()
{
	return round(no_trap, false, nullptr);
}

u32 data_path::round(u32 trap_uar, bool fresh, bool *left, bool *paced)
{
	bool trapped = trap_uar != no_trap;
	if (halted_.load(mo::acquire))
		return policy_.idle_max_us;
	u64 now = scx_env_now_ns();
	bool more;
	u64 timer;
	lock_guard g(lock_);
	// A pass under way (another writer's, the lock let go) keeps its
	// list: this trap's QPs are then the poller's.
	bool own = trapped && !in_pass_;
	if (own && fresh)
		ntrap_ = 0;
	u32 rung = take_doorbells(own ? trap_uar : no_trap, paced);
	busy_ = false;
	bool work = rung || more_;
	if (sweep_ || rx_.front())
		work = true;
	if (!work && now < next_timer_)
		work = flush_due();
	// A sweep that is merely due is not activity: the poller keeps
	// backing off unless it finds a QP to run.
	bool sweep_due = now - last_sweep_ >= u64(policy_.sweep_us) * 1000;
	u64 visits = stats_.qp_visits;
	if (in_pass_) {
		// A trap's pass let the lock go: it runs what was listed here.
		// Polling meanwhile would only take the lock from it at each
		// packet; the poller looks again shortly.
		more_ = true;
		stats_.polls++;
		return policy_.busy_max_us;
	} else if (work || sweep_due || now >= next_timer_) {
		more_ = false;
		next_timer_ = ~0ull;
		in_pass_ = true;
		trap_ = trapped;
		held_ = &g;
		pass(now);
		held_ = nullptr;
		trap_ = false;
		in_pass_ = false;
	}
	if (stats_.qp_visits != visits)
		work = true;
	more = more_;
	timer = next_timer_;
	if (left)
		*left = more || timer != ~0ull || sweep_;
	if (!busy_)
		busy_sleep_ = 0;
	u32 busy = more && busy_ ? busy_backoff() : 0;
	stats_.polls++;
	// A pass may have let the lock go many times: the sleep is reckoned
	// from when it ended.
	u64 end = scx_env_now_ns();
	stats_.poll_ns += end - now;
	// A trap goes round again (0) only for its own QPs' work. What it
	// found was the writer's to do: the poller need not stay close
	// behind it (it would take a CPU from the writers).
	if (trapped)
		return own && trap_more_ && !busy_ ? 0 : 1;
	if (work) {
		// Close polling would take the CPU from the very writers
		// whose doorbells trap.
		if (!policy_.doorbells_trap || rung)
			last_active_ = end;
		idle_sleep_ = 0;
	}
	return more ? busy : poller_sleep(end, timer);
}

// Every doorbell since the last round, or a trap's on its own page: the
// QP each names gets a turn (and joins the trap's QPs). Returns how many.
u32 data_path::take_doorbells(u32 trap_uar, bool *paced)
{
	// Which QP a doorbell names is only a hint (a later store to the
	// same word replaces it): the QP named gets a turn, and a sweep now
	// and then finds what a replaced store named.
	u32 named = 0;
	auto take = [&](u32 uar, u32 off, u64 v) {
		// The store's 8 bytes as written: the CQ doorbell, or a send
		// WQE's ctrl segment's first 8.
		u8 db[8];
		store_be(db, v);
		if (off == uar_window::watched[0]) {
			note_arm(u32(prm::get(db, prm::cq_doorbell::cqn)));
		} else {
			u32 qpn = u32(prm::get(db, prm::wqe_ctrl_seg::qpn));
			qp_runtime *rt = d_.qps->dp_get(qpn);
			if (rt)
				activate(*rt);
			if (uar == trap_uar) {
				trap_add(qpn);
				if (paced && rt && consumed_since_doorbell(*rt))
					*paced = true;
			}
			named++;
		}
	};
	// A trap's cost does not grow with the pages mapped: another page's
	// stores trap on their own, or (a mapped page) are the poller's.
	u32 rung = trap_uar != no_trap ? d_.uars->drain_one(trap_uar, take) : d_.uars->drain(take);
	if (trap_uar == no_trap)
		rung += take_kernel_doorbells();
	// A kick names nothing (a peer's request): a sweep finds its QP.
	if (kicked_.exchange(0, mo::acq_rel)) {
		rung++;
		if (!named)
			sweep_ = true;
	}
	stats_.doorbells += rung;
	return rung;
}

// A CQ arm doorbell named cqn: the next pass reads its arm word.
void data_path::note_arm(u32 cqn)
{
	for (u32 i = 0; i < narm_; i++)
		if (arm_cqs_[i] == cqn)
			return;
	if (narm_ < arm_max)
		arm_cqs_[narm_++] = cqn;
	else
		arm_all_ = true;
}

// How long the poller may sleep after a round that left no work: closely
// after activity, then backing off; never past the next timer.
u32 data_path::poller_sleep(u64 end, u64 timer)
{
	u64 since_us = end > last_active_ ? (end - last_active_) / 1000 : 0;
	u32 s;
	if (since_us < policy_.active_us) {
		s = policy_.active_sleep_us;
	} else {
		idle_sleep_ = idle_sleep_ ? idle_sleep_ * 2 : policy_.idle_us;
		if (idle_sleep_ > policy_.idle_max_us)
			idle_sleep_ = policy_.idle_max_us;
		s = idle_sleep_;
	}
	if (timer != ~0ull) {
		u64 left_us = timer > end ? (timer - end) / 1000 : 0;
		if (left_us < s)
			s = left_us ? u32(left_us) : 1;
	}
	return s;
}

bool data_path::ring(u32 uar, bool *paced)
{
	// A round can leave one more for what it caused (arm words after the
	// CQEs it wrote, flushes after an error): run those here too, so an
	// event does not wait for the poller.
	bool left = false;
	u32 s = round(uar, true, &left, paced);
	for (u32 i = 0; !s && i < 4; i++)
		s = round(uar, false, &left);
	return left;
}

// Called under lock_ for a round that left work because a peer port was
// locked: the delay before the next try, doubling from busy_us while the
// peer stays locked, reset by a round that was not held up.
u32 data_path::busy_backoff()
{
	busy_sleep_ = busy_sleep_ ? busy_sleep_ * 2 : policy_.busy_us;
	if (busy_sleep_ > policy_.busy_max_us)
		busy_sleep_ = policy_.busy_max_us;
	return busy_sleep_;
}

void data_path::settle()
{
	// A pass the command came between finishes the work.
	if (in_pass_)
		return;
	more_ = false;
	next_timer_ = ~0ull;
	sweep_ = true;
	pass(scx_env_now_ns());
}

void data_path::stay_active()
{
	lock_guard g(lock_);
	last_active_ = scx_env_now_ns();
	idle_sleep_ = 0;
}

u32 data_path::uar_stores(u32 uar)
{
	lock_guard g(lock_);
	return d_.uars->stores(uar);
}

// A QP in ERR with WQEs beyond what was consumed needs a flush (and one on
// an SRQ its LAST_WQE_REACHED event), though no doorbell says so: 2ERR by
// command, a receive posted while in ERR.
bool data_path::flush_due()
{
	rebuild_watch();
	for (u32 i = 0; i < nerr_; i++) {
		qp_runtime *rt = d_.qps->dp_get(watch_err_[i]);
		if (!rt || rt->state != qs::err)
			continue;
		// The transport's window still holds WQEs to flush.
		if (rt->tp && !rt->tp->in_error)
			return true;
		if (rt->rq_type == prm::qp_rq_type::srq && !rt->last_wqe)
			return true;
		u32 v;
		if (rt->sq_wqebbs && read_dbr(rt->dbr_addr, prm::qp_dbrec::snd_counter.byte_off, &v) &&
		    u16(v) != rt->sq_ci)
			return true;
		if (rt->rq_type == prm::qp_rq_type::non_zero && rt->rq_wqes &&
		    read_dbr(rt->dbr_addr, prm::qp_dbrec::rcv_counter.byte_off, &v) && u16(v) != rt->rq_ci)
			return true;
	}
	return false;
}

void data_path::rebuild_watch()
{
	if (qp_epoch_ != d_.qps->epoch()) {
		nqp_ = 0;
		d_.qps->for_each_qpn([&](u32 qpn) {
			if (nqp_ < max_qps_)
				watch_qp_[nqp_++] = qpn;
		});
		qp_epoch_ = d_.qps->epoch();
	}
	// The QPs in ERR: few, looked at on every poll.
	if (err_epoch_ != d_.qps->state_epoch() + err_changes_ || qp_epoch_ != seen_qp_epoch_for_err_) {
		nerr_ = 0;
		for (u32 i = 0; i < nqp_; i++) {
			qp_runtime *rt = d_.qps->dp_get(watch_qp_[i]);
			if (rt && rt->state == qs::err)
				watch_err_[nerr_++] = watch_qp_[i];
		}
		err_epoch_ = d_.qps->state_epoch() + err_changes_;
		seen_qp_epoch_for_err_ = qp_epoch_;
	}
	if (cq_epoch_ != d_.cqs->epoch()) {
		ncq_ = 0;
		d_.cqs->for_each_cqn([&](u32 cqn) {
			if (ncq_ < max_cqs_)
				watch_cq_[ncq_++] = cqn;
		});
		cq_epoch_ = d_.cqs->epoch();
	}
}

bool data_path::read_dbr(u64 addr, u32 off, u32 *v)
{
	if (!addr || (addr & 3))
		return false;
	const u32 *p = static_cast<const u32 *>(d_.dma->map(addr + off, 4));
	if (!p)
		return false;
	*v = be_to_cpu(read_once(*p));
	// WQEs written before the counter are visible after it.
	fence(mo::acquire);
	return true;
}

bool data_path::fetch_wqe(qp_runtime &rt, u16 idx, u8 *buf, u32 *ds, bool *unreadable)
{
	using prm::sq_geom::ds_unit;
	using prm::sq_geom::wqebb;
	u64 ring = u64(rt.sq_wqebbs) * wqebb;
	if (!ring || (rt.sq_wqebbs & (rt.sq_wqebbs - 1)))
		return false;
	u64 start = u64(idx & (rt.sq_wqebbs - 1)) * wqebb;
	// len bytes from `from` on in the ring, a translation per page run
	// (wrapping at the ring's end).
	auto copy = [&](u32 from, u8 *dst, u32 len) {
		while (len) {
			u64 bus;
			u32 n = d_.qps->sq_span(rt, (start + from) % ring, len, &bus);
			if (!n)
				return false;
			const u8 *p = static_cast<const u8 *>(d_.dma->map(bus, n));
			if (!p) {
				if (unreadable)
					*unreadable = true;
				return false;
			}
			copy_bytes(dst, p, n);
			dst += n;
			from += n;
			len -= n;
		}
		return true;
	};
	// The first WQEBB is the WQE's whatever its size: its ctrl segment
	// says how much more.
	if (!copy(0, buf, wqebb))
		return false;
	u32 n = prm::get(buf, ctl::ds);
	if (!n || n * ds_unit > sizeof(wqe_) || n * ds_unit > ring)
		return false;
	if (n * ds_unit > wqebb && !copy(wqebb, buf + wqebb, n * ds_unit - wqebb))
		return false;
	*ds = n;
	return true;
}

void data_path::enter_err(qp_runtime &rt)
{
	rt.state = qs::err;
	rt.generation++;
	err_changes_++;
	more_ = true;
}

void data_path::qp_event(qp_runtime &rt, u8 type)
{
	// A DCT context is no QP its owner knows of: nothing to report.
	if (rt.dctn)
		return;
	u8 data[prm::eqe::event_data.size] = {};
	prm::set(data, prm::eqe_qp_srq::type, prm::event_queue_type::qp);
	prm::set(data, prm::eqe_qp_srq::number, rt.qpn);
	d_.eqs->post_event(type, 0, data);
}

void data_path::srq_event(u32 srqn, u8 type)
{
	u8 data[prm::eqe::event_data.size] = {};
	prm::set(data, prm::eqe_qp_srq::number, srqn);
	d_.eqs->post_event(type, 0, data);
}

// The WQEs of a QP in ERR that the engine never took: a flush CQE each,
// and on an SRQ the LAST_WQE_REACHED event. At most flush_chunk of them
// a call: a long queue is flushed over several turns, between which the
// lock may go (the QP in ERR is looked at every pass until done).
void data_path::flush_queues(qp_runtime &rt)
{
	u32 budget = flush_chunk;
	u32 v;
	if (!read_dbr(rt.dbr_addr, prm::qp_dbrec::rcv_counter.byte_off, &v))
		return;
	u16 rq_pi = u16(v);
	if (!read_dbr(rt.dbr_addr, prm::qp_dbrec::snd_counter.byte_off, &v))
		return;
	u16 sq_pi = u16(v);
	if (rt.sq_wqebbs) {
		for (; rt.sq_ci != sq_pi && budget; budget--) {
			u32 ds = 0;
			u16 idx = rt.sq_ci;
			u8 op = 0;
			u16 nbb = 1; // an unreadable WQE: one WQEBB, as the engine took it
			if (u16(sq_pi - idx) > rt.sq_wqebbs) {
				nbb = u16(sq_pi - idx);
			} else if (fetch_wqe(rt, idx, wqe_, &ds, nullptr)) {
				op = u8(prm::get(wqe_, ctl::opcode));
				nbb = u16((ds * prm::sq_geom::ds_unit + prm::sq_geom::wqebb - 1) / prm::sq_geom::wqebb);
			}
			err_cqe(rt, rt.cqn_snd, prm::cqe_opcode::req_err, prm::cqe_syndrome::wr_flush_err, idx, op);
			rt.sq_ci = u16(idx + nbb);
		}
		if (rt.sq_ci != sq_pi) {
			more_ = true;
			return;
		}
	}
	if (rt.rq_type == prm::qp_rq_type::srq && !rt.last_wqe) {
		// Nothing more will be taken from the SRQ for this QP.
		rt.last_wqe = 1;
		qp_event(rt, prm::event_type::srq_last_wqe);
	}
	if (rt.rq_type == prm::qp_rq_type::non_zero && rt.rq_wqes) {
		// Receives complete in order: the driver takes wr_id from its tail.
		for (; rt.rq_ci != rq_pi && budget; budget--) {
			err_cqe(rt, rt.cqn_rcv, prm::cqe_opcode::resp_err, prm::cqe_syndrome::wr_flush_err, rt.rq_ci, 0);
			rt.rq_ci++;
		}
		if (rt.rq_ci != rq_pi)
			more_ = true;
	}
}

void data_path::post(u32 cqn, u8 *cqe, bool solicited, bool error)
{
	cqe_result r = d_.cqs->post_cqe(cqn, cqe, solicited || error);
	if (r == cqe_result::posted) {
		stats_.cqes++;
		if (error)
			stats_.error_cqes++;
	}
}

void data_path::req_cqe(qp_runtime &rt, u16 idx, u8 op, u32 byte_cnt)
{
	u8 e[prm::cqe64::size_bytes] = {};
	prm::set(e, prm::cqe64::opcode, prm::cqe_opcode::req);
	prm::set(e, prm::cqe64::sop, op);
	prm::set(e, prm::cqe64::qpn, cqe_qpn(rt));
	prm::set(e, prm::cqe64::wqe_counter, idx);
	prm::set(e, prm::cqe64::user_index, rt.user_index);
	prm::set(e, prm::cqe64::byte_cnt, byte_cnt);
	post(rt.cqn_snd, e, false, false);
}

void data_path::err_cqe(qp_runtime &rt, u32 cqn, u8 opcode, u8 syndrome, u16 counter, u8 wqe_op)
{
	u8 e[prm::err_cqe::size_bytes] = {};
	prm::set(e, prm::err_cqe::syndrome, syndrome);
	prm::set(e, prm::err_cqe::vendor_err_synd, vendor_err(syndrome));
	prm::set(e, prm::err_cqe::wqe_opcode, wqe_op);
	prm::set(e, prm::err_cqe::qpn, cqe_qpn(rt));
	prm::set(e, prm::err_cqe::wqe_counter, counter);
	prm::set(e, prm::cqe64::user_index, rt.user_index);
	prm::set(e, prm::cqe64::opcode, opcode);
	post(cqn, e, false, true);
	if (d_.counters)
		count_error_cqe(*d_.counters, rt.counter_set_id, opcode == prm::cqe_opcode::req_err, syndrome);
}

} // namespace scx::hca
