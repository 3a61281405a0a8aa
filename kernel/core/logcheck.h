/*
 * logcheck.h -- the log checker: a debugging mode proving that every heap
 * byte the kernel changes in an epoch was logged first.
 *
 * With `logcheck` on the command line, heap_init keeps a DRAM shadow copy
 * of the heap as of the last commit, and every commit (and abort) first
 * compares the heap with it: each changed byte must lie in a range of the
 * running transaction (an UNDO or FRESH record) or in a range registered
 * with logcheck_exempt, or the kernel panics naming the byte, its object,
 * its old and new values. Without `logcheck` every call here costs a test
 * of one flag. docs/logcheck.md tells the whole story.
 */
#ifndef CORE_LOGCHECK_H
#define CORE_LOGCHECK_H

#include <stddef.h>

/* logcheck_init -- learn where the open heap lies and, with `logcheck` on
 * the command line, take its DRAM shadow; panics, saying how much DRAM it
 * needs, if there is not enough. heap_init calls it at every power-on
 * before the first transaction begins. */
void logcheck_init(void);

/* logcheck_verify -- before the running transaction commits or aborts:
 * panics unless every heap byte that differs from the shadow lies in a
 * range of the transaction or an exempt range */
void logcheck_verify(void);

/* logcheck_update -- after the commit or abort: the shadow takes the pages
 * logcheck_verify found changed */
void logcheck_update(void);

/* logcheck_exempt -- [p, p+len), inside the heap (after heap_init), is
 * written durably outside the log (e.g. a cursor stored and flushed
 * directly); the checker lets its changes pass. Panics on a range outside
 * the heap or when the table of exemptions is full (a kernel bug). */
void logcheck_exempt(const void *p, size_t len);

#endif
