// SPDX-License-Identifier: GPL-2.0
#include "hca/ib_hdr.h"

namespace scx::hca {
namespace {

namespace k = ib_kind;
namespace x = ib_ext;
namespace op = wire::bth_op;
namespace tr = wire::bth_transport;

constexpr u16 req_send = k::request | k::send | k::payload;
constexpr u16 req_write = k::request | k::write | k::payload;
constexpr u16 resp_read = k::response | k::read | k::payload;
constexpr u16 only = k::first | k::last;

// RC's operations by their low five bits (IBTA table 38); UC has the
// SEND and WRITE ones, UD SEND_ONLY and SEND_ONLY_IMM with a DETH.
constexpr ib_op_info rc_info(u8 low)
{
	switch (low) {
	case op::send_first: return {0, req_send | k::first};
	case op::send_middle: return {0, req_send};
	case op::send_last: return {0, req_send | k::last};
	case op::send_last_imm: return {x::immdt, req_send | k::last};
	case op::send_only: return {0, req_send | only};
	case op::send_only_imm: return {x::immdt, req_send | only};
	case op::write_first: return {x::reth, req_write | k::first};
	case op::write_middle: return {0, req_write};
	case op::write_last: return {0, req_write | k::last};
	case op::write_last_imm: return {x::immdt, req_write | k::last};
	case op::write_only: return {x::reth, req_write | only};
	case op::write_only_imm: return {x::reth | x::immdt, req_write | only};
	case op::read_request: return {x::reth, k::request | k::read | only};
	case op::read_resp_first: return {x::aeth, resp_read | k::first};
	case op::read_resp_middle: return {0, resp_read};
	case op::read_resp_last: return {x::aeth, resp_read | k::last};
	case op::read_resp_only: return {x::aeth, resp_read | only};
	case op::ack: return {x::aeth, k::response | k::ack | only};
	case op::atomic_ack: return {x::aeth | x::atomic_ack_eth, k::response | k::atomic | only};
	case op::cmp_swap: return {x::atomic_eth, k::request | k::atomic | only};
	case op::fetch_add: return {x::atomic_eth, k::request | k::atomic | only};
	case op::send_last_inv: return {x::ieth, req_send | k::last};
	case op::send_only_inv: return {x::ieth, req_send | only};
	}
	return {0, 0};
}

struct rc_table {
	ib_op_info op[32];
	constexpr rc_table() : op{}
	{
		for (u8 i = 0; i < 32; i++)
			op[i] = rc_info(i);
	}
};
constexpr rc_table rc_ops{};
// DC requests: RC's requests, a DCETH first.
struct dc_table {
	ib_op_info op[32];
	constexpr dc_table() : op{}
	{
		for (u8 i = 0; i < 32; i++) {
			ib_op_info r = rc_info(i);
			if (r.kind & k::request)
				op[i] = {u8(r.ext | x::dceth), r.kind};
		}
	}
};
constexpr dc_table dc_ops{};
constexpr ib_op_info ud_send_only = {x::deth, req_send | only};
constexpr ib_op_info ud_send_only_imm = {x::deth | x::immdt, req_send | only};

// Each extended header in wire order, with its size.
constexpr struct {
	u8 bit;
	u8 size;
} ext_order[] = {
	{x::dceth, wire::dceth::size_bytes},
	{x::deth, wire::deth::size_bytes},
	{x::reth, wire::reth::size_bytes},
	{x::atomic_eth, wire::atomic_eth::size_bytes},
	{x::aeth, wire::aeth::size_bytes},
	{x::atomic_ack_eth, wire::atomic_ack_eth::size_bytes},
	{x::immdt, wire::immdt::size_bytes},
	{x::ieth, wire::ieth::size_bytes},
};

void put_ext(u8 *p, u8 bit, const ib_hdr &h)
{
	switch (bit) {
	case x::dceth:
		prm::set(p, wire::dceth::dc_key, h.dc_key);
		prm::set(p, wire::dceth::connect, h.dc_connect);
		prm::set(p, wire::dceth::dci_qp, h.dci_qp);
		break;
	case x::deth:
		prm::set(p, wire::deth::qkey, h.qkey);
		prm::set(p, wire::deth::src_qp, h.src_qp);
		break;
	case x::reth:
		prm::set(p, wire::reth::va, h.va);
		prm::set(p, wire::reth::rkey, h.rkey);
		prm::set(p, wire::reth::dma_len, h.dma_len);
		break;
	case x::atomic_eth:
		prm::set(p, wire::atomic_eth::va, h.va);
		prm::set(p, wire::atomic_eth::rkey, h.rkey);
		prm::set(p, wire::atomic_eth::swap_add, h.swap_add);
		prm::set(p, wire::atomic_eth::compare, h.compare);
		break;
	case x::aeth:
		prm::set(p, wire::aeth::syndrome, h.syndrome);
		prm::set(p, wire::aeth::msn, h.msn);
		break;
	case x::atomic_ack_eth:
		prm::set(p, wire::atomic_ack_eth::orig, h.orig);
		break;
	case x::immdt:
		prm::set(p, wire::immdt::imm, h.imm);
		break;
	case x::ieth:
		prm::set(p, wire::ieth::rkey, h.inv_rkey);
		break;
	}
}

void get_ext(const u8 *p, u8 bit, ib_hdr *h)
{
	switch (bit) {
	case x::dceth:
		h->dc_key = prm::get(p, wire::dceth::dc_key);
		h->dc_connect = prm::get(p, wire::dceth::connect);
		h->dci_qp = prm::get(p, wire::dceth::dci_qp);
		break;
	case x::deth:
		h->qkey = prm::get(p, wire::deth::qkey);
		h->src_qp = prm::get(p, wire::deth::src_qp);
		break;
	case x::reth:
		h->va = prm::get(p, wire::reth::va);
		h->rkey = prm::get(p, wire::reth::rkey);
		h->dma_len = prm::get(p, wire::reth::dma_len);
		break;
	case x::atomic_eth:
		h->va = prm::get(p, wire::atomic_eth::va);
		h->rkey = prm::get(p, wire::atomic_eth::rkey);
		h->swap_add = prm::get(p, wire::atomic_eth::swap_add);
		h->compare = prm::get(p, wire::atomic_eth::compare);
		break;
	case x::aeth:
		h->syndrome = u8(prm::get(p, wire::aeth::syndrome));
		h->msn = prm::get(p, wire::aeth::msn);
		break;
	case x::atomic_ack_eth:
		h->orig = prm::get(p, wire::atomic_ack_eth::orig);
		break;
	case x::immdt:
		h->imm = prm::get(p, wire::immdt::imm);
		break;
	case x::ieth:
		h->inv_rkey = prm::get(p, wire::ieth::rkey);
		break;
	}
}

} // namespace

const ib_op_info *ib_op_lookup(u8 opcode)
{
	u8 low = opcode & op::mask;
	switch (opcode & tr::mask) {
	case tr::rc:
		return rc_ops.op[low].kind ? &rc_ops.op[low] : nullptr;
	case tr::uc:
		return low <= op::write_only_imm ? &rc_ops.op[low] : nullptr;
	case tr::ud:
		if (low == op::send_only)
			return &ud_send_only;
		return low == op::send_only_imm ? &ud_send_only_imm : nullptr;
	case tr::dc:
		return dc_ops.op[low].kind ? &dc_ops.op[low] : nullptr;
	}
	return nullptr;
}

u32 ib_hdr_len(const ib_op_info &info)
{
	u32 n = wire::bth::size_bytes;
	for (const auto &e : ext_order)
		if (info.ext & e.bit)
			n += e.size;
	return n;
}

u32 ib_hdr_build(u8 *buf, const ib_hdr &h)
{
	const ib_op_info *info = ib_op_lookup(h.opcode);
	if (!info)
		return 0;
	zero_bytes(buf, wire::bth::size_bytes);
	prm::set(buf, wire::bth::opcode, h.opcode);
	prm::set(buf, wire::bth::se, h.se);
	prm::set(buf, wire::bth::mig_req, h.mig_req);
	prm::set(buf, wire::bth::pad_cnt, h.pad);
	prm::set(buf, wire::bth::pkey, h.pkey);
	prm::set(buf, wire::bth::dest_qp, h.dest_qp);
	prm::set(buf, wire::bth::ack_req, h.ack_req);
	prm::set(buf, wire::bth::psn, h.psn);
	u32 n = wire::bth::size_bytes;
	for (const auto &e : ext_order) {
		if (!(info->ext & e.bit))
			continue;
		zero_bytes(buf + n, e.size);
		put_ext(buf + n, e.bit, h);
		n += e.size;
	}
	return n;
}

ib_malformed ib_hdr_parse(const u8 *p, u32 len, ib_hdr *h, ib_layout *l)
{
	if (len < wire::bth::size_bytes + wire::roce::icrc_bytes)
		return ib_malformed::short_hdr;
	*h = ib_hdr{};
	h->opcode = u8(prm::get(p, wire::bth::opcode));
	const ib_op_info *info = ib_op_lookup(h->opcode);
	if (!info)
		return ib_malformed::bad_opcode;
	if (prm::get(p, wire::bth::tver) != 0)
		return ib_malformed::bad_tver;
	h->se = prm::get(p, wire::bth::se);
	h->mig_req = prm::get(p, wire::bth::mig_req);
	h->pad = u8(prm::get(p, wire::bth::pad_cnt));
	h->pkey = u16(prm::get(p, wire::bth::pkey));
	h->dest_qp = prm::get(p, wire::bth::dest_qp);
	h->ack_req = prm::get(p, wire::bth::ack_req);
	h->psn = prm::get(p, wire::bth::psn);
	u32 hl = ib_hdr_len(*info);
	if (len < hl + h->pad + wire::roce::icrc_bytes)
		return ib_malformed::short_hdr;
	u32 n = wire::bth::size_bytes;
	for (const auto &e : ext_order) {
		if (!(info->ext & e.bit))
			continue;
		get_ext(p + n, e.bit, h);
		n += e.size;
	}
	u32 pl = len - hl - h->pad - wire::roce::icrc_bytes;
	if (!(info->kind & ib_kind::payload) && (pl || h->pad))
		return ib_malformed::bad_pad;
	l->op = info;
	l->hdr_len = hl;
	l->payload_len = pl;
	return ib_malformed::none;
}

} // namespace scx::hca
