// SPDX-License-Identifier: GPL-2.0
// Decoding the store a UAR doorbell traps on (softcx/x86_store.h).
#include "softcx/x86_store.h"

#include "lib/types.h"

namespace {

using namespace scx;

i64 disp32(const u8 *p) { return i32(u32(p[0]) | u32(p[1]) << 8 | u32(p[2]) << 16 | u32(p[3]) << 24); }

// What precedes the ModRM byte, in the terms the operand decode needs.
struct prefix {
	usize modrm;   // index of the ModRM byte
	u32 r, x, b;   // the REX/VEX register extensions, 0 or 8
};

// The memory operand at b[p.modrm]: its address, and the instruction's
// length (none of the decoded stores has an immediate after it).
bool mem_operand(const u8 *b, usize n, const prefix &p, const u64 regs[16], u64 rip, u64 *ea_out,
		 usize *len_out)
{
	if (n <= p.modrm)
		return false;
	const u8 modrm = b[p.modrm];
	const u32 mod = modrm >> 6, rm = modrm & 7;
	if (mod == 3)
		return false; // a register destination: no store
	usize len = p.modrm + 1;
	u64 ea = 0;
	bool rip_rel = false;
	if (rm == 4) { // SIB
		if (n <= len)
			return false;
		const u8 sib = b[len++];
		const u32 scale = sib >> 6, index = ((sib >> 3) & 7) | p.x, base = (sib & 7) | p.b;
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
		if (n < len + 4)
			return false;
		ea = u64(disp32(b + len));
		len += 4;
		rip_rel = true;
	} else {
		ea = regs[rm | p.b];
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
	*ea_out = rip_rel ? ea + rip + len : ea;
	*len_out = len;
	return true;
}

// The vector stores of map 0F by their mandatory prefix (pp: 0 none,
// 1 66, 2 F3, 3 F2), SSE and VEX alike.
bool vector_store_opcode(u32 pp, u8 op)
{
	switch (op) {
	case 0x11: // movups / movupd (F3/F2: movss / movsd, narrower)
	case 0x29: // movaps / movapd
	case 0x2b: // movntps / movntpd
		return pp == 0 || pp == 1;
	case 0x7f: // movdqa / movdqu
		return pp == 1 || pp == 2;
	case 0xe7: // movntdq
		return pp == 1;
	default:
		return false;
	}
}

bool decode_gpr(const u8 *b, usize n, prefix &p, u32 *width)
{
	// REX.W (0x48-0x4f) must come first: a prefix before it (segment,
	// address size, lock) changes what the store means, so it is refused.
	if (n < 3 || (b[0] & 0xf8) != 0x48 || b[1] != 0x89)
		return false;
	p = {2, b[0] & 4 ? 8u : 0u, b[0] & 2 ? 8u : 0u, b[0] & 1 ? 8u : 0u};
	*width = 8;
	return true;
}

bool decode_sse(const u8 *b, usize n, prefix &p, u32 *width)
{
	usize i = 0;
	u32 pp = 0;
	if (n > i && (b[i] == 0x66 || b[i] == 0xf3))
		pp = b[i++] == 0x66 ? 1 : 2;
	u8 rex = 0;
	if (n > i && (b[i] & 0xf8) == 0x40) // REX without W (W means nothing here)
		rex = b[i++];
	if (n < i + 3 || b[i] != 0x0f || !vector_store_opcode(pp, b[i + 1]))
		return false;
	p = {i + 2, rex & 4 ? 8u : 0u, rex & 2 ? 8u : 0u, rex & 1 ? 8u : 0u};
	*width = 16;
	return true;
}

bool decode_vex(const u8 *b, usize n, prefix &p, u32 *width)
{
	// In 64-bit mode C4/C5 are always VEX. Its R/X/B are inverted.
	u8 last;
	usize op;
	if (n >= 2 && b[0] == 0xc5) {
		last = b[1];
		p = {3, b[1] & 0x80 ? 0u : 8u, 0, 0};
		op = 2;
	} else if (n >= 3 && b[0] == 0xc4) {
		if ((b[1] & 0x1f) != 1 || (b[2] & 0x80)) // map 0F only; W0
			return false;
		last = b[2];
		p = {4, b[1] & 0x80 ? 0u : 8u, b[1] & 0x40 ? 0u : 8u, b[1] & 0x20 ? 0u : 8u};
		op = 3;
	} else {
		return false;
	}
	// vvvv must be 1111 (unused), or the instruction is not a store.
	if ((last & 0x78) != 0x78 || n <= op || !vector_store_opcode(last & 3, b[op]))
		return false;
	*width = last & 4 ? 32 : 16;
	return true;
}

} // namespace

extern "C" bool scx_x86_decode_store(const uint8_t *b, size_t n, const uint64_t regs[16], uint64_t rip,
				     struct scx_x86_store *out)
{
	prefix p{};
	u32 width = 0, vec = 1;
	if (decode_gpr(b, n, p, &width))
		vec = 0;
	else if (!decode_sse(b, n, p, &width) && !decode_vex(b, n, p, &width))
		return false;
	u64 ea;
	usize len;
	if (!mem_operand(b, n, p, regs, rip, &ea, &len))
		return false;
	out->ea = ea;
	out->len = u32(len);
	out->src = ((b[p.modrm] >> 3) & 7) | p.r;
	out->width = width;
	out->vec = vec;
	return true;
}
