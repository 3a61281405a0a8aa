/*
 * time.h -- kernel time: the periodic tick and nanoseconds from the TSC,
 * at rates the heap remembers per machine (time.c).
 */
#ifndef CORE_TIME_H
#define CORE_TIME_H

#include <stdint.h>

#define TICK_HZ 1000

/* The TSC when the loader handed the kernel the CPU (boot/boot.S). */
extern uint64_t kernel_entry_tsc;

/* time_init -- the clock rates (remembered in the heap when heap_init
 * succeeded before, else calibrated and stored), then the periodic tick,
 * which calls `on_tick` (entry_tick: the scheduler's and the host link's part) after its own work;
 * time_ns counts from here */
void time_init(void (*on_tick)(void));

/* time_check_start -- power-on is over: remembered rates are checked in
 * the background from now on (time.c) */
void time_check_start(void);

/* time_ns -- nanoseconds since time_init, from the calibrated TSC */
uint64_t time_ns(void);

/* time_mono_start -- FE_CLOCK_MONOTONIC goes on from `mono_ns`, the
 * running time since genesis that the last commit kept (kroot.mono_ns) */
void time_mono_start(uint64_t mono_ns);

/* time_mono_ns -- FE_CLOCK_MONOTONIC: running time since genesis (each
 * commit keeps it in the kernel root, so it goes on across power cuts) */
uint64_t time_mono_ns(void);

/* time_wall_ns -- FE_CLOCK_WALL: ns since 1970-01-01 UTC, the RTC read
 * once per power-on and carried on by time_ns */
uint64_t time_wall_ns(void);

/* time_ticks -- timer interrupts since time_init */
uint64_t time_ticks(void);

/* time_cycles_to_ns -- convert a TSC delta to nanoseconds */
uint64_t time_cycles_to_ns(uint64_t cycles);

#endif
