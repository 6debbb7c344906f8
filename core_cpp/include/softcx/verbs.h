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
};

/* 0 or a negative errno (a failed query command). Process context. */
int scx_verbs_query_device(struct scx_drv *drv, struct scx_ib_device_attr *attr);
/* The port's link as the firmware reports it (QUERY_VPORT_STATE): 1 up, 0 down. */
int scx_verbs_port_up(struct scx_drv *drv);

int scx_verbs_alloc_pd(struct scx_drv *drv, uint32_t *pdn);
int scx_verbs_dealloc_pd(struct scx_drv *drv, uint32_t pdn);
int scx_verbs_alloc_uar(struct scx_drv *drv, uint32_t *index);
int scx_verbs_dealloc_uar(struct scx_drv *drv, uint32_t index);

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
};
/* *key is both lkey and rkey; it is never 0x100 (the list terminator). */
int scx_verbs_create_mkey(struct scx_drv *drv, const struct scx_mr_params *p, uint32_t *key);
int scx_verbs_destroy_mkey(struct scx_drv *drv, uint32_t key);

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
	void *ctx;
	/* Completion event (tasklet context). */
	void (*comp)(void *ctx);
	/* CQ error event (hardirq context). */
	void (*event)(void *ctx, uint8_t type);
};
int scx_verbs_create_cq(struct scx_drv *drv, const struct scx_cq_params *p, struct scx_cq **out,
			uint32_t *cqn);
/* DESTROY_CQ, then waits until no event handler runs for it. Frees cq. */
int scx_verbs_destroy_cq(struct scx_drv *drv, struct scx_cq *cq);

#ifdef __cplusplus
}
#endif
#endif
