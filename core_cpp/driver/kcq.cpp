// SPDX-License-Identifier: GPL-2.0
#include "driver/kcq.h"

#include "lib/new.h"
#include "prm/cq.h"
#include "prm/uar.h"

namespace scx::driver {

namespace {

constexpr u32 page = 4096;
constexpr u32 cqe_bytes = prm::cqe64::size_bytes;
// The CQE dword holding op_own; the device writes it last.
constexpr u32 own_dword = prm::cqe64::op_own.bit_off / 32 * 4;

} // namespace

kcq::~kcq()
{
	// Never created (or destroyed): nothing the device can reach is left.
	if (!created_)
		free_mem();
}

void kcq::free_mem()
{
	if (mem_)
		plat_->dma_free(mem_, mem_bytes_, mem_dma_);
	mem_ = nullptr;
	dbrec_ = nullptr;
}

status kcq::create(device &dev, bus::platform &plat, const kcq_config &cfg)
{
	if (created_ || mem_)
		return errc::busy;
	if (cfg.log_size < 1 || cfg.log_size > max_log_size || cfg.comp_index >= dev.num_comp_eqs())
		return errc::inval;
	dev_ = &dev;
	plat_ = &plat;
	log_size_ = cfg.log_size;
	const usize ring = usize(cqe_bytes) << log_size_;
	const usize ring_pages = (ring + page - 1) / page;
	mem_bytes_ = (ring_pages + 1) * page;
	mem_ = static_cast<u8 *>(plat.dma_alloc(mem_bytes_, &mem_dma_));
	if (!mem_)
		return errc::nomem;
	dbrec_ = mem_ + ring_pages * page;
	// Every entry starts invalid (mlx5's init_cq_frag_buf): an opcode of
	// INVALID is never taken for a CQE, whatever its owner bit.
	for (u32 i = 0; i < (1u << log_size_); i++)
		prm::set(mem_ + i * cqe_bytes, prm::cqe64::opcode, prm::cqe_opcode::invalid);
	ci_ = 0;

	const u32 inlen = prm::create_cq_in::size_bytes + u32(ring_pages) * 8;
	u8 *in = static_cast<u8 *>(alloc_bytes(inlen));
	if (!in) {
		free_mem();
		return errc::nomem;
	}
	u8 *cqc = prm::at(in, prm::create_cq_in::cq_context);
	prm::set(cqc, prm::cqc::cqe_sz, prm::cqe_size::bytes_64);
	prm::set(cqc, prm::cqc::log_cq_size, log_size_);
	prm::set(cqc, prm::cqc::uar_page, dev.uar());
	prm::set(cqc, prm::cqc::c_eqn_or_apu_element, dev.comp_eqn(cfg.comp_index));
	prm::set(cqc, prm::cqc::log_page_size, 0); // 4 KiB pages
	prm::set(cqc, prm::cqc::dbr_addr, mem_dma_ + ring_pages * page);
	for (usize i = 0; i < ring_pages; i++)
		store_be<u64>(prm::at(in, prm::create_cq_in::pas, u32(i), 8), mem_dma_ + i * page);

	cq_.comp = cfg.comp;
	cq_.event = cfg.event;
	cq_.ctx = cfg.ctx;
	status s = dev.create_cq(cq_, in, inlen);
	free_bytes(in);
	if (s.code() == errc::timedout) {
		// The device may still create the CQ on this ring later: like a
		// timed-out command's mailboxes, the memory is never reused.
		scx_env_log(SCX_LOG_ERR, "%s: CREATE_CQ timed out; its ring is left to the device", dev.name());
		mem_ = nullptr;
		dbrec_ = nullptr;
		return s;
	}
	if (!s) {
		free_mem();
		return s;
	}
	created_ = true;
	return status::ok();
}

status kcq::destroy()
{
	if (!created_)
		return errc::inval;
	status s = dev_->destroy_cq(cq_);
	if (!s) {
		scx_env_log(SCX_LOG_ERR, "%s: DESTROY_CQ of CQN 0x%x failed (%d); its ring stays allocated",
			    dev_->name(), cq_.cqn, s.to_errno());
		return s;
	}
	created_ = false;
	free_mem();
	return status::ok();
}

// The CQE at the consumer index if the device has handed it over (owner
// bit of the current lap, opcode not INVALID), else null.
const u8 *kcq::ready() const
{
	const u32 mask = (1u << log_size_) - 1;
	const u8 *e = mem_ + (ci_ & mask) * cqe_bytes;
	// op_own shares its dword with the signature and wqe_counter:
	// read that dword once and decode a private copy.
	u32 w = __atomic_load_n(reinterpret_cast<const u32 *>(e + own_dword), __ATOMIC_ACQUIRE);
	u8 snap[cqe_bytes] = {};
	copy_bytes(snap + own_dword, &w, 4);
	if (prm::get(snap, prm::cqe64::opcode) == prm::cqe_opcode::invalid ||
	    prm::get(snap, prm::cqe64::owner) != ((ci_ >> log_size_) & 1))
		return nullptr;
	return e;
}

u32 kcq::poll(u32 max)
{
	u32 n = 0;
	for (; n < max && ready(); n++)
		ci_++;
	if (n)
		publish_ci();
	return n;
}

u32 kcq::poll(scx_kcqe *out, u32 max)
{
	u32 n = 0;
	for (const u8 *e; n < max && (e = ready()); n++) {
		decode_cqe(e, &out[n]);
		ci_++;
	}
	if (n)
		publish_ci();
	return n;
}

void kcq::publish_ci()
{
	u8 w[4] = {};
	prm::set(w, prm::cq_dbrec::set_ci, ci_ & 0xffffff);
	u32 v;
	copy_bytes(&v, w, 4);
	// The CQEs are read before the device may overwrite them.
	fence();
	write_once(*reinterpret_cast<u32 *>(dbrec_), v);
}

void kcq::arm(bool solicited_only)
{
	u8 db[8] = {};
	prm::set(db, prm::cq_doorbell::arm_sn, cq_.arm_sn.load() & 3);
	prm::set(db, prm::cq_doorbell::cmd,
		 solicited_only ? prm::cq_arm_cmd::req_not_sol : prm::cq_arm_cmd::req_not);
	prm::set(db, prm::cq_doorbell::ci, ci_ & 0xffffff);
	prm::set(db, prm::cq_doorbell::cqn, cq_.cqn);
	// The arm dword goes to the doorbell record too, as mlx5_cq_arm keeps
	// it; the device acts on the UAR write.
	u32 arm_word;
	copy_bytes(&arm_word, db, 4);
	write_once(*reinterpret_cast<u32 *>(dbrec_ + 4), arm_word);
	fence();
	dev_->bar().write64(dev_->uar() * prm::uar_page::size + prm::uar_page::cq_doorbell, load_be<u64>(db));
}

} // namespace scx::driver
