/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SOFTCX_UAR_EMUL_H
#define SOFTCX_UAR_EMUL_H

#include <linux/types.h>

/* A user store that faulted on a UAR page, decoded. */
struct scx_uar_store {
	u64 value[4];		/* the bytes it writes, as memory holds them */
	unsigned int width;	/* 8, 16 or 32 */
	unsigned int len;	/* instruction length */
};

/*
 * In a user-mode write fault at addr: is the current task's instruction an
 * aligned 64-bit store, or an SSE/AVX store of 16 or 32 bytes at an 8-byte
 * aligned address, to addr and within its page, and what does it store?
 * Process context.
 */
bool scx_uar_store_decode(unsigned long addr, struct scx_uar_store *st);
/* The store was done for the task: resume after its instruction. */
void scx_uar_store_retire(const struct scx_uar_store *st);

#endif
