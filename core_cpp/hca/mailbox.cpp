// SPDX-License-Identifier: GPL-2.0
#include "hca/mailbox.h"

#include "lib/atomic.h"
#include "prm/cmdq.h"

namespace scx::hca {

namespace box = prm::cmd_if_box;
namespace ds = prm::delivery_stat;

u64 mailbox_chain::next_of(const u8 *blk)
{
	// The low field holds address bits 31:10 at their own position.
	return (u64(prm::get(blk, box::next_pointer_63_32)) << 32) |
	       (u64(prm::get(blk, box::next_pointer_31_10)) << prm::dword_shift(box::next_pointer_31_10));
}

u8 mailbox_chain::validate(u64 first, u32 nblocks, u8 token, bool input)
{
	const u8 align_err = input ? ds::in_ptr_align_err : ds::out_ptr_align_err;
	const u8 length_err = input ? ds::in_length_err : ds::out_length_err;
	first_ = first;
	n_ = nblocks;
	cur_i_ = 0;
	cur_addr_ = first;
	u64 addr = first;
	for (u32 i = 0; i < nblocks; i++) {
		// A chain that ends early cannot hold the declared length.
		if (!addr)
			return length_err;
		const u8 *b = static_cast<const u8 *>(dma_->map(addr, box::size_bytes));
		if (!b)
			return ds::cmd_descr_err;
		// Signatures are checked when the driver computed them (non-zero).
		if (prm::get(b, box::ctrl_signature) || prm::get(b, box::signature)) {
			if (prm::cmdq::xor8(b + box::ctrl_sig_first, box::ctrl_sig_len + 1) != 0xff ||
			    prm::cmdq::xor8(b, box::size_bytes) != 0xff)
				return ds::signat_err;
		}
		if (prm::get(b, box::block_number) != i)
			return ds::bad_blk_num_err;
		if (prm::get(b, box::token) != token)
			return ds::tok_err;
		if (i + 1 < nblocks && prm::get(b, box::reserved_at_11b6))
			return align_err;
		addr = next_of(b);
	}
	return ds::ok;
}

u8 *mailbox_chain::block(u32 i)
{
	if (i >= n_)
		return nullptr;
	if (i < cur_i_) {
		cur_i_ = 0;
		cur_addr_ = first_;
	}
	for (;;) {
		u8 *b = static_cast<u8 *>(dma_->map(cur_addr_, box::size_bytes));
		if (!b)
			return nullptr;
		if (cur_i_ == i)
			return b;
		cur_addr_ = next_of(b);
		cur_i_++;
	}
}

bool mailbox_chain::read(u32 off, void *dst, u32 len)
{
	u8 *d = static_cast<u8 *>(dst);
	while (len) {
		u32 bi = off / prm::cmdq::data_block_size, at = off % prm::cmdq::data_block_size;
		u32 n = min(len, prm::cmdq::data_block_size - at);
		u8 *b = block(bi);
		if (!b)
			return false;
		copy_bytes(d, prm::at(b, box::mailbox_data) + at, n);
		d += n;
		off += n;
		len -= n;
	}
	return true;
}

bool mailbox_chain::write(u32 off, const void *src, u32 len)
{
	const u8 *s = static_cast<const u8 *>(src);
	while (len) {
		u32 bi = off / prm::cmdq::data_block_size, at = off % prm::cmdq::data_block_size;
		u32 n = min(len, prm::cmdq::data_block_size - at);
		u8 *b = block(bi);
		if (!b)
			return false;
		copy_bytes(prm::at(b, box::mailbox_data) + at, s, n);
		s += n;
		off += n;
		len -= n;
	}
	return true;
}

bool mailbox_chain::seal()
{
	for (u32 i = 0; i < n_; i++) {
		u8 *b = block(i);
		if (!b)
			return false;
		prm::set(b, box::ctrl_signature, 0);
		prm::set(b, box::signature, 0);
		prm::set(b, box::ctrl_signature, u8(~prm::cmdq::xor8(b + box::ctrl_sig_first, box::ctrl_sig_len)));
		prm::set(b, box::signature, u8(~prm::cmdq::xor8(b, box::size_bytes - 1)));
	}
	fence(mo::release);
	return true;
}

} // namespace scx::hca
