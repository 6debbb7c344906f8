// SPDX-License-Identifier: GPL-2.0
#include "lib/new.h"
#include "softcx/env.h"

namespace scx {

void *alloc_bytes(usize size, bool atomic)
{
	return scx_env_alloc(size, SCX_MEM_ZERO | (atomic ? SCX_MEM_ATOMIC : 0));
}

void free_bytes(void *p) { scx_env_free(p); }

} // namespace scx
