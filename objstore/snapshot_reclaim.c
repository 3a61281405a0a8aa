/*
 * snapshot_reclaim.c -- giving back the pages of removed snapshots.
 *
 * Removing a snapshot (snapshot.c) only hides its node. Reclaim gives back
 * what no other node needs, in steps bounded by the log, inside the
 * caller's transaction (the kernel runs it after each commit; 1 means the
 * log ran short, to go on in the next transaction):
 *
 *   - a hidden leaf gives back its copies, list pages and directory, and
 *     leaves the table; its parent may be a hidden leaf then;
 *   - a hidden head with one child -- the newest snapshot removed --
 *     absorbs the child's list, the child's bytes winning (its own copy of
 *     a page both hold goes back), then takes the child's place. The
 *     child's state is the same before and after each step, so a cut
 *     between steps is harmless;
 *   - any other hidden node with children keeps its list while they need
 *     it: merging into a child that is not the head needs a membership map
 *     of the child's list, not built yet.
 *
 * An entry is checked before its copy moves: sound (os_snap_entry_sound,
 * check_snapshots.c) before it joins the head's list, handed out before
 * it goes back. Above tx.c: the free stack's slots and the head's entries
 * it changes are logged with os_tx_log.
 */
#include <string.h>

#include "snapshot_internal.h"

/* area_give -- area page + 1 `plus1` back to the free stack (header logged) */
static int area_give(struct objstore *os, uint32_t plus1)
{
	struct os_snap_area *a = os->snap;
	uint32_t *slot = &os->snap_stack[a->free_top];
	int err;

	if (!os_snap_handed_out(os, plus1) || a->free_top >= a->high_water)
		return -ERR_CORRUPT;
	err = os_tx_log(os, slot, sizeof(*slot));
	if (err)
		return err;
	*slot = plus1 - 1;
	a->free_top++;
	os->snap_freed = true;
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
		/* os_snap_entry_at found the list page: its directory slot exists */
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
	struct os_snap_node *n = os_snap_node(os, i);
	const struct os_snap_entry *e = os_snap_entry_at(os, n, n->count - 1);
	int err;

	if (!e || !os_snap_handed_out(os, e->copy))
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
	struct os_snap_node *h = os_snap_node(os, x), *n = os_snap_node(os, c);
	struct os_snap_entry *e = os_snap_entry_at(os, n, n->count - 1), *mine;
	int err;

	if (!os_snap_entry_sound(os, e))
		return -ERR_CORRUPT;
	if (os_snap_in_head(os, h, e->page)) {
		mine = os_snap_entry_at(os, h, os->snap_map[e->page]);
		err = os_tx_log(os, mine, sizeof(*mine));
		if (!err)
			err = area_give(os, mine->copy);
		if (err)
			return err;
		mine->copy = e->copy;
	} else {
		err = os_snap_append_entry(os, h, e->page, e->copy);
		if (err)
			return err;
	}
	return shrink_list(os, n);
}

/* become_child -- the hidden head x, its only child c's list absorbed,
 * takes c's place: c's name, epoch, time and flags, c's children */
static int become_child(struct objstore *os, unsigned x, unsigned c)
{
	struct os_snap_node *h = os_snap_node(os, x), *n = os_snap_node(os, c);
	int err = 0;

	for (unsigned k = 0; k < OS_SNAP_NODES && !err; k++)
		if (os_snap_in_use(os, k) && os_snap_node(os, k)->parent == c + 1) {
			err = os_snap_log_node(os, k);
			if (!err)
				os_snap_node(os, k)->parent = (uint16_t)(x + 1);
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
	int err = os_snap_log_node(os, x);

	if (!err)
		err = os_snap_log_node(os, c);
	while (!err && os_snap_node(os, c)->count) {
		if (os_log_room(os, 8 * OS_CACHE_LINE + OS_SNAP_NODES * 256))
			return 1;
		err = absorb_step(os, x, c);
		if (err == -ERR_NOSPC)
			return 1; /* no area page for a list page in this transaction */
	}
	if (!err && os_snap_node(os, c)->dir) {
		err = area_give(os, os_snap_node(os, c)->dir);
		os_snap_node(os, c)->dir = 0;
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
		struct os_snap_node *n = os_snap_node(os, i);

		unsigned kids;

		if (!os_snap_in_use(os, i) || !(n->flags & OS_SNAP_HIDDEN))
			continue;
		kids = os_snap_children(os, i, &child);
		if (kids > 1 || (kids == 1 && a->head != i + 1))
			continue; /* needed as it is (merging into a child: not yet) */
		if (os_log_room(os, 4 * OS_SNAP_LOG_RESERVE))
			return 1;
		err = os_snap_log_area(os);
		if (!err)
			err = os_snap_log_node(os, i);
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
