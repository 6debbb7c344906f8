// SPDX-License-Identifier: GPL-2.0
// Event queues on the device side: CREATE/DESTROY/QUERY_EQ, the EQE writer
// (owner bit per lap, written last), the arm and update-ci doorbells of the
// EQ's UAR page, and the interrupt: an EQ raises its vector once per arm.
#pragma once

#include "hca/cmd_ctx.h"
#include "hca/fw_pages.h"
#include "hca/objects.h"
#include "lib/atomic.h"
#include "lib/bus.h"
#include "lib/sync.h"

namespace scx::hca {

// An EQ's state, kept in a firmware-page slot.
struct eq_ctx {
	u32 slot;
	u32 eqn;
	u32 uar;
	u32 intr;
	u8 log_size;
	u8 page_shift;
	u8 st;      // 0 (not armed), prm::eq_state::armed or fired
	u8 status;  // prm eqc status: 0 or write failure (0xa)
	u64 mask[4];
	u32 pi;     // producer counter (the next EQE to write)
	u32 ci;     // consumer counter as last rung
	u32 cq_refs;
	u32 overruns;
	fw_list pas;
};
static_assert(sizeof(eq_ctx) <= fw_pages::slot_size);

struct eq_limits {
	u32 max_eqs;
	u32 log_max_eq_sz;
	u32 num_vectors;
};

class eq_engine {
public:
	eq_engine() = default;
	eq_engine(const eq_engine &) = delete;
	eq_engine &operator=(const eq_engine &) = delete;

	status init(bus::dma_space &dma, bus::irq_sink &irq, fw_pages &pages, id_pool &uars, const eq_limits &lim);

	void create(cmd_ctx &c);
	void destroy(cmd_ctx &c);
	void query(cmd_ctx &c);

	// Write an EQE (type, sub type, 28 bytes of event data) to EQ eqn and
	// interrupt if it is armed. False if there is no such EQ or it is full.
	bool post(u32 eqn, u8 type, u8 sub_type, const u8 *data);
	// The same for an async event, to the EQ whose bitmask has `type`.
	bool post_event(u8 type, u8 sub_type, const u8 *data);
	bool subscribed(u8 type);

	// A write to offset eq_doorbell_arm/_ci of UAR page `uar`.
	void doorbell(u32 uar, u32 offset, u32 value);

	bool cq_attach(u32 eqn);
	void cq_detach(u32 eqn);
	// Destroy every EQ (TEARDOWN_HCA).
	void reset();

	u64 eqes_written() const { return eqes_.load(mo::relaxed); }
	u64 interrupts() const { return irqs_.load(mo::relaxed); }

private:
	eq_ctx *find_subscriber(u8 type);
	bool write_eqe(eq_ctx &eq, u8 type, u8 sub_type, const u8 *data);
	void free_eq(eq_ctx *eq);

	bus::dma_space *dma_ = nullptr;
	bus::irq_sink *irq_ = nullptr;
	fw_pages *pages_ = nullptr;
	id_pool *uars_ = nullptr;
	eq_limits lim_{};
	spinlock lock_;
	obj_table<eq_ctx> table_;
	atomic<u64> eqes_{0};
	atomic<u64> irqs_{0};
};

} // namespace scx::hca
