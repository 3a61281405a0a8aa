/*
 * stdio.h -- formatted output, without any notion of where it goes.
 *
 * vformat is the one formatter: it streams its output through a callback,
 * so the kernel log, the user library and snprintf all share it. There is
 * deliberately no printf or puts here; each side provides its own output.
 *
 * Supported: %d %i %u %x %X %o %p %s %c %%; flags - 0 + space #; width and
 * precision, either of them as *; length modifiers hh h l ll z t j.
 * %p prints "0x" and 16 hex digits; %s of NULL prints "(null)"; anything
 * else after a '%' (%n, %f, %lc, ...) is printed as it stands in the format.
 */
#ifndef LIBC_STDIO_H
#define LIBC_STDIO_H

#include <stdarg.h>
#include <stddef.h>

/*
 * vformat -- format into the callback emit(ctx, s, len), called once per
 * piece; returns the number of characters produced, or -1 if that number
 * does not fit in an int (the output has still been streamed)
 */
int vformat(void (*emit)(void *ctx, const char *s, size_t len), void *ctx,
	    const char *fmt, va_list ap) __attribute__((__format__(__printf__, 3, 0)));

/*
 * vsnprintf -- format into buf[size], NUL-terminated when size > 0; returns
 * the length the whole output would have had (>= size means truncated)
 */
int vsnprintf(char *restrict buf, size_t size, const char *restrict fmt,
	      va_list ap) __attribute__((__format__(__printf__, 3, 0)));

/* snprintf -- vsnprintf with the arguments inline */
int snprintf(char *restrict buf, size_t size, const char *restrict fmt, ...)
	__attribute__((__format__(__printf__, 3, 4)));

#endif
