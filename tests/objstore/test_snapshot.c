/*
 * test_snapshot.c -- whole-heap snapshots (objstore/snapshot*.c): taking,
 * capture, restore to any snapshot and back, removal and reclaim, a full
 * area, and damaged snapshot metadata. Every state is compared by a digest
 * of what a reader sees (every name, its object's bytes) and checked with
 * os_check, which verifies the area as well.
 */
#include <stdio.h>

#include "os_test.h"

#include "internal.h"
#include "snapshot_internal.h"
#include "objstore/catalogue.h"
#include "objstore/check.h"
#include "objstore/object.h"

#define HEAP (16u << 20)

/* --- helpers --------------------------------------------------------- */

/* print_problem -- os_check's report: each problem printed, unless quiet */
static void print_problem(void *ctx, const char *message)
{
	if (!ctx)
		printf("    os_check: %s\n", message);
}

/* problems -- what os_check finds (printed unless `quiet`) */
static uint64_t check_problems(const struct objstore *os, bool quiet)
{
	struct os_check_report rep = { .problem = print_problem, .ctx = quiet ? (void *)1 : NULL };
	void *scratch = malloc(os_check_scratch_size(os->size));
	uint64_t count = os_check(os->base, os->size, scratch, &rep);

	free(scratch);
	return count;
}

static uint64_t problems(const struct objstore *os)
{
	return check_problems(os, false);
}

/* fnv -- FNV-1a over bytes, continuing from h */
static uint64_t fnv(uint64_t h, const void *p, uint64_t len)
{
	const uint8_t *b = p;

	for (uint64_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* digest -- every name and its object's bytes, as a reader sees them */
static uint64_t digest(const struct objstore *os)
{
	struct os_cat_cursor c;
	uint64_t h = 0xcbf29ce484222325ull, id;
	static uint8_t buf[1 << 16];

	os_cat_cursor_init(&c, "", 0);
	while (os_cat_next(os, &c, "", 0, &id) == 0) {
		struct os_obj_info info;

		h = fnv(h, c.name, c.len);
		CHECK_EQ(os_obj_stat(os, id, &info), 0);
		h = fnv(h, &info.size, sizeof(info.size));
		for (uint64_t off = 0; off < info.size; off += sizeof(buf)) {
			uint64_t n = info.size - off < sizeof(buf) ? info.size - off : sizeof(buf);

			CHECK_EQ(os_obj_read(os, id, off, buf, n), (int64_t)n);
			h = fnv(h, buf, n);
		}
	}
	return h;
}

/* put -- bind `name` to a blob of `size` bytes made from `seed` */
static void put(struct objstore *os, const char *name, uint64_t size, uint32_t seed)
{
	static uint8_t buf[1 << 16];
	uint64_t id, old;

	CHECK_EQ(os_tx_begin(os), 0);
	if (os_cat_remove(os, name, strlen(name), &old) == 0)
		CHECK_EQ(os_obj_delete(os, old), 0);
	CHECK_EQ(os_obj_create(os, OS_TYPE_BLOB, size, &id), 0);
	for (uint64_t off = 0; off < size; off += sizeof(buf)) {
		uint64_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);

		for (uint64_t i = 0; i < n; i++)
			buf[i] = (uint8_t)(seed * 131 + (off + i) * 7 + (off + i) / 4096);
		CHECK_EQ(os_obj_write(os, id, off, buf, n), (int64_t)n);
	}
	CHECK_EQ(os_cat_insert(os, name, strlen(name), id), 0);
	CHECK_EQ(os_tx_commit(os), 0);
}

/* scribble -- overwrite `len` bytes of `name` at `off` in place */
static void scribble(struct objstore *os, const char *name, uint64_t off, uint64_t len,
		     uint8_t value)
{
	uint8_t buf[8192];
	uint64_t id;

	memset(buf, value, sizeof(buf));
	CHECK_EQ(os_cat_lookup(os, name, strlen(name), &id), 0);
	CHECK_EQ(os_tx_begin(os), 0);
	CHECK_EQ(os_obj_write(os, id, off, buf, len), (int64_t)len);
	CHECK_EQ(os_tx_commit(os), 0);
}

/* drop -- remove `name` and its object */
static void drop(struct objstore *os, const char *name)
{
	uint64_t id;

	CHECK_EQ(os_tx_begin(os), 0);
	CHECK_EQ(os_cat_remove(os, name, strlen(name), &id), 0);
	CHECK_EQ(os_obj_delete(os, id), 0);
	CHECK_EQ(os_tx_commit(os), 0);
}

/* take -- a snapshot in a transaction of its own */
static int take(struct objstore *os, const char *name)
{
	int err;

	CHECK_EQ(os_tx_begin(os), 0);
	err = os_snap_take(os, name, 1234, 0);
	CHECK_EQ(os_tx_commit(os), 0);
	return err;
}

/* remove_snapshot -- os_snap_rm, then reclaim until done */
static int remove_snapshot(struct objstore *os, const char *name)
{
	int err, more;

	CHECK_EQ(os_tx_begin(os), 0);
	err = os_snap_rm(os, name);
	do {
		more = os_snap_reclaim(os);
		CHECK(more >= 0);
		CHECK_EQ(os_tx_commit(os), 0);
		CHECK_EQ(os_tx_begin(os), 0);
	} while (more == 1);
	CHECK_EQ(os_tx_commit(os), 0);
	return err;
}

static uint64_t area_free(const struct objstore *os)
{
	struct os_snap_usage u;

	os_snap_usage(os, &u);
	return u.free_pages;
}

static uint64_t area_dropped(const struct objstore *os)
{
	struct os_snap_usage u;

	os_snap_usage(os, &u);
	return u.dropped;
}

static uint64_t heap_free(const struct objstore *os)
{
	struct os_stats st;

	os_stats(os, &st);
	return st.pages_free;
}

/* --- tests ----------------------------------------------------------- */

CHECK_TEST(a_new_heap_has_an_empty_area)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_snap_usage u;
	struct os_snap_info info[4];

	CHECK(os_snap_available(&os));
	os_snap_usage(&os, &u);
	CHECK_EQ(u.snapshots, 0);
	CHECK_EQ(u.free_pages, u.data_pages);
	CHECK(u.data_pages > (HEAP / 8) / 4096 * 9 / 10);
	CHECK_EQ(os_snap_list(&os, info, 4), 0);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

CHECK_TEST(restore_gives_back_the_state_taken_and_keeps_the_one_replaced)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t at_snapshot, changed, free_at_snapshot;

	put(&os, "a", 10000, 1);
	put(&os, "b", 300, 2);
	put(&os, "c", 70000, 3);
	at_snapshot = digest(&os);
	free_at_snapshot = heap_free(&os);
	CHECK_EQ(take(&os, "s1"), 0);
	CHECK_EQ(take(&os, "s1"), -ERR_EXIST);
	CHECK_EQ(problems(&os), 0);

	scribble(&os, "a", 4000, 200, 0xaa);
	drop(&os, "b");
	put(&os, "d", 5000, 4);
	put(&os, "c", 100, 5);     /* replaced: the old object and its pages freed */
	changed = digest(&os);
	CHECK(changed != at_snapshot);
	CHECK_EQ(problems(&os), 0);

	CHECK_EQ(os_snap_restore(&os, "s1", "before-s1-1", 99), 0);
	CHECK_EQ(problems(&os), 0);
	CHECK_EQ(digest(&os), at_snapshot);
	CHECK_EQ(heap_free(&os), free_at_snapshot);
	CHECK(os_snap_find(&os, "s1") >= 0);
	CHECK(os_snap_find(&os, "before-s1-1") >= 0);

	/* Read without restoring: a copy of the heap with the lists over it. */
	{
		uint8_t *copy = test_heap_new(HEAP);
		struct objstore view;

		memcpy(copy, base, HEAP);
		CHECK_EQ(os_snap_materialize(&os, "before-s1-1", copy), 0);
		CHECK_EQ(os_open(&view, copy, HEAP, host_platform()), 0);
		CHECK_EQ(digest(&view), changed);
		CHECK_EQ(problems(&view), 0);
		CHECK_EQ(os_snap_materialize(&os, "nosuch", copy), -ERR_NOENT);
		free(copy);
	}

	/* The replaced state is a snapshot like any other. */
	CHECK_EQ(os_snap_restore(&os, "before-s1-1", "before-before-1", 100), 0);
	CHECK_EQ(digest(&os), changed);
	CHECK_EQ(problems(&os), 0);
	CHECK_EQ(os_snap_restore(&os, "s1", "before-s1-2", 101), 0);
	CHECK_EQ(digest(&os), at_snapshot);
	CHECK_EQ(problems(&os), 0);

	/* The heap opens again as it is. */
	CHECK_EQ(os_open(&os, base, HEAP, host_platform()), 0);
	CHECK_EQ(digest(&os), at_snapshot);
	free(base);
}

CHECK_TEST(restore_refuses_what_it_cannot_do)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);

	CHECK_EQ(os_snap_restore(&os, "nosuch", "b", 0), -ERR_NOENT);
	put(&os, "a", 100, 1);
	CHECK_EQ(take(&os, "s"), 0);
	CHECK_EQ(take(&os, "t"), 0);
	CHECK_EQ(os_snap_restore(&os, "s", "t", 0), -ERR_EXIST);
	CHECK_EQ(os_snap_restore(&os, "s", "bad name", 0), -ERR_INVAL);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_snap_restore(&os, "s", "b", 0), -ERR_BUSY);
	CHECK_EQ(os_snap_take(&os, "", 0, 0), -ERR_INVAL);
	CHECK_EQ(os_snap_take(&os, "0123456789012345678901234567890123456789", 0, 0),
		 -ERR_INVAL);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

/* any_named -- a random index whose name is set, -1 if none */
static int any_named(char names[][OS_SNAP_NAME_MAX + 1], uint64_t *rng)
{
	unsigned set[OS_SNAP_NODES], n = 0;

	for (unsigned i = 0; i < OS_SNAP_NODES; i++)
		if (names[i][0])
			set[n++] = i;
	return n ? (int)set[test_rand(rng) % n] : -1;
}

CHECK_TEST(random_changes_snapshots_and_restores_match_a_model)
{
	struct objstore os;
	void *base = test_create(&os, 4 * HEAP);
	uint64_t rng = 16, model[OS_SNAP_NODES] = { 0 };
	char names[OS_SNAP_NODES][OS_SNAP_NAME_MAX + 1];
	unsigned taken = 0, restores = 0, befores = 0;
	uint64_t drops = 0;
	char name[OS_SNAP_NAME_MAX + 1];

	memset(names, 0, sizeof(names));
	for (unsigned step = 0; step < 800; step++) {
		unsigned op = (unsigned)(test_rand(&rng) % 10);
		char obj[8];

		snprintf(obj, sizeof(obj), "o%u", (unsigned)(test_rand(&rng) % 12));
		if (op < 4) {
			put(&os, obj, test_rand(&rng) % 20000 + 1, (uint32_t)step);
		} else if (op < 6) {
			uint64_t id;
			struct os_obj_info info;

			if (os_cat_lookup(&os, obj, strlen(obj), &id) == 0 &&
			    os_obj_stat(&os, id, &info) == 0 && info.size > 100)
				scribble(&os, obj, test_rand(&rng) % (info.size - 100), 100,
					 (uint8_t)step);
		} else if (op == 6) {
			uint64_t id;

			if (os_cat_lookup(&os, obj, strlen(obj), &id) == 0)
				drop(&os, obj);
		} else if (op == 7 && taken < 40) {
			int i;

			snprintf(name, sizeof(name), "s%u", step);
			CHECK_EQ(take(&os, name), 0);
			i = os_snap_find(&os, name);
			CHECK(i >= 0);
			model[i] = digest(&os);
			memcpy(names[i], name, sizeof(name));
			taken++;
		} else if (op == 8) {
			int i = any_named(names, &rng), b, err;
			uint64_t now = digest(&os);

			if (i < 0)
				continue;
			snprintf(name, sizeof(name), "before-%u", befores++);
			err = os_snap_restore(&os, names[i], name, step);
			if (err == -ERR_NOSPC)
				continue;
			CHECK_EQ(err, 0);
			CHECK_EQ(digest(&os), model[i]);
			b = os_snap_find(&os, name);
			if (err || b < 0)
				break;
			model[b] = now;
			memcpy(names[b], name, sizeof(name));
			restores++;
		} else if (op == 9) {
			int i = any_named(names, &rng);

			if (i < 0)
				continue;
			CHECK_EQ(remove_snapshot(&os, names[i]), 0);
			names[i][0] = 0;
		}
		if (area_dropped(&os) != drops) {
			/* The area filled: every snapshot went at once. */
			drops = area_dropped(&os);
			memset(names, 0, sizeof(names));
		}
		if (step % 25 == 0)
			CHECK_EQ(problems(&os), 0);
	}
	printf("    %u snapshots taken, %u restores\n", taken, restores);
	CHECK(restores >= 30);
	CHECK_EQ(drops, 0);
	/* Every snapshot still gives its state back. */
	for (unsigned i = 0; i < OS_SNAP_NODES; i++) {
		if (!names[i][0])
			continue;
		snprintf(name, sizeof(name), "final-%u", i);
		if (os_snap_restore(&os, names[i], name, 0) == -ERR_NOSPC)
			break;
		CHECK_EQ(digest(&os), model[i]);
		CHECK_EQ(remove_snapshot(&os, name), 0);
	}
	CHECK_EQ(problems(&os), 0);
	free(base);
}

CHECK_TEST(a_thousand_snapshots_taken_and_removed_leave_no_trace)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t area_baseline, heap_baseline;
	unsigned live[1000], first = 0, last = 0;   /* the ones held, oldest first */
	char name[16];

	put(&os, "a", 64 << 10, 1);
	area_baseline = area_free(&os);
	heap_baseline = heap_free(&os);
	for (unsigned i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		CHECK_EQ(take(&os, name), 0);
		live[last++] = i;
		scribble(&os, "a", (i * 4096) % (60 << 10), 3000, (uint8_t)i);
		if (i % 7 == 6) {
			/* the newest: merged into the one before */
			CHECK_EQ(remove_snapshot(&os, name), 0);
			last--;
		}
		while (last - first > 3) {
			/* the oldest: a leaf, given back at once */
			snprintf(name, sizeof(name), "s%u", live[first++]);
			CHECK_EQ(remove_snapshot(&os, name), 0);
		}
	}
	CHECK_EQ(problems(&os), 0);
	CHECK(area_free(&os) < area_baseline);
	while (first < last) {
		snprintf(name, sizeof(name), "s%u", live[first++]);
		CHECK_EQ(remove_snapshot(&os, name), 0);
	}
	CHECK_EQ(area_free(&os), area_baseline);
	CHECK_EQ(heap_free(&os), heap_baseline);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

CHECK_TEST(removing_the_newest_merges_it_into_the_one_before)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t at_s1, area_baseline;
	struct os_snap_info info[OS_SNAP_NODES];
	unsigned n;

	put(&os, "a", 40000, 1);
	put(&os, "b", 9000, 2);
	area_baseline = area_free(&os);
	CHECK_EQ(take(&os, "s1"), 0);
	at_s1 = digest(&os);
	scribble(&os, "a", 0, 8000, 3);      /* pages 0-1 into s1's list */
	CHECK_EQ(take(&os, "s2"), 0);
	scribble(&os, "a", 4096, 8000, 4);   /* pages 1-2 into s2's: page 1 in both */
	drop(&os, "b");
	CHECK_EQ(remove_snapshot(&os, "s2"), 0);
	CHECK_EQ(problems(&os), 0);
	n = os_snap_list(&os, info, OS_SNAP_NODES);
	CHECK_EQ(n, 1);                       /* merged: no hidden node left */
	CHECK_STR_EQ(info[0].name, "s1");
	CHECK(info[0].head);
	CHECK(info[0].held > 0);
	CHECK_EQ(os_snap_restore(&os, "s1", "b1", 0), 0);
	CHECK_EQ(digest(&os), at_s1);
	CHECK_EQ(remove_snapshot(&os, "s1"), 0);
	CHECK_EQ(remove_snapshot(&os, "b1"), 0);
	CHECK_EQ(area_free(&os), area_baseline);
	CHECK_EQ(problems(&os), 0);
	free(base);
}

CHECK_TEST(a_full_area_drops_every_snapshot_and_the_heap_goes_on)
{
	struct objstore os;
	struct os_create_opts opts = { .snap_size = 256u << 10 };
	void *base = test_heap_new(HEAP);
	struct os_snap_usage u;
	uint64_t before;

	CHECK_EQ(os_create(&os, base, HEAP, host_platform(), &opts), 0);
	put(&os, "big", 2u << 20, 1);
	CHECK_EQ(take(&os, "s"), 0);
	scribble(&os, "big", 0, 100, 1);
	os_snap_usage(&os, &u);
	CHECK_EQ(u.snapshots, 1);
	CHECK_EQ(u.dropped, 0);
	for (uint64_t off = 0; off < (2u << 20); off += 4096)
		scribble(&os, "big", off, 10, 2);
	before = digest(&os);
	os_snap_usage(&os, &u);
	CHECK_EQ(u.snapshots, 0);
	CHECK_EQ(u.dropped, 1);
	CHECK_EQ(u.free_pages, u.data_pages);
	CHECK_EQ(problems(&os), 0);
	CHECK_EQ(os_snap_restore(&os, "s", "b", 0), -ERR_NOENT);
	CHECK_EQ(digest(&os), before);
	free(base);
}

CHECK_TEST(damaged_snapshot_metadata_is_refused_and_never_written)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	void *copy = test_heap_new(HEAP);
	struct os_superblock *sb = base;
	struct os_snap_area *a = (void *)((uint8_t *)base + sb->snap_offset);
	struct os_snap_node *nodes = (void *)((uint8_t *)a + 4096);
	struct os_diagnosis d;
	int s;

	put(&os, "a", 20000, 1);
	CHECK_EQ(take(&os, "s"), 0);
	scribble(&os, "a", 0, 5000, 9);
	CHECK_EQ(problems(&os), 0);

	/* A flipped bit in the header or a node: the heap is refused. */
	a->high_water ^= 4;
	CHECK_EQ(os_diagnose(base, HEAP, &d), -ERR_CORRUPT);
	CHECK(strstr(d.why, "snapshot area: checksum") != NULL);
	CHECK_EQ(os_open(&os, base, HEAP, host_platform()), -ERR_CORRUPT);
	a->high_water ^= 4;
	s = os_snap_find(&os, "s");
	nodes[s].count ^= 1;
	CHECK_EQ(os_diagnose(base, HEAP, &d), -ERR_CORRUPT);
	CHECK(strstr(d.why, "snapshot node") != NULL);
	nodes[s].count ^= 1;
	CHECK_EQ(os_open(&os, base, HEAP, host_platform()), 0);

	/* A list entry pointing outside: the restore is refused, nothing written. */
	{
		struct os_snap_entry *e = os_snap_entry_at(&os, &nodes[s], 0);

		e->page = (uint32_t)(sb->snap_offset / 4096 + 3);
		CHECK(check_problems(&os, true) > 0);
		memcpy(copy, base, HEAP);
		CHECK_EQ(os_snap_restore(&os, "s", "b", 0), -ERR_CORRUPT);
		CHECK(memcmp(copy, base, HEAP) == 0);
	}
	free(copy);
	free(base);
}

int main(void)
{
	return check_run_all();
}
