// SPDX-License-Identifier: GPL-2.0
// What the driver says about a command: opcode and status names for its log
// lines, and how delivery and command status become errno values (the same
// choices as mlx5_core, so callers above see what they would see on a real
// ConnectX).
#pragma once

#include "lib/status.h"

namespace scx::driver {

// Errnos the core's errc does not name; Linux numbering, as everywhere.
constexpr errc errc_badr = static_cast<errc>(53);   // EBADR: signature/token error
constexpr errc errc_nomsg = static_cast<errc>(42);  // ENOMSG: malformed descriptor

const char *opcode_name(u16 opcode);
const char *cmd_status_name(u8 status);
const char *delivery_status_name(u8 status);

// mbox_out.status -> errno (ok for status 0).
errc cmd_status_to_errc(u8 status);
// cmd_queue_entry.status -> errno (ok for delivery ok).
errc delivery_status_to_errc(u8 status);

// Per-opcode statistics live in a dense table: a row per named opcode and
// a last one shared by all others.
constexpr u32 stat_opcodes = 90;
u32 opcode_stat_index(u16 opcode);
// The opcode behind a statistics row; 0xffff for the shared last row.
u16 stat_index_opcode(u32 index);

} // namespace scx::driver
