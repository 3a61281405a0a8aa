/*
 * catalogue.c -- the catalogue: a persistent B+-tree from names to ids.
 *
 * Nodes are whole data pages laid out as format.h describes: a 32-byte
 * header, an array of 8-byte slots in key order, a gap, and a heap of
 * entries (crc, value, len, name) growing down from the end of the page.
 * A slot holds the entry's offset, a 12-bit check of itself and a 5-byte
 * "hint": the key bytes after the prefix that every key of the node
 * shares. Binary search compares hints and reads an entry only when the
 * hints tie, so a lookup touches the slot array and one or two entries per
 * node instead of a cache line per probe.
 *
 * Checksums, and what each path verifies. A node has three kinds of
 * checksum (header crc, slot checks, entry crcs), together covering every
 * byte that means anything, so work is proportional to what is touched:
 *  - lookup (fast): what its answer rests on: the leaf header's crc, the
 *    check of the slot found and the crc of its entry, and that every node
 *    passed is an allocated page (internal headers are only bounds- and
 *    level-checked). A name found is therefore right: it equals a verified
 *    live entry, and a sound-looking node reached through a flipped
 *    pointer is either elsewhere in the tree (so it can not hold the name)
 *    or a freed page (caught). A miss may have been steered by a flipped
 *    bit, so it is repeated checked before it is believed. Cost: ~20 ns
 *    of checksums per lookup (28 + 8 + ~45 bytes), not 4 KiB per node.
 *  - checked (insert, remove, rename, next, a lookup's miss): every header
 *    crc, and every slot and entry the search reads (about log2(count)
 *    slot checks and one to three entry crcs per node).
 *  - before a node is rebuilt or its entries move: all of it (once per
 *    split or merge, i.e. every few dozen changes).
 *  - os_check_catalogue (check_catalogue.c): everything, plus every
 *    structural invariant.
 * A failed check is -ERR_CORRUPT; every offset is bounds-checked before
 * it is followed and descents are bounded by the level numbers (each
 * child's level is its parent's minus one), so corruption can not crash
 * or loop.
 *
 * Changes. An insert or remove changes one leaf; what it does to the leaf
 * may hand a change up to the parent, and so on: a node that overflows is
 * split, one that falls under OS_CAT_MIN_FILL is merged with a sibling or
 * shares entries with it, one whose gap is too small is compacted. Small
 * changes are made in place (logging the header and the slots from the
 * change on: entries never move in place, a removed one becomes `dead`);
 * restructured nodes are rebuilt into fresh pages (copy on write), so the
 * old ones need no logging, and the parent's pointers are updated. Each
 * change runs twice through the same code: first as a plan that writes
 * nothing, verifies what will be read or moved and counts the fresh nodes
 * and log bytes needed; then, once os_log_room says the log bytes fit and
 * every fresh node is allocated, for real. So -ERR_NOSPC, -ERR_NOMEM and
 * -ERR_CORRUPT always leave the tree untouched, and the second pass can
 * not fail.
 *
 * Log bounds. Insert and remove reserve exactly what their plan counts:
 * the records of each in-place change (the header with the slots that
 * move, an entry whose child pointer changes, and the FRESH record of a
 * new entry), OS_ALLOC_LOG_RESERVE
 * for every node allocated, OS_FREE_LOG_RESERVE for every node freed,
 * and the root block. A
 * plain insert or remove is one leaf changed in place: ~0.5-1 KiB. A
 * split adds three allocator reserves per level it climbs. Rename
 * reserves its removal's plan plus the worst an insert can need in a tree
 * of that height (every level split, a new root), and checks that the
 * free-page stack holds the 2 * height + 1 pages that worst case takes.
 * os_cat_rename_bounds gives the worst of one rename (both halves at every
 * level), for a caller that checks many before making the first (the
 * kernel's rename of a directory: every name below it, in one call).
 *
 * Invariant: every node holds count >= 1 entries in strictly increasing
 * key order, each key sharing the node's prefix_len first bytes and each
 * slot's hint being that of its key.
 * Invariant: a non-root node holds at least OS_CAT_MIN_FILL live bytes, so
 * an internal node has at least 4 keys and the height stays logarithmic.
 * Invariant: the keys under child c of an internal node lie in
 * [key_c-1, key_c) (unbounded on the outer ends), and each child's level
 * is its parent's minus one: all leaves are at the same depth.
 * Invariant: NODE_SIZE - heap_start == sum of live entry sizes + dead.
 *
 * Power cuts. Every byte of an existing node is logged (os_tx_log, which
 * makes the old bytes durable first) before it changes, except a new
 * entry written into the gap: those bytes meant nothing before, so they
 * are recorded FRESH, like a new allocation (the commit flushes them, and
 * every byte the transaction changes lies in a range of its log, which
 * the kernel's log checker relies on). Fresh nodes come from os_alloc, which records them so
 * that the commit flushes them (and, if this transaction freed the page
 * before, saves its old bytes, since rollback gives it back to its old
 * owner). Old nodes are freed at the end of the change and not written by
 * it. A cut before the commit rolls every logged range back (headers,
 * slots, changed pointers, the root block and the allocator), which
 * restores the old tree exactly: the fresh pages are free again and the
 * old pages hold what they held.
 */
#include <string.h>

#include "catalogue_internal.h"
#include "internal.h"
#include "objstore/catalogue.h"

#define ITEM_MAX (OS_CAT_SLOT_SIZE + ENTRY_HDR + OS_NAME_MAX)
#define CHECK_MASK (0xfffull << 12)
/* A split may leave its halves this many bytes apart to find a shorter separator. */
#define SPLIT_SKEW 1024u
/* Fresh nodes one change (or a rename's two) may take. */
#define POOL_MAX (4 * OS_CAT_MAX_HEIGHT + 2)

_Static_assert(OS_CAT_MIN_FILL + 2 * ITEM_MAX + SPLIT_SKEW < CAPACITY,
	       "the halves of a split are neither under- nor overfull");

/* --- keys, slots, entries ------------------------------------------------- */

/* item_size -- bytes an entry costs a node: its slot and itself */
static inline unsigned item_size(unsigned len)
{
	return OS_CAT_SLOT_SIZE + ENTRY_HDR + len;
}

/* os_cat_key_cmp -- memcmp order, the shorter first on a common prefix */
int os_cat_key_cmp(const uint8_t *a, unsigned alen, const uint8_t *b,
		   unsigned blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return (alen > blen) - (alen < blen);
}

/* key_lcp -- how many first bytes two keys share */
static unsigned key_lcp(const uint8_t *a, unsigned alen, const uint8_t *b,
			unsigned blen)
{
	unsigned n = alen < blen ? alen : blen, i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* os_cat_key_hint -- the OS_CAT_HINT_BYTES key bytes after `prefix`, zero-padded, big-endian */
uint64_t os_cat_key_hint(const uint8_t *key, unsigned len, unsigned prefix)
{
	uint64_t h = 0;

	for (unsigned i = prefix; i < prefix + OS_CAT_HINT_BYTES; i++)
		h = h << 8 | (i < len ? key[i] : 0);
	return h;
}

/* slot_seal -- slot `s` with its check bits set */
static uint64_t slot_seal(uint64_t s)
{
	s &= ~CHECK_MASK;
	return s | (uint64_t)(crc32c(0, &s, sizeof(s)) & 0xfffu) << 12;
}

/* os_cat_slot_ok -- whether a slot's check bits match */
bool os_cat_slot_ok(uint64_t s)
{
	return slot_seal(s) == s;
}

/* slot_make -- the slot of an entry at `off` with hint `hint` */
static uint64_t slot_make(unsigned off, uint64_t hint)
{
	return slot_seal(hint << 24 | off);
}

/* os_cat_entry_crc -- the checksum an entry must carry */
uint32_t os_cat_entry_crc(const struct os_cat_entry *e)
{
	return crc32c(0, (const uint8_t *)e + sizeof(e->crc),
		      entry_size(e->len) - sizeof(e->crc));
}

/* os_cat_node_crc -- the checksum a node header must carry */
uint32_t os_cat_node_crc(const struct os_cat_node *n)
{
	return crc32c(0, n, __builtin_offsetof(struct os_cat_node, crc));
}

/* node_live -- the bytes a node's entries cost it: slots and entries */
static unsigned node_live(const struct os_cat_node *n)
{
	return n->count * OS_CAT_SLOT_SIZE + NODE_SIZE - n->heap_start - n->dead;
}

/* slot_entry -- the entry of slot i, slot and entry verified if `checked` */
static inline const struct os_cat_entry *slot_entry(const struct os_cat_node *n,
						    unsigned i, bool checked)
{
	uint64_t s = n->slot[i];

	if (checked && !os_cat_slot_ok(s))
		return NULL;
	return entry_of(n, s, checked);
}

/* --- nodes ----------------------------------------------------------------- */

/* node_at -- the node at heap offset `off`; NULL if that is not a data page */
static struct os_cat_node *node_at(const struct objstore *os, uint64_t off)
{
	if (!os_in_data(os, off, NODE_SIZE) || off % NODE_SIZE)
		return NULL;
	return os_ptr(os, off);
}

/* node_header_ok -- magic, level and bounds of a node's header, and its
 * checksum if `verify` */
static inline bool node_header_ok(const struct os_cat_node *n, unsigned level,
				  bool verify)
{
	return n->magic == OS_CAT_MAGIC && n->level == level &&
	       (!verify || n->crc == os_cat_node_crc(n)) &&
	       os_cat_header_fields_ok(n);
}

/* node_verify -- every slot and entry of a node; 0 or -ERR_CORRUPT */
static int node_verify(const struct os_cat_node *n)
{
	unsigned bytes = n->dead;

	for (unsigned i = 0; i < n->count; i++) {
		const struct os_cat_entry *e = slot_entry(n, i, true);

		if (!e || e->len < n->prefix_len)
			return -ERR_CORRUPT;
		bytes += entry_size(e->len);
	}
	return bytes == NODE_SIZE - n->heap_start ? 0 : -ERR_CORRUPT;
}

/* node_child -- the offset of child c of an internal node (checked: its
 * slot and entry verified; else only bounds-checked) */
static int node_child(const struct os_cat_node *n, unsigned c, bool checked,
		      uint64_t *off)
{
	const struct os_cat_entry *e;

	if (c == 0) {
		*off = n->first;
		return 0;
	}
	e = slot_entry(n, c - 1, checked);
	if (!e)
		return -ERR_CORRUPT;
	*off = e->value;
	return 0;
}

/* --- searching ------------------------------------------------------------- */

/* prefix_cmp -- <0 if `key` sorts below every key of n for lack of the
 * node's prefix, >0 above, 0 if it shares the prefix */
static int prefix_cmp(const struct os_cat_node *n, const uint8_t *key,
		      unsigned len, bool checked, int *c)
{
	unsigned p = n->prefix_len;
	const struct os_cat_entry *e;

	*c = 0;
	if (p == 0)
		return 0;
	e = slot_entry(n, 0, checked);
	if (!e || e->len < p)
		return -ERR_CORRUPT;
	*c = memcmp(key, e->name, len < p ? len : p);
	if (*c == 0 && len < p)
		*c = -1;
	return 0;
}

/* slot_cmp -- compare `key` (sharing the node's prefix and slot i's hint)
 * with slot i's key */
static int slot_cmp(const struct os_cat_node *n, unsigned i, const uint8_t *key,
		    unsigned len, bool checked, int *c)
{
	unsigned p = n->prefix_len;
	const struct os_cat_entry *e = entry_of(n, n->slot[i], checked);

	if (!e || e->len < p)
		return -ERR_CORRUPT;
	if (checked)
		*c = os_cat_key_cmp(key + p, len - p, entry_key(e) + p, e->len - p);
	else /* the key may lack the prefix: see node_search */
		*c = os_cat_key_cmp(key, len, entry_key(e), e->len);
	return 0;
}

/* prefetch_entry -- start loading the entry slot `s` points at: the lines
 * of its first and 64th byte, all of an entry with a name of up to 50 bytes */
static inline void prefetch_entry(const struct os_cat_node *n, uint64_t s)
{
	const uint8_t *e = (const uint8_t *)n + OS_CAT_SLOT_OFFSET(s);

	__builtin_prefetch(e);
	__builtin_prefetch(e + OS_CACHE_LINE - 1);
}

/* hint_run -- the slots [*lo, *hi) whose hint is kh: those before have
 * smaller hints, those after larger ones. Only the entries of the run can
 * still tie with the key, so they start loading together, with the one
 * before the run (an internal node's child for a key below the run): the
 * search then waits for one entry miss, not one per probe. The lower
 * bound takes no branch on the hints, which would be mispredicted at
 * every other probe. */
static int hint_run(const struct os_cat_node *n, uint64_t kh, bool checked,
		    unsigned *lo, unsigned *hi)
{
	uint64_t below = kh << 24; /* a slot is below it iff its hint (top 40 bits) is below kh */
	unsigned base = 0, left = n->count, i;

	for (; left > 1; left -= left / 2) {
		uint64_t s = n->slot[base + left / 2];

		if (checked && !os_cat_slot_ok(s))
			return -ERR_CORRUPT;
		base = s < below ? base + left / 2 : base;
	}
	if (checked && !os_cat_slot_ok(n->slot[base]))
		return -ERR_CORRUPT;
	*lo = base + (n->slot[base] < below);
	if (n->level && *lo > 0)
		prefetch_entry(n, n->slot[*lo - 1]);
	for (i = *lo; i < n->count; i++) {
		uint64_t s = n->slot[i];

		if (checked && !os_cat_slot_ok(s))
			return -ERR_CORRUPT;
		if (OS_CAT_SLOT_HINT(s) != kh)
			break;
		prefetch_entry(n, s);
	}
	*hi = i;
	return 0;
}

/* node_search -- the first slot whose key is >= `key` in *idx, *eq if
 * equal. Unchecked, the search trusts the hints without making sure the
 * key has the node's prefix (that costs a cache line): it may then go
 * astray, but only towards a miss, which the caller repeats checked. */
static int node_search(const struct os_cat_node *n, const uint8_t *key,
		       unsigned len, bool checked, unsigned *idx, bool *eq)
{
	unsigned lo, hi;
	int c = 0, err = checked ? prefix_cmp(n, key, len, checked, &c) : 0;

	*eq = false;
	if (err || c) {
		*idx = c < 0 ? 0 : n->count;
		return err;
	}
	err = hint_run(n, os_cat_key_hint(key, len, n->prefix_len), checked,
		       &lo, &hi);
	while (!err && lo < hi) {
		unsigned mid = (lo + hi) / 2;

		err = slot_cmp(n, mid, key, len, checked, &c);
		if (err)
			return err;
		if (c == 0) {
			*idx = mid;
			*eq = true;
			return 0;
		}
		if (c > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*idx = lo;
	return err;
}

/* The way from the root to a leaf. */
struct cat_level {
	struct os_cat_node *node;
	uint64_t off;
	unsigned pos;      /* internal: the child taken; leaf: the key's slot, or where it would go */
};

struct cat_path {
	unsigned height;   /* levels; 0: the catalogue is empty */
	bool found;        /* the leaf holds the key, at pos */
	struct cat_level lv[OS_CAT_MAX_HEIGHT]; /* lv[0] is the root */
};

/* Lines of a node to load at once: the header and the slots of a typical node. */
#define PREFETCH_LINES 8u

/* prefetch_node -- start loading a node's header and slots together: the
 * binary search then waits for one miss, not one per probe */
static inline void prefetch_node(const struct os_cat_node *n)
{
	for (unsigned i = 0; i < PREFETCH_LINES; i++)
		__builtin_prefetch((const uint8_t *)n + i * OS_CACHE_LINE);
}

/* node_live_page -- whether the page of node n is allocated. The fast path
 * follows pointers it has not verified; a sound-looking node reached
 * through a flipped pointer is either in the tree elsewhere (so it can not
 * hold the name sought) or a freed old copy, which this catches. (The
 * descriptors of the catalogue's pages are few and stay cached.) */
static inline bool node_live_page(const struct objstore *os,
				  const struct os_cat_node *n)
{
	return os->desc[os_page_of(os, os_off(os, n))].kind == OS_PAGE_WHOLE;
}

/* descend -- walk from the root towards `key`, recording the path */
static int descend(const struct objstore *os, const uint8_t *key,
		   unsigned len, bool checked, struct cat_path *path)
{
	uint64_t off = os->root->catalogue_root;
	struct os_cat_node *n = node_at(os, off);
	unsigned level;

	path->height = 0;
	path->found = false;
	if (off == 0)
		return 0;
	if (!n || n->level >= OS_CAT_MAX_HEIGHT)
		return -ERR_CORRUPT;
	for (level = n->level;; level--) {
		struct cat_level *lv = &path->lv[path->height++];
		unsigned idx;
		bool eq;
		int err;

		/* Fast, an internal header is not verified: it can only misdirect. */
		if (!n || !node_header_ok(n, level, checked || level == 0) ||
		    (!checked && !node_live_page(os, n)))
			return -ERR_CORRUPT;
		err = node_search(n, key, len, checked, &idx, &eq);
		if (err)
			return err;
		*lv = (struct cat_level){ n, off, idx + (level ? eq : 0) };
		if (level == 0) {
			path->found = eq;
			return 0;
		}
		err = node_child(n, lv->pos, checked, &off);
		if (err)
			return err;
		n = node_at(os, off);
		if (n)
			prefetch_node(n);
	}
}

/* path_entry -- the leaf entry the path ends at, verified; NULL if corrupt */
static const struct os_cat_entry *path_entry(const struct cat_path *path)
{
	const struct cat_level *leaf = &path->lv[path->height - 1];

	return slot_entry(leaf->node, leaf->pos, true);
}

/* path_verify -- every slot and entry of every node on a path */
static int path_verify(const struct cat_path *path)
{
	for (unsigned i = 0; i < path->height; i++) {
		int err = node_verify(path->lv[i].node);

		if (err)
			return err;
	}
	return 0;
}

/* --- reading --------------------------------------------------------------- */

/* os_cat_name_ok -- 0 if `name` (len bytes) is a valid name, else -ERR_INVAL */
int os_cat_name_ok(const char *name, uint64_t len)
{
	if (!name || len < 1 || len > OS_NAME_MAX || memchr(name, 0, len))
		return -ERR_INVAL;
	return 0;
}

/* os_cat_lookup -- the id bound to `name` */
int os_cat_lookup(const struct objstore *os, const char *name, uint64_t len,
		  uint64_t *id)
{
	const uint8_t *key = (const uint8_t *)name;
	const struct os_cat_entry *e;
	struct cat_path path;
	int err = name && len >= 1 && len <= OS_NAME_MAX ? 0 : -ERR_INVAL;

	/* A name found is proof (it equals a verified entry reached through
	 * verified pointers), so the bytes of `name` are checked on a miss. */
	if (!err)
		err = descend(os, key, (unsigned)len, false, &path);
	if (!err && !path.found)
		err = os_cat_name_ok(name, len);
	/* A miss is only believed once everything it read checks out. */
	if (!err && !path.found)
		err = descend(os, key, (unsigned)len, true, &path);
	if (err)
		return err;
	if (!path.found)
		return -ERR_NOENT;
	e = path_entry(&path);
	if (!e)
		return -ERR_CORRUPT;
	*id = e->value;
	return 0;
}

/* os_cat_cursor_init -- position a cursor before the first name >= `start` */
void os_cat_cursor_init(struct os_cat_cursor *c, const char *start, uint64_t len)
{
	uint64_t n = len < OS_NAME_MAX ? len : OS_NAME_MAX;
	const char *nul = n ? memchr(start, 0, n) : NULL;

	/* No name holds a NUL or is longer than OS_NAME_MAX: the first name
	 * >= such a start is the first name after its part before the NUL,
	 * or after its first OS_NAME_MAX bytes. */
	c->started = nul != NULL || len > OS_NAME_MAX;
	c->len = (uint16_t)(nul ? (uint64_t)(nul - start) : n);
	if (c->len)
		memcpy(c->name, start, c->len);
}

/* cursor_tidy -- make a cursor the caller may have filled itself valid */
static void cursor_tidy(struct os_cat_cursor *c)
{
	const char *nul;

	if (c->len > OS_NAME_MAX) {
		c->len = OS_NAME_MAX;
		c->started = 1;
	}
	nul = c->len ? memchr(c->name, 0, c->len) : NULL;
	if (nul) {
		c->len = (uint16_t)(nul - c->name);
		c->started = 1;
	}
}

/* leftmost -- follow child lv[i].pos, then first children, down to a leaf */
static int leftmost(const struct objstore *os, struct cat_path *path, unsigned i)
{
	for (; i + 1 < path->height; i++) {
		struct cat_level *lv = &path->lv[i];
		struct os_cat_node *n;
		uint64_t off;
		int err = node_child(lv->node, lv->pos, true, &off);

		if (err)
			return err;
		n = node_at(os, off);
		if (!n || !node_header_ok(n, lv->node->level - 1u, true))
			return -ERR_CORRUPT;
		path->lv[i + 1] = (struct cat_level){ n, off, 0 };
	}
	return 0;
}

/* next_leaf -- move the path to the first slot of the next leaf */
static int next_leaf(const struct objstore *os, struct cat_path *path)
{
	unsigned i = path->height - 1;

	while (i-- > 0) {
		struct cat_level *lv = &path->lv[i];

		if (lv->pos < lv->node->count) {
			lv->pos++;
			return leftmost(os, path, i);
		}
	}
	return -ERR_NOENT;
}

/* seek -- the path to the first name >= key (> key if `after`) */
static int seek(const struct objstore *os, const uint8_t *key, unsigned len,
		bool after, struct cat_path *path)
{
	struct cat_level *leaf;
	int err = descend(os, key, len, true, path);

	if (err)
		return err;
	if (path->height == 0)
		return -ERR_NOENT;
	leaf = &path->lv[path->height - 1];
	if (path->found && after)
		leaf->pos++;
	if (leaf->pos < leaf->node->count)
		return 0;
	return next_leaf(os, path);
}

/* os_cat_next -- the next name after the cursor that starts with `prefix` */
int os_cat_next(const struct objstore *os, struct os_cat_cursor *c,
		const char *prefix, uint64_t prefix_len, uint64_t *id)
{
	/* No prefix (NULL, 0) is the empty prefix: memcmp never sees NULL. */
	const uint8_t *pre = (const uint8_t *)(prefix_len ? prefix : "");
	const uint8_t *cur = (const uint8_t *)c->name;
	unsigned plen = (unsigned)prefix_len;
	const struct os_cat_entry *e;
	struct cat_path path;
	int err;

	if (prefix_len > OS_NAME_MAX || (plen && memchr(prefix, 0, plen)))
		return -ERR_NOENT;
	cursor_tidy(c);
	if (os_cat_key_cmp(cur, c->len, pre, plen) < 0)
		err = seek(os, pre, plen, false, &path);
	else
		err = seek(os, cur, c->len, c->started, &path);
	if (err)
		return err;
	e = path_entry(&path);
	if (!e)
		return -ERR_CORRUPT;
	if (e->len < plen || memcmp(e->name, prefix, plen) != 0)
		return -ERR_NOENT;
	memcpy(c->name, e->name, e->len);
	c->len = e->len;
	c->started = 1;
	if (id)
		*id = e->value;
	return 0;
}

/* --- lists of entries to lay out ------------------------------------------- */

/* A change handed to a node by the level below (or by the caller, for a
 * leaf): entries [pos, pos+del) are replaced by `nins` (0 or 1) new
 * entries (key, value), and the pointer to child `child` (>= 0; it is
 * always at or before pos) becomes child_off. */
struct cat_change {
	int child;
	uint64_t child_off;
	unsigned pos, del, nins;
	const uint8_t *key;
	unsigned len;
	uint64_t value;
};

/* A sequence of entries that exist nowhere yet as such: ranges of a node's
 * slots, single entries of a node with a new value, loose (key, value). */
enum cat_seg_kind { SEG_RANGE, SEG_VALUE, SEG_LOOSE };

struct cat_seg {
	uint8_t kind;                     /* enum cat_seg_kind */
	uint16_t from, to;                /* RANGE: slots [from, to); VALUE: slot from */
	uint16_t len;                     /* LOOSE: key bytes */
	const void *src;                  /* RANGE, VALUE: the node; LOOSE: the key */
	uint64_t value;                   /* VALUE, LOOSE */
};

#define LIST_SEGS 12

struct cat_list {
	unsigned nseg, n;       /* segments, entries */
	unsigned bytes;         /* what the entries cost a node: item_size() each */
	uint64_t first;         /* internal: the child below the first key */
	struct cat_seg seg[LIST_SEGS];
};

/* One entry of a list, wherever it lives. */
struct cat_ent {
	const struct os_cat_entry *raw;   /* a stored entry to copy as it is, or NULL */
	const uint8_t *key;
	unsigned len;
	uint64_t value;
};

/* list_init -- an empty list */
static void list_init(struct cat_list *l, uint64_t first)
{
	l->nseg = l->n = l->bytes = 0;
	l->first = first;
}

/* list_seg -- append a segment of `n` entries */
static void list_seg(struct cat_list *l, const struct cat_seg *s, unsigned n)
{
	if (n == 0)
		return;
	l->seg[l->nseg++] = *s;
	l->n += n;
}

/* list_range -- append slots [from, to) of node `n` (bytes are the caller's) */
static void list_range(struct cat_list *l, const struct os_cat_node *n,
		       unsigned from, unsigned to)
{
	struct cat_seg s = { .kind = SEG_RANGE, .src = n, .from = (uint16_t)from,
			     .to = (uint16_t)to };

	list_seg(l, &s, to > from ? to - from : 0);
}

/* list_value -- append slot i of node `n` with a new value (bytes are the caller's) */
static void list_value(struct cat_list *l, const struct os_cat_node *n,
		       unsigned i, uint64_t value)
{
	struct cat_seg s = { .kind = SEG_VALUE, .src = n, .from = (uint16_t)i,
			     .value = value };

	list_seg(l, &s, 1);
}

/* list_loose -- append a new entry */
static void list_loose(struct cat_list *l, const uint8_t *key, unsigned len,
		       uint64_t value)
{
	struct cat_seg s = { .kind = SEG_LOOSE, .src = key, .len = (uint16_t)len,
			     .value = value };

	list_seg(l, &s, 1);
	l->bytes += item_size(len);
}

/* list_append -- append every entry of list `m` */
static void list_append(struct cat_list *l, const struct cat_list *m)
{
	for (unsigned i = 0; i < m->nseg; i++)
		l->seg[l->nseg++] = m->seg[i];
	l->n += m->n;
	l->bytes += m->bytes;
}

/* list_get -- entry j of a list; false if its stored entry is unreadable */
static bool list_get(const struct cat_list *l, unsigned j, struct cat_ent *out)
{
	const struct cat_seg *s = l->seg;
	const struct os_cat_node *n;
	const struct os_cat_entry *e;

	for (;; s++) {
		unsigned count = s->kind == SEG_RANGE ? (unsigned)(s->to - s->from) : 1;

		if (j < count)
			break;
		j -= count;
	}
	if (s->kind == SEG_LOOSE) {
		*out = (struct cat_ent){ NULL, s->src, s->len, s->value };
		return true;
	}
	n = s->src;
	e = entry_of(n, n->slot[s->from + j], false);
	if (!e)
		return false;
	*out = (struct cat_ent){ e, entry_key(e), e->len, e->value };
	if (s->kind == SEG_VALUE) {
		out->raw = NULL;
		out->value = s->value;
	}
	return true;
}

/* --- the change machinery --------------------------------------------------- */

/* One change of the tree, planned, then made. */
struct cat_op {
	struct objstore *os;
	bool exec;                  /* false: plan (verify, count); true: change */
	struct cat_path path;
	unsigned nodes;             /* plan: fresh nodes the change takes */
	uint64_t log;               /* plan: log bytes the change may use */
	uint64_t pool[POOL_MAX];    /* fresh nodes, allocated before the change */
	unsigned npool, taken;
	uint64_t old[POOL_MAX];     /* nodes replaced, freed when the change is done */
	unsigned nold;
};

/* op_fatal -- the plan and the change disagree: an objstore invariant broke */
static void op_fatal(const struct cat_op *op, const char *why)
{
	op->os->pf->fatal(why);
}

/* take_node -- a fresh node for the change (plan: count it) */
static uint64_t take_node(struct cat_op *op)
{
	if (!op->exec) {
		op->nodes++;
		op->log += OS_ALLOC_LOG_RESERVE;
		return 0;
	}
	/* Invariant: the plan allocated every node the change takes. */
	if (op->taken == op->npool)
		op_fatal(op, "catalogue: change took more nodes than planned");
	return op->pool[op->taken++];
}

/* retire_node -- a node the change replaces, freed at the end */
static int retire_node(struct cat_op *op, uint64_t off)
{
	struct objstore *os = op->os;

	if (op->exec) {
		if (op->nold == POOL_MAX)
			op_fatal(op, "catalogue: change replaced more nodes than planned");
		op->old[op->nold++] = off;
		return 0;
	}
	op->log += OS_FREE_LOG_RESERVE;
	if (os->desc[os_page_of(os, off)].kind != OS_PAGE_WHOLE)
		return -ERR_CORRUPT;
	return 0;
}

/* log_range -- log [p, p+len) before changing it (the plan reserved the room) */
static void log_range(struct cat_op *op, const void *p, size_t len)
{
	if (os_tx_log(op->os, p, len))
		op_fatal(op, "catalogue: logging failed after the plan reserved room");
}

/* set_root -- make `off` the root node (0: empty catalogue) */
static void set_root(struct cat_op *op, uint64_t off)
{
	if (!op->exec)
		return;
	if (os_log_root(op->os))
		op_fatal(op, "catalogue: logging the root failed after the plan");
	op->os->root->catalogue_root = off;
}

/* write_entry -- lay out entry `ent` at `dst` */
static void write_entry(uint8_t *dst, const struct cat_ent *ent)
{
	struct os_cat_entry *e = (struct os_cat_entry *)dst;

	if (ent->raw) {
		memcpy(dst, ent->raw, entry_size(ent->len));
		return;
	}
	e->value = ent->value;
	e->len = (uint8_t)ent->len;
	memcpy(e->name, ent->key, ent->len);
	e->crc = os_cat_entry_crc(e);
}

/* list_prefix -- the prefix that list entries [a, b) share: that of the outer two */
static unsigned list_prefix(const struct cat_op *op, const struct cat_list *l,
			    unsigned a, unsigned b)
{
	struct cat_ent lo, hi;

	if (!list_get(l, a, &lo) || !list_get(l, b - 1, &hi))
		op_fatal(op, "catalogue: an entry verified by the plan is unreadable");
	return key_lcp(lo.key, lo.len, hi.key, hi.len);
}

/* build_node -- lay out list entries [a, b) as a fresh node at `off` */
static void build_node(struct cat_op *op, uint64_t off, unsigned level,
		       const struct cat_list *l, unsigned a, unsigned b,
		       uint64_t first)
{
	struct os_cat_node *n = os_ptr(op->os, off);
	unsigned top = NODE_SIZE, p = list_prefix(op, l, a, b), slots;
	struct cat_ent ent;

	for (unsigned j = a; j < b; j++) {
		if (!list_get(l, j, &ent))
			op_fatal(op, "catalogue: an entry verified by the plan is unreadable");
		top -= entry_size(ent.len);
		/* Invariant: the plan only lays out what fits. */
		if (top < HDR_SIZE + (j - a + 1) * OS_CAT_SLOT_SIZE)
			op_fatal(op, "catalogue: a rebuilt node overflows");
		write_entry((uint8_t *)n + top, &ent);
		n->slot[j - a] = slot_make(top, os_cat_key_hint(ent.key, ent.len, p));
	}
	slots = HDR_SIZE + (b - a) * OS_CAT_SLOT_SIZE;
	memset((uint8_t *)n + slots, 0, top - slots);
	*n = (struct os_cat_node){ .magic = OS_CAT_MAGIC, .level = (uint8_t)level,
		.prefix_len = (uint8_t)p, .count = (uint16_t)(b - a),
		.heap_start = (uint16_t)top, .first = first };
	n->crc = os_cat_node_crc(n);
}

/* The place where a list is cut in two, and what goes up. */
struct cat_split {
	unsigned k;             /* left: [0, k); right: [k, n) (leaf) or [k+1, n) */
	const uint8_t *key;     /* the separator for the parent */
	unsigned len;
	uint64_t right_first;   /* internal: the right node's first child */
};

/* split_skew -- how uneven a cut before entry k (of `item` bytes) is, when
 * `left` bytes lie before it */
static unsigned split_skew(unsigned bytes, unsigned left, unsigned item, bool leaf)
{
	unsigned right = bytes - left - (leaf ? 0 : item);

	return left > right ? left - right : right - left;
}

/* choose_split -- the cut with the shortest separator among those nearly even */
static void choose_split(const struct cat_op *op, const struct cat_list *l,
			 bool leaf, struct cat_split *s)
{
	unsigned left, best_len = ~0u, best_skew = ~0u;
	struct cat_ent prev, cur;

	if (!list_get(l, 0, &prev))
		op_fatal(op, "catalogue: an entry verified by the plan is unreadable");
	left = item_size(prev.len);
	for (unsigned k = 1; k + !leaf < l->n; k++) {
		unsigned skew, len;

		if (!list_get(l, k, &cur))
			op_fatal(op, "catalogue: an entry verified by the plan is unreadable");
		skew = split_skew(l->bytes, left, item_size(cur.len), leaf);
		len = leaf ? key_lcp(prev.key, prev.len, cur.key, cur.len) + 1 : cur.len;
		if (skew <= SPLIT_SKEW &&
		    (len < best_len || (len == best_len && skew < best_skew))) {
			*s = (struct cat_split){ k, cur.key, len, cur.value };
			best_len = len;
			best_skew = skew;
		}
		left += item_size(cur.len);
		prev = cur;
	}
	/* Invariant: a list over CAPACITY (or two nodes' worth) has an even enough cut. */
	if (best_len == ~0u)
		op_fatal(op, "catalogue: no place to split a node");
}

/* build_halves -- lay out the two sides of a split at a and b */
static void build_halves(struct cat_op *op, unsigned level,
			 const struct cat_list *l, const struct cat_split *s,
			 uint64_t a, uint64_t b)
{
	build_node(op, a, level, l, 0, s->k, l->first);
	if (level == 0)
		build_node(op, b, 0, l, s->k, l->n, 0);
	else
		build_node(op, b, level, l, s->k + 1, l->n, s->right_first);
}

/* change_replace -- the parent's change: children [c, c+del+1) become a
 * (and, with a separator, b after it) */
static void change_replace(struct cat_change *up, unsigned c, unsigned del,
			   uint64_t a, const struct cat_split *s, uint64_t b)
{
	*up = (struct cat_change){ .child = (int)c, .child_off = a, .pos = c,
				   .del = del, .nins = s != NULL };
	if (s) {
		up->key = s->key;
		up->len = s->len;
		up->value = b;
	}
}

/* node_list -- node n's entries with change ch applied */
static int node_list(struct cat_op *op, const struct os_cat_node *n,
		     const struct cat_change *ch, struct cat_list *l)
{
	unsigned v = ch->child > 0 ? (unsigned)ch->child - 1 : ch->pos;
	int dropped = 0;

	list_init(l, ch->child == 0 ? ch->child_off : n->first);
	list_range(l, n, 0, v);
	if (ch->child > 0) {
		if (!op->exec && !slot_entry(n, v, true))
			return -ERR_CORRUPT;
		list_value(l, n, v++, ch->child_off);
	}
	list_range(l, n, v, ch->pos);
	if (ch->nins)
		list_loose(l, ch->key, ch->len, ch->value);
	list_range(l, n, ch->pos + ch->del, n->count);
	for (unsigned j = ch->pos; j < ch->pos + ch->del; j++) {
		const struct os_cat_entry *e = slot_entry(n, j, true);

		if (!e)
			return -ERR_CORRUPT;
		dropped += (int)item_size(e->len);
	}
	l->bytes = (unsigned)((int)(node_live(n) + l->bytes) - dropped);
	return 0;
}

/* --- the steps of a change, one level each ----------------------------------- */

/* Each step returns a negative error, 1 when the change is complete, or 0
 * with *up holding the change for the parent. */

/* split -- level i overflows: two fresh nodes replace it */
static int split(struct cat_op *op, unsigned i, const struct cat_list *l,
		 struct cat_change *up)
{
	struct cat_level *lv = &op->path.lv[i];
	unsigned level = lv->node->level;
	struct cat_split s;
	uint64_t a, b;
	int err = op->exec ? 0 : node_verify(lv->node);

	if (err)
		return err;
	choose_split(op, l, level == 0, &s);
	a = take_node(op);
	b = take_node(op);
	if (op->exec)
		build_halves(op, level, l, &s, a, b);
	change_replace(up, op->path.lv[i - 1].pos, 0, a, &s, b);
	return retire_node(op, lv->off);
}

/* rebuild -- a fresh node at *fresh holding list l, to replace level lv's
 * node (verified in the planning pass, built in the executing one) */
static int rebuild(struct cat_op *op, const struct cat_level *lv,
		   const struct cat_list *l, uint64_t *fresh)
{
	int err = op->exec ? 0 : node_verify(lv->node);

	if (err)
		return err;
	*fresh = take_node(op);
	if (op->exec)
		build_node(op, *fresh, lv->node->level, l, 0, l->n, l->first);
	return 0;
}

/* compact -- level i does not fit its gap: a fresh node replaces it */
static int compact(struct cat_op *op, unsigned i, const struct cat_list *l,
		   struct cat_change *up)
{
	struct cat_level *lv = &op->path.lv[i];
	uint64_t a;
	int err = rebuild(op, lv, l, &a);

	if (err)
		return err;
	change_replace(up, op->path.lv[i - 1].pos, 0, a, NULL, 0);
	return retire_node(op, lv->off);
}

/* The two siblings a rebalance works on: children l and l+1 of the parent. */
struct cat_pair {
	unsigned l;
	const struct os_cat_node *sib;  /* the sibling of the underfull node */
	uint64_t sib_off;
	bool sib_left;                  /* the sibling is child l */
};

/* find_sibling -- the underfull node at level i's neighbour, verified */
static int find_sibling(struct cat_op *op, unsigned i, struct cat_pair *pr)
{
	const struct cat_level *p = &op->path.lv[i - 1];
	const struct os_cat_node *n = op->path.lv[i].node;
	int err;

	pr->sib_left = p->pos > 0;
	pr->l = pr->sib_left ? p->pos - 1 : p->pos;
	err = node_child(p->node, pr->sib_left ? pr->l : pr->l + 1, true, &pr->sib_off);
	if (err)
		return err;
	pr->sib = node_at(op->os, pr->sib_off);
	if (!pr->sib || !node_header_ok(pr->sib, n->level, true))
		return -ERR_CORRUPT;
	if (op->exec)
		return 0;
	err = node_verify(pr->sib);
	return err ? err : node_verify(n);
}

/* pair_list -- the entries of both siblings (the underfull one as `l`),
 * with the parent's separator between them for internal nodes */
static int pair_list(struct cat_op *op, unsigned i, const struct cat_list *l,
		     const struct cat_pair *pr, struct cat_list *out)
{
	const struct os_cat_node *parent = op->path.lv[i - 1].node, *sib = pr->sib;
	const struct os_cat_entry *sep = slot_entry(parent, pr->l, true);
	struct cat_list s;

	if (!sep)
		return -ERR_CORRUPT;
	list_init(&s, sib->first);
	list_range(&s, sib, 0, sib->count);
	s.bytes = node_live(sib);
	list_init(out, pr->sib_left ? s.first : l->first);
	list_append(out, pr->sib_left ? &s : l);
	if (sib->level) {
		list_value(out, parent, pr->l, pr->sib_left ? l->first : s.first);
		out->bytes += item_size(sep->len);
	}
	list_append(out, pr->sib_left ? l : &s);
	return 0;
}

/* rebalance -- level i is underfull: merge it with a sibling, or even them out */
static int rebalance(struct cat_op *op, unsigned i, const struct cat_list *l,
		     struct cat_change *up)
{
	unsigned level = op->path.lv[i].node->level;
	struct cat_pair pr;
	struct cat_list both;
	struct cat_split s;
	uint64_t a, b = 0;
	bool halves;
	int err = find_sibling(op, i, &pr);

	if (!err)
		err = pair_list(op, i, l, &pr, &both);
	if (err)
		return err;
	halves = both.bytes > CAPACITY; /* too much for one node: even them out */
	if (halves)
		choose_split(op, &both, level == 0, &s);
	a = take_node(op);
	if (halves)
		b = take_node(op);
	if (op->exec && halves)
		build_halves(op, level, &both, &s, a, b);
	else if (op->exec)
		build_node(op, a, level, &both, 0, both.n, both.first);
	change_replace(up, pr.l, 1, a, halves ? &s : NULL, b);
	err = retire_node(op, pr.sib_off);
	return err ? err : retire_node(op, op->path.lv[i].off);
}

/* shares_prefix -- whether a change's new key shares node n's prefix */
static bool shares_prefix(const struct os_cat_node *n, const struct cat_change *ch)
{
	const struct os_cat_entry *e = entry_of(n, n->slot[0], false);

	return ch->len >= n->prefix_len && e &&
	       memcmp(ch->key, e->name, n->prefix_len) == 0;
}

/* fits_in_place -- whether a change fits the gap of node n */
static bool fits_in_place(const struct os_cat_node *n, const struct cat_change *ch)
{
	unsigned count = n->count - ch->del + ch->nins;
	unsigned need = ch->nins ? entry_size(ch->len) : 0;

	return HDR_SIZE + count * OS_CAT_SLOT_SIZE + need <= n->heap_start;
}

/* The slots an in-place change rewrites: [lo, hi). */
struct cat_span {
	unsigned lo, hi;
	bool rehint;            /* the prefix shrinks: every hint changes */
};

/* in_place_span -- which slots change, and whether the prefix does */
static void in_place_span(const struct os_cat_node *n, const struct cat_change *ch,
			  struct cat_span *sp)
{
	unsigned count = n->count - ch->del + ch->nins;

	sp->rehint = ch->nins && n->prefix_len && !shares_prefix(n, ch);
	sp->lo = sp->rehint ? 0 : ch->pos;
	if (sp->rehint || ch->del != ch->nins)
		sp->hi = count > n->count ? count : n->count;
	else
		sp->hi = ch->pos + ch->nins;
}

/* Below this many bytes of unchanged slots, header and slots are logged as one range. */
#define LOG_JOIN 128u

/* fresh_entry -- record (or, planning, count) the gap bytes put_entry will fill */
static void fresh_entry(struct cat_op *op, const struct os_cat_node *n,
			const struct cat_change *ch)
{
	unsigned len = entry_size(ch->len);

	if (!op->exec)
		op->log += os_log_record_size(OS_LOG_FRESH, len);
	else if (os_log_fresh(op->os, os_off(op->os, n) + n->heap_start - len, len))
		op_fatal(op, "catalogue: logging failed after the plan reserved room");
}

/* in_place_log -- log (or, planning, count) what an in-place change writes */
static void in_place_log(struct cat_op *op, struct os_cat_node *n,
			 const struct cat_change *ch, const struct cat_span *sp)
{
	uint64_t ranges[3][2] = { { 0, HDR_SIZE } }, gap = sp->lo * OS_CAT_SLOT_SIZE;
	unsigned nr = 1;

	if (sp->hi > sp->lo && gap <= LOG_JOIN)
		ranges[0][1] = HDR_SIZE + sp->hi * OS_CAT_SLOT_SIZE;
	else if (sp->hi > sp->lo)
		ranges[nr][0] = HDR_SIZE + gap, ranges[nr++][1] = HDR_SIZE + sp->hi * OS_CAT_SLOT_SIZE;
	if (ch->child > 0) {
		const struct os_cat_entry *e = slot_entry(n, (unsigned)ch->child - 1, false);
		uint64_t at = (const uint8_t *)e - (const uint8_t *)n;

		ranges[nr][0] = at, ranges[nr++][1] = at + entry_size(e->len);
	}
	for (unsigned r = 0; r < nr; r++) {
		uint64_t len = ranges[r][1] - ranges[r][0];

		if (op->exec)
			log_range(op, (uint8_t *)n + ranges[r][0], len);
		else
			op->log += os_log_record_size(OS_LOG_UNDO, len);
	}
	if (ch->nins)
		fresh_entry(op, n, ch);
}

/* rehint -- give every slot of n the hint of its key under prefix p */
static void rehint(struct os_cat_node *n, unsigned p)
{
	for (unsigned i = 0; i < n->count; i++) {
		uint64_t s = n->slot[i];
		const struct os_cat_entry *e = entry_of(n, s, false);

		n->slot[i] = slot_make(OS_CAT_SLOT_OFFSET(s),
				       os_cat_key_hint(entry_key(e), e->len, p));
	}
	n->prefix_len = (uint8_t)p;
}

/* set_value -- rewrite the value of entry i of n (logged already) */
static void set_value(struct os_cat_node *n, unsigned i, uint64_t value)
{
	struct os_cat_entry *e = (struct os_cat_entry *)entry_of(n, n->slot[i], false);

	e->value = value;
	e->crc = os_cat_entry_crc(e);
}

/* put_entry -- write a change's new entry into n's gap (recorded FRESH), and its slot */
static void put_entry(struct os_cat_node *n, const struct cat_change *ch)
{
	struct cat_ent ent = { NULL, ch->key, ch->len, ch->value };

	n->heap_start = (uint16_t)(n->heap_start - entry_size(ch->len));
	write_entry((uint8_t *)n + n->heap_start, &ent);
	n->slot[ch->pos] = slot_make(n->heap_start,
				     os_cat_key_hint(ch->key, ch->len, n->prefix_len));
}

/* in_place_apply -- make an in-place change (everything it writes is logged) */
static void in_place_apply(struct os_cat_node *n, const struct cat_change *ch,
			   const struct cat_span *sp)
{
	unsigned tail = n->count - ch->pos - ch->del, p = n->prefix_len;
	const struct os_cat_entry *e0 = entry_of(n, n->slot[0], false);

	if (sp->rehint)
		p = key_lcp(ch->key, ch->len, entry_key(e0), e0->len);
	for (unsigned j = ch->pos; j < ch->pos + ch->del; j++)
		n->dead = (uint16_t)(n->dead + entry_size(entry_of(n, n->slot[j], false)->len));
	if (ch->child == 0)
		n->first = ch->child_off;
	else if (ch->child > 0)
		set_value(n, (unsigned)ch->child - 1, ch->child_off);
	memmove(&n->slot[ch->pos + ch->nins], &n->slot[ch->pos + ch->del],
		tail * OS_CAT_SLOT_SIZE);
	n->count = (uint16_t)(n->count - ch->del + ch->nins);
	if (ch->nins)
		put_entry(n, ch);
	if (sp->rehint)
		rehint(n, p);
	n->crc = os_cat_node_crc(n);
}

/* in_place_plan -- verify what an in-place change reads and rewrites */
static int in_place_plan(const struct os_cat_node *n, const struct cat_change *ch,
			 const struct cat_span *sp)
{
	if (ch->child > 0 && !slot_entry(n, (unsigned)ch->child - 1, true))
		return -ERR_CORRUPT;
	if (n->prefix_len && !slot_entry(n, 0, true))
		return -ERR_CORRUPT;
	for (unsigned i = 0; sp->rehint && i < n->count; i++)
		if (!slot_entry(n, i, false) || !os_cat_slot_ok(n->slot[i]))
			return -ERR_CORRUPT;
	return 0;
}

/* in_place -- make (or plan) the change in level i's node itself */
static int in_place(struct cat_op *op, unsigned i, const struct cat_change *ch)
{
	struct os_cat_node *n = op->path.lv[i].node;
	struct cat_span sp;
	int err;

	in_place_span(n, ch, &sp);
	if (!op->exec) {
		err = in_place_plan(n, ch, &sp);
		if (err)
			return err;
	}
	in_place_log(op, n, ch, &sp);
	if (op->exec)
		in_place_apply(n, ch, &sp);
	return 1;
}

/* root_shrink -- the root lost its last entry: the tree empties or loses a level */
static int root_shrink(struct cat_op *op, const struct cat_list *l)
{
	const struct cat_level *lv = &op->path.lv[0];

	set_root(op, lv->node->level ? l->first : 0);
	return retire_node(op, lv->off) ? -ERR_CORRUPT : 1;
}

/* root_split -- the root overflows: two halves under a new root */
static int root_split(struct cat_op *op, const struct cat_list *l)
{
	const struct cat_level *lv = &op->path.lv[0];
	unsigned level = lv->node->level;
	struct cat_list top;
	struct cat_split s;
	uint64_t a, b, r;
	int err = op->exec ? 0 : node_verify(lv->node);

	if (err)
		return err;
	if (level + 1 >= OS_CAT_MAX_HEIGHT)
		return -ERR_NOSPC;
	choose_split(op, l, level == 0, &s);
	a = take_node(op);
	b = take_node(op);
	r = take_node(op);
	list_init(&top, a);
	list_loose(&top, s.key, s.len, b);
	if (op->exec) {
		build_halves(op, level, l, &s, a, b);
		build_node(op, r, level + 1, &top, 0, 1, a);
	}
	set_root(op, r);
	return retire_node(op, lv->off) ? -ERR_CORRUPT : 1;
}

/* root_rebuild -- the root does not fit its gap: a fresh node replaces it */
static int root_rebuild(struct cat_op *op, const struct cat_list *l)
{
	const struct cat_level *lv = &op->path.lv[0];
	uint64_t a;
	int err = rebuild(op, lv, l, &a);

	if (err)
		return err;
	set_root(op, a);
	return retire_node(op, lv->off) ? -ERR_CORRUPT : 1;
}

/* root_step -- the change reaches the root, which has no minimum fill */
static int root_step(struct cat_op *op, const struct cat_list *l,
		     const struct cat_change *ch)
{
	if (l->n == 0)
		return root_shrink(op, l);
	if (l->bytes > CAPACITY)
		return root_split(op, l);
	if (fits_in_place(op->path.lv[0].node, ch))
		return in_place(op, 0, ch);
	return root_rebuild(op, l);
}

/* step -- apply change ch to path level i */
static int step(struct cat_op *op, unsigned i, const struct cat_change *ch,
		struct cat_change *up)
{
	struct os_cat_node *n = op->path.lv[i].node;
	struct cat_list l;
	int err = node_list(op, n, ch, &l);

	if (err)
		return err;
	if (i == 0)
		return root_step(op, &l, ch);
	if (l.bytes > CAPACITY)
		return split(op, i, &l, up);
	if (l.bytes < OS_CAT_MIN_FILL)
		return rebalance(op, i, &l, up);
	if (fits_in_place(n, ch))
		return in_place(op, i, ch);
	return compact(op, i, &l, up);
}

/* apply -- carry a leaf change up the path as far as it goes */
static int apply(struct cat_op *op, const struct cat_change *leaf_change)
{
	struct cat_change ch = *leaf_change, up;

	for (unsigned i = op->path.height; i-- > 0;) {
		int r = step(op, i, &ch, &up);

		if (r && op->exec && r < 0)
			op_fatal(op, "catalogue: a planned change failed");
		if (r)
			return r < 0 ? r : 0;
		ch = up;
	}
	return 0;
}

/* --- running a change --------------------------------------------------------- */

/* root_log -- log bytes of logging the root block */
static uint64_t root_log(void)
{
	return os_log_record_size(OS_LOG_UNDO, sizeof(struct os_root));
}

/* plan -- run a change without making it; fills op->nodes and op->log */
static int plan(struct cat_op *op, const struct cat_change *ch)
{
	op->exec = false;
	op->nodes = 0;
	op->log = 0;
	return apply(op, ch);
}

/* pool_fill -- allocate fresh nodes until the pool holds `n` unused ones */
static int pool_fill(struct cat_op *op, unsigned n)
{
	while (op->npool - op->taken < n) {
		int err = op->npool < POOL_MAX ?
			  os_alloc(op->os, NODE_SIZE, &op->pool[op->npool]) : -ERR_NOMEM;

		if (err)
			return err;
		op->npool++;
	}
	return 0;
}

/* op_finish -- free replaced and unused nodes, adjust the count */
static int op_finish(struct cat_op *op, int delta)
{
	struct objstore *os = op->os;
	int err = 0;

	for (unsigned i = 0; i < op->nold && !err; i++)
		err = os_free(os, op->old[i]);
	while (op->taken < op->npool && !err)
		err = os_free(os, op->pool[--op->npool]);
	if (!err && delta)
		err = os_log_root(os);
	/* Invariant: the plan reserved the log room and checked every page. */
	if (err)
		op_fatal(op, "catalogue: freeing or logging failed after the plan");
	os->root->catalogue_count += (uint64_t)(int64_t)delta;
	return 0;
}

/* op_abandon -- give back the fresh nodes of a change that will not happen */
static int op_abandon(struct cat_op *op, int err)
{
	while (op->npool > op->taken)
		if (os_free(op->os, op->pool[--op->npool]))
			op_fatal(op, "catalogue: could not give back an unused node");
	return err;
}

/* op_run -- plan a change, reserve its log room and nodes, then make it */
static int op_run(struct cat_op *op, const struct cat_change *ch, int delta)
{
	int err = plan(op, ch);

	if (!err)
		err = os_log_room(op->os, op->log + root_log());
	if (!err)
		err = pool_fill(op, op->nodes);
	if (err)
		return op_abandon(op, err);
	op->exec = true;
	apply(op, ch);
	return op_finish(op, delta);
}

/* op_init -- a change of os, nothing planned */
static int op_init(struct cat_op *op, struct objstore *os)
{
	op->os = os;
	op->npool = op->taken = op->nold = 0;
	return os->in_tx ? 0 : -ERR_INVAL;
}

/* first_leaf -- the first name: a leaf of one entry becomes the root */
static int first_leaf(struct cat_op *op, const uint8_t *key, unsigned len,
		      uint64_t id)
{
	struct cat_list l;
	uint64_t a;
	int err = pool_fill(op, 1);

	if (err)
		return err;
	op->exec = true;
	a = take_node(op);
	list_init(&l, 0);
	list_loose(&l, key, len, id);
	build_node(op, a, 0, &l, 0, 1, 0);
	set_root(op, a);
	return 0;
}

/* os_cat_insert -- bind `name` to `id` */
int os_cat_insert(struct objstore *os, const char *name, uint64_t len,
		  uint64_t id)
{
	const uint8_t *key = (const uint8_t *)name;
	struct cat_change ch = { .child = -1, .nins = 1, .key = key,
				 .len = (unsigned)len, .value = id };
	struct cat_op op;
	int err = os_cat_name_ok(name, len);

	if (!err)
		err = op_init(&op, os);
	if (!err)
		err = descend(os, key, (unsigned)len, true, &op.path);
	if (err)
		return err;
	if (op.path.height == 0) {
		err = os_log_room(os, root_log() + OS_ALLOC_LOG_RESERVE);
		if (!err)
			err = first_leaf(&op, key, (unsigned)len, id);
		return err ? op_abandon(&op, err) : op_finish(&op, 1);
	}
	if (op.path.found)
		return -ERR_EXIST;
	ch.pos = op.path.lv[op.path.height - 1].pos;
	return op_run(&op, &ch, 1);
}

/* find_bound -- the path to a bound name and its id; -ERR_NOENT if unbound */
static int find_bound(struct cat_op *op, const uint8_t *key, unsigned len,
		      uint64_t *id)
{
	const struct os_cat_entry *e;
	int err = descend(op->os, key, len, true, &op->path);

	if (err)
		return err;
	if (!op->path.found)
		return -ERR_NOENT;
	e = path_entry(&op->path);
	if (!e)
		return -ERR_CORRUPT;
	*id = e->value;
	return 0;
}

/* removal -- the leaf change that removes the name the path found */
static struct cat_change removal(const struct cat_path *path)
{
	return (struct cat_change){ .child = -1, .pos = path->lv[path->height - 1].pos,
				    .del = 1 };
}

/* find_named -- start a change of os at the bound `name`: the path to it
 * and the id it names */
static int find_named(struct cat_op *op, struct objstore *os, const char *name,
		      uint64_t len, uint64_t *id)
{
	int err = os_cat_name_ok(name, len);

	if (!err)
		err = op_init(op, os);
	if (!err)
		err = find_bound(op, (const uint8_t *)name, (unsigned)len, id);
	return err;
}

/* os_cat_remove -- unbind `name` */
int os_cat_remove(struct objstore *os, const char *name, uint64_t len,
		  uint64_t *id)
{
	struct cat_change ch;
	struct cat_op op;
	uint64_t value;
	int err = find_named(&op, os, name, len, &value);

	if (err)
		return err;
	ch = removal(&op.path);
	err = op_run(&op, &ch, -1);
	if (!err && id)
		*id = value;
	return err;
}

/* os_cat_replace -- bind the bound `name` to `id` instead: the leaf entry
 * is rebuilt with the new value, like any other change (copy on write) */
int os_cat_replace(struct objstore *os, const char *name, uint64_t len,
		   uint64_t id, uint64_t *old)
{
	struct cat_change ch = { .child = -1, .del = 1, .nins = 1,
				 .key = (const uint8_t *)name, .len = (unsigned)len,
				 .value = id };
	struct cat_op op;
	uint64_t value;
	int err = find_named(&op, os, name, len, &value);

	if (err)
		return err;
	ch.pos = op.path.lv[op.path.height - 1].pos;
	err = op_run(&op, &ch, 0);
	if (!err && old)
		*old = value;
	return err;
}

/* insert_log_max -- log bytes an insert into a tree of `height` levels may need */
static uint64_t insert_log_max(unsigned height)
{
	uint64_t in_place = os_log_record_size(OS_LOG_UNDO, HDR_SIZE + MAX_SLOTS * OS_CAT_SLOT_SIZE) +
			    os_log_record_size(OS_LOG_UNDO, ENTRY_HDR + OS_NAME_MAX) +
			    os_log_record_size(OS_LOG_FRESH, ENTRY_HDR + OS_NAME_MAX);

	/* Each level splits (two nodes taken, one freed) or, last, changes in
	 * place; a root split takes three. */
	return (height + 1ull) * (2ull * OS_ALLOC_LOG_RESERVE + OS_FREE_LOG_RESERVE) +
	       OS_ALLOC_LOG_RESERVE + in_place;
}

/* rename_prepare -- check `to` is free, plan the removal of the name
 * op->path found, reserve log room for both halves and make sure of the
 * pages: those of the removal are allocated, those the insert may need
 * (at most 2 * height + 1) are on the free-page stack, from which a
 * whole-page os_alloc always succeeds */
static int rename_prepare(struct cat_op *op, const uint8_t *to, unsigned tlen,
			  struct cat_change *rm)
{
	struct objstore *os = op->os;
	struct cat_path to_path;
	unsigned h = op->path.height;
	int err = descend(os, to, tlen, true, &to_path);

	if (!err && to_path.found)
		return -ERR_EXIST;
	/* The insert half must not find corruption after the removal changed
	 * things: it only reads nodes of this path or nodes the removal builds. */
	if (!err)
		err = path_verify(&to_path);
	if (err)
		return err;
	*rm = removal(&op->path);
	err = plan(op, rm);
	if (!err)
		err = os_log_room(os, op->log + root_log() + insert_log_max(h));
	if (!err && os_pages_free(os->sb, os->root) < op->nodes + 2ull * h + 1)
		err = -ERR_NOMEM;
	if (!err)
		err = pool_fill(op, op->nodes);
	return err;
}

/* rename_insert -- the second half of a rename: bind `to` in the changed tree */
static int rename_insert(struct cat_op *op, const uint8_t *to, unsigned tlen,
			 uint64_t id)
{
	struct cat_change ch = { .child = -1, .nins = 1, .key = to, .len = tlen,
				 .value = id };
	int err = descend(op->os, to, tlen, true, &op->path);

	/* Neither can happen (see rename_prepare); if one does, the tree is
	 * still sound, without `from`, and the caller aborts. */
	if (!err && op->path.found)
		err = -ERR_CORRUPT;
	if (err)
		return err;
	if (op->path.height == 0)
		return first_leaf(op, to, tlen, id);
	ch.pos = op->path.lv[op->path.height - 1].pos;
	err = plan(op, &ch);
	if (!err)
		err = pool_fill(op, op->nodes);
	if (err)
		return err;
	op->exec = true;
	return apply(op, &ch);
}

/* os_cat_rename_bounds -- what os_cat_rename may need at most in a tree
 * up to `grow` levels taller than now: log bytes (a removal rebuilding
 * every level, two nodes taken and two freed at each, plus an insert's
 * worst, plus the root block) and free pages (the removal's two a level
 * and the insert's 2 * height + 1) */
void os_cat_rename_bounds(const struct objstore *os, unsigned grow, uint64_t *log,
			  uint64_t *pages)
{
	uint64_t top = os->root->catalogue_root;
	const struct os_cat_node *n = top ? os_ptr(os, top) : NULL;
	unsigned h = (n ? n->level + 1u : 0u) + grow;
	uint64_t in_place = os_log_record_size(OS_LOG_UNDO, HDR_SIZE + MAX_SLOTS * OS_CAT_SLOT_SIZE) +
			    os_log_record_size(OS_LOG_UNDO, ENTRY_HDR + OS_NAME_MAX);

	if (h > OS_CAT_MAX_HEIGHT + 1u)
		h = OS_CAT_MAX_HEIGHT + 1u;
	*log = (h + 1ull) * (2ull * OS_ALLOC_LOG_RESERVE + 2ull * OS_FREE_LOG_RESERVE) + in_place +
	       insert_log_max(h) + root_log();
	*pages = 4ull * h + 3;
}

/* os_cat_rename -- move the binding of `from` to `to` */
int os_cat_rename(struct objstore *os, const char *from, uint64_t from_len,
		  const char *to, uint64_t to_len)
{
	const uint8_t *f = (const uint8_t *)from, *t = (const uint8_t *)to;
	struct cat_change rm;
	struct cat_op op;
	uint64_t id;
	int err = os_cat_name_ok(from, from_len);

	if (!err)
		err = os_cat_name_ok(to, to_len);
	if (!err)
		err = op_init(&op, os);
	if (!err)
		err = find_bound(&op, f, (unsigned)from_len, &id);
	if (err)
		return err;
	if (os_cat_key_cmp(f, (unsigned)from_len, t, (unsigned)to_len) == 0)
		return 0;
	err = rename_prepare(&op, t, (unsigned)to_len, &rm);
	if (err)
		return op_abandon(&op, err);
	op.exec = true;
	apply(&op, &rm);
	err = rename_insert(&op, t, (unsigned)to_len, id);
	op_finish(&op, err ? -1 : 0);
	return err;
}
