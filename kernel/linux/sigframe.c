/*
 * sigframe.c -- the frame a Linux signal handler runs on, and the way
 * back from it (rt_sigreturn).
 *
 * As Linux x86-64 lays it out (arch/x86/kernel/signal.c), below the
 * interrupted stack pointer less its 128-byte red zone, or at the top of
 * the alternate stack when the handler asks for it (SA_ONSTACK) and the
 * thread is not on it already:
 *
 *   the FXSAVE image of the FPU (512 bytes, 64-byte aligned), then below
 *   it, 16-byte aligned less 8 as after a call: struct lx_rt_sigframe --
 *   the return address (the handler's restorer, which makes rt_sigreturn),
 *   the ucontext (the alternate stack, every register, the mask to go
 *   back to) and the siginfo.
 *
 * The handler starts with rdi the signal, rsi the siginfo, rdx the
 * ucontext, a clean FPU and the direction flag clear. rt_sigreturn reads
 * the ucontext back from where the restorer's rsp says, so a handler may
 * change the registers it returns to (as longjmp-free code rarely does,
 * but debuggers and runtimes do). What it loads is made safe by
 * arch_frame_load: user segments, user addresses, tame flags.
 *
 * The frame is user memory like any other: the epoch that wrote it keeps
 * it, so a handler cut by power resumes on its frame.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "ferrite/syscall.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "task/proc.h"
#include "uvm/uvm.h"

_Static_assert(sizeof(struct lx_sigcontext) == 256, "Linux's struct sigcontext");
_Static_assert(sizeof(struct lx_ucontext) == 304, "Linux's struct ucontext");
_Static_assert(sizeof(struct lx_siginfo) == 128, "Linux's siginfo_t");
_Static_assert(sizeof(struct lx_rt_sigframe) == 440, "Linux's struct rt_sigframe");

#define RED_ZONE 128
#define FXSAVE_BYTES 512
#define EFLAGS_DF 0x400ull
#define USER_CS 0x33                   /* what Linux shows a 64-bit program */
#define USER_SS 0x2b


/* me -- the signal state of the thread this CPU runs (thread.c keeps it) */
static struct lx_thread_sig me(const struct klinux *lx)
{
	return lx_thread_sig(lx, sched_current_tid());
}

/* The kernel runs one call at a time (the kernel lock): one of each. */
static struct arch_user_regs regs, fresh;
static struct lx_rt_sigframe frame;

/* lx_on_altstack -- whether stack pointer sp is on the alternate stack of
 * lx's thread that this CPU runs */
bool lx_on_altstack(const struct klinux *lx, uint64_t sp)
{
	const struct lx_thread_sig t = me(lx);

	return *t.altstack_size && sp > *t.altstack_sp && sp - *t.altstack_sp <= *t.altstack_size;
}

/* altstack_of -- the running thread's alternate stack as a ucontext shows it */
static struct lx_stack altstack_of(const struct klinux *lx, uint64_t sp)
{
	const struct lx_thread_sig t = me(lx);
	struct lx_stack st = { .sp = *t.altstack_sp, .size = *t.altstack_size };

	st.flags = !st.size ? LX_SS_DISABLE : lx_on_altstack(lx, sp) ? LX_SS_ONSTACK : 0;
	return st;
}

/* save_context -- the registers of r as a sigcontext */
static void save_context(struct lx_sigcontext *m, const struct arch_user_regs *r)
{
	m->r8 = r->r8;
	m->r9 = r->r9;
	m->r10 = r->r10;
	m->r11 = r->r11;
	m->r12 = r->r12;
	m->r13 = r->r13;
	m->r14 = r->r14;
	m->r15 = r->r15;
	m->rdi = r->rdi;
	m->rsi = r->rsi;
	m->rbp = r->rbp;
	m->rbx = r->rbx;
	m->rdx = r->rdx;
	m->rax = r->rax;
	m->rcx = r->rcx;
	m->rsp = r->rsp;
	m->rip = r->rip;
	m->eflags = r->rflags;
	m->cs = USER_CS;
	m->ss = USER_SS;
}

/* load_context -- the registers of a sigcontext into r */
static void load_context(struct arch_user_regs *r, const struct lx_sigcontext *m)
{
	r->r8 = m->r8;
	r->r9 = m->r9;
	r->r10 = m->r10;
	r->r11 = m->r11;
	r->r12 = m->r12;
	r->r13 = m->r13;
	r->r14 = m->r14;
	r->r15 = m->r15;
	r->rdi = m->rdi;
	r->rsi = m->rsi;
	r->rbp = m->rbp;
	r->rbx = m->rbx;
	r->rdx = m->rdx;
	r->rax = m->rax;
	r->rcx = m->rcx;
	r->rsp = m->rsp;
	r->rip = m->rip;
	r->rflags = m->eflags;
}

/* clean_fpu -- a fresh thread's FPU state into r */
static void clean_fpu(struct arch_user_regs *r)
{
	arch_user_regs_init(&fresh, 0, 0, 0, 0, 0);
	memcpy(r->fpu, fresh.fpu, sizeof(r->fpu));
}

/* lx_frame_push -- make the thread of tf (of program p) run handler `h`
 * for the signal `info` says, on a frame saving its registers and `mask`
 * (the mask to go back to); 0, or the error of writing the frame (the
 * caller ends the program, as Linux does) */
int lx_frame_push(struct trap_frame *tf, struct pctx *p, const struct lx_handler *h,
		  const struct lx_siginfo *info, uint64_t mask)
{
	const struct klinux *lx = p->lx;
	const struct lx_thread_sig t = me(lx);
	uint64_t sp, fpstate, at;
	int err;

	arch_frame_save(tf, &regs);
	sp = regs.rsp;
	if ((h->flags & LX_SA_ONSTACK) && *t.altstack_size && !lx_on_altstack(lx, sp))
		sp = *t.altstack_sp + *t.altstack_size;
	else
		sp -= RED_ZONE;
	fpstate = (sp - FXSAVE_BYTES) & ~63ull;
	at = ((fpstate - sizeof(frame)) & ~15ull) - 8;

	memset(&frame, 0, sizeof(frame));
	frame.pretcode = h->restorer;
	frame.uc.stack = altstack_of(lx, regs.rsp);
	save_context(&frame.uc.mcontext, &regs);
	frame.uc.mcontext.oldmask = mask;
	frame.uc.mcontext.cr2 = info->addr;
	frame.uc.mcontext.fpstate = fpstate;
	frame.uc.sigmask = mask;
	frame.info = *info;
	err = uvm_copy_out(&p->mem, fpstate, regs.fpu, FXSAVE_BYTES);
	if (!err)
		err = uvm_copy_out(&p->mem, at, &frame, sizeof(frame));
	if (err)
		return err;

	regs.rip = h->handler;
	regs.rsp = at;
	regs.rdi = (uint64_t)info->signo;
	regs.rsi = at + offsetof(struct lx_rt_sigframe, info);
	regs.rdx = at + offsetof(struct lx_rt_sigframe, uc);
	regs.rax = 0;
	regs.rflags &= ~EFLAGS_DF;
	clean_fpu(&regs);
	arch_frame_load(tf, &regs);
	return 0;
}

/* rt_sigreturn () -- back from a handler to what its frame saved: the
 * registers, the FPU and the mask. A frame that cannot be read ends the
 * program, as Linux's SIGSEGV would. */
int64_t lx_rt_sigreturn(struct lxcall *c)
{
	struct klinux *lx = c->lx;
	char detail[80];
	int err;

	arch_frame_save(c->tf, &regs);
	/* the restorer's rsp is just above the return address it was entered by */
	err = uvm_copy_in(&c->p->mem, &frame, regs.rsp - 8, sizeof(frame));
	if (err)
		goto out_no_frame;
	load_context(&regs, &frame.uc.mcontext);
	if (frame.uc.mcontext.fpstate)
		err = uvm_copy_in(&c->p->mem, regs.fpu, frame.uc.mcontext.fpstate, FXSAVE_BYTES);
	else
		clean_fpu(&regs);
	if (err)
		goto out_no_frame;
	KLOG(me(lx).mask);
	*me(lx).mask = frame.uc.sigmask & ~KLINUX_SIG_UNBLOCKABLE;
	arch_frame_load(c->tf, &regs);
	return (int64_t)regs.rax;      /* the dispatcher sets rax: the same */

out_no_frame:
	snprintf(detail, sizeof(detail), "SIGSEGV: rt_sigreturn found no frame at %#llx",
		 (unsigned long long)(regs.rsp - 8));
	proc_end(c->p, FE_EXIT_KILLED, LX_SIGSEGV, detail);
	return SYSCALL_GONE;
}
