/*
 * snapshot.c -- whole-heap snapshots by copy-before-write.
 *
 * The format and its invariants are in format.h ("the snapshot area");
 * docs/snapshots.md tells why this design and what it costs. In short:
 * every snapshot is a node with a list of (heap page, copy) entries,
 * relative to its parent node, or to the live state for the head. Taking
 * a snapshot makes a new head with an empty list (O(1)); from then on the
 * first change to each live page copies the page into the head's list
 * (capture). Restoring swaps each page of the lists on the path from the
 * head to the target with its copy: the live state becomes the target's,
 * each list then holds the bytes of the node before it on the path, and
 * relabelling the path's lists one node up turns the tree around the
 * target -- the state replaced is kept as a new node, nothing is copied
 * twice and no page is needed.
 *
 * Log use: the area header and nodes change only inside transactions,
 * logged first (once per transaction each). Capture logs only those two,
 * from a reserve no caller of os_log_room can take (OS_SNAP_LOG_RESERVE),
 * so that a caller's worst-case log need does not change with snapshots.
 * Everything else capture writes -- the copy, a list page, the entry, the
 * head map -- is meaningless in the committed state (above high_water, on
 * the free stack, past a count, or a sparse-set slot), so it is written
 * unlogged and flushed; the commit's fence orders it before the epoch.
 * Area pages given back in a transaction still hold bytes the committed
 * state owns: capture does not take them until the commit
 * (os->snap_freed).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* geometry of an area: pages after the header and node table */
struct area_geometry {
	uint32_t map_pages, stack_pages, data_pages;
};

/* area_geometry -- the area of snap_size bytes for a heap whose pages below
 * snap_offset it covers; 0, or -ERR_NOSPC when too small */
static int area_geometry(uint64_t snap_offset, uint64_t snap_size,
			 struct area_geometry *g)
{
	uint64_t heap_pages = snap_offset / OS_PAGE_SIZE;
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

/* os_snap_geometry_check -- the area of a superblock: NULL or what is wrong */
const char *os_snap_geometry_check(const struct os_superblock *sb)
{
	struct area_geometry g;

	if (sb->layout_major < 2)
		return sb->snap_offset || sb->snap_size ?
			"a layout 1 heap with a snapshot area" : NULL;
	if (!sb->snap_size)
		return sb->snap_offset ? "snapshot area offset without a size" : NULL;
	if (sb->snap_offset % OS_PAGE_SIZE || sb->snap_size % OS_PAGE_SIZE ||
	    sb->snap_offset > sb->heap_size ||
	    sb->snap_size != sb->heap_size - sb->snap_offset)
		return "snapshot area does not end the heap";
	if (sb->snap_offset < sb->data_offset + sb->page_count * OS_PAGE_SIZE)
		return "snapshot area overlaps the data pages";
	if (area_geometry(sb->snap_offset, sb->snap_size, &g))
		return "snapshot area too small";
	return NULL;
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
	struct area_geometry g;
	uint8_t *area;

	os->snap = NULL;
	if (sb->layout_major < 2 || !sb->snap_size ||
	    area_geometry(sb->snap_offset, sb->snap_size, &g))
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
	struct area_geometry g;

	if (!a)
		return;
	area_geometry(sb->snap_offset, sb->snap_size, &g);
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

/* area_problem -- the first thing wrong with an area header, NULL if none */
static const char *area_problem(const struct os_snap_area *a,
				const struct os_superblock *sb, char *why, size_t why_size)
{
	struct area_geometry g;

	area_geometry(sb->snap_offset, sb->snap_size, &g);
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

/* os_snap_node_problem -- the first thing wrong with node i of an area
 * (NULL if none, or if it is not in use) */
const char *os_snap_node_problem(const struct os_snap_area *a, const struct os_snap_node *n,
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

/* os_snap_area_problem -- the first thing wrong with an area header and
 * its node table as they are, NULL if none */
const char *os_snap_area_problem(const struct os_snap_area *a, const struct os_snap_node *nodes,
				 const struct os_superblock *sb, char *why, size_t why_size)
{
	if (area_problem(a, sb, why, why_size))
		return why;
	for (unsigned i = 0; i < OS_SNAP_NODES; i++)
		if (os_snap_node_problem(a, &nodes[i], i, why, why_size))
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
		if (os_snap_node_problem(&a, &n, i, why, why_size))
			return why;
	}
	return NULL;
}

/* --- reading the area ------------------------------------------------ */

static struct os_snap_node *node(const struct objstore *os, unsigned i)
{
	return &os->snap_nodes[i];
}

/* in_use -- whether node i holds a snapshot (or a hidden node) */
static bool in_use(const struct objstore *os, unsigned i)
{
	return os->snap_nodes[i].gen == os->snap->table_gen;
}

/* area_page -- the address of area page a */
static uint8_t *area_page(const struct objstore *os, uint32_t a)
{
	return os->snap_data + (uint64_t)a * OS_PAGE_SIZE;
}

/* handed_out -- whether `plus1` (an area page + 1) names a page handed out */
static bool handed_out(const struct objstore *os, uint32_t plus1)
{
	return plus1 && plus1 <= os->snap->high_water;
}

/* os_snap_dir_slot -- where node n's directory keeps list page k, NULL if it has none */
uint32_t *os_snap_dir_slot(const struct objstore *os, const struct os_snap_node *n,
			  uint32_t k)
{
	if (!handed_out(os, n->dir) || k >= OS_SNAP_DIR_SLOTS)
		return NULL;
	return (uint32_t *)area_page(os, n->dir - 1) + k;
}

/* os_snap_entry_at -- entry i of node n's list (meaningful below n->count),
 * NULL if its list page is missing or out of range */
struct os_snap_entry *os_snap_entry_at(const struct objstore *os,
				      const struct os_snap_node *n, uint32_t i)
{
	uint32_t *slot = os_snap_dir_slot(os, n, i / OS_SNAP_ENTRIES_PER_PAGE);

	if (!slot || !handed_out(os, *slot))
		return NULL;
	return (struct os_snap_entry *)area_page(os, *slot - 1) +
	       i % OS_SNAP_ENTRIES_PER_PAGE;
}

/* os_snap_in_domain -- whether heap page p is captured: below the area,
 * not the superblock, not the undo log */
bool os_snap_in_domain(const struct objstore *os, uint64_t p)
{
	const struct os_superblock *sb = os->sb;

	return p >= 1 && p < sb->snap_offset / OS_PAGE_SIZE &&
	       !(p >= sb->log_offset / OS_PAGE_SIZE &&
		 p < (sb->log_offset + sb->log_size) / OS_PAGE_SIZE);
}

/* entry_sound -- whether an entry may be used: its page captured, its copy handed out */
static bool entry_sound(const struct objstore *os, const struct os_snap_entry *e)
{
	return e && os_snap_in_domain(os, e->page) && handed_out(os, e->copy);
}

/* in_head -- whether live page p is in the head's list (the head map) */
static bool in_head(const struct objstore *os, const struct os_snap_node *h, uint64_t p)
{
	uint32_t i = os->snap_map[p];
	const struct os_snap_entry *e;

	if (i >= h->count)
		return false;
	e = os_snap_entry_at(os, h, i);
	return e && e->page == p;
}

/* --- logging --------------------------------------------------------- */

/* log_area -- the area header, once per transaction */
static int log_area(struct objstore *os)
{
	int err;

	if (os->snap_area_logged)
		return 0;
	err = os_log_undo(os, os->snap, sizeof(*os->snap));
	if (!err)
		os->snap_area_logged = true;
	return err;
}

/* log_node -- node i, once per transaction */
static int log_node(struct objstore *os, unsigned i)
{
	int err;

	if (os->snap_logged_nodes & (1ull << i))
		return 0;
	err = os_log_undo(os, node(os, i), sizeof(struct os_snap_node));
	if (!err)
		os->snap_logged_nodes |= 1ull << i;
	return err;
}

/* os_snap_seal -- recompute the checksums of what the transaction logged
 * (os_tx_commit) */
void os_snap_seal(struct objstore *os)
{
	if (!os->snap)
		return;
	if (os->snap_area_logged)
		os->snap->crc = os_snap_area_crc(os->snap);
	for (unsigned i = 0; i < OS_SNAP_NODES; i++)
		if (os->snap_logged_nodes & (1ull << i))
			node(os, i)->crc = os_snap_node_crc(node(os, i));
}

/* os_snap_tx_begin -- a new transaction has logged nothing of the area */
void os_snap_tx_begin(struct objstore *os)
{
	os->snap_area_logged = false;
	os->snap_capture_ready = false;
	os->snap_freed = false;
	os->snap_logged_nodes = 0;
}

/* --- area pages ------------------------------------------------------ */

/* area_free_pages -- pages capture may take in this transaction */
static uint64_t area_free_pages(const struct objstore *os)
{
	const struct os_snap_area *a = os->snap;

	return (os->snap_freed ? 0 : a->free_top) + (a->data_pages - a->high_water);
}

/* area_take -- an area page for capture (area_free_pages said there is one) */
static uint32_t area_take(struct objstore *os)
{
	struct os_snap_area *a = os->snap;

	if (!os->snap_freed && a->free_top) {
		uint32_t p = os->snap_stack[--a->free_top];

		if (p < a->high_water)
			return p;
		os->pf->fatal("objstore: the snapshot area's free stack names a page never handed out");
	}
	return a->high_water++;
}

/* area_give -- area page + 1 `plus1` back to the free stack (header logged) */
static int area_give(struct objstore *os, uint32_t plus1)
{
	struct os_snap_area *a = os->snap;
	uint32_t *slot = &os->snap_stack[a->free_top];
	int err;

	if (!handed_out(os, plus1) || a->free_top >= a->high_water)
		return -ERR_CORRUPT;
	err = os_tx_log(os, slot, sizeof(*slot));
	if (err)
		return err;
	*slot = plus1 - 1;
	a->free_top++;
	os->snap_freed = true;
	return 0;
}

/* --- capture --------------------------------------------------------- */

/* drop_all -- the area is full: every snapshot goes, at once (header logged) */
static void drop_all(struct objstore *os)
{
	struct os_snap_area *a = os->snap;

	a->table_gen++;
	if (!a->table_gen)
		a->table_gen = 1;
	a->head = a->boot = 0;
	a->free_top = a->high_water = 0;
	a->dropped++;
}

/* append_entry -- (page, copy + 1) at the end of node n's list, and in the
 * head map when n is the head (the header and n logged); -ERR_NOSPC when
 * no area page is left for a list page. Unlogged: past n's count. */
static int append_entry(struct objstore *os, struct os_snap_node *n, uint64_t page,
			uint32_t copy_plus1)
{
	struct os_snap_entry *e;
	uint32_t *slot;

	uint64_t need = (uint64_t)(n->count % OS_SNAP_ENTRIES_PER_PAGE == 0) + (n->count == 0);

	if (n->count >= OS_SNAP_MAX_ENTRIES || area_free_pages(os) < need)
		return -ERR_NOSPC;
	if (n->count == 0)
		n->dir = area_take(os) + 1;
	if (n->count % OS_SNAP_ENTRIES_PER_PAGE == 0) {
		slot = os_snap_dir_slot(os, n, n->count / OS_SNAP_ENTRIES_PER_PAGE);
		*slot = area_take(os) + 1;
		os_flush(os, slot, sizeof(*slot));
	}
	e = os_snap_entry_at(os, n, n->count);
	e->page = (uint32_t)page;
	e->copy = copy_plus1;
	os_flush(os, e, sizeof(*e));
	if (n == node(os, os->snap->head - 1u)) {
		os->snap_map[page] = n->count;
		os_flush(os, &os->snap_map[page], sizeof(uint32_t));
	}
	n->count++;
	return 0;
}

/* capture_page -- before live page p first changes since the head was
 * taken: its bytes into the head's list (I1) */
static void capture_page(struct objstore *os, uint64_t p)
{
	struct os_snap_area *a = os->snap;
	struct os_snap_node *h = node(os, a->head - 1);
	uint32_t q;

	if (!os_snap_in_domain(os, p) || in_head(os, h, p))
		return;
	if (!os->snap_capture_ready) {
		/* From the reserve os_log_room keeps: these cannot fail. */
		os->snap_capture_ready = true;
		if (log_area(os) || log_node(os, a->head - 1u))
			os->pf->fatal("objstore: no log left for the snapshot area's reserve");
	}
	/* The copy, and a list page and a directory at most. */
	if (h->count >= OS_SNAP_MAX_ENTRIES || area_free_pages(os) < 3) {
		drop_all(os);
		return;
	}
	q = area_take(os);
	memcpy(area_page(os, q), os->base + p * OS_PAGE_SIZE, OS_PAGE_SIZE);
	os_flush(os, area_page(os, q), OS_PAGE_SIZE);
	if (append_entry(os, h, p, q + 1))
		os->pf->fatal("objstore: a snapshot list could not grow after its room was checked");
}

/* os_snap_capture -- before [off, off+len) of the live heap changes */
void os_snap_capture(struct objstore *os, uint64_t off, uint64_t len)
{
	if (!os->snap || !os->snap->head || os->snap_capture_off || !len)
		return;
	for (uint64_t p = off / OS_PAGE_SIZE; p <= (off + len - 1) / OS_PAGE_SIZE; p++) {
		if (!os->snap->head)
			return; /* dropped: the area filled */
		capture_page(os, p);
	}
}

/* --- names and nodes ------------------------------------------------- */

/* os_snap_name_ok -- 1..OS_SNAP_NAME_MAX printable ASCII bytes, no space */
bool os_snap_name_ok(const char *name)
{
	size_t len = strnlen(name, OS_SNAP_NAME_MAX + 1);

	if (len == 0 || len > OS_SNAP_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (name[i] <= ' ' || name[i] > '~')
			return false;
	return true;
}

/* os_snap_find -- the node of the snapshot named `name`, or -ERR_NOENT */
int os_snap_find(const struct objstore *os, const char *name)
{
	if (!os->snap || !os_snap_name_ok(name))
		return -ERR_NOENT;
	for (unsigned i = 0; i < OS_SNAP_NODES; i++)
		if (in_use(os, i) && !(node(os, i)->flags & OS_SNAP_HIDDEN) &&
		    strcmp(node(os, i)->name, name) == 0)
			return (int)i;
	return -ERR_NOENT;
}

/* free_node -- a node slot not in use, or -ERR_NOSPC */
static int free_node(const struct objstore *os)
{
	for (unsigned i = 0; i < OS_SNAP_NODES; i++)
		if (!in_use(os, i))
			return (int)i;
	return -ERR_NOSPC;
}

/* children -- how many nodes have node i as their parent; one in *child */
static unsigned children(const struct objstore *os, unsigned i, unsigned *child)
{
	unsigned count = 0;

	for (unsigned c = 0; c < OS_SNAP_NODES; c++)
		if (in_use(os, c) && node(os, c)->parent == i + 1) {
			*child = c;
			count++;
		}
	return count;
}

/* list_pages -- area pages node n's list takes: copies, list pages, directory */
static uint64_t list_pages(const struct os_snap_node *n)
{
	if (!n->count)
		return n->dir ? 1 : 0;
	return n->count + (n->count + OS_SNAP_ENTRIES_PER_PAGE - 1) / OS_SNAP_ENTRIES_PER_PAGE + 1;
}

unsigned os_snap_unlogged(const struct objstore *os, uint64_t off[2], uint64_t len[2])
{
	const struct os_snap_area *a = os->snap;

	if (!a)
		return 0;
	off[0] = os_off(os, os->snap_map);
	len[0] = (uint64_t)a->map_pages * OS_PAGE_SIZE;
	off[1] = os_off(os, os->snap_data);
	len[1] = (uint64_t)a->data_pages * OS_PAGE_SIZE;
	return 2;
}

bool os_snap_available(const struct objstore *os)
{
	return os->snap != NULL;
}

bool os_snap_restoring(const struct objstore *os)
{
	return os->snap && os->snap->restore_target;
}

void os_snap_usage(const struct objstore *os, struct os_snap_usage *out)
{
	const struct os_snap_area *a = os->snap;

	memset(out, 0, sizeof(*out));
	if (!a)
		return;
	out->data_pages = a->data_pages;
	out->free_pages = a->free_top + (a->data_pages - a->high_water);
	for (unsigned i = 0; i < OS_SNAP_NODES; i++) {
		if (!in_use(os, i))
			continue;
		out->nodes++;
		if (!(node(os, i)->flags & OS_SNAP_HIDDEN))
			out->snapshots++;
	}
	out->keep = a->keep;
	out->dropped = a->dropped;
	out->restoring = a->restore_target != 0;
}

unsigned os_snap_list(const struct objstore *os, struct os_snap_info *out, unsigned max)
{
	unsigned count = 0, child;

	if (!os->snap)
		return 0;
	for (unsigned i = 0; i < OS_SNAP_NODES; i++) {
		const struct os_snap_node *n = node(os, i);
		struct os_snap_info *info = &out[count];

		if (!in_use(os, i))
			continue;
		if (count++ >= max)
			continue;
		memset(info, 0, sizeof(*info));
		info->index = i;
		memcpy(info->name, n->name, sizeof(info->name));
		info->name[OS_SNAP_NAME_MAX] = 0;
		info->epoch = n->epoch;
		info->time_ns = n->time_ns;
		info->parent = n->parent;
		info->flags = n->flags;
		info->pages = list_pages(n);
		info->held = children(os, i, &child) ? 0 : info->pages;
		info->head = os->snap->head == i + 1;
		info->boot = os->snap->boot == i + 1;
	}
	return count;
}

/* may_change -- whether the area may change now: 0, or why not (no
 * transaction, no area, a restore to finish first) */
static int may_change(const struct objstore *os)
{
	if (!os->in_tx)
		return -ERR_INVAL;
	if (!os->snap)
		return -ERR_NOTSUP;
	return os->snap->restore_target ? -ERR_BUSY : 0;
}

/* os_snap_take -- keep the heap's state under `name` */
int os_snap_take(struct objstore *os, const char *name, uint64_t time_ns,
		 unsigned flags)
{
	struct os_snap_area *a = os->snap;
	struct os_snap_node *n;
	int i, err = may_change(os);

	if (err)
		return err;
	if (!os_snap_name_ok(name) || flags & ~OS_SNAP_AUTO)
		return -ERR_INVAL;
	if (os_snap_find(os, name) >= 0)
		return -ERR_EXIST;
	i = free_node(os);
	if (i < 0)
		return i;
	if (os_log_room(os, 3 * OS_SNAP_LOG_RESERVE))
		return -ERR_NOSPC;
	err = log_area(os);
	if (!err && a->head)
		err = log_node(os, a->head - 1u);
	if (!err)
		err = log_node(os, (unsigned)i);
	if (err)
		return err;
	n = node(os, (unsigned)i);
	memset(n, 0, sizeof(*n));
	memcpy(n->name, name, strlen(name));
	n->epoch = os->tx_epoch;
	n->time_ns = time_ns;
	n->gen = a->table_gen;
	n->flags = (uint16_t)flags;
	if (a->head)
		node(os, a->head - 1u)->parent = (uint16_t)(i + 1);
	a->head = (uint16_t)(i + 1);
	/* The new head's list is empty: every page is "not captured", and
	 * the head map needs no clearing (a sparse set over count 0). The
	 * header and the new head are logged already. */
	os->snap_capture_ready = true;
	return 0;
}

/* os_snap_rm -- remove a snapshot's name; reclaim gives its pages back */
int os_snap_rm(struct objstore *os, const char *name)
{
	struct os_snap_area *a = os->snap;
	struct os_snap_node *n;
	int i, err = may_change(os);

	if (err)
		return err;
	i = os_snap_find(os, name);
	if (i < 0)
		return i;
	err = log_area(os);
	if (!err)
		err = log_node(os, (unsigned)i);
	if (err)
		return err;
	n = node(os, (unsigned)i);
	memset(n->name, 0, sizeof(n->name));
	n->flags |= OS_SNAP_HIDDEN;
	if (a->boot == i + 1)
		a->boot = 0;
	return 0;
}

/* shrink_list -- node n's list loses its last entry (whose copy the
 * caller gave back or moved), and the list page and directory that leaves
 * empty go back (the header and n logged) */
static int shrink_list(struct objstore *os, struct os_snap_node *n)
{
	uint32_t last = n->count - 1;
	int err = 0;

	if (last % OS_SNAP_ENTRIES_PER_PAGE == 0)
		/* entry_at found the list page: its directory slot exists */
		err = area_give(os, *os_snap_dir_slot(os, n, last / OS_SNAP_ENTRIES_PER_PAGE));
	if (!err && last == 0) {
		err = area_give(os, n->dir);
		n->dir = 0;
	}
	if (!err)
		n->count = last;
	return err;
}

/* release_list_tail -- give back the last entry of node i's list with its
 * copy (node and header logged) */
static int release_list_tail(struct objstore *os, unsigned i)
{
	struct os_snap_node *n = node(os, i);
	const struct os_snap_entry *e = os_snap_entry_at(os, n, n->count - 1);
	int err;

	if (!e || !handed_out(os, e->copy))
		return -ERR_CORRUPT;
	err = area_give(os, e->copy);
	return err ? err : shrink_list(os, n);
}

/* absorb_step -- the hidden head x takes the last entry of its only child
 * c: c's bytes win over x's (only c's state counts now), so x's own copy
 * of that page, if any, goes back; c's list shrinks by one (the header and
 * both nodes logged). c's state is the same before and after: a cut
 * between steps leaves a sound tree. */
static int absorb_step(struct objstore *os, unsigned x, unsigned c)
{
	struct os_snap_node *h = node(os, x), *n = node(os, c);
	struct os_snap_entry *e = os_snap_entry_at(os, n, n->count - 1), *mine;
	int err;

	if (!entry_sound(os, e))
		return -ERR_CORRUPT;
	if (in_head(os, h, e->page)) {
		mine = os_snap_entry_at(os, h, os->snap_map[e->page]);
		err = os_tx_log(os, mine, sizeof(*mine));
		if (!err)
			err = area_give(os, mine->copy);
		if (err)
			return err;
		mine->copy = e->copy;
	} else {
		err = append_entry(os, h, e->page, e->copy);
		if (err)
			return err;
	}
	return shrink_list(os, n);
}

/* become_child -- the hidden head x, its only child c's list absorbed,
 * takes c's place: c's name, epoch, time and flags, c's children */
static int become_child(struct objstore *os, unsigned x, unsigned c)
{
	struct os_snap_node *h = node(os, x), *n = node(os, c);
	int err = 0;

	for (unsigned k = 0; k < OS_SNAP_NODES && !err; k++)
		if (in_use(os, k) && node(os, k)->parent == c + 1) {
			err = log_node(os, k);
			if (!err)
				node(os, k)->parent = (uint16_t)(x + 1);
		}
	if (err)
		return err;
	memcpy(h->name, n->name, sizeof(h->name));
	h->epoch = n->epoch;
	h->time_ns = n->time_ns;
	h->flags = n->flags;
	if (os->snap->boot == c + 1)
		os->snap->boot = (uint16_t)(x + 1);
	n->gen = 0;
	return 0;
}

/* merge_into_head -- a hidden head with one child: absorb the child's list,
 * then become it; 1 if the log ran short first */
static int merge_into_head(struct objstore *os, unsigned x, unsigned c)
{
	int err = log_node(os, x);

	if (!err)
		err = log_node(os, c);
	while (!err && node(os, c)->count) {
		if (os_log_room(os, 8 * OS_CACHE_LINE + OS_SNAP_NODES * 256))
			return 1;
		err = absorb_step(os, x, c);
		if (err == -ERR_NOSPC)
			return 1; /* no area page for a list page in this transaction */
	}
	if (!err && node(os, c)->dir) {
		err = area_give(os, node(os, c)->dir);
		node(os, c)->dir = 0;
	}
	return err ? err : become_child(os, x, c);
}

/* os_snap_reclaim -- give back the pages of hidden nodes no one needs */
int os_snap_reclaim(struct objstore *os)
{
	struct os_snap_area *a = os->snap;
	unsigned child = 0;
	int err;

	if (!os->in_tx)
		return -ERR_INVAL;
	if (!a || a->restore_target)
		return 0;
	for (unsigned i = 0; i < OS_SNAP_NODES; i++) {
		struct os_snap_node *n = node(os, i);

		unsigned kids;

		if (!in_use(os, i) || !(n->flags & OS_SNAP_HIDDEN))
			continue;
		kids = children(os, i, &child);
		if (kids > 1 || (kids == 1 && a->head != i + 1))
			continue; /* needed as it is (merging into a child: not yet) */
		if (os_log_room(os, 4 * OS_SNAP_LOG_RESERVE))
			return 1;
		err = log_area(os);
		if (!err)
			err = log_node(os, i);
		if (err)
			return err;
		if (kids == 1) {
			err = merge_into_head(os, i, child);
			if (err)
				return err;
			i = (unsigned)-1;
			continue;
		}
		/* A leaf no snapshot needs: its copies, list pages and directory. */
		while (n->count || n->dir) {
			if (os_log_room(os, 4 * OS_CACHE_LINE * 2))
				return 1;
			if (!n->count) {
				err = area_give(os, n->dir);
				n->dir = 0;
			} else {
				err = release_list_tail(os, i);
			}
			if (err)
				return err;
		}
		n->gen = 0;
		if (a->head == i + 1) {
			a->head = 0;
			os->snap_capture_ready = false;
		}
		i = (unsigned)-1; /* its parent may be a hidden leaf now: look again */
	}
	return 0;
}

int os_snap_set_boot(struct objstore *os, const char *name)
{
	int i = name ? os_snap_find(os, name) : -1, err = may_change(os);

	if (err)
		return err;
	if (name && i < 0)
		return i;
	err = log_area(os);
	if (!err)
		os->snap->boot = (uint16_t)(i + 1);
	return err;
}

int os_snap_set_keep(struct objstore *os, unsigned keep)
{
	int err = may_change(os);

	if (err)
		return err;
	if (keep > OS_SNAP_NODES)
		return -ERR_RANGE;
	err = log_area(os);
	if (!err)
		os->snap->keep = keep;
	return err;
}

/* --- restore --------------------------------------------------------- */

/* restore_path -- the nodes from the head (path[0]) to `target`
 * (path[*len - 1]); -ERR_CORRUPT if the parents do not lead there */
static int restore_path(const struct objstore *os, unsigned target,
			unsigned path[OS_SNAP_NODES], unsigned *len)
{
	unsigned at = target, n = 0;

	for (;;) {
		if (at >= OS_SNAP_NODES || !in_use(os, at) || n == OS_SNAP_NODES)
			return -ERR_CORRUPT;
		path[n++] = at;
		if (!node(os, at)->parent)
			break;
		at = node(os, at)->parent - 1u;
	}
	if (os->snap->head != path[n - 1] + 1)
		return -ERR_CORRUPT;
	for (unsigned i = 0; i < n / 2; i++) {
		unsigned t = path[i];

		path[i] = path[n - 1 - i];
		path[n - 1 - i] = t;
	}
	*len = n;
	return 0;
}

/* lists_sound -- every entry on the path is usable, before a byte is swapped */
static bool lists_sound(const struct objstore *os, const unsigned *path, unsigned len)
{
	for (unsigned s = 0; s < len; s++) {
		const struct os_snap_node *n = node(os, path[s]);

		for (uint32_t i = 0; i < n->count; i++)
			if (!entry_sound(os, os_snap_entry_at(os, n, i)))
				return false;
	}
	return true;
}

/* swap_pages -- exchange two pages' bytes, a word at a time */
static void swap_pages(uint8_t *x, uint8_t *y)
{
	uint64_t *a = (uint64_t *)x, *b = (uint64_t *)y;

	for (unsigned i = 0; i < OS_PAGE_SIZE / 8; i++) {
		uint64_t t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

/* relabel -- after every list on the path was swapped: each list holds the
 * bytes of the node before it on the path (the head's: the replaced live
 * state's), so each moves one node up; the target becomes the head with
 * an empty list, the replaced state a node under the old head */
static int relabel(struct objstore *os, const unsigned *path, unsigned len)
{
	struct os_snap_area *a = os->snap;
	unsigned before = a->restore_before - 1u, target = path[len - 1];
	int err = 0;

	for (unsigned s = 0; s < len && !err; s++)
		err = log_node(os, path[s]);
	if (!err)
		err = log_node(os, before);
	if (err)
		return err;
	node(os, before)->count = node(os, path[0])->count;
	node(os, before)->dir = node(os, path[0])->dir;
	node(os, before)->parent = (uint16_t)(path[0] + 1);
	for (unsigned s = 0; s + 1 < len; s++) {
		node(os, path[s])->count = node(os, path[s + 1])->count;
		node(os, path[s])->dir = node(os, path[s + 1])->dir;
		node(os, path[s])->parent = (uint16_t)(path[s + 1] + 1);
	}
	node(os, target)->count = 0;
	node(os, target)->dir = 0;
	node(os, target)->parent = 0;
	a->head = (uint16_t)(target + 1);
	a->restore_target = a->restore_before = 0;
	a->restore_step = a->restore_entry = 0;
	return 0;
}

/* SWAP_LOG -- log one swap takes: both pages' old bytes */
#define SWAP_LOG (2 * (OS_PAGE_SIZE + 64))

/* os_snap_finish -- finish a restore in progress */
int os_snap_finish(struct objstore *os)
{
	struct os_snap_area *a = os->snap;
	unsigned path[OS_SNAP_NODES], len;
	int err;

	if (!a || !a->restore_target)
		return 0;
	if (os->in_tx || os->pending)
		return -ERR_BUSY;
	if (!a->restore_before || !in_use(os, a->restore_before - 1u) ||
	    restore_path(os, a->restore_target - 1u, path, &len) || a->restore_step > len)
		return -ERR_CORRUPT;
	if (!lists_sound(os, path, len))
		return -ERR_CORRUPT;
	os->snap_capture_off = true;
	err = os_tx_begin(os);
	while (!err && a->restore_step < len) {
		struct os_snap_node *n = node(os, path[a->restore_step]);
		const struct os_snap_entry *e;

		if (os_log_room(os, SWAP_LOG + 2 * OS_SNAP_LOG_RESERVE)) {
			err = os_tx_commit(os);
			if (!err)
				err = os_tx_begin(os);
			continue;
		}
		err = log_area(os);
		if (err)
			break;
		if (a->restore_entry >= n->count) {
			a->restore_step++;
			a->restore_entry = 0;
			continue;
		}
		e = os_snap_entry_at(os, n, a->restore_entry);
		err = os_tx_log(os, os->base + (uint64_t)e->page * OS_PAGE_SIZE, OS_PAGE_SIZE);
		if (!err)
			err = os_tx_log(os, area_page(os, e->copy - 1), OS_PAGE_SIZE);
		if (err)
			break;
		swap_pages(os->base + (uint64_t)e->page * OS_PAGE_SIZE, area_page(os, e->copy - 1));
		a->restore_entry++;
	}
	if (!err && os_log_room(os, (len + 2) * 256)) {
		err = os_tx_commit(os);
		if (!err)
			err = os_tx_begin(os);
	}
	if (!err)
		err = log_area(os);
	if (!err)
		err = relabel(os, path, len);
	if (!err)
		err = os_tx_commit(os);
	else if (os->in_tx)
		os_tx_abort(os);
	os->snap_capture_off = false;
	return err;
}

/* os_snap_materialize -- the snapshot `name`'s state, in `copy`: a copy of
 * the whole heap of `os` (os->size bytes) the caller made; each list on
 * the path from the head is copied over it, the head's first. Reads `os`
 * only. -ERR_NOENT, -ERR_CORRUPT (a list on the way fails its checks) */
int os_snap_materialize(const struct objstore *os, const char *name, uint8_t *copy)
{
	unsigned path[OS_SNAP_NODES], len;
	int target = os_snap_find(os, name);

	if (target < 0)
		return target;
	if (restore_path(os, (unsigned)target, path, &len) || !lists_sound(os, path, len))
		return -ERR_CORRUPT;
	for (unsigned s = 0; s < len; s++) {
		const struct os_snap_node *n = node(os, path[s]);

		for (uint32_t i = 0; i < n->count; i++) {
			const struct os_snap_entry *e = os_snap_entry_at(os, n, i);

			memcpy(copy + (uint64_t)e->page * OS_PAGE_SIZE, area_page(os, e->copy - 1),
			       OS_PAGE_SIZE);
		}
	}
	return 0;
}

/* os_snap_restore -- make the live state the snapshot `name`'s */
int os_snap_restore(struct objstore *os, const char *name, const char *before,
		    uint64_t time_ns)
{
	struct os_snap_area *a = os->snap;
	unsigned path[OS_SNAP_NODES], len;
	struct os_snap_node *b;
	int target, slot, err;

	if (!a)
		return -ERR_NOTSUP;
	if (os->in_tx || os->pending || a->restore_target)
		return -ERR_BUSY;
	target = os_snap_find(os, name);
	if (target < 0)
		return target;
	if (!os_snap_name_ok(before))
		return -ERR_INVAL;
	if (os_snap_find(os, before) >= 0)
		return -ERR_EXIST;
	slot = free_node(os);
	if (slot < 0)
		return slot;
	/* The path's lists are checked before anything is written. */
	if (restore_path(os, (unsigned)target, path, &len) || !lists_sound(os, path, len))
		return -ERR_CORRUPT;
	err = os_tx_begin(os);
	if (!err)
		err = log_area(os);
	if (!err)
		err = log_node(os, (unsigned)slot);
	if (err) {
		if (os->in_tx)
			os_tx_abort(os);
		return err;
	}
	/* The replaced state's node, outside the tree until relabel links it. */
	b = node(os, (unsigned)slot);
	memset(b, 0, sizeof(*b));
	memcpy(b->name, before, strlen(before));
	b->epoch = os->sb->committed_epoch;
	b->time_ns = time_ns;
	b->gen = a->table_gen;
	b->parent = (uint16_t)(target + 1);
	b->flags = OS_SNAP_AUTO;
	a->restore_target = (uint16_t)(target + 1);
	a->restore_before = (uint16_t)(slot + 1);
	a->restore_step = a->restore_entry = 0;
	err = os_tx_commit(os);
	return err ? err : os_snap_finish(os);
}
