/*
 * resize.c -- growing and shrinking a heap (layout 2.3), in O(1).
 *
 * A 2.3 heap puts its data pages last and gives its page descriptors and
 * free-page stack room for page_capacity pages (format.h). So a resize
 * changes the superblock alone: page_count and heap_size. The pages it
 * adds join the never-used tail, whose count (pages_unformatted) runs to
 * the descriptors' room, not to page_count: the root block, and every
 * snapshot's copy of it, keeps meaning the same formatted pages, and no
 * descriptor, stack slot or data page is written. The snapshot area, in
 * front of the data pages, does not move; its head map has a word for
 * every page of the largest heap.
 *
 * Growing is allowed up to the capacity (os_max_heap_size), with or
 * without snapshots: a snapshot taken before a growth holds a root block
 * whose formatted pages all lie below the old end, so restoring it leaves
 * the new pages in the tail again. Shrinking is allowed only when every
 * page past the new end is in the never-used tail (never handed out, so
 * nothing can refer to it) and no snapshot exists (a snapshot's state may
 * have handed out pages the live state has not).
 *
 * The commit point (os_commit_superblock, tx.c): the new superblock is
 * written to the spare (page 0, OS_SB_SPARE_OFFSET) with resize_epoch the
 * next epoch and made durable; the epoch store commits it; then it is
 * copied over the superblock and the spare cleared. At open,
 * os_settle_superblock finishes a committed copy a cut interrupted and
 * clears a spare that never committed, and os_sb_effective lets the
 * read-only checks see the committed geometry before that. A cut leaves
 * the old geometry or the new one.
 *
 * Calls: tx.c's commit, the snapshot area's usage, the CRC.
 */
#include <string.h>

#include "internal.h"

#define SB_COVERED (__builtin_offsetof(struct os_superblock, crc) + sizeof(uint32_t))

/* os_heap_pages_for -- the data pages of `sb`'s heap resized to an image
 * of `size` bytes (2.3): as many as fit after data_offset */
uint64_t os_heap_pages_for(const struct os_superblock *sb, uint64_t size)
{
	return size > sb->data_offset ? (size - sb->data_offset) / OS_PAGE_SIZE : 0;
}

/* os_max_heap_size -- the largest heap `sb` can grow to (2.3), else its size */
uint64_t os_max_heap_size(const struct os_superblock *sb)
{
	if (!sb->page_capacity)
		return sb->heap_size;
	return sb->data_offset + sb->page_capacity * OS_PAGE_SIZE;
}

/* spare_of -- the spare superblock in page 0 of the heap at `base` */
static const struct os_superblock *spare_of(const void *base)
{
	return (const void *)((const uint8_t *)base + OS_SB_SPARE_OFFSET);
}

/* spare_committed -- whether the spare holds the committed geometry: a
 * sound superblock of this heap whose resize epoch has committed */
static bool spare_committed(const void *base, uint64_t size)
{
	const struct os_superblock *sb = base, *spare = spare_of(base);

	if (size < OS_PAGE_SIZE || memcmp(sb->magic, OS_MAGIC, 8) || !os_resizable(sb))
		return false;
	if (memcmp(spare->magic, OS_MAGIC, 8) || spare->header_size != sizeof(*spare) ||
	    spare->crc != os_sb_crc(spare) || !os_resizable(spare) ||
	    memcmp(spare->heap_id, sb->heap_id, sizeof(sb->heap_id)))
		return false;
	return spare->resize_epoch && spare->resize_epoch <= sb->committed_epoch;
}

/* os_sb_effective -- the superblock the heap at `base` has: page 0's, or
 * the committed spare's geometry with page 0's epoch (in `buf`) */
const struct os_superblock *os_sb_effective(const void *base, uint64_t size,
					    struct os_superblock *buf)
{
	if (!spare_committed(base, size))
		return base;
	memcpy(buf, base, sizeof(*buf));
	memcpy(buf, spare_of(base), SB_COVERED);
	return buf;
}

/* os_settle_superblock -- at open: copy a committed spare over the
 * superblock, then clear the spare (a resize cut short either way) */
void os_settle_superblock(void *base, uint64_t size, const struct os_platform *pf)
{
	struct os_superblock *sb = base;
	uint64_t *spare_magic = (uint64_t *)((uint8_t *)base + OS_SB_SPARE_OFFSET);

	if (size < OS_PAGE_SIZE || !os_resizable(sb) ||
	    memcmp(spare_magic, OS_MAGIC, 8))
		return;
	if (spare_committed(base, size) && memcmp(sb, spare_of(base), SB_COVERED)) {
		memcpy(sb, spare_of(base), SB_COVERED);
		pf->flush(sb, SB_COVERED);
		pf->fence();
	}
	__atomic_store_n(spare_magic, 0, __ATOMIC_RELEASE);
	pf->flush(spare_magic, sizeof(*spare_magic));
	pf->fence();
}

/* first_handed_out -- the first page from `from` below the formatted end
 * whose descriptor is in use, else `from` itself (free, on the stack) */
static uint64_t first_handed_out(const struct objstore *os, uint64_t from, bool *in_use)
{
	uint64_t end = os_formatted_pages(os->sb, os->root);

	for (uint64_t p = from; p < end; p++)
		if (os->desc[p].kind != OS_PAGE_FREE) {
			*in_use = true;
			return p;
		}
	*in_use = false;
	return from;
}

/* plan_shrink -- what stops a shrink to new_pages, in p */
static enum os_resize_refusal plan_shrink(const struct objstore *os,
					  struct os_resize_plan *p)
{
	struct os_snap_usage u;

	os_snap_usage(os, &u);
	p->snapshots = u.snapshots;
	if (u.nodes)
		return OS_RESIZE_SNAPSHOTS;
	if (p->new_page_count < os_formatted_pages(os->sb, os->root)) {
		p->first_used = first_handed_out(os, p->new_page_count, &p->first_used_in_use);
		return OS_RESIZE_TAIL_USED;
	}
	return OS_RESIZE_OK;
}

/* os_resize_plan -- what a resize to an image of `size` bytes would make,
 * or why it is refused (p->refusal); writes nothing. 0, or -ERR_NOTSUP
 * (a layout before 2.3), -ERR_NOSPC (past the capacity, or too small),
 * -ERR_BUSY (a page past the new end was handed out, or snapshots exist
 * for a shrink; or a transaction runs) */
int os_resize_plan(const struct objstore *os, uint64_t size, struct os_resize_plan *p)
{
	const struct os_superblock *sb = os->sb;
	uint64_t formatted = os_formatted_pages(sb, os->root);

	memset(p, 0, sizeof(*p));
	p->heap_size = sb->heap_size;
	p->page_count = sb->page_count;
	p->max_size = os_max_heap_size(sb);
	p->min_size = sb->data_offset + (formatted > 16 ? formatted : 16) * OS_PAGE_SIZE;
	if (p->min_size < OS_MIN_HEAP_SIZE)
		p->min_size = sb->data_offset +
			      OS_ALIGN_UP(OS_MIN_HEAP_SIZE - sb->data_offset, OS_PAGE_SIZE);
	if (!os_resizable(sb))
		p->refusal = OS_RESIZE_OLD_LAYOUT;
	else if (os->in_tx || os->pending)
		p->refusal = OS_RESIZE_BUSY;
	if (p->refusal)
		return p->refusal == OS_RESIZE_BUSY ? -ERR_BUSY : -ERR_NOTSUP;
	p->new_page_count = os_heap_pages_for(sb, size);
	p->new_size = sb->data_offset + p->new_page_count * OS_PAGE_SIZE;
	if (p->new_page_count > sb->page_capacity)
		p->refusal = OS_RESIZE_TOO_LARGE;
	else if (p->new_page_count < sb->page_count)
		p->refusal = plan_shrink(os, p);
	if (!p->refusal && (p->new_page_count < 16 || p->new_size < OS_MIN_HEAP_SIZE))
		p->refusal = OS_RESIZE_TOO_SMALL;
	if (p->refusal == OS_RESIZE_TOO_LARGE || p->refusal == OS_RESIZE_TOO_SMALL)
		return -ERR_NOSPC;
	return p->refusal ? -ERR_BUSY : 0;
}

/* os_resize -- grow or shrink the heap to an image of `size` bytes,
 * committed alone (no transaction may run); O(1). The plan in *p. */
int os_resize(struct objstore *os, uint64_t size, struct os_resize_plan *p)
{
	struct os_superblock next;
	int err = os_resize_plan(os, size, p);

	if (err || p->new_page_count == p->page_count)
		return err;
	memcpy(&next, os->sb, sizeof(next));
	next.page_count = p->new_page_count;
	next.heap_size = p->new_size;
	next.resize_epoch = os->epoch + 1;
	next.crc = os_sb_crc(&next);
	err = os_commit_superblock(os, &next);
	if (err)
		return err;
	os->size = os->sb->heap_size;
	return 0;
}
