// SPDX-License-Identifier: GPL-2.0
// What one send WQE does: the requester parses and checks it, hands a
// request to the responder QP and acts on the answer (ACK, RNR NAK, NAK,
// nothing) as RC, UC or UD transport prescribes. The responder is reached
// through deliver(): the target QP on this port, or on the fabric port
// whose address table holds the destination GID, whose respond() runs
// under that port's lock; a wire (RoCEv2) backend would carry the same
// request and answer as packets.
#include "hca/dp.h"

#include "prm/cq.h"
#include "prm/eq.h"
#include "prm/qp.h"
#include "prm/srq.h"
#include "prm/wqe.h"

namespace scx::hca {

namespace qs = prm::qpc_state;
namespace qst = prm::qpc_st;
namespace ctl = prm::wqe_ctrl_seg;
namespace op = prm::wqe_op;
namespace sy = prm::cqe_syndrome;

namespace {

constexpr u64 ns_per_us = 1000;

// IBTA min_rnr_timer encoding, in units of 10 us (0 means 655.36 ms).
constexpr u32 rnr_timer_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
};

// Local ACK timeout: 4.096 us << t; 0 means none (wait, retry every second).
u64 ack_timeout_ns(u8 t)
{
	if (!t || t > 31)
		return 1000000000ull;
	return 4096ull << t;
}

u32 mtu_bytes(u8 mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128u << mtu : 4096u;
}

bool is_ready(const qp_runtime &q)
{
	return q.state == qs::rtr || q.state == qs::rts || q.state == qs::sqd;
}

u16 ip_checksum(const u8 *h, u32 len)
{
	u32 sum = 0;
	for (u32 i = 0; i < len; i += 2)
		sum += u32(h[i]) << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return u16(~sum);
}

} // namespace

data_path::outcome data_path::execute(qp_runtime &rt, const u8 *w, u32 ds, u64 now)
{
	const u32 end = ds * prm::sq_geom::ds_unit;
	u32 pos = ctl::size_bytes;
	const u8 opc = u8(prm::get(w, ctl::opcode));
	auto fail = [](u8 s) { return outcome{verdict::error, s, 0}; };

	if (prm::get(w, ctl::qpn) != rt.qpn || prm::get(w, ctl::opmod))
		return fail(sy::local_qp_op_err);
	// The ACK timeout of an unanswered attempt expired with no retries
	// left (retry_cnt counts retries, not attempts): fail without
	// sending again. A timeout of 0 waits forever.
	if (rt.st == qst::rc && rt.waiting == 2 && !rt.retry_left && rt.path.ack_timeout)
		return fail(sy::transport_retry_exc_err);
	// Its timer expired with retries left: a local ACK timeout.
	if (rt.st == qst::rc && rt.waiting == 2)
		count(rt, qc::local_ack_timeout_err);
	bool rc = rt.st == qst::rc, uc = rt.st == qst::uc, ud = rt.st == qst::ud;
	switch (opc) {
	case op::nop:
		return {};
	case op::umr:
		return umr(rt, w, end);
	case op::send:
	case op::send_imm:
		break;
	case op::send_inval:
		if (!rc && !uc)
			return fail(sy::local_qp_op_err);
		break;
	case op::rdma_write:
	case op::rdma_write_imm:
		if (!rc && !uc)
			return fail(sy::local_qp_op_err);
		break;
	case op::rdma_read:
	case op::atomic_cs:
	case op::atomic_fa:
		if (!rc)
			return fail(sy::local_qp_op_err);
		break;
	default:
		return fail(sy::local_qp_op_err);
	}

	request rq{};
	rq.op = opc;
	rq.st = rt.st;
	rq.src_qpn = rt.qpn;
	rq.dst_qpn = rt.remote_qpn;
	rq.mem = &mem_;
	rq.se = u8(prm::get(w, ctl::se));
	copy_bytes(&rq.imm, w + ctl::imm.byte_off, sizeof(rq.imm));
	if (ud) {
		if (pos + prm::av::size_bytes > end)
			return fail(sy::local_qp_op_err);
		rq.av = w + pos;
		rq.dst_qpn = prm::get(rq.av, prm::av::dqpn);
		rq.sgid = d_.port ? d_.port->roce_address(prm::get(rq.av, prm::av::sgid_index)) : nullptr;
		rq.qkey = prm::get(rq.av, prm::av::qkey);
		// A Q_Key with the top bit set means "use the QP's own".
		if (rq.qkey & 0x80000000u)
			rq.qkey = rt.q_key;
		pos += prm::av::size_bytes;
	}
	bool remote = opc == op::rdma_write || opc == op::rdma_write_imm || opc == op::rdma_read ||
		      opc == op::atomic_cs || opc == op::atomic_fa;
	bool atomic = opc == op::atomic_cs || opc == op::atomic_fa;
	if (remote) {
		if (pos + prm::wqe_raddr_seg::size_bytes > end)
			return fail(sy::local_qp_op_err);
		rq.raddr = prm::get(w + pos, prm::wqe_raddr_seg::raddr);
		rq.rkey = prm::get(w + pos, prm::wqe_raddr_seg::rkey);
		pos += prm::wqe_raddr_seg::size_bytes;
	}
	if (atomic) {
		if (pos + prm::wqe_atomic_seg::size_bytes > end)
			return fail(sy::local_qp_op_err);
		rq.swap_add = prm::get(w + pos, prm::wqe_atomic_seg::swap_add);
		rq.compare = prm::get(w + pos, prm::wqe_atomic_seg::compare);
		pos += prm::wqe_atomic_seg::size_bytes;
	}

	// The local buffers: gathered from (send, write) or scattered to
	// (read, atomic), which needs local write access.
	u8 need = opc == op::rdma_read || atomic ? mkey_access::local_write : 0;
	local_.n = 0;
	local_.total = 0;
	while (pos < end) {
		const u8 *s = w + pos;
		if (prm::get(s, prm::wqe_inline_seg::inline_flag)) {
			u32 len = prm::get(s, prm::wqe_inline_seg::length);
			if (need || rq.inl || local_.n || pos + prm::wqe_inline_seg::header_bytes + len > end)
				return fail(sy::local_qp_op_err);
			rq.inl = s + prm::wqe_inline_seg::header_bytes;
			rq.len = len;
			pos += (prm::wqe_inline_seg::header_bytes + len + 15) & ~15u;
			continue;
		}
		if (rq.inl || pos + prm::wqe_data_seg::size_bytes > end)
			return fail(sy::local_qp_op_err);
		u32 len = prm::get(s, prm::wqe_data_seg::byte_count);
		if (len & 0x80000000u)
			return fail(sy::local_length_err);
		if (mem_.add(local_, prm::get(s, prm::wqe_data_seg::lkey), rt.pd, need, prm::get(s, prm::wqe_data_seg::addr),
			     len) != mem_fault::none)
			return fail(sy::local_prot_err);
		pos += prm::wqe_data_seg::size_bytes;
	}
	if (!rq.inl) {
		rq.src = &local_;
		if (local_.total > (u64(1) << 31))
			return fail(sy::local_length_err);
		rq.len = u32(local_.total);
	}
	if (atomic && (local_.n != 1 || local_.total != 8))
		return fail(sy::local_length_err);
	if (ud && rq.len > mtu_bytes(rt.mtu))
		return fail(sy::local_length_err);
	if (rt.log_msg_max && rq.len > (u64(1) << rt.log_msg_max))
		return fail(sy::local_length_err);
	if (opc == op::rdma_read || atomic)
		rq.result = &local_;

	u8 min_rnr = 0;
	answer a = deliver(rt, rq, &min_rnr);
	if (a == answer::busy) {
		// Nothing happened: the same WQE goes again next round.
		more_ = true;
		busy_ = true;
		return outcome{verdict::wait, 0, 0};
	}
	stats_.bytes += rq.len;
	if (a == answer::ack) {
		rt.waiting = 0;
		return outcome{verdict::done, 0, opc == op::rdma_read || atomic ? rq.len : 0};
	}
	return finish_rc(rt, a, now, min_rnr);
}

data_path::outcome data_path::finish_rc(qp_runtime &rt, answer a, u64 now, u8 min_rnr)
{
	// UC and UD have no acknowledgements: what the responder dropped is
	// gone, and the requester completes as if sent.
	if (rt.st != qst::rc)
		return {};
	switch (a) {
	case answer::rnr: {
		stats_.rnr_naks++;
		// rnr_retry counts retries after a NAK: 0 fails on the first
		// one, 7 never runs out.
		if (rt.waiting != 1)
			rt.rnr_left = rt.rnr_retry;
		if (!rt.rnr_left)
			return outcome{verdict::error, sy::rnr_retry_exc_err, 0};
		// An RNR NAK the QP may still retry after.
		count(rt, qc::rnr_nak_retry_err);
		if (rt.rnr_left != 7)
			rt.rnr_left--;
		rt.waiting = 1;
		u8 t = u8(min_rnr & 31);
		rt.wait_until = now + u64(rnr_timer_10us[t]) * 10 * ns_per_us;
		return outcome{verdict::wait, 0, 0};
	}
	case answer::none: {
		stats_.retries++;
		// An attempt went unanswered; whether another may follow is
		// decided when its timeout expires (execute()).
		if (rt.waiting != 2)
			rt.retry_left = rt.retry_count;
		else if (rt.retry_left)
			rt.retry_left--;
		rt.waiting = 2;
		rt.wait_until = now + ack_timeout_ns(rt.path.ack_timeout);
		return outcome{verdict::wait, 0, 0};
	}
	case answer::inv_req:
		return outcome{verdict::error, sy::remote_inval_req_err, 0};
	case answer::access:
		return outcome{verdict::error, sy::remote_access_err, 0};
	case answer::op_err:
		return outcome{verdict::error, sy::remote_op_err, 0};
	case answer::ack:
	case answer::busy:
		break;
	}
	return {};
}

data_path::answer data_path::deliver(qp_runtime &rt, const request &rq, u8 *min_rnr)
{
	// A port with no address of its own answers everything itself.
	u32 slot = fabric::none;
	if (d_.port && d_.port->any_roce_address() &&
	    !route(rt, rt.st == qst::ud ? prm::at(rq.av, prm::av::rgid) : rt.path.rgid, &slot)) {
		stats_.peer_busy++;
		return answer::busy;
	}
	if (slot == fabric::none)
		return respond(rq, min_rnr);
	if (slot == unreachable)
		return answer::none;
	data_path *peer = fabric::hold(slot);
	unsigned long flags;
	// Re-checked once held: the port in the slot is the one routed to.
	if (!peer || fabric::epoch() != rt.route_epoch || !peer->lock_.try_lock(&flags)) {
		if (peer)
			fabric::release(slot);
		stats_.peer_busy++;
		return answer::busy;
	}
	answer a = peer->respond(rq, min_rnr);
	if (peer->more_)
		peer->wake_poller();
	peer->lock_.unlock(flags);
	fabric::release(slot);
	stats_.peer_requests++;
	return a;
}

// The port whose address table holds gid: *slot a peer's, fabric::none
// for this one, unreachable if no port has it (the packet is lost, as on a
// wire). Cached in rt until the fabric changes or the GID does.
bool data_path::route(qp_runtime &rt, const u8 *gid, u32 *slot)
{
	u32 epoch = fabric::epoch();
	if (rt.route_epoch == epoch && same_bytes(rt.route_gid, gid, 16)) {
		*slot = rt.route_slot;
		return true;
	}
	u32 found = fabric::none;
	if (!d_.port->has_roce_address(gid)) {
		found = unreachable;
		for (u32 i = 0; slot_ != fabric::none && i < fabric::max_ports && found == unreachable; i++) {
			if (i == slot_)
				continue;
			data_path *peer = fabric::hold(i);
			if (!peer)
				continue;
			unsigned long flags;
			if (!peer->lock_.try_lock(&flags)) {
				fabric::release(i);
				return false;
			}
			if (peer->d_.port && peer->d_.port->has_roce_address(gid))
				found = i;
			peer->lock_.unlock(flags);
			fabric::release(i);
		}
	}
	rt.route_epoch = epoch;
	rt.route_slot = found;
	copy_bytes(rt.route_gid, gid, 16);
	*slot = found;
	return true;
}

data_path::answer data_path::respond(const request &rq, u8 *min_rnr)
{
	qp_runtime *dst = d_.qps->dp_get(rq.dst_qpn);
	// Nobody listening the way this QP expects: no answer.
	if (!dst || dst->st != rq.st || !is_ready(*dst))
		return answer::none;
	*min_rnr = dst->min_rnr_nak;
	if (rq.st == qst::ud) {
		if (rq.qkey != dst->q_key)
			return answer::none;
	} else if (dst->remote_qpn != rq.src_qpn) {
		return answer::none;
	}
	// The first packet on a QP still in RTR establishes the connection.
	if (!dst->comm_est && dst->state == qs::rtr) {
		dst->comm_est = 1;
		qp_event(*dst, prm::event_type::comm_est);
	}

	const bool rc = rq.st == qst::rc;
	// Responder errors RC reports by NAK move the responder to error; no
	// CQE tells its owner, so an affiliated event does (IB's Local Access
	// Violation / Invalid Request Local Work Queue errors).
	auto nak = [&](answer a) {
		count(*dst, a == answer::access ? qc::resp_remote_access_errors : qc::resp_remote_invalid_request);
		if (rc) {
			enter_err(*dst);
			qp_event(*dst, a == answer::access ? prm::event_type::wq_access_error :
							     prm::event_type::wq_inval_req_error);
		}
		return a;
	};
	switch (rq.op) {
	case op::send:
	case op::send_imm:
	case op::send_inval:
		return respond_recv(*dst, rq);
	case op::rdma_write:
	case op::rdma_write_imm: {
		u16 counter;
		mem_fault f;
		count(*dst, qc::rx_write_requests);
		if (rq.op == op::rdma_write_imm && !take_recv(*dst, remote_, &counter, &f, false)) {
			count(*dst, qc::out_of_buffer);
			return answer::rnr;
		}
		remote_.n = 0;
		remote_.total = 0;
		if (!(dst->access & qp_access::remote_write) ||
		    mem_.add(remote_, rq.rkey, dst->pd, mkey_access::remote_write, rq.raddr, rq.len, dst->qpn) !=
			    mem_fault::none)
			return nak(answer::access);
		bool ok = rq.inl ? mem_.write(remote_, 0, rq.inl, rq.len) :
				   mem_.copy(remote_, 0, *rq.mem, *rq.src, 0, rq.len);
		if (!ok)
			return nak(answer::access);
		if (rq.op == op::rdma_write_imm) {
			// The data is placed; the receive WQE only completes it
			// (its scatter list is checked, not used).
			if (!take_recv(*dst, remote_, &counter, &f, true)) {
				resp_error(*dst, sy::local_prot_err, counter);
				return answer::op_err;
			}
			u8 e[prm::cqe64::size_bytes] = {};
			prm::set(e, prm::cqe64::opcode, prm::cqe_opcode::resp_wr_imm);
			prm::set(e, prm::cqe64::byte_cnt, rq.len);
			copy_bytes(e + prm::cqe64::immediate.byte_off, &rq.imm, 4);
			prm::set(e, prm::cqe64::rqpn, rq.src_qpn);
			prm::set(e, prm::cqe64::user_index, dst->user_index);
			prm::set(e, prm::cqe64::qpn, dst->qpn);
			prm::set(e, prm::cqe64::wqe_counter, counter);
			prm::set(e, prm::cqe64::se, rq.se);
			post(dst->cqn_rcv, e, rq.se, false);
		}
		return answer::ack;
	}
	case op::rdma_read: {
		count(*dst, qc::rx_read_requests);
		remote_.n = 0;
		remote_.total = 0;
		if (!(dst->access & qp_access::remote_read) ||
		    mem_.add(remote_, rq.rkey, dst->pd, mkey_access::remote_read, rq.raddr, rq.len, dst->qpn) !=
			    mem_fault::none)
			return nak(answer::access);
		if (!rq.mem->copy(*rq.result, 0, mem_, remote_, 0, rq.len))
			return nak(answer::access);
		return answer::ack;
	}
	case op::atomic_cs:
	case op::atomic_fa: {
		count(*dst, qc::rx_atomic_requests);
		if (rq.raddr & 7)
			return nak(answer::inv_req);
		remote_.n = 0;
		remote_.total = 0;
		if (!(dst->access & qp_access::remote_atomic) ||
		    mem_.add(remote_, rq.rkey, dst->pd, mkey_access::atomic, rq.raddr, 8, dst->qpn) != mem_fault::none)
			return nak(answer::access);
		u32 n;
		u64 *p = reinterpret_cast<u64 *>(mem_.map(remote_.seg[0], 0, 8, &n));
		if (!p || n != 8)
			return nak(answer::access);
		// Host-endian 8-byte atomics, atomic against every other QP
		// and the CPU.
		u64 old;
		if (rq.op == op::atomic_fa) {
			old = __atomic_fetch_add(p, rq.swap_add, __ATOMIC_SEQ_CST);
		} else {
			old = rq.compare;
			__atomic_compare_exchange_n(p, &old, rq.swap_add, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		}
		if (!rq.mem->write(*rq.result, 0, reinterpret_cast<const u8 *>(&old), 8))
			return answer::op_err;
		return answer::ack;
	}
	default:
		return answer::op_err;
	}
}

data_path::answer data_path::respond_recv(qp_runtime &dst, const request &rq)
{
	const bool ud = rq.st == qst::ud;
	const u32 grh = ud ? 40 : 0;
	u16 counter = 0;
	mem_fault f = mem_fault::none;
	if (!take_recv(dst, remote_, &counter, &f, true)) {
		if (f == mem_fault::none) {
			count(dst, qc::out_of_buffer);
			return answer::rnr;
		}
		resp_error(dst, sy::local_prot_err, counter);
		return answer::op_err;
	}
	if (u64(rq.len) + grh > remote_.total) {
		resp_error(dst, sy::local_length_err, counter);
		return answer::inv_req;
	}
	bool ok = true;
	if (ud) {
		u8 h[40];
		// UDP 8 + BTH 12 + DETH 8 + payload + pad + ICRC 4.
		write_grh(rq.av, rq.sgid, 8 + 12 + 8 + rq.len + (-rq.len & 3) + 4, h);
		ok = mem_.write(remote_, 0, h, sizeof(h));
	}
	if (ok)
		ok = rq.inl ? mem_.write(remote_, grh, rq.inl, rq.len) :
			      mem_.copy(remote_, grh, *rq.mem, *rq.src, 0, rq.len);
	if (!ok) {
		resp_error(dst, sy::local_prot_err, counter);
		return answer::op_err;
	}
	// SEND_WITH_INV frees the responder's window it names.
	if (rq.op == op::send_inval && !remote_invalidate(dst, load_be<u32>(&rq.imm))) {
		resp_error(dst, sy::remote_inval_req_err, counter);
		return answer::inv_req;
	}
	u8 e[prm::cqe64::size_bytes] = {};
	u8 opc = rq.op == op::send_imm	     ? prm::cqe_opcode::resp_send_imm :
		 rq.op == op::send_inval ? prm::cqe_opcode::resp_send_inv :
					   prm::cqe_opcode::resp_send;
	prm::set(e, prm::cqe64::opcode, opc);
	prm::set(e, prm::cqe64::byte_cnt, rq.len + grh);
	// The immediate, or the invalidated key (the same CQE field).
	if (rq.op == op::send_imm || rq.op == op::send_inval)
		copy_bytes(e + prm::cqe64::immediate.byte_off, &rq.imm, 4);
	prm::set(e, prm::cqe64::rqpn, rq.src_qpn);
	if (ud) {
		// A GRH is present; RoCEv2 over IPv4 (an IPv4-mapped GID) or IPv6.
		const u8 *g = prm::at(rq.av, prm::av::rgid);
		bool v4 = !g[0] && !g[1] && !g[2] && !g[3] && !g[4] && !g[5] && !g[6] && !g[7] && !g[8] && !g[9] &&
			  g[10] == 0xff && g[11] == 0xff;
		prm::set(e, prm::cqe64::grh_present, 1);
		prm::set(e, prm::cqe64::l3_type, v4 ? prm::cqe_l3_type::ipv4 : prm::cqe_l3_type::ipv6);
	}
	prm::set(e, prm::cqe64::user_index, dst.user_index);
	prm::set(e, prm::cqe64::qpn, dst.qpn);
	prm::set(e, prm::cqe64::wqe_counter, counter);
	prm::set(e, prm::cqe64::se, rq.se);
	post(dst.cqn_rcv, e, rq.se, false);
	return answer::ack;
}

// The next receive WQE of dst (its RQ or SRQ) as a checked scatter list;
// false with *f none if there is none, with *f set if it is unusable (it is
// consumed then). With commit false only says whether one is there.
bool data_path::take_recv(qp_runtime &dst, sg_list &l, u16 *counter, mem_fault *f, bool commit)
{
	*f = mem_fault::none;
	l.n = 0;
	l.total = 0;
	u64 off = 0;
	srq_runtime *srq = nullptr;
	u32 cnt = 0;
	if (dst.rq_type == prm::qp_rq_type::srq) {
		srq = d_.srqs->dp_get(dst.srqn);
		if (!srq || !read_dbr(srq->dbr_addr, prm::srq_dbrec::counter.byte_off, &cnt))
			return false;
		// The producer counter is 16 bits (it wraps after 65535 WQEs).
		u16 avail = u16(cnt - srq->consumed);
		if (!avail || avail > (1u << srq->log_size))
			return false;
		if (!commit)
			return true;
		*counter = u16(srq->head & ((1u << srq->log_size) - 1));
		off = u64(*counter) << srq->stride_shift;
	} else if (dst.rq_type == prm::qp_rq_type::non_zero && dst.rq_wqes) {
		u32 v;
		if (!read_dbr(dst.dbr_addr, prm::qp_dbrec::rcv_counter.byte_off, &v))
			return false;
		u16 pi = u16(v);
		if (pi == dst.rq_ci || u16(pi - dst.rq_ci) > dst.rq_wqes)
			return false;
		if (!commit)
			return true;
		*counter = dst.rq_ci;
	} else {
		return false;
	}

	bool readable = true;
	if (srq) {
		u8 seg[16];
		u64 bus;
		const u8 *p = d_.srqs->wq_addr(*srq, off, &bus) ? static_cast<const u8 *>(d_.dma->map(bus, 16)) : nullptr;
		readable = p != nullptr;
		if (p)
			copy_bytes(seg, p, 16);
		srq->head = readable ? u16(prm::get(seg, prm::wqe_srq_next_seg::next_wqe_index)) : srq->head;
		srq->consumed++;
		// Fewer WQEs left than the armed limit: one event, then disarmed
		// until the next ARM_RQ.
		if (srq->limit_armed && u16(cnt - srq->consumed) < srq->lwm) {
			srq->limit_armed = 0;
			srq->lwm = 0;
			srq_event(srq->srqn, prm::event_type::srq_rq_limit);
		}
	} else {
		dst.rq_ci++;
	}
	if (!readable) {
		*f = mem_fault::unmapped;
		return false;
	}
	return read_recv(dst, *counter, l, f);
}

// The scatter list of receive WQE `handle` of dst (an RQ counter or an
// SRQ WQE index), checked; false with *f set if it is unusable.
bool data_path::read_recv(qp_runtime &dst, u32 handle, sg_list &l, mem_fault *f)
{
	*f = mem_fault::none;
	l.n = 0;
	l.total = 0;
	srq_runtime *srq = nullptr;
	u32 stride_shift, base_off = 0;
	u64 off;
	if (dst.rq_type == prm::qp_rq_type::srq) {
		srq = d_.srqs->dp_get(dst.srqn);
		if (!srq) {
			*f = mem_fault::unmapped;
			return false;
		}
		stride_shift = srq->stride_shift;
		off = u64(handle & ((1u << srq->log_size) - 1)) << stride_shift;
		base_off = prm::wqe_srq_next_seg::size_bytes;
	} else {
		stride_shift = dst.rq_stride_shift;
		off = u64(handle & (dst.rq_wqes - 1)) << stride_shift;
	}
	auto unit = [&](u32 at, u8 *b) {
		u64 bus;
		bool ok = srq ? d_.srqs->wq_addr(*srq, off + at, &bus) : d_.qps->rq_addr(dst, off + at, &bus);
		const u8 *p = ok ? static_cast<const u8 *>(d_.dma->map(bus, 16)) : nullptr;
		if (p)
			copy_bytes(b, p, 16);
		return p != nullptr;
	};
	u8 seg[16];
	for (u32 at = base_off; at < (1u << stride_shift); at += 16) {
		if (!unit(at, seg)) {
			*f = mem_fault::unmapped;
			return false;
		}
		u32 lkey = prm::get(seg, prm::wqe_data_seg::lkey);
		if (lkey == prm::wqe_data_seg::invalid_lkey)
			break;
		u32 len = prm::get(seg, prm::wqe_data_seg::byte_count);
		mem_fault r = mem_.add(l, lkey, dst.pd, mkey_access::local_write, prm::get(seg, prm::wqe_data_seg::addr),
				       len & 0x7fffffff);
		if (r != mem_fault::none) {
			*f = r;
			return false;
		}
	}
	return true;
}

// The responder's receive WQE failed: an error CQE there; RC and UC
// responders go to error (UD just loses the WQE).
void data_path::resp_error(qp_runtime &dst, u8 syndrome, u16 counter)
{
	err_cqe(dst, dst.cqn_rcv, prm::cqe_opcode::resp_err, syndrome, counter, 0);
	if (dst.st != qst::ud)
		enter_err(dst);
}

// The 40 bytes a UD receive starts with. RoCEv2 over IPv4: 20 zero bytes
// and the IPv4 header; otherwise an IPv6 header. The source address is the
// sender's GID (the AV's source index in the sending port's RoCE address
// table); with no such entry, the destination's.
void data_path::write_grh(const u8 *av, const u8 *sgid, u32 l4, u8 *h)
{
	zero_bytes(h, 40);
	const u8 *g = prm::at(av, prm::av::rgid);
	const u8 *sg = sgid ? sgid : g;
	u8 tclass = u8(prm::get(av, prm::av::tclass));
	u8 hop = u8(prm::get(av, prm::av::hop_limit));
	bool v4 = true;
	for (u32 i = 0; i < 10; i++)
		v4 = v4 && !g[i];
	v4 = v4 && g[10] == 0xff && g[11] == 0xff;
	if (v4) {
		u8 *ip = h + 20;
		ip[0] = 0x45;
		ip[1] = tclass;
		store_be<u16>(ip + 2, u16(20 + l4));
		store_be<u16>(ip + 6, 0x4000);
		ip[8] = hop ? hop : 64;
		ip[9] = 17;
		copy_bytes(ip + 12, sg + 12, 4);
		copy_bytes(ip + 16, g + 12, 4);
		store_be<u16>(ip + 10, ip_checksum(ip, 20));
	} else {
		store_be<u32>(h, 6u << 28 | u32(tclass) << 20 | prm::get(av, prm::av::flow_label));
		store_be<u16>(h + 4, u16(l4));
		h[6] = 17;
		h[7] = hop ? hop : 64;
		copy_bytes(h + 8, sg, 16);
		copy_bytes(h + 24, g, 16);
	}
}

} // namespace scx::hca
