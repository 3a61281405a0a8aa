/*
 * logcheck.c -- the log checker: every heap byte an epoch changes was logged.
 *
 * Ferrite's consistency rests on one rule (DESIGN.md section 4): before
 * the epoch first writes a heap range, the range is in the undo log
 * (heap_log, an UNDO record) or was allocated in this epoch (a FRESH
 * record); user pages obey it through the MMU (uvm.c logs a page at its
 * first write fault). A write that escapes the log is invisible until a
 * power cut, when rollback leaves it in place beside state that went back:
 * a corruption no test of the running system sees. This checker sees it.
 *
 * With `logcheck` on the command line, logcheck_init copies the whole heap
 * into DRAM right after it is opened or formatted, before any transaction.
 * The shadow then always equals the heap as of the last commit (or abort).
 * At the end of each epoch, before the commit, logcheck_verify compares
 * every heap page with the shadow -- all but the superblock page(s), which
 * change only by the commit store, and the log region, which is not heap
 * state -- and requires every changed byte to lie inside the range of one
 * of the running transaction's records (os_tx_each_range) or of a range
 * the kernel declared written durably outside the log (logcheck_exempt).
 * The ranges, thousands in a busy epoch, are sorted and merged once per
 * commit; a changed byte is looked up by binary search, and a page that
 * did not change costs one word-by-word compare. After the commit (or
 * abort: what rollback restored, and the FRESH bytes it leaves in free
 * space) logcheck_update copies the pages that changed into the shadow.
 *
 * A violation panics with one line naming the heap offset, the kernel
 * addresses of the unlogged run of bytes, the epoch and, when one holds
 * them, the object (id, type, part, offset inside); the old and new bytes
 * are printed just before.
 *
 * Cost: DRAM equal to the heap plus the range table, and one pass over the
 * heap per commit. It is a debugging mode for tests on small heaps
 * (docs/logcheck.md).
 *
 * Everything here is volatile: the shadow is rebuilt at every power-on.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/cmdline.h"
#include "core/heap.h"
#include "core/logcheck.h"
#include "core/panic.h"
#include "core/printk.h"
#include "core/time.h"
#include "mm/frame.h"
#include "mm/phys.h"
#include "objstore/object.h"

#define EXEMPT_MAX 16               /* ranges logcheck_exempt can hold */
#define SHOWN_BYTES 16              /* old and new bytes printed on a violation */
#define PAGE_WORDS (OS_PAGE_SIZE / sizeof(uint64_t))
#define MIB(bytes) ((unsigned long long)(((bytes) + (1u << 20) - 1) >> 20))

/* Heap offsets [start, end). */
struct range {
	uint64_t start, end;
};

/* Volatile, set by logcheck_init whether or not the checker is on. */
static const uint8_t *heap;         /* the heap's first byte */
static uint64_t heap_size;

/* Volatile, set by logcheck_init when the checker is on. */
static bool enabled;
static uint8_t *shadow;             /* the heap as of the last commit, in DRAM */
static uint64_t page_count;         /* whole heap pages */
static uint64_t first_page;         /* the first page after the superblock */
static uint64_t log_first, log_end; /* the log's pages: [log_first, log_end) */
static uint64_t *changed;           /* one bit per page: differed at the last verify */
static struct range *ranges;        /* the transaction's ranges and the exemptions */
static uint64_t range_cap;

/* Volatile, rebuilt by each logcheck_verify. */
static uint64_t range_count;        /* sorted, merged ranges in `ranges` */
static uint64_t changed_pages;

/* Volatile: logcheck_exempt's table, kept whether or not the checker is on. */
static struct range exempt[EXEMPT_MAX];
static unsigned exempt_count;

/* --- power-on: the shadow ----------------------------------------------- */

/* dram -- `bytes` of contiguous zeroed DRAM; panics saying what all of the
 * checker's `need` is when there is not that much */
static void *dram(uint64_t bytes, uint64_t need)
{
	uint64_t phys;

	if (frame_alloc_run((bytes + PAGE_SIZE - 1) / PAGE_SIZE, &phys))
		panic_without_dump("logcheck: the %llu MiB heap needs %llu MiB of DRAM for its shadow (in contiguous runs), %llu MiB are free: give the machine more RAM (run-qemu --ram) or use a smaller heap",
				   MIB(page_count * OS_PAGE_SIZE), MIB(need),
				   (unsigned long long)(frame_free_count() * PAGE_SIZE >> 20));
	return phys_to_virt(phys);
}

/* logcheck_init -- with `logcheck`, the DRAM shadow of the open heap */
void logcheck_init(void)
{
	const struct os_superblock *sb = os_ptr(&kheap, 0);
	uint64_t shadow_bytes, range_bytes, map_bytes;
	struct os_stats st;

	os_stats(&kheap, &st);
	heap = os_ptr(&kheap, 0);
	heap_size = st.heap_size;
	if (!cmdline_has("logcheck"))
		return;
	page_count = st.heap_size / OS_PAGE_SIZE;
	first_page = sb->root_offset / OS_PAGE_SIZE;
	log_first = sb->log_offset / OS_PAGE_SIZE;
	log_end = (sb->log_offset + sb->log_size) / OS_PAGE_SIZE;
	/* Every record takes at least one cache line (format.h). */
	range_cap = st.log_size / OS_CACHE_LINE + EXEMPT_MAX;
	shadow_bytes = page_count * OS_PAGE_SIZE;
	range_bytes = range_cap * sizeof(struct range);
	map_bytes = (page_count + 63) / 64 * sizeof(uint64_t);
	shadow = dram(shadow_bytes, shadow_bytes + range_bytes + map_bytes);
	ranges = dram(range_bytes, range_bytes + map_bytes);
	changed = dram(map_bytes, map_bytes);
	memcpy(shadow, heap, shadow_bytes);
	enabled = true;
	pr_info("logcheck: on: every commit compares the %llu MiB heap with its DRAM shadow\n",
		MIB(shadow_bytes));
}

/* --- the ranges the epoch may have written ------------------------------- */

/* add_range -- os_tx_each_range's callback: one record's range */
static void add_range(void *ctx, uint64_t off, uint64_t len)
{
	(void)ctx;
	/* Invariant: a transaction has at most log_size / OS_CACHE_LINE records. */
	KASSERT(range_count < range_cap);
	ranges[range_count++] = (struct range){ off, off + len };
}

/* sift_down -- restore the max-heap below `root` in ranges[0, n) (by start) */
static void sift_down(uint64_t root, uint64_t n)
{
	for (;;) {
		uint64_t child = 2 * root + 1;
		struct range swap;

		if (child >= n)
			return;
		if (child + 1 < n && ranges[child + 1].start > ranges[child].start)
			child++;
		if (ranges[root].start >= ranges[child].start)
			return;
		swap = ranges[root];
		ranges[root] = ranges[child];
		ranges[child] = swap;
		root = child;
	}
}

/* sort_ranges -- heapsort ranges[0, range_count) by start: no recursion, no extra memory */
static void sort_ranges(void)
{
	struct range swap;

	for (uint64_t i = range_count / 2; i-- > 0;)
		sift_down(i, range_count);
	for (uint64_t end = range_count; end-- > 1;) {
		swap = ranges[0];
		ranges[0] = ranges[end];
		ranges[end] = swap;
		sift_down(0, end);
	}
}

/* merge_ranges -- join overlapping and touching sorted ranges */
static void merge_ranges(void)
{
	uint64_t out = 0;

	for (uint64_t i = 0; i < range_count; i++) {
		if (out && ranges[i].start <= ranges[out - 1].end) {
			if (ranges[i].end > ranges[out - 1].end)
				ranges[out - 1].end = ranges[i].end;
		} else {
			ranges[out++] = ranges[i];
		}
	}
	range_count = out;
}

/* collect_ranges -- the running transaction's ranges and the exemptions, sorted and merged */
static void collect_ranges(void)
{
	int err;

	range_count = 0;
	err = os_tx_each_range(&kheap, add_range, NULL);
	/* Invariant: after heap_init a transaction always runs. */
	KASSERT(err == 0);
	for (unsigned i = 0; i < exempt_count; i++)
		add_range(NULL, exempt[i].start, exempt[i].end - exempt[i].start);
	sort_ranges();
	merge_ranges();
}

/* covered_until -- the end of the range holding heap offset `off`, or off if none does */
static uint64_t covered_until(uint64_t off)
{
	uint64_t lo = 0, hi = range_count;

	while (lo < hi) {  /* the first range starting after off */
		uint64_t mid = lo + (hi - lo) / 2;

		if (ranges[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ranges[lo - 1].end > off ? ranges[lo - 1].end : off;
}

/* --- a violation --------------------------------------------------------- */

static const char *const part_names[] = {
	[OS_PART_HEADER] = "header",
	[OS_PART_DATA] = "bytes",
	[OS_PART_INDEX] = "index page",
};

/* describe_page -- what data page `page` is used for, by its descriptor */
static const char *describe_page(const struct os_superblock *sb, uint64_t page)
{
	const struct os_page_desc *d = os_ptr(&kheap, sb->desc_offset);
	const struct os_root *r = os_ptr(&kheap, sb->root_offset);

	if (page >= os_formatted_pages(sb, r))
		return "a page never handed out";
	switch (d[page].kind) {
	case OS_PAGE_FREE:
		return "a free page";
	case OS_PAGE_SLAB:
		return "a slab block of no object (an allocator bug, or a freed block)";
	default:
		return "a whole page of no object: the id index or the catalogue";
	}
}

/* describe -- who holds heap offset `off`: an object, or a heap structure */
static void describe(uint64_t off, char *buf, size_t size)
{
	const struct os_superblock *sb = os_ptr(&kheap, 0);
	uint64_t data_end = sb->data_offset + sb->page_count * OS_PAGE_SIZE;
	struct os_obj_where w;

	if (os_obj_owner(&kheap, off, &w) == 0)
		snprintf(buf, size, "object #%llu (%s), %s +%#llx",
			 (unsigned long long)w.id, os_obj_type_name(w.type),
			 part_names[w.part], (unsigned long long)w.offset);
	else if (off >= sb->data_offset && off < data_end)
		snprintf(buf, size, "data page %llu, %s",
			 (unsigned long long)((off - sb->data_offset) / OS_PAGE_SIZE),
			 describe_page(sb, (off - sb->data_offset) / OS_PAGE_SIZE));
	else if (off >= sb->root_offset && off < sb->root_offset + OS_PAGE_SIZE)
		snprintf(buf, size, "the root block +%#llx",
			 (unsigned long long)(off - sb->root_offset));
	else if (off >= sb->desc_offset && off < sb->stack_offset)
		snprintf(buf, size, "the descriptor of data page %llu",
			 (unsigned long long)((off - sb->desc_offset) /
					      sizeof(struct os_page_desc)));
	else if (off >= sb->stack_offset && off < sb->data_offset)
		snprintf(buf, size, "the free-page stack");
	else
		snprintf(buf, size, "no heap structure");
}

/* hex -- up to SHOWN_BYTES bytes at p as "0a 1b ..." into buf */
static void hex(const uint8_t *p, uint64_t n, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = 0;
	for (uint64_t i = 0; i < n && i < SHOWN_BYTES && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%02x", i ? " " : "", p[i]);
}

/* unlogged -- whether heap offset `off` changed and lies in no range */
static bool unlogged(uint64_t off)
{
	return heap[off] != shadow[off] && covered_until(off) == off;
}

/* report -- panic: the changed bytes from `off` (before `limit`) were not logged */
static __attribute__((noreturn)) void report(uint64_t off, uint64_t limit)
{
	char where[96], old[3 * SHOWN_BYTES + 1], now[3 * SHOWN_BYTES + 1];
	uint64_t n = 1;

	while (off + n < limit && unlogged(off + n))
		n++;
	describe(off, where, sizeof(where));
	hex(shadow + off, n, old, sizeof(old));
	hex(heap + off, n, now, sizeof(now));
	pr_err("logcheck: the running transaction's records and the exemptions cover %llu ranges; none holds this change\n",
	       (unsigned long long)range_count);
	pr_err("logcheck: old bytes at heap offset %#llx: %s%s\n",
	       (unsigned long long)off, old, n > SHOWN_BYTES ? " ..." : "");
	pr_err("logcheck: new bytes at heap offset %#llx: %s%s\n",
	       (unsigned long long)off, now, n > SHOWN_BYTES ? " ..." : "");
	panic_without_dump("logcheck: heap offset %#llx (%llu byte%s from %p to %p) changed in epoch %llu but was not logged: %s",
			   (unsigned long long)off, (unsigned long long)n, n == 1 ? "" : "s",
			   (const void *)(heap + off), (const void *)(heap + off + n - 1),
			   (unsigned long long)(os_epoch(&kheap) + 1), where);
}

/* --- the compare --------------------------------------------------------- */

/* page_same -- whether heap page `page` equals its shadow */
static bool page_same(uint64_t page)
{
	const uint64_t *a = (const void *)(heap + page * OS_PAGE_SIZE);
	const uint64_t *b = (const void *)(shadow + page * OS_PAGE_SIZE);
	uint64_t diff = 0;

	for (unsigned i = 0; i < PAGE_WORDS; i += 4)
		diff |= (a[i] ^ b[i]) | (a[i + 1] ^ b[i + 1]) |
			(a[i + 2] ^ b[i + 2]) | (a[i + 3] ^ b[i + 3]);
	return diff == 0;
}

/* check_page -- panic unless every changed byte of page `page` is covered */
static void check_page(uint64_t page)
{
	uint64_t start = page * OS_PAGE_SIZE, end = start + OS_PAGE_SIZE;
	uint64_t cover = covered_until(start);  /* [.., cover) is covered */
	const uint64_t *a = (const void *)(heap + start);
	const uint64_t *b = (const void *)(shadow + start);

	for (unsigned i = 0; i < PAGE_WORDS && cover < end; i++) {
		uint64_t word = start + i * sizeof(uint64_t);

		if (a[i] == b[i] || word + sizeof(uint64_t) <= cover)
			continue;
		for (uint64_t off = word; off < word + sizeof(uint64_t); off++) {
			if (off < cover || heap[off] == shadow[off])
				continue;
			cover = covered_until(off);
			if (cover == off)
				report(off, end);
		}
	}
}

/* verify_pages -- compare pages [from, to) with the shadow, checking those that changed */
static void verify_pages(uint64_t from, uint64_t to)
{
	for (uint64_t page = from; page < to; page++) {
		if (page_same(page))
			continue;
		changed[page / 64] |= 1ull << (page % 64);
		changed_pages++;
		check_page(page);
	}
}

/* logcheck_verify -- before a commit or abort: every changed byte was logged */
void logcheck_verify(void)
{
	uint64_t start;

	if (!enabled)
		return;
	start = time_ns();
	collect_ranges();
	memset(changed, 0, (page_count + 63) / 64 * sizeof(uint64_t));
	changed_pages = 0;
	verify_pages(first_page, log_first);
	verify_pages(log_end, page_count);
	pr_debug("logcheck: epoch %llu: %llu of %llu pages changed, %llu ranges, checked in %llu us\n",
		 (unsigned long long)(os_epoch(&kheap) + 1),
		 (unsigned long long)changed_pages,
		 (unsigned long long)(page_count - first_page - (log_end - log_first)),
		 (unsigned long long)range_count,
		 (unsigned long long)((time_ns() - start) / 1000));
}

/* logcheck_update -- after the commit or abort: the shadow takes the changed pages */
void logcheck_update(void)
{
	if (!enabled)
		return;
	for (uint64_t w = 0; w < (page_count + 63) / 64; w++) {
		for (uint64_t bits = changed[w]; bits; bits &= bits - 1) {
			uint64_t page = w * 64 + (uint64_t)__builtin_ctzll(bits);

			memcpy(shadow + page * OS_PAGE_SIZE, heap + page * OS_PAGE_SIZE,
			       OS_PAGE_SIZE);
		}
	}
}

/* logcheck_exempt -- a heap range written durably outside the log */
void logcheck_exempt(const void *p, size_t len)
{
	const uint8_t *at = p;

	if (!heap || at < heap || len == 0 || (uint64_t)(at - heap) > heap_size ||
	    len > heap_size - (uint64_t)(at - heap))
		panic("logcheck: logcheck_exempt(%p, %llu) from %p: not a range of the heap",
		      p, (unsigned long long)len, __builtin_return_address(0));
	if (exempt_count == EXEMPT_MAX)
		panic("logcheck: logcheck_exempt from %p: all %u exemptions are taken",
		      __builtin_return_address(0), EXEMPT_MAX);
	exempt[exempt_count++] = (struct range){ (uint64_t)(at - heap),
						 (uint64_t)(at - heap) + len };
}
