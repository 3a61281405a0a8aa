/*
 * tx.c -- the undo log and transactions.
 *
 * The log is a region of the heap holding records (format.h): a 32-byte
 * header and, for an UNDO record, the old bytes of a range. A transaction
 * appends records from the start of the log; each UNDO record is flushed
 * and fenced before os_tx_log returns, so the caller's write that follows
 * can never reach persistence before the old bytes it overwrites.
 *
 * Commit: flush every range the transaction logged or allocated, fence,
 * store committed_epoch + 1 (one aligned 8-byte store), flush it, fence.
 * That store also empties the log, because a record only counts while its
 * epoch is committed_epoch + 1 (invariant in format.h).
 *
 * Rollback (os_tx_abort, and os_open after a power cut): walk the records
 * backwards, copying the old bytes back, flush, fence, then commit the
 * restored state as a new epoch so that the undone records die with the
 * same single store. A cut during rollback leaves the records valid and
 * the next open simply rolls back again: copying old bytes is idempotent.
 *
 * A log from a hostile or damaged image: before a single byte is restored,
 * os_log_scan validates every record of the transaction. A record whose
 * checksum fails is torn (a cut while it was written) and ends the
 * transaction, as always. A record whose checksum holds must also be
 * sound -- a known kind, a zero reserved field, a range inside the heap,
 * past the superblock and outside the log, a back link to the record
 * before it -- or the whole log is refused (-ERR_CORRUPT, naming the
 * record) and nothing is written.
 *
 * A tentative rollback (os_open_tentative, for the kernel's power-on)
 * restores the bytes but leaves the records valid, the epoch unchanged: the
 * caller first validates what it will read, then os_open_confirm commits
 * the rollback, or os_open_retract copies back the bytes the rollback
 * overwrote (saved before it began), leaving the image as it was. A cut
 * in between is just a cut during rollback.
 *
 * Power-cut analysis of os_tx_log: the record is written, flushed, fenced.
 * Cut before the fence: the record may be torn (bad crc); it ends the
 * valid prefix, and the range it describes was not yet written. Cut after:
 * the record is valid and rollback restores the range. A record whose
 * FRESH kind needs no fence is ordered by the next UNDO record's fence or
 * by the commit's; if torn, it is the last record and nothing needs it.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/*
 * record_checksum -- CRC32C of the header (crc = 0), mixed with a
 * Fletcher-style sum of the data.
 *
 * Why not one CRC over header and data: the data of an UNDO record is
 * often a structure ending with its own CRC32C (root block, descriptor,
 * object header), and the CRC32C of bytes followed by their own CRC32C is
 * a constant. A record torn between its new header and the stale data of
 * an older record at the same place would then pass. An integer sum is not
 * GF(2)-linear, so it has no such blind spot; it is also cheaper per byte.
 */
static uint32_t record_checksum(const struct os_log_entry *header_crc0,
				const void *data, uint64_t len)
{
	const uint8_t *p = data;
	uint64_t a = len, b = 0, pair;
	uint32_t w;

	/* __builtin_memcpy: one unaligned load, also where the kernel is
	 * built with -fno-builtin (a call per word there cost 60 % of a
	 * write fault's logging under TCG). Two words per load: the same sum. */
	for (; len >= 8; len -= 8, p += 8) {
		__builtin_memcpy(&pair, p, 8);
		a += (uint32_t)pair;
		b += a;
		a += pair >> 32;
		b += a;
	}
	if (len >= 4) {
		__builtin_memcpy(&w, p, 4);
		a += w;
		b += a;
		len -= 4;
		p += 4;
	}
	if (len) {
		w = 0;
		__builtin_memcpy(&w, p, len);
		a += w;
		b += a;
	}
	return crc32c(0, header_crc0, sizeof(*header_crc0)) ^
	       (uint32_t)(a ^ (a >> 32)) ^ (uint32_t)((b ^ (b >> 32)) * 0x9e3779b1u);
}

/* os_log_record_crc -- the checksum record `e` (header and data) must carry */
uint32_t os_log_record_crc(const struct os_log_entry *e)
{
	struct os_log_entry header = *e;

	header.crc = 0;
	return record_checksum(&header, e + 1, e->kind == OS_LOG_UNDO ? e->length : 0);
}

/* record_intact -- whether the record at `pos` belongs to `epoch` and its
 * checksum holds (computable only when its length fits the log); its size */
static bool record_intact(const struct os_superblock *sb, const uint8_t *log,
			  uint64_t pos, uint64_t epoch, uint64_t *record_size)
{
	const struct os_log_entry *e = (const void *)(log + pos);
	uint64_t size;

	if (pos + sizeof(*e) > sb->log_size || e->epoch != epoch)
		return false;
	size = os_log_record_size(e->kind, e->length);
	if (size > sb->log_size - pos)
		return false;
	if (os_log_record_crc(e) != e->crc)
		return false;
	*record_size = size;
	return true;
}

/* record_problem -- what is wrong with an intact record, NULL if nothing:
 * kind, reserved field, range (inside the heap, past the superblock, not
 * over the log) and back link (`prev_size`, the previous record's size) */
static const char *record_problem(const struct os_superblock *sb,
				  const struct os_log_entry *e, uint64_t prev_size)
{
	if (e->kind != OS_LOG_UNDO && e->kind != OS_LOG_FRESH)
		return "unknown record kind";
	if (e->reserved)
		return "reserved field is not zero";
	if (e->length == 0)
		return "empty range";
	if (e->offset < sb->root_offset)
		return "range starts in the superblock";
	if (e->offset > sb->heap_size || e->length > sb->heap_size - e->offset)
		return "range runs past the end of the heap";
	if (e->offset < sb->log_offset + sb->log_size &&
	    e->offset + e->length > sb->log_offset)
		return "range overlaps the undo log";
	if (e->prev_size != prev_size)
		return "back link does not lead to the previous record";
	return NULL;
}

/* os_log_scan -- validate every record of the unfinished transaction */
int os_log_scan(const struct os_superblock *sb, const uint8_t *log,
		struct os_log_scan *out, char *why, size_t why_size)
{
	uint64_t epoch = sb->committed_epoch + 1, pos = 0, size, prev = 0;

	memset(out, 0, sizeof(*out));
	while (record_intact(sb, log, pos, epoch, &size)) {
		const struct os_log_entry *e = (const void *)(log + pos);
		const char *problem = record_problem(sb, e, prev);

		if (problem) {
			snprintf(why, why_size,
				 "log: record %llu at log offset %#llx (range %#llx, %u bytes): %s",
				 (unsigned long long)out->records,
				 (unsigned long long)pos,
				 (unsigned long long)e->offset, e->length, problem);
			return -ERR_CORRUPT;
		}
		out->records++;
		out->last = pos;
		if (e->kind == OS_LOG_UNDO)
			out->undo_bytes += e->length;
		prev = size;
		pos += size;
	}
	out->bytes = pos;
	return 0;
}

/* append -- write one record at the log's tail; -ERR_NOSPC when it does not fit */
static int append(struct objstore *os, unsigned kind, uint64_t off,
		  const void *old, uint32_t len)
{
	uint64_t size = os_log_record_size(kind, len);
	struct os_log_entry *e = (struct os_log_entry *)(os->log + os->log_tail);
	uint64_t data_len = kind == OS_LOG_UNDO ? len : 0;

	if (size + os_snap_log_reserve(os) > os->log_size - os->log_tail)
		return -ERR_NOSPC;
	e->offset = off;
	e->length = len;
	e->kind = (uint16_t)kind;
	e->reserved = 0;
	e->epoch = os->tx_epoch;
	e->prev_size = os->log_tail ? os->last_record_size : 0;
	e->crc = 0;
	if (data_len)
		memcpy(e + 1, old, data_len);
	memset((uint8_t *)(e + 1) + data_len, 0,
	       size - sizeof(*e) - data_len);
	e->crc = record_checksum(e, e + 1, data_len);
#ifdef FERRITE_MUTANT_UNFLUSHED_UNDO
	if (os->log_tail) /* the transaction's first record stays unflushed */
#endif
	os_flush(os, e, size);
	if (kind == OS_LOG_UNDO)
		os_fence(os);
	os->last_record_size = (uint32_t)size;
	os->log_tail += size;
	if (os->log_tail > os->log_high_water)
		os->log_high_water = os->log_tail;
	return 0;
}

/* os_tx_begin -- start a transaction; -ERR_BUSY if one is running */
int os_tx_begin(struct objstore *os)
{
	if (os->in_tx || os->pending)
		return -ERR_BUSY;
	os->in_tx = true;
	os->tx_epoch = os->sb->committed_epoch + 1;
	os->log_tail = 0;
	os->last_record_size = 0;
	os->root_logged = false;
	os_snap_tx_begin(os);
	return 0;
}

/* loggable -- whether [off, off+len) may be logged: past the superblock, not the log */
static bool loggable(const struct objstore *os, uint64_t off, uint64_t len)
{
	const struct os_superblock *sb = os->sb;

	if (len == 0 || len > UINT32_MAX || off < sb->root_offset ||
	    off > os->size || len > os->size - off)
		return false;
	return !(off < sb->log_offset + sb->log_size && off + len > sb->log_offset);
}

/* os_tx_log -- save [p, p+len) before changing it */
int os_tx_log(struct objstore *os, const void *p, size_t len)
{
	uint64_t off = os_off(os, p);

	if (!os->in_tx)
		return -ERR_INVAL;
	if ((const uint8_t *)p < os->base || !loggable(os, off, len))
		return -ERR_FAULT;
	if (os_log_room(os, os_log_record_size(OS_LOG_UNDO, len)))
		return -ERR_NOSPC; /* before a capture: a refused call changes nothing */
	os_snap_capture(os, off, len);
	return append(os, OS_LOG_UNDO, off, p, (uint32_t)len);
}

/* os_log_fresh -- record a newly allocated range, to be flushed at commit */
int os_log_fresh(struct objstore *os, uint64_t off, uint32_t len)
{
	if (os_log_room(os, os_log_record_size(OS_LOG_FRESH, len)))
		return -ERR_NOSPC;
	/* Free in the live state, maybe not in the newest snapshot's: captured too. */
	os_snap_capture(os, off, len);
	return append(os, OS_LOG_FRESH, off, NULL, len);
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
 * rolled back */
int os_store_durable(struct objstore *os, uint64_t *word, uint64_t value)
{
	uintptr_t at = (uintptr_t)word, base = (uintptr_t)os->base;

	if (at < base + OS_PAGE_SIZE || at - base >= os->sb->heap_size ||
	    at % sizeof(*word))
		return -ERR_INVAL;
	durable_store(os, word, value);
	return 0;
}

/* os_tx_commit -- make everything the transaction did durable, atomically */
int os_tx_commit(struct objstore *os)
{
	uint64_t pos = 0, size;

	if (!os->in_tx)
		return -ERR_INVAL;
	if (os->root_logged)
		os->root->crc = os_root_crc(os->root);
	os_snap_seal(os);
	while (pos < os->log_tail) {
		const struct os_log_entry *e = (const void *)(os->log + pos);

#ifdef FERRITE_MUTANT_UNFLUSHED_PAGES
		if (e->length != OS_PAGE_SIZE)
#endif
		os_flush(os, os->base + e->offset, e->length);
		size = os_log_record_size(e->kind, e->length);
		pos += size;
	}
#ifndef FERRITE_MUTANT_UNFENCED_COMMIT
	os_fence(os);
#endif
	if (os->log_tail)
		store_epoch(os, os->tx_epoch);
	os->in_tx = false;
	os->log_tail = 0;
	return 0;
}

/* os_tx_each_range -- fn(ctx, off, len) for the range of every record of
 * the running transaction, in log order */
int os_tx_each_range(const struct objstore *os,
		     void (*fn)(void *ctx, uint64_t off, uint64_t len), void *ctx)
{
	if (!os->in_tx)
		return -ERR_INVAL;
	for (uint64_t pos = 0; pos < os->log_tail;) {
		const struct os_log_entry *e = (const void *)(os->log + pos);

		fn(ctx, e->offset, e->length);
		pos += os_log_record_size(e->kind, e->length);
	}
	return 0;
}

/* restore -- copy back the old bytes of every UNDO record of `scan`,
 * newest first so the oldest copy of a byte wins; flushed and fenced.
 * Records undone. */
static uint64_t restore(struct objstore *os, const struct os_log_scan *scan)
{
	uint64_t pos = scan->last, undone = 0;

	os->rolled_back_bytes = 0;
	if (!scan->records)
		return 0;
	for (;;) {
		const struct os_log_entry *e = (const void *)(os->log + pos);

		if (e->kind == OS_LOG_UNDO) {
			memcpy(os->base + e->offset, e + 1, e->length);
			os_flush(os, os->base + e->offset, e->length);
			os->rolled_back_bytes += e->length;
			undone++;
		}
		if (pos == 0)
			break;
		/* Invariant: os_log_scan proved each back link leads to the previous record. */
		pos -= e->prev_size;
	}
	os_fence(os);
	return undone;
}

/* each_undo -- fn(os, e, save) for every UNDO record, oldest first, with
 * `save` advanced by each record's length */
static void each_undo(struct objstore *os, uint8_t *save,
		      void (*fn)(struct objstore *os, const struct os_log_entry *e,
				 uint8_t *save))
{
	struct os_log_scan scan;
	char why[OS_WHY_MAX];
	uint64_t pos = 0;

	if (os_log_scan(os->sb, os->log, &scan, why, sizeof(why)))
		os->pf->fatal("objstore: the undo log changed under a pending rollback");
	while (pos < scan.bytes) {
		const struct os_log_entry *e = (const void *)(os->log + pos);

		if (e->kind == OS_LOG_UNDO) {
			fn(os, e, save);
			save += e->length;
		}
		pos += os_log_record_size(e->kind, e->length);
	}
}

/* save_range -- the current bytes of a record's range, into save */
static void save_range(struct objstore *os, const struct os_log_entry *e,
		       uint8_t *save)
{
	memcpy(save, os->base + e->offset, e->length);
}

/* unsave_range -- a record's range as save_range found it */
static void unsave_range(struct objstore *os, const struct os_log_entry *e,
			 uint8_t *save)
{
	memcpy(os->base + e->offset, save, e->length);
	os_flush(os, os->base + e->offset, e->length);
}

/* os_rollback -- undo the records of the running (or crashed) transaction;
 * with `commit`, make the restored state a new epoch */
int os_rollback(struct objstore *os, bool commit, uint8_t *save)
{
	struct os_log_scan scan;
	char why[OS_WHY_MAX];

	if (os_log_scan(os->sb, os->log, &scan, why, sizeof(why)))
		return -ERR_CORRUPT;
	if (save)
		each_undo(os, save, save_range);
	os->rolled_back = restore(os, &scan);
	os->pending = !commit && scan.records;
	os->pending_save = os->pending ? save : NULL;
	if (scan.records && commit)
		store_epoch(os, os->sb->committed_epoch + 1);
	return 0;
}

/* os_open_confirm -- commit the rollback os_open_tentative left pending */
void os_open_confirm(struct objstore *os)
{
	if (!os->pending)
		return;
	store_epoch(os, os->sb->committed_epoch + 1);
	os->pending = false;
	os->pending_save = NULL;
}

/* os_open_retract -- put back the bytes a pending rollback overwrote */
int os_open_retract(struct objstore *os)
{
	if (!os->pending)
		return 0;
	if (!os->pending_save)
		return -ERR_INVAL;
	each_undo(os, os->pending_save, unsave_range);
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
	/* Invariant: the running transaction's own records pass os_log_scan. */
	if (os_rollback(os, true, NULL))
		os->pf->fatal("objstore: the running transaction's undo log fails its checks");
	os->in_tx = false;
	os->log_tail = 0;
	return 0;
}
