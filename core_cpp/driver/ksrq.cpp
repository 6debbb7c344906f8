// SPDX-License-Identifier: GPL-2.0
#include "driver/ksrq.h"

#include "driver/qp_cmds.h"
#include "lib/atomic.h"
#include "lib/new.h"
#include "prm/hca_cap.h"
#include "prm/srq.h"
#include "prm/wqe.h"

namespace scx::driver {

namespace {

namespace gen = prm::cmd_hca_cap;
constexpr u32 page = 4096;
constexpr u32 unit = prm::wqe_data_seg::size_bytes;

u32 pow2_up(u32 v) { return v <= 1 ? 1 : 1u << (ilog2(v - 1) + 1); }

} // namespace

ksrq::~ksrq()
{
	if (!created_)
		free_mem();
}

void ksrq::free_mem()
{
	if (mem_)
		plat_->dma_free(mem_, mem_bytes_, mem_dma_);
	mem_ = nullptr;
	free_bytes(wrid_);
	free_bytes(posted_);
	wrid_ = nullptr;
	posted_ = nullptr;
}

status ksrq::create(device &dev, bus::platform &plat, u32 pdn, u32 max_wr, u32 max_sge)
{
	const u8 *g = dev.cap(prm::cap_type::general, prm::cap_mode::cur);
	if (!g)
		return errc::io;
	if (created_ || mem_)
		return errc::busy;
	dev_ = &dev;
	plat_ = &plat;
	// One WQE more than asked: the chain always keeps one.
	size_ = pow2_up(max_wr + 1);
	const u32 stride = pow2_up(prm::wqe_srq_next_seg::size_bytes + (max_sge ? max_sge : 1) * unit);
	if (size_ > (1u << prm::get(g, gen::log_max_srq_sz)) || stride > prm::get(g, gen::max_wqe_sz_rq))
		return errc::inval;
	shift_ = ilog2(stride);
	max_sge_ = (stride - prm::wqe_srq_next_seg::size_bytes) / unit;
	const usize ring = ((usize(size_) << shift_) + page - 1) / page * page;
	mem_bytes_ = ring + page;
	mem_ = static_cast<u8 *>(plat.dma_alloc(mem_bytes_, &mem_dma_));
	wrid_ = static_cast<u64 *>(alloc_bytes(sizeof(u64) * size_));
	posted_ = static_cast<u8 *>(alloc_bytes(size_));
	if (!mem_ || !wrid_ || !posted_) {
		free_mem();
		return errc::nomem;
	}
	zero_bytes(mem_, mem_bytes_);
	zero_bytes(posted_, size_);
	dbrec_ = mem_ + ring;
	for (u32 i = 0; i < size_; i++)
		prm::set(wqe(i), prm::wqe_srq_next_seg::next_wqe_index, (i + 1) & (size_ - 1));
	head_ = 0;
	tail_ = size_ - 1;
	counter_ = 0;

	const u32 npages = u32(ring / page);
	u64 *pas = static_cast<u64 *>(alloc_bytes(sizeof(u64) * npages));
	if (!pas) {
		free_mem();
		return errc::nomem;
	}
	for (u32 i = 0; i < npages; i++)
		pas[i] = mem_dma_ + u64(i) * page;
	cmd::srq_params q;
	q.pd = pdn;
	q.log_size = ilog2(size_);
	q.wqe_shift = shift_;
	q.dbr_addr = mem_dma_ + ring;
	q.buf.pas = pas;
	q.buf.npas = npages;
	result<u32> n = cmd::create_srq(dev.cmd(), q);
	free_bytes(pas);
	if (!n) {
		if (n.error().code() == errc::timedout)
			mem_ = nullptr; // the device may still take the ring
		free_mem();
		return n.error();
	}
	srqn_ = *n;
	created_ = true;
	return status::ok();
}

status ksrq::destroy()
{
	if (created_) {
		SCX_TRY(cmd::destroy_srq(dev_->cmd(), srqn_));
		created_ = false;
	}
	free_mem();
	return status::ok();
}

status ksrq::post_recv(u64 wr_id, const scx_ksge *sg, u32 n)
{
	if (n > max_sge_)
		return errc::inval;
	if (head_ == tail_)
		return errc::nomem;
	const u32 i = head_;
	u8 *w = wqe(i);
	head_ = prm::get(w, prm::wqe_srq_next_seg::next_wqe_index) & (size_ - 1);
	u8 *d = w + prm::wqe_srq_next_seg::size_bytes;
	for (u32 k = 0; k < n; k++, d += unit) {
		prm::set(d, prm::wqe_data_seg::byte_count, sg[k].length);
		prm::set(d, prm::wqe_data_seg::lkey, sg[k].lkey);
		prm::set(d, prm::wqe_data_seg::addr, sg[k].addr);
	}
	if (n < max_sge_) {
		zero_bytes(d, unit);
		prm::set(d, prm::wqe_data_seg::lkey, prm::wqe_data_seg::invalid_lkey);
	}
	wrid_[i] = wr_id;
	posted_[i] = 1;
	counter_++;
	return status::ok();
}

void ksrq::ring()
{
	u8 rec[4];
	store_be<u32>(rec, counter_);
	u32 v;
	copy_bytes(&v, rec, 4);
	// The WQEs are in memory before the record counts them.
	fence();
	write_once(*reinterpret_cast<u32 *>(dbrec_ + prm::srq_dbrec::counter.byte_off), v);
}

status ksrq::complete(u16 wqe_counter, u64 *wr_id)
{
	const u32 i = wqe_counter & (size_ - 1);
	if (!posted_[i])
		return errc::inval;
	*wr_id = wrid_[i];
	posted_[i] = 0;
	prm::set(wqe(tail_), prm::wqe_srq_next_seg::next_wqe_index, i);
	tail_ = i;
	return status::ok();
}

} // namespace scx::driver
