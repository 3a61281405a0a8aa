/*
 * check.h -- the checker: verifies every invariant of the format.
 *
 * os_check reads a heap and reports each problem it finds, precisely
 * (what, where), through a callback. It never writes. It checks the heap
 * as it stands: an unfinished transaction in the log is reported as such
 * (objtool checks a private, rolled-back copy-on-write view instead).
 */
#ifndef OBJSTORE_CHECK_H
#define OBJSTORE_CHECK_H

#include <stdint.h>

#include "objstore/objstore.h"

/* A problem os_check knows how to repair without guessing (objtool check
 * --repair): reported through `fixable` right after its message. */
enum os_fix_kind {
	OS_FIX_LEAK_PAGE = 1,      /* value: a whole page allocated, unreachable: free it */
	OS_FIX_LEAK_BLOCK,         /* value: a small block allocated, unreachable: free it */
	OS_FIX_DANGLING_NAME,      /* name, len: bound to an object that does not exist: remove it */
	OS_FIX_OBJECT_COUNT,       /* value: the objects the id index holds */
	OS_FIX_NAME_COUNT,         /* value: the names the catalogue holds */
};

struct os_fix {
	enum os_fix_kind kind;
	uint64_t value;            /* a heap offset or a count, by kind */
	const char *name;          /* OS_FIX_DANGLING_NAME: the name's bytes */
	uint64_t len;
};

struct os_check_report {
	/* one problem, as a line of text without a newline */
	void (*problem)(void *ctx, const char *message);
	/* progress: `done` of `total` steps; may be NULL */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
	/* the repair of the problem just reported, when it has one; may be NULL */
	void (*fixable)(void *ctx, const struct os_fix *fix);
};

/* os_check_scratch_size -- bytes of scratch memory os_check needs for a
 * heap of `size` bytes (about 9 bytes per data page) */
uint64_t os_check_scratch_size(uint64_t size);

/* os_check -- check the heap at base; the number of problems found (0:
 * clean). Problems that stop the check early (a bad superblock) count as
 * one. `scratch` must hold os_check_scratch_size(size) bytes. */
uint64_t os_check(const void *base, uint64_t size, void *scratch,
		  const struct os_check_report *report);

#endif
