/*
 * bench.c -- what the basic operations cost, in CPU cycles, seen from user
 * mode.
 *
 * Each figure is the median of RUNS runs; a run times BATCH operations
 * with rdtsc (allowed in user mode) and divides. The figures:
 *
 *   null-syscall     SYS_NULL, the round trip into the kernel and back
 *   obj-write-4k     SYS_OBJ_WRITE of one page into a blob
 *   obj-read-4k      SYS_OBJ_READ of one page from a blob
 *   first-touch      the first write to a page of a freshly mapped anon object
 *   spawn-exit-wait  spawn of bin/hello, its exit, the wait for it
 *
 * Output: one line per figure, "bench: NAME CYCLES cycles/op (N runs)".
 * The cycle counter ticks at the TSC rate, not the core clock, and under
 * TCG it is virtual; compare figures from the same machine only.
 */
#include <fe.h>

#define RUNS 7
#define PAGE FE_PAGE_SIZE
#define TOUCH_PAGES 64

struct figure {
	const char *name;
	unsigned batch;                 /* operations per run */
	uint64_t (*run)(unsigned batch); /* cycles for one run of batch ops */
};

static char page_buf[PAGE];
static int32_t blob = -1;

/* rdtsc -- the time-stamp counter */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* run_null -- batch null system calls */
static uint64_t run_null(unsigned batch)
{
	uint64_t t0 = rdtsc();
	unsigned i;

	for (i = 0; i < batch; i++)
		fe_null();
	return rdtsc() - t0;
}

/* run_write -- batch page writes to the blob */
static uint64_t run_write(unsigned batch)
{
	uint64_t t0 = rdtsc();
	unsigned i;

	for (i = 0; i < batch; i++)
		fe_obj_write(blob, (uint64_t)(i % 16) * PAGE, page_buf, PAGE);
	return rdtsc() - t0;
}

/* run_read -- batch page reads from the blob */
static uint64_t run_read(unsigned batch)
{
	uint64_t t0 = rdtsc();
	unsigned i;

	for (i = 0; i < batch; i++)
		fe_obj_read(blob, (uint64_t)(i % 16) * PAGE, page_buf, PAGE);
	return rdtsc() - t0;
}

/* run_touch -- map a fresh anon object and write one byte per page */
static uint64_t run_touch(unsigned batch)
{
	long h = fe_obj_create(FE_TYPE_ANON, (uint64_t)batch * PAGE);
	long a = h < 0 ? h : fe_map((int32_t)h, 0, (uint64_t)batch * PAGE,
				    FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0);
	volatile char *p = (volatile char *)(uintptr_t)a;
	uint64_t t0, t;
	unsigned i;

	if (a < 0) {
		fe_perror("bench: first-touch", a);
		fe_exit(1);
	}
	t0 = rdtsc();
	for (i = 0; i < batch; i++)
		p[(uint64_t)i * PAGE] = 1;
	t = rdtsc() - t0;
	fe_unmap((uint64_t)a, (uint64_t)batch * PAGE);
	fe_close((int32_t)h);
	return t;
}

/* run_spawn -- spawn hello, wait for it */
static uint64_t run_spawn(unsigned batch)
{
	struct fe_exit_info info;
	uint64_t t0 = rdtsc();
	unsigned i;

	for (i = 0; i < batch; i++) {
		long h = fe_spawn_program("hello", NULL);

		if (h < 0) {
			fe_perror("bench: spawn hello", h);
			fe_exit(1);
		}
		fe_wait((int32_t)h, &info, 0);
		fe_close((int32_t)h);
	}
	return rdtsc() - t0;
}

static const struct figure figures[] = {
	{"null-syscall", 1000, run_null},
	{"obj-write-4k", 100, run_write},
	{"obj-read-4k", 100, run_read},
	{"first-touch", TOUCH_PAGES, run_touch},
	{"spawn-exit-wait", 1, run_spawn},
};

/* median -- the median of n values (sorts them) */
static uint64_t median(uint64_t *v, unsigned n)
{
	unsigned i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

/* main -- every figure, one line each */
int main(int argc, char **argv)
{
	uint64_t per_op[RUNS];
	size_t f;
	long h;

	(void)argc;
	(void)argv;
	h = fe_obj_create(FE_TYPE_BLOB, 16 * PAGE);
	if (h < 0) {
		fe_perror("bench: blob", h);
		return 1;
	}
	blob = (int32_t)h;
	memset(page_buf, 0x5a, sizeof(page_buf));
	for (f = 0; f < sizeof(figures) / sizeof(figures[0]); f++) {
		const struct figure *fig = &figures[f];
		unsigned r;

		for (r = 0; r < RUNS; r++)
			per_op[r] = fig->run(fig->batch) / fig->batch;
		printf("bench: %s %lu cycles/op (%u runs)\n", fig->name,
		       median(per_op, RUNS), RUNS);
	}
	fe_close(blob);
	return 0;
}
