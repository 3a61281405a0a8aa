/*
 * test_object.c -- unit tests of objects: ids, headers, the id index,
 * paged and small contents, and their checker (os_check_objects,
 * check_objects.c).
 *
 * Every test ends with os_check finding no problem in the committed heap;
 * the log-full and heap-full tests fail each kind of call at every amount
 * of room left, then commit what the call left and check it.
 */
#include <time.h>

#include "os_test.h"

#include "check_internal.h"
#include "crc32c.h"
#include "internal.h"
#include "objstore/check.h"
#include "objstore/object.h"

#define HEAP (8u << 20)
#define BIG_HEAP (64u << 20)
#define MIB (1ull << 20)
#define PAGE OS_PAGE_SIZE

/* --- helpers -------------------------------------------------------------- */

/* What os_check said: every message is printed; one may be looked for. */
struct notes {
	const char *want;              /* a substring to look for, or NULL */
	unsigned seen;                 /* messages containing it */
	bool quiet;                    /* print nothing (damage expected) */
};

/* note -- os_check's report callback */
static void note(void *ctx, const char *message)
{
	struct notes *n = ctx;

	if (n->want && strstr(message, n->want))
		n->seen++;
	else if (!n->quiet)
		printf("    os_check: %s\n", message);
}

/* check_heap -- problems os_check finds; messages with `want` counted in
 * *seen, the others printed unless `quiet` */
static uint64_t check_heap(const struct objstore *os, const char *want,
			   unsigned *seen, bool quiet)
{
	struct notes n = { want, 0, quiet };
	struct os_check_report rep = { .problem = note, .ctx = &n };
	void *scratch = malloc(os_check_scratch_size(os->size));
	uint64_t count = os_check(os->base, os->size, scratch, &rep);

	free(scratch);
	if (seen)
		*seen = n.seen;
	return count;
}

/* problems -- what os_check finds in the heap of `os` */
static uint64_t problems(const struct objstore *os)
{
	return check_heap(os, NULL, NULL, false);
}

/* pages_free -- free data pages now */
static uint64_t pages_free(const struct objstore *os)
{
	struct os_stats st;

	os_stats(os, &st);
	return st.pages_free;
}

/* object_count -- live objects by the root block */
static uint64_t object_count(const struct objstore *os)
{
	struct os_stats st;

	os_stats(os, &st);
	return st.objects;
}

/* pattern -- the test bytes for [off, off+len) of seed; never 0, unlike a hole */
static void pattern(uint8_t *buf, uint64_t off, uint64_t len, uint32_t seed)
{
	for (uint64_t i = 0; i < len; i++) {
		uint64_t x = (off + i + 1) * 0x9e3779b97f4a7c15ull + seed * 0x51ed27ull;

		buf[i] = (uint8_t)(x >> 56) | 1;
	}
}

/* renew -- commit the running transaction and begin the next one */
static void renew(struct objstore *os)
{
	CHECK_EQ(os_tx_commit(os), 0);
	CHECK_EQ(os_tx_begin(os), 0);
}

/* write_all -- write all len bytes, committing when the log fills */
static bool write_all(struct objstore *os, uint64_t id, uint64_t off,
		      const uint8_t *buf, uint64_t len)
{
	while (len) {
		bool fresh_tx = os->log_tail == 0;
		int64_t n = os_obj_write(os, id, off, buf, len);

		if (n == -ERR_NOSPC && !fresh_tx) {
			renew(os);
			continue;
		}
		if (n <= 0)
			return false;
		off += (uint64_t)n, buf += n, len -= (uint64_t)n;
		if (len)
			renew(os);
	}
	return true;
}

/* same_as -- whether object id holds exactly `size` bytes equal to want[] */
static bool same_as(const struct objstore *os, uint64_t id, const uint8_t *want,
		    uint64_t size)
{
	uint64_t chunk = 1 << 20;
	uint8_t *got = malloc(chunk + 1);
	bool same = true;
	struct os_obj_info info;

	if (os_obj_stat(os, id, &info) || info.size != size)
		same = false;
	for (uint64_t off = 0; same && off < size; off += chunk) {
		uint64_t n = size - off < chunk ? size - off : chunk;

		same = os_obj_read(os, id, off, got, chunk) == (int64_t)n &&
		       memcmp(got, want + off, n) == 0;
	}
	if (same && os_obj_read(os, id, size, got, 1) != 0)
		same = false;
	free(got);
	return same;
}

/* zeros -- whether object id reads as zeros over [off, off+len) */
static bool zeros(const struct objstore *os, uint64_t id, uint64_t off, uint64_t len)
{
	uint8_t *got = malloc(len);
	bool ok = os_obj_read(os, id, off, got, len) == (int64_t)len &&
		  os_all_zero(got, len);

	free(got);
	return ok;
}

/* header_of -- object id's header, found as format.h lays out the id index */
static struct os_obj_header *header_of(struct objstore *os, uint64_t id)
{
	uint64_t off = os->root->index_root;

	for (unsigned l = os->root->index_depth; l-- > 0;)
		off = ((uint64_t *)os_ptr(os, off))[(id >> (OS_RADIX_SHIFT * l)) & 511];
	return os_ptr(os, off);
}

/* reseal -- recompute a header's crc after a test changed it by hand */
static void reseal(struct os_obj_header *h)
{
	h->crc = crc32c(0, h, 60);
}

/* stat_of -- object id's info; aborts the check on error */
static struct os_obj_info stat_of(const struct objstore *os, uint64_t id)
{
	struct os_obj_info info;

	memset(&info, 0, sizeof(info));
	CHECK_EQ(os_obj_stat(os, id, &info), 0);
	return info;
}

/* Everything an abort or a power cut must give back. */
struct snap {
	struct os_root root;
	struct os_page_desc *desc;
	uint32_t *stack;
};

/* snap_take -- copy the allocator's and the root block's state */
static void snap_take(const struct objstore *os, struct snap *s)
{
	uint64_t pages = os->sb->page_count;

	s->root = *os->root;
	s->desc = malloc(pages * sizeof(*s->desc));
	s->stack = malloc(pages * sizeof(*s->stack));
	memcpy(s->desc, os->desc, pages * sizeof(*s->desc));
	memcpy(s->stack, os->stack, pages * sizeof(*s->stack));
}

/* snap_same -- whether the heap is back in the snapshot's state */
static bool snap_same(const struct objstore *os, const struct snap *s)
{
	uint64_t pages = os->sb->page_count;

	return memcmp(&s->root, os->root, sizeof(s->root)) == 0 &&
	       memcmp(s->desc, os->desc, pages * sizeof(*s->desc)) == 0 &&
	       memcmp(s->stack, os->stack, s->root.free_top * sizeof(*s->stack)) == 0;
}

/* snap_free -- release a snapshot */
static void snap_free(struct snap *s)
{
	free(s->desc);
	free(s->stack);
}

/* --- creating, stat, delete ----------------------------------------------- */

CHECK_TEST(create_stat_delete_every_type)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t before = pages_free(&os), ids[OS_TYPE_MAX + 1], id;
	struct os_obj_info info;

	CHECK_EQ(os_tx_begin(&os), 0);
	for (uint16_t t = 1; t <= OS_TYPE_MAX; t++) {
		bool paged = t == OS_TYPE_BLOB || t == OS_TYPE_CODE || t == OS_TYPE_ANON;
		uint64_t size = paged ? 3 * PAGE + 5 : 100u + t;

		CHECK_EQ(os_obj_placement(t), paged ? OS_PLACE_PAGED : OS_PLACE_SMALL);
		CHECK_EQ(os_obj_create(&os, t, size, &ids[t]), 0);
		info = stat_of(&os, ids[t]);
		CHECK_EQ(info.id, ids[t]);
		CHECK_EQ(info.type, t);
		CHECK_EQ(info.placement, paged ? OS_PLACE_PAGED : OS_PLACE_SMALL);
		CHECK_EQ(info.refcount, 1);
		CHECK_EQ(info.size, size);
		CHECK_EQ(info.modified_epoch, os.tx_epoch);
		CHECK_EQ(info.pages, 0);
		CHECK(zeros(&os, ids[t], 0, size));
	}
	CHECK_EQ(ids[1], 1);
	CHECK_EQ(ids[OS_TYPE_MAX], OS_TYPE_MAX);
	CHECK_EQ(os_obj_placement(0), 0);
	CHECK_EQ(os_obj_placement(OS_TYPE_MAX + 1), 0);
	CHECK_EQ(os_obj_create(&os, 0, 10, &id), -ERR_INVAL);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_MAX + 1, 10, &id), -ERR_INVAL);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 0, &id), 0); /* an empty blob */
	CHECK_EQ(stat_of(&os, id).size, 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(object_count(&os), OS_TYPE_MAX + 1);
	CHECK_EQ(problems(&os), 0);

	/* Changing calls want a transaction. */
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 1, &id), -ERR_INVAL);
	CHECK_EQ(os_obj_delete(&os, ids[1]), -ERR_INVAL);
	CHECK_EQ(os_obj_resize(&os, ids[1], 1), -ERR_INVAL);
	CHECK_EQ(os_obj_write(&os, ids[1], 0, "x", 1), -ERR_INVAL);
	CHECK_EQ(os_obj_ref(&os, ids[1], 1, NULL), -ERR_INVAL);

	CHECK_EQ(os_tx_begin(&os), 0);
	for (uint16_t t = 1; t <= OS_TYPE_MAX; t++) {
		CHECK_EQ(os_obj_delete(&os, ids[t]), 0);
		CHECK_EQ(os_obj_stat(&os, ids[t], &info), -ERR_NOENT);
		CHECK_EQ(os_obj_delete(&os, ids[t]), -ERR_NOENT);
	}
	CHECK_EQ(os_obj_delete(&os, id), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(object_count(&os), 0);
	CHECK_EQ(pages_free(&os), before);
	CHECK_EQ(os.root->index_root, 0);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

CHECK_TEST(ids_are_never_reused)
{
	struct objstore os, again;
	void *base = test_create(&os, HEAP);
	uint64_t a, b, c, d, e;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 10, &a), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_CHANNEL, 10, &b), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 10, &c), 0);
	CHECK_EQ(os_obj_delete(&os, c), 0);
	CHECK_EQ(os_obj_delete(&os, b), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 10, &d), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(a, 1);
	CHECK_EQ(b, 2);
	CHECK_EQ(c, 3);
	CHECK_EQ(d, 4);

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_delete(&os, a), 0);
	CHECK_EQ(os_obj_delete(&os, d), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_obj_next(&os, 0, &e), -ERR_NOENT);
	CHECK_EQ(problems(&os), 0);

	/* The next id survives an empty index and a re-open. */
	CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
	CHECK_EQ(os_tx_begin(&again), 0);
	CHECK_EQ(os_obj_create(&again, OS_TYPE_BLOB, 10, &e), 0);
	CHECK_EQ(os_tx_commit(&again), 0);
	CHECK_EQ(e, 5);
	CHECK_EQ(problems(&again), 0);
	free(base);
}

/* --- small objects ------------------------------------------------------- */

CHECK_TEST(small_objects_hold_fixed_bytes)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t sizes[] = { 1, 5, 64, 65, 1000, 2048 }, ids[6], id, blob, pg;
	char buf[4096];

	CHECK_EQ(os_tx_begin(&os), 0);
	for (int i = 0; i < 6; i++) {
		uint8_t *data;

		CHECK_EQ(os_obj_create(&os, OS_TYPE_THREAD, sizes[i], &ids[i]), 0);
		data = os_obj_data(&os, ids[i]);
		CHECK(data != NULL);
		CHECK(os_all_zero(data, sizes[i]));
		CHECK_EQ(os_obj_write(&os, ids[i], sizes[i] - 1, "z", 1), 1);
		CHECK_EQ(data[sizes[i] - 1], 'z');
		CHECK_EQ(os_obj_read(&os, ids[i], 0, buf, sizeof(buf)), (int64_t)sizes[i]);
		CHECK_EQ(buf[sizes[i] - 1], 'z');
		CHECK_EQ(os_obj_write(&os, ids[i], sizes[i] - 1, "zz", 2), -ERR_RANGE);
		CHECK_EQ(os_obj_read(&os, ids[i], sizes[i], buf, 10), 0);
		CHECK_EQ(stat_of(&os, ids[i]).pages, 0);
	}
	CHECK_EQ(os_obj_write(&os, ids[5], 1000, "hello", 5), 5);
	CHECK_EQ(os_obj_read(&os, ids[5], 1002, buf, 100), 100);
	CHECK_EQ(memcmp(buf, "llo", 3), 0);
	CHECK_EQ(os_obj_read(&os, ids[5], 2040, buf, 100), 8);

	CHECK_EQ(os_obj_create(&os, OS_TYPE_PROCESS, 0, &id), -ERR_TOOBIG);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_PROCESS, OS_LARGEST_SMALL + 1, &id), -ERR_TOOBIG);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_CATALOGUE, OS_LARGEST_SMALL, &id), 0);
	CHECK_EQ(os_obj_resize(&os, ids[0], 10), -ERR_NOTSUP);
	CHECK_EQ(os_obj_page(&os, ids[0], 0, true, &pg), -ERR_NOTSUP);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 100, &blob), 0);
	CHECK(os_obj_data(&os, blob) == NULL);
	CHECK(os_obj_data(&os, 0) == NULL);
	CHECK(os_obj_data(&os, 999) == NULL);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);

	/* A write records its epoch. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_write(&os, ids[2], 0, "a", 1), 1);
	CHECK_EQ(stat_of(&os, ids[2]).modified_epoch, os.tx_epoch);
	CHECK(stat_of(&os, ids[3]).modified_epoch < os.tx_epoch);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

/* --- paged contents -------------------------------------------------------- */

CHECK_TEST(writes_and_reads_at_page_boundaries)
{
	struct objstore os, again;
	void *base = test_create(&os, HEAP);
	uint64_t size = 6 * PAGE + 100, id;
	uint64_t writes[][2] = { { 0, 1 }, { 4095, 1 }, { 4095, 2 }, { 8190, 4100 },
				 { 5 * PAGE, 100 }, { 6 * PAGE, 100 }, { 6 * PAGE + 99, 1 } };
	uint8_t *shadow = calloc(1, size), *buf = malloc(size + 100);

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, size, &id), 0);
	for (unsigned i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		pattern(shadow + writes[i][0], writes[i][0], writes[i][1], i);
		CHECK_EQ(os_obj_write(&os, id, writes[i][0], shadow + writes[i][0],
				      writes[i][1]), (int64_t)writes[i][1]);
	}
	CHECK(same_as(&os, id, shadow, size));
	CHECK(zeros(&os, id, 4 * PAGE, PAGE)); /* page 4 is a hole */
	CHECK_EQ(stat_of(&os, id).pages, 6);
	/* Reads at odd places. */
	for (uint64_t off = 0; off < size; off += 1021) {
		CHECK_EQ(os_obj_read(&os, id, off, buf, 3000),
			 (int64_t)(size - off < 3000 ? size - off : 3000));
		CHECK_EQ(memcmp(buf, shadow + off, size - off < 3000 ? size - off : 3000), 0);
	}
	/* Past the end: short, then nothing. */
	CHECK_EQ(os_obj_read(&os, id, size - 10, buf, 100), 10);
	CHECK_EQ(os_obj_read(&os, id, size, buf, 100), 0);
	CHECK_EQ(os_obj_read(&os, id, UINT64_MAX, buf, UINT64_MAX), 0);
	CHECK_EQ(os_obj_write(&os, id, size - 1, "ab", 2), -ERR_RANGE);
	CHECK_EQ(os_obj_write(&os, id, size + 1, "", 0), -ERR_RANGE);
	CHECK_EQ(os_obj_write(&os, id, size, "", 0), 0);
	CHECK_EQ(os_obj_write(&os, id, UINT64_MAX, "ab", 2), -ERR_RANGE);
	CHECK_EQ(os_obj_write(&os, id, 10, "ab", UINT64_MAX - 5), -ERR_RANGE);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);

	/* Writes and resizes record their epoch; reads and refs do not. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK(stat_of(&os, id).modified_epoch < os.tx_epoch);
	CHECK_EQ(os_obj_ref(&os, id, 1, NULL), 0);
	CHECK(stat_of(&os, id).modified_epoch < os.tx_epoch);
	CHECK_EQ(os_obj_write(&os, id, 3 * PAGE, "x", 1), 1);
	CHECK_EQ(stat_of(&os, id).modified_epoch, os.tx_epoch);
	shadow[3 * PAGE] = 'x';
	renew(&os);
	CHECK_EQ(os_obj_resize(&os, id, size + 1), 0);
	CHECK_EQ(stat_of(&os, id).modified_epoch, os.tx_epoch);
	renew(&os);
	CHECK_EQ(os_obj_resize(&os, id, size), 0);
	CHECK_EQ(stat_of(&os, id).modified_epoch, os.tx_epoch);
	CHECK_EQ(os_obj_ref(&os, id, -1, NULL), 0);
	CHECK_EQ(os_tx_commit(&os), 0);

	/* Overwrites log the old bytes: an abort brings them back. */
	CHECK_EQ(os_tx_begin(&os), 0);
	memset(buf, 0x55, size);
	CHECK_EQ(os_obj_write(&os, id, 0, buf, size), (int64_t)size);
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK(same_as(&os, id, shadow, size));
	CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
	CHECK(same_as(&again, id, shadow, size));
	CHECK_EQ(problems(&again), 0);
	free(shadow);
	free(buf);
	free(base);
}

CHECK_TEST(ten_mib_objects_in_a_64_mib_heap)
{
	struct objstore os;
	void *base = test_create(&os, BIG_HEAP);
	uint64_t size = 10 * MIB, ids[3], before = pages_free(&os);
	uint8_t *shadow[3];
	int commits;

	CHECK_EQ(os_tx_begin(&os), 0);
	for (int i = 0; i < 3; i++) {
		shadow[i] = malloc(size);
		pattern(shadow[i], 0, size, 100 + i);
		CHECK_EQ(os_obj_create(&os, OS_TYPE_CODE, size, &ids[i]), 0);
		CHECK(write_all(&os, ids[i], 0, shadow[i], size));
	}
	CHECK_EQ(os_tx_commit(&os), 0);
	for (int i = 0; i < 3; i++) {
		CHECK(same_as(&os, ids[i], shadow[i], size));
		CHECK_EQ(stat_of(&os, ids[i]).pages, size / PAGE);
	}
	CHECK_EQ(problems(&os), 0);

	/* An overwrite logs 10 MiB of old bytes: more than the 4 MiB log, so
	 * it comes back short and goes on after a commit. */
	pattern(shadow[1], 0, size, 7);
	CHECK_EQ(os_tx_begin(&os), 0);
	commits = 0;
	for (uint64_t off = 0; off < size;) {
		int64_t n = os_obj_write(&os, ids[1], off, shadow[1] + off, size - off);

		CHECK(n > 0);
		if (n <= 0)
			break;
		off += (uint64_t)n;
		renew(&os);
		commits++;
	}
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK(commits >= 3);
	CHECK(same_as(&os, ids[1], shadow[1], size));
	CHECK(same_as(&os, ids[0], shadow[0], size));
	CHECK_EQ(problems(&os), 0);

	CHECK_EQ(os_tx_begin(&os), 0);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(os_obj_delete(&os, ids[i]), 0);
		free(shadow[i]);
	}
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(pages_free(&os), before);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

CHECK_TEST(grow_and_shrink_across_depths)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint8_t page0[PAGE], tail[900], expect[500], byte = 0x42, got = 0;
	uint64_t id, before, pg, gib = 1ull << 30;
	struct os_obj_header *h;

	pattern(page0, 0, PAGE, 1);
	pattern(tail, PAGE, sizeof(tail), 2);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, PAGE, &id), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	before = pages_free(&os);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_write(&os, id, 0, page0, PAGE), PAGE);
	h = header_of(&os, id);
	CHECK_EQ(h->depth, 0);

	/* 768 pages: depth 2; then 2^18 + 1 pages: depth 3. */
	CHECK_EQ(os_obj_resize(&os, id, 3 * MIB), 0);
	CHECK_EQ(h->depth, 2);
	CHECK(zeros(&os, id, PAGE, 3 * MIB - PAGE));
	CHECK_EQ(os_obj_write(&os, id, 3 * MIB - 1, &byte, 1), 1);
	CHECK_EQ(os_obj_resize(&os, id, gib + 1), 0);
	CHECK_EQ(h->depth, 3);
	CHECK_EQ(os_obj_write(&os, id, gib, &byte, 1), 1);
	CHECK_EQ(os_obj_read(&os, id, gib, &got, 10), 1);
	CHECK_EQ(got, byte);
	CHECK_EQ(stat_of(&os, id).pages, 3);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);
	got = 0;
	CHECK_EQ(os_obj_read(&os, id, 3 * MIB - 1, &got, 1), 1);
	CHECK_EQ(got, byte);

	/* Down to two pages (depth 1): what lay beyond is gone. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_resize(&os, id, PAGE + sizeof(tail)), 0);
	CHECK_EQ(h->depth, 1);
	CHECK_EQ(stat_of(&os, id).pages, 1);
	CHECK_EQ(os_obj_write(&os, id, PAGE, tail, sizeof(tail)), sizeof(tail));
	CHECK_EQ(os_obj_resize(&os, id, PAGE + 500), 0);
	CHECK_EQ(os_obj_page(&os, id, 1, false, &pg), 0); /* the cut page's tail is zeroed */
	CHECK(pg && os_all_zero((uint8_t *)os_ptr(&os, pg) + 500, PAGE - 500));
	CHECK_EQ(os_obj_resize(&os, id, 3 * MIB), 0);
	CHECK(zeros(&os, id, PAGE + 500, 3 * MIB - PAGE - 500)); /* no old byte comes back */
	CHECK_EQ(os_obj_read(&os, id, PAGE, tail, 500), 500);
	pattern(expect, PAGE, 500, 2);
	CHECK_EQ(memcmp(tail, expect, 500), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);

	/* Down to 100 bytes (depth 0), then grow: zeros after byte 100. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_resize(&os, id, 100), 0);
	CHECK_EQ(h->depth, 0);
	CHECK_EQ(pages_free(&os), before - 1);
	CHECK_EQ(os_obj_resize(&os, id, 2 * PAGE), 0);
	CHECK(zeros(&os, id, 100, 2 * PAGE - 100));
	CHECK_EQ(os_obj_read(&os, id, 0, tail, 100), 100);
	CHECK_EQ(memcmp(tail, page0, 100), 0);

	/* Bytes past the size written through a mapping do not come back either. */
	CHECK_EQ(os_obj_resize(&os, id, 100), 0);
	CHECK_EQ(os_obj_page(&os, id, 0, false, &pg), 0);
	CHECK(pg != 0);
	CHECK_EQ(os_tx_log(&os, (uint8_t *)os_ptr(&os, pg) + 200, 1), 0);
	((uint8_t *)os_ptr(&os, pg))[200] = 0x77;
	CHECK_EQ(os_obj_resize(&os, id, 300), 0);
	CHECK(zeros(&os, id, 100, 200));
	CHECK_EQ(os_obj_resize(&os, id, 0), 0);
	CHECK_EQ(h->data, 0);
	CHECK_EQ(pages_free(&os), before);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

CHECK_TEST(shrinking_frees_pages_and_heap_returns_to_baseline)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t before = pages_free(&os), size = 600 * PAGE, id, small;
	uint8_t *data = malloc(size);

	pattern(data, 0, size, 3);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, size, &id), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_ASPACE, 300, &small), 0);
	CHECK(write_all(&os, id, 0, data, size));
	CHECK_EQ(os_tx_commit(&os), 0);
	/* 600 data pages, 2 + 1 index pages, a slab of headers, a slab for
	 * the 512-byte block, an id index page */
	CHECK_EQ(before - pages_free(&os), 606);
	CHECK_EQ(problems(&os), 0);

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_resize(&os, id, 512 * PAGE), 0);
	CHECK_EQ(before - pages_free(&os), 606 - 88 - 1 - 1); /* and a leaf, and the top */
	CHECK_EQ(os_obj_resize(&os, id, 300 * PAGE + 1), 0);
	CHECK_EQ(before - pages_free(&os), 516 - 211);
	CHECK_EQ(stat_of(&os, id).pages, 301);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK(same_as(&os, id, data, 300 * PAGE + 1));
	CHECK_EQ(problems(&os), 0);

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_delete(&os, id), 0);
	CHECK_EQ(os_obj_delete(&os, small), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(pages_free(&os), before);
	CHECK_EQ(problems(&os), 0);
	free(data);
	free(base);
}

CHECK_TEST(obj_page_maps_and_allocates_pages)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t id, pg, pg2, size = 600 * PAGE;
	uint8_t *p;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_CODE, size, &id), 0);
	CHECK_EQ(os_obj_page(&os, id, 513, false, &pg), 0);
	CHECK_EQ(pg, 0);
	CHECK_EQ(os_obj_page(&os, id, 513, true, &pg), 0);
	CHECK(pg != 0);
	CHECK_EQ((pg - os.sb->data_offset) % PAGE, 0);
	p = os_ptr(&os, pg);
	CHECK(os_all_zero(p, PAGE));
	memcpy(p, "mapped", 6); /* fresh this transaction: no log needed */
	CHECK_EQ(os_obj_page(&os, id, 513, true, &pg2), 0);
	CHECK_EQ(pg2, pg);
	CHECK_EQ(os_obj_page(&os, id, 600, true, &pg2), -ERR_RANGE);
	CHECK_EQ(os_obj_page(&os, 0, 0, true, &pg2), -ERR_NOENT);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_obj_page(&os, id, 0, true, &pg2), -ERR_INVAL); /* no transaction */
	CHECK_EQ(os_obj_page(&os, id, 513, false, &pg2), 0); /* a lookup needs none */
	CHECK_EQ(pg2, pg);
	CHECK_EQ(stat_of(&os, id).pages, 1);
	{
		char buf[8];

		CHECK_EQ(os_obj_read(&os, id, 513 * PAGE, buf, 6), 6);
		CHECK_EQ(memcmp(buf, "mapped", 6), 0);
	}
	CHECK_EQ(problems(&os), 0);
	free(base);
}

/* --- abort and power cuts ---------------------------------------------- */

enum undo_op { OP_CREATE, OP_WRITE, OP_GROW, OP_SHRINK, OP_DELETE_PAGED,
	       OP_DELETE_SMALL, OP_REF, OP_PAGE, OP_META, OP_COUNT };

/* run_op -- one changing call on the undo test's objects */
static void run_op(struct objstore *os, int op, uint64_t blob, uint64_t small)
{
	uint8_t buf[3 * PAGE];
	uint64_t id, pg;

	memset(buf, 0xee, sizeof(buf));
	switch (op) {
	case OP_CREATE:
		CHECK_EQ(os_obj_create(os, OS_TYPE_BLOB, 5 * MIB, &id), 0);
		CHECK_EQ(os_obj_write(os, id, MIB, buf, sizeof(buf)), sizeof(buf));
		CHECK_EQ(os_obj_create(os, OS_TYPE_CHANNEL, 700, &id), 0);
		break;
	case OP_WRITE:
		CHECK_EQ(os_obj_write(os, blob, 100, buf, sizeof(buf)), sizeof(buf));
		CHECK_EQ(os_obj_write(os, small, 10, buf, 50), 50);
		break;
	case OP_GROW:
		CHECK_EQ(os_obj_resize(os, blob, 1ull << 31), 0);
		CHECK_EQ(os_obj_write(os, blob, (1ull << 31) - 5, buf, 5), 5);
		break;
	case OP_SHRINK:
		CHECK_EQ(os_obj_resize(os, blob, 1000), 0);
		break;
	case OP_DELETE_PAGED:
		CHECK_EQ(os_obj_delete(os, blob), 0);
		break;
	case OP_DELETE_SMALL:
		CHECK_EQ(os_obj_delete(os, small), 0);
		break;
	case OP_REF:
		CHECK_EQ(os_obj_ref(os, blob, 5, NULL), 0);
		break;
	case OP_PAGE:
		CHECK_EQ(os_obj_page(os, blob, 590, true, &pg), 0);
		break;
	case OP_META:
		CHECK_EQ(os_obj_set_mode(os, blob, 0750), 0);
		CHECK_EQ(os_obj_set_mtime(os, blob, -1), 0);
		CHECK_EQ(os_obj_touch(os, blob), 0);
		break;
	}
}

/* undo_fixture -- a committed heap with a written blob and a small object */
static void *undo_fixture(struct objstore *os, uint64_t *blob, uint64_t *small,
			  uint8_t *shadow, uint64_t size)
{
	void *base = test_create(os, HEAP);

	pattern(shadow, 0, size, 9);
	CHECK_EQ(os_tx_begin(os), 0);
	CHECK_EQ(os_obj_create(os, OS_TYPE_BLOB, size, blob), 0);
	CHECK_EQ(os_obj_create(os, OS_TYPE_PROCESS, 100, small), 0);
	CHECK_EQ(os_obj_write(os, *blob, 0, shadow, 20 * PAGE), 20 * PAGE);
	CHECK_EQ(os_obj_write(os, *blob, 600 * PAGE, shadow + 600 * PAGE, 3 * PAGE), 3 * PAGE);
	CHECK_EQ(os_obj_write(os, *small, 0, shadow, 100), 100);
	CHECK_EQ(os_tx_commit(os), 0);
	memset(shadow + 20 * PAGE, 0, 580 * PAGE);
	return base;
}

CHECK_TEST(abort_and_power_cut_undo_every_call)
{
	uint64_t size = 603 * PAGE, blob, small;
	uint8_t *shadow = malloc(size);

	for (int cut = 0; cut < 2; cut++) {
		for (int op = 0; op < OP_COUNT; op++) {
			struct objstore os, again, *after = cut ? &again : &os;
			void *base = undo_fixture(&os, &blob, &small, shadow, size);
			uint64_t free_before = pages_free(&os);
			struct snap s;

			snap_take(&os, &s);
			CHECK_EQ(os_tx_begin(&os), 0);
			run_op(&os, op, blob, small);
			if (cut)
				CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
			else
				CHECK_EQ(os_tx_abort(&os), 0);
			if (!snap_same(after, &s) || pages_free(after) != free_before)
				printf("    %s: op %d not undone\n", cut ? "power cut" : "abort", op);
			CHECK(snap_same(after, &s));
			CHECK_EQ(pages_free(after), free_before);
			CHECK(same_as(after, blob, shadow, size));
			CHECK(same_as(after, small, shadow, 100));
			CHECK_EQ(stat_of(after, blob).refcount, 1);
			CHECK_EQ(problems(after), 0);
			snap_free(&s);
			free(base);
		}
	}
	free(shadow);
}

/* --- modes and mtimes (2.2) ---------------------------------------------- */

CHECK_TEST(modes_and_mtimes_are_stamped_set_and_checked)
{
	struct objstore os;
	void *base = test_create_minor(&os, HEAP, 2); /* later said to be 2.1 */
	struct os_superblock *sb = base;
	uint64_t blob, code, small, tail;
	int64_t wall, before = (int64_t)time(NULL) * 1000000000;
	struct os_obj_header *h;
	unsigned seen;

	/* A new paged object: mode unset, mtime the transaction's wall time. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 100, &blob), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_CODE, 0, &code), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_THREAD, 64, &small), 0);
	wall = os_tx_wall_ns(&os);
	CHECK(wall >= before && wall < before + 100ll * 1000000000);
	CHECK_EQ(stat_of(&os, blob).mode, 0);
	CHECK_EQ(stat_of(&os, blob).mtime_ns, wall);
	CHECK_EQ(stat_of(&os, code).mtime_ns, wall);
	CHECK_EQ(stat_of(&os, small).mtime_ns, 0);
	/* Modes: permission bits alone; paged objects alone. */
	CHECK_EQ(os_obj_set_mode(&os, blob, 04751), 0);
	CHECK_EQ(stat_of(&os, blob).mode, OS_MODE_SET | 04751);
	CHECK_EQ(os_obj_set_mode(&os, code, 0), 0);
	CHECK_EQ(stat_of(&os, code).mode, OS_MODE_SET);
	CHECK_EQ(os_obj_set_mode(&os, blob, 010000), -ERR_INVAL);
	CHECK_EQ(os_obj_set_mode(&os, small, 0644), -ERR_NOTSUP);
	CHECK_EQ(os_obj_set_mtime(&os, small, 1), -ERR_NOTSUP);
	CHECK_EQ(os_obj_touch(&os, small), -ERR_NOTSUP);
	CHECK_EQ(os_obj_set_mode(&os, 999, 0644), -ERR_NOENT);
	CHECK_EQ(stat_of(&os, blob).mode, OS_MODE_SET | 04751);
	/* Any mtime may be set; a write stamps the wall time again. */
	CHECK_EQ(os_obj_set_mtime(&os, blob, -5000000001ll), 0);
	CHECK_EQ(stat_of(&os, blob).mtime_ns, -5000000001ll);
	CHECK_EQ(os_obj_write(&os, blob, 0, "x", 1), 1);
	CHECK_EQ(stat_of(&os, blob).mtime_ns, wall);
	CHECK_EQ(os_obj_set_mtime(&os, code, 7), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);

	/* touch: epoch and wall time, its header logged once a transaction. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_touch(&os, code), 0);
	CHECK_EQ(stat_of(&os, code).modified_epoch, os.tx_epoch);
	CHECK_EQ(stat_of(&os, code).mtime_ns, os_tx_wall_ns(&os));
	CHECK(os_tx_wall_ns(&os) >= wall);
	tail = os.log_tail;
	CHECK_EQ(os_obj_touch(&os, code), 0);
	CHECK_EQ(os.log_tail, tail);
	CHECK_EQ(stat_of(&os, code).mode, OS_MODE_SET); /* kept */
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_settle(&os), 0); /* no replay puts back what the test changes */

	/* A layout 2.1 heap (no mode, no mtime: zeros) opens and checks clean. */
	h = header_of(&os, code);
	h->mode = 0;
	h->mtime_ns = 0;
	reseal(h);
	sb->layout_minor = 1;
	sb->crc = crc32c(0, sb, offsetof(struct os_superblock, crc));
	CHECK_EQ(os_open(&os, base, HEAP, host_platform()), 0);
	CHECK_EQ(problems(&os), 0);
	CHECK_EQ(stat_of(&os, code).mode, 0);
	CHECK_EQ(stat_of(&os, code).mtime_ns, 0);

	/* Damage: a mode without its flag or with other bits; a small object's mtime. */
	h = header_of(&os, blob);
	h->mode = 0644;
	reseal(h);
	CHECK(check_heap(&os, "neither 0 nor", &seen, true) >= 1);
	CHECK(seen >= 1);
	CHECK_EQ(os_obj_read(&os, blob, 0, &tail, 1), -ERR_CORRUPT);
	h->mode = OS_MODE_SET | 0x1000;
	reseal(h);
	CHECK(check_heap(&os, "neither 0 nor", &seen, true) >= 1);
	CHECK(seen >= 1);
	h->mode = OS_MODE_SET | 0644;
	reseal(h);
	CHECK_EQ(problems(&os), 0);
	h = header_of(&os, small);
	h->mtime_ns = 1;
	reseal(h);
	CHECK(check_heap(&os, "small object with a mode or an mtime", &seen, true) >= 1);
	CHECK(seen >= 1);
	CHECK(os_obj_data(&os, small) == NULL);
	free(base);
}

/* --- listing, many objects, refcounts ------------------------------------- */

/* create_or_renew -- os_obj_create, committing when the log is full */
static int create_or_renew(struct objstore *os, uint16_t type, uint64_t size,
			   uint64_t *id)
{
	for (;;) {
		bool fresh_tx = os->log_tail == 0;
		int err = os_obj_create(os, type, size, id);

		if (err != -ERR_NOSPC || fresh_tx)
			return err;
		renew(os);
	}
}

/* delete_or_renew -- os_obj_delete, committing when the log is full */
static int delete_or_renew(struct objstore *os, uint64_t id)
{
	for (;;) {
		bool fresh_tx = os->log_tail == 0;
		int err = os_obj_delete(os, id);

		if (err != -ERR_NOSPC || fresh_tx)
			return err;
		renew(os);
	}
}

CHECK_TEST(next_lists_live_ids_in_order)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t n = 2000, id, from, count = 0;
	bool live[2001];

	CHECK_EQ(os_tx_begin(&os), 0);
	for (uint64_t i = 1; i <= n; i++) {
		CHECK_EQ(create_or_renew(&os, i % 2 ? OS_TYPE_THREAD : OS_TYPE_BLOB, 8, &id), 0);
		CHECK_EQ(id, i);
		live[i] = true;
	}
	renew(&os);
	/* Every third id, and ids 1000..1600 (emptying the leaf of 1024..1535). */
	for (uint64_t i = 1; i <= n; i++) {
		if (i % 3 == 0 || (i >= 1000 && i <= 1600)) {
			CHECK_EQ(delete_or_renew(&os, i), 0);
			live[i] = false;
		}
	}
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);
	from = 0;
	for (uint64_t want = 1; want <= n; want++) {
		if (!live[want])
			continue;
		CHECK_EQ(os_obj_next(&os, from, &id), 0);
		CHECK_EQ(id, want);
		from = id + 1;
		count++;
	}
	CHECK_EQ(os_obj_next(&os, from, &id), -ERR_NOENT);
	CHECK_EQ(count, object_count(&os));
	CHECK_EQ(os_obj_next(&os, 998, &id), 0);
	CHECK_EQ(id, 998);
	CHECK_EQ(os_obj_next(&os, 999, &id), 0); /* 999 is a multiple of 3 */
	CHECK_EQ(id, 1601);
	CHECK_EQ(os_obj_next(&os, 1000, &id), 0);
	CHECK_EQ(id, 1601);
	CHECK_EQ(os_obj_next(&os, 1024, &id), 0);
	CHECK_EQ(id, 1601);
	CHECK_EQ(os_obj_next(&os, 2001, &id), -ERR_NOENT);
	CHECK_EQ(os_obj_next(&os, UINT64_MAX, &id), -ERR_NOENT);
	free(base);
}

CHECK_TEST(a_hundred_thousand_objects)
{
	struct objstore os;
	uint64_t heap = 32u << 20, n = 100000, id, before, from = 0, seen = 0;
	void *base = test_create(&os, heap);
	int bad = 0;

	before = pages_free(&os);
	CHECK_EQ(os_tx_begin(&os), 0);
	for (uint64_t i = 1; i <= n && bad < 5; i++) {
		if (create_or_renew(&os, i % 4 ? OS_TYPE_CHANNEL : OS_TYPE_BLOB, 48, &id) || id != i)
			bad++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(object_count(&os), n);
	CHECK_EQ(os.root->index_depth, 2);
	CHECK_EQ(problems(&os), 0);
	while (os_obj_next(&os, from, &id) == 0) {
		seen++;
		from = id + 1;
	}
	CHECK_EQ(seen, n);

	CHECK_EQ(os_tx_begin(&os), 0);
	for (uint64_t i = n; i >= 1 && bad < 5; i--)
		if (delete_or_renew(&os, i))
			bad++;
	CHECK_EQ(bad, 0);
	CHECK_EQ(create_or_renew(&os, OS_TYPE_BLOB, 1, &id), 0);
	CHECK_EQ(id, n + 1);
	CHECK_EQ(os_obj_delete(&os, id), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(object_count(&os), 0);
	CHECK_EQ(pages_free(&os), before);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

CHECK_TEST(refcounts_go_up_and_down)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t id;
	uint32_t count = 0;
	unsigned seen;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 10, &id), 0);
	CHECK_EQ(os_obj_ref(&os, id, 3, &count), 0);
	CHECK_EQ(count, 4);
	CHECK_EQ(os_obj_ref(&os, id, 0, &count), 0);
	CHECK_EQ(count, 4);
	CHECK_EQ(os_obj_ref(&os, id, -5, &count), -ERR_RANGE);
	CHECK_EQ(stat_of(&os, id).refcount, 4);
	CHECK_EQ(os_obj_ref(&os, id, -4, &count), 0);
	CHECK_EQ(count, 0);
	CHECK_EQ(stat_of(&os, id).refcount, 0); /* still there: the caller deletes */
	CHECK_EQ(os_obj_ref(&os, id, INT32_MAX, &count), 0);
	CHECK_EQ(os_obj_ref(&os, id, INT32_MAX, &count), 0);
	CHECK_EQ(os_obj_ref(&os, id, 2, &count), -ERR_RANGE);
	CHECK_EQ(count, (uint32_t)INT32_MAX * 2);
	CHECK_EQ(os_obj_ref(&os, id, INT32_MIN, &count), 0);
	CHECK_EQ(os_obj_ref(&os, id, -INT32_MAX + 1, &count), 0);
	CHECK_EQ(count, 0);
	CHECK_EQ(os_obj_ref(&os, 0, 1, &count), -ERR_NOENT);
	CHECK_EQ(os_obj_ref(&os, id + 1, 1, &count), -ERR_NOENT);
	CHECK_EQ(os_tx_commit(&os), 0);
	/* A refcount of 0 left in the index is what the checker reports. */
	CHECK_EQ(check_heap(&os, "refcount 0", &seen, false), 1);
	CHECK_EQ(seen, 1);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_delete(&os, id), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

/* --- log full, heap full ---------------------------------------------------- */

/* leave_room -- fill the running transaction's log until `room` bytes are left */
static void leave_room(struct objstore *os, uint64_t room)
{
	while (os->log_size - os->log_tail > room) {
		uint64_t left = os->log_size - os->log_tail - room;
		uint64_t len = left >= PAGE ? PAGE - 32 : left - 32;

		/* the descriptors do not change: these records undo nothing */
		if (os_tx_log(os, os->desc, len) != 0)
			break;
	}
}

/* The objects the log-full rounds work on, and what they should hold. */
struct lf {
	struct objstore os;
	uint64_t blob, small, size;
	uint8_t *shadow;
};

/* lf_setup -- in a fresh transaction: a 40-page blob with pages 0..9 and
 * 20..39 written, and a small object */
static void lf_setup(struct lf *t)
{
	t->size = 40 * PAGE;
	memset(t->shadow, 0, t->size);
	pattern(t->shadow, 0, 10 * PAGE, 1);
	pattern(t->shadow + 20 * PAGE, 20 * PAGE, 20 * PAGE, 1);
	CHECK_EQ(os_tx_begin(&t->os), 0);
	CHECK_EQ(os_obj_create(&t->os, OS_TYPE_BLOB, t->size, &t->blob), 0);
	CHECK_EQ(os_obj_create(&t->os, OS_TYPE_THREAD, 200, &t->small), 0);
	CHECK(write_all(&t->os, t->blob, 0, t->shadow, 10 * PAGE));
	CHECK(write_all(&t->os, t->blob, 20 * PAGE, t->shadow + 20 * PAGE, 20 * PAGE));
	CHECK_EQ(os_tx_commit(&t->os), 0);
}

/* lf_teardown -- delete what is left, in fresh transactions */
static void lf_teardown(struct lf *t)
{
	uint64_t id;

	CHECK_EQ(os_tx_begin(&t->os), 0);
	while (os_obj_next(&t->os, 0, &id) == 0)
		CHECK_EQ(delete_or_renew(&t->os, id), 0);
	CHECK_EQ(os_tx_commit(&t->os), 0);
}

/* What a call did when the log or the heap ran short. */
enum outcome { DONE, REFUSED, PARTIAL, OUTCOMES };

/* outcome_of -- DONE for 0, REFUSED for `full`; anything else fails the check */
static enum outcome outcome_of(int err, int full)
{
	CHECK(err == 0 || err == full);
	return err ? REFUSED : DONE;
}

/* lf_write -- a write over existing and fresh pages; a short count keeps a prefix */
static enum outcome lf_write(struct lf *t)
{
	uint64_t off = 5 * PAGE + 100, len = 10 * PAGE;
	uint8_t *buf = malloc(len);
	int64_t n;

	pattern(buf, off, len, 77);
	n = os_obj_write(&t->os, t->blob, off, buf, len);
	CHECK(n == -ERR_NOSPC || (n > 0 && n <= (int64_t)len));
	if (n > 0)
		memcpy(t->shadow + off, buf, (size_t)n);
	free(buf);
	return n == (int64_t)len ? DONE : n > 0 ? PARTIAL : REFUSED;
}

/* lf_shrink -- shrink to 1.5 pages, or delete; cut short, the object keeps a
 * page-aligned prefix of what it held */
static enum outcome lf_shrink(struct lf *t, bool delete)
{
	int err = delete ? os_obj_delete(&t->os, t->blob)
			 : os_obj_resize(&t->os, t->blob, PAGE + PAGE / 2);
	uint64_t old = t->size;
	struct os_obj_info info;

	CHECK(err == 0 || err == -ERR_NOSPC);
	if (err == 0 && delete) {
		CHECK_EQ(os_obj_stat(&t->os, t->blob, &info), -ERR_NOENT);
		t->size = 0;
		return DONE;
	}
	info = stat_of(&t->os, t->blob);
	CHECK(info.size <= old);
	CHECK(err == -ERR_NOSPC || info.size == PAGE + PAGE / 2);
	CHECK(err == 0 || info.size % PAGE == 0 || info.size == old);
	t->size = info.size;
	return !err ? DONE : info.size < old ? PARTIAL : REFUSED;
}

/* lf_op -- call `op` with whatever room is left; check what it may have done */
static enum outcome lf_op(struct lf *t, int op)
{
	uint64_t id, pg, objects = object_count(&t->os);
	int err;

	switch (op) {
	case 0:
	case 1:
		err = os_obj_create(&t->os, op ? OS_TYPE_BLOB : OS_TYPE_THREAD, 500, &id);
		CHECK_EQ(object_count(&t->os), objects + (err == 0));
		return outcome_of(err, -ERR_NOSPC);
	case 2:
		return lf_write(t);
	case 3:
		err = os_obj_resize(&t->os, t->blob, 1ull << 40);
		if (!err)
			t->size = 1ull << 40;
		return outcome_of(err, -ERR_NOSPC);
	case 4:
	case 5:
		return lf_shrink(t, op == 5);
	case 6:
		return outcome_of(os_obj_delete(&t->os, t->small), -ERR_NOSPC);
	case 7:
		return outcome_of(os_obj_page(&t->os, t->blob, 15, true, &pg), -ERR_NOSPC);
	default:
		return outcome_of(os_obj_ref(&t->os, t->blob, 1, NULL), -ERR_NOSPC);
	}
}

CHECK_TEST(log_full_mid_operation_leaves_a_consistent_heap)
{
	struct lf t;
	struct os_create_opts opts = { .log_size = 64 << 10 };
	void *base = test_heap_new(HEAP);
	uint64_t before;
	unsigned failures = 0, done = 0;

	t.shadow = malloc(1 << 20);
	CHECK_EQ(os_create(&t.os, base, HEAP, host_platform(), &opts), 0);
	before = pages_free(&t.os);
	for (int op = 0; op < 9 && failures < 3; op++) {
		unsigned seen[OUTCOMES] = { 0 };

		for (uint64_t room = 0; room <= 60 << 10 && failures < 3; room += 64) {
			lf_setup(&t);
			CHECK_EQ(os_tx_begin(&t.os), 0);
			leave_room(&t.os, room);
			seen[lf_op(&t, op)]++;
			CHECK_EQ(os_tx_commit(&t.os), 0);
			if (problems(&t.os) != 0 ||
			    (t.size && t.size <= (1 << 20) && !same_as(&t.os, t.blob, t.shadow, t.size))) {
				printf("    op %d with %llu bytes of log left\n", op,
				       (unsigned long long)room);
				failures++;
			}
			done++;
			lf_teardown(&t);
		}
		/* each call failed cleanly, succeeded, and (if split) stopped part way */
		CHECK(seen[DONE] > 0);
		CHECK(seen[REFUSED] > 0);
		CHECK(seen[PARTIAL] > 0 || (op != 2 && op != 4 && op != 5));
	}
	CHECK_EQ(failures, 0);
	CHECK(done > 5000);
	CHECK_EQ(pages_free(&t.os), before);
	/* A shrink or delete cut short, called again after a commit, finishes. */
	lf_setup(&t);
	CHECK_EQ(os_tx_begin(&t.os), 0);
	leave_room(&t.os, 12 << 10);
	CHECK_EQ(os_obj_delete(&t.os, t.blob), -ERR_NOSPC);
	CHECK(stat_of(&t.os, t.blob).size < 40 * PAGE);
	CHECK_EQ(delete_or_renew(&t.os, t.blob), 0);
	CHECK_EQ(os_tx_commit(&t.os), 0);
	CHECK_EQ(problems(&t.os), 0);
	lf_teardown(&t);
	CHECK_EQ(pages_free(&t.os), before);
	free(t.shadow);
	free(base);
}

/* The objects the heap-full rounds work on. */
struct hf {
	struct objstore os;
	uint64_t filler, fill_pages;   /* a blob holding the rest of the heap */
	uint64_t w, g, p;              /* write, grow and page targets */
	uint8_t w_shadow[8 * PAGE];
};

/* hf_setup -- the targets, then a filler blob written until the heap is full */
static void hf_setup(struct hf *t)
{
	uint8_t page[PAGE];
	uint64_t id;
	int err;

	memset(t->w_shadow, 0, sizeof(t->w_shadow));
	pattern(t->w_shadow, 0, PAGE, 5);
	pattern(t->w_shadow + 2 * PAGE, 2 * PAGE, PAGE, 5);
	CHECK_EQ(os_tx_begin(&t->os), 0);
	CHECK_EQ(os_obj_create(&t->os, OS_TYPE_BLOB, 8 * PAGE, &t->w), 0);
	CHECK_EQ(os_obj_write(&t->os, t->w, 0, t->w_shadow, PAGE), PAGE);
	CHECK_EQ(os_obj_write(&t->os, t->w, 2 * PAGE, t->w_shadow + 2 * PAGE, PAGE), PAGE);
	CHECK_EQ(os_obj_create(&t->os, OS_TYPE_BLOB, PAGE, &t->g), 0);
	CHECK_EQ(os_obj_write(&t->os, t->g, 0, t->w_shadow, 10), 10);
	CHECK_EQ(os_obj_create(&t->os, OS_TYPE_CODE, (1ull << 30) + 1, &t->p), 0);
	CHECK_EQ(os_obj_create(&t->os, OS_TYPE_BLOB, HEAP, &t->filler), 0);
	memset(page, 0xaa, sizeof(page));
	for (t->fill_pages = 0;; t->fill_pages++) {
		err = (int)os_obj_write(&t->os, t->filler, t->fill_pages * PAGE, page, PAGE);
		if (err == -ERR_NOSPC)
			renew(&t->os), err = (int)os_obj_write(&t->os, t->filler, t->fill_pages * PAGE, page, PAGE);
		if (err != PAGE)
			break;
	}
	CHECK_EQ(err, -ERR_NOMEM);
	CHECK_EQ(os_obj_resize(&t->os, t->filler, t->fill_pages * PAGE), 0);
	/* Sand: small objects until no slab has room for one more. */
	while ((err = create_or_renew(&t->os, OS_TYPE_THREAD, 64, &id)) == 0)
		;
	CHECK_EQ(err, -ERR_NOMEM);
	CHECK_EQ(os_tx_commit(&t->os), 0);
	CHECK(pages_free(&t->os) <= 1); /* a page and its index page may not both have fit */
}

/* hf_op -- one call on a nearly full heap; what it took is given back by hf_restore */
static enum outcome hf_op(struct hf *t, int op)
{
	uint64_t id, pg, len = 6 * PAGE;
	uint8_t buf[6 * PAGE];
	int64_t n;
	int err;

	switch (op) {
	case 0:
	case 1:
		err = os_obj_create(&t->os, op ? OS_TYPE_CHANNEL : OS_TYPE_ASPACE, op ? 2000 : 64, &id);
		if (!err)
			CHECK_EQ(os_obj_delete(&t->os, id), 0);
		return outcome_of(err, -ERR_NOMEM);
	case 2:
		pattern(buf, 0, len, 6);
		n = os_obj_write(&t->os, t->w, 0, buf, len);
		CHECK(n >= (int64_t)PAGE && n <= (int64_t)len); /* page 0 needs no page */
		if (n > 0)
			memcpy(t->w_shadow, buf, (size_t)n);
		return n == (int64_t)len ? DONE : PARTIAL;
	case 3:
		err = os_obj_resize(&t->os, t->g, (1ull << 30) + 1);
		CHECK_EQ(stat_of(&t->os, t->g).size, err ? PAGE : (1ull << 30) + 1);
		return outcome_of(err, -ERR_NOMEM);
	default:
		return outcome_of(os_obj_page(&t->os, t->p, 1u << 18, true, &pg), -ERR_NOMEM);
	}
}

/* hf_restore -- give back what hf_op took (the writes stay, in w_shadow) */
static void hf_restore(struct hf *t)
{
	CHECK_EQ(os_tx_begin(&t->os), 0);
	CHECK_EQ(os_obj_resize(&t->os, t->g, PAGE), 0);
	CHECK_EQ(os_obj_resize(&t->os, t->p, 0), 0);
	CHECK_EQ(os_obj_resize(&t->os, t->p, (1ull << 30) + 1), 0);
	CHECK_EQ(os_tx_commit(&t->os), 0);
}

CHECK_TEST(heap_full_mid_operation_leaves_a_consistent_heap)
{
	static struct hf t;
	void *base = test_create(&t.os, HEAP);
	unsigned failures = 0;

	unsigned seen[5][OUTCOMES] = { { 0 } };

	hf_setup(&t);
	CHECK_EQ(problems(&t.os), 0);
	for (int k = 0; k < 10 && failures < 3; k++) {
		for (int op = 0; op < 5; op++) {
			uint64_t free_before = pages_free(&t.os);

			CHECK_EQ(os_tx_begin(&t.os), 0);
			seen[op][hf_op(&t, op)]++;
			CHECK_EQ(os_tx_commit(&t.os), 0);
			if (problems(&t.os) != 0 || !same_as(&t.os, t.w, t.w_shadow, 8 * PAGE)) {
				printf("    op %d with %llu pages free\n", op,
				       (unsigned long long)free_before);
				failures++;
			}
			hf_restore(&t);
		}
		/* give back one more page of the filler */
		CHECK_EQ(os_tx_begin(&t.os), 0);
		CHECK_EQ(os_obj_resize(&t.os, t.filler, --t.fill_pages * PAGE), 0);
		CHECK_EQ(os_tx_commit(&t.os), 0);
	}
	CHECK_EQ(failures, 0);
	for (int op = 0; op < 5; op++) {
		CHECK(seen[op][DONE] > 0);
		CHECK(seen[op][op == 2 ? PARTIAL : REFUSED] > 0);
	}
	/* With room again, the write finishes. */
	CHECK_EQ(os_tx_begin(&t.os), 0);
	CHECK_EQ(os_obj_delete(&t.os, t.filler), 0);
	pattern(t.w_shadow, 0, 8 * PAGE, 6);
	CHECK(write_all(&t.os, t.w, 0, t.w_shadow, 8 * PAGE));
	CHECK_EQ(os_tx_commit(&t.os), 0);
	CHECK(same_as(&t.os, t.w, t.w_shadow, 8 * PAGE));
	CHECK_EQ(problems(&t.os), 0);
	free(base);
}

/* --- damage ----------------------------------------------------------------- */

CHECK_TEST(wrong_ids_and_corrupt_headers_are_refused)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t id, small, pg;
	struct os_obj_info info;
	struct os_obj_header *h;
	char buf[16];
	unsigned seen;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 3 * PAGE, &id), 0);
	CHECK_EQ(os_obj_write(&os, id, 0, "data", 4), 4);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_THREAD, 64, &small), 0);
	CHECK_EQ(os_tx_commit(&os), 0);

	for (uint64_t bad = 0; bad < 4; bad++) {
		uint64_t wrong = bad == 0 ? 0 : bad == 1 ? 3 : bad == 2 ? UINT64_MAX : 1ull << 40;

		CHECK_EQ(os_obj_stat(&os, wrong, &info), -ERR_NOENT);
		CHECK_EQ(os_obj_read(&os, wrong, 0, buf, 4), -ERR_NOENT);
		CHECK_EQ(os_obj_page(&os, wrong, 0, false, &pg), -ERR_NOENT);
		CHECK(os_obj_data(&os, wrong) == NULL);
		CHECK_EQ(os_tx_begin(&os), 0);
		CHECK_EQ(os_obj_write(&os, wrong, 0, buf, 4), -ERR_NOENT);
		CHECK_EQ(os_obj_delete(&os, wrong), -ERR_NOENT);
		CHECK_EQ(os_obj_resize(&os, wrong, 0), -ERR_NOENT);
		CHECK_EQ(os_obj_ref(&os, wrong, 1, NULL), -ERR_NOENT);
		CHECK_EQ(os_tx_commit(&os), 0);
	}

	/* One flipped bit: every call refuses the header, the checker names it. */
	h = header_of(&os, id);
	h->size ^= 1ull << 33;
	CHECK_EQ(os_obj_stat(&os, id, &info), -ERR_CORRUPT);
	CHECK_EQ(os_obj_read(&os, id, 0, buf, 4), -ERR_CORRUPT);
	CHECK_EQ(os_obj_page(&os, id, 0, false, &pg), -ERR_CORRUPT);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_write(&os, id, 0, buf, 4), -ERR_CORRUPT);
	CHECK_EQ(os_obj_resize(&os, id, 0), -ERR_CORRUPT);
	CHECK_EQ(os_obj_delete(&os, id), -ERR_CORRUPT);
	CHECK_EQ(os_obj_ref(&os, id, 1, NULL), -ERR_CORRUPT);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK(check_heap(&os, "object #1: header crc", &seen, true) >= 1);
	CHECK_EQ(seen, 1);
	h->size ^= 1ull << 33;
	CHECK_EQ(os_obj_stat(&os, id, &info), 0);

	/* A small object's header, and one whose data offset is wild. */
	h = header_of(&os, small);
	h->data += 8;
	CHECK_EQ(os_obj_stat(&os, small, &info), -ERR_CORRUPT);
	reseal(h);
	CHECK_EQ(os_obj_stat(&os, small, &info), -ERR_CORRUPT); /* misaligned block */
	CHECK(os_obj_data(&os, small) == NULL);
	h->data -= 8;
	reseal(h);
	CHECK(os_obj_data(&os, small) != NULL);

	/* A wild index page offset is refused, not followed. */
	h = header_of(&os, id);
	h->data += 4;
	reseal(h);
	CHECK_EQ(os_obj_stat(&os, id, &info), -ERR_CORRUPT);
	h->data -= 4;
	reseal(h);
	os.root->index_root = 12345;
	CHECK_EQ(os_obj_stat(&os, id, &info), -ERR_CORRUPT);
	CHECK_EQ(os_obj_next(&os, 0, &pg), -ERR_CORRUPT);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 1, &pg), -ERR_CORRUPT);
	CHECK_EQ(os_tx_abort(&os), 0);
	free(base);
}

/* damage -- one kind of damage to a committed heap with a 3-page blob (pages 0..2) and a small object */
static void damage(struct objstore *os, int kind, uint64_t blob, uint64_t small)
{
	struct os_obj_header *h = header_of(os, kind == 4 ? small : blob);
	uint64_t top = h->data;
	struct os_page_desc *d = &os->desc[(top - os->sb->data_offset) / PAGE];

	switch (kind) {
	case 0: h->refcount ^= 4; return;                         /* crc */
	case 1: h->reserved3 = 1; break;                          /* reserved */
	case 2: h->id = 99; break;                                /* wrong id */
	case 3: h->size = 2 * PAGE; break;                        /* a page past the size */
	case 4: h->size = 2000; break;                            /* a block too small */
	case 5: h->depth = 2; break;                              /* depth */
	case 6: d->used++; d->crc = os_desc_crc(d); return;      /* count */
	case 7: os->root->object_count++; break;                  /* count */
	case 8: ((uint64_t *)os_ptr(os, top))[1] = top + 64; return; /* wild entry */
	case 9: ((uint64_t *)os_ptr(os, top))[1] = top; return;   /* a cycle */
	default: h->type = 0; break;                              /* type */
	}
	reseal(h);
	os->root->crc = crc32c(0, os->root, offsetof(struct os_root, crc));
}

CHECK_TEST(checker_names_each_kind_of_damage)
{
	const char *want[] = { "header crc", "reserved fields", "says id",
			       "past the object's 2 pages", "is not a block", "need depth",
			       "descriptor counts", "object count 3", "not a data page",
			       "already used by", "unknown type" };
	uint64_t blob, small;
	uint8_t data[3 * PAGE];

	pattern(data, 0, sizeof(data), 4);
	for (int kind = 0; kind < 11; kind++) {
		struct objstore os;
		void *base = test_create(&os, HEAP);
		unsigned seen = 0;
		uint64_t found;

		CHECK_EQ(os_tx_begin(&os), 0);
		CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, sizeof(data), &blob), 0);
		CHECK_EQ(os_obj_write(&os, blob, 0, data, sizeof(data)), sizeof(data));
		CHECK_EQ(os_obj_create(&os, OS_TYPE_CHANNEL, 200, &small), 0);
		CHECK_EQ(os_tx_commit(&os), 0);
		CHECK_EQ(problems(&os), 0);
		damage(&os, kind, blob, small);
		found = check_heap(&os, want[kind], &seen, true);
		if (!seen || !found)
			printf("    damage %d: no \"%s\" among %llu problems\n", kind,
			       want[kind], (unsigned long long)found);
		CHECK(found >= 1);
		CHECK(seen >= 1);
		free(base);
	}
}

CHECK_TEST(check_object_exists_looks_ids_up_read_only)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_checker ck;
	uint64_t a, b, c;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 10, &a), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_THREAD, 10, &b), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_THREAD, 10, &c), 0);
	CHECK_EQ(os_obj_delete(&os, b), 0);
	CHECK_EQ(os_obj_ref(&os, c, -1, NULL), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	memset(&ck, 0, sizeof(ck));
	ck.base = base;
	ck.size = HEAP;
	ck.sb = os.sb;
	ck.root = os.root;
	ck.desc = os.desc;
	CHECK(os_check_object_exists(&ck, a));
	CHECK(!os_check_object_exists(&ck, b)); /* deleted */
	CHECK(!os_check_object_exists(&ck, c)); /* refcount 0 */
	CHECK(!os_check_object_exists(&ck, 0));
	CHECK(!os_check_object_exists(&ck, 4));
	CHECK(!os_check_object_exists(&ck, UINT64_MAX));
	header_of(&os, a)->refcount++;
	CHECK(!os_check_object_exists(&ck, a)); /* bad crc */
	free(base);
}

CHECK_TEST(app_roots_name_live_objects)
{
	struct objstore os, again;
	void *base = test_create(&os, HEAP);
	uint64_t k, gone, dying;
	unsigned seen;

	CHECK_EQ(os_app_root(&os, OS_APP_ROOT_KERNEL), 0);
	CHECK_EQ(os_app_root(&os, OS_APP_ROOTS), 0);
	CHECK_EQ(os_app_root_set(&os, 0, 0), -ERR_INVAL); /* outside a transaction */

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_KERNEL, 512, &k), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_HANDLES, 64, &gone), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_ANON, 3 * PAGE, &dying), 0);
	CHECK_EQ(os_obj_delete(&os, gone), 0);
	CHECK_EQ(os_obj_ref(&os, dying, -1, NULL), 0);
	CHECK_EQ(os_app_root_set(&os, OS_APP_ROOTS, k), -ERR_RANGE);
	CHECK_EQ(os_app_root_set(&os, 1, gone), -ERR_NOENT);
	CHECK_EQ(os_app_root_set(&os, 1, dying), -ERR_NOENT); /* refcount 0 */
	CHECK_EQ(os_app_root_set(&os, 1, 12345), -ERR_NOENT);
	CHECK_EQ(os_app_root(&os, 1), 0);
	CHECK_EQ(os_app_root_set(&os, OS_APP_ROOT_KERNEL, k), 0);
	CHECK_EQ(os_app_root_set(&os, OS_APP_ROOTS - 1, k), 0);
	CHECK_EQ(os_obj_delete(&os, dying), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);

	/* Durable, and rolled back like every root-block change. */
	CHECK_EQ(os_open(&again, base, HEAP, host_platform()), 0);
	CHECK_EQ(os_app_root(&again, OS_APP_ROOT_KERNEL), k);
	CHECK_EQ(os_app_root(&again, OS_APP_ROOTS - 1), k);
	CHECK_EQ(os_tx_begin(&again), 0);
	CHECK_EQ(os_app_root_set(&again, OS_APP_ROOT_KERNEL, 0), 0);
	CHECK_EQ(os_app_root(&again, OS_APP_ROOT_KERNEL), 0);
	CHECK_EQ(os_tx_abort(&again), 0);
	CHECK_EQ(os_app_root(&again, OS_APP_ROOT_KERNEL), k);
	CHECK_EQ(os_tx_begin(&again), 0);
	CHECK_EQ(os_app_root_set(&again, OS_APP_ROOTS - 1, 0), 0);
	CHECK_EQ(os_tx_commit(&again), 0);
	CHECK_EQ(os_app_root(&again, OS_APP_ROOTS - 1), 0);
	CHECK_EQ(problems(&again), 0);

	/* Deleting the object an app root names: the checker says so. */
	CHECK_EQ(os_tx_begin(&again), 0);
	CHECK_EQ(os_obj_delete(&again, k), 0);
	CHECK_EQ(os_tx_commit(&again), 0);
	CHECK_EQ(check_heap(&again, "app root 0 names object", &seen, false), 1);
	CHECK_EQ(seen, 1);
	free(base);
}

/* --- what a transaction may write, and who owns a byte -------------------- */

CHECK_TEST(every_changed_byte_lies_in_a_range_of_the_transaction)
{
	uint64_t size = 603 * PAGE, blob, small;
	uint8_t *shadow = malloc(size), *before = malloc(HEAP);

	for (int op = 0; op < OP_COUNT; op++) {
		struct objstore os;
		void *base = undo_fixture(&os, &blob, &small, shadow, size);

		CHECK_EQ(test_unlogged_changes(&os, before), UINT64_MAX); /* no transaction */
		memcpy(before, base, HEAP);
		CHECK_EQ(os_tx_begin(&os), 0);
		run_op(&os, op, blob, small);
		if (test_unlogged_changes(&os, before))
			printf("    op %d changed bytes it did not log\n", op);
		CHECK_EQ(test_unlogged_changes(&os, before), 0);
		CHECK_EQ(os_tx_commit(&os), 0);
		free(base);
	}
	free(before);
	free(shadow);
}

CHECK_TEST(owner_names_the_object_holding_a_byte)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_obj_where w;
	struct os_obj_header *h;
	uint64_t code, proc, pg, top;

	CHECK_EQ(os_obj_owner(&os, os.sb->root_offset, &w), -ERR_NOENT); /* no object yet */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_CODE, 600 * PAGE, &code), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_PROCESS, 100, &proc), 0);
	CHECK_EQ(os_obj_page(&os, code, 513, true, &pg), 0);
	CHECK_EQ(os_tx_commit(&os), 0);

	h = header_of(&os, code);
	CHECK_EQ(os_obj_owner(&os, os_off(&os, h) + 8, &w), 0);
	CHECK_EQ(w.id, code);
	CHECK_EQ(w.type, OS_TYPE_CODE);
	CHECK_EQ(w.part, OS_PART_HEADER);
	CHECK_EQ(w.offset, 8);
	CHECK_EQ(os_obj_owner(&os, pg + 7, &w), 0);
	CHECK_EQ(w.id, code);
	CHECK_EQ(w.part, OS_PART_DATA);
	CHECK_EQ(w.offset, 513 * PAGE + 7);
	top = h->data;                 /* depth 2: the top index page */
	CHECK_EQ(os_obj_owner(&os, top + 16, &w), 0);
	CHECK_EQ(w.part, OS_PART_INDEX);
	CHECK_EQ(w.offset, 16);
	CHECK_EQ(os_obj_owner(&os, os_off(&os, os_obj_data(&os, proc)) + 99, &w), 0);
	CHECK_EQ(w.id, proc);
	CHECK_EQ(w.type, OS_TYPE_PROCESS);
	CHECK_EQ(w.part, OS_PART_DATA);
	CHECK_EQ(w.offset, 99);
	/* Neither the root block nor the id index belongs to an object. */
	CHECK_EQ(os_obj_owner(&os, os.sb->root_offset, &w), -ERR_NOENT);
	CHECK_EQ(os_obj_owner(&os, os.root->index_root, &w), -ERR_NOENT);
	CHECK_STR_EQ(os_obj_type_name(OS_TYPE_PROCESS), "process");
	CHECK_STR_EQ(os_obj_type_name(0), "?");
	CHECK_STR_EQ(os_obj_type_name(OS_TYPE_MAX + 1), "?");
	free(base);
}

/* move_one -- write `text` into a new page and move page `index` of id there */
static uint64_t move_one(struct objstore *os, uint64_t id, uint64_t index,
			 const char *text)
{
	uint64_t to;

	CHECK_EQ(os_alloc(os, PAGE, &to), 0);
	memset(os_ptr(os, to), 0, PAGE);
	memcpy(os_ptr(os, to), text, strlen(text));
	CHECK_EQ(os_obj_page_move(os, id, index, to), 0);
	return to;
}

CHECK_TEST(obj_page_move_relinks_and_rolls_back)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t one, deep, old_one, old_deep, to, pg, before;
	char buf[8];

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 100, &one), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_ANON, 600 * PAGE, &deep), 0);
	CHECK_EQ(os_obj_write(&os, one, 0, "first", 5), 5);
	CHECK_EQ(os_obj_write(&os, deep, 513 * PAGE, "deeper", 6), 6);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_obj_page(&os, one, 0, false, &old_one), 0);
	CHECK_EQ(os_obj_page(&os, deep, 513, false, &old_deep), 0);
	before = pages_free(&os);

	/* Moved, then rolled back: the old pages and bytes are back. */
	CHECK_EQ(os_tx_begin(&os), 0);
	move_one(&os, one, 0, "second");
	move_one(&os, deep, 513, "moved!");
	CHECK_EQ(os_obj_read(&os, deep, 513 * PAGE, buf, 6), 6);
	CHECK_EQ(memcmp(buf, "moved!", 6), 0);
	CHECK_EQ(pages_free(&os), before);
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK_EQ(os_obj_page(&os, one, 0, false, &pg), 0);
	CHECK_EQ(pg, old_one);
	CHECK_EQ(os_obj_read(&os, one, 0, buf, 5), 5);
	CHECK_EQ(memcmp(buf, "first", 5), 0);
	CHECK_EQ(pages_free(&os), before);
	CHECK_EQ(problems(&os), 0);

	/* Moved and committed: the new pages hold the object, the old are free. */
	CHECK_EQ(os_tx_begin(&os), 0);
	to = move_one(&os, one, 0, "second");
	move_one(&os, deep, 513, "moved!");
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_obj_page(&os, one, 0, false, &pg), 0);
	CHECK_EQ(pg, to);
	CHECK_EQ(os_obj_read(&os, one, 0, buf, 6), 6);
	CHECK_EQ(memcmp(buf, "second", 6), 0);
	CHECK_EQ(os_obj_read(&os, deep, 513 * PAGE, buf, 6), 6);
	CHECK_EQ(memcmp(buf, "moved!", 6), 0);
	CHECK_EQ(pages_free(&os), before);
	CHECK_EQ(problems(&os), 0);

	/* Refused: a missing page, past the end, a page that is no whole
	 * page, the page itself, outside a transaction. */
	CHECK_EQ(os_obj_page_move(&os, one, 0, to), -ERR_INVAL);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_alloc(&os, PAGE, &to), 0);
	CHECK_EQ(os_obj_page_move(&os, deep, 7, to), -ERR_NOENT);
	CHECK_EQ(os_obj_page_move(&os, deep, 600, to), -ERR_RANGE);
	CHECK_EQ(os_obj_page_move(&os, deep, 513, to + 64), -ERR_INVAL);
	CHECK_EQ(os_obj_page(&os, deep, 513, false, &pg), 0);
	CHECK_EQ(os_obj_page_move(&os, deep, 513, pg), -ERR_INVAL);
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

CHECK_TEST(obj_page_held_gives_the_page_and_its_bytes_in_one_walk)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t paged, small, pg, want, held;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_ANON, 600 * PAGE + 100, &paged), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_CATALOGUE, 100, &small), 0);
	CHECK_EQ(os_obj_write(&os, paged, 513 * PAGE, "x", 1), 1);
	CHECK_EQ(os_obj_write(&os, paged, 600 * PAGE, "y", 1), 1);
	CHECK_EQ(os_tx_commit(&os), 0);

	/* A whole page, the last page cut short, a missing page. */
	CHECK_EQ(os_obj_page(&os, paged, 513, false, &want), 0);
	CHECK_EQ(os_obj_page_held(&os, paged, 513, &pg, &held), 0);
	CHECK_EQ(pg, want);
	CHECK_EQ(held, PAGE);
	CHECK_EQ(os_obj_page(&os, paged, 600, false, &want), 0);
	CHECK_EQ(os_obj_page_held(&os, paged, 600, &pg, &held), 0);
	CHECK_EQ(pg, want);
	CHECK_EQ(held, 100);
	CHECK_EQ(os_obj_page_held(&os, paged, 7, &pg, &held), 0);
	CHECK_EQ(pg, 0);
	CHECK_EQ(held, PAGE);

	/* Refused: past the end, a small object, no such object. */
	CHECK_EQ(os_obj_page_held(&os, paged, 601, &pg, &held), -ERR_RANGE);
	CHECK_EQ(os_obj_page_held(&os, small, 0, &pg, &held), -ERR_NOTSUP);
	CHECK_EQ(os_obj_page_held(&os, paged + small + 1000, 0, &pg, &held), -ERR_NOENT);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

int main(void)
{
	return check_run_all();
}
