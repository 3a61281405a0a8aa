/*
 * process.c -- a Linux program's process: ending, who it is, the machine
 * it runs on, clocks and sleeping, thread-local storage, randomness and
 * limits.
 *
 * Clocks: CLOCK_REALTIME is Ferrite's wall clock (the RTC, carried on by
 * the TSC); CLOCK_MONOTONIC and its kin are FE_CLOCK_MONOTONIC, the running
 * time since genesis, which goes on across power cuts, so a program that
 * sleeps through one wakes when its time has run, not later.
 *
 * A sleep blocks the thread until a deadline (KWAIT_SLEEP). A blocked call
 * is issued again when its thread wakes (sched.h), and a relative sleep
 * issued again would sleep again from the start: so a sleep knows it is
 * being issued again by its thread's record, "slept in this call until
 * wake_ns" (the dispatcher takes the record: lxcall.reissued), and ends if
 * the deadline has passed (lx_call_deadline, which poll and select use
 * too, for their waits with a deadline).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "core/heap.h"
#include "core/time.h"
#include "ferrite/errors.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "objstore/objstore.h"
#include "task/proc.h"
#include "task/ptable.h"
#include "task/sched.h"
#include "uvm/uvm.h"

#define NS 1000000000ull

/* exit_group, exit (status) -- end the program with status & 0xff */
int64_t lx_exit_group(struct lxcall *c)
{
	const int64_t status = (int64_t)(c->arg[0] & 0xff);
	char detail[48];

	snprintf(detail, sizeof(detail), "exited with status %lld", (long long)status);
	proc_end(c->p, FE_EXIT_NORMAL, status, detail);
	return SYSCALL_GONE;
}

/* getpid () */
int64_t lx_getpid(struct lxcall *c)
{
	return (int64_t)c->p->proc->pid;
}

/* getppid () -- 0 for a program the kernel started, as for init's parent */
int64_t lx_getppid(struct lxcall *c)
{
	return (int64_t)c->p->proc->parent_pid;
}

/* getuid, getgid, geteuid, getegid () -- everyone is root: Ferrite's
 * protection is the handles a program holds, not users */
int64_t lx_getuid(struct lxcall *c)
{
	(void)c;
	return 0;
}

/* uname (buf) */
int64_t lx_uname(struct lxcall *c)
{
	static const struct lx_utsname u = {
		.sysname = "Linux",
		.nodename = "ferrite",
		.release = "6.1.0-ferrite",
		.version = "#1 SMP Ferrite",
		.machine = "x86_64",
		.domainname = "(none)",
	};

	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[0], &u, sizeof(u)));
}

/* sysinfo (info) -- the heap is the machine's memory: its size and its
 * free pages are the RAM and the free RAM, in pages; no swap, no load
 * figures (0); the uptime is the running time since genesis, the
 * monotonic clock's */
int64_t lx_sysinfo(struct lxcall *c)
{
	struct lx_sysinfo info;
	struct os_stats s;
	const unsigned procs = ptable_count();

	os_stats(&kheap, &s);
	memset(&info, 0, sizeof(info));
	info.uptime = (int64_t)(time_mono_ns() / NS);
	info.totalram = s.page_count;
	info.freeram = s.pages_free;
	info.procs = procs > UINT16_MAX ? UINT16_MAX : (uint16_t)procs;
	info.mem_unit = FE_PAGE_SIZE;
	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[0], &info, sizeof(info)));
}

/* arch_prctl (code, addr) -- the FS base (thread-local storage) */
int64_t lx_arch_prctl(struct lxcall *c)
{
	const uint64_t code = c->arg[0], addr = c->arg[1];
	uint64_t base;

	switch (code) {
	case LX_ARCH_SET_FS:
		return arch_set_user_fs_base(addr) ? 0 : -LX_EPERM;
	case LX_ARCH_GET_FS:
		base = arch_user_fs_base();
		return lx_errno(uvm_copy_out(&c->p->mem, addr, &base, sizeof(base)));
	default:
		return -LX_EINVAL;
	}
}

/* prctl (option, arg2, ...) -- the name a program gives itself (ps shows
 * it), up to 15 bytes as on Linux */
int64_t lx_prctl(struct lxcall *c)
{
	char name[LX_TASK_COMM_LEN];
	int err;

	switch (c->arg[0]) {
	case LX_PR_SET_NAME:
		err = uvm_copy_in(&c->p->mem, name, c->arg[1], sizeof(name) - 1);
		if (err) /* a name nearer the end of memory than 15 bytes */
			err = uvm_copy_string(&c->p->mem, name, c->arg[1], sizeof(name));
		if (err < 0)
			return lx_errno(err);
		name[sizeof(name) - 1] = 0;
		KLOG(&c->p->proc->name);
		snprintf(c->p->proc->name, sizeof(c->p->proc->name), "%s", name);
		return 0;
	case LX_PR_GET_NAME:
		snprintf(name, sizeof(name), "%s", c->p->proc->name);
		return lx_errno(uvm_copy_out(&c->p->mem, c->arg[1], name, sizeof(name)));
	default:
		return -LX_EINVAL;
	}
}

/* lx_pgid -- Linux program p's process group (a program started from a
 * Ferrite program leads its own, as does one whose klinux predates
 * groups: pgid 0) */
uint64_t lx_pgid(const struct pctx *p)
{
	return p->lx && p->lx->pgid ? p->lx->pgid : p->proc->pid;
}

/* lx_sid -- p's session, the same way */
uint64_t lx_sid(const struct pctx *p)
{
	return p->lx && p->lx->sid ? p->lx->sid : p->proc->pid;
}

/* named -- the live process `pid` asks about: itself for 0 */
static struct pctx *named(struct lxcall *c, int64_t pid)
{
	return pid == 0 ? c->p : pid > 0 ? ptable_by_pid((uint64_t)pid) : NULL;
}

/* getpgid (pid) */
int64_t lx_getpgid(struct lxcall *c)
{
	const struct pctx *p = named(c, (int64_t)(int32_t)c->arg[0]);

	return p ? (int64_t)lx_pgid(p) : -LX_ESRCH;
}

/* getpgrp () */
int64_t lx_getpgrp(struct lxcall *c)
{
	return (int64_t)lx_pgid(c->p);
}

/* getsid (pid) */
int64_t lx_getsid(struct lxcall *c)
{
	const struct pctx *p = named(c, (int64_t)(int32_t)c->arg[0]);

	return p ? (int64_t)lx_sid(p) : -LX_ESRCH;
}

/* setpgid (pid, pgid) -- the caller or a child of its (Linux, in its
 * session) joins group pgid (0: its own pid), which must be its own or
 * one in the session; a session's leader stays where it is */
int64_t lx_setpgid(struct lxcall *c)
{
	const int64_t pid = (int64_t)(int32_t)c->arg[0], pgid = (int64_t)(int32_t)c->arg[1];
	struct pctx *p = named(c, pid);
	uint64_t to;

	if (pgid < 0)
		return -LX_EINVAL;
	if (!p || (p != c->p && p->proc->parent_pid != c->p->proc->pid))
		return -LX_ESRCH;
	if (!p->lx || lx_sid(p) != lx_sid(c->p) || lx_sid(p) == p->proc->pid)
		return -LX_EPERM;
	to = pgid ? (uint64_t)pgid : p->proc->pid;
	if (to != p->proc->pid) { /* an existing group of the session */
		bool found = false;

		for (unsigned i = 0; i < KROOT_MAX_PROCS && !found; i++) {
			const struct pctx *q = ptable_slot(i);

			found = q && q->lx && lx_pgid(q) == to && lx_sid(q) == lx_sid(c->p);
		}
		if (!found)
			return -LX_EPERM;
	}
	KLOG(&p->lx->pgid);
	p->lx->pgid = (uint32_t)to;
	return 0;
}

/* setsid () -- the caller leads a new session and group, unless it leads
 * a group already (as every program started from osh does) */
int64_t lx_setsid(struct lxcall *c)
{
	const uint64_t self = c->p->proc->pid;

	if (lx_pgid(c->p) == self)
		return -LX_EPERM;
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		const struct pctx *q = ptable_slot(i);

		if (q && q->lx && lx_pgid(q) == self)
			return -LX_EPERM; /* a group still bears its id */
	}
	KLOG(&c->lx->pgid);
	c->lx->pgid = (uint32_t)self;
	KLOG(&c->lx->sid);
	c->lx->sid = (uint32_t)self;
	return (int64_t)self;
}

/* clock_ns -- clock `id` now; false for a clock Linux does not have */
static bool clock_ns(struct lxcall *c, uint64_t id, uint64_t *ns)
{
	switch (id) {
	case LX_CLOCK_REALTIME:
	case LX_CLOCK_REALTIME_COARSE:
		*ns = time_wall_ns();
		return true;
	case LX_CLOCK_MONOTONIC:
	case LX_CLOCK_MONOTONIC_RAW:
	case LX_CLOCK_MONOTONIC_COARSE:
	case LX_CLOCK_BOOTTIME:
		*ns = time_mono_ns();
		return true;
	case LX_CLOCK_PROCESS_CPUTIME_ID:
	case LX_CLOCK_THREAD_CPUTIME_ID:
		*ns = c->p->proc->cpu_ns;
		return true;
	default:
		return false;
	}
}

/* clock_gettime (clock, ts) */
int64_t lx_clock_gettime(struct lxcall *c)
{
	struct lx_timespec ts;
	uint64_t ns;

	if (!clock_ns(c, c->arg[0], &ns))
		return -LX_EINVAL;
	ts.sec = (int64_t)(ns / NS);
	ts.nsec = (int64_t)(ns % NS);
	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[1], &ts, sizeof(ts)));
}

/* clock_getres (clock, ts) -- a nanosecond; ts may be NULL */
int64_t lx_clock_getres(struct lxcall *c)
{
	struct lx_timespec ts = { 0, 1 };
	uint64_t ns;

	if (!clock_ns(c, c->arg[0], &ns))
		return -LX_EINVAL;
	if (!c->arg[1])
		return 0;
	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[1], &ts, sizeof(ts)));
}

/* gettimeofday (tv, tz) -- tz, long obsolete, is left alone */
int64_t lx_gettimeofday(struct lxcall *c)
{
	uint64_t ns = time_wall_ns();
	struct lx_timeval tv = { (int64_t)(ns / NS), (int64_t)(ns % NS / 1000) };

	if (!c->arg[0])
		return 0;
	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[0], &tv, sizeof(tv)));
}

/* time (t) -> seconds since 1970; also stored at t unless NULL */
int64_t lx_time(struct lxcall *c)
{
	int64_t now = (int64_t)(time_wall_ns() / NS);
	int err = c->arg[0] ? uvm_copy_out(&c->p->mem, c->arg[0], &now, sizeof(now)) : 0;

	return err ? lx_errno(err) : now;
}

/* lx_call_deadline -- the deadline of the call: `fresh` when it is new;
 * when it is issued again after it blocked, the deadline it blocked with
 * (see the top; none if it blocked without one, as a traced call waiting
 * for room for its line does) */
uint64_t lx_call_deadline(struct lxcall *c, uint64_t fresh)
{
	return c->blocked_until ? c->blocked_until : fresh;
}

/* lx_sleep_until -- block until monotonic `deadline`, or end a sleep this
 * call began before it blocked (see the top) */
int64_t lx_sleep_until(struct lxcall *c, uint64_t deadline)
{
	deadline = lx_call_deadline(c, deadline);
	if (time_mono_ns() >= deadline)
		return 0;
	sched_block(c->tf, KWAIT_SLEEP, 0, deadline);
	return SYSCALL_BLOCKED;
}

/* lx_read_timespec -- a struct timespec of the caller, checked, in ns */
int64_t lx_read_timespec(struct lxcall *c, uint64_t at, uint64_t *ns)
{
	struct lx_timespec ts;
	int err = uvm_copy_in(&c->p->mem, &ts, at, sizeof(ts));

	if (err)
		return lx_errno(err);
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= (int64_t)NS)
		return -LX_EINVAL;
	*ns = (uint64_t)ts.sec > UINT64_MAX / NS - 1 ? UINT64_MAX / 2 :
	      (uint64_t)ts.sec * NS + (uint64_t)ts.nsec;
	return 0;
}

/* nanosleep (req, rem) -- rem is left alone: a sleep is never cut short */
int64_t lx_nanosleep(struct lxcall *c)
{
	uint64_t ns, now = time_mono_ns();
	int64_t err = lx_read_timespec(c, c->arg[0], &ns);

	if (err)
		return err;
	return lx_sleep_until(c, ns > UINT64_MAX - now ? UINT64_MAX : now + ns);
}

/* clock_nanosleep (clock, flags, req, rem) */
int64_t lx_clock_nanosleep(struct lxcall *c)
{
	const uint64_t clock = c->arg[0], flags = c->arg[1];
	uint64_t ns, now = time_mono_ns(), clock_now;
	int64_t err;

	if (flags & ~(uint64_t)LX_TIMER_ABSTIME || clock == LX_CLOCK_THREAD_CPUTIME_ID ||
	    !clock_ns(c, clock, &clock_now))
		return -LX_EINVAL;
	err = lx_read_timespec(c, c->arg[2], &ns);
	if (err)
		return err;
	if (flags & LX_TIMER_ABSTIME) /* on that clock: as long from now on ours */
		ns = ns > clock_now ? ns - clock_now : 0;
	return lx_sleep_until(c, ns > UINT64_MAX - now ? UINT64_MAX : now + ns);
}

/* sched_yield () */
int64_t lx_sched_yield(struct lxcall *c)
{
	(void)c;
	sched_yield();
	return 0;
}

/* getrandom (buf, len, flags) -> bytes filled */
int64_t lx_getrandom(struct lxcall *c)
{
	const uint64_t buf = c->arg[0], flags = c->arg[2];
	uint64_t len = c->arg[1] < 256 ? c->arg[1] : 256, bytes[32];
	int err;

	if (flags & ~(uint64_t)(LX_GRND_NONBLOCK | LX_GRND_RANDOM | LX_GRND_INSECURE))
		return -LX_EINVAL;
	for (unsigned i = 0; i < 32; i++)
		bytes[i] = arch_random();
	err = uvm_copy_out(&c->p->mem, buf, bytes, len);
	return err ? lx_errno(err) : (int64_t)len;
}

/* limit_of -- the limits of `resource` */
static struct lx_rlimit limit_of(uint64_t resource)
{
	switch (resource) {
	case LX_RLIMIT_STACK:
		return (struct lx_rlimit){ 8ull << 20, 8ull << 20 };
	case LX_RLIMIT_NOFILE:
		return (struct lx_rlimit){ KLINUX_FDS, KLINUX_FDS };
	default:
		return (struct lx_rlimit){ LX_RLIM_INFINITY, LX_RLIM_INFINITY };
	}
}

/* getrlimit (resource, rlim) */
int64_t lx_getrlimit(struct lxcall *c)
{
	struct lx_rlimit r = limit_of(c->arg[0]);

	if (c->arg[0] >= LX_RLIMIT_NLIMITS)
		return -LX_EINVAL;
	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[1], &r, sizeof(r)));
}

/* prlimit64 (pid, resource, new, old) -- of itself; the limits are fixed,
 * so setting one to what it is succeeds and anything else is EPERM */
int64_t lx_prlimit64(struct lxcall *c)
{
	const uint64_t pid = c->arg[0], resource = c->arg[1];
	struct lx_rlimit r = limit_of(resource), want;
	int err;

	if (resource >= LX_RLIMIT_NLIMITS)
		return -LX_EINVAL;
	if (pid && pid != c->p->proc->pid)
		return -LX_EPERM;
	if (c->arg[2]) {
		err = uvm_copy_in(&c->p->mem, &want, c->arg[2], sizeof(want));
		if (err)
			return lx_errno(err);
		if (want.cur > want.max)
			return -LX_EINVAL;
		if (want.cur != r.cur || want.max != r.max)
			return -LX_EPERM;
	}
	if (!c->arg[3])
		return 0;
	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[3], &r, sizeof(r)));
}
