/*
 * threads.c -- threads of one process: create and join, the futex pair,
 * counters under a mutex from several threads (on every CPU there is),
 * handles used by several threads at once, a condition variable, a thread
 * that faults (in a child: the process ends, its parent goes on), and the
 * thread table filled and given back.
 *
 * Checks are counted by the main thread only (the harness's counters are
 * not shared safely); the other threads leave what they saw in memory
 * the main thread checks after joining them.
 */
#include "usertest.h"

#define COUNTER_THREADS 4
#define COUNTER_ROUNDS 2000
#define HANDLE_ROUNDS 50

/* --- create and join ------------------------------------------------------- */

/* return_tid -- a thread's work: its own tid plus the argument */
static long return_tid(void *arg)
{
	return fe_gettid() + (long)(intptr_t)arg;
}

/* test_thread_create_join -- a thread runs, ends, and is joined */
void test_thread_create_join(void)
{
	int64_t status = -1;
	long tid = OK(fe_thread_start(return_tid, (void *)1000));

	CHECK(tid > 0);
	EQ(fe_gettid(), 0);
	OK(fe_thread_wait(tid, &status));
	EQ(status, tid + 1000);
	/* Joined: gone. */
	ERR(fe_thread_join((uint64_t)tid, &status), ERR_NOENT);
	ERR(fe_thread_join(FE_THREADS_MAX, &status), ERR_NOENT);
	ERR(fe_thread_join(0, &status), ERR_INVAL); /* itself */
	/* Bad entries and stacks. */
	ERR(fe_thread_create(0, 0x10000000, 0), ERR_INVAL);
	ERR(fe_thread_create(KERNEL_TEXT, 0x10000000, 0), ERR_INVAL);
	ERR(fe_thread_create(0x401000, NONCANONICAL + 0x1000, 0), ERR_INVAL);
	/* A join whose status pointer is wild waits, fails and keeps the thread. */
	tid = OK(fe_thread_start(return_tid, (void *)0));
	ERR(fe_thread_join((uint64_t)tid, (int64_t *)KERNEL_HHDM), ERR_FAULT);
	OK(fe_thread_wait(tid, &status));
	EQ(status, tid);
}

/* --- futex wait and wake --------------------------------------------------- */

static uint32_t futex_word;

/* futex_waiter -- wait while the word is 0; the wait's result */
static long futex_waiter(void *arg)
{
	(void)arg;
	return fe_futex_wait(&futex_word, 0);
}

/* blocked_in -- whether thread tid of this process is blocked in call nr */
static bool blocked_in(long tid, uint32_t nr)
{
	struct fe_thread_info list[FE_THREADS_MAX];
	long n = fe_thread_list((uint64_t)self_pid, list, FE_THREADS_MAX);

	for (long i = 0; i < n; i++)
		if (list[i].tid == (uint32_t)tid)
			return list[i].state == FE_THREAD_BLOCKED && list[i].blocked_on == nr;
	return false;
}

/* test_futex -- a waiter sleeps until woken; a wrong value does not sleep */
void test_futex(void)
{
	int64_t status = -1;
	long tid;

	futex_word = 1;
	ERR(fe_futex_wait(&futex_word, 0), ERR_AGAIN);
	ERR(fe_futex_wait((uint32_t *)((uintptr_t)&futex_word + 1), 1), ERR_INVAL);
	ERR(fe_futex_wait((uint32_t *)UNMAPPED, 0), ERR_FAULT);
	ERR(fe_futex_wait((uint32_t *)KERNEL_HHDM, 0), ERR_FAULT);
	EQ(fe_futex_wake(&futex_word, 1), 0); /* nobody waits */
	futex_word = 0;
	tid = OK(fe_thread_start(futex_waiter, NULL));
	while (!blocked_in(tid, SYS_FUTEX_WAIT)) /* the event: it sleeps */
		fe_yield();
	EQ(fe_futex_wake(&futex_word, 1), 1);
	OK(fe_thread_wait(tid, &status));
	EQ(status, 0); /* woken with the word unchanged: 0, not a second sleep */
}

/* --- a mutex, a condition variable, every CPU ------------------------------ */

static struct fe_mutex counter_lock;
static struct fe_cond counter_done;
static uint64_t counter, finished;

/* count_under_lock -- COUNTER_ROUNDS increments, each under the lock */
static long count_under_lock(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < COUNTER_ROUNDS; i++) {
		fe_mutex_lock(&counter_lock);
		counter++;
		fe_mutex_unlock(&counter_lock);
	}
	fe_mutex_lock(&counter_lock);
	finished++;
	fe_cond_signal(&counter_done);
	fe_mutex_unlock(&counter_lock);
	return 0;
}

/* test_mutex_counters -- four threads, no lost increment */
void test_mutex_counters(void)
{
	long tid[COUNTER_THREADS];
	int64_t status;

	counter = finished = 0;
	for (unsigned i = 0; i < COUNTER_THREADS; i++)
		tid[i] = OK(fe_thread_start(count_under_lock, NULL));
	fe_mutex_lock(&counter_lock);
	while (finished < COUNTER_THREADS)
		fe_cond_wait(&counter_done, &counter_lock);
	fe_mutex_unlock(&counter_lock);
	for (unsigned i = 0; i < COUNTER_THREADS; i++) {
		status = -1;
		OK(fe_thread_wait(tid[i], &status));
		EQ(status, 0);
	}
	EQ(counter, (uint64_t)COUNTER_THREADS * COUNTER_ROUNDS);
	EQ(counter_lock.state, 0);
}

/* --- handles from several threads ------------------------------------------ */

/* handle_worker -- blobs created, written, read back, closed; the failures */
static long handle_worker(void *arg)
{
	long failures = 0;
	char text[32], back[32];

	for (unsigned i = 0; i < HANDLE_ROUNDS; i++) {
		long h = fe_obj_create(FE_TYPE_BLOB, sizeof(text));

		snprintf(text, sizeof(text), "thread %ld round %u", (long)(intptr_t)arg, i);
		if (h < 0) {
			failures++;
			continue;
		}
		if (fe_obj_write((int32_t)h, 0, text, sizeof(text)) != sizeof(text) ||
		    fe_obj_read((int32_t)h, 0, back, sizeof(back)) != sizeof(back) ||
		    memcmp(text, back, sizeof(text)) != 0)
			failures++;
		if (fe_close((int32_t)h) != 0)
			failures++;
	}
	return failures;
}

/* test_thread_handles -- the handle table shared by four busy threads */
void test_thread_handles(void)
{
	struct fe_sysinfo before = sysinfo_now(), after;
	long tid[COUNTER_THREADS];
	int64_t status;

	for (unsigned i = 0; i < COUNTER_THREADS; i++)
		tid[i] = OK(fe_thread_start(handle_worker, (void *)(intptr_t)i));
	for (unsigned i = 0; i < COUNTER_THREADS; i++) {
		status = -1;
		OK(fe_thread_wait(tid[i], &status));
		EQ(status, 0);
	}
	after = sysinfo_now();
	EQ(after.objects, before.objects); /* every blob closed, and reaped */
}

/* --- a faulting thread ----------------------------------------------------- */

static uint32_t never;

/* fault_now -- a thread that writes to page 0 */
static long fault_now(void *arg)
{
	(void)arg;
	*(volatile uint8_t *)ptr(0x10) = 1;
	return 0;
}

/* run_thread_fault_child -- "usertest thread-fault": one thread sleeps on
 * a futex nobody wakes, another faults; the process must end */
int run_thread_fault_child(void)
{
	fe_thread_start(fault_now, NULL);
	fe_futex_wait(&never, 0);
	return 99; /* not reached: the fault ended the process */
}

/* test_thread_fault -- the faulting thread ends its process, not its parent */
void test_thread_fault(void)
{
	static const char *const argv[] = {"usertest", "thread-fault", NULL};
	struct fe_exit_info info = wait_for(spawn_self(argv, NULL, 0));

	EQ(info.reason, FE_EXIT_FAULT);
	EQ(info.vector, FE_FAULT_PAGE);
	EQ(info.fault_addr, 0x10);
	EQ(fe_getpid(), self_pid); /* and we go on */
}

/* --- the thread table ------------------------------------------------------ */

#define HOLD_STACK 8192 /* each held thread's part of one mapping */

static uint32_t hold_gate;

/* hold_entry -- a thread's first code: wait until the gate opens, end with 7 */
static void hold_entry(void)
{
	while (__atomic_load_n(&hold_gate, __ATOMIC_ACQUIRE) == 0)
		fe_futex_wait(&hold_gate, 0);
	fe_thread_exit(7);
}

/* test_thread_table_full -- FE_THREADS_MAX threads, then -ERR_NOSPC; all back
 * (stacks carved from one mapping: an address space has only so many) */
void test_thread_table_full(void)
{
	long obj = OK(fe_obj_create(FE_TYPE_ANON, FE_THREADS_MAX * HOLD_STACK));
	long base = OK(fe_map((int32_t)obj, 0, FE_THREADS_MAX * HOLD_STACK,
			      FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0));
	long tid[FE_THREADS_MAX], err = 0;
	unsigned n = 0;
	int64_t status;

	OK(fe_close((int32_t)obj));
	if (base < 0)
		return;
	hold_gate = 0;
	while (n < FE_THREADS_MAX &&
	       (err = fe_thread_create((uint64_t)(uintptr_t)hold_entry,
				       (uint64_t)base + (n + 1) * HOLD_STACK, 0)) >= 0)
		tid[n++] = err;
	EQ(n, FE_THREADS_MAX - 1); /* and this one, tid 0 */
	ERR(err, ERR_NOSPC);
	__atomic_store_n(&hold_gate, 1, __ATOMIC_RELEASE);
	fe_futex_wake(&hold_gate, FE_THREADS_MAX);
	for (unsigned i = 0; i < n; i++) {
		status = -1;
		OK(fe_thread_join((uint64_t)tid[i], &status));
		EQ(status, 7);
	}
	OK(fe_unmap((uint64_t)base, FE_THREADS_MAX * HOLD_STACK));
	/* Every tid is free again. */
	err = OK(fe_thread_start(return_tid, (void *)0));
	OK(fe_thread_wait(err, &status));
	EQ(status, err);
}
