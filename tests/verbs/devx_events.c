// SPDX-License-Identifier: GPL-2.0
/*
 * devx_events: DevX event channels and asynchronous commands in a DevX
 * context (softcx's default, devx=1).
 *
 *   devx_events -d DEV -D DEBUGFS_DIR -N NETDEV
 *
 *   devx_event_port      three subscriptions to the port's state change
 *                        (unaffiliated): a channel with data, one without
 *                        (OMIT_DATA) and an eventfd. NETDEV down and up:
 *                        the first reads two events, its cookie and the
 *                        EQE (type 0x9, sub types down then active); the
 *                        second one cookie (its events coalesce); the
 *                        eventfd counts; the eventfd's channel reads none
 *   devx_event_refused   a completion without an object, a QP's event on
 *                        a CQ: EINVAL; a DevX CQ's completion: subscribed,
 *                        and gone with the CQ
 *   devx_async_query     QUERY_CQ of a DevX CQ through the async command
 *                        fd: the answer with its wr_id; a query the CQ
 *                        cannot take: EINVAL at once, nothing queued
 *   devx_dct             a DCT made through DEVX_OBJ on the context's
 *                        verbs PD, CQ and SRQ (as UCX's DevX path makes
 *                        its DC targets): QUERY_DCT through its handle
 *                        gives back its key; DRAIN_DCT through it raises
 *                        DCT_DRAINED on a subscribed channel and leaves
 *                        the DCT drained; its destroy succeeds after that
 *   devx_event_cleanup   the subscriptions counted in debugfs back to the
 *                        baseline once channels and objects are gone
 *   devx_event_kill9     a process holding a channel, subscriptions, a
 *                        DevX CQ on umems, a DevX DCT and an unread async
 *                        answer, killed: every debugfs object count (DevX
 *                        objects, umems, subscriptions, contexts, verbs
 *                        objects) back to its baseline
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "vt.h"

#define EV_PORT_CHANGE 0x09
#define EV_COMP 0x00
#define EV_COMM_EST 0x02
#define OP_QUERY_CQ 0x402
#define OP_QUERY_QP 0x50b
#define OP_CREATE_DCT 0x710
#define OP_DRAIN_DCT 0x712
#define OP_QUERY_DCT 0x713
#define EV_DCT_DRAINED 0x1c
/* The dctc in CREATE_DCT's input and QUERY_DCT's output, in bits. */
#define DCTC 0x80
#define DCT_KEY 0x5ca1ab1e0ddba11ULL

static const char *dbg, *netdev;

static long long subs(void)
{
	return vt_counter(dbg, "objects", "devx_sub");
}

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static bool link_set(const char *state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ip link set dev %s %s", netdev, state);
	return system(cmd) == 0;
}

/* One event with data from ch within 5 s: its cookie, type and sub type. */
static bool port_event(struct mlx5dv_devx_event_channel *ch, uint64_t *cookie, int *type, int *sub)
{
	uint8_t buf[sizeof(struct mlx5dv_devx_async_event_hdr) + 64];
	struct mlx5dv_devx_async_event_hdr *h = (void *)buf;
	ssize_t n;

	if (!readable(ch->fd, 5000))
		return false;
	n = mlx5dv_devx_get_event(ch, h, sizeof(buf));
	if (n != (ssize_t)sizeof(buf))
		return false;
	*cookie = h->cookie;
	*type = h->out_data[1];
	*sub = h->out_data[3];
	return true;
}

static void port_events(struct ibv_context *ctx)
{
	struct mlx5dv_devx_event_channel *data = mlx5dv_devx_create_event_channel(ctx, 0);
	struct mlx5dv_devx_event_channel *omit =
		mlx5dv_devx_create_event_channel(ctx, MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
	struct mlx5dv_devx_event_channel *quiet = mlx5dv_devx_create_event_channel(ctx, 0);
	uint16_t ev = EV_PORT_CHANGE;
	int efd = eventfd(0, EFD_NONBLOCK);
	long long base = subs(), held = -1;
	uint64_t c1 = 0, c2 = 0, c3 = 0, count = 0;
	int t1 = -1, s1 = -1, t2 = -1, s2 = -1;
	bool made, second_omit = true, quiet_empty;
	ssize_t n = -1;

	made = data && omit && quiet && efd >= 0 &&
	       !mlx5dv_devx_subscribe_devx_event(data, NULL, sizeof(ev), &ev, 0xc0ffee) &&
	       !mlx5dv_devx_subscribe_devx_event(omit, NULL, sizeof(ev), &ev, 0xfeed) &&
	       !mlx5dv_devx_subscribe_devx_event_fd(quiet, efd, NULL, ev);
	held = subs();
	if (made && link_set("down") && link_set("up")) {
		port_event(data, &c1, &t1, &s1);
		port_event(data, &c2, &t2, &s2);
		if (readable(omit->fd, 5000))
			n = mlx5dv_devx_get_event(omit, (void *)&c3, sizeof(c3));
		/* Both changes are one pending cookie: no second read. */
		second_omit = readable(omit->fd, 200);
		for (int i = 0; i < 50 && read(efd, &count, sizeof(count)) != sizeof(count); i++)
			usleep(100000);
	}
	quiet_empty = quiet && !readable(quiet->fd, 0);
	vt_result("devx_event_port",
		  made && held == base + 3 && c1 == 0xc0ffee && t1 == EV_PORT_CHANGE && s1 == 1 &&
		  c2 == 0xc0ffee && t2 == EV_PORT_CHANGE && s2 == 4 && n == sizeof(c3) && c3 == 0xfeed &&
		  !second_omit && count >= 1 && quiet_empty,
		  "subscriptions %lld -> %lld; data: 0x%llx type 0x%x sub %d, 0x%llx type 0x%x sub %d; "
		  "omit: %zd bytes 0x%llx, again %s; eventfd %llu, its channel %s",
		  base, held, (unsigned long long)c1, t1, s1, (unsigned long long)c2, t2, s2, n,
		  (unsigned long long)c3, second_omit ? "yes" : "no", (unsigned long long)count,
		  quiet_empty ? "empty" : "not empty");
	if (data)
		mlx5dv_devx_destroy_event_channel(data);
	if (omit)
		mlx5dv_devx_destroy_event_channel(omit);
	if (quiet)
		mlx5dv_devx_destroy_event_channel(quiet);
	if (efd >= 0)
		close(efd);
}

struct dcq {
	struct mlx5dv_devx_umem *ring, *rec;
	struct mlx5dv_devx_obj *obj;
	uint32_t cqn;
};

static uint8_t ring_mem[4096] __attribute__((aligned(4096))), rec_mem[4096] __attribute__((aligned(4096)));

static bool dcq_make(struct ibv_context *ctx, struct dcq *c)
{
	struct mlx5dv_devx_uar *uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	uint32_t eqn;

	memset(c, 0, sizeof(*c));
	c->ring = mlx5dv_devx_umem_reg(ctx, ring_mem, sizeof(ring_mem), IBV_ACCESS_LOCAL_WRITE);
	c->rec = mlx5dv_devx_umem_reg(ctx, rec_mem, sizeof(rec_mem), IBV_ACCESS_LOCAL_WRITE);
	if (!uar || !c->ring || !c->rec || mlx5dv_devx_query_eqn(ctx, 0, &eqn))
		return false;
	c->obj = vt_devx_cq(ctx, uar->page_id, eqn, c->ring->umem_id, c->rec->umem_id, &c->cqn);
	return c->obj != NULL;
}

static void dcq_free(struct dcq *c)
{
	if (c->obj)
		mlx5dv_devx_obj_destroy(c->obj);
	if (c->ring)
		mlx5dv_devx_umem_dereg(c->ring);
	if (c->rec)
		mlx5dv_devx_umem_dereg(c->rec);
}

static void refused(struct ibv_context *ctx)
{
	struct mlx5dv_devx_event_channel *ch = mlx5dv_devx_create_event_channel(ctx, 0);
	uint16_t comp = EV_COMP, est = EV_COMM_EST;
	long long base = subs(), held = -1, after = -1;
	int no_obj = -1, wrong = -1, ok = -1;
	struct dcq c;

	if (ch && dcq_make(ctx, &c)) {
		no_obj = mlx5dv_devx_subscribe_devx_event(ch, NULL, sizeof(comp), &comp, 1);
		wrong = mlx5dv_devx_subscribe_devx_event(ch, c.obj, sizeof(est), &est, 2);
		ok = mlx5dv_devx_subscribe_devx_event(ch, c.obj, sizeof(comp), &comp, 3);
		held = subs();
		mlx5dv_devx_obj_destroy(c.obj);
		c.obj = NULL;
		after = subs();
	}
	vt_result("devx_event_refused",
		  no_obj == EINVAL && wrong == EINVAL && !ok && held == base + 1 && after == base,
		  "completion without an object: %s; COMM_EST on a CQ: %s; completion on the CQ: %s; "
		  "subscriptions %lld -> %lld, %lld once the CQ is gone",
		  strerror(no_obj), strerror(wrong), strerror(ok), base, held, after);
	dcq_free(&c);
	if (ch)
		mlx5dv_devx_destroy_event_channel(ch);
}

static void async_query(struct ibv_context *ctx)
{
	struct mlx5dv_devx_cmd_comp *comp = mlx5dv_devx_create_cmd_comp(ctx);
	uint8_t in[16], resp[sizeof(struct mlx5dv_devx_async_cmd_hdr) + 0x110];
	struct mlx5dv_devx_async_cmd_hdr *h = (void *)resp;
	int sent = -1, got = -1, bad = -1;
	bool left = true;
	struct dcq c;

	memset(resp, 0, sizeof(resp));
	if (comp && dcq_make(ctx, &c)) {
		vt_hdr(in, OP_QUERY_CQ, 0);
		vt_prm_put(in, 0x48, 24, c.cqn);
		sent = mlx5dv_devx_obj_query_async(c.obj, in, sizeof(in), 0x110, 0x5eed, comp);
		if (!sent && readable(comp->fd, 5000))
			got = mlx5dv_devx_get_async_cmd_comp(comp, h, sizeof(resp));
		vt_hdr(in, OP_QUERY_QP, 0);
		bad = mlx5dv_devx_obj_query_async(c.obj, in, sizeof(in), 0x110, 0xbad, comp);
		left = readable(comp->fd, 200);
	}
	vt_result("devx_async_query",
		  !sent && !got && h->wr_id == 0x5eed && !h->out_data[0] &&
		  vt_prm_get(h->out_data + VT_CQC, 0x63, 5) == 6 && bad == EINVAL && !left,
		  "QUERY_CQ: %s, answer %s, wr_id 0x%llx, status 0x%x, log_cq_size %u; QUERY_QP of the CQ: %s%s",
		  strerror(sent), strerror(got), (unsigned long long)h->wr_id, h->out_data[0],
		  vt_prm_get(h->out_data + VT_CQC, 0x63, 5), strerror(bad), left ? ", but an answer queued" : "");
	dcq_free(&c);
	if (comp)
		mlx5dv_devx_destroy_cmd_comp(comp);
}

/* What a DevX DCT stands on: verbs objects of the DevX context. */
struct dct {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct mlx5dv_devx_obj *obj;
	uint32_t dctn;
};

static bool dct_make(struct ibv_context *ctx, struct dct *d)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	uint8_t in[0x80] = { 0 }, out[0x10] = { 0 };
	struct mlx5dv_pd dpd = { 0 };
	struct mlx5dv_cq dcq = { 0 };
	struct mlx5dv_srq dsrq = { .comp_mask = MLX5DV_SRQ_MASK_SRQN };
	struct mlx5dv_obj o = { 0 };

	memset(d, 0, sizeof(*d));
	d->pd = ibv_alloc_pd(ctx);
	d->cq = d->pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	d->srq = d->cq ? ibv_create_srq(d->pd, &sa) : NULL;
	if (!d->srq)
		return false;
	o.pd.in = d->pd;
	o.pd.out = &dpd;
	o.cq.in = d->cq;
	o.cq.out = &dcq;
	o.srq.in = d->srq;
	o.srq.out = &dsrq;
	if (mlx5dv_init_obj(&o, MLX5DV_OBJ_PD | MLX5DV_OBJ_CQ | MLX5DV_OBJ_SRQ))
		return false;
	vt_hdr(in, OP_CREATE_DCT, 0);
	vt_prm_put(in, DCTC + 0x48, 24, dcq.cqn);
	vt_prm_put(in, DCTC + 0xa8, 24, dsrq.srqn);
	vt_prm_put(in, DCTC + 0xc8, 24, dpd.pdn);
	vt_prm_put(in, DCTC + 0x100, 32, DCT_KEY >> 32);
	vt_prm_put(in, DCTC + 0x120, 32, (uint32_t)DCT_KEY);
	vt_prm_put(in, DCTC + 0x6c, 2, 3); /* rre, rwe */
	vt_prm_put(in, DCTC + 0x145, 3, 3); /* 1024 */
	vt_prm_put(in, DCTC + 0x148, 8, 1);
	vt_prm_put(in, DCTC + 0x178, 8, 64);
	d->obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	d->dctn = vt_prm_get(out, 0x48, 24);
	return d->obj != NULL;
}

static void dct_free(struct dct *d)
{
	if (d->obj)
		mlx5dv_devx_obj_destroy(d->obj);
	if (d->srq)
		ibv_destroy_srq(d->srq);
	if (d->cq)
		ibv_destroy_cq(d->cq);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
}

/* QUERY_DCT through the object's handle: its state (-1 if refused). */
static int dct_state(struct dct *d, uint64_t *key)
{
	uint8_t in[0x10] = { 0 }, out[0x80] = { 0 };

	vt_hdr(in, OP_QUERY_DCT, 0);
	vt_prm_put(in, 0x48, 24, d->dctn);
	if (mlx5dv_devx_obj_query(d->obj, in, sizeof(in), out, sizeof(out)))
		return -1;
	*key = (uint64_t)vt_prm_get(out, DCTC + 0x100, 32) << 32 | vt_prm_get(out, DCTC + 0x120, 32);
	return vt_prm_get(out, DCTC + 0x4, 4);
}

static void dct_drain(struct ibv_context *ctx)
{
	struct mlx5dv_devx_event_channel *ch = mlx5dv_devx_create_event_channel(ctx, 0);
	uint8_t in[0x10] = { 0 }, out[0x10] = { 0 };
	uint8_t buf[sizeof(struct mlx5dv_devx_async_event_hdr) + 64];
	struct mlx5dv_devx_async_event_hdr *h = (void *)buf;
	uint16_t ev = EV_DCT_DRAINED;
	int active = -1, drained = -1, drain = -1, type = -1, gone = -1;
	uint64_t key = 0, k2;
	uint32_t evdct = 0;
	struct dct d = { 0 };
	bool made;

	made = ch && dct_make(ctx, &d);
	if (made && !mlx5dv_devx_subscribe_devx_event(ch, d.obj, sizeof(ev), &ev, 0xdc7)) {
		active = dct_state(&d, &key);
		vt_hdr(in, OP_DRAIN_DCT, 0);
		vt_prm_put(in, 0x48, 24, d.dctn);
		drain = mlx5dv_devx_obj_modify(d.obj, in, sizeof(in), out, sizeof(out));
		if (!drain && readable(ch->fd, 5000) &&
		    mlx5dv_devx_get_event(ch, h, sizeof(buf)) == (ssize_t)sizeof(buf) && h->cookie == 0xdc7) {
			type = h->out_data[1];
			/* struct mlx5_eqe_dct: the DCT number after 24 bytes of data. */
			evdct = vt_prm_get(h->out_data, 0x100 + 0xc0, 32) & 0xffffff;
		}
		drained = dct_state(&d, &k2);
		gone = mlx5dv_devx_obj_destroy(d.obj);
		if (!gone)
			d.obj = NULL;
	}
	vt_result("devx_dct",
		  made && active == 0 && key == DCT_KEY && !drain && type == EV_DCT_DRAINED &&
			  evdct == d.dctn && drained == 2 && !gone,
		  "DCT 0x%x: state %d key 0x%llx; DRAIN_DCT %s, event 0x%x for 0x%x, then state %d; destroy %s",
		  made ? d.dctn : 0, active, (unsigned long long)key, strerror(drain), type, evdct, drained,
		  strerror(gone));
	if (made || d.pd)
		dct_free(&d);
	if (ch)
		mlx5dv_devx_destroy_event_channel(ch);
}

/* The child: holds everything, says so, waits for its SIGKILL. */
static void holder(const char *dev, int tell)
{
	int err;
	struct ibv_context *ctx = vt_devx_open(dev, &err);
	struct mlx5dv_devx_event_channel *ch = ctx ? mlx5dv_devx_create_event_channel(ctx, 0) : NULL;
	struct mlx5dv_devx_cmd_comp *comp = ctx ? mlx5dv_devx_create_cmd_comp(ctx) : NULL;
	uint16_t port = EV_PORT_CHANGE, compl = EV_COMP;
	uint8_t in[16];
	char ok = 0;
	struct dcq c;
	struct dct d = { 0 };

	if (ch && comp && dcq_make(ctx, &c) && dct_make(ctx, &d) &&
	    !mlx5dv_devx_subscribe_devx_event(ch, NULL, sizeof(port), &port, 1) &&
	    !mlx5dv_devx_subscribe_devx_event(ch, c.obj, sizeof(compl), &compl, 2)) {
		vt_hdr(in, OP_QUERY_CQ, 0);
		vt_prm_put(in, 0x48, 24, c.cqn);
		ok = !mlx5dv_devx_obj_query_async(c.obj, in, sizeof(in), 0x110, 1, comp);
	}
	if (write(tell, &ok, 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

static long objs_of(const struct vt_objects *o, const char *name)
{
	for (int i = 0; i < o->n; i++)
		if (!strcmp(o->name[i], name))
			return o->val[i];
	return -1;
}

static void kill9(const char *dev)
{
	struct vt_objects base, held = { 0 };
	char diff[256] = "";
	bool back = false;
	int p[2];
	char ok = 0;
	pid_t pid;

	if (pipe(p) || !vt_objects_read(dbg, &base)) {
		vt_result("devx_event_kill9", false, "setup: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (!pid)
		holder(dev, p[1]);
	if (pid > 0 && read(p[0], &ok, 1) == 1 && ok)
		vt_objects_read(dbg, &held);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		back = vt_objects_settle(dbg, &base, 5000, diff, sizeof(diff));
	}
	/* Held: 2 subscriptions, the CQ and the DCT, the CQ's 2 umems. */
	vt_result("devx_event_kill9",
		  ok && objs_of(&held, "devx_sub") == objs_of(&base, "devx_sub") + 2 &&
			  objs_of(&held, "devx_obj") == objs_of(&base, "devx_obj") + 2 &&
			  objs_of(&held, "umem") == objs_of(&base, "umem") + 2 && back,
		  "held: subscriptions %ld, DevX objects %ld, umems %ld (baseline %ld, %ld, %ld); "
		  "after SIGKILL every count back to its baseline: %s%s",
		  objs_of(&held, "devx_sub"), objs_of(&held, "devx_obj"), objs_of(&held, "umem"),
		  objs_of(&base, "devx_sub"), objs_of(&base, "devx_obj"), objs_of(&base, "umem"),
		  back ? "yes" : "no:", diff);
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	struct ibv_context *ctx;
	long long base;
	int c, err;

	while ((c = getopt(argc, argv, "d:D:N:")) != -1) {
		if (c == 'd')
			dev = optarg;
		else if (c == 'D')
			dbg = optarg;
		else if (c == 'N')
			netdev = optarg;
	}
	if (!dev || !dbg || !netdev) {
		fprintf(stderr, "usage: %s -d DEV -D DEBUGFS_DIR -N NETDEV\n", argv[0]);
		return 2;
	}
	base = subs();
	ctx = vt_devx_open(dev, &err);
	if (!ctx) {
		vt_result("devx_event_port", false, "no DevX context: %s", strerror(err));
		return 1;
	}
	refused(ctx);
	async_query(ctx);
	port_events(ctx);
	dct_drain(ctx);
	ibv_close_device(ctx);
	vt_result("devx_event_cleanup", subs() == base, "subscriptions %lld, baseline %lld", subs(), base);
	kill9(dev);
	return vt_failures ? 1 : 0;
}
