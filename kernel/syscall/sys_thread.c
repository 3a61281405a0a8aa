/*
 * sys_thread.c -- the system calls of threads: create, exit, join, the
 * futex pair, gettid, and the thread list.
 *
 * A process's threads share its address space and handles; each has its
 * registers, its state and a number (tid, 0 for the first), and is a
 * persistent object like the process (kformat.h): after a power cut each
 * resumes where the last commit left it. A blocked join or futex wait is
 * re-issued when the thread is woken, as every blocking call is
 * (docs/syscalls.md), with one difference: SYS_FUTEX_WAKE completes the
 * waits it wakes (they return 0), for a wake need not change the word.
 *
 * Futexes are private to a process: a wait is on (process, user address);
 * the kernel reads the word with the caller's rights, never trusting it.
 */
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "ferrite/errors.h"
#include "obj/kobj.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/uvm.h"
#include "syscall/syscall.h"

#define FUTEX_WORD 4

/* SYS_THREAD_CREATE (entry, stack top, arg) -> tid: a new thread runs
 * entry(arg) with rsp = stack top (16-byte aligned, less 8 as after a call) */
int64_t sys_thread_create(struct syscall *call)
{
	const uint64_t entry = call->arg[0], stack_top = call->arg[1], arg = call->arg[2];
	unsigned tid;
	int err;

	if (entry < FE_USER_BASE || entry >= FE_USER_TOP || stack_top < FE_USER_BASE + 16 ||
	    stack_top > FE_USER_TOP)
		return -ERR_INVAL;
	err = proc_thread_new(call->caller, entry, (stack_top & ~15ull) - 8, arg, &tid);
	if (err)
		return err;
	sched_thread_new();
	return tid;
}

/* SYS_THREAD_EXIT (status) -> does not return: the caller's thread ends,
 * kept with its status until joined; the last thread ends the process */
int64_t sys_thread_exit(struct syscall *call)
{
	struct pctx *p = call->caller;
	const int64_t status = (int64_t)call->arg[0];
	unsigned tid = sched_current_tid();
	struct kthread *t = p->thread[tid];

	if (proc_threads_alive(p) == 1) {
		char detail[48];

		snprintf(detail, sizeof(detail), "last thread exited with status %lld",
			 (long long)status);
		proc_end(p, FE_EXIT_NORMAL, status, detail);
		return SYSCALL_GONE;
	}
	KLOG(t);
	t->state = KTHREAD_EXITED;
	t->exit_status = status;
	sched_thread_exit();
	sched_wake(KWAIT_THREAD, p->thread_id[tid]);
	return SYSCALL_GONE;
}

/* SYS_THREAD_JOIN (tid, int64_t *status) -> 0 once the thread has exited,
 * its status stored at *status; the thread is then gone and its tid free */
int64_t sys_thread_join(struct syscall *call)
{
	struct pctx *p = call->caller;
	const uint64_t tid = call->arg[0], status_ptr = call->arg[1];
	struct kthread *t;
	int err;

	if (tid >= KPROC_MAX_THREADS || !p->thread[tid])
		return -ERR_NOENT;
	if (tid == sched_current_tid())
		return -ERR_INVAL;
	t = p->thread[tid];
	if (t->state != KTHREAD_EXITED) {
		sched_block(call->tf, KWAIT_THREAD, p->thread_id[tid], 0);
		return SYSCALL_BLOCKED;
	}
	err = uvm_copy_out(&p->mem, status_ptr, &t->exit_status, sizeof(t->exit_status));
	if (err)
		return err;
	proc_thread_forget(p, (unsigned)tid);
	return 0;
}

/* SYS_FUTEX_WAIT (addr, expected) -> 0 once woken; -ERR_AGAIN at once if
 * the 32-bit word at addr does not hold expected */
int64_t sys_futex_wait(struct syscall *call)
{
	const uint64_t addr = call->arg[0];
	const uint32_t expected = (uint32_t)call->arg[1];
	uint32_t word;
	int err;

	if (addr % FUTEX_WORD)
		return -ERR_INVAL;
	err = uvm_copy_in(&call->caller->mem, &word, addr, sizeof(word));
	if (err)
		return err;
	if (word != expected)
		return -ERR_AGAIN;
	sched_block(call->tf, KWAIT_FUTEX, addr, 0);
	return SYSCALL_BLOCKED;
}

/* SYS_FUTEX_WAKE (addr, max) -> how many of the caller's process's threads
 * waiting on addr were woken (at most max) */
int64_t sys_futex_wake(struct syscall *call)
{
	const uint64_t addr = call->arg[0], max = call->arg[1];

	if (addr % FUTEX_WORD || addr >= FE_USER_TOP)
		return -ERR_INVAL;
	return sched_wake_futex(call->caller, addr,
				max > KPROC_MAX_THREADS ? KPROC_MAX_THREADS : (unsigned)max);
}

/* SYS_GETTID () -> the caller's tid */
int64_t sys_gettid(struct syscall *call)
{
	(void)call;
	return sched_current_tid();
}

/* SYS_THREAD_LIST (pid, list, max) -> how many threads of process pid
 * were listed (by tid, at most max) */
int64_t sys_thread_list(struct syscall *call)
{
	static struct fe_thread_info list[KPROC_MAX_THREADS];
	const uint64_t pid = call->arg[0], list_ptr = call->arg[1], max = call->arg[2];
	struct pctx *q = ptable_by_pid(pid);
	unsigned n = 0;
	int err;

	if (!q)
		return -ERR_NOENT;
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS && n < max; tid++) {
		const struct kthread *t = q->thread[tid];

		if (!t)
			continue;
		list[n] = (struct fe_thread_info){
			.tid = tid,
			.state = t->state == KTHREAD_RUNNABLE  ? FE_THREAD_RUNNABLE
				 : t->state == KTHREAD_BLOCKED ? FE_THREAD_BLOCKED
							       : FE_THREAD_EXITED,
			.blocked_on = t->state == KTHREAD_BLOCKED ? t->blocked_call : 0,
			.cpu = sched_thread_cpu(q->proc->slot, tid),
			.exit_status = t->state == KTHREAD_EXITED ? t->exit_status : 0,
		};
		n++;
	}
	err = n ? uvm_copy_out(&call->caller->mem, list_ptr, list, n * sizeof(list[0])) : 0;
	return err ? (int64_t)err : (int64_t)n;
}
