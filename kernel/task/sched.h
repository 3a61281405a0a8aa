/*
 * sched.h -- running threads: round-robin, blocking, waking, holding
 * (sched.c).
 */
#ifndef TASK_SCHED_H
#define TASK_SCHED_H

#include <stdbool.h>
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

/* sched_block -- block the current thread in the call `tf` is making, on
 * (wait, obj) and, unless wake_ns is 0, until monotonic time wake_ns at
 * the latest (KWAIT_SLEEP: until then); the call is re-issued when it is
 * woken */
void sched_block(struct trap_frame *tf, enum kwait wait, uint64_t obj,
		 uint64_t wake_ns);

/* sched_block_deadline -- the current thread, blocked in this call, also
 * wakes at monotonic time `ns` (its call is issued again then) */
void sched_block_deadline(uint64_t ns);

/* sched_interrupt -- make every blocked thread of p runnable: their calls
 * are issued again (for a signal, which cuts them short: linux/); but
 * for a vfork's wait, which only the child ends */
void sched_interrupt(struct pctx *p);

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

/* sched_yield -- let others run before the current thread goes on */
void sched_yield(void);

/* sched_forget -- the process in `slot` is going: no CPU runs it any more
 * (one that did is stopped first: its page tables are about to go) */
void sched_forget(unsigned slot);

/* sched_tick -- this CPU's timer tick: end the quantum, or let a sleeper in */
void sched_tick(void);

/* sched_cpu_figures -- the CPU figures of sysinfo: CPUs, and the time each ran threads */
struct fe_sysinfo;
void sched_cpu_figures(struct fe_sysinfo *info);

/* The safe point's half (entry/entry.c): on every way out of the kernel,
 * the thread this CPU runs goes on, or is put down and the next loaded. */

/* sched_goes_on -- whether this CPU's thread runs on: runnable, no other
 * asked to run, its tables loaded */
bool sched_goes_on(void);

/* sched_put -- this CPU's thread stops running here: its registers saved
 * from tf, the CPU released */
void sched_put(struct trap_frame *tf);

/* sched_run_next -- load the next runnable thread (round robin, held
 * processes passed by) into tf: SCHED_LOADED; SCHED_NONE if there is
 * none; SCHED_NO_TABLES if its process's page tables found no DRAM, that
 * process in *starved (the caller ends it) */
enum sched_next { SCHED_LOADED, SCHED_NONE, SCHED_NO_TABLES };
enum sched_next sched_run_next(struct trap_frame *tf, struct pctx **starved);

/* sched_idle -- halt until an interrupt, the kernel left to the other CPUs */
void sched_idle(void);

/* sched_others_run -- whether another CPU runs a thread */
bool sched_others_run(void);

/* sched_save_running -- at a commit, the other CPUs stopped: every
 * running thread's registers and CPU time into the heap, this CPU's from
 * tf (NULL: it runs none) */
void sched_save_running(struct trap_frame *tf);

/* sched_hold -- hold every live process: none of its threads runs (a safe
 * power-on, epoch/rescue.c); their events still wake them */
void sched_hold(void);

/* sched_release -- hold nothing any more; how many live processes were held */
unsigned sched_release(void);

/* sched_holding -- whether processes are held */
bool sched_holding(void);

/* sched_held -- whether p is held: none of its threads may run */
bool sched_held(const struct pctx *p);

/* sched_start -- enter user mode for good (does not return) */
__attribute__((noreturn)) void sched_start(void);

#endif
