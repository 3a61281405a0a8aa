/*
 * kcheck.h -- the kernel objects a power-on reads, validated before use.
 *
 * kcheck_image reads (never writes) the kernel's objects in an open heap:
 * the kernel root, the console, the reap queue, the rescue reserve, and
 * every live process with its thread, address space, handle table and the
 * channels its handles name. The kernel runs it at power-on, before trusting any of them, and
 * refuses the heap if it finds a problem; objtool check runs it too, so
 * both name the same problem in the same words. It uses only objstore's
 * public interface and the layouts of kformat.h: it builds for the kernel and
 * for the host. docs/hostile-images.md lists every check.
 *
 * Its work is bounded by the process table (KROOT_MAX_PROCS processes,
 * KASPACE_MAX_MAPS mappings and FE_HANDLE_SLOTS handles each) and the reap
 * queue, never by the heap's size or its number of objects.
 */
#ifndef KFORMAT_KCHECK_H
#define KFORMAT_KCHECK_H

#include <stdint.h>

#include "objstore/objstore.h"

struct kcheck_report {
	/* one problem, as a line of text without a newline */
	void (*problem)(void *ctx, const char *message);
	void *ctx;
};

/* kcheck_image -- check the kernel objects of `os`; the problems found
 * (0: sound, or no kernel root yet) */
unsigned kcheck_image(const struct objstore *os, const struct kcheck_report *report);

/* kcheck_output_cursor -- where the console keeps out_sent, the one word
 * written outside the log, and out_queued in *queued; NULL if the kernel
 * root or console is missing or malformed. Reads only. */
uint64_t *kcheck_output_cursor(const struct objstore *os, uint64_t *queued);

#endif
