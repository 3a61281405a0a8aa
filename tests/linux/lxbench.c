/*
 * lxbench.c -- what Linux system calls cost, measured inside the program:
 * the same static binary in Ferrite and in a Linux guest on the same QEMU
 * (tests/bench/run-lxprog-bench, docs/performance.md).
 *
 *   lxbench [--quick] [ROUNDS]
 *       each figure ROUNDS times (default 3), the figures interleaved
 *       round by round: one line a round and figure,
 *           lxbench: NAME NS ns/op (OPS ops)
 *       and "lxbench: done" at the end. --quick does a tenth of the
 *       operations, to try the machinery.
 *   lxbench time [-o FILE] PROGRAM ARGS...
 *       (Linux only: it spawns a process) run PROGRAM with its standard
 *       output on FILE, wait for it, and print
 *           lxbench: time NS ns status S
 *       the monotonic time from just before the spawn to the end of the
 *       wait: what osh's `time` measures in Ferrite.
 *
 * The figures, each a batch of OPS operations timed by clock_gettime
 * (CLOCK_MONOTONIC) around the whole batch, so that neither the clock's
 * resolution nor its own cost shows:
 *
 *   getpid     the getpid call itself (syscall(), never a cached value)
 *   pread-4k   a 4 KiB pread of a 64 KiB file the program wrote and read
 *              once before (lxbench.dat in the working directory), at 16
 *              offsets in turn
 *   open-close open of that file (O_RDONLY) and close
 *   mmap-1m    mmap of 1 MiB of anonymous memory, untouched, and munmap
 *   thread     pthread_create of a thread that returns at once, and
 *              pthread_join: the clone, the thread's exit, the join's wake
 *   fork-exec-wait  fork, execve of /bin/busybox true in the child, waitpid
 *   fork-1m    fork of the program once it has touched 1 MiB more, the
 *              child's _exit, waitpid
 *   fork-64m   the same once it has touched 64 MiB: copy-on-write makes a
 *              fork cost its mappings, not the bytes they hold
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DATA_FILE "lxbench.dat"
#define DATA_SIZE (64 * 1024)
#define PAGE 4096
#define MAP_SIZE (1024 * 1024)

extern char **environ;

struct figure {
	const char *name;
	long ops;                    /* in a full run; a tenth with --quick */
	int (*run)(long ops);        /* 0, or -1 after saying why */
	long long (*timed)(long ops); /* instead of run: times itself (ns, -1) */
};

static int data_fd = -1;

/* now_ns -- CLOCK_MONOTONIC in ns */
static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* fail -- say what went wrong with errno; -1 */
static int fail(const char *what)
{
	printf("lxbench: %s: %s\n", what, strerror(errno));
	return -1;
}

/* run_getpid -- ops getpid calls */
static int run_getpid(long ops)
{
	for (long i = 0; i < ops; i++)
		if (syscall(SYS_getpid) <= 0)
			return fail("getpid");
	return 0;
}

/* run_pread -- ops 4 KiB preads of the data file, 16 offsets in turn */
static int run_pread(long ops)
{
	static char buf[PAGE];

	for (long i = 0; i < ops; i++)
		if (pread(data_fd, buf, PAGE, (i % (DATA_SIZE / PAGE)) * PAGE) != PAGE)
			return fail("pread");
	return 0;
}

/* run_open_close -- ops opens and closes of the data file */
static int run_open_close(long ops)
{
	for (long i = 0; i < ops; i++) {
		int fd = open(DATA_FILE, O_RDONLY);

		if (fd < 0)
			return fail("open");
		if (close(fd) != 0)
			return fail("close");
	}
	return 0;
}

/* run_mmap -- ops mmaps and munmaps of 1 MiB of anonymous memory */
static int run_mmap(long ops)
{
	for (long i = 0; i < ops; i++) {
		void *p = mmap(NULL, MAP_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return fail("mmap");
		if (munmap(p, MAP_SIZE) != 0)
			return fail("munmap");
	}
	return 0;
}

/* nothing -- a thread that ends at once */
static void *nothing(void *arg)
{
	return arg;
}

/* run_thread -- ops threads made and joined, one at a time */
static int run_thread(long ops)
{
	for (long i = 0; i < ops; i++) {
		pthread_t t;
		int err = pthread_create(&t, NULL, nothing, NULL);

		if (err == 0)
			err = pthread_join(t, NULL);
		if (err != 0) {
			errno = err;
			return fail("pthread_create/join");
		}
	}
	return 0;
}

/* fork_wait -- ops forks whose child ends at once (after an execve of
 * busybox true if `exec`), each waited for */
static int fork_wait(long ops, int exec)
{
	for (long i = 0; i < ops; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return fail("fork");
		if (pid == 0) {
			if (exec)
				execl("/bin/busybox", "true", (char *)NULL);
			_exit(exec ? 127 : 0);
		}
		if (waitpid(pid, &status, 0) != pid || status != 0)
			return fail("waitpid");
	}
	return 0;
}

/* run_fork_exec -- ops fork + execve + exit + waitpid */
static int run_fork_exec(long ops)
{
	return fork_wait(ops, 1);
}

/* forks_touched -- the ns of ops forks (each waited for) of the program
 * with `bytes` of anonymous memory written first (not timed), -1 */
static long long forks_touched(long ops, size_t bytes)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long long start;
	int err;

	if (p == MAP_FAILED)
		return fail("mmap");
	for (size_t i = 0; i < bytes; i += PAGE)
		p[i] = (char)i;
	start = now_ns();
	err = fork_wait(ops, 0);
	start = err ? -1 : now_ns() - start;
	munmap(p, bytes);
	return start;
}

/* time_fork_1m, time_fork_64m -- forks_touched of 1 MiB, of 64 MiB */
static long long time_fork_1m(long ops)
{
	return forks_touched(ops, 1 << 20);
}

static long long time_fork_64m(long ops)
{
	return forks_touched(ops, 64 << 20);
}

static const struct figure figures[] = {
	{"getpid", 200000, run_getpid, NULL},
	{"pread-4k", 100000, run_pread, NULL},
	{"open-close", 20000, run_open_close, NULL},
	{"mmap-1m", 20000, run_mmap, NULL},
	{"thread", 2000, run_thread, NULL},
	{"fork-exec-wait", 200, run_fork_exec, NULL},
	{"fork-1m", 200, NULL, time_fork_1m},
	{"fork-64m", 200, NULL, time_fork_64m},
};

/* make_data -- write the data file and read it once (so it is cached) */
static int make_data(void)
{
	static char buf[DATA_SIZE];

	for (int i = 0; i < DATA_SIZE; i++)
		buf[i] = (char)('a' + i % 26);
	data_fd = open(DATA_FILE, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (data_fd < 0)
		return fail("open " DATA_FILE);
	if (write(data_fd, buf, DATA_SIZE) != DATA_SIZE)
		return fail("write " DATA_FILE);
	if (pread(data_fd, buf, DATA_SIZE, 0) != DATA_SIZE)
		return fail("read " DATA_FILE);
	return 0;
}

/* measure -- every figure, rounds times over, interleaved */
static int measure(int rounds, long divisor)
{
	const int count = (int)(sizeof(figures) / sizeof(figures[0]));

	if (make_data() != 0)
		return 1;
	for (int r = 0; r < rounds; r++)
		for (int f = 0; f < count; f++) {
			long ops = figures[f].ops / divisor;
			long long start = now_ns(), took;

			if (figures[f].timed)
				took = figures[f].timed(ops);
			else
				took = figures[f].run(ops) ? -1 : now_ns() - start;
			if (took < 0)
				return 1;
			printf("lxbench: %s %.1f ns/op (%ld ops)\n", figures[f].name,
			       (double)took / (double)ops, ops);
			fflush(stdout);
		}
	close(data_fd);
	unlink(DATA_FILE);
	printf("lxbench: done\n");
	return 0;
}

/* time_program -- lxbench time [-o FILE] PROGRAM ARGS... */
static int time_program(int argc, char **argv)
{
	posix_spawn_file_actions_t actions;
	long long start, took;
	int status, err;
	pid_t pid;

	posix_spawn_file_actions_init(&actions);
	if (argc >= 2 && strcmp(argv[0], "-o") == 0) {
		posix_spawn_file_actions_addopen(&actions, 1, argv[1],
						 O_WRONLY | O_CREAT | O_TRUNC, 0644);
		argv += 2;
		argc -= 2;
	}
	if (argc < 1) {
		fprintf(stderr, "usage: lxbench time [-o FILE] PROGRAM ARGS...\n");
		return 2;
	}
	start = now_ns();
	err = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
	if (err != 0) {
		errno = err;
		fail(argv[0]);
		return 1;
	}
	if (waitpid(pid, &status, 0) != pid) {
		fail("waitpid");
		return 1;
	}
	took = now_ns() - start;
	printf("lxbench: time %lld ns status %d\n", took,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

int main(int argc, char **argv)
{
	long divisor = 1;
	int rounds = 3;

	if (argc >= 2 && strcmp(argv[1], "time") == 0)
		return time_program(argc - 2, argv + 2);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			divisor = 10;
		else if ((rounds = atoi(argv[i])) <= 0) {
			fprintf(stderr, "usage: lxbench [--quick] [ROUNDS] | "
				"lxbench time [-o FILE] PROGRAM ARGS...\n");
			return 2;
		}
	}
	return measure(rounds, divisor);
}
