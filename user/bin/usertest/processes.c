/*
 * processes.c -- processes: spawning programs (exit statuses, argv, every
 * bad request), handles granted at spawn carrying exactly the rights given
 * (the child side is "usertest child-handle"), waiting with and without
 * hanging, killing a sleeping child and its exit reason, the console's
 * foreground, and the process list with the caller in it.
 */
#include "usertest.h"

/* test_spawn -- start programs, exit statuses, argv, bad requests */
void test_spawn(void)
{
	static const char *const exit42[] = {"usertest", "exit", "42", NULL};
	static const char *const args[] = {"usertest", "argc", "b", "c", "d", NULL};
	const char *too_many[FE_SPAWN_MAX_ARGS + 2];
	static char big_arg[FE_SPAWN_MAX_ARGV_BYTES + 1];
	const char *big_argv[] = {"usertest", big_arg, NULL};
	const char *wild_argv[] = {"usertest", ptr(KERNEL_TEXT), NULL};
	struct fe_spawn sp;
	struct fe_exit_info info;
	long code, ro, blob;
	size_t i;

	info = wait_for(OK(fe_spawn_program("hello", NULL)));
	EQ(info.reason, FE_EXIT_NORMAL);
	EQ(info.status, 0);
	CHECK(info.pid > 0 && info.pid != (uint64_t)self_pid);
	info = wait_for(OK(spawn_self(exit42, NULL, 0)));
	EQ(info.reason, FE_EXIT_NORMAL);
	EQ(info.status, 42);
	info = wait_for(OK(spawn_self(args, NULL, 0)));
	EQ(info.status, 5);
	ERR(fe_spawn_program("usertest-no-such-program", NULL), ERR_NOENT);

	code = OK(fe_open("bin/usertest", FE_RIGHT_READ | FE_RIGHT_EXEC));
	memset(&sp, 0, sizeof(sp));
	sp.argv = exit42;
	sp.argc = 3;
	ro = OK(fe_dup((int32_t)code, FE_RIGHT_READ));
	ERR(fe_spawn((int32_t)ro, &sp, 0), ERR_PERM);
	blob = new_blob(PAGE, "not a program");
	FAILS(fe_spawn((int32_t)blob, &sp, 0));
	sp.argc = 0;
	ERR(fe_spawn((int32_t)code, &sp, 0), ERR_INVAL);
	for (i = 0; i < FE_SPAWN_MAX_ARGS + 1; i++)
		too_many[i] = "x";
	too_many[i] = NULL;
	sp.argv = too_many;
	sp.argc = FE_SPAWN_MAX_ARGS + 1;
	ERR(fe_spawn((int32_t)code, &sp, 0), ERR_INVAL);
	memset(big_arg, 'a', sizeof(big_arg) - 1);
	sp.argv = big_argv;
	sp.argc = 2;
	ERR(fe_spawn((int32_t)code, &sp, 0), ERR_TOOBIG);
	sp.argv = wild_argv;
	ERR(fe_spawn((int32_t)code, &sp, 0), ERR_FAULT);
	sp.argv = ptr(UNMAPPED);
	ERR(fe_spawn((int32_t)code, &sp, 0), ERR_FAULT);
	sp.argv = exit42;
	sp.argc = 3;
	ERR(fe_spawn((int32_t)code, &sp, 0x2), ERR_INVAL);          /* no such flag */
	ERR(fe_spawn((int32_t)code, &sp, FE_SPAWN_TRACE), ERR_NOTSUP); /* not a Linux program */
	sp.handle_count = FE_SPAWN_MAX_HANDLES + 1;
	sp.handles = ptr(UNMAPPED);
	FAILS(fe_spawn((int32_t)code, &sp, 0));
	sp.handle_count = 1;
	ERR(fe_spawn((int32_t)code, &sp, 0), ERR_FAULT);

	EQ(fe_close((int32_t)blob), 0);
	EQ(fe_close((int32_t)ro), 0);
	EQ(fe_close((int32_t)code), 0);
}

/* test_grants -- handles passed at spawn carry exactly the rights granted */
void test_grants(void)
{
	static const char *const argv[] = {"usertest", "child-handle", NULL};
	int32_t h = new_blob(PAGE, "grant");
	struct fe_handle_grant g = {h, FE_RIGHT_READ};
	struct fe_exit_info info;
	long nogrant;

	info = wait_for(OK(spawn_self(argv, &g, 1)));
	EQ(info.reason, FE_EXIT_NORMAL);
	EQ(info.status, 0);

	g.rights = FE_RIGHT_READ | 0x100;
	ERR(spawn_self(argv, &g, 1), ERR_PERM);
	nogrant = OK(fe_dup(h, FE_RIGHT_READ | FE_RIGHT_WRITE));
	g.handle = (int32_t)nogrant;
	g.rights = FE_RIGHT_READ;
	ERR(spawn_self(argv, &g, 1), ERR_PERM);
	EQ(fe_close((int32_t)nogrant), 0);
	nogrant = OK(fe_dup(h, FE_RIGHT_READ | FE_RIGHT_GRANT));
	g.handle = (int32_t)nogrant;
	g.rights = FE_RIGHT_READ | FE_RIGHT_WRITE;
	ERR(spawn_self(argv, &g, 1), ERR_PERM);
	EQ(fe_close((int32_t)nogrant), 0);
	g.handle = FE_HANDLE_VALUE(FE_HANDLE_SLOTS - 1, 77);
	ERR(spawn_self(argv, &g, 1), ERR_BADF);
	EQ(fe_close(h), 0);
}

/* spawn_fds -- spawn usertest with grants and a Linux program's
 * descriptors 0, 1, 2 (fe_spawn.fd) -> the result */
static long spawn_fds(const struct fe_handle_grant *grants, uint32_t count,
		      const struct fe_spawn_fd fd[3], uint16_t reserved)
{
	static const char *const argv[] = {"usertest", "exit", "0", NULL};
	struct fe_spawn sp = {.handles = grants, .handle_count = count,
			      .reserved = reserved};

	memcpy(sp.fd, fd, sizeof(sp.fd));
	return fe_spawn_program_with("usertest", argv, &sp, 0);
}

/* test_spawn_fds -- descriptors given at spawn are checked (a grant that
 * exists, of a blob, with the right for the descriptor), and refused to a
 * program of Ferrite's own */
void test_spawn_fds(void)
{
	int32_t blob = new_blob(PAGE, "stdio"), ends[2];
	long code = OK(fe_open("bin/usertest", FE_RIGHT_READ | FE_RIGHT_GRANT));
	struct fe_handle_grant g[2] = {{blob, FE_RIGHT_READ}, {blob, FE_RIGHT_WRITE}};
	const struct fe_spawn_fd in_out[3] = {{FE_SPAWN_FD_GRANT(0), 0},
					       {FE_SPAWN_FD_GRANT(1), FE_SPAWN_FD_APPEND}};
	const struct fe_spawn_fd out_read[3] = {{0, 0}, {FE_SPAWN_FD_GRANT(0), 0}};
	const struct fe_spawn_fd in_write[3] = {{FE_SPAWN_FD_GRANT(1), 0}};
	const struct fe_spawn_fd past[3] = {{0, 0}, {FE_SPAWN_FD_GRANT(2), 0}};
	const struct fe_spawn_fd in_append[3] = {{FE_SPAWN_FD_GRANT(0), FE_SPAWN_FD_APPEND}};
	const struct fe_spawn_fd console_append[3] = {{0, 0}, {0, 0}, {0, FE_SPAWN_FD_APPEND}};
	const struct fe_spawn_fd bad_flag[3] = {{0, 0}, {FE_SPAWN_FD_GRANT(1), 0x80}};

	ERR(spawn_fds(g, 2, past, 0), ERR_INVAL);
	ERR(spawn_fds(g, 2, in_append, 0), ERR_INVAL);
	ERR(spawn_fds(g, 2, console_append, 0), ERR_INVAL);
	ERR(spawn_fds(g, 2, bad_flag, 0), ERR_INVAL);
	ERR(spawn_fds(g, 2, in_out, 1), ERR_INVAL);
	ERR(spawn_fds(g, 2, out_read, 0), ERR_PERM);
	ERR(spawn_fds(g, 2, in_write, 0), ERR_PERM);
	g[0] = (struct fe_handle_grant){(int32_t)code, FE_RIGHT_READ};
	ERR(spawn_fds(g, 2, out_read, 0), ERR_INVAL);  /* code is read-only */
	OK(fe_chan_create(ends));
	g[0] = (struct fe_handle_grant){ends[0], FE_RIGHT_READ};
	ERR(spawn_fds(g, 2, in_out, 0), ERR_INVAL);    /* a channel is no file */
	g[0] = (struct fe_handle_grant){(int32_t)code, FE_RIGHT_READ};
	ERR(spawn_fds(g, 2, in_out, 0), ERR_NOTSUP);   /* usertest is Ferrite's own */
	g[0] = (struct fe_handle_grant){blob, FE_RIGHT_READ};
	ERR(spawn_fds(g, 2, in_out, 0), ERR_NOTSUP);
	EQ(fe_close(ends[0]), 0);
	EQ(fe_close(ends[1]), 0);
	EQ(fe_close((int32_t)code), 0);
	EQ(fe_close(blob), 0);
}

/* test_wait_kill -- NOHANG, kill of a sleeping child and its exit reason */
void test_wait_kill(void)
{
	static const char *const sleeper[] = {"usertest", "sleep", NULL};
	struct fe_exit_info info;
	struct fe_proc_info me;
	long h, weak;
	uint64_t pid;

	h = OK(spawn_self(sleeper, NULL, 0));
	memset(&info, 0, sizeof(info));
	EQ(fe_wait((int32_t)h, &info, FE_WAIT_NOHANG), 0); /* 0: still running */
	EQ(info.reason, FE_EXIT_RUNNING);
	pid = info.pid;
	CHECK(pid > 0);
	weak = OK(fe_dup((int32_t)h, FE_RIGHT_WRITE));
	ERR(fe_wait((int32_t)weak, &info, FE_WAIT_NOHANG), ERR_PERM);
	EQ(fe_close((int32_t)weak), 0);
	ERR(fe_wait((int32_t)h, &info, 0x80), ERR_INVAL);
	EQ(fe_console_fg((int32_t)h), 0);
	EQ(fe_console_fg(-1), 0);

	EQ(fe_kill(pid), 0);
	info = wait_for(h);
	EQ(info.reason, FE_EXIT_KILLED);
	EQ(info.pid, pid);
	CHECK(info.detail[0] != '\0');
	ERR(fe_kill(pid), ERR_NOENT);

	ERR(fe_kill(0), ERR_NOENT);
	ERR(fe_kill(1ull << 40), ERR_NOENT);
	if (fe_proc_list(&me, 1, (uint64_t)self_pid) == 1 && me.parent_pid != 0)
		ERR(fe_kill(me.parent_pid), ERR_PERM);

	h = new_blob(PAGE, NULL);
	FAILS(fe_wait((int32_t)h, &info, FE_WAIT_NOHANG));
	FAILS(fe_console_fg((int32_t)h));
	EQ(fe_close((int32_t)h), 0);
}

/* test_proc_list -- the caller is in the list, as it is; nothing is held
 * (usertest runs outside a safe power-on), so SYS_RESUME refuses */
void test_proc_list(void)
{
	struct fe_proc_info procs[16];
	long n, i;
	bool found = false;

	n = OK(fe_proc_list(procs, 16, 0));
	for (i = 0; i < n; i++) {
		CHECK(!(procs[i].state & FE_PROC_HELD));
		if (procs[i].pid != (uint64_t)self_pid)
			continue;
		found = true;
		CHECK(strncmp(procs[i].name, "usertest", sizeof(procs[i].name)) == 0);
		EQ(procs[i].state, FE_PROC_RUNNABLE);
		CHECK(procs[i].pages > 0);
	}
	for (i = 1; i < n; i++)
		CHECK(procs[i].pid > procs[i - 1].pid);
	if (n < 16)
		CHECK(found);
	EQ(fe_proc_list(procs, 1, (uint64_t)self_pid), 1);
	EQ(procs[0].pid, self_pid);
	EQ(fe_proc_list(procs, 0, 0), 0);
	EQ(fe_proc_list(procs, 16, ~0ull), 0);
	CHECK(self_pid > 0);
	EQ(fe_getpid(), self_pid);
	ERR(fe_resume(), ERR_INVAL);
}

/* run_child_handle -- "usertest child-handle": check the granted blob */
int run_child_handle(void)
{
	int32_t h = FE_INHERITED_HANDLE(0);
	struct fe_stat st;
	char buf[8];

	if (fe_inherited_count != 1)
		return 10;
	if (fe_obj_read(h, 0, buf, 5) != 5 || memcmp(buf, "grant", 5) != 0)
		return 11;
	if (fe_obj_write(h, 0, "x", 1) != -ERR_PERM)
		return 12;
	if (handle_rights(h) != FE_RIGHT_READ)
		return 13;
	if (fe_obj_stat(FE_INHERITED_HANDLE(1), &st) != -ERR_BADF)
		return 14;
	return 0;
}
