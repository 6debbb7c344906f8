// SPDX-License-Identifier: GPL-2.0
#include "driver/devx_event.h"

#include "driver/devx_obj.h"
#include "prm/cmd.h"
#include "prm/dct.h"
#include "prm/eq.h"

namespace scx::driver::devx {

namespace et = prm::event_type;

namespace {

// The events of a QP a DevX user may subscribe to (mlx5_ib's list of
// affiliated QP events, less what softcx never raises on a QP).
bool qp_event(u16 type)
{
	switch (type) {
	case et::path_mig:
	case et::comm_est:
	case et::sq_drained:
	case et::wq_catas_error:
	case et::path_mig_failed:
	case et::wq_inval_req_error:
	case et::wq_access_error:
	case et::srq_last_wqe:
		return true;
	default:
		return false;
	}
}

} // namespace

bool event_valid(u64 name, u16 type)
{
	if (!name)
		return type == et::port_change;
	switch (u16(name >> 32)) {
	case prm::op::create_cq:
		return type == et::comp || type == et::cq_error;
	case prm::op::create_qp:
		return qp_event(type);
	case prm::op::create_dct:
		return type == et::dct_drained || type == et::dct_key_violation;
	default:
		return false;
	}
}

u64 eqe_event_key(const u8 *eqe)
{
	u8 type = u8(prm::get(eqe, prm::eqe::event_type));
	const u8 *d = prm::at(eqe, prm::eqe::event_data);
	switch (type) {
	case et::comp:
		return event_key(type, obj_name(prm::op::create_cq, u32(prm::get(d, prm::comp_event::cq_number))));
	case et::cq_error:
		return event_key(type, obj_name(prm::op::create_cq, u32(prm::get(d, prm::cq_error::cqn))));
	case et::port_change:
		return event_key(type, 0);
	case et::dct_drained:
	case et::dct_key_violation:
		return event_key(type, obj_name(prm::op::create_dct, u32(prm::get(d, prm::eqe_dct::number))));
	default:
		if (!qp_event(type) || prm::get(d, prm::eqe_qp_srq::type) != prm::event_queue_type::qp)
			return 0;
		return event_key(type, obj_name(prm::op::create_qp, u32(prm::get(d, prm::eqe_qp_srq::number))));
	}
}

} // namespace scx::driver::devx
