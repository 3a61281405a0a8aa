/*
 * locks.c -- record locks (fcntl) and flock between programs, as SQLite
 * and others take them (tests/system/test_linux.py runs it in Ferrite and
 * on the host, and compares):
 *
 *   locks hold FILE         write-lock bytes 0-99 and read-lock 200-299
 *                           of FILE, flock it exclusively, say so, and
 *                           wait for a signal (the test ends it)
 *   locks probe FILE PID    what a second program meets while PID holds
 *                           them: F_GETLK's answers, F_SETLK's refusals
 *                           and grants, flock's, and the mistakes
 *   locks wait FILE         wait (F_SETLKW, then flock) for the holder's
 *                           locks, and say when each is taken
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static long holder;

/* lock -- fcntl(fd, cmd) with a struct flock of type, whence, start, len */
static int lock(int fd, int cmd, short type, short whence, long start, long len,
		struct flock *fl)
{
	*fl = (struct flock){ .l_type = type, .l_whence = whence, .l_start = start, .l_len = len };
	return fcntl(fd, cmd, fl);
}

static const char *type_name(short type)
{
	return type == F_RDLCK ? "read" : type == F_WRLCK ? "write" : type == F_UNLCK ? "no" : "?";
}

/* getlk -- F_GETLK of a lock of `type` on [start, start+len), as a line */
static void getlk(int fd, const char *what, short type, long start, long len)
{
	struct flock fl;

	if (lock(fd, F_GETLK, type, SEEK_SET, start, len, &fl) < 0) {
		printf("getlk %s: %s\n", what, strerror(errno));
		return;
	}
	if (fl.l_type == F_UNLCK)
		printf("getlk %s: nothing in the way\n", what);
	else
		printf("getlk %s: a %s lock on %ld+%ld by %s\n", what, type_name(fl.l_type),
		       (long)fl.l_start, (long)fl.l_len, fl.l_pid == holder ? "the holder" : "another");
}

/* setlk -- F_SETLK, as a line */
static void setlk(int fd, const char *what, short type, short whence, long start, long len)
{
	struct flock fl;

	printf("setlk %s: %s\n", what, lock(fd, F_SETLK, type, whence, start, len, &fl) < 0 ?
	       strerror(errno) : "granted");
}

/* try_flock -- flock, as a line */
static void try_flock(int fd, const char *what, int op)
{
	printf("flock %s: %s\n", what, flock(fd, op) < 0 ? strerror(errno) : "granted");
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags | O_CREAT, 0644);

	if (fd < 0) {
		printf("%s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

static int hold(const char *path)
{
	int fd = open_or_die(path, O_RDWR);
	struct flock fl;

	if (lock(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 100, &fl) < 0 ||
	    lock(fd, F_SETLK, F_RDLCK, SEEK_SET, 200, 100, &fl) < 0 || flock(fd, LOCK_EX) < 0) {
		printf("hold: %s\n", strerror(errno));
		return 1;
	}
	printf("hold: locked\n");
	for (;;)
		pause();
}

static int probe(const char *path)
{
	int fd = open_or_die(path, O_RDWR), ro = open_or_die(path, O_RDONLY);

	getlk(fd, "write 0+100", F_WRLCK, 0, 100);
	getlk(fd, "read 250+10", F_RDLCK, 250, 10);
	getlk(fd, "write 250+10", F_WRLCK, 250, 10);
	getlk(fd, "write 100+100", F_WRLCK, 100, 100);
	getlk(fd, "write 100-50 (before 100)", F_WRLCK, 100, -50);
	getlk(fd, "write from 150 to the end", F_WRLCK, 150, 0);
	setlk(fd, "write 50+10", F_WRLCK, SEEK_SET, 50, 10);
	setlk(fd, "read 0+1", F_RDLCK, SEEK_SET, 0, 1);
	setlk(fd, "read 200+100", F_RDLCK, SEEK_SET, 200, 100);
	setlk(fd, "write 100+100", F_WRLCK, SEEK_SET, 100, 100);
	setlk(fd, "write from 1000 to the end", F_WRLCK, SEEK_SET, 1000, 0);
	getlk(fd, "write 100+100, its own", F_WRLCK, 100, 100);
	setlk(fd, "unlock 120+10 (a split)", F_UNLCK, SEEK_SET, 120, 10);
	setlk(fd, "write 250+10 (read-locked by the holder)", F_WRLCK, SEEK_SET, 250, 10);
	setlk(fd, "unlock all of it", F_UNLCK, SEEK_SET, 0, 0);
	try_flock(fd, "shared, not waiting", LOCK_SH | LOCK_NB);
	try_flock(fd, "exclusive, not waiting", LOCK_EX | LOCK_NB);
	try_flock(fd, "unlocked", LOCK_UN);
	/* mistakes */
	setlk(fd, "of type 7", 7, SEEK_SET, 0, 1);
	setlk(fd, "whence 9", F_WRLCK, 9, 0, 1);
	setlk(fd, "from -5", F_WRLCK, SEEK_SET, -5, 1);
	setlk(fd, "from 5 back 10", F_WRLCK, SEEK_SET, 5, -10);
	setlk(ro, "write, read-only", F_WRLCK, SEEK_SET, 5000, 1);
	getlk(fd, "unlock", F_UNLCK, 0, 1);
	setlk(99, "of descriptor 99", F_WRLCK, SEEK_SET, 0, 1);
	try_flock(fd, "of operation 0", 0);
	try_flock(99, "of descriptor 99", LOCK_SH);
	return 0;
}

static int wait_for_them(const char *path)
{
	int fd = open_or_die(path, O_RDWR);
	struct flock fl;

	printf("wait: waiting for the write lock\n");
	if (lock(fd, F_SETLKW, F_WRLCK, SEEK_SET, 0, 100, &fl) < 0) {
		printf("wait: %s\n", strerror(errno));
		return 1;
	}
	printf("wait: got the write lock\n");
	if (flock(fd, LOCK_EX) < 0) {
		printf("wait: %s\n", strerror(errno));
		return 1;
	}
	printf("wait: got the flock\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "probe")) {
		holder = strtol(argv[3], NULL, 10);
		return probe(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "wait"))
		return wait_for_them(argv[2]);
	fprintf(stderr, "usage: locks hold FILE | probe FILE PID | wait FILE\n");
	return 2;
}
