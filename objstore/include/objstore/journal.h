/*
 * journal.h -- a heap on a device whose stores are durable only after a
 * flush request (virtio-pmem): the layout, and the journal that makes the
 * last flushed state survive a crash of the host.
 *
 * Such a device keeps every store in the host's page cache at once (a kill
 * of QEMU loses nothing) but on its disk only what a completed FLUSH
 * covered: after a host crash the device holds the state of the last
 * completed flush plus ANY SUBSET of the 4 KiB pages written since, each
 * page whole. No order between two pages survives, so an undo log written
 * before the page it protects may be lost while the page is not; the
 * heap's own protocol (format.h) cannot stand on such a device alone.
 *
 * So the device holds the heap twice, with a journal between:
 *
 *   [0, heap_size)                         the heap, the WORKING COPY the
 *                                          kernel runs on, as on an NVDIMM
 *   [base_offset, base_offset + heap_size) the BASE COPY: the working copy
 *                                          as of a past group commit (at
 *                                          heap_size; 0 only during a
 *                                          rebase, below)
 *   [journal_offset, + journal_size)       the JOURNAL: 4 KiB slots
 *   [device_size - 4096, device_size)      struct jn_header
 *
 * A group commit, with every CPU stopped right after a commit: each page of
 * the working copy written since the last group (the kernel learns them
 * from its flushes: every store to the heap is flushed before a commit
 * completes, docs/persistence-model.md) is copied into the journal as one
 * RECORD; then a flush is asked for. Once it completed, the record is
 * durable: the output of the epochs it holds may be seen, and its pages are
 * copied into the base copy; once a later flush covered that too, the
 * record's slots may be reused.
 *
 * Power-on always recovers from the base copy and the journal, never from
 * the working copy (it cannot tell a kill of QEMU, which leaves a good
 * working copy, from a host crash, which does not): it replays the newest
 * COMPLETE record whose needed records are whole, and those, onto the base
 * copy, then copies the base copy over the working copy. A record is complete
 * when every one of its pages holds it: each header page carries a CRC-32C,
 * and each page image carries, in its first 8 bytes, the record's stamp
 * (jn_stamp: the journal's id, its generation and the record's sequence
 * number, mixed), the 8 bytes it displaced kept in its header entry.
 *
 * Invariants (checked by jn_recover, kept by the kernel's writer):
 *  - records are numbered 1, 2, ... in the order written (a generation
 *    that found none to replay starts again at 1: the stamp names the
 *    generation); a record is written only after the flush of the one
 *    before it completed -- or failed: then neither is durable until a
 *    later flush completes, and a host crash may leave the later whole and
 *    the earlier torn, so recovery takes the newest complete record whose
 *    needed records are all whole;
 *  - record r's first_needed is the oldest record whose copy into the base
 *    copy no completed flush covered yet when r was written; a record's
 *    slots are reused only once a durable record names a later one, so
 *    records first_needed..r are intact for every r that may be the newest
 *    complete one;
 *  - a power-on that recovered raises the header's generation (durably)
 *    before writing any record, and writes records from slot 0 again:
 *    records of older generations are never replayed.
 */
#ifndef OBJSTORE_JOURNAL_H
#define OBJSTORE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JN_MAGIC "FEJOURNL"
#define JN_RECORD_MAGIC "FEJRECRD"
#define JN_VERSION 1
#define JN_PAGE 4096u

/* The device's last page. */
struct jn_header {
	char magic[8];              /* JN_MAGIC */
	uint32_t version;           /* JN_VERSION */
	uint32_t header_size;       /* sizeof(struct jn_header) */
	uint64_t device_size;       /* bytes of the device this layout was made for */
	uint64_t heap_size;         /* bytes of the heap (and of its base copy) */
	uint64_t base_offset;       /* the base copy */
	uint64_t journal_offset;    /* the journal's first slot */
	uint64_t journal_size;      /* bytes, a multiple of JN_PAGE */
	uint64_t journal_id;        /* differs between devices' geneses */
	uint64_t generation;        /* raised by every power-on that recovered */
	uint8_t reserved[52];       /* zero */
	uint32_t crc;               /* CRC-32C of the other bytes */
};
_Static_assert(sizeof(struct jn_header) == 128, "journal header size");

/* The header page's second half holds words the kernel keeps OUTSIDE the
 * heap: they survive a kill of QEMU (not always a host crash), and
 * recovery, which restores the whole heap from its base copy, leaves them
 * alone. One so far: how far the console's output was sent (console.c),
 * so that a kill repeats at most the line that was going out, as on an
 * NVDIMM. Zero at genesis; read as a hint, never trusted past the heap's
 * own queue. */
#define JN_SENT_OFFSET 2048

/* One page image of a record: which heap page, and its first 8 bytes. */
struct jn_entry {
	uint32_t page;              /* heap page number */
	uint32_t reserved;          /* zero */
	uint64_t first_word;        /* the bytes the stamp displaced */
};
_Static_assert(sizeof(struct jn_entry) == 16, "journal entry size");

#define JN_ENTRIES_PER_PAGE 252

/* A record's header page; the record's page images follow its header
 * pages, slot after slot, wrapping at the journal's end. */
struct jn_record_page {
	char magic[8];              /* JN_RECORD_MAGIC */
	uint64_t journal_id;
	uint64_t generation;
	uint64_t seq;               /* the record's number */
	uint64_t first_needed;      /* replay records first_needed..seq */
	uint32_t first_slot;        /* the slot of the record's header page 0 */
	uint32_t index;             /* this header page's index */
	uint32_t header_pages;      /* the record's header pages */
	uint32_t pages;             /* the record's page images */
	uint32_t entries;           /* entries on this header page */
	uint32_t crc;               /* CRC-32C of the page, this field 0 */
	struct jn_entry entry[JN_ENTRIES_PER_PAGE];
};
_Static_assert(sizeof(struct jn_record_page) == JN_PAGE, "record page size");

/* jn_stamp -- the word a page image of record `seq` begins with */
static inline uint64_t jn_stamp(uint64_t journal_id, uint64_t generation, uint64_t seq)
{
	uint64_t x = journal_id ^ (generation << 40) ^ seq ^ 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* jn_header_pages -- header pages of a record of `pages` images */
static inline uint32_t jn_header_pages(uint32_t pages)
{
	return pages ? (pages + JN_ENTRIES_PER_PAGE - 1) / JN_ENTRIES_PER_PAGE : 1;
}

/* The device's layout. */
struct jn_layout {
	uint64_t heap_size, base_offset, journal_offset, journal_size;
};

/* jn_plan -- the layout genesis gives a device of `device_size` bytes: a
 * journal of an eighth (at least 1 MiB), the rest halved. 0, or
 * -ERR_NOSPC when the heap would be under `min_heap` bytes. */
int jn_plan(uint64_t device_size, uint64_t min_heap, struct jn_layout *out);

/* jn_make_header -- the header of that layout, checksummed */
void jn_make_header(struct jn_header *h, uint64_t device_size,
		    const struct jn_layout *l, uint64_t journal_id);

/* jn_seal_header -- recompute h's checksum (after raising its generation) */
void jn_seal_header(struct jn_header *h);

/* jn_find -- whether a device of `size` bytes at `dev` ends with a journal
 * header (its magic) -- or, when its image file was made larger, holds one
 * at the end of its first device_size bytes, after its heap and base copy
 * (the rest then unused) -- then 0 if it is sound, else -ERR_CORRUPT or
 * -ERR_VERSION with the reason in *why; -ERR_NOENT when there is none */
int jn_find(const void *dev, uint64_t size, const struct jn_header **out,
	    const char **why);

/* What a recovery found and did. */
struct jn_recovery {
	uint64_t newest;            /* the newest complete record (0: none) */
	uint64_t replayed;          /* records replayed onto the base copy */
	uint64_t pages;             /* page images copied */
	uint64_t incomplete;        /* records of this generation found torn */
	uint64_t skipped;           /* complete records passed over: a record they need is torn */
};

/* jn_recover -- replay the journal onto the base copy: the newest complete
 * record of the header's generation whose needed records are all whole,
 * and those (a complete record whose needs are torn -- written after a
 * failed flush, and no flush covered either -- is passed over, counted).
 * 0, or -ERR_CORRUPT (the reason in *why) when complete records exist but
 * none has its needs whole. Writes only the base copy. */
int jn_recover(uint8_t *dev, const struct jn_header *h, struct jn_recovery *out,
	       const char **why);

/* jn_restore_heap -- make the working copy equal the base copy, writing
 * only the pages that differ; how many it wrote */
uint64_t jn_restore_heap(uint8_t *dev, const struct jn_header *h);

/*
 * A REBASE, when a group does not fit the journal (one system call may
 * change more pages than it holds): with every CPU stopped, so that the
 * working copy does not change, and the device flushed so that it is
 * durable, the header names the working copy as the base (base_offset 0,
 * a new generation: no record is replayed onto it); the base copy's place
 * is made equal to it and flushed; the header names it again (a new
 * generation) and is flushed. A cut anywhere leaves one whole base. A
 * power-on that finds base_offset 0 finishes the rebase before anything
 * runs. The caller flushes between the steps.
 */

/* jn_rebase_begin -- the working copy is the base from now on (the
 * working copy durable, the caller flushes the header) */
void jn_rebase_begin(struct jn_header *h);

/* jn_rebase_copy -- the base copy's place made equal to the working copy;
 * the pages written */
uint64_t jn_rebase_copy(uint8_t *dev, const struct jn_header *h);

/* jn_rebase_end -- the base copy is in its place again (it durable, the
 * caller flushes the header) */
void jn_rebase_end(struct jn_header *h);

/* The writer's state: volatile, rebuilt at every power-on (jn_writer_init). */
struct jn_writer {
	uint8_t *dev;
	struct jn_header *header;   /* on the device */
	uint32_t slots;             /* the journal's slots */
	uint32_t head;              /* where the next record begins */
	uint32_t tail;              /* the oldest slot still needed */
	uint64_t next_seq;          /* the next record's number */
	uint64_t oldest_needed;     /* first_needed of the next record */
	/* records written and not reclaimed, oldest first */
	struct jn_live {
		uint64_t seq, first_needed;
		uint32_t first_slot, slots;
		bool applied;                   /* copied into the base copy */
	} live[4];
	unsigned live_count;
};

/* jn_writer_init -- write records after a recovery that found `newest`
 * (0: none): records continue from newest + 1, from slot 0 */
void jn_writer_init(struct jn_writer *w, uint8_t *dev, struct jn_header *h,
		    uint64_t newest);

/* jn_slots_free -- slots a record may take now */
uint32_t jn_slots_free(const struct jn_writer *w);

/* jn_write -- write the working copy's `n` pages `pages` as the next
 * record: 0 and its number in *seq, or -ERR_NOSPC (nothing written) when
 * it needs more than jn_slots_free slots */
int jn_write(struct jn_writer *w, const uint32_t *pages, uint32_t n, uint64_t *seq);

/* jn_flushed -- a flush completed that covered every record through `seq`
 * and every copy into the base copy made before it was asked for: records
 * no record that may be the newest complete one names give their slots
 * back, and the records through `seq` not yet in the base copy are copied
 * there (oldest first); the next record needs the oldest of those. Whether
 * it copied any (their copies want a flush of their own). */
bool jn_flushed(struct jn_writer *w, uint64_t seq);

#endif
