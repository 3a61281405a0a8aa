/*
 * ckptbench.c -- what checkpoints cost a program: the pause of one commit
 * against the pages it must log, and the slowdown of write-heavy work.
 *
 *   ckptbench pause [PAGES]
 *                      for 1, 2, 4 ... 1024 dirty pages (or PAGES only,
 *                      1..1024): dirty that many distinct pages of a
 *                      mapped anonymous object, fe_sync(), and read the
 *                      commit's pause and page count from fe_sysinfo; the
 *                      median, min and max of RUNS. sysinfo's pause (user
 *                      code stopped -> resumed) begins with stopping the
 *                      other CPUs (stop_last_ns): the first line gives the
 *                      pause without the stop, and with more than one CPU
 *                      a second line the stop and the whole pause ("pause
 *                      + stop"). Meant for ckpt=0, so that no periodic
 *                      commit splits the pages between epochs. Then, as
 *                      the yardstick of that pause, the bare cost of
 *                      persisting as many pages: each copied into another
 *                      mapped object and every line of it flushed
 *                      (clflush), one sfence, timed with fe_now().
 *   ckptbench write [OPS [MIB]]
 *                      OPS (default WRITE_OPS) random 8-byte writes over
 *                      MIB (default 64) MiB of mapped anonymous memory
 *                      (touched once beforehand, so page allocation is not
 *                      timed)
 *   ckptbench threads [OPS [MIB]]
 *                      two threads at once, each OPS (default WRITE_OPS)
 *                      random 8-byte writes over its own half of MIB
 *                      (default 64) MiB of mapped anonymous memory
 *                      (touched once beforehand): the guest time from the
 *                      start of both to the end of the last, in ms, and
 *                      how long every CPU held and waited for the kernel
 *                      lock meanwhile (sysinfo)
 *   ckptbench malloc [OPS]
 *                      OPS (default MALLOC_OPS) malloc/free pairs of
 *                      16..1039 bytes, a pool of MALLOC_LIVE blocks live,
 *                      each block written
 *
 * Output, one line per figure:
 *   ckptbench: pause PAGES PAUSE_NS ns LOGGED pages (RUNS runs, MIN..MAX ns)
 *   ckptbench: bare PAGES BARE_NS ns (RUNS runs, MIN..MAX ns)
 *   ckptbench: stop PAGES STOP_NS ns (RUNS runs, MIN..MAX ns), pause + stop
 *              TOTAL_NS ns (MIN..MAX ns)        (one line; more than one CPU)
 *   ckptbench: write|malloc CYCLES cycles/op (OPS ops)
 *   ckptbench: threads 2 MS ms (OPS ops each, MIB MiB)
 *   ckptbench: kernel lock HELD us held, WAITED us waited (...)
 * Cycles are the TSC's, read in user mode; compare ckpt=1000 with ckpt=0
 * on the same machine (tests/bench/run-ckpt-bench prints the slowdown).
 */
#include <fe.h>

#define PAGE FE_PAGE_SIZE
#define RUNS 7
#define PAUSE_PAGES_MAX 1024
#define WRITE_MIB 64u
#define WRITE_OPS 50000u
#define MALLOC_OPS 1000000u
#define MALLOC_LIVE 1024u

/* rdtsc -- the time-stamp counter */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* next_random -- xorshift64: a fast, repeatable sequence */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

/* median -- the median of n values (sorts them, so v[0] and v[n - 1] are then the extremes) */
static uint64_t median(uint64_t *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

/* map_anon -- a fresh anonymous object of `bytes`, mapped read-write, every page touched */
static volatile uint8_t *map_anon(uint64_t bytes)
{
	long h = fe_obj_create(FE_TYPE_ANON, bytes);
	long a = h < 0 ? h : fe_map((int32_t)h, 0, bytes,
				    FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0);
	volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)a;

	if (a < 0) {
		fe_perror("ckptbench: anonymous memory", a);
		fe_exit(1);
	}
	for (uint64_t off = 0; off < bytes; off += PAGE)
		p[off] = 1;
	fe_sync();
	return p;
}

/* sysinfo -- the system's figures, or exit */
static void sysinfo(struct fe_sysinfo *si)
{
	long err = fe_sysinfo(si);

	if (err < 0) {
		fe_perror("ckptbench: sysinfo", err);
		fe_exit(1);
	}
}

/* print_stop -- the stop of the other CPUs before each commit, and the
 * whole pause, stop included: medians and extremes (sorts both) */
static void print_stop(unsigned count, uint64_t *stop, uint64_t *total)
{
	uint64_t mid_stop = median(stop, RUNS), mid_total = median(total, RUNS);

	printf("ckptbench: stop %u %lu ns (%u runs, %lu..%lu ns), pause + stop %lu ns "
	       "(%lu..%lu ns)\n", count, mid_stop, RUNS, stop[0], stop[RUNS - 1], mid_total,
	       total[0], total[RUNS - 1]);
}

/* copy_and_flush -- `count` pages of `from` copied to `to`, every line of
 * them flushed, then fenced: what persisting those pages costs at least;
 * its time in ns */
static uint64_t copy_and_flush(uint8_t *to, const uint8_t *from, unsigned count)
{
	uint64_t t0 = fe_now();

	for (unsigned i = 0; i < count; i++) {
		uint8_t *page = to + (uint64_t)i * PAGE;

		memcpy(page, from + (uint64_t)i * PAGE, PAGE);
		for (unsigned line = 0; line < PAGE; line += 64)
			__asm__ volatile("clflush %0" : "+m"(page[line]));
	}
	__asm__ volatile("sfence" : : : "memory");
	return fe_now() - t0;
}

/* bench_bare -- copy_and_flush of `count` pages, RUNS times: median, extremes */
static void bench_bare(uint8_t *to, const uint8_t *from, unsigned count)
{
	uint64_t bare[RUNS], mid;

	for (unsigned r = 0; r < RUNS; r++)
		bare[r] = copy_and_flush(to, from, count);
	mid = median(bare, RUNS);
	printf("ckptbench: bare %u %lu ns (%u runs, %lu..%lu ns)\n", count, mid, RUNS,
	       bare[0], bare[RUNS - 1]);
}

/* bench_pause -- the commit pause against `only` dirty pages, or against
 * 1, 2, 4 ... PAUSE_PAGES_MAX of them when `only` is 0; each followed by
 * the bare cost of persisting as many pages */
static void bench_pause(unsigned only)
{
	volatile uint8_t *p = map_anon((uint64_t)PAUSE_PAGES_MAX * PAGE);
	uint8_t *from = (uint8_t *)map_anon((uint64_t)PAUSE_PAGES_MAX * PAGE);
	/* One page further: page i of `from` and page i of a mapping laid
	 * out right after it lie a power of two apart, and would share a
	 * slot of TCG's direct-mapped TLB, which would then miss at every
	 * word copied (4x the time measured here). */
	uint8_t *to = (uint8_t *)map_anon((uint64_t)(PAUSE_PAGES_MAX + 1) * PAGE) + PAGE;
	uint64_t pause[RUNS], pages[RUNS], stop[RUNS], total[RUNS], mid;
	unsigned first = only ? only : 1, last = only ? only : PAUSE_PAGES_MAX;
	struct fe_sysinfo si;

	for (unsigned count = first; count <= last; count *= 2) {
		for (unsigned r = 0; r < RUNS; r++) {
			fe_sync(); /* start from a clean epoch */
			for (unsigned i = 0; i < count; i++)
				p[(uint64_t)i * PAGE] = (uint8_t)(r + 2);
			fe_sync();
			sysinfo(&si);
			/* sysinfo's pause counts from the first kick: the stop is in it */
			pause[r] = si.pause_last_ns - si.stop_last_ns;
			pages[r] = si.pages_last;
			stop[r] = si.stop_last_ns;
			total[r] = si.pause_last_ns;
		}
		mid = median(pause, RUNS); /* sorts pause: its ends are then min and max */
		printf("ckptbench: pause %u %lu ns %lu pages (%u runs, %lu..%lu ns)\n", count,
		       mid, median(pages, RUNS), RUNS, pause[0], pause[RUNS - 1]);
		if (si.cpus > 1)
			print_stop(count, stop, total);
		bench_bare(to, from, count);
	}
}

/* bench_write -- `ops` random 8-byte writes over `mib` MiB of mapped memory */
static void bench_write(unsigned ops, unsigned mib)
{
	uint64_t bytes = (uint64_t)mib << 20;
	volatile uint64_t *p = (volatile uint64_t *)map_anon(bytes);
	uint64_t words = bytes / 8, state = 0x9e3779b97f4a7c15ull, t0;

	t0 = rdtsc();
	for (unsigned i = 0; i < ops; i++)
		p[next_random(&state) % words] = i;
	printf("ckptbench: write %lu cycles/op (%u ops, %u MiB)\n", (rdtsc() - t0) / ops,
	       ops, mib);
}

/* One writer of bench_threads: its half of the memory and its ops. */
struct writer {
	volatile uint64_t *words;
	uint64_t count;
	unsigned ops;
};

/* write_half -- a writer's random writes over its own words */
static long write_half(void *arg)
{
	const struct writer *w = arg;
	uint64_t state = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)w->words;

	for (unsigned i = 0; i < w->ops; i++)
		w->words[next_random(&state) % w->count] = i;
	return 0;
}

/* bench_threads -- two threads writing their own halves of `mib` MiB at once */
static void bench_threads(unsigned ops, unsigned mib)
{
	uint64_t bytes = (uint64_t)mib << 20;
	volatile uint64_t *p = (volatile uint64_t *)map_anon(bytes);
	struct writer w[2] = {
		{p, bytes / 16, ops},
		{p + bytes / 16, bytes / 16, ops},
	};
	struct fe_sysinfo before, after;
	uint64_t t0, held = 0, waited = 0;
	int64_t status;
	long tid;

	sysinfo(&before);
	t0 = fe_now();
	tid = fe_thread_start(write_half, &w[1]);

	if (tid < 0) {
		fe_perror("ckptbench: thread", tid);
		fe_exit(1);
	}
	write_half(&w[0]);
	fe_thread_wait(tid, &status);
	printf("ckptbench: threads 2 %lu ms (%u ops each, %u MiB)\n",
	       (fe_now() - t0) / 1000000, ops, mib);
	sysinfo(&after);
	for (unsigned i = 0; i < after.cpus && i < FE_MAX_CPUS; i++) {
		held += after.klock_held_ns[i] - before.klock_held_ns[i];
		waited += after.klock_wait_ns[i] - before.klock_wait_ns[i];
	}
	printf("ckptbench: kernel lock %lu us held, %lu us waited (every CPU, while the threads ran)\n",
	       held / 1000, waited / 1000);
}

/* bench_malloc -- `ops` malloc/free pairs over a pool of live blocks, each block written */
static void bench_malloc(unsigned ops)
{
	static void *live[MALLOC_LIVE];
	uint64_t state = 0x2545f4914f6cdd1dull, t0;

	t0 = rdtsc();
	for (unsigned i = 0; i < ops; i++) {
		uint64_t r = next_random(&state);
		unsigned slot = (unsigned)(r % MALLOC_LIVE);
		size_t size = 16 + (size_t)((r >> 32) % 1024);

		free(live[slot]);
		live[slot] = malloc(size);
		if (!live[slot]) {
			printf("ckptbench: malloc(%lu) failed\n", (unsigned long)size);
			fe_exit(1);
		}
		memset(live[slot], (int)i, size);
	}
	printf("ckptbench: malloc %lu cycles/op (%u ops)\n", (rdtsc() - t0) / ops, ops);
	for (unsigned i = 0; i < MALLOC_LIVE; i++)
		free(live[i]);
}

/* count_arg -- the count in argv[i] (1..max), `fallback` without one; 0 if not such a count */
static unsigned count_arg(int argc, char **argv, int i, unsigned fallback,
			  unsigned long max)
{
	uint64_t n;

	if (argc <= i)
		return fallback;
	return parse_number(argv[i], &n) == 0 && n > 0 && n <= max ? (unsigned)n : 0;
}

/* main -- the figure named by argv[1] */
int main(int argc, char **argv)
{
	const char *what = argc >= 2 && argc <= 4 ? argv[1] : "";
	unsigned ops, mib, pages;

	if (strcmp(what, "pause") == 0 && argc == 2) {
		bench_pause(0);
		return 0;
	}
	if (strcmp(what, "pause") == 0 && argc == 3 &&
	    (pages = count_arg(argc, argv, 2, 0, PAUSE_PAGES_MAX))) {
		bench_pause(pages);
		return 0;
	}
	if (strcmp(what, "write") == 0 &&
	    (ops = count_arg(argc, argv, 2, WRITE_OPS, 1000000000ul)) &&
	    (mib = count_arg(argc, argv, 3, WRITE_MIB, 1024))) {
		bench_write(ops, mib);
		return 0;
	}
	if (strcmp(what, "threads") == 0 &&
	    (ops = count_arg(argc, argv, 2, WRITE_OPS, 1000000000ul)) &&
	    (mib = count_arg(argc, argv, 3, WRITE_MIB, 1024))) {
		bench_threads(ops, mib);
		return 0;
	}
	if (strcmp(what, "malloc") == 0 && argc <= 3 &&
	    (ops = count_arg(argc, argv, 2, MALLOC_OPS, 1000000000ul))) {
		bench_malloc(ops);
		return 0;
	}
	printf("usage: ckptbench pause [PAGES] | write [OPS [MIB]] | threads [OPS [MIB]] | malloc [OPS]\n");
	return 2;
}
