/*
 * heap.c -- creating, validating and opening a heap.
 *
 * Creation writes the root block, the log's first line and the snapshot
 * area's header and node table (with room in the descriptors and the
 * free-page stack for a heap OS_GROW_DEFAULT times larger: resize.c) -- nothing per data page, so it takes the
 * same time at any size (the data pages start as the never-used tail,
 * format.h) -- then the superblock last: a heap whose creation was cut
 * short has no magic and is "not a Ferrite heap".
 * Opening never scans the heap: it checks the superblock (magic, version,
 * checksum, geometry; the committed one, when a resize's copy was cut), validates every record of an unfinished transaction
 * and the root block as their rollback will leave it -- all before writing
 * a byte -- then rolls back (bounded by one transaction's log). So open
 * time does not grow with the heap's size or its number of objects.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "objstore/object.h"

#define LOG_MIN (256u << 10)
#define LOG_MAX (64u << 20)
#define LOG_FLOOR (64u << 10) /* the smallest log a valid heap may have */

/* default_log_size -- heap/16, clamped, in whole pages */
static uint64_t default_log_size(uint64_t size)
{
	uint64_t log = size / 16;

	if (log < LOG_MIN)
		log = LOG_MIN;
	if (log > LOG_MAX)
		log = LOG_MAX;
	return OS_ALIGN_DOWN(log, OS_PAGE_SIZE);
}

/* meta_bytes -- the descriptors and the free-page stack of `pages` pages */
static uint64_t meta_bytes(uint64_t pages)
{
	return OS_ALIGN_UP(pages * sizeof(struct os_page_desc), OS_PAGE_SIZE) +
	       OS_ALIGN_UP(pages * sizeof(uint32_t), OS_PAGE_SIZE);
}

/* pages_fitting -- the most data pages, with their descriptors and stack
 * slots, that `room` bytes hold */
static uint64_t pages_fitting(uint64_t room)
{
	uint64_t pages = room / (OS_PAGE_SIZE + sizeof(struct os_page_desc) +
				 sizeof(uint32_t));

	while (pages && meta_bytes(pages) + pages * OS_PAGE_SIZE > room)
		pages--;
	return pages;
}

/* old_layout -- place the regions of a heap of `size` bytes as layouts
 * before 2.3 did: the data pages, then the last `snap_size` bytes the
 * snapshot area; 0 or -ERR_NOSPC */
static int old_layout(struct os_superblock *sb, uint64_t size, uint64_t log_size,
		      uint64_t snap_size)
{
	uint64_t fixed = 2 * OS_PAGE_SIZE + log_size + snap_size, pages;

	if (size < OS_MIN_HEAP_SIZE || fixed >= size)
		return -ERR_NOSPC;
	pages = pages_fitting(size - fixed);
	if (pages < 16 || pages > UINT32_MAX - 1)
		return -ERR_NOSPC;
	sb->heap_size = size;
	sb->root_offset = OS_PAGE_SIZE;
	sb->log_offset = 2 * OS_PAGE_SIZE;
	sb->log_size = log_size;
	sb->desc_offset = sb->log_offset + log_size;
	sb->stack_offset = sb->desc_offset +
			   OS_ALIGN_UP(pages * sizeof(struct os_page_desc), OS_PAGE_SIZE);
	sb->data_offset = sb->stack_offset +
			  OS_ALIGN_UP(pages * sizeof(uint32_t), OS_PAGE_SIZE);
	sb->page_count = pages;
	if (snap_size) {
		sb->snap_offset = size - snap_size;
		sb->snap_size = snap_size;
		if (os_snap_geometry_check(sb))
			return -ERR_NOSPC;
	}
	return 0;
}

/* layout -- place the regions of a heap of `size` bytes that may grow to
 * `max_size` (2.3: the snapshot area of `snap_size` bytes before the data
 * pages, which end the heap); 0 or -ERR_NOSPC */
static int layout(struct os_superblock *sb, uint64_t size, uint64_t log_size,
		  uint64_t snap_size, uint64_t max_size)
{
	uint64_t fixed = 2 * OS_PAGE_SIZE + log_size + snap_size;
	uint64_t capacity, pages;

	if (size < OS_MIN_HEAP_SIZE || fixed >= size || max_size < size)
		return -ERR_NOSPC;
	capacity = pages_fitting(max_size - fixed);
	if (capacity > UINT32_MAX - 1)
		capacity = UINT32_MAX - 1;
	if (fixed + meta_bytes(capacity) >= size)
		return -ERR_NOSPC;
	pages = (size - fixed - meta_bytes(capacity)) / OS_PAGE_SIZE;
	if (pages < 16 || pages > capacity)
		return -ERR_NOSPC;
	sb->root_offset = OS_PAGE_SIZE;
	sb->log_offset = 2 * OS_PAGE_SIZE;
	sb->log_size = log_size;
	sb->desc_offset = sb->log_offset + log_size;
	sb->stack_offset = sb->desc_offset +
			   OS_ALIGN_UP(capacity * sizeof(struct os_page_desc), OS_PAGE_SIZE);
	sb->snap_offset = snap_size ? sb->stack_offset +
			  OS_ALIGN_UP(capacity * sizeof(uint32_t), OS_PAGE_SIZE) : 0;
	sb->snap_size = snap_size;
	sb->data_offset = sb->stack_offset +
			  OS_ALIGN_UP(capacity * sizeof(uint32_t), OS_PAGE_SIZE) + snap_size;
	sb->page_count = pages;
	sb->page_capacity = capacity;
	sb->heap_size = sb->data_offset + pages * OS_PAGE_SIZE;
	return os_snap_geometry_check(sb) ? -ERR_NOSPC : 0;
}

/* old_geometry_problem -- the regions of a heap before 2.3: data pages
 * after the stack, then the snapshot area to the end; an image at least
 * as large as the heap (what lies past it, such a heap never uses) */
static const char *old_geometry_problem(const struct os_superblock *sb, uint64_t size)
{
	uint64_t pages = sb->page_count;

	if (sb->heap_size > size)
		return "the heap is larger than the image";
	if (sb->stack_offset != sb->desc_offset + OS_ALIGN_UP(pages * sizeof(struct os_page_desc), OS_PAGE_SIZE))
		return "free-page stack does not follow the descriptors";
	if (sb->data_offset != sb->stack_offset + OS_ALIGN_UP(pages * sizeof(uint32_t), OS_PAGE_SIZE))
		return "data pages do not follow the free-page stack";
	if (sb->data_offset > sb->heap_size ||
	    pages > (sb->heap_size - sb->data_offset) / OS_PAGE_SIZE)
		return "data pages run past the end of the heap";
	return NULL;
}

/* growable_geometry_problem -- the regions of a 2.3 heap: descriptors and
 * stack for page_capacity pages, the snapshot area, the data pages to the
 * end; an image at least as large as the heap */
static const char *growable_geometry_problem(const struct os_superblock *sb, uint64_t size)
{
	uint64_t cap = sb->page_capacity, area;

	if (sb->heap_size > size)
		return "the heap is larger than the image";
	if (cap < sb->page_count || cap > UINT32_MAX - 1)
		return "page capacity out of range";
	if (sb->stack_offset != sb->desc_offset + OS_ALIGN_UP(cap * sizeof(struct os_page_desc), OS_PAGE_SIZE))
		return "free-page stack does not follow the descriptors";
	area = sb->stack_offset + OS_ALIGN_UP(cap * sizeof(uint32_t), OS_PAGE_SIZE);
	if (sb->snap_size && sb->snap_offset != area)
		return "snapshot area does not follow the free-page stack";
	if (sb->data_offset != area + sb->snap_size)
		return "data pages do not follow the snapshot area";
	if (sb->data_offset > sb->heap_size ||
	    sb->heap_size - sb->data_offset != sb->page_count * OS_PAGE_SIZE)
		return "data pages do not end the heap";
	return NULL;
}

/* os_geometry_check -- validate a superblock's geometry against an image
 * of `size` bytes */
const char *os_geometry_check(const struct os_superblock *sb, uint64_t size)
{
	uint64_t pages = sb->page_count;
	const char *why;

	if (sb->root_offset != OS_PAGE_SIZE || sb->log_offset != 2 * OS_PAGE_SIZE)
		return "root block or log not where layout 1 puts them";
	if (sb->log_size < LOG_FLOOR || sb->log_size % OS_PAGE_SIZE ||
	    sb->log_size > size)
		return "log size out of range";
	if (pages < 16 || pages > UINT32_MAX - 1 || pages > size / OS_PAGE_SIZE)
		return "page count out of range";
	if (sb->desc_offset != sb->log_offset + sb->log_size)
		return "page descriptors do not follow the log";
	why = os_resizable(sb) ? growable_geometry_problem(sb, size) :
	      old_geometry_problem(sb, size);
	return why ? why : os_snap_geometry_check(sb);
}

/* os_sb_check -- magic, version, checksum and geometry; 0 or error, with the reason in *why */
int os_sb_check(const struct os_superblock *sb, uint64_t size, const char **why)
{
	const char *geometry;

	*why = NULL;
	if (size < sizeof(*sb) || memcmp(sb->magic, OS_MAGIC, 8) != 0) {
		*why = "no Ferrite heap magic";
		return -ERR_INVAL;
	}
	if (sb->layout_major < OS_LAYOUT_OLDEST_MAJOR || sb->layout_major > OS_LAYOUT_MAJOR) {
		*why = "another layout major version";
		return -ERR_VERSION;
	}
	if (sb->header_size != sizeof(*sb))
		*why = "header size is wrong";
	else if (sb->crc != os_sb_crc(sb))
		*why = "checksum mismatch";
	else if (!os_all_zero(sb->reserved, sizeof(sb->reserved)) || sb->flags ||
		 (!os_resizable(sb) && (sb->page_capacity || sb->resize_epoch)))
		*why = "reserved fields or flags are not zero";
	else if ((geometry = os_geometry_check(sb, size)) != NULL)
		*why = geometry;
	else if (sb->committed_epoch == 0)
		*why = "committed epoch is 0";
	else if (sb->resize_epoch > sb->committed_epoch)
		*why = "resized in an epoch not committed";
	return *why ? -ERR_CORRUPT : 0;
}

/* os_root_problem -- the first thing wrong with a root block, NULL if none */
const char *os_root_problem(const struct os_root *r, const struct os_superblock *sb,
			    char *why, size_t why_size)
{
	if (r->crc != os_root_crc(r))
		snprintf(why, why_size, "root block: checksum %#x != %#x", r->crc,
			 os_root_crc(r));
	else if (!os_root_counts_fit(r, sb))
		snprintf(why, why_size,
			 "root block: %llu pages on the free-page stack and %llu never used, of %llu (room for %llu)",
			 (unsigned long long)r->free_top,
			 (unsigned long long)r->pages_unformatted,
			 (unsigned long long)sb->page_count,
			 (unsigned long long)os_page_room(sb));
	else if (r->next_object_id == 0)
		snprintf(why, why_size, "root block: next object id is 0");
	else if (!os_all_zero(r->reserved, sizeof(r->reserved)) || r->reserved0 ||
		 r->reserved1)
		snprintf(why, why_size, "root block: reserved fields are not zero");
	else
		return NULL;
	return why;
}

/* os_diagnose -- os_probe, saying what is wrong */
int os_diagnose(const void *base, uint64_t size, struct os_diagnosis *d)
{
	struct os_superblock settled;
	const struct os_superblock *sb = os_sb_effective(base, size, &settled);
	struct os_log_scan scan;
	struct os_root root;
	const char *why;
	int err = os_sb_check(sb, size, &why);

	memset(d, 0, sizeof(*d));
	if (err) {
		snprintf(d->why, sizeof(d->why), "superblock: %s", why);
		return err;
	}
	err = os_log_scan(sb, (const uint8_t *)base + sb->log_offset, &scan,
			  d->why, sizeof(d->why));
	if (err)
		return err;
	d->records = scan.records;
	d->replay_records = scan.replay_records;
	d->committed = scan.replay_epoch ? scan.replay_epoch : sb->committed_epoch;
	d->undo_bytes = scan.undo_bytes + scan.replay_bytes;
	os_after_rollback(base, sb, &scan, sb->root_offset, sizeof(root), &root);
	if (os_root_problem(&root, sb, d->why, sizeof(d->why)))
		return -ERR_CORRUPT;
	return os_snap_after_rollback_problem(base, sb, &scan, d->why, sizeof(d->why)) ?
		-ERR_CORRUPT : 0;
}

/* os_probe -- the same checks as os_open, writing nothing: 0 or its error */
int os_probe(const void *base, uint64_t size)
{
	struct os_diagnosis d;

	return os_diagnose(base, size, &d);
}

/* attach -- fill the volatile handle from a heap's geometry `g` */
static void attach(struct objstore *os, void *base, uint64_t size,
		   const struct os_platform *pf, const struct os_superblock *g)
{
	(void)size;
	memset(os, 0, sizeof(*os));
	os->base = base;
	os->size = g->heap_size; /* the image may be larger (2.3): a resize takes the rest */
	os->pf = pf;
	os->sb = base;
	os->root = (struct os_root *)((uint8_t *)base + g->root_offset);
	os->log = (uint8_t *)base + g->log_offset;
	os->log_size = g->log_size;
	os->desc = (struct os_page_desc *)((uint8_t *)base + g->desc_offset);
	os->stack = (uint32_t *)((uint8_t *)base + g->stack_offset);
	os->data = (uint8_t *)base + g->data_offset;
	os->redo_commits = true;
	os->epoch = g->committed_epoch;
	os_snap_attach(os, g);
}

/* open_heap -- validate, attach, roll back (committed, or pending with `save`) */
static int open_heap(struct objstore *os, void *base, uint64_t size,
		const struct os_platform *pf, bool commit, void *save)
{
	int err;

	if (pf->crc32c)
		crc32c_use(pf->crc32c);
	err = os_probe(base, size);
	if (err)
		return err;
	os_settle_superblock(base, size, pf);
	attach(os, base, size, pf, base);
	return os_rollback(os, commit, save);
}

/* os_open -- validate the superblock, roll back an unfinished transaction */
int os_open(struct objstore *os, void *base, uint64_t size,
	    const struct os_platform *pf)
{
	return open_heap(os, base, size, pf, true, NULL);
}

/* os_open_tentative -- os_open with the rollback left pending */
int os_open_tentative(struct objstore *os, void *base, uint64_t size,
		      const struct os_platform *pf, void *save)
{
	return open_heap(os, base, size, pf, false, save);
}

/* format_data_structures -- the root block and log of an empty heap:
 * every data page is in the never-used tail, so no descriptor and no stack
 * slot is written (format.h) and creation takes the same time at any size */
static void format_data_structures(struct objstore *os, uint64_t room)
{
	memset(os->root, 0, sizeof(*os->root));
	os->root->next_object_id = 1;
	os->root->pages_unformatted = room;
	os->root->crc = os_root_crc(os->root);
	memset(os->log, 0, OS_CACHE_LINE); /* no record at the start of the log */
	os_flush(os, os->root, sizeof(*os->root));
	os_flush(os, os->log, OS_CACHE_LINE);
}

/* default_heap_id -- a heap id from time and address when none is given */
static void default_heap_id(uint8_t id[16], const struct os_platform *pf,
			    const void *base)
{
	uint64_t seed[2] = { pf->now_ns ? pf->now_ns() : 0, (uint64_t)(uintptr_t)base };

	for (int i = 0; i < 4; i++) {
		uint32_t c = crc32c((uint32_t)i, seed, sizeof(seed));

		memcpy(id + 4 * i, &c, 4);
		seed[0] += c;
	}
}

/* os_create -- format [base, base+size) as an empty heap and open it */
int os_create(struct objstore *os, void *base, uint64_t size,
	      const struct os_platform *pf, const struct os_create_opts *opts)
{
	struct os_superblock sb;
	uint64_t log_size = opts && opts->log_size ? opts->log_size
						 : default_log_size(size);
	uint64_t snap_size = !opts || !opts->snap_size ? os_snap_area_size(size) :
			     opts->snap_size == OS_NO_SNAPSHOTS ? 0 : opts->snap_size;
	uint64_t max_size = opts && opts->max_size ? opts->max_size :
			    size > UINT64_MAX / OS_GROW_DEFAULT ? UINT64_MAX : size * OS_GROW_DEFAULT;
	uint16_t minor = opts && opts->layout_minor ? opts->layout_minor : OS_LAYOUT_MINOR;
	int err;

	if (pf->crc32c)
		crc32c_use(pf->crc32c);
	memset(&sb, 0, sizeof(sb));
	if (log_size < LOG_FLOOR || log_size % OS_PAGE_SIZE)
		return -ERR_INVAL;
	if (snap_size % OS_PAGE_SIZE || minor < 1 || minor > OS_LAYOUT_MINOR)
		return -ERR_INVAL;
	memcpy(sb.magic, OS_MAGIC, 8);
	sb.layout_major = OS_LAYOUT_MAJOR;
	sb.layout_minor = minor;
	sb.header_size = sizeof(sb);
	err = os_resizable(&sb) ? layout(&sb, size, log_size, snap_size, max_size) :
	      old_layout(&sb, size, log_size, snap_size);
	if (err)
		return err;
	if (opts && opts->heap_id)
		memcpy(sb.heap_id, opts->heap_id, 16);
	else
		default_heap_id(sb.heap_id, pf, base);
	sb.create_time = pf->now_ns ? pf->now_ns() : 0;
	sb.crc = os_sb_crc(&sb);
	sb.committed_epoch = 1;

	/* Kill an old superblock first: its magic alone, one aligned 8-byte
	 * store. From here until the new magic, the image is "no heap". */
	__atomic_store_n((uint64_t *)base, 0, __ATOMIC_RELEASE);
	pf->flush(base, 8);
	pf->fence();
	/* And an old spare superblock (format.h): no resize of another heap
	 * may finish over this one. */
	__atomic_store_n((uint64_t *)((uint8_t *)base + OS_SB_SPARE_OFFSET), 0, __ATOMIC_RELEASE);
	pf->flush((uint8_t *)base + OS_SB_SPARE_OFFSET, 8);
	pf->fence();
	attach(os, base, size, pf, &sb);
	format_data_structures(os, os_page_room(&sb));
	os_snap_format(os, &sb);
	pf->fence();
	/* The superblock without its magic, then the magic alone (one aligned
	 * 8-byte store): a cut anywhere before leaves "no heap", never a
	 * heap with a bad checksum. */
	memcpy((uint8_t *)base + 8, (uint8_t *)&sb + 8, sizeof(sb) - 8);
	pf->flush(base, sizeof(sb));
	pf->fence();
	uint64_t magic;

	memcpy(&magic, sb.magic, 8);
	__atomic_store_n((uint64_t *)base, magic, __ATOMIC_RELEASE);
	pf->flush(base, 8);
	pf->fence();
	return 0;
}

/* os_epoch -- the committed epoch */
uint64_t os_epoch(const struct objstore *os)
{
	return os->epoch;
}

/* os_app_root -- app_roots[i], 0 if unset or out of range */
uint64_t os_app_root(const struct objstore *os, unsigned i)
{
	return i < OS_APP_ROOTS ? os->root->app_roots[i] : 0;
}

/* os_app_root_set -- set app_roots[i] to 0 or a live object's id */
int os_app_root_set(struct objstore *os, unsigned i, uint64_t value)
{
	struct os_obj_info info;
	int err;

	if (!os->in_tx)
		return -ERR_INVAL;
	if (i >= OS_APP_ROOTS)
		return -ERR_RANGE;
	if (value) {
		err = os_obj_stat(os, value, &info);
		if (err)
			return err;
		if (info.refcount == 0)
			return -ERR_NOENT; /* being deleted */
	}
	err = os_log_root(os);
	if (err)
		return err;
	os->root->app_roots[i] = value;
	return 0;
}

/* os_repair_counts -- set the root block's object and name counts to what
 * the checker counted (objtool check --repair; inside a transaction) */
int os_repair_counts(struct objstore *os, uint64_t objects, uint64_t names)
{
	int err;

	if (!os->in_tx)
		return -ERR_INVAL;
	err = os_log_root(os);
	if (err)
		return err;
	os->root->object_count = objects;
	os->root->catalogue_count = names;
	return 0;
}

/* os_log_free -- what callers may still log */
uint64_t os_log_free(const struct objstore *os)
{
	return os->log_size - os->log_tail - os_snap_log_reserve(os) - os->set_reserve;
}

/* os_stats -- counts from the root block and the running transaction */
void os_stats(const struct objstore *os, struct os_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->heap_size = os->sb->heap_size;
	out->page_count = os->sb->page_count;
	out->page_capacity = os_page_room(os->sb);
	out->max_size = os_max_heap_size(os->sb);
	out->pages_free = os_pages_free(os->sb, os->root);
	out->objects = os->root->object_count;
	out->names = os->root->catalogue_count;
	out->epoch = os->epoch;
	out->log_size = os->log_size;
	out->log_used = os->log_tail;
	out->log_free = os_log_free(os);
	out->log_high_water = os->log_high_water;
	out->rolled_back = os->rolled_back;
	out->rolled_back_bytes = os->rolled_back_bytes;
}
