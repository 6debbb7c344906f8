// SPDX-License-Identifier: GPL-2.0
// The DevX user interface's rules for commands from user space (the role
// of mlx5_ib's devx.c): which commands DEVX_OTHER may carry, which uid each
// runs under, and the comp EQ behind a user's vector. The hca enforces
// what a uid may name (hca/uctx.h); the driver decides the uid, and user
// space never does: it is stamped over whatever the caller put there.
#pragma once

#include "driver/device.h"

namespace scx::driver::devx {

// Commands a DevX context may send through DEVX_OTHER: the general range
// [0xb00, 0xd00) and mlx5_ib's list of queries (plus NOP).
bool general_cmd(u16 opcode);
// The few queries even a context without DevX may send; they run under
// the device's whitelist uid.
bool whitelisted(u16 opcode);

// The uid a DEVX_OTHER command of a context runs under. ctx_uid: the
// context's own (0: not a DevX context); whitelist_uid: the device's (0:
// none). EOPNOTSUPP for a whitelisted query with neither; EINVAL for any
// other command from a context without DevX.
result<u16> uid_for(u16 opcode, u16 ctx_uid, u16 whitelist_uid);

// DEVX_OTHER: checks the command (inlen >= 16), stamps the uid into its
// header and runs it. A firmware status comes back as EREMOTEIO with out
// filled (status, syndrome) for the caller to copy to user space.
status general(device &dev, u16 ctx_uid, u16 whitelist_uid, u8 *in, u32 inlen, u8 *out, u32 outlen);

// QUERY_EQN: the EQ number of completion vector `vector`; ENOENT past the
// last one.
result<u32> query_eqn(device &dev, u32 vector);

// CREATE_UMEM for uid over pages of 1 << page_shift bytes (MTTs with
// rd_en, and wr_en if writable); the umem id. DESTROY_UMEM.
result<u32> create_umem(device &dev, u16 uid, u32 page_shift, u32 page_offset, const u64 *pages, u32 npages,
			bool writable);
status destroy_umem(device &dev, u16 uid, u32 id);

} // namespace scx::driver::devx
