// SPDX-License-Identifier: GPL-2.0
#include "hca/vport.h"

#include "hca/fabric.h"
#include "hca/syndrome.h"
#include "prm/eq.h"
#include "prm/qp.h"
#include "prm/vport.h"

namespace scx::hca {

namespace st = prm::cmd_stat;
constexpr u8 port_num = 1;

void vport::init(const device_config &cfg, eq_engine &eqs)
{
	cfg_ = cfg;
	eqs_ = &eqs;
	link_.store(cfg.link_up);
	mtu_.store(cfg.mtu);
}

bool vport::check_vport(cmd_ctx &c, bool other, u32 number)
{
	// One function, no e-switch: only its own vNIC vport exists.
	if (other || number)
		return c.fail(st::bad_param_err, synd::vport_other);
	return true;
}

void vport::query_state(cmd_ctx &c)
{
	namespace in = prm::query_vport_state_in;
	namespace out = prm::query_vport_state_out;
	if (!c.need_in(in::size_bytes, synd::short_input) || !c.need_out(out::size_bytes, synd::short_output))
		return;
	if (c.op_mod != prm::vport_state_op_mod::vnic_vport)
		return (void)c.fail(st::bad_param_err, synd::vport_bad_op_mod);
	if (!check_vport(c, prm::get(c.in, in::other_vport), prm::get(c.in, in::vport_number)))
		return;
	prm::set(c.out, out::state, link_.load() ? prm::vport_state::up : prm::vport_state::down);
	prm::set(c.out, out::admin_state, prm::vport_state::up);
}

void vport::query_nic_context(cmd_ctx &c)
{
	namespace in = prm::query_nic_vport_context_in;
	namespace out = prm::query_nic_vport_context_out;
	namespace ctx = prm::nic_vport_context;
	if (!c.need_in(in::size_bytes, synd::short_input) || !c.need_out(out::size_bytes, synd::short_output))
		return;
	if (!check_vport(c, prm::get(c.in, in::other_vport), prm::get(c.in, in::vport_number)))
		return;
	u8 *v = prm::at(c.out, out::nic_vport_context);
	prm::set(v, ctx::roce_en, 1);
	prm::set(v, ctx::mtu, mtu_.load());
	prm::set(v, ctx::system_image_guid, cfg_.system_image_guid);
	prm::set(v, ctx::port_guid, cfg_.node_guid);
	prm::set(v, ctx::node_guid, cfg_.node_guid);
	u8 *mac = prm::at(v, ctx::permanent_address);
	// mac_addr_47_32 and mac_addr_31_0 hold the six bytes in wire order.
	copy_bytes(mac + prm::mac_address_layout::mac_addr_47_32.byte_off, cfg_.mac, sizeof(cfg_.mac));
}

void vport::query_esw_functions(cmd_ctx &c)
{
	namespace in = prm::query_esw_functions_in;
	namespace out = prm::query_esw_functions_out;
	if (!c.need_in(in::size_bytes, synd::short_input) || !c.need_out(out::size_bytes, synd::short_output))
		return;
	if (c.op_mod)
		return (void)c.fail(st::bad_param_err, synd::vport_bad_op_mod);
	// One physical function with no VFs and no SFs, not an eswitch
	// manager: host 0, its PF present and enabled, nothing behind it -
	// all zeros in host_params_context, which the output already is.
}

u8 vport::max_path_mtu() const
{
	// What a RoCEv2 packet adds to its payload inside the IP MTU, at most:
	// IPv6 header (the larger), UDP, BTH, an XRC extension, AtomicETH,
	// ICRC - the budget the RDMA core reckons a port's active MTU with.
	constexpr u32 overhead = 40 + 8 + 12 + 4 + 28 + 4;
	u32 m = mtu_.load();
	u8 best = 0;
	for (u8 code = prm::qpc_mtu::bytes_256; code <= prm::qpc_mtu::bytes_4k; code++)
		if ((128u << code) + overhead <= m)
			best = code;
	return best;
}

bool vport::set_link(bool up)
{
	if (link_.exchange(up) == up)
		return false;
	u8 data[prm::eqe::event_data.size] = {};
	prm::set(data, prm::port_state_change_event::port_num, port_num);
	return eqs_->post_event(prm::event_type::port_change,
				up ? prm::port_change_subtype::active : prm::port_change_subtype::down, data);
}

} // namespace scx::hca

namespace scx::hca {

void vport::set_roce_address(cmd_ctx &c)
{
	namespace in = prm::set_roce_address_in;
	if (!c.need_in(in::size_bytes, synd::short_input) ||
	    !c.need_out(prm::set_roce_address_out::size_bytes, synd::short_output))
		return;
	u32 index = prm::get(c.in, in::roce_address_index);
	if (index >= roce_table_size)
		return (void)c.fail(st::bad_param_err, synd::roce_addr_index);
	u32 port = prm::get(c.in, in::vhca_port_num);
	if (port > port_num)
		return (void)c.fail(st::bad_param_err, synd::roce_addr_port);
	const u8 *a = prm::at(c.in, in::roce_address);
	const u8 *l3 = prm::at(a, prm::roce_addr_layout::source_l3_address);
	bool any = false;
	for (u32 i = 0; i < 16; i++)
		any = any || l3[i];
	// An all-zero address clears the entry (as the driver deletes one).
	copy_bytes(roce_[index].l3, l3, 16);
	roce_[index].valid = any;
	if (any && index >= roce_used_)
		roce_used_ = index + 1;
	while (roce_used_ && !roce_[roce_used_ - 1].valid)
		roce_used_--;
	// Peers' cached routes may name this port for an address it dropped,
	// or miss one it gained.
	fabric::addresses_changed();
}

bool vport::has_roce_address(const u8 *gid) const
{
	for (u32 i = 0; i < roce_used_; i++)
		if (roce_[i].valid && same_bytes(roce_[i].l3, gid, 16))
			return true;
	return false;
}

void vport::reset_roce()
{
	for (auto &e : roce_)
		e.valid = 0;
	roce_used_ = 0;
	fabric::addresses_changed();
}

} // namespace scx::hca
