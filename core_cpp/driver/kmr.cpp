// SPDX-License-Identifier: GPL-2.0
#include "driver/kmr.h"

#include "driver/commands.h"
#include "prm/cmd.h"
#include "prm/mkey.h"

namespace scx::driver {

namespace {

// The device reads translation lists in 64-byte units (8 entries).
constexpr u32 list_align = 8;

} // namespace

kmr::~kmr()
{
	if (!created_)
		free_list();
}

void kmr::free_list()
{
	if (list_)
		plat_->dma_free(list_, list_bytes_, list_dma_);
	list_ = nullptr;
}

status kmr::create(device &dev, bus::platform &plat, u32 pdn, u32 max_pages)
{
	namespace ci = prm::create_mkey_in;
	if (created_ || !max_pages || max_pages > (1u << 16))
		return errc::inval;
	dev_ = &dev;
	plat_ = &plat;
	cap_ = (max_pages + list_align - 1) / list_align * list_align;
	list_bytes_ = usize(cap_) * prm::mtt::size_bytes;
	list_ = static_cast<u8 *>(plat.dma_alloc(list_bytes_, &list_dma_));
	if (!list_)
		return errc::nomem;
	zero_bytes(list_, list_bytes_);
	u8 in[ci::klm_pas_mtt.byte_off] = {};
	u8 *mkc = prm::at(in, ci::memory_key_mkey_entry);
	// Free until a REG_MR fills it; rights, range and pages come then.
	prm::set(mkc, prm::mkc::free, 1);
	prm::set(mkc, prm::mkc::umr_en, 1);
	prm::set(mkc, prm::mkc::lr, 1);
	prm::set(mkc, prm::mkc::en_rinval, 1);
	prm::set(mkc, prm::mkc::access_mode_1_0, prm::mkc_access_mode::mtt);
	prm::set(mkc, prm::mkc::qpn, 0xffffff);
	prm::set(mkc, prm::mkc::pd, pdn);
	prm::set(mkc, prm::mkc::log_page_size, 12);
	prm::set(mkc, prm::mkc::translations_octword_size, cap_ / 2);
	result<u32> k = cmd::create_mkey(dev.cmd(), in, sizeof(in));
	if (!k) {
		free_list();
		return k.error();
	}
	key_ = *k;
	created_ = true;
	return status::ok();
}

status kmr::destroy()
{
	if (created_) {
		SCX_TRY(cmd::destroy_mkey(dev_->cmd(), key_));
		created_ = false;
	}
	free_list();
	return status::ok();
}

status kmr::set_pages(const u64 *pages, u32 n, u32 page_shift, u64 iova, u64 length)
{
	if (n > cap_ || page_shift < 12 || page_shift > 30)
		return errc::inval;
	for (u32 i = 0; i < n; i++) {
		u8 *e = list_ + i * prm::mtt::size_bytes;
		prm::set(e, prm::mtt::ptag_63_32, pages[i] >> 32);
		prm::set(e, prm::mtt::ptag_31_8, u32(pages[i]) >> (32 - prm::mtt::ptag_31_8.bits));
		prm::set(e, prm::mtt::rd_en, 1);
		prm::set(e, prm::mtt::wr_en, 1);
	}
	// The rest of the last 64-byte unit names no page.
	for (u32 i = n; i < cap_ && i % list_align; i++)
		zero_bytes(list_ + i * prm::mtt::size_bytes, prm::mtt::size_bytes);
	n_ = n;
	page_shift_ = page_shift;
	iova_ = iova;
	length_ = length;
	return status::ok();
}

} // namespace scx::driver
