/*
 * snapview.c -- a snapshot's state, as a heap objtool reads.
 *
 * A snapshot is not a heap of its own: its state is the live state with
 * the lists on the path from the head down to it copied over (format.h,
 * "the snapshot area"). To read it with exactly the code that reads the
 * live state (ls, stat, cat, export, and check's os_check and kcheck),
 * objtool makes a copy of the heap, has objstore write the snapshot's
 * state over it (os_snap_materialize), and opens the copy as a heap.
 *
 * The copy is a private copy-on-write mapping of the image file, made
 * from the descriptor objtool already holds: opened first (os_open), it
 * rolls back an unfinished transaction exactly as objtool's own view did
 * -- a rollback is a function of the file's bytes -- so it holds the live
 * state as the next open will see it. Materializing then writes the pages
 * the snapshot differs in, into objtool's memory only; the file is never
 * written. Once the copy is opened it is made read-only (PROT_READ), so
 * nothing that reads it can change it.
 *
 * Cost: the copy is made page by page as it is written or read, so
 * reading one object of a snapshot costs what the snapshot differs in;
 * checking a snapshot reads the whole copy, O(heap), as checking the live
 * state does.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "objtool.h"

/* snap_view_open -- the state of snapshot `name` as a heap in v */
int snap_view_open(struct image *img, const char *name, struct snap_view *v)
{
	struct objstore live;
	void *p;
	int err;

	memset(v, 0, sizeof(*v));
	/* A journaled image's heap is objtool's view of it, not the file's
	 * working copy (image.c) */
	p = img->journal ? mmap(NULL, img->size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
			 : mmap(NULL, img->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, img->fd, 0);
	if (p == MAP_FAILED)
		return -ERR_NOMEM;
	if (img->journal)
		memcpy(p, img->base, img->size);
	v->base = p;
	v->size = img->size;
	/* The live state as objtool's view holds it: the same rollback. */
	err = os_open(&live, v->base, v->size, image_platform());
	if (!err)
		err = os_snap_materialize(&img->os, name, v->base);
	if (err) {
		snap_view_close(v);
		return err;
	}
	v->opened = os_open(&v->os, v->base, v->size, image_platform()) == 0;
	if (mprotect(v->base, v->size, PROT_READ) != 0) {
		err = errno;
		snap_view_close(v);
		errno = err;
		return -ERR_NOMEM;
	}
	return 0;
}

/* snap_view_close -- unmap v */
void snap_view_close(struct snap_view *v)
{
	if (v->base)
		munmap(v->base, v->size);
	memset(v, 0, sizeof(*v));
}

/* snap_name_usage -- refuse a NAME no snapshot can have */
int snap_name_usage(const char *cmd, const char *name)
{
	char text[NAME_TEXT_MAX];

	if (os_snap_name_ok(name))
		return EXIT_OK;
	return fail(EXIT_USAGE, "%s: '%s' is not a snapshot name (1 to %d printable "
		    "bytes, no spaces)", cmd, name_text(text, name, strnlen(name, OS_NAME_MAX)),
		    OS_SNAP_NAME_MAX);
}

/* snap_area_needed -- refuse an image without a snapshot area */
int snap_area_needed(const struct image *img, const char *cmd)
{
	const struct os_superblock *sb = (const void *)img->base;

	if (os_snap_available(&img->os))
		return EXIT_OK;
	return fail(EXIT_NO_SNAPSHOT, "%s: %s has no snapshot area (layout %u.%u%s)",
		    cmd, img->path, sb->layout_major, sb->layout_minor,
		    sb->layout_major < 2 ? ": snapshots came with layout 2.0" :
		    ", created without one");
}

/* image_use_snapshot -- make img->os read snapshot `name` */
int image_use_snapshot(struct image *img, const char *cmd, const char *name)
{
	struct os_diagnosis d;
	int err, status = snap_area_needed(img, cmd);

	if (status)
		return status;
	if (os_snap_restoring(&img->os))
		return fail(EXIT_FAILED, "%s: %s: a power cut stopped a restore into a "
			    "snapshot half way; power Ferrite on to finish it, then read "
			    "snapshots", cmd, img->path);
	err = snap_view_open(img, name, &img->view);
	if (err == -ERR_NOENT)
		return fail(EXIT_NO_SNAPSHOT, "%s: no snapshot named '%s' ('objtool %s "
			    "snapshots' lists them)", cmd, name, img->path);
	if (err == -ERR_NOMEM)
		return fail(EXIT_FAILED, "%s: cannot map a copy of %s: %s", cmd, img->path,
			    strerror(errno));
	if (err)
		return fail(os_err_exit(err), "%s: snapshot '%s' cannot be read: a list of "
			    "copies on its path is damaged (run 'objtool %s check')", cmd,
			    name, img->path);
	if (!img->view.opened) {
		os_diagnose(img->view.base, img->view.size, &d);
		snap_view_close(&img->view);
		return fail(EXIT_CORRUPT, "%s: snapshot '%s' is corrupt: %s (run 'objtool "
			    "%s check')", cmd, name, d.why, img->path);
	}
	img->live = img->os;
	img->os = img->view.os;
	img->snapshot = name;
	return EXIT_OK;
}
