// SPDX-License-Identifier: GPL-2.0
// The data path: what a ConnectX does between doorbells and completions.
//
// libmlx5 posts work without entering the kernel: it writes WQEs into the
// QP's buffer, bumps the doorbell record and stores the first 8 bytes of
// the WQE into its UAR page. The data path watches the UAR pages
// (uar_window); a doorbell gives the QP it names a turn, in which the
// transport engine (tp.h) sends its WQEs as RoCEv2 packets through a link:
// into the receive ring of this port or of another softcx port of this
// kernel (dp_link.cpp), or onto the netdev (dp_wire.cpp). Packets taken
// from the ring give their QP a turn too; dp_tp.cpp is the engine's view
// of mlx5's WQEs, receive queues, memory keys and CQEs, dp_sched.cpp who
// gets a turn and when. CQ arm requests come from the arm word of the
// CQ's doorbell record.
//
// One lock covers the data path's view of QPs, CQs, SRQs and keys; every
// command that changes them takes it too. A pass lets it go between
// packets (relax()), so neither a command nor an interrupt waits behind
// more than about one packet's copying.
#pragma once

#include "hca/cq.h"
#include "hca/dp_mem.h"
#include "hca/dp_ring.h"
#include "hca/eq.h"
#include "hca/fabric.h"
#include "hca/mkey.h"
#include "hca/q_counters.h"
#include "hca/qp.h"
#include "hca/srq.h"
#include "hca/tp.h"
#include "hca/uar_window.h"
#include "hca/vport.h"
#include "lib/sync.h"

namespace scx::hca {

class dct_table;

struct dp_deps {
	bus::dma_space *dma;
	fw_pages *pages;
	qp_table *qps;
	cq_engine *cqs;
	srq_table *srqs;
	mkey_table *mkeys;
	uar_window *uars;
	eq_engine *eqs;
	const vport *port;   // its RoCE address table: source GIDs
	q_counter_sets *counters; // Q counter sets the QPs count into
	dct_table *dcts;     // DC targets, whose contexts are QPs of qps
};

struct dp_stats {
	u64 passes;
	u64 wqes;
	u64 bytes;
	u64 cqes;
	u64 error_cqes;
	u64 rnr_naks;
	u64 retries;
	u64 doorbells;
	u64 polls;
	u64 poll_ns;     // time spent in poll()
	u64 peer_requests; // requests answered by another port's responder
	u64 peer_busy;     // ... put off because that port was busy
	u64 translation_faults; // accesses past the MTT entries a key was given
	// The transport.
	u64 rx_pkts;       // packets taken from the receive ring
	u64 rx_no_qp;      // ... for no QP that could take them
	u64 rx_bad_pkey;   // ... with another partition's P_Key (the QPs' bad_pkey)
	u64 rx_malformed;  // ... with no valid header for their QP (its malformed)
	u64 rx_bad_qkey;   // ... datagrams with another Q_Key (the QPs' bad_qkey)
	u64 rx_dc_dropped; // DC requests a DCT refused (not active, wrong key, no context, malformed)
	u64 dc_connects;   // DCT contexts given to an initiator
	u64 tx_lost;       // sent to an address no port has, or a full ring
	u64 tx_by_ref;     // packets whose payload stayed in the requester's memory
	u64 rx_stale_ref;  // ... dropped: the message they named was gone
	u64 qp_visits;     // turns a QP got (named by a doorbell, a packet, a timer)
	u64 sweeps;        // looks at every QP's doorbell record
	u64 arm_reads;     // CQ arm words read
};

// The RoCEv2 link on the port's netdev (dp_wire.cpp).
struct dp_wire_stats {
	u64 tx_frames, tx_bytes;
	u64 rx_frames, rx_bytes;    // taken for this port's data path
	u64 rx_bad_ip;              // dropped: IP header (checksum, length, fragment)
	u64 rx_bad_udp;             // dropped: UDP length, or too short for BTH and ICRC
	u64 rx_bad_icrc;            // dropped: ICRC
	u64 rx_ring_full;           // dropped: the data path is behind
	u64 tx_link_full;           // sends refused (each try): the netdev's queue was full
};

// Hands a whole Ethernet frame to the netdev: called with locks held, so
// it copies and never sleeps.
using wire_xmit_fn = void (*)(void *ctx, const u8 *frame, u32 len);
// Gives back a frame the wire lent the receive ring (wire_rx_result::held).
using wire_release_fn = void (*)(void *ctx, void *frame);
// What became of a received frame.
enum class wire_rx_result : u8 {
	pass,     // not a RoCEv2 packet for this port: the host stack's
	dropped,  // this port's, malformed or no room: counted; the caller frees it
	held,     // in the receive ring; given back through wire_release_fn
};

class data_path;

// The data path's side of the transport engine: WQEs, memory, receive
// queues and completions in mlx5's formats (dp_tp.cpp).
class dp_tp_ops final : public tp_ops {
public:
	explicit dp_tp_ops(data_path &dp) : dp_(dp) {}
	tp_fetch fetch_wqe(tp_qp &q, tp_send_wr *wr) override;
	bool gather(tp_qp &q, const tp_send_wr &wr, u32 off, u8 *dst, u32 len) override;
	bool scatter(tp_qp &q, const tp_send_wr &wr, u32 off, const u8 *src, u32 len) override;
	void complete(tp_qp &q, const tp_send_wr &wr, u8 syndrome) override;
	u8 run_local(tp_qp &q, const tp_send_wr &wr) override;
	tp_recv recv_take(tp_qp &q, u32 *handle, u32 *cap) override;
	bool recv_scatter(tp_qp &q, u32 handle, u32 off, const tp_payload &src, u32 len) override;
	void recv_complete(tp_qp &q, u32 handle, const tp_recv_done &d) override;
	u8 remote_check(tp_qp &q, u32 rkey, u64 va, u32 len, u8 access) override;
	u8 remote_write(tp_qp &q, u32 rkey, u64 va, const tp_payload &src, u32 len) override;
	u8 remote_read(tp_qp &q, u32 rkey, u64 va, u8 *dst, u32 len) override;
	u8 remote_atomic(tp_qp &q, const ib_hdr &h, u64 *orig) override;
	bool invalidate(tp_qp &q, u32 rkey) override;
	void established(tp_qp &q) override;
	void fatal(tp_qp &q, tp_fatal why) override;
	void schedule(tp_qp &q) override;
	void note(tp_qp &q, tp_note n) override;

private:
	data_path &dp_;
};

// The in-kernel link: a packet goes into the receive ring of the port
// whose address table holds its destination GID (dp_link.cpp).
class dp_link final : public tp_link {
public:
	explicit dp_link(data_path &dp) : dp_(dp) {}
	u8 *tx_begin(tp_qp &q, const void *route, u32 len) override;
	void tx_commit(tp_qp &q) override;
	// Only into this port's own ring, for RC, a WQE with no inline data.
	bool tx_ref(tp_qp &q, const tp_send_wr &wr, const tp_payload_ref &r) override;
	// Gives back the ring room of a tx_begin the engine did not commit
	// (after each call into the engine: the ring waits for it).
	void settle();

	// Bytes before the IB part in data_path::tx_buf_: room for the
	// widest RoCEv2 headers (Ethernet, IPv6, UDP).
	static constexpr u32 wire_room = 14 + 40 + 8;

private:
	void wire_commit(tp_qp &q);
	u8 *reserve(tp_qp &q, u32 len);

	data_path &dp_;
	data_path *to_ = nullptr;  // whose ring holds the packet being built
	u32 ticket_ = 0;           // ... and its entry there
	u32 len_ = 0;
	u32 slot_ = 0;            // where tx_begin routed the packet
	bool wire_ = false;       // ... onto the netdev
	bool by_ref_ = false;     // ... with its payload named by ref_
	tp_payload_ref ref_{};
	const void *route_ = nullptr;
};

// How often the poller looks after activity, and how far it backs off.
struct dp_policy {
	u32 active_us = 2000;    // after work, poll every active_sleep_us for this long
	u32 active_sleep_us = 2;
	// Doorbells trap (the writer runs its work and wakes the poller if
	// it left some): only a doorbell the poller found in memory, on a
	// page mapped while it streams, means more may land unseen, and
	// starts the close polling above. Packets and timers wake it anyway.
	bool doorbells_trap = false;
	u32 idle_us = 1000;      // then this, doubling up to idle_max_us
	u32 idle_max_us = 16000;
	// A round that found a peer port's lock taken: retry after this,
	// doubling while it stays taken. Never at once: on PREEMPT_RT the
	// holder may be a task this poller preempted (a real-time poller that
	// spins would starve it).
	u32 busy_us = 2;
	u32 busy_max_us = 256;
	// The packet transport visits only QPs named by doorbells, packets
	// and timers; a doorbell store overwritten by another QP's on the
	// same page before it was seen is found by a sweep this often.
	u32 sweep_us = 10000;
	// The packet transport's pass lets the lock go (relax()) once it has
	// held it this long, between two packets; 0: after every packet. By
	// time, not by count: a lock operation costs tens of packets under
	// lockdep and KASAN, one on a production kernel.
	u32 hold_us = 20;
	// An RC packet to a QP of this port names its payload (of at least
	// tp_ref_min bytes) rather than carrying it: the responder copies
	// from the requester's memory, one copy instead of two.
	bool payload_ref = true;
};

class data_path {
public:
	data_path() = default;
	~data_path();
	data_path(const data_path &) = delete;
	data_path &operator=(const data_path &) = delete;

	status init(const dp_deps &d, u32 max_qps, u32 max_cqs);
	void set_policy(const dp_policy &p) { policy_ = p; }
	dp_policy policy() const { return policy_; }

	// Joins the fabric: other joined ports reach this one by the GIDs in
	// its address table. wake(ctx) is called (locks held: it must not
	// sleep) when a peer left work for this port's poller. false: every
	// slot is taken.
	bool join(void (*wake)(void *), void *ctx);
	// Leaves it, once no peer is in the middle of using this port
	// (process context). Also done by the destructor.
	void leave();

	// Held by commands that change or free what the data path uses.
	spinlock &lock() { return lock_; }
	// Under lock(), by a command that may have changed keys or queues: a
	// pass that let the lock go in between resolves again what it cached.
	void command_ran() { forget_lists(); }

	// One round: doorbells, due timers, the work they reveal. Returns the
	// microseconds the caller may sleep before the next round (0: none).
	u32 poll();
	// Something changed that only a sweep finds (a peer's request).
	void kick() { kicked_.store(1, mo::release); }
	// A send doorbell of a kernel-owned QP, written through BAR0 (any
	// context, never sleeps): the QP it names gets a turn in the
	// poller's next round, and the poller is woken.
	void kernel_doorbell(u32 qpn);
	// The firmware died: no round does anything from now on.
	void halt() { halted_.store(1, mo::release); }
	// A store to UAR page uar landed (the writer trapped on it): run a
	// round now, in the writer's context, as a device starts on a
	// doorbell the moment it crosses the bus, for the QPs that page's
	// doorbells name and their loopback peers only. Work it leaves (other
	// QPs', timers, RNR waits, sweeps) is the poller's: true if there is
	// some, so the poller should be woken. *paced (if given): a QP the
	// page's store names had a completion consumed since its last one.
	bool ring(u32 uar, bool *paced = nullptr);
	// Under lock(), from a command: run the work posted so far (a pass as
	// a doorbell would start).
	void settle();
	// Stores will land in a UAR page without trapping: poll closely.
	void stay_active();
	// uar_window::stores() under the lock.
	u32 uar_stores(u32 uar);

	dp_stats stats();

	// The RoCEv2 link (dp_wire.cpp). Once attached, what no softcx port
	// of this kernel owns goes to xmit; frames wire_rx() held go back
	// through release. detach() returns once no xmit call is running or
	// can start, with every held frame given back (the packets waiting
	// are lost); wire_rx() must not be called from then on.
	void attach_wire(wire_xmit_fn xmit, wire_release_fn release, void *ctx);
	void detach_wire();
	// The netdev's send queue is full (false) or has room again (true):
	// while full, nothing is sent to the wire; the engines wait, as a
	// NIC's send queues wait for its port, and lose nothing.
	void wire_ready(bool ready) { wire_ready_.store(ready, mo::release); }
	// A frame from the netdev, from its Ethernet header (any context,
	// e.g. the receive softirq; it only queues). When held, the packet
	// is read from frame in place until frame_ref goes back through the
	// release function.
	wire_rx_result wire_rx(const u8 *frame, u32 len, void *frame_ref);
	dp_wire_stats wire_stats() const;
	// The port's transport counters: every QP's, destroyed ones' too.
	tp_counters port_counters();
	// Each QP's transport counters, under the lock (fn must not sleep).
	template <typename F> void for_each_tp(F fn)
	{
		lock_guard g(lock_);
		d_.qps->for_each_qpn([&](u32 qpn) {
			qp_runtime *rt = d_.qps->dp_get(qpn);
			if (rt && rt->tp)
				fn(*rt, rt->tp->cnt);
		});
	}

	// vendor_err_synd values a ConnectX reports with each syndrome.
	static u8 vendor_err(u8 syndrome);

private:
	friend class dp_tp_ops;
	friend class dp_link;

	// One round, for the poller or (trap_uar a UAR index) for a writer
	// that trapped on that page; fresh: the trap's first round. *left (if
	// given): work or timers remain for the poller after it.
	static constexpr u32 no_trap = ~0u;
	u32 round(u32 trap_uar, bool fresh, bool *left, bool *paced = nullptr);
	u32 take_doorbells(u32 trap_uar, bool *paced);
	bool consumed_since_doorbell(qp_runtime &rt);
	void note_arm(u32 cqn);
	u32 poller_sleep(u64 end, u64 timer);
	u32 busy_backoff();
	void rebuild_watch();
	bool read_dbr(u64 addr, u32 off, u32 *v);
	bool fetch_wqe(qp_runtime &rt, u16 idx, u8 *buf, u32 *ds, bool *unreadable);
	bool flush_due();
	void qp_event(qp_runtime &rt, u8 type);
	void srq_event(u32 srqn, u8 type);
	// The port whose address table holds gid (dp_link.cpp); false: it
	// could not be asked now.
	static constexpr u32 unreachable = fabric::none - 1;
	bool route(qp_runtime &rt, const u8 *gid, u32 *slot);
	bool take_recv(qp_runtime &dst, sg_list &l, u16 *counter, mem_fault *f, bool commit);
	bool read_recv(qp_runtime &dst, u32 handle, sg_list &l, mem_fault *f);
	void enter_err(qp_runtime &rt);
	// A UMR WQE (window bind / invalidate): 0 or its syndrome.
	u8 umr(qp_runtime &rt, const u8 *w, u32 end);
	static u8 umr_rights(u64 mask, const u8 *mkey_seg, u8 access);
	// A UMR WQE on a fast-registration key (REG_MR / LOCAL_INV).
	u8 umr_mr(qp_runtime &rt, const u8 *w, u32 end, mkey_ctx &mr);
	bool umr_xlt(qp_runtime &rt, const u8 *w, u32 at, u32 end, bool inl, u32 n, mkey_ctx &mr);
	bool remote_invalidate(qp_runtime &dst, u32 key);
	void post(u32 cqn, u8 *cqe, bool solicited, bool error);
	void req_cqe(qp_runtime &rt, u16 idx, u8 op, u32 byte_cnt);
	void err_cqe(qp_runtime &rt, u32 cqn, u8 opcode, u8 syndrome, u16 counter, u8 wqe_op);
	// The 40 bytes a UD receive starts with; l4: the UDP length.
	void write_grh(const u8 *av, const u8 *sgid, u32 l4, u8 *grh);
	void wake_poller();
	void wake_rx();
	u32 take_kernel_doorbells();
	// One event into the Q counter set of rt (this device's sets).
	void count(const qp_runtime &rt, qc c)
	{
		if (d_.counters)
			d_.counters->add(rt.counter_set_id, c);
	}

	dp_deps d_{};
	mem_resolver mem_;
	dp_policy policy_{};
	spinlock lock_;
	atomic<u32> kicked_{0};
	// QPNs named by kernel doorbells since the last round; more than fit
	// make a sweep. Its own lock: the writer may hold locks of its own
	// (a caller of post_send with interrupts off) and must not wait for
	// a pass.
	static constexpr u32 kdb_cap = 64;
	spinlock kdb_lock_;
	u32 kdb_[kdb_cap] = {};
	u32 kdb_n_ = 0;
	bool kdb_over_ = false;
	atomic<u32> kdb_pending_{0};  // the list has news: a round takes the lock
	atomic<u32> halted_{0};
	dp_stats stats_{};
	bool busy_ = false;      // this round found a peer port locked
	u32 busy_sleep_ = 0;     // the retry delay while that goes on
	u32 slot_ = fabric::none;   // on the fabric
	void (*wake_)(void *) = nullptr;
	void *wake_ctx_ = nullptr;

	// Dense lists of live QPs and CQs, rebuilt when the tables change.
	u32 *watch_qp_ = nullptr;
	u32 *watch_cq_ = nullptr;
	u32 nqp_ = 0, ncq_ = 0, max_qps_ = 0, max_cqs_ = 0;
	u32 qp_epoch_ = ~0u, cq_epoch_ = ~0u;
	// The QPs in ERR, rebuilt when a command or the data path changes a
	// QP's state.
	u32 *watch_err_ = nullptr;
	u32 nerr_ = 0;
	u32 err_epoch_ = ~0u, err_changes_ = 0, seen_qp_epoch_for_err_ = ~0u;

	bool more_ = false;        // work left over from the last pass
	u64 next_timer_ = ~0ull;   // earliest RNR / retry deadline
	u64 last_active_ = 0;
	u32 idle_sleep_ = 0;

	// The WQE being fetched, and a responder's remote range (one pass at
	// a time).
	u8 wqe_[1024];
	sg_list remote_;
	sg_list xlt_l_;   // a UMR's translation list, read from memory

	// Turns, packets and their engine (dp_tp.cpp, dp_link.cpp, dp_sched.cpp).
	void pass(u64 now);
	bool visit(u32 qpn);
	bool visit_one(u32 qpn, bool first);
	void relax();
	void relax_every(u32 i);
	void activate(qp_runtime &rt);
	void activate_qpn(u32 qpn);
	void track_timer(qp_runtime &rt);
	void sweep();
	void run_timers();
	bool drain_rx(u32 budget);
	bool rx_one();
	bool resolve_ref(const dp_rx_pkt &p, tp_rx_meta *m);
	bool copy_payload(const sg_list &dst, u32 dst_off, const tp_payload &src, u32 len);
	// DC targets (dp_dc.cpp).
	bool dc_target(const dp_rx_pkt &p, u32 dctn, qp_runtime **out);
	qp_runtime *dc_context(dct_runtime &t, const u8 *gid, u32 dci, bool connect);
	void dc_key_violation(dct_runtime &t);
	// The cached WQE and lists are resolved again at their next use.
	void forget_lists() { wqe_qpn_ = list_qpn_ = rcv_qpn_ = ~0u; }
	void flush(qp_runtime &rt);
	void flush_queues(qp_runtime &rt);
	// A trap's pass (dp_sched.cpp): the QPs it may run.
	bool trap_has(u32 qpn) const;
	void trap_add(u32 qpn);
	bool trap_takes(const dp_rx_pkt &p);
	bool trap_owes();
	void pass_lists();
	u32 next_turn();
	u8 parse_wqe(qp_runtime &rt, const u8 *w, u32 ds, tp_send_wr *wr);
	u8 wr_list(qp_runtime &rt, const tp_send_wr &wr, const u8 **inl, u32 *inl_len);
	bool recv_list(qp_runtime &rt, u32 handle);
	bool resolve_remote(qp_runtime &rt, u32 rkey, u8 access, u64 va, u32 len);
	bool fetch_again(qp_runtime &rt, u16 idx, u32 *ds);

	// A pass lets the lock go between packets
	// (relax()): held_ is the round's guard, in_pass_ keeps a second
	// pass from starting meanwhile (a round that finds one running only
	// lists what its doorbells name).
	lock_guard *held_ = nullptr;
	// The pass's clock, read again each time the lock was let go: a
	// timer armed from the time the pass began would fire early (the
	// pass may last longer than an ACK timeout).
	u64 now_ = 0;
	u64 hold_since_ = 0;   // when the pass last took the lock
	bool in_pass_ = false;
	// Packets handled since the lock was last let go: relax() lets it go
	// only after work, not at every step of a pass that did none.
	u32 debt_ = 0;
	// QPs with work, in the order they got it (a FIFO of QPNs), and QPs
	// with a timer armed; a sweep is due (a command changed QP states,
	// a kick without a QPN) or was last made at last_sweep_.
	u32 *active_ = nullptr;
	u32 active_head_ = 0, active_n_ = 0;
	u32 *timed_ = nullptr;
	u32 ntimed_ = 0;
	// A trap's pass runs only the QPs its UAR page's doorbells named and
	// the loopback peers their packets reach (up to trap_max; more is
	// left to the poller). trap_more_: it stopped with some of their
	// work left.
	static constexpr u32 trap_max = 16;
	u32 trap_qps_[trap_max];
	u32 ntrap_ = 0;
	// The CQs whose arm doorbells were taken since the last pass: a
	// trap's pass reads only their arm words (all of them once more
	// were named than fit), the poller's reads every CQ's.
	static constexpr u32 arm_max = 16;
	u32 arm_cqs_[arm_max];
	u32 narm_ = 0;
	bool arm_all_ = false;
	bool trap_ = false;
	bool trap_more_ = false;
	bool sweep_ = true;
	u32 sweep_epoch_ = ~0u;
	u64 last_sweep_ = 0;
	dp_tp_ops tp_ops_{*this};
	dp_link link_{*this};
	transport engine_{tp_ops_, link_};
	dp_ring rx_;
	// The lists last resolved, valid within one pass (no key changes
	// while the lock is held): the gather list of WQE list_idx_ of QP
	// list_qpn_, the receive WQE rcv_handle_ of rcv_qpn_.
	sg_list wr_l_, rcv_l_;
	// The payload of the packet taken by reference (resolve_ref): the
	// requester's bytes as mapped pieces, or none (more than fit) and
	// wr_l_ is copied from.
	static constexpr u32 ref_pieces_max = 4;
	mem_piece ref_pieces_[ref_pieces_max];
	u32 ref_n_ = 0;
	u32 list_qpn_ = ~0u, list_idx_ = 0, rcv_qpn_ = ~0u, rcv_handle_ = 0;
	// Which WQE wqe_ holds (the one being fetched).
	u32 wqe_qpn_ = ~0u, wqe_idx_ = 0;
	u8 wqe2_[1024];
	u8 tx_buf_[dp_link::wire_room + dp_ring::max_pkt];

	// The RoCEv2 link: xmit is set and read under lock_; the counters
	// are kept by the receive softirq too.
	wire_xmit_fn wire_xmit_ = nullptr;
	wire_release_fn wire_release_ = nullptr;
	void *wire_ctx_ = nullptr;
	u16 wire_ip_id_ = 0;
	struct {
		atomic<u64> rx_frames, rx_bytes, rx_bad_ip, rx_bad_udp, rx_bad_icrc, rx_ring_full;
	} wire_rx_{};
	u64 wire_tx_frames_ = 0, wire_tx_bytes_ = 0, wire_tx_full_ = 0;
	atomic<bool> wire_ready_{true};
};

} // namespace scx::hca
