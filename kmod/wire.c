// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCEv2 link: the MAC between the hca and the bound netdev. Frames
 * the hca sends are copied into skbs and queued (it sends with its lock
 * held and interrupts off), then handed to the netdev from process context.
 * Received frames are offered to the hca by an rx handler on the netdev,
 * before the host stack: what the hca takes (RoCEv2 to one of its GIDs)
 * waits in its receive ring as the skb itself, freed once handled, and
 * never reaches UDP, so an rdma_rxe bound to UDP 4791 elsewhere in the
 * kernel does not see it, and everything else passes on untouched.
 */
#include "kmod.h"
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/rtnetlink.h>
#include <net/sch_generic.h>
#include "device.h"
#include "softcx/hca.h"

#define SCX_ROCE_UDP_PORT 4791
/*
 * Frames waiting for the netdev, as a NIC's send ring. At the high mark
 * the hca is told the link is full and sends no more (it waits, as a
 * NIC's send queues wait for the port); at the low mark, room again. The
 * hard limit is only a guard: past it, a frame is dropped and counted.
 */
#define SCX_WIRE_TXQ_HIGH 256
#define SCX_WIRE_TXQ_LOW 64
#define SCX_WIRE_TXQ_MAX 1024
/*
 * Frames handed on while the netdev's queueing discipline holds fewer
 * than this: more would wait there, where an AQM (fq_codel, the default)
 * drops what waits too long. A NIC's RoCE traffic never meets the qdisc.
 */
#define SCX_WIRE_QDISC_MAX 32

/* The hca hands over a frame (locks held, interrupts off). */
static void scx_wire_xmit(void *ctx, const void *frame, u32 len)
{
	struct scx_kdev *kdev = ctx;
	struct net_device *ndev = kdev->wire_ndev;
	unsigned long flags;
	struct sk_buff *skb;

	if (skb_queue_len(&kdev->wire_txq) >= SCX_WIRE_TXQ_MAX) {
		atomic64_inc(&kdev->wire_tx_drops);
		return;
	}
	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + len, GFP_ATOMIC);
	if (!skb) {
		atomic64_inc(&kdev->wire_tx_drops);
		return;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(ndev));
	skb_put_data(skb, frame, len);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = eth_hdr(skb)->h_proto;
	skb->dev = ndev;
	spin_lock_irqsave(&kdev->wire_txq.lock, flags);
	__skb_queue_tail(&kdev->wire_txq, skb);
	if (kdev->wire_txq.qlen >= SCX_WIRE_TXQ_HIGH)
		scx_hca_wire_ready(kdev->hca, false);
	spin_unlock_irqrestore(&kdev->wire_txq.lock, flags);
	/* The data-path thread sends what others leave (it flushes its own). */
	if (current != kdev->dp_thread)
		scx_kdev_wake(kdev);
}

/* The netdev takes no more now: a queue stopped, or its qdisc filling. */
static bool scx_wire_congested(struct net_device *ndev)
{
	bool busy = false;
	unsigned int i;

	rcu_read_lock_bh();
	for (i = 0; i < ndev->real_num_tx_queues && !busy; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(ndev, i);
		struct Qdisc *q = rcu_dereference_bh(txq->qdisc);

		busy = netif_xmit_frozen_or_stopped(txq) ||
		       (q && qdisc_qlen_sum(q) >= SCX_WIRE_QDISC_MAX);
	}
	rcu_read_unlock_bh();
	return busy;
}

/*
 * Hands queued frames to the netdev while it takes them. true: frames
 * are left (the netdev is congested); the caller comes back soon.
 */
bool scx_wire_flush(struct scx_kdev *kdev)
{
	struct net_device *ndev = kdev->wire_ndev;
	unsigned long flags;
	struct sk_buff *skb;
	bool left = false;

	if (!ndev)
		return false;
	while (!skb_queue_empty(&kdev->wire_txq)) {
		if (scx_wire_congested(ndev)) {
			atomic64_inc(&kdev->wire_tx_waits);
			left = true;
			break;
		}
		skb = skb_dequeue(&kdev->wire_txq);
		if (!skb)
			break;
		if (dev_queue_xmit(skb) != NET_XMIT_SUCCESS)
			atomic64_inc(&kdev->wire_tx_drops);
	}
	/* Under the queue's lock: the sender may be filling it again. */
	spin_lock_irqsave(&kdev->wire_txq.lock, flags);
	if (kdev->wire_txq.qlen <= SCX_WIRE_TXQ_LOW)
		scx_hca_wire_ready(kdev->hca, true);
	spin_unlock_irqrestore(&kdev->wire_txq.lock, flags);
	return left;
}

/* Cheap look before any copy: IP, UDP, to port 4791. */
static bool scx_wire_maybe_roce(struct sk_buff *skb)
{
	unsigned int off;
	struct udphdr _uh;
	const struct udphdr *uh;
	u8 proto;

	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr _ih;
		const struct iphdr *ih = skb_header_pointer(skb, 0, sizeof(_ih), &_ih);

		if (!ih)
			return false;
		proto = ih->protocol;
		off = ih->ihl * 4;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		struct ipv6hdr _ih;
		const struct ipv6hdr *ih = skb_header_pointer(skb, 0, sizeof(_ih), &_ih);

		if (!ih)
			return false;
		proto = ih->nexthdr;
		off = sizeof(*ih);
	} else {
		return false;
	}
	if (proto != IPPROTO_UDP)
		return false;
	uh = skb_header_pointer(skb, off, sizeof(_uh), &_uh);
	return uh && uh->dest == htons(SCX_ROCE_UDP_PORT);
}

static rx_handler_result_t scx_wire_rx(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct scx_kdev *kdev = rcu_dereference(skb->dev->rx_handler_data);

	/* Not for this MAC (promiscuous), or our own frame looped back. */
	if (skb->pkt_type == PACKET_LOOPBACK || skb->pkt_type == PACKET_OTHERHOST ||
	    !scx_wire_maybe_roce(skb))
		return RX_HANDLER_PASS;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	*pskb = skb;
	/* The hca reads a frame whole, from its Ethernet header. */
	if (skb_linearize(skb) || skb_mac_header_len(skb) != ETH_HLEN) {
		atomic64_inc(&kdev->wire_rx_unusable);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}
	/* A held skb is the hca's receive buffer until it gives it back. */
	switch (scx_hca_wire_rx(kdev->hca, skb_mac_header(skb), skb->len + ETH_HLEN, skb)) {
	case SCX_WIRE_RX_PASS:
		return RX_HANDLER_PASS;
	case SCX_WIRE_RX_DROPPED:
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	case SCX_WIRE_RX_HELD:
		break;
	}
	scx_kdev_wake(kdev);
	return RX_HANDLER_CONSUMED;
}

/* The hca is done with a frame it held (locks held, interrupts off). */
static void scx_wire_release(void *ctx, void *frame_ref)
{
	dev_consume_skb_any(frame_ref);
}

int scx_wire_attach(struct scx_kdev *kdev, struct net_device *ndev)
{
	int err;

	kdev->wire_ndev = ndev;
	scx_hca_attach_wire(kdev->hca, scx_wire_xmit, scx_wire_release, kdev);
	rtnl_lock();
	err = netdev_rx_handler_register(ndev, scx_wire_rx, kdev);
	kdev->wire_rx_on = !err;
	rtnl_unlock();
	/* Sending still works; nothing comes in (a bridge or bond port). */
	if (err)
		pr_warn("%s: no RoCE frames from %s: it has another receive handler (%d)\n",
			kdev->name, netdev_name(ndev), err);
	return 0;
}

/* The netdev is going away (rtnl held): stop taking its frames. */
void scx_wire_netdev_gone(struct scx_kdev *kdev)
{
	ASSERT_RTNL();
	if (kdev->wire_rx_on) {
		netdev_rx_handler_unregister(kdev->wire_ndev);
		kdev->wire_rx_on = false;
	}
}

/* Before the function goes: nothing comes in or goes out any more. */
void scx_wire_detach(struct scx_kdev *kdev)
{
	if (!kdev->wire_ndev)
		return;
	rtnl_lock();
	scx_wire_netdev_gone(kdev);
	rtnl_unlock();
	scx_hca_detach_wire(kdev->hca);
	skb_queue_purge(&kdev->wire_txq);
	kdev->wire_ndev = NULL;
}
