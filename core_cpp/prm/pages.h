// SPDX-License-Identifier: GPL-2.0
// Firmware pages: QUERY_PAGES asks how many 4 KiB pages the device wants for
// boot, init or regular operation; MANAGE_PAGES gives them (a list of 64-bit
// page addresses) or takes them back.
#pragma once

#include "prm/field.h"

namespace scx::prm::query_pages_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 1> embedded_cpu_function{};
constexpr field<0x50, 16> function_id{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_pages_in

namespace scx::prm::query_pages_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x40, 1> embedded_cpu_function{};
constexpr field<0x50, 16> function_id{};
constexpr field<0x60, 32> num_pages{};   // signed: negative = pages to return
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_pages_out

// query_pages_in::op_mod (MLX5_QUERY_PAGES_IN_OP_MOD_*).
namespace scx::prm::query_pages_op_mod {
constexpr u16 boot_pages = 0x1;
constexpr u16 init_pages = 0x2;
constexpr u16 regular_pages = 0x3;
} // namespace scx::prm::query_pages_op_mod

namespace scx::prm::manage_pages_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 1> embedded_cpu_function{};
constexpr field<0x50, 16> function_id{};
constexpr field<0x60, 32> input_num_entries{};
constexpr block<0x80, 8> pas{};   // pas[i]: 64-bit page address at pas + 8 * i
constexpr u32 size_bytes = 0x10;  // without pas
} // namespace scx::prm::manage_pages_in

namespace scx::prm::manage_pages_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x40, 32> output_num_entries{};
constexpr block<0x80, 8> pas{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::manage_pages_out

// manage_pages_in::op_mod (MLX5_MANAGE_PAGES_IN_OP_MOD_*).
namespace scx::prm::manage_pages_op_mod {
constexpr u16 allocation_fail = 0x0;    // the driver cannot give pages
constexpr u16 allocation_success = 0x1; // the driver gives pages
constexpr u16 hca_return_pages = 0x2;   // the driver takes pages back
} // namespace scx::prm::manage_pages_op_mod

namespace scx::prm::fw_page {
constexpr u32 shift = 12;  // MLX5_ADAPTER_PAGE_SHIFT
constexpr u32 size = 1u << shift;
} // namespace scx::prm::fw_page

namespace scx::prm {
static_assert(manage_pages_in::pas.byte_off == manage_pages_in::size_bytes);
static_assert(manage_pages_out::pas.byte_off == manage_pages_out::size_bytes);
} // namespace scx::prm
