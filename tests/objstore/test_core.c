/*
 * test_core.c -- unit tests of the objstore core: creating and opening
 * heaps, transactions and rollback, the page and small-block allocator.
 */
#include "os_test.h"

#include "../../objstore/crc32c.h"

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
	sb->layout_major = 2;
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

CHECK_TEST(layout_1_0_heaps_still_open)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_superblock *sb = base;

	CHECK_EQ(sb->layout_major, OS_LAYOUT_MAJOR);
	CHECK_EQ(sb->layout_minor, OS_LAYOUT_MINOR);
	CHECK_EQ(OS_LAYOUT_MINOR, 1);
	/* A 1.0 heap differs only in what 1.1 added: the minor version. */
	sb->layout_minor = 0;
	sb->crc = crc32c(0, sb, __builtin_offsetof(struct os_superblock, crc));
	CHECK_EQ(os_probe(base, HEAP), 0);
	CHECK_EQ(os_open(&os, base, HEAP, host_platform()), 0);
	CHECK_EQ(os_app_root(&os, OS_APP_ROOT_KERNEL), 0);
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

int main(void)
{
	return check_run_all();
}
