/*
 * main.c -- objtool's command line: objtool IMAGE COMMAND [ARGS].
 *
 *   objtool IMAGE COMMAND [ARGS]     every command on an existing image
 *   objtool create --size SIZE IMAGE the one command that makes a file
 *                                    (objtool IMAGE create --size SIZE too)
 *   objtool --help | objtool help [COMMAND] | objtool [IMAGE] COMMAND --help
 *
 * Each command is a table entry (struct command, objtool.h): its options,
 * how many positional arguments it takes, whether it reads or writes the
 * image, its help, and its function. main parses the arguments against the
 * entry, opens the image as the entry says (image.c), runs the command and
 * closes the image. Options may come anywhere after the command; `--` ends
 * them, for names that begin with '-'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objtool.h"

static const struct command *const commands[] = {
	&cmd_info, &cmd_ls, &cmd_stat, &cmd_du, &cmd_cat, &cmd_export, &cmd_import,
	&cmd_rm, &cmd_mv, &cmd_fill, &cmd_snapshots, &cmd_snapshot, &cmd_check, &cmd_dump,
	&cmd_grow, &cmd_shrink, &cmd_create,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char exit_statuses[] =
	"exit status:\n"
	"  0  success (check: the image is clean)\n"
	"  1  the command failed: no such name or object, name already bound,\n"
	"     the image or its log full, a host file unusable, IMAGE cannot be opened\n"
	"  2  usage: a bad command line or an invalid name\n"
	"  3  IMAGE is not a Ferrite image\n"
	"  4  IMAGE has a layout version this objtool does not read\n"
	"  5  IMAGE is corrupt (superblock, root block, or a structure a command\n"
	"     needed); nothing was committed\n"
	"  6  IMAGE is in use by a running QEMU (or another objtool)\n"
	"  7  check found problems\n"
	"  8  no snapshot of that NAME, or IMAGE has no snapshot area\n";

/* find_command -- the table entry called `name`, or NULL */
static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

/* usage_line -- how to call `c`, with or without IMAGE in front */
static void usage_line(FILE *f, const struct command *c)
{
	if (c->access == ACCESS_NONE)
		fprintf(f, "objtool %s", c->usage);
	else
		fprintf(f, "objtool IMAGE %s", c->usage);
}

/* main_help -- objtool --help */
static int main_help(void)
{
	printf("usage: objtool IMAGE COMMAND [ARGS]\n"
	       "       objtool create --size SIZE [--log-size SIZE] [--force] IMAGE\n"
	       "       objtool IMAGE create --size SIZE [--log-size SIZE] [--force]\n"
	       "       objtool [IMAGE] COMMAND --help\n\n"
	       "The offline tool for Ferrite NVM images: inspect, check and change\n"
	       "the persistent object heap that QEMU maps as Ferrite's NVDIMM.\n\n"
	       "commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct command *c = commands[i];

		if (strlen(c->usage) > 24)
			printf("  %s\n  %-24s %s\n", c->usage, "", c->summary);
		else
			printf("  %-24s %s\n", c->usage, c->summary);
	}
	printf("\nNAME|#ID names an object by a name in the catalogue, or by its id\n"
	       "(#12). Sizes take K, M, G suffixes (binary units). ls, stat, cat and\n"
	       "export take --snapshot NAME: they read snapshot NAME's objects instead\n"
	       "of the live state's.\n\n"
	       "Read-only commands take a shared lock and read a private copy-on-write\n"
	       "view of IMAGE: they never write it. Commands that write take an\n"
	       "exclusive lock and make all their changes in one transaction (fill:\n"
	       "one per batch; snapshot rm: one more per log's worth of pages it\n"
	       "gives back), so an objtool killed at any instant leaves a\n"
	       "consistent image.\n\n%s\n"
	       "See docs/objtool.md.\n", exit_statuses);
	return finish_stdout(EXIT_OK);
}

/* command_help -- objtool COMMAND --help */
static int command_help(const struct command *c)
{
	fputs("usage: ", stdout);
	usage_line(stdout, c);
	printf("\n\n%s\n\n%s", c->summary, c->help);
	if (c->access == ACCESS_READ || c->access == ACCESS_CHECK)
		printf("\nRead-only: IMAGE is locked shared and never written.\n");
	else if (c->access == ACCESS_WRITE && c->several_tx)
		printf("\nWrites IMAGE in transactions, as said above, under an exclusive lock.\n");
	else if (c->access == ACCESS_WRITE)
		printf("\nWrites IMAGE in one transaction, under an exclusive lock.\n");
	printf("\nexit status: 0 ok, 1 failed, 2 usage, 3 not a Ferrite image, "
	       "4 layout version,\n5 corrupt, 6 in use, 7 check found problems, "
	       "8 no such snapshot\n(objtool --help says more)\n");
	return finish_stdout(EXIT_OK);
}

/* usage_error -- a bad command line: one line, status 2 */
static int usage_error(const struct command *c, const char *what, const char *arg)
{
	if (c)
		return fail(EXIT_USAGE, "%s: %s%s%s%s (see objtool %s --help)", c->name,
			    what, arg ? " '" : "", arg ? arg : "", arg ? "'" : "",
			    c->name);
	return fail(EXIT_USAGE, "%s%s%s%s (see objtool --help)", what,
		    arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
}

/* find_opt -- the index of option `arg` ("--type", "--type=x", "-l") in c */
static int find_opt(const struct command *c, const char *arg, const char **inline_value)
{
	*inline_value = NULL;
	for (int i = 0; i < OPTS_MAX && c->opts[i].name; i++) {
		const struct opt_spec *o = &c->opts[i];
		size_t n = strlen(o->name);

		if (arg[1] != '-' && o->short_name && arg[1] == o->short_name && !arg[2])
			return i;
		if (strncmp(arg, o->name, n) == 0 && (arg[n] == '\0' ||
						      (arg[n] == '=' && o->has_value))) {
			if (arg[n] == '=')
				*inline_value = arg + n + 1;
			return i;
		}
	}
	return -1;
}

/* parse_args -- options and positional arguments of `c` from argv[from..] */
static int parse_args(const struct command *c, int argc, char **argv, int from,
		      struct args *a)
{
	bool options_done = false;

	a->npos = 0;
	a->pos = calloc((size_t)argc, sizeof(*a->pos));
	if (!a->pos)
		return fail(EXIT_FAILED, "out of memory");
	for (int i = from; i < argc; i++) {
		const char *arg = argv[i], *value;
		int o;

		if (!options_done && strcmp(arg, "--") == 0) {
			options_done = true;
			continue;
		}
		if (options_done || arg[0] != '-' || arg[1] == '\0') {
			a->pos[a->npos++] = argv[i];
			continue;
		}
		o = find_opt(c, arg, &value);
		if (o < 0)
			return usage_error(c, "unknown option", arg);
		if (c->opts[o].has_value && !value) {
			if (i + 1 >= argc)
				return usage_error(c, "option needs a value:", c->opts[o].name);
			value = argv[++i];
		}
		a->opt[o] = c->opts[o].has_value ? value : "";
	}
	if (a->npos < c->min_pos)
		return usage_error(c, "missing argument", NULL);
	if (c->max_pos >= 0 && a->npos > c->max_pos)
		return usage_error(c, "unexpected argument", a->pos[c->max_pos]);
	return EXIT_OK;
}

/* asks_help -- whether argv[from..] holds --help or -h (before any --) */
static bool asks_help(int argc, char **argv, int from)
{
	for (int i = from; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	}
	return false;
}

/* snapshot_opt -- the value of c's --snapshot option in a, or NULL */
static const char *snapshot_opt(const struct command *c, const struct args *a)
{
	for (int i = 0; i < OPTS_MAX && c->opts[i].name; i++)
		if (strcmp(c->opts[i].name, "--snapshot") == 0)
			return a->opt[i];
	return NULL;
}

/* run -- parse, open the image, run the command, close; an exit status */
static int run(const struct command *c, const char *image, int argc, char **argv,
	       int from)
{
	struct args a = { .command = c->name, .image = image };
	struct image img;
	const char *snapshot;
	int status = parse_args(c, argc, argv, from, &a);

	if (!status && c->check)
		status = c->check(&a);
	snapshot = snapshot_opt(c, &a);
	if (!status && snapshot)
		status = snap_name_usage(c->name, snapshot);
	if (status)
		goto out_free;
	if (c->access == ACCESS_NONE) {
		status = finish_stdout(c->run(NULL, &a));
		goto out_free;
	}
	status = image_open(&img, image, c->access);
	if (status)
		goto out_free;
	/* --snapshot NAME: the same command, on the snapshot's state */
	if (snapshot)
		status = image_use_snapshot(&img, c->name, snapshot);
	if (!status)
		status = finish_stdout(c->run(&img, &a));
	if (image_close(&img) && !status)
		status = EXIT_FAILED;
out_free:
	free(a.pos);
	return status;
}

/* help_command -- objtool help [COMMAND] */
static int help_command(int argc, char **argv)
{
	const struct command *c;

	if (argc < 3)
		return main_help();
	c = find_command(argv[2]);
	if (!c)
		return usage_error(NULL, "unknown command", argv[2]);
	return command_help(c);
}

/* run_image_first -- objtool IMAGE create ...: the form every other command
 * has, run as objtool create ... -- IMAGE (after `--`, an IMAGE that
 * begins with '-' stays a name) */
static int run_image_first(const struct command *c, int argc, char **argv)
{
	char **args = malloc(((size_t)argc + 2) * sizeof(*args));
	int n = 0, status;

	if (!args)
		return fail(EXIT_FAILED, "%s: out of memory", c->name);
	args[n++] = argv[0];
	args[n++] = argv[2];
	for (int i = 3; i < argc; i++)
		args[n++] = argv[i];
	args[n++] = "--";
	args[n++] = argv[1];
	args[n] = NULL;
	status = run(c, NULL, n, args, 2);
	free(args);
	return status;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2)
		return usage_error(NULL, "missing IMAGE and COMMAND", NULL);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return main_help();
	if (strcmp(argv[1], "help") == 0)
		return help_command(argc, argv);
	c = find_command(argv[1]);
	if (c && (c->access == ACCESS_NONE || asks_help(argc, argv, 2))) {
		/* objtool create ..., objtool ls --help */
		if (asks_help(argc, argv, 2))
			return command_help(c);
		return run(c, NULL, argc, argv, 2);
	}
	if (c && argc == 2)
		return fail(EXIT_USAGE, "%s: missing IMAGE: it comes first, objtool IMAGE %s "
			    "(see objtool --help)", c->name, c->name);
	if (argv[1][0] == '-')
		return usage_error(NULL, "unknown option", argv[1]);
	if (argc < 3)
		return usage_error(NULL, "missing COMMAND after IMAGE", NULL);
	c = find_command(argv[2]);
	if (!c)
		return usage_error(NULL, "unknown command", argv[2]);
	if (asks_help(argc, argv, 3))
		return command_help(c);
	if (c->access == ACCESS_NONE)
		return run_image_first(c, argc, argv);
	return run(c, argv[1], argc, argv, 3);
}
