// SPDX-License-Identifier: GPL-2.0
/*
 * Emulating a user store to a UAR page, as a hypervisor emulates an MMIO
 * write to a BAR: decode the faulting instruction (core_cpp's
 * scx_x86_decode_store: "mov r64, m64" and the SSE/AVX stores, in any
 * addressing form), take the value from its source register, and step the
 * task past it; anything else is left to the caller's fallback (map the
 * page and let the store land).
 */
#include "kmod.h"

#include <linux/ptrace.h>
#include <asm/fpu/api.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>

#include "softcx/x86_store.h"
#include "uar_emul.h"

#ifdef CONFIG_X86_64
/* One register's store into the 32-byte slot of its number at %0. */
#define SCX_XMM(n) "movdqu %%xmm" #n ", " #n "*32(%0)\n\t"
#define SCX_YMM(n) "vmovdqu %%ymm" #n ", " #n "*32(%0)\n\t"

/*
 * The task's vector registers, read as the kernel's own signal frame code
 * reads them: with the FPU registers locked to this task, its user state
 * loaded into them first if a kernel user had saved it away. All sixteen,
 * which is simpler than choosing one and costs nothing next to the trap.
 */
static bool scx_read_vectors(unsigned int width, u64 (*v)[16][4])
{
	if (width == 32 && !boot_cpu_has(X86_FEATURE_AVX))
		return false;
	fpregs_lock();
	if (test_thread_flag(TIF_NEED_FPU_LOAD))
		switch_fpu_return();
	if (width == 16)
		asm volatile(SCX_XMM(0) SCX_XMM(1) SCX_XMM(2) SCX_XMM(3)
			     SCX_XMM(4) SCX_XMM(5) SCX_XMM(6) SCX_XMM(7)
			     SCX_XMM(8) SCX_XMM(9) SCX_XMM(10) SCX_XMM(11)
			     SCX_XMM(12) SCX_XMM(13) SCX_XMM(14) SCX_XMM(15)
			     : : "r"(v) : "memory");
	else
		asm volatile(SCX_YMM(0) SCX_YMM(1) SCX_YMM(2) SCX_YMM(3)
			     SCX_YMM(4) SCX_YMM(5) SCX_YMM(6) SCX_YMM(7)
			     SCX_YMM(8) SCX_YMM(9) SCX_YMM(10) SCX_YMM(11)
			     SCX_YMM(12) SCX_YMM(13) SCX_YMM(14) SCX_YMM(15)
			     : : "r"(v) : "memory");
	fpregs_unlock();
	return true;
}

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
	if (!n || !scx_x86_decode_store(b, n, g, regs->ip, &d))
		return false;
	/* The decoded store must be the one that faulted, whole and aligned. */
	if (d.ea != addr || (addr & 7) || (addr & ~PAGE_MASK) + d.width > PAGE_SIZE)
		return false;
	memset(st->value, 0, sizeof(st->value));
	if (d.vec) {
		u64 v[16][4];

		if (!scx_read_vectors(d.width, &v))
			return false;
		memcpy(st->value, v[d.src], d.width);
	} else {
		st->value[0] = g[d.src];
	}
	st->width = d.width;
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
