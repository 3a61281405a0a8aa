/*
 * smp.c -- every CPU: the kernel lock, and stopping the other CPUs.
 *
 * One CPU runs kernel code at a time: every entry from user mode takes
 * the kernel lock (klock_enter, through kernel_enter_from_user) and every
 * return to user mode gives it up (kernel_exit_to_user), as seL4 does on
 * SMP. User code runs on every CPU at once; the kernel, event-driven and
 * with interrupts off, stays as simple as on one CPU: nothing in it is
 * shared with anything but the next holder of the lock. The lock is a
 * ticket lock: CPUs get it in the order they asked. A waiter spins a
 * little, then halts with interrupts enabled until the holder, giving the
 * lock up, kicks it: interrupts that come meanwhile are acknowledged and
 * handled once it has the lock (arch_run_deferred_interrupts), so no
 * handler ever runs without it.
 *
 * Stopping. Some changes must not race with user code on another CPU:
 * the commit (the registers of every thread are saved, and the epoch's
 * user pages lose their write bit on every CPU), and the end of a process
 * another CPU runs (its page tables are freed). The holder of the lock
 * then stops the others (smp_stop_others): it kicks every CPU that is not
 * idle and waits until each has parked. A CPU parks in klock_enter, where
 * every entry from user mode waits: it keeps its user thread's FPU state
 * (arch_frame_park), switches to the kernel's own page tables -- so its
 * TLB keeps no user translation -- and says so (cpu.parked). Its frame is
 * untouched: the holder reads the thread's registers from it
 * (arch_frame_save_parked). A parked CPU goes on waiting for the lock;
 * when it gets it, its next return to user mode loads its page tables
 * again, so it sees every change the holder made.
 *
 * Why no CPU is forgotten: `idle` is set by a CPU just before it gives the
 * lock up to halt, and cleared just after it took the lock back, so for
 * the holder it cannot change. An idle CPU runs no thread and is on the
 * kernel's tables. Every other CPU is in user mode (the kick brings it
 * in), on its way into the kernel with interrupts off (it reaches
 * klock_enter), or on its way out after giving the lock up with
 * interrupts off (the kick waits until it is in user mode, then brings it
 * in): each reaches klock_enter and parks.
 */
#include <stdlib.h>

#include "arch/arch.h"
#include "core/cmdline.h"
#include "core/panic.h"
#include "core/printk.h"
#include "core/smp.h"
#include "core/time.h"

struct cpu cpus[ARCH_MAX_CPUS];

static struct {
	uint32_t next;                 /* the next ticket */
	uint32_t serving;              /* the ticket that holds the lock */
	int holder;                    /* its CPU, -1 none (for klock_held) */
} lock = { .holder = -1 };

/* A waiter spins this many rounds, then halts until kicked: under
 * emulation or a hypervisor a spinning CPU takes the host CPU the holder
 * needs, and here the holder may be a CPU thread the host put aside. */
#define SPINS_BEFORE_HALT 256

static uint64_t stop_gen;              /* stops asked for */
static bool stopping;                  /* a stop is waiting for its CPUs */

/* smp_init -- CPU 0 is online and holds the kernel lock */
void smp_init(void)
{
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		cpus[i] = (struct cpu){ .index = i, .running = -1 };
	cpus[0].online = true;
	klock_enter(NULL);
}

/* cpu_main -- a CPU other than the boot CPU, once it runs: wait for the
 * kernel, then schedule */
static void cpu_main(unsigned index)
{
	struct cpu *c = &cpus[index];

	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
	arch_timer_start_this_cpu();
	klock_enter(NULL);
	arch_user_start();
}

/* wanted -- cpus=N from the command line: run on at most N CPUs */
static unsigned wanted(void)
{
	uint64_t n;

	if (cmdline_number("cpus", 1, ARCH_MAX_CPUS, ARCH_MAX_CPUS, &n))
		pr_warn("cmdline: cpus=%s is not a number from 1 to %u; using every CPU\n",
			cmdline_get("cpus"), ARCH_MAX_CPUS);
	return (unsigned)n;
}

/* smp_start -- start the other CPUs; how many run */
unsigned smp_start(void)
{
	unsigned n = arch_smp_start(wanted(), cpu_main);

	pr_info("cpus: %u running\n", n);
	return n;
}

/* smp_online -- how many CPUs run */
unsigned smp_online(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		n += __atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE);
	return n;
}

/* park -- answer stop `gen`: out of user mode, off its tables, FPU kept */
static void park(struct cpu *c, uint64_t gen)
{
	if (c->entry_frame && c->running >= 0)
		arch_frame_park(); /* leaves the user's tables too */
	else
		arch_pt_leave_user();
	__atomic_store_n(&c->parked, gen, __ATOMIC_RELEASE);
}

/* answer_stop -- park if a stop waits for this CPU */
static void answer_stop(struct cpu *c)
{
	if (__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
		uint64_t gen = __atomic_load_n(&stop_gen, __ATOMIC_ACQUIRE);

		if (c->parked != gen)
			park(c, gen);
	}
}

/* wait_halted -- halt until an interrupt, unless the lock is ours already
 * or a stop waits; the holder kicks a halted waiter when it gives the lock
 * up (the fences: either we see its release or it sees us waiting) */
static void wait_halted(struct cpu *c, uint32_t ticket)
{
	__atomic_store_n(&c->lock_waiting, true, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&lock.serving, __ATOMIC_SEQ_CST) != ticket &&
	    !__atomic_load_n(&stopping, __ATOMIC_SEQ_CST)) {
		arch_wait_for_interrupt();
		arch_interrupts_disable();
	}
	__atomic_store_n(&c->lock_waiting, false, __ATOMIC_RELAXED);
}

/* klock_enter -- take the kernel lock, answering stops while waiting */
void klock_enter(struct trap_frame *tf)
{
	struct cpu *c = cpu_self();
	uint64_t asked = arch_cycles();
	uint32_t ticket = __atomic_fetch_add(&lock.next, 1, __ATOMIC_RELAXED);
	unsigned spins = 0;

	c->entry_frame = tf;
	while (__atomic_load_n(&lock.serving, __ATOMIC_ACQUIRE) != ticket) {
		answer_stop(c);
		if (++spins < SPINS_BEFORE_HALT) {
			arch_cpu_relax();
		} else {
			wait_halted(c, ticket);
			spins = 0;
		}
	}
	lock.holder = (int)c->index;
	c->lock_taken_at = arch_cycles();
	c->lock_wait_cycles += c->lock_taken_at - asked;
	arch_run_deferred_interrupts();
}

/* klock_leave -- give the kernel lock up; kick the CPUs halted waiting for it */
void klock_leave(void)
{
	KASSERT(klock_held());
	cpu_self()->lock_held_cycles += arch_cycles() - cpu_self()->lock_taken_at;
	lock.holder = -1;
	__atomic_store_n(&lock.serving, lock.serving + 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		if (__atomic_load_n(&cpus[i].lock_waiting, __ATOMIC_SEQ_CST))
			arch_cpu_kick(i);
}

/* klock_held -- whether this CPU holds the kernel lock */
bool klock_held(void)
{
	return lock.holder == (int)arch_cpu_index();
}

/* smp_stop_others -- park every other CPU that is not idle (see the top) */
uint64_t smp_stop_others(void)
{
	unsigned self = arch_cpu_index();
	uint64_t gen, start;

	KASSERT(klock_held());
	if (smp_online() == 1)
		return 0;
	start = time_ns();
	gen = ++stop_gen;
	__atomic_store_n(&stopping, true, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		if (i != self && cpus[i].online && !cpus[i].idle)
			arch_cpu_kick(i);
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		while (i != self && cpus[i].online && !cpus[i].idle &&
		       __atomic_load_n(&cpus[i].parked, __ATOMIC_ACQUIRE) != gen)
			arch_cpu_relax();
	__atomic_store_n(&stopping, false, __ATOMIC_RELEASE);
	return time_ns() - start;
}
