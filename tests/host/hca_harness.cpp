// SPDX-License-Identifier: GPL-2.0
#include "hca_harness.h"

#include <cstring>

#include "lib/atomic.h"
#include "prm/cmd.h"
#include "prm/cmdq.h"
#include "prm/eq.h"
#include "prm/uar.h"
#include "prm/hca.h"
#include "prm/init_seg.h"
#include "prm/pages.h"
#include "softcx/env.h"

namespace hca_test {

using namespace scx;
namespace ent = prm::cmd_queue_entry;
namespace box = prm::cmd_if_box;
namespace iseg = prm::initial_seg;

dma_arena::~dma_arena()
{
	for (auto &m : live_)
		scx_env_dma_free(m.cpu, m.len, m.bus);
}

dma_mem dma_arena::alloc(size_t len)
{
	dma_mem m;
	m.len = len;
	m.cpu = static_cast<u8 *>(scx_env_dma_alloc(len, &m.bus));
	live_.push_back(m);
	return m;
}

void dma_arena::free(dma_mem &m)
{
	for (size_t i = 0; i < live_.size(); i++) {
		if (live_[i].cpu == m.cpu) {
			scx_env_dma_free(m.cpu, m.len, m.bus);
			live_.erase(live_.begin() + i);
			break;
		}
	}
	m = {};
}

__attribute__((no_sanitize("vptr"))) u32 bar_read32(hca::device &dev, u32 off)
{
	return dev.bar0().read32(off);
}

__attribute__((no_sanitize("vptr"))) void bar_write32(hca::device &dev, u32 off, u32 v)
{
	dev.bar0().write32(off, v);
}

__attribute__((no_sanitize("vptr"))) void bar_write64(hca::device &dev, u32 off, u64 v)
{
	dev.bar0().write64(off, v);
}

void *env_dma::map(u64 bus_addr, usize len) { return scx_env_dma_to_cpu(nullptr, bus_addr, len); }

void counting_irq::raise(u32 vector)
{
	counts_[vector % 64]++;
	if (on_raise)
		on_raise(vector);
}

u32 counting_irq::total() const
{
	u32 n = 0;
	for (auto &c : counts_)
		n += c.load();
	return n;
}

std::vector<u8> cmd_in(u16 opcode, u32 size, u16 op_mod)
{
	std::vector<u8> v(size);
	prm::set(v.data(), prm::mbox_in::opcode, opcode);
	prm::set(v.data(), prm::mbox_in::op_mod, op_mod);
	return v;
}

cmd_poster::~cmd_poster() = default;

bool cmd_poster::start(unsigned timeout_ms)
{
	auto ready = [this] { return !prm::reg_get(read_reg(prm::reg_offset(iseg::initializing)), iseg::initializing); };
	if (!eventually(ready, timeout_ms))
		return false;
	q_ = arena_.alloc(4096);
	bar_write32(dev_, prm::reg_offset(iseg::cmdq_phy_addr_63_32), u32(q_.bus >> 32));
	bar_write32(dev_, prm::reg_offset(iseg::cmdq_phy_addr_31_12),
		    prm::reg_set(0, iseg::cmdq_phy_addr_31_12, u32(q_.bus) >> 12));
	return eventually(ready, timeout_ms);
}

bool cmd_poster::owned_by_hw(u32 slot)
{
	u8 snap[ent::size_bytes];
	fence();
	std::memcpy(snap, entry(slot), sizeof(snap));
	return prm::get(snap, ent::ownership) == prm::cmdq::owner_hw;
}

static void fill_chain(u8 *base, u64 bus, u32 n, u8 token, bool sign, const u8 *data, u32 len,
		       std::vector<u8 *> *blocks)
{
	for (u32 i = 0; i < n; i++) {
		u8 *b = base + i * prm::cmdq::box_stride;
		u64 next = i + 1 < n ? bus + (i + 1) * prm::cmdq::box_stride : 0;
		prm::set(b, box::next_pointer_63_32, next >> 32);
		prm::set(b, box::next_pointer_31_10, u32(next) >> 10);
		prm::set(b, box::block_number, i);
		prm::set(b, box::token, token);
		u32 off = i * prm::cmdq::data_block_size;
		if (data && off < len)
			std::memcpy(prm::at(b, box::mailbox_data), data + off,
				    std::min<u32>(len - off, prm::cmdq::data_block_size));
		if (sign) {
			prm::set(b, box::ctrl_signature, u8(~prm::cmdq::xor8(b + box::ctrl_sig_first, box::ctrl_sig_len)));
			prm::set(b, box::signature, u8(~prm::cmdq::xor8(b, box::size_bytes - 1)));
		}
		blocks->push_back(b);
	}
}

cmd_poster::pending cmd_poster::post(const std::vector<u8> &in, u32 outlen, const post_opts &o)
{
	pending p{};
	p.slot = o.slot;
	p.outlen = outlen;
	p.sign = o.sign;
	u32 inlen = u32(in.size());
	u32 nin = o.in_blocks >= 0 ? u32(o.in_blocks) : prm::cmdq::blocks_for(inlen);
	u32 nout = o.out_blocks >= 0 ? u32(o.out_blocks) : prm::cmdq::blocks_for(outlen);
	std::vector<u8 *> in_blocks;
	if (nin) {
		p.in_mem = arena_.alloc(nin * prm::cmdq::box_stride);
		fill_chain(p.in_mem.cpu, p.in_mem.bus, nin, o.token, o.sign, in.data() + 16,
			   inlen > 16 ? inlen - 16 : 0, &in_blocks);
	}
	if (nout) {
		p.out_mem = arena_.alloc(nout * prm::cmdq::box_stride);
		fill_chain(p.out_mem.cpu, p.out_mem.bus, nout, o.token, o.sign, nullptr, 0, &p.out_blocks);
	}
	u8 *e = entry(o.slot);
	std::memset(e, 0, 64);
	prm::set(e, ent::type, prm::cmdq::type_pcie);
	prm::set(e, ent::input_length, inlen);
	prm::set(e, ent::output_length, outlen);
	prm::set(e, ent::input_mailbox_pointer_63_32, p.in_mem.bus >> 32);
	prm::set(e, ent::input_mailbox_pointer_31_9, u32(p.in_mem.bus) >> 9);
	prm::set(e, ent::output_mailbox_pointer_63_32, p.out_mem.bus >> 32);
	prm::set(e, ent::output_mailbox_pointer_31_9, u32(p.out_mem.bus) >> 9);
	std::memcpy(prm::at(e, ent::command_input_inline_data), in.data(), std::min<u32>(inlen, 16));
	prm::set(e, ent::token, o.token);
	prm::set(e, ent::ownership, prm::cmdq::owner_hw);
	if (o.sign)
		prm::set(e, ent::signature, u8(~prm::cmdq::xor8(e, 64)));
	if (o.tamper)
		o.tamper(e, in_blocks, p.out_blocks);
	fence();
	bar_write32(dev_, prm::reg_offset(iseg::command_doorbell_vector), 1u << o.slot);
	return p;
}

reply cmd_poster::wait(pending &p, unsigned timeout_ms)
{
	reply r;
	u8 *e = entry(p.slot);
	r.completed = eventually([&] { return !owned_by_hw(p.slot); }, timeout_ms);
	if (!r.completed)
		return r; // the memory stays with the device (arena frees it later)
	fence();
	r.delivery = u8(prm::get(e, ent::status));
	r.entry_sig_ok = prm::cmdq::xor8(e, 64) == 0xff;
	r.out.assign(p.outlen, 0);
	std::memcpy(r.out.data(), prm::at(e, ent::command_output_inline_data), std::min<u32>(p.outlen, 16));
	for (size_t i = 0; i < p.out_blocks.size(); i++) {
		u8 *b = p.out_blocks[i];
		u32 off = 16 + u32(i) * prm::cmdq::data_block_size;
		if (off < p.outlen)
			std::memcpy(r.out.data() + off, prm::at(b, box::mailbox_data),
				    std::min<u32>(p.outlen - off, prm::cmdq::data_block_size));
		if (prm::cmdq::xor8(b + box::ctrl_sig_first, box::ctrl_sig_len + 1) != 0xff ||
		    prm::cmdq::xor8(b, box::size_bytes) != 0xff)
			r.block_sigs_ok = false;
	}
	if (p.outlen >= 8) {
		r.status = u8(prm::get(r.out.data(), prm::mbox_out::status));
		r.syndrome = prm::get(r.out.data(), prm::mbox_out::syndrome);
	}
	arena_.free(p.in_mem);
	arena_.free(p.out_mem);
	return r;
}

u8 status_of(cmd_poster &p, const std::vector<u8> &in, u32 outlen, std::vector<u8> *out, u32 *syndrome)
{
	reply r = p.exec(in, outlen);
	if (!r.completed || r.delivery != 0)
		return 0xee;
	if (out)
		*out = r.out;
	if (syndrome)
		*syndrome = r.syndrome;
	return r.status;
}

bool give_pages(cmd_poster &p, u32 n, std::vector<dma_mem> *pages)
{
	namespace in = prm::manage_pages_in;
	auto c = cmd_in(prm::op::manage_pages, in::size_bytes + n * 8, prm::manage_pages_op_mod::allocation_success);
	prm::set(c.data(), in::input_num_entries, n);
	for (u32 i = 0; i < n; i++) {
		dma_mem m = p.arena().alloc(4096);
		pages->push_back(m);
		store_be<u64>(c.data() + in::pas.byte_off + 8 * i, m.bus);
	}
	return status_of(p, c, prm::manage_pages_out::size_bytes) == 0;
}

static bool startup_pages(cmd_poster &p, u16 op_mod, std::vector<dma_mem> *pages)
{
	std::vector<u8> out;
	if (status_of(p, cmd_in(prm::op::query_pages, 16, op_mod), 16, &out) != 0)
		return false;
	i32 n = i32(prm::get(out.data(), prm::query_pages_out::num_pages));
	return n <= 0 || give_pages(p, u32(n), pages);
}

bool bring_up(cmd_poster &p, std::vector<dma_mem> *pages)
{
	using namespace prm;
	if (status_of(p, cmd_in(op::enable_hca, 16), 12) != 0)
		return false;
	auto issi = cmd_in(op::set_issi, 16);
	prm::set(issi.data(), set_issi_in::current_issi, 1);
	if (status_of(p, issi, 16) != 0)
		return false;
	if (!startup_pages(p, query_pages_op_mod::boot_pages, pages))
		return false;
	if (!startup_pages(p, query_pages_op_mod::init_pages, pages))
		return false;
	return status_of(p, cmd_in(op::init_hca, init_hca_in::size_bytes), 16) == 0;
}

u32 alloc_uar(cmd_poster &p)
{
	std::vector<u8> out;
	if (status_of(p, cmd_in(prm::op::alloc_uar, 16), 16, &out) != 0)
		return 0;
	return prm::get(out.data(), prm::alloc_uar_out::uar);
}

u8 create_eq(hca_rig &rig, u32 uar, u32 log_size, u32 intr, std::initializer_list<u8> events, test_eq *eq,
	     u32 *syndrome)
{
	namespace in = prm::create_eq_in;
	size_t bytes = size_t(64) << log_size;
	size_t npages = (bytes + 4095) / 4096;
	eq->rig = &rig;
	eq->uar = uar;
	eq->log_size = log_size;
	eq->ci = 0;
	eq->ring = rig.poster.arena().alloc(npages * 4096);
	for (u32 i = 0; i < (1u << log_size); i++)
		prm::set(eq->ring.cpu + 64 * i, prm::eqe::owner, prm::eqe::owner_init_val);
	auto c = cmd_in(prm::op::create_eq, u32(in::size_bytes + npages * 8));
	u8 *eqc = prm::at(c.data(), in::eq_context_entry);
	prm::set(eqc, prm::eqc::log_eq_size, log_size);
	prm::set(eqc, prm::eqc::uar_page, uar);
	prm::set(eqc, prm::eqc::intr, intr);
	for (u8 t : events) {
		u8 *mask = prm::at(c.data(), in::event_bitmask) + 8 * (t / 64);
		store_be<u64>(mask, load_be<u64>(mask) | (u64(1) << (t % 64)));
	}
	for (size_t i = 0; i < npages; i++)
		store_be<u64>(c.data() + in::pas.byte_off + 8 * i, eq->ring.bus + 4096 * i);
	std::vector<u8> out;
	u8 st = status_of(rig.poster, c, prm::create_eq_out::size_bytes, &out, syndrome);
	if (st == 0)
		eq->eqn = prm::get(out.data(), prm::create_eq_out::eq_number);
	return st;
}

bool test_eq::next(u8 *e)
{
	u8 *slot = ring.cpu + 64 * (ci & ((1u << log_size) - 1));
	fence();
	std::memcpy(e, slot, 64);
	if (prm::get(e, prm::eqe::owner) != ((ci >> log_size) & 1))
		return false;
	ci++;
	return true;
}

bool test_eq::pending()
{
	u8 e[64];
	if (!next(e))
		return false;
	ci--;
	return true;
}

void test_eq::doorbell(bool arm)
{
	u32 v = prm::reg_set(0, prm::eq_doorbell::eqn, eqn);
	v = prm::reg_set(v, prm::eq_doorbell::consumer_index, ci & 0xffffff);
	bar_write32(rig->dev,
		    uar * prm::uar_page::size + (arm ? prm::uar_page::eq_doorbell_arm : prm::uar_page::eq_doorbell_ci),
		    v);
}

bool nop(cmd_poster &p, u32 slot)
{
	post_opts o;
	o.slot = slot;
	reply r = p.exec(cmd_in(prm::op::nop, 16), 16, o);
	return r.completed && r.delivery == 0 && r.status == 0;
}

hca_rig::hca_rig(const hca::device_config &cfg) : dev(dma, irq, cfg), poster(dev)
{
	ok = dev.init().is_ok() && poster.start();
}

hca_rig::~hca_rig()
{
	// The device must stop touching memory before the poster frees it.
	dev.stop();
}

bool hca_rig::up() { return ok && bring_up(poster, &pages); }

} // namespace hca_test
