// SPDX-License-Identifier: GPL-2.0
// Typed access to PRM layouts. The PRM (and the kernel's mlx5_ifc.h) describe
// every structure as a big-endian bit string: a field is (bit offset, bit
// width) from the start of its structure, bit 0 being the most significant
// bit of the first byte. A layout is declared once as a set of `field`
// constants; code reads and writes only through get()/set() on a byte buffer,
// never with hand-written shifts.
#pragma once

#include "lib/endian.h"
#include "lib/types.h"

namespace scx::prm {

template <u32 BitOff, u32 Bits> struct field {
	static_assert(Bits >= 1 && Bits <= 64);
	// A field of up to 32 bits never straddles a dword; 64-bit fields are
	// dword aligned. mlx5_ifc.h follows both rules.
	static_assert(Bits == 64 ? BitOff % 32 == 0 : (BitOff % 32) + Bits <= 32);
	static constexpr u32 bit_off = BitOff;
	static constexpr u32 bits = Bits;
	static constexpr u32 byte_off = BitOff / 8;
};

// A sub-structure embedded at a bit offset (e.g. the CQ context in CREATE_CQ).
template <u32 BitOff, u32 Bytes> struct block {
	static_assert(BitOff % 32 == 0);
	static constexpr u32 bit_off = BitOff;
	static constexpr u32 byte_off = BitOff / 8;
	static constexpr u32 size = Bytes;
};

template <u32 O, u32 B> constexpr u32 dword_shift(field<O, B>) { return 32 - B - (O % 32); }
template <u32 O, u32 B> constexpr u32 dword_mask(field<O, B>)
{
	return B == 32 ? 0xffffffffu : ((1u << B) - 1);
}

template <u32 O, u32 B> inline auto get(const void *buf, field<O, B> f)
{
	const u8 *p = static_cast<const u8 *>(buf) + (O / 32) * 4;
	if constexpr (B == 64) {
		return load_be<u64>(p);
	} else {
		return (load_be<u32>(p) >> dword_shift(f)) & dword_mask(f);
	}
}

template <u32 O, u32 B> inline void set(void *buf, field<O, B> f, u64 v)
{
	u8 *p = static_cast<u8 *>(buf) + (O / 32) * 4;
	if constexpr (B == 64) {
		store_be<u64>(p, v);
	} else {
		u32 m = dword_mask(f) << dword_shift(f);
		u32 w = load_be<u32>(p);
		w = (w & ~m) | ((u32(v) << dword_shift(f)) & m);
		store_be<u32>(p, w);
	}
}

// Whether v fits the field: commands must reject values a field cannot hold.
template <u32 O, u32 B> constexpr bool fits(field<O, B>, u64 v)
{
	return B == 64 || v <= ((u64(1) << B) - 1);
}

template <u32 O, u32 N> inline u8 *at(void *buf, block<O, N>) { return static_cast<u8 *>(buf) + O / 8; }
template <u32 O, u32 N> inline const u8 *at(const void *buf, block<O, N>)
{
	return static_cast<const u8 *>(buf) + O / 8;
}

// Element i of an array of fixed-size entries starting at a block.
template <u32 O, u32 N> inline u8 *at(void *buf, block<O, N>, u32 i, u32 stride)
{
	return static_cast<u8 *>(buf) + O / 8 + i * stride;
}

} // namespace scx::prm
