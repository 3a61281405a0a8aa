/*
 * user.c -- user mode on x86_64: SYSCALL setup, the FPU, and the register
 * file of a thread.
 *
 * The kernel is event-driven with one kernel stack per CPU, which each CPU
 * finds in its struct cpu_local through GS (smp.c). Every entry from
 * ring 3 -- SYSCALL, interrupt, exception -- starts at the top of that
 * stack and builds the same struct trap_frame there (syscall_entry.S,
 * trap_entry.S). Nothing stays on the
 * stack between two entries: a thread that must wait is recorded in its
 * thread object, and its frame is saved with arch_frame_save. The way back
 * to ring 3 is kernel_exit_to_user(tf) (the generic kernel), which may swap
 * the frame's contents for another thread's with arch_frame_load; then
 * SYSRET when the frame is still the one SYSCALL built, IRETQ otherwise.
 *
 * Interrupts are disabled whenever the kernel runs (FMASK clears IF on
 * SYSCALL, interrupt gates on the rest) except while it idles, and the
 * generic kernel runs one CPU at a time (core/smp.c). So a CPU's stack,
 * its cpu_local and its live FPU state need no locking.
 *
 * The FPU/SSE state: the kernel is compiled with -mgeneral-regs-only and
 * never touches x87, MMX or SSE registers, so the live FPU state always
 * belongs to the user thread in the frame. It is not saved on every entry:
 * arch_frame_save and arch_frame_load move it, with FXSAVE64 and FXRSTOR64,
 * only when the thread is saved or another is loaded. CR0.TS stays clear
 * (no lazy switching, no #NM); XSAVE is not enabled, so AVX instructions
 * raise #UD in user code.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/user.h"
#include "core/panic.h"
#include "ferrite/syscall.h"

#define CPUID_1_EDX_FXSR (1u << 24)
#define CPUID_1_EDX_SSE (1u << 25)

/* Where things are in an FXSAVE64 image. */
#define FXSAVE_FCW 0
#define FXSAVE_MXCSR 24
#define FXSAVE_MXCSR_MASK 28
#define FXSAVE_SIZE 512
#define FCW_DEFAULT 0x037f      /* what FNINIT sets: every exception masked */
#define MXCSR_DEFAULT 0x1f80    /* every SSE exception masked, round to nearest */
#define MXCSR_MASK_DEFAULT 0xffbf /* when FXSAVE reports 0 (SDM 10.5.1.2) */

#define SYSCALL_INSN_SIZE 2     /* 0f 05 */

_Static_assert(USER_SYSRET_LIMIT == FE_USER_TOP, "SYSRET limit is the user top");
_Static_assert(offsetof(struct cpu_local, kernel_stack_top) == CPU_KERNEL_STACK_TOP,
	       "syscall_entry.S offsets");
_Static_assert(offsetof(struct cpu_local, user_rsp) == CPU_USER_RSP,
	       "syscall_entry.S offsets");
_Static_assert(offsetof(struct cpu_local, index) == CPU_INDEX, "smp.c offsets");
/* SYSCALL loads CS from STAR[47:32] and SS from there + 8; SYSRET loads SS
 * from STAR[63:48] + 8 and CS from there + 16. */
_Static_assert(GDT_KERNEL_DATA == GDT_KERNEL_CODE + 8, "SYSCALL segment layout");
_Static_assert(GDT_USER_CODE == GDT_USER_DATA + 8, "SYSRET segment layout");

/* The MXCSR bits this CPU accepts (FXRSTOR raises #GP on any other). */
static uint32_t mxcsr_mask;

/* An aligned copy for FPU images that are misaligned or need mending
 * (used with the kernel lock held: one CPU at a time). */
static uint8_t fpu_bounce[FXSAVE_SIZE] __attribute__((aligned(16)));

/* fxsave -- the live FPU state into a 16-byte aligned image */
static void fxsave(uint8_t *image)
{
	__asm__ volatile("fxsave64 %0" : "=m"(*(uint8_t(*)[FXSAVE_SIZE])image));
}

/* fxrstor -- load the live FPU state from a 16-byte aligned, valid image */
static void fxrstor(const uint8_t *image)
{
	__asm__ volatile("fxrstor64 %0"
			 :
			 : "m"(*(const uint8_t(*)[FXSAVE_SIZE])image));
}

/* image_u32 -- a 32-bit field of an FPU image */
static uint32_t image_u32(const uint8_t *image, unsigned offset)
{
	uint32_t v;

	memcpy(&v, image + offset, sizeof(v));
	return v;
}

/* aligned16 -- whether FXSAVE64/FXRSTOR64 accept p as their operand */
static bool aligned16(const void *p)
{
	return (uintptr_t)p % 16 == 0;
}

/* fpu_init -- let user code use x87 and SSE; learn MXCSR_MASK */
static void fpu_init(void)
{
	uint32_t edx = cpuid(1, 0).edx;

	if (!(edx & CPUID_1_EDX_FXSR) || !(edx & CPUID_1_EDX_SSE))
		panic("cpu: no FXSAVE/FXRSTOR or no SSE (CPUID.1:EDX %#x); "
		      "Ferrite needs both for user mode", edx);
	write_cr0((read_cr0() & ~(CR0_EM | CR0_TS)) | CR0_MP | CR0_NE);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	fxsave(fpu_bounce);
	mxcsr_mask = image_u32(fpu_bounce, FXSAVE_MXCSR_MASK);
	if (!mxcsr_mask)
		mxcsr_mask = MXCSR_MASK_DEFAULT;
}

/* user_mode_init -- SYSCALL MSRs and the FPU/SSE for user code; panics without FXSR/SSE */
void user_mode_init(void)
{
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, ((uint64_t)(GDT_USER_DATA - 8) << 48) |
				((uint64_t)GDT_KERNEL_CODE << 32));
	wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)syscall_entry);
	wrmsr(MSR_FMASK, SYSCALL_RFLAGS_CLEAR);
	fpu_init();
}

/* user_start_unloaded -- arch_user_start's frame came back without a user context: panic */
void user_start_unloaded(const struct trap_frame *tf)
{
	panic("arch_user_start: kernel_exit_to_user returned without loading "
	      "a user context (frame cs %#llx)", (unsigned long long)tf->cs);
}

/* arch_user_regs_init -- a fresh thread: entry, stack, three arguments, default FPU */
void arch_user_regs_init(struct arch_user_regs *r, uint64_t entry, uint64_t rsp,
			 uint64_t arg0, uint64_t arg1, uint64_t arg2)
{
	uint16_t fcw = FCW_DEFAULT;
	uint32_t mxcsr = MXCSR_DEFAULT;

	memset(r, 0, sizeof(*r));
	r->rip = entry;
	r->rsp = rsp;
	r->rdi = arg0;
	r->rsi = arg1;
	r->rdx = arg2;
	r->rflags = RFLAGS_IF;
	memcpy(r->fpu + FXSAVE_FCW, &fcw, sizeof(fcw));
	memcpy(r->fpu + FXSAVE_MXCSR, &mxcsr, sizeof(mxcsr));
}

/* save_general -- the general registers, rip and rflags of a user frame into r */
static void save_general(const struct trap_frame *tf, struct arch_user_regs *r)
{
	KASSERT(arch_frame_from_user(tf));
	r->rax = tf->rax;
	r->rbx = tf->rbx;
	r->rcx = tf->rcx;
	r->rdx = tf->rdx;
	r->rsi = tf->rsi;
	r->rdi = tf->rdi;
	r->rbp = tf->rbp;
	r->rsp = tf->rsp;
	r->r8 = tf->r8;
	r->r9 = tf->r9;
	r->r10 = tf->r10;
	r->r11 = tf->r11;
	r->r12 = tf->r12;
	r->r13 = tf->r13;
	r->r14 = tf->r14;
	r->r15 = tf->r15;
	r->rip = tf->rip;
	r->rflags = tf->rflags;
	r->reserved = 0;
}

/* arch_frame_save -- the user registers of a frame into r, with the live FPU state */
void arch_frame_save(const struct trap_frame *tf, struct arch_user_regs *r)
{
	save_general(tf, r);
	r->fs_base = rdmsr(MSR_FS_BASE);
	if (aligned16(r->fpu)) {
		fxsave(r->fpu);
	} else {
		fxsave(fpu_bounce);
		memcpy(r->fpu, fpu_bounce, FXSAVE_SIZE);
	}
}

/* arch_frame_save_parked -- arch_frame_save for the frame of a parked CPU */
void arch_frame_save_parked(const struct trap_frame *tf, unsigned cpu,
			    struct arch_user_regs *r)
{
	const uint8_t *fpu;

	save_general(tf, r);
	arch_parked_state(cpu, &fpu, &r->fs_base);
	memcpy(r->fpu, fpu, FXSAVE_SIZE);
	/* The CPU parked before looking at its frame: its call has not begun. */
	if (tf->vector == VECTOR_SYSCALL)
		r->rip -= SYSCALL_INSN_SIZE;
}

/* fpu_load -- FXRSTOR64 an image, mending an MXCSR the CPU would refuse */
static void fpu_load(const uint8_t *image)
{
	uint32_t mxcsr = image_u32(image, FXSAVE_MXCSR);

	if (aligned16(image) && !(mxcsr & ~mxcsr_mask)) {
		fxrstor(image);
		return;
	}
	memcpy(fpu_bounce, image, FXSAVE_SIZE);
	mxcsr &= mxcsr_mask;
	memcpy(fpu_bounce + FXSAVE_MXCSR, &mxcsr, sizeof(mxcsr));
	fxrstor(fpu_bounce);
}

/* user_address -- v if it lies in the user half, else FE_USER_TOP (never mapped) */
static uint64_t user_address(uint64_t v)
{
	return v < FE_USER_TOP ? v : FE_USER_TOP;
}

/* arch_frame_load -- make a frame resume the thread of r (and load its FPU state) */
void arch_frame_load(struct trap_frame *tf, const struct arch_user_regs *r)
{
	tf->rax = r->rax;
	tf->rbx = r->rbx;
	tf->rcx = r->rcx;
	tf->rdx = r->rdx;
	tf->rsi = r->rsi;
	tf->rdi = r->rdi;
	tf->rbp = r->rbp;
	tf->r8 = r->r8;
	tf->r9 = r->r9;
	tf->r10 = r->r10;
	tf->r11 = r->r11;
	tf->r12 = r->r12;
	tf->r13 = r->r13;
	tf->r14 = r->r14;
	tf->r15 = r->r15;
	tf->vector = VECTOR_USER_LOADED; /* IRETQ: restores rcx and r11 too */
	tf->error_code = 0;
	tf->rip = user_address(r->rip);
	tf->cs = USER_CS;
	tf->rflags = (r->rflags & USER_RFLAGS_KEEP) | RFLAGS_IF | RFLAGS_FIXED;
	tf->rsp = user_address(r->rsp);
	tf->ss = USER_SS;
	/* A non-canonical base would make WRMSR fault in the kernel. */
	wrmsr(MSR_FS_BASE, r->fs_base < FE_USER_TOP ? r->fs_base : 0);
	fpu_load(r->fpu);
}

/* arch_user_fs_base -- the running user thread's FS base */
uint64_t arch_user_fs_base(void)
{
	return rdmsr(MSR_FS_BASE);
}

/* arch_set_user_fs_base -- set it, if it is a user address */
bool arch_set_user_fs_base(uint64_t base)
{
	if (base >= FE_USER_TOP)
		return false; /* a non-canonical base would make WRMSR fault */
	wrmsr(MSR_FS_BASE, base);
	return true;
}

/* arch_random -- RDRAND (retried a few times, as the SDM advises), else
 * the TSC through a splitmix64 step over a running state */
uint64_t arch_random(void)
{
	static uint64_t state;
	static int has_rdrand = -1;
	uint64_t v, z;

	if (has_rdrand < 0)
		has_rdrand = (cpuid(1, 0).ecx >> 30) & 1;
	for (int i = 0; has_rdrand && i < 10; i++) {
		uint8_t ok;

		__asm__ volatile("rdrand %0; setc %1" : "=r"(v), "=qm"(ok) : : "cc");
		if (ok)
			return v;
	}
	state += rdtsc() + 0x9e3779b97f4a7c15ull;
	z = state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* arch_syscall_number -- the call number (rax) of a SYSCALL frame */
uint64_t arch_syscall_number(const struct trap_frame *tf)
{
	return tf->rax;
}

/* syscall_arg -- argument i of a SYSCALL, from its six argument registers
 * in the order the ABI passes them (rdi rsi rdx r10 r8 r9) */
static uint64_t syscall_arg(unsigned i, const uint64_t regs[6])
{
	if (i >= 6)
		panic("arch_syscall_arg: no argument %u (0..5)", i);
	return regs[i];
}

/* arch_syscall_arg -- argument i (0..5: rdi rsi rdx r10 r8 r9) of a SYSCALL frame */
uint64_t arch_syscall_arg(const struct trap_frame *tf, unsigned i)
{
	const uint64_t regs[6] = { tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9 };

	return syscall_arg(i, regs);
}

/* arch_syscall_args -- the six arguments of a SYSCALL frame, in order,
 * into args (the dispatchers take them all: one call, not six) */
void arch_syscall_args(const struct trap_frame *tf, uint64_t args[6])
{
	args[0] = tf->rdi;
	args[1] = tf->rsi;
	args[2] = tf->rdx;
	args[3] = tf->r10;
	args[4] = tf->r8;
	args[5] = tf->r9;
}

/* arch_saved_syscall_arg -- argument i of the call a blocked thread's saved
 * registers will re-issue */
uint64_t arch_saved_syscall_arg(const struct arch_user_regs *r, unsigned i)
{
	const uint64_t regs[6] = { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 };

	return syscall_arg(i, regs);
}

/* arch_syscall_set_result -- the value the call returns (rax) */
void arch_syscall_set_result(struct trap_frame *tf, int64_t v)
{
	tf->rax = (uint64_t)v;
}

/* arch_syscall_restart -- make a SYSCALL frame execute the same SYSCALL again */
void arch_syscall_restart(struct trap_frame *tf)
{
	/* Invariant: only a frame SYSCALL built has a SYSCALL right before rip. */
	KASSERT(tf->vector == VECTOR_SYSCALL);
	tf->rip -= SYSCALL_INSN_SIZE;
}

/* arch_syscall_complete_saved -- make saved registers, stopped at a
 * SYSCALL to re-issue, continue after it with `result` */
void arch_syscall_complete_saved(struct arch_user_regs *r, int64_t result)
{
	r->rip += SYSCALL_INSN_SIZE;
	r->rax = (uint64_t)result;
}

/* arch_frame_ip -- the user instruction pointer of a frame */
uint64_t arch_frame_ip(const struct trap_frame *tf)
{
	return tf->rip;
}

/* arch_frame_sp -- the user stack pointer of a frame */
uint64_t arch_frame_sp(const struct trap_frame *tf)
{
	return tf->rsp;
}

/* arch_frame_from_user -- whether the frame interrupted ring 3 */
bool arch_frame_from_user(const struct trap_frame *tf)
{
	return (tf->cs & 3) == 3;
}
