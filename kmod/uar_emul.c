// SPDX-License-Identifier: GPL-2.0
/*
 * Emulating a user store to a UAR page, as a hypervisor emulates an MMIO
 * write to a BAR: decode the faulting instruction (core_cpp's
 * scx_x86_decode_store64: "mov r64, m64" in any addressing form), take the
 * value from its source register, and step the task past it; anything else
 * is left to the caller's fallback (map the page and let the store land).
 */
#include "kmod.h"

#include <linux/ptrace.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>

#include "softcx/x86_store.h"
#include "uar_emul.h"

#ifdef CONFIG_X86_64
bool scx_uar_store_decode(unsigned long addr, struct scx_uar_store *st)
{
	struct pt_regs *regs = current_pt_regs();
	struct scx_x86_store d;
	u8 b[15];	/* the longest x86 instruction */
	size_t n = sizeof(b);
	/* The general registers in x86 encoding order. */
	const u64 g[16] = {
		regs->ax, regs->cx, regs->dx, regs->bx, regs->sp, regs->bp, regs->si, regs->di,
		regs->r8, regs->r9, regs->r10, regs->r11, regs->r12, regs->r13, regs->r14, regs->r15,
	};

	if (!user_mode(regs) || !user_64bit_mode(regs) || (regs->flags & X86_EFLAGS_TF))
		return false;
	/* Near the end of a mapping fewer bytes may be readable. */
	while (n && copy_from_user_nofault(b, (const void __user *)regs->ip, n))
		n = n > 8 ? 8 : n - 1;
	if (!n || !scx_x86_decode_store64(b, n, g, regs->ip, &d))
		return false;
	/* The decoded store must be the one that faulted, whole and aligned. */
	if (d.ea != addr || (addr & 7))
		return false;
	st->value = g[d.src];
	st->len = d.len;
	return true;
}

void scx_uar_store_retire(const struct scx_uar_store *st)
{
	current_pt_regs()->ip += st->len;
}
#else
bool scx_uar_store_decode(unsigned long addr, struct scx_uar_store *st)
{
	return false;
}

void scx_uar_store_retire(const struct scx_uar_store *st)
{
}
#endif
