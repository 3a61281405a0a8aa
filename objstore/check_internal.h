/*
 * check_internal.h -- what the checker's modules share.
 *
 * check.c walks the superblock, root block, log, page descriptors and the
 * free-page stack, then asks each structure's checker to walk what it
 * owns (os_check_objects in check_objects.c, os_check_catalogue in
 * check_catalogue.c, os_check_snapshots in check_snapshots.c). Each
 * claims every page and small block it reaches; at the end check.c
 * compares the claims with the allocator: an allocated page or block that
 * nobody claimed is a leak, one claimed twice is a double use, one claimed
 * but free is a dangling reference. The reports and the claims are
 * check_common.c's, which the driver and every walk call, and which calls
 * none of them.
 *
 * Only the checker's files include this header (and test_object.c, which
 * asks os_check_object_exists directly). A checker reads its structure
 * through that structure's own private header (object_internal.h,
 * catalogue_internal.h), which object.c and catalogue.c include too;
 * neither of them includes this one.
 */
#ifndef OBJSTORE_CHECK_INTERNAL_H
#define OBJSTORE_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "objstore/check.h"
#include "objstore/format.h"

/* Who claimed a data page (values of page_owner[]). */
enum os_owner {
	OS_OWNER_NONE = 0,
	OS_OWNER_FREE,          /* on the free-page stack */
	OS_OWNER_SLAB,          /* a slab: its blocks are claimed one by one */
	OS_OWNER_BLOCK,         /* a whole page claimed with os_check_claim_block */
	OS_OWNER_ID_INDEX,      /* a page of the id index */
	OS_OWNER_OBJ_INDEX,     /* an index page of an object's radix tree */
	OS_OWNER_OBJ_DATA,      /* a data page of an object */
	OS_OWNER_CATALOGUE,     /* a catalogue node */
};

struct os_checker {
	const uint8_t *base;
	uint64_t size;
	const struct os_superblock *sb;
	uint64_t committed_epoch;  /* the last committed, its chain replayed or not */
	const struct os_root *root;
	const struct os_page_desc *desc;
	const uint32_t *stack;
	uint64_t pages;            /* data pages below the never-used tail */
	uint8_t *page_owner;       /* per data page: enum os_owner */
	uint64_t *slot_claimed;    /* per data page: claimed slab slots */
	uint64_t problems;
	const struct os_check_report *report;
};

/* --- the bookkeeping (check_common.c) --- */

/* os_check_problem -- report one problem (printf-style) and count it */
void os_check_problem(struct os_checker *ck, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* os_check_fixable -- the problem just reported can be repaired so */
void os_check_fixable(struct os_checker *ck, enum os_fix_kind kind, uint64_t value,
		      const char *name, uint64_t len);

/* os_check_claim_page -- claim data page `page` for `owner`; reports and
 * returns false if the page is out of range, not allocated as a whole
 * page, or claimed already */
bool os_check_claim_page(struct os_checker *ck, uint64_t page,
			 enum os_owner owner, const char *what);

/* os_check_claim_block -- claim the allocation at heap offset `off` (a
 * small block or a whole page) of at least `size` bytes; reports and
 * returns false if it is not an allocated block of that size or claimed
 * already */
bool os_check_claim_block(struct os_checker *ck, uint64_t off, uint64_t size,
			  const char *what);

/* os_check_offset_ok -- whether [off, off+len) lies in the data pages */
bool os_check_offset_ok(const struct os_checker *ck, uint64_t off, uint64_t len);

/* The structure walkers, in check_objects.c and check_catalogue.c. */
void os_check_objects(struct os_checker *ck);
void os_check_catalogue(struct os_checker *ck);

/* os_check_snapshots -- the snapshot area (check_snapshots.c), last: it
 * reuses `scratch`, the slot_claimed array, as its own */
void os_check_snapshots(struct os_checker *ck, void *scratch);

/* os_check_object_exists -- whether `id` is a live object with a good
 * header and a refcount of at least 1 (a name refers to it); read-only,
 * usable from os_check_catalogue */
bool os_check_object_exists(const struct os_checker *ck, uint64_t id);

#endif
