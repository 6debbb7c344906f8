// SPDX-License-Identifier: GPL-2.0
// softcx/kverbs.h: driver::kqp behind a C handle, and the address vectors
// of kernel address handles.
#include "driver/c_drv.h"
#include "driver/kmr.h"
#include "driver/kqp.h"
#include "driver/ksrq.h"
#include "lib/new.h"
#include "prm/wqe.h"

using namespace scx;

struct scx_kqp {
	driver::kqp q;
};

extern "C" {

int scx_kqp_create(struct scx_drv *drv, const struct scx_kqp_params *p, struct scx_kqp **out)
{
	if (!drv || !p || !out)
		return -int(errc::inval);
	auto *qp = make<scx_kqp>();
	if (!qp)
		return -int(errc::nomem);
	status s = qp->q.create(drv->dev, drv->plat, *p);
	if (!s) {
		// A timed-out CREATE_QP leaves the rings to the device; the
		// handle itself holds nothing it can reach.
		destroy(qp);
		return s.to_errno();
	}
	*out = qp;
	return 0;
}

int scx_kqp_destroy(struct scx_kqp *qp)
{
	if (!qp)
		return 0;
	status s = qp->q.destroy();
	if (!s)
		return s.to_errno(); // kept: the device may still read its rings
	destroy(qp);
	return 0;
}

int scx_kqp_stop(struct scx_kqp *qp) { return qp->q.stop().to_errno(); }

void scx_kqp_reset(struct scx_kqp *qp) { qp->q.reset(); }

uint32_t scx_kqp_qpn(const struct scx_kqp *qp) { return qp->q.qpn(); }

void scx_kqp_get_caps(const struct scx_kqp *qp, struct scx_kqp_caps *caps) { *caps = qp->q.caps(); }

int scx_kqp_post_send(struct scx_kqp *qp, const struct scx_kwr *wr) { return qp->q.post_send(*wr).to_errno(); }

void scx_kqp_ring_sq(struct scx_kqp *qp) { qp->q.ring_sq(); }

int scx_kqp_post_recv(struct scx_kqp *qp, uint64_t wr_id, const struct scx_ksge *sg, uint32_t num_sge)
{
	return qp->q.post_recv(wr_id, sg, num_sge).to_errno();
}

void scx_kqp_ring_rq(struct scx_kqp *qp) { qp->q.ring_rq(); }

int scx_kqp_complete(struct scx_kqp *qp, const struct scx_kcqe *c, uint64_t *wr_id, uint8_t *opcode)
{
	return qp->q.complete(*c, wr_id, opcode).to_errno();
}

int scx_kmr_create(struct scx_drv *drv, uint32_t pdn, uint32_t max_pages, struct scx_kmr **out)
{
	if (!drv || !out)
		return -int(errc::inval);
	auto *mr = make<scx_kmr>();
	if (!mr)
		return -int(errc::nomem);
	status s = mr->m.create(drv->dev, drv->plat, pdn, max_pages);
	if (!s) {
		destroy(mr);
		return s.to_errno();
	}
	*out = mr;
	return 0;
}

int scx_kmr_destroy(struct scx_kmr *mr)
{
	if (!mr)
		return 0;
	status s = mr->m.destroy();
	if (!s)
		return s.to_errno(); // kept: the device may still read its list
	destroy(mr);
	return 0;
}

uint32_t scx_kmr_key(const struct scx_kmr *mr) { return mr->m.key(); }

int scx_kmr_set_pages(struct scx_kmr *mr, const uint64_t *pages, uint32_t npages, uint32_t page_shift,
		      uint64_t iova, uint64_t length)
{
	return mr->m.set_pages(pages, npages, page_shift, iova, length).to_errno();
}

int scx_ksrq_create(struct scx_drv *drv, uint32_t pdn, uint32_t max_wr, uint32_t max_sge, struct scx_ksrq **out)
{
	if (!drv || !out)
		return -int(errc::inval);
	auto *srq = make<scx_ksrq>();
	if (!srq)
		return -int(errc::nomem);
	status s = srq->s.create(drv->dev, drv->plat, pdn, max_wr, max_sge);
	if (!s) {
		destroy(srq);
		return s.to_errno();
	}
	*out = srq;
	return 0;
}

int scx_ksrq_destroy(struct scx_ksrq *srq)
{
	if (!srq)
		return 0;
	status s = srq->s.destroy();
	if (!s)
		return s.to_errno(); // kept: the device may still read its ring
	destroy(srq);
	return 0;
}

uint32_t scx_ksrq_srqn(const struct scx_ksrq *srq) { return srq->s.srqn(); }

void scx_ksrq_get_caps(const struct scx_ksrq *srq, uint32_t *max_wr, uint32_t *max_sge)
{
	*max_wr = srq->s.max_wr();
	*max_sge = srq->s.max_sge();
}

int scx_ksrq_post_recv(struct scx_ksrq *srq, uint64_t wr_id, const struct scx_ksge *sg, uint32_t num_sge)
{
	return srq->s.post_recv(wr_id, sg, num_sge).to_errno();
}

void scx_ksrq_ring(struct scx_ksrq *srq) { srq->s.ring(); }

int scx_ksrq_complete(struct scx_ksrq *srq, const struct scx_kcqe *c, uint64_t *wr_id)
{
	if (c->send)
		return -int(errc::inval);
	return srq->s.complete(c->wqe_counter, wr_id).to_errno();
}

void scx_kav_build(const struct scx_kav_params *p, uint8_t *av)
{
	namespace a = prm::av;
	zero_bytes(av, a::size_bytes);
	prm::set(av, a::extended, 1);
	prm::set(av, a::stat_rate_sl, p->sl & 0xf);
	// RoCEv2: the UDP source port travels where IB keeps the remote LID.
	prm::set(av, a::rlid, p->udp_sport);
	prm::set(av, a::rmac_47_16, load_be<u32>(p->dmac));
	prm::set(av, a::rmac_15_0, load_be<u16>(p->dmac + 4));
	prm::set(av, a::tclass, p->traffic_class);
	prm::set(av, a::hop_limit, p->hop_limit);
	// grh_gid_fl: the GRH flag (bit 30), the source GID index, the flow label.
	prm::set(av, a::grh_gid_fl, 1u << 30 | u32(p->sgid_index) << 20 | (p->flow_label & 0xfffff));
	copy_bytes(prm::at(av, a::rgid), p->dgid, 16);
}

} // extern "C"
