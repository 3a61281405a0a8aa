/*
 * sched.c -- running threads: round-robin, blocking, waking, safe points.
 *
 * Event-driven, one kernel stack per CPU: the kernel is entered from user
 * mode (system call, exception, interrupt), takes the kernel lock
 * (core/smp.c), does its work with interrupts off and leaves through
 * kernel_exit_to_user(), which decides which thread's registers the frame
 * on the CPU's kernel stack holds when it returns, and gives the lock up.
 * Nothing of a thread lives on a kernel stack between two entries.
 *
 * The unit is the thread: a process's threads share its address space and
 * handles and are scheduled each on its own. A thread is named here by
 * its place, slot * KPROC_MAX_THREADS + tid (a "thread index").
 *
 * Persistent: each thread's state (runnable, blocked in call N on X until
 * T, or exited) and, whenever it is not running, its registers. Volatile:
 * which thread each CPU runs now (cpu.running, a thread index: its
 * registers are live in that CPU's frame and FPU; thread_cpu says the
 * reverse), the round-robin cursor (shared: CPUs take runnable threads in
 * turn), and flags. A thread that
 * blocks has its frame rewound to the SYSCALL instruction
 * (arch_syscall_restart), so waking it simply re-issues the call: no
 * kernel continuation exists. A thread woken while a CPU idles is taken by
 * that CPU (a kick ends its halt); with none idle the waker's CPU picks
 * again at its exit.
 *
 * Safe points: every exit to user mode and every scheduling pass is one
 * (no thread is inside the kernel). There the scheduler lets the epoch
 * commit when it is due (epoch.c) -- the other CPUs stopped and every
 * running thread's registers saved first (commit) -- and lets the reaper
 * delete what waits in the reap queue (kobj.c).
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
#include "core/smp.h"
#include "core/time.h"
#include "proc/console_io.h"
#include "proc/epoch.h"
#include "proc/hostlink.h"
#include "proc/kobj.h"
#include "proc/proc.h"
#include "proc/safe.h"
#include "proc/sched.h"
#include "proc/uvm.h"

#define QUANTUM_NS 10000000ull         /* 10 ms */

#define THREADS (KROOT_MAX_PROCS * KPROC_MAX_THREADS) /* thread indexes */

/* Volatile: rebuilt at every power-on (and struct cpu, core/smp.h). */
static int8_t thread_cpu[THREADS] = { [0 ... THREADS - 1] = -1 };
static unsigned rr_cursor;             /* the thread index picked last */
static uint64_t mono_base;             /* mono_ns() - time_ns() */
static uint64_t next_wake_ns = UINT64_MAX; /* earliest sleeper's deadline (a hint) */
static uint64_t stop_last_ns, stop_max_ns; /* the other CPUs' stop at the last commit, the longest */

_Static_assert(ARCH_MAX_CPUS <= INT8_MAX, "a CPU number fits thread_cpu");

/* mono_ns -- FE_CLOCK_MONOTONIC: running time since genesis */
uint64_t mono_ns(void)
{
	return mono_base + time_ns();
}

/* thread_at -- the thread at thread index `ti`, NULL if none */
static struct kthread *thread_at(unsigned ti)
{
	struct pctx *p = proc_slot(ti / KPROC_MAX_THREADS);

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
	struct pctx *p = c->running >= 0 ? proc_slot((unsigned)c->running / KPROC_MAX_THREADS) : NULL;
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

/* commit -- at a safe point: stop the other CPUs, save every running
 * thread's registers (this CPU's from tf), and commit the epoch */
static void commit(struct trap_frame *tf)
{
	uint64_t start = time_ns(), stop = smp_stop_others();

	save_thread(cpu_self(), tf);
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		if (&cpus[i] != cpu_self() && cpus[i].online && !cpus[i].idle)
			save_thread(&cpus[i], cpus[i].entry_frame);
	stop_last_ns = stop;
	if (stop > stop_max_ns)
		stop_max_ns = stop;
	epoch_commit_since(start);
}

/* others_run -- whether another CPU runs a thread */
static bool others_run(void)
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

/* wake_sleepers -- make threads whose deadline passed runnable */
static void wake_sleepers(void)
{
	uint64_t now = mono_ns();

	next_wake_ns = UINT64_MAX;
	for (unsigned slot = 0; slot < KROOT_MAX_PROCS; slot++) {
		struct pctx *p = proc_slot(slot);

		for (unsigned tid = 0; p && tid < KPROC_MAX_THREADS; tid++) {
			struct kthread *t = p->thread[tid];

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
}

/* pick_next -- the next runnable thread after the cursor that no CPU runs,
 * as a thread index, -1 if none; a safe power-on's held processes are
 * passed by (safe.c) */
static int pick_next(void)
{
	for (unsigned n = 0; n < THREADS; n++) {
		unsigned ti = (rr_cursor + 1 + n) % THREADS;
		struct pctx *p = proc_slot(ti / KPROC_MAX_THREADS);
		struct kthread *t;

		if (!p) { /* on to the next slot */
			n += KPROC_MAX_THREADS - 1 - ti % KPROC_MAX_THREADS;
			continue;
		}
		t = p->thread[ti % KPROC_MAX_THREADS];
		if (t && t->state == KTHREAD_RUNNABLE && thread_cpu[ti] < 0 &&
		    !safe_held(p)) {
			rr_cursor = ti;
			return (int)ti;
		}
	}
	return -1;
}

/* idle -- halt until an interrupt, the kernel left to the other CPUs */
static void idle(struct cpu *c)
{
	c->idle = true;
	arch_pt_leave_user(); /* the tables it ran on may be freed meanwhile */
	klock_leave();
	arch_wait_for_interrupt();
	arch_interrupts_disable();
	klock_enter(NULL);
	c->idle = false;
}

/* switch_to_next -- load the next runnable thread into the frame, idling until one is */
static void switch_to_next(struct cpu *c, struct trap_frame *tf)
{
	for (;;) {
		struct pctx *p;
		int slot;

		if (epoch_due())
			commit(NULL);
		if (kroot->reap_count && kobj_reap(epoch_log_keep())) {
			epoch_request(); /* commit, then reap on */
			continue;
		}
		wake_sleepers();
		slot = pick_next();
		if (slot < 0 && epoch_dirty() &&
		    (!others_run() || console_output_waiting() ||
		     hostlink_output_waiting())) {
			/* The whole system would idle, or output waits to be seen:
			 * make the epoch durable, send its output. (A CPU idling
			 * beside a busy one otherwise leaves the epoch to the
			 * periodic rule: waking at every tick, it must not commit
			 * at every tick.) */
			commit(NULL);
			continue;
		}
		if (slot < 0) {
			epoch_power_on_done(); /* everything waits: resumed all the same */
			if (!proc_count()) {
				pr_info("ferrite: no processes to run\n");
				commit(NULL);
				console_run();
			}
			idle(c);
			console_input_poll();
			hostlink_poll();
			continue;
		}
		p = proc_slot((unsigned)slot / KPROC_MAX_THREADS);
		if (uvm_activate(p)) {
			proc_end(p, FE_EXIT_KILLED, 0, "out of DRAM for page tables");
			continue;
		}
		/* Invariant: a thread runs on one CPU at most (pick_next). */
		KASSERT(thread_cpu[slot] < 0);
		arch_frame_load(tf, &thread_at((unsigned)slot)->regs);
		c->running = slot;
		thread_cpu[slot] = (int8_t)c->index;
		c->run_start_ns = time_ns();
		c->quantum_end_ns = c->run_start_ns + QUANTUM_NS;
		c->need_resched = false;
		return;
	}
}

/* kernel_enter_from_user -- take the kernel; whether the frame's thread still runs here */
bool kernel_enter_from_user(struct trap_frame *tf)
{
	klock_enter(tf);
	return cpu_self()->running >= 0;
}

/* kernel_exit_to_user -- choose the thread the frame returns to */
void kernel_exit_to_user(struct trap_frame *tf)
{
	struct cpu *c = cpu_self();
	struct kthread *t;

	if (epoch_due())
		commit(tf);
	if (kroot->reap_count && kobj_reap(epoch_log_keep()))
		commit(tf); /* the reaper left EPOCH_ENTRY_LOG_MAX for this */
	console_input_poll();
	hostlink_poll();
	t = running_thread(c);
	/* A stop may have moved this CPU to the kernel's tables, or another
	 * CPU dropped its process's tables (uvm_drop_all_tables): load them. */
	if (t && t->state == KTHREAD_RUNNABLE && !c->need_resched &&
	    !uvm_activate(sched_current())) {
		klock_leave();
		return;
	}
	save_thread(c, tf);
	release(c);
	switch_to_next(c, tf);
	epoch_power_on_done();
	klock_leave();
}

/* sched_current -- the process this CPU runs, NULL when none */
struct pctx *sched_current(void)
{
	struct cpu *c = cpu_self();

	return c->running >= 0 ? proc_slot((unsigned)c->running / KPROC_MAX_THREADS) : NULL;
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
	t->blocked_call = (uint32_t)arch_syscall_number(tf);
	arch_syscall_restart(tf);
	c->need_resched = true;
	if (wait == KWAIT_SLEEP && wake_ns < next_wake_ns)
		next_wake_ns = wake_ns;
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
		struct pctx *p = proc_slot(slot);

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
		struct pctx *p = proc_slot(slot);

		for (unsigned tid = 0; p && tid < KPROC_MAX_THREADS; tid++) {
			struct kthread *t = p->thread[tid];

			if (t && t->state == KTHREAD_BLOCKED && t->wait == wait && pick(t)) {
				KLOG(t);
				arch_syscall_complete_saved(&t->regs, result);
				t->state = KTHREAD_RUNNABLE;
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

/* sched_shootdown -- p's page tables lost a right or changed a frame:
 * no other CPU that runs one of its threads may keep the old translation
 * (the stop moves them off user tables; they load them again) */
void sched_shootdown(const struct pctx *p)
{
	if (runs_elsewhere(p->proc->slot))
		smp_stop_others();
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

/* sched_power_off -- save the caller, commit, and power off */
void sched_power_off(struct trap_frame *tf)
{
	commit(tf);
	pr_info("ferrite: powering off\n");
	acpi_poweroff();
	pr_err("acpi: power-off did not happen\n");
}

/* sched_tick -- the timer interrupt of this CPU: end the quantum, or let a sleeper in */
void sched_tick(void)
{
	struct cpu *c = cpu_self();

	if (c->running >= 0 &&
	    (time_ns() >= c->quantum_end_ns || mono_ns() >= next_wake_ns))
		c->need_resched = true;
	if (c->index == 0)
		hostlink_tick();
}

/* sched_cpu_figures -- the CPU figures of sysinfo */
void sched_cpu_figures(struct fe_sysinfo *info)
{
	uint64_t now = time_ns();

	info->cpus = smp_online();
	info->power_on_ns = now;
	info->stop_last_ns = stop_last_ns;
	info->stop_max_ns = stop_max_ns;
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++) {
		const struct cpu *c = &cpus[i];

		info->cpu_busy_ns[i] = c->busy_ns +
				       (c->running >= 0 ? now - c->run_start_ns : 0);
	}
}

/* sched_start -- enter user mode for good: the thread that ran at the last
 * commit goes first (epoch_power_on_done sends the output committed but
 * not yet sent before it runs) */
void sched_start(void)
{
	epoch_start();
	mono_base = kroot->mono_ns - time_ns();
	rr_cursor = (kroot->running_slot * KPROC_MAX_THREADS + THREADS - 1) % THREADS;
	arch_user_start();
}
