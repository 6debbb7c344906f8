// SPDX-License-Identifier: GPL-2.0
// Fault injection for the command interface, to test a driver's error and
// timeout paths against a device that misbehaves on purpose: delay a
// command, drop it (never complete it), answer it with a chosen PRM status
// and syndrome, or refuse its delivery with a chosen delivery status.
// Each rule matches an opcode (or any_opcode) and fires `count` times.
#pragma once

#include "lib/status.h"
#include "lib/sync.h"

namespace scx::hca {

class fault_hooks {
public:
	static constexpr u16 any_opcode = 0xffff;
	static constexpr u32 max_rules = 8;

	enum class kind : u8 { none, delay, drop, fail, fail_delivery };
	struct action {
		kind k = kind::none;
		u32 delay_ms = 0;
		u8 status = 0;     // PRM status (fail) or delivery status
		u32 syndrome = 0;
	};

	fault_hooks() = default;
	fault_hooks(const fault_hooks &) = delete;
	fault_hooks &operator=(const fault_hooks &) = delete;

	status init() { return lock_.init(lock_class::hca_cmd); }

	status delay(u16 opcode, u32 ms, u32 count = 1) { return add({kind::delay, ms, 0, 0}, opcode, count); }
	status drop(u16 opcode, u32 count = 1) { return add({kind::drop, 0, 0, 0}, opcode, count); }
	// syndrome 0 answers with synd::injected.
	status fail(u16 opcode, u8 prm_status, u32 syndrome = 0, u32 count = 1)
	{
		return add({kind::fail, 0, prm_status, syndrome}, opcode, count);
	}
	status fail_delivery(u16 opcode, u8 delivery_status, u32 count = 1)
	{
		return add({kind::fail_delivery, 0, delivery_status, 0}, opcode, count);
	}
	void clear();

	// The command processor's side: the action for this opcode, consuming
	// one use of the first matching rule.
	action take(u16 opcode);
	u32 dropped() const { return dropped_; }
	void note_drop() { dropped_++; }

private:
	struct rule {
		action a;
		u16 opcode;
		u32 left;
	};
	status add(action a, u16 opcode, u32 count);

	spinlock lock_;
	rule rules_[max_rules] = {};
	u32 dropped_ = 0;
};

} // namespace scx::hca
