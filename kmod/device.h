/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SOFTCX_DEVICE_H
#define SOFTCX_DEVICE_H

#include <linux/interrupt.h>
#include <linux/list.h>

struct scx_hca;
struct scx_drv;
struct scx_irqs;
struct dentry;

#define SCX_MAX_VECTORS 16

struct scx_kdev;

/* What one interrupt vector's handler needs, passed as its dev_id. */
struct scx_vector {
	struct scx_kdev *kdev;
	struct scx_drv *drv;
	unsigned int index;
	bool requested;
	char name[32];
};

/* The tasklet of one completion EQ (vector eq + 1). */
struct scx_comp_tasklet {
	struct tasklet_struct t;
	struct scx_kdev *kdev;
	unsigned int eq;
};

/* One softcx function: the hca, its interrupt controller and the driver. */
struct scx_kdev {
	struct list_head node;
	char name[16];
	unsigned int num_vectors;
	struct scx_irqs *irqs;
	struct scx_hca *hca;
	struct scx_drv *drv;
	struct dentry *debugfs;
	struct scx_vector vectors[SCX_MAX_VECTORS];
	struct scx_comp_tasklet tasklets[SCX_MAX_VECTORS - 1];
};

struct scx_kdev_params {
	unsigned int num_comp_eqs;
	unsigned int cmd_timeout_ms;
	bool cmd_polling;
	bool cmd_checksum;
};

struct scx_kdev *scx_kdev_create(int index, const struct scx_kdev_params *p);
void scx_kdev_destroy(struct scx_kdev *kdev);

void scx_debugfs_add(struct scx_kdev *kdev, struct dentry *root);

#endif
