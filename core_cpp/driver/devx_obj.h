// SPDX-License-Identifier: GPL-2.0
// DEVX_OBJ's rules (the role of mlx5_ib's devx.c for DEVX_OBJ_CREATE,
// _MODIFY, _QUERY and _DESTROY): which commands each method may carry, the
// memory of what a user creates forced into its umems (a user never hands
// the device a bus address), the object a modify or query names checked
// against the handle it came with, and the destroy command built when the
// object is created, so that it can be destroyed whatever becomes of the
// process. Objects are named as mlx5_ib names them:
// (create opcode | obj_type << 16) << 32 | id.
#pragma once

#include "driver/device.h"

namespace scx::driver::devx {

enum class obj_method { create, modify, query };

// The name of a verbs object of the same kind (a CQ's: CREATE_CQ, cqn);
// a general object's create code carries its obj_type << 16.
constexpr u64 obj_name(u32 create_code, u32 id) { return u64(create_code) << 32 | id; }

// What destroys an object DEVX_OBJ_CREATE made, uid stamped.
struct obj_destroy_cmd {
	u8 in[16] = {};
};

// DEVX_OBJ_CREATE of a DevX context (uid): checks and stamps the command,
// forces its memory into umems, runs it; on success *name and *destroy
// describe the object. A device status comes back as EREMOTEIO with out
// filled.
status obj_create(device &dev, u16 uid, u8 *in, u32 inlen, u8 *out, u32 outlen, u64 *name,
		  obj_destroy_cmd *destroy);
// DEVX_OBJ_MODIFY / _QUERY on the object called `name` (the handle's).
status obj_use(device &dev, u16 uid, obj_method m, u64 name, u8 *in, u32 inlen, u8 *out, u32 outlen);
status obj_destroy(device &dev, const obj_destroy_cmd &d);

} // namespace scx::driver::devx
