/*
 * sys_process.c -- the system calls on processes: spawn, exit, wait, kill,
 * list, resume, and the calling thread's own: yield, sleep, getpid.
 *
 * A process is known to its parent by a handle to its process object
 * (spawn returns one; wait and console_fg take one) and to everyone by its
 * pid, which is never reused. Only an ancestor may kill a process -- or,
 * in a safe power-on, anyone may kill a held one, until resume releases
 * them all (epoch/rescue.c). Waiting and sleeping block in the kernel as
 * "blocked, restart this call": the call is re-issued when the thread
 * wakes, after a power cut too.
 */
#include <stdio.h>
#include <string.h>

#include "console/console.h"
#include "core/heap.h"
#include "core/time.h"
#include "ferrite/errors.h"
#include "task/handle.h"
#include "obj/kobj.h"
#include "task/proc.h"
#include "epoch/rescue.h"
#include "task/sched.h"
#include "uvm/uvm.h"
#include "syscall/syscall.h"

/* copy_grants -- the handles SYS_SPAWN passes, each checked against the
 * caller's own (grant right, and no more rights than it has) */
static int copy_grants(struct pctx *p, const struct fe_spawn *sp,
		       struct spawn_args *s)
{
	struct fe_handle_grant grants[FE_SPAWN_MAX_HANDLES];
	int err;

	if (sp->handle_count) {
		err = uvm_copy_in(&p->mem, grants, (uint64_t)(uintptr_t)sp->handles,
				  sp->handle_count * sizeof(grants[0]));
		if (err)
			return err;
	}
	s->grant_count = sp->handle_count;
	for (unsigned i = 0; i < sp->handle_count; i++) {
		struct khandle *h;

		err = handle_lookup(p, grants[i].handle, HANDLE_ANY_TYPE,
				    FE_RIGHT_GRANT, &h);
		if (err)
			return err;
		if (grants[i].rights & ~h->rights)
			return -ERR_PERM;
		s->grant[i] = (struct spawn_grant){
			.object = h->object, .rights = grants[i].rights, .end = h->end,
		};
	}
	return 0;
}

/* check_fds -- a Linux program's descriptors 0, 1 and 2 (fe_spawn.fd):
 * each the console, or a grant of a blob or code object with
 * FE_RIGHT_READ to read (0), of a blob with FE_RIGHT_WRITE to write (1,
 * 2); anything else is refused, nothing made */
static int check_fds(const struct fe_spawn *sp, struct spawn_args *s)
{
	if (sp->reserved)
		return -ERR_INVAL;
	for (unsigned fd = 0; fd < 3; fd++) {
		const struct fe_spawn_fd *d = &sp->fd[fd];
		const bool reads = fd == 0;
		const struct spawn_grant *g;
		uint16_t type;

		if (d->flags & ~(uint8_t)FE_SPAWN_FD_APPEND || d->grant > s->grant_count)
			return -ERR_INVAL;
		if (d->flags && (reads || !d->grant))
			return -ERR_INVAL; /* appending is for writing to an object */
		if (!d->grant)
			continue;
		g = &s->grant[d->grant - 1];
		type = kobj_type(g->object);
		if (type != OS_TYPE_BLOB && !(reads && type == OS_TYPE_CODE))
			return -ERR_INVAL;
		if (!(g->rights & (reads ? FE_RIGHT_READ : FE_RIGHT_WRITE)))
			return -ERR_PERM;
	}
	memcpy(s->fd, sp->fd, sizeof(s->fd));
	return 0;
}

/* copy_spawn_args -- argv, grants and descriptors of SYS_SPAWN, checked */
static int copy_spawn_args(struct pctx *p, uint64_t user, struct spawn_args *s)
{
	uint64_t argv[FE_SPAWN_MAX_ARGS];
	struct fe_spawn sp;
	int err = uvm_copy_in(&p->mem, &sp, user, sizeof(sp));

	if (err)
		return err;
	if (!sp.argc || sp.argc > FE_SPAWN_MAX_ARGS ||
	    sp.handle_count > FE_SPAWN_MAX_HANDLES)
		return -ERR_INVAL;
	err = uvm_copy_in(&p->mem, argv, (uint64_t)(uintptr_t)sp.argv, sp.argc * 8ull);
	if (err)
		return err;
	s->argc = sp.argc;
	s->argv_bytes = 0;
	for (unsigned i = 0; i < sp.argc; i++) {
		int len = uvm_copy_string(&p->mem, s->argv + s->argv_bytes, argv[i],
					  sizeof(s->argv) - s->argv_bytes);

		if (len < 0)
			return len;
		s->argv_bytes += (size_t)len + 1;
	}
	err = copy_grants(p, &sp, s);
	return err ? err : check_fds(&sp, s);
}

/* SYS_SPAWN (code handle, struct fe_spawn, flags) -> a handle to the new
 * process */
int64_t sys_spawn(struct syscall *call)
{
	static struct spawn_args args;
	struct pctx *p = call->caller;
	const int64_t handle = (int64_t)call->arg[0];
	const uint64_t spawn_ptr = call->arg[1], flags = call->arg[2];
	struct khandle *h;
	uint64_t child;
	unsigned slot;
	int err;

	if (flags & ~(uint64_t)FE_SPAWN_FLAGS)
		return -ERR_INVAL;
	err = handle_lookup(p, handle, HANDLE_ANY_TYPE,
			    FE_RIGHT_READ | FE_RIGHT_EXEC, &h);
	if (err)
		return err;
	if (kobj_type(h->object) != OS_TYPE_CODE)
		return -ERR_NOEXEC;
	err = copy_spawn_args(p, spawn_ptr, &args);
	if (err)
		return err;
	args.flags = (uint32_t)flags;
	if (handle_full(p, 1))
		return -ERR_NOSPC;
	err = proc_spawn(p, h->object, &args, &slot);
	if (err)
		return err;
	err = console_inherit_sink(p, ptable_slot(slot));
	if (err) {
		proc_end(ptable_slot(slot), FE_EXIT_KILLED, 0, "spawn failed");
		return err;
	}
	child = ptable_slot(slot)->proc_id;
	kobj_hold(child);
	return install_new(p, child, FE_RIGHT_READ | FE_RIGHT_WRITE | FE_RIGHT_GRANT, 0);
}

/* SYS_EXIT (status) -> does not return */
int64_t sys_exit(struct syscall *call)
{
	const int64_t status = (int64_t)call->arg[0];
	char detail[48];

	snprintf(detail, sizeof(detail), "exited with status %lld", (long long)status);
	proc_end(call->caller, FE_EXIT_NORMAL, status, detail);
	return SYSCALL_GONE;
}

/* process_of -- the process object behind handle h, with `need` rights */
static int process_of(struct pctx *p, int64_t handle, uint32_t need,
		      uint64_t *id, struct kproc **proc)
{
	struct khandle *h;
	int err = handle_lookup(p, handle, HANDLE_TYPE(OS_TYPE_PROCESS), need, &h);

	if (err)
		return err;
	*proc = kobj_data(h->object, OS_TYPE_PROCESS, KPROC_MAGIC);
	*id = h->object;
	return *proc ? 0 : -ERR_INVAL;
}

/* SYS_WAIT (process handle, struct fe_exit_info, flags) -> its pid once it
 * ended; with FE_WAIT_NOHANG, 0 while it runs */
int64_t sys_wait(struct syscall *call)
{
	struct pctx *p = call->caller;
	const int64_t handle = (int64_t)call->arg[0];
	const uint64_t info_ptr = call->arg[1], flags = call->arg[2];
	struct fe_exit_info running;
	struct kproc *proc;
	uint64_t id;
	int err;

	if (flags & ~(uint64_t)FE_WAIT_NOHANG)
		return -ERR_INVAL;
	err = process_of(p, handle, FE_RIGHT_READ, &id, &proc);
	if (err)
		return err;
	if (proc->state == KPROC_EXITED) {
		err = uvm_copy_out(&p->mem, info_ptr, &proc->exit, sizeof(proc->exit));
		return err ? err : (int64_t)proc->pid;
	}
	if (flags & FE_WAIT_NOHANG) {
		memset(&running, 0, sizeof(running));
		running.pid = proc->pid;
		running.reason = FE_EXIT_RUNNING;
		err = uvm_copy_out(&p->mem, info_ptr, &running, sizeof(running));
		return err ? err : 0;
	}
	sched_block(call->tf, KWAIT_PROCESS, id, 0);
	return SYSCALL_BLOCKED;
}

/* SYS_KILL (pid) -> 0: the caller's descendant (or itself), or a process
 * a safe power-on holds, ends */
int64_t sys_kill(struct syscall *call)
{
	struct pctx *p = call->caller;
	const uint64_t pid = call->arg[0];
	struct pctx *target = ptable_by_pid(pid);
	char detail[40];

	if (!target)
		return -ERR_NOENT;
	if (!proc_is_ancestor(p, target) && !sched_held(target))
		return -ERR_PERM;
	snprintf(detail, sizeof(detail), "killed by pid %llu",
		 (unsigned long long)p->proc->pid);
	proc_end(target, FE_EXIT_KILLED, 0, detail);
	return target == p ? SYSCALL_GONE : 0;
}

/* proc_info -- what SYS_PROC_LIST says of process q: runnable if one of
 * its threads is, else blocked in the call of its first blocked thread */
static void proc_info(struct pctx *q, struct fe_proc_info *info)
{
	const struct kthread *blocked = NULL;

	memset(info, 0, sizeof(*info));
	info->pid = q->proc->pid;
	info->parent_pid = q->proc->parent_pid;
	info->cpu_ns = q->proc->cpu_ns;
	info->pages = uvm_pages(&q->mem);
	info->state = FE_PROC_BLOCKED;
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++) {
		const struct kthread *t = q->thread[tid];

		if (t && t->state == KTHREAD_RUNNABLE)
			info->state = FE_PROC_RUNNABLE;
		else if (t && t->state == KTHREAD_BLOCKED && !blocked)
			blocked = t;
	}
	info->blocked_on = info->state == FE_PROC_BLOCKED && blocked ? blocked->blocked_call : 0;
	if (sched_held(q))
		info->state |= FE_PROC_HELD;
	memcpy(info->name, q->proc->name, sizeof(info->name));
}

/* SYS_PROC_LIST (list, max, min_pid) -> processes listed, by pid, from min_pid */
int64_t sys_proc_list(struct syscall *call)
{
	static struct fe_proc_info list[KROOT_MAX_PROCS];
	const uint64_t list_ptr = call->arg[0], min_pid = call->arg[2];
	const uint64_t max = call->arg[1] < KROOT_MAX_PROCS ? call->arg[1] : KROOT_MAX_PROCS;
	unsigned n = 0;
	int err;

	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct pctx *q = ptable_slot(i);
		struct fe_proc_info info;
		unsigned at;

		if (!q || q->proc->pid < min_pid)
			continue;
		proc_info(q, &info);
		for (at = n; at > 0 && list[at - 1].pid > info.pid; at--)
			list[at] = list[at - 1];
		list[at] = info;
		n++;
	}
	if (n > max)
		n = (unsigned)max;
	err = n ? uvm_copy_out(&call->caller->mem, list_ptr, list, n * sizeof(list[0])) : 0;
	return err ? (int64_t)err : (int64_t)n;
}

/* SYS_RESUME () -> how many held processes run on; the rescue shell calling
 * it may end (epoch/rescue.c) */
int64_t sys_resume(struct syscall *call)
{
	return rescue_resume(call->caller);
}

/* SYS_YIELD () -> 0, after the others had their turn */
int64_t sys_yield(struct syscall *call)
{
	(void)call;
	sched_yield();
	return 0;
}

/* SYS_SLEEP_UNTIL (monotonic ns) -> 0 once the clock reached it */
int64_t sys_sleep_until(struct syscall *call)
{
	const uint64_t deadline = call->arg[0];

	if (time_mono_ns() >= deadline)
		return 0;
	sched_block(call->tf, KWAIT_SLEEP, 0, deadline);
	return SYSCALL_BLOCKED;
}

/* SYS_GETPID () -> the caller's pid */
int64_t sys_getpid(struct syscall *call)
{
	return (int64_t)call->caller->proc->pid;
}
