// SPDX-License-Identifier: GPL-2.0
// Memory keys and completion queues for user verbs objects: the CREATE_MKEY
// and CREATE_CQ inputs built from the page lists the shim pinned.
#include "driver/c_drv.h"
#include "driver/commands.h"
#include "lib/new.h"
#include "prm/cmd.h"
#include "prm/cq.h"
#include "prm/mkey.h"
#include "softcx/kverbs.h"
#include "softcx/verbs.h"

using namespace scx;

namespace {

// The low byte of a key is the creator's choice; a rotating non-zero value
// makes stale keys fail and keeps 0x100 (the scatter terminator) unused.
atomic<u32> g_key_variant{0};

u8 next_key_variant()
{
	return u8(g_key_variant.fetch_add(1, mo::relaxed) % 255 + 1);
}

} // namespace

struct scx_cq {
	driver::core_cq cq;
	void (*comp)(void *ctx);
	void (*event)(void *ctx, uint8_t type);
	void *ctx;
};

namespace {

void cq_comp(driver::core_cq *cq, void *)
{
	auto *c = reinterpret_cast<scx_cq *>(cq);
	c->comp(c->ctx);
}

void cq_event(driver::core_cq *cq, u8 type, u8, void *)
{
	auto *c = reinterpret_cast<scx_cq *>(cq);
	if (c->event)
		c->event(c->ctx, type);
}

static_assert(__builtin_offsetof(scx_cq, cq) == 0, "scx_cq starts with its core_cq");

} // namespace

extern "C" {

int scx_verbs_create_mkey(struct scx_drv *drv, const struct scx_mr_params *p, uint32_t *key)
{
	namespace ci = prm::create_mkey_in;
	if (!p->npages || p->page_shift < 12 || p->page_shift > 30)
		return -int(errc::inval);
	// Each 16-byte octword holds two 8-byte MTT entries; the table has
	// room for the region, the command fills what it is given.
	u32 octwords = (p->npages + 1) / 2;
	u32 filled = p->nfilled && p->nfilled < p->npages ? p->nfilled : p->npages;
	u32 actual = (filled + 1) / 2;
	u32 inlen = ci::klm_pas_mtt.byte_off + actual * 16;
	auto *in = static_cast<u8 *>(alloc_bytes(inlen));
	if (!in)
		return -int(errc::nomem);
	u8 *mkc = prm::at(in, ci::memory_key_mkey_entry);
	prm::set(mkc, prm::mkc::access_mode_1_0, prm::mkc_access_mode::mtt);
	prm::set(mkc, prm::mkc::lr, 1);
	prm::set(mkc, prm::mkc::lw, (p->access & SCX_ACCESS_LOCAL_WRITE) != 0);
	prm::set(mkc, prm::mkc::rw, (p->access & SCX_ACCESS_REMOTE_WRITE) != 0);
	prm::set(mkc, prm::mkc::rr, (p->access & SCX_ACCESS_REMOTE_READ) != 0);
	prm::set(mkc, prm::mkc::a, (p->access & SCX_ACCESS_REMOTE_ATOMIC) != 0);
	prm::set(mkc, prm::mkc::qpn, 0xffffff);
	prm::set(mkc, prm::mkc::mkey_7_0, next_key_variant());
	prm::set(mkc, prm::mkc::pd, p->pdn);
	prm::set(mkc, prm::mkc::start_addr, p->iova);
	prm::set(mkc, prm::mkc::len, p->length);
	prm::set(mkc, prm::mkc::translations_octword_size, octwords);
	prm::set(mkc, prm::mkc::log_page_size, p->page_shift);
	prm::set(in, ci::translations_octword_actual_size, actual);
	u8 *mtt = prm::at(in, ci::klm_pas_mtt);
	for (u32 i = 0; i < filled; i++) {
		u8 *e = mtt + i * prm::mtt::size_bytes;
		prm::set(e, prm::mtt::ptag_63_32, p->pages[i] >> 32);
		prm::set(e, prm::mtt::ptag_31_8, u32(p->pages[i]) >> (32 - prm::mtt::ptag_31_8.bits));
		prm::set(e, prm::mtt::rd_en, 1);
		prm::set(e, prm::mtt::wr_en, 1);
	}
	result<u32> k = driver::cmd::create_mkey(drv->dev.cmd(), in, inlen);
	free_bytes(in);
	if (!k)
		return k.error().to_errno();
	*key = *k;
	return 0;
}

int scx_verbs_create_dma_mkey(struct scx_drv *drv, uint32_t pdn, uint32_t access, uint32_t *key)
{
	namespace ci = prm::create_mkey_in;
	u8 in[ci::klm_pas_mtt.byte_off] = {};
	u8 *mkc = prm::at(in, ci::memory_key_mkey_entry);
	// Physical-address mode from 0, length64: every bus address the
	// function may reach (its IOMMU still decides which those are).
	prm::set(mkc, prm::mkc::access_mode_1_0, prm::mkc_access_mode::pa);
	prm::set(mkc, prm::mkc::length64, 1);
	prm::set(mkc, prm::mkc::lr, 1);
	prm::set(mkc, prm::mkc::lw, (access & SCX_ACCESS_LOCAL_WRITE) != 0);
	prm::set(mkc, prm::mkc::rw, (access & SCX_ACCESS_REMOTE_WRITE) != 0);
	prm::set(mkc, prm::mkc::rr, (access & SCX_ACCESS_REMOTE_READ) != 0);
	prm::set(mkc, prm::mkc::a, (access & SCX_ACCESS_REMOTE_ATOMIC) != 0);
	prm::set(mkc, prm::mkc::qpn, 0xffffff);
	prm::set(mkc, prm::mkc::mkey_7_0, next_key_variant());
	prm::set(mkc, prm::mkc::pd, pdn);
	result<u32> k = driver::cmd::create_mkey(drv->dev.cmd(), in, sizeof(in));
	if (!k)
		return k.error().to_errno();
	*key = *k;
	return 0;
}

int scx_verbs_create_mw(struct scx_drv *drv, uint32_t pdn, bool type2, uint32_t *key)
{
	namespace ci = prm::create_mkey_in;
	u8 in[ci::klm_pas_mtt.byte_off] = {};
	u8 *mkc = prm::at(in, ci::memory_key_mkey_entry);
	// Free until a bind (UMR) points it at a region; KLM-mode, as mlx5's.
	prm::set(mkc, prm::mkc::free, 1);
	prm::set(mkc, prm::mkc::umr_en, 1);
	prm::set(mkc, prm::mkc::lr, 1);
	prm::set(mkc, prm::mkc::access_mode_1_0, prm::mkc_access_mode::klms);
	prm::set(mkc, prm::mkc::en_rinval, type2);
	prm::set(mkc, prm::mkc::qpn, 0xffffff);
	prm::set(mkc, prm::mkc::mkey_7_0, next_key_variant());
	prm::set(mkc, prm::mkc::pd, pdn);
	prm::set(mkc, prm::mkc::translations_octword_size, 4);
	result<u32> k = driver::cmd::create_mkey(drv->dev.cmd(), in, sizeof(in));
	if (!k)
		return k.error().to_errno();
	*key = *k;
	return 0;
}

int scx_verbs_destroy_mkey(struct scx_drv *drv, uint32_t key)
{
	return driver::cmd::destroy_mkey(drv->dev.cmd(), key).to_errno();
}

int scx_verbs_create_cq(struct scx_drv *drv, const struct scx_cq_params *p, struct scx_cq **out,
			uint32_t *cqn)
{
	namespace ci = prm::create_cq_in;
	driver::device &dev = drv->dev;
	if (p->comp_vector >= dev.num_comp_eqs() || !p->npages || p->page_shift < 12 || !p->comp ||
	    (p->cqe_size != 64 && p->cqe_size != 128))
		return -int(errc::inval);
	u32 inlen = ci::pas.byte_off + p->npages * 8;
	auto *in = static_cast<u8 *>(alloc_bytes(inlen));
	if (!in)
		return -int(errc::nomem);
	prm::set(in, ci::uid, p->uid);
	u8 *cqc = prm::at(in, ci::cq_context);
	prm::set(cqc, prm::cqc::cqe_sz, p->cqe_size == 64 ? prm::cqe_size::bytes_64 : prm::cqe_size::bytes_128);
	prm::set(cqc, prm::cqc::log_cq_size, p->log_size);
	prm::set(cqc, prm::cqc::uar_page, p->uar_index);
	prm::set(cqc, prm::cqc::c_eqn_or_apu_element, dev.comp_eqn(p->comp_vector));
	// The CQ context counts pages in units of 4 KiB above the minimum.
	prm::set(cqc, prm::cqc::log_page_size, p->page_shift - 12);
	prm::set(cqc, prm::cqc::dbr_addr, p->dbr_addr);
	for (u32 i = 0; i < p->npages; i++)
		store_be<u64>(in + ci::pas.byte_off + i * 8, p->pages[i]);

	auto *cq = make<scx_cq>();
	if (!cq) {
		free_bytes(in);
		return -int(errc::nomem);
	}
	cq->comp = p->comp;
	cq->event = p->event;
	cq->ctx = p->ctx;
	cq->cq.comp = cq_comp;
	cq->cq.event = cq_event;
	status s = dev.create_cq(cq->cq, in, inlen);
	free_bytes(in);
	if (!s) {
		destroy(cq);
		return s.to_errno();
	}
	*cqn = cq->cq.cqn;
	*out = cq;
	return 0;
}

int scx_verbs_resize_cq(struct scx_drv *drv, struct scx_cq *cq, const struct scx_cq_params *p)
{
	namespace mi = prm::modify_cq_in;
	if (!p->npages || p->page_shift < 12 || (p->cqe_size != 64 && p->cqe_size != 128))
		return -int(errc::inval);
	u32 inlen = mi::pas.byte_off + p->npages * 8;
	auto *in = static_cast<u8 *>(alloc_bytes(inlen));
	if (!in)
		return -int(errc::nomem);
	prm::set(in, mi::op_mod, prm::modify_cq_op_mod::resize_cq);
	prm::set(in, mi::modify_field_select_resize_field_select,
		 prm::cq_resize::log_size | prm::cq_resize::page_offset | prm::cq_resize::page_size);
	u8 *cqc = prm::at(in, mi::cq_context);
	prm::set(cqc, prm::cqc::cqe_sz, p->cqe_size == 64 ? prm::cqe_size::bytes_64 : prm::cqe_size::bytes_128);
	prm::set(cqc, prm::cqc::log_cq_size, p->log_size);
	prm::set(cqc, prm::cqc::log_page_size, p->page_shift - 12);
	for (u32 i = 0; i < p->npages; i++)
		store_be<u64>(prm::at(in, mi::pas, i, 8), p->pages[i]);
	status s = drv->dev.modify_cq(cq->cq, in, inlen);
	free_bytes(in);
	return s.to_errno();
}

int scx_verbs_destroy_cq(struct scx_drv *drv, struct scx_cq *cq)
{
	status s = drv->dev.destroy_cq(cq->cq);
	destroy(cq);
	return s.to_errno();
}

} // extern "C"
