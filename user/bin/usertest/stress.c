/*
 * stress.c -- the stress modes, "usertest many|churn|objects N": N
 * concurrent sleeping children, killed and waited; N spawn + exit + wait of
 * bin/hello; N blobs created, bound, written, unbound and closed. Each runs
 * one warm-up round, then compares sysinfo's objects and heap_used before
 * and after the N and prints one result line (exit status 1 on a leak).
 */
#include "usertest.h"

/* leak_result -- print the before/after line of a stress mode; 0 or 1 (leak) */
static int leak_result(const char *mode, long n, const struct fe_sysinfo *before,
		       const struct fe_sysinfo *after)
{
	/* Slack for kernel structures that grow once and are reused. */
	const uint64_t slack = 16 * PAGE;
	bool leak = after->objects != before->objects ||
		    after->heap_used > before->heap_used + slack;

	printf("usertest %s %ld: %s (objects %lu -> %lu, heap_used %lu -> %lu)\n",
	       mode, n, leak ? "LEAK" : "ok", before->objects, after->objects,
	       before->heap_used, after->heap_used);
	return leak;
}

/* many_round -- n sleeping children at once, then kill and wait them all */
static unsigned many_round(long n)
{
	static const char *const sleeper[] = {"usertest", "sleep", NULL};
	int32_t handles[FE_HANDLE_SLOTS];
	struct fe_exit_info info;
	unsigned bad = 0;
	long i, started = 0;

	for (i = 0; i < n; i++) {
		long h = spawn_self(sleeper, NULL, 0);

		if (h < 0) {
			printf("usertest: spawn %ld of %ld: %s\n", i + 1, n, err_str((int)h));
			bad++;
			break;
		}
		handles[started++] = (int32_t)h;
	}
	for (i = 0; i < started; i++)
		if (fe_kill(child_pid(handles[i])) < 0)
			bad++;
	for (i = 0; i < started; i++) {
		if (fe_wait(handles[i], &info, 0) < 0 || info.reason != FE_EXIT_KILLED)
			bad++;
		fe_close(handles[i]);
	}
	return bad;
}

/* churn_round -- spawn hello, let it exit, wait for it */
static unsigned churn_round(long n)
{
	struct fe_exit_info info;
	unsigned bad = 0;
	long i;

	for (i = 0; i < n; i++) {
		long h = fe_spawn_program("hello", NULL);

		if (h < 0 || fe_wait((int32_t)h, &info, 0) < 0 ||
		    info.reason != FE_EXIT_NORMAL || info.status != 0)
			bad++;
		if (h >= 0)
			fe_close((int32_t)h);
	}
	return bad;
}

/* objects_round -- n blobs created, bound, written, unbound and closed */
static unsigned objects_round(long n)
{
	static char page[PAGE];
	char name[64], suffix[32];
	unsigned bad = 0;
	long i;

	for (i = 0; i < n; i++) {
		long h = fe_obj_create(FE_TYPE_BLOB, 0);

		snprintf(suffix, sizeof(suffix), "obj/%ld", i);
		test_name(name, sizeof(name), suffix);
		if (h < 0 || fe_bind((int32_t)h, name) < 0 ||
		    fe_obj_resize((int32_t)h, PAGE) < 0 ||
		    fe_obj_write((int32_t)h, 0, page, PAGE) != PAGE ||
		    fe_unbind(name) < 0)
			bad++;
		if (h >= 0 && fe_close((int32_t)h) < 0)
			bad++;
	}
	return bad;
}

struct stress_mode {
	const char *name;
	long max;                 /* the largest N accepted */
	unsigned (*round)(long n);
};

static const struct stress_mode stress_modes[] = {
	{"many", FE_HANDLE_SLOTS - 8, many_round},
	{"churn", 1000000, churn_round},
	{"objects", 1000000, objects_round},
};

/* run_stress -- one warm-up round, then N, comparing sysinfo around it */
static int run_stress(const struct stress_mode *mode, const char *count)
{
	struct fe_sysinfo before, after;
	uint64_t parsed;
	unsigned bad;
	long n;

	if (parse_number(count, &parsed) < 0 || parsed < 1 || parsed > (uint64_t)mode->max) {
		printf("usertest %s: N must be 1..%ld, not '%s'\n", mode->name,
		       mode->max, count);
		return 2;
	}
	n = (long)parsed;
	mode->round(1);
	fe_sync();
	before = sysinfo_now();
	bad = mode->round(n);
	fe_sync();
	after = sysinfo_now();
	if (bad > 0)
		printf("usertest %s %ld: %u operations failed\n", mode->name, n, bad);
	return leak_result(mode->name, n, &before, &after) || bad > 0;
}

/* run_stress_mode -- "usertest NAME N" for the stress mode NAME; -1 if
 * there is no such mode */
int run_stress_mode(const char *name, const char *count)
{
	size_t i;

	for (i = 0; i < sizeof(stress_modes) / sizeof(stress_modes[0]); i++)
		if (strcmp(name, stress_modes[i].name) == 0)
			return run_stress(&stress_modes[i], count);
	return -1;
}
