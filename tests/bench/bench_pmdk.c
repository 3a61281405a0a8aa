/*
 * bench_pmdk.c -- PMDK's side of `make bench-objstore`: the operations of
 * bench_objstore.c done with libpmemobj, as a PMDK user would write them.
 *
 *   tx_alloc_64   TX_BEGIN + pmemobj_tx_alloc(64) + TX_END
 *   tx_free_64    TX_BEGIN + pmemobj_tx_free (of one of those) + TX_END
 *   tx_update_8   TX_BEGIN + pmemobj_tx_add_range(8) + an 8-byte store + TX_END
 *   tx_update_4k  the same for 4 KiB
 *   open_empty    pmemobj_open of an empty pool (the median of --opens
 *                 opens per run)
 *   open_full     pmemobj_open of a pool holding --big-objects 64-byte objects
 *   cat_insert    the hashmap_tx example PMDK ships (built from the installed
 *   cat_lookup    example sources, never copied here), keyed by a 64-bit hash
 *   cat_remove    of the name; the value is a PMDK object holding the id and
 *                 the name, compared on lookup and remove. Insert allocates
 *                 that object and inserts in one transaction; remove removes
 *                 and frees it in one.
 *
 * Run with PMEM_IS_PMEM_FORCE=1 (run-objstore-bench sets it) so libpmem
 * flushes with CLWB/CLFLUSHOPT + SFENCE, as objstore does, not with msync.
 *
 * With --count (and LD_PRELOAD=build/bench/pmdk_count.so), each benchmark
 * runs once and prints `# count name flush_calls lines fences waits` per
 * operation, as bench_objstore --count does, instead of its time.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpmem.h>
#include <libpmemobj.h>

#include "bench.h"
#include "hashmap_tx.h"

#define LAYOUT "ferrite-bench"
#define TYPE_NAME 7              /* type number of the name records */

/* The root object: what the benchmarks find again in a pool. */
struct bench_root {
	TOID(struct hashmap_tx) map;
};

/* A catalogue value: the id and the name it belongs to. */
struct name_rec {
	uint64_t id;
	uint16_t len;
	char name[];
};

/* --- counting (--count) --------------------------------------------------- */

static bool counting;
static void (*counts_get)(struct bench_counts *out);
static void (*counts_reset)(void);

/* count_setup -- find pmdk_count.so's counters; it must be preloaded */
static void count_setup(void)
{
	counts_get = (void (*)(struct bench_counts *))dlsym(RTLD_DEFAULT,
							     "pmdk_counts_get");
	counts_reset = (void (*)(void))dlsym(RTLD_DEFAULT, "pmdk_counts_reset");
	if (!counts_get || !counts_reset)
		bench_die("--count: run with LD_PRELOAD=build/bench/pmdk_count.so");
}

/* section_start -- a measured section begins: the time (counters zeroed) */
static uint64_t section_start(void)
{
	if (counting)
		counts_reset();
	return bench_now_ns();
}

/* section_end -- a section of `ops` operations ends: the time; when
 * counting, print its counts and start the next section's */
static uint64_t section_end(const char *name, uint64_t ops)
{
	struct bench_counts c;

	if (counting) {
		counts_get(&c);
		bench_count_line(name, &c, ops);
	}
	return section_start();
}

/* --- pools ----------------------------------------------------------------- */

/* pool_new -- a fresh pool of `size` bytes in file `path` */
static PMEMobjpool *pool_new(const char *path, uint64_t size)
{
	static bool said;
	PMEMobjpool *pop;

	unlink(path);
	pop = pmemobj_create(path, LAYOUT, size, 0600);
	if (!pop)
		bench_die("pmemobj_create %s: %s", path, pmemobj_errormsg());
	if (!said) {
		/* Whether libpmem flushes with instructions (1) or msync (0). */
		printf("# pmdk: pmem_is_pmem on the pool: %d\n",
		       pmem_is_pmem(pmemobj_direct(pmemobj_root(pop, 64)), 64));
		said = true;
	}
	return pop;
}

/* pool_drop -- close and delete a pool */
static void pool_drop(PMEMobjpool *pop, const char *path)
{
	pmemobj_close(pop);
	unlink(path);
}

/* --- transactions ------------------------------------------------------- */

enum { TX_ALLOC, TX_FREE, TX_UPDATE_8, TX_UPDATE_4K, TX_NBENCH };
static const char *const tx_names[TX_NBENCH] = {
	"tx_alloc_64", "tx_free_64", "tx_update_8", "tx_update_4k",
};

/* tx_failed -- a transaction aborted: end the program */
static void __attribute__((noreturn)) tx_failed(const char *what)
{
	bench_die("pmdk: %s: transaction aborted: %s", what, pmemobj_errormsg());
}

/*
 * Each transaction is in a function of its own: TX_BEGIN is a setjmp, and a
 * loop counter living across it could be clobbered by the longjmp.
 */

/* alloc_one -- one transaction allocating 64 bytes */
static PMEMoid alloc_one(PMEMobjpool *pop)
{
	PMEMoid oid = OID_NULL;

	TX_BEGIN(pop) {
		oid = pmemobj_tx_alloc(64, 0);
	} TX_ONABORT {
		tx_failed("pmemobj_tx_alloc");
	} TX_END
	return oid;
}

/* free_one -- one transaction freeing oid */
static void free_one(PMEMobjpool *pop, PMEMoid oid)
{
	TX_BEGIN(pop) {
		pmemobj_tx_free(oid);
	} TX_ONABORT {
		tx_failed("pmemobj_tx_free");
	} TX_END
}

/* update_one -- one transaction snapshotting and rewriting `len` bytes at p */
static void update_one(PMEMobjpool *pop, PMEMoid oid, uint8_t *p, size_t len,
		       uint64_t value)
{
	TX_BEGIN(pop) {
		pmemobj_tx_add_range(oid, 0, len);
		if (len == 8)
			*(volatile uint64_t *)p = value;
		else
			memset(p, (int)value, len);
	} TX_ONABORT {
		tx_failed("pmemobj_tx_add_range");
	} TX_END
}

/* tx_alloc -- n transactions of one 64-byte allocation; oids in oid[] */
static void tx_alloc(PMEMobjpool *pop, PMEMoid *oid, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		oid[i] = alloc_one(pop);
}

/* tx_free -- n transactions of one free, in allocation order */
static void tx_free(PMEMobjpool *pop, const PMEMoid *oid, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		free_one(pop, oid[i]);
}

/* tx_update -- n transactions snapshotting and rewriting `len` bytes of oid */
static void tx_update(PMEMobjpool *pop, PMEMoid oid, size_t len, uint64_t n)
{
	uint8_t *p = pmemobj_direct(oid);

	for (uint64_t i = 0; i < n; i++)
		update_one(pop, oid, p, len, i);
}

/* block -- one zeroed allocation of `size` bytes, for the updates */
static PMEMoid block(PMEMobjpool *pop, uint64_t size)
{
	PMEMoid oid;

	if (pmemobj_zalloc(pop, &oid, size, 0) != 0)
		bench_die("pmemobj_zalloc: %s", pmemobj_errormsg());
	return oid;
}

/* tx_run -- one run of the four benchmarks, n ops each; ns per op in ns[] */
static void tx_run(const struct bench_opts *o, uint64_t n, double ns[TX_NBENCH])
{
	char path[256];
	PMEMoid *oid = malloc(n * sizeof(*oid)), small, page;
	uint64_t t[TX_NBENCH + 1];
	PMEMobjpool *pop;

	if (!oid)
		bench_die("out of memory");
	bench_path(path, sizeof(path), o, "pmdk", "tx");
	pop = pool_new(path, o->small_size);
	small = block(pop, 64);
	page = block(pop, 4096);
	t[0] = section_start();
	tx_alloc(pop, oid, n);
	t[1] = section_end(tx_names[TX_ALLOC], n);
	tx_free(pop, oid, n);
	t[2] = section_end(tx_names[TX_FREE], n);
	tx_update(pop, small, 8, n);
	t[3] = section_end(tx_names[TX_UPDATE_8], n);
	tx_update(pop, page, 4096, n);
	t[4] = section_end(tx_names[TX_UPDATE_4K], n);
	for (int b = 0; b < TX_NBENCH; b++)
		ns[b] = (double)(t[b + 1] - t[b]) / (double)n;
	pool_drop(pop, path);
	free(oid);
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

/* fill -- allocate `count` objects of 64 bytes (atomic allocations) */
static void fill(PMEMobjpool *pop, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++)
		if (pmemobj_alloc(pop, NULL, 64, 1, NULL, NULL) != 0)
			bench_die("pmemobj_alloc #%llu: %s", (unsigned long long)i,
				  pmemobj_errormsg());
}

/* time_open -- ns of one pmemobj_open of `path` */
static double time_open(const char *path, const char *name)
{
	uint64_t t0 = section_start(), t1;
	PMEMobjpool *pop = pmemobj_open(path, LAYOUT);

	t1 = section_end(name, 1);
	if (!pop)
		bench_die("pmemobj_open %s: %s", path, pmemobj_errormsg());
	pmemobj_close(pop);
	return (double)(t1 - t0);
}

/* open_run -- the median of --opens opens of the pool file `path` */
static double open_run(const struct bench_opts *o, const char *path,
		       const char *name)
{
	double ns[BENCH_MAX_RUNS];

	for (unsigned k = 0; k < o->opens; k++)
		ns[k] = time_open(path, name);
	return bench_median(ns, o->opens);
}

/* open_one -- build a pool of `size` with `objects` objects; per run, the
 * median of --opens opens */
static void open_one(const struct bench_opts *o, const char *name,
		     uint64_t size, uint64_t objects)
{
	char path[256];
	double ns[BENCH_MAX_RUNS];
	uint64_t t0 = bench_now_ns();
	PMEMobjpool *pop;

	bench_path(path, sizeof(path), o, "pmdk", name);
	pop = pool_new(path, size);
	fill(pop, objects);
	pmemobj_close(pop);
	printf("# pmdk: %s: %llu MiB pool, %llu objects, built in %.1f s\n", name,
	       (unsigned long long)(size >> 20), (unsigned long long)objects,
	       (double)(bench_now_ns() - t0) / 1e9);
	for (unsigned r = 0; r < o->runs; r++)
		ns[r] = open_run(o, path, name);
	if (!counting)
		bench_report(name, ns, o->runs);
	unlink(path);
}

/* bench_open -- open of an empty pool and of a full one */
static void bench_open(const struct bench_opts *o)
{
	open_one(o, "open_empty", o->small_size, 0);
	open_one(o, "open_full", o->big_size, o->big_objects);
}

/* --- the catalogue: hashmap_tx -------------------------------------------- */

/* rec_matches -- whether the value `v` is the record of `name` */
static bool rec_matches(PMEMoid v, const char *name, unsigned len)
{
	const struct name_rec *r = pmemobj_direct(v);

	return r && r->len == len && memcmp(r->name, name, len) == 0;
}

/* insert_one -- insert a name: its record and its entry, one transaction */
static void insert_one(PMEMobjpool *pop, TOID(struct hashmap_tx) map,
		       const char *name, unsigned len, uint64_t id)
{
	uint64_t key = bench_hash(name, len);

	TX_BEGIN(pop) {
		PMEMoid v = pmemobj_tx_alloc(sizeof(struct name_rec) + len, TYPE_NAME);
		struct name_rec *r = pmemobj_direct(v);

		r->id = id;
		r->len = (uint16_t)len;
		memcpy(r->name, name, len);
		if (hm_tx_insert(pop, map, key, v) != 0)
			pmemobj_tx_abort(EEXIST); /* a hash collision */
	} TX_ONABORT {
		tx_failed("hm_tx_insert");
	} TX_END
}

/* cat_insert -- insert every name (id i+1) */
static void cat_insert(PMEMobjpool *pop, TOID(struct hashmap_tx) map,
		       const struct bench_names *nm)
{
	for (uint64_t k = 0; k < nm->n; k++) {
		uint32_t i = nm->order[CAT_INSERT][k];

		insert_one(pop, map, nm->name[i], nm->len[i], i + 1ull);
	}
}

/* cat_lookup -- look every name up, compare the name, check its id */
static void cat_lookup(PMEMobjpool *pop, TOID(struct hashmap_tx) map,
		       const struct bench_names *nm)
{
	for (uint64_t k = 0; k < nm->n; k++) {
		uint32_t i = nm->order[CAT_LOOKUP][k];
		unsigned len = nm->len[i];
		PMEMoid v = hm_tx_get(pop, map, bench_hash(nm->name[i], len));

		if (!rec_matches(v, nm->name[i], len))
			bench_die("hm_tx_get: %s not found", nm->name[i]);
		if (((const struct name_rec *)pmemobj_direct(v))->id != i + 1ull)
			bench_die("hm_tx_get: %s has the wrong id", nm->name[i]);
	}
}

/* remove_one -- remove a name and free its record, one transaction */
static void remove_one(PMEMobjpool *pop, TOID(struct hashmap_tx) map,
		       const char *name, unsigned len)
{
	uint64_t key = bench_hash(name, len);

	TX_BEGIN(pop) {
		PMEMoid v = hm_tx_remove(pop, map, key);

		if (!rec_matches(v, name, len))
			pmemobj_tx_abort(ENOENT);
		pmemobj_tx_free(v);
	} TX_ONABORT {
		tx_failed("hm_tx_remove");
	} TX_END
}

/* cat_remove -- remove every name */
static void cat_remove(PMEMobjpool *pop, TOID(struct hashmap_tx) map,
		       const struct bench_names *nm)
{
	for (uint64_t k = 0; k < nm->n; k++) {
		uint32_t i = nm->order[CAT_REMOVE][k];

		remove_one(pop, map, nm->name[i], nm->len[i]);
	}
}

/* cat_run -- one run of the three catalogue benchmarks; ns per op in ns[] */
static void cat_run(const struct bench_opts *o, const struct bench_names *nm,
		    double ns[CAT_NBENCH])
{
	char path[256];
	struct hashmap_args args = { .seed = 1 };
	PMEMobjpool *pop;
	struct bench_root *root;
	uint64_t t[CAT_NBENCH + 1];

	bench_path(path, sizeof(path), o, "pmdk", "cat");
	pop = pool_new(path, o->small_size);
	root = pmemobj_direct(pmemobj_root(pop, sizeof(*root)));
	if (!root || hm_tx_create(pop, &root->map, &args) != 0)
		bench_die("hm_tx_create: %s", pmemobj_errormsg());
	hm_tx_init(pop, root->map);
	t[0] = section_start();
	cat_insert(pop, root->map, nm);
	t[1] = section_end(bench_cat_names[CAT_INSERT], nm->n);
	cat_lookup(pop, root->map, nm);
	t[2] = section_end(bench_cat_names[CAT_LOOKUP], nm->n);
	cat_remove(pop, root->map, nm);
	t[3] = section_end(bench_cat_names[CAT_REMOVE], nm->n);
	if (hm_tx_count(pop, root->map) != 0)
		bench_die("hashmap_tx: names left after removing them all");
	for (int b = 0; b < CAT_NBENCH; b++)
		ns[b] = (double)(t[b + 1] - t[b]) / (double)nm->n;
	pool_drop(pop, path);
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

int main(int argc, char **argv)
{
	struct bench_opts o;
	const char *force = getenv("PMEM_IS_PMEM_FORCE");

	bench_parse(&o, argc, argv);
	counting = o.count;
	if (counting) {
		count_setup();
		o.runs = o.opens = 1;
	}
	if (!force || strcmp(force, "1") != 0)
		printf("# pmdk: warning: PMEM_IS_PMEM_FORCE is not 1: PMDK will msync\n");
	printf("# pmdk: libpmemobj API %d.%d%s\n", PMEMOBJ_MAJOR_VERSION,
	       PMEMOBJ_MINOR_VERSION, counting ? ", counting flushes and fences" : "");
	if (bench_wants(&o, "tx"))
		bench_tx(&o);
	if (bench_wants(&o, "open"))
		bench_open(&o);
	if (bench_wants(&o, "cat"))
		bench_cat(&o);
	return 0;
}
