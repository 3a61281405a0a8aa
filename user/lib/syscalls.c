/*
 * syscalls.c -- one function per system call of <ferrite/syscall.h>.
 *
 * Each is the ABI and nothing more: arguments go to the kernel unchecked
 * and unchanged (handles sign-extended, so -1 stays -1 in a 64-bit
 * register), and the kernel's result comes back as it is. Checking is the
 * kernel's job; usertest relies on reaching it with any value at all.
 */
#include <fe.h>

#include "syscall_asm.h"

#define U(x) ((uint64_t)(x))
#define H(h) ((uint64_t)(int64_t)(h))
#define P(p) ((uint64_t)(uintptr_t)(p))

/* fe_null -- SYS_NULL */
long fe_null(void)
{
	return sys0(SYS_NULL);
}

/* fe_obj_create -- SYS_OBJ_CREATE */
long fe_obj_create(uint32_t type, uint64_t size)
{
	return sys3(SYS_OBJ_CREATE, U(type), size, 0);
}

/* fe_obj_open -- SYS_OBJ_OPEN */
long fe_obj_open(const char *name, uint64_t name_len, uint32_t rights)
{
	return sys3(SYS_OBJ_OPEN, P(name), name_len, U(rights));
}

/* fe_obj_open_id -- SYS_OBJ_OPEN_ID */
long fe_obj_open_id(uint64_t id, uint32_t rights)
{
	return sys3(SYS_OBJ_OPEN_ID, id, U(rights), 0);
}

/* fe_name_bind -- SYS_NAME_BIND */
long fe_name_bind(int32_t handle, const char *name, uint64_t name_len)
{
	return sys3(SYS_NAME_BIND, H(handle), P(name), name_len);
}

/* fe_name_unbind -- SYS_NAME_UNBIND */
long fe_name_unbind(const char *name, uint64_t name_len)
{
	return sys3(SYS_NAME_UNBIND, P(name), name_len, 0);
}

/* fe_name_rename -- SYS_NAME_RENAME */
long fe_name_rename(const char *from, uint64_t from_len, const char *to,
		    uint64_t to_len)
{
	return sys6(SYS_NAME_RENAME, P(from), from_len, P(to), to_len, 0, 0);
}

/* fe_name_list -- SYS_NAME_LIST */
long fe_name_list(const char *prefix, uint64_t prefix_len,
		  struct fe_cursor *cursor, struct fe_name_entry *entries,
		  uint64_t max)
{
	return sys6(SYS_NAME_LIST, P(prefix), prefix_len, P(cursor),
		    P(entries), max, 0);
}

/* fe_obj_stat -- SYS_OBJ_STAT */
long fe_obj_stat(int32_t handle, struct fe_stat *st)
{
	return sys3(SYS_OBJ_STAT, H(handle), P(st), 0);
}

/* fe_obj_read -- SYS_OBJ_READ */
long fe_obj_read(int32_t handle, uint64_t offset, void *buf, uint64_t len)
{
	return sys6(SYS_OBJ_READ, H(handle), offset, P(buf), len, 0, 0);
}

/* fe_obj_write -- SYS_OBJ_WRITE */
long fe_obj_write(int32_t handle, uint64_t offset, const void *buf,
		  uint64_t len)
{
	return sys6(SYS_OBJ_WRITE, H(handle), offset, P(buf), len, 0, 0);
}

/* fe_obj_resize -- SYS_OBJ_RESIZE */
long fe_obj_resize(int32_t handle, uint64_t size)
{
	return sys3(SYS_OBJ_RESIZE, H(handle), size, 0);
}

/* fe_close -- SYS_CLOSE */
long fe_close(int32_t handle)
{
	return sys3(SYS_CLOSE, H(handle), 0, 0);
}

/* fe_dup -- SYS_DUP */
long fe_dup(int32_t handle, uint32_t rights)
{
	return sys3(SYS_DUP, H(handle), U(rights), 0);
}

/* fe_map -- SYS_MAP */
long fe_map(int32_t handle, uint64_t offset, uint64_t len, uint32_t flags,
	    uint64_t addr)
{
	return sys6(SYS_MAP, H(handle), offset, len, U(flags), addr, 0);
}

/* fe_unmap -- SYS_UNMAP */
long fe_unmap(uint64_t addr, uint64_t len)
{
	return sys3(SYS_UNMAP, addr, len, 0);
}

/* fe_protect -- SYS_PROTECT */
long fe_protect(uint64_t addr, uint64_t len, uint32_t prot)
{
	return sys3(SYS_PROTECT, addr, len, U(prot));
}

/* fe_sync -- SYS_SYNC */
long fe_sync(void)
{
	return sys0(SYS_SYNC);
}

/* fe_snapshot -- SYS_SNAPSHOT */
long fe_snapshot(uint32_t op, const char *name, uint64_t arg)
{
	return sys6(SYS_SNAPSHOT, U(op), P(name), name ? strlen(name) : 0, arg, 0, 0);
}

/* fe_spawn -- SYS_SPAWN */
long fe_spawn(int32_t code, const struct fe_spawn *spawn, uint32_t flags)
{
	return sys3(SYS_SPAWN, H(code), P(spawn), U(flags));
}

/* fe_exit -- SYS_EXIT */
void fe_exit(long status)
{
	sys3(SYS_EXIT, U(status), 0, 0);
	for (;;)
		__builtin_trap(); /* Invariant: SYS_EXIT never returns */
}

/* fe_wait -- SYS_WAIT */
long fe_wait(int32_t process, struct fe_exit_info *info, uint32_t flags)
{
	return sys3(SYS_WAIT, H(process), P(info), U(flags));
}

/* fe_kill -- SYS_KILL */
long fe_kill(uint64_t pid)
{
	return sys3(SYS_KILL, pid, 0, 0);
}

/* fe_proc_list -- SYS_PROC_LIST */
long fe_proc_list(struct fe_proc_info *info, uint64_t max, uint64_t first_pid)
{
	return sys3(SYS_PROC_LIST, P(info), max, first_pid);
}

/* fe_yield -- SYS_YIELD */
long fe_yield(void)
{
	return sys0(SYS_YIELD);
}

/* fe_sleep_until -- SYS_SLEEP_UNTIL */
long fe_sleep_until(uint64_t deadline_ns)
{
	return sys3(SYS_SLEEP_UNTIL, deadline_ns, 0, 0);
}

/* fe_chan_create -- SYS_CHAN_CREATE */
long fe_chan_create(int32_t ends[2])
{
	return sys3(SYS_CHAN_CREATE, P(ends), 0, 0);
}

/* fe_chan_send -- SYS_CHAN_SEND */
long fe_chan_send(int32_t handle, const void *buf, uint64_t len,
		  int32_t pass_handle)
{
	return sys6(SYS_CHAN_SEND, H(handle), P(buf), len, H(pass_handle), 0, 0);
}

/* fe_chan_recv -- SYS_CHAN_RECV */
long fe_chan_recv(int32_t handle, void *buf, uint64_t cap,
		  struct fe_msg_info *info, uint32_t flags)
{
	return sys6(SYS_CHAN_RECV, H(handle), P(buf), cap, P(info), U(flags), 0);
}

/* fe_console_read -- SYS_CONSOLE_READ */
long fe_console_read(void *buf, uint64_t cap, uint32_t mode)
{
	return sys3(SYS_CONSOLE_READ, P(buf), cap, U(mode));
}

/* fe_console_write -- SYS_CONSOLE_WRITE */
long fe_console_write(const void *buf, uint64_t len)
{
	return sys3(SYS_CONSOLE_WRITE, P(buf), len, 0);
}

/* fe_time -- SYS_TIME */
long fe_time(uint32_t clock)
{
	return sys3(SYS_TIME, U(clock), 0, 0);
}

/* fe_sysinfo -- SYS_SYSINFO */
long fe_sysinfo(struct fe_sysinfo *info)
{
	return sys3(SYS_SYSINFO, P(info), sizeof(*info), 0);
}

/* fe_console_fg -- SYS_CONSOLE_FG */
long fe_console_fg(int32_t process)
{
	return sys3(SYS_CONSOLE_FG, H(process), 0, 0);
}

/* fe_getpid -- SYS_GETPID */
long fe_getpid(void)
{
	return sys0(SYS_GETPID);
}

/* fe_thread_create -- SYS_THREAD_CREATE */
long fe_thread_create(uint64_t entry, uint64_t stack_top, uint64_t arg)
{
	return sys3(SYS_THREAD_CREATE, entry, stack_top, arg);
}

/* fe_thread_exit -- SYS_THREAD_EXIT */
long fe_thread_exit(long status)
{
	return sys3(SYS_THREAD_EXIT, U(status), 0, 0);
}

/* fe_thread_join -- SYS_THREAD_JOIN */
long fe_thread_join(uint64_t tid, int64_t *status)
{
	return sys3(SYS_THREAD_JOIN, tid, P(status), 0);
}

/* fe_futex_wait -- SYS_FUTEX_WAIT */
long fe_futex_wait(const uint32_t *addr, uint32_t expected)
{
	return sys3(SYS_FUTEX_WAIT, P(addr), U(expected), 0);
}

/* fe_futex_wake -- SYS_FUTEX_WAKE */
long fe_futex_wake(const uint32_t *addr, uint64_t max)
{
	return sys3(SYS_FUTEX_WAKE, P(addr), max, 0);
}

/* fe_gettid -- SYS_GETTID */
long fe_gettid(void)
{
	return sys0(SYS_GETTID);
}

/* fe_thread_list -- SYS_THREAD_LIST */
long fe_thread_list(uint64_t pid, struct fe_thread_info *info, uint64_t max)
{
	return sys3(SYS_THREAD_LIST, pid, P(info), max);
}

/* fe_poweroff -- SYS_POWEROFF */
long fe_poweroff(void)
{
	return sys0(SYS_POWEROFF);
}

/* fe_resume -- SYS_RESUME */
long fe_resume(void)
{
	return sys0(SYS_RESUME);
}

/* fe_name_replace -- SYS_NAME_REPLACE */
long fe_name_replace(int32_t handle, const char *name, uint64_t name_len)
{
	return sys3(SYS_NAME_REPLACE, H(handle), P(name), name_len);
}

/* fe_console_sink -- SYS_CONSOLE_SINK */
long fe_console_sink(int32_t channel)
{
	return sys3(SYS_CONSOLE_SINK, H(channel), 0, 0);
}

/* fe_link_read -- SYS_LINK_READ */
long fe_link_read(int32_t link, void *buf, uint64_t cap)
{
	return sys3(SYS_LINK_READ, H(link), P(buf), cap);
}

/* fe_link_write -- SYS_LINK_WRITE */
long fe_link_write(int32_t link, const void *buf, uint64_t len)
{
	return sys3(SYS_LINK_WRITE, H(link), P(buf), len);
}

/* fe_link_move -- SYS_LINK_MOVE */
long fe_link_move(int32_t link, int32_t object, const struct fe_link_move *move)
{
	return sys3(SYS_LINK_MOVE, H(link), H(object), P(move));
}

/* fe_link_info -- SYS_LINK_INFO */
long fe_link_info(int32_t link, struct fe_link_info *info)
{
	return sys3(SYS_LINK_INFO, H(link), P(info), 0);
}

/* fe_syscall -- system call nr with six raw 64-bit arguments */
long fe_syscall(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2,
		uint64_t a3, uint64_t a4, uint64_t a5)
{
	return sys6((long)nr, a0, a1, a2, a3, a4, a5);
}
