/*
 * snapshot_restore.c -- the live state made a snapshot's (a restore, and
 * finishing one at power-on), and a snapshot's state read without it.
 *
 * Restoring to snapshot T walks the path head -> ... -> T and swaps each
 * listed page with its copy. After the swaps the live state is T's, and
 * each list holds the bytes of the node before it on the path -- the
 * head's holds the replaced live state's. Moving each list one node up
 * and reversing the parents (relabel) turns the tree around T: T becomes
 * the head with an empty list, the replaced state a new node under the
 * old head. No page is copied twice and no area page is needed. Capture
 * is off meanwhile (os->snap_capture_off): a swap itself keeps the live
 * page's old bytes, in the list it took the new ones from.
 *
 * A restore is many transactions, run here: the first records the target
 * and the node for the replaced state in the area header, each next one
 * swaps as many pages as the log holds and advances the cursor
 * (restore_step, restore_entry), the last relabels. A power cut anywhere
 * leaves a restore in progress; the next power-on finishes it
 * (os_snap_finish) before reading anything, so every power-on sees the
 * state before or the snapshot's, never a mixture.
 *
 * Reading without powering on (os_snap_materialize) copies the path's
 * lists over a copy of the heap, the head's first. Both check every list
 * on the path before they write a byte (lists_sound): a damaged one is
 * -ERR_CORRUPT, nothing changed.
 *
 * The top of the snapshot files: it begins, commits and aborts its own
 * transactions (tx.c), and nothing in objstore calls it.
 */
#include <string.h>

#include "snapshot_internal.h"

/* restore_path -- the nodes from the head (path[0]) to `target`
 * (path[*len - 1]); -ERR_CORRUPT if the parents do not lead there */
static int restore_path(const struct objstore *os, unsigned target,
			unsigned path[OS_SNAP_NODES], unsigned *len)
{
	unsigned at = target, n = 0;

	for (;;) {
		if (at >= OS_SNAP_NODES || !os_snap_in_use(os, at) || n == OS_SNAP_NODES)
			return -ERR_CORRUPT;
		path[n++] = at;
		if (!os_snap_node(os, at)->parent)
			break;
		at = os_snap_node(os, at)->parent - 1u;
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

/* lists_sound -- every entry on the path is usable (os_snap_entry_sound),
 * before a byte is swapped or copied */
static bool lists_sound(const struct objstore *os, const unsigned *path, unsigned len)
{
	for (unsigned s = 0; s < len; s++) {
		const struct os_snap_node *n = os_snap_node(os, path[s]);

		for (uint32_t i = 0; i < n->count; i++)
			if (!os_snap_entry_sound(os, os_snap_entry_at(os, n, i)))
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
		err = os_snap_log_node(os, path[s]);
	if (!err)
		err = os_snap_log_node(os, before);
	if (err)
		return err;
	os_snap_node(os, before)->count = os_snap_node(os, path[0])->count;
	os_snap_node(os, before)->dir = os_snap_node(os, path[0])->dir;
	os_snap_node(os, before)->parent = (uint16_t)(path[0] + 1);
	for (unsigned s = 0; s + 1 < len; s++) {
		os_snap_node(os, path[s])->count = os_snap_node(os, path[s + 1])->count;
		os_snap_node(os, path[s])->dir = os_snap_node(os, path[s + 1])->dir;
		os_snap_node(os, path[s])->parent = (uint16_t)(path[s + 1] + 1);
	}
	os_snap_node(os, target)->count = 0;
	os_snap_node(os, target)->dir = 0;
	os_snap_node(os, target)->parent = 0;
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
	if (!a->restore_before || !os_snap_in_use(os, a->restore_before - 1u) ||
	    restore_path(os, a->restore_target - 1u, path, &len) || a->restore_step > len)
		return -ERR_CORRUPT;
	if (!lists_sound(os, path, len))
		return -ERR_CORRUPT;
	os->snap_capture_off = true;
	err = os_tx_begin(os);
	while (!err && a->restore_step < len) {
		struct os_snap_node *n = os_snap_node(os, path[a->restore_step]);
		const struct os_snap_entry *e;

		if (os_log_room(os, SWAP_LOG + 2 * OS_SNAP_LOG_RESERVE)) {
			err = os_tx_commit(os);
			if (!err)
				err = os_tx_begin(os);
			continue;
		}
		err = os_snap_log_area(os);
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
			err = os_tx_log(os, os_snap_page(os, e->copy - 1), OS_PAGE_SIZE);
		if (err)
			break;
		swap_pages(os->base + (uint64_t)e->page * OS_PAGE_SIZE, os_snap_page(os, e->copy - 1));
		a->restore_entry++;
	}
	if (!err && os_log_room(os, (len + 2) * 256)) {
		err = os_tx_commit(os);
		if (!err)
			err = os_tx_begin(os);
	}
	if (!err)
		err = os_snap_log_area(os);
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
		const struct os_snap_node *n = os_snap_node(os, path[s]);

		for (uint32_t i = 0; i < n->count; i++) {
			const struct os_snap_entry *e = os_snap_entry_at(os, n, i);

			memcpy(copy + (uint64_t)e->page * OS_PAGE_SIZE, os_snap_page(os, e->copy - 1),
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
	slot = os_snap_free_node(os);
	if (slot < 0)
		return slot;
	/* The path's lists are checked before anything is written. */
	if (restore_path(os, (unsigned)target, path, &len) || !lists_sound(os, path, len))
		return -ERR_CORRUPT;
	err = os_tx_begin(os);
	if (!err)
		err = os_snap_log_area(os);
	if (!err)
		err = os_snap_log_node(os, (unsigned)slot);
	if (err) {
		if (os->in_tx)
			os_tx_abort(os);
		return err;
	}
	/* The replaced state's node, outside the tree until relabel links it. */
	b = os_snap_node(os, (unsigned)slot);
	memset(b, 0, sizeof(*b));
	memcpy(b->name, before, strlen(before));
	b->epoch = os->epoch;
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
