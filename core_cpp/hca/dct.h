// SPDX-License-Identifier: GPL-2.0
// DC targets on the device side: CREATE_DCT, QUERY_DCT, DRAIN_DCT (then the
// DCT_DRAINED event), DESTROY_DCT and ARM_DCT_FOR_KEY_VIOLATION. A DCT is
// addressed as a QP is, so its number comes from the QPN space
// (qp_table::hold_number) and no QP can take it. It receives into an SRQ
// and completes on one CQ, for whichever DC initiator presents its number
// and its dc_access_key. Its dct_contexts responder contexts, made with it,
// are QPs no command names (qp_dct_ctx.cpp); the data path hands them to
// initiators (dp_dc.cpp).
//
// What CREATE_DCT takes from the dctc: pd, cqn, srqn_xrqn (an SRQ), rre,
// rwe, rae, atomic_mode, min_rnr_nak, mtu (256..4096 and within the
// port's), port (1), pkey_index, my_addr_index (a GID table index),
// hop_limit, tclass, flow_label, dscp, eth_prio, cs_res, counter_set_id,
// user_index and dc_access_key; state, the violation count and ece are
// the device's.
#pragma once

#include "hca/caps.h"
#include "hca/cmd_ctx.h"
#include "hca/cq.h"
#include "hca/eq.h"
#include "hca/fw_pages.h"
#include "hca/objects.h"
#include "hca/qp.h"
#include "hca/srq.h"
#include "hca/vport.h"
#include "lib/sync.h"

namespace scx::hca {

// Responder contexts per DCT: initiators it serves at once (dp_dc.cpp).
constexpr u32 dct_contexts = 8;

// What the data path works with, decoded from the dctc.
struct dct_runtime {
	u32 dctn;
	u32 pd;
	u32 cqn;
	u32 srqn;
	u32 user_index;
	u64 dc_key;
	u8 state;           // prm::dctc_state
	u8 access;          // qp_access bits
	u8 atomic_mode;
	u8 min_rnr_nak;
	u8 mtu;             // prm::qpc_mtu
	u8 my_addr_index;
	u8 hop_limit;
	u8 tclass;
	u8 dscp;
	u8 eth_prio;
	u8 cs_res;
	u8 counter_set_id;
	u16 pkey_index;
	u16 uid;            // its creator's user context (uctx.h)
	u32 flow_label;
	u32 key_violations; // initiators refused for a wrong dc_access_key
	u8 key_armed;       // the next violation raises DCT_KEY_VIOLATION
	u32 ctx_qpn[dct_contexts]; // its responder contexts (qp_table's)
};

struct dct_ctx {
	u32 slot;
	dct_runtime rt;
	u8 dctc[64];        // the context as created (QUERY_DCT's base)
};
static_assert(sizeof(dct_ctx) <= fw_pages::slot_size);

struct dct_deps {
	fw_pages *pages;
	id_pool *pds;
	id_pool *q_counters;
	cq_engine *cqs;
	srq_table *srqs;
	qp_table *qps;      // the QPN space DCT numbers come from
	eq_engine *eqs;
	const caps *cap;
	const vport *port;
};

class dct_table {
public:
	dct_table() = default;
	dct_table(const dct_table &) = delete;
	dct_table &operator=(const dct_table &) = delete;

	status init(const dct_deps &d, u32 first, u32 count);

	void create(cmd_ctx &c);
	void destroy(cmd_ctx &c);
	void drain(cmd_ctx &c);
	void query(cmd_ctx &c);
	void arm(cmd_ctx &c);
	// Destroy every DCT (TEARDOWN_HCA).
	void reset();

	bool any_owned_by(u16 uid);
	u32 count() const { return live_; }

	// For the data path under its lock (see qp_table::dp_get).
	dct_runtime *dp_get(u32 dctn)
	{
		dct_ctx *t = table_.get(dctn);
		return t ? &t->rt : nullptr;
	}

private:
	bool check(cmd_ctx &c, const u8 *dctc);
	bool attach(cmd_ctx &c, const u8 *dctc);
	void detach(const dct_runtime &rt);
	void decode(dct_runtime &rt, const u8 *dctc, u16 uid);
	bool create_contexts(dct_runtime &rt);
	void destroy_contexts(dct_runtime &rt);
	void free_dct(dct_ctx *t);
	void drained(u32 dctn);
	dct_ctx *named(cmd_ctx &c, u32 dctn);

	dct_deps d_{};
	u32 live_ = 0;
	spinlock lock_;
	obj_table<dct_ctx> table_;
};

} // namespace scx::hca
