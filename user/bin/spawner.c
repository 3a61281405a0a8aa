/*
 * spawner.c -- spawner [PERIOD_MS] [ROUNDS]: spawn a child, wait for it and check
 * how it ended, forever.
 *
 *   spawner [PERIOD_MS]       round N: spawn "spawner child STATUS" with
 *                             STATUS = spawner_status(N), wait, check the
 *                             exit record, print "spawner: round N ok",
 *                             sleep PERIOD_MS (default 200); after
 *                             ROUNDS rounds (0, the default: never)
 *                             exit with status 0
 *   spawner child STATUS      exit at once with STATUS
 *
 * The round number and the child's handle live in persistent memory, and a
 * parent blocked in SYS_WAIT re-issues the call after a power-on, so the
 * rounds go on across power cuts: a child spawned in a committed epoch is
 * waited for, one spawned in an epoch the cut undid is spawned again. A
 * child that ends other than by exiting with the status it was given, or a
 * spawn or wait that fails, prints "spawner: FAIL round N: WHAT" and the
 * spawner exits with status 1.
 */
#include <fe.h>

static uint64_t spawner_round;

/* spawner_fail -- print "spawner: FAIL round N: WHAT" and exit with status 1 */
static __attribute__((noreturn, format(printf, 1, 2)))
void spawner_fail(const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	printf("spawner: FAIL round %lu: %s\n", spawner_round, what);
	fe_exit(1);
}

/* spawner_status -- the exit status the child of round n is told to use */
static uint64_t spawner_status(uint64_t n)
{
	return n * 7919 % 100000;
}

/* spawner_round_once -- spawn, wait and check one child */
static void spawner_round_once(void)
{
	uint64_t status = spawner_status(spawner_round);
	char arg[24];
	const char *const argv[] = {"spawner", "child", arg, NULL};
	struct fe_exit_info info;
	long child, pid;

	snprintf(arg, sizeof(arg), "%lu", status);
	child = fe_spawn_program("spawner", argv);
	if (child < 0)
		spawner_fail("spawn: %s", err_name((int)child));
	memset(&info, 0, sizeof(info));
	pid = fe_wait((int32_t)child, &info, 0);
	if (pid <= 0)
		spawner_fail("wait: returned %ld", pid);
	if (info.pid != (uint64_t)pid || info.reason != FE_EXIT_NORMAL ||
	    info.status != (int64_t)status)
		spawner_fail("child %ld: pid %lu, reason %u, status %ld (%s); "
			     "expected exit with status %lu", pid, info.pid,
			     info.reason, info.status, info.detail, status);
	if (fe_close((int32_t)child) != 0)
		spawner_fail("close of the child's handle failed");
}

/* main -- a child's exit, or rounds, forever or ROUNDS of them */
int main(int argc, char **argv)
{
	uint64_t period_ms = 200, rounds = 0, status;

	if (argc == 3 && strcmp(argv[1], "child") == 0) {
		if (!fe_parse_arg("spawner", "STATUS", argv[2], &status))
			return 2;
		return (int)status;
	}
	if (argc > 3) {
		printf("usage: spawner [PERIOD_MS] [ROUNDS]\n");
		return 2;
	}
	if (argc > 1 && !fe_parse_arg("spawner", "PERIOD_MS", argv[1], &period_ms))
		return 2;
	if (argc > 2 && !fe_parse_arg("spawner", "ROUNDS", argv[2], &rounds))
		return 2;
	while (!rounds || spawner_round < rounds) {
		spawner_round++;
		spawner_round_once();
		printf("spawner: round %lu ok\n", spawner_round);
		if (period_ms > 0)
			fe_sleep_ms(period_ms);
	}
	return 0;
}
