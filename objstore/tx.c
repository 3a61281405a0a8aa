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
 * Power-cut analysis of os_tx_log: the record is written, flushed, fenced.
 * Cut before the fence: the record may be torn (bad crc); it ends the
 * valid prefix, and the range it describes was not yet written. Cut after:
 * the record is valid and rollback restores the range. A record whose
 * FRESH kind needs no fence is ordered by the next UNDO record's fence or
 * by the commit's; if torn, it is the last record and nothing needs it.
 */
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
	uint64_t a = len, b = 0;
	uint32_t w;

	for (; len >= 4; len -= 4, p += 4) {
		memcpy(&w, p, 4);
		a += w;
		b += a;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		a += w;
		b += a;
	}
	return crc32c(0, header_crc0, sizeof(*header_crc0)) ^
	       (uint32_t)(a ^ (a >> 32)) ^ (uint32_t)((b ^ (b >> 32)) * 0x9e3779b1u);
}

/* os_log_record_ok -- whether the record at `pos` belongs to `epoch` and is intact */
bool os_log_record_ok(const struct os_superblock *sb, const uint8_t *log,
		      uint64_t pos, uint64_t epoch, uint64_t *record_size)
{
	const struct os_log_entry *e = (const void *)(log + pos);
	struct os_log_entry header;
	uint64_t size, data_len;

	if (pos + sizeof(*e) > sb->log_size)
		return false;
	if (e->epoch != epoch || (e->kind != OS_LOG_UNDO && e->kind != OS_LOG_FRESH) ||
	    e->reserved)
		return false;
	size = os_log_record_size(e->kind, e->length);
	if (e->length == 0 || size > sb->log_size - pos)
		return false;
	/* The range must be inside the heap, past the superblock and outside the log. */
	if (e->offset < sb->root_offset || e->offset > sb->heap_size ||
	    e->length > sb->heap_size - e->offset)
		return false;
	if (e->offset < sb->log_offset + sb->log_size &&
	    e->offset + e->length > sb->log_offset)
		return false;
	header = *e;
	header.crc = 0;
	data_len = e->kind == OS_LOG_UNDO ? e->length : 0;
	if (record_checksum(&header, e + 1, data_len) != e->crc)
		return false;
	*record_size = size;
	return true;
}

/* append -- write one record at the log's tail; -ERR_NOSPC when it does not fit */
static int append(struct objstore *os, unsigned kind, uint64_t off,
		  const void *old, uint32_t len)
{
	uint64_t size = os_log_record_size(kind, len);
	struct os_log_entry *e = (struct os_log_entry *)(os->log + os->log_tail);
	uint64_t data_len = kind == OS_LOG_UNDO ? len : 0;

	if (size > os->log_size - os->log_tail)
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
	if (os->in_tx)
		return -ERR_BUSY;
	os->in_tx = true;
	os->tx_epoch = os->sb->committed_epoch + 1;
	os->log_tail = 0;
	os->last_record_size = 0;
	os->root_logged = false;
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
	return append(os, OS_LOG_UNDO, off, p, (uint32_t)len);
}

/* os_log_fresh -- record a newly allocated range, to be flushed at commit */
int os_log_fresh(struct objstore *os, uint64_t off, uint32_t len)
{
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

/* store_epoch -- the commit point: one 8-byte store, flushed and fenced */
static void store_epoch(struct objstore *os, uint64_t epoch)
{
	__atomic_store_n(&os->sb->committed_epoch, epoch, __ATOMIC_RELEASE);
	os_flush(os, &os->sb->committed_epoch, sizeof(uint64_t));
	os_fence(os);
}

/* os_tx_commit -- make everything the transaction did durable, atomically */
int os_tx_commit(struct objstore *os)
{
	uint64_t pos = 0, size;

	if (!os->in_tx)
		return -ERR_INVAL;
	if (os->root_logged)
		os->root->crc = os_root_crc(os->root);
	while (pos < os->log_tail) {
		const struct os_log_entry *e = (const void *)(os->log + pos);

		os_flush(os, os->base + e->offset, e->length);
		size = os_log_record_size(e->kind, e->length);
		pos += size;
	}
	os_fence(os);
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

/* last_record -- the position of the last valid record of `epoch`, and whether any */
static bool last_record(const struct objstore *os, uint64_t epoch,
			uint64_t *last)
{
	uint64_t pos = 0, size;
	bool any = false;

	while (os_log_record_ok(os->sb, os->log, pos, epoch, &size)) {
		*last = pos;
		any = true;
		pos += size;
	}
	return any;
}

/* os_rollback -- undo the records of the running (or crashed) transaction */
uint64_t os_rollback(struct objstore *os)
{
	uint64_t epoch = os->sb->committed_epoch + 1, pos, undone = 0;

	os->rolled_back_bytes = 0;
	if (!last_record(os, epoch, &pos))
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
		/* Invariant: prev_size leads back to the previous valid record. */
		if (e->prev_size > pos)
			os->pf->fatal("objstore: undo log record has a bad back link");
		pos -= e->prev_size;
	}
	os_fence(os);
	store_epoch(os, epoch);
	return undone;
}

/* os_tx_abort -- undo everything the transaction did */
int os_tx_abort(struct objstore *os)
{
	if (!os->in_tx)
		return -ERR_INVAL;
	os->rolled_back = os_rollback(os);
	os->in_tx = false;
	os->log_tail = 0;
	return 0;
}
