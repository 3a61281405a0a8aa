/*
 * trap_entry.S -- the 256 interrupt entry points and the common path.
 *
 * Each stub pushes an error code (0 when the CPU pushes none) and its
 * vector, so every trap frame has the same shape (struct trap_frame in
 * trap.h); the common path makes GS the CPU's own when it came from ring 3
 * (SWAPGS: the user's GS base is swapped with the kernel's, see user.h),
 * saves the general registers, calls trap_dispatch(frame), and returns
 * with iretq, swapping GS back when it returns to ring 3.
 *
 * trap_return, the second half of that path, is also how syscall_entry.S
 * leaves a frame that must not or cannot use SYSRET, and how
 * arch_user_start first enters ring 3: whatever the frame holds is what
 * the CPU resumes.
 */

#include "arch/x86_64/trap.h"

/* Vectors for which the CPU pushes an error code. */
#define HAS_ERROR_CODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

	.text
	.balign 16
trap_common:
	testb $3, 24(%rsp)        /* cs, above the vector, error code and rip */
	jz 1f
	swapgs
1:	save_general_registers
	cld
	movq %rsp, %rdi
	call trap_dispatch
	.globl trap_return
trap_return:                      /* %rsp: a struct trap_frame */
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp            /* vector and error code */
	testb $3, 8(%rsp)         /* cs */
	jz 1f
	swapgs
1:	iretq

	.altmacro
	.macro trap_stub v
	.balign 16
trap_stub_\v:
	.if !HAS_ERROR_CODE(\v)
	pushq $0
	.endif
	pushq $\v
	jmp trap_common
	.endm

	.macro trap_stub_address v
	.quad trap_stub_\v
	.endm

	.set vector, 0
	.rept 256
	trap_stub %vector
	.set vector, vector + 1
	.endr

	.section .rodata
	.balign 8
	.globl trap_stubs
trap_stubs:
	.set vector, 0
	.rept 256
	trap_stub_address %vector
	.set vector, vector + 1
	.endr
