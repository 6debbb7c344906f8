// SPDX-License-Identifier: GPL-2.0
#include "driver/mailbox_pool.h"

#include "lib/new.h"
#include "prm/cmdq.h"

namespace scx::driver {

namespace box = prm::cmd_if_box;

status mailbox_pool::init(bus::platform &plat)
{
	plat_ = &plat;
	return lock_.init(lock_class::drv_cmd);
}

void mailbox_pool::fini()
{
	if (nfree_ != total_)
		scx_env_bug("mailbox_pool: chains still out at fini");
	while (pages_) {
		page *p = pages_;
		pages_ = p->next;
		plat_->dma_free(p->cpu, 4096, p->dma);
		destroy(p);
	}
	free_ = nullptr;
	nfree_ = total_ = 0;
}

status mailbox_pool::grow(u32 pages)
{
	for (u32 i = 0; i < pages; i++) {
		page *p = make<page>();
		if (!p)
			return errc::nomem;
		p->cpu = plat_->dma_alloc(4096, &p->dma);
		if (!p->cpu || (p->dma & 1023)) {
			if (p->cpu)
				plat_->dma_free(p->cpu, 4096, p->dma);
			destroy(p);
			return errc::nomem;
		}
		lock_guard g(lock_);
		p->next = pages_;
		pages_ = p;
		for (u32 b = 0; b < per_page; b++) {
			mailbox *m = &p->boxes[b];
			m->buf = static_cast<u8 *>(p->cpu) + b * prm::cmdq::box_stride;
			m->dma = p->dma + b * prm::cmdq::box_stride;
			m->next = free_;
			free_ = m;
		}
		nfree_ += per_page;
		total_ += per_page;
	}
	return status::ok();
}

result<mailbox *> mailbox_pool::get_chain(u32 n, u8 token)
{
	if (!n)
		return static_cast<mailbox *>(nullptr);
	mailbox *head = nullptr;
	for (;;) {
		unsigned long f = lock_.lock();
		if (nfree_ >= n) {
			// Pop n blocks, building the chain back to front so block i
			// links to block i + 1.
			for (u32 i = 0; i < n; i++) {
				mailbox *m = free_;
				free_ = m->next;
				m->next = head;
				head = m;
			}
			nfree_ -= n;
			lock_.unlock(f);
			break;
		}
		u32 missing = n - nfree_;
		lock_.unlock(f);
		SCX_TRY(grow((missing + per_page - 1) / per_page));
	}
	u32 num = 0;
	for (mailbox *m = head; m; m = m->next, num++) {
		zero_bytes(m->buf, box::size_bytes);
		u64 next = m->next ? m->next->dma : 0;
		prm::set(m->buf, box::next_pointer_63_32, next >> 32);
		prm::set(m->buf, box::next_pointer_31_10, (next & 0xffffffffu) >> 10);
		prm::set(m->buf, box::block_number, num);
		prm::set(m->buf, box::token, token);
	}
	return head;
}

void mailbox_pool::put_chain(mailbox *head)
{
	if (!head)
		return;
	u32 n = 1;
	mailbox *tail = head;
	while (tail->next) {
		tail = tail->next;
		n++;
	}
	lock_guard g(lock_);
	tail->next = free_;
	free_ = head;
	nfree_ += n;
}

} // namespace scx::driver
