/*
 * sched.c -- running threads: round-robin, blocking, waking, commits.
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
 * Commits: the kernel runs one long objstore transaction (an epoch). It is
 * committed only at a safe point, with the running thread's registers
 * saved first:
 *  - periodically while anything is logged: every `ckpt=USEC` (default
 *    1 ms; 0: never), stretched when checkpoints get expensive so that
 *    their work -- the commit's pause plus the write faults that log user
 *    pages -- stays about 1/COST_SHARE of the time: the next periodic
 *    commit comes no sooner than COST_SHARE times the last epoch's cost;
 *  - when the log could not take one more kernel entry (LOG_BUDGET);
 *  - when a program asks (SYS_SYNC: it returns once the commit is done);
 *  - when the CPU would go idle with anything logged (queued console
 *    output is then released at once).
 * After each commit: user pages lose their write bit again
 * (uvm_epoch_end) and the console output of the epoch goes to the UART
 * (console_release). docs/checkpoints.md tells the whole story.
 */
#include <stdlib.h>
#include <string.h>

#include "acpi/acpi.h"
#include "arch/arch.h"
#include "core/cmdline.h"
#include "core/console.h"
#include "core/heap.h"
#include "core/panic.h"
#include "core/printk.h"
#include "core/time.h"
#include "objstore/objstore.h"
#include "proc/proc.h"

#define QUANTUM_NS 10000000ull         /* 10 ms */
#define CKPT_DEFAULT_US 1000           /* commit every 1 ms while dirty */
#define CKPT_MAX_US 10000000           /* ckpt= at most 10 s */
#define COST_SHARE 10                  /* checkpoints take ~<= 1/10 of the time */
/* Most one kernel entry may log: FE_IO_MAX of data plus metadata. */
#define LOG_BUDGET (FE_IO_MAX * 2 + (64u << 10))

static int running = -1;
static unsigned rr_cursor;
static volatile bool need_resched;
static bool commit_requested;
static uint64_t mono_base;             /* mono_ns() - time_ns() */
static uint64_t run_start_ns, quantum_end_ns, last_commit_ns;
static uint64_t log_size;
static uint64_t next_wake_ns = UINT64_MAX; /* earliest sleeper's deadline (a hint) */
static bool resumed;                   /* the first thread of this power-on was loaded */

/* Checkpoint figures of this power-on (volatile; sysinfo reports them). */
static struct {
	uint64_t period_ns;            /* ckpt=; 0: no periodic commits */
	uint64_t interval_ns;          /* the period, stretched by the last epoch's cost */
	uint64_t commits;
	uint64_t pause_last_ns, pause_max_ns, pause_total_ns;
	uint64_t pages_last, pages_total;
	uint64_t resume_cycles, resume_ns;
} ckpt;

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

/* commit -- end the epoch: everything logged so far becomes durable; then
 * protect user pages again and send the epoch's console output */
static void commit(void)
{
	uint64_t start = time_ns(), pause;
	struct uvm_epoch epoch;
	int err;

	KLOG(&kroot->mono_ns);
	kroot->mono_ns = mono_ns();
#ifndef FERRITE_PLANT_UNLOGGED /* tests: a kernel whose every commit escapes the log */
	KLOG(&kroot->commits);
#endif
	kroot->commits++;
	if (running >= 0) {
		KLOG(&kroot->running_slot);
		kroot->running_slot = (uint32_t)running;
	}
	err = heap_commit();
	if (err)
		panic("sched: the commit failed (%d)", err);
	uvm_epoch_end(&epoch);
	console_release();
	last_commit_ns = time_ns();
	commit_requested = false;

	pause = last_commit_ns - start;
	ckpt.commits++;
	ckpt.pause_last_ns = pause;
	ckpt.pause_total_ns += pause;
	if (pause > ckpt.pause_max_ns)
		ckpt.pause_max_ns = pause;
	ckpt.pages_last = epoch.pages;
	ckpt.pages_total += epoch.pages;
	ckpt.interval_ns = COST_SHARE * (pause + epoch.fault_ns);
	if (ckpt.interval_ns < ckpt.period_ns)
		ckpt.interval_ns = ckpt.period_ns;
}

/* epoch_dirty -- whether the running epoch logged anything */
static bool epoch_dirty(void)
{
	return heap_log_free() < log_size;
}

/* commit_due -- whether the epoch should end at this safe point */
static bool commit_due(void)
{
	if (commit_requested || heap_log_free() < LOG_BUDGET)
		return true;
	return ckpt.period_ns && epoch_dirty() &&
	       time_ns() - last_commit_ns >= ckpt.interval_ns;
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

/* sched_log_short -- whether the log could not take one more kernel entry;
 * if so a commit happens at the next safe point */
bool sched_log_short(void)
{
	if (heap_log_free() >= LOG_BUDGET)
		return false;
	commit_requested = true;
	return true;
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

/* pick_next -- the next runnable slot after the cursor, -1 if none */
static int pick_next(void)
{
	for (unsigned n = 0; n < KROOT_MAX_PROCS; n++) {
		unsigned slot = (rr_cursor + 1 + n) % KROOT_MAX_PROCS;
		struct kthread *t = thread_of(slot);

		if (t && t->state == KTHREAD_RUNNABLE) {
			rr_cursor = slot;
			return (int)slot;
		}
	}
	return -1;
}

/* note_resumed -- the first thread of this power-on is loaded (or the CPU
 * idles: every thread waits): say how long the power-on took, from the
 * kernel's first instruction */
static void note_resumed(void)
{
	uint64_t cycles = arch_cycles() - kernel_entry_tsc;
	struct os_stats st;

	resumed = true;
	if (heap_genesis()) {
		pr_info("ferrite: genesis complete in %llu us\n",
			(unsigned long long)(time_cycles_to_ns(cycles) / 1000));
		return;
	}
	ckpt.resume_cycles = cycles;
	ckpt.resume_ns = time_cycles_to_ns(cycles);
	os_stats(&kheap, &st);
	pr_info("ferrite: resumed at epoch %llu (rolled back %llu records, %llu KiB) in %llu us\n",
		(unsigned long long)st.epoch, (unsigned long long)st.rolled_back,
		(unsigned long long)((st.rolled_back_bytes + 1023) >> 10),
		(unsigned long long)(ckpt.resume_ns / 1000));
}

/* switch_to_next -- load the next runnable thread into the frame, idling until one is */
static void switch_to_next(struct trap_frame *tf)
{
	for (;;) {
		struct pctx *p;
		int slot;

		if (commit_due())
			commit();
		if (kroot->reap_count && kobj_reap(LOG_BUDGET)) {
			commit_requested = true; /* commit, then reap on */
			continue;
		}
		wake_sleepers();
		slot = pick_next();
		if (slot < 0 && epoch_dirty()) {
			commit(); /* nothing to run: make the epoch durable, send its output */
			continue;
		}
		if (slot < 0) {
			if (!resumed)
				note_resumed(); /* everything waits: resumed all the same */
			if (!proc_count()) {
				pr_info("ferrite: no processes to run\n");
				commit();
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

	if (commit_due()) {
		save_running(tf);
		commit();
	}
	if (kroot->reap_count && kobj_reap(LOG_BUDGET)) {
		save_running(tf); /* the reaper left LOG_BUDGET for this */
		commit();
	}
	console_input_poll();
	t = running >= 0 ? thread_of((unsigned)running) : NULL;
	if (t && t->state == KTHREAD_RUNNABLE && !need_resched)
		return;
	save_running(tf);
	running = -1;
	switch_to_next(tf);
	if (!resumed)
		note_resumed();
}

/* proc_current -- the running process, NULL when none */
struct pctx *proc_current(void)
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

/* sched_commit_soon -- commit at the next safe point (SYS_SYNC) */
void sched_commit_soon(void)
{
	commit_requested = true;
}

/* sched_power_off -- save the caller, commit, and power off */
void sched_power_off(struct trap_frame *tf)
{
	save_running(tf);
	commit();
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

/* ckpt_period -- ckpt=USEC from the command line, in ns */
static uint64_t ckpt_period(void)
{
	const char *text = cmdline_get("ckpt");
	unsigned long long us;
	char *end;

	if (!text)
		return CKPT_DEFAULT_US * 1000ull;
	us = strtoull(text, &end, 10);
	if (!*text || *end || us > CKPT_MAX_US) {
		pr_warn("cmdline: ckpt=%s is not a number of microseconds from 0 to %u; using %u\n",
			text, CKPT_MAX_US, CKPT_DEFAULT_US);
		return CKPT_DEFAULT_US * 1000ull;
	}
	return us * 1000ull;
}

/* sched_ckpt_info -- the checkpoint figures of sysinfo */
void sched_ckpt_info(struct fe_sysinfo *info)
{
	info->ckpt_period_ns = ckpt.period_ns;
	info->ckpt_interval_ns = ckpt.interval_ns;
	info->pause_last_ns = ckpt.pause_last_ns;
	info->pause_max_ns = ckpt.pause_max_ns;
	info->pause_mean_ns = ckpt.commits ? ckpt.pause_total_ns / ckpt.commits : 0;
	info->power_on_commits = ckpt.commits;
	info->pages_last = ckpt.pages_last;
	info->pages_mean = ckpt.commits ? ckpt.pages_total / ckpt.commits : 0;
	info->resume_cycles = ckpt.resume_cycles;
	info->resume_ns = ckpt.resume_ns;
}

/* sched_start -- enter user mode for good: the thread that ran at the last
 * commit goes first, after the output committed but not yet sent */
void sched_start(void)
{
	struct os_stats stats;

	os_stats(&kheap, &stats);
	log_size = stats.log_size;
	if (log_size < 2 * LOG_BUDGET)
		panic("sched: the undo log (%llu KiB) is smaller than two kernel entries (%u KiB); use a larger NVM",
		      (unsigned long long)(log_size >> 10), 2 * LOG_BUDGET >> 10);
	ckpt.period_ns = ckpt_period();
	ckpt.interval_ns = ckpt.period_ns;
	mono_base = kroot->mono_ns - time_ns();
	last_commit_ns = time_ns();
	rr_cursor = (kroot->running_slot + KROOT_MAX_PROCS - 1) % KROOT_MAX_PROCS;
	console_release();
	arch_user_start();
}
