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

/* test_create_minor -- a fresh heap of layout 2.`minor` (1 or 2: the
 * geometry before 2.3, for tests of older heaps); aborts on failure */
static inline void *test_create_minor(struct objstore *os, uint64_t size, uint16_t minor)
{
	struct os_create_opts opts = { .layout_minor = minor };
	void *base = test_heap_new(size);

	if (os_create(os, base, size, host_platform(), &opts) != 0)
		abort();
	return base;
}

/* Ranges os_tx_each_range reported, as a byte map over the heap. */
struct test_covered {
	uint8_t *map;                  /* 1: inside some record's range */
	uint64_t size;
};

/* test_cover -- os_tx_each_range's callback: mark one range */
static inline void test_cover(void *ctx, uint64_t off, uint64_t len)
{
	struct test_covered *c = ctx;

	CHECK(off + len <= c->size);
	memset(c->map + off, 1, len);
}

/* test_unlogged_changes -- bytes outside the superblock and the log that
 * differ from the heap image `before` and lie in no range of the running
 * transaction (os_tx_each_range); UINT64_MAX if no transaction runs */
static inline uint64_t test_unlogged_changes(const struct objstore *os,
					     const uint8_t *before)
{
	struct test_covered c = { calloc(1, os->size), os->size };
	uint64_t log_end = os->sb->log_offset + os->sb->log_size, count = 0;

	if (os_tx_each_range(os, test_cover, &c)) {
		free(c.map);
		return UINT64_MAX;
	}
	for (uint64_t off = os->sb->root_offset; off < os->size; off++) {
		if (off >= os->sb->log_offset && off < log_end)
			continue;
		if (os->base[off] != before[off] && !c.map[off])
			count++;
	}
	free(c.map);
	return count;
}

#endif
