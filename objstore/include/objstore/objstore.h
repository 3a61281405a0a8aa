/*
 * objstore.h -- the persistent object heap: the public interface.
 *
 * objstore lays out, allocates, logs and checks every persistent byte of a
 * Ferrite heap (format.h). It is a portable C library: it knows nothing of
 * x86 or of the kernel, and reaches the outside only through the platform
 * table below. The kernel, the host tool objtool, the crash simulator and
 * the benchmarks each supply their own platform.
 *
 * Consistency: every change happens inside a transaction, made in one of
 * two ways. os_tx_set() hands objstore the new bytes of a range, which it
 * keeps aside and writes in place only once the transaction committed
 * (read back meanwhile with os_tx_read()); os_tx_log() saves a range's old
 * bytes in the persistent undo log (and makes them durable) before the
 * caller writes the range in place. os_tx_commit() writes the new bytes of
 * the transaction's ranges to the log with a commit record, all durable
 * after one wait, then the deferred bytes in place (os_commit_by_redo) --
 * or, for a large transaction, flushes what it wrote and advances the
 * superblock's committed epoch with one 8-byte store. Opening a heap
 * replays transactions committed by redo and rolls back one that did not
 * commit. The same log serves short transactions (objtool) and one long
 * transaction per checkpoint epoch (the kernel). A full log is -ERR_NOSPC,
 * which the caller answers by committing (or aborting) early.
 *
 * Errors: every action returns 0 (or a non-negative result) or a negative
 * code from <ferrite/errors.h>. One heap handle is used by one thread.
 */
#ifndef OBJSTORE_OBJSTORE_H
#define OBJSTORE_OBJSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ferrite/errors.h"
#include "objstore/format.h"

/* How objstore reaches the platform. `now_ns` may be NULL. */
struct os_platform {
	/* write back the cache lines of [p, p+len) towards persistence */
	void (*flush)(const void *p, size_t len);
	/* order earlier flushes and stores before later stores */
	void (*fence)(void);
	/* an objstore invariant broke: report and do not return */
	void (*fatal)(const char *message) __attribute__((noreturn));
	/* current time in nanoseconds, for the creation stamp */
	uint64_t (*now_ns)(void);
	/* CRC-32C by the CPU, equal to objstore's portable one; may be NULL */
	uint32_t (*crc32c)(uint32_t crc, const void *p, size_t len);
};

/* os_crc32c_reference -- objstore's portable CRC-32C of `len` bytes,
 * continuing from `crc`: what every checksum in a heap is, and what a
 * platform's crc32c must equal (the kernel's self-test checks its CPU's) */
uint32_t os_crc32c_reference(uint32_t crc, const void *p, size_t len);

/* What a transaction may keep aside for os_tx_set: OS_TX_SETS_MAX sets of
 * OS_TX_SET_BYTES bytes in all (a page and some metadata); a set past
 * either is made the undo way (os_tx_set). */
#define OS_TX_SETS_MAX 32u
#define OS_TX_SET_BYTES 4608u

/* One pending set: heap range [off, off+len), its new bytes at `at` in
 * the handle's set_bytes. */
struct os_tx_set {
	uint64_t off;
	uint32_t len;
	uint32_t at;
};

/*
 * An open heap. Volatile: it lives in the caller's memory and is rebuilt
 * by os_open() at every power-on. Fields are private to objstore.
 */
struct objstore {
	uint8_t *base;                 /* the heap's first byte */
	uint64_t size;
	const struct os_platform *pf;
	struct os_superblock *sb;
	struct os_root *root;
	struct os_page_desc *desc;
	uint32_t *stack;
	uint8_t *data;
	uint8_t *log;
	uint64_t log_size;
	uint64_t log_tail;             /* bytes of the log in use: chains committed by redo, then the running transaction's */
	uint64_t chain_start;          /* where the running transaction's chain starts */
	uint32_t pending_chains;       /* chains committed by redo since the log last started over */
	bool redo_commits;             /* small transactions may commit by redo (os_commit_by_redo) */
	uint64_t log_high_water;       /* largest log_tail seen since open */
	uint32_t last_record_size;     /* bytes of the last record appended */
	uint64_t epoch;                /* the last committed epoch; the superblock's lags it
					* while chains committed by redo wait in the log (tx.c) */
	uint64_t tx_epoch;             /* epoch + 1 while a transaction runs */
	int64_t tx_wall_ns;            /* the mtime this transaction stamps (os_tx_wall_ns) */
	bool tx_wall_read;             /* tx_wall_ns read from the clock in this transaction */
	bool in_tx;
	bool root_logged;              /* the root block is in this transaction's log */
	uint64_t log_kept;             /* log bytes no call may take (os_log_keep) */
	uint64_t rolled_back;          /* records undone by the last open or abort */
	uint64_t rolled_back_bytes;    /* bytes they restored */
	uint64_t replayed;             /* records of committed transactions the last open replayed */
	bool pending;                  /* os_open_tentative: the rollback awaits confirm or retract */
	uint64_t pending_epoch;        /* ... and the epoch its confirm stores */
	uint8_t *pending_save;         /* the bytes it overwrote, or NULL */
	/* the running transaction's pending sets (os_tx_set), in the order
	 * they were made; their bytes in set_bytes. Volatile: written in
	 * place at the commit, dropped by it and by an abort */
	struct os_tx_set sets[OS_TX_SETS_MAX];
	uint32_t set_count;
	uint32_t set_bytes_used;
	uint64_t set_reserve;          /* log bytes their records and the COMMIT record need */
	uint8_t set_bytes[OS_TX_SET_BYTES];
	/* the snapshot area (found by snapshot_area.c, the flags kept by
	 * snapshot_capture.c); snap is NULL in a heap without one */
	struct os_snap_area *snap;
	struct os_snap_node *snap_nodes;
	uint32_t *snap_map;            /* the head map */
	uint32_t *snap_stack;          /* the area's free stack */
	uint8_t *snap_data;            /* area data page 0 */
	uint64_t snap_logged_nodes;    /* bit i: node i is in this transaction's log */
	bool snap_area_logged;         /* the area header is in this transaction's log */
	bool snap_capture_ready;       /* ... and so is the head: captures log nothing more */
	bool snap_freed;               /* this transaction gave area pages back */
	bool snap_capture_off;         /* a restore is moving pages: nothing is captured */
};

/* Creation options; zero fields take defaults. */
struct os_create_opts {
	uint64_t log_size;             /* default: heap/16, clamped to [256 KiB, 64 MiB] */
	const uint8_t *heap_id;        /* 16 bytes; default: derived from time and address */
	uint64_t snap_size;            /* the snapshot area; default heap/8; OS_NO_SNAPSHOTS: none */
	uint64_t max_size;             /* 2.3: the largest size it may grow to; default
					* OS_GROW_DEFAULT x size; = size: no room */
	uint16_t layout_minor;         /* default OS_LAYOUT_MINOR; 1 or 2: the layout
					* of 2.1 or 2.2 (data pages before the area,
					* no room to grow), for tests of old heaps */
};
#define OS_NO_SNAPSHOTS UINT64_MAX

/* --- heaps ------------------------------------------------------------ */

/* os_create -- format [base, base+size) as an empty heap and open it */
int os_create(struct objstore *os, void *base, uint64_t size,
	      const struct os_platform *pf, const struct os_create_opts *opts);

/* os_open -- validate the superblock, roll back an unfinished transaction.
 * -ERR_INVAL: not a Ferrite heap (no magic); -ERR_VERSION: another layout
 * major version; -ERR_CORRUPT: a checksum or geometry check failed. Writes
 * nothing unless the superblock and root block are valid. */
int os_open(struct objstore *os, void *base, uint64_t size,
	    const struct os_platform *pf);

/* os_probe -- the same checks as os_open, writing nothing: 0 or its error */
int os_probe(const void *base, uint64_t size);

/* What os_diagnose found. */
#define OS_WHY_MAX 192
struct os_diagnosis {
	uint64_t records;              /* records of an unfinished transaction */
	uint64_t replay_records;       /* records of committed transactions to replay */
	uint64_t committed;            /* the last committed epoch: the superblock's, or that of
					* the last of those transactions (whose state recovery shows) */
	uint64_t undo_bytes;           /* bytes recovery overwrites: rollback and replay */
	char why[OS_WHY_MAX];          /* what is wrong, "" if nothing */
};

/* os_diagnose -- os_probe, saying what is wrong: the superblock (magic,
 * version, checksum, geometry), every record of an unfinished transaction
 * (os_open refuses a log with an intact but unsound record, naming it),
 * then the root block as the rollback would leave it. Messages start with
 * the structure ("superblock: ", "log: record N at log offset X ...",
 * "root block: "), the words objtool check uses. Writes nothing. */
int os_diagnose(const void *base, uint64_t size, struct os_diagnosis *d);

/* os_open_tentative -- os_open, but the rollback stays pending: its bytes
 * are restored, its records stay valid and the epoch does not advance, so
 * a power cut now rolls back again. Before restoring, the bytes it
 * overwrites are saved in `save` (d.undo_bytes of os_diagnose; NULL: no
 * retract possible). The caller then validates what it reads and ends the
 * rollback with os_open_confirm or os_open_retract; no transaction can
 * begin before. */
int os_open_tentative(struct objstore *os, void *base, uint64_t size,
		      const struct os_platform *pf, void *save);

/* os_open_confirm -- commit the pending rollback (nothing if none) */
void os_open_confirm(struct objstore *os);

/* os_open_retract -- copy back the bytes the pending rollback overwrote:
 * the image is byte for byte as before the open. -ERR_INVAL if they were
 * not saved (the rollback then stays pending, the image keeps the
 * rolled-back bytes, and the next open rolls back again). */
int os_open_retract(struct objstore *os);

/* --- transactions ----------------------------------------------------- */

/* os_tx_begin -- start a transaction; -ERR_BUSY if one is running */
int os_tx_begin(struct objstore *os);

/* os_tx_log -- save [p, p+len) (inside the heap) before changing it;
 * -ERR_NOSPC when the log is full (nothing was logged) */
int os_tx_log(struct objstore *os, const void *p, size_t len);

/* os_tx_set -- make [dst, dst+len) (inside the heap) hold the `len` bytes
 * at src when the transaction commits. With commits by redo on, the bytes
 * are kept aside and written in place only after the commit point (no
 * wait now; read them back with os_tx_read, not at dst); otherwise, or
 * past what a transaction keeps aside (OS_TX_SETS_MAX, OS_TX_SET_BYTES),
 * the range is logged (os_tx_log) and written at once. A later write of
 * the range must be another os_tx_set, or an os_tx_log first (which
 * writes the pending sets it overlaps in place, the undo way). -ERR_INVAL
 * outside a transaction, -ERR_FAULT outside the heap's loggable ranges,
 * -ERR_NOSPC when the log has no room for its record (nothing changed). */
int os_tx_set(struct objstore *os, void *dst, const void *src, size_t len);

/* os_tx_read -- copy [src, src+len) of the heap to dst as the running
 * transaction sees it: the bytes in place with its pending sets over them */
void os_tx_read(const struct objstore *os, void *dst, const void *src, size_t len);

/* os_tx_wall_ns -- the wall time this transaction stamps as the mtime of
 * what it changes (format.h): the platform's clock at the first call in
 * the transaction, 0 without a clock */
int64_t os_tx_wall_ns(struct objstore *os);

/* os_tx_commit -- make everything the transaction did durable, atomically */
int os_tx_commit(struct objstore *os);

/* os_commit_by_redo -- whether small transactions may commit by redo: one
 * wait for write-backs instead of two, for twice the log writes of their
 * logged ranges (format.h), and whether os_tx_set keeps its bytes aside
 * until the commit. On by default; a handle that wants every commit to
 * write the log only once (the kernel's) turns it off, and its sets are
 * logged writes. Recovery handles both kinds whatever this says. */
void os_commit_by_redo(struct objstore *os, bool on);

/* os_tx_abort -- undo everything the transaction did (its pending sets
 * are dropped: they were never written in place) */
int os_tx_abort(struct objstore *os);

/* os_settle -- retire the transactions committed by redo: their epoch
 * store made durable (two fences), the log empty, so that the image needs
 * no replay (a writer closing it). -ERR_BUSY while a transaction runs. */
int os_settle(struct objstore *os);

/* os_log_keep -- keep `bytes` of the log from every later call (until
 * changed): a call that would need them fails as on a full log
 * (-ERR_NOSPC, changing nothing). The kernel keeps what its DRAM cache's
 * next write-back needs, and gives it back for the write-back. Volatile. */
void os_log_keep(struct objstore *os, uint64_t bytes);

/* os_store_durable -- store `value` in the aligned 8-byte word of the heap at
 * `word`, outside every transaction, the way a commit stores the epoch:
 * flushed and fenced, durable when this returns, never rolled back. For a
 * word whose every value is valid at any moment (a cursor that only
 * grows); nothing may log a range covering it. 0, or -ERR_INVAL for a word
 * outside the heap (or in its superblock page) or not 8-byte aligned. */
int os_store_durable(struct objstore *os, uint64_t *word, uint64_t value);

/* os_tx_each_range -- call fn(ctx, off, len) with the heap range of every
 * record of the running transaction, UNDO and FRESH alike, in the order
 * they were logged, then of every pending set (ranges may overlap and
 * repeat); what the transaction may have written. A transaction has at most log_size / OS_CACHE_LINE
 * records (os_stats: each takes at least one cache line). -ERR_INVAL if
 * no transaction runs. */
int os_tx_each_range(const struct objstore *os,
		     void (*fn)(void *ctx, uint64_t off, uint64_t len), void *ctx);

/* os_epoch -- the committed epoch */
uint64_t os_epoch(const struct objstore *os);

/* --- the application's roots ------------------------------------------ */

/* os_app_root -- app_roots[i] of the root block: the id of an object the
 * application keeps its roots in (the kernel: i = OS_APP_ROOT_KERNEL), 0
 * if unset or i >= OS_APP_ROOTS */
uint64_t os_app_root(const struct objstore *os, unsigned i);

/* os_app_root_set -- set app_roots[i] (inside a transaction; logs the root
 * block): `value` is 0 or the id of a live object (-ERR_NOENT if not);
 * -ERR_RANGE for i >= OS_APP_ROOTS, -ERR_NOSPC log full */
int os_app_root_set(struct objstore *os, unsigned i, uint64_t value);

/* os_repair_counts -- set the root block's object and name counts to what
 * os_check counted (its OS_FIX_OBJECT_COUNT and OS_FIX_NAME_COUNT), inside
 * a transaction: for objtool check --repair, nothing else */
int os_repair_counts(struct objstore *os, uint64_t objects, uint64_t names);

/* --- allocation (inside a transaction) -------------------------------- */

/* os_alloc -- `size` bytes (1..OS_PAGE_SIZE): a small block of the
 * smallest class that fits, or a whole page above OS_LARGEST_SMALL. The
 * heap offset in *off. Contents are undefined; what the caller writes there
 * is flushed by the commit. -ERR_NOMEM when the heap is full. */
int os_alloc(struct objstore *os, uint64_t size, uint64_t *off);

/* os_free -- give back a block from os_alloc; a wild or double free is
 * refused with -ERR_INVAL (and changes nothing) */
int os_free(struct objstore *os, uint64_t off);

/* os_ptr -- the address of heap offset `off` (no check) */
static inline void *os_ptr(const struct objstore *os, uint64_t off)
{
	return os->base + off;
}

/* os_off -- the heap offset of an address inside the heap (no check) */
static inline uint64_t os_off(const struct objstore *os, const void *p)
{
	return (uint64_t)((const uint8_t *)p - os->base);
}

/* --- snapshots (snapshot*.c; the format: format.h) -------------------- */

/* What os_snap_list tells of a snapshot. */
struct os_snap_info {
	unsigned index;                /* its node */
	char name[OS_SNAP_NAME_MAX + 1]; /* "" for a hidden node */
	uint64_t epoch, time_ns;
	unsigned parent;               /* node + 1; 0: the live state (the head) */
	unsigned flags;                /* OS_SNAP_* */
	uint64_t pages;                /* pages its list holds (copies and list pages) */
	uint64_t held;                 /* pages removing it gives back now */
	bool head, boot;
};

/* What os_snap_usage tells of the area. */
struct os_snap_usage {
	uint64_t data_pages, free_pages;
	unsigned snapshots;            /* named ones */
	unsigned nodes;                /* in use, hidden ones included */
	unsigned keep;                 /* os_snap_area.keep */
	uint64_t dropped;              /* times the area filled and all were dropped */
	bool restoring;                /* a restore is in progress */
};

/* os_snap_available -- whether the heap has a snapshot area (layout 2.0) */
bool os_snap_available(const struct objstore *os);

/* os_snap_usage -- the area's figures (zeros without an area) */
void os_snap_usage(const struct objstore *os, struct os_snap_usage *out);

/* os_snap_list -- the snapshots in use (hidden nodes too), by node index;
 * how many there are (up to OS_SNAP_NODES); fills at most `max` */
unsigned os_snap_list(const struct objstore *os, struct os_snap_info *out, unsigned max);

/* os_snap_name_ok -- whether `name` may name a snapshot: 1..OS_SNAP_NAME_MAX
 * bytes of printable ASCII, no space */
bool os_snap_name_ok(const char *name);

/* os_snap_find -- the node of the snapshot named `name`, or -ERR_NOENT */
int os_snap_find(const struct objstore *os, const char *name);

/* os_snap_take -- keep the heap's state under `name` (1..OS_SNAP_NAME_MAX
 * bytes of printable ASCII but space): the state as of this call, so call
 * it last before os_tx_commit. O(1). -ERR_NOTSUP without an area,
 * -ERR_EXIST, -ERR_INVAL (name), -ERR_NOSPC (OS_SNAP_NODES in use, or log
 * full), -ERR_BUSY (a restore is in progress) */
int os_snap_take(struct objstore *os, const char *name, uint64_t time_ns,
		 unsigned flags);

/* os_snap_rm -- remove the name; its pages go back to the area by
 * os_snap_reclaim once no other snapshot needs them. Inside a transaction. */
int os_snap_rm(struct objstore *os, const char *name);

/* os_snap_reclaim -- give back the pages of removed snapshots, as far as
 * the log allows: 1 if more remains (commit, then call again), 0 when
 * done, or an error. Inside a transaction. */
int os_snap_reclaim(struct objstore *os);

/* os_snap_set_boot -- the snapshot every power-on starts from (NULL:
 * off), and os_snap_set_keep -- os_snap_area.keep. Inside a transaction. */
int os_snap_set_boot(struct objstore *os, const char *name);
int os_snap_set_keep(struct objstore *os, unsigned keep);

/* os_snap_restore -- make the live state the snapshot `name`'s, keeping
 * the state it replaces as a snapshot named `before` (taken at time_ns):
 * its own transactions, none may be running. Time grows with the pages
 * that differ between the two, never with the heap. A power cut leaves
 * the restore to os_snap_finish: the live state is a mixture until then.
 * -ERR_NOENT, -ERR_EXIST (before), -ERR_NOSPC (no node left for
 * `before`), -ERR_CORRUPT (a list on the way fails its checks: nothing
 * written), -ERR_BUSY (a transaction runs) */
int os_snap_restore(struct objstore *os, const char *name, const char *before,
		    uint64_t time_ns);

/* os_snap_unlogged -- the heap ranges capture writes without logging (the
 * head map, the area's data pages): how many, each [off[i], off[i]+len[i]).
 * Their bytes mean nothing in the committed state until a commit makes
 * them part of it (format.h), so a log checker must let them change. */
unsigned os_snap_unlogged(const struct objstore *os, uint64_t off[2], uint64_t len[2]);

/* os_snap_materialize -- the snapshot `name`'s state written into `copy`,
 * a copy of the whole heap (os->size bytes) the caller made: open `copy`
 * as a heap to read the snapshot's objects and names (objtool --snapshot).
 * Reads `os` only; time grows with what changed since the snapshot.
 * -ERR_NOENT, -ERR_CORRUPT (a list on the way fails its checks) */
int os_snap_materialize(const struct objstore *os, const char *name, uint8_t *copy);

/* os_snap_restoring -- whether a restore is in progress (cut short) */
bool os_snap_restoring(const struct objstore *os);

/* os_snap_finish -- finish a restore in progress (0 if none) */
int os_snap_finish(struct objstore *os);

/* --- resizing (layout 2.3, objstore/resize.c) -------------------------- */

/* Why a resize is refused (os_resize_plan). */
enum os_resize_refusal {
	OS_RESIZE_OK = 0,
	OS_RESIZE_OLD_LAYOUT,          /* made before layout 2.3: no room, data pages not last */
	OS_RESIZE_BUSY,                /* a transaction runs, or a rollback is pending */
	OS_RESIZE_TOO_LARGE,           /* past max_size: the descriptors' room */
	OS_RESIZE_TOO_SMALL,           /* fewer than 16 data pages, or below OS_MIN_HEAP_SIZE */
	OS_RESIZE_TAIL_USED,           /* shrink: page first_used, past the new end, was handed out */
	OS_RESIZE_SNAPSHOTS,           /* shrink: snapshots exist (their states may use the pages) */
};

/* What a resize makes, or why not. */
struct os_resize_plan {
	enum os_resize_refusal refusal;
	uint64_t heap_size, page_count;         /* the heap now */
	uint64_t new_size, new_page_count;      /* the heap it makes: whole data pages that fit */
	uint64_t max_size;             /* the largest heap this one can grow to */
	uint64_t min_size;             /* the smallest it can shrink to: its formatted pages */
	uint64_t first_used;           /* TAIL_USED: the first page past the new end handed out */
	bool first_used_in_use;        /* ... in use (else free, on the free-page stack) */
	unsigned snapshots;            /* SNAPSHOTS: named snapshots */
};

/* os_resize_plan -- what a resize to an image of `size` bytes would do,
 * or why not (p->refusal); writes nothing. 0, -ERR_NOTSUP (layout before
 * 2.3), -ERR_NOSPC (too large, too small), -ERR_BUSY (pages past the new
 * end handed out, snapshots on a shrink, a transaction running) */
int os_resize_plan(const struct objstore *os, uint64_t size, struct os_resize_plan *p);

/* os_resize -- grow or shrink the heap to the data pages that fit in
 * `size` bytes, committed by the epoch store alone, O(1): only the
 * superblock changes. Outside a transaction. The caller makes the image
 * that large first (grow), or smaller after (shrink). Errors as the plan. */
int os_resize(struct objstore *os, uint64_t size, struct os_resize_plan *p);

/* os_max_heap_size -- the largest heap `sb` can grow to (its own size
 * before layout 2.3) */
uint64_t os_max_heap_size(const struct os_superblock *sb);

/* os_sb_effective -- the superblock of the heap at `base`: page 0's, or,
 * after a resize whose copy a cut interrupted, the committed geometry
 * (in `buf`); for readers that must not write (os_settle_superblock at
 * open writes it) */
const struct os_superblock *os_sb_effective(const void *base, uint64_t size,
					    struct os_superblock *buf);

/* --- statistics ------------------------------------------------------- */

struct os_stats {
	uint64_t heap_size, page_count, pages_free;
	uint64_t page_capacity;        /* room for data pages (2.3; page_count before) */
	uint64_t max_size;             /* the largest heap it can grow to */
	uint64_t objects, names;
	uint64_t epoch;
	uint64_t log_size, log_used, log_high_water;
	uint64_t log_free;             /* what callers may still log (log_size - log_used - a reserve) */
	uint64_t rolled_back;          /* records undone by the last open or abort */
	uint64_t rolled_back_bytes;    /* bytes they restored */
	uint64_t replayed;             /* records of committed transactions the last open replayed */
	bool pending;                  /* os_open_tentative: the rollback awaits confirm or retract */
	uint64_t pending_epoch;        /* ... and the epoch its confirm stores */
	uint8_t *pending_save;         /* the bytes it overwrote, or NULL */
};

/* os_stats -- counts from the root block and the running transaction */
void os_stats(const struct objstore *os, struct os_stats *out);

/* os_log_free -- os_stats' log_free alone, for callers that ask on every
 * system call: what callers may still log */
uint64_t os_log_free(const struct objstore *os);

#endif
