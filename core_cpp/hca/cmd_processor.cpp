// SPDX-License-Identifier: GPL-2.0
#include "hca/cmd_processor.h"

#include "lib/new.h"
#include "prm/eq.h"
#include "prm/init_seg.h"

namespace scx::hca {

namespace ent = prm::cmd_queue_entry;
namespace iseg = prm::initial_seg;
namespace ds = prm::delivery_stat;
using prm::cmdq::inline_bytes;

// The smallest message that names an opcode (input) or carries a status
// and syndrome (output).
constexpr u32 min_msg = 8;

cmd_processor::~cmd_processor()
{
	stop();
	free_bytes(in_buf_);
	free_bytes(out_buf_);
}

status cmd_processor::init(bus::dma_space &dma, eq_engine &eqs, fault_hooks &faults, cmd_executor &exec,
			   u32 boot_delay_us)
{
	dma_ = &dma;
	eqs_ = &eqs;
	faults_ = &faults;
	exec_ = &exec;
	in_chain_.bind(dma);
	out_chain_.bind(dma);
	SCX_TRY(work_lock_.init(lock_class::hca_cmd));
	in_buf_ = static_cast<u8 *>(alloc_bytes(buf_size));
	out_buf_ = static_cast<u8 *>(alloc_bytes(buf_size));
	work_ = scx_env_work_new(work_fn, this);
	if (!in_buf_ || !out_buf_ || !work_)
		return errc::nomem;
	// Firmware boot: "initializing" until the first pass of the engine.
	kick(boot_delay_us);
	return status::ok();
}

void cmd_processor::stop()
{
	if (!work_) { // never started, or stopped already
		state_.store(stopped);
		return;
	}
	scx_work *w;
	{
		lock_guard g(work_lock_);
		state_.store(stopped);
		w = work_;
		work_ = nullptr;
	}
	// Waits for a pass in progress.
	scx_env_work_free(w);
}

void cmd_processor::kick(u32 delay_us)
{
	lock_guard g(work_lock_);
	if (work_)
		scx_env_work_queue_delayed(work_, delay_us);
}

u32 cmd_processor::addr_l_sz() const
{
	// The address as written; size and stride are the device's, read-only.
	u32 v = prm::reg_set(0, iseg::cmdq_phy_addr_31_12, prm::reg_get(addr_l_.load(), iseg::cmdq_phy_addr_31_12));
	v = prm::reg_set(v, iseg::log_cmdq_size, log_cmdq_size);
	return prm::reg_set(v, iseg::log_cmdq_stride, log_cmdq_stride);
}

bool cmd_processor::initializing() const
{
	u32 s = state_.load();
	return s == booting || s == pending || s == broken;
}

void cmd_processor::write_addr_l(u32 v)
{
	addr_l_.store(v);
	u32 s = state_.load();
	// The low half arrives last: the queue is (re)configured now.
	if (s == idle || s == running || s == broken) {
		state_.store(pending);
		kick(0);
	}
}

void cmd_processor::hang()
{
	u32 s = state_.load();
	while (s != stopped && !state_.compare_exchange(s, hung))
		;
}

void cmd_processor::ring(u32 mask)
{
	if (state_.load() == hung)
		return; // a dead firmware reads no doorbell
	if (state_.load() != running) {
		scx_env_log(SCX_LOG_WARN, "hca: command doorbell 0x%x before the queue is set up", mask);
		return;
	}
	pending_.fetch_or(mask);
	kick(0);
}

void cmd_processor::run()
{
	u32 s = state_.load();
	if (s == booting) {
		u32 expect = booting;
		state_.compare_exchange(expect, idle);
		return;
	}
	if (s == pending) {
		u64 base = u64(addr_h_.load()) << 32 |
			   u64(prm::reg_get(addr_l_.load(), iseg::cmdq_phy_addr_31_12))
				   << prm::dword_shift(iseg::cmdq_phy_addr_31_12);
		u32 len = 1u << (log_cmdq_size + log_cmdq_stride);
		u32 expect = pending;
		if (!base || !dma_->map(base, len)) {
			scx_env_log(SCX_LOG_ERR, "hca: command queue at 0x%llx is not reachable",
				    (unsigned long long)base);
			state_.compare_exchange(expect, broken);
			return;
		}
		base_ = base;
		deferred_ = 0;
		state_.compare_exchange(expect, running);
		return;
	}
	if (s != running)
		return;

	u32 fresh = pending_.exchange(0);
	u32 todo = fresh | deferred_;
	deferred_ = 0;
	u64 next = ~u64(0);
	u32 dropped = 0;
	for (u32 slot = 0; slot < 32; slot++) {
		if (!(todo & (1u << slot)))
			continue;
		if (drop_held_) { // disabled: what was in flight is not run
			dropped |= 1u << slot;
			continue;
		}
		u64 due = 0;
		if (!process(slot, &due)) {
			deferred_ |= 1u << slot;
			next = min(next, due);
		}
	}
	if (drop_held_) {
		dropped |= deferred_;
		if (dropped)
			scx_env_log(SCX_LOG_INFO, "hca: disabled with commands in flight (slots 0x%x): dropped",
				    dropped);
		for (u32 slot = 0; slot < 32; slot++)
			due_[slot] = 0;
		deferred_ = 0;
		drop_held_ = false;
	}
	if (deferred_) {
		u64 now = scx_env_now_ns();
		u64 wait_us = next > now ? (next - now) / 1000 + 1 : 0;
		kick(u32(min<u64>(wait_us, 0xffffffffu)));
	}
}

u8 cmd_processor::deliver(const u8 *e, u32 inlen, u32 outlen)
{
	// A signature is checked when the driver computed one (non-zero).
	if (prm::get(e, ent::signature) && prm::cmdq::xor8(e, ent::size_bytes) != 0xff)
		return ds::signat_err;
	if (prm::get(e, ent::type) != prm::cmdq::type_pcie)
		return ds::cmd_descr_err;
	if (prm::get(e, ent::reserved_at_8) || prm::get(e, ent::reserved_at_1f0))
		return ds::res_fld_not_clr_err;
	if (inlen < min_msg || inlen > max_msg)
		return ds::in_length_err;
	if (outlen < min_msg || outlen > max_msg)
		return ds::out_length_err;
	u8 token = u8(prm::get(e, ent::token));
	u32 nin = prm::cmdq::blocks_for(inlen), nout = prm::cmdq::blocks_for(outlen);
	if (nin && prm::get(e, ent::reserved_at_77))
		return ds::in_ptr_align_err;
	if (nout && prm::get(e, ent::reserved_at_1b7))
		return ds::out_ptr_align_err;
	u64 in_ptr = u64(prm::get(e, ent::input_mailbox_pointer_63_32)) << 32 |
		     u64(prm::get(e, ent::input_mailbox_pointer_31_9)) << prm::dword_shift(ent::input_mailbox_pointer_31_9);
	u64 out_ptr = u64(prm::get(e, ent::output_mailbox_pointer_63_32)) << 32 |
		      u64(prm::get(e, ent::output_mailbox_pointer_31_9))
			      << prm::dword_shift(ent::output_mailbox_pointer_31_9);
	u8 st = in_chain_.validate(in_ptr, nin, token, true);
	if (st != ds::ok)
		return st;
	return out_chain_.validate(out_ptr, nout, token, false);
}

bool cmd_processor::process(u32 slot, u64 *due)
{
	u8 *entry = static_cast<u8 *>(dma_->map(base_ + (u64(slot) << log_cmdq_stride), ent::size_bytes));
	if (!entry) {
		scx_env_log(SCX_LOG_ERR, "hca: command slot %u is not reachable", slot);
		return true;
	}
	u8 snap[ent::size_bytes];
	fence(mo::acquire);
	copy_bytes(snap, entry, sizeof(snap));
	// A doorbell for an entry the driver still owns is ignored.
	if (prm::get(snap, ent::ownership) != prm::cmdq::owner_hw) {
		due_[slot] = 0;
		return true;
	}
	u32 inlen = prm::get(snap, ent::input_length);
	u32 outlen = prm::get(snap, ent::output_length);
	u8 dstat = deliver(snap, inlen, outlen);
	if (dstat != ds::ok) {
		due_[slot] = 0;
		complete(slot, entry, snap, dstat, false);
		return true;
	}

	fault_hooks::action f;
	if (due_[slot]) {
		// A delayed command: its time may have come.
		if (scx_env_now_ns() < due_[slot]) {
			*due = due_[slot];
			return false;
		}
		due_[slot] = 0;
	} else {
		// A new command (a held one always has a due time).
		page_wait_until_[slot] = 0;
		u16 opcode = u16(prm::get(prm::at(snap, ent::command_input_inline_data), prm::mbox_in::opcode));
		f = faults_->take(opcode);
		switch (f.k) {
		case fault_hooks::kind::drop:
			faults_->note_drop();
			return true;
		case fault_hooks::kind::delay:
			due_[slot] = scx_env_now_ns() + u64(f.delay_ms) * 1000000u;
			*due = due_[slot];
			return false;
		case fault_hooks::kind::fail_delivery:
			complete(slot, entry, snap, f.status, false);
			return true;
		default:
			break;
		}
	}
	if (execute(snap, inlen, outlen, f)) {
		// Held, as firmware holds a command until the pages it asked for
		// arrive (mlx5 drivers keep a slot free for MANAGE_PAGES).
		u64 now = scx_env_now_ns();
		if (!page_wait_until_[slot])
			page_wait_until_[slot] = now + page_wait_ns;
		if (now < page_wait_until_[slot]) {
			due_[slot] = now + u64(page_retry_us) * 1000;
			*due = due_[slot];
			return false;
		}
	}
	// Output beyond the inline bytes goes to the mailboxes (the executor
	// wrote anything past buf_size there directly).
	u32 produced = min(outlen, buf_size);
	u32 tail = produced > inline_bytes ? produced - inline_bytes : 0;
	if (!out_chain_.write(0, out_buf_ + inline_bytes, tail) || !out_chain_.seal()) {
		complete(slot, entry, snap, ds::fw_err, false);
		return true;
	}
	copy_bytes(prm::at(snap, ent::command_output_inline_data), out_buf_, inline_bytes);
	complete(slot, entry, snap, ds::ok, true);
	executed_.fetch_add(1, mo::relaxed);
	return true;
}

bool cmd_processor::execute(const u8 *e, u32 inlen, u32 outlen, const fault_hooks::action &f)
{
	cmd_ctx c;
	c.inlen = inlen;
	c.in_have = min(inlen, buf_size);
	copy_bytes(in_buf_, prm::at(e, ent::command_input_inline_data), min(inlen, inline_bytes));
	if (c.in_have > inline_bytes && !in_chain_.read(0, in_buf_ + inline_bytes, c.in_have - inline_bytes))
		c.in_have = inline_bytes; // the chain vanished: reads past the inline part fail
	c.in = in_buf_;
	c.outlen = outlen;
	c.out_cap = buf_size;
	zero_bytes(out_buf_, buf_size);
	c.out = out_buf_;
	c.in_chain = &in_chain_;
	c.out_chain = &out_chain_;
	c.opcode = u16(prm::get(c.in, prm::mbox_in::opcode));
	c.op_mod = u16(prm::get(c.in, prm::mbox_in::op_mod));
	if (f.k == fault_hooks::kind::fail)
		c.fail(f.status, f.syndrome);
	else
		exec_->execute(c);
	if (!c.ok())
		zero_bytes(out_buf_, buf_size);
	prm::set(out_buf_, prm::mbox_out::status, c.status);
	prm::set(out_buf_, prm::mbox_out::syndrome, c.syndrome);
	return c.wait_for_pages;
}

void cmd_processor::complete(u32 slot, u8 *entry, u8 *snap, u8 dstat, bool output)
{
	// The entry as the driver will find it: output, status, ownership back
	// to software, and a signature over all of it.
	prm::set(snap, ent::status, dstat);
	prm::set(snap, ent::ownership, prm::cmdq::owner_sw);
	prm::set(snap, ent::signature, 0);
	prm::set(snap, ent::signature, u8(~prm::cmdq::xor8(snap, ent::size_bytes)));
	if (output)
		copy_bytes(prm::at(entry, ent::command_output_inline_data),
			   prm::at(snap, ent::command_output_inline_data), inline_bytes);
	constexpr u32 sig_byte = ent::signature.byte_off;
	constexpr u32 own_byte = ent::ownership.bit_off / 8;
	write_once(entry[sig_byte], snap[sig_byte]);
	// Everything else is visible before ownership returns.
	fence(mo::release);
	write_once(entry[own_byte], snap[own_byte]);

	u8 data[prm::eqe::event_data.size] = {};
	prm::set(data, prm::cmd_inter_comp_event::command_completion_vector, 1u << slot);
	eqs_->post_event(prm::event_type::cmd, 0, data);
}

} // namespace scx::hca
