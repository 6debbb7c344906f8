// SPDX-License-Identifier: GPL-2.0
// Queue pairs, SRQs and the objects they name, made by raw commands
// (test_hca_qp.cpp, test_hca_uctx.cpp, test_hca_gen_obj.cpp). Every command goes out with the
// uid in cmd_uid() stamped into its header: 0, the driver, unless a test
// acts for a user context (as_uid).
#pragma once

#include <functional>

#include "hca_harness.h"
#include "prm/cq.h"
#include "prm/pd.h"
#include "prm/qp.h"
#include "prm/srq.h"
#include "prm/uctx.h"

namespace hca_test {

using namespace scx;
namespace q = prm::qpc;

inline u16 &cmd_uid()
{
	static u16 uid = 0;
	return uid;
}

// Commands in its scope carry uid (mbox_in::uid), as the driver stamps
// them for a DevX context.
struct as_uid {
	explicit as_uid(u16 uid) : prev_(cmd_uid()) { cmd_uid() = uid; }
	~as_uid() { cmd_uid() = prev_; }
	as_uid(const as_uid &) = delete;
	as_uid &operator=(const as_uid &) = delete;

private:
	u16 prev_;
};

inline u8 run(hca_rig &rig, const std::vector<u8> &in, u32 outlen = 16, u32 *s = nullptr,
	      std::vector<u8> *out = nullptr)
{
	if (!cmd_uid())
		return status_of(rig.poster, in, outlen, out, s);
	std::vector<u8> c = in;
	prm::set(c.data(), prm::mbox_in::uid, cmd_uid());
	return status_of(rig.poster, c, outlen, out, s);
}

struct qp_rig : hca_rig {
	explicit qp_rig(const hca::device_config &cfg = {}) : hca_rig(cfg) {}
	u32 uar = 0, pd = 0;
	test_eq eq;
	u32 cq[2] = {};

	u32 make_cq()
	{
		namespace in = prm::create_cq_in;
		dma_mem ring = poster.arena().alloc(4096), dbr = poster.arena().alloc(64);
		auto c = cmd_in(prm::op::create_cq, in::size_bytes + 8);
		u8 *cqc = prm::at(c.data(), in::cq_context);
		prm::set(cqc, prm::cqc::log_cq_size, 4);
		prm::set(cqc, prm::cqc::uar_page, uar);
		prm::set(cqc, prm::cqc::c_eqn_or_apu_element, eq.eqn);
		prm::set(cqc, prm::cqc::dbr_addr, dbr.bus);
		store_be<u64>(c.data() + in::pas.byte_off, ring.bus);
		std::vector<u8> out;
		if (run(*this, c, prm::create_cq_out::size_bytes, nullptr, &out))
			return ~0u;
		return prm::get(out.data(), prm::create_cq_out::cqn);
	}
	u32 alloc_pd()
	{
		std::vector<u8> out;
		if (run(*this, cmd_in(prm::op::alloc_pd, 16), 16, nullptr, &out))
			return 0;
		return prm::get(out.data(), prm::alloc_pd_out::pd);
	}
	bool ready(bool bring_up = true)
	{
		if (bring_up && !up())
			return false;
		if (!(uar = alloc_uar(poster)) || create_eq(*this, uar, 4, 0, {}, &eq) != 0)
			return false;
		pd = alloc_pd();
		cq[0] = make_cq();
		cq[1] = make_cq();
		return pd && cq[0] != ~0u && cq[1] != ~0u;
	}
};

struct qp_spec {
	u8 st = prm::qpc_st::rc;
	u32 pd = 0, cqn_snd = 0, cqn_rcv = 0, uar = 0;
	bool no_sq = false;
	u32 log_sq = 4;            // 16 WQEBBs: 1 KiB
	u8 rq_type = prm::qp_rq_type::non_zero;
	u32 log_rq = 4;
	u32 log_rq_stride = 2;     // 64-byte RQ WQEs: 1 KiB
	u32 srqn = 0;
	u32 page_offset = 0;
	u32 user_index = 0x123;
	int npas = -1;             // override the list length
	u64 dbr = 0;               // 0: a fresh record
	std::function<void(u8 *in)> tweak;
};

struct test_qp {
	u32 qpn = 0;
	dma_mem buf{}, dbr{};
	u32 npas = 0;
	u64 bytes = 0;
};

inline qp_spec spec_for(qp_rig &rig, u8 st = prm::qpc_st::rc)
{
	qp_spec s;
	s.st = st;
	s.pd = rig.pd;
	s.cqn_snd = rig.cq[0];
	s.cqn_rcv = rig.cq[1];
	s.uar = rig.uar;
	return s;
}

inline u8 create_qp(qp_rig &rig, const qp_spec &s, test_qp *qp, u32 *synd = nullptr)
{
	namespace in = prm::create_qp_in;
	u64 rq = s.rq_type == prm::qp_rq_type::non_zero ? (u64(1) << s.log_rq) << (4 + s.log_rq_stride) : 0;
	u64 sq = s.no_sq ? 0 : u64(64) << s.log_sq;
	qp->bytes = rq + sq;
	u64 off = u64(s.page_offset) * 64;
	u32 npas = qp->bytes ? u32((off + qp->bytes + 4095) / 4096) : 0;
	if (s.npas >= 0)
		npas = u32(s.npas);
	qp->npas = npas;
	if (npas)
		qp->buf = rig.poster.arena().alloc(size_t(npas) * 4096);
	qp->dbr = rig.poster.arena().alloc(64);
	auto c = cmd_in(prm::op::create_qp, u32(in::size_bytes + npas * 8));
	u8 *qpc = prm::at(c.data(), in::qpc);
	prm::set(qpc, q::st, s.st);
	prm::set(qpc, q::pm_state, prm::qpc_pm_state::migrated);
	prm::set(qpc, q::pd, s.pd);
	prm::set(qpc, q::uar_page, s.uar);
	prm::set(qpc, q::user_index, s.user_index);
	prm::set(qpc, q::cqn_snd, s.cqn_snd);
	prm::set(qpc, q::cqn_rcv, s.cqn_rcv);
	prm::set(qpc, q::rq_type, s.rq_type);
	if (s.rq_type == prm::qp_rq_type::non_zero) {
		prm::set(qpc, q::log_rq_size, s.log_rq);
		prm::set(qpc, q::log_rq_stride, s.log_rq_stride);
	}
	prm::set(qpc, q::srqn_rmpn_xrqn, s.srqn);
	prm::set(qpc, q::xrcd, 0x77); // mlx5_ib always sends one; ignored
	if (s.no_sq)
		prm::set(qpc, q::no_sq, 1);
	else
		prm::set(qpc, q::log_sq_size, s.log_sq);
	prm::set(qpc, q::page_offset, s.page_offset);
	prm::set(qpc, q::dbr_addr, s.dbr ? s.dbr : qp->dbr.bus);
	for (u32 i = 0; i < npas; i++)
		store_be<u64>(c.data() + in::pas.byte_off + 8 * i, qp->buf.bus + 4096 * i);
	if (s.tweak)
		s.tweak(c.data());
	std::vector<u8> out;
	u8 r = run(rig, c, prm::create_qp_out::size_bytes, synd, &out);
	if (!r)
		qp->qpn = prm::get(out.data(), prm::create_qp_out::qpn);
	return r;
}

inline u8 destroy_qp(qp_rig &rig, u32 qpn, u32 *synd = nullptr)
{
	auto c = cmd_in(prm::op::destroy_qp, prm::destroy_qp_in::size_bytes);
	prm::set(c.data(), prm::destroy_qp_in::qpn, qpn);
	return run(rig, c, 16, synd);
}


struct test_srq {
	u32 srqn = 0;
	dma_mem buf{}, dbr{};
};

struct srq_spec {
	u32 pd = 0;
	u32 log_size = 6;
	u32 log_stride = 1;   // 32-byte WQEs: 2 KiB
	u32 lwm = 0;
	std::function<void(u8 *in)> tweak;
};

inline u8 create_srq(qp_rig &rig, const srq_spec &s, test_srq *srq, u32 *synd = nullptr)
{
	namespace in = prm::create_srq_in;
	u64 bytes = (u64(1) << s.log_size) << (4 + s.log_stride);
	u32 npas = u32((bytes + 4095) / 4096);
	srq->buf = rig.poster.arena().alloc(size_t(npas) * 4096);
	srq->dbr = rig.poster.arena().alloc(64);
	auto c = cmd_in(prm::op::create_srq, in::size_bytes + npas * 8);
	u8 *ctx = prm::at(c.data(), in::srq_context_entry);
	prm::set(ctx, prm::srqc::log_srq_size, s.log_size);
	prm::set(ctx, prm::srqc::log_rq_stride, s.log_stride);
	prm::set(ctx, prm::srqc::pd, s.pd);
	prm::set(ctx, prm::srqc::lwm, s.lwm);
	prm::set(ctx, prm::srqc::cqn, rig.cq[1]);
	prm::set(ctx, prm::srqc::dbr_addr, srq->dbr.bus);
	for (u32 i = 0; i < npas; i++)
		store_be<u64>(c.data() + in::pas.byte_off + 8 * i, srq->buf.bus + 4096 * i);
	if (s.tweak)
		s.tweak(c.data());
	std::vector<u8> out;
	u8 r = run(rig, c, prm::create_srq_out::size_bytes, synd, &out);
	if (!r)
		srq->srqn = prm::get(out.data(), prm::create_srq_out::srqn);
	return r;
}


inline u8 destroy_cq(qp_rig &rig, u32 cqn, u32 *synd = nullptr)
{
	auto d = cmd_in(prm::op::destroy_cq, prm::destroy_cq_in::size_bytes);
	prm::set(d.data(), prm::destroy_cq_in::cqn, cqn);
	return run(rig, d, 16, synd);
}


inline u8 dealloc_pd(qp_rig &rig, u32 pd, u32 *synd = nullptr)
{
	auto d = cmd_in(prm::op::dealloc_pd, prm::dealloc_pd_in::size_bytes);
	prm::set(d.data(), prm::dealloc_pd_in::pd, pd);
	return run(rig, d, 16, synd);
}

// A user context's uid (0: refused, *s its syndrome).
inline u16 create_uctx(hca_rig &rig, u32 cap = 0, u32 *s = nullptr)
{
	auto c = cmd_in(prm::op::create_uctx, prm::create_uctx_in::size_bytes);
	prm::set(prm::at(c.data(), prm::create_uctx_in::uctx), prm::uctx::cap, cap);
	std::vector<u8> out;
	if (run(rig, c, prm::create_uctx_out::size_bytes, s, &out))
		return 0;
	return u16(prm::get(out.data(), prm::create_uctx_out::uid));
}

inline u8 destroy_uctx(hca_rig &rig, u16 uid, u32 *s = nullptr)
{
	auto c = cmd_in(prm::op::destroy_uctx, prm::destroy_uctx_in::size_bytes);
	prm::set(c.data(), prm::destroy_uctx_in::uid, uid);
	return run(rig, c, 16, s);
}

} // namespace hca_test
