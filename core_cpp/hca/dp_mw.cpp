// SPDX-License-Identifier: GPL-2.0
// Memory windows on the data path: the UMR WQE libmlx5 posts to bind,
// unbind or locally invalidate a window, and SEND_WITH_INV's remote
// invalidation. A window is a KLM-mode key created free (CREATE_MKEY); a
// bind points it at a range of a memory region with its own access
// rights; remote access through it is checked in mem_resolver.
#include "hca/dp.h"

#include "lib/endian.h"
#include "prm/cq.h"
#include "prm/mkey.h"
#include "prm/wqe.h"

namespace scx::hca {

namespace ctl = prm::wqe_ctrl_seg;
namespace sy = prm::cqe_syndrome;
namespace mask = prm::umr_mkey_mask;

// The rights a UMR's mkey segment sets where its mask says so; the others
// stay as they were.
u8 data_path::umr_rights(u64 m, const u8 *mk, u8 access)
{
	auto pick = [&](u64 bit, const auto &f, u8 a) {
		if (m & bit)
			access = u8(prm::get(mk, f) ? access | a : access & ~a);
	};
	pick(mask::lr, prm::mkc::lr, mkey_access::local_read);
	pick(mask::lw, prm::mkc::lw, mkey_access::local_write);
	pick(mask::rr, prm::mkc::rr, mkey_access::remote_read);
	pick(mask::rw, prm::mkc::rw, mkey_access::remote_write);
	pick(mask::a, prm::mkc::a, mkey_access::atomic);
	return access;
}

u8 data_path::umr(qp_runtime &rt, const u8 *w, u32 end)
{
	namespace uc = prm::wqe_umr_ctrl_seg;
	constexpr u32 mkey_at = ctl::size_bytes + uc::size_bytes;
	constexpr u32 klm_at = mkey_at + prm::wqe_mkey_seg::size_bytes;

	if (mkey_at + prm::wqe_mkey_seg::size_bytes > end)
		return sy::local_qp_op_err;
	// A fast-registration key (MTT mode) has its own handler.
	mkey_ctx *key = d_.mkeys->dp_find(load_be<u32>(w + ctl::imm.byte_off) >> 8);
	if (key && key->access_mode == prm::mkc_access_mode::mtt)
		return umr_mr(rt, w, end, *key);
	const u8 *u = w + ctl::size_bytes;
	const u8 *mk = w + mkey_at;
	u8 flags = u8(prm::get(u, uc::flags));
	u64 m = prm::get(u, uc::mkey_mask);
	// Only what libmlx5 asks of a window: inline, no offset into the list.
	if (!(flags & prm::umr_flags::inline_data) || prm::get(u, uc::xlt_offset))
		return sy::local_qp_op_err;

	// The ctrl segment's immediate names the window; its tag may be stale
	// (a type 2 bind names the key as allocated), the index may not.
	mkey_ctx *mw = d_.mkeys->dp_find(load_be<u32>(w + ctl::imm.byte_off) >> 8);
	if (!mw || mw->access_mode != prm::mkc_access_mode::klms || !mw->umr_en || mw->pd != rt.pd)
		return sy::mw_bind_err;
	if ((flags & prm::umr_flags::check_qpn) && mw->qpn != mem_resolver::no_qpn && mw->qpn != rt.qpn)
		return sy::mw_bind_err;

	if ((m & mask::free) && prm::get(mk, prm::mkc::free)) {
		// Unbind or local invalidate: the window grants nothing now.
		mw->free = 1;
		if (m & mask::key)
			mw->key_7_0 = u8(prm::get(mk, prm::mkc::mkey_7_0));
		return 0;
	}

	if ((flags & prm::umr_flags::check_not_free) && !mw->free)
		return sy::mw_bind_err;
	if (klm_at + prm::klm::size_bytes > end || prm::get(u, uc::xlt_octowords) < 1)
		return sy::local_qp_op_err;
	const u8 *klm = w + klm_at;
	u64 start = (m & mask::start_addr) ? u64(prm::get(mk, prm::mkc::start_addr)) : mw->start;
	u64 len = (m & mask::len) ? u64(prm::get(mk, prm::mkc::len)) : mw->len;
	u32 mr_key = prm::get(klm, prm::klm::key);
	u64 mr_addr = prm::get(klm, prm::klm::va);
	u8 access = umr_rights(m, mk, mw->access);

	// The region: a real key of the window's PD covering the whole range
	// (a window on a window is not allowed); remote writes or atomics
	// through the window need the region's local write (IBA C10-74).
	mkey_ctx mr;
	if (!d_.mkeys->lookup(mr_key, &mr) || mr.free || mr.access_mode == prm::mkc_access_mode::klms ||
	    mr.pd != mw->pd)
		return sy::mw_bind_err;
	if (prm::get(klm, prm::klm::bcount) != len || len > 0xffffffffull || start + len < start)
		return sy::mw_bind_err;
	u64 mr_end = mr_addr + len;
	if (mr_end < mr_addr || mr_addr < mr.start || (!mr.length64 && mr_end - mr.start > mr.len))
		return sy::mw_bind_err;
	if ((access & (mkey_access::remote_write | mkey_access::atomic)) && !(mr.access & mkey_access::local_write))
		return sy::mw_bind_err;

	mw->access = access;
	mw->start = start;
	mw->len = len;
	mw->length64 = 0;
	mw->klm_key = mr_key;
	mw->klm_addr = mr_addr;
	if (m & mask::key)
		mw->key_7_0 = u8(prm::get(mk, prm::mkc::mkey_7_0));
	if (m & mask::qpn)
		mw->qpn = prm::get(mk, prm::mkc::qpn);
	mw->free = 0;
	return 0;
}

// SEND_WITH_INV: the responder's window `key` (tag included) stops
// granting access, if it may be invalidated remotely and serves dst.
bool data_path::remote_invalidate(qp_runtime &dst, u32 key)
{
	mkey_ctx *mw = d_.mkeys->dp_find(key >> 8);
	// A type 2 window or a fast-registration region, either allowing it.
	const bool umr_key = mw && (mw->access_mode == prm::mkc_access_mode::klms ||
				    (mw->access_mode == prm::mkc_access_mode::mtt && mw->umr_en));
	if (!umr_key || mw->key_7_0 != (key & 0xff) || !mw->en_rinval || mw->free || mw->pd != dst.pd)
		return false;
	if (mw->qpn != mem_resolver::no_qpn && mw->qpn != dst.qpn)
		return false;
	mw->free = 1;
	return true;
}

} // namespace scx::hca
