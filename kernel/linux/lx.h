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
#include <stddef.h>
#include <stdint.h>

#include "console/console.h"
#include "kformat/kformat.h"
#include "linux/abi.h"
#include "task/sched.h"

struct pctx;
struct spawn_args;
struct trap_frame;

/* One Linux system call, decoded by the dispatcher. */
struct lxcall {
	struct trap_frame *tf;
	struct pctx *p;
	struct klinux *lx;             /* p's Linux state */
	uint64_t nr;
	uint64_t arg[6];
	bool reissued;                 /* issued again after it blocked */
	uint64_t blocked_until;        /* then the deadline it blocked with; 0: none */
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
/* lx_files_start -- a new program's descriptors 0, 1 and 2: the objects
 * its spawn gave them (checked by sys_process.c), else the console */
int lx_files_start(struct klinux *lx, const struct spawn_args *a);
/* lx_exec_lookup -- the file execve's path names (user address upath, or
 * the kernel string `path` when upath is 0): its catalogue name and object */
int64_t lx_exec_lookup(struct lxcall *c, uint64_t upath, const char *path,
		       char name[KLINUX_PATH_MAX], uint64_t *object);
/* lx_files_forked -- a fork's child's copied descriptors name their files once more */
void lx_files_forked(struct klinux *lx);
/* lx_files_end -- proc.c's hook: a Linux program ends, its descriptors close now */
void lx_files_end(struct pctx *p);
/* lx_files_exec -- an execve: the close-on-exec descriptors close */
void lx_files_exec(struct klinux *lx);
/* lx_state_deleted -- a klinux or klxfile is gone: release what it held */
void lx_state_deleted(uint64_t id, uint16_t type);
/* lx_name_of -- the catalogue name (no trailing '/') of absolute path
 * `path` below `root`, "." and ".." folded as a program's paths are: 0 or
 * -LX_ENAMETOOLONG */
int lx_name_of(const char *root, const char *path, char name[KLINUX_PATH_MAX]);
/* lx_fd_object -- the catalogue object descriptor fd shows, and the open
 * flags of its file; -EBADF, or -EACCES for a file that is no object */
int64_t lx_fd_object(struct lxcall *c, int64_t fd, uint64_t *object, uint32_t *flags);
/* lx_fd_file -- the open file descriptor fd names (its id in *id unless
 * NULL), NULL if none */
struct klxfile *lx_fd_file(struct klinux *lx, int64_t fd, uint64_t *id);
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
int64_t lx_statx(struct lxcall *c);
int64_t lx_access(struct lxcall *c);
int64_t lx_faccessat(struct lxcall *c);
int64_t lx_readlink(struct lxcall *c);
int64_t lx_readlinkat(struct lxcall *c);
int64_t lx_ioctl(struct lxcall *c);
int64_t lx_dup(struct lxcall *c);
int64_t lx_dup2(struct lxcall *c);
int64_t lx_dup3(struct lxcall *c);
int64_t lx_fcntl(struct lxcall *c);
int64_t lx_flock(struct lxcall *c);

/* locks.c: record locks and flock between Linux programs */

/* lx_record_lock -- fcntl's F_GETLK, F_SETLK, F_SETLKW on open file f,
 * with the struct flock at user address arg */
int64_t lx_record_lock(struct lxcall *c, const struct klxfile *f, uint64_t cmd, uint64_t arg);

/* lx_locks_closed -- a descriptor of lx's open file f closes: the
 * program's record locks on its object go (POSIX), and its flock with
 * its last descriptor */
void lx_locks_closed(struct klinux *lx, const struct klxfile *f);
int64_t lx_fchown(struct lxcall *c);
int64_t lx_chown(struct lxcall *c);
int64_t lx_fchownat(struct lxcall *c);
int64_t lx_chmod(struct lxcall *c);
int64_t lx_fchmod(struct lxcall *c);
int64_t lx_fchmodat(struct lxcall *c);
int64_t lx_getcwd(struct lxcall *c);
int64_t lx_chdir(struct lxcall *c);
int64_t lx_getdents64(struct lxcall *c);
int64_t lx_pipe(struct lxcall *c);
int64_t lx_pipe2(struct lxcall *c);
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

/* --- pipes (pipe.c): the pipe itself; its ends are open files (files.c) --- */
/* lx_pipe_new -- a new empty pipe, its id in *id (held once, by the caller) */
int lx_pipe_new(uint64_t *id);
/* lx_pipe_deleted -- the reaper deletes object `id`: a pipe lets go of its ring */
void lx_pipe_deleted(uint64_t id);
/* lx_pipe_count -- a descriptor more (delta > 0) or fewer names pipe
 * `id`'s read or write end */
void lx_pipe_count(uint64_t id, bool write, int delta);
/* lx_pipe_read, lx_pipe_write -- read(2) and write(2) of pipe `id`'s
 * ends, the caller's buf checked; they may block, or -EAGAIN if nonblock */
int64_t lx_pipe_read(struct lxcall *c, uint64_t id, uint64_t buf, uint64_t len,
		     bool nonblock);
int64_t lx_pipe_write(struct lxcall *c, uint64_t id, uint64_t buf, uint64_t len,
		      bool nonblock);
/* lx_pipe_events -- the poll events (LX_POLL*) of pipe `id`'s read or write end now */
uint32_t lx_pipe_events(uint64_t id, bool write);
/* lx_pipe_held -- the bytes pipe `id` holds */
uint64_t lx_pipe_held(uint64_t id);

/* --- waiting for files (poll.c) ------------------------------------------- */
int64_t lx_poll(struct lxcall *c);
int64_t lx_ppoll(struct lxcall *c);
int64_t lx_select(struct lxcall *c);
int64_t lx_pselect6(struct lxcall *c);
int64_t lx_utimensat(struct lxcall *c);

/* --- the start of a program (start.c) ------------------------------------- */
#define LX_EXEC_STRINGS (512u << 10)   /* argument and environment bytes (Linux: 2 MiB) */
#define LX_EXEC_POINTERS 16384         /* argument and environment strings */
/* A program's arguments and environment, as execve takes them. */
struct lx_exec_args {
	unsigned argc, envc;
	size_t bytes;                  /* argc argument strings, then envc environment
					* strings, NUL-terminated, back to back */
	char strings[LX_EXEC_STRINGS];
};
/* lx_state_new -- process p's Linux state: a fresh klinux p holds, its
 * kproc flagged KPROC_LINUX and `flags` */
int lx_state_new(struct pctx *p, uint32_t flags);
/* lx_start_program -- a program's start: its stack below stack_top with
 * ex's arguments and environment, its break just above img, and regs at
 * its entry -- its interpreter's (NULL: none) if it has one */
struct arch_user_regs;
struct elf_image;
int lx_start_program(struct pctx *p, const struct elf_image *img,
		     const struct elf_image *interp, const struct lx_exec_args *ex,
		     uint64_t stack_top, struct arch_user_regs *regs);

/* --- processes making processes (fork.c) ---------------------------------- */
/* lx_child_ended -- proc.c's hook: child `child` (its process object) of
 * Linux program `parent` ended: SIGCHLD (signal.c) */
void lx_child_ended(struct pctx *parent, uint64_t child);
/* lx_pgid, lx_sid -- p's process group and session */
uint64_t lx_pgid(const struct pctx *p);
uint64_t lx_sid(const struct pctx *p);
/* lx_group_exists -- whether a Linux program of session sid is in group pgid */
bool lx_group_exists(uint64_t pgid, uint64_t sid);
/* lx_console_pgrp -- the console's foreground group as p's session sees
 * it: the group tcsetpgrp gave it while that group has a program of the
 * session, else p's own (process.c) */
uint64_t lx_console_pgrp(const struct pctx *p);
/* lx_threads_exec -- an execve by p's thread `keep`: the others end (thread.c) */
void lx_threads_exec(struct pctx *p, unsigned keep);
/* lx_signals_exec -- an execve: handled signals back to their defaults;
 * ignored ones, the masks, pending signals and the timer stay (signal.c) */
void lx_signals_exec(struct klinux *lx);
int64_t lx_fork(struct lxcall *c);
int64_t lx_vfork(struct lxcall *c);
int64_t lx_clone(struct lxcall *c);
int64_t lx_execve(struct lxcall *c);
int64_t lx_wait4(struct lxcall *c);
int64_t lx_waitid(struct lxcall *c);
int64_t lx_setsid(struct lxcall *c);
int64_t lx_getsid(struct lxcall *c);

/* --- memory (memory.c) ---------------------------------------------------- */
/* lx_memory_start -- the break of a new program, empty just above its image */
void lx_memory_start(struct klinux *lx, uint64_t image_end);
int64_t lx_brk(struct lxcall *c);
int64_t lx_mmap(struct lxcall *c);
int64_t lx_munmap(struct lxcall *c);
int64_t lx_mremap(struct lxcall *c);
int64_t lx_mprotect(struct lxcall *c);
int64_t lx_madvise(struct lxcall *c);

/* --- signals (signal.c, sigframe.c) --------------------------------------- */
/* A signal's disposition, as a handler is run with it. */
struct lx_handler {
	uint64_t handler, restorer;
	uint32_t flags;                /* SA_* */
};
/* lx_signals_start -- a new program's dispositions: every one the default */
int lx_signals_start(struct klinux *lx);
/* Who raised a signal, as its siginfo says. */
enum lx_sender { LX_BY_KERNEL, LX_BY_KILL, LX_BY_TKILL };
/* lx_signal_raise -- signal s raised for program p by `by` */
void lx_signal_raise(struct pctx *p, int s, enum lx_sender by);
/* lx_signal_raise_thread -- signal s raised for p's thread `tid` alone */
void lx_signal_raise_thread(struct pctx *p, unsigned tid, int s, enum lx_sender by);
/* lx_signal_cuts -- before call c: 0, or how a signal cut it short: it
 * returns -EINTR, or (-ERESTARTSYS) is made again after the handler */
int64_t lx_signal_cuts(struct lxcall *c);
/* lx_signal_blocked -- call c blocked: it also wakes for a due SIGALRM */
void lx_signal_blocked(struct lxcall *c);
/* lx_signal_wait_mask -- the mask for the wait of call c (rt_sigsuspend,
 * ppoll, pselect6), the one before kept; -EINTR if a signal may be taken
 * at once */
int64_t lx_signal_wait_mask(struct lxcall *c, uint64_t mask);
/* lx_signal_wait_done -- call c, which waited with a mask of its own,
 * ended without a signal: the mask before back */
void lx_signal_wait_done(struct lxcall *c);
/* lx_signal_name -- "SIGSEGV", or "SIGRT5" for real-time signal 32 + 5 */
void lx_signal_name(int s, char *buf, size_t cap);
/* lx_ctrl_c -- Ctrl-C or Ctrl-Z (c) typed to foreground Linux program p
 * (the console's hook): SIGINT or SIGTSTP to the console's foreground group */
enum console_intr lx_ctrl_c(struct pctx *p, char c);
/* lx_stop_news -- the stop (its signal) or continuation (SIGCONT) of p
 * its parent's wait has not said yet, 0 if none; taken unless `keep` */
int lx_stop_news(struct pctx *p, bool keep);
/* lx_on_altstack -- whether stack pointer sp is on the alternate stack of
 * lx's thread that this CPU runs */
bool lx_on_altstack(const struct klinux *lx, uint64_t sp);
/* lx_frame_push -- run handler h for the signal `info` describes on a new
 * frame of the thread of tf, saving its registers and `mask`; 0 or an error */
struct lx_siginfo;
int lx_frame_push(struct trap_frame *tf, struct pctx *p, const struct lx_handler *h,
		  const struct lx_siginfo *info, uint64_t mask);
int64_t lx_rt_sigaction(struct lxcall *c);
int64_t lx_rt_sigprocmask(struct lxcall *c);
int64_t lx_rt_sigpending(struct lxcall *c);
int64_t lx_rt_sigsuspend(struct lxcall *c);
int64_t lx_rt_sigreturn(struct lxcall *c);
int64_t lx_sigaltstack(struct lxcall *c);
int64_t lx_pause(struct lxcall *c);
int64_t lx_kill(struct lxcall *c);
int64_t lx_tgkill(struct lxcall *c);
int64_t lx_tkill(struct lxcall *c);
int64_t lx_alarm(struct lxcall *c);
int64_t lx_getitimer(struct lxcall *c);
int64_t lx_setitimer(struct lxcall *c);

/* --- the process (process.c) ---------------------------------------------- */
int64_t lx_exit_group(struct lxcall *c);
int64_t lx_getpid(struct lxcall *c);
int64_t lx_getppid(struct lxcall *c);
int64_t lx_getuid(struct lxcall *c);
int64_t lx_uname(struct lxcall *c);
int64_t lx_sysinfo(struct lxcall *c);
int64_t lx_arch_prctl(struct lxcall *c);
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
int64_t lx_getpgrp(struct lxcall *c);
int64_t lx_setpgid(struct lxcall *c);
/* --- threads (thread.c) -------------------------------------------------- */
/* lx_thread_tid -- the Ferrite tid of p's live thread with Linux tid ltid,
 * -1 if none */
int lx_thread_tid(const struct pctx *p, int64_t ltid);
/* Where one thread's signal state is kept (lx_thread_sig): tid 0's in
 * klinux, the others' in klxthreads. `pending` and `tsent` are the
 * signals sent to the thread alone, and which tgkill or tkill sent; NULL
 * while the program has no klxthreads (it never cloned: one thread, which
 * takes the program's). It waits in rt_sigsuspend while *flags holds the
 * bit `suspended`. */
struct lx_thread_sig {
	uint64_t *mask;
	uint64_t *pending, *tsent;
	uint64_t *suspend_mask;
	uint32_t *flags;
	uint32_t suspended;
	uint64_t *altstack_sp, *altstack_size;
};

/* lx_thread_sig -- where the signal state of lx's thread `tid` is kept */
struct lx_thread_sig lx_thread_sig(const struct klinux *lx, unsigned tid);
int64_t lx_clone_thread(struct lxcall *c);
int64_t lx_exit(struct lxcall *c);
int64_t lx_futex(struct lxcall *c);
int64_t lx_gettid(struct lxcall *c);
int64_t lx_set_tid_address(struct lxcall *c);
int64_t lx_set_robust_list(struct lxcall *c);

/* lx_call_deadline -- the deadline of call c: `fresh` when it is new, the
 * one it blocked with when it is issued again (process.c) */
uint64_t lx_call_deadline(struct lxcall *c, uint64_t fresh);
/* lx_sleep_until -- block the call until monotonic `deadline`, or end a
 * sleep it began before it blocked (process.c) */
int64_t lx_sleep_until(struct lxcall *c, uint64_t deadline);
/* lx_read_timespec -- a struct timespec of the caller in ns, checked */
int64_t lx_read_timespec(struct lxcall *c, uint64_t at, uint64_t *ns);

#endif
