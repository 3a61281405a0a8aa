/*
 * linux.h -- the Linux personality: static Linux x86-64 programs, run
 * unmodified, with the catalogue as their file system (docs/linux.md).
 *
 * A program without Ferrite's note is a Linux program (task/elf.h). It
 * starts as Linux starts a program (start.c: the stack with argv, envp and
 * the auxiliary vector), its state lives in the heap like every process's
 * (struct klinux and struct klxfile, kformat.h), and its system calls
 * come here (dispatch.c) with Linux's numbers and errno values. The
 * personality reaches the rest of the kernel only through what the native
 * calls use: user memory (uvm/), objects and the catalogue, the console,
 * the scheduler.
 */
#ifndef LINUX_LINUX_H
#define LINUX_LINUX_H

#include <stdbool.h>

struct arch_fault;
struct trap_frame;
struct pctx;

/* linux_init -- at power-on: the hooks by which processes start as Linux
 * programs and the heap lets go of their state */
void linux_init(void);

/* linux_syscall -- carry out the SYSCALL of frame tf, from Linux program p */
void linux_syscall(struct trap_frame *tf, struct pctx *p);

/* linux_exit_to_user -- the thread of tf, of Linux program p, goes back to
 * user mode: the signals it may take are taken (signal.c) */
void linux_exit_to_user(struct trap_frame *tf, struct pctx *p);

/* linux_fault -- CPU exception f of Linux program p: whether a handler of
 * its signal takes it (else the fault ends the program) */
bool linux_fault(struct pctx *p, const struct arch_fault *f);

#endif
