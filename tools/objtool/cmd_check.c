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
 */
#include <errno.h>
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
		.problem = on_problem, .progress = on_progress, .ctx = v,
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

/* run_check -- objtool IMAGE check */
static int run_check(struct image *img, const struct args *a)
{
	struct check_view v = { .tty = isatty(STDERR_FILENO) == 1, .json = a->opt[0] != NULL };
	struct check_result r = { 0 };
	void *scratch = calloc(1, os_check_scratch_size(img->size));
	int status = EXIT_OK;

	if (!scratch)
		return fail(EXIT_FAILED, "check: out of memory");
	if (v.json)
		printf("{\"problems\": [");
	clock_gettime(CLOCK_MONOTONIC, &v.start);
	r.problems = check_heap(img->base, img->size, img->opened ? &img->os : NULL,
				scratch, &v);
	if (img->opened)
		status = check_snapshots(img, scratch, &v, &r);
	erase_progress(&v);
	free(scratch);
	if (status) {
		if (v.json)
			printf("]}\n"); /* the document stays whole; stderr says why */
		return status;
	}
	if (v.json)
		summary_json(img, &r);
	else
		summary(img, &r, v.printed);
	return r.problems ? EXIT_PROBLEMS : EXIT_OK;
}

const struct command cmd_check = {
	.name = "check",
	.access = ACCESS_CHECK,
	.min_pos = 0,
	.max_pos = 0,
	.opts = { { "--json", 0, false } },
	.usage = "check [--json]",
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
		"           snapshots_checked, objects, names, unfinished_transaction\n",
	.run = run_check,
};
