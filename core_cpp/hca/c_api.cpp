// SPDX-License-Identifier: GPL-2.0
// The hca's C face for the kernel shim (include/softcx/hca.h).
#include "softcx/hca.h"

#include "hca/device.h"
#include "lib/new.h"

namespace {

using namespace scx;

// The device reaches memory through its function's IOMMU domain.
class env_dma final : public bus::dma_space {
public:
	explicit env_dma(scx_dma_domain *dom) : dom_(dom) {}
	void *map(u64 bus_addr, usize len) override { return scx_env_dma_to_cpu(dom_, bus_addr, len); }

private:
	scx_dma_domain *dom_;
};

class callback_irq final : public bus::irq_sink {
public:
	callback_irq(void (*fn)(void *, unsigned), void *ctx) : fn_(fn), ctx_(ctx) {}
	void raise(u32 vector) override { fn_(ctx_, vector); }

private:
	void (*fn_)(void *, unsigned);
	void *ctx_;
};

hca::device_config config_from(const scx_hca_params &p)
{
	hca::device_config cfg;
	cfg.num_vectors = p.num_vectors;
	bool have_mac = false;
	for (u8 b : p.mac)
		have_mac |= b != 0;
	if (have_mac) {
		copy_bytes(cfg.mac, p.mac, sizeof(cfg.mac));
		// The port GUID is the MAC as an EUI-64 (ff:fe in the middle, the
		// universal/local bit flipped), as NICs derive it.
		const u8 *m = p.mac;
		cfg.node_guid = u64(m[0] ^ 2) << 56 | u64(m[1]) << 48 | u64(m[2]) << 40 | u64(0xfffe) << 24 |
				u64(m[3]) << 16 | u64(m[4]) << 8 | m[5];
		cfg.system_image_guid = cfg.node_guid;
	}
	if (p.mtu)
		cfg.mtu = p.mtu;
	cfg.link_up = !p.link_down;
	cfg.general_objects = p.devx_objects;
	cfg.dc = p.dc;
	return cfg;
}

void counters_out(const hca::tp_counters &t, scx_hca_qp_counters *c)
{
	c->tx_pkts = t.tx_pkts;
	c->tx_bytes = t.tx_bytes;
	c->rx_pkts = t.rx_pkts;
	c->rx_bytes = t.rx_bytes;
	c->retrans_timeout = t.retrans_timeout;
	c->retrans_nak = t.retrans_nak;
	c->seq_naks_sent = t.seq_naks_sent;
	c->seq_naks_rcvd = t.seq_naks_rcvd;
	c->rnr_naks_sent = t.rnr_naks_sent;
	c->rnr_naks_rcvd = t.rnr_naks_rcvd;
	c->dup_requests = t.dup_requests;
	c->out_of_seq = t.out_of_seq;
	c->dropped = t.dropped;
	c->bad_pkey = t.bad_pkey;
	c->malformed = t.malformed;
	c->bad_qkey = t.bad_qkey;
}

} // namespace

struct scx_hca {
	scx_hca(const scx_hca_params &p) : dma(p.dma_domain), irq(p.raise_irq, p.ctx), dev(dma, irq, config_from(p)) {}
	env_dma dma;
	callback_irq irq;
	hca::device dev;
};

extern "C" {

int scx_hca_create(const struct scx_hca_params *params, struct scx_hca **out)
{
	if (!params->raise_irq || !params->num_vectors)
		return -int(errc::inval);
	scx_hca *h = make<scx_hca>(*params);
	if (!h)
		return -int(errc::nomem);
	status s = h->dev.init();
	if (!s) {
		destroy(h);
		return s.to_errno();
	}
	*out = h;
	return 0;
}

void scx_hca_destroy(struct scx_hca *hca)
{
	// Peers stop reaching it before anything of it goes.
	hca->dev.dp().leave();
	destroy(hca);
}

struct scx_bar *scx_hca_bar(struct scx_hca *hca) { return bus::to_bar(&hca->dev.bar0()); }

void scx_hca_set_link(struct scx_hca *hca, bool up) { hca->dev.set_link(up); }
void scx_hca_set_mtu(struct scx_hca *hca, u16 mtu) { hca->dev.set_mtu(mtu); }

void scx_hca_fw_die(struct scx_hca *hca) { hca->dev.die(); }

int scx_hca_fault_delay(struct scx_hca *hca, uint16_t opcode, uint32_t ms, uint32_t count)
{
	return hca->dev.faults().delay(opcode, ms, count).to_errno();
}

int scx_hca_fault_drop(struct scx_hca *hca, uint16_t opcode, uint32_t count)
{
	return hca->dev.faults().drop(opcode, count).to_errno();
}

int scx_hca_fault_fail(struct scx_hca *hca, uint16_t opcode, uint8_t status, uint32_t syndrome,
		       uint32_t count)
{
	return hca->dev.faults().fail(opcode, status, syndrome, count).to_errno();
}

void scx_hca_fault_clear(struct scx_hca *hca) { hca->dev.faults().clear(); }

int scx_hca_post_cqe(struct scx_hca *hca, uint32_t cqn, const void *cqe64, bool solicited)
{
	switch (hca->dev.post_cqe(cqn, static_cast<const u8 *>(cqe64), solicited)) {
	case hca::cqe_result::posted: return 0;
	case hca::cqe_result::no_cq: return -int(errc::noent);
	case hca::cqe_result::overrun: return -int(errc::nospc);
	case hca::cqe_result::fault: return -int(errc::fault);
	}
	return -int(errc::io);
}

unsigned int scx_hca_poll(struct scx_hca *hca) { return hca->dev.dp().poll(); }
bool scx_hca_uar_store(struct scx_hca *hca, uint32_t uar, bool *paced)
{
	return hca->dev.dp().ring(uar, paced);
}
void scx_hca_dp_stay_active(struct scx_hca *hca) { hca->dev.dp().stay_active(); }
uint32_t scx_hca_uar_stores(struct scx_hca *hca, uint32_t uar) { return hca->dev.dp().uar_stores(uar); }

void *scx_hca_uar_page(struct scx_hca *hca, uint32_t uar) { return hca->dev.uar_page(uar); }

void scx_hca_dp_policy(struct scx_hca *hca, uint32_t active_us, uint32_t idle_max_us, bool doorbells_trap)
{
	hca::dp_policy p;
	p.doorbells_trap = doorbells_trap;
	if (active_us)
		p.active_us = active_us;
	if (idle_max_us) {
		p.idle_max_us = idle_max_us;
		if (p.idle_us > idle_max_us)
			p.idle_us = idle_max_us;
	}
	hca->dev.dp().set_policy(p);
}

void scx_hca_dp_hold_us(struct scx_hca *hca, uint32_t hold_us)
{
	hca::dp_policy p = hca->dev.dp().policy();
	p.hold_us = hold_us;
	hca->dev.dp().set_policy(p);
}

void scx_hca_dp_payload_ref(struct scx_hca *hca, bool on)
{
	hca::dp_policy p = hca->dev.dp().policy();
	p.payload_ref = on;
	hca->dev.dp().set_policy(p);
}

void scx_hca_get_dp_stats(struct scx_hca *hca, struct scx_hca_dp_stats *s)
{
	hca::dp_stats d = hca->dev.dp().stats();
	s->passes = d.passes;
	s->wqes = d.wqes;
	s->bytes = d.bytes;
	s->cqes = d.cqes;
	s->error_cqes = d.error_cqes;
	s->rnr_naks = d.rnr_naks;
	s->retries = d.retries;
	s->doorbells = d.doorbells;
	s->polls = d.polls;
	s->poll_ns = d.poll_ns;
	s->peer_requests = d.peer_requests;
	s->peer_busy = d.peer_busy;
	s->translation_faults = d.translation_faults;
	s->rx_pkts = d.rx_pkts;
	s->rx_no_qp = d.rx_no_qp;
	s->rx_bad_pkey = d.rx_bad_pkey;
	s->rx_malformed = d.rx_malformed;
	s->rx_bad_qkey = d.rx_bad_qkey;
	s->rx_dc_dropped = d.rx_dc_dropped;
	s->dc_connects = d.dc_connects;
	s->tx_lost = d.tx_lost;
	s->tx_by_ref = d.tx_by_ref;
	s->rx_stale_ref = d.rx_stale_ref;
	s->qp_visits = d.qp_visits;
	s->sweeps = d.sweeps;
	s->arm_reads = d.arm_reads;
}

int scx_hca_join_fabric(struct scx_hca *hca, void (*wake)(void *ctx), void *ctx)
{
	return hca->dev.dp().join(wake, ctx) ? 0 : -int(errc::nospc);
}

void scx_hca_leave_fabric(struct scx_hca *hca) { hca->dev.dp().leave(); }

void scx_hca_attach_wire(struct scx_hca *hca, void (*xmit)(void *ctx, const void *frame, uint32_t len),
			 void (*release)(void *ctx, void *frame_ref), void *ctx)
{
	// The frame is bytes either way; only the pointer type differs.
	hca->dev.dp().attach_wire(reinterpret_cast<hca::wire_xmit_fn>(xmit), release, ctx);
}

void scx_hca_detach_wire(struct scx_hca *hca) { hca->dev.dp().detach_wire(); }

enum scx_wire_rx_result scx_hca_wire_rx(struct scx_hca *hca, const void *frame, uint32_t len,
					void *frame_ref)
{
	switch (hca->dev.dp().wire_rx(static_cast<const u8 *>(frame), len, frame_ref)) {
	case hca::wire_rx_result::held: return SCX_WIRE_RX_HELD;
	case hca::wire_rx_result::dropped: return SCX_WIRE_RX_DROPPED;
	default: return SCX_WIRE_RX_PASS;
	}
}

void scx_hca_get_wire_stats(struct scx_hca *hca, struct scx_hca_wire_stats *s)
{
	hca::dp_wire_stats w = hca->dev.dp().wire_stats();
	s->tx_frames = w.tx_frames;
	s->tx_bytes = w.tx_bytes;
	s->rx_frames = w.rx_frames;
	s->rx_bytes = w.rx_bytes;
	s->rx_bad_ip = w.rx_bad_ip;
	s->rx_bad_udp = w.rx_bad_udp;
	s->rx_bad_icrc = w.rx_bad_icrc;
	s->rx_ring_full = w.rx_ring_full;
	s->tx_link_full = w.tx_link_full;
}

void scx_hca_wire_ready(struct scx_hca *hca, bool ready) { hca->dev.dp().wire_ready(ready); }

void scx_hca_for_each_qp_counters(struct scx_hca *hca,
				   void (*fn)(void *ctx, const struct scx_hca_qp_counters *c), void *ctx)
{
	hca->dev.dp().for_each_tp([&](const hca::qp_runtime &rt, const hca::tp_counters &t) {
		scx_hca_qp_counters c{};
		c.qpn = rt.qpn;
		c.state = rt.state;
		counters_out(t, &c);
		fn(ctx, &c);
	});
}

void scx_hca_port_counters(struct scx_hca *hca, struct scx_hca_qp_counters *c)
{
	*c = scx_hca_qp_counters{};
	counters_out(hca->dev.dp().port_counters(), c);
}

void scx_hca_get_info(struct scx_hca *hca, struct scx_hca_info *info)
{
	info->state = u32(hca->dev.state());
	info->fw_pages = hca->dev.fw_pages_held();
	info->commands = hca->dev.commands_executed();
	info->eqes = hca->dev.eqes_written();
	info->interrupts = hca->dev.interrupts_raised();
}

} // extern "C"
