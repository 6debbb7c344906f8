// SPDX-License-Identifier: GPL-2.0
#include "test_driver_fake.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "prm/cmd.h"
#include "prm/cmdq.h"
#include "prm/cq.h"
#include "prm/eq.h"
#include "prm/hca.h"
#include "prm/hca_cap.h"
#include "prm/init_seg.h"
#include "prm/pages.h"
#include "prm/reg.h"
#include "prm/uar.h"
#include "softcx/env.h"

using namespace scx;
namespace ent = prm::cmd_queue_entry;
namespace box = prm::cmd_if_box;
namespace iseg = prm::initial_seg;

fake_fw::fake_fw(bus::irq_sink *irq) : irq_(irq) { thread_ = std::thread([this] { worker(); }); }

fake_fw::~fake_fw()
{
	{
		std::lock_guard<std::mutex> g(mu_);
		stop_ = true;
		cv_.notify_all();
	}
	thread_.join();
}

uint32_t fake_fw::read32(uint32_t off)
{
	if (off == prm::reg_offset(iseg::fw_rev_major))
		return prm::reg_set(prm::reg_set(0, iseg::fw_rev_major, 16), iseg::fw_rev_minor, 35);
	if (off == prm::reg_offset(iseg::cmd_interface_rev))
		return prm::reg_set(prm::reg_set(0, iseg::cmd_interface_rev, cmdif_rev), iseg::fw_rev_subminor, 1000);
	if (off == prm::reg_offset(iseg::log_cmdq_size)) {
		uint32_t v = prm::reg_set(0, iseg::log_cmdq_size, log_sz);
		v = prm::reg_set(v, iseg::log_cmdq_stride, log_stride);
		return prm::reg_set(v, iseg::cmdq_phy_addr_31_12, uint32_t(cmdq_ & 0xffffffffu) >> 12);
	}
	if (off == prm::reg_offset(iseg::initializing)) {
		if (initializing_reads.load() > 0) {
			initializing_reads--;
			return prm::reg_set(0, iseg::initializing, 1);
		}
		return 0;
	}
	return 0;
}

void fake_fw::write32(uint32_t off, uint32_t v)
{
	if (off == prm::reg_offset(iseg::cmdq_phy_addr_63_32))
		addr_h_ = v;
	else if (off == prm::reg_offset(iseg::cmdq_phy_addr_31_12))
		cmdq_ = (uint64_t(addr_h_) << 32) | (uint64_t(prm::reg_get(v, iseg::cmdq_phy_addr_31_12)) << 12);
	else if (off == prm::reg_offset(prm::init_seg::cmd_dbell))
		ring(v);
	else if (off >= prm::uar_page::size)
		eq_doorbell(off, v);
}

void fake_fw::ring(uint32_t bits)
{
	for (uint32_t i = 0; i < 32; i++) {
		if (!(bits & (1u << i)))
			continue;
		unsigned n = ++in_flight_;
		unsigned m = max_in_flight_.load();
		while (n > m && !max_in_flight_.compare_exchange_weak(m, n)) {
		}
		if (delay_us.load()) {
			std::lock_guard<std::mutex> g(mu_);
			queue_.push_back(i);
			cv_.notify_all();
		} else {
			execute(i);
		}
	}
}

void fake_fw::worker()
{
	std::unique_lock<std::mutex> g(mu_);
	for (;;) {
		cv_.wait(g, [this] { return stop_ || !queue_.empty(); });
		if (stop_)
			return;
		uint32_t slot = queue_.front();
		queue_.pop_front();
		g.unlock();
		std::this_thread::sleep_for(std::chrono::microseconds(delay_us.load()));
		execute(slot);
		g.lock();
	}
}

void fake_fw::release_held()
{
	std::vector<uint32_t> h;
	{
		std::lock_guard<std::mutex> g(mu_);
		h.swap(held_);
	}
	hold_opcode = -1;
	for (uint32_t s : h)
		execute(s);
}

unsigned fake_fw::held()
{
	std::lock_guard<std::mutex> g(mu_);
	return unsigned(held_.size());
}

namespace {

uint64_t ptr_of(const uint8_t *e, bool input)
{
	if (input)
		return (uint64_t(prm::get(e, ent::input_mailbox_pointer_63_32)) << 32) |
		       (uint64_t(prm::get(e, ent::input_mailbox_pointer_31_9)) << 9);
	return (uint64_t(prm::get(e, ent::output_mailbox_pointer_63_32)) << 32) |
	       (uint64_t(prm::get(e, ent::output_mailbox_pointer_31_9)) << 9);
}

uint64_t next_of(const uint8_t *b)
{
	return (uint64_t(prm::get(b, box::next_pointer_63_32)) << 32) |
	       (uint64_t(prm::get(b, box::next_pointer_31_10)) << 10);
}

// The blocks of a chain in order, checked; empty with *err set on a fault.
std::vector<uint8_t *> walk(uint64_t p, uint32_t len, uint8_t token, bool check_sig, uint8_t *err)
{
	std::vector<uint8_t *> blocks;
	uint32_t n = prm::cmdq::blocks_for(len);
	for (uint32_t i = 0; i < n; i++) {
		auto *b = static_cast<uint8_t *>(scx_env_dma_to_cpu(nullptr, p, box::size_bytes));
		if (!b || (p & 1023)) {
			*err = prm::delivery_stat::in_ptr_align_err;
			return {};
		}
		if (prm::get(b, box::block_number) != i) {
			*err = prm::delivery_stat::bad_blk_num_err;
			return {};
		}
		if (prm::get(b, box::token) != token) {
			*err = prm::delivery_stat::tok_err;
			return {};
		}
		if (check_sig && (prm::cmdq::xor8(b, box::size_bytes) != 0xff ||
				  prm::cmdq::xor8(b + box::ctrl_sig_first, box::ctrl_sig_len + 1) != 0xff)) {
			*err = prm::delivery_stat::signat_err;
			return {};
		}
		blocks.push_back(b);
		p = next_of(b);
	}
	return blocks;
}

void sign_block(uint8_t *b)
{
	prm::set(b, box::ctrl_signature, 0);
	prm::set(b, box::signature, 0);
	prm::set(b, box::ctrl_signature, uint8_t(~prm::cmdq::xor8(b + box::ctrl_sig_first, box::ctrl_sig_len)));
	prm::set(b, box::signature, uint8_t(~prm::cmdq::xor8(b, box::size_bytes - 1)));
}

void max_into(std::atomic<unsigned> &m, unsigned v)
{
	unsigned cur = m.load();
	while (v > cur && !m.compare_exchange_weak(cur, v)) {
	}
}

} // namespace

void fake_fw::execute(uint32_t slot)
{
	auto *e = static_cast<uint8_t *>(scx_env_dma_to_cpu(nullptr, cmdq_ + (uint64_t(slot) << log_stride), 64));
	if (!e)
		return;
	uint8_t token = uint8_t(prm::get(e, ent::token));
	uint32_t inlen = uint32_t(prm::get(e, ent::input_length));
	uint32_t outlen = uint32_t(prm::get(e, ent::output_length));
	bool check_sig = prm::get(e, ent::signature) != 0;
	last_token_ = token;
	uint8_t dstat = 0;
	if (check_sig && prm::cmdq::xor8(e, 64) != 0xff)
		dstat = prm::delivery_stat::signat_err;

	std::vector<uint8_t> in(std::max<uint32_t>(inlen, 16)), out(std::max<uint32_t>(outlen, 16));
	std::memcpy(in.data(), prm::at(e, ent::command_input_inline_data), std::min<uint32_t>(inlen, 16));
	auto ib = walk(ptr_of(e, true), inlen, token, check_sig, &dstat);
	auto ob = walk(ptr_of(e, false), outlen, token, check_sig, &dstat);
	max_into(max_in_blocks_, unsigned(ib.size()));
	max_into(max_out_blocks_, unsigned(ob.size()));
	for (size_t i = 0; i < ib.size(); i++) {
		uint32_t off = 16 + uint32_t(i) * 512;
		std::memcpy(in.data() + off, prm::at(ib[i], box::mailbox_data), std::min<uint32_t>(512, inlen - off));
	}
	int op = int(prm::get(in.data(), prm::mbox_in::opcode));
	if (op == hold_opcode.load()) {
		std::lock_guard<std::mutex> g(mu_);
		held_.push_back(slot);
		return;
	}
	if (!dstat && op == delivery_opcode.load())
		dstat = delivery.load();
	if (!dstat) {
		if (op == op_echo) {
			std::memcpy(out.data() + 16, in.data() + 16, std::min(inlen, outlen) > 16 ? std::min(inlen, outlen) - 16 : 0);
		} else if (full && op != prm::op::nop) {
			run_full(uint16_t(op), in, out);
		} else if (op != prm::op::nop) {
			prm::set(out.data(), prm::mbox_out::status, prm::cmd_stat::bad_op_err);
			prm::set(out.data(), prm::mbox_out::syndrome, 0x1234);
		}
		if (op == status_opcode.load()) {
			prm::set(out.data(), prm::mbox_out::status, status.load());
			prm::set(out.data(), prm::mbox_out::syndrome, syndrome.load());
		}
		std::memcpy(prm::at(e, ent::command_output_inline_data), out.data(), 16);
		for (size_t i = 0; i < ob.size(); i++) {
			uint32_t off = 16 + uint32_t(i) * 512;
			std::memcpy(prm::at(ob[i], box::mailbox_data), out.data() + off,
				    std::min<uint32_t>(512, outlen - off));
			if (sign_output)
				sign_block(ob[i]);
		}
	}
	executed_++;
	// Status and ownership go out last, in one store.
	uint8_t img[64];
	std::memcpy(img, e, 64);
	prm::set(img, ent::status, dstat);
	prm::set(img, ent::ownership, prm::cmdq::owner_sw);
	if (sign_output) {
		prm::set(img, ent::signature, 0);
		prm::set(img, ent::signature, uint8_t(~prm::cmdq::xor8(img, 64)));
	}
	std::memcpy(e, img, 60);
	uint32_t tail;
	std::memcpy(&tail, img + 60, 4);
	__atomic_store_n(reinterpret_cast<uint32_t *>(e + 60), tail, __ATOMIC_RELEASE);
	in_flight_--;
	if (on_complete)
		on_complete(1u << slot);
	if (full) {
		uint8_t d[28] = {};
		prm::set(d, prm::cmd_inter_comp_event::command_completion_vector, 1u << slot);
		post_eqe(prm::event_type::cmd, 0, d);
	}
}

// ---- full mode: bring-up commands, pages, EQs ----

void fake_fw::run_full(uint16_t op, std::vector<uint8_t> &in, std::vector<uint8_t> &out)
{
	uint8_t *o = out.data();
	switch (op) {
	case prm::op::query_issi:
		if (out.size() >= prm::query_issi_out::size_bytes)
			prm::set(o, prm::query_issi_out::supported_issi_dw0, 3);
		return;
	case prm::op::query_pages: {
		uint16_t mod = uint16_t(prm::get(in.data(), prm::query_pages_in::op_mod));
		prm::set(o, prm::query_pages_out::num_pages,
			 mod == prm::query_pages_op_mod::boot_pages ? boot_pages : init_pages);
		return;
	}
	case prm::op::manage_pages: {
		uint16_t mod = uint16_t(prm::get(in.data(), prm::manage_pages_in::op_mod));
		uint32_t n = uint32_t(prm::get(in.data(), prm::manage_pages_in::input_num_entries));
		std::lock_guard<std::mutex> g(eq_mu_);
		if (mod == prm::manage_pages_op_mod::allocation_success) {
			for (uint32_t i = 0; i < n; i++) {
				uint64_t a = load_be<uint64_t>(prm::at(in.data(), prm::manage_pages_in::pas, i, 8));
				if (!scx_env_dma_to_cpu(nullptr, a, 4096)) {
					prm::set(o, prm::mbox_out::status, prm::cmd_stat::bad_param_err);
					return;
				}
				pages_.push_back(a);
			}
		} else if (mod == prm::manage_pages_op_mod::hca_return_pages) {
			uint32_t k = 0;
			for (; k < n && !pages_.empty() && 16 + (k + 1) * 8 <= out.size(); k++) {
				store_be<uint64_t>(prm::at(o, prm::manage_pages_out::pas, k, 8), pages_.back());
				pages_.pop_back();
			}
			prm::set(o, prm::manage_pages_out::output_num_entries, k);
		}
		return;
	}
	case prm::op::query_hca_cap: {
		uint16_t mod = uint16_t(prm::get(in.data(), prm::query_hca_cap_in::op_mod));
		uint8_t *cap = prm::at(o, prm::query_hca_cap_out::capability);
		if (mod >> 1 == prm::cap_type::general) {
			prm::set(cap, prm::cmd_hca_cap::atomic, 1);
			prm::set(cap, prm::cmd_hca_cap::roce, 1);
			prm::set(cap, prm::cmd_hca_cap::log_max_cq, 16);
		} else if (mod >> 1 == prm::cap_type::atomic) {
			prm::set(cap, prm::atomic_caps::supported_atomic_req_8B_endianness_mode_1, 1);
		} else if (mod >> 1 == prm::cap_type::roce && (mod & 1) == prm::cap_mode::max) {
			prm::set(cap, prm::roce_cap::sw_r_roce_src_udp_port, 1);
		}
		return;
	}
	case prm::op::alloc_uar:
		prm::set(o, prm::alloc_uar_out::uar, 3);
		return;
	case prm::op::create_eq: {
		const uint8_t *eqc = prm::at(in.data(), prm::create_eq_in::eq_context_entry);
		fake_eq q{};
		q.log = uint32_t(prm::get(eqc, prm::eqc::log_eq_size));
		q.vector = uint32_t(prm::get(eqc, prm::eqc::intr));
		q.mask = load_be<uint64_t>(prm::at(in.data(), prm::create_eq_in::event_bitmask, 0, 8));
		uint32_t npages = std::max<uint32_t>(1, ((1u << q.log) * 64) / 4096);
		for (uint32_t i = 0; i < npages; i++)
			q.pages.push_back(load_be<uint64_t>(prm::at(in.data(), prm::create_eq_in::pas, i, 8)));
		std::lock_guard<std::mutex> g(eq_mu_);
		q.eqn = next_eqn_++;
		eqs_.push_back(q);
		prm::set(o, prm::create_eq_out::eq_number, q.eqn);
		return;
	}
	case prm::op::destroy_eq: {
		uint32_t eqn = uint32_t(prm::get(in.data(), prm::destroy_eq_in::eq_number));
		std::lock_guard<std::mutex> g(eq_mu_);
		for (size_t i = 0; i < eqs_.size(); i++)
			if (eqs_[i].eqn == eqn) {
				eqs_.erase(eqs_.begin() + long(i));
				return;
			}
		prm::set(o, prm::mbox_out::status, prm::cmd_stat::bad_res_err);
		return;
	}
	case prm::op::create_cq: {
		std::lock_guard<std::mutex> g(eq_mu_);
		prm::set(o, prm::create_cq_out::cqn, next_cqn_++);
		return;
	}
	default:
		return; // everything else: OK with a zeroed output
	}
}

void fake_fw::eq_doorbell(uint32_t off, uint32_t v)
{
	uint32_t reg = off % prm::uar_page::size;
	if (reg != prm::uar_page::eq_doorbell_arm && reg != prm::uar_page::eq_doorbell_ci)
		return;
	uint32_t eqn = prm::reg_get(v, prm::eq_doorbell::eqn);
	uint32_t ci = prm::reg_get(v, prm::eq_doorbell::consumer_index);
	int fire = -1;
	{
		std::lock_guard<std::mutex> g(eq_mu_);
		for (auto &q : eqs_) {
			if (q.eqn != eqn)
				continue;
			q.ci = ci;
			if (reg == prm::uar_page::eq_doorbell_arm) {
				q.armed = true;
				// Armed with entries waiting: interrupt now.
				if ((q.pi & 0xffffff) != ci) {
					q.armed = false;
					fire = int(q.vector);
				}
			}
		}
	}
	if (fire >= 0 && irq_)
		irq_->raise(uint32_t(fire));
}

bool fake_fw::post_eqe(uint8_t type, uint8_t sub_type, const uint8_t data[28], int eqn)
{
	int fire = -1;
	{
		std::lock_guard<std::mutex> g(eq_mu_);
		fake_eq *q = nullptr;
		for (auto &e : eqs_)
			if (eqn >= 0 ? e.eqn == uint32_t(eqn) : (e.mask >> type) & 1) {
				q = &e;
				break;
			}
		if (!q)
			return false;
		uint32_t nent = 1u << q->log;
		if (q->pi - q->ci >= nent) {
			overflows_++;
			return false;
		}
		uint32_t idx = q->pi & (nent - 1);
		uint64_t addr = q->pages[idx * 64 / 4096] + (idx * 64) % 4096;
		auto *e = static_cast<uint8_t *>(scx_env_dma_to_cpu(nullptr, addr, 64));
		if (!e)
			return false;
		uint8_t img[64] = {};
		prm::set(img, prm::eqe::event_type, type);
		prm::set(img, prm::eqe::event_sub_type, sub_type);
		std::memcpy(prm::at(img, prm::eqe::event_data), data, 28);
		prm::set(img, prm::eqe::owner, (q->pi >> q->log) & 1);
		std::memcpy(e, img, 60);
		uint32_t tail;
		std::memcpy(&tail, img + 60, 4);
		__atomic_store_n(reinterpret_cast<uint32_t *>(e + 60), tail, __ATOMIC_RELEASE);
		q->pi++;
		if (q->armed) {
			q->armed = false;
			fire = int(q->vector);
		}
	}
	if (fire >= 0 && irq_)
		irq_->raise(uint32_t(fire));
	return true;
}

bool fake_fw::post_comp(uint32_t eqn, uint32_t cqn)
{
	uint8_t d[28] = {};
	prm::set(d, prm::comp_event::cq_number, cqn);
	return post_eqe(prm::event_type::comp, 0, d, int(eqn));
}

bool fake_fw::post_page_request(uint16_t func_id, int32_t npages)
{
	uint8_t d[28] = {};
	prm::set(d, prm::pages_req_event::function_id, func_id);
	prm::set(d, prm::pages_req_event::num_pages, uint32_t(npages));
	return post_eqe(prm::event_type::page_request, 0, d);
}

unsigned fake_fw::eq_count()
{
	std::lock_guard<std::mutex> g(eq_mu_);
	return unsigned(eqs_.size());
}

unsigned fake_fw::pages_held()
{
	std::lock_guard<std::mutex> g(eq_mu_);
	return unsigned(pages_.size());
}

std::vector<uint32_t> fake_fw::eqns()
{
	std::lock_guard<std::mutex> g(eq_mu_);
	std::vector<uint32_t> v;
	for (auto &q : eqs_)
		v.push_back(q.eqn);
	return v;
}
