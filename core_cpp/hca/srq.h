// SPDX-License-Identifier: GPL-2.0
// Shared receive queues on the device side: CREATE/DESTROY/QUERY_SRQ and
// ARM_RQ (the limit), and receive memory pools (RMPs, rmp.cpp): SRQs made
// from a work queue context, in the same number space, whose WQEs may be
// taken in ring order (cyclic) instead of by their next_wqe_index, and
// whose memory may be a DevX umem. Each keeps its context and what the
// data path needs (WQE ring through the PAS list, stride, doorbell record,
// consumer state) in a firmware-page slot; QPs with rq_type SRQ and DCTs
// attach to it, and one in use cannot be destroyed. Numbers start at 1: a
// CQE's srqn 0 means "no SRQ".
#pragma once

#include "hca/cmd_ctx.h"
#include "hca/fw_pages.h"
#include "hca/objects.h"
#include "hca/umem.h"
#include "lib/bus.h"
#include "lib/sync.h"

namespace scx::hca {

// What the data path works with, decoded from the srqc.
struct srq_runtime {
	u32 srqn;
	u32 pd;
	u32 cqn;            // as given; a basic SRQ completes on the QP's receive CQ
	u8 log_size;        // 2^log_size WQEs
	u8 stride_shift;    // log2 of the WQE stride in bytes (4 + srqc.log_rq_stride)
	u8 page_shift;      // log2 of the PAS page size
	u8 state;           // prm::srqc_state (an RMP's RDY is good, ERR error)
	u8 rmp;             // made by CREATE_RMP (only RMP commands name it)
	u8 cyclic;          // WQEs taken in ring order, next_wqe_index ignored
	u8 next_seg;        // bytes before a WQE's first data segment (16 or 0)
	u32 page_offset;    // bytes into the first PAS page where WQE 0 starts
	u64 dbr_addr;       // doorbell record: BE32 producer counter at +0
	fw_list pas;
	u16 lwm;            // limit (ARM_RQ); 0: none
	u8 limit_armed;     // an SRQ_RQ_LIMIT event is due when fewer than lwm WQEs remain
	u8 rlky;
	// Data-path state (zero at creation).
	u32 consumed;       // WQEs taken so far (compared with the producer counter)
	u16 head;           // index of the next WQE to take (next_wqe_index chain)
	u16 uid;            // its creator's user context (uctx.h)
	u32 wq_umem;        // DevX umems it uses (0: none; released at destroy)
	u32 dbr_umem;
	u32 users;          // QPs attached
	u32 generation;     // bumped by every command that changes the SRQ
};

struct srq_ctx {
	u32 slot;
	srq_runtime rt;
	u8 srqc[64];        // the srqc, or an RMP's wq, as created (QUERY's base)
};
static_assert(sizeof(srq_ctx) <= fw_pages::slot_size);

class srq_table {
public:
	static constexpr u32 first_srqn = 1;

	srq_table() = default;
	srq_table(const srq_table &) = delete;
	srq_table &operator=(const srq_table &) = delete;

	status init(bus::dma_space &dma, fw_pages &pages, id_pool &pds, umem_table &umems, u32 max_srqs,
		    u32 log_max_srq_sz, u32 max_stride);

	void create(cmd_ctx &c);
	void destroy(cmd_ctx &c);
	void query(cmd_ctx &c);
	void arm(cmd_ctx &c);
	// rmp.cpp
	void create_rmp(cmd_ctx &c);
	void modify_rmp(cmd_ctx &c);
	void query_rmp(cmd_ctx &c);
	void destroy_rmp(cmd_ctx &c);
	// Destroy every SRQ (TEARDOWN_HCA; QPs are gone by then).
	void reset();

	// The uid of SRQ srqn's creator (0 if there is none; see uctx.h), and
	// whether some SRQ was made by user context uid.
	u16 owner(u32 srqn);
	bool any_owned_by(u16 uid);
	// A QP receives from SRQ srqn (false: no such SRQ).
	bool attach(u32 srqn);
	void detach(u32 srqn);

	// For the data path: a snapshot of SRQ srqn, or false.
	bool lookup(u32 srqn, srq_runtime *out);
	// Runs f(srq_runtime &) on the live SRQ under the table lock (keep it
	// short: no other hca lock may be taken inside); false if no such SRQ.
	template <typename F> bool update(u32 srqn, F &&f)
	{
		lock_guard g(lock_);
		srq_ctx *s = table_.get(srqn);
		if (!s)
			return false;
		f(s->rt);
		return true;
	}
	// Bus address of byte `off` of the SRQ's WQE buffer (false beyond it).
	bool wq_addr(const srq_runtime &rt, u64 off, u64 *bus) const;
	u32 count() const { return live_; }

	// For the data path under its lock (see qp_table::dp_get).
	srq_runtime *dp_get(u32 srqn)
	{
		srq_ctx *s = table_.get(srqn);
		return s ? &s->rt : nullptr;
	}

private:
	void free_srq(srq_ctx *s);
	void free_memory(srq_runtime &rt);
	// A slot for a new SRQ or RMP; nullptr with the command failed.
	srq_ctx *new_slot(cmd_ctx &c);
	// The page list from the mailbox at byte pas_off; false with the
	// command failed (the list freed).
	bool read_pas(cmd_ctx &c, srq_runtime &rt, u32 pas_off, u32 npas, u32 bad_page);
	// Numbers it and counts it live; false with the command failed and
	// the slot freed.
	bool publish(cmd_ctx &c, srq_ctx *s, u32 *number);
	// An RMP's memory from the command or its umems; false with the
	// command failed.
	bool rmp_memory(cmd_ctx &c, const u8 *wqc, srq_runtime &rt, u64 bytes);
	// Destroy (SRQ or RMP as `rmp` says) number n under the command's uid.
	void destroy_one(cmd_ctx &c, u32 n, bool rmp);

	bus::dma_space *dma_ = nullptr;
	fw_pages *pages_ = nullptr;
	id_pool *pds_ = nullptr;
	umem_table *umems_ = nullptr;
	u32 log_max_srq_sz_ = 0;
	u32 max_stride_ = 0;
	u32 live_ = 0;
	spinlock lock_;
	obj_table<srq_ctx> table_;
};

// Bus address of byte `off` of a work queue buffer given by a PAS list of
// 2^page_shift pages whose data starts page_offset bytes into the first.
bool wq_bus_addr(const fw_pages &pages, const fw_list &pas, u32 page_shift, u32 page_offset, u64 off, u64 *bus);

} // namespace scx::hca
