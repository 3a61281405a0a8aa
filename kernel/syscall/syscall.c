/*
 * syscall.c -- the system calls: one table from numbers to handlers, and
 * the one door every call comes in by.
 *
 * The handlers live one file per family of objects (sys_object.c,
 * sys_name.c, sys_memory.c, sys_process.c, sys_thread.c, sys_channel.c,
 * sys_system.c);
 * each decodes its arguments, checks all of them, then acts (syscall.h).
 * docs/syscalls.md is the reference.
 *
 * Before a call comes here, the entry room (entry/entry.c) has checked that
 * the undo log has room for everything one call may log
 * (HEAP_ENTRY_LOG_MAX), or restarted the call after a commit, so objstore
 * never runs out of log half way through a call and a commit never
 * records a thread in the middle of one; and it has sent Linux programs'
 * calls to kernel/linux/ instead. A call that meets a damaged heap structure (objstore's -ERR_CORRUPT)
 * stops the machine without committing (heap_damaged).
 */
#include "arch/arch.h"
#include "core/heap.h"
#include "core/panic.h"
#include "ferrite/errors.h"
#include "task/proc.h"
#include "syscall/syscall.h"

static const syscall_fn syscalls[SYS__COUNT] = {
	[SYS_NULL] = sys_null,
	[SYS_OBJ_CREATE] = sys_obj_create,
	[SYS_OBJ_OPEN] = sys_obj_open,
	[SYS_OBJ_OPEN_ID] = sys_obj_open_id,
	[SYS_NAME_BIND] = sys_name_bind,
	[SYS_NAME_UNBIND] = sys_name_unbind,
	[SYS_NAME_RENAME] = sys_name_rename,
	[SYS_NAME_LIST] = sys_name_list,
	[SYS_OBJ_STAT] = sys_obj_stat,
	[SYS_OBJ_READ] = sys_obj_read,
	[SYS_OBJ_WRITE] = sys_obj_write,
	[SYS_OBJ_RESIZE] = sys_obj_resize,
	[SYS_CLOSE] = sys_close,
	[SYS_DUP] = sys_dup,
	[SYS_MAP] = sys_map,
	[SYS_UNMAP] = sys_unmap,
	[SYS_PROTECT] = sys_protect,
	[SYS_SYNC] = sys_sync,
	[SYS_SPAWN] = sys_spawn,
	[SYS_EXIT] = sys_exit,
	[SYS_WAIT] = sys_wait,
	[SYS_KILL] = sys_kill,
	[SYS_PROC_LIST] = sys_proc_list,
	[SYS_YIELD] = sys_yield,
	[SYS_SLEEP_UNTIL] = sys_sleep_until,
	[SYS_CHAN_CREATE] = sys_chan_create,
	[SYS_CHAN_SEND] = sys_chan_send,
	[SYS_CHAN_RECV] = sys_chan_recv,
	[SYS_CONSOLE_READ] = sys_console_read,
	[SYS_CONSOLE_WRITE] = sys_console_write,
	[SYS_TIME] = sys_time,
	[SYS_SYSINFO] = sys_sysinfo,
	[SYS_CONSOLE_FG] = sys_console_fg,
	[SYS_GETPID] = sys_getpid,
	[SYS_POWEROFF] = sys_poweroff,
	[SYS_RESUME] = sys_resume,
	[SYS_SNAPSHOT] = sys_snapshot,
	[SYS_THREAD_CREATE] = sys_thread_create,
	[SYS_THREAD_EXIT] = sys_thread_exit,
	[SYS_THREAD_JOIN] = sys_thread_join,
	[SYS_FUTEX_WAIT] = sys_futex_wait,
	[SYS_FUTEX_WAKE] = sys_futex_wake,
	[SYS_GETTID] = sys_gettid,
	[SYS_THREAD_LIST] = sys_thread_list,
	[SYS_NAME_REPLACE] = sys_name_replace,
	[SYS_CONSOLE_SINK] = sys_console_sink,
	[SYS_LINK_READ] = sys_link_read,
	[SYS_LINK_WRITE] = sys_link_write,
	[SYS_LINK_MOVE] = sys_link_move,
	[SYS_LINK_INFO] = sys_link_info,
};

/* syscall_native -- the SYSCALL of frame tf, from Ferrite program `caller` */
void syscall_native(struct trap_frame *tf, struct pctx *caller)
{
	struct syscall call = { .tf = tf, .caller = caller };
	uint64_t nr = arch_syscall_number(tf);
	int64_t result;

	if (nr >= SYS__COUNT || !syscalls[nr]) {
		arch_syscall_set_result(tf, -ERR_NOSYS);
		return;
	}
	arch_syscall_args(tf, call.arg);
	result = syscalls[nr](&call);
	if (result == -ERR_CORRUPT)
		heap_damaged("system call %llu of pid %llu (%s) met a damaged heap structure",
			     (unsigned long long)nr,
			     (unsigned long long)call.caller->proc->pid,
			     call.caller->proc->name);
	if (result != SYSCALL_BLOCKED && result != SYSCALL_GONE)
		arch_syscall_set_result(tf, result);
}
