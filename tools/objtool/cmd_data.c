/*
 * cmd_data.c -- moving bytes between objects and host files: cat and
 * export (read-only), import (one transaction).
 *
 * import is all or nothing: creating the object, writing every byte,
 * dropping a replaced object and binding the name are one transaction.
 * That works for files of any size that fits the heap because fresh pages
 * cost the undo log only their allocation records, never their contents
 * (nothing needs restoring in a page that did not exist before): see
 * "Log size" in docs/objtool.md for the numbers. An import that does not
 * fit is refused (-ERR_NOSPC) and aborted, never split.
 *
 * import --type code checks the file with the kernel's own ELF checker
 * (kernel/task/elf.c, built into objtool): a code object objtool makes is
 * one a spawn accepts, refused for the reasons a spawn would give.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ferrite/syscall.h>

#include "objtool.h"
#include "task/elf.h"

#define CHUNK (1u << 20)

/*
 * Log bytes an import leaves unused, so that `rm` can delete what it
 * imported. A delete logs as much per page as the import did (256 bytes),
 * but before each step object.c reserves room for its worst case, which
 * near the end of a delete is about 7.5 KiB + 1.1 KiB per id-index level
 * + 2.1 KiB per level of the object's tree (about 16.5 KiB for 512 GiB
 * objects among 100 million). Without this margin an import that just
 * fits the log would make an object no single transaction can delete.
 */
#define IMPORT_LOG_MARGIN (20u << 10)

/* same_file -- whether fd is the image file itself */
static bool same_file(const struct image *img, int fd)
{
	struct stat a, b;

	return fstat(img->fd, &a) == 0 && fstat(fd, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* copy_out -- write object `id`'s bytes to fd; an exit status */
static int copy_out(struct image *img, const char *cmd, uint64_t id, int fd,
		    const char *dest)
{
	struct os_obj_info info;
	uint8_t *buf = malloc(CHUNK);
	int status = EXIT_OK;

	if (!buf)
		return fail(EXIT_FAILED, "%s: out of memory", cmd);
	os_obj_stat(&img->os, id, &info); /* resolve_object checked it */
	for (uint64_t off = 0; off < info.size;) {
		int64_t n = os_obj_read(&img->os, id, off, buf, CHUNK);

		if (n <= 0) {
			status = fail(n ? os_err_exit((int)n) : EXIT_CORRUPT,
				      "%s: reading object #%" PRIu64 " at byte %" PRIu64 ": %s",
				      cmd, id, off, n ? os_err_text((int)n) :
				      "it ends before its size");
			break;
		}
		if (write_all(fd, buf, (size_t)n) != 0) {
			status = fail(EXIT_FAILED, "%s: cannot write %s: %s", cmd, dest,
				      strerror(errno));
			break;
		}
		off += (uint64_t)n;
	}
	free(buf);
	return status;
}

/* run_cat -- objtool IMAGE cat NAME|#ID */
static int run_cat(struct image *img, const struct args *a)
{
	const char *name;
	uint64_t id;
	int status = resolve_object(img, "cat", a->pos[0], &id, &name);

	if (status)
		return status;
	fflush(stdout);
	return copy_out(img, "cat", id, STDOUT_FILENO, "the standard output");
}

const struct command cmd_cat = {
	.name = "cat",
	.access = ACCESS_READ,
	.min_pos = 1,
	.max_pos = 1,
	.opts = { { "--snapshot", 0, true } },
	.usage = "cat NAME|#ID [--snapshot NAME]",
	.summary = "an object's bytes, to the standard output",
	.help = "Writes the object's bytes, exactly its size, to the standard output.\n"
		"\n  --snapshot NAME  read snapshot NAME's state instead of the live one\n"
		"                   (objtool IMAGE snapshots lists them; exit status 8\n"
		"                   if there is none of that name)\n",
	.run = run_cat,
};

/* run_export -- objtool IMAGE export NAME|#ID FILE */
static int run_export(struct image *img, const struct args *a)
{
	const char *name, *file = a->pos[1];
	struct stat st;
	uint64_t id;
	int status = resolve_object(img, "export", a->pos[0], &id, &name);
	int fd;

	if (status)
		return status;
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail(EXIT_FAILED, "export: cannot create %s: %s", file, strerror(errno));
	if (same_file(img, fd)) {
		close(fd);
		return fail(EXIT_USAGE, "export: %s is the image itself", file);
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0)
		status = fail(EXIT_FAILED, "export: cannot truncate %s: %s", file,
			      strerror(errno));
	if (!status)
		status = copy_out(img, "export", id, fd, file);
	if (close(fd) != 0 && !status)
		status = fail(EXIT_FAILED, "export: cannot write %s: %s", file,
			      strerror(errno));
	return status;
}

const struct command cmd_export = {
	.name = "export",
	.access = ACCESS_READ,
	.min_pos = 2,
	.max_pos = 2,
	.opts = { { "--snapshot", 0, true } },
	.usage = "export NAME|#ID FILE [--snapshot NAME]",
	.summary = "copy an object's bytes to a host file",
	.help = "Copies the object's bytes to FILE, created or overwritten, byte for\n"
		"byte: export after import gives back the imported file exactly.\n"
		"\n  --snapshot NAME  read snapshot NAME's state instead of the live one\n"
		"                   (objtool IMAGE snapshots lists them; exit status 8\n"
		"                   if there is none of that name)\n",
	.run = run_export,
};

/* --- import ------------------------------------------------------------- */

/* A host file as elf_parse reads it. */
struct elf_file {
	int fd;
	int err;                    /* errno of a read that failed, or 0 */
};

/* elf_file_read -- elf_parse's reader: len bytes at off of the file */
static int64_t elf_file_read(void *ctx, uint64_t off, void *buf, uint64_t len)
{
	struct elf_file *f = ctx;
	ssize_t n;

	do
		n = pread(f->fd, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		f->err = errno;
		return -ERR_IO;
	}
	return n;
}

/* check_elf -- whether fd (size bytes) holds a program Ferrite runs, as the
 * kernel checks one before a spawn (anywhere in the user half); an exit
 * status */
static int check_elf(int fd, const char *file, uint64_t size)
{
	struct elf_file f = { .fd = fd };
	struct elf_image img;
	const char *why;
	int err = elf_parse(elf_file_read, &f, size, FE_USER_BASE, FE_USER_TOP, &img, &why);

	if (f.err)
		return fail(EXIT_FAILED, "import: cannot read %s: %s", file, strerror(f.err));
	if (err)
		return fail(EXIT_FAILED, "import: %s: %s: --type code takes an ELF64 x86_64 "
			    "executable as docs/programs.md describes", file, why);
	return EXIT_OK;
}

/* pages_needed -- data pages and radix index pages for `size` bytes */
static uint64_t pages_needed(uint64_t size)
{
	uint64_t data = (size + OS_PAGE_SIZE - 1) / OS_PAGE_SIZE, total = data;

	for (uint64_t level = data; level > 1;) {
		level = (level + OS_RADIX_FANOUT - 1) / OS_RADIX_FANOUT;
		total += level;
	}
	return total;
}

/* What import has found out before its transaction. */
struct import_plan {
	const char *name, *file;
	uint16_t type;
	bool replace;
	bool exists;                /* the name is bound: to old_id */
	uint64_t old_id;
	int fd;
	uint64_t size;
};

/* plan_name -- the name's validity and current binding, read-only */
static int plan_name(struct image *img, struct import_plan *p)
{
	char text[NAME_TEXT_MAX];
	const char *name;
	int err = os_cat_name_ok(p->name, strlen(p->name));

	name_text(text, p->name, strlen(p->name));
	if (err)
		return fail(EXIT_USAGE, "import: '%s' is not a valid name (1 to %d bytes)",
			    text, OS_NAME_MAX);
	err = os_cat_lookup(&img->os, p->name, strlen(p->name), &p->old_id);
	if (err == -ERR_NOENT)
		return EXIT_OK;
	if (err)
		return fail(os_err_exit(err), "import: looking up '%s': %s", text,
			    os_err_text(err));
	if (!p->replace)
		return fail(EXIT_FAILED, "import: '%s' already exists (--replace replaces it)",
			    text);
	p->exists = true;
	return resolve_object(img, "import", p->name, &p->old_id, &name);
}

/* plan_file -- open the host file and check it fits; an exit status */
static int plan_file(struct image *img, struct import_plan *p)
{
	struct os_stats st;
	struct stat fs;
	char have[32], need[32];
	uint64_t pages;

	p->fd = open(p->file, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0)
		return fail(EXIT_FAILED, "import: cannot open %s: %s", p->file, strerror(errno));
	if (fstat(p->fd, &fs) != 0 || !S_ISREG(fs.st_mode))
		return fail(EXIT_FAILED, "import: %s is not a regular file", p->file);
	if (same_file(img, p->fd))
		return fail(EXIT_USAGE, "import: %s is the image itself", p->file);
	p->size = (uint64_t)fs.st_size;
	if (p->type == OS_TYPE_CODE) {
		int status = check_elf(p->fd, p->file, p->size);

		if (status)
			return status;
	}
	/* Refuse what clearly cannot fit before writing anything. */
	os_stats(&img->os, &st);
	pages = pages_needed(p->size);
	if (pages > st.pages_free)
		return fail(EXIT_FAILED, "import: %s needs %" PRIu64 " data pages (%s), "
			    "the image has %" PRIu64 " free (%s)", p->file, pages,
			    size_text(need, sizeof(need), pages * OS_PAGE_SIZE),
			    st.pages_free,
			    size_text(have, sizeof(have), st.pages_free * OS_PAGE_SIZE));
	return EXIT_OK;
}

/* copy_in -- write the file's bytes into new object `id`; 0, an objstore
 * error, or 1 with errno set for a host-file error */
static int copy_in(struct image *img, const struct import_plan *p, uint64_t id,
		   uint8_t *buf, uint64_t *at)
{
	for (*at = 0; *at < p->size;) {
		uint64_t want = p->size - *at < CHUNK ? p->size - *at : CHUNK;
		ssize_t n = pread(p->fd, buf, want, (off_t)*at);
		int64_t w;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENODATA; /* the file shrank */
			return 1;
		}
		w = os_obj_write(&img->os, id, *at, buf, (uint64_t)n);
		if (w <= 0)
			return w ? (int)w : -ERR_IO; /* 0: no progress */
		*at += (uint64_t)w;
	}
	return 0;
}

/* import_tx -- the transaction: create, fill, unbind the old, bind */
static int import_tx(struct image *img, const struct import_plan *p, uint8_t *buf,
		     uint64_t *id)
{
	uint64_t len = strlen(p->name), at = 0, gone;
	struct os_stats st;
	uint32_t count;
	int err, status = image_tx_begin(img, "import");

	if (status)
		return status;
	err = os_obj_create(&img->os, p->type, p->size, id);
	if (err)
		return image_tx_fail(img, "import", err, "creating the object");
	err = copy_in(img, p, *id, buf, &at);
	if (err == 1) {
		int e = errno;

		os_tx_abort(&img->os);
		return fail(EXIT_FAILED, "import: reading %s at byte %" PRIu64 ": %s; "
			    "aborted, nothing was changed", p->file, at,
			    e == ENODATA ? "the file shrank" : strerror(e));
	}
	if (err)
		return image_tx_fail(img, "import", err, "writing the object");
	if (p->exists) {
		err = os_cat_remove(&img->os, p->name, len, &gone);
		if (!err)
			err = os_obj_ref(&img->os, gone, -1, &count);
		if (!err && count == 0)
			err = os_obj_delete(&img->os, gone);
		if (err)
			return image_tx_fail(img, "import", err, "dropping the replaced object");
	}
	err = os_cat_insert(&img->os, p->name, len, *id);
	if (err)
		return image_tx_fail(img, "import", err, "binding the name");
	os_stats(&img->os, &st);
	if (st.log_size - st.log_used < IMPORT_LOG_MARGIN)
		return image_tx_fail(img, "import", -ERR_NOSPC,
				     "keeping room to delete the object again");
	return image_tx_commit(img, "import");
}

/* run_import -- objtool IMAGE import NAME FILE [--type blob|code] [--replace] */
static int run_import(struct image *img, const struct args *a)
{
	struct import_plan p = { .name = a->pos[0], .file = a->pos[1], .fd = -1,
				 .type = OS_TYPE_BLOB, .replace = a->opt[1] != NULL };
	char text[NAME_TEXT_MAX], s[32];
	uint8_t *buf = NULL;
	uint64_t id = 0;
	int status;

	if (a->opt[0] && strcmp(a->opt[0], "code") == 0)
		p.type = OS_TYPE_CODE;
	else if (a->opt[0] && strcmp(a->opt[0], "blob") != 0)
		return fail(EXIT_USAGE, "import: --type is blob or code, not '%s'", a->opt[0]);
	status = plan_name(img, &p);
	if (!status)
		status = plan_file(img, &p);
	if (!status && !(buf = malloc(CHUNK)))
		status = fail(EXIT_FAILED, "import: out of memory");
	if (!status)
		status = import_tx(img, &p, buf, &id);
	if (!status)
		printf("import: '%s' is #%" PRIu64 ", %s, %" PRIu64 " bytes (%s)\n",
		       name_text(text, p.name, strlen(p.name)), id, os_obj_type_name(p.type),
		       p.size, size_text(s, sizeof(s), p.size));
	free(buf);
	if (p.fd >= 0)
		close(p.fd);
	return status;
}

const struct command cmd_import = {
	.name = "import",
	.access = ACCESS_WRITE,
	.min_pos = 2,
	.max_pos = 2,
	.opts = { { "--type", 0, true }, { "--replace", 0, false } },
	.usage = "import NAME FILE [--type blob|code] [--replace]",
	.summary = "a host file as a new object bound to NAME",
	.help = "Creates an object of FILE's size, copies FILE into it and binds NAME\n"
		"to it, all in one transaction: killed at any instant, objtool leaves\n"
		"NAME either absent (or bound to its old object) or bound to the whole\n"
		"file. An import too large for the image's undo log is refused and\n"
		"changes nothing (see 'Log size' in docs/objtool.md).\n\n"
		"  --type blob   bytes (the default)\n"
		"  --type code   a program Ferrite runs in place: an ELF64 x86_64\n"
		"                executable, checked as the kernel checks one before it\n"
		"                runs it (docs/programs.md); anything else is refused.\n"
		"                A dynamic Linux binary runs once its loader and libraries\n"
		"                are in the image too: tools/fe put-linux --offline puts all\n"
		"                of them (docs/linux.md)\n"
		"  --replace     if NAME is bound, rebind it to the new object and drop\n"
		"                a reference to the old one (deleted at zero)\n",
	.run = run_import,
};
