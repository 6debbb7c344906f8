/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver side of a softcx function (core_cpp/driver) for the kernel
 * shim: bring a function up through its BAR, take its interrupts, run its
 * completion tasklets, read its statistics, tear it down. No kernel header
 * here; the shim supplies DMA memory, interrupt registration and tasklet
 * scheduling through the callbacks below.
 */
#ifndef SOFTCX_DRIVER_H
#define SOFTCX_DRIVER_H

#include "softcx/bus.h"
#include "softcx/env.h"

#ifdef __cplusplus
extern "C" {
#endif

struct scx_drv;

/* QP async event types (the PRM's EQE types, which the driver passes on). */
enum scx_qp_event_type {
	SCX_QP_EVENT_PATH_MIG = 0x01,
	SCX_QP_EVENT_COMM_EST = 0x02,
	SCX_QP_EVENT_SQ_DRAINED = 0x03,
	SCX_QP_EVENT_FATAL = 0x05,
	SCX_QP_EVENT_PATH_MIG_FAILED = 0x07,
	SCX_QP_EVENT_REQ_ERR = 0x10,
	SCX_QP_EVENT_ACCESS_ERR = 0x11,
	SCX_QP_EVENT_LAST_WQE_REACHED = 0x13,
};

/* SRQ async event types (PRM EQE types as well). */
enum scx_srq_event_type {
	SCX_SRQ_EVENT_CATAS = 0x12,
	SCX_SRQ_EVENT_LIMIT = 0x14,
};

struct scx_drv_params {
	const char *name;      /* "softcx0": log prefix, IRQ names "<name>-async", "<name>-comp<N>" */
	struct scx_bar *bar;   /* BAR0 of the function (from the hca's C API) */
	void *ctx;             /* passed to every callback */

	/* Coherent DMA memory, page aligned and zeroed; NULL on failure. */
	void *(*dma_alloc)(void *ctx, size_t size, uint64_t *dma);
	void (*dma_free)(void *ctx, void *cpu, size_t size, uint64_t dma);
	/*
	 * Route interrupt `vector` of the function to a hardirq handler that
	 * calls scx_drv_handle_irq(drv, vector) (drv is passed here because
	 * interrupts start before scx_drv_init returns); `name` is for
	 * /proc/interrupts and stays valid until free_irq. 0 or a negative
	 * errno. free_irq must wait for a running handler, as the kernel's does.
	 */
	int (*request_irq)(void *ctx, unsigned int vector, const char *name, struct scx_drv *drv);
	void (*free_irq)(void *ctx, unsigned int vector);
	/*
	 * Schedule the tasklet of completion EQ `eq_index` (0-based), which
	 * calls scx_drv_run_tasklet(drv, eq_index). Called from hardirq context
	 * and from the tasklet itself. NULL: completions run in the hardirq.
	 */
	void (*schedule_tasklet)(void *ctx, unsigned int eq_index);
	/*
	 * PORT_CHANGE event for `port` (hardirq): sub_type is the PRM's
	 * port_change sub type (1 down, 4 active, ...). May be NULL.
	 */
	void (*port_event)(void *ctx, uint8_t port, uint8_t sub_type);
	/*
	 * An async event of QP `qpn` (hardirq): an scx_qp_event_type.
	 * May be NULL.
	 */
	void (*qp_event)(void *ctx, uint32_t qpn, uint8_t event_type);
	/* An async event of SRQ `srqn` (hardirq): an scx_srq_event_type. May be NULL. */
	void (*srq_event)(void *ctx, uint32_t srqn, uint8_t event_type);
	/*
	 * DCT_DRAINED or DCT_KEY_VIOLATION of DC target `dctn` (hardirq), after
	 * the driver's own use of it (a destroy waiting). May be NULL.
	 */
	void (*dct_event)(void *ctx, uint32_t dctn, uint8_t event_type);
	/*
	 * An EQE DevX subscribers may wait for (hardirq): `key` names its type
	 * and object (scx_devx_event_key), eqe is its 64 bytes. A completion or
	 * CQ error comes here only for a CQ the driver does not know (a DevX
	 * CQ). May be NULL.
	 */
	void (*user_event)(void *ctx, uint64_t key, const uint8_t *eqe);

	unsigned int cmd_timeout_ms; /* per command; 0: 60000 */
	unsigned int num_comp_eqs;   /* completion EQs on vectors 1..N; 0: 1 */
	unsigned int cmd_polling;    /* nonzero: commands never switch to events */
	unsigned int cmd_checksum;   /* nonzero: sign command entries and mailboxes */
};

/*
 * Creates the driver state and runs the whole bring-up (ENABLE_HCA ... EQs).
 * Process context. 0 and *out set, or a negative errno (nothing left behind).
 */
int scx_drv_init(const struct scx_drv_params *params, struct scx_drv **out);
/* Tears the function down in reverse order and frees everything. */
void scx_drv_teardown(struct scx_drv *drv);

/* The hardirq handler body for `vector`. */
void scx_drv_handle_irq(struct scx_drv *drv, unsigned int vector);
/* The tasklet body of completion EQ `eq_index`. */
void scx_drv_run_tasklet(struct scx_drv *drv, unsigned int eq_index);

/*
 * One poll of the firmware's health counter (process context, from a
 * timer). true once, when the firmware is first found dead: from then on
 * commands are answered by the driver (mlx5_core's internal-error state),
 * and the caller must tell the users and tear the function down.
 */
bool scx_drv_health_poll(struct scx_drv *drv);

struct scx_drv_health {
	bool dead;
	uint32_t misses;		/* polls in a row the counter stood still */
	uint64_t polls;
	uint64_t answered_in_error;	/* commands the driver answered itself */
};
void scx_drv_get_health(struct scx_drv *drv, struct scx_drv_health *h);

/* One NOP command, end to end. 0 or a negative errno. */
int scx_drv_exec_nop(struct scx_drv *drv);

struct scx_drv_info {
	uint16_t fw_major, fw_minor, fw_subminor;
	uint16_t issi;
	uint32_t uar;
	uint32_t num_eqs;       /* async + completion EQs */
	uint32_t cmd_slots;
	uint32_t cmd_events;    /* 1: completions by event, 0: polling */
	uint32_t fw_pages;      /* pages the device holds */
	uint32_t vport_state;
	uint32_t vendor_id;     /* QUERY_ADAPTER ieee_vendor_id */
};
void scx_drv_get_info(struct scx_drv *drv, struct scx_drv_info *info);

struct scx_drv_cmd_stat {
	uint16_t opcode;        /* 0xffff: all opcodes without a name */
	const char *name;
	uint64_t count, errors, timeouts;
	uint64_t lat_min_ns, lat_avg_ns, lat_max_ns;
};
/* Statistics row `index` (0, 1, ...); -ENOENT past the last row. */
int scx_drv_get_cmd_stat(struct scx_drv *drv, unsigned int index, struct scx_drv_cmd_stat *out);

struct scx_drv_eq_stat {
	uint32_t eqn, vector, nent, cons_index;
	uint64_t irqs, eqes;
};
/* EQ `index`: 0 = async, 1..N = completion EQs; -ENOENT past the last. */
int scx_drv_get_eq_stat(struct scx_drv *drv, unsigned int index, struct scx_drv_eq_stat *out);

/*
 * A CQ whose ring the kernel owns (kernel consumers, tests): 64-byte CQEs,
 * 2^log_size of them, served by completion EQ `comp_eq` (0-based). comp
 * runs in that EQ's tasklet, once per completion event (the CQ must be
 * armed again for the next one); event (CQ_ERROR) in hardirq context.
 * create/destroy: process context.
 */
struct scx_drv_cq;
struct scx_drv_cq_params {
	unsigned int comp_eq;
	unsigned int log_size; /* 1..16 */
	void (*comp)(struct scx_drv_cq *cq, void *ctx);
	void (*event)(struct scx_drv_cq *cq, uint8_t type, uint8_t syndrome, void *ctx);
	void *ctx;
};
int scx_drv_cq_create(struct scx_drv *drv, const struct scx_drv_cq_params *p, struct scx_drv_cq **out);
/*
 * DESTROY_CQ, waits for running callbacks, frees the CQ. If the command
 * fails the device may still write the ring: the CQ is kept (leaked) and
 * the errno returned; the handle must not be used again either way.
 */
int scx_drv_cq_destroy(struct scx_drv_cq *cq);
/*
 * Consumes up to `max` CQEs the device has written and publishes the
 * consumer index; returns how many. Not concurrently with itself or arm.
 */
unsigned int scx_drv_cq_poll(struct scx_drv_cq *cq, unsigned int max);
/*
 * Asks for a completion event on the next (solicited) CQE; CQEs written
 * but not consumed yet fire it at once.
 */
void scx_drv_cq_arm(struct scx_drv_cq *cq, bool solicited_only);

struct scx_drv_cq_info {
	uint32_t cqn;
	uint32_t comp_eq;
	uint32_t cons_index;
	uint32_t arm_sn;       /* completion events seen */
	uint64_t comp_calls;   /* callbacks the tasklet ran */
};
void scx_drv_cq_get_info(struct scx_drv_cq *cq, struct scx_drv_cq_info *info);

#ifdef __cplusplus
}
#endif
#endif
