/*
 * image.c -- opening an image file the safe way, and closing it.
 *
 * The order matters, and each step exists to protect the image:
 *
 *   1. open(2): O_RDONLY for read-only commands, so they cannot write;
 *   2. flock(2) without waiting: LOCK_SH to read, LOCK_EX to write.
 *      tools/run-qemu holds LOCK_EX for QEMU's whole life, so an image a
 *      running Ferrite owns is refused (EXIT_IN_USE), as is one another
 *      objtool is writing; readers share;
 *   3. mmap(2) PROT_READ: MAP_SHARED for a writer, MAP_PRIVATE for a
 *      reader (copy-on-write: what objstore writes stays in objtool);
 *   4. os_diagnose on that read-only mapping: not a heap, another layout
 *      version, a corrupt superblock, undo log or root block are refused
 *      with their own exit status (and what is wrong) before anything
 *      could be written;
 *   5. a writer first opens a private copy-on-write view (a dry run of the
 *      rollback) and runs the whole checker (os_check) on it: if objstore
 *      finds a broken invariant there (image_platform's fatal) or the
 *      checker finds any problem, objtool refuses (EXIT_CORRUPT) before
 *      touching the file. A write costs one full check: that is the price
 *      of "never write to an image found corrupt";
 *   6. mprotect to PROT_READ|PROT_WRITE and os_open, which rolls back an
 *      unfinished transaction: in the private view for a reader, in the
 *      file for a writer (as the kernel would at power-on).
 *
 * Closing: a writer msyncs the mapping, so that when objtool reports
 * success the host has the changes on disk, not only in its page cache.
 * Crash safety never depends on that msync: it comes from the undo log.
 *
 * A virtio-pmem image (objstore/journal.h: it ends with a journal header)
 * holds its heap as power-on rebuilds it from the base copy and the
 * journal, so objtool does what power-on does, between steps 3 and 4:
 * a reader replays the journal into its private view; a writer replays it
 * into the file, starts a new generation of records, and at close leaves
 * its changes as one record of the pages where the heap now differs from
 * the base copy -- written, synced, then copied into the base copy and
 * synced again, as the kernel's group commit does. A cut before the record
 * is whole loses objtool's change and nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_platform.h"
#include "objstore/check.h"
#include "objtool.h"

static const char *mapped_path; /* for the SIGBUS handler */

/* on_sigbus -- a mapped page could not be read or written: report, exit */
static void on_sigbus(int sig)
{
	static const char what[] = ": I/O error on the mapped image (SIGBUS): "
				   "the file shrank, or its file system is full\n";

	(void)sig;
	if (write(2, "objtool: ", 9) < 0 ||
	    write(2, mapped_path, strlen(mapped_path)) < 0 ||
	    write(2, what, sizeof(what) - 1) < 0)
		_exit(EXIT_FAILED);
	_exit(EXIT_FAILED);
}

/* image_fatal -- objstore met a broken invariant: the image is corrupt */
static __attribute__((noreturn)) void image_fatal(const char *message)
{
	const char *path = mapped_path ? mapped_path : "image";

	/*
	 * We do not return into objstore, and we do not abort a running
	 * transaction (its rollback would write to a heap we now know is
	 * corrupt): the undo log holds what the next open rolls back.
	 */
	fail(EXIT_CORRUPT, "%s: corrupt: %s; nothing was committed (run 'objtool %s check')",
	     path, message, path);
	exit(EXIT_CORRUPT);
}

/* image_platform -- the host platform, with a fatal() that reports and exits */
const struct os_platform *image_platform(void)
{
	static struct os_platform pf;

	if (!pf.flush) {
		pf = *host_platform();
		pf.fatal = image_fatal;
	}
	return &pf;
}

/* image_lock_file -- flock fd without waiting; an exit status */
int image_lock_file(int fd, const char *path, bool exclusive)
{
	if (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0)
		return EXIT_OK;
	if (errno == EWOULDBLOCK)
		return fail(EXIT_IN_USE, "%s is in use by a running QEMU (or another objtool)",
			    path);
	return fail(EXIT_FAILED, "cannot lock %s: %s", path, strerror(errno));
}

/* open_file -- open, lock and size the image file; an exit status */
static int open_file(struct image *img, bool write)
{
	struct stat st;
	int status;

	img->fd = open(img->path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (img->fd < 0)
		return fail(EXIT_FAILED, "cannot open %s: %s", img->path, strerror(errno));
	status = image_lock_file(img->fd, img->path, write);
	if (status)
		return status;
	if (fstat(img->fd, &st) != 0)
		return fail(EXIT_FAILED, "cannot stat %s: %s", img->path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(EXIT_FAILED, "%s is not a regular file", img->path);
	if ((uint64_t)st.st_size < sizeof(struct os_superblock))
		return fail(EXIT_NOT_IMAGE, "%s is not a Ferrite image (%" PRIu64 " bytes)",
			    img->path, (uint64_t)st.st_size);
	img->size = (uint64_t)st.st_size;
	return EXIT_OK;
}

/* map_file -- map the whole file read-only: shared for a writer, else private */
static int map_file(struct image *img, bool write)
{
	struct sigaction sa;
	void *p = mmap(NULL, img->size, PROT_READ, write ? MAP_SHARED : MAP_PRIVATE,
		       img->fd, 0);

	if (p == MAP_FAILED)
		return fail(EXIT_FAILED, "cannot map %s: %s", img->path, strerror(errno));
	img->base = p;
	img->map_size = img->size;
	mapped_path = img->path;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	return EXIT_OK;
}

/* probe -- os_probe's verdict, told to the user; an exit status */
static int probe(struct image *img)
{
	const struct os_superblock *sb = (const void *)img->base;
	struct os_diagnosis d;
	const char *what;
	char a[32], b[32];

	img->probe = os_diagnose(img->base, img->size, &d);
	switch (img->probe) {
	case 0:
		return EXIT_OK;
	case -ERR_INVAL:
		return fail(EXIT_NOT_IMAGE, "%s is not a Ferrite image", img->path);
	case -ERR_VERSION:
		return fail(EXIT_VERSION, "%s: layout version %u.%u, this objtool reads %u.x to %u.x",
			    img->path, sb->layout_major, sb->layout_minor,
			    OS_LAYOUT_OLDEST_MAJOR, OS_LAYOUT_MAJOR);
	case -ERR_CORRUPT:
		if (img->access == ACCESS_CHECK)
			return EXIT_OK; /* check reports what is wrong */
		/* os_diagnose's reasons about the area all begin so (check_snapshots.c) */
		what = strncmp(d.why, "snapshot", 8) == 0 ? "snapshot area" :
		       "superblock, undo log or root block";
		if (sb->heap_size != img->size)
			return fail(EXIT_CORRUPT, "%s: corrupt %s: %s (the superblock says %s, "
				    "the file is %s; run 'objtool %s check')",
				    img->path, what, d.why, size_text(a, sizeof(a), sb->heap_size),
				    size_text(b, sizeof(b), img->size), img->path);
		return fail(EXIT_CORRUPT, "%s: corrupt %s: %s (run 'objtool %s check' for "
			    "details)", img->path, what, d.why, img->path);
	default:
		return fail(EXIT_FAILED, "%s: %s", img->path, os_err_text(img->probe));
	}
}

/* sync_or_fail -- msync the whole mapping (a flush of the device); an exit status */
static int sync_or_fail(struct image *img)
{
	if (msync(img->base, img->map_size, MS_SYNC) != 0)
		return fail(EXIT_FAILED, "%s: cannot write to disk: %s", img->path,
			    strerror(errno));
	return EXIT_OK;
}

/* open_journal -- a virtio-pmem image: the heap rebuilt from its base copy
 * and journal, in the private view or (a writer) in the file; the heap is
 * then the working copy alone. An exit status. */
static int open_journal(struct image *img, bool write)
{
	const struct jn_header *found;
	struct jn_recovery r;
	const char *why;
	int err = jn_find(img->base, img->map_size, &found, &why);
	int status;

	if (err == -ERR_NOENT)
		return EXIT_OK;
	if (err)
		return fail(err == -ERR_VERSION ? EXIT_VERSION : EXIT_CORRUPT, "%s: %s",
			    img->path, why);
	if (mprotect(img->base, img->map_size, PROT_READ | PROT_WRITE) != 0)
		return fail(EXIT_FAILED, "cannot map %s writable: %s", img->path,
			    strerror(errno));
	img->journal = (struct jn_header *)found;
	err = jn_recover(img->base, img->journal, &r, &why);
	if (err)
		return fail(EXIT_CORRUPT, "%s: %s", img->path, why);
	if (write) {
		status = sync_or_fail(img);
		if (status)
			return status;
		img->journal->generation++;
		jn_seal_header(img->journal);
		status = sync_or_fail(img);
		if (status)
			return status;
		jn_writer_init(&img->journal_writer, img->base, img->journal, r.newest);
	}
	jn_restore_heap(img->base, img->journal);
	img->size = img->journal->heap_size;
	if (mprotect(img->base, img->map_size, PROT_READ) != 0)
		return fail(EXIT_FAILED, "cannot map %s: %s", img->path, strerror(errno));
	return EXIT_OK;
}

/* close_journal -- a writer's changes as the journal's next record, then in
 * the base copy; an exit status */
static int close_journal(struct image *img)
{
	struct jn_header *h = img->journal;
	uint64_t pages = h->heap_size / JN_PAGE, seq;
	uint32_t *list = malloc(pages * sizeof(uint32_t));
	uint32_t n = 0;
	int status;

	if (!list)
		return fail(EXIT_FAILED, "%s: out of memory for the journal", img->path);
	if (mprotect(img->base, img->map_size, PROT_READ | PROT_WRITE) != 0) {
		free(list);
		return fail(EXIT_FAILED, "cannot map %s writable: %s", img->path,
			    strerror(errno));
	}
	for (uint64_t p = 0; p < pages; p++)
		if (memcmp(img->base + p * JN_PAGE, img->base + h->base_offset + p * JN_PAGE,
			   JN_PAGE) != 0)
			list[n++] = (uint32_t)p;
	if (n && jn_write(&img->journal_writer, list, n, &seq) != 0) {
		free(list);
		return fail(EXIT_FAILED, "%s: the change (%u pages) does not fit the journal; "
			    "nothing was written", img->path, n);
	}
	free(list);
	if (!n)
		return EXIT_OK;
	status = sync_or_fail(img);
	if (!status) {
		jn_flushed(&img->journal_writer, seq);
		status = sync_or_fail(img);
	}
	return status;
}

/* problems_in -- os_check's count of problems in the heap at p */
static uint64_t problems_in(const void *p, uint64_t size)
{
	struct os_check_report quiet = { 0 };
	void *scratch = calloc(1, os_check_scratch_size(size));
	uint64_t problems;

	if (!scratch)
		return UINT64_MAX;
	problems = os_check(p, size, scratch, &quiet);
	free(scratch);
	return problems;
}

/* dry_run -- roll back an unfinished transaction in a private view and
 * check it whole, so that nothing is written to an image found corrupt */
static int dry_run(struct image *img)
{
	struct objstore os;
	void *p = mmap(NULL, img->size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		       img->fd, 0);
	uint64_t problems;
	int err;

	if (p == MAP_FAILED)
		return fail(EXIT_FAILED, "cannot map %s: %s", img->path, strerror(errno));
	err = os_open(&os, p, img->size, image_platform());
	problems = err ? 0 : problems_in(p, img->size);
	munmap(p, img->size);
	if (err)
		return fail(os_err_exit(err), "%s: %s", img->path, os_err_text(err));
	if (problems == UINT64_MAX)
		return fail(EXIT_FAILED, "%s: out of memory for the check", img->path);
	if (problems)
		return fail(EXIT_CORRUPT, "%s: corrupt (%" PRIu64 " problem%s); nothing "
			    "was written (run 'objtool %s check' for details)",
			    img->path, problems, problems == 1 ? "" : "s", img->path);
	return EXIT_OK;
}

/* open_heap -- make the mapping writable and os_open it; an exit status */
static int open_heap(struct image *img)
{
	const struct os_superblock *sb = (const void *)img->base;
	struct os_snap_usage usage;
	int err;

	if (mprotect(img->base, img->size, PROT_READ | PROT_WRITE) != 0)
		return fail(EXIT_FAILED, "cannot map %s writable: %s", img->path,
			    strerror(errno));
	img->disk_epoch = sb->committed_epoch;
	err = os_open(&img->os, img->base, img->size, image_platform());
	if (err)
		return fail(os_err_exit(err), "%s: %s", img->path, os_err_text(err));
	img->opened = true;
	os_snap_usage(&img->os, &usage);
	img->snap_dropped = usage.dropped;
	/* Rolling back commits the restored state as a new epoch. */
	img->had_unfinished_tx = os_epoch(&img->os) != img->disk_epoch;
	if (img->had_unfinished_tx && img->access != ACCESS_READ && img->access != ACCESS_CHECK)
		note("%s: rolled back an unfinished transaction that a power cut "
		     "or an interrupted writer left", img->path);
	return EXIT_OK;
}

/* image_open -- open, lock, map and open the heap of `path`; an exit status */
int image_open(struct image *img, const char *path, enum image_access access)
{
	bool write = access == ACCESS_WRITE || access == ACCESS_REPAIR;
	int status;

	memset(img, 0, sizeof(*img));
	img->path = path;
	img->fd = -1;
	img->access = access;
	status = open_file(img, write);
	if (!status)
		status = map_file(img, write);
	if (!status)
		status = open_journal(img, write);
	if (!status)
		status = probe(img);
	if (!status && img->probe)
		return EXIT_OK; /* check, on a corrupt heap: mapped read-only, not opened */
	if (!status && access == ACCESS_WRITE)
		status = dry_run(img); /* a repair knows the heap has problems */
	if (!status)
		status = open_heap(img);
	if (status)
		image_close(img);
	return status;
}

/* image_close -- make a writer's changes durable, unmap, unlock; an exit status */
int image_close(struct image *img)
{
	int status = EXIT_OK;
	bool wrote = img->base && img->opened &&
		     (img->access == ACCESS_WRITE || img->access == ACCESS_REPAIR);

	/* The chains committed by redo retired: the image left needs no replay. */
	if (wrote && !img->os.in_tx)
		os_settle(&img->os);
	if (wrote && img->journal)
		status = close_journal(img);
	else if (wrote && msync(img->base, img->size, MS_SYNC) != 0)
		status = fail(EXIT_FAILED, "%s: cannot write the changes to disk: %s",
			      img->path, strerror(errno));
	snap_view_close(&img->view);
	if (img->base)
		munmap(img->base, img->map_size);
	img->base = NULL;
	if (img->fd >= 0)
		close(img->fd); /* releases the flock */
	img->fd = -1;
	return status;
}

/* image_set_file_size -- make a writer's file `size` bytes (its changes
 * made durable first) and map and open the heap again; an exit status */
int image_set_file_size(struct image *img, uint64_t size)
{
	int status;

	if (msync(img->base, img->size, MS_SYNC) != 0)
		return fail(EXIT_FAILED, "%s: cannot write the changes to disk: %s",
			    img->path, strerror(errno));
	munmap(img->base, img->size);
	img->base = NULL;
	img->opened = false;
	if (ftruncate(img->fd, (off_t)size) != 0 || fsync(img->fd) != 0)
		return fail(EXIT_FAILED, "%s: cannot make the file %" PRIu64 " bytes: %s",
			    img->path, size, strerror(errno));
	img->size = size;
	status = map_file(img, true);
	return status ? status : open_heap(img);
}

/* image_reopen_for_writing -- a reader's image opened again as a writer
 * (exclusive lock, the writer's full check); an exit status */
int image_reopen_for_writing(struct image *img)
{
	const char *path = img->path;

	image_close(img);
	return image_open(img, path, ACCESS_WRITE);
}

/* image_tx_begin -- os_tx_begin, reported; an exit status */
int image_tx_begin(struct image *img, const char *cmd)
{
	int err = os_tx_begin(&img->os);

	if (err)
		return fail(EXIT_FAILED, "%s: cannot begin a transaction: %s", cmd,
			    os_err_text(err));
	return EXIT_OK;
}

/* image_tx_commit -- os_tx_commit, reported; an exit status */
int image_tx_commit(struct image *img, const char *cmd)
{
	struct os_snap_usage usage;
	int err = os_tx_commit(&img->os);

	if (err)
		return image_tx_fail(img, cmd, err, "commit");
	os_snap_usage(&img->os, &usage);
	if (usage.dropped != img->snap_dropped)
		note("%s: the snapshot area filled up: every snapshot was dropped (the "
		     "changes since the oldest needed more room than the area has)", cmd);
	img->snap_dropped = usage.dropped;
	return EXIT_OK;
}

/* image_tx_fail -- end a failed transaction and report `err` for `what` */
int image_tx_fail(struct image *img, const char *cmd, int err, const char *what)
{
	struct os_stats st;
	char size[32];

	if (err == -ERR_CORRUPT) {
		/*
		 * A corruption met inside the transaction. os_tx_abort would
		 * roll back, which writes, and objtool never writes to an
		 * image it found corrupt; so the transaction is left
		 * unfinished, its undo records in the log, and the next open
		 * (objtool's or the kernel's) rolls it back. The commands do
		 * their lookups before os_tx_begin, so this is reached only for
		 * structures the transaction itself had to walk.
		 */
		img->tx_abandoned = true;
		return fail(EXIT_CORRUPT, "%s: %s: %s; nothing was committed "
			    "(the next open rolls the partial transaction back; "
			    "run 'objtool %s check')", cmd, what, os_err_text(err),
			    img->path);
	}
	os_tx_abort(&img->os);
	os_stats(&img->os, &st);
	if (err == -ERR_NOSPC)
		return fail(EXIT_FAILED, "%s: %s: the transaction does not fit the "
			    "image's %s undo log; aborted, nothing was changed "
			    "(see 'Log size' in docs/objtool.md)", cmd, what,
			    size_text(size, sizeof(size), st.log_size));
	return fail(os_err_exit(err), "%s: %s: %s; aborted, nothing was changed",
		    cmd, what, os_err_text(err));
}
