// SPDX-License-Identifier: GPL-2.0
// core_cpp/prm against the kernel's own definitions: every field softcx
// declares must sit at the offset and have the width mlx5_ifc.h (or, for the
// byte-level structs, device.h/qp.h) gives it, every size must agree, and the
// opcode/status/event constants must carry the kernel's values. The table of
// kernel offsets is generated at build time by scripts/ifc_offsets.py.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "ifc_offsets.h"
#include "prm/cmd.h"
#include "prm/cmdq.h"
#include "prm/cq.h"
#include "prm/dct.h"
#include "prm/eq.h"
#include "prm/hca.h"
#include "prm/hca_cap.h"
#include "prm/init_seg.h"
#include "prm/mkey.h"
#include "prm/pages.h"
#include "prm/qp.h"
#include "prm/srq.h"
#include "prm/uar.h"
#include "prm/vport.h"

using namespace scx;

namespace {

// Layouts with no kernel struct: values the driver writes to doorbells.
const std::set<std::string> k_own_layouts = {"cq_dbrec", "cq_doorbell", "eq_doorbell", "qp_dbrec", "srq_dbrec"};

// Fields softcx adds on top of a kernel struct, as sub-fields of a kernel
// field (the kernel extracts them with shifts and masks).
const std::set<std::string> k_own_fields = {
	"cqe64.user_index", "cqe64.qpn", "cqe64.opcode", "cqe64.format", "cqe64.se", "cqe64.owner",
	"cqe64.grh_present", "cqe64.l3_type", "cqe64.rqpn", "cqe64.sop", "err_cqe.wqe_opcode", "err_cqe.qpn",
	"wqe_ctrl_seg.opmod", "wqe_ctrl_seg.wqe_index", "wqe_ctrl_seg.opcode", "wqe_ctrl_seg.qpn",
	"wqe_ctrl_seg.ds", "wqe_ctrl_seg.fence", "wqe_ctrl_seg.ce", "wqe_ctrl_seg.se",
	"wqe_inline_seg.inline_flag", "wqe_inline_seg.length", "eqe_qp_srq.number", "eqe_dct.number",
	// struct mlx5_av nests the Q_Key in a union and keeps rmac as bytes.
	"av.qkey", "av.dc_key", "av.rmac_47_16", "av.rmac_15_0", "av.extended", "av.dqpn", "av.sgid_index",
	"av.flow_label",
	// DevX users' fields that rdma-core's mlx5_ifc.h names and 6.1's keeps
	// reserved (its kernel never sets them).
	"cqc.dbr_umem_id", "create_cq_in.cq_umem_offset", "create_cq_in.cq_umem_id", "qpc.dbr_umem_id",
	"create_qp_in.wq_umem_offset", "create_qp_in.wq_umem_id", "cmd_hca_cap_2.log_reserved_qpn_granularity",
	"wq.dbr_umem_id", "wq.wq_umem_id", "wq.wq_umem_offset",
	// The one bit of modify_rmp_in's nested rmp_bitmask.
	"modify_rmp_in.bitmask_lwm",
};

const kifc::kernel_field *find_kernel(const char *layout, const char *name)
{
	for (const auto &k : kifc::kernel_fields)
		if (!std::strcmp(k.layout, layout) && !std::strcmp(k.name, name))
			return &k;
	return nullptr;
}

bool kernel_has_field_covering(const char *layout, unsigned long off, unsigned long bits)
{
	for (const auto &k : kifc::kernel_fields)
		if (!std::strcmp(k.layout, layout) && k.bit_off <= off && off + bits <= k.bit_off + k.bits)
			return true;
	return false;
}

long kernel_const(const char *name)
{
	for (const auto &c : kifc::kernel_consts)
		if (!std::strcmp(c.name, name))
			return long(c.value);
	ADD_FAILURE() << "kernel constant " << name << " not found";
	return -1;
}

} // namespace

TEST(PrmIfc, EveryLayoutHasAKernelDefinition)
{
	for (const auto &s : kifc::sources) {
		if (k_own_layouts.count(s.layout))
			EXPECT_EQ(s.kernel, nullptr) << s.layout << " now exists in the kernel: mirror it";
		else
			EXPECT_NE(s.kernel, nullptr) << "no kernel struct named like prm::" << s.layout;
	}
}

TEST(PrmIfc, EveryFieldMatchesTheKernel)
{
	unsigned checked = 0;
	for (const auto &d : kifc::declared) {
		if (k_own_layouts.count(d.layout))
			continue;
		std::string id = std::string(d.layout) + "." + d.name;
		const auto *k = find_kernel(d.layout, d.name);
		if (k_own_fields.count(id)) {
			EXPECT_EQ(k, nullptr) << id << " is now a kernel field";
			EXPECT_TRUE(kernel_has_field_covering(d.layout, d.bit_off, d.bits))
				<< id << " must lie inside one kernel field";
			continue;
		}
		if (!k) {
			ADD_FAILURE() << id << ": no such field in the kernel's " << d.layout;
			continue;
		}
		EXPECT_EQ(d.bit_off, k->bit_off) << id << " bit offset";
		EXPECT_EQ(d.bits, k->bits) << id << " bit width";
		checked++;
	}
	EXPECT_GT(checked, 400u);
}

TEST(PrmIfc, SizesMatchTheKernel)
{
	for (const auto &s : kifc::sources) {
		if (!s.kernel || !s.declared_bits)
			continue;
		EXPECT_EQ(s.declared_bits, s.kernel_bits) << "prm::" << s.layout << "::size_bytes";
	}
}

TEST(PrmIfc, DeviceHeaderStructsAgreeWithIfc)
{
	// The byte-level device.h view of the init segment and the bit-level
	// ifc view must name the same registers.
	EXPECT_EQ(prm::reg_offset(prm::init_seg::cmdq_addr_l_sz), prm::reg_offset(prm::initial_seg::log_cmdq_size));
	EXPECT_EQ(prm::reg_offset(prm::init_seg::cmd_dbell), prm::reg_offset(prm::initial_seg::command_doorbell_vector));
	EXPECT_EQ(prm::reg_offset(prm::init_seg::initializing), prm::reg_offset(prm::initial_seg::initializing));
	EXPECT_EQ(prm::reg_offset(prm::init_seg::health_counter), prm::reg_offset(prm::initial_seg::health_counter));
	EXPECT_EQ(prm::init_seg::health.byte_off, prm::initial_seg::health_buffer.byte_off);
	EXPECT_EQ(prm::reg_offset(prm::init_seg::internal_timer_h), 0x1000u);
	// device.h places nic_interface at bit 8 of cmdq_addr_l_sz.
	EXPECT_EQ(long(prm::dword_shift(prm::initial_seg::nic_interface)), kernel_const("MLX5_NIC_IFC_OFFSET"));
	EXPECT_EQ(prm::cmd_if_box::ctrl_sig_first, prm::cmd_if_box::mailbox_data.size);
	EXPECT_EQ(prm::cmd_if_box::ctrl_sig_first + prm::cmd_if_box::ctrl_sig_len,
		  prm::cmd_if_box::ctrl_signature.byte_off);
	EXPECT_EQ(prm::cmdq::box_stride, 1024u);
	EXPECT_GE(prm::cmdq::box_stride, prm::cmd_if_box::size_bytes);
}

struct named_value {
	const char *kernel;
	long value;
};

TEST(PrmIfc, ConstantsMatchTheKernel)
{
	const named_value values[] = {
		{"MLX5_CMD_OP_QUERY_HCA_CAP", prm::op::query_hca_cap},
		{"MLX5_CMD_OP_QUERY_ADAPTER", prm::op::query_adapter},
		{"MLX5_CMD_OP_INIT_HCA", prm::op::init_hca},
		{"MLX5_CMD_OP_TEARDOWN_HCA", prm::op::teardown_hca},
		{"MLX5_CMD_OP_ENABLE_HCA", prm::op::enable_hca},
		{"MLX5_CMD_OP_DISABLE_HCA", prm::op::disable_hca},
		{"MLX5_CMD_OP_QUERY_PAGES", prm::op::query_pages},
		{"MLX5_CMD_OP_MANAGE_PAGES", prm::op::manage_pages},
		{"MLX5_CMD_OP_SET_HCA_CAP", prm::op::set_hca_cap},
		{"MLX5_CMD_OP_QUERY_ISSI", prm::op::query_issi},
		{"MLX5_CMD_OP_SET_ISSI", prm::op::set_issi},
		{"MLX5_CMD_OP_CREATE_MKEY", prm::op::create_mkey},
		{"MLX5_CMD_OP_QUERY_MKEY", prm::op::query_mkey},
		{"MLX5_CMD_OP_DESTROY_MKEY", prm::op::destroy_mkey},
		{"MLX5_CMD_OP_CREATE_EQ", prm::op::create_eq},
		{"MLX5_CMD_OP_DESTROY_EQ", prm::op::destroy_eq},
		{"MLX5_CMD_OP_QUERY_EQ", prm::op::query_eq},
		{"MLX5_CMD_OP_CREATE_CQ", prm::op::create_cq},
		{"MLX5_CMD_OP_DESTROY_CQ", prm::op::destroy_cq},
		{"MLX5_CMD_OP_QUERY_CQ", prm::op::query_cq},
		{"MLX5_CMD_OP_MODIFY_CQ", prm::op::modify_cq},
		{"MLX5_CMD_OP_QUERY_VPORT_STATE", prm::op::query_vport_state},
		{"MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT", prm::op::query_nic_vport_context},
		{"MLX5_CMD_OP_ALLOC_Q_COUNTER", prm::op::alloc_q_counter},
		{"MLX5_CMD_OP_DEALLOC_Q_COUNTER", prm::op::dealloc_q_counter},
		{"MLX5_CMD_OP_QUERY_Q_COUNTER", prm::op::query_q_counter},
		{"MLX5_CMD_OP_ALLOC_PD", prm::op::alloc_pd},
		{"MLX5_CMD_OP_DEALLOC_PD", prm::op::dealloc_pd},
		{"MLX5_CMD_OP_ALLOC_UAR", prm::op::alloc_uar},
		{"MLX5_CMD_OP_DEALLOC_UAR", prm::op::dealloc_uar},
		{"MLX5_CMD_OP_NOP", prm::op::nop},
		{"MLX5_CMD_OP_CREATE_QP", prm::op::create_qp},
		{"MLX5_CMD_OP_DESTROY_QP", prm::op::destroy_qp},
		{"MLX5_CMD_OP_RST2INIT_QP", prm::op::rst2init_qp},
		{"MLX5_CMD_OP_INIT2RTR_QP", prm::op::init2rtr_qp},
		{"MLX5_CMD_OP_RTR2RTS_QP", prm::op::rtr2rts_qp},
		{"MLX5_CMD_OP_RTS2RTS_QP", prm::op::rts2rts_qp},
		{"MLX5_CMD_OP_SQERR2RTS_QP", prm::op::sqerr2rts_qp},
		{"MLX5_CMD_OP_2ERR_QP", prm::op::qp_2err},
		{"MLX5_CMD_OP_2RST_QP", prm::op::qp_2rst},
		{"MLX5_CMD_OP_QUERY_QP", prm::op::query_qp},
		{"MLX5_CMD_OP_SQD_RTS_QP", prm::op::sqd_rts_qp},
		{"MLX5_CMD_OP_INIT2INIT_QP", prm::op::init2init_qp},
		{"MLX5_CMD_OP_CREATE_SRQ", prm::op::create_srq},
		{"MLX5_CMD_OP_DESTROY_SRQ", prm::op::destroy_srq},
		{"MLX5_CMD_OP_QUERY_SRQ", prm::op::query_srq},
		{"MLX5_CMD_OP_ARM_RQ", prm::op::arm_rq},
		// DEVX_OBJ creates softcx lacks (devx_obj.cpp: EOPNOTSUPP).
		{"MLX5_CMD_OP_CREATE_PSV", prm::op::create_psv},
		{"MLX5_CMD_OP_CREATE_XRC_SRQ", prm::op::create_xrc_srq},
		{"MLX5_CMD_OP_CREATE_DCT", prm::op::create_dct},
		{"MLX5_CMD_OP_DESTROY_DCT", prm::op::destroy_dct},
		{"MLX5_CMD_OP_DRAIN_DCT", prm::op::drain_dct},
		{"MLX5_CMD_OP_QUERY_DCT", prm::op::query_dct},
		{"MLX5_CMD_OP_ARM_DCT_FOR_KEY_VIOLATION", prm::op::arm_dct_for_key_violation},
		{"MLX5_CMD_OP_CREATE_XRQ", prm::op::create_xrq},
		{"MLX5_CMD_OP_CREATE_SCHEDULING_ELEMENT", prm::op::create_scheduling_element},
		{"MLX5_CMD_OP_ALLOC_XRCD", prm::op::alloc_xrcd},
		{"MLX5_CMD_OP_CREATE_TIR", prm::op::create_tir},
		{"MLX5_CMD_OP_CREATE_SQ", prm::op::create_sq},
		{"MLX5_CMD_OP_CREATE_RQ", prm::op::create_rq},
		{"MLX5_CMD_OP_CREATE_RMP", prm::op::create_rmp},
		{"MLX5_CMD_OP_CREATE_TIS", prm::op::create_tis},
		{"MLX5_CMD_OP_CREATE_RQT", prm::op::create_rqt},
		{"MLX5_CMD_OP_CREATE_FLOW_TABLE", prm::op::create_flow_table},
		{"MLX5_CMD_OP_CREATE_FLOW_GROUP", prm::op::create_flow_group},
		{"MLX5_CMD_OP_ALLOC_FLOW_COUNTER", prm::op::alloc_flow_counter},
		{"MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT", prm::op::alloc_packet_reformat_context},
		{"MLX5_CMD_OP_ALLOC_MODIFY_HEADER_CONTEXT", prm::op::alloc_modify_header_context},
		{"MLX5_CMD_OP_CREATE_GENERAL_OBJECT", prm::op::create_general_object},
		{"MLX5_CMD_OP_MODIFY_GENERAL_OBJECT", prm::op::modify_general_object},
		{"MLX5_CMD_OP_QUERY_GENERAL_OBJECT", prm::op::query_general_object},
		{"MLX5_CMD_OP_DESTROY_GENERAL_OBJECT", prm::op::destroy_general_object},

		{"MLX5_CMD_STAT_OK", prm::cmd_stat::ok},
		{"MLX5_CMD_STAT_INT_ERR", prm::cmd_stat::int_err},
		{"MLX5_CMD_STAT_BAD_OP_ERR", prm::cmd_stat::bad_op_err},
		{"MLX5_CMD_STAT_BAD_PARAM_ERR", prm::cmd_stat::bad_param_err},
		{"MLX5_CMD_STAT_BAD_SYS_STATE_ERR", prm::cmd_stat::bad_sys_state_err},
		{"MLX5_CMD_STAT_BAD_RES_ERR", prm::cmd_stat::bad_res_err},
		{"MLX5_CMD_STAT_RES_BUSY", prm::cmd_stat::res_busy},
		{"MLX5_CMD_STAT_LIM_ERR", prm::cmd_stat::lim_err},
		{"MLX5_CMD_STAT_BAD_RES_STATE_ERR", prm::cmd_stat::bad_res_state_err},
		{"MLX5_CMD_STAT_IX_ERR", prm::cmd_stat::ix_err},
		{"MLX5_CMD_STAT_NO_RES_ERR", prm::cmd_stat::no_res_err},
		{"MLX5_CMD_STAT_BAD_QP_STATE_ERR", prm::cmd_stat::bad_qp_state_err},
		{"MLX5_CMD_STAT_BAD_PKT_ERR", prm::cmd_stat::bad_pkt_err},
		{"MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR", prm::cmd_stat::bad_size_outs_cqes_err},
		{"MLX5_CMD_STAT_BAD_INP_LEN_ERR", prm::cmd_stat::bad_inp_len_err},
		{"MLX5_CMD_STAT_BAD_OUTP_LEN_ERR", prm::cmd_stat::bad_outp_len_err},

		{"MLX5_CMD_DELIVERY_STAT_OK", prm::delivery_stat::ok},
		{"MLX5_CMD_DELIVERY_STAT_SIGNAT_ERR", prm::delivery_stat::signat_err},
		{"MLX5_CMD_DELIVERY_STAT_TOK_ERR", prm::delivery_stat::tok_err},
		{"MLX5_CMD_DELIVERY_STAT_BAD_BLK_NUM_ERR", prm::delivery_stat::bad_blk_num_err},
		{"MLX5_CMD_DELIVERY_STAT_OUT_PTR_ALIGN_ERR", prm::delivery_stat::out_ptr_align_err},
		{"MLX5_CMD_DELIVERY_STAT_IN_PTR_ALIGN_ERR", prm::delivery_stat::in_ptr_align_err},
		{"MLX5_CMD_DELIVERY_STAT_FW_ERR", prm::delivery_stat::fw_err},
		{"MLX5_CMD_DELIVERY_STAT_IN_LENGTH_ERR", prm::delivery_stat::in_length_err},
		{"MLX5_CMD_DELIVERY_STAT_OUT_LENGTH_ERR", prm::delivery_stat::out_length_err},
		{"MLX5_CMD_DELIVERY_STAT_RES_FLD_NOT_CLR_ERR", prm::delivery_stat::res_fld_not_clr_err},
		{"MLX5_CMD_DELIVERY_STAT_CMD_DESCR_ERR", prm::delivery_stat::cmd_descr_err},
		{"MLX5_MAX_COMMANDS", prm::cmdq::max_commands},
		{"MLX5_CMD_DATA_BLOCK_SIZE", prm::cmdq::data_block_size},
		{"MLX5_PCI_CMD_XPORT", prm::cmdq::type_pcie},
		{"CMD_IF_REV", prm::cmdq::cmd_if_rev},
		{"CMD_OWNER_SW", prm::cmdq::owner_sw},
		{"CMD_OWNER_HW", prm::cmdq::owner_hw},

		{"MLX5_EVENT_TYPE_COMP", prm::event_type::comp},
		{"MLX5_EVENT_TYPE_PATH_MIG", prm::event_type::path_mig},
		{"MLX5_EVENT_TYPE_COMM_EST", prm::event_type::comm_est},
		{"MLX5_EVENT_TYPE_SQ_DRAINED", prm::event_type::sq_drained},
		{"MLX5_EVENT_TYPE_CQ_ERROR", prm::event_type::cq_error},
		{"MLX5_EVENT_TYPE_WQ_CATAS_ERROR", prm::event_type::wq_catas_error},
		{"MLX5_EVENT_TYPE_PATH_MIG_FAILED", prm::event_type::path_mig_failed},
		{"MLX5_EVENT_TYPE_INTERNAL_ERROR", prm::event_type::internal_error},
		{"MLX5_EVENT_TYPE_PORT_CHANGE", prm::event_type::port_change},
		{"MLX5_EVENT_TYPE_CMD", prm::event_type::cmd},
		{"MLX5_EVENT_TYPE_PAGE_REQUEST", prm::event_type::page_request},
		{"MLX5_EVENT_TYPE_PAGE_FAULT", prm::event_type::page_fault},
		{"MLX5_EVENT_TYPE_NIC_VPORT_CHANGE", prm::event_type::nic_vport_change},
		{"MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR", prm::event_type::wq_inval_req_error},
		{"MLX5_EVENT_TYPE_WQ_ACCESS_ERROR", prm::event_type::wq_access_error},
		{"MLX5_EVENT_TYPE_SRQ_CATAS_ERROR", prm::event_type::srq_catas_error},
		{"MLX5_EVENT_TYPE_SRQ_LAST_WQE", prm::event_type::srq_last_wqe},
		{"MLX5_EVENT_TYPE_SRQ_RQ_LIMIT", prm::event_type::srq_rq_limit},
		{"MLX5_EVENT_TYPE_DCT_DRAINED", prm::event_type::dct_drained},
		{"MLX5_EVENT_TYPE_DCT_KEY_VIOLATION", prm::event_type::dct_key_violation},
		{"MLX5_DCTC_STATE_ACTIVE", prm::dctc_state::active},
		{"MLX5_DCTC_STATE_DRAINING", prm::dctc_state::draining},
		{"MLX5_DCTC_STATE_DRAINED", prm::dctc_state::drained},
		{"MLX5_PORT_CHANGE_SUBTYPE_DOWN", prm::port_change_subtype::down},
		{"MLX5_PORT_CHANGE_SUBTYPE_ACTIVE", prm::port_change_subtype::active},
		{"MLX5_PORT_CHANGE_SUBTYPE_INITIALIZED", prm::port_change_subtype::initialized},
		{"MLX5_PORT_CHANGE_SUBTYPE_LID", prm::port_change_subtype::lid},
		{"MLX5_PORT_CHANGE_SUBTYPE_PKEY", prm::port_change_subtype::pkey},
		{"MLX5_PORT_CHANGE_SUBTYPE_GUID", prm::port_change_subtype::guid},
		{"MLX5_PORT_CHANGE_SUBTYPE_CLIENT_REREG", prm::port_change_subtype::client_rereg},
		{"MLX5_CQ_ERROR_SYNDROME_CQ_OVERRUN", prm::cq_error_syndrome::cq_overrun},
		{"MLX5_CQ_ERROR_SYNDROME_CQ_ACCESS_VIOLATION_ERROR", prm::cq_error_syndrome::cq_access_violation_error},
		{"MLX5_EQ_STATE_ARMED", prm::eq_state::armed},
		{"MLX5_EQ_STATE_FIRED", prm::eq_state::fired},
		{"MLX5_EQ_STATE_ALWAYS_ARMED", prm::eq_state::always_armed},
		{"MLX5_EQE_OWNER_INIT_VAL", prm::eqe::owner_init_val},
		{"MLX5_EQ_DOORBEL_OFFSET", prm::uar_page::eq_doorbell_arm},
		{"MLX5_CQ_DOORBELL", prm::uar_page::cq_doorbell},

		{"MLX5_CQ_STATE_ARMED", prm::cq_state::armed},
		{"MLX5_CQ_STATE_FIRED", prm::cq_state::fired},
		{"MLX5_CQ_STATE_ALWAYS_ARMED", prm::cq_state::always_armed},
		{"MLX5_CQC_STATUS_OK", prm::cq_status::ok},
		{"MLX5_CQC_STATUS_CQ_OVERFLOW", prm::cq_status::overflow},
		{"MLX5_CQC_STATUS_CQ_WRITE_FAIL", prm::cq_status::write_fail},
		{"MLX5_CQE_REQ", prm::cqe_opcode::req},
		{"MLX5_CQE_RESP_WR_IMM", prm::cqe_opcode::resp_wr_imm},
		{"MLX5_CQE_RESP_SEND", prm::cqe_opcode::resp_send},
		{"MLX5_CQE_RESP_SEND_IMM", prm::cqe_opcode::resp_send_imm},
		{"MLX5_CQE_RESP_SEND_INV", prm::cqe_opcode::resp_send_inv},
		{"MLX5_CQE_RESIZE_CQ", prm::cqe_opcode::resize_cq},
		{"MLX5_CQE_SIG_ERR", prm::cqe_opcode::sig_err},
		{"MLX5_CQE_REQ_ERR", prm::cqe_opcode::req_err},
		{"MLX5_CQE_RESP_ERR", prm::cqe_opcode::resp_err},
		{"MLX5_CQE_INVALID", prm::cqe_opcode::invalid},
		{"MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR", prm::cqe_syndrome::local_length_err},
		{"MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR", prm::cqe_syndrome::local_qp_op_err},
		{"MLX5_CQE_SYNDROME_LOCAL_PROT_ERR", prm::cqe_syndrome::local_prot_err},
		{"MLX5_CQE_SYNDROME_WR_FLUSH_ERR", prm::cqe_syndrome::wr_flush_err},
		{"MLX5_CQE_SYNDROME_MW_BIND_ERR", prm::cqe_syndrome::mw_bind_err},
		{"MLX5_CQE_SYNDROME_BAD_RESP_ERR", prm::cqe_syndrome::bad_resp_err},
		{"MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR", prm::cqe_syndrome::local_access_err},
		{"MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR", prm::cqe_syndrome::remote_inval_req_err},
		{"MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR", prm::cqe_syndrome::remote_access_err},
		{"MLX5_CQE_SYNDROME_REMOTE_OP_ERR", prm::cqe_syndrome::remote_op_err},
		{"MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR", prm::cqe_syndrome::transport_retry_exc_err},
		{"MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR", prm::cqe_syndrome::rnr_retry_exc_err},
		{"MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR", prm::cqe_syndrome::remote_aborted_err},
		{"MLX5_CQ_DB_REQ_NOT_SOL", long(prm::cq_arm_cmd::req_not_sol) << prm::dword_shift(prm::cq_doorbell::cmd)},
		{"MLX5_CQ_DB_REQ_NOT", long(prm::cq_arm_cmd::req_not) << prm::dword_shift(prm::cq_doorbell::cmd)},
		{"MLX5_MODIFY_CQ_IN_OP_MOD_MODIFY_CQ", prm::modify_cq_op_mod::modify_cq},
		{"MLX5_MODIFY_CQ_IN_OP_MOD_RESIZE_CQ", prm::modify_cq_op_mod::resize_cq},
		{"MLX5_CQ_MODIFY_PERIOD", prm::cq_modify::period},
		{"MLX5_CQ_MODIFY_COUNT", prm::cq_modify::count},
		{"MLX5_CQ_MODIFY_OVERRUN", prm::cq_modify::overrun},

		{"MLX5_CAP_GENERAL", prm::cap_type::general},
		{"MLX5_CAP_ETHERNET_OFFLOADS", prm::cap_type::ethernet_offloads},
		{"MLX5_CAP_ODP", prm::cap_type::odp},
		{"MLX5_CAP_ATOMIC", prm::cap_type::atomic},
		{"MLX5_CAP_ROCE", prm::cap_type::roce},
		{"MLX5_CAP_GENERAL_2", prm::cap_type::general_2},
		{"HCA_CAP_OPMOD_GET_MAX", prm::cap_mode::max},
		{"HCA_CAP_OPMOD_GET_CUR", prm::cap_mode::cur},
		{"MLX5_CAP_PORT_TYPE_IB", prm::port_type::ib},
		{"MLX5_CAP_PORT_TYPE_ETH", prm::port_type::eth},
		{"MLX5_CMD_HCA_CAP_CMDIF_CHECKSUM_DISABLED", prm::cmdif_checksum::disabled},
		{"MLX5_CMD_HCA_CAP_CMDIF_CHECKSUM_INITIAL_STATE", prm::cmdif_checksum::initial_state},
		{"MLX5_CMD_HCA_CAP_CMDIF_CHECKSUM_ENABLED", prm::cmdif_checksum::enabled},
		{"MLX5_ATOMIC_OPS_CMP_SWAP", prm::atomic_ops::cmp_swap},
		{"MLX5_ATOMIC_OPS_FETCH_ADD", prm::atomic_ops::fetch_add},
		{"MLX5_ATOMIC_OPS_EXTENDED_CMP_SWAP", prm::atomic_ops::extended_cmp_swap},
		{"MLX5_ATOMIC_OPS_EXTENDED_FETCH_ADD", prm::atomic_ops::extended_fetch_add},
		{"MLX5_ROCE_VERSION_1_CAP", prm::roce_version::v1_cap},
		{"MLX5_ROCE_VERSION_2_CAP", prm::roce_version::v2_cap},
		{"MLX5_ROCE_L3_TYPE_IPV4_CAP", prm::roce_l3_type::ipv4_cap},
		{"MLX5_ROCE_L3_TYPE_IPV6_CAP", prm::roce_l3_type::ipv6_cap},

		{"MLX5_QUERY_PAGES_IN_OP_MOD_BOOT_PAGES", prm::query_pages_op_mod::boot_pages},
		{"MLX5_QUERY_PAGES_IN_OP_MOD_INIT_PAGES", prm::query_pages_op_mod::init_pages},
		{"MLX5_QUERY_PAGES_IN_OP_MOD_REGULAR_PAGES", prm::query_pages_op_mod::regular_pages},
		{"MLX5_MANAGE_PAGES_IN_OP_MOD_ALLOCATION_FAIL", prm::manage_pages_op_mod::allocation_fail},
		{"MLX5_MANAGE_PAGES_IN_OP_MOD_ALLOCATION_SUCCESS", prm::manage_pages_op_mod::allocation_success},
		{"MLX5_MANAGE_PAGES_IN_OP_MOD_HCA_RETURN_PAGES", prm::manage_pages_op_mod::hca_return_pages},
		{"MLX5_ADAPTER_PAGE_SHIFT", prm::fw_page::shift},
		{"MLX5_INVALID_LKEY", prm::lkey::invalid},
		{"MLX5_MKC_ACCESS_MODE_PA", prm::mkc_access_mode::pa},
		{"MLX5_MKC_ACCESS_MODE_MTT", prm::mkc_access_mode::mtt},
		{"MLX5_MKC_ACCESS_MODE_KLMS", prm::mkc_access_mode::klms},
		{"MLX5_MKC_ACCESS_MODE_KSM", prm::mkc_access_mode::ksm},
		{"MLX5_TEARDOWN_HCA_IN_PROFILE_GRACEFUL_CLOSE", prm::teardown_profile::graceful_close},
		{"MLX5_TEARDOWN_HCA_IN_PROFILE_FORCE_CLOSE", prm::teardown_profile::force_close},
		{"MLX5_TEARDOWN_HCA_IN_PROFILE_PREPARE_FAST_TEARDOWN", prm::teardown_profile::prepare_fast_teardown},
		{"MLX5_VPORT_STATE_OP_MOD_VNIC_VPORT", prm::vport_state_op_mod::vnic_vport},
		{"MLX5_VPORT_STATE_OP_MOD_ESW_VPORT", prm::vport_state_op_mod::esw_vport},
		{"MLX5_VPORT_STATE_OP_MOD_UPLINK", prm::vport_state_op_mod::uplink},
		{"MLX5_QUERY_VPORT_STATE_OUT_STATE_DOWN", prm::vport_state::down},
		{"MLX5_QUERY_VPORT_STATE_OUT_STATE_UP", prm::vport_state::up},
		{"MLX5_NIC_IFC_FULL", prm::nic_ifc::full},
		{"MLX5_NIC_IFC_DISABLED", prm::nic_ifc::disabled},
		{"MLX5_NIC_IFC_NO_DRAM_NIC", prm::nic_ifc::no_dram_nic},

		{"MLX5_QPC_STATE_RST", prm::qpc_state::rst},
		{"MLX5_QPC_STATE_INIT", prm::qpc_state::init},
		{"MLX5_QPC_STATE_RTR", prm::qpc_state::rtr},
		{"MLX5_QPC_STATE_RTS", prm::qpc_state::rts},
		{"MLX5_QPC_STATE_SQER", prm::qpc_state::sqer},
		{"MLX5_QPC_STATE_ERR", prm::qpc_state::err},
		{"MLX5_QPC_STATE_SQD", prm::qpc_state::sqd},
		{"MLX5_QPC_STATE_SUSPENDED", prm::qpc_state::suspended},
		{"MLX5_QPC_ST_RC", prm::qpc_st::rc},
		{"MLX5_QPC_ST_UC", prm::qpc_st::uc},
		{"MLX5_QPC_ST_UD", prm::qpc_st::ud},
		{"MLX5_QPC_ST_XRC", prm::qpc_st::xrc},
		{"MLX5_QPC_ST_DCI", prm::qpc_st::dci},
		{"MLX5_QPC_ST_QP0", prm::qpc_st::qp0},
		{"MLX5_QPC_ST_QP1", prm::qpc_st::qp1},
		{"MLX5_QPC_ST_RAW_DATAGRAM", prm::qpc_st::raw_datagram},
		{"MLX5_QPC_ST_REG_UMR", prm::qpc_st::reg_umr},
		{"MLX5_QPC_PM_STATE_ARMED", prm::qpc_pm_state::armed},
		{"MLX5_QPC_PM_STATE_REARM", prm::qpc_pm_state::rearm},
		{"MLX5_QPC_PM_STATE_MIGRATED", prm::qpc_pm_state::migrated},
		{"MLX5_QPC_MTU_256_BYTES", prm::qpc_mtu::bytes_256},
		{"MLX5_QPC_MTU_512_BYTES", prm::qpc_mtu::bytes_512},
		{"MLX5_QPC_MTU_1K_BYTES", prm::qpc_mtu::bytes_1k},
		{"MLX5_QPC_MTU_2K_BYTES", prm::qpc_mtu::bytes_2k},
		{"MLX5_QPC_MTU_4K_BYTES", prm::qpc_mtu::bytes_4k},
		{"MLX5_QPC_MTU_RAW_ETHERNET_QP", prm::qpc_mtu::raw_ethernet_qp},
		{"MLX5_NON_ZERO_RQ", prm::qp_rq_type::non_zero},
		{"MLX5_SRQ_RQ", prm::qp_rq_type::srq},
		{"MLX5_CRQ_RQ", prm::qp_rq_type::crq},
		{"MLX5_ZERO_LEN_RQ", prm::qp_rq_type::zero_len},
		{"MLX5_QPC_ATOMIC_MODE_IB_SPEC", prm::qpc_atomic_mode::ib_spec},
		{"MLX5_QPC_ATOMIC_MODE_ONLY_8B", prm::qpc_atomic_mode::only_8b},
		{"MLX5_QPC_ATOMIC_MODE_UP_TO_8B", prm::qpc_atomic_mode::up_to_8b},
		{"MLX5_QPC_ATOMIC_MODE_UP_TO_16B", prm::qpc_atomic_mode::up_to_16b},
		{"MLX5_QPC_ATOMIC_MODE_UP_TO_256B", prm::qpc_atomic_mode::up_to_256b},
		{"MLX5_QPC_CS_REQ_DISABLE", prm::qpc_cs_req::disable},
		{"MLX5_QPC_CS_REQ_UP_TO_32B", prm::qpc_cs_req::up_to_32b},
		{"MLX5_QPC_CS_REQ_UP_TO_64B", prm::qpc_cs_req::up_to_64b},
		{"MLX5_QPC_CS_RES_DISABLE", prm::qpc_cs_res::disable},
		{"MLX5_QPC_CS_RES_UP_TO_32B", prm::qpc_cs_res::up_to_32b},
		{"MLX5_QPC_CS_RES_UP_TO_64B", prm::qpc_cs_res::up_to_64b},
		{"MLX5_QP_OPTPAR_ALT_ADDR_PATH", prm::qp_optpar::alt_addr_path},
		{"MLX5_QP_OPTPAR_RRE", prm::qp_optpar::rre},
		{"MLX5_QP_OPTPAR_RAE", prm::qp_optpar::rae},
		{"MLX5_QP_OPTPAR_RWE", prm::qp_optpar::rwe},
		{"MLX5_QP_OPTPAR_PKEY_INDEX", prm::qp_optpar::pkey_index},
		{"MLX5_QP_OPTPAR_Q_KEY", prm::qp_optpar::q_key},
		{"MLX5_QP_OPTPAR_RNR_TIMEOUT", prm::qp_optpar::rnr_timeout},
		{"MLX5_QP_OPTPAR_PRIMARY_ADDR_PATH", prm::qp_optpar::primary_addr_path},
		{"MLX5_QP_OPTPAR_SRA_MAX", prm::qp_optpar::sra_max},
		{"MLX5_QP_OPTPAR_RRA_MAX", prm::qp_optpar::rra_max},
		{"MLX5_QP_OPTPAR_PM_STATE", prm::qp_optpar::pm_state},
		{"MLX5_QP_OPTPAR_RETRY_COUNT", prm::qp_optpar::retry_count},
		{"MLX5_QP_OPTPAR_RNR_RETRY", prm::qp_optpar::rnr_retry},
		{"MLX5_QP_OPTPAR_ACK_TIMEOUT", prm::qp_optpar::ack_timeout},
		{"MLX5_QP_OPTPAR_LAG_TX_AFF", prm::qp_optpar::lag_tx_aff},
		{"MLX5_QP_OPTPAR_PRI_PORT", prm::qp_optpar::pri_port},
		{"MLX5_QP_OPTPAR_SRQN", prm::qp_optpar::srqn},
		{"MLX5_QP_OPTPAR_CQN_RCV", prm::qp_optpar::cqn_rcv},
		{"MLX5_QP_OPTPAR_DC_HS", prm::qp_optpar::dc_hs},
		{"MLX5_QP_OPTPAR_DC_KEY", prm::qp_optpar::dc_key},
		{"MLX5_QP_OPTPAR_COUNTER_SET_ID", prm::qp_optpar::counter_set_id},
		{"MLX5_SEND_WQE_BB", prm::qp_wq::send_wqe_bb},
		{"MLX5_RCV_DBR", prm::reg_offset(prm::qp_dbrec::rcv_counter) / 4},
		{"MLX5_SND_DBR", prm::reg_offset(prm::qp_dbrec::snd_counter) / 4},
		{"MLX5_SRQC_STATE_GOOD", prm::srqc_state::good},
		{"MLX5_SRQC_STATE_ERROR", prm::srqc_state::error},
		{"MLX5_ARM_RQ_IN_OP_MOD_SRQ", prm::arm_rq_op_mod::srq},
		{"MLX5_ARM_RQ_IN_OP_MOD_XRQ", prm::arm_rq_op_mod::xrq},
	};
	for (const auto &v : values)
		EXPECT_EQ(v.value, kernel_const(v.kernel)) << v.kernel;
}

TEST(PrmIfc, UpdateCiDoorbellIsTwoDwordsAfterArm)
{
	// lib/eq.h writes "update ci only" at doorbell + 2 (__be32 units).
	EXPECT_EQ(prm::uar_page::eq_doorbell_ci, prm::uar_page::eq_doorbell_arm + 2 * 4);
}

TEST(PrmIfc, AccessorsRoundTripOnAnEntry)
{
	uint8_t e[prm::cmd_queue_entry::size_bytes] = {};
	prm::set(e, prm::cmd_queue_entry::type, prm::cmdq::type_pcie);
	prm::set(e, prm::cmd_queue_entry::status, 0x7f);
	prm::set(e, prm::cmd_queue_entry::ownership, 1);
	EXPECT_EQ(e[0], 7);
	EXPECT_EQ(e[63], 0xff);
	prm::set(e, prm::cmd_queue_entry::status, prm::delivery_stat::tok_err);
	EXPECT_EQ(e[63], (prm::delivery_stat::tok_err << 1) | 1);
	EXPECT_EQ(prm::get(e, prm::cmd_queue_entry::ownership), 1u);
	// The entry's signature makes the xor of all 64 bytes 0xff.
	prm::set(e, prm::cmd_queue_entry::signature, 0);
	prm::set(e, prm::cmd_queue_entry::signature, uint8_t(~prm::cmdq::xor8(e, sizeof(e))));
	EXPECT_EQ(prm::cmdq::xor8(e, sizeof(e)), 0xff);
	EXPECT_EQ(prm::cmdq::blocks_for(16), 0u);
	EXPECT_EQ(prm::cmdq::blocks_for(17), 1u);
	EXPECT_EQ(prm::cmdq::blocks_for(16 + 512), 1u);
	EXPECT_EQ(prm::cmdq::blocks_for(16 + 513), 2u);
}
