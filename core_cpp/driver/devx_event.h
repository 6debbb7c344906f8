// SPDX-License-Identifier: GPL-2.0
// DevX event subscriptions' rules (the role of mlx5_ib's devx event code):
// which event types a subscriber may ask for on which object, and under
// which key the device's EQEs reach subscribers. The kernel glue keeps
// the subscriptions; this says what they mean.
#pragma once

#include "lib/types.h"

namespace scx::driver::devx {

// A subscription's key: the event type above the object's name (the
// name as devx_obj.h gives it: create opcode and number; 0 for an
// unaffiliated event).
constexpr u64 event_key(u8 type, u64 name) { return u64(type) << 48 | name; }

// Whether `type` may be subscribed on the object called `name` (0: none,
// an unaffiliated event): a CQ's completion and CQ error; a QP's
// affiliated events; a DCT's DCT_DRAINED and key violation; unaffiliated,
// the port's state changes.
bool event_valid(u64 name, u16 type);

// The key a subscriber of this EQE (64 bytes) has; 0 if none may have one.
u64 eqe_event_key(const u8 *eqe);

} // namespace scx::driver::devx
