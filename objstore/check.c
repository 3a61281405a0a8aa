/*
 * check.c -- the checker: every invariant of the format, read-only.
 *
 * Order: the superblock (if it is bad nothing else can be trusted), the
 * log (every record of an unfinished transaction must be sound, as open
 * demands), the root block as the rollback leaves it, then, if the log
 * holds an unfinished transaction (the structures may be half-changed in
 * place), the check stops: open the heap first, or check a rolled-back
 * private view as objtool does. Then every page
 * descriptor, the free-page stack, the partial-slab lists; then each
 * structure's checker (check_objects.c, check_catalogue.c) walks what it
 * owns and claims every page and small block it reaches
 * (check_internal.h), and each application root must name
 * a live object; finally every allocated page and block must have been
 * claimed exactly once (no leak, no double use) and every claimed one must
 * be allocated (no dangling reference). Last, check_snapshots.c walks the
 * snapshot area.
 *
 * This file is the driver: it calls each walk, and the walks and the
 * driver report and claim through the bookkeeping in check_common.c,
 * below them all; no walk calls back into the driver.
 *
 * Every offset is validated before it is followed, and every walk is
 * bounded, so a corrupt heap yields reports, never a crash or a hang.
 */
#include <stdio.h>
#include <string.h>

#include "check_internal.h"
#include "internal.h"

#define PROGRESS_STEP 65536

/* progress -- tell the caller how far along we are */
static void progress(struct os_checker *ck, uint64_t done, uint64_t total)
{
	if (ck->report->progress && done % PROGRESS_STEP == 0)
		ck->report->progress(ck->report->ctx, done, total);
}

/* check_root -- the root block's checksum and bounds; the pages below
 * the never-used tail into ck->pages */
static void check_root(struct os_checker *ck)
{
	const struct os_root *r = ck->root;

	if (r->crc != os_root_crc(r))
		os_check_problem(ck, "root block: checksum %#x != %#x", r->crc,
				 os_root_crc(r));
	if (r->next_object_id == 0)
		os_check_problem(ck, "root block: next object id is 0");
	if (!os_all_zero(r->reserved, sizeof(r->reserved)) || r->reserved0 || r->reserved1)
		os_check_problem(ck, "root block: reserved fields are not zero");
	if (!os_root_counts_fit(r, ck->sb)) {
		os_check_problem(ck, "root block: %llu pages on the free-page stack and %llu never used, of %llu (room for %llu)",
				 (unsigned long long)r->free_top,
				 (unsigned long long)r->pages_unformatted,
				 (unsigned long long)ck->sb->page_count,
				 (unsigned long long)os_page_room(ck->sb));
		return;
	}
	ck->pages = os_formatted_pages(ck->sb, r);
	for (unsigned c = 0; c < OS_SIZE_CLASSES; c++)
		if (r->slab_partial[c] > ck->pages)
			os_check_problem(ck, "root block: partial-slab list %u starts at page %llu, beyond the pages ever handed out",
					 c, (unsigned long long)r->slab_partial[c] - 1);
}

/* check_app_roots -- every non-zero app root names a live object */
static void check_app_roots(struct os_checker *ck)
{
	for (unsigned i = 0; i < OS_APP_ROOTS; i++) {
		uint64_t id = ck->root->app_roots[i];

		if (id && !os_check_object_exists(ck, id))
			os_check_problem(ck, "root block: app root %u names object #%llu, which is not a live object",
					 i, (unsigned long long)id);
	}
}

/* check_slab_desc -- the invariants of one slab's descriptor */
static void check_slab_desc(struct os_checker *ck, uint64_t p,
			    const struct os_page_desc *d)
{
	uint32_t slots;

	if (d->size_class >= OS_SIZE_CLASSES) {
		os_check_problem(ck, "page %llu: slab of unknown size class %u",
				 (unsigned long long)p, d->size_class);
		return;
	}
	slots = os_class_slots(d->size_class);
	if (d->used != __builtin_popcountll(d->slot_map))
		os_check_problem(ck, "page %llu: slab counts %u blocks in use, its map has %d",
				 (unsigned long long)p, d->used,
				 __builtin_popcountll(d->slot_map));
	if (slots < 64 && (d->slot_map >> slots))
		os_check_problem(ck, "page %llu: slab map has bits beyond its %u slots",
				 (unsigned long long)p, slots);
	if (d->used == 0)
		os_check_problem(ck, "page %llu: empty slab was not freed",
				 (unsigned long long)p);
	if (d->next > ck->pages || d->prev > ck->pages)
		os_check_problem(ck, "page %llu: slab list link beyond the pages ever handed out",
				 (unsigned long long)p);
	ck->page_owner[p] = OS_OWNER_SLAB;
}

/* check_descriptors -- every page descriptor below the never-used tail, on its own */
static void check_descriptors(struct os_checker *ck)
{
	uint64_t pages = ck->pages;

	for (uint64_t p = 0; p < pages; p++) {
		const struct os_page_desc *d = &ck->desc[p];

		progress(ck, p, pages);
		if (d->crc != os_desc_crc(d)) {
			os_check_problem(ck, "page %llu: descriptor checksum %#x != %#x",
					 (unsigned long long)p, d->crc, os_desc_crc(d));
			continue;
		}
		if (d->reserved)
			os_check_problem(ck, "page %llu: descriptor reserved field is not zero",
					 (unsigned long long)p);
		if (d->kind == OS_PAGE_SLAB)
			check_slab_desc(ck, p, d);
		else if (d->kind == OS_PAGE_FREE && (d->size_class || d->used || d->next || d->prev || d->slot_map))
			os_check_problem(ck, "page %llu: free page's descriptor is not blank",
					 (unsigned long long)p);
		else if (d->kind == OS_PAGE_WHOLE && (d->size_class || d->next || d->prev || d->slot_map || d->used > OS_RADIX_FANOUT))
			os_check_problem(ck, "page %llu: whole page's descriptor has slab fields set",
					 (unsigned long long)p);
		else if (d->kind > OS_PAGE_WHOLE)
			os_check_problem(ck, "page %llu: unknown descriptor kind %u",
					 (unsigned long long)p, d->kind);
	}
}

/* check_free_stack -- free_top distinct free pages, and no free page missing */
static void check_free_stack(struct os_checker *ck)
{
	uint64_t pages = ck->pages, top = ck->root->free_top;

	for (uint64_t i = 0; i < top; i++) {
		uint32_t p = ck->stack[i];

		if (p >= pages) {
			os_check_problem(ck, "free-page stack slot %llu: page %u beyond the pages ever handed out",
					 (unsigned long long)i, p);
		} else if (ck->desc[p].kind != OS_PAGE_FREE) {
			os_check_problem(ck, "free-page stack slot %llu: page %u is in use (descriptor kind %u)",
					 (unsigned long long)i, p, ck->desc[p].kind);
		} else if (ck->page_owner[p] == OS_OWNER_FREE) {
			os_check_problem(ck, "free-page stack slot %llu: page %u is on the stack twice",
					 (unsigned long long)i, p);
		} else {
			ck->page_owner[p] = OS_OWNER_FREE;
		}
	}
	for (uint64_t p = 0; p < pages; p++)
		if (ck->desc[p].kind == OS_PAGE_FREE && ck->page_owner[p] != OS_OWNER_FREE)
			os_check_problem(ck, "page %llu: free but not on the free-page stack (lost)",
					 (unsigned long long)p);
}

/* check_partial_list -- one class's list of slabs with a free slot */
static void check_partial_list(struct os_checker *ck, unsigned c,
			       uint64_t partial_slabs)
{
	uint64_t page = ck->root->slab_partial[c], prev = 0, steps = 0;

	while (page) {
		const struct os_page_desc *d;

		if (page > ck->pages || ++steps > partial_slabs) {
			os_check_problem(ck, "partial-slab list %u: runs past its %llu slabs (cycle or bad link)",
					 c, (unsigned long long)partial_slabs);
			return;
		}
		d = &ck->desc[page - 1];
		if (d->kind != OS_PAGE_SLAB || d->size_class != c ||
		    d->used >= os_class_slots(c) || d->prev != prev) {
			os_check_problem(ck, "partial-slab list %u: page %llu is not a partial slab of this class linked back to %llu",
					 c, (unsigned long long)page - 1,
					 (unsigned long long)prev);
			return;
		}
		prev = page;
		page = d->next;
	}
	if (steps != partial_slabs)
		os_check_problem(ck, "partial-slab list %u: holds %llu of the %llu slabs with a free slot",
				 c, (unsigned long long)steps,
				 (unsigned long long)partial_slabs);
}

/* check_partial_lists -- every class's list against the descriptors */
static void check_partial_lists(struct os_checker *ck)
{
	uint64_t partial[OS_SIZE_CLASSES] = { 0 };

	for (uint64_t p = 0; p < ck->pages; p++) {
		const struct os_page_desc *d = &ck->desc[p];

		if (d->kind == OS_PAGE_SLAB && d->size_class < OS_SIZE_CLASSES &&
		    d->used < os_class_slots(d->size_class))
			partial[d->size_class]++;
	}
	for (unsigned c = 0; c < OS_SIZE_CLASSES; c++)
		check_partial_list(ck, c, partial[c]);
}

/* check_claims -- every allocated page and block reached exactly once */
static void check_claims(struct os_checker *ck)
{
	uint64_t pages = ck->pages;

	for (uint64_t p = 0; p < pages; p++) {
		const struct os_page_desc *d = &ck->desc[p];

		progress(ck, p, pages);
		if (d->kind == OS_PAGE_WHOLE && ck->page_owner[p] == OS_OWNER_NONE) {
			os_check_problem(ck, "page %llu (offset %#llx): allocated but unreachable (leak)",
					 (unsigned long long)p,
					 (unsigned long long)os_page_off_raw(ck->sb, p));
			os_check_fixable(ck, OS_FIX_LEAK_PAGE, os_page_off_raw(ck->sb, p), NULL, 0);
		}
		if (d->kind == OS_PAGE_SLAB && d->size_class < OS_SIZE_CLASSES &&
		    ck->slot_claimed[p] != d->slot_map) {
			uint64_t lost = d->slot_map & ~ck->slot_claimed[p];
			uint32_t block = os_class_size(d->size_class);

			for (unsigned s = 0; lost && s < 64; s++) {
				uint64_t off = os_page_off_raw(ck->sb, p) + s * block;

				if (!(lost & (1ull << s)))
					continue;
				os_check_problem(ck, "block at %#llx (%u bytes): allocated but unreachable (leak)",
						 (unsigned long long)off, block);
				os_check_fixable(ck, OS_FIX_LEAK_BLOCK, off, NULL, 0);
			}
		}
	}
}

/* os_check_scratch_size -- bytes of scratch memory os_check needs */
uint64_t os_check_scratch_size(uint64_t size)
{
	uint64_t pages = size / OS_PAGE_SIZE + 1;

	return pages * (sizeof(uint64_t) + 1);
}

/* os_check -- check the heap at base; the number of problems found */
uint64_t os_check(const void *base, uint64_t size, void *scratch,
		  const struct os_check_report *report)
{
	struct os_checker ck = { .base = base, .size = size, .report = report };
	char message[OS_WHY_MAX];
	struct os_log_scan scan;
	struct os_superblock settled;
	struct os_root root;
	const char *why;
	uint64_t pages;

	ck.sb = os_sb_effective(base, size, &settled);
	if (os_sb_check(ck.sb, size, &why)) {
		os_check_problem(&ck, "superblock: %s", why);
		return ck.problems;
	}
	pages = ck.sb->page_count;
	ck.desc = (const void *)(ck.base + ck.sb->desc_offset);
	ck.stack = (const void *)(ck.base + ck.sb->stack_offset);
	ck.slot_claimed = scratch;
	ck.page_owner = (uint8_t *)(ck.slot_claimed + pages);
	memset(scratch, 0, pages * (sizeof(uint64_t) + 1));

	/* The log first: the root block is checked as its rollback leaves it. */
	if (os_log_scan(ck.sb, ck.base + ck.sb->log_offset, &scan, message,
			sizeof(message))) {
		os_check_problem(&ck, "%s", message);
		return ck.problems;
	}
	os_after_rollback(ck.base, ck.sb, &scan, ck.sb->root_offset, sizeof(root), &root);
	ck.root = &root;
	check_root(&ck);
	/* The snapshot area's header and nodes, as the rollback leaves them too. */
	if (os_snap_after_rollback_problem(ck.base, ck.sb, &scan, message, sizeof(message)))
		os_check_problem(&ck, "%s", message);
	ck.committed_epoch = scan.replay_epoch ? scan.replay_epoch : ck.sb->committed_epoch;
	if (scan.replay_records && os_log_replay_changes(ck.base, ck.sb, &scan))
		os_check_problem(&ck, "log: committed transactions of %llu redo records (%llu bytes) await replay; open the heap first",
				 (unsigned long long)scan.replay_records,
				 (unsigned long long)scan.replay_bytes);
	if (scan.records)
		os_check_problem(&ck, "log: an unfinished transaction of %llu records (%llu bytes) awaits rollback; open the heap first",
				 (unsigned long long)scan.records,
				 (unsigned long long)(scan.bytes - scan.back_start));
	if (ck.problems)
		return ck.problems;
	check_descriptors(&ck);
	check_free_stack(&ck);
	check_partial_lists(&ck);
	os_check_objects(&ck);
	os_check_catalogue(&ck);
	check_app_roots(&ck);
	check_claims(&ck);
	os_check_snapshots(&ck, ck.slot_claimed);
	return ck.problems;
}
