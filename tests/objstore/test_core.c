/*
 * test_core.c -- unit tests of the objstore core: creating and opening
 * heaps, transactions and rollback, the page and small-block allocator.
 */
#include "os_test.h"

#include "objstore/check.h"
#include "objstore/object.h"

#include "../../objstore/crc32c.h"
#include "../../objstore/internal.h"

#define HEAP (8u << 20)

CHECK_TEST(crc32c_known_values)
{
	CHECK_EQ(crc32c(0, "123456789", 9), 0xe3069283u);
	CHECK_EQ(crc32c(0, "", 0), 0);
	/* Continuing a crc equals one pass over the whole. */
	CHECK_EQ(crc32c(crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
}

CHECK_TEST(host_crc32c_equals_the_portable_one)
{
	static unsigned char buf[4096 + 64];
	uint64_t seed = 42;

	if (!host_platform()->crc32c)
		return; /* no SSE 4.2 here: objstore uses the portable tables */
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)test_rand(&seed);
	for (size_t len = 0; len < 200; len++)
		for (size_t start = 0; start < 9; start++)
			CHECK_EQ(host_crc32c(7, buf + start, len),
				 crc32c_portable(7, buf + start, len));
	CHECK_EQ(host_crc32c(0, buf, 4096), crc32c_portable(0, buf, 4096));
	CHECK_EQ(host_crc32c(0, "123456789", 9), 0xe3069283u);
}

CHECK_TEST(log_record_checksums_keep_their_values)
{
	/* The checksum is part of the format: records an older build wrote
	 * must still verify. Values from layout 2.0's definition. */
	static const struct { uint32_t len, crc; } want[] = {
		{ 4096, 0x42839198u }, { 13, 0x59d6645du }, { 5, 0x30347926u }, { 8, 0x248fbd18u },
	};
	static uint8_t rec[sizeof(struct os_log_entry) + 4096];
	struct os_log_entry *e = (void *)rec;

	for (unsigned i = 0; i < 4096; i++)
		rec[sizeof(*e) + i] = (uint8_t)(i * 7 ^ i >> 3);
	for (unsigned k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		memset(e, 0, sizeof(*e));
		e->offset = 0x12340;
		e->length = want[k].len;
		e->kind = OS_LOG_UNDO;
		e->epoch = 77;
		e->prev_size = 64;
		CHECK_EQ(os_log_record_crc(e), want[k].crc);
	}
}

CHECK_TEST(create_then_open)
{
	struct objstore os, again;
	void *base = test_create(&os, HEAP);
	struct os_stats st;

	CHECK_EQ(os_epoch(&os), 1);
	CHECK_EQ(os_probe(base, HEAP), 0);
	CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
	CHECK_EQ(again.rolled_back, 0);
	os_stats(&again, &st);
	CHECK_EQ(st.pages_free, st.page_count);
	CHECK(st.page_count > 1500);
	free(base);
}

CHECK_TEST(open_refuses_what_is_not_a_heap)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_superblock *sb = base;

	CHECK_EQ(os_open(&os, base, HEAP - 4096, host_platform()), -ERR_CORRUPT);
	sb->layout_major = OS_LAYOUT_MAJOR + 1;
	CHECK_EQ(os_probe(base, HEAP), -ERR_VERSION);
	sb->layout_major = OS_LAYOUT_OLDEST_MAJOR - 1;
	CHECK_EQ(os_probe(base, HEAP), -ERR_VERSION);
	sb->layout_major = OS_LAYOUT_MAJOR;
	sb->heap_id[3] ^= 1;
	CHECK_EQ(os_probe(base, HEAP), -ERR_CORRUPT);
	sb->heap_id[3] ^= 1;
	CHECK_EQ(os_probe(base, HEAP), 0);
	sb->magic[0] = 'X';
	CHECK_EQ(os_probe(base, HEAP), -ERR_INVAL);
	free(base);
}

CHECK_TEST(layout_1_heaps_still_open)
{
	struct os_create_opts opts = { .snap_size = OS_NO_SNAPSHOTS, .layout_minor = 2 };
	struct objstore os;
	void *base = test_heap_new(HEAP);
	struct os_superblock *sb = base;

	CHECK_EQ(os_create(&os, base, HEAP, host_platform(), NULL), 0);
	CHECK_EQ(sb->layout_major, 2);
	CHECK_EQ(sb->layout_minor, OS_LAYOUT_MINOR);
	CHECK(os_snap_available(&os));
	/* A 1.x heap is a 2.0 heap without a snapshot area (1.1 added the
	 * app roots to 1.0, which a 1.0 heap holds as zeros). */
	CHECK_EQ(os_create(&os, base, HEAP, host_platform(), &opts), 0);
	CHECK(!os_snap_available(&os));
	for (uint16_t minor = 0; minor <= 1; minor++) {
		sb->layout_major = 1;
		sb->layout_minor = minor;
		sb->crc = crc32c(0, sb, __builtin_offsetof(struct os_superblock, crc));
		CHECK_EQ(os_probe(base, HEAP), 0);
		CHECK_EQ(os_open(&os, base, HEAP, host_platform()), 0);
		CHECK_EQ(os_app_root(&os, OS_APP_ROOT_KERNEL), 0);
		CHECK(!os_snap_available(&os));
		CHECK_EQ(os_tx_begin(&os), 0);
		CHECK_EQ(os_snap_take(&os, "s", 0, 0), -ERR_NOTSUP);
		CHECK_EQ(os_tx_commit(&os), 0);
	}
	/* A snapshot area in a layout 1 superblock is damage. */
	sb->snap_offset = HEAP - (1u << 20);
	sb->snap_size = 1u << 20;
	sb->crc = crc32c(0, sb, __builtin_offsetof(struct os_superblock, crc));
	CHECK_EQ(os_probe(base, HEAP), -ERR_CORRUPT);
	free(base);
}

CHECK_TEST(create_refuses_tiny_heaps)
{
	struct objstore os;
	void *base = test_heap_new(1 << 20);

	CHECK_EQ(os_create(&os, base, 1 << 20, host_platform(), NULL), -ERR_NOSPC);
	free(base);
}

CHECK_TEST(commit_makes_changes_stay_and_abort_undoes_them)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t off;
	char *p;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_alloc(&os, 100, &off), 0);
	p = os_ptr(&os, off);
	memcpy(p, "hello", 6);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_epoch(&os), 2);

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_tx_log(&os, p, 6), 0);
	memcpy(p, "world", 6);
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK_STR_EQ(p, "hello");
	CHECK_EQ(os_epoch(&os), 3); /* the rollback is committed as an epoch */
	free(base);
}

CHECK_TEST(durable_store_is_never_rolled_back)
{
	struct objstore os, again;
	void *base = test_create(&os, HEAP);
	uint64_t off, *word;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_alloc(&os, 64, &off), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	word = os_ptr(&os, off);

	/* Stored inside a transaction that aborts, and one cut short. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_store_durable(&os, word, 7), 0);
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK_EQ(*word, 7);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_store_durable(&os, word, 8), 0);
	CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
	CHECK_EQ(*word, 8);

	/* Only aligned words of the heap past its superblock page. */
	CHECK_EQ(os_store_durable(&again, (uint64_t *)((char *)word + 4), 1), -ERR_INVAL);
	CHECK_EQ(os_store_durable(&again, (uint64_t *)base, 1), -ERR_INVAL);
	CHECK_EQ(os_store_durable(&again, (uint64_t *)((char *)base + HEAP), 1), -ERR_INVAL);
	CHECK_EQ(os_store_durable(&again, &off, 1), -ERR_INVAL);
	CHECK_EQ(*word, 8);
	free(base);
}

CHECK_TEST(open_rolls_back_an_unfinished_transaction)
{
	struct objstore os, again;
	void *base = test_create(&os, HEAP);
	struct os_stats before, after;
	uint64_t off[10];

	os_stats(&os, &before);
	CHECK_EQ(os_tx_begin(&os), 0);
	for (int i = 0; i < 10; i++)
		CHECK_EQ(os_alloc(&os, i < 5 ? 64 : 4096, &off[i]), 0);
	/* Power cut: no commit. */
	CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
	CHECK(again.rolled_back > 0);
	os_stats(&again, &after);
	CHECK_EQ(after.pages_free, before.pages_free);
	CHECK_EQ(os_epoch(&again), 2);
	/* A second open finds nothing left to undo. */
	CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
	CHECK_EQ(again.rolled_back, 0);
	free(base);
}

CHECK_TEST(small_blocks_fill_slabs_and_free_returns_pages)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_stats before, mid, after;
	static uint64_t off[300];

	os_stats(&os, &before);
	CHECK_EQ(os_tx_begin(&os), 0);
	for (int i = 0; i < 300; i++) {
		CHECK_EQ(os_alloc(&os, 64, &off[i]), 0);
		CHECK_EQ(off[i] % 64, 0);
		for (int j = 0; j < i; j++)
			if (off[j] == off[i])
				CHECK(!"a block was handed out twice");
	}
	CHECK_EQ(os_tx_commit(&os), 0);
	os_stats(&os, &mid);
	CHECK_EQ(before.pages_free - mid.pages_free, 5); /* 300 / 64 slots */
	CHECK_EQ(os_tx_begin(&os), 0);
	for (int i = 299; i >= 0; i -= 2)
		CHECK_EQ(os_free(&os, off[i]), 0);
	for (int i = 0; i < 300; i += 2)
		CHECK_EQ(os_free(&os, off[i]), 0);
	CHECK_EQ(os_free(&os, off[7]), -ERR_INVAL); /* double free */
	CHECK_EQ(os_free(&os, off[7] + 8), -ERR_INVAL); /* not a block */
	CHECK_EQ(os_tx_commit(&os), 0);
	os_stats(&os, &after);
	CHECK_EQ(after.pages_free, before.pages_free);
	free(base);
}

CHECK_TEST(every_size_class_and_whole_pages)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t sizes[] = { 1, 64, 65, 128, 200, 512, 1000, 2048, 2049, 4096 };
	uint64_t off[10];

	CHECK_EQ(os_tx_begin(&os), 0);
	for (int i = 0; i < 10; i++) {
		CHECK_EQ(os_alloc(&os, sizes[i], &off[i]), 0);
		memset(os_ptr(&os, off[i]), i, sizes[i]);
	}
	CHECK_EQ(os_alloc(&os, 0, &off[0]), -ERR_INVAL);
	CHECK_EQ(os_alloc(&os, 4097, &off[0]), -ERR_INVAL);
	CHECK_EQ(off[9] % 4096, 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_tx_begin(&os), 0);
	for (int i = 1; i < 10; i++)
		CHECK_EQ(os_free(&os, off[i]), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	free(base);
}

CHECK_TEST(heap_full_is_an_error_not_corruption)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_stats st;
	uint64_t off, n = 0;
	int err;

	CHECK_EQ(os_tx_begin(&os), 0);
	while ((err = os_alloc(&os, 4096, &off)) == 0)
		n++;
	os_stats(&os, &st);
	CHECK_EQ(err, -ERR_NOMEM);
	CHECK_EQ(st.pages_free, 0);
	CHECK_EQ(n, st.page_count);
	CHECK_EQ(os_tx_commit(&os), 0);
	free(base);
}

/* count_problem -- os_check's report: count what is not a leak (these
 * tests allocate without making objects), print it */
static void count_problem(void *ctx, const char *message)
{
	if (strstr(message, "(leak)"))
		return;
	++*(uint64_t *)ctx;
	printf("    os_check: %s\n", message);
}

/* problems -- what os_check finds in the heap of os, leaks aside */
static uint64_t problems(const struct objstore *os)
{
	uint64_t n = 0;
	struct os_check_report report = { .problem = count_problem, .ctx = &n };
	void *scratch = malloc(os_check_scratch_size(os->size));

	os_check(os->base, os->size, scratch, &report);
	free(scratch);
	return n;
}

/* alloc_every_page -- whole pages until the heap is full, in one
 * transaction each; their page numbers in order. The count. */
static uint64_t alloc_every_page(struct objstore *os, uint64_t *page)
{
	uint64_t n = 0, off;

	for (;;) {
		CHECK_EQ(os_tx_begin(os), 0);
		if (os_alloc(os, OS_PAGE_SIZE, &off)) {
			CHECK_EQ(os_tx_commit(os), 0);
			return n;
		}
		page[n++] = (off - os->sb->data_offset) / OS_PAGE_SIZE;
		CHECK_EQ(os_tx_commit(os), 0);
	}
}

CHECK_TEST(creation_writes_no_descriptor_and_pages_come_in_order)
{
	struct objstore os;
	void *base = test_heap_new(HEAP);
	struct os_superblock *sb = base;
	uint64_t *page, n, off;
	struct os_stats st;

	/* What an old heap or any garbage left where the descriptors and the
	 * free-page stack go: creation must neither need nor read it. */
	memset(base, 0xa5, HEAP);
	CHECK_EQ(os_create(&os, base, HEAP, host_platform(), NULL), 0);
	CHECK_EQ(os.root->free_top, 0);
	CHECK_EQ(os.root->pages_unformatted, os_page_room(sb));
	CHECK_EQ(((uint8_t *)base)[sb->desc_offset], 0xa5);
	CHECK_EQ(((uint8_t *)base)[sb->stack_offset], 0xa5);
	CHECK_EQ(problems(&os), 0);
	os_stats(&os, &st);
	CHECK_EQ(st.pages_free, st.page_count);
	/* A never-used page can not be freed: no descriptor vouches for it. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_free(&os, os_page_off(&os, sb->page_count - 1)), -ERR_INVAL);
	CHECK_EQ(os_tx_commit(&os), 0);
	/* Pages come from the tail in order, 0 first, as from a full stack. */
	page = calloc(sb->page_count, sizeof(*page));
	n = alloc_every_page(&os, page);
	CHECK_EQ(n, sb->page_count);
	for (uint64_t i = 0; i < n; i++)
		CHECK_EQ(page[i], i);
	CHECK_EQ(os.root->pages_unformatted, os_page_room(sb) - sb->page_count);
	CHECK_EQ(problems(&os), 0);
	/* Freed pages go on the stack and come back last freed, first out. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_free(&os, os_page_off(&os, 7)), 0);
	CHECK_EQ(os_free(&os, os_page_off(&os, 3)), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_alloc(&os, OS_PAGE_SIZE, &off), 0);
	CHECK_EQ(off, os_page_off(&os, 3));
	CHECK_EQ(os_alloc(&os, OS_PAGE_SIZE, &off), 0);
	CHECK_EQ(off, os_page_off(&os, 7));
	CHECK_EQ(os_tx_commit(&os), 0);
	free(page);
	free(base);
}

CHECK_TEST(taking_a_never_used_page_rolls_back)
{
	struct objstore os, again;
	void *base = test_heap_new(HEAP);
	uint64_t off, unformatted;

	memset(base, 0x5a, HEAP);
	CHECK_EQ(os_create(&os, base, HEAP, host_platform(), NULL), 0);
	unformatted = os.root->pages_unformatted;
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_alloc(&os, 100, &off), 0);   /* a slab from the tail */
	CHECK_EQ(os_alloc(&os, 5000 - 904, &off), 0); /* a whole page */
	CHECK_EQ(os.root->pages_unformatted, unformatted - 2);
	/* Cut here: the next open rolls the tail back. */
	CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
	CHECK_EQ(again.root->pages_unformatted, unformatted);
	CHECK_EQ(again.root->free_top, 0);
	CHECK_EQ(problems(&again), 0);
	CHECK_EQ(os_tx_begin(&again), 0);
	CHECK_EQ(os_alloc(&again, OS_PAGE_SIZE, &off), 0);
	CHECK_EQ(off, os_page_off(&again, 0));
	CHECK_EQ(os_tx_commit(&again), 0);
	CHECK_EQ(problems(&again), 0);
	free(base);
}

CHECK_TEST(a_fully_formatted_heap_of_layout_2_0_still_runs)
{
	struct objstore os;
	void *base = test_create_minor(&os, HEAP, 1);
	struct os_superblock *sb = base;
	uint64_t pages = sb->page_count, *page;
	struct os_page_desc blank;

	/* Layout 2.0 wrote every descriptor and the whole stack at creation. */
	memset(&blank, 0, sizeof(blank));
	blank.crc = os_desc_crc(&blank);
	for (uint64_t p = 0; p < pages; p++) {
		os.desc[p] = blank;
		os.stack[p] = (uint32_t)(pages - 1 - p);
	}
	os.root->free_top = pages;
	os.root->pages_unformatted = 0;
	os.root->crc = os_root_crc(os.root);
	sb->layout_minor = 0;
	sb->crc = os_sb_crc(sb);
	CHECK_EQ(os_open(&os, base, HEAP, host_platform()), 0);
	CHECK_EQ(problems(&os), 0);
	page = calloc(pages, sizeof(*page));
	CHECK_EQ(alloc_every_page(&os, page), pages);
	for (uint64_t i = 0; i < pages; i++)
		CHECK_EQ(page[i], i);
	CHECK_EQ(problems(&os), 0);
	free(page);
	free(base);
}

CHECK_TEST(a_tail_over_pages_in_use_is_refused)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_diagnosis d;
	uint64_t off, id;

	/* Page 0 on the free stack, the rest never used: a tail of every
	 * page would count page 0 twice. Found at open, in O(1). */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_alloc(&os, OS_PAGE_SIZE, &off), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_free(&os, off), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_settle(&os), 0); /* no replay puts back what the test changes */
	os.root->pages_unformatted = os_page_room(os.sb);
	os.root->crc = os_root_crc(os.root);
	CHECK_EQ(os_diagnose(base, HEAP, &d), -ERR_CORRUPT);
	CHECK(strstr(d.why, "never used") != NULL);
	CHECK(problems(&os) > 0);
	/* A tail over a page an object holds: the checker finds it. */
	os.root->pages_unformatted = os_page_room(os.sb) - 1;
	os.root->crc = os_root_crc(os.root);
	CHECK_EQ(os_open(&os, base, HEAP, host_platform()), 0);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 3 * OS_PAGE_SIZE, &id), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);
	os.root->pages_unformatted = os_page_room(os.sb) - os.root->free_top;
	os.root->crc = os_root_crc(os.root);
	CHECK_EQ(os_probe(base, HEAP), 0);
	CHECK(problems(&os) > 0);
	free(base);
}

CHECK_TEST(log_full_fails_before_changing_anything)
{
	struct objstore os;
	struct os_create_opts opts = { .log_size = 64 << 10 };
	void *base = test_heap_new(HEAP);
	uint64_t off;
	int err, n = 0;
	struct os_stats st0, st1;

	CHECK_EQ(os_create(&os, base, HEAP, host_platform(), &opts), 0);
	os_stats(&os, &st0);
	CHECK_EQ(os_tx_begin(&os), 0);
	while ((err = os_alloc(&os, 4096, &off)) == 0)
		n++;
	CHECK_EQ(err, -ERR_NOSPC);
	CHECK(n > 50);
	CHECK_EQ(os_tx_commit(&os), 0); /* what fit is consistent and commits */
	os_stats(&os, &st1);
	CHECK_EQ(st0.pages_free - st1.pages_free, (uint64_t)n);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_tx_log(&os, base, 8), -ERR_FAULT); /* the superblock */
	CHECK_EQ(os_tx_log(&os, (char *)base + 3 * 4096, 8), -ERR_FAULT); /* the log */
	CHECK_EQ(os_tx_abort(&os), 0);
	free(base);
}

/* Sets (os_tx_set) wait for the commit: read back, dropped by an abort,
 * written in place the undo way under a later logged write, overwritten
 * by a later set of bytes logged before; a full log refuses a set. */
CHECK_TEST(sets_are_written_at_the_commit_and_a_full_log_refuses_them)
{
	struct objstore os;
	struct os_create_opts opts = { .log_size = 64 << 10 };
	void *base = test_heap_new(HEAP);
	uint8_t seen[8], big[2048];
	uint64_t off;
	char *p;
	int err, n = 0;

	CHECK_EQ(os_create(&os, base, HEAP, host_platform(), &opts), 0);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_alloc(&os, 4096, &off), 0);
	p = os_ptr(&os, off);
	memcpy(p, "........", 8);
	CHECK_EQ(os_tx_commit(&os), 0);

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_tx_set(&os, p, "abcdefgh", 8), 0);
	CHECK(memcmp(p, "........", 8) == 0);         /* not in place before the commit */
	os_tx_read(&os, seen, p + 2, 4);
	CHECK(memcmp(seen, "cdef", 4) == 0);           /* read-your-writes */
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK(memcmp(p, "........", 8) == 0);         /* dropped */

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_tx_set(&os, p, "12345678", 8), 0);
	CHECK_EQ(os_tx_log(&os, p + 4, 4), 0);         /* the set goes in place first */
	CHECK(memcmp(p, "12345678", 8) == 0);
	memcpy(p + 4, "XXXX", 4);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK(memcmp(p, "1234XXXX", 8) == 0);

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_tx_log(&os, p, 8), 0);
	memcpy(p, "aaaaaaaa", 8);
	CHECK_EQ(os_tx_set(&os, p + 2, "bb", 2), 0);   /* newer than the logged write */
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK(memcmp(p, "aabbaaaa", 8) == 0);

	/* Sets of 2 KiB at shifting offsets until the 64 KiB log is full. */
	CHECK_EQ(os_tx_begin(&os), 0);
	while ((err = os_tx_set(&os, p + n % 2048, memset(big, n, sizeof(big)),
				sizeof(big))) == 0 && n < 1000)
		n++;
	CHECK_EQ(err, -ERR_NOSPC);
	CHECK(n > 10);
	CHECK_EQ(os_tx_commit(&os), 0);                /* what fit commits */
	CHECK_EQ((uint8_t)p[(n - 1) % 2048], (uint8_t)(n - 1));
	CHECK_EQ(problems(&os), 0);
	free(base);
}

/* cut_with_log -- a heap left by a power cut: a committed "hello" block,
 * then an unfinished transaction of three records over it (two UNDO, one
 * FRESH); the block's offset in *off */
static void *cut_with_log(struct objstore *os, uint64_t *off)
{
	void *base = test_create(os, HEAP);
	uint64_t fresh;
	char *p;

	CHECK_EQ(os_tx_begin(os), 0);
	CHECK_EQ(os_alloc(os, 100, off), 0);
	p = os_ptr(os, *off);
	memcpy(p, "hello", 6);
	CHECK_EQ(os_tx_commit(os), 0);
	CHECK_EQ(os_tx_begin(os), 0);
	CHECK_EQ(os_tx_log(os, p, 6), 0);
	memcpy(p, "world", 6);
	CHECK_EQ(os_alloc(os, 4096, &fresh), 0);
	return base;
}

/* record -- the log record at position `pos` */
static struct os_log_entry *record(const struct objstore *os, uint64_t pos)
{
	return (struct os_log_entry *)(os->log + pos);
}

/* refused_unchanged -- os_diagnose names `what` in record `n`, and
 * os_open refuses without writing a byte */
static void refused_unchanged(void *base, const char *n, const char *what)
{
	struct os_diagnosis d;
	struct objstore os;
	void *copy = test_heap_new(HEAP);

	memcpy(copy, base, HEAP);
	CHECK_EQ(os_diagnose(base, HEAP, &d), -ERR_CORRUPT);
	CHECK(strstr(d.why, n) != NULL);
	CHECK(strstr(d.why, what) != NULL);
	CHECK_EQ(os_open(&os, base, HEAP, host_platform()), -ERR_CORRUPT);
	CHECK_EQ(os_open_tentative(&os, base, HEAP, host_platform(), NULL), -ERR_CORRUPT);
	CHECK(memcmp(copy, base, HEAP) == 0);
	free(copy);
}

CHECK_TEST(an_unsound_log_record_is_refused_before_anything_is_written)
{
	struct objstore os;
	uint64_t off;
	void *base = cut_with_log(&os, &off);
	struct os_log_entry *first = record(&os, 0), *last;
	struct os_diagnosis d;
	uint64_t pos = 0, saved;

	CHECK_EQ(os_diagnose(base, HEAP, &d), 0);
	CHECK(d.records >= 3);
	while (pos + os_log_record_size(record(&os, pos)->kind,
					record(&os, pos)->length) < os.log_tail)
		pos += os_log_record_size(record(&os, pos)->kind, record(&os, pos)->length);
	last = record(&os, pos);

	/* A range past the end of the heap, its checksum made good. */
	saved = first->offset;
	first->offset = HEAP - 2;
	first->crc = os_log_record_crc(first);
	refused_unchanged(base, "record 0 at log offset 0 ", "past the end of the heap");
	/* Over the superblock, over the log itself. */
	first->offset = 8;
	first->crc = os_log_record_crc(first);
	refused_unchanged(base, "record 0", "starts in the superblock");
	first->offset = os.sb->log_offset + 64;
	first->crc = os_log_record_crc(first);
	refused_unchanged(base, "record 0", "overlaps the undo log");
	first->offset = saved;
	first->crc = os_log_record_crc(first);
	CHECK_EQ(os_probe(base, HEAP), 0);

	/* A back link that leads elsewhere; an unknown kind. */
	last->prev_size += 64;
	last->crc = os_log_record_crc(last);
	refused_unchanged(base, "record", "back link");
	last->prev_size -= 64;
	last->kind = 7;
	last->crc = os_log_record_crc(last);
	refused_unchanged(base, "record", "unknown record kind");
	free(base);
}

/* update -- one transaction setting the 8 bytes at p to v */
static void update(struct objstore *os, uint64_t *p, uint64_t v)
{
	CHECK_EQ(os_tx_begin(os), 0);
	CHECK_EQ(os_tx_log(os, p, sizeof(*p)), 0);
	*p = v;
	CHECK_EQ(os_tx_commit(os), 0);
}

/* new_block -- a 64-byte block, committed; its offset in *off */
static uint64_t *new_block(struct objstore *os, uint64_t *off)
{
	CHECK_EQ(os_tx_begin(os), 0);
	CHECK_EQ(os_alloc(os, 64, off), 0);
	CHECK_EQ(os_tx_commit(os), 0);
	return os_ptr(os, *off);
}

/* lost_epoch_copy -- a copy of the heap of os as a cut may leave it after
 * commits by redo: the superblock's epoch store back at `epoch`, and the
 * 8 bytes at heap offset `off` back at `old` (a line never written back) */
static uint8_t *lost_epoch_copy(const struct objstore *os, uint64_t epoch,
				uint64_t off, uint64_t old)
{
	uint8_t *copy = test_heap_new(HEAP);

	memcpy(copy, os->base, HEAP);
	((struct os_superblock *)copy)->committed_epoch = epoch;
	memcpy(copy + off, &old, sizeof(old));
	return copy;
}

CHECK_TEST(small_commits_by_redo_are_replayed_when_their_epoch_store_is_lost)
{
	struct objstore os, again;
	void *base = test_create(&os, HEAP);
	struct os_diagnosis d;
	uint64_t off, *p, epoch0;
	uint8_t *copy;

	p = new_block(&os, &off);
	update(&os, p, 1);
	epoch0 = os_epoch(&os);
	for (uint64_t v = 2; v <= 11; v++)
		update(&os, p, v);
	/* Twelve chains committed by redo follow each other in the log. */
	CHECK_EQ(os.pending_chains, 12);
	CHECK_EQ(os_epoch(&os), epoch0 + 10);
	/* Cut: the last ten epoch stores and the value's line lost. */
	copy = lost_epoch_copy(&os, epoch0, off, 1);
	CHECK_EQ(os_diagnose(copy, HEAP, &d), 0);
	CHECK_EQ(d.records, 0);
	CHECK_EQ(d.replay_records, 10);
	CHECK_EQ(d.committed, epoch0 + 10);
	CHECK_EQ(os_open(&again, copy, HEAP, host_platform()), 0);
	CHECK_EQ(again.replayed, 10);
	CHECK_EQ(again.rolled_back, 0);
	CHECK_EQ(*(uint64_t *)(copy + off), 11);
	CHECK_EQ(os_epoch(&again), epoch0 + 10);
	CHECK_EQ(problems(&again), 0);
	/* Recovered, the log holds nothing to replay: a second open writes nothing. */
	CHECK_EQ(os_diagnose(copy, HEAP, &d), 0);
	CHECK_EQ(d.replay_records, 0);
	free(copy);
	/* Only some epoch stores lost: the chains up to the durable one are done. */
	copy = lost_epoch_copy(&os, epoch0 + 7, off, 8);
	CHECK_EQ(os_open(&again, copy, HEAP, host_platform()), 0);
	CHECK_EQ(again.replayed, 3);
	CHECK_EQ(*(uint64_t *)(copy + off), 11);
	free(copy);
	/* The fifteenth chain is the last: the next transaction starts the log over. */
	for (uint64_t v = 12; v <= 20; v++)
		update(&os, p, v);
	CHECK(os.pending_chains < OS_LOG_MAX_CHAINS);
	CHECK(os.log_tail < 15 * 3 * OS_CACHE_LINE);
	free(base);
}

CHECK_TEST(recovery_replays_then_rolls_back_the_unfinished_transaction)
{
	struct objstore os, again;
	void *base = test_create(&os, HEAP);
	struct os_diagnosis d;
	uint64_t off, *p, epoch0, fresh;
	uint8_t *copy, *save, *before;

	p = new_block(&os, &off);
	update(&os, p, 1);
	epoch0 = os_epoch(&os);
	update(&os, p, 2);
	update(&os, p, 3);
	/* An unfinished transaction after the two chains. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_tx_log(&os, p, sizeof(*p)), 0);
	*p = 99;
	CHECK_EQ(os_alloc(&os, 64, &fresh), 0);
	copy = lost_epoch_copy(&os, epoch0, off, 99);
	CHECK_EQ(os_diagnose(copy, HEAP, &d), 0);
	CHECK_EQ(d.replay_records, 2);
	CHECK(d.records >= 2);
	CHECK_EQ(d.committed, epoch0 + 2);
	/* Tentative: replayed and rolled back, then retracted byte for byte. */
	before = test_heap_new(HEAP);
	memcpy(before, copy, HEAP);
	save = malloc(d.undo_bytes);
	CHECK_EQ(os_open_tentative(&again, copy, HEAP, host_platform(), save), 0);
	CHECK_EQ(*(uint64_t *)(copy + off), 3);
	CHECK_EQ(os_open_retract(&again), 0);
	CHECK(memcmp(before, copy, HEAP) == 0);
	/* Confirmed: the state of the last commit, as a new epoch. */
	CHECK_EQ(os_open_tentative(&again, copy, HEAP, host_platform(), save), 0);
	os_open_confirm(&again);
	CHECK_EQ(os_epoch(&again), epoch0 + 3);
	CHECK_EQ(*(uint64_t *)(copy + off), 3);
	CHECK_EQ(problems(&again), 0);
	CHECK_EQ(os_diagnose(copy, HEAP, &d), 0);
	CHECK_EQ(d.records + d.replay_records, 0);
	/* And the running heap aborts the same transaction alone. */
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK_EQ(*p, 3);
	CHECK_EQ(os.log_tail, 0);
	CHECK_EQ(problems(&os), 0);
	free(save);
	free(before);
	free(copy);
	free(base);
}

CHECK_TEST(large_transactions_and_a_handle_that_asks_commit_by_the_epoch_store)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t off;
	uint8_t *p;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_alloc(&os, 4096, &off), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	p = os_ptr(&os, off);
	/* A page's update is past what redo pays for. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_tx_log(&os, p, 4096), 0);
	memset(p, 7, 4096);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os.log_tail, 0);
	CHECK_EQ(os.pending_chains, 0);
	/* Small, by redo; then with redo turned off, by the epoch store. */
	update(&os, (uint64_t *)p, 1);
	CHECK(os.log_tail > 0);
	os_commit_by_redo(&os, false);
	update(&os, (uint64_t *)p, 2);
	CHECK_EQ(os.log_tail, 0);
	CHECK_EQ(os.pending_chains, 0);
	free(base);
}

CHECK_TEST(unsound_redo_and_commit_records_are_refused)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t off, *p, pos = 0, epoch0;
	struct os_log_entry *redo = NULL, *commit = NULL;

	p = new_block(&os, &off);
	epoch0 = os_epoch(&os);
	update(&os, p, 5);
	/* The chain of the update: UNDO, REDO, COMMIT; its epoch store lost. */
	for (pos = 0; pos < os.log_tail; pos += os_log_record_size(record(&os, pos)->kind,
								    record(&os, pos)->length)) {
		if (record(&os, pos)->epoch != epoch0 + 1)
			continue;
		if (record(&os, pos)->kind == OS_LOG_REDO)
			redo = record(&os, pos);
		if (record(&os, pos)->kind == OS_LOG_COMMIT)
			commit = record(&os, pos);
	}
	CHECK(redo && commit);
	os.sb->committed_epoch = epoch0;
	redo->offset = 8;
	redo->crc = os_log_record_crc(redo);
	refused_unchanged(base, "record", "starts in the superblock");
	redo->offset = off;
	redo->crc = os_log_record_crc(redo);
	commit->length = 8;
	commit->crc = os_log_record_crc(commit);
	refused_unchanged(base, "record", "commit record with a range");
	commit->length = 0;
	commit->crc = os_log_record_crc(commit);
	redo->kind = OS_LOG_UNDO;
	redo->crc = os_log_record_crc(redo);
	refused_unchanged(base, "record", "commit record without redo records");
	redo->kind = OS_LOG_REDO;
	redo->crc = os_log_record_crc(redo);
	CHECK_EQ(os_probe(base, HEAP), 0);
	free(base);
}

CHECK_TEST(more_chains_than_the_format_allows_are_refused)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t off, *p, epoch0;
	struct os_diagnosis d;

	p = new_block(&os, &off);
	epoch0 = os_epoch(&os);
	/* Chains a correct heap never writes: the count that bounds them held
	 * down, so that the log never starts over. */
	for (unsigned i = 0; i < OS_LOG_MAX_CHAINS + 1; i++) {
		update(&os, p, i);
		os.pending_chains = 1;
	}
	os.sb->committed_epoch = epoch0;
	CHECK_EQ(os_diagnose(base, HEAP, &d), -ERR_CORRUPT);
	CHECK(strstr(d.why, "more than 16 chains") != NULL);
	free(base);
}

CHECK_TEST(a_torn_record_ends_the_transaction)
{
	struct objstore os, again;
	struct os_diagnosis d;
	uint64_t off, pos = 0;
	void *base = cut_with_log(&os, &off);

	CHECK_EQ(os_diagnose(base, HEAP, &d), 0);
	while (pos + os_log_record_size(record(&os, pos)->kind,
					record(&os, pos)->length) < os.log_tail)
		pos += os_log_record_size(record(&os, pos)->kind, record(&os, pos)->length);
	/* A bad checksum is a record torn by the cut: the transaction ends before it. */
	record(&os, pos)->offset = HEAP - 2;
	CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
	CHECK_STR_EQ((char *)base + off, "hello");
	CHECK(again.rolled_back < d.records);
	free(base);
}

CHECK_TEST(a_tentative_rollback_is_confirmed_or_retracted)
{
	struct objstore os, again;
	struct os_diagnosis d;
	uint64_t off;
	void *base = cut_with_log(&os, &off);
	void *before = test_heap_new(HEAP), *save;
	uint64_t epoch = os_epoch(&os);

	memcpy(before, base, HEAP);
	CHECK_EQ(os_diagnose(base, HEAP, &d), 0);
	CHECK(d.undo_bytes >= 6);
	save = malloc(d.undo_bytes);
	/* Retract: the rolled-back bytes were there, then the image is as it was. */
	CHECK_EQ(os_open_tentative(&again, base, HEAP, host_platform(), save), 0);
	CHECK_STR_EQ((char *)base + off, "hello");
	CHECK_EQ(os_tx_begin(&again), -ERR_BUSY);
	CHECK_EQ(os_open_retract(&again), 0);
	CHECK(memcmp(before, base, HEAP) == 0);
	/* A cut while pending is a cut during rollback: the log still counts. */
	CHECK_EQ(os_open_tentative(&again, base, HEAP, host_platform(), NULL), 0);
	CHECK_EQ(os_open_retract(&again), -ERR_INVAL);
	CHECK_EQ(os_epoch(&again), epoch);
	CHECK_EQ(os_probe(base, HEAP), 0);
	/* Confirm: as os_open would have left it. */
	CHECK_EQ(os_open_tentative(&again, base, HEAP, host_platform(), save), 0);
	os_open_confirm(&again);
	CHECK_EQ(os_epoch(&again), epoch + 1);
	CHECK_STR_EQ((char *)base + off, "hello");
	CHECK_EQ(os_tx_begin(&again), 0);
	CHECK_EQ(os_tx_commit(&again), 0);
	CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
	CHECK_EQ(again.rolled_back, 0);
	free(save);
	free(before);
	free(base);
}

int main(void)
{
	return check_run_all();
}
