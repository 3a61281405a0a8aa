/*
 * tx.c -- transactions: log before write, the commit, rollback.
 *
 * A transaction appends its records to the log (format.h; their format,
 * writing and validation are log.c's) as one chain; each UNDO record is
 * flushed and fenced before os_tx_log returns, so the caller's write that
 * follows can never reach persistence before the old bytes it overwrites.
 *
 * Commit by the epoch store: flush every range the transaction logged or
 * allocated, fence, store committed_epoch + 1 (one aligned 8-byte store),
 * flush it, fence. That store also empties the log, because a chain only
 * counts while its epoch is above committed_epoch (format.h). Two waits.
 *
 * Commit by redo (small transactions, os_commit_by_redo): append a REDO
 * record with the new bytes of every range of the chain and a COMMIT
 * record, flush them and the ranges, fence: one wait, after which the
 * transaction is durable whatever happens next. Then the epoch store,
 * not even flushed. Until it is durable, recovery finds the chain (its
 * epoch above the durable one) and replays its REDO records, which puts
 * back any line of a range the cut lost. So the chain must stay in the
 * log: the next transaction's chain starts right after it, and only a
 * transaction that would start the OS_LOG_MAX_CHAINS-th chain (or past a
 * sixteenth of the log) flushes the epoch, fences and starts the log over
 * -- one more wait every fifteen transactions.
 * Unrecorded writes -- a snapshot capture's copies -- are ordered by
 * nothing but the commit's first fence, so a transaction that touched the
 * snapshot area commits by the epoch store.
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
 * commit's; if torn, it is the last record and nothing needs it. Of a
 * commit by redo: cut before its fence, a REDO or the COMMIT record may be
 * missing or torn -- the chain is then unfinished and rolled back, its
 * UNDO records all fenced long before; cut after, every one is intact and
 * the chain is replayed, or found done once the epoch store is durable.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* settle_epoch -- make the last epoch store of a commit by redo durable,
 * and with it every chain in the log (none is replayed any more) */
static void settle_epoch(struct objstore *os)
{
	if (!os->pending_chains)
		return;
	os_flush(os, &os->sb->committed_epoch, sizeof(os->sb->committed_epoch));
	os_fence(os);
}

/* start_log_over -- settle the epoch: the next chain may start at the
 * log's start */
static void start_log_over(struct objstore *os)
{
	settle_epoch(os);
	os->pending_chains = 0;
	os->log_tail = 0;
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
	os->tx_epoch = os->sb->committed_epoch + 1;
	os->chain_start = os->log_tail;
	os->last_record_size = 0;
	os->root_logged = false;
	os->tx_wall_read = false;
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

/* os_tx_log -- save [p, p+len) before changing it: the newest snapshot's
 * copy of its pages first (capture), then the UNDO record */
int os_tx_log(struct objstore *os, const void *p, size_t len)
{
	uint64_t off = os_off(os, p);
	int err = os_log_refusal(os, p, len);

	if (err)
		return err; /* before a capture: a refused call changes nothing */
	os_snap_capture(os, off, len);
	return os_log_append(os, OS_LOG_UNDO, off, p, (uint32_t)len);
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

/* durable_store -- one aligned 8-byte store, flushed and fenced: durable
 * when this returns, whatever a power cut does next */
static void durable_store(struct objstore *os, uint64_t *word, uint64_t value)
{
	__atomic_store_n(word, value, __ATOMIC_RELEASE);
	os_flush(os, word, sizeof(*word));
	os_fence(os);
}

/* store_epoch -- the commit point: one 8-byte store, flushed and fenced */
static void store_epoch(struct objstore *os, uint64_t epoch)
{
	durable_store(os, &os->sb->committed_epoch, epoch);
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
 * OS_LOG_REDO_MAX bytes of ranges (past about that, copying, summing and
 * writing them back a second time costs more than the wait it saves: a
 * 4 KiB update took 2.1 us by redo, 1.4 by the epoch store, on the
 * development machine), and room for their REDO records and the COMMIT
 * record */
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
	return bytes <= OS_LOG_REDO_MAX && os_log_room(os, need) == 0;
}

/* commit_by_redo -- a REDO record of every range and the COMMIT record,
 * made durable with the ranges by one fence; the epoch store follows,
 * unflushed: start_log_over makes it durable (tx.c, top) */
static void commit_by_redo(struct objstore *os)
{
	uint64_t end = os->log_tail;

	for (uint64_t pos = os->chain_start; pos < end;) {
		const struct os_log_entry *e = (const void *)(os->log + pos);
		uint8_t *range = os->base + e->offset;

		/* Invariant: redo_fits found room for every record. */
		if (os_log_append(os, OS_LOG_REDO, e->offset, range, e->length))
			os->pf->fatal("objstore: a redo record did not fit after its room was checked");
		os_flush(os, range, e->length);
		pos += os_log_record_size(e->kind, e->length);
	}
	if (os_log_append(os, OS_LOG_COMMIT, 0, NULL, 0))
		os->pf->fatal("objstore: the commit record did not fit after its room was checked");
	os_fence(os);
	/* Not flushed: a write-back in flight here makes the next fence wait
	 * for it (+200 ns a transaction on the development machine), while
	 * the chain keeps the commit durable until start_log_over. */
	__atomic_store_n(&os->sb->committed_epoch, os->tx_epoch, __ATOMIC_RELEASE);
	os->pending_chains++;
}

/* commit_by_epoch -- flush every range, fence, the epoch store (fenced):
 * the log is empty after it */
static void commit_by_epoch(struct objstore *os)
{
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
	if (os->log_tail > os->chain_start) {
		if (redo_fits(os))
			commit_by_redo(os);
		else
			commit_by_epoch(os);
	}
	os->in_tx = false;
	os->chain_start = os->log_tail;
	return 0;
}

/* os_tx_each_range -- fn(ctx, off, len) for the range of every record of
 * the running transaction, in log order */
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
