// SPDX-License-Identifier: GPL-2.0
// softcx/driver.h: the driver side behind a C interface for kmod/.
#include "softcx/driver.h"

#include "driver/cmd_names.h"
#include "driver/c_drv.h"
#include "lib/new.h"

using namespace scx;

extern "C" {

int scx_drv_init(const struct scx_drv_params *p, struct scx_drv **out)
{
	if (!p || !out || !p->bar || !p->dma_alloc || !p->dma_free || !p->request_irq || !p->free_irq)
		return -int(errc::inval);
	auto *drv = make<scx_drv>(*p);
	if (!drv)
		return -int(errc::nomem);
	// The name must outlive the caller's string (IRQ names, log lines).
	const char *src = p->name ? p->name : "softcx";
	for (usize i = 0; src[i] && i + 1 < sizeof(drv->name); i++)
		drv->name[i] = src[i];
	driver::device_config cfg;
	cfg.name = drv->name;
	if (p->cmd_timeout_ms)
		cfg.cmd.timeout_ms = p->cmd_timeout_ms;
	cfg.cmd.checksum = p->cmd_checksum != 0;
	cfg.num_comp_eqs = p->num_comp_eqs ? p->num_comp_eqs : 1;
	cfg.use_events = !p->cmd_polling;
	cfg.ctx = p->ctx;
	cfg.schedule_tasklet = p->schedule_tasklet;
	cfg.port_event = p->port_event;
	cfg.qp_event = p->qp_event;
	cfg.srq_event = p->srq_event;
	cfg.dct_event = p->dct_event;
	cfg.user_event = p->user_event;
	status s = drv->dev.init(*bus::from_bar(p->bar), drv->plat, cfg);
	if (!s) {
		destroy(drv);
		return s.to_errno();
	}
	*out = drv;
	return 0;
}

void scx_drv_teardown(struct scx_drv *drv)
{
	if (!drv)
		return;
	drv->dev.teardown();
	destroy(drv);
}

void scx_drv_handle_irq(struct scx_drv *drv, unsigned int vector) { drv->plat.dispatch(vector); }

void scx_drv_run_tasklet(struct scx_drv *drv, unsigned int eq_index) { drv->dev.run_completions(eq_index); }

int scx_drv_exec_nop(struct scx_drv *drv) { return driver::cmd::nop(drv->dev.cmd()).to_errno(); }

bool scx_drv_health_poll(struct scx_drv *drv) { return drv->dev.health_poll(); }

void scx_drv_get_health(struct scx_drv *drv, struct scx_drv_health *h)
{
	const driver::health_monitor &m = drv->dev.health();
	h->dead = m.dead();
	h->misses = m.misses();
	h->polls = m.polls();
	h->answered_in_error = drv->dev.cmd().answered_in_error();
}

void scx_drv_get_info(struct scx_drv *drv, struct scx_drv_info *info)
{
	driver::cmd_if &c = drv->dev.cmd();
	*info = {};
	info->fw_major = c.fw_rev_major();
	info->fw_minor = c.fw_rev_minor();
	info->fw_subminor = c.fw_rev_subminor();
	info->issi = drv->dev.issi();
	info->uar = drv->dev.uar();
	info->num_eqs = drv->dev.num_eqs();
	info->cmd_slots = c.slots();
	info->cmd_events = c.current_mode() == driver::cmd_if::mode::events;
	info->fw_pages = drv->dev.pages().stats().held;
	info->vport_state = drv->dev.vport_state();
	info->vendor_id = drv->dev.adapter().ieee_vendor_id;
}

int scx_drv_get_cmd_stat(struct scx_drv *drv, unsigned int index, struct scx_drv_cmd_stat *out)
{
	driver::cmd_op_stat st;
	if (!drv->dev.cmd().op_stat(index, &st))
		return -int(errc::noent);
	out->opcode = st.opcode;
	out->name = st.opcode == 0xffff ? "other" : driver::opcode_name(st.opcode);
	out->count = st.count;
	out->errors = st.errors;
	out->timeouts = st.timeouts;
	out->lat_min_ns = st.lat_min_ns;
	out->lat_avg_ns = st.lat_avg_ns;
	out->lat_max_ns = st.lat_max_ns;
	return 0;
}

int scx_drv_get_eq_stat(struct scx_drv *drv, unsigned int index, struct scx_drv_eq_stat *out)
{
	const driver::eq *q = drv->dev.eq_at(index);
	if (!q)
		return -int(errc::noent);
	driver::eq_stats s = q->stats();
	out->eqn = s.eqn;
	out->vector = s.vector;
	out->nent = s.nent;
	out->cons_index = s.cons_index;
	out->irqs = s.irqs;
	out->eqes = s.eqes;
	return 0;
}

} // extern "C"
