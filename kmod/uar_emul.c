// SPDX-License-Identifier: GPL-2.0
/*
 * Emulating a user store to a UAR page, as a hypervisor emulates an MMIO
 * write to a BAR: decode the faulting instruction, take the value from its
 * source register, and step the task past it. Only the form libmlx5's
 * 64-bit doorbell stores compile to is recognised (x86-64 "mov r64, m64",
 * REX.W 89 /r); anything else is left to the caller's fallback (map the
 * page and let the store land).
 */
#include "kmod.h"

#include <linux/ptrace.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/unaligned.h>

#include "uar_emul.h"

#ifdef CONFIG_X86_64
static unsigned long scx_reg(struct pt_regs *regs, unsigned int r)
{
	switch (r) {
	case 0: return regs->ax;
	case 1: return regs->cx;
	case 2: return regs->dx;
	case 3: return regs->bx;
	case 4: return regs->sp;
	case 5: return regs->bp;
	case 6: return regs->si;
	case 7: return regs->di;
	case 8: return regs->r8;
	case 9: return regs->r9;
	case 10: return regs->r10;
	case 11: return regs->r11;
	case 12: return regs->r12;
	case 13: return regs->r13;
	case 14: return regs->r14;
	default: return regs->r15;
	}
}

bool scx_uar_store_decode(unsigned long addr, struct scx_uar_store *st)
{
	struct pt_regs *regs = current_pt_regs();
	unsigned int mod, reg, rm, len = 3;
	unsigned long ea = 0;
	u8 b[8];	/* REX, opcode, ModRM, SIB, disp32: the longest form */
	u8 rex;

	if (!user_mode(regs) || !user_64bit_mode(regs) || (regs->flags & X86_EFLAGS_TF))
		return false;
	if (copy_from_user_nofault(b, (const void __user *)regs->ip, sizeof(b)))
		return false;
	rex = b[0];
	if ((rex & 0xf8) != 0x48 || b[1] != 0x89)
		return false;
	mod = b[2] >> 6;
	reg = ((b[2] >> 3) & 7) | (rex & 4 ? 8 : 0);
	rm = b[2] & 7;
	if (mod == 3)
		return false;
	if (rm == 4) {
		unsigned int scale = b[3] >> 6;
		unsigned int index = ((b[3] >> 3) & 7) | (rex & 2 ? 8 : 0);
		unsigned int base = (b[3] & 7) | (rex & 1 ? 8 : 0);

		len++;
		if (index != 4)
			ea += scx_reg(regs, index) << scale;
		if ((base & 7) == 5 && mod == 0) {
			ea += (long)(s32)get_unaligned_le32(&b[4]);
			len += 4;
		} else {
			ea += scx_reg(regs, base);
		}
	} else if (rm == 5 && mod == 0) {
		/* RIP-relative: from the end of the instruction */
		ea = regs->ip + 7 + (long)(s32)get_unaligned_le32(&b[3]);
		len += 4;
	} else {
		ea = scx_reg(regs, rm | (rex & 1 ? 8 : 0));
	}
	if (mod == 1) {
		ea += (long)(s8)b[len];
		len += 1;
	} else if (mod == 2) {
		ea += (long)(s32)get_unaligned_le32(&b[len]);
		len += 4;
	}
	/* The decoded store must be the one that faulted, whole and aligned. */
	if (ea != addr || (addr & 7))
		return false;
	st->value = scx_reg(regs, reg);
	st->len = len;
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
