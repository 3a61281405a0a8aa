/*
 * timer.c -- calibrating the TSC and the LAPIC timer against the PIT,
 * checking a calibration in the background, and the periodic tick.
 *
 * Calibration: PIT channel 2 (gated through port 0x61, no interrupt
 * needed) counts down a known interval of CALIBRATION_MS at 1.193182 MHz;
 * over the same interval we read how far the TSC and the LAPIC timer
 * moved. The TSC and the LAPIC timer are read before the PIT starts (the
 * high byte of its count starts it) and after it ran out, so a delay of
 * this CPU anywhere -- a host that preempts the vCPU -- only lengthens
 * what they measure, and the best of a few rounds (the shortest TSC
 * delta) is the least disturbed. (Reading them after the PIT started, as
 * this file once did, let a preemption between the two shorten a round by
 * up to its whole length: a loaded host then calibrated a TSC rate a
 * hundred times too low, and the tick fired a hundred times too often.) That is 30 ms of busy waiting, so the generic clock
 * (core/time.c) keeps the result in the heap and calibrates only on a
 * machine it does not know.
 *
 * The check: a remembered calibration is confirmed without waiting. The
 * PIT's channel 2 counts down CHECK_COUNT clocks (55 ms) on its own while
 * the system runs; every tick reads whether its output went high. The
 * moment it did lies between the last tick that saw it low and the first
 * that saw it high, which bounds the TSC rate from both sides:
 *	(low - started_after) / T <= tsc_hz <= (high - started_before) / T
 * A remembered rate outside those bounds is wrong.
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "core/panic.h"
#include "core/printk.h"

#define PIT_HZ 1193182u
#define PIT_CHANNEL2 0x42
#define PIT_COMMAND 0x43
#define PIT_GATE 0x61
#define CALIBRATION_MS 10u
#define CALIBRATION_ROUNDS 3

#define CHECK_COUNT 0xffffu    /* PIT clocks the check counts down */

#define LVT_PERIODIC (1u << 17)
#define LVT_MASKED (1u << 16)
#define DIVIDE_BY_16 0x3

static struct arch_clock_rates rates; /* in force */
static unsigned tick_hz;
static void (*tick_handler)(void);

/* The background check: TSC bounds of its start, and the last tick that
 * saw the PIT's output low. Volatile. */
static struct {
	bool running;
	uint64_t started_before, started_after, last_low;
} check;

struct calibration {
	uint64_t tsc;
	uint32_t lapic;
};

/* pit_arm -- channel 2 in mode 0 (output low until the count runs out),
 * all but the count's high byte written: nothing counts yet */
static void pit_arm(uint32_t count)
{
	arch_outb(PIT_GATE, (arch_inb(PIT_GATE) & ~0x02) | 0x01); /* gate on, speaker off */
	arch_outb(PIT_COMMAND, 0xb0); /* channel 2, lobyte/hibyte, mode 0 */
	arch_outb(PIT_CHANNEL2, count & 0xff);
}

/* pit_fire -- the count's high byte: in mode 0 with the gate on, channel 2
 * starts counting down now (a gate edge does not restart it) */
static void pit_fire(uint32_t count)
{
	arch_outb(PIT_CHANNEL2, count >> 8);
}

/* pit_done -- whether channel 2's count ran out (OUT2 high) */
static bool pit_done(void)
{
	return arch_inb(PIT_GATE) & 0x20;
}

/* pit_measure -- TSC and LAPIC ticks during CALIBRATION_MS of the PIT.
 * Both start before the PIT does and stop after it ran out, so anything
 * that delays this CPU (a host preempting the vCPU) can only lengthen
 * what they measure: the shortest of a few rounds is the truest. */
static struct calibration pit_measure(void)
{
	uint32_t count = PIT_HZ * CALIBRATION_MS / 1000;
	struct calibration c;
	uint64_t tsc0;
	uint32_t lapic0;

	lapic_write(LAPIC_TIMER_DIVIDE, DIVIDE_BY_16);
	lapic_write(LAPIC_TIMER_LVT, LVT_MASKED);
	lapic_write(LAPIC_TIMER_INITIAL, UINT32_MAX);
	pit_arm(count);
	lapic0 = lapic_read(LAPIC_TIMER_CURRENT);
	tsc0 = rdtsc();
	pit_fire(count);
	while (!pit_done())
		;
	c.tsc = rdtsc() - tsc0;
	c.lapic = lapic0 - lapic_read(LAPIC_TIMER_CURRENT);
	lapic_write(LAPIC_TIMER_INITIAL, 0);
	return c;
}

/* arch_timer_calibrate -- measure both rates against the PIT (30 ms) */
void arch_timer_calibrate(struct arch_clock_rates *out)
{
	struct calibration best = { UINT64_MAX, 0 };

	for (int i = 0; i < CALIBRATION_ROUNDS; i++) {
		struct calibration c = pit_measure();

		if (c.tsc < best.tsc)
			best = c;
	}
	out->tsc_hz = best.tsc * (1000 / CALIBRATION_MS);
	out->lapic_hz = (uint64_t)best.lapic * (1000 / CALIBRATION_MS);
	if (!out->tsc_hz || !out->lapic_hz)
		panic("timer: calibration against the PIT failed (tsc %llu, lapic %u)",
		      (unsigned long long)best.tsc, best.lapic);
}

/* timer_interrupt -- the LAPIC timer fired */
static void timer_interrupt(void)
{
	if (tick_handler)
		tick_handler();
}

/* program_tick -- the LAPIC timer fires `tick_hz` times a second at the rates in force */
static void program_tick(void)
{
	lapic_write(LAPIC_TIMER_DIVIDE, DIVIDE_BY_16);
	lapic_write(LAPIC_TIMER_LVT, LVT_PERIODIC | VECTOR_LAPIC_TIMER);
	lapic_write(LAPIC_TIMER_INITIAL, (uint32_t)(rates.lapic_hz / tick_hz));
}

/* arch_timer_start -- tick at `hz`, the LAPIC timer counting at r->lapic_hz */
void arch_timer_start(unsigned hz, void (*tick)(void),
		      const struct arch_clock_rates *r)
{
	rates = *r;
	tick_hz = hz;
	tick_handler = tick;
	trap_set_handler(VECTOR_LAPIC_TIMER, timer_interrupt);
	program_tick();
}

/* arch_timer_start_this_cpu -- an application processor's tick */
void arch_timer_start_this_cpu(void)
{
	program_tick();
}

/* arch_timer_set_rates -- corrected rates: the tick is programmed anew */
void arch_timer_set_rates(const struct arch_clock_rates *r)
{
	rates = *r;
	program_tick();
}

/* arch_tsc_hz -- TSC ticks per second in force, known after arch_timer_start */
uint64_t arch_tsc_hz(void)
{
	return rates.tsc_hz;
}

/* arch_clock_check_start -- start the PIT's background count (see the top) */
void arch_clock_check_start(void)
{
	pit_arm(CHECK_COUNT);
	check.started_before = rdtsc();
	pit_fire(CHECK_COUNT);
	check.started_after = rdtsc();
	check.last_low = check.started_after;
	check.running = true;
}

/* arch_clock_check_poll -- from a tick: 0 while the count runs; 1 once it
 * ran out, with the bounds it puts on the TSC rate in *lo_hz, *hi_hz */
int arch_clock_check_poll(uint64_t *lo_hz, uint64_t *hi_hz)
{
	uint64_t now = rdtsc();
	uint64_t t_num = CHECK_COUNT + 1, t_den = PIT_HZ; /* T = t_num / t_den s */

	if (!check.running)
		return 0;
	if (!pit_done()) {
		check.last_low = now;
		return 0;
	}
	check.running = false;
	*lo_hz = (uint64_t)((unsigned __int128)(check.last_low - check.started_after) *
			    t_den / t_num);
	*hi_hz = (uint64_t)((unsigned __int128)(now - check.started_before) *
			    t_den / t_num);
	return 1;
}
