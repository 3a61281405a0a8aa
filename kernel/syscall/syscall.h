/*
 * syscall.h -- what the system-call families share: the call as a handler
 * sees it, the handlers, and the helpers more than one family uses.
 *
 * Every handler has the same shape (seL4's decode, then invoke): first it
 * gives each argument a named, typed local; then it checks all of them --
 * handles with their type and rights in one call (handle_lookup), user
 * pointers through uvm_copy_* or uvm_check, sizes against the limits of
 * <ferrite/syscall.h> -- and can fail; only then does it act. It returns 0
 * or a positive value, -ERR_x, SYSCALL_BLOCKED (the thread blocked: the
 * call is re-issued when it wakes) or SYSCALL_GONE (the caller ended).
 * docs/syscalls.md is the reference of every call.
 */
#ifndef SYSCALL_SYSCALL_H
#define SYSCALL_SYSCALL_H

#include <stdint.h>

#include "task/sched.h"

struct pctx;
struct trap_frame;

/* One system call, decoded from the frame by the dispatcher (syscall.c). */
struct syscall {
	struct trap_frame *tf;         /* the caller's frame: for sched_block */
	struct pctx *caller;
	uint64_t arg[6];               /* rdi rsi rdx r10 r8 r9, as they came */
};

typedef int64_t (*syscall_fn)(struct syscall *call);

/* syscall_native -- carry out the SYSCALL of frame tf from Ferrite program
 * `caller` (entry.c has checked the log's room) */
void syscall_native(struct trap_frame *tf, struct pctx *caller);

/* --- helpers (syscall.c) ------------------------------------------------- */

/* copy_name -- a catalogue name of `len` bytes from the caller's memory at
 * `ptr` into name[FE_NAME_MAX]; -ERR_INVAL for an empty or too long one */
int copy_name(struct pctx *p, char *name, uint64_t ptr, uint64_t len);

/* install_new -- a handle for a reference the kernel holds for p; the
 * reference is released if p has no free slot (-ERR_NOSPC) */
int64_t install_new(struct pctx *p, uint64_t object, uint32_t rights,
		    uint8_t end);

/* --- objects (sys_object.c) ----------------------------------------------- */
int64_t sys_obj_create(struct syscall *call);
int64_t sys_obj_open(struct syscall *call);
int64_t sys_obj_open_id(struct syscall *call);
int64_t sys_obj_stat(struct syscall *call);
int64_t sys_obj_read(struct syscall *call);
int64_t sys_obj_write(struct syscall *call);
int64_t sys_obj_resize(struct syscall *call);
int64_t sys_close(struct syscall *call);
int64_t sys_dup(struct syscall *call);

/* --- names (sys_name.c) --------------------------------------------------- */
int64_t sys_name_bind(struct syscall *call);
int64_t sys_name_unbind(struct syscall *call);
int64_t sys_name_rename(struct syscall *call);
int64_t sys_name_list(struct syscall *call);
int64_t sys_name_replace(struct syscall *call);

/* --- memory (sys_memory.c) ------------------------------------------------ */
int64_t sys_map(struct syscall *call);
int64_t sys_unmap(struct syscall *call);
int64_t sys_protect(struct syscall *call);

/* --- processes (sys_process.c) -------------------------------------------- */
int64_t sys_spawn(struct syscall *call);
int64_t sys_exit(struct syscall *call);
int64_t sys_wait(struct syscall *call);
int64_t sys_kill(struct syscall *call);
int64_t sys_proc_list(struct syscall *call);
int64_t sys_resume(struct syscall *call);
int64_t sys_yield(struct syscall *call);
int64_t sys_sleep_until(struct syscall *call);
int64_t sys_getpid(struct syscall *call);

/* --- threads (sys_thread.c) ----------------------------------------------- */
int64_t sys_thread_create(struct syscall *call);
int64_t sys_thread_exit(struct syscall *call);
int64_t sys_thread_join(struct syscall *call);
int64_t sys_futex_wait(struct syscall *call);
int64_t sys_futex_wake(struct syscall *call);
int64_t sys_gettid(struct syscall *call);
int64_t sys_thread_list(struct syscall *call);

/* --- channels (sys_channel.c) --------------------------------------------- */
int64_t sys_chan_create(struct syscall *call);
int64_t sys_chan_send(struct syscall *call);
int64_t sys_chan_recv(struct syscall *call);

/* --- console, time and the system (sys_system.c) -------------------------- */
int64_t sys_null(struct syscall *call);
int64_t sys_console_read(struct syscall *call);
int64_t sys_console_write(struct syscall *call);
int64_t sys_console_fg(struct syscall *call);
int64_t sys_console_sink(struct syscall *call);
int64_t sys_link_read(struct syscall *call);
int64_t sys_link_write(struct syscall *call);
int64_t sys_link_move(struct syscall *call);
int64_t sys_link_info(struct syscall *call);
int64_t sys_time(struct syscall *call);
int64_t sys_sysinfo(struct syscall *call);
int64_t sys_sync(struct syscall *call);
int64_t sys_poweroff(struct syscall *call);
int64_t sys_snapshot(struct syscall *call);

#endif
