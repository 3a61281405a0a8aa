/*
 * bench.h -- what the objstore and PMDK benchmark programs share: options,
 * timing, the median-of-runs report line, names and their order.
 *
 * Each program prints one line per measurement:
 *
 *   name ops_per_s ns_per_op
 *
 * the median of `runs` runs, and lines starting with '#' for anything
 * else (notes, counts). tests/bench/run-objstore-bench reads both sides.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stdint.h>

#define BENCH_MAX_RUNS 15
#define BENCH_NAME_MAX 64

struct bench_opts {
	const char *dir;            /* where pool/heap files go (/dev/shm) */
	unsigned runs;              /* median of this many runs */
	uint64_t tx_ops;            /* operations per run of a tx_* benchmark */
	uint64_t names;             /* names per run of the catalogue benchmarks */
	uint64_t small_size;        /* the empty heap/pool that open measures */
	uint64_t big_size;          /* the full heap/pool that open measures */
	uint64_t big_objects;       /* objects in the full one */
	unsigned opens;             /* opens per run of an open benchmark (median) */
	const char *only;           /* comma-separated groups: tx,open,cat (NULL: all) */
	bool count;                 /* count flushes and fences instead of timing */
};

/* What a run asks of the persistence layer, counted (--count). */
struct bench_counts {
	uint64_t flush_calls;       /* calls that write back a range */
	uint64_t lines;             /* 64-byte lines in those ranges */
	uint64_t fences;            /* fences (PMDK: drains, persists, draining copies) */
	uint64_t waits;             /* fences with a write-back before them since the
				     * last fence: each waits for memory, the cost */
	bool pending;               /* a write-back since the last fence */
	uint64_t msyncs;            /* PMDK: msync calls (0 when PMEM_IS_PMEM_FORCE=1) */
};

/* bench_count_line -- print `# count name flush_calls lines fences waits` per op */
void bench_count_line(const char *name, const struct bench_counts *c, uint64_t ops);

/* pmdk_counts_get, pmdk_counts_reset -- defined by pmdk_count.so
 * (LD_PRELOAD), found by bench_pmdk with dlsym */
void pmdk_counts_get(struct bench_counts *out);
void pmdk_counts_reset(void);

/* bench_parse -- fill *o from argv (defaults first); exits on a bad option */
void bench_parse(struct bench_opts *o, int argc, char **argv);

/* bench_wants -- whether group `g` ("tx", "open", "cat") is to run */
bool bench_wants(const struct bench_opts *o, const char *g);

/* bench_now_ns -- CLOCK_MONOTONIC in nanoseconds */
uint64_t bench_now_ns(void);

/* bench_median -- the median of v[0..n), n <= BENCH_MAX_RUNS */
double bench_median(const double *v, unsigned n);

/* bench_report -- print the median of ns[0..runs) (ns per op) as a result line */
void bench_report(const char *name, const double *ns, unsigned runs);

/* bench_path -- "<dir>/ferrite-bench-<side>-<what>-<pid>" into buf */
void bench_path(char *buf, uint64_t size, const struct bench_opts *o,
		const char *side, const char *what);

/* bench_name -- the i-th benchmark name into buf (NUL-terminated); its length */
unsigned bench_name(uint64_t i, char *buf);

/* bench_shuffle -- order[0..n) = a permutation of 0..n-1 fixed by `seed` */
void bench_shuffle(uint32_t *order, uint64_t n, uint64_t seed);

/* The catalogue benchmarks, in the order they run. */
enum { CAT_INSERT, CAT_LOOKUP, CAT_REMOVE, CAT_NBENCH };
extern const char *const bench_cat_names[CAT_NBENCH];

/* The names both sides insert, look up and remove. */
struct bench_names {
	char (*name)[BENCH_NAME_MAX];
	uint8_t *len;
	uint32_t *order[CAT_NBENCH];    /* a shuffled order per operation */
	uint64_t n;
};

/* bench_names_make -- n names and a shuffled order over them per operation */
void bench_names_make(struct bench_names *nm, uint64_t n);

/* bench_hash -- a 64-bit hash of `len` bytes (FNV-1a) */
uint64_t bench_hash(const void *p, uint64_t len);

/* bench_die -- print "bench: <what>" and exit 1 */
void bench_die(const char *what, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
