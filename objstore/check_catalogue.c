/*
 * check_catalogue.c -- the catalogue's checker: every node of the B+-tree,
 * read-only.
 *
 * os_check_catalogue walks the tree from the root block's catalogue_root
 * and claims each node's page for the catalogue (check.c then finds a node
 * page nobody reached, or one also claimed by something else). For every
 * node it checks what format.h and docs/format.md ("The catalogue") lay
 * down, and the invariants catalogue.c states at its top:
 *  - the header: magic, checksum, reserved fields, counts and bounds, and
 *    a level one below its parent's (all leaves at the same depth);
 *  - every slot's check and hint, every entry's checksum, bounds and key
 *    (no NUL byte); entries that do not overlap and, with the dead bytes,
 *    fill the entry heap exactly;
 *  - a non-root node's fill (at least OS_CAT_MIN_FILL live bytes);
 *  - keys that share the node's prefix, strictly increase and lie between
 *    the separators its parent bounds it with;
 *  - every name of a leaf naming a live object (os_check_object_exists),
 *    and as many names reached as the root block counts.
 *
 * It reads a node through catalogue_internal.h, as catalogue.c does, but
 * trusts none of it: each problem is reported with the node's offset, a
 * slot or entry that fails its own check is left out of the checks that
 * would read it, and a node with a bad header is not descended. Levels
 * bound the recursion and a page is claimed once, which stops cycles, so
 * a corrupt tree yields reports, never a crash or a hang.
 */
#include <stdio.h>
#include <string.h>

#include "catalogue_internal.h"
#include "check_internal.h"

/* A bound on the keys of a subtree; key NULL: none. */
struct cat_bound {
	const uint8_t *key;
	unsigned len;
};

struct cat_walk {
	struct os_checker *ck;
	uint64_t names;
};

/* The slots of one node whose entries passed their checks. */
struct cat_good {
	uint64_t map[3];
};
_Static_assert(MAX_SLOTS < 192, "a node's entries fit a 192-bit map");

/* show_key -- a key as printable text (escaped, shortened) in buf */
static const char *show_key(char *buf, size_t size, const uint8_t *key,
			    unsigned len)
{
	size_t at = 0;

	for (unsigned i = 0; i < len; i++) {
		if (at + 8 >= size) { /* room for an escape and "..." */
			memcpy(buf + at, "...", 3);
			at += 3;
			break;
		}
		if (key[i] >= 0x20 && key[i] < 0x7f && key[i] != '\'' && key[i] != '\\')
			buf[at++] = (char)key[i];
		else
			at += (size_t)snprintf(buf + at, size - at, "\\x%02x", key[i]);
	}
	buf[at] = '\0';
	return buf;
}

/* claim_node -- the node at `off`, claimed for the catalogue; NULL if it
 * is not a data page or is claimed already (which also stops cycles) */
static const struct os_cat_node *claim_node(struct cat_walk *w, uint64_t off,
					    uint64_t parent)
{
	struct os_checker *ck = w->ck;
	char what[64];

	if (!os_check_offset_ok(ck, off, NODE_SIZE) ||
	    (off - ck->sb->data_offset) % NODE_SIZE) {
		os_check_problem(ck, "catalogue node at %#llx: child pointer %#llx is not a data page",
				 (unsigned long long)parent, (unsigned long long)off);
		return NULL;
	}
	snprintf(what, sizeof(what), "catalogue node at %#llx", (unsigned long long)off);
	if (!os_check_claim_page(ck, (off - ck->sb->data_offset) / NODE_SIZE,
				 OS_OWNER_CATALOGUE, what))
		return NULL;
	return (const void *)(ck->base + off);
}

/* check_header -- a node's header; false if its body can not be trusted */
static bool check_header(struct cat_walk *w, const struct os_cat_node *n,
			 uint64_t off, int level)
{
	struct os_checker *ck = w->ck;
	unsigned long long at = off;

	if (n->magic != OS_CAT_MAGIC) {
		os_check_problem(ck, "catalogue node at %#llx: bad magic %#x", at, n->magic);
		return false;
	}
	if (n->crc != os_cat_node_crc(n)) {
		os_check_problem(ck, "catalogue node at %#llx: header checksum %#x != %#x",
				 at, n->crc, os_cat_node_crc(n));
		return false;
	}
	if (level < 0 && n->level >= OS_CAT_MAX_HEIGHT) {
		os_check_problem(ck, "catalogue node at %#llx: root level %u >= %u",
				 at, n->level, OS_CAT_MAX_HEIGHT);
		return false;
	}
	if (level >= 0 && n->level != level) {
		os_check_problem(ck, "catalogue node at %#llx: level %u under a level-%d parent (leaves at unequal depths)",
				 at, n->level, level + 1);
		return false;
	}
	if (!os_cat_header_fields_ok(n)) {
		os_check_problem(ck, "catalogue node at %#llx: impossible header (count %u, heap at %u, %u dead, reserved %#x/%#x, first %#llx at level %u)",
				 at, n->count, n->heap_start, n->dead, n->reserved0,
				 n->reserved1, (unsigned long long)n->first, n->level);
		return false;
	}
	return true;
}

/* mark_bytes -- mark [off, off+len) used in a node's byte map; false if some already were */
static bool mark_bytes(uint64_t *map, unsigned off, unsigned len)
{
	bool clash = false;

	for (unsigned b = off; b < off + len; b++) {
		clash |= (map[b / 64] >> (b % 64)) & 1;
		map[b / 64] |= 1ull << (b % 64);
	}
	return !clash;
}

/* check_entry -- slot i of n and its entry; the entry if it is sound */
static const struct os_cat_entry *check_entry(struct cat_walk *w,
					      const struct os_cat_node *n,
					      uint64_t off, unsigned i)
{
	uint64_t s = n->slot[i];
	const struct os_cat_entry *e = entry_of(n, s, false);
	unsigned long long at = off;

	if (!os_cat_slot_ok(s))
		os_check_problem(w->ck, "catalogue node at %#llx: slot %u fails its check", at, i);
	else if (!e)
		os_check_problem(w->ck, "catalogue node at %#llx: slot %u points outside the entry heap (offset %u)",
				 at, i, OS_CAT_SLOT_OFFSET(s));
	else if (e->crc != os_cat_entry_crc(e))
		os_check_problem(w->ck, "catalogue node at %#llx: entry of slot %u fails its checksum", at, i);
	else if (memchr(e->name, 0, e->len))
		os_check_problem(w->ck, "catalogue node at %#llx: key of slot %u holds a NUL byte", at, i);
	else if (e->len < n->prefix_len ||
		 OS_CAT_SLOT_HINT(s) != os_cat_key_hint(entry_key(e), e->len,
							  n->prefix_len))
		os_check_problem(w->ck, "catalogue node at %#llx: slot %u's hint does not match its key", at, i);
	else
		return e;
	return NULL;
}

/* check_entries -- every slot and entry of n: checks, overlaps, accounting, fill */
static void check_entries(struct cat_walk *w, const struct os_cat_node *n,
			  uint64_t off, bool is_root, struct cat_good *good)
{
	uint64_t map[NODE_SIZE / 64] = { 0 };
	unsigned bytes = n->dead, live = n->count * OS_CAT_SLOT_SIZE;
	unsigned long long at = off;

	memset(good, 0, sizeof(good->map));
	for (unsigned i = 0; i < n->count; i++) {
		const struct os_cat_entry *e = check_entry(w, n, off, i);
		unsigned eoff = OS_CAT_SLOT_OFFSET(n->slot[i]);

		if (!e)
			continue;
		good->map[i / 64] |= 1ull << (i % 64);
		bytes += entry_size(e->len);
		live += entry_size(e->len);
		if (!mark_bytes(map, eoff, entry_size(e->len)))
			os_check_problem(w->ck, "catalogue node at %#llx: entry of slot %u overlaps another", at, i);
	}
	if (bytes != NODE_SIZE - n->heap_start)
		os_check_problem(w->ck, "catalogue node at %#llx: entries (%u bytes with %u dead) do not fill the heap of %u bytes",
				 at, bytes, n->dead, NODE_SIZE - n->heap_start);
	if (!is_root && live < OS_CAT_MIN_FILL)
		os_check_problem(w->ck, "catalogue node at %#llx: underfull, %u live bytes < %u",
				 at, live, OS_CAT_MIN_FILL);
}

/* good_at -- the entry of slot i of n if it passed its checks, else NULL */
static const struct os_cat_entry *good_at(const struct os_cat_node *n,
					  const struct cat_good *g, unsigned i)
{
	if (!((g->map[i / 64] >> (i % 64)) & 1))
		return NULL;
	return entry_of(n, n->slot[i], false);
}

/* check_prefix -- every sound key shares the node's prefix */
static void check_prefix(struct cat_walk *w, const struct os_cat_node *n,
			 uint64_t off, const struct cat_good *g)
{
	const struct os_cat_entry *first = NULL;

	for (unsigned i = 0; i < n->count; i++) {
		const struct os_cat_entry *e = good_at(n, g, i);

		if (!e)
			continue;
		if (!first)
			first = e;
		else if (memcmp(e->name, first->name, n->prefix_len) != 0)
			os_check_problem(w->ck, "catalogue node at %#llx: key of slot %u lacks the node's %u-byte prefix",
					 (unsigned long long)off, i, n->prefix_len);
	}
}

/* check_order -- sound keys strictly increase and lie in [lo, hi) */
static void check_order(struct cat_walk *w, const struct os_cat_node *n,
			uint64_t off, const struct cat_good *g,
			struct cat_bound lo, struct cat_bound hi)
{
	const struct os_cat_entry *prev = NULL;
	unsigned long long at = off;
	char a[80], b[80];

	for (unsigned i = 0; i < n->count; i++) {
		const struct os_cat_entry *e = good_at(n, g, i);

		if (!e)
			continue;
		if (prev && os_cat_key_cmp(entry_key(prev), prev->len,
					   entry_key(e), e->len) >= 0)
			os_check_problem(w->ck, "catalogue node at %#llx: keys out of order at slot %u ('%s' >= '%s')",
					 at, i, show_key(a, sizeof(a), entry_key(prev), prev->len),
					 show_key(b, sizeof(b), entry_key(e), e->len));
		if (lo.key && os_cat_key_cmp(entry_key(e), e->len, lo.key, lo.len) < 0)
			os_check_problem(w->ck, "catalogue node at %#llx: key '%s' of slot %u is below its parent's separator '%s'",
					 at, show_key(a, sizeof(a), entry_key(e), e->len), i,
					 show_key(b, sizeof(b), lo.key, lo.len));
		if (hi.key && os_cat_key_cmp(entry_key(e), e->len, hi.key, hi.len) >= 0)
			os_check_problem(w->ck, "catalogue node at %#llx: key '%s' of slot %u is not below its parent's separator '%s'",
					 at, show_key(a, sizeof(a), entry_key(e), e->len), i,
					 show_key(b, sizeof(b), hi.key, hi.len));
		prev = e;
	}
}

/* check_leaf_ids -- every name of a leaf refers to a live object */
static void check_leaf_ids(struct cat_walk *w, const struct os_cat_node *n,
			   uint64_t off, const struct cat_good *g)
{
	char a[80];

	for (unsigned i = 0; i < n->count; i++) {
		const struct os_cat_entry *e = good_at(n, g, i);

		if (e && !os_check_object_exists(w->ck, e->value)) {
			os_check_problem(w->ck, "catalogue node at %#llx: name '%s' refers to object %llu, which does not exist",
					 (unsigned long long)off,
					 show_key(a, sizeof(a), entry_key(e), e->len),
					 (unsigned long long)e->value);
			os_check_fixable(w->ck, OS_FIX_DANGLING_NAME, e->value,
					 (const char *)entry_key(e), e->len);
		}
	}
	w->names += n->count;
}

static void walk_node(struct cat_walk *w, uint64_t off, uint64_t parent,
		      int level, struct cat_bound lo, struct cat_bound hi);

/* walk_children -- check every child of an internal node, with its bounds */
static void walk_children(struct cat_walk *w, const struct os_cat_node *n,
			  uint64_t off, const struct cat_good *g,
			  struct cat_bound lo, struct cat_bound hi)
{
	for (unsigned c = 0; c <= n->count; c++) {
		const struct os_cat_entry *left = c ? good_at(n, g, c - 1) : NULL;
		const struct os_cat_entry *right = c < n->count ? good_at(n, g, c) : NULL;
		struct cat_bound clo = lo, chi = hi;

		if (c && !left)
			continue; /* its pointer is not trustworthy: reported already */
		if (left)
			clo = (struct cat_bound){ entry_key(left), left->len };
		if (c < n->count)
			chi = (struct cat_bound){ right ? entry_key(right) : NULL,
						  right ? right->len : 0 };
		walk_node(w, c ? left->value : n->first, off, n->level - 1, clo, chi);
	}
}

/* check_node -- everything about one node but its children; NULL if it
 * can not be trusted at all. Kept out of line: walk_node recurses. */
static __attribute__((noinline)) const struct os_cat_node *
check_node(struct cat_walk *w, uint64_t off, uint64_t parent, int level,
	   struct cat_bound lo, struct cat_bound hi, struct cat_good *good)
{
	const struct os_cat_node *n = claim_node(w, off, parent);

	if (!n || !check_header(w, n, off, level))
		return NULL;
	check_entries(w, n, off, level < 0, good);
	check_prefix(w, n, off, good);
	check_order(w, n, off, good, lo, hi);
	if (n->level == 0)
		check_leaf_ids(w, n, off, good);
	return n;
}

/* walk_node -- check the subtree at `off` (level -1: the root, any level) */
static void walk_node(struct cat_walk *w, uint64_t off, uint64_t parent,
		      int level, struct cat_bound lo, struct cat_bound hi)
{
	struct cat_good good;
	const struct os_cat_node *n = check_node(w, off, parent, level, lo, hi, &good);

	/* Invariant: levels fall by one per step, so this recursion is at
	 * most OS_CAT_MAX_HEIGHT deep. */
	if (n && n->level > 0)
		walk_children(w, n, off, &good, lo, hi);
}

/* os_check_catalogue -- walk the whole catalogue read-only, reporting every problem */
void os_check_catalogue(struct os_checker *ck)
{
	struct cat_walk w = { ck, 0 };
	struct cat_bound none = { NULL, 0 };
	uint64_t root = ck->root->catalogue_root;

	if (root)
		walk_node(&w, root, 0, -1, none, none);
	if (w.names != ck->root->catalogue_count) {
		os_check_problem(ck, "catalogue: %llu names reachable, the root block counts %llu",
				 (unsigned long long)w.names,
				 (unsigned long long)ck->root->catalogue_count);
		os_check_fixable(ck, OS_FIX_NAME_COUNT, w.names, NULL, 0);
	}
}
