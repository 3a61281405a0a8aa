/*
 * snapshot_capture.c -- copy-before-write: the head's copy of a live page
 * before its first change, and the snapshot area's part of every
 * transaction.
 *
 * Capture: before a range a transaction records is written (os_tx_log,
 * os_log_fresh) and when a page or block is freed (alloc.c), each page of
 * it in the capture domain not yet in the head's list is copied into a
 * free area page and appended to the list (I1, format.h). The head map
 * says in O(1) whether a page is in the list. Capture cannot fail a
 * transaction: when the area has no page left, every snapshot is dropped
 * at once (the table's generation advances).
 *
 * Log use: the area header and nodes change only inside transactions,
 * logged first, once per transaction each (os_snap_log_area,
 * os_snap_log_node; taking, removing, reclaim and restore log them so
 * too). Capture logs only those two, from a reserve no caller of
 * os_log_room can take (OS_SNAP_LOG_RESERVE), so that a caller's
 * worst-case log need does not change with snapshots. Everything else
 * capture writes -- the copy, a list page, the entry, the head map -- is
 * meaningless in the committed state (above high_water, on the free
 * stack, past a count, or a sparse-set slot), so it is written unlogged
 * and flushed; the commit's fence orders it before the epoch
 * (os_snap_unlogged names those ranges). Area pages given back in a
 * transaction still hold bytes the committed state owns: capture does not
 * take them until the commit (os->snap_freed). At the commit, os_snap_seal
 * recomputes the checksums of what the transaction logged.
 *
 * Below tx.c, which calls it at a transaction's begin, before every
 * record and at the commit: nothing here calls tx.c back. The area's own
 * bytes lie outside the capture domain, so they are logged with log.c's
 * os_log_undo -- os_tx_log's checks and record, without the capture that
 * would copy nothing for them -- and no transaction is begun or ended
 * here.
 */
#include <string.h>

#include "snapshot_internal.h"

/* os_snap_log_area -- the area header, once per transaction */
int os_snap_log_area(struct objstore *os)
{
	int err;

	if (os->snap_area_logged)
		return 0;
	err = os_log_undo(os, os->snap, sizeof(*os->snap));
	if (!err)
		os->snap_area_logged = true;
	return err;
}

/* os_snap_log_node -- node i, once per transaction */
int os_snap_log_node(struct objstore *os, unsigned i)
{
	int err;

	if (os->snap_logged_nodes & (1ull << i))
		return 0;
	err = os_log_undo(os, os_snap_node(os, i), sizeof(struct os_snap_node));
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
			os_snap_node(os, i)->crc = os_snap_node_crc(os_snap_node(os, i));
}

/* os_snap_tx_begin -- a new transaction has logged nothing of the area */
void os_snap_tx_begin(struct objstore *os)
{
	os->snap_area_logged = false;
	os->snap_capture_ready = false;
	os->snap_freed = false;
	os->snap_logged_nodes = 0;
}

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

/* os_snap_append_entry -- (page, copy + 1) at the end of node n's list,
 * and in the head map when n is the head (the header and n logged);
 * -ERR_NOSPC when no area page is left for a list page. Unlogged: past
 * n's count. */
int os_snap_append_entry(struct objstore *os, struct os_snap_node *n, uint64_t page,
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
	if (n == os_snap_node(os, os->snap->head - 1u)) {
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
	struct os_snap_node *h = os_snap_node(os, a->head - 1);
	uint32_t q;

	if (!os_snap_in_domain(os, p) || os_snap_in_head(os, h, p))
		return;
	if (!os->snap_capture_ready) {
		/* Invariant: the reserve os_log_room kept holds these two records. */
		os->snap_capture_ready = true;
		if (os_snap_log_area(os) || os_snap_log_node(os, a->head - 1u))
			os->pf->fatal("objstore: no log left for the snapshot area's reserve");
	}
	/* The copy, and a list page and a directory at most. */
	if (h->count >= OS_SNAP_MAX_ENTRIES || area_free_pages(os) < 3) {
		drop_all(os);
		return;
	}
	q = area_take(os);
	memcpy(os_snap_page(os, q), os->base + p * OS_PAGE_SIZE, OS_PAGE_SIZE);
	os_flush(os, os_snap_page(os, q), OS_PAGE_SIZE);
	/* Invariant: the room for its list page and directory was checked above. */
	if (os_snap_append_entry(os, h, p, q + 1))
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

/* os_snap_unlogged -- the heap ranges capture writes without logging: the
 * head map and the area's data pages */
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
