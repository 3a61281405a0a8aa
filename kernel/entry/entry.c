/*
 * entry.c -- the kernel's way in from user mode and out again: the safe
 * point, the idle loop, and the tick.
 *
 * The architecture calls in here (arch/arch.h, "provided by the kernel"):
 * kernel_enter_from_user at every entry from user mode (system call,
 * exception, interrupt), kernel_exit_to_user on every way back, and the
 * tick through time_init's hook. The kernel runs with the kernel lock
 * (core/smp.c), interrupts off, and one kernel stack per CPU; nothing of a
 * thread lives on it between two entries.
 *
 * The safe point. Every way out of the kernel passes kernel_exit_to_user,
 * where no thread is inside the kernel: the only place where
 *  - the epoch commits (epoch_safe_point, epoch_idle_point: epoch.c, which
 *    stops the other CPUs and saves every running thread first);
 *  - the reaper deletes objects whose last reference went (obj/kobj.c),
 *    never taking the log the next kernel entry needs;
 *  - typed bytes and host-link bytes are taken in (console.c, hostlink.c);
 *  - a Linux program's thread takes its signals (linux/signal.c);
 *  - the scheduler decides which thread the frame returns to (task/sched.c):
 *    the one that ran, or the next runnable one, idling until there is one.
 * ("Safe" here means only that: a point between kernel entries. The safe
 * power-on -- `safe` on the command line -- is epoch/rescue.c.)
 *
 * When nothing runs at all, the whole system commits before it idles
 * (epoch_idle_point); with no process left the kernel's monitor takes the
 * console (core/monitor.c).
 */
#include <stdbool.h>

#include "arch/arch.h"
#include "console/console.h"
#include "core/heap.h"
#include "core/monitor.h"
#include "core/panic.h"
#include "core/printk.h"
#include "core/smp.h"
#include "entry/entry.h"
#include "epoch/durable.h"
#include "epoch/epoch.h"
#include "epoch/rescue.h"
#include "hostlink/hostlink.h"
#include "linux/linux.h"
#include "obj/kobj.h"
#include "syscall/syscall.h"
#include "task/proc.h"
#include "task/sched.h"

/* kernel_enter_from_user -- take the kernel; whether the frame's thread still runs here */
bool kernel_enter_from_user(struct trap_frame *tf)
{
	klock_enter(tf);
	return cpu_self()->running >= 0;
}

/* syscall_handler -- a SYSCALL from user mode: the undo log's room for
 * one call checked (else the call is issued again after a commit,
 * epoch_reserve_entry), then the call, by the caller's personality:
 * Ferrite's calls (syscall/) or Linux's (linux/) */
void syscall_handler(struct trap_frame *tf)
{
	struct pctx *p = sched_current();

	KASSERT(p != NULL);
	if (!epoch_reserve_entry()) {
		arch_syscall_restart(tf);
		return;
	}
	if (p->lx)
		linux_syscall(tf, p);
	else
		syscall_native(tf, p);
}

/* take_input -- typed bytes into the console's queue, link bytes to the
 * service; the console's shell kept (a process may have ended) */
static void take_input(void)
{
	console_input_poll();
	hostlink_poll();
	rescue_keep_shell();
}

/* run_next -- load the next runnable thread into tf, committing and
 * reaping on the way, idling until there is one */
static void run_next(struct trap_frame *tf)
{
	struct pctx *starved;

	for (;;) {
		epoch_safe_point(NULL);
		if (kroot->reap_count && kobj_reap(epoch_log_keep())) {
			heap_request_commit(); /* commit, then reap on */
			continue;
		}
		switch (sched_run_next(tf, &starved)) {
		case SCHED_LOADED:
			return;
		case SCHED_NO_TABLES:
			proc_end(starved, FE_EXIT_KILLED, 0, "out of DRAM for page tables");
			continue;
		case SCHED_NONE:
			break;
		}
		if (epoch_idle_point(sched_others_run()))
			continue;
		epoch_power_on_done(); /* everything waits: resumed all the same */
		if (!ptable_count()) {
			pr_info("ferrite: no processes to run\n");
			epoch_commit(NULL);
			durable_settle();
			monitor_run();
		}
		sched_idle();
		take_input();
	}
}

/* kernel_exit_to_user -- the safe point: choose the thread the frame returns to */
void kernel_exit_to_user(struct trap_frame *tf)
{
	epoch_safe_point(tf);
	if (kroot->reap_count && kobj_reap(epoch_log_keep()))
		epoch_commit(tf); /* the reaper left HEAP_ENTRY_LOG_MAX for this */
	take_input();
	if (sched_current() && sched_current()->lx)
		linux_exit_to_user(tf, sched_current()); /* its signals: it may end */
	if (sched_goes_on()) {
		klock_leave();
		return;
	}
	sched_put(tf);
	run_next(tf);
	epoch_power_on_done();
	klock_leave();
}

/* entry_tick -- every CPU's timer tick, in interrupt context: the
 * scheduler's quantum and sleepers; CPU 0 also services the host link's
 * UART (an interrupt edge lost delays the link by a tick, no more) */
void entry_tick(void)
{
	sched_tick();
	if (arch_cpu_index() == 0)
		hostlink_tick();
}
