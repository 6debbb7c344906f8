// SPDX-License-Identifier: GPL-2.0
#include "lib/crc32.h"

namespace scx {
namespace {

constexpr u32 poly = 0xedb88320;

// Slicing by four: t[k][b] is the CRC of byte b followed by k zero bytes.
struct crc_tables {
	u32 t[4][256];
	constexpr crc_tables() : t{}
	{
		for (u32 b = 0; b < 256; b++) {
			u32 c = b;
			for (int i = 0; i < 8; i++)
				c = (c >> 1) ^ (c & 1 ? poly : 0);
			t[0][b] = c;
		}
		for (u32 b = 0; b < 256; b++)
			for (int k = 1; k < 4; k++)
				t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
	}
};
constexpr crc_tables tab{};

} // namespace

u32 crc32_update(u32 crc, const void *data, usize len)
{
	const u8 *p = static_cast<const u8 *>(data);
	for (; len >= 4; p += 4, len -= 4) {
		crc ^= u32(p[0]) | u32(p[1]) << 8 | u32(p[2]) << 16 | u32(p[3]) << 24;
		crc = tab.t[3][crc & 0xff] ^ tab.t[2][(crc >> 8) & 0xff] ^ tab.t[1][(crc >> 16) & 0xff] ^
		      tab.t[0][crc >> 24];
	}
	for (; len; p++, len--)
		crc = (crc >> 8) ^ tab.t[0][(crc ^ *p) & 0xff];
	return crc;
}

} // namespace scx
