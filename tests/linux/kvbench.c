/*
 * kvbench.c -- a small Redis-like key-value store and its workload, timed
 * inside the program: the same static binary in Ferrite and in a Linux
 * guest on the same QEMU (tests/bench/run-peers-bench, docs/performance.md,
 * "Ferrite on its peers' workload").
 *
 *   kvbench [--keys K] [--ops N] [--seed S] [--aof FILE [--fsync always|no]]
 *           [--stalls US] [--serve]
 *
 * The store: KEYS entries of a 16-byte key ("key:" and 12 digits) and a
 * 100-byte value, in one array, found through an open-addressing hash
 * table (FNV-1a, linear probing, at most half full) of entry numbers --
 * Redis's shape: a table of references to the entries.
 *
 * The load: every key SET once, in order, untimed by the figures (the data
 * set a server would hold before its clients come), then sync(2) twice.
 * In Ferrite a sync is a commit, and each commit sets the next checkpoint
 * interval from its own cost (no sooner than 20 times it: docs/
 * checkpoints.md): the first makes the load durable, a commit of every
 * page the load wrote, which alone would hold off the next checkpoint for
 * seconds; the second, of nothing, puts the interval back to the period
 * asked for, so the run starts as a server that loaded its data long ago
 * would run. (In Linux the two cost next to nothing: the AOF is already
 * on the disk.) The run: N operations,
 * each a GET or a SET (one bit of a seeded xorshift64* draw) of a key drawn
 * uniformly from the K (YCSB's workload A, 50 % reads and 50 % updates,
 * without its Zipf skew: every SET likely touches a page no other SET of
 * the last few hundred did, the hardest case for a checkpoint). A GET
 * copies the value into a reply buffer and folds it into a sum of what was
 * read; a SET writes a new value, made from the key and the operation's
 * number.
 *
 * With --aof FILE each SET, load included, also appends its command to
 * FILE as Redis's append-only file holds it (RESP: *3 $3 SET $16 KEY $100
 * VALUE), by one write(2); --fsync always then makes it durable before the
 * next operation by fdatasync(2), Redis's `appendfsync always`; the load
 * ends with one fdatasync. --fsync no leaves the writes to the kernel.
 *
 * The run is timed by CLOCK_MONOTONIC, read before and after it; each
 * operation by the TSC (rdtsc) read after it, its latency the ticks since
 * the previous operation ended, counted in a log-linear histogram (32
 * buckets an octave: a quantile is known to 1/32, about 3 %, and the
 * histogram's few KiB are all the memory the timing writes, so that the
 * checkpoints see the store's pages alone), turned into ns by the run's
 * ticks per ns. With --stalls US each operation that took longer than US
 * microseconds (by the ticks per ns of the load) is also told as it
 * happens -- a checkpoint's pause shows as one:
 *
 *   kvbench: stall of D us at op I, T ms into the run
 *
 * With --serve, after the load, the store answers requests read from its
 * standard input instead of running the workload, a line each: `GET K`
 * prints the value of key number K, `SET K` gives it a new value and
 * prints OK, anything else ERR; it ends at the end of the input. A client
 * outside the machine times the replies (tests/bench/run-peers-bench: the
 * output commit, which holds a reply until the commit after it).
 *
 * Not clock_gettime for each: Ferrite has no vDSO, so there it is a system
 * call, which under TCG costs more than the operation it would time (the
 * figures would be the clock's, and unequal: Linux reads its clock in user
 * mode). Under TCG the guest's TSC runs with the host's clock on both
 * sides. At the end one line:
 *
 *   kvbench: ops N gets G sets S ns NS ops/s R p50 A p99 B p999 C max D
 *            table T reads U fsyncs F
 *
 * (on one line): NS the run's time, R = N / NS, the latencies in ns by the
 * nearest rank (D exact), T the FNV-1a of every entry in order (the same
 * on any machine for the same K, N and S: what the tests compare with the
 * host's), U the sum of what the GETs read, F the run's fdatasyncs. Then
 * where the run's time went, by how long its operations took:
 *
 *   kvbench: ms in operations under 10 us A, 10-100 us B, 0.1-1 ms C,
 *            1-10 ms D, 10 ms or more E
 *
 * (on one line; from the histogram, each bucket at its middle).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEY_LEN 16
#define VALUE_LEN 100
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL
#define SUB_BITS 5
#define SUB_BUCKETS (1 << SUB_BITS)           /* an octave's buckets */
#define BUCKETS ((64 - SUB_BITS + 1) * SUB_BUCKETS)

struct entry {
	char key[KEY_LEN];
	char value[VALUE_LEN];
	uint32_t version;            /* the operation that last SET it */
};

struct store {
	struct entry *entries;
	uint32_t *slots;             /* entry number + 1; 0: empty */
	uint64_t mask;               /* slots - 1 */
	int aof;                     /* -1: none */
	int fsync_always;            /* set once the load is done */
	long fsyncs;
};

struct run {
	uint64_t histogram[BUCKETS];
	uint64_t reads, longest;     /* longest: ticks */
	long gets;
	int64_t ns;
	double ns_per_tick;          /* over the run */
};

struct options {
	long keys, ops, stall_us;
	uint64_t seed;
	const char *aof;
	int fsync_always, serve;
};

/* now_ns -- CLOCK_MONOTONIC in ns */
static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* ticks -- the TSC */
static uint64_t ticks(void)
{
	return __builtin_ia32_rdtsc();
}

/* next_random -- xorshift64*: the next draw of the workload's generator */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

/* fnv1a -- fold len bytes into an FNV-1a hash */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

/* make_key -- key number k (< 10^12) as its 16 bytes, "key:" and 12 digits */
static void make_key(char key[KEY_LEN], long k)
{
	memcpy(key, "key:", 4);
	for (int i = KEY_LEN - 1; i >= 4; i--, k /= 10)
		key[i] = (char)('0' + k % 10);
}

/* make_value -- the 100 letters SET by operation op on key k */
static void make_value(char value[VALUE_LEN], long k, long op)
{
	uint64_t state = ((uint64_t)k << 32 | (uint64_t)op) * 0x9e3779b97f4a7c15ULL | 1;

	for (int i = 0; i < VALUE_LEN; i += 8) {
		uint64_t r = next_random(&state);

		for (int j = 0; j < 8 && i + j < VALUE_LEN; j++, r >>= 8)
			value[i + j] = (char)('a' + (r & 0xff) % 26);
	}
}

/* find_slot -- the slot holding key, or the empty slot where it goes */
static uint64_t find_slot(const struct store *s, const char key[KEY_LEN])
{
	uint64_t i = fnv1a(FNV_OFFSET, key, KEY_LEN) & s->mask;

	while (s->slots[i] && memcmp(s->entries[s->slots[i] - 1].key, key, KEY_LEN))
		i = (i + 1) & s->mask;
	return i;
}

/* append_command -- SET key value onto the AOF, made durable if asked;
 * 0 or -1 after saying why */
static int append_command(struct store *s, const struct entry *e)
{
	char record[160];
	int len = snprintf(record, sizeof(record), "*3\r\n$3\r\nSET\r\n$%d\r\n%.*s\r\n$%d\r\n",
			   KEY_LEN, KEY_LEN, e->key, VALUE_LEN);

	memcpy(record + len, e->value, VALUE_LEN);
	memcpy(record + len + VALUE_LEN, "\r\n", 2);
	len += VALUE_LEN + 2;
	if (write(s->aof, record, len) != len) {
		perror("kvbench: write of the AOF");
		return -1;
	}
	if (s->fsync_always) {
		if (fdatasync(s->aof)) {
			perror("kvbench: fdatasync of the AOF");
			return -1;
		}
		s->fsyncs++;
	}
	return 0;
}

/* set -- SET key number k to the value of operation op; 0 or -1 */
static int set(struct store *s, long k, long op, long *count)
{
	char key[KEY_LEN];
	uint64_t slot;
	struct entry *e;

	make_key(key, k);
	slot = find_slot(s, key);
	if (!s->slots[slot]) {
		s->slots[slot] = (uint32_t)++*count;
		memcpy(s->entries[*count - 1].key, key, KEY_LEN);
	}
	e = &s->entries[s->slots[slot] - 1];
	make_value(e->value, k, op);
	e->version = (uint32_t)op;
	return s->aof >= 0 ? append_command(s, e) : 0;
}

/* get -- GET key number k into reply; its fold into the reads' sum */
static uint64_t get(const struct store *s, long k, char reply[VALUE_LEN])
{
	char key[KEY_LEN];
	uint64_t slot, sum = 0, word;

	make_key(key, k);
	slot = find_slot(s, key);
	if (!s->slots[slot])
		return 0;
	memcpy(reply, s->entries[s->slots[slot] - 1].value, VALUE_LEN);
	for (int i = 0; i + 8 <= VALUE_LEN; i += 8) {
		memcpy(&word, reply + i, 8);
		sum += word;
	}
	return sum;
}

/* bucket -- the histogram's bucket of a latency of t ticks: t itself
 * below 2 * SUB_BUCKETS, then SUB_BUCKETS an octave */
static int bucket(uint64_t t)
{
	int octave;

	if (t < 2 * SUB_BUCKETS)
		return (int)t;
	octave = 63 - __builtin_clzll(t) - SUB_BITS;
	return octave * SUB_BUCKETS + (int)(t >> octave);
}

/* bucket_ticks -- the middle of a bucket, in ticks */
static double bucket_ticks(int b)
{
	int octave = b / SUB_BUCKETS - 1;

	if (octave <= 0)
		return b;
	return ((double)(b - octave * SUB_BUCKETS) + 0.5) * (double)(1ULL << octave);
}

/* rank -- the latency (ticks) at fraction p of the n counted, by the
 * nearest rank; no more than the longest */
static double rank(const uint64_t *histogram, long n, double p, uint64_t longest)
{
	long want = (long)(p * (double)n + 0.999999), seen = 0;

	for (int b = 0; b < BUCKETS; b++) {
		seen += (long)histogram[b];
		if (seen >= want)
			return bucket_ticks(b) < (double)longest ? bucket_ticks(b) : (double)longest;
	}
	return (double)longest;
}

/* table_sum -- FNV-1a of every entry in order */
static uint64_t table_sum(const struct store *s, long count)
{
	return fnv1a(FNV_OFFSET, s->entries, (size_t)count * sizeof(struct entry));
}

/* parse_options -- argv into o; 0, or -1 after the usage line */
static int parse_options(int argc, char **argv, struct options *o)
{
	*o = (struct options){.keys = 100000, .ops = 500000, .seed = 1};
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(arg, "--serve")) {
			o->serve = 1;
			continue;
		}
		if (!val)
			goto usage;
		if (!strcmp(arg, "--keys"))
			o->keys = atol(val);
		else if (!strcmp(arg, "--ops"))
			o->ops = atol(val);
		else if (!strcmp(arg, "--seed"))
			o->seed = strtoull(val, NULL, 0);
		else if (!strcmp(arg, "--stalls"))
			o->stall_us = atol(val);
		else if (!strcmp(arg, "--aof"))
			o->aof = val;
		else if (!strcmp(arg, "--fsync") && !strcmp(val, "always"))
			o->fsync_always = 1;
		else if (strcmp(arg, "--fsync") || strcmp(val, "no"))
			goto usage;
		i++;
	}
	if (o->keys > 0 && o->keys < (1L << 30) && o->ops > 0 && o->seed && o->stall_us >= 0 &&
	    (o->aof || !o->fsync_always))
		return 0;
usage:
	fprintf(stderr, "usage: kvbench [--keys K] [--ops N] [--seed S] "
		"[--aof FILE [--fsync always|no]] [--stalls US] [--serve]\n");
	return -1;
}

/* open_store -- room for o->keys entries, and the AOF made empty; 0 or -1 */
static int open_store(struct store *s, const struct options *o)
{
	uint64_t slots = 1;

	while (slots < 2 * (uint64_t)o->keys)
		slots <<= 1;
	*s = (struct store){.mask = slots - 1, .aof = -1};
	s->entries = calloc(o->keys, sizeof(struct entry));
	s->slots = calloc(slots, sizeof(uint32_t));
	if (!s->entries || !s->slots) {
		fprintf(stderr, "kvbench: no memory for %ld keys\n", o->keys);
		return -1;
	}
	if (o->aof) {
		s->aof = open(o->aof, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
		if (s->aof < 0) {
			perror(o->aof);
			return -1;
		}
	}
	return 0;
}

/* load -- SET every key once, in order; then the data set made durable
 * (see the top: sync twice) */
static int load(struct store *s, long keys, long *count)
{
	for (long k = 0; k < keys; k++)
		if (set(s, k, 0, count))
			return -1;
	if (s->aof >= 0 && fdatasync(s->aof)) {
		perror("kvbench: fdatasync of the AOF");
		return -1;
	}
	sync();
	sync();
	return 0;
}

/* run -- the workload's operations, each timed into r; 0 or -1 */
static int run(struct store *s, const struct options *o, double ns_per_tick, struct run *r)
{
	uint64_t state = o->seed, first, last, stall = (uint64_t)(o->stall_us * 1e3 / ns_per_tick);
	int64_t start = now_ns();
	char reply[VALUE_LEN];
	long count = o->keys;        /* every key is in: no SET of the run inserts */

	first = last = ticks();
	for (long op = 1; op <= o->ops; op++) {
		uint64_t draw = next_random(&state), t;
		long k = (long)((draw >> 1) % (uint64_t)o->keys);

		if (draw & 1) {
			if (set(s, k, op, &count))
				return -1;
		} else {
			r->reads += get(s, k, reply);
			r->gets++;
		}
		t = ticks();
		r->histogram[bucket(t - last)]++;
		if (t - last > r->longest)
			r->longest = t - last;
		if (o->stall_us && t - last > stall)
			fprintf(stderr, "kvbench: stall of %.0f us at op %ld, %.0f ms into the run\n",
				(double)(t - last) * ns_per_tick / 1e3, op,
				(double)(t - first) * ns_per_tick / 1e6);
		last = t;
	}
	r->ns = now_ns() - start;
	r->ns_per_tick = (double)r->ns / (double)(last - first ? last - first : 1);
	return 0;
}

/* serve -- answer GET K and SET K lines from standard input until its end; 0 or -1 */
static int serve(struct store *s, long keys)
{
	char line[64], reply[VALUE_LEN];
	long count = keys, requests = 0, k;

	while (fgets(line, sizeof(line), stdin)) {
		requests++;
		if (sscanf(line, "GET %ld", &k) == 1 && k >= 0 && k < keys) {
			get(s, k, reply);
			printf("%.*s\n", VALUE_LEN, reply);
		} else if (sscanf(line, "SET %ld", &k) == 1 && k >= 0 && k < keys) {
			if (set(s, k, requests, &count))
				return -1;
			printf("OK\n");
		} else {
			printf("ERR\n");
		}
		fflush(stdout);
	}
	return 0;
}

/* print_time_by_length -- the run's time in its operations, a decade of
 * their length at a time */
static void print_time_by_length(const struct run *r)
{
	static const double ends_us[] = {10, 100, 1000, 10000, 1e300};
	double ms[5] = {0};
	int decade = 0;

	for (int b = 0; b < BUCKETS; b++) {
		double ns = bucket_ticks(b) * r->ns_per_tick;

		while (ns >= ends_us[decade] * 1e3)
			decade++;
		ms[decade] += (double)r->histogram[b] * ns / 1e6;
	}
	printf("kvbench: ms in operations under 10 us %.1f, 10-100 us %.1f, 0.1-1 ms %.1f, "
	       "1-10 ms %.1f, 10 ms or more %.1f\n", ms[0], ms[1], ms[2], ms[3], ms[4]);
}

int main(int argc, char **argv)
{
	static struct run r;
	struct options o;
	struct store s;
	long count = 0;
	uint64_t load_ticks;
	int64_t load_ns;

	if (parse_options(argc, argv, &o) || open_store(&s, &o))
		return 2;
	load_ns = now_ns();
	load_ticks = ticks();
	if (load(&s, o.keys, &count))
		return 1;
	load_ticks = ticks() - load_ticks;
	load_ns = now_ns() - load_ns;
	s.fsync_always = o.fsync_always;
	if (o.serve)
		return serve(&s, o.keys) ? 1 : 0;
	if (run(&s, &o, (double)load_ns / (double)(load_ticks ? load_ticks : 1), &r))
		return 1;
	printf("kvbench: ops %ld gets %ld sets %ld ns %lld ops/s %.0f p50 %.0f p99 %.0f p999 %.0f "
	       "max %.0f table %016llx reads %016llx fsyncs %ld\n", o.ops, r.gets, o.ops - r.gets,
	       (long long)r.ns, (double)o.ops * 1e9 / (double)(r.ns ? r.ns : 1),
	       rank(r.histogram, o.ops, 0.50, r.longest) * r.ns_per_tick,
	       rank(r.histogram, o.ops, 0.99, r.longest) * r.ns_per_tick,
	       rank(r.histogram, o.ops, 0.999, r.longest) * r.ns_per_tick,
	       (double)r.longest * r.ns_per_tick, (unsigned long long)table_sum(&s, count),
	       (unsigned long long)r.reads, s.fsyncs);
	print_time_by_length(&r);
	if (s.aof >= 0 && close(s.aof)) {
		perror("kvbench: close of the AOF");
		return 1;
	}
	return 0;
}
