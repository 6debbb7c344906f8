// SPDX-License-Identifier: GPL-2.0
// Receive queues as the responder meets them: the next receive WQE of an
// RQ or SRQ (with the SRQ's limit event) and its checked scatter list, and
// the GRH a UD receive starts with.
#include "hca/dp.h"

#include "prm/eq.h"
#include "prm/qp.h"
#include "prm/srq.h"
#include "prm/wqe.h"

namespace scx::hca {

namespace {

u16 ip_checksum(const u8 *h, u32 len)
{
	u32 sum = 0;
	for (u32 i = 0; i < len; i += 2)
		sum += u32(h[i]) << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return u16(~sum);
}

} // namespace

// The next receive WQE of dst (its RQ or SRQ) as a checked scatter list;
// false with *f none if there is none, with *f set if it is unusable (it is
// consumed then). With commit false only says whether one is there.
bool data_path::take_recv(qp_runtime &dst, sg_list &l, u16 *counter, mem_fault *f, bool commit)
{
	*f = mem_fault::none;
	l.n = 0;
	l.total = 0;
	u64 off = 0;
	srq_runtime *srq = nullptr;
	u32 cnt = 0;
	if (dst.rq_type == prm::qp_rq_type::srq) {
		srq = d_.srqs->dp_get(dst.srqn);
		// An RMP moved to ERR hands out no more WQEs.
		if (!srq || srq->state != prm::srqc_state::good ||
		    !read_dbr(srq->dbr_addr, prm::srq_dbrec::counter.byte_off, &cnt))
			return false;
		// The producer counter is 16 bits (it wraps after 65535 WQEs).
		u16 avail = u16(cnt - srq->consumed);
		if (!avail || avail > (1u << srq->log_size))
			return false;
		if (!commit)
			return true;
		*counter = u16(srq->head & ((1u << srq->log_size) - 1));
		off = u64(*counter) << srq->stride_shift;
	} else if (dst.rq_type == prm::qp_rq_type::non_zero && dst.rq_wqes) {
		u32 v;
		if (!read_dbr(dst.dbr_addr, prm::qp_dbrec::rcv_counter.byte_off, &v))
			return false;
		u16 pi = u16(v);
		if (pi == dst.rq_ci || u16(pi - dst.rq_ci) > dst.rq_wqes)
			return false;
		if (!commit)
			return true;
		*counter = dst.rq_ci;
	} else {
		return false;
	}

	bool readable = true;
	if (srq && srq->cyclic) {
		// A cyclic RMP: the ring's order, whatever next_wqe_index says.
		srq->head = u16(srq->head + 1);
		srq->consumed++;
	} else if (srq) {
		u8 seg[16];
		u64 bus;
		const u8 *p = d_.srqs->wq_addr(*srq, off, &bus) ? static_cast<const u8 *>(d_.dma->map(bus, 16)) : nullptr;
		readable = p != nullptr;
		if (p)
			copy_bytes(seg, p, 16);
		srq->head = readable ? u16(prm::get(seg, prm::wqe_srq_next_seg::next_wqe_index)) : srq->head;
		srq->consumed++;
	}
	if (srq) {
		// Fewer WQEs left than the armed limit: one event, then disarmed
		// until the next ARM_RQ.
		if (srq->limit_armed && u16(cnt - srq->consumed) < srq->lwm) {
			srq->limit_armed = 0;
			srq->lwm = 0;
			srq_event(srq->srqn, prm::event_type::srq_rq_limit);
		}
	} else {
		dst.rq_ci++;
	}
	if (!readable) {
		*f = mem_fault::unmapped;
		return false;
	}
	return read_recv(dst, *counter, l, f);
}

// The scatter list of receive WQE `handle` of dst (an RQ counter or an
// SRQ WQE index), checked; false with *f set if it is unusable.
bool data_path::read_recv(qp_runtime &dst, u32 handle, sg_list &l, mem_fault *f)
{
	*f = mem_fault::none;
	l.n = 0;
	l.total = 0;
	srq_runtime *srq = nullptr;
	u32 stride_shift, base_off = 0;
	u64 off;
	if (dst.rq_type == prm::qp_rq_type::srq) {
		srq = d_.srqs->dp_get(dst.srqn);
		if (!srq) {
			*f = mem_fault::unmapped;
			return false;
		}
		stride_shift = srq->stride_shift;
		off = u64(handle & ((1u << srq->log_size) - 1)) << stride_shift;
		base_off = srq->next_seg;
	} else {
		stride_shift = dst.rq_stride_shift;
		off = u64(handle & (dst.rq_wqes - 1)) << stride_shift;
	}
	auto unit = [&](u32 at, u8 *b) {
		u64 bus;
		bool ok = srq ? d_.srqs->wq_addr(*srq, off + at, &bus) : d_.qps->rq_addr(dst, off + at, &bus);
		const u8 *p = ok ? static_cast<const u8 *>(d_.dma->map(bus, 16)) : nullptr;
		if (p)
			copy_bytes(b, p, 16);
		return p != nullptr;
	};
	u8 seg[16];
	for (u32 at = base_off; at < (1u << stride_shift); at += 16) {
		if (!unit(at, seg)) {
			*f = mem_fault::unmapped;
			return false;
		}
		u32 lkey = prm::get(seg, prm::wqe_data_seg::lkey);
		if (lkey == prm::wqe_data_seg::invalid_lkey)
			break;
		u32 len = prm::get(seg, prm::wqe_data_seg::byte_count);
		mem_fault r = mem_.add(l, lkey, dst.pd, mkey_access::local_write, prm::get(seg, prm::wqe_data_seg::addr),
				       len & 0x7fffffff);
		if (r != mem_fault::none) {
			*f = r;
			return false;
		}
	}
	return true;
}

// The 40 bytes a UD receive starts with. RoCEv2 over IPv4: 20 zero bytes
// and the IPv4 header; otherwise an IPv6 header. The source address is the
// sender's GID (the AV's source index in the sending port's RoCE address
// table); with no such entry, the destination's.
void data_path::write_grh(const u8 *av, const u8 *sgid, u32 l4, u8 *h)
{
	zero_bytes(h, 40);
	const u8 *g = prm::at(av, prm::av::rgid);
	const u8 *sg = sgid ? sgid : g;
	u8 tclass = u8(prm::get(av, prm::av::tclass));
	u8 hop = u8(prm::get(av, prm::av::hop_limit));
	bool v4 = true;
	for (u32 i = 0; i < 10; i++)
		v4 = v4 && !g[i];
	v4 = v4 && g[10] == 0xff && g[11] == 0xff;
	if (v4) {
		u8 *ip = h + 20;
		ip[0] = 0x45;
		ip[1] = tclass;
		store_be<u16>(ip + 2, u16(20 + l4));
		store_be<u16>(ip + 6, 0x4000);
		ip[8] = hop ? hop : 64;
		ip[9] = 17;
		copy_bytes(ip + 12, sg + 12, 4);
		copy_bytes(ip + 16, g + 12, 4);
		store_be<u16>(ip + 10, ip_checksum(ip, 20));
	} else {
		store_be<u32>(h, 6u << 28 | u32(tclass) << 20 | prm::get(av, prm::av::flow_label));
		store_be<u16>(h + 4, u16(l4));
		h[6] = 17;
		h[7] = hop ? hop : 64;
		copy_bytes(h + 8, sg, 16);
		copy_bytes(h + 24, g, 16);
	}
}

} // namespace scx::hca
