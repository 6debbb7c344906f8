/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86-64 instruction a UAR doorbell store traps on, decoded the way a
 * hypervisor decodes an MMIO write: "mov r64, m64" (REX.W 89 /r) with any
 * source register and any memory form (base, base + index * scale,
 * RIP-relative, no base, 8- and 32-bit displacements). Everything else is
 * refused (the caller falls back to letting the store land): other opcodes,
 * register destinations, prefixes (segment and address size among them),
 * stores narrower than 64 bits. Pure function: the kernel gives it the
 * task's registers, the host tests any it likes.
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
	uint32_t src;      /* register (encoding number 0-15) holding the value */
};

/*
 * insn: the n bytes at the instruction pointer rip (n may be short at the
 * end of a page); regs: the 16 general registers by encoding number (rax,
 * rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8 ... r15). True and *out when it is
 * such a store.
 */
bool scx_x86_decode_store64(const uint8_t *insn, size_t n, const uint64_t regs[16], uint64_t rip,
			    struct scx_x86_store *out);

#ifdef __cplusplus
}
#endif
#endif
