// SPDX-License-Identifier: GPL-2.0
#include "hca/q_counters.h"

#include "prm/cq.h"
#include "prm/q_counter.h"

namespace scx::hca {

namespace {

namespace out = prm::query_q_counter_out;

// The PRM field of each counter.
void put(u8 *o, qc c, u32 v)
{
	switch (c) {
#define SCX_QC_PUT(name)                          \
	case qc::name:                            \
		return prm::set(o, out::name, v);
		SCX_Q_COUNTER_FIELDS(SCX_QC_PUT)
#undef SCX_QC_PUT
	case qc::count:
		break;
	}
}

// The cause an error CQE's syndrome names, on each side (qc::count: none
// beyond the CQE counter).
qc cause(bool requester, u8 syndrome)
{
	namespace sy = prm::cqe_syndrome;
	switch (syndrome) {
	case sy::local_length_err: return requester ? qc::req_local_length_error : qc::resp_local_length_error;
	case sy::local_qp_op_err: return requester ? qc::local_operation_error : qc::resp_local_qp_error;
	case sy::local_prot_err: return requester ? qc::req_local_protection : qc::resp_local_protection;
	case sy::mw_bind_err: return requester ? qc::req_mw_binding : qc::count;
	case sy::bad_resp_err: return requester ? qc::req_bad_response : qc::count;
	case sy::remote_inval_req_err:
		return requester ? qc::req_remote_invalid_request : qc::resp_remote_invalid_request;
	case sy::remote_access_err: return requester ? qc::req_remote_access_errors : qc::count;
	case sy::remote_op_err: return requester ? qc::req_remote_operation_errors : qc::count;
	case sy::transport_retry_exc_err: return requester ? qc::req_transport_retries_exceeded : qc::count;
	default: return qc::count;
	}
}

} // namespace

void q_counter_sets::reset(u32 set)
{
	if (set >= sets)
		return;
	for (auto &v : v_[set])
		v.store(0, mo::relaxed);
}

void q_counter_sets::query(u32 set, u8 *o, bool clear)
{
	if (set >= sets)
		return;
	for (u32 i = 0; i < u32(qc::count); i++) {
		u32 v = clear ? v_[set][i].exchange(0, mo::relaxed) : v_[set][i].load(mo::relaxed);
		put(o, qc(i), v);
	}
}

void count_error_cqe(q_counter_sets &s, u32 set, bool requester, u8 syndrome)
{
	if (syndrome == prm::cqe_syndrome::wr_flush_err) {
		s.add(set, requester ? qc::req_cqe_flush_error : qc::resp_cqe_flush_error);
		return;
	}
	s.add(set, requester ? qc::req_cqe_error : qc::resp_cqe_error);
	qc c = cause(requester, syndrome);
	if (c != qc::count)
		s.add(set, c);
}

} // namespace scx::hca
