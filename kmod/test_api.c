// SPDX-License-Identifier: GPL-2.0
/*
 * The one symbol the KUnit module imports: a table of core_cpp entry points
 * and of what a softcx function offers a test (kmod/device.c, the driver and
 * hca C APIs, the IRQ domain's counters). Exported from C because genksyms
 * and check-local-export only handle C.
 */
#include "kmod.h"

#include <linux/atomic.h>
#include <linux/export.h>

#include "softcx/driver.h"
#include "softcx/hca.h"
#include "softcx/selfcheck.h"
#include "device.h"
#include "irq.h"
#include "test_api.h"

static int scx_t_nop(struct scx_kdev *kdev)
{
	return scx_drv_exec_nop(kdev->drv);
}

static void scx_t_drv_info(struct scx_kdev *kdev, struct scx_drv_info *info)
{
	scx_drv_get_info(kdev->drv, info);
}

static int scx_t_cmd_stat(struct scx_kdev *kdev, u16 opcode, struct scx_drv_cmd_stat *out)
{
	unsigned int i;

	for (i = 0; !scx_drv_get_cmd_stat(kdev->drv, i, out); i++)
		if (out->opcode == opcode)
			return 0;
	return -ENOENT;
}

static int scx_t_eq_stat(struct scx_kdev *kdev, unsigned int index, struct scx_drv_eq_stat *out)
{
	return scx_drv_get_eq_stat(kdev->drv, index, out);
}

static int scx_t_cq_create(struct scx_kdev *kdev, const struct scx_drv_cq_params *p,
			   struct scx_drv_cq **out)
{
	return scx_drv_cq_create(kdev->drv, p, out);
}

static unsigned int scx_t_vector_virq(struct scx_kdev *kdev, unsigned int vec)
{
	return vec < kdev->num_vectors ? scx_irqs_virq(kdev->irqs, vec) : 0;
}

static unsigned long scx_t_vector_irqs(struct scx_kdev *kdev, unsigned int vec)
{
	return vec < kdev->num_vectors ? scx_irqs_count(kdev->irqs, vec) : 0;
}

static void scx_t_vector_handler_runs(struct scx_kdev *kdev, unsigned int vec,
				      unsigned long *calls, unsigned long *in_hardirq)
{
	*calls = 0;
	*in_hardirq = 0;
	if (vec >= kdev->num_vectors)
		return;
	*calls = atomic_long_read(&kdev->vectors[vec].calls);
	*in_hardirq = atomic_long_read(&kdev->vectors[vec].hardirq_calls);
}

static void scx_t_hca_info(struct scx_kdev *kdev, struct scx_hca_info *info)
{
	scx_hca_get_info(kdev->hca, info);
}

static void scx_t_set_link(struct scx_kdev *kdev, bool up)
{
	scx_hca_set_link(kdev->hca, up);
}

static int scx_t_fault_delay(struct scx_kdev *kdev, u16 opcode, u32 ms, u32 count)
{
	return scx_hca_fault_delay(kdev->hca, opcode, ms, count);
}

static int scx_t_fault_drop(struct scx_kdev *kdev, u16 opcode, u32 count)
{
	return scx_hca_fault_drop(kdev->hca, opcode, count);
}

static int scx_t_fault_fail(struct scx_kdev *kdev, u16 opcode, u8 status, u32 syndrome, u32 count)
{
	return scx_hca_fault_fail(kdev->hca, opcode, status, syndrome, count);
}

static void scx_t_fault_clear(struct scx_kdev *kdev)
{
	scx_hca_fault_clear(kdev->hca);
}

static int scx_t_post_cqe(struct scx_kdev *kdev, u32 cqn, const void *cqe64, bool solicited)
{
	return scx_hca_post_cqe(kdev->hca, cqn, cqe64, solicited);
}

static const struct scx_test_api scx_test_api_table = {
	.be32 = scx_check_be32,
	.be64 = scx_check_be64,
	.alloc = scx_check_alloc,
	.virtual_area = scx_check_virtual,
	.atomic_add = scx_check_atomic_add,
	.atomic_cas = scx_check_atomic_cas,
	.lock_nesting = scx_check_lock_nesting,
	.work_completion = scx_check_work_completion,

	.kdev_create = scx_kdev_create,
	.kdev_destroy = scx_kdev_destroy,
	.exec_nop = scx_t_nop,
	.drv_info = scx_t_drv_info,
	.cmd_stat = scx_t_cmd_stat,
	.eq_stat = scx_t_eq_stat,
	.cq_create = scx_t_cq_create,
	.cq_destroy = scx_drv_cq_destroy,
	.cq_poll = scx_drv_cq_poll,
	.cq_arm = scx_drv_cq_arm,
	.cq_info = scx_drv_cq_get_info,
	.vector_virq = scx_t_vector_virq,
	.vector_irqs = scx_t_vector_irqs,
	.vector_handler_runs = scx_t_vector_handler_runs,
	.hca_info = scx_t_hca_info,
	.set_link = scx_t_set_link,
	.fault_delay = scx_t_fault_delay,
	.fault_drop = scx_t_fault_drop,
	.fault_fail = scx_t_fault_fail,
	.fault_clear = scx_t_fault_clear,
	.post_cqe = scx_t_post_cqe,
};

const struct scx_test_api *scx_test_api(void)
{
	return &scx_test_api_table;
}
EXPORT_SYMBOL_GPL(scx_test_api);
