/*
 * dispatch.c -- the door of Linux system calls: one table from Linux's
 * numbers to handlers, and Ferrite's errors turned into Linux's.
 *
 * A call the table lacks returns -ENOSYS, and the kernel says so once per
 * program and call (since power-on), naming both, so that a user sees what
 * a program needs (docs/linux.md, "Adding a call"); `trace` shows every
 * call a program makes (trace.c). The entry
 * room has already checked the log's room for the call (entry.c), as for
 * native calls. Handlers return Linux's errno values only: an error of the
 * kernel's own (-ERR_x) becomes one through lx_errno (errno.c) where it
 * arises.
 *
 * A signal the thread may take cuts short a call that may block before
 * it runs, and a call that blocked also wakes for the interval timer
 * (signal.c); the signals are taken on the way back to user mode
 * (linux_exit_to_user).
 */
#include <stdint.h>

#include "arch/arch.h"
#include "core/printk.h"
#include "linux/linux.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "task/proc.h"
#include "task/sched.h"

static const lx_fn calls[LX_NR_LIMIT] = {
	[LX_read] = lx_read,
	[LX_write] = lx_write,
	[LX_open] = lx_open,
	[LX_close] = lx_close,
	[LX_stat] = lx_stat,
	[LX_fstat] = lx_fstat,
	[LX_lstat] = lx_stat,          /* no symbolic links: lstat is stat */
	[LX_lseek] = lx_lseek,
	[LX_mmap] = lx_mmap,
	[LX_mprotect] = lx_mprotect,
	[LX_munmap] = lx_munmap,
	[LX_mremap] = lx_mremap,
	[LX_brk] = lx_brk,
	[LX_ioctl] = lx_ioctl,
	[LX_pread64] = lx_pread64,
	[LX_readv] = lx_readv,
	[LX_writev] = lx_writev,
	[LX_access] = lx_access,
	[LX_pipe] = lx_pipe,
	[LX_select] = lx_select,
	[LX_sched_yield] = lx_sched_yield,
	[LX_madvise] = lx_madvise,
	[LX_dup] = lx_dup,
	[LX_dup2] = lx_dup2,
	[LX_nanosleep] = lx_nanosleep,
	[LX_getpid] = lx_getpid,
	[LX_exit] = lx_exit,
	[LX_uname] = lx_uname,
	[LX_sysinfo] = lx_sysinfo,
	[LX_fcntl] = lx_fcntl,
	[LX_flock] = lx_flock,
	[LX_fchown] = lx_fchown,
	[LX_chown] = lx_chown,
	[LX_lchown] = lx_chown,        /* no symbolic links: lchown is chown */
	[LX_fchownat] = lx_fchownat,
	[LX_chmod] = lx_chmod,
	[LX_fchmod] = lx_fchmod,
	[LX_fchmodat] = lx_fchmodat,
	[LX_getcwd] = lx_getcwd,
	[LX_chdir] = lx_chdir,
	[LX_gettimeofday] = lx_gettimeofday,
	[LX_getrlimit] = lx_getrlimit,
	[LX_getuid] = lx_getuid,
	[LX_getgid] = lx_getuid,
	[LX_geteuid] = lx_getuid,
	[LX_getegid] = lx_getuid,
	[LX_getppid] = lx_getppid,
	[LX_arch_prctl] = lx_arch_prctl,
	[LX_gettid] = lx_gettid,
	[LX_time] = lx_time,
	[LX_set_tid_address] = lx_set_tid_address,
	[LX_clock_gettime] = lx_clock_gettime,
	[LX_clock_getres] = lx_clock_getres,
	[LX_clock_nanosleep] = lx_clock_nanosleep,
	[LX_exit_group] = lx_exit_group,
	[LX_openat] = lx_openat,
	[LX_newfstatat] = lx_newfstatat,
	[LX_statx] = lx_statx,
	[LX_faccessat] = lx_faccessat,
	[LX_faccessat2] = lx_faccessat,
	[LX_pselect6] = lx_pselect6,
	[LX_dup3] = lx_dup3,
	[LX_pipe2] = lx_pipe2,
	[LX_prlimit64] = lx_prlimit64,
	[LX_getrandom] = lx_getrandom,
	[LX_prctl] = lx_prctl,
	[LX_readlink] = lx_readlink,
	[LX_readlinkat] = lx_readlinkat,
	[LX_poll] = lx_poll,
	[LX_pwrite64] = lx_pwrite64,
	[LX_ftruncate] = lx_ftruncate,
	[LX_fsync] = lx_fsync,
	[LX_fdatasync] = lx_fsync,
	[LX_sync] = lx_fsync,
	[LX_syncfs] = lx_fsync,
	[LX_umask] = lx_umask,
	[LX_mkdir] = lx_mkdir,
	[LX_mkdirat] = lx_mkdirat,
	[LX_rmdir] = lx_rmdir,
	[LX_unlink] = lx_unlink,
	[LX_unlinkat] = lx_unlinkat,
	[LX_link] = lx_link,
	[LX_linkat] = lx_linkat,
	[LX_rename] = lx_rename,
	[LX_renameat] = lx_renameat,
	[LX_renameat2] = lx_renameat2,
	[LX_ppoll] = lx_ppoll,
	[LX_utimensat] = lx_utimensat,
	[LX_getpgrp] = lx_getpgrp,
	[LX_getpgid] = lx_getpgid,
	[LX_getsid] = lx_getsid,
	[LX_setpgid] = lx_setpgid,
	[LX_setsid] = lx_setsid,
	[LX_fork] = lx_fork,
	[LX_vfork] = lx_vfork,
	[LX_execve] = lx_execve,
	[LX_wait4] = lx_wait4,
	[LX_waitid] = lx_waitid,
	[LX_getdents64] = lx_getdents64,
	[LX_rt_sigaction] = lx_rt_sigaction,
	[LX_rt_sigprocmask] = lx_rt_sigprocmask,
	[LX_rt_sigreturn] = lx_rt_sigreturn,
	[LX_rt_sigpending] = lx_rt_sigpending,
	[LX_rt_sigsuspend] = lx_rt_sigsuspend,
	[LX_sigaltstack] = lx_sigaltstack,
	[LX_pause] = lx_pause,
	[LX_kill] = lx_kill,
	[LX_tgkill] = lx_tgkill,
	[LX_tkill] = lx_tkill,
	[LX_alarm] = lx_alarm,
	[LX_getitimer] = lx_getitimer,
	[LX_setitimer] = lx_setitimer,
	[LX_clone] = lx_clone,
	[LX_futex] = lx_futex,
	[LX_set_robust_list] = lx_set_robust_list,
};

/*
 * Calls the C libraries probe at every start and do without: no line for
 * them (docs/linux.md lists them). glibc registers an rseq area, and its
 * pthread_create tries clone3 before clone; it carries on without both.
 */
static bool quiet_missing(uint64_t nr)
{
	return nr == LX_rseq || nr == LX_clone3;
}

/* Volatile, since power-on: the missing calls the kernel has named, by
 * program (code object) and number, so a program is named once per call
 * however often it runs. When the table is full, calls are named again. */
#define SAID_MAX 256
static struct { uint64_t code, nr; } said[SAID_MAX];
static unsigned said_count;

/* say_missing -- the kernel's line for a call the table lacks, once per
 * program and call */
static void say_missing(struct pctx *p, uint64_t nr)
{
	const char *name = lx_call_name(nr);

	if (quiet_missing(nr))
		return;
	for (unsigned i = 0; i < said_count; i++)
		if (said[i].code == p->proc->code && said[i].nr == nr)
			return;
	if (said_count == SAID_MAX)
		said_count = 0;
	said[said_count].code = p->proc->code;
	said[said_count++].nr = nr;
	pr_info("linux: %s (pid %llu) called %s (%llu), which Ferrite does not have: ENOSYS\n",
		p->proc->name, (unsigned long long)p->proc->pid, name ? name : "an unknown call",
		(unsigned long long)nr);
}

/* take_wait_record -- whether call nr is issued again after its thread
 * blocked in it, and the deadline it blocked with (0: none) in *until;
 * the thread's record of the wait is taken (cleared) if so: a thread with
 * a record is one woken whose call has not run again yet, and takes no
 * signal until it has (linux_exit_to_user) */
static bool take_wait_record(struct pctx *p, uint64_t nr, uint64_t *until)
{
	struct kthread *t = p->thread[sched_current_tid()];

	*until = 0;
	if (t->wait == KWAIT_NONE || t->blocked_call != (KTHREAD_CALL_LINUX | nr))
		return false;
	KLOG(&t->wait);
	t->wait = KWAIT_NONE;
	*until = t->wake_ns;
	return true;
}

/* linux_syscall -- one call of Linux program p; a traced program's
 * (osh's `trace`) between its trace's two steps (trace.c) */
void linux_syscall(struct trap_frame *tf, struct pctx *p)
{
	struct lxcall c = { .tf = tf, .p = p, .lx = p->lx, .nr = arch_syscall_number(tf) };
	const bool traced = p->proc->flags & KPROC_TRACE;
	int64_t result;

	arch_syscall_args(tf, c.arg);
	c.reissued = take_wait_record(p, c.nr, &c.blocked_until);
	if (traced && lx_trace_begin(&c) == SYSCALL_BLOCKED) {
		if (c.reissued && c.blocked_until) /* the call's own deadline kept */
			sched_block_deadline(c.blocked_until);
		return;
	}
	if (c.nr < LX_NR_LIMIT && calls[c.nr]) {
		if ((result = lx_signal_cuts(&c))) {
			if (traced)
				lx_trace_end(&c, result);
			return;
		}
		result = calls[c.nr](&c);
	} else {
		say_missing(p, c.nr);
		result = -LX_ENOSYS;
	}
	if (traced)
		lx_trace_end(&c, result);
	if (result == SYSCALL_BLOCKED)
		lx_signal_blocked(&c);
	else if (result != SYSCALL_GONE)
		arch_syscall_set_result(tf, result);
}
