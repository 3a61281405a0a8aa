/*
 * cmd_fill.c -- fill: many blobs at once, for tests and benchmarks that
 * need a large catalogue (osh's `ls` of 100,000 names).
 *
 * Names are PREFIX followed by the index 0 .. COUNT-1 in decimal,
 * zero-padded to the width of COUNT-1, so they list in index order. Each
 * is a new blob of SIZE bytes (sparse: no page is written).
 *
 * Unlike every other writing command, fill is not one transaction: a
 * transaction must fit the undo log, and 100,000 creations do not. It
 * commits a batch whenever half the log is used, so a fill killed at any
 * instant leaves the names of its committed batches (the first K names,
 * whole objects each) and nothing of the batch in flight. Every name is
 * looked up before the first batch: if any is bound, nothing is written.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objtool.h"

#define FILL_MAX 10000000u

/* fill_name -- name number i into buf */
static void fill_name(char *buf, size_t cap, const char *prefix, int width,
		      uint64_t i)
{
	snprintf(buf, cap, "%s%0*" PRIu64, prefix, width, i);
}

/* check_names -- every name valid and free, read-only; an exit status */
static int check_names(struct image *img, const char *prefix, int width,
		       uint64_t count)
{
	char name[OS_NAME_MAX + 2], text[NAME_TEXT_MAX];
	uint64_t id;

	for (uint64_t i = 0; i < count; i++) {
		int err;

		fill_name(name, sizeof(name), prefix, width, i);
		err = lookup_name(&img->os, name, &id);
		name_text(text, name, strlen(name));
		if (err == -ERR_INVAL)
			return fail(EXIT_USAGE, "fill: '%s' is not a valid name (1 to %d bytes)",
				    text, OS_NAME_MAX);
		if (!err)
			return fail(EXIT_FAILED, "fill: '%s' already exists", text);
		if (err != -ERR_NOENT)
			return fail(os_err_exit(err), "fill: looking up '%s': %s", text,
				    os_err_text(err));
	}
	return EXIT_OK;
}

/* fill_one -- inside a transaction: a blob of size bound to name */
static int fill_one(struct image *img, const char *name, uint64_t size)
{
	uint64_t id;
	int err = os_obj_create(&img->os, OS_TYPE_BLOB, size, &id);

	if (!err)
		err = os_cat_insert(&img->os, name, strlen(name), id);
	return err;
}

/* run_fill -- objtool IMAGE fill PREFIX COUNT [--size SIZE] */
static int run_fill(struct image *img, const struct args *a)
{
	const char *prefix = a->pos[0];
	char name[OS_NAME_MAX + 2], digits[24];
	uint64_t count, size = 0, done = 0;
	struct os_stats st;
	int width, status;

	if (parse_size(a->pos[1], &count) < 0 || count == 0 || count > FILL_MAX)
		return fail(EXIT_USAGE, "fill: COUNT must be a number from 1 to %u", FILL_MAX);
	if (a->opt[0] && parse_size(a->opt[0], &size) < 0)
		return fail(EXIT_USAGE, "fill: --size takes a number of bytes "
			    "(K, M, G suffixes), not '%s'", a->opt[0]);
	width = snprintf(digits, sizeof(digits), "%" PRIu64, count - 1);
	status = check_names(img, prefix, width, count);
	while (!status && done < count) {
		status = image_tx_begin(img, "fill");
		do {
			int err;

			fill_name(name, sizeof(name), prefix, width, done);
			err = fill_one(img, name, size);
			if (err)
				return image_tx_fail(img, "fill", err, name);
			done++;
			os_stats(&img->os, &st);
		} while (!status && done < count && st.log_used < st.log_size / 2);
		if (!status)
			status = image_tx_commit(img, "fill");
	}
	if (!status)
		printf("fill: %" PRIu64 " blobs of %" PRIu64 " bytes, %s%0*d to %s%s\n",
		       count, size, prefix, width, 0, prefix, digits);
	return status;
}

const struct command cmd_fill = {
	.name = "fill",
	.access = ACCESS_WRITE,
	.several_tx = true,
	.min_pos = 2,
	.max_pos = 2,
	.opts = { { "--size", 0, true } },
	.usage = "fill PREFIX COUNT [--size SIZE]",
	.summary = "COUNT new blobs named PREFIX0 .. PREFIX<COUNT-1>",
	.help = "Creates COUNT blobs of SIZE bytes (default 0; sparse) named PREFIX and\n"
		"the index, zero-padded to one width so the names list in order:\n"
		"'fill f/ 1000' makes f/000 .. f/999. For large catalogues in tests.\n"
		"If any of the names is bound, nothing is written. The blobs are made\n"
		"in batches, one transaction each (a batch ends when half the log is\n"
		"used): killed, fill leaves the batches it committed.\n",
	.run = run_fill,
};
