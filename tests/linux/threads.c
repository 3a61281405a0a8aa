/*
 * threads.c -- POSIX threads in a Linux program (tests/system/test_linux.py):
 * clone, futex, the end of a thread, gettid, as glibc's and musl's
 * pthreads use them. Its output is the same on every run, so that it is
 * compared with the host's.
 *
 *   threads        a mutex, a condition variable, joins, thread-local
 *                  storage, a timed wait that times out, a semaphore wait
 *                  (futex) that a signal handler's sem_post ends, and
 *                  signals to threads: pthread_kill reaches the thread it
 *                  names, on that thread's alternate stack; the
 *                  program's signal, the one thread that lets it in
 *   threads exit   main ends with pthread_exit before the thread it made,
 *                  which ends the program (status 0) when it returns
 *   threads wait   N threads wait on a condition variable; "ready" once
 *                  they all wait; a line of input wakes them all, and each
 *                  says so (a power cut may come between)
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 6
#define ROUNDS 5000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static long counter;
static int arrived, released;
static __thread long mine = 1000;       /* each thread's own */
static long tids[WORKERS];

/* add -- a worker: add to the counter under the lock, count its own */
static void *add(void *arg)
{
	const long n = (long)(intptr_t)arg;

	tids[n] = syscall(SYS_gettid);
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
		mine += n;
	}
	return (void *)(intptr_t)(mine * 10 + n);
}

/* gather -- a waiter: count in, wait until released */
static void *gather(void *arg)
{
	pthread_mutex_lock(&lock);
	arrived++;
	pthread_cond_broadcast(&changed);
	while (!released)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	return arg;
}

static sem_t posted;

/* on_alarm -- SIGALRM's handler: post the semaphore main waits on */
static void on_alarm(int s)
{
	(void)s;
	sem_post(&posted);
}

/* woken_by_a_handler -- main waits in a futex; a signal's handler posts */
static void woken_by_a_handler(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int r;

	sem_init(&posted, 0, 0);
	sigaction(SIGALRM, &sa, NULL);
	ualarm(50 * 1000, 0);
	while ((r = sem_wait(&posted)) && errno == EINTR)
		;
	printf("sem_wait after the handler's sem_post: %d\n", r);
}

/* release_and_join -- let the WORKERS waiting gatherers go, join them, and
 * say what each returned (`woke`: only that it woke, by its number) */
static void release_and_join(pthread_t *t, int woke)
{
	pthread_mutex_lock(&lock);
	released = 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	for (long n = 0; n < WORKERS; n++) {
		void *result;

		pthread_join(t[n], &result);
		if (woke)
			printf("waiter %ld woke\n", (long)(intptr_t)result);
		else
			printf("waiter %ld returned %ld\n", n, (long)(intptr_t)result);
	}
}

/* Signals to threads: each of SIGNALLED workers waits in sigsuspend on an
 * alternate stack of its own; pthread_kill sends each SIGUSR1, and kill
 * sends the program SIGUSR2, which only worker 1 does not block. */
#define SIGNALLED 3
static char altstack[SIGNALLED][64 * 1024];
static __thread int index_of_mine = -1;
static volatile long took_usr1[SIGNALLED];   /* the tid of the thread its handler ran on */
static volatile int on_its_stack[SIGNALLED];
static volatile int usr2_taken_by = -1;
static pthread_barrier_t all_waiting;

/* on_usr -- the handler of both: who took it, on which stack */
static void on_usr(int s)
{
	const int i = index_of_mine;
	char here;

	if (i < 0)
		return;
	if (s == SIGUSR2) {
		usr2_taken_by = i;
		return;
	}
	took_usr1[i] = syscall(SYS_gettid);
	on_its_stack[i] = &here > altstack[i] && &here < altstack[i] + sizeof(altstack[i]);
}

/* signalled -- worker i: its own alternate stack, then sigsuspend until its
 * SIGUSR1 came (and, for worker 1, the program's SIGUSR2) */
static void *signalled(void *arg)
{
	const int i = (int)(intptr_t)arg;
	stack_t st = { .ss_sp = altstack[i], .ss_size = sizeof(altstack[i]) };
	sigset_t wait_with;

	index_of_mine = i;
	sigaltstack(&st, NULL);
	pthread_sigmask(SIG_SETMASK, NULL, &wait_with);  /* SIGUSR1 and SIGUSR2 blocked */
	sigdelset(&wait_with, SIGUSR1);
	if (i == 1)
		sigdelset(&wait_with, SIGUSR2);
	pthread_barrier_wait(&all_waiting);
	while (!took_usr1[i] || (i == 1 && usr2_taken_by < 0))
		sigsuspend(&wait_with);
	return (void *)syscall(SYS_gettid);
}

/* to_each_thread -- the test of signals to threads */
static void to_each_thread(void)
{
	struct sigaction sa = { .sa_handler = on_usr, .sa_flags = SA_ONSTACK };
	pthread_t t[SIGNALLED];
	sigset_t both;

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &both, NULL);        /* the workers are made with it */
	pthread_barrier_init(&all_waiting, NULL, SIGNALLED + 1);
	for (long i = 0; i < SIGNALLED; i++)
		pthread_create(&t[i], NULL, signalled, (void *)(intptr_t)i);
	pthread_barrier_wait(&all_waiting);
	kill(getpid(), SIGUSR2);
	for (int i = SIGNALLED - 1; i >= 0; i--)
		pthread_kill(t[i], SIGUSR1);
	for (int i = 0; i < SIGNALLED; i++) {
		void *tid;

		pthread_join(t[i], &tid);
		printf("worker %d took its SIGUSR1 itself: %s, on its own alternate stack: %s\n", i,
		       took_usr1[i] == (long)(intptr_t)tid ? "yes" : "no",
		       on_its_stack[i] ? "yes" : "no");
	}
	printf("the program's SIGUSR2, which only worker 1 lets in: taken by worker %d\n",
	       usr2_taken_by);
	pthread_sigmask(SIG_UNBLOCK, &both, NULL);
}

/* together -- the main test; 0 when everything was as expected */
static int together(void)
{
	pthread_t t[WORKERS];
	struct timespec when;
	int bad = 0, err;

	for (long n = 0; n < WORKERS; n++)
		if (pthread_create(&t[n], NULL, add, (void *)(intptr_t)n)) {
			printf("pthread_create failed\n");
			return 1;
		}
	for (long n = 0; n < WORKERS; n++) {
		void *result;

		pthread_join(t[n], &result);
		printf("thread %ld returned %ld\n", n, (long)(intptr_t)result);
	}
	printf("counter %ld (want %d)\n", counter, WORKERS * ROUNDS);
	printf("main's own %ld\n", mine);
	for (long n = 0; n < WORKERS; n++)
		bad |= tids[n] == getpid() || tids[n] <= 0;
	printf("tids other than the pid: %s\n", bad ? "no" : "yes");

	for (long n = 0; n < WORKERS; n++)
		pthread_create(&t[n], NULL, gather, (void *)(intptr_t)(n + 100));
	pthread_mutex_lock(&lock);
	while (arrived < WORKERS)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	release_and_join(t, 0);

	clock_gettime(CLOCK_REALTIME, &when);
	when.tv_nsec += 50 * 1000 * 1000;
	if (when.tv_nsec >= 1000000000) {
		when.tv_sec++;
		when.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	err = pthread_cond_timedwait(&changed, &lock, &when);
	pthread_mutex_unlock(&lock);
	printf("timed wait: %s\n", err == ETIMEDOUT ? "timed out" : strerror(err));
	woken_by_a_handler();
	to_each_thread();
	return counter != WORKERS * ROUNDS;
}

/* wait_for_input -- the power-cut test: threads wait on a condition
 * variable until a line is read */
static int wait_for_input(void)
{
	pthread_t t[WORKERS];
	char line[64];

	for (long n = 0; n < WORKERS; n++)
		pthread_create(&t[n], NULL, gather, (void *)(intptr_t)n);
	pthread_mutex_lock(&lock);
	while (arrived < WORKERS)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	printf("ready: %d threads wait\n", arrived);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	release_and_join(t, 1);
	return 0;
}

/* outlive -- the thread that outlives main: waits until main has spoken */
static void *outlive(void *arg)
{
	pthread_mutex_lock(&lock);
	while (!released)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	printf("the last thread ends the program\n");
	fflush(stdout);
	return arg;
}

/* main_leaves_first -- main's thread ends while another runs on */
static int main_leaves_first(void)
{
	pthread_t t;

	pthread_create(&t, NULL, outlive, NULL);
	pthread_detach(t);
	printf("main leaves\n");
	fflush(stdout);
	pthread_mutex_lock(&lock);
	released = 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	pthread_exit(NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exit"))
		return main_leaves_first();
	if (argc > 1 && !strcmp(argv[1], "wait"))
		return wait_for_input();
	return together();
}
