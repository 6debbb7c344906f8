// SPDX-License-Identifier: GPL-2.0
// The QP context image (qpc_image.cpp): transitions, the merge of a
// MODIFY_QP's context, and what the runtime reads back from the image.
#pragma once

#include "hca/qp.h"
#include "prm/qp.h"

namespace scx::hca {

// Any state: the transition starts from wherever the QP is.
constexpr u8 any_state = 0xff;

// One PRM transition: the state it needs, the state it leaves, and the
// optional parameters it takes per service type (RC, UC, UD): mlx5_ib's
// opt_mask table without the alternate path.
struct transition {
	u16 opcode;
	u8 from;
	u8 to;
	bool has_qpc;
	u32 allowed[4];
};

// The transition of a MODIFY_QP opcode, or null.
const transition *find_transition(u16 opcode);
// transition::allowed's index for a service type (RC, UC, UD, DCI).
u32 st_index(u8 st);
// What the transition t takes from qpc into img for service type st,
// the optional parameters in mask included.
void merge(u8 *img, const u8 *qpc, const transition &t, u8 st, u32 mask);
// The transport fields of img, as RESET leaves them.
void clear_transport(u8 *img);
// The runtime fields rt keeps of img.
void decode(qp_runtime &rt, const u8 *img);
// The transport's attributes from rt, after a move from state `from`.
void sync_transport(qp_runtime &rt, u8 from);

} // namespace scx::hca
