// SPDX-License-Identifier: GPL-2.0
// The capability pages the hca reports (general device, atomic, RoCE, the
// second general page), each
// as a maximum and a current value, and the few current values a driver may
// change with SET_HCA_CAP before INIT_HCA.
#pragma once

#include "hca/cmd_ctx.h"
#include "hca/config.h"
#include "prm/hca_cap.h"

namespace scx::hca {

// Limits the device is built with; the caps report them and the object
// tables are sized by them.
struct hca_limits {
	static constexpr u32 log_max_eq = 6;
	static constexpr u32 log_max_eq_sz = 16;
	static constexpr u32 log_max_cq = 12;
	static constexpr u32 log_max_cq_sz = 18;
	static constexpr u32 log_max_mkey = 14;
	static constexpr u32 log_max_pd = 14;
	static constexpr u32 log_max_transport_domain = 8;
	static constexpr u32 log_max_qp = 12;
	static constexpr u32 log_max_qp_sz = 15;   // SQ WQEBBs and RQ WQEs
	static constexpr u32 log_max_srq = 12;
	static constexpr u32 log_max_srq_sz = 15;
	static constexpr u32 max_wqe_sz_sq = 1024; // bytes of one send WQE
	static constexpr u32 max_wqe_sz_rq = 512;  // RQ/SRQ stride limit
	static constexpr u32 log_max_ra = 4;       // log_max_ra_req_qp / _res_qp
	static constexpr u32 log_max_msg = 30;
	static constexpr u32 gid_table_size = 256;
	static constexpr u32 max_log_page = 18;    // log_page_size of WQ/CQ buffers
	static constexpr u32 max_q_counters = 64;
	static constexpr u32 log_max_uctx = 10;  // user contexts (DevX) 1 .. 1023
	static constexpr u32 log_max_umem = 12;  // user memory registrations (DevX UMEM)
	// QPNs per RESERVED_QPN object (2^n), and at most this many of the
	// device's QPNs reserved at once: the rest stay for CREATE_QP.
	static constexpr u32 log_reserved_qpn_granularity = 3;
	static constexpr u32 max_reserved_qpns = 1u << (log_max_qp - 1);
	static constexpr u32 first_uar = 8;     // BAR0 pages below hold the init segment
	static constexpr u32 num_uars = 256;
};

class caps {
public:
	void init(const device_config &cfg);

	void query(cmd_ctx &c);
	void set(cmd_ctx &c);

	// The current general capabilities (prm::cmd_hca_cap layout).
	const u8 *general() const { return cur_[0]; }
	const u8 *general_2() const { return cur_[3]; }

private:
	static constexpr u32 pages = 4; // general, atomic, RoCE, general 2
	static int page_of(u16 type);

	u8 max_[pages][prm::cmd_hca_cap::size_bytes];
	u8 cur_[pages][prm::cmd_hca_cap::size_bytes];
};

} // namespace scx::hca
