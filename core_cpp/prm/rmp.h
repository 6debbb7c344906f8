// SPDX-License-Identifier: GPL-2.0
// Receive memory pools: the work queue context (wq), the RMP context
// (rmpc) and CREATE/MODIFY/QUERY/DESTROY_RMP (mlx5_ifc.h; what DevX users
// such as UCX put in them). An RMP is an SRQ in the same number space
// (qpc::srqn_rmpn_xrqn, dctc::srqn_xrqn) whose WQ may be cyclic. Offsets
// in bits, as mlx5_ifc.h gives them.
#pragma once

#include "prm/field.h"

// The work queue context (mlx5_ifc_wq_bits). The umem ids are where later
// mlx5_ifc.h (and UCX's copy) put them, in what 6.1 leaves reserved.
namespace scx::prm::wq {
constexpr field<0x000, 4> wq_type{};
constexpr field<0x004, 1> wq_signature{};
constexpr field<0x005, 2> end_padding_mode{};
constexpr field<0x007, 1> cd_slave{};
constexpr field<0x020, 1> hds_skip_first_sge{};
constexpr field<0x021, 3> log2_hds_buf_size{};
constexpr field<0x02b, 5> page_offset{};    // in units of page size / 64
constexpr field<0x030, 16> lwm{};
constexpr field<0x048, 24> pd{};
constexpr field<0x068, 24> uar_page{};
constexpr field<0x080, 64> dbr_addr{};      // in a umem: an offset there
constexpr field<0x0c0, 32> hw_counter{};
constexpr field<0x0e0, 32> sw_counter{};
constexpr field<0x10c, 4> log_wq_stride{};  // WQE stride = 1 << log_wq_stride bytes
constexpr field<0x113, 5> log_wq_pg_sz{};   // page = 4 KiB << log_wq_pg_sz
constexpr field<0x11b, 5> log_wq_sz{};      // 2^log_wq_sz WQEs
constexpr field<0x120, 1> dbr_umem_valid{};
constexpr field<0x121, 1> wq_umem_valid{};
constexpr field<0x123, 5> log_hairpin_num_packets{};
constexpr field<0x12b, 5> log_hairpin_data_sz{};
constexpr field<0x134, 4> log_wqe_num_of_strides{};
constexpr field<0x138, 1> two_byte_shift_en{};
constexpr field<0x13d, 3> log_wqe_stride_size{};
constexpr field<0x140, 32> dbr_umem_id{};
constexpr field<0x160, 32> wq_umem_id{};
constexpr field<0x180, 64> wq_umem_offset{};
constexpr u32 size_bytes = 0xc0; // pas[] follows
} // namespace scx::prm::wq

// wq::wq_type (MLX5_WQ_TYPE_*).
namespace scx::prm::wq_type {
constexpr u8 linked_list = 0x0;
constexpr u8 cyclic = 0x1;
constexpr u8 linked_list_striding = 0x2;
constexpr u8 cyclic_striding = 0x3;
} // namespace scx::prm::wq_type

// The RMP context (mlx5_ifc_rmpc_bits).
namespace scx::prm::rmpc {
constexpr field<0x008, 4> state{};
constexpr field<0x020, 1> basic_cyclic_rcv_wqe{}; // WQEs without the SRQ next segment
constexpr block<0x180, 0xc0> wq{};
constexpr u32 size_bytes = 0xf0; // the wq's pas[] follows
} // namespace scx::prm::rmpc

// rmpc::state (MLX5_RMPC_STATE_*).
namespace scx::prm::rmpc_state {
constexpr u8 rdy = 0x1;
constexpr u8 err = 0x3;
} // namespace scx::prm::rmpc_state

namespace scx::prm::create_rmp_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr block<0x100, 0xf0> ctx{};
constexpr u32 size_bytes = 0x110; // pas[] follows
} // namespace scx::prm::create_rmp_in

namespace scx::prm::create_rmp_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x48, 24> rmpn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::create_rmp_out

namespace scx::prm::modify_rmp_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x040, 4> rmp_state{};      // the state the RMP is in
constexpr field<0x048, 24> rmpn{};
constexpr field<0x0bf, 1> bitmask_lwm{};    // rmp_bitmask: take ctx.wq.lwm
constexpr block<0x100, 0xf0> ctx{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::modify_rmp_in

// QUERY_RMP and DESTROY_RMP name the RMP at the same place.
namespace scx::prm::destroy_rmp_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> rmpn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_rmp_in

namespace scx::prm::query_rmp_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> rmpn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_rmp_in

namespace scx::prm::query_rmp_out {
constexpr field<0x000, 8> status{};
constexpr field<0x020, 32> syndrome{};
constexpr block<0x100, 0xf0> rmp_context{};
constexpr u32 size_bytes = 0x110; // pas[] follows
} // namespace scx::prm::query_rmp_out

namespace scx::prm {
static_assert(rmpc::wq.byte_off + wq::size_bytes == rmpc::size_bytes);
static_assert(create_rmp_in::ctx.byte_off + rmpc::size_bytes == create_rmp_in::size_bytes);
static_assert(modify_rmp_in::ctx.byte_off + rmpc::size_bytes == modify_rmp_in::size_bytes);
static_assert(query_rmp_out::rmp_context.byte_off + rmpc::size_bytes == query_rmp_out::size_bytes);
} // namespace scx::prm
