/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel verbs: QPs whose rings the driver owns, as mlx5_ib builds them for
 * kernel consumers. The driver writes each work request as an mlx5 WQE into
 * a ring in DMA memory, moves the doorbell record and writes the WQE's first
 * 8 bytes to its UAR page, exactly as for a ConnectX; completions come back
 * as CQEs on kernel-owned CQs (softcx/driver.h, scx_drv_cq_*), decoded here.
 *
 * Locking is the caller's: posts to one send queue are serialised with each
 * other, posts to one receive queue likewise, and the completions of a CQ
 * with each other (a completion and a post of the same queue may run at
 * once). Nothing here sleeps except create and destroy.
 */
#ifndef SOFTCX_KVERBS_H
#define SOFTCX_KVERBS_H

#include "softcx/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GSI: the port's QP1, a UD QP that packets address as QPN 1. */
enum scx_kqp_type { SCX_KQPT_RC, SCX_KQPT_UC, SCX_KQPT_UD, SCX_KQPT_GSI };

struct scx_kqp_params {
	uint32_t type;          /* enum scx_kqp_type */
	uint32_t pdn;
	uint32_t send_cqn;
	uint32_t recv_cqn;
	uint32_t has_srq;
	uint32_t srqn;
	/* Asked for; the QP may offer more (scx_kqp_caps). */
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
	uint32_t dma_lkey;      /* the PD's key over all memory (get_dma_mr) */
};

struct scx_kqp_caps {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
};

struct scx_kqp;
/*
 * CREATE_QP on rings of the driver's: the QP starts in RESET and moves by
 * the same commands as a user QP (scx_verbs_modify_qp). -EINVAL for sizes
 * the device cannot take. Process context.
 */
int scx_kqp_create(struct scx_drv *drv, const struct scx_kqp_params *p, struct scx_kqp **out);
/*
 * DESTROY_QP: once it returns 0 the device writes no more CQEs for the QP
 * (completions of it still in a CQ remain matched by scx_kqp_complete
 * until scx_kqp_destroy).
 */
int scx_kqp_stop(struct scx_kqp *qp);
/*
 * scx_kqp_stop() if not done yet, then frees the rings. If the command
 * fails the device may still read them: they are kept (leaked) and the
 * error returned.
 */
int scx_kqp_destroy(struct scx_kqp *qp);
/* After a transition to RESET: the rings start again from 0. */
void scx_kqp_reset(struct scx_kqp *qp);
uint32_t scx_kqp_qpn(const struct scx_kqp *qp);
void scx_kqp_get_caps(const struct scx_kqp *qp, struct scx_kqp_caps *caps);

struct scx_ksge {
	uint64_t addr;          /* bus address (IOVA) or an MR's iova */
	uint32_t length;
	uint32_t lkey;
};

enum scx_kwr_op {
	SCX_KWR_SEND,
	SCX_KWR_SEND_IMM,
	SCX_KWR_SEND_INV,
	SCX_KWR_WRITE,
	SCX_KWR_WRITE_IMM,
	SCX_KWR_READ,
	SCX_KWR_ATOMIC_CS,
	SCX_KWR_ATOMIC_FA,
	SCX_KWR_REG_MR,
	SCX_KWR_LOCAL_INV,
};

#define SCX_KWR_SIGNALED  0x1
#define SCX_KWR_SOLICITED 0x2
#define SCX_KWR_FENCE     0x4
#define SCX_KWR_INLINE    0x8

#define SCX_KAV_BYTES 48

struct scx_kwr {
	uint64_t wr_id;
	uint32_t opcode;        /* enum scx_kwr_op */
	uint32_t flags;         /* SCX_KWR_* */
	uint32_t num_sge;
	const struct scx_ksge *sg; /* with SCX_KWR_INLINE: addr is a kernel pointer */
	uint32_t imm_be;        /* immediate data as on the wire (big-endian) */
	uint32_t inv_rkey;      /* SEND_INV, LOCAL_INV */
	uint64_t remote_addr;
	uint32_t rkey;
	uint64_t compare_add;
	uint64_t swap;
	/* UD */
	const uint8_t *av;      /* SCX_KAV_BYTES: an address handle's (scx_kav_build) */
	uint32_t remote_qpn;
	uint32_t remote_qkey;   /* top bit set: the QP's own Q_Key */
	/* REG_MR: the key (its index and the new tag) and SCX_ACCESS_* rights */
	const struct scx_kmr *mr;
	uint32_t reg_key;
	uint32_t reg_access;
};

/*
 * A fast-registration key (ib_alloc_mr): an MTT-mode key created free, and
 * the list of up to max_pages page addresses a REG_MR work request gives
 * it. The list is the caller's to fill (scx_kmr_set_pages) between
 * registrations; the device reads it when the REG_MR runs.
 */
struct scx_kmr;
int scx_kmr_create(struct scx_drv *drv, uint32_t pdn, uint32_t max_pages, struct scx_kmr **out);
/* DESTROY_MKEY, then the list is freed; kept (leaked) if the command fails. */
int scx_kmr_destroy(struct scx_kmr *mr);
uint32_t scx_kmr_key(const struct scx_kmr *mr);
/*
 * What the next REG_MR registers: the pages of the list (bus addresses,
 * 1 << page_shift each) and the range [iova, iova + length) over them.
 * -EINVAL if there are more pages than the key holds.
 */
int scx_kmr_set_pages(struct scx_kmr *mr, const uint64_t *pages, uint32_t npages, uint32_t page_shift,
		      uint64_t iova, uint64_t length);

/*
 * Writes one work request into the send queue; the device sees it at the
 * next scx_kqp_ring_sq(). 0, -ENOMEM (the queue is full) or -EINVAL (more
 * SGEs or inline bytes than the QP offers, an opcode its type has not).
 * The queue is unchanged on error. REG_MR needs the list's lkey: the PD's
 * local DMA key, as scx_kqp_params.dma_lkey.
 */
int scx_kqp_post_send(struct scx_kqp *qp, const struct scx_kwr *wr);
/* Publishes what was posted: the doorbell record, then the doorbell. */
void scx_kqp_ring_sq(struct scx_kqp *qp);
/* Writes one receive request; 0, -ENOMEM or -EINVAL as above. */
int scx_kqp_post_recv(struct scx_kqp *qp, uint64_t wr_id, const struct scx_ksge *sg, uint32_t num_sge);
void scx_kqp_ring_rq(struct scx_kqp *qp);

/* What a completion is, in the terms of ib_wc (values are the caller's to map). */
enum scx_kwc_status {
	SCX_KWC_SUCCESS,
	SCX_KWC_LOC_LEN_ERR,
	SCX_KWC_LOC_QP_OP_ERR,
	SCX_KWC_LOC_PROT_ERR,
	SCX_KWC_WR_FLUSH_ERR,
	SCX_KWC_MW_BIND_ERR,
	SCX_KWC_BAD_RESP_ERR,
	SCX_KWC_LOC_ACCESS_ERR,
	SCX_KWC_REM_INV_REQ_ERR,
	SCX_KWC_REM_ACCESS_ERR,
	SCX_KWC_REM_OP_ERR,
	SCX_KWC_RETRY_EXC_ERR,
	SCX_KWC_RNR_RETRY_EXC_ERR,
	SCX_KWC_REM_ABORT_ERR,
	SCX_KWC_GENERAL_ERR,
};

enum scx_kwc_opcode {
	SCX_KWC_SEND,
	SCX_KWC_RDMA_WRITE,
	SCX_KWC_RDMA_READ,
	SCX_KWC_COMP_SWAP,
	SCX_KWC_FETCH_ADD,
	SCX_KWC_LOCAL_INV,
	SCX_KWC_REG_MR,
	SCX_KWC_RECV,
	SCX_KWC_RECV_RDMA_WITH_IMM,
};

#define SCX_KWC_WITH_IMM   0x1
#define SCX_KWC_WITH_INV   0x2
#define SCX_KWC_GRH        0x4
#define SCX_KWC_SOLICITED  0x8

/* One CQE as a kernel CQ's poll found it. */
struct scx_kcqe {
	uint32_t qpn;
	uint16_t wqe_counter;
	uint8_t send;           /* the requester's completion (else a receive) */
	uint8_t status;         /* enum scx_kwc_status */
	uint8_t opcode;         /* receives: enum scx_kwc_opcode */
	uint8_t flags;          /* SCX_KWC_* */
	uint8_t network;        /* with SCX_KWC_GRH: 4 or 6 */
	uint8_t vendor_err;     /* the error CQE's vendor syndrome */
	uint32_t byte_len;
	uint32_t imm_be;        /* WITH_IMM: as on the wire */
	uint32_t inv_rkey;      /* WITH_INV */
	uint32_t src_qp;        /* UD receives */
};

/*
 * Consumes up to max CQEs of a kernel-owned CQ, decoded, and publishes the
 * consumer index. Returns how many.
 */
unsigned int scx_drv_cq_poll_cqes(struct scx_drv_cq *cq, struct scx_kcqe *out, unsigned int max);
/* Whether a CQE is waiting (ib's IB_CQ_REPORT_MISSED_EVENTS). */
bool scx_drv_cq_pending(struct scx_drv_cq *cq);

/*
 * The work request a CQE of this QP completes: its wr_id and opcode; the
 * queue's tail moves past it (and past the unsignalled requests before it).
 * -EINVAL if the CQE names no request in flight.
 */
int scx_kqp_complete(struct scx_kqp *qp, const struct scx_kcqe *c, uint64_t *wr_id, uint8_t *opcode);

/*
 * Kernel SRQs: the same WQE chain libmlx5 keeps for user SRQs, on a ring
 * the driver owns. Posts are serialised with each other and with
 * scx_ksrq_complete() by the caller.
 */
struct scx_ksrq;
int scx_ksrq_create(struct scx_drv *drv, uint32_t pdn, uint32_t max_wr, uint32_t max_sge, struct scx_ksrq **out);
/* DESTROY_SRQ, then the ring is freed; kept (leaked) if the command fails. */
int scx_ksrq_destroy(struct scx_ksrq *srq);
uint32_t scx_ksrq_srqn(const struct scx_ksrq *srq);
void scx_ksrq_get_caps(const struct scx_ksrq *srq, uint32_t *max_wr, uint32_t *max_sge);
int scx_ksrq_post_recv(struct scx_ksrq *srq, uint64_t wr_id, const struct scx_ksge *sg, uint32_t num_sge);
void scx_ksrq_ring(struct scx_ksrq *srq);
/* The receive a CQE of a QP on this SRQ completes; -EINVAL if none. */
int scx_ksrq_complete(struct scx_ksrq *srq, const struct scx_kcqe *c, uint64_t *wr_id);

/* An address handle for UD sends: the 48-byte address vector of the WQE. */
struct scx_kav_params {
	uint8_t dmac[6];
	uint8_t dgid[16];
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t sl;
	uint32_t flow_label;
	uint16_t udp_sport;
};
void scx_kav_build(const struct scx_kav_params *p, uint8_t *av);

/* A key of PD pdn over all of the function's bus addresses (get_dma_mr). */
int scx_verbs_create_dma_mkey(struct scx_drv *drv, uint32_t pdn, uint32_t access, uint32_t *key);

#ifdef __cplusplus
}
#endif

#endif
