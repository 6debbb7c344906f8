// SPDX-License-Identifier: GPL-2.0
// Event queues: the EQ context, CREATE/DESTROY/QUERY_EQ, the 64-byte EQE with
// its event-specific data, event types, and the EQ doorbell in a UAR page.
//
// Ownership: the driver fills the ring with owner = 1; the device writes the
// EQE at producer index pi with owner = (pi >> log_eq_size) & 1, so software
// owns entry ci when its owner bit equals (ci >> log_eq_size) & 1.
#pragma once

#include "prm/field.h"

namespace scx::prm::eqc {
constexpr field<0x000, 4> status{};
constexpr field<0x00d, 1> ec{};
constexpr field<0x00e, 1> oi{};
constexpr field<0x014, 4> st{};
constexpr field<0x054, 6> page_offset{};
constexpr field<0x063, 5> log_eq_size{};
constexpr field<0x068, 24> uar_page{};
constexpr field<0x0b4, 12> intr{};
constexpr field<0x0c3, 5> log_page_size{};
constexpr field<0x148, 24> consumer_counter{};
constexpr field<0x168, 24> producer_counter{};
constexpr u32 size_bytes = 64;
} // namespace scx::prm::eqc

// eqc::st (eq.c MLX5_EQ_STATE_*).
namespace scx::prm::eq_state {
constexpr u8 armed = 0x9;
constexpr u8 fired = 0xa;
constexpr u8 always_armed = 0xb;
} // namespace scx::prm::eq_state

namespace scx::prm::create_eq_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr block<0x080, 64> eq_context_entry{};
// Four 64-bit masks; event type t is bit (t % 64) of mask[t / 64].
constexpr block<0x2c0, 32> event_bitmask{};
constexpr block<0x880, 8> pas{};    // pas[i] at pas + 8 * i: page bus addresses
constexpr u32 size_bytes = 0x110;   // without pas
} // namespace scx::prm::create_eq_in

namespace scx::prm::create_eq_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x58, 8> eq_number{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::create_eq_out

namespace scx::prm::destroy_eq_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x58, 8> eq_number{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_eq_in

namespace scx::prm::destroy_eq_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_eq_out

namespace scx::prm::query_eq_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x58, 8> eq_number{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_eq_in

namespace scx::prm::query_eq_out {
constexpr field<0x000, 8> status{};
constexpr field<0x020, 32> syndrome{};
constexpr block<0x080, 64> eq_context_entry{};
constexpr field<0x2c0, 64> event_bitmask{};
constexpr block<0x880, 8> pas{};
constexpr u32 size_bytes = 0x110;
} // namespace scx::prm::query_eq_out

// The 64-byte event queue entry.
namespace scx::prm::eqe {
constexpr field<0x008, 8> event_type{};
constexpr field<0x018, 8> event_sub_type{};
constexpr block<0x100, 28> event_data{};
constexpr field<0x1f0, 8> signature{};
constexpr field<0x1ff, 1> owner{};
constexpr u32 size_bytes = 64;
constexpr u8 owner_init_val = 1;    // MLX5_EQE_OWNER_INIT_VAL
} // namespace scx::prm::eqe

// Event data layouts, relative to eqe::event_data.
namespace scx::prm::comp_event {
constexpr field<0xc8, 24> cq_number{};
} // namespace scx::prm::comp_event

namespace scx::prm::cq_error {
constexpr field<0x08, 24> cqn{};
constexpr field<0x58, 8> syndrome{};
} // namespace scx::prm::cq_error

// QP and SRQ events (COMM_EST, LAST_WQE_REACHED, WQ_CATAS_ERROR ...).
namespace scx::prm::eqe_qp_srq {
constexpr field<0xa0, 8> type{};
constexpr field<0xc0, 32> qp_srq_n{};
constexpr field<0xc8, 24> number{};  // qp_srq_n[23:0]
} // namespace scx::prm::eqe_qp_srq

// eqe_qp_srq::type (MLX5_EVENT_QUEUE_TYPE_*).
namespace scx::prm::event_queue_type {
constexpr u8 qp = 0;
} // namespace scx::prm::event_queue_type

namespace scx::prm::port_state_change_event {
constexpr field<0x40, 4> port_num{};
} // namespace scx::prm::port_state_change_event

namespace scx::prm::cmd_inter_comp_event {
constexpr field<0x00, 32> command_completion_vector{};
} // namespace scx::prm::cmd_inter_comp_event

namespace scx::prm::pages_req_event {
constexpr field<0x10, 16> function_id{};
constexpr field<0x20, 32> num_pages{};
} // namespace scx::prm::pages_req_event

// eqe::event_type (device.h MLX5_EVENT_TYPE_*).
namespace scx::prm::event_type {
constexpr u8 comp = 0x00;
constexpr u8 path_mig = 0x01;
constexpr u8 comm_est = 0x02;
constexpr u8 sq_drained = 0x03;
constexpr u8 cq_error = 0x04;
constexpr u8 wq_catas_error = 0x05;
constexpr u8 path_mig_failed = 0x07;
constexpr u8 internal_error = 0x08;
constexpr u8 port_change = 0x09;
constexpr u8 cmd = 0x0a;
constexpr u8 page_request = 0x0b;
constexpr u8 page_fault = 0x0c;
constexpr u8 nic_vport_change = 0x0d;
constexpr u8 wq_inval_req_error = 0x10;
constexpr u8 wq_access_error = 0x11;
constexpr u8 srq_catas_error = 0x12;
constexpr u8 srq_last_wqe = 0x13;
constexpr u8 srq_rq_limit = 0x14;
constexpr u8 dct_drained = 0x1c;
constexpr u8 dct_key_violation = 0x1d;
} // namespace scx::prm::event_type

// eqe::event_sub_type of a PORT_CHANGE event (MLX5_PORT_CHANGE_SUBTYPE_*).
namespace scx::prm::port_change_subtype {
constexpr u8 down = 1;
constexpr u8 active = 4;
constexpr u8 initialized = 5;
constexpr u8 lid = 6;
constexpr u8 pkey = 7;
constexpr u8 guid = 8;
constexpr u8 client_rereg = 9;
} // namespace scx::prm::port_change_subtype

// cq_error::syndrome (MLX5_CQ_ERROR_SYNDROME_*).
namespace scx::prm::cq_error_syndrome {
constexpr u8 cq_overrun = 0x1;
constexpr u8 cq_access_violation_error = 0x2;
} // namespace scx::prm::cq_error_syndrome

// The 32-bit value the driver writes to an EQ doorbell (lib/eq.h
// eq_update_ci): the EQ number and the new consumer index.
namespace scx::prm::eq_doorbell {
constexpr field<0x00, 8> eqn{};
constexpr field<0x08, 24> consumer_index{};
} // namespace scx::prm::eq_doorbell

namespace scx::prm {
static_assert(eqe::owner.bit_off + 1 == eqe::size_bytes * 8);
static_assert(eqe::event_data.byte_off + eqe::event_data.size <= eqe::signature.byte_off);
static_assert(create_eq_in::eq_context_entry.size == eqc::size_bytes);
static_assert(create_eq_in::pas.byte_off == create_eq_in::size_bytes);
static_assert(query_eq_out::pas.byte_off == query_eq_out::size_bytes);
} // namespace scx::prm
