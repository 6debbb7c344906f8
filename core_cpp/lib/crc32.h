// SPDX-License-Identifier: GPL-2.0
// CRC-32 as Ethernet, zlib and the RoCE ICRC use it: the reflected
// polynomial 0xedb88320. crc32_update carries a running value with neither
// the initial nor the final inversion, so a caller can split its input;
// crc32(data) is the usual whole-buffer form (~0 in, ~ out).
#pragma once

#include "lib/types.h"

namespace scx {

u32 crc32_update(u32 crc, const void *data, usize len);
inline u32 crc32(const void *data, usize len) { return ~crc32_update(~0u, data, len); }

} // namespace scx
