// SPDX-License-Identifier: GPL-2.0
// User access regions: 4 KiB pages of BAR0 (page index = UAR number) that
// carry the doorbells. ALLOC_UAR/DEALLOC_UAR hand out UAR numbers.
#pragma once

#include "prm/field.h"

namespace scx::prm::alloc_uar_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::alloc_uar_in

namespace scx::prm::alloc_uar_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x48, 24> uar{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::alloc_uar_out

namespace scx::prm::dealloc_uar_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> uar{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::dealloc_uar_in

namespace scx::prm::dealloc_uar_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::dealloc_uar_out

// Register offsets inside a UAR page.
namespace scx::prm::uar_page {
constexpr u32 size = 4096;
constexpr u32 cq_doorbell = 0x20;      // doorbell.h MLX5_CQ_DOORBELL, 64-bit write
constexpr u32 eq_doorbell_arm = 0x40;  // eq.c MLX5_EQ_DOORBEL_OFFSET: update ci + arm
constexpr u32 eq_doorbell_ci = 0x48;   // update ci only
constexpr u32 bf_offset = 0x800;       // first BlueFlame register
} // namespace scx::prm::uar_page
