/*
 * user.h -- the x86_64 side of user mode that the entry code shares with C:
 * the per-CPU area, the SYSCALL MSRs and the rules for user RFLAGS.
 *
 * Included by syscall_entry.S with __ASSEMBLY__ defined; the design is
 * described at the top of user.c and in docs/usermode.md.
 */
#ifndef ARCH_X86_64_USER_H
#define ARCH_X86_64_USER_H

#define KERNEL_STACK_SIZE 16384

/* Offsets in struct cpu_local, for the entry code, which reaches it at
 * %gs (checked in user.c). */
#define CPU_KERNEL_STACK_TOP 0
#define CPU_USER_RSP 8
#define CPU_INDEX 16

#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_FMASK 0xc0000084
#define EFER_SCE (1 << 0)

#define RFLAGS_CF (1 << 0)
#define RFLAGS_FIXED (1 << 1)  /* reads as 1 */
#define RFLAGS_PF (1 << 2)
#define RFLAGS_AF (1 << 4)
#define RFLAGS_ZF (1 << 6)
#define RFLAGS_SF (1 << 7)
#define RFLAGS_TF (1 << 8)
#define RFLAGS_IF (1 << 9)
#define RFLAGS_DF (1 << 10)
#define RFLAGS_OF (1 << 11)
#define RFLAGS_IOPL (3 << 12)
#define RFLAGS_NT (1 << 14)
#define RFLAGS_RF (1 << 16)
#define RFLAGS_VM (1 << 17)
#define RFLAGS_AC (1 << 18)

/* What SYSCALL clears on entry (MSR_FMASK): the kernel runs with interrupts
 * off, string operations upward, no single-stepping, no alignment checks
 * and no nested-task bit (IRETQ with NT set would #GP). */
#define SYSCALL_RFLAGS_CLEAR (RFLAGS_IF | RFLAGS_DF | RFLAGS_TF | RFLAGS_AC | RFLAGS_NT)

/* The only user RFLAGS bits a saved register file may carry into ring 3:
 * the arithmetic flags and DF. Every return to user mode also sets IF and
 * RFLAGS_FIXED. */
#define USER_RFLAGS_KEEP (RFLAGS_CF | RFLAGS_PF | RFLAGS_AF | RFLAGS_ZF | \
			  RFLAGS_SF | RFLAGS_DF | RFLAGS_OF)

/* SYSRET only to an address below this (FE_USER_TOP, checked in user.c):
 * below it every address is canonical, so SYSRET cannot fault in ring 0. */
#define USER_SYSRET_LIMIT 0x00007ffffffff000

#ifndef __ASSEMBLY__

#include <stdint.h>

struct trap_frame;

/* The per-CPU area of the entry code: each CPU owns one and reaches it
 * through GS, whose base is this CPU's area in the kernel and the user's
 * own (0) in ring 3: every entry from ring 3 and every return to it
 * executes SWAPGS (smp.c sets the MSRs, docs/usermode.md). */
struct cpu_local {
	uint64_t kernel_stack_top; /* constant: TSS.rsp0 and SYSCALL's stack */
	uint64_t user_rsp;         /* scratch: the user rsp during SYSCALL entry */
	uint32_t index;            /* the generic kernel's CPU number (core/smp.h) */
	uint32_t apic_id;          /* its local APIC's id */
};

/* cpu_local_of -- the area of CPU `index` (smp.c) */
struct cpu_local *cpu_local_of(unsigned index);

/* cpu_local_init -- give this CPU the area, kernel stack, GDT and TSS of
 * CPU `index` and point GS at the area (smp.c) */
void cpu_local_init(unsigned index);

/* arch_parked_state -- what arch_frame_park kept on CPU `index` (smp.c) */
void arch_parked_state(unsigned index, const uint8_t **fpu, uint64_t *fs_base);

/* syscall_trap -- syscall_entry.S's C half: enter the kernel, carry out
 * the call, leave through kernel_exit_to_user (trap.c) */
void syscall_trap(struct trap_frame *tf);

/* user_mode_init -- SYSCALL MSRs and the FPU/SSE for user code; panics without FXSR/SSE */
void user_mode_init(void);

/* syscall_entry -- the SYSCALL target (LSTAR), in syscall_entry.S */
void syscall_entry(void);

/* user_start_unloaded -- arch_user_start's frame came back without a user context: panic */
__attribute__((noreturn)) void user_start_unloaded(const struct trap_frame *tf);

#endif /* __ASSEMBLY__ */

#endif
