// SPDX-License-Identifier: GPL-2.0
// The initialization segment at offset 0 of BAR0: firmware revision, where
// the command queue lives, the command doorbell, the "initializing" flag,
// health reporting and the free-running timer.
//
// Two views of the same registers: `initial_seg` is the bit-level layout of
// mlx5_ifc.h; `init_seg` names the 32-bit registers as device.h's struct
// mlx5_init_seg does (the timer and clock registers exist only there).
#pragma once

#include "prm/field.h"
#include "prm/reg.h"

namespace scx::prm::initial_seg {
constexpr field<0x000, 16> fw_rev_minor{};
constexpr field<0x010, 16> fw_rev_major{};
constexpr field<0x020, 16> cmd_interface_rev{};
constexpr field<0x030, 16> fw_rev_subminor{};
constexpr field<0x080, 32> cmdq_phy_addr_63_32{};
constexpr field<0x0a0, 20> cmdq_phy_addr_31_12{};
constexpr field<0x0b6, 2> nic_interface{};
constexpr field<0x0b8, 4> log_cmdq_size{};
constexpr field<0x0bc, 4> log_cmdq_stride{};
constexpr field<0x0c0, 32> command_doorbell_vector{};
constexpr field<0xfe0, 1> initializing{};
constexpr field<0xfe5, 3> nic_interface_supported{};
constexpr field<0xfe8, 1> embedded_cpu{};
constexpr block<0x1000, 64> health_buffer{};
constexpr field<0x1200, 32> no_dram_nic_offset{};
constexpr field<0x807f, 1> clear_int{};
constexpr field<0x8080, 8> health_syndrome{};
constexpr field<0x8088, 24> health_counter{};
} // namespace scx::prm::initial_seg

// The health buffer embedded at initial_seg::health_buffer.
namespace scx::prm::health_buffer {
constexpr field<0x100, 32> assert_existptr{};
constexpr field<0x120, 32> assert_callra{};
constexpr field<0x160, 32> time{};
constexpr field<0x180, 32> fw_version{};
constexpr field<0x1a0, 32> hw_id{};
constexpr field<0x1c0, 1> rfr{};
constexpr field<0x1c4, 1> valid{};
constexpr field<0x1c5, 3> severity{};
constexpr field<0x1e0, 8> irisc_index{};
constexpr field<0x1e8, 8> synd{};
constexpr field<0x1f0, 16> ext_synd{};
constexpr u32 size_bytes = 64;
} // namespace scx::prm::health_buffer

// Whole 32-bit registers (device.h struct mlx5_init_seg).
namespace scx::prm::init_seg {
constexpr field<0x00000, 32> fw_rev{};
constexpr field<0x00020, 32> cmdif_rev_fw_sub{};
constexpr field<0x00080, 32> cmdq_addr_h{};
constexpr field<0x000a0, 32> cmdq_addr_l_sz{};
constexpr field<0x000c0, 32> cmd_dbell{};
constexpr field<0x00fe0, 32> initializing{};
constexpr block<0x01000, 64> health{};
constexpr field<0x07fc0, 32> cmd_exec_to{};
constexpr field<0x07fe0, 32> cmd_q_init_to{};
constexpr field<0x08000, 32> internal_timer_h{};
constexpr field<0x08020, 32> internal_timer_l{};
constexpr field<0x08080, 32> health_counter{};
constexpr field<0x08200, 32> real_time_h{};
constexpr field<0x08220, 32> real_time_l{};
constexpr field<0x10000, 64> ieee1588_clk{};
constexpr field<0x10040, 32> ieee1588_clk_type{};
constexpr field<0x10060, 32> clr_intx{};
constexpr u32 size_bytes = 0x2010;
} // namespace scx::prm::init_seg

// initial_seg::nic_interface (mlx5_core.h MLX5_NIC_IFC_*).
namespace scx::prm::nic_ifc {
constexpr u8 full = 0;
constexpr u8 disabled = 1;
constexpr u8 no_dram_nic = 2;
} // namespace scx::prm::nic_ifc

namespace scx::prm {
static_assert(init_seg::clr_intx.bit_off + 32 == init_seg::size_bytes * 8);
static_assert(init_seg::health.size == health_buffer::size_bytes);
static_assert(initial_seg::health_buffer.size == health_buffer::size_bytes);
} // namespace scx::prm
