// SPDX-License-Identifier: GPL-2.0
#include "driver/cmd_if.h"

#include "driver/cmd_names.h"
#include "lib/new.h"
#include "prm/cmd.h"
#include "prm/cmdq.h"
#include "prm/init_seg.h"
#include "prm/reg.h"

namespace scx::driver {

namespace ent = prm::cmd_queue_entry;
namespace box = prm::cmd_if_box;
namespace iseg = prm::initial_seg;
using prm::cmdq::inline_bytes;
using prm::cmdq::data_block_size;

namespace {

constexpr u64 ms_to_ns(u32 ms) { return u64(ms) * 1000000; }

// Input bytes past the inline part go to the chain, block by block.
void copy_to_chain(mailbox *m, const u8 *src, u32 len)
{
	for (; len && m; m = m->next) {
		u32 n = min(len, data_block_size);
		copy_bytes(prm::at(m->buf, box::mailbox_data), src, n);
		src += n;
		len -= n;
	}
}

void copy_from_chain(u8 *dst, const mailbox *m, u32 len)
{
	for (; len && m; m = m->next) {
		u32 n = min(len, data_block_size);
		copy_bytes(dst, prm::at(m->buf, box::mailbox_data), n);
		dst += n;
		len -= n;
	}
}

void sign_chain(mailbox *m)
{
	for (; m; m = m->next) {
		prm::set(m->buf, box::ctrl_signature, 0);
		prm::set(m->buf, box::signature, 0);
		u8 c = prm::cmdq::xor8(m->buf + box::ctrl_sig_first, box::ctrl_sig_len);
		prm::set(m->buf, box::ctrl_signature, u8(~c));
		u8 s = prm::cmdq::xor8(m->buf, box::size_bytes - 1);
		prm::set(m->buf, box::signature, u8(~s));
	}
}

bool chain_sig_ok(const mailbox *m)
{
	for (; m; m = m->next) {
		if (prm::cmdq::xor8(m->buf + box::ctrl_sig_first, box::ctrl_sig_len + 1) != 0xff)
			return false;
		if (prm::cmdq::xor8(m->buf, box::size_bytes) != 0xff)
			return false;
	}
	return true;
}

void raise_max(atomic<u32> &m, u32 v)
{
	u32 cur = m.load(mo::relaxed);
	while (v > cur && !m.compare_exchange(cur, v, mo::relaxed)) {
	}
}

void set_ptr(u8 *e, u64 dma, bool input)
{
	if (input) {
		prm::set(e, ent::input_mailbox_pointer_63_32, dma >> 32);
		prm::set(e, ent::input_mailbox_pointer_31_9, (dma & 0xffffffffu) >> 9);
	} else {
		prm::set(e, ent::output_mailbox_pointer_63_32, dma >> 32);
		prm::set(e, ent::output_mailbox_pointer_31_9, (dma & 0xffffffffu) >> 9);
	}
}

} // namespace

status cmd_if::wait_fw_ready(u32 timeout_ms)
{
	u64 end = scx_env_now_ns() + ms_to_ns(timeout_ms);
	for (;;) {
		u32 v = bar_->read32(prm::reg_offset(iseg::initializing));
		if (!prm::reg_get(v, iseg::initializing))
			return status::ok();
		if (scx_env_now_ns() > end) {
			scx_env_log(SCX_LOG_ERR, "%s: firmware still initializing after %u ms", name_, timeout_ms);
			return errc::busy;
		}
		scx_env_sleep_us(1000);
	}
}

status cmd_if::init(bus::mmio &bar, bus::platform &plat, const cmd_config &cfg, const char *name)
{
	bar_ = &bar;
	plat_ = &plat;
	cfg_ = cfg;
	if (name)
		name_ = name;
	SCX_TRY(lock_.init(lock_class::drv_cmd));
	SCX_TRY(slot_freed_.init());
	for (slot &s : slots_)
		SCX_TRY(s.done.init());
	SCX_TRY(pool_.init(plat));
	stats_ = static_cast<op_counters *>(alloc_bytes(sizeof(op_counters) * stat_opcodes));
	if (!stats_)
		return errc::nomem;
	for (u32 i = 0; i < stat_opcodes; i++) {
		new (&stats_[i]) op_counters();
		stats_[i].min_ns.store(~u64(0));
	}

	SCX_TRY(wait_fw_ready(cfg_.fw_init_timeout_ms));
	u32 rev = bar.read32(prm::reg_offset(iseg::cmd_interface_rev));
	u32 cmdif = prm::reg_get(rev, iseg::cmd_interface_rev);
	if (cmdif != prm::cmdq::cmd_if_rev) {
		scx_env_log(SCX_LOG_ERR, "%s: driver cmdif rev(%u) differs from firmware's(%u)", name_,
			    prm::cmdq::cmd_if_rev, cmdif);
		return errc::inval;
	}
	fw_sub_ = u16(prm::reg_get(rev, iseg::fw_rev_subminor));
	u32 fw = bar.read32(prm::reg_offset(iseg::fw_rev_major));
	fw_major_ = u16(prm::reg_get(fw, iseg::fw_rev_major));
	fw_minor_ = u16(prm::reg_get(fw, iseg::fw_rev_minor));

	// The device says how many slots it has and how far apart they are.
	u32 l = bar.read32(prm::reg_offset(iseg::log_cmdq_size));
	u32 log_sz = prm::reg_get(l, iseg::log_cmdq_size);
	log_stride_ = prm::reg_get(l, iseg::log_cmdq_stride);
	if ((1u << log_sz) > prm::cmdq::max_commands || log_sz + log_stride_ > 12 ||
	    (1u << log_stride_) < ent::size_bytes) {
		scx_env_log(SCX_LOG_ERR, "%s: unusable command queue geometry: log size %u, log stride %u",
			    name_, log_sz, log_stride_);
		return errc::inval;
	}
	nslots_ = 1u << log_sz;
	u32 all = nslots_ == 32 ? 0xffffffffu : (1u << nslots_) - 1;
	if (cfg_.reserve_page_slot && nslots_ > 1) {
		page_mask_ = 1u << (nslots_ - 1);
		regular_mask_ = all & ~page_mask_;
	} else {
		page_mask_ = 0;
		regular_mask_ = all;
	}
	free_mask_ = all;

	void *q = plat.dma_alloc(4096, &cmdq_dma_);
	if (!q)
		return errc::nomem;
	cmdq_ = static_cast<u8 *>(q);
	if (cmdq_dma_ & 0xfff) {
		scx_env_log(SCX_LOG_ERR, "%s: invalid command queue address", name_);
		return errc::nomem;
	}

	// High half first: the device takes the address when the low half
	// arrives. The size fields are written back as the device reported them.
	bar.write32(prm::reg_offset(iseg::cmdq_phy_addr_63_32), u32(cmdq_dma_ >> 32));
	u32 lo = prm::reg_set(0, iseg::cmdq_phy_addr_31_12, u32(cmdq_dma_ & 0xffffffffu) >> 12);
	lo = prm::reg_set(lo, iseg::log_cmdq_size, log_sz);
	lo = prm::reg_set(lo, iseg::log_cmdq_stride, log_stride_);
	bar.write32(prm::reg_offset(iseg::cmdq_phy_addr_31_12), lo);
	fence();

	SCX_TRY(wait_fw_ready(cfg_.fw_init_timeout_ms));
	up_ = true;
	scx_env_log(SCX_LOG_INFO, "%s: firmware version %u.%u.%u, cmdif rev %u, %u command slots", name_,
		    fw_major_, fw_minor_, fw_sub_, cmdif, nslots_);
	return status::ok();
}

void cmd_if::fini()
{
	up_ = false;
	// The device has stopped (or never started): what timed-out commands
	// still hold can be returned now.
	for (u32 i = 0; i < 32; i++) {
		slot &s = slots_[i];
		if ((s.state.load() & st_mask) == st_abandoned) {
			pool_.put_chain(s.in);
			pool_.put_chain(s.out);
			s.in = s.out = nullptr;
			s.state.store(st_idle);
			abandoned_.fetch_sub(1);
		}
	}
	pool_.fini();
	if (cmdq_) {
		plat_->dma_free(cmdq_, 4096, cmdq_dma_);
		cmdq_ = nullptr;
	}
	if (stats_) {
		for (u32 i = 0; i < stat_opcodes; i++)
			stats_[i].~op_counters();
		free_bytes(stats_);
		stats_ = nullptr;
	}
}

bool cmd_if::owned_by_hw(u32 idx) const
{
	// The last dword holds token, signature and status/ownership; read it
	// once, then decode a private copy through the PRM layout.
	const u8 *e = entry(idx);
	u32 w = __atomic_load_n(reinterpret_cast<const u32 *>(e + 60), __ATOMIC_ACQUIRE);
	u8 snap[ent::size_bytes];
	copy_bytes(snap + 60, &w, 4);
	return prm::get(snap, ent::ownership) == prm::cmdq::owner_hw;
}

u8 cmd_if::next_token()
{
	for (;;) {
		u8 t = u8(token_.fetch_add(1) + 1);
		if (t)
			return t;
	}
}

bool cmd_if::try_reclaim(u32 idx)
{
	slot &s = slots_[idx];
	u32 st = s.state.load();
	if ((st & st_mask) != st_abandoned || owned_by_hw(idx))
		return false;
	if (!s.state.compare_exchange(st, (st & ~st_mask) | st_idle))
		return false;
	scx_env_log(SCX_LOG_WARN, "%s: %s(0x%x) completed after its timeout; slot %u released", name_,
		    opcode_name(s.opcode), s.opcode, idx);
	pool_.put_chain(s.in);
	pool_.put_chain(s.out);
	s.in = s.out = nullptr;
	abandoned_.fetch_sub(1);
	free_slot(idx);
	return true;
}

void cmd_if::reclaim_returned()
{
	for (u32 i = 0; i < nslots_ && abandoned_.load(); i++)
		try_reclaim(i);
}

void cmd_if::free_slot(u32 idx)
{
	lock_guard g(lock_);
	free_mask_ |= 1u << idx;
	if (waiters_)
		slot_freed_.complete();
}

result<u32> cmd_if::alloc_slot(bool page_cmd)
{
	u32 mask = page_cmd && page_mask_ ? page_mask_ : regular_mask_;
	u64 end = scx_env_now_ns() + ms_to_ns(cfg_.timeout_ms);
	for (;;) {
		if (in_error())
			return errc::io;
		if (abandoned_.load())
			reclaim_returned();
		unsigned long f = lock_.lock();
		u32 avail = free_mask_ & mask;
		if (avail) {
			u32 idx = u32(__builtin_ctz(avail));
			free_mask_ &= ~(1u << idx);
			lock_.unlock(f);
			return idx;
		}
		waiters_++;
		lock_.unlock(f);
		u64 now = scx_env_now_ns();
		if (now < end) {
			// Short naps: a slot the device returns after a timeout is
			// only noticed by looking (in polling mode nothing signals it).
			u64 left_ms = (end - now) / 1000000 + 1;
			(void)slot_freed_.wait(u32(min<u64>(left_ms, 10)));
		}
		f = lock_.lock();
		waiters_--;
		lock_.unlock(f);
		if (now >= end)
			return errc::busy;
	}
}

void cmd_if::fill_entry(u32 idx, const void *in, u32 inlen, u32 outlen, u8 token)
{
	slot &s = slots_[idx];
	u8 *e = entry(idx);
	zero_bytes(e, ent::size_bytes);
	prm::set(e, ent::type, prm::cmdq::type_pcie);
	prm::set(e, ent::input_length, inlen);
	copy_bytes(prm::at(e, ent::command_input_inline_data), in, min(inlen, inline_bytes));
	if (s.in)
		set_ptr(e, s.in->dma, true);
	if (s.out)
		set_ptr(e, s.out->dma, false);
	prm::set(e, ent::output_length, outlen);
	prm::set(e, ent::token, token);
	prm::set(e, ent::ownership, prm::cmdq::owner_hw);
	if (cfg_.checksum) {
		sign_chain(s.in);
		sign_chain(s.out);
		prm::set(e, ent::signature, u8(~prm::cmdq::xor8(e, ent::size_bytes)));
	}
}

status cmd_if::wait_done(u32 idx, u32 gen, bool polling)
{
	slot &s = slots_[idx];
	u64 end = s.t_start + ms_to_ns(cfg_.timeout_ms);
	if (polling) {
		for (u32 spins = 0; owned_by_hw(idx) && scx_env_now_ns() <= end && !in_error(); spins++) {
			if (spins < 64)
				scx_env_relax();
			else
				scx_env_sleep_us(spins < 256 ? 10 : 100);
		}
	} else {
		// Naps, not one long sleep: a completion whose event never comes
		// (the EQ went away, the mode changed) is still seen by its
		// ownership bit.
		for (;;) {
			u64 now = scx_env_now_ns();
			u32 nap = now >= end ? 0 : u32(min<u64>((end - now) / 1000000 + 1, event_nap_ms));
			// Only the handler completes, and only after claiming this command.
			if (nap && s.done.wait(nap).is_ok())
				return status::ok();
			if (!owned_by_hw(idx) || scx_env_now_ns() > end || in_error())
				break;
		}
	}
	u32 exp = gen | st_in_flight;
	if (!owned_by_hw(idx)) {
		if (s.state.compare_exchange(exp, gen | st_claimed)) {
			if (!polling)
				recovered_.fetch_add(1, mo::relaxed);
			return status::ok();
		}
	} else if (s.state.compare_exchange(exp, gen | st_abandoned)) {
		abandoned_.fetch_add(1);
		if (in_error())
			return errc::io; // the device will never answer
		scx_env_log(SCX_LOG_ERR, "%s: %s(0x%x) timed out after %u ms; slot %u kept until the device returns it",
			    name_, opcode_name(s.opcode), s.opcode, cfg_.timeout_ms, idx);
		return errc::timedout;
	}
	// The handler claimed it first; its complete() is due, and must be
	// consumed before the slot is used again.
	for (u32 i = 0; !s.done.wait(1000).is_ok(); i++)
		if (i == 10)
			scx_env_bug("cmd_if: claimed command never completed");
	return status::ok();
}

void cmd_if::complete(u32 vector)
{
	vector &= nslots_ == 32 ? 0xffffffffu : (1u << nslots_) - 1;
	while (vector) {
		u32 idx = u32(__builtin_ctz(vector));
		vector &= vector - 1;
		slot &s = slots_[idx];
		// State before ownership: a bit left over from an earlier command
		// must not complete the one now in the slot.
		u32 st = s.state.load();
		u32 phase = st & st_mask;
		if (phase == st_abandoned) {
			try_reclaim(idx);
			continue;
		}
		if (phase != st_in_flight || owned_by_hw(idx))
			continue;
		if (s.state.compare_exchange(st, (st & ~st_mask) | st_claimed))
			s.done.complete();
	}
}

status cmd_if::finish(u32 idx, void *out, u32 outlen, u32 flags, const void *in, done_info *di)
{
	slot &s = slots_[idx];
	u8 e[ent::size_bytes];
	fence(mo::acquire);
	copy_bytes(e, entry(idx), sizeof(e));
	u16 op = s.opcode;
	if (cfg_.checksum && (prm::cmdq::xor8(e, sizeof(e)) != 0xff || !chain_sig_ok(s.out))) {
		scx_env_log(SCX_LOG_ERR, "%s: %s(0x%x) output signature mismatch", name_, opcode_name(op), op);
		di->syndrome = prm::delivery_stat::signat_err;
		return errc_badr;
	}
	u8 dstat = u8(prm::get(e, ent::status));
	if (dstat) {
		di->syndrome = dstat;
		errc err = delivery_status_to_errc(dstat);
		scx_env_log(SCX_LOG_ERR, "%s: %s(0x%x) not delivered: %s(0x%x), err %d", name_, opcode_name(op),
			    op, delivery_status_name(dstat), dstat, -int(err));
		return err;
	}
	u8 *o = static_cast<u8 *>(out);
	copy_bytes(o, prm::at(e, ent::command_output_inline_data), min(outlen, inline_bytes));
	if (outlen > inline_bytes)
		copy_from_chain(o + inline_bytes, s.out, outlen - inline_bytes);
	u8 st = u8(prm::get(o, prm::mbox_out::status));
	di->status = st;
	if (!st)
		return status::ok();
	u32 synd = u32(prm::get(o, prm::mbox_out::syndrome));
	di->syndrome = synd;
	if (flags & f_quiet)
		return errc::remoteio;
	if ((flags & f_quiet_busy) && st == prm::cmd_stat::bad_res_state_err)
		return errc::busy;
	errc err = cmd_status_to_errc(st);
	scx_env_log(SCX_LOG_ERR, "%s: %s(0x%x) op_mod(0x%x) failed, status %s(0x%x), syndrome (0x%x), err(%d)",
		    name_, opcode_name(op), op, unsigned(prm::get(in, prm::mbox_in::op_mod)),
		    cmd_status_name(st), st, synd, -int(err));
	return err;
}

void cmd_if::account(u16 opcode, status s, bool timed_out, u64 ns)
{
	op_counters &c = stats_[opcode_stat_index(opcode)];
	c.count.fetch_add(1, mo::relaxed);
	if (!s.is_ok())
		c.errors.fetch_add(1, mo::relaxed);
	if (timed_out) {
		c.timeouts.fetch_add(1, mo::relaxed);
		return;
	}
	c.completed.fetch_add(1, mo::relaxed);
	c.sum_ns.fetch_add(ns, mo::relaxed);
	u64 cur = c.min_ns.load(mo::relaxed);
	while (ns < cur && !c.min_ns.compare_exchange(cur, ns, mo::relaxed)) {
	}
	cur = c.max_ns.load(mo::relaxed);
	while (ns > cur && !c.max_ns.compare_exchange(cur, ns, mo::relaxed)) {
	}
}

// mlx5_core's list (mlx5_internal_err_ret_value), as far as softcx's
// firmware serves these opcodes.
static bool releases_only(u16 op)
{
	switch (op) {
	case prm::op::teardown_hca:
	case prm::op::disable_hca:
	case prm::op::manage_pages:
	case prm::op::destroy_mkey:
	case prm::op::destroy_eq:
	case prm::op::destroy_cq:
	case prm::op::destroy_qp:
	case prm::op::qp_2err:
	case prm::op::qp_2rst:
	case prm::op::destroy_srq:
	case prm::op::dealloc_q_counter:
	case prm::op::dealloc_pd:
	case prm::op::dealloc_uar:
		return true;
	default:
		return false;
	}
}

status cmd_if::error_answer(u16 op, void *out, u32 outlen)
{
	error_answers_.fetch_add(1, mo::relaxed);
	if (!releases_only(op))
		return errc::io;
	zero_bytes(out, outlen);
	return status::ok();
}

status cmd_if::exec(const void *in, u32 inlen, void *out, u32 outlen, u32 flags)
{
	if (!up_)
		return errc::io;
	if (inlen < prm::mbox_in::size_bytes || outlen < prm::mbox_out::size_bytes || !in || !out)
		return errc::inval;
	u16 op = u16(prm::get(in, prm::mbox_in::opcode));
	if (in_error())
		return error_answer(op, out, outlen);
	u8 token = next_token();
	u32 nin = prm::cmdq::blocks_for(inlen), nout = prm::cmdq::blocks_for(outlen);
	raise_max(max_in_blocks_, nin);
	raise_max(max_out_blocks_, nout);
	auto ib = pool_.get_chain(nin, token);
	if (!ib)
		return ib.error();
	auto ob = pool_.get_chain(nout, token);
	if (!ob) {
		pool_.put_chain(*ib);
		return ob.error();
	}
	if (inlen > inline_bytes)
		copy_to_chain(*ib, static_cast<const u8 *>(in) + inline_bytes, inlen - inline_bytes);

	auto idx = alloc_slot(op == prm::op::manage_pages);
	if (!idx && in_error()) {
		pool_.put_chain(*ib);
		pool_.put_chain(*ob);
		return error_answer(op, out, outlen);
	}
	if (!idx) {
		scx_env_log(SCX_LOG_ERR, "%s: %s(0x%x) timed out waiting for a command slot", name_,
			    opcode_name(op), op);
		pool_.put_chain(*ib);
		pool_.put_chain(*ob);
		account(op, idx.error(), false, 0);
		return idx.error();
	}
	slot &s = slots_[*idx];
	s.in = *ib;
	s.out = *ob;
	s.opcode = op;
	s.done.reinit();
	fill_entry(*idx, in, inlen, outlen, token);
	bool polling = (flags & f_polling) || current_mode() == mode::polling;
	u32 gen = (s.state.load() & ~u32(st_mask)) + gen_one;
	// Traced before the clock starts: an enabled tracepoint is not latency.
	scx_env_trace_cmd_post(name_, op, u8(*idx), token);
	s.t_start = scx_env_now_ns();
	// The descriptor (and mailboxes) must be complete before the doorbell.
	s.state.store(gen | st_in_flight, mo::release);
	fence();
	bar_->write32(prm::reg_offset(prm::init_seg::cmd_dbell), 1u << *idx);

	status st = wait_done(*idx, gen, polling);
	if (st.code() == errc::timedout || st.code() == errc::io) {
		scx_env_trace_cmd_done(name_, op, u8(*idx), trace_no_output, 0, scx_env_now_ns() - s.t_start);
		account(op, st, st.code() == errc::timedout, 0);
		// The slot and mailboxes stay with the device.
		return st.code() == errc::io ? error_answer(op, out, outlen) : st;
	}
	u64 ns = scx_env_now_ns() - s.t_start;
	done_info di;
	st = finish(*idx, out, outlen, flags, in, &di);
	scx_env_trace_cmd_done(name_, op, u8(*idx), di.status, di.syndrome, ns);
	pool_.put_chain(s.in);
	pool_.put_chain(s.out);
	s.in = s.out = nullptr;
	s.state.store(gen | st_idle);
	free_slot(*idx);
	account(op, st, false, ns);
	return st;
}

bool cmd_if::op_stat(u32 index, cmd_op_stat *out) const
{
	if (index >= stat_opcodes || !stats_)
		return false;
	u16 op = stat_index_opcode(index);
	const op_counters &c = stats_[index];
	out->opcode = op;
	out->count = c.count.load(mo::relaxed);
	out->errors = c.errors.load(mo::relaxed);
	out->timeouts = c.timeouts.load(mo::relaxed);
	u64 done = c.completed.load(mo::relaxed);
	out->lat_min_ns = done ? c.min_ns.load(mo::relaxed) : 0;
	out->lat_max_ns = c.max_ns.load(mo::relaxed);
	out->lat_avg_ns = done ? c.sum_ns.load(mo::relaxed) / done : 0;
	return true;
}

} // namespace scx::driver
