// SPDX-License-Identifier: GPL-2.0
// Fast registration on the data path: the UMR WQE mlx5_ib posts for
// IB_WR_REG_MR and IB_WR_LOCAL_INV on an MTT-mode key created free with
// umr_en (ib_alloc_mr). A registration gives the key its translation list
// (inline after the mkey segment, or in memory named by a data segment
// read through its lkey), range, page size, rights and tag; an
// invalidation frees it. The key's capacity (translations_octword_size at
// CREATE_MKEY) bounds the list.
#include "hca/dp.h"

#include "lib/endian.h"
#include "prm/cq.h"
#include "prm/mkey.h"
#include "prm/wqe.h"

namespace scx::hca {

namespace {

namespace ctl = prm::wqe_ctrl_seg;
namespace sy = prm::cqe_syndrome;
namespace mask = prm::umr_mkey_mask;
namespace uc = prm::wqe_umr_ctrl_seg;

constexpr u32 mkey_at = ctl::size_bytes + uc::size_bytes;
constexpr u32 xlt_at = mkey_at + prm::wqe_mkey_seg::size_bytes;
constexpr u32 chunk = 32; // MTT entries read from memory at a time

} // namespace

u8 data_path::umr_mr(qp_runtime &rt, const u8 *w, u32 end, mkey_ctx &mr)
{
	if (xlt_at > end)
		return sy::local_qp_op_err;
	const u8 *u = w + ctl::size_bytes;
	const u8 *mk = w + mkey_at;
	const u8 flags = u8(prm::get(u, uc::flags));
	const u64 m = prm::get(u, uc::mkey_mask);
	if (!mr.umr_en || mr.pd != rt.pd || (flags & prm::umr_flags::translation_offset) ||
	    prm::get(u, uc::xlt_offset))
		return sy::local_prot_err;

	if ((m & mask::free) && prm::get(mk, prm::mkc::free)) {
		// LOCAL_INV: nothing reaches memory through the key now.
		mr.free = 1;
		return 0;
	}
	const u32 n = u32(prm::get(u, uc::xlt_octowords)) * 2;
	const u64 start = (m & mask::start_addr) ? u64(prm::get(mk, prm::mkc::start_addr)) : mr.start;
	const u64 len = (m & mask::len) ? u64(prm::get(mk, prm::mkc::len)) : mr.len;
	const u32 log_page = (m & mask::page_size) ? u32(prm::get(mk, prm::mkc::log_page_size)) : mr.log_page_size;
	if (n > mr.octwords * 2 || log_page < 12 || log_page > 30 || start + len < start)
		return sy::local_prot_err;
	// The range must lie within the pages the list gives.
	const u64 base = start & ~((u64(1) << log_page) - 1);
	if (len && ((start + len - 1 - base) >> log_page) >= n)
		return sy::local_prot_err;
	if (!umr_xlt(rt, w, xlt_at, end, flags & prm::umr_flags::inline_data, n, mr)) {
		// Its list may be half written: the key serves nothing.
		mr.free = 1;
		return sy::local_prot_err;
	}

	mr.access = umr_rights(m, mk, mr.access);
	mr.start = start;
	mr.len = len;
	mr.length64 = 0;
	mr.log_page_size = u8(log_page);
	mr.mtt_given = n;
	if (m & mask::en_rinval)
		mr.en_rinval = u8(prm::get(mk, prm::mkc::en_rinval));
	if (m & mask::key)
		mr.key_7_0 = u8(prm::get(mk, prm::mkc::mkey_7_0));
	if (m & mask::free)
		mr.free = u8(prm::get(mk, prm::mkc::free));
	return 0;
}

// The n translation entries into the key's list: inline from byte `at`
// of the WQE, or from the memory a data segment there names (its lkey
// with local read, as any gather).
bool data_path::umr_xlt(qp_runtime &rt, const u8 *w, u32 at, u32 end, bool inl, u32 n, mkey_ctx &mr)
{
	if (inl) {
		if (at + n * prm::mtt::size_bytes > end)
			return false;
		for (u32 i = 0; i < n; i++)
			d_.pages->list_set(mr.mtt, i, load_be<u64>(w + at + i * prm::mtt::size_bytes));
		return true;
	}
	if (at + prm::wqe_data_seg::size_bytes > end)
		return false;
	const u8 *ds = w + at;
	const u32 bytes = prm::get(ds, prm::wqe_data_seg::byte_count);
	if (bytes < n * prm::mtt::size_bytes)
		return false;
	xlt_l_.n = 0;
	xlt_l_.total = 0;
	if (mem_.add(xlt_l_, prm::get(ds, prm::wqe_data_seg::lkey), rt.pd, mkey_access::local_read,
		     prm::get(ds, prm::wqe_data_seg::addr), n * prm::mtt::size_bytes, rt.qpn) != mem_fault::none)
		return false;
	u8 buf[chunk * prm::mtt::size_bytes];
	for (u32 i = 0; i < n; i += chunk) {
		u32 k = n - i < chunk ? n - i : chunk;
		if (!mem_.read(buf, xlt_l_, u64(i) * prm::mtt::size_bytes, k * prm::mtt::size_bytes))
			return false;
		for (u32 j = 0; j < k; j++)
			d_.pages->list_set(mr.mtt, i + j, load_be<u64>(buf + j * prm::mtt::size_bytes));
	}
	return true;
}

} // namespace scx::hca
