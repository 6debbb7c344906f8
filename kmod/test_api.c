// SPDX-License-Identifier: GPL-2.0
/*
 * The one symbol the KUnit module imports: a table of core_cpp entry points.
 * Exported from C because genksyms and check-local-export only handle C.
 */
#include "kmod.h"

#include <linux/export.h>

#include "softcx/selfcheck.h"
#include "test_api.h"

static const struct scx_test_api scx_test_api_table = {
	.be32 = scx_check_be32,
	.be64 = scx_check_be64,
	.alloc = scx_check_alloc,
	.virtual_area = scx_check_virtual,
	.atomic_add = scx_check_atomic_add,
	.atomic_cas = scx_check_atomic_cas,
	.lock_nesting = scx_check_lock_nesting,
	.work_completion = scx_check_work_completion,
};

const struct scx_test_api *scx_test_api(void)
{
	return &scx_test_api_table;
}
EXPORT_SYMBOL_GPL(scx_test_api);
