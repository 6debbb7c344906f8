// SPDX-License-Identifier: GPL-2.0
// DC targets: the DCT context (dctc), CREATE/DESTROY/DRAIN/QUERY_DCT and
// ARM_DCT_FOR_KEY_VIOLATION (mlx5_ifc.h; qpc.c shows how mlx5_ib fills
// them), and the EQE of DCT_DRAINED / DCT_KEY_VIOLATION.
#pragma once

#include "prm/field.h"

// The DCT context (mlx5_ifc_dctc_bits).
namespace scx::prm::dctc {
constexpr field<0x004, 4> state{};
constexpr field<0x028, 24> user_index{};
constexpr field<0x048, 24> cqn{};
constexpr field<0x060, 8> counter_set_id{};
constexpr field<0x068, 4> atomic_mode{};
constexpr field<0x06c, 1> rre{};
constexpr field<0x06d, 1> rwe{};
constexpr field<0x06e, 1> rae{};
constexpr field<0x06f, 1> atomic_like_write_en{};
constexpr field<0x070, 1> latency_sensitive{};
constexpr field<0x071, 1> rlky{};
constexpr field<0x072, 1> free_ar{};
constexpr field<0x088, 8> cs_res{};
constexpr field<0x093, 5> min_rnr_nak{};
constexpr field<0x0a8, 24> srqn_xrqn{};
constexpr field<0x0c8, 24> pd{};
constexpr field<0x0e0, 8> tclass{};
constexpr field<0x0ec, 20> flow_label{};
constexpr field<0x100, 64> dc_access_key{};
constexpr field<0x145, 3> mtu{};
constexpr field<0x148, 8> port{};
constexpr field<0x150, 16> pkey_index{};
constexpr field<0x168, 8> my_addr_index{};
constexpr field<0x178, 8> hop_limit{};
constexpr field<0x180, 32> dc_access_key_violation_count{};
constexpr field<0x1b4, 1> dei_cfi{};
constexpr field<0x1b5, 3> eth_prio{};
constexpr field<0x1b8, 2> ecn{};
constexpr field<0x1ba, 6> dscp{};
constexpr field<0x1e0, 32> ece{};
constexpr u32 size_bytes = 0x40;
} // namespace scx::prm::dctc

// dctc::state (MLX5_DCTC_STATE_*).
namespace scx::prm::dctc_state {
constexpr u8 active = 0x0;
constexpr u8 draining = 0x1;
constexpr u8 drained = 0x2;
} // namespace scx::prm::dctc_state

namespace scx::prm::create_dct_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr block<0x080, 0x40> dct_context_entry{};
constexpr u32 size_bytes = 0x80;
} // namespace scx::prm::create_dct_in

namespace scx::prm::create_dct_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x48, 24> dctn{};
constexpr field<0x60, 32> ece{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::create_dct_out

// DESTROY_DCT and DRAIN_DCT share this layout.
namespace scx::prm::destroy_dct_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> dctn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_dct_in

namespace scx::prm::drain_dct_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> dctn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::drain_dct_in

namespace scx::prm::query_dct_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> dctn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_dct_in

namespace scx::prm::query_dct_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr block<0x080, 0x40> dct_context_entry{};
constexpr u32 size_bytes = 0x80;
} // namespace scx::prm::query_dct_out

namespace scx::prm::arm_dct_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> dct_number{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::arm_dct_in

// The EQE data of DCT_DRAINED and DCT_KEY_VIOLATION (struct mlx5_eqe_dct).
namespace scx::prm::eqe_dct {
constexpr field<0xc8, 24> number{}; // the DCT: the low 24 bits of the kernel's __be32 dctn
} // namespace scx::prm::eqe_dct
