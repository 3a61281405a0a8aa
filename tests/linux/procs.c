/*
 * procs.c -- processes as Linux makes them: fork and copy-on-write
 * memory, wait4 and waitid statuses, pipes between processes, execve and
 * "#!" scripts, kill between processes and process groups, sessions.
 *
 * Run in Ferrite and on the host (tests/system/test_lxproc.py), it must
 * print the same lines: nothing it prints depends on pids or timing.
 *
 *   procs PATH_TO_BUSYBOX SCRATCH_DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int data_word = 7;              /* in the data segment */

/* status -- what wait4 said of a child, in words */
static void status(const char *what, int st)
{
	if (WIFEXITED(st))
		printf("%s: exited %d\n", what, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("%s: killed by %d\n", what, WTERMSIG(st));
	else
		printf("%s: status %#x\n", what, st);
}

/* reap -- wait for `pid` and say how it ended */
static void reap(const char *what, pid_t pid)
{
	int st = 0;
	pid_t got = waitpid(pid, &st, 0);

	if (got != pid)
		printf("%s: waitpid gave %d (%s)\n", what, (int)got, strerror(errno));
	else
		status(what, st);
}

/* copy_on_write -- a child's writes to every kind of memory stay its own,
 * a MAP_SHARED anonymous mapping is shared, and the parent's later writes
 * never reach the child */
static void copy_on_write(void)
{
	int stack_word = 11;
	char *heap = malloc(100000);
	char *anon = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fds[2];
	pid_t pid;

	memset(heap, 'h', 100000);
	memset(anon, 'a', 1 << 20);
	*shared = 1;
	if (pipe(fds))
		return;
	pid = fork();
	if (pid == 0) {
		char c;

		data_word = 70;
		stack_word = 110;
		heap[99999] = 'H';
		anon[12345] = 'A';
		*shared = 2;
		(void)read(fds[0], &c, 1); /* the parent wrote its own after the fork */
		printf("child sees: data %d stack %d heap %c anon %c\n", data_word, stack_word,
		       heap[99999], anon[1 << 19]);
		fflush(stdout);
		_exit(0);
	}
	data_word = 700;
	anon[1 << 19] = 'P';
	(void)write(fds[1], "x", 1);
	reap("cow child", pid);
	printf("parent sees: data %d stack %d heap %c anon %c %c shared %d\n", data_word,
	       stack_word, heap[99999], anon[12345], anon[1 << 19], *shared);
	close(fds[0]);
	close(fds[1]);
}

/* fork_of_a_fork -- three generations, each parent writing after its
 * fork: a child sees what was there when it was made, nothing later */
static void fork_of_a_fork(void)
{
	static char big[3 << 20];
	pid_t pid;
	int st;

	memset(big, 1, sizeof(big));
	pid = fork();
	if (!pid) {
		big[0] = 2;
		pid = fork();
		if (!pid) {
			big[1] = 3;
			pid = fork();
			if (!pid)
				_exit(big[0] + big[1] + big[2] + big[sizeof(big) - 1]);
			big[0] = 50;
			waitpid(pid, &st, 0);
			_exit(WEXITSTATUS(st));
		}
		big[1] = 60;
		waitpid(pid, &st, 0);
		_exit(WEXITSTATUS(st));
	}
	big[0] = 40;
	reap("three generations (2 + 3 + 1 + 1)", pid);
}

/* statuses -- exit codes and signals through wait4 and waitid */
static void statuses(void)
{
	static int *volatile nowhere = (int *)16;
	siginfo_t info;
	pid_t pid, got;

	pid = fork();
	if (!pid)
		_exit(42);
	reap("exit 42", pid);
	pid = fork();
	if (!pid) {
		raise(SIGTERM);
		_exit(1);
	}
	reap("raise SIGTERM", pid);
	pid = fork();
	if (!pid) {
		*nowhere = 1;
		_exit(1);
	}
	reap("null write", pid);
	pid = fork();
	if (!pid)
		_exit(3);
	memset(&info, 0, sizeof(info));
	if (waitid(P_PID, (id_t)pid, &info, WEXITED) == 0)
		printf("waitid: signo %d code %d status %d pid right %d\n", info.si_signo,
		       info.si_code, info.si_status, info.si_pid == pid);
	got = waitpid(-1, NULL, WNOHANG);
	printf("no child: %d %s\n", (int)got, strerror(errno));
	pid = fork();
	if (!pid) {
		pause();
		_exit(0);
	}
	printf("WNOHANG on a live child: %d\n", (int)waitpid(pid, NULL, WNOHANG));
	printf("kill: %d\n", kill(pid, SIGKILL));
	reap("SIGKILL", pid);
	got = kill(pid, 0);
	printf("kill gone: %d %s\n", (int)got, strerror(errno));
}

/* pipes -- more than a pipe holds, from a child to its parent; the
 * reader's end closed under a writer (SIGPIPE) */
static void pipes(void)
{
	int fds[2];
	pid_t pid;
	long total = 0;
	char buf[8192];
	ssize_t n;

	if (pipe(fds))
		return;
	pid = fork();
	if (!pid) {
		close(fds[0]);
		memset(buf, 'z', sizeof(buf));
		for (int i = 0; i < 100; i++)
			if (write(fds[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0)
		total += n;
	close(fds[0]);
	printf("pipe carried %ld bytes\n", total);
	reap("writer", pid);
	if (pipe(fds))
		return;
	pid = fork();
	if (!pid) {
		close(fds[0]);
		for (;;)
			if (write(fds[1], "y", 1) < 0)
				_exit(9);
	}
	close(fds[1]);
	close(fds[0]);
	reap("writer to no reader", pid);
}

/* exec -- a program by path, with its arguments and environment; a "#!"
 * script; a missing file */
static void exec(const char *busybox, const char *dir)
{
	char script[512];
	pid_t pid;
	FILE *f;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		char *argv[] = { "echo", "exec'd", "with", "args", NULL };

		execv(busybox, argv);
		_exit(127);
	}
	reap("echo", pid);
	snprintf(script, sizeof(script), "%s/script.sh", dir);
	f = fopen(script, "w");
	if (!f)
		return;
	fprintf(f, "#!%s sh\necho script says \"$0\" \"$1\" $GREETING\nexit 4\n", busybox);
	fclose(f);
	chmod(script, 0755);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		char *argv[] = { "script", "first", NULL };
		char *envp[] = { "GREETING=hello", NULL };

		execve(script, argv, envp);
		_exit(127);
	}
	reap("script", pid);
	int r = execl("no/such/program", "x", (char *)NULL);

	printf("missing: %d %s\n", r, strerror(errno));
}

/* groups -- a child in a group of its own, signalled as a group;
 * setsid in a child */
static void groups(void)
{
	pid_t a, b;
	int fds[2];
	char c;

	if (pipe(fds))
		return;
	a = fork();
	if (!a) {
		setpgid(0, 0);
		(void)write(fds[1], "a", 1);
		pause();
		_exit(0);
	}
	(void)read(fds[0], &c, 1);
	b = fork();
	if (!b) {
		printf("b joins: %d\n", setpgid(0, a));
		fflush(stdout);
		(void)write(fds[1], "b", 1);
		pause();
		_exit(0);
	}
	(void)read(fds[0], &c, 1);
	printf("a leads its group: %d, b in it: %d\n", getpgid(a) == a, getpgid(b) == a);
	printf("killpg: %d\n", killpg(a, SIGUSR1));
	reap("a", a);
	reap("b", b);
	a = fork();
	if (!a) {
		pid_t s = setsid();

		printf("setsid: %d, leader again: %d\n", s == getpid(), setsid() < 0 && errno == EPERM);
		_exit(0);
	}
	reap("setsid child", a);
	printf("getppid is the parent: %d\n", getppid() > 0);
	close(fds[0]);
	close(fds[1]);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: procs BUSYBOX SCRATCH_DIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	(void)mkdir(argv[2], 0755);
	copy_on_write();
	fork_of_a_fork();
	statuses();
	pipes();
	exec(argv[1], argv[2]);
	groups();
	return 0;
}
