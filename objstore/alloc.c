/*
 * alloc.c -- allocating data pages and small blocks, inside transactions.
 *
 * Pages: a persistent stack of free page numbers (free_top entries in use,
 * in the root block), and the never-used tail of the data pages
 * (pages_unformatted in the root block; format.h). Allocation pops, or
 * takes the tail's first page when the stack is empty; freeing pushes:
 * O(1), and neither creating nor opening a heap writes or scans anything
 * per page. Every page below the tail has a descriptor saying what it is
 * used for; a free page's descriptor says FREE, which catches double frees.
 *
 * Small blocks (64 B ... 2 KiB, six power-of-two classes): a slab is one
 * page of equal blocks, its descriptor's slot_map says which are in use.
 * Slabs with a free slot are on a doubly-linked list per class, headed in
 * the root block; a slab is taken off when it fills and its page is freed
 * when it empties. Allocation and free are O(1).
 *
 * Crash consistency: a slab's descriptor (its slot map, count, list
 * links, free_epoch) changes through os_tx_set: read back with os_tx_read
 * (slab_get), so that a second allocation in the same transaction sees
 * the first one's bit, and published at the commit, which takes one wait
 * (tx.c). A free so is deferred to the commit, as PMDK defers a
 * transaction's frees. What other files read in place changes the undo
 * way, logged with os_tx_log before it is written: the root block, the
 * free-page stack and a whole page's descriptor (page_alloc, page_free:
 * object.c and the catalogue read a page's kind and count in place); a
 * slab descriptor with a pending set is written in place first when it is
 * logged so (tx.c). Rollback thus restores the allocator exactly; each
 * block handed out gets a FRESH record so the commit flushes what the
 * caller wrote into it -- unless the block was freed earlier in the same
 * transaction (the descriptor's free_epoch says so): then its old bytes
 * belong to an owner that rollback brings back, and the block is logged
 * (UNDO) instead.
 *
 * Invariants (verified by the checker): free_top <= os_formatted_pages <=
 * page_count (the tail counted to the descriptors' room, format.h); the stack holds free_top distinct page numbers below the tail
 * whose descriptors are FREE, and every other page below the tail has a
 * descriptor that is not FREE; a slab's `used` is the
 * popcount of its slot_map, bits beyond its slot count are clear; a slab
 * is on its class list iff used < slots, and the list links are mutual.
 */
#include <string.h>

#include "internal.h"

/* log_desc -- log a page descriptor before changing it in place */
static int log_desc(struct objstore *os, uint64_t page)
{
	return os_tx_log(os, &os->desc[page], sizeof(os->desc[page]));
}

/* seal_desc -- recompute a descriptor's checksum after changing it in place */
static void seal_desc(struct objstore *os, uint64_t page)
{
	os->desc[page].crc = os_desc_crc(&os->desc[page]);
}

/* slab_get -- a slab's descriptor as the transaction sees it */
static void slab_get(const struct objstore *os, uint64_t page, struct os_page_desc *d)
{
	os_tx_read(os, d, &os->desc[page], sizeof(*d));
}

/* slab_set -- a slab's descriptor, sealed, set for the commit */
static int slab_set(struct objstore *os, uint64_t page, struct os_page_desc *d)
{
	d->crc = os_desc_crc(d);
	return os_tx_set(os, &os->desc[page], d, sizeof(*d));
}

/* freed_this_tx -- whether descriptor d says this transaction freed something in its page */
static bool freed_this_tx(const struct objstore *os, const struct os_page_desc *d)
{
	return d->free_epoch == (uint32_t)os->tx_epoch;
}

/* hand_out -- record a block given to the caller: UNDO if it was freed in
 * this transaction (its old owner may come back), else FRESH */
static int hand_out(struct objstore *os, uint64_t off, uint32_t len, bool reused)
{
	if (reused)
		return os_tx_log(os, os_ptr(os, off), len);
	return os_log_fresh(os, off, len);
}

/* page_alloc -- pop a free page, else take the first never-used one; its
 * descriptor logged and set to `kind`; *reused says whether this
 * transaction had freed it */
static int page_alloc(struct objstore *os, uint8_t kind, uint64_t *page,
		      bool *reused)
{
	struct os_root *root = os->root;
	uint64_t formatted = os_formatted_pages(os->sb, root);
	bool from_stack = root->free_top > 0;
	uint64_t p;
	int err;

	if (from_stack) {
		p = os->stack[root->free_top - 1];
		if (p >= formatted || os->desc[p].kind != OS_PAGE_FREE)
			return -ERR_CORRUPT;
	} else if (formatted < os->sb->page_count) {
		p = formatted; /* its descriptor holds nothing yet */
	} else {
		return -ERR_NOMEM;
	}
	err = os_log_root(os);
	if (!err)
		err = log_desc(os, p);
	if (err)
		return err;
	if (from_stack) {
		root->free_top--;
		*reused = freed_this_tx(os, &os->desc[p]);
	} else {
		root->pages_unformatted--;
		*reused = false;
	}
	memset(&os->desc[p], 0, sizeof(os->desc[p]));
	os->desc[p].kind = kind;
	seal_desc(os, p);
	*page = p;
	return 0;
}

/* page_free -- push a page back on the free stack */
static int page_free(struct objstore *os, uint64_t page)
{
	struct os_root *root = os->root;
	uint32_t *slot = &os->stack[root->free_top];
	int err;

	if (os_pages_free(os->sb, root) >= os->sb->page_count)
		return -ERR_CORRUPT;
	/* Its bytes may be a snapshot's: kept before a FRESH write can change
	 * them unlogged (format.h, I1). */
	os_snap_capture(os, os_page_off(os, page), OS_PAGE_SIZE);
	err = os_log_root(os);
	if (!err)
		err = os_tx_log(os, slot, sizeof(*slot));
	if (!err)
		err = log_desc(os, page);
	if (err)
		return err;
	*slot = (uint32_t)page;
	root->free_top++;
	memset(&os->desc[page], 0, sizeof(os->desc[page]));
	os->desc[page].free_epoch = (uint32_t)os->tx_epoch;
	seal_desc(os, page);
	return 0;
}

/* class_for -- the smallest size class holding `size` bytes */
static unsigned class_for(uint64_t size)
{
	unsigned c = 0;

	while (os_class_size(c) < size)
		c++;
	return c;
}

/* slab_unlink -- take the slab described by d (the caller's copy, which
 * the caller stores) off its class list */
static int slab_unlink(struct objstore *os, struct os_page_desc *d)
{
	struct os_page_desc n;
	int err;

	if (d->prev) {
		slab_get(os, d->prev - 1, &n);
		n.next = d->next;
		err = slab_set(os, d->prev - 1, &n);
	} else {
		err = os_log_root(os);
		if (!err)
			os->root->slab_partial[d->size_class] = d->next;
	}
	if (!err && d->next) {
		slab_get(os, d->next - 1, &n);
		n.prev = d->prev;
		err = slab_set(os, d->next - 1, &n);
	}
	d->next = d->prev = 0;
	return err;
}

/* slab_push -- put slab `page`, described by d (the caller's copy, which
 * the caller stores), at the head of its class list */
static int slab_push(struct objstore *os, uint64_t page, struct os_page_desc *d)
{
	uint64_t head = os->root->slab_partial[d->size_class];
	struct os_page_desc h;
	int err = os_log_root(os);

	if (err)
		return err;
	if (head) {
		slab_get(os, head - 1, &h);
		h.prev = (uint32_t)(page + 1);
		err = slab_set(os, head - 1, &h);
		if (err)
			return err;
	}
	d->next = (uint32_t)head;
	d->prev = 0;
	os->root->slab_partial[d->size_class] = page + 1;
	return 0;
}

/* slab_new -- a fresh empty slab of class c, on its list (its descriptor
 * written in place: page_alloc logged it) */
static int slab_new(struct objstore *os, unsigned c, uint64_t *page)
{
	bool reused;
	struct os_page_desc *d;
	int err = page_alloc(os, OS_PAGE_SLAB, page, &reused);

	if (err)
		return err;
	d = &os->desc[*page];
	d->size_class = (uint8_t)c;
	if (reused) /* every block of it may hold a freed owner's bytes */
		d->free_epoch = (uint32_t)os->tx_epoch;
	err = slab_push(os, *page, d);
	seal_desc(os, *page);
	return err;
}

/* small_alloc -- one block of class c: its bit set in the slab's
 * descriptor, a set published at the commit (a later allocation of this
 * transaction reads it back) */
static int small_alloc(struct objstore *os, unsigned c, uint64_t *off)
{
	uint64_t page = os->root->slab_partial[c];
	struct os_page_desc d;
	unsigned slot;
	bool reused;
	int err = 0;

	if (page) {
		page--;
		if (page >= os_formatted_pages(os->sb, os->root))
			return -ERR_CORRUPT;
	} else {
		err = slab_new(os, c, &page);
		if (err)
			return err;
	}
	slab_get(os, page, &d);
	if (d.kind != OS_PAGE_SLAB || d.size_class != c || d.used >= os_class_slots(c))
		return -ERR_CORRUPT;
	reused = freed_this_tx(os, &d);
	slot = (unsigned)__builtin_ctzll(~d.slot_map);
	d.slot_map |= 1ull << slot;
	d.used++;
	if (d.used == os_class_slots(c))
		err = slab_unlink(os, &d);
	if (!err)
		err = slab_set(os, page, &d);
	if (err)
		return err;
	*off = os_page_off(os, page) + (uint64_t)slot * os_class_size(c);
	return hand_out(os, *off, os_class_size(c), reused);
}

/* os_alloc -- `size` bytes: a small block, or a whole page */
int os_alloc(struct objstore *os, uint64_t size, uint64_t *off)
{
	uint64_t page, block;
	bool reused;
	int err;

	if (!os->in_tx)
		return -ERR_INVAL;
	if (size == 0 || size > OS_PAGE_SIZE)
		return -ERR_INVAL;
	block = size <= OS_LARGEST_SMALL ? os_class_size(class_for(size)) : OS_PAGE_SIZE;
	err = os_log_room(os, OS_FREE_LOG_RESERVE +
				      os_log_record_size(OS_LOG_UNDO, block));
	if (err)
		return err;
	if (size <= OS_LARGEST_SMALL)
		return small_alloc(os, class_for(size), off);
	err = page_alloc(os, OS_PAGE_WHOLE, &page, &reused);
	if (err)
		return err;
	*off = os_page_off(os, page);
	return hand_out(os, *off, OS_PAGE_SIZE, reused);
}

/* small_free -- give back a block of a slab: its bit cleared in the
 * slab's descriptor, a set published at the commit (PMDK defers a
 * transaction's frees so too); the page itself freed the undo way */
static int small_free(struct objstore *os, uint64_t page, uint64_t off)
{
	struct os_page_desc d;
	uint64_t in_page = off - os_page_off(os, page);
	unsigned c, slot;
	bool was_full;
	int err = 0;

	slab_get(os, page, &d);
	c = d.size_class;
	if (c >= OS_SIZE_CLASSES || in_page % os_class_size(c))
		return -ERR_INVAL;
	slot = (unsigned)(in_page / os_class_size(c));
	if (!(d.slot_map & (1ull << slot)))
		return -ERR_INVAL; /* double free */
	/* The block's bytes may be a snapshot's (format.h, I1). */
	os_snap_capture(os, off, os_class_size(c));
	was_full = d.used == os_class_slots(c);
	d.slot_map &= ~(1ull << slot);
	d.used--;
	d.free_epoch = (uint32_t)os->tx_epoch;
	if (was_full && d.used > 0)
		err = slab_push(os, page, &d);
	else if (d.used == 0 && !was_full)
		err = slab_unlink(os, &d);
	if (!err)
		err = slab_set(os, page, &d);
	if (err)
		return err;
	return d.used == 0 ? page_free(os, page) : 0;
}

/* os_free -- give back a block from os_alloc */
int os_free(struct objstore *os, uint64_t off)
{
	uint64_t page;

	if (!os->in_tx)
		return -ERR_INVAL;
	if (!os_in_data(os, off, 1))
		return -ERR_INVAL; /* outside the data pages, or never handed out */
	if (os_log_room(os, OS_FREE_LOG_RESERVE))
		return -ERR_NOSPC;
	page = os_page_of(os, off);
	switch (os->desc[page].kind) {
	case OS_PAGE_WHOLE:
		if (off != os_page_off(os, page))
			return -ERR_INVAL;
		return page_free(os, page);
	case OS_PAGE_SLAB:
		return small_free(os, page, off);
	default:
		return -ERR_INVAL; /* a free page: double free */
	}
}
