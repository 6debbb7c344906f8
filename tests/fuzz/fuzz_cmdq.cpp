// SPDX-License-Identifier: GPL-2.0
// libFuzzer target over the hca's command interface: the delivery layer
// (entry checks, mailbox chain walking, signatures, tokens, block numbers)
// and every command handler's input validation. The hca is driven through
// BAR0 and memory only, as a driver would drive it.
//
// Each input builds a fresh device on the host env (so inputs cannot leak
// state into each other), arms its command queue, runs the setup commands
// selected by `level`, then plays up to max_records records:
//
//   input  := level gflags record*
//   record := kind body                          kind % 4:
//     0 raw:  c0 c1 c2 c3 c4 nblk entry[64] block[576]{nblk % 17}
//     1 cmd:  op slot flags outlen:be16 len:be16 msg[len]
//     2 uar:  flags page off:be16 value:be64
//     3 data: flags cqn cqe[64]
//
// level % 5: 0 queue armed only, 1 ENABLE_HCA, 2 + SET_ISSI and the boot and
// init pages, 3 + INIT_HCA, 4 + UAR 8, PD 1, EQ 0 (async events), CQ 0 on
// EQ 0, an MTT mkey (index 2) and Q counter 1.
// gflags: bit 0 EQ 0 also takes command completions; bit 1 the firmware
// pages come from the data region (so later records can overwrite them).
//
// A raw record is a 64-byte entry as the fuzzer wrote it plus mailbox
// blocks (the 576 bytes the device reads of each 1024-byte slot) in a pool
// of 16 slots. c2/c3 steer the input/output mailbox pointers (ptr_sel), c4
// how next pointers are formed and whether block numbers, tokens and
// signatures are fixed up; c0 picks the slot (bits 0-4), extra doorbell
// bits (bit 5, from c1) and whether the ownership bit stays as given (bit 6).
// A cmd record is a well-formed command for opcode table entry `op`: its
// input is msg (the opcode is written over msg's, flags bit 1 keeps it).
//
// In message data (inline bytes, mailbox data, cmd msg) every 8-byte aligned
// big-endian word 0x5cf0add<r>_<off32> becomes a bus address: offset
// off32 % size into region r (0 data, 1 command queue, 2 mailbox pool, 3 the
// level-4 EQ/CQ/doorbell-record pages), so page lists and doorbell records
// can name real memory and mutations stay meaningful.
//
// Crashes: any sanitizer report, a command that does not complete within
// SCX_FUZZ_HANG_MS (default 2000) ms, a setup command that fails, or a
// broken-invariant report from the hca (scx_env_bug).
//
// SCX_FUZZ_SEEDS=<dir> ./fuzz_cmdq writes the seed corpus and exits.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "hca/device.h"
#include "host_env.h"
#include "lib/atomic.h"
#include "prm/cmd.h"
#include "prm/cmdq.h"
#include "prm/cq.h"
#include "prm/eq.h"
#include "prm/hca.h"
#include "prm/hca_cap.h"
#include "prm/init_seg.h"
#include "prm/mkey.h"
#include "prm/pages.h"
#include "prm/pd.h"
#include "prm/q_counter.h"
#include "prm/qp.h"
#include "prm/srq.h"
#include "prm/uar.h"
#include "prm/vport.h"
#include "softcx/env.h"

using namespace scx;
namespace ent = prm::cmd_queue_entry;
namespace box = prm::cmd_if_box;
namespace iseg = prm::initial_seg;
namespace op = prm::op;

namespace {

constexpr u32 max_records = 8;
constexpr u32 pool_blocks = 16;
constexpr u32 stride = prm::cmdq::box_stride;
constexpr u32 data_size = 128 * 1024;
constexpr u32 max_msg = 64 * 1024; // cmd records: longest msg taken from the input
constexpr u64 sym_magic = 0x5cf0add0;

// Supported opcodes (and one the hca does not serve) with a sensible
// output length, for cmd records.
struct op_info {
	u16 opcode;
	u32 outlen;
};
constexpr op_info ops[] = {
	{op::enable_hca, prm::enable_hca_out::size_bytes},
	{op::disable_hca, prm::disable_hca_out::size_bytes},
	{op::query_issi, prm::query_issi_out::size_bytes},
	{op::set_issi, prm::set_issi_out::size_bytes},
	{op::query_hca_cap, prm::query_hca_cap_out::size_bytes},
	{op::set_hca_cap, prm::set_hca_cap_out::size_bytes},
	{op::init_hca, prm::init_hca_out::size_bytes},
	{op::teardown_hca, prm::teardown_hca_out::size_bytes},
	{op::query_adapter, prm::query_adapter_out::size_bytes},
	{op::query_pages, prm::query_pages_out::size_bytes},
	{op::manage_pages, prm::manage_pages_out::size_bytes + 8 * 32},
	{op::nop, prm::nop_out::size_bytes},
	{op::alloc_uar, prm::alloc_uar_out::size_bytes},
	{op::dealloc_uar, prm::dealloc_uar_out::size_bytes},
	{op::create_eq, prm::create_eq_out::size_bytes},
	{op::destroy_eq, prm::destroy_eq_out::size_bytes},
	{op::query_eq, prm::query_eq_out::size_bytes},
	{op::create_cq, prm::create_cq_out::size_bytes},
	{op::destroy_cq, prm::destroy_cq_out::size_bytes},
	{op::query_cq, prm::query_cq_out::size_bytes},
	{op::modify_cq, prm::modify_cq_out::size_bytes},
	{op::query_vport_state, prm::query_vport_state_out::size_bytes},
	{op::query_nic_vport_context, prm::query_nic_vport_context_out::size_bytes},
	{op::alloc_pd, prm::alloc_pd_out::size_bytes},
	{op::dealloc_pd, prm::dealloc_pd_out::size_bytes},
	{op::create_mkey, prm::create_mkey_out::size_bytes},
	{op::destroy_mkey, prm::destroy_mkey_out::size_bytes},
	{op::query_mkey, prm::query_mkey_out::size_bytes},
	{op::alloc_q_counter, prm::alloc_q_counter_out::size_bytes},
	{op::dealloc_q_counter, prm::dealloc_q_counter_out::size_bytes},
	{op::query_q_counter, 0x100},
	{op::create_qp, 16},
	{op::destroy_qp, 16},
	{op::rst2init_qp, 16},
	{op::init2init_qp, 16},
	{op::init2rtr_qp, 16},
	{op::rtr2rts_qp, 16},
	{op::rts2rts_qp, 16},
	{op::sqerr2rts_qp, 16},
	{op::sqd_rts_qp, 16},
	{op::qp_2err, 16},
	{op::qp_2rst, 16},
	{op::query_qp, 0x110},
	{op::create_srq, 16},
	{op::destroy_srq, 16},
	{op::query_srq, 0x110},
	{op::arm_rq, 16},
	{0x0fff, 16}, // no such command
};
constexpr u32 num_ops = sizeof(ops) / sizeof(ops[0]);

u8 op_index(u16 opcode)
{
	for (u32 i = 0; i < num_ops; i++)
		if (ops[i].opcode == opcode)
			return u8(i);
	__builtin_trap();
}

[[noreturn]] void die(const char *fmt, u32 a = 0, u32 b = 0)
{
	std::fprintf(stderr, "fuzz_cmdq: ");
	std::fprintf(stderr, fmt, a, b);
	std::fputc('\n', stderr);
	__builtin_trap();
}

// The input, consumed from the front; zeros once it runs out.
struct reader {
	const u8 *p;
	size_t n;
	bool empty() const { return !n; }
	u8 byte()
	{
		if (!n)
			return 0;
		n--;
		return *p++;
	}
	void bytes(u8 *dst, size_t len)
	{
		size_t k = len < n ? len : n;
		std::memcpy(dst, p, k);
		std::memset(dst + k, 0, len - k);
		p += k;
		n -= k;
	}
	u16 be16()
	{
		u16 hi = byte();
		return u16(hi << 8 | byte());
	}
	u64 be64()
	{
		u64 v = 0;
		for (int i = 0; i < 8; i++)
			v = v << 8 | byte();
		return v;
	}
};

class env_dma final : public bus::dma_space {
public:
	void *map(u64 bus_addr, usize len) override { return scx_env_dma_to_cpu(nullptr, bus_addr, len); }
};

class count_irq final : public bus::irq_sink {
public:
	void raise(u32) override { n.fetch_add(1, mo::relaxed); }
	atomic<u32> n{0};
};

struct region {
	u8 *cpu = nullptr;
	u64 bus = 0;
	u32 len = 0;
};

// Device-visible memory of one input, registered with the host env (the
// hca's IOMMU) and released only after the device has stopped.
class arena {
public:
	~arena()
	{
		for (auto &r : live_) {
			host_env::dma_unregister(r.cpu);
			std::free(r.cpu);
		}
	}
	region alloc(u32 len, u32 align = 4096)
	{
		len = (len + align - 1) & ~(align - 1);
		region r;
		r.cpu = static_cast<u8 *>(std::aligned_alloc(align, len));
		if (!r.cpu)
			die("out of memory");
		std::memset(r.cpu, 0, len);
		r.bus = reinterpret_cast<uintptr_t>(r.cpu);
		r.len = len;
		host_env::dma_register(r.cpu, len);
		live_.push_back(r);
		return r;
	}

private:
	std::vector<region> live_;
};

// SCX_FUZZ_VERBOSE=1: one line per command, to check what seeds reach.
bool verbose()
{
	static bool v = std::getenv("SCX_FUZZ_VERBOSE") != nullptr;
	return v;
}

void trace(const u8 *e, const char *kind)
{
	if (!verbose())
		return;
	const u8 *out = prm::at(e, ent::command_output_inline_data);
	std::fprintf(stderr, "fuzz_cmdq: %s opcode 0x%x delivery 0x%x status 0x%x syndrome 0x%x\n", kind,
		     u32(prm::get(prm::at(e, ent::command_input_inline_data), prm::mbox_in::opcode)),
		     u32(prm::get(e, ent::status)), u32(prm::get(out, prm::mbox_out::status)),
		     u32(prm::get(out, prm::mbox_out::syndrome)));
}

// Waiting on the engine: a few yields, then short sleeps, so the work
// thread gets this CPU on a machine with fewer cores than busy threads.
void pause(u32 spins)
{
	if (spins < 16)
		std::this_thread::yield();
	else
		std::this_thread::sleep_for(std::chrono::microseconds(20));
}

unsigned hang_ms()
{
	static unsigned ms = [] {
		const char *s = std::getenv("SCX_FUZZ_HANG_MS");
		return s ? unsigned(std::strtoul(s, nullptr, 0)) : 2000u;
	}();
	return ms;
}

hca::device_config config()
{
	hca::device_config c;
	c.boot_delay_us = 0;
	return c;
}

struct reply {
	u8 delivery = 0xff;
	u8 status = 0xff;
	std::vector<u8> out;
};

// One device and everything the fuzzer gave it. Members are destroyed in
// reverse order: the device stops before any memory goes away.
struct rig {
	env_dma dma;
	count_irq irq;
	arena mem;
	region q, data, pool, objs;
	hca::device dev{dma, irq, config()};

	u32 read32(u32 off) { return dev.bar0().read32(off); }
	void write32(u32 off, u32 v) { dev.bar0().write32(off, v); }
	u8 *entry(u32 slot) { return q.cpu + slot * ent::size_bytes; }

	void wait_ready()
	{
		auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(hang_ms());
		for (u32 spins = 0; prm::reg_get(read32(prm::reg_offset(iseg::initializing)), iseg::initializing);
		     spins++) {
			if (std::chrono::steady_clock::now() > end)
				die("firmware never left initializing");
			pause(spins);
		}
	}

	void start()
	{
		if (!dev.init().is_ok())
			die("device init failed");
		q = mem.alloc(4096);
		data = mem.alloc(data_size, 64 * 1024);
		pool = mem.alloc(pool_blocks * stride);
		wait_ready();
		write32(prm::reg_offset(iseg::cmdq_phy_addr_63_32), u32(q.bus >> 32));
		write32(prm::reg_offset(iseg::cmdq_phy_addr_31_12),
			prm::reg_set(0, iseg::cmdq_phy_addr_31_12, u32(q.bus) >> 12));
		wait_ready();
	}

	void ring(u32 mask)
	{
		fence();
		write32(prm::reg_offset(iseg::command_doorbell_vector), mask);
	}

	// A hang is a crash: the hca always completes an entry it owns.
	void wait_done(u32 slot)
	{
		u8 *own = entry(slot) + ent::size_bytes - 1;
		auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(hang_ms());
		for (u32 spins = 0; read_once(*own) & 1; spins++) {
			if (std::chrono::steady_clock::now() > end)
				die("command in slot %u not completed within %u ms", slot, hang_ms());
			pause(spins);
		}
		fence();
	}

	// Entries of finished records go back to software, so a later doorbell
	// never meets a stale owned entry.
	void clear_queue() { std::memset(q.cpu, 0, q.len); }

	// A symbolic address (see the file comment) as a bus address.
	bool resolve(u64 w, u64 *addr)
	{
		if ((w >> 36) != (sym_magic >> 4))
			return false;
		const region *r = nullptr;
		switch ((w >> 32) & 0xf) {
		case 0: r = &data; break;
		case 1: r = &q; break;
		case 2: r = &pool; break;
		case 3: r = &objs; break;
		default: return false;
		}
		if (!r->len)
			return false;
		*addr = r->bus + u32(w) % r->len;
		return true;
	}
	void resolve_all(u8 *buf, u32 len)
	{
		for (u32 off = 0; off + 8 <= len; off += 8) {
			u64 a;
			if (resolve(load_be<u64>(buf + off), &a))
				store_be<u64>(buf + off, a);
		}
	}

	// A well-formed command (entry, chains, optional signatures) in slot,
	// run to completion. in_short/out_short leave a chain one block short.
	reply exec(const u8 *msg, u32 inlen, u32 outlen, u32 slot = 0, u8 token = 0x5a, bool sign = false,
		   bool in_short = false, bool out_short = false)
	{
		u32 nin = prm::cmdq::blocks_for(inlen), nout = prm::cmdq::blocks_for(outlen);
		if (in_short && nin)
			nin--;
		if (out_short && nout)
			nout--;
		region in = nin ? mem.alloc(nin * stride) : region{};
		region out = nout ? mem.alloc(nout * stride) : region{};
		auto chain = [&](region &r, u32 n, const u8 *src, u32 len) {
			for (u32 i = 0; i < n; i++) {
				u8 *b = r.cpu + i * stride;
				u64 next = i + 1 < n ? r.bus + (i + 1) * stride : 0;
				prm::set(b, box::next_pointer_63_32, next >> 32);
				prm::set(b, box::next_pointer_31_10, u32(next) >> 10);
				prm::set(b, box::block_number, i);
				prm::set(b, box::token, token);
				u32 off = i * prm::cmdq::data_block_size;
				if (src && off < len)
					std::memcpy(b, src + off, std::min<u32>(len - off, prm::cmdq::data_block_size));
				if (sign)
					sign_block(b);
			}
		};
		chain(in, nin, msg + 16, inlen > 16 ? inlen - 16 : 0);
		chain(out, nout, nullptr, 0);
		u8 e[ent::size_bytes] = {};
		prm::set(e, ent::type, prm::cmdq::type_pcie);
		prm::set(e, ent::input_length, inlen);
		prm::set(e, ent::output_length, outlen);
		prm::set(e, ent::input_mailbox_pointer_63_32, in.bus >> 32);
		prm::set(e, ent::input_mailbox_pointer_31_9, u32(in.bus) >> 9);
		prm::set(e, ent::output_mailbox_pointer_63_32, out.bus >> 32);
		prm::set(e, ent::output_mailbox_pointer_31_9, u32(out.bus) >> 9);
		std::memcpy(prm::at(e, ent::command_input_inline_data), msg, std::min<u32>(inlen, 16));
		prm::set(e, ent::token, token);
		prm::set(e, ent::ownership, prm::cmdq::owner_hw);
		if (sign)
			prm::set(e, ent::signature, u8(~prm::cmdq::xor8(e, ent::size_bytes)));
		post(slot, e);
		ring(1u << slot);
		wait_done(slot);

		reply r;
		u8 *qe = entry(slot);
		trace(qe, "cmd");
		r.delivery = u8(prm::get(qe, ent::status));
		r.out.assign(outlen < (1u << 16) ? outlen : 1u << 16, 0);
		std::memcpy(r.out.data(), prm::at(qe, ent::command_output_inline_data),
			    std::min<size_t>(r.out.size(), 16));
		for (u32 i = 0; i < nout; i++) {
			u32 off = 16 + i * prm::cmdq::data_block_size;
			if (off < r.out.size())
				std::memcpy(r.out.data() + off, out.cpu + i * stride,
					    std::min<size_t>(r.out.size() - off, prm::cmdq::data_block_size));
		}
		if (r.out.size() >= 8)
			r.status = u8(prm::get(r.out.data(), prm::mbox_out::status));
		clear_queue();
		return r;
	}

	// The entry goes in with the ownership byte last, so the engine never
	// sees half of it (a pass still running may pick it up early).
	void post(u32 slot, const u8 *e)
	{
		u8 *qe = entry(slot);
		std::memcpy(qe, e, ent::size_bytes - 1);
		fence(mo::release);
		write_once(qe[ent::size_bytes - 1], e[ent::size_bytes - 1]);
	}

	static void sign_block(u8 *b)
	{
		prm::set(b, box::ctrl_signature, 0);
		prm::set(b, box::signature, 0);
		prm::set(b, box::ctrl_signature, u8(~prm::cmdq::xor8(b + box::ctrl_sig_first, box::ctrl_sig_len)));
		prm::set(b, box::signature, u8(~prm::cmdq::xor8(b, box::size_bytes - 1)));
	}

	// Setup commands must succeed: a failure is a device bug.
	std::vector<u8> must(const std::vector<u8> &msg, u32 outlen)
	{
		reply r = exec(msg.data(), u32(msg.size()), outlen);
		if (r.delivery || r.status)
			die("setup command 0x%x failed: delivery/status 0x%x", prm::get(msg.data(), prm::mbox_in::opcode),
			    u32(r.delivery) << 8 | r.status);
		return r.out;
	}

	void give_pages(u32 n, bool from_data)
	{
		namespace in = prm::manage_pages_in;
		std::vector<u8> m(in::size_bytes + 8 * n);
		prm::set(m.data(), prm::mbox_in::opcode, op::manage_pages);
		prm::set(m.data(), prm::mbox_in::op_mod, prm::manage_pages_op_mod::allocation_success);
		prm::set(m.data(), in::input_num_entries, n);
		for (u32 i = 0; i < n; i++) {
			// From the data region: its top pages, one per give, so
			// the fuzzer can write over live contexts.
			u64 pa = from_data ? data.bus + data.len - 4096 * (++data_pages_given) : mem.alloc(4096).bus;
			store_be<u64>(m.data() + in::pas.byte_off + 8 * i, pa);
		}
		must(m, 16);
	}

	void setup(u32 level, u8 gflags)
	{
		auto cmd = [](u16 opcode, u32 size, u16 op_mod = 0) {
			std::vector<u8> m(size);
			prm::set(m.data(), prm::mbox_in::opcode, opcode);
			prm::set(m.data(), prm::mbox_in::op_mod, op_mod);
			return m;
		};
		if (level < 1)
			return;
		must(cmd(op::enable_hca, 16), prm::enable_hca_out::size_bytes);
		if (level < 2)
			return;
		auto issi = cmd(op::set_issi, 16);
		prm::set(issi.data(), prm::set_issi_in::current_issi, 1);
		must(issi, 16);
		for (u16 mod : {prm::query_pages_op_mod::boot_pages, prm::query_pages_op_mod::init_pages}) {
			auto out = must(cmd(op::query_pages, 16, mod), 16);
			give_pages(prm::get(out.data(), prm::query_pages_out::num_pages), gflags & 2);
		}
		if (level < 3)
			return;
		must(cmd(op::init_hca, prm::init_hca_in::size_bytes), 16);
		if (level < 4)
			return;

		auto out = must(cmd(op::alloc_uar, 16), 16);
		u32 uar = prm::get(out.data(), prm::alloc_uar_out::uar);
		out = must(cmd(op::alloc_pd, 16), 16);
		u32 pd = prm::get(out.data(), prm::alloc_pd_out::pd);
		objs = mem.alloc(3 * 4096); // EQ ring, CQ ring, CQ doorbell record

		namespace eqi = prm::create_eq_in;
		auto eq = cmd(op::create_eq, eqi::size_bytes + 8);
		u8 *eqc = prm::at(eq.data(), eqi::eq_context_entry);
		prm::set(eqc, prm::eqc::log_eq_size, 6);
		prm::set(eqc, prm::eqc::uar_page, uar);
		for (u32 i = 0; i < 64; i++)
			prm::set(objs.cpu + 64 * i, prm::eqe::owner, prm::eqe::owner_init_val);
		u64 events = 1ull << prm::event_type::cq_error | 1ull << prm::event_type::port_change |
			     1ull << prm::event_type::page_request;
		if (gflags & 1)
			events |= 1ull << prm::event_type::cmd;
		store_be<u64>(prm::at(eq.data(), eqi::event_bitmask), events);
		store_be<u64>(eq.data() + eqi::pas.byte_off, objs.bus);
		out = must(eq, 16);
		u32 eqn = prm::get(out.data(), prm::create_eq_out::eq_number);

		namespace cqi = prm::create_cq_in;
		auto cq = cmd(op::create_cq, cqi::size_bytes + 8);
		u8 *cqc = prm::at(cq.data(), cqi::cq_context);
		prm::set(cqc, prm::cqc::log_cq_size, 4);
		prm::set(cqc, prm::cqc::uar_page, uar);
		prm::set(cqc, prm::cqc::c_eqn_or_apu_element, eqn);
		prm::set(cqc, prm::cqc::dbr_addr, objs.bus + 2 * 4096);
		store_be<u64>(cq.data() + cqi::pas.byte_off, objs.bus + 4096);
		must(cq, 16);

		namespace mki = prm::create_mkey_in;
		auto mk = cmd(op::create_mkey, mki::size_bytes + 16);
		u8 *mkc = prm::at(mk.data(), mki::memory_key_mkey_entry);
		prm::set(mkc, prm::mkc::access_mode_1_0, prm::mkc_access_mode::mtt);
		prm::set(mkc, prm::mkc::lr, 1);
		prm::set(mkc, prm::mkc::lw, 1);
		prm::set(mkc, prm::mkc::pd, pd);
		prm::set(mkc, prm::mkc::start_addr, 0x10000);
		prm::set(mkc, prm::mkc::len, 2 * 4096);
		prm::set(mkc, prm::mkc::log_page_size, 12);
		prm::set(mkc, prm::mkc::translations_octword_size, 1);
		prm::set(mk.data(), mki::translations_octword_actual_size, 1);
		store_be<u64>(mk.data() + mki::klm_pas_mtt.byte_off, data.bus | 3);
		store_be<u64>(mk.data() + mki::klm_pas_mtt.byte_off + 8, (data.bus + 4096) | 3);
		must(mk, 16);
		must(cmd(op::alloc_q_counter, 16), 16);
	}

	u32 data_pages_given = 0;
};

// The mailbox pointer choices of a raw record (selector & 7, arg = sel >> 3).
enum ptr_mode : u8 {
	ptr_raw,       // as the entry says
	ptr_pool,      // pool block arg % 16
	ptr_pool_half, // 512 bytes into it (legal for the entry, not for next)
	ptr_straddle,  // the pool's last 512 bytes: a block reaching past it
	ptr_unmapped,  // one of a few addresses nothing is mapped at
	ptr_queue,     // the command queue page itself
	ptr_data,      // a page of the data region
	ptr_reserved,  // a pool block with the reserved low bits set
};

constexpr u64 unmapped[] = {0, 0x1000, 0xdeadbe000000ull, 0xfffffffffffffe00ull};

void set_ptr(u8 *e, bool input, u64 a, bool set_reserved, u32 reserved)
{
	if (input) {
		prm::set(e, ent::input_mailbox_pointer_63_32, a >> 32);
		prm::set(e, ent::input_mailbox_pointer_31_9, u32(a) >> 9);
		if (set_reserved)
			prm::set(e, ent::reserved_at_77, reserved);
	} else {
		prm::set(e, ent::output_mailbox_pointer_63_32, a >> 32);
		prm::set(e, ent::output_mailbox_pointer_31_9, u32(a) >> 9);
		if (set_reserved)
			prm::set(e, ent::reserved_at_1b7, reserved);
	}
}

u64 entry_ptr(const u8 *e, bool input)
{
	if (input)
		return u64(prm::get(e, ent::input_mailbox_pointer_63_32)) << 32 |
		       u64(prm::get(e, ent::input_mailbox_pointer_31_9)) << 9;
	return u64(prm::get(e, ent::output_mailbox_pointer_63_32)) << 32 |
	       u64(prm::get(e, ent::output_mailbox_pointer_31_9)) << 9;
}

void steer(rig &r, u8 *e, bool input, u8 sel)
{
	u32 arg = sel >> 3;
	switch (sel & 7) {
	case ptr_raw:
		break;
	case ptr_pool:
		set_ptr(e, input, r.pool.bus + (arg % pool_blocks) * stride, false, 0);
		break;
	case ptr_pool_half:
		set_ptr(e, input, r.pool.bus + (arg % pool_blocks) * stride + 512, false, 0);
		break;
	case ptr_straddle:
		set_ptr(e, input, r.pool.bus + r.pool.len - 512, false, 0);
		break;
	case ptr_unmapped:
		set_ptr(e, input, unmapped[arg % 4], false, 0);
		break;
	case ptr_queue:
		set_ptr(e, input, r.q.bus + (arg % 8) * 512, false, 0);
		break;
	case ptr_data:
		set_ptr(e, input, r.data.bus + (arg % (data_size / 4096)) * 4096, false, 0);
		break;
	case ptr_reserved:
		set_ptr(e, input, r.pool.bus, true, arg | 1);
		break;
	}
}

u64 next_of(const u8 *b)
{
	return u64(prm::get(b, box::next_pointer_63_32)) << 32 | u64(prm::get(b, box::next_pointer_31_10)) << 10;
}

void set_next(u8 *b, u64 a)
{
	prm::set(b, box::next_pointer_63_32, a >> 32);
	prm::set(b, box::next_pointer_31_10, u32(a) >> 10);
}

// c4: bits 0-1 next pointers (0 as given, 1 a straight chain through the
// given blocks, 2 each block's reserved byte 0x200 picks its successor,
// 3 straight but the last keeps its own); bit 2 number blocks and copy the
// token along both chains; bit 3 sign every pool block; bit 4 sign the entry.
void raw_record(rig &r, reader &in)
{
	u8 c0 = in.byte(), c1 = in.byte(), c2 = in.byte(), c3 = in.byte(), c4 = in.byte();
	u32 nblk = in.byte() % (pool_blocks + 1);
	u8 e[ent::size_bytes];
	in.bytes(e, sizeof(e));
	std::memset(r.pool.cpu, 0, r.pool.len);
	for (u32 i = 0; i < nblk; i++)
		in.bytes(r.pool.cpu + i * stride, box::size_bytes);

	r.resolve_all(prm::at(e, ent::command_input_inline_data), prm::cmdq::inline_bytes);
	for (u32 i = 0; i < nblk; i++)
		r.resolve_all(r.pool.cpu + i * stride, prm::cmdq::data_block_size);
	steer(r, e, true, c2);
	steer(r, e, false, c3);

	u32 last = nblk ? nblk - 1 : 0;
	for (u32 i = 0; i <= last; i++) {
		u8 *b = r.pool.cpu + i * stride;
		switch (c4 & 3) {
		case 1:
			set_next(b, i < last ? r.pool.bus + (i + 1) * stride : 0);
			break;
		case 2: {
			u8 v = b[0x200];
			set_next(b, v & 0x80 ? 0 : r.pool.bus + (v % pool_blocks) * stride);
			break;
		}
		case 3:
			if (i < last)
				set_next(b, r.pool.bus + (i + 1) * stride);
			break;
		}
	}
	if (c4 & 4) {
		u8 token = u8(prm::get(e, ent::token));
		auto fix = [&](u64 a, u32 len) {
			u32 n = prm::cmdq::blocks_for(len);
			for (u32 i = 0; i < n && i < 4096; i++) {
				if (a < r.pool.bus || a >= r.pool.bus + r.pool.len || (a - r.pool.bus) % stride)
					break;
				u8 *b = r.pool.cpu + (a - r.pool.bus);
				prm::set(b, box::block_number, i);
				prm::set(b, box::token, token);
				a = next_of(b);
			}
		};
		fix(entry_ptr(e, true), prm::get(e, ent::input_length));
		fix(entry_ptr(e, false), prm::get(e, ent::output_length));
	}
	if (c4 & 8)
		for (u32 i = 0; i < pool_blocks; i++)
			rig::sign_block(r.pool.cpu + i * stride);

	u32 slot = c0 & 31;
	if (!(c0 & 0x40))
		prm::set(e, ent::ownership, prm::cmdq::owner_hw);
	if (c4 & 16) {
		prm::set(e, ent::signature, 0);
		prm::set(e, ent::signature, u8(~prm::cmdq::xor8(e, ent::size_bytes)));
	}
	r.post(slot, e);
	u32 mask = 1u << slot;
	if (c0 & 0x20)
		mask |= c1 * 0x01010101u;
	r.ring(mask);
	if (prm::get(e, ent::ownership) == prm::cmdq::owner_hw) {
		r.wait_done(slot);
		trace(r.entry(slot), "raw");
	}
	r.clear_queue();
}

// flags: bit 0 sign, bit 1 keep msg's opcode, bit 2 output length x16,
// bit 3 input chain one block short, bit 4 output chain one block short.
void cmd_record(rig &r, reader &in)
{
	const op_info &o = ops[in.byte() % num_ops];
	u8 slot = in.byte();
	u8 flags = in.byte();
	u32 outlen = in.be16();
	u32 len = in.be16() % (max_msg + 1);
	std::vector<u8> msg(std::max<u32>(len, 16));
	in.bytes(msg.data(), len);
	if (!(flags & 2))
		prm::set(msg.data(), prm::mbox_in::opcode, o.opcode);
	r.resolve_all(msg.data(), len);
	if (!outlen)
		outlen = o.outlen;
	if (flags & 4)
		outlen <<= 4;
	r.exec(msg.data(), len, outlen, slot & 31, u8(slot * 37), flags & 1, flags & 8, flags & 16);
}

// A doorbell write to a UAR page: flags bit 0 64-bit, bits 1-2 which
// offset (CQ doorbell, EQ arm, EQ update-ci, off & 0xffc).
void uar_record(rig &r, reader &in)
{
	u8 flags = in.byte();
	u32 page = hca::hca_limits::first_uar + in.byte();
	u16 raw_off = in.be16();
	u64 v = in.be64();
	static constexpr u32 offs[] = {prm::uar_page::cq_doorbell, prm::uar_page::eq_doorbell_arm,
				       prm::uar_page::eq_doorbell_ci};
	u32 at = (flags >> 1) % 4 < 3 ? offs[(flags >> 1) % 4] : raw_off & 0xffc;
	u32 off = page * prm::uar_page::size + at;
	if (flags & 1)
		r.dev.bar0().write64(off, v);
	else
		r.dev.bar0().write32(off, u32(v));
}

// The data path's ways in: flags bit 0 link change (bit 1 up), else a CQE
// for cqn (bit 1 solicited).
void data_record(rig &r, reader &in)
{
	u8 flags = in.byte();
	u32 cqn = in.byte();
	u8 cqe[64];
	in.bytes(cqe, sizeof(cqe));
	if (flags & 1)
		r.dev.set_link(flags & 2);
	else
		r.dev.post_cqe(cqn, cqe, flags & 2);
}

// ---- seeds: valid inputs for every opcode and record kind ----------------

struct seed {
	std::vector<u8> b;
	seed(u8 level, u8 gflags = 0) : b{level, gflags} {}

	seed &cmd(u16 opcode, const std::vector<u8> &msg, u16 outlen = 0, u8 flags = 0, u8 slot = 0)
	{
		b.insert(b.end(), {1, op_index(opcode), slot, flags, u8(outlen >> 8), u8(outlen)});
		b.push_back(u8(msg.size() >> 8));
		b.push_back(u8(msg.size()));
		b.insert(b.end(), msg.begin(), msg.end());
		return *this;
	}
	seed &raw(const u8 c[5], const u8 *e, const std::vector<std::vector<u8>> &blocks)
	{
		b.push_back(0);
		b.insert(b.end(), c, c + 5);
		b.push_back(u8(blocks.size()));
		b.insert(b.end(), e, e + 64);
		for (auto &blk : blocks) {
			std::vector<u8> x(blk);
			x.resize(box::size_bytes);
			b.insert(b.end(), x.begin(), x.end());
		}
		return *this;
	}
	seed &uar(u8 flags, u8 page, u16 off, u64 v)
	{
		b.insert(b.end(), {2, flags, page, u8(off >> 8), u8(off)});
		for (int i = 7; i >= 0; i--)
			b.push_back(u8(v >> (8 * i)));
		return *this;
	}
	seed &data(u8 flags, u8 cqn, const u8 *cqe = nullptr)
	{
		b.insert(b.end(), {3, flags, cqn});
		for (int i = 0; i < 64; i++)
			b.push_back(cqe ? cqe[i] : 0);
		return *this;
	}
};

std::vector<u8> msg_of(u16 opcode, u32 size, u16 op_mod = 0)
{
	std::vector<u8> m(size);
	prm::set(m.data(), prm::mbox_in::opcode, opcode);
	prm::set(m.data(), prm::mbox_in::op_mod, op_mod);
	return m;
}

u64 sym(u32 region, u32 off) { return (sym_magic | region) << 32 | off; }

void write_seeds(const char *dir)
{
	mkdir(dir, 0755);
	std::vector<std::pair<std::string, seed>> all;
	auto add = [&](const char *name, const seed &s) { all.emplace_back(name, s); };
	namespace st_ = prm::query_pages_op_mod;

	// Lifecycle and firmware pages.
	add("enable", seed(0).cmd(op::enable_hca, msg_of(op::enable_hca, 16)));
	add("disable", seed(1).cmd(op::disable_hca, msg_of(op::disable_hca, 16)));
	add("query_issi", seed(1).cmd(op::query_issi, msg_of(op::query_issi, 16)));
	{
		auto m = msg_of(op::set_issi, 16);
		prm::set(m.data(), prm::set_issi_in::current_issi, 1);
		add("set_issi", seed(1).cmd(op::set_issi, m));
	}
	for (u16 mod : {st_::boot_pages, st_::init_pages, st_::regular_pages})
		add(mod == st_::boot_pages ? "query_pages_boot" : mod == st_::init_pages ? "query_pages_init"
											: "query_pages_regular",
		    seed(mod == st_::regular_pages ? 4 : 1).cmd(op::query_pages, msg_of(op::query_pages, 16, mod)));
	{
		namespace in = prm::manage_pages_in;
		auto m = msg_of(op::manage_pages, in::size_bytes + 4 * 8, prm::manage_pages_op_mod::allocation_success);
		prm::set(m.data(), in::input_num_entries, 4);
		for (u32 i = 0; i < 4; i++)
			store_be<u64>(m.data() + in::pas.byte_off + 8 * i, sym(0, 4096 * (i + 4)));
		add("manage_pages_give", seed(1).cmd(op::manage_pages, m));
		add("manage_pages_give_init", seed(4).cmd(op::manage_pages, m));
		auto t = msg_of(op::manage_pages, 16, prm::manage_pages_op_mod::hca_return_pages);
		prm::set(t.data(), in::input_num_entries, 32);
		add("manage_pages_take", seed(2).cmd(op::manage_pages, t, 16 + 8 * 32));
		add("manage_pages_fail",
		    seed(2).cmd(op::manage_pages, msg_of(op::manage_pages, 16, prm::manage_pages_op_mod::allocation_fail)));
	}
	add("init_hca", seed(2).cmd(op::init_hca, msg_of(op::init_hca, prm::init_hca_in::size_bytes)));
	{
		auto m = msg_of(op::teardown_hca, 16);
		prm::set(m.data(), prm::teardown_hca_in::profile, prm::teardown_profile::force_close);
		add("teardown", seed(4).cmd(op::teardown_hca, m));
		auto t = msg_of(op::manage_pages, 16, prm::manage_pages_op_mod::hca_return_pages);
		prm::set(t.data(), prm::manage_pages_in::input_num_entries, 32);
		add("teardown_take_disable", seed(4, 2)
						     .cmd(op::teardown_hca, m)
						     .cmd(op::manage_pages, t, 16 + 8 * 32)
						     .cmd(op::disable_hca, msg_of(op::disable_hca, 16)));
	}
	add("query_adapter", seed(1).cmd(op::query_adapter, msg_of(op::query_adapter, 16)));
	add("nop", seed(1).cmd(op::nop, msg_of(op::nop, 16)));
	add("nop_signed_slot31", seed(1).cmd(op::nop, msg_of(op::nop, 16), 0, 1, 31));
	add("unknown_opcode", seed(1).cmd(0x0fff, msg_of(0x0fff, 16)));

	// Capabilities.
	for (u16 type : {prm::cap_type::general, prm::cap_type::atomic, prm::cap_type::roce}) {
		auto q = msg_of(op::query_hca_cap, 16, prm::hca_cap_op_mod(type, prm::cap_mode::cur));
		auto s = msg_of(op::set_hca_cap, prm::set_hca_cap_in::size_bytes, prm::hca_cap_op_mod(type, 0));
		std::string n = std::to_string(type);
		add(("query_cap_" + n).c_str(), seed(1).cmd(op::query_hca_cap, q));
		add(("set_cap_" + n).c_str(), seed(2).cmd(op::set_hca_cap, s, 0, 1));
	}

	// Resources and objects.
	add("alloc_uar", seed(3).cmd(op::alloc_uar, msg_of(op::alloc_uar, 16)));
	{
		auto m = msg_of(op::dealloc_uar, 16);
		prm::set(m.data(), prm::dealloc_uar_in::uar, hca::hca_limits::first_uar);
		add("dealloc_uar", seed(3).cmd(op::alloc_uar, msg_of(op::alloc_uar, 16)).cmd(op::dealloc_uar, m));
		add("dealloc_uar_busy", seed(4).cmd(op::dealloc_uar, m));
	}
	add("alloc_pd", seed(3).cmd(op::alloc_pd, msg_of(op::alloc_pd, 16)));
	{
		auto m = msg_of(op::dealloc_pd, 16);
		prm::set(m.data(), prm::dealloc_pd_in::pd, 1);
		add("dealloc_pd", seed(4).cmd(op::dealloc_pd, m));
	}
	add("alloc_q_counter", seed(3).cmd(op::alloc_q_counter, msg_of(op::alloc_q_counter, 16)));
	{
		auto m = msg_of(op::dealloc_q_counter, 16);
		prm::set(m.data(), prm::dealloc_q_counter_in::counter_set_id, 1);
		add("dealloc_q_counter", seed(4).cmd(op::dealloc_q_counter, m));
		auto qm = msg_of(op::query_q_counter, prm::query_q_counter_in::size_bytes);
		prm::set(qm.data(), prm::query_q_counter_in::counter_set_id, 1);
		add("query_q_counter", seed(4).cmd(op::query_q_counter, qm));
	}
	{
		namespace in = prm::create_eq_in;
		auto m = msg_of(op::create_eq, in::size_bytes + 16);
		u8 *eqc = prm::at(m.data(), in::eq_context_entry);
		prm::set(eqc, prm::eqc::log_eq_size, 7);
		prm::set(eqc, prm::eqc::uar_page, hca::hca_limits::first_uar);
		prm::set(eqc, prm::eqc::intr, 1);
		store_be<u64>(prm::at(m.data(), in::event_bitmask), ~0ull);
		store_be<u64>(m.data() + in::pas.byte_off, sym(0, 0));
		store_be<u64>(m.data() + in::pas.byte_off + 8, sym(0, 4096));
		add("create_eq", seed(4).cmd(op::create_eq, m));
		auto d = msg_of(op::destroy_eq, 16);
		prm::set(d.data(), prm::destroy_eq_in::eq_number, 1);
		auto q = msg_of(op::query_eq, 16);
		prm::set(q.data(), prm::query_eq_in::eq_number, 1);
		add("create_query_destroy_eq",
		    seed(4).cmd(op::create_eq, m).cmd(op::query_eq, q).cmd(op::destroy_eq, d));
		auto d0 = msg_of(op::destroy_eq, 16);
		add("destroy_eq_busy", seed(4).cmd(op::destroy_eq, d0));
	}
	{
		namespace in = prm::create_cq_in;
		auto m = msg_of(op::create_cq, in::size_bytes + 8);
		u8 *cqc = prm::at(m.data(), in::cq_context);
		prm::set(cqc, prm::cqc::log_cq_size, 6);
		prm::set(cqc, prm::cqc::uar_page, hca::hca_limits::first_uar);
		prm::set(cqc, prm::cqc::cqe_sz, prm::cqe_size::bytes_64);
		prm::set(cqc, prm::cqc::dbr_addr, sym(0, 8192 + 64));
		store_be<u64>(m.data() + in::pas.byte_off, sym(0, 0));
		add("create_cq", seed(4).cmd(op::create_cq, m));
		auto q = msg_of(op::query_cq, 16);
		prm::set(q.data(), prm::query_cq_in::cqn, 0);
		add("query_cq", seed(4).cmd(op::query_cq, q));
		auto mod = msg_of(op::modify_cq, prm::modify_cq_in::size_bytes, prm::modify_cq_op_mod::modify_cq);
		prm::set(mod.data(), prm::modify_cq_in::modify_field_select_resize_field_select, 7);
		u8 *mc = prm::at(mod.data(), prm::modify_cq_in::cq_context);
		prm::set(mc, prm::cqc::cq_period, 10);
		prm::set(mc, prm::cqc::cq_max_count, 4);
		prm::set(mc, prm::cqc::oi, 1);
		add("modify_cq", seed(4).cmd(op::modify_cq, mod));
		auto d = msg_of(op::destroy_cq, 16);
		add("destroy_cq_then_eq", seed(4).cmd(op::destroy_cq, d).cmd(op::destroy_eq, msg_of(op::destroy_eq, 16)));
	}
	{
		namespace in = prm::create_mkey_in;
		auto m = msg_of(op::create_mkey, in::size_bytes + 32);
		u8 *mkc = prm::at(m.data(), in::memory_key_mkey_entry);
		prm::set(mkc, prm::mkc::access_mode_1_0, prm::mkc_access_mode::mtt);
		prm::set(mkc, prm::mkc::lr, 1);
		prm::set(mkc, prm::mkc::rw, 1);
		prm::set(mkc, prm::mkc::pd, 1);
		prm::set(mkc, prm::mkc::mkey_7_0, 0x42);
		prm::set(mkc, prm::mkc::start_addr, 0x20000);
		prm::set(mkc, prm::mkc::len, 4 * 4096);
		prm::set(mkc, prm::mkc::log_page_size, 12);
		prm::set(mkc, prm::mkc::translations_octword_size, 2);
		prm::set(m.data(), in::translations_octword_actual_size, 2);
		for (u32 i = 0; i < 4; i++)
			store_be<u64>(m.data() + in::klm_pas_mtt.byte_off + 8 * i, sym(0, 4096 * i) | 3);
		add("create_mkey_mtt", seed(4).cmd(op::create_mkey, m));
		auto pa = msg_of(op::create_mkey, in::size_bytes);
		u8 *pc = prm::at(pa.data(), in::memory_key_mkey_entry);
		prm::set(pc, prm::mkc::access_mode_1_0, prm::mkc_access_mode::pa);
		prm::set(pc, prm::mkc::pd, 1);
		prm::set(pc, prm::mkc::length64, 1);
		add("create_mkey_pa", seed(4).cmd(op::create_mkey, pa));
		// A PA key with a translation list (must be refused).
		auto pal = msg_of(op::create_mkey, in::size_bytes + 16);
		std::copy(pa.begin(), pa.end(), pal.begin());
		prm::set(pal.data(), in::translations_octword_actual_size, 1);
		add("create_mkey_pa_list", seed(4).cmd(op::create_mkey, pal));
		auto q = msg_of(op::query_mkey, 16);
		prm::set(q.data(), prm::query_mkey_in::mkey_index, 2);
		add("query_mkey", seed(4).cmd(op::query_mkey, q));
		auto d = msg_of(op::destroy_mkey, 16);
		prm::set(d.data(), prm::destroy_mkey_in::mkey_index, 2);
		auto dp = msg_of(op::dealloc_pd, 16);
		prm::set(dp.data(), prm::dealloc_pd_in::pd, 1);
		add("destroy_mkey_then_pd", seed(4).cmd(op::destroy_mkey, d).cmd(op::dealloc_pd, dp));
	}
	// QP and SRQ commands: each with a zeroed body, then the real paths on
	// the level-4 objects (PD 1, UAR 8, CQ 0, Q counter 1): an SRQ, an RC QP
	// taken RST -> INIT -> RTR -> RTS -> ERR -> RST and destroyed, a UD QP
	// on the SRQ.
	for (u16 qop : {op::create_qp, op::destroy_qp, op::rst2init_qp, op::init2init_qp, op::init2rtr_qp,
			op::rtr2rts_qp, op::rts2rts_qp, op::sqerr2rts_qp, op::sqd_rts_qp, op::qp_2err, op::qp_2rst,
			op::query_qp, op::create_srq, op::destroy_srq, op::query_srq, op::arm_rq}) {
		char n[32];
		std::snprintf(n, sizeof(n), "qp_srq_%x", qop);
		add(n, seed(4).cmd(qop, msg_of(qop, 0x200)));
	}
	{
		namespace q = prm::qpc;
		namespace a = prm::ads;
		namespace si = prm::create_srq_in;
		auto srq = msg_of(op::create_srq, si::size_bytes + 8);
		u8 *sc = prm::at(srq.data(), si::srq_context_entry);
		prm::set(sc, prm::srqc::log_srq_size, 4);
		prm::set(sc, prm::srqc::log_rq_stride, 2);
		prm::set(sc, prm::srqc::pd, 1);
		prm::set(sc, prm::srqc::lwm, 2);
		prm::set(sc, prm::srqc::dbr_addr, sym(0, 3 * 4096));
		store_be<u64>(srq.data() + si::pas.byte_off, sym(0, 4 * 4096));
		auto arm = msg_of(op::arm_rq, prm::arm_rq_in::size_bytes, prm::arm_rq_op_mod::srq);
		prm::set(arm.data(), prm::arm_rq_in::srq_number, 1);
		prm::set(arm.data(), prm::arm_rq_in::lwm, 3);
		auto sq = msg_of(op::query_srq, 16);
		prm::set(sq.data(), prm::query_srq_in::srqn, 1);
		auto sd = msg_of(op::destroy_srq, 16);
		prm::set(sd.data(), prm::destroy_srq_in::srqn, 1);
		add("srq_create_arm_query_destroy",
		    seed(4).cmd(op::create_srq, srq).cmd(op::arm_rq, arm).cmd(op::query_srq, sq).cmd(op::destroy_srq, sd));

		namespace ci = prm::create_qp_in;
		auto qp = [&](u8 st, bool with_srq) {
			auto m = msg_of(op::create_qp, ci::size_bytes + 8);
			u8 *c = prm::at(m.data(), ci::qpc);
			prm::set(c, q::st, st);
			prm::set(c, q::pm_state, prm::qpc_pm_state::migrated);
			prm::set(c, q::pd, 1);
			prm::set(c, q::uar_page, hca::hca_limits::first_uar);
			prm::set(c, q::cqn_snd, 0);
			prm::set(c, q::cqn_rcv, 0);
			if (with_srq) {
				prm::set(c, q::rq_type, prm::qp_rq_type::srq);
				prm::set(c, q::srqn_rmpn_xrqn, 1);
			} else {
				prm::set(c, q::rq_type, prm::qp_rq_type::non_zero);
				prm::set(c, q::log_rq_size, 3);
				prm::set(c, q::log_rq_stride, 2);
			}
			prm::set(c, q::log_sq_size, 4);
			prm::set(c, q::counter_set_id, 1);
			prm::set(c, q::dbr_addr, sym(0, 3 * 4096 + 64));
			store_be<u64>(m.data() + ci::pas.byte_off, sym(0, 5 * 4096));
			return m;
		};
		auto modify = [&](u16 opcode, u8 st) {
			bool ctx = opcode != op::qp_2err && opcode != op::qp_2rst;
			auto m = msg_of(opcode, ctx ? prm::rst2init_qp_in::size_bytes : prm::qp_2rst_in::size_bytes);
			prm::set(m.data(), prm::rst2init_qp_in::qpn, 2);
			if (!ctx)
				return m;
			u8 *c = prm::at(m.data(), prm::rst2init_qp_in::qpc);
			u8 *path = prm::at(c, q::primary_address_path);
			prm::set(c, q::st, st);
			if (opcode == op::rst2init_qp) {
				prm::set(path, a::vhca_port_num, 1);
				prm::set(c, q::rwe, 1);
				prm::set(c, q::rre, 1);
				if (st == prm::qpc_st::ud)
					prm::set(c, q::q_key, 0x11111111);
			} else if (opcode == op::init2rtr_qp) {
				prm::set(c, q::mtu, prm::qpc_mtu::bytes_1k);
				prm::set(c, q::log_msg_max, 30);
				prm::set(c, q::remote_qpn, 0x42);
				prm::set(path, a::vhca_port_num, 1);
				prm::set(path, a::src_addr_index, 1);
				prm::set(path, a::hop_limit, 64);
				prm::set(c, q::log_rra_max, 2);
			} else {
				prm::set(c, q::next_send_psn, 0x200);
				prm::set(c, q::retry_count, 7);
				prm::set(c, q::log_sra_max, 2);
			}
			return m;
		};
		auto qq = msg_of(op::query_qp, 16);
		prm::set(qq.data(), prm::query_qp_in::qpn, 2);
		auto qd = msg_of(op::destroy_qp, 16);
		prm::set(qd.data(), prm::destroy_qp_in::qpn, 2);
		const u8 rc = prm::qpc_st::rc, ud = prm::qpc_st::ud;
		add("qp_rc_create", seed(4).cmd(op::create_qp, qp(rc, false)));
		add("qp_rc_to_rts", seed(4)
					    .cmd(op::create_qp, qp(rc, false))
					    .cmd(op::rst2init_qp, modify(op::rst2init_qp, rc))
					    .cmd(op::init2rtr_qp, modify(op::init2rtr_qp, rc))
					    .cmd(op::rtr2rts_qp, modify(op::rtr2rts_qp, rc))
					    .cmd(op::query_qp, qq));
		add("qp_rc_err_rst_destroy", seed(4)
						     .cmd(op::create_qp, qp(rc, false))
						     .cmd(op::rst2init_qp, modify(op::rst2init_qp, rc))
						     .cmd(op::qp_2err, modify(op::qp_2err, rc))
						     .cmd(op::qp_2rst, modify(op::qp_2rst, rc))
						     .cmd(op::destroy_qp, qd));
		add("qp_ud_srq", seed(4)
					 .cmd(op::create_srq, srq)
					 .cmd(op::create_qp, qp(ud, true))
					 .cmd(op::rst2init_qp, modify(op::rst2init_qp, ud))
					 .cmd(op::destroy_srq, sd)
					 .cmd(op::destroy_qp, qd));
	}
	add("query_vport_state", seed(3).cmd(op::query_vport_state, msg_of(op::query_vport_state, 16)));
	add("query_nic_vport_context",
	    seed(3).cmd(op::query_nic_vport_context, msg_of(op::query_nic_vport_context, 16)));

	// Raw records: a well-formed NOP, long chains both ways, every
	// pointer choice.
	auto raw_entry = [](u16 opcode, u32 inlen, u32 outlen, u8 token) {
		std::vector<u8> e(64);
		prm::set(e.data(), ent::type, prm::cmdq::type_pcie);
		prm::set(e.data(), ent::input_length, inlen);
		prm::set(e.data(), ent::output_length, outlen);
		prm::set(e.data(), ent::token, token);
		prm::set(prm::at(e.data(), ent::command_input_inline_data), prm::mbox_in::opcode, opcode);
		return e;
	};
	{
		auto e = raw_entry(op::nop, 16, 16, 0x11);
		const u8 c[5] = {0, 0, 0, 0, 0x10};
		add("raw_nop_signed", seed(1).raw(c, e.data(), {}));
		const u8 c2[5] = {0x23, 0x80, 0, 0, 0};
		add("raw_nop_more_bits", seed(1).raw(c2, e.data(), {}));
		const u8 c3[5] = {0x45, 0, 0, 0, 0};
		add("raw_nop_sw_owned", seed(1).raw(c3, e.data(), {}));
	}
	{
		// QUERY_HCA_CAP: 0x1010 bytes out = 8 blocks from pool block 1.
		auto e = raw_entry(op::query_hca_cap, 16, prm::query_hca_cap_out::size_bytes, 0x22);
		prm::set(prm::at(e.data(), ent::command_input_inline_data), prm::mbox_in::op_mod,
			 prm::hca_cap_op_mod(prm::cap_type::general, prm::cap_mode::cur));
		std::vector<std::vector<u8>> blocks(9);
		const u8 c[5] = {2, 0, 0, u8(ptr_pool | 1 << 3), 0x1d};
		add("raw_query_cap_out_chain", seed(1).raw(c, e.data(), blocks));
	}
	{
		// SET_HCA_CAP: 0x1010 bytes in (8 blocks), signed.
		auto e = raw_entry(op::set_hca_cap, prm::set_hca_cap_in::size_bytes, 16, 0x33);
		prm::set(prm::at(e.data(), ent::command_input_inline_data), prm::mbox_in::op_mod,
			 prm::hca_cap_op_mod(prm::cap_type::roce, 0));
		std::vector<std::vector<u8>> blocks(8);
		const u8 c[5] = {3, 0, ptr_pool, 0, 0x1d};
		add("raw_set_cap_in_chain", seed(2).raw(c, e.data(), blocks));
	}
	{
		// MANAGE_PAGES give with the page list in a mailbox.
		namespace in = prm::manage_pages_in;
		auto e = raw_entry(op::manage_pages, in::size_bytes + 8 * 8, 16, 0x44);
		u8 *inl = prm::at(e.data(), ent::command_input_inline_data);
		prm::set(inl, prm::mbox_in::op_mod, prm::manage_pages_op_mod::allocation_success);
		prm::set(inl, in::input_num_entries, 8);
		std::vector<u8> blk(512);
		for (u32 i = 0; i < 8; i++)
			store_be<u64>(blk.data() + 8 * i, sym(0, 4096 * (8 + i)));
		const u8 c[5] = {4, 0, ptr_pool, 0, 0x05};
		add("raw_manage_pages_mailbox", seed(1).raw(c, e.data(), {blk}));
	}
	{
		auto e = raw_entry(op::query_adapter, 16, prm::query_adapter_out::size_bytes, 0x55);
		std::vector<std::vector<u8>> blocks(2);
		for (u8 mode = 0; mode < 8; mode++) {
			const u8 c[5] = {5, 0, 0, u8(mode | 3 << 3), 0x05};
			std::string n = "raw_out_ptr_" + std::to_string(mode);
			add(n.c_str(), seed(1).raw(c, e.data(), blocks));
		}
		std::vector<std::vector<u8>> graph(3, std::vector<u8>(0x201));
		graph[0][0x200] = 2;
		graph[2][0x200] = 0x80;
		const u8 c[5] = {6, 0, 0, ptr_pool, 0x06};
		add("raw_graph_chain", seed(1).raw(c, e.data(), graph));
	}
	{
		auto e = raw_entry(op::create_eq, prm::create_eq_in::size_bytes + 8, 16, 0x66);
		std::vector<u8> blk(512);
		u8 *eqc = blk.data() + prm::create_eq_in::eq_context_entry.byte_off - 16;
		prm::set(eqc, prm::eqc::log_eq_size, 5);
		prm::set(eqc, prm::eqc::uar_page, hca::hca_limits::first_uar);
		store_be<u64>(blk.data() + prm::create_eq_in::event_bitmask.byte_off - 16, ~0ull);
		store_be<u64>(blk.data() + prm::create_eq_in::pas.byte_off - 16, sym(2, 8 * stride));
		for (u8 mode = 0; mode < 8; mode++) {
			const u8 c[5] = {7, 0, u8(mode), 0, 0x0d};
			std::string n = "raw_in_ptr_" + std::to_string(mode);
			add(n.c_str(), seed(4).raw(c, e.data(), {blk}));
		}
	}

	// Doorbells and the data path on the level-4 objects.
	add("uar_eq_arm", seed(4).uar(2, 0, 0, 0));
	add("uar_eq_ci", seed(4).uar(4, 0, 0, 0x00000005));
	add("uar_cq_arm", seed(4).uar(1, 0, 0, 0));
	{
		u8 cqe[64] = {};
		cqe[63] = 0x01;
		add("post_cqe_armed", seed(4).uar(1, 0, 0, 0).data(0, 0, cqe).data(2, 0, cqe));
		seed s(4);
		for (int i = 0; i < 7; i++)
			s.data(0, 0, cqe);
		add("post_cqe_overrun", s);
	}
	add("link_down_up", seed(4).data(1, 0).data(3, 0));
	add("cmd_events", seed(4, 1).cmd(op::nop, msg_of(op::nop, 16)).uar(2, 0, 0, 0));

	for (auto &[name, s] : all) {
		std::string path = std::string(dir) + "/seed-" + name;
		FILE *f = std::fopen(path.c_str(), "wb");
		if (!f || std::fwrite(s.b.data(), 1, s.b.size(), f) != s.b.size() || std::fclose(f))
			die("cannot write a seed");
	}
	std::fprintf(stderr, "fuzz_cmdq: %zu seeds in %s\n", all.size(), dir);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	if (const char *dir = std::getenv("SCX_FUZZ_SEEDS")) {
		write_seeds(dir);
		std::exit(0);
	}
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reader in{data, size};
	u32 level = in.byte() % 5;
	u8 gflags = in.byte();
	unsigned bugs = host_env::bug_count();
	{
		rig r;
		r.start();
		r.setup(level, gflags);
		for (u32 n = 0; n < max_records && !in.empty(); n++) {
			switch (in.byte() % 4) {
			case 0: raw_record(r, in); break;
			case 1: cmd_record(r, in); break;
			case 2: uar_record(r, in); break;
			case 3: data_record(r, in); break;
			}
		}
		r.dev.stop();
	}
	if (host_env::bug_count() != bugs)
		die("the hca reported a broken invariant");
	return 0;
}
