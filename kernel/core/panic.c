/*
 * panic.c -- the end of the kernel when an invariant breaks.
 *
 * The reason goes three places: the console, a register dump beside it, and
 * `panic_epitaph`, where a debugger (or fe-epitaph) reads it after the fact.
 * A panic while panicking only halts: the second reason is printed but the
 * first epitaph is kept.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "arch/arch.h"
#include "core/cmdline.h"
#include "core/panic.h"
#include "core/printk.h"

char panic_epitaph[PANIC_EPITAPH_SIZE];
static bool panicking;

/* QEMU exit code (isa-debug-exit) for a panic with panic=exit: status 37. */
#define QEMU_EXIT_PANIC 0x12

/* halt_forever -- stop: exit QEMU if panic=exit, else halt with interrupts off */
void halt_forever(void)
{
	arch_interrupts_disable();
	printk_flush();
	if (cmdline_is("panic", "exit"))
		arch_qemu_exit(QEMU_EXIT_PANIC);
	arch_halt();
}

/* vpanic -- the body of panic() and panic_without_dump() */
static __attribute__((noreturn)) void vpanic(bool dump, const char *fmt,
					     va_list ap)
{
	char reason[PANIC_EPITAPH_SIZE];

	arch_interrupts_disable();
	printk_flush();
	vsnprintf(reason, sizeof(reason), fmt, ap);
	if (panicking) {
		printk(LOG_EMERG, "panic while panicking: %s\n", reason);
		halt_forever();
	}
	panicking = true;
	snprintf(panic_epitaph, sizeof(panic_epitaph), "%s", reason);
	printk(LOG_EMERG, "panic: %s\n", reason);
	if (dump)
		arch_dump_state();
	printk(LOG_EMERG, "panic: system halted\n");
	halt_forever();
}

/* panic -- print the reason and the registers, then stop for good */
void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpanic(true, fmt, ap);
}

/* panic_without_dump -- panic when the caller has already printed the state */
void panic_without_dump(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpanic(false, fmt, ap);
}
