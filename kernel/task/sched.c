/*
 * sched.c -- running threads: round-robin, blocking, waking, holding.
 *
 * Event-driven, one kernel stack per CPU: the kernel is entered from user
 * mode (system call, exception, interrupt), takes the kernel lock
 * (core/smp.c), does its work with interrupts off and leaves through the
 * safe point (entry/entry.c), which asks this file which thread's
 * registers the frame on the CPU's kernel stack holds when it returns:
 * the one that ran (sched_goes_on), or the next runnable one
 * (sched_run_next). Nothing of a thread lives on a kernel stack between
 * two entries.
 *
 * The unit is the thread: a process's threads share its address space and
 * handles and are scheduled each on its own. A thread is named here by
 * its place, slot * KPROC_MAX_THREADS + tid (a "thread index").
 *
 * Persistent: each thread's state (runnable, blocked in call N on X until
 * T, or exited) and, whenever it is not running, its registers (saved at
 * every switch and at every commit: sched_save_running). Volatile: which
 * thread each CPU runs now (cpu.running, a thread index: its registers are
 * live in that CPU's frame and FPU; thread_cpu says the reverse), the
 * round-robin cursor (shared: CPUs take runnable threads in turn), the
 * held processes, and flags. A thread that blocks has its frame rewound to
 * the SYSCALL instruction (arch_syscall_restart), so waking it simply
 * re-issues the call: no kernel continuation exists. A thread woken while
 * a CPU idles is taken by that CPU (a kick ends its halt); with none idle
 * the waker's CPU picks again at its exit.
 *
 * Held processes (a safe power-on's: epoch/rescue.c) are never picked to
 * run; they are woken by their events as usual, and run once released.
 * Holding is volatile like the rest: a power cut releases them.
 */
#include <string.h>

#include "arch/arch.h"
#include "core/heap.h"
#include "core/panic.h"
#include "core/smp.h"
#include "core/time.h"
#include "obj/kobj.h"
#include "task/ptable.h"
#include "task/sched.h"
#include "uvm/upt.h"

#define QUANTUM_NS 10000000ull         /* 10 ms */

#define THREADS (KROOT_MAX_PROCS * KPROC_MAX_THREADS) /* thread indexes */

/* Volatile: rebuilt at every power-on (and struct cpu, core/smp.h). */
static int8_t thread_cpu[THREADS] = { [0 ... THREADS - 1] = -1 };
static unsigned rr_cursor;             /* the thread index picked last */
static uint64_t next_wake_ns = UINT64_MAX; /* earliest sleeper's deadline (a hint) */
static bool holding;                   /* some processes are held (sched_hold) */
static uint64_t held[KROOT_MAX_PROCS]; /* by slot: the process object held there, 0 none */

_Static_assert(ARCH_MAX_CPUS <= INT8_MAX, "a CPU number fits thread_cpu");

/* thread_at -- the thread at thread index `ti`, NULL if none */
static struct kthread *thread_at(unsigned ti)
{
	struct pctx *p = ptable_slot(ti / KPROC_MAX_THREADS);

	return p ? p->thread[ti % KPROC_MAX_THREADS] : NULL;
}

/* running_thread -- the thread CPU c runs, NULL if none */
static struct kthread *running_thread(const struct cpu *c)
{
	return c->running >= 0 ? thread_at((unsigned)c->running) : NULL;
}

/* save_thread -- CPU c's thread's registers and time into the heap; tf
 * is its frame, on a CPU parked by smp_stop_others unless c is this one */
static void save_thread(struct cpu *c, const struct trap_frame *tf)
{
	struct pctx *p = c->running >= 0 ? ptable_slot((unsigned)c->running / KPROC_MAX_THREADS) : NULL;
	struct kthread *t = running_thread(c);
	uint64_t now = time_ns();

	if (!t || !tf)
		return;
	KLOG(&t->regs);
	if (c == cpu_self())
		arch_frame_save(tf, &t->regs);
	else
		arch_frame_save_parked(tf, c->index, &t->regs);
	KLOG(&p->proc->cpu_ns);
	p->proc->cpu_ns += now - c->run_start_ns;
	c->busy_ns += now - c->run_start_ns;
	c->run_start_ns = now;
}

/* sched_save_running -- every running thread's registers and CPU time
 * into the heap, this CPU's from tf (NULL: it runs none), the other CPUs
 * stopped by the caller (smp_stop_others) */
void sched_save_running(struct trap_frame *tf)
{
	save_thread(cpu_self(), tf);
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		if (&cpus[i] != cpu_self() && cpus[i].online && !cpus[i].idle)
			save_thread(&cpus[i], cpus[i].entry_frame);
}

/* sched_others_run -- whether another CPU runs a thread */
bool sched_others_run(void)
{
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		if (&cpus[i] != cpu_self() && cpus[i].online && cpus[i].running >= 0)
			return true;
	return false;
}

/* release -- CPU c runs no thread any more */
static void release(struct cpu *c)
{
	if (c->running >= 0) {
		/* Invariant: c->running and thread_cpu name each other. */
		KASSERT(thread_cpu[c->running] == (int8_t)c->index);
		thread_cpu[c->running] = -1;
	}
	c->running = -1;
}

/* wake_sleepers -- make threads whose deadline passed runnable: sleepers,
 * and threads waiting for something else until a deadline (wake_ns) */
static void wake_sleepers(void)
{
	uint64_t now = time_mono_ns();

	next_wake_ns = UINT64_MAX;
	for (unsigned slot = 0; slot < KROOT_MAX_PROCS; slot++) {
		struct pctx *p = ptable_slot(slot);

		for (unsigned tid = 0; p && tid < KPROC_MAX_THREADS; tid++) {
			struct kthread *t = p->thread[tid];

			if (!t || t->state != KTHREAD_BLOCKED ||
			    (t->wait != KWAIT_SLEEP && !t->wake_ns))
				continue;
			if (t->wake_ns <= now) {
				KLOG(&t->state);
				t->state = KTHREAD_RUNNABLE;
			} else if (t->wake_ns < next_wake_ns) {
				next_wake_ns = t->wake_ns;
			}
		}
	}
}

/* pick_next -- the next runnable thread after the cursor that no CPU runs
 * and whose process is not held, as a thread index, -1 if none */
static int pick_next(void)
{
	for (unsigned n = 0; n < THREADS; n++) {
		unsigned ti = (rr_cursor + 1 + n) % THREADS;
		struct pctx *p = ptable_slot(ti / KPROC_MAX_THREADS);
		struct kthread *t;

		if (!p) { /* on to the next slot */
			n += KPROC_MAX_THREADS - 1 - ti % KPROC_MAX_THREADS;
			continue;
		}
		t = p->thread[ti % KPROC_MAX_THREADS];
		if (t && t->state == KTHREAD_RUNNABLE && thread_cpu[ti] < 0 &&
		    !sched_held(p) && !(p->proc->flags & KPROC_STOPPED)) {
			rr_cursor = ti;
			return (int)ti;
		}
	}
	return -1;
}

/* sched_goes_on -- whether this CPU's thread runs on when the kernel
 * leaves: it is runnable, no other was asked to run, and its tables are
 * loaded (a stop may have moved this CPU to the kernel's tables, or
 * another CPU dropped them: uvm_drop_all_tables) */
bool sched_goes_on(void)
{
	struct cpu *c = cpu_self();
	struct kthread *t = running_thread(c);

	return t && t->state == KTHREAD_RUNNABLE && !c->need_resched &&
	       !(sched_current()->proc->flags & KPROC_STOPPED) &&
	       !upt_activate(&sched_current()->mem);
}

/* sched_put -- this CPU's thread stops running here: saved from tf, released */
void sched_put(struct trap_frame *tf)
{
	struct cpu *c = cpu_self();

	save_thread(c, tf);
	release(c);
}

/* sched_run_next -- load the next runnable thread into tf */
enum sched_next sched_run_next(struct trap_frame *tf, struct pctx **starved)
{
	struct cpu *c = cpu_self();
	struct pctx *p;
	int ti;

	wake_sleepers();
	ti = pick_next();
	if (ti < 0)
		return SCHED_NONE;
	p = ptable_slot((unsigned)ti / KPROC_MAX_THREADS);
	if (upt_activate(&p->mem)) {
		*starved = p;
		return SCHED_NO_TABLES;
	}
	/* Invariant: a thread runs on one CPU at most (pick_next). */
	KASSERT(thread_cpu[ti] < 0);
	arch_frame_load(tf, &thread_at((unsigned)ti)->regs);
	c->running = ti;
	thread_cpu[ti] = (int8_t)c->index;
	c->run_start_ns = time_ns();
	c->quantum_end_ns = c->run_start_ns + QUANTUM_NS;
	c->need_resched = false;
	return SCHED_LOADED;
}

/* sched_idle -- halt until an interrupt, the kernel left to the other CPUs */
void sched_idle(void)
{
	struct cpu *c = cpu_self();

	c->idle = true;
	upt_leave(); /* the tables it ran on may be freed meanwhile */
	klock_leave();
	arch_wait_for_interrupt();
	arch_interrupts_disable();
	klock_enter(NULL);
	c->idle = false;
}

/* sched_current -- the process this CPU runs, NULL when none */
struct pctx *sched_current(void)
{
	struct cpu *c = cpu_self();

	return c->running >= 0 ? ptable_slot((unsigned)c->running / KPROC_MAX_THREADS) : NULL;
}

/* sched_current_tid -- the tid of the thread this CPU runs (it runs one) */
unsigned sched_current_tid(void)
{
	struct cpu *c = cpu_self();

	KASSERT(c->running >= 0);
	return (unsigned)c->running % KPROC_MAX_THREADS;
}

/* sched_thread_cpu -- the CPU that runs thread `tid` of the process in
 * `slot`, -1 if none */
int sched_thread_cpu(unsigned slot, unsigned tid)
{
	return thread_cpu[slot * KPROC_MAX_THREADS + tid];
}

/* sched_block -- block the current thread in the call `tf` is making */
void sched_block(struct trap_frame *tf, enum kwait wait, uint64_t obj,
		 uint64_t wake_ns)
{
	struct cpu *c = cpu_self();
	struct kthread *t = running_thread(c);

	KASSERT(t != NULL);
	KLOG(t);
	t->state = KTHREAD_BLOCKED;
	t->wait = wait;
	t->wait_obj = obj;
	t->wake_ns = wake_ns;
	t->blocked_call = (uint32_t)arch_syscall_number(tf) |
			  (sched_current()->lx ? KTHREAD_CALL_LINUX : 0);
	arch_syscall_restart(tf);
	c->need_resched = true;
	if ((wait == KWAIT_SLEEP || wake_ns) && wake_ns < next_wake_ns)
		next_wake_ns = wake_ns;
}

/* sched_block_deadline -- the current thread, blocked in this call, also
 * wakes at monotonic time `ns` */
void sched_block_deadline(uint64_t ns)
{
	struct kthread *t = running_thread(cpu_self());

	KASSERT(t != NULL && t->state == KTHREAD_BLOCKED);
	if (t->wake_ns && t->wake_ns <= ns)
		return;
	KLOG(&t->wake_ns);
	t->wake_ns = ns;
	if (ns < next_wake_ns)
		next_wake_ns = ns;
}

/* runs_elsewhere -- whether a CPU other than this one runs a thread of
 * the process in `slot` */
static bool runs_elsewhere(unsigned slot)
{
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++) {
		int cpu = thread_cpu[slot * KPROC_MAX_THREADS + tid];

		if (cpu >= 0 && &cpus[cpu] != cpu_self())
			return true;
	}
	return false;
}

/* kick_idle -- an idle CPU other than this one runs what was woken;
 * whether there was one */
static bool kick_idle(void)
{
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		if (&cpus[i] != cpu_self() && cpus[i].online && cpus[i].idle) {
			arch_cpu_kick(i);
			return true;
		}
	return false;
}

/* made_runnable -- a thread became runnable: an idle CPU takes it, or
 * this one picks again at its exit */
static void made_runnable(void)
{
	if (!kick_idle())
		cpu_self()->need_resched = true;
}

/* sched_wake -- make runnable every thread blocked on (wait, obj) */
void sched_wake(enum kwait wait, uint64_t obj)
{
	for (unsigned slot = 0; slot < KROOT_MAX_PROCS; slot++) {
		struct pctx *p = ptable_slot(slot);

		for (unsigned tid = 0; p && tid < KPROC_MAX_THREADS; tid++) {
			struct kthread *t = p->thread[tid];

			if (t && t->state == KTHREAD_BLOCKED && t->wait == wait &&
			    t->wait_obj == obj) {
				KLOG(&t->state);
				t->state = KTHREAD_RUNNABLE;
				made_runnable();
			}
		}
	}
}

/* sched_interrupt -- make every blocked thread of p runnable: their calls
 * are issued again (for a signal, which cuts them short: linux/) */
void sched_interrupt(struct pctx *p)
{
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++) {
		struct kthread *t = p->thread[tid];

		if (t && t->state == KTHREAD_BLOCKED && t->wait != KWAIT_VFORK) {
			KLOG(&t->state);
			t->state = KTHREAD_RUNNABLE;
			made_runnable();
		}
	}
}

/* sched_wake_futex -- complete the SYS_FUTEX_WAIT of at most `max` of p's
 * threads blocked on user address `addr` (they return 0); how many */
unsigned sched_wake_futex(struct pctx *p, uint64_t addr, unsigned max)
{
	unsigned n = 0;

	for (unsigned tid = 0; tid < KPROC_MAX_THREADS && n < max; tid++) {
		struct kthread *t = p->thread[tid];

		if (t && t->state == KTHREAD_BLOCKED && t->wait == KWAIT_FUTEX &&
		    t->wait_obj == addr) {
			KLOG(t);
			arch_syscall_complete_saved(&t->regs, 0);
			t->state = KTHREAD_RUNNABLE;
			t->wait = KWAIT_NONE; /* its call is done, not issued again */
			made_runnable();
			n++;
		}
	}
	return n;
}

/* sched_complete_waiting -- complete with `result` the blocked call of
 * every thread waiting for `wait` that `pick` accepts; how many */
unsigned sched_complete_waiting(enum kwait wait, bool (*pick)(const struct kthread *t),
				int64_t result)
{
	unsigned n = 0;

	for (unsigned slot = 0; slot < KROOT_MAX_PROCS; slot++) {
		struct pctx *p = ptable_slot(slot);

		for (unsigned tid = 0; p && tid < KPROC_MAX_THREADS; tid++) {
			struct kthread *t = p->thread[tid];

			if (t && t->state == KTHREAD_BLOCKED && t->wait == wait && pick(t)) {
				KLOG(t);
				arch_syscall_complete_saved(&t->regs, result);
				t->state = KTHREAD_RUNNABLE;
				t->wait = KWAIT_NONE; /* its call is done, not issued again */
				made_runnable();
				n++;
			}
		}
	}
	return n;
}

/* sched_thread_exit -- the thread this CPU runs has exited: it runs no more */
void sched_thread_exit(void)
{
	release(cpu_self());
}

/* sched_thread_new -- a thread was made runnable by SYS_THREAD_CREATE */
void sched_thread_new(void)
{
	made_runnable();
}

/* sched_yield -- let others run before the current thread goes on */
void sched_yield(void)
{
	cpu_self()->need_resched = true;
}

/* sched_forget -- the process in `slot` is going (before its address
 * space goes): no CPU runs its threads any more; another CPU that did is
 * stopped first, so that it leaves the page tables about to be freed */
void sched_forget(unsigned slot)
{
	if (runs_elsewhere(slot))
		smp_stop_others();
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++) {
		int cpu = thread_cpu[slot * KPROC_MAX_THREADS + tid];

		if (cpu >= 0)
			release(&cpus[cpu]);
	}
}

/* sched_hold -- hold every live process: none of its threads runs until
 * sched_release */
void sched_hold(void)
{
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct pctx *p = ptable_slot(i);

		held[i] = p ? p->proc_id : 0;
	}
	holding = true;
}

/* sched_release -- hold nothing any more; how many live processes were held */
unsigned sched_release(void)
{
	unsigned released = 0;

	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct pctx *p = ptable_slot(i);

		released += p && sched_held(p);
	}
	holding = false;
	return released;
}

/* sched_holding -- whether processes are held (until sched_release) */
bool sched_holding(void)
{
	return holding;
}

/* sched_held -- whether p is held: none of its threads may run */
bool sched_held(const struct pctx *p)
{
	return holding && held[p->proc->slot] == p->proc_id;
}

/* sched_tick -- this CPU's timer tick: end the quantum, or let a sleeper in */
void sched_tick(void)
{
	struct cpu *c = cpu_self();

	if (c->running >= 0 &&
	    (time_ns() >= c->quantum_end_ns || time_mono_ns() >= next_wake_ns))
		c->need_resched = true;
}

/* sched_cpu_figures -- the CPU figures of sysinfo */
void sched_cpu_figures(struct fe_sysinfo *info)
{
	uint64_t now = time_ns();

	info->cpus = smp_online();
	info->power_on_ns = now;
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++) {
		const struct cpu *c = &cpus[i];

		info->cpu_busy_ns[i] = c->busy_ns +
				       (c->running >= 0 ? now - c->run_start_ns : 0);
		/* This CPU holds the lock now: its hold so far counts. */
		info->klock_held_ns[i] = time_cycles_to_ns(c->lock_held_cycles +
			(klock_held() && c == cpu_self() ? arch_cycles() - c->lock_taken_at : 0));
		info->klock_wait_ns[i] = time_cycles_to_ns(c->lock_wait_cycles);
	}
}

/* sched_start -- enter user mode for good: the thread that ran at the last
 * commit goes first */
void sched_start(void)
{
	rr_cursor = (kroot->running_slot * KPROC_MAX_THREADS + THREADS - 1) % THREADS;
	arch_user_start();
}
