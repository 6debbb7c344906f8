// SPDX-License-Identifier: GPL-2.0
// Completion queues: the CQ context, CREATE/DESTROY/QUERY/MODIFY_CQ, the
// 64-byte CQE (device.h struct mlx5_cqe64 and mlx5_err_cqe), the doorbell
// record the driver keeps in memory and the arm doorbell in a UAR page.
#pragma once

#include "prm/field.h"

namespace scx::prm::cqc {
constexpr field<0x000, 4> status{};
constexpr field<0x006, 1> dbr_umem_valid{};
constexpr field<0x008, 3> cqe_sz{};
constexpr field<0x00b, 1> cc{};
constexpr field<0x00d, 1> scqe_break_moderation_en{};
constexpr field<0x00e, 1> oi{};
constexpr field<0x00f, 2> cq_period_mode{};
constexpr field<0x011, 1> cqe_comp_en{};
constexpr field<0x012, 2> mini_cqe_res_format{};
constexpr field<0x014, 4> st{};
constexpr field<0x020, 32> dbr_umem_id{}; // rdma-core's mlx5_ifc.h; 6.1's keeps it reserved
constexpr field<0x054, 6> page_offset{};
constexpr field<0x063, 5> log_cq_size{};
constexpr field<0x068, 24> uar_page{};
constexpr field<0x084, 12> cq_period{};
constexpr field<0x090, 16> cq_max_count{};
constexpr field<0x0a0, 32> c_eqn_or_apu_element{};
constexpr field<0x0c3, 5> log_page_size{};
constexpr field<0x108, 24> last_notified_index{};
constexpr field<0x128, 24> last_solicit_index{};
constexpr field<0x148, 24> consumer_counter{};
constexpr field<0x168, 24> producer_counter{};
constexpr field<0x1c0, 64> dbr_addr{};
constexpr u32 size_bytes = 64;
} // namespace scx::prm::cqc

// cqc::st (device.h MLX5_CQ_STATE_*); 0 means not armed.
namespace scx::prm::cq_state {
constexpr u8 armed = 0x9;
constexpr u8 fired = 0xa;
constexpr u8 always_armed = 0xb;
} // namespace scx::prm::cq_state

// cqc::cqe_sz.
namespace scx::prm::cqe_size {
constexpr u8 bytes_64 = 0;
constexpr u8 bytes_128 = 1;
} // namespace scx::prm::cqe_size

// cqc::status.
namespace scx::prm::cq_status {
constexpr u8 ok = 0x0;
constexpr u8 overflow = 0x9;
constexpr u8 write_fail = 0xa;
} // namespace scx::prm::cq_status

namespace scx::prm::create_cq_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr block<0x080, 64> cq_context{};
// Where the ring is when cq_umem_valid: rdma-core's mlx5_ifc.h names the
// two, 6.1's keeps them reserved.
constexpr field<0x280, 64> cq_umem_offset{};
constexpr field<0x2c0, 32> cq_umem_id{};
constexpr field<0x2e0, 1> cq_umem_valid{};
constexpr block<0x880, 8> pas{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::create_cq_in

namespace scx::prm::create_cq_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x48, 24> cqn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::create_cq_out

namespace scx::prm::destroy_cq_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> cqn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_cq_in

namespace scx::prm::destroy_cq_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_cq_out

namespace scx::prm::query_cq_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> cqn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_cq_in

namespace scx::prm::query_cq_out {
constexpr field<0x000, 8> status{};
constexpr field<0x020, 32> syndrome{};
constexpr block<0x080, 64> cq_context{};
constexpr block<0x880, 8> pas{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::query_cq_out

namespace scx::prm::modify_cq_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x048, 24> cqn{};
constexpr field<0x060, 32> modify_field_select_resize_field_select{};
constexpr block<0x080, 64> cq_context{};
constexpr field<0x2e0, 1> cq_umem_valid{};
constexpr block<0x880, 8> pas{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::modify_cq_in

namespace scx::prm::modify_cq_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::modify_cq_out

// modify_cq_in::op_mod.
namespace scx::prm::modify_cq_op_mod {
constexpr u16 modify_cq = 0x0;
constexpr u16 resize_cq = 0x1;
} // namespace scx::prm::modify_cq_op_mod

// modify_field_select bits for op_mod modify_cq (cq.h MLX5_CQ_MODIFY_*).
namespace scx::prm::cq_modify {
constexpr u32 period = 1u << 0;
constexpr u32 count = 1u << 1;
constexpr u32 overrun = 1u << 2;
} // namespace scx::prm::cq_modify

// resize_field_select bits for op_mod resize_cq (cq.h MLX5_MODIFY_CQ_MASK_*).
namespace scx::prm::cq_resize {
constexpr u32 log_size = 1u << 0;
constexpr u32 page_offset = 1u << 1;
constexpr u32 page_size = 1u << 2;
} // namespace scx::prm::cq_resize

// The 64-byte CQE; fields named as in device.h struct mlx5_cqe64.
namespace scx::prm::cqe64 {
constexpr field<0x080, 8> rss_hash_type{};
constexpr field<0x0a0, 16> check_sum{};
constexpr field<0x0b0, 16> slid{};
constexpr field<0x0c0, 32> flags_rqpn{};
constexpr field<0x0e8, 8> l4_l3_hdr_type{};
constexpr field<0x0f0, 16> vlan_info{};
constexpr field<0x100, 32> srqn{};         // [31:24] lro_num_seg, [23:0] srqn/user index
constexpr field<0x120, 32> immediate{};
constexpr field<0x120, 32> inval_rkey{};
constexpr field<0x160, 32> byte_cnt{};
constexpr field<0x180, 32> timestamp_h{};
constexpr field<0x1a0, 32> timestamp_l{};
constexpr field<0x1c0, 32> sop_drop_qpn{};
constexpr field<0x1e0, 16> wqe_counter{};
constexpr field<0x1f0, 8> signature{};
constexpr field<0x1f8, 8> op_own{};
// Sub-fields of the words above, for writers (not in device.h).
constexpr field<0x0c2, 2> grh_present{};   // flags_rqpn[29:28]: nonzero means a GRH
constexpr field<0x0c6, 2> l3_type{};       // flags_rqpn[25:24] (cqe_l3_type)
constexpr field<0x0c8, 24> rqpn{};         // flags_rqpn[23:0]: source QP
constexpr field<0x108, 24> user_index{};   // srqn[23:0]
constexpr field<0x1c0, 8> sop{};           // sop_drop_qpn[31:24]: requester's WQE opcode
constexpr field<0x1c8, 24> qpn{};          // sop_drop_qpn[23:0]
constexpr field<0x1f8, 4> opcode{};        // op_own[7:4]
constexpr field<0x1fc, 2> format{};        // op_own[3:2], compression
constexpr field<0x1fe, 1> se{};            // op_own[1], solicited event
constexpr field<0x1ff, 1> owner{};         // op_own[0]
constexpr u32 size_bytes = 64;
} // namespace scx::prm::cqe64

// The error CQE (device.h struct mlx5_err_cqe), same size and op_own.
namespace scx::prm::err_cqe {
constexpr field<0x100, 32> srqn{};
constexpr field<0x1c0, 8> wqe_opcode{};    // s_wqe_opcode_qpn[31:24]
constexpr field<0x1c8, 24> qpn{};          // s_wqe_opcode_qpn[23:0]
constexpr field<0x1b0, 8> vendor_err_synd{};
constexpr field<0x1b8, 8> syndrome{};
constexpr field<0x1c0, 32> s_wqe_opcode_qpn{};
constexpr field<0x1e0, 16> wqe_counter{};
constexpr field<0x1f0, 8> signature{};
constexpr field<0x1f8, 8> op_own{};
constexpr u32 size_bytes = 64;
} // namespace scx::prm::err_cqe

// cqe64::l3_type of a RoCE receive (MLX5_CQE_ROCE_L3_HEADER_TYPE_*).
namespace scx::prm::cqe_l3_type {
constexpr u8 ipv6 = 1;
constexpr u8 ipv4 = 2;
} // namespace scx::prm::cqe_l3_type

// cqe64::opcode (cq.h MLX5_CQE_*).
namespace scx::prm::cqe_opcode {
constexpr u8 req = 0;
constexpr u8 resp_wr_imm = 1;
constexpr u8 resp_send = 2;
constexpr u8 resp_send_imm = 3;
constexpr u8 resp_send_inv = 4;
constexpr u8 resize_cq = 5;
constexpr u8 sig_err = 12;
constexpr u8 req_err = 13;
constexpr u8 resp_err = 14;
constexpr u8 invalid = 15;
} // namespace scx::prm::cqe_opcode

// err_cqe::syndrome (cq.h MLX5_CQE_SYNDROME_*).
namespace scx::prm::cqe_syndrome {
constexpr u8 local_length_err = 0x01;
constexpr u8 local_qp_op_err = 0x02;
constexpr u8 local_prot_err = 0x04;
constexpr u8 wr_flush_err = 0x05;
constexpr u8 mw_bind_err = 0x06;
constexpr u8 bad_resp_err = 0x10;
constexpr u8 local_access_err = 0x11;
constexpr u8 remote_inval_req_err = 0x12;
constexpr u8 remote_access_err = 0x13;
constexpr u8 remote_op_err = 0x14;
constexpr u8 transport_retry_exc_err = 0x15;
constexpr u8 rnr_retry_exc_err = 0x16;
constexpr u8 remote_aborted_err = 0x22;
} // namespace scx::prm::cqe_syndrome

// The CQ doorbell record in host memory (cqc::dbr_addr), two big-endian
// dwords: the consumer index (set_ci_db) and the arm request (arm_db).
namespace scx::prm::cq_dbrec {
constexpr field<0x08, 24> set_ci{};
constexpr field<0x20, 1> arm_mark{};  // never set by drivers: the device's "seen" mark
constexpr field<0x22, 2> arm_sn{};
constexpr field<0x25, 3> arm_cmd{};
constexpr field<0x28, 24> arm_ci{};
constexpr u32 size_bytes = 8;
} // namespace scx::prm::cq_dbrec

// The 64-bit value written to the CQ doorbell in a UAR page: the arm dword
// of the doorbell record followed by the CQ number.
namespace scx::prm::cq_doorbell {
constexpr field<0x02, 2> arm_sn{};
constexpr field<0x05, 3> cmd{};
constexpr field<0x08, 24> ci{};
constexpr field<0x28, 24> cqn{};
} // namespace scx::prm::cq_doorbell

// cq_dbrec::arm_cmd / cq_doorbell::cmd (cq.h MLX5_CQ_DB_REQ_*).
namespace scx::prm::cq_arm_cmd {
constexpr u8 req_not = 0;      // next completion
constexpr u8 req_not_sol = 1;  // next solicited completion
} // namespace scx::prm::cq_arm_cmd

namespace scx::prm {
static_assert(cqe64::op_own.bit_off + 8 == cqe64::size_bytes * 8);
static_assert(err_cqe::op_own.bit_off == cqe64::op_own.bit_off);
static_assert(create_cq_in::cq_context.size == cqc::size_bytes);
static_assert(create_cq_in::pas.byte_off == create_cq_in::size_bytes);
static_assert(modify_cq_in::pas.byte_off == modify_cq_in::size_bytes);
static_assert(cqc::dbr_addr.bit_off + 64 == cqc::size_bytes * 8);
} // namespace scx::prm
