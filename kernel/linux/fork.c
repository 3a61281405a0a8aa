/*
 * fork.c -- Linux programs making programs: fork, vfork and clone of a
 * process, execve, and waiting for children (wait4, waitid).
 *
 * A fork is one call, hence one epoch (a commit never falls inside a
 * call): the child -- its process, thread, address space, handles and
 * Linux state -- is made whole within the call, so a power cut finds it
 * whole, or absent with the call not made. Its memory is the parent's
 * copy-on-write (uvm_fork: O(mappings), no page copied); its open files
 * are the parent's, shared as dup shares them (a pipe counts the child's
 * descriptors too); its signal dispositions, mask, alternate stack,
 * directories, umask, terminal modes, group and session are copies.
 * Pending signals, the interval timer and record locks are not inherited,
 * as on Linux. vfork and clone with CLONE_VM but not CLONE_THREAD (glibc's
 * posix_spawn) are forks too: the child gets a copy of the memory, not
 * the memory itself, which every program that uses them as POSIX allows
 * (exec or _exit at once) cannot tell.
 *
 * execve replaces the program a process runs: the path is looked up as
 * open's are; a file starting with "#!" runs its interpreter with the
 * file's path as its argument. Everything that can fail is checked before
 * the old program is let go; past that point (a heap too full for the new
 * stack) the process ends, as Linux ends one with SIGKILL.
 *
 * Children: a parent holds a handle to each child it forked (a fork's
 * child does not inherit them), which keeps an ended child's process
 * object and how it ended -- a zombie -- until wait4 or waitid reaps it by
 * closing the handle. A parent that ignores SIGCHLD keeps no zombies
 * (signal.c). The children of a program that ends are adopted by its
 * parent (task/proc.c), which does not wait for them: they go when they
 * end, and getppid tells the adopter's pid.
 */
#include <stdint.h>
#include <string.h>

#include "arch/arch.h"
#include "core/heap.h"
#include "ferrite/errors.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "objstore/object.h"
#include "task/elf.h"
#include "task/handle.h"
#include "task/proc.h"
#include "task/ptable.h"
#include "task/sched.h"
#include "uvm/pagecache.h"
#include "uvm/uvm.h"

#define LX_WNOHANG 0x1u
#define LX_WUNTRACED 0x2u
#define LX_WEXITED 0x4u
#define LX_WCONTINUED 0x8u
#define LX_WNOWAIT 0x01000000u
#define LX_WAIT_IGNORED 0xe0000000u    /* __WNOTHREAD __WALL __WCLONE: no meaning here */
#define LX_P_ALL 0
#define LX_P_PID 1
#define LX_P_PGID 2
#define LX_CLD_EXITED 1
#define LX_CLD_KILLED 2
#define LX_CLD_STOPPED 5
#define LX_CLD_CONTINUED 6
#define INTERP_LINE 256                /* the longest "#!" line read */
#define LX_PATH_GIVEN 4096             /* the longest path execve takes (Linux's PATH_MAX) */

/* What waitid fills in of a siginfo_t, SIGCHLD's fields. */
struct lx_siginfo_child {
	int32_t signo, errno_, code, pad;
	int32_t pid;
	uint32_t uid;
	int32_t status;
	uint8_t rest[128 - 28];
};
_Static_assert(sizeof(struct lx_siginfo_child) == 128, "siginfo_t is 128 bytes");

/* struct rusage: two timevals and 14 longs, all 0 here */
#define LX_RUSAGE_BYTES 144

/* copy_state -- child c's Linux state: a copy of c's caller's, what a
 * child does not inherit left out */
static int copy_state(struct lxcall *c, struct pctx *child)
{
	const struct klinux *from = c->lx;
	const struct lx_thread_sig me = lx_thread_sig(from, sched_current_tid());
	const struct klxsig *actions = kobj_data(from->signals, OS_TYPE_KERNEL, KLXSIG_MAGIC);
	struct klinux *lx;
	uint64_t sig;
	void *data;
	int err = lx_state_new(child, 0);

	if (err)
		return err;
	lx = child->lx;                    /* a fresh block: no log */
	memcpy(lx, from, from->version == 1 ? KLINUX_SIZE_BEFORE_THREADS : sizeof(*lx));
	lx->version = KLINUX_VERSION;
	lx->pgid = (uint32_t)lx_pgid(c->p);
	lx->sid = (uint32_t)lx_sid(c->p);
	lx->brk_object = lx->tid_address = lx->threads = lx->locks = 0;
	lx->sig_pending = lx->sig_sent = lx->sig_tsent = 0;
	lx->sig_flags = 0;
	lx->sig_suspend_mask = 0;
	lx->fault_addr = lx->fault_code = 0;
	lx->alarm_ns = lx->alarm_interval_ns = 0;
	lx->sig_mask = *me.mask;           /* the caller's thread's, as its stack */
	lx->altstack_sp = *me.altstack_sp;
	lx->altstack_size = *me.altstack_size;
	lx->signals = 0;
	lx_files_forked(lx);
	err = kobj_new(OS_TYPE_KERNEL, sizeof(*actions), KLXSIG_MAGIC, &sig, &data);
	if (err)
		return err;
	memcpy(data, actions, sizeof(*actions));
	lx->signals = sig;
	return 0;
}

/* fork_process -- a child running on from this call with rax 0: on
 * `stack` unless 0, with FS base `tls` if CLONE_SETTLS, its pid written
 * at parent_tid in the parent's memory if CLONE_PARENT_SETTID and at
 * child_tid in its own if CLONE_CHILD_SETTID (and that cleared at its
 * end if CLONE_CHILD_CLEARTID). With `borrow` (vfork) the child runs in
 * the caller's own memory, and the caller's call waits until the child
 * execs or ends (KWAIT_VFORK: proc.c completes it with the pid). The
 * child's pid. */
static int64_t fork_process(struct lxcall *c, uint64_t flags, uint64_t stack,
			    uint64_t parent_tid, uint64_t child_tid, uint64_t tls, bool borrow)
{
	static struct arch_user_regs regs; /* the kernel runs one call at a time */
	struct pctx *child;
	uint32_t pid;
	int err;
	int h;

	if (handle_full(c->p, 1))
		return -LX_EAGAIN;     /* no room for the handle that keeps the child */
	if (flags & LX_CLONE_PARENT_SETTID && uvm_check(&c->p->mem, parent_tid, 4, UVM_WRITE))
		return -LX_EFAULT;
	arch_frame_save(c->tf, &regs);
	regs.rax = 0;
	if (stack)
		regs.rsp = stack;
	if (flags & LX_CLONE_SETTLS)
		regs.fs_base = tls;
	err = proc_fork(c->p, &regs, borrow, &child);
	if (err)
		return err == -ERR_NOSPC ? -LX_EAGAIN : lx_errno(err);
	pid = (uint32_t)child->proc->pid;
	err = copy_state(c, child);
	if (!err && flags & LX_CLONE_CHILD_SETTID)
		err = uvm_copy_out(&child->mem, child_tid, &pid, sizeof(pid));
	if (!err && flags & LX_CLONE_CHILD_CLEARTID) {
		KLOG(&child->lx->tid_address);
		child->lx->tid_address = child_tid;
	}
	if (!err) {
		kobj_hold(child->proc_id);
		h = handle_install(c->p, child->proc_id, handle_rights_max(OS_TYPE_PROCESS), 0);
		if (h < 0) {
			kobj_release(child->proc_id);
			err = h;
		}
	}
	if (err) {
		proc_end(child, FE_EXIT_KILLED, 0, "fork failed");
		return lx_errno(err == -ERR_NOSPC ? -ERR_NOMEM : err);
	}
	if (flags & LX_CLONE_PARENT_SETTID)
		(void)uvm_copy_out(&c->p->mem, parent_tid, &pid, sizeof(pid)); /* checked */
	child->thread[0]->state = KTHREAD_RUNNABLE; /* a fresh thread: no log */
	sched_thread_new();
	if (!borrow)
		return pid;
	sched_block(c->tf, KWAIT_VFORK, child->proc_id, 0);
	return SYSCALL_BLOCKED;
}

/* fork () */
int64_t lx_fork(struct lxcall *c)
{
	return fork_process(c, 0, 0, 0, 0, 0, false);
}

/* vfork () -- the child borrows the caller's memory, the caller waits
 * until it execs or ends; a program of more threads than one forks
 * (the others would run on in the memory the child changes) */
int64_t lx_vfork(struct lxcall *c)
{
	return fork_process(c, 0, 0, 0, 0, 0, proc_threads_alive(c->p) == 1);
}

/* clone (flags, stack, parent_tid, child_tid, tls) -- with CLONE_THREAD
 * a thread (thread.c); without, a process: a vfork with CLONE_VM and
 * CLONE_VFORK (glibc's posix_spawn, its child on `stack`), else a fork
 * (CLONE_VM alone too: the child gets a copy) */
int64_t lx_clone(struct lxcall *c)
{
	const uint64_t flags = c->arg[0], stack = c->arg[1], parent_tid = c->arg[2];
	const uint64_t child_tid = c->arg[3], tls = c->arg[4];
	const uint64_t known = 0xff | LX_CLONE_VM | LX_CLONE_VFORK | LX_CLONE_SETTLS |
			       LX_CLONE_PARENT_SETTID | LX_CLONE_CHILD_SETTID |
			       LX_CLONE_CHILD_CLEARTID;
	const uint64_t vfork = LX_CLONE_VM | LX_CLONE_VFORK;

	if (flags & LX_CLONE_THREAD)
		return lx_clone_thread(c);
	if (flags & ~known || (flags & 0xff) != LX_SIGCHLD ||
	    stack >= FE_USER_TOP || (flags & LX_CLONE_SETTLS && tls >= FE_USER_TOP))
		return -LX_EINVAL;
	return fork_process(c, flags, stack, parent_tid, child_tid, tls,
			    (flags & vfork) == vfork && proc_threads_alive(c->p) == 1);
}

/* --- execve --------------------------------------------------------------- */

/* What an execve runs, read before anything is let go. */
static struct lx_exec_args ex;         /* the kernel runs one call at a time */

/* read_strings -- the NULL-terminated array of strings at user address
 * `at` (0: none) appended to ex; its count in *count */
static int64_t read_strings(struct lxcall *c, uint64_t at, unsigned *count)
{
	*count = 0;
	for (; at; at += 8) {
		uint64_t s;
		int n;

		if (uvm_copy_in(&c->p->mem, &s, at, sizeof(s)))
			return -LX_EFAULT;
		if (!s)
			return 0;
		if (ex.argc + ex.envc + *count >= LX_EXEC_POINTERS)
			return -LX_E2BIG;
		n = uvm_copy_string(&c->p->mem, ex.strings + ex.bytes, s,
				    sizeof(ex.strings) - ex.bytes);
		if (n == -ERR_TOOBIG)
			return -LX_E2BIG;
		if (n < 0)
			return -LX_EFAULT;
		ex.bytes += (size_t)n + 1;
		(*count)++;
	}
	return 0;
}

/* prepend -- the strings in `first` (n of them, back to back) before ex's
 * arguments, argv[0] dropped if `drop_first` */
static int64_t prepend(const char *first, size_t len, unsigned n, bool drop_first)
{
	size_t skip = drop_first && ex.argc ? strlen(ex.strings) + 1 : 0;

	if (ex.bytes - skip + len > sizeof(ex.strings))
		return -LX_E2BIG;
	memmove(ex.strings + len, ex.strings + skip, ex.bytes - skip);
	memcpy(ex.strings, first, len);
	ex.bytes = ex.bytes - skip + len;
	ex.argc = ex.argc - (skip ? 1 : 0) + n;
	return 0;
}

/* interpreter -- for a file that starts with "#!": its interpreter's
 * path in `interp` and its one optional argument in `arg` ("" if none);
 * 1 for a file that does not start so, 0 for one that does */
static int64_t interpreter(uint64_t object, char *interp, char *arg)
{
	char line[INTERP_LINE + 1];
	int64_t got = pagecache_read(object, 0, line, INTERP_LINE);
	char *p, *end;

	if (got < 2 || line[0] != '#' || line[1] != '!')
		return got < 0 ? -LX_EIO : 1;
	line[got] = 0;
	end = memchr(line, '\n', (size_t)got);
	if (!end)
		return -LX_ENOEXEC;    /* Linux: a line longer than it reads */
	*end = 0;
	for (p = line + 2; *p == ' ' || *p == '\t'; p++)
		;
	end = p;
	while (*end && *end != ' ' && *end != '\t')
		end++;
	if (end == p)
		return -LX_ENOEXEC;
	memcpy(interp, p, (size_t)(end - p));
	interp[end - p] = 0;
	for (p = end; *p == ' ' || *p == '\t'; p++)
		;
	for (end = p + strlen(p); end > p && (end[-1] == ' ' || end[-1] == '\t'); end--)
		;
	memcpy(arg, p, (size_t)(end - p));
	arg[end - p] = 0;
	return 0;
}

/* code_read -- elf_read_fn over an object */
static int64_t code_read(void *ctx, uint64_t off, void *buf, uint64_t len)
{
	return pagecache_read(*(uint64_t *)ctx, off, buf, len);
}

/* run_interpreter -- the file ex is to run starts with "#!": argv
 * becomes the interpreter, its argument if any, the file's path (`file`,
 * as the caller gave it), then argv[1..]; `file` becomes the interpreter's */
static int64_t run_interpreter(char *file, const char *interp, const char *arg)
{
	static char first[2 * INTERP_LINE + LX_PATH_GIVEN];
	size_t len = 0, n;

	n = strlen(interp) + 1;
	memcpy(first + len, interp, n);
	len += n;
	if (*arg) {
		n = strlen(arg) + 1;
		memcpy(first + len, arg, n);
		len += n;
	}
	n = strlen(file) + 1;
	memcpy(first + len, file, n);
	len += n;
	memcpy(file, interp, strlen(interp) + 1);
	return prepend(first, len, *arg ? 3 : 2, true);
}

/* execve (path, argv, envp) */
int64_t lx_execve(struct lxcall *c)
{
	static char file[LX_PATH_GIVEN], name[KLINUX_PATH_MAX], name_interp[KLINUX_PATH_MAX];
	static struct elf_image img, interp; /* the kernel runs one call at a time */
	static char shebang[INTERP_LINE], arg[INTERP_LINE];
	struct pctx *p = c->p;
	const unsigned tid = sched_current_tid();
	struct os_obj_info info;
	const char *why = NULL, *base;
	uint64_t object, stack_top, interp_code = 0;
	int64_t err;
	unsigned n, depth = 0;

	err = uvm_copy_string(&p->mem, file, c->arg[0], sizeof(file));
	if (err < 0)
		return err == -ERR_TOOBIG ? -LX_ENAMETOOLONG : -LX_EFAULT;
	ex.argc = ex.envc = 0;
	ex.bytes = 0;
	err = read_strings(c, c->arg[1], &n);
	if (err)
		return err;
	ex.argc = n;
	err = read_strings(c, c->arg[2], &n);
	if (err)
		return err;
	ex.envc = n;
	for (;;) {
		err = lx_exec_lookup(c, 0, file, name, &object);
		if (!err && os_obj_head(&kheap, object, &info))
			err = -LX_EIO;
		if (!err && ((info.type != OS_TYPE_CODE && info.type != OS_TYPE_BLOB) ||
			     (info.mode && !(info.mode & 0111))))
			err = -LX_EACCES;
		if (!err)
			err = interpreter(object, shebang, arg);
		if (err < 0)
			return err;
		if (err == 1)
			break;
		if (++depth > 4)
			return -LX_ELOOP;      /* Linux follows a few levels too */
		err = run_interpreter(file, shebang, arg);
		if (err)
			return err;
	}
	err = elf_parse(code_read, &object, info.size, FE_USER_BASE,
			PROC_STACK_TOP - PROC_STACK_SIZE, &img, &why);
	if (err || img.abi != ELF_ABI_LINUX)
		return -LX_ENOEXEC;
	if (img.interp[0]) { /* a dynamic program: its loader, below the caller's root */
		err = lx_exec_lookup(c, 0, img.interp, name_interp, &interp_code);
		if (!err && (os_obj_head(&kheap, interp_code, &info) || info.type != OS_TYPE_CODE))
			err = -LX_EACCES;
		if (!err && elf_parse_interp(code_read, &interp_code, info.size, FE_USER_BASE,
					     PROC_STACK_TOP - PROC_STACK_SIZE, &interp, &why))
			err = -LX_ELIBBAD;
		if (err)
			return err;
	}
	/* The point of no return: the old program goes. No CPU runs p's
	 * threads from here (the caller's takes its new registers below and
	 * runs again), the others end. */
	sched_forget(p->proc->slot);
	lx_threads_exec(p, tid);
	lx_files_exec(c->lx);
	lx_signals_exec(c->lx);
	base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	err = proc_exec_image(p, object, &img, interp_code, &interp, base, &stack_top);
	if (!err)
		err = lx_start_program(p, &img, interp_code ? &interp : NULL, &ex, stack_top,
				       &p->thread[tid]->regs);
	if (err)
		proc_end(p, FE_EXIT_KILLED, LX_SIGKILL, "execve: the heap is full");
	return SYSCALL_GONE;
}

/* --- waiting for children ------------------------------------------------- */

/* status_of -- how a child ended, as wait4's status and waitid's code */
static int status_of(const struct fe_exit_info *e, int *code, int *value)
{
	int s;

	switch (e->reason) {
	case FE_EXIT_NORMAL:
		*code = LX_CLD_EXITED;
		*value = (int)(e->status & 0xff);
		return *value << 8;
	case FE_EXIT_KILLED:
		s = e->status > 0 && e->status <= LX_NSIG ? (int)e->status : LX_SIGKILL;
		break;
	case FE_EXIT_INTERRUPT:
		s = LX_SIGINT;
		break;
	default: /* a fault with no handler: the signal Linux would have sent */
		s = e->vector == FE_FAULT_INVALID_OPCODE ? LX_SIGILL :
		    e->vector == FE_FAULT_DIVIDE || e->vector == FE_FAULT_FPU ||
		    e->vector == FE_FAULT_SIMD ? LX_SIGFPE :
		    e->vector == FE_FAULT_BREAKPOINT || e->vector == FE_FAULT_DEBUG ? LX_SIGTRAP :
		    e->vector == FE_FAULT_ALIGNMENT ? LX_SIGBUS : LX_SIGSEGV;
		break;
	}
	*code = LX_CLD_KILLED;
	*value = s;
	return s;
}

/* A child a wait may take. */
struct child {
	int handle;                    /* the parent's handle to it */
	const struct kproc *proc;
	int news;                      /* a live one: the signal that stopped it, or SIGCONT */
};

/* news_wanted -- whether a wait with `options` tells stop or continuation s */
static bool news_wanted(int s, uint32_t options)
{
	return s == LX_SIGCONT ? options & LX_WCONTINUED : s && options & LX_WUNTRACED;
}

/* find_child -- a child of c's program that `idtype`/`id` picks (waitid's
 * terms: LX_P_ALL, LX_P_PID id, LX_P_PGID id): 1 with it in *out if one
 * ended, or stopped or went on since its last word (options
 * WUNTRACED, WCONTINUED), 0 if only live ones match (*out: one of them),
 * -ECHILD if none. An ended child's group is not known: a wait for a
 * group takes any ended child. */
static int64_t find_child(struct lxcall *c, int idtype, uint64_t id, uint32_t options,
			  struct child *out)
{
	const struct khandles *t = c->p->ht;
	bool live = false;

	for (unsigned i = 0; i < FE_HANDLE_SLOTS; i++) {
		const struct khandle *h = &t->slot[i];
		const struct kproc *k = h->object ?
			kobj_data(h->object, OS_TYPE_PROCESS, KPROC_MAGIC) : NULL;
		struct pctx *q;

		if (!k || k->parent_pid != c->p->proc->pid)
			continue;
		if (idtype == LX_P_PID && k->pid != id)
			continue;
		q = k->state == KPROC_ALIVE ? ptable_by_pid(k->pid) : NULL;
		if (idtype == LX_P_PGID && q && lx_pgid(q) != id)
			continue;
		*out = (struct child){ .handle = (int)FE_HANDLE_VALUE(i, h->gen), .proc = k };
		if (k->state != KPROC_ALIVE)
			return 1;
		if (q && q->lx && news_wanted(lx_stop_news(q, true), options)) {
			out->news = lx_stop_news(q, options & LX_WNOWAIT);
			return 1;
		}
		live = true;
	}
	return live ? 0 : -LX_ECHILD;
}

/* wait_for -- the wait of wait4 and waitid: an ended child picked is
 * reaped (unless `keep`) and returned in *out (1); 0 with WNOHANG when
 * only live ones are; else blocked until a child ends */
static int64_t wait_for(struct lxcall *c, int idtype, uint64_t id, uint32_t options,
			struct child *out)
{
	int64_t found = find_child(c, idtype, id, options, out);

	if (found != 0)
		return found;
	if (options & LX_WNOHANG)
		return 0;
	sched_block(c->tf, KWAIT_CHILD, c->p->proc_id, 0);
	return SYSCALL_BLOCKED;
}

/* wait4 (pid, status, options, rusage) -> the pid of the child reaped */
int64_t lx_wait4(struct lxcall *c)
{
	const int64_t pid = (int64_t)(int32_t)c->arg[0];
	const uint64_t status_at = c->arg[1], rusage_at = c->arg[3];
	const uint32_t options = (uint32_t)c->arg[2];
	static const uint8_t usage[LX_RUSAGE_BYTES];
	struct child ch;
	int code, value, status;
	uint64_t child_pid;
	int64_t got;

	if (options & ~(LX_WNOHANG | LX_WUNTRACED | LX_WCONTINUED | LX_WAIT_IGNORED) ||
	    pid == INT32_MIN)
		return -LX_EINVAL;
	if ((status_at && uvm_check(&c->p->mem, status_at, 4, UVM_WRITE)) ||
	    (rusage_at && uvm_check(&c->p->mem, rusage_at, sizeof(usage), UVM_WRITE)))
		return -LX_EFAULT;
	got = wait_for(c, pid > 0 ? LX_P_PID : pid == -1 ? LX_P_ALL : LX_P_PGID,
		       pid > 0 ? (uint64_t)pid : pid == 0 ? lx_pgid(c->p) : (uint64_t)-pid,
		       options, &ch);
	if (got != 1)
		return got;
	status = ch.news == LX_SIGCONT ? 0xffff : ch.news ? ch.news << 8 | 0x7f :
		 status_of(&ch.proc->exit, &code, &value);
	child_pid = ch.proc->pid;
	if (status_at)
		(void)uvm_copy_out(&c->p->mem, status_at, &status, sizeof(status)); /* checked */
	if (rusage_at)
		(void)uvm_copy_out(&c->p->mem, rusage_at, usage, sizeof(usage));
	if (!ch.news)
		handle_close(c->p, ch.handle);
	return (int64_t)child_pid;
}

/* waitid (idtype, id, infop, options, rusage) -> 0, the child in *infop */
int64_t lx_waitid(struct lxcall *c)
{
	const uint64_t idtype = c->arg[0], id = c->arg[1], info_at = c->arg[2];
	const uint32_t options = (uint32_t)c->arg[3];
	struct lx_siginfo_child info = { 0 };
	struct child ch;
	int code, value;
	int64_t got;

	if (idtype > LX_P_PGID ||
	    options & ~(LX_WNOHANG | LX_WEXITED | LX_WUNTRACED | LX_WCONTINUED | LX_WNOWAIT |
			LX_WAIT_IGNORED) ||
	    !(options & (LX_WEXITED | LX_WUNTRACED | LX_WCONTINUED)))
		return -LX_EINVAL;
	if (info_at && uvm_check(&c->p->mem, info_at, sizeof(info), UVM_WRITE))
		return -LX_EFAULT;
	got = wait_for(c, (int)idtype, idtype == LX_P_PGID && !id ? lx_pgid(c->p) : id,
		       options, &ch);
	if (got < 0 || got == SYSCALL_BLOCKED)
		return got;
	if (got == 1 && ch.news) {
		code = ch.news == LX_SIGCONT ? LX_CLD_CONTINUED : LX_CLD_STOPPED;
		value = ch.news;
	} else if (got == 1) {
		(void)status_of(&ch.proc->exit, &code, &value);
	}
	if (got == 1) {
		info.signo = LX_SIGCHLD;
		info.code = code;
		info.pid = (int32_t)ch.proc->pid;
		info.status = value;
	}
	if (info_at)
		(void)uvm_copy_out(&c->p->mem, info_at, &info, sizeof(info)); /* checked */
	if (got == 1 && !ch.news && !(options & LX_WNOWAIT))
		handle_close(c->p, ch.handle);
	return 0;
}
