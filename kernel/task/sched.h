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
 * thread is gone (proc_exit, SYS_THREAD_EXIT). */
#define SYSCALL_BLOCKED INT64_MIN
#define SYSCALL_GONE (INT64_MIN + 1)

/* sched_current -- the process this CPU runs, NULL when none */
struct pctx *sched_current(void);

/* sched_current_tid -- the tid of the thread this CPU runs (it runs one) */
unsigned sched_current_tid(void);

/* sched_thread_cpu -- the CPU that runs thread `tid` of the process in
 * `slot`, -1 if none */
int sched_thread_cpu(unsigned slot, unsigned tid);

/* sched_block -- block the current thread in the call `tf` is making; the
 * call is re-issued when it is woken */
void sched_block(struct trap_frame *tf, enum kwait wait, uint64_t obj,
		 uint64_t wake_ns);

/* sched_wake -- make runnable every thread blocked on (wait, obj) */
void sched_wake(enum kwait wait, uint64_t obj);

/* sched_wake_futex -- complete the SYS_FUTEX_WAIT of at most `max` of p's
 * threads blocked on user address `addr` (each returns 0); how many */
unsigned sched_wake_futex(struct pctx *p, uint64_t addr, unsigned max);

/* sched_complete_waiting -- complete with `result` the blocked call of
 * every thread waiting for `wait` that `pick` accepts; how many */
unsigned sched_complete_waiting(enum kwait wait, bool (*pick)(const struct kthread *t),
				int64_t result);

/* sched_thread_exit -- the thread this CPU runs has exited: it runs no more */
void sched_thread_exit(void);

/* sched_thread_new -- a thread was made runnable (SYS_THREAD_CREATE) */
void sched_thread_new(void);

/* sched_shootdown -- p's page tables lost a right or changed a frame:
 * stop the other CPUs if one runs a thread of p */
void sched_shootdown(const struct pctx *p);

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
