/*
 * snapshot.c -- whole-system snapshots: when the kernel takes them, which
 * it keeps, and what it says (docs/snapshots.md).
 *
 * objstore keeps snapshots of the whole heap (objstore/snapshot.c); since
 * every process, thread, object and the console live in the heap, a
 * snapshot of the heap taken at a commit is a snapshot of the system. This
 * file decides when:
 *  - SYS_SNAPSHOT's take is done by the commit that ends the caller's call
 *    (it returns, like SYS_SYNC, on the way back): the commit makes the
 *    state durable, then the snapshot is taken alone in the next epoch and
 *    committed at once (snapshot_take_pending, step 7 of epoch.c's
 *    recipe), so it holds exactly the committed state, with the caller
 *    returned from its call;
 *  - at every power-on, "power-on-N" (N the power-on count) holds the state
 *    the system powered on into; the `keep` newest are kept (the area
 *    header's, set by `snapshot keep`; SNAPSHOT_KEEP_DEFAULT at genesis);
 *    under snapshot boot, so are the `keep` newest of the states each
 *    power-on replaced (before-NAME-N), or they would fill the node table;
 *  - pages of removed snapshots go back to the area a bounded step per
 *    commit (os_snap_reclaim), never stalling one;
 *  - a full area drops every snapshot at once (objstore); the console says
 *    so after the commit that did it;
 *  - a take never uses the table's last free node (FE_SNAP_TAKE_MAX): a
 *    power-on into a snapshot needs one for the state it replaces
 *    (before-NAME-N, heap.c), so it always finds one -- unless the table
 *    was filled otherwise (objtool, an older kernel), which heap.c says.
 * Power-on into a snapshot (resume=NAME, boot mode) is heap.c's: it
 * happens before anything reads the kernel's objects.
 *
 * This file never commits: the epoch does (epoch.c, kernel/main.c at
 * power-on), and each function that leaves a snapshot to commit says so.
 */
#include <stdio.h>
#include <string.h>

#include "core/heap.h"
#include "core/printk.h"
#include "dev/rtc.h"
#include "epoch/snapshot.h"
#include "errstr.h"
#include "ferrite/errors.h"
#include "objstore/objstore.h"

/* Volatile: rebuilt at every power-on. */
static char pending[OS_SNAP_NAME_MAX + 1];  /* a take asked for, "" if none */
static bool reclaiming;                     /* removed snapshots' pages to give back */
static uint64_t dropped_seen;               /* the area's drop count last reported */

/* snapshot_init -- at power-on, the heap open: note the area's drops; at
 * genesis, set the default retention (in the running transaction) */
void snapshot_init(bool genesis)
{
	struct os_snap_usage u;
	int err;

	if (genesis && os_snap_available(&kheap)) {
		err = os_snap_set_keep(&kheap, SNAPSHOT_KEEP_DEFAULT);
		if (err)
			pr_warn("snapshot: cannot set the default retention: %s\n", err_str(err));
	}
	os_snap_usage(&kheap, &u);
	dropped_seen = u.dropped;
	reclaiming = true; /* whatever a cut left half given back */
}

/* snapshot_request -- take `name` at the commit that ends this call;
 * -ERR_BUSY if another take waits, else what os_snap_take would say */
int snapshot_request(const char *name)
{
	struct os_snap_usage u;

	if (!os_snap_available(&kheap))
		return -ERR_NOTSUP;
	if (pending[0])
		return -ERR_BUSY;
	if (!os_snap_name_ok(name))
		return -ERR_INVAL;
	if (os_snap_find(&kheap, name) >= 0)
		return -ERR_EXIST;
	os_snap_usage(&kheap, &u);
	if (u.nodes >= FE_SNAP_TAKE_MAX)
		return -ERR_NOSPC;
	memcpy(pending, name, strlen(name) + 1);
	heap_request_commit();
	return 0;
}

/* take -- a snapshot alone in the epoch that just began (to be committed at once) */
static int take(const char *name, unsigned flags)
{
	return os_snap_take(&kheap, name, rtc_wall_ns(), flags);
}

/* prune -- remove the oldest snapshots named PREFIX-N beyond `keep` */
static void prune(const char *prefix, unsigned keep)
{
	struct os_snap_info list[OS_SNAP_NODES];
	unsigned count = os_snap_list(&kheap, list, OS_SNAP_NODES), have = 0;
	size_t plen = strlen(prefix);

	for (unsigned i = 0; i < count; i++)
		if (!strncmp(list[i].name, prefix, plen))
			have++;
	while (have > keep) {
		const struct os_snap_info *oldest = NULL;

		for (unsigned i = 0; i < count; i++)
			if (list[i].name[0] && !strncmp(list[i].name, prefix, plen) &&
			    (!oldest || list[i].epoch < oldest->epoch))
				oldest = &list[i];
		if (!oldest || os_snap_rm(&kheap, oldest->name))
			return;
		list[oldest - list].name[0] = 0;
		have--;
		reclaiming = true;
	}
}

/* prune_boot_befores -- under snapshot boot every power-on keeps the state
 * it replaced (before-NAME-N): only the `keep` newest of them stay */
static void prune_boot_befores(unsigned keep)
{
	struct os_snap_info list[OS_SNAP_NODES];
	unsigned count = os_snap_list(&kheap, list, OS_SNAP_NODES);
	char prefix[OS_SNAP_NAME_MAX + 16];

	for (unsigned i = 0; i < count; i++)
		if (list[i].boot) {
			snprintf(prefix, sizeof(prefix), "before-%s-", list[i].name);
			prune(prefix, keep);
			return;
		}
}

/* snapshot_take_pending -- the epoch just committed: take the snapshot
 * asked for, alone in the epoch that just began; whether one was taken
 * (the caller commits at once) */
bool snapshot_take_pending(void)
{
	int err;

	if (!pending[0])
		return false;
	err = take(pending, 0);
	if (err)
		pr_warn("snapshot: %s could not be taken: %s\n", pending, err_str(err));
	pending[0] = 0;
	return err == 0;
}

/* snapshot_after_commit -- after each commit (and its snapshot): give back
 * a step of removed snapshots' pages, report drops */
void snapshot_after_commit(void)
{
	struct os_snap_usage u;
	int err;

	if (reclaiming) {
		err = os_snap_reclaim(&kheap);
		reclaiming = err == 1;
		if (err < 0)
			pr_warn("snapshot: giving back removed snapshots' pages: %s\n", err_str(err));
	}
	os_snap_usage(&kheap, &u);
	if (u.dropped != dropped_seen) {
		dropped_seen = u.dropped;
		pr_warn("snapshot: the snapshot area filled up: every snapshot was dropped (snapshot keep, or fewer snapshots, need less room)\n");
	}
}

/* snapshot_power_on -- keep the state this power-on starts from as
 * power-on-N, and only the `keep` newest of them; whether power-on-N was
 * taken (alone in the epoch that just began: the caller commits at once) */
bool snapshot_power_on(uint64_t power_on)
{
	struct os_snap_usage u;
	char name[OS_SNAP_NAME_MAX + 1];
	int err;

	if (!os_snap_available(&kheap))
		return false;
	os_snap_usage(&kheap, &u);
	if (u.restoring)
		return false;
	prune_boot_befores(u.keep);
	if (!u.keep)
		return false;
	snprintf(name, sizeof(name), "%s%llu", SNAPSHOT_POWER_ON_PREFIX,
		 (unsigned long long)power_on);
	if (os_snap_find(&kheap, name) < 0 && u.nodes < FE_SNAP_TAKE_MAX) {
		prune(SNAPSHOT_POWER_ON_PREFIX, u.keep - 1);
		err = take(name, OS_SNAP_AUTO);
		if (!err)
			return true;
		pr_warn("snapshot: %s could not be taken: %s\n", name, err_str(err));
	}
	return false;
}

/* snapshot_set_keep -- keep the `keep` newest power-on snapshots */
int snapshot_set_keep(unsigned keep)
{
	int err = os_snap_set_keep(&kheap, keep);

	if (!err)
		prune(SNAPSHOT_POWER_ON_PREFIX, keep);
	return err;
}

/* snapshot_remove -- remove a snapshot by name (its pages go back later) */
int snapshot_remove(const char *name)
{
	int err = os_snap_rm(&kheap, name);

	if (!err)
		reclaiming = true;
	return err;
}
