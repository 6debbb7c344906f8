/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device side of a softcx function (core_cpp/hca) for the kernel shim:
 * create the software HCA, hand its BAR0 to the driver side, flip its link,
 * inject faults, read its counters. The hca reaches memory only by bus
 * address, through its function's IOMMU domain (scx_env_dma_to_cpu), and
 * signals only by raising vectors.
 */
#ifndef SOFTCX_HCA_H
#define SOFTCX_HCA_H

#include "softcx/bus.h"
#include "softcx/env.h"

#ifdef __cplusplus
extern "C" {
#endif

struct scx_hca;

struct scx_hca_params {
	unsigned int num_vectors; /* MSI-X vectors the function has */
	uint8_t mac[6];           /* port MAC; all zero: the hca's default */
	uint16_t mtu;             /* port MTU; 0: default */
	bool link_down;           /* the port starts down */
	bool devx_objects;        /* offer general objects (DevX contexts reach them) */
	bool dc;                  /* offer DC (the dct cap) */
	struct scx_dma_domain *dma_domain; /* what the device may reach */
	void *ctx;
	/* Raise MSI-X `vector`; called from any context, must not sleep. */
	void (*raise_irq)(void *ctx, unsigned int vector);
};

int scx_hca_create(const struct scx_hca_params *params, struct scx_hca **out);
/* Stops the firmware (no command runs, no vector is raised afterwards). */
void scx_hca_destroy(struct scx_hca *hca);
struct scx_bar *scx_hca_bar(struct scx_hca *hca);

/* Link down/up: a PORT_CHANGE event to a subscribed EQ. */
void scx_hca_set_link(struct scx_hca *hca, bool up);
// The port's Ethernet MTU changed (the netdev's): path MTUs are checked
// against it from now on, and the vport context reports it.
void scx_hca_set_mtu(struct scx_hca *hca, uint16_t mtu);

/*
 * The firmware dies, as a ConnectX's can: its health counter stops and it
 * serves no command or doorbell any more. Only scx_hca_destroy follows.
 */
void scx_hca_fw_die(struct scx_hca *hca);

/* Fault injection, per opcode, for the next `count` commands. */
int scx_hca_fault_delay(struct scx_hca *hca, uint16_t opcode, uint32_t ms, uint32_t count);
int scx_hca_fault_drop(struct scx_hca *hca, uint16_t opcode, uint32_t count);
int scx_hca_fault_fail(struct scx_hca *hca, uint16_t opcode, uint8_t status, uint32_t syndrome,
		       uint32_t count);
void scx_hca_fault_clear(struct scx_hca *hca);

/*
 * The data path's completion entry point (tests, until a WQE engine posts
 * them): write the 64-byte CQE `cqe64` (its owner bit is the device's) to
 * CQ `cqn` and, if the CQ is armed for it, post a COMP EQE. 0; -ENOENT no
 * such CQ; -ENOSPC the CQ overran (or is in error); -EFAULT ring unreachable.
 */
int scx_hca_post_cqe(struct scx_hca *hca, uint32_t cqn, const void *cqe64, bool solicited);

/*
 * The data path. scx_hca_poll() runs one round (doorbells, due timers, the
 * work they reveal) in process context and returns how many microseconds
 * the caller may sleep before the next round (0: work is left, call again
 * at once). Work held up by another port's lock is retried after a delay
 * that doubles while it stays held, never at once: the holder may be a task
 * the caller preempted, and a real-time caller must let it run.
 */
unsigned int scx_hca_poll(struct scx_hca *hca);
/*
 * A store to UAR page `uar` landed (the writer trapped on it and it was
 * emulated; process context): run the QPs that page's doorbells name, and
 * their loopback peers, now, in the writer's context, so a doorbell does
 * not wait for the poller. Other QPs' work is the poller's. True: work or
 * timers are left for the poller, which should be woken. *paced (if not
 * NULL) is set when a QP the store names had a completion consumed (its
 * CQ's consumer index moved) since its previous trapped doorbell: its
 * writer waits on completions between doorbells, as a latency test does,
 * so the trap, not the poller, should keep serving it.
 */
bool scx_hca_uar_store(struct scx_hca *hca, uint32_t uar, bool *paced);
/* Stores will land in a UAR page without trapping: poll closely for now. */
void scx_hca_dp_stay_active(struct scx_hca *hca);
/*
 * How many stores UAR page `uar` has seen (a count that moves when one
 * lands): a trap re-armed before the trapped store lands would trap it
 * again.
 */
uint32_t scx_hca_uar_stores(struct scx_hca *hca, uint32_t uar);
/*
 * Poll every few microseconds for active_us after work, then back off to at
 * most idle_max_us between polls (0: the default for either). With
 * doorbells_trap (user doorbells trap and wake the poller), only doorbells
 * the poller itself found in memory start the close polling.
 */
void scx_hca_dp_policy(struct scx_hca *hca, uint32_t active_us, uint32_t idle_max_us, bool doorbells_trap);
/*
 * The packet transport lets its lock go between two packets once it has
 * held it hold_us (default 20); 0: after every packet.
 */
void scx_hca_dp_hold_us(struct scx_hca *hca, uint32_t hold_us);
/*
 * An RC packet to a QP of the same port names its payload instead of
 * carrying it (one copy, the responder's, as a NIC's internal loopback
 * DMA); default on.
 */
void scx_hca_dp_payload_ref(struct scx_hca *hca, bool on);

/*
 * The page of memory behind UAR `uar`, which user space maps to ring
 * doorbells (the device watches it); allocated on first use, process
 * context; lives as long as the hca. NULL: no such UAR or no memory.
 */
void *scx_hca_uar_page(struct scx_hca *hca, uint32_t uar);

struct scx_hca_dp_stats {
	uint64_t passes;
	uint64_t wqes;
	uint64_t bytes;
	uint64_t cqes;
	uint64_t error_cqes;
	uint64_t rnr_naks;
	uint64_t retries;
	uint64_t doorbells;
	uint64_t polls;
	uint64_t poll_ns;
	uint64_t peer_requests; /* answered by another port on the fabric */
	uint64_t peer_busy;     /* put off: that port was busy */
	uint64_t translation_faults; /* accesses past a key's given MTT entries */
	/* The transport. */
	uint64_t rx_pkts;       /* packets taken from the port's receive ring */
	uint64_t rx_no_qp;      /* ... for no QP */
	uint64_t rx_bad_pkey;   /* ... another partition's P_Key */
	uint64_t rx_malformed;  /* ... no valid header for the QP */
	uint64_t rx_bad_qkey;   /* ... datagrams with another Q_Key than their QP's */
	uint64_t rx_dc_dropped; /* ... DC requests a DCT refused (state, key, no context) */
	uint64_t dc_connects;   /* DCT contexts given to an initiator */
	uint64_t tx_lost;       /* sent where no port is, or into a full ring */
	uint64_t tx_by_ref;     /* packets whose payload stayed in the sender's memory */
	uint64_t rx_stale_ref;  /* ... dropped: the message they named was gone */
	uint64_t qp_visits;     /* turns QPs got: named by doorbells, packets, timers */
	uint64_t sweeps;        /* looks at every QP's doorbell record */
	uint64_t arm_reads;     /* CQ arm words read */
};
void scx_hca_get_dp_stats(struct scx_hca *hca, struct scx_hca_dp_stats *s);

/*
 * The fabric: the softcx ports of one kernel, as if on one switch. A joined
 * port's requests to a GID in another joined port's address table are
 * answered by that port. wake(ctx) is called when a peer left work for this
 * port's data path (locks held: it must not sleep). 0, or -ENOSPC if the
 * fabric is full (the port then reaches only itself).
 */
int scx_hca_join_fabric(struct scx_hca *hca, void (*wake)(void *ctx), void *ctx);
/*
 * Leaves it, once no peer is using this port (process context, may sleep);
 * requests to it then go unanswered. Also done by scx_hca_destroy().
 */
void scx_hca_leave_fabric(struct scx_hca *hca);

/*
 * The RoCEv2 link on the port's netdev. Once
 * attached, a packet for an address no softcx port of this kernel owns is
 * handed to xmit as a whole Ethernet frame, ICRC included; xmit is called
 * with locks held and interrupts off: it copies and must not sleep.
 * Frames the hca held (SCX_WIRE_RX_HELD) come back through release, with
 * locks held and interrupts off. Detaching returns once no xmit call runs
 * or can start, having given back every frame it held; the caller stops
 * calling scx_hca_wire_rx() first.
 */
void scx_hca_attach_wire(struct scx_hca *hca, void (*xmit)(void *ctx, const void *frame, uint32_t len),
			 void (*release)(void *ctx, void *frame_ref), void *ctx);
void scx_hca_detach_wire(struct scx_hca *hca);

enum scx_wire_rx_result {
	SCX_WIRE_RX_PASS,    /* not a RoCEv2 packet for this port: the stack's */
	SCX_WIRE_RX_DROPPED, /* this port's, dropped and counted: free it */
	SCX_WIRE_RX_HELD,    /* queued in place: released later, keep it */
};
/*
 * A frame the netdev received, from its Ethernet header, contiguous (any
 * context, the receive softirq included: it only queues). A held frame is
 * read where it lies until frame_ref comes back through release, as a
 * NIC's receive queue holds the buffers given to it; the caller wakes
 * the poller.
 */
enum scx_wire_rx_result scx_hca_wire_rx(struct scx_hca *hca, const void *frame, uint32_t len,
					void *frame_ref);

struct scx_hca_wire_stats {
	uint64_t tx_frames;
	uint64_t tx_bytes;
	uint64_t rx_frames;    /* taken for this port's data path */
	uint64_t rx_bytes;
	uint64_t rx_bad_ip;    /* dropped: IP header */
	uint64_t rx_bad_udp;   /* dropped: UDP length */
	uint64_t rx_bad_icrc;  /* dropped: ICRC */
	uint64_t rx_ring_full; /* dropped: the data path is behind */
	uint64_t tx_link_full; /* sends refused, each try: the link's queue was full */
};
void scx_hca_get_wire_stats(struct scx_hca *hca, struct scx_hca_wire_stats *s);
/*
 * The link's send queue is full (false) or has room again (true; the
 * state at attach). While full the hca sends nothing to the wire: its
 * engines wait, lose nothing, and try again on the poller's next round.
 */
void scx_hca_wire_ready(struct scx_hca *hca, bool ready);

/* One QP's transport counters (the packet transport's engine). */
struct scx_hca_qp_counters {
	uint32_t qpn;
	uint8_t state;           /* PRM qpc state */
	uint64_t tx_pkts, tx_bytes, rx_pkts, rx_bytes;
	uint64_t retrans_timeout, retrans_nak; /* go-back rounds, by cause */
	uint64_t seq_naks_sent, seq_naks_rcvd;
	uint64_t rnr_naks_sent, rnr_naks_rcvd;
	uint64_t dup_requests;   /* the responder saw a PSN again */
	uint64_t out_of_seq;     /* packets ahead of the expected PSN */
	uint64_t dropped;        /* packets no QP state accepts */
	uint64_t bad_pkey;       /* dropped: another partition's P_Key */
	uint64_t malformed;      /* dropped: no valid header for the QP, or past its MTU */
	uint64_t bad_qkey;       /* dropped: a datagram with another Q_Key */
};
/* fn for every QP with transport state; under the data path's lock, so
 * it must not sleep. */
void scx_hca_for_each_qp_counters(struct scx_hca *hca,
				   void (*fn)(void *ctx, const struct scx_hca_qp_counters *c), void *ctx);
/* The port's totals: every QP's counters, destroyed QPs' included (qpn and
 * state 0). */
void scx_hca_port_counters(struct scx_hca *hca, struct scx_hca_qp_counters *c);

struct scx_hca_info {
	uint32_t state; /* 0 disabled, 1 enabled, 2 initialized */
	uint32_t fw_pages;
	uint64_t commands;
	uint64_t eqes;
	uint64_t interrupts;
};
void scx_hca_get_info(struct scx_hca *hca, struct scx_hca_info *info);

#ifdef __cplusplus
}
#endif
#endif
