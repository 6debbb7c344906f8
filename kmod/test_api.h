/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SOFTCX_TEST_API_H
#define SOFTCX_TEST_API_H

#include <linux/types.h>

struct scx_atomic_probe;
struct scx_kdev;
struct scx_kdev_params;
struct scx_drv_info;
struct scx_drv_cmd_stat;
struct scx_drv_eq_stat;
struct scx_drv_cq;
struct scx_drv_cq_params;
struct scx_drv_cq_info;
struct scx_hca_info;

struct scx_test_api {
	/* core_cpp foundations (softcx/selfcheck.h) */
	uint32_t (*be32)(uint32_t v, uint8_t out[4]);
	uint64_t (*be64)(uint64_t v, uint8_t out[8]);
	int (*alloc)(unsigned int count, unsigned int size);
	int (*virtual_area)(int kind, int a, int b);
	void (*atomic_add)(struct scx_atomic_probe *p, unsigned int n);
	unsigned int (*atomic_cas)(struct scx_atomic_probe *p, unsigned int n);
	unsigned int (*lock_nesting)(unsigned int n);
	int (*work_completion)(bool fire, unsigned int delay_us, unsigned int timeout_ms);

	/* A whole softcx function (kmod/device.c): ERR_PTR on failure. */
	struct scx_kdev *(*kdev_create)(const char *name, const struct scx_kdev_params *p);
	void (*kdev_destroy)(struct scx_kdev *kdev);

	/* Its driver side (softcx/driver.h). */
	int (*exec_nop)(struct scx_kdev *kdev);
	void (*drv_info)(struct scx_kdev *kdev, struct scx_drv_info *info);
	/* The statistics row of `opcode` (0xffff: unnamed ones); -ENOENT if none. */
	int (*cmd_stat)(struct scx_kdev *kdev, u16 opcode, struct scx_drv_cmd_stat *out);
	int (*eq_stat)(struct scx_kdev *kdev, unsigned int index, struct scx_drv_eq_stat *out);
	int (*cq_create)(struct scx_kdev *kdev, const struct scx_drv_cq_params *p,
			 struct scx_drv_cq **out);
	int (*cq_destroy)(struct scx_drv_cq *cq);
	unsigned int (*cq_poll)(struct scx_drv_cq *cq, unsigned int max);
	void (*cq_arm)(struct scx_drv_cq *cq, bool solicited_only);
	void (*cq_info)(struct scx_drv_cq *cq, struct scx_drv_cq_info *info);

	/* Its interrupt vectors: Linux irq number, /proc/interrupts total. */
	unsigned int (*vector_virq)(struct scx_kdev *kdev, unsigned int vec);
	unsigned long (*vector_irqs)(struct scx_kdev *kdev, unsigned int vec);
	/* Runs of the kmod handler of `vec`, and how many were in hardirq context. */
	void (*vector_handler_runs)(struct scx_kdev *kdev, unsigned int vec, unsigned long *calls,
				    unsigned long *in_hardirq);

	/* Its device side (softcx/hca.h). */
	void (*hca_info)(struct scx_kdev *kdev, struct scx_hca_info *info);
	void (*set_link)(struct scx_kdev *kdev, bool up);
	int (*fault_delay)(struct scx_kdev *kdev, u16 opcode, u32 ms, u32 count);
	int (*fault_drop)(struct scx_kdev *kdev, u16 opcode, u32 count);
	int (*fault_fail)(struct scx_kdev *kdev, u16 opcode, u8 status, u32 syndrome, u32 count);
	void (*fault_clear)(struct scx_kdev *kdev);
	int (*post_cqe)(struct scx_kdev *kdev, u32 cqn, const void *cqe64, bool solicited);
};

const struct scx_test_api *scx_test_api(void);

#endif
