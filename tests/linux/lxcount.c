/*
 * lxcount.c -- the power-cut campaign's Linux program (tests/system/
 * powercut.py): a numbered line per step, each step checked against what
 * the steps before it left in the catalogue, a pipe and its signal state.
 *
 *   lxcount PERIOD_MS
 *
 * Step n waits for SIGALRM from an interval timer (sigsuspend), then:
 *   - the log object lxcount/log holds exactly n - 1 lines, the last one
 *     n - 1 (it was opened once, O_APPEND, and stays open);
 *   - n goes through a pipe made at the start to a child forked for the
 *     step, which sends 2n + 1 back through another and ends with status
 *     n % 128, its parent waiting for it (fork, copy-on-write memory,
 *     pipes between processes, a zombie reaped: a cut may fall anywhere
 *     in them);
 *   - exactly n - 1 SIGALRMs were taken before this step's;
 *   - n is appended to the log, and "lxcount: n ok" printed.
 * Anything else prints a line with FAIL and ends the program. A power
 * cut takes the program, the log, the pipe and the timer back to one
 * committed state together, so every check holds across cuts; a kernel
 * that kept one of them from a later epoch than the others fails one.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define LINE 9                         /* "%08lu\n" */

static volatile unsigned long alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void fail(const char *what, unsigned long n)
{
	printf("lxcount: FAIL at step %lu: %s (%s)\n", n, what, strerror(errno));
	exit(1);
}

/* check_log -- whether the log holds n - 1 lines, the last one n - 1 */
static void check_log(int fd, unsigned long n)
{
	char last[LINE + 1];
	struct stat st;

	if (fstat(fd, &st) || (unsigned long)st.st_size != (n - 1) * LINE)
		fail("the log's size is not its lines'", n);
	if (n == 1)
		return;
	if (pread(fd, last, LINE, (off_t)((n - 2) * LINE)) != LINE)
		fail("the log's last line cannot be read", n);
	last[LINE] = 0;
	if (strtoul(last, NULL, 10) != n - 1)
		fail("the log's last line is not the step before", n);
}

int main(int argc, char **argv)
{
	unsigned long period = argc == 2 ? strtoul(argv[1], NULL, 10) : 0, n, back;
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	sigset_t alrm, none;
	char line[LINE + 1];
	int fd, pipefd[2], backfd[2], status;
	pid_t child;

	if (!period || period > 10000) {
		fprintf(stderr, "usage: lxcount PERIOD_MS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	mkdir("lxcount", 0755);
	fd = open("lxcount/log", O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (fd < 0 || pipe(pipefd) || pipe(backfd))
		fail("the log or the pipes cannot be made", 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &alrm, NULL); /* taken only in sigsuspend */
	if (sigaction(SIGALRM, &sa, NULL))
		fail("no handler", 0);
	it.it_interval.tv_sec = it.it_value.tv_sec = (time_t)(period / 1000);
	it.it_interval.tv_usec = it.it_value.tv_usec = (suseconds_t)(period % 1000 * 1000);
	if (setitimer(ITIMER_REAL, &it, NULL))
		fail("no timer", 0);
	for (n = 1;; n++) {
		while (alarms < n)
			sigsuspend(&none);
		if (alarms != n)
			fail("more alarms than steps", n);
		check_log(fd, n);
		child = fork();
		if (child == 0) { /* the step's child: n in, 2n + 1 out */
			unsigned long got;

			if (read(pipefd[0], &got, sizeof(got)) != sizeof(got) || got != n)
				_exit(255);
			got = 2 * got + 1;
			_exit(write(backfd[1], &got, sizeof(got)) == sizeof(got) ? (int)(n % 128) : 255);
		}
		if (child < 0)
			fail("no child", n);
		if (write(pipefd[1], &n, sizeof(n)) != sizeof(n) ||
		    read(backfd[0], &back, sizeof(back)) != sizeof(back) || back != 2 * n + 1)
			fail("the child did not give the step back", n);
		if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != (int)(n % 128))
			fail("the child did not end as it should", n);
		snprintf(line, sizeof(line), "%08lu\n", n);
		if (write(fd, line, LINE) != LINE)
			fail("the log cannot be appended to", n);
		printf("lxcount: %lu ok\n", n);
	}
}
