// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel verbs on a softcx ib_device, used as a kernel ULP uses them: through
 * the RDMA core (ib_alloc_pd, ib_alloc_cq, ib_create_qp, ib_post_*,
 * ib_poll_cq, ib_drain_qp, rdma_create_ah), with buffers mapped by
 * ib_dma_map_single; and QP1 through ib_mad's agent API. The device is
 * "softcx_0" on an Ethernet netdev with an IPv4 address: kunit.sh adds it
 * before this module loads.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "softcx_kunit.h"

#define KV_DEV "softcx_0"
#define KV_BUF 16384
#define KV_QKEY 0x11111111

struct kv_ctx {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	const struct ib_gid_attr *gid;
	union ib_gid dgid;	/* its GID: the destination of every test */
	u8 mac[ETH_ALEN];
	u8 *buf;
	u64 dma;
};

static int kv_init(struct kunit *test)
{
	struct kv_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct net_device *ndev;
	bool have_mac = false;
	u32 i;

	if (!c)
		return -ENOMEM;
	test->priv = c;
	c->dev = ib_device_get_by_name(KV_DEV, RDMA_DRIVER_MLX5);
	if (!c->dev) {
		kunit_err(test, "no ib_device %s (kunit.sh adds it)", KV_DEV);
		return -ENODEV;
	}
	for (i = 0; i < c->dev->port_data[1].immutable.gid_tbl_len && !c->gid; i++) {
		const struct ib_gid_attr *a = rdma_get_gid_attr(c->dev, 1, i);

		if (IS_ERR(a))
			continue;
		if (a->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((const struct in6_addr *)a->gid.raw))
			c->gid = a;
		else
			rdma_put_gid_attr(a);
	}
	if (c->gid) {
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(c->gid);
		if (!IS_ERR(ndev)) {
			ether_addr_copy(c->mac, ndev->dev_addr);
			have_mac = true;
		}
		rcu_read_unlock();
		c->dgid = c->gid->gid;
	}
	if (!have_mac) {
		kunit_err(test, "%s has no RoCEv2 IPv4 GID on a netdev", KV_DEV);
		return -ENODEV;
	}
	c->pd = ib_alloc_pd(c->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(c->pd)) {
		c->pd = NULL;
		return -ENOMEM;
	}
	c->buf = kzalloc(KV_BUF, GFP_KERNEL);
	if (!c->buf)
		return -ENOMEM;
	c->dma = ib_dma_map_single(c->dev, c->buf, KV_BUF, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(c->dev, c->dma)) {
		kfree(c->buf);
		c->buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void kv_exit(struct kunit *test)
{
	struct kv_ctx *c = test->priv;
	int i;

	if (!c || !c->dev)
		return;
	for (i = 0; i < 2; i++)
		if (c->qp[i])
			KUNIT_EXPECT_EQ(test, ib_destroy_qp(c->qp[i]), 0);
	if (c->cq)
		ib_free_cq(c->cq);
	if (c->buf) {
		ib_dma_unmap_single(c->dev, c->dma, KV_BUF, DMA_BIDIRECTIONAL);
		kfree(c->buf);
	}
	if (c->pd)
		ib_dealloc_pd(c->pd);
	if (c->gid)
		rdma_put_gid_attr(c->gid);
	ib_device_put(c->dev);
}

static struct ib_qp *kv_qp(struct kunit *test, enum ib_qp_type type, struct ib_cq *cq)
{
	struct kv_ctx *c = test->priv;
	struct ib_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};
	struct ib_qp *qp = ib_create_qp(c->pd, &init);

	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_EXPECT_GE(test, init.cap.max_send_wr, 16U);
	KUNIT_EXPECT_GE(test, init.cap.max_send_sge, 2U);
	return qp;
}

/* RESET -> INIT -> RTR -> RTS, towards remote (RC) or with KV_QKEY (UD). */
static void kv_up(struct kunit *test, struct ib_qp *qp, u32 remote)
{
	struct kv_ctx *c = test->priv;
	struct ib_qp_attr a = {};
	bool ud = qp->qp_type == IB_QPT_UD;
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	if (ud) {
		a.qkey = KV_QKEY;
		mask |= IB_QP_QKEY;
	} else {
		a.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC;
		mask |= IB_QP_ACCESS_FLAGS;
	}
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	mask = IB_QP_STATE;
	if (!ud) {
		a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
		rdma_ah_set_port_num(&a.ah_attr, 1);
		rdma_ah_set_grh(&a.ah_attr, &c->dgid, 0, c->gid->index, 64, 0);
		ether_addr_copy(a.ah_attr.roce.dmac, c->mac);
		a.path_mtu = IB_MTU_1024;
		a.dest_qp_num = remote;
		a.rq_psn = 0x100;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			IB_QP_MIN_RNR_TIMER;
	}
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0x100;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (!ud) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
	}
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &a, mask), 0);
}

/* A CQ polled as asked, and two RC QPs on it connected to each other. */
static void kv_rc_pair(struct kunit *test, enum ib_poll_context poll)
{
	struct kv_ctx *c = test->priv;

	c->cq = ib_alloc_cq(c->dev, NULL, 64, 0, poll);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->cq));
	c->qp[0] = kv_qp(test, IB_QPT_RC, c->cq);
	c->qp[1] = kv_qp(test, IB_QPT_RC, c->cq);
	kv_up(test, c->qp[0], c->qp[1]->qp_num);
	kv_up(test, c->qp[1], c->qp[0]->qp_num);
}

/* Polls until n completions arrived (5 s at most); returns how many. */
static int kv_poll(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	int got = 0, i;

	for (i = 0; i < 5000 && got < n; i++) {
		int r = ib_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return r;
		got += r;
		if (got < n)
			usleep_range(500, 1000);
	}
	return got;
}

static struct ib_sge kv_sge(struct kv_ctx *c, u32 off, u32 len)
{
	return (struct ib_sge){ .addr = c->dma + off, .length = len, .lkey = c->pd->local_dma_lkey };
}

static const struct ib_wc *kv_find(const struct ib_wc *wc, int n, u64 id)
{
	int i;

	for (i = 0; i < n; i++)
		if (wc[i].wr_id == id)
			return &wc[i];
	return NULL;
}

/* SEND (two SGEs), WRITE_WITH_IMM, READ and FETCH_ADD between two RC QPs. */
/* The requests of kverbs_rc_operations: too big for a KASAN stack frame. */
struct kv_rc_reqs {
	struct ib_sge s2[2], r2[2], one, imm_sge, rd, old;
	struct ib_recv_wr rwr, rwr2;
	struct ib_rdma_wr wwr, rdwr;
	struct ib_atomic_wr awr;
	struct ib_send_wr swr;
	struct ib_wc wc[8];
};

static void kverbs_rc_operations(struct kunit *test)
{
	struct kv_ctx *c = test->priv;
	struct kv_rc_reqs *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;
	const struct ib_wc *w;
	struct ib_wc *wc;
	u64 *word;
	int i, n;

	KUNIT_ASSERT_NOT_NULL(test, q);
	wc = q->wc;
	kv_rc_pair(test, IB_POLL_DIRECT);
	for (i = 0; i < 4096; i++)
		c->buf[i] = (u8)(i * 7 + 1);

	q->r2[0] = kv_sge(c, 4096, 1000);
	q->r2[1] = kv_sge(c, 6000, 1000);
	q->rwr.wr_id = 10;
	q->rwr.sg_list = q->r2;
	q->rwr.num_sge = 2;
	q->one = kv_sge(c, 7100, 16);
	q->rwr2.wr_id = 11;
	q->rwr2.sg_list = &q->one;
	q->rwr2.num_sge = 1;
	q->rwr.next = &q->rwr2;
	KUNIT_ASSERT_EQ(test, ib_post_recv(c->qp[1], &q->rwr, &rbad), 0);

	q->s2[0] = kv_sge(c, 0, 1200);
	q->s2[1] = kv_sge(c, 2000, 300);
	q->swr.wr_id = 1;
	q->swr.opcode = IB_WR_SEND;
	q->swr.send_flags = IB_SEND_SIGNALED;
	q->swr.sg_list = q->s2;
	q->swr.num_sge = 2;
	q->imm_sge = kv_sge(c, 100, 16);
	q->wwr.wr.wr_id = 2;
	q->wwr.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	q->wwr.wr.send_flags = IB_SEND_SIGNALED;
	q->wwr.wr.sg_list = &q->imm_sge;
	q->wwr.wr.num_sge = 1;
	q->wwr.wr.ex.imm_data = cpu_to_be32(0xabcd);
	q->wwr.remote_addr = c->dma + 8000;
	q->wwr.rkey = c->pd->unsafe_global_rkey ? c->pd->unsafe_global_rkey : c->pd->local_dma_lkey;
	q->swr.next = &q->wwr.wr;
	KUNIT_ASSERT_EQ(test, ib_post_send(c->qp[0], &q->swr, &bad), 0);
	n = kv_poll(c->cq, wc, 4);
	KUNIT_ASSERT_EQ(test, n, 4);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, wc[i].status, IB_WC_SUCCESS, "wr_id %llu", wc[i].wr_id);
	w = kv_find(wc, n, 10);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, w->byte_len, 1500U);
	KUNIT_EXPECT_PTR_EQ(test, w->qp, c->qp[1]);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf + 4096, c->buf, 1000), 0);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf + 6000, c->buf + 1000, 200), 0);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf + 6200, c->buf + 2000, 300), 0);
	w = kv_find(wc, n, 11);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->opcode, IB_WC_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_TRUE(test, w->wc_flags & IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(w->ex.imm_data), 0xabcdU);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf + 8000, c->buf + 100, 16), 0);
	w = kv_find(wc, n, 1);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->opcode, IB_WC_SEND);
	KUNIT_EXPECT_PTR_EQ(test, w->qp, c->qp[0]);

	/*
	 * READ back 1000 bytes, then a fetch-and-add through the PD's global
	 * rkey, which grants remote read and write but not atomics: the READ
	 * completes its data, the atomic fails with its own wr_id.
	 */
	word = (u64 *)(c->buf + 9000);
	*word = 40;
	q->rd = kv_sge(c, 10000, 1000);
	q->rdwr.wr.wr_id = 3;
	q->rdwr.wr.opcode = IB_WR_RDMA_READ;
	q->rdwr.wr.sg_list = &q->rd;
	q->rdwr.wr.num_sge = 1;
	q->rdwr.remote_addr = c->dma;
	q->rdwr.rkey = q->wwr.rkey;
	q->old = kv_sge(c, 11000, 8);
	q->awr.wr.wr_id = 4;
	q->awr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	q->awr.wr.send_flags = IB_SEND_SIGNALED;
	q->awr.wr.sg_list = &q->old;
	q->awr.wr.num_sge = 1;
	q->awr.remote_addr = c->dma + 9000;
	q->awr.rkey = q->wwr.rkey;
	q->awr.compare_add = 2;
	q->rdwr.wr.next = &q->awr.wr;
	KUNIT_ASSERT_EQ(test, ib_post_send(c->qp[0], &q->rdwr.wr, &bad), 0);
	n = kv_poll(c->cq, wc, 1);
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 4ULL);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, c->qp[0]);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf + 10000, c->buf, 1000), 0);
	KUNIT_EXPECT_EQ(test, *word, 40ULL);
}

/* Refusals: a send before RTS, too many SGEs, an opcode softcx has not. */
static void kverbs_post_refusals(struct kunit *test)
{
	struct kv_ctx *c = test->priv;
	struct ib_sge *sg = kunit_kcalloc(test, 32, sizeof(*sg), GFP_KERNEL);
	struct ib_send_wr swr = {};
	const struct ib_send_wr *bad = NULL;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, sg);
	c->cq = ib_alloc_cq(c->dev, NULL, 64, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->cq));
	c->qp[0] = kv_qp(test, IB_QPT_RC, c->cq);
	for (i = 0; i < 32; i++)
		sg[i] = kv_sge(c, i * 8, 8);
	swr.opcode = IB_WR_SEND;
	swr.sg_list = sg;
	swr.num_sge = 1;
	KUNIT_EXPECT_EQ(test, ib_post_send(c->qp[0], &swr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&swr);
	c->qp[1] = kv_qp(test, IB_QPT_RC, c->cq);
	kv_up(test, c->qp[0], c->qp[1]->qp_num);
	kv_up(test, c->qp[1], c->qp[0]->qp_num);
	/* More than the QP offers (it was created for 2; it may offer a few more). */
	swr.num_sge = 32;
	bad = NULL;
	KUNIT_EXPECT_EQ(test, ib_post_send(c->qp[0], &swr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&swr);
	swr.num_sge = 1;
	swr.opcode = IB_WR_RDMA_READ_WITH_INV;	/* iWARP's */
	bad = NULL;
	KUNIT_EXPECT_EQ(test, ib_post_send(c->qp[0], &swr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&swr);
}

struct kv_flush {
	struct ib_cqe cqe;
	atomic_t *flushed;
};

static void kv_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_flush *f = container_of(wc->wr_cqe, struct kv_flush, cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		atomic_inc(f->flushed);
}

/*
 * ib_drain_qp on a QP with receives posted (a softirq-polled CQ, so the
 * completion handler and the notify/missed-events path run): it returns,
 * and every receive was flushed.
 */
static void kverbs_drain(struct kunit *test)
{
	struct kv_ctx *c = test->priv;
	struct kv_flush f[3];
	struct ib_recv_wr rwr[3] = {};
	const struct ib_recv_wr *rbad;
	struct ib_sge sg[3];
	atomic_t flushed = ATOMIC_INIT(0);
	int i;

	kv_rc_pair(test, IB_POLL_SOFTIRQ);
	for (i = 0; i < 3; i++) {
		f[i].cqe.done = kv_recv_done;
		f[i].flushed = &flushed;
		sg[i] = kv_sge(c, i * 64, 64);
		rwr[i].wr_cqe = &f[i].cqe;
		rwr[i].sg_list = &sg[i];
		rwr[i].num_sge = 1;
		rwr[i].next = i < 2 ? &rwr[i + 1] : NULL;
	}
	KUNIT_ASSERT_EQ(test, ib_post_recv(c->qp[0], rwr, &rbad), 0);
	ib_drain_qp(c->qp[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&flushed), 3);
}

/*
 * A UD datagram through a kernel AH made with interrupts off (as ib_cm
 * makes them): the receive has the GRH slot with the IPv4 header, and
 * what the CM builds its reply from (ib_init_ah_attr_from_wc) works.
 */
static void kverbs_ud_ah(struct kunit *test)
{
	struct kv_ctx *c = test->priv;
	struct rdma_ah_attr aa = {}, back = {};
	struct ib_ud_wr uwr = {};
	struct ib_recv_wr rwr = {};
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;
	struct ib_sge s, r;
	struct ib_ah *ah;
	unsigned long flags;
	const struct ib_wc *w;
	struct ib_wc wc[2];
	int n;

	c->cq = ib_alloc_cq(c->dev, NULL, 64, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->cq));
	c->qp[0] = kv_qp(test, IB_QPT_UD, c->cq);
	c->qp[1] = kv_qp(test, IB_QPT_UD, c->cq);
	kv_up(test, c->qp[0], 0);
	kv_up(test, c->qp[1], 0);
	aa.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&aa, 1);
	rdma_ah_set_grh(&aa, &c->dgid, 0, c->gid->index, 64, 0);
	ether_addr_copy(aa.roce.dmac, c->mac);
	local_irq_save(flags);
	ah = rdma_create_ah(c->pd, &aa, 0);
	local_irq_restore(flags);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));

	r = kv_sge(c, 4096, 40 + 512);
	rwr.wr_id = 20;
	rwr.sg_list = &r;
	rwr.num_sge = 1;
	KUNIT_ASSERT_EQ(test, ib_post_recv(c->qp[1], &rwr, &rbad), 0);
	memset(c->buf, 0x5a, 256);
	s = kv_sge(c, 0, 256);
	uwr.wr.wr_id = 21;
	uwr.wr.opcode = IB_WR_SEND;
	uwr.wr.send_flags = IB_SEND_SIGNALED;
	uwr.wr.sg_list = &s;
	uwr.wr.num_sge = 1;
	uwr.ah = ah;
	uwr.remote_qpn = c->qp[1]->qp_num;
	uwr.remote_qkey = KV_QKEY;
	KUNIT_ASSERT_EQ(test, ib_post_send(c->qp[0], &uwr.wr, &bad), 0);
	n = kv_poll(c->cq, wc, 2);
	KUNIT_ASSERT_EQ(test, n, 2);
	w = kv_find(wc, n, 20);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, w->byte_len, 40U + 256);
	KUNIT_EXPECT_EQ(test, w->src_qp, c->qp[0]->qp_num);
	KUNIT_EXPECT_TRUE(test, w->wc_flags & IB_WC_GRH);
	KUNIT_EXPECT_TRUE(test, w->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE);
	KUNIT_EXPECT_EQ(test, w->network_hdr_type, RDMA_NETWORK_IPV4);
	/* RoCEv2 over IPv4: the last 20 bytes of the slot are the IP header. */
	KUNIT_EXPECT_EQ(test, c->buf[4096 + 20] >> 4, 4);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf + 4096 + 40, c->buf, 256), 0);
	KUNIT_EXPECT_EQ(test, ib_init_ah_attr_from_wc(c->dev, 1, w, (const struct ib_grh *)(c->buf + 4096), &back),
			0);
	rdma_destroy_ah_attr(&back);
	local_irq_save(flags);
	rdma_destroy_ah(ah, 0);
	local_irq_restore(flags);
}

/* Posts one signalled WR on qp and returns its completion's status. */
static int kv_one(struct kunit *test, struct ib_qp *qp, struct ib_send_wr *wr)
{
	struct kv_ctx *c = test->priv;
	const struct ib_send_wr *bad;
	struct ib_wc wc;

	wr->send_flags |= IB_SEND_SIGNALED;
	if (ib_post_send(qp, wr, &bad))
		return -1;
	if (kv_poll(c->cq, &wc, 1) != 1)
		return -2;
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr->wr_id);
	return wc.status;
}

/*
 * Fast registration as NVMe over RDMA uses it: ib_alloc_mr, ib_map_mr_sg
 * over two pages of a scatterlist, IB_WR_REG_MR; the peer writes through
 * the new rkey into both pages; IB_WR_LOCAL_INV ends it (the next write
 * fails with a remote access error).
 */
static void kverbs_frwr(struct kunit *test)
{
	struct kv_ctx *c = test->priv;
	struct ib_reg_wr reg = {};
	struct ib_rdma_wr wr = {};
	struct ib_send_wr inv = {};
	struct scatterlist sgl[2];
	struct ib_sge s;
	struct ib_mr *mr;
	u8 *pages;
	int n;

	kv_rc_pair(test, IB_POLL_DIRECT);
	KUNIT_ASSERT_TRUE(test, c->dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS);
	mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 8);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	pages = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, 2);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	/* Two pages in reverse order: the registration must follow the list. */
	sg_init_table(sgl, 2);
	sg_set_buf(&sgl[0], pages + 2 * PAGE_SIZE, PAGE_SIZE);
	sg_set_buf(&sgl[1], pages, PAGE_SIZE);
	n = ib_dma_map_sg(c->dev, sgl, 2, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sgl, n, NULL, PAGE_SIZE), n);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 30;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	KUNIT_EXPECT_EQ(test, kv_one(test, c->qp[0], &reg.wr), IB_WC_SUCCESS);

	memset(c->buf, 0xc3, 2 * PAGE_SIZE);
	s = kv_sge(c, 0, 2 * PAGE_SIZE);
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.wr_id = 31;
	wr.wr.sg_list = &s;
	wr.wr.num_sge = 1;
	wr.remote_addr = mr->iova;
	wr.rkey = mr->rkey;
	KUNIT_EXPECT_EQ(test, kv_one(test, c->qp[1], &wr.wr), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, pages[2 * PAGE_SIZE], 0xc3);
	KUNIT_EXPECT_EQ(test, pages[PAGE_SIZE - 1], 0xc3);
	KUNIT_EXPECT_EQ(test, pages[PAGE_SIZE], 0);

	inv.opcode = IB_WR_LOCAL_INV;
	inv.wr_id = 32;
	inv.ex.invalidate_rkey = mr->rkey;
	KUNIT_EXPECT_EQ(test, kv_one(test, c->qp[0], &inv), IB_WC_SUCCESS);
	wr.wr.wr_id = 33;
	KUNIT_EXPECT_EQ(test, kv_one(test, c->qp[1], &wr.wr), IB_WC_REM_ACCESS_ERR);

	ib_dma_unmap_sg(c->dev, sgl, 2, DMA_BIDIRECTIONAL);
	free_pages((unsigned long)pages, 2);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * A kernel SRQ (what nvmet uses with use_srq): ib_create_srq,
 * ib_post_srq_recv, a QP created on it receiving three sends into the
 * SRQ's buffers, each completion naming its receive.
 */
static void kverbs_srq(struct kunit *test)
{
	struct kv_ctx *c = test->priv;
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};
	struct ib_wc *wc = kunit_kcalloc(test, 6, sizeof(*wc), GFP_KERNEL);
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *bad;
	struct ib_recv_wr rwr = {};
	struct ib_send_wr swr = {};
	struct ib_sge s, r;
	struct ib_srq *srq;
	int i, n, recvs = 0;

	KUNIT_ASSERT_NOT_NULL(test, wc);
	c->cq = ib_alloc_cq(c->dev, NULL, 64, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->cq));
	srq = ib_create_srq(c->pd, &sa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	KUNIT_EXPECT_GE(test, sa.attr.max_wr, 8U);
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.srq = srq;
	c->qp[1] = ib_create_qp(c->pd, &qa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->qp[1]));
	c->qp[0] = kv_qp(test, IB_QPT_RC, c->cq);
	kv_up(test, c->qp[0], c->qp[1]->qp_num);
	kv_up(test, c->qp[1], c->qp[0]->qp_num);
	for (i = 0; i < 3; i++) {
		r = kv_sge(c, 4096 + i * 1024, 1024);
		rwr.wr_id = 50 + i;
		rwr.sg_list = &r;
		rwr.num_sge = 1;
		KUNIT_ASSERT_EQ(test, ib_post_srq_recv(srq, &rwr, &rbad), 0);
	}
	for (i = 0; i < 3; i++) {
		memset(c->buf + i * 512, 0x10 + i, 512);
		s = kv_sge(c, i * 512, 300 + i);
		swr.wr_id = 60 + i;
		swr.opcode = IB_WR_SEND;
		swr.send_flags = IB_SEND_SIGNALED;
		swr.sg_list = &s;
		swr.num_sge = 1;
		KUNIT_ASSERT_EQ(test, ib_post_send(c->qp[0], &swr, &bad), 0);
	}
	n = kv_poll(c->cq, wc, 6);
	KUNIT_ASSERT_EQ(test, n, 6);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		if (wc[i].opcode != IB_WC_RECV)
			continue;
		recvs++;
		/* Receives are taken in order: receive k holds send k. */
		KUNIT_EXPECT_EQ(test, wc[i].byte_len, 300U + (u32)(wc[i].wr_id - 50));
		KUNIT_EXPECT_EQ(test, c->buf[4096 + (wc[i].wr_id - 50) * 1024], 0x10 + (u8)(wc[i].wr_id - 50));
	}
	KUNIT_EXPECT_EQ(test, recvs, 3);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(c->qp[1]), 0);
	c->qp[1] = NULL;
	ib_destroy_srq(srq);
}

/* QP1 as ib_mad drives it: one agent sends a MAD and receives it. */
#define KV_MAD_CLASS 0x0a	/* vendor range 1: no OUI, no other user */
#define KV_MAD_TID 0x5c0f7e57a11ce5ULL

struct kv_mad {
	struct completion sent, got;
	enum ib_wc_status send_status;
	u8 mad[IB_MGMT_MAD_SIZE];
	enum ib_wc_status status;
	u32 src_qp, byte_len;
	int wc_flags;
	u8 network_hdr_type;
	u16 pkey_index;
	int recvs;
};

static void kv_mad_sent(struct ib_mad_agent *agent, struct ib_mad_send_wc *wc)
{
	struct kv_mad *m = agent->context;

	m->send_status = wc->status;
	/* The buffer holds a reference on the agent: freed here, as ib_mad's
	 * clients do, or the agent could not be unregistered.
	 */
	ib_free_send_mad(wc->send_buf);
	complete(&m->sent);
}

static void kv_mad_recv(struct ib_mad_agent *agent, struct ib_mad_send_buf *sb,
			struct ib_mad_recv_wc *rwc)
{
	struct kv_mad *m = agent->context;

	if (!m->recvs++) {
		memcpy(m->mad, rwc->recv_buf.mad, sizeof(m->mad));
		m->status = rwc->wc->status;
		m->src_qp = rwc->wc->src_qp;
		m->byte_len = rwc->wc->byte_len;
		m->wc_flags = rwc->wc->wc_flags;
		m->network_hdr_type = rwc->wc->network_hdr_type;
		m->pkey_index = rwc->wc->pkey_index;
	}
	ib_free_recv_mad(rwc);
	complete(&m->got);
}

static struct ib_mad_send_buf *kv_mad_build(struct ib_mad_agent *agent, struct ib_ah *ah)
{
	struct ib_mad_send_buf *sb;
	struct ib_mad_hdr *h;

	sb = ib_create_send_mad(agent, 1, 0, 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA, GFP_KERNEL,
				IB_MGMT_BASE_VERSION);
	if (IS_ERR(sb))
		return sb;
	h = sb->mad;
	h->base_version = IB_MGMT_BASE_VERSION;
	h->mgmt_class = KV_MAD_CLASS;
	h->class_version = 1;
	h->method = IB_MGMT_METHOD_GET;
	h->tid = cpu_to_be64(KV_MAD_TID);
	memset((u8 *)sb->mad + IB_MGMT_MAD_HDR, 0xa5, IB_MGMT_MAD_DATA);
	sb->ah = ah;
	sb->timeout_ms = 0;
	sb->retries = 0;
	return sb;
}

static void kverbs_qp1_mad(struct kunit *test)
{
	struct kv_ctx *c = test->priv;
	struct ib_mad_reg_req req = { .mgmt_class = KV_MAD_CLASS, .mgmt_class_version = 1 };
	struct kv_mad *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct rdma_ah_attr aa = {};
	struct ib_mad_send_buf *sb;
	struct ib_mad_agent *agent;
	struct ib_mad_hdr *h;
	struct ib_ah *ah;
	int i, ret;

	KUNIT_ASSERT_NOT_NULL(test, m);
	init_completion(&m->sent);
	init_completion(&m->got);
	set_bit(IB_MGMT_METHOD_GET, req.method_mask);
	agent = ib_register_mad_agent(c->dev, 1, IB_QPT_GSI, &req, 0, kv_mad_sent, kv_mad_recv, m, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(agent));
	KUNIT_EXPECT_EQ(test, agent->qp->qp_num, 1U);
	aa.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&aa, 1);
	rdma_ah_set_grh(&aa, &c->dgid, 0, c->gid->index, 64, 0);
	ether_addr_copy(aa.roce.dmac, c->mac);
	ah = rdma_create_ah(agent->qp->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		ib_unregister_mad_agent(agent);
		KUNIT_FAIL(test, "rdma_create_ah: %ld", PTR_ERR(ah));
		return;
	}
	sb = kv_mad_build(agent, ah);
	ret = IS_ERR(sb) ? PTR_ERR(sb) : ib_post_send_mad(sb, NULL);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&m->sent, 10 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, m->send_status, IB_WC_SUCCESS);
		KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&m->got, 10 * HZ), 0UL);
	} else if (!IS_ERR(sb)) {
		ib_free_send_mad(sb);
	}
	/* A send still on QP1 completes (flushed) before the agent goes. */
	ib_unregister_mad_agent(agent);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (ret || !m->recvs)
		return;
	/* What ib_cm and rdma_cm read of a RoCE MAD's completion. */
	KUNIT_EXPECT_EQ(test, m->recvs, 1);
	KUNIT_EXPECT_EQ(test, m->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, m->src_qp, 1U);
	KUNIT_EXPECT_EQ(test, m->byte_len, 40U + IB_MGMT_MAD_SIZE);
	KUNIT_EXPECT_TRUE(test, m->wc_flags & IB_WC_GRH);
	KUNIT_EXPECT_TRUE(test, m->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE);
	KUNIT_EXPECT_EQ(test, m->network_hdr_type, RDMA_NETWORK_IPV4);
	KUNIT_EXPECT_EQ(test, m->pkey_index, 0);
	h = (struct ib_mad_hdr *)m->mad;
	KUNIT_EXPECT_EQ(test, h->mgmt_class, KV_MAD_CLASS);
	KUNIT_EXPECT_EQ(test, h->method, IB_MGMT_METHOD_GET);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(h->tid), KV_MAD_TID);
	for (i = IB_MGMT_MAD_HDR; i < IB_MGMT_MAD_SIZE && m->mad[i] == 0xa5; i++)
		;
	KUNIT_EXPECT_EQ(test, i, IB_MGMT_MAD_SIZE);
}

static struct kunit_case kverbs_cases[] = {
	KUNIT_CASE(kverbs_rc_operations),
	KUNIT_CASE(kverbs_post_refusals),
	KUNIT_CASE(kverbs_drain),
	KUNIT_CASE(kverbs_ud_ah),
	KUNIT_CASE(kverbs_frwr),
	KUNIT_CASE(kverbs_srq),
	KUNIT_CASE(kverbs_qp1_mad),
	{}
};

static struct kunit_suite kverbs_suite = {
	.name = "softcx_kverbs",
	.init = kv_init,
	.exit = kv_exit,
	.test_cases = kverbs_cases,
};
kunit_test_suite(kverbs_suite);
