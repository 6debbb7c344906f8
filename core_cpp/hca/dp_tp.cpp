// SPDX-License-Identifier: GPL-2.0
// The data path's side of the transport engine: it reads mlx5 send WQEs
// into tp_send_wr, reaches memory through the keys they name (checked
// again for every packet), takes receive WQEs from the RQ or SRQ, and
// writes CQEs and events as a ConnectX does.
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
namespace ae = wire::aeth_synd;

namespace {

qp_runtime &rt_of(tp_qp &q) { return *static_cast<qp_runtime *>(q.owner); }

// What a completion needs of the WQE besides its index: its opcode,
// whether it was signaled, whether it returns data (byte_cnt).
constexpr u32 tag_signaled = 1u << 8;
constexpr u32 tag_returns = 1u << 9;

tp_op engine_op(u8 opc)
{
	switch (opc) {
	case op::send_imm: return tp_op::send_imm;
	case op::send_inval: return tp_op::send_inv;
	case op::rdma_write: return tp_op::write;
	case op::rdma_write_imm: return tp_op::write_imm;
	case op::rdma_read: return tp_op::read;
	case op::atomic_cs: return tp_op::cmp_swap;
	case op::atomic_fa: return tp_op::fetch_add;
	case op::nop:
	case op::umr: return tp_op::local;
	default: return tp_op::send;
	}
}

} // namespace

// Checks one WQE as the requester and fills wr from it. 0, or the
// syndrome of the error CQE it gets (nothing is sent for it then).
u8 data_path::parse_wqe(qp_runtime &rt, const u8 *w, u32 ds, tp_send_wr *wr)
{
	const u32 end = ds * prm::sq_geom::ds_unit;
	u32 pos = ctl::size_bytes;
	const u8 opc = u8(prm::get(w, ctl::opcode));
	const bool ud = rt.st == qst::ud, dci = rt.st == qst::dci;
	const bool rc = rt.st == qst::rc || dci, uc = rt.st == qst::uc; // DC's requests are RC's
	if (prm::get(w, ctl::qpn) != rt.qpn || prm::get(w, ctl::opmod))
		return sy::local_qp_op_err;
	switch (opc) {
	case op::nop:
	case op::umr:
	case op::send:
	case op::send_imm:
		break;
	case op::send_inval:
	case op::rdma_write:
	case op::rdma_write_imm:
		if (!rc && !uc)
			return sy::local_qp_op_err;
		break;
	case op::rdma_read:
	case op::atomic_cs:
	case op::atomic_fa:
		if (!rc)
			return sy::local_qp_op_err;
		break;
	default:
		return sy::local_qp_op_err;
	}
	wr->op = engine_op(opc);
	wr->solicited = prm::get(w, ctl::se);
	wr->fence = prm::get(w, ctl::fence) != 0;
	wr->imm = load_be<u32>(w + ctl::imm.byte_off);
	if (wr->op == tp_op::local)
		return 0;
	if (ud || dci) {
		if (pos + prm::av::size_bytes > end)
			return sy::local_qp_op_err;
		const u8 *av = w + pos;
		copy_bytes(wr->ud_av, av, prm::av::size_bytes);
		wr->dest_qpn = prm::get(av, prm::av::dqpn);
		if (dci) {
			wr->dc_key = prm::get(av, prm::av::dc_key);
		} else {
			wr->qkey = prm::get(av, prm::av::qkey);
			// A Q_Key with the top bit set means "use the QP's own".
			if (wr->qkey & 0x80000000u)
				wr->qkey = rt.q_key;
		}
		pos += prm::av::size_bytes;
	}
	bool remote = wr->op == tp_op::write || wr->op == tp_op::write_imm || wr->op == tp_op::read ||
		      wr->op == tp_op::cmp_swap || wr->op == tp_op::fetch_add;
	bool atomic = wr->op == tp_op::cmp_swap || wr->op == tp_op::fetch_add;
	if (remote) {
		if (pos + prm::wqe_raddr_seg::size_bytes > end)
			return sy::local_qp_op_err;
		wr->raddr = prm::get(w + pos, prm::wqe_raddr_seg::raddr);
		wr->rkey = prm::get(w + pos, prm::wqe_raddr_seg::rkey);
		pos += prm::wqe_raddr_seg::size_bytes;
	}
	if (atomic) {
		if (pos + prm::wqe_atomic_seg::size_bytes > end)
			return sy::local_qp_op_err;
		wr->swap_add = prm::get(w + pos, prm::wqe_atomic_seg::swap_add);
		wr->compare = prm::get(w + pos, prm::wqe_atomic_seg::compare);
		pos += prm::wqe_atomic_seg::size_bytes;
	}
	wr->tag |= wr->op == tp_op::read || atomic ? tag_returns : 0;
	// The list is resolved now only to check it; every packet resolves
	// it again (a key may go away while the WQE is in flight).
	const u8 *inl = nullptr;
	u32 inl_len = 0;
	u8 s = wr_list(rt, *wr, &inl, &inl_len);
	if (s)
		return s;
	u64 len = u64(inl_len) + wr_l_.total; // inl_len is 0 without inline data
	if (len > (u64(1) << 31))
		return sy::local_length_err;
	wr->len = u32(len);
	if (atomic && (inl || wr_l_.n != 1 || wr_l_.total != 8))
		return sy::local_length_err;
	if (ud && wr->len > rt.tp->a.mtu)
		return sy::local_length_err;
	if (rt.log_msg_max && wr->len > (u64(1) << rt.log_msg_max))
		return sy::local_length_err;
	return 0;
}

// Reads WQE idx of rt's SQ again into wqe2_.
bool data_path::fetch_again(qp_runtime &rt, u16 idx, u32 *ds)
{
	return fetch_wqe(rt, idx, wqe2_, ds, nullptr);
}

// The local memory of wr (in wqe_ when it is being fetched, else read
// again from the SQ): its inline bytes at *inl (*inl_len of them), if
// any, then its gather/scatter list in wr_l_. Inline data may precede
// pointer segments (UCX sends a header inline and the payload from
// registered memory); after one it is refused. 0 or the error syndrome.
u8 data_path::wr_list(qp_runtime &rt, const tp_send_wr &wr, const u8 **inl, u32 *inl_len)
{
	// Resolved already in this pass (no key changes under the lock).
	*inl = nullptr;
	*inl_len = 0;
	if (list_qpn_ == rt.qpn && list_idx_ == wr.index)
		return 0;
	// wr_l_ is rewritten: whatever it held is no longer cached, even if
	// this resolution fails half way.
	list_qpn_ = ~0u;
	const u8 *w = wqe_;
	u32 ds = prm::get(wqe_, ctl::ds);
	if (wqe_qpn_ != rt.qpn || wqe_idx_ != wr.index) {
		if (!fetch_again(rt, wr.index, &ds))
			return sy::local_qp_op_err;
		w = wqe2_;
	}
	const u32 end = ds * prm::sq_geom::ds_unit;
	u32 pos = ctl::size_bytes;
	if (rt.st == qst::ud || rt.st == qst::dci)
		pos += prm::av::size_bytes;
	if (wr.op == tp_op::write || wr.op == tp_op::write_imm || wr.op == tp_op::read || wr.op == tp_op::cmp_swap ||
	    wr.op == tp_op::fetch_add)
		pos += prm::wqe_raddr_seg::size_bytes;
	if (wr.op == tp_op::cmp_swap || wr.op == tp_op::fetch_add)
		pos += prm::wqe_atomic_seg::size_bytes;
	u8 need = wr.tag & tag_returns ? mkey_access::local_write : 0;
	wr_l_.n = 0;
	wr_l_.total = 0;
	*inl = nullptr;
	while (pos < end) {
		const u8 *s = w + pos;
		if (prm::get(s, prm::wqe_inline_seg::inline_flag)) {
			u32 len = prm::get(s, prm::wqe_inline_seg::length);
			if (need || *inl || wr_l_.n || pos + prm::wqe_inline_seg::header_bytes + len > end)
				return sy::local_qp_op_err;
			*inl = s + prm::wqe_inline_seg::header_bytes;
			*inl_len = len;
			pos += (prm::wqe_inline_seg::header_bytes + len + 15) & ~15u;
			continue;
		}
		if (pos + prm::wqe_data_seg::size_bytes > end)
			return sy::local_qp_op_err;
		u32 len = prm::get(s, prm::wqe_data_seg::byte_count);
		if (len & 0x80000000u)
			return sy::local_length_err;
		if (mem_.add(wr_l_, prm::get(s, prm::wqe_data_seg::lkey), rt.pd, need,
			     prm::get(s, prm::wqe_data_seg::addr), len) != mem_fault::none)
			return sy::local_prot_err;
		pos += prm::wqe_data_seg::size_bytes;
	}
	if (!*inl) {
		list_qpn_ = rt.qpn;
		list_idx_ = wr.index;
	}
	return 0;
}

// [va, va + len) under the responder's key, checked, into remote_.
bool data_path::resolve_remote(qp_runtime &rt, u32 rkey, u8 access, u64 va, u32 len)
{
	remote_.n = 0;
	remote_.total = 0;
	return mem_.add(remote_, rkey, rt.pd, access, va, len, rt.qpn) == mem_fault::none;
}

tp_fetch dp_tp_ops::fetch_wqe(tp_qp &q, tp_send_wr *wr)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	u32 v;
	if (rt.state != qs::rts || !d.read_dbr(rt.dbr_addr, prm::qp_dbrec::snd_counter.byte_off, &v))
		return tp_fetch::none;
	u16 pi = u16(v), idx = rt.sq_ci;
	if (pi == idx)
		return tp_fetch::none;
	u32 ds = 0;
	bool beyond = u16(pi - idx) > rt.sq_wqebbs, unreadable = false;
	wr->index = idx;
	wr->tag = tag_signaled;
	d.list_qpn_ = ~0u;
	d.wqe_qpn_ = ~0u;
	if (beyond || !d.fetch_wqe(rt, idx, d.wqe_, &ds, &unreadable)) {
		// Unusable: it fails in its turn (one WQEBB, so what follows is
		// flushed with CQEs of its own); past a counter beyond the ring
		// nothing can be read.
		wr->syndrome = sy::local_qp_op_err;
		wr->tag |= u8(prm::get(d.wqe_, ctl::opcode));
		rt.sq_ci = beyond ? pi : u16(idx + 1);
		if (unreadable)
			d.qp_event(rt, prm::event_type::wq_catas_error);
		return rt.sq_ci == pi ? tp_fetch::last : tp_fetch::ok;
	}
	d.wqe_qpn_ = rt.qpn;
	d.wqe_idx_ = idx;
	u16 nbb = u16((ds * prm::sq_geom::ds_unit + prm::sq_geom::wqebb - 1) / prm::sq_geom::wqebb);
	rt.sq_ci = u16(idx + nbb);
	u8 opc = u8(prm::get(d.wqe_, ctl::opcode));
	wr->tag = opc | (prm::get(d.wqe_, ctl::ce) == prm::wqe_ce::cqe_always ? tag_signaled : 0);
	wr->syndrome = d.parse_wqe(rt, d.wqe_, ds, wr);
	if (wr->syndrome)
		wr->tag |= tag_signaled;   // an error always completes
	return rt.sq_ci == pi ? tp_fetch::last : tp_fetch::ok;
}

bool dp_tp_ops::gather(tp_qp &q, const tp_send_wr &wr, u32 off, u8 *dst, u32 len)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	const u8 *inl = nullptr;
	u32 inl_len = 0;
	if (d.wr_list(rt, wr, &inl, &inl_len))
		return false;
	// The inline bytes first, then the list.
	if (off < inl_len) {
		u32 n = inl_len - off < len ? inl_len - off : len;
		copy_bytes(dst, inl + off, n);
		dst += n;
		off += n;
		len -= n;
	}
	return !len || d.mem_.read(dst, d.wr_l_, off - inl_len, len);
}

bool dp_tp_ops::scatter(tp_qp &q, const tp_send_wr &wr, u32 off, const u8 *src, u32 len)
{
	data_path &d = dp_;
	const u8 *inl = nullptr;
	u32 inl_len = 0;
	if (d.wr_list(rt_of(q), wr, &inl, &inl_len) || inl)
		return false;
	return d.mem_.write(d.wr_l_, off, src, len);
}

void dp_tp_ops::complete(tp_qp &q, const tp_send_wr &wr, u8 syndrome)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	u8 opc = u8(wr.tag);
	d.stats_.wqes++;
	if (syndrome) {
		d.err_cqe(rt, rt.cqn_snd, prm::cqe_opcode::req_err, syndrome, wr.index, opc);
		return;
	}
	d.stats_.bytes += wr.len;
	if (wr.tag & tag_signaled)
		d.req_cqe(rt, wr.index, opc, wr.tag & tag_returns ? wr.len : 0);
}

u8 dp_tp_ops::run_local(tp_qp &q, const tp_send_wr &wr)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	u32 ds;
	if (!d.fetch_again(rt, wr.index, &ds))
		return sy::local_qp_op_err;
	if (u8(prm::get(d.wqe2_, ctl::opcode)) == op::nop)
		return 0;
	// A UMR changes keys: no list resolved before it holds.
	copy_bytes(d.wqe_, d.wqe2_, sizeof(d.wqe_));
	d.wqe_qpn_ = d.list_qpn_ = d.rcv_qpn_ = ~0u;
	return d.umr(rt, d.wqe_, ds * prm::sq_geom::ds_unit);
}

// The receive WQE handle of rt (RQ index, or SRQ WQE index) into rcv_l_.
bool data_path::recv_list(qp_runtime &rt, u32 handle)
{
	if (rcv_qpn_ == rt.qpn && rcv_handle_ == handle)
		return true;
	rcv_qpn_ = ~0u;
	mem_fault f;
	if (!read_recv(rt, handle, rcv_l_, &f))
		return false;
	rcv_qpn_ = rt.qpn;
	rcv_handle_ = handle;
	return true;
}

tp_recv dp_tp_ops::recv_take(tp_qp &q, u32 *handle, u32 *cap)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	u16 counter = 0;
	mem_fault f;
	d.rcv_qpn_ = ~0u;
	if (!d.take_recv(rt, d.rcv_l_, &counter, &f, true)) {
		*handle = counter;
		if (f != mem_fault::none)
			return tp_recv::fault;
		d.count(rt, qc::out_of_buffer);
		return tp_recv::none;
	}
	d.rcv_qpn_ = rt.qpn;
	d.rcv_handle_ = counter;
	*handle = counter;
	*cap = d.rcv_l_.total > 0xffffffffull ? 0xffffffffu : u32(d.rcv_l_.total);
	return tp_recv::ok;
}

bool dp_tp_ops::recv_scatter(tp_qp &q, u32 handle, u32 off, const tp_payload &src, u32 len)
{
	data_path &d = dp_;
	if (!d.recv_list(rt_of(q), handle))
		return false;
	return d.copy_payload(d.rcv_l_, off, src, len);
}

// A payload by reference is the requester's gather list, which
// resolve_ref() checked and mapped over these bytes: only dst can fail.
bool data_path::copy_payload(const sg_list &dst, u32 dst_off, const tp_payload &src, u32 len)
{
	if (src.bytes)
		return mem_.write(dst, dst_off, src.bytes, len);
	if (!ref_n_)
		return mem_.copy(dst, dst_off, *static_cast<const sg_list *>(src.src), src.src_off, len);
	for (u32 i = 0; i < ref_n_ && len; i++) {
		u32 n = min(ref_pieces_[i].n, len);
		if (!mem_.write(dst, dst_off, ref_pieces_[i].p, n))
			return false;
		dst_off += n;
		len -= n;
	}
	return !len;
}

void dp_tp_ops::recv_complete(tp_qp &q, u32 handle, const tp_recv_done &r)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	d.rcv_qpn_ = ~0u;
	if (r.syndrome) {
		d.err_cqe(rt, rt.cqn_rcv, prm::cqe_opcode::resp_err, r.syndrome, u16(handle), 0);
		return;
	}
	u8 e[prm::cqe64::size_bytes] = {};
	u8 opc = r.kind == tp_recv_kind::send_imm ? prm::cqe_opcode::resp_send_imm :
		 r.kind == tp_recv_kind::send_inv ? prm::cqe_opcode::resp_send_inv :
		 r.kind == tp_recv_kind::write_imm ? prm::cqe_opcode::resp_wr_imm :
						      prm::cqe_opcode::resp_send;
	prm::set(e, prm::cqe64::opcode, opc);
	prm::set(e, prm::cqe64::byte_cnt, r.len);
	if (r.kind != tp_recv_kind::send)
		store_be<u32>(e + prm::cqe64::immediate.byte_off, r.imm);
	prm::set(e, prm::cqe64::rqpn, r.src_qp);
	if (rt.st == qst::ud) {
		prm::set(e, prm::cqe64::grh_present, 1);
		prm::set(e, prm::cqe64::l3_type, r.l3 == 4 ? prm::cqe_l3_type::ipv4 : prm::cqe_l3_type::ipv6);
	}
	prm::set(e, prm::cqe64::user_index, rt.user_index);
	prm::set(e, prm::cqe64::qpn, cqe_qpn(rt));
	prm::set(e, prm::cqe64::wqe_counter, u16(handle));
	prm::set(e, prm::cqe64::se, r.solicited);
	d.post(rt.cqn_rcv, e, r.solicited, false);
}

u8 dp_tp_ops::remote_check(tp_qp &q, u32 rkey, u64 va, u32 len, u8 access)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	u8 need = 0, allowed = 0;
	if (access == tp_access::write) {
		d.count(rt, qc::rx_write_requests);
		need = mkey_access::remote_write;
		allowed = rt.access & qp_access::remote_write;
	} else if (access == tp_access::read) {
		d.count(rt, qc::rx_read_requests);
		need = mkey_access::remote_read;
		allowed = rt.access & qp_access::remote_read;
	} else {
		d.count(rt, qc::rx_atomic_requests);
		need = mkey_access::atomic;
		allowed = rt.access & qp_access::remote_atomic;
	}
	if (!allowed || !d.resolve_remote(rt, rkey, need, va, len))
		return ae::remote_access;
	return 0;
}

u8 dp_tp_ops::remote_write(tp_qp &q, u32 rkey, u64 va, const tp_payload &src, u32 len)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	if (!d.resolve_remote(rt, rkey, mkey_access::remote_write, va, len) || !d.copy_payload(d.remote_, 0, src, len))
		return ae::remote_access;
	return 0;
}

u8 dp_tp_ops::remote_read(tp_qp &q, u32 rkey, u64 va, u8 *dst, u32 len)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	if (!d.resolve_remote(rt, rkey, mkey_access::remote_read, va, len) || !d.mem_.read(dst, d.remote_, 0, len))
		return ae::remote_access;
	return 0;
}

u8 dp_tp_ops::remote_atomic(tp_qp &q, const ib_hdr &h, u64 *orig)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	if (!d.resolve_remote(rt, h.rkey, mkey_access::atomic, h.va, 8))
		return ae::remote_access;
	u32 n;
	u64 *p = reinterpret_cast<u64 *>(d.mem_.map(d.remote_.seg[0], 0, 8, &n));
	if (!p || n != 8)
		return ae::remote_access;
	// Host-endian 8-byte atomics, atomic against every other QP and the CPU.
	u64 old;
	if ((h.opcode & wire::bth_op::mask) == wire::bth_op::fetch_add) {
		old = __atomic_fetch_add(p, h.swap_add, __ATOMIC_SEQ_CST);
	} else {
		old = h.compare;
		__atomic_compare_exchange_n(p, &old, h.swap_add, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
	*orig = old;
	return 0;
}

bool dp_tp_ops::invalidate(tp_qp &q, u32 rkey)
{
	dp_.list_qpn_ = dp_.rcv_qpn_ = ~0u;
	return dp_.remote_invalidate(rt_of(q), rkey);
}

void dp_tp_ops::established(tp_qp &q)
{
	qp_runtime &rt = rt_of(q);
	if (!rt.comm_est && rt.state == qs::rtr) {
		rt.comm_est = 1;
		dp_.qp_event(rt, prm::event_type::comm_est);
	}
}

// Responder errors RC reports by NAK move the responder to error; no CQE
// tells its owner, so an affiliated event does.
void dp_tp_ops::fatal(tp_qp &q, tp_fatal why)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	if (why == tp_fatal::access || why == tp_fatal::inval_req) {
		bool access = why == tp_fatal::access;
		d.count(rt, access ? qc::resp_remote_access_errors : qc::resp_remote_invalid_request);
		d.qp_event(rt, access ? prm::event_type::wq_access_error : prm::event_type::wq_inval_req_error);
	}
	// A DCT context only drops its connection (its engine is in error
	// until an initiator connects again); the DCT serves on.
	if (rt.dctn)
		return;
	d.enter_err(rt);
}

void dp_tp_ops::note(tp_qp &q, tp_note n)
{
	data_path &d = dp_;
	qp_runtime &rt = rt_of(q);
	switch (n) {
	case tp_note::rnr_nak:
		d.stats_.rnr_naks++;
		d.count(rt, qc::rnr_nak_retry_err);
		break;
	case tp_note::rnr_nak_final:
		d.stats_.rnr_naks++;
		break;
	case tp_note::timeout:
		d.stats_.retries++;
		d.count(rt, qc::local_ack_timeout_err);
		break;
	case tp_note::timeout_final:
		d.stats_.retries++;
		break;
	case tp_note::seq_nak_rcvd:
		d.count(rt, qc::packet_seq_err);
		break;
	case tp_note::implied_nak:
		d.count(rt, qc::implied_nak_seq_err);
		break;
	case tp_note::out_of_seq:
		d.count(rt, qc::out_of_sequence);
		break;
	case tp_note::dup_request:
		d.count(rt, qc::duplicate_request);
		break;
	}
}

void dp_tp_ops::schedule(tp_qp &q)
{
	dp_.activate(rt_of(q));
}

} // namespace scx::hca
