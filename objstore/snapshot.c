/*
 * snapshot.c -- whole-heap snapshots by copy-before-write: names and the
 * node table, taking and removing a snapshot.
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
 * twice and no page is needed. Removing a snapshot hides its node;
 * reclaim gives its pages back once no other node needs them.
 *
 * One file per job, each calling only the files below it here:
 *
 *   snapshot_restore.c  restore, finishing one at power-on, reading one
 *   snapshot_reclaim.c  giving back the pages of removed snapshots
 *   tx.c                the transaction: captures before every record
 *   snapshot_query.c    listing and usage
 *   snapshot.c          names and the node table; take, remove, boot, keep
 *   snapshot_capture.c  copy-before-write; the area's part of a transaction
 *   check_snapshots.c   every check of the area's format: open's, the
 *                       checker's, and restore's and reclaim's of an entry
 *   log.c               the log's records
 *   snapshot_area.c     the area's geometry, format and attach; its lists
 *
 * The transaction is where the calls could go both ways: tx.c captures
 * before every record it writes, and capture logs the area header and the
 * head node in that same transaction. They point one way because capture
 * logs only the area's own bytes, which lie outside what it copies: it
 * needs the record (log.c's os_log_undo), not the transaction (os_tx_log
 * is that record after a capture), and it begins and ends nothing. Taking
 * and removing change the area inside the caller's transaction, logged
 * the same way; restore runs transactions of its own and reclaim logs
 * with os_tx_log, so both sit above tx.c. heap.c, above them all, attaches
 * and formats the area and asks check_snapshots.c whether to open it.
 */
#include <string.h>

#include "snapshot_internal.h"

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
		if (os_snap_in_use(os, i) && !(os_snap_node(os, i)->flags & OS_SNAP_HIDDEN) &&
		    strcmp(os_snap_node(os, i)->name, name) == 0)
			return (int)i;
	return -ERR_NOENT;
}

/* os_snap_free_node -- a node slot not in use, or -ERR_NOSPC */
int os_snap_free_node(const struct objstore *os)
{
	for (unsigned i = 0; i < OS_SNAP_NODES; i++)
		if (!os_snap_in_use(os, i))
			return (int)i;
	return -ERR_NOSPC;
}

/* os_snap_children -- how many nodes have node i as their parent; one in *child */
unsigned os_snap_children(const struct objstore *os, unsigned i, unsigned *child)
{
	unsigned count = 0;

	for (unsigned c = 0; c < OS_SNAP_NODES; c++)
		if (os_snap_in_use(os, c) && os_snap_node(os, c)->parent == i + 1) {
			*child = c;
			count++;
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
	i = os_snap_free_node(os);
	if (i < 0)
		return i;
	if (os_log_room(os, 3 * OS_SNAP_LOG_RESERVE))
		return -ERR_NOSPC;
	err = os_snap_log_area(os);
	if (!err && a->head)
		err = os_snap_log_node(os, a->head - 1u);
	if (!err)
		err = os_snap_log_node(os, (unsigned)i);
	if (err)
		return err;
	n = os_snap_node(os, (unsigned)i);
	memset(n, 0, sizeof(*n));
	memcpy(n->name, name, strlen(name));
	n->epoch = os->tx_epoch;
	n->time_ns = time_ns;
	n->gen = a->table_gen;
	n->flags = (uint16_t)flags;
	if (a->head)
		os_snap_node(os, a->head - 1u)->parent = (uint16_t)(i + 1);
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
	err = os_snap_log_area(os);
	if (!err)
		err = os_snap_log_node(os, (unsigned)i);
	if (err)
		return err;
	n = os_snap_node(os, (unsigned)i);
	memset(n->name, 0, sizeof(n->name));
	n->flags |= OS_SNAP_HIDDEN;
	if (a->boot == i + 1)
		a->boot = 0;
	return 0;
}

/* os_snap_set_boot -- the snapshot every power-on starts from (NULL: off) */
int os_snap_set_boot(struct objstore *os, const char *name)
{
	int i = name ? os_snap_find(os, name) : -1, err = may_change(os);

	if (err)
		return err;
	if (name && i < 0)
		return i;
	err = os_snap_log_area(os);
	if (!err)
		os->snap->boot = (uint16_t)(i + 1);
	return err;
}

/* os_snap_set_keep -- how many power-on snapshots the kernel keeps */
int os_snap_set_keep(struct objstore *os, unsigned keep)
{
	int err = may_change(os);

	if (err)
		return err;
	if (keep > OS_SNAP_NODES)
		return -ERR_RANGE;
	err = os_snap_log_area(os);
	if (!err)
		os->snap->keep = keep;
	return err;
}
