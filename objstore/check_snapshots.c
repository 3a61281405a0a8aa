/*
 * check_snapshots.c -- every check of the snapshot area's format
 * (format.h, snapshot.c): what open refuses, what the checker walks, and
 * what restore and reclaim ask of an entry before they use it.
 *
 * At every open (os_diagnose), and in the checker before anything else:
 * the superblock's area geometry (os_snap_geometry_check, which
 * os_create's layout asks too), then the header and every node in use as
 * the rollback of the log would leave them (os_snap_after_rollback_problem):
 * checksums, fields in range, reserved fields zero.
 *
 * The checker's walk (os_check_snapshots) verifies besides: the nodes form
 * one tree under the head (every parent in use, no cycle, exactly the head
 * has parent 0); no restore is left unfinished; every list entry names a
 * captured heap page and a copy handed out, no page twice in one list;
 * every area page handed out is exactly one of: on the free stack, a
 * directory, a list page, a copy (no leak, no double use); and the head
 * map finds every entry of the head (else capture would copy a page
 * twice, the second time with bytes the snapshot never had).
 *
 * Scratch: the caller's, reused once the rest of the checker is done: a
 * byte per area page (its owner) and a bit per heap page (seen in the
 * list being walked).
 *
 * It calls only below it -- the checker's bookkeeping (check_common.c),
 * the area's accessors (snapshot_area.c), the log's reading (log.c) -- so
 * heap.c's open, the checker's driver, restore and reclaim all call it.
 */
#include <stdio.h>
#include <string.h>

#include "check_internal.h"
#include "snapshot_internal.h"

/* os_snap_geometry_check -- the area of a superblock: NULL or what is wrong */
const char *os_snap_geometry_check(const struct os_superblock *sb)
{
	struct os_snap_geometry g;

	if (sb->layout_major < 2)
		return sb->snap_offset || sb->snap_size ?
			"a layout 1 heap with a snapshot area" : NULL;
	if (!sb->snap_size)
		return sb->snap_offset ? "snapshot area offset without a size" : NULL;
	if (sb->snap_offset % OS_PAGE_SIZE || sb->snap_size % OS_PAGE_SIZE)
		return "snapshot area not page aligned";
	if (os_resizable(sb)) {
		/* Placed by os_geometry_check: after the stack, before the data pages. */
	} else if (sb->snap_offset > sb->heap_size ||
		   sb->snap_size != sb->heap_size - sb->snap_offset) {
		return "snapshot area does not end the heap";
	} else if (sb->snap_offset < sb->data_offset + sb->page_count * OS_PAGE_SIZE) {
		return "snapshot area overlaps the data pages";
	}
	if (os_snap_geometry(os_snap_covered_pages(sb), sb->snap_size, &g))
		return "snapshot area too small";
	return NULL;
}

/* area_problem -- the first thing wrong with an area header, NULL if none */
static const char *area_problem(const struct os_snap_area *a,
				const struct os_superblock *sb, char *why, size_t why_size)
{
	struct os_snap_geometry g;

	os_snap_geometry(os_snap_covered_pages(sb), sb->snap_size, &g);
	if (memcmp(a->magic, OS_SNAP_MAGIC, 8))
		snprintf(why, why_size, "snapshot area: no magic");
	else if (a->crc != os_snap_area_crc(a))
		snprintf(why, why_size, "snapshot area: checksum %#x != %#x", a->crc,
			 os_snap_area_crc(a));
	else if (a->map_pages != g.map_pages || a->stack_pages != g.stack_pages ||
		 a->data_pages != g.data_pages)
		snprintf(why, why_size, "snapshot area: geometry differs from the superblock's");
	else if (a->high_water > a->data_pages || a->free_top > a->high_water)
		snprintf(why, why_size, "snapshot area: %u pages handed out, %u free, of %u",
			 a->high_water, a->free_top, a->data_pages);
	else if (a->head > OS_SNAP_NODES || a->boot > OS_SNAP_NODES ||
		 a->restore_target > OS_SNAP_NODES || a->restore_before > OS_SNAP_NODES ||
		 !a->table_gen)
		snprintf(why, why_size, "snapshot area: node number out of range");
	else if (!os_all_zero(a->reserved, sizeof(a->reserved)) || a->reserved1)
		snprintf(why, why_size, "snapshot area: reserved fields are not zero");
	else
		return NULL;
	return why;
}

/* node_problem -- the first thing wrong with node i of an area (NULL if
 * none, or if it is not in use) */
static const char *node_problem(const struct os_snap_area *a, const struct os_snap_node *n,
				unsigned i, char *why, size_t why_size)
{
	if (n->gen != a->table_gen)
		return NULL;
	if (n->crc != os_snap_node_crc(n))
		snprintf(why, why_size, "snapshot node %u: checksum %#x != %#x", i, n->crc,
			 os_snap_node_crc(n));
	else if (n->parent > OS_SNAP_NODES || n->parent == i + 1 || n->dir > a->high_water ||
		 n->count > OS_SNAP_MAX_ENTRIES || (n->count && !n->dir) ||
		 memchr(n->name, 0, sizeof(n->name)) == NULL ||
		 n->flags & ~(OS_SNAP_HIDDEN | OS_SNAP_AUTO))
		snprintf(why, why_size, "snapshot node %u: a field out of range", i);
	else if (!os_all_zero(n->reserved, sizeof(n->reserved)) || n->reserved1)
		snprintf(why, why_size, "snapshot node %u: reserved fields are not zero", i);
	else
		return NULL;
	return why;
}

/* table_problem -- the first thing wrong with an area header and its node
 * table as they are, NULL if none */
static const char *table_problem(const struct os_snap_area *a, const struct os_snap_node *nodes,
				 const struct os_superblock *sb, char *why, size_t why_size)
{
	if (area_problem(a, sb, why, why_size))
		return why;
	for (unsigned i = 0; i < OS_SNAP_NODES; i++)
		if (node_problem(a, &nodes[i], i, why, why_size))
			return why;
	return NULL;
}

/* os_snap_after_rollback_problem -- the first thing wrong with the area
 * header and node table of a heap as the rollback of a scanned log would
 * leave them (os_diagnose); NULL if none or no area. Reads only. */
const char *os_snap_after_rollback_problem(const uint8_t *base, const struct os_superblock *sb,
					   const struct os_log_scan *scan, char *why,
					   size_t why_size)
{
	struct os_snap_area a;
	struct os_snap_node n;

	if (sb->layout_major < 2 || !sb->snap_size)
		return NULL;
	os_after_rollback(base, sb, scan, sb->snap_offset, sizeof(a), &a);
	if (area_problem(&a, sb, why, why_size))
		return why;
	for (unsigned i = 0; i < OS_SNAP_NODES; i++) {
		os_after_rollback(base, sb, scan, sb->snap_offset + OS_PAGE_SIZE + i * sizeof(n),
				  sizeof(n), &n);
		if (node_problem(&a, &n, i, why, why_size))
			return why;
	}
	return NULL;
}

/* os_snap_entry_sound -- whether an entry may be used: its page captured,
 * its copy handed out */
bool os_snap_entry_sound(const struct objstore *os, const struct os_snap_entry *e)
{
	return e && os_snap_in_domain(os, e->page) && os_snap_handed_out(os, e->copy);
}

/* --- the checker's walk --- */

enum area_owner { AREA_NONE, AREA_FREE, AREA_DIR, AREA_LIST, AREA_COPY };

static const char *const owner_name[] = {
	[AREA_FREE] = "the free stack", [AREA_DIR] = "a directory",
	[AREA_LIST] = "a list page", [AREA_COPY] = "a copy",
};

/* claim -- area page + 1 `plus1` for `owner` (of `node`, OS_SNAP_NODES for
 * the free stack); false (reported) if out of range or claimed already */
static bool claim(struct os_checker *ck, uint8_t *owners, const struct os_snap_area *a,
		  uint32_t plus1, enum area_owner owner, unsigned node)
{
	if (!plus1 || plus1 > a->high_water) {
		if (node == OS_SNAP_NODES)
			os_check_problem(ck, "snapshot area: the free stack holds page %u, never handed out",
					 plus1 - 1);
		else
			os_check_problem(ck, "snapshot node %u: %s %u was never handed out",
					 node, owner_name[owner], plus1);
		return false;
	}
	if (owners[plus1 - 1]) {
		os_check_problem(ck, "snapshot area: page %u is %s and %s (double use)",
				 plus1 - 1, owner_name[owners[plus1 - 1]], owner_name[owner]);
		return false;
	}
	owners[plus1 - 1] = (uint8_t)owner;
	return true;
}

/* check_tree -- one head; every other node's parents lead to it */
static void check_tree(struct os_checker *ck, const struct os_snap_area *a,
		       const struct os_snap_node *nodes)
{
	unsigned heads = 0;

	for (unsigned i = 0; i < OS_SNAP_NODES; i++) {
		unsigned at = i, steps = 0;

		if (nodes[i].gen != a->table_gen)
			continue;
		if (!nodes[i].parent)
			heads++;
		while (nodes[at].parent && steps++ < OS_SNAP_NODES) {
			at = nodes[at].parent - 1u;
			if (nodes[at].gen != a->table_gen) {
				os_check_problem(ck, "snapshot node %u: its parent %u is not in use", i, at);
				return;
			}
		}
		if (nodes[at].parent) {
			os_check_problem(ck, "snapshot node %u: its parents form a cycle", i);
			return;
		}
		if (a->head != at + 1) {
			os_check_problem(ck, "snapshot node %u: its parents lead to node %u, not the head",
					 i, at);
			return;
		}
	}
	if (heads > 1)
		os_check_problem(ck, "snapshot area: %u nodes relative to the live state", heads);
	if (a->head && nodes[a->head - 1].gen != a->table_gen)
		os_check_problem(ck, "snapshot area: the head, node %u, is not in use", a->head - 1);
	if (a->boot && (nodes[a->boot - 1].gen != a->table_gen ||
			nodes[a->boot - 1].flags & OS_SNAP_HIDDEN))
		os_check_problem(ck, "snapshot area: power-on starts from node %u, not a snapshot",
				 a->boot - 1);
	for (unsigned i = 0; i < OS_SNAP_NODES; i++)
		for (unsigned j = i + 1; j < OS_SNAP_NODES; j++)
			if (nodes[i].gen == a->table_gen && nodes[j].gen == a->table_gen &&
			    !(nodes[i].flags & OS_SNAP_HIDDEN) &&
			    strcmp(nodes[i].name, nodes[j].name) == 0)
				os_check_problem(ck, "snapshot nodes %u and %u: both named '%s'",
						 i, j, nodes[i].name);
}

/* check_list -- node i's list: its pages claimed, its entries sound */
static void check_list(struct os_checker *ck, const struct objstore *os,
		       uint8_t *owners, uint8_t *seen, unsigned i)
{
	const struct os_snap_area *a = os->snap;
	const struct os_snap_node *n = &os->snap_nodes[i];
	uint32_t list_pages = (n->count + OS_SNAP_ENTRIES_PER_PAGE - 1) / OS_SNAP_ENTRIES_PER_PAGE;

	if (!n->dir)
		return;
	if (!claim(ck, owners, a, n->dir, AREA_DIR, i))
		return;
	for (uint32_t k = 0; k < list_pages; k++)
		if (!claim(ck, owners, a, *os_snap_dir_slot(os, n, k), AREA_LIST, i))
			return;
	memset(seen, 0, os->sb->heap_size / OS_PAGE_SIZE / 8 + 1);
	for (uint32_t e = 0; e < n->count; e++) {
		const struct os_snap_entry *en = os_snap_entry_at(os, n, e);

		if (!os_snap_in_domain(os, en->page)) {
			os_check_problem(ck, "snapshot node %u: entry %u names heap page %u, not one captured",
					 i, e, en->page);
			return;
		}
		if (seen[en->page / 8] & (1u << en->page % 8)) {
			os_check_problem(ck, "snapshot node %u: heap page %u twice in its list", i, en->page);
			return;
		}
		seen[en->page / 8] |= (uint8_t)(1u << en->page % 8);
		if (!claim(ck, owners, a, en->copy, AREA_COPY, i))
			return;
		if (a->head == i + 1 && os->snap_map[en->page] != e)
			os_check_problem(ck, "snapshot area: the head map misses heap page %u (entry %u)",
					 en->page, e);
	}
}

/* os_check_snapshots -- the snapshot area of the heap being checked */
void os_check_snapshots(struct os_checker *ck, void *scratch)
{
	const struct os_superblock *sb = ck->sb;
	struct objstore os;
	const struct os_snap_area *a;
	uint8_t *owners = scratch, *seen;
	char why[OS_WHY_MAX];

	memset(&os, 0, sizeof(os));
	os.base = (uint8_t *)ck->base;
	os.size = ck->size;
	os.sb = (struct os_superblock *)sb;
	os_snap_attach(&os, sb);
	a = os.snap;
	if (!a)
		return;
	if (table_problem(a, os.snap_nodes, sb, why, sizeof(why))) {
		os_check_problem(ck, "%s", why);
		return;
	}
	if (a->restore_target) {
		os_check_problem(ck, "snapshot area: a restore to node %u is unfinished (%u of its steps done); power on, or open the heap for writing, to finish it",
				 a->restore_target - 1, a->restore_step);
		return;
	}
	check_tree(ck, a, os.snap_nodes);
	memset(owners, 0, a->data_pages);
	seen = owners + a->data_pages;
	for (uint32_t f = 0; f < a->free_top; f++)
		claim(ck, owners, a, os.snap_stack[f] + 1, AREA_FREE, OS_SNAP_NODES);
	for (unsigned i = 0; i < OS_SNAP_NODES; i++)
		if (os.snap_nodes[i].gen == a->table_gen)
			check_list(ck, &os, owners, seen, i);
	for (uint32_t p = 0; p < a->high_water; p++)
		if (!owners[p])
			os_check_problem(ck, "snapshot area: page %u handed out but unreachable (leak)", p);
}
