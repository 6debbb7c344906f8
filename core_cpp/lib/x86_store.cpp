// SPDX-License-Identifier: GPL-2.0
// Decoding the 64-bit store a UAR doorbell traps on (softcx/x86_store.h).
#include "softcx/x86_store.h"

#include "lib/types.h"

namespace {

using namespace scx;

i64 disp32(const u8 *p) { return i32(u32(p[0]) | u32(p[1]) << 8 | u32(p[2]) << 16 | u32(p[3]) << 24); }

} // namespace

extern "C" bool scx_x86_decode_store64(const uint8_t *b, size_t n, const uint64_t regs[16], uint64_t rip,
				       struct scx_x86_store *out)
{
	// REX.W (0x48-0x4f) must come first: a prefix before it (segment,
	// address size, lock) changes what the store means, so it is refused.
	if (n < 3 || (b[0] & 0xf8) != 0x48 || b[1] != 0x89)
		return false;
	const u8 rex = b[0], modrm = b[2];
	const u32 mod = modrm >> 6, rm = modrm & 7;
	if (mod == 3)
		return false; // a register destination: no store
	usize len = 3;
	u64 ea = 0;
	if (rm == 4) { // SIB
		if (n < 4)
			return false;
		const u8 sib = b[3];
		const u32 scale = sib >> 6, index = ((sib >> 3) & 7) | (rex & 2 ? 8 : 0);
		const u32 base = (sib & 7) | (rex & 1 ? 8 : 0);
		len = 4;
		if (index != 4) // rsp as index means none; r12 is a real index
			ea += regs[index] << scale;
		if ((base & 7) == 5 && mod == 0) { // no base: disp32 only
			if (n < len + 4)
				return false;
			ea += u64(disp32(b + len));
			len += 4;
		} else {
			ea += regs[base];
		}
	} else if (rm == 5 && mod == 0) { // RIP-relative, from the next instruction
		if (n < 7)
			return false;
		ea = rip + 7 + u64(disp32(b + 3));
		len = 7;
	} else {
		ea = regs[rm | (rex & 1 ? 8 : 0)];
	}
	if (mod == 1) {
		if (n < len + 1)
			return false;
		ea += u64(i64(int8_t(b[len])));
		len += 1;
	} else if (mod == 2) {
		if (n < len + 4)
			return false;
		ea += u64(disp32(b + len));
		len += 4;
	}
	out->ea = ea;
	out->len = u32(len);
	out->src = ((modrm >> 3) & 7) | (rex & 4 ? 8 : 0);
	return true;
}
