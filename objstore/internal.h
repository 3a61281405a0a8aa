/*
 * internal.h -- helpers shared by the objstore modules; not for callers.
 */
#ifndef OBJSTORE_INTERNAL_H
#define OBJSTORE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "crc32c.h"
#include "objstore/objstore.h"

#define OS_ALIGN_UP(v, a) (((v) + (a) - 1) / (a) * (a))
#define OS_ALIGN_DOWN(v, a) ((v) / (a) * (a))

/* os_all_zero -- whether `len` bytes at p are all zero (reserved fields) */
static inline bool os_all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* os_resizable -- whether a heap's layout can resize (2.3 on): it has
 * page_capacity, the spare superblock, the data pages last */
static inline bool os_resizable(const struct os_superblock *sb)
{
	return sb->layout_major == 2 && sb->layout_minor >= OS_LAYOUT_RESIZE_MINOR;
}

/* os_root_counts_fit -- the root block's page counts against the
 * geometry (format.h): pages_unformatted <= the room, free_top <= the
 * formatted pages <= page_count */
static inline bool os_root_counts_fit(const struct os_root *r,
				      const struct os_superblock *sb)
{
	return r->pages_unformatted <= os_page_room(sb) &&
	       os_formatted_pages(sb, r) <= sb->page_count &&
	       r->free_top <= os_formatted_pages(sb, r);
}

/* os_pages_free -- free data pages: on the stack, and never used (the
 * tail up to page_count) */
static inline uint64_t os_pages_free(const struct os_superblock *sb,
				     const struct os_root *r)
{
	return r->free_top + sb->page_count - os_formatted_pages(sb, r);
}

/* os_page_off -- heap offset of data page `page` */
static inline uint64_t os_page_off(const struct objstore *os, uint64_t page)
{
	return os->sb->data_offset + page * OS_PAGE_SIZE;
}

/* os_page_off_raw -- heap offset of data page `page`, from a superblock */
static inline uint64_t os_page_off_raw(const struct os_superblock *sb, uint64_t page)
{
	return sb->data_offset + page * OS_PAGE_SIZE;
}

/* os_page_of -- the data page holding heap offset `off` (caller checks range) */
static inline uint64_t os_page_of(const struct objstore *os, uint64_t off)
{
	return (off - os->sb->data_offset) / OS_PAGE_SIZE;
}

/* os_in_data -- whether [off, off+len) lies inside the data pages ever
 * handed out (below the never-used tail) */
static inline bool os_in_data(const struct objstore *os, uint64_t off,
			      uint64_t len)
{
	uint64_t start = os->sb->data_offset;
	uint64_t end = start + os_formatted_pages(os->sb, os->root) * OS_PAGE_SIZE;

	return off >= start && off <= end && len <= end - off;
}

/* os_class_size -- bytes in a block of size class c */
static inline uint32_t os_class_size(unsigned c)
{
	return 1u << (c + OS_SMALLEST_CLASS_SHIFT);
}

/* os_class_slots -- blocks in a slab of class c */
static inline uint32_t os_class_slots(unsigned c)
{
	return OS_PAGE_SIZE / os_class_size(c);
}

/* os_desc_crc -- the checksum a page descriptor must carry */
static inline uint32_t os_desc_crc(const struct os_page_desc *d)
{
	return crc32c(0, d, __builtin_offsetof(struct os_page_desc, crc));
}

/* os_root_crc -- the checksum the root block must carry */
static inline uint32_t os_root_crc(const struct os_root *r)
{
	return crc32c(0, r, __builtin_offsetof(struct os_root, crc));
}

/* os_sb_crc -- the checksum the superblock must carry */
static inline uint32_t os_sb_crc(const struct os_superblock *sb)
{
	return crc32c(0, sb, __builtin_offsetof(struct os_superblock, crc));
}

/* os_flush -- flush a range through the platform */
static inline void os_flush(const struct objstore *os, const void *p,
			    size_t len)
{
	os->pf->flush(p, len);
}

/* os_fence -- fence through the platform */
static inline void os_fence(const struct objstore *os)
{
	os->pf->fence();
}

/* Log bytes an os_free may need at most: the root block, a stack slot and
 * four descriptors (640 bytes), rounded up. Checked up front, so that a
 * full log fails the call before it changes anything. */
#define OS_FREE_LOG_RESERVE 1024u

/* Log bytes an os_alloc may need at most: the same metadata, plus the old
 * bytes of the block when this transaction freed it before (a whole page:
 * a 4160-byte record). os_alloc checks the need of its actual size. */
#define OS_ALLOC_LOG_RESERVE (OS_FREE_LOG_RESERVE + 4160u)

/* --- the snapshot area, as the rest of objstore sees it (the snapshot
 * files share more through snapshot_internal.h; the map of them is at
 * the top of snapshot.c) --- */

/* Log bytes capture keeps for its own records: the area header's and the
 * head node's, each logged once per transaction (320 + 192, rounded). */
#define OS_SNAP_LOG_RESERVE 512u

/* os_snap_log_reserve -- log bytes no caller may take: the reserve, kept
 * for capture's own records (the header's and the head's) until this
 * transaction has logged both. Inline: every check of the log's room
 * (os_log_room, os_log_append) asks it, below the snapshot code. */
static inline uint64_t os_snap_log_reserve(const struct objstore *os)
{
	if (!os->snap || !os->snap->head || os->snap_capture_ready)
		return 0;
	return OS_SNAP_LOG_RESERVE;
}

/* os_snap_capture -- before [off, off+len) of the live heap changes: the
 * pages first changed since the newest snapshot are copied for it
 * (snapshot_capture.c, for tx.c and alloc.c) */
void os_snap_capture(struct objstore *os, uint64_t off, uint64_t len);

/* os_snap_tx_begin, os_snap_seal -- at a transaction's begin and commit */
void os_snap_tx_begin(struct objstore *os);
void os_snap_seal(struct objstore *os);

/* os_snap_area_size -- the default area of a heap of `size` bytes
 * (snapshot_area.c, for heap.c) */
uint64_t os_snap_area_size(uint64_t size);

/* os_snap_attach, os_snap_format -- find the area of a heap of geometry
 * sb; write an empty one (os_create) */
void os_snap_attach(struct objstore *os, const struct os_superblock *sb);
void os_snap_format(struct objstore *os, const struct os_superblock *sb);

/* os_snap_geometry_check -- the area of a superblock: NULL or what is
 * wrong (check_snapshots.c, for heap.c) */
const char *os_snap_geometry_check(const struct os_superblock *sb);

struct os_log_scan;

/* os_snap_after_rollback_problem -- the first thing wrong with the area
 * header and node table as rollback would leave them, NULL if none
 * (check_snapshots.c, for open and the checker) */
const char *os_snap_after_rollback_problem(const uint8_t *base, const struct os_superblock *sb,
					   const struct os_log_scan *scan, char *why,
					   size_t why_size);

/* os_log_room -- 0 if `bytes` more of log fit, else -ERR_NOSPC: besides
 * the snapshot reserve and what the caller keeps, the records the pending
 * sets will take at the commit */
static inline int os_log_room(const struct objstore *os, uint64_t bytes)
{
	return os->log_size - os->log_tail >=
		bytes + os_snap_log_reserve(os) + os->log_kept + os->set_reserve ?
		0 : -ERR_NOSPC;
}

/* os_log_append -- write one record at the log's tail (log.c), with the
 * `len` bytes at `bytes` for a data record; an UNDO record is flushed and
 * fenced. -ERR_NOSPC when it does not fit */
int os_log_append(struct objstore *os, unsigned kind, uint64_t off,
		  const void *bytes, uint32_t len);

/* os_log_refusal -- why [p, p+len) may not be saved in the running chain
 * now (-ERR_INVAL, -ERR_FAULT, -ERR_NOSPC), 0 if it may */
int os_log_refusal(const struct objstore *os, const void *p, size_t len);

/* os_log_undo -- save [p, p+len) in the running chain without a capture:
 * the snapshot area's own bytes (os_tx_log is this after a capture) */
int os_log_undo(struct objstore *os, const void *p, size_t len);

/* os_log_root -- log the root block once per transaction */
int os_log_root(struct objstore *os);

/* os_log_fresh -- record a newly allocated range, to be flushed at commit */
int os_log_fresh(struct objstore *os, uint64_t off, uint32_t len);

/* os_geometry_check -- validate a superblock's geometry against `size`; NULL or what is wrong */
const char *os_geometry_check(const struct os_superblock *sb, uint64_t size);

/* os_heap_pages_for -- the data pages of `sb`'s heap resized to an image
 * of `size` bytes (2.3) */
uint64_t os_heap_pages_for(const struct os_superblock *sb, uint64_t size);

/* os_settle_superblock -- at open: finish the copy of a committed resize,
 * clear a spare that never committed (resize.c) */
void os_settle_superblock(void *base, uint64_t size, const struct os_platform *pf);

/* os_commit_superblock -- the commit of a resize (tx.c): `next` to the
 * spare, the epoch store of next->resize_epoch, the copy over the
 * superblock, the spare cleared. -ERR_BUSY if a transaction runs. */
int os_commit_superblock(struct objstore *os, const struct os_superblock *next);

/* os_sb_check -- magic, version, checksum and geometry of a superblock;
 * 0, -ERR_INVAL, -ERR_VERSION or -ERR_CORRUPT with the reason in *why */
int os_sb_check(const struct os_superblock *sb, uint64_t size, const char **why);

/* What os_log_scan found: the committed transactions recovery replays,
 * and the unfinished one it rolls back (format.h, log records). */
struct os_log_scan {
	uint64_t records;              /* of the unfinished transaction's chain */
	uint64_t bytes;                /* of log the chains walked take, from its start */
	uint64_t back_start;           /* log position of the unfinished chain */
	uint64_t last;                 /* log position of its last record */
	uint64_t back_epoch;           /* its epoch, 0 if there is none */
	uint64_t undo_bytes;           /* bytes its UNDO records restore */
	uint64_t replay_start, replay_end; /* the chains to replay: [start, end) of the log */
	uint64_t replay_records;       /* their REDO records */
	uint64_t replay_bytes;         /* bytes those write */
	uint64_t replay_epoch;         /* the last chain's epoch, 0 if none */
};

/* os_log_scan_epoch -- the committed epoch recovery of `scan` leaves, 0 if
 * it has nothing to do */
static inline uint64_t os_log_scan_epoch(const struct os_log_scan *scan)
{
	return scan->back_epoch ? scan->back_epoch : scan->replay_epoch;
}

/* os_log_scan -- walk the log's chains from its start and validate every
 * record of them (format.h: at most OS_LOG_MAX_CHAINS chains, each the
 * longest run of intact records of one epoch): 0, or -ERR_CORRUPT with
 * the record and its problem in why */
int os_log_scan(const struct os_superblock *sb, const uint8_t *log,
		struct os_log_scan *out, char *why, size_t why_size);

/* os_log_each_replayed, os_log_each_undone -- fn(ctx, e) for the REDO
 * records a scanned recovery replays (log order) and the UNDO records it
 * rolls back (newest first): the records it writes, in its order */
void os_log_each_replayed(const uint8_t *log, const struct os_log_scan *scan,
			  void (*fn)(void *ctx, const struct os_log_entry *e), void *ctx);
void os_log_each_undone(const uint8_t *log, const struct os_log_scan *scan,
			void (*fn)(void *ctx, const struct os_log_entry *e), void *ctx);

/* os_log_record_crc -- the checksum record `e` (header and data) must carry */
uint32_t os_log_record_crc(const struct os_log_entry *e);

/* os_log_has_data -- whether a record of `kind` carries its range's bytes */
static inline bool os_log_has_data(unsigned kind)
{
	return kind == OS_LOG_UNDO || kind == OS_LOG_REDO;
}

/* os_log_record_size -- bytes a record of `kind` for `len` bytes occupies */
static inline uint64_t os_log_record_size(unsigned kind, uint64_t len)
{
	return OS_ALIGN_UP(sizeof(struct os_log_entry) +
				   (os_log_has_data(kind) ? len : 0),
			   OS_CACHE_LINE);
}

/* os_rollback -- validate the log, then replay the transactions committed
 * by redo whose epoch store was lost and undo the records of the running
 * (or crashed) transaction; with `commit` the recovered state becomes the
 * committed epoch, else it stays pending (os_open_confirm /
 * os_open_retract). The bytes it overwrites go first to `save`
 * (os_diagnosis.undo_bytes) unless NULL. -ERR_CORRUPT (nothing written)
 * if the log fails os_log_scan. */
int os_rollback(struct objstore *os, bool commit, uint8_t *save);

/* os_log_replay_changes -- whether replaying the committed chains of a
 * scanned log would change a byte of the heap at base (log.c) */
bool os_log_replay_changes(const uint8_t *base, const struct os_superblock *sb,
			   const struct os_log_scan *scan);

/* os_root_problem -- the first thing wrong with a root block, NULL if none */
const char *os_root_problem(const struct os_root *r, const struct os_superblock *sb,
			    char *why, size_t why_size);

/* os_after_rollback -- the `len` bytes at heap offset `off` as recovery
 * (replay, then rollback) of a scanned log would leave them, in *out,
 * writing nothing */
void os_after_rollback(const uint8_t *base, const struct os_superblock *sb,
		       const struct os_log_scan *scan, uint64_t off, uint64_t len,
		       void *out);

#endif
