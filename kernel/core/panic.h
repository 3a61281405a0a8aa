/*
 * panic.h -- stopping the kernel when one of its invariants is broken.
 *
 * panic() prints the reason and a register dump, keeps the reason in
 * `panic_epitaph` (a debugger reads it there: `print panic_epitaph`), then
 * halts, or exits QEMU through isa-debug-exit when the command line says
 * `panic=exit`. Nothing a user program does may lead here.
 */
#ifndef CORE_PANIC_H
#define CORE_PANIC_H

#include <stdbool.h>

#define PANIC_EPITAPH_SIZE 256

/* The reason of the last panic, NUL-terminated; empty while all is well. */
extern char panic_epitaph[PANIC_EPITAPH_SIZE];

/* panic -- print the reason and the registers, then stop for good */
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);

/* panic_without_dump -- panic when the caller has already printed the state */
__attribute__((noreturn, format(printf, 1, 2))) void
panic_without_dump(const char *fmt, ...);

/* halt_forever -- stop: exit QEMU if panic=exit, else halt with interrupts off */
__attribute__((noreturn)) void halt_forever(void);

/* Invariant checks that stay in release builds. */
#define KASSERT(cond)                                                         \
	do {                                                                  \
		if (!(cond))                                                  \
			panic("assertion failed: %s at %s:%d", #cond,         \
			      __FILE__, __LINE__);                            \
	} while (0)

#endif
