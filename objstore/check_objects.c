/*
 * check_objects.c -- the objects' checker: the id index, every object
 * header and every object's pages, read-only.
 *
 * os_check_objects walks the id index from the root block down to every
 * object header, and each paged object's radix tree down to its data
 * pages, claiming every index page, header, small block and data page it
 * reaches (check.c then finds what nobody reached, or what two claimed).
 * It checks what format.h and docs/format.md ("Objects") lay down, and
 * the invariants object.c states at its top:
 *  - the root block's id fields: next_object_id inside the id space, and
 *    an index depth that is the fewest levels reaching the last id given;
 *  - every index page, of the id index or of an object: a data page, not
 *    empty, its descriptor counting its non-zero entries, and no entry
 *    for an id of 0 or >= next_object_id, or for a page at or past its
 *    object's size;
 *  - every header: its crc, the id of its place in the index, a refcount
 *    of at least 1, no flags, zero reserved fields, a known type placed as
 *    that type is, and no change after the committed epoch;
 *  - a small object's size (1..OS_LARGEST_SMALL) and data block, a paged
 *    object's depth (the fewest levels that reach its last page);
 *  - as many objects found as the root block counts.
 * os_check_object_exists tells the catalogue's checker and check.c (the
 * application roots) whether an id names a live object.
 *
 * It finds a header and measures a tree through object_internal.h, as
 * object.c does. A header with a bad crc or an unknown type is reported
 * and not followed, no tree is walked deeper than its limit (OS_ID_MAX_DEPTH,
 * OBJ_MAX_DEPTH), and a page is claimed once, so a corrupt heap yields
 * reports, never a crash or a hang.
 */
#include <stdio.h>

#include "check_internal.h"
#include "object_internal.h"
#include "objstore/object.h"

#define ULL(x) ((unsigned long long)(x))

/* ck_view -- the read-only view of the heap being checked */
static struct view ck_view(const struct os_checker *ck)
{
	struct view v = { ck->base, ck->sb, ck->root, ck->desc };

	return v;
}

/* ck_page -- the number of data page `off`, if it starts one (else reported) */
static bool ck_page(struct os_checker *ck, uint64_t off, const char *what,
		    uint64_t *page)
{
	if (!os_check_offset_ok(ck, off, OS_PAGE_SIZE) ||
	    (off - ck->sb->data_offset) % OS_PAGE_SIZE) {
		os_check_problem(ck, "%s: offset %#llx is not a data page", what, ULL(off));
		return false;
	}
	*page = (off - ck->sb->data_offset) / OS_PAGE_SIZE;
	return true;
}

/* ck_index_page -- validate, claim and count index page `off`; its entries, or NULL */
static const uint64_t *ck_index_page(struct os_checker *ck, uint64_t off,
				     enum os_owner owner, const char *what)
{
	struct view v = ck_view(ck);
	const uint64_t *e;
	unsigned used = 0;
	uint64_t page;

	if (!ck_page(ck, off, what, &page) ||
	    !os_check_claim_page(ck, page, owner, what))
		return NULL;
	e = os_obj_entries(&v, off);
	for (unsigned i = 0; i < OS_RADIX_FANOUT; i++)
		used += e[i] != 0;
	if (ck->desc[page].used != used)
		os_check_problem(ck, "%s at %#llx: descriptor counts %u entries, the page holds %u",
				 what, ULL(off), ck->desc[page].used, used);
	if (!used)
		os_check_problem(ck, "%s at %#llx: empty index page was not freed",
				 what, ULL(off));
	return e;
}

/* ck_data_page -- claim page `index` of object `id`, at `off` */
static void ck_data_page(struct os_checker *ck, uint64_t off, uint64_t id,
			 uint64_t index)
{
	char what[64];
	uint64_t page;

	snprintf(what, sizeof(what), "object #%llu page %llu", ULL(id), ULL(index));
	if (ck_page(ck, off, what, &page))
		os_check_claim_page(ck, page, OS_OWNER_OBJ_DATA, what);
}

/* ck_obj_page -- check index page `off` (level, first page base) of object
 * `id` of `pages` pages, and everything under it */
static void ck_obj_page(struct os_checker *ck, uint64_t off, unsigned level,
			uint64_t base, uint64_t pages, uint64_t id)
{
	const uint64_t *e;
	char what[96];

	snprintf(what, sizeof(what), "object #%llu index page (level %u, pages from %llu)",
		 ULL(id), level, ULL(base));
	e = ck_index_page(ck, off, OS_OWNER_OBJ_INDEX, what);
	for (unsigned i = 0; e && i < OS_RADIX_FANOUT; i++) {
		uint64_t start = base + i * os_obj_span(level);

		if (!e[i])
			continue;
		if (start >= pages)
			os_check_problem(ck, "%s at %#llx: entry %u maps page %llu, past the object's %llu pages",
					 what, ULL(off), i, ULL(start), ULL(pages));
		else if (level)
			ck_obj_page(ck, e[i], level - 1, start, pages, id);
		else
			ck_data_page(ck, e[i], id, start);
	}
}

/* ck_small -- a small object's size and its data block */
static void ck_small(struct os_checker *ck, const struct os_obj_header *h,
		     uint64_t id)
{
	char what[48];

	if (!h->size || h->size > OS_LARGEST_SMALL || h->depth) {
		os_check_problem(ck, "object #%llu: small object of %llu bytes, depth %u (want 1..%u bytes, depth 0)",
				 ULL(id), ULL(h->size), h->depth, OS_LARGEST_SMALL);
		return;
	}
	snprintf(what, sizeof(what), "object #%llu data", ULL(id));
	os_check_claim_block(ck, h->data, h->size, what);
}

/* ck_paged -- a paged object's depth and radix tree */
static void ck_paged(struct os_checker *ck, const struct os_obj_header *h,
		     uint64_t id)
{
	unsigned want = os_obj_depth(h->size);

	if (h->depth != want) {
		os_check_problem(ck, "object #%llu: depth %u, its %llu bytes need depth %u",
				 ULL(id), h->depth, ULL(h->size), want);
		if (h->depth > OBJ_MAX_DEPTH)
			return;
	}
	if (!h->data)
		return;
	if (!h->size)
		os_check_problem(ck, "object #%llu: size 0 but data at %#llx",
				 ULL(id), ULL(h->data));
	else if (!h->depth)
		ck_data_page(ck, h->data, id, 0);
	else
		ck_obj_page(ck, h->data, h->depth - 1, 0, os_obj_npages(h->size), id);
}

/* ck_fields -- the fields of a header with a good crc; whether its contents can be walked */
static bool ck_fields(struct os_checker *ck, const struct os_obj_header *h,
		      uint64_t id, uint64_t off)
{
	if (h->id != id)
		os_check_problem(ck, "object #%llu: header at %#llx says id %llu",
				 ULL(id), ULL(off), ULL(h->id));
	if (h->refcount == 0)
		os_check_problem(ck, "object #%llu: refcount 0 yet still in the id index", ULL(id));
	if (h->flags)
		os_check_problem(ck, "object #%llu: flags %#x set (none are defined)",
				 ULL(id), h->flags);
	if (h->reserved1 || h->reserved3)
		os_check_problem(ck, "object #%llu: header reserved fields are not zero", ULL(id));
	if (h->mode && (h->mode & ~(OS_MODE_SET | OS_MODE_BITS) || !(h->mode & OS_MODE_SET)))
		os_check_problem(ck, "object #%llu: mode %#x is neither 0 nor %#x with permission bits",
				 ULL(id), h->mode, OS_MODE_SET);
	if (h->placement == OS_PLACE_SMALL && (h->mode || h->mtime_ns))
		os_check_problem(ck, "object #%llu: a small object with a mode or an mtime", ULL(id));
	if (h->modified_epoch > ck->committed_epoch)
		os_check_problem(ck, "object #%llu: modified in epoch %llu, after the committed epoch %llu",
				 ULL(id), ULL(h->modified_epoch), ULL(ck->committed_epoch));
	if (!os_obj_placement(h->type)) {
		os_check_problem(ck, "object #%llu: unknown type %u", ULL(id), h->type);
		return false;
	}
	if (h->placement != os_obj_placement(h->type)) {
		os_check_problem(ck, "object #%llu: placement %u, but type %u is placed %u",
				 ULL(id), h->placement, h->type, os_obj_placement(h->type));
		return false;
	}
	return true;
}

/* ck_object -- object `id`: its header at `off` and everything it owns */
static void ck_object(struct os_checker *ck, uint64_t off, uint64_t id)
{
	const struct os_obj_header *h;
	char what[48];
	uint32_t crc;

	snprintf(what, sizeof(what), "object #%llu header", ULL(id));
	if (!os_check_claim_block(ck, off, sizeof(*h), what))
		return;
	h = (const void *)(ck->base + off);
	crc = os_obj_hdr_crc(h);
	if (crc != h->crc) {
		os_check_problem(ck, "object #%llu: header crc 0x%08x != 0x%08x at offset %#llx",
				 ULL(id), h->crc, crc, ULL(off));
		return;
	}
	if (!ck_fields(ck, h, id, off))
		return;
	if (h->placement == OS_PLACE_SMALL)
		ck_small(ck, h, id);
	else
		ck_paged(ck, h, id);
}

/* ck_id_page -- id index page `off` (level, first id base), and every object under it */
static void ck_id_page(struct os_checker *ck, uint64_t off, unsigned level,
		       uint64_t base, uint64_t *found)
{
	uint64_t next = ck->root->next_object_id;
	const uint64_t *e;
	char what[80];

	snprintf(what, sizeof(what), "id index page (level %u, ids from %llu)",
		 level, ULL(base));
	e = ck_index_page(ck, off, OS_OWNER_ID_INDEX, what);
	for (unsigned i = 0; e && i < OS_RADIX_FANOUT; i++) {
		uint64_t start = base + i * os_obj_span(level);

		if (!e[i])
			continue;
		if (start >= next || (!level && !start)) {
			os_check_problem(ck, "%s at %#llx: entry %u maps ids from %llu, outside 1..%llu",
					 what, ULL(off), i, ULL(start), ULL(next - 1));
		} else if (level) {
			ck_id_page(ck, e[i], level - 1, start, found);
		} else {
			(*found)++;
			ck_object(ck, e[i], start);
		}
	}
}

/* ck_id_depth -- the root block's id fields; whether the id index can be walked */
static bool ck_id_depth(struct os_checker *ck)
{
	const struct os_root *r = ck->root;
	unsigned want;

	if (r->next_object_id == 0)
		return false; /* reported with the root block */
	if (r->next_object_id > OS_ID_LIMIT)
		os_check_problem(ck, "root block: next object id %llu is past the last id %llu",
				 ULL(r->next_object_id), ULL(OS_ID_LIMIT - 1));
	if (r->index_depth > OS_ID_MAX_DEPTH || (r->index_root && !r->index_depth)) {
		os_check_problem(ck, "root block: id index depth %u (root %#llx) is not 1..%u",
				 r->index_depth, ULL(r->index_root), OS_ID_MAX_DEPTH);
		return false;
	}
	want = os_obj_key_depth(r->next_object_id - 1);
	if (r->index_depth != want)
		os_check_problem(ck, "root block: id index depth %u, ids below %llu need %u",
				 r->index_depth, ULL(r->next_object_id), want);
	return true;
}

/* os_check_objects -- walk the id index, every object header and every object's pages */
void os_check_objects(struct os_checker *ck)
{
	const struct os_root *r = ck->root;
	uint64_t found = 0;

	if (!ck_id_depth(ck))
		return;
	if (r->index_root)
		ck_id_page(ck, r->index_root, r->index_depth - 1, 0, &found);
	if (found != r->object_count) {
		os_check_problem(ck, "root block: object count %llu, the id index holds %llu",
				 ULL(r->object_count), ULL(found));
		os_check_fixable(ck, OS_FIX_OBJECT_COUNT, found, NULL, 0);
	}
}

/* os_check_object_exists -- whether `id` is a live object with a good header and refcount >= 1 */
bool os_check_object_exists(const struct os_checker *ck, uint64_t id)
{
	struct view v = ck_view(ck);
	uint64_t off;

	if (os_obj_hdr_find(&v, id, &off))
		return false;
	return ((const struct os_obj_header *)(ck->base + off))->refcount >= 1;
}
