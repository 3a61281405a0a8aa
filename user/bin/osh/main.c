/*
 * main.c -- osh, the object shell: the first program a person talks to.
 *
 * A loop: report background jobs that ended, edit a line (edit.c: osh
 * reads the console raw and does its own echo, editing, history and
 * completion), split it into words (parse.c), run a builtin from the
 * table below or a program bin/NAME (cmds_process.c). Each command sets
 * $? (shell_status): 0 when it went well, 1 when a builtin said what was
 * wrong, 2 for a builtin called the wrong way, a program's exit status
 * (130 when Ctrl-C ended it, 137 when killed, 139 when it faulted, 127
 * when there is no such program).
 *
 * A script is an object whose lines are commands (run NAME, below): run
 * as if typed, one line after another.
 *
 * All of osh's state is ordinary process memory, persistent with the
 * rest of the system: after a power cut osh carries on where its last
 * committed epoch left it -- in the middle of a line, a wait or a listing.
 */
#include "osh.h"

#define PROMPT "osh> "
#define SCRIPT_MAX (1u << 20)      /* the largest script run reads, bytes */
#define SCRIPT_DEPTH_MAX 8         /* scripts that run scripts, at most */

long shell_status;

const struct builtin builtins[] = {
	{"ls", 0, 2, "ls [-l] [PREFIX]", "names in order (-l: id, type, size, refcount, epoch modified)", cmd_ls},
	{"stat", 1, 1, "stat NAME|#ID", "what an object is: id, type, size, pages, refcount, epoch", cmd_stat},
	{"cat", 1, 1, "cat NAME|#ID", "an object's bytes", cmd_cat},
	{"hexdump", 1, 3, "hexdump NAME|#ID [OFF [LEN]]", "bytes in hex and as text, 16 a line", cmd_hexdump},
	{"new", 2, 2, "new NAME SIZE", "a zero-filled blob of SIZE bytes (K/M/G suffixes)", cmd_new},
	{"write", 2, -1, "write NAME TEXT...", "NAME (a blob, made if missing) holds TEXT and a newline", cmd_write},
	{"append", 2, -1, "append NAME TEXT...", "add TEXT and a newline to the end of NAME", cmd_append},
	{"cp", 2, 2, "cp SRC DST", "a new blob DST with the bytes of SRC", cmd_cp},
	{"mv", 2, 2, "mv OLD NEW", "move a name", cmd_mv},
	{"rm", 1, -1, "rm NAME...", "remove names (an object goes with its last name)", cmd_rm},
	{"ln", 2, 2, "ln NAME ALIAS", "a second name for NAME's object", cmd_ln},
	{"find", 1, 1, "find SUBSTRING", "the names that contain SUBSTRING", cmd_find},
	{"ps", 0, 0, "ps", "processes: pid, parent, state (held: by a safe power-on), CPU time, pages, name", cmd_ps},
	{"kill", 1, -1, "kill PID...", "end processes (osh's own and their children, or held ones)", cmd_kill},
	{"wait", 0, 1, "wait [PID]", "wait for a background job, or all (Ctrl-C stops waiting)", cmd_wait},
	{"jobs", 0, 0, "jobs", "the background jobs", cmd_jobs},
	{"fg", 0, 1, "fg [PID]", "bring a job (the latest by default) to the foreground", cmd_fg},
	{"status", 0, 0, "status", "how the last foreground program ended", cmd_status},
	{"resume", 0, 0, "resume", "after a safe power-on: the held processes run on", cmd_resume},
	{"trace", 1, -1, "trace NAME [ARGS...]", "run bin/NAME, a Linux program, showing each system call it makes", cmd_trace},
	{"time", 1, -1, "time NAME [ARGS...]", "run bin/NAME in the foreground, then say the real time it took", NULL},
	{"sync", 0, 0, "sync", "make everything durable now; returns once it is", cmd_sync},
	{"epoch", 0, 0, "epoch", "checkpoint figures: epoch, commits, pauses, pages", cmd_epoch},
	{"stats", 0, 0, "stats", "the same as epoch", cmd_epoch},
	{"uptime", 0, 0, "uptime", "running time since genesis, and power-ons", cmd_uptime},
	{"mem", 0, 0, "mem", "the heap: size, used, free; objects and names", cmd_mem},
	{"poweroff", 0, 0, "poweroff", "commit everything, then power off", cmd_poweroff},
	{"exit", 0, 1, "exit [STATUS]", "end this shell (the console then gets a new one)", cmd_exit},
	{"snapshot", 1, 2, "snapshot NAME | snapshot rm NAME | snapshot boot NAME|off | snapshot keep N",
	 "keep the whole system as of now under NAME; remove one; start every power-on from one; power-on snapshots kept",
	 cmd_snapshot},
	{"snapshots", 0, 0, "snapshots", "the snapshots: name, epoch, when taken, space only it holds", cmd_snapshots},
	{"history", 0, 0, "history", "the lines run, oldest first", cmd_history},
	{"echo", 0, -1, "echo WORDS...", "the words ($? is the last status)", cmd_echo},
	{"clear", 0, 0, "clear", "clear the screen", cmd_clear},
	{"run", 1, 2, "run [-k] NAME", "NAME's lines as commands ('#' comments), stopping at the first failure (-k: going on)", cmd_run},
	{"help", 0, 1, "help [CMD]", "the commands, or how to use one", cmd_help},
};

const size_t builtin_count = sizeof(builtins) / sizeof(builtins[0]);

/* find_builtin -- the builtin called name, or NULL */
const struct builtin *find_builtin(const char *name)
{
	size_t i;

	for (i = 0; i < builtin_count; i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

/* cmd_help -- help [CMD] */
void cmd_help(int argc, char **argv)
{
	const struct builtin *b;
	size_t i;

	if (argc > 1) {
		b = find_builtin(argv[1]);
		if (b == NULL)
			complain("help: no builtin named '%s'; 'NAME ARGS' runs bin/NAME",
				 argv[1]);
		else
			out_printf("usage: %s\n  %s\n", b->usage, b->help);
		return;
	}
	for (i = 0; i < builtin_count; i++)
		out_printf("  %-28s %s\n", builtins[i].usage, builtins[i].help);
	out_printf("  %-28s %s\n", "NAME [ARGS...]", "run bin/NAME and wait (Ctrl-C ends it)");
	out_printf("  %-28s %s\n", "NAME [ARGS...] &", "run bin/NAME in the background");
	out_printf("Keys: arrows, Home/End, Backspace/Delete, Ctrl-A/E/U/W/K/L, "
		   "Up/Down history, Tab completes.\n'...' and \"...\" quote; $? is "
		   "the last status. docs/shell.md says more.\n");
}

/* run_builtin -- run b with the words, if they fit its usage */
static void run_builtin(const struct builtin *b, struct words *w)
{
	int args = w->count - 1;

	if (w->background) {
		complain("osh: %s is a builtin; it cannot run in the background", b->name);
	} else if (w->redirect[0].name || w->redirect[1].name || w->redirect[2].name) {
		complain("osh: %s is a builtin; redirection (< >) is for Linux programs",
			 b->name);
	} else if (args < b->min_args || (b->max_args >= 0 && args > b->max_args)) {
		complain("usage: %s", b->usage);
		shell_status = STATUS_USAGE;
	} else {
		b->run(w->count, w->word);
	}
}

/* run_line -- run the commands of one line, in order */
static void run_line(const char *line)
{
	static struct words w;
	const struct builtin *b;

	while (*line != '\0') {
		if (!parse_command(&line, &w) || w.count == 0)
			return;  /* an empty line keeps $? */
		shell_status = 0;
		b = find_builtin(w.word[0]);
		if (b != NULL && strcmp(b->name, "time") == 0)
			run_timed(&w);  /* a program's redirections are its own */
		else if (b != NULL)
			run_builtin(b, &w);
		else
			run_program(&w);
	}
}

/* read_script -- the bytes of object `name` (NUL-terminated, malloc'ed), or
 * NULL after saying why */
static char *read_script(const char *name)
{
	struct fe_stat st;
	uint64_t got = 0;
	char *text = NULL;
	long h = open_object("run", name, FE_RIGHT_READ), n = 0;

	if (h < 0)
		return NULL;
	n = fe_obj_stat((int32_t)h, &st);
	if (n == 0 && st.size > SCRIPT_MAX)
		complain("run: '%s' is %lu bytes; a script holds at most %u", name,
			 (unsigned long)st.size, SCRIPT_MAX);
	else if (n == 0 && !(text = malloc(st.size + 1)))
		complain("run: '%s': no memory for %lu bytes", name, (unsigned long)st.size);
	while (text && got < st.size &&
	       (n = fe_obj_read((int32_t)h, got, text + got, st.size - got)) > 0)
		got += (uint64_t)n;
	if (n < 0)
		complain("run: '%s': %s", name, err_str((int)n));
	fe_close((int32_t)h);
	if (!text || n < 0) {
		free(text);
		return NULL;
	}
	text[got] = '\0';
	return text;
}

/* cmd_run -- run [-k] NAME: each line of NAME run as if typed; blank lines
 * and lines whose first non-blank is '#' skipped; the first that fails
 * ($? not 0) stops the rest unless -k; Ctrl-C stops it. $? is the last
 * command's. */
void cmd_run(int argc, char **argv)
{
	static unsigned depth;      /* scripts running scripts */
	bool keep_going = argc == 3 && strcmp(argv[1], "-k") == 0;
	char *name, *text, *line, *next;
	unsigned number = 0;

	if (argc == 3 && !keep_going) {
		complain("usage: run [-k] NAME");
		shell_status = STATUS_USAGE;
		return;
	}
	if (depth >= SCRIPT_DEPTH_MAX) {
		complain("run: '%s': scripts nested %u deep; stopping", argv[argc - 1], depth);
		return;
	}
	/* argv lives in run_line's words, which the script's lines reuse */
	name = malloc(strlen(argv[argc - 1]) + 1);
	if (!name) {
		complain("run: no memory");
		return;
	}
	memcpy(name, argv[argc - 1], strlen(argv[argc - 1]) + 1);
	text = read_script(name);
	if (!text) {
		free(name);
		return;
	}
	depth++;
	for (line = text; line; line = next) {
		const char *start = line;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		number++;
		if (*line && line[strlen(line) - 1] == '\r')
			line[strlen(line) - 1] = '\0';
		while (*start == ' ' || *start == '\t')
			start++;
		if (*start == '\0' || *start == '#')
			continue;
		if (strlen(start) > OSH_LINE_MAX) {
			complain("run: %s line %u: longer than %u bytes; stopping", name, number,
				 OSH_LINE_MAX);
			break;
		}
		run_line(start);
		out_flush();
		if (shell_status == STATUS_INTERRUPTED || interrupted()) {
			complain("run: %s line %u: interrupted; stopping", name, number);
			shell_status = STATUS_INTERRUPTED;
			break;
		}
		if (shell_status && !keep_going) {
			long failed = shell_status;

			complain("run: %s line %u: $? = %ld; stopping (run -k goes on)", name,
				 number, failed);
			shell_status = failed;
			break;
		}
	}
	depth--;
	free(text);
	free(name);
}

/* main -- the read-run loop; with -c LINE, LINE alone (the host link's
 * `run`), exiting with its $? */
int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "-c") == 0) {
		if (strlen(argv[2]) > OSH_LINE_MAX) {
			complain("osh: -c: the line is longer than %u bytes", OSH_LINE_MAX);
			return STATUS_USAGE;
		}
		run_line(argv[2]);
		out_flush();
		return (int)shell_status;
	}
	if (argc != 1) {
		complain("usage: osh [-c LINE]");
		return STATUS_USAGE;
	}
	/* The console's shell: every page it will write exists from now on,
	 * so a full heap fails its commands, never ends it (a rescue shell in
	 * a full heap has no room for that, and runs as it can). */
	fe_keep_memory(OSH_STACK_KEEP, OSH_HEAP_KEEP);
	edit_init();
	out_printf("osh: the object shell; 'help' lists the commands\n");
	for (;;) {
		const char *line;

		report_jobs();
		line = edit_read_line(PROMPT);
		history_add(line);
		run_line(line);
		out_flush();
	}
}
