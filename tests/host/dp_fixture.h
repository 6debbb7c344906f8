// SPDX-License-Identifier: GPL-2.0
// The Dp fixture: the hca's data path driven the way libmlx5 drives it, with the driver
// against the hca at full speed (both through their C APIs, c_machine.h):
// the test plays the user process. It owns the QP buffers, doorbell
// records, CQ rings and MR pages (device-reachable host memory), writes
// mlx5-format WQEs into the SQ ring, bumps the doorbell record, stores the
// ctrl's first 8 bytes into the UAR page at +0x800 and calls scx_hca_poll,
// then reads CQEs by owner bit. Every byte layout below is written from the
// mlx5 user ABI (mlx5-uabi-spec.md §4, libmlx5's own structs), not from
// core_cpp/prm, so a wrong offset in the hca's headers shows up here.
//
// Memory of every object the test destroys is poisoned and kept until the
// end, where it must be unchanged: the device never touches a destroyed
// QP's buffer, CQ's ring or MR's pages.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <thread>
#include <vector>

#include "c_machine.h"
#include "softcx/verbs.h"

namespace {

using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;

// Big-endian fields, byte by byte: the device's layouts are BE whatever
// the host is.
inline void put16(u8 *p, u16 v)
{
	p[0] = u8(v >> 8);
	p[1] = u8(v);
}
inline void put32(u8 *p, u32 v)
{
	for (int i = 0; i < 4; i++)
		p[i] = u8(v >> (24 - 8 * i));
}
inline void put64(u8 *p, u64 v)
{
	put32(p, u32(v >> 32));
	put32(p + 4, u32(v));
}
inline u16 get16(const u8 *p) { return u16(p[0] << 8 | p[1]); }
inline u32 get32(const u8 *p) { return u32(p[0]) << 24 | u32(p[1]) << 16 | u32(p[2]) << 8 | p[3]; }

// A doorbell-record word: the WQEs written before it must be visible
// first, and the device reads the word atomically.
inline void store_be32(u8 *p, u32 v)
{
	u8 b[4];
	put32(b, v);
	u32 raw;
	std::memcpy(&raw, b, 4);
	__atomic_store_n(reinterpret_cast<u32 *>(p), raw, __ATOMIC_RELEASE);
}
inline u32 load_be32(const u8 *p)
{
	u32 raw = __atomic_load_n(reinterpret_cast<const u32 *>(p), __ATOMIC_ACQUIRE);
	u8 b[4];
	std::memcpy(b, &raw, 4);
	return get32(b);
}

// mlx5 constants as libmlx5 uses them.
namespace op {
constexpr u8 nop = 0x00, rdma_write = 0x08, rdma_write_imm = 0x09, send = 0x0a, send_imm = 0x0b,
	     rdma_read = 0x10, atomic_cs = 0x11, atomic_fa = 0x12;
}
namespace cqe_op {
constexpr u8 req = 0, resp_wr_imm = 1, resp_send = 2, resp_send_imm = 3, req_err = 13, resp_err = 14,
	     invalid = 15;
}
namespace synd {
constexpr u8 loc_len = 0x01, loc_qp_op = 0x02, loc_prot = 0x04, flush = 0x05, rem_inv_req = 0x12,
	     rem_access = 0x13, rem_op = 0x14, rnr_retry_exc = 0x16;
}
constexpr u8 ce_signaled = 0x08;  // fm_ce_se: MLX5_WQE_CTRL_CQ_UPDATE
constexpr u8 se_solicited = 0x02; // fm_ce_se: MLX5_WQE_CTRL_SOLICITED
constexpr u32 invalid_lkey = 0x100;
constexpr u8 guard_byte = 0xa5;
constexpr u8 poison = 0x6b;
constexpr u32 all_remote = SCX_ACCESS_REMOTE_READ | SCX_ACCESS_REMOTE_WRITE | SCX_ACCESS_REMOTE_ATOMIC;

struct cqe_t {
	u8 b[64];
	u8 opcode() const { return b[63] >> 4; }
	bool solicited() const { return b[63] & 2; }
	u8 syndrome() const { return b[55]; }
	u8 vendor_err() const { return b[54]; }
	u32 byte_cnt() const { return get32(b + 44); }
	u32 qpn() const { return get32(b + 56) & 0xffffff; }
	u8 wqe_opcode() const { return b[56]; }
	u16 wqe_counter() const { return get16(b + 60); }
	u32 user_index() const { return get32(b + 32) & 0xffffff; }
	u32 flags_rqpn() const { return get32(b + 24); }
	u32 src_qpn() const { return flags_rqpn() & 0xffffff; }
	u32 imm_raw() const
	{
		u32 v;
		std::memcpy(&v, b + 36, 4);
		return v;
	}
};

struct cq_t {
	scx_cq *h = nullptr;
	u32 cqn = 0;
	u32 log = 0;
	u8 *ring = nullptr;
	u8 *dbr = nullptr;
	u32 ci = 0;
	std::atomic<int> events{0};
	std::atomic<int> errors{0};
};

struct qp_t {
	u32 qpn = 0;
	u32 type = 0;
	u32 uidx = 0;
	u8 *buf = nullptr;
	u32 sq_bbs = 0, rq_wqes = 0, rq_shift = 0;
	u8 *dbr = nullptr;
	u32 buf_off = 0; // where buf starts in its first page
	u16 sq_pi = 0, rq_pi = 0;
	bool alive = false;
	u8 *sq() const { return buf + (size_t(rq_wqes) << rq_shift); }
};

struct mr_t {
	u8 *alloc = nullptr;
	size_t alloc_len = 0;
	u32 page_off = 0;
	size_t len = 0;
	u64 iova = 0;
	u32 key = 0;
	bool alive = false;
	u8 *cpu() const { return alloc + page_off; }
	u64 va(size_t off = 0) const { return iova + off; }
};

struct srq_t {
	u32 srqn = 0;
	u8 *buf = nullptr;
	u8 *dbr = nullptr;
	u32 shift = 0;
	u32 counter = 0;
	bool alive = false;
};

struct sge {
	u64 addr;
	u32 len;
	u32 key;
};

// The segments after the ctrl segment of one send WQE.
struct wqe_b {
	std::vector<u8> s;
	u8 *grow(size_t n)
	{
		size_t at = s.size();
		s.resize(at + n);
		return s.data() + at;
	}
	wqe_b &data(u64 addr, u32 len, u32 lkey)
	{
		u8 *p = grow(16);
		put32(p, len);
		put32(p + 4, lkey);
		put64(p + 8, addr);
		return *this;
	}
	wqe_b &inl(const void *bytes, u32 n)
	{
		size_t padded = (4 + n + 15) & ~size_t(15);
		u8 *p = grow(padded);
		put32(p, 0x80000000u | n);
		std::memcpy(p + 4, bytes, n);
		return *this;
	}
	wqe_b &raddr(u64 va, u32 rkey)
	{
		u8 *p = grow(16);
		put64(p, va);
		put32(p + 8, rkey);
		return *this;
	}
	wqe_b &atomic(u64 swap_add, u64 compare)
	{
		u8 *p = grow(16);
		put64(p, swap_add);
		put64(p + 8, compare);
		return *this;
	}
	// struct mlx5_wqe_av as libmlx5 fills it for RoCEv2.
	wqe_b &av(u32 qkey, u32 dqpn, const u8 gid[16])
	{
		u8 *p = grow(48);
		put32(p, qkey);
		put32(p + 8, 0x80000000u | dqpn);
		put16(p + 14, 0xc001); // RoCEv2 UDP source port
		const u8 mac[6] = {0x02, 0x5c, 0, 0, 0, 9};
		std::memcpy(p + 20, mac, 6);
		p[27] = 64;            // hop limit
		put32(p + 28, 0u << 20); // sgid index 0, flow label 0
		std::memcpy(p + 32, gid, 16);
		return *this;
	}
};

struct send_opts {
	u8 fm_ce_se = ce_signaled;
	u32 imm_raw = 0;   // network order, as wr.imm_data
	int ds = -1;       // override the ds field (malformed WQEs)
	u32 qpn = 0;       // override the QPN in the ctrl (0: the QP's)
	bool ring = true;  // store the doorbell into the UAR page
};

constexpr u32 start_psn = 0xfffff0;

const u8 gid_v4[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 9};
const u8 gid_v6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9};

// The transport attributes of one RC/UC QP.
struct rc_opts {
	u8 min_rnr_timer = 1; // 10 us: RNR waits stay short
	u8 rnr_retry = 7;
	u8 retry_cnt = 7;
	u8 timeout = 14;
	u32 access = all_remote;
};

inline void on_comp(void *ctx) { static_cast<cq_t *>(ctx)->events++; }
inline void on_event(void *ctx, uint8_t) { static_cast<cq_t *>(ctx)->errors++; }

class Dp : public CMachine {
protected:
	void SetUp() override
	{
		CMachine::SetUp();
		start();
		ASSERT_FALSE(HasFatalFailure());
		ASSERT_EQ(scx_verbs_alloc_pd(drv, 0, &pd), 0);
		ASSERT_EQ(scx_verbs_alloc_uar(drv, 0, &uar), 0);
		uar_page = static_cast<u8 *>(scx_hca_uar_page(hca, uar));
		ASSERT_NE(uar_page, nullptr);
	}

	void TearDown() override
	{
		stop_poller();
		if (drv) {
			for (auto &q : qps_)
				if (q->alive) {
					EXPECT_EQ(scx_verbs_destroy_qp(drv, q->qpn), 0);
				}
			for (auto &s : srqs_)
				if (s->alive) {
					EXPECT_EQ(scx_verbs_destroy_srq(drv, s->srqn), 0);
				}
			for (auto &m : mrs_)
				if (m->alive) {
					EXPECT_EQ(scx_verbs_destroy_mkey(drv, m->key), 0);
				}
			for (auto &c : cqs_)
				if (c->h) {
					EXPECT_EQ(scx_verbs_destroy_cq(drv, c->h), 0);
				}
			EXPECT_EQ(scx_verbs_dealloc_pd(drv, pd), 0);
			EXPECT_EQ(scx_verbs_dealloc_uar(drv, uar), 0);
			scx_drv_teardown(drv);
			drv = nullptr;
		}
		if (hca)
			scx_hca_destroy(hca);
		hca = nullptr;
		// The device is gone: what it wrote into destroyed objects' memory
		// stays, and must not be there.
		for (auto &b : blocks_) {
			if (b.poisoned) {
				size_t bad = 0;
				for (size_t i = 0; i < b.len; i++)
					bad += b.cpu[i] != poison;
				EXPECT_EQ(bad, 0u) << "the device wrote " << bad << " bytes of a destroyed object's memory";
			}
			plat.dma_free(b.cpu, b.len, b.bus);
		}
		blocks_.clear();
		CMachine::TearDown();
	}

	// --- memory the "user process" owns --------------------------------
	struct block {
		u8 *cpu;
		size_t len;
		u64 bus;
		bool poisoned;
	};
	u8 *mem(size_t n)
	{
		n = (n + 4095) & ~size_t(4095);
		u64 bus = 0;
		u8 *p = static_cast<u8 *>(plat.dma_alloc(n, &bus));
		EXPECT_NE(p, nullptr);
		blocks_.push_back({p, n, bus, false});
		return p;
	}
	// Host bus addresses are the CPU addresses (host_env); kept explicit.
	u64 bus_of(const u8 *p) { return reinterpret_cast<uintptr_t>(p); }
	void poison_mem(u8 *p)
	{
		for (auto &b : blocks_)
			if (b.cpu == p) {
				std::memset(b.cpu, poison, b.len);
				b.poisoned = true;
			}
	}

	// The hca starts with few firmware pages and asks the driver for more
	// when a command runs out (that command fails with NO_RES: -EAGAIN);
	// the pages arrive asynchronously. Tests with many objects wait.
	template <typename F> int again(F create)
	{
		int rc = create();
		for (int i = 0; retry_eagain && rc == -EAGAIN && i < 2000; i++) {
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
			rc = create();
		}
		return rc;
	}

	// --- CQs -------------------------------------------------------------
	cq_t &make_cq(u32 log = 6)
	{
		cqs_.push_back(std::make_unique<cq_t>());
		cq_t &c = *cqs_.back();
		c.log = log;
		size_t bytes = size_t(64) << log;
		c.ring = mem(bytes);
		c.dbr = mem(64);
		// libmlx5 starts every entry as INVALID, owner 0.
		for (u32 i = 0; i < (1u << log); i++)
			c.ring[i * 64 + 63] = cqe_op::invalid << 4;
		std::vector<u64> pages;
		for (size_t off = 0; off < bytes; off += 4096)
			pages.push_back(bus_of(c.ring) + off);
		scx_cq_params p{};
		p.log_size = log;
		p.cqe_size = 64;
		p.uar_index = uar;
		p.comp_vector = 0;
		p.page_shift = 12;
		p.npages = u32(pages.size());
		p.pages = pages.data();
		p.dbr_addr = bus_of(c.dbr);
		p.ctx = &c;
		p.comp = on_comp;
		p.event = on_event;
		EXPECT_EQ(again([&] { return scx_verbs_create_cq(drv, &p, &c.h, &c.cqn); }), 0);
		return c;
	}
	// The next CQE by owner bit, consumed (the consumer index is
	// published in the doorbell record as libmlx5 does).
	bool next_cqe(cq_t &c, cqe_t *out)
	{
		u32 n = 1u << c.log;
		const u8 *e = c.ring + size_t(c.ci & (n - 1)) * 64;
		u8 own = __atomic_load_n(e + 63, __ATOMIC_ACQUIRE);
		if ((own >> 4) == cqe_op::invalid || (own & 1) != ((c.ci >> c.log) & 1))
			return false;
		std::memcpy(out->b, e, 64);
		c.ci++;
		store_be32(c.dbr, c.ci & 0xffffff);
		return true;
	}
	std::vector<cqe_t> drain(cq_t &c)
	{
		std::vector<cqe_t> v;
		cqe_t e;
		while (next_cqe(c, &e))
			v.push_back(e);
		return v;
	}
	// ibv_req_notify_cq: the arm word into the record, then the CQ
	// doorbell (word, CQN) into the UAR page at +0x20.
	void arm_cq(cq_t &c, u32 sn, bool solicited_only, bool ring = true)
	{
		u32 word = (sn & 3) << 28 | (solicited_only ? 1u << 24 : 0) | (c.ci & 0xffffff);
		store_be32(c.dbr + 4, word);
		if (ring) {
			u8 v[8];
			put32(v, word);
			put32(v + 4, c.cqn);
			uar_store(0x20, v);
		}
	}

	// --- shared receive queues ---------------------------------------------
	// 2^log_size WQEs of 2^shift bytes in one page, receiving into cq.
	srq_t &make_srq(const cq_t &cq, u32 log_size = 3, u32 shift = 6)
	{
		srqs_.push_back(std::make_unique<srq_t>());
		srq_t &s = *srqs_.back();
		s.shift = shift;
		s.buf = mem(size_t(1) << (log_size + shift));
		s.dbr = mem(64);
		u64 page = bus_of(s.buf);
		scx_srq_create_params sp{};
		sp.pdn = pd;
		sp.cqn = cq.cqn;
		sp.log_size = log_size;
		sp.wqe_shift = shift;
		sp.dbr_addr = bus_of(s.dbr);
		sp.page_shift = 12;
		sp.npages = 1;
		sp.pages = &page;
		EXPECT_EQ(again([&] { return scx_verbs_create_srq(drv, &sp, &s.srqn); }), 0);
		s.alive = true;
		return s;
	}
	// SRQ WQE idx: next in the free list, one data segment of len bytes at dst.
	void srq_wqe(srq_t &s, u16 idx, u16 next, const mr_t &dst, u64 off, u32 len)
	{
		u8 *w = s.buf + (size_t(idx) << s.shift);
		std::memset(w, 0, size_t(1) << s.shift);
		put16(w + 2, next);
		put32(w + 16, len);
		put32(w + 20, dst.key);
		put64(w + 24, dst.va(off));
		if ((size_t(1) << s.shift) > 32)
			put32(w + 32 + 4, invalid_lkey);
	}
	// The lib's post: one more WQE for the device. libmlx5's counter is
	// 16 bits wide (struct mlx5_srq.counter), and so is the record's.
	void srq_post(srq_t &s)
	{
		s.counter++;
		store_be32(s.dbr, u16(s.counter));
	}

	// --- memory regions --------------------------------------------------
	// len bytes registered at an IOVA unrelated to the host address,
	// starting page_off bytes into its first page; guard bytes on both
	// sides, inside the same pages, are not part of it.
	// A driver bug on purpose: the last MTT entry left 0 (mtt_hole), or
	// the table filled short of the region (short_list: whole octwords,
	// the last page or two missing).
	enum class mtt_bug { none, mtt_hole, short_list };
	mr_t &make_mr(size_t len, u32 access, u32 page_off = 0, mtt_bug bug = mtt_bug::none)
	{
		mrs_.push_back(std::make_unique<mr_t>());
		mr_t &m = *mrs_.back();
		m.page_off = page_off;
		m.len = len;
		m.alloc_len = (page_off + len + 64 + 4095) & ~size_t(4095);
		m.alloc = mem(m.alloc_len);
		std::memset(m.alloc, guard_byte, m.alloc_len);
		m.iova = 0x7f0000000000ull + u64(mrs_.size()) * 0x100000 + page_off;
		std::vector<u64> pages;
		for (size_t off = 0; off < page_off + len; off += 4096)
			pages.push_back(bus_of(m.alloc) + off);
		scx_mr_params p{};
		p.pdn = pd;
		p.access = access;
		p.iova = m.iova;
		p.length = len;
		p.page_shift = 12;
		if (bug == mtt_bug::mtt_hole)
			pages.back() = 0;
		if (bug == mtt_bug::short_list)
			p.nfilled = u32(pages.size() - 1) & ~1u;
		p.npages = u32(pages.size());
		p.pages = pages.data();
		EXPECT_EQ(again([&] { return scx_verbs_create_mkey(drv, &p, &m.key); }), 0);
		m.alive = true;
		return m;
	}
	// Nothing outside the registered range changed.
	bool guards_intact(const mr_t &m)
	{
		for (size_t i = 0; i < m.alloc_len; i++) {
			bool inside = i >= m.page_off && i < m.page_off + m.len;
			if (!inside && m.alloc[i] != guard_byte)
				return false;
		}
		return true;
	}
	void destroy_mr(mr_t &m)
	{
		EXPECT_EQ(scx_verbs_destroy_mkey(drv, m.key), 0);
		m.alive = false;
		poison_mem(m.alloc);
	}

	// --- QPs -------------------------------------------------------------
	qp_t &make_qp(u32 type, cq_t &scq, cq_t &rcq, u32 srqn = 0, u32 sq_bbs = 64, u32 rq_wqes = 16,
		      u32 rq_shift = 6)
	{
		qps_.push_back(std::make_unique<qp_t>());
		qp_t &q = *qps_.back();
		q.type = type;
		q.uidx = 0x1000 + u32(qps_.size());
		q.sq_bbs = sq_bbs;
		q.rq_wqes = srqn ? 0 : rq_wqes;
		q.rq_shift = srqn ? 0 : rq_shift;
		size_t bytes = (size_t(q.rq_wqes) << q.rq_shift) + size_t(sq_bbs) * 64;
		// qp_buf_offset: the buffer starts inside its first page, as
		// libmlx5 places a parent domain allocator's QP buffers.
		q.buf_off = qp_buf_offset;
		u8 *base = mem(q.buf_off + bytes);
		q.buf = base + q.buf_off;
		q.dbr = mem(64);
		std::vector<u64> pages;
		for (size_t off = 0; off < q.buf_off + bytes; off += 4096)
			pages.push_back(bus_of(base) + off);
		scx_qp_create_params p{};
		p.type = type;
		p.pdn = pd;
		p.send_cqn = scq.cqn;
		p.recv_cqn = rcq.cqn;
		p.has_srq = srqn != 0;
		p.srqn = srqn;
		p.uar_index = uar;
		p.user_index = q.uidx;
		p.sq_wqebbs = sq_bbs;
		p.rq_wqes = q.rq_wqes;
		p.rq_wqe_shift = q.rq_shift;
		p.dbr_addr = bus_of(q.dbr);
		p.page_shift = 12;
		p.npages = u32(pages.size());
		p.pages = pages.data();
		p.page_offset = q.buf_off;
		qp_create_rc = again([&] { return scx_verbs_create_qp(drv, &p, &q.qpn); });
		if (!qp_create_may_fail) {
			EXPECT_EQ(qp_create_rc, 0);
		}
		q.alive = qp_create_rc == 0;
		return q;
	}
	void destroy_qp(qp_t &q)
	{
		EXPECT_EQ(scx_verbs_destroy_qp(drv, q.qpn), 0);
		q.alive = false;
		poison_mem(q.buf - q.buf_off);
		poison_mem(q.dbr);
	}
	void destroy_cq(cq_t &c)
	{
		EXPECT_EQ(scx_verbs_destroy_cq(drv, c.h), 0);
		c.h = nullptr;
		poison_mem(c.ring);
		poison_mem(c.dbr);
	}

	int modify(qp_t &q, u32 from, u32 to, u32 mask, const scx_qp_attr &base)
	{
		scx_qp_attr a = base;
		a.type = q.type;
		a.cur_state = from;
		a.new_state = to;
		a.mask = mask | SCX_QP_STATE;
		a.port = 1;
		return scx_verbs_modify_qp(drv, q.qpn, &a);
	}
	// RESET -> INIT -> RTR -> RTS towards dest (RC, UC) or with qkey (UD).
	void bring_up(qp_t &q, u32 dest, const rc_opts &o, u32 qkey = 0, const u8 *dgid = gid_v4)
	{
		scx_qp_attr a{};
		a.access = o.access;
		a.qkey = qkey;
		u32 m_init = SCX_QP_PKEY_INDEX | SCX_QP_PORT | (q.type == SCX_QPT_UD ? SCX_QP_QKEY : SCX_QP_ACCESS_FLAGS);
		ASSERT_EQ(modify(q, SCX_QPS_RESET, SCX_QPS_INIT, m_init, a), 0);
		a.path_mtu = 3; // 1024
		a.dest_qpn = dest;
		// Every QP starts at the same PSN, so any two make a pair; close
		// to the 24-bit wrap, which longer messages cross.
		a.rq_psn = start_psn;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = o.min_rnr_timer;
		std::memcpy(a.dgid, dgid, 16);
		a.dmac[0] = 0x02;
		a.dmac[5] = 9;
		a.hop_limit = 64;
		a.udp_sport = 0xc001;
		u32 m_rtr = 0;
		if (q.type == SCX_QPT_RC)
			m_rtr = SCX_QP_AV | SCX_QP_PATH_MTU | SCX_QP_DEST_QPN | SCX_QP_RQ_PSN | SCX_QP_MAX_DEST_RD_ATOMIC |
				SCX_QP_MIN_RNR_TIMER;
		else if (q.type == SCX_QPT_UC)
			m_rtr = SCX_QP_AV | SCX_QP_PATH_MTU | SCX_QP_DEST_QPN | SCX_QP_RQ_PSN;
		ASSERT_EQ(modify(q, SCX_QPS_INIT, SCX_QPS_RTR, m_rtr, a), 0);
		a.sq_psn = start_psn;
		a.timeout = o.timeout;
		a.retry_cnt = o.retry_cnt;
		a.rnr_retry = o.rnr_retry;
		a.max_rd_atomic = 4;
		u32 m_rts = SCX_QP_SQ_PSN;
		if (q.type == SCX_QPT_RC)
			m_rts |= SCX_QP_TIMEOUT | SCX_QP_RETRY_CNT | SCX_QP_RNR_RETRY | SCX_QP_MAX_QP_RD_ATOMIC;
		ASSERT_EQ(modify(q, SCX_QPS_RTR, SCX_QPS_RTS, m_rts, a), 0);
	}
	u32 state(qp_t &q)
	{
		scx_qp_attr a{};
		EXPECT_EQ(scx_verbs_query_qp(drv, q.qpn, &a), 0);
		return a.new_state;
	}

	// Two connected RC (or UC) QPs, each with its own send and receive CQ.
	struct pair_t {
		qp_t *a, *b;
		cq_t *as, *ar, *bs, *br;
	};
	pair_t pair(u32 type = SCX_QPT_RC, rc_opts oa = {}, rc_opts ob = {})
	{
		pair_t p{};
		p.as = &make_cq();
		p.ar = &make_cq();
		p.bs = &make_cq();
		p.br = &make_cq();
		p.a = &make_qp(type, *p.as, *p.ar);
		p.b = &make_qp(type, *p.bs, *p.br);
		bring_up(*p.a, p.b->qpn, oa);
		bring_up(*p.b, p.a->qpn, ob);
		return p;
	}

	// --- work requests ---------------------------------------------------
	void uar_store(u32 off, const u8 v[8])
	{
		u64 raw;
		std::memcpy(&raw, v, 8);
		__atomic_store_n(reinterpret_cast<u64 *>(uar_page + off), raw, __ATOMIC_RELEASE);
	}
	// A receive WQE at the RQ's producer index: the scatter list, then the
	// 0x100 terminator if the stride has room; RCV_DBR moves, no doorbell.
	void post_recv(qp_t &q, std::initializer_list<sge> list)
	{
		u8 *w = q.buf + (size_t(q.rq_pi & (q.rq_wqes - 1)) << q.rq_shift);
		std::memset(w, 0, size_t(1) << q.rq_shift);
		size_t at = 0;
		for (const sge &s : list) {
			put32(w + at, s.len);
			put32(w + at + 4, s.key);
			put64(w + at + 8, s.addr);
			at += 16;
		}
		if (at < (size_t(1) << q.rq_shift))
			put32(w + at + 4, invalid_lkey);
		q.rq_pi++;
		store_be32(q.dbr, q.rq_pi);
	}
	// A send WQE at the SQ's producer index, 16-byte units wrapping
	// around the ring as libmlx5 writes them; SND_DBR moves, then the
	// ctrl's first 8 bytes go to the UAR page. Returns the WQE index.
	u16 post_send(qp_t &q, u8 opcode, const wqe_b &w, send_opts o = {})
	{
		std::vector<u8> all(16 + w.s.size());
		u16 idx = q.sq_pi;
		u32 units = u32(all.size() / 16);
		put32(all.data(), u32(idx) << 8 | opcode);
		put32(all.data() + 4, (o.qpn ? o.qpn : q.qpn) << 8 | u32(o.ds >= 0 ? o.ds : int(units)));
		all[11] = o.fm_ce_se;
		std::memcpy(all.data() + 12, &o.imm_raw, 4);
		if (!w.s.empty())
			std::memcpy(all.data() + 16, w.s.data(), w.s.size());
		size_t ring = size_t(q.sq_bbs) * 64;
		for (u32 u = 0; u < units; u++)
			std::memcpy(q.sq() + (size_t(idx & (q.sq_bbs - 1)) * 64 + u * 16) % ring, all.data() + u * 16, 16);
		q.sq_pi = u16(idx + (units * 16 + 63) / 64);
		store_be32(q.dbr + 4, q.sq_pi);
		if (o.ring)
			uar_store(0x800, all.data());
		return idx;
	}

	// --- the device ------------------------------------------------------
	// A few rounds: each doorbell or error leaves at most one more round
	// of work (flushes after an error, arm words after CQEs).
	void pump(int rounds = 6)
	{
		for (int i = 0; i < rounds; i++)
			scx_hca_poll(hca);
	}
	// Rounds until cond holds (timers need real time to pass).
	template <typename F> bool pump_until(F cond, int ms = 3000)
	{
		auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
		while (!cond()) {
			if (std::chrono::steady_clock::now() > end)
				return false;
			scx_hca_poll(hca);
			std::this_thread::sleep_for(std::chrono::microseconds(20));
		}
		return true;
	}
	scx_hca_dp_stats dp_stats()
	{
		scx_hca_dp_stats s{};
		scx_hca_get_dp_stats(hca, &s);
		return s;
	}

	// A poller in its own thread, as the kernel's data-path thread.
	void start_poller()
	{
		poller_stop_ = false;
		poller_ = std::thread([this] {
			while (!poller_stop_.load())
				scx_hca_poll(hca);
		});
	}
	void stop_poller()
	{
		if (!poller_.joinable())
			return;
		poller_stop_ = true;
		poller_.join();
	}

	u32 pd = 0, uar = 0;
	u8 *uar_page = nullptr;
	bool retry_eagain = true;
	std::vector<block> blocks_;
	std::vector<std::unique_ptr<cq_t>> cqs_;
	std::vector<std::unique_ptr<qp_t>> qps_;
	std::vector<std::unique_ptr<mr_t>> mrs_;
	std::vector<std::unique_ptr<srq_t>> srqs_;
	u32 qp_buf_offset = 0;           // for the next make_qp
	bool qp_create_may_fail = false; // ... whose status is then in qp_create_rc
	int qp_create_rc = 0;
	std::thread poller_;
	std::atomic<bool> poller_stop_{false};
};

inline void fill(u8 *p, size_t n, u8 seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = u8(seed + i * 7);
}

// One error CQE as §4.8 describes it.
inline void expect_err(const cqe_t &e, u8 opcode, u8 syndrome, u8 vendor, u32 qpn, u16 counter, u32 uidx)
{
	EXPECT_EQ(e.opcode(), opcode);
	EXPECT_EQ(e.syndrome(), syndrome);
	EXPECT_EQ(e.vendor_err(), vendor);
	EXPECT_EQ(e.qpn(), qpn);
	EXPECT_EQ(e.wqe_counter(), counter);
	EXPECT_EQ(e.user_index(), uidx);
}

} // namespace
