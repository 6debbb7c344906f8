// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of core_cpp's environment (core_cpp/include/softcx/env.h):
 * memory, device-visible memory, locks, completions, work, time and logging.
 */
#include "kmod.h"

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "softcx/env.h"

void *scx_env_alloc(size_t size, unsigned int flags)
{
	gfp_t gfp = (flags & SCX_MEM_ATOMIC) ? GFP_ATOMIC : GFP_KERNEL;

	if (flags & SCX_MEM_ZERO)
		gfp |= __GFP_ZERO;
	if (flags & SCX_MEM_ATOMIC)
		return kmalloc(size, gfp);
	return kvmalloc(size, gfp);
}

void scx_env_free(void *ptr)
{
	kvfree(ptr);
}

/*
 * Memory the hca owns itself (its UAR pages): never mapped for DMA, so its
 * address is physical; the hca keeps the pointer and needs no translation.
 */
void *scx_env_dma_alloc(size_t size, uint64_t *dma)
{
	void *cpu = alloc_pages_exact(PAGE_ALIGN(size), GFP_KERNEL | __GFP_ZERO);

	if (cpu)
		*dma = virt_to_phys(cpu);
	return cpu;
}

void scx_env_dma_free(void *cpu, size_t size, uint64_t dma)
{
	if (cpu)
		free_pages_exact(cpu, PAGE_ALIGN(size));
}

struct scx_spinlock {
	spinlock_t lock;
	unsigned int cls;
	u64 since;	/* when the holder took it */
	u64 irq_since;	/* when taking it turned interrupts off, or 0 */
	unsigned long where;	/* who took it */
};

static struct lock_class_key scx_lock_keys[SCX_LOCK_CLASSES];

/*
 * The longest hold of each lock class and the longest interrupts-off
 * section a softcx lock made since timing began (debugfs "lock_times"):
 * what bounded work promises, measured where it is kept.
 */
static atomic64_t scx_lock_max_ns[SCX_LOCK_CLASSES];
static atomic64_t scx_irqoff_max_ns;
/* Who held it that long (racy against a new maximum: a hint for a human). */
static unsigned long scx_lock_max_where[SCX_LOCK_CLASSES];
static unsigned long scx_irqoff_max_where;

static const char *const scx_lock_names[SCX_LOCK_CLASSES] = {
	"hca_cmd", "hca_eq", "hca_objects", "hca_cq", "drv_cmd", "drv_eq",
	"drv_cq_table", "test_a", "test_b", "hca_qp", "hca_srq", "hca_dp",
	"hca_dp_rx", "hca_dp_kdb", "hca_dct", "drv_dct",
};

/* true: v is the new maximum. */
static bool scx_note_max(atomic64_t *max, u64 v)
{
	s64 cur = atomic64_read(max);

	while ((s64)v > cur) {
		s64 seen = atomic64_cmpxchg(max, cur, v);

		if (seen == cur)
			return true;
		cur = seen;
	}
	return false;
}

/*
 * Timing every lock costs two clock reads a lock, which under emulation is
 * a good part of a message's cost: it runs when asked (a write to
 * lock_times, or lock_times=1 at load), as the kernel's lock statistics do.
 */
static bool scx_lock_timing;
module_param_named(lock_times, scx_lock_timing, bool, 0444);
MODULE_PARM_DESC(lock_times,
		 "time every softcx lock hold and interrupts-off section from load (debugfs softcx/lock_times; a write there starts it too) (default 0)");

static void scx_lock_taken(struct scx_spinlock *l, unsigned long flags, unsigned long where)
{
	u64 now;

	/* 0: not timed (taken before timing began, or timing is off). */
	l->since = 0;
	if (!READ_ONCE(scx_lock_timing))
		return;
	now = local_clock();

	l->since = now;
	l->where = where;
	/* On PREEMPT_RT the lock leaves interrupts on. */
	l->irq_since = !irqs_disabled_flags(flags) && irqs_disabled() ? now : 0;
}

static void scx_lock_dropping(struct scx_spinlock *l)
{
	u64 now;

	if (!l->since)
		return;
	now = local_clock();

	if (scx_note_max(&scx_lock_max_ns[l->cls], now - l->since))
		WRITE_ONCE(scx_lock_max_where[l->cls], l->where);
	if (l->irq_since && scx_note_max(&scx_irqoff_max_ns, now - l->irq_since))
		WRITE_ONCE(scx_irqoff_max_where, l->where);
}

struct scx_spinlock *scx_env_spin_new(unsigned int lock_class)
{
	struct scx_spinlock *l;

	if (lock_class >= SCX_LOCK_CLASSES)
		return NULL;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return NULL;
	spin_lock_init(&l->lock);
	lockdep_set_class(&l->lock, &scx_lock_keys[lock_class]);
	l->cls = lock_class;
	return l;
}

void scx_env_spin_free(struct scx_spinlock *lock)
{
	kfree(lock);
}

unsigned long scx_env_spin_lock(struct scx_spinlock *lock)
{
	unsigned long flags;

	spin_lock_irqsave(&lock->lock, flags);
	scx_lock_taken(lock, flags, _RET_IP_);
	return flags;
}

void scx_env_spin_unlock(struct scx_spinlock *lock, unsigned long flags)
{
	scx_lock_dropping(lock);
	spin_unlock_irqrestore(&lock->lock, flags);
}

bool scx_env_spin_contended(struct scx_spinlock *lock)
{
	return spin_is_contended(&lock->lock);
}

bool scx_env_spin_trylock(struct scx_spinlock *lock, unsigned long *flags)
{
	unsigned long f;

	if (!spin_trylock_irqsave(&lock->lock, f))
		return false;
	scx_lock_taken(lock, f, _RET_IP_);
	*flags = f;
	return true;
}

void scx_lock_times_show(struct seq_file *m)
{
	unsigned int i;

	seq_printf(m, "timing %s\n", READ_ONCE(scx_lock_timing) ? "on" : "off");
	seq_printf(m, "irqs_off_max_ns %lld %pS\n", atomic64_read(&scx_irqoff_max_ns),
		   (void *)READ_ONCE(scx_irqoff_max_where));
	for (i = 0; i < SCX_LOCK_CLASSES; i++)
		if (scx_lock_names[i])
			seq_printf(m, "held_max_ns %s %lld %pS\n", scx_lock_names[i],
				   atomic64_read(&scx_lock_max_ns[i]),
				   (void *)READ_ONCE(scx_lock_max_where[i]));
}

void scx_lock_times_reset(bool on)
{
	unsigned int i;

	WRITE_ONCE(scx_lock_timing, on);
	atomic64_set(&scx_irqoff_max_ns, 0);
	for (i = 0; i < SCX_LOCK_CLASSES; i++)
		atomic64_set(&scx_lock_max_ns[i], 0);
}

struct scx_completion {
	struct completion done;
};

struct scx_completion *scx_env_completion_new(void)
{
	struct scx_completion *c = kmalloc(sizeof(*c), GFP_KERNEL);

	if (c)
		init_completion(&c->done);
	return c;
}

void scx_env_completion_free(struct scx_completion *c)
{
	kfree(c);
}

void scx_env_completion_reinit(struct scx_completion *c)
{
	reinit_completion(&c->done);
}

void scx_env_complete(struct scx_completion *c)
{
	complete(&c->done);
}

int scx_env_completion_wait(struct scx_completion *c, unsigned int timeout_ms)
{
	if (!wait_for_completion_timeout(&c->done, msecs_to_jiffies(timeout_ms)))
		return -ETIMEDOUT;
	return 0;
}

struct scx_work {
	struct delayed_work dw;
	spinlock_t lock; /* queueing: the sooner of two requests wins */
	scx_work_fn fn;
	void *arg;
};

static void scx_work_run(struct work_struct *work)
{
	struct scx_work *w = container_of(to_delayed_work(work), struct scx_work, dw);

	w->fn(w->arg);
}

struct scx_work *scx_env_work_new(scx_work_fn fn, void *arg)
{
	struct scx_work *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (!w)
		return NULL;
	INIT_DELAYED_WORK(&w->dw, scx_work_run);
	spin_lock_init(&w->lock);
	w->fn = fn;
	w->arg = arg;
	return w;
}

void scx_env_work_free(struct scx_work *w)
{
	if (!w)
		return;
	cancel_delayed_work_sync(&w->dw);
	kfree(w);
}

/*
 * queue_delayed_work() ignores a pending item: a request for "now" would
 * wait for a timer set earlier for later. A sooner request moves the timer.
 */
void scx_env_work_queue_delayed(struct scx_work *w, unsigned int delay_us)
{
	unsigned long delay = usecs_to_jiffies(delay_us);
	unsigned long flags;

	spin_lock_irqsave(&w->lock, flags);
	if (!queue_delayed_work(system_unbound_wq, &w->dw, delay) &&
	    timer_pending(&w->dw.timer) && time_before(jiffies + delay, READ_ONCE(w->dw.timer.expires)))
		mod_delayed_work(system_unbound_wq, &w->dw, delay);
	spin_unlock_irqrestore(&w->lock, flags);
}

void scx_env_work_queue(struct scx_work *w)
{
	scx_env_work_queue_delayed(w, 0);
}

uint64_t scx_env_now_ns(void)
{
	return ktime_get_ns();
}

void scx_env_relax(void)
{
	cpu_relax();
}

void scx_env_sleep_us(unsigned int us)
{
	if (us >= 20000)
		msleep(us / 1000);
	else
		usleep_range(us, us + us / 4 + 10);
}

bool scx_env_in_atomic(void)
{
	return !preemptible();
}

void scx_env_log(int level, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	switch (level) {
	case SCX_LOG_ERR:
		pr_err("%pV\n", &vaf);
		break;
	case SCX_LOG_WARN:
		pr_warn("%pV\n", &vaf);
		break;
	case SCX_LOG_INFO:
		pr_info("%pV\n", &vaf);
		break;
	default:
		pr_debug("%pV\n", &vaf);
		break;
	}
	va_end(args);
}

void scx_env_bug(const char *what)
{
	WARN(1, "softcx: broken invariant: %s\n", what);
}

/* g++ references this from the vtable slot of every pure virtual function. */
void __cxa_pure_virtual(void);
void __cxa_pure_virtual(void)
{
	panic("softcx: pure virtual function called\n");
}
