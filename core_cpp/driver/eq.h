// SPDX-License-Identifier: GPL-2.0
// One event queue, driver side (the role of mlx5_core's eq.c): its ring of
// 64-byte EQEs in DMA memory, handed to the device page by page in
// CREATE_EQ, the interrupt handler that walks the ring by owner bit and
// passes each EQE to its owner, and the consumer-index / arm doorbells in
// the driver's UAR page.
#pragma once

#include "lib/atomic.h"
#include "lib/bus.h"
#include "lib/status.h"

namespace scx::driver {

class cmd_if;
class eq;

// Whoever consumes the events (the device), called in hardirq context:
// `event` for each EQE, `batch_done` after a walk that consumed at least
// one. Plain function pointers keep the device free of virtual dispatch.
struct eq_owner {
	void (*event)(void *ctx, eq &q, const u8 *eqe);
	void (*batch_done)(void *ctx, eq &q);
	void *ctx;
};

struct eq_params {
	u32 nent;           // entries wanted; spare ones are added
	u64 event_mask;     // bit t: event type t (types < 64); 0 = completions only
	u32 vector;         // MSI-X vector (eqc intr)
	const char *irq_name;
	u32 index;          // the owner's name for this EQ
};

struct eq_stats {
	u32 eqn;
	u32 vector;
	u32 nent;
	u32 cons_index;
	u64 irqs;
	u64 eqes;
};

class eq {
public:
	// Entries the ring has beyond what the owner asked for, so the handler
	// may update the consumer index only every so often (MLX5_NUM_SPARE_EQE).
	static constexpr u32 spare = 0x80;
	static constexpr u32 ci_update_every = spare / 2;

	eq() = default;
	eq(const eq &) = delete;
	eq &operator=(const eq &) = delete;
	~eq();

	// CREATE_EQ, request_irq, first arm.
	status create(cmd_if &cmd, bus::mmio &bar, bus::platform &plat, u32 uar, const eq_params &p,
		      const eq_owner &owner);
	// free_irq (waits for a running handler), DESTROY_EQ, frees the ring.
	// If DESTROY_EQ fails the device may still write the ring: it is kept
	// until free_kept_ring(), once the function is disabled.
	status destroy();
	void free_kept_ring();

	// The interrupt handler body (also the platform's irq_handler target).
	void handle_irq();

	bool created() const { return ring_ != nullptr; }
	u32 eqn() const { return eqn_; }
	u32 index() const { return index_; }
	u32 vector() const { return vector_; }
	eq_stats stats() const;

private:
	static void irq_entry(void *ctx, u32 vector);
	u8 *next_eqe_sw();
	void update_ci(bool arm);

	cmd_if *cmd_ = nullptr;
	bus::mmio *bar_ = nullptr;
	bus::platform *plat_ = nullptr;
	eq_owner owner_{};
	u8 *ring_ = nullptr;
	u8 *kept_ring_ = nullptr; // after a failed DESTROY_EQ
	u64 ring_dma_ = 0;
	usize ring_bytes_ = 0;
	u32 log_nent_ = 0;
	u32 cons_index_ = 0;
	u32 eqn_ = 0;
	u32 uar_ = 0;
	u32 vector_ = 0;
	u32 index_ = 0;
	bool irq_ = false;
	bool in_device_ = false;
	atomic<u64> irqs_{0};
	atomic<u64> eqes_{0};
};

} // namespace scx::driver
