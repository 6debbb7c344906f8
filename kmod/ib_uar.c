// SPDX-License-Identifier: GPL-2.0
/*
 * User UAR pages: the hca's doorbell memory, mapped into user space.
 *
 * libmlx5 posts a send by writing the WQE, the doorbell record and then a
 * store to its UAR page; it never enters the kernel. A ConnectX sees that
 * store the moment it crosses the bus. Here (uar_trap=1) the page is
 * mapped without a PTE, so the store faults, and the fault emulates it as
 * a hypervisor emulates an MMIO write: the value goes into the hca's page,
 * the data path runs in the writer's context (the work is already in
 * memory: the record was written first) and the writer resumes after the
 * store. See scx_uar_live_fault() for the streaming and fallback cases; in
 * those the page is mapped, the data-path thread polls it, and the PTE is
 * removed again later. A store to a mapped page is found by the poller,
 * so nothing depends on the timing of a re-arm.
 *
 * The mappings are ours (not rdma_user_mmap_io's), so device removal with
 * contexts open (disassociate) is handled here too: the entry goes dead,
 * its PTEs are removed, and later faults get a private dummy page.
 */
#include "kmod.h"

#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mlx5-abi.h>

#include "ib_priv.h"
#include "uar_emul.h"

/*
 * On by default: a ping-pong then runs at or below rxe's latency under QEMU
 * TCG (ib_send_lat typical ~6-13 us against ~11 us; the poller alone gave
 * ~60-300 us), while streaming pages fall back to the poller.
 */
static bool scx_uar_trap = true;

bool scx_uar_trapping(void)
{
	return scx_uar_trap;
}

module_param_named(uar_trap, scx_uar_trap, bool, 0444);
MODULE_PARM_DESC(uar_trap,
		 "run the data path in the context of the process ringing a doorbell (a page fault per doorbell), not only in the polling thread (default 1)");

/*
 * The trap state of one UAR page. Its own reference count: mappings and a
 * queued re-arm may outlive the ucontext's mmap entry (which must be gone
 * when the ucontext is).
 */
struct scx_uar {
	struct kref ref;
	struct scx_kdev *kdev;
	struct ib_device *ibdev;
	struct page *page;		/* the hca's */
	u32 index;			/* its UAR number */
	struct rw_semaphore dead_sem;	/* faults vs disassociate */
	bool dead;
	spinlock_t lock;		/* maps, zap_gen */
	struct list_head maps;
	unsigned int zap_gen;
	struct page *dummy;		/* stores after device removal */
	struct list_head rearm_node;	/* in scx_ibdev.rearm_list, if pending */
	bool rearm_pending;		/* under scx_ibdev.rearm_lock */
	u64 rearm_since;
	bool rearm_quiet;		/* streaming: until the stores pause */
	bool rearm_waits;		/* for the trapped store to land... */
	u32 rearm_stores;		/* ...i.e. the store count to move from this */
	unsigned int streak;		/* emulated stores in a row (see live_fault) */
	u64 trap_end;			/* when the last emulated store finished */
};

/* One user mapping of a UAR page (one vma). */
struct scx_uar_map {
	struct list_head node;
	struct scx_uar *e;
	struct mm_struct *mm;	/* grabbed: the struct outlives the vma */
	unsigned long addr;
	unsigned int zapped_gen;
};

static const struct vm_operations_struct scx_uar_vm_ops;

/* Re-arms taken off the list at a time (under its spinlock). */
#define SCX_UAR_REARM_BATCH 8
/* The thread re-arms a trap whose store could not be emulated after this. */
#define SCX_UAR_REARM_THREAD_NS (200 * NSEC_PER_USEC)
/* Streaming: this many traps in a row on one page, each this soon after... */
#define SCX_UAR_STREAM_STREAK 8
static unsigned int scx_uar_stream_gap_us = 100;
module_param_named(uar_stream_gap_us, scx_uar_stream_gap_us, uint, 0644);
MODULE_PARM_DESC(uar_stream_gap_us,
		 "a UAR page whose doorbells trap this close together (microseconds), 8 in a row, is mapped and left to the polling thread until its stores pause (default 100)");
/* ...and polled until its stores stop this long. */
#define SCX_UAR_QUIET_NS (2000 * NSEC_PER_USEC)

/*
 * Whose store trapped last, on any softcx device (compared only, never
 * followed): a page trapping while its peer is on another device, as two
 * devices ping-ponging, is no more streaming than two pages of one.
 */
static struct scx_uar *scx_uar_trap_last;

static void scx_uar_free(struct kref *ref)
{
	struct scx_uar *e = container_of(ref, struct scx_uar, ref);

	/* e->page is the hca's (BAR memory): it outlives every mapping. */
	if (e->dummy)
		__free_page(e->dummy);
	kfree(e);
}

static void scx_uar_entry_put(struct scx_uar *e)
{
	kref_put(&e->ref, scx_uar_free);
}

/*
 * Remove the PTEs of every mapping of e. From the data-path thread (no
 * locks held) this always succeeds. From a fault (the faulting mm's lock
 * held for read) a foreign mm is only try-locked, and false means some
 * mapping was left for the thread.
 */
static bool scx_uar_zap(struct scx_uar *e, bool in_fault)
{
	struct { struct mm_struct *mm; unsigned long addr; } todo[4];
	struct scx_uar_map *m;
	unsigned int n, i;
	bool more, done = true;

	spin_lock(&e->lock);
	e->zap_gen++;
	spin_unlock(&e->lock);
	do {
		n = 0;
		more = false;
		/* The mmap lock ranks above e->lock (vma close takes e->lock). */
		spin_lock(&e->lock);
		list_for_each_entry(m, &e->maps, node) {
			if (n == ARRAY_SIZE(todo)) {
				more = true;
				break;
			}
			if (m->zapped_gen == e->zap_gen || !mmget_not_zero(m->mm))
				continue;
			m->zapped_gen = e->zap_gen;
			todo[n].mm = m->mm;
			todo[n].addr = m->addr;
			n++;
		}
		spin_unlock(&e->lock);

		for (i = 0; i < n; i++) {
			struct mm_struct *mm = todo[i].mm;
			bool own = in_fault && mm == current->mm;
			struct vm_area_struct *vma;

			if (own) {
				/* held for read by the fault */
			} else if (!in_fault) {
				mmap_read_lock(mm);
			} else if (!mmap_read_trylock(mm)) {
				done = false;
				mmput_async(mm);
				continue;
			}
			/* Only a vma still in the tree is ours to touch. */
			vma = vma_lookup(mm, todo[i].addr);
			if (vma && vma->vm_ops == &scx_uar_vm_ops && vma->vm_private_data &&
			    ((struct scx_uar_map *)vma->vm_private_data)->e == e)
				zap_vma_ptes(vma, vma->vm_start, PAGE_SIZE);
			if (!own)
				mmap_read_unlock(mm);
			if (in_fault)
				mmput_async(mm);
			else
				mmput(mm);
		}
	} while (more);
	return done;
}

/*
 * A mapped page is re-armed (its PTE removed again) when:
 *  - streaming (rearm_quiet): its stores have stopped for a while, which
 *    only the data-path thread judges;
 *  - else (a store that could not be emulated): once that store landed, or
 *    the writer would fault on it again, and again. Another trapped writer
 *    may do it (the other side of a ping-pong, when it matters), else the
 *    thread, after a while: when it runs it takes a CPU from the writers
 *    and delays the very store it waits for.
 */
static bool scx_uar_rearm_ready(struct scx_uar *e, bool in_fault)
{
	u64 now = ktime_get_ns();
	bool unmapped;
	u32 stores;

	spin_lock(&e->lock);
	unmapped = list_empty(&e->maps);
	spin_unlock(&e->lock);
	if (unmapped || e->dead || e->kdev->dp_stopping)
		return true;
	stores = scx_kdev_uar_stores(e->kdev, e->index);
	if (e->rearm_quiet) {
		if (in_fault)
			return false;
		if (stores != e->rearm_stores) {
			e->rearm_stores = stores;
			e->rearm_since = now;
			return false;
		}
		return now - e->rearm_since >= SCX_UAR_QUIET_NS;
	}
	if (!in_fault && now - e->rearm_since < SCX_UAR_REARM_THREAD_NS)
		return false;
	return !e->rearm_waits || stores != e->rearm_stores;
}

/* Queue e for re-arming; a reference is held while it is queued. */
static void scx_uar_rearm_queue(struct scx_ibdev *sdev, struct scx_uar *e)
{
	spin_lock(&sdev->rearm_lock);
	if (!e->rearm_pending) {
		e->rearm_pending = true;
		e->rearm_since = ktime_get_ns();
		kref_get(&e->ref);
		list_add_tail(&e->rearm_node, &sdev->rearm_list);
	}
	if (!sdev->rearm_queued) {
		sdev->rearm_queued = true;
		scx_kdev_defer(sdev->kdev, &sdev->rearm_work);
	}
	spin_unlock(&sdev->rearm_lock);
}

/* Re-arm what is ready, a batch at most; returns how many were taken. */
static unsigned int scx_uar_rearm_run(struct scx_ibdev *sdev, bool in_fault)
{
	struct scx_uar *ready[SCX_UAR_REARM_BATCH], *e, *next;
	unsigned int n = 0, i;

	spin_lock(&sdev->rearm_lock);
	list_for_each_entry_safe(e, next, &sdev->rearm_list, rearm_node) {
		if (n == ARRAY_SIZE(ready))
			break;
		if (!scx_uar_rearm_ready(e, in_fault))
			continue;
		list_del(&e->rearm_node);
		e->rearm_pending = false;
		ready[n++] = e;
	}
	spin_unlock(&sdev->rearm_lock);
	for (i = 0; i < n; i++) {
		if (!scx_uar_zap(ready[i], in_fault)) {
			/* keeps its reference */
			spin_lock(&sdev->rearm_lock);
			if (!ready[i]->rearm_pending) {
				ready[i]->rearm_pending = true;
				list_add_tail(&ready[i]->rearm_node, &sdev->rearm_list);
				ready[i] = NULL;
			}
			spin_unlock(&sdev->rearm_lock);
		}
		if (!ready[i])
			continue;
		atomic64_inc(in_fault ? &sdev->kdev->uar_rearms_fault :
			     &sdev->kdev->uar_rearms_thread);
		scx_uar_entry_put(ready[i]);
	}
	return n;
}

/* The data-path thread's share: called again while some wait. */
static bool scx_uar_rearm_work(struct scx_dp_defer *d)
{
	struct scx_ibdev *sdev = container_of(d, struct scx_ibdev, rearm_work);
	bool done;

	while (scx_uar_rearm_run(sdev, false) == SCX_UAR_REARM_BATCH)
		;
	spin_lock(&sdev->rearm_lock);
	done = list_empty(&sdev->rearm_list);
	if (done)
		sdev->rearm_queued = false;
	spin_unlock(&sdev->rearm_lock);
	return done;
}

void scx_uar_rearm_init(struct scx_ibdev *sdev)
{
	spin_lock_init(&sdev->rearm_lock);
	INIT_LIST_HEAD(&sdev->rearm_list);
	sdev->rearm_work.fn = scx_uar_rearm_work;
}

/*
 * A fault on a live UAR page. The usual case (uar_trap=1): emulate the
 * doorbell store into the hca's page and run the data path in the writer;
 * the page stays unmapped, so the next doorbell traps too, with no PTE to
 * insert or zap. A page trapping stores back to back, nobody else's in
 * between and no completion taken between them (a writer posting ahead,
 * not one waiting on each completion), is streaming: a fault per doorbell
 * would cost more than the poller, so it is mapped (polled) until its
 * stores pause. A store that cannot be emulated maps the page, and the
 * trap is re-armed once it landed. Without uar_trap the page is simply
 * mapped.
 */
static vm_fault_t scx_uar_live_fault(struct vm_fault *vmf, struct scx_uar *e, bool *mapped)
{
	struct scx_ibdev *sdev = to_sdev(e->ibdev);
	struct scx_kdev *kdev = e->kdev;
	bool store = vmf->flags & FAULT_FLAG_WRITE;
	struct scx_uar_store st;
	bool paced;
	u64 t0, gap;

	WRITE_ONCE(e->rearm_quiet, false);
	WRITE_ONCE(e->rearm_waits, false);
	if (!scx_uar_trap || !store)
		goto map;
	t0 = ktime_get_ns();
	if ((vmf->flags & FAULT_FLAG_USER) && scx_uar_store_decode(vmf->real_address, &st)) {
		u64 *w = page_address(e->page) + (vmf->real_address & ~PAGE_MASK);
		unsigned int i;

		for (i = 0; i < st.width / 8; i++)
			WRITE_ONCE(w[i], st.value[i]);
		paced = scx_kdev_uar_store(kdev, e->index);
		scx_uar_store_retire(&st);
		atomic64_inc(&kdev->uar_emulated);
		gap = (u64)READ_ONCE(scx_uar_stream_gap_us) * NSEC_PER_USEC;
		/* A writer that took a completion since its last doorbell waits on them. */
		if (!paced && READ_ONCE(scx_uar_trap_last) == e && t0 - e->trap_end < gap)
			e->streak++;
		else
			e->streak = 0;
		WRITE_ONCE(scx_uar_trap_last, e);
		e->trap_end = ktime_get_ns();
		atomic64_add(e->trap_end - t0, &kdev->uar_trap_ns);
		if (e->streak < SCX_UAR_STREAM_STREAK)
			return VM_FAULT_NOPAGE;
		/* Streaming: map the page; the poller takes the stores. */
		e->streak = 0;
		e->rearm_quiet = true;
		e->rearm_stores = scx_kdev_uar_stores(kdev, e->index);
		atomic64_inc(&kdev->uar_streams);
		scx_kdev_dp_stream(kdev);
	} else {
		/* Others' stores that landed: re-arm their traps first. */
		scx_uar_rearm_run(sdev, true);
		scx_kdev_uar_store(kdev, e->index);
		/* Counted before the store lands: the page is not mapped yet. */
		e->rearm_stores = scx_kdev_uar_stores(kdev, e->index);
		e->rearm_waits = true;
		/* It lands once mapped: the poller takes it, polling closely. */
		scx_kdev_dp_stream(kdev);
		atomic64_inc(&kdev->uar_traps);
		atomic64_add(ktime_get_ns() - t0, &kdev->uar_trap_ns);
	}
map:
	*mapped = true;
	return vmf_insert_pfn(vmf->vma, vmf->address, page_to_pfn(e->page));
}

static vm_fault_t scx_uar_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct scx_uar_map *m = vma->vm_private_data;
	struct scx_uar *e;
	struct page *dummy;
	vm_fault_t ret;

	if (!m)
		return VM_FAULT_SIGBUS;
	e = m->e;
	down_read(&e->dead_sem);
	if (!e->dead) {
		bool mapped = false;

		ret = scx_uar_live_fault(vmf, e, &mapped);
		up_read(&e->dead_sem);
		/* Queued with a reference: the vma may go meanwhile. */
		if (mapped && scx_uar_trap)
			scx_uar_rearm_queue(to_sdev(e->ibdev), e);
		return ret;
	}
	up_read(&e->dead_sem);

	/* The device is gone: stores go nowhere, as to a removed BAR. */
	dummy = READ_ONCE(e->dummy);
	if (!dummy) {
		struct page *p = alloc_page(GFP_KERNEL | __GFP_ZERO);

		if (!p)
			return VM_FAULT_OOM;
		dummy = cmpxchg(&e->dummy, NULL, p);
		if (dummy)
			__free_page(p);
		else
			dummy = p;
	}
	return vmf_insert_pfn(vma, vmf->address, page_to_pfn(dummy));
}

static struct scx_uar_map *scx_uar_map_new(struct scx_uar *e, struct vm_area_struct *vma)
{
	struct scx_uar_map *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return NULL;
	m->e = e;
	m->mm = vma->vm_mm;
	m->addr = vma->vm_start;
	mmgrab(m->mm);
	spin_lock(&e->lock);
	m->zapped_gen = e->zap_gen - 1;
	list_add(&m->node, &e->maps);
	spin_unlock(&e->lock);
	return m;
}

/* A copy of a mapping (mremap): track it, with its own entry reference. */
static void scx_uar_vm_open(struct vm_area_struct *vma)
{
	struct scx_uar_map *old = vma->vm_private_data;
	struct scx_uar_map *m;

	vma->vm_private_data = NULL;
	if (!old)
		return;
	kref_get(&old->e->ref);
	m = scx_uar_map_new(old->e, vma);
	if (!m) {
		scx_uar_entry_put(old->e);
		/* Untracked PTEs could outlive the device: none, and SIGBUS. */
		zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
		return;
	}
	vma->vm_private_data = m;
}

static void scx_uar_vm_close(struct vm_area_struct *vma)
{
	struct scx_uar_map *m = vma->vm_private_data;

	if (!m)
		return;
	spin_lock(&m->e->lock);
	list_del(&m->node);
	spin_unlock(&m->e->lock);
	mmdrop(m->mm);
	scx_uar_entry_put(m->e);
	kfree(m);
}

static const struct vm_operations_struct scx_uar_vm_ops = {
	.open = scx_uar_vm_open,
	.close = scx_uar_vm_close,
	.fault = scx_uar_fault,
};

/*
 * UAR page `slot` of the context: a UAR of the hca. A static or legacy
 * dynamic page is mappable at index slot; a UAR object's (ranged) at an
 * offset of the mlx5 range for driver objects (commands 9-255).
 */
static int scx_uar_slot_new(struct scx_ucontext *uc, unsigned int slot, bool ranged)
{
	struct scx_kdev *kdev = to_sdev(uc->ibuc.device)->kdev;
	struct scx_drv *drv = to_drv(uc->ibuc.device);
	struct scx_uar_entry *ue;
	struct scx_uar *e;
	int err;

	ue = kzalloc(sizeof(*ue), GFP_KERNEL);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!ue || !e) {
		kfree(ue);
		kfree(e);
		return -ENOMEM;
	}
	kref_init(&e->ref);
	e->kdev = kdev;
	spin_lock_init(&e->lock);
	init_rwsem(&e->dead_sem);
	INIT_LIST_HEAD(&e->maps);
	e->ibdev = uc->ibuc.device;
	ue->uar = e;
	ue->slot = slot;
	uc->uar_index[slot] = 0;
	err = scx_verbs_alloc_uar(drv, uc->devx_uid, &uc->uar_index[slot]);
	if (!err) {
		/* The device watches this page for the user's doorbells. */
		e->index = uc->uar_index[slot];
		e->page = scx_kdev_uar_page(kdev, e->index);
		err = e->page ? 0 : -ENOMEM;
	}
	if (!err && ranged)
		err = rdma_user_mmap_entry_insert_range(&uc->ibuc, &ue->rdma_entry, PAGE_SIZE,
							SCX_MMAP_OBJ_FIRST << 16,
							(SCX_MMAP_OBJ_LAST << 16) + 0xffff);
	else if (!err)
		err = rdma_user_mmap_entry_insert_exact(&uc->ibuc, &ue->rdma_entry, PAGE_SIZE, slot);
	if (err) {
		if (uc->uar_index[slot])
			scx_verbs_dealloc_uar(drv, uc->uar_index[slot]);
		uc->uar_index[slot] = 0;
		kfree(ue);
		kfree(e);
		return err;
	}
	uc->entries[slot] = ue;
	return 0;
}

/*
 * A UAR object's page (MLX5_IB_OBJECT_UAR): in a free slot after the
 * legacy dynamic ones. Its mmap offset as libmlx5 passes it to mmap().
 */
struct scx_uar_entry *scx_uar_obj_new(struct scx_ucontext *uc, u64 *mmap_offset)
{
	struct scx_uar_entry *ue = NULL;
	unsigned int slot;
	u64 pgoff;
	int err = -ENOMEM;

	mutex_lock(&uc->dyn_lock);
	for (slot = uc->num_uars + SCX_DYN_UAR_PAGES; slot < SCX_MAX_USER_UARS; slot++) {
		/* A UAR index without an entry: a freed object's, kept (obj_free) */
		if (uc->entries[slot] || uc->uar_index[slot])
			continue;
		err = scx_uar_slot_new(uc, slot, true);
		if (!err)
			ue = uc->entries[slot];
		break;
	}
	mutex_unlock(&uc->dyn_lock);
	if (!ue)
		return ERR_PTR(err);
	/* The command in bits 8-15, the index's low byte below, its high above. */
	pgoff = ue->rdma_entry.start_pgoff;
	*mmap_offset = ((((pgoff & 0xffff) >> 8) << 16) | ((pgoff >> 16) & 0xff) << 8 |
			(pgoff & 0xff)) << PAGE_SHIFT;
	return ue;
}

/*
 * A UAR object's page goes now: out of its slot (under dyn_lock), then,
 * with no lock held (mmap() runs under the mmap lock and takes dyn_lock),
 * every mapping is sent to the dummy page and the hca's UAR goes back.
 * QPs and CQs that named it keep working: which page rings a doorbell is
 * only a hint to the device (the doorbell record is the truth).
 *
 * But the hca frees no UAR a QP or CQ still names, and libmlx5 frees its
 * UARs in ibv_close_device, before uverbs destroys what the process left
 * (perftest's ib_send_bw client leaves its receive CQ). Such a UAR keeps
 * its index in the slot, which is not reused meanwhile, until the context
 * goes (scx_free_uars), after the core destroyed every object of it; a
 * DEALLOC_UAR refused here would leave the UAR, and the DevX uid with it,
 * in the hca for good.
 */
void scx_uar_obj_free(struct scx_ucontext *uc, struct scx_uar_entry *ue)
{
	struct scx_uar *e = ue->uar;
	unsigned int slot = ue->slot;	/* ue may go with the entry */
	u32 index;

	mutex_lock(&uc->dyn_lock);
	index = uc->uar_index[slot];
	uc->entries[slot] = NULL;
	mutex_unlock(&uc->dyn_lock);
	down_write(&e->dead_sem);
	e->dead = true;
	up_write(&e->dead_sem);
	scx_uar_zap(e, false);
	rdma_user_mmap_entry_remove(&ue->rdma_entry);
	if (scx_verbs_release_uar(to_drv(uc->ibuc.device), index) == -EBUSY)
		return;
	mutex_lock(&uc->dyn_lock);
	uc->uar_index[slot] = 0;
	mutex_unlock(&uc->dyn_lock);
}

/*
 * The UAR a create names (MLX5_QP_FLAG_UAR_PAGE_INDEX, the CQ's
 * UAR_PAGE_INDEX): one of the context's own pages, by its hca index.
 */
int scx_uar_of_page(struct scx_ucontext *uc, u32 page_id, u32 *uar)
{
	unsigned int slot;
	int err = -EINVAL;

	mutex_lock(&uc->dyn_lock);
	for (slot = 0; slot < SCX_MAX_USER_UARS; slot++) {
		if (uc->entries[slot] && uc->uar_index[slot] == page_id) {
			*uar = page_id;
			err = 0;
			break;
		}
	}
	mutex_unlock(&uc->dyn_lock);
	return err;
}

/*
 * The hca index of the page holding dynamic bfreg `bfreg`, as
 * DEVX_QUERY_UAR and MLX5_QP_FLAG_BFREG_INDEX count them: two a page,
 * from the first legacy dynamic page (mmap MLX5_IB_MMAP_ALLOC_WC) on.
 */
int scx_uar_of_bfreg(struct scx_ucontext *uc, u32 bfreg, u32 *uar)
{
	unsigned int slot = uc->num_uars + bfreg / 2;
	int err = -EINVAL;

	mutex_lock(&uc->dyn_lock);
	if (bfreg / 2 < SCX_DYN_UAR_PAGES && uc->entries[slot]) {
		*uar = uc->uar_index[slot];
		err = 0;
	}
	mutex_unlock(&uc->dyn_lock);
	return err;
}

/*
 * The UAR page a user QP or CQ rings: the one its create names (a UAR
 * object's, or a dynamic bfreg's), which must be the context's own, else
 * the context's first static page (a context with dynamic UARs only has
 * none: it must name one).
 */
int scx_uar_of_create(struct scx_ucontext *uc, bool by_page, bool by_bfreg, u32 id, u32 *uar)
{
	if (by_page)
		return scx_uar_of_page(uc, id, uar);
	if (by_bfreg)
		return scx_uar_of_bfreg(uc, id, uar);
	if (!uc->num_uars)
		return -EINVAL;
	*uar = uc->uar_index[0];
	return 0;
}

int scx_alloc_uars(struct scx_ucontext *uc, unsigned int count)
{
	int err;

	while (uc->num_uars < count) {
		err = scx_uar_slot_new(uc, uc->num_uars, false);
		if (err)
			return err;
		uc->num_uars++;
	}
	return 0;
}

/*
 * mmap(MLX5_IB_MMAP_ALLOC_WC, n): the context's n-th dynamic UAR page, made
 * now (as mlx5_ib's legacy dynamic UARs are); an index already taken or out
 * of range is EINVAL. Returns the page's mmap index.
 */
static int scx_uar_dyn_add(struct scx_ucontext *uc, unsigned long n, unsigned long *index)
{
	int err = -EINVAL;

	if (n >= SCX_DYN_UAR_PAGES)
		return -EINVAL;
	mutex_lock(&uc->dyn_lock);
	if (!uc->entries[uc->num_uars + n])
		err = scx_uar_slot_new(uc, uc->num_uars + n, false);
	mutex_unlock(&uc->dyn_lock);
	*index = uc->num_uars + n;
	return err;
}

int scx_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct scx_ucontext *uc = container_of(ibuc, struct scx_ucontext, ibuc);
	/* mlx5's offset: command in bits 8-15, index below and from bit 16 */
	unsigned long cmd = (vma->vm_pgoff >> SCX_MMAP_CMD_SHIFT) & 0xff;
	unsigned long index = vma->vm_pgoff & 0xff;
	/* The index's high byte is in bits 16-23 (the "extended" index). */
	unsigned long ext = index | ((vma->vm_pgoff >> 16) & 0xff) << 8;
	struct rdma_user_mmap_entry *entry;
	struct scx_uar *e;
	struct scx_uar_map *m;
	int err;

	switch (cmd) {
	case MLX5_IB_MMAP_REGULAR_PAGE:
	case MLX5_IB_MMAP_WC_PAGE:
	case MLX5_IB_MMAP_NC_PAGE:
	case MLX5_IB_MMAP_ALLOC_WC:
		break;
	default:
		if (cmd < SCX_MMAP_OBJ_FIRST)
			return -EINVAL;
		break;
	}
	if (vma->vm_end - vma->vm_start != PAGE_SIZE || !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	if (cmd >= SCX_MMAP_OBJ_FIRST) {
		index = cmd << 16 | ext; /* a UAR object's page */
	} else if (cmd == MLX5_IB_MMAP_ALLOC_WC) {
		err = scx_uar_dyn_add(uc, ext, &index);
		if (err)
			return err;
	} else if (index >= uc->num_uars) {
		return -EINVAL; /* the static pages only */
	}
	entry = rdma_user_mmap_entry_get_pgoff(ibuc, index);
	if (!entry)
		return -EINVAL;
	e = container_of(entry, struct scx_uar_entry, rdma_entry)->uar;
	kref_get(&e->ref);
	rdma_user_mmap_entry_put(entry);
	m = scx_uar_map_new(e, vma);
	if (!m) {
		scx_uar_entry_put(e);
		return -ENOMEM;
	}
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY;
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_private_data = m;
	vma->vm_ops = &scx_uar_vm_ops;
	/* No PTE yet: the first doorbell traps. */
	return 0;
}

void scx_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct scx_uar_entry *ue = container_of(entry, struct scx_uar_entry, rdma_entry);

	scx_uar_entry_put(ue->uar);
	kfree(ue);
}

/* Device removal with the context open: no mapping may reach the hca. */
void scx_disassociate_ucontext(struct ib_ucontext *ibuc)
{
	struct scx_ucontext *uc = container_of(ibuc, struct scx_ucontext, ibuc);
	unsigned int i;

	for (i = 0; i < SCX_MAX_USER_UARS; i++) {
		struct scx_uar *e = uc->entries[i] ? uc->entries[i]->uar : NULL;

		if (!e)
			continue;
		down_write(&e->dead_sem);
		e->dead = true;
		up_write(&e->dead_sem);
		scx_uar_zap(e, false);
	}
}

void scx_free_uars(struct scx_ucontext *uc)
{
	struct scx_drv *drv = to_drv(uc->ibuc.device);
	unsigned int i;

	for (i = 0; i < SCX_MAX_USER_UARS; i++) {
		/* An index without an entry: a UAR object's, kept by obj_free */
		if (!uc->entries[i] && !uc->uar_index[i])
			continue;
		if (uc->entries[i])
			rdma_user_mmap_entry_remove(&uc->entries[i]->rdma_entry);
		scx_verbs_dealloc_uar(drv, uc->uar_index[i]);
		uc->uar_index[i] = 0;
		uc->entries[i] = NULL;
	}
	uc->num_uars = 0;
}

