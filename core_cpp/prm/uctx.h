// SPDX-License-Identifier: GPL-2.0
// User contexts (DevX): CREATE_UCTX / DESTROY_UCTX. A uctx's uid goes into
// bytes 2-3 of every command made for that context (mbox_in::uid).
#pragma once

#include "prm/field.h"

namespace scx::prm::uctx {
constexpr field<0x00, 32> cap{};   // uctx_cap bits asked for
constexpr u32 size_bytes = 0x30;
} // namespace scx::prm::uctx

namespace scx::prm::create_uctx_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr block<0x80, 0x30> uctx{};
constexpr u32 size_bytes = 0x40;
} // namespace scx::prm::create_uctx_in

namespace scx::prm::create_uctx_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x50, 16> uid{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::create_uctx_out

namespace scx::prm::destroy_uctx_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x50, 16> uid{};   // not at bytes 2-3: the header's uid is 0
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_uctx_in

namespace scx::prm::destroy_uctx_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_uctx_out

// cmd_hca_cap.uctx_cap / uctx.cap bits (MLX5_UCTX_CAP_*).
namespace scx::prm::uctx_cap {
constexpr u32 raw_tx = 1u << 0;
constexpr u32 internal_dev_res = 1u << 1;
} // namespace scx::prm::uctx_cap

// The uid of resources every context may use (MLX5_SHARED_RESOURCE_UID):
// mlx5_ib allocates Q counters with it.
namespace scx::prm {
constexpr u16 shared_resource_uid = 0xffff;
}
