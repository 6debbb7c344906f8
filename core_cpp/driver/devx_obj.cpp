// SPDX-License-Identifier: GPL-2.0
#include "driver/devx_obj.h"

#include "driver/dct.h"
#include "prm/cmd.h"
#include "prm/cq.h"
#include "prm/dct.h"
#include "prm/gen_obj.h"
#include "prm/pd.h"
#include "prm/q_counter.h"
#include "prm/qp.h"
#include "prm/rmp.h"

namespace scx::driver::devx {

namespace {

namespace op = prm::op;

// Where a number sits in a command or its output (at most 32 bits, never
// across a dword: every PRM id field is so).
struct loc {
	u32 bit_off;
	u32 bits;
};
template <u32 O, u32 B> constexpr loc at(prm::field<O, B>) { return {O, B}; }

u32 read_loc(const u8 *p, loc l)
{
	u32 dw = load_be<u32>(p + l.bit_off / 32 * 4);
	u32 shift = 32 - l.bits - l.bit_off % 32;
	return l.bits == 32 ? dw : (dw >> shift) & ((1u << l.bits) - 1);
}

void write_loc(u8 *p, loc l, u32 v)
{
	u8 *d = p + l.bit_off / 32 * 4;
	u32 shift = 32 - l.bits - l.bit_off % 32;
	u32 mask = l.bits == 32 ? ~0u : ((1u << l.bits) - 1) << shift;
	store_be<u32>(d, (load_be<u32>(d) & ~mask) | ((v << shift) & mask));
}

// What DEVX_OBJ_CREATE may make, and how each is destroyed. Others of
// mlx5_ib's list either carry memory that cannot be put in a umem here
// (SRQ, mkey) or are objects softcx does not have (SQ, RQ, ...). A DCT is ended as
// mlx5_core ends one, drained first (obj_destroy). A general object is
// told apart by its obj_type (0 for the others).
struct kind {
	u16 create, destroy;
	loc out_id, destroy_id;
	u16 obj_type = 0;
};
constexpr kind kinds[] = {
	{op::create_general_object, op::destroy_general_object, at(prm::general_obj_out_cmd_hdr::obj_id),
	 at(prm::general_obj_in_cmd_hdr::obj_id), prm::obj_type::reserved_qpn},
	{op::create_cq, op::destroy_cq, at(prm::create_cq_out::cqn), at(prm::destroy_cq_in::cqn)},
	{op::create_qp, op::destroy_qp, at(prm::create_qp_out::qpn), at(prm::destroy_qp_in::qpn)},
	{op::create_dct, op::destroy_dct, at(prm::create_dct_out::dctn), at(prm::destroy_dct_in::dctn)},
	{op::create_rmp, op::destroy_rmp, at(prm::create_rmp_out::rmpn), at(prm::destroy_rmp_in::rmpn)},
	{op::alloc_pd, op::dealloc_pd, at(prm::alloc_pd_out::pd), at(prm::dealloc_pd_in::pd)},
	{op::alloc_transport_domain, op::dealloc_transport_domain,
	 at(prm::alloc_transport_domain_out::transport_domain),
	 at(prm::dealloc_transport_domain_in::transport_domain)},
	{op::alloc_q_counter, op::dealloc_q_counter, at(prm::alloc_q_counter_out::counter_set_id),
	 at(prm::dealloc_q_counter_in::counter_set_id)},
};

// What DEVX_OBJ_MODIFY and _QUERY may send, and the object each names.
struct use {
	u16 opcode;
	obj_method method;
	u16 create;
	loc id;
	u16 obj_type = 0;
};
// Every QP command names its QP at the same place.
constexpr loc qpn_at = at(prm::query_qp_in::qpn);
constexpr use uses[] = {
	{op::modify_cq, obj_method::modify, op::create_cq, at(prm::modify_cq_in::cqn)},
	{op::rst2init_qp, obj_method::modify, op::create_qp, qpn_at},
	{op::init2init_qp, obj_method::modify, op::create_qp, qpn_at},
	{op::init2rtr_qp, obj_method::modify, op::create_qp, qpn_at},
	{op::rtr2rts_qp, obj_method::modify, op::create_qp, qpn_at},
	{op::rts2rts_qp, obj_method::modify, op::create_qp, qpn_at},
	{op::sqerr2rts_qp, obj_method::modify, op::create_qp, qpn_at},
	{op::qp_2err, obj_method::modify, op::create_qp, qpn_at},
	{op::qp_2rst, obj_method::modify, op::create_qp, qpn_at},
	{op::drain_dct, obj_method::modify, op::create_dct, at(prm::drain_dct_in::dctn)},
	{op::arm_dct_for_key_violation, obj_method::modify, op::create_dct, at(prm::arm_dct_in::dct_number)},
	{op::modify_rmp, obj_method::modify, op::create_rmp, at(prm::modify_rmp_in::rmpn)},
	{op::query_cq, obj_method::query, op::create_cq, at(prm::query_cq_in::cqn)},
	{op::query_rmp, obj_method::query, op::create_rmp, at(prm::query_rmp_in::rmpn)},
	{op::query_dct, obj_method::query, op::create_dct, at(prm::query_dct_in::dctn)},
	{op::query_qp, obj_method::query, op::create_qp, qpn_at},
	{op::query_q_counter, obj_method::query, op::alloc_q_counter, at(prm::query_q_counter_in::counter_set_id)},
	{op::query_general_object, obj_method::query, op::create_general_object,
	 at(prm::general_obj_in_cmd_hdr::obj_id), prm::obj_type::reserved_qpn},
};

u16 opcode_of(const u8 *in) { return u16(prm::get(in, prm::mbox_in::opcode)); }

// A general object command's obj_type, 0 for any other command.
u16 obj_type_of(const u8 *in, u32 inlen)
{
	u16 opcode = opcode_of(in);
	bool general = opcode >= op::create_general_object && opcode <= op::destroy_general_object;
	return general && inlen >= prm::general_obj_in_cmd_hdr::size_bytes
		       ? u16(prm::get(in, prm::general_obj_in_cmd_hdr::obj_type))
		       : 0;
}

// mlx5_ib's name of an object made by create (with obj_type) as number id.
u64 name_of(u16 create, u16 obj_type, u32 id) { return obj_name(u32(obj_type) << 16 | create, id); }

const kind *kind_of(const u8 *in, u32 inlen)
{
	u16 opcode = opcode_of(in), type = obj_type_of(in, inlen);
	for (const kind &k : kinds)
		if (k.create == opcode && k.obj_type == type)
			return &k;
	return nullptr;
}

const use *use_of(const u8 *in, u32 inlen)
{
	u16 opcode = opcode_of(in), type = obj_type_of(in, inlen);
	for (const use &u : uses)
		if (u.opcode == opcode && u.obj_type == type)
			return &u;
	return nullptr;
}

template <u32 O, u32 B> bool set_in(u8 *in, u32 inlen, prm::field<O, B> f)
{
	if ((O + B + 7) / 8 > inlen)
		return false;
	prm::set(in, f, 1);
	return true;
}

// The memory of a CQ, QP or RMP comes from the context's umems only (as
// mlx5_ib forces it): a user's bus address would reach memory the user
// did not register. false: the command is too short to say so.
bool force_umem(u16 opcode, u8 *in, u32 inlen)
{
	switch (opcode) {
	case op::create_cq:
		return set_in(in, inlen, prm::create_cq_in::cq_umem_valid) &&
		       set_in(prm::at(in, prm::create_cq_in::cq_context), prm::cqc::size_bytes, prm::cqc::dbr_umem_valid);
	case op::modify_cq:
		return set_in(in, inlen, prm::modify_cq_in::cq_umem_valid);
	case op::create_qp:
		return set_in(in, inlen, prm::create_qp_in::wq_umem_valid) &&
		       set_in(prm::at(in, prm::create_qp_in::qpc), prm::qpc::size_bytes, prm::qpc::dbr_umem_valid);
	case op::create_rmp: {
		if (inlen < prm::create_rmp_in::size_bytes)
			return false;
		u8 *wq = prm::at(prm::at(in, prm::create_rmp_in::ctx), prm::rmpc::wq);
		prm::set(wq, prm::wq::wq_umem_valid, 1);
		prm::set(wq, prm::wq::dbr_umem_valid, 1);
		return true;
	}
	default:
		return true;
	}
}

// Objects a ConnectX makes through DEVX_OBJ that softcx does not offer
// there: EOPNOTSUPP, as from a device without them (libmlx5's callers,
// mlx5dv_create_mkey's and rdma-core's tests, take that as absent); any
// other command is EINVAL.
bool lacked_create(u16 opcode)
{
	switch (opcode) {
	case op::create_mkey:
	case op::create_eq:
	case op::create_psv:
	case op::create_srq:
	case op::create_xrc_srq:
	case op::create_xrq:
	case op::create_scheduling_element:
	case op::alloc_xrcd:
	case op::create_tir:
	case op::create_sq:
	case op::create_rq:
	case op::create_tis:
	case op::create_rqt:
	case op::create_flow_table:
	case op::create_flow_group:
	case op::alloc_flow_counter:
	case op::alloc_packet_reformat_context:
	case op::alloc_modify_header_context:
	case op::create_general_object:
		return true;
	default:
		return false;
	}
}

// The name of the object a modify or query command names (0: none it may).
u64 named_obj(const u8 *in, u32 inlen, obj_method m)
{
	const use *u = use_of(in, inlen);
	return u && u->method == m ? name_of(u->create, u->obj_type, read_loc(in, u->id)) : 0;
}

} // namespace

status obj_create(device &dev, u16 uid, u8 *in, u32 inlen, u8 *out, u32 outlen, u64 *name,
		  obj_destroy_cmd *destroy)
{
	if (!uid || inlen < prm::mbox_in::size_bytes || outlen < prm::mbox_out::size_bytes)
		return errc::inval;
	u16 opcode = opcode_of(in);
	const kind *k = kind_of(in, inlen);
	if (!k)
		return lacked_create(opcode) ? errc::notsupp : errc::inval;
	if (!force_umem(opcode, in, inlen))
		return errc::inval;
	prm::set(in, prm::mbox_in::uid, uid);
	SCX_TRY(dev.cmd().exec(in, inlen, out, outlen, cmd_if::f_quiet));
	u32 id = read_loc(out, k->out_id);
	*name = name_of(k->create, k->obj_type, id);
	*destroy = obj_destroy_cmd{};
	prm::set(destroy->in, prm::mbox_in::opcode, k->destroy);
	prm::set(destroy->in, prm::mbox_in::uid, uid);
	if (k->obj_type)
		prm::set(destroy->in, prm::general_obj_in_cmd_hdr::obj_type, k->obj_type);
	write_loc(destroy->in, k->destroy_id, id);
	return status::ok();
}

status obj_use(device &dev, u16 uid, obj_method m, u64 name, u8 *in, u32 inlen, u8 *out, u32 outlen)
{
	if (!uid || m == obj_method::create || inlen < prm::mbox_in::size_bytes ||
	    outlen < prm::mbox_out::size_bytes)
		return errc::inval;
	u16 opcode = opcode_of(in);
	if (named_obj(in, inlen, m) != name || !force_umem(opcode, in, inlen))
		return errc::inval;
	prm::set(in, prm::mbox_in::uid, uid);
	return dev.cmd().exec(in, inlen, out, outlen, cmd_if::f_quiet);
}

status obj_destroy(device &dev, const obj_destroy_cmd &d)
{
	// A DCT may still have requests in flight: DRAIN_DCT and its event
	// first, bounded (dct.h).
	if (opcode_of(d.in) == op::destroy_dct)
		return end_dct(dev, u32(prm::get(d.in, prm::destroy_dct_in::dctn)),
			       u16(prm::get(d.in, prm::destroy_dct_in::uid)));
	u8 out[prm::mbox_out::size_bytes] = {};
	return dev.cmd().exec(d.in, sizeof(d.in), out, sizeof(out), cmd_if::f_quiet);
}

} // namespace scx::driver::devx
