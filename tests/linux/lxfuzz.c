/*
 * lxfuzz.c -- sysfuzz's Linux mode: random Linux system calls, with random
 * and hostile arguments, from a Linux program (docs/fuzzing.md).
 *
 *   lxfuzz SEED COUNT
 *
 * Each call is a number drawn from Linux's table (mostly the calls
 * Ferrite has, some it lacks, some past the end) and six arguments drawn
 * from pools: small numbers, descriptors, lengths at the edges, flags,
 * pointers into its own scratch memory and strings (paths that exist,
 * do not, climb with "..", are too long), and pointers that are wrong
 * (NULL, unaligned, unmapped, read-only, the kernel's half, non-canonical).
 * What the kernel must survive is all of it; what the program keeps from
 * harm is only itself: calls that would end it or wait forever are drawn
 * with tamed arguments (its own memory is changed only in the scratch
 * area, its standard input and output are /dev/null and its report goes
 * to a copy of the console at descriptor REPORT that no call touches or
 * copies (nor is /dev/tty among the paths: reading the console waits),
 * sleeps, polls and selects are short, every pipe it makes is
 * non-blocking and stays so: a pipe of its own that it read empty or
 * wrote full would wait for ever, the signals it may send itself are
 * SIGUSR1, whose handler only counts, and no call changes the
 * dispositions of it or of the signals the kernel could raise), and exit
 * and exit_group are never drawn. fork, vfork and clone are (vfork as a
 * fork, and clone without CLONE_VFORK: a vfork's child returning from
 * syscall() would wreck its parent's frame): a child ends at once with a
 * random status (a clone's on a wild stack dies of its fault first), wait4 and waitid never wait, kill reaches only its
 * last child, execve never finds a program; at the end it reaps every
 * child.
 *
 * At the end it checks that its own memory is intact and that a file it
 * writes reads back, prints "lxfuzz: N calls, M errors, K signals taken,
 * ok", and exits 0.
 * The test runs it under the log checker and checks the image offline.
 */
#define _GNU_SOURCE                    /* MREMAP_FIXED */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SCRATCH (1u << 20)
#define REPORT 63                      /* the console, for the report */

static uint64_t state;
static char *scratch;                  /* SCRATCH bytes the calls may change */
static char *readonly;                 /* a page the calls may only read */
static uint64_t guard[64];             /* must never change */
static unsigned long children;         /* forked (fork, vfork, clone) */
static pid_t last_child;

/* next -- xorshift64* */
static uint64_t next(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 2685821657736338717ull;
}

static uint64_t pick(uint64_t n)
{
	return next() % n;
}

/* path -- a path string in the scratch area */
static uint64_t path(void)
{
	static const char *const paths[] = {
		"fz/a", "fz/b", "fz", "fz/sub/x", "/fz/a", "../../fz/a", "fz/./a",
		"/dev/null", "/dev/zero", "/dev/urandom", "/", ".", "..",
		"nosuch", "fz/", "bin/lxfuzz", "/proc/self/exe", "",
	};
	char *at = scratch + SCRATCH / 2 - 8192; /* below what calls may unmap */

	if (pick(8) == 0) { /* a long one */
		size_t n = 1 + pick(5000);

		memset(at, 'a' + pick(26), n);
		at[n] = 0;
		return (uint64_t)at;
	}
	strcpy(at, paths[pick(sizeof(paths) / sizeof(paths[0]))]);
	return (uint64_t)at;
}

/* pointer -- a pointer, good or bad */
static uint64_t pointer(void)
{
	switch (pick(10)) {
	case 0: return 0;
	case 1: return (uint64_t)scratch + pick(SCRATCH - 4096);
	case 2: return (uint64_t)scratch + SCRATCH - pick(16);       /* at the end */
	case 3: return (uint64_t)readonly + pick(4096);
	case 4: return 0xffff800000000000ull + pick(1u << 30);     /* the kernel's */
	case 5: return 0x0000800000000000ull + pick(4096);         /* non-canonical */
	case 6: return pick(1u << 22);                             /* low, unmapped */
	case 7: return (uint64_t)scratch + pick(SCRATCH / 2) * 2 + 1; /* unaligned */
	case 8: return path();
	default: return (uint64_t)scratch + pick(64) * 64;
	}
}

/* value -- an argument of any kind */
static uint64_t value(void)
{
	switch (pick(8)) {
	case 0: return pick(8);                                    /* small */
	case 1: return pick(80);                                   /* a descriptor */
	case 2: return (uint64_t)-(int64_t)pick(200);              /* negative */
	case 3: return 1ull << pick(64);                           /* a flag */
	case 4: return next();                                     /* anything */
	case 5: return pick(2) ? 4096 : 65536 + pick(3);           /* lengths */
	default: return pointer();
	}
}

/* The numbers drawn: Ferrite's calls mostly, a few it lacks. */
static const long numbers[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17, 18, 19, 20, 21, 22,
	23, 24, 28, 32, 33, 35, 39, 63, 72, 74, 75, 77, 79, 80, 82, 83, 84, 86,
	87, 89, 93, 95, 96, 97, 102, 104, 107, 108, 109, 110, 111, 121, 124,
	157, 158, 162, 186, 201, 217, 218, 228, 229, 230, 257, 258, 262, 263,
	264, 265, 267, 269, 270, 271, 292, 293, 302, 306, 316, 318, 439,
	90, 91, 92, 94, 260, 268, 280,
	22, 23, 270, 293,              /* pipes and select: twice as often */
	13, 14, 36, 37, 38, 127, 131, 200, 234,
	40, 56, 57, 58, 59, 61, 62, 202, 247, 112, 290, 334, 435,
	25, 99, 73,
};

static volatile unsigned long caught;   /* SIGUSR1s its handler took */

/* on_usr1 -- the handler of the one signal the calls may send it */
static void on_usr1(int sig)
{
	(void)sig;
	caught++;
}

/* kept -- signals whose disposition the calls may not change: the one
 * they send (SIGUSR1), the ones the kernel could raise (a fault's, the
 * timer's, a pipe's) and the ones that cannot be caught */
static int kept(uint64_t sig)
{
	return sig == SIGUSR1 || sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGTRAP || sig == SIGALRM || sig == SIGPIPE ||
	       sig == SIGKILL || sig == SIGSTOP || sig == SIGINT;
}

/* bad_pointer -- a pointer that names no memory of the program */
static uint64_t bad_pointer(void)
{
	switch (pick(3)) {
	case 0: return 0xffff800000000000ull + pick(1u << 30);     /* the kernel's */
	case 1: return 0x0000800000000000ull + pick(4096);         /* non-canonical */
	default: return 8 + pick(4096);                            /* low, unmapped */
	}
}

/* short_wait -- a timeout of under a millisecond in the scratch area at
 * slot `at` (a timeval or a timespec), or a bad pointer; never NULL,
 * which waits for ever */
static uint64_t short_wait(unsigned at, int timeval)
{
	uint64_t *t = (uint64_t *)scratch + at;

	if (pick(4) == 0)
		return bad_pointer();
	t[0] = 0;
	t[1] = pick(timeval ? 1000 : 1000000);
	return (uint64_t)t;
}

/* tame -- keep a call from ending the program or stopping it for good */
static void tame(long nr, uint64_t *a)
{
	uint64_t region = (uint64_t)scratch + SCRATCH / 2;

	switch (nr) {
	case 9: /* mmap: fixed ones only into the scratch area's second half */
		if (a[3] & (MAP_FIXED | 0x100000))
			a[0] = region + pick(SCRATCH / 2 / 4096) * 4096;
		if (a[1] > (1ull << 30))
			a[1] = pick(1u << 20);
		break;
	case 10: case 11: case 28: /* mprotect, munmap, madvise: there too */
		a[0] = region + pick(SCRATCH / 2 / 4096) * 4096;
		a[1] = pick(SCRATCH / 2);
		break;
	case 25: /* mremap: from the scratch area's second half, and to it
		  * when fixed, never past its end */
		a[0] = region + pick(SCRATCH / 2 / 4096) * 4096;
		a[1] = pick((uint64_t)scratch + SCRATCH - a[0]) + 1;
		if (a[3] & MREMAP_FIXED)
			a[4] = region + pick(SCRATCH / 2 / 4096) * 4096;
		a[2] = pick((uint64_t)scratch + SCRATCH - (a[3] & MREMAP_FIXED ? a[4] : a[0])) + 1;
		break;
	case 73: /* flock: never waiting (two of its own open files could wait for each other) */
		a[1] |= LOCK_NB;
		break;
	case 12: /* brk: only upward of where it is */
		a[0] = (uint64_t)sbrk(0) + pick(1u << 20);
		break;
	case 3: case 32: case 33: case 72: case 292:
		/* close, dup, dup2, fcntl, dup3: never the report's, never a
		 * copy of it (a read of the console waits for typing) */
		if (a[0] == REPORT)
			a[0] = 3;
		if ((nr == 33 || nr == 292) && a[1] == REPORT)
			a[1] = 3;
		if (nr == 72 && a[1] == F_SETFL) /* a pipe stays non-blocking */
			a[2] |= O_NONBLOCK;
		break;
	case 0: case 17: case 19: /* read, pread64, readv: never from the console, which waits */
		if (a[0] == REPORT)
			a[0] = 0;
		break;
	case 1: case 18: case 20: /* write, pwrite64, writev: not to the console */
		if (a[0] == REPORT)
			a[0] = 1;
		break;
	case 35: case 230: case 7: case 271: /* sleeps and polls: short */
		a[0] = nr == 230 ? 1 : a[0];
		a[1] = nr == 230 ? 0 : a[1];
		if (nr == 35 || nr == 230) {
			uint64_t *ts = (uint64_t *)scratch;

			ts[0] = 0;
			ts[1] = pick(1000000);
			a[nr == 35 ? 0 : 2] = (uint64_t)ts;
		}
		if (nr == 7)
			a[2] = pick(3);
		if (nr == 271) {
			uint64_t *ts = (uint64_t *)scratch + 4;

			ts[0] = 0;
			ts[1] = pick(1000000);
			a[2] = (uint64_t)ts;
		}
		break;
	case 23: case 270: /* select, pselect6: short, or a bad timeout */
		a[4] = short_wait(8, nr == 23);
		break;
	case 22: case 293: /* pipe, pipe2: to good memory mostly, flags Linux has mostly */
		if (pick(2))
			a[0] = (uint64_t)scratch + pick(SCRATCH / 2 / 8) * 8;
		if (nr == 293 && pick(2))
			a[1] = pick(2) ? O_CLOEXEC : 0;
		break;
	case 158: /* arch_prctl: never its own FS base */
		if (a[0] == 0x1002)
			a[0] = 0x1003;
		break;
	case 13: /* rt_sigaction: any disposition but of the signals it keeps */
		if (kept(a[0]))
			a[0] = SIGUSR2;
		if (pick(2))
			a[3] = 8;
		break;
	case 200: case 234: /* tkill, tgkill: SIGUSR1, nothing (0), or no signal at all */
		a[nr == 200 ? 1 : 2] = pick(3) == 0 ? SIGUSR1 : pick(2) ? 0 : 65 + pick(1000);
		if (pick(2)) { /* at itself */
			a[0] = (uint64_t)getpid();
			a[1] = nr == 234 ? (uint64_t)getpid() : a[1];
		}
		break;
	case 59: /* execve: of what never runs (an empty file, a directory,
		  * nothing, a special file, a bad pointer): never itself */
		a[0] = pick(5) ? (uint64_t)strcpy(scratch + SCRATCH / 2 - 8192,
						  (const char *const[]){ "fz/a", "/", "nosuch",
									 "/dev/null" }[pick(4)])
			       : pointer();
		break;
	case 61: case 247: /* wait4, waitid: never waiting */
		a[nr == 61 ? 2 : 3] = (a[nr == 61 ? 2 : 3] & ~0xfull) | WNOHANG |
				      (nr == 247 ? WEXITED : 0);
		break;
	case 62: /* kill: its last child (SIGKILL, SIGUSR1 or nothing), or
		  * itself (SIGUSR1 or nothing) */
		a[0] = (uint64_t)(children ? last_child : getpid());
		a[1] = children && pick(3) == 0 ? SIGKILL : pick(2) ? SIGUSR1 : 0;
		break;
	case 37: /* alarm: never set (SIGALRM would end it) */
		a[0] = 0;
		break;
	case 38: /* setitimer: only ever off, or asking */
		a[1] = 0;
		break;
	}
}

/* nonblocking -- the two ends of a pipe just made, at fds, never wait */
static void nonblocking(const int *fds)
{
	for (unsigned i = 0; i < 2; i++)
		fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
}

int main(int argc, char **argv)
{
	unsigned long count, errors = 0;
	long r;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: lxfuzz SEED COUNT\n");
		return 2;
	}
	state = strtoull(argv[1], NULL, 0) * 0x9e3779b97f4a7c15ull + 1;
	count = strtoul(argv[2], NULL, 0);
	scratch = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	readonly = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (scratch == MAP_FAILED || readonly == MAP_FAILED)
		return 1;
	for (unsigned i = 0; i < 64; i++)
		guard[i] = 0x5a5a5a5a00000000ull | i;
	fd = open("/dev/null", O_RDWR);
	if (fd < 0 || dup2(1, REPORT) != REPORT || dup2(fd, 0) != 0 || dup2(fd, 1) != 1 ||
	    dup2(fd, 2) != 2)
		return 1;
	signal(SIGUSR1, on_usr1);
	signal(SIGPIPE, SIG_IGN);
	mkdir("fz", 0755);
	close(open("fz/a", O_CREAT | O_WRONLY, 0644));
	for (unsigned long i = 0; i < count; i++) {
		long nr = numbers[pick(sizeof(numbers) / sizeof(numbers[0]))];
		uint64_t a[6];

		if (pick(50) == 0)
			nr = (long)pick(600);
		if (nr == 60 || nr == 231 || nr == 15 || nr == 34 || nr == 130)
			continue; /* exit, exit_group, rt_sigreturn, pause, rt_sigsuspend */
		for (unsigned j = 0; j < 6; j++)
			a[j] = pick(3) ? value() : (nr == 2 || nr == 4 || nr == 21 || j == 1 ? path() : value());
		if (nr == 2 || nr == 4 || nr == 6 || nr == 21 || nr == 80 || nr == 83 ||
		    nr == 84 || nr == 87 || nr == 89)
			a[0] = pick(4) ? path() : pointer();
		tame(nr, a);
		if (nr == 58) /* vfork's child would return into this frame and */
			nr = 57; /* wreck it for the parent: a fork instead */
		if (nr == 56) /* and clone not as vfork either */
			a[0] &= ~(uint64_t)CLONE_VFORK;
		r = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (r == 0 && (nr == 56 || nr == 57 || nr == 58))
			_exit((int)pick(256)); /* a fork's child (a clone's on a wild stack dies first) */
		if ((nr == 56 || nr == 57 || nr == 58) && r > 0) {
			children++;
			last_child = (pid_t)r;
		}
		if (r < 0)
			errors++;
		else if (nr == 22 || nr == 293)
			nonblocking((const int *)a[0]);
	}
	while (wait(NULL) > 0 || errno == EINTR) /* every child it forked, reaped */
		;
	for (unsigned i = 0; i < 64; i++)
		if (guard[i] != (0x5a5a5a5a00000000ull | i)) {
			dprintf(REPORT, "lxfuzz: its own memory changed\n");
			return 1;
		}
	for (int i = 3; i < REPORT; i++) /* the calls may have used every descriptor */
		close(i);
	fd = open("/lxfuzz-check", O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0 || write(fd, "intact", 6) != 6 || pread(fd, scratch, 6, 0) != 6 ||
	    memcmp(scratch, "intact", 6)) {
		dprintf(REPORT, "lxfuzz: a file does not read back (descriptor %d: %m)\n", fd);
		return 1;
	}
	dprintf(REPORT, "lxfuzz: %lu calls, %lu errors, %lu signals taken, ok\n", count,
		errors, caught);
	return 0;
}
