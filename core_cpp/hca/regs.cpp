// SPDX-License-Identifier: GPL-2.0
#include "hca/regs.h"

#include "lib/endian.h"
#include "prm/init_seg.h"
#include "prm/uar.h"
#include "prm/wqe.h"
#include "softcx/env.h"

namespace scx::hca {

namespace iseg = prm::initial_seg;
namespace regs = prm::init_seg;

void bar0_regs::init(const device_config &cfg, cmd_processor &cmd, eq_engine &eqs, cq_engine &cqs, data_path &dp,
		     u32 first_uar, u32 num_uars)
{
	cfg_ = cfg;
	cmd_ = &cmd;
	eqs_ = &eqs;
	cqs_ = &cqs;
	dp_ = &dp;
	first_uar_ = first_uar;
	num_uars_ = num_uars;
	boot_ns_ = scx_env_now_ns();
}

void bar0_regs::freeze_health()
{
	health_last_ = health_now(scx_env_now_ns());
	health_frozen_.store(1, mo::release);
}

bool bar0_regs::uar_page(u32 offset, u32 *uar, u32 *in_page) const
{
	u32 page = offset / prm::uar_page::size;
	if (page < first_uar_ || page - first_uar_ >= num_uars_)
		return false;
	*uar = page;
	*in_page = offset % prm::uar_page::size;
	return true;
}

u32 bar0_regs::read32(u32 offset)
{
	u64 now = scx_env_now_ns();
	switch (offset) {
	case prm::reg_offset(regs::fw_rev):
		return prm::reg_set(prm::reg_set(0, iseg::fw_rev_major, cfg_.fw_major), iseg::fw_rev_minor,
				    cfg_.fw_minor);
	case prm::reg_offset(regs::cmdif_rev_fw_sub):
		return prm::reg_set(prm::reg_set(0, iseg::cmd_interface_rev, prm::cmdq::cmd_if_rev),
				    iseg::fw_rev_subminor, cfg_.fw_subminor);
	case prm::reg_offset(regs::cmdq_addr_h):
		return cmd_->addr_h();
	case prm::reg_offset(regs::cmdq_addr_l_sz):
		return cmd_->addr_l_sz();
	case prm::reg_offset(regs::initializing):
		return prm::reg_set(0, iseg::initializing, cmd_->initializing());
	case prm::reg_offset(regs::internal_timer_h):
		return u32(now >> 32);
	case prm::reg_offset(regs::internal_timer_l):
		return u32(now);
	case prm::reg_offset(regs::health_counter):
		return prm::reg_set(0, iseg::health_counter,
				    health_frozen_.load(mo::acquire) ? health_last_ : health_now(now));
	default:
		// Health buffer, timeouts, clocks, UAR pages: all zero.
		return 0;
	}
}

void bar0_regs::write32(u32 offset, u32 value)
{
	switch (offset) {
	case prm::reg_offset(regs::cmdq_addr_h):
		cmd_->write_addr_h(value);
		return;
	case prm::reg_offset(regs::cmdq_addr_l_sz):
		cmd_->write_addr_l(value);
		return;
	case prm::reg_offset(regs::cmd_dbell):
		cmd_->ring(value);
		return;
	default:
		break;
	}
	u32 uar, at;
	if (!uar_page(offset, &uar, &at))
		return;
	if (at == prm::uar_page::eq_doorbell_arm || at == prm::uar_page::eq_doorbell_ci)
		eqs_->doorbell(uar, at, value);
}

namespace {

// A send doorbell is the first 8 bytes of the WQE's ctrl segment, as
// written (big-endian on the bus); the QPN sits in the second dword.
u32 sq_doorbell_qpn(u64 value)
{
	u8 db[8];
	store_be(db, value);
	return u32(prm::get(db, prm::wqe_ctrl_seg::qpn));
}

} // namespace

void bar0_regs::write64(u32 offset, u64 value)
{
	u32 uar, at;
	if (uar_page(offset, &uar, &at)) {
		if (at == prm::uar_page::cq_doorbell)
			cqs_->doorbell(uar, value);
		else if (at >= prm::uar_page::bf_offset)
			dp_->kernel_doorbell(sq_doorbell_qpn(value));
		return;
	}
	// A 64-bit write to the init segment is two register writes, high
	// dword (the lower address) first.
	write32(offset, u32(value >> 32));
	write32(offset + 4, u32(value));
}

} // namespace scx::hca
