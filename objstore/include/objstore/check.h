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

struct os_check_report {
	/* one problem, as a line of text without a newline */
	void (*problem)(void *ctx, const char *message);
	/* progress: `done` of `total` steps; may be NULL */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
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
