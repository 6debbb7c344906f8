// SPDX-License-Identifier: GPL-2.0
// Completion queues on the device side: CREATE/DESTROY/QUERY/MODIFY_CQ, the
// CQE writer the data path calls (owner bit per lap, overrun detection
// against the consumer index in the CQ's doorbell record), and arming through
// the CQ doorbell of a UAR page, which turns the next completion into a COMP
// EQE on the CQ's EQ.
#pragma once

#include "hca/cmd_ctx.h"
#include "hca/eq.h"
#include "hca/fw_pages.h"
#include "hca/objects.h"
#include "hca/umem.h"
#include "lib/bus.h"
#include "lib/sync.h"

namespace scx::hca {

// A CQ's state, kept in a firmware-page slot.
struct cq_ctx {
	u32 slot;
	u32 cqn;
	u32 uar;
	u32 eqn;
	u8 log_size;
	u8 page_shift;
	u8 cqe_size;       // bytes per entry: 64 or 128
	u8 st;             // 0 (not armed), prm::cq_state::armed or fired
	u8 status;         // prm::cq_status
	u8 arm_sn;
	u8 solicited_only;
	u8 oi;             // overrun ignore
	u16 cq_period;
	u16 cq_max_count;
	u16 uid;           // its creator's user context (uctx.h)
	u64 dbr_addr;
	u32 pi;            // producer counter
	u32 sol_pi;        // producer counter just past the last solicited or error CQE
	u32 overruns;
	u32 users;         // QPs sending or receiving on it
	u32 ring_offset;   // where the ring starts in the first page of pas
	u32 ring_umem;     // the umem the ring is in (0: pages of its own)
	u32 dbr_umem;      // the umem the doorbell record is in (0: none)
	fw_list pas;
};
static_assert(sizeof(cq_ctx) <= fw_pages::slot_size);

enum class cqe_result { posted, no_cq, overrun, fault };

class cq_engine {
public:
	cq_engine() = default;
	cq_engine(const cq_engine &) = delete;
	cq_engine &operator=(const cq_engine &) = delete;

	status init(bus::dma_space &dma, fw_pages &pages, id_pool &uars, umem_table &umems, eq_engine &eqs,
		    u32 max_cqs, u32 log_max_cq_sz);

	void create(cmd_ctx &c);
	void destroy(cmd_ctx &c);
	void query(cmd_ctx &c);
	// MODIFY_CQ: moderation, or (op_mod RESIZE) a new ring; the caller
	// has run the data path's posted work first.
	void modify(cmd_ctx &c);

	// The data path's entry point: write a 64-byte CQE (its op_own owner
	// bit is set here) to CQ cqn and, if the CQ is armed for it, post a
	// COMP EQE. An overrun puts the CQ in error and reports CQ_ERROR.
	cqe_result post_cqe(u32 cqn, const u8 *cqe64, bool solicited);

	// The uid of CQ cqn's creator (0 if there is none; see uctx.h), and
	// whether some CQ was made by user context uid.
	u16 owner(u32 cqn);
	bool any_owned_by(u16 uid);
	// The consumer index CQ cqn's doorbell record shows (false: no such
	// CQ, or its record unreadable).
	bool consumer_index(u32 cqn, u32 *ci);
	// A QP uses CQ cqn (false: no such CQ); a CQ in use cannot be
	// destroyed (BAD_RES_STATE).
	bool attach(u32 cqn);
	void detach(u32 cqn);

	// A 64-bit write to the CQ doorbell of UAR page `uar`.
	void doorbell(u32 uar, u64 value);
	// The arm word of CQ cqn's doorbell record: a request written since
	// the last look arms the CQ. The device marks each request it acted
	// on (prm::cq_dbrec::arm_mark, a bit drivers never set), so a repeated
	// identical request, the very first all-zero one included, is new.
	void poll_arm(u32 cqn);
	// For the data path, under its lock: live CQ numbers, and a number
	// that changes whenever a CQ is created or destroyed.
	template <typename F> void for_each_cqn(F &&f)
	{
		table_.for_each([&](u32 cqn, cq_ctx *) { f(cqn); });
	}
	u32 epoch() const { return epoch_; }

	void reset();

private:
	// CREATE_CQ's ring: from the command's PAS, or from a umem (DevX).
	bool ring_from_pas(cmd_ctx &c, cq_ctx &cq, u64 ring, u32 page_shift);
	bool ring_from_umem(cmd_ctx &c, cq_ctx &cq, u64 ring);
	void publish(cmd_ctx &c, cq_ctx *cq);
	void release_memory(cq_ctx &cq);
	void free_cq(cq_ctx *cq);
	void resize(cmd_ctx &c);
	bool write_cqe(const cq_ctx &cq, const u8 *cqe64);
	bool consumer_index(const cq_ctx &cq, u32 *ci);
	u32 *arm_word(const cq_ctx &cq);
	void comp_event(u32 eqn, u32 cqn);
	bool arm(cq_ctx &cq, u32 word);

	bus::dma_space *dma_ = nullptr;
	fw_pages *pages_ = nullptr;
	id_pool *uars_ = nullptr;
	umem_table *umems_ = nullptr;
	eq_engine *eqs_ = nullptr;
	u32 log_max_cq_sz_ = 0;
	u32 epoch_ = 0;
	spinlock lock_;
	obj_table<cq_ctx> table_;
};

} // namespace scx::hca
