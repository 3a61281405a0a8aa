/*
 * cmds_process.c -- programs and jobs: running bin/NAME in the foreground
 * or the background, and the builtins ps, kill, wait, jobs, fg, status,
 * resume, trace, time.
 *
 * A foreground program becomes the console's foreground process
 * (SYS_CONSOLE_FG), so the kernel ends it when Ctrl-C is typed; osh
 * blocks in SYS_WAIT meanwhile and says how the program ended unless it
 * exited normally. A background program is a job in a small table: osh
 * polls the table with FE_WAIT_NOHANG before each prompt and reports the
 * jobs that ended. `fg` makes a job the foreground and waits for it;
 * `wait` polls, so Ctrl-C stops the waiting and not the jobs.
 *
 * The table, like all osh's state, is persistent: a power cut in the
 * middle of a wait resumes the wait.
 */
#include "osh.h"

#define MAX_JOBS 16
#define PS_BATCH 16
#define WAIT_POLL_MS 10
#define JOB_TEXT 64

struct job {
	bool used;
	bool ended;              /* info says how; not yet reported */
	int32_t handle;          /* the process handle from spawn */
	uint64_t pid;
	uint64_t started;        /* order of starting, for fg's default */
	char text[JOB_TEXT];     /* the command, for jobs */
	struct fe_exit_info info;
};

static struct job jobs[MAX_JOBS];
static uint64_t jobs_started;
static struct fe_exit_info last_exit;    /* of the last foreground program */
static bool have_last_exit;

/* exit_status -- the $? of an ended process */
static long exit_status(const struct fe_exit_info *info)
{
	switch (info->reason) {
	case FE_EXIT_NORMAL:
		return (long)info->status;
	case FE_EXIT_INTERRUPT:
		return STATUS_INTERRUPTED;
	case FE_EXIT_FAULT:
		return STATUS_FAULT;
	case FE_EXIT_KILLED: /* a Linux program's signal, as a Linux shell says */
		return info->status > 0 && info->status <= 64 ? 128 + (long)info->status :
		       STATUS_KILLED;
	default:
		return STATUS_KILLED;
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

/* program_exists -- whether bin/NAME names an object */
static bool program_exists(const char *name)
{
	char path[FE_NAME_MAX + 1];
	int n = snprintf(path, sizeof(path), "bin/%s", name);
	long h = n > 0 && (size_t)n < sizeof(path) ? fe_obj_open(path, (uint64_t)n, FE_RIGHT_READ) : -1;

	if (h < 0)
		return false;
	fe_close((int32_t)h);
	return true;
}

/* spawn_error -- say why a program could not start, as `who` (osh, trace) */
static void spawn_error(const char *who, const char *name, long err)
{
	if (err == -ERR_NOENT && program_exists(name)) /* a dynamic program's loader */
		complain("%s: 'bin/%s' needs a file the catalogue lacks (the kernel's line names it)",
			 who, name);
	else if (err == -ERR_NOENT)
		complain("%s: no program named 'bin/%s' (help lists the builtins)", who, name);
	else if (err == -ERR_NOEXEC)
		complain("%s: 'bin/%s' is not a program", who, name);
	else if (err == -ERR_PERM)
		complain("%s: 'bin/%s' is not a code object", who, name);
	else if (err == -ERR_NOTSUP) /* a spawn with a Linux program's descriptors or flags */
		complain("%s: '%s' is a program of Ferrite's own; %s", who, name,
			 strcmp(who, "trace") ? "redirection (< >) is for Linux programs" :
			 "trace shows the calls of Linux programs only");
	else
		complain("%s: %s: %s", who, name, err_str((int)err));
	if (err == -ERR_NOENT)
		shell_status = STATUS_NOT_FOUND;
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
		job->info.reason = FE_EXIT_KILLED;
		snprintf(job->info.detail, sizeof(job->info.detail),
			 "wait failed: %s", err_str((int)r));
	} else if (job->info.reason == FE_EXIT_RUNNING) {
		return false;
	}
	job->ended = true;
	return true;
}

/* job_forget -- report an ended job and free its slot */
static void job_forget(struct job *job)
{
	char text[160];

	exit_text(&job->info, text, sizeof(text));
	out_printf("[%lu] %s\n", job->pid, text);
	fe_close(job->handle);
	job->used = false;
}

/* report_jobs -- say which background jobs ended, and forget them */
void report_jobs(void)
{
	size_t i;

	for (i = 0; i < MAX_JOBS; i++)
		if (jobs[i].used && job_poll(&jobs[i]))
			job_forget(&jobs[i]);
}

/* job_text -- the words of a command, joined, cut to fit */
static void job_text(char *const *argv, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (; *argv != NULL && len < cap; argv++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s",
					len ? " " : "", *argv);
}

/* open_redirect -- a handle to grant for descriptor fd's redirection r:
 * the object to read (0), or the blob to write (1, 2), made if missing
 * and emptied unless appended to; -ERR_x after complaining */
static long open_redirect(int fd, const struct redirect *r)
{
	struct fe_stat st;
	long h, err;

	if (fd == 0)
		h = open_object("osh", r->name, FE_RIGHT_READ | FE_RIGHT_GRANT);
	else
		h = open_or_create("osh", r->name, FE_RIGHT_WRITE | FE_RIGHT_GRANT);
	if (h < 0)
		return h;
	err = fe_obj_stat((int32_t)h, &st);
	if (err >= 0 && st.type != FE_TYPE_BLOB && (fd != 0 || st.type != FE_TYPE_CODE))
		err = -ERR_INVAL;
	if (err >= 0 && fd != 0 && !r->append)
		err = fe_obj_resize((int32_t)h, 0);
	if (err == -ERR_INVAL)
		complain("osh: '%s' is not a blob%s", r->name, fd == 0 ? " or code object" : "");
	else if (err < 0)
		complain("osh: '%s': %s", r->name, err_str((int)err));
	if (err < 0) {
		fe_close((int32_t)h);
		return err;
	}
	return h;
}

/* start -- spawn the command of w with its redirections -> a process
 * handle, or -ERR_x after complaining */
static long start(const struct words *w)
{
	struct fe_handle_grant grants[3];
	struct fe_spawn spawn = {.handles = grants};
	long h = 0;
	int fd;

	for (fd = 0; fd < 3; fd++) {
		if (w->redirect[fd].name == NULL)
			continue;
		h = open_redirect(fd, &w->redirect[fd]);
		if (h < 0)
			break;
		grants[spawn.handle_count] = (struct fe_handle_grant){
			(int32_t)h, fd == 0 ? FE_RIGHT_READ : FE_RIGHT_WRITE,
		};
		spawn.fd[fd].grant = FE_SPAWN_FD_GRANT(spawn.handle_count++);
		spawn.fd[fd].flags = w->redirect[fd].append ? FE_SPAWN_FD_APPEND : 0;
	}
	if (h >= 0) {
		h = fe_spawn_program_with(w->word[0], (const char *const *)w->word, &spawn, 0);
		if (h < 0)
			spawn_error("osh", w->word[0], h);
	}
	while (spawn.handle_count > 0)  /* the process holds what it was given */
		fe_close(grants[--spawn.handle_count].handle);
	return h;
}

/* run_background -- start a job and say its pid */
static void run_background(const struct words *w)
{
	struct job *job = NULL;
	size_t i;
	long h;

	for (i = 0; i < MAX_JOBS && job == NULL; i++)
		if (!jobs[i].used)
			job = &jobs[i];
	if (job == NULL) {
		complain("osh: %d background jobs already; wait for one to end",
			 MAX_JOBS);
		return;
	}
	h = start(w);
	if (h < 0)
		return;
	memset(job, 0, sizeof(*job));
	job->used = true;
	job->handle = (int32_t)h;
	job->started = ++jobs_started;
	job_text(w->word, job->text, sizeof(job->text));
	job_poll(job);
	job->pid = job->info.pid;
	out_printf("[%lu] started\n", job->pid);
}

/* wait_foreground -- give the console to process h and wait for it to end */
static void wait_foreground(int32_t h, const char *name)
{
	struct fe_exit_info info;
	char text[160];
	long r;

	out_flush();
	fe_console_fg(h);
	r = fe_wait(h, &info, 0);
	fe_console_fg(-1);
	fe_close(h);
	if (r < 0) {
		complain("osh: waiting for %s: %s", name, err_str((int)r));
		return;
	}
	last_exit = info;
	have_last_exit = true;
	shell_status = exit_status(&info);
	if (info.reason != FE_EXIT_NORMAL) {
		exit_text(&info, text, sizeof(text));
		out_printf("[%lu] %s\n", info.pid, text);
	}
}

/* run_program -- run bin/NAME with the words and redirections, in the
 * background if asked */
void run_program(const struct words *w)
{
	long h;

	out_flush(); /* what osh said so far goes out before the program speaks */
	if (w->background) {
		run_background(w);
		return;
	}
	h = start(w);
	if (h >= 0)
		wait_foreground((int32_t)h, w->word[0]);
}

/* cmd_trace -- trace NAME ARGS...: run bin/NAME in the foreground, the
 * kernel printing each Linux call it makes on its console (FE_SPAWN_TRACE) */
void cmd_trace(int argc, char **argv)
{
	long h;

	(void)argc;
	if (find_builtin(argv[1])) {
		complain("trace: %s is a builtin of osh; trace runs a program, bin/NAME", argv[1]);
		return;
	}
	out_flush(); /* what osh said so far goes out before the program speaks */
	h = fe_spawn_program_grant(argv[1], (const char *const *)argv + 1, NULL, 0,
				   FE_SPAWN_TRACE);
	if (h < 0) {
		spawn_error("trace", argv[1], h);
		return;
	}
	wait_foreground((int32_t)h, argv[1]);
}

/* run_timed -- time NAME ARGS... [redirections]: run bin/NAME in the
 * foreground as run_program does and say how long it took, from just
 * before the spawn to the end of the wait, on the monotonic clock */
void run_timed(struct words *w)
{
	uint64_t begun, took;
	long h;

	if (w->background) {
		complain("osh: time is a builtin; it cannot run in the background");
		return;
	}
	if (w->count < 2) {
		complain("usage: time NAME [ARGS...]");
		shell_status = STATUS_USAGE;
		return;
	}
	if (find_builtin(w->word[1])) {
		complain("time: %s is a builtin of osh; time runs a program, bin/NAME", w->word[1]);
		return;
	}
	memmove(w->word, w->word + 1, (size_t)w->count * sizeof(w->word[0]));
	w->count--;
	out_flush(); /* what osh said so far goes out before the program speaks */
	begun = fe_now();
	h = start(w);
	if (h < 0)
		return;
	wait_foreground((int32_t)h, w->word[0]);
	took = fe_now() - begun;
	out_printf("real %lu.%06lu s\n", (unsigned long)(took / 1000000000u),
		   (unsigned long)(took % 1000000000u / 1000u));
}

/* parse_pid -- a decimal pid > 0 into *pid; false after complaining */
static bool parse_pid(const char *cmd, const char *text, uint64_t *pid)
{
	if (isdigit((unsigned char)text[0]) && parse_number(text, pid) == 0 && *pid > 0)
		return true;
	complain("%s: '%s' is not a pid", cmd, text);
	return false;
}

/* find_job -- the job with pid, or NULL after complaining */
static struct job *find_job(const char *cmd, uint64_t pid)
{
	size_t i;

	for (i = 0; i < MAX_JOBS; i++)
		if (jobs[i].used && jobs[i].pid == pid)
			return &jobs[i];
	complain("%s: no job with pid %lu (jobs lists them)", cmd, pid);
	return NULL;
}

/* state_name -- a word for a process state, without FE_PROC_HELD */
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

/* state_text -- a process state as ps shows it: "blocked", "held,runnable" */
static const char *state_text(uint32_t state, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s", state & FE_PROC_HELD ? "held," : "",
		 state_name(state & ~(uint32_t)FE_PROC_HELD));
	return buf;
}

/* blocking_call -- the name of a call a thread may block in */
static const char *blocking_call(uint32_t nr)
{
	switch (nr) {
	case SYS_WAIT:
		return "wait";
	case SYS_SLEEP_UNTIL:
		return "sleep";
	case SYS_CHAN_RECV:
		return "chan_recv";
	case SYS_CHAN_SEND:
		return "chan_send";
	case SYS_CONSOLE_READ:
		return "console_read";
	case SYS_CONSOLE_WRITE:
		return "console_write";
	case SYS_THREAD_JOIN:
		return "thread_join";
	case SYS_FUTEX_WAIT:
		return "futex_wait";
	case SYS_LINK_READ:
		return "link_read";
	case SYS_LINK_WRITE:
		return "link_write";
	default:
		return "a system call";
	}
}

/* print_threads -- under a process of more than one thread, a line each:
 * its tid, its state, and the CPU that runs it */
static void print_threads(uint64_t pid)
{
	struct fe_thread_info t[FE_THREADS_MAX];
	long n = fe_thread_list(pid, t, FE_THREADS_MAX);

	for (long i = 0; n > 1 && i < n; i++) {
		out_printf("%13s tid %-3u ", "", t[i].tid);
		if (t[i].state == FE_THREAD_EXITED)
			out_printf("exited with status %ld, not joined yet\n", (long)t[i].exit_status);
		else if (t[i].state == FE_THREAD_BLOCKED)
			out_printf("blocked in %s\n", blocking_call(t[i].blocked_on));
		else if (t[i].cpu >= 0)
			out_printf("running on cpu %d\n", t[i].cpu);
		else
			out_printf("runnable\n");
	}
}

/* cmd_ps -- ps: one line per process, and one per thread of a process with several */
void cmd_ps(int argc, char **argv)
{
	struct fe_proc_info procs[PS_BATCH];
	uint64_t first = 0;
	char state[24];
	long n, i;

	(void)argc;
	(void)argv;
	out_printf("%6s %6s %-13s %10s %6s  %s\n", "PID", "PARENT", "STATE",
		   "CPU_MS", "PAGES", "NAME");
	do {
		n = fe_proc_list(procs, PS_BATCH, first);
		if (n < 0) {
			complain("ps: %s", err_str((int)n));
			return;
		}
		for (i = 0; i < n; i++) {
			const struct fe_proc_info *p = &procs[i];

			out_printf("%6lu %6lu %-13s %10lu %6lu  %.*s\n", p->pid,
				   p->parent_pid, state_text(p->state, state, sizeof(state)),
				   p->cpu_ns / 1000000, p->pages,
				   (int)strnlen(p->name, sizeof(p->name)), p->name);
			print_threads(p->pid);
			first = p->pid + 1;
		}
	} while (n == PS_BATCH);
}

/* cmd_kill -- kill PID...: end each process */
void cmd_kill(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		uint64_t pid;
		long err;

		if (!parse_pid("kill", argv[i], &pid))
			continue;
		err = fe_kill(pid);
		if (err == -ERR_NOENT)
			complain("kill: no process with pid %lu", pid);
		else if (err == -ERR_PERM)
			complain("kill: process %lu is not osh's to kill", pid);
		else if (err < 0)
			complain("kill: %lu: %s", pid, err_str((int)err));
	}
}

/* cmd_wait -- wait [PID]: until the job (or every job) ends; Ctrl-C stops waiting */
void cmd_wait(int argc, char **argv)
{
	struct job *job = NULL;
	uint64_t pid;
	size_t i;

	if (argc > 1) {
		if (!parse_pid("wait", argv[1], &pid) || !(job = find_job("wait", pid)))
			return;
	}
	for (;;) {
		bool running = false;

		for (i = 0; i < MAX_JOBS; i++) {
			struct job *j = &jobs[i];

			if (!j->used || (job != NULL && j != job))
				continue;
			if (job_poll(j)) {
				if (j == job)
					shell_status = exit_status(&j->info);
				job_forget(j);
			} else {
				running = true;
			}
		}
		if (!running)
			return;
		if (interrupted()) {
			out_bytes("^C\n", 3);
			return;
		}
		fe_sleep_ms(WAIT_POLL_MS);
	}
}

/* cmd_jobs -- jobs: the background jobs */
void cmd_jobs(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	for (i = 0; i < MAX_JOBS; i++) {
		struct job *j = &jobs[i];

		if (!j->used)
			continue;
		out_printf("[%lu] %-8s %s\n", j->pid, job_poll(j) ? "ended" : "running",
			   j->text);
	}
}

/* cmd_fg -- fg [PID]: bring a job (the latest by default) to the foreground */
void cmd_fg(int argc, char **argv)
{
	struct job *job = NULL;
	uint64_t pid;
	size_t i;

	if (argc > 1) {
		if (!parse_pid("fg", argv[1], &pid) || !(job = find_job("fg", pid)))
			return;
	} else {
		for (i = 0; i < MAX_JOBS; i++)
			if (jobs[i].used && (job == NULL || jobs[i].started > job->started))
				job = &jobs[i];
		if (job == NULL) {
			complain("fg: no background jobs");
			return;
		}
	}
	if (job_poll(job)) {
		shell_status = exit_status(&job->info);
		job_forget(job);
		return;
	}
	out_printf("%s\n", job->text);
	job->used = false;
	wait_foreground(job->handle, job->text);
}

/* cmd_resume -- resume: the processes a safe power-on holds run on. The
 * kernel says how many and which shell keeps the console; when the saved
 * shell takes it, this (rescue) shell ends inside the call. */
void cmd_resume(int argc, char **argv)
{
	long r;

	(void)argc;
	(void)argv;
	out_flush(); /* what osh said so far goes out before the kernel's line */
	r = fe_resume();
	if (r == -ERR_INVAL)
		complain("resume: not in a safe power-on");
	else if (r < 0)
		complain("resume: %s", err_str((int)r));
}

/* cmd_status -- status: how the last foreground program ended */
void cmd_status(int argc, char **argv)
{
	char text[160];

	(void)argc;
	(void)argv;
	if (!have_last_exit) {
		complain("status: no program has run in the foreground yet");
		return;
	}
	exit_text(&last_exit, text, sizeof(text));
	out_printf("[%lu] %s\n", last_exit.pid, text);
}
