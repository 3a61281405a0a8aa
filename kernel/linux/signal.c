/*
 * signal.c -- signals within a Linux program: raising them, blocking
 * them, and what the thread does when it takes one.
 *
 * A signal is raised by the program itself (kill, tgkill, tkill, raise),
 * by its interval timer (SIGALRM: alarm, setitimer), by the console
 * (SIGINT on Ctrl-C while its terminal modes have ISIG), or by a fault of
 * its own (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP). A raised signal is
 * discarded at once when ignored (SIG_IGN, or a default of ignoring it);
 * otherwise it stays pending -- the program's (klinux.sig_pending: kill,
 * the timer, Ctrl-C), for any of its threads, or one thread's alone
 * (klxthreads: tgkill, tkill, SIGPIPE) -- until a thread that may take it
 * goes back to user mode with it unblocked (linux_exit_to_user): then its
 * handler runs on a frame pushed on the stack (sigframe.c), or the
 * default action ends the program. A fault's signal is taken at once if
 * a handler is set and it is not blocked; else the fault ends the program
 * as it ends a Ferrite program (entry/fault.c).
 *
 * A thread blocked in a call when a signal it may take is raised is woken
 * (sched_interrupt): its call, issued again, is cut short before it runs
 * (lx_signal_cuts): it returns -EINTR, or -- a call that may restart,
 * with a handler that has SA_RESTART -- it is made again after the
 * handler. Sleeps, poll, select, pause and rt_sigsuspend always return
 * -EINTR, as on Linux. The interval timer's next expiry is a deadline of
 * every blocking call, so a thread blocked on the console wakes for its
 * SIGALRM.
 *
 * Everything here is heap state -- dispositions (struct klxsig), the
 * pending and blocked sets, the alternate stack, the timer (on the
 * monotonic clock, which runs on across power cuts) -- so a handler set
 * before a cut is still set after it, and a pending signal still pending.
 *
 * Each thread has its own mask, alternate stack and rt_sigsuspend mask,
 * and takes its own pending signals before the program's (thread.c keeps
 * them: lx_thread_sig).
 *
 * Not here yet: stopping and continuing (SIGSTOP, SIGTSTP, SIGTTIN and
 * SIGTTOU are ignored: there is no job control), queued real-time
 * signals (a pending signal is one bit), and signals between processes.
 */
#include <stdint.h>
#include <stdio.h>

#include "arch/arch.h"
#include "console/console.h"
#include "core/panic.h"
#include "core/time.h"
#include "epoch/epoch.h"
#include "ferrite/errors.h"
#include "ferrite/syscall.h"
#include "linux/linux.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "task/handle.h"
#include "task/proc.h"
#include "task/ptable.h"
#include "task/sched.h"
#include "uvm/uvm.h"

#define NS 1000000000ull
#define LX_ISIG 0000001u               /* termios c_lflag: Ctrl-C raises SIGINT */

/* me -- the signal state of the thread this CPU runs (thread.c keeps it) */
static struct lx_thread_sig me(const struct klinux *lx)
{
	return lx_thread_sig(lx, sched_current_tid());
}

/* unblocked_somewhere -- whether a thread of p has signal bit `bit` unblocked */
static bool unblocked_somewhere(const struct pctx *p, uint64_t bit)
{
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++)
		if (p->thread[tid] && !(*lx_thread_sig(p->lx, tid).mask & bit))
			return true;
	return false;
}

/* own_pending -- the signals sent to thread t alone (none without a klxthreads) */
static uint64_t own_pending(const struct lx_thread_sig *t)
{
	return t->pending ? *t->pending : 0;
}

/* forget -- pending signal s taken or discarded: out of the program's
 * sets, or (own) out of the thread's */
static void forget(struct klinux *lx, const struct lx_thread_sig *t, bool own, int s)
{
	const uint64_t bit = LX_SIG_BIT(s);
	uint64_t *const sets[] = { own ? t->pending : &lx->sig_pending, own ? NULL : &lx->sig_sent,
				   own ? t->tsent : &lx->sig_tsent };

	for (unsigned i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		if (sets[i] && *sets[i] & bit) {
			KLOG(sets[i]);
			*sets[i] &= ~bit;
		}
}

/* forget_everywhere -- signal s pends no more in p, for any thread */
static void forget_everywhere(struct pctx *p, int s)
{
	forget(p->lx, NULL, false, s);
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++) {
		struct lx_thread_sig t;

		if (!p->thread[tid])
			continue;
		t = lx_thread_sig(p->lx, tid);
		if (t.pending)
			forget(p->lx, &t, true, s);
	}
}

static const char *const names[32] = {
	[LX_SIGHUP] = "SIGHUP", [LX_SIGINT] = "SIGINT", [LX_SIGQUIT] = "SIGQUIT",
	[LX_SIGILL] = "SIGILL", [LX_SIGTRAP] = "SIGTRAP", [LX_SIGABRT] = "SIGABRT",
	[LX_SIGBUS] = "SIGBUS", [LX_SIGFPE] = "SIGFPE", [LX_SIGKILL] = "SIGKILL",
	[LX_SIGUSR1] = "SIGUSR1", [LX_SIGSEGV] = "SIGSEGV", [LX_SIGUSR2] = "SIGUSR2",
	[LX_SIGPIPE] = "SIGPIPE", [LX_SIGALRM] = "SIGALRM", [LX_SIGTERM] = "SIGTERM",
	[LX_SIGSTKFLT] = "SIGSTKFLT", [LX_SIGCHLD] = "SIGCHLD", [LX_SIGCONT] = "SIGCONT",
	[LX_SIGSTOP] = "SIGSTOP", [LX_SIGTSTP] = "SIGTSTP", [LX_SIGTTIN] = "SIGTTIN",
	[LX_SIGTTOU] = "SIGTTOU", [LX_SIGURG] = "SIGURG", [LX_SIGXCPU] = "SIGXCPU",
	[LX_SIGXFSZ] = "SIGXFSZ", [LX_SIGVTALRM] = "SIGVTALRM", [LX_SIGPROF] = "SIGPROF",
	[LX_SIGWINCH] = "SIGWINCH", [LX_SIGIO] = "SIGIO", [LX_SIGPWR] = "SIGPWR",
	[LX_SIGSYS] = "SIGSYS",
};

/* Signals whose default is to do nothing (stopping among them: no job control). */
#define IGNORED_BY_DEFAULT (LX_SIG_BIT(LX_SIGCHLD) | LX_SIG_BIT(LX_SIGCONT) |     \
			    LX_SIG_BIT(LX_SIGURG) | LX_SIG_BIT(LX_SIGWINCH))
/* The signals whose default action stops the program (until SIGCONT) */
#define STOP_BY_DEFAULT (LX_SIG_BIT(LX_SIGSTOP) | LX_SIG_BIT(LX_SIGTSTP) |           \
			 LX_SIG_BIT(LX_SIGTTIN) | LX_SIG_BIT(LX_SIGTTOU))

/* actions -- p's dispositions */
static struct klxsig *actions(const struct klinux *lx)
{
	struct klxsig *a = kobj_data(lx->signals, OS_TYPE_KERNEL, KLXSIG_MAGIC);

	KASSERT(a != NULL); /* Invariant: klinux.signals is a klxsig (kcheck) */
	return a;
}

/* discarded -- whether signal s, raised now, would do nothing at all */
static bool discarded(const struct klxsig *a, int s)
{
	return a->handler[s - 1] == KLXSIG_SIG_IGN ||
	       (a->handler[s - 1] == KLXSIG_SIG_DFL && (IGNORED_BY_DEFAULT & LX_SIG_BIT(s)));
}

/* takeable -- the pending signals the thread this CPU runs may take now:
 * the program's and its own */
static uint64_t takeable(const struct klinux *lx)
{
	const struct lx_thread_sig t = me(lx);

	return (lx->sig_pending | own_pending(&t)) & ~*t.mask;
}

/* lowest -- the lowest signal of a non-empty set */
static int lowest(uint64_t set)
{
	return __builtin_ctzll(set) + 1;
}

/* lx_signal_name -- "SIGSEGV", or "SIGRT5" for real-time signal 32 + 5 */
void lx_signal_name(int s, char *buf, size_t cap)
{
	if (s > 0 && s < 32 && names[s])
		snprintf(buf, cap, "%s", names[s]);
	else
		snprintf(buf, cap, "SIGRT%d", s - 32);
}

/* lx_signals_start -- a new program's dispositions: every one the default */
int lx_signals_start(struct klinux *lx)
{
	void *data;
	uint64_t id;
	int err = kobj_new(OS_TYPE_KERNEL, sizeof(struct klxsig), KLXSIG_MAGIC, &id, &data);

	if (err)
		return err;
	KLOG(&lx->signals);
	lx->signals = id;              /* held by lx from here */
	return 0;
}

/* tell_parent -- p stopped or continued: its parent (a Linux program)
 * hears SIGCHLD, unless it asked not to (SA_NOCLDSTOP), and its wait
 * looks again */
static void tell_parent(struct pctx *p)
{
	struct pctx *parent = ptable_by_pid(p->proc->parent_pid);

	if (!parent || !parent->lx)
		return;
	sched_wake(KWAIT_CHILD, parent->proc_id);
	if (!(actions(parent->lx)->flags[LX_SIGCHLD - 1] & LX_SA_NOCLDSTOP))
		lx_signal_raise(parent, LX_SIGCHLD, LX_BY_KERNEL);
}

/* set_stopped -- p stops (by signal s) or goes on (s 0): KPROC_STOPPED,
 * which the scheduler reads, and the news for its parent's wait */
static void set_stopped(struct pctx *p, int s)
{
	struct klinux *lx = p->lx;

	KLOG(&p->proc->flags);
	KLOG(&lx->sig_flags);
	lx->sig_flags &= ~(KLINUX_SIG_STOP_NEWS | KLINUX_SIG_CONT_NEWS | KLINUX_SIG_STOPSIG);
	if (s) {
		p->proc->flags |= KPROC_STOPPED;
		lx->sig_flags |= KLINUX_SIG_STOP_NEWS | (uint32_t)s << KLINUX_SIG_STOPSIG_SHIFT;
	} else {
		p->proc->flags &= ~KPROC_STOPPED;
		lx->sig_flags |= KLINUX_SIG_CONT_NEWS;
	}
	tell_parent(p);
}

/* lx_stop_news -- p's stop or continuation its parent's wait has not said
 * yet: the signal that stopped it, or SIGCONT; 0 if none. Taken (said)
 * unless `keep`. */
int lx_stop_news(struct pctx *p, bool keep)
{
	struct klinux *lx = p->lx;
	int s = lx->sig_flags & KLINUX_SIG_STOP_NEWS ?
		(int)((lx->sig_flags & KLINUX_SIG_STOPSIG) >> KLINUX_SIG_STOPSIG_SHIFT) :
		lx->sig_flags & KLINUX_SIG_CONT_NEWS ? LX_SIGCONT : 0;

	if (s && !keep) {
		KLOG(&lx->sig_flags);
		lx->sig_flags &= ~(KLINUX_SIG_STOP_NEWS | KLINUX_SIG_CONT_NEWS);
	}
	return s;
}

/* lx_signal_raise -- signal s (1..64) is raised for program p by `by`:
 * pending unless it does nothing (the first raising's siginfo kept); a
 * thread blocked in a call woken to take it */
void lx_signal_raise(struct pctx *p, int s, enum lx_sender by)
{
	struct klinux *lx = p->lx;
	const uint64_t bit = LX_SIG_BIT(s);

	/* SIGCONT continues a stopped program whatever it does with the
	 * signal, and takes back the stops pending; a stop takes back a
	 * pending SIGCONT; SIGKILL ends even a stopped program */
	if (s == LX_SIGCONT) {
		for (int stop = LX_SIGSTOP; stop <= LX_SIGTTOU; stop++)
			forget_everywhere(p, stop);
		if (p->proc->flags & KPROC_STOPPED)
			set_stopped(p, 0);
	} else if (STOP_BY_DEFAULT & bit) {
		forget_everywhere(p, LX_SIGCONT);
	} else if (s == LX_SIGKILL && p->proc->flags & KPROC_STOPPED) {
		KLOG(&p->proc->flags);
		p->proc->flags &= ~KPROC_STOPPED;
	}
	if (discarded(actions(lx), s) || (lx->sig_pending & bit))
		return;
	KLOG(&lx->sig_pending);
	lx->sig_pending |= bit;
	if (by == LX_BY_KILL) {
		KLOG(&lx->sig_sent);
		lx->sig_sent |= bit;
	} else if (by == LX_BY_TKILL) {
		KLOG(&lx->sig_tsent);
		lx->sig_tsent |= bit;
	}
	if (unblocked_somewhere(p, bit))
		sched_interrupt(p);
}

/* lx_signal_raise_thread -- signal s raised for p's thread `tid` alone
 * (tgkill, tkill, SIGPIPE): pending for it unless it does nothing; the
 * program's while it has one thread that never cloned */
void lx_signal_raise_thread(struct pctx *p, unsigned tid, int s, enum lx_sender by)
{
	struct klinux *lx = p->lx;
	const struct lx_thread_sig t = lx_thread_sig(lx, tid);
	const uint64_t bit = LX_SIG_BIT(s);

	if (!t.pending) {
		lx_signal_raise(p, s, by);
		return;
	}
	if (discarded(actions(lx), s) || (*t.pending & bit))
		return;
	KLOG(t.pending);
	*t.pending |= bit;
	if (by == LX_BY_TKILL) {
		KLOG(t.tsent);
		*t.tsent |= bit;
	}
	if (!(*t.mask & bit))
		sched_interrupt(p);
}

/* alarm_due -- raise SIGALRM if p's interval timer ran out, and set it
 * for the next interval (a timer that fell behind skips to the future) */
static void alarm_due(struct pctx *p)
{
	struct klinux *lx = p->lx;
	uint64_t now;

	if (!lx->alarm_ns)
		return;                /* no timer: no clock read on every call */
	now = time_mono_ns();
	if (now < lx->alarm_ns)
		return;
	KLOG(&lx->alarm_ns);
	if (!lx->alarm_interval_ns)
		lx->alarm_ns = 0;
	else if (lx->alarm_ns + lx->alarm_interval_ns > now)
		lx->alarm_ns += lx->alarm_interval_ns;
	else
		lx->alarm_ns = now + lx->alarm_interval_ns;
	if (!lx->alarm_ns)
		lx->alarm_interval_ns = 0;
	lx_signal_raise(p, LX_SIGALRM, LX_BY_KERNEL);
}

/* interrupted_always -- calls a signal cuts short with -EINTR even under
 * SA_RESTART, as Linux's do */
static bool interrupted_always(uint64_t nr)
{
	return nr == LX_nanosleep || nr == LX_clock_nanosleep || nr == LX_poll ||
	       nr == LX_ppoll || nr == LX_select || nr == LX_pselect6 ||
	       nr == LX_pause || nr == LX_rt_sigsuspend;
}

/* may_block -- whether call c can block, so that a signal cuts it short:
 * of futex only a wait (a wake cut short would be lost), of fcntl
 * F_SETLKW, flock without LOCK_NB */
static bool may_block(const struct lxcall *c)
{
	const uint64_t nr = c->nr, futex_op = c->arg[1] & LX_FUTEX_CMD_MASK;

	if (nr == LX_futex)
		return futex_op == LX_FUTEX_WAIT || futex_op == LX_FUTEX_WAIT_BITSET;
	if (nr == LX_fcntl)
		return c->arg[1] == LX_F_SETLKW;
	if (nr == LX_flock)
		return !(c->arg[1] & LX_LOCK_NB);
	return interrupted_always(nr) || nr == LX_read || nr == LX_readv ||
	       nr == LX_write || nr == LX_writev || nr == LX_wait4;
}

/* lx_signal_cuts -- before call c runs: raise a due SIGALRM; if the call
 * may block and a signal waits to be taken, cut the call short (see the
 * top): -EINTR, or -ERESTARTSYS when it is made again after the handler;
 * 0 if it runs */
int64_t lx_signal_cuts(struct lxcall *c)
{
	struct klinux *lx = c->lx;
	const struct klxsig *a;
	int s;

	alarm_due(c->p);
	if (!may_block(c) || !takeable(lx))
		return 0;
	a = actions(lx);
	s = lowest(takeable(lx));
	if ((a->handler[s - 1] == KLXSIG_SIG_DFL && STOP_BY_DEFAULT & LX_SIG_BIT(s)) ||
	    (!interrupted_always(c->nr) && a->handler[s - 1] > KLXSIG_SIG_IGN &&
	     (a->flags[s - 1] & LX_SA_RESTART))) {
		arch_syscall_restart(c->tf); /* made again after the handler (or the stop) */
		return -LX_ERESTARTSYS;
	}
	arch_syscall_set_result(c->tf, -LX_EINTR);
	return -LX_EINTR;
}

/* lx_signal_blocked -- call c blocked: it also wakes when SIGALRM is due,
 * if that signal would be taken */
void lx_signal_blocked(struct lxcall *c)
{
	const struct klinux *lx = c->lx;

	if (lx->alarm_ns && !(*me(lx).mask & LX_SIG_BIT(LX_SIGALRM)) &&
	    !discarded(actions(lx), LX_SIGALRM))
		sched_block_deadline(lx->alarm_ns);
}

/* end_by -- signal s's default action, raised by `by`: the end of program p */
static void end_by(struct pctx *p, int s, enum lx_sender by)
{
	char name[16];

	if (s == LX_SIGINT && by == LX_BY_KERNEL) {
		proc_end(p, FE_EXIT_INTERRUPT, 0, "interrupted (Ctrl-C)");
		return;
	}
	lx_signal_name(s, name, sizeof(name));
	proc_end(p, FE_EXIT_KILLED, s, name);
}

/* sender -- who raised pending signal s: of the thread's own (own) or the program's */
static enum lx_sender sender(const struct klinux *lx, const struct lx_thread_sig *t, bool own,
			     int s)
{
	if (own)
		return *t->tsent & LX_SIG_BIT(s) ? LX_BY_TKILL : LX_BY_KERNEL;
	return lx->sig_sent & LX_SIG_BIT(s) ? LX_BY_KILL :
	       lx->sig_tsent & LX_SIG_BIT(s) ? LX_BY_TKILL : LX_BY_KERNEL;
}

/* info_of -- the siginfo of pending signal s, raised by `by` */
static struct lx_siginfo info_of(const struct pctx *p, int s, enum lx_sender by)
{
	const struct klinux *lx = p->lx;
	struct lx_siginfo info = { .signo = s, .code = LX_SI_KERNEL };

	if (by != LX_BY_KERNEL) {
		info.code = by == LX_BY_KILL ? LX_SI_USER : LX_SI_TKILL;
		info.addr = p->proc->pid; /* si_pid; si_uid (0) above it */
	} else if (lx->fault_code && s == (int)(lx->fault_code >> 16)) {
		info.code = (int32_t)(lx->fault_code & 0xffff);
		info.addr = lx->fault_addr;
	}
	return info;
}

/* take -- the thread of tf takes pending signal s of program p; whether
 * the program goes on (not ended by it) */
static bool take(struct trap_frame *tf, struct pctx *p, int s)
{
	struct klinux *lx = p->lx;
	struct klxsig *a = actions(lx);
	const struct lx_thread_sig t = me(lx);
	const bool own = own_pending(&t) & LX_SIG_BIT(s); /* a thread's own go first, as on Linux */
	const enum lx_sender by = sender(lx, &t, own, s);
	const struct lx_siginfo info = info_of(p, s, by);
	const struct lx_handler h = { a->handler[s - 1], a->restorer[s - 1], a->flags[s - 1] };
	uint64_t back_to = *t.mask;
	char name[16], detail[96];

	forget(lx, &t, own, s);
	if (lx->fault_code >> 16 == (uint32_t)s) {
		KLOG(&lx->fault_code);
		lx->fault_code = 0;
	}
	if (h.handler == KLXSIG_SIG_IGN ||
	    (h.handler == KLXSIG_SIG_DFL && (IGNORED_BY_DEFAULT & LX_SIG_BIT(s))))
		return true;
	if (h.handler == KLXSIG_SIG_DFL && STOP_BY_DEFAULT & LX_SIG_BIT(s)) {
		set_stopped(p, s); /* this thread runs no more (sched_goes_on) */
		return false;
	}
	if (h.handler == KLXSIG_SIG_DFL) {
		end_by(p, s, by);
		return false;
	}
	if (*t.flags & t.suspended) { /* rt_sigsuspend's mask was for the wait */
		back_to = *t.suspend_mask;
		KLOG(t.flags);
		*t.flags &= ~t.suspended;
	}
	if (!(h.flags & LX_SA_RESTORER) || lx_frame_push(tf, p, &h, &info, back_to)) {
		lx_signal_name(s, name, sizeof(name));
		snprintf(detail, sizeof(detail), "SIGSEGV: no room for the frame of %s below %#llx",
			 name, (unsigned long long)arch_frame_sp(tf));
		proc_end(p, FE_EXIT_KILLED, LX_SIGSEGV, detail);
		return false;
	}
	KLOG(t.mask);
	*t.mask = (back_to | a->mask[s - 1] |
		   (h.flags & LX_SA_NODEFER ? 0 : LX_SIG_BIT(s))) & ~KLINUX_SIG_UNBLOCKABLE;
	if (h.flags & LX_SA_RESETHAND) {
		KLOG(&a->handler[s - 1]);
		a->handler[s - 1] = KLXSIG_SIG_DFL;
	}
	return true;
}

/* linux_exit_to_user -- the thread of tf, of Linux program p, goes back to
 * user mode: a due SIGALRM raised, then the signals it may take taken */
void linux_exit_to_user(struct trap_frame *tf, struct pctx *p)
{
	const struct kthread *t = p->thread[sched_current_tid()];

	if (t->state != KTHREAD_RUNNABLE || t->wait != KWAIT_NONE)
		return; /* it blocked, or was woken and its call has not run again
			 * yet: the call, issued again, is cut short first */
	alarm_due(p);
	while (takeable(p->lx) && epoch_reserve_entry())
		if (!take(tf, p, lowest(takeable(p->lx))))
			return;
}

/* fault_signal -- the signal and si_code of a CPU exception, 0 if none */
static int fault_signal(const struct arch_fault *f, int *code)
{
	switch (f->kind) {
	case FE_FAULT_PAGE:
		*code = f->present ? LX_SEGV_ACCERR : LX_SEGV_MAPERR;
		return LX_SIGSEGV;
	case FE_FAULT_PROTECTION:
	case FE_FAULT_SEGMENT:
	case FE_FAULT_STACK:
	case FE_FAULT_CONTROL:
		*code = LX_SI_KERNEL;
		return LX_SIGSEGV;
	case FE_FAULT_INVALID_OPCODE:
		*code = LX_ILL_ILLOPN;
		return LX_SIGILL;
	case FE_FAULT_DIVIDE:
		*code = LX_FPE_INTDIV;
		return LX_SIGFPE;
	case FE_FAULT_FPU:
	case FE_FAULT_SIMD:
		*code = LX_SI_KERNEL;
		return LX_SIGFPE;
	case FE_FAULT_BREAKPOINT:
	case FE_FAULT_DEBUG:
		*code = LX_TRAP_BRKPT;
		return LX_SIGTRAP;
	case FE_FAULT_ALIGNMENT:
		*code = LX_BUS_ADRALN;
		return LX_SIGBUS;
	default:
		*code = LX_SI_KERNEL;
		return LX_SIGSEGV;
	}
}

/* linux_fault -- CPU exception f of Linux program p: its signal raised if
 * a handler takes it now (delivered on the way back to user mode);
 * whether it was (else the fault ends the program) */
bool linux_fault(struct pctx *p, const struct arch_fault *f)
{
	struct klinux *lx = p->lx;
	int code, s = fault_signal(f, &code);

	if (actions(lx)->handler[s - 1] <= KLXSIG_SIG_IGN || (*me(lx).mask & LX_SIG_BIT(s)))
		return false;
	KLOG(&lx->fault_addr);
	lx->fault_addr = f->kind == FE_FAULT_PAGE ? f->addr : 0;
	KLOG(&lx->fault_code);
	lx->fault_code = (uint32_t)s << 16 | ((uint32_t)code & 0xffff);
	lx_signal_raise(p, s, LX_BY_KERNEL);
	return true;
}

/* lx_signals_exec -- an execve: every handled signal back to its default
 * (the new program has none of the old one's handlers); the ignored stay
 * ignored, and masks, pending signals and the timer stay, as on Linux */
void lx_signals_exec(struct klinux *lx)
{
	struct klxsig *a = actions(lx);

	for (unsigned i = 0; i < KLINUX_SIGNALS; i++) {
		if (a->handler[i] <= KLXSIG_SIG_IGN)
			continue;
		KLOG(&a->handler[i]);
		a->handler[i] = KLXSIG_SIG_DFL;
		KLOG(&a->restorer[i]);
		a->restorer[i] = 0;
		KLOG(&a->mask[i]);
		a->mask[i] = 0;
		KLOG(&a->flags[i]);
		a->flags[i] = 0;
	}
}

/* signal_group -- signal s (0: none) to every Linux program of group
 * `pgid` in session `sid`; how many there were */
static unsigned signal_group(uint64_t pgid, uint64_t sid, int s, enum lx_sender by)
{
	unsigned n = 0;

	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct pctx *q = ptable_slot(i);

		if (!q || !q->lx || lx_pgid(q) != pgid || lx_sid(q) != sid)
			continue;
		n++;
		if (s)
			lx_signal_raise(q, s, by);
	}
	return n;
}

/* lx_ctrl_c -- the console's hook for Ctrl-C typed to foreground Linux
 * program p: SIGINT if its terminal modes have ISIG, else a byte it reads */
enum console_intr lx_ctrl_c(struct pctx *p, char c)
{
	if (!(p->lx->termios.lflag & LX_ISIG))
		return CONSOLE_INTR_BYTE;
	/* Ctrl-Z stops only a job a job-control shell gave the console
	 * (tcsetpgrp), which is there to take it back: osh, which started
	 * p, has no jobs, and would wait for a stopped p for ever */
	if (c == CONSOLE_CTRL_Z && !(kroot->console_pgrp &&
			   lx_group_exists(kroot->console_pgrp, lx_sid(p))))
		return CONSOLE_INTR_BYTE;
	/* to the console's foreground group: a shell's pipeline, or the job
	 * a job-control shell gave the console */
	signal_group(lx_console_pgrp(p), lx_sid(p), c == CONSOLE_CTRL_Z ? LX_SIGTSTP : LX_SIGINT,
		     LX_BY_KERNEL);
	return CONSOLE_INTR_SIGNAL;
}

/* --- the calls ------------------------------------------------------------ */

/* valid -- whether s names a signal */
static bool valid(uint64_t s)
{
	return s >= 1 && s <= LX_NSIG;
}

/* rt_sigaction (sig, act, oact, sigsetsize) */
int64_t lx_rt_sigaction(struct lxcall *c)
{
	const uint64_t s = c->arg[0], act = c->arg[1], oact = c->arg[2];
	struct klxsig *a = actions(c->lx);
	struct lx_sigaction old, new;
	int err;

	if (c->arg[3] != sizeof(uint64_t) || !valid(s) ||
	    (act && (LX_SIG_BIT(s) & KLINUX_SIG_UNBLOCKABLE)))
		return -LX_EINVAL;
	if (act && (err = uvm_copy_in(&c->p->mem, &new, act, sizeof(new))))
		return lx_errno(err);
	if (act && ((new.handler > KLXSIG_SIG_IGN && new.handler >= FE_USER_TOP) ||
		    new.restorer >= FE_USER_TOP))
		return -LX_EFAULT;
	old = (struct lx_sigaction){ a->handler[s - 1], a->flags[s - 1], a->restorer[s - 1],
				     a->mask[s - 1] };
	if (oact && (err = uvm_copy_out(&c->p->mem, oact, &old, sizeof(old))))
		return lx_errno(err);
	if (!act)
		return 0;
	KLOG(&a->handler[s - 1]);
	a->handler[s - 1] = new.handler;
	KLOG(&a->restorer[s - 1]);
	a->restorer[s - 1] = new.restorer;
	KLOG(&a->mask[s - 1]);
	a->mask[s - 1] = new.mask & ~KLINUX_SIG_UNBLOCKABLE;
	KLOG(&a->flags[s - 1]);
	a->flags[s - 1] = (uint32_t)new.flags & KLXSIG_FLAGS;
	if (discarded(a, (int)s)) /* an ignored signal pends no more, for anyone */
		forget_everywhere(c->p, (int)s);
	return 0;
}

/* rt_sigprocmask (how, set, oldset, sigsetsize) */
int64_t lx_rt_sigprocmask(struct lxcall *c)
{
	const uint64_t how = c->arg[0], set = c->arg[1], oldset = c->arg[2];
	struct klinux *lx = c->lx;
	uint64_t mask = *me(lx).mask, given;
	int err;

	if (c->arg[3] != sizeof(uint64_t) || (set && how > LX_SIG_SETMASK))
		return -LX_EINVAL;
	if (set && (err = uvm_copy_in(&c->p->mem, &given, set, sizeof(given))))
		return lx_errno(err);
	if (oldset && (err = uvm_copy_out(&c->p->mem, oldset, &mask, sizeof(mask))))
		return lx_errno(err);
	if (!set)
		return 0;
	mask = how == LX_SIG_BLOCK ? mask | given : how == LX_SIG_UNBLOCK ? mask & ~given : given;
	KLOG(me(lx).mask);
	*me(lx).mask = mask & ~KLINUX_SIG_UNBLOCKABLE;
	return 0;
}

/* rt_sigpending (set, sigsetsize) */
int64_t lx_rt_sigpending(struct lxcall *c)
{
	const struct lx_thread_sig t = me(c->lx);
	const uint64_t pending = (c->lx->sig_pending | own_pending(&t)) & *t.mask;

	if (c->arg[1] != sizeof(uint64_t))
		return -LX_EINVAL;
	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[0], &pending, sizeof(pending)));
}

/* lx_signal_wait_mask -- the mask `mask` for the wait of call c
 * (rt_sigsuspend, ppoll, pselect6), the one before kept -- once, however
 * often the call is issued again -- to come back when the call ends
 * (lx_signal_wait_done) or the handler of a signal that cut it returns;
 * -EINTR if a signal may be taken at once, else 0 */
int64_t lx_signal_wait_mask(struct lxcall *c, uint64_t mask)
{
	const struct lx_thread_sig t = me(c->lx);

	if (!(*t.flags & t.suspended)) {
		KLOG(t.suspend_mask);
		*t.suspend_mask = *t.mask;
		KLOG(t.flags);
		*t.flags |= t.suspended;
	}
	KLOG(t.mask);
	*t.mask = mask & ~KLINUX_SIG_UNBLOCKABLE;
	return takeable(c->lx) ? -LX_EINTR : 0;
}

/* lx_signal_wait_done -- call c, which waited with a mask of its own,
 * ended without a signal: the mask before back */
void lx_signal_wait_done(struct lxcall *c)
{
	const struct lx_thread_sig t = me(c->lx);

	if (!(*t.flags & t.suspended))
		return;
	KLOG(t.mask);
	*t.mask = *t.suspend_mask;
	KLOG(t.flags);
	*t.flags &= ~t.suspended;
}

/* rt_sigsuspend (mask, sigsetsize) -- wait for a signal with `mask`
 * blocked; the mask before goes back once its handler returns */
int64_t lx_rt_sigsuspend(struct lxcall *c)
{
	uint64_t mask;
	int64_t err;

	if (c->arg[1] != sizeof(uint64_t))
		return -LX_EINVAL;
	if ((err = uvm_copy_in(&c->p->mem, &mask, c->arg[0], sizeof(mask))))
		return lx_errno(err);
	err = lx_signal_wait_mask(c, mask);
	return err ? err : lx_sleep_until(c, UINT64_MAX);
}

/* pause () -- wait for a signal */
int64_t lx_pause(struct lxcall *c)
{
	return lx_sleep_until(c, UINT64_MAX);
}

/* sigaltstack (ss, old_ss) */
int64_t lx_sigaltstack(struct lxcall *c)
{
	const uint64_t ss = c->arg[0], old_ss = c->arg[1];
	const struct lx_thread_sig t = me(c->lx);
	const bool on = lx_on_altstack(c->lx, arch_frame_sp(c->tf));
	struct lx_stack old = { .sp = *t.altstack_sp, .size = *t.altstack_size,
				.flags = on ? LX_SS_ONSTACK : *t.altstack_size ? 0 : LX_SS_DISABLE };
	struct lx_stack new;
	int err;

	if (ss && (err = uvm_copy_in(&c->p->mem, &new, ss, sizeof(new))))
		return lx_errno(err);
	if (ss && on)
		return -LX_EPERM;
	if (ss && (uint32_t)new.flags & ~(uint32_t)(LX_SS_DISABLE | LX_SS_AUTODISARM))
		return -LX_EINVAL;
	if (ss && !(new.flags & LX_SS_DISABLE) &&
	    (new.size < LX_MINSIGSTKSZ || new.sp >= FE_USER_TOP || new.size > FE_USER_TOP - new.sp))
		return new.size < LX_MINSIGSTKSZ ? -LX_ENOMEM : -LX_EFAULT;
	if (old_ss && (err = uvm_copy_out(&c->p->mem, old_ss, &old, sizeof(old))))
		return lx_errno(err);
	if (!ss)
		return 0;
	KLOG(t.altstack_sp);
	*t.altstack_sp = new.flags & LX_SS_DISABLE ? 0 : new.sp;
	KLOG(t.altstack_size);
	*t.altstack_size = new.flags & LX_SS_DISABLE ? 0 : new.size;
	return 0;
}

/* kill (pid, sig) -- to process pid (a Linux program: a Ferrite program
 * is not the caller's to signal, EPERM), to the caller's group (0), to
 * group -pid, or (-1) to every Linux program of its session but itself;
 * sig 0 only asks whether there is one */
int64_t lx_kill(struct lxcall *c)
{
	const int64_t pid = (int64_t)(int32_t)c->arg[0];
	const uint64_t s = c->arg[1], sid = lx_sid(c->p);
	unsigned n = 0;

	if (s > LX_NSIG)
		return -LX_EINVAL;
	if (pid > 0) {
		struct pctx *q = ptable_by_pid((uint64_t)pid);

		if (!q)
			return -LX_ESRCH;
		if (!q->lx)
			return -LX_EPERM;
		if (s)
			lx_signal_raise(q, (int)s, LX_BY_KILL);
		return 0;
	}
	if (pid == -1) {
		for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
			struct pctx *q = ptable_slot(i);

			if (!q || !q->lx || q == c->p || lx_sid(q) != sid)
				continue;
			n++;
			if (s)
				lx_signal_raise(q, (int)s, LX_BY_KILL);
		}
	} else {
		n = signal_group(pid ? (uint64_t)-pid : lx_pgid(c->p), sid, (int)s, LX_BY_KILL);
	}
	return n ? 0 : -LX_ESRCH;
}

/* lx_child_ended -- proc.c's hook: child `child` (a process object) of
 * Linux program `parent` ended: SIGCHLD, and no zombie kept when the
 * parent ignores SIGCHLD or set SA_NOCLDWAIT (Linux reaps the child) */
void lx_child_ended(struct pctx *parent, uint64_t child)
{
	const struct klxsig *a;

	if (!parent->lx)
		return;
	a = actions(parent->lx);
	if (a->handler[LX_SIGCHLD - 1] == KLXSIG_SIG_IGN ||
	    a->flags[LX_SIGCHLD - 1] & LX_SA_NOCLDWAIT)
		handle_close_object(parent, child);
	lx_signal_raise(parent, LX_SIGCHLD, LX_BY_KERNEL);
}

/* tgkill (tgid, tid, sig) -- to a thread of its own, that thread alone */
int64_t lx_tgkill(struct lxcall *c)
{
	const uint64_t self = c->p->proc->pid, s = c->arg[2];
	const int tid = lx_thread_tid(c->p, (int64_t)c->arg[1]);

	if (s > LX_NSIG || (int64_t)c->arg[0] <= 0 || (int64_t)c->arg[1] <= 0)
		return -LX_EINVAL;
	if (c->arg[0] != self || tid < 0)
		return -LX_ESRCH;
	if (s)
		lx_signal_raise_thread(c->p, (unsigned)tid, (int)s, LX_BY_TKILL);
	return 0;
}

/* tkill (tid, sig) */
int64_t lx_tkill(struct lxcall *c)
{
	const uint64_t s = c->arg[1];

	const int tid = lx_thread_tid(c->p, (int64_t)c->arg[0]);

	if (s > LX_NSIG || (int64_t)c->arg[0] <= 0)
		return -LX_EINVAL;
	if (tid < 0)
		return -LX_ESRCH;
	if (s)
		lx_signal_raise_thread(c->p, (unsigned)tid, (int)s, LX_BY_TKILL);
	return 0;
}

/* timer_of -- the interval timer as a struct itimerval */
static struct lx_itimerval timer_of(const struct klinux *lx)
{
	const uint64_t now = time_mono_ns();
	const uint64_t left = lx->alarm_ns > now ? lx->alarm_ns - now : lx->alarm_ns ? 1000 : 0;

	return (struct lx_itimerval){
		.interval = { (int64_t)(lx->alarm_interval_ns / NS), (int64_t)(lx->alarm_interval_ns % NS / 1000) },
		.value = { (int64_t)(left / NS), (int64_t)(left % NS / 1000) },
	};
}

/* set_timer -- the interval timer: first expiry `value` ns from now (0:
 * off), then every `interval` ns */
static void set_timer(struct klinux *lx, uint64_t value, uint64_t interval)
{
	const uint64_t now = time_mono_ns();

	KLOG(&lx->alarm_ns);
	lx->alarm_ns = !value ? 0 : value > UINT64_MAX - now ? UINT64_MAX : now + value;
	KLOG(&lx->alarm_interval_ns);
	lx->alarm_interval_ns = value ? interval : 0;
}

/* timeval_ns -- a struct timeval in ns; false if it is not one */
static bool timeval_ns(const struct lx_timeval *tv, uint64_t *ns)
{
	if (tv->sec < 0 || tv->usec < 0 || tv->usec >= 1000000)
		return false;
	*ns = (uint64_t)tv->sec > UINT64_MAX / NS - 1 ? UINT64_MAX / 2 :
	      (uint64_t)tv->sec * NS + (uint64_t)tv->usec * 1000;
	return true;
}

/* getitimer (which, value) -- ITIMER_REAL only */
int64_t lx_getitimer(struct lxcall *c)
{
	const struct lx_itimerval now = timer_of(c->lx);

	if (c->arg[0] != LX_ITIMER_REAL)
		return -LX_EINVAL;
	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[1], &now, sizeof(now)));
}

/* setitimer (which, new, old) -- ITIMER_REAL only */
int64_t lx_setitimer(struct lxcall *c)
{
	const struct lx_itimerval old = timer_of(c->lx);
	struct lx_itimerval new = { 0 };
	uint64_t value, interval;
	int err;

	if (c->arg[0] != LX_ITIMER_REAL)
		return -LX_EINVAL;
	if (c->arg[1] && (err = uvm_copy_in(&c->p->mem, &new, c->arg[1], sizeof(new))))
		return lx_errno(err);
	if (!timeval_ns(&new.value, &value) || !timeval_ns(&new.interval, &interval))
		return -LX_EINVAL;
	if (c->arg[2] && (err = uvm_copy_out(&c->p->mem, c->arg[2], &old, sizeof(old))))
		return lx_errno(err);
	set_timer(c->lx, value, interval);
	return 0;
}

/* alarm (seconds) -- the seconds the timer had left, rounded */
int64_t lx_alarm(struct lxcall *c)
{
	const struct lx_itimerval old = timer_of(c->lx);
	const uint64_t secs = c->arg[0] > UINT32_MAX ? UINT32_MAX : c->arg[0];
	int64_t left = old.value.sec + (old.value.usec >= 500000);

	set_timer(c->lx, secs * NS, 0);
	return !left && old.value.usec ? 1 : left;
}
