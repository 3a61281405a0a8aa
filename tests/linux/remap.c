/*
 * remap.c -- mremap as programs use it, run in Ferrite and on the host and
 * compared line for line (tests/system/test_linux.py): growing in place,
 * growing by a move when the pages after are taken, shrinking, a move to
 * a fixed address, a piece of a mapping cut by munmap grown without
 * showing the bytes cut away, a file's mapping grown, the errors, the
 * C library's realloc of large blocks, and 200 mappings at once (more
 * than a kaspace holds itself: kformat.h) cut, protected and moved. No
 * line holds an address.
 *
 * `remap hold` makes the 200 mappings, says so, and waits for a line
 * before it reads them back: the test cuts power while it waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096ul

/* fill -- page i of [p, p+pages) holds byte 'a'+i, page by page from `from` */
static void fill(unsigned char *p, unsigned long from, unsigned long pages)
{
	for (unsigned long i = 0; i < pages; i++)
		memset(p + i * PAGE, 'a' + (int)(from + i), PAGE);
}

/* pages -- what the pages of [p, p+n) hold: a letter each, '0' for zeros,
 * '?' for a page of mixed bytes */
static const char *pages(const unsigned char *p, unsigned long n)
{
	static char out[64];
	unsigned long i;

	for (i = 0; i < n && i < sizeof(out) - 1; i++) {
		const unsigned char *q = p + i * PAGE;
		unsigned long j = 1;

		while (j < PAGE && q[j] == q[0])
			j++;
		out[i] = j < PAGE ? '?' : q[0] ? (char)q[0] : '0';
	}
	out[i] = 0;
	return out;
}

/* anon -- n fresh pages, at `at` (which must be free) if not NULL */
static unsigned char *anon(void *at, unsigned long n)
{
	void *p = mmap(at, n * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED_NOREPLACE : 0), -1, 0);

	if (p == MAP_FAILED || (at && p != at)) {
		printf("mmap: %s\n", strerror(errno));
		exit(1);
	}
	return p;
}

/* room -- the address of n free pages */
static unsigned char *room(unsigned long n)
{
	unsigned char *p = anon(NULL, n);

	munmap(p, n * PAGE);
	return p;
}

/* said -- an mremap's result as a line: where it went and what it shows */
static unsigned char *said(const char *what, void *got, const void *was, unsigned long n)
{
	if (got == MAP_FAILED) {
		printf("%s: %s\n", what, strerror(errno));
		return NULL;
	}
	printf("%s: %s, %s\n", what, got == was ? "in place" : "moved",
	       pages(got, n));
	return got;
}

static void grow_in_place_and_by_a_move(void)
{
	unsigned char *p = anon(NULL, 10), *q;

	fill(p, 0, 2);
	munmap(p + 2 * PAGE, 8 * PAGE);            /* room after it */
	q = said("grow in place", mremap(p, 2 * PAGE, 4 * PAGE, 0), p, 4);
	q[3 * PAGE] = 'z';
	printf("written past the old end: %s\n", pages(q, 4));
	anon(q + 4 * PAGE, 1);                     /* the next page taken */
	said("grow without room, not moving", mremap(q, 4 * PAGE, 6 * PAGE, 0), q, 4);
	p = said("grow without room, moving",
		 mremap(q, 4 * PAGE, 6 * PAGE, MREMAP_MAYMOVE), q, 6);
	p = said("shrink", mremap(p, 6 * PAGE, 3 * PAGE, 0), p, 3);
	printf("the cut pages are gone: %s\n",
	       mremap(p + 3 * PAGE, PAGE, PAGE, 0) == MAP_FAILED ? strerror(errno) : "mapped");
	munmap(p, 3 * PAGE);
	munmap(q + 4 * PAGE, PAGE);
}

static void a_piece_cut_by_munmap(void)
{
	unsigned char *p = anon(NULL, 9), *q;

	fill(p, 0, 9);
	munmap(p + 2 * PAGE, 2 * PAGE);            /* pages c and d cut away */
	munmap(p + 8 * PAGE, PAGE);                /* and i: room after the last piece */
	q = said("the first piece over the cut pages",
		 mremap(p, 2 * PAGE, 4 * PAGE, 0), p, 4);
	q = said("the last piece, grown", mremap(p + 4 * PAGE, 4 * PAGE, 5 * PAGE,
						 MREMAP_MAYMOVE), p + 4 * PAGE, 5);
	munmap(p, 4 * PAGE);
	munmap(q, 5 * PAGE);
}

static void to_a_fixed_address(void)
{
	unsigned char *p = anon(NULL, 3), *target = anon(NULL, 6), *q;

	fill(p, 0, 3);
	fill(target, 10, 6);
	q = said("to a fixed address, longer",
		 mremap(p, 3 * PAGE, 5 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, target), target, 6);
	printf("the old place: %s\n", mremap(p, PAGE, PAGE, 0) == MAP_FAILED ? strerror(errno) : "mapped");
	q = said("to a fixed address, shorter",
		 mremap(q, 5 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, p), p, 2);
	munmap(q, 2 * PAGE);
	munmap(target, 6 * PAGE);
}

static void a_file_s_mapping(void)
{
	int fd = open("remap.tmp", O_RDWR | O_CREAT | O_TRUNC, 0644);
	unsigned char buf[4 * PAGE], *p, *q;

	fill(buf, 0, 4);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		printf("remap.tmp: %s\n", strerror(errno));
		return;
	}
	p = room(4);
	p = mmap(p, 2 * PAGE, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	q = said("a file's shared mapping, grown",
		 mremap(p, 2 * PAGE, 4 * PAGE, MREMAP_MAYMOVE), p, 4);
	munmap(q, 4 * PAGE);
	p = room(4);
	p = mmap(p, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
	memset(p, 'Z', PAGE);                      /* a private copy of page a */
	q = said("a file's private mapping, grown",
		 mremap(p, 2 * PAGE, 4 * PAGE, MREMAP_MAYMOVE), p, 4);
	memset(q + 3 * PAGE, 'Y', PAGE);
	printf("written past the old end: %s\n", pages(q, 4));
	pread(fd, buf, sizeof(buf), 0);
	printf("the file: %s\n", pages(buf, 4));
	munmap(q, 4 * PAGE);
	close(fd);
	unlink("remap.tmp");
}

static void mistakes(void)
{
	unsigned char *p = anon(NULL, 2);

	said("not page aligned", mremap(p + 1, PAGE, 2 * PAGE, MREMAP_MAYMOVE), p, 0);
	said("unknown flags", mremap(p, PAGE, 2 * PAGE, 0x80), p, 0);
	said("fixed without maymove", mremap(p, PAGE, 2 * PAGE, MREMAP_FIXED, p + 8 * PAGE), p, 0);
	said("a new length of 0", mremap(p, PAGE, 0, MREMAP_MAYMOVE), p, 0);
	said("onto itself", mremap(p, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, p + PAGE), p, 0);
	said("past the mapping", mremap(p, 3 * PAGE, 4 * PAGE, MREMAP_MAYMOVE), p, 0);
	munmap(p, 2 * PAGE);
	said("nothing mapped", mremap(p, PAGE, 2 * PAGE, MREMAP_MAYMOVE), p, 0);
}

/* big_reallocs -- the C library grows a large block by mremap */
static void big_reallocs(void)
{
	size_t n = 256 * 1024;
	unsigned char *b = malloc(n);
	unsigned long sum = 0;

	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 7);
	for (int round = 0; round < 40; round++) {
		b = realloc(b, n + 64 * 1024);
		if (!b) {
			printf("realloc: %s\n", strerror(errno));
			return;
		}
		for (size_t i = n; i < n + 64 * 1024; i++)
			b[i] = (unsigned char)(i * 7);
		n += 64 * 1024;
	}
	for (size_t i = 0; i < n; i++)
		sum += b[i] == (unsigned char)(i * 7);
	printf("realloc to %zu KiB: %s\n", n / 1024, sum == n ? "every byte kept" : "bytes lost");
	free(b);
}

#define MANY 200

/* many_make -- MANY mappings of a page each, page i holding 'A' + i % 26;
 * neighbours differ in protection so that no kernel merges them */
static unsigned char *many_make(void)
{
	unsigned char *base = room(2 * MANY);

	for (unsigned long i = 0; i < MANY; i++) {
		unsigned char *p = anon(base + 2 * i * PAGE, 1);

		memset(p, 'A' + (int)(i % 26), PAGE);
		if (i % 2 && mprotect(p, PAGE, PROT_READ))
			printf("mprotect: %s\n", strerror(errno));
	}
	return base;
}

/* many_kept -- how many of the MANY pages from `base` still hold their letter */
static unsigned long many_kept(const unsigned char *base)
{
	unsigned long kept = 0;

	for (unsigned long i = 0; i < MANY; i++) {
		const unsigned char *p = base + 2 * i * PAGE;

		kept += p[0] == 'A' + i % 26 && p[PAGE - 1] == 'A' + i % 26;
	}
	return kept;
}

/* many_change -- cut, protect and move some of the MANY mappings, and
 * say what they hold after */
static void many_change(unsigned char *base)
{
	unsigned char *p, *q;
	unsigned long kept = 0;

	for (unsigned long i = 0; i < MANY; i += 4)
		munmap(base + 2 * i * PAGE, PAGE);
	for (unsigned long i = 1; i < MANY; i += 4)
		kept += base[2 * i * PAGE] == 'A' + i % 26;
	printf("a quarter unmapped, the others read: %lu of %d\n", kept, MANY / 4);
	p = base + 2 * 150 * PAGE;             /* page 150: read-write */
	q = mremap(p, PAGE, 2 * PAGE, MREMAP_MAYMOVE);
	printf("mapping 150 moved: %s\n", q == MAP_FAILED ? strerror(errno) : pages(q, 1));
	if (q != MAP_FAILED)
		munmap(q, 2 * PAGE);
	printf("mprotect over a hole: %s\n",
	       mprotect(base, 8 * PAGE, PROT_READ) ? strerror(errno) : "done");
	for (unsigned long i = 0; i < MANY; i++)
		if (i % 4 && i != 150)
			munmap(base + 2 * i * PAGE, PAGE);
}

static void many_mappings(void)
{
	unsigned char *base = many_make();

	printf("%d mappings: %lu pages kept\n", MANY, many_kept(base));
	many_change(base);
}

/* hold -- MANY mappings kept while the program waits for a line */
static int hold(void)
{
	unsigned char *base = many_make();
	char line[64];

	printf("%d mappings hold %lu pages; type a line\n", MANY, many_kept(base));
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	printf("after the line: %lu pages kept\n", many_kept(base));
	many_change(base);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && strcmp(argv[1], "hold") == 0)
		return hold();
	grow_in_place_and_by_a_move();
	a_piece_cut_by_munmap();
	to_a_fixed_address();
	a_file_s_mapping();
	mistakes();
	big_reallocs();
	many_mappings();
	return 0;
}
