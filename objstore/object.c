/*
 * object.c -- objects: ids, headers, the id index, and object contents.
 *
 * An object is a 64-byte checksummed header (struct os_obj_header, one
 * small block) found through the id index: a radix tree of index pages
 * keyed by the base-512 digits of the id, rooted in the root block
 * (index_root, index_depth). Ids come from root->next_object_id, which
 * only grows, so no id is ever reused. The index grows a level (a new top
 * page whose entry 0 is the old top) when an id no longer fits, and never
 * loses one; an index page is freed as soon as its last entry goes.
 *
 * Contents are small (one block of the smallest class holding the size,
 * fixed at creation: kernel objects) or paged (blobs, code, anonymous
 * memory: whole data pages in a radix tree under the header, format.h).
 * Data pages are allocated when first written, so a missing page reads as
 * zeros, growing an object allocates at most the new top levels of its
 * tree, and an object of any size costs nothing until it is written.
 *
 * Invariant: a paged object's depth is os_obj_depth(size), the fewest
 *            levels that reach its last page, and it has no page at or past
 *            its size; the bytes of its last page past an unaligned size
 *            are 0.
 * Invariant: an index page's descriptor `used` counts its non-zero
 *            entries, and is never 0 (an emptied index page is freed and
 *            the entry or root that held it cleared).
 * Invariant: the id index has depth os_obj_key_depth(next_object_id - 1)
 *            and no entry for an id of 0 or >= next_object_id (< OS_ID_LIMIT).
 * Invariant: every header carries its crc. Lookups refuse a header that
 *            does not (-ERR_CORRUPT) and validate every offset before
 *            following it; os_check_objects (check_objects.c)
 *            verifies all of the above.
 *
 * Power cuts: every change runs inside the caller's transaction. Each
 * existing persistent byte is logged (os_tx_log, os_log_root) before it is
 * written; what os_alloc hands out is recorded FRESH and flushed by the
 * commit. A cut anywhere before the commit therefore rolls back to the
 * last committed state, and each crc is recomputed in the same
 * transaction as the change it covers. New pages are linked only after
 * all of a call's allocations succeeded. Writing a fresh block unlogged
 * relies on os_alloc handing out only blocks that were free when the
 * transaction began, or logging their old bytes (alloc.c does the latter
 * for a block freed earlier in the same transaction, see free_epoch).
 *
 * Failing cleanly: an error leaves the heap consistent, ready for the
 * caller to commit or abort. Every call validates its arguments, then
 * checks (os_log_room) the worst case of log it needs -- the COST_* sums
 * below, OS_ALLOC_LOG_RESERVE for each allocation and OS_FREE_LOG_RESERVE
 * for each free -- and
 * allocates everything before linking anything (an allocation failing
 * frees those before it: -ERR_NOMEM changes nothing). Bounded calls
 * reserve their whole need up front:
 *  - create: the root block, 2 + p allocations (header, small block, p <=
 *    2 * OS_ID_MAX_DEPTH index pages) and p + 1 index entries;
 *  - ref: one header; small write: the header and the bytes written;
 *  - grow: the header, the old last page's tail, and an allocation and
 *    an entry per new level (<= OBJ_MAX_DEPTH);
 *  - obj_page(create): the header, and an allocation and an entry for
 *    each level of the path and the page.
 * Calls whose work grows with the object are split into steps, each
 * checking its own room and leaving a consistent object:
 *  - a paged write goes page by page (an allocation and an entry per
 *    level, and the page's old bytes) and stops after the last page that
 *    fit: a short count, or -ERR_NOSPC / -ERR_NOMEM if no byte was written;
 *  - a shrink, and the delete of a paged object, free pages from the end,
 *    one free and one entry per step, always keeping what settling the
 *    object needs (settle_cost) and, for a delete, what unlinking it
 *    needs; when the log runs short the object is left cut at the last
 *    page boundary reached and -ERR_NOSPC returned: commit, call again.
 * Only -ERR_CORRUPT, a damaged heap found part way, leaves a state the
 * caller must abort.
 */
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "object_internal.h"
#include "objstore/object.h"

#define MAX_DEPTH OS_ID_MAX_DEPTH

/* Log bytes reserved with os_log_room before anything changes. */
#define REC(n) OS_ALIGN_UP(sizeof(struct os_log_entry) + (n), OS_CACHE_LINE)
#define COST_HDR REC(sizeof(struct os_obj_header))
#define COST_ROOT REC(sizeof(struct os_root))
#define COST_PAGE REC(OS_PAGE_SIZE)
/* one index entry and its page's descriptor */
#define COST_SLOT (REC(sizeof(uint64_t)) + REC(sizeof(struct os_page_desc)))
/* one os_alloc, and the os_free that undoes it if a later one fails */
#define COST_ALLOC (2 * OS_ALLOC_LOG_RESERVE)
#define COST_FREE OS_FREE_LOG_RESERVE
/* freeing one page and clearing the entry that held it */
#define COST_STEP (COST_FREE + COST_SLOT)

/* A walk from the top of a radix tree towards one key. */
struct rpath {
	unsigned depth;
	uint64_t page[MAX_DEPTH];   /* page[l]: index page at level l (0: bottom), 0 if missing */
	uint64_t leaf;              /* the bottom entry for the key, 0 if none */
};

/* How far a shrink has got. */
struct prune {
	uint64_t first;             /* free the pages from this index on */
	uint64_t keep;              /* log bytes to leave for settling (and the caller) */
	uint64_t stop;              /* the page the log stopped at; UINT64_MAX if none */
};

/* --- geometry ---------------------------------------------------------- */

/* view_of -- the read-only view of an open heap */
static struct view view_of(const struct objstore *os)
{
	struct view v = { os->base, os->sb, os->root, os->desc };

	return v;
}

/* digit -- the entry a key takes in an index page at `level` */
static unsigned digit(uint64_t key, unsigned level)
{
	return (unsigned)(key >> (OS_RADIX_SHIFT * level)) & (OS_RADIX_FANOUT - 1);
}

/* os_obj_span -- keys under one entry of an index page at `level` */
uint64_t os_obj_span(unsigned level)
{
	return 1ull << (OS_RADIX_SHIFT * level);
}

/* os_obj_key_depth -- the fewest radix levels that reach `key` (0 for key 0) */
unsigned os_obj_key_depth(uint64_t key)
{
	unsigned d = 0;

	for (; key; key >>= OS_RADIX_SHIFT)
		d++;
	return d;
}

/* os_obj_npages -- data pages an object of `size` bytes spans */
uint64_t os_obj_npages(uint64_t size)
{
	return size / OS_PAGE_SIZE + (size % OS_PAGE_SIZE != 0);
}

/* os_obj_depth -- the radix depth of a paged object of `size` bytes */
unsigned os_obj_depth(uint64_t size)
{
	return size ? os_obj_key_depth(os_obj_npages(size) - 1) : 0;
}

/* os_obj_placement -- where objects of `type` keep their bytes; 0 for a bad type */
uint8_t os_obj_placement(uint16_t type)
{
	if (type == OS_TYPE_BLOB || type == OS_TYPE_CODE || type == OS_TYPE_ANON)
		return OS_PLACE_PAGED;
	return type && type <= OS_TYPE_MAX ? OS_PLACE_SMALL : 0;
}

/* block_size -- bytes of the block os_alloc gives for `size` (1..OS_LARGEST_SMALL) */
static uint32_t block_size(uint64_t size)
{
	unsigned c = 0;

	while (os_class_size(c) < size)
		c++;
	return os_class_size(c);
}

/* page_ok -- whether `off` starts a data page allocated whole */
static bool page_ok(const struct view *v, uint64_t off)
{
	uint64_t rel = off - v->sb->data_offset;

	return off >= v->sb->data_offset && rel % OS_PAGE_SIZE == 0 &&
	       rel / OS_PAGE_SIZE < os_formatted_pages(v->sb, v->root) &&
	       v->desc[rel / OS_PAGE_SIZE].kind == OS_PAGE_WHOLE;
}

/* block_ok -- whether a block of `size` (a power of two) at `off` is
 * aligned in the data pages ever handed out */
static bool block_ok(const struct view *v, uint64_t off, uint32_t size)
{
	uint64_t rel = off - v->sb->data_offset;

	return off >= v->sb->data_offset && rel % size == 0 &&
	       rel / OS_PAGE_SIZE < os_formatted_pages(v->sb, v->root);
}

/* os_obj_entries -- the entries of index page `off` */
const uint64_t *os_obj_entries(const struct view *v, uint64_t off)
{
	return (const uint64_t *)(v->base + off);
}

/* --- headers and lookups (read-only) ---------------------------------- */

/* os_obj_hdr_crc -- the checksum header h must carry */
uint32_t os_obj_hdr_crc(const struct os_obj_header *h)
{
	return crc32c(0, h, offsetof(struct os_obj_header, crc));
}

/* hdr_seal -- recompute h's checksum after a change */
static void hdr_seal(struct os_obj_header *h)
{
	h->crc = os_obj_hdr_crc(h);
}

/* walk -- follow `key` down `depth` levels from `top`, validating each index page */
static int walk(const struct view *v, uint64_t top, unsigned depth,
		uint64_t key, struct rpath *p)
{
	uint64_t cur = top;

	p->depth = depth;
	memset(p->page, 0, sizeof(p->page));
	for (unsigned l = depth; l-- > 0 && cur;) {
		if (!page_ok(v, cur))
			return -ERR_CORRUPT;
		p->page[l] = cur;
		cur = os_obj_entries(v, cur)[digit(key, l)];
	}
	p->leaf = cur;
	return 0;
}

/* path_missing -- index pages path p lacks */
static unsigned path_missing(const struct rpath *p)
{
	unsigned n = 0;

	for (unsigned l = 0; l < p->depth; l++)
		n += p->page[l] == 0;
	return n;
}

/* hdr_check -- whether header h (at a checked offset) is whole and is `id`'s */
static int hdr_check(const struct view *v, const struct os_obj_header *h,
		     uint64_t id)
{
	if (h->crc != os_obj_hdr_crc(h) || h->id != id ||
	    h->placement != os_obj_placement(h->type))
		return -ERR_CORRUPT;
	/* Invariant: a mode is 0 or OS_MODE_SET with permission bits alone. */
	if (h->mode && (h->mode & ~(OS_MODE_SET | OS_MODE_BITS) || !(h->mode & OS_MODE_SET)))
		return -ERR_CORRUPT;
	if (h->placement == OS_PLACE_SMALL)
		return h->size && h->size <= OS_LARGEST_SMALL && !h->depth && !h->mode &&
		       !h->mtime_ns && block_ok(v, h->data, block_size(h->size)) ? 0 : -ERR_CORRUPT;
	if (h->depth != os_obj_depth(h->size) || (h->data && !page_ok(v, h->data)) ||
	    (!h->size && h->data))
		return -ERR_CORRUPT;
	return 0;
}

/* os_obj_hdr_find -- the heap offset of object `id`'s header, validated */
int os_obj_hdr_find(const struct view *v, uint64_t id, uint64_t *off)
{
	const struct os_root *r = v->root;
	struct rpath p;
	int err;

	if (id == 0 || id >= r->next_object_id || !r->index_root)
		return -ERR_NOENT;
	if (r->index_depth > OS_ID_MAX_DEPTH || os_obj_key_depth(id) > r->index_depth)
		return -ERR_CORRUPT;
	err = walk(v, r->index_root, r->index_depth, id, &p);
	if (err)
		return err;
	if (!p.leaf)
		return -ERR_NOENT;
	if (!block_ok(v, p.leaf, sizeof(struct os_obj_header)))
		return -ERR_CORRUPT;
	*off = p.leaf;
	return hdr_check(v, (const void *)(v->base + p.leaf), id);
}

/* page_find -- the path to page `index` of paged object h; p->leaf the page or 0 */
static int page_find(const struct view *v, const struct os_obj_header *h,
		     uint64_t index, struct rpath *p)
{
	int err = walk(v, h->data, h->depth, index, p);

	if (!err && p->leaf && !page_ok(v, p->leaf))
		err = -ERR_CORRUPT;
	return err;
}

/* count_under -- data pages under index page pg; *budget bounds the walk of a damaged tree */
static int count_under(const struct view *v, uint64_t pg, unsigned level,
		       uint64_t *budget, uint64_t *pages)
{
	const uint64_t *e;

	if (!page_ok(v, pg) || *budget == 0)
		return -ERR_CORRUPT;
	(*budget)--;
	e = os_obj_entries(v, pg);
	for (unsigned i = 0; i < OS_RADIX_FANOUT; i++) {
		int err = 0;

		if (!e[i])
			continue;
		if (level)
			err = count_under(v, e[i], level - 1, budget, pages);
		else if (!page_ok(v, e[i]) || *budget == 0)
			err = -ERR_CORRUPT;
		else
			(*budget)--, (*pages)++;
		if (err)
			return err;
	}
	return 0;
}

/* count_pages -- data pages paged object h has */
static int count_pages(const struct view *v, const struct os_obj_header *h,
		       uint64_t *pages)
{
	uint64_t budget = v->sb->page_count;

	*pages = 0;
	if (!h->data)
		return 0;
	if (!h->depth) {
		*pages = 1;
		return 0;
	}
	return count_under(v, h->data, h->depth - 1, &budget, pages);
}

/* read_paged -- copy len bytes at `off` of paged object h; holes read as zeros */
static int read_paged(const struct view *v, const struct os_obj_header *h,
		      uint64_t off, uint8_t *buf, uint64_t len)
{
	for (uint64_t done = 0; done < len;) {
		uint64_t pos = off + done, in = pos % OS_PAGE_SIZE;
		uint64_t n = OS_PAGE_SIZE - in < len - done ? OS_PAGE_SIZE - in : len - done;
		struct rpath p;
		int err = page_find(v, h, pos / OS_PAGE_SIZE, &p);

		if (err)
			return err;
		if (p.leaf)
			memcpy(buf + done, v->base + p.leaf + in, n);
		else
			memset(buf + done, 0, n);
		done += n;
	}
	return 0;
}

/* next_in -- the least id >= from under id index page pg (level, first id base) */
static int next_in(const struct view *v, uint64_t pg, unsigned level,
		   uint64_t base, uint64_t from, uint64_t *id)
{
	const uint64_t *e;
	unsigned i = from > base ? digit(from, level) : 0;

	if (!page_ok(v, pg))
		return -ERR_CORRUPT;
	e = os_obj_entries(v, pg);
	for (; i < OS_RADIX_FANOUT; i++) {
		uint64_t start = base + i * os_obj_span(level);
		int err;

		if (!e[i])
			continue;
		if (!level) {
			*id = start;
			return 0;
		}
		err = next_in(v, e[i], level - 1, start, from > start ? from : start, id);
		if (err != -ERR_NOENT)
			return err;
	}
	/* Invariant: an index page is never empty, so a search of all of one finds an id. */
	return from > base ? -ERR_NOENT : -ERR_CORRUPT;
}

/* --- changing index pages ---------------------------------------------- */

/* slot_set -- store `val` in entry i of index page pg, keeping its
 * descriptor's count; `fresh`: pg was allocated by this call (no undo needed) */
static int slot_set(struct objstore *os, uint64_t pg, unsigned i, uint64_t val,
		    bool fresh)
{
	uint64_t *slot = (uint64_t *)os_ptr(os, pg) + i;
	struct os_page_desc *d = &os->desc[os_page_of(os, pg)];
	int delta = (val != 0) - (*slot != 0);
	int err = 0;

	if ((delta < 0 && d->used == 0) || (delta > 0 && d->used >= OS_RADIX_FANOUT))
		return -ERR_CORRUPT;
	if (!fresh)
		err = os_tx_log(os, slot, sizeof(*slot));
	if (!err && delta)
		err = os_tx_log(os, d, sizeof(*d));
	if (err)
		return err;
	*slot = val;
	if (delta) {
		d->used = (uint16_t)(d->used + delta);
		d->crc = os_desc_crc(d);
	}
	return 0;
}

/* alloc_all -- n zero-filled allocations of sizes[i] bytes: all of them or none */
static int alloc_all(struct objstore *os, unsigned n, const uint64_t *sizes,
		     uint64_t *offs)
{
	for (unsigned i = 0; i < n; i++) {
		int err = os_alloc(os, sizes[i], &offs[i]);

		if (err) {
			while (i-- > 0)
				os_free(os, offs[i]); /* log room reserved: COST_ALLOC */
			return err;
		}
		memset(os_ptr(os, offs[i]), 0, sizes[i]);
	}
	return 0;
}

/* alloc_pages -- n zero-filled whole pages (n <= MAX_DEPTH + 1): all or none */
static int alloc_pages(struct objstore *os, unsigned n, uint64_t *offs)
{
	uint64_t sizes[MAX_DEPTH + 1];

	for (unsigned i = 0; i < MAX_DEPTH + 1; i++)
		sizes[i] = OS_PAGE_SIZE;
	return alloc_all(os, n, sizes, offs);
}

/* path_link -- store `leaf` at `key` along path p, linking in the n pool
 * pages where p has none; *top: the new top when p had no top, else 0 */
static int path_link(struct objstore *os, struct rpath *p, uint64_t key,
		     uint64_t leaf, const uint64_t *pool, unsigned n, uint64_t *top)
{
	uint64_t child = leaf;

	/* Invariant: the caller allocated exactly the pages the path lacks. */
	if (path_missing(p) != n)
		os->pf->fatal("objstore: path_link: pool does not match the path");
	*top = 0;
	for (unsigned l = 0; l < p->depth; l++) {
		bool fresh = !p->page[l];
		int err;

		if (fresh)
			p->page[l] = pool[--n];
		err = slot_set(os, p->page[l], digit(key, l), child, fresh);
		if (err || !fresh)
			return err;
		child = p->page[l];
	}
	*top = child;
	return 0;
}

/* --- the id index ------------------------------------------------------ */

/* id_pages_needed -- index pages entering `id` into a `depth`-level index allocates */
static int id_pages_needed(const struct objstore *os, uint64_t id,
			   unsigned depth, unsigned *np)
{
	const struct os_root *r = os->root;
	struct view v = view_of(os);
	struct rpath p;
	int err;

	if (!r->index_root) {
		*np = depth;
		return 0;
	}
	if (r->index_depth < depth) {
		/* New tops (entry 0: the old top); id's top digit is not 0
		 * (depth = os_obj_key_depth(id)), so its path below the top is
		 * new. */
		*np = depth - r->index_depth + depth - 1;
		return 0;
	}
	err = walk(&v, r->index_root, depth, id, &p);
	if (!err && p.leaf)
		err = -ERR_CORRUPT; /* an entry for an id never handed out */
	*np = path_missing(&p);
	return err;
}

/* id_link -- enter header `hdr` as `id`, the index grown to `depth` levels
 * with the np pages of the pool (root block logged) */
static int id_link(struct objstore *os, uint64_t id, unsigned depth,
		   const uint64_t *pool, unsigned np, uint64_t hdr)
{
	struct os_root *r = os->root;
	struct view v;
	struct rpath p;
	uint64_t top;
	unsigned k = 0;
	int err;

	for (; r->index_root && r->index_depth < depth; k++) {
		err = slot_set(os, pool[k], 0, r->index_root, true);
		if (err)
			return err;
		r->index_root = pool[k];
		r->index_depth++;
	}
	r->index_depth = depth;
	v = view_of(os);
	err = walk(&v, r->index_root, depth, id, &p);
	if (!err)
		err = path_link(os, &p, id, hdr, pool + k, np - k, &top);
	if (!err && top)
		r->index_root = top;
	return err;
}

/* id_unlink -- clear id's entry, freeing the index pages it empties (root block logged) */
static int id_unlink(struct objstore *os, uint64_t id)
{
	struct view v = view_of(os);
	struct rpath p;
	int err = walk(&v, os->root->index_root, os->root->index_depth, id, &p);

	for (unsigned l = 0; !err && l < p.depth; l++) {
		err = slot_set(os, p.page[l], digit(id, l), 0, false);
		if (err || os->desc[os_page_of(os, p.page[l])].used)
			return err;
		err = os_free(os, p.page[l]);
	}
	if (!err)
		os->root->index_root = 0;
	return err;
}

/* --- headers (changing) ------------------------------------------------ */

/* hdr_get -- object `id`'s header, to change inside a transaction */
static int hdr_get(struct objstore *os, uint64_t id, struct os_obj_header **h)
{
	struct view v = view_of(os);
	uint64_t off;
	int err;

	if (!os->in_tx)
		return -ERR_INVAL;
	err = os_obj_hdr_find(&v, id, &off);
	if (!err)
		*h = os_ptr(os, off);
	return err;
}

/* stamp -- h's size or contents change in this transaction: its epoch,
 * and a paged object's mtime (format.h) */
static void stamp(struct objstore *os, struct os_obj_header *h)
{
	h->modified_epoch = os->tx_epoch;
	if (h->placement == OS_PLACE_PAGED)
		h->mtime_ns = os_tx_wall_ns(os);
}

/* hdr_init -- fill the fresh header block h of a new object */
static void hdr_init(struct objstore *os, struct os_obj_header *h, uint64_t id,
		     uint16_t type, uint64_t size, uint64_t data)
{
	memset(h, 0, sizeof(*h));
	h->id = id;
	h->type = type;
	h->refcount = 1;
	h->size = size;
	h->data = data;
	h->placement = os_obj_placement(type);
	h->depth = (uint8_t)(h->placement == OS_PLACE_PAGED ? os_obj_depth(size) : 0);
	stamp(os, h);
	hdr_seal(h);
}

/* create_check -- the arguments of os_obj_create, and the root's id fields */
static int create_check(const struct objstore *os, uint16_t type, uint64_t size)
{
	const struct os_root *r = os->root;
	struct view v = view_of(os);

	if (!os_obj_placement(type))
		return -ERR_INVAL;
	if (os_obj_placement(type) == OS_PLACE_SMALL &&
	    (size == 0 || size > OS_LARGEST_SMALL))
		return -ERR_TOOBIG;
	if (!os->in_tx)
		return -ERR_INVAL;
	if (r->next_object_id >= OS_ID_LIMIT)
		return -ERR_NOSPC; /* ids exhausted */
	if (r->next_object_id == 0 || r->index_depth > OS_ID_MAX_DEPTH ||
	    (r->index_root && (!r->index_depth || !page_ok(&v, r->index_root))))
		return -ERR_CORRUPT;
	return 0;
}

/* --- paged contents (changing) ----------------------------------------- */

/* obj_page_get -- page `index` of paged object h (logged by the caller),
 * allocated with its path if missing and `create`; *fresh when allocated now */
static int obj_page_get(struct objstore *os, struct os_obj_header *h,
			uint64_t index, bool create, uint64_t *off, bool *fresh)
{
	struct view v = view_of(os);
	uint64_t pool[MAX_DEPTH + 1], top;
	struct rpath p;
	unsigned n;
	int err = page_find(&v, h, index, &p);

	*fresh = false;
	if (err)
		return err;
	*off = p.leaf;
	if (p.leaf || !create)
		return 0;
	n = path_missing(&p);
	err = alloc_pages(os, n + 1, pool);
	if (err)
		return err;
	*off = pool[n];
	*fresh = true;
	err = path_link(os, &p, index, pool[n], pool, n, &top);
	if (!err && top) {
		h->data = top;
		hdr_seal(h);
	}
	return err;
}

/* write_page -- write n bytes at `in` of page `index` of h; changes nothing on error */
static int write_page(struct objstore *os, struct os_obj_header *h,
		      uint64_t index, uint32_t in, const uint8_t *src, uint32_t n)
{
	uint64_t pg;
	bool fresh;
	int err = os_log_room(os, (h->depth + 1u) * (COST_ALLOC + COST_SLOT) + REC(n));

	if (!err)
		err = obj_page_get(os, h, index, true, &pg, &fresh);
	if (!err && !fresh)
		err = os_tx_log(os, (uint8_t *)os_ptr(os, pg) + in, n);
	if (!err)
		memcpy((uint8_t *)os_ptr(os, pg) + in, src, n);
	return err;
}

/* write_paged -- write page by page; the bytes written, or the first page's error */
static int64_t write_paged(struct objstore *os, struct os_obj_header *h,
			   uint64_t off, const uint8_t *buf, uint64_t len)
{
	uint64_t done = 0;
	int err = os_tx_log(os, h, sizeof(*h));

	while (!err && done < len) {
		uint64_t pos = off + done, in = pos % OS_PAGE_SIZE;
		uint64_t n = OS_PAGE_SIZE - in < len - done ? OS_PAGE_SIZE - in : len - done;

		err = write_page(os, h, pos / OS_PAGE_SIZE, (uint32_t)in,
				 buf + done, (uint32_t)n);
		if (!err)
			done += n;
	}
	if (done) {
		stamp(os, h);
		hdr_seal(h);
	}
	return done && err != -ERR_CORRUPT ? (int64_t)done : err;
}

/* write_small -- write len bytes at `off` of small object h, all or nothing */
static int64_t write_small(struct objstore *os, struct os_obj_header *h,
			   uint64_t off, const void *buf, uint64_t len)
{
	uint8_t *data = (uint8_t *)os_ptr(os, h->data) + off;
	int err = os_log_room(os, COST_HDR + REC(len));

	if (!err)
		err = os_tx_log(os, data, len);
	if (!err)
		err = os_tx_log(os, h, sizeof(*h));
	if (err)
		return err;
	memcpy(data, buf, len);
	stamp(os, h);
	hdr_seal(h);
	return (int64_t)len;
}

/* tail_zero -- zero (logged) the bytes of h's page holding byte `size` from there on, if any is set */
static int tail_zero(struct objstore *os, const struct os_obj_header *h,
		     uint64_t size)
{
	struct view v = view_of(os);
	uint32_t in = size % OS_PAGE_SIZE;
	struct rpath p;
	uint8_t *tail;
	int err;

	if (!in)
		return 0;
	err = page_find(&v, h, size / OS_PAGE_SIZE, &p);
	if (err || !p.leaf)
		return err;
	tail = (uint8_t *)os_ptr(os, p.leaf) + in;
	if (os_all_zero(tail, OS_PAGE_SIZE - in))
		return 0;
	err = os_tx_log(os, tail, OS_PAGE_SIZE - in);
	if (!err)
		memset(tail, 0, OS_PAGE_SIZE - in);
	return err;
}

/* grow -- make paged object h `size` bytes (more than now); the new bytes read as zeros */
static int grow(struct objstore *os, struct os_obj_header *h, uint64_t size)
{
	unsigned depth = os_obj_depth(size), g = h->data ? depth - h->depth : 0;
	uint64_t pool[OBJ_MAX_DEPTH];
	int err = os_log_room(os, COST_HDR + COST_PAGE + g * (COST_ALLOC + COST_SLOT));

	if (!err)
		err = tail_zero(os, h, h->size); /* bytes past the size may have been written through a mapping */
	if (!err)
		err = os_tx_log(os, h, sizeof(*h));
	if (!err)
		err = alloc_pages(os, g, pool);
	for (unsigned k = 0; !err && k < g; k++) {
		err = slot_set(os, pool[k], 0, h->data, true);
		if (!err)
			h->data = pool[k];
	}
	if (!err) {
		h->size = size;
		h->depth = (uint8_t)depth;
		stamp(os, h);
	}
	hdr_seal(h);
	return err;
}

static int prune_page(struct objstore *os, uint64_t pg, unsigned level,
		      uint64_t base, struct prune *pr);

/* prune_entry -- free what entry i of index page pg holds from page pr->first on,
 * and the entry itself once nothing is left under it */
static int prune_entry(struct objstore *os, uint64_t pg, unsigned i,
		       unsigned level, uint64_t start, struct prune *pr)
{
	struct view v = view_of(os);
	uint64_t child = os_obj_entries(&v, pg)[i];
	int err;

	if (!page_ok(&v, child))
		return -ERR_CORRUPT;
	if (level) {
		err = prune_page(os, child, level - 1, start, pr);
		if (err || os->desc[os_page_of(os, child)].used)
			return err;
	} else if (os_log_room(os, COST_STEP + pr->keep)) {
		pr->stop = start;
		return -ERR_NOSPC;
	}
	err = os_free(os, child);
	if (!err)
		err = slot_set(os, pg, i, 0, false);
	return err;
}

/* prune_page -- free the pages from pr->first on under index page pg (level, first page base), the last first */
static int prune_page(struct objstore *os, uint64_t pg, unsigned level,
		      uint64_t base, struct prune *pr)
{
	const uint64_t *e = os_ptr(os, pg);

	for (unsigned i = OS_RADIX_FANOUT; i-- > 0;) {
		uint64_t start = base + i * os_obj_span(level);
		int err;

		if (start + os_obj_span(level) <= pr->first)
			break;
		if (!e[i])
			continue;
		err = prune_entry(os, pg, i, level, start, pr);
		if (err)
			return err;
	}
	return 0;
}

/* prune_top -- free h's pages from pr->first on; h->data cleared if none is left */
static int prune_top(struct objstore *os, struct os_obj_header *h,
		     struct prune *pr)
{
	int err;

	if (!h->data)
		return 0;
	if (h->depth) {
		err = prune_page(os, h->data, h->depth - 1, 0, pr);
		if (err || os->desc[os_page_of(os, h->data)].used)
			return err;
	} else if (pr->first > 0) {
		return 0;
	} else if (os_log_room(os, COST_STEP + pr->keep)) {
		pr->stop = 0;
		return -ERR_NOSPC;
	}
	err = os_free(os, h->data);
	if (!err)
		h->data = 0;
	return err;
}

/* collapse -- drop the top level of h's tree, whose top page holds at most entry 0 */
static int collapse(struct objstore *os, struct os_obj_header *h)
{
	struct view v = view_of(os);
	uint64_t top = h->data, child;
	int err;

	if (top) {
		child = os_obj_entries(&v, top)[0];
		/* Invariant: nothing lies past the new size, so entry 0 is all the top holds. */
		if (os->desc[os_page_of(os, top)].used != (child != 0) ||
		    (child && !page_ok(&v, child)))
			return -ERR_CORRUPT;
		err = os_free(os, top);
		if (err)
			return err;
		h->data = child;
	}
	h->depth--;
	return 0;
}

/* settle_cost -- log bytes settle may need for a tree of `depth` levels,
 * with the frees of index pages that the last pruning steps empty */
static uint64_t settle_cost(unsigned depth)
{
	return depth * (COST_STEP + COST_FREE) + COST_PAGE;
}

/* settle -- give h (logged) its new, smaller size: fewer levels, a zeroed tail */
static int settle(struct objstore *os, struct os_obj_header *h, uint64_t size)
{
	unsigned depth = os_obj_depth(size);
	int err = 0;

	while (!err && h->depth > depth)
		err = collapse(os, h);
	if (!err)
		err = tail_zero(os, h, size);
	if (!err) {
		h->size = size;
		stamp(os, h);
	}
	hdr_seal(h);
	return err;
}

/* shrink -- cut paged object h to `size` bytes, freeing its pages from the
 * end and leaving `keep` log bytes to the caller; on -ERR_NOSPC the object
 * is left cut at the last page boundary reached */
static int shrink(struct objstore *os, struct os_obj_header *h, uint64_t size,
		  uint64_t keep)
{
	struct prune pr = { os_obj_npages(size), keep + settle_cost(h->depth),
			    UINT64_MAX };
	int err = os_log_room(os, COST_HDR + COST_STEP + pr.keep), err2;

	if (!err)
		err = os_tx_log(os, h, sizeof(*h));
	if (err)
		return err;
	err = prune_top(os, h, &pr);
	if (err == -ERR_NOSPC && (pr.stop + 1) * OS_PAGE_SIZE < h->size)
		size = (pr.stop + 1) * OS_PAGE_SIZE;
	else if (err == -ERR_NOSPC)
		size = h->size;
	else if (err)
		return err;
	err2 = settle(os, h, size);
	return err2 ? err2 : err;
}

/* obj_unlink -- free object `id`, header h (its pages gone), and its index entry */
static int obj_unlink(struct objstore *os, uint64_t id, struct os_obj_header *h)
{
	int err = os_log_root(os);

	if (!err && h->placement == OS_PLACE_SMALL)
		err = os_free(os, h->data);
	if (!err)
		err = id_unlink(os, id);
	if (!err)
		err = os_free(os, os_off(os, h));
	if (!err)
		os->root->object_count--;
	return err;
}

/* create_alloc -- a header block, a small object's data block (if small)
 * and np index pages, in that order in offs[]: all of them or none */
static int create_alloc(struct objstore *os, uint64_t size, bool small,
			unsigned np, uint64_t *offs)
{
	uint64_t sizes[2 + 2 * MAX_DEPTH];
	unsigned n = 0;

	sizes[n++] = sizeof(struct os_obj_header);
	if (small)
		sizes[n++] = block_size(size);
	for (unsigned k = 0; k < np; k++)
		sizes[n++] = OS_PAGE_SIZE;
	return alloc_all(os, n, sizes, offs);
}

/* --- the interface ------------------------------------------------------ */

/* os_obj_create -- a new object of `type` and `size` bytes, refcount 1 */
int os_obj_create(struct objstore *os, uint16_t type, uint64_t size,
		  uint64_t *id)
{
	struct os_root *r = os->root;
	uint64_t offs[2 + 2 * MAX_DEPTH], nid = r->next_object_id;
	bool small = os_obj_placement(type) == OS_PLACE_SMALL;
	unsigned depth, np;
	int err = create_check(os, type, size);

	if (err)
		return err;
	depth = os_obj_key_depth(nid) > r->index_depth ?
		os_obj_key_depth(nid) : r->index_depth;
	err = id_pages_needed(os, nid, depth, &np);
	if (!err)
		err = os_log_room(os, COST_ROOT + (2 + np) * COST_ALLOC + (np + 1) * COST_SLOT);
	if (!err)
		err = os_log_root(os);
	if (!err)
		err = create_alloc(os, size, small, np, offs);
	if (!err)
		err = id_link(os, nid, depth, offs + 1 + small, np, offs[0]);
	if (err)
		return err;
	hdr_init(os, os_ptr(os, offs[0]), nid, type, size, small ? offs[1] : 0);
	r->next_object_id++;
	r->object_count++;
	if (id)
		*id = nid;
	return 0;
}

/* obj_stat -- the header of object `id`, its pages counted if `count` */
static int obj_stat(const struct objstore *os, uint64_t id, bool count,
		    struct os_obj_info *out)
{
	struct view v = view_of(os);
	const struct os_obj_header *h;
	uint64_t off, pages = 0;
	int err = os_obj_hdr_find(&v, id, &off);

	if (err)
		return err;
	h = (const void *)(v.base + off);
	if (count && h->placement == OS_PLACE_PAGED)
		err = count_pages(&v, h, &pages);
	if (err)
		return err;
	memset(out, 0, sizeof(*out));
	out->id = h->id;
	out->type = h->type;
	out->placement = h->placement;
	out->refcount = h->refcount;
	out->size = h->size;
	out->modified_epoch = h->modified_epoch;
	out->mode = h->mode;
	out->mtime_ns = h->mtime_ns;
	out->pages = pages;
	return 0;
}

/* os_obj_stat -- the header of object `id` */
int os_obj_stat(const struct objstore *os, uint64_t id, struct os_obj_info *out)
{
	return obj_stat(os, id, true, out);
}

/* os_obj_head -- os_obj_stat without counting pages (pages = 0) */
int os_obj_head(const struct objstore *os, uint64_t id, struct os_obj_info *out)
{
	return obj_stat(os, id, false, out);
}

/* os_obj_delete -- free the object, its pages and its index entry */
int os_obj_delete(struct objstore *os, uint64_t id)
{
	return os_obj_delete_keep(os, id, 0);
}

/* os_obj_delete_keep -- os_obj_delete, leaving `keep` bytes of log free */
int os_obj_delete_keep(struct objstore *os, uint64_t id, uint64_t keep)
{
	struct os_obj_header *h;
	uint64_t rest;
	int err = hdr_get(os, id, &h);

	if (err)
		return err;
	/* what obj_unlink needs once the pages are gone, and the caller's share */
	rest = COST_ROOT + 2 * COST_FREE + os->root->index_depth * COST_STEP + keep;
	if (h->placement == OS_PLACE_PAGED)
		err = shrink(os, h, 0, rest);
	else
		err = os_log_room(os, rest);
	return err ? err : obj_unlink(os, id, h);
}

/* os_obj_ref -- refcount += delta; the new count in *count */
int os_obj_ref(struct objstore *os, uint64_t id, int32_t delta, uint32_t *count)
{
	struct os_obj_header *h;
	int64_t n;
	int err = hdr_get(os, id, &h);

	if (err)
		return err;
	n = (int64_t)h->refcount + delta;
	if (n < 0 || n > UINT32_MAX)
		return -ERR_RANGE;
	if (delta) {
		err = os_tx_log(os, h, sizeof(*h)); /* -ERR_NOSPC logs nothing */
		if (err)
			return err;
		h->refcount = (uint32_t)n;
		hdr_seal(h);
	}
	if (count)
		*count = (uint32_t)n;
	return 0;
}

/* paged_get -- paged object `id`'s header; -ERR_NOTSUP for a small object */
static int paged_get(struct objstore *os, uint64_t id, struct os_obj_header **h)
{
	int err = hdr_get(os, id, h);

	if (err)
		return err;
	return (*h)->placement == OS_PLACE_PAGED ? 0 : -ERR_NOTSUP;
}

/* os_obj_resize -- grow (zero-filled) or shrink a paged object */
int os_obj_resize(struct objstore *os, uint64_t id, uint64_t size)
{
	struct os_obj_header *h;
	int err = paged_get(os, id, &h);

	if (err)
		return err;
	if (size == h->size)
		return 0;
	return size > h->size ? grow(os, h, size) : shrink(os, h, size, 0);
}

/* paged_hdr -- paged object `id`'s header, logged to change (COST_HDR) */
static int paged_hdr(struct objstore *os, uint64_t id, struct os_obj_header **h)
{
	int err = paged_get(os, id, h);

	if (!err)
		err = os_log_room(os, COST_HDR);
	return err ? err : os_tx_log(os, *h, sizeof(**h));
}

/* os_obj_set_mode -- give paged object `id` the permission bits `mode` */
int os_obj_set_mode(struct objstore *os, uint64_t id, uint16_t mode)
{
	struct os_obj_header *h;
	int err;

	if (mode & ~OS_MODE_BITS)
		return -ERR_INVAL;
	err = paged_hdr(os, id, &h);
	if (err)
		return err;
	h->mode = (uint16_t)(OS_MODE_SET | mode);
	hdr_seal(h);
	return 0;
}

/* os_obj_set_mtime -- give paged object `id` the mtime `ns` */
int os_obj_set_mtime(struct objstore *os, uint64_t id, int64_t ns)
{
	struct os_obj_header *h;
	int err = paged_hdr(os, id, &h);

	if (err)
		return err;
	h->mtime_ns = ns;
	hdr_seal(h);
	return 0;
}

/* os_obj_touch -- paged object `id` changed by a way that passed objstore
 * by (a mapping, the kernel's DRAM cache): stamp it as its own changes do;
 * nothing to log when this transaction stamped it already */
int os_obj_touch(struct objstore *os, uint64_t id)
{
	struct os_obj_header *h;
	int err = paged_get(os, id, &h);

	if (err)
		return err;
	if (h->modified_epoch == os->tx_epoch && h->mtime_ns == os_tx_wall_ns(os))
		return 0;
	err = paged_hdr(os, id, &h);
	if (err)
		return err;
	stamp(os, h);
	hdr_seal(h);
	return 0;
}

/* os_obj_read -- copy up to len bytes from offset `off`; bytes read */
int64_t os_obj_read(const struct objstore *os, uint64_t id, uint64_t off,
		    void *buf, uint64_t len)
{
	struct view v = view_of(os);
	const struct os_obj_header *h;
	uint64_t hoff;
	int err = os_obj_hdr_find(&v, id, &hoff);

	if (err)
		return err;
	h = (const void *)(v.base + hoff);
	if (off >= h->size)
		return 0;
	if (len > h->size - off)
		len = h->size - off;
	if (len > INT64_MAX)
		len = INT64_MAX;
	if (h->placement == OS_PLACE_SMALL)
		memcpy(buf, v.base + h->data + off, len);
	else
		err = read_paged(&v, h, off, buf, len);
	return err ? err : (int64_t)len;
}

/* os_obj_write -- copy len bytes to offset `off`; bytes written (short when
 * the log or the heap filled part way) */
int64_t os_obj_write(struct objstore *os, uint64_t id, uint64_t off,
		     const void *buf, uint64_t len)
{
	struct os_obj_header *h;
	int err = hdr_get(os, id, &h);

	if (err)
		return err;
	if (off > h->size || len > h->size - off || len > INT64_MAX)
		return -ERR_RANGE;
	if (len == 0)
		return 0;
	if (h->placement == OS_PLACE_SMALL)
		return write_small(os, h, off, buf, len);
	return write_paged(os, h, off, buf, len);
}

/* os_obj_data -- the address of a small object's bytes, or NULL */
void *os_obj_data(const struct objstore *os, uint64_t id)
{
	struct view v = view_of(os);
	const struct os_obj_header *h;
	uint64_t off;

	if (os_obj_hdr_find(&v, id, &off))
		return NULL;
	h = (const void *)(v.base + off);
	return h->placement == OS_PLACE_SMALL ? os_ptr(os, h->data) : NULL;
}

/* page_create -- allocate missing page `index` of h (zero-filled); its offset in *off */
static int page_create(struct objstore *os, struct os_obj_header *h,
		       uint64_t index, uint64_t *off)
{
	bool fresh;
	int err;

	if (!os->in_tx)
		return -ERR_INVAL;
	err = os_log_room(os, COST_HDR + (h->depth + 1u) * (COST_ALLOC + COST_SLOT));
	if (!err)
		err = os_tx_log(os, h, sizeof(*h));
	if (!err)
		err = obj_page_get(os, h, index, true, off, &fresh);
	return err;
}

/* find_page -- page `index` of paged object `id`: its header and the
 * page's heap offset (0 when missing) */
static int find_page(const struct objstore *os, uint64_t id, uint64_t index,
		     struct os_obj_header **hp, uint64_t *page_off)
{
	struct view v = view_of(os);
	struct os_obj_header *h;
	struct rpath p;
	uint64_t off;
	int err = os_obj_hdr_find(&v, id, &off);

	if (err)
		return err;
	h = os_ptr(os, off);
	if (h->placement != OS_PLACE_PAGED)
		return -ERR_NOTSUP;
	if (index >= os_obj_npages(h->size))
		return -ERR_RANGE;
	err = page_find(&v, h, index, &p);
	if (err)
		return err;
	*hp = h;
	*page_off = p.leaf;
	return 0;
}

/* os_obj_page -- heap offset of page `index` of a paged object, allocated if `create` */
int os_obj_page(struct objstore *os, uint64_t id, uint64_t index, bool create,
		uint64_t *page_off)
{
	struct os_obj_header *h;
	int err = find_page(os, id, index, &h, page_off);

	if (err || *page_off || !create)
		return err;
	return page_create(os, h, index, page_off);
}

/* os_obj_page_held -- os_obj_page(.., false, ..) and the bytes of the page the object holds */
int os_obj_page_held(const struct objstore *os, uint64_t id, uint64_t index,
		     uint64_t *page_off, uint64_t *held)
{
	struct os_obj_header *h;
	int err = find_page(os, id, index, &h, page_off);

	if (err)
		return err;
	*held = h->size - index * OS_PAGE_SIZE < OS_PAGE_SIZE ?
		h->size - index * OS_PAGE_SIZE : OS_PAGE_SIZE;
	return 0;
}

/* os_obj_move_log_need -- log bytes an os_alloc of a page and an
 * os_obj_page_move may need at most, together */
uint64_t os_obj_move_log_need(void)
{
	return OS_ALLOC_LOG_RESERVE + COST_HDR + COST_SLOT + COST_FREE;
}

/* os_obj_page_move -- link page `to` in place of page `index` and free the old one */
int os_obj_page_move(struct objstore *os, uint64_t id, uint64_t index,
		     uint64_t to)
{
	struct view v = view_of(os);
	struct os_obj_header *h;
	struct rpath p;
	int err = hdr_get(os, id, &h);

	if (err)
		return err;
	if (h->placement != OS_PLACE_PAGED)
		return -ERR_NOTSUP;
	if (index >= os_obj_npages(h->size))
		return -ERR_RANGE;
	if (!page_ok(&v, to))
		return -ERR_INVAL;
	err = page_find(&v, h, index, &p);
	if (err)
		return err;
	if (!p.leaf)
		return -ERR_NOENT;
	if (p.leaf == to)
		return -ERR_INVAL;
	err = os_log_room(os, COST_HDR + COST_SLOT + COST_FREE);
	if (!err)
		err = os_tx_log(os, h, sizeof(*h));
	if (!err && h->depth)
		err = slot_set(os, p.page[0], digit(index, 0), to, false);
	if (err)
		return err;
	if (!h->depth)
		h->data = to;
	stamp(os, h);
	hdr_seal(h);
	return os_free(os, p.leaf);
}

/* os_obj_next -- the smallest live id >= `from` */
int os_obj_next(const struct objstore *os, uint64_t from, uint64_t *id)
{
	struct view v = view_of(os);
	const struct os_root *r = os->root;
	int err;

	if (from == 0)
		from = 1;
	if (!r->index_root || from >= r->next_object_id)
		return -ERR_NOENT;
	if (r->index_depth == 0 || r->index_depth > OS_ID_MAX_DEPTH)
		return -ERR_CORRUPT;
	if (os_obj_key_depth(from) > r->index_depth)
		return -ERR_NOENT;
	err = next_in(&v, r->index_root, r->index_depth - 1, 0, from, id);
	if (!err && *id >= r->next_object_id)
		err = -ERR_CORRUPT;
	return err;
}

/* --- names and reverse lookups (diagnostics) ----------------------------- */

static const char *const type_names[] = {
	[OS_TYPE_BLOB] = "blob",
	[OS_TYPE_CODE] = "code",
	[OS_TYPE_PROCESS] = "process",
	[OS_TYPE_THREAD] = "thread",
	[OS_TYPE_ASPACE] = "aspace",
	[OS_TYPE_CHANNEL] = "channel",
	[OS_TYPE_CATALOGUE] = "catalogue",
	[OS_TYPE_ANON] = "anon",
	[OS_TYPE_HANDLES] = "handles",
	[OS_TYPE_KERNEL] = "kernel",
};
_Static_assert(sizeof(type_names) / sizeof(type_names[0]) == OS_TYPE_MAX + 1,
	       "a name for every object type");

/* os_obj_type_name -- "blob", "code"... for an object type ("?" if unknown) */
const char *os_obj_type_name(uint16_t type)
{
	return type >= 1 && type <= OS_TYPE_MAX ? type_names[type] : "?";
}

/* within -- whether `off` lies in [start, start+len) */
static bool within(uint64_t off, uint64_t start, uint64_t len)
{
	return off >= start && off - start < len;
}

/* owner_under -- whether `off` lies in index page pg (at `level`, its
 * first data page numbered `first`) or in a page below it; *budget bounds
 * the walk of a damaged tree */
static bool owner_under(const struct view *v, uint64_t pg, unsigned level,
			uint64_t first, uint64_t off, uint64_t *budget,
			struct os_obj_where *w)
{
	const uint64_t *e;

	if (!page_ok(v, pg) || *budget == 0)
		return false;
	(*budget)--;
	if (within(off, pg, OS_PAGE_SIZE)) {
		w->part = OS_PART_INDEX;
		w->offset = off - pg;
		return true;
	}
	e = os_obj_entries(v, pg);
	for (unsigned i = 0; i < OS_RADIX_FANOUT; i++) {
		uint64_t index = first + i * os_obj_span(level);

		if (!e[i])
			continue;
		if (level && owner_under(v, e[i], level - 1, index, off, budget, w))
			return true;
		if (!level && within(off, e[i], OS_PAGE_SIZE)) {
			w->part = OS_PART_DATA;
			w->offset = index * OS_PAGE_SIZE + (off - e[i]);
			return true;
		}
	}
	return false;
}

/* owner_of -- whether `off` lies in the object whose header is at `hoff` (validated) */
static bool owner_of(const struct view *v, uint64_t hoff, uint64_t off,
		     struct os_obj_where *w)
{
	const struct os_obj_header *h = (const void *)(v->base + hoff);
	uint64_t budget = v->sb->page_count;

	w->id = h->id;
	w->type = h->type;
	w->part = OS_PART_HEADER;
	w->offset = off - hoff;
	if (within(off, hoff, sizeof(*h)))
		return true;
	w->part = OS_PART_DATA;
	w->offset = off - h->data;
	if (h->placement == OS_PLACE_SMALL)
		return within(off, h->data, block_size(h->size));
	if (!h->data)
		return false;
	if (!h->depth)
		return within(off, h->data, OS_PAGE_SIZE);
	return owner_under(v, h->data, h->depth - 1u, 0, off, &budget, w);
}

/* os_obj_owner -- the object whose header, bytes or index pages hold `off` */
int os_obj_owner(const struct objstore *os, uint64_t off, struct os_obj_where *out)
{
	struct view v = view_of(os);
	uint64_t id = 1, hoff;

	for (; os_obj_next(os, id, &id) == 0; id++)
		if (os_obj_hdr_find(&v, id, &hoff) == 0 && owner_of(&v, hoff, off, out))
			return 0;
	return -ERR_NOENT;
}
