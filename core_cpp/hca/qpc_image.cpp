// SPDX-License-Identifier: GPL-2.0
// The QP context a QP keeps (its image in firmware memory): which PRM
// transition goes from which state and takes which optional parameters,
// what a MODIFY_QP's context brings into the image, what RESET clears,
// and the runtime fields and transport attributes read back from it.
#include "hca/qpc_image.h"

#include "hca/tp.h"
#include "prm/hca_cap.h"

namespace scx::hca {

namespace qs = prm::qpc_state;
namespace opt = prm::qp_optpar;

namespace {

constexpr u32 init2init_rc = opt::rre | opt::rae | opt::rwe | opt::pkey_index | opt::pri_port | opt::lag_tx_aff;
constexpr u32 init2rtr_rc = opt::rre | opt::rae | opt::rwe | opt::pkey_index | opt::lag_tx_aff;
constexpr u32 rtr2rts_rc = opt::rre | opt::rae | opt::rwe | opt::pm_state | opt::rnr_timeout;
constexpr u32 to_rts_rc = opt::rnr_timeout | opt::rwe | opt::rae | opt::rre;

// A DCI: mlx5_ib's table has no DCI column (it sends none), but UCX's
// DevX path moves its DCIs to RTR with RAE set, its requester's atomic
// mode, and firmware takes that (and the access bits beside it).
constexpr u32 init2rtr_dci = opt::rre | opt::rae | opt::rwe | opt::lag_tx_aff;

constexpr transition transitions[] = {
	{prm::op::rst2init_qp, qs::rst, qs::init, true, {0, 0, 0, 0}},
	{prm::op::init2init_qp, qs::init, qs::init, true,
	 {init2init_rc, opt::rwe | opt::pkey_index | opt::pri_port | opt::lag_tx_aff,
	  opt::pkey_index | opt::q_key | opt::pri_port, 0}},
	{prm::op::init2rtr_qp, qs::init, qs::rtr, true,
	 {init2rtr_rc, opt::rwe | opt::pkey_index | opt::lag_tx_aff, opt::pkey_index | opt::q_key, init2rtr_dci}},
	// A QP moves to another counter set on its way to RTS or in it (as
	// mlx5_ib binds a QP to a counter).
	{prm::op::rtr2rts_qp, qs::rtr, qs::rts, true,
	 {rtr2rts_rc | opt::counter_set_id, opt::rwe | opt::pm_state | opt::counter_set_id,
	  opt::q_key | opt::counter_set_id, 0}},
	{prm::op::rts2rts_qp, qs::rts, qs::rts, true,
	 {rtr2rts_rc | opt::counter_set_id, opt::rwe | opt::pm_state | opt::counter_set_id,
	  opt::q_key | opt::srqn | opt::cqn_rcv | opt::counter_set_id, 0}},
	{prm::op::sqerr2rts_qp, qs::sqer, qs::rts, true, {to_rts_rc, opt::rwe, opt::q_key, 0}},
	{prm::op::sqd_rts_qp, qs::sqd, qs::rts, true, {to_rts_rc, opt::rwe, opt::q_key, 0}},
	{prm::op::qp_2err, any_state, qs::err, false, {0, 0, 0, 0}},
	{prm::op::qp_2rst, any_state, qs::rst, false, {0, 0, 0, 0}},
};

} // namespace

const transition *find_transition(u16 opcode)
{
	for (const auto &t : transitions)
		if (t.opcode == opcode)
			return &t;
	return nullptr;
}

u32 st_index(u8 st)
{
	switch (st) {
	case prm::qpc_st::rc: return 0;
	case prm::qpc_st::uc: return 1;
	case prm::qpc_st::ud: return 2;
	default: return 3; // DCI
	}
}

namespace {

template <typename F> void take(u8 *dst, const u8 *src, F f) { prm::set(dst, f, prm::get(src, f)); }

// The primary path's RoCE fields (INIT2RTR), not pkey_index (RST2INIT or
// its optional bit) nor ack_timeout (RTR2RTS).
void take_path(u8 *dst, const u8 *src)
{
	namespace a = prm::ads;
	take(dst, src, a::fl);
	take(dst, src, a::free_ar);
	take(dst, src, a::grh);
	take(dst, src, a::mlid);
	take(dst, src, a::rlid);
	take(dst, src, a::src_addr_index);
	take(dst, src, a::stat_rate);
	take(dst, src, a::hop_limit);
	take(dst, src, a::tclass);
	take(dst, src, a::flow_label);
	copy_bytes(prm::at(dst, a::rgid_rip), prm::at(src, a::rgid_rip), a::rgid_rip.size);
	take(dst, src, a::f_dscp);
	take(dst, src, a::f_ecn);
	take(dst, src, a::f_eth_prio);
	take(dst, src, a::ecn);
	take(dst, src, a::dscp);
	take(dst, src, a::udp_sport);
	take(dst, src, a::dei_cfi);
	take(dst, src, a::eth_prio);
	take(dst, src, a::sl);
	take(dst, src, a::rmac_47_32);
	take(dst, src, a::rmac_31_0);
	if (prm::get(src, a::vhca_port_num))
		take(dst, src, a::vhca_port_num);
}

} // namespace

// Into the image: what transition t takes from qpc for service type st.
void merge(u8 *img, const u8 *qpc, const transition &t, u8 st, u32 mask)
{
	namespace q = prm::qpc;
	u8 *ipath = prm::at(img, q::primary_address_path);
	const u8 *path = prm::at(qpc, q::primary_address_path);
	const bool rc = st == prm::qpc_st::rc, uc = st == prm::qpc_st::uc, ud = st == prm::qpc_st::ud;
	const bool dci = st == prm::qpc_st::dci;
	switch (t.opcode) {
	case prm::op::rst2init_qp:
		if (rc) {
			take(img, qpc, q::rre);
			take(img, qpc, q::rwe);
			take(img, qpc, q::rae);
			take(img, qpc, q::atomic_mode);
		}
		if (uc)
			take(img, qpc, q::rwe);
		if (ud)
			take(img, qpc, q::q_key);
		take(ipath, path, prm::ads::pkey_index);
		take(ipath, path, prm::ads::vhca_port_num);
		take(img, qpc, q::counter_set_id);
		break;
	case prm::op::init2rtr_qp:
		take(img, qpc, q::mtu);
		take(img, qpc, q::log_msg_max);
		if (rc || uc) {
			take(img, qpc, q::remote_qpn);
			take(img, qpc, q::next_rcv_psn);
			take_path(ipath, path);
		}
		if (rc) {
			take(img, qpc, q::log_rra_max);
			take(img, qpc, q::min_rnr_nak);
		}
		break;
	case prm::op::rtr2rts_qp:
		take(img, qpc, q::next_send_psn);
		if (rc || dci) {
			take(img, qpc, q::retry_count);
			take(img, qpc, q::rnr_retry);
			take(img, qpc, q::log_sra_max);
			take(img, qpc, q::log_ack_req_freq);
			take(ipath, path, prm::ads::ack_timeout);
		}
		break;
	default:
		break;
	}
	if (mask & opt::rre)
		take(img, qpc, q::rre);
	if (mask & opt::rwe)
		take(img, qpc, q::rwe);
	if (mask & opt::rae) {
		take(img, qpc, q::rae);
		take(img, qpc, q::atomic_mode);
	}
	if (mask & opt::pkey_index)
		take(ipath, path, prm::ads::pkey_index);
	if (mask & opt::pri_port)
		take(ipath, path, prm::ads::vhca_port_num);
	if (mask & opt::q_key)
		take(img, qpc, q::q_key);
	if (mask & opt::rnr_timeout)
		take(img, qpc, q::min_rnr_nak);
	if (mask & opt::pm_state)
		take(img, qpc, q::pm_state);
	if (mask & opt::lag_tx_aff)
		take(img, qpc, q::lag_tx_port_affinity);
	if (mask & opt::cqn_rcv)
		take(img, qpc, q::cqn_rcv);
	if (mask & opt::srqn)
		take(img, qpc, q::srqn_rmpn_xrqn);
	if (mask & opt::counter_set_id)
		take(img, qpc, q::counter_set_id);
}

// 2RST: the transport attributes go back to nothing; what CREATE_QP set stays.
void clear_transport(u8 *img)
{
	namespace q = prm::qpc;
	prm::set(img, q::lag_tx_port_affinity, 0);
	prm::set(img, q::mtu, 0);
	prm::set(img, q::log_msg_max, 0);
	prm::set(img, q::counter_set_id, 0);
	prm::set(img, q::remote_qpn, 0);
	zero_bytes(prm::at(img, q::primary_address_path), q::primary_address_path.size);
	zero_bytes(prm::at(img, q::secondary_address_path), q::secondary_address_path.size);
	prm::set(img, q::log_ack_req_freq, 0);
	prm::set(img, q::log_sra_max, 0);
	prm::set(img, q::retry_count, 0);
	prm::set(img, q::rnr_retry, 0);
	prm::set(img, q::next_send_psn, 0);
	prm::set(img, q::log_rra_max, 0);
	prm::set(img, q::atomic_mode, 0);
	prm::set(img, q::rre, 0);
	prm::set(img, q::rwe, 0);
	prm::set(img, q::rae, 0);
	prm::set(img, q::min_rnr_nak, 0);
	prm::set(img, q::next_rcv_psn, 0);
	prm::set(img, q::q_key, 0);
}

// The runtime's view of the attributes held in the image.
void decode(qp_runtime &rt, const u8 *img)
{
	namespace q = prm::qpc;
	namespace a = prm::ads;
	const u8 *p = prm::at(img, q::primary_address_path);
	rt.cqn_rcv = prm::get(img, q::cqn_rcv);
	if (rt.rq_type == prm::qp_rq_type::srq)
		rt.srqn = prm::get(img, q::srqn_rmpn_xrqn);
	rt.mtu = u8(prm::get(img, q::mtu));
	rt.log_msg_max = u8(prm::get(img, q::log_msg_max));
	u8 acc = 0;
	if (rt.st == prm::qpc_st::rc) {
		acc |= prm::get(img, q::rre) ? qp_access::remote_read : 0;
		acc |= prm::get(img, q::rae) ? qp_access::remote_atomic : 0;
	}
	// A DCI is no responder: it grants nothing.
	if (rt.st == prm::qpc_st::rc || rt.st == prm::qpc_st::uc)
		acc |= prm::get(img, q::rwe) ? qp_access::remote_write : 0;
	rt.access = acc;
	rt.atomic_mode = u8(prm::get(img, q::atomic_mode));
	rt.retry_count = u8(prm::get(img, q::retry_count));
	rt.rnr_retry = u8(prm::get(img, q::rnr_retry));
	rt.min_rnr_nak = u8(prm::get(img, q::min_rnr_nak));
	rt.log_sra_max = u8(prm::get(img, q::log_sra_max));
	rt.log_ack_req_freq = u8(prm::get(img, q::log_ack_req_freq));
	rt.log_rra_max = u8(prm::get(img, q::log_rra_max));
	rt.pm_state = u8(prm::get(img, q::pm_state));
	rt.counter_set_id = u8(prm::get(img, q::counter_set_id));
	rt.cs_req = u8(prm::get(img, q::cs_req));
	rt.cs_res = u8(prm::get(img, q::cs_res));
	rt.rlky = u8(prm::get(img, q::rlky));
	rt.remote_qpn = prm::get(img, q::remote_qpn);
	rt.q_key = prm::get(img, q::q_key);
	rt.next_send_psn = prm::get(img, q::next_send_psn);
	rt.next_rcv_psn = prm::get(img, q::next_rcv_psn);
	qp_path &path = rt.path;
	store_be<u16>(path.rmac, u16(prm::get(p, a::rmac_47_32)));
	store_be<u32>(path.rmac + 2, prm::get(p, a::rmac_31_0));
	copy_bytes(path.rgid, prm::at(p, a::rgid_rip), sizeof(path.rgid));
	path.src_addr_index = u8(prm::get(p, a::src_addr_index));
	path.hop_limit = u8(prm::get(p, a::hop_limit));
	path.tclass = u8(prm::get(p, a::tclass));
	path.dscp = u8(prm::get(p, a::dscp));
	path.eth_prio = u8(prm::get(p, a::eth_prio));
	path.ack_timeout = u8(prm::get(p, a::ack_timeout));
	path.vhca_port_num = u8(prm::get(p, a::vhca_port_num));
	path.pkey_index = u16(prm::get(p, a::pkey_index));
	path.udp_sport = u16(prm::get(p, a::udp_sport));
	path.flow_label = prm::get(p, a::flow_label);
}

namespace {

u32 path_mtu_bytes(u8 mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128u << mtu : 4096u;
}

} // namespace

// The transport state follows the context: the attributes every time,
// the responder's PSN at RTR, the requester's at RTS, nothing at RESET.
void sync_transport(qp_runtime &rt, u8 from)
{
	tp_qp &t = *rt.tp;
	if (rt.state == qs::rst) {
		tp_qp_reset(t);
		return;
	}
	tp_qp_attr &a = t.a;
	switch (rt.st) {
	case prm::qpc_st::rc: a.st = tp_st::rc; break;
	case prm::qpc_st::uc: a.st = tp_st::uc; break;
	case prm::qpc_st::dci: a.st = tp_st::dci; break;
	default: a.st = tp_st::ud; break;
	}
	// A DC target's context answers as RC does, to whoever connects.
	if (rt.dctn)
		a.st = tp_st::dct;
	a.qpn = rt.gsi ? gsi_wire_qpn : rt.qpn;
	a.dest_qpn = rt.remote_qpn;
	a.mtu = path_mtu_bytes(rt.mtu);
	a.sq_psn = rt.next_send_psn;
	a.rq_psn = rt.next_rcv_psn;
	a.retry_cnt = rt.retry_count;
	a.rnr_retry = rt.rnr_retry;
	a.min_rnr_timer = rt.min_rnr_nak;
	a.timeout = rt.path.ack_timeout;
	a.max_rd_atomic = u8(1u << min<u32>(rt.log_sra_max, hca_limits::log_max_ra));
	a.max_dest_rd_atomic = u8(1u << min<u32>(rt.log_rra_max, hca_limits::log_max_ra));
	a.log_ack_req_freq = rt.log_ack_req_freq;
	a.qkey = rt.q_key;
	a.route = &rt.path;
	if (rt.state == qs::rtr && from == qs::init)
		transport::start_responder(t);
	if (rt.state == qs::rts && from == qs::rtr)
		transport::start_requester(t);
}


} // namespace scx::hca
