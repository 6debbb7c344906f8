// SPDX-License-Identifier: GPL-2.0
/*
 * robust: the device under abuse from plain libibverbs processes.
 *
 *   robust -d DEV -g GIDX -D DEBUGFS_DIR MODE [-r ROUNDS] [-n N] [-t SECS] [-s SEED] [-F]
 *          [-w traffic|churn|many]
 *
 * Modes:
 *   traffic  one process's RC traffic (RDMA WRITE + SEND through an SRQ on a
 *            self-connected QP pair, every byte checked) for -t SECS, or
 *            until SIGTERM; with -F it must instead end by the device's
 *            IBV_EVENT_DEVICE_FATAL within -t SECS (device removed, firmware
 *            dead). Prints "READY" when running and "DONE ..." at its end.
 *   kill     -r ROUNDS: each round forks 1-3 processes (traffic, object
 *            churn, or many objects plus traffic), SIGKILLs them at a random
 *            moment, and requires debugfs objects back to baseline (-D -:
 *            a device without softcx's debugfs, such as rxe0: not checked). A
 *            bystander runs traffic throughout and must never stall.
 *   threads  -n N threads create and destroy every kind of object in one
 *            context (-r ROUNDS each) while another thread runs traffic.
 * RESULT lines as the harness wants them; counts for make check's summary
 * appear as "[COUNT name=N]".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vt.h"

#define PAGE 4096
#define BUF_LEN (4 * PAGE)
#define MSG_LEN 256
#define OP_DEADLINE_MS 10000

struct opts {
	const char *dev;
	const char *dbg;
	int gidx;
	int rounds;
	int threads;
	int secs;
	uint64_t seed;
	bool expect_fatal;
	int workload;		/* -w: kill rounds use only this one; -1: any */
};

static struct opts o = { .gidx = 0, .rounds = 20, .threads = 4, .secs = 0, .seed = 1, .workload = -1 };
static volatile sig_atomic_t stop_requested;
static atomic_bool device_fatal;

static void on_term(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* ---- async events: the one that matters here is DEVICE_FATAL ---------- */

static void *async_thread(void *arg)
{
	struct ibv_context *ctx = arg;
	struct ibv_async_event ev;

	while (!ibv_get_async_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			atomic_store(&device_fatal, true);
		ibv_ack_async_event(&ev);
		if (atomic_load(&device_fatal))
			break;
	}
	return NULL;
}

/* ---- traffic: a self-connected RC pair, one SRQ, checked bytes --------- */

struct traffic {
	struct ibv_context *ctx;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	uint8_t *buf;		/* [0, 2 pages): source; [2 pages, 4 pages): sink */
	long long ops;
	const char *error;	/* what went wrong; NULL while all is well */
};

static bool traffic_up(struct traffic *t, struct ibv_context *ctx)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 16, .max_recv_wr = 16,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

	memset(t, 0, sizeof(*t));
	t->ctx = ctx;
	if (ibv_query_gid(ctx, 1, o.gidx, &t->gid) || !(t->pd = ibv_alloc_pd(ctx)) ||
	    !(t->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0)) ||
	    !(t->srq = ibv_create_srq(t->pd, &sa)) || posix_memalign((void **)&t->buf, PAGE, BUF_LEN))
		return false;
	memset(t->buf, 0, BUF_LEN);
	t->mr = ibv_reg_mr(t->pd, t->buf, BUF_LEN, access);
	qa.send_cq = qa.recv_cq = t->cq;
	if (!t->mr || !(t->qp[0] = ibv_create_qp(t->pd, &qa)))
		return false;
	qa.srq = t->srq;
	if (!(t->qp[1] = ibv_create_qp(t->pd, &qa)))
		return false;
	return vt_connect_rc(t->qp[0], t->qp[1]->qp_num, &t->gid, o.gidx, access) &&
	       vt_connect_rc(t->qp[1], t->qp[0]->qp_num, &t->gid, o.gidx, access);
}

static void traffic_down(struct traffic *t)
{
	for (int i = 1; i >= 0; i--)
		if (t->qp[i])
			ibv_destroy_qp(t->qp[i]);
	if (t->srq)
		ibv_destroy_srq(t->srq);
	if (t->mr)
		ibv_dereg_mr(t->mr);
	if (t->cq)
		ibv_destroy_cq(t->cq);
	if (t->pd)
		ibv_dealloc_pd(t->pd);
	free(t->buf);
	t->buf = NULL;
}

/* Wait for n completions; false (t->error set) on an error or a stall. */
static bool traffic_reap(struct traffic *t, int n)
{
	long long deadline = vt_now_ms() + OP_DEADLINE_MS;
	struct ibv_wc wc[4];

	while (n > 0) {
		int got = ibv_poll_cq(t->cq, 4, wc);

		if (got < 0) {
			t->error = "ibv_poll_cq failed";
			return false;
		}
		for (int i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				t->error = ibv_wc_status_str(wc[i].status);
				return false;
			}
		n -= got;
		if (got)
			continue;
		if (atomic_load(&device_fatal))
			return false;
		if (vt_now_ms() > deadline) {
			t->error = "stalled: no completion for 10 s";
			return false;
		}
		usleep(50);
	}
	return true;
}

/* One RDMA WRITE (two pages) and one SEND, each checked at the sink. */
static bool traffic_op(struct traffic *t)
{
	uint8_t *src = t->buf, *dst = t->buf + 2 * PAGE, v = (uint8_t)(t->ops * 7 + 1);
	struct ibv_sge ws = { (uintptr_t)src, 2 * PAGE, t->mr->lkey };
	struct ibv_sge rs = { (uintptr_t)dst + PAGE, MSG_LEN, t->mr->lkey };
	struct ibv_sge ss = { (uintptr_t)src, MSG_LEN, t->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct ibv_send_wr send = { .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
				    .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr write = { .next = &send, .sg_list = &ws, .num_sge = 1,
				     .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED },
			   *sbad;

	memset(src, v, 2 * PAGE);
	write.wr.rdma.remote_addr = (uintptr_t)dst;
	write.wr.rdma.rkey = t->mr->rkey;
	if (ibv_post_srq_recv(t->srq, &rwr, &rbad) || ibv_post_send(t->qp[0], &write, &sbad)) {
		if (!atomic_load(&device_fatal))
			t->error = "post failed";
		return false;
	}
	if (!traffic_reap(t, 3))
		return false;
	/* The SEND landed over the second page the WRITE filled: same byte. */
	for (size_t i = 0; i < 2 * PAGE; i += 61)
		if (dst[i] != v) {
			t->error = "data mismatch";
			return false;
		}
	t->ops++;
	return true;
}

/* ---- object churn: every kind of object, created and destroyed --------- */

struct churn_stats {
	long long cycles;
	long long failures;
	int first_errno;
	const char *first_what;
};

static void churn_fail(struct churn_stats *s, const char *what)
{
	if (!s->failures++) {
		s->first_errno = errno;
		s->first_what = what;
	}
}

static void churn_cycle(struct ibv_context *ctx, const union ibv_gid *gid, struct churn_stats *s)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .dgid = *gid, .sgid_index = (uint8_t)o.gidx,
					   .hop_limit = 64 } };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 8, .max_recv_wr = 8,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = pd && ch ? ibv_create_cq(ctx, 16, NULL, ch, 0) : NULL;
	struct ibv_srq *srq = pd ? ibv_create_srq(pd, &sa) : NULL;
	struct ibv_ah *ah = pd ? ibv_create_ah(pd, &aa) : NULL;
	struct ibv_mw *mw = pd ? ibv_alloc_mw(pd, IBV_MW_TYPE_1) : NULL;
	static __thread uint8_t page[PAGE] __attribute__((aligned(PAGE)));
	struct ibv_mr *mr = pd ? ibv_reg_mr(pd, page, PAGE, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_qp *qp = NULL;

	qa.send_cq = qa.recv_cq = cq;
	qa.srq = srq;
	if (cq && srq && !(qp = ibv_create_qp(pd, &qa)))
		churn_fail(s, "create_qp");
	if (qp && !vt_connect_rc(qp, qp->qp_num, gid, o.gidx, IBV_ACCESS_REMOTE_WRITE))
		churn_fail(s, "modify_qp");
	if (!ch || !pd || !cq || !srq || !ah || !mw || !mr)
		churn_fail(s, !ch ? "comp_channel" : !pd ? "pd" : !cq ? "cq" : !srq ? "srq" :
			   !ah ? "ah" : !mw ? "mw" : "mr");
	if ((qp && ibv_destroy_qp(qp)) || (mr && ibv_dereg_mr(mr)) || (mw && ibv_dealloc_mw(mw)) ||
	    (ah && ibv_destroy_ah(ah)) || (srq && ibv_destroy_srq(srq)) ||
	    (cq && ibv_destroy_cq(cq)) || (pd && ibv_dealloc_pd(pd)) ||
	    (ch && ibv_destroy_comp_channel(ch)))
		churn_fail(s, "destroy");
	s->cycles++;
}

/* ---- the child processes the kill rounds fork ------------------------- */

enum workload { W_TRAFFIC, W_CHURN, W_MANY, W_COUNT };
static const char *const workload_name[W_COUNT] = { "traffic", "churn", "many" };

static void tell_ready(int fd)
{
	char c = 'R';

	if (fd >= 0 && write(fd, &c, 1) != 1)
		_exit(4);
}

/* Many objects held at once (so teardown has plenty to do), then traffic. */
static void hold_many(struct ibv_context *ctx)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 64, .max_recv_wr = 64,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	static uint8_t mem[8][PAGE] __attribute__((aligned(PAGE)));

	qa.send_cq = qa.recv_cq = cq;
	for (int i = 0; pd && cq && i < 16; i++)
		ibv_create_qp(pd, &qa);
	for (int i = 0; pd && i < 8; i++)
		ibv_reg_mr(pd, mem[i], PAGE, IBV_ACCESS_LOCAL_WRITE);
}

/* A victim: runs its workload until killed (it exits 3 if it ever stops). */
static void victim(enum workload w, int ready_fd)
{
	struct ibv_context *ctx = vt_open(o.dev);
	union ibv_gid gid;
	struct churn_stats cs = { 0 };
	struct traffic t;

	if (!ctx || ibv_query_gid(ctx, 1, o.gidx, &gid))
		_exit(2);
	if (w == W_MANY)
		hold_many(ctx);
	if (w == W_CHURN) {
		churn_cycle(ctx, &gid, &cs);
		tell_ready(ready_fd);
		for (;;)
			churn_cycle(ctx, &gid, &cs);
	}
	if (!traffic_up(&t, ctx))
		_exit(2);
	tell_ready(ready_fd);
	while (traffic_op(&t))
		;
	_exit(3);
}

/* ---- modes ------------------------------------------------------------- */

static int mode_traffic(void)
{
	struct ibv_context *ctx = vt_open(o.dev);
	long long end = o.secs ? vt_now_ms() + o.secs * 1000LL : 0;
	struct traffic t;
	pthread_t at;
	bool ok;

	signal(SIGTERM, on_term);
	if (!ctx || !traffic_up(&t, ctx)) {
		printf("DONE ops=0 error=setup:%s\n", strerror(errno));
		return 1;
	}
	pthread_create(&at, NULL, async_thread, ctx);
	printf("READY pid=%d\n", (int)getpid());
	fflush(stdout);
	while (!stop_requested && (!end || vt_now_ms() < end) && traffic_op(&t))
		;
	ok = !t.error && (o.expect_fatal ? atomic_load(&device_fatal) : !atomic_load(&device_fatal));
	printf("DONE ops=%lld fatal=%d error=%s\n", t.ops, (int)atomic_load(&device_fatal),
	       t.error ? t.error : "none");
	fflush(stdout);
	traffic_down(&t);
	/* After DEVICE_FATAL the async thread has ended; else it waits on. */
	if (atomic_load(&device_fatal))
		pthread_join(at, NULL);
	ibv_close_device(ctx);
	return ok ? 0 : 1;
}

/*
 * Fork with a pipe from the child: a victim running workload w (it writes
 * one byte when going), or with bystander set the traffic mode, whose
 * stdout the pipe is. The read end goes to *rd.
 */
static pid_t fork_piped(bool bystander, enum workload w, int *rd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (!bystander)
			victim(w, p[1]);
		dup2(p[1], 1);
		close(p[1]);
		o.secs = 0;
		_exit(mode_traffic());
	}
	close(p[1]);
	*rd = p[0];
	return pid;
}

static bool wait_ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&p, 1, ms) == 1 && read(fd, &c, 1) == 1;
}

static bool read_line(int fd, char *buf, size_t len, const char *prefix)
{
	FILE *f = fdopen(dup(fd), "r");
	bool found = false;

	while (f && !found && fgets(buf, (int)len, f))
		found = !strncmp(buf, prefix, strlen(prefix));
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return found;
}

/* One kill round; false with why in `why`. */
static bool kill_round(uint64_t *rs, const struct vt_objects *base, int *killed, char *why,
		       size_t len)
{
	int n = 1 + (int)(vt_rand(rs) % 3), fd[3];
	pid_t pid[3];
	char diff[256];

	for (int i = 0; i < n; i++) {
		enum workload w = (enum workload)(vt_rand(rs) % W_COUNT);

		if (o.workload >= 0)
			w = (enum workload)o.workload;

		pid[i] = fork_piped(false, w, &fd[i]);
		if (pid[i] < 0 || !wait_ready(fd[i], 30000)) {
			snprintf(why, len, "a %s process never got going", workload_name[w]);
			for (int j = 0; j <= i; j++)
				if (pid[j] > 0)
					kill(pid[j], SIGKILL), waitpid(pid[j], NULL, 0);
			return false;
		}
	}
	usleep((useconds_t)(vt_rand(rs) % 200) * 1000);
	for (int i = 0; i < n; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
		close(fd[i]);
		(*killed)++;
	}
	if (o.dbg[0] != '-' && !vt_objects_settle(o.dbg, base, 5000, diff, sizeof(diff))) {
		snprintf(why, len, "objects not back to baseline:%s", diff);
		return false;
	}
	return true;
}

static int mode_kill(void)
{
	uint64_t rs = o.seed;
	struct vt_objects base;
	int killed = 0, good = 0, out, status = -1;
	char why[300] = "", line[256] = "";
	pid_t by = fork_piped(true, W_TRAFFIC, &out); /* until SIGTERM */

	printf("INFO kill: %d rounds, seed %llu\n", o.rounds, (unsigned long long)o.seed);
	if (by < 0 || !read_line(out, line, sizeof(line), "READY")) {
		vt_result("robust_kill_setup", false, "the bystander did not start: %s", line);
		return 1;
	}
	if (o.dbg[0] != '-')
		vt_objects_read(o.dbg, &base);
	for (int r = 0; r < o.rounds; r++) {
		if (kill_round(&rs, &base, &killed, why, sizeof(why)))
			good++;
		else
			fprintf(stderr, "round %d: %s\n", r, why);
	}
	kill(by, SIGTERM);
	read_line(out, line, sizeof(line), "DONE");
	waitpid(by, &status, 0);
	vt_result("robust_kill_rounds", good == o.rounds,
		  "%d/%d rounds: objects back to baseline after each%s%s [COUNT killed=%d]", good,
		  o.rounds, why[0] ? "; last failure: " : "", why, killed);
	vt_result("robust_kill_bystander", WIFEXITED(status) && !WEXITSTATUS(status),
		  "traffic alongside all rounds: %s", line);
	return vt_failures ? 1 : 0;
}

struct churner {
	pthread_t t;
	struct ibv_context *ctx;
	union ibv_gid gid;
	struct churn_stats s;
};

static void *churn_thread(void *arg)
{
	struct churner *c = arg;

	for (int i = 0; i < o.rounds; i++)
		churn_cycle(c->ctx, &c->gid, &c->s);
	return NULL;
}

static atomic_bool churn_done;

static void *traffic_thread(void *arg)
{
	struct traffic *t = arg;

	while (!atomic_load(&churn_done) && traffic_op(t))
		;
	return NULL;
}

static int mode_threads(void)
{
	struct churner c[64];
	struct vt_objects base;
	struct ibv_context *ctx;
	struct traffic t;
	pthread_t tt;
	long long cycles = 0, fails = 0;
	char diff[256], first[128] = "";
	int n = o.threads < 64 ? o.threads : 64;

	vt_objects_read(o.dbg, &base);
	ctx = vt_open(o.dev);
	if (!ctx || !traffic_up(&t, ctx)) {
		vt_result("robust_threads_setup", false, "%s", strerror(errno));
		return 1;
	}
	pthread_create(&tt, NULL, traffic_thread, &t);
	for (int i = 0; i < n; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].ctx = ctx;
		c[i].gid = t.gid;
		pthread_create(&c[i].t, NULL, churn_thread, &c[i]);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(c[i].t, NULL);
		cycles += c[i].s.cycles;
		fails += c[i].s.failures;
		if (c[i].s.failures && !first[0])
			snprintf(first, sizeof(first), "; first: %s %s", c[i].s.first_what,
				 strerror(c[i].s.first_errno));
	}
	atomic_store(&churn_done, true);
	pthread_join(tt, NULL);
	vt_result("robust_threads_churn", !fails && cycles == (long long)n * o.rounds,
		  "%d threads, %lld cycles of every object, %lld failures%s", n, cycles, fails, first);
	vt_result("robust_threads_traffic", !t.error && t.ops > 0, "%lld checked ops alongside, %s",
		  t.ops, t.error ? t.error : "no error");
	traffic_down(&t);
	ibv_close_device(ctx);
	vt_result("robust_threads_objects", vt_objects_settle(o.dbg, &base, 5000, diff, sizeof(diff)),
		  "debugfs objects back to baseline%s", diff);
	return vt_failures ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: robust -d DEV -g GIDX -D DEBUGFS traffic|kill|threads "
			"[-r ROUNDS] [-n THREADS] [-t SECS] [-s SEED] [-F] [-w WORKLOAD]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "d:g:D:r:n:t:s:w:F")) != -1) {
		switch (opt) {
		case 'd': o.dev = optarg; break;
		case 'g': o.gidx = atoi(optarg); break;
		case 'D': o.dbg = optarg; break;
		case 'r': o.rounds = atoi(optarg); break;
		case 'n': o.threads = atoi(optarg); break;
		case 't': o.secs = atoi(optarg); break;
		case 's': o.seed = strtoull(optarg, NULL, 0); break;
		case 'F': o.expect_fatal = true; break;
		case 'w':
			for (int i = 0; i < W_COUNT; i++)
				if (!strcmp(optarg, workload_name[i]))
					o.workload = i;
			if (o.workload < 0)
				usage();
			break;
		default: usage();
		}
	}
	if (!o.dev || optind != argc - 1 || o.rounds < 1)
		usage();
	if (!strcmp(argv[optind], "traffic"))
		return mode_traffic();
	if (!o.dbg)
		usage();
	if (!strcmp(argv[optind], "kill"))
		return mode_kill();
	if (!strcmp(argv[optind], "threads"))
		return mode_threads();
	usage();
	return 2;
}
