/*
 * time.c -- kernel time.
 *
 * Nanoseconds come from the TSC, scaled by a 32.32 fixed-point factor
 * computed once from the calibrated frequency; the tick only counts
 * interrupts (and later drives preemption and checkpoints).
 */
#include <stdint.h>

#include "arch/arch.h"
#include "core/time.h"
#include "proc/proc.h"

static uint64_t tsc_start;
static uint64_t ns_per_cycle_32_32; /* (10^9 << 32) / tsc_hz */
static volatile uint64_t ticks;

/* time_tick -- the timer interrupt */
static void time_tick(void)
{
	ticks++;
	sched_tick();
}

/* time_init -- start the periodic tick; time_ns counts from here */
void time_init(void)
{
	arch_timer_start(TICK_HZ, time_tick);
	ns_per_cycle_32_32 = (1000000000ull << 32) / arch_tsc_hz();
	tsc_start = arch_cycles();
}

/* time_cycles_to_ns -- convert a TSC delta to nanoseconds */
uint64_t time_cycles_to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * ns_per_cycle_32_32) >> 32);
}

/* time_ns -- nanoseconds since time_init, from the calibrated TSC */
uint64_t time_ns(void)
{
	return time_cycles_to_ns(arch_cycles() - tsc_start);
}

/* time_ticks -- timer interrupts since time_init */
uint64_t time_ticks(void)
{
	return ticks;
}
