/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86-64 instruction a UAR doorbell store traps on, decoded the way a
 * hypervisor decodes an MMIO write. Three families are understood, each
 * with any source register and any memory form (base, base + index *
 * scale, RIP-relative, no base, 8- and 32-bit displacements):
 *   - "mov r64, m64" (REX.W 89 /r): libmlx5's doorbell;
 *   - the 16-byte SSE stores (movups/movupd/movaps/movapd/movdqa/movdqu
 *     and the non-temporal movntps/movntpd/movntdq, with an optional REX
 *     that has no W);
 *   - their VEX forms, 16 or 32 bytes (vmovdqu %ymm0,(%rdi) is how UCX
 *     copies a WQE into a BlueFlame register).
 * Everything else is refused (the caller falls back to letting the store
 * land): other opcodes, register destinations, prefixes that change the
 * meaning (segment, address size, lock, REX.W on a vector store, VEX.vvvv
 * in use), narrower stores, EVEX. Pure function: the kernel gives it the
 * task's general registers, the host tests any it likes.
 */
#ifndef SOFTCX_X86_STORE_H
#define SOFTCX_X86_STORE_H

#include "softcx/env.h"

#ifdef __cplusplus
extern "C" {
#endif

struct scx_x86_store {
	uint64_t ea;       /* the address it writes */
	uint32_t len;      /* instruction length in bytes */
	uint32_t src;      /* source register's encoding number, 0-15 */
	uint32_t width;    /* bytes written: 8, 16 or 32 */
	uint32_t vec;      /* 0: src is a general register; 1: xmm/ymm src */
};

/*
 * insn: the n bytes at the instruction pointer rip (n may be short at the
 * end of a page); regs: the 16 general registers by encoding number (rax,
 * rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8 ... r15). True and *out when it is
 * such a store.
 */
bool scx_x86_decode_store(const uint8_t *insn, size_t n, const uint64_t regs[16], uint64_t rip,
			  struct scx_x86_store *out);

#ifdef __cplusplus
}
#endif
#endif
