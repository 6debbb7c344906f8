// SPDX-License-Identifier: GPL-2.0
// Vport queries: QUERY_VPORT_STATE (link state), QUERY_NIC_VPORT_CONTEXT
// (MTU, MAC address, GUIDs, RoCE enable) and QUERY_ESW_FUNCTIONS (the host
// functions behind an eswitch).
#pragma once

#include "prm/field.h"

namespace scx::prm::query_vport_state_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 1> other_vport{};
constexpr field<0x50, 16> vport_number{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_vport_state_in

namespace scx::prm::query_vport_state_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x78, 4> admin_state{};
constexpr field<0x7c, 4> state{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_vport_state_out

// query_vport_state_in::op_mod (MLX5_VPORT_STATE_OP_MOD_*).
namespace scx::prm::vport_state_op_mod {
constexpr u16 vnic_vport = 0x0;
constexpr u16 esw_vport = 0x1;
constexpr u16 uplink = 0x2;
} // namespace scx::prm::vport_state_op_mod

// query_vport_state_out::state (MLX5_QUERY_VPORT_STATE_OUT_STATE_*) and
// admin_state (device.h MLX5_VPORT_ADMIN_STATE_*).
namespace scx::prm::vport_state {
constexpr u8 down = 0x0;
constexpr u8 up = 0x1;
constexpr u8 admin_auto = 0x2;
} // namespace scx::prm::vport_state

namespace scx::prm::mac_address_layout {
constexpr field<0x10, 16> mac_addr_47_32{};
constexpr field<0x20, 32> mac_addr_31_0{};
constexpr u32 size_bytes = 8;
} // namespace scx::prm::mac_address_layout

namespace scx::prm::nic_vport_context {
constexpr field<0x005, 3> min_wqe_inline_mode{};
constexpr field<0x01d, 1> disable_mc_local_lb{};
constexpr field<0x01e, 1> disable_uc_local_lb{};
constexpr field<0x01f, 1> roce_en{};
constexpr field<0x020, 1> arm_change_event{};
constexpr field<0x03b, 1> event_on_mtu{};
constexpr field<0x130, 16> mtu{};
constexpr field<0x140, 64> system_image_guid{};
constexpr field<0x180, 64> port_guid{};
constexpr field<0x1c0, 64> node_guid{};
constexpr field<0x340, 16> qkey_violation_counter{};
constexpr field<0x780, 1> promisc_uc{};
constexpr field<0x781, 1> promisc_mc{};
constexpr field<0x782, 1> promisc_all{};
constexpr field<0x785, 3> allowed_list_type{};
constexpr field<0x794, 12> allowed_list_size{};
constexpr block<0x7a0, 8> permanent_address{};
constexpr u32 size_bytes = 0x100;
} // namespace scx::prm::nic_vport_context

namespace scx::prm::query_nic_vport_context_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 1> other_vport{};
constexpr field<0x50, 16> vport_number{};
constexpr field<0x65, 3> allowed_list_type{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_nic_vport_context_in

namespace scx::prm::query_nic_vport_context_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr block<0x80, 256> nic_vport_context{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::query_nic_vport_context_out

namespace scx::prm {
static_assert(query_nic_vport_context_out::nic_vport_context.size == nic_vport_context::size_bytes);
static_assert(nic_vport_context::permanent_address.size == mac_address_layout::size_bytes);
} // namespace scx::prm

// SET_ROCE_ADDRESS: one entry of the port's RoCE address (GID) table.
namespace scx::prm::roce_addr_layout {
constexpr block<0x00, 16> source_l3_address{};
constexpr field<0x83, 1> vlan_valid{};
constexpr field<0x84, 12> vlan_id{};
constexpr field<0x90, 16> source_mac_47_32{};
constexpr field<0xa0, 32> source_mac_31_0{};
constexpr field<0xd4, 4> roce_l3_type{};
constexpr field<0xd8, 8> roce_version{};
constexpr u32 size_bytes = 0x20;
} // namespace scx::prm::roce_addr_layout

namespace scx::prm::set_roce_address_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 16> roce_address_index{};
constexpr field<0x5c, 4> vhca_port_num{};
constexpr block<0x80, 0x20> roce_address{};
constexpr u32 size_bytes = 0x30;
} // namespace scx::prm::set_roce_address_in

namespace scx::prm::set_roce_address_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::set_roce_address_out

namespace scx::prm::query_esw_functions_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_esw_functions_in

namespace scx::prm::host_params_context {
constexpr field<0x00, 8> host_number{};
constexpr field<0x0d, 1> host_pf_not_exist{};
constexpr field<0x0f, 1> host_pf_disabled{};
constexpr field<0x10, 16> host_num_of_vfs{};
constexpr field<0x20, 16> host_total_vfs{};
constexpr u32 size_bytes = 0x40;
} // namespace scx::prm::host_params_context

namespace scx::prm::query_esw_functions_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr block<0x80, 0x40> host_params_context{};
// Followed by host_sf_enable[], one 64-bit word per 64 SFs: none here.
constexpr u32 size_bytes = 0x80;
} // namespace scx::prm::query_esw_functions_out
