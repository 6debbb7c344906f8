// SPDX-License-Identifier: GPL-2.0
// HCA lifecycle commands: ENABLE/DISABLE_HCA, QUERY/SET_ISSI, INIT/
// TEARDOWN_HCA, QUERY_ADAPTER and NOP.
#pragma once

#include "prm/field.h"

namespace scx::prm::enable_hca_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 1> embedded_cpu_function{};
constexpr field<0x50, 16> function_id{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::enable_hca_in

namespace scx::prm::enable_hca_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0xc;
} // namespace scx::prm::enable_hca_out

namespace scx::prm::disable_hca_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 1> embedded_cpu_function{};
constexpr field<0x50, 16> function_id{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::disable_hca_in

namespace scx::prm::disable_hca_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0xc;
} // namespace scx::prm::disable_hca_out

namespace scx::prm::query_issi_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_issi_in

namespace scx::prm::query_issi_out {
constexpr field<0x000, 8> status{};
constexpr field<0x020, 32> syndrome{};
constexpr field<0x050, 16> current_issi{};
// Bit n of the last dword: ISSI n supported (the 76 bytes before it extend
// the bitmap to higher ISSIs and are zero).
constexpr field<0x360, 32> supported_issi_dw0{};
constexpr u32 size_bytes = 0x70;
} // namespace scx::prm::query_issi_out

namespace scx::prm::set_issi_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x50, 16> current_issi{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::set_issi_in

namespace scx::prm::set_issi_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::set_issi_out

namespace scx::prm::init_hca_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x62, 14> sw_vhca_id{};
constexpr block<0x80, 16> sw_owner_id{};
constexpr u32 size_bytes = 0x20;
} // namespace scx::prm::init_hca_in

namespace scx::prm::init_hca_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::init_hca_out

namespace scx::prm::teardown_hca_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x50, 16> profile{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::teardown_hca_in

namespace scx::prm::teardown_hca_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x7f, 1> state{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::teardown_hca_out

// teardown_hca_in::profile (MLX5_TEARDOWN_HCA_IN_PROFILE_*).
namespace scx::prm::teardown_profile {
constexpr u16 graceful_close = 0x0;
constexpr u16 force_close = 0x1;
constexpr u16 prepare_fast_teardown = 0x2;
} // namespace scx::prm::teardown_profile

namespace scx::prm::query_adapter_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_adapter_in

namespace scx::prm::query_adapter_param_block {
constexpr field<0x0c8, 24> ieee_vendor_id{};
constexpr field<0x0f0, 16> vsd_vendor_id{};
constexpr block<0x100, 208> vsd{};
constexpr block<0x780, 16> vsd_contd_psid{};
constexpr u32 size_bytes = 256;
} // namespace scx::prm::query_adapter_param_block

namespace scx::prm::query_adapter_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr block<0x80, 256> query_adapter_struct{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::query_adapter_out

namespace scx::prm::nop_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::nop_in

namespace scx::prm::nop_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::nop_out

namespace scx::prm {
static_assert(query_adapter_out::query_adapter_struct.size == query_adapter_param_block::size_bytes);
static_assert(query_adapter_param_block::vsd_contd_psid.byte_off + 16 == query_adapter_param_block::size_bytes);
static_assert(query_issi_out::supported_issi_dw0.bit_off + 32 == query_issi_out::size_bytes * 8);
} // namespace scx::prm
