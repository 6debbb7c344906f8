// SPDX-License-Identifier: GPL-2.0
#include "driver/cq.h"

#include "lib/new.h"

namespace scx::driver {

status cq_table::init(u32 buckets_log2)
{
	SCX_TRY(lock_.init(lock_class::drv_cq_table));
	u32 n = 1u << buckets_log2;
	buckets_ = static_cast<core_cq **>(alloc_bytes(sizeof(core_cq *) * n));
	if (!buckets_)
		return errc::nomem;
	mask_ = n - 1;
	return status::ok();
}

void cq_table::fini()
{
	if (count_)
		scx_env_bug("cq_table: CQs left at fini");
	free_bytes(buckets_);
	buckets_ = nullptr;
}

status cq_table::insert(core_cq *cq)
{
	if (!cq->freed_ready) {
		SCX_TRY(cq->freed.init());
		cq->freed_ready = true;
	} else {
		cq->freed.reinit();
	}
	cq->refs.store(1);
	cq->queued = false;
	lock_guard g(lock_);
	core_cq **b = &buckets_[cq->cqn & mask_];
	for (core_cq *c = *b; c; c = c->hash_next)
		if (c->cqn == cq->cqn)
			return errc::exist;
	cq->hash_next = *b;
	*b = cq;
	count_++;
	return status::ok();
}

void cq_table::remove(core_cq *cq)
{
	lock_guard g(lock_);
	for (core_cq **p = &buckets_[cq->cqn & mask_]; *p; p = &(*p)->hash_next) {
		if (*p == cq) {
			*p = cq->hash_next;
			cq->hash_next = nullptr;
			count_--;
			return;
		}
	}
}

core_cq *cq_table::get(u32 cqn)
{
	lock_guard g(lock_);
	if (!buckets_)
		return nullptr;
	for (core_cq *c = buckets_[cqn & mask_]; c; c = c->hash_next) {
		if (c->cqn == cqn) {
			hold(c);
			return c;
		}
	}
	return nullptr;
}

void cq_table::put(core_cq *cq)
{
	if (cq->refs.fetch_sub(1) == 1)
		cq->freed.complete();
}

void cq_table::put_and_wait(core_cq *cq, const char *who)
{
	put(cq);
	for (u32 waited = 0; !cq->freed.wait(1000).is_ok(); waited++)
		if (waited == 10)
			scx_env_log(SCX_LOG_WARN, "%s: cq 0x%x still referenced after 10 s", who, cq->cqn);
}

status cq_tasklet::init() { return lock_.init(lock_class::drv_cq_table); }

bool cq_tasklet::add(core_cq *cq)
{
	bool first = false;
	{
		lock_guard g(lock_);
		if (!cq->queued) {
			cq->queued = true;
			cq->tasklet_next = nullptr;
			first = !head_;
			if (tail_)
				tail_->tasklet_next = cq;
			else
				head_ = cq;
			tail_ = cq;
			return first;
		}
	}
	cq_table::put(cq);
	return false;
}

u32 cq_tasklet::run(u32 limit)
{
	runs_.fetch_add(1, mo::relaxed);
	u32 n = 0;
	while (n < limit) {
		core_cq *cq;
		{
			lock_guard g(lock_);
			cq = head_;
			if (!cq)
				break;
			head_ = cq->tasklet_next;
			if (!head_)
				tail_ = nullptr;
			// Dequeued before the callback: an event arriving while it
			// runs queues the CQ again rather than being lost.
			cq->queued = false;
		}
		cq->comp_calls.fetch_add(1, mo::relaxed);
		if (cq->comp)
			cq->comp(cq, cq->ctx);
		cq_table::put(cq);
		n++;
	}
	return n;
}

bool cq_tasklet::more()
{
	lock_guard g(lock_);
	return head_ != nullptr;
}

} // namespace scx::driver
