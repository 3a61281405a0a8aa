/*
 * osh.h -- what the object shell's files share.
 *
 * osh is one program in several files (user/bin/osh/):
 *
 *   main.c             the read-run loop, the builtin table, help, $?,
 *                      scripts (run)
 *   parse.c            a line into words: quoting, $?, a final &
 *   edit.c             the line editor over the raw console, history,
 *                      typed-ahead input and Ctrl-C polling
 *   complete.c         Tab completion of commands and catalogue names
 *   out.c              buffered console output, messages, number formats
 *   cmds_catalogue.c   ls stat cat hexdump new write append cp mv rm ln find
 *   cmds_process.c     programs, & jobs, ps kill wait jobs fg status resume
 *   cmds_system.c      sync epoch stats uptime mem poweroff exit history echo clear
 *
 * Every piece of state here (the line being edited, the history, the job
 * table, the last status) is an ordinary global or heap block of the
 * process, persistent like the rest of its memory: after a power cut osh
 * carries on from its last committed epoch, half-typed line included.
 */
#ifndef OSH_H
#define OSH_H

#include <fe.h>

/* The longest command line, in bytes (the editor refuses more). */
#define OSH_LINE_MAX 4095
/* What the console's shell keeps of its memory (fe_keep_memory): its
 * deepest stack, and its malloc'ed history (HISTORY_BYTES, edit.c) and
 * lines, with room to spare. */
#define OSH_STACK_KEEP (128u << 10)
#define OSH_HEAP_KEEP (256u << 10)
/* The most words in one command line. */
#define OSH_WORDS_MAX 64

/* Exit statuses ($?) osh gives beyond a program's own. */
#define STATUS_FAILED 1          /* a builtin said what went wrong */
#define STATUS_USAGE 2           /* a builtin was called the wrong way */
#define STATUS_NOT_FOUND 127     /* no program bin/NAME */
#define STATUS_INTERRUPTED 130   /* Ctrl-C */
#define STATUS_KILLED 137        /* SYS_KILL */
#define STATUS_FAULT 139         /* a CPU exception */

/* A builtin command. */
struct builtin {
	const char *name;
	int min_args;            /* words after the name, at least */
	int max_args;            /* at most; -1: no limit */
	const char *usage;
	const char *help;        /* one line */
	void (*run)(int argc, char **argv);
};

extern const struct builtin builtins[];
extern const size_t builtin_count;

/* The status of the last command, as $? gives it. */
extern long shell_status;

/* --- main.c ------------------------------------------------------------ */

/* find_builtin -- the builtin called name, or NULL */
const struct builtin *find_builtin(const char *name);

/* cmd_help -- help [CMD] */
void cmd_help(int argc, char **argv);

/* cmd_run -- run [-k] NAME: the lines of object NAME as commands */
void cmd_run(int argc, char **argv);

/* --- parse.c ----------------------------------------------------------- */

/* Where a redirection sends a program's descriptor (< > >> 2> 2>>). */
struct redirect {
	const char *name;        /* the object's name (in words.text); NULL: the console */
	bool append;             /* >>: writes go to the end */
};

/* A command line split into words. */
struct words {
	int count;
	bool background;         /* the command ended with an unquoted & */
	char *word[OSH_WORDS_MAX + 1];  /* NULL after the last */
	struct redirect redirect[3];    /* descriptors 0, 1 and 2 */
	char text[2 * OSH_LINE_MAX + 64]; /* the words, each NUL-terminated */
};

/* parse_command -- split the command at *line into w and move *line past
 * it (past its &, if any); false after saying what is wrong */
bool parse_command(const char **line, struct words *w);

/* --- edit.c ------------------------------------------------------------ */

/* edit_init -- get the editor ready at osh's start */
void edit_init(void);

/* edit_read_line -- edit a line after prompt until Enter; the line (NUL-terminated) */
const char *edit_read_line(const char *prompt);

/* interrupted -- whether Ctrl-C was typed (polls the console; keeps other typed bytes) */
bool interrupted(void);

/* history_add -- remember a line run */
void history_add(const char *line);

/* cmd_history -- history: the lines run, oldest first */
void cmd_history(int argc, char **argv);

/* --- complete.c -------------------------------------------------------- */

/* The word being completed and what it may become. */
struct completion {
	size_t matches;          /* how many candidates */
	size_t common;           /* bytes all candidates share (the word included) */
	char first[FE_NAME_MAX + 1]; /* the first candidate, in order */
};

/* complete_word -- what word (the prefix of the first word when command) may complete to */
void complete_word(const char *word, bool command, struct completion *c);

/* complete_list -- print the candidates for word, in columns */
void complete_list(const char *word, bool command);

/* --- out.c ------------------------------------------------------------- */

/* out_bytes -- queue len bytes for the console */
void out_bytes(const void *buf, size_t len);

/* out_printf -- format for the console */
void out_printf(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2)));

/* out_flush -- send what is queued */
void out_flush(void);

/* out_name -- a name with control bytes and backslashes escaped (\xNN) */
void out_name(const char *name);

/* complain -- print a message and a newline; the command failed */
void complain(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2)));

/* name_error -- "CMD: no object named 'NAME'", or the error's message */
void name_error(const char *cmd, const char *name, long err);

/* type_name -- a word for an object type */
const char *type_name(uint32_t type);

/* --- cmds_catalogue.c: walking the catalogue ---------------------------- */

/* name_walk's result when Ctrl-C stopped it (it checks once per batch). */
#define WALK_INTERRUPTED 1

/* name_walk -- fn for each name with prefix, in order, until fn returns
 * false -> 0, WALK_INTERRUPTED (only if interruptible), or -ERR_x */
long name_walk(const char *prefix, bool (*fn)(const struct fe_name_entry *e, void *ctx),
	       void *ctx);

/* name_walk_interruptible -- name_walk that stops at Ctrl-C */
long name_walk_interruptible(const char *prefix,
			     bool (*fn)(const struct fe_name_entry *e, void *ctx),
			     void *ctx);

/* --- the commands ------------------------------------------------------ */

/* open_object -- a handle with rights to NAME or #ID; reports failure for cmd */
long open_object(const char *cmd, const char *arg, uint32_t rights);

/* open_or_create -- a handle with rights (write among them) to the blob
 * NAME, made and bound if missing; reports failure for cmd */
long open_or_create(const char *cmd, const char *name, uint32_t rights);

void cmd_ls(int argc, char **argv);
void cmd_stat(int argc, char **argv);
void cmd_cat(int argc, char **argv);
void cmd_hexdump(int argc, char **argv);
void cmd_new(int argc, char **argv);
void cmd_write(int argc, char **argv);
void cmd_append(int argc, char **argv);
void cmd_cp(int argc, char **argv);
void cmd_mv(int argc, char **argv);
void cmd_rm(int argc, char **argv);
void cmd_ln(int argc, char **argv);
void cmd_find(int argc, char **argv);

void cmd_ps(int argc, char **argv);
void cmd_kill(int argc, char **argv);
void cmd_wait(int argc, char **argv);
void cmd_jobs(int argc, char **argv);
void cmd_fg(int argc, char **argv);
void cmd_status(int argc, char **argv);
void cmd_resume(int argc, char **argv);
void cmd_trace(int argc, char **argv);

void cmd_sync(int argc, char **argv);
void cmd_epoch(int argc, char **argv);
void cmd_uptime(int argc, char **argv);
void cmd_mem(int argc, char **argv);
void cmd_poweroff(int argc, char **argv);
void cmd_exit(int argc, char **argv);
void cmd_snapshot(int argc, char **argv);
void cmd_snapshots(int argc, char **argv);
void cmd_echo(int argc, char **argv);
void cmd_clear(int argc, char **argv);

/* run_program -- run bin/NAME with the words and redirections, in the
 * background if asked */
void run_program(const struct words *w);

/* run_timed -- time NAME ARGS...: run bin/NAME as run_program does, then
 * say how long it took (spawn to the end of the wait) */
void run_timed(struct words *w);

/* report_jobs -- say which background jobs ended, and forget them */
void report_jobs(void);

#endif
