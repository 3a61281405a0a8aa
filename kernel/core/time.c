/*
 * time.c -- kernel time, and remembering what the machine's clocks count.
 *
 * Nanoseconds come from the TSC, scaled by a 32.32 fixed-point factor
 * computed from the TSC rate; the tick only counts interrupts (and drives
 * preemption and checkpoints).
 *
 * The rates. Measuring them against the PIT takes 30 ms of busy waiting
 * (arch_timer_calibrate), far more than everything else a power-on does.
 * So the heap remembers them: a small kernel object named by
 * app_roots[OS_APP_ROOT_MACHINE] (struct kclock, kformat/kformat.h) holds the machine's fingerprint (CPUID:
 * vendor, signature, brand, hypervisor) and the rates measured on it. A
 * power-on whose fingerprint matches uses them at once; any other
 * calibrates and stores its own rates in the running epoch.
 *
 * A fingerprint is not proof: under TCG the guest's TSC runs at the host's
 * rate while CPUID says "QEMU" everywhere, and two hosts of one CPU model
 * may differ. So remembered rates are always checked in the background
 * (arch_clock_check_start): each tick polls the PIT's count for ~55 ms and
 * the result bounds the true TSC rate from both sides. A remembered rate
 * outside the bounds is replaced on that tick: calibrate (30 ms), carry
 * the clock on from where it is at the new rate (time_ns never jumps
 * back), program the tick anew and store the new rates. Until then time
 * may run off by the error of a wrong remembered rate, for at most the
 * ~55 ms of one check.
 *
 * Invariant: time_tick touches the heap only through clock_store, and
 * ticks arrive only while no kernel code runs (user mode or the idle
 * wait), after power-on ended (time_check_start): so the one logged
 * store never lands inside another heap update.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arch/arch.h"
#include "core/heap.h"
#include "core/printk.h"
#include "core/time.h"
#include "dev/rtc.h"
#include "kformat/kformat.h"
#include "objstore/object.h"

#define CHECK_CONFIRMED_PPM 20000   /* bounds this close (2 %) confirm a rate */
#define CHECK_MARGIN_PPM 1000       /* slack on the bounds before calling a rate wrong */
#define CHECK_TRIES 20              /* inconclusive checks before giving up */
/* Rates a stored kclock may hold; anything else is damage: calibrate. */
#define TSC_HZ_MIN 10000000ull       /* 10 MHz */
#define LAPIC_HZ_MIN 100000ull       /* 100 kHz */
#define RATE_HZ_MAX 1000000000000ull /* 1 THz */

/* Volatile: rebuilt at every power-on. */
static uint64_t tsc_start;           /* the TSC when base_ns was reached */
static uint64_t base_ns;             /* time_ns at tsc_start */
static uint64_t ns_per_cycle_32_32;  /* (10^9 << 32) / tsc_hz */
static volatile uint64_t ticks;
static bool checking;                /* the rates in force await the background check */
static void (*tick_hook)(void);      /* the scheduler's part of each tick */
static unsigned check_tries;
static uint64_t mono_base;           /* time_mono_ns() - time_ns() */

/* set_rate -- convert TSC deltas at `tsc_hz` from now on, time_ns going on */
static void set_rate(uint64_t tsc_hz)
{
	uint64_t now = arch_cycles();

	if (ns_per_cycle_32_32)
		base_ns += time_cycles_to_ns(now - tsc_start);
	tsc_start = now;
	ns_per_cycle_32_32 = (1000000000ull << 32) / tsc_hz;
}

/* clock_find -- the machine object, NULL if the heap has none (or no heap is open) */
static struct kclock *clock_find(void)
{
	uint64_t id = heap_ready() ? os_app_root(&kheap, OS_APP_ROOT_MACHINE) : 0;
	struct os_obj_info info;
	struct kclock *c;

	if (!id || os_obj_stat(&kheap, id, &info) || info.type != OS_TYPE_KERNEL ||
	    info.size != sizeof(*c))
		return NULL;
	c = os_obj_data(&kheap, id);
	return c && c->magic == KCLOCK_MAGIC && c->version == KCLOCK_VERSION ? c : NULL;
}

/* clock_store -- remember `r` for this machine in the running epoch; 0 or an error */
static int clock_store(const struct arch_clock_rates *r)
{
	struct kclock *c = clock_find();
	uint64_t id;
	int err;

	if (!heap_ready())
		return 0;
	if (!c) {
		err = os_obj_create(&kheap, OS_TYPE_KERNEL, sizeof(*c), &id);
		if (!err)
			err = os_app_root_set(&kheap, OS_APP_ROOT_MACHINE, id);
		if (err)
			return err;
		/* A fresh block: rollback frees it, so it needs no log. */
		c = os_obj_data(&kheap, id);
	} else {
		err = os_tx_log(&kheap, c, sizeof(*c));
		if (err)
			return err;
	}
	c->magic = KCLOCK_MAGIC;
	c->version = KCLOCK_VERSION;
	arch_machine_fingerprint(c->fingerprint);
	c->tsc_hz = r->tsc_hz;
	c->lapic_hz = r->lapic_hz;
	return 0;
}

/* remembered -- the rates stored for this machine; false if none match it */
static bool remembered(struct arch_clock_rates *r)
{
	uint8_t fingerprint[ARCH_FINGERPRINT_SIZE];
	const struct kclock *c = clock_find();

	if (!c || c->tsc_hz < TSC_HZ_MIN || c->tsc_hz > RATE_HZ_MAX ||
	    c->lapic_hz < LAPIC_HZ_MIN || c->lapic_hz > RATE_HZ_MAX)
		return false;
	arch_machine_fingerprint(fingerprint);
	if (memcmp(fingerprint, c->fingerprint, sizeof(fingerprint)) != 0)
		return false;
	r->tsc_hz = c->tsc_hz;
	r->lapic_hz = c->lapic_hz;
	return true;
}

/* print_rates -- the timer line of the power-on log */
static void print_rates(const struct arch_clock_rates *r, const char *how)
{
	pr_info("timer: TSC %llu.%03llu MHz, LAPIC timer %llu kHz, tick %u Hz (%s)\n",
		(unsigned long long)(r->tsc_hz / 1000000),
		(unsigned long long)(r->tsc_hz / 1000 % 1000),
		(unsigned long long)(r->lapic_hz / 1000), TICK_HZ, how);
}

/* recalibrate -- the remembered rates were wrong: measure, switch, store */
static void recalibrate(uint64_t lo_hz, uint64_t hi_hz)
{
	struct arch_clock_rates r;
	int err;

	pr_warn("timer: the remembered TSC rate %llu Hz is wrong (the PIT says %llu..%llu); calibrating again\n",
		(unsigned long long)arch_tsc_hz(), (unsigned long long)lo_hz,
		(unsigned long long)hi_hz);
	arch_timer_calibrate(&r);
	set_rate(r.tsc_hz);
	arch_timer_set_rates(&r);
	print_rates(&r, "calibrated");
	err = clock_store(&r);
	if (err)
		pr_warn("timer: cannot store the new rates (%d); the next power-on calibrates\n", err);
}

/* check_poll -- one tick of the background check of remembered rates */
static void check_poll(void)
{
	uint64_t lo, hi, hz = arch_tsc_hz();

	if (!arch_clock_check_poll(&lo, &hi))
		return;
	if ((unsigned __int128)hz * 1000000 < (unsigned __int128)lo * (1000000 - CHECK_MARGIN_PPM) ||
	    (unsigned __int128)hz * 1000000 > (unsigned __int128)hi * (1000000 + CHECK_MARGIN_PPM)) {
		checking = false;
		recalibrate(lo, hi);
	} else if ((hi - lo) * 1000000 / hi <= CHECK_CONFIRMED_PPM) {
		checking = false;
		pr_debug("timer: remembered TSC rate confirmed (%llu..%llu Hz)\n",
			 (unsigned long long)lo, (unsigned long long)hi);
	} else if (++check_tries < CHECK_TRIES) {
		arch_clock_check_start(); /* ticks came too late to tell: again */
	} else {
		checking = false;
		pr_warn("timer: could not check the remembered TSC rate (ticks too irregular)\n");
	}
}

/* time_tick -- the timer interrupt */
static void time_tick(void)
{
	if (arch_cpu_index() == 0) { /* every CPU ticks; the clock counts one */
		ticks++;
		if (checking)
			check_poll();
	}
	tick_hook();
}

/* time_init -- the rates (remembered, or calibrated and stored), then the
 * periodic tick, which calls `on_tick` after its own work; time_ns counts
 * from here */
void time_init(void (*on_tick)(void))
{
	struct arch_clock_rates r;
	bool known = remembered(&r);
	int err = 0;

	if (!known) {
		arch_timer_calibrate(&r);
		err = clock_store(&r);
	}
	set_rate(r.tsc_hz);
	tick_hook = on_tick;
	arch_timer_start(TICK_HZ, time_tick, &r);
	print_rates(&r, known ? "remembered" : "calibrated");
	if (err)
		pr_warn("timer: cannot store the rates in the heap (%d); the next power-on calibrates again\n",
			err);
	checking = known;
}

/* time_check_start -- power-on is over: check remembered rates in the background */
void time_check_start(void)
{
	if (checking)
		arch_clock_check_start();
}

/* time_cycles_to_ns -- convert a TSC delta to nanoseconds */
uint64_t time_cycles_to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * ns_per_cycle_32_32) >> 32);
}

/* time_ns -- nanoseconds since time_init, from the TSC */
uint64_t time_ns(void)
{
	return base_ns + time_cycles_to_ns(arch_cycles() - tsc_start);
}

/* time_mono_start -- FE_CLOCK_MONOTONIC goes on from `mono_ns` */
void time_mono_start(uint64_t mono_ns)
{
	mono_base = mono_ns - time_ns();
}

/* time_mono_ns -- FE_CLOCK_MONOTONIC: running time since genesis */
uint64_t time_mono_ns(void)
{
	return mono_base + time_ns();
}

/* time_ticks -- timer interrupts since time_init */
uint64_t time_ticks(void)
{
	return ticks;
}

/* time_wall_ns -- the RTC at the first call since power-on, carried on by the TSC */
uint64_t time_wall_ns(void)
{
	static uint64_t wall_at_read, ns_at_read;

	if (!wall_at_read) {
		wall_at_read = rtc_wall_ns();
		ns_at_read = time_ns();
	}
	return wall_at_read + time_ns() - ns_at_read;
}
