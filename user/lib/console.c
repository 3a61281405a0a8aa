/*
 * console.c -- printf, puts and putchar on the console.
 *
 * Output goes through SYS_CONSOLE_WRITE. printf formats with libc's
 * vformat into a buffer on the stack and writes it whenever it fills and
 * once at the end, so a short line is one system call and reaches the
 * console whole. SYS_CONSOLE_WRITE may take fewer bytes than asked (at
 * most FE_IO_MAX per call); fe_write_all loops until all are written.
 */
#include <fe.h>

#define PRINTF_BUF 256

struct console_buf {
	char bytes[PRINTF_BUF];
	size_t used;
	long err;           /* the first write error, or 0 */
};

/* fe_write_all -- all len bytes of buf to the console */
long fe_write_all(const void *buf, uint64_t len)
{
	const char *p = buf;

	while (len > 0) {
		long n = fe_console_write(p, len);

		if (n < 0)
			return n;
		if (n == 0)
			return -ERR_IO; /* Invariant: the console takes at least one byte */
		p += n;
		len -= (uint64_t)n;
	}
	return 0;
}

/* console_flush -- write out what the buffer holds */
static void console_flush(struct console_buf *cb)
{
	long err = fe_write_all(cb->bytes, cb->used);

	if (err < 0 && cb->err == 0)
		cb->err = err;
	cb->used = 0;
}

/* console_emit -- vformat's callback: append s[len], flushing when full */
static void console_emit(void *ctx, const char *s, size_t len)
{
	struct console_buf *cb = ctx;

	while (len > 0) {
		size_t room = sizeof(cb->bytes) - cb->used;
		size_t n = len < room ? len : room;

		memcpy(cb->bytes + cb->used, s, n);
		cb->used += n;
		s += n;
		len -= n;
		if (cb->used == sizeof(cb->bytes))
			console_flush(cb);
	}
}

/* vprintf -- printf with a va_list */
int vprintf(const char *fmt, va_list ap)
{
	struct console_buf cb;
	int n;

	cb.used = 0;
	cb.err = 0;
	n = vformat(console_emit, &cb, fmt, ap);
	console_flush(&cb);
	return cb.err < 0 ? (int)cb.err : n;
}

/* printf -- format to the console */
int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

/* puts -- s and a newline to the console */
int puts(const char *s)
{
	return printf("%s\n", s) < 0 ? -1 : 0;
}

/* putchar -- one character to the console */
int putchar(int c)
{
	char ch = (char)c;
	long err = fe_write_all(&ch, 1);

	return err < 0 ? (int)err : (unsigned char)ch;
}
