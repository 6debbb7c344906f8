// SPDX-License-Identifier: GPL-2.0
#include "test_driver_fake.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "prm/cmd.h"
#include "prm/cmdq.h"
#include "prm/init_seg.h"
#include "prm/reg.h"
#include "softcx/env.h"

using namespace scx;
namespace ent = prm::cmd_queue_entry;
namespace box = prm::cmd_if_box;
namespace iseg = prm::initial_seg;

fake_fw::fake_fw() { thread_ = std::thread([this] { worker(); }); }

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
		auto *b = static_cast<uint8_t *>(scx_env_dma_to_cpu(p, box::size_bytes));
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
	auto *e = static_cast<uint8_t *>(scx_env_dma_to_cpu(cmdq_ + (uint64_t(slot) << log_stride), 64));
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
}
