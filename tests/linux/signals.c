/*
 * signals.c -- signals within one Linux program, as test_linux.py runs it
 * in Ferrite and on the host and compares what it prints.
 *
 *   signals             every step below, one line each
 *   signals wait        a handler for SIGINT (it says "got SIGINT"), then
 *                       "ready" and a read of standard input, which
 *                       Ctrl-C does not cut short (SA_RESTART): it ends
 *                       with a line, saying how many SIGINTs came
 *   signals die SIG     end by signal SIG's default action (raise)
 *
 * Every step prints what a program can see: which handler ran with what
 * siginfo, the masks, the alternate stack, what an interrupted call
 * returned. Nothing here depends on timing but the order of events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/select.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t count[65];
static volatile int last_code;
static volatile uintptr_t last_addr;
static volatile int on_alt;
static sigjmp_buf escape;
static char altstack[64 * 1024];

/* counted -- a handler that counts, and keeps the siginfo's code */
static void counted(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	count[sig]++;
	last_code = info->si_code;
}

/* segv -- a SIGSEGV handler: where, then out by siglongjmp */
static void segv(int sig, siginfo_t *info, void *uc)
{
	char here;

	(void)uc;
	count[sig]++;
	last_code = info->si_code;
	last_addr = (uintptr_t)info->si_addr;
	on_alt = &here >= altstack && &here < altstack + sizeof(altstack);
	siglongjmp(escape, 1);
}

/* on -- install handler h for sig with flags */
static void on(int sig, void (*h)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL)) {
		perror("sigaction");
		exit(1);
	}
}

static void step_raise(void)
{
	on(SIGUSR1, counted, 0);
	raise(SIGUSR1);
	printf("raise: SIGUSR1 ran %d time(s), si_code %d\n", (int)count[SIGUSR1], last_code);
	kill(getpid(), SIGUSR1);
	printf("kill: SIGUSR1 ran %d time(s), si_code %d\n", (int)count[SIGUSR1], last_code);
}

static void step_mask(void)
{
	sigset_t block, pending, old;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	on(SIGUSR2, counted, 0);
	sigprocmask(SIG_BLOCK, &block, &old);
	raise(SIGUSR2);
	raise(SIGUSR2); /* one pending bit: taken once */
	sigpending(&pending);
	printf("blocked: SIGUSR2 ran %d time(s), pending %d\n", (int)count[SIGUSR2],
	       sigismember(&pending, SIGUSR2));
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigpending(&pending);
	printf("unblocked: SIGUSR2 ran %d time(s), pending %d\n", (int)count[SIGUSR2],
	       sigismember(&pending, SIGUSR2));
}

static void step_ignore(void)
{
	signal(SIGUSR1, SIG_IGN);
	raise(SIGUSR1);
	signal(SIGCHLD, SIG_DFL);
	raise(SIGCHLD);
	printf("ignored: SIGUSR1 ran %d time(s); SIGCHLD by default: still here\n",
	       (int)count[SIGUSR1]);
}

static void step_segv(void)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };

	if (sigaltstack(&ss, NULL)) {
		perror("sigaltstack");
		exit(1);
	}
	on(SIGSEGV, segv, SA_ONSTACK | SA_NODEFER);
	for (int i = 0; i < 2; i++)
		if (!sigsetjmp(escape, 1))
			*(volatile int *)(uintptr_t)(0x10 + i * 0x1000) = 1;
	printf("SIGSEGV: ran %d time(s), si_code %d, si_addr %#lx, on the alternate stack %d\n",
	       (int)count[SIGSEGV], last_code, (unsigned long)last_addr, on_alt);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	sigaltstack(NULL, &ss);
	printf("sigaltstack: disabled %d\n", (ss.ss_flags & SS_DISABLE) != 0);
}

static void step_alarm(void)
{
	struct itimerval it = { .it_interval = { 0, 20000 }, .it_value = { 0, 20000 } };
	sigset_t alrm, old;
	int r;

	on(SIGALRM, counted, 0);
	alarm(1);
	r = pause();
	printf("alarm: pause returned %d (%s), SIGALRM ran %d time(s), si_code %d\n", r,
	       strerror(errno), (int)count[SIGALRM], last_code);
	/* SIGALRM taken only inside sigsuspend, one each time: an expiry
	 * between the last one counted and the timer's stop stays pending,
	 * and is thrown away by ignoring it (else the count would depend on
	 * how fast the machine is) */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, &old);
	setitimer(ITIMER_REAL, &it, NULL);
	while (count[SIGALRM] < 4)
		sigsuspend(&old);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	printf("interval: SIGALRM ran %d time(s), then it stopped: %d\n",
	       (int)count[SIGALRM], alarm(0));
	signal(SIGALRM, SIG_IGN);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void step_sleep(void)
{
	struct timespec t = { 5, 0 };
	int r;

	on(SIGALRM, counted, SA_RESTART);
	ualarm(50000, 0);
	r = nanosleep(&t, NULL);
	printf("nanosleep under SA_RESTART: %d (%s)\n", r, strerror(errno));
}

/* said -- a handler that counts and says so */
static void said(int sig, siginfo_t *info, void *uc)
{
	static const char line[] = "got SIGINT\n";

	counted(sig, info, uc);
	if (write(1, line, sizeof(line) - 1) < 0)
		_exit(2);
}

static void step_wait_masks(void)
{
	struct timespec t = { 5, 0 };
	sigset_t usr1, none, now;
	int before, r;

	on(SIGUSR1, counted, 0);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	raise(SIGUSR1);
	before = count[SIGUSR1];
	r = ppoll(NULL, 0, &t, &none);
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("ppoll letting SIGUSR1 in: %d (%s), it ran %d time(s), blocked again %d\n", r,
	       strerror(errno), (int)count[SIGUSR1] - before, sigismember(&now, SIGUSR1));
	raise(SIGUSR1);
	before = count[SIGUSR1];
	r = pselect(0, NULL, NULL, NULL, &t, &none);
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("pselect letting SIGUSR1 in: %d (%s), it ran %d time(s), blocked again %d\n", r,
	       strerror(errno), (int)count[SIGUSR1] - before, sigismember(&now, SIGUSR1));
	t.tv_sec = 0;
	t.tv_nsec = 1000000;
	r = ppoll(NULL, 0, &t, &usr1);
	printf("ppoll run out: %d\n", r);
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
}

static void step_pipe(void)
{
	int fds[2];
	ssize_t r;

	on(SIGPIPE, counted, 0);
	if (pipe(fds)) {
		perror("pipe");
		exit(1);
	}
	close(fds[0]);
	r = write(fds[1], "x", 1);
	printf("pipe: write with no reader %zd (%s), SIGPIPE ran %d time(s)\n", r,
	       strerror(errno), (int)count[SIGPIPE]);
	close(fds[1]);
}

static void step_wait(void)
{
	char line[64];
	ssize_t n;

	on(SIGINT, said, SA_RESTART);
	printf("ready\n");
	fflush(stdout);
	n = read(0, line, sizeof(line));
	printf("read %zd byte(s) after %d SIGINT\n", n, (int)count[SIGINT]);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 2 && !strcmp(argv[1], "wait")) {
		step_wait();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "die")) {
		raise(atoi(argv[2]));
		printf("still here after signal %s\n", argv[2]);
		return 0;
	}
	step_raise();
	step_mask();
	step_ignore();
	step_segv();
	step_alarm();
	step_sleep();
	step_wait_masks();
	step_pipe();
	return 0;
}
