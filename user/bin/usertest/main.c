/*
 * main.c -- usertest's harness and its modes: each check counted, a failed
 * one printed as one line ("usertest: FAIL GROUP (line N): ..."), the
 * summary line; the tables of the groups of checks a plain "usertest" and
 * "usertest exhaust" run, in order; and main, which picks from its
 * arguments every check, the exhaustion, a stress mode or a child's part.
 */
#include "usertest.h"

static unsigned passed, failed;
static const char *group = "?";    /* the check group running, for messages */
static char group_buf[64];
long self_pid;

/* --- checking -------------------------------------------------------------- */

/* describe -- a value as a message shows it: errors by name */
static const char *describe(long v, char *buf, size_t cap)
{
	if (v < 0 && v > -ERR__COUNT)
		snprintf(buf, cap, "%ld (%s)", v, err_name((int)v));
	else
		snprintf(buf, cap, "%ld (%#lx)", v, (unsigned long)v);
	return buf;
}

/* report -- count a check; print it if it failed */
static void report(bool ok, int line, const char *what, long got,
		   const char *want)
{
	char g[48];

	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("usertest: FAIL %s (line %d): %s = %s, expected %s\n", group, line,
	       what, describe(got, g, sizeof(g)), want);
}

/* expect_eq -- check got == want; returns got */
long expect_eq(long got, long want, int line, const char *what)
{
	char w[48];

	report(got == want, line, what, got, describe(want, w, sizeof(w)));
	return got;
}

/* expect_ok -- check got >= 0; returns got */
long expect_ok(long got, int line, const char *what)
{
	report(got >= 0, line, what, got, "success (>= 0)");
	return got;
}

/* expect_fail -- check got < 0 (any error) */
long expect_fail(long got, int line, const char *what)
{
	report(got < 0, line, what, got, "an error");
	return got;
}

/* expect_true -- check a condition */
bool expect_true(bool cond, int line, const char *what)
{
	report(cond, line, what, cond, "true");
	return cond;
}

/* set_group -- name the checks that follow */
void set_group(const char *fmt, const char *arg)
{
	snprintf(group_buf, sizeof(group_buf), fmt, arg);
	group = group_buf;
}

/* --- the groups of checks -------------------------------------------------- */

struct test {
	const char *name;
	void (*run)(void);
};

/* The checks of a plain "usertest", in the order they run. */
static const struct test tests[] = {
	{"null", test_null},
	{"create", test_create},
	{"bad handles", test_bad_handles},
	{"rights", test_rights},
	{"read/write", test_read_write},
	{"wild pointers", test_wild_pointers},
	{"names", test_names},
	{"list", test_list},
	{"open by id", test_open_id},
	{"map errors", test_map_errors},
	{"map shared", test_map_shared},
	{"map shared by two processes", test_map_shared_by_two},
	{"map private", test_map_private},
	{"malloc", test_malloc},
	{"sync", test_sync},
	{"spawn", test_spawn},
	{"grants", test_grants},
	{"spawn descriptors", test_spawn_fds},
	{"wait/kill", test_wait_kill},
	{"proc list", test_proc_list},
	{"time", test_time},
	{"sysinfo", test_sysinfo},
	{"console", test_console},
	{"channel messages", test_channel_messages},
	{"channel handles", test_channel_handles},
	{"channel end in flight", test_channel_end_in_flight},
	{"thread create/join", test_thread_create_join},
	{"futex", test_futex},
	{"mutex counters", test_mutex_counters},
	{"thread handles", test_thread_handles},
	{"thread fault", test_thread_fault},
	{"thread table full", test_thread_table_full},
	{"forged handles", test_forged_handles},
	{"passed then closed", test_passed_then_closed},
	{"open by id sweep", test_open_id_sweep},
	{"private memory", test_private_memory},
	{"other processes", test_other_processes},
	{"link powers", test_link_powers},
};

/* The checks of "usertest exhaust". */
static const struct test exhaust_tests[] = {
	{"too many handles", test_too_many_handles},
	{"too many processes", test_too_many_processes},
	{"channel queue full", test_queue_full},
	{"heap full", test_heap_full},
};

/* --- children and main ----------------------------------------------------- */

/* run_child -- the modes usertest runs as its own child; -1 if argv is none */
static int run_child(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "fault") == 0)
		return run_fault_child(argv[2]);
	if (argc == 3 && strcmp(argv[1], "exit") == 0)
		return (int)strtol(argv[2], NULL, 10);
	if (strcmp(argv[1], "argc") == 0)
		return argc;
	if (argc == 2 && strcmp(argv[1], "sleep") == 0) {
		for (;;)
			fe_sleep_ms(1000000);
	}
	if (argc == 2 && strcmp(argv[1], "child-handle") == 0)
		return run_child_handle();
	if (strcmp(argv[1], "forge") == 0)
		return run_forge_child(argc, argv);
	if (argc == 2 && strcmp(argv[1], "close-inherited") == 0)
		return run_close_inherited_child();
	if (argc == 3 && strcmp(argv[1], "peek") == 0)
		return run_peek_child(argv[2]);
	if (argc == 2 && strcmp(argv[1], "secret") == 0)
		return run_secret_child();
	if (argc == 2 && strcmp(argv[1], "private-view") == 0)
		return run_private_view_child();
	if (argc == 2 && strcmp(argv[1], "shared-view") == 0)
		return run_shared_view_child();
	if (argc == 3 && strcmp(argv[1], "others") == 0)
		return run_others_child(argv[2]);
	if (argc == 2 && strcmp(argv[1], "tick") == 0)
		return run_ticker_child();
	if (argc == 2 && strcmp(argv[1], "grow") == 0)
		return run_grower_child();
	if (argc == 2 && strcmp(argv[1], "thread-fault") == 0)
		return run_thread_fault_child();
	return -1;
}

/* run_tests -- a table of checks */
static void run_tests(const struct test *t, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		group = t[i].name;
		t[i].run();
	}
}

/* summary -- the summary line; 1 if any check failed */
static int summary(void)
{
	printf("usertest: %u passed, %u failed\n", passed, failed);
	return failed != 0;
}

/* run_all -- every check; the summary line; 1 if any failed */
static int run_all(void)
{
	run_tests(tests, sizeof(tests) / sizeof(tests[0]));
	test_faults();
	return summary();
}

/* run_exhaust -- "usertest exhaust": every limit reached, then recovered */
static int run_exhaust(void)
{
	run_tests(exhaust_tests, sizeof(exhaust_tests) / sizeof(exhaust_tests[0]));
	return summary();
}

/* main -- run the checks, a stress mode, or a child's part */
int main(int argc, char **argv)
{
	int r;

	self_pid = fe_getpid();
	if (argc == 1)
		return run_all();
	if (argc == 2 && strcmp(argv[1], "link") == 0) {
		group = "link powers";
		test_link_powers();
		return summary();
	}
	if (strcmp(argv[1], "exhaust") == 0 &&
	    (argc == 2 || (argc == 3 && strcmp(argv[2], "hold") == 0))) {
		exhaust_hold = argc == 3;
		return run_exhaust();
	}
	r = run_child(argc, argv);
	if (r >= 0)
		return r;
	if (argc == 3) {
		r = run_stress_mode(argv[1], argv[2]);
		if (r >= 0)
			return r;
	}
	printf("usage: usertest [link | exhaust [hold] | many N | churn N | objects N]\n");
	return 2;
}
