// SPDX-License-Identifier: GPL-2.0
// The hca's init segment and command interface, driven through BAR0 and
// memory as a driver would: registers, asynchronous execution, mailbox
// chains of every length, every delivery status, signatures, tokens,
// lengths, unknown opcodes, reserved bits and the fault hooks.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "hca/syndrome.h"
#include "hca_harness.h"
#include "host_env.h"
#include "prm/hca.h"
#include "prm/hca_cap.h"
#include "prm/init_seg.h"
#include "prm/pages.h"

using namespace hca_test;
using namespace scx;
namespace ds = prm::delivery_stat;
namespace ent = prm::cmd_queue_entry;
namespace box = prm::cmd_if_box;
namespace iseg = prm::initial_seg;

namespace {

class HcaCmdq : public ::testing::Test {
protected:
	void SetUp() override { live_ = host_env::live_allocations(); }
	void TearDown() override
	{
		EXPECT_EQ(host_env::bug_count(), 0u);
		EXPECT_EQ(host_env::sleep_in_atomic_count(), 0u);
	}
	void check_no_leak() { EXPECT_EQ(host_env::live_allocations(), live_); }
	long live_ = 0;
};

// A command whose input needs `bytes` of mailbox data: MANAGE_PAGES giving
// nothing (input_num_entries 0) accepts any input length.
std::vector<u8> long_input(u32 total)
{
	auto c = cmd_in(prm::op::manage_pages, total, prm::manage_pages_op_mod::allocation_success);
	return c;
}

} // namespace

TEST_F(HcaCmdq, InitSegmentRegisters)
{
	hca::device_config cfg;
	cfg.fw_major = 16;
	cfg.fw_minor = 35;
	cfg.fw_subminor = 2000;
	cfg.boot_delay_us = 100000;
	{
		env_dma dma;
		counting_irq irq;
		hca::device dev(dma, irq, cfg);
		ASSERT_TRUE(dev.init());
		auto rd = [&dev](u32 off) { return bar_read32(dev, off); };
		// Booting: the driver must wait.
		EXPECT_EQ(prm::reg_get(rd(prm::reg_offset(iseg::initializing)), iseg::initializing), 1u);
		u32 fw = rd(prm::reg_offset(iseg::fw_rev_major));
		EXPECT_EQ(prm::reg_get(fw, iseg::fw_rev_major), 16u);
		EXPECT_EQ(prm::reg_get(fw, iseg::fw_rev_minor), 35u);
		u32 rev = rd(prm::reg_offset(iseg::cmd_interface_rev));
		EXPECT_EQ(prm::reg_get(rev, iseg::cmd_interface_rev), 5u);
		EXPECT_EQ(prm::reg_get(rev, iseg::fw_rev_subminor), 2000u);
		u32 l = rd(prm::reg_offset(iseg::log_cmdq_size));
		EXPECT_EQ(prm::reg_get(l, iseg::log_cmdq_size), 5u);
		EXPECT_EQ(prm::reg_get(l, iseg::log_cmdq_stride), 6u);
		EXPECT_EQ(prm::reg_get(l, iseg::nic_interface), prm::nic_ifc::full);

		u32 h0 = prm::reg_get(rd(prm::reg_offset(iseg::health_counter)), iseg::health_counter);
		u64 t0 = u64(rd(prm::reg_offset(prm::init_seg::internal_timer_h))) << 32 |
			 rd(prm::reg_offset(prm::init_seg::internal_timer_l));
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
		u32 h1 = prm::reg_get(rd(prm::reg_offset(iseg::health_counter)), iseg::health_counter);
		u64 t1 = u64(rd(prm::reg_offset(prm::init_seg::internal_timer_h))) << 32 |
			 rd(prm::reg_offset(prm::init_seg::internal_timer_l));
		EXPECT_GT(h1, h0);
		EXPECT_GE(t1 - t0, 5000000u);
		EXPECT_EQ(rd(prm::init_seg::health.byte_off), 0u);

		cmd_poster p(dev);
		ASSERT_TRUE(p.start());
		// The address reads back as written, size and stride the device's.
		l = rd(prm::reg_offset(iseg::cmdq_phy_addr_31_12));
		EXPECT_EQ(prm::reg_get(l, iseg::log_cmdq_size), 5u);
		EXPECT_EQ(u64(rd(prm::reg_offset(iseg::cmdq_phy_addr_63_32))) << 32 |
				  u64(prm::reg_get(l, iseg::cmdq_phy_addr_31_12)) << 12,
			  u64(reinterpret_cast<uintptr_t>(p.entry(0))));
		dev.stop();
	}
	check_no_leak();
}

TEST_F(HcaCmdq, DoorbellBeforeQueueSetupIsIgnored)
{
	hca_rig rig;
	ASSERT_TRUE(rig.ok);
	// Point the device at a new queue but ring before it took it: the
	// rung slot of the new queue is not executed.
	EXPECT_TRUE(nop(rig.poster) == false); // not enabled: BAD_SYS_STATE
	auto r = rig.poster.exec(cmd_in(prm::op::nop, 16), 16);
	ASSERT_TRUE(r.completed);
	EXPECT_EQ(r.status, prm::cmd_stat::bad_sys_state_err);
	EXPECT_EQ(r.syndrome, hca::synd::not_enabled);
}

TEST_F(HcaCmdq, ExecutesAsynchronously)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	ASSERT_TRUE(rig.dev.faults().delay(prm::op::nop, 100));
	auto t0 = std::chrono::steady_clock::now();
	auto pend = rig.poster.post(cmd_in(prm::op::nop, 16), 16);
	// The doorbell returned; the command is still the device's.
	EXPECT_TRUE(rig.poster.owned_by_hw(0));
	// Another slot completes meanwhile.
	post_opts o;
	o.slot = 3;
	auto r3 = rig.poster.exec(cmd_in(prm::op::nop, 16), 16, o);
	EXPECT_TRUE(r3.completed);
	EXPECT_TRUE(rig.poster.owned_by_hw(0));
	auto r = rig.poster.wait(pend);
	ASSERT_TRUE(r.completed);
	EXPECT_EQ(r.status, 0);
	EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(100));
}

TEST_F(HcaCmdq, AllSlotsInOneBatch)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	std::vector<cmd_poster::pending> pend;
	for (u32 s = 0; s < 32; s++) {
		post_opts o;
		o.slot = s;
		o.token = u8(s + 1);
		pend.push_back(rig.poster.post(cmd_in(prm::op::nop, 16), 16, o));
	}
	for (auto &p : pend) {
		auto r = rig.poster.wait(p);
		ASSERT_TRUE(r.completed);
		EXPECT_EQ(r.delivery, ds::ok);
		EXPECT_EQ(r.status, 0);
		EXPECT_TRUE(r.entry_sig_ok);
	}
}

TEST_F(HcaCmdq, OneBlockOutputChain)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	namespace pb = prm::query_adapter_param_block;
	auto r = rig.poster.exec(cmd_in(prm::op::query_adapter, 16), prm::query_adapter_out::size_bytes);
	ASSERT_TRUE(r.completed);
	ASSERT_EQ(r.delivery, ds::ok);
	ASSERT_EQ(r.status, 0);
	const u8 *b = prm::at(r.out.data(), prm::query_adapter_out::query_adapter_struct);
	EXPECT_EQ(prm::get(b, pb::ieee_vendor_id), 0x2c9u);
	EXPECT_EQ(prm::get(b, pb::vsd_vendor_id), 0x15b3u);
	EXPECT_STREQ(reinterpret_cast<const char *>(prm::at(b, pb::vsd)), "softcx software HCA");
	EXPECT_STREQ(reinterpret_cast<const char *>(prm::at(b, pb::vsd_contd_psid)), "SCX0000000001");
}

TEST_F(HcaCmdq, TwoBlockInputChain)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	u32 before = rig.dev.fw_pages_held();
	// 16 + 100 * 8 bytes: inline part plus two mailboxes.
	ASSERT_EQ(prm::cmdq::blocks_for(16 + 100 * 8), 2u);
	ASSERT_TRUE(give_pages(rig.poster, 100, &rig.pages));
	EXPECT_EQ(rig.dev.fw_pages_held(), before + 100);
}

TEST_F(HcaCmdq, LongChainsBothWaysWithSignatures)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	// QUERY_HCA_CAP: 4112 bytes of output, eight output mailboxes.
	post_opts o;
	o.sign = true;
	auto q = cmd_in(prm::op::query_hca_cap, 16, prm::hca_cap_op_mod(prm::cap_type::general, prm::cap_mode::cur));
	ASSERT_EQ(prm::cmdq::blocks_for(prm::query_hca_cap_out::size_bytes), 8u);
	auto r = rig.poster.exec(q, prm::query_hca_cap_out::size_bytes, o);
	ASSERT_TRUE(r.completed);
	ASSERT_EQ(r.delivery, ds::ok);
	ASSERT_EQ(r.status, 0);
	EXPECT_TRUE(r.entry_sig_ok);
	EXPECT_TRUE(r.block_sigs_ok);
	const u8 *cap = prm::at(r.out.data(), prm::query_hca_cap_out::capability);
	EXPECT_EQ(prm::get(cap, prm::cmd_hca_cap::num_ports), 1u);
	EXPECT_EQ(prm::get(cap, prm::cmd_hca_cap::port_type), prm::port_type::eth);
	EXPECT_EQ(prm::get(cap, prm::cmd_hca_cap::log_max_cq), 12u);

	// MANAGE_PAGES with 600 pages: ten input mailboxes, signed.
	namespace in = prm::manage_pages_in;
	u32 n = 600;
	auto c = cmd_in(prm::op::manage_pages, in::size_bytes + n * 8, prm::manage_pages_op_mod::allocation_success);
	prm::set(c.data(), in::input_num_entries, n);
	for (u32 i = 0; i < n; i++) {
		dma_mem m = rig.poster.arena().alloc(4096);
		store_be<u64>(c.data() + in::pas.byte_off + 8 * i, m.bus);
	}
	ASSERT_EQ(prm::cmdq::blocks_for(u32(c.size())), 10u);
	u32 before = rig.dev.fw_pages_held();
	r = rig.poster.exec(c, 16, o);
	ASSERT_TRUE(r.completed);
	ASSERT_EQ(r.delivery, ds::ok);
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(rig.dev.fw_pages_held(), before + n);

	// And take 300 back: a nine-block output chain of addresses.
	auto t = cmd_in(prm::op::manage_pages, 16, prm::manage_pages_op_mod::hca_return_pages);
	prm::set(t.data(), in::input_num_entries, 300);
	r = rig.poster.exec(t, prm::manage_pages_out::size_bytes + 300 * 8, o);
	ASSERT_TRUE(r.completed);
	ASSERT_EQ(r.status, 0);
	EXPECT_TRUE(r.block_sigs_ok);
	EXPECT_EQ(prm::get(r.out.data(), prm::manage_pages_out::output_num_entries), 300u);
	EXPECT_EQ(rig.dev.fw_pages_held(), before + n - 300);
	for (u32 i = 0; i < 300; i++)
		EXPECT_EQ(load_be<u64>(r.out.data() + prm::manage_pages_out::pas.byte_off + 8 * i) & 0xfff, 0u);
}

TEST_F(HcaCmdq, SetHcaCapEightInputBlocks)
{
	hca_rig rig;
	ASSERT_TRUE(rig.ok);
	ASSERT_EQ(status_of(rig.poster, cmd_in(prm::op::enable_hca, 16), 12), 0);
	auto s = cmd_in(prm::op::set_hca_cap, prm::set_hca_cap_in::size_bytes,
			prm::hca_cap_op_mod(prm::cap_type::general, 0));
	u8 *cap = prm::at(s.data(), prm::set_hca_cap_in::capability);
	prm::set(cap, prm::cmd_hca_cap::cmdif_checksum, prm::cmdif_checksum::enabled);
	prm::set(cap, prm::cmd_hca_cap::log_max_qp, 10);
	post_opts o;
	o.sign = true;
	auto r = rig.poster.exec(s, 16, o);
	ASSERT_TRUE(r.completed);
	ASSERT_EQ(r.delivery, ds::ok);
	ASSERT_EQ(r.status, 0);
	std::vector<u8> out;
	ASSERT_EQ(status_of(rig.poster,
			    cmd_in(prm::op::query_hca_cap, 16, prm::hca_cap_op_mod(prm::cap_type::general, prm::cap_mode::cur)),
			    prm::query_hca_cap_out::size_bytes, &out),
		  0);
	cap = prm::at(out.data(), prm::query_hca_cap_out::capability);
	EXPECT_EQ(prm::get(cap, prm::cmd_hca_cap::cmdif_checksum), prm::cmdif_checksum::enabled);
	EXPECT_EQ(prm::get(cap, prm::cmd_hca_cap::log_max_qp), 10u);
}

struct delivery_case {
	const char *name;
	u32 inlen;
	u32 outlen;
	bool sign;
	int in_blocks;
	int out_blocks;
	std::function<void(u8 *, std::vector<u8 *> &, std::vector<u8 *> &)> tamper;
	u8 expect;
};

TEST_F(HcaCmdq, EveryDeliveryStatus)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	auto flip_in_data = [](u8 *, std::vector<u8 *> &in, std::vector<u8 *> &) { in[0][7] ^= 0x40; };
	auto flip_entry = [](u8 *e, std::vector<u8 *> &, std::vector<u8 *> &) {
		prm::at(e, ent::command_input_inline_data)[12] ^= 1;
	};
	auto bad_out_sig = [](u8 *, std::vector<u8 *> &, std::vector<u8 *> &out) {
		prm::set(out[0], box::ctrl_signature, u8(prm::get(out[0], box::ctrl_signature) ^ 0x10));
	};
	auto wrong_token_in = [](u8 *, std::vector<u8 *> &in, std::vector<u8 *> &) { prm::set(in[1], box::token, 0x77); };
	auto wrong_token_resigned = [](u8 *, std::vector<u8 *> &in, std::vector<u8 *> &) {
		u8 *b = in[0];
		prm::set(b, box::token, 0x11);
		prm::set(b, box::ctrl_signature, 0);
		prm::set(b, box::signature, 0);
		prm::set(b, box::ctrl_signature, u8(~prm::cmdq::xor8(b + box::ctrl_sig_first, box::ctrl_sig_len)));
		prm::set(b, box::signature, u8(~prm::cmdq::xor8(b, box::size_bytes - 1)));
	};
	auto wrong_token_out = [](u8 *, std::vector<u8 *> &, std::vector<u8 *> &out) { prm::set(out[0], box::token, 1); };
	auto bad_block_num = [](u8 *, std::vector<u8 *> &in, std::vector<u8 *> &) { prm::set(in[1], box::block_number, 5); };
	auto bad_out_block_num = [](u8 *, std::vector<u8 *> &, std::vector<u8 *> &out) {
		prm::set(out[0], box::block_number, 1);
	};
	auto in_ptr_low = [](u8 *e, std::vector<u8 *> &, std::vector<u8 *> &) { prm::set(e, ent::reserved_at_77, 0x40); };
	auto in_next_low = [](u8 *, std::vector<u8 *> &in, std::vector<u8 *> &) {
		prm::set(in[0], box::reserved_at_11b6, 0x100);
	};
	auto out_ptr_low = [](u8 *e, std::vector<u8 *> &, std::vector<u8 *> &) { prm::set(e, ent::reserved_at_1b7, 1); };
	auto out_next_low = [](u8 *, std::vector<u8 *> &, std::vector<u8 *> &out) {
		prm::set(out[0], box::reserved_at_11b6, 4);
	};
	auto reserved_type = [](u8 *e, std::vector<u8 *> &, std::vector<u8 *> &) { prm::set(e, ent::reserved_at_8, 1); };
	auto reserved_1f0 = [](u8 *e, std::vector<u8 *> &, std::vector<u8 *> &) { prm::set(e, ent::reserved_at_1f0, 2); };
	auto bad_type = [](u8 *e, std::vector<u8 *> &, std::vector<u8 *> &) { prm::set(e, ent::type, 3); };
	auto unmapped_in = [](u8 *e, std::vector<u8 *> &, std::vector<u8 *> &) {
		prm::set(e, ent::input_mailbox_pointer_63_32, 0x7fff);
	};
	auto unmapped_next = [](u8 *, std::vector<u8 *> &in, std::vector<u8 *> &) {
		prm::set(in[0], box::next_pointer_63_32, 0x7fff);
	};

	const u32 two = 16 + 600; // two input mailboxes
	const delivery_case cases[] = {
		{"entry signature", 16, 16, true, -1, -1, flip_entry, ds::signat_err},
		{"input block signature", two, 16, true, -1, -1, flip_in_data, ds::signat_err},
		{"output block signature", 16, 600, true, -1, -1, bad_out_sig, ds::signat_err},
		{"input token", two, 16, false, -1, -1, wrong_token_in, ds::tok_err},
		{"input token, re-signed", two, 16, true, -1, -1, wrong_token_resigned, ds::tok_err},
		{"output token", 16, 600, false, -1, -1, wrong_token_out, ds::tok_err},
		{"input block number", two, 16, false, -1, -1, bad_block_num, ds::bad_blk_num_err},
		{"output block number", 16, 600, false, -1, -1, bad_out_block_num, ds::bad_blk_num_err},
		{"input pointer alignment", two, 16, false, -1, -1, in_ptr_low, ds::in_ptr_align_err},
		{"input next alignment", two, 16, false, -1, -1, in_next_low, ds::in_ptr_align_err},
		{"output pointer alignment", 16, 600, false, -1, -1, out_ptr_low, ds::out_ptr_align_err},
		{"output next alignment", 16, 1200, false, -1, -1, out_next_low, ds::out_ptr_align_err},
		{"input too short", 4, 16, false, -1, -1, nullptr, ds::in_length_err},
		{"input too long", (1u << 20) + 1, 16, false, 0, -1, nullptr, ds::in_length_err},
		{"input chain too short", two, 16, false, 1, -1, nullptr, ds::in_length_err},
		{"output too short", 16, 4, false, -1, -1, nullptr, ds::out_length_err},
		{"output chain too short", 16, 1200, false, -1, 2, nullptr, ds::out_length_err},
		{"output chain missing", 16, 600, false, -1, 0, nullptr, ds::out_length_err},
		{"reserved after type", 16, 16, false, -1, -1, reserved_type, ds::res_fld_not_clr_err},
		{"reserved before status", 16, 16, false, -1, -1, reserved_1f0, ds::res_fld_not_clr_err},
		{"transport type", 16, 16, false, -1, -1, bad_type, ds::cmd_descr_err},
		{"unmapped input mailbox", two, 16, false, -1, -1, unmapped_in, ds::cmd_descr_err},
		{"unmapped next mailbox", two, 16, false, -1, -1, unmapped_next, ds::cmd_descr_err},
	};
	u32 slot = 0;
	for (const auto &k : cases) {
		SCOPED_TRACE(k.name);
		std::vector<u8> in = k.inlen > (1u << 20) ? std::vector<u8>(16) : long_input(std::max<u32>(k.inlen, 16));
		if (k.inlen < 16)
			in.resize(k.inlen);
		post_opts o;
		o.slot = slot++ % 32;
		o.sign = k.sign;
		o.in_blocks = k.in_blocks;
		o.out_blocks = k.out_blocks;
		o.tamper = k.tamper;
		if (k.inlen > (1u << 20)) {
			// Only the length field says so: nothing else is read. Set
			// before the doorbell, or the device may run the entry first.
			o.tamper = [len = k.inlen](u8 *e, std::vector<u8 *> &, std::vector<u8 *> &) {
				prm::set(e, ent::input_length, len);
			};
		}
		cmd_poster::pending p = rig.poster.post(in, k.outlen, o);
		auto r = rig.poster.wait(p);
		ASSERT_TRUE(r.completed);
		EXPECT_EQ(r.delivery, k.expect);
		EXPECT_TRUE(r.entry_sig_ok);
	}
	// The injected firmware error, and the device still works afterwards.
	ASSERT_TRUE(rig.dev.faults().fail_delivery(prm::op::nop, ds::fw_err));
	auto r = rig.poster.exec(cmd_in(prm::op::nop, 16), 16);
	ASSERT_TRUE(r.completed);
	EXPECT_EQ(r.delivery, ds::fw_err);
	EXPECT_TRUE(nop(rig.poster));
}

TEST_F(HcaCmdq, UnknownOpcodeAndHeaderChecks)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	u32 synd = 0;
	EXPECT_EQ(status_of(rig.poster, cmd_in(0x7ff, 16), 16, nullptr, &synd), prm::cmd_stat::bad_op_err);
	EXPECT_EQ(synd, hca::synd::bad_opcode);
	auto c = cmd_in(prm::op::nop, 16);
	prm::set(c.data(), prm::mbox_in::reserved_at_20, 1);
	EXPECT_EQ(status_of(rig.poster, c, 16, nullptr, &synd), prm::cmd_stat::bad_param_err);
	EXPECT_EQ(synd, hca::synd::hdr_reserved);
	// A uid that names no user context.
	c = cmd_in(prm::op::alloc_pd, 16);
	prm::set(c.data(), prm::mbox_in::uid, 5);
	EXPECT_EQ(status_of(rig.poster, c, 16, nullptr, &synd), prm::cmd_stat::bad_param_err);
	EXPECT_EQ(synd, hca::synd::uctx_invalid);
}

TEST_F(HcaCmdq, CommandLengthChecks)
{
	hca_rig rig;
	ASSERT_TRUE(rig.ok);
	ASSERT_EQ(status_of(rig.poster, cmd_in(prm::op::enable_hca, 16), 12), 0);
	u32 synd = 0;
	// INIT_HCA's input is 32 bytes.
	EXPECT_EQ(status_of(rig.poster, cmd_in(prm::op::init_hca, 16), 16, nullptr, &synd),
		  prm::cmd_stat::bad_inp_len_err);
	EXPECT_EQ(synd, hca::synd::short_input);
	// QUERY_ADAPTER's output is 272 bytes.
	EXPECT_EQ(status_of(rig.poster, cmd_in(prm::op::query_adapter, 16), 16, nullptr, &synd),
		  prm::cmd_stat::bad_outp_len_err);
	EXPECT_EQ(synd, hca::synd::short_output);
	// An output of 8 bytes still carries status and syndrome.
	auto r = rig.poster.exec(cmd_in(prm::op::query_adapter, 16), 8);
	ASSERT_TRUE(r.completed);
	EXPECT_EQ(r.status, prm::cmd_stat::bad_outp_len_err);
	// A list that does not fit the input: 10 pages announced, 2 present.
	auto m = cmd_in(prm::op::manage_pages, 16 + 16, prm::manage_pages_op_mod::allocation_success);
	prm::set(m.data(), prm::manage_pages_in::input_num_entries, 10);
	EXPECT_EQ(status_of(rig.poster, m, 16, nullptr, &synd), prm::cmd_stat::bad_inp_len_err);
	EXPECT_EQ(synd, hca::synd::short_list);
}

TEST_F(HcaCmdq, FaultHooks)
{
	hca_rig rig;
	ASSERT_TRUE(rig.up());
	auto &f = rig.dev.faults();
	ASSERT_TRUE(f.fail(prm::op::nop, prm::cmd_stat::res_busy, 0x1234, 2));
	u32 synd = 0;
	EXPECT_EQ(status_of(rig.poster, cmd_in(prm::op::nop, 16), 16, nullptr, &synd), prm::cmd_stat::res_busy);
	EXPECT_EQ(synd, 0x1234u);
	EXPECT_EQ(status_of(rig.poster, cmd_in(prm::op::nop, 16), 16), prm::cmd_stat::res_busy);
	EXPECT_TRUE(nop(rig.poster));
	ASSERT_TRUE(f.fail(hca::fault_hooks::any_opcode, prm::cmd_stat::int_err));
	EXPECT_EQ(status_of(rig.poster, cmd_in(prm::op::alloc_pd, 16), 16, nullptr, &synd), prm::cmd_stat::int_err);
	EXPECT_EQ(synd, hca::synd::injected);

	// A dropped command never comes back.
	ASSERT_TRUE(f.drop(prm::op::nop));
	post_opts o;
	o.slot = 7;
	auto p = rig.poster.post(cmd_in(prm::op::nop, 16), 16, o);
	auto r = rig.poster.wait(p, 200);
	EXPECT_FALSE(r.completed);
	EXPECT_EQ(f.dropped(), 1u);
	EXPECT_TRUE(nop(rig.poster, 8));
	f.clear();
}
