/*
 * sched.h -- running threads: round-robin, blocking, waking, and the
 * monotonic clock (sched.c).
 */
#ifndef PROC_SCHED_H
#define PROC_SCHED_H

#include <stdint.h>

#include "kformat/kformat.h"

struct pctx;
struct trap_frame;

/* What a system call returns when it did not finish: the thread blocked
 * (sched_block: the call is re-issued when it wakes), or the calling
 * process is gone (proc_exit). */
#define SYSCALL_BLOCKED INT64_MIN
#define SYSCALL_GONE (INT64_MIN + 1)

/* sched_current -- the process this CPU runs, NULL when none */
struct pctx *sched_current(void);

/* sched_block -- block the current thread in the call `tf` is making; the
 * call is re-issued when it is woken */
void sched_block(struct trap_frame *tf, enum kwait wait, uint64_t obj,
		 uint64_t wake_ns);

/* sched_wake -- make runnable every thread blocked on (wait, obj) */
void sched_wake(enum kwait wait, uint64_t obj);

/* sched_yield -- let others run before the current thread goes on */
void sched_yield(void);

/* sched_forget -- the process in `slot` is going: no CPU runs it any more
 * (one that did is stopped first: its page tables are about to go) */
void sched_forget(unsigned slot);

/* sched_power_off -- save the caller, commit, and power off (returns only
 * on failure) */
void sched_power_off(struct trap_frame *tf);

/* sched_tick -- the timer interrupt of this CPU */
void sched_tick(void);

/* sched_cpu_figures -- the CPU figures of sysinfo: CPUs, time each ran
 * threads, and how long stopping the others took at commits */
struct fe_sysinfo;
void sched_cpu_figures(struct fe_sysinfo *info);

/* mono_ns -- FE_CLOCK_MONOTONIC: running time since genesis (each commit
 * keeps it in the kernel root, so it goes on across power cuts) */
uint64_t mono_ns(void);

/* sched_start -- enter user mode for good (does not return) */
__attribute__((noreturn)) void sched_start(void);

#endif
