// SPDX-License-Identifier: GPL-2.0
// The responder contexts of DC targets, kept as QPs that no command names:
// the data path finds, schedules and times them by number like any QP, and
// they answer as RC's responder does. Each takes a QPN and a firmware-page
// slot (no context image: no command reads one), and receives into its
// DCT's SRQ, completes on its DCT's CQ, and grants what the DCT grants.
#include "hca/dct.h"
#include "hca/qp.h"
#include "hca/qpc_image.h"
#include "hca/tp.h"
#include "prm/qp.h"

namespace scx::hca {

namespace qs = prm::qpc_state;

void qp_table::prepare_contexts(u32 n)
{
	for (;;) {
		{
			lock_guard g(lock_);
			if (nctx_spares_ >= n)
				return;
		}
		// A responder: no send window of its own, the full read/atomic
		// responder resources.
		tp_qp *t = tp_qp_new(1, 1u << hca_limits::log_max_ra);
		if (!t)
			return; // create_context fails for want of one
		lock_guard g(lock_);
		t->owner = ctx_spares_;
		ctx_spares_ = t;
		nctx_spares_++;
	}
}

namespace {

// The context's runtime as its DCT defines it; the initiator's address
// comes with each connection (dp_dc.cpp).
void context_runtime(qp_runtime &rt, const dct_runtime &t)
{
	zero_bytes(&rt, sizeof(rt));
	rt.dctn = t.dctn;
	rt.st = prm::qpc_st::rc;
	rt.state = qs::rtr;
	rt.rq_type = prm::qp_rq_type::srq;
	rt.pd = t.pd;
	rt.cqn_snd = rt.cqn_rcv = t.cqn;
	rt.srqn = t.srqn;
	rt.user_index = t.user_index;
	rt.uid = t.uid;
	rt.mtu = t.mtu;
	rt.access = t.access;
	rt.atomic_mode = t.atomic_mode;
	rt.min_rnr_nak = t.min_rnr_nak;
	rt.log_rra_max = u8(hca_limits::log_max_ra);
	rt.counter_set_id = t.counter_set_id;
	rt.cs_res = t.cs_res;
	rt.pm_state = prm::qpc_pm_state::migrated;
	qp_path &p = rt.path;
	p.src_addr_index = t.my_addr_index;
	p.hop_limit = t.hop_limit;
	p.tclass = t.tclass;
	p.dscp = t.dscp;
	p.eth_prio = t.eth_prio;
	p.pkey_index = t.pkey_index;
	p.flow_label = t.flow_label;
	p.vhca_port_num = 1;
}

} // namespace

result<u32> qp_table::create_context(const dct_runtime &t)
{
	auto slot = d_.pages->alloc_slot();
	if (!slot)
		return errc::nomem;
	auto *qp = static_cast<qp_ctx *>(d_.pages->slot(*slot));
	qp->slot = *slot;
	qp->image_slot = ~0u;
	qp_runtime &rt = qp->rt;
	context_runtime(rt, t);
	lock_guard g(lock_);
	result<u32> qpn = ctx_spares_ ? table_.insert(qp) : result<u32>(errc::nomem);
	if (!qpn) {
		d_.pages->free_slot(*slot);
		return qpn;
	}
	rt.tp = ctx_spares_;
	ctx_spares_ = static_cast<tp_qp *>(rt.tp->owner);
	nctx_spares_--;
	rt.qpn = *qpn;
	rt.tp->owner = &rt;
	u32 i = *qpn - first_qpn;
	bury(tps_[i]);
	tps_[i] = rt.tp;
	// Its attributes; its responder starts with a connection.
	sync_transport(rt, qs::rtr);
	epoch_++;
	return qpn;
}

void qp_table::destroy_context(u32 qpn)
{
	u32 slot;
	{
		lock_guard g(lock_);
		qp_ctx *q = table_.get(qpn);
		if (!q || !q->rt.dctn)
			return;
		table_.remove(qpn);
		epoch_++;
		const qp_runtime &rt = q->rt;
		if (tps_[qpn - first_qpn] == rt.tp)
			tps_[qpn - first_qpn] = nullptr;
		tp_counters_add(gone_, rt.tp->cnt);
		bury(rt.tp);
		slot = q->slot;
	}
	d_.pages->free_slot(slot);
}

} // namespace scx::hca
