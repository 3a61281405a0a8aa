/*
 * thread.c -- threads with stacks of their own, mutexes and condition
 * variables, over SYS_THREAD_* and the futex pair.
 *
 * fe_thread_start maps an anonymous object of FE_THREAD_STACK bytes as the
 * new thread's stack and puts the function and its argument at its top;
 * the thread starts in thread_main, which calls the function and ends the
 * thread with its result. fe_thread_wait joins the thread and unmaps its
 * stack (stacks[] remembers where each tid's is).
 *
 * The mutex is the classic three-state futex lock (Drepper, "Futexes Are
 * Tricky"): 0 free, 1 held, 2 held and maybe waited for; unlock wakes one
 * waiter only when the state said 2. A condition variable is a sequence
 * word: a waiter reads it, unlocks, and sleeps while it is unchanged; a
 * signal bumps it and wakes one (broadcast: all). A wake can never be lost:
 * the kernel checks the word and blocks the waiter as one step.
 */
#include <fe.h>

/* What thread_main needs, at the top of the new stack. */
struct start {
	long (*fn)(void *);
	void *arg;
};

/* Where each tid's stack is, for fe_thread_wait (0: not ours). */
static uint64_t stacks[FE_THREADS_MAX];

/* thread_main -- a started thread's first code: fn(arg), then its end */
static void thread_main(struct start *s)
{
	fe_thread_exit(s->fn(s->arg));
}

/* fe_thread_start -- run fn(arg) in a new thread -> tid */
long fe_thread_start(long (*fn)(void *), void *arg)
{
	long obj = fe_obj_create(FE_TYPE_ANON, FE_THREAD_STACK), tid;
	uint64_t base;
	struct start *s;

	if (obj < 0)
		return obj;
	base = (uint64_t)fe_map((int32_t)obj, 0, FE_THREAD_STACK,
				FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0);
	fe_close((int32_t)obj); /* the mapping holds it */
	if ((long)base < 0)
		return (long)base;
	s = (struct start *)(base + FE_THREAD_STACK) - 1;
	s->fn = fn;
	s->arg = arg;
	tid = fe_thread_create((uint64_t)(uintptr_t)thread_main, (uint64_t)(uintptr_t)s,
			       (uint64_t)(uintptr_t)s);
	if (tid < 0) {
		fe_unmap(base, FE_THREAD_STACK);
		return tid;
	}
	stacks[tid] = base;
	return tid;
}

/* fe_thread_wait -- join tid, its status into *status, and unmap its stack -> 0 */
long fe_thread_wait(long tid, int64_t *status)
{
	long err = fe_thread_join((uint64_t)tid, status);

	if (!err && tid >= 0 && tid < FE_THREADS_MAX && stacks[tid]) {
		fe_unmap(stacks[tid], FE_THREAD_STACK);
		stacks[tid] = 0;
	}
	return err;
}

/* fe_mutex_lock -- take m, sleeping while another thread holds it */
void fe_mutex_lock(struct fe_mutex *m)
{
	uint32_t c = 0;

	if (__atomic_compare_exchange_n(&m->state, &c, 1, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		fe_futex_wait(&m->state, 2);
		c = __atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE);
	}
}

/* fe_mutex_unlock -- give m up; wake a waiter if there may be one */
void fe_mutex_unlock(struct fe_mutex *m)
{
	if (__atomic_exchange_n(&m->state, 0, __ATOMIC_RELEASE) == 2)
		fe_futex_wake(&m->state, 1);
}

/* fe_cond_wait -- unlock m, sleep until signalled, lock m again */
void fe_cond_wait(struct fe_cond *c, struct fe_mutex *m)
{
	uint32_t seq = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);

	fe_mutex_unlock(m);
	fe_futex_wait(&c->seq, seq);
	fe_mutex_lock(m);
}

/* fe_cond_signal -- wake one waiter of c */
void fe_cond_signal(struct fe_cond *c)
{
	__atomic_add_fetch(&c->seq, 1, __ATOMIC_RELEASE);
	fe_futex_wake(&c->seq, 1);
}

/* fe_cond_broadcast -- wake every waiter of c */
void fe_cond_broadcast(struct fe_cond *c)
{
	__atomic_add_fetch(&c->seq, 1, __ATOMIC_RELEASE);
	fe_futex_wake(&c->seq, FE_THREADS_MAX);
}
