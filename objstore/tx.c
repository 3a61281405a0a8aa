/*
 * tx.c -- transactions: sets, log before write, the commit, rollback.
 *
 * A transaction changes the heap in two ways, and may mix them:
 *
 *  - os_tx_set(dst, src, len): the new bytes are kept aside in the handle
 *    (volatile, OS_TX_SET_BYTES at most) and written in place only after
 *    the commit point; nothing is written now, nothing waits. The log's
 *    room for their records is reserved at once (set_reserve, counted by
 *    os_log_room), so a full log is -ERR_NOSPC at the set, never at the
 *    commit. With commits by redo off (the kernel's handle), or past the
 *    room aside, a set is a logged write (below) at once.
 *  - os_tx_log(p, len): an UNDO record of the old bytes, flushed and
 *    fenced before os_tx_log returns, so the caller's write in place that
 *    follows can never reach persistence before the bytes it overwrites.
 *
 * The transaction's records form one chain in the log (format.h; their
 * format, writing and validation are log.c's).
 *
 * Commit by redo (os_commit_by_redo, on by default): append a REDO record
 * of every logged or allocated range (its bytes as they are now) and then
 * of every pending set in the order they were made, and the COMMIT
 * record; flush them and the logged and FRESH ranges; ONE fence: the
 * commit point, after which the transaction is durable whatever happens.
 * Then write the sets in place and flush them, without a fence, and store
 * no epoch. Until the chain is retired, recovery finds it (its epoch above
 * the durable one) and replays its REDO records in log order, which puts
 * back any line of a range or of a set the cut lost: copying is
 * idempotent. So the chain stays in the log: the next transaction's chain
 * starts right after it, and only a transaction that would start the
 * OS_LOG_MAX_CHAINS-th chain (or past a sixteenth of the log) retires them
 * all (settle_epoch): a fence, which makes the last chain's deferred bytes
 * durable, then the epoch store of the last committed epoch, flushed and
 * fenced; the log starts over. One wait per transaction, two more every
 * fifteen. The superblock's committed_epoch therefore lags the handle's
 * `epoch` while chains wait; os_settle retires them on demand (a writer
 * closing an image).
 *
 * Commit by the epoch store (a large transaction: more than
 * OS_LOG_REDO_MAX bytes of logged ranges, snapshot-area work -- a
 * capture's copies are recorded nowhere -- or commits by redo off): the
 * pending sets first go the undo way (sets_to_undo: an UNDO record each,
 * in the room reserved for it, then the bytes in place); flush every range
 * the transaction logged or allocated, fence, store committed_epoch + 1
 * (one aligned 8-byte store), flush it, fence. That store commits it and
 * retires every chain before it: a chain only counts while its epoch is
 * above committed_epoch (format.h); the log starts over. Two waits, and
 * one per set.
 *
 * Invariants of the sets:
 *  - Invariant: a pending set has never been written in place: an
 *    unfinished chain has nothing of it to roll back, and an abort drops
 *    the sets (os_tx_abort) and rolls back the chain's UNDO records only.
 *  - Read-your-writes: bytes set are read back with os_tx_read (the bytes
 *    in place with the pending sets over them, in order); code reading in
 *    place sees the committed bytes. The allocator reads its slab
 *    descriptors so: a second allocation in one transaction sees the
 *    first one's bit.
 *  - A set and a logged write of the same bytes: the replay order -- the
 *    logged ranges' REDO records, then the sets' -- must give the final
 *    bytes. A set made after a range was logged is newer, and comes after
 *    it: right. os_tx_log of a range that a pending set overlaps first
 *    writes that set in place the undo way (undo_sets_under; with every
 *    older pending set, so that none lands after a newer one it
 *    overlaps): the caller then logs and writes over bytes that are in
 *    place, and the set is pending no more. A write in place without
 *    os_tx_log (a FRESH block, the root block logged once) must not touch
 *    bytes a pending set holds: it would land before the set.
 *  - The same range set again while no newer set overlaps it just takes
 *    the new bytes (set_again): a descriptor set twice costs one record.
 *
 * Power-cut analysis of a commit by redo (a cut may fall between any two
 * stores or flushes; only a fence makes what was flushed durable, and any
 * dirty line may also reach persistence on its own):
 *  - before the fence: any REDO record or the COMMIT record may be missing
 *    or torn -- the chain then ends before its COMMIT, is unfinished, and
 *    is rolled back from its UNDO records, each fenced before the write it
 *    covers. No set was written in place yet (they are written after the
 *    fence), so nothing of them is to undo; logged ranges flushed early are
 *    covered by their UNDO records; FRESH ranges are free space again.
 *  - after the fence, while the sets are written in place and flushed: the
 *    chain is intact and committed; any line of a set may or may not have
 *    reached persistence, and recovery replays the REDO records over all
 *    of them.
 *  - between the chains: a cut leaves some chains retired (epoch at most
 *    the durable one: skipped, for their bytes are durable: the settle's
 *    first fence came before the epoch store) and the rest replayed, in
 *    order, then the unfinished one rolled back.
 *  - while the log starts over (settle_epoch): before its first fence the
 *    deferred bytes of the last chain may be lost, but the epoch store is
 *    not yet made, so the chain is replayed; between the fences the epoch
 *    store may or may not be durable -- either way the bytes are, and a
 *    replay of the retired chains is the same bytes again; after, the
 *    chains are done, and the next chain overwrites the log from its
 *    start only after the epoch store is durable, so a recovery never
 *    walks half an old chain into a new one.
 *  - Invariant: no chain is replayed once its epoch store is durable
 *    (os_log_scan): bytes changed after a retired chain and not by a later
 *    chain in the log -- a commit by the epoch store, os_store_durable --
 *    would be overwritten by the replay.
 *
 * Recovery (os_open, after a power cut): walk the chains from the log's
 * start, replay the committed ones above the durable epoch in order, roll
 * back the unfinished one by copying its old bytes back, newest first;
 * flush, fence, then store the epoch of the last chain so that they all
 * die with that single store. A cut during recovery leaves the chains
 * valid and the next open simply recovers again: copying bytes is
 * idempotent, and the replay comes before the rollback each time.
 * os_tx_abort rolls back the running chain the same way.
 *
 * A log from a hostile or damaged image is refused before a single byte
 * is written: recovery walks only what os_log_scan (log.c) validated.
 *
 * A tentative recovery (os_open_tentative, for the kernel's power-on)
 * writes the bytes but leaves the records valid, the epoch unchanged: the
 * caller first validates what it will read, then os_open_confirm commits
 * the recovery, or os_open_retract copies back the bytes it overwrote
 * (saved before it began), leaving the image as it was. A cut in between
 * is just a cut during recovery.
 *
 * Power-cut analysis of os_tx_log: the record is written, flushed, fenced.
 * Cut before the fence: the record may be torn (bad crc); it ends the
 * chain, and the range it describes was not yet written. Cut after: the
 * record is valid and rollback restores the range. A record whose FRESH
 * kind needs no fence is ordered by the next UNDO record's fence or by the
 * commit's; if torn, it is the last record and nothing needs it.
 *
 * Where undo stays, and why (docs/format.md has the same list):
 *  - a range logged with os_tx_log by callers that write in place and
 *    read back in place: the root block (logged once a transaction, read
 *    by every module), whole-page descriptors and the free-page stack
 *    (page_alloc, page_free: read in place by object.c and the catalogue),
 *    object headers, index pages and data pages (object.c), catalogue
 *    nodes (their splits and merges read back what they wrote), the
 *    snapshot area (capture);
 *  - a set past the room aside (OS_TX_SETS_MAX sets, OS_TX_SET_BYTES);
 *  - a transaction that commits by the epoch store (its sets go the undo
 *    way at its commit);
 *  - the kernel's epoch transaction (commits by redo off, kernel/core/
 *    heap.c): it runs for a millisecond, reads its own writes in place all
 *    the while (user pages through the MMU, kernel objects through plain
 *    pointers), and its commit pauses the machine anyway; its sets (the
 *    allocator's) are logged writes.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* durable_store -- one aligned 8-byte store, flushed and fenced: durable
 * when this returns, whatever a power cut does next */
static void durable_store(struct objstore *os, uint64_t *word, uint64_t value)
{
	__atomic_store_n(word, value, __ATOMIC_RELEASE);
	os_flush(os, word, sizeof(*word));
	os_fence(os);
}

/* store_epoch -- the commit point: one 8-byte store, flushed and fenced;
 * every chain up to `epoch` is done */
static void store_epoch(struct objstore *os, uint64_t epoch)
{
	durable_store(os, &os->sb->committed_epoch, epoch);
	os->epoch = epoch;
}

/* settle_epoch -- retire every chain committed by redo: their deferred
 * bytes, flushed after their commit point, made durable by a fence, then
 * the epoch store of the last of them, durable (two waits at most) */
static void settle_epoch(struct objstore *os)
{
	if (!os->pending_chains)
		return;
	os_fence(os);
	store_epoch(os, os->epoch);
}

/* start_log_over -- settle the epoch: the next chain may start at the
 * log's start */
static void start_log_over(struct objstore *os)
{
	settle_epoch(os);
	os->pending_chains = 0;
	os->log_tail = 0;
}

/* drop_sets -- forget the pending sets (the commit wrote them, or an abort) */
static void drop_sets(struct objstore *os)
{
	os->set_count = 0;
	os->set_bytes_used = 0;
	os->set_reserve = 0;
}

/* os_tx_begin -- start a transaction; -ERR_BUSY if one is running */
int os_tx_begin(struct objstore *os)
{
	if (os->in_tx || os->pending)
		return -ERR_BUSY;
	/* The new chain goes after those committed by redo, within bounds. */
	if (os->pending_chains + 1 >= OS_LOG_MAX_CHAINS || os->log_tail > os->log_size / 16)
		start_log_over(os);
	os->in_tx = true;
	os->tx_epoch = os->epoch + 1;
	os->chain_start = os->log_tail;
	os->last_record_size = 0;
	os->root_logged = false;
	os->tx_wall_read = false;
	drop_sets(os);
	os_snap_tx_begin(os);
	return 0;
}

/* os_tx_wall_ns -- the wall time this transaction stamps, read once */
int64_t os_tx_wall_ns(struct objstore *os)
{
	if (!os->tx_wall_read) {
		os->tx_wall_ns = os->pf->now_ns ? (int64_t)os->pf->now_ns() : 0;
		os->tx_wall_read = true;
	}
	return os->tx_wall_ns;
}

/* overlaps -- whether [a, a+alen) and [b, b+blen) share a byte */
static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* count_set_reserve -- the log the pending sets need at the commit: a
 * record each and the COMMIT record; the same room holds their UNDO
 * records should they go the undo way (sets_to_undo) */
static void count_set_reserve(struct objstore *os)
{
	os->set_reserve = 0;
	for (uint32_t i = 0; i < os->set_count; i++)
		os->set_reserve += os_log_record_size(OS_LOG_REDO, os->sets[i].len);
	if (os->set_count)
		os->set_reserve += os_log_record_size(OS_LOG_COMMIT, 0);
}

/* sets_to_undo -- write the first n pending sets in place the undo way, in
 * the order they were made: each range's old bytes saved (an UNDO record,
 * fenced), then its new bytes written; they are pending no more */
static void sets_to_undo(struct objstore *os, uint32_t n)
{
	struct os_tx_set done[OS_TX_SETS_MAX];

	memcpy(done, os->sets, n * sizeof(*done));
	memmove(os->sets, os->sets + n, (os->set_count - n) * sizeof(*done));
	os->set_count -= n;
	count_set_reserve(os); /* gives back the room their records take now */
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *range = os->base + done[i].off;

		/* Invariant: os_tx_set reserved the room of this record. */
		if (os_log_append(os, OS_LOG_UNDO, done[i].off, range, done[i].len))
			os->pf->fatal("objstore: a set's undo record did not fit in the room reserved for it");
		memcpy(range, os->set_bytes + done[i].at, done[i].len);
	}
}

/* undo_sets_under -- before [off, off+len) is logged the undo way: write
 * in place every pending set up to the newest one overlapping it (the
 * older ones too, so that none is written after a newer one it overlaps) */
static void undo_sets_under(struct objstore *os, uint64_t off, uint64_t len)
{
	for (uint32_t i = os->set_count; i-- > 0;) {
		if (overlaps(os->sets[i].off, os->sets[i].len, off, len)) {
			sets_to_undo(os, i + 1);
			return;
		}
	}
}

/* os_tx_log -- save [p, p+len) before changing it: the pending sets under
 * it written first, the undo way; the newest snapshot's copy of its pages
 * (capture); then the UNDO record */
int os_tx_log(struct objstore *os, const void *p, size_t len)
{
	uint64_t off = os_off(os, p);
	int err = os_log_refusal(os, p, len);

	if (err)
		return err; /* before a capture: a refused call changes nothing */
	undo_sets_under(os, off, len);
	os_snap_capture(os, off, len);
	return os_log_append(os, OS_LOG_UNDO, off, p, (uint32_t)len);
}

/* set_again -- give the newest pending set of exactly [off, off+len) the
 * new bytes, if no newer one overlaps it; whether it did */
static bool set_again(struct objstore *os, uint64_t off, const void *src, uint32_t len)
{
	for (uint32_t i = os->set_count; i-- > 0;) {
		struct os_tx_set *s = &os->sets[i];

		if (!overlaps(s->off, s->len, off, len))
			continue;
		if (s->off != off || s->len != len)
			return false;
		memcpy(os->set_bytes + s->at, src, len);
		return true;
	}
	return false;
}

/* os_tx_set -- the bytes at src for [dst, dst+len) at the commit: kept
 * aside, or (commits by redo off, or no room aside) logged and written */
int os_tx_set(struct objstore *os, void *dst, const void *src, size_t len)
{
	uint64_t off = os_off(os, dst), need;
	struct os_tx_set *s;
	int err = os_log_refusal(os, dst, len);

	if (err)
		return err;
	if (set_again(os, off, src, (uint32_t)len))
		return 0;
	if (!os->redo_commits || os->set_count == OS_TX_SETS_MAX ||
	    len > OS_TX_SET_BYTES - os->set_bytes_used) {
		err = os_tx_log(os, dst, len);
		if (!err)
			memcpy(dst, src, len);
		return err;
	}
	need = os_log_record_size(OS_LOG_REDO, len) +
	       (os->set_count ? 0 : os_log_record_size(OS_LOG_COMMIT, 0));
	if (os_log_room(os, need))
		return -ERR_NOSPC;
	/* The live bytes, before they change at the commit, for the newest snapshot. */
	os_snap_capture(os, off, len);
	s = &os->sets[os->set_count++];
	s->off = off;
	s->len = (uint32_t)len;
	s->at = os->set_bytes_used;
	memcpy(os->set_bytes + s->at, src, len);
	os->set_bytes_used += OS_ALIGN_UP((uint32_t)len, 8u);
	os->set_reserve += need;
	return 0;
}

/* os_tx_read -- [src, src+len) as the transaction sees it, into dst */
void os_tx_read(const struct objstore *os, void *dst, const void *src, size_t len)
{
	uint64_t off = os_off(os, src);

	memcpy(dst, src, len);
	for (uint32_t i = 0; i < os->set_count; i++) {
		const struct os_tx_set *s = &os->sets[i];
		uint64_t from = s->off > off ? s->off : off;
		uint64_t to = s->off + s->len < off + len ? s->off + s->len : off + len;

		if (from < to)
			memcpy((uint8_t *)dst + (from - off),
			       os->set_bytes + s->at + (from - s->off), to - from);
	}
}

/* os_log_fresh -- record a newly allocated range, to be flushed at commit */
int os_log_fresh(struct objstore *os, uint64_t off, uint32_t len)
{
	if (os_log_room(os, os_log_record_size(OS_LOG_FRESH, len)))
		return -ERR_NOSPC;
	/* Free in the live state, maybe not in the newest snapshot's: captured too. */
	os_snap_capture(os, off, len);
	return os_log_append(os, OS_LOG_FRESH, off, NULL, len);
}

/* os_log_root -- log the root block once per transaction */
int os_log_root(struct objstore *os)
{
	int err;

	if (os->root_logged)
		return 0;
	err = os_tx_log(os, os->root, sizeof(*os->root));
	if (!err)
		os->root_logged = true;
	return err;
}

/* os_log_keep -- keep `bytes` of the log from every later call */
void os_log_keep(struct objstore *os, uint64_t bytes)
{
	os->log_kept = bytes;
}

/* os_store_durable -- an 8-byte word of the heap stored outside every
 * transaction, as the commit stores the epoch: durable on return, never
 * rolled back (nor overwritten by a replay: the chains committed by redo
 * are made durable first) */
int os_store_durable(struct objstore *os, uint64_t *word, uint64_t value)
{
	uintptr_t at = (uintptr_t)word, base = (uintptr_t)os->base;

	if (at < base + OS_PAGE_SIZE || at - base >= os->sb->heap_size ||
	    at % sizeof(*word))
		return -ERR_INVAL;
	settle_epoch(os);
	durable_store(os, word, value);
	return 0;
}

/* os_commit_superblock -- the commit of a resize (resize.c): the new
 * superblock durable in the spare, the epoch store that commits it (the
 * log empty first: nothing else rides on it), the copy over page 0's
 * superblock, the spare cleared. A cut before the epoch store: the old
 * geometry (open clears the spare); after: the new (open copies it). */
int os_commit_superblock(struct objstore *os, const struct os_superblock *next)
{
	uint8_t *spare = os->base + OS_SB_SPARE_OFFSET;
	size_t covered = __builtin_offsetof(struct os_superblock, crc) + sizeof(next->crc);

	if (os->in_tx || os->pending)
		return -ERR_BUSY;
	start_log_over(os);
	memcpy(spare, next, covered);
	os_flush(os, spare, covered);
	os_fence(os);
	store_epoch(os, next->resize_epoch);
	memcpy(os->sb, next, covered);
	os_flush(os, os->sb, covered);
	os_fence(os);
	durable_store(os, (uint64_t *)spare, 0);
	return 0;
}

/* os_commit_by_redo -- whether small transactions may commit by redo */
void os_commit_by_redo(struct objstore *os, bool on)
{
	os->redo_commits = on;
}

/* redo_fits -- whether the running transaction may commit by redo: on,
 * no snapshot-area work (a capture's copies are recorded nowhere), at most
 * OS_LOG_REDO_MAX bytes of logged ranges (past about that, copying,
 * summing and writing them back a second time costs more than the wait it
 * saves: a 4 KiB range logged took 2.1 us by redo, 1.4 by the epoch
 * store, on the development machine; the pending sets do not count, their
 * bytes are written to the log once whichever way), and room for the REDO
 * records and the COMMIT record */
static bool redo_fits(const struct objstore *os)
{
	uint64_t bytes = 0, need = os_log_record_size(OS_LOG_COMMIT, 0);

	if (!os->redo_commits || os->snap_area_logged || os->snap_logged_nodes)
		return false;
	for (uint64_t pos = os->chain_start; pos < os->log_tail;) {
		const struct os_log_entry *e = (const void *)(os->log + pos);

		bytes += e->length;
		need += os_log_record_size(OS_LOG_REDO, e->length);
		pos += os_log_record_size(e->kind, e->length);
	}
	for (uint32_t i = 0; i < os->set_count; i++)
		need += os_log_record_size(OS_LOG_REDO, os->sets[i].len);
	/* The room the sets reserved (their records and the COMMIT record,
	 * all counted in need) is part of what is free for this. */
	return bytes <= OS_LOG_REDO_MAX && os_log_room(os, need - os->set_reserve) == 0;
}

/* append_redo -- a REDO record of `len` bytes for heap offset `off`,
 * flushed (unfenced) */
static void append_redo(struct objstore *os, uint64_t off, const void *bytes, uint32_t len)
{
	/* Invariant: redo_fits found room for every record. */
	if (os_log_append(os, OS_LOG_REDO, off, bytes, len))
		os->pf->fatal("objstore: a redo record did not fit after its room was checked");
}

/* apply_sets -- write the pending sets in place, in the order they were
 * made, each flushed but not fenced (tx.c, top: the next fence orders
 * them, and the chain replays them until it is retired) */
static void apply_sets(struct objstore *os)
{
	for (uint32_t i = 0; i < os->set_count; i++) {
		const struct os_tx_set *s = &os->sets[i];

		memcpy(os->base + s->off, os->set_bytes + s->at, s->len);
#ifndef FERRITE_MUTANT_UNFLUSHED_APPLY
		os_flush(os, os->base + s->off, s->len);
#endif
	}
}

/* commit_by_redo -- a REDO record of every logged range (its bytes as
 * they are now) and of every pending set, the COMMIT record, and the
 * logged ranges flushed, all made durable by one fence: the commit point.
 * Then the sets written in place, unfenced, and no epoch store: the chain
 * is retired with the others when the log starts over (tx.c, top). */
static void commit_by_redo(struct objstore *os)
{
	uint64_t end = os->log_tail;

	os->set_reserve = 0; /* taken now */
	for (uint64_t pos = os->chain_start; pos < end;) {
		const struct os_log_entry *e = (const void *)(os->log + pos);
		uint8_t *range = os->base + e->offset;

		append_redo(os, e->offset, range, e->length);
		os_flush(os, range, e->length);
		pos += os_log_record_size(e->kind, e->length);
	}
	for (uint32_t i = 0; i < os->set_count; i++)
		append_redo(os, os->sets[i].off, os->set_bytes + os->sets[i].at,
			    os->sets[i].len);
	if (os_log_append(os, OS_LOG_COMMIT, 0, NULL, 0))
		os->pf->fatal("objstore: the commit record did not fit after its room was checked");
#ifndef FERRITE_MUTANT_UNFENCED_REDO_COMMIT
	os_fence(os);
#endif
	apply_sets(os);
	os->epoch = os->tx_epoch;
	os->pending_chains++;
}

/* commit_by_epoch -- the pending sets the undo way; flush every range,
 * fence, the epoch store (fenced): the log is empty after it */
static void commit_by_epoch(struct objstore *os)
{
	sets_to_undo(os, os->set_count);
	for (uint64_t pos = os->chain_start; pos < os->log_tail;) {
		const struct os_log_entry *e = (const void *)(os->log + pos);

#ifdef FERRITE_MUTANT_UNFLUSHED_PAGES
		if (e->length != OS_PAGE_SIZE)
#endif
		os_flush(os, os->base + e->offset, e->length);
		pos += os_log_record_size(e->kind, e->length);
	}
#ifndef FERRITE_MUTANT_UNFENCED_COMMIT
	os_fence(os);
#endif
	store_epoch(os, os->tx_epoch);
	os->pending_chains = 0;
	os->log_tail = 0;
}

/* os_tx_commit -- make everything the transaction did durable, atomically */
int os_tx_commit(struct objstore *os)
{
	if (!os->in_tx)
		return -ERR_INVAL;
	if (os->root_logged)
		os->root->crc = os_root_crc(os->root);
	os_snap_seal(os);
	if (os->log_tail > os->chain_start || os->set_count) {
		if (redo_fits(os))
			commit_by_redo(os);
		else
			commit_by_epoch(os);
	}
	drop_sets(os);
	os->in_tx = false;
	os->chain_start = os->log_tail;
	return 0;
}

/* os_settle -- retire the chains committed by redo; the log starts over */
int os_settle(struct objstore *os)
{
	if (os->in_tx || os->pending)
		return -ERR_BUSY;
	start_log_over(os);
	return 0;
}

/* os_tx_each_range -- fn(ctx, off, len) for the range of every record of
 * the running transaction, in log order, then of every pending set */
int os_tx_each_range(const struct objstore *os,
		     void (*fn)(void *ctx, uint64_t off, uint64_t len), void *ctx)
{
	if (!os->in_tx)
		return -ERR_INVAL;
	for (uint64_t pos = os->chain_start; pos < os->log_tail;) {
		const struct os_log_entry *e = (const void *)(os->log + pos);

		fn(ctx, e->offset, e->length);
		pos += os_log_record_size(e->kind, e->length);
	}
	for (uint32_t i = 0; i < os->set_count; i++)
		fn(ctx, os->sets[i].off, os->sets[i].len);
	return 0;
}

/* replay_one -- copy a REDO record's bytes in place, flushed */
static void replay_one(void *ctx, const struct os_log_entry *e)
{
	struct objstore *os = ctx;

	memcpy(os->base + e->offset, e + 1, e->length);
	os_flush(os, os->base + e->offset, e->length);
	os->replayed++;
}

/* undo_one -- copy an UNDO record's old bytes back, flushed */
static void undo_one(void *ctx, const struct os_log_entry *e)
{
	struct objstore *os = ctx;

	memcpy(os->base + e->offset, e + 1, e->length);
	os_flush(os, os->base + e->offset, e->length);
	os->rolled_back_bytes += e->length;
	os->rolled_back++;
}

/* restore -- the replay, then the rollback, of `scan`; fenced */
static void restore(struct objstore *os, const struct os_log_scan *scan)
{
	os->rolled_back = os->rolled_back_bytes = os->replayed = 0;
#ifdef FERRITE_MUTANT_UNREPLAYED_CHAINS
	if (0) /* the committed chains are never replayed */
#endif
	os_log_each_replayed(os->log, scan, replay_one, os);
	os_log_each_undone(os->log, scan, undo_one, os);
	if (os_log_scan_epoch(scan))
		os_fence(os);
}

/* A pass over the bytes recovery writes, each range's in turn in a buffer. */
struct saving {
	struct objstore *os;
	uint8_t *save;
	bool back;                     /* put the saved bytes back (else save them) */
};

/* save_one -- save a record's range as it is, or put it back as saved */
static void save_one(void *ctx, const struct os_log_entry *e)
{
	struct saving *sv = ctx;
	uint8_t *range = sv->os->base + e->offset;

	if (sv->back) {
		memcpy(range, sv->save, e->length);
		os_flush(sv->os, range, e->length);
	} else {
		memcpy(sv->save, range, e->length);
	}
	sv->save += e->length;
}

/* each_written -- save (or, with `back`, put back) every range recovery
 * writes, in the order recovery writes them; every saved copy is taken
 * before recovery writes a byte, so putting them back in that order
 * leaves each byte as it was */
static void each_written(struct objstore *os, uint8_t *save, bool back)
{
	struct saving sv = { os, save, back };
	struct os_log_scan scan;
	char why[OS_WHY_MAX];

	if (os_log_scan(os->sb, os->log, &scan, why, sizeof(why)))
		os->pf->fatal("objstore: the log changed under a pending recovery");
	os_log_each_replayed(os->log, &scan, save_one, &sv);
	os_log_each_undone(os->log, &scan, save_one, &sv);
}

/* os_rollback -- recover the log: replay, then undo the running (or
 * crashed) transaction; with `commit`, store the recovered epoch */
int os_rollback(struct objstore *os, bool commit, uint8_t *save)
{
	struct os_log_scan scan;
	char why[OS_WHY_MAX];
	uint64_t epoch;

	if (os_log_scan(os->sb, os->log, &scan, why, sizeof(why)))
		return -ERR_CORRUPT;
	epoch = os_log_scan_epoch(&scan);
	if (save)
		each_written(os, save, false);
	restore(os, &scan);
	/* The last committed epoch: of the last chain replayed, if any. */
	if (scan.replay_epoch)
		os->epoch = scan.replay_epoch;
	os->pending = !commit && epoch;
	os->pending_epoch = epoch;
	os->pending_save = os->pending ? save : NULL;
	if (epoch && commit)
		store_epoch(os, epoch);
	return 0;
}

/* os_open_confirm -- commit the recovery os_open_tentative left pending */
void os_open_confirm(struct objstore *os)
{
	if (!os->pending)
		return;
	store_epoch(os, os->pending_epoch);
	os->pending = false;
	os->pending_save = NULL;
}

/* os_open_retract -- put back the bytes a pending recovery overwrote */
int os_open_retract(struct objstore *os)
{
	if (!os->pending)
		return 0;
	if (!os->pending_save)
		return -ERR_INVAL;
	each_written(os, os->pending_save, true);
	os_fence(os);
	os->pending = false;
	os->pending_save = NULL;
	return 0;
}

/* os_tx_abort -- undo everything the transaction did */
int os_tx_abort(struct objstore *os)
{
	if (!os->in_tx)
		return -ERR_INVAL;
	drop_sets(os);
	if (os->log_tail > os->chain_start) {
		/* Invariant: the running transaction's own records pass os_log_scan. */
		if (os_rollback(os, true, NULL))
			os->pf->fatal("objstore: the running transaction's undo log fails its checks");
		/* Its epoch store ended every chain: the log starts over. */
		os->pending_chains = 0;
		os->log_tail = 0;
	}
	os->in_tx = false;
	os->chain_start = os->log_tail;
	return 0;
}
