// SPDX-License-Identifier: GPL-2.0
// softcx/verbs.h over the driver.
#include "driver/c_drv.h"
#include "driver/commands.h"
#include "driver/verbs.h"
#include "prm/q_counter.h"

using namespace scx;

extern "C" {

int scx_verbs_query_device(struct scx_drv *drv, struct scx_ib_device_attr *attr)
{
	return driver::query_ib_device(drv->dev, attr).to_errno();
}

int scx_verbs_set_gid(struct scx_drv *drv, uint32_t index, const uint8_t *gid, const uint8_t *mac,
		      bool roce_v2, bool ipv4)
{
	// mlx5's encoding: version 0 (RoCE v1) or 2; L3 type 0 IPv4, 1 IPv6.
	return driver::set_roce_address(drv->dev, index, gid, mac, roce_v2 ? 2 : 0, ipv4 ? 0 : 1).to_errno();
}

int scx_verbs_port_up(struct scx_drv *drv)
{
	result<bool> up = driver::query_port_up(drv->dev);
	return up ? int(*up) : up.error().to_errno();
}

int scx_verbs_alloc_pd(struct scx_drv *drv, uint16_t uid, uint32_t *pdn)
{
	result<u32> pd = driver::cmd::alloc_pd(drv->dev.cmd(), uid);
	if (!pd)
		return pd.error().to_errno();
	*pdn = *pd;
	return 0;
}

namespace {
// The names, in query_q_counter_out's order.
constexpr const char *q_counter_names[] = {
#define SCX_QC_NAME(name) #name,
	SCX_Q_COUNTER_FIELDS(SCX_QC_NAME)
#undef SCX_QC_NAME
};
constexpr unsigned int q_counters = sizeof(q_counter_names) / sizeof(q_counter_names[0]);
} // namespace

unsigned int scx_verbs_q_counter_count(void)
{
	return q_counters;
}

const char *scx_verbs_q_counter_name(unsigned int i)
{
	return i < q_counters ? q_counter_names[i] : nullptr;
}

int scx_verbs_alloc_q_counter(struct scx_drv *drv, uint32_t *set)
{
	result<u32> id = driver::cmd::alloc_q_counter(drv->dev.cmd());
	if (!id)
		return id.error().to_errno();
	*set = *id;
	return 0;
}

int scx_verbs_dealloc_q_counter(struct scx_drv *drv, uint32_t set)
{
	return driver::cmd::dealloc_q_counter(drv->dev.cmd(), set).to_errno();
}

int scx_verbs_query_q_counter(struct scx_drv *drv, uint32_t set, bool clear, uint32_t *values)
{
	namespace o = prm::query_q_counter_out;
	u8 out[o::size_bytes] = {};
	status s = driver::cmd::query_q_counter(drv->dev.cmd(), set, clear, out);
	if (!s)
		return s.to_errno();
	unsigned int i = 0;
#define SCX_QC_GET(name) values[i++] = u32(prm::get(out, o::name));
	SCX_Q_COUNTER_FIELDS(SCX_QC_GET)
#undef SCX_QC_GET
	return 0;
}

int scx_verbs_dealloc_pd(struct scx_drv *drv, uint32_t pdn)
{
	return driver::cmd::dealloc_pd(drv->dev.cmd(), pdn).to_errno();
}

int scx_verbs_alloc_uar(struct scx_drv *drv, uint16_t uid, uint32_t *index)
{
	result<u32> uar = driver::cmd::alloc_uar(drv->dev.cmd(), uid);
	if (!uar)
		return uar.error().to_errno();
	*index = *uar;
	return 0;
}

int scx_verbs_dealloc_uar(struct scx_drv *drv, uint32_t index)
{
	return driver::cmd::dealloc_uar(drv->dev.cmd(), index).to_errno();
}

int scx_verbs_release_uar(struct scx_drv *drv, uint32_t index)
{
	return driver::cmd::release_uar(drv->dev.cmd(), index).to_errno();
}

} // extern "C"
