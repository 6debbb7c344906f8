// SPDX-License-Identifier: GPL-2.0
// The command queue: a ring of 64-byte entries in host memory whose address
// the driver writes to the init segment, and the 576-byte mailbox blocks that
// carry input and output beyond the 16 inline bytes of an entry. The entry's
// last byte holds the delivery status (bits 7:1) and the ownership bit (bit 0,
// 1 = owned by the device until it has executed the command).
#pragma once

#include "prm/field.h"

// mlx5_ifc_cmd_queue_entry_bits (device.h: struct mlx5_cmd_layout).
namespace scx::prm::cmd_queue_entry {
constexpr field<0x000, 8> type{};
constexpr field<0x008, 24> reserved_at_8{};
constexpr field<0x020, 32> input_length{};
constexpr field<0x040, 32> input_mailbox_pointer_63_32{};
constexpr field<0x060, 23> input_mailbox_pointer_31_9{};
constexpr field<0x077, 9> reserved_at_77{};
constexpr block<0x080, 16> command_input_inline_data{};
constexpr block<0x100, 16> command_output_inline_data{};
constexpr field<0x180, 32> output_mailbox_pointer_63_32{};
constexpr field<0x1a0, 23> output_mailbox_pointer_31_9{};
constexpr field<0x1b7, 9> reserved_at_1b7{};
constexpr field<0x1c0, 32> output_length{};
constexpr field<0x1e0, 8> token{};
constexpr field<0x1e8, 8> signature{};
constexpr field<0x1f0, 8> reserved_at_1f0{};
constexpr field<0x1f8, 7> status{};
constexpr field<0x1ff, 1> ownership{};
constexpr u32 size_bytes = 64;
} // namespace scx::prm::cmd_queue_entry

// One mailbox block: mlx5_ifc_cmd_if_box_bits (device.h: mlx5_cmd_prot_block).
namespace scx::prm::cmd_if_box {
constexpr block<0x0000, 512> mailbox_data{};
constexpr field<0x1180, 32> next_pointer_63_32{};
constexpr field<0x11a0, 22> next_pointer_31_10{};
constexpr field<0x11b6, 10> reserved_at_11b6{};
constexpr field<0x11c0, 32> block_number{};
constexpr field<0x11e8, 8> token{};
constexpr field<0x11f0, 8> ctrl_signature{};
constexpr field<0x11f8, 8> signature{};
constexpr u32 size_bytes = 576;
// The control signature covers the block from the end of the data up to and
// including the token (rsvd0, next, block_number, token).
constexpr u32 ctrl_sig_first = 512;
constexpr u32 ctrl_sig_len = size_bytes - 512 - 2;
} // namespace scx::prm::cmd_if_box

namespace scx::prm::cmdq {
constexpr u32 max_commands = 32;        // MLX5_MAX_COMMANDS: slots (and doorbell bits)
constexpr u32 inline_bytes = 16;        // of input and of output, in the entry
constexpr u32 data_block_size = 512;    // MLX5_CMD_DATA_BLOCK_SIZE
// The kernel allocates blocks from a pool aligned to the power of two above
// their size; the next_pointer field has no bits below 10 to say otherwise.
constexpr u32 box_stride = 1024;
constexpr u32 entry_ptr_align = 512;    // input/output_mailbox_pointer_31_9
constexpr u8 type_pcie = 0x7;           // MLX5_PCI_CMD_XPORT
constexpr u8 owner_sw = 0;
constexpr u8 owner_hw = 1;
constexpr u32 cmd_if_rev = 5;           // init segment cmd_interface_rev

// Mailbox blocks needed after the inline bytes for a message of len bytes.
constexpr u32 blocks_for(u32 len)
{
	return len <= inline_bytes ? 0 : (len - inline_bytes + data_block_size - 1) / data_block_size;
}

// The PRM's signature: a byte chosen so that the xor of a region is 0xff.
inline u8 xor8(const void *buf, u32 len)
{
	const u8 *p = static_cast<const u8 *>(buf);
	u8 x = 0;
	for (u32 i = 0; i < len; i++)
		x ^= p[i];
	return x;
}
} // namespace scx::prm::cmdq

// Delivery status in cmd_queue_entry.status: whether the command reached the
// firmware at all (cmd.c: MLX5_CMD_DELIVERY_STAT_*).
namespace scx::prm::delivery_stat {
constexpr u8 ok = 0x0;
constexpr u8 signat_err = 0x1;
constexpr u8 tok_err = 0x2;
constexpr u8 bad_blk_num_err = 0x3;
constexpr u8 out_ptr_align_err = 0x4;
constexpr u8 in_ptr_align_err = 0x5;
constexpr u8 fw_err = 0x6;
constexpr u8 in_length_err = 0x7;
constexpr u8 out_length_err = 0x8;
constexpr u8 res_fld_not_clr_err = 0x9;
constexpr u8 cmd_descr_err = 0x10;
} // namespace scx::prm::delivery_stat

namespace scx::prm {
static_assert(cmd_queue_entry::ownership.bit_off + 1 == cmd_queue_entry::size_bytes * 8);
static_assert(cmd_queue_entry::command_input_inline_data.size == cmdq::inline_bytes);
static_assert(cmd_if_box::signature.bit_off + 8 == cmd_if_box::size_bytes * 8);
static_assert(cmd_if_box::mailbox_data.size == cmdq::data_block_size);
static_assert(cmd_if_box::size_bytes <= cmdq::box_stride && is_pow2(cmdq::box_stride));
} // namespace scx::prm
