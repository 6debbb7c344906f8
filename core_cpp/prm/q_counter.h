// SPDX-License-Identifier: GPL-2.0
// Queue counter sets: ALLOC/DEALLOC/QUERY_Q_COUNTER.
#pragma once

#include "prm/field.h"

namespace scx::prm::alloc_q_counter_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::alloc_q_counter_in

namespace scx::prm::alloc_q_counter_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x58, 8> counter_set_id{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::alloc_q_counter_out

namespace scx::prm::dealloc_q_counter_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x58, 8> counter_set_id{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::dealloc_q_counter_in

namespace scx::prm::dealloc_q_counter_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::dealloc_q_counter_out

namespace scx::prm::query_q_counter_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0xc0, 1> clear{};
constexpr field<0xf8, 8> counter_set_id{};
constexpr u32 size_bytes = 0x20;
} // namespace scx::prm::query_q_counter_in

namespace scx::prm::query_q_counter_out {
constexpr field<0x000, 8> status{};
constexpr field<0x020, 32> syndrome{};
constexpr field<0x080, 32> rx_write_requests{};
constexpr field<0x0c0, 32> rx_read_requests{};
constexpr field<0x100, 32> rx_atomic_requests{};
constexpr field<0x180, 32> out_of_buffer{};
constexpr field<0x1c0, 32> out_of_sequence{};
constexpr field<0x200, 32> duplicate_request{};
constexpr field<0x240, 32> rnr_nak_retry_err{};
constexpr field<0x280, 32> packet_seq_err{};
constexpr field<0x2c0, 32> implied_nak_seq_err{};
constexpr field<0x300, 32> local_ack_timeout_err{};
constexpr field<0x3c0, 32> resp_local_length_error{};
constexpr field<0x3e0, 32> req_local_length_error{};
constexpr field<0x400, 32> resp_local_qp_error{};
constexpr field<0x420, 32> local_operation_error{};
constexpr field<0x440, 32> resp_local_protection{};
constexpr field<0x460, 32> req_local_protection{};
constexpr field<0x480, 32> resp_cqe_error{};
constexpr field<0x4a0, 32> req_cqe_error{};
constexpr field<0x4c0, 32> req_mw_binding{};
constexpr field<0x4e0, 32> req_bad_response{};
constexpr field<0x500, 32> req_remote_invalid_request{};
constexpr field<0x520, 32> resp_remote_invalid_request{};
constexpr field<0x540, 32> req_remote_access_errors{};
constexpr field<0x560, 32> resp_remote_access_errors{};
constexpr field<0x580, 32> req_remote_operation_errors{};
constexpr field<0x5a0, 32> req_transport_retries_exceeded{};
constexpr field<0x5c0, 32> cq_overflow{};
constexpr field<0x5e0, 32> resp_cqe_flush_error{};
constexpr field<0x600, 32> req_cqe_flush_error{};
constexpr u32 size_bytes = 0x100;
} // namespace scx::prm::query_q_counter_out

// Every counter of query_q_counter_out, in the order of its layout: the
// hca's sets and the driver's reader are both generated from this list,
// so the two cannot disagree on a name or its place.
#define SCX_Q_COUNTER_FIELDS(X)                                                     \
	X(rx_write_requests) X(rx_read_requests) X(rx_atomic_requests)              \
	X(out_of_buffer) X(out_of_sequence) X(duplicate_request)                    \
	X(rnr_nak_retry_err) X(packet_seq_err) X(implied_nak_seq_err)               \
	X(local_ack_timeout_err) X(resp_local_length_error)                         \
	X(req_local_length_error) X(resp_local_qp_error) X(local_operation_error)   \
	X(resp_local_protection) X(req_local_protection) X(resp_cqe_error)          \
	X(req_cqe_error) X(req_mw_binding) X(req_bad_response)                      \
	X(req_remote_invalid_request) X(resp_remote_invalid_request)                \
	X(req_remote_access_errors) X(resp_remote_access_errors)                    \
	X(req_remote_operation_errors) X(req_transport_retries_exceeded)            \
	X(cq_overflow) X(resp_cqe_flush_error) X(req_cqe_flush_error)
