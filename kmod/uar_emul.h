/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SOFTCX_UAR_EMUL_H
#define SOFTCX_UAR_EMUL_H

#include <linux/types.h>

/* A user store that faulted on a UAR page, decoded. */
struct scx_uar_store {
	u64 value;		/* what the store writes (CPU order) */
	unsigned int len;	/* instruction length */
};

/*
 * In a user-mode write fault at addr: is the current task's instruction an
 * aligned 64-bit store to addr, and what does it store? Process context.
 */
bool scx_uar_store_decode(unsigned long addr, struct scx_uar_store *st);
/* The store was done for the task: resume after its instruction. */
void scx_uar_store_retire(const struct scx_uar_store *st);

#endif
