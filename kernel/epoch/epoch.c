/*
 * epoch.c -- the epoch: the kernel's one long transaction, when it commits,
 * and what every commit does.
 *
 * The kernel runs one objstore transaction at a time, an epoch: kernel code
 * logs each range before its first write in the epoch (heap_log, KLOG),
 * user pages are written back from the DRAM cache by each commit
 * (pagecache.c; without it, logged by their first write fault: uvm.c), and
 * a power cut returns the whole heap to the last commit. This file owns the
 * epoch's life; callers see epoch_log_short at a kernel entry, epoch_due at
 * a safe point, and epoch_commit.
 *
 * When. A commit happens only at a safe point -- no thread inside the
 * kernel, the running thread's registers saved (the scheduler does both) --
 * and then:
 *  - periodically while anything is logged: every `ckpt=USEC` (default
 *    1 ms; 0: never), stretched when checkpoints get expensive so that
 *    their work -- the commit's pause plus the write faults that log user
 *    pages -- stays about 1/COST_SHARE of the time: the next periodic
 *    commit comes no sooner than COST_SHARE times the last epoch's cost;
 *  - when the log could not take one more kernel entry
 *    (EPOCH_ENTRY_LOG_MAX): epoch_log_short asks, and the entry backs out;
 *  - when something asks (epoch_request: SYS_SYNC, a full written set, a
 *    writer waiting for console room);
 *  - when every CPU would go idle with anything logged, or one would while
 *    output waits to be seen (the scheduler).
 *
 * What. epoch_commit is the recipe, in order:
 *  0. pagecache_write_back: the user pages written since the last commit
 *     go to the heap, inside the epoch (pagecache_committed keeps the log
 *     for the next one once the commit point is passed);
 *  1. the kernel root's monotonic clock, commit count and running slot
 *     (logged like every kernel write);
 *  2. heap_commit: flush what the epoch wrote, fence, then one 8-byte
 *     store of the epoch number, flushed and fenced -- THE COMMIT POINT
 *     (objstore/tx.c); the next epoch begins;
 *  3. uvm_epoch_end: every user page logged in the epoch (no cache) loses its write
 *     bit, so its next write is logged in the new epoch;
 *  4. console_release: the epoch's console output may now be seen (and
 *     hostlink_release: so may its output to the host link).
 * A cut before step 2's store rolls back to the last commit; after it the
 * epoch is durable, and steps 3 and 4 only touch volatile state and the
 * console's durable cursor, which power-on handles (console_io.c).
 *
 * Power-on's own transactions (the boot modules' imports, the power-on
 * record of proc_init) commit here too, before epoch_start: then a commit
 * is only step 2 -- no thread has run, no user page is writable, the
 * monotonic clock is not running yet, and console output waits for the
 * power-on's own lines (epoch_power_on_done).
 *
 * docs/checkpoints.md tells the whole story.
 */
#include <stdlib.h>

#include "arch/arch.h"
#include "core/cmdline.h"
#include "core/heap.h"
#include "core/panic.h"
#include "core/printk.h"
#include "core/time.h"
#include "ferrite/nvmtrace.h"
#include "proc/console_io.h"
#include "proc/epoch.h"
#include "proc/hostlink.h"
#include "proc/kobj.h"
#include "proc/pagecache.h"
#include "proc/proc.h"
#include "proc/sched.h"
#include "proc/snapshot.h"
#include "proc/uvm.h"

#define CKPT_DEFAULT_US 1000           /* commit every 1 ms while dirty */
#define CKPT_MAX_US 10000000           /* ckpt= at most 10 s */
#define COST_SHARE 20                  /* checkpoints take ~<= 1/20 of the time */

/* Volatile: rebuilt at every power-on. */
static bool started;                   /* epoch_start ran: the system runs */
static bool requested;                 /* commit at the next safe point */
static bool powered_on;                /* epoch_power_on_done ran */
static uint64_t last_commit_ns;
static uint64_t log_size;
static bool user_unlogged;             /* nopersist: measurement only */

/* Checkpoint figures of this power-on (sysinfo reports them). */
static struct {
	uint64_t period_ns;            /* ckpt=; 0: no periodic commits */
	uint64_t interval_ns;          /* the period, stretched by the last epoch's cost */
	uint64_t commits;
	uint64_t pause_last_ns, pause_max_ns, pause_total_ns;
	uint64_t pages_last, pages_total;
	uint64_t resume_cycles, resume_ns;
} figures;

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

/* epoch_start -- the system starts running: check the log, read ckpt= */
void epoch_start(void)
{
	struct os_stats stats;

	os_stats(&kheap, &stats);
	log_size = stats.log_size;
	if (log_size < 2 * EPOCH_ENTRY_LOG_MAX)
		panic("epoch: the undo log (%llu KiB) is smaller than two kernel entries (%u KiB); use a larger NVM",
		      (unsigned long long)(log_size >> 10), 2 * EPOCH_ENTRY_LOG_MAX >> 10);
	user_unlogged = cmdline_has("nopersist");
	if (user_unlogged)
		pr_warn("nopersist: for measurement only: user pages are mapped onto the NVM and never logged, no periodic commits; a power cut may leave user memory newer than the last commit\n");
	pagecache_init();
	figures.period_ns = user_unlogged ? 0 : ckpt_period();
	figures.interval_ns = figures.period_ns;
	last_commit_ns = time_ns();
	started = true;
}

/* epoch_log_short -- whether the log could not take one more kernel entry;
 * if so a commit happens at the next safe point */
bool epoch_log_short(void)
{
	if (heap_log_free() >= epoch_log_keep())
		return false;
	requested = true;
	return true;
}

/* epoch_user_logged -- whether user pages join the epoch (all but nopersist) */
bool epoch_user_logged(void)
{
	return !user_unlogged;
}

/* epoch_log_keep -- the log a kernel entry starts with: one entry's worth,
 * and what the next commit's write-back may need */
uint64_t epoch_log_keep(void)
{
	return EPOCH_ENTRY_LOG_MAX + pagecache_log_need();
}

/* epoch_request -- commit at the next safe point */
void epoch_request(void)
{
	requested = true;
}

/* epoch_dirty -- whether the running epoch logged anything */
bool epoch_dirty(void)
{
	struct os_stats st;

	os_stats(&kheap, &st);
	return st.log_used != 0 || pagecache_pending();
}

/* epoch_due -- whether the epoch should end at this safe point */
bool epoch_due(void)
{
	if (requested || heap_log_free() < epoch_log_keep())
		return true;
	if (!figures.period_ns || time_ns() - last_commit_ns < figures.interval_ns)
		return false;
	if (epoch_dirty())
		return true;
	/* Nothing changed since the last commit: output made since is of
	 * committed state, and no commit will come to release it. */
	hostlink_release();
	return false;
}

/* stamp_root -- the kernel root's part of the commit: the clock, the count,
 * and the thread that runs first after a power cut */
static void stamp_root(void)
{
	struct pctx *running = sched_current();

	KLOG(&kroot->mono_ns);
	kroot->mono_ns = mono_ns();
#ifndef FERRITE_PLANT_UNLOGGED /* tests: a kernel whose every commit escapes the log */
	KLOG(&kroot->commits);
#endif
	kroot->commits++;
	if (running) {
		KLOG(&kroot->running_slot);
		kroot->running_slot = running->proc->slot;
	}
}

/* commit_heap -- the commit point (objstore's single store); the next epoch begins */
static void commit_heap(void)
{
	int err = heap_commit();

	if (err)
		panic("epoch: the commit failed (%d)", err);
}

/* count -- the figures of the commit that began at `start`, and the cost
 * rule: the next periodic commit no sooner than COST_SHARE times its cost */
static void count(uint64_t start, const struct uvm_epoch *user,
		  const struct pagecache_commit *cached)
{
	uint64_t pages = user->pages + cached->pages;
	uint64_t pause = last_commit_ns - start;

	figures.commits++;
	figures.pause_last_ns = pause;
	figures.pause_total_ns += pause;
	if (pause > figures.pause_max_ns)
		figures.pause_max_ns = pause;
	figures.pages_last = pages;
	figures.pages_total += pages;
	figures.interval_ns = COST_SHARE * (pause + user->fault_ns);
	if (figures.interval_ns < figures.period_ns)
		figures.interval_ns = figures.period_ns;
}

/* epoch_commit -- end the running epoch: everything logged so far becomes
 * durable; then user pages are protected again and the epoch's console
 * output is sent */
void epoch_commit(void)
{
	epoch_commit_since(time_ns());
}

/* epoch_commit_since -- epoch_commit, its pause counted from `start`, when
 * the scheduler began to stop the other CPUs for it */
void epoch_commit_since(uint64_t start)
{
	struct pagecache_commit cached;
	struct uvm_epoch user;

	arch_trace_event(NVT_EVENT_COMMIT_BEGIN);
	if (!started) {
		commit_heap(); /* power-on's own transactions (see above) */
		arch_trace_event(NVT_EVENT_COMMIT_END);
		return;
	}
#ifdef FERRITE_MUTANT_EARLY_CONSOLE
	console_release();
#endif
	pagecache_write_back(&cached);
	stamp_root();
	commit_heap();
	pagecache_committed();
	snapshot_after_commit();
	uvm_epoch_end(&user);
#ifndef FERRITE_MUTANT_EARLY_CONSOLE
	console_release();
#endif
	hostlink_release();
	arch_trace_event(NVT_EVENT_COMMIT_END);
	last_commit_ns = time_ns();
	requested = false;
	count(start, &user, &cached);
}

/* epoch_power_on_done -- say how long the power-on took, from the
 * kernel's first instruction; then the power-on's log lines and the
 * output committed before the power went reach the UART */
void epoch_power_on_done(void)
{
	uint64_t cycles;
	struct os_stats st;

	if (powered_on)
		return;
	powered_on = true;
	cycles = arch_cycles() - kernel_entry_tsc;
	if (heap_genesis()) {
		pr_info("ferrite: genesis complete in %llu us\n",
			(unsigned long long)(time_cycles_to_ns(cycles) / 1000));
	} else {
		figures.resume_cycles = cycles;
		figures.resume_ns = time_cycles_to_ns(cycles);
		os_stats(&kheap, &st);
		pr_info("ferrite: resumed at epoch %llu (rolled back %llu records, %llu KiB) in %llu us%s%s\n",
			(unsigned long long)st.epoch,
			(unsigned long long)st.rolled_back,
			(unsigned long long)((st.rolled_back_bytes + 1023) >> 10),
			(unsigned long long)(figures.resume_ns / 1000),
			heap_resumed_from() ? ", from snapshot " : "",
			heap_resumed_from() ? heap_resumed_from() : "");
	}
	printk_flush();
	console_release();
}

/* epoch_figures -- the checkpoint figures of sysinfo */
void epoch_figures(struct fe_sysinfo *info)
{
	info->ckpt_period_ns = figures.period_ns;
	info->ckpt_interval_ns = figures.interval_ns;
	info->pause_last_ns = figures.pause_last_ns;
	info->pause_max_ns = figures.pause_max_ns;
	info->pause_mean_ns = figures.commits ? figures.pause_total_ns / figures.commits : 0;
	info->power_on_commits = figures.commits;
	info->pages_last = figures.pages_last;
	info->pages_mean = figures.commits ? figures.pages_total / figures.commits : 0;
	info->resume_cycles = figures.resume_cycles;
	info->resume_ns = figures.resume_ns;
}
