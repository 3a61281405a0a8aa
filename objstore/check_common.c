/*
 * check_common.c -- the checker's bookkeeping, shared by its walks.
 *
 * Every walk of the checker (check.c's own, check_objects.c,
 * check_catalogue.c, check_snapshots.c) reports through os_check_problem
 * and os_check_fixable, and claims each data page and small block it
 * reaches through os_check_claim_page and os_check_claim_block: a page or
 * block claimed twice is a double use, one claimed but free a dangling
 * reference, and check.c's last pass finds the allocated ones nobody
 * claimed (leaks). The bookkeeping lives here, below the walks and the
 * driver that runs them, so that calls between the checker's files point
 * one way: check.c -> its walks -> this file.
 *
 * A claim checks that its page lies below the pages ever handed out
 * before it touches the checker's arrays, so a forged offset is reported,
 * never followed.
 */
#include <stdarg.h>
#include <stdio.h>

#include "check_internal.h"
#include "internal.h"

#define PROBLEMS_PRINTED_MAX 1000

/* os_check_problem -- report one problem (printf-style) and count it */
void os_check_problem(struct os_checker *ck, const char *fmt, ...)
{
	char message[320];
	va_list ap;

	ck->problems++;
	if (ck->problems > PROBLEMS_PRINTED_MAX || !ck->report->problem)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	ck->report->problem(ck->report->ctx, message);
}

/* os_check_fixable -- the problem just reported can be repaired so */
void os_check_fixable(struct os_checker *ck, enum os_fix_kind kind, uint64_t value,
		      const char *name, uint64_t len)
{
	struct os_fix fix = { kind, value, name, len };

	if (ck->report->fixable)
		ck->report->fixable(ck->report->ctx, &fix);
}

/* os_check_offset_ok -- whether [off, off+len) lies in the data pages
 * below the never-used tail */
bool os_check_offset_ok(const struct os_checker *ck, uint64_t off, uint64_t len)
{
	uint64_t start = ck->sb->data_offset, end = start + ck->pages * OS_PAGE_SIZE;

	return off >= start && off <= end && len <= end - off;
}

static const char *const owner_names[] = {
	[OS_OWNER_NONE] = "nobody",
	[OS_OWNER_FREE] = "the free-page stack",
	[OS_OWNER_SLAB] = "a slab",
	[OS_OWNER_BLOCK] = "a block",
	[OS_OWNER_ID_INDEX] = "the id index",
	[OS_OWNER_OBJ_INDEX] = "an object's index",
	[OS_OWNER_OBJ_DATA] = "an object's data",
	[OS_OWNER_CATALOGUE] = "the catalogue",
};

/* os_check_claim_page -- claim data page `page` for `owner` */
bool os_check_claim_page(struct os_checker *ck, uint64_t page,
			 enum os_owner owner, const char *what)
{
	if (page >= ck->pages) {
		os_check_problem(ck, "%s: page %llu is beyond the %llu data pages ever handed out",
				 what, (unsigned long long)page,
				 (unsigned long long)ck->pages);
		return false;
	}
	if (ck->desc[page].kind != OS_PAGE_WHOLE) {
		os_check_problem(ck, "%s: page %llu is not allocated as a whole page (descriptor kind %u)",
				 what, (unsigned long long)page, ck->desc[page].kind);
		return false;
	}
	if (ck->page_owner[page] != OS_OWNER_NONE) {
		os_check_problem(ck, "%s: page %llu is already used by %s",
				 what, (unsigned long long)page,
				 owner_names[ck->page_owner[page]]);
		return false;
	}
	ck->page_owner[page] = (uint8_t)owner;
	return true;
}

/* claim_slot -- claim one block of a slab */
static bool claim_slot(struct os_checker *ck, uint64_t page, uint64_t off,
		       uint64_t size, const char *what)
{
	const struct os_page_desc *d = &ck->desc[page];
	uint64_t in_page = off - os_page_off_raw(ck->sb, page);
	uint32_t block = os_class_size(d->size_class);
	uint64_t bit;

	if (in_page % block || size > block) {
		os_check_problem(ck, "%s: offset %#llx (%llu bytes) is not a block of its %u-byte slab",
				 what, (unsigned long long)off,
				 (unsigned long long)size, block);
		return false;
	}
	bit = 1ull << (in_page / block);
	if (!(d->slot_map & bit)) {
		os_check_problem(ck, "%s: block at %#llx is free in its slab (dangling reference)",
				 what, (unsigned long long)off);
		return false;
	}
	if (ck->slot_claimed[page] & bit) {
		os_check_problem(ck, "%s: block at %#llx is used twice",
				 what, (unsigned long long)off);
		return false;
	}
	ck->slot_claimed[page] |= bit;
	return true;
}

/* os_check_claim_block -- claim the allocation at `off` of at least `size` bytes */
bool os_check_claim_block(struct os_checker *ck, uint64_t off, uint64_t size,
			  const char *what)
{
	uint64_t page;

	if (!os_check_offset_ok(ck, off, size ? size : 1)) {
		os_check_problem(ck, "%s: offset %#llx is outside the data pages",
				 what, (unsigned long long)off);
		return false;
	}
	page = (off - ck->sb->data_offset) / OS_PAGE_SIZE;
	if (ck->desc[page].kind == OS_PAGE_SLAB) {
		if (ck->desc[page].size_class >= OS_SIZE_CLASSES)
			return false; /* reported with the descriptors */
		return claim_slot(ck, page, off, size, what);
	}
	if (off % OS_PAGE_SIZE != ck->sb->data_offset % OS_PAGE_SIZE ||
	    size > OS_PAGE_SIZE) {
		os_check_problem(ck, "%s: offset %#llx is not the start of a page", what,
				 (unsigned long long)off);
		return false;
	}
	return os_check_claim_page(ck, page, OS_OWNER_BLOCK, what);
}
