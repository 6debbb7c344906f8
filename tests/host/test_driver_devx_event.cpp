// SPDX-License-Identifier: GPL-2.0
// DevX event rules (driver/devx_event.h): which event types an object
// may be subscribed to, and the key an EQE reaches subscribers under.
#include <gtest/gtest.h>

#include "driver/devx_event.h"
#include "driver/devx_obj.h"
#include "prm/cmd.h"
#include "prm/dct.h"
#include "prm/eq.h"

using namespace scx;
namespace et = prm::event_type;
using driver::devx::event_key;
using driver::devx::event_valid;
using driver::devx::obj_name;

TEST(DevxEvent, TypesFollowTheObjectsKind)
{
	u64 cq = obj_name(prm::op::create_cq, 7), qp = obj_name(prm::op::create_qp, 7);
	EXPECT_TRUE(event_valid(cq, et::comp));
	EXPECT_TRUE(event_valid(cq, et::cq_error));
	EXPECT_FALSE(event_valid(cq, et::comm_est));
	EXPECT_TRUE(event_valid(qp, et::comm_est));
	EXPECT_TRUE(event_valid(qp, et::wq_catas_error));
	EXPECT_TRUE(event_valid(qp, et::srq_last_wqe));
	EXPECT_FALSE(event_valid(qp, et::comp));
	EXPECT_FALSE(event_valid(qp, et::port_change));
	// Unaffiliated: the port's changes only.
	EXPECT_TRUE(event_valid(0, et::port_change));
	EXPECT_FALSE(event_valid(0, et::comp));
	EXPECT_FALSE(event_valid(0, et::cq_error));
	u64 dct = obj_name(prm::op::create_dct, 7);
	EXPECT_TRUE(event_valid(dct, et::dct_drained));
	EXPECT_TRUE(event_valid(dct, et::dct_key_violation));
	EXPECT_FALSE(event_valid(dct, et::comm_est));
	EXPECT_FALSE(event_valid(qp, et::dct_drained));
	// Objects DevX events are not offered on (an umem, a PD), and types
	// past a byte.
	EXPECT_FALSE(event_valid(obj_name(prm::op::alloc_pd, 3), et::comp));
	EXPECT_FALSE(event_valid(cq, 0x100));
}

TEST(DevxEvent, EqesReachTheKeyOfTheirObject)
{
	u8 eqe[64] = {};
	u8 *d = prm::at(eqe, prm::eqe::event_data);
	prm::set(eqe, prm::eqe::event_type, et::comp);
	prm::set(d, prm::comp_event::cq_number, 0x123);
	EXPECT_EQ(driver::devx::eqe_event_key(eqe), event_key(et::comp, obj_name(prm::op::create_cq, 0x123)));

	u8 err[64] = {};
	d = prm::at(err, prm::eqe::event_data);
	prm::set(err, prm::eqe::event_type, et::cq_error);
	prm::set(d, prm::cq_error::cqn, 0x45);
	EXPECT_EQ(driver::devx::eqe_event_key(err), event_key(et::cq_error, obj_name(prm::op::create_cq, 0x45)));

	// A QP's event names a QP only when the EQE says it is one.
	u8 qp[64] = {};
	d = prm::at(qp, prm::eqe::event_data);
	prm::set(qp, prm::eqe::event_type, et::wq_catas_error);
	prm::set(d, prm::eqe_qp_srq::number, 0x99);
	prm::set(d, prm::eqe_qp_srq::type, prm::event_queue_type::qp);
	EXPECT_EQ(driver::devx::eqe_event_key(qp), event_key(et::wq_catas_error, obj_name(prm::op::create_qp, 0x99)));
	prm::set(d, prm::eqe_qp_srq::type, prm::event_queue_type::qp + 1);
	EXPECT_EQ(driver::devx::eqe_event_key(qp), 0u);

	// A DCT's events name it by the number in their data.
	u8 dct[64] = {};
	d = prm::at(dct, prm::eqe::event_data);
	prm::set(dct, prm::eqe::event_type, et::dct_drained);
	// The kernel's __be32 dctn whole: its top byte is not the number's.
	store_be<u32>(d + prm::eqe_dct::number.bit_off / 8 - 1, 0xab000042);
	EXPECT_EQ(driver::devx::eqe_event_key(dct), event_key(et::dct_drained, obj_name(prm::op::create_dct, 0x42)));
	prm::set(dct, prm::eqe::event_type, et::dct_key_violation);
	EXPECT_EQ(driver::devx::eqe_event_key(dct),
		  event_key(et::dct_key_violation, obj_name(prm::op::create_dct, 0x42)));

	u8 port[64] = {};
	prm::set(port, prm::eqe::event_type, et::port_change);
	EXPECT_EQ(driver::devx::eqe_event_key(port), event_key(et::port_change, 0));
	// What no subscriber may ask for: none.
	u8 cmd[64] = {};
	prm::set(cmd, prm::eqe::event_type, et::cmd);
	EXPECT_EQ(driver::devx::eqe_event_key(cmd), 0u);
}
