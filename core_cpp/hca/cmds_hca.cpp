// SPDX-License-Identifier: GPL-2.0
// HCA lifecycle (ENABLE/DISABLE_HCA, QUERY/SET_ISSI, INIT/TEARDOWN_HCA),
// QUERY_ADAPTER, NOP and the firmware-page commands.
//
// States: disabled --ENABLE--> enabled --INIT--> initialized; TEARDOWN goes
// back to enabled (destroying every object), DISABLE to disabled.
#include "hca/device.h"
#include "hca/syndrome.h"
#include "prm/hca.h"
#include "prm/pages.h"
#include "prm/reg.h"

namespace scx::hca {

namespace st = prm::cmd_stat;

constexpr u32 supported_issi = 1u << 0 | 1u << 1;
constexpr char adapter_vsd[] = "softcx software HCA";
constexpr char adapter_psid[] = "SCX0000000001";
constexpr u32 mellanox_ieee_id = 0x0002c9;
constexpr u32 mellanox_pci_vendor = 0x15b3;

void device::enable_hca(cmd_ctx &c)
{
	namespace in = prm::enable_hca_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::enable_hca_out::size_bytes, synd::short_output))
		return;
	if (prm::get(c.in, in::embedded_cpu_function) || prm::get(c.in, in::function_id))
		return (void)c.fail(st::bad_param_err, synd::bad_function);
	if (state() != hca_state::disabled)
		return (void)c.fail(st::bad_sys_state_err, synd::already_enabled);
	issi_ = 0;
	state_.store(u32(hca_state::enabled));
}

void device::disable_hca(cmd_ctx &c)
{
	namespace in = prm::disable_hca_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::disable_hca_out::size_bytes, synd::short_output))
		return;
	if (prm::get(c.in, in::embedded_cpu_function) || prm::get(c.in, in::function_id))
		return (void)c.fail(st::bad_param_err, synd::bad_function);
	if (state() == hca_state::initialized)
		return (void)c.fail(st::bad_sys_state_err, synd::disable_initialized);
	// Pages still held are forgotten: the driver owns them again. So are
	// commands still in progress: they never complete.
	pages_.reset();
	cmd_.drop_held();
	state_.store(u32(hca_state::disabled));
}

void device::query_issi(cmd_ctx &c)
{
	namespace out = prm::query_issi_out;
	if (!c.need_in(prm::query_issi_in::size_bytes, synd::short_input))
		return;
	// Drivers that predate ISSI read only the header and current_issi.
	if (!c.need_out(prm::reg_offset(out::current_issi) + 4, synd::short_output))
		return;
	prm::set(c.out, out::current_issi, issi_);
	if (c.outlen >= out::size_bytes)
		prm::set(c.out, out::supported_issi_dw0, supported_issi);
}

void device::set_issi(cmd_ctx &c)
{
	if (!c.need_in(prm::set_issi_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::set_issi_out::size_bytes, synd::short_output))
		return;
	u32 issi = prm::get(c.in, prm::set_issi_in::current_issi);
	if (state() == hca_state::initialized)
		return (void)c.fail(st::bad_sys_state_err, synd::issi_after_init);
	if (issi >= 32 || !(supported_issi & (1u << issi)))
		return (void)c.fail(st::bad_param_err, synd::bad_issi);
	issi_ = u16(issi);
}

u32 device::pages_target() const
{
	u32 n = cfg_.boot_pages + cfg_.init_pages;
	return state() == hca_state::initialized ? n + regular_pages_ : n;
}

void device::init_hca(cmd_ctx &c)
{
	if (!c.need_in(prm::init_hca_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::init_hca_out::size_bytes, synd::short_output))
		return;
	if (state() == hca_state::initialized)
		return (void)c.fail(st::bad_sys_state_err, synd::already_initialized);
	if (pages_.held() < cfg_.boot_pages + cfg_.init_pages)
		return (void)c.fail(st::bad_sys_state_err, synd::init_pages_missing);
	regular_pages_ = cfg_.regular_pages;
	state_.store(u32(hca_state::initialized));
	// Regular pages are asked for with a PAGE_REQUEST event once an EQ
	// listens for it.
	page_request_due_ = true;
}

void device::teardown_hca(cmd_ctx &c)
{
	if (!c.need_in(prm::teardown_hca_in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::teardown_hca_out::size_bytes, synd::short_output))
		return;
	u32 profile = prm::get(c.in, prm::teardown_hca_in::profile);
	if (profile != prm::teardown_profile::graceful_close && profile != prm::teardown_profile::force_close)
		return (void)c.fail(st::bad_param_err, synd::bad_teardown_profile);
	dcts_.reset();
	qps_.reset();
	srqs_.reset();
	cqs_.reset();
	eqs_.reset();
	mkeys_.reset();
	pds_.reset();
	tds_.reset();
	q_counters_.reset();
	uars_.reset();
	umems_.reset(); // after what was built on them
	uctxs_.reset();
	uar_win_.reset_live();
	vport_.reset_roce();
	page_request_due_ = false;
	state_.store(u32(hca_state::enabled));
}

void device::query_adapter(cmd_ctx &c)
{
	namespace out = prm::query_adapter_out;
	namespace pb = prm::query_adapter_param_block;
	if (!c.need_in(prm::query_adapter_in::size_bytes, synd::short_input) ||
	    !c.need_out(out::size_bytes, synd::short_output))
		return;
	u8 *b = prm::at(c.out, out::query_adapter_struct);
	prm::set(b, pb::ieee_vendor_id, mellanox_ieee_id);
	prm::set(b, pb::vsd_vendor_id, mellanox_pci_vendor);
	copy_bytes(prm::at(b, pb::vsd), adapter_vsd, sizeof(adapter_vsd));
	copy_bytes(prm::at(b, pb::vsd_contd_psid), adapter_psid, sizeof(adapter_psid));
}

void device::nop(cmd_ctx &c)
{
	c.need_in(prm::nop_in::size_bytes, synd::short_input) &&
		c.need_out(prm::nop_out::size_bytes, synd::short_output);
}

void device::query_pages(cmd_ctx &c)
{
	namespace in = prm::query_pages_in;
	namespace out = prm::query_pages_out;
	if (!c.need_in(in::size_bytes, synd::short_input) || !c.need_out(out::size_bytes, synd::short_output))
		return;
	if (prm::get(c.in, in::embedded_cpu_function) || prm::get(c.in, in::function_id))
		return (void)c.fail(st::bad_param_err, synd::bad_function);
	u32 target;
	switch (c.op_mod) {
	case prm::query_pages_op_mod::boot_pages:
		target = cfg_.boot_pages;
		break;
	case prm::query_pages_op_mod::init_pages:
		target = cfg_.boot_pages + cfg_.init_pages;
		break;
	case prm::query_pages_op_mod::regular_pages:
		target = pages_target();
		break;
	default:
		return (void)c.fail(st::bad_param_err, synd::bad_op_mod);
	}
	// Negative: pages the hca can give back.
	i32 want = i32(target) - i32(pages_.held());
	if (c.op_mod != prm::query_pages_op_mod::regular_pages && want < 0)
		want = 0;
	prm::set(c.out, out::num_pages, u32(want));
}

void device::manage_pages(cmd_ctx &c)
{
	namespace in = prm::manage_pages_in;
	namespace out = prm::manage_pages_out;
	if (!c.need_in(in::size_bytes, synd::short_input) || !c.need_out(out::size_bytes, synd::short_output))
		return;
	if (prm::get(c.in, in::embedded_cpu_function) || prm::get(c.in, in::function_id))
		return (void)c.fail(st::bad_param_err, synd::bad_function);
	u32 n = prm::get(c.in, in::input_num_entries);
	switch (c.op_mod) {
	case prm::manage_pages_op_mod::allocation_fail:
		return;
	case prm::manage_pages_op_mod::allocation_success: {
		if (n > cfg_.max_pages || !c.need_in(in::pas.byte_off + n * 8, synd::short_list))
			return;
		for (u32 i = 0; i < n; i++) {
			c.relax_at(i);
			bool good = true;
			u64 pa = c.in_be64(in::pas.byte_off + i * 8, &good);
			u32 bad = good ? pages_.give(pa) : synd::short_list;
			if (bad) {
				// All or nothing: the driver frees every page of a
				// failed give.
				for (u32 j = 0; j < i; j++)
					pages_.forget(c.in_be64(in::pas.byte_off + j * 8, &good));
				return (void)c.fail(bad == synd::page_table_full ? st::no_res_err : st::bad_param_err,
						    bad);
			}
		}
		return;
	}
	case prm::manage_pages_op_mod::hca_return_pages: {
		u32 room = (c.outlen - out::pas.byte_off) / 8;
		u32 given = 0;
		u64 pa;
		while (given < n && given < room && pages_.take(&pa))
			c.out_be64(out::pas.byte_off + 8 * given++, pa);
		prm::set(c.out, out::output_num_entries, given);
		return;
	}
	default:
		c.fail(st::bad_param_err, synd::bad_op_mod);
	}
}

} // namespace scx::hca
