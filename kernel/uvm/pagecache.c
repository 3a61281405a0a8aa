/*
 * pagecache.c -- DRAM in front of the NVM: user pages are written in DRAM
 * frames, and each commit writes the changed ones back to the heap.
 *
 * An entry caches one page of a paged object, (object, index): a DRAM
 * frame holding its bytes and `home`, the heap page the committed state
 * has for it. Shared mappings of the object map the one frame. User page
 * tables map a heap page only read-only while the cache is on (uvm.c):
 * every user store lands in a frame, never on the NVM.
 *
 * Which pages changed. The CPU sets the dirty bit of a page table entry it
 * writes through. Each entry remembers the (tables, address) pairs that
 * map its frame -- its mappers, MAPPERS at most (one more pushes the
 * oldest out of its tables) -- so the commit reads those bits instead of
 * taking a write fault per page per epoch. Every removal of a mapper's
 * table entry goes through here (pagecache_unmap, eviction, a mapper
 * pushed out) and keeps its dirty bit in the entry's `dirty`, atomically
 * with the removal (a CPU writing meanwhile either set the bit first or
 * faults).
 *
 * Hot and cold. A page written in an epoch stays writable in its tables
 * (hot). A cached page the commit finds unwritten loses the write bit in
 * its tables (cold): its next write faults once, here, and makes it hot
 * again -- so a commit after a quiet epoch finds nothing hot, and an idle
 * system stops committing.
 *
 * The write-back (pagecache_write_back), at a commit with every other CPU
 * stopped, inside the epoch's transaction:
 *  1. each open entry's mappers give their dirty bits (cleared; every
 *     CPU's TLB is emptied before user code runs again: the stopped CPUs
 *     reload their tables, this one flushes the pages). Only open entries
 *     (open_list: written since the last commit, or writable in some
 *     table) can have been written, so an idle cached page costs a commit
 *     nothing;
 *  2. a dirty page whose home was allocated in this epoch is copied over
 *     it (its FRESH record flushes it at the commit); a page with few
 *     changed cache lines (IN_PLACE_LINES) has each run of them logged and
 *     overwritten in place; any other gets a new heap page: all of them
 *     are allocated first, so none reuses a page this write-back frees;
 *  3. each new page is filled from the frame and linked in place of the
 *     old home, which is freed (os_obj_page_move) -- the old bytes stay as
 *     they were for a rollback, so nothing is copied to the undo log. With
 *     the heap full, the changed lines are logged and written in place.
 * The commit point then makes it durable with the rest of the epoch. A
 * power cut at any instant before it finds the old homes linked and their
 * old bytes restored; after it the new ones. DRAM copies are simply lost.
 *
 * Bounds. The write-back may need os_obj_move_log_need() of undo log for
 * each open entry; pagecache_log_need() is what the epoch keeps free for
 * them (epoch.c), and os_log_keep keeps it from every objstore call until
 * the write-back runs. A user write opens an entry only while the log can take one
 * more (else it asks for a commit and faults again after it); a kernel
 * write opens entries within the log a kernel entry may use anyway
 * (HEAP_ENTRY_LOG_MAX: writing those bytes through the log would cost as
 * much). Cold entries cost no log: the cache's size is a share of the
 * DRAM (cache=). A fill with every page open asks for a commit and waits
 * for it; a clean, unreferenced page is evicted (a clock over the
 * accessed bits). With DRAM short the cache holds what it gets; with none
 * at all the caller maps the heap page as without a cache.
 */
#include <numtext.h>
#include <string.h>

#include "arch/arch.h"
#include "core/cmdline.h"
#include "core/heap.h"
#include "core/panic.h"
#include "core/printk.h"
#include "errstr.h"
#include "ferrite/errors.h"
#include "mm/frame.h"
#include "mm/phys.h"
#include "mm/vm.h"
#include "objstore/object.h"
#include "uvm/pagecache.h"
#include "uvm/upt.h"

#define PAGE FE_PAGE_SIZE
#define MAPPERS 4
#define NONE UINT32_MAX
#define DRAM_SHARE 8           /* by default the cache takes 1/8 of the DRAM */
#define LINE 64                /* the CPU's cache line: the NVM's unit of writing */
/* A page with at most this many changed lines is written in place, each
 * line twice (its old bytes to the log, its new over the home); more go to
 * a new page: 64 lines, and ~8 of metadata (docs/dram-cache.md). */
#define IN_PLACE_LINES 28

/* A page table entry that maps an entry's frame. */
struct cache_mapper {
	uint64_t pt_root;              /* 0: none */
	uint64_t va;
	unsigned slot;                 /* process-table slot */
};

struct cache_entry {
	uint64_t object;               /* 0: a free entry */
	uint64_t index;
	uint64_t frame;                /* DRAM physical address */
	uint64_t home;                 /* heap page of the committed state */
	uint64_t move_to;              /* write-back: the new home, 0 if none */
	uint32_t next;                 /* hash chain, or the free list */
	uint32_t open_at;              /* its place in open_list while open */
	bool dirty;                    /* written since the last write-back */
	bool writable;                 /* writable in some mapper's tables */
	bool fresh;                    /* home allocated in the running epoch */
	bool used;                     /* the clock's second chance */
	struct cache_mapper map[MAPPERS];
};

static struct cache_entry *entries;
static uint32_t *buckets;
static uint32_t *open_list;            /* the open entries, open_count of them */
static uint32_t *scratch;              /* pagecache_sweep's cooled entries */
static uint32_t capacity, bucket_mask, count, free_list, hand;
static uint32_t open_count, dirty_count; /* entries open, and dirty */
static uint64_t move_need;             /* os_obj_move_log_need() */
static uint64_t open_most;             /* open entries a fresh epoch keeps */
static bool writing_back;              /* pagecache_write_back runs */

static struct {
	uint64_t written_last, written_back, moved, fills, hits;
	uint64_t evictions, full;
} figures;

/* is_open -- whether e may need writing back at the next commit */
static bool is_open(const struct cache_entry *e)
{
	return e->dirty || e->writable;
}

/* set_state -- e's dirty and writable flags, the counts kept */
static void set_state(struct cache_entry *e, bool dirty, bool writable)
{
	bool was_open = is_open(e);

	dirty_count -= e->dirty;
	e->dirty = dirty;
	e->writable = writable;
	dirty_count += e->dirty;
	if (!was_open && is_open(e)) {
		e->open_at = open_count;
		open_list[open_count++] = (uint32_t)(e - entries);
	} else if (was_open && !is_open(e)) {
		uint32_t last = open_list[--open_count];

		open_list[e->open_at] = last;
		entries[last].open_at = e->open_at;
	}
	/* No objstore call may take the log the write-back needs. */
	os_log_keep(&kheap, writing_back ? 0 : open_count * move_need);
}

/* room_to_open -- whether the log can take the write-back of one more
 * open entry, with a kernel entry's worth to spare; if not a commit is
 * asked for (it closes them all) */
static bool room_to_open(void)
{
	if (heap_log_free() >= HEAP_ENTRY_LOG_MAX + (open_count + 1ull) * move_need)
		return true;
	heap_request_commit();
	return false;
}

/* bucket -- the hash chain of (object, index) */
static uint32_t *bucket(uint64_t object, uint64_t index)
{
	uint64_t h = (object * 0x9e3779b97f4a7c15ull) ^ (index * 0xc2b2ae3d27d4eb4full);

	return &buckets[(h >> 29) & bucket_mask];
}

/* find -- the entry caching (object, index), NULL if none */
static struct cache_entry *find(uint64_t object, uint64_t index)
{
	for (uint32_t i = *bucket(object, index); i != NONE; i = entries[i].next)
		if (entries[i].object == object && entries[i].index == index)
			return &entries[i];
	return NULL;
}

/* frame_bytes -- the kernel's address of an entry's frame */
static uint8_t *frame_bytes(const struct cache_entry *e)
{
	return phys_to_virt(e->frame);
}

/* mapper_tables -- the tables mapper m names, 0 if they are gone */
static uint64_t mapper_tables(const struct cache_mapper *m)
{
	struct uspace *us = m->pt_root ? upt_space(m->slot) : NULL;

	return us && us->pt_root == m->pt_root ? m->pt_root : 0;
}

/* set_dirty -- e is known written since the last write-back */
static void set_dirty(struct cache_entry *e)
{
	set_state(e, true, e->writable);
}

/* unmap_mapper -- remove mapper m's table entry, keeping its dirty bit;
 * whether one was removed (its CPUs are then to be stopped) */
static bool unmap_mapper(struct cache_entry *e, struct cache_mapper *m)
{
	uint64_t root = mapper_tables(m);
	int marks = root ? arch_pt_unmap_user_page(root, m->va, e->frame) : -ERR_NOENT;

	m->pt_root = 0;
	if (marks < 0)
		return false;
	if (marks & VM_DIRTY)
		set_dirty(e);
	return true;
}

/* unmap_all -- remove every mapper of e from its tables, stopping the CPUs
 * that run their threads */
static void unmap_all(struct cache_entry *e)
{
	for (unsigned i = 0; i < MAPPERS; i++) {
		unsigned slot = e->map[i].slot;

		if (unmap_mapper(e, &e->map[i]))
			upt_shootdown(upt_space(slot));
	}
	set_state(e, e->dirty, false);
}

/* unlink -- take e out of its hash chain */
static void unlink(struct cache_entry *e)
{
	uint32_t *at = bucket(e->object, e->index), me = (uint32_t)(e - entries);

	while (*at != me)
		at = &entries[*at].next;
	*at = e->next;
}

/* release -- give e's frame back and e to the free list (it is unmapped) */
static void release(struct cache_entry *e)
{
	set_state(e, false, false);
	unlink(e);
	frame_free(e->frame);
	memset(e, 0, sizeof(*e));
	e->next = free_list;
	free_list = (uint32_t)(e - entries);
	count--;
}

/* referenced -- whether a mapper used e since the clock last looked */
static bool referenced(struct cache_entry *e)
{
	bool used = e->used;

	e->used = false;
	for (unsigned i = 0; i < MAPPERS; i++) {
		uint64_t root = mapper_tables(&e->map[i]);
		unsigned marks = root ? arch_pt_take_user_marks(root, e->map[i].va, e->frame,
								VM_ACCESSED) : 0;

		if (marks & VM_ACCESSED)
			used = true;
		if (marks & VM_DIRTY)
			set_dirty(e);
	}
	return used;
}

/* dirty_marked -- whether a mapper of e has its dirty mark set (read, not cleared) */
static bool dirty_marked(const struct cache_entry *e)
{
	for (unsigned i = 0; i < MAPPERS; i++) {
		uint64_t root = mapper_tables(&e->map[i]);

		if (root && (arch_pt_take_user_marks(root, e->map[i].va, e->frame, 0) & VM_DIRTY))
			return true;
	}
	return false;
}

/* evict_one -- give back one clean page the clock finds unreferenced
 * (written or not since the last commit); whether one went */
static bool evict_one(void)
{
	for (uint32_t n = 0; n < 2 * capacity; n++) {
		struct cache_entry *e = &entries[hand];

		hand = (hand + 1) % capacity;
		if (!e->object || e->dirty)
			continue;
		/* referenced may find a dirty mark too. A writable page may go:
		 * unmap_all takes its dirty bits with its translations, and
		 * keeps it if one was set. */
		if (referenced(e) || e->dirty)
			continue;
		unmap_all(e);
		if (e->dirty)
			continue; /* written until its tables let go: kept for the commit */
		release(e);
		figures.evictions++;
		return true;
	}
	return false;
}

/* take_frame -- a frame for a new entry: a free one, or an evicted page's */
static int take_frame(uint64_t *frame)
{
	if (count < capacity && frame_alloc(frame) == 0)
		return 0;
	if (!count)
		return -ERR_NOSPC;
	if (evict_one() && frame_alloc(frame) == 0)
		return 0;
	figures.full++;
	heap_request_commit(); /* the commit cleans every page */
	return -ERR_NOMEM;
}

/* pagecache_fill -- cache (object, index), its heap page `home` */
int pagecache_fill(uint64_t object, uint64_t index, uint64_t home, bool fresh,
		   uint64_t *frame)
{
	struct cache_entry *e;
	uint32_t *b;
	int err;

	if (!capacity)
		return -ERR_NOSPC;
	if (!room_to_open())
		return -ERR_NOMEM;
	err = take_frame(frame);
	if (err)
		return err;
	e = &entries[free_list];
	free_list = e->next;
	count++;
	*e = (struct cache_entry){ .object = object, .index = index, .frame = *frame,
			     .home = home, .fresh = fresh, .used = true };
	set_state(e, true, false);
	memcpy(frame_bytes(e), os_ptr(&kheap, home), PAGE);
	b = bucket(object, index);
	e->next = *b;
	*b = (uint32_t)(e - entries);
	figures.fills++;
	return 0;
}

/* pagecache_frame -- the frame caching (object, index), 0 if none */
int pagecache_frame(uint64_t object, uint64_t index, bool write, uint64_t *frame)
{
	struct cache_entry *e = capacity ? find(object, index) : NULL;

	*frame = 0;
	if (!e)
		return 0;
	if (write && !is_open(e) && !room_to_open())
		return -ERR_NOMEM;
	figures.hits++;
	e->used = true;
	if (write)
		set_dirty(e);
	*frame = e->frame;
	return 0;
}

/* pagecache_mapped -- us's tables map the frame of (object, index) at va */
void pagecache_mapped(struct uspace *us, uint64_t object, uint64_t index,
		      uint64_t va, bool writable)
{
	struct cache_entry *e = find(object, index);
	struct cache_mapper *free = NULL;

	KASSERT(e);
	if (writable)
		set_state(e, e->dirty, true);
	for (unsigned i = 0; i < MAPPERS; i++) {
		struct cache_mapper *m = &e->map[i];

		if (m->pt_root == us->pt_root && m->va == va && m->slot == us->slot)
			return;
		if (!free && !mapper_tables(m))
			free = m;
	}
	if (!free) {
		/* One mapper too many: the oldest leaves its tables. */
		unsigned slot = e->map[0].slot;

		if (unmap_mapper(e, &e->map[0]))
			upt_shootdown(upt_space(slot));
		memmove(&e->map[0], &e->map[1], sizeof(e->map[0]) * (MAPPERS - 1));
		free = &e->map[MAPPERS - 1];
	}
	*free = (struct cache_mapper){ .pt_root = us->pt_root, .va = va, .slot = us->slot };
}

/* pagecache_unmap -- remove us's mappings of cached frames in [va, va+len) */
void pagecache_unmap(struct uspace *us, uint64_t va, uint64_t len)
{
	for (uint32_t i = 0; i < capacity && us->pt_root; i++) {
		struct cache_entry *e = &entries[i];

		if (!e->object)
			continue;
		for (unsigned k = 0; k < MAPPERS; k++) {
			struct cache_mapper *m = &e->map[k];

			if (m->pt_root == us->pt_root && m->slot == us->slot &&
			    m->va >= va && m->va - va < len)
				unmap_mapper(e, m);
		}
	}
}

/* pagecache_read -- os_obj_read, cached pages read from their frames */
int64_t pagecache_read(uint64_t object, uint64_t off, void *buf, uint64_t len)
{
	int64_t got = os_obj_read(&kheap, object, off, buf, len);

	for (uint64_t done = 0; capacity && got > 0 && done < (uint64_t)got;) {
		uint64_t pos = off + done, in = pos % PAGE;
		uint64_t n = PAGE - in < (uint64_t)got - done ? PAGE - in : (uint64_t)got - done;
		struct cache_entry *e = find(object, pos / PAGE);

		if (e)
			memcpy((uint8_t *)buf + done, frame_bytes(e) + in, n);
		done += n;
	}
	return got;
}

/* pagecache_write -- os_obj_write, cached pages written in their frames */
int64_t pagecache_write(uint64_t object, uint64_t off, const void *buf,
			uint64_t len)
{
	struct os_obj_info info;
	uint64_t done = 0;
	int err;

	if (!capacity)
		return os_obj_write(&kheap, object, off, buf, len);
	err = os_obj_head(&kheap, object, &info);
	if (err)
		return err;
	if (off > info.size || len > info.size - off || len > INT64_MAX)
		return -ERR_RANGE;
	while (done < len) {
		uint64_t pos = off + done, in = pos % PAGE;
		uint64_t n = PAGE - in < len - done ? PAGE - in : len - done;
		struct cache_entry *e = find(object, pos / PAGE);
		int64_t wrote;

		if (e) {
			memcpy(frame_bytes(e) + in, (const uint8_t *)buf + done, n);
			set_dirty(e);
			done += n;
			continue;
		}
		wrote = os_obj_write(&kheap, object, pos, (const uint8_t *)buf + done, n);
		if (wrote < 0)
			return done ? (int64_t)done : wrote;
		done += (uint64_t)wrote;
		if ((uint64_t)wrote < n)
			break;
	}
	return (int64_t)done;
}

/* pagecache_deleted -- kobj_on_delete's hook: the object's cached pages go */
void pagecache_deleted(uint64_t id, uint16_t type)
{
	(void)type;
	pagecache_resized(id, 0);
}

/* pagecache_resized -- drop object's cached pages past `size` */
void pagecache_resized(uint64_t object, uint64_t size)
{
	for (uint32_t i = 0; i < capacity; i++) {
		struct cache_entry *e = &entries[i];

		if (e->object != object)
			continue;
		if (e->index * PAGE >= size) {
			unmap_all(e);
			release(e);
		} else if ((e->index + 1) * PAGE > size) {
			memset(frame_bytes(e) + size % PAGE, 0, PAGE - size % PAGE);
		}
	}
}

/* take_dirty -- step 1 for e: its mappers' dirty bits, cleared */
static void take_dirty(struct cache_entry *e, uint64_t current)
{
	for (unsigned i = 0; i < MAPPERS; i++) {
		struct cache_mapper *m = &e->map[i];
		uint64_t root = mapper_tables(m);
		unsigned marks;

		if (!root) {
			m->pt_root = 0;
			continue;
		}
		marks = arch_pt_take_user_marks(root, m->va, e->frame, VM_DIRTY);
		if (marks & VM_DIRTY) {
			set_dirty(e);
			if (root == current)
				arch_tlb_flush_page(m->va);
		}
	}
}

/* cool -- e's mappers lose the write bit, their dirty marks kept; the
 * processes whose tables changed are marked in `changed` (NULL at a
 * commit: every other CPU is stopped, and reloads its tables) */
static void cool(struct cache_entry *e, bool *changed)
{
	for (unsigned i = 0; i < MAPPERS; i++) {
		struct cache_mapper *m = &e->map[i];
		uint64_t root = mapper_tables(m);
		int marks = root ? arch_pt_protect_user_page(root, m->va, e->frame) : -ERR_NOENT;

		if (marks < 0)
			continue;
		if (marks & VM_DIRTY)
			set_dirty(e);
		if (changed)
			changed[m->slot] = true;
	}
	set_state(e, e->dirty, false);
}

/* still_there -- whether e's page still belongs to its object (a page
 * the kernel dropped without telling, none should be), its home updated;
 * bytes past the object's end zeroed (format.h: the last page's tail) */
static bool still_there(struct cache_entry *e)
{
	uint64_t home, held;

	if (os_obj_page_held(&kheap, e->object, e->index, &home, &held) || !home)
		return false;
	KASSERT(home == e->home);
	memset(frame_bytes(e) + held, 0, PAGE - held);
	return true;
}

/* changed_lines -- which cache lines of e's frame differ from its home: bit
 * i for line i (a word at a time: this runs for every dirty page of a
 * commit, inside its pause). The search stops at the first `most` + 1
 * changed lines: a page with more goes to a new page whole, and which of
 * its other lines changed matters no more (a page written all over is
 * then compared only up to its 29th line: half the reads). */
static uint64_t changed_lines(const struct cache_entry *e, unsigned most)
{
	const uint64_t *home = os_ptr(&kheap, e->home);
	const uint64_t *frame = (const uint64_t *)frame_bytes(e);
	uint64_t mask = 0;
	unsigned found = 0;

	_Static_assert(PAGE / LINE == 64, "a bit for each line of a page");
	for (unsigned line = 0; line < PAGE / LINE && found <= most; line++) {
		uint64_t diff = 0;

		for (unsigned w = 0; w < LINE / 8; w++)
			diff |= home[line * (LINE / 8) + w] ^ frame[line * (LINE / 8) + w];
		if (diff) {
			mask |= 1ull << line;
			found++;
		}
	}
	return mask;
}

/* write_in_place -- write the lines of `changed` over e's home, each run
 * of them logged first (the undo way) */
static void write_in_place(struct cache_entry *e, uint64_t changed)
{
	uint8_t *home = os_ptr(&kheap, e->home);
	const uint8_t *frame = frame_bytes(e);

	while (changed) {
		unsigned first = (unsigned)__builtin_ctzll(changed), end = first;

		while (end < PAGE / LINE && (changed >> end & 1))
			end++;
		heap_log(home + first * LINE, (end - first) * LINE);
		memcpy(home + first * LINE, frame + first * LINE, (end - first) * LINE);
		changed &= end < 64 ? ~0ull << end : 0;
	}
}

/* plan -- step 2 for a dirty e: copied over a fresh home now; a few
 * changed lines written in place now (cheaper than a whole new page);
 * else a new page allocated (move_to), or with the heap full the changed
 * lines written in place all the same */
static void plan(struct cache_entry *e)
{
	uint64_t changed;
	int err;

	if (e->fresh) {
		memcpy(os_ptr(&kheap, e->home), frame_bytes(e), PAGE);
		return;
	}
	changed = changed_lines(e, IN_PLACE_LINES);
	if (__builtin_popcountll(changed) <= IN_PLACE_LINES) {
		write_in_place(e, changed);
		return;
	}
	err = os_alloc(&kheap, PAGE, &e->move_to);
	if (err == -ERR_NOMEM) {
		e->move_to = 0;
		write_in_place(e, changed_lines(e, PAGE / LINE));
	} else if (err == -ERR_CORRUPT) {
		heap_damaged("object #%llu page %llu: the write-back found the free-page stack or a page descriptor damaged",
			     (unsigned long long)e->object, (unsigned long long)e->index);
	} else if (err) {
		/* Invariant: the epoch kept pagecache_log_need() of log free. */
		panic("pagecache: the write-back of object #%llu page %llu found no room: %s (log free %llu, kept for %u open pages)",
		      (unsigned long long)e->object, (unsigned long long)e->index,
		      err_name(err), (unsigned long long)heap_log_free(), open_count);
	}
}

/* pagecache_write_back -- write every page written since the last commit */
void pagecache_write_back(struct pagecache_commit *done)
{
	uint64_t current = arch_pt_root();

	writing_back = true;
	os_log_keep(&kheap, 0);
	memset(done, 0, sizeof(*done));
	/* Only open entries can have been written (no other is writable in
	 * any table). Backwards: an entry that closes is replaced in
	 * open_list by the last one, already seen. */
	for (uint32_t i = open_count; i-- > 0;) {
		struct cache_entry *e = &entries[open_list[i]];

		take_dirty(e, current);
		if (!e->dirty) {
			if (e->writable)
				cool(e, NULL);
			e->fresh = false;
			continue;
		}
		if (!still_there(e)) {
			unmap_all(e);
			release(e);
			continue;
		}
		plan(e);
		done->pages++;
	}
	for (uint32_t i = open_count; i-- > 0;) {
		struct cache_entry *e = &entries[open_list[i]];
		int err;

		if (!e->dirty)
			continue;
		if (e->move_to) {
			memcpy(os_ptr(&kheap, e->move_to), frame_bytes(e), PAGE);
			err = os_obj_page_move(&kheap, e->object, e->index, e->move_to);
			if (err)
				heap_damaged("object #%llu page %llu: the write-back cannot move it: %s",
					     (unsigned long long)e->object,
					     (unsigned long long)e->index, err_name(err));
			e->home = e->move_to;
			e->move_to = 0;
			done->moved++;
		}
		set_state(e, false, e->writable);
		e->fresh = false;
	}
	figures.written_last = done->pages;
	figures.written_back += done->pages;
	figures.moved += done->moved;
}

/* pagecache_committed -- the commit that wrote back is durable: the next
 * epoch begins with the log kept for its write-back */
void pagecache_committed(void)
{
	/* Open entries the next epoch could not write back with room to
	 * spare (half the log beyond two kernel entries) close now: their
	 * next stores fault, and open them again while the log has room. */
	for (uint32_t i = open_count; open_count > open_most && i-- > 0;) {
		struct cache_entry *e = &entries[open_list[i]];

		if (e->writable)
			cool(e, NULL);
	}
	writing_back = false;
	os_log_keep(&kheap, open_count * move_need);
}

/* pagecache_log_need -- undo-log bytes the next write-back may need */
uint64_t pagecache_log_need(void)
{
	return open_count * move_need;
}

/* pagecache_written -- whether a page is known written since the last commit */
bool pagecache_written(void)
{
	return dirty_count != 0;
}

/* pagecache_sweep -- collect the CPU's dirty marks of the writable pages
 * (unless one is known written already); those not written become cold
 * (see the top) */
void pagecache_sweep(void)
{
	bool changed[KROOT_MAX_PROCS] = { false };
	uint32_t cooled = 0;

	if (dirty_count || !open_count)
		return;
	/* Every open entry is writable and clean here (none is dirty). */
	for (uint32_t i = open_count; i-- > 0;) {
		uint32_t at = open_list[i];

		cool(&entries[at], changed);
		scratch[cooled++] = at;
	}
	/* A CPU still holding a writable translation may have set a dirty
	 * mark after cool read it: once those CPUs let go, read them again. */
	for (unsigned slot = 0; slot < KROOT_MAX_PROCS; slot++)
		if (changed[slot])
			upt_shootdown(upt_space(slot));
	for (uint32_t i = 0; i < cooled; i++) {
		struct cache_entry *e = &entries[scratch[i]];

		if (!e->dirty && dirty_marked(e))
			set_dirty(e);
	}
}

/* pagecache_on -- whether user pages are cached */
bool pagecache_on(void)
{
	return capacity != 0;
}

/* wanted_pages -- cache= in pages, or the default share of the DRAM */
static uint64_t wanted_pages(void)
{
	const char *text = cmdline_get("cache");
	uint64_t bytes;

	if (text && parse_size(text, &bytes) == 0)
		return bytes / PAGE;
	if (text)
		pr_warn("cmdline: cache=%s is not a size (like 32M, or 0 for none); using the default\n",
			text);
	return frame_total_count() / DRAM_SHARE;
}

/* pagecache_init -- size the cache and take the DRAM for its entries */
void pagecache_init(bool wanted)
{
	uint64_t pages = wanted ? wanted_pages() : 0, meta, buckets_n = 1, at;
	struct os_stats st;

	os_stats(&kheap, &st);
	move_need = os_obj_move_log_need();
	/* epoch_start made sure the log holds two kernel entries */
	open_most = (st.log_size - 2 * HEAP_ENTRY_LOG_MAX) / 2 / move_need;
	if (pages > frame_free_count() / 2) {
		if (cmdline_has("cache"))
			pr_warn("cmdline: cache=%s is more than half the free DRAM; using %llu KiB\n",
				cmdline_get("cache"),
				(unsigned long long)(frame_free_count() / 2 * PAGE >> 10));
		pages = frame_free_count() / 2;
	}
	if (pages > NONE / 2)
		pages = NONE / 2;
	while (buckets_n < pages)
		buckets_n <<= 1;
	meta = (pages * sizeof(struct cache_entry) + (buckets_n + 2 * pages) * sizeof(uint32_t) +
		PAGE - 1) / PAGE;
	if (pages && frame_alloc_run(meta, &at)) {
		pr_warn("cache: no DRAM for the cache's %llu pages of entries; user pages are mapped onto the NVM\n",
			(unsigned long long)meta);
		pages = 0;
	}
	if (!pages) {
		pr_info("cache: off; user pages are mapped onto the NVM\n");
		return;
	}
	entries = phys_to_virt(at);
	buckets = (uint32_t *)(entries + pages);
	open_list = buckets + buckets_n;
	scratch = open_list + pages;
	memset(buckets, 0xff, buckets_n * sizeof(uint32_t));
	for (uint32_t i = 0; i < pages; i++)
		entries[i].next = i + 1 < pages ? i + 1 : NONE;
	capacity = (uint32_t)pages;
	bucket_mask = (uint32_t)buckets_n - 1;
	free_list = 0;
	pr_info("cache: %llu KiB of DRAM in front of the NVM (%u pages)\n",
		(unsigned long long)(pages * PAGE >> 10), capacity);
}

/* pagecache_figures -- the cache's part of sysinfo */
void pagecache_figures(struct fe_sysinfo *info)
{
	info->cache_pages_max = capacity;
	info->cache_pages = count;
	info->cache_dirty = dirty_count;
	info->cache_written_last = figures.written_last;
	info->cache_written_back = figures.written_back;
	info->cache_moved = figures.moved;
	info->cache_fills = figures.fills;
	info->cache_hits = figures.hits;
	info->cache_evictions = figures.evictions;
	info->cache_full = figures.full;
}
