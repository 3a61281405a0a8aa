/*
 * fill_heap.c -- fill_heap IMAGE COUNT: add COUNT real objects to the heap
 * in IMAGE, fast, on the host, for the resume benchmark.
 *
 * Each object is a 64-byte blob named `bench/fill/ID` (its object id) in the
 * catalogue (so it is a real, reachable object: a name holds its one
 * reference), never written (blobs are sparse: a written one would take a
 * 4 KiB data page, and a million of them would not fit in 4 GiB), created
 * BATCH to a transaction through the objstore library
 * itself (build/host/libobjstore.a), exactly as the kernel would. The image
 * must hold a heap already (a Ferrite genesis): os_open rolls back the
 * epoch the kernel left unfinished, as a power-on would. Prints the object
 * and name counts afterwards. Exit status 0, or 1 with a message.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <numtext.h>                /* libc's, after the host's headers */

#include "ferrite/errors.h"
#include "host_platform.h"
#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "objstore/objstore.h"

#define BATCH 256 /* objects a transaction */

/* check -- exit with a message if err is an error */
static void check(int err, const char *what)
{
	if (err) {
		fprintf(stderr, "fill_heap: %s: error %d (include/ferrite/errors.h)\n",
			what, err);
		exit(1);
	}
}

/* add_one -- one more blob, bound to its name */
static void add_one(struct objstore *os)
{
	char name[40];
	uint64_t id;
	int len;

	check(os_obj_create(os, OS_TYPE_BLOB, 64, &id), "os_obj_create");
	len = snprintf(name, sizeof(name), "bench/fill/%llu", (unsigned long long)id);
	check(os_cat_insert(os, name, (uint64_t)len, id), "os_cat_insert");
}

/* main -- open the image, add the objects, report */
int main(int argc, char **argv)
{
	struct objstore os;
	struct os_stats st;
	struct stat sb;
	uint64_t count, i;
	void *base;
	int fd;

	if (argc != 3 || parse_number(argv[2], &count) < 0) {
		fprintf(stderr, "usage: fill_heap IMAGE COUNT\n");
		return 1;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || fstat(fd, &sb)) {
		perror(argv[1]);
		return 1;
	}
	base = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	check(os_open(&os, base, (uint64_t)sb.st_size, host_platform()), "os_open");
	for (i = 0; i < count; i++) {
		if (i % BATCH == 0)
			check(os_tx_begin(&os), "os_tx_begin");
		add_one(&os);
		if (i % BATCH == BATCH - 1 || i == count - 1)
			check(os_tx_commit(&os), "os_tx_commit");
	}
	os_stats(&os, &st);
	printf("fill_heap: %s: %llu objects, %llu names, epoch %llu\n", argv[1],
	       (unsigned long long)st.objects, (unsigned long long)st.names,
	       (unsigned long long)st.epoch);
	munmap(base, (size_t)sb.st_size);
	close(fd);
	return 0;
}
