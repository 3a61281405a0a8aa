/*
 * sys_system.c -- the system calls on the console, the clocks and the
 * system as a whole: console read/write/foreground/sink, the host link,
 * time, sysinfo, sync, poweroff, and the null call.
 *
 * Console output is committed output: what a program writes reaches the
 * UART only after the epoch that queued it committed (console/console.c). sync
 * returns once the caller's state is durable: it asks the epoch to commit
 * at the next safe point, which is on the way back to the caller.
 */
#include <string.h>

#include "acpi/acpi.h"
#include "arch/arch.h"
#include "core/heap.h"
#include "core/printk.h"
#include "core/time.h"
#include "ferrite/errors.h"
#include "objstore/objstore.h"
#include "console/console.h"
#include "epoch/durable.h"
#include "epoch/epoch.h"
#include "task/handle.h"
#include "hostlink/hostlink.h"
#include "obj/kobj.h"
#include "uvm/pagecache.h"
#include "task/proc.h"
#include "task/sched.h"
#include "epoch/snapshot.h"
#include "uvm/uvm.h"
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
	if (console_has_sink(call->caller))
		return 0; /* not at the console: nothing to take over */
	console_set_foreground(pid);
	return 0;
}

/* SYS_CONSOLE_SINK (channel handle, or -1) -> 0: the caller's console
 * output goes to that channel end (console/console.c) */
int64_t sys_console_sink(struct syscall *call)
{
	return console_set_sink(call->caller, (int64_t)call->arg[0]);
}

/* SYS_LINK_READ (link, buf, cap) -> bytes from the host link, with the
 * link's handle (FE_RIGHT_READ; hostlink.c) */
int64_t sys_link_read(struct syscall *call)
{
	const int64_t link = (int64_t)call->arg[0];
	const uint64_t buf = call->arg[1], cap = call->arg[2];

	return hostlink_read(call->tf, call->caller, link, buf, cap);
}

/* SYS_LINK_WRITE (link, buf, len) -> bytes queued for the host, with the
 * link's handle (FE_RIGHT_WRITE; hostlink.c) */
int64_t sys_link_write(struct syscall *call)
{
	const int64_t link = (int64_t)call->arg[0];
	const uint64_t buf = call->arg[1], len = call->arg[2];

	return hostlink_write(call->tf, call->caller, link, buf, len);
}

/* SYS_LINK_MOVE (link, object, struct fe_link_move *) -> the CRC-32 of
 * the bytes moved between the link's window and the object (hostlink.c) */
int64_t sys_link_move(struct syscall *call)
{
	const int64_t link = (int64_t)call->arg[0], object = (int64_t)call->arg[1];
	const uint64_t request = call->arg[2];

	return hostlink_move(call->caller, link, object, request);
}

/* SYS_LINK_INFO (link, struct fe_link_info *) -> 0: what the link offers */
int64_t sys_link_info(struct syscall *call)
{
	const int64_t link = (int64_t)call->arg[0];
	const uint64_t out = call->arg[1];

	return hostlink_info(call->caller, link, out);
}

/* SYS_TIME (clock) -> nanoseconds: FE_CLOCK_MONOTONIC since genesis, or
 * FE_CLOCK_WALL since 1970 (the RTC read once per power-on, then the TSC) */
int64_t sys_time(struct syscall *call)
{
	const uint64_t clock = call->arg[0];

	if (clock == FE_CLOCK_MONOTONIC)
		return (int64_t)time_mono_ns();
	if (clock != FE_CLOCK_WALL)
		return -ERR_INVAL;
	return (int64_t)time_wall_ns();
}

/* SYS_SYSINFO (struct fe_sysinfo) -> 0 */
_Static_assert(__builtin_offsetof(struct fe_sysinfo, cpus) == FE_SYSINFO_SIZE_1,
	       "the first version of struct fe_sysinfo ends where cpus begins");
_Static_assert(__builtin_offsetof(struct fe_sysinfo, cache_pages_max) == FE_SYSINFO_SIZE_2,
	       "the second version of struct fe_sysinfo ends where the cache's figures begin");
_Static_assert(__builtin_offsetof(struct fe_sysinfo, pmem_mode) == FE_SYSINFO_SIZE_3,
	       "the third version ends where the flush figures begin");
_Static_assert(__builtin_offsetof(struct fe_sysinfo, klock_held_ns) == FE_SYSINFO_SIZE_4,
	       "the fourth version ends where the kernel lock's figures begin");
_Static_assert(FE_MAX_CPUS == ARCH_MAX_CPUS, "one CPU limit");

/* sysinfo_size -- the bytes of struct fe_sysinfo the caller knows: it
 * passes its size; older programs passed none (the first version) */
static uint64_t sysinfo_size(uint64_t asked)
{
	if (asked == sizeof(struct fe_sysinfo) || asked == FE_SYSINFO_SIZE_2 ||
	    asked == FE_SYSINFO_SIZE_3 || asked == FE_SYSINFO_SIZE_4)
		return asked;
	return FE_SYSINFO_SIZE_1;
}

int64_t sys_sysinfo(struct syscall *call)
{
	const uint64_t info_ptr = call->arg[0];
	const uint64_t size = sysinfo_size(call->arg[1]);
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
	info.processes = ptable_count();
	info.uptime_ns = time_mono_ns();
	info.log_size = s.log_size;
	info.log_used = s.log_used;
	info.log_high_water = s.log_high_water;
	info.rolled_back_records = s.rolled_back;
	info.rolled_back_bytes = s.rolled_back_bytes;
	epoch_figures(&info);
	sched_cpu_figures(&info);
	pagecache_figures(&info);
	durable_figures(&info);
	return uvm_copy_out(&call->caller->mem, info_ptr, &info, size);
}

/* SYS_SYNC () -> 0, once the caller's state is durable */
int64_t sys_sync(struct syscall *call)
{
	return durable_sync(call->tf) ? 0 : SYSCALL_BLOCKED;
}

/* snapshot_list -- FE_SNAP_LIST: the snapshots and the area, to user
 * `ptr`; how many snapshots the heap holds */
static int64_t snapshot_list(struct pctx *caller, uint64_t ptr)
{
	static struct fe_snapshot_list out;
	static struct os_snap_info list[OS_SNAP_NODES];
	struct os_snap_usage u;
	unsigned count;
	int64_t err;

	memset(&out, 0, sizeof(out));
	os_snap_usage(&kheap, &u);
	out.area_pages = u.data_pages;
	out.free_pages = u.free_pages;
	out.dropped = u.dropped;
	out.keep = u.keep;
	count = os_snap_list(&kheap, list, OS_SNAP_NODES);
	for (unsigned i = 0; i < count && i < FE_SNAP_MAX; i++) {
		struct fe_snapshot_info *info = &out.snapshots[out.count++];

		memcpy(info->name, list[i].name, sizeof(info->name));
		info->epoch = list[i].epoch;
		info->time_ns = list[i].time_ns;
		info->pages = list[i].pages;
		info->held = list[i].held;
		info->flags = (list[i].head ? FE_SNAP_HEAD : 0) |
			      (list[i].boot ? FE_SNAP_BOOTS : 0) |
			      (list[i].flags & OS_SNAP_AUTO ? FE_SNAP_AUTO : 0) |
			      (list[i].flags & OS_SNAP_HIDDEN ? FE_SNAP_HIDDEN : 0);
	}
	err = uvm_copy_out(&caller->mem, ptr, &out, sizeof(out));
	return err ? err : (int64_t)count;
}

/* SYS_SNAPSHOT (op, name, name_len, arg) -> 0 (FE_SNAP_LIST: snapshots listed) */
int64_t sys_snapshot(struct syscall *call)
{
	const uint64_t op = call->arg[0], name_ptr = call->arg[1], name_len = call->arg[2];
	const uint64_t arg = call->arg[3];
	char name[FE_NAME_MAX + 1];
	int64_t err;

	if (op == FE_SNAP_LIST)
		return snapshot_list(call->caller, arg);
	if (!os_snap_available(&kheap))
		return -ERR_NOTSUP;
	if (op == FE_SNAP_KEEP)
		return arg > FE_SNAP_MAX ? -ERR_RANGE : snapshot_set_keep((unsigned)arg);
	if (op == FE_SNAP_BOOT && name_len == 0)
		return os_snap_set_boot(&kheap, NULL);
	if (name_len > FE_SNAP_NAME_MAX)
		return -ERR_TOOBIG;
	err = copy_name(call->caller, name, name_ptr, name_len);
	if (err)
		return err;
	name[name_len] = '\0'; /* copy_name copies the bytes only */
	switch (op) {
	case FE_SNAP_TAKE:
		return snapshot_request(name); /* taken by the commit on the way back */
	case FE_SNAP_REMOVE:
		return snapshot_remove(name);
	case FE_SNAP_BOOT:
		return os_snap_set_boot(&kheap, name);
	default:
		return -ERR_INVAL;
	}
}

/* SYS_POWEROFF () -> does not return, unless ACPI power-off failed */
int64_t sys_poweroff(struct syscall *call)
{
	arch_syscall_set_result(call->tf, 0);
	epoch_commit(call->tf);
	durable_settle();
	pr_info("ferrite: powering off\n");
	acpi_poweroff();
	pr_err("acpi: power-off did not happen\n");
	return -ERR_IO;
}
