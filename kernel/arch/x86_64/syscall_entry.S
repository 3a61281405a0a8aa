/*
 * syscall_entry.S -- entering the kernel with SYSCALL, and the first entry
 * to user mode.
 *
 * SYSCALL leaves the user rip in rcx and rflags in r11, loads CS/SS from
 * STAR and clears the RFLAGS bits of FMASK (interrupts among them), but
 * does not switch stacks. syscall_entry makes GS the CPU's own (SWAPGS),
 * switches to the top of its kernel stack (%gs:CPU_KERNEL_STACK_TOP; the
 * user rsp goes through %gs:CPU_USER_RSP, safe because interrupts are off
 * and NMIs run on their own stack) and builds the same struct trap_frame
 * an interrupt from ring 3 would: ss, rsp, rflags, cs, rip, an error code
 * of 0, the vector VECTOR_SYSCALL, then the general registers in
 * trap_common's order. Then it calls syscall_trap(tf) (trap.c), which
 * enters the kernel, carries out the call and leaves through
 * kernel_exit_to_user(tf).
 *
 * The way out (SWAPGS back to the user's GS first): SYSRET when the frame is still the one SYSCALL built
 * (vector VECTOR_SYSCALL) and its rip lies below USER_SYSRET_LIMIT. Else
 * IRETQ through trap_return: after arch_frame_load (another thread, or a
 * restarted one), and for a non-canonical rip, which would make SYSRET
 * raise #GP in ring 0 on Intel CPUs, with the user's rsp already loaded.
 * rcx and r11 come back as rip and the sanitized rflags, as the ABI says
 * (include/ferrite/syscall.h).
 *
 * Invariant: the kernel stack holds nothing between two entries from user
 * mode; every entry starts at its top.
 *
 * For debuggers, syscall_entry is the outermost kernel frame: its call
 * frame information (in .debug_frame, which the kernel does not load)
 * says the return address is undefined, so gdb's `bt` in a system call
 * stops here instead of reading the user's registers as kernel frames.
 * A user thread's own stack is fe-bt's (tools/gdb/ferrite.py).
 */
#include "arch/x86_64/trap.h"
#include "arch/x86_64/user.h"

	.cfi_sections .debug_frame
	.text
	.balign 16
	.globl syscall_entry
syscall_entry:
	.cfi_startproc simple
	.cfi_def_cfa rsp, 0      /* any rule: gdb needs one */
	.cfi_undefined rip
	swapgs
	movq %rsp, %gs:CPU_USER_RSP
	movq %gs:CPU_KERNEL_STACK_TOP, %rsp
	pushq $USER_SS
	pushq %gs:CPU_USER_RSP
	pushq %r11                /* rflags */
	pushq $USER_CS
	pushq %rcx                /* rip */
	pushq $0                  /* error code */
	pushq $VECTOR_SYSCALL
	save_general_registers
	xorl %ebp, %ebp           /* the end of every kernel backtrace */
	movq %rsp, %rdi
	call syscall_trap
	cmpq $VECTOR_SYSCALL, TF_VECTOR(%rsp)
	jne trap_return
	movq TF_RIP(%rsp), %rcx
	movabsq $USER_SYSRET_LIMIT, %r11
	cmpq %r11, %rcx
	jae trap_return
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	addq $8, %rsp             /* r11: the rflags below */
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	addq $8, %rsp             /* rcx: the rip, loaded above */
	popq %rbx
	popq %rax
	movq TF_RFLAGS-TF_VECTOR(%rsp), %r11
	andq $USER_RFLAGS_KEEP, %r11
	orq $(RFLAGS_IF | RFLAGS_FIXED), %r11
	movq TF_RSP-TF_VECTOR(%rsp), %rsp
	swapgs
	sysretq
	.cfi_endproc

/*
 * arch_user_start -- leave the boot stack for this CPU's kernel stack and
 * enter ring 3 for the first time: an empty frame at the top of the stack,
 * filled by kernel_exit_to_user (through arch_frame_load), then IRETQ
 * (trap_return, which SWAPGSes to the user's GS).
 */
	.balign 16
	.globl arch_user_start
arch_user_start:
	cli
	movq %gs:CPU_KERNEL_STACK_TOP, %rsp
	subq $TF_SIZE, %rsp
	movq %rsp, %rdi
	movl $TF_SIZE / 8, %ecx
	xorl %eax, %eax
	rep stosq
	xorl %ebp, %ebp
	movq %rsp, %rdi
	call kernel_exit_to_user
	cmpq $USER_CS, TF_CS(%rsp)
	jne 1f
	jmp trap_return
1:	movq %rsp, %rdi
	call user_start_unloaded  /* does not return */
