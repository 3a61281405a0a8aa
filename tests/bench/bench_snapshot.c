/*
 * bench_snapshot.c -- what snapshots cost in objstore, on the host
 * (docs/snapshots.md, docs/performance.md#snapshots):
 *
 *   take       taking a snapshot (its transaction: begin, os_snap_take,
 *              commit) in a 64 MiB heap of 1,000 objects and a 4 GiB heap
 *              of 1,000,000 (--objects): the median of --runs takes, each
 *              removed again before the next
 *   capture    a transaction writing 8 bytes into each of 1,024 pages of a
 *              blob (in the 4 GiB heap, whose area holds five snapshots'
 *              worth), with 0, 1 and 5 snapshots held: ns a page the first
 *              time after the newest snapshot (each page copied) and the
 *              second time (nothing to copy)
 *   restore    restoring a snapshot after K pages of a blob changed (K =
 *              1, 16, 256, 1,024), in both heaps: ns for the whole restore
 *
 * Heaps live in anonymous memory with the real flush instructions of the
 * host platform. One line a figure:
 *
 *   snapshot FIGURE NAME median_ns min_ns max_ns
 *
 * and '#' lines for notes. tests/bench/run-snapshot-bench reads them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ferrite/errors.h"
#include "host_platform.h"
#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "objstore/objstore.h"

#define MIB (1ull << 20)
#define RUNS_MAX 1001
#define CAPTURE_PAGES 1024u
#define FILL_BATCH 256u

static unsigned runs = 201;

/* now_ns -- CLOCK_MONOTONIC in ns */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* must -- exit with a message on an error */
static void must(int err, const char *what)
{
	if (err < 0) {
		fprintf(stderr, "bench_snapshot: %s: error %d\n", what, err);
		exit(1);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* line -- the median, min and max of n samples */
static void line(const char *figure, const char *name, uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	printf("snapshot %s %s %llu %llu %llu\n", figure, name, (unsigned long long)v[n / 2],
	       (unsigned long long)v[0], (unsigned long long)v[n - 1]);
	fflush(stdout);
}

/* heap -- a fresh heap of `size` bytes holding `objects` named 64-byte blobs
 * and one blob `big` of `big_pages` pages, each page written */
static void heap(struct objstore *os, uint64_t size, uint64_t objects, uint64_t big_pages)
{
	void *base = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	static uint8_t page[4096];
	char name[48];
	uint64_t id;

	if (base == MAP_FAILED) {
		perror("bench_snapshot: mmap");
		exit(1);
	}
	must(os_create(os, base, size, host_platform(), NULL), "create");
	for (uint64_t i = 0; i < objects;) {
		must(os_tx_begin(os), "begin");
		for (unsigned b = 0; b < FILL_BATCH && i < objects; b++, i++) {
			must(os_obj_create(os, OS_TYPE_BLOB, 64, &id), "object");
			snprintf(name, sizeof(name), "bench/fill/%llu", (unsigned long long)id);
			must(os_cat_insert(os, name, strlen(name), id), "name");
		}
		must(os_tx_commit(os), "commit");
	}
	must(os_tx_begin(os), "begin");
	must(os_obj_create(os, OS_TYPE_BLOB, big_pages * 4096, &id), "big");
	must(os_cat_insert(os, "big", 3, id), "name big");
	must(os_tx_commit(os), "commit");
	for (uint64_t p = 0; p < big_pages; p++) {
		memset(page, (int)p, sizeof(page));
		must(os_tx_begin(os), "begin");
		must((int)os_obj_write(os, id, p * 4096, page, sizeof(page)), "write big");
		must(os_tx_commit(os), "commit");
	}
}

static void take(struct objstore *os, const char *name)
{
	must(os_tx_begin(os), "begin");
	must(os_snap_take(os, name, 0, 0), "take");
	must(os_tx_commit(os), "commit");
}

static void drop(struct objstore *os, const char *name)
{
	int more;

	must(os_tx_begin(os), "begin");
	must(os_snap_rm(os, name), "rm");
	do {
		more = os_snap_reclaim(os);
		must(more, "reclaim");
		must(os_tx_commit(os), "commit");
		must(os_tx_begin(os), "begin");
	} while (more == 1);
	must(os_tx_commit(os), "commit");
}

/* touch -- one transaction writing 8 bytes into pages [0, n) of big */
static void touch(struct objstore *os, uint64_t n, uint64_t value)
{
	uint64_t id;

	must(os_cat_lookup(os, "big", 3, &id), "lookup");
	must(os_tx_begin(os), "begin");
	for (uint64_t p = 0; p < n; p++)
		must((int)os_obj_write(os, id, p * 4096 + 8 * (value % 500), &value, 8), "write");
	must(os_tx_commit(os), "commit");
}

/* bench_take -- the take figure of one heap */
static void bench_take(struct objstore *os, const char *name)
{
	static uint64_t v[RUNS_MAX];

	for (unsigned r = 0; r < runs; r++) {
		uint64_t t0 = now_ns();

		take(os, "t");
		v[r] = now_ns() - t0;
		drop(os, "t");
	}
	line("take", name, v, runs);
}

/* bench_capture -- first and second touch of CAPTURE_PAGES pages with
 * `held` snapshots: each round takes a new one and removes the oldest
 * (a leaf, whose pages go back at once) */
static void bench_capture(struct objstore *os, unsigned held)
{
	static uint64_t first[RUNS_MAX], second[RUNS_MAX];
	unsigned n = runs < 31 ? runs : 31, oldest = 0, next = 0;
	char name[32];

	for (; next + 1 < held; next++) {
		snprintf(name, sizeof(name), "held%u", next);
		take(os, name);
	}
	for (unsigned r = 0; r < n; r++) {
		uint64_t t0;

		if (held) {
			snprintf(name, sizeof(name), "held%u", next++);
			take(os, name);
		}
		t0 = now_ns();
		touch(os, CAPTURE_PAGES, 2 * r);
		first[r] = (now_ns() - t0) / CAPTURE_PAGES;
		t0 = now_ns();
		touch(os, CAPTURE_PAGES, 2 * r + 1);
		second[r] = (now_ns() - t0) / CAPTURE_PAGES;
		if (held) {
			snprintf(name, sizeof(name), "held%u", oldest++);
			drop(os, name);
		}
	}
	snprintf(name, sizeof(name), "first-write/%u-held", held);
	line("capture", name, first, n);
	snprintf(name, sizeof(name), "again/%u-held", held);
	line("capture", name, second, n);
	while (oldest < next) {
		snprintf(name, sizeof(name), "held%u", oldest++);
		drop(os, name);
	}
}

/* bench_restore -- restoring after k pages changed */
static void bench_restore(struct objstore *os, const char *heap_name, uint64_t k)
{
	static uint64_t v[RUNS_MAX];
	unsigned n = runs < 15 ? runs : 15;
	char name[64];

	for (unsigned r = 0; r < n; r++) {
		uint64_t t0;

		take(os, "r");
		touch(os, k, r + 7);
		t0 = now_ns();
		must(os_snap_restore(os, "r", "b", 0), "restore");
		v[r] = now_ns() - t0;
		drop(os, "b");
		drop(os, "r");
	}
	snprintf(name, sizeof(name), "%s/%llu-pages", heap_name, (unsigned long long)k);
	line("restore", name, v, n);
}

int main(int argc, char **argv)
{
	static const uint64_t ks[] = { 1, 16, 256, 1024 };
	uint64_t big_objects = 1000000;
	struct objstore small, big;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--objects") && i + 1 < argc)
			big_objects = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: bench_snapshot [--runs N] [--objects N]\n");
			return 2;
		}
	}
	if (runs < 1 || runs > RUNS_MAX)
		runs = 201;
	heap(&small, 64 * MIB, 1000, 2048);
	printf("# 64 MiB heap: 1000 objects; 4 GiB heap: %llu objects\n",
	       (unsigned long long)big_objects);
	heap(&big, 4096 * MIB, big_objects, 2048);
	bench_take(&small, "64MiB");
	bench_take(&big, "4GiB");
	for (unsigned held = 0; held <= 5; held += held ? 4 : 1)
		bench_capture(&big, held);
	for (unsigned i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		bench_restore(&small, "64MiB", ks[i]);
		bench_restore(&big, "4GiB", ks[i]);
	}
	return 0;
}
