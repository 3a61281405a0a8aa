/*
 * trace.c -- the trace of a Linux program (osh's `trace`, docs/linux.md):
 * one line per call it makes, with its arguments and result, as strace
 * prints them, on the program's own console.
 *
 * A process spawned with FE_SPAWN_TRACE carries KPROC_TRACE (kformat.h),
 * persistent like the rest of it: a traced program cut by power is traced
 * on after the next power-on. The dispatcher (dispatch.c) calls
 * lx_trace_begin before each of its calls and lx_trace_end after.
 *
 * Where the lines go. Through the console's output queue, after what the
 * program wrote (console_say), so that a line reaches the screen in order
 * with the program's output and, like it, only once the epoch that made
 * the call has committed: a call undone by a power cut is never shown,
 * and one made again is shown once. Before the call runs, the queue must
 * have room for a whole line, which is kept from the program's own writes
 * and the echo during the call (console_keep); if it has not, the call
 * waits for the queue to be sent, as a write to a full queue does, and is
 * issued again then. A call that blocks is shown once, when it completes
 * (strace's `<unfinished ...>` is not needed: the kernel runs the call
 * again from the start). A call that never returns (exit, exit_group) is
 * shown before it runs, with `= ?`.
 *
 * The arguments. The table below says how each call's arguments read: a
 * number, a descriptor, flags with names, a string or a buffer in the
 * program's memory (a buffer the call fills is shown after the call,
 * as long as its result says). Memory is read only after the call has
 * run, through the uvm copies, which fail rather than fault: an argument
 * that cannot be read is shown as its address, and nothing the trace does
 * changes what the call did or returned. A call the table lacks shows its
 * six raw arguments in hex; one the kernel lacks returns ENOSYS, shown as
 * strace shows it.
 *
 * Where strace differs: strace decodes structures (struct stat, pollfd,
 * termios...); the trace shows their address. Paths are shown up to
 * PATH_SHOW bytes, strings and buffers up to STR_SHOW (strace's -s 32),
 * and at most IOV_SHOW pieces of a readv or writev.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "console/console.h"
#include "ferrite/errors.h"
#include "linux/lx.h"
#include "task/proc.h"
#include "uvm/uvm.h"

#define LINE_MAX 2048u                 /* the console room kept for one line */
#define STR_SHOW 32u                   /* bytes of a string or buffer shown */
#define PATH_SHOW 256u                 /* bytes of a path shown */
#define IOV_SHOW 8u                    /* pieces of a readv or writev shown */
#define IOV_MAX 1024u                  /* Linux's UIO_MAXIOV */
#define RESULT_COLUMN 39               /* strace's " = " starts here, at the least */
#define ERRNO_MAX 4095                 /* results -1 .. -4095 are errors */

/* How an argument reads. */
enum arg_kind {
	A_END = 0,     /* no more arguments */
	A_INT,         /* an int, in decimal (a descriptor, a count...) */
	A_UINT,        /* an unsigned int */
	A_LONG,        /* a signed 64-bit number (an offset) */
	A_ULONG,       /* an unsigned 64-bit number (a size) */
	A_HEX,         /* a number in hex */
	A_PTR,         /* an address: NULL or hex */
	A_DIRFD,       /* a directory descriptor: AT_FDCWD or a number */
	A_PATH,        /* a NUL-terminated path the call reads */
	A_PATH_OUT,    /* a NUL-terminated path the call writes (getcwd) */
	A_BUF_IN,      /* bytes the call reads, as many as the next argument */
	A_BUF_OUT,     /* bytes the call writes, as many as its result */
	A_RANDOM_OUT,  /* A_BUF_OUT shown in hex (getrandom) */
	A_IOV_IN,      /* struct iovec[next argument], bytes the call reads */
	A_IOV_OUT,     /* struct iovec[next argument], filled as its result says */
	A_TIMESPEC,    /* a struct timespec the call reads */
	A_OPEN_FLAGS,  /* open flags, and the mode (next argument) with O_CREAT */
	A_FD_FLAGS,    /* O_CLOEXEC and kin, without the access mode (dup3) */
	A_MODE,        /* a mode, in octal */
	A_ACCESS,      /* F_OK, or R_OK|W_OK|X_OK */
	A_AT_FLAGS,    /* AT_SYMLINK_NOFOLLOW, AT_REMOVEDIR, AT_EMPTY_PATH... */
	A_EACCESS,     /* faccessat2's flags: AT_EACCESS... */
	A_RENAME,      /* renameat2's flags */
	A_WHENCE,      /* SEEK_SET... */
	A_PROT,        /* PROT_READ|PROT_WRITE... or PROT_NONE */
	A_MAP,         /* MAP_PRIVATE|MAP_ANONYMOUS... */
	A_MADVISE,     /* MADV_... */
	A_IOCTL,       /* an ioctl request: TCGETS... */
	A_FCNTL,       /* an fcntl command and the argument it takes */
	A_PRCTL,       /* a prctl option and the arguments it takes */
	A_ARCH_PRCTL,  /* ARCH_SET_FS... */
	A_CLOCK,       /* CLOCK_REALTIME... */
	A_TIMER,       /* TIMER_ABSTIME or 0 */
	A_RLIMIT,      /* RLIMIT_STACK... */
	A_GRND,        /* GRND_NONBLOCK... */
};

/* How a result reads (a result from -1 to -4095 is an error, whatever the
 * kind). R_UNKNOWN: the call is not in the table. */
enum result_kind {
	R_UNKNOWN = 0,
	R_INT,         /* a number, in decimal */
	R_ADDR,        /* an address, in hex (mmap, brk) */
	R_MODE,        /* a mode, in octal (umask) */
	R_FCNTL,       /* fcntl's: F_GETFL's and F_GETFD's flags with names */
	R_NONE,        /* the call does not return (exit): shown before it runs */
};

struct call_kind {
	uint8_t result;                /* enum result_kind */
	uint8_t arg[6];                /* enum arg_kind, up to the first A_END */
};

#define CALL(r, ...) { .result = (r), .arg = { __VA_ARGS__ } }

/* How each call's arguments and result read, by number (names.c names
 * them); strace's formats. */
static const struct call_kind kinds[LX_NR_LIMIT] = {
	[LX_read] = CALL(R_INT, A_INT, A_BUF_OUT, A_ULONG),
	[LX_write] = CALL(R_INT, A_INT, A_BUF_IN, A_ULONG),
	[LX_open] = CALL(R_INT, A_PATH, A_OPEN_FLAGS),
	[LX_close] = CALL(R_INT, A_INT),
	[LX_stat] = CALL(R_INT, A_PATH, A_PTR),
	[LX_fstat] = CALL(R_INT, A_INT, A_PTR),
	[LX_lstat] = CALL(R_INT, A_PATH, A_PTR),
	[LX_poll] = CALL(R_INT, A_PTR, A_UINT, A_INT),
	[LX_lseek] = CALL(R_INT, A_INT, A_LONG, A_WHENCE),
	[LX_mmap] = CALL(R_ADDR, A_PTR, A_ULONG, A_PROT, A_MAP, A_INT, A_HEX),
	[LX_mprotect] = CALL(R_INT, A_PTR, A_ULONG, A_PROT),
	[LX_munmap] = CALL(R_INT, A_PTR, A_ULONG),
	[LX_brk] = CALL(R_ADDR, A_PTR),
	[LX_rt_sigaction] = CALL(R_INT, A_INT, A_PTR, A_PTR, A_ULONG),
	[LX_rt_sigprocmask] = CALL(R_INT, A_INT, A_PTR, A_PTR, A_ULONG),
	[LX_ioctl] = CALL(R_INT, A_INT, A_IOCTL, A_PTR),
	[LX_pread64] = CALL(R_INT, A_INT, A_BUF_OUT, A_ULONG, A_LONG),
	[LX_pwrite64] = CALL(R_INT, A_INT, A_BUF_IN, A_ULONG, A_LONG),
	[LX_readv] = CALL(R_INT, A_INT, A_IOV_OUT, A_INT),
	[LX_writev] = CALL(R_INT, A_INT, A_IOV_IN, A_INT),
	[LX_access] = CALL(R_INT, A_PATH, A_ACCESS),
	[LX_pipe] = CALL(R_INT, A_PTR),
	[LX_select] = CALL(R_INT, A_INT, A_PTR, A_PTR, A_PTR, A_PTR),
	[LX_sched_yield] = CALL(R_INT),
	[LX_mremap] = CALL(R_ADDR, A_PTR, A_ULONG, A_ULONG, A_HEX, A_PTR),
	[LX_msync] = CALL(R_INT, A_PTR, A_ULONG, A_HEX),
	[LX_madvise] = CALL(R_INT, A_PTR, A_ULONG, A_MADVISE),
	[LX_dup] = CALL(R_INT, A_INT),
	[LX_dup2] = CALL(R_INT, A_INT, A_INT),
	[LX_nanosleep] = CALL(R_INT, A_TIMESPEC, A_PTR),
	[LX_getpid] = CALL(R_INT),
	[LX_sendfile] = CALL(R_INT, A_INT, A_INT, A_PTR, A_ULONG),
	[LX_clone] = CALL(R_INT, A_HEX, A_PTR, A_PTR, A_PTR, A_HEX),
	[LX_fork] = CALL(R_INT),
	[LX_vfork] = CALL(R_INT),
	[LX_execve] = CALL(R_INT, A_PATH, A_PTR, A_PTR),
	[LX_exit] = CALL(R_NONE, A_INT),
	[LX_wait4] = CALL(R_INT, A_INT, A_PTR, A_HEX, A_PTR),
	[LX_waitid] = CALL(R_INT, A_INT, A_INT, A_PTR, A_HEX, A_PTR),
	[LX_kill] = CALL(R_INT, A_INT, A_INT),
	[LX_uname] = CALL(R_INT, A_PTR),
	[LX_fcntl] = CALL(R_FCNTL, A_INT, A_FCNTL),
	[LX_flock] = CALL(R_INT, A_INT, A_HEX),
	[LX_fsync] = CALL(R_INT, A_INT),
	[LX_fdatasync] = CALL(R_INT, A_INT),
	[LX_truncate] = CALL(R_INT, A_PATH, A_LONG),
	[LX_ftruncate] = CALL(R_INT, A_INT, A_LONG),
	[LX_getcwd] = CALL(R_INT, A_PATH_OUT, A_ULONG),
	[LX_chdir] = CALL(R_INT, A_PATH),
	[LX_fchdir] = CALL(R_INT, A_INT),
	[LX_rename] = CALL(R_INT, A_PATH, A_PATH),
	[LX_mkdir] = CALL(R_INT, A_PATH, A_MODE),
	[LX_rmdir] = CALL(R_INT, A_PATH),
	[LX_creat] = CALL(R_INT, A_PATH, A_MODE),
	[LX_link] = CALL(R_INT, A_PATH, A_PATH),
	[LX_unlink] = CALL(R_INT, A_PATH),
	[LX_symlink] = CALL(R_INT, A_PATH, A_PATH),
	[LX_readlink] = CALL(R_INT, A_PATH, A_BUF_OUT, A_ULONG),
	[LX_chmod] = CALL(R_INT, A_PATH, A_MODE),
	[LX_fchmod] = CALL(R_INT, A_INT, A_MODE),
	[LX_chown] = CALL(R_INT, A_PATH, A_INT, A_INT),
	[LX_fchown] = CALL(R_INT, A_INT, A_INT, A_INT),
	[LX_lchown] = CALL(R_INT, A_PATH, A_INT, A_INT),
	[LX_umask] = CALL(R_MODE, A_MODE),
	[LX_gettimeofday] = CALL(R_INT, A_PTR, A_PTR),
	[LX_getrlimit] = CALL(R_INT, A_RLIMIT, A_PTR),
	[LX_sysinfo] = CALL(R_INT, A_PTR),
	[LX_getuid] = CALL(R_INT),
	[LX_getgid] = CALL(R_INT),
	[LX_geteuid] = CALL(R_INT),
	[LX_getegid] = CALL(R_INT),
	[LX_setpgid] = CALL(R_INT, A_INT, A_INT),
	[LX_getppid] = CALL(R_INT),
	[LX_getpgrp] = CALL(R_INT),
	[LX_setsid] = CALL(R_INT),
	[LX_getpgid] = CALL(R_INT, A_INT),
	[LX_getsid] = CALL(R_INT, A_INT),
	[LX_sigaltstack] = CALL(R_INT, A_PTR, A_PTR),
	[LX_statfs] = CALL(R_INT, A_PATH, A_PTR),
	[LX_fstatfs] = CALL(R_INT, A_INT, A_PTR),
	[LX_prctl] = CALL(R_INT, A_PRCTL),
	[LX_arch_prctl] = CALL(R_INT, A_ARCH_PRCTL, A_HEX),
	[LX_setrlimit] = CALL(R_INT, A_RLIMIT, A_PTR),
	[LX_sync] = CALL(R_INT),
	[LX_gettid] = CALL(R_INT),
	[LX_time] = CALL(R_INT, A_PTR),
	[LX_futex] = CALL(R_INT, A_PTR, A_INT, A_INT, A_PTR, A_PTR, A_INT),
	[LX_getdents64] = CALL(R_INT, A_INT, A_PTR, A_ULONG),
	[LX_set_tid_address] = CALL(R_INT, A_PTR),
	[LX_clock_gettime] = CALL(R_INT, A_CLOCK, A_PTR),
	[LX_clock_getres] = CALL(R_INT, A_CLOCK, A_PTR),
	[LX_clock_nanosleep] = CALL(R_INT, A_CLOCK, A_TIMER, A_TIMESPEC, A_PTR),
	[LX_exit_group] = CALL(R_NONE, A_INT),
	[LX_tgkill] = CALL(R_INT, A_INT, A_INT, A_INT),
	[LX_openat] = CALL(R_INT, A_DIRFD, A_PATH, A_OPEN_FLAGS),
	[LX_mkdirat] = CALL(R_INT, A_DIRFD, A_PATH, A_MODE),
	[LX_fchownat] = CALL(R_INT, A_DIRFD, A_PATH, A_INT, A_INT, A_AT_FLAGS),
	[LX_newfstatat] = CALL(R_INT, A_DIRFD, A_PATH, A_PTR, A_AT_FLAGS),
	[LX_unlinkat] = CALL(R_INT, A_DIRFD, A_PATH, A_AT_FLAGS),
	[LX_renameat] = CALL(R_INT, A_DIRFD, A_PATH, A_DIRFD, A_PATH),
	[LX_linkat] = CALL(R_INT, A_DIRFD, A_PATH, A_DIRFD, A_PATH, A_AT_FLAGS),
	[LX_symlinkat] = CALL(R_INT, A_PATH, A_DIRFD, A_PATH),
	[LX_readlinkat] = CALL(R_INT, A_DIRFD, A_PATH, A_BUF_OUT, A_ULONG),
	[LX_fchmodat] = CALL(R_INT, A_DIRFD, A_PATH, A_MODE),
	[LX_faccessat] = CALL(R_INT, A_DIRFD, A_PATH, A_ACCESS),
	[LX_pselect6] = CALL(R_INT, A_INT, A_PTR, A_PTR, A_PTR, A_PTR, A_PTR),
	[LX_ppoll] = CALL(R_INT, A_PTR, A_UINT, A_PTR, A_PTR, A_ULONG),
	[LX_set_robust_list] = CALL(R_INT, A_PTR, A_ULONG),
	[LX_utimensat] = CALL(R_INT, A_DIRFD, A_PATH, A_PTR, A_AT_FLAGS),
	[LX_dup3] = CALL(R_INT, A_INT, A_INT, A_FD_FLAGS),
	[LX_pipe2] = CALL(R_INT, A_PTR, A_FD_FLAGS),
	[LX_prlimit64] = CALL(R_INT, A_INT, A_RLIMIT, A_PTR, A_PTR),
	[LX_syncfs] = CALL(R_INT, A_INT),
	[LX_renameat2] = CALL(R_INT, A_DIRFD, A_PATH, A_DIRFD, A_PATH, A_RENAME),
	[LX_getrandom] = CALL(R_INT, A_RANDOM_OUT, A_ULONG, A_GRND),
	[LX_statx] = CALL(R_INT, A_DIRFD, A_PATH, A_AT_FLAGS, A_HEX, A_PTR),
	[LX_rseq] = CALL(R_INT, A_PTR, A_HEX, A_HEX, A_HEX),
	[LX_faccessat2] = CALL(R_INT, A_DIRFD, A_PATH, A_ACCESS, A_EACCESS),
};

/* --- names of flags and values ------------------------------------------ */

struct xlat {
	uint64_t value;
	const char *name;
};

#define X(v) { LX_##v, #v }
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The open flags after the access mode, in strace's order. */
static const struct xlat open_flags[] = {
	X(O_CREAT), X(O_EXCL), X(O_NOCTTY), X(O_TRUNC), X(O_APPEND),
	X(O_NONBLOCK), X(O_SYNC), X(O_DSYNC), X(O_DIRECT), X(O_LARGEFILE),
	X(O_NOFOLLOW), X(O_NOATIME), X(O_CLOEXEC), X(O_PATH), X(O_TMPFILE),
	X(O_DIRECTORY), { LX_O_ASYNC, "FASYNC" },
};
static const struct xlat access_modes[] = {
	X(O_RDONLY), X(O_WRONLY), X(O_RDWR), X(O_ACCMODE),
};
static const struct xlat access_flags[] = { X(R_OK), X(W_OK), X(X_OK) };
static const struct xlat at_flags[] = {
	X(AT_SYMLINK_NOFOLLOW), X(AT_REMOVEDIR), X(AT_SYMLINK_FOLLOW),
	X(AT_NO_AUTOMOUNT), X(AT_EMPTY_PATH),
};
static const struct xlat eaccess_flags[] = {
	X(AT_SYMLINK_NOFOLLOW), X(AT_EACCESS), X(AT_EMPTY_PATH),
};
static const struct xlat rename_flags[] = {
	X(RENAME_NOREPLACE), X(RENAME_EXCHANGE), X(RENAME_WHITEOUT),
};
static const struct xlat whences[] = {
	X(SEEK_SET), X(SEEK_CUR), X(SEEK_END), X(SEEK_DATA), X(SEEK_HOLE),
};
static const struct xlat prots[] = {
	X(PROT_READ), X(PROT_WRITE), X(PROT_EXEC), X(PROT_SEM),
	X(PROT_GROWSDOWN), X(PROT_GROWSUP),
};
static const struct xlat map_types[] = {
	{ 0, "MAP_FILE" }, X(MAP_SHARED), X(MAP_PRIVATE), X(MAP_SHARED_VALIDATE),
};
static const struct xlat map_flags[] = {
	X(MAP_FIXED), X(MAP_ANONYMOUS), X(MAP_32BIT), X(MAP_NORESERVE),
	X(MAP_POPULATE), X(MAP_NONBLOCK), X(MAP_GROWSDOWN), X(MAP_DENYWRITE),
	X(MAP_EXECUTABLE), X(MAP_LOCKED), X(MAP_STACK), X(MAP_HUGETLB),
	X(MAP_SYNC), X(MAP_FIXED_NOREPLACE),
};
static const struct xlat madvices[] = {
	X(MADV_NORMAL), X(MADV_RANDOM), X(MADV_SEQUENTIAL), X(MADV_WILLNEED),
	X(MADV_DONTNEED), X(MADV_FREE),
};
static const struct xlat ioctls[] = {
	X(TCGETS), X(TCSETS), X(TCSETSW), X(TCSETSF), X(TIOCGPGRP),
	X(TIOCSPGRP), X(TIOCGWINSZ), X(TIOCSWINSZ), X(FIONREAD),
};
static const struct xlat fcntls[] = {
	X(F_DUPFD), X(F_GETFD), X(F_SETFD), X(F_GETFL), X(F_SETFL),
	X(F_GETLK), X(F_SETLK), X(F_SETLKW), X(F_DUPFD_CLOEXEC),
};
static const struct xlat fd_flags[] = { X(FD_CLOEXEC) };
static const struct xlat prctls[] = { X(PR_SET_NAME), X(PR_GET_NAME) };
static const struct xlat arch_prctls[] = {
	X(ARCH_SET_GS), X(ARCH_SET_FS), X(ARCH_GET_FS), X(ARCH_GET_GS),
};
static const struct xlat clocks[] = {
	X(CLOCK_REALTIME), X(CLOCK_MONOTONIC), X(CLOCK_PROCESS_CPUTIME_ID),
	X(CLOCK_THREAD_CPUTIME_ID), X(CLOCK_MONOTONIC_RAW),
	X(CLOCK_REALTIME_COARSE), X(CLOCK_MONOTONIC_COARSE), X(CLOCK_BOOTTIME),
	X(CLOCK_REALTIME_ALARM), X(CLOCK_BOOTTIME_ALARM), X(CLOCK_TAI),
};
static const struct xlat timer_flags[] = { X(TIMER_ABSTIME) };
static const struct xlat rlimits[] = {
	X(RLIMIT_CPU), X(RLIMIT_FSIZE), X(RLIMIT_DATA), X(RLIMIT_STACK),
	X(RLIMIT_CORE), X(RLIMIT_RSS), X(RLIMIT_NPROC), X(RLIMIT_NOFILE),
	X(RLIMIT_MEMLOCK), X(RLIMIT_AS), X(RLIMIT_LOCKS), X(RLIMIT_SIGPENDING),
	X(RLIMIT_MSGQUEUE), X(RLIMIT_NICE), X(RLIMIT_RTPRIO), X(RLIMIT_RTTIME),
};
static const struct xlat grnd_flags[] = {
	X(GRND_NONBLOCK), X(GRND_RANDOM), X(GRND_INSECURE),
};

/* --- the line --------------------------------------------------------------- */

/* One line, built in place: the kernel runs one call at a time. Volatile. */
static struct {
	char text[LINE_MAX];
	size_t len;                    /* < LINE_MAX - sizeof(CUT) */
	bool cut;                      /* something did not fit */
} line;

#define CUT "...\n"                    /* the end of a line that did not fit */

/* put -- append formatted text to the line, as much as fits */
static __attribute__((format(printf, 1, 2))) void put(const char *fmt, ...)
{
	size_t room = sizeof(line.text) - sizeof(CUT) - line.len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line.text + line.len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		line.len += room - 1;
		line.cut = true;
	} else {
		line.len += (size_t)n;
	}
}

/* put_quoted -- bytes as strace quotes them: in double quotes, with \" \\
 * \t \n \v \f \r, printable bytes as they are and the others in octal
 * (three digits when an octal digit follows); every byte as \xNN with `hex` */
static void put_quoted(const uint8_t *b, size_t n, bool hex)
{
	static const char esc[] = "\t\n\v\f\r";
	static const char letter[] = "tnvfr";

	put("\"");
	for (size_t i = 0; i < n; i++) {
		const char *e = b[i] ? memchr(esc, b[i], sizeof(esc) - 1) : NULL;

		if (hex)
			put("\\x%02x", b[i]);
		else if (b[i] == '"' || b[i] == '\\')
			put("\\%c", b[i]);
		else if (e)
			put("\\%c", letter[e - esc]);
		else if (b[i] >= ' ' && b[i] < 0x7f)
			put("%c", b[i]);
		else if (i + 1 < n && b[i + 1] >= '0' && b[i + 1] <= '7')
			put("\\%03o", b[i]);
		else
			put("\\%o", b[i]);
	}
	put("\"");
}

/* put_addr -- an address as strace shows a pointer: NULL or hex */
static void put_addr(uint64_t at)
{
	if (at)
		put("%#llx", (unsigned long long)at);
	else
		put("NULL");
}

/* put_bytes -- `len` bytes of the program's memory at `at`: the first
 * STR_SHOW quoted, and "..." after them if there were more; its address
 * if they cannot be read */
static void put_bytes(struct lxcall *c, uint64_t at, uint64_t len, bool hex)
{
	uint8_t bytes[STR_SHOW];
	size_t n = len < STR_SHOW ? (size_t)len : STR_SHOW;

	if (!at || uvm_copy_in(&c->p->mem, bytes, at, n)) {
		put_addr(at);
		return;
	}
	put_quoted(bytes, n, hex);
	if (len > n)
		put("...");
}

/* put_string -- the NUL-terminated string at `at`: at most `show` bytes,
 * then "..." if it goes on; its address if it cannot be read */
static void put_string(struct lxcall *c, uint64_t at, size_t show)
{
	static uint8_t text[PATH_SHOW + 1];
	int n = at ? uvm_copy_string(&c->p->mem, (char *)text, at, show + 1) : -ERR_FAULT;

	if (n == -ERR_TOOBIG) {
		put_quoted(text, show, false);
		put("...");
	} else if (n < 0) {
		put_addr(at);
	} else {
		put_quoted(text, (size_t)n, false);
	}
}

/* put_flags -- value as the names of its bits in the table's order, joined
 * by '|', and any other bits in hex; `zero` for 0 */
static void put_flags(uint64_t value, const struct xlat *x, size_t count, const char *zero)
{
	bool any = false;

	if (!value) {
		put("%s", zero);
		return;
	}
	for (size_t i = 0; i < count; i++)
		if (x[i].value && (value & x[i].value) == x[i].value) {
			put("%s%s", any ? "|" : "", x[i].name);
			value &= ~x[i].value;
			any = true;
		}
	if (value)
		put("%s%#llx", any ? "|" : "", (unsigned long long)value);
}

/* name_of -- the name of value in the table, NULL if it has none */
static const char *name_of(uint64_t value, const struct xlat *x, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (x[i].value == value)
			return x[i].name;
	return NULL;
}

/* put_value -- value's name, or as strace shows an unknown one:
 * "0x9 /" "* SEEK_??? *" "/" */
static void put_value(uint64_t value, const struct xlat *x, size_t count, const char *unknown)
{
	const char *name = name_of(value, x, count);

	if (name)
		put("%s", name);
	else
		put("%#llx /* %s */", (unsigned long long)value, unknown);
}

#define FLAGS(v, table, zero) put_flags((v), (table), COUNT(table), (zero))
#define VALUE(v, table, unknown) put_value((v), (table), COUNT(table), (unknown))

/* --- arguments -------------------------------------------------------------- */

/* put_open_flags -- open flags: the access mode, then the other flags */
static void put_open_flags(uint64_t flags)
{
	VALUE(flags & LX_O_ACCMODE, access_modes, "O_???");
	if (flags & ~(uint64_t)LX_O_ACCMODE) {
		put("|");
		FLAGS(flags & ~(uint64_t)LX_O_ACCMODE, open_flags, "");
	}
}

/* put_mode -- a mode (or umask) in octal, as strace shows it: 0644, 022 */
static void put_mode(uint64_t mode)
{
	put("%#03llo", (unsigned long long)(mode & 0xffffffffu));
}

/* put_iov -- a struct iovec array of `count` pieces: each piece's bytes,
 * at most `total` of them in all (what the call read or wrote) */
static void put_iov(struct lxcall *c, uint64_t at, uint64_t count, uint64_t total)
{
	struct lx_iovec v[IOV_SHOW];
	uint64_t n = count < IOV_SHOW ? count : IOV_SHOW;

	if (count > IOV_MAX || uvm_copy_in(&c->p->mem, v, at, n * sizeof(v[0]))) {
		put_addr(at);
		return;
	}
	put("[");
	for (uint64_t k = 0; k < n; k++) {
		uint64_t len = v[k].len < total ? v[k].len : total;

		put("%s{iov_base=", k ? ", " : "");
		put_bytes(c, v[k].base, len, false);
		put(", iov_len=%llu}", (unsigned long long)v[k].len);
		total -= len;
	}
	put("%s]", count > n ? ", ..." : "");
}

/* put_timespec -- a struct timespec the call reads */
static void put_timespec(struct lxcall *c, uint64_t at)
{
	struct lx_timespec ts;

	if (!at || uvm_copy_in(&c->p->mem, &ts, at, sizeof(ts)))
		put_addr(at);
	else
		put("{tv_sec=%lld, tv_nsec=%lld}", (long long)ts.sec, (long long)ts.nsec);
}

/* put_ioctl -- an ioctl request: its name, or hex (strace spells out an
 * unknown request's fields) */
static void put_ioctl(uint64_t request)
{
	const char *name = name_of(request, ioctls, COUNT(ioctls));

	if (name)
		put("%s", name);
	else
		put("%#llx", (unsigned long long)request);
}

/* put_fcntl -- fcntl's command, and its argument if it takes one */
static void put_fcntl(struct lxcall *c, unsigned i)
{
	const uint64_t cmd = c->arg[i] & 0xffffffffu, arg = c->arg[i + 1];

	VALUE(cmd, fcntls, "F_???");
	switch (cmd) {
	case LX_F_GETFD:
	case LX_F_GETFL:
		return;
	case LX_F_DUPFD:
	case LX_F_DUPFD_CLOEXEC:
		put(", %d", (int)arg);
		return;
	case LX_F_SETFD:
		put(", ");
		FLAGS(arg, fd_flags, "0");
		return;
	case LX_F_SETFL:
		put(", ");
		put_open_flags(arg & 0xffffffffu);
		return;
	default:
		put(", ");
		put_addr(arg);
	}
}

/* put_prctl -- prctl's option, and the arguments it takes */
static void put_prctl(struct lxcall *c, unsigned i, int64_t result)
{
	const uint64_t option = c->arg[i] & 0xffffffffu;

	VALUE(option, prctls, "PR_???");
	if (option == LX_PR_SET_NAME || (option == LX_PR_GET_NAME && result >= 0)) {
		put(", ");
		put_string(c, c->arg[i + 1], LX_TASK_COMM_LEN - 1);
	} else if (option == LX_PR_GET_NAME) {
		put(", ");
		put_addr(c->arg[i + 1]);
	} else {
		for (unsigned k = i + 1; k < 5; k++)
			put(", %#llx", (unsigned long long)c->arg[k]);
	}
}

/* is_error -- whether a result is an error (-1 .. -4095) */
static bool is_error(int64_t result)
{
	return result < 0 && result >= -ERRNO_MAX;
}

/* put_arg -- argument i of call c, which returned `result`, of `kind` */
static void put_arg(struct lxcall *c, unsigned i, uint8_t kind, int64_t result)
{
	const uint64_t a = c->arg[i];
	const bool failed = is_error(result);

	switch (kind) {
	case A_INT: put("%d", (int)a); break;
	case A_UINT: put("%u", (unsigned)a); break;
	case A_LONG: put("%lld", (long long)a); break;
	case A_ULONG: put("%llu", (unsigned long long)a); break;
	case A_HEX: put("%#llx", (unsigned long long)a); break;
	case A_PTR: put_addr(a); break;
	case A_DIRFD:
		if ((int)a == LX_AT_FDCWD)
			put("AT_FDCWD");
		else
			put("%d", (int)a);
		break;
	case A_PATH: put_string(c, a, PATH_SHOW); break;
	case A_PATH_OUT:
		if (failed)
			put_addr(a);
		else
			put_string(c, a, PATH_SHOW);
		break;
	case A_BUF_IN: put_bytes(c, a, c->arg[i + 1], false); break;
	case A_BUF_OUT:
	case A_RANDOM_OUT:
		if (failed)
			put_addr(a);
		else
			put_bytes(c, a, (uint64_t)result, kind == A_RANDOM_OUT);
		break;
	case A_IOV_IN: put_iov(c, a, c->arg[i + 1], UINT64_MAX); break;
	case A_IOV_OUT:
		if (failed)
			put_addr(a);
		else
			put_iov(c, a, c->arg[i + 1], (uint64_t)result);
		break;
	case A_TIMESPEC: put_timespec(c, a); break;
	case A_OPEN_FLAGS:
		put_open_flags(a & 0xffffffffu);
		if (a & LX_O_CREAT || (a & LX_O_TMPFILE) == LX_O_TMPFILE) {
			put(", "); /* the call makes a file: the mode after */
			put_mode(c->arg[i + 1]);
		}
		break;
	case A_FD_FLAGS: FLAGS(a & 0xffffffffu, open_flags, "0"); break;
	case A_MODE: put_mode(a); break;
	case A_ACCESS: FLAGS(a & 0xffffffffu, access_flags, "F_OK"); break;
	case A_AT_FLAGS: FLAGS(a & 0xffffffffu, at_flags, "0"); break;
	case A_EACCESS: FLAGS(a & 0xffffffffu, eaccess_flags, "0"); break;
	case A_RENAME: FLAGS(a & 0xffffffffu, rename_flags, "0"); break;
	case A_WHENCE: VALUE(a & 0xffffffffu, whences, "SEEK_???"); break;
	case A_PROT: FLAGS(a & 0xffffffffu, prots, "PROT_NONE"); break;
	case A_MAP:
		VALUE(a & LX_MAP_TYPE, map_types, "MAP_???");
		if (a & 0xffffffffu & ~(uint64_t)LX_MAP_TYPE) {
			put("|");
			FLAGS(a & 0xffffffffu & ~(uint64_t)LX_MAP_TYPE, map_flags, "");
		}
		break;
	case A_MADVISE: VALUE(a & 0xffffffffu, madvices, "MADV_???"); break;
	case A_IOCTL: put_ioctl(a & 0xffffffffu); break;
	case A_FCNTL: put_fcntl(c, i); break;
	case A_PRCTL: put_prctl(c, i, result); break;
	case A_ARCH_PRCTL: VALUE(a & 0xffffffffu, arch_prctls, "ARCH_???"); break;
	case A_CLOCK: VALUE(a & 0xffffffffu, clocks, "CLOCK_???"); break;
	case A_TIMER: FLAGS(a & 0xffffffffu, timer_flags, "0"); break;
	case A_RLIMIT: VALUE(a & 0xffffffffu, rlimits, "RLIMIT_???"); break;
	case A_GRND: FLAGS(a & 0xffffffffu, grnd_flags, "0"); break;
	}
}

/* --- the call --------------------------------------------------------------- */

/* put_call -- "name(arguments)" */
static void put_call(struct lxcall *c, const struct call_kind *k, int64_t result)
{
	const char *name = lx_call_name(c->nr);

	if (name)
		put("%s(", name);
	else
		put("syscall_%#llx(", (unsigned long long)c->nr);
	for (unsigned i = 0; i < 6; i++) {
		if (k->result == R_UNKNOWN) {
			put("%s%#llx", i ? ", " : "", (unsigned long long)c->arg[i]);
			continue;
		}
		if (k->arg[i] == A_END)
			break;
		if (i)
			put(", ");
		put_arg(c, i, k->arg[i], result);
	}
	put(")");
}

/* put_result -- " = result", from strace's column on */
static void put_result(struct lxcall *c, const struct call_kind *k, int64_t result)
{
	const char *name, *text;

	if (line.len < RESULT_COLUMN)
		put("%*s", (int)(RESULT_COLUMN - line.len), "");
	if (k->result == R_NONE) {
		put(" = ?");
	} else if (result == -LX_ERESTARTSYS) { /* a signal's handler first (signal.c) */
		put(" = ? ERESTARTSYS (To be restarted if SA_RESTART is set)");
	} else if (is_error(result)) {
		name = lx_errno_name(-result, &text);
		if (name)
			put(" = -1 %s (%s)", name, text);
		else
			put(" = -1 (errno %lld)", (long long)-result);
	} else if (k->result == R_ADDR) {
		put(" = %#llx", (unsigned long long)result);
	} else if (k->result == R_MODE) {
		put(" = ");
		put_mode((uint64_t)result);
	} else if (k->result == R_FCNTL && (c->arg[1] & 0xffffffffu) == LX_F_GETFL) {
		put(" = %#llx (flags ", (unsigned long long)result);
		put_open_flags((uint64_t)result);
		put(")");
	} else if (k->result == R_FCNTL && (c->arg[1] & 0xffffffffu) == LX_F_GETFD && result) {
		put(" = %#llx (flags ", (unsigned long long)result);
		FLAGS((uint64_t)result, fd_flags, "0");
		put(")");
	} else {
		put(" = %lld", (long long)result);
	}
}

/* say -- the line of call c, which returned `result`, on its console */
static void say(struct lxcall *c, const struct call_kind *k, int64_t result)
{
	line.len = 0;
	line.cut = false;
	put_call(c, k, result);
	put_result(c, k, result);
	if (k->result == R_NONE)
		put("\n+++ exited with %d +++", (int)(c->arg[0] & 0xff));
	memcpy(line.text + line.len, line.cut ? CUT : "\n", line.cut ? sizeof(CUT) - 1 : 1);
	line.len += line.cut ? sizeof(CUT) - 1 : 1;
	console_say(c->p, line.text, line.len);
}

/* kind_of -- how call c reads */
static const struct call_kind *kind_of(const struct lxcall *c)
{
	static const struct call_kind unknown = { .result = R_UNKNOWN };

	return c->nr < LX_NR_LIMIT ? &kinds[c->nr] : &unknown;
}

/* lx_trace_begin -- before a call of a traced program: room for its line
 * kept on its console, and the line of a call that never returns said
 * now; 0, or SYSCALL_BLOCKED with the call blocked until there is room */
int64_t lx_trace_begin(struct lxcall *c)
{
	int64_t err = console_keep(c->tf, c->p, LINE_MAX);

	if (err)
		return err;
	if (kind_of(c)->result == R_NONE)
		say(c, kind_of(c), 0);
	return 0;
}

/* lx_trace_end -- after a call of a traced program: its line (none yet
 * for a call that blocked: it is said when the call completes) */
void lx_trace_end(struct lxcall *c, int64_t result)
{
	if (result == SYSCALL_BLOCKED || result == SYSCALL_GONE || kind_of(c)->result == R_NONE)
		console_say(NULL, NULL, 0); /* the room back (said before a call that ends) */
	else
		say(c, kind_of(c), result);
}
