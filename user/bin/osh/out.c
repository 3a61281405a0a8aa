/*
 * out.c -- osh's console output: a buffer, messages, object types' words.
 *
 * Everything osh prints goes through one 4 KiB buffer sent with
 * SYS_CONSOLE_WRITE when it fills and whenever osh is about to wait (for
 * a key, a program, a commit): so `ls` of 100,000 names is a few hundred
 * system calls, not 100,000. The console's output queue (64 KiB) may be
 * full; then the write blocks until the next commit releases it, which
 * is what lets long output stream without stalling the rest of the system.
 */
#include "osh.h"

#define OUT_CAP 4096

static char out_buf[OUT_CAP];
static size_t out_used;

/* out_flush -- send what is queued */
void out_flush(void)
{
	fe_write_all(out_buf, out_used);
	out_used = 0;
}

/* out_bytes -- queue len bytes for the console */
void out_bytes(const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		size_t n = OUT_CAP - out_used < len ? OUT_CAP - out_used : len;

		memcpy(out_buf + out_used, p, n);
		out_used += n;
		p += n;
		len -= n;
		if (out_used == OUT_CAP)
			out_flush();
	}
}

/* out_emit -- vformat's callback */
static void out_emit(void *ctx, const char *s, size_t len)
{
	(void)ctx;
	out_bytes(s, len);
}

/* out_printf -- format for the console */
void out_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(out_emit, NULL, fmt, ap);
	va_end(ap);
}

/* out_name -- a name with control bytes and backslashes escaped (\xNN) */
void out_name(const char *name)
{
	for (; *name != '\0'; name++) {
		unsigned char c = (unsigned char)*name;

		if (c < ' ' || c == 0x7f || c == '\\')
			out_printf("\\x%02x", c);
		else
			out_bytes(&c, 1);
	}
}

/* complain -- print a message and a newline; the command failed */
void complain(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(out_emit, NULL, fmt, ap);
	va_end(ap);
	out_bytes("\n", 1);
	shell_status = STATUS_FAILED;
}

/* name_error -- "CMD: no object named 'NAME'", or the error's message */
void name_error(const char *cmd, const char *name, long err)
{
	if (err == -ERR_NOENT)
		complain("%s: no object named '%s'", cmd, name);
	else if (err == -ERR_INVAL && (name[0] == '\0' || strlen(name) > FE_NAME_MAX))
		complain("%s: '%s' is not a name (1 to %d bytes)", cmd, name,
			 FE_NAME_MAX);
	else
		complain("%s: '%s': %s", cmd, name, err_str((int)err));
}

/* type_name -- a word for an object type */
const char *type_name(uint32_t type)
{
	static const char *const names[] = {
		[FE_TYPE_BLOB] = "blob", [FE_TYPE_CODE] = "code",
		[FE_TYPE_PROCESS] = "process", [FE_TYPE_THREAD] = "thread",
		[FE_TYPE_ASPACE] = "aspace", [FE_TYPE_CHANNEL] = "channel",
		[FE_TYPE_CATALOGUE] = "catalogue", [FE_TYPE_ANON] = "anon",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type] != NULL)
		return names[type];
	return "?";
}
