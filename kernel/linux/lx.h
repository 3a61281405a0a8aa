/*
 * lx.h -- what the files of the Linux personality share: the call as a
 * handler sees it, the handlers, and the helpers more than one file uses.
 *
 * Handlers have the shape of the native ones (syscall/syscall.h): name
 * each argument, check them all, then act. They return a result >= 0, a
 * negative Linux errno (-LX_E*; Ferrite's errors become Linux's through
 * lx_errno where they arise, never later),
 * or SYSCALL_BLOCKED / SYSCALL_GONE as native handlers do.
 */
#ifndef LINUX_LX_H
#define LINUX_LX_H

#include <stdbool.h>
#include <stdint.h>

#include "kformat/kformat.h"
#include "linux/abi.h"
#include "task/sched.h"

struct pctx;
struct trap_frame;

/* One Linux system call, decoded by the dispatcher. */
struct lxcall {
	struct trap_frame *tf;
	struct pctx *p;
	struct klinux *lx;             /* p's Linux state */
	uint64_t nr;
	uint64_t arg[6];
};

typedef int64_t (*lx_fn)(struct lxcall *c);

/* lx_errno -- a Ferrite error (-ERR_x, or >= 0 passed through) as Linux's;
 * -ERR_CORRUPT stops the machine (heap_damaged) */
int64_t lx_errno(int64_t err);

/* lx_errno_name -- Linux's name of errno e ("ENOENT") and its text in
 * *text ("No such file or directory"); NULL for a value the personality
 * never returns (errno.c) */
const char *lx_errno_name(int64_t e, const char **text);

/* lx_call_name -- Linux's name of call nr, NULL if it has none (names.c) */
const char *lx_call_name(uint64_t nr);

/* --- the trace (trace.c) -------------------------------------------------- */
/* lx_trace_begin -- before a call of a traced program (KPROC_TRACE): room
 * for its line kept on its console, and the line of a call that never
 * returns said now; 0, or SYSCALL_BLOCKED with the call blocked until
 * there is room (it is issued again then) */
int64_t lx_trace_begin(struct lxcall *c);
/* lx_trace_end -- after a call of a traced program: its line, with its
 * result (none for a call that blocked: its line comes when it completes) */
void lx_trace_end(struct lxcall *c, int64_t result);

/* --- files (files.c) ------------------------------------------------------ */
/* lx_files_start -- a new program's descriptors 0, 1 and 2: the console */
int lx_files_start(struct klinux *lx);
/* lx_state_deleted -- a klinux or klxfile is gone: release what it held */
void lx_state_deleted(uint64_t id, uint16_t type);
/* lx_fd_object -- the catalogue object descriptor fd shows, and the open
 * flags of its file; -EBADF, or -EACCES for a file that is no object */
int64_t lx_fd_object(struct lxcall *c, int64_t fd, uint64_t *object, uint32_t *flags);
int64_t lx_read(struct lxcall *c);
int64_t lx_write(struct lxcall *c);
int64_t lx_readv(struct lxcall *c);
int64_t lx_writev(struct lxcall *c);
int64_t lx_pread64(struct lxcall *c);
int64_t lx_open(struct lxcall *c);
int64_t lx_openat(struct lxcall *c);
int64_t lx_close(struct lxcall *c);
int64_t lx_lseek(struct lxcall *c);
int64_t lx_fstat(struct lxcall *c);
int64_t lx_stat(struct lxcall *c);
int64_t lx_newfstatat(struct lxcall *c);
int64_t lx_access(struct lxcall *c);
int64_t lx_faccessat(struct lxcall *c);
int64_t lx_readlink(struct lxcall *c);
int64_t lx_readlinkat(struct lxcall *c);
int64_t lx_ioctl(struct lxcall *c);
int64_t lx_dup(struct lxcall *c);
int64_t lx_dup2(struct lxcall *c);
int64_t lx_dup3(struct lxcall *c);
int64_t lx_fcntl(struct lxcall *c);
int64_t lx_fchown(struct lxcall *c);
int64_t lx_getcwd(struct lxcall *c);
int64_t lx_chdir(struct lxcall *c);
int64_t lx_getdents64(struct lxcall *c);
int64_t lx_poll(struct lxcall *c);
int64_t lx_pwrite64(struct lxcall *c);
int64_t lx_ftruncate(struct lxcall *c);
int64_t lx_fsync(struct lxcall *c);
int64_t lx_umask(struct lxcall *c);
int64_t lx_mkdir(struct lxcall *c);
int64_t lx_mkdirat(struct lxcall *c);
int64_t lx_rmdir(struct lxcall *c);
int64_t lx_unlink(struct lxcall *c);
int64_t lx_unlinkat(struct lxcall *c);
int64_t lx_link(struct lxcall *c);
int64_t lx_linkat(struct lxcall *c);
int64_t lx_rename(struct lxcall *c);
int64_t lx_renameat(struct lxcall *c);
int64_t lx_renameat2(struct lxcall *c);
int64_t lx_ppoll(struct lxcall *c);

/* --- memory (memory.c) ---------------------------------------------------- */
/* lx_memory_start -- the break of a new program, just above its image */
int lx_memory_start(struct pctx *p, struct klinux *lx, uint64_t image_end);
int64_t lx_brk(struct lxcall *c);
int64_t lx_mmap(struct lxcall *c);
int64_t lx_munmap(struct lxcall *c);
int64_t lx_mprotect(struct lxcall *c);
int64_t lx_madvise(struct lxcall *c);

/* --- the process (process.c) ---------------------------------------------- */
int64_t lx_exit_group(struct lxcall *c);
int64_t lx_getpid(struct lxcall *c);
int64_t lx_getppid(struct lxcall *c);
int64_t lx_gettid(struct lxcall *c);
int64_t lx_getuid(struct lxcall *c);
int64_t lx_uname(struct lxcall *c);
int64_t lx_arch_prctl(struct lxcall *c);
int64_t lx_set_tid_address(struct lxcall *c);
int64_t lx_clock_gettime(struct lxcall *c);
int64_t lx_clock_getres(struct lxcall *c);
int64_t lx_gettimeofday(struct lxcall *c);
int64_t lx_time(struct lxcall *c);
int64_t lx_nanosleep(struct lxcall *c);
int64_t lx_clock_nanosleep(struct lxcall *c);
int64_t lx_sched_yield(struct lxcall *c);
int64_t lx_getrandom(struct lxcall *c);
int64_t lx_getrlimit(struct lxcall *c);
int64_t lx_prlimit64(struct lxcall *c);
int64_t lx_prctl(struct lxcall *c);
int64_t lx_getpgid(struct lxcall *c);
int64_t lx_setpgid(struct lxcall *c);
/* lx_sleep_until -- block the call until monotonic `deadline`, or end a
 * sleep it began before it blocked (process.c) */
int64_t lx_sleep_until(struct lxcall *c, uint64_t deadline);
/* lx_read_timespec -- a struct timespec of the caller in ns, checked */
int64_t lx_read_timespec(struct lxcall *c, uint64_t at, uint64_t *ns);

#endif
