// SPDX-License-Identifier: GPL-2.0
#include "driver/kqp.h"

#include "driver/kmr.h"
#include "driver/qp_cmds.h"
#include "lib/new.h"
#include "prm/hca_cap.h"
#include "prm/mkey.h"
#include "prm/qp.h"
#include "prm/uar.h"
#include "prm/wqe.h"
#include "softcx/verbs.h"

namespace scx::driver {

namespace {

namespace gen = prm::cmd_hca_cap;
namespace ctl = prm::wqe_ctrl_seg;
namespace op = prm::wqe_op;

constexpr u32 page = 4096;
constexpr u32 bb = prm::sq_geom::wqebb;
constexpr u32 unit = prm::sq_geom::ds_unit;
// kernel QPs name no user index (mlx5_ib's MLX5_IB_DEFAULT_UIDX)
constexpr u32 no_user_index = 0xffffff;
// A UMR WQE: ctrl, UMR ctrl, mkey segment, then (REG_MR) the data segment
// naming the page list.
constexpr u32 umr_bytes = ctl::size_bytes + prm::wqe_umr_ctrl_seg::size_bytes + prm::wqe_mkey_seg::size_bytes;
constexpr u32 reg_mr_bytes = umr_bytes + prm::wqe_data_seg::size_bytes;

u32 pow2_up(u32 v) { return v <= 1 ? 1 : 1u << (ilog2(v - 1) + 1); }
u32 align_up(u32 v, u32 a) { return (v + a - 1) / a * a; }

u8 wqe_opcode(u32 kop)
{
	switch (kop) {
	case SCX_KWR_SEND: return op::send;
	case SCX_KWR_SEND_IMM: return op::send_imm;
	case SCX_KWR_SEND_INV: return op::send_inval;
	case SCX_KWR_WRITE: return op::rdma_write;
	case SCX_KWR_WRITE_IMM: return op::rdma_write_imm;
	case SCX_KWR_READ: return op::rdma_read;
	case SCX_KWR_ATOMIC_CS: return op::atomic_cs;
	case SCX_KWR_ATOMIC_FA: return op::atomic_fa;
	default: return op::umr;
	}
}

u8 wc_opcode(u32 kop)
{
	switch (kop) {
	case SCX_KWR_WRITE:
	case SCX_KWR_WRITE_IMM: return SCX_KWC_RDMA_WRITE;
	case SCX_KWR_READ: return SCX_KWC_RDMA_READ;
	case SCX_KWR_ATOMIC_CS: return SCX_KWC_COMP_SWAP;
	case SCX_KWR_ATOMIC_FA: return SCX_KWC_FETCH_ADD;
	case SCX_KWR_REG_MR: return SCX_KWC_REG_MR;
	case SCX_KWR_LOCAL_INV: return SCX_KWC_LOCAL_INV;
	default: return SCX_KWC_SEND;
	}
}

bool is_remote(u32 kop) { return kop >= SCX_KWR_WRITE && kop <= SCX_KWR_ATOMIC_FA; }
bool is_atomic(u32 kop) { return kop == SCX_KWR_ATOMIC_CS || kop == SCX_KWR_ATOMIC_FA; }
bool is_umr(u32 kop) { return kop == SCX_KWR_REG_MR || kop == SCX_KWR_LOCAL_INV; }

} // namespace

kqp::~kqp()
{
	if (!created_)
		free_rings();
}

void kqp::free_rings()
{
	if (mem_)
		plat_->dma_free(mem_, mem_bytes_, mem_dma_);
	mem_ = nullptr;
	dbrec_ = nullptr;
	free_bytes(sq_slots_);
	free_bytes(rq_wrid_);
	sq_slots_ = nullptr;
	rq_wrid_ = nullptr;
}

// Bytes of a send WQE before its data segments: ctrl, then the UD address
// vector or the remote address segment (an atomic adds its segment but
// has one data segment: never the largest).
u32 kqp::sq_base_bytes() const
{
	if (datagram())
		return ctl::size_bytes + prm::av::size_bytes;
	return ctl::size_bytes + prm::wqe_raddr_seg::size_bytes;
}

// The queues' geometry from what was asked and what the device takes.
status kqp::size_queues(const scx_kqp_params &p, const u8 *g)
{
	const u32 max_wr = 1u << prm::get(g, gen::log_max_qp_sz);
	const u32 max_sq_wqe = prm::get(g, gen::max_wqe_sz_sq);
	const u32 max_rq_wqe = prm::get(g, gen::max_wqe_sz_rq);
	if (p.type > SCX_KQPT_GSI || !p.max_send_wr || p.max_send_wr > max_wr || p.max_recv_wr > max_wr)
		return errc::inval;
	type_ = u8(p.type);
	const u32 base = sq_base_bytes();
	u32 data = p.max_send_sge * unit;
	u32 inl = align_up(prm::wqe_inline_seg::header_bytes + p.max_inline, unit);
	if (inl > data)
		data = inl;
	if (data < unit)
		data = unit;
	// Every kernel QP can carry REG_MR and LOCAL_INV.
	constexpr u32 atomic_bytes = ctl::size_bytes + prm::wqe_raddr_seg::size_bytes +
				     prm::wqe_atomic_seg::size_bytes + unit;
	max_wqe_bytes_ = align_up(max(max(base + data, atomic_bytes), reg_mr_bytes), bb);
	if (max_wqe_bytes_ > max_sq_wqe)
		return errc::inval;
	caps_.max_send_sge = (max_wqe_bytes_ - base) / unit;
	caps_.max_inline = max_wqe_bytes_ - base - prm::wqe_inline_seg::header_bytes;
	const u32 per_wr = max_wqe_bytes_ / bb;
	sq_bbs_ = pow2_up(p.max_send_wr * per_wr);
	if (sq_bbs_ > max_wr)
		return errc::inval;
	caps_.max_send_wr = sq_bbs_ / per_wr;
	if (p.has_srq) {
		if (p.max_recv_wr)
			return errc::inval;
		return status::ok();
	}
	if (!p.max_recv_wr)
		return status::ok();
	u32 stride = pow2_up((p.max_recv_sge ? p.max_recv_sge : 1) * unit);
	if (stride > max_rq_wqe)
		return errc::inval;
	rq_shift_ = ilog2(stride);
	rq_wqes_ = pow2_up(p.max_recv_wr);
	caps_.max_recv_wr = rq_wqes_;
	caps_.max_recv_sge = stride / unit;
	return status::ok();
}

status kqp::alloc_rings()
{
	rq_bytes_ = rq_wqes_ << rq_shift_;
	sq_bytes_ = sq_bbs_ * bb;
	const usize ring = align_up(rq_bytes_ + sq_bytes_, page);
	mem_bytes_ = ring + page;
	mem_ = static_cast<u8 *>(plat_->dma_alloc(mem_bytes_, &mem_dma_));
	if (!mem_)
		return errc::nomem;
	zero_bytes(mem_, mem_bytes_);
	dbrec_ = mem_ + ring;
	sq_slots_ = static_cast<sq_slot *>(alloc_bytes(sizeof(sq_slot) * sq_bbs_));
	if (!sq_slots_)
		return errc::nomem;
	zero_bytes(sq_slots_, sizeof(sq_slot) * sq_bbs_);
	if (rq_wqes_) {
		rq_wrid_ = static_cast<u64 *>(alloc_bytes(sizeof(u64) * rq_wqes_));
		if (!rq_wrid_)
			return errc::nomem;
	}
	return status::ok();
}

status kqp::create_cmd(const scx_kqp_params &p)
{
	const u32 ring_pages = u32((mem_bytes_ - page) / page);
	u64 *pas = static_cast<u64 *>(alloc_bytes(sizeof(u64) * ring_pages));
	if (!pas)
		return errc::nomem;
	for (u32 i = 0; i < ring_pages; i++)
		pas[i] = mem_dma_ + u64(i) * page;
	cmd::qp_params q;
	q.st = type_ == SCX_KQPT_RC ? prm::qpc_st::rc :
	       type_ == SCX_KQPT_UC ? prm::qpc_st::uc :
	       type_ == SCX_KQPT_GSI ? prm::qpc_st::qp1 : prm::qpc_st::ud;
	q.pd = p.pdn;
	q.cqn_snd = p.send_cqn;
	q.cqn_rcv = p.recv_cqn;
	q.uar = dev_->uar();
	q.log_sq_size = ilog2(sq_bbs_);
	if (p.has_srq) {
		q.rq_type = prm::qp_rq_type::srq;
		q.srqn = p.srqn;
	} else if (rq_wqes_) {
		q.rq_type = prm::qp_rq_type::non_zero;
		q.log_rq_size = ilog2(rq_wqes_);
		q.rq_wqe_shift = rq_shift_;
	} else {
		q.rq_type = prm::qp_rq_type::zero_len;
	}
	q.user_index = no_user_index;
	q.dbr_addr = mem_dma_ + (mem_bytes_ - page);
	q.buf.pas = pas;
	q.buf.npas = ring_pages;
	result<u32> n = cmd::create_qp(dev_->cmd(), q);
	free_bytes(pas);
	if (!n)
		return n.error();
	qpn_ = *n;
	return status::ok();
}

status kqp::create(device &dev, bus::platform &plat, const scx_kqp_params &p)
{
	if (created_ || mem_)
		return errc::busy;
	const u8 *g = dev.cap(prm::cap_type::general, prm::cap_mode::cur);
	if (!g)
		return errc::io;
	dev_ = &dev;
	plat_ = &plat;
	dma_lkey_ = p.dma_lkey;
	SCX_TRY(size_queues(p, g));
	status s = alloc_rings();
	if (s)
		s = create_cmd(p);
	if (s.code() == errc::timedout) {
		// The device may create the QP on these rings later: they are
		// never reused, as a timed-out command's mailboxes.
		mem_ = nullptr;
		return s;
	}
	if (!s) {
		free_rings();
		return s;
	}
	created_ = true;
	return status::ok();
}

status kqp::stop()
{
	if (!created_)
		return status::ok();
	SCX_TRY(cmd::destroy_qp(dev_->cmd(), qpn_));
	created_ = false;
	return status::ok();
}

status kqp::destroy()
{
	SCX_TRY(stop());
	free_rings();
	return status::ok();
}

void kqp::reset()
{
	sq_head_ = sq_rung_ = last_ctrl_ = sq_posted_ = 0;
	sq_tail_.store(0, mo::relaxed);
	sq_done_.store(0, mo::relaxed);
	zero_bytes(sq_slots_, sizeof(sq_slot) * sq_bbs_);
	rq_head_.store(0, mo::relaxed);
	rq_tail_.store(0, mo::relaxed);
	zero_bytes(dbrec_, prm::qp_dbrec::size_bytes);
}

// 0 or why the request cannot go on this QP (an errno-style refusal).
u8 kqp::check_send(const scx_kwr &wr) const
{
	if (wr.opcode > SCX_KWR_LOCAL_INV)
		return 1;
	if (is_umr(wr.opcode))
		return (wr.flags & SCX_KWR_INLINE) || (wr.opcode == SCX_KWR_REG_MR && !wr.mr);
	if (datagram() && wr.opcode != SCX_KWR_SEND && wr.opcode != SCX_KWR_SEND_IMM)
		return 1;
	if (datagram() && !wr.av)
		return 1;
	if (type_ == SCX_KQPT_UC && (wr.opcode == SCX_KWR_READ || is_atomic(wr.opcode)))
		return 1;
	if (is_atomic(wr.opcode) && (wr.num_sge != 1 || (wr.flags & SCX_KWR_INLINE)))
		return 1;
	if (wr.flags & SCX_KWR_INLINE) {
		u64 len = 0;
		for (u32 i = 0; i < wr.num_sge; i++)
			len += wr.sg[i].length;
		return len > caps_.max_inline || wr.opcode == SCX_KWR_READ;
	}
	return wr.num_sge > caps_.max_send_sge;
}

// The WQE's size in bytes (a multiple of 16).
u32 kqp::send_bytes(const scx_kwr &wr) const
{
	if (is_umr(wr.opcode))
		return wr.opcode == SCX_KWR_REG_MR ? reg_mr_bytes : umr_bytes;
	u32 b = ctl::size_bytes;
	if (datagram())
		b += prm::av::size_bytes;
	if (is_remote(wr.opcode))
		b += prm::wqe_raddr_seg::size_bytes;
	if (is_atomic(wr.opcode))
		b += prm::wqe_atomic_seg::size_bytes;
	if (!(wr.flags & SCX_KWR_INLINE))
		return b + wr.num_sge * unit;
	u32 len = 0;
	for (u32 i = 0; i < wr.num_sge; i++)
		len += wr.sg[i].length;
	return b + align_up(prm::wqe_inline_seg::header_bytes + len, unit);
}

u8 *kqp::sq_cursor::unit()
{
	u32 off = pos;
	pos += scx::driver::unit;
	return q->sq_bb(start + off / bb) + off % bb;
}

status kqp::post_send(const scx_kwr &wr)
{
	if (check_send(wr))
		return errc::inval;
	const u32 bytes = send_bytes(wr);
	const u32 nbb = (bytes + bb - 1) / bb;
	// Full by requests, as mlx5_ib counts (whatever their sizes, the
	// ring holds max_send_wr of the largest), and by WQEBBs.
	if (sq_posted_ - sq_done_.load(mo::acquire) >= caps_.max_send_wr ||
	    sq_head_ + nbb - sq_tail_.load(mo::acquire) > sq_bbs_)
		return errc::nomem;
	write_send(wr, bytes);
	sq_slot &s = sq_slots_[sq_head_ & (sq_bbs_ - 1)];
	s.wr_id = wr.wr_id;
	s.next = sq_head_ + nbb;
	s.opcode = wc_opcode(wr.opcode);
	s.live = 1;
	last_ctrl_ = sq_head_;
	sq_head_ += nbb;
	sq_posted_++;
	return status::ok();
}

void kqp::write_send(const scx_kwr &wr, u32 bytes)
{
	sq_cursor c{this, sq_head_};
	u8 *w = c.unit();
	zero_bytes(w, unit);
	prm::set(w, ctl::opcode, wqe_opcode(wr.opcode));
	prm::set(w, ctl::wqe_index, sq_head_ & 0xffff);
	prm::set(w, ctl::qpn, qpn_);
	prm::set(w, ctl::ds, bytes / unit);
	prm::set(w, ctl::ce, (wr.flags & SCX_KWR_SIGNALED) ? prm::wqe_ce::cqe_always : prm::wqe_ce::cqe_on_error);
	prm::set(w, ctl::se, (wr.flags & SCX_KWR_SOLICITED) != 0);
	if (wr.flags & SCX_KWR_FENCE)
		prm::set(w, ctl::fence, 2); // MLX5_FENCE_MODE_FENCE
	if (wr.opcode == SCX_KWR_SEND_IMM || wr.opcode == SCX_KWR_WRITE_IMM)
		copy_bytes(w + ctl::imm.byte_off, &wr.imm_be, 4);
	else if (wr.opcode == SCX_KWR_SEND_INV || wr.opcode == SCX_KWR_LOCAL_INV)
		prm::set(w, ctl::imm, wr.inv_rkey);
	else if (wr.opcode == SCX_KWR_REG_MR)
		prm::set(w, ctl::imm, wr.reg_key);
	if (is_umr(wr.opcode)) {
		write_umr(c, wr);
		return;
	}
	if (datagram()) {
		u8 *av[3] = {c.unit(), c.unit(), c.unit()};
		// The AV is 48 bytes, at offset 16 of the first WQEBB: it never
		// wraps, so the three units are contiguous.
		copy_bytes(av[0], wr.av, prm::av::size_bytes);
		prm::set(av[0], prm::av::dqpn, wr.remote_qpn);
		prm::set(av[0], prm::av::qkey, wr.remote_qkey);
	}
	if (is_remote(wr.opcode)) {
		u8 *r = c.unit();
		zero_bytes(r, unit);
		prm::set(r, prm::wqe_raddr_seg::raddr, wr.remote_addr);
		prm::set(r, prm::wqe_raddr_seg::rkey, wr.rkey);
	}
	if (is_atomic(wr.opcode)) {
		u8 *a = c.unit();
		prm::set(a, prm::wqe_atomic_seg::swap_add, wr.opcode == SCX_KWR_ATOMIC_CS ? wr.swap : wr.compare_add);
		prm::set(a, prm::wqe_atomic_seg::compare, wr.opcode == SCX_KWR_ATOMIC_CS ? wr.compare_add : 0);
	}
	write_data(c, wr);
}

// REG_MR: the key's new tag, rights, range and page size, and its page
// list by address; LOCAL_INV: the key becomes free.
void kqp::write_umr(sq_cursor &c, const scx_kwr &wr)
{
	namespace uc = prm::wqe_umr_ctrl_seg;
	namespace mask = prm::umr_mkey_mask;
	u8 *u[3] = {c.unit(), c.unit(), c.unit()};
	u8 *mk[4] = {c.unit(), c.unit(), c.unit(), c.unit()};
	// 48 + 64 bytes from offset 16 of the WQE: within one WQEBB each
	// unit, but the mkey segment may wrap the ring: built aside.
	u8 seg[prm::wqe_mkey_seg::size_bytes] = {};
	u8 ctrl[uc::size_bytes] = {};
	if (wr.opcode == SCX_KWR_LOCAL_INV) {
		prm::set(ctrl, uc::flags, prm::umr_flags::inline_data);
		prm::set(ctrl, uc::mkey_mask, mask::free);
		prm::set(seg, prm::mkc::free, 1);
	} else {
		const kmr &m = wr.mr->m;
		const u32 a = wr.reg_access;
		const u32 octowords = (m.entries() + 7) / 8 * 4;
		u64 mm = mask::len | mask::page_size | mask::start_addr | mask::en_rinval | mask::key | mask::lr |
			 mask::lw | mask::rr | mask::rw | mask::free;
		if (a & SCX_ACCESS_REMOTE_ATOMIC)
			mm |= mask::a;
		prm::set(ctrl, uc::xlt_octowords, octowords);
		prm::set(ctrl, uc::mkey_mask, mm);
		prm::set(seg, prm::mkc::lr, 1);
		prm::set(seg, prm::mkc::lw, (a & SCX_ACCESS_LOCAL_WRITE) != 0);
		prm::set(seg, prm::mkc::rr, (a & SCX_ACCESS_REMOTE_READ) != 0);
		prm::set(seg, prm::mkc::rw, (a & SCX_ACCESS_REMOTE_WRITE) != 0);
		prm::set(seg, prm::mkc::a, (a & SCX_ACCESS_REMOTE_ATOMIC) != 0);
		prm::set(seg, prm::mkc::access_mode_1_0, prm::mkc_access_mode::mtt);
		prm::set(seg, prm::mkc::qpn, 0xffffff);
		prm::set(seg, prm::mkc::mkey_7_0, wr.reg_key & 0xff);
		prm::set(seg, prm::mkc::en_rinval, 1);
		prm::set(seg, prm::mkc::start_addr, m.iova());
		prm::set(seg, prm::mkc::len, m.length());
		prm::set(seg, prm::mkc::translations_octword_size, octowords);
		prm::set(seg, prm::mkc::log_page_size, m.page_shift());
		u8 *d = c.unit();
		prm::set(d, prm::wqe_data_seg::byte_count, octowords * 16);
		prm::set(d, prm::wqe_data_seg::lkey, dma_lkey_);
		prm::set(d, prm::wqe_data_seg::addr, m.list_bus());
	}
	for (u32 i = 0; i < 3; i++)
		copy_bytes(u[i], ctrl + i * unit, unit);
	for (u32 i = 0; i < 4; i++)
		copy_bytes(mk[i], seg + i * unit, unit);
}

// The data segments, or the inline segment with the bytes themselves.
void kqp::write_data(sq_cursor &c, const scx_kwr &wr)
{
	if (!(wr.flags & SCX_KWR_INLINE)) {
		for (u32 i = 0; i < wr.num_sge; i++) {
			u8 *d = c.unit();
			prm::set(d, prm::wqe_data_seg::byte_count, wr.sg[i].length);
			prm::set(d, prm::wqe_data_seg::lkey, wr.sg[i].lkey);
			prm::set(d, prm::wqe_data_seg::addr, wr.sg[i].addr);
		}
		return;
	}
	u8 *hdr = c.unit();
	u8 *u = hdr;
	zero_bytes(u, unit);
	u32 len = 0, at = prm::wqe_inline_seg::header_bytes;
	for (u32 i = 0; i < wr.num_sge; i++) {
		const u8 *src = reinterpret_cast<const u8 *>(uintptr_t(wr.sg[i].addr));
		for (u32 k = 0; k < wr.sg[i].length;) {
			if (at == unit) {
				u = c.unit();
				zero_bytes(u, unit);
				at = 0;
			}
			u32 n = wr.sg[i].length - k < unit - at ? wr.sg[i].length - k : unit - at;
			copy_bytes(u + at, src + k, n);
			at += n;
			k += n;
		}
		len += wr.sg[i].length;
	}
	prm::set(hdr, prm::wqe_inline_seg::byte_count, len | 0x80000000u);
}

// A doorbell record word: the counter big-endian, written once.
void kqp::publish(u32 byte_off, u32 counter)
{
	u8 rec[4];
	store_be<u32>(rec, counter & 0xffff);
	u32 v;
	copy_bytes(&v, rec, 4);
	write_once(*reinterpret_cast<u32 *>(dbrec_ + byte_off), v);
}

void kqp::ring_sq()
{
	if (sq_head_ == sq_rung_)
		return;
	sq_rung_ = sq_head_;
	// The WQEs are in memory before the record says so, and the record
	// before the doorbell.
	fence();
	publish(prm::qp_dbrec::snd_counter.byte_off, sq_head_);
	fence();
	dev_->bar().write64(dev_->uar() * prm::uar_page::size + prm::uar_page::bf_offset,
			    load_be<u64>(sq_bb(last_ctrl_)));
}

status kqp::post_recv(u64 wr_id, const scx_ksge *sg, u32 n)
{
	if (!rq_wqes_)
		return errc::inval;
	if (n > caps_.max_recv_sge)
		return errc::inval;
	const u32 head = rq_head_.load(mo::relaxed);
	if (head - rq_tail_.load(mo::acquire) >= rq_wqes_)
		return errc::nomem;
	u8 *w = mem_ + ((head & (rq_wqes_ - 1)) << rq_shift_);
	for (u32 i = 0; i < n; i++) {
		u8 *d = w + i * unit;
		prm::set(d, prm::wqe_data_seg::byte_count, sg[i].length);
		prm::set(d, prm::wqe_data_seg::lkey, sg[i].lkey);
		prm::set(d, prm::wqe_data_seg::addr, sg[i].addr);
	}
	if (n < caps_.max_recv_sge) {
		u8 *d = w + n * unit;
		zero_bytes(d, unit);
		prm::set(d, prm::wqe_data_seg::lkey, prm::wqe_data_seg::invalid_lkey);
	}
	rq_wrid_[head & (rq_wqes_ - 1)] = wr_id;
	rq_head_.store(head + 1, mo::release);
	return status::ok();
}

void kqp::ring_rq()
{
	fence();
	publish(prm::qp_dbrec::rcv_counter.byte_off, rq_head_.load(mo::relaxed));
}

status kqp::complete(const scx_kcqe &c, u64 *wr_id, u8 *opcode)
{
	if (!c.send) {
		u32 t = rq_tail_.load(mo::relaxed);
		if (!rq_wqes_ || t == rq_head_.load(mo::acquire))
			return errc::inval;
		*wr_id = rq_wrid_[t & (rq_wqes_ - 1)];
		*opcode = c.opcode;
		rq_tail_.store(t + 1, mo::release);
		return status::ok();
	}
	u32 t = sq_tail_.load(mo::relaxed);
	// The CQE's counter is 16 bits: the WQE it names is the one in flight
	// whose counter has those low bits.
	u32 at = t + u16(c.wqe_counter - u16(t));
	sq_slot &s = sq_slots_[at & (sq_bbs_ - 1)];
	if (!s.live || u16(at - t) >= u16(sq_bbs_))
		return errc::inval;
	*wr_id = s.wr_id;
	*opcode = s.opcode;
	u32 reqs = 0;
	for (u32 i = t; i != s.next; i++) {
		sq_slot &x = sq_slots_[i & (sq_bbs_ - 1)];
		reqs += x.live;
		x.live = 0;
	}
	sq_tail_.store(s.next, mo::release);
	sq_done_.store(sq_done_.load(mo::relaxed) + reqs, mo::release);
	return status::ok();
}

} // namespace scx::driver
