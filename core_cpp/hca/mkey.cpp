// SPDX-License-Identifier: GPL-2.0
#include "hca/mkey.h"

#include "hca/syndrome.h"
#include "hca/uctx.h"
#include "prm/mkey.h"

namespace scx::hca {

namespace st = prm::cmd_stat;

status mkey_table::init(fw_pages &pages, id_pool &pds, u32 max_mkeys)
{
	pages_ = &pages;
	pds_ = &pds;
	SCX_TRY(lock_.init(lock_class::hca_objects));
	return table_.init(first_index, max_mkeys - first_index);
}

namespace {

u32 mkc_access_mode(const u8 *mkc)
{
	return prm::get(mkc, prm::mkc::access_mode_4_2) << prm::mkc::access_mode_1_0.bits |
	       prm::get(mkc, prm::mkc::access_mode_1_0);
}

// The context the data path reads, from the command's mkc.
void mkey_fill(mkey_ctx *m, const u8 *mkc, u32 actual)
{
	m->key_7_0 = u8(prm::get(mkc, prm::mkc::mkey_7_0));
	m->access_mode = u8(mkc_access_mode(mkc));
	m->access = u8((prm::get(mkc, prm::mkc::lr) ? mkey_access::local_read : 0) |
		       (prm::get(mkc, prm::mkc::lw) ? mkey_access::local_write : 0) |
		       (prm::get(mkc, prm::mkc::rr) ? mkey_access::remote_read : 0) |
		       (prm::get(mkc, prm::mkc::rw) ? mkey_access::remote_write : 0) |
		       (prm::get(mkc, prm::mkc::a) ? mkey_access::atomic : 0));
	m->free = u8(prm::get(mkc, prm::mkc::free));
	m->umr_en = u8(prm::get(mkc, prm::mkc::umr_en));
	m->length64 = u8(prm::get(mkc, prm::mkc::length64));
	m->log_page_size = u8(prm::get(mkc, prm::mkc::log_page_size));
	m->pd = prm::get(mkc, prm::mkc::pd);
	m->qpn = prm::get(mkc, prm::mkc::qpn);
	m->en_rinval = u8(prm::get(mkc, prm::mkc::en_rinval));
	m->klm_key = 0;
	m->klm_addr = 0;
	m->start = prm::get(mkc, prm::mkc::start_addr);
	m->len = prm::get(mkc, prm::mkc::len);
	m->octwords = prm::get(mkc, prm::mkc::translations_octword_size);
	m->mtt_given = actual * 2;
}

} // namespace

// The mkc against what a key of its access mode may be; the capacity of
// its translation list in *cap. false: the command failed.
bool mkey_table::create_check(cmd_ctx &c, const u8 *mkc, u32 actual, u32 *cap)
{
	namespace in = prm::create_mkey_in;
	u32 mode = mkc_access_mode(mkc);
	// KLM mode only for a memory window: created free, filled by UMR.
	bool window = mode == prm::mkc_access_mode::klms;
	if (mode != prm::mkc_access_mode::pa && mode != prm::mkc_access_mode::mtt && !window)
		return c.fail(st::bad_param_err, synd::mkey_bad_access_mode);
	if (window && (!prm::get(mkc, prm::mkc::free) || !prm::get(mkc, prm::mkc::umr_en)))
		return c.fail(st::bad_param_err, synd::mkey_bad_access_mode);
	if (!pds_->valid(prm::get(mkc, prm::mkc::pd)))
		return c.fail(st::bad_res_err, synd::mkey_bad_pd);
	if (!uid_may_name(c.uid, pds_->owner(prm::get(mkc, prm::mkc::pd))))
		return c.fail(st::bad_res_err, synd::uid_foreign);
	u64 start = prm::get(mkc, prm::mkc::start_addr);
	u64 len = prm::get(mkc, prm::mkc::len);
	bool len64 = prm::get(mkc, prm::mkc::length64);
	if (!len64 && start + len < start)
		return c.fail(st::bad_param_err, synd::mkey_bad_range);
	u32 log_page = prm::get(mkc, prm::mkc::log_page_size);
	u32 octwords = prm::get(mkc, prm::mkc::translations_octword_size);
	*cap = 0;
	if (mode != prm::mkc_access_mode::mtt) {
		// A PA key or a window gets no translation list here.
		if (actual)
			return c.fail(st::bad_param_err, synd::mkey_bad_mtt_size);
		return true;
	}
	if (log_page < 12 || log_page > 30)
		return c.fail(st::bad_param_err, synd::mkey_bad_page_size);
	if (actual > octwords || octwords > fw_pages::max_list / 2)
		return c.fail(st::bad_param_err, synd::mkey_bad_mtt_size);
	*cap = octwords * 2;
	// A range the list cannot cover (a free key has no range yet).
	u64 page = u64(1) << log_page;
	if (!prm::get(mkc, prm::mkc::free) && !len64 && ((start & (page - 1)) + len + page - 1) / page > *cap)
		return c.fail(st::bad_param_err, synd::mkey_bad_range);
	return c.need_in(in::klm_pas_mtt.byte_off + actual * 16, synd::short_list);
}

// The translation entries the command gives, each page aligned.
bool mkey_table::create_mtt(cmd_ctx &c, mkey_ctx *m, u32 entries, u32 log_page)
{
	namespace in = prm::create_mkey_in;
	u64 page_mask = (u64(1) << log_page) - 1;
	for (u32 i = 0; i < entries; i++) {
		c.relax_at(i);
		u8 e[prm::mtt::size_bytes];
		bool good = c.read_in(in::klm_pas_mtt.byte_off + i * 8, e, sizeof(e));
		u64 addr = u64(prm::get(e, prm::mtt::ptag_63_32)) << 32 |
			   u64(prm::get(e, prm::mtt::ptag_31_8)) << prm::dword_shift(prm::mtt::ptag_31_8);
		if (!good || (addr & page_mask))
			return c.fail(st::bad_param_err, synd::mkey_bad_mtt);
		pages_->list_set(m->mtt, i, load_be<u64>(e));
	}
	return true;
}

void mkey_table::create(cmd_ctx &c)
{
	namespace in = prm::create_mkey_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::create_mkey_out::size_bytes, synd::short_output))
		return;
	if (prm::get(c.in, in::mkey_umem_valid))
		return (void)c.fail(st::bad_param_err, synd::mkey_umem_unsupported);
	const u8 *mkc = prm::at(c.in, in::memory_key_mkey_entry);
	u32 actual = prm::get(c.in, in::translations_octword_actual_size);
	u32 cap = 0;
	if (!create_check(c, mkc, actual, &cap))
		return;

	auto slot = pages_->alloc_slot();
	if (!slot)
		return (void)c.fail(st::no_res_err, synd::no_fw_memory);
	auto *m = static_cast<mkey_ctx *>(pages_->slot(*slot));
	m->slot = *slot;
	auto list = pages_->alloc_list(cap);
	if (!list) {
		pages_->free_slot(*slot);
		return (void)c.fail(st::no_res_err, synd::no_fw_memory);
	}
	m->mtt = *list;
	if (!create_mtt(c, m, actual * 2, prm::get(mkc, prm::mkc::log_page_size))) {
		pages_->free_list(m->mtt);
		pages_->free_slot(*slot);
		return;
	}
	mkey_fill(m, mkc, actual);
	m->uid = c.uid;

	result<u32> idx = errc::nospc;
	{
		lock_guard g(lock_);
		idx = table_.insert(m);
		if (idx)
			m->index = *idx;
	}
	if (!idx) {
		pages_->free_list(m->mtt);
		pages_->free_slot(*slot);
		return (void)c.fail(st::no_res_err, synd::mkey_exhausted);
	}
	pds_->ref(m->pd);
	prm::set(c.out, prm::create_mkey_out::mkey_index, *idx);
}

mkey_ctx *mkey_table::dp_find(u32 index)
{
	lock_guard g(lock_);
	return table_.get(index);
}

void mkey_table::free_mkey(mkey_ctx *m)
{
	pds_->unref(m->pd);
	pages_->free_list(m->mtt);
	pages_->free_slot(m->slot);
}

void mkey_table::destroy(cmd_ctx &c)
{
	if (!c.need_in(prm::destroy_mkey_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::destroy_mkey_out::size_bytes, synd::short_output))
		return;
	mkey_ctx *m;
	{
		lock_guard g(lock_);
		u32 index = prm::get(c.in, prm::destroy_mkey_in::mkey_index);
		m = table_.get(index);
		if (m && !uid_may_name(c.uid, m->uid))
			return (void)c.fail(st::bad_res_err, synd::uid_foreign);
		table_.remove(index);
	}
	if (!m)
		return (void)c.fail(st::bad_res_err, synd::mkey_invalid);
	free_mkey(m);
}

void mkey_table::query(cmd_ctx &c)
{
	namespace out = prm::query_mkey_out;
	if (!c.need_in(prm::query_mkey_in::size_bytes, synd::short_input) ||
	    !c.need_out(out::bsf0_klm0_pas_mtt0_1.byte_off, synd::short_output))
		return;
	lock_guard g(lock_);
	mkey_ctx *m = table_.get(prm::get(c.in, prm::query_mkey_in::mkey_index));
	if (!m)
		return (void)c.fail(st::bad_res_err, synd::mkey_invalid);
	if (!uid_may_name(c.uid, m->uid))
		return (void)c.fail(st::bad_res_err, synd::uid_foreign);
	u8 *mkc = prm::at(c.out, out::memory_key_mkey_entry);
	prm::set(mkc, prm::mkc::free, m->free);
	prm::set(mkc, prm::mkc::access_mode_4_2, m->access_mode >> prm::mkc::access_mode_1_0.bits);
	prm::set(mkc, prm::mkc::access_mode_1_0, m->access_mode);
	prm::set(mkc, prm::mkc::umr_en, m->umr_en);
	prm::set(mkc, prm::mkc::a, !!(m->access & mkey_access::atomic));
	prm::set(mkc, prm::mkc::rw, !!(m->access & mkey_access::remote_write));
	prm::set(mkc, prm::mkc::rr, !!(m->access & mkey_access::remote_read));
	prm::set(mkc, prm::mkc::lw, !!(m->access & mkey_access::local_write));
	prm::set(mkc, prm::mkc::lr, !!(m->access & mkey_access::local_read));
	prm::set(mkc, prm::mkc::qpn, m->qpn);
	prm::set(mkc, prm::mkc::mkey_7_0, m->key_7_0);
	prm::set(mkc, prm::mkc::length64, m->length64);
	prm::set(mkc, prm::mkc::pd, m->pd);
	prm::set(mkc, prm::mkc::start_addr, m->start);
	prm::set(mkc, prm::mkc::len, m->len);
	prm::set(mkc, prm::mkc::translations_octword_size, m->octwords);
	prm::set(mkc, prm::mkc::log_page_size, m->log_page_size);
	// The first four MTT entries follow, when the output has room.
	for (u32 i = 0; i < 4 && i < m->mtt_given; i++) {
		if (out::bsf0_klm0_pas_mtt0_1.byte_off + (i + 1) * 8 > c.outlen)
			break;
		store_be<u64>(prm::at(c.out, out::bsf0_klm0_pas_mtt0_1) + i * 8, pages_->list_get(m->mtt, i));
	}
}

bool mkey_table::lookup(u32 key, mkey_ctx *out)
{
	lock_guard g(lock_);
	mkey_ctx *m = table_.get(key >> 8);
	if (!m || m->key_7_0 != (key & 0xff))
		return false;
	*out = *m;
	return true;
}

bool mkey_table::mtt(u32 key, u32 i, u64 *entry)
{
	lock_guard g(lock_);
	mkey_ctx *m = table_.get(key >> 8);
	// An entry never written is no translation, whatever the capacity.
	if (!m || m->key_7_0 != (key & 0xff) || i >= m->mtt_given)
		return false;
	*entry = pages_->list_get(m->mtt, i);
	return true;
}

bool mkey_table::any_owned_by(u16 uid)
{
	bool found = false;
	lock_guard g(lock_);
	table_.for_each([&](u32, mkey_ctx *m) { found = found || m->uid == uid; });
	return found;
}

void mkey_table::reset()
{
	for (u32 n = 0; n < table_.capacity(); n++) {
		mkey_ctx *m;
		{
			lock_guard g(lock_);
			m = table_.remove(table_.first() + n);
		}
		if (m)
			free_mkey(m);
	}
}

} // namespace scx::hca
