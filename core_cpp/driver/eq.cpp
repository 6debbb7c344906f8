// SPDX-License-Identifier: GPL-2.0
#include "driver/eq.h"

#include "driver/cmd_if.h"
#include "lib/new.h"
#include "prm/cmd.h"
#include "prm/eq.h"
#include "prm/reg.h"
#include "prm/uar.h"

namespace scx::driver {

namespace eqe = prm::eqe;

namespace {

constexpr u32 page_size = 4096;

u32 round_pow2(u32 v)
{
	u32 p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

} // namespace

eq::~eq()
{
	if (ring_)
		(void)destroy();
	free_kept_ring();
}

void eq::free_kept_ring()
{
	if (kept_ring_) {
		plat_->dma_free(kept_ring_, ring_bytes_, ring_dma_);
		kept_ring_ = nullptr;
	}
}

status eq::create(cmd_if &cmd, bus::mmio &bar, bus::platform &plat, u32 uar, const eq_params &p,
		  const eq_owner &owner)
{
	cmd_ = &cmd;
	bar_ = &bar;
	plat_ = &plat;
	owner_ = owner;
	uar_ = uar;
	vector_ = p.vector;
	index_ = p.index;
	cons_index_ = 0;

	u32 nent = round_pow2(p.nent + spare);
	log_nent_ = ilog2(nent);
	if (!prm::fits(prm::eqc::log_eq_size, log_nent_))
		return errc::inval;
	ring_bytes_ = align_up(usize(nent) * eqe::size_bytes, page_size);
	ring_ = static_cast<u8 *>(plat.dma_alloc(ring_bytes_, &ring_dma_));
	if (!ring_)
		return errc::nomem;
	if (ring_dma_ & (page_size - 1)) {
		plat.dma_free(ring_, ring_bytes_, ring_dma_);
		ring_ = nullptr;
		return errc::inval;
	}
	// Every entry starts device-owned for the first lap.
	for (u32 i = 0; i < nent; i++)
		prm::set(ring_ + i * eqe::size_bytes, eqe::owner, eqe::owner_init_val);

	u32 npages = u32(ring_bytes_ / page_size);
	u32 inlen = prm::create_eq_in::size_bytes + npages * 8;
	u8 *in = static_cast<u8 *>(alloc_bytes(inlen));
	if (!in) {
		(void)destroy();
		return errc::nomem;
	}
	namespace ci = prm::create_eq_in;
	prm::set(in, ci::opcode, prm::op::create_eq);
	u8 *eqc = prm::at(in, ci::eq_context_entry);
	prm::set(eqc, prm::eqc::log_eq_size, log_nent_);
	prm::set(eqc, prm::eqc::uar_page, uar);
	prm::set(eqc, prm::eqc::intr, p.vector);
	prm::set(eqc, prm::eqc::log_page_size, 0); // 4 KiB pages: log2(size) - 12
	store_be<u64>(prm::at(in, ci::event_bitmask, 0, 8), p.event_mask);
	for (u32 i = 0; i < npages; i++)
		store_be<u64>(prm::at(in, ci::pas, i, 8), ring_dma_ + u64(i) * page_size);
	u8 out[prm::create_eq_out::size_bytes] = {};
	status s = cmd.exec(in, inlen, out, sizeof(out));
	free_bytes(in);
	if (!s) {
		(void)destroy();
		return s;
	}
	in_device_ = true;
	eqn_ = u32(prm::get(out, prm::create_eq_out::eq_number));

	int rc = plat.request_irq(p.vector, p.irq_name, irq_entry, this);
	if (rc) {
		scx_env_log(SCX_LOG_ERR, "%s: request_irq(%u) failed: %d", cmd.name(), p.vector, rc);
		(void)destroy();
		return static_cast<errc>(-rc);
	}
	irq_ = true;
	update_ci(true);
	return status::ok();
}

status eq::destroy()
{
	status result = status::ok();
	if (irq_) {
		plat_->free_irq(vector_);
		irq_ = false;
	}
	if (in_device_) {
		u8 in[prm::destroy_eq_in::size_bytes] = {};
		u8 out[prm::destroy_eq_out::size_bytes] = {};
		prm::set(in, prm::destroy_eq_in::opcode, prm::op::destroy_eq);
		prm::set(in, prm::destroy_eq_in::eq_number, eqn_);
		result = cmd_->exec(in, sizeof(in), out, sizeof(out));
		if (!result)
			scx_env_log(SCX_LOG_WARN, "%s: failed to destroy eq %u", cmd_->name(), eqn_);
		in_device_ = false;
	}
	if (ring_) {
		if (result)
			plat_->dma_free(ring_, ring_bytes_, ring_dma_);
		else
			kept_ring_ = ring_;
		ring_ = nullptr;
	}
	return result;
}

void eq::irq_entry(void *ctx, u32) { static_cast<eq *>(ctx)->handle_irq(); }

u8 *eq::next_eqe_sw()
{
	u32 mask = (1u << log_nent_) - 1;
	u8 *e = ring_ + (cons_index_ & mask) * eqe::size_bytes;
	// The owner bit shares the last dword with the signature: read that
	// dword once and decode a private copy.
	u32 w = __atomic_load_n(reinterpret_cast<const u32 *>(e + 60), __ATOMIC_ACQUIRE);
	u8 snap[eqe::size_bytes];
	copy_bytes(snap + 60, &w, 4);
	u32 owner = u32(prm::get(snap, eqe::owner));
	return owner == ((cons_index_ >> log_nent_) & 1) ? e : nullptr;
}

void eq::update_ci(bool arm)
{
	u32 v = prm::reg_set(0, prm::eq_doorbell::eqn, eqn_);
	v = prm::reg_set(v, prm::eq_doorbell::consumer_index, cons_index_ & 0xffffff);
	u32 off = uar_ * prm::uar_page::size + (arm ? prm::uar_page::eq_doorbell_arm : prm::uar_page::eq_doorbell_ci);
	fence(); // entries consumed before the device may reuse them
	bar_->write32(off, v);
}

void eq::handle_irq()
{
	irqs_.fetch_add(1, mo::relaxed);
	if (!ring_)
		return;
	// Bounded so a device that keeps writing cannot hold the CPU here; an
	// armed EQ with entries left interrupts again.
	const u32 budget = 2u << log_nent_;
	u32 n = 0;
	for (u32 round = 0; round < 4 && n < budget; round++) {
		u32 before = n;
		for (u8 *e; n < budget && (e = next_eqe_sw()); n++) {
			fence(mo::acquire); // contents after the owner bit
			scx_env_trace_eqe(cmd_->name(), eqn_, u8(prm::get(e, eqe::event_type)), cons_index_);
			owner_.event(owner_.ctx, *this, e);
			cons_index_++;
			if ((n + 1) % ci_update_every == 0)
				update_ci(false);
		}
		update_ci(true);
		// An EQE written between the last look and the arm is still ours.
		if (n == before || !next_eqe_sw())
			break;
	}
	if (n) {
		eqes_.fetch_add(n, mo::relaxed);
		owner_.batch_done(owner_.ctx, *this);
	}
}

eq_stats eq::stats() const
{
	eq_stats s{};
	s.eqn = eqn_;
	s.vector = vector_;
	s.nent = ring_ ? 1u << log_nent_ : 0;
	s.cons_index = read_once(cons_index_); // the handler's, read from elsewhere
	s.irqs = irqs_.load(mo::relaxed);
	s.eqes = eqes_.load(mo::relaxed);
	return s;
}

} // namespace scx::driver
