// SPDX-License-Identifier: GPL-2.0
// General objects: CREATE/MODIFY/QUERY/DESTROY_GENERAL_OBJECT carry the
// object's type in the header (where other commands have op_mod) and name
// it by obj_id. softcx has one type: a range of reserved QP numbers.
#pragma once

#include "prm/field.h"

namespace scx::prm::general_obj_in_cmd_hdr {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x20, 16> vhca_tunnel_id{};
constexpr field<0x30, 16> obj_type{};
constexpr field<0x40, 32> obj_id{};
constexpr field<0x63, 5> log_obj_range{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::general_obj_in_cmd_hdr

namespace scx::prm::general_obj_out_cmd_hdr {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x40, 32> obj_id{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::general_obj_out_cmd_hdr

// general_obj_in_cmd_hdr.obj_type (MLX5_OBJ_TYPE_*, rdma-core's mlx5_ifc.h;
// 6.1's kernel never makes one).
namespace scx::prm::obj_type {
constexpr u16 reserved_qpn = 0x2c;
} // namespace scx::prm::obj_type

// The reserved-QPN object's body (all reserved): what a query returns
// after the header.
namespace scx::prm::reserved_qpn {
constexpr u32 size_bytes = 0x10;
}
