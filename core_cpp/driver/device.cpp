// SPDX-License-Identifier: GPL-2.0
#include "driver/device.h"

#include "driver/devx_event.h"
#include "lib/new.h"
#include "prm/cmd.h"
#include "prm/cq.h"
#include "prm/dct.h"
#include "prm/eq.h"
#include "prm/hca_cap.h"
#include "softcx/driver.h"

namespace scx::driver {

namespace et = prm::event_type;

namespace {

constexpr u32 cap_page = prm::hca_cap_union::size_bytes;

static_assert(SCX_QP_EVENT_PATH_MIG == et::path_mig && SCX_QP_EVENT_COMM_EST == et::comm_est &&
	      SCX_QP_EVENT_SQ_DRAINED == et::sq_drained && SCX_QP_EVENT_FATAL == et::wq_catas_error &&
	      SCX_QP_EVENT_PATH_MIG_FAILED == et::path_mig_failed && SCX_QP_EVENT_REQ_ERR == et::wq_inval_req_error &&
	      SCX_QP_EVENT_ACCESS_ERR == et::wq_access_error && SCX_QP_EVENT_LAST_WQE_REACHED == et::srq_last_wqe);
static_assert(SCX_SRQ_EVENT_CATAS == et::srq_catas_error && SCX_SRQ_EVENT_LIMIT == et::srq_rq_limit);

// The async EQ carries everything but completions (eq.c's async, command
// and pages EQs in one).
constexpr u64 async_event_mask =
	(1ull << et::path_mig) | (1ull << et::comm_est) | (1ull << et::sq_drained) |
	(1ull << et::cq_error) | (1ull << et::wq_catas_error) | (1ull << et::path_mig_failed) |
	(1ull << et::internal_error) | (1ull << et::port_change) | (1ull << et::cmd) |
	(1ull << et::page_request) | (1ull << et::wq_inval_req_error) | (1ull << et::wq_access_error) |
	(1ull << et::srq_catas_error) | (1ull << et::srq_last_wqe) | (1ull << et::srq_rq_limit) |
	(1ull << et::dct_drained) | (1ull << et::dct_key_violation);

// "<dev>-<what><n>" without a libc.
void make_name(char *dst, usize cap, const char *dev, const char *what, i32 n)
{
	usize i = 0;
	for (const char *s = dev; *s && i + 1 < cap; s++)
		dst[i++] = *s;
	if (i + 1 < cap)
		dst[i++] = '-';
	for (const char *s = what; *s && i + 1 < cap; s++)
		dst[i++] = *s;
	if (n >= 0) {
		char digits[12];
		u32 k = 0, v = u32(n);
		do {
			digits[k++] = char('0' + v % 10);
			v /= 10;
		} while (v);
		while (k && i + 1 < cap)
			dst[i++] = digits[--k];
	}
	dst[i] = 0;
}

// caps_ slots: general, atomic, roce; each max then cur.
i32 cap_slot(u16 type)
{
	switch (type) {
	case prm::cap_type::general: return 0;
	case prm::cap_type::atomic: return 1;
	case prm::cap_type::roce: return 2;
	default: return -1;
	}
}

} // namespace

u8 *device::cap_buf(u16 type, u16 mode) const
{
	i32 s = cap_slot(type);
	if (s < 0 || !caps_ || mode > 1)
		return nullptr;
	return caps_ + (u32(s) * 2 + mode) * cap_page;
}

const u8 *device::cap(u16 type, u16 mode) const { return cap_buf(type, mode); }

const eq *device::eq_at(u32 i) const
{
	if (i == 0)
		return async_.created() ? &async_ : nullptr;
	return i - 1 < ncomp_ ? &comp_[i - 1] : nullptr;
}

status device::init(bus::mmio &bar, bus::platform &plat, const device_config &cfg)
{
	cfg_ = cfg;
	bar_ = &bar;
	plat_ = &plat;
	if (cfg_.num_comp_eqs < 1 || cfg_.num_comp_eqs > max_comp_eqs)
		return errc::inval;
	caps_ = static_cast<u8 *>(alloc_bytes(6 * cap_page));
	if (!caps_)
		return errc::nomem;
	SCX_TRY(cqs_.init());
	SCX_TRY(drains_.init());
	for (u32 i = 0; i < cfg_.num_comp_eqs; i++)
		SCX_TRY(tasklets_[i].init());

	status s = function_setup();
	if (!s) {
		scx_env_log(SCX_LOG_ERR, "%s: initialization failed: %d", cfg_.name, s.to_errno());
		teardown();
	}
	return s;
}

// The bring-up in the order mlx5_core does it.
status device::function_setup()
{
	cmd_up_ = true; // teardown frees what a failed init left
	SCX_TRY(cmd_.init(*bar_, *plat_, cfg_.cmd, cfg_.name));
	pages_up_ = true;
	SCX_TRY(pages_.init(cmd_, *plat_, cfg_.name));
	SCX_TRY(cmd::enable_hca(cmd_));
	enabled_ = true;
	SCX_TRY(cmd::set_issi(cmd_, &issi_));
	SCX_TRY(pages_.satisfy_startup(true));
	SCX_TRY(set_caps());
	SCX_TRY(pages_.satisfy_startup(false));
	SCX_TRY(cmd::init_hca(cmd_));
	inited_ = true;
	SCX_TRY(read_caps());

	auto uar = cmd::alloc_uar(cmd_);
	if (!uar)
		return uar.error();
	uar_ = *uar;
	uar_ok_ = true;

	SCX_TRY(create_eqs());
	SCX_TRY(cmd::query_adapter(cmd_, &adapter_));
	auto vs = cmd::query_vport_state(cmd_);
	if (!vs)
		return vs.error();
	vport_state_ = *vs;
	scx_env_log(SCX_LOG_INFO, "%s: up: issi %u, uar %u, %u completion EQs, vport %s", cfg_.name, issi_,
		    uar_, ncomp_, vport_state_ ? "up" : "down");
	return status::ok();
}

status device::set_caps()
{
	namespace g = prm::cmd_hca_cap;
	u8 *cur = cap_buf(prm::cap_type::general, prm::cap_mode::cur);
	u8 *max = cap_buf(prm::cap_type::general, prm::cap_mode::max);
	SCX_TRY(cmd::query_hca_cap(cmd_, prm::cap_type::general, prm::cap_mode::cur, cur));
	SCX_TRY(cmd::query_hca_cap(cmd_, prm::cap_type::general, prm::cap_mode::max, max));

	// What the driver changes from the device's defaults, as mlx5_core
	// does: the 128-entry pkey table (encoded 0), no command checksums,
	// UAR pages of the host page size (4 KiB: 0).
	u8 *set = static_cast<u8 *>(alloc_bytes(cap_page));
	if (!set)
		return errc::nomem;
	copy_bytes(set, cur, cap_page);
	prm::set(set, g::pkey_table_size, 0);
	prm::set(set, g::cmdif_checksum, prm::cmdif_checksum::disabled);
	prm::set(set, g::log_uar_page_sz, 0);
	status s = cmd::set_hca_cap(cmd_, prm::cap_type::general, set);

	if (s && prm::get(cur, g::atomic)) {
		namespace a = prm::atomic_caps;
		u8 *acur = cap_buf(prm::cap_type::atomic, prm::cap_mode::cur);
		s = cmd::query_hca_cap(cmd_, prm::cap_type::atomic, prm::cap_mode::cur, acur);
		// Atomic responses in host byte order, when the device offers it.
		if (s && prm::get(acur, a::supported_atomic_req_8B_endianness_mode_1)) {
			zero_bytes(set, cap_page);
			prm::set(set, a::atomic_req_8B_endianness_mode, 1);
			s = cmd::set_hca_cap(cmd_, prm::cap_type::atomic, set);
		}
	}
	if (s && prm::get(cur, g::roce)) {
		namespace r = prm::roce_cap;
		u8 *rcur = cap_buf(prm::cap_type::roce, prm::cap_mode::cur);
		u8 *rmax = cap_buf(prm::cap_type::roce, prm::cap_mode::max);
		s = cmd::query_hca_cap(cmd_, prm::cap_type::roce, prm::cap_mode::cur, rcur);
		if (s)
			s = cmd::query_hca_cap(cmd_, prm::cap_type::roce, prm::cap_mode::max, rmax);
		// Software-chosen RoCE source ports, when settable.
		if (s && !prm::get(rcur, r::sw_r_roce_src_udp_port) && prm::get(rmax, r::sw_r_roce_src_udp_port)) {
			copy_bytes(set, rcur, cap_page);
			prm::set(set, r::sw_r_roce_src_udp_port, 1);
			s = cmd::set_hca_cap(cmd_, prm::cap_type::roce, set);
		}
	}
	free_bytes(set);
	return s;
}

// After INIT_HCA: the values now in force, for the layers above.
status device::read_caps()
{
	const u16 types[] = {prm::cap_type::general, prm::cap_type::atomic, prm::cap_type::roce};
	const u8 *gen = cap_buf(prm::cap_type::general, prm::cap_mode::cur);
	for (u16 t : types) {
		if (t == prm::cap_type::atomic && !prm::get(gen, prm::cmd_hca_cap::atomic))
			continue;
		if (t == prm::cap_type::roce && !prm::get(gen, prm::cmd_hca_cap::roce))
			continue;
		SCX_TRY(cmd::query_hca_cap(cmd_, t, prm::cap_mode::cur, cap_buf(t, prm::cap_mode::cur)));
		SCX_TRY(cmd::query_hca_cap(cmd_, t, prm::cap_mode::max, cap_buf(t, prm::cap_mode::max)));
	}
	return status::ok();
}

status device::create_eqs()
{
	make_name(irq_names_[0], sizeof(irq_names_[0]), cfg_.name, "async", -1);
	eq_params ap{cfg_.async_eq_nent, async_event_mask, 0, irq_names_[0], 0};
	const eq_owner owner{on_eqe, on_batch_done, this};
	SCX_TRY(async_.create(cmd_, *bar_, *plat_, uar_, ap, owner));
	// Command completions now arrive as events.
	if (cfg_.use_events)
		cmd_.use_events();
	for (u32 i = 0; i < cfg_.num_comp_eqs; i++) {
		make_name(irq_names_[i + 1], sizeof(irq_names_[0]), cfg_.name, "comp", i32(i));
		eq_params cp{cfg_.comp_eq_nent, 0, i + 1, irq_names_[i + 1], i + 1};
		SCX_TRY(comp_[i].create(cmd_, *bar_, *plat_, uar_, cp, owner));
		ncomp_ = i + 1;
	}
	return status::ok();
}

bool device::health_poll()
{
	if (!cmd_up_ || health_.poll(*bar_) != health_monitor::verdict::dead_now)
		return false;
	scx_env_log(SCX_LOG_ERR, "%s: firmware dead (%s): the driver answers all commands from now on",
		    cfg_.name, health_.cause());
	cmd_.enter_error_state();
	return true;
}

void device::teardown()
{
	for (u32 i = ncomp_; i-- > 0;)
		(void)comp_[i].destroy();
	ncomp_ = 0;
	if (async_.created()) {
		// Back to polling before the EQ that carries command events goes.
		cmd_.use_polling();
		(void)async_.destroy();
	}
	// Nothing raises page requests any more; let a running one finish.
	if (pages_up_)
		pages_.stop();
	if (uar_ok_) {
		(void)cmd::dealloc_uar(cmd_, uar_);
		uar_ok_ = false;
	}
	if (inited_) {
		if (!cmd::teardown_hca(cmd_))
			scx_env_log(SCX_LOG_ERR, "%s: TEARDOWN_HCA failed", cfg_.name);
		inited_ = false;
	}
	if (enabled_) {
		(void)pages_.reclaim_all(cfg_.page_reclaim_timeout_ms);
		(void)cmd::disable_hca(cmd_);
		enabled_ = false;
	}
	if (cmd_up_) {
		cmd_.fini();
		cmd_up_ = false;
	}
	// The device is quiet: whatever it still held is ours again.
	for (u32 i = 0; i < max_comp_eqs; i++)
		comp_[i].free_kept_ring();
	async_.free_kept_ring();
	if (pages_up_) {
		pages_.fini();
		pages_up_ = false;
	}
	cqs_.fini();
	free_bytes(caps_);
	caps_ = nullptr;
}

void device::schedule(u32 ci)
{
	if (cfg_.schedule_tasklet)
		cfg_.schedule_tasklet(cfg_.ctx, ci);
	else
		run_completions(ci);
}

void device::run_completions(u32 ci)
{
	if (ci >= ncomp_)
		return;
	if (!cfg_.schedule_tasklet) {
		while (tasklets_[ci].run(tasklet_batch)) {
		}
		return;
	}
	// Bounded like the kernel's tasklet; what is left runs next time.
	tasklets_[ci].run(tasklet_batch);
	if (tasklets_[ci].more())
		cfg_.schedule_tasklet(cfg_.ctx, ci);
}

void device::on_eqe(void *ctx, eq &q, const u8 *e) { static_cast<device *>(ctx)->eq_event(q, e); }

void device::on_batch_done(void *ctx, eq &q) { static_cast<device *>(ctx)->eq_batch_done(q); }

void device::eq_event(eq &q, const u8 *e)
{
	u8 type = u8(prm::get(e, prm::eqe::event_type));
	u8 sub = u8(prm::get(e, prm::eqe::event_sub_type));
	const u8 *d = prm::at(e, prm::eqe::event_data);
	switch (type) {
	case et::comp: {
		u32 cqn = u32(prm::get(d, prm::comp_event::cq_number));
		core_cq *cq = cqs_.get(cqn);
		if (!cq && q.index() != 0 && user_event(e))
			return;
		if (!cq || q.index() == 0) {
			if (cq)
				cq_table::put(cq);
			bogus_.fetch_add(1, mo::relaxed);
			return;
		}
		cq->arm_sn.fetch_add(1, mo::relaxed);
		u32 ci = q.index() - 1;
		tasklets_[ci].add(cq);
		comp_pending_[ci] = true;
		return;
	}
	case et::cmd:
		cmd_.complete(u32(prm::get(d, prm::cmd_inter_comp_event::command_completion_vector)));
		return;
	case et::page_request:
		pages_.request(u16(prm::get(d, prm::pages_req_event::function_id)),
			       i32(u32(prm::get(d, prm::pages_req_event::num_pages))));
		return;
	case et::port_change:
		user_event(e);
		if (cfg_.port_event)
			cfg_.port_event(cfg_.ctx, u8(prm::get(d, prm::port_state_change_event::port_num)), sub);
		return;
	case et::comm_est:
	case et::sq_drained:
	case et::path_mig:
	case et::path_mig_failed:
	case et::wq_catas_error:
	case et::wq_inval_req_error:
	case et::wq_access_error:
	case et::srq_last_wqe:
		if (prm::get(d, prm::eqe_qp_srq::type) != prm::event_queue_type::qp) {
			bogus_.fetch_add(1, mo::relaxed);
			return;
		}
		user_event(e);
		if (cfg_.qp_event)
			cfg_.qp_event(cfg_.ctx, u32(prm::get(d, prm::eqe_qp_srq::number)), type);
		return;
	case et::dct_drained:
	case et::dct_key_violation: {
		// A destroy in the kernel waits for DCT_DRAINED; DevX users may
		// have subscribed to either.
		u32 dctn = u32(prm::get(d, prm::eqe_dct::number));
		user_event(e);
		if (type == et::dct_drained)
			drains_.drained(dctn);
		if (cfg_.dct_event)
			cfg_.dct_event(cfg_.ctx, dctn, type);
		return;
	}
	case et::srq_catas_error:
	case et::srq_rq_limit:
		// The SRQ number alone names it (mlx5_core reads no type here).
		if (cfg_.srq_event)
			cfg_.srq_event(cfg_.ctx, u32(prm::get(d, prm::eqe_qp_srq::number)), type);
		return;
	case et::cq_error: {
		u32 cqn = u32(prm::get(d, prm::cq_error::cqn));
		u8 synd = u8(prm::get(d, prm::cq_error::syndrome));
		scx_env_log(SCX_LOG_WARN, "%s: CQ error on CQN 0x%x, syndrome 0x%x", cfg_.name, cqn, synd);
		core_cq *cq = cqs_.get(cqn);
		if (!cq) {
			if (!user_event(e))
				bogus_.fetch_add(1, mo::relaxed);
			return;
		}
		if (cq->event)
			cq->event(cq, type, synd, cq->ctx);
		cq_table::put(cq);
		return;
	}
	default:
		if (cfg_.async_event)
			cfg_.async_event(cfg_.ctx, type, sub, d);
		return;
	}
}

// Hands an EQE to DevX subscribers (their glue looks the key up); false
// if none may want it.
bool device::user_event(const u8 *e)
{
	u64 key = devx::eqe_event_key(e);
	if (!key || !cfg_.user_event)
		return false;
	cfg_.user_event(cfg_.ctx, key, e);
	return true;
}

void device::eq_batch_done(eq &q)
{
	if (q.index() == 0)
		return;
	u32 ci = q.index() - 1;
	if (comp_pending_[ci]) {
		comp_pending_[ci] = false;
		schedule(ci);
	}
}

status device::create_cq(core_cq &cq, void *in, u32 inlen)
{
	namespace cc = prm::create_cq_in;
	if (inlen < cc::size_bytes)
		return errc::inval;
	u8 *cqc = prm::at(static_cast<u8 *>(in), cc::cq_context);
	u32 eqn = u32(prm::get(cqc, prm::cqc::c_eqn_or_apu_element));
	u32 ci = 0;
	while (ci < ncomp_ && comp_[ci].eqn() != eqn)
		ci++;
	if (ci == ncomp_)
		return errc::inval;
	prm::set(in, cc::opcode, prm::op::create_cq);
	u8 out[prm::create_cq_out::size_bytes] = {};
	SCX_TRY(cmd_.exec(in, inlen, out, sizeof(out)));
	cq.cqn = u32(prm::get(out, prm::create_cq_out::cqn));
	cq.uid = u16(prm::get(in, cc::uid));
	cq.eq_index = ci;
	cq.arm_sn.store(0);
	status s = cqs_.insert(&cq);
	if (s.is_ok())
		return s;
	u8 din[prm::destroy_cq_in::size_bytes] = {};
	u8 dout[prm::destroy_cq_out::size_bytes] = {};
	prm::set(din, prm::destroy_cq_in::opcode, prm::op::destroy_cq);
	prm::set(din, prm::destroy_cq_in::uid, cq.uid);
	prm::set(din, prm::destroy_cq_in::cqn, cq.cqn);
	(void)cmd_.exec(din, sizeof(din), dout, sizeof(dout));
	return s;
}

status device::destroy_cq(core_cq &cq)
{
	cqs_.remove(&cq);
	u8 in[prm::destroy_cq_in::size_bytes] = {};
	u8 out[prm::destroy_cq_out::size_bytes] = {};
	prm::set(in, prm::destroy_cq_in::opcode, prm::op::destroy_cq);
	prm::set(in, prm::destroy_cq_in::uid, cq.uid);
	prm::set(in, prm::destroy_cq_in::cqn, cq.cqn);
	SCX_TRY(cmd_.exec(in, sizeof(in), out, sizeof(out)));
	cq_table::put_and_wait(&cq, cfg_.name);
	return status::ok();
}

status device::query_cq(core_cq &cq, void *out, u32 outlen)
{
	u8 in[prm::query_cq_in::size_bytes] = {};
	prm::set(in, prm::query_cq_in::opcode, prm::op::query_cq);
	prm::set(in, prm::query_cq_in::cqn, cq.cqn);
	return cmd_.exec(in, sizeof(in), out, outlen);
}

status device::modify_cq(core_cq &cq, void *in, u32 inlen)
{
	if (inlen < prm::modify_cq_in::size_bytes)
		return errc::inval;
	prm::set(in, prm::modify_cq_in::opcode, prm::op::modify_cq);
	prm::set(in, prm::modify_cq_in::uid, cq.uid);
	prm::set(in, prm::modify_cq_in::cqn, cq.cqn);
	u8 out[prm::modify_cq_out::size_bytes] = {};
	return cmd_.exec(in, inlen, out, sizeof(out));
}

} // namespace scx::driver
