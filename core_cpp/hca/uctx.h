// SPDX-License-Identifier: GPL-2.0
// User contexts (DevX): CREATE_UCTX hands out a uid, which the driver then
// stamps into every command it sends for that context. The hca keeps the
// uid of each object's creator and lets a command name only objects it may
// (uid_may_name); DESTROY_UCTX waits for the context's objects to go.
//
// The rule, as mlx5_ib uses uids (firmware's own checks are not public):
//  - uid 0 is the driver: it may send every command and name every object;
//  - a user context (uid U) may create, query, modify and destroy objects,
//    and name in them only objects of uid U or of the shared uid 0xffff
//    (Q counters mlx5_ib allocates for all); EQs (a CQ's c_eqn) are the
//    driver's and any CQ may complete to one, and counter set 0, the
//    function's default, is everyone's;
//  - what sets the function up (ENABLE/INIT_HCA, pages, EQs, caps, the
//    RoCE address table, user contexts themselves) only uid 0 may send.
#pragma once

#include "hca/cmd_ctx.h"
#include "hca/syndrome.h"
#include "lib/status.h"
#include "lib/types.h"
#include "prm/uctx.h"

namespace scx::hca {

// A command of uid cmd may name an object created with uid obj.
constexpr bool uid_may_name(u16 cmd, u16 obj)
{
	return cmd == 0 || obj == cmd || obj == prm::shared_resource_uid;
}

class uctx_table {
public:
	uctx_table() = default;
	uctx_table(const uctx_table &) = delete;
	uctx_table &operator=(const uctx_table &) = delete;
	~uctx_table();

	// uids 1 .. count - 1.
	status init(u32 count);
	// Whether uid may stamp a command: 0, the shared uid, or a live context.
	bool valid_uid(u16 uid) const;
	// Whether only the driver (uid 0) may send this opcode.
	static bool kernel_only(u16 opcode);

	void create(cmd_ctx &c);
	// in_use(uid): some object still carries uid (then DESTROY_UCTX fails).
	template <typename F> void destroy(cmd_ctx &c, F &&in_use)
	{
		u16 uid = 0;
		if (!destroy_check(c, uid))
			return;
		if (in_use(uid))
			return (void)c.fail(prm::cmd_stat::bad_res_state_err, synd::uctx_busy);
		live_[uid] = 0;
	}
	// TEARDOWN_HCA: every context goes.
	void reset();

private:
	bool destroy_check(cmd_ctx &c, u16 &uid);

	u8 *live_ = nullptr;
	u32 count_ = 0;
	u32 cursor_ = 1;
};

} // namespace scx::hca
