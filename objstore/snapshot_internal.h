/*
 * snapshot_internal.h -- what the snapshot files share with each other
 * and with their checker (check_snapshots.c); not for callers.
 *
 * The area's geometry, the accessors that find a node, an area page and a
 * list's entries (every one of them bounded: a list page that was never
 * handed out is NULL, never followed), and the steps one job of the
 * snapshots lends another. Which file holds what, and which calls which,
 * is told at the top of snapshot.c. The rest of objstore reaches the
 * snapshots through internal.h alone (capture for tx.c and alloc.c; the
 * area's attach, format and checks for heap.c and check.c).
 */
#ifndef OBJSTORE_SNAPSHOT_INTERNAL_H
#define OBJSTORE_SNAPSHOT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* --- the area (snapshot_area.c) --- */

/* The geometry of an area: its pages after the header and node table. */
struct os_snap_geometry {
	uint32_t map_pages, stack_pages, data_pages;
};

/* os_snap_covered_pages -- the heap pages the head map has a word for */
uint64_t os_snap_covered_pages(const struct os_superblock *sb);

/* os_snap_geometry -- the area of snap_size bytes for a heap of whose
 * pages the head map covers `heap_pages`; 0, or -ERR_NOSPC when too small */
int os_snap_geometry(uint64_t heap_pages, uint64_t snap_size, struct os_snap_geometry *g);

/* os_snap_area_crc, os_snap_node_crc -- the checksums they must carry */
uint32_t os_snap_area_crc(const struct os_snap_area *a);
uint32_t os_snap_node_crc(const struct os_snap_node *n);

/* os_snap_node -- node i of the table */
static inline struct os_snap_node *os_snap_node(const struct objstore *os, unsigned i)
{
	return &os->snap_nodes[i];
}

/* os_snap_in_use -- whether node i holds a snapshot (or a hidden node) */
static inline bool os_snap_in_use(const struct objstore *os, unsigned i)
{
	return os->snap_nodes[i].gen == os->snap->table_gen;
}

/* os_snap_page -- the address of area page a */
static inline uint8_t *os_snap_page(const struct objstore *os, uint32_t a)
{
	return os->snap_data + (uint64_t)a * OS_PAGE_SIZE;
}

/* os_snap_handed_out -- whether `plus1` (an area page + 1) names a page handed out */
static inline bool os_snap_handed_out(const struct objstore *os, uint32_t plus1)
{
	return plus1 && plus1 <= os->snap->high_water;
}

/* os_snap_in_domain -- whether heap page p is one capture copies */
bool os_snap_in_domain(const struct objstore *os, uint64_t p);

/* os_snap_dir_slot, os_snap_entry_at -- where node n keeps list page k,
 * and its entry i (meaningful below n->count); NULL where the list's
 * pages are missing or were never handed out */
uint32_t *os_snap_dir_slot(const struct objstore *os, const struct os_snap_node *n,
			   uint32_t k);
struct os_snap_entry *os_snap_entry_at(const struct objstore *os,
				       const struct os_snap_node *n, uint32_t i);

/* os_snap_in_head -- whether live page p is in the head h's list (the head map) */
bool os_snap_in_head(const struct objstore *os, const struct os_snap_node *h, uint64_t p);

/* --- capture's steps the operations share (snapshot_capture.c) --- */

/* os_snap_log_area, os_snap_log_node -- log the area header, node i, once
 * per transaction */
int os_snap_log_area(struct objstore *os);
int os_snap_log_node(struct objstore *os, unsigned i);

/* os_snap_append_entry -- (page, copy + 1) at the end of node n's list,
 * and in the head map when n is the head (the header and n logged);
 * -ERR_NOSPC when no area page is left for a list page */
int os_snap_append_entry(struct objstore *os, struct os_snap_node *n, uint64_t page,
			 uint32_t copy_plus1);

/* --- the node table (snapshot.c) --- */

/* os_snap_free_node -- a node slot not in use, or -ERR_NOSPC */
int os_snap_free_node(const struct objstore *os);

/* os_snap_children -- how many nodes have node i as their parent; one in *child */
unsigned os_snap_children(const struct objstore *os, unsigned i, unsigned *child);

/* --- checks (check_snapshots.c) --- */

/* os_snap_entry_sound -- whether an entry may be used: its page captured,
 * its copy handed out (checked before a restore, a read or a reclaim
 * moves a byte) */
bool os_snap_entry_sound(const struct objstore *os, const struct os_snap_entry *e);

#endif
