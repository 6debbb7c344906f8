// SPDX-License-Identifier: GPL-2.0
// Queue counter sets, as ConnectX firmware keeps them: set 0 is the
// function's own, sets 1.. come from ALLOC_Q_COUNTER, and a QP counts into
// the set its context names (counter_set_id). Requester events count in
// the requester QP's set, responder events in the responder's. The data
// path adds (a peer port's data path into its own device's sets);
// QUERY_Q_COUNTER reads, and clears on request. Each counter is the PRM's
// 32 bits and wraps as they do.
#pragma once

#include "hca/caps.h"
#include "lib/atomic.h"
#include "prm/q_counter.h"

namespace scx::hca {

// One per counter of query_q_counter_out, by the names mlx5 gives them.
enum class qc : u8 {
#define SCX_QC_ENUM(name) name,
	SCX_Q_COUNTER_FIELDS(SCX_QC_ENUM)
#undef SCX_QC_ENUM
	count
};

class q_counter_sets {
public:
	static constexpr u32 sets = hca_limits::max_q_counters;

	// From any context, never blocking; an id past the table counts nowhere.
	void add(u32 set, qc c, u32 n = 1)
	{
		if (set < sets)
			v_[set][u32(c)].fetch_add(n, mo::relaxed);
	}
	u32 get(u32 set, qc c) const { return set < sets ? v_[set][u32(c)].load(mo::relaxed) : 0; }
	// A set handed out anew starts from zero.
	void reset(u32 set);
	// Fills a query_q_counter_out; clear: each counter read is taken
	// away, so an event counted meanwhile is not lost.
	void query(u32 set, u8 *out, bool clear);

private:
	atomic<u32> v_[sets][u32(qc::count)];
};

// The counters an error CQE adds to, by its syndrome (prm::cqe_syndrome)
// and side: the CQE counter itself and, for some syndromes, a cause.
void count_error_cqe(q_counter_sets &s, u32 set, bool requester, u8 syndrome);

} // namespace scx::hca
