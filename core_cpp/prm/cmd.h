// SPDX-License-Identifier: GPL-2.0
// The command interface: the header every command input and output starts
// with, the opcodes softcx implements, and the command status codes the
// firmware answers with (status byte + 32-bit syndrome in the output header).
// Names follow mlx5_ifc.h / device.h; layouts are bit offsets as in the PRM.
#pragma once

#include "prm/field.h"

// The common header of every command input (mlx5_ifc_mbox_in_bits).
namespace scx::prm::mbox_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x20, 16> reserved_at_20{};
constexpr field<0x30, 16> op_mod{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::mbox_in

// The common header of every command output (mlx5_ifc_mbox_out_bits).
namespace scx::prm::mbox_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::mbox_out

// Command opcodes (MLX5_CMD_OP_*), the subset softcx's firmware serves.
namespace scx::prm::op {
constexpr u16 query_hca_cap = 0x100;
constexpr u16 query_adapter = 0x101;
constexpr u16 init_hca = 0x102;
constexpr u16 teardown_hca = 0x103;
constexpr u16 enable_hca = 0x104;
constexpr u16 disable_hca = 0x105;
constexpr u16 query_pages = 0x107;
constexpr u16 manage_pages = 0x108;
constexpr u16 set_hca_cap = 0x109;
constexpr u16 query_issi = 0x10a;
constexpr u16 set_issi = 0x10b;
constexpr u16 create_mkey = 0x200;
constexpr u16 query_mkey = 0x201;
constexpr u16 destroy_mkey = 0x202;
constexpr u16 create_eq = 0x301;
constexpr u16 destroy_eq = 0x302;
constexpr u16 query_eq = 0x303;
constexpr u16 create_cq = 0x400;
constexpr u16 destroy_cq = 0x401;
constexpr u16 query_cq = 0x402;
constexpr u16 modify_cq = 0x403;
constexpr u16 create_qp = 0x500;
constexpr u16 destroy_qp = 0x501;
constexpr u16 rst2init_qp = 0x502;
constexpr u16 init2rtr_qp = 0x503;
constexpr u16 rtr2rts_qp = 0x504;
constexpr u16 rts2rts_qp = 0x505;
constexpr u16 sqerr2rts_qp = 0x506;
constexpr u16 qp_2err = 0x507;
constexpr u16 qp_2rst = 0x50a;
constexpr u16 query_qp = 0x50b;
constexpr u16 sqd_rts_qp = 0x50c;
constexpr u16 init2init_qp = 0x50e;
constexpr u16 create_psv = 0x600;
constexpr u16 create_srq = 0x700;
constexpr u16 destroy_srq = 0x701;
constexpr u16 query_srq = 0x702;
constexpr u16 arm_rq = 0x703;
constexpr u16 create_xrc_srq = 0x705;
constexpr u16 create_dct = 0x710;
constexpr u16 destroy_dct = 0x711;
constexpr u16 drain_dct = 0x712;
constexpr u16 query_dct = 0x713;
constexpr u16 arm_dct_for_key_violation = 0x714;
constexpr u16 create_xrq = 0x717;
constexpr u16 query_esw_functions = 0x740;
constexpr u16 query_vport_state = 0x750;
constexpr u16 query_nic_vport_context = 0x754;
constexpr u16 set_roce_address = 0x761;
constexpr u16 create_scheduling_element = 0x782;
constexpr u16 alloc_q_counter = 0x771;
constexpr u16 dealloc_q_counter = 0x772;
constexpr u16 query_q_counter = 0x773;
constexpr u16 alloc_pd = 0x800;
constexpr u16 dealloc_pd = 0x801;
constexpr u16 alloc_uar = 0x802;
constexpr u16 dealloc_uar = 0x803;
constexpr u16 nop = 0x80d;
constexpr u16 alloc_xrcd = 0x80e;
constexpr u16 alloc_transport_domain = 0x816;
constexpr u16 dealloc_transport_domain = 0x817;
constexpr u16 create_tir = 0x900;
constexpr u16 create_sq = 0x904;
constexpr u16 create_rq = 0x908;
constexpr u16 create_rmp = 0x90c;
constexpr u16 modify_rmp = 0x90d;
constexpr u16 destroy_rmp = 0x90e;
constexpr u16 query_rmp = 0x90f;
constexpr u16 create_tis = 0x912;
constexpr u16 create_rqt = 0x916;
constexpr u16 create_flow_table = 0x930;
constexpr u16 create_flow_group = 0x933;
constexpr u16 alloc_flow_counter = 0x939;
constexpr u16 alloc_packet_reformat_context = 0x93d;
constexpr u16 alloc_modify_header_context = 0x940;
constexpr u16 create_general_object = 0xa00;
constexpr u16 modify_general_object = 0xa01;
constexpr u16 query_general_object = 0xa02;
constexpr u16 destroy_general_object = 0xa03;
constexpr u16 create_uctx = 0xa04;
constexpr u16 destroy_uctx = 0xa06;
constexpr u16 create_umem = 0xa08;
constexpr u16 destroy_umem = 0xa0a;
} // namespace scx::prm::op

// Command status, mbox_out.status (MLX5_CMD_STAT_*).
namespace scx::prm::cmd_stat {
constexpr u8 ok = 0x0;
constexpr u8 int_err = 0x1;
constexpr u8 bad_op_err = 0x2;
constexpr u8 bad_param_err = 0x3;
constexpr u8 bad_sys_state_err = 0x4;
constexpr u8 bad_res_err = 0x5;
constexpr u8 res_busy = 0x6;
constexpr u8 lim_err = 0x8;
constexpr u8 bad_res_state_err = 0x9;
constexpr u8 ix_err = 0xa;
constexpr u8 no_res_err = 0xf;
constexpr u8 bad_qp_state_err = 0x10;
constexpr u8 bad_pkt_err = 0x30;
constexpr u8 bad_size_outs_cqes_err = 0x40;
constexpr u8 bad_inp_len_err = 0x50;
constexpr u8 bad_outp_len_err = 0x51;
} // namespace scx::prm::cmd_stat
