/*
 * output.c -- how objtool speaks: one-line messages on stderr with the
 * `objtool: ` prefix, texts for objstore's error codes, times, and names
 * printed so that each stays on one line (sizes are libc's size_text,
 * <numtext.h>).
 *
 * Names are byte strings (any byte but NUL). Printing one raw could break
 * a line or drive the terminal, so control bytes (below 0x20, and 0x7f)
 * print as \xNN and a backslash as \\; every other byte, UTF-8 included,
 * prints as it is.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "objtool.h"

/* vmessage -- "objtool: MESSAGE\n" on stderr */
static void vmessage(const char *fmt, va_list ap)
{
	fflush(stdout); /* keep stdout and stderr in order on a terminal */
	fputs("objtool: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* fail -- print "objtool: MESSAGE" on stderr; returns `status` */
int fail(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	return status;
}

/* note -- print "objtool: MESSAGE" on stderr, not an error */
void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
}

/* Our own texts, worded for what objtool's user did (not the kernel ABI's). */
static const char *const err_texts[ERR__COUNT] = {
	[ERR_NONE] = "success",
	[ERR_PERM] = "not permitted",
	[ERR_NOENT] = "no such object or name",
	[ERR_NOMEM] = "the image is full (no free data pages)",
	[ERR_FAULT] = "bad address inside the heap",
	[ERR_BUSY] = "a transaction is already running",
	[ERR_EXIST] = "the name is already bound",
	[ERR_INVAL] = "invalid argument",
	[ERR_NOSPC] = "the transaction does not fit the image's undo log",
	[ERR_RANGE] = "offset or size out of range",
	[ERR_NOSYS] = "not implemented",
	[ERR_BADF] = "bad handle",
	[ERR_CORRUPT] = "the image is corrupt (a checksum or structure check failed)",
	[ERR_VERSION] = "another layout version",
	[ERR_NOTSUP] = "not supported for this object",
	[ERR_TOOBIG] = "too large",
	[ERR_AGAIN] = "try again later",
	[ERR_IO] = "I/O error",
};

/* os_err_text -- a short message for an objstore error code (sign ignored) */
const char *os_err_text(int err)
{
	unsigned code = err < 0 ? 0u - (unsigned)err : (unsigned)err;

	if (code < ERR__COUNT && err_texts[code])
		return err_texts[code];
	return "unknown error";
}

/* os_err_exit -- the exit status for an objstore error met by a command */
int os_err_exit(int err)
{
	if (err == -ERR_CORRUPT)
		return EXIT_CORRUPT;
	if (err == -ERR_VERSION)
		return EXIT_VERSION;
	return EXIT_FAILED;
}

/* fmt_time -- ns since 1970 as "2026-12-03 05:47:43" (UTC) into buf (at
 * least 32 bytes); `unknown` for 0 */
const char *fmt_time(char *buf, size_t len, uint64_t ns, const char *unknown)
{
	time_t t = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (ns == 0 || !gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "%s", unknown);
	return buf;
}

/* escape_byte -- the text one name byte prints as, in out (5 bytes) */
static const char *escape_byte(unsigned char c, char out[5])
{
	if (c == '\\')
		return "\\\\";
	if (c < 0x20 || c == 0x7f) {
		snprintf(out, 5, "\\x%02x", c);
		return out;
	}
	out[0] = (char)c;
	out[1] = '\0';
	return out;
}

/* name_text -- a name with control bytes and backslashes escaped */
const char *name_text(char *buf, const char *name, uint64_t len)
{
	char one[5];
	size_t at = 0;

	if (len > OS_NAME_MAX)
		len = OS_NAME_MAX;
	for (uint64_t i = 0; i < len; i++) {
		const char *t = escape_byte((unsigned char)name[i], one);
		size_t n = strlen(t);

		memcpy(buf + at, t, n);
		at += n;
	}
	buf[at] = '\0';
	return buf;
}

/* print_escaped -- print a name to stdout as name_text would write it */
void print_escaped(const char *name, uint64_t len)
{
	char text[NAME_TEXT_MAX];

	fputs(name_text(text, name, len), stdout);
}

/* json_string -- print bytes as a JSON string: printable ASCII as itself
 * (a quote and a backslash escaped), every other byte as \u00XX, its value */
void json_string(const char *s, uint64_t len)
{
	putchar('"');
	for (uint64_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			putchar(c);
		else
			printf("\\u%04x", c);
	}
	putchar('"');
}

/* write_all -- write len bytes to fd, retrying short writes; 0 or -1 (errno) */
int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* finish_stdout -- flush stdout, reporting a write error; an exit status */
int finish_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		return fail(status ? status : EXIT_FAILED,
			    "cannot write the output: %s", strerror(errno));
	return status;
}
