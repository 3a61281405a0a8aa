/*
 * cmd_du.c -- du [PREFIX]: the bytes the objects under each name prefix
 * hold, largest first (read-only).
 *
 * The names under PREFIX group by their next '/': with PREFIX "" the
 * groups are "bin/", "notes/", a name without '/' stands alone; with
 * "notes/" they are "notes/a", "notes/old/". An object holds its data
 * pages (a paged object: 4 KiB each, however sparse its size) or its size
 * (a small object, in a slab block). An object bound to several names of
 * one group counts once in it, and once in the total.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objtool.h"

/* One name under the prefix: its group (a prefix of the name) and object. */
struct du_name {
	char group[OS_NAME_MAX];
	uint16_t len;
	uint64_t id;
	uint64_t bytes;
};

/* One line of the output. */
struct du_group {
	char group[OS_NAME_MAX];
	uint16_t len;
	uint64_t bytes, objects;
};

/* held -- the bytes object `id` takes in the heap; an objstore error or 0 */
static int held(struct image *img, uint64_t id, uint64_t *bytes)
{
	struct os_obj_info info;
	int err = os_obj_stat(&img->os, id, &info);

	if (!err)
		*bytes = info.placement == OS_PLACE_PAGED ? info.pages * OS_PAGE_SIZE : info.size;
	return err;
}

/* by_group_then_id -- qsort: names of one group together, ids ascending */
static int by_group_then_id(const void *pa, const void *pb)
{
	const struct du_name *a = pa, *b = pb;
	int c = memcmp(a->group, b->group, a->len < b->len ? a->len : b->len);

	if (c || a->len != b->len)
		return c ? c : (a->len < b->len ? -1 : 1);
	return a->id < b->id ? -1 : a->id > b->id;
}

/* by_id -- qsort: ids ascending */
static int by_id(const void *pa, const void *pb)
{
	const struct du_name *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* by_bytes -- qsort: the largest group first, then by name */
static int by_bytes(const void *pa, const void *pb)
{
	const struct du_group *a = pa, *b = pb;
	int c;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	c = memcmp(a->group, b->group, a->len < b->len ? a->len : b->len);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* du_json -- du --json: the groups and the total, one object */
static void du_json(const struct du_group *g, size_t n, uint64_t total, uint64_t objects)
{
	printf("{\"groups\": [");
	for (size_t i = 0; i < n; i++) {
		printf("%s{\"names\": ", i ? ", " : "");
		json_string(g[i].group, g[i].len);
		printf(", \"bytes\": %" PRIu64 ", \"objects\": %" PRIu64 "}", g[i].bytes,
		       g[i].objects);
	}
	printf("], \"total\": {\"bytes\": %" PRIu64 ", \"objects\": %" PRIu64 "}}\n", total,
	       objects);
}

/* collect -- every name under prefix, with its group and the bytes its
 * object holds; an exit status */
static int collect(struct image *img, const char *prefix, struct du_name **out,
		   size_t *count)
{
	uint64_t plen = strlen(prefix), id;
	struct os_stats st;
	struct os_cat_cursor c;
	struct du_name *v;
	size_t n = 0;
	int err;

	os_stats(&img->os, &st);
	v = calloc(st.names ? st.names : 1, sizeof(*v));
	if (!v)
		return fail(EXIT_FAILED, "du: out of memory for %" PRIu64 " names", st.names);
	os_cat_cursor_init(&c, prefix, plen);
	while ((err = os_cat_next(&img->os, &c, prefix, plen, &id)) == 0) {
		const char *slash = memchr(c.name + plen, '/', c.len - plen);
		struct du_name *e = &v[n];

		/* Bound the walk: a corrupt catalogue must not overrun v. */
		if (n == st.names) {
			free(v);
			return fail(EXIT_CORRUPT, "du: the catalogue holds more than its "
				    "%" PRIu64 " names: it is corrupt (run 'objtool %s check')",
				    st.names, img->path);
		}
		e->len = (uint16_t)(slash ? (uint64_t)(slash - c.name) + 1 : c.len);
		memcpy(e->group, c.name, e->len);
		e->id = id;
		err = held(img, id, &e->bytes);
		if (err) {
			char text[NAME_TEXT_MAX];

			free(v);
			return fail(os_err_exit(err), "du: '%s' is bound to object #%" PRIu64
				    ": %s", name_text(text, c.name, c.len), id, os_err_text(err));
		}
		n++;
	}
	if (err != -ERR_NOENT) {
		free(v);
		return fail(os_err_exit(err), "du: reading the catalogue: %s", os_err_text(err));
	}
	*out = v;
	*count = n;
	return EXIT_OK;
}

/* run_du -- objtool IMAGE du [PREFIX] */
static int run_du(struct image *img, const struct args *a)
{
	const char *prefix = a->npos ? a->pos[0] : "";
	struct du_group *groups;
	struct du_name *v;
	uint64_t total = 0, objects = 0;
	size_t n, ngroups = 0;
	char s[32];
	int status;

	if (strlen(prefix) > OS_NAME_MAX)
		return fail(EXIT_USAGE, "du: a prefix is at most %d bytes", OS_NAME_MAX);
	status = collect(img, prefix, &v, &n);
	if (status)
		return status;
	groups = calloc(n ? n : 1, sizeof(*groups));
	if (!groups) {
		free(v);
		return fail(EXIT_FAILED, "du: out of memory");
	}
	qsort(v, n, sizeof(*v), by_group_then_id);
	for (size_t i = 0; i < n; i++) {
		bool same_group = i && v[i - 1].len == v[i].len &&
				  memcmp(v[i - 1].group, v[i].group, v[i].len) == 0;

		if (!same_group) {
			memcpy(groups[ngroups].group, v[i].group, v[i].len);
			groups[ngroups++].len = v[i].len;
		}
		if (same_group && v[i - 1].id == v[i].id)
			continue; /* two names of one object in one group */
		groups[ngroups - 1].bytes += v[i].bytes;
		groups[ngroups - 1].objects++;
	}
	qsort(groups, ngroups, sizeof(*groups), by_bytes);
	/* the total: each object once, whatever its names */
	qsort(v, n, sizeof(*v), by_id);
	for (size_t i = 0; i < n; i++) {
		if (i && v[i - 1].id == v[i].id)
			continue;
		total += v[i].bytes;
		objects++;
	}
	if (a->opt[1]) {
		du_json(groups, ngroups, total, objects);
		free(groups);
		free(v);
		return EXIT_OK;
	}
	printf("%14s %10s %8s  %s\n", "BYTES", "SIZE", "OBJECTS", "NAMES");
	for (size_t i = 0; i < ngroups; i++) {
		printf("%14" PRIu64 " %10s %8" PRIu64 "  ", groups[i].bytes,
		       size_text(s, sizeof(s), groups[i].bytes), groups[i].objects);
		print_escaped(groups[i].group, groups[i].len);
		putchar('\n');
	}
	printf("%14" PRIu64 " %10s %8" PRIu64 "  total", total, size_text(s, sizeof(s), total),
	       objects);
	if (*prefix) {
		fputs(" under ", stdout);
		print_escaped(prefix, strlen(prefix));
	}
	putchar('\n');
	free(groups);
	free(v);
	return EXIT_OK;
}

const struct command cmd_du = {
	.name = "du",
	.access = ACCESS_READ,
	.min_pos = 0,
	.max_pos = 1,
	.opts = { { "--snapshot", 0, true }, { "--json", 0, false } },
	.usage = "du [PREFIX] [--snapshot NAME] [--json]",
	.summary = "the bytes held under each name prefix, largest first",
	.help = "Groups the names that begin with PREFIX by their next '/' (bin/,\n"
		"notes/old/; a name without one stands alone) and prints, largest\n"
		"first, the bytes the group's objects hold: a paged object's data pages\n"
		"(4 KiB each, however sparse), a small object's size. An object with\n"
		"several names in a group counts once there; the total line counts\n"
		"each object once.\n\n"
		"  --snapshot NAME  read snapshot NAME's state instead of the live one\n"
		"  --json           one JSON object: groups (names, bytes, objects, in the\n"
		"                   same order) and total (bytes, objects)\n",
	.run = run_du,
};
