/*
 * errstr.c -- names and messages for the error enum in <ferrite/errors.h>.
 *
 * One table indexed by the code. A code appended to the enum without an
 * entry here stops the build (the _Static_assert below), and a hole in the
 * table would show as a NULL that the host unit tests look for.
 */
#include <stddef.h>

#include <errstr.h>
#include <ferrite/errors.h>

struct err_text {
	const char *name;
	const char *message;
};

static const struct err_text err_table[] = {
	[ERR_NONE] = {"ERR_NONE", "success"},
	[ERR_PERM] = {"ERR_PERM", "operation not permitted"},
	[ERR_NOENT] = {"ERR_NOENT", "no such object or name"},
	[ERR_NOMEM] = {"ERR_NOMEM", "out of memory"},
	[ERR_FAULT] = {"ERR_FAULT", "bad address"},
	[ERR_BUSY] = {"ERR_BUSY", "resource in use"},
	[ERR_EXIST] = {"ERR_EXIST", "already exists"},
	[ERR_INVAL] = {"ERR_INVAL", "invalid argument"},
	[ERR_NOSPC] = {"ERR_NOSPC", "no space left"},
	[ERR_RANGE] = {"ERR_RANGE", "value out of range"},
	[ERR_NOSYS] = {"ERR_NOSYS", "no such call or feature"},
	[ERR_BADF] = {"ERR_BADF", "bad handle"},
	[ERR_CORRUPT] = {"ERR_CORRUPT", "checksum or structure check failed"},
	[ERR_VERSION] = {"ERR_VERSION", "incompatible layout or format version"},
	[ERR_NOTSUP] = {"ERR_NOTSUP", "not supported on this platform"},
	[ERR_TOOBIG] = {"ERR_TOOBIG", "argument too large"},
	[ERR_AGAIN] = {"ERR_AGAIN", "try again later"},
	[ERR_IO] = {"ERR_IO", "I/O error"},
	[ERR_NOEXEC] = {"ERR_NOEXEC", "not a valid program"},
	[ERR_PEER] = {"ERR_PEER", "the other end is closed"},
	[ERR_RESET] = {"ERR_RESET", "the other side started over"},
};

_Static_assert(sizeof(err_table) / sizeof(err_table[0]) == ERR__COUNT,
	       "every code in <ferrite/errors.h> needs a name and a message");

/* err_lookup -- the table entry for err or -err, or NULL if unknown */
static const struct err_text *err_lookup(int err)
{
	/* Through unsigned, so that -INT_MIN is no overflow. */
	unsigned code = err < 0 ? 0u - (unsigned)err : (unsigned)err;

	return code < ERR__COUNT ? &err_table[code] : NULL;
}

/* err_name -- "ERR_INVAL" for ERR_INVAL or -ERR_INVAL; "ERR_?" if unknown */
const char *err_name(int err)
{
	const struct err_text *text = err_lookup(err);

	return text != NULL ? text->name : "ERR_?";
}

/* err_str -- a short human message for an error code (sign ignored) */
const char *err_str(int err)
{
	const struct err_text *text = err_lookup(err);

	return text != NULL ? text->message : "unknown error";
}
