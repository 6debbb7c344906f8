// SPDX-License-Identifier: GPL-2.0
// Queue pairs: the QP context (qpc) with its address paths (ads), CREATE_QP
// with its buffer page list, the state transitions RST2INIT, INIT2INIT,
// INIT2RTR, RTR2RTS, RTS2RTS, SQERR2RTS, SQD_RTS, 2ERR and 2RST, QUERY_QP and
// DESTROY_QP, and the constants that go in them (qp.h and mlx5_ifc.h).
#pragma once

#include "prm/field.h"

// The primary/secondary address path of a QP (mlx5_ifc_ads_bits).
namespace scx::prm::ads {
constexpr field<0x000, 1> fl{};
constexpr field<0x001, 1> free_ar{};
constexpr field<0x010, 16> pkey_index{};
constexpr field<0x028, 1> grh{};
constexpr field<0x029, 7> mlid{};
constexpr field<0x030, 16> rlid{};
constexpr field<0x040, 5> ack_timeout{};
constexpr field<0x048, 8> src_addr_index{};
constexpr field<0x054, 4> stat_rate{};
constexpr field<0x058, 8> hop_limit{};
constexpr field<0x064, 8> tclass{};
constexpr field<0x06c, 20> flow_label{};
constexpr block<0x080, 16> rgid_rip{};
constexpr field<0x104, 1> f_dscp{};
constexpr field<0x105, 1> f_ecn{};
constexpr field<0x107, 1> f_eth_prio{};
constexpr field<0x108, 2> ecn{};
constexpr field<0x10a, 6> dscp{};
constexpr field<0x110, 16> udp_sport{};
constexpr field<0x120, 1> dei_cfi{};
constexpr field<0x121, 3> eth_prio{};
constexpr field<0x124, 4> sl{};
constexpr field<0x128, 8> vhca_port_num{};
constexpr field<0x130, 16> rmac_47_32{};
constexpr field<0x140, 32> rmac_31_0{};
constexpr u32 size_bytes = 0x2c;
} // namespace scx::prm::ads

// The QP context (mlx5_ifc_qpc_bits).
namespace scx::prm::qpc {
constexpr field<0x000, 4> state{};
constexpr field<0x004, 4> lag_tx_port_affinity{};
constexpr field<0x008, 8> st{};
constexpr field<0x012, 1> isolate_vl_tc{};
constexpr field<0x013, 2> pm_state{};
constexpr field<0x016, 2> req_e2e_credit_mode{};
constexpr field<0x018, 4> offload_type{};
constexpr field<0x01c, 2> end_padding_mode{};
constexpr field<0x020, 1> wq_signature{};
constexpr field<0x021, 1> block_lb_mc{};
constexpr field<0x022, 1> atomic_like_write_en{};
constexpr field<0x023, 1> latency_sensitive{};
constexpr field<0x025, 1> drain_sigerr{};
constexpr field<0x028, 24> pd{};
constexpr field<0x040, 3> mtu{};
constexpr field<0x043, 5> log_msg_max{};
constexpr field<0x049, 4> log_rq_size{};
constexpr field<0x04d, 3> log_rq_stride{};  // RQ stride = 16 << log_rq_stride bytes
constexpr field<0x050, 1> no_sq{};
constexpr field<0x051, 4> log_sq_size{};    // SQ size in 64-byte WQEBBs
constexpr field<0x058, 2> ts_format{};
constexpr field<0x05b, 1> rlky{};
constexpr field<0x05c, 4> ulp_stateless_offload_mode{};
constexpr field<0x060, 8> counter_set_id{};
constexpr field<0x068, 24> uar_page{};
constexpr field<0x088, 24> user_index{};
constexpr field<0x0a3, 5> log_page_size{};  // page = 4 KiB << log_page_size
constexpr field<0x0a8, 24> remote_qpn{};
constexpr block<0x0c0, 44> primary_address_path{};
constexpr block<0x220, 44> secondary_address_path{};
constexpr field<0x380, 4> log_ack_req_freq{};
constexpr field<0x388, 3> log_sra_max{};
constexpr field<0x38d, 3> retry_count{};
constexpr field<0x390, 3> rnr_retry{};
constexpr field<0x394, 1> fre{};
constexpr field<0x395, 3> cur_rnr_retry{};
constexpr field<0x398, 3> cur_retry_count{};
constexpr field<0x3c8, 24> next_send_psn{};
constexpr field<0x3e3, 5> log_num_dci_stream_channels{};
constexpr field<0x3e8, 24> cqn_snd{};
constexpr field<0x403, 5> log_num_dci_errored_streams{};
constexpr field<0x408, 24> deth_sqpn{};
constexpr field<0x448, 24> last_acked_psn{};
constexpr field<0x468, 24> ssn{};
constexpr field<0x488, 3> log_rra_max{};
constexpr field<0x48c, 4> atomic_mode{};
constexpr field<0x490, 1> rre{};
constexpr field<0x491, 1> rwe{};
constexpr field<0x492, 1> rae{};
constexpr field<0x494, 6> page_offset{};    // in units of page size / 64
constexpr field<0x49d, 1> cd_slave_receive{};
constexpr field<0x49e, 1> cd_slave_send{};
constexpr field<0x49f, 1> cd_master{};
constexpr field<0x4a3, 5> min_rnr_nak{};
constexpr field<0x4a8, 24> next_rcv_psn{};
constexpr field<0x4c8, 24> xrcd{};
constexpr field<0x4e8, 24> cqn_rcv{};
constexpr field<0x500, 64> dbr_addr{};
constexpr field<0x540, 32> q_key{};
constexpr field<0x565, 3> rq_type{};
constexpr field<0x568, 24> srqn_rmpn_xrqn{};
constexpr field<0x588, 24> rmsn{};
constexpr field<0x5a0, 16> hw_sq_wqebb_counter{};
constexpr field<0x5b0, 16> sw_sq_wqebb_counter{};
constexpr field<0x5c0, 32> hw_rq_counter{};
constexpr field<0x5e0, 32> sw_rq_counter{};
constexpr field<0x62f, 1> cgs{};
constexpr field<0x630, 8> cs_req{};
constexpr field<0x638, 8> cs_res{};
constexpr field<0x640, 64> dc_access_key{};
constexpr field<0x683, 1> dbr_umem_valid{};
constexpr field<0x720, 32> dbr_umem_id{}; // rdma-core's mlx5_ifc.h; 6.1's keeps it reserved
constexpr u32 size_bytes = 0xe8;
} // namespace scx::prm::qpc

namespace scx::prm::create_qp_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x040, 8> reserved_at_40{};
constexpr field<0x048, 24> input_qpn{};
constexpr field<0x060, 32> reserved_at_60{};
constexpr field<0x080, 32> opt_param_mask{};
constexpr field<0x0a0, 32> ece{};
constexpr block<0x0c0, 232> qpc{};
// Where the work queues are when wq_umem_valid (rdma-core's names).
constexpr field<0x800, 64> wq_umem_offset{};
constexpr field<0x840, 32> wq_umem_id{};
constexpr field<0x860, 1> wq_umem_valid{};
constexpr block<0x880, 8> pas{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::create_qp_in

namespace scx::prm::create_qp_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x48, 24> qpn{};
constexpr field<0x60, 32> ece{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::create_qp_out

// The transitions that carry a QP context share one layout; each is
// declared under its own name so the kernel check covers every one.

namespace scx::prm::rst2init_qp_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x040, 8> reserved_at_40{};
constexpr field<0x048, 24> qpn{};
constexpr field<0x080, 32> opt_param_mask{};
constexpr field<0x0a0, 32> ece{};
constexpr block<0x0c0, 232> qpc{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::rst2init_qp_in

namespace scx::prm::init2init_qp_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x040, 8> reserved_at_40{};
constexpr field<0x048, 24> qpn{};
constexpr field<0x080, 32> opt_param_mask{};
constexpr field<0x0a0, 32> ece{};
constexpr block<0x0c0, 232> qpc{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::init2init_qp_in

namespace scx::prm::init2rtr_qp_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x040, 8> reserved_at_40{};
constexpr field<0x048, 24> qpn{};
constexpr field<0x080, 32> opt_param_mask{};
constexpr field<0x0a0, 32> ece{};
constexpr block<0x0c0, 232> qpc{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::init2rtr_qp_in

namespace scx::prm::rtr2rts_qp_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x040, 8> reserved_at_40{};
constexpr field<0x048, 24> qpn{};
constexpr field<0x080, 32> opt_param_mask{};
constexpr field<0x0a0, 32> ece{};
constexpr block<0x0c0, 232> qpc{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::rtr2rts_qp_in

namespace scx::prm::rts2rts_qp_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x040, 8> reserved_at_40{};
constexpr field<0x048, 24> qpn{};
constexpr field<0x080, 32> opt_param_mask{};
constexpr field<0x0a0, 32> ece{};
constexpr block<0x0c0, 232> qpc{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::rts2rts_qp_in

namespace scx::prm::sqerr2rts_qp_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x040, 8> reserved_at_40{};
constexpr field<0x048, 24> qpn{};
constexpr field<0x080, 32> opt_param_mask{};
constexpr block<0x0c0, 232> qpc{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::sqerr2rts_qp_in

namespace scx::prm::sqd2rts_qp_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x040, 8> reserved_at_40{};
constexpr field<0x048, 24> qpn{};
constexpr field<0x080, 32> opt_param_mask{};
constexpr block<0x0c0, 232> qpc{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::sqd2rts_qp_in

// Outputs of the transitions with a context: the header and the ECE word
// (SQERR2RTS and SQD_RTS have no ECE; the word is reserved there).
namespace scx::prm::rst2init_qp_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x60, 32> ece{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::rst2init_qp_out

namespace scx::prm::init2init_qp_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x60, 32> ece{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::init2init_qp_out

namespace scx::prm::init2rtr_qp_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x60, 32> ece{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::init2rtr_qp_out

namespace scx::prm::rtr2rts_qp_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x60, 32> ece{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::rtr2rts_qp_out

namespace scx::prm::rts2rts_qp_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x60, 32> ece{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::rts2rts_qp_out

namespace scx::prm::sqerr2rts_qp_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::sqerr2rts_qp_out

namespace scx::prm::sqd2rts_qp_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::sqd2rts_qp_out

namespace scx::prm::qp_2err_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 8> reserved_at_40{};
constexpr field<0x48, 24> qpn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::qp_2err_in

namespace scx::prm::qp_2err_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::qp_2err_out

namespace scx::prm::qp_2rst_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 8> reserved_at_40{};
constexpr field<0x48, 24> qpn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::qp_2rst_in

namespace scx::prm::qp_2rst_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::qp_2rst_out

namespace scx::prm::query_qp_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 8> reserved_at_40{};
constexpr field<0x48, 24> qpn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_qp_in

namespace scx::prm::query_qp_out {
constexpr field<0x000, 8> status{};
constexpr field<0x020, 32> syndrome{};
constexpr field<0x080, 32> opt_param_mask{};
constexpr field<0x0a0, 32> ece{};
constexpr block<0x0c0, 232> qpc{};
constexpr block<0x880, 8> pas{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::query_qp_out

namespace scx::prm::destroy_qp_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x40, 8> reserved_at_40{};
constexpr field<0x48, 24> qpn{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_qp_in

namespace scx::prm::destroy_qp_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_qp_out

// qpc::state (mlx5_ifc.h MLX5_QPC_STATE_*).
namespace scx::prm::qpc_state {
constexpr u8 rst = 0x0;
constexpr u8 init = 0x1;
constexpr u8 rtr = 0x2;
constexpr u8 rts = 0x3;
constexpr u8 sqer = 0x4;
constexpr u8 err = 0x6;
constexpr u8 sqd = 0x7;
constexpr u8 suspended = 0x9;
} // namespace scx::prm::qpc_state

// qpc::st, the transport service (MLX5_QPC_ST_*).
namespace scx::prm::qpc_st {
constexpr u8 rc = 0x0;
constexpr u8 uc = 0x1;
constexpr u8 ud = 0x2;
constexpr u8 xrc = 0x3;
constexpr u8 dci = 0x5;
constexpr u8 qp0 = 0x7;
constexpr u8 qp1 = 0x8;
constexpr u8 raw_datagram = 0x9;
constexpr u8 reg_umr = 0xc;
} // namespace scx::prm::qpc_st

// qpc::pm_state (MLX5_QPC_PM_STATE_*).
namespace scx::prm::qpc_pm_state {
constexpr u8 armed = 0x0;
constexpr u8 rearm = 0x1;
constexpr u8 migrated = 0x3;
} // namespace scx::prm::qpc_pm_state

// qpc::mtu (MLX5_QPC_MTU_*; IB enum ib_mtu values).
namespace scx::prm::qpc_mtu {
constexpr u8 bytes_256 = 0x1;
constexpr u8 bytes_512 = 0x2;
constexpr u8 bytes_1k = 0x3;
constexpr u8 bytes_2k = 0x4;
constexpr u8 bytes_4k = 0x5;
constexpr u8 raw_ethernet_qp = 0x7;
} // namespace scx::prm::qpc_mtu

// qpc::rq_type (qp.h MLX5_NON_ZERO_RQ ...).
namespace scx::prm::qp_rq_type {
constexpr u8 non_zero = 0x0; // a receive queue of its own in the QP buffer
constexpr u8 srq = 0x1;      // receives from srqn_rmpn_xrqn
constexpr u8 crq = 0x2;
constexpr u8 zero_len = 0x3; // no receive queue
} // namespace scx::prm::qp_rq_type

// qpc::atomic_mode (MLX5_QPC_ATOMIC_MODE_*).
namespace scx::prm::qpc_atomic_mode {
constexpr u8 ib_spec = 0x1;
constexpr u8 only_8b = 0x2;
constexpr u8 up_to_8b = 0x3;
constexpr u8 up_to_16b = 0x4;
constexpr u8 up_to_256b = 0x8;
} // namespace scx::prm::qpc_atomic_mode

// qpc::cs_req / cs_res: scatter to CQE (MLX5_QPC_CS_REQ_* / _RES_*).
namespace scx::prm::qpc_cs_req {
constexpr u8 disable = 0x0;
constexpr u8 up_to_32b = 0x11;
constexpr u8 up_to_64b = 0x22;
} // namespace scx::prm::qpc_cs_req
namespace scx::prm::qpc_cs_res {
constexpr u8 disable = 0x0;
constexpr u8 up_to_32b = 0x1;
constexpr u8 up_to_64b = 0x2;
} // namespace scx::prm::qpc_cs_res

// opt_param_mask bits of the transitions (qp.h MLX5_QP_OPTPAR_*): which
// optional qpc fields a transition takes from its context.
namespace scx::prm::qp_optpar {
constexpr u32 alt_addr_path = 1u << 0;
constexpr u32 rre = 1u << 1;
constexpr u32 rae = 1u << 2;
constexpr u32 rwe = 1u << 3;
constexpr u32 pkey_index = 1u << 4;
constexpr u32 q_key = 1u << 5;
constexpr u32 rnr_timeout = 1u << 6;
constexpr u32 primary_addr_path = 1u << 7;
constexpr u32 sra_max = 1u << 8;
constexpr u32 rra_max = 1u << 9;
constexpr u32 pm_state = 1u << 10;
constexpr u32 retry_count = 1u << 12;
constexpr u32 rnr_retry = 1u << 13;
constexpr u32 ack_timeout = 1u << 14;
constexpr u32 lag_tx_aff = 1u << 15;
constexpr u32 pri_port = 1u << 16;
constexpr u32 srqn = 1u << 18;
constexpr u32 cqn_rcv = 1u << 19;
constexpr u32 dc_hs = 1u << 20;
constexpr u32 dc_key = 1u << 21;
constexpr u32 counter_set_id = 1u << 25;
} // namespace scx::prm::qp_optpar

// The QP doorbell record in host memory (qpc::dbr_addr): the receive
// counter, then the send counter in WQEBBs (qp.h MLX5_RCV_DBR/MLX5_SND_DBR).
namespace scx::prm::qp_dbrec {
constexpr field<0x00, 32> rcv_counter{};
constexpr field<0x20, 32> snd_counter{};
constexpr u32 size_bytes = 8;
} // namespace scx::prm::qp_dbrec

namespace scx::prm::qp_wq {
constexpr u32 send_wqe_bb = 64;       // MLX5_SEND_WQE_BB
constexpr u32 min_rq_stride_shift = 4; // RQ stride = 16 << qpc::log_rq_stride
} // namespace scx::prm::qp_wq

namespace scx::prm {
static_assert(create_qp_in::qpc.size == qpc::size_bytes);
static_assert(qpc::primary_address_path.size == ads::size_bytes);
static_assert(create_qp_in::pas.byte_off == create_qp_in::size_bytes);
static_assert(query_qp_out::pas.byte_off == query_qp_out::size_bytes);
static_assert(rst2init_qp_in::qpc.byte_off == create_qp_in::qpc.byte_off);
static_assert(qpc::dbr_umem_valid.bit_off < qpc::size_bytes * 8);
} // namespace scx::prm
