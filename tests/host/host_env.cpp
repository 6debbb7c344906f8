// SPDX-License-Identifier: GPL-2.0
// core_cpp's environment on the host: libc memory, std::mutex locks, threads
// for deferred work. Device-visible memory is tracked so that the hca can
// only reach what it was given, as through an IOMMU.
#include "host_env.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "softcx/env.h"

namespace {

std::atomic<unsigned> g_bugs{0};
std::atomic<unsigned> g_sleep_in_atomic{0};
std::atomic<long> g_live{0};
thread_local int t_locks_held = 0;

std::mutex g_dma_mu;
std::map<uintptr_t, size_t> g_dma; // start -> length
std::atomic<unsigned long> g_dma_refused;
std::atomic<unsigned> g_fail_trylocks{0};

using clock_type = std::chrono::steady_clock;

void note_sleep()
{
	if (t_locks_held > 0) {
		g_sleep_in_atomic++;
		std::fprintf(stderr, "host_env: sleeping while holding a spinlock\n");
	}
}

// Virtual time added to the clock (host_env::clock_step_per_unlock).
std::atomic<uint64_t> g_clock_skew{0};
thread_local uint64_t t_unlock_step = 0;
thread_local uint64_t t_unlocks[SCX_LOCK_CLASSES];
std::atomic<bool> g_force_contended{false};
thread_local unsigned t_after_class = 0;
thread_local std::function<void()> t_after_fn;

} // namespace

namespace host_env {

void clock_step_per_unlock(uint64_t ns) { t_unlock_step = ns; }
void force_contended(bool on) { g_force_contended = on; }
uint64_t unlocks(unsigned lock_class) { return t_unlocks[lock_class]; }
void after_unlock(unsigned lock_class, std::function<void()> fn)
{
	t_after_class = lock_class;
	t_after_fn = std::move(fn);
}

unsigned long dma_refused()
{
	return g_dma_refused.load();
}

void dma_register(const void *p, size_t len)
{
	std::lock_guard<std::mutex> g(g_dma_mu);
	g_dma[reinterpret_cast<uintptr_t>(p)] = len;
}

void dma_unregister(const void *p)
{
	std::lock_guard<std::mutex> g(g_dma_mu);
	g_dma.erase(reinterpret_cast<uintptr_t>(p));
}

namespace {
std::atomic<bool> g_trace_on{false};
std::mutex g_trace_mu;
std::vector<trace_event> g_trace;

void trace_add(const trace_event &e)
{
	if (!g_trace_on.load(std::memory_order_relaxed))
		return;
	std::lock_guard<std::mutex> g(g_trace_mu);
	g_trace.push_back(e);
}
} // namespace

void trace_record(bool on) { g_trace_on = on; }

std::vector<trace_event> trace_take()
{
	std::lock_guard<std::mutex> g(g_trace_mu);
	std::vector<trace_event> v;
	v.swap(g_trace);
	return v;
}

unsigned bug_count() { return g_bugs; }
unsigned sleep_in_atomic_count() { return g_sleep_in_atomic; }
long live_allocations() { return g_live; }

} // namespace host_env

extern "C" {

void *scx_env_alloc(size_t size, unsigned int flags)
{
	void *p = (flags & SCX_MEM_ZERO) ? std::calloc(1, size ? size : 1) : std::malloc(size ? size : 1);
	if (p)
		g_live++;
	return p;
}

void scx_env_free(void *ptr)
{
	if (ptr)
		g_live--;
	std::free(ptr);
}

void *scx_env_dma_alloc(size_t size, uint64_t *dma)
{
	size_t len = (size + 4095) & ~size_t(4095);
	void *p = std::aligned_alloc(4096, len);
	if (!p)
		return nullptr;
	std::memset(p, 0, len);
	*dma = reinterpret_cast<uintptr_t>(p);
	host_env::dma_register(p, len);
	g_live++;
	return p;
}

void scx_env_dma_free(void *cpu, size_t, uint64_t)
{
	if (!cpu)
		return;
	host_env::dma_unregister(cpu);
	g_live--;
	std::free(cpu);
}

void *scx_env_dma_to_cpu(struct scx_dma_domain *, uint64_t dma, size_t len)
{
	std::lock_guard<std::mutex> g(g_dma_mu);
	auto it = g_dma.upper_bound(dma);
	if (it == g_dma.begin() || !len) {
		g_dma_refused++;
		return nullptr;
	}
	--it;
	if (dma + len < dma || dma + len > it->first + it->second) {
		g_dma_refused++;
		return nullptr;
	}
	return reinterpret_cast<void *>(dma);
}

// A ticket lock: first come, first served, as the kernel's queued
// spinlock is (a holder that lets go and takes it again goes behind a
// waiter; std::mutex would let it barge ahead).
struct scx_spinlock {
	std::atomic<unsigned> next{0};
	std::atomic<unsigned> serving{0};
	unsigned lock_class;
};

struct scx_spinlock *scx_env_spin_new(unsigned int lock_class)
{
	if (lock_class >= SCX_LOCK_CLASSES)
		return nullptr;
	g_live++;
	auto *l = new scx_spinlock;
	l->lock_class = lock_class;
	return l;
}

void scx_env_spin_free(struct scx_spinlock *lock)
{
	if (lock)
		g_live--;
	delete lock;
}

unsigned long scx_env_spin_lock(struct scx_spinlock *lock)
{
	unsigned ticket = lock->next.fetch_add(1, std::memory_order_relaxed);
	while (lock->serving.load(std::memory_order_acquire) != ticket)
		std::this_thread::yield();
	t_locks_held++;
	return 0;
}

bool scx_env_spin_contended(struct scx_spinlock *lock)
{
	return g_force_contended.load(std::memory_order_relaxed) ||
	       lock->next.load(std::memory_order_relaxed) - lock->serving.load(std::memory_order_relaxed) > 1;
}

void scx_env_spin_unlock(struct scx_spinlock *lock, unsigned long)
{
	if (t_unlock_step)
		g_clock_skew += t_unlock_step;
	t_locks_held--;
	t_unlocks[lock->lock_class]++;
	lock->serving.fetch_add(1, std::memory_order_release);
	if (t_after_fn && lock->lock_class == t_after_class) {
		std::function<void()> fn = std::move(t_after_fn);
		t_after_fn = nullptr;
		fn();
	}
}

bool scx_env_spin_trylock(struct scx_spinlock *lock, unsigned long *flags)
{
	unsigned n = g_fail_trylocks.load();
	while (n && !g_fail_trylocks.compare_exchange_weak(n, n - 1))
		;
	if (n)
		return false;
	unsigned now = lock->serving.load(std::memory_order_acquire);
	if (!lock->next.compare_exchange_strong(now, now + 1, std::memory_order_acquire))
		return false;
	t_locks_held++;
	*flags = 0;
	return true;
}

struct scx_completion {
	std::mutex mu;
	std::condition_variable cv;
	unsigned done = 0;
};

struct scx_completion *scx_env_completion_new(void)
{
	g_live++;
	return new scx_completion;
}

void scx_env_completion_free(struct scx_completion *c)
{
	if (c)
		g_live--;
	delete c;
}

void scx_env_completion_reinit(struct scx_completion *c)
{
	std::lock_guard<std::mutex> g(c->mu);
	c->done = 0;
}

void scx_env_complete(struct scx_completion *c)
{
	std::lock_guard<std::mutex> g(c->mu);
	c->done++;
	c->cv.notify_all();
}

int scx_env_completion_wait(struct scx_completion *c, unsigned int timeout_ms)
{
	note_sleep();
	std::unique_lock<std::mutex> g(c->mu);
	if (!c->cv.wait_for(g, std::chrono::milliseconds(timeout_ms), [c] { return c->done > 0; }))
		return -110; // ETIMEDOUT
	c->done--;
	return 0;
}

// One thread per work item: an item never runs concurrently with itself, as
// with the kernel's workqueues; queueing a pending item can only make it due
// sooner.
struct scx_work {
	scx_work_fn fn;
	void *arg;
	std::mutex mu;
	std::condition_variable cv;
	bool pending = false;
	bool stop = false;
	clock_type::time_point due;
	std::thread thread;

	void loop()
	{
		std::unique_lock<std::mutex> g(mu);
		for (;;) {
			cv.wait(g, [this] { return stop || pending; });
			if (stop)
				return;
			// `due` may move earlier while waiting (and notify).
			while (!stop && clock_type::now() < due)
				cv.wait_until(g, due);
			if (stop)
				return;
			pending = false;
			g.unlock();
			fn(arg);
			g.lock();
		}
	}
};

struct scx_work *scx_env_work_new(scx_work_fn fn, void *arg)
{
	auto *w = new scx_work;
	w->fn = fn;
	w->arg = arg;
	w->thread = std::thread([w] { w->loop(); });
	g_live++;
	return w;
}

void scx_env_work_free(struct scx_work *w)
{
	if (!w)
		return;
	{
		std::lock_guard<std::mutex> g(w->mu);
		w->stop = true;
		w->cv.notify_all();
	}
	w->thread.join();
	g_live--;
	delete w;
}

void scx_env_work_queue_delayed(struct scx_work *w, unsigned int delay_us)
{
	std::lock_guard<std::mutex> g(w->mu);
	auto due = clock_type::now() + std::chrono::microseconds(delay_us);
	if (w->pending && w->due <= due)
		return;
	w->pending = true;
	w->due = due;
	w->cv.notify_all();
}

void scx_env_work_queue(struct scx_work *w) { scx_env_work_queue_delayed(w, 0); }

uint64_t scx_env_now_ns(void)
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now().time_since_epoch()).count() +
	       g_clock_skew.load();
}

void scx_env_relax(void) { std::this_thread::yield(); }

void scx_env_sleep_us(unsigned int us)
{
	note_sleep();
	std::this_thread::sleep_for(std::chrono::microseconds(us));
}

bool scx_env_in_atomic(void) { return t_locks_held > 0; }

void scx_env_log(int level, const char *fmt, ...)
{
	if (level > SCX_LOG_INFO && !std::getenv("SCX_DEBUG"))
		return;
	va_list ap;
	va_start(ap, fmt);
	std::fprintf(stderr, "softcx<%d>: ", level);
	std::vfprintf(stderr, fmt, ap);
	std::fputc('\n', stderr);
	va_end(ap);
}

void scx_env_trace_cmd_post(const char *dev, uint16_t opcode, uint8_t slot, uint8_t token)
{
	host_env::trace_event e{};
	e.kind = host_env::trace_event::cmd_post;
	e.dev = dev;
	e.opcode = opcode;
	e.slot = slot;
	e.token = token;
	host_env::trace_add(e);
}

void scx_env_trace_cmd_done(const char *dev, uint16_t opcode, uint8_t slot, uint8_t status,
			    uint32_t syndrome, uint64_t latency_ns)
{
	host_env::trace_event e{};
	e.kind = host_env::trace_event::cmd_done;
	e.dev = dev;
	e.opcode = opcode;
	e.slot = slot;
	e.status = status;
	e.syndrome = syndrome;
	e.latency_ns = latency_ns;
	host_env::trace_add(e);
}

void scx_env_trace_eqe(const char *dev, uint32_t eqn, uint8_t type, uint32_t cons_index)
{
	host_env::trace_event e{};
	e.kind = host_env::trace_event::eqe;
	e.dev = dev;
	e.eqn = eqn;
	e.type = type;
	e.cons_index = cons_index;
	host_env::trace_add(e);
}

void scx_env_bug(const char *what)
{
	g_bugs++;
	std::fprintf(stderr, "softcx: broken invariant: %s\n", what);
}

} // extern "C"

void host_env::fail_trylocks(unsigned n) { g_fail_trylocks = n; }
