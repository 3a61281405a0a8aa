/*
 * mtcount.c -- mtcount [THREADS] [PERIOD_MS]: THREADS threads (default 4,
 * at most 16) share one counter under a mutex; each in turn takes the
 * mutex, adds one, prints "mtcount: N" and lets go, then sleeps PERIOD_MS
 * (default 100; 0: not at all). So the lines are 1, 2, 3... in order,
 * whichever thread printed them, and on two CPUs the mutex is contended.
 *
 * The self-check: each thread also counts its own additions; under the
 * mutex, the counter must equal their sum. A broken check prints
 * "mtcount: FAIL ..." and ends the program.
 *
 * The power-cut campaign's multi-threaded program (tests/system/powercut.py):
 * the counter, the per-thread counts, the mutex and the threads are all
 * persistent, so after a cut the numbers go on from the last one printed
 * (output commit), with no gap and no repeat but the line in flight.
 */
#include <fe.h>

#define MAX_THREADS 16

static struct fe_mutex lock;
static uint64_t counter;
static uint64_t mine[MAX_THREADS];
static unsigned threads = 4;
static uint64_t period_ms = 100;

/* sum -- the threads' own counts (the mutex held) */
static uint64_t sum(void)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < threads; i++)
		s += mine[i];
	return s;
}

/* work -- thread `arg`'s loop: add, print, check, sleep, forever */
static long work(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;

	for (;;) {
		fe_mutex_lock(&lock);
		counter++;
		mine[me]++;
		if (sum() != counter) {
			printf("mtcount: FAIL counter %lu, threads' sum %lu\n", counter, sum());
			fe_exit(1);
		}
		printf("mtcount: %lu\n", counter);
		fe_mutex_unlock(&lock);
		if (period_ms)
			fe_sleep_ms(period_ms);
	}
	return 0;
}

/* main -- start THREADS - 1 threads, and work as the last */
int main(int argc, char **argv)
{
	uint64_t n = threads;

	if (argc > 3) {
		printf("usage: mtcount [THREADS] [PERIOD_MS]\n");
		return 2;
	}
	if (argc > 1 && !fe_parse_arg("mtcount", "THREADS", argv[1], &n))
		return 2;
	if (argc > 2 && !fe_parse_arg("mtcount", "PERIOD_MS", argv[2], &period_ms))
		return 2;
	if (n < 1 || n > MAX_THREADS) {
		printf("mtcount: THREADS must be 1 to %u\n", MAX_THREADS);
		return 2;
	}
	threads = (unsigned)n;
	for (unsigned i = 1; i < threads; i++) {
		long tid = fe_thread_start(work, (void *)(uintptr_t)i);

		if (tid < 0) {
			fe_perror("mtcount: thread", tid);
			return 1;
		}
	}
	return (int)work((void *)0);
}
