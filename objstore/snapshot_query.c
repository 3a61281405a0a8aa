/*
 * snapshot_query.c -- what the snapshot area holds: whether there is one,
 * whether a restore is in progress, its figures, its nodes.
 *
 * Questions only: nothing here writes or logs a byte, so they are asked
 * inside a transaction or outside one alike. A node's `held` (os_snap_info;
 * the shell's ONLY IT) is what removing it would give back now: its
 * list's pages when it has no child, else nothing.
 */
#include <string.h>

#include "snapshot_internal.h"

/* list_pages -- area pages node n's list takes: copies, list pages, directory */
static uint64_t list_pages(const struct os_snap_node *n)
{
	if (!n->count)
		return n->dir ? 1 : 0;
	return n->count + (n->count + OS_SNAP_ENTRIES_PER_PAGE - 1) / OS_SNAP_ENTRIES_PER_PAGE + 1;
}

/* os_snap_available -- whether the heap has a snapshot area */
bool os_snap_available(const struct objstore *os)
{
	return os->snap != NULL;
}

/* os_snap_restoring -- whether a restore is in progress */
bool os_snap_restoring(const struct objstore *os)
{
	return os->snap && os->snap->restore_target;
}

/* os_snap_usage -- the area's figures (zeros without an area) */
void os_snap_usage(const struct objstore *os, struct os_snap_usage *out)
{
	const struct os_snap_area *a = os->snap;

	memset(out, 0, sizeof(*out));
	if (!a)
		return;
	out->data_pages = a->data_pages;
	out->free_pages = a->free_top + (a->data_pages - a->high_water);
	for (unsigned i = 0; i < OS_SNAP_NODES; i++) {
		if (!os_snap_in_use(os, i))
			continue;
		out->nodes++;
		if (!(os_snap_node(os, i)->flags & OS_SNAP_HIDDEN))
			out->snapshots++;
	}
	out->keep = a->keep;
	out->dropped = a->dropped;
	out->restoring = a->restore_target != 0;
}

/* os_snap_list -- the nodes in use, by index, up to `max` of them; how many */
unsigned os_snap_list(const struct objstore *os, struct os_snap_info *out, unsigned max)
{
	unsigned count = 0, child;

	if (!os->snap)
		return 0;
	for (unsigned i = 0; i < OS_SNAP_NODES; i++) {
		const struct os_snap_node *n = os_snap_node(os, i);
		struct os_snap_info *info = &out[count];

		if (!os_snap_in_use(os, i))
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
		info->held = os_snap_children(os, i, &child) ? 0 : info->pages;
		info->head = os->snap->head == i + 1;
		info->boot = os->snap->boot == i + 1;
	}
	return count;
}
