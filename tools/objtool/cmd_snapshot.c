/*
 * cmd_snapshot.c -- the snapshots of an image: snapshots (read-only),
 * snapshot take NAME (one transaction), snapshot rm NAME (a transaction
 * per log's worth of pages given back).
 *
 * The snapshot area and its rules are objstore's (format.h, "the snapshot
 * area"; snapshot.c). Taking one is O(1): a new node, alone in its
 * transaction, holding the state as that transaction commits it. Removing
 * one clears its name (the node becomes hidden) and then gives its pages
 * back to the area with os_snap_reclaim, which does as much as the undo
 * log allows and says whether more remains: objtool commits and calls it
 * again until nothing does. Killed between those transactions, objtool
 * leaves a consistent image whose remaining pages the next `snapshot rm`,
 * or the kernel at its next power-on, gives back. A removed snapshot that
 * older ones are stored relative to keeps its pages (hidden) until they
 * go too.
 *
 * Reading a snapshot's objects is not here: `--snapshot NAME` on ls, stat,
 * cat and export (snapview.c) runs those commands on the snapshot's state.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "objtool.h"

/* --- snapshots ------------------------------------------------------------ */

/* no_area -- what `snapshots` says of an image without a snapshot area */
static int no_area(const struct image *img)
{
	const struct os_superblock *sb = (const void *)img->base;

	if (sb->layout_major < 2)
		printf("%s has no snapshot area: it is a layout %u.%u heap, and snapshots "
		       "came with layout 2.0\n", img->path, sb->layout_major,
		       sb->layout_minor);
	else
		printf("%s has no snapshot area: it was created without one\n", img->path);
	return EXIT_OK;
}

/* snapshot_row -- one named snapshot, in the columns of osh's `snapshots` */
static void snapshot_row(const struct os_snap_info *s)
{
	char when[32], held[32], flags[32];

	snprintf(flags, sizeof(flags), "%s%s%s", s->head ? " newest" : "",
		 s->boot ? " boot" : "", s->flags & OS_SNAP_AUTO ? " auto" : "");
	printf("%-24s %8" PRIu64 "  %-19s %10s%s%s\n", s->name, s->epoch,
	       fmt_time(when, sizeof(when), s->time_ns, "-"),
	       size_text(held, sizeof(held), s->held * OS_PAGE_SIZE), *flags ? " " : "",
	       flags);
}

/* area_lines -- the area's hidden nodes, size and free space, and what
 * else the header says */
static void area_lines(const struct os_snap_usage *u, const struct os_snap_info *list,
		       unsigned count)
{
	char a[32], b[32];
	uint64_t hidden_pages = 0;
	unsigned hidden = 0;

	for (unsigned i = 0; i < count; i++)
		if (list[i].flags & OS_SNAP_HIDDEN) {
			hidden++;
			hidden_pages += list[i].pages;
		}
	if (hidden)
		printf("removed: %u snapshot%s, still holding %s (%" PRIu64 " pages) that "
		       "older snapshots are stored relative to\n", hidden,
		       hidden == 1 ? "" : "s", size_text(a, sizeof(a), hidden_pages * OS_PAGE_SIZE),
		       hidden_pages);
	printf("area: %s free of %s (%" PRIu64 " of %" PRIu64 " pages); power-on "
	       "snapshots kept: %u\n", size_text(a, sizeof(a), u->free_pages * OS_PAGE_SIZE),
	       size_text(b, sizeof(b), u->data_pages * OS_PAGE_SIZE), u->free_pages,
	       u->data_pages, u->keep);
	if (u->dropped == 1)
		printf("dropped: the area filled up once, and every snapshot was dropped\n");
	else if (u->dropped)
		printf("dropped: the area filled up %" PRIu64 " times, each time dropping "
		       "every snapshot\n", u->dropped);
	if (u->restoring)
		printf("restoring: a power cut stopped a restore into a snapshot half way; "
		       "the next power-on finishes it\n");
}

/* run_snapshots -- objtool IMAGE snapshots */
static int run_snapshots(struct image *img, const struct args *a)
{
	struct os_snap_info list[OS_SNAP_NODES];
	struct os_snap_usage u;
	unsigned count;

	(void)a;
	if (!os_snap_available(&img->os))
		return no_area(img);
	os_snap_usage(&img->os, &u);
	count = os_snap_list(&img->os, list, OS_SNAP_NODES);
	if (u.snapshots)
		printf("%-24s %8s  %-19s %10s  FLAGS\n", "NAME", "EPOCH", "TAKEN (UTC)",
		       "ONLY IT");
	else
		printf("no snapshots\n");
	for (unsigned i = 0; i < count; i++)
		if (!(list[i].flags & OS_SNAP_HIDDEN))
			snapshot_row(&list[i]);
	area_lines(&u, list, count);
	return EXIT_OK;
}

const struct command cmd_snapshots = {
	.name = "snapshots",
	.access = ACCESS_READ,
	.min_pos = 0,
	.max_pos = 0,
	.usage = "snapshots",
	.summary = "the snapshots: name, epoch, when taken, space only it holds",
	.help = "Lists the image's snapshots as osh's `snapshots` does, one a line:\n"
		"NAME, the EPOCH whose state it holds, when it was TAKEN (UTC; '-' if\n"
		"unknown), the space ONLY IT holds (what removing it gives back now),\n"
		"and its flags: newest (the snapshot the live state's changes are\n"
		"copied into), boot (every power-on starts from it), auto (taken by\n"
		"the system: power-on-N, before-NAME-N). Then removed snapshots that\n"
		"still hold pages older ones need (a count, not by name), the area's\n"
		"free space and size, and how many power-on snapshots the kernel keeps.\n"
		"An image without a snapshot area (layout 1.x) says so.\n",
	.run = run_snapshots,
};

/* --- snapshot take|rm NAME ------------------------------------------------------ */

/* snapshot_take -- os_snap_take alone in one transaction */
static int snapshot_take(struct image *img, const char *name)
{
	const struct os_platform *pf = image_platform();
	struct os_snap_usage u;
	int err, status = snap_area_needed(img, "snapshot take");

	if (status)
		return status;
	if (os_snap_find(&img->os, name) >= 0)
		return fail(EXIT_FAILED, "snapshot take: there is a snapshot named '%s' already "
			    "('objtool %s snapshot rm %s' first)", name, img->path, name);
	os_snap_usage(&img->os, &u);
	if (u.restoring)
		return fail(EXIT_FAILED, "snapshot take: a power cut stopped a restore into a "
			    "snapshot half way; power Ferrite on to finish it first");
	if (u.nodes >= OS_SNAP_NODES)
		return fail(EXIT_FAILED, "snapshot take: the area holds %d snapshots already "
			    "(removed ones that others need included): remove one first",
			    OS_SNAP_NODES);
	status = image_tx_begin(img, "snapshot take");
	if (status)
		return status;
	err = os_snap_take(&img->os, name, pf->now_ns ? pf->now_ns() : 0, 0);
	if (err)
		return image_tx_fail(img, "snapshot take", err, "taking it");
	status = image_tx_commit(img, "snapshot take");
	if (!status)
		printf("snapshot take: '%s' holds epoch %" PRIu64 "\n", name, os_epoch(&img->os));
	return status;
}

/* reclaim -- os_snap_reclaim in transactions until it is done; `started`:
 * a transaction is running. An exit status */
static int reclaim(struct image *img, bool started)
{
	struct os_snap_usage before, after;
	int err, status;

	for (;;) {
		if (!started) {
			status = image_tx_begin(img, "snapshot rm");
			if (status)
				return status;
		}
		os_snap_usage(&img->os, &before);
		err = os_snap_reclaim(&img->os);
		os_snap_usage(&img->os, &after);
		if (err < 0)
			return image_tx_fail(img, "snapshot rm", err, "giving its pages back");
		if (err == 1 && !started && after.free_pages == before.free_pages &&
		    after.nodes == before.nodes)
			/* a whole log gave nothing back: it would never end */
			return image_tx_fail(img, "snapshot rm", -ERR_NOSPC,
					     "giving its pages back");
		status = image_tx_commit(img, "snapshot rm");
		if (status || err == 0)
			return status;
		started = false;
	}
}

/* node_info -- what os_snap_list says of node `node`; false if not in use */
static bool node_info(const struct objstore *os, int node, struct os_snap_info *out)
{
	struct os_snap_info list[OS_SNAP_NODES];
	unsigned count = os_snap_list(os, list, OS_SNAP_NODES);

	for (unsigned i = 0; i < count; i++)
		if ((int)list[i].index == node) {
			*out = list[i];
			return true;
		}
	return false;
}

/* print_needers -- the named snapshots stored relative to node `node`,
 * through hidden nodes or not: those that keep its pages */
static void print_needers(const struct objstore *os, int node)
{
	struct os_snap_info list[OS_SNAP_NODES], *by_node[OS_SNAP_NODES] = { 0 };
	unsigned count = os_snap_list(os, list, OS_SNAP_NODES), shown = 0;

	for (unsigned i = 0; i < count; i++)
		by_node[list[i].index] = &list[i];
	for (unsigned i = 0; i < count; i++) {
		const struct os_snap_info *at = &list[i];
		unsigned steps = 0;

		if (at->flags & OS_SNAP_HIDDEN)
			continue;
		while (at && at->parent && (int)at->parent - 1 != node &&
		       steps++ < OS_SNAP_NODES)
			at = by_node[at->parent - 1];
		if (at && at->parent && (int)at->parent - 1 == node)
			printf("%s%s", shown++ ? ", " : "", list[i].name);
	}
}

/* snapshot_rm -- os_snap_rm, then give back what no snapshot needs */
static int snapshot_rm(struct image *img, const char *name)
{
	struct os_snap_usage before, after;
	struct os_snap_info info;
	char size[32];
	int err, node, status = snap_area_needed(img, "snapshot rm");
	bool boot;

	if (status)
		return status;
	os_snap_usage(&img->os, &before);
	if (before.restoring)
		return fail(EXIT_FAILED, "snapshot rm: a power cut stopped a restore into a "
			    "snapshot half way; power Ferrite on to finish it first");
	node = os_snap_find(&img->os, name);
	if (node < 0)
		return fail(EXIT_NO_SNAPSHOT, "snapshot rm: no snapshot named '%s' ('objtool %s "
			    "snapshots' lists them)", name, img->path);
	boot = node_info(&img->os, node, &info) && info.boot;
	status = image_tx_begin(img, "snapshot rm");
	if (status)
		return status;
	err = os_snap_rm(&img->os, name);
	if (err)
		return image_tx_fail(img, "snapshot rm", err, "removing it");
	status = reclaim(img, true);
	if (status)
		return status;
	os_snap_usage(&img->os, &after);
	printf("snapshot rm: '%s' removed; %s given back to the area\n", name,
	       size_text(size, sizeof(size), (after.free_pages - before.free_pages) * OS_PAGE_SIZE));
	if (node_info(&img->os, node, &info) && info.flags & OS_SNAP_HIDDEN && info.pages) {
		/* hidden: older snapshots are stored relative to it */
		printf("snapshot rm: its %s stay until the older snapshots stored relative "
		       "to it are removed too: ", size_text(size, sizeof(size),
							    info.pages * OS_PAGE_SIZE));
		print_needers(&img->os, node);
		printf("\n");
	}
	if (boot)
		printf("snapshot rm: power-ons no longer start from '%s'\n", name);
	return EXIT_OK;
}

/* check_snapshot_args -- the subcommand and NAME, before the image is opened */
static int check_snapshot_args(const struct args *a)
{
	const char *sub = a->pos[0];

	if (strcmp(sub, "take") != 0 && strcmp(sub, "rm") != 0)
		return fail(EXIT_USAGE, "snapshot: '%s' is neither take nor rm (see objtool "
			    "snapshot --help)", sub);
	return snap_name_usage(strcmp(sub, "take") == 0 ? "snapshot take" : "snapshot rm",
			       a->pos[1]);
}

/* run_snapshot -- objtool IMAGE snapshot take|rm NAME */
static int run_snapshot(struct image *img, const struct args *a)
{
	if (strcmp(a->pos[0], "take") == 0)
		return snapshot_take(img, a->pos[1]);
	return snapshot_rm(img, a->pos[1]);
}

const struct command cmd_snapshot = {
	.name = "snapshot",
	.access = ACCESS_WRITE,
	.several_tx = true,
	.min_pos = 2,
	.max_pos = 2,
	.usage = "snapshot take|rm NAME",
	.summary = "take a snapshot of the image's state, or remove one",
	.help = "  take NAME   keep the image's state (the state the next power-on\n"
		"              resumes) as snapshot NAME: one transaction, O(1)\n"
		"  rm NAME     remove snapshot NAME and give the pages no snapshot needs\n"
		"              any more back to the area: one transaction for the name,\n"
		"              and as many more as giving the pages back fills the log;\n"
		"              killed between them, objtool leaves a consistent image\n"
		"              whose remaining pages the next rm (or power-on) gives back\n\n"
		"NAME is 1 to 39 printable bytes, no spaces. An image without a snapshot\n"
		"area, or no snapshot NAME (rm), is exit status 8.\n",
	.check = check_snapshot_args,
	.run = run_snapshot,
};
