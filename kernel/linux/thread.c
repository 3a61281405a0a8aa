/*
 * thread.c -- the threads of a Linux program: clone as pthread_create
 * makes it, futex, the end of one thread, and each thread's tid.
 *
 * A Linux thread is one of Ferrite's own threads (task/proc.c) of the
 * program's process: it shares the address space, the descriptors and the
 * signal dispositions because the process has one of each; its registers,
 * its FS base (thread-local storage) and its state "blocked in call N"
 * are its kthread's, so after a power cut every thread resumes as the
 * last commit left it, a futex wait still waiting. The Linux state of
 * each thread is its clear_child_tid (CLONE_CHILD_CLEARTID,
 * set_tid_address) and its signal state (signal.c): its mask, which a
 * new thread takes from the one that made it, the signals sent to it
 * alone, its rt_sigsuspend mask and its alternate stack (none for a new
 * thread): klinux's for tid 0, klxthreads entries by tid for the others
 * (kformat.h), the klxthreads made by the first clone (docs/linux.md,
 * "Threads").
 *
 * A thread's Linux tid is the pid plus its Ferrite tid, so the first
 * thread's is the pid, as on Linux.
 *
 * clone makes threads only: CLONE_VM, CLONE_FS, CLONE_FILES,
 * CLONE_SIGHAND and CLONE_THREAD together, as glibc's and musl's
 * pthread_create pass them; a clone without them is a new process
 * (fork's), which returns -ENOSYS until processes can be copied.
 *
 * Futexes are the native ones (sys_thread.c, sched_wake_futex): a wait is
 * on (process, address); a wake completes the waits it wakes (they return
 * 0); a wait with a deadline woken by it is issued again and returns
 * -ETIMEDOUT, and one woken otherwise rereads the word. A bitset other
 * than FUTEX_BITSET_MATCH_ANY is taken as MATCH_ANY: a waiter may be
 * woken for nothing, which futex's callers already allow for.
 */
#include <stdint.h>
#include <stdio.h>

#include "core/panic.h"
#include "core/time.h"
#include "ferrite/errors.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/uvm.h"

#define NS 1000000000ull
#define CLONE_A_THREAD (LX_CLONE_VM | LX_CLONE_FS | LX_CLONE_FILES | LX_CLONE_SIGHAND | \
			LX_CLONE_THREAD)
#define CLONE_KNOWN (CLONE_A_THREAD | LX_CLONE_SYSVSEM | LX_CLONE_SETTLS |            \
		     LX_CLONE_PARENT_SETTID | LX_CLONE_CHILD_CLEARTID | LX_CLONE_DETACHED | \
		     LX_CLONE_CHILD_SETTID)
#define FUTEX_WORD 4

/* lx_thread_tid -- the Ferrite tid of p's thread with Linux tid `ltid`, -1 if none */
int lx_thread_tid(const struct pctx *p, int64_t ltid)
{
	const int64_t tid = ltid - (int64_t)p->proc->pid;

	if (tid < 0 || tid >= KPROC_MAX_THREADS || !p->thread[tid] ||
	    p->thread[tid]->state == KTHREAD_EXITED)
		return -1;
	return (int)tid;
}

/* threads_of -- lx's klxthreads, NULL if it has none */
static struct klxthreads *threads_of(const struct klinux *lx)
{
	if (lx->version < 2 || !lx->threads)
		return NULL;
	return kobj_data(lx->threads, OS_TYPE_KERNEL, KLXTHREADS_MAGIC);
}

/* clear_tid_at -- where thread `tid`'s clear_child_tid is kept, NULL if nowhere */
static uint64_t *clear_tid_at(struct klinux *lx, unsigned tid)
{
	struct klxthreads *t;

	if (tid == 0)
		return &lx->tid_address;
	t = threads_of(lx);
	return t ? &t->clear_child_tid[tid] : NULL;
}

/* lx_thread_sig -- where thread `tid`'s signal state is kept (lx is const
 * for the callers that only read it): tid 0's in klinux but for its
 * pending signals, the others' in the klxthreads; a program without one
 * (it never cloned) has no pending signals of a thread's own */
struct lx_thread_sig lx_thread_sig(const struct klinux *lx, unsigned tid)
{
	struct klinux *l = (struct klinux *)lx;
	struct klxthreads *t = threads_of(lx);

	if (tid == 0)
		return (struct lx_thread_sig){
			.mask = &l->sig_mask, .suspend_mask = &l->sig_suspend_mask,
			.flags = &l->sig_flags, .suspended = KLINUX_SIG_SUSPENDED,
			.altstack_sp = &l->altstack_sp, .altstack_size = &l->altstack_size,
			.pending = t ? &t->sig_pending[0] : NULL,
			.tsent = t ? &t->sig_tsent[0] : NULL,
		};
	KASSERT(t != NULL);            /* a thread past the first made the klxthreads */
	return (struct lx_thread_sig){
		.mask = &t->sig_mask[tid], .suspend_mask = &t->sig_suspend_mask[tid],
		.flags = &t->suspended, .suspended = 1u << tid,
		.altstack_sp = &t->altstack_sp[tid], .altstack_size = &t->altstack_size[tid],
		.pending = &t->sig_pending[tid], .tsent = &t->sig_tsent[tid],
	};
}

/* set_word -- a word of the Linux state is now v (logged if it changes) */
static void set_word(uint64_t *at, uint64_t v)
{
	if (!at || *at == v)
		return;
	KLOG(at);
	*at = v;
}

/* thread_sig_cleared -- thread `tid` ends: its signal state goes, but for
 * its mask when it is tid 0 (klinux's, which a new thread 0 -- a program
 * that has one thread again -- keeps, as the program's) */
static void thread_sig_cleared(struct klinux *lx, unsigned tid)
{
	const struct lx_thread_sig me = lx_thread_sig(lx, tid);

	if (tid)
		set_word(me.mask, 0);
	set_word(me.pending, 0);
	set_word(me.tsent, 0);
	set_word(me.suspend_mask, 0);
	set_word(me.altstack_sp, 0);
	set_word(me.altstack_size, 0);
	if (*me.flags & me.suspended) {
		KLOG(me.flags);
		*me.flags &= ~me.suspended;
	}
}

/* set_clear_tid -- thread `tid`'s clear_child_tid is now addr */
static void set_clear_tid(struct klinux *lx, unsigned tid, uint64_t addr)
{
	uint64_t *at = clear_tid_at(lx, tid);

	if (!at || *at == addr)
		return;
	KLOG(at);
	*at = addr;
}

/* threads_made -- lx's klxthreads made if it had none; 0, -ENOSYS for a
 * program of the layout before threads, -ENOMEM */
static int64_t threads_made(struct klinux *lx)
{
	uint64_t id;
	void *data;
	int err;

	if (lx->version < 2)
		return -LX_ENOSYS;
	if (lx->threads)
		return threads_of(lx) ? 0 : lx_errno(-ERR_CORRUPT);
	err = kobj_new(OS_TYPE_KERNEL, sizeof(struct klxthreads), KLXTHREADS_MAGIC, &id, &data);
	if (err)
		return lx_errno(err);
	KLOG(&lx->threads);
	lx->threads = id;             /* lx holds it from here; a fresh block: no log */
	return 0;
}

/* free_tid -- the tid p's next thread gets (proc_thread_new), -1 if none */
static int free_tid(const struct pctx *p)
{
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++)
		if (!p->thread[tid])
			return (int)tid;
	return -1;
}

/* lx_clone_thread -- clone (flags, stack, parent_tid, child_tid, tls)
 * with CLONE_THREAD -> the new thread's tid; it returns 0 on its stack,
 * with tls as its FS base */
int64_t lx_clone_thread(struct lxcall *c)
{
	const uint64_t flags = c->arg[0], stack = c->arg[1], parent_tid = c->arg[2];
	const uint64_t child_tid = c->arg[3], tls = c->arg[4];
	struct pctx *p = c->p;
	struct kthread *t;
	unsigned tid;
	uint32_t ltid;
	int64_t err;
	int next;

	if ((flags & CLONE_A_THREAD) != CLONE_A_THREAD)
		return -LX_EINVAL;
	if (flags & ~(uint64_t)CLONE_KNOWN || stack < FE_USER_BASE || stack > FE_USER_TOP ||
	    (flags & LX_CLONE_SETTLS && tls >= FE_USER_TOP) ||
	    (flags & (LX_CLONE_CHILD_CLEARTID | LX_CLONE_CHILD_SETTID) &&
	     (child_tid >= FE_USER_TOP || child_tid % FUTEX_WORD)))
		return -LX_EINVAL;
	next = free_tid(p);
	if (next < 0)
		return -LX_EAGAIN;
	ltid = (uint32_t)(p->proc->pid + (unsigned)next);
	err = threads_made(c->lx);
	if (!err && flags & LX_CLONE_PARENT_SETTID)
		err = lx_errno(uvm_copy_out(&p->mem, parent_tid, &ltid, sizeof(ltid)));
	if (!err && flags & LX_CLONE_CHILD_SETTID)
		err = lx_errno(uvm_copy_out(&p->mem, child_tid, &ltid, sizeof(ltid)));
	if (!err)
		err = lx_errno(proc_thread_new(p, 0, 0, 0, &tid));
	if (err)
		return err;
	KASSERT(tid == (unsigned)next);
	t = p->thread[tid];             /* a fresh block: no log */
	arch_frame_save(c->tf, &t->regs);
	t->regs.rax = 0;
	t->regs.rsp = stack;
	if (flags & LX_CLONE_SETTLS)
		t->regs.fs_base = tls;
	set_clear_tid(c->lx, tid, flags & LX_CLONE_CHILD_CLEARTID ? child_tid : 0);
	set_word(lx_thread_sig(c->lx, tid).mask,
		 *lx_thread_sig(c->lx, sched_current_tid()).mask); /* the caller's; no altstack */
	sched_thread_new();
	return ltid;
}

/* exit (status) -- the calling thread ends: its clear_child_tid set to 0
 * and woken; the last thread ends the program, as exit_group */
int64_t lx_exit(struct lxcall *c)
{
	struct pctx *p = c->p;
	const unsigned tid = sched_current_tid();
	struct kthread *t = p->thread[tid];
	const uint64_t *at = clear_tid_at(c->lx, tid);
	const uint32_t zero = 0;

	if (proc_threads_alive(p) == 1)
		return lx_exit_group(c);
	if (at && *at && !uvm_copy_out(&p->mem, *at, &zero, sizeof(zero)))
		sched_wake_futex(p, *at, 1);
	set_clear_tid(c->lx, tid, 0);
	thread_sig_cleared(c->lx, tid);
	KLOG(t);
	t->state = KTHREAD_EXITED;
	t->exit_status = (int64_t)(c->arg[0] & 0xff);
	sched_thread_exit();
	proc_thread_forget(p, tid);     /* nobody joins a Linux thread in the kernel */
	return SYSCALL_GONE;
}

/* lx_threads_exec -- an execve by p's thread `keep`: every other thread
 * ends, and keep has no clear_child_tid or alternate stack any more (its
 * mask stays, as on Linux) */
void lx_threads_exec(struct pctx *p, unsigned keep)
{
	const struct lx_thread_sig me = lx_thread_sig(p->lx, keep);

	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++) {
		struct kthread *t = p->thread[tid];

		if (!t || tid == keep)
			continue;
		set_clear_tid(p->lx, tid, 0);
		thread_sig_cleared(p->lx, tid);
		if (t->state != KTHREAD_EXITED) {
			KLOG(t);
			t->state = KTHREAD_EXITED;
		}
		proc_thread_forget(p, tid);
	}
	set_clear_tid(p->lx, keep, 0);
	set_word(me.altstack_sp, 0);
	set_word(me.altstack_size, 0);
}

/* gettid () -- the first thread's tid is the pid, as on Linux */
int64_t lx_gettid(struct lxcall *c)
{
	return (int64_t)c->p->proc->pid + sched_current_tid();
}

/* set_tid_address (addr) -> the tid; addr cleared and woken when the
 * calling thread ends */
int64_t lx_set_tid_address(struct lxcall *c)
{
	const uint64_t addr = c->arg[0];
	const unsigned tid = sched_current_tid();

	if (addr >= FE_USER_TOP)
		return -LX_EFAULT;
	if (tid && threads_made(c->lx))
		return -LX_ENOMEM;
	set_clear_tid(c->lx, tid, addr);
	return lx_gettid(c);
}

/* set_robust_list (head, len) -- accepted and not kept: a thread that
 * ends holding a robust mutex leaves it held */
int64_t lx_set_robust_list(struct lxcall *c)
{
	return c->arg[1] == 24 ? 0 : -LX_EINVAL; /* struct robust_list_head */
}

/* futex_deadline -- the monotonic deadline of a futex wait: its timeout
 * (relative for FUTEX_WAIT, absolute for FUTEX_WAIT_BITSET on the clock
 * `op` names) in *deadline, 0 for none */
static int64_t futex_deadline(struct lxcall *c, uint64_t op, uint64_t *deadline)
{
	const uint64_t timeout = c->arg[3], now = time_mono_ns();
	uint64_t ns, wall;
	int64_t err;

	*deadline = 0;
	if (!timeout)
		return 0;
	err = lx_read_timespec(c, timeout, &ns);
	if (err)
		return err;
	if ((op & LX_FUTEX_CMD_MASK) == LX_FUTEX_WAIT_BITSET) {
		wall = op & LX_FUTEX_CLOCK_REALTIME ? time_wall_ns() : now;
		ns = ns > wall ? ns - wall : 0;
	}
	*deadline = ns > UINT64_MAX - now ? UINT64_MAX : now + ns;
	return 0;
}

/* futex_wait -- FUTEX_WAIT(_BITSET): block while the word at addr holds val */
static int64_t futex_wait(struct lxcall *c, uint64_t op, uint64_t addr, uint32_t val)
{
	uint64_t deadline;
	uint32_t word;
	int64_t err = futex_deadline(c, op, &deadline);

	if (!err && (op & LX_FUTEX_CMD_MASK) == LX_FUTEX_WAIT_BITSET && !c->arg[5])
		err = -LX_EINVAL;
	if (err)
		return err;
	err = uvm_copy_in(&c->p->mem, &word, addr, sizeof(word));
	if (err)
		return lx_errno(err);
	if (word != val)
		return -LX_EAGAIN;
	deadline = lx_call_deadline(c, deadline);
	if (deadline && time_mono_ns() >= deadline)
		return -LX_ETIMEDOUT;
	sched_block(c->tf, KWAIT_FUTEX, addr, deadline);
	return SYSCALL_BLOCKED;
}

/* futex_requeue -- FUTEX_(CMP_)REQUEUE: wake `wake` waiters on addr, move
 * up to `move` others to addr2; how many in all */
static int64_t futex_requeue(struct lxcall *c, uint64_t addr, unsigned wake, unsigned move)
{
	const uint64_t addr2 = c->arg[4];
	struct pctx *p = c->p;
	unsigned n;

	if (addr2 % FUTEX_WORD || addr2 >= FE_USER_TOP)
		return -LX_EINVAL;
	n = sched_wake_futex(p, addr, wake);
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS && move; tid++) {
		struct kthread *t = p->thread[tid];

		if (t && t->state == KTHREAD_BLOCKED && t->wait == KWAIT_FUTEX &&
		    t->wait_obj == addr) {
			KLOG(&t->wait_obj);
			t->wait_obj = addr2;
			move--;
			n++;
		}
	}
	return n;
}

/* at_most -- a count of futex's (an int) as threads to wake or move */
static unsigned at_most(uint64_t count)
{
	const int32_t n = (int32_t)count;

	return n < 0 ? 0 : n > KPROC_MAX_THREADS ? KPROC_MAX_THREADS : (unsigned)n;
}

/* futex (addr, op, val, timeout or val2, addr2, val3) */
int64_t lx_futex(struct lxcall *c)
{
	const uint64_t addr = c->arg[0], op = c->arg[1], val2 = c->arg[3];
	const uint32_t val = (uint32_t)c->arg[2], val3 = (uint32_t)c->arg[5];
	uint32_t word;
	int err;

	if (addr % FUTEX_WORD || addr >= FE_USER_TOP ||
	    op & ~(uint64_t)(LX_FUTEX_CMD_MASK | LX_FUTEX_PRIVATE_FLAG | LX_FUTEX_CLOCK_REALTIME))
		return -LX_EINVAL;
	switch (op & LX_FUTEX_CMD_MASK) {
	case LX_FUTEX_WAIT:
	case LX_FUTEX_WAIT_BITSET:
		return futex_wait(c, op, addr, val);
	case LX_FUTEX_WAKE:
	case LX_FUTEX_WAKE_BITSET:
		if ((op & LX_FUTEX_CMD_MASK) == LX_FUTEX_WAKE_BITSET && !val3)
			return -LX_EINVAL;
		return sched_wake_futex(c->p, addr, at_most(val));
	case LX_FUTEX_CMP_REQUEUE:
		err = uvm_copy_in(&c->p->mem, &word, addr, sizeof(word));
		if (err)
			return lx_errno(err);
		if (word != val3)
			return -LX_EAGAIN;
		return futex_requeue(c, addr, at_most(val), at_most(val2));
	case LX_FUTEX_REQUEUE:
		return futex_requeue(c, addr, at_most(val), at_most(val2));
	default:
		return -LX_ENOSYS;
	}
}
