/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SOFTCX_IB_H
#define SOFTCX_IB_H

#include <linux/types.h>

struct net_device;

/* Module-wide settings the ib_device reports (the "PCI" identity). */
struct scx_ib_settings {
	u32 vendor_part_id;
	u32 hw_ver;
	unsigned int comp_eqs;
	unsigned int cmd_timeout_ms;
	unsigned int dp_active_us;
	unsigned int dp_idle_max_us;
	unsigned int health_poll_ms;
	bool devx;	/* grant DevX user contexts */
	bool dc;	/* offer DC (the dct cap) */
};

int scx_ib_init(const struct scx_ib_settings *s);
void scx_ib_exit(void);
/*
 * Creates a function and its ib_device on ndev; name may contain "%d".
 * recoveries: how often this function was brought back after its
 * firmware died (0 for a new one).
 */
int scx_ib_add(const char *name, struct net_device *ndev, unsigned int recoveries);

#endif
