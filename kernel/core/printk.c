/*
 * printk.c -- the kernel's log: formatted lines to the serial console, and
 * the same bytes kept in a ring (`printk_ring`) that a debugger can read
 * after the fact. Output is synchronous and polled, so it works from the
 * first line of kmain to the last line of a panic.
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

/* printk_set_level -- drop messages less important than `level` */
void printk_set_level(enum log_level level)
{
	max_level = level;
}

/* emit -- vformat's sink: to the UART and the ring */
static void emit(void *ctx, const char *s, size_t len)
{
	(void)ctx;
	uart_write(s, len);
	for (size_t i = 0; i < len; i++)
		printk_ring[printk_ring_head++ % PRINTK_RING_SIZE] = s[i];
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
