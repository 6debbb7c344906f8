// SPDX-License-Identifier: GPL-2.0
#include "driver/pages.h"

#include "driver/cmd_if.h"
#include "lib/new.h"
#include "prm/cmd.h"
#include "prm/pages.h"

namespace scx::driver {

namespace mp_in = prm::manage_pages_in;
namespace mp_out = prm::manage_pages_out;
using prm::fw_page::size;

namespace {
constexpr u32 buckets_log2 = 10;
}

status fw_pages::init(cmd_if &cmd, bus::platform &plat, const char *name)
{
	cmd_ = &cmd;
	plat_ = &plat;
	if (name)
		name_ = name;
	SCX_TRY(lock_.init(lock_class::drv_cmd));
	SCX_TRY(req_lock_.init(lock_class::drv_eq));
	buckets_ = static_cast<node **>(alloc_bytes(sizeof(node *) << buckets_log2));
	if (!buckets_)
		return errc::nomem;
	mask_ = (1u << buckets_log2) - 1;
	work_ = scx_env_work_new(work_fn, this);
	if (!work_)
		return errc::nomem;
	serving_.store(true);
	return status::ok();
}

void fw_pages::stop()
{
	serving_.store(false);
	if (work_) {
		scx_env_work_free(work_);
		work_ = nullptr;
	}
}

void fw_pages::fini()
{
	stop();
	if (!buckets_)
		return;
	// A dead device returns nothing: its pages are simply ours again.
	if (held_ && !(cmd_ && cmd_->in_error()))
		scx_env_log(SCX_LOG_WARN, "%s: freeing %u pages the device did not return", name_, held_);
	for (u32 b = 0; b <= mask_; b++) {
		while (node *n = buckets_[b]) {
			buckets_[b] = n->next;
			free_page(n);
		}
	}
	held_ = 0;
	free_bytes(buckets_);
	buckets_ = nullptr;
}

fw_pages::node *fw_pages::alloc_page()
{
	node *n = make<node>();
	if (!n)
		return nullptr;
	n->cpu = plat_->dma_alloc(size, &n->dma);
	// Address 0 means "no page" to the device; 4 KiB alignment is the PRM's.
	if (!n->cpu || !n->dma || (n->dma & (size - 1))) {
		if (n->cpu)
			plat_->dma_free(n->cpu, size, n->dma);
		destroy(n);
		return nullptr;
	}
	return n;
}

void fw_pages::free_page(node *n)
{
	plat_->dma_free(n->cpu, size, n->dma);
	destroy(n);
}

void fw_pages::track(node *n)
{
	lock_guard g(lock_);
	node **b = &buckets_[(n->dma >> prm::fw_page::shift) & mask_];
	n->next = *b;
	*b = n;
	held_++;
}

fw_pages::node *fw_pages::untrack(u64 dma)
{
	lock_guard g(lock_);
	for (node **p = &buckets_[(dma >> prm::fw_page::shift) & mask_]; *p; p = &(*p)->next) {
		if ((*p)->dma == dma) {
			node *n = *p;
			*p = n->next;
			held_--;
			return n;
		}
	}
	return nullptr;
}

void fw_pages::notify_cant_give(u16 func_id)
{
	u8 in[mp_in::size_bytes] = {};
	u8 out[mp_out::size_bytes] = {};
	prm::set(in, mp_in::opcode, prm::op::manage_pages);
	prm::set(in, mp_in::op_mod, prm::manage_pages_op_mod::allocation_fail);
	prm::set(in, mp_in::function_id, func_id);
	status s = cmd_->exec(in, sizeof(in), out, sizeof(out));
	if (!s)
		scx_env_log(SCX_LOG_WARN, "%s: page notify failed func_id(%u) err(%d)", name_, func_id,
			    s.to_errno());
}

status fw_pages::give(u16 func_id, u32 npages, bool event)
{
	while (npages) {
		u32 k = min(npages, max_per_cmd);
		u32 inlen = mp_in::size_bytes + k * 8;
		u8 *in = static_cast<u8 *>(alloc_bytes(inlen));
		if (!in)
			return errc::nomem;
		node *list = nullptr;
		u32 got = 0;
		for (; got < k; got++) {
			node *n = alloc_page();
			if (!n)
				break;
			n->next = list;
			list = n;
			store_be<u64>(prm::at(in, mp_in::pas, got, 8), n->dma);
		}
		status s = errc::nomem;
		if (got == k) {
			u8 out[mp_out::size_bytes] = {};
			prm::set(in, mp_in::opcode, prm::op::manage_pages);
			prm::set(in, mp_in::op_mod, prm::manage_pages_op_mod::allocation_success);
			prm::set(in, mp_in::function_id, func_id);
			prm::set(in, mp_in::input_num_entries, k);
			s = cmd_->exec(in, inlen, out, sizeof(out), event ? cmd_if::f_quiet : 0);
		} else {
			give_failed_.fetch_add(npages, mo::relaxed);
			scx_env_log(SCX_LOG_WARN, "%s: could only allocate %u of %u firmware pages", name_, got, k);
		}
		free_bytes(in);
		if (s.code() == errc::timedout) {
			// The device may still take them: they stay tracked (and
			// are freed after DISABLE_HCA at the latest).
			while (node *n = list) {
				list = n->next;
				track(n);
			}
			return s;
		}
		if (!s) {
			while (node *n = list) {
				list = n->next;
				free_page(n);
			}
			// A failed allocation is reported to the device; a refusal
			// by the device during an event needs nothing more.
			if (s.code() == errc::nomem && event)
				notify_cant_give(func_id);
			if (s.code() == errc::remoteio && event)
				return status::ok();
			return s;
		}
		while (node *n = list) {
			list = n->next;
			track(n);
		}
		given_.fetch_add(k, mo::relaxed);
		npages -= k;
	}
	return status::ok();
}

status fw_pages::reclaim(u16 func_id, u32 npages, u32 *claimed, bool event)
{
	*claimed = 0;
	npages = min(npages, max_per_cmd);
	u32 outlen = mp_out::size_bytes + npages * 8;
	u8 *out = static_cast<u8 *>(alloc_bytes(outlen));
	if (!out)
		return errc::nomem;
	u8 in[mp_in::size_bytes] = {};
	prm::set(in, mp_in::opcode, prm::op::manage_pages);
	prm::set(in, mp_in::op_mod, prm::manage_pages_op_mod::hca_return_pages);
	prm::set(in, mp_in::function_id, func_id);
	prm::set(in, mp_in::input_num_entries, npages);
	status s = cmd_->exec(in, sizeof(in), out, outlen, event ? cmd_if::f_quiet : 0);
	if (!s) {
		free_bytes(out);
		return s.code() == errc::remoteio && event ? status::ok() : s;
	}
	u32 num = u32(prm::get(out, mp_out::output_num_entries));
	if (num > npages) {
		scx_env_log(SCX_LOG_ERR, "%s: firmware returned %u pages, driver asked %u", name_, num, npages);
		free_bytes(out);
		return errc::inval;
	}
	for (u32 i = 0; i < num; i++) {
		u64 dma = load_be<u64>(prm::at(out, mp_out::pas, i, 8));
		node *n = untrack(dma);
		if (!n) {
			scx_env_log(SCX_LOG_WARN, "%s: firmware returned unknown page 0x%llx", name_,
				    (unsigned long long)dma);
			continue;
		}
		free_page(n);
		(*claimed)++;
	}
	reclaimed_.fetch_add(*claimed, mo::relaxed);
	free_bytes(out);
	return status::ok();
}

status fw_pages::satisfy_startup(bool boot)
{
	namespace qi = prm::query_pages_in;
	namespace qo = prm::query_pages_out;
	u8 in[qi::size_bytes] = {};
	u8 out[qo::size_bytes] = {};
	prm::set(in, qi::opcode, prm::op::query_pages);
	prm::set(in, qi::op_mod, boot ? prm::query_pages_op_mod::boot_pages : prm::query_pages_op_mod::init_pages);
	SCX_TRY(cmd_->exec(in, sizeof(in), out, sizeof(out)));
	func_id_ = u16(prm::get(out, qo::function_id));
	i32 n = i32(u32(prm::get(out, qo::num_pages)));
	scx_env_log(SCX_LOG_DEBUG, "%s: firmware wants %d %s pages for func_id 0x%x", name_, n,
		    boot ? "boot" : "init", func_id_);
	return n > 0 ? give(func_id_, u32(n)) : status::ok();
}

status fw_pages::reclaim_all(u32 timeout_ms)
{
	if (cmd_->in_error())
		return status::ok(); // nobody to ask; fini() frees them

	u64 deadline = scx_env_now_ns() + u64(timeout_ms) * 1000000;
	for (;;) {
		u32 left;
		{
			lock_guard g(lock_);
			left = held_;
		}
		if (!left)
			return status::ok();
		u32 got = 0;
		SCX_TRY(reclaim(func_id_, left, &got));
		u64 now = scx_env_now_ns();
		if (got)
			deadline = now + u64(timeout_ms) * 1000000;
		else if (now > deadline) {
			scx_env_log(SCX_LOG_WARN, "%s: firmware did not return %u pages, giving up", name_, left);
			return errc::timedout;
		} else
			scx_env_sleep_us(1000);
	}
}

void fw_pages::request(u16 func_id, i32 npages)
{
	requests_.fetch_add(1, mo::relaxed);
	bool queued = true;
	{
		lock_guard g(req_lock_);
		if (req_head_ - req_tail_ < req_ring)
			reqs_[req_head_++ % req_ring] = {func_id, npages};
		else
			queued = false;
	}
	if (!queued) {
		dropped_.fetch_add(1, mo::relaxed);
		scx_env_log(SCX_LOG_WARN, "%s: page request dropped (%d pages)", name_, npages);
		return;
	}
	if (work_ && serving_.load())
		scx_env_work_queue(work_);
}

void fw_pages::work_fn(void *arg)
{
	auto *self = static_cast<fw_pages *>(arg);
	for (;;) {
		req r;
		{
			lock_guard g(self->req_lock_);
			if (self->req_tail_ == self->req_head_)
				return;
			r = self->reqs_[self->req_tail_++ % req_ring];
		}
		if (!self->serving_.load())
			continue;
		status s = status::ok();
		u32 got = 0;
		if (r.npages > 0)
			s = self->give(r.func_id, u32(r.npages), true);
		else if (r.npages < 0)
			s = self->reclaim(r.func_id, u32(-r.npages), &got, true);
		if (!s)
			scx_env_log(SCX_LOG_WARN, "%s: %s of %d pages failed: %d", self->name_,
				    r.npages < 0 ? "reclaim" : "give", r.npages, s.to_errno());
	}
}

fw_pages_stats fw_pages::stats() const
{
	fw_pages_stats s{};
	s.held = held_;
	s.given = given_.load(mo::relaxed);
	s.reclaimed = reclaimed_.load(mo::relaxed);
	s.requests = requests_.load(mo::relaxed);
	s.give_failed = give_failed_.load(mo::relaxed);
	s.requests_dropped = dropped_.load(mo::relaxed);
	return s;
}

} // namespace scx::driver
