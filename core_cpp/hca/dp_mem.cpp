// SPDX-License-Identifier: GPL-2.0
#include "hca/dp_mem.h"

#include "prm/mkey.h"

namespace scx::hca {

mem_fault mem_resolver::resolve(u32 key, u32 pd, u8 access, u64 va, u64 len, mem_seg *seg, u32 qpn)
{
	constexpr u8 remote = mkey_access::remote_read | mkey_access::remote_write | mkey_access::atomic;
	mkey_ctx m;
	if (!mkeys_->lookup(key, &m) || m.free)
		return mem_fault::key;
	if (m.pd != pd)
		return mem_fault::pd;
	if ((m.access & access) != access)
		return mem_fault::access;
	u64 end = va + len;
	if (end < va || va < m.start || (!m.length64 && end - m.start > m.len))
		return mem_fault::bounds;
	if (m.access_mode == prm::mkc_access_mode::klms) {
		// A bound window: remote access only, by its QP if it has one,
		// then the bound key's own translation (its range was checked
		// when the window was bound, and is checked again). Asking for
		// no remote right, that lookup refuses a window on a window.
		if (!(access & remote) || (m.qpn != no_qpn && m.qpn != qpn))
			return mem_fault::access;
		return resolve(m.klm_key, pd, 0, m.klm_addr + (va - m.start), len, seg);
	}
	if (len > 0xffffffffull)
		return mem_fault::bounds;
	seg->va = va;
	seg->len = u32(len);
	seg->pa = m.access_mode == prm::mkc_access_mode::pa;
	seg->page_shift = m.log_page_size;
	seg->base = m.start & ~((u64(1) << m.log_page_size) - 1);
	seg->mtt = m.mtt;
	seg->mtt_given = m.mtt_given;
	if (!seg->pa && (m.log_page_size < 12 || m.log_page_size > 30))
		return mem_fault::unmapped;
	// The translation ends with the entries the key was given, whatever
	// its capacity or length say: past them nothing is mapped.
	if (!seg->pa && len && ((va + len - 1 - seg->base) >> seg->page_shift) >= seg->mtt_given) {
		translation_faults_++;
		return mem_fault::unmapped;
	}
	return mem_fault::none;
}

mem_fault mem_resolver::add(sg_list &l, u32 key, u32 pd, u8 access, u64 va, u32 len, u32 qpn)
{
	if (!len)
		return mem_fault::none;
	if (l.n == sg_list::max)
		return mem_fault::bounds;
	mem_fault f = resolve(key, pd, access, va, len, &l.seg[l.n], qpn);
	if (f != mem_fault::none)
		return f;
	l.n++;
	l.total += len;
	return mem_fault::none;
}

u8 *mem_resolver::map(const mem_seg &s, u64 off, u32 want, u32 *n)
{
	if (off >= s.len)
		return nullptr;
	u64 left = s.len - off;
	if (want > left)
		want = u32(left);
	u64 va = s.va + off;
	u64 bus;
	if (s.pa) {
		// Physical keys are the kernel's: stay within one page per map.
		u64 in_page = 4096 - (va & 4095);
		if (want > in_page)
			want = u32(in_page);
		bus = va;
	} else {
		u64 rel = va - s.base;
		u64 idx = rel >> s.page_shift;
		if (idx >= s.mtt_given) {
			translation_faults_++;
			return nullptr;
		}
		u64 psz = u64(1) << s.page_shift;
		u64 in_page = psz - (rel & (psz - 1));
		if (want > in_page)
			want = u32(in_page);
		// Low bits of an MTT entry are its read/write enables.
		bus = (pages_->list_get(s.mtt, u32(idx)) & ~u64(0xff)) + (rel & (psz - 1));
	}
	u8 *p = static_cast<u8 *>(dma_->map(bus, want));
	*n = want;
	return p;
}

namespace {

// Walks a list from a byte offset, one contiguous piece at a time.
struct cursor {
	const sg_list &l;
	u32 i = 0;
	u64 off = 0;

	cursor(const sg_list &list, u64 start) : l(list)
	{
		while (i < l.n && start >= l.seg[i].len) {
			start -= l.seg[i].len;
			i++;
		}
		off = start;
	}
	u8 *next(mem_resolver &r, u64 want, u32 *n)
	{
		while (i < l.n && off >= l.seg[i].len) {
			i++;
			off = 0;
		}
		if (i == l.n)
			return nullptr;
		u32 cap = want > 0x40000000ull ? 0x40000000u : u32(want);
		u8 *p = r.map(l.seg[i], off, cap, n);
		if (p)
			off += *n;
		return p;
	}
};

} // namespace

bool mem_resolver::write(const sg_list &dst, u64 dst_off, const u8 *src, u64 len)
{
	cursor d(dst, dst_off);
	while (len) {
		u32 n;
		u8 *p = d.next(*this, len, &n);
		if (!p)
			return false;
		copy_bytes(p, src, n);
		src += n;
		len -= n;
	}
	return true;
}

bool mem_resolver::read(u8 *dst, const sg_list &src, u64 src_off, u64 len)
{
	cursor s(src, src_off);
	while (len) {
		u32 n;
		u8 *p = s.next(*this, len, &n);
		if (!p)
			return false;
		copy_bytes(dst, p, n);
		dst += n;
		len -= n;
	}
	return true;
}

u32 mem_resolver::pieces(const sg_list &l, u64 off, u64 len, mem_piece *out, u32 max)
{
	cursor c(l, off);
	u32 k = 0;
	while (len) {
		u32 n;
		const u8 *p = k < max ? c.next(*this, len, &n) : nullptr;
		if (!p)
			return 0;
		out[k++] = {p, n};
		len -= n;
	}
	return k;
}

bool mem_resolver::readable(const sg_list &l, u64 off, u64 len)
{
	cursor c(l, off);
	while (len) {
		u32 n;
		if (!c.next(*this, len, &n))
			return false;
		len -= n;
	}
	return true;
}

bool mem_resolver::copy(const sg_list &dst, u64 dst_off, const sg_list &src, u64 src_off, u64 len)
{
	return copy(dst, dst_off, *this, src, src_off, len);
}

bool mem_resolver::copy(const sg_list &dst, u64 dst_off, mem_resolver &src_mem, const sg_list &src, u64 src_off,
			u64 len)
{
	cursor s(src, src_off), d(dst, dst_off);
	u8 *sp = nullptr, *dp = nullptr;
	u32 sn = 0, dn = 0;
	while (len) {
		if (!sn && !(sp = s.next(src_mem, len, &sn)))
			return false;
		if (!dn && !(dp = d.next(*this, len, &dn)))
			return false;
		u32 n = sn < dn ? sn : dn;
		copy_bytes(dp, sp, n);
		sp += n;
		dp += n;
		sn -= n;
		dn -= n;
		len -= n;
	}
	return true;
}

} // namespace scx::hca
