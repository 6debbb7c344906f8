// SPDX-License-Identifier: GPL-2.0
#include "driver/verbs.h"

#include "prm/cmd.h"
#include "prm/hca_cap.h"
#include "prm/vport.h"

namespace scx::driver {

namespace {

namespace gen = prm::cmd_hca_cap;

u32 pow2(u32 log) { return log >= 32 ? 0xffffffffu : u32(1) << log; }

struct guids {
	u64 node;
	u64 system_image;
};

result<guids> query_guids(device &dev)
{
	u8 in[prm::query_nic_vport_context_in::size_bytes] = {};
	u8 out[prm::query_nic_vport_context_out::size_bytes] = {};
	prm::set(in, prm::query_nic_vport_context_in::opcode, prm::op::query_nic_vport_context);
	status s = dev.cmd().exec(in, sizeof(in), out, sizeof(out));
	if (!s)
		return s;
	const u8 *ctx = prm::at(out, prm::query_nic_vport_context_out::nic_vport_context);
	return guids{prm::get(ctx, prm::nic_vport_context::node_guid),
		     prm::get(ctx, prm::nic_vport_context::system_image_guid)};
}

} // namespace

status set_roce_address(device &dev, u32 index, const u8 *gid, const u8 *mac, u8 version, u8 l3_type)
{
	namespace in = prm::set_roce_address_in;
	namespace ra = prm::roce_addr_layout;
	u8 i[in::size_bytes] = {};
	u8 o[prm::set_roce_address_out::size_bytes] = {};
	prm::set(i, in::opcode, prm::op::set_roce_address);
	prm::set(i, in::roce_address_index, index);
	prm::set(i, in::vhca_port_num, 1);
	u8 *a = prm::at(i, in::roce_address);
	// A null gid clears the entry: all zeroes.
	if (gid) {
		copy_bytes(prm::at(a, ra::source_l3_address), gid, 16);
		// source_mac_47_32 and source_mac_31_0 hold the six bytes in wire order.
		copy_bytes(a + ra::source_mac_47_32.byte_off, mac, 6);
		prm::set(a, ra::roce_version, version);
		prm::set(a, ra::roce_l3_type, l3_type);
	}
	return dev.cmd().exec(i, sizeof(i), o, sizeof(o));
}

status query_ib_device(device &dev, scx_ib_device_attr *attr)
{
	const u8 *g = dev.cap(prm::cap_type::general, prm::cap_mode::cur);
	const u8 *a = dev.cap(prm::cap_type::atomic, prm::cap_mode::cur);
	if (!g)
		return errc::io;
	result<guids> ids = query_guids(dev);
	if (!ids)
		return ids.error();

	*attr = {};
	const cmd_if &c = dev.cmd();
	attr->fw_ver = (u64(c.fw_rev_major()) << 32) | (u64(c.fw_rev_minor()) << 16) | c.fw_rev_subminor();
	attr->node_guid = ids->node;
	attr->sys_image_guid = ids->system_image;
	attr->vendor_id = dev.adapter().ieee_vendor_id;
	attr->max_mr_size = ~u64(0);
	// Pages from 4 KiB up to the largest the mkey translation allows.
	attr->page_size_cap = ~u64(0) << 12;
	attr->max_qp = pow2(prm::get(g, gen::log_max_qp));
	attr->max_qp_wr = pow2(prm::get(g, gen::log_max_qp_sz));
	// A send WQE is a control segment, a remote address segment (RDMA)
	// and 16-byte data segments, as mlx5_ib bounds it; a receive WQE is
	// data segments only (the PRM's max_wqe_sz_sq/rq in bytes).
	u32 sq_wqe = prm::get(g, gen::max_wqe_sz_sq), rq_wqe = prm::get(g, gen::max_wqe_sz_rq);
	attr->max_send_sge = sq_wqe > 32 ? (sq_wqe - 32) / 16 : 0;
	attr->max_recv_sge = rq_wqe / 16;
	attr->max_cq = pow2(prm::get(g, gen::log_max_cq));
	attr->max_cqe = pow2(prm::get(g, gen::log_max_cq_sz)) - 1;
	attr->max_mr = pow2(prm::get(g, gen::log_max_mkey));
	attr->max_pd = pow2(prm::get(g, gen::log_max_pd));
	attr->max_qp_rd_atom = pow2(prm::get(g, gen::log_max_ra_res_qp));
	attr->max_qp_init_rd_atom = pow2(prm::get(g, gen::log_max_ra_req_qp));
	attr->max_srq = pow2(prm::get(g, gen::log_max_srq));
	attr->max_srq_wr = pow2(prm::get(g, gen::log_max_srq_sz)) - 1;
	attr->max_srq_sge = rq_wqe > 16 ? rq_wqe / 16 - 1 : 0;
	// pkey_table_size is encoded: 128 entries << value (at most 5).
	u32 pk = prm::get(g, gen::pkey_table_size);
	attr->max_pkeys = pk <= 5 ? 128u << pk : 0;
	attr->local_ca_ack_delay = prm::get(g, gen::local_ca_ack_delay);
	attr->max_msg_sz = pow2(prm::get(g, gen::log_max_msg));
	attr->gid_table_len = prm::get(g, gen::gid_table_size);
	attr->num_comp_vectors = dev.num_comp_eqs();
	attr->cqe_version = u8(prm::get(g, gen::cqe_version));
	attr->dc = u8(prm::get(g, gen::dct));
	if (prm::get(g, gen::atomic) && a) {
		u32 ops = prm::get(a, prm::atomic_caps::atomic_operations);
		u32 need = prm::atomic_ops::cmp_swap | prm::atomic_ops::fetch_add;
		attr->atomic = (ops & need) == need && (prm::get(a, prm::atomic_caps::atomic_size_qp) & 8);
	}
	return status::ok();
}

result<bool> query_port_up(device &dev)
{
	result<u8> st = cmd::query_vport_state(dev.cmd());
	if (!st)
		return st.error();
	return *st == prm::vport_state::up;
}

} // namespace scx::driver
