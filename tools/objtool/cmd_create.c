/*
 * cmd_create.c -- objtool create --size SIZE IMAGE: a new, empty image.
 *
 * The only command that makes a file. It refuses an existing file unless
 * --force, and even then takes the exclusive lock before truncating, so an
 * image a running QEMU owns is never destroyed. The file is sized with
 * ftruncate and stays sparse: os_create writes the superblock, root block,
 * log head, page descriptors and free-page stack, never the data pages.
 * os_create writes the superblock last, so a create cut short leaves a
 * file objtool and the kernel call "not a Ferrite image", never a heap.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objtool.h"

#define NVM_ALIGN (2u << 20)        /* tools/run-qemu's rule for NVM sizes */
#define LOG_FLOOR (64u << 10)       /* objstore's smallest log */

/* create_sizes -- --size and --log-size, parsed and checked; an exit status */
static int create_sizes(const struct args *a, uint64_t *size, uint64_t *log_size)
{
	char s[32];

	if (!a->opt[0])
		return fail(EXIT_USAGE, "create: --size SIZE is required (see objtool create --help)");
	if (parse_size(a->opt[0], size) < 0)
		return fail(EXIT_USAGE, "create: invalid size '%s': a number with an "
			    "optional K, M or G suffix, e.g. 64M", a->opt[0]);
	if (*size < OS_MIN_HEAP_SIZE || *size % NVM_ALIGN)
		return fail(EXIT_USAGE, "create: the size must be a multiple of 2 MiB, "
			    "at least %s (QEMU maps the image as an NVDIMM)",
			    size_text(s, sizeof(s), OS_MIN_HEAP_SIZE));
	*log_size = 0;
	if (a->opt[1] && parse_size(a->opt[1], log_size) < 0)
		return fail(EXIT_USAGE, "create: invalid log size '%s'", a->opt[1]);
	if (a->opt[1] && (*log_size < LOG_FLOOR || *log_size % OS_PAGE_SIZE ||
			  *log_size >= *size / 2))
		return fail(EXIT_USAGE, "create: the log size must be a multiple of 4 KiB, "
			    "at least 64 KiB and less than half the image");
	return EXIT_OK;
}

/* create_layout -- --max-size and --layout into opts; an exit status */
static int create_layout(const struct args *a, uint64_t size, struct os_create_opts *opts)
{
	char s[32];

	if (a->opt[3] && (parse_size(a->opt[3], &opts->max_size) < 0 ||
			  opts->max_size < size))
		return fail(EXIT_USAGE, "create: invalid --max-size '%s': a size at least "
			    "--size's %s", a->opt[3], size_text(s, sizeof(s), size));
	if (!a->opt[4])
		return EXIT_OK;
	if (strcmp(a->opt[4], "2.1") == 0 || strcmp(a->opt[4], "2.2") == 0)
		opts->layout_minor = (uint16_t)(a->opt[4][2] - '0');
	else if (strcmp(a->opt[4], "2.3") != 0)
		return fail(EXIT_USAGE, "create: --layout takes 2.1, 2.2 or 2.3 (the default), "
			    "not '%s'", a->opt[4]);
	if (opts->layout_minor && a->opt[3])
		return fail(EXIT_USAGE, "create: --max-size needs layout 2.3: older heaps "
			    "cannot grow");
	return EXIT_OK;
}

/* format -- size the file and format it as an empty heap; an exit status */
static int format(int fd, const char *path, uint64_t size, struct os_create_opts *opts,
		  struct os_stats *st)
{
	uint8_t heap_id[16];
	struct objstore os;
	void *base;
	int err;

	if (ftruncate(fd, 0) != 0 || ftruncate(fd, (off_t)size) != 0)
		return fail(EXIT_FAILED, "create: cannot size %s: %s", path, strerror(errno));
	if (getrandom(heap_id, sizeof(heap_id), 0) != sizeof(heap_id))
		return fail(EXIT_FAILED, "create: no random bytes for the heap id: %s",
			    strerror(errno));
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return fail(EXIT_FAILED, "create: cannot map %s: %s", path, strerror(errno));
	opts->heap_id = heap_id;
	err = os_create(&os, base, size, image_platform(), opts);
	if (!err)
		os_stats(&os, st);
	if (!err && (msync(base, size, MS_SYNC) != 0 || fsync(fd) != 0))
		err = -ERR_IO;
	munmap(base, size);
	if (err == -ERR_NOSPC)
		return fail(EXIT_FAILED, "create: %s is too small for its metadata and log",
			    path);
	if (err)
		return fail(EXIT_FAILED, "create: %s: %s", path,
			    err == -ERR_IO ? strerror(errno) : os_err_text(err));
	return EXIT_OK;
}

/* run_create -- objtool create --size SIZE [--log-size SIZE] [--force] IMAGE */
static int run_create(struct image *unused, const struct args *a)
{
	const char *path = a->pos[0];
	bool force = a->opt[2] != NULL;
	struct os_create_opts opts = { 0 };
	uint64_t size;
	struct os_stats st;
	struct stat fs;
	char s1[32], s2[32], s3[32];
	int fd, status = create_sizes(a, &size, &opts.log_size);

	(void)unused;
	if (!status)
		status = create_layout(a, size, &opts);
	if (status)
		return status;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | (force ? 0 : O_EXCL), 0644);
	if (fd < 0 && errno == EEXIST)
		return fail(EXIT_FAILED, "create: %s exists (--force overwrites it)", path);
	if (fd < 0)
		return fail(EXIT_FAILED, "create: cannot create %s: %s", path, strerror(errno));
	status = image_lock_file(fd, path, true);
	if (!status && (fstat(fd, &fs) != 0 || !S_ISREG(fs.st_mode)))
		status = fail(EXIT_FAILED, "create: %s is not a regular file", path);
	if (status) {
		close(fd);
		return status;
	}
	status = format(fd, path, size, &opts, &st);
	if (status)
		unlink(path); /* no half-made image is left behind */
	else
		printf("create: %s: %s, %" PRIu64 " data pages, log %s, can grow to %s\n", path,
		       size_text(s1, sizeof(s1), size), st.page_count,
		       size_text(s2, sizeof(s2), st.log_size),
		       size_text(s3, sizeof(s3), st.max_size));
	close(fd);
	return status;
}

const struct command cmd_create = {
	.name = "create",
	.access = ACCESS_NONE,
	.min_pos = 1,
	.max_pos = 1,
	.opts = { { "--size", 0, true }, { "--log-size", 0, true },
		  { "--force", 0, false }, { "--max-size", 0, true },
		  { "--layout", 0, true } },
	.usage = "create --size SIZE [--log-size SIZE] [--max-size SIZE] [--layout V] [--force] IMAGE",
	.summary = "make a new, empty image file",
	.help = "Creates IMAGE, a sparse file of SIZE bytes, and formats it as an empty\n"
		"Ferrite heap with a random heap id. IMAGE must not exist, unless --force\n"
		"(which takes the image's lock first: one in use is refused).\n\n"
		"  --size SIZE       a multiple of 2 MiB, at least 4 MiB (K, M, G suffixes)\n"
		"  --log-size SIZE   the undo log (default: SIZE/16, clamped to 256 KiB..64 MiB;\n"
		"                    a multiple of 4 KiB, at least 64 KiB); it bounds the\n"
		"                    largest import, see 'Log size' in docs/objtool.md\n"
		"  --max-size SIZE   the largest size 'grow' (or a power-on of a larger NVM)\n"
		"                    can give the heap (default 4 x SIZE): its page descriptors\n"
		"                    and free-page stack take 36 bytes per page of it\n"
		"  --layout V        2.3 (the default), or 2.2 or 2.1: an older heap, which\n"
		"                    cannot grow (for tests of what older images do)\n"
		"  --force           overwrite an existing IMAGE\n",
	.run = run_create,
};
