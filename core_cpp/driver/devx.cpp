// SPDX-License-Identifier: GPL-2.0
#include "driver/devx.h"

#include "lib/new.h"
#include "prm/cmd.h"
#include "prm/umem.h"

namespace scx::driver::devx {

namespace op = prm::op;

// Opcodes softcx has no layout for are named by number, as mlx5_ifc.h
// numbers them.
constexpr u16 query_esw_vport_context = 0x752;
constexpr u16 query_roce_address = 0x760;
constexpr u16 query_hca_vport_context = 0x762;
constexpr u16 query_vnic_env = 0x76f;
constexpr u16 query_vport_counter = 0x770;
constexpr u16 get_dropped_packet_log = 0x80a;
constexpr u16 query_cong_status = 0x822;
constexpr u16 query_cong_params = 0x824;
constexpr u16 query_cong_statistics = 0x826;
constexpr u16 query_lag = 0x842;
constexpr u16 general_start = 0xb00, general_end = 0xd00;

bool whitelisted(u16 opcode)
{
	switch (opcode) {
	case op::query_hca_cap:
	case query_hca_vport_context:
	case query_esw_vport_context:
	case op::query_esw_functions:
		return true;
	default:
		return false;
	}
}

bool general_cmd(u16 opcode)
{
	if (opcode >= general_start && opcode < general_end)
		return true;
	if (whitelisted(opcode))
		return true;
	switch (opcode) {
	case op::query_vport_state:
	case op::query_adapter:
	case op::query_issi:
	case op::query_nic_vport_context:
	case query_roce_address:
	case query_vnic_env:
	case query_vport_counter:
	case get_dropped_packet_log:
	case op::nop:
	case query_cong_status:
	case query_cong_params:
	case query_cong_statistics:
	case query_lag:
		return true;
	default:
		return false;
	}
}

result<u16> uid_for(u16 opcode, u16 ctx_uid, u16 whitelist_uid)
{
	if (ctx_uid)
		return ctx_uid;
	if (!whitelisted(opcode))
		return errc::inval;
	if (!whitelist_uid)
		return errc::notsupp;
	return whitelist_uid;
}

status general(device &dev, u16 ctx_uid, u16 whitelist_uid, u8 *in, u32 inlen, u8 *out, u32 outlen)
{
	if (inlen < prm::mbox_in::size_bytes || outlen < prm::mbox_out::size_bytes)
		return errc::inval;
	u16 opcode = u16(prm::get(in, prm::mbox_in::opcode));
	result<u16> uid = uid_for(opcode, ctx_uid, whitelist_uid);
	if (!uid)
		return uid.error();
	if (!general_cmd(opcode))
		return errc::inval;
	prm::set(in, prm::mbox_in::uid, *uid);
	// A user's bad command is the user's: its status goes back to it,
	// not to the kernel log.
	return dev.cmd().exec(in, inlen, out, outlen, cmd_if::f_quiet);
}

result<u32> query_eqn(device &dev, u32 vector)
{
	if (vector >= dev.num_comp_eqs())
		return errc::noent;
	return dev.comp_eqn(vector);
}

result<u32> create_umem(device &dev, u16 uid, u32 page_shift, u32 page_offset, const u64 *pages, u32 npages,
			bool writable)
{
	namespace in = prm::create_umem_in;
	if (!npages || page_shift < 12 || page_shift > 12 + 31 || page_offset >> page_shift)
		return errc::inval;
	// The command's input holds every MTT: at most what a mailbox chain
	// can carry (the device's limit then decides).
	if (npages > (0xffffffffu - in::size_bytes) / prm::mtt::size_bytes)
		return errc::inval;
	const u32 inlen = in::size_bytes + npages * prm::mtt::size_bytes;
	auto *buf = static_cast<u8 *>(alloc_bytes(inlen));
	if (!buf)
		return errc::nomem;
	zero_bytes(buf, inlen);
	prm::set(buf, in::opcode, prm::op::create_umem);
	prm::set(buf, in::uid, uid);
	u8 *um = prm::at(buf, in::umem);
	prm::set(um, prm::umem::log_page_size, page_shift - 12);
	prm::set(um, prm::umem::page_offset, page_offset);
	prm::set(um, prm::umem::num_of_mtt, npages);
	// An MTT is the page's address with its rights in the low bits.
	const u64 rights = 1 | (writable ? 2 : 0);
	for (u32 i = 0; i < npages; i++)
		store_be<u64>(buf + in::size_bytes + i * prm::mtt::size_bytes, pages[i] | rights);
	u8 out[prm::create_umem_out::size_bytes] = {};
	status s = dev.cmd().exec(buf, inlen, out, sizeof(out));
	free_bytes(buf);
	if (!s)
		return s;
	return u32(prm::get(out, prm::create_umem_out::umem_id));
}

status destroy_umem(device &dev, u16 uid, u32 id)
{
	u8 in[prm::destroy_umem_in::size_bytes] = {};
	u8 out[prm::destroy_umem_out::size_bytes] = {};
	prm::set(in, prm::destroy_umem_in::opcode, prm::op::destroy_umem);
	prm::set(in, prm::destroy_umem_in::uid, uid);
	prm::set(in, prm::destroy_umem_in::umem_id, id);
	return dev.cmd().exec(in, sizeof(in), out, sizeof(out));
}

} // namespace scx::driver::devx
