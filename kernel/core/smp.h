/*
 * smp.h -- every CPU: what the kernel knows of each, the kernel lock, and
 * stopping the other CPUs (smp.c).
 */
#ifndef CORE_SMP_H
#define CORE_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"

struct trap_frame;

/* One CPU. Written by the CPU itself or, while it is parked or idle, by
 * the CPU holding the kernel lock; all of it volatile. */
struct cpu {
	unsigned index;                /* arch_cpu_index() */
	bool online;                   /* started, and takes part */
	bool idle;                     /* halted with no thread: set and cleared under the lock */
	int running;                   /* process-table slot of its thread, -1 none (sched.c) */
	bool need_resched;             /* pick again at the next exit to user mode */
	uint64_t run_start_ns;         /* when its thread last began to be charged */
	uint64_t quantum_end_ns;
	uint64_t busy_ns;              /* time charged to threads on this CPU, this power-on */
	struct trap_frame *entry_frame; /* the frame of its entry in progress; NULL at idle */
	uint64_t parked;               /* the last stop it answered (smp_stop_others) */
	bool lock_waiting;             /* halted waiting for the kernel lock: kick it */
	uint64_t lock_taken_at;        /* TSC when it last took the kernel lock */
	uint64_t lock_held_cycles;     /* TSC cycles it held the lock, this power-on */
	uint64_t lock_wait_cycles;     /* TSC cycles it waited for the lock, this power-on */
};

extern struct cpu cpus[ARCH_MAX_CPUS];

/* cpu_self -- the CPU this code runs on */
static inline struct cpu *cpu_self(void)
{
	return &cpus[arch_cpu_index()];
}

/* smp_init -- CPU 0 is online and holds the kernel lock: power-on runs on it */
void smp_init(void);

/* smp_start -- start the other CPUs (cpus=N on the command line: at most
 * N in all); each waits for the kernel lock, then schedules; returns how
 * many run */
unsigned smp_start(void);

/* smp_online -- how many CPUs run */
unsigned smp_online(void);

/* klock_enter -- take the kernel lock for an entry whose user frame is tf
 * (NULL: none, at idle); while waiting, answer stops (park) */
void klock_enter(struct trap_frame *tf);

/* klock_leave -- give the kernel lock up */
void klock_leave(void);

/* klock_held -- whether this CPU holds the kernel lock (declared for the
 * architecture too: arch/arch.h) */
bool klock_held(void);

/* smp_stop_others -- with the lock held: bring every other CPU that is not
 * idle out of user mode and off user page tables, parked in its kernel
 * entry with its thread's FPU state kept (arch_frame_park). They stay there
 * until this CPU gives the lock up. Returns the nanoseconds from the first
 * kick to the last CPU parked. */
uint64_t smp_stop_others(void);

#endif
