/*
 * test_corrupt.c -- the corruption campaign: flip one random bit in each
 * kind of metadata of a populated heap, over and over (>= 1,000 trials).
 * For every trial os_probe and os_open must not crash (this binary runs
 * under ASan and UBSan), and either open refuses the heap or os_check
 * reports at least one problem. The read paths (os_obj_stat / os_obj_read
 * of every id, os_cat_lookup of every name, os_cat_next over the whole
 * catalogue) then run on the corrupt copy: any result is fine, a crash or
 * a hang is not.
 *
 * Only bytes that MEAN something are flipped: the superblock's [0, 256)
 * (what its crc covers, and the crc), the root block, every page
 * descriptor, the used part of the free-page stack [0, free_top), every
 * object header, every id-index and object-radix index page, and of each
 * catalogue node its header, its live slots and its live entries (the gap
 * and the dead bytes of a node mean nothing: format.h).
 *
 * Deliberately NOT flipped: the superblock's committed_epoch (offset 256).
 * A flipped epoch is undetectable by design: the commit of a transaction
 * IS one aligned 8-byte store of that field, so any value is a "valid"
 * epoch; nothing else records what it should be.
 *
 * A trial that was not reported is printed with its kind, heap offset and
 * bit (to be analysed) and counts as a failure.
 */
#include "os_test.h"

#include <stdio.h>

#include "objstore/catalogue.h"
#include "objstore/check.h"
#include "objstore/object.h"

#define HEAP (16u << 20)
#define SMALL_OBJECTS 200u
#define BLOBS 120u
#define NAMES 3000u
#define TRIALS_PER_KIND 200u
#define SEED 0x5eedc0ffee123457ull

/* --- the populated heap --------------------------------------------------- */

struct name {
	uint8_t len;
	char s[48];
};

static struct name names[NAMES];
static unsigned name_count;
static uint64_t live_ids[SMALL_OBJECTS + BLOBS + 4];
static unsigned live_count;

/* tx_cycle -- commit and begin again (the log filled up) */
static void tx_cycle(struct objstore *os)
{
	CHECK_EQ(os_tx_commit(os), 0);
	CHECK_EQ(os_tx_begin(os), 0);
}

/* write_pages -- write `n` pages of object id from page `first`, every `step` */
static void write_pages(struct objstore *os, uint64_t id, uint64_t first,
			unsigned n, unsigned step, uint64_t *seed)
{
	static uint8_t buf[OS_PAGE_SIZE];

	for (unsigned i = 0; i < n; i++) {
		int64_t w;

		for (unsigned b = 0; b < sizeof(buf); b += 8) {
			uint64_t r = test_rand(seed);
			memcpy(buf + b, &r, 8);
		}
		w = os_obj_write(os, id, (first + (uint64_t)i * step) * OS_PAGE_SIZE,
				 buf, sizeof(buf));
		if (w == -ERR_NOSPC) {
			tx_cycle(os);
			i--;
			continue;
		}
		CHECK_EQ(w, sizeof(buf));
		tx_cycle(os);
	}
}

/* populate -- objects of both placements (multi-page blobs with radix depth
 * 1 and 2), some deleted (partial slabs, a non-trivial free stack), and
 * NAMES catalogue names (a tree of two levels or more); committed */
static void *populate(struct objstore *os)
{
	void *base = test_create(os, HEAP);
	uint64_t seed = SEED, ids[SMALL_OBJECTS + BLOBS], id;
	unsigned n = 0;
	static const char alpha[] = "abcdefghij/klmnop.qrstu-vwxyz0123456789";

	CHECK_EQ(os_tx_begin(os), 0);
	for (unsigned i = 0; i < SMALL_OBJECTS; i++) {
		uint16_t type = (uint16_t)(OS_TYPE_PROCESS + i % 5);
		uint64_t size = 1 + test_rand(&seed) % OS_LARGEST_SMALL;

		if (os_obj_create(os, type, size, &ids[n]) == -ERR_NOSPC) {
			tx_cycle(os);
			i--;
			continue;
		}
		n++;
		if (i % 2 == 0) {
			uint8_t *p = os_obj_data(os, ids[n - 1]);
			CHECK(p != NULL);
			if (p) {
				CHECK_EQ(os_tx_log(os, p, 1), 0);
				p[0] = (uint8_t)i;
			}
		}
		if (i % 20 == 19)
			tx_cycle(os);
	}
	for (unsigned i = 0; i < BLOBS; i++) {
		/* mostly 1..12 pages (depth 0 or 1); one sparse 3 MiB blob (depth 2) */
		uint64_t pages = i == 7 ? 768 : 1 + test_rand(&seed) % 12;
		uint64_t size = pages * OS_PAGE_SIZE - test_rand(&seed) % 2000;

		tx_cycle(os);
		CHECK_EQ(os_obj_create(os, i % 3 ? OS_TYPE_BLOB : OS_TYPE_CODE, size, &ids[n]), 0);
		tx_cycle(os);
		if (i == 7) {
			write_pages(os, ids[n], 0, 3, 1, &seed);
			write_pages(os, ids[n], 520, 3, 100, &seed);
		} else if (i % 4 != 3) {
			write_pages(os, ids[n], 0, (unsigned)pages - 1, 1, &seed);
		}
		n++;
	}
	tx_cycle(os);
	/* Delete every 5th object: partial slabs, pages back on the free stack. */
	for (unsigned i = 0; i < n; i++) {
		if (i % 5 == 2 && i != SMALL_OBJECTS + 7) {
			int err = os_obj_delete(os, ids[i]);
			if (err == -ERR_NOSPC) {
				tx_cycle(os);
				err = os_obj_delete(os, ids[i]);
			}
			CHECK_EQ(err, 0);
			tx_cycle(os);
		} else {
			live_ids[live_count++] = ids[i];
		}
	}
	/* Names, bound to live objects. */
	while (name_count < NAMES) {
		struct name *nm = &names[name_count];
		uint64_t r = test_rand(&seed);
		int err;

		nm->len = (uint8_t)(6 + r % 36);
		for (unsigned k = 0; k < nm->len; k++)
			nm->s[k] = alpha[test_rand(&seed) % (sizeof(alpha) - 1)];
		id = live_ids[test_rand(&seed) % live_count];
		err = os_cat_insert(os, nm->s, nm->len, id);
		if (err == -ERR_NOSPC) {
			tx_cycle(os);
			err = os_cat_insert(os, nm->s, nm->len, id);
		}
		if (err == -ERR_EXIST)
			continue;
		CHECK_EQ(err, 0);
		name_count++;
		if (name_count % 100 == 0)
			tx_cycle(os);
	}
	/* Remove a few names: dead bytes in some nodes. */
	for (unsigned i = 0; i < name_count; i += 97) {
		if (os_cat_remove(os, names[i].s, names[i].len, NULL) == -ERR_NOSPC) {
			tx_cycle(os);
			CHECK_EQ(os_cat_remove(os, names[i].s, names[i].len, NULL), 0);
		}
	}
	CHECK_EQ(os_tx_commit(os), 0);
	return base;
}

/* --- the metadata ranges, by kind ------------------------------------------ */

enum kind {
	K_SUPERBLOCK, K_ROOT, K_DESC, K_FREE_STACK, K_OBJ_HEADER, K_ID_INDEX,
	K_OBJ_INDEX, K_CAT_HEADER, K_CAT_SLOTS, K_CAT_ENTRY, K_COUNT
};

static const char *const kind_names[K_COUNT] = {
	"superblock", "root block", "page descriptor", "free-page stack",
	"object header", "id index page", "object index page",
	"catalogue node header", "catalogue slots", "catalogue entry",
};

struct range {
	uint64_t off, len;
};

struct ranges {
	struct range *v;
	unsigned n, cap;
};

static struct ranges ranges[K_COUNT];

static void add(enum kind k, uint64_t off, uint64_t len)
{
	struct ranges *r = &ranges[k];

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		if (!r->v)
			abort();
	}
	r->v[r->n++] = (struct range){ off, len };
}

/* walk_obj_index -- an object's radix index page at `level` (0: its entries are data pages) */
static void walk_obj_index(const uint8_t *base, uint64_t off, unsigned level)
{
	const uint64_t *e = (const uint64_t *)(base + off);

	add(K_OBJ_INDEX, off, OS_PAGE_SIZE);
	for (unsigned i = 0; level && i < OS_RADIX_FANOUT; i++)
		if (e[i])
			walk_obj_index(base, e[i], level - 1);
}

/* walk_id_index -- an id index page at `level`; its headers at level 0 */
static void walk_id_index(const uint8_t *base, uint64_t off, unsigned level)
{
	const uint64_t *e = (const uint64_t *)(base + off);

	add(K_ID_INDEX, off, OS_PAGE_SIZE);
	for (unsigned i = 0; i < OS_RADIX_FANOUT; i++) {
		const struct os_obj_header *h;

		if (!e[i])
			continue;
		if (level) {
			walk_id_index(base, e[i], level - 1);
			continue;
		}
		add(K_OBJ_HEADER, e[i], sizeof(*h));
		h = (const void *)(base + e[i]);
		if (h->placement == OS_PLACE_PAGED && h->depth && h->data)
			walk_obj_index(base, h->data, h->depth - 1);
	}
}

/* walk_cat -- a catalogue node: header, live slots, live entries; its children */
static unsigned walk_cat(const uint8_t *base, uint64_t off)
{
	const struct os_cat_node *n = (const void *)(base + off);
	unsigned height = n->level;

	add(K_CAT_HEADER, off, sizeof(*n));
	add(K_CAT_SLOTS, off + sizeof(*n), (uint64_t)n->count * OS_CAT_SLOT_SIZE);
	for (unsigned i = 0; i < n->count; i++) {
		uint32_t at = OS_CAT_SLOT_OFFSET(n->slot[i]);
		const struct os_cat_entry *e = (const void *)(base + off + at);

		add(K_CAT_ENTRY, off + at, sizeof(*e) + e->len);
		if (n->level)
			walk_cat(base, e->value);
	}
	if (n->level)
		walk_cat(base, n->first);
	return height;
}

/* collect -- every meaningful metadata range of the clean heap */
static unsigned collect(const uint8_t *base)
{
	const struct os_superblock *sb = (const void *)base;
	const struct os_root *r = (const void *)(base + sb->root_offset);
	unsigned height = 0;

	add(K_SUPERBLOCK, 0, offsetof(struct os_superblock, committed_epoch));
	add(K_ROOT, sb->root_offset, sizeof(*r));
	for (uint64_t p = 0; p < os_formatted_pages(sb, r); p++)
		add(K_DESC, sb->desc_offset + p * sizeof(struct os_page_desc),
		    sizeof(struct os_page_desc));
	add(K_FREE_STACK, sb->stack_offset, r->free_top * sizeof(uint32_t));
	if (r->index_root)
		walk_id_index(base, r->index_root, r->index_depth - 1);
	if (r->catalogue_root)
		height = walk_cat(base, r->catalogue_root) + 1;
	return height;
}

/* --- trials ------------------------------------------------------------------ */

static void on_problem(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

/* exercise_reads -- every read path on the (corrupt) open heap: must not crash or hang */
static void exercise_reads(struct objstore *os)
{
	static uint8_t buf[16 * OS_PAGE_SIZE];
	struct os_cat_cursor c;
	uint64_t id, steps = 0;

	for (uint64_t i = 0; i < live_ids[live_count - 1] + 2; i++) {
		struct os_obj_info info;

		if (os_obj_stat(os, i, &info) == 0)
			(void)os_obj_read(os, i, 0, buf, sizeof(buf));
		else
			(void)os_obj_read(os, i, 0, buf, 64);
	}
	id = 0;
	while (id < live_ids[live_count - 1] + 2 && os_obj_next(os, id, &id) == 0 &&
	       ++steps < 10 * live_count)
		id++;
	for (unsigned i = 0; i < name_count; i++)
		(void)os_cat_lookup(os, names[i].s, names[i].len, &id);
	os_cat_cursor_init(&c, "", 0);
	steps = 0;
	while (os_cat_next(os, &c, "", 0, &id) == 0)
		if (++steps > 2u * NAMES) {
			printf("  os_cat_next: more than %u names: a cycle?\n", 2 * NAMES);
			CHECK(!"os_cat_next ran past every name");
			break;
		}
}

CHECK_TEST(flipped_bits_in_every_kind_of_metadata_are_reported)
{
	struct objstore os, copy_os;
	void *clean = populate(&os);
	uint8_t *copy = test_heap_new(HEAP);
	void *scratch = malloc(os_check_scratch_size(HEAP));
	struct os_check_report report = { .problem = on_problem };
	uint64_t seed = SEED ^ 0xc0ffee, total = 0, reported = 0, missed = 0;
	unsigned height;

	CHECK(scratch != NULL);
	CHECK_EQ(os_check(clean, HEAP, scratch, &report), 0);
	height = collect(clean);
	printf("  heap: %u live objects, %u names, catalogue height %u, %u object index pages, free top %llu\n",
	       live_count, name_count, height, ranges[K_OBJ_INDEX].n,
	       (unsigned long long)os.root->free_top);
	CHECK(height >= 2);
	CHECK(ranges[K_OBJ_INDEX].n >= 3);
	CHECK(os.root->free_top > 0);
	for (unsigned k = 0; k < K_COUNT; k++)
		CHECK(ranges[k].n > 0);

	for (unsigned k = 0; k < K_COUNT; k++) {
		uint64_t k_rep = 0, k_miss = 0;

		for (unsigned t = 0; t < TRIALS_PER_KIND; t++) {
			const struct range *r = &ranges[k].v[test_rand(&seed) % ranges[k].n];
			uint64_t off = r->off + test_rand(&seed) % r->len;
			unsigned bit = (unsigned)(test_rand(&seed) % 8);
			bool found;
			int err;

			memcpy(copy, clean, HEAP);
			copy[off] ^= (uint8_t)(1u << bit);
			(void)os_probe(copy, HEAP);
			err = os_open(&copy_os, copy, HEAP, host_platform());
			if (err) {
				found = true;
			} else {
				found = os_check(copy, HEAP, scratch, &report) > 0;
				exercise_reads(&copy_os);
			}
			if (found) {
				k_rep++;
			} else {
				k_miss++;
				printf("  MISSED: %s: offset %#llx bit %u (range %#llx+%llu, byte %llu of it)\n",
				       kind_names[k], (unsigned long long)off, bit,
				       (unsigned long long)r->off, (unsigned long long)r->len,
				       (unsigned long long)(off - r->off));
			}
		}
		printf("corrupt: %s: %u trials, %llu reported, %llu missed\n",
		       kind_names[k], TRIALS_PER_KIND, (unsigned long long)k_rep,
		       (unsigned long long)k_miss);
		total += TRIALS_PER_KIND;
		reported += k_rep;
		missed += k_miss;
	}
	printf("corrupt: total: %llu trials, %llu reported, %llu missed\n",
	       (unsigned long long)total, (unsigned long long)reported,
	       (unsigned long long)missed);
	CHECK(total >= 1000);
	CHECK_EQ(missed, 0);
	free(scratch);
	free(copy);
	free(clean);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return check_run_all();
}
