/*
 * cmd_check.c -- objtool IMAGE check: every invariant of the format.
 *
 * The work is objstore's os_check (check.h); this file decides what it
 * looks at and how it speaks. It looks at objtool's private copy-on-write
 * view after os_open rolled back any unfinished transaction (image.c), so
 * it checks the image as the next open will see it, and never writes. If
 * the superblock or root block is refused, the heap cannot be opened, and
 * os_check runs on the raw read-only view to say precisely what is wrong.
 * A heap the checker finds clean then has its kernel objects checked as a
 * power-on checks them (kernel/kformat/kcheck.h, the kernel's own code), so
 * both name the same problems in the same words.
 *
 * Then every snapshot, the same way: its state materialized over a copy of
 * the heap (snapview.c), os_check on the copy, and kcheck if that is
 * clean. A power-on into the snapshot would read exactly that state, so
 * this is what tells whether resume=NAME is safe. The price is O(heap) per
 * snapshot: each is a whole heap to check.
 *
 * Output: each problem on a line of its own on stdout (a snapshot's with
 * `snapshot NAME: ` before it), then one summary line, `check: clean, N
 * objects, N names[; snapshots: N checked, all clean]` or `check: N
 * problems[, M of them in snapshots]`. Progress goes to stderr, only when
 * stderr is a terminal and the check has taken more than a second, and is
 * erased before anything else is printed.
 *
 * check --repair [--dry-run] [--backup FILE]: the problems os_check knows
 * how to repair without guessing (check.h's os_fix: leaked pages and
 * blocks freed, names bound to missing objects removed, the root block's
 * counts set to what was counted) are repaired, all in one transaction --
 * but only when every problem found is one of them, in the live state;
 * else nothing is written. The image is checked read-only first; then
 * reopened for writing (exclusive lock), checked again there, repaired,
 * committed; then checked whole again, and that check's result is the
 * command's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "objstore/check.h"
#include "objtool.h"
#include "kformat/kcheck.h"

struct check_view {
	bool tty;                   /* stderr is a terminal */
	struct timespec start;
	bool shown;                 /* a progress line is on stderr */
	unsigned step;              /* the pass os_check is in, from 1 */
	uint64_t last_done;
	int last_percent;
	uint64_t printed;           /* problems os_check handed us */
	const char *snapshot;       /* the snapshot being checked, NULL: the live state */
	bool json;                  /* --json: problems as elements of one array */
	bool quiet;                 /* the repair's own check: problems not printed */
	struct repairs *repairs;    /* --repair: the live state's repairs, collected */
};

/* A repair os_check offered, copied (a name's bytes are the heap's). */
struct repair {
	enum os_fix_kind kind;
	uint64_t value;
	char name[OS_NAME_MAX];
	uint64_t len;
};

struct repairs {
	struct repair *v;
	size_t n, cap;
	bool out_of_memory;
};

/* elapsed -- seconds since the check began */
static double elapsed(const struct check_view *v)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - v->start.tv_sec) +
	       (double)(now.tv_nsec - v->start.tv_nsec) / 1e9;
}

/* erase_progress -- remove the progress line from the terminal */
static void erase_progress(struct check_view *v)
{
	if (v->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		v->shown = false;
	}
}

/* on_problem -- one problem, on a line of its own */
static void on_problem(void *ctx, const char *message)
{
	struct check_view *v = ctx;

	erase_progress(v);
	if (v->quiet) {
		v->printed++;
		return;
	}
	if (v->json) {
		printf("%s{\"snapshot\": ", v->printed ? ", " : "");
		if (v->snapshot)
			json_string(v->snapshot, strlen(v->snapshot));
		else
			printf("null");
		printf(", \"problem\": ");
		json_string(message, strlen(message));
		printf("}");
	} else {
		if (v->snapshot)
			printf("snapshot %s: ", v->snapshot);
		puts(message);
	}
	v->printed++;
}

/* on_fixable -- keep the repair of the live state's problem just reported */
static void on_fixable(void *ctx, const struct os_fix *fix)
{
	struct check_view *v = ctx;
	struct repairs *l = v->repairs;
	struct repair *r;

	if (!l || v->snapshot)
		return; /* only the live state is repaired */
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		void *grown = realloc(l->v, cap * sizeof(*l->v));

		if (!grown) {
			l->out_of_memory = true;
			return;
		}
		l->v = grown;
		l->cap = cap;
	}
	r = &l->v[l->n++];
	r->kind = fix->kind;
	r->value = fix->value;
	r->len = fix->len < sizeof(r->name) ? fix->len : sizeof(r->name);
	if (fix->name)
		memcpy(r->name, fix->name, r->len);
}

/* on_progress -- show how far the check is, once it is slow enough to matter */
static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct check_view *v = ctx;
	int percent;

	if (done < v->last_done || v->step == 0)
		v->step++; /* os_check makes several passes over the pages */
	v->last_done = done;
	if (!v->tty || total == 0 || elapsed(v) < 1.0)
		return;
	percent = (int)(done * 100 / total);
	if (v->shown && percent == v->last_percent)
		return;
	fflush(stdout);
	if (v->snapshot)
		fprintf(stderr, "\rcheck: snapshot %s, pass %u, %d%% ", v->snapshot, v->step,
			percent);
	else
		fprintf(stderr, "\rcheck: pass %u, %d%% ", v->step, percent);
	fflush(stderr);
	v->shown = true;
	v->last_percent = percent;
}

/* What was found: in the live state and in the snapshots. */
struct check_result {
	uint64_t problems;          /* all of them */
	uint64_t in_snapshots;      /* of which in snapshots */
	unsigned snapshots;         /* snapshots checked */
};

/* summary_json -- check --json: the rest of the object the problems began */
static void summary_json(const struct image *img, const struct check_result *r)
{
	struct os_stats st;

	os_stats(&img->os, &st);
	printf("], \"clean\": %s, \"count\": %" PRIu64 ", \"in_snapshots\": %" PRIu64
	       ", \"snapshots_checked\": %u, \"objects\": %" PRIu64 ", \"names\": %" PRIu64
	       ", \"unfinished_transaction\": %s}\n", r->problems ? "false" : "true",
	       r->problems, r->in_snapshots, r->snapshots, img->opened ? st.objects : 0,
	       img->opened ? st.names : 0, img->had_unfinished_tx ? "true" : "false");
}

/* summary -- the last line: clean with counts, or how many problems */
static void summary(const struct image *img, const struct check_result *r,
		    uint64_t printed)
{
	struct os_stats st;

	if (r->problems == 0) {
		os_stats(&img->os, &st);
		printf("check: clean, %" PRIu64 " objects, %" PRIu64 " names", st.objects,
		       st.names);
		if (r->snapshots)
			printf("; snapshots: %u checked, %s", r->snapshots,
			       r->snapshots == 1 ? "clean" : "all clean");
		if (img->had_unfinished_tx)
			printf(" (after rolling back an unfinished transaction, in "
			       "objtool's view only)");
		putchar('\n');
		return;
	}
	printf("check: %" PRIu64 " problem%s", r->problems, r->problems == 1 ? "" : "s");
	if (r->in_snapshots)
		printf(", %" PRIu64 " of them in snapshots", r->in_snapshots);
	if (printed < r->problems)
		printf(" (the first %" PRIu64 " shown)", printed);
	putchar('\n');
}

/* check_heap -- os_check of the heap at base, then (when it is clean and
 * opened as os) its kernel objects; the problems, all reported */
static uint64_t check_heap(const uint8_t *base, uint64_t size, const struct objstore *os,
			   void *scratch, struct check_view *v)
{
	struct os_check_report report = {
		.problem = on_problem, .fixable = on_fixable, .progress = on_progress, .ctx = v,
	};
	uint64_t problems;

	v->step = 0;
	v->last_done = 0;
	problems = os_check(base, size, scratch, &report);
	if (os && problems == 0)
		problems = kcheck_image(os, &(struct kcheck_report){
			.problem = on_problem, .ctx = v });
	if (!os && problems == 0) {
		/* os_probe refused what os_check accepts: say so, never "clean". */
		struct os_diagnosis d;

		os_diagnose(base, size, &d);
		on_problem(v, d.why);
		problems = 1;
	}
	return problems;
}

/* check_snapshot -- snapshot `name`'s state, as a heap; its problems, all
 * reported, or UINT64_MAX (reported) if objtool cannot map a copy */
static uint64_t check_snapshot(struct image *img, const char *name, void *scratch,
			       struct check_view *v)
{
	struct snap_view sv;
	uint64_t problems;
	int err = snap_view_open(img, name, &sv);

	v->snapshot = name;
	if (err == -ERR_NOMEM) {
		erase_progress(v);
		fail(EXIT_FAILED, "check: cannot map a copy of %s for snapshot %s: %s",
		     img->path, name, strerror(errno));
		problems = UINT64_MAX;
	} else if (err) {
		on_problem(v, "the lists of copies on its path fail their checks: it cannot "
			   "be read");
		problems = 1;
	} else {
		problems = check_heap(sv.base, sv.size, sv.opened ? &sv.os : NULL, scratch, v);
		snap_view_close(&sv);
	}
	v->snapshot = NULL;
	return problems;
}

/* check_snapshots -- every named snapshot of an opened heap, in r; an
 * exit status (a copy objtool cannot map fails the check) */
static int check_snapshots(struct image *img, void *scratch, struct check_view *v,
			   struct check_result *r)
{
	struct os_snap_info list[OS_SNAP_NODES];
	unsigned count;

	/* A restore cut short: the checker said so, and the states are a
	 * mixture until a power-on finishes it. */
	if (os_snap_restoring(&img->os))
		return EXIT_OK;
	count = os_snap_list(&img->os, list, OS_SNAP_NODES);
	for (unsigned i = 0; i < count; i++) {
		uint64_t problems;

		if (list[i].flags & OS_SNAP_HIDDEN)
			continue;
		problems = check_snapshot(img, list[i].name, scratch, v);
		if (problems == UINT64_MAX)
			return EXIT_FAILED;
		r->snapshots++;
		r->problems += problems;
		r->in_snapshots += problems;
	}
	return EXIT_OK;
}

/* check_image -- the whole check of an open image, the live state and
 * every snapshot, in r; an exit status for a failure to check */
static int check_image(struct image *img, void *scratch, struct check_view *v,
		       struct check_result *r)
{
	int status = EXIT_OK;

	clock_gettime(CLOCK_MONOTONIC, &v->start);
	r->problems = check_heap(img->base, img->size, img->opened ? &img->os : NULL,
				 scratch, v);
	if (img->opened)
		status = check_snapshots(img, scratch, v, r);
	erase_progress(v);
	return status;
}

/* repair_text -- what a repair does, for --dry-run and the report */
static void repair_text(const struct repair *r, const char *verb)
{
	switch (r->kind) {
	case OS_FIX_LEAK_PAGE:
		printf("%s: free the leaked page at %#" PRIx64 "\n", verb, r->value);
		break;
	case OS_FIX_LEAK_BLOCK:
		printf("%s: free the leaked block at %#" PRIx64 "\n", verb, r->value);
		break;
	case OS_FIX_DANGLING_NAME:
		printf("%s: remove the name '", verb);
		print_escaped(r->name, r->len);
		printf("', bound to object #%" PRIu64 ", which does not exist\n", r->value);
		break;
	case OS_FIX_OBJECT_COUNT:
		printf("%s: set the root block's object count to %" PRIu64 "\n", verb, r->value);
		break;
	case OS_FIX_NAME_COUNT:
		printf("%s: set the root block's name count to %" PRIu64 " (less the names removed)\n",
		       verb, r->value);
		break;
	}
}

/* apply -- every repair, in one transaction; an exit status */
static int apply(struct image *img, const struct repairs *l)
{
	uint64_t objects = UINT64_MAX, names = UINT64_MAX, removed = 0, id;
	struct os_stats st;
	int err = 0, status = image_tx_begin(img, "check --repair");

	if (status)
		return status;
	for (size_t i = 0; !err && i < l->n; i++) {
		const struct repair *r = &l->v[i];

		if (r->kind == OS_FIX_DANGLING_NAME) {
			err = os_cat_remove(&img->os, r->name, r->len, &id);
			removed++;
		} else if (r->kind == OS_FIX_LEAK_PAGE || r->kind == OS_FIX_LEAK_BLOCK) {
			err = os_free(&img->os, r->value);
		} else if (r->kind == OS_FIX_OBJECT_COUNT) {
			objects = r->value;
		} else if (r->kind == OS_FIX_NAME_COUNT) {
			names = r->value;
		}
	}
	if (!err && (objects != UINT64_MAX || names != UINT64_MAX)) {
		os_stats(&img->os, &st);
		err = os_repair_counts(&img->os, objects != UINT64_MAX ? objects : st.objects,
				       names != UINT64_MAX ? names - removed : st.names);
	}
	if (err)
		return image_tx_fail(img, "check --repair", err, "repairing (nothing was changed)");
	return image_tx_commit(img, "check --repair");
}

/* copy_file -- --backup FILE: the image's bytes into a new file; an exit status */
static int copy_file(const char *from, const char *to)
{
	static char buf[1 << 20];
	FILE *in = fopen(from, "rb");
	int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	size_t n;
	int status = EXIT_OK;

	if (fd < 0 || !in) {
		status = fail(EXIT_FAILED, "check --repair: %s %s: %s (nothing was changed)",
			      fd < 0 ? "cannot create the backup" : "cannot read",
			      fd < 0 ? to : from, strerror(errno));
	}
	while (!status && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (write_all(fd, buf, n))
			status = fail(EXIT_FAILED, "check --repair: writing the backup %s: %s "
				      "(nothing was changed)", to, strerror(errno));
	if (!status && (ferror(in) || fsync(fd) != 0))
		status = fail(EXIT_FAILED, "check --repair: the backup %s is not whole: %s "
			      "(nothing was changed)", to, strerror(errno));
	if (in)
		fclose(in);
	if (fd >= 0)
		close(fd);
	if (status && fd >= 0)
		unlink(to);
	return status;
}

/* repair -- check --repair after the read-only check found `r` with the
 * repairs `l`: refuse, list, or repair and check again; an exit status */
static int repair(struct image *img, const struct args *a, void *scratch,
		  struct check_view *v, const struct check_result *r, struct repairs *l)
{
	struct check_view quiet = { .quiet = true };
	struct repairs again = { 0 };
	struct check_result r2 = { 0 };
	struct image w;
	int status;

	if (r->problems == 0) {
		printf("check --repair: nothing to repair\n");
		return EXIT_OK;
	}
	if (l->out_of_memory)
		return fail(EXIT_FAILED, "check --repair: out of memory; the image was not changed");
	if (!img->opened || l->n < r->problems)
		return fail(EXIT_PROBLEMS, "check --repair: %" PRIu64 " of the %" PRIu64 " problems "
			    "cannot be repaired without guessing (only leaked pages and blocks, "
			    "names bound to missing objects and the root block's counts can); "
			    "the image was not changed", r->problems - l->n, r->problems);
	for (size_t i = 0; i < l->n; i++)
		repair_text(&l->v[i], a->opt[2] ? "would" : "repair");
	if (a->opt[2]) {
		printf("check --repair --dry-run: %" PRIu64 " problem%s, all repairable; "
		       "nothing was changed\n", r->problems, r->problems == 1 ? "" : "s");
		return EXIT_PROBLEMS;
	}
	if (a->opt[3] && (status = copy_file(img->path, a->opt[3])))
		return status;
	image_close(img);
	/* Under the exclusive lock, the same problems must be found again. */
	status = image_open(&w, img->path, ACCESS_REPAIR);
	if (status)
		return status;
	quiet.repairs = &again;
	r2.problems = check_heap(w.base, w.size, &w.os, scratch, &quiet);
	if (r2.problems != r->problems || again.n != l->n)
		status = fail(EXIT_FAILED, "check --repair: the image changed since it was checked "
			      "(%" PRIu64 " problems now); nothing was changed", r2.problems);
	else
		status = apply(&w, &again);
	free(again.v);
	if (!status)
		status = image_close(&w);
	else
		image_close(&w);
	if (status)
		return status;
	printf("check --repair: %zu repair%s committed in one transaction; checking again\n",
	       l->n, l->n == 1 ? "" : "s");
	/* The whole check again, on the repaired image: its verdict is ours. */
	status = image_open(img, img->path, ACCESS_CHECK);
	if (status)
		return status;
	r2 = (struct check_result){ 0 };
	v->printed = 0;
	v->repairs = NULL;
	status = check_image(img, scratch, v, &r2);
	if (status)
		return status;
	summary(img, &r2, v->printed);
	return r2.problems ? EXIT_PROBLEMS : EXIT_OK;
}

/* run_check -- objtool IMAGE check [--json] [--repair [--dry-run] [--backup FILE]] */
static int run_check(struct image *img, const struct args *a)
{
	struct check_view v = { .tty = isatty(STDERR_FILENO) == 1, .json = a->opt[0] != NULL };
	struct repairs repairs = { 0 };
	struct check_result r = { 0 };
	void *scratch;
	int status;

	if (a->opt[1] && v.json)
		return fail(EXIT_USAGE, "check: --repair speaks text only, not --json");
	if (!a->opt[1] && (a->opt[2] || a->opt[3]))
		return fail(EXIT_USAGE, "check: --dry-run and --backup go with --repair");
	scratch = calloc(1, os_check_scratch_size(img->size));
	if (!scratch)
		return fail(EXIT_FAILED, "check: out of memory");
	if (a->opt[1])
		v.repairs = &repairs;
	if (v.json)
		printf("{\"problems\": [");
	status = check_image(img, scratch, &v, &r);
	if (status) {
		if (v.json)
			printf("]}\n"); /* the document stays whole; stderr says why */
	} else if (v.json) {
		summary_json(img, &r);
		status = r.problems ? EXIT_PROBLEMS : EXIT_OK;
	} else {
		summary(img, &r, v.printed);
		status = r.problems ? EXIT_PROBLEMS : EXIT_OK;
		if (a->opt[1])
			status = repair(img, a, scratch, &v, &r, &repairs);
	}
	free(repairs.v);
	free(scratch);
	return status;
}

const struct command cmd_check = {
	.name = "check",
	.access = ACCESS_CHECK,
	.min_pos = 0,
	.max_pos = 0,
	.opts = { { "--json", 0, false }, { "--repair", 0, false }, { "--dry-run", 0, false },
		  { "--backup", 0, true } },
	.usage = "check [--json] [--repair [--dry-run] [--backup FILE]]",
	.summary = "verify every invariant of the format",
	.help = "Checks the whole image: superblock, root block, undo log, page\n"
		"descriptors, free-page stack, slab lists, the id index and every\n"
		"object's header and pages, the catalogue, and that every allocated\n"
		"page and block is reached exactly once (no leak, no double use, no\n"
		"dangling reference), then the kernel's objects as a power-on checks\n"
		"them. An unfinished transaction is first rolled back in objtool's\n"
		"private view, as the next open would. Then every snapshot the same\n"
		"way: its state, as a power-on into it would find it (a whole heap to\n"
		"check for each snapshot).\n\n"
		"Prints each problem on a line of its own (a snapshot's begins with\n"
		"'snapshot NAME: '), then a summary:\n"
		"  check: clean, N objects, N names[; snapshots: N checked, all clean]\n"
		"                                       (exit status 0)\n"
		"  check: N problems[, N of them in snapshots]   (exit status 7)\n"
		"Progress goes to stderr when it is a terminal and the check has\n"
		"taken more than a second.\n\n"
		"  --json   one JSON object: problems (each {snapshot: null or its name,\n"
		"           problem: the text}), clean, count, in_snapshots,\n"
		"           snapshots_checked, objects, names, unfinished_transaction\n"
		"  --repair  repair what needs no guessing -- leaked pages and blocks freed,\n"
		"           names bound to missing objects removed, the root block's\n"
		"           counts set -- in one transaction, then check again (its\n"
		"           result is the exit status); refused, nothing written, when\n"
		"           any problem is of another kind or in a snapshot\n"
		"  --dry-run  with --repair: say what would be repaired, change nothing\n"
		"  --backup FILE  with --repair: copy the image to FILE (a new file) first\n",
	.run = run_check,
};
