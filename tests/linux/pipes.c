/*
 * pipes.c -- a pipe within one program, and waiting for files with
 * select and poll: what Linux programs do with them, printed, so that a
 * run in Ferrite can be compared byte for byte with one on the host
 * (tests/system/test_linux.py, docs/linux.md).
 *
 *   pipes        pipe2 and its flags, reading and writing, FIONREAD, end of
 *                file, EPIPE, O_NONBLOCK and EAGAIN, a full pipe, dup,
 *                poll/ppoll/select/pselect6 on pipes, timeouts, errors
 *   pipes tty    the console: its window's size, FIONREAD, and select and
 *                poll with a finite timeout woken by typed bytes (Ferrite
 *                only: the test types when asked)
 *   pipes hold   bytes left in a pipe while the program waits for a line,
 *                read back after it (the test cuts the power meanwhile)
 *
 * Errors print as their names, the same from either C library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define FULL (64 << 10)                /* Linux's pipe capacity */

static char buf[FULL + 8192], in[4096];

/* err_name -- errno's name */
static const char *err_name(int e)
{
	switch (e) {
	case EAGAIN: return "EAGAIN";
	case EBADF: return "EBADF";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case EPIPE: return "EPIPE";
	case ESPIPE: return "ESPIPE";
	case ENOTTY: return "ENOTTY";
	case EMFILE: return "EMFILE";
	default: return "another error";
	}
}

/* say -- a call's result, or -1 and its error's name */
static void say(const char *what, long r)
{
	if (r < 0)
		printf("%s: -1 %s\n", what, err_name(errno));
	else
		printf("%s: %ld\n", what, r);
}

/* ms_since -- milliseconds on the monotonic clock since t */
static long ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* ready -- how many bytes FIONREAD says fd holds */
static int ready(int fd)
{
	int n = -1;

	if (ioctl(fd, FIONREAD, &n) < 0)
		return -1;
	return n;
}

/* poll1 -- poll one descriptor: the count, and its revents printed */
static void poll1(const char *what, int fd, short events, int timeout)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r = poll(&p, 1, timeout);

	if (r < 0)
		say(what, r);
	else
		printf("%s: %d revents %#x\n", what, r, p.revents);
}

/* select2 -- select on two descriptors in both the read and the write set,
 * no waiting: the count and which are in which set afterwards */
static void select2(const char *what, int a, int b)
{
	struct timeval tv = { 0, 0 };
	fd_set r, w;
	int n;

	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(a, &r);
	FD_SET(b, &r);
	FD_SET(a, &w);
	FD_SET(b, &w);
	n = select((a > b ? a : b) + 1, &r, &w, NULL, &tv);
	if (n < 0)
		say(what, n);
	else
		printf("%s: %d read %d%d write %d%d\n", what, n, FD_ISSET(a, &r), FD_ISSET(b, &r),
		       FD_ISSET(a, &w), FD_ISSET(b, &w));
}

/* ends -- pipe2's descriptors, their flags, what they are */
static void ends(void)
{
	struct stat a, b;
	int p[2];

	say("pipe2 O_CLOEXEC", pipe2(p, O_CLOEXEC));
	printf("descriptors %d %d, close-on-exec %d %d, flags %#o %#o\n", p[0], p[1],
	       fcntl(p[0], F_GETFD), fcntl(p[1], F_GETFD), fcntl(p[0], F_GETFL),
	       fcntl(p[1], F_GETFL));
	if (fstat(p[0], &a) || fstat(p[1], &b))
		printf("fstat failed\n");
	printf("fifo %d %d, one inode %d, size %ld, mode %o, links %ld\n", S_ISFIFO(a.st_mode),
	       S_ISFIFO(b.st_mode), a.st_ino == b.st_ino, (long)a.st_size,
	       (unsigned)a.st_mode & 0777, (long)a.st_nlink);
	say("lseek", lseek(p[0], 0, SEEK_SET));
	say("pread", pread(p[0], buf, 1, 0));
	say("pwrite", pwrite(p[1], "x", 1, 0));
	say("read of the write end", read(p[1], buf, 1));
	say("write to the read end", write(p[0], "x", 1));
	printf("isatty %d\n", isatty(p[0]));
	say("ftruncate", ftruncate(p[1], 0));
	say("fsync", fsync(p[1]));
	close(p[0]);
	close(p[1]);
}

/* data -- bytes in and out, counted, polled and selected */
static void data(void)
{
	struct iovec v[2];
	int p[2];

	say("pipe", pipe(p));
	say("write", write(p[1], "hello, pipe", 11));
	printf("FIONREAD %d %d\n", ready(p[0]), ready(p[1]));
	{
		struct pollfd fds[2] = { { p[0], POLLIN | POLLOUT, 0 }, { p[1], POLLIN | POLLOUT, 0 } };
		int r = poll(fds, 2, 0);

		printf("poll both ends: %d revents %#x %#x\n", r, fds[0].revents, fds[1].revents);
	}
	select2("select both ends", p[0], p[1]);
	say("read 5", read(p[0], buf, 5));
	printf("got '%.5s', FIONREAD %d\n", buf, ready(p[0]));
	say("read 100", read(p[0], buf, 100));
	printf("got '%.6s'\n", buf);
	poll1("poll the empty pipe", p[0], POLLIN, 0);
	select2("select the empty pipe", p[0], p[1]);
	say("F_SETFL O_NONBLOCK", fcntl(p[0], F_SETFL, O_NONBLOCK));
	printf("flags %#o\n", fcntl(p[0], F_GETFL));
	say("read the empty pipe", read(p[0], buf, 10));
	v[0] = (struct iovec){ "ab", 2 };
	v[1] = (struct iovec){ "cd", 2 };
	say("writev", writev(p[1], v, 2));
	v[0] = (struct iovec){ buf, 3 };
	v[1] = (struct iovec){ buf + 3, 3 };
	say("readv", readv(p[0], v, 2));
	printf("got '%.4s'\n", buf);
	say("write nothing", write(p[1], buf, 0));
	say("read nothing", read(p[0], buf, 0));
	close(p[0]);
	close(p[1]);
}

/* eof -- the write end closed: what is left, then the end */
static void eof(void)
{
	fd_set r;
	int p[2];

	pipe(p);
	write(p[1], "last", 4);
	say("close the write end", close(p[1]));
	poll1("poll", p[0], POLLIN, -1);
	say("read", read(p[0], buf, 10));
	poll1("poll at the end", p[0], POLLIN, -1);
	say("read at the end", read(p[0], buf, 10));
	say("read at the end again", read(p[0], buf, 10));
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	say("select at the end, no timeout", select(p[0] + 1, &r, NULL, NULL, NULL));
	printf("readable %d\n", FD_ISSET(p[0], &r));
	close(p[0]);
}

/* epipe -- the read end closed: writes fail */
static void epipe(void)
{
	int p[2];

	pipe(p);
	say("close the read end", close(p[0]));
	say("write", write(p[1], "lost", 4));
	say("write nothing", write(p[1], "", 0));
	poll1("poll", p[1], POLLOUT, 0);
	select2("select", p[1], p[1]);
	close(p[1]);
}

/* full -- a pipe filled to its capacity, without blocking */
static void full(void)
{
	long total = 0, r;
	int p[2], ok = 1;

	say("pipe2 O_NONBLOCK", pipe2(p, O_NONBLOCK));
	for (int i = 0; i < FULL + 8192; i++)
		buf[i] = (char)(i % 251);
	while ((r = write(p[1], buf + total, 4096)) > 0)
		total += r;
	printf("filled with %ld bytes, then %s\n", total, err_name(errno));
	say("write a byte", write(p[1], "x", 1));
	printf("FIONREAD %d\n", ready(p[0]));
	poll1("poll the full pipe", p[1], POLLOUT, 0);
	say("read 100", read(p[0], in, 100));
	poll1("poll", p[1], POLLOUT, 0);
	say("read 3996", read(p[0], in, 3996));
	poll1("poll", p[1], POLLOUT, 0);
	say("write 8192", write(p[1], buf + total, 8192));
	say("write a byte", write(p[1], "x", 1));
	total = 0;
	while ((r = read(p[0], in, sizeof(in))) > 0) {
		for (long i = 0; i < r; i++)
			ok &= in[i] == (char)((4096 + total + i) % 251);
		total += r;
	}
	printf("read back %ld bytes, in order %d, then %s\n", total, ok, err_name(errno));
	close(p[0]);
	close(p[1]);
}

/* dups -- copies of the ends: the pipe ends with the last one */
static void dups(void)
{
	int p[2], d, e;

	pipe(p);
	d = dup(p[1]);
	say("dup of the write end", d);
	close(p[1]);
	say("write through the copy", write(d, "via dup", 7));
	say("dup2 of the read end to 9", dup2(p[0], 9));
	close(p[0]);
	say("read through the copy", read(9, buf, 20));
	e = fcntl(d, F_DUPFD_CLOEXEC, 20);
	say("F_DUPFD_CLOEXEC", e);
	close(d);
	poll1("poll, one writer left", 9, POLLIN, 0);
	say("dup2 over the last writer", dup2(9, e));
	poll1("poll, no writer", 9, POLLIN, 0);
	say("read", read(9, buf, 20));
	say("dup3 onto itself", dup3(9, 9, 0));
	close(9);
	close(e);
	{
		struct stat st;

		say("fstat of a closed end", fstat(9, &st));
	}
}

/* errors -- bad arguments */
static void errors(void)
{
	struct pollfd fds[3] = { { 30, POLLIN, 0 }, { -1, POLLIN, 0 }, { 0, 0, 0 } };
	struct { const void *set; size_t size; } mask;
	struct timespec ts = { 0, 0 };
	long tv[2] = { 0, -1 };
	sigset_t set;
	fd_set r;
	int p[2];

	say("pipe2 O_APPEND", pipe2(p, O_APPEND));
	say("pipe2 to a bad address", syscall(SYS_pipe2, (int *)8, 0));
	say("pipe", pipe(p));
	printf("descriptors %d %d\n", p[0], p[1]);
	FD_ZERO(&r);
	say("select n -1", select(-1, &r, NULL, NULL, &(struct timeval){ 0, 0 }));
	FD_SET(30, &r);
	say("select a closed descriptor", select(31, &r, NULL, NULL, NULL));
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	say("select usec -1", syscall(SYS_select, p[0] + 1, &r, NULL, NULL, tv));
	say("select sets at a bad address", select(p[0] + 1, (fd_set *)8, NULL, NULL, NULL));
	say("select timeout at a bad address",
	    syscall(SYS_select, p[0] + 1, &r, NULL, NULL, (void *)8));
	say("poll", poll(fds, 3, 0));
	printf("revents %#x %#x %#x\n", fds[0].revents, fds[1].revents, fds[2].revents);
	sigemptyset(&set);
	mask.set = &set;
	mask.size = 7;
	say("pselect6 mask of 7 bytes", syscall(SYS_pselect6, p[0] + 1, &r, NULL, NULL, &ts, &mask));
	say("ppoll mask of 7 bytes", syscall(SYS_ppoll, fds, 1, &ts, &set, 7));
	ts.tv_nsec = 1000000000;
	say("ppoll nsec 10^9", syscall(SYS_ppoll, fds, 1, &ts, NULL, 8));
	close(p[0]);
	close(p[1]);
}

/* timeouts -- finite waits on an empty pipe run their time, and no more
 * is left of it afterwards */
static void timeouts(void)
{
	struct timespec t0, ts = { 0, 20000000 };
	struct timeval tv = { 0, 30000 };
	struct pollfd pfd;
	fd_set r;
	int p[2];
	long n;

	pipe(p);
	pfd = (struct pollfd){ p[0], POLLIN, 0 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = poll(&pfd, 1, 50);
	printf("poll 50 ms: %ld, waited them %d\n", n, ms_since(&t0) >= 50);
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = select(p[0] + 1, &r, NULL, NULL, &tv);
	printf("select 30 ms: %ld, waited them %d, left %ld.%06ld, readable %d\n", n,
	       ms_since(&t0) >= 30, (long)tv.tv_sec, (long)tv.tv_usec, FD_ISSET(p[0], &r));
	FD_SET(p[0], &r);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = pselect(p[0] + 1, &r, NULL, NULL, &ts, NULL);
	printf("pselect 20 ms: %ld, waited them %d\n", n, ms_since(&t0) >= 20);
	ts = (struct timespec){ 0, 10000000 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = ppoll(&pfd, 1, &ts, NULL);
	printf("ppoll 10 ms: %ld, waited them %d\n", n, ms_since(&t0) >= 10);
	tv = (struct timeval){ 0, 20000 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = select(0, NULL, NULL, NULL, &tv);
	printf("select of nothing 20 ms: %ld, waited them %d\n", n, ms_since(&t0) >= 20);
	/* whole seconds of usec carried over; the time left written back */
	write(p[1], "x", 1);
	FD_SET(p[0], &r);
	tv = (struct timeval){ 0, 3000000 };
	n = select(p[0] + 1, &r, NULL, NULL, &tv);
	printf("select 3 s on a ready pipe: %ld, 2 to 3 s left %d\n", n,
	       tv.tv_sec * 1000000 + tv.tv_usec >= 2000000 &&
	       tv.tv_sec * 1000000 + tv.tv_usec <= 3000000);
	close(p[0]);
	close(p[1]);
}

/* raw -- the console in raw mode (on) or as it was */
static void raw(int on)
{
	static struct termios saved;
	struct termios t;

	if (on) {
		tcgetattr(0, &saved);
		t = saved;
		t.c_lflag &= ~(ICANON | ECHO);
		tcsetattr(0, TCSANOW, &t);
	} else {
		tcsetattr(0, TCSANOW, &saved);
	}
}

/* await -- poll stdin until FIONREAD shows n bytes (typed bytes may come in pieces) */
static void await(int n)
{
	struct pollfd pfd = { 0, POLLIN, 0 };

	while (ready(0) < n)
		poll(&pfd, 1, 20);
}

/* tty -- the console's size, its typed bytes, and waits they end */
static int tty(void)
{
	struct winsize ws = { 0 };
	struct timeval tv = { 600, 0 };
	struct pollfd fds[2];
	fd_set r;
	int p[2], n;

	say("TIOCSWINSZ", ioctl(1, TIOCSWINSZ, &(struct winsize){ .ws_row = 33, .ws_col = 101 }));
	say("TIOCGWINSZ", ioctl(0, TIOCGWINSZ, &ws));
	printf("window %d x %d\n", ws.ws_row, ws.ws_col);
	pipe(p);
	say("TIOCGWINSZ of a pipe", ioctl(p[0], TIOCGWINSZ, &ws));
	raw(1);
	printf("FIONREAD %d\n", ready(0));
	poll1("poll 100 ms, nothing typed", 0, POLLIN, 100);
	printf("type 3 bytes\n");
	fflush(stdout);
	FD_ZERO(&r);
	FD_SET(0, &r);
	n = select(1, &r, NULL, NULL, &tv);
	printf("select 600 s: %d, readable %d\n", n, FD_ISSET(0, &r));
	await(3);
	printf("FIONREAD %d\n", ready(0));
	n = (int)read(0, buf, 16);
	printf("read %d: %.3s\n", n, buf);
	printf("type 1 byte\n");
	fflush(stdout);
	fds[0] = (struct pollfd){ p[0], POLLIN, 0 };
	fds[1] = (struct pollfd){ 0, POLLIN, 0 };
	n = poll(fds, 2, 600000);
	printf("poll a pipe and the console 600 s: %d revents %#x %#x\n", n, fds[0].revents,
	       fds[1].revents);
	n = (int)read(0, buf, 16);
	printf("read %d: %.1s\n", n, buf);
	raw(0);
	printf("type a line\n");
	fflush(stdout);
	await(6);
	printf("FIONREAD %d\n", ready(0));
	n = (int)read(0, buf, 16);
	printf("read %d: %.*s", n, n, buf);
	return 0;
}

/* hold -- bytes wait in a pipe while the program waits for a line */
static int hold(void)
{
	long total = 0, r;
	int p[2], ok = 1;
	char line[64];

	pipe(p);
	for (int i = 0; i < 2000; i++)
		snprintf(buf + i * 10, 11, "line %04d\n", i);
	for (long at = 0; at < 20000; at += r)
		if ((r = write(p[1], buf + at, 20000 - at)) <= 0)
			return 1;
	printf("the pipe holds %d bytes; type a line\n", ready(p[0]));
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	close(p[1]);
	memset(buf, 0, sizeof(buf));
	while ((r = read(p[0], buf + total, 4096)) > 0)
		total += r;
	for (int i = 0; i < 2000; i++) {
		char want[11];

		snprintf(want, sizeof(want), "line %04d\n", i);
		ok &= !memcmp(buf + i * 10, want, 10);
	}
	printf("read back %ld bytes after '%.*s', in order %d\n", total,
	       (int)strcspn(line, "\n"), line, ok);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "tty"))
		return tty();
	if (argc > 1 && !strcmp(argv[1], "hold"))
		return hold();
	signal(SIGPIPE, SIG_IGN); /* EPIPE rather than the signal */
	ends();
	data();
	eof();
	epipe();
	full();
	dups();
	errors();
	timeouts();
	return 0;
}
