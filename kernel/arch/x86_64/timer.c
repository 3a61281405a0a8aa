/*
 * timer.c -- calibrating the TSC and the LAPIC timer against the PIT, and
 * the periodic tick.
 *
 * PIT channel 2 (gated through port 0x61, no interrupt needed) counts down
 * a known interval of CALIBRATION_MS at 1.193182 MHz; over the same
 * interval we read how far the TSC and the LAPIC timer moved. The best of
 * a few rounds (the shortest TSC delta, least disturbed by the host) wins.
 */
#include <stdint.h>

#include "arch/arch.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io.h"
#include "arch/x86_64/trap.h"
#include "core/panic.h"
#include "core/printk.h"

#define PIT_HZ 1193182u
#define PIT_CHANNEL2 0x42
#define PIT_COMMAND 0x43
#define PIT_GATE 0x61
#define CALIBRATION_MS 10u
#define CALIBRATION_ROUNDS 3

#define LVT_PERIODIC (1u << 17)
#define LVT_MASKED (1u << 16)
#define DIVIDE_BY_16 0x3

static uint64_t tsc_hz;
static uint32_t lapic_hz; /* LAPIC timer ticks per second, divided by 16 */
static void (*tick_handler)(void);

struct calibration {
	uint64_t tsc;
	uint32_t lapic;
};

/* pit_measure -- TSC and LAPIC ticks during CALIBRATION_MS of the PIT */
static struct calibration pit_measure(void)
{
	uint32_t count = PIT_HZ * CALIBRATION_MS / 1000;
	struct calibration c;
	uint64_t tsc0;
	uint32_t lapic0;

	arch_outb(PIT_GATE, (arch_inb(PIT_GATE) & ~0x02) | 0x01); /* gate on, speaker off */
	arch_outb(PIT_COMMAND, 0xb0); /* channel 2, lobyte/hibyte, mode 0 */
	arch_outb(PIT_CHANNEL2, count & 0xff);
	arch_outb(PIT_CHANNEL2, count >> 8);

	lapic_write(LAPIC_TIMER_DIVIDE, DIVIDE_BY_16);
	lapic_write(LAPIC_TIMER_LVT, LVT_MASKED);
	lapic_write(LAPIC_TIMER_INITIAL, UINT32_MAX);
	/* Restart the count: gate low then high. */
	arch_outb(PIT_GATE, arch_inb(PIT_GATE) & ~0x01);
	arch_outb(PIT_GATE, arch_inb(PIT_GATE) | 0x01);
	tsc0 = rdtsc();
	lapic0 = lapic_read(LAPIC_TIMER_CURRENT);
	while (!(arch_inb(PIT_GATE) & 0x20)) /* OUT2 goes high at zero */
		;
	c.tsc = rdtsc() - tsc0;
	c.lapic = lapic0 - lapic_read(LAPIC_TIMER_CURRENT);
	lapic_write(LAPIC_TIMER_INITIAL, 0);
	return c;
}

/* calibrate -- fill tsc_hz and lapic_hz */
static void calibrate(void)
{
	struct calibration best = { UINT64_MAX, 0 };

	for (int i = 0; i < CALIBRATION_ROUNDS; i++) {
		struct calibration c = pit_measure();

		if (c.tsc < best.tsc)
			best = c;
	}
	tsc_hz = best.tsc * (1000 / CALIBRATION_MS);
	lapic_hz = best.lapic * (1000 / CALIBRATION_MS);
	if (!tsc_hz || !lapic_hz)
		panic("timer: calibration against the PIT failed (tsc %llu, lapic %u)",
		      (unsigned long long)best.tsc, best.lapic);
}

/* timer_interrupt -- the LAPIC timer fired */
static void timer_interrupt(void)
{
	if (tick_handler)
		tick_handler();
}

/* arch_timer_start -- calibrate the TSC and LAPIC timer, then tick at `hz` */
void arch_timer_start(unsigned hz, void (*tick)(void))
{
	calibrate();
	tick_handler = tick;
	trap_set_handler(VECTOR_LAPIC_TIMER, timer_interrupt);
	lapic_write(LAPIC_TIMER_DIVIDE, DIVIDE_BY_16);
	lapic_write(LAPIC_TIMER_LVT, LVT_PERIODIC | VECTOR_LAPIC_TIMER);
	lapic_write(LAPIC_TIMER_INITIAL, lapic_hz / hz);
	pr_info("timer: TSC %llu.%03llu MHz, LAPIC timer %u kHz, tick %u Hz\n",
		(unsigned long long)(tsc_hz / 1000000),
		(unsigned long long)(tsc_hz / 1000 % 1000), lapic_hz / 1000, hz);
}

/* arch_tsc_hz -- TSC ticks per second, known after arch_timer_start */
uint64_t arch_tsc_hz(void)
{
	return tsc_hz;
}
