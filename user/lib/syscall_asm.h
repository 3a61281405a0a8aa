/*
 * syscall_asm.h -- the SYSCALL instruction, for user/lib/syscalls.c only.
 *
 * The ABI (<ferrite/syscall.h>): number in rax, arguments in rdi, rsi, rdx,
 * r10, r8, r9, result in rax; the CPU clobbers rcx and r11. "memory" is
 * clobbered because the kernel reads and writes the buffers passed to it.
 * Every other register is preserved by the kernel, so nothing else is
 * listed.
 */
#ifndef USER_LIB_SYSCALL_ASM_H
#define USER_LIB_SYSCALL_ASM_H

#include <stdint.h>

/* sys6 -- system call nr with six arguments (unused ones are passed as 0) */
static inline long sys6(long nr, uint64_t a0, uint64_t a1, uint64_t a2,
			uint64_t a3, uint64_t a4, uint64_t a5)
{
	register uint64_t r10 __asm__("r10") = a3;
	register uint64_t r8 __asm__("r8") = a4;
	register uint64_t r9 __asm__("r9") = a5;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10),
			   "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* sys0 -- system call nr without arguments */
static inline long sys0(long nr)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
	return ret;
}

/* sys3 -- system call nr with three arguments */
static inline long sys3(long nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a0), "S"(a1), "d"(a2)
			 : "rcx", "r11", "memory");
	return ret;
}

#endif
