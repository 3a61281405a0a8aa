/*
 * sched.c -- running threads: round-robin, blocking, waking, safe points.
 *
 * Event-driven, one kernel stack: the kernel is entered from user mode
 * (system call, exception, interrupt), does its work with interrupts off
 * and leaves through kernel_exit_to_user(), which decides which thread's
 * registers the frame on the kernel stack holds when it returns. Nothing
 * of a thread lives on the kernel stack between two entries.
 *
 * Persistent: each thread's state (runnable, or blocked in call N on X
 * until T) and, whenever it is not running, its registers. Volatile: which
 * slot runs now (`running`: its registers are live in the frame and the
 * FPU), the round-robin cursor, and flags. A thread that blocks has its
 * frame rewound to the SYSCALL instruction (arch_syscall_restart), so
 * waking it simply re-issues the call: no kernel continuation exists.
 *
 * Safe points: every exit to user mode and every scheduling pass is one
 * (no thread is inside the kernel). There the scheduler saves the running
 * thread's registers and lets the epoch commit when it is due (epoch.c),
 * and lets the reaper delete what waits in the reap queue (kobj.c).
 *
 * A safe power-on's held processes (safe.c) are never picked to run; they
 * are woken by their events as usual, and run once SYS_RESUME lets them.
 */
#include <string.h>

#include "acpi/acpi.h"
#include "arch/arch.h"
#include "core/console.h"
#include "core/heap.h"
#include "core/panic.h"
#include "core/printk.h"
#include "core/time.h"
#include "proc/console_io.h"
#include "proc/epoch.h"
#include "proc/kobj.h"
#include "proc/proc.h"
#include "proc/safe.h"
#include "proc/sched.h"
#include "proc/uvm.h"

#define QUANTUM_NS 10000000ull         /* 10 ms */

/* Volatile: rebuilt at every power-on. */
static int running = -1;
static unsigned rr_cursor;
static volatile bool need_resched;
static uint64_t mono_base;             /* mono_ns() - time_ns() */
static uint64_t run_start_ns, quantum_end_ns;
static uint64_t next_wake_ns = UINT64_MAX; /* earliest sleeper's deadline (a hint) */

/* mono_ns -- FE_CLOCK_MONOTONIC: running time since genesis */
uint64_t mono_ns(void)
{
	return mono_base + time_ns();
}

/* thread_of -- the thread of the process in `slot`, NULL if none */
static struct kthread *thread_of(unsigned slot)
{
	struct pctx *p = proc_slot(slot);

	return p ? p->thread : NULL;
}

/* save_running -- the running thread's registers and time into the heap */
static void save_running(struct trap_frame *tf)
{
	struct pctx *p = running >= 0 ? proc_slot((unsigned)running) : NULL;
	uint64_t now = time_ns();

	if (!p)
		return;
	KLOG(&p->thread->regs);
	arch_frame_save(tf, &p->thread->regs);
	KLOG(&p->proc->cpu_ns);
	p->proc->cpu_ns += now - run_start_ns;
	run_start_ns = now;
}

/* wake_sleepers -- make threads whose deadline passed runnable */
static void wake_sleepers(void)
{
	uint64_t now = mono_ns();

	next_wake_ns = UINT64_MAX;
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct kthread *t = thread_of(i);

		if (!t || t->state != KTHREAD_BLOCKED || t->wait != KWAIT_SLEEP)
			continue;
		if (t->wake_ns <= now) {
			KLOG(&t->state);
			t->state = KTHREAD_RUNNABLE;
		} else if (t->wake_ns < next_wake_ns) {
			next_wake_ns = t->wake_ns;
		}
	}
}

/* pick_next -- the next runnable slot after the cursor, -1 if none; a
 * safe power-on's held processes are passed by (safe.c) */
static int pick_next(void)
{
	for (unsigned n = 0; n < KROOT_MAX_PROCS; n++) {
		unsigned slot = (rr_cursor + 1 + n) % KROOT_MAX_PROCS;
		struct pctx *p = proc_slot(slot);

		if (p && p->thread->state == KTHREAD_RUNNABLE && !safe_held(p)) {
			rr_cursor = slot;
			return (int)slot;
		}
	}
	return -1;
}

/* switch_to_next -- load the next runnable thread into the frame, idling until one is */
static void switch_to_next(struct trap_frame *tf)
{
	for (;;) {
		struct pctx *p;
		int slot;

		if (epoch_due())
			epoch_commit();
		if (kroot->reap_count && kobj_reap(EPOCH_ENTRY_LOG_MAX)) {
			epoch_request(); /* commit, then reap on */
			continue;
		}
		wake_sleepers();
		slot = pick_next();
		if (slot < 0 && epoch_dirty()) {
			epoch_commit(); /* nothing to run: make the epoch durable, send its output */
			continue;
		}
		if (slot < 0) {
			epoch_power_on_done(); /* everything waits: resumed all the same */
			if (!proc_count()) {
				pr_info("ferrite: no processes to run\n");
				epoch_commit();
				console_run();
			}
			arch_wait_for_interrupt();
			arch_interrupts_disable();
			console_input_poll();
			continue;
		}
		p = proc_slot((unsigned)slot);
		if (uvm_activate(p)) {
			proc_end(p, FE_EXIT_KILLED, 0, "out of DRAM for page tables");
			continue;
		}
		arch_frame_load(tf, &p->thread->regs);
		running = slot;
		run_start_ns = time_ns();
		quantum_end_ns = run_start_ns + QUANTUM_NS;
		need_resched = false;
		return;
	}
}

/* kernel_exit_to_user -- choose the thread the frame returns to */
void kernel_exit_to_user(struct trap_frame *tf)
{
	struct kthread *t;

	if (epoch_due()) {
		save_running(tf);
		epoch_commit();
	}
	if (kroot->reap_count && kobj_reap(EPOCH_ENTRY_LOG_MAX)) {
		save_running(tf); /* the reaper left EPOCH_ENTRY_LOG_MAX for this */
		epoch_commit();
	}
	console_input_poll();
	t = running >= 0 ? thread_of((unsigned)running) : NULL;
	if (t && t->state == KTHREAD_RUNNABLE && !need_resched)
		return;
	save_running(tf);
	running = -1;
	switch_to_next(tf);
	epoch_power_on_done();
}

/* sched_current -- the running process, NULL when none */
struct pctx *sched_current(void)
{
	return running >= 0 ? proc_slot((unsigned)running) : NULL;
}

/* sched_block -- block the current thread in the call `tf` is making */
void sched_block(struct trap_frame *tf, enum kwait wait, uint64_t obj,
		 uint64_t wake_ns)
{
	struct kthread *t = thread_of((unsigned)running);

	KASSERT(t != NULL);
	KLOG(t);
	t->state = KTHREAD_BLOCKED;
	t->wait = wait;
	t->wait_obj = obj;
	t->wake_ns = wake_ns;
	t->blocked_call = (uint32_t)arch_syscall_number(tf);
	arch_syscall_restart(tf);
	need_resched = true;
	if (wait == KWAIT_SLEEP && wake_ns < next_wake_ns)
		next_wake_ns = wake_ns;
}

/* sched_wake -- make runnable every thread blocked on (wait, obj) */
void sched_wake(enum kwait wait, uint64_t obj)
{
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct kthread *t = thread_of(i);

		if (t && t->state == KTHREAD_BLOCKED && t->wait == wait &&
		    t->wait_obj == obj) {
			KLOG(&t->state);
			t->state = KTHREAD_RUNNABLE;
			need_resched = true;
		}
	}
}

/* sched_yield -- let others run before the current thread goes on */
void sched_yield(void)
{
	need_resched = true;
}

/* sched_forget -- the process in `slot` is gone */
void sched_forget(unsigned slot)
{
	if (running == (int)slot)
		running = -1;
}

/* sched_power_off -- save the caller, commit, and power off */
void sched_power_off(struct trap_frame *tf)
{
	save_running(tf);
	epoch_commit();
	pr_info("ferrite: powering off\n");
	acpi_poweroff();
	pr_err("acpi: power-off did not happen\n");
}

/* sched_tick -- the timer interrupt: end the quantum, or let a sleeper in */
void sched_tick(void)
{
	if (running >= 0 &&
	    (time_ns() >= quantum_end_ns || mono_ns() >= next_wake_ns))
		need_resched = true;
}

/* sched_start -- enter user mode for good: the thread that ran at the last
 * commit goes first (epoch_power_on_done sends the output committed but
 * not yet sent before it runs) */
void sched_start(void)
{
	epoch_start();
	mono_base = kroot->mono_ns - time_ns();
	rr_cursor = (kroot->running_slot + KROOT_MAX_PROCS - 1) % KROOT_MAX_PROCS;
	arch_user_start();
}
