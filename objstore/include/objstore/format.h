/*
 * format.h -- the on-NVM format of a Ferrite heap. Every persistent byte
 * Ferrite writes is laid out here; docs/format.md explains it in prose.
 *
 * Rules (checked by os_check and, for the superblock, at every open):
 *  - all integers are little-endian, fixed width, naturally aligned;
 *  - persistent structures refer to each other by heap offset (from the
 *    first byte of the heap) or page number, never by pointer; 0 is null
 *    (offset 0 is the superblock, never an object);
 *  - reserved fields are zero;
 *  - every header carries a CRC32C (objstore/crc32c.h) of its other bytes;
 *  - the layout major version changes on any incompatible change; a heap of
 *    another major version is never touched. Minor versions only add.
 *
 * Heap geometry (all regions page aligned), layout 2.3 and later:
 *
 *   page 0            superblock (struct os_superblock); the spare
 *                     superblock at OS_SB_SPARE_OFFSET while a resize runs
 *   page 1            root block (struct os_root)
 *   log_offset        undo log: log_size bytes of struct os_log_entry records
 *   desc_offset       page descriptors: page_capacity x struct os_page_desc
 *   stack_offset      free-page stack: page_capacity x uint32_t page numbers
 *   snap_offset       the snapshot area: snap_size bytes (struct
 *                     os_snap_area, below), or none
 *   data_offset       the data pages: page_count x OS_PAGE_SIZE, to the end
 *                     of the heap
 *
 * Everything up to data_offset is fixed at creation; page_count (and with
 * it heap_size) changes by a resize (objstore/resize.c): the descriptors
 * and the stack have room for page_capacity pages, and the data pages are
 * last, so growing moves nothing. Before 2.3 (no page_capacity: it reads
 * as page_count) the data pages came before the snapshot area, which ran
 * to the end of the heap:
 *
 *   ... stack_offset  free-page stack: page_count x uint32_t
 *   data_offset       the data pages: page_count x OS_PAGE_SIZE
 *   snap_offset       the snapshot area (2.0) to the end of the heap
 *
 * A "page number" p names the data page at data_offset + p * OS_PAGE_SIZE.
 */
#ifndef OBJSTORE_FORMAT_H
#define OBJSTORE_FORMAT_H

#include <stdint.h>

#define OS_PAGE_SIZE 4096u
#define OS_CACHE_LINE 64u

#define OS_MAGIC "FERRHEAP"     /* 8 bytes, no NUL */
#define OS_LAYOUT_MAJOR 2
#define OS_LAYOUT_MINOR 3
/* The first layout whose heaps can grow (page_capacity, the data pages
 * last, the spare superblock). */
#define OS_LAYOUT_RESIZE_MINOR 3
/* The oldest major version this code still reads: a 1.x heap opens and
 * runs unchanged, without a snapshot area (its snap_size is 0). */
#define OS_LAYOUT_OLDEST_MAJOR 1

/* The smallest heap: metadata plus a useful number of data pages. */
#define OS_MIN_HEAP_SIZE (4u << 20)

/*
 * The superblock, page 0. Everything up to `crc` is covered by `crc` and
 * written at creation, and again only by a resize (2.3), which changes
 * heap_size, page_count and resize_epoch. `committed_epoch` lives in its
 * own cache line and changes only by one aligned 8-byte store: that store
 * is the commit of a transaction (objstore/tx.c).
 *
 * page_capacity (2.3; zero before, where it reads as page_count,
 * os_page_room): the data pages the descriptors and the free-page stack
 * have room for. page_count <= page_capacity; a heap grows up to
 * data_offset + page_capacity * OS_PAGE_SIZE bytes. Room past page_count
 * is never read (it lies beyond the never-used tail), so reserving it
 * costs no time, only its bytes: 36 a page.
 *
 * resize_epoch (2.3): the epoch whose commit gave the heap this geometry,
 * 0 for the creation's. Invariant: resize_epoch <= committed_epoch.
 *
 * The spare superblock (2.3), page 0 at OS_SB_SPARE_OFFSET: a resize
 * writes the new superblock there (resize_epoch = the next epoch), makes
 * it durable, commits with the epoch store, then copies it over the
 * superblock and clears the spare's magic. Open: a spare with the heap's
 * id and a resize_epoch <= committed_epoch is the heap's superblock (the
 * copy may have been cut), copied over it again; any other spare is a
 * resize that did not commit, and is cleared (os_settle_superblock). So a
 * cut leaves the old geometry or the new, never a mix.
 */
#define OS_SB_SPARE_OFFSET 2048u
struct os_superblock {
	char magic[8];              /* OS_MAGIC */
	uint16_t layout_major;      /* OS_LAYOUT_MAJOR */
	uint16_t layout_minor;      /* OS_LAYOUT_MINOR */
	uint32_t header_size;       /* sizeof(struct os_superblock) */
	uint8_t heap_id[16];        /* random, fixed at creation */
	uint64_t heap_size;         /* bytes, the whole image */
	uint64_t root_offset;       /* the root block: OS_PAGE_SIZE */
	uint64_t log_offset;        /* the undo log */
	uint64_t log_size;          /* bytes, a multiple of OS_PAGE_SIZE */
	uint64_t desc_offset;       /* page descriptors */
	uint64_t stack_offset;      /* free-page stack */
	uint64_t data_offset;       /* data page 0 */
	uint64_t page_count;        /* data pages */
	uint64_t create_time;       /* platform time at creation, ns (0: unknown) */
	uint64_t snap_offset;       /* the snapshot area (2.0); 0 in a 1.x heap */
	uint64_t snap_size;         /* its bytes; 0: none */
	uint64_t page_capacity;     /* 2.3: data pages the descriptors have room for */
	uint64_t resize_epoch;      /* 2.3: the epoch of the last resize, 0: none */
	uint64_t reserved[14];      /* zero */
	uint32_t flags;             /* zero: no flags defined in 1.0 */
	uint32_t crc;               /* CRC32C of all bytes above */
	/* --- not covered by crc --- */
	uint64_t committed_epoch __attribute__((aligned(OS_CACHE_LINE)));
	uint8_t epoch_line_pad[OS_CACHE_LINE - 8];
};
_Static_assert(sizeof(struct os_superblock) == 320, "superblock size");
_Static_assert(__builtin_offsetof(struct os_superblock, crc) == 252, "crc position");
_Static_assert(__builtin_offsetof(struct os_superblock, committed_epoch) == 256,
	       "the epoch has a cache line of its own");
_Static_assert(__builtin_offsetof(struct os_superblock, page_capacity) == 120,
	       "page_capacity takes the first reserved word");
_Static_assert(__builtin_offsetof(struct os_superblock, resize_epoch) == 128,
	       "resize_epoch the second");
_Static_assert(OS_SB_SPARE_OFFSET >= sizeof(struct os_superblock) &&
	       OS_SB_SPARE_OFFSET + sizeof(struct os_superblock) <= OS_PAGE_SIZE &&
	       OS_SB_SPARE_OFFSET % OS_CACHE_LINE == 0,
	       "the spare superblock lies in page 0, after the superblock, aligned");

/* The room os_create reserves by default: descriptors and stack slots for
 * a heap OS_GROW_DEFAULT times the size it is made at. */
#define OS_GROW_DEFAULT 4u

/* Small-block size classes: 64 B ... 2 KiB, each a slab of one page. */
#define OS_SIZE_CLASSES 6
#define OS_SMALLEST_CLASS_SHIFT 6   /* 64 B */
#define OS_LARGEST_SMALL (2048u)

/*
 * The root block, page 1: the mutable roots of every structure. Changed
 * only inside a transaction (logged first); `crc` is recomputed by the
 * commit whenever the transaction touched the root block.
 *
 * app_roots (layout 1.1; zero in every 1.0 heap): ids of objects the
 * application that owns the heap keeps its own roots in, where it finds
 * them at power-on. The kernel: app_roots[OS_APP_ROOT_KERNEL] is the id of
 * its OS_TYPE_KERNEL root object; app_roots[OS_APP_ROOT_MACHINE] the id
 * of an OS_TYPE_KERNEL object remembering the machine the heap last ran
 * on (its clock rates: kernel/core/time.c); app_roots[OS_APP_ROOT_RESERVE]
 * the id of an OS_TYPE_ANON object whose pages only a safe power-on gives
 * back (kernel/epoch/rescue.c); app_roots[OS_APP_ROOT_LINK] the id of the
 * OS_TYPE_KERNEL object a handle to which carries the host link's powers
 * (kernel/hostlink/hostlink.c). Invariant: a non-zero app root names a live
 * object (os_app_root_set and os_check).
 *
 * pages_unformatted (layout 2.1; zero in every older heap, whose pages were
 * all formatted at creation): the never-used tail. Pages from
 * os_formatted_pages = os_page_room - pages_unformatted up to page_count
 * have never been handed out: they are free by definition; their
 * descriptors and free-stack slots mean nothing (creation writes none of
 * them, so it takes the same time at any heap size) and nothing may read
 * them. The count runs to the end of the descriptors' room (page_capacity,
 * 2.3; page_count before), not to page_count, so that a resize, which
 * changes page_count alone, leaves the root block -- and every snapshot's
 * copy of it -- meaning the same formatted pages. The allocator takes a
 * tail page, the first, only when the free-page stack is empty, writing
 * its descriptor then. Invariant: pages_unformatted <= os_page_room,
 * free_top <= os_formatted_pages <= page_count, and every page number on
 * the stack, slab link and page reached from a root lies below
 * os_formatted_pages.
 */
#define OS_APP_ROOTS 8
#define OS_APP_ROOT_KERNEL 0
#define OS_APP_ROOT_MACHINE 1
#define OS_APP_ROOT_RESERVE 2
#define OS_APP_ROOT_LINK 3
struct os_root {
	uint64_t next_object_id;    /* ids start at 1 and are never reused */
	uint64_t object_count;      /* live objects */
	uint64_t index_root;        /* id index: offset of its top page, 0 if empty */
	uint32_t index_depth;       /* levels of the id index (0 if empty) */
	uint32_t reserved0;         /* zero */
	uint64_t catalogue_root;    /* catalogue B+tree: offset of the root node, 0 if empty */
	uint64_t catalogue_count;   /* names in the catalogue */
	uint64_t free_top;          /* entries in use in the free-page stack */
	uint64_t slab_partial[OS_SIZE_CLASSES]; /* first slab with a free slot, page+1; 0 none */
	uint64_t app_roots[OS_APP_ROOTS]; /* object ids owned by the application, 0: none (1.1) */
	uint64_t pages_unformatted; /* never handed out, at the end of the data pages (2.1) */
	uint64_t reserved[9];       /* zero */
	uint32_t reserved1;         /* zero */
	uint32_t crc;               /* CRC32C of all bytes above */
};
_Static_assert(sizeof(struct os_root) == 256, "root block size");

/* os_page_room -- data pages the descriptors and the free-page stack
 * have room for: page_capacity (2.3), page_count before */
static inline uint64_t os_page_room(const struct os_superblock *sb)
{
	return sb->page_capacity ? sb->page_capacity : sb->page_count;
}

/* os_formatted_pages -- data pages below the never-used tail: the only
 * ones whose descriptors and stack slots mean anything; the caller has
 * checked the root block's invariant (os_open does) */
static inline uint64_t os_formatted_pages(const struct os_superblock *sb,
					  const struct os_root *r)
{
	return os_page_room(sb) - r->pages_unformatted;
}

/* What a data page is used for. */
enum os_page_kind {
	OS_PAGE_FREE = 0,           /* on the free-page stack (below the unformatted pages) */
	OS_PAGE_SLAB = 1,           /* small blocks of one size class */
	OS_PAGE_WHOLE = 2,          /* one allocation of a whole page */
};

/*
 * A page descriptor: one per data page, at desc_offset + 32 * page.
 * For a slab: slot i (of OS_PAGE_SIZE >> (class + 6)) is in use when bit i
 * of slot_map is set, `used` counts them, and next/prev (page + 1, 0 for
 * none) link the slabs of the class that have a free slot. For a whole
 * page used as an index page, `used` counts its non-zero entries.
 *
 * free_epoch: the low 32 bits of the epoch of the last transaction that
 * freed this page or a block of this slab. A block freed and allocated
 * again in the same transaction still holds bytes that rollback must
 * restore (the old owner comes back), so the allocator logs its old
 * contents instead of treating it as fresh. Comparing 32 bits can only err
 * towards logging too much.
 */
struct os_page_desc {
	uint8_t kind;               /* enum os_page_kind */
	uint8_t size_class;         /* slab: 0 = 64 B ... 5 = 2 KiB; else 0 */
	uint16_t used;              /* slab: slots in use; index page: entries; else 0 */
	uint32_t next;              /* slab on the partial list: next page + 1 */
	uint32_t prev;              /* slab on the partial list: previous page + 1 */
	uint32_t reserved;          /* zero */
	uint64_t slot_map;          /* slab: slots in use */
	uint32_t free_epoch;        /* low 32 bits of the epoch that last freed here */
	uint32_t crc;               /* CRC32C of the 28 bytes above */
};
_Static_assert(sizeof(struct os_page_desc) == 32, "page descriptor size");

/*
 * A log record: this header, then (for OS_LOG_UNDO and OS_LOG_REDO) the
 * `length` bytes of the range, padded with zeros to a multiple of
 * OS_CACHE_LINE. A transaction's records form a chain, written back to
 * back from where the chain starts; rollback walks them backwards through
 * prev_size (0 in a chain's first record).
 *
 * A transaction commits in one of two ways (objstore/tx.c):
 *  - by the epoch store: its chain starts at the log's start, and storing
 *    committed_epoch = its epoch (one 8-byte store) commits it and empties
 *    the log;
 *  - by redo (2.1, small transactions): its chain ends with a REDO record
 *    (the new bytes) of every range it logged or allocated and a COMMIT
 *    record, all made durable by one fence. The epoch store follows
 *    without a fence of its own; until it is durable, recovery replays the
 *    chain. The next transaction's chain starts right after it.
 *
 * Invariant: the log from its start holds chains of consecutive epochs
 * (at most OS_LOG_MAX_CHAINS of them); every chain but the last ends with
 * a COMMIT record. Recovery walks them: a chain whose epoch is at most
 * committed_epoch is done; a later one that ends with COMMIT is replayed
 * (its REDO records, in order), and the first later one that does not is
 * the unfinished transaction, rolled back (its UNDO records, newest
 * first). A chain only counts from a record that has a good crc and the
 * chain's epoch: an epoch store therefore ends every chain up to it.
 */
enum os_log_kind {
	OS_LOG_UNDO = 1,            /* old contents follow; restored on rollback */
	OS_LOG_FRESH = 2,           /* newly allocated range: only flushed at commit */
	OS_LOG_REDO = 3,            /* new contents follow; replayed by recovery (2.1) */
	OS_LOG_COMMIT = 4,          /* no range: the chain it ends committed (2.1) */
};

/* Chains the log may hold from its start (2.1): up to 15 committed by
 * redo and one more. A transaction that would start the 16th makes the
 * epoch store durable first and starts the log over. */
#define OS_LOG_MAX_CHAINS 16u

/* Bytes of ranges a chain committed by redo logs at most (2.1): recovery
 * stops reading a chain its epoch store made durable once its ranges pass
 * this, for no chain can follow one that committed by the epoch store. */
#define OS_LOG_REDO_MAX 1024u

struct os_log_entry {
	uint64_t offset;            /* heap offset of the range */
	uint32_t length;            /* bytes in the range */
	uint16_t kind;              /* enum os_log_kind */
	uint16_t reserved;          /* zero */
	uint64_t epoch;             /* the epoch this record belongs to */
	uint32_t prev_size;         /* bytes of the previous record (0: first), to walk back */
	uint32_t crc;               /* CRC32C of the header (crc = 0) and the data */
};
_Static_assert(sizeof(struct os_log_entry) == 32, "log record header size");

/* Object types. Values are part of the format. */
enum os_obj_type {
	OS_TYPE_BLOB = 1,           /* bytes, mappable */
	OS_TYPE_CODE = 2,           /* an ELF image, executed in place */
	OS_TYPE_PROCESS = 3,
	OS_TYPE_THREAD = 4,
	OS_TYPE_ASPACE = 5,
	OS_TYPE_CHANNEL = 6,
	OS_TYPE_CATALOGUE = 7,
	OS_TYPE_ANON = 8,           /* a process's private memory, paged; never opened by id (1.1) */
	OS_TYPE_HANDLES = 9,        /* a process's handle table (1.1) */
	OS_TYPE_KERNEL = 10,        /* the kernel's root object, app_roots[0] (1.1) */
	OS_TYPE_MAX = 10,
};

/*
 * An object header: one 64-byte small block per object, found through the
 * id index. The object's bytes live either in one small block
 * (OS_PLACE_SMALL: kernel objects up to OS_LARGEST_SMALL bytes, fixed
 * size) or in whole data pages (OS_PLACE_PAGED: blobs, code and anonymous
 * memory, mappable and page aligned) reached through a radix tree of index
 * pages:
 *   depth 0: `data` is the one data page (or 0 when size is 0);
 *   depth d: `data` is an index page of OS_RADIX_FANOUT offsets of
 *            depth d-1 subtrees; page i of the object is found by the
 *            base-512 digits of i. Missing pages (0) read as zeros.
 */
enum os_placement {
	OS_PLACE_SMALL = 1,
	OS_PLACE_PAGED = 2,
};

struct os_obj_header {
	uint64_t id;                /* never reused */
	uint16_t type;              /* enum os_obj_type */
	uint16_t flags;             /* zero: none defined in 1.0 */
	uint32_t refcount;          /* names + kernel references; 0 = being deleted */
	uint64_t size;              /* bytes */
	uint64_t data;              /* see above */
	uint8_t depth;              /* paged: radix depth */
	uint8_t placement;          /* enum os_placement */
	uint16_t mode;              /* 2.2: OS_MODE_SET | permission bits, or 0 */
	uint32_t reserved1;         /* zero */
	uint64_t modified_epoch;    /* epoch of the last change to size or contents */
	int64_t mtime_ns;           /* 2.2: wall time of that change, or 0 */
	uint32_t reserved3;         /* zero */
	uint32_t crc;               /* CRC32C of the 60 bytes above */
};
_Static_assert(sizeof(struct os_obj_header) == 64, "object header size");
_Static_assert(__builtin_offsetof(struct os_obj_header, mode) == 34, "object header mode");
_Static_assert(__builtin_offsetof(struct os_obj_header, mtime_ns) == 48, "object header mtime");

/*
 * A paged object's mode and time (2.2, in what were reserved0 and
 * reserved2; a small object keeps both 0):
 *   mode      0 until a mode is set (chmod): readers then show their
 *             default (0644, 0755 for code); else OS_MODE_SET with the
 *             permission bits (OS_MODE_BITS: rwx for three classes,
 *             setuid, setgid, sticky) in the low 12 bits, nothing else.
 *   mtime_ns  nanoseconds since 1970-01-01 00:00 UTC (negative: before),
 *             by the platform's clock: every change to the size or the
 *             contents (where modified_epoch is set) stores the wall time
 *             of the transaction's first such change, read once per
 *             transaction, so a kernel epoch stamps one time; a utimes
 *             call stores any time. 0 until stamped, or by a platform
 *             without a clock.
 * Both change only with the header, logged like every header change.
 */
#define OS_MODE_SET 0x8000u
#define OS_MODE_BITS 07777u

/*
 * Index pages (the id index and object data radix trees): a whole data
 * page of OS_RADIX_FANOUT little-endian uint64_t offsets, 0 for none. The
 * page descriptor's `used` counts the non-zero entries, so an emptied page
 * is freed at once. The id index maps id -> object header offset with the
 * base-512 digits of the id, most significant first, over
 * os_root.index_depth levels.
 */
#define OS_RADIX_FANOUT 512u
#define OS_RADIX_SHIFT 9u
#define OS_ID_MAX_DEPTH 7           /* index levels at most: ids below OS_ID_LIMIT */
#define OS_ID_LIMIT (1ull << 63)    /* next_object_id never exceeds it */

/* --- the catalogue ------------------------------------------------------ */

/*
 * The catalogue (objstore/catalogue.c): a B+-tree from names (1..255
 * bytes, no NUL; ordered by memcmp, then shorter first) to object ids,
 * rooted at os_root.catalogue_root. Every node is one whole data page:
 *
 *   0     struct os_cat_node      32-byte header
 *   32    slot[0 .. count)        one uint64_t per entry, in key order
 *         ... gap ...             free
 *   heap_start .. 4096            the entry heap: struct os_cat_entry
 *                                 records in any order, plus `dead` bytes
 *                                 of removed entries (reclaimed when the
 *                                 node is rebuilt)
 *
 * A slot is  hint << 24 | check << 12 | offset:
 *   offset (bits 0-11)   where the entry starts in the node;
 *   check  (bits 12-23)  the low 12 bits of the CRC32C of the slot's 8
 *                        bytes with the check bits zero (every 1- and
 *                        2-bit error in a slot is caught);
 *   hint   (bits 24-63)  the 5 key bytes after the node's common prefix
 *                        (key[prefix_len .. prefix_len+5), zero-padded),
 *                        big-endian, so slots order like their keys.
 *
 * A leaf entry maps name -> object id; an internal node's entry i holds
 * the separator key_i and the child with keys in [key_i, key_i+1), and
 * `first` holds the child with keys below key_0. Every node holds
 * `count` >= 1 entries; a non-root node holds at least OS_CAT_MIN_FILL
 * live bytes (8 per slot plus its entries); a node's `level` is its height
 * above the leaves (0), so all leaves are at the same depth.
 *
 * Checksums: the header's crc covers its 28 other bytes, each slot carries
 * its check, each entry its CRC32C (of value, len and name: it does not
 * depend on where the entry lies, so entries move between nodes as they
 * are). Together they cover every byte of a node that means anything; the
 * gap and dead bytes mean nothing.
 */
#define OS_CAT_MAGIC 0x4e544143u   /* "CATN" */
#define OS_CAT_MAX_HEIGHT 16       /* levels: enough for 2^32 leaves at the minimum fanout */
#define OS_CAT_MIN_FILL 1024u      /* live bytes of a non-root node: at least this */
#define OS_CAT_SLOT_SIZE 8u
#define OS_CAT_HINT_BYTES 5u
#define OS_CAT_SLOT_OFFSET(s) ((uint32_t)((s) & 0xfffu))
#define OS_CAT_SLOT_CHECK(s) ((uint32_t)(((s) >> 12) & 0xfffu))
#define OS_CAT_SLOT_HINT(s) ((s) >> 24)

struct os_cat_node {
	uint32_t magic;             /* OS_CAT_MAGIC */
	uint8_t level;              /* 0: a leaf; else height above the leaves */
	uint8_t prefix_len;         /* bytes every key of this node begins with */
	uint16_t count;             /* entries (and slots), >= 1 */
	uint16_t heap_start;        /* entries lie in [heap_start, OS_PAGE_SIZE) */
	uint16_t dead;              /* bytes of removed entries in the entry heap */
	uint32_t reserved0;         /* zero */
	uint64_t first;             /* internal: offset of the child below key_0; leaf: 0 */
	uint32_t reserved1;         /* zero */
	uint32_t crc;               /* CRC32C of the 28 bytes above */
	uint64_t slot[];            /* count slots, see above */
};
_Static_assert(sizeof(struct os_cat_node) == 32, "catalogue node header size");
_Static_assert(__builtin_offsetof(struct os_cat_node, first) == 16, "first is aligned");
_Static_assert(__builtin_offsetof(struct os_cat_node, slot) % 8 == 0, "slots are aligned");
_Static_assert(OS_PAGE_SIZE <= 4096, "slot offsets have 12 bits");

/* An entry: unaligned, anywhere in the entry heap. */
struct os_cat_entry {
	uint32_t crc;               /* CRC32C of the 9 + len bytes that follow */
	uint64_t value;             /* leaf: object id; internal: child node offset */
	uint8_t len;                /* name bytes, 1..255 */
	char name[];                /* the name, no NUL, not terminated */
} __attribute__((packed));
_Static_assert(sizeof(struct os_cat_entry) == 13, "catalogue entry header size");

/* --- the snapshot area (layout 2.0) ------------------------------------ */

/*
 * Snapshots (objstore/snapshot.c, docs/snapshots.md): whole-heap states
 * kept by copy-before-write. The *live* state is the heap outside this
 * area. Each snapshot is a node holding a *list* of (heap page, area page)
 * entries: the snapshot's bytes of every page where it may differ from
 * its parent -- another node, or, for the one node whose parent is 0 (the
 * *head*), the live state. A snapshot's state is therefore the live state
 * with the lists on the path from the head down to it copied over it, the
 * head's first and its own last.
 *
 * Capture: before the first change since the head was taken to a live page
 * P of the capture domain (the heap's pages outside the area, except the
 * superblock and the undo log: before 2.3, those below snap_offset), P's bytes are copied to a free area page
 * and the entry appended to the head's list. Capture happens before every
 * range a transaction records is written (UNDO or FRESH: every byte a
 * transaction changes lies in one, the log checker's rule) and when a page
 * or block is freed. Invariant (I1): every byte of a live page absent from
 * the head's list that is in use in the head's state holds the head's
 * value. Proof: such a byte was never freed since the head (a free
 * captures its page), so it is still in use, and every change to a byte in
 * use is recorded UNDO, so captured first; a rollback puts back what
 * UNDO records saved. (A FRESH write changes only free bytes, unlogged,
 * and a rollback leaves them changed: that is why the free must capture.)
 * A page free in the head and written FRESH is captured too: the live
 * state may become a node itself (the one a restore keeps), which needs
 * those bytes.
 *
 * Area geometry, all fixed by snap_size and snap_offset (checked):
 *   area page 0          struct os_snap_area
 *   area pages 1-2       the node table: OS_SNAP_NODES x struct os_snap_node
 *   map_pages            the head map: uint32_t per heap page it covers
 *                        (below snap_offset before 2.3; up to the largest
 *                        heap, data_offset / OS_PAGE_SIZE + page_capacity,
 *                        from 2.3: os_snap_covered_pages)
 *   stack_pages          free stack: uint32_t per area data page
 *   data_pages           area data pages: captured copies, list pages
 * An "area page" number a names area data page a; a list stores a + 1
 * (0: none).
 *
 * The head map is a sparse set over the head's list: page P is in it iff
 * map[P] = i < head.count and entry i of the head is for P. No value of
 * map[P] is ever wrong to hold, so it is written unlogged (flushed before
 * the commit) and never cleared: a new head simply has count 0.
 *
 * Lists: a node's entries live in list pages of OS_SNAP_ENTRIES_PER_PAGE
 * entries, found through a directory page of OS_SNAP_DIR_SLOTS list-page
 * numbers (+1). Entries past `count`, list pages past those `count`
 * needs, and area pages above high_water or on the free stack mean
 * nothing: capture writes them unlogged (flushed before the commit),
 * because a transaction that does not commit leaves them meaningless.
 *
 * Crash consistency: the header and the nodes change only inside
 * transactions, logged first (capture logs the header and the head once
 * per transaction, from a reserve no caller can take). A restore runs as
 * many transactions, its progress in the header: a power-on finishes it
 * before the live state is read.
 */
#define OS_SNAP_MAGIC "FERRSNAP"   /* 8 bytes, no NUL */
#define OS_SNAP_NODES 64
#define OS_SNAP_NAME_MAX 39        /* bytes of a name, without its NUL */
#define OS_SNAP_ENTRIES_PER_PAGE 512u
#define OS_SNAP_DIR_SLOTS 1024u
#define OS_SNAP_MAX_ENTRIES (OS_SNAP_ENTRIES_PER_PAGE * OS_SNAP_DIR_SLOTS)
#define OS_SNAP_TABLE_PAGES 2u

struct os_snap_area {
	char magic[8];              /* OS_SNAP_MAGIC */
	uint32_t map_pages;         /* geometry, recomputed by the checker */
	uint32_t stack_pages;
	uint32_t data_pages;
	uint32_t table_gen;         /* a node is in use iff its gen equals this */
	uint32_t free_top;          /* entries in use on the free stack */
	uint32_t high_water;        /* area pages ever handed out; those above are free */
	uint16_t head;              /* node index + 1 of the head, 0: no snapshot */
	uint16_t boot;              /* node + 1 every power-on starts from, 0: off */
	uint32_t keep;              /* power-on snapshots kept (the kernel's policy) */
	uint32_t dropped;           /* times the area filled and every snapshot was dropped */
	uint16_t restore_target;    /* node + 1 a restore in progress goes to, 0: none */
	uint16_t restore_before;    /* node + 1 the replaced live state becomes */
	uint32_t restore_step;      /* its position on the path from the head */
	uint32_t restore_entry;     /* and in that node's list */
	uint64_t reserved[16];      /* zero */
	uint32_t reserved1;         /* zero */
	uint32_t crc;               /* CRC32C of all bytes above */
};
_Static_assert(sizeof(struct os_snap_area) == 192, "snapshot area header size");

/* Node flags. */
#define OS_SNAP_HIDDEN 1u          /* removed by name, kept while others need its list */
#define OS_SNAP_AUTO 2u            /* taken by the system (power-on, before a restore) */

struct os_snap_node {
	char name[OS_SNAP_NAME_MAX + 1]; /* NUL-terminated and NUL-padded */
	uint64_t epoch;             /* the committed epoch whose state it holds */
	uint64_t time_ns;           /* wall clock when taken (0: unknown) */
	uint32_t gen;               /* os_snap_area.table_gen while in use */
	uint16_t parent;            /* node + 1 its list is relative to; 0: the live state */
	uint16_t flags;             /* OS_SNAP_* */
	uint32_t count;             /* entries in its list */
	uint32_t dir;               /* area page + 1 of its directory, 0 if none */
	uint64_t reserved[6];       /* zero */
	uint32_t reserved1;         /* zero */
	uint32_t crc;               /* CRC32C of the 124 bytes above */
};
_Static_assert(sizeof(struct os_snap_node) == 128, "snapshot node size");
_Static_assert(OS_SNAP_NODES * sizeof(struct os_snap_node) ==
	       OS_SNAP_TABLE_PAGES * OS_PAGE_SIZE, "the node table fills its pages");

/* One list entry. */
struct os_snap_entry {
	uint32_t page;              /* heap page number (heap offset / OS_PAGE_SIZE) */
	uint32_t copy;              /* area page + 1 holding the node's bytes of it */
};
_Static_assert(sizeof(struct os_snap_entry) * OS_SNAP_ENTRIES_PER_PAGE == OS_PAGE_SIZE,
	       "a list page is full of entries");

#endif
