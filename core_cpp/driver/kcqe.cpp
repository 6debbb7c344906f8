// SPDX-License-Identifier: GPL-2.0
// A CQE decoded for kernel verbs (mlx5_ib's handle_responder and its error
// table): which queue it completes, the status an ib_wc carries for the
// PRM syndrome, and the receive's flags, lengths and source.
#include "driver/kcq.h"

#include "prm/cq.h"

namespace scx::driver {

namespace {

namespace sy = prm::cqe_syndrome;

u8 wc_status(u8 syndrome)
{
	switch (syndrome) {
	case sy::local_length_err: return SCX_KWC_LOC_LEN_ERR;
	case sy::local_qp_op_err: return SCX_KWC_LOC_QP_OP_ERR;
	case sy::local_prot_err: return SCX_KWC_LOC_PROT_ERR;
	case sy::wr_flush_err: return SCX_KWC_WR_FLUSH_ERR;
	case sy::mw_bind_err: return SCX_KWC_MW_BIND_ERR;
	case sy::bad_resp_err: return SCX_KWC_BAD_RESP_ERR;
	case sy::local_access_err: return SCX_KWC_LOC_ACCESS_ERR;
	case sy::remote_inval_req_err: return SCX_KWC_REM_INV_REQ_ERR;
	case sy::remote_access_err: return SCX_KWC_REM_ACCESS_ERR;
	case sy::remote_op_err: return SCX_KWC_REM_OP_ERR;
	case sy::transport_retry_exc_err: return SCX_KWC_RETRY_EXC_ERR;
	case sy::rnr_retry_exc_err: return SCX_KWC_RNR_RETRY_EXC_ERR;
	case sy::remote_aborted_err: return SCX_KWC_REM_ABORT_ERR;
	default: return SCX_KWC_GENERAL_ERR;
	}
}

void decode_receive(const u8 *e, u8 opc, scx_kcqe *k)
{
	k->opcode = opc == prm::cqe_opcode::resp_wr_imm ? SCX_KWC_RECV_RDMA_WITH_IMM : SCX_KWC_RECV;
	k->byte_len = prm::get(e, prm::cqe64::byte_cnt);
	k->src_qp = prm::get(e, prm::cqe64::rqpn);
	if (opc == prm::cqe_opcode::resp_wr_imm || opc == prm::cqe_opcode::resp_send_imm) {
		k->flags |= SCX_KWC_WITH_IMM;
		copy_bytes(&k->imm_be, e + prm::cqe64::immediate.byte_off, 4);
	} else if (opc == prm::cqe_opcode::resp_send_inv) {
		k->flags |= SCX_KWC_WITH_INV;
		k->inv_rkey = prm::get(e, prm::cqe64::inval_rkey);
	}
	if (prm::get(e, prm::cqe64::grh_present)) {
		k->flags |= SCX_KWC_GRH;
		k->network = prm::get(e, prm::cqe64::l3_type) == prm::cqe_l3_type::ipv4 ? 4 : 6;
	}
	if (prm::get(e, prm::cqe64::se))
		k->flags |= SCX_KWC_SOLICITED;
}

} // namespace

void decode_cqe(const u8 *e, scx_kcqe *k)
{
	*k = {};
	const u8 opc = u8(prm::get(e, prm::cqe64::opcode));
	k->wqe_counter = u16(prm::get(e, prm::cqe64::wqe_counter));
	k->qpn = prm::get(e, prm::cqe64::qpn);
	switch (opc) {
	case prm::cqe_opcode::req:
		k->send = 1;
		k->byte_len = prm::get(e, prm::cqe64::byte_cnt);
		return;
	case prm::cqe_opcode::req_err:
	case prm::cqe_opcode::resp_err: {
		const u8 syndrome = u8(prm::get(e, prm::err_cqe::syndrome));
		k->send = opc == prm::cqe_opcode::req_err;
		k->status = wc_status(syndrome);
		k->vendor_err = u8(prm::get(e, prm::err_cqe::vendor_err_synd));
		return;
	}
	default:
		decode_receive(e, opc, k);
		return;
	}
}

} // namespace scx::driver
