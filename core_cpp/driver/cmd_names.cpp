// SPDX-License-Identifier: GPL-2.0
#include "driver/cmd_names.h"

#include "prm/cmd.h"
#include "prm/cmdq.h"

namespace scx::driver {
namespace {

struct op_name {
	u16 op;
	const char *name;
};

// Sorted by opcode (binary search). Values are MLX5_CMD_OP_* of mlx5_ifc.h;
// the ones softcx serves come from prm/cmd.h, the rest only name what a
// caller might send.
constexpr op_name op_names[] = {
	{prm::op::query_hca_cap, "QUERY_HCA_CAP"},
	{prm::op::query_adapter, "QUERY_ADAPTER"},
	{prm::op::init_hca, "INIT_HCA"},
	{prm::op::teardown_hca, "TEARDOWN_HCA"},
	{prm::op::enable_hca, "ENABLE_HCA"},
	{prm::op::disable_hca, "DISABLE_HCA"},
	{prm::op::query_pages, "QUERY_PAGES"},
	{prm::op::manage_pages, "MANAGE_PAGES"},
	{prm::op::set_hca_cap, "SET_HCA_CAP"},
	{prm::op::query_issi, "QUERY_ISSI"},
	{prm::op::set_issi, "SET_ISSI"},
	{0x10d, "SET_DRIVER_VERSION"},
	{prm::op::create_mkey, "CREATE_MKEY"},
	{prm::op::query_mkey, "QUERY_MKEY"},
	{prm::op::destroy_mkey, "DESTROY_MKEY"},
	{0x203, "QUERY_SPECIAL_CONTEXTS"},
	{0x204, "PAGE_FAULT_RESUME"},
	{prm::op::create_eq, "CREATE_EQ"},
	{prm::op::destroy_eq, "DESTROY_EQ"},
	{prm::op::query_eq, "QUERY_EQ"},
	{0x304, "GEN_EQE"},
	{prm::op::create_cq, "CREATE_CQ"},
	{prm::op::destroy_cq, "DESTROY_CQ"},
	{prm::op::query_cq, "QUERY_CQ"},
	{prm::op::modify_cq, "MODIFY_CQ"},
	{0x500, "CREATE_QP"},
	{0x501, "DESTROY_QP"},
	{0x502, "RST2INIT_QP"},
	{0x503, "INIT2RTR_QP"},
	{0x504, "RTR2RTS_QP"},
	{0x505, "RTS2RTS_QP"},
	{0x506, "SQERR2RTS_QP"},
	{0x507, "2ERR_QP"},
	{0x50a, "2RST_QP"},
	{0x50b, "QUERY_QP"},
	{0x50c, "SQD_RTS_QP"},
	{0x50d, "MAD_IFC"},
	{0x50e, "INIT2INIT_QP"},
	{0x700, "CREATE_SRQ"},
	{0x701, "DESTROY_SRQ"},
	{0x702, "QUERY_SRQ"},
	{0x703, "ARM_RQ"},
	{0x705, "CREATE_XRC_SRQ"},
	{0x706, "DESTROY_XRC_SRQ"},
	{0x707, "QUERY_XRC_SRQ"},
	{0x708, "ARM_XRC_SRQ"},
	{prm::op::create_dct, "CREATE_DCT"},
	{prm::op::destroy_dct, "DESTROY_DCT"},
	{prm::op::drain_dct, "DRAIN_DCT"},
	{prm::op::query_dct, "QUERY_DCT"},
	{prm::op::arm_dct_for_key_violation, "ARM_DCT_FOR_KEY_VIOLATION"},
	{prm::op::query_esw_functions, "QUERY_ESW_FUNCTIONS"},
	{prm::op::query_vport_state, "QUERY_VPORT_STATE"},
	{0x751, "MODIFY_VPORT_STATE"},
	{prm::op::query_nic_vport_context, "QUERY_NIC_VPORT_CONTEXT"},
	{0x755, "MODIFY_NIC_VPORT_CONTEXT"},
	{0x760, "QUERY_ROCE_ADDRESS"},
	{0x761, "SET_ROCE_ADDRESS"},
	{0x762, "QUERY_HCA_VPORT_CONTEXT"},
	{0x764, "QUERY_HCA_VPORT_GID"},
	{0x765, "QUERY_HCA_VPORT_PKEY"},
	{0x770, "QUERY_VPORT_COUNTER"},
	{prm::op::alloc_q_counter, "ALLOC_Q_COUNTER"},
	{prm::op::dealloc_q_counter, "DEALLOC_Q_COUNTER"},
	{prm::op::query_q_counter, "QUERY_Q_COUNTER"},
	{prm::op::alloc_pd, "ALLOC_PD"},
	{prm::op::dealloc_pd, "DEALLOC_PD"},
	{prm::op::alloc_uar, "ALLOC_UAR"},
	{prm::op::dealloc_uar, "DEALLOC_UAR"},
	{0x805, "ACCESS_REG"},
	{0x806, "ATTACH_TO_MCG"},
	{0x807, "DETACH_FROM_MCG"},
	{prm::op::nop, "NOP"},
	{0x80e, "ALLOC_XRCD"},
	{0x80f, "DEALLOC_XRCD"},
	{0x816, "ALLOC_TRANSPORT_DOMAIN"},
	{0x817, "DEALLOC_TRANSPORT_DOMAIN"},
	{prm::op::create_rmp, "CREATE_RMP"},
	{prm::op::modify_rmp, "MODIFY_RMP"},
	{prm::op::destroy_rmp, "DESTROY_RMP"},
	{prm::op::query_rmp, "QUERY_RMP"},
	{prm::op::create_general_object, "CREATE_GENERAL_OBJECT"},
	{prm::op::modify_general_object, "MODIFY_GENERAL_OBJECT"},
	{prm::op::query_general_object, "QUERY_GENERAL_OBJECT"},
	{prm::op::destroy_general_object, "DESTROY_GENERAL_OBJECT"},
	{prm::op::create_uctx, "CREATE_UCTX"},
	{prm::op::destroy_uctx, "DESTROY_UCTX"},
	{prm::op::create_umem, "CREATE_UMEM"},
	{prm::op::destroy_umem, "DESTROY_UMEM"},
};
constexpr u32 n_op_names = sizeof(op_names) / sizeof(op_names[0]);
static_assert(n_op_names + 1 == stat_opcodes, "a row per named opcode plus one for the rest");

constexpr bool sorted()
{
	for (u32 i = 1; i < n_op_names; i++)
		if (op_names[i - 1].op >= op_names[i].op)
			return false;
	return true;
}
static_assert(sorted());

i32 find(u16 op)
{
	u32 lo = 0, hi = n_op_names;
	while (lo < hi) {
		u32 mid = (lo + hi) / 2;
		if (op_names[mid].op == op)
			return i32(mid);
		if (op_names[mid].op < op)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

} // namespace

const char *opcode_name(u16 opcode)
{
	i32 i = find(opcode);
	return i < 0 ? "unknown command opcode" : op_names[i].name;
}

u32 opcode_stat_index(u16 opcode)
{
	i32 i = find(opcode);
	return i < 0 ? stat_opcodes - 1 : u32(i);
}

u16 stat_index_opcode(u32 index) { return index < n_op_names ? op_names[index].op : 0xffff; }

const char *cmd_status_name(u8 status)
{
	namespace s = prm::cmd_stat;
	switch (status) {
	case s::ok: return "OK";
	case s::int_err: return "internal error";
	case s::bad_op_err: return "bad operation";
	case s::bad_param_err: return "bad parameter";
	case s::bad_sys_state_err: return "bad system state";
	case s::bad_res_err: return "bad resource";
	case s::res_busy: return "resource busy";
	case s::lim_err: return "limits exceeded";
	case s::bad_res_state_err: return "bad resource state";
	case s::ix_err: return "bad index";
	case s::no_res_err: return "no resources";
	case s::bad_inp_len_err: return "bad input length";
	case s::bad_outp_len_err: return "bad output length";
	case s::bad_qp_state_err: return "bad QP state";
	case s::bad_pkt_err: return "bad packet (discarded)";
	case s::bad_size_outs_cqes_err: return "bad size too many outstanding CQEs";
	default: return "unknown status";
	}
}

errc cmd_status_to_errc(u8 status)
{
	namespace s = prm::cmd_stat;
	switch (status) {
	case s::ok: return errc::ok;
	case s::bad_op_err:
	case s::bad_param_err:
	case s::bad_res_err:
	case s::bad_res_state_err:
	case s::ix_err:
	case s::bad_qp_state_err:
	case s::bad_pkt_err:
	case s::bad_size_outs_cqes_err: return errc::inval;
	case s::res_busy: return errc::busy;
	case s::lim_err: return errc::nomem;
	case s::no_res_err: return errc::again;
	case s::int_err:
	case s::bad_sys_state_err:
	case s::bad_inp_len_err:
	case s::bad_outp_len_err:
	default: return errc::io;
	}
}

const char *delivery_status_name(u8 status)
{
	namespace d = prm::delivery_stat;
	switch (status) {
	case d::ok: return "no errors";
	case d::signat_err: return "signature error";
	case d::tok_err: return "token error";
	case d::bad_blk_num_err: return "bad block number";
	case d::out_ptr_align_err: return "output pointer not aligned to block size";
	case d::in_ptr_align_err: return "input pointer not aligned to block size";
	case d::fw_err: return "firmware internal error";
	case d::in_length_err: return "command input length error";
	case d::out_length_err: return "command output length error";
	case d::res_fld_not_clr_err: return "reserved fields not cleared";
	case d::cmd_descr_err: return "bad command descriptor type";
	default: return "unknown status code";
	}
}

errc delivery_status_to_errc(u8 status)
{
	namespace d = prm::delivery_stat;
	switch (status) {
	case d::ok: return errc::ok;
	case d::signat_err:
	case d::tok_err: return errc_badr;
	case d::bad_blk_num_err:
	case d::out_ptr_align_err:
	case d::in_ptr_align_err: return errc::fault;
	case d::in_length_err:
	case d::out_length_err:
	case d::cmd_descr_err:
	case d::res_fld_not_clr_err: return errc_nomsg;
	case d::fw_err: return errc::io;
	default: return errc::inval;
	}
}

} // namespace scx::driver
