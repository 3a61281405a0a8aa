/*
 * bench_common.c -- options, timing and reporting shared by the objstore
 * and PMDK benchmark programs (bench.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <numtext.h>                /* libc's, after the host's headers */

#include "bench.h"

/* parse_u64 -- a number with an optional K/M/G/T suffix (libc's parse_size) */
static uint64_t parse_u64(const char *opt, const char *s)
{
	uint64_t v;

	if (parse_size(s, &v) < 0)
		bench_die("%s: not a number: %s", opt, s);
	return v;
}

/* usage -- the options, then exit 2 */
static void __attribute__((noreturn)) usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--dir DIR] [--runs N] [--tx-ops N] [--names N]\n"
		"          [--small-size BYTES] [--big-size BYTES] [--big-objects N] [--opens N]\n"
		"          [--only tx,open,cat] [--count]\n", prog);
	exit(2);
}

/* bench_parse -- fill *o from argv (defaults first); exits on a bad option */
void bench_parse(struct bench_opts *o, int argc, char **argv)
{
	*o = (struct bench_opts){
		.dir = "/dev/shm",
		.runs = 5,
		.tx_ops = 100000,
		.names = 200000,
		.small_size = 256ull << 20,
		.big_size = 4ull << 30,
		.big_objects = 1000000,
		.opens = 5,
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--count")) {
			o->count = true;
			continue;
		}
		if (!v || a[0] != '-')
			usage(argv[0]);
		i++;
		if (!strcmp(a, "--dir"))
			o->dir = v;
		else if (!strcmp(a, "--runs"))
			o->runs = (unsigned)parse_u64(a, v);
		else if (!strcmp(a, "--tx-ops"))
			o->tx_ops = parse_u64(a, v);
		else if (!strcmp(a, "--names"))
			o->names = parse_u64(a, v);
		else if (!strcmp(a, "--small-size"))
			o->small_size = parse_u64(a, v);
		else if (!strcmp(a, "--big-size"))
			o->big_size = parse_u64(a, v);
		else if (!strcmp(a, "--big-objects"))
			o->big_objects = parse_u64(a, v);
		else if (!strcmp(a, "--opens"))
			o->opens = (unsigned)parse_u64(a, v);
		else if (!strcmp(a, "--only"))
			o->only = v;
		else
			usage(argv[0]);
	}
	if (o->runs == 0 || o->runs > BENCH_MAX_RUNS)
		bench_die("--runs: 1..%d", BENCH_MAX_RUNS);
	if (o->opens == 0 || o->opens > BENCH_MAX_RUNS)
		bench_die("--opens: 1..%d", BENCH_MAX_RUNS);
	if (o->tx_ops == 0 || o->names == 0 || o->names > UINT32_MAX)
		bench_die("--tx-ops and --names must be positive (names < 2^32)");
}

/* bench_wants -- whether group `g` is to run */
bool bench_wants(const struct bench_opts *o, const char *g)
{
	size_t n = strlen(g);

	if (!o->only)
		return true;
	for (const char *s = o->only; *s;) {
		size_t len = strcspn(s, ",");

		if (len == n && !memcmp(s, g, n))
			return true;
		s += len + (s[len] == ',');
	}
	return false;
}

/* bench_now_ns -- CLOCK_MONOTONIC in nanoseconds */
uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* cmp_double -- qsort order of doubles */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* bench_median -- the median of v[0..n), n <= BENCH_MAX_RUNS */
double bench_median(const double *v, unsigned n)
{
	double sorted[BENCH_MAX_RUNS];

	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* bench_report -- print the median of ns[0..runs) as a result line */
void bench_report(const char *name, const double *ns, unsigned runs)
{
	double med = bench_median(ns, runs);

	printf("%s %.0f %.1f\n", name, 1e9 / med, med);
	printf("# %s runs(ns/op):", name);
	for (unsigned i = 0; i < runs; i++)
		printf(" %.1f", ns[i]);
	printf("\n");
	fflush(stdout);
}

/* bench_count_line -- print `# count name flush_calls lines fences waits` per op */
void bench_count_line(const char *name, const struct bench_counts *c, uint64_t ops)
{
	double n = (double)ops;

	printf("# count %s %.2f %.2f %.2f %.2f\n", name, (double)c->flush_calls / n,
	       (double)c->lines / n, (double)c->fences / n, (double)c->waits / n);
	if (c->msyncs)
		printf("# pmdk: warning: %s: %llu msync calls\n", name,
		       (unsigned long long)c->msyncs);
	fflush(stdout);
}

/* bench_path -- "<dir>/ferrite-bench-<side>-<what>-<pid>" into buf */
void bench_path(char *buf, uint64_t size, const struct bench_opts *o,
		const char *side, const char *what)
{
	snprintf(buf, size, "%s/ferrite-bench-%s-%s-%ld", o->dir, side, what,
		 (long)getpid());
}

/* bench_name -- the i-th benchmark name into buf; its length */
unsigned bench_name(uint64_t i, char *buf)
{
	/* Shaped like a tree of files: 1000 "directories" of ~200 names. */
	int n = snprintf(buf, BENCH_NAME_MAX, "home/user%03u/notes/file-%07u.txt",
			 (unsigned)(i % 1000), (unsigned)i);

	return (unsigned)n;
}

/* splitmix -- the next value of a splitmix64 sequence */
static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* bench_shuffle -- order[0..n) = a permutation of 0..n-1 fixed by `seed` */
void bench_shuffle(uint32_t *order, uint64_t n, uint64_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = splitmix(&seed) % (i + 1);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

/* bench_hash -- a 64-bit hash of `len` bytes (FNV-1a) */
uint64_t bench_hash(const void *p, uint64_t len)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint64_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* bench_die -- print "bench: <what>" and exit 1 */
void bench_die(const char *what, ...)
{
	va_list ap;

	va_start(ap, what);
	fputs("bench: ", stderr);
	vfprintf(stderr, what, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

const char *const bench_cat_names[CAT_NBENCH] = {
	"cat_insert", "cat_lookup", "cat_remove",
};

/* bench_names_make -- n names and a shuffled order over them per operation */
void bench_names_make(struct bench_names *nm, uint64_t n)
{
	nm->n = n;
	nm->name = malloc(n * sizeof(*nm->name));
	nm->len = malloc(n);
	if (!nm->name || !nm->len)
		bench_die("out of memory");
	for (uint64_t i = 0; i < n; i++)
		nm->len[i] = (uint8_t)bench_name(i, nm->name[i]);
	for (int b = 0; b < CAT_NBENCH; b++) {
		nm->order[b] = malloc(n * sizeof(uint32_t));
		if (!nm->order[b])
			bench_die("out of memory");
		bench_shuffle(nm->order[b], n, 1 + (uint64_t)b);
	}
}
