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
 * Persistent: each thread's state (runnable, or blocked in call N on X
 * until T) and, whenever it is not running, its registers. Volatile: which
 * slot each CPU runs now (cpu.running: its registers are live in that
 * CPU's frame and FPU; slot_cpu says the reverse), the round-robin cursor
 * (shared: CPUs take runnable threads in turn), and flags. A thread that
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
#include "proc/kobj.h"
#include "proc/proc.h"
#include "proc/safe.h"
#include "proc/sched.h"
#include "proc/uvm.h"

#define QUANTUM_NS 10000000ull         /* 10 ms */

/* Volatile: rebuilt at every power-on (and struct cpu, core/smp.h). */
static int slot_cpu[KROOT_MAX_PROCS] = { [0 ... KROOT_MAX_PROCS - 1] = -1 };
static unsigned rr_cursor;
static uint64_t mono_base;             /* mono_ns() - time_ns() */
static uint64_t next_wake_ns = UINT64_MAX; /* earliest sleeper's deadline (a hint) */
static uint64_t stop_last_ns, stop_max_ns; /* the other CPUs' stop at the last commit, the longest */

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

/* save_thread -- CPU c's thread's registers and time into the heap; tf
 * is its frame, on a CPU parked by smp_stop_others unless c is this one */
static void save_thread(struct cpu *c, const struct trap_frame *tf)
{
	struct pctx *p = c->running >= 0 ? proc_slot((unsigned)c->running) : NULL;
	uint64_t now = time_ns();

	if (!p || !tf)
		return;
	KLOG(&p->thread->regs);
	if (c == cpu_self())
		arch_frame_save(tf, &p->thread->regs);
	else
		arch_frame_save_parked(tf, c->index, &p->thread->regs);
	KLOG(&p->proc->cpu_ns);
	p->proc->cpu_ns += now - c->run_start_ns;
	c->busy_ns += now - c->run_start_ns;
	c->run_start_ns = now;
}

/* commit -- at a safe point: stop the other CPUs, save every running
 * thread's registers (this CPU's from tf), and commit the epoch */
static void commit(struct trap_frame *tf)
{
	uint64_t stop = smp_stop_others();

	save_thread(cpu_self(), tf);
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		if (&cpus[i] != cpu_self() && cpus[i].online && !cpus[i].idle)
			save_thread(&cpus[i], cpus[i].entry_frame);
	stop_last_ns = stop;
	if (stop > stop_max_ns)
		stop_max_ns = stop;
	epoch_commit();
}

/* release -- CPU c runs no thread any more */
static void release(struct cpu *c)
{
	if (c->running >= 0)
		slot_cpu[c->running] = -1;
	c->running = -1;
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

/* pick_next -- the next runnable slot after the cursor that no CPU runs,
 * -1 if none; a safe power-on's held processes are passed by (safe.c) */
static int pick_next(void)
{
	for (unsigned n = 0; n < KROOT_MAX_PROCS; n++) {
		unsigned slot = (rr_cursor + 1 + n) % KROOT_MAX_PROCS;
		struct pctx *p = proc_slot(slot);

		if (p && p->thread->state == KTHREAD_RUNNABLE && slot_cpu[slot] < 0 &&
		    !safe_held(p)) {
			rr_cursor = slot;
			return (int)slot;
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
		if (kroot->reap_count && kobj_reap(EPOCH_ENTRY_LOG_MAX)) {
			epoch_request(); /* commit, then reap on */
			continue;
		}
		wake_sleepers();
		slot = pick_next();
		if (slot < 0 && epoch_dirty()) {
			commit(NULL); /* nothing to run: make the epoch durable, send its output */
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
			continue;
		}
		p = proc_slot((unsigned)slot);
		if (uvm_activate(p)) {
			proc_end(p, FE_EXIT_KILLED, 0, "out of DRAM for page tables");
			continue;
		}
		arch_frame_load(tf, &p->thread->regs);
		c->running = slot;
		slot_cpu[slot] = (int)c->index;
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
	if (kroot->reap_count && kobj_reap(EPOCH_ENTRY_LOG_MAX))
		commit(tf); /* the reaper left EPOCH_ENTRY_LOG_MAX for this */
	console_input_poll();
	t = c->running >= 0 ? thread_of((unsigned)c->running) : NULL;
	/* A stop may have moved this CPU to the kernel's tables, or another
	 * CPU dropped its process's tables (uvm_drop_all_tables): load them. */
	if (t && t->state == KTHREAD_RUNNABLE && !c->need_resched &&
	    !uvm_activate(proc_slot((unsigned)c->running))) {
		klock_leave();
		return;
	}
	save_thread(c, tf);
	release(c);
	switch_to_next(c, tf);
	epoch_power_on_done();
	klock_leave();
}

/* sched_current -- the running process of this CPU, NULL when none */
struct pctx *sched_current(void)
{
	struct cpu *c = cpu_self();

	return c->running >= 0 ? proc_slot((unsigned)c->running) : NULL;
}

/* sched_block -- block the current thread in the call `tf` is making */
void sched_block(struct trap_frame *tf, enum kwait wait, uint64_t obj,
		 uint64_t wake_ns)
{
	struct cpu *c = cpu_self();
	struct kthread *t = c->running >= 0 ? thread_of((unsigned)c->running) : NULL;

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

/* sched_wake -- make runnable every thread blocked on (wait, obj) */
void sched_wake(enum kwait wait, uint64_t obj)
{
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct kthread *t = thread_of(i);

		if (t && t->state == KTHREAD_BLOCKED && t->wait == wait &&
		    t->wait_obj == obj) {
			KLOG(&t->state);
			t->state = KTHREAD_RUNNABLE;
			if (!kick_idle())
				cpu_self()->need_resched = true;
		}
	}
}

/* sched_yield -- let others run before the current thread goes on */
void sched_yield(void)
{
	cpu_self()->need_resched = true;
}

/* sched_forget -- the process in `slot` is gone (before its address space
 * goes): a CPU that runs it stops running it; another CPU is stopped first,
 * so that it leaves the page tables about to be freed */
void sched_forget(unsigned slot)
{
	int cpu = slot_cpu[slot];

	if (cpu < 0)
		return;
	if (&cpus[cpu] != cpu_self())
		smp_stop_others();
	release(&cpus[cpu]);
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
	rr_cursor = (kroot->running_slot + KROOT_MAX_PROCS - 1) % KROOT_MAX_PROCS;
	arch_user_start();
}
