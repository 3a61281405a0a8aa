/*
 * printk.c -- the kernel's log: formatted lines to the serial console, and
 * the same bytes kept in a ring (`printk_ring`) that a debugger can read
 * after the fact. Output is synchronous and polled, so it works from the
 * first line of kmain to the last line of a panic.
 *
 * During power-on the lines only go to the ring (printk_defer): every byte
 * to the UART is two port accesses, each a VM exit under a hypervisor, and
 * a resume's dozen lines would cost more than everything else it does. The
 * bytes reach the UART at printk_flush, which comes once the first user
 * thread is loaded, or on any path that stops the machine (panic,
 * halt_forever, the self-tests), or when the ring would otherwise
 * overwrite bytes not yet written: nothing printed is ever lost.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/printk.h"
#include "dev/uart.h"

#define PRINTK_RING_SIZE 16384 /* a power of two */

/* The last PRINTK_RING_SIZE bytes printed; printk_ring_head counts all. */
char printk_ring[PRINTK_RING_SIZE];
uint64_t printk_ring_head;

static enum log_level max_level = LOG_INFO;
static bool at_line_start = true;
static bool deferring;   /* lines wait in the ring (power-on) */
static uint64_t written;  /* ring bytes before this count reached the UART */

/* write_pending -- send the ring's bytes from `written` to the head to the UART */
static void write_pending(void)
{
	while (written < printk_ring_head) {
		uint64_t at = written % PRINTK_RING_SIZE;
		uint64_t n = printk_ring_head - written;

		if (n > PRINTK_RING_SIZE - at)
			n = PRINTK_RING_SIZE - at;
		uart_write(&printk_ring[at], n);
		written += n;
	}
}

/* printk_defer -- keep lines in the ring until printk_flush */
void printk_defer(void)
{
	written = printk_ring_head;
	deferring = true;
}

/* printk_flush -- write what was deferred; lines go out at once from now on */
void printk_flush(void)
{
	if (!deferring)
		return;
	write_pending();
	deferring = false;
}

/* printk_set_level -- drop messages less important than `level` */
void printk_set_level(enum log_level level)
{
	max_level = level;
}

/* emit -- vformat's sink: to the ring, and to the UART unless deferring */
static void emit(void *ctx, const char *s, size_t len)
{
	(void)ctx;
	if (deferring && printk_ring_head + len - written > PRINTK_RING_SIZE)
		write_pending(); /* the ring is about to overwrite unwritten bytes */
	if (!deferring || len > PRINTK_RING_SIZE)
		uart_write(s, len);
	for (size_t i = 0; i < len; i++)
		printk_ring[printk_ring_head++ % PRINTK_RING_SIZE] = s[i];
	if (deferring && len > PRINTK_RING_SIZE)
		written = printk_ring_head;
	if (len)
		at_line_start = s[len - 1] == '\n';
}

/* level_prefix -- what starts a line of this level */
static const char *level_prefix(enum log_level level)
{
	switch (level) {
	case LOG_ERR:
		return "error: ";
	case LOG_WARN:
		return "warning: ";
	case LOG_DEBUG:
		return "debug: ";
	default:
		return "";
	}
}

/* vprintk -- printk with a va_list */
void vprintk(enum log_level level, const char *fmt, va_list ap)
{
	if (level > max_level)
		return;
	if (at_line_start) {
		const char *prefix = level_prefix(level);

		emit(NULL, prefix, strlen(prefix));
	}
	vformat(emit, NULL, fmt, ap);
}

/* printk -- format and print one log message at a level */
void printk(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(level, fmt, ap);
	va_end(ap);
}
