/*
 * cmd_info.c -- the commands that describe an image: info, ls, stat.
 *
 * All three are read-only: they run on objtool's private view of the
 * image (image.c), in which an unfinished transaction has been rolled
 * back, so they show the image as the next open will see it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kformat/kformat.h"
#include "objtool.h"

/* --- info --------------------------------------------------------------- */

/* print_heap_id -- the 16-byte heap id, as a UUID is written */
static void print_heap_id(const uint8_t id[16])
{
	for (int i = 0; i < 16; i++)
		printf("%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", id[i]);
	putchar('\n');
}

/* print_time -- a creation stamp in ns since 1970, in UTC */
static void print_time(uint64_t ns)
{
	char text[32];

	if (!*fmt_time(text, sizeof(text), ns, ""))
		puts("unknown");
	else
		printf("%s UTC\n", text);
}

/* print_app_roots -- the application's roots: "[0] #5 kernel", or "none" */
static void print_app_roots(const struct image *img)
{
	struct os_obj_info info;
	bool any = false;

	for (unsigned i = 0; i < OS_APP_ROOTS; i++) {
		uint64_t id = os_app_root(&img->os, i);

		if (!id)
			continue;
		printf("%s[%u] #%" PRIu64 " %s", any ? ", " : "", i, id,
		       os_obj_stat(&img->os, id, &info) ? "(missing)" : os_obj_type_name(info.type));
		any = true;
	}
	puts(any ? "" : "none");
}

/* The figures of info --stats that take a walk over the heap. */
struct heap_stats {
	uint64_t objects[OS_TYPE_MAX + 1], bytes[OS_TYPE_MAX + 1], held[OS_TYPE_MAX + 1];
	uint64_t slabs[OS_SIZE_CLASSES], slots_used[OS_SIZE_CLASSES];
	uint64_t whole_pages, free_pages, largest_free_run, free_runs;
	uint64_t log_high_water;
};

/* walk_objects -- objects, bytes and bytes held per type; an exit status */
static int walk_objects(const struct image *img, struct heap_stats *hs)
{
	struct os_obj_info info;
	uint64_t id = 0, seen = 0, count;
	struct os_stats st;
	int err;

	os_stats(&img->os, &st);
	count = st.objects;
	while ((err = os_obj_next(&img->os, id, &id)) == 0) {
		if (++seen > count)
			return fail(EXIT_CORRUPT, "info: the index holds more than its %" PRIu64
				    " objects: it is corrupt (run 'objtool %s check')", count,
				    img->path);
		err = os_obj_stat(&img->os, id, &info);
		if (err)
			return fail(os_err_exit(err), "info: object #%" PRIu64 ": %s", id,
				    os_err_text(err));
		if (info.type <= OS_TYPE_MAX) {
			hs->objects[info.type]++;
			hs->bytes[info.type] += info.size;
			hs->held[info.type] += info.placement == OS_PLACE_PAGED ?
					       info.pages * OS_PAGE_SIZE : info.size;
		}
		id++;
	}
	if (err != -ERR_NOENT)
		return fail(os_err_exit(err), "info: listing the objects: %s", os_err_text(err));
	return EXIT_OK;
}

/* free_pages_run -- count `n` free pages following a run of `*run` */
static void free_pages_run(struct heap_stats *hs, uint64_t *run, uint64_t n)
{
	if (!n)
		return;
	hs->free_pages += n;
	hs->free_runs += *run == 0;
	*run += n;
	if (*run > hs->largest_free_run)
		hs->largest_free_run = *run;
}

/* walk_pages -- slabs and their slots, whole pages, free runs, from the
 * page descriptors below the never-used tail (one free run of its own);
 * the log's high water from its bytes */
static void walk_pages(const struct image *img, struct heap_stats *hs)
{
	const struct os_superblock *sb = img->os.sb;
	const struct os_root *r = (const void *)(img->base + sb->root_offset);
	const struct os_page_desc *d = (const void *)(img->base + sb->desc_offset);
	const uint8_t *log = img->base + sb->log_offset;
	uint64_t run = 0, formatted = os_formatted_pages(sb, r);

	for (uint64_t p = 0; p < formatted; p++) {
		if (d[p].kind == OS_PAGE_FREE) {
			free_pages_run(hs, &run, 1);
			continue;
		}
		run = 0;
		if (d[p].kind == OS_PAGE_WHOLE) {
			hs->whole_pages++;
		} else if (d[p].kind == OS_PAGE_SLAB && d[p].size_class < OS_SIZE_CLASSES) {
			hs->slabs[d[p].size_class]++;
			hs->slots_used[d[p].size_class] += d[p].used;
		}
	}
	free_pages_run(hs, &run, sb->page_count - formatted); /* the never-used tail */
	/* Records are written from the log's start and never erased: its last
	 * non-zero line is as far as any transaction ever reached. */
	for (uint64_t at = sb->log_size; at >= OS_CACHE_LINE; at -= OS_CACHE_LINE) {
		const uint64_t *line = (const void *)(log + at - OS_CACHE_LINE);
		uint64_t any = 0;

		for (unsigned w = 0; w < OS_CACHE_LINE / 8; w++)
			any |= line[w];
		if (any) {
			hs->log_high_water = at;
			break;
		}
	}
}

/* kernel_age -- power-ons and commits from the kernel's root object, if
 * app root 0 is one; false when the heap has none (objtool only) */
static bool kernel_age(const struct image *img, uint64_t *power_ons, uint64_t *commits,
		       uint64_t *running_ns)
{
	struct os_obj_info info;
	uint64_t id = os_app_root(&img->os, 0);
	const struct kroot *k;

	if (!id || os_obj_stat(&img->os, id, &info) || info.type != OS_TYPE_KERNEL ||
	    info.size < sizeof(*k))
		return false;
	k = os_obj_data(&img->os, id);
	if (!k || k->magic != KROOT_MAGIC)
		return false;
	*power_ons = k->power_ons;
	*commits = k->commits;
	*running_ns = k->mono_ns;
	return true;
}

/* gather_stats -- the walks info --stats reports; an exit status */
static int gather_stats(const struct image *img, struct heap_stats *hs)
{
	int status = walk_objects(img, hs);

	if (!status)
		walk_pages(img, hs);
	return status;
}

/* print_stats -- info --stats: what pmempool info -s and lx-slabinfo tell */
static void print_stats(const struct image *img, const struct os_stats *st,
			const struct heap_stats *hs)
{
	uint64_t power_ons, commits, running_ns;
	char s1[32], s2[32];

	printf("\nobjects by type:  %-10s %8s %14s %14s\n", "TYPE", "OBJECTS", "BYTES", "HELD");
	for (unsigned t = 0; t <= OS_TYPE_MAX; t++)
		if (hs->objects[t])
			printf("                  %-10s %8" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n",
			       os_obj_type_name((uint16_t)t), hs->objects[t], hs->bytes[t], hs->held[t]);
	printf("slabs:            %-10s %8s %14s %14s\n", "BLOCK", "PAGES", "BLOCKS USED", "OCCUPANCY");
	for (unsigned c = 0; c < OS_SIZE_CLASSES; c++) {
		uint64_t slots = hs->slabs[c] * (OS_PAGE_SIZE >> (c + 6));

		if (hs->slabs[c])
			printf("                  %-10u %8" PRIu64 " %14" PRIu64 " %13" PRIu64 "%%\n",
			       64u << c, hs->slabs[c], hs->slots_used[c],
			       hs->slots_used[c] * 100 / slots);
	}
	printf("whole pages:      %" PRIu64 "\n", hs->whole_pages);
	printf("free pages:       %" PRIu64 " (%s) in %" PRIu64 " run%s, the largest %" PRIu64
	       " pages (%s)\n", hs->free_pages,
	       size_text(s1, sizeof(s1), hs->free_pages * OS_PAGE_SIZE), hs->free_runs,
	       hs->free_runs == 1 ? "" : "s",
	       hs->largest_free_run, size_text(s2, sizeof(s2), hs->largest_free_run * OS_PAGE_SIZE));
	printf("fragmentation:    %" PRIu64 "%% (free pages outside the largest run)\n",
	       hs->free_pages ? (hs->free_pages - hs->largest_free_run) * 100 / hs->free_pages : 0);
	printf("log high water:   %s of %s (the furthest any transaction reached)\n",
	       size_text(s1, sizeof(s1), hs->log_high_water), size_text(s2, sizeof(s2), st->log_size));
	printf("age:              epoch %" PRIu64, img->disk_epoch);
	if (kernel_age(img, &power_ons, &commits, &running_ns))
		printf(", %" PRIu64 " power-on%s, %" PRIu64 " kernel commits, %" PRIu64
		       " s of running time\n", power_ons, power_ons == 1 ? "" : "s", commits,
		       running_ns / 1000000000u);
	else
		printf(" (no kernel has run on this heap)\n");
}

/* info_json -- info [--stats] --json: the same figures, one JSON object */
static void info_json(const struct image *img, const struct os_stats *st,
		      const struct heap_stats *hs)
{
	const struct os_superblock *sb = (const void *)img->base;
	uint64_t power_ons, commits, running_ns;
	struct os_obj_info info;
	bool first = true;

	printf("{\"image\": ");
	json_string(img->path, strlen(img->path));
	printf(", \"layout_version\": \"%u.%u\", \"heap_id\": \"", sb->layout_major,
	       sb->layout_minor);
	for (int i = 0; i < 16; i++)
		printf("%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", sb->heap_id[i]);
	printf("\", \"created_ns\": %" PRIu64 ", \"size\": %" PRIu64 ", \"page_size\": %u, "
	       "\"data_pages\": %" PRIu64 ", \"pages_used\": %" PRIu64 ", \"pages_free\": %" PRIu64
	       ", \"page_capacity\": %" PRIu64 ", \"max_size\": %" PRIu64
	       ", \"objects\": %" PRIu64 ", \"names\": %" PRIu64 ", \"app_roots\": [",
	       sb->create_time, st->heap_size, OS_PAGE_SIZE, st->page_count,
	       st->page_count - st->pages_free, st->pages_free, st->page_capacity,
	       st->max_size, st->objects, st->names);
	for (unsigned i = 0; i < OS_APP_ROOTS; i++) {
		uint64_t id = os_app_root(&img->os, i);

		if (!id)
			continue;
		printf("%s{\"index\": %u, \"id\": %" PRIu64 ", \"type\": \"%s\"}", first ? "" : ", ",
		       i, id, os_obj_stat(&img->os, id, &info) ? "missing" :
		       os_obj_type_name(info.type));
		first = false;
	}
	printf("], \"committed_epoch\": %" PRIu64 ", \"log_size\": %" PRIu64
	       ", \"unfinished_transaction\": %s", img->disk_epoch, st->log_size,
	       img->had_unfinished_tx ? "true" : "false");
	if (hs) {
		printf(", \"stats\": {\"types\": [");
		first = true;
		for (unsigned t = 0; t <= OS_TYPE_MAX; t++) {
			if (!hs->objects[t])
				continue;
			printf("%s{\"type\": \"%s\", \"objects\": %" PRIu64 ", \"bytes\": %" PRIu64
			       ", \"held\": %" PRIu64 "}", first ? "" : ", ",
			       os_obj_type_name((uint16_t)t), hs->objects[t], hs->bytes[t], hs->held[t]);
			first = false;
		}
		printf("], \"slabs\": [");
		first = true;
		for (unsigned c = 0; c < OS_SIZE_CLASSES; c++) {
			if (!hs->slabs[c])
				continue;
			printf("%s{\"block\": %u, \"pages\": %" PRIu64 ", \"blocks_used\": %" PRIu64
			       ", \"blocks\": %" PRIu64 "}", first ? "" : ", ", 64u << c, hs->slabs[c],
			       hs->slots_used[c], hs->slabs[c] * (OS_PAGE_SIZE >> (c + 6)));
			first = false;
		}
		printf("], \"whole_pages\": %" PRIu64 ", \"free_pages\": %" PRIu64
		       ", \"free_runs\": %" PRIu64 ", \"largest_free_run\": %" PRIu64
		       ", \"log_high_water\": %" PRIu64, hs->whole_pages, hs->free_pages,
		       hs->free_runs, hs->largest_free_run, hs->log_high_water);
		if (kernel_age(img, &power_ons, &commits, &running_ns))
			printf(", \"power_ons\": %" PRIu64 ", \"kernel_commits\": %" PRIu64
			       ", \"running_ns\": %" PRIu64, power_ons, commits, running_ns);
		printf("}");
	}
	printf("}\n");
}

/* run_info -- objtool IMAGE info [--stats] [--json] */
static int run_info(struct image *img, const struct args *a)
{
	const struct os_superblock *sb = (const void *)img->base;
	struct heap_stats hs = { 0 };
	struct os_stats st;
	char s1[32], s2[32];
	int status = a->opt[0] ? gather_stats(img, &hs) : EXIT_OK;

	if (status)
		return status;
	os_stats(&img->os, &st);
	if (a->opt[1]) {
		info_json(img, &st, a->opt[0] ? &hs : NULL);
		return EXIT_OK;
	}
	printf("image:            %s\n", img->path);
	printf("layout version:   %u.%u\n", sb->layout_major, sb->layout_minor);
	printf("heap id:          ");
	print_heap_id(sb->heap_id);
	printf("created:          ");
	print_time(sb->create_time);
	printf("size:             %s (%" PRIu64 " bytes)\n",
	       size_text(s1, sizeof(s1), st.heap_size), st.heap_size);
	printf("data pages:       %" PRIu64 " of %u bytes: %" PRIu64 " used, %" PRIu64
	       " free (%s)\n", st.page_count, OS_PAGE_SIZE,
	       st.page_count - st.pages_free, st.pages_free,
	       size_text(s2, sizeof(s2), st.pages_free * OS_PAGE_SIZE));
	if (st.max_size > st.heap_size)
		printf("can grow to:      %s (room for %" PRIu64 " data pages)\n",
		       size_text(s1, sizeof(s1), st.max_size), st.page_capacity);
	else
		printf("can grow to:      no larger (layout %u.%u, or made without room)\n",
		       sb->layout_major, sb->layout_minor);
	if (img->size > st.heap_size)
		printf("file:             %s, %s past the heap (objtool IMAGE grow, or a "
		       "power-on, takes it)\n", size_text(s1, sizeof(s1), img->size),
		       size_text(s2, sizeof(s2), img->size - st.heap_size));
	printf("objects:          %" PRIu64 "\n", st.objects);
	printf("names:            %" PRIu64 "\n", st.names);
	printf("app roots:        ");
	print_app_roots(img);
	printf("committed epoch:  %" PRIu64 "\n", img->disk_epoch);
	printf("log:              %s, ", size_text(s1, sizeof(s1), st.log_size));
	if (img->had_unfinished_tx)
		printf("holds an unfinished transaction (shown rolled back, as the "
		       "next open will roll it back)\n");
	else
		printf("empty (no unfinished transaction)\n");
	if (a->opt[0])
		print_stats(img, &st, &hs);
	return EXIT_OK;
}

const struct command cmd_info = {
	.name = "info",
	.access = ACCESS_READ,
	.min_pos = 0,
	.max_pos = 0,
	.opts = { { "--stats", 0, false }, { "--json", 0, false } },
	.usage = "info [--stats] [--json]",
	.summary = "layout version, heap id, size, pages, counts, epoch, log",
	.help = "Describes the image: its layout version and heap id, when it was\n"
		"created, its size, the data pages used and free, the number of objects\n"
		"and of names, the application's roots (the kernel's root object is\n"
		"[0]), the committed epoch (which advances by one with every\n"
		"transaction), the size of the undo log, and whether the log holds a\n"
		"transaction that did not commit (a power cut, or a killed writer).\n"
		"Counts are shown as the next open will see them: with such a\n"
		"transaction rolled back.\n\n"
		"  --stats   also: objects, bytes and bytes held (data pages, or a small\n"
		"            object's size) by type; slabs by block size with their\n"
		"            occupancy; whole pages; free pages, their runs and the\n"
		"            largest; fragmentation (free pages outside the largest run);\n"
		"            the log's high water (its last non-zero line: records are\n"
		"            never erased); the heap's age in epochs and, once a kernel\n"
		"            has run on it, power-ons, commits and running time\n"
		"  --json    the same as one JSON object (docs/objtool.md lists its fields)\n",
	.run = run_info,
};

/* --- ls ----------------------------------------------------------------- */

/* name_count -- the names the root block counts: a bound on catalogue walks */
static uint64_t name_count(const struct image *img)
{
	struct os_stats st;

	os_stats(&img->os, &st);
	return st.names;
}

struct ls_entry {
	char name[OS_NAME_MAX];
	uint16_t len;
	uint64_t id;
	int err;                    /* os_obj_stat's, for -l */
	struct os_obj_info info;
};

struct ls_list {
	struct ls_entry *v;
	size_t n, cap;
};

/* ls_push -- append a copy of the cursor's name and its id */
static struct ls_entry *ls_push(struct ls_list *l, const struct os_cat_cursor *c,
				uint64_t id)
{
	struct ls_entry *e;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		void *v = realloc(l->v, cap * sizeof(*l->v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	e = &l->v[l->n++];
	memcpy(e->name, c->name, c->len);
	e->len = c->len;
	e->id = id;
	return e;
}

/* digits -- decimal width of v */
static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Column widths of ls -l. */
struct ls_widths {
	int id, type, size, ref, epoch;
};

#define WIDEN(w, v) ((w) = (v) > (w) ? (v) : (w))

/* ls_measure -- the widths that align every entry's columns */
static void ls_measure(const struct ls_list *l, struct ls_widths *w)
{
	*w = (struct ls_widths){ 1, 1, 1, 1, 1 };
	for (size_t i = 0; i < l->n; i++) {
		const struct ls_entry *e = &l->v[i];

		WIDEN(w->id, digits(e->id) + 1);
		if (e->err)
			continue;
		WIDEN(w->type, (int)strlen(os_obj_type_name(e->info.type)));
		WIDEN(w->size, digits(e->info.size));
		WIDEN(w->ref, digits(e->info.refcount));
		WIDEN(w->epoch, digits(e->info.modified_epoch));
	}
}

/* ls_row -- one line of ls -l: #id type size refs epoch name ("?" if unreadable) */
static void ls_row(const struct ls_entry *e, const struct ls_widths *w)
{
	char id[24];

	snprintf(id, sizeof(id), "#%" PRIu64, e->id);
	if (e->err)
		printf("%*s %-*s %*s %*s %*s ", w->id, id, w->type, "?", w->size, "?",
		       w->ref, "?", w->epoch, "?");
	else
		printf("%*s %-*s %*" PRIu64 " %*" PRIu32 " %*" PRIu64 " ", w->id, id,
		       w->type, os_obj_type_name(e->info.type), w->size, e->info.size,
		       w->ref, e->info.refcount, w->epoch, e->info.modified_epoch);
	print_escaped(e->name, e->len);
	putchar('\n');
}

/* ls_long -- print the entries as aligned columns, then what was unreadable */
static int ls_long(const struct ls_list *l)
{
	char text[NAME_TEXT_MAX];
	struct ls_widths w;
	int status = EXIT_OK;

	ls_measure(l, &w);
	for (size_t i = 0; i < l->n; i++)
		ls_row(&l->v[i], &w);
	for (size_t i = 0; i < l->n; i++) {
		const struct ls_entry *e = &l->v[i];
		bool dangling = e->err == -ERR_NOENT;

		if (!e->err)
			continue;
		status = fail(dangling ? EXIT_CORRUPT : os_err_exit(e->err),
			      "ls: '%s' is bound to object #%" PRIu64 "%s%s",
			      name_text(text, e->name, e->len), e->id,
			      dangling ? ", which does not exist" : ": ",
			      dangling ? "" : os_err_text(e->err));
	}
	return status;
}

/* ls_json -- ls --json: every entry as a JSON object, in one array */
static int ls_json(const struct ls_list *l)
{
	printf("[");
	for (size_t i = 0; i < l->n; i++) {
		const struct ls_entry *e = &l->v[i];

		printf("%s{\"name\": ", i ? ", " : "");
		json_string(e->name, e->len);
		printf(", \"id\": %" PRIu64, e->id);
		if (!e->err)
			printf(", \"type\": \"%s\", \"size\": %" PRIu64 ", \"refcount\": %" PRIu32
			       ", \"modified_epoch\": %" PRIu64, os_obj_type_name(e->info.type),
			       e->info.size, e->info.refcount, e->info.modified_epoch);
		printf("}");
	}
	printf("]\n");
	return EXIT_OK;
}

/* ls_walk -- print (or, for -l, collect) the names that begin with prefix */
static int ls_walk(struct image *img, const char *prefix, bool long_form,
		   struct ls_list *list)
{
	uint64_t plen = strlen(prefix), names = name_count(img), seen = 0, id;
	struct os_cat_cursor c;
	struct ls_entry *e;
	int err;

	os_cat_cursor_init(&c, prefix, plen);
	while ((err = os_cat_next(&img->os, &c, prefix, plen, &id)) == 0) {
		/* Bound the walk: a corrupt catalogue must not make ls run forever. */
		if (++seen > names)
			return fail(EXIT_CORRUPT, "ls: the catalogue holds more than its "
				    "%" PRIu64 " names: it is corrupt (run 'objtool %s check')",
				    names, img->path);
		if (!long_form) {
			print_escaped(c.name, c.len);
			putchar('\n');
			continue;
		}
		e = ls_push(list, &c, id);
		if (!e)
			return fail(EXIT_FAILED, "ls: out of memory");
		e->err = os_obj_stat(&img->os, id, &e->info);
	}
	if (err != -ERR_NOENT)
		return fail(os_err_exit(err), "ls: reading the catalogue: %s",
			    os_err_text(err));
	return EXIT_OK;
}

/* run_ls -- objtool IMAGE ls [-l] [PREFIX] */
static int run_ls(struct image *img, const struct args *a)
{
	const char *prefix = a->npos ? a->pos[0] : "";
	bool json = a->opt[2] != NULL, long_form = a->opt[0] != NULL || json;
	struct ls_list list = { 0 };
	int status;

	if (strlen(prefix) > OS_NAME_MAX)
		return fail(EXIT_USAGE, "ls: a prefix is at most %d bytes", OS_NAME_MAX);
	status = ls_walk(img, prefix, long_form, &list);
	if (!status && json) {
		ls_json(&list);
		/* a name bound to nothing is in the array without its fields,
		 * and said as with -l */
		for (size_t i = 0; i < list.n && !status; i++)
			if (list.v[i].err)
				status = fail(EXIT_CORRUPT, "ls: '%.*s' is bound to object #%" PRIu64
					      ": %s", (int)list.v[i].len, list.v[i].name,
					      list.v[i].id, os_err_text(list.v[i].err));
	} else if (!status && long_form) {
		status = ls_long(&list);
	}
	free(list.v);
	return status;
}

const struct command cmd_ls = {
	.name = "ls",
	.access = ACCESS_READ,
	.min_pos = 0,
	.max_pos = 1,
	.opts = { { "--long", 'l', false }, { "--snapshot", 0, true }, { "--json", 0, false } },
	.usage = "ls [-l] [PREFIX] [--snapshot NAME] [--json]",
	.summary = "names in the catalogue, in order",
	.help = "Lists the names in the catalogue in byte order (memcmp, shorter\n"
		"first), one a line; with PREFIX, only the names that begin with it\n"
		"(names group by convention with '/': ls bin/). Control bytes in a name\n"
		"print as \\xNN and a backslash as \\\\.\n\n"
		"  -l, --long   aligned columns: #ID, TYPE, SIZE (bytes), REFCOUNT,\n"
		"               MODIFIED (the epoch of the last change), NAME\n"
		"  --json       the -l fields as a JSON array of objects: name, id, type,\n"
		"               size, refcount, modified_epoch\n"
		"\n  --snapshot NAME  read snapshot NAME's state instead of the live one\n"
		"                   (objtool IMAGE snapshots lists them; exit status 8\n"
		"                   if there is none of that name)\n",
	.run = run_ls,
};

/* --- stat --------------------------------------------------------------- */

/* print_names_of -- every name bound to `id` (a scan of the catalogue):
 * quoted and escaped after "names:", or as JSON strings */
static int print_names_of(struct image *img, uint64_t id, bool json)
{
	struct os_cat_cursor c;
	uint64_t found, n = 0, seen = 0, names = name_count(img);
	int err;

	if (!json)
		printf("names:     ");
	os_cat_cursor_init(&c, "", 0);
	while ((err = os_cat_next(&img->os, &c, "", 0, &found)) == 0 && ++seen <= names) {
		if (found != id)
			continue;
		if (json) {
			printf("%s", n++ ? ", " : "");
			json_string(c.name, c.len);
			continue;
		}
		printf("%s'", n++ ? ", " : "");
		print_escaped(c.name, c.len);
		putchar('\'');
	}
	if (!json)
		printf("%s\n", n ? "" : "(none)");
	if (seen > names)
		return fail(EXIT_CORRUPT, "stat: the catalogue holds more than its "
			    "%" PRIu64 " names: it is corrupt", names);
	if (err != -ERR_NOENT)
		return fail(os_err_exit(err), "stat: reading the catalogue: %s",
			    os_err_text(err));
	return EXIT_OK;
}

/* mtime_text -- a header's mtime as UTC with its nanoseconds, or "unknown" (0) */
static const char *mtime_text(char *s, size_t n, int64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000);
	int64_t frac = ns % 1000000000;
	struct tm tm;

	if (!ns)
		return "unknown";
	if (frac < 0) {
		frac += 1000000000;
		sec--;
	}
	if (!gmtime_r(&sec, &tm))
		snprintf(s, n, "%" PRId64 " ns", ns);
	else
		snprintf(s, n, "%04d-%02d-%02d %02d:%02d:%02d.%09" PRId64 " UTC",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
			 tm.tm_min, tm.tm_sec, frac);
	return s;
}

/* stat_json -- stat --json: the header's fields and the names, one object */
static int stat_json(struct image *img, const struct os_obj_info *info)
{
	int status;

	printf("{\"id\": %" PRIu64 ", \"type\": \"%s\", \"size\": %" PRIu64
	       ", \"placement\": \"%s\", \"pages\": %" PRIu64 ", \"refcount\": %" PRIu32
	       ", \"modified_epoch\": %" PRIu64, info->id,
	       os_obj_type_name(info->type), info->size,
	       info->placement == OS_PLACE_PAGED ? "paged" : "small", info->pages,
	       info->refcount, info->modified_epoch);
	if (info->placement == OS_PLACE_PAGED && info->mode)
		printf(", \"mode\": %u", info->mode & OS_MODE_BITS);
	else if (info->placement == OS_PLACE_PAGED)
		printf(", \"mode\": null");
	if (info->placement == OS_PLACE_PAGED)
		printf(", \"mtime_ns\": %" PRId64, info->mtime_ns);
	printf(", \"names\": [");
	status = print_names_of(img, info->id, true);
	printf("]}\n");
	return status;
}

/* run_stat -- objtool IMAGE stat NAME|#ID */
static int run_stat(struct image *img, const struct args *a)
{
	struct os_obj_info info;
	const char *name;
	char s[96];
	uint64_t id;
	int status = resolve_object(img, "stat", a->pos[0], &id, &name);

	if (status)
		return status;
	os_obj_stat(&img->os, id, &info); /* resolve_object checked it */
	if (a->opt[1])
		return stat_json(img, &info);
	printf("id:        #%" PRIu64 "\n", info.id);
	printf("type:      %s\n", os_obj_type_name(info.type));
	printf("size:      %" PRIu64 " bytes (%s)\n", info.size,
	       size_text(s, sizeof(s), info.size));
	if (info.placement == OS_PLACE_PAGED)
		printf("placement: paged, %" PRIu64 " data page%s\n", info.pages,
		       info.pages == 1 ? "" : "s");
	else
		printf("placement: small (one block)\n");
	printf("refcount:  %" PRIu32 "\n", info.refcount);
	printf("modified:  epoch %" PRIu64 "\n", info.modified_epoch);
	if (info.placement == OS_PLACE_PAGED && info.mode)
		printf("mode:      %04o\n", info.mode & OS_MODE_BITS);
	else if (info.placement == OS_PLACE_PAGED)
		printf("mode:      unset (shown as 0%o)\n", info.type == OS_TYPE_CODE ? 0755 : 0644);
	if (info.placement == OS_PLACE_PAGED)
		printf("mtime:     %s\n", mtime_text(s, sizeof(s), info.mtime_ns));
	return print_names_of(img, id, false);
}

const struct command cmd_stat = {
	.name = "stat",
	.access = ACCESS_READ,
	.min_pos = 1,
	.max_pos = 1,
	.opts = { { "--snapshot", 0, true }, { "--json", 0, false } },
	.usage = "stat NAME|#ID [--snapshot NAME] [--json]",
	.summary = "an object's header (id, type, size...) and its names",
	.help = "Shows an object's header: its id, type, size, placement (paged:\n"
		"whole data pages, with how many are allocated; small: one block),\n"
		"reference count and the epoch of its last change; for a paged object\n"
		"its mode (unset until a chmod: 0644 is shown, 0755 for code) and the\n"
		"wall time of its last change (unknown: 0); then every name bound to\n"
		"it (found by a scan of the catalogue).\n\n"
		"NAME is looked up in the catalogue; #ID (e.g. #12) names an object\n"
		"by its id, named or not.\n"
		"\n  --json           one JSON object: id, type, size, placement (paged or\n"
		"                   small), pages, refcount, modified_epoch, for a paged\n"
		"                   object mode (null: unset) and mtime_ns, names\n"
		"  --snapshot NAME  read snapshot NAME's state instead of the live one\n"
		"                   (objtool IMAGE snapshots lists them; exit status 8\n"
		"                   if there is none of that name)\n",
	.run = run_stat,
};
