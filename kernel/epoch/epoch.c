/*
 * epoch.c -- the epoch: the kernel's one long transaction, when it commits,
 * and what every commit does.
 *
 * The kernel runs one objstore transaction at a time, an epoch: kernel code
 * logs each range before its first write in the epoch (heap_log, KLOG),
 * user pages are written back from the DRAM cache by each commit
 * (uvm/pagecache.c; without it, logged by their first write fault:
 * uvm/uvm.c), and a power cut returns the whole heap to the last commit.
 * This file owns the epoch's life, and it alone commits the heap
 * (tools/check-calls keeps it so): callers see epoch_reserve_entry at a
 * kernel entry, epoch_safe_point and epoch_idle_point at a safe point,
 * and epoch_commit.
 *
 * When. A commit happens only at a safe point -- no thread inside the
 * kernel (entry/entry.c) -- and then:
 *  - periodically while anything changed: every `ckpt=USEC` (default
 *    1 ms; 0: never), stretched when checkpoints get expensive so that
 *    their work -- the commit's pause plus the write faults that log user
 *    pages -- stays about 1/COST_SHARE of the time: the next periodic
 *    commit comes no sooner than COST_SHARE times the last epoch's cost;
 *  - when the log could not take one more kernel entry
 *    (HEAP_ENTRY_LOG_MAX), or on virtio-pmem the journal one more group's
 *    worth (durable_group_full): epoch_reserve_entry asks, and the entry
 *    backs out;
 *  - when something asks (heap_request_commit: SYS_SYNC, a full written
 *    set or DRAM cache, a writer waiting for output room, a snapshot);
 *  - when every CPU would go idle with anything changed, or one would while
 *    output waits to be seen (epoch_idle_point).
 *
 * What. epoch_commit is the recipe, in order:
 *  1. stop the other CPUs (smp_stop_others: each parks in its kernel
 *     entry, off the user page tables);
 *  2. save every running thread's registers and CPU time into the heap
 *     (sched_save_running, logged);
 *  3. pagecache_write_back: the user pages written since the last commit
 *     go to the heap, inside the epoch;
 *  4. the kernel root's monotonic clock, commit count and running slot
 *     (stamp_root, logged like every kernel write);
 *  5. heap_commit: flush what the epoch wrote, fence, then one 8-byte
 *     store of the epoch number, flushed and fenced -- THE COMMIT POINT
 *     (objstore/tx.c); the next epoch begins;
 *  6. pagecache_committed: the cache keeps its log for the next write-back;
 *  7. a snapshot asked for (SYS_SNAPSHOT) is taken alone in the epoch
 *     that just began, and committed at once -- a second commit, so that
 *     it holds exactly the state step 5 made durable (snapshot.c);
 *  8. snapshot_after_commit: a bounded step of giving removed snapshots'
 *     pages back (committed with the next epoch), a full area reported;
 *  9. uvm_epoch_end: every user page logged in the epoch (no cache) loses
 *     its write bit, so its next write is logged in the new epoch;
 * 10. durable_committed: the epoch's output to the console and to the
 *     host link may now be seen -- on a device with flush requests
 *     (virtio-pmem), once the flush of its group completed (durable.c).
 * A cut before step 5's store rolls back to the last commit; after it the
 * epoch is durable (and after step 7's, the snapshot), and steps 9 and 10
 * only touch volatile state and the console's durable cursor, which
 * power-on handles (console/console.c).
 *
 * Power-on's own transactions (the boot modules' imports, the power-on
 * record, the power-on snapshot: kernel/main.c) commit here too, before
 * epoch_start: then a commit is only step 5 -- no thread has run, no user
 * page is writable, the monotonic clock is not running yet, and console
 * output waits for the power-on's own lines (epoch_power_on_done).
 *
 * docs/checkpoints.md tells the whole story.
 */
#include <stdlib.h>

#include "arch/arch.h"
#include "core/cmdline.h"
#include "core/heap.h"
#include "core/panic.h"
#include "core/printk.h"
#include "core/smp.h"
#include "core/time.h"
#include "console/console.h"
#include "epoch/durable.h"
#include "epoch/epoch.h"
#include "epoch/snapshot.h"
#include "ferrite/nvmtrace.h"
#include "hostlink/hostlink.h"
#include "obj/kobj.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/pagecache.h"
#include "uvm/uvm.h"

#define CKPT_DEFAULT_US 1000           /* commit every 1 ms while dirty */
#define CKPT_MAX_US 10000000           /* ckpt= at most 10 s */
#define COST_SHARE 20                  /* checkpoints take ~<= 1/20 of the time */

/* Volatile: rebuilt at every power-on. */
static bool started;                   /* epoch_start ran: the system runs */
static bool powered_on;                /* epoch_power_on_done ran */
static uint64_t last_commit_ns;
static bool user_unlogged;             /* nopersist: measurement only */

/* Checkpoint figures of this power-on (sysinfo reports them). */
static struct {
	uint64_t period_ns;            /* ckpt=; 0: no periodic commits */
	uint64_t interval_ns;          /* the period, stretched by the last epoch's cost */
	uint64_t commits;
	uint64_t pause_last_ns, pause_max_ns, pause_total_ns;
	uint64_t stop_last_ns, stop_max_ns; /* stopping the other CPUs */
	uint64_t pages_last, pages_total;
	uint64_t resume_cycles, resume_ns;
} figures;

/* ckpt_period -- ckpt=USEC from the command line, in ns */
static uint64_t ckpt_period(void)
{
	uint64_t us;

	if (cmdline_number("ckpt", 0, CKPT_MAX_US, CKPT_DEFAULT_US, &us))
		pr_warn("cmdline: ckpt=%s is not a number of microseconds from 0 to %u; using %u\n",
			cmdline_get("ckpt"), CKPT_MAX_US, CKPT_DEFAULT_US);
	return us * 1000ull;
}

/* epoch_start -- the system starts running: check the log, read ckpt=
 * and nopersist */
void epoch_start(void)
{
	struct os_stats stats;

	os_stats(&kheap, &stats);
	if (stats.log_size < 2 * HEAP_ENTRY_LOG_MAX)
		panic("epoch: the undo log (%llu KiB) is smaller than two kernel entries (%u KiB); use a larger NVM",
		      (unsigned long long)(stats.log_size >> 10), 2 * HEAP_ENTRY_LOG_MAX >> 10);
	user_unlogged = cmdline_has("nopersist");
	if (user_unlogged)
		pr_warn("nopersist: for measurement only: user pages are mapped onto the NVM and never logged, no periodic commits; a power cut may leave user memory newer than the last commit\n");
	figures.period_ns = user_unlogged ? 0 : ckpt_period();
	figures.interval_ns = figures.period_ns;
	last_commit_ns = time_ns();
	durable_power_on_done();
	started = true;
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
	return HEAP_ENTRY_LOG_MAX + pagecache_log_need();
}

/* log_short -- whether the log could not take one more kernel entry */
static bool log_short(void)
{
	return heap_log_free() < epoch_log_keep();
}

/* epoch_reserve_entry -- at a kernel entry: whether the log can take one
 * more; if not, a commit is asked for and the entry backs out */
bool epoch_reserve_entry(void)
{
	if (!log_short() && !durable_group_full())
		return true;
	heap_request_commit();
	return false;
}

/* interval_over -- whether the periodic commit's interval has passed */
static bool interval_over(void)
{
	return figures.period_ns && time_ns() - last_commit_ns >= figures.interval_ns;
}

/* changed -- whether the running epoch changed anything, as far as known:
 * logged a range, or a cached user page was found written */
static bool changed(void)
{
	struct os_stats st;

	os_stats(&kheap, &st);
	return st.log_used != 0 || pagecache_written();
}

/* stamp_root -- the kernel root's part of the commit: the clock, the count,
 * and the thread that runs first after a power cut */
static void stamp_root(void)
{
	struct pctx *running = sched_current();

	KLOG(&kroot->mono_ns);
	kroot->mono_ns = time_mono_ns();
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
static void count(uint64_t start, uint64_t stop, const struct uvm_epoch *user,
		  const struct pagecache_commit *cached)
{
	uint64_t pages = user->pages + cached->pages;
	uint64_t pause = last_commit_ns - start;

	figures.commits++;
	figures.pause_last_ns = pause;
	figures.pause_total_ns += pause;
	if (pause > figures.pause_max_ns)
		figures.pause_max_ns = pause;
	figures.stop_last_ns = stop;
	if (stop > figures.stop_max_ns)
		figures.stop_max_ns = stop;
	figures.pages_last = pages;
	figures.pages_total += pages;
	figures.interval_ns = COST_SHARE * (pause + user->fault_ns);
	if (figures.interval_ns < figures.period_ns)
		figures.interval_ns = figures.period_ns;
}

/* epoch_commit -- end the running epoch at a safe point (the recipe at
 * the top): everything logged so far becomes durable, then user pages
 * are protected again and the epoch's output is let out */
void epoch_commit(struct trap_frame *tf)
{
	struct pagecache_commit cached;
	struct uvm_epoch user;
	uint64_t start, stop;

	arch_trace_event(NVT_EVENT_COMMIT_BEGIN);
	if (!started) {
		commit_heap(); /* power-on's own transactions (see above) */
		durable_committed(false);
		arch_trace_event(NVT_EVENT_COMMIT_END);
		return;
	}
	start = time_ns();
	stop = smp_stop_others();
	sched_save_running(tf);
#ifdef FERRITE_MUTANT_EARLY_CONSOLE
	console_release();
#endif
	pagecache_write_back(&cached);
	stamp_root();
	commit_heap();
	pagecache_committed();
	if (snapshot_take_pending())
		commit_heap();
	snapshot_after_commit();
	uvm_epoch_end(&user);
#ifndef FERRITE_MUTANT_EARLY_CONSOLE
	durable_committed(true);
#else
	hostlink_release();
#endif
	arch_trace_event(NVT_EVENT_COMMIT_END);
	last_commit_ns = time_ns();
	count(start, stop, &user, &cached);
}

/* epoch_safe_point -- at a safe point (tf: this CPU's thread, NULL if it
 * runs none): commit if asked for, if the log is short, or if the
 * interval is over and anything changed; whether it committed. Once the
 * interval is over, the DRAM cache's written pages are collected first
 * (pagecache_sweep); if nothing changed since the last commit, no commit
 * will come to release the link's output -- which was made by committed
 * state -- so it goes now. */
bool epoch_safe_point(struct trap_frame *tf)
{
	durable_poll();
	if (!heap_commit_requested() && !log_short()) {
		if (!interval_over())
			return false;
		pagecache_sweep();
		if (!changed()) {
			durable_release_link();
			return false;
		}
	}
	epoch_commit(tf);
	return true;
}

/* epoch_idle_point -- this CPU found no thread to run: commit if anything
 * changed and the whole system would idle (no other CPU runs a thread) or
 * output waits to be seen; whether it committed. (A CPU idling beside a
 * busy one otherwise leaves the epoch to the periodic rule: waking at
 * every tick, it must not commit at every tick.) */
bool epoch_idle_point(bool others_run)
{
	durable_poll();
	pagecache_sweep();
	if (!changed() || (others_run && !console_output_waiting() &&
			   !hostlink_output_waiting()))
		return false;
	epoch_commit(NULL);
	return true;
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
	info->stop_last_ns = figures.stop_last_ns;
	info->stop_max_ns = figures.stop_max_ns;
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
