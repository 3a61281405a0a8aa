/*
 * cmd_resize.c -- grow and shrink: the heap takes a larger image, or gives
 * back an untouched tail (objstore/resize.c, layout 2.3).
 *
 *   grow --size SIZE              the file is made SIZE bytes first, then
 *                                 os_resize commits the new superblock: the
 *                                 new pages join the never-used tail, O(1)
 *   shrink --size SIZE [--dry-run] os_resize first, then the file is cut:
 *                                 only when every page past the new end was
 *                                 never handed out and no snapshot exists
 *
 * Both open the image for writing (the full check of every writer,
 * image.c); shrink --dry-run reads only. Killed anywhere, an image is the
 * old heap or the new one: the resize is one commit, and a file longer
 * than its heap is valid (a grow or a power-on takes the rest).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "objtool.h"

#define NVM_ALIGN (2u << 20)        /* tools/run-qemu's rule for NVM sizes */

/* resize_size -- --size, parsed and checked for `cmd`; an exit status */
static int resize_size(const char *cmd, const struct args *a, uint64_t *size)
{
	if (!a->opt[0])
		return fail(EXIT_USAGE, "%s: --size SIZE is required (see objtool %s --help)",
			    cmd, cmd);
	if (parse_size(a->opt[0], size) < 0)
		return fail(EXIT_USAGE, "%s: invalid size '%s': a number with an optional "
			    "K, M or G suffix, e.g. 64M", cmd, a->opt[0]);
	if (*size % NVM_ALIGN)
		return fail(EXIT_USAGE, "%s: the size must be a multiple of 2 MiB (QEMU maps "
			    "the image as an NVDIMM)", cmd);
	return EXIT_OK;
}

/* refused -- say why os_resize_plan refused; an exit status */
static int refused(const struct image *img, const char *cmd, uint64_t size,
		   const struct os_resize_plan *p)
{
	char a[32], b[32], c[32];
	const struct os_superblock *sb = img->os.sb;

	switch (p->refusal) {
	case OS_RESIZE_OLD_LAYOUT:
		return fail(EXIT_FAILED, "%s: %s: the heap was made with layout %u.%u, before "
			    "heaps could grow or shrink (layout 2.3): it keeps its %s", cmd,
			    img->path, sb->layout_major, sb->layout_minor,
			    size_text(a, sizeof(a), p->heap_size));
	case OS_RESIZE_TOO_LARGE:
		return fail(EXIT_FAILED, "%s: %s: cannot grow to %s: this heap can grow to %s "
			    "at most (the room its page descriptors were made with; objtool "
			    "create --max-size sets it)", cmd, img->path,
			    size_text(a, sizeof(a), size), size_text(b, sizeof(b), p->max_size));
	case OS_RESIZE_TOO_SMALL:
		return fail(EXIT_FAILED, "%s: %s: %s is too small: the smallest this heap can "
			    "be is %s", cmd, img->path, size_text(a, sizeof(a), size),
			    size_text(b, sizeof(b), p->min_size));
	case OS_RESIZE_SNAPSHOTS:
		return fail(EXIT_FAILED, "%s: %s: the heap keeps %u snapshot%s, whose states may "
			    "use the pages past %s; remove them first (objtool %s snapshot rm "
			    "NAME)", cmd, img->path, p->snapshots, p->snapshots == 1 ? "" : "s",
			    size_text(a, sizeof(a), p->new_size), img->path);
	case OS_RESIZE_TAIL_USED:
		return fail(EXIT_FAILED, "%s: %s: cannot shrink to %s: data page %" PRIu64
			    " (heap offset %#" PRIx64 "), past the new end, %s; the smallest "
			    "this heap can shrink to is %s (it is %s)", cmd, img->path,
			    size_text(a, sizeof(a), size), p->first_used,
			    sb->data_offset + p->first_used * OS_PAGE_SIZE,
			    p->first_used_in_use ? "is in use" :
			    "is free but was handed out before (on the free-page stack)",
			    size_text(b, sizeof(b), p->min_size),
			    size_text(c, sizeof(c), p->heap_size));
	default:
		return fail(EXIT_FAILED, "%s: %s: cannot resize: %s", cmd, img->path,
			    os_err_text(-ERR_BUSY));
	}
}

/* resized -- commit the resize planned; an exit status */
static int resized(struct image *img, const char *cmd, uint64_t size)
{
	struct os_resize_plan p;
	int err = os_resize(&img->os, size, &p);

	if (err)
		return refused(img, cmd, size, &p);
	return EXIT_OK;
}

/* journaled -- a virtio-pmem image's heap has its base copy and journal
 * right after it (objstore/journal.h): it cannot change size */
static int journaled(struct image *img, const char *cmd)
{
	return fail(EXIT_FAILED, "%s: %s: a virtio-pmem image: its base copy and journal "
		    "follow the heap, so its size is fixed; nothing was written", cmd, img->path);
}

/* run_grow -- objtool IMAGE grow --size SIZE */
static int run_grow(struct image *img, const struct args *a)
{
	struct os_resize_plan p;
	uint64_t size, before = img->os.sb->heap_size;
	char s1[32], s2[32], s3[32];
	int status = resize_size("grow", a, &size);

	if (status)
		return status;
	if (img->journal)
		return journaled(img, "grow");
	if (size <= before)
		return fail(EXIT_FAILED, "grow: %s: the heap already has %s; grow takes a "
			    "larger --size (shrink makes it smaller)", img->path,
			    size_text(s1, sizeof(s1), before));
	if (os_resize_plan(&img->os, size, &p))
		return refused(img, "grow", size, &p);
	if (size > img->size && (status = image_set_file_size(img, size)) != EXIT_OK)
		return status;
	status = resized(img, "grow", size);
	if (!status)
		printf("grow: %s: from %s to %s, %" PRIu64 " data pages more (it can grow to %s)\n",
		       img->path, size_text(s1, sizeof(s1), before),
		       size_text(s2, sizeof(s2), img->os.sb->heap_size),
		       p.new_page_count - p.page_count, size_text(s3, sizeof(s3), p.max_size));
	return status;
}

/* run_shrink -- objtool IMAGE shrink --size SIZE [--dry-run] */
static int run_shrink(struct image *img, const struct args *a)
{
	bool dry = a->opt[1] != NULL;
	struct os_resize_plan p;
	uint64_t size, before = img->os.sb->heap_size;
	char s1[32], s2[32];
	int status = resize_size("shrink", a, &size);

	if (status)
		return status;
	if (img->journal)
		return journaled(img, "shrink");
	if (size >= before)
		return fail(EXIT_FAILED, "shrink: %s: the heap has %s; shrink takes a smaller "
			    "--size (grow makes it larger)", img->path,
			    size_text(s1, sizeof(s1), before));
	if (os_resize_plan(&img->os, size, &p))
		return refused(img, "shrink", size, &p);
	if (dry) {
		printf("shrink: %s: would shrink from %s to %s, %" PRIu64 " never-used data "
		       "pages fewer; nothing written (--dry-run)\n", img->path,
		       size_text(s1, sizeof(s1), before), size_text(s2, sizeof(s2), p.new_size),
		       p.page_count - p.new_page_count);
		return EXIT_OK;
	}
	status = image_reopen_for_writing(img);
	if (!status)
		status = resized(img, "shrink", size);
	if (!status)
		status = image_set_file_size(img, img->os.sb->heap_size);
	if (!status)
		printf("shrink: %s: from %s to %s, %" PRIu64 " never-used data pages fewer\n",
		       img->path, size_text(s1, sizeof(s1), before),
		       size_text(s2, sizeof(s2), img->os.sb->heap_size),
		       p.page_count - p.new_page_count);
	return status;
}

const struct command cmd_grow = {
	.name = "grow",
	.access = ACCESS_WRITE,
	.min_pos = 0,
	.max_pos = 0,
	.opts = { { "--size", 0, true } },
	.usage = "grow --size SIZE",
	.summary = "give the heap a larger image: new pages, O(1)",
	.help = "Makes IMAGE SIZE bytes and gives the heap the new room: the new data pages\n"
		"join the never-used tail, one commit of the superblock alone, whatever the\n"
		"sizes (docs/heap.md, 'Growing a heap'). A power-on of a larger NVM\n"
		"(tools/run-qemu --size) does the same. Refused, writing nothing, past the\n"
		"largest size the heap was made able to reach (said), or for a heap made\n"
		"before layout 2.3.\n\n"
		"  --size SIZE   the new size, a multiple of 2 MiB (K, M, G suffixes)\n",
	.run = run_grow,
};

const struct command cmd_shrink = {
	.name = "shrink",
	.access = ACCESS_READ,
	.min_pos = 0,
	.max_pos = 0,
	.opts = { { "--size", 0, true }, { "--dry-run", 0, false } },
	.usage = "shrink --size SIZE [--dry-run]",
	.summary = "give back a never-used tail: a smaller image",
	.help = "Shrinks the heap to SIZE bytes and cuts IMAGE to it, when every data page\n"
		"past the new end was never handed out (the never-used tail) and the heap\n"
		"keeps no snapshot. Otherwise refuses, writing nothing, naming the first\n"
		"page past the new end that was handed out and the smallest size possible.\n\n"
		"  --size SIZE   the new size, a multiple of 2 MiB (K, M, G suffixes)\n"
		"  --dry-run     say what would be done; open the image read-only, write nothing\n",
	.run = run_shrink,
};
