/*
 * meta.c -- a file's mode and times as a Linux program sees them: umask
 * applied at creation, chmod and its kin, utimensat and futimens (with
 * UTIME_NOW and UTIME_OMIT), stat and statx, a write moving the mtime,
 * and the errors of bad arguments. Built by glibc and by musl; prints the
 * same lines in Ferrite as on the host (tests/system/test_linux.py).
 * Works in the directory m/ below its current one, removed at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* struct statx as the kernel fills it (musl's headers lack it) */
struct sx_time {
	int64_t sec;
	uint32_t nsec;
	int32_t reserved;
};

struct sx {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	struct sx_time atime, btime, ctime, mtime;
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t spare[14];
};

#define SX_BASIC 0x7ffu

static int statx_call(int dirfd, const char *path, int flags, unsigned mask, struct sx *out)
{
	return (int)syscall(SYS_statx, dirfd, path, flags, mask, out);
}

/* said -- a call's result as the test prints it: 0, or the errno's name */
static const char *said(int r)
{
	static char text[32];

	if (r >= 0)
		return "0";
	switch (errno) {
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case EFAULT: return "EFAULT";
	case EPERM: return "EPERM";
	case ENOTDIR: return "ENOTDIR";
	default:
		snprintf(text, sizeof(text), "errno %d", errno);
		return text;
	}
}

/* show -- a file's mode and mtime by stat */
static void show(const char *what, const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		printf("%s: stat %s\n", what, said(-1));
		return;
	}
	printf("%s: mode %04o type %s size %lld mtime ", what,
	       (unsigned)st.st_mode & 07777, S_ISREG(st.st_mode) ? "file" : "other",
	       (long long)st.st_size);
	if (st.st_mtim.tv_sec > time(NULL) - 60)
		printf("now\n"); /* every time set below is long ago */
	else
		printf("%lld.%09ld\n", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* recent -- whether a file's mtime is within a minute of now */
static const char *recent(const char *path)
{
	struct stat st;
	time_t now = time(NULL);

	if (stat(path, &st))
		return said(-1);
	return st.st_mtim.tv_sec > now - 60 && st.st_mtim.tv_sec <= now + 1 ? "now" : "not now";
}

static void set_times(const char *what, int dirfd, const char *path, long asec, long ansec,
		      long msec, long mnsec, int flags)
{
	struct timespec ts[2] = { { asec, ansec }, { msec, mnsec } };

	printf("%s: %s\n", what, said(utimensat(dirfd, path, ts, flags)));
}

int main(void)
{
	struct timespec omit[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
	struct timespec bad[2] = { { 0, 0 }, { 0, 1000000000 } };
	struct sx s;
	int fd;

	umask(027);
	mkdir("m", 0755);
	fd = open("m/a", O_CREAT | O_WRONLY | O_TRUNC, 0666);
	printf("open: %s\n", fd >= 0 ? "0" : said(-1));
	show("umask 027 of 0666", "m/a");
	umask(0);
	close(open("m/b", O_CREAT | O_WRONLY, 0751));
	show("umask 0 of 0751", "m/b");

	/* chmod and its kin */
	printf("fchmod: %s\n", said(fchmod(fd, 0600)));
	show("fchmod 0600", "m/a");
	printf("chmod: %s\n", said(chmod("m/a", 0104755)));
	show("chmod 0104755", "m/a");
	printf("fchmodat: %s\n", said(fchmodat(AT_FDCWD, "m/b", 01000, 0)));
	show("fchmodat 01000", "m/b");
	printf("chmod of nothing: %s\n", said(chmod("m/none", 0644)));
	printf("fchmod of a bad fd: %s\n", said(fchmod(99, 0644)));
	printf("chmod of a directory to its mode: %s\n", said(chmod("m", 0755)));

	/* times */
	set_times("utimensat", AT_FDCWD, "m/a", 5, 0, 1700000000, 123456789, 0);
	show("mtime set", "m/a");
	set_times("utimensat, mtime omitted", AT_FDCWD, "m/a", 7, 0, 0, UTIME_OMIT, 0);
	show("mtime kept", "m/a");
	set_times("utimensat, before 1970", AT_FDCWD, "m/b", 0, 0, -100, 5, 0);
	show("mtime before 1970", "m/b");
	printf("futimens, mtime omitted: %s\n", said(futimens(fd, omit)));
	show("mtime kept", "m/a");
	set_times("utimensat, UTIME_NOW", AT_FDCWD, "m/b", 0, UTIME_OMIT, 0, UTIME_NOW, 0);
	printf("mtime now: %s\n", recent("m/b"));
	set_times("utimensat, 10^9 ns", AT_FDCWD, "m/a", 0, 0, 1, 1000000000, 0);
	set_times("utimensat, -1 ns", AT_FDCWD, "m/a", 0, -1, 1, 0, 0);
	set_times("utimensat of nothing", AT_FDCWD, "m/none", 0, 0, 1, 0, 0);
	printf("utimensat of nothing, both omitted: %s\n",
	       said(utimensat(AT_FDCWD, "m/none", omit, 0)));
	printf("utimensat of nothing, bad times: %s\n",
	       said(utimensat(AT_FDCWD, "m/none", bad, 0)));
	set_times("utimensat, bad flags", AT_FDCWD, "m/a", 0, 0, 1, 0, 0x4);
	printf("futimens of a bad fd: %s\n", said(futimens(99, NULL)));
	printf("utimensat of the directory: %s\n", said(utimensat(AT_FDCWD, "m", NULL, 0)));
	show("mtime kept", "m/a");

	/* a write moves the mtime to now; so does a truncation */
	set_times("utimensat", AT_FDCWD, "m/a", 0, 0, 1000, 0, 0);
	printf("write: %zd\n", write(fd, "hello\n", 6));
	printf("mtime after a write: %s\n", recent("m/a"));
	set_times("utimensat", AT_FDCWD, "m/a", 0, 0, 1000, 0, 0);
	printf("ftruncate: %s\n", said(ftruncate(fd, 3)));
	printf("mtime after ftruncate: %s\n", recent("m/a"));
	set_times("utimensat", AT_FDCWD, "m/a", 0, 0, 2000, 0, 0);
	printf("futimens, now: %s\n", said(futimens(fd, NULL)));
	printf("mtime after futimens: %s\n", recent("m/a"));
	close(fd);

	/* statx */
	set_times("utimensat", AT_FDCWD, "m/a", 0, 0, 1600000000, 42, 0);
	memset(&s, 0, sizeof(s));
	printf("statx: %s\n", said(statx_call(AT_FDCWD, "m/a", 0, SX_BASIC, &s)));
	printf("statx: mask has basic %d, mode %04o file %d, size %llu, mtime %lld.%09u\n",
	       (s.mask & SX_BASIC) == SX_BASIC, s.mode & 07777, S_ISREG(s.mode),
	       (unsigned long long)s.size, (long long)s.mtime.sec, s.mtime.nsec);
	fd = open("m/a", O_RDONLY);
	memset(&s, 0, sizeof(s));
	printf("statx of an fd, AT_EMPTY_PATH: %s", said(statx_call(fd, "", AT_EMPTY_PATH, SX_BASIC, &s)));
	printf(", size %llu\n", (unsigned long long)s.size);
	close(fd);
	printf("statx of the directory: %s", said(statx_call(AT_FDCWD, "m", 0, SX_BASIC, &s)));
	printf(", dir %d\n", S_ISDIR(s.mode));
	printf("statx of nothing: %s\n", said(statx_call(AT_FDCWD, "m/none", 0, SX_BASIC, &s)));
	printf("statx, both sync flags: %s\n",
	       said(statx_call(AT_FDCWD, "m/a", 0x6000, SX_BASIC, &s)));
	printf("statx, a reserved mask bit: %s\n",
	       said(statx_call(AT_FDCWD, "m/a", 0, 0x80000000u, &s)));
	printf("statx, a bad flag: %s\n", said(statx_call(AT_FDCWD, "m/a", 0x1, SX_BASIC, &s)));

	unlink("m/a");
	unlink("m/b");
	rmdir("m");
	return 0;
}
