// SPDX-License-Identifier: GPL-2.0
// Shared receive queues: the SRQ context (srqc), CREATE/DESTROY/QUERY_SRQ
// and ARM_RQ, which sets the limit (lwm) whose crossing raises
// SRQ_RQ_LIMIT (mlx5_ifc.h; srq_cmd.c shows how mlx5_ib fills them).
#pragma once

#include "prm/field.h"

// The SRQ context (mlx5_ifc_srqc_bits).
namespace scx::prm::srqc {
constexpr field<0x000, 4> state{};
constexpr field<0x004, 4> log_srq_size{};
constexpr field<0x020, 1> wq_signature{};
constexpr field<0x021, 1> cont_srq{};
constexpr field<0x023, 1> rlky{};
constexpr field<0x025, 3> log_rq_stride{}; // WQE stride = 16 << log_rq_stride bytes
constexpr field<0x028, 24> xrcd{};
constexpr field<0x040, 6> page_offset{};   // in units of page size / 64
constexpr field<0x048, 24> cqn{};
constexpr field<0x082, 6> log_page_size{}; // page = 4 KiB << log_page_size
constexpr field<0x0c8, 24> pd{};
constexpr field<0x0e0, 16> lwm{};
constexpr field<0x0f0, 16> wqe_cnt{};
constexpr field<0x140, 64> dbr_addr{};
constexpr u32 size_bytes = 0x40;
} // namespace scx::prm::srqc

namespace scx::prm::create_srq_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr block<0x080, 64> srq_context_entry{};
constexpr block<0x880, 8> pas{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::create_srq_in

namespace scx::prm::create_srq_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x48, 24> srqn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::create_srq_out

namespace scx::prm::destroy_srq_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 8> reserved_at_40{};
constexpr field<0x48, 24> srqn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_srq_in

namespace scx::prm::destroy_srq_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_srq_out

namespace scx::prm::query_srq_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 8> reserved_at_40{};
constexpr field<0x48, 24> srqn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_srq_in

namespace scx::prm::query_srq_out {
constexpr field<0x000, 8> status{};
constexpr field<0x020, 32> syndrome{};
constexpr block<0x080, 64> srq_context_entry{};
constexpr block<0x880, 8> pas{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::query_srq_out

namespace scx::prm::arm_rq_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 8> reserved_at_40{};
constexpr field<0x48, 24> srq_number{};
constexpr field<0x70, 16> lwm{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::arm_rq_in

namespace scx::prm::arm_rq_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::arm_rq_out

// srqc::state (MLX5_SRQC_STATE_*).
namespace scx::prm::srqc_state {
constexpr u8 good = 0x0;
constexpr u8 error = 0x1;
} // namespace scx::prm::srqc_state

// arm_rq_in::op_mod (MLX5_ARM_RQ_IN_OP_MOD_*).
namespace scx::prm::arm_rq_op_mod {
constexpr u16 srq = 0x1;
constexpr u16 xrq = 0x2;
} // namespace scx::prm::arm_rq_op_mod

// The SRQ doorbell record (srqc::dbr_addr): the producer counter, one
// big-endian dword of which the low 16 bits count (libmlx5 keeps a u16 and
// stores it widened), so it wraps after 65535 WQEs. The second dword of
// the 8-byte record is unused.
namespace scx::prm::srq_dbrec {
constexpr field<0x00, 32> counter{};
constexpr u32 size_bytes = 8;
} // namespace scx::prm::srq_dbrec

namespace scx::prm {
static_assert(create_srq_in::srq_context_entry.size == srqc::size_bytes);
static_assert(create_srq_in::pas.byte_off == create_srq_in::size_bytes);
static_assert(query_srq_out::pas.byte_off == query_srq_out::size_bytes);
} // namespace scx::prm
