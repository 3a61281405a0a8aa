/*
 * osh.c -- the object shell: the first program a person talks to.
 *
 * A loop: report background jobs that ended, print "osh> ", read one line
 * (SYS_CONSOLE_READ in FE_CONSOLE_LINE mode: the kernel echoes and edits),
 * split it into words, run a builtin or a program.
 *
 * Words are separated by blanks; '...' quotes literally, "..." quotes with
 * \" and \\ as escapes, and a backslash outside quotes takes the next
 * character as it is. An unquoted "&" as the last word runs the program in
 * the background.
 *
 * Programs are code objects named bin/NAME. A foreground program becomes
 * the console's foreground process (SYS_CONSOLE_FG), so Ctrl-C ends it;
 * osh waits for it, says how it ended unless it exited normally, and
 * remembers how it ended for `status`. Background programs are jobs: osh
 * polls them with FE_WAIT_NOHANG before each prompt and reports those that
 * ended. All of this state is ordinary memory, persistent like the rest of
 * the process, so a power cut in the middle of a wait resumes the wait.
 */
#include <fe.h>

#define LINE_CAP 1024
#define MAX_WORDS 64
#define MAX_JOBS 16
#define LIST_BATCH 8
#define PS_BATCH 8
#define CAT_CHUNK 4096

struct job {
	bool used;
	bool ended;              /* info holds how it ended, not yet reported */
	int32_t handle;          /* the process handle from spawn */
	uint64_t pid;
	struct fe_exit_info info;
};

struct builtin {
	const char *name;
	int min_words;           /* the name included */
	const char *usage;
	const char *help;
	void (*run)(int argc, char **argv);
};

static struct job jobs[MAX_JOBS];
static struct fe_exit_info last_exit;    /* of the last foreground program */
static bool have_last_exit;

/* type_name -- a word for an object type */
static const char *type_name(uint32_t type)
{
	static const char *const names[] = {
		[FE_TYPE_BLOB] = "blob", [FE_TYPE_CODE] = "code",
		[FE_TYPE_PROCESS] = "process", [FE_TYPE_THREAD] = "thread",
		[FE_TYPE_ASPACE] = "aspace", [FE_TYPE_CHANNEL] = "channel",
		[FE_TYPE_CATALOGUE] = "catalogue", [FE_TYPE_ANON] = "anon",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type] != NULL)
		return names[type];
	return "?";
}

/* name_error -- say why an object name could not be used */
static void name_error(const char *cmd, const char *name, long err)
{
	if (err == -ERR_NOENT)
		printf("%s: no object named '%s'\n", cmd, name);
	else
		printf("%s: '%s': %s\n", cmd, name, err_str((int)err));
}

/* cmd_ls -- list names with a prefix, in order, with type and size */
static void cmd_ls(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : "";
	struct fe_name_entry entries[LIST_BATCH];
	struct fe_cursor cursor;
	long n, i;

	memset(&cursor, 0, sizeof(cursor));
	do {
		n = fe_name_list(prefix, strlen(prefix), &cursor, entries,
				 LIST_BATCH);
		if (n < 0) {
			printf("ls: %s\n", err_str((int)n));
			return;
		}
		for (i = 0; i < n; i++)
			printf("%-40s %-9s %lu\n", entries[i].name,
			       type_name(entries[i].type), entries[i].size);
	} while (n == LIST_BATCH);
}

/* cmd_cat -- print an object's bytes */
static void cmd_cat(int argc, char **argv)
{
	static char chunk[CAT_CHUNK];
	uint64_t offset = 0;
	long h, n;

	(void)argc;
	h = fe_open(argv[1], FE_RIGHT_READ);
	if (h < 0) {
		name_error("cat", argv[1], h);
		return;
	}
	while ((n = fe_obj_read((int32_t)h, offset, chunk, sizeof(chunk))) > 0) {
		fe_write_all(chunk, (uint64_t)n);
		offset += (uint64_t)n;
	}
	if (n < 0)
		printf("cat: '%s': %s\n", argv[1], err_str((int)n));
	fe_close((int32_t)h);
}

/* open_or_create -- a read+write handle to the blob NAME, made if missing */
static long open_or_create(const char *name)
{
	long h, err;

	h = fe_open(name, FE_RIGHT_READ | FE_RIGHT_WRITE);
	if (h != -ERR_NOENT)
		return h;
	h = fe_obj_create(FE_TYPE_BLOB, 0);
	if (h < 0)
		return h;
	err = fe_bind((int32_t)h, name);
	if (err < 0) {
		fe_close((int32_t)h);
		return err;
	}
	return h;
}

/* cmd_write -- make NAME hold the words joined by spaces, and a newline */
static void cmd_write(int argc, char **argv)
{
	char text[LINE_CAP];
	size_t len = 0;
	long h, err;
	int i;

	for (i = 2; i < argc; i++) {
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s",
					argv[i], i + 1 < argc ? " " : "\n");
		if (len >= sizeof(text)) {
			printf("write: the text is longer than %zu bytes\n",
			       sizeof(text) - 1);
			return;
		}
	}
	h = open_or_create(argv[1]);
	if (h < 0) {
		printf("write: '%s': %s\n", argv[1], err_str((int)h));
		return;
	}
	err = fe_obj_resize((int32_t)h, len);
	if (err >= 0)
		err = fe_obj_write((int32_t)h, 0, text, len);
	if (err >= 0 && (size_t)err != len)
		err = -ERR_IO;
	if (err < 0)
		printf("write: '%s': %s\n", argv[1], err_str((int)err));
	fe_close((int32_t)h);
}

/* cmd_rm -- unbind each name */
static void cmd_rm(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		long err = fe_unbind(argv[i]);

		if (err < 0)
			name_error("rm", argv[i], err);
	}
}

/* cmd_stat -- what the object bound to NAME is */
static void cmd_stat(int argc, char **argv)
{
	struct fe_stat st;
	long h, err;

	(void)argc;
	h = fe_open(argv[1], FE_RIGHT_READ);
	if (h < 0) {
		name_error("stat", argv[1], h);
		return;
	}
	err = fe_obj_stat((int32_t)h, &st);
	fe_close((int32_t)h);
	if (err < 0) {
		printf("stat: '%s': %s\n", argv[1], err_str((int)err));
		return;
	}
	printf("%s: #%lu, %s, %lu bytes, %lu pages, %u references, modified in epoch %lu\n",
	       argv[1], st.id, type_name(st.type), st.size, st.pages, st.refcount,
	       st.modified_epoch);
}

/* cmd_mv -- move a name */
static void cmd_mv(int argc, char **argv)
{
	long err;

	(void)argc;
	err = fe_name_rename(argv[1], strlen(argv[1]), argv[2], strlen(argv[2]));
	if (err == -ERR_EXIST)
		printf("mv: '%s' already exists\n", argv[2]);
	else if (err < 0)
		name_error("mv", argv[1], err);
}

/* cmd_sync -- make everything so far durable, and say which epoch that is */
static void cmd_sync(int argc, char **argv)
{
	struct fe_sysinfo si;
	long err;

	(void)argc;
	(void)argv;
	err = fe_sync();
	if (err >= 0)
		err = fe_sysinfo(&si);
	if (err < 0)
		printf("sync: %s\n", err_str((int)err));
	else
		printf("sync: epoch %lu committed\n", si.epoch);
}

/* us -- nanoseconds as microseconds with one decimal, into buf */
static const char *us(uint64_t ns, char *buf, size_t cap)
{
	snprintf(buf, cap, "%lu.%lu", ns / 1000, ns / 100 % 10);
	return buf;
}

/* cmd_epoch -- the checkpoint figures: epochs, pauses, pages, power-ons */
static void cmd_epoch(int argc, char **argv)
{
	struct fe_sysinfo si;
	char a[32], b[32], c[32];
	long err;

	(void)argc;
	(void)argv;
	err = fe_sysinfo(&si);
	if (err < 0) {
		printf("%s: %s\n", argv[0], err_str((int)err));
		return;
	}
	printf("epoch %lu committed; %lu commits since genesis, %lu since this power-on\n",
	       si.epoch, si.commits, si.power_on_commits);
	if (si.ckpt_period_ns)
		printf("checkpoint every %s us while dirty (now every %s us)\n",
		       us(si.ckpt_period_ns, a, sizeof(a)),
		       us(si.ckpt_interval_ns, b, sizeof(b)));
	else
		printf("periodic checkpoints off (ckpt=0): commits on sync, idle, full log\n");
	printf("pause: last %s us, mean %s us, max %s us\n",
	       us(si.pause_last_ns, a, sizeof(a)), us(si.pause_mean_ns, b, sizeof(b)),
	       us(si.pause_max_ns, c, sizeof(c)));
	printf("user pages logged: last epoch %lu, mean %lu per epoch\n",
	       si.pages_last, si.pages_mean);
	printf("undo log: %lu KiB, %lu KiB used, high water %lu KiB\n",
	       si.log_size >> 10, si.log_used >> 10, si.log_high_water >> 10);
	printf("power-on %lu: ", si.power_ons);
	if (si.resume_ns)
		printf("resumed in %s us, rolled back %lu records (%lu KiB)\n",
		       us(si.resume_ns, a, sizeof(a)), si.rolled_back_records,
		       (si.rolled_back_bytes + 1023) >> 10);
	else
		printf("genesis\n");
	printf("running for %lu s since genesis\n", si.uptime_ns / 1000000000);
}

/* state_name -- a word for a process state */
static const char *state_name(uint32_t state)
{
	switch (state) {
	case FE_PROC_RUNNABLE:
		return "runnable";
	case FE_PROC_BLOCKED:
		return "blocked";
	case FE_PROC_EXITED:
		return "exited";
	default:
		return "?";
	}
}

/* cmd_ps -- one line per process */
static void cmd_ps(int argc, char **argv)
{
	struct fe_proc_info procs[PS_BATCH];
	uint64_t first = 0;
	long n, i;

	(void)argc;
	(void)argv;
	printf("%6s %6s %-9s %8s %6s %s\n", "PID", "PARENT", "STATE", "CPU_MS",
	       "PAGES", "NAME");
	do {
		n = fe_proc_list(procs, PS_BATCH, first);
		if (n < 0) {
			printf("ps: %s\n", err_str((int)n));
			return;
		}
		for (i = 0; i < n; i++) {
			const struct fe_proc_info *p = &procs[i];

			printf("%6lu %6lu %-9s %8lu %6lu %.*s\n", p->pid,
			       p->parent_pid, state_name(p->state),
			       p->cpu_ns / 1000000, p->pages,
			       (int)sizeof(p->name), p->name);
			first = p->pid + 1;
		}
	} while (n == PS_BATCH);
}

/* parse_pid -- a decimal pid > 0 into *pid; false if text is not one */
static bool parse_pid(const char *text, uint64_t *pid)
{
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return false;
	*pid = strtoull(text, &end, 10);
	return *end == '\0' && *pid > 0 && *pid != ~0ull;
}

/* cmd_kill -- kill each pid */
static void cmd_kill(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		uint64_t pid;
		long err;

		if (!parse_pid(argv[i], &pid)) {
			printf("kill: '%s' is not a pid\n", argv[i]);
			continue;
		}
		err = fe_kill(pid);
		if (err == -ERR_NOENT)
			printf("kill: no process with pid %lu\n", pid);
		else if (err == -ERR_PERM)
			printf("kill: process %lu is not osh's to kill\n", pid);
		else if (err < 0)
			printf("kill: %lu: %s\n", pid, err_str((int)err));
	}
}

/* exit_text -- how a process ended, as a person reads it */
static void exit_text(const struct fe_exit_info *info, char *buf, size_t cap)
{
	if (info->reason == FE_EXIT_NORMAL)
		snprintf(buf, cap, "done, status %ld", (long)info->status);
	else if (info->detail[0] != '\0')
		snprintf(buf, cap, "killed: %.*s", (int)sizeof(info->detail),
			 info->detail);
	else
		snprintf(buf, cap, "killed (reason %u)", info->reason);
}

/* cmd_status -- how the last foreground program ended */
static void cmd_status(int argc, char **argv)
{
	char text[160];

	(void)argc;
	(void)argv;
	if (!have_last_exit) {
		printf("status: no program has run yet\n");
		return;
	}
	exit_text(&last_exit, text, sizeof(text));
	printf("[%lu] %s\n", last_exit.pid, text);
}

/* cmd_poweroff -- commit everything and power the machine off; the call
 * returns 0 at the next power-on, when osh simply carries on */
static void cmd_poweroff(int argc, char **argv)
{
	long err;

	(void)argc;
	(void)argv;
	err = fe_poweroff();
	if (err < 0)
		printf("poweroff: %s\n", err_str((int)err));
}

static void cmd_help(int argc, char **argv);

static const struct builtin builtins[] = {
	{"ls", 1, "ls [PREFIX]", "list names (with type and size) in order", cmd_ls},
	{"cat", 2, "cat NAME", "print an object's contents", cmd_cat},
	{"write", 3, "write NAME TEXT...", "make NAME a blob holding TEXT and a newline", cmd_write},
	{"rm", 2, "rm NAME...", "remove names", cmd_rm},
	{"stat", 2, "stat NAME", "what the object bound to NAME is", cmd_stat},
	{"mv", 3, "mv FROM TO", "move a name", cmd_mv},
	{"sync", 1, "sync", "make everything durable now", cmd_sync},
	{"epoch", 1, "epoch", "checkpoint figures: epoch, commits, pauses, pages", cmd_epoch},
	{"stats", 1, "stats", "the same as epoch", cmd_epoch},
	{"ps", 1, "ps", "list processes", cmd_ps},
	{"kill", 2, "kill PID...", "end processes", cmd_kill},
	{"status", 1, "status", "how the last foreground program ended", cmd_status},
	{"poweroff", 1, "poweroff", "commit everything and power off", cmd_poweroff},
	{"help", 1, "help", "this list", cmd_help},
};

#define BUILTIN_COUNT (sizeof(builtins) / sizeof(builtins[0]))

/* cmd_help -- list the builtins and how programs run */
static void cmd_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	for (i = 0; i < BUILTIN_COUNT; i++)
		printf("  %-20s %s\n", builtins[i].usage, builtins[i].help);
	printf("  %-20s %s\n", "NAME [ARGS...]", "run bin/NAME and wait (Ctrl-C ends it)");
	printf("  %-20s %s\n", "NAME [ARGS...] &", "run bin/NAME in the background");
}

/* spawn_error -- say why a program could not start */
static void spawn_error(const char *name, long err)
{
	if (err == -ERR_NOENT)
		printf("osh: no program named 'bin/%s'\n", name);
	else if (err == -ERR_NOEXEC)
		printf("osh: 'bin/%s' is not a program\n", name);
	else
		printf("osh: %s: %s\n", name, err_str((int)err));
}

/* job_slot -- a free entry of the job table, or NULL */
static struct job *job_slot(void)
{
	size_t i;

	for (i = 0; i < MAX_JOBS; i++)
		if (!jobs[i].used)
			return &jobs[i];
	return NULL;
}

/* job_poll -- wait without hanging; true once the job has ended */
static bool job_poll(struct job *job)
{
	long r;

	if (job->ended)
		return true;
	r = fe_wait(job->handle, &job->info, FE_WAIT_NOHANG);
	if (r < 0) {
		memset(&job->info, 0, sizeof(job->info));
		job->info.pid = job->pid;
		snprintf(job->info.detail, sizeof(job->info.detail),
			 "wait failed: %s", err_str((int)r));
		job->info.reason = FE_EXIT_KILLED;
	} else if (job->info.reason == FE_EXIT_RUNNING) {
		return false;
	}
	job->ended = true;
	return true;
}

/* run_background -- start a job and say its pid */
static void run_background(char **argv)
{
	struct job *job = job_slot();
	long h;

	if (job == NULL) {
		printf("osh: %u background jobs already; wait for one to end\n",
		       MAX_JOBS);
		return;
	}
	h = fe_spawn_program(argv[0], (const char *const *)argv);
	if (h < 0) {
		spawn_error(argv[0], h);
		return;
	}
	memset(job, 0, sizeof(*job));
	job->used = true;
	job->handle = (int32_t)h;
	job_poll(job);
	job->pid = job->info.pid;
	printf("[%lu] started\n", job->pid);
}

/* run_foreground -- run a program with the console and wait for it */
static void run_foreground(char **argv)
{
	struct fe_exit_info info;
	char text[160];
	long h, r;

	h = fe_spawn_program(argv[0], (const char *const *)argv);
	if (h < 0) {
		spawn_error(argv[0], h);
		return;
	}
	fe_console_fg((int32_t)h);
	r = fe_wait((int32_t)h, &info, 0);
	fe_console_fg(-1);
	fe_close((int32_t)h);
	if (r < 0) {
		printf("osh: waiting for %s: %s\n", argv[0], err_str((int)r));
		return;
	}
	last_exit = info;
	have_last_exit = true;
	if (info.reason != FE_EXIT_NORMAL) {
		exit_text(&info, text, sizeof(text));
		printf("[%lu] %s\n", info.pid, text);
	}
}

/* report_jobs -- say which background jobs ended, and forget them */
static void report_jobs(void)
{
	char text[160];
	size_t i;

	for (i = 0; i < MAX_JOBS; i++) {
		struct job *job = &jobs[i];

		if (!job->used || !job_poll(job))
			continue;
		exit_text(&job->info, text, sizeof(text));
		printf("[%lu] %s\n", job->pid, text);
		fe_close(job->handle);
		job->used = false;
	}
}

/*
 * split_words -- split line in place into at most MAX_WORDS words; returns
 * the count, or -1 after saying what is wrong. *background is set when the
 * last word is an unquoted "&" (which is then dropped).
 */
static int split_words(char *line, char **words, bool *background)
{
	char *in = line, *out = line;
	int n = 0;
	bool last_quoted = false;

	*background = false;
	for (;;) {
		bool quoted = false;
		char quote = 0;

		while (*in == ' ' || *in == '\t' || *in == '\n')
			in++;
		if (*in == '\0')
			break;
		if (n == MAX_WORDS) {
			printf("osh: more than %d words\n", MAX_WORDS);
			return -1;
		}
		words[n++] = out;
		for (; *in != '\0'; in++) {
			if (quote == 0 && (*in == ' ' || *in == '\t' || *in == '\n'))
				break;
			if (quote == 0 && (*in == '\'' || *in == '"')) {
				quote = *in;
				quoted = true;
			} else if (quote != 0 && *in == quote) {
				quote = 0;
			} else if (*in == '\\' && quote != '\'' && in[1] != '\0') {
				*out++ = *++in;
			} else {
				*out++ = *in;
			}
		}
		if (quote != 0) {
			printf("osh: missing closing %c\n", quote);
			return -1;
		}
		if (*in != '\0')
			in++;
		*out++ = '\0';
		last_quoted = quoted;
	}
	if (n > 0 && !last_quoted && strcmp(words[n - 1], "&") == 0) {
		*background = true;
		n--;
	}
	return n;
}

/* run_line -- run one command line */
static void run_line(char *line)
{
	char *words[MAX_WORDS + 1];
	bool background;
	int n = split_words(line, words, &background);
	size_t i;

	if (n <= 0)
		return;
	words[n] = NULL;
	for (i = 0; i < BUILTIN_COUNT; i++) {
		const struct builtin *b = &builtins[i];

		if (strcmp(words[0], b->name) != 0)
			continue;
		if (background)
			printf("osh: %s is a builtin; it cannot run in the background\n",
			       b->name);
		else if (n < b->min_words)
			printf("usage: %s\n", b->usage);
		else
			b->run(n, words);
		return;
	}
	if (background)
		run_background(words);
	else
		run_foreground(words);
}

/* main -- the read-run loop */
int main(int argc, char **argv)
{
	static char line[LINE_CAP];

	(void)argc;
	(void)argv;
	printf("osh: the object shell; 'help' lists the commands\n");
	for (;;) {
		long n;

		report_jobs();
		printf("osh> ");
		n = fe_console_read(line, sizeof(line) - 1, FE_CONSOLE_LINE);
		if (n < 0) {
			printf("osh: reading the console: %s\n", err_str((int)n));
			fe_sleep_ms(100);
			continue;
		}
		line[n] = '\0';
		run_line(line);
	}
}
