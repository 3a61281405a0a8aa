/*
 * bench_objstore.c -- objstore's side of `make bench-objstore`.
 *
 * The same operations as bench_pmdk.c, on heaps that are files in /dev/shm
 * mapped shared, flushed with the real instructions (tools/host): single
 * thread, the median of --runs runs, one line `name ops_per_s ns_per_op`
 * per measurement. Every call is checked; a failure ends the program, since
 * a number measured past an error means nothing.
 *
 *   tx_alloc_64   os_tx_begin + os_alloc(64) + os_tx_commit
 *   tx_free_64    os_tx_begin + os_free (of one of those) + os_tx_commit
 *   tx_update_8   os_tx_begin + os_tx_set(8 bytes) + os_tx_commit
 *   tx_update_4k  the same for 4 KiB (the bytes memset into a buffer first)
 *   open_empty    open + mmap the file + os_open, an empty heap (the median
 *                 of --opens opens per run)
 *   open_full     the same, a heap holding --big-objects blob objects
 *   cat_insert    os_cat_insert, one transaction each (--names names,
 *   cat_lookup    os_cat_lookup         shuffled, each order its own)
 *   cat_remove    os_cat_remove, one transaction each
 *
 * With --count, each benchmark runs once, on a platform that counts what
 * objstore asks of it, and prints `# count name flush_calls lines fences
 * waits` (per operation; bench.h) instead of its time.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../objstore/crc32c.h" /* for the cost model only */
#include "bench.h"
#include "host_platform.h"
#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "objstore/objstore.h"

/* --- a platform that counts (--count) ------------------------------------ */

static bool counting;
static struct bench_counts counts;

/* count_flush -- count, then flush with the host's instruction */
static void count_flush(const void *p, size_t len)
{
	uintptr_t first = (uintptr_t)p & ~(uintptr_t)63;

	counts.flush_calls++;
	if (len) {
		counts.lines += ((uintptr_t)p + len - 1 - first) / 64 + 1;
		counts.pending = true;
	}
	host_platform()->flush(p, len);
}

/* count_fence -- count, then fence */
static void count_fence(void)
{
	counts.fences++;
	counts.waits += counts.pending;
	counts.pending = false;
	host_platform()->fence();
}

/* platform -- the host platform, with counters in front when counting */
static const struct os_platform *platform(void)
{
	static struct os_platform counting_pf;

	if (!counting)
		return host_platform();
	counting_pf = *host_platform();
	counting_pf.flush = count_flush;
	counting_pf.fence = count_fence;
	return &counting_pf;
}

/* section_start -- a measured section begins: the time (counters zeroed) */
static uint64_t section_start(void)
{
	memset(&counts, 0, sizeof(counts));
	return bench_now_ns();
}

/* section_end -- a section of `ops` operations ends: the time; when
 * counting, print its counts and start the next section's */
static uint64_t section_end(const char *name, uint64_t ops)
{
	if (counting)
		bench_count_line(name, &counts, ops);
	return section_start();
}

/* --- heap files ---------------------------------------------------------- */

/* check -- end the program if an objstore call failed */
static void check(int err, const char *what)
{
	if (err < 0)
		bench_die("objstore: %s: error %d", what, -err);
}

/* heap_new -- a fresh heap of `size` bytes in a new file `path`, mapped shared */
static void *heap_new(struct objstore *os, const char *path, uint64_t size,
		      const struct os_platform *pf)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	void *base;

	if (fd < 0)
		bench_die("%s: cannot create", path);
	if (ftruncate(fd, (off_t)size) != 0)
		bench_die("%s: cannot size to %llu bytes", path, (unsigned long long)size);
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		bench_die("%s: cannot map", path);
	check(os_create(os, base, size, pf, NULL), "os_create");
	return base;
}

/* heap_drop -- unmap and delete a heap file */
static void heap_drop(void *base, uint64_t size, const char *path)
{
	munmap(base, size);
	unlink(path);
}

/* --- transactions ------------------------------------------------------- */

enum { TX_ALLOC, TX_FREE, TX_UPDATE_8, TX_UPDATE_4K, TX_NBENCH };
static const char *const tx_names[TX_NBENCH] = {
	"tx_alloc_64", "tx_free_64", "tx_update_8", "tx_update_4k",
};

/* tx_alloc -- n transactions of one 64-byte allocation; offsets in off[] */
static void tx_alloc(struct objstore *os, uint64_t *off, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		check(os_tx_begin(os), "os_tx_begin");
		check(os_alloc(os, 64, &off[i]), "os_alloc");
		check(os_tx_commit(os), "os_tx_commit");
	}
}

/* tx_free -- n transactions of one free, in allocation order */
static void tx_free(struct objstore *os, const uint64_t *off, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		check(os_tx_begin(os), "os_tx_begin");
		check(os_free(os, off[i]), "os_free");
		check(os_tx_commit(os), "os_tx_commit");
	}
}

/* tx_update -- n transactions setting `len` bytes at p (os_tx_set) */
static void tx_update(struct objstore *os, uint8_t *p, size_t len, uint64_t n)
{
	static uint8_t bytes[OS_PAGE_SIZE];

	for (uint64_t i = 0; i < n; i++) {
		check(os_tx_begin(os), "os_tx_begin");
		if (len == 8)
			memcpy(bytes, &i, 8);
		else
			memset(bytes, (int)i, len);
		check(os_tx_set(os, p, bytes, len), "os_tx_set");
		check(os_tx_commit(os), "os_tx_commit");
	}
}

/* block -- one committed allocation of `size` bytes, for the updates */
static uint8_t *block(struct objstore *os, uint64_t size)
{
	uint64_t off;

	check(os_tx_begin(os), "os_tx_begin");
	check(os_alloc(os, size, &off), "os_alloc");
	memset(os_ptr(os, off), 0, size);
	check(os_tx_commit(os), "os_tx_commit");
	return os_ptr(os, off);
}

/* tx_run -- one run of the four benchmarks, n ops each; ns per op in ns[] */
static void tx_run(const struct bench_opts *o, uint64_t n, double ns[TX_NBENCH])
{
	char path[256];
	struct objstore os;
	uint64_t *off = malloc(n * sizeof(*off)), t[TX_NBENCH + 1];
	void *base;
	uint8_t *small, *page;

	if (!off)
		bench_die("out of memory");
	bench_path(path, sizeof(path), o, "objstore", "tx");
	base = heap_new(&os, path, o->small_size, platform());
	small = block(&os, 64);
	page = block(&os, 4096);
	t[0] = section_start();
	tx_alloc(&os, off, n);
	t[1] = section_end(tx_names[TX_ALLOC], n);
	tx_free(&os, off, n);
	t[2] = section_end(tx_names[TX_FREE], n);
	tx_update(&os, small, 8, n);
	t[3] = section_end(tx_names[TX_UPDATE_8], n);
	tx_update(&os, page, 4096, n);
	t[4] = section_end(tx_names[TX_UPDATE_4K], n);
	for (int b = 0; b < TX_NBENCH; b++)
		ns[b] = (double)(t[b + 1] - t[b]) / (double)n;
	heap_drop(base, o->small_size, path);
	free(off);
}

/* bench_tx -- the transaction benchmarks */
static void bench_tx(const struct bench_opts *o)
{
	double ns[TX_NBENCH][BENCH_MAX_RUNS], run[TX_NBENCH];

	for (unsigned r = 0; r < o->runs; r++) {
		tx_run(o, o->tx_ops, run);
		for (int b = 0; b < TX_NBENCH; b++)
			ns[b][r] = run[b];
	}
	for (int b = 0; !counting && b < TX_NBENCH; b++)
		bench_report(tx_names[b], ns[b], o->runs);
}

/* --- open ----------------------------------------------------------------- */

/* fill -- create `count` blob objects of 64 bytes, many per transaction */
static void fill(struct objstore *os, uint64_t count)
{
	uint64_t id, done = 0;

	while (done < count) {
		check(os_tx_begin(os), "os_tx_begin");
		for (unsigned k = 0; k < 4096 && done < count; k++, done++) {
			int err = os_obj_create(os, OS_TYPE_BLOB, 64, &id);

			if (err == -ERR_NOSPC)
				break; /* log full: commit and go on */
			check(err, "os_obj_create");
		}
		check(os_tx_commit(os), "os_tx_commit");
	}
}

/* time_open -- ns of one open + mmap + os_open of the heap file `path` */
static double time_open(const char *path, uint64_t size, const char *name)
{
	struct objstore os;
	uint64_t t0 = section_start(), t1;
	int fd = open(path, O_RDWR);
	void *base;

	if (fd < 0)
		bench_die("%s: cannot open", path);
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		bench_die("%s: cannot map", path);
	close(fd);
	check(os_open(&os, base, size, platform()), "os_open");
	t1 = section_end(name, 1);
	munmap(base, size);
	return (double)(t1 - t0);
}

/* open_run -- the median of --opens opens of the heap file `path` */
static double open_run(const struct bench_opts *o, const char *path,
		       uint64_t size, const char *name)
{
	double ns[BENCH_MAX_RUNS];

	for (unsigned k = 0; k < o->opens; k++)
		ns[k] = time_open(path, size, name);
	return bench_median(ns, o->opens);
}

/* open_one -- build a heap of `size` with `objects` objects; per run, the
 * median of --opens opens */
static void open_one(const struct bench_opts *o, const char *name,
		     uint64_t size, uint64_t objects)
{
	char path[256];
	struct objstore os;
	double ns[BENCH_MAX_RUNS];
	uint64_t t0 = bench_now_ns();
	void *base;

	bench_path(path, sizeof(path), o, "objstore", name);
	base = heap_new(&os, path, size, platform());
	fill(&os, objects);
	munmap(base, size);
	printf("# objstore: %s: %llu MiB heap, %llu objects, built in %.1f s\n", name,
	       (unsigned long long)(size >> 20), (unsigned long long)objects,
	       (double)(bench_now_ns() - t0) / 1e9);
	for (unsigned r = 0; r < o->runs; r++)
		ns[r] = open_run(o, path, size, name);
	if (!counting)
		bench_report(name, ns, o->runs);
	unlink(path);
}

/* bench_open -- open of an empty heap and of a full one */
static void bench_open(const struct bench_opts *o)
{
	open_one(o, "open_empty", o->small_size, 0);
	open_one(o, "open_full", o->big_size, o->big_objects);
}

/* --- the catalogue -------------------------------------------------------- */

/* cat_insert -- bind every name (to id i+1), one transaction each */
static void cat_insert(struct objstore *os, const struct bench_names *nm)
{
	for (uint64_t k = 0; k < nm->n; k++) {
		uint32_t i = nm->order[CAT_INSERT][k];

		check(os_tx_begin(os), "os_tx_begin");
		check(os_cat_insert(os, nm->name[i], nm->len[i], i + 1ull), "os_cat_insert");
		check(os_tx_commit(os), "os_tx_commit");
	}
}

/* cat_lookup -- look every name up and check its id */
static void cat_lookup(struct objstore *os, const struct bench_names *nm)
{
	uint64_t id;

	for (uint64_t k = 0; k < nm->n; k++) {
		uint32_t i = nm->order[CAT_LOOKUP][k];

		check(os_cat_lookup(os, nm->name[i], nm->len[i], &id), "os_cat_lookup");
		if (id != i + 1ull)
			bench_die("os_cat_lookup: %s has id %llu, not %u", nm->name[i],
				  (unsigned long long)id, i + 1);
	}
}

/* cat_remove -- unbind every name, one transaction each */
static void cat_remove(struct objstore *os, const struct bench_names *nm)
{
	uint64_t id;

	for (uint64_t k = 0; k < nm->n; k++) {
		uint32_t i = nm->order[CAT_REMOVE][k];

		check(os_tx_begin(os), "os_tx_begin");
		check(os_cat_remove(os, nm->name[i], nm->len[i], &id), "os_cat_remove");
		check(os_tx_commit(os), "os_tx_commit");
		if (id != i + 1ull)
			bench_die("os_cat_remove: %s had id %llu", nm->name[i],
				  (unsigned long long)id);
	}
}

/* cat_run -- one run of the three catalogue benchmarks; ns per op in ns[] */
static void cat_run(const struct bench_opts *o, const struct bench_names *nm,
		    double ns[CAT_NBENCH])
{
	char path[256];
	struct objstore os;
	uint64_t t[CAT_NBENCH + 1];
	void *base;

	bench_path(path, sizeof(path), o, "objstore", "cat");
	base = heap_new(&os, path, o->small_size, platform());
	t[0] = section_start();
	cat_insert(&os, nm);
	t[1] = section_end(bench_cat_names[CAT_INSERT], nm->n);
	cat_lookup(&os, nm);
	t[2] = section_end(bench_cat_names[CAT_LOOKUP], nm->n);
	cat_remove(&os, nm);
	t[3] = section_end(bench_cat_names[CAT_REMOVE], nm->n);
	for (int b = 0; b < CAT_NBENCH; b++)
		ns[b] = (double)(t[b + 1] - t[b]) / (double)nm->n;
	heap_drop(base, o->small_size, path);
}

/* bench_cat -- the catalogue benchmarks */
static void bench_cat(const struct bench_opts *o)
{
	double ns[CAT_NBENCH][BENCH_MAX_RUNS], run[CAT_NBENCH];
	struct bench_names nm;

	bench_names_make(&nm, o->names);
	for (unsigned r = 0; r < o->runs; r++) {
		cat_run(o, &nm, run);
		for (int b = 0; b < CAT_NBENCH; b++)
			ns[b][r] = run[b];
	}
	for (int b = 0; !counting && b < CAT_NBENCH; b++)
		bench_report(bench_cat_names[b], ns[b], o->runs);
}

/* --- the cost model ------------------------------------------------------- */

/* floor_costs -- what the platform charges for the steps every operation is
 * made of: write back one dirty line and wait for it, the same for a dirty
 * page, and a crc32c of a page; printed as a '#' note */
static void floor_costs(const struct bench_opts *o)
{
	enum { N = 20000 };
	const struct os_platform *pf = host_platform();
	char path[256];
	struct objstore os;
	uint64_t t[4];
	volatile uint32_t sink = 0;
	void *base;
	uint8_t *line, *page;

	bench_path(path, sizeof(path), o, "objstore", "floor");
	base = heap_new(&os, path, OS_MIN_HEAP_SIZE, pf);
	line = block(&os, 64);
	page = block(&os, 4096);
	t[0] = bench_now_ns();
	for (unsigned i = 0; i < N; i++) {
		*(volatile uint64_t *)line = i;
		pf->flush(line, 8);
		pf->fence();
	}
	t[1] = bench_now_ns();
	for (unsigned i = 0; i < N; i++) {
		memset(page, (int)i, 4096);
		pf->flush(page, 4096);
		pf->fence();
	}
	t[2] = bench_now_ns();
	for (unsigned i = 0; i < N; i++)
		sink += crc32c(i, page, 4096);
	t[3] = bench_now_ns();
	printf("# objstore: floor: store+flush+fence of 1 line %.0f ns, of 1 page "
	       "(64 lines) %.0f ns; crc32c of 1 page %.0f ns\n",
	       (double)(t[1] - t[0]) / N, (double)(t[2] - t[1]) / N,
	       (double)(t[3] - t[2]) / N);
	heap_drop(base, OS_MIN_HEAP_SIZE, path);
	(void)sink;
}

int main(int argc, char **argv)
{
	struct bench_opts o;

	bench_parse(&o, argc, argv);
	counting = o.count;
	if (counting)
		o.runs = o.opens = 1;
	printf("# objstore: flush instruction %s%s\n", host_flush_name(),
	       counting ? ", counting flushes and fences" : "");
	if (!counting)
		floor_costs(&o);
	if (bench_wants(&o, "tx"))
		bench_tx(&o);
	if (bench_wants(&o, "open"))
		bench_open(&o);
	if (bench_wants(&o, "cat"))
		bench_cat(&o);
	return 0;
}
