// SPDX-License-Identifier: GPL-2.0
// One command as a handler sees it: its input and output as flat byte
// ranges (the first bytes copied into contiguous buffers, the rest reached
// through the mailbox chains), the PRM status and syndrome it will answer
// with, and helpers that set both in one step.
#pragma once

#include "hca/mailbox.h"
#include "prm/cmd.h"
#include "prm/cmdq.h"
#include "lib/sync.h"

namespace scx::hca {

struct cmd_ctx {
	const u8 *in = nullptr; // the first in_have bytes of the input
	u32 inlen = 0;
	u32 in_have = 0;
	u8 *out = nullptr;      // the first out_cap bytes of the output, zeroed
	u32 outlen = 0;
	u32 out_cap = 0;
	mailbox_chain *in_chain = nullptr;
	mailbox_chain *out_chain = nullptr;
	u16 opcode = 0;
	u16 op_mod = 0;
	u16 uid = 0;            // mbox_in::uid: 0 the driver, else a user context (uctx.h)
	u8 status = prm::cmd_stat::ok;
	u32 syndrome = 0;
	// Set by the executor: the command ran short of firmware memory the
	// driver has been asked for; it is held and run again once that came.
	bool wait_for_pages = false;
	// The data path's lock, which the executor holds around the command.
	lock_guard *dp_hold = nullptr;

	// In a long loop over the input (page and translation lists), before
	// anything of the object is visible to the data path: lets it (and
	// interrupts) in every 64 entries, so no command holds the lock
	// long whatever its list's length.
	void relax_at(u32 i)
	{
		if ((i & 63) == 63 && dp_hold)
			dp_hold->relax();
	}

	bool fail(u8 st, u32 synd)
	{
		status = st;
		syndrome = synd;
		return false;
	}
	bool ok() const { return status == prm::cmd_stat::ok; }

	// The command's fixed input layout must be present in full.
	bool need_in(u32 bytes, u32 synd)
	{
		return inlen >= bytes || fail(prm::cmd_stat::bad_inp_len_err, synd);
	}
	bool need_out(u32 bytes, u32 synd)
	{
		return outlen >= bytes || fail(prm::cmd_stat::bad_outp_len_err, synd);
	}

	// Any input bytes within inlen (false past it or on a vanished block).
	bool read_in(u32 off, void *dst, u32 len)
	{
		if (off + len > inlen || off + len < off)
			return false;
		u8 *d = static_cast<u8 *>(dst);
		if (off < in_have) {
			u32 n = min(len, in_have - off);
			copy_bytes(d, in + off, n);
			d += n;
			off += n;
			len -= n;
		}
		return !len || (in_chain && in_chain->read(off - prm::cmdq::inline_bytes, d, len));
	}
	u64 in_be64(u32 off, bool *good)
	{
		u8 b[8];
		if (!read_in(off, b, 8)) {
			*good = false;
			return 0;
		}
		return load_be<u64>(b);
	}

	// Any output bytes within outlen.
	bool write_out(u32 off, const void *src, u32 len)
	{
		if (off + len > outlen || off + len < off)
			return false;
		const u8 *s = static_cast<const u8 *>(src);
		if (off < out_cap) {
			u32 n = min(len, out_cap - off);
			copy_bytes(out + off, s, n);
			s += n;
			off += n;
			len -= n;
		}
		return !len || (out_chain && out_chain->write(off - prm::cmdq::inline_bytes, s, len));
	}
	bool out_be64(u32 off, u64 v)
	{
		u8 b[8];
		store_be<u64>(b, v);
		return write_out(off, b, 8);
	}
};

} // namespace scx::hca
