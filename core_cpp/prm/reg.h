// SPDX-License-Identifier: GPL-2.0
// Register views of PRM fields: BAR0 and UAR registers are read and written
// as 32-bit values (CPU order, as ioread32be returns them), so a field's
// dword is addressed by its offset and its bits extracted from that value.
#pragma once

#include "prm/field.h"

namespace scx::prm {

// Byte offset of the 32-bit register holding field f.
template <u32 O, u32 B> constexpr u32 reg_offset(field<O, B>) { return (O / 32) * 4; }

template <u32 O, u32 B> constexpr u32 reg_get(u32 reg, field<O, B> f)
{
	static_assert(B <= 32);
	return (reg >> dword_shift(f)) & dword_mask(f);
}

template <u32 O, u32 B> constexpr u32 reg_set(u32 reg, field<O, B> f, u32 v)
{
	static_assert(B <= 32);
	u32 m = dword_mask(f) << dword_shift(f);
	return (reg & ~m) | ((v << dword_shift(f)) & m);
}

} // namespace scx::prm
