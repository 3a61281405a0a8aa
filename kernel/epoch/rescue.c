/*
 * rescue.c -- the console's shell, kept alive; and the safe power-on
 * (`safe` on the command line): every saved process held, a rescue shell
 * on the console, and SYS_RESUME to let them all run on.
 *
 * The console always has a shell. As init does for a getty, the kernel
 * starts a fresh bin/osh, and says why, whenever no shell holds the
 * console: at a power-on that finds none among the saved processes, and
 * whenever the last one ends, for any reason (rescue_keep_shell). A shell
 * here is a live process named as bin/osh's are, on the console (not a
 * `run` of the host link, whose console is a channel), and not held by a
 * safe power-on. A shell that cannot start (no bin/osh, a full heap) is
 * said so, with the way out; one that keeps ending at once is started
 * again QUICK_ENDS_MAX times in a row at most.
 *
 * Every power-on carries on every process, so a state that misbehaves --
 * a program that fills the heap or the process table, a service in a
 * loop -- comes back at every power-on too. `safe` on the command line is
 * the way out. The heap is opened as always (rollback included), but no
 * thread of a process saved in it runs: each is *held*. The scheduler
 * passes held threads by (task/sched.c: sched_hold), so their registers, memory and
 * blocked calls stay as committed: nothing is killed, woken early or
 * re-issued. A fresh bin/osh,
 * the rescue shell, starts on the console, where `ps` shows the held
 * processes, `kill` ends any of them (whoever its parent), the catalogue
 * can be read and mended, and `resume` (SYS_RESUME) lets them run on.
 *
 * Holding is volatile, like the rest of the scheduler's state: the ids of
 * the held processes, by slot, in DRAM. Commits go on as ever, and the
 * events a held thread waits for still reach it (a message, a child's
 * end, a deadline passed marks it runnable, logged like any wake-up; it
 * re-issues its call once it runs), so the heap is at every commit a
 * state the next power-on can run. A power cut during a safe power-on and
 * a normal power-on after it therefore resume every process, as if the
 * held ones had merely been given no CPU.
 *
 * What a rescue needs, when a runaway program took everything, is kept
 * for it:
 *  - room: the rescue reserve, an anonymous object of KRESERVE_PAGES pages
 *    (app root OS_APP_ROOT_RESERVE) that every power-on and SYS_RESUME
 *    fill from free pages, and that only a safe power-on deletes, just
 *    before it starts the rescue shell;
 *  - a slot: SYS_SPAWN never takes the process table's last free slot
 *    (proc.c);
 *  - the console: held readers consume nothing, since they do not run;
 *    Ctrl-C goes to the rescue side's foreground, which is volatile too,
 *    so the saved foreground stays as committed (console/console.c).
 *
 * The rescue shell is a process like any other, persistent, so it is
 * marked (KPROC_RESCUE) for the moment its safe power-on is over: at
 * SYS_RESUME, or at the next power-on if the power went first. Then one
 * rule (dismiss) keeps a single shell on the console: if a saved shell is
 * alive -- a process named osh without the mark -- the rescue shell ends
 * and the saved one has the console; otherwise the rescue shell stays,
 * unmarked, as the console's shell.
 *
 * docs/checkpoints.md ("Safe power-on") tells the story for users.
 */
#include <stdio.h>
#include <string.h>

#include "console/console.h"
#include "core/cmdline.h"
#include "core/heap.h"
#include "core/printk.h"
#include "core/time.h"
#include "epoch/epoch.h"
#include "epoch/rescue.h"
#include "errstr.h"
#include "ferrite/errors.h"
#include "obj/kobj.h"
#include "objstore/object.h"
#include "task/proc.h"
#include "task/sched.h"

#define RESERVE_BYTES (KRESERVE_PAGES * (uint64_t)FE_PAGE_SIZE)
#define QUICK_END_NS 2000000000ull     /* a shell ending this soon after its start ended at once */
#define QUICK_ENDS_MAX 5

/* Volatile: the console's shell as this power-on kept it. */
static bool shell_looked;              /* rescue_keep_shell ran once */
static uint64_t ends_seen;             /* proc_ends() when it last looked */
static uint64_t started_ns;            /* when it last started a shell; 0: none */
static unsigned quick_ends;            /* shells it started that ended at once, in a row */

/* --- the rescue reserve ------------------------------------------------- */

/* reserve_fill -- take free pages into the reserve (made if missing) until
 * it holds KRESERVE_PAGES; short of free pages, say so */
static void reserve_fill(void)
{
	uint64_t id = os_app_root(&kheap, OS_APP_ROOT_RESERVE), page;
	unsigned pages = 0;
	int err = 0;

	if (!id) {
		err = os_obj_create(&kheap, OS_TYPE_ANON, RESERVE_BYTES, &id);
		if (err)
			goto out;
		err = os_app_root_set(&kheap, OS_APP_ROOT_RESERVE, id);
		if (err) {
			os_obj_delete(&kheap, id);
			goto out;
		}
	}
	for (; pages < KRESERVE_PAGES; pages++) {
		err = os_obj_page(&kheap, id, pages, true, &page);
		if (err)
			break;
	}
out:
	if (err)
		pr_warn("ferrite: the rescue reserve holds %u of its %u pages (%s): a safe power-on may find no room for its shell\n",
			pages, KRESERVE_PAGES, err_str(err));
}

/* reserve_spend -- give the reserve's pages back to the heap, for the
 * rescue shell */
static void reserve_spend(void)
{
	uint64_t id = os_app_root(&kheap, OS_APP_ROOT_RESERVE);
	int err;

	if (!id)
		return;
	/* Deleted at once, not by the reaper: the rescue shell is made in this
	 * transaction, and KRESERVE_PAGES pages are a small part of its log. */
	err = os_app_root_set(&kheap, OS_APP_ROOT_RESERVE, 0);
	if (!err)
		err = os_obj_delete(&kheap, id);
	if (err)
		pr_warn("ferrite: safe power-on: the rescue reserve stays: %s\n",
			err_str(err));
}

/* --- the rescue shell ----------------------------------------------------- */

/* rescue_shell -- the live rescue shell, NULL if none */
static struct pctx *rescue_shell(void)
{
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct pctx *p = ptable_slot(i);

		if (p && (p->proc->flags & KPROC_RESCUE))
			return p;
	}
	return NULL;
}

/* saved_shell -- a live shell that is not a rescue shell, NULL if none */
static struct pctx *saved_shell(void)
{
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct pctx *p = ptable_slot(i);

		if (p && proc_is_shell(p) && !(p->proc->flags & KPROC_RESCUE))
			return p;
	}
	return NULL;
}

/* dismiss -- the rescue shell's safe power-on is over: it ends (with
 * `detail`) if a saved shell has the console, else it stays as the
 * console's shell; the saved shell, NULL if none */
static struct pctx *dismiss(struct pctx *rescue, const char *detail)
{
	struct pctx *saved = saved_shell();

	if (saved) {
		proc_end(rescue, FE_EXIT_NORMAL, 0, detail);
	} else {
		KLOG(&rescue->proc->flags);
		rescue->proc->flags &= ~KPROC_RESCUE;
	}
	return saved;
}

/* dismiss_left_over -- a rescue shell alive at power-on is left by a safe
 * power-on that ended without SYS_RESUME (a power cut, poweroff) */
static void dismiss_left_over(void)
{
	struct pctx *rescue = rescue_shell(), *saved;
	unsigned long long pid;

	if (!rescue)
		return;
	pid = rescue->proc->pid;
	saved = dismiss(rescue, "a rescue shell, ended at the next power-on");
	if (saved)
		pr_info("ferrite: the rescue shell of an earlier safe power-on (pid %llu) ends: the saved shell (pid %llu) has the console\n",
			pid, (unsigned long long)saved->proc->pid);
	else
		pr_info("ferrite: the rescue shell of an earlier safe power-on (pid %llu) stays: no other shell was saved\n",
			pid);
}

/* --- the console's shell ------------------------------------------------ */

/* console_shell -- a shell that holds the console, NULL if none */
static struct pctx *console_shell(void)
{
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct pctx *p = ptable_slot(i);

		if (p && proc_is_shell(p) && proc_on_console(p) && !sched_held(p))
			return p;
	}
	return NULL;
}

/* emit -- a line on the console, in order with what programs wrote */
static void emit(const char *line)
{
	console_emit(line, strlen(line));
}

/* say_why -- the line that says why a new shell starts on the console */
static void say_why(void)
{
	const struct fe_exit_info *end = proc_console_shell_end();
	char line[200];

	const char *shell = sched_holding() || !cmdline_is("shell", "sh") ? "osh" : "busybox sh";

	if (end->pid)
		snprintf(line, sizeof(line),
			 "ferrite: the console's shell (pid %llu) ended: %s; starting a new %s\n",
			 (unsigned long long)end->pid, end->detail, shell);
	else
		snprintf(line, sizeof(line),
			 "ferrite: no shell holds the console (%u processes run); starting %s\n",
			 ptable_count(), shell);
	emit(line);
}

/* rescue_keep_shell -- the console always has a shell: if none holds it
 * (looked at once per power-on, then whenever a process ended), a fresh
 * osh starts, and the console says why */
void rescue_keep_shell(void)
{
	struct pctx *p;

	if (shell_looked && proc_ends() == ends_seen)
		return;
	shell_looked = true;
	ends_seen = proc_ends();
	if (console_shell())
		return;
	/* None holds it, so the shell started last has ended: at once? */
	quick_ends = started_ns && time_mono_ns() - started_ns < QUICK_END_NS ?
		     quick_ends + 1 : 0;
	if (quick_ends >= QUICK_ENDS_MAX) {
		emit("ferrite: shells ended as soon as they started, again and again: not starting another now (power on with `safe` on the command line for a rescue shell)\n");
		return;
	}
	if (ptable_count())
		say_why();
	p = proc_start_shell(sched_holding() ? KPROC_RESCUE : 0);
	if (p && p->lx)
		console_set_foreground(p->proc->pid); /* busybox sh: Ctrl-C and Ctrl-Z for its jobs */
	started_ns = p ? time_mono_ns() : 0;
	if (!p)
		emit("ferrite: the console has no shell: power on with `safe` on the command line (every process held, and a rescue shell on a reserve of the heap), or with `import` if bin/osh is gone\n");
}

/* --- power-on and resume ------------------------------------------------ */

/* plural -- "es" unless n is 1 */
static const char *plural(unsigned n)
{
	return n == 1 ? "" : "es";
}

/* rescue_power_on -- dismiss a rescue shell left over; then hold every saved
 * process and start a rescue shell (`safe`), or fill the reserve */
void rescue_power_on(void)
{
	bool safe = cmdline_has("safe");
	unsigned saved;

	dismiss_left_over();
	/* The reserve and the rescue shell are made of free pages: what waits
	 * in the reap queue (a dismissed rescue shell) is freed first. */
	kobj_reap(epoch_log_keep());
	saved = ptable_count();
	if (!safe || !saved) {
		if (safe)
			pr_info("ferrite: safe power-on: no saved process to hold\n");
		reserve_fill();
		return;
	}
	sched_hold();
	reserve_spend();
	if (!proc_start_shell(KPROC_RESCUE)) {
		pr_err("ferrite: safe power-on: no rescue shell; %u saved process%s held (power on without `safe` to run them)\n",
		       saved, plural(saved));
		return;
	}
	pr_info("ferrite: safe power-on: %u saved process%s held; `ps` lists them, `kill PID` ends one, `resume` lets them run\n",
		saved, plural(saved));
}

/* say_resumed -- SYS_RESUME's line on the console: how many run on, and
 * which shell has the console (`rescue_pid` 0: there was no rescue shell) */
static void say_resumed(unsigned released, unsigned long long rescue_pid,
			const struct pctx *saved)
{
	char line[200];
	int n = snprintf(line, sizeof(line), "ferrite: resume: %u held process%s run on",
			 released, plural(released));

	if (saved)
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      "; the rescue shell ends, the saved shell (pid %llu) has the console",
			      (unsigned long long)saved->proc->pid);
	else if (rescue_pid)
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      "; no other shell was saved, so the rescue shell (pid %llu) stays",
			      rescue_pid);
	snprintf(line + n, sizeof(line) - (size_t)n, "\n");
	emit(line);
}

/* rescue_resume -- SYS_RESUME: release every held process, refill the
 * reserve, dismiss the rescue shell, and say so on the console */
int64_t rescue_resume(struct pctx *caller)
{
	struct pctx *rescue, *saved = NULL;
	unsigned long long rescue_pid = 0;
	unsigned released;

	if (!sched_holding())
		return -ERR_INVAL;
	released = sched_release();
	reserve_fill();
	rescue = rescue_shell();
	if (rescue) {
		rescue_pid = rescue->proc->pid;
		saved = dismiss(rescue, "a rescue shell, ended by resume");
	}
	say_resumed(released, rescue_pid, saved);
	return saved && rescue == caller ? SYSCALL_GONE : (int64_t)released;
}
