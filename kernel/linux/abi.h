/*
 * abi.h -- what Linux x86-64 programs see of a kernel: system-call
 * numbers, errno values, flags and the layouts the calls fill in.
 *
 * Written from the Linux x86-64 ABI (the kernel's uapi headers and
 * syscall_64.tbl define these values; they never change). Only what
 * kernel/linux/ uses is here, and docs/linux.md lists the calls.
 */
#ifndef LINUX_ABI_H
#define LINUX_ABI_H

#include <stdint.h>

/* System-call numbers. */
enum lx_nr {
	LX_read = 0, LX_write = 1, LX_open = 2, LX_close = 3, LX_stat = 4,
	LX_fstat = 5, LX_lstat = 6, LX_poll = 7, LX_lseek = 8, LX_mmap = 9,
	LX_mprotect = 10, LX_munmap = 11, LX_brk = 12, LX_rt_sigaction = 13,
	LX_rt_sigprocmask = 14, LX_rt_sigreturn = 15, LX_ioctl = 16,
	LX_pread64 = 17, LX_pwrite64 = 18, LX_readv = 19, LX_writev = 20,
	LX_access = 21, LX_pipe = 22, LX_select = 23, LX_sched_yield = 24,
	LX_mremap = 25, LX_msync = 26, LX_madvise = 28, LX_dup = 32,
	LX_dup2 = 33, LX_nanosleep = 35, LX_getpid = 39, LX_exit = 60,
	LX_kill = 62, LX_uname = 63, LX_fcntl = 72, LX_flock = 73, LX_fsync = 74,
	LX_fdatasync = 75, LX_getcwd = 79, LX_chdir = 80, LX_getrlimit = 97, LX_sysinfo = 99,
	LX_getuid = 102, LX_getgid = 104, LX_geteuid = 107, LX_getegid = 108,
	LX_getppid = 110, LX_getpgrp = 111, LX_gettimeofday = 96,
	LX_prctl = 157, LX_getdents64 = 217, LX_readlink = 89,
	LX_readlinkat = 267, LX_setpgid = 109, LX_getpgid = 121, LX_getsid = 124,
	LX_setsid = 112, LX_ppoll = 271, LX_ftruncate = 77,
	LX_rename = 82, LX_mkdir = 83, LX_rmdir = 84, LX_link = 86, LX_unlink = 87,
	LX_umask = 95, LX_sync = 162, LX_syncfs = 306, LX_mkdirat = 258,
	LX_fchown = 93, LX_unlinkat = 263, LX_renameat = 264, LX_linkat = 265, LX_renameat2 = 316,
	LX_arch_prctl = 158, LX_gettid = 186, LX_time = 201,
	LX_set_tid_address = 218, LX_clock_gettime = 228,
	LX_clock_getres = 229, LX_clock_nanosleep = 230, LX_exit_group = 231,
	LX_tgkill = 234, LX_openat = 257, LX_newfstatat = 262,
	LX_faccessat = 269, LX_pselect6 = 270, LX_set_robust_list = 273,
	LX_dup3 = 292, LX_pipe2 = 293,
	LX_prlimit64 = 302, LX_getrandom = 318, LX_rseq = 334,
	LX_faccessat2 = 439, LX_rt_sigpending = 127, LX_rt_sigsuspend = 130,
	LX_sigaltstack = 131, LX_pause = 34, LX_alarm = 37, LX_getitimer = 36,
	LX_setitimer = 38, LX_tkill = 200, LX_wait4 = 61,
	LX_utimensat = 280, LX_chmod = 90, LX_fchmod = 91, LX_clone = 56,
	LX_futex = 202, LX_clone3 = 435,
	LX_chown = 92, LX_lchown = 94, LX_fchownat = 260, LX_fchmodat = 268,
	/* calls the kernel lacks, named for the trace (trace.c) */
	LX_fork = 57, LX_vfork = 58, LX_execve = 59, LX_waitid = 247,
	LX_sendfile = 40,
	LX_truncate = 76, LX_fchdir = 81, LX_creat = 85, LX_symlink = 88,
	LX_statfs = 137, LX_fstatfs = 138, LX_setrlimit = 160,
	LX_symlinkat = 266, LX_statx = 332,
	LX_NR_LIMIT = 512,             /* numbers the dispatcher knows of */
};

/* clone flags (its first argument; the low byte is the exit signal) */
#define LX_CLONE_VM 0x00000100u
#define LX_CLONE_FS 0x00000200u
#define LX_CLONE_FILES 0x00000400u
#define LX_CLONE_SIGHAND 0x00000800u
#define LX_CLONE_VFORK 0x00004000u
#define LX_CLONE_THREAD 0x00010000u
#define LX_CLONE_SYSVSEM 0x00040000u
#define LX_CLONE_SETTLS 0x00080000u
#define LX_CLONE_PARENT_SETTID 0x00100000u
#define LX_CLONE_CHILD_CLEARTID 0x00200000u
#define LX_CLONE_DETACHED 0x00400000u  /* ignored, as by Linux */
#define LX_CLONE_CHILD_SETTID 0x01000000u

/* futex operations (its second argument) */
#define LX_FUTEX_WAIT 0
#define LX_FUTEX_WAKE 1
#define LX_FUTEX_REQUEUE 3
#define LX_FUTEX_CMP_REQUEUE 4
#define LX_FUTEX_WAIT_BITSET 9
#define LX_FUTEX_WAKE_BITSET 10
#define LX_FUTEX_PRIVATE_FLAG 128
#define LX_FUTEX_CLOCK_REALTIME 256
#define LX_FUTEX_CMD_MASK 0x7fu

/* errno */
#define LX_EPERM 1
#define LX_ENOENT 2
#define LX_ESRCH 3
#define LX_EINTR 4
#define LX_EIO 5
#define LX_E2BIG 7
#define LX_ENOEXEC 8
#define LX_EBADF 9
#define LX_ECHILD 10
#define LX_EAGAIN 11
#define LX_ENOMEM 12
#define LX_EACCES 13
#define LX_EFAULT 14
#define LX_EBUSY 16
#define LX_EEXIST 17
#define LX_EXDEV 18
#define LX_ENOTDIR 20
#define LX_EISDIR 21
#define LX_EINVAL 22
#define LX_EMFILE 24
#define LX_ENOTTY 25
#define LX_ENOSPC 28
#define LX_ESPIPE 29
#define LX_EPIPE 32
#define LX_ERANGE 34
#define LX_ENAMETOOLONG 36
#define LX_ENOLCK 37
#define LX_ENOSYS 38
#define LX_ENOTEMPTY 39
#define LX_ELOOP 40
#define LX_ELIBBAD 80
#define LX_EOPNOTSUPP 95
#define LX_ECONNRESET 104
#define LX_ETIMEDOUT 110
#define LX_ERESTARTSYS 512             /* never seen by programs: a call made again after a handler */

/* open flags */
#define LX_O_ACCMODE 03
#define LX_O_RDONLY 00
#define LX_O_WRONLY 01
#define LX_O_RDWR 02
#define LX_O_CREAT 0100
#define LX_O_EXCL 0200
#define LX_O_NOCTTY 0400
#define LX_O_TRUNC 01000
#define LX_O_APPEND 02000
#define LX_O_NONBLOCK 04000
#define LX_O_DSYNC 010000
#define LX_O_DIRECTORY 0200000
#define LX_O_NOFOLLOW 0400000
#define LX_O_CLOEXEC 02000000
#define LX_O_LARGEFILE 0100000
#define LX_O_ASYNC 020000
#define LX_O_DIRECT 040000
#define LX_O_NOATIME 01000000
#define LX_O_SYNC 04010000             /* O_DSYNC among its bits */
#define LX_O_PATH 010000000
#define LX_O_TMPFILE 020200000         /* O_DIRECTORY among its bits */
#define LX_AT_FDCWD (-100)
#define LX_AT_SYMLINK_NOFOLLOW 0x100
#define LX_AT_EACCESS 0x200
#define LX_AT_EMPTY_PATH 0x1000
#define LX_AT_REMOVEDIR 0x200
#define LX_AT_SYMLINK_FOLLOW 0x400
#define LX_AT_NO_AUTOMOUNT 0x800

/* access, faccessat (F_OK is 0: none of these) */
#define LX_X_OK 1
#define LX_W_OK 2
#define LX_R_OK 4

/* renameat2 */
#define LX_RENAME_NOREPLACE 1
#define LX_RENAME_EXCHANGE 2
#define LX_RENAME_WHITEOUT 4

/* fcntl */
#define LX_F_DUPFD 0
#define LX_F_GETFD 1
#define LX_F_SETFD 2
#define LX_F_GETFL 3
#define LX_F_SETFL 4
#define LX_F_GETLK 5
#define LX_F_SETLK 6
#define LX_F_SETLKW 7
#define LX_F_DUPFD_CLOEXEC 1030
#define LX_F_RDLCK 0
#define LX_F_WRLCK 1
#define LX_F_UNLCK 2

/* struct flock (F_GETLK, F_SETLK) */
struct lx_flock {
	int16_t type, whence;
	int64_t start, len;
	int32_t pid;
	int32_t pad;
};
#define LX_FD_CLOEXEC 1

/* flock operations */
#define LX_LOCK_SH 1
#define LX_LOCK_EX 2
#define LX_LOCK_NB 4
#define LX_LOCK_UN 8

/* lseek */
#define LX_SEEK_SET 0
#define LX_SEEK_CUR 1
#define LX_SEEK_END 2
#define LX_SEEK_DATA 3
#define LX_SEEK_HOLE 4

/* mmap, mprotect */
#define LX_PROT_READ 0x1
#define LX_PROT_WRITE 0x2
#define LX_PROT_EXEC 0x4
#define LX_PROT_SEM 0x8
#define LX_PROT_GROWSDOWN 0x01000000
#define LX_PROT_GROWSUP 0x02000000
#define LX_MAP_SHARED 0x01
#define LX_MAP_PRIVATE 0x02
#define LX_MAP_SHARED_VALIDATE 0x03
#define LX_MAP_TYPE 0x0f
#define LX_MAP_FIXED 0x10
#define LX_MAP_ANONYMOUS 0x20
#define LX_MAP_32BIT 0x40
#define LX_MAP_GROWSDOWN 0x100
#define LX_MAP_DENYWRITE 0x800
#define LX_MAP_EXECUTABLE 0x1000
#define LX_MAP_LOCKED 0x2000
#define LX_MAP_NORESERVE 0x4000
#define LX_MAP_POPULATE 0x8000
#define LX_MAP_NONBLOCK 0x10000
#define LX_MAP_STACK 0x20000
#define LX_MAP_HUGETLB 0x40000
#define LX_MAP_SYNC 0x80000
#define LX_MAP_FIXED_NOREPLACE 0x100000

/* mremap flags */
#define LX_MREMAP_MAYMOVE 1
#define LX_MREMAP_FIXED 2
#define LX_MREMAP_DONTUNMAP 4

/* madvise */
#define LX_MADV_NORMAL 0
#define LX_MADV_RANDOM 1
#define LX_MADV_SEQUENTIAL 2
#define LX_MADV_WILLNEED 3
#define LX_MADV_DONTNEED 4
#define LX_MADV_FREE 8

/* prctl */
#define LX_PR_SET_NAME 15
#define LX_PR_GET_NAME 16
#define LX_TASK_COMM_LEN 16

/* arch_prctl */
#define LX_ARCH_SET_GS 0x1001
#define LX_ARCH_SET_FS 0x1002
#define LX_ARCH_GET_FS 0x1003
#define LX_ARCH_GET_GS 0x1004

/* clocks */
#define LX_CLOCK_REALTIME 0
#define LX_CLOCK_MONOTONIC 1
#define LX_CLOCK_PROCESS_CPUTIME_ID 2
#define LX_CLOCK_THREAD_CPUTIME_ID 3
#define LX_CLOCK_MONOTONIC_RAW 4
#define LX_CLOCK_REALTIME_COARSE 5
#define LX_CLOCK_MONOTONIC_COARSE 6
#define LX_CLOCK_BOOTTIME 7
#define LX_CLOCK_REALTIME_ALARM 8
#define LX_CLOCK_BOOTTIME_ALARM 9
#define LX_CLOCK_TAI 11
#define LX_TIMER_ABSTIME 1

/* rlimits */
#define LX_RLIMIT_CPU 0
#define LX_RLIMIT_FSIZE 1
#define LX_RLIMIT_DATA 2
#define LX_RLIMIT_STACK 3
#define LX_RLIMIT_CORE 4
#define LX_RLIMIT_RSS 5
#define LX_RLIMIT_NPROC 6
#define LX_RLIMIT_NOFILE 7
#define LX_RLIMIT_MEMLOCK 8
#define LX_RLIMIT_AS 9
#define LX_RLIMIT_LOCKS 10
#define LX_RLIMIT_SIGPENDING 11
#define LX_RLIMIT_MSGQUEUE 12
#define LX_RLIMIT_NICE 13
#define LX_RLIMIT_RTPRIO 14
#define LX_RLIMIT_RTTIME 15
#define LX_RLIMIT_NLIMITS 16
#define LX_RLIM_INFINITY (~0ull)

/* ioctl on terminals */
#define LX_TCGETS 0x5401
#define LX_TCSETS 0x5402
#define LX_TCSETSW 0x5403
#define LX_TCSETSF 0x5404
#define LX_TIOCGPGRP 0x540f
#define LX_TIOCSPGRP 0x5410
#define LX_TIOCGWINSZ 0x5413
#define LX_TIOCSWINSZ 0x5414
#define LX_FIONREAD 0x541b
#define LX_ICANON 0000002
#define LX_ECHO 0000010

/* getrandom */
#define LX_GRND_NONBLOCK 0x1
#define LX_GRND_RANDOM 0x2
#define LX_GRND_INSECURE 0x4

/* The process start: auxiliary vector entries. */
#define LX_AT_NULL 0
#define LX_AT_PHDR 3
#define LX_AT_PHENT 4
#define LX_AT_PHNUM 5
#define LX_AT_PAGESZ 6
#define LX_AT_BASE 7
#define LX_AT_FLAGS 8
#define LX_AT_ENTRY 9
#define LX_AT_UID 11
#define LX_AT_EUID 12
#define LX_AT_GID 13
#define LX_AT_EGID 14
#define LX_AT_PLATFORM 15
#define LX_AT_HWCAP 16
#define LX_AT_CLKTCK 17
#define LX_AT_SECURE 23
#define LX_AT_RANDOM 25
#define LX_AT_EXECFN 31

/* struct stat as x86-64 Linux fills it (stat, fstat, newfstatat) */
#define LX_S_IFMT 0170000
#define LX_S_IFDIR 0040000
#define LX_S_IFCHR 0020000
#define LX_S_IFIFO 0010000
#define LX_S_IFREG 0100000

struct lx_stat {
	uint64_t dev, ino, nlink;
	uint32_t mode, uid, gid, pad0;
	uint64_t rdev;
	int64_t size, blksize, blocks;
	int64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
	int64_t reserved[3];
};
_Static_assert(sizeof(struct lx_stat) == 144, "struct stat of x86-64 Linux");

/* struct statx (statx); its timestamps */
struct lx_statx_time {
	int64_t sec;
	uint32_t nsec;
	int32_t reserved;
};

struct lx_statx {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	struct lx_statx_time atime, btime, ctime, mtime;
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t mnt_id;
	uint32_t dio_mem_align, dio_offset_align;
	uint64_t spare[12];
};
_Static_assert(sizeof(struct lx_statx) == 256, "struct statx of Linux");
_Static_assert(__builtin_offsetof(struct lx_statx, mtime) == 112, "statx's mtime");
_Static_assert(__builtin_offsetof(struct lx_statx, rdev_major) == 128, "statx's rdev");
#define LX_STATX_BASIC_STATS 0x7ffu     /* type, mode, nlink, uid, gid, times, ino, size, blocks */
#define LX_STATX_RESERVED 0x80000000u
#define LX_AT_STATX_SYNC_TYPE 0x6000

/* poll, select */
#define LX_POLLIN 0x001
#define LX_POLLPRI 0x002
#define LX_POLLOUT 0x004
#define LX_POLLERR 0x008
#define LX_POLLHUP 0x010
#define LX_POLLNVAL 0x020
#define LX_POLLRDNORM 0x040
#define LX_POLLRDBAND 0x080
#define LX_POLLWRNORM 0x100
#define LX_POLLWRBAND 0x200
/* what makes a descriptor ready in each of select's three sets */
#define LX_SELECT_IN (LX_POLLIN | LX_POLLRDNORM | LX_POLLRDBAND | LX_POLLHUP | LX_POLLERR)
#define LX_SELECT_OUT (LX_POLLOUT | LX_POLLWRNORM | LX_POLLWRBAND | LX_POLLERR)
#define LX_SELECT_EX LX_POLLPRI
/* the signal mask of ppoll and pselect6: a sigset_t of this many bytes */
#define LX_SIGSET_SIZE 8

/* pipes: writes of at most this many bytes are never split */
#define LX_PIPE_BUF 4096

struct lx_pollfd {
	int32_t fd;
	int16_t events, revents;
};

/* pselect6's sixth argument: where the signal mask is, and its size */
struct lx_sigset_argpack {
	uint64_t set, size;
};

struct lx_timespec {
	int64_t sec, nsec;
};
/* utimensat's times: a tv_nsec that means "now", or "leave it" */
#define LX_UTIME_NOW ((1l << 30) - 1)
#define LX_UTIME_OMIT ((1l << 30) - 2)

struct lx_timeval {
	int64_t sec, usec;
};

struct lx_iovec {
	uint64_t base, len;
};

struct lx_rlimit {
	uint64_t cur, max;
};

struct lx_winsize {
	uint16_t row, col, xpixel, ypixel;
};

/* struct sysinfo (sysinfo); memory in units of mem_unit bytes */
struct lx_sysinfo {
	int64_t uptime;                /* seconds */
	uint64_t loads[3];             /* 1, 5 and 15 minutes, in 1/65536 */
	uint64_t totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	uint16_t procs;
	uint8_t pad[6];
	uint64_t totalhigh, freehigh;
	uint32_t mem_unit;
	uint8_t pad2[4];
};
_Static_assert(sizeof(struct lx_sysinfo) == 112, "Linux's struct sysinfo");

#define LX_UTS_LEN 65
struct lx_utsname {
	char sysname[LX_UTS_LEN], nodename[LX_UTS_LEN], release[LX_UTS_LEN];
	char version[LX_UTS_LEN], machine[LX_UTS_LEN], domainname[LX_UTS_LEN];
};

/* struct linux_dirent64 (getdents64): this header, then the NUL-terminated
 * name, the record padded to 8 bytes */
struct lx_dirent64 {
	uint64_t ino;
	int64_t off;
	uint16_t reclen;
	uint8_t type;
} __attribute__((packed));
#define LX_DT_CHR 2
#define LX_DT_DIR 4
#define LX_DT_REG 8

/* Signals. */
#define LX_SIGHUP 1
#define LX_SIGINT 2
#define LX_SIGQUIT 3
#define LX_SIGILL 4
#define LX_SIGTRAP 5
#define LX_SIGABRT 6
#define LX_SIGBUS 7
#define LX_SIGFPE 8
#define LX_SIGKILL 9
#define LX_SIGUSR1 10
#define LX_SIGSEGV 11
#define LX_SIGUSR2 12
#define LX_SIGPIPE 13
#define LX_SIGALRM 14
#define LX_SIGTERM 15
#define LX_SIGSTKFLT 16
#define LX_SIGCHLD 17
#define LX_SIGCONT 18
#define LX_SIGSTOP 19
#define LX_SIGTSTP 20
#define LX_SIGTTIN 21
#define LX_SIGTTOU 22
#define LX_SIGURG 23
#define LX_SIGXCPU 24
#define LX_SIGXFSZ 25
#define LX_SIGVTALRM 26
#define LX_SIGPROF 27
#define LX_SIGWINCH 28
#define LX_SIGIO 29
#define LX_SIGPWR 30
#define LX_SIGSYS 31
#define LX_NSIG 64
#define LX_SIG_BIT(s) (1ull << ((s) - 1))

#define LX_SA_NOCLDSTOP 0x1u
#define LX_SA_NOCLDWAIT 0x2u
#define LX_SA_SIGINFO 0x4u
#define LX_SA_RESTORER 0x04000000u
#define LX_SA_ONSTACK 0x08000000u
#define LX_SA_RESTART 0x10000000u
#define LX_SA_NODEFER 0x40000000u
#define LX_SA_RESETHAND 0x80000000u

#define LX_SIG_BLOCK 0
#define LX_SIG_UNBLOCK 1
#define LX_SIG_SETMASK 2

#define LX_SS_ONSTACK 1
#define LX_SS_DISABLE 2
#define LX_SS_AUTODISARM (1u << 31)
#define LX_MINSIGSTKSZ 2048

/* si_code values */
#define LX_SI_USER 0
#define LX_SI_KERNEL 0x80
#define LX_SI_TKILL (-6)
#define LX_SEGV_MAPERR 1
#define LX_SEGV_ACCERR 2
#define LX_ILL_ILLOPN 2
#define LX_FPE_INTDIV 1
#define LX_TRAP_BRKPT 1
#define LX_BUS_ADRALN 1

#define LX_ITIMER_REAL 0

/* struct sigaction as the kernel takes it (rt_sigaction) */
struct lx_sigaction {
	uint64_t handler, flags, restorer, mask;
};

/* stack_t (sigaltstack, ucontext's uc_stack) */
struct lx_stack {
	uint64_t sp;
	int32_t flags;
	uint32_t pad;
	uint64_t size;
};

struct lx_itimerval {
	struct lx_timeval interval, value;
};

/* struct sigcontext (x86-64): the registers a signal frame saves */
struct lx_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;              /* the FXSAVE image's address, 0: none */
	uint64_t reserved[8];
};

/* the kernel's struct ucontext: its sigset is 8 bytes */
struct lx_ucontext {
	uint64_t flags, link;
	struct lx_stack stack;
	struct lx_sigcontext mcontext;
	uint64_t sigmask;
};

/* siginfo_t: 128 bytes; the fields signals from here fill in */
struct lx_siginfo {
	int32_t signo, errno_, code, pad;
	uint64_t addr;                 /* si_addr (faults); si_pid, si_uid for SI_USER */
	uint8_t rest[128 - 24];
};

/* The frame a handler starts on: its return address (the restorer), the
 * context to go back to, the siginfo; the FXSAVE image lies just above it,
 * 64-byte aligned. */
struct lx_rt_sigframe {
	uint64_t pretcode;
	struct lx_ucontext uc;
	struct lx_siginfo info;
};

#endif
