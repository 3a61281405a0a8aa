/*
 * test_catalogue.c -- unit tests of the catalogue (objstore/catalogue.c):
 * binding, looking up, removing, renaming and iterating names; the tree
 * staying balanced through 200,000 random names; aborts and power cuts
 * restoring it exactly; a full log or heap failing cleanly; flipped bits
 * detected, never crashing; and the checker's reports (check_catalogue.c).
 */
#include "os_test.h"

#include <stdio.h>

#include "objstore/catalogue.h"
#include "objstore/check.h"
#include "objstore/object.h"

#include "../../objstore/internal.h" /* os_log_root, crc32c: to break things on purpose */

#define HEAP (8u << 20)
#define BIG_HEAP (96u << 20)
#define BIG_NAMES 200000u
#define OBJECTS 64u

/* --- helpers --------------------------------------------------------------- */

struct name {
	uint8_t len;
	char s[OS_NAME_MAX];
};

/* random_name -- a name of 1..max bytes from a small alphabet (so that names
 * share prefixes), with the odd byte above 0x7f */
static void random_name(uint64_t *seed, struct name *n, unsigned max)
{
	static const char alpha[] = "abc/defgh.ij-klmnop0123";
	uint64_t r = test_rand(seed);

	n->len = (uint8_t)(1 + r % max);
	for (unsigned i = 0; i < n->len; i++) {
		r = test_rand(seed);
		n->s[i] = r % 97 == 0 ? (char)(0x80 + r % 128) : alpha[r % (sizeof(alpha) - 1)];
	}
}

/* name_cmp -- the catalogue's order, for qsort */
static int name_cmp(const void *a, const void *b)
{
	const struct name *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* unique_names -- n distinct random names, sorted; order[] a random order of them */
static struct name *unique_names(uint64_t seed, unsigned n, unsigned max, uint32_t *order)
{
	struct name *v = malloc((n + n / 4 + 16) * sizeof(*v));
	unsigned have = 0, want = n + n / 4 + 16, k = 0;

	while (k < n) {
		for (; have < want; have++)
			random_name(&seed, &v[have], max);
		qsort(v, have, sizeof(*v), name_cmp);
		k = 0;
		for (unsigned i = 0; i < have; i++)
			if (k == 0 || name_cmp(&v[k - 1], &v[i]) != 0)
				v[k++] = v[i];
		have = k;
	}
	for (unsigned i = 0; order && i < n; i++)
		order[i] = i;
	for (unsigned i = n - 1; order && i > 0; i--) {
		unsigned j = (unsigned)(test_rand(&seed) % (i + 1)), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	/* Keep n of the k sorted names, dropping the surplus evenly. */
	for (unsigned i = 0; i < n; i++)
		v[i] = v[(uint64_t)i * k / n];
	return v;
}

static unsigned problems_seen;
static char last_problem[400];
static bool print_problems = true;

/* on_problem -- what os_check reports */
static void on_problem(void *ctx, const char *message)
{
	bool *ids_are_fake = ctx;

	if (*ids_are_fake && strstr(message, "which does not exist"))
		return;
	problems_seen++;
	snprintf(last_problem, sizeof(last_problem), "%s", message);
	if (print_problems)
		printf("    os_check: %s\n", message);
}

/* check_with -- os_check on the heap of os; the problems reported */
static uint64_t check_with(const struct objstore *os, bool ids_are_fake)
{
	struct os_check_report r = { .problem = on_problem, .ctx = &ids_are_fake };
	void *scratch = malloc(os_check_scratch_size(os->size));

	problems_seen = 0;
	os_check(os->base, os->size, scratch, &r);
	free(scratch);
	return problems_seen;
}

/* heap_check -- os_check on the heap of os; the number of problems */
static uint64_t heap_check(const struct objstore *os)
{
	return check_with(os, false);
}

/* tree_check -- os_check, where names may be bound to ids of no object */
static uint64_t tree_check(const struct objstore *os)
{
	return check_with(os, true);
}

/* make_objects -- `n` real objects (for ids the checker accepts) */
static void make_objects(struct objstore *os, uint64_t *ids, unsigned n)
{
	CHECK_EQ(os_tx_begin(os), 0);
	for (unsigned i = 0; i < n; i++)
		CHECK_EQ(os_obj_create(os, OS_TYPE_BLOB, 0, &ids[i]), 0);
	CHECK_EQ(os_tx_commit(os), 0);
}

/* cat_root -- the root node of the catalogue, or NULL */
static struct os_cat_node *cat_root(const struct objstore *os)
{
	uint64_t off = os->root->catalogue_root;

	return off ? os_ptr(os, off) : NULL;
}

/* child_off -- child c of an internal node */
static uint64_t child_off(const struct os_cat_node *n, unsigned c)
{
	const struct os_cat_entry *e;

	if (c == 0)
		return n->first;
	e = (const void *)((const uint8_t *)n + OS_CAT_SLOT_OFFSET(n->slot[c - 1]));
	return e->value;
}

/* tree_nodes -- the offsets of every node, parents before children; how many */
static unsigned tree_nodes(const struct objstore *os, uint64_t *out, unsigned max)
{
	unsigned n = 0;

	if (os->root->catalogue_root)
		out[n++] = os->root->catalogue_root;
	for (unsigned i = 0; i < n; i++) {
		const struct os_cat_node *node = os_ptr(os, out[i]);

		for (unsigned c = 0; node->level && c <= node->count && n < max; c++)
			out[n++] = child_off(node, c);
	}
	return n;
}

/* tree_height -- levels of the catalogue */
static unsigned tree_height(const struct objstore *os)
{
	const struct os_cat_node *r = cat_root(os);

	return r ? r->level + 1u : 0;
}

/* bind_all -- bind names[order[i]] to ids[order[i] % nids] in transactions of `batch` */
static void bind_all(struct objstore *os, const struct name *v, const uint32_t *order,
		     unsigned n, const uint64_t *ids, unsigned nids, unsigned batch)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned k = order ? order[i] : i;

		if (i % batch == 0)
			CHECK_EQ(os_tx_begin(os), 0);
		CHECK_EQ(os_cat_insert(os, v[k].s, v[k].len, ids ? ids[k % nids] : k + 1000), 0);
		if (i % batch == batch - 1 || i == n - 1)
			CHECK_EQ(os_tx_commit(os), 0);
	}
}

/* all_bound -- whether every name looks up to its id */
static bool all_bound(const struct objstore *os, const struct name *v, unsigned n,
		      const uint64_t *ids, unsigned nids)
{
	for (unsigned k = 0; k < n; k++) {
		uint64_t id = 0;

		if (os_cat_lookup(os, v[k].s, v[k].len, &id) != 0 ||
		    id != (ids ? ids[k % nids] : k + 1000)) {
			printf("    name %u (%.*s) lost\n", k, v[k].len, v[k].s);
			return false;
		}
	}
	return true;
}

/* iterates_as -- whether iteration (with `prefix`) yields exactly v[0..n) in order */
static bool iterates_as(const struct objstore *os, const char *prefix,
			const struct name *v, unsigned n)
{
	struct os_cat_cursor c;
	unsigned k = 0;
	uint64_t id;
	int err;

	os_cat_cursor_init(&c, NULL, 0);
	while ((err = os_cat_next(os, &c, prefix, strlen(prefix), &id)) == 0) {
		if (k >= n || c.len != v[k].len || memcmp(c.name, v[k].s, c.len) != 0) {
			printf("    iteration: item %u is %.*s\n", k, c.len, c.name);
			return false;
		}
		k++;
	}
	if (err != -ERR_NOENT || k != n)
		printf("    iteration ended with %d after %u of %u\n", err, k, n);
	return err == -ERR_NOENT && k == n;
}

/* --- names ------------------------------------------------------------------ */

CHECK_TEST(names_are_validated)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	char big[OS_NAME_MAX + 1];
	uint64_t id;

	memset(big, 'x', sizeof(big));
	CHECK_EQ(os_cat_name_ok("a", 1), 0);
	CHECK_EQ(os_cat_name_ok(big, OS_NAME_MAX), 0);
	CHECK_EQ(os_cat_name_ok(big, OS_NAME_MAX + 1), -ERR_INVAL);
	CHECK_EQ(os_cat_name_ok("", 0), -ERR_INVAL);
	CHECK_EQ(os_cat_name_ok("a\0b", 3), -ERR_INVAL);
	CHECK_EQ(os_cat_name_ok(NULL, 1), -ERR_INVAL);
	CHECK_EQ(os_cat_insert(&os, "a", 1, 5), -ERR_INVAL); /* outside a transaction */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_insert(&os, "", 0, 5), -ERR_INVAL);
	CHECK_EQ(os_cat_insert(&os, big, OS_NAME_MAX + 1, 5), -ERR_INVAL);
	CHECK_EQ(os_cat_insert(&os, "a\0b", 3, 5), -ERR_INVAL);
	CHECK_EQ(os_cat_remove(&os, "a\0b", 3, NULL), -ERR_INVAL);
	CHECK_EQ(os_cat_rename(&os, "a", 1, "", 0), -ERR_INVAL);
	CHECK_EQ(os_cat_lookup(&os, big, OS_NAME_MAX + 1, &id), -ERR_INVAL);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os.root->catalogue_root, 0);
	free(base);
}

CHECK_TEST(empty_catalogue)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_cat_cursor c;
	uint64_t id;

	CHECK_EQ(os_cat_lookup(&os, "x", 1, &id), -ERR_NOENT);
	os_cat_cursor_init(&c, "", 0);
	CHECK_EQ(os_cat_next(&os, &c, NULL, 0, &id), -ERR_NOENT);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_remove(&os, "x", 1, &id), -ERR_NOENT);
	CHECK_EQ(os_cat_rename(&os, "x", 1, "y", 1), -ERR_NOENT);
	CHECK_EQ(os_tx_commit(&os), 0);
	free(base);
}

CHECK_TEST(insert_lookup_remove)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_stats st0, st;
	uint64_t id = 0;

	os_stats(&os, &st0);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_insert(&os, "bin/ls", 6, 10), 0);
	CHECK_EQ(os_cat_insert(&os, "bin/cat", 7, 11), 0);
	CHECK_EQ(os_cat_insert(&os, "etc/motd", 8, 12), 0);
	CHECK_EQ(os_cat_insert(&os, "bin", 3, 13), 0);
	CHECK_EQ(os_cat_insert(&os, "bin/ls", 6, 99), -ERR_EXIST);
	CHECK_EQ(os_tx_commit(&os), 0);
	os_stats(&os, &st);
	CHECK_EQ(st.names, 4);
	CHECK_EQ(os_cat_lookup(&os, "bin/ls", 6, &id), 0);
	CHECK_EQ(id, 10);
	CHECK_EQ(os_cat_lookup(&os, "bin", 3, &id), 0);
	CHECK_EQ(id, 13);
	CHECK_EQ(os_cat_lookup(&os, "bin/", 4, &id), -ERR_NOENT);
	CHECK_EQ(os_cat_lookup(&os, "bin/lsx", 7, &id), -ERR_NOENT);
	CHECK_EQ(os_cat_lookup(&os, "a", 1, &id), -ERR_NOENT);
	CHECK_EQ(os_cat_lookup(&os, "zzz", 3, &id), -ERR_NOENT);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_remove(&os, "bin/cat", 7, &id), 0);
	CHECK_EQ(id, 11);
	CHECK_EQ(os_cat_remove(&os, "bin/cat", 7, &id), -ERR_NOENT);
	CHECK_EQ(os_cat_remove(&os, "bin/ls", 6, NULL), 0);
	CHECK_EQ(os_cat_remove(&os, "bin", 3, NULL), 0);
	CHECK_EQ(os_cat_remove(&os, "etc/motd", 8, NULL), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	os_stats(&os, &st);
	CHECK_EQ(st.names, 0);
	CHECK_EQ(st.pages_free, st0.pages_free);
	CHECK_EQ(os.root->catalogue_root, 0);
	free(base);
}

CHECK_TEST(longest_names_and_odd_bytes)
{
	struct objstore os;
	void *base = test_create(&os, 32u << 20);
	static struct name v[3000];

	/* 255-byte names differing only near the end: 14 to a node at most. */
	for (unsigned i = 0; i < 3000; i++) {
		v[i].len = OS_NAME_MAX;
		memset(v[i].s, 0xff, OS_NAME_MAX);
		snprintf(v[i].s + 240, 16, "%06u", i);
		v[i].s[246] = (char)0xfe;
	}
	qsort(v, 3000, sizeof(v[0]), name_cmp);
	bind_all(&os, v, NULL, 3000, NULL, 0, 100);
	CHECK(all_bound(&os, v, 3000, NULL, 0));
	CHECK(tree_height(&os) >= 3);
	CHECK(iterates_as(&os, "", v, 3000));
	CHECK_EQ(tree_check(&os), 0);
	/* One-byte names beside them, then every other long one removed. */
	CHECK_EQ(os_tx_begin(&os), 0);
	for (unsigned i = 0; i < 3000; i += 2)
		CHECK_EQ(os_cat_remove(&os, v[i].s, v[i].len, NULL), 0);
	for (unsigned i = 1; i < 256; i++) {
		char c = (char)i;

		CHECK_EQ(os_cat_insert(&os, &c, 1, i), 0);
	}
	CHECK_EQ(os_tx_commit(&os), 0);
	for (unsigned i = 0; i < 3000; i++) {
		uint64_t id;

		CHECK_EQ(os_cat_lookup(&os, v[i].s, v[i].len, &id), i % 2 ? 0 : -ERR_NOENT);
		CHECK_EQ(id, i % 2 ? i + 1000 : id);
	}
	for (unsigned i = 1; i < 256; i++) {
		char c = (char)i;
		uint64_t id;

		CHECK_EQ(os_cat_lookup(&os, &c, 1, &id), 0);
		CHECK_EQ(id, i);
	}
	CHECK_EQ(tree_check(&os), 0);
	free(base);
}

/* --- many names ------------------------------------------------------------- */

CHECK_TEST(two_hundred_thousand_random_names)
{
	struct objstore os;
	void *base = test_create(&os, BIG_HEAP);
	uint32_t *order = malloc(BIG_NAMES * sizeof(*order));
	struct name *v = unique_names(1, BIG_NAMES, 40, order);
	uint64_t ids[OBJECTS];
	struct os_stats st0, st;

	make_objects(&os, ids, OBJECTS);
	os_stats(&os, &st0);
	bind_all(&os, v, order, BIG_NAMES, ids, OBJECTS, 2000);
	os_stats(&os, &st);
	CHECK_EQ(st.names, BIG_NAMES);
	printf("    %u names: height %u, %llu pages\n", BIG_NAMES, tree_height(&os),
	       (unsigned long long)(st0.pages_free - st.pages_free));
	CHECK(all_bound(&os, v, BIG_NAMES, ids, OBJECTS));
	CHECK(iterates_as(&os, "", v, BIG_NAMES));
	CHECK_EQ(heap_check(&os), 0);
	/* Remove in another random order; check halfway. */
	for (unsigned i = 0; i < BIG_NAMES; i++) {
		unsigned k = order[BIG_NAMES - 1 - i];
		uint64_t id;

		if (i % 2000 == 0)
			CHECK_EQ(os_tx_begin(&os), 0);
		CHECK_EQ(os_cat_remove(&os, v[k].s, v[k].len, &id), 0);
		CHECK_EQ(id, ids[k % OBJECTS]);
		if (i % 2000 == 1999)
			CHECK_EQ(os_tx_commit(&os), 0);
		if (i == BIG_NAMES / 2 - 1)
			CHECK_EQ(heap_check(&os), 0);
	}
	os_stats(&os, &st);
	CHECK_EQ(st.names, 0);
	CHECK_EQ(st.pages_free, st0.pages_free);
	CHECK_EQ(os.root->catalogue_root, 0);
	CHECK_EQ(heap_check(&os), 0);
	free(v);
	free(order);
	free(base);
}

/* Names like paths in few directories share far more than the 5 hint
 * bytes after any node's prefix, so every level searches long runs of
 * tied hints: every name bound must be found, and every name between two
 * of them (an odd number, one byte shorter or longer) must miss. */
CHECK_TEST(long_runs_of_tied_hints)
{
	enum { N = 40000, DIRS = 50 };
	struct objstore os;
	void *base = test_create(&os, BIG_HEAP);
	struct name *v = malloc(N * sizeof(*v));
	uint64_t id;

	for (unsigned i = 0; i < N; i++)
		v[i].len = (uint8_t)snprintf(v[i].s, sizeof(v[i].s),
					     "home/user%03u/notes/file-%07u.txt",
					     i % DIRS, 2 * i);
	bind_all(&os, v, NULL, N, NULL, 0, 1000);
	CHECK(tree_height(&os) >= 3);
	CHECK(all_bound(&os, v, N, NULL, 0));
	for (unsigned i = 0; i < N; i++) {
		char s[OS_NAME_MAX];
		int len = snprintf(s, sizeof(s), "home/user%03u/notes/file-%07u.txt",
				   i % DIRS, 2 * i + 1);

		CHECK_EQ(os_cat_lookup(&os, s, (uint64_t)len, &id), -ERR_NOENT);
		CHECK_EQ(os_cat_lookup(&os, v[i].s, v[i].len - 1u, &id), -ERR_NOENT);
		memcpy(s, v[i].s, v[i].len);
		s[v[i].len] = 'x';
		CHECK_EQ(os_cat_lookup(&os, s, v[i].len + 1u, &id), -ERR_NOENT);
	}
	CHECK_EQ(tree_check(&os), 0);
	free(v);
	free(base);
}

CHECK_TEST(prefix_iteration)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	static const char *const names[] = {
		"bin", "bin/", "bin/cat", "bin/ls", "bin/ls/x", "bin0", "bim/x",
		"bio", "etc/passwd", "bin/\xff", "a", "bin/sh",
	};
	struct name want[6], v[12];
	struct os_cat_cursor c;
	uint64_t id;
	unsigned n = 0;

	CHECK_EQ(os_tx_begin(&os), 0);
	for (unsigned i = 0; i < 12; i++) {
		CHECK_EQ(os_cat_insert(&os, names[i], strlen(names[i]), i), 0);
		v[i].len = (uint8_t)strlen(names[i]);
		memcpy(v[i].s, names[i], v[i].len);
		if (strncmp(names[i], "bin/", 4) == 0)
			want[n++] = v[i];
	}
	CHECK_EQ(os_tx_commit(&os), 0);
	qsort(want, n, sizeof(want[0]), name_cmp);
	qsort(v, 12, sizeof(v[0]), name_cmp);
	CHECK(iterates_as(&os, "bin/", want, n));
	CHECK(iterates_as(&os, "", v, 12));
	CHECK(iterates_as(&os, "bin/ls/x", &want[3], 1));
	CHECK(iterates_as(&os, "nothing", v, 0));
	/* A start name: the first name >= it, with and without the prefix. */
	os_cat_cursor_init(&c, "bin/d", 5);
	CHECK_EQ(os_cat_next(&os, &c, "bin/", 4, &id), 0);
	CHECK_EQ(c.len, 6);
	CHECK(memcmp(c.name, "bin/ls", 6) == 0);
	os_cat_cursor_init(&c, "bin/ls", 6);
	CHECK_EQ(os_cat_next(&os, &c, "", 0, &id), 0);
	CHECK_EQ(id, 3);
	os_cat_cursor_init(&c, "bin/ls\0zz", 9); /* = after "bin/ls" */
	CHECK_EQ(os_cat_next(&os, &c, "", 0, &id), 0);
	CHECK_EQ(id, 4);
	os_cat_cursor_init(&c, "zzz", 3);
	CHECK_EQ(os_cat_next(&os, &c, "", 0, &id), -ERR_NOENT);
	os_cat_cursor_init(&c, NULL, 0);
	CHECK_EQ(os_cat_next(&os, &c, "b\0", 2, &id), -ERR_NOENT);
	free(base);
}

/* model_next -- the first bound name (of sorted v) after the cursor (or
 * at it, if not started) that starts with `prefix`; -1 if none */
static int model_next(const struct name *v, const bool *in, unsigned n,
		      const struct os_cat_cursor *c, const char *prefix)
{
	struct name cur;
	size_t plen = strlen(prefix);

	cur.len = (uint8_t)c->len;
	memcpy(cur.s, c->name, c->len);
	for (unsigned i = 0; i < n; i++) {
		int cmp = name_cmp(&v[i], &cur);

		if (in[i] && (cmp > 0 || (cmp == 0 && !c->started)) &&
		    v[i].len >= plen && memcmp(v[i].s, prefix, plen) == 0)
			return (int)i;
	}
	return -1;
}

CHECK_TEST(cursor_survives_inserts_and_removes)
{
	struct objstore os;
	void *base = test_create(&os, 16u << 20);
	unsigned n = 6000;
	struct name *v = unique_names(3, n, 12, NULL);
	bool *in = calloc(n, sizeof(bool));
	uint64_t seed = 11, id;
	const char *prefixes[] = { "", "a", "b/", "ab" };
	unsigned steps = 0;

	CHECK_EQ(os_tx_begin(&os), 0);
	for (unsigned i = 0; i < n; i += 2) {
		CHECK_EQ(os_cat_insert(&os, v[i].s, v[i].len, i), 0);
		in[i] = true;
	}
	CHECK_EQ(os_tx_commit(&os), 0);
	for (unsigned p = 0; p < 4; p++) {
		struct os_cat_cursor c;
		int want, err;

		os_cat_cursor_init(&c, NULL, 0);
		do {
			/* Change the tree between steps, around the cursor too. */
			CHECK_EQ(os_tx_begin(&os), 0);
			for (unsigned j = 0; j < 20; j++) {
				unsigned k = (unsigned)(test_rand(&seed) % n);

				if (in[k])
					CHECK_EQ(os_cat_remove(&os, v[k].s, v[k].len, NULL), 0);
				else
					CHECK_EQ(os_cat_insert(&os, v[k].s, v[k].len, k), 0);
				in[k] = !in[k];
			}
			CHECK_EQ(os_tx_commit(&os), 0);
			want = model_next(v, in, n, &c, prefixes[p]);
			err = os_cat_next(&os, &c, prefixes[p], strlen(prefixes[p]), &id);
			if (want < 0) {
				CHECK_EQ(err, -ERR_NOENT);
			} else if (err != 0 || id != (uint64_t)want) {
				CHECK_EQ(err, 0);
				CHECK_EQ(id, want);
				break;
			}
			steps++;
		} while (want >= 0);
	}
	CHECK(steps > 500);
	CHECK_EQ(tree_check(&os), 0);
	free(in);
	free(v);
	free(base);
}

/* --- rename, abort, power cut -------------------------------------------------- */

CHECK_TEST(rename_moves_a_binding)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t id;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_insert(&os, "a", 1, 1), 0);
	CHECK_EQ(os_cat_insert(&os, "b", 1, 2), 0);
	CHECK_EQ(os_cat_rename(&os, "a", 1, "c", 1), 0);
	CHECK_EQ(os_cat_rename(&os, "c", 1, "b", 1), -ERR_EXIST);
	CHECK_EQ(os_cat_rename(&os, "x", 1, "y", 1), -ERR_NOENT);
	CHECK_EQ(os_cat_rename(&os, "c", 1, "c", 1), 0);
	CHECK_EQ(os_cat_rename(&os, "c", 1, "", 0), -ERR_INVAL);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_cat_lookup(&os, "a", 1, &id), -ERR_NOENT);
	CHECK_EQ(os_cat_lookup(&os, "c", 1, &id), 0);
	CHECK_EQ(id, 1);
	CHECK_EQ(os_cat_lookup(&os, "b", 1, &id), 0);
	CHECK_EQ(id, 2);
	/* Replaced: the name keeps its place, names another id. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_replace(&os, "b", 1, 7, &id), 0);
	CHECK_EQ(id, 2);
	CHECK_EQ(os_cat_replace(&os, "x", 1, 7, &id), -ERR_NOENT);
	CHECK_EQ(os_cat_replace(&os, "", 0, 7, &id), -ERR_INVAL);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_cat_lookup(&os, "b", 1, &id), 0);
	CHECK_EQ(id, 7);
	CHECK_EQ(os.root->catalogue_count, 2);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_replace(&os, "b", 1, 2, NULL), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	/* The only name renamed: the tree empties and refills. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_remove(&os, "b", 1, NULL), 0);
	CHECK_EQ(os_cat_rename(&os, "c", 1, "d", 1), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_cat_lookup(&os, "d", 1, &id), 0);
	CHECK_EQ(id, 1);
	CHECK_EQ(os.root->catalogue_count, 1);
	/* Aborted: as before. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_rename(&os, "d", 1, "e", 1), 0);
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK_EQ(os_cat_lookup(&os, "d", 1, &id), 0);
	CHECK_EQ(os_cat_lookup(&os, "e", 1, &id), -ERR_NOENT);
	free(base);
}

CHECK_TEST(rename_across_a_big_tree)
{
	struct objstore os;
	void *base = test_create(&os, 32u << 20);
	unsigned n = 20000;
	uint32_t *order = malloc(n * sizeof(*order));
	struct name *v = unique_names(5, n, 30, order);
	struct os_stats st0, st;
	uint64_t id;

	/* Bind the even names, then rename each to the next odd one and back. */
	os_stats(&os, &st0);
	for (unsigned i = 0; i < n; i += 2) {
		if (i % 1000 == 0)
			CHECK_EQ(os_tx_begin(&os), 0);
		CHECK_EQ(os_cat_insert(&os, v[i].s, v[i].len, i), 0);
		if (i % 1000 == 998)
			CHECK_EQ(os_tx_commit(&os), 0);
	}
	for (unsigned r = 0; r < 2; r++) {
		CHECK_EQ(os_tx_begin(&os), 0);
		for (unsigned j = 0; j < n; j++) {
			unsigned i = order[j] & ~1u, a = r ? i + 1 : i, b = r ? i : i + 1;

			if (i + 1 >= n || (order[j] & 1))
				continue;
			CHECK_EQ(os_cat_rename(&os, v[a].s, v[a].len, v[b].s, v[b].len), 0);
			if (j % 500 == 0) {
				CHECK_EQ(os_tx_commit(&os), 0);
				CHECK_EQ(os_tx_begin(&os), 0);
			}
		}
		CHECK_EQ(os_tx_commit(&os), 0);
		CHECK_EQ(tree_check(&os), 0);
	}
	for (unsigned i = 0; i + 1 < n; i += 2) {
		CHECK_EQ(os_cat_lookup(&os, v[i].s, v[i].len, &id), 0);
		CHECK_EQ(id, i);
	}
	os_stats(&os, &st);
	CHECK_EQ(st.names, n / 2);
	CHECK_EQ(tree_check(&os), 0);
	free(v);
	free(order);
	free(base);
}

CHECK_TEST(rename_bounds_hold_for_a_directory_moved_name_by_name)
{
	struct objstore os;
	void *base = test_create(&os, 32u << 20);
	char name[64], to[64];
	struct os_cat_cursor cur;
	struct os_stats before, after;
	uint64_t log, pages, id, moved = 0;

	/* 3,000 names beside 600 under "dir/": each of those renamed to
	 * "other/" in one transaction, as the kernel renames a directory. */
	CHECK_EQ(os_tx_begin(&os), 0);
	os_cat_rename_bounds(&os, 1, &log, &pages);
	CHECK(log > 0 && pages >= 3);
	for (unsigned i = 0; i < 3600; i++) {
		int len = i < 600 ? snprintf(name, sizeof(name), "dir/file-%05u", i * 7919 % 600)
				  : snprintf(name, sizeof(name), "%c/some/name/%u", 'a' + i % 20, i);

		CHECK_EQ(os_cat_insert(&os, name, (uint64_t)len, i + 1), 0);
		if (i % 400 == 399) {
			CHECK_EQ(os_tx_commit(&os), 0);
			CHECK_EQ(os_tx_begin(&os), 0);
		}
	}
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os_tx_begin(&os), 0);
	os_cat_rename_bounds(&os, 1, &log, &pages);
	printf("    rename bounds: %llu log bytes, %llu pages a rename\n",
	       (unsigned long long)log, (unsigned long long)pages);
	os_stats(&os, &before);
	for (;;) {
		os_cat_cursor_init(&cur, "dir/", 4);
		if (os_cat_next(&os, &cur, "dir/", 4, &id))
			break;
		memcpy(to, "other/", 6);
		memcpy(to + 6, cur.name + 4, cur.len - 4u);
		CHECK_EQ(os_cat_rename(&os, cur.name, cur.len, to, cur.len + 2u), 0);
		moved++;
		os_stats(&os, &after);
		CHECK(after.log_used - before.log_used <= moved * log);
		CHECK(before.pages_free - after.pages_free <= moved * pages);
	}
	CHECK_EQ(moved, 600);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(tree_check(&os), 0);
	free(base);
}

/* snapshot -- copies of every node page of the tree */
struct snapshot {
	uint64_t root, count, pages_free;
	unsigned n;
	uint64_t off[4096];
	uint8_t (*page)[OS_PAGE_SIZE];
};

/* take_snapshot -- remember the tree as it stands */
static void take_snapshot(const struct objstore *os, struct snapshot *s)
{
	struct os_stats st;

	os_stats(os, &st);
	s->root = os->root->catalogue_root;
	s->count = os->root->catalogue_count;
	s->pages_free = st.pages_free;
	s->n = tree_nodes(os, s->off, 4096);
	s->page = malloc((size_t)s->n * OS_PAGE_SIZE);
	for (unsigned i = 0; i < s->n; i++)
		memcpy(s->page[i], os_ptr(os, s->off[i]), OS_PAGE_SIZE);
}

/* same_as_snapshot -- whether the tree is byte for byte what it was */
static bool same_as_snapshot(const struct objstore *os, struct snapshot *s)
{
	uint64_t off[4096];
	struct os_stats st;
	bool same;

	os_stats(os, &st);
	same = os->root->catalogue_root == s->root && os->root->catalogue_count == s->count &&
	       st.pages_free == s->pages_free && tree_nodes(os, off, 4096) == s->n;
	if (!same)
		printf("    root %#llx/%#llx count %llu/%llu free %llu/%llu\n",
		       (unsigned long long)os->root->catalogue_root, (unsigned long long)s->root,
		       (unsigned long long)os->root->catalogue_count, (unsigned long long)s->count,
		       (unsigned long long)st.pages_free, (unsigned long long)s->pages_free);
	for (unsigned i = 0; same && i < s->n; i++) {
		const struct os_cat_node *was = (const void *)s->page[i];
		unsigned slots = 32 + 8u * was->count;

		/* The gap means nothing: an aborted insert leaves its bytes there. */
		same = off[i] == s->off[i] &&
		       memcmp(was, os_ptr(os, off[i]), slots) == 0 &&
		       memcmp(s->page[i] + was->heap_start,
			      (uint8_t *)os_ptr(os, off[i]) + was->heap_start,
			      OS_PAGE_SIZE - was->heap_start) == 0;
	}
	free(s->page);
	return same;
}

/* big_log_heap -- a heap of `size` bytes with a log of a quarter of it */
static void *big_log_heap(struct objstore *os, uint64_t size)
{
	struct os_create_opts opts = { .log_size = size / 4 };
	void *base = test_heap_new(size);

	if (os_create(os, base, size, host_platform(), &opts) != 0)
		abort();
	return base;
}

/* churn -- inserts and removes enough to split, merge and compact nodes */
static void churn(struct objstore *os, const struct name *v, unsigned n, uint64_t seed)
{
	for (unsigned j = 0; j < 3000; j++) {
		unsigned k = (unsigned)(test_rand(&seed) % n);
		uint64_t id;
		int err = os_cat_lookup(os, v[k].s, v[k].len, &id);

		if (err == 0)
			CHECK_EQ(os_cat_remove(os, v[k].s, v[k].len, NULL), 0);
		else
			CHECK_EQ(os_cat_insert(os, v[k].s, v[k].len, k), 0);
		if (j % 7 == 0 && k + 1 < n && os_cat_lookup(os, v[k + 1].s, v[k + 1].len, &id))
			CHECK_EQ(os_cat_rename(os, v[k].s, v[k].len, v[k + 1].s,
					       v[k + 1].len), err == 0 ? -ERR_NOENT : 0);
	}
}

CHECK_TEST(abort_restores_the_tree_exactly)
{
	struct objstore os;
	void *base = big_log_heap(&os, 64u << 20);
	unsigned n = 8000;
	struct name *v = unique_names(9, n, 24, NULL);
	struct snapshot s;

	CHECK_EQ(os_tx_begin(&os), 0);
	for (unsigned i = 0; i < n; i += 2)
		CHECK_EQ(os_cat_insert(&os, v[i].s, v[i].len, i), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	take_snapshot(&os, &s);
	CHECK_EQ(os_tx_begin(&os), 0);
	churn(&os, v, n, 1);
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK(same_as_snapshot(&os, &s));
	/* Removing everything, then aborting. */
	take_snapshot(&os, &s);
	CHECK_EQ(os_tx_begin(&os), 0);
	for (unsigned i = 0; i < n; i += 2)
		CHECK_EQ(os_cat_remove(&os, v[i].s, v[i].len, NULL), 0);
	CHECK_EQ(os.root->catalogue_root, 0);
	CHECK_EQ(os_tx_abort(&os), 0);
	CHECK(same_as_snapshot(&os, &s));
	free(v);
	free(base);
}

CHECK_TEST(power_cut_rolls_back)
{
	struct objstore os, again;
	void *base = big_log_heap(&os, 64u << 20);
	unsigned n = 8000;
	struct name *v = unique_names(13, n, 24, NULL);
	struct snapshot s;

	CHECK_EQ(os_tx_begin(&os), 0);
	for (unsigned i = 0; i < n; i += 3)
		CHECK_EQ(os_cat_insert(&os, v[i].s, v[i].len, i), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	take_snapshot(&os, &s);
	CHECK_EQ(os_tx_begin(&os), 0);
	churn(&os, v, n, 2);
	/* Power cut: no commit, open again. */
	CHECK_EQ(os_open(&again, base, 64u << 20, host_platform()), 0);
	CHECK(again.rolled_back > 0);
	CHECK(same_as_snapshot(&again, &s));
	CHECK_EQ(tree_check(&again), 0);
	free(v);
	free(base);
}

/* --- full log, full heap --------------------------------------------------- */

CHECK_TEST(full_log_fails_cleanly)
{
	struct objstore os;
	struct os_create_opts opts = { .log_size = 64 << 10 };
	void *base = test_heap_new(HEAP);
	unsigned n = 4000, done = 0, removed = 0;
	struct name *v = unique_names(17, n, 60, NULL);
	uint64_t ids[OBJECTS];
	int err = 0;

	CHECK_EQ(os_create(&os, base, HEAP, host_platform(), &opts), 0);
	make_objects(&os, ids, OBJECTS);
	/* Fill the log again and again; each time, what went in commits. */
	while (done < n) {
		unsigned before = done;

		CHECK_EQ(os_tx_begin(&os), 0);
		while (done < n && (err = os_cat_insert(&os, v[done].s, v[done].len,
							 ids[done % OBJECTS])) == 0)
			done++;
		CHECK(done == n || err == -ERR_NOSPC);
		CHECK(done > before);
		CHECK(all_bound(&os, v, done, ids, OBJECTS));
		CHECK_EQ(os_tx_commit(&os), 0);
	}
	CHECK_EQ(heap_check(&os), 0);
	/* The same for removals, with a rename now and then. */
	while (removed < n) {
		unsigned before = removed;

		CHECK_EQ(os_tx_begin(&os), 0);
		while (removed < n &&
		       (err = os_cat_remove(&os, v[removed].s, v[removed].len, NULL)) == 0)
			removed++;
		CHECK(removed == n || err == -ERR_NOSPC);
		CHECK(removed > before);
		if (removed < n)
			CHECK_EQ(os_cat_rename(&os, v[removed].s, v[removed].len, "renamed", 7),
				 -ERR_NOSPC);
		for (unsigned k = removed; k < n; k += 7) {
			uint64_t id;

			CHECK_EQ(os_cat_lookup(&os, v[k].s, v[k].len, &id), 0);
			CHECK_EQ(id, ids[k % OBJECTS]);
		}
		CHECK_EQ(os_tx_commit(&os), 0);
		CHECK_EQ(heap_check(&os), 0);
	}
	CHECK_EQ(os.root->catalogue_root, 0);
	free(v);
	free(base);
}

CHECK_TEST(full_heap_fails_cleanly)
{
	struct objstore os;
	void *base = test_create(&os, 4u << 20);
	unsigned n = 40000, done = 0, nomem = 0;
	struct name *v = unique_names(19, n, 255, NULL);
	uint64_t ids[4], off;
	struct snapshot s;
	int err = 0;

	make_objects(&os, ids, 4);
	/* Fill the heap with names, committing every 100. */
	while (err == 0 && done < n) {
		CHECK_EQ(os_tx_begin(&os), 0);
		for (unsigned i = 0; i < 100 && done < n; i++) {
			err = os_cat_insert(&os, v[done].s, v[done].len, ids[done % 4]);
			if (err)
				break;
			done++;
		}
		CHECK_EQ(os_tx_commit(&os), 0);
	}
	CHECK_EQ(err, -ERR_NOMEM);
	CHECK(done > 1000);
	for (unsigned i = 0; i < done; i++) {
		uint64_t id;

		CHECK_EQ(os_cat_lookup(&os, v[i].s, v[i].len, &id), 0);
		CHECK_EQ(id, ids[i % 4]);
	}
	CHECK_EQ(heap_check(&os), 0);
	/* With every block taken too: each insert succeeds in place or fails
	 * with -ERR_NOMEM changing nothing. */
	CHECK_EQ(os_tx_begin(&os), 0);
	while (os_alloc(&os, 64, &off) == 0)
		;
	for (unsigned i = done; i < done + 200 && i < n; i++) {
		take_snapshot(&os, &s);
		err = os_cat_insert(&os, v[i].s, v[i].len, ids[0]);
		CHECK(err == 0 || err == -ERR_NOMEM);
		if (err == 0) {
			free(s.page);
			continue;
		}
		nomem++;
		CHECK(same_as_snapshot(&os, &s));
	}
	CHECK(nomem > 0);
	CHECK_EQ(os_tx_abort(&os), 0);
	/* Everything can be removed again. */
	CHECK_EQ(os_tx_begin(&os), 0);
	for (unsigned i = 0; i < done; i++) {
		if (i % 100 == 99) {
			CHECK_EQ(os_tx_commit(&os), 0);
			CHECK_EQ(os_tx_begin(&os), 0);
		}
		CHECK_EQ(os_cat_remove(&os, v[i].s, v[i].len, NULL), 0);
	}
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(os.root->catalogue_root, 0);
	CHECK_EQ(heap_check(&os), 0);
	free(v);
	free(base);
}

/* --- corruption ------------------------------------------------------------ */

/* flip_ok -- after flipping a bit: every lookup right or -ERR_CORRUPT, at
 * least one -ERR_CORRUPT, and iteration a correct prefix */
static bool flip_ok(const struct objstore *os, const struct name *v, unsigned n,
		    const uint64_t *ids, unsigned nids, bool must_detect)
{
	struct os_cat_cursor c;
	unsigned corrupt = 0, k = 0;
	uint64_t id;
	int err;

	for (unsigned i = 0; i < n; i++) {
		err = os_cat_lookup(os, v[i].s, v[i].len, &id);
		if (err == -ERR_CORRUPT)
			corrupt++;
		else if (err || id != ids[i % nids])
			return false;
	}
	os_cat_cursor_init(&c, NULL, 0);
	while ((err = os_cat_next(os, &c, "", 0, &id)) == 0) {
		if (k >= n || c.len != v[k].len || memcmp(c.name, v[k].s, c.len) != 0 ||
		    id != ids[k % nids])
			return false;
		k++;
	}
	if (err != -ERR_CORRUPT && (err != -ERR_NOENT || k != n))
		return false;
	return corrupt > 0 || !must_detect;
}

/* flip_changes -- inserting and removing after a flip: success or -ERR_CORRUPT, no crash */
static bool flip_changes(struct objstore *os, const struct name *v, unsigned n)
{
	int a, b;

	CHECK_EQ(os_tx_begin(os), 0);
	a = os_cat_insert(os, "zz-new", 6, 1);
	b = os_cat_remove(os, v[n / 2].s, v[n / 2].len, NULL);
	CHECK_EQ(os_tx_abort(os), 0);
	return (a == 0 || a == -ERR_CORRUPT) && (b == 0 || b == -ERR_CORRUPT);
}

CHECK_TEST(every_bit_flip_in_a_leaf_is_caught)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	unsigned n = 24, bad = 0, flips = 0;
	struct name *v = unique_names(23, n, 20, NULL);
	uint64_t ids[OBJECTS];
	struct os_cat_node *leaf;
	uint8_t *b;

	make_objects(&os, ids, OBJECTS);
	bind_all(&os, v, NULL, n, ids, OBJECTS, n);
	leaf = cat_root(&os);
	CHECK_EQ(leaf->level, 0);
	b = (uint8_t *)leaf;
	print_problems = false;
	for (unsigned at = 0; at < OS_PAGE_SIZE; at++) {
		if (at >= 32 + 8u * leaf->count && at < leaf->heap_start)
			continue; /* the gap means nothing */
		for (unsigned bit = 0; bit < 8; bit++) {
			uint64_t problems;

			b[at] ^= (uint8_t)(1u << bit);
			problems = heap_check(&os);
			if (!flip_ok(&os, v, n, ids, OBJECTS, true) || !flip_changes(&os, v, n) ||
			    problems == 0) {
				if (bad++ < 5)
					printf("    flip of bit %u at byte %u: missed (%llu problems)\n",
					       bit, at, (unsigned long long)problems);
			}
			b[at] ^= (uint8_t)(1u << bit);
			flips++;
		}
	}
	print_problems = true;
	CHECK_EQ(bad, 0);
	CHECK(flips > 4000);
	CHECK_EQ(heap_check(&os), 0);
	free(v);
	free(base);
}

CHECK_TEST(bit_flips_in_a_deep_tree_never_mislead)
{
	struct objstore os;
	void *base = test_create(&os, 32u << 20);
	unsigned n = 3000, bad = 0, nodes;
	struct name *v = unique_names(29, n, 50, NULL);
	uint64_t ids[OBJECTS], off[512], seed = 31;

	/* A long shared start makes long separators: a deep tree of few names. */
	for (unsigned i = 0; i < n; i++) {
		memmove(v[i].s + 200, v[i].s, v[i].len);
		memset(v[i].s, 'p', 200);
		v[i].len = (uint8_t)(v[i].len + 200);
	}

	make_objects(&os, ids, OBJECTS);
	bind_all(&os, v, NULL, n, ids, OBJECTS, 500);
	nodes = tree_nodes(&os, off, 512);
	CHECK(tree_height(&os) >= 3);
	print_problems = false;
	for (unsigned f = 0; f < 300; f++) {
		uint64_t node = off[f < 60 ? f % 3 : test_rand(&seed) % nodes];
		uint8_t *b = os_ptr(&os, node);
		const struct os_cat_node *h = (const void *)b;
		unsigned at = (unsigned)(test_rand(&seed) % OS_PAGE_SIZE), bit = f % 8;

		if (at >= 32 + 8u * h->count && at < h->heap_start)
			at = at % 32; /* flip a header bit instead of one in the gap */
		b[at] ^= (uint8_t)(1u << bit);
		if (!flip_ok(&os, v, n, ids, OBJECTS, false) || !flip_changes(&os, v, n) ||
		    heap_check(&os) == 0) {
			if (bad++ < 5)
				printf("    flip of bit %u at byte %u of node %#llx: missed\n",
				       bit, at, (unsigned long long)node);
		}
		b[at] ^= (uint8_t)(1u << bit);
	}
	print_problems = true;
	CHECK_EQ(bad, 0);
	CHECK_EQ(heap_check(&os), 0);
	free(v);
	free(base);
}

CHECK_TEST(a_flipped_key_bit_makes_lookup_corrupt)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	struct os_cat_node *leaf;
	struct os_cat_entry *e;
	uint64_t id;

	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_insert(&os, "bin/ls", 6, 1), 0);
	CHECK_EQ(os_cat_insert(&os, "bin/cat", 7, 2), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	leaf = cat_root(&os);
	e = (void *)((uint8_t *)leaf + OS_CAT_SLOT_OFFSET(leaf->slot[1]));
	e->name[5] ^= 0x04; /* "bin/ls" -> "bin/lw" */
	CHECK_EQ(os_cat_lookup(&os, "bin/ls", 6, &id), -ERR_CORRUPT);
	CHECK_EQ(os_cat_lookup(&os, "bin/cat", 7, &id), 0);
	/* "bin/lw" is not bound, and its search only reads sound bytes. */
	CHECK_EQ(os_cat_lookup(&os, "bin/lw", 6, &id), -ERR_NOENT);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_insert(&os, "bin/ls", 6, 3), -ERR_CORRUPT);
	CHECK_EQ(os_cat_remove(&os, "bin/ls", 6, NULL), -ERR_CORRUPT);
	CHECK_EQ(os_cat_rename(&os, "bin/cat", 7, "bin/ls", 6), -ERR_CORRUPT);
	CHECK_EQ(os_cat_rename(&os, "bin/ls", 6, "bin/x", 5), -ERR_CORRUPT);
	CHECK_EQ(os_tx_abort(&os), 0);
	e->name[5] ^= 0x04;
	CHECK_EQ(os_cat_lookup(&os, "bin/ls", 6, &id), 0);
	CHECK_EQ(id, 1);
	free(base);
}

/* --- the checker ------------------------------------------------------------ */

/* reseal -- recompute a node's header checksum after a test changed it */
static void reseal(struct os_cat_node *n)
{
	n->crc = crc32c(0, n, __builtin_offsetof(struct os_cat_node, crc));
}

CHECK_TEST(checker_reports_what_is_wrong)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint64_t ids[3], s0, s1;
	struct os_cat_node *leaf;
	struct os_cat_entry *e;

	make_objects(&os, ids, 3);
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_insert(&os, "b/a", 3, ids[0]), 0);
	CHECK_EQ(os_cat_insert(&os, "b/x", 3, ids[1]), 0);
	CHECK_EQ(os_cat_insert(&os, "c", 1, ids[2]), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(heap_check(&os), 0);
	leaf = cat_root(&os);

	/* Two slots swapped: keys out of order. */
	s0 = leaf->slot[0];
	s1 = leaf->slot[1];
	leaf->slot[0] = s1;
	leaf->slot[1] = s0;
	print_problems = false;
	CHECK(heap_check(&os) >= 1);
	CHECK(strstr(last_problem, "keys out of order at slot 1 ('b/x' >= 'b/a')") != NULL);
	leaf->slot[0] = s0;
	leaf->slot[1] = s1;

	/* A name bound to an object that is gone. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_obj_delete(&os, ids[2]), 0);
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(heap_check(&os), 1);
	CHECK(strstr(last_problem, "name 'c' refers to object") != NULL);

	/* The count in the root block. */
	CHECK_EQ(os_tx_begin(&os), 0);
	CHECK_EQ(os_cat_remove(&os, "c", 1, NULL), 0);
	CHECK_EQ(os_log_root(&os), 0);
	os.root->catalogue_count = 7;
	CHECK_EQ(os_tx_commit(&os), 0);
	CHECK_EQ(heap_check(&os), 1);
	CHECK(strstr(last_problem, "2 names reachable, the root block counts 7") != NULL);

	/* A key bit: the entry's checksum. */
	e = (void *)((uint8_t *)leaf + OS_CAT_SLOT_OFFSET(leaf->slot[0]));
	e->name[0] ^= 1;
	CHECK(heap_check(&os) >= 1);
	e->name[0] ^= 1;
	/* The level: a leaf claiming to be internal. */
	leaf->level = 1;
	reseal(leaf);
	CHECK(heap_check(&os) >= 1);
	leaf->level = 0;
	reseal(leaf);
	print_problems = true;
	free(base);
}

CHECK_TEST(every_changed_byte_lies_in_a_range_of_the_transaction)
{
	struct objstore os;
	void *base = test_create(&os, HEAP);
	uint8_t *before = malloc(HEAP);
	static struct name v[3000];
	uint64_t seed = 7, unlogged = 0;

	for (unsigned i = 0; i < 3000; i++)
		random_name(&seed, &v[i], 40);
	for (unsigned round = 0; round < 3 * 30; round++) {
		unsigned phase = round / 30, first = round % 30 * 100;

		memcpy(before, base, HEAP);
		CHECK_EQ(os_tx_begin(&os), 0);
		for (unsigned k = first; k < first + 100; k++) {
			if (phase == 0)
				os_cat_insert(&os, v[k].s, v[k].len, k + 1);
			else if (phase == 1 && k % 3)
				os_cat_remove(&os, v[k].s, v[k].len, NULL);
			else if (phase == 2 && k % 3 == 0)
				os_cat_rename(&os, v[k].s, v[k].len, v[(k + 1) % 3000].s,
					      v[(k + 1) % 3000].len);
		}
		unlogged += test_unlogged_changes(&os, before);
		CHECK_EQ(os_tx_commit(&os), 0);
	}
	CHECK_EQ(unlogged, 0);
	CHECK_EQ(tree_check(&os), 0);
	free(before);
	free(base);
}

int main(void)
{
	return check_run_all();
}
