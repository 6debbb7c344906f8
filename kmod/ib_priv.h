/* SPDX-License-Identifier: GPL-2.0 */
/* What the ib_device files share: object structs and small helpers. */
#ifndef SOFTCX_IB_PRIV_H
#define SOFTCX_IB_PRIV_H

#include <linux/hashtable.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "softcx/driver.h"
#include "softcx/kverbs.h"
#include "softcx/verbs.h"
#include "device.h"

#define SCX_MAX_USER_UARS 256
#define SCX_MMAP_CMD_SHIFT 8
/* UAR pages a context may add after creation (mmap MLX5_IB_MMAP_ALLOC_WC) */
#define SCX_DYN_UAR_PAGES 8
/* mmap commands of driver objects' pages (mlx5: 9-255), UAR objects here */
#define SCX_MMAP_OBJ_FIRST 9
#define SCX_MMAP_OBJ_LAST 255
/* A send WQE basic block (WQEBB). */
#define SCX_SEND_WQE_BB 64

struct scx_ibdev {
	struct ib_device ib;
	struct scx_kdev *kdev;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	struct list_head node;
	bool link_up;
	struct xarray qps;	/* qpn -> scx_qp, for async events (irq-safe lock) */
	struct xarray srqs;	/* srqn -> scx_srq, the same for SRQs */
	u32 port_counter_set;	/* the port's Q counter set (ib_counters.c) */
	u16 devx_whitelist_uid;	/* ib_devx.c; 0: none */
	/* DevX event subscriptions by key (ib_devx_event.c), RCU readers */
	DECLARE_HASHTABLE(devx_subs, 6);
	struct mutex devx_sub_lock;	/* adding and removing subscriptions */
	/* UAR doorbell traps waiting to be re-armed (ib_uar.c) */
	spinlock_t rearm_lock;
	struct list_head rearm_list;
	bool rearm_queued;	/* rearm_work is with the data-path thread */
	struct scx_dp_defer rearm_work;
};

/*
 * A user context's UAR pages, by mmap index: num_uars static ones from
 * index 0, then up to SCX_DYN_UAR_PAGES added by mmap (NULL until then).
 */
struct scx_ucontext {
	struct ib_ucontext ibuc;
	u16 devx_uid;	/* its DevX user context (0: not a DevX context) */
	unsigned int num_uars;
	struct mutex dyn_lock;	/* adding a dynamic page */
	struct mutex dbrec_lock;	/* dbrec_pages */
	struct list_head dbrec_pages;
	u32 uar_index[SCX_MAX_USER_UARS];
	struct scx_uar_entry *entries[SCX_MAX_USER_UARS];
};

struct scx_uar;

/*
 * A page of the process's doorbell records, pinned and mapped once for all
 * of a context's objects whose records it holds (libmlx5 packs records of
 * many QPs, CQs and SRQs into one page): a mapping per object would map
 * the page again and again, which the DMA API does not allow.
 */
struct scx_dbrec_page {
	struct list_head node;
	struct scx_ucontext *uc;
	u64 uaddr;		/* the page's user address */
	struct ib_umem *umem;
	u64 bus;		/* the page's bus address */
	unsigned int refs;
};

/* A user UAR page's mmap offset; the page and its doorbell trap: uar. */
struct scx_uar_entry {
	struct rdma_user_mmap_entry rdma_entry;
	struct scx_uar *uar;
	unsigned int slot;	/* in scx_ucontext.entries */
};

struct scx_pd {
	struct ib_pd ibpd;
	u32 pdn;
	u16 uid;	/* its context's DevX uid (0: none) */
};

struct scx_ah {
	struct ib_ah ibah;
	u8 av[SCX_KAV_BYTES];	/* kernel AHs: what their UD WQEs carry */
};

struct scx_qp {
	struct ib_qp ibqp;
	struct mutex lock; /* serialises modify_qp and keeps state */
	enum ib_qp_state state;
	struct ib_qp_cap cap;
	struct ib_umem *umem;
	struct scx_dbrec_page *dbrec;
	/* A kernel consumer's QP: its rings, and who may post to them. */
	struct scx_kqp *kqp;
	/*
	 * DC (IB_QPT_DRIVER, ib_dc.c): SCX_QPT_DCI or SCX_QPT_DCT (0: none);
	 * a DCT's attributes, gathered until RTR makes it, and its number.
	 */
	u32 dc_type;
	struct scx_dct_params *dct;
	u32 dctn;
	spinlock_t sq_lock;
	spinlock_t rq_lock;
	bool sig_all;
};

struct scx_srq {
	struct ib_srq ibsrq;
	u32 max_wr;
	u32 max_sge;
	struct ib_umem *umem;
	struct scx_dbrec_page *dbrec;
	/* A kernel consumer's SRQ: its ring; posts and completions under lock. */
	struct scx_ksrq *ksrq;
	spinlock_t lock;
};

struct scx_mw {
	struct ib_mw ibmw;
};

struct scx_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	int access;	/* a user MR's verbs access flags (rereg keeps them) */
	/* A fast-registration MR (ib_alloc_mr): its key and page list. */
	struct scx_kmr *kmr;
	u64 *pages;
	u32 npages;
	u32 max_pages;
};

/* Pages one fast registration may name (max_fast_reg_page_list_len). */
#define SCX_MAX_FRWR_PAGES 512

struct scx_ibcq {
	struct ib_cq ibcq;
	u32 cqn;
	struct scx_cq *core;
	struct ib_umem *umem;
	struct scx_dbrec_page *dbrec;
	/* A kernel consumer's CQ: its ring, polled and armed under lock. */
	struct scx_drv_cq *kcq;
	spinlock_t lock;
};

/* ib_uar.c: UAR pages, their mappings and doorbell traps. */
int scx_alloc_uars(struct scx_ucontext *uc, unsigned int count);
void scx_free_uars(struct scx_ucontext *uc);
int scx_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void scx_mmap_free(struct rdma_user_mmap_entry *entry);
void scx_disassociate_ucontext(struct ib_ucontext *ibuc);
void scx_uar_rearm_init(struct scx_ibdev *sdev);
bool scx_uar_trapping(void);
struct scx_uar_entry *scx_uar_obj_new(struct scx_ucontext *uc, u64 *mmap_offset);
void scx_uar_obj_free(struct scx_ucontext *uc, struct scx_uar_entry *ue);
int scx_uar_of_page(struct scx_ucontext *uc, u32 page_id, u32 *uar);
int scx_uar_of_bfreg(struct scx_ucontext *uc, u32 bfreg, u32 *uar);
int scx_uar_of_create(struct scx_ucontext *uc, bool by_page, bool by_bfreg, u32 id, u32 *uar);
/* ib_uar_obj.c: MLX5_IB_OBJECT_UAR */
extern const struct uapi_definition scx_uar_obj_defs[];

static inline struct scx_ibdev *to_sdev(struct ib_device *ib)
{
	return container_of(ib, struct scx_ibdev, ib);
}

/* The QPN the device knows a QP by (a GSI QP is QP 1 to the core). */
static inline u32 scx_qp_hwn(struct ib_qp *ibqp)
{
	struct scx_qp *qp = container_of(ibqp, struct scx_qp, ibqp);

	return qp->kqp ? scx_kqp_qpn(qp->kqp) : ibqp->qp_num;
}

/*
 * The DevX uid objects made through udata belong to: their context's
 * (0 for the kernel's objects and for contexts without DevX).
 */
static inline u16 scx_udata_uid(struct ib_udata *udata)
{
	struct scx_ucontext *uc = rdma_udata_to_drv_context(udata, struct scx_ucontext, ibuc);

	return uc ? uc->devx_uid : 0;
}

static inline struct scx_drv *to_drv(struct ib_device *ib)
{
	return to_sdev(ib)->kdev->drv;
}

static inline void scx_obj_inc(struct ib_device *ib, enum scx_obj_type t)
{
	atomic_inc(&to_sdev(ib)->kdev->objs[t]);
}

static inline void scx_obj_dec(struct ib_device *ib, enum scx_obj_type t)
{
	atomic_dec(&to_sdev(ib)->kdev->objs[t]);
}

u64 *scx_umem_pages(struct ib_umem *umem, unsigned int shift, u32 *n);
int scx_pin_dbrec(struct ib_udata *udata, u64 uaddr, struct scx_dbrec_page **pg, u64 *bus);
void scx_unpin_dbrec(struct scx_dbrec_page *pg);
u32 scx_access(int acc);
int scx_ib_access(u32 acc);

/* ib_mem.c */
int scx_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int scx_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *scx_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 iova, int access,
			      struct ib_udata *udata);
int scx_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *scx_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start, u64 length, u64 iova,
				int access, struct ib_pd *pd, struct ib_udata *udata);
int scx_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int scx_dealloc_mw(struct ib_mw *ibmw);
int scx_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr, struct ib_udata *udata);
int scx_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
void scx_ib_cq_comp(struct ib_cq *ibcq);
void scx_ib_cq_error(struct ib_cq *ibcq);
int scx_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init, struct ib_udata *udata);
int scx_destroy_ah(struct ib_ah *ibah, u32 flags);

/* ib_cq.c */
int scx_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);

/* ib_qp.c */
int scx_create_uqp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata, int type);
int scx_check_qp_attr(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask);
int scx_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata);
int scx_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int scx_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata);
int scx_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_qp_init_attr *init);
/* ib_dc.c: DCIs and DCTs (IB_QPT_DRIVER) */
int scx_create_dc_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata);
int scx_destroy_dct(struct ib_qp *ibqp);
int scx_modify_dct(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata);
void scx_query_dct(struct ib_qp *ibqp, struct ib_qp_attr *attr);
int scx_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init, struct ib_udata *udata);
int scx_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int scx_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr, enum ib_srq_attr_mask mask,
		   struct ib_udata *udata);
int scx_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int scx_qp_set_counter(struct ib_qp *ibqp, struct rdma_counter *counter);

/* ib_kverbs.c */
int scx_create_kcq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr);
int scx_destroy_kcq(struct ib_cq *ibcq);
int scx_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int scx_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int scx_create_kqp(struct ib_qp *ibqp, struct ib_qp_init_attr *init);
int scx_destroy_kqp(struct ib_qp *ibqp);
int scx_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr, const struct ib_send_wr **bad_wr);
int scx_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr, const struct ib_recv_wr **bad_wr);
struct ib_mr *scx_get_dma_mr(struct ib_pd *ibpd, int access);
int scx_create_ksrq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init);
int scx_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr, const struct ib_recv_wr **bad_wr);
struct ib_mr *scx_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type, u32 max_num_sg);
int scx_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents, unsigned int *sg_offset);
void scx_kah_build(struct scx_ah *ah, const struct rdma_ah_attr *attr);

/* ib_counters.c */
int scx_counters_init(void);
int scx_counters_add(struct scx_ibdev *sdev);

/* ib_devx.c */
/* An object DEVX_OBJ_CREATE made, and the command that destroys it. */
struct scx_devx_obj {
	struct scx_drv *drv;
	u64 name;
	u8 destroy[SCX_DEVX_DESTROY_BYTES];
	struct list_head subs;	/* event subscriptions on it (ib_devx_event.c) */
};

extern const struct uapi_definition scx_devx_defs[];
bool scx_devx_ctx_objs_supported(struct ib_device *ib);
u64 scx_devx_handle_name(struct ib_uobject *uobj);
/* ib_devx_event.c */
extern const struct uapi_definition scx_devx_event_defs[];
void scx_devx_events_init(struct scx_ibdev *sdev);
void scx_devx_dispatch(void *ctx, u64 key, const u8 *eqe);
void scx_devx_obj_subs_drop(struct scx_ibdev *sdev, struct list_head *obj_subs);
int scx_devx_init(struct scx_ibdev *sdev);
void scx_devx_cleanup(struct scx_ibdev *sdev);
void scx_devx_destroy_ctx_uid(struct scx_ucontext *uc);
/* ib.c: whether user contexts may be DevX contexts (the devx parameter). */
bool scx_ib_devx_granted(void);
struct rdma_hw_stats *scx_alloc_hw_port_stats(struct ib_device *ib, u32 port);
int scx_get_hw_stats(struct ib_device *ib, struct rdma_hw_stats *stats, u32 port, int index);
struct rdma_hw_stats *scx_counter_alloc_stats(struct rdma_counter *counter);
int scx_counter_update_stats(struct rdma_counter *counter);
int scx_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *qp);
int scx_counter_unbind_qp(struct ib_qp *qp);
int scx_counter_dealloc(struct rdma_counter *counter);

#endif
