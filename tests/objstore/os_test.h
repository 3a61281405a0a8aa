/*
 * os_test.h -- helpers for the objstore unit tests: heaps in host memory,
 * with the real host platform.
 */
#ifndef OS_TEST_H
#define OS_TEST_H

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "host_platform.h"
#include "objstore/objstore.h"
#include "test_rand.h"

/* test_heap_new -- a zeroed, page-aligned buffer of `size` bytes */
static inline void *test_heap_new(uint64_t size)
{
	void *p = aligned_alloc(4096, size);

	if (!p)
		abort();
	memset(p, 0, size);
	return p;
}

/* test_create -- a fresh heap in a new buffer; aborts on failure */
static inline void *test_create(struct objstore *os, uint64_t size)
{
	void *base = test_heap_new(size);

	if (os_create(os, base, size, host_platform(), NULL) != 0)
		abort();
	return base;
}

#endif
