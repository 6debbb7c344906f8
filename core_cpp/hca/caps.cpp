// SPDX-License-Identifier: GPL-2.0
#include "hca/caps.h"

#include "hca/syndrome.h"
#include "prm/gen_obj.h"

namespace scx::hca {

namespace st = prm::cmd_stat;
namespace gen = prm::cmd_hca_cap;

void caps::init(const device_config &cfg)
{
	zero_bytes(max_, sizeof(max_));
	u8 *g = max_[0];
	using L = hca_limits;
	prm::set(g, gen::log_max_srq_sz, L::log_max_srq_sz);
	prm::set(g, gen::log_max_qp_sz, L::log_max_qp_sz);
	prm::set(g, gen::log_max_qp, L::log_max_qp);
	prm::set(g, gen::log_max_srq, L::log_max_srq);
	// RMPs share the SRQs' numbers and limits (srq.h).
	prm::set(g, gen::log_max_rmp, L::log_max_srq);
	prm::set(g, gen::log_max_wq_sz, L::log_max_srq_sz);
	prm::set(g, gen::log_max_cq_sz, L::log_max_cq_sz);
	prm::set(g, gen::log_max_cq, L::log_max_cq);
	prm::set(g, gen::log_max_eq_sz, L::log_max_eq_sz);
	prm::set(g, gen::log_max_mkey, L::log_max_mkey);
	prm::set(g, gen::log_max_eq, L::log_max_eq);
	prm::set(g, gen::max_num_eqs, 1u << L::log_max_eq);
	prm::set(g, gen::max_indirection, 4);
	prm::set(g, gen::log_max_mrw_sz, 48);
	prm::set(g, gen::log_max_klm_list_size, 16);
	prm::set(g, gen::log_max_ra_req_qp, L::log_max_ra);
	prm::set(g, gen::log_max_ra_res_qp, L::log_max_ra);
	prm::set(g, gen::log_max_ra_req_dc, L::log_max_ra);
	prm::set(g, gen::log_max_ra_res_dc, L::log_max_ra);
	prm::set(g, gen::gid_table_size, L::gid_table_size);
	prm::set(g, gen::pkey_table_size, 0); // 128 entries
	prm::set(g, gen::out_of_seq_cnt, 1);
	prm::set(g, gen::retransmission_q_counters, 1);
	prm::set(g, gen::max_qp_cnt, L::max_q_counters);
	prm::set(g, gen::local_ca_ack_delay, 16);
	prm::set(g, gen::port_type, prm::port_type::eth);
	prm::set(g, gen::num_ports, 1);
	prm::set(g, gen::log_max_msg, L::log_max_msg);
	prm::set(g, gen::cqe_version, 1);
	prm::set(g, gen::cmdif_checksum, prm::cmdif_checksum::initial_state);
	prm::set(g, gen::roce, 1);
	prm::set(g, gen::atomic, 1);
	prm::set(g, gen::cq_oi, 1);
	prm::set(g, gen::cq_moderation, 1);
	// The QPC's block_lb_mc is kept; with no multicast there is none to block.
	prm::set(g, gen::block_lb_mc, 1);
	prm::set(g, gen::ud, 1);
	prm::set(g, gen::uc, 1);
	prm::set(g, gen::rc, 1);
	prm::set(g, gen::uar_4k, 1);
	prm::set(g, gen::uar_sz, ilog2(L::num_uars));
	prm::set(g, gen::log_pg_sz, 12);
	prm::set(g, gen::log_bf_reg_size, 9);
	prm::set(g, gen::max_wqe_sz_sq, L::max_wqe_sz_sq);
	prm::set(g, gen::max_wqe_sz_rq, L::max_wqe_sz_rq);
	prm::set(g, gen::log_max_pd, L::log_max_pd);
	prm::set(g, gen::log_max_transport_domain, L::log_max_transport_domain);
	// User contexts, none of the optional uctx_cap rights (raw packets,
	// internal device resources).
	prm::set(g, gen::log_max_uctx, L::log_max_uctx);
	prm::set(g, gen::log_uar_page_sz, 0);
	prm::set(g, gen::num_of_uars_per_page, 1);
	prm::set(g, gen::device_frequency_mhz, 1000);
	prm::set(g, gen::device_frequency_khz, 1000000); // timestamps in ns
	prm::set(g, gen::native_port_num, 1);
	prm::set(g, gen::num_vhca_ports, 1);
	prm::set(g, gen::hca_cap_2, 1);
	if (cfg.dc) {
		prm::set(g, gen::dct, 1);
		prm::set(max_[1], prm::atomic_caps::atomic_size_dc, 8);
	}
	if (cfg.general_objects) {
		prm::set(g, gen::general_obj_types, u64(1) << prm::obj_type::reserved_qpn);
		prm::set(max_[3], prm::cmd_hca_cap_2::log_reserved_qpn_granularity, L::log_reserved_qpn_granularity);
	}

	u8 *a = max_[1];
	prm::set(a, prm::atomic_caps::atomic_operations, prm::atomic_ops::cmp_swap | prm::atomic_ops::fetch_add);
	prm::set(a, prm::atomic_caps::atomic_size_qp, 8);
	prm::set(a, prm::atomic_caps::supported_atomic_req_8B_endianness_mode_1, 1);

	u8 *r = max_[2];
	prm::set(r, prm::roce_cap::roce_version, prm::roce_version::v2_cap);
	prm::set(r, prm::roce_cap::l3_type, prm::roce_l3_type::ipv4_cap | prm::roce_l3_type::ipv6_cap);
	prm::set(r, prm::roce_cap::r_roce_dest_udp_port, 4791);
	prm::set(r, prm::roce_cap::r_roce_max_src_udp_port, 0xffff);
	prm::set(r, prm::roce_cap::r_roce_min_src_udp_port, 0xc000);
	prm::set(r, prm::roce_cap::roce_address_table_size, 256);

	copy_bytes(cur_, max_, sizeof(cur_));
}

int caps::page_of(u16 type)
{
	switch (type) {
	case prm::cap_type::general:
		return 0;
	case prm::cap_type::atomic:
		return 1;
	case prm::cap_type::roce:
		return 2;
	case prm::cap_type::general_2:
		return 3;
	default:
		return -1;
	}
}

void caps::query(cmd_ctx &c)
{
	namespace in = prm::query_hca_cap_in;
	if (!c.need_in(in::size_bytes, synd::short_input))
		return;
	if (prm::get(c.in, in::other_function) || prm::get(c.in, in::function_id))
		return (void)c.fail(st::bad_param_err, synd::bad_function);
	u16 type = c.op_mod >> 1;
	int p = page_of(type);
	if (p < 0 && type >= prm::cap_type::count)
		return (void)c.fail(st::bad_param_err, synd::bad_cap_type);
	// A driver may read only the part of the page it knows.
	if (!c.need_out(prm::query_hca_cap_out::capability.byte_off + prm::cmd_hca_cap::size_bytes,
			synd::short_output))
		return;
	// A type softcx offers nothing of reads as all zeroes (the output is
	// zeroed): every feature it names is absent.
	if (p < 0)
		return;
	const u8 *src = (c.op_mod & 1) == prm::cap_mode::cur ? cur_[p] : max_[p];
	copy_bytes(prm::at(c.out, prm::query_hca_cap_out::capability), src, prm::cmd_hca_cap::size_bytes);
}

void caps::set(cmd_ctx &c)
{
	namespace in = prm::set_hca_cap_in;
	if (!c.need_in(in::capability.byte_off + prm::cmd_hca_cap::size_bytes, synd::short_input) ||
	    !c.need_out(prm::set_hca_cap_out::size_bytes, synd::short_output))
		return;
	if (prm::get(c.in, in::other_function) || prm::get(c.in, in::function_id))
		return (void)c.fail(st::bad_param_err, synd::bad_function);
	if (c.op_mod & 1)
		return (void)c.fail(st::bad_param_err, synd::bad_op_mod);
	int p = page_of(c.op_mod >> 1);
	if (p < 0)
		return (void)c.fail(st::bad_param_err, synd::bad_cap_type);
	const u8 *v = prm::at(c.in, in::capability);
	// Only these fields are settable; the rest of the page is ignored, as
	// drivers write back the whole current page with their changes.
	if (p == 0) {
		u32 log_max_qp = prm::get(v, gen::log_max_qp);
		u32 csum = prm::get(v, gen::cmdif_checksum);
		u32 pkey = prm::get(v, gen::pkey_table_size);
		if (log_max_qp > prm::get(max_[0], gen::log_max_qp) || pkey > prm::get(max_[0], gen::pkey_table_size))
			return (void)c.fail(st::bad_param_err, synd::cap_above_max);
		if (csum != prm::cmdif_checksum::disabled && csum != prm::cmdif_checksum::initial_state &&
		    csum != prm::cmdif_checksum::enabled)
			return (void)c.fail(st::bad_param_err, synd::bad_cap_value);
		if (prm::get(v, gen::log_uar_page_sz) != 0)
			return (void)c.fail(st::bad_param_err, synd::bad_cap_value);
		prm::set(cur_[0], gen::log_max_qp, log_max_qp);
		prm::set(cur_[0], gen::cmdif_checksum, csum);
		prm::set(cur_[0], gen::pkey_table_size, pkey);
	} else if (p == 1) {
		u32 mode = prm::get(v, prm::atomic_caps::atomic_req_8B_endianness_mode);
		if (mode > 1)
			return (void)c.fail(st::bad_param_err, synd::bad_cap_value);
		prm::set(cur_[1], prm::atomic_caps::atomic_req_8B_endianness_mode, mode);
	} else if (p == 2) {
		prm::set(cur_[2], prm::roce_cap::sw_r_roce_src_udp_port,
			 prm::get(v, prm::roce_cap::sw_r_roce_src_udp_port));
	}
}

} // namespace scx::hca
