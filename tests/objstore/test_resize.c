/*
 * test_resize.c -- growing and shrinking a heap (objstore/resize.c): the
 * new pages join the never-used tail and nothing but page 0 is written
 * (O(1)); growth past the room, of an old layout, and shrinks over pages
 * handed out or under snapshots are refused writing nothing; a snapshot
 * taken before a growth restores into the grown heap; and a power cut at
 * every fence of a resize, in every way the simulator can tear it, leaves
 * the old heap or the new one, checking clean (crashsim.h).
 */
#include <stdio.h>
#include <string.h>

#include "os_test.h"
#include "crashsim.h"

#include "internal.h"
#include "objstore/check.h"
#include "objstore/object.h"

#define ROOM (16u << 20)      /* the image buffer */
#define SMALL (4u << 20)      /* the heap made */
#define BIG (8u << 20)        /* grown to */

/* print_problem -- os_check's report, printed */
static void print_problem(void *ctx, const char *message)
{
	(void)ctx;
	printf("    os_check: %s\n", message);
}

/* problems -- what os_check finds in the heap at base, printed */
static uint64_t problems(const void *base, uint64_t size)
{
	struct os_check_report rep = { .problem = print_problem };
	void *scratch = malloc(os_check_scratch_size(size));
	uint64_t count = os_check(base, size, scratch, &rep);

	free(scratch);
	return count;
}

/* fill_pages -- give blob `id` its first `n` pages */
static void fill_pages(struct objstore *os, uint64_t id, unsigned n)
{
	uint64_t off;

	for (unsigned i = 0; i < n; i++)
		CHECK_EQ(os_obj_page(os, id, i, true, &off), 0);
}

/* make_heap -- a SMALL heap in a ROOM buffer that may grow to BIG, with
 * `objects` blobs of 3 pages and one of 32, all handed out */
static void *make_heap(struct objstore *os, unsigned objects, uint64_t *ids)
{
	struct os_create_opts opts = { .max_size = BIG };
	void *base = test_heap_new(ROOM);
	uint64_t big;

	memset((uint8_t *)base + SMALL, 0xa5, ROOM - SMALL); /* an old image's bytes */
	CHECK_EQ(os_create(os, base, SMALL, host_platform(), &opts), 0);
	CHECK_EQ(os_tx_begin(os), 0);
	for (unsigned i = 0; i < objects; i++)
		CHECK_EQ(os_obj_create(os, OS_TYPE_BLOB, 3 * OS_PAGE_SIZE, &ids[i]), 0);
	for (unsigned i = 0; i < objects; i++)
		fill_pages(os, ids[i], 3);
	CHECK_EQ(os_obj_create(os, OS_TYPE_BLOB, 32 * OS_PAGE_SIZE, &big), 0);
	fill_pages(os, big, 32);
	CHECK_EQ(os_tx_commit(os), 0);
	return base;
}

/* differs_outside_page0 -- whether any byte past page 0 differs */
static bool differs_outside_page0(const void *a, const void *b, uint64_t size)
{
	return memcmp((const uint8_t *)a + OS_PAGE_SIZE, (const uint8_t *)b + OS_PAGE_SIZE,
		      size - OS_PAGE_SIZE) != 0;
}

CHECK_TEST(growing_writes_page_0_alone_and_the_new_pages_are_the_tail)
{
	struct objstore os, again;
	uint64_t ids[4], off, pages, free_before;
	void *base = make_heap(&os, 4, ids);
	uint8_t *before = malloc(ROOM);
	struct os_resize_plan plan;
	struct os_stats st;

	os_stats(&os, &st);
	pages = st.page_count;
	free_before = st.pages_free;
	CHECK_EQ(st.max_size, os_max_heap_size(os.sb));
	CHECK(st.max_size >= BIG - OS_PAGE_SIZE && st.max_size <= BIG);
	memcpy(before, base, ROOM);
	CHECK_EQ(os_resize(&os, BIG - 64 * OS_PAGE_SIZE, &plan), 0);
	CHECK(!differs_outside_page0(base, before, ROOM));
	CHECK_EQ(os.sb->page_count, plan.new_page_count);
	CHECK_EQ(plan.new_size, os.sb->heap_size);
	CHECK_EQ(os.sb->resize_epoch, os_epoch(&os));
	os_stats(&os, &st);
	CHECK_EQ(st.pages_free, free_before + plan.new_page_count - pages);
	CHECK_EQ(problems(base, ROOM), 0);
	/* The spare is cleared; a reopen sees the new size. */
	CHECK(memcmp((uint8_t *)base + OS_SB_SPARE_OFFSET, OS_MAGIC, 8) != 0);
	CHECK_EQ(os_open(&again, base, ROOM, host_platform()), 0);
	CHECK_EQ(again.sb->heap_size, plan.new_size);
	/* Every page can be handed out, the new ones last, and checks clean. */
	CHECK_EQ(os_tx_begin(&again), 0);
	while (os_alloc(&again, OS_PAGE_SIZE, &off) == 0)
		;
	os_stats(&again, &st);
	CHECK_EQ(st.pages_free, 0);
	CHECK_EQ(off, os_page_off(&again, plan.new_page_count - 1));
	CHECK_EQ(os_tx_abort(&again), 0);
	CHECK_EQ(problems(base, ROOM), 0);
	free(before);
	free(base);
}

CHECK_TEST(refusals_write_nothing)
{
	struct objstore os, old;
	uint64_t ids[2];
	void *base = make_heap(&os, 2, ids), *old_base;
	uint8_t *before = malloc(ROOM);
	struct os_resize_plan plan;

	memcpy(before, base, ROOM);
	/* Past the room. */
	CHECK_EQ(os_resize(&os, ROOM, &plan), -ERR_NOSPC);
	CHECK_EQ(plan.refusal, OS_RESIZE_TOO_LARGE);
	CHECK_EQ(plan.max_size, os_max_heap_size(os.sb));
	/* Below the smallest heap (OS_MIN_HEAP_SIZE). */
	CHECK_EQ(os_resize(&os, os.sb->data_offset + 100 * OS_PAGE_SIZE, &plan), -ERR_NOSPC);
	CHECK_EQ(plan.refusal, OS_RESIZE_TOO_SMALL);
	/* Inside a transaction. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_resize(&os, BIG, &plan), -ERR_BUSY);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK(memcmp(base, before, ROOM) == 0);
	/* A layout 2.2 heap has no room, and its area ends it. */
	old_base = test_create_minor(&old, SMALL, 2);
	CHECK_EQ(os_resize(&old, SMALL, &plan), -ERR_NOTSUP);
	CHECK_EQ(plan.refusal, OS_RESIZE_OLD_LAYOUT);
	CHECK_EQ(plan.max_size, SMALL);
	free(old_base);
	free(before);
	free(base);
}

CHECK_TEST(shrinking_takes_only_an_untouched_tail)
{
	struct objstore os;
	uint64_t ids[3], formatted, grown, id;
	void *base = make_heap(&os, 3, ids);
	struct os_resize_plan plan;

	CHECK_EQ(os_resize(&os, BIG, &plan), 0);
	grown = os.sb->heap_size;
	/* Hand out pages past the old end. */
	for (unsigned i = 0; i < 5; i++) { /* transactions the log holds */
		CHECK_EQ(os_tx_begin(&os), 0);
		CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 200 * OS_PAGE_SIZE, &id), 0);
		fill_pages(&os, id, 200);
		CHECK_EQ(os_tx_commit(&os), 0);
	}
	formatted = os_formatted_pages(os.sb, os.root);
	CHECK(os.sb->data_offset + formatted * OS_PAGE_SIZE > SMALL);
	/* Over pages handed out: refused, naming the first; nothing written. */
	CHECK_EQ(os_resize(&os, os.sb->data_offset + (formatted - 2) * OS_PAGE_SIZE, &plan),
		 -ERR_BUSY);
	CHECK_EQ(plan.refusal, OS_RESIZE_TAIL_USED);
	CHECK_EQ(plan.first_used, formatted - 2);
	CHECK(plan.first_used_in_use);
	CHECK_EQ(plan.min_size, os.sb->data_offset + formatted * OS_PAGE_SIZE);
	CHECK_EQ(os.sb->heap_size, grown);
	/* Down to the formatted pages: the untouched tail goes. */
	CHECK_EQ(os_resize(&os, plan.min_size, &plan), 0);
	CHECK_EQ(os.sb->page_count, formatted);
	CHECK_EQ(problems(base, os.sb->heap_size), 0);
	/* Over pages freed since: on the stack, still formatted, refused. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_delete(&os, id), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_resize(&os, os.sb->data_offset + (formatted - 50) * OS_PAGE_SIZE, &plan),
		 -ERR_BUSY);
	CHECK_EQ(plan.refusal, OS_RESIZE_TAIL_USED);
	CHECK_EQ(plan.first_used, formatted - 50);
	CHECK(!plan.first_used_in_use);
	/* Under a snapshot: refused. */
	CHECK_EQ(os_resize(&os, BIG, &plan), 0);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_snap_take(&os, "s", 0, 0), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_resize(&os, os.sb->heap_size - OS_PAGE_SIZE, &plan), -ERR_BUSY);
	CHECK_EQ(plan.refusal, OS_RESIZE_SNAPSHOTS);
	CHECK_EQ(plan.snapshots, 1);
	free(base);
}

CHECK_TEST(a_snapshot_from_before_a_growth_restores_into_the_grown_heap)
{
	struct objstore os;
	uint64_t ids[2], id, off;
	void *base = make_heap(&os, 2, ids);
	struct os_resize_plan plan;
	struct os_obj_info info;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_snap_take(&os, "small", 0, 0), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_resize(&os, BIG, &plan), 0);
	/* Fill the heap, the new pages too, then go back. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 64 * OS_PAGE_SIZE, &id), 0);
	while (os_alloc(&os, OS_PAGE_SIZE, &off) == 0)
		;
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, (plan.new_page_count - plan.page_count) *
			       OS_PAGE_SIZE, &id), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(problems(base, ROOM), 0);
	CHECK_EQ(os_snap_restore(&os, "small", "big", 0), 0);
	CHECK_EQ(os.sb->heap_size, plan.new_size);
	CHECK_EQ(os_obj_stat(&os, id, &info), -ERR_NOENT);
	CHECK_EQ(os_obj_stat(&os, ids[1], &info), 0);
	CHECK_EQ(problems(base, ROOM), 0);
	CHECK_EQ(os_snap_restore(&os, "big", "small-again", 0), 0);
	CHECK_EQ(os_obj_stat(&os, id, &info), 0);
	CHECK_EQ(problems(base, ROOM), 0);
	free(base);
}

/* --- power cuts ------------------------------------------------------- */

/* What the cut test saw. */
struct cuts {
	uint64_t old_size, new_size;
	uint64_t images, old_seen, new_seen, failures;
	uint8_t *image;
};

/* open_image -- open a crash image (fatal long-jumps out) */
static void open_image(void *arg)
{
	struct cuts *c = arg;
	struct objstore os;
	struct os_stats st;
	int err = os_open(&os, c->image, ROOM, crashsim_plain_platform());

	if (err) {
		printf("  cut: open failed: %d\n", err);
		c->failures++;
		return;
	}
	os_stats(&os, &st);
	if (st.heap_size == c->old_size)
		c->old_seen++;
	else if (st.heap_size == c->new_size)
		c->new_seen++;
	else
		c->failures++;
	if (problems(c->image, ROOM) ||
	    memcmp(c->image + OS_SB_SPARE_OFFSET, OS_MAGIC, 8) == 0)
		c->failures++;
}

/* try_image -- one crash image: it opens to the old or the new size, checks clean */
static void try_image(struct cuts *c)
{
	const char *fatal = crashsim_protect(open_image, c);

	c->images++;
	if (fatal) {
		printf("  cut: objstore fatal: %s\n", fatal);
		c->failures++;
	}
}

/* at_fence -- a power cut just before this fence: every image it may leave */
static void at_fence(struct crashsim *cs, uint64_t fence, void *ctx)
{
	struct cuts *c = ctx;
	uint64_t combos;

	(void)fence;
	crashsim_collect(cs);
	combos = crashsim_combinations(cs);
	for (uint64_t i = 0; i < combos && i < 64; i++) {
		crashsim_image_enum(cs, i, c->image);
		try_image(c);
	}
	for (uint64_t seed = 1; seed <= 16; seed++) {
		crashsim_image_random(cs, seed, c->image);
		try_image(c);
	}
}

CHECK_TEST(a_cut_at_every_fence_of_a_growth_leaves_the_old_heap_or_the_new)
{
	struct crashsim *cs = crashsim_new(ROOM);
	struct os_create_opts opts = { .max_size = BIG };
	struct cuts c = { .image = malloc(ROOM) };
	struct os_resize_plan plan;
	struct objstore os;
	uint64_t id;

	CHECK(cs != NULL);
	CHECK_EQ(os_create(&os, crashsim_mem(cs), SMALL, crashsim_platform(cs), &opts), 0);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_create(&os, OS_TYPE_BLOB, 32 * OS_PAGE_SIZE, &id), 0);
	fill_pages(&os, id, 32);
	CHECK_EQ(os_tx_commit(&os), 0);
	crashsim_settle(cs);
	c.old_size = os.sb->heap_size;
	c.new_size = os.sb->data_offset + os_heap_pages_for(os.sb, BIG) * OS_PAGE_SIZE;
	crashsim_set_hook(cs, at_fence, &c);
	CHECK_EQ(os_resize(&os, BIG, &plan), 0);
	crashsim_set_hook(cs, NULL, NULL);
	CHECK_EQ(plan.new_size, c.new_size);
	/* And after the last fence: the new heap. */
	memcpy(c.image, crashsim_durable(cs), ROOM);
	try_image(&c);
	printf("  cut: %llu images: %llu old, %llu new, %llu failures\n",
	       (unsigned long long)c.images, (unsigned long long)c.old_seen,
	       (unsigned long long)c.new_seen, (unsigned long long)c.failures);
	CHECK_EQ(c.failures, 0);
	CHECK(c.old_seen > 0);
	CHECK(c.new_seen > 0);
	/* A shrink back, cut the same way. */
	c.images = c.old_seen = c.new_seen = 0;
	c.old_size = c.new_size;
	c.new_size = os.sb->data_offset + (os.sb->page_count - 100) * OS_PAGE_SIZE;
	crashsim_settle(cs);
	crashsim_set_hook(cs, at_fence, &c);
	CHECK_EQ(os_resize(&os, c.new_size, &plan), 0);
	crashsim_set_hook(cs, NULL, NULL);
	CHECK_EQ(c.failures, 0);
	CHECK(c.old_seen > 0);
	CHECK(c.new_seen > 0);
	free(c.image);
	crashsim_free(cs);
}

int main(void)
{
	return check_run_all();
}
