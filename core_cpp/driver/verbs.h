// SPDX-License-Identifier: GPL-2.0
// Verbs attributes of a function, computed from the firmware's own reports
// (the role of mlx5_ib's query_device/query_port code).
#pragma once

#include "driver/device.h"
#include "softcx/verbs.h"

namespace scx::driver {

// Fills attr from the cached capability pages, QUERY_ADAPTER and a fresh
// QUERY_NIC_VPORT_CONTEXT (GUIDs).
status query_ib_device(device &dev, scx_ib_device_attr *attr);
// Entry `index` of the port's RoCE address table (gid null: clear it).
status set_roce_address(device &dev, u32 index, const u8 *gid, const u8 *mac, u8 version, u8 l3_type);
// The vport state now (a QUERY_VPORT_STATE command).
result<bool> query_port_up(device &dev);

} // namespace scx::driver
