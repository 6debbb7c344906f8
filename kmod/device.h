/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SOFTCX_DEVICE_H
#define SOFTCX_DEVICE_H

#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/skbuff.h>

struct scx_hca;
struct scx_drv;
struct scx_irqs;
struct scx_fn;
struct dentry;

#define SCX_MAX_VECTORS 16

struct scx_kdev;

/* Verbs objects counted per function, shown in debugfs "objects". */
enum scx_obj_type {
	SCX_OBJ_UCTX,
	SCX_OBJ_PD,
	SCX_OBJ_MR,
	SCX_OBJ_CQ,
	SCX_OBJ_QP,
	SCX_OBJ_SRQ,
	SCX_OBJ_AH,
	SCX_OBJ_MW,
	SCX_OBJ_UAR,	/* UAR objects (MLX5_IB_OBJECT_UAR) */
	SCX_OBJ_DEVX_SUB,	/* DevX event subscriptions */
	SCX_OBJ_DEVX_OBJ,	/* DEVX_OBJ objects */
	SCX_OBJ_UMEM,	/* DevX umems */
	SCX_OBJ_MAX,
};

/* What one interrupt vector's handler needs, passed as its dev_id. */
struct scx_vector {
	struct scx_kdev *kdev;
	struct scx_drv *drv;
	unsigned int index;
	bool requested;
	char name[32];
	/* Handler runs, and those in hardirq context (for the KUnit suites). */
	atomic_long_t calls;
	atomic_long_t hardirq_calls;
};

/* The tasklet of one completion EQ (vector eq + 1). */
struct scx_comp_tasklet {
	struct tasklet_struct t;
	struct scx_kdev *kdev;
	unsigned int eq;
};

/*
 * Work handed to the data-path thread (process context, no locks held):
 * e.g. re-arming a UAR doorbell trap, which needs the writer's mmap lock.
 */
struct scx_dp_defer {
	struct llist_node node;
	/* false: not yet (the thread calls again after its next poll) */
	bool (*fn)(struct scx_dp_defer *d);
};

/* One softcx function: the hca, its interrupt controller and the driver. */
struct scx_kdev {
	struct list_head node;
	char name[32];
	unsigned int num_vectors;
	struct scx_fn *fn;	/* its device: parent, DMA device, IOMMU domain */
	struct scx_irqs *irqs;
	struct scx_hca *hca;
	struct scx_drv *drv;
	struct task_struct *dp_thread;
	struct llist_head dp_deferred;
	bool dp_stopping;	/* deferred work must finish on this call */
	atomic_t dp_woken;	/* woken since its last poll: do not sleep */
	/* UAR doorbell traps taken, and re-armed by other writers / the thread */
	atomic64_t uar_traps;
	atomic64_t uar_emulated;
	atomic64_t uar_streams;
	atomic64_t uar_trap_ns;
	atomic64_t uar_rearms_fault;
	atomic64_t uar_rearms_thread;
	struct dentry *debugfs;
	void (*port_event)(void *ctx, u8 port, u8 sub_type);
	void (*qp_event)(void *ctx, u32 qpn, u8 event_type);
	void (*srq_event)(void *ctx, u32 srqn, u8 event_type);
	void (*user_event)(void *ctx, u64 key, const u8 *eqe);
	void *port_event_ctx;
	/* The firmware's pulse, polled every health_poll_ms */
	struct delayed_work health_work;
	unsigned int health_poll_ms;
	void (*fatal)(void *ctx);
	unsigned int recoveries;	/* times this function was brought back */
	atomic_t objs[SCX_OBJ_MAX];
	/* Driver-bug switches (debugfs inject): the next MRs get them */
	atomic_t bug_mtt_hole;		/* the last MTT entry left 0 */
	atomic_t bug_short_list;	/* one entry fewer than the region needs */
	struct scx_vector vectors[SCX_MAX_VECTORS];
	struct scx_comp_tasklet tasklets[SCX_MAX_VECTORS - 1];
	/* The RoCEv2 link (wire.c): frames to send, the netdev they go to */
	struct net_device *wire_ndev;
	bool wire_rx_on;		/* our rx handler is on it (rtnl) */
	struct sk_buff_head wire_txq;
	atomic64_t wire_tx_drops;	/* queue full, no memory, or the netdev refused */
	atomic64_t wire_tx_waits;	/* flushes that found the netdev congested */
	atomic64_t wire_rx_unusable;	/* could not be made contiguous */
};

struct scx_kdev_params {
	unsigned int num_comp_eqs;
	u16 pci_device;		/* the ConnectX PCI device id the function shows */
	u8 mac[6];		/* port MAC; zero: the hca's default */
	u16 mtu;		/* port MTU; 0: default */
	bool link_up;
	bool devx_objects;	/* DevX's general objects are offered (devx=1) */
	bool dc;		/* DC is offered (dc=1) */
	/* PORT_CHANGE events (hardirq); may be NULL. */
	void (*port_event)(void *ctx, u8 port, u8 sub_type);
	/* QP async events (hardirq; PRM event type); may be NULL. */
	void (*qp_event)(void *ctx, u32 qpn, u8 event_type);
	/* SRQ async events (hardirq; PRM event type); may be NULL. */
	void (*srq_event)(void *ctx, u32 srqn, u8 event_type);
	/* EQEs DevX subscribers may want (hardirq; the driver's key); may be NULL. */
	void (*user_event)(void *ctx, u64 key, const u8 *eqe);
	/*
	 * The firmware died (process context, the health poll): the driver is
	 * in its internal-error state; tell the users and recover. May be NULL.
	 */
	void (*fatal)(void *ctx);
	void *port_event_ctx;	/* ctx of all five */
	unsigned int health_poll_ms;	/* 0: 1000 */
	unsigned int cmd_timeout_ms;
	bool cmd_polling;
	bool cmd_checksum;
	unsigned int dp_active_us;	/* data path: poll closely this long after work */
	unsigned int dp_idle_max_us;	/* ... and sleep at most this long when idle */
	bool dp_doorbells_trap;		/* user doorbells trap (ib_uar.c's uar_trap) */
};

struct scx_kdev *scx_kdev_create(const char *name, const struct scx_kdev_params *p);
void scx_kdev_destroy(struct scx_kdev *kdev);
/* The port's link went down or up (the cable, as the hca sees it). */
void scx_hca_link(struct scx_kdev *kdev, bool up);
void scx_hca_mtu(struct scx_kdev *kdev, unsigned int mtu);
/* The memory behind UAR page `uar`, which user space maps (see hca.h). */
struct page *scx_kdev_uar_page(struct scx_kdev *kdev, u32 uar);
/* A user store to UAR page `uar` trapped: run the data path in the writer. */
bool scx_kdev_uar_store(struct scx_kdev *kdev, u32 uar);
/* How many stores the page has seen (a lock round trip: only when needed). */
u32 scx_kdev_uar_stores(struct scx_kdev *kdev, u32 uar);
/* The data-path thread must poll again now (any context). */
void scx_kdev_wake(struct scx_kdev *kdev);

/*
 * The RoCEv2 link on netdev ndev (wire.c). Attach once the function is up
 * (takes rtnl); netdev_gone under rtnl when ndev unregisters; detach
 * before the function goes. Flush hands queued frames to the netdev
 * (process context, no locks).
 */
struct net_device;
int scx_wire_attach(struct scx_kdev *kdev, struct net_device *ndev);
void scx_wire_netdev_gone(struct scx_kdev *kdev);
void scx_wire_detach(struct scx_kdev *kdev);
bool scx_wire_flush(struct scx_kdev *kdev);

/* Stores will land in a UAR page untrapped: the poller must poll closely. */
void scx_kdev_dp_stream(struct scx_kdev *kdev);
/*
 * Run d->fn on the data-path thread's next round (it is not woken for it),
 * and again after each later round while fn says not yet.
 */
void scx_kdev_defer(struct scx_kdev *kdev, struct scx_dp_defer *d);

void scx_debugfs_add(struct scx_kdev *kdev, struct dentry *root);
/* softcx/lock_times: module-wide, in the debugfs root. */
void scx_debugfs_add_global(struct dentry *root);
/* env.c: the longest lock holds and interrupts-off sections. */
struct seq_file;
void scx_lock_times_show(struct seq_file *m);
/* Maxima back to 0; timing on (from now) or off. */
void scx_lock_times_reset(bool on);
/* /sys/kernel/debug/softcx */
struct dentry *scx_debugfs_root(void);

#endif
