/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verbs-level view of a softcx function for the kernel shim's ib_device:
 * device and port attributes derived from what the firmware reports
 * (QUERY_HCA_CAP, QUERY_ADAPTER, NIC vport context, vport state), and the
 * objects made by PRM commands (PD, UAR). The shim keeps no copy of these
 * numbers; it asks here.
 */
#ifndef SOFTCX_VERBS_H
#define SOFTCX_VERBS_H

#include "softcx/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

struct scx_ib_device_attr {
	uint64_t fw_ver; /* major << 32 | minor << 16 | subminor */
	uint64_t node_guid;
	uint64_t sys_image_guid;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t vendor_id;
	uint32_t max_qp;
	uint32_t max_qp_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_cq;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_qp_rd_atom;
	uint32_t max_qp_init_rd_atom;
	uint32_t max_srq;
	uint32_t max_srq_wr;
	uint32_t max_srq_sge;
	uint32_t max_pkeys;
	uint32_t local_ca_ack_delay;
	uint32_t max_msg_sz;
	uint32_t gid_table_len;
	uint32_t num_comp_vectors;
	uint8_t atomic; /* 8-byte CAS and fetch-add, host endianness */
	uint8_t cqe_version;
	uint8_t dc;     /* DC initiators and targets (the dct cap) */
};

/* 0 or a negative errno (a failed query command). Process context. */
int scx_verbs_query_device(struct scx_drv *drv, struct scx_ib_device_attr *attr);
/*
 * Entry `index` of the port's GID table (SET_ROCE_ADDRESS), which the device
 * uses as the source address of what it sends; gid NULL clears it.
 */
int scx_verbs_set_gid(struct scx_drv *drv, uint32_t index, const uint8_t *gid, const uint8_t *mac,
		      bool roce_v2, bool ipv4);
/* The port's link as the firmware reports it (QUERY_VPORT_STATE): 1 up, 0 down. */
int scx_verbs_port_up(struct scx_drv *drv);

/* uid: the DevX user context the object belongs to (0: the kernel's). */
int scx_verbs_alloc_pd(struct scx_drv *drv, uint16_t uid, uint32_t *pdn);
int scx_verbs_dealloc_pd(struct scx_drv *drv, uint32_t pdn);
int scx_verbs_alloc_uar(struct scx_drv *drv, uint16_t uid, uint32_t *index);
int scx_verbs_dealloc_uar(struct scx_drv *drv, uint32_t index);
/*
 * DEALLOC_UAR of a UAR a QP or CQ may still name: -EBUSY, and no log line,
 * while one does (the hca frees no UAR in use; the caller keeps it and
 * frees it once they are gone).
 */
int scx_verbs_release_uar(struct scx_drv *drv, uint32_t index);

/*
 * Q counter sets (ALLOC/DEALLOC/QUERY_Q_COUNTER): set 0 is the function's
 * own, the others are allocated. A QP counts into the set it was given
 * (scx_qp_attr.counter_set_id). The counters are those of the PRM's
 * query_q_counter_out, in its order, named as mlx5 names them.
 */
unsigned int scx_verbs_q_counter_count(void);
const char *scx_verbs_q_counter_name(unsigned int i);
int scx_verbs_alloc_q_counter(struct scx_drv *drv, uint32_t *set);
int scx_verbs_dealloc_q_counter(struct scx_drv *drv, uint32_t set);
/* values[scx_verbs_q_counter_count()]; clear: the set restarts from zero. */
int scx_verbs_query_q_counter(struct scx_drv *drv, uint32_t set, bool clear, uint32_t *values);

/* Memory keys over user pages (CREATE_MKEY, MTT access mode). */
enum {
	SCX_ACCESS_LOCAL_WRITE = 1 << 0,
	SCX_ACCESS_REMOTE_WRITE = 1 << 1,
	SCX_ACCESS_REMOTE_READ = 1 << 2,
	SCX_ACCESS_REMOTE_ATOMIC = 1 << 3,
};

struct scx_mr_params {
	uint32_t pdn;
	uint32_t access;      /* SCX_ACCESS_*; local read is always granted */
	uint64_t iova;        /* the address the user's WQEs will use */
	uint64_t length;
	uint32_t page_shift;  /* size of the pages in pages[] */
	uint32_t npages;
	const uint64_t *pages; /* bus addresses, page aligned, in iova order */
	/* Entries given to the hca (0: all npages); fewer only to test it */
	uint32_t nfilled;
};
/* *key is both lkey and rkey; it is never 0x100 (the list terminator). */
int scx_verbs_create_mkey(struct scx_drv *drv, const struct scx_mr_params *p, uint32_t *key);
int scx_verbs_destroy_mkey(struct scx_drv *drv, uint32_t key);
/*
 * A memory window: a key of PD pdn that grants nothing until the user binds
 * it (a UMR WQE); type 2 windows may be invalidated by SEND_WITH_INV.
 * Destroyed with scx_verbs_destroy_mkey().
 */
int scx_verbs_create_mw(struct scx_drv *drv, uint32_t pdn, bool type2, uint32_t *key);

/* Completion queues whose ring and doorbell record the user owns. */
struct scx_cq;
struct scx_cq_params {
	uint32_t log_size;    /* log2 of the number of CQEs */
	uint32_t cqe_size;    /* 64 or 128 */
	uint32_t uar_index;   /* the UAR whose doorbell arms it */
	uint32_t comp_vector; /* completion EQ, < num_comp_vectors */
	uint32_t page_shift;
	uint32_t npages;
	const uint64_t *pages;
	uint64_t dbr_addr;    /* bus address of the 8-byte doorbell record */
	uint16_t uid;         /* DevX user context (0: the kernel's) */
	void *ctx;
	/* Completion event (tasklet context). */
	void (*comp)(void *ctx);
	/* CQ error event (hardirq context). */
	void (*event)(void *ctx, uint8_t type);
};
int scx_verbs_create_cq(struct scx_drv *drv, const struct scx_cq_params *p, struct scx_cq **out,
			uint32_t *cqn);
/*
 * MODIFY_CQ op_mod RESIZE: the CQ's ring becomes the one described (log_size,
 * cqe_size, page_shift, npages, pages; the other fields are unused). -EINVAL
 * when the CQEs not yet polled do not fit.
 */
int scx_verbs_resize_cq(struct scx_drv *drv, struct scx_cq *cq, const struct scx_cq_params *p);
/* DESTROY_CQ, then waits until no event handler runs for it. Frees cq. */
int scx_verbs_destroy_cq(struct scx_drv *drv, struct scx_cq *cq);

/* Queue pairs. States and attribute-mask bits use the verbs numbering. */
enum scx_qp_type {
	SCX_QPT_RC = 2, SCX_QPT_UC = 3, SCX_QPT_UD = 4,
	/*
	 * A DC initiator (mlx5dv's DCI): RC's requester whose WQEs each name
	 * a DC target; no RQ of its own. Its transitions take no optional
	 * attribute (mlx5_ib drops them).
	 */
	SCX_QPT_DCI = 0x100,
	/* A DC target: not made by scx_verbs_create_qp (scx_verbs_create_dct). */
	SCX_QPT_DCT = 0x101,
};
enum scx_qp_state {
	SCX_QPS_RESET, SCX_QPS_INIT, SCX_QPS_RTR, SCX_QPS_RTS, SCX_QPS_SQD, SCX_QPS_SQE, SCX_QPS_ERR,
};
enum {
	SCX_QP_STATE = 1 << 0,
	SCX_QP_CUR_STATE = 1 << 1,
	SCX_QP_ACCESS_FLAGS = 1 << 3,
	SCX_QP_PKEY_INDEX = 1 << 4,
	SCX_QP_PORT = 1 << 5,
	SCX_QP_QKEY = 1 << 6,
	SCX_QP_AV = 1 << 7,
	SCX_QP_PATH_MTU = 1 << 8,
	SCX_QP_TIMEOUT = 1 << 9,
	SCX_QP_RETRY_CNT = 1 << 10,
	SCX_QP_RNR_RETRY = 1 << 11,
	SCX_QP_RQ_PSN = 1 << 12,
	SCX_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	SCX_QP_MIN_RNR_TIMER = 1 << 15,
	SCX_QP_SQ_PSN = 1 << 16,
	SCX_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	SCX_QP_DEST_QPN = 1 << 20,
	/*
	 * Not an IB attribute: the Q counter set the QP counts into. RST->INIT
	 * always takes counter_set_id (0: the function's own set); RTR->RTS and
	 * RTS->RTS take it with this bit (binding a QP to a counter).
	 */
	SCX_QP_COUNTER = 1 << 30,
};

struct scx_qp_create_params {
	uint32_t type;          /* enum scx_qp_type */
	uint32_t pdn;
	uint32_t send_cqn;
	uint32_t recv_cqn;
	uint32_t has_srq;
	uint32_t srqn;
	uint32_t uar_index;
	uint32_t user_index;    /* into every CQE of the QP */
	uint32_t sq_wqebbs;     /* 64-byte send blocks, a power of two (0: no SQ) */
	uint32_t rq_wqes;       /* receive WQEs, a power of two (0: none) */
	uint32_t rq_wqe_shift;  /* log2 of the receive WQE stride */
	uint64_t dbr_addr;
	uint32_t page_shift;
	uint32_t npages;
	const uint64_t *pages;  /* the buffer: RQ first, then SQ */
	/* Bytes into pages[0] where the buffer starts: a multiple of 1/64 page */
	uint32_t page_offset;
	uint32_t block_mcast_loopback; /* UD: IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK */
	uint16_t uid;           /* DevX user context (0: the kernel's) */
};
int scx_verbs_create_qp(struct scx_drv *drv, const struct scx_qp_create_params *p, uint32_t *qpn);
int scx_verbs_destroy_qp(struct scx_drv *drv, uint32_t qpn);

/* One modify_qp, already checked by the caller against the verbs rules. */
struct scx_qp_attr {
	uint32_t type;
	uint32_t cur_state, new_state;
	uint32_t mask;          /* SCX_QP_* */
	uint32_t access;        /* SCX_ACCESS_* remote bits */
	uint32_t qkey;
	uint32_t rq_psn, sq_psn;
	uint32_t dest_qpn;
	uint8_t path_mtu;       /* 1..5: 256..4096 */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint8_t port;
	uint16_t pkey_index;
	/* The RoCE path (with SCX_QP_AV). */
	uint8_t dmac[6];
	uint8_t dgid[16];
	uint8_t sgid_index, hop_limit, tclass, sl;
	uint32_t flow_label;
	uint16_t udp_sport;
	uint8_t counter_set_id;  /* see SCX_QP_COUNTER */
};
int scx_verbs_modify_qp(struct scx_drv *drv, uint32_t qpn, const struct scx_qp_attr *a);
/* QUERY_QP: fills state, qkey, psns, dest_qpn, path_mtu, access, timers. */
int scx_verbs_query_qp(struct scx_drv *drv, uint32_t qpn, struct scx_qp_attr *a);

/*
 * DC targets (mlx5dv's DCT), made when the verbs DCT reaches RTR as mlx5_ib
 * makes them: they receive into an SRQ and complete on one CQ, for any DC
 * initiator presenting their number and access key.
 */
struct scx_dct_params {
	uint32_t pdn, cqn, srqn;
	uint32_t user_index;    /* into every CQE of the DCT */
	uint64_t dc_key;
	uint32_t access;        /* SCX_ACCESS_REMOTE_* */
	uint8_t port, path_mtu, min_rnr_timer;
	uint8_t sgid_index, hop_limit, tclass, sl;
	uint16_t pkey_index;
	uint32_t flow_label;
	uint16_t uid;           /* DevX user context (0: the kernel's) */
};
int scx_verbs_create_dct(struct scx_drv *drv, const struct scx_dct_params *p, uint32_t *dctn);
/*
 * Whether a verbs modify of a DC QP (type SCX_QPT_DCI or SCX_QPT_DCT) from
 * cur to next with the SCX_QP_* attributes in mask is one mlx5_ib takes
 * (its DCI and DCT rules): 0 or -EINVAL.
 */
int scx_verbs_dc_modify_ok(uint32_t type, uint32_t cur, uint32_t next, uint32_t mask);
/*
 * DRAIN_DCT, the wait for its DCT_DRAINED event (ended early by a failed
 * device, and bounded), then DESTROY_DCT.
 */
int scx_verbs_destroy_dct(struct scx_drv *drv, uint32_t dctn, uint16_t uid);
/* QUERY_DCT: its state (prm dctc_state) and access key violations. */
int scx_verbs_query_dct(struct scx_drv *drv, uint32_t dctn, uint8_t *state, uint32_t *key_violations);
/* The next access key violation raises DCT_KEY_VIOLATION (once). */
int scx_verbs_arm_dct(struct scx_drv *drv, uint32_t dctn);

/* Shared receive queues. */
struct scx_srq_create_params {
	uint32_t pdn;
	uint32_t cqn;
	uint32_t log_size;   /* 2^log_size WQEs ... */
	uint32_t wqe_shift;  /* ... of 1 << wqe_shift bytes */
	uint64_t dbr_addr;
	uint32_t page_shift;
	uint32_t npages;
	const uint64_t *pages;
	uint32_t page_offset;  /* as for a QP */
	uint16_t uid;        /* DevX user context (0: the kernel's) */
};
int scx_verbs_create_srq(struct scx_drv *drv, const struct scx_srq_create_params *p, uint32_t *srqn);
int scx_verbs_destroy_srq(struct scx_drv *drv, uint32_t srqn);
/* The limit whose crossing raises SRQ_LIMIT_REACHED once (ARM_RQ). */
int scx_verbs_arm_srq(struct scx_drv *drv, uint32_t srqn, uint16_t limit);
int scx_verbs_query_srq(struct scx_drv *drv, uint32_t srqn, uint16_t *limit);

/*
 * DevX (process context). A user context: CREATE_UCTX with the uctx.cap
 * bits; *uid its uid. The device's whitelist uid is one made at start.
 */
int scx_devx_create_uctx(struct scx_drv *drv, uint32_t cap, uint16_t *uid);
int scx_devx_destroy_uctx(struct scx_drv *drv, uint16_t uid);
/*
 * DEVX_OTHER: the mailbox `in` (inlen >= 16) of a context (ctx_uid 0: no
 * DevX) runs under the uid the driver picks, stamped into `in`. 0; or
 * -EREMOTEIO with `out` holding the firmware's status and syndrome; or
 * -EINVAL (a command not allowed), -EOPNOTSUPP, another errno.
 */
int scx_devx_general(struct scx_drv *drv, uint16_t ctx_uid, uint16_t whitelist_uid, void *in, uint32_t inlen,
		     void *out, uint32_t outlen);
/* QUERY_EQN: the EQ number of completion vector `vector`, or -ENOENT. */
int scx_devx_query_eqn(struct scx_drv *drv, uint32_t vector, uint32_t *eqn);
/*
 * CREATE_UMEM for uid: npages pages of 1 << page_shift bytes at the bus
 * addresses given (readable; writable too if `writable`), the buffer
 * starting page_offset bytes into the first; *id the umem's.
 */
int scx_devx_create_umem(struct scx_drv *drv, uint16_t uid, uint32_t page_shift, uint32_t page_offset,
			 const uint64_t *pages, uint32_t npages, bool writable, uint32_t *id);
int scx_devx_destroy_umem(struct scx_drv *drv, uint16_t uid, uint32_t id);
/*
 * DEVX_OBJ of a DevX context (uid): create runs `in` (checked, its memory
 * forced into umems, uid stamped) and on success gives the object's name
 * and the 16-byte command that destroys it; use runs a modify
 * (SCX_DEVX_MODIFY) or query (SCX_DEVX_QUERY) on the object called
 * `name`. 0; -EREMOTEIO with `out` holding the device's status; -EINVAL
 * for a command the method does not carry; another errno.
 */
#define SCX_DEVX_DESTROY_BYTES 16
enum { SCX_DEVX_MODIFY = 1, SCX_DEVX_QUERY = 2 };
int scx_devx_obj_create(struct scx_drv *drv, uint16_t uid, void *in, uint32_t inlen, void *out, uint32_t outlen,
			uint64_t *name, uint8_t *destroy);
int scx_devx_obj_use(struct scx_drv *drv, uint16_t uid, int method, uint64_t name, void *in, uint32_t inlen,
		     void *out, uint32_t outlen);
int scx_devx_obj_destroy(struct scx_drv *drv, const uint8_t *destroy);
/* The name DEVX_OBJ gives a verbs CQ or QP (a handle to modify or query). */
uint64_t scx_devx_cq_name(uint32_t cqn);
uint64_t scx_devx_qp_name(uint32_t qpn);
/*
 * DevX events: whether `type` may be subscribed on the object called
 * `name` (0: an unaffiliated event), and the key (type and object) a
 * subscription waits under, as the driver's user_event hook passes it.
 */
bool scx_devx_event_valid(uint64_t name, uint16_t type);
uint64_t scx_devx_event_key(uint8_t type, uint64_t name);

#ifdef __cplusplus
}
#endif
#endif
