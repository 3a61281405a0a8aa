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
 * Output: each problem on a line of its own on stdout, then one summary
 * line, `check: clean, N objects, N names` or `check: N problems`. Progress
 * goes to stderr, only when stderr is a terminal and the check has taken
 * more than a second, and is erased before anything else is printed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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
	puts(message);
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
	fprintf(stderr, "\rcheck: pass %u, %d%% ", v->step, percent);
	fflush(stderr);
	v->shown = true;
	v->last_percent = percent;
}

/* summary -- the last line: clean with counts, or how many problems */
static void summary(const struct image *img, uint64_t problems, uint64_t printed)
{
	struct os_stats st;

	if (problems == 0) {
		os_stats(&img->os, &st);
		printf("check: clean, %" PRIu64 " objects, %" PRIu64 " names", st.objects,
		       st.names);
		if (img->had_unfinished_tx)
			printf(" (after rolling back an unfinished transaction, in "
			       "objtool's view only)");
		putchar('\n');
		return;
	}
	printf("check: %" PRIu64 " problem%s", problems, problems == 1 ? "" : "s");
	if (printed < problems)
		printf(" (the first %" PRIu64 " shown)", printed);
	putchar('\n');
}

/* run_check -- objtool IMAGE check */
static int run_check(struct image *img, const struct args *a)
{
	struct check_view v = { .tty = isatty(STDERR_FILENO) == 1 };
	struct os_check_report report = {
		.problem = on_problem, .progress = on_progress, .ctx = &v,
	};
	void *scratch = calloc(1, os_check_scratch_size(img->size));
	uint64_t problems;

	(void)a;
	if (!scratch)
		return fail(EXIT_FAILED, "check: out of memory");
	clock_gettime(CLOCK_MONOTONIC, &v.start);
	problems = os_check(img->base, img->size, scratch, &report);
	if (img->opened && problems == 0)
		problems = kcheck_image(&img->os, &(struct kcheck_report){
			.problem = on_problem, .ctx = &v });
	erase_progress(&v);
	free(scratch);
	if (!img->opened && problems == 0) {
		/* os_probe refused what os_check accepts: say so, never "clean". */
		struct os_diagnosis d;

		os_diagnose(img->base, img->size, &d);
		on_problem(&v, d.why);
		problems = 1;
	}
	summary(img, problems, v.printed);
	return problems ? EXIT_PROBLEMS : EXIT_OK;
}

const struct command cmd_check = {
	.name = "check",
	.access = ACCESS_CHECK,
	.min_pos = 0,
	.max_pos = 0,
	.usage = "check",
	.summary = "verify every invariant of the format",
	.help = "Checks the whole image: superblock, root block, undo log, page\n"
		"descriptors, free-page stack, slab lists, the id index and every\n"
		"object's header and pages, the catalogue, and that every allocated\n"
		"page and block is reached exactly once (no leak, no double use, no\n"
		"dangling reference), then the kernel's objects as a power-on checks\n"
		"them. An unfinished transaction is first rolled back in objtool's\n"
		"private view, as the next open would.\n\n"
		"Prints each problem on a line of its own, then a summary:\n"
		"  check: clean, N objects, N names     (exit status 0)\n"
		"  check: N problems                    (exit status 7)\n"
		"Progress goes to stderr when it is a terminal and the check has\n"
		"taken more than a second.\n",
	.run = run_check,
};
