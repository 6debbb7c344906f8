// SPDX-License-Identifier: GPL-2.0
// HCA capabilities: QUERY_HCA_CAP / SET_HCA_CAP and the capability pages a
// driver reads (general device, RoCE, atomic). Each page is 4096 bytes in the
// command (hca_cap_union); its layouts below start at offset 0 of that page.
// Only the fields a driver consults are named; the rest stay reserved here.
#pragma once

#include "prm/field.h"

namespace scx::prm::cmd_hca_cap {
constexpr field<0x020, 1> hca_cap_2{};
constexpr field<0x030, 16> vhca_id{};
constexpr field<0x080, 8> log_max_srq_sz{};
constexpr field<0x088, 8> log_max_qp_sz{};
constexpr field<0x090, 1> event_cap{};
constexpr field<0x09b, 5> log_max_qp{};
constexpr field<0x0ab, 5> log_max_srq{};
constexpr field<0x0c8, 8> log_max_cq_sz{};
constexpr field<0x0db, 5> log_max_cq{};
constexpr field<0x0e0, 8> log_max_eq_sz{};
constexpr field<0x0ea, 6> log_max_mkey{};
constexpr field<0x0fc, 4> log_max_eq{};
constexpr field<0x100, 8> max_indirection{};
constexpr field<0x109, 7> log_max_mrw_sz{};
constexpr field<0x11a, 6> log_max_klm_list_size{};
constexpr field<0x12a, 6> log_max_ra_req_dc{};
constexpr field<0x13a, 6> log_max_ra_res_dc{};
constexpr field<0x14a, 6> log_max_ra_req_qp{};
constexpr field<0x15a, 6> log_max_ra_res_qp{};
constexpr field<0x170, 16> gid_table_size{};
constexpr field<0x180, 1> out_of_seq_cnt{};
constexpr field<0x181, 1> vport_counters{};
constexpr field<0x182, 1> retransmission_q_counters{};
constexpr field<0x186, 10> max_qp_cnt{};
constexpr field<0x190, 16> pkey_table_size{};
constexpr field<0x1a0, 1> vport_group_manager{};
constexpr field<0x1a7, 1> eswitch_manager{};
constexpr field<0x1ab, 5> local_ca_ack_delay{};
constexpr field<0x1b0, 1> port_module_event{};
constexpr field<0x1b6, 2> port_type{};
constexpr field<0x1b8, 8> num_ports{};
constexpr field<0x1c3, 5> log_max_msg{};
constexpr field<0x1e0, 16> stat_rate_support{};
constexpr field<0x1fc, 4> cqe_version{};
constexpr field<0x210, 2> cmdif_checksum{};
constexpr field<0x21a, 1> dct{};
constexpr field<0x21d, 1> roce{};
constexpr field<0x21e, 1> atomic{};
constexpr field<0x220, 1> cq_oi{};
constexpr field<0x221, 1> cq_resize{};
constexpr field<0x222, 1> cq_moderation{};
constexpr field<0x226, 1> cq_eq_remap{};
constexpr field<0x227, 1> pg{};
constexpr field<0x228, 1> block_lb_mc{};
constexpr field<0x23c, 1> xrc{};
constexpr field<0x23d, 1> ud{};
constexpr field<0x23e, 1> uc{};
constexpr field<0x23f, 1> rc{};
constexpr field<0x240, 1> uar_4k{};
constexpr field<0x24a, 6> uar_sz{};
constexpr field<0x258, 8> log_pg_sz{};
constexpr field<0x260, 1> bf{};
constexpr field<0x261, 1> driver_version{};
constexpr field<0x26b, 5> log_bf_reg_size{};
constexpr field<0x290, 16> max_wqe_sz_sq{};
constexpr field<0x2b0, 16> max_wqe_sz_rq{};
constexpr field<0x2e7, 25> max_qp_mcg{};
constexpr field<0x318, 8> log_max_mcg{};
constexpr field<0x323, 5> log_max_transport_domain{};
constexpr field<0x32b, 5> log_max_pd{};
constexpr field<0x33b, 5> log_max_xrcd{};
constexpr field<0x383, 5> log_max_rmp{};
constexpr field<0x3db, 5> log_max_wq_sz{};
constexpr field<0x400, 64> general_obj_types{};
constexpr field<0x463, 5> log_max_uctx{};
constexpr field<0x470, 16> max_num_eqs{};
constexpr field<0x490, 16> log_uar_page_sz{};
constexpr field<0x4c0, 32> device_frequency_mhz{};
constexpr field<0x4e0, 32> device_frequency_khz{};
constexpr field<0x6a0, 32> uctx_cap{};
constexpr field<0x520, 32> num_of_uars_per_page{};
constexpr field<0x608, 8> native_port_num{};
constexpr field<0x610, 8> num_vhca_ports{};
constexpr u32 size_bytes = 256;
} // namespace scx::prm::cmd_hca_cap

namespace scx::prm::roce_cap {
constexpr field<0x000, 1> roce_apm{};
constexpr field<0x004, 1> sw_r_roce_src_udp_port{};
constexpr field<0x01e, 2> qp_ts_format{};
constexpr field<0x08c, 4> l3_type{};
constexpr field<0x098, 8> roce_version{};
constexpr field<0x0b0, 16> r_roce_dest_udp_port{};
constexpr field<0x0c0, 16> r_roce_max_src_udp_port{};
constexpr field<0x0d0, 16> r_roce_min_src_udp_port{};
constexpr field<0x0f0, 16> roce_address_table_size{};
constexpr u32 size_bytes = 256;
} // namespace scx::prm::roce_cap

namespace scx::prm::atomic_caps {
constexpr field<0x040, 2> atomic_req_8B_endianness_mode{};
constexpr field<0x046, 1> supported_atomic_req_8B_endianness_mode_1{};
constexpr field<0x090, 16> atomic_operations{};
constexpr field<0x0b0, 16> atomic_size_qp{};
constexpr field<0x0d0, 16> atomic_size_dc{};
constexpr u32 size_bytes = 256;
} // namespace scx::prm::atomic_caps

// The capability page inside QUERY_HCA_CAP output / SET_HCA_CAP input.
namespace scx::prm::hca_cap_union {
constexpr block<0x0, 256> cmd_hca_cap{};
constexpr block<0x0, 256> atomic_caps{};
constexpr block<0x0, 256> roce_cap{};
constexpr u32 size_bytes = 4096;
} // namespace scx::prm::hca_cap_union

namespace scx::prm::query_hca_cap_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 1> other_function{};
constexpr field<0x50, 16> function_id{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_hca_cap_in

namespace scx::prm::query_hca_cap_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr block<0x80, 4096> capability{};
constexpr u32 size_bytes = 0x1010;
} // namespace scx::prm::query_hca_cap_out

namespace scx::prm::set_hca_cap_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 1> other_function{};
constexpr field<0x50, 16> function_id{};
constexpr block<0x80, 4096> capability{};
constexpr u32 size_bytes = 0x1010;
} // namespace scx::prm::set_hca_cap_in

namespace scx::prm::set_hca_cap_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::set_hca_cap_out

// The second general page (MLX5_CAP_GENERAL_2). log_reserved_qpn_granularity
// is rdma-core's (6.1's kernel keeps those bits reserved): each RESERVED_QPN
// general object holds 2^n QP numbers.
namespace scx::prm::cmd_hca_cap_2 {
constexpr field<0x93, 5> log_reserved_qpn_granularity{};
} // namespace scx::prm::cmd_hca_cap_2

// Capability pages (device.h enum mlx5_cap_type). QUERY_HCA_CAP's op_mod is
// (type << 1) | mode; SET_HCA_CAP's is type << 1 (it sets the current value).
namespace scx::prm::cap_type {
constexpr u16 general = 0x0;
constexpr u16 ethernet_offloads = 0x1;
constexpr u16 odp = 0x2;
constexpr u16 atomic = 0x3;
constexpr u16 roce = 0x4;
constexpr u16 general_2 = 0x20;
constexpr u16 count = 0x27;  // MLX5_CAP_NUM (6.1): types 0 .. count - 1 exist
} // namespace scx::prm::cap_type

namespace scx::prm::cap_mode {
constexpr u16 max = 0;  // HCA_CAP_OPMOD_GET_MAX
constexpr u16 cur = 1;  // HCA_CAP_OPMOD_GET_CUR
} // namespace scx::prm::cap_mode

namespace scx::prm {
constexpr u16 hca_cap_op_mod(u16 type, u16 mode) { return u16(type << 1 | mode); }
} // namespace scx::prm

// cmd_hca_cap::port_type.
namespace scx::prm::port_type {
constexpr u8 ib = 0x0;
constexpr u8 eth = 0x1;
} // namespace scx::prm::port_type

// cmd_hca_cap::cmdif_checksum.
namespace scx::prm::cmdif_checksum {
constexpr u8 disabled = 0x0;
constexpr u8 initial_state = 0x1;
constexpr u8 enabled = 0x3;
} // namespace scx::prm::cmdif_checksum

// atomic_caps::atomic_operations bits (driver.h MLX5_ATOMIC_OPS_*).
namespace scx::prm::atomic_ops {
constexpr u16 cmp_swap = 1u << 0;
constexpr u16 fetch_add = 1u << 1;
constexpr u16 extended_cmp_swap = 1u << 2;
constexpr u16 extended_fetch_add = 1u << 3;
} // namespace scx::prm::atomic_ops

// roce_cap::roce_version and l3_type bits (device.h).
namespace scx::prm::roce_version {
constexpr u8 v1_cap = 1u << 0;
constexpr u8 v2_cap = 1u << 2;
} // namespace scx::prm::roce_version

namespace scx::prm::roce_l3_type {
constexpr u8 ipv4_cap = 1u << 1;
constexpr u8 ipv6_cap = 1u << 2;
} // namespace scx::prm::roce_l3_type

namespace scx::prm {
static_assert(query_hca_cap_out::capability.size == hca_cap_union::size_bytes);
static_assert(query_hca_cap_out::capability.byte_off + hca_cap_union::size_bytes == query_hca_cap_out::size_bytes);
static_assert(set_hca_cap_in::capability.byte_off + hca_cap_union::size_bytes == set_hca_cap_in::size_bytes);
static_assert(cmd_hca_cap::num_vhca_ports.byte_off < cmd_hca_cap::size_bytes);
} // namespace scx::prm
