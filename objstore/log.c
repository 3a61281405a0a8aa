/*
 * log.c -- the log's records: writing one, and reading the chains back.
 *
 * The log is a region of the heap holding records (format.h): a 32-byte
 * header and, for UNDO and REDO records, the bytes of a range. A
 * transaction (tx.c) appends its records as one chain with
 * os_log_append; an UNDO record is flushed and fenced before it returns,
 * so the write that follows can never reach persistence before the old
 * bytes it overwrites.
 *
 * A log from a hostile or damaged image: before a single byte is written,
 * os_log_scan validates every record of every chain it walks. A record
 * whose checksum fails is torn (a cut while it was written) and ends its
 * chain, as always. A record whose checksum holds must also be sound -- a
 * known kind, a zero reserved field, a range inside the heap, past the
 * superblock and outside the log (none for COMMIT), its data records
 * after the others, a back link to the record before it -- and the chains
 * at most OS_LOG_MAX_CHAINS, or the whole log is refused (-ERR_CORRUPT,
 * naming the record) and nothing is written. What recovery would make of
 * a scanned log is read here too, writing nothing (os_after_rollback):
 * open validates the root block and the snapshot area that way, and the
 * checker checks them so.
 *
 * The format of a record is known here alone, on both sides: its writer
 * (tx.c) and its readers (recovery in tx.c, heap.c's open, the checker)
 * call this file, which calls nothing of objstore's but the CRC. So does
 * the snapshots' capture, which tx.c calls before every record: it logs
 * the snapshot area's own bytes with os_log_undo, os_tx_log's checks and
 * record without a capture, so that capture never calls tx.c back.
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
	return record_checksum(&header, e + 1, os_log_has_data(e->kind) ? e->length : 0);
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
 * over the log; none for COMMIT), order (data after the others) and back
 * link (`prev_size`, the previous record's size; `redo`: a REDO record
 * came before it in its chain) */
static const char *record_problem(const struct os_superblock *sb,
				  const struct os_log_entry *e, uint64_t prev_size,
				  bool redo)
{
	if (e->kind < OS_LOG_UNDO || e->kind > OS_LOG_COMMIT)
		return "unknown record kind";
	if (e->reserved)
		return "reserved field is not zero";
	if (e->kind == OS_LOG_COMMIT) {
		if (e->offset || e->length)
			return "commit record with a range";
		if (!redo)
			return "commit record without redo records";
	} else {
		if (e->length == 0)
			return "empty range";
		if (e->offset < sb->root_offset)
			return "range starts in the superblock";
		if (e->offset > sb->heap_size || e->length > sb->heap_size - e->offset)
			return "range runs past the end of the heap";
		if (e->offset < sb->log_offset + sb->log_size &&
		    e->offset + e->length > sb->log_offset)
			return "range overlaps the undo log";
		if (redo && e->kind != OS_LOG_REDO)
			return "undo or fresh record after the chain's redo records";
	}
	if (e->prev_size != prev_size)
		return "back link does not lead to the previous record";
	return NULL;
}

/* One chain of records (format.h), as walk_chain found it. */
struct chain {
	uint64_t start, end;           /* log positions: its first record, past its last */
	uint64_t last;                 /* its last record */
	uint64_t records, undo_bytes;
	uint64_t redo_records, redo_bytes;
	bool committed;                /* it ends with a COMMIT record */
};

/* walk_chain -- the intact records of `epoch` from log position `pos`,
 * each validated; `index` numbers the first for messages. With `done` (the
 * chain's epoch store is durable), only as far as a chain committed by
 * redo may reach (OS_LOG_REDO_MAX bytes of ranges): a longer one committed
 * by the epoch store, nothing follows it, and reading it whole would make
 * every open pay for the last large transaction. */
static int walk_chain(const struct os_superblock *sb, const uint8_t *log,
		      uint64_t pos, uint64_t epoch, uint64_t index, bool done,
		      struct chain *c, char *why, size_t why_size)
{
	uint64_t size, prev = 0, ranges = 0;

	memset(c, 0, sizeof(*c));
	c->start = pos;
	while (!c->committed && !(done && ranges > OS_LOG_REDO_MAX) &&
	       record_intact(sb, log, pos, epoch, &size)) {
		const struct os_log_entry *e = (const void *)(log + pos);
		const char *problem = record_problem(sb, e, prev, c->redo_records > 0);

		if (problem) {
			snprintf(why, why_size,
				 "log: record %llu at log offset %#llx (range %#llx, %u bytes): %s",
				 (unsigned long long)(index + c->records),
				 (unsigned long long)pos,
				 (unsigned long long)e->offset, e->length, problem);
			return -ERR_CORRUPT;
		}
		c->records++;
		c->last = pos;
		if (e->kind == OS_LOG_UNDO)
			c->undo_bytes += e->length;
		if (e->kind == OS_LOG_UNDO || e->kind == OS_LOG_FRESH)
			ranges += e->length;
		if (e->kind == OS_LOG_REDO) {
			c->redo_records++;
			c->redo_bytes += e->length;
		}
		c->committed = e->kind == OS_LOG_COMMIT;
		prev = size;
		pos += size;
	}
	c->end = pos;
	return 0;
}

/* os_log_scan -- walk the log's chains and validate every record of them */
int os_log_scan(const struct os_superblock *sb, const uint8_t *log,
		struct os_log_scan *out, char *why, size_t why_size)
{
	uint64_t durable = sb->committed_epoch, pos = 0, walked = 0, epoch;
	struct chain c;

	memset(out, 0, sizeof(*out));
	/* The first chain's epoch, from its first header (the walk checks it). */
	epoch = ((const struct os_log_entry *)log)->epoch;
	if (epoch == 0 || epoch > durable + 1)
		return 0; /* no chain of this heap's epochs: nothing to recover */
	for (unsigned n = 0;; n++, epoch++) {
		int err = walk_chain(sb, log, pos, epoch, walked, epoch <= durable, &c,
				     why, why_size);

		if (err)
			return err;
		if (!c.records)
			break;
		if (n == OS_LOG_MAX_CHAINS) {
			snprintf(why, why_size,
				 "log: more than %u chains of records from its start (record %llu at log offset %#llx)",
				 OS_LOG_MAX_CHAINS, (unsigned long long)walked,
				 (unsigned long long)pos);
			return -ERR_CORRUPT;
		}
		walked += c.records;
		out->bytes = c.end;
#ifdef FERRITE_MUTANT_REPLAYED_DONE
		if (epoch <= durable && !c.committed)
			break;
		if (0) {
#else
		if (epoch <= durable) {
#endif
			if (!c.committed)
				break; /* committed by the epoch store: the log started over after it */
		} else if (!c.committed) {
			out->records = c.records;
			out->back_start = c.start;
			out->last = c.last;
			out->back_epoch = epoch;
			out->undo_bytes = c.undo_bytes;
			break;
		} else {
			if (!out->replay_epoch)
				out->replay_start = c.start;
			out->replay_end = c.end;
			out->replay_records += c.redo_records;
			out->replay_bytes += c.redo_bytes;
			out->replay_epoch = epoch;
		}
		pos = c.end;
	}
	return 0;
}

/* os_log_append -- write one record at the log's tail, with the `len`
 * bytes at `bytes` for a data record; -ERR_NOSPC when it does not fit */
int os_log_append(struct objstore *os, unsigned kind, uint64_t off,
		  const void *bytes, uint32_t len)
{
	uint64_t size = os_log_record_size(kind, len);
	struct os_log_entry *e = (struct os_log_entry *)(os->log + os->log_tail);
	uint64_t data_len = os_log_has_data(kind) ? len : 0;

	if (size + os_snap_log_reserve(os) > os->log_size - os->log_tail)
		return -ERR_NOSPC;
	e->offset = off;
	e->length = len;
	e->kind = (uint16_t)kind;
	e->reserved = 0;
	e->epoch = os->tx_epoch;
	e->prev_size = os->log_tail > os->chain_start ? os->last_record_size : 0;
	e->crc = 0;
	if (data_len)
		memcpy(e + 1, bytes, data_len);
	memset((uint8_t *)(e + 1) + data_len, 0,
	       size - sizeof(*e) - data_len);
	e->crc = record_checksum(e, e + 1, data_len);
#ifdef FERRITE_MUTANT_UNFLUSHED_UNDO
	if (os->log_tail > os->chain_start) /* the transaction's first record stays unflushed */
#endif
#ifdef FERRITE_MUTANT_UNFLUSHED_REDO
	if (kind != OS_LOG_REDO)
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

/* loggable -- whether [off, off+len) may be logged: past the superblock, not the log */
static bool loggable(const struct objstore *os, uint64_t off, uint64_t len)
{
	const struct os_superblock *sb = os->sb;

	if (len == 0 || len > UINT32_MAX || off < sb->root_offset ||
	    off > os->size || len > os->size - off)
		return false;
	return !(off < sb->log_offset + sb->log_size && off + len > sb->log_offset);
}

/* os_log_refusal -- why [p, p+len) may not be saved in the running chain
 * now: -ERR_INVAL outside a transaction, -ERR_FAULT outside the heap's
 * loggable ranges, -ERR_NOSPC without room for its record; 0 if it may */
int os_log_refusal(const struct objstore *os, const void *p, size_t len)
{
	if (!os->in_tx)
		return -ERR_INVAL;
	if ((const uint8_t *)p < os->base || !loggable(os, os_off(os, p), len))
		return -ERR_FAULT;
	if (os_log_room(os, os_log_record_size(OS_LOG_UNDO, len)))
		return -ERR_NOSPC;
	return 0;
}

/* os_log_undo -- save [p, p+len) in the running chain, an UNDO record,
 * without a capture: for the snapshot area's own bytes, which capture
 * never copies (os_tx_log is this record after a capture) */
int os_log_undo(struct objstore *os, const void *p, size_t len)
{
	int err = os_log_refusal(os, p, len);

	return err ? err : os_log_append(os, OS_LOG_UNDO, os_off(os, p), p, (uint32_t)len);
}

/* os_log_each_replayed -- fn(ctx, e) for the REDO records of the chains
 * `scan` replays, in log order: the order recovery writes them */
void os_log_each_replayed(const uint8_t *log, const struct os_log_scan *scan,
			  void (*fn)(void *ctx, const struct os_log_entry *e), void *ctx)
{
	for (uint64_t pos = scan->replay_start; pos < scan->replay_end;) {
		const struct os_log_entry *e = (const void *)(log + pos);

		if (e->kind == OS_LOG_REDO)
			fn(ctx, e);
		pos += os_log_record_size(e->kind, e->length);
	}
}

/* os_log_each_undone -- fn(ctx, e) for the UNDO records of the chain
 * `scan` rolls back, newest first (the oldest copy of a byte wins): the
 * order recovery writes them */
void os_log_each_undone(const uint8_t *log, const struct os_log_scan *scan,
			void (*fn)(void *ctx, const struct os_log_entry *e), void *ctx)
{
	for (uint64_t pos = scan->last; scan->records;) {
		const struct os_log_entry *e = (const void *)(log + pos);

		if (e->kind == OS_LOG_UNDO)
			fn(ctx, e);
		if (pos == scan->back_start)
			break;
		/* Invariant: os_log_scan proved each back link leads to the previous record. */
		pos -= e->prev_size;
	}
}

/* The bytes of [off, off+len) as recovery leaves them, being built. */
struct overlay {
	uint64_t off, len;
	uint8_t *out;
};

/* overlay_one -- copy into the overlay the part of record e's data that
 * falls inside its range */
static void overlay_one(void *ctx, const struct os_log_entry *e)
{
	struct overlay *o = ctx;
	uint64_t from = e->offset > o->off ? e->offset : o->off;
	uint64_t to = e->offset + e->length < o->off + o->len ? e->offset + e->length
							       : o->off + o->len;

	if (from < to)
		memcpy(o->out + (from - o->off), (const uint8_t *)(e + 1) + (from - e->offset),
		       to - from);
}

/* os_after_rollback -- the `len` bytes at heap offset `off` as recovery
 * of a scanned log would leave them, in *out, writing nothing */
void os_after_rollback(const uint8_t *base, const struct os_superblock *sb,
		       const struct os_log_scan *scan, uint64_t off, uint64_t len,
		       void *out)
{
	struct overlay o = { off, len, out };

	memcpy(out, base + off, len);
	os_log_each_replayed(base + sb->log_offset, scan, overlay_one, &o);
	os_log_each_undone(base + sb->log_offset, scan, overlay_one, &o);
}

/* A check of one replayed record's range against what replay leaves there. */
struct replay_check {
	const uint8_t *base;
	const struct os_superblock *sb;
	const struct os_log_scan *scan;
	bool changes;
};

/* check_replayed -- whether replay leaves record e's range other than it is */
static void check_replayed(void *ctx, const struct os_log_entry *e)
{
	struct replay_check *rc = ctx;
	uint8_t after[256];

	for (uint64_t at = 0; at < e->length && !rc->changes; at += sizeof(after)) {
		uint64_t n = e->length - at < sizeof(after) ? e->length - at : sizeof(after);

		os_after_rollback(rc->base, rc->sb, rc->scan, e->offset + at, n, after);
		rc->changes = memcmp(after, rc->base + e->offset + at, n) != 0;
	}
}

/* os_log_replay_changes -- whether replaying the committed chains of a
 * scanned log would change a byte of the heap (not when the heap already
 * holds what they wrote: a running heap, or one closed without os_settle) */
bool os_log_replay_changes(const uint8_t *base, const struct os_superblock *sb,
			   const struct os_log_scan *scan)
{
	struct replay_check rc = { base, sb, scan, false };

	os_log_each_replayed(base + sb->log_offset, scan, check_replayed, &rc);
	return rc.changes;
}
