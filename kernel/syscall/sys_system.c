/*
 * sys_system.c -- the system calls on the console, the clocks and the
 * system as a whole: console read/write/foreground, time, sysinfo, sync,
 * poweroff, and the null call.
 *
 * Console output is committed output: what a program writes reaches the
 * UART only after the epoch that queued it committed (console_io.c). sync
 * returns once the caller's state is durable: it asks the epoch to commit
 * at the next safe point, which is on the way back to the caller.
 */
#include <string.h>

#include "arch/arch.h"
#include "core/heap.h"
#include "core/time.h"
#include "dev/rtc.h"
#include "ferrite/errors.h"
#include "objstore/objstore.h"
#include "proc/console_io.h"
#include "proc/epoch.h"
#include "proc/handle.h"
#include "proc/kobj.h"
#include "proc/proc.h"
#include "proc/sched.h"
#include "proc/uvm.h"
#include "syscall/syscall.h"

/* SYS_NULL () -> 0: the cheapest call, for benchmarks */
int64_t sys_null(struct syscall *call)
{
	(void)call;
	return 0;
}

/* SYS_CONSOLE_READ (buf, cap, mode) -> bytes read */
int64_t sys_console_read(struct syscall *call)
{
	const uint64_t buf = call->arg[0], cap = call->arg[1], mode = call->arg[2];

	return console_read(call->tf, call->caller, buf, cap, mode);
}

/* SYS_CONSOLE_WRITE (buf, len) -> bytes queued */
int64_t sys_console_write(struct syscall *call)
{
	const uint64_t buf = call->arg[0], len = call->arg[1];

	return console_write(call->tf, call->caller, buf, len);
}

/* SYS_CONSOLE_FG (process handle, or -1 for none) -> 0: Ctrl-C kills it */
int64_t sys_console_fg(struct syscall *call)
{
	const int64_t handle = (int64_t)call->arg[0];
	struct kproc *proc;
	struct khandle *h;
	uint64_t pid = 0;
	int err;

	if (handle != -1) {
		err = handle_lookup(call->caller, handle, HANDLE_TYPE(OS_TYPE_PROCESS),
				    FE_RIGHT_WRITE, &h);
		if (err)
			return err;
		proc = kobj_data(h->object, OS_TYPE_PROCESS, KPROC_MAGIC);
		if (!proc)
			return -ERR_INVAL;
		if (proc->state != KPROC_ALIVE)
			return -ERR_NOENT;
		pid = proc->pid;
	}
	KLOG(&kroot->console_fg_pid);
	kroot->console_fg_pid = pid;
	return 0;
}

/* SYS_TIME (clock) -> nanoseconds: FE_CLOCK_MONOTONIC since genesis, or
 * FE_CLOCK_WALL since 1970 (the RTC read once per power-on, then the TSC) */
int64_t sys_time(struct syscall *call)
{
	static uint64_t wall_at_power_on, ns_at_read;
	const uint64_t clock = call->arg[0];

	if (clock == FE_CLOCK_MONOTONIC)
		return (int64_t)mono_ns();
	if (clock != FE_CLOCK_WALL)
		return -ERR_INVAL;
	if (!wall_at_power_on) {
		wall_at_power_on = rtc_wall_ns();
		ns_at_read = time_ns();
	}
	return (int64_t)(wall_at_power_on + time_ns() - ns_at_read);
}

/* SYS_SYSINFO (struct fe_sysinfo) -> 0 */
int64_t sys_sysinfo(struct syscall *call)
{
	const uint64_t info_ptr = call->arg[0];
	struct fe_sysinfo info;
	struct os_stats s;

	os_stats(&kheap, &s);
	memset(&info, 0, sizeof(info));
	info.heap_size = s.heap_size;
	info.heap_free = s.pages_free * FE_PAGE_SIZE;
	info.heap_used = (s.page_count - s.pages_free) * FE_PAGE_SIZE;
	info.objects = s.objects;
	info.names = s.names;
	info.power_ons = kroot->power_ons;
	info.epoch = s.epoch;
	info.commits = kroot->commits;
	info.processes = proc_count();
	info.uptime_ns = mono_ns();
	info.log_size = s.log_size;
	info.log_used = s.log_used;
	info.log_high_water = s.log_high_water;
	info.rolled_back_records = s.rolled_back;
	info.rolled_back_bytes = s.rolled_back_bytes;
	epoch_figures(&info);
	return uvm_copy_out(call->caller, info_ptr, &info, sizeof(info));
}

/* SYS_SYNC () -> 0, once the caller's state is durable */
int64_t sys_sync(struct syscall *call)
{
	(void)call;
	epoch_request(); /* at the safe point on the way back */
	return 0;
}

/* SYS_POWEROFF () -> does not return, unless ACPI power-off failed */
int64_t sys_poweroff(struct syscall *call)
{
	arch_syscall_set_result(call->tf, 0);
	sched_power_off(call->tf);
	return -ERR_IO;
}
