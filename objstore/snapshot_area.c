/*
 * snapshot_area.c -- the snapshot area's geometry, format and attach, and
 * where a node's list lives.
 *
 * The area follows the free-page stack (2.3; before, it ended the heap:
 * format.h, "the snapshot area"): a header page,
 * the node table, the head map, the free stack, then the data pages
 * (copies, list pages, directories). Its geometry follows from snap_size
 * and the pages its head map covers (os_snap_geometry,
 * os_snap_covered_pages), fixed at creation. os_create lays out an empty
 * area (os_snap_format: the header and a table of free nodes; the head
 * map and the free stack mean nothing yet), and every open points the
 * handle at it (os_snap_attach), which reads the superblock only: open
 * has checked the header and the node table by then, and the checker
 * checks them before it walks (check_snapshots.c).
 *
 * A list is reached through its node's directory page, then a list page:
 * os_snap_dir_slot and os_snap_entry_at return NULL for a page never
 * handed out, so a damaged list is never followed outside the area.
 *
 * The bottom of the snapshot files (the map is at the top of snapshot.c):
 * it lays out and reads, logs nothing, and calls nothing of objstore's
 * but the CRC.
 */
#include <string.h>

#include "snapshot_internal.h"

/* os_snap_covered_pages -- the heap pages the head map has a word for:
 * those below the area before 2.3; from 2.3, every page of the largest
 * heap the heap can grow to (the area does not move when it grows) */
uint64_t os_snap_covered_pages(const struct os_superblock *sb)
{
	if (!os_resizable(sb))
		return sb->snap_offset / OS_PAGE_SIZE;
	return sb->data_offset / OS_PAGE_SIZE + sb->page_capacity;
}

/* os_snap_geometry -- the area of snap_size bytes for a heap of whose
 * pages the head map covers `heap_pages`; 0, or -ERR_NOSPC when too small */
int os_snap_geometry(uint64_t heap_pages, uint64_t snap_size, struct os_snap_geometry *g)
{
	uint64_t pages = snap_size / OS_PAGE_SIZE, fixed, data;

	g->map_pages = (uint32_t)OS_ALIGN_UP(heap_pages * 4, OS_PAGE_SIZE) / OS_PAGE_SIZE;
	fixed = 1 + OS_SNAP_TABLE_PAGES + (uint64_t)g->map_pages;
	if (pages <= fixed)
		return -ERR_NOSPC;
	data = (pages - fixed) * OS_PAGE_SIZE / (OS_PAGE_SIZE + 4);
	while (data && data + OS_ALIGN_UP(data * 4, OS_PAGE_SIZE) / OS_PAGE_SIZE > pages - fixed)
		data--;
	if (data < 16 || data > INT32_MAX)
		return -ERR_NOSPC;
	g->data_pages = (uint32_t)data;
	g->stack_pages = (uint32_t)(OS_ALIGN_UP(data * 4, OS_PAGE_SIZE) / OS_PAGE_SIZE);
	return 0;
}

/* os_snap_area_size -- the area os_create gives a heap of `size` bytes by
 * default: an eighth, in whole pages */
uint64_t os_snap_area_size(uint64_t size)
{
	return OS_ALIGN_DOWN(size / 8, OS_PAGE_SIZE);
}

/* os_snap_attach -- point the handle at the area of a heap of geometry sb */
void os_snap_attach(struct objstore *os, const struct os_superblock *sb)
{
	struct os_snap_geometry g;
	uint8_t *area;

	os->snap = NULL;
	if (sb->layout_major < 2 || !sb->snap_size ||
	    os_snap_geometry(os_snap_covered_pages(sb), sb->snap_size, &g))
		return;
	area = os->base + sb->snap_offset;
	os->snap = (struct os_snap_area *)area;
	os->snap_nodes = (struct os_snap_node *)(area + OS_PAGE_SIZE);
	os->snap_map = (uint32_t *)(area + (1 + OS_SNAP_TABLE_PAGES) * OS_PAGE_SIZE);
	os->snap_stack = os->snap_map + (uint64_t)g.map_pages * OS_PAGE_SIZE / 4;
	os->snap_data = (uint8_t *)(os->snap_stack + (uint64_t)g.stack_pages * OS_PAGE_SIZE / 4);
}

/* os_snap_area_crc, os_snap_node_crc -- the checksums they must carry */
uint32_t os_snap_area_crc(const struct os_snap_area *a)
{
	return crc32c(0, a, __builtin_offsetof(struct os_snap_area, crc));
}

uint32_t os_snap_node_crc(const struct os_snap_node *n)
{
	return crc32c(0, n, __builtin_offsetof(struct os_snap_node, crc));
}

/* os_snap_format -- an empty area (os_create): the header and a node
 * table of free slots. The head map and the free stack need nothing: no
 * value there means anything yet. */
void os_snap_format(struct objstore *os, const struct os_superblock *sb)
{
	struct os_snap_area *a = os->snap;
	struct os_snap_geometry g;

	if (!a)
		return;
	/* Sound: os_snap_attach, which found the area, computed it too. */
	os_snap_geometry(os_snap_covered_pages(sb), sb->snap_size, &g);
	memset(a, 0, sizeof(*a));
	memcpy(a->magic, OS_SNAP_MAGIC, 8);
	a->map_pages = g.map_pages;
	a->stack_pages = g.stack_pages;
	a->data_pages = g.data_pages;
	a->table_gen = 1;
	a->crc = os_snap_area_crc(a);
	memset(os->snap_nodes, 0, OS_SNAP_TABLE_PAGES * OS_PAGE_SIZE);
	os_flush(os, a, sizeof(*a));
	os_flush(os, os->snap_nodes, OS_SNAP_TABLE_PAGES * OS_PAGE_SIZE);
}

/* os_snap_dir_slot -- where node n's directory keeps list page k, NULL if it has none */
uint32_t *os_snap_dir_slot(const struct objstore *os, const struct os_snap_node *n,
			  uint32_t k)
{
	if (!os_snap_handed_out(os, n->dir) || k >= OS_SNAP_DIR_SLOTS)
		return NULL;
	return (uint32_t *)os_snap_page(os, n->dir - 1) + k;
}

/* os_snap_entry_at -- entry i of node n's list (meaningful below n->count),
 * NULL if its list page is missing or out of range */
struct os_snap_entry *os_snap_entry_at(const struct objstore *os,
				      const struct os_snap_node *n, uint32_t i)
{
	uint32_t *slot = os_snap_dir_slot(os, n, i / OS_SNAP_ENTRIES_PER_PAGE);

	if (!slot || !os_snap_handed_out(os, *slot))
		return NULL;
	return (struct os_snap_entry *)os_snap_page(os, *slot - 1) +
	       i % OS_SNAP_ENTRIES_PER_PAGE;
}

/* os_snap_in_domain -- whether heap page p is captured: in the heap, not
 * in the area, not the superblock, not the undo log (before 2.3 the area
 * ends the heap, so this is: below the area) */
bool os_snap_in_domain(const struct objstore *os, uint64_t p)
{
	const struct os_superblock *sb = os->sb;

	return p >= 1 && p < sb->heap_size / OS_PAGE_SIZE &&
	       !(p >= sb->snap_offset / OS_PAGE_SIZE &&
		 p < (sb->snap_offset + sb->snap_size) / OS_PAGE_SIZE) &&
	       !(p >= sb->log_offset / OS_PAGE_SIZE &&
		 p < (sb->log_offset + sb->log_size) / OS_PAGE_SIZE);
}

/* os_snap_in_head -- whether live page p is in the head h's list (the head map) */
bool os_snap_in_head(const struct objstore *os, const struct os_snap_node *h, uint64_t p)
{
	uint32_t i = os->snap_map[p];
	const struct os_snap_entry *e;

	if (i >= h->count)
		return false;
	e = os_snap_entry_at(os, h, i);
	return e && e->page == p;
}
