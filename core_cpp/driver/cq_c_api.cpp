// SPDX-License-Identifier: GPL-2.0
// softcx/driver.h, kernel-owned CQs (scx_drv_cq_*): driver::kcq behind a
// C handle, with the C callbacks called back with that handle.
#include "driver/c_drv.h"
#include "driver/kcq.h"
#include "lib/new.h"

using namespace scx;

struct scx_drv_cq {
	scx_drv_cq(scx_drv *d, const scx_drv_cq_params &p) : drv(d), params(p) {}
	scx_drv *drv;
	scx_drv_cq_params params;
	driver::kcq q;
};

namespace {

void comp_trampoline(driver::core_cq *, void *ctx)
{
	auto *cq = static_cast<scx_drv_cq *>(ctx);
	if (cq->params.comp)
		cq->params.comp(cq, cq->params.ctx);
}

void event_trampoline(driver::core_cq *, u8 type, u8 syndrome, void *ctx)
{
	auto *cq = static_cast<scx_drv_cq *>(ctx);
	if (cq->params.event)
		cq->params.event(cq, type, syndrome, cq->params.ctx);
}

} // namespace

extern "C" {

int scx_drv_cq_create(struct scx_drv *drv, const struct scx_drv_cq_params *p, struct scx_drv_cq **out)
{
	if (!drv || !p || !out)
		return -int(errc::inval);
	auto *cq = make<scx_drv_cq>(drv, *p);
	if (!cq)
		return -int(errc::nomem);
	driver::kcq_config cfg;
	cfg.comp_index = p->comp_eq;
	cfg.log_size = p->log_size;
	cfg.comp = comp_trampoline;
	cfg.event = event_trampoline;
	cfg.ctx = cq;
	status s = cq->q.create(drv->dev, drv->plat, cfg);
	if (!s) {
		destroy(cq);
		return s.to_errno();
	}
	*out = cq;
	return 0;
}

int scx_drv_cq_destroy(struct scx_drv_cq *cq)
{
	if (!cq)
		return 0;
	status s = cq->q.destroy();
	if (!s)
		return s.to_errno(); // kept: the device may still write its ring
	destroy(cq);
	return 0;
}

unsigned int scx_drv_cq_poll(struct scx_drv_cq *cq, unsigned int max) { return cq->q.poll(max); }

unsigned int scx_drv_cq_poll_cqes(struct scx_drv_cq *cq, struct scx_kcqe *out, unsigned int max)
{
	return cq->q.poll(out, max);
}

bool scx_drv_cq_pending(struct scx_drv_cq *cq) { return cq->q.pending(); }

void scx_drv_cq_arm(struct scx_drv_cq *cq, bool solicited_only) { cq->q.arm(solicited_only); }

void scx_drv_cq_get_info(struct scx_drv_cq *cq, struct scx_drv_cq_info *info)
{
	const driver::core_cq &c = cq->q.core();
	*info = {};
	info->cqn = cq->q.cqn();
	info->comp_eq = cq->q.comp_index();
	info->cons_index = cq->q.cons_index();
	info->arm_sn = c.arm_sn.load(mo::relaxed);
	info->comp_calls = c.comp_calls.load(mo::relaxed);
}

} // extern "C"
