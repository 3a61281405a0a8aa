/*
 * main.c -- sysfuzz: random system calls against the kernel, in several
 * processes at once, some killed at random moments (docs/fuzzing.md).
 *
 *   sysfuzz SEED COUNT [PROCS]   make COUNT fuzzed calls in all (0: forever)
 *                                in PROCS processes (default 1, at most 16)
 *   sysfuzz mem                  print the heap figures a leak check compares
 *
 * The process a person starts is the root. It spawns PROCS-1 workers,
 * copies of itself named "sysfuzz-w" with sub-seeds of SEED, each with its
 * share of COUNT, and fuzzes its own share safely (it never ends or crashes
 * itself). Now and then it kills a worker at a random moment; a worker that
 * was killed, crashed itself or ended itself by a fuzzed SYS_EXIT is
 * respawned with a new sub-seed and the rest of its share. Every process
 * counts its calls and results in its slot of a stats object they all map
 * shared, so a killed worker's counts are not lost. The processes a fuzzed
 * spawn starts ("sysfuzz-x", or a random name) exit, sleep, fault or yield
 * at once, chosen by their argument count.
 *
 * Each process binds names only under "fuzz/PID/" and the family's
 * "fuzz/ROOTPID/s/". When a worker ends, the root unbinds what it left
 * under its prefix; at the end the root ends every process it or its
 * workers started, unbinds its own names (the family's included), and
 * prints
 *
 *   sysfuzz SEED: N calls, E errors (ERR_BADF n, ...), K kills, ... ok
 *
 * ("FAIL" instead of "ok" if a call broke one of the promises calls.c
 * checks). So when sysfuzz is gone the heap holds what it held before.
 * With COUNT 0 it runs until killed and prints "sysfuzz: round N ok" every
 * FZ_ROUND calls, numbered across power cuts (the power-cut campaign checks
 * the numbers, docs/powercut.md).
 *
 * SEED fixes every process's sequence of calls; which calls of different
 * processes interleave, and where a kill lands, depend on the scheduler.
 */
#include "sysfuzz.h"

#define PAGE FE_PAGE_SIZE
#define STATS_BYTES (FZ_PROCS_MAX * sizeof(struct fz_counts))
#define FZ_ROUND 2000u            /* family calls per "round N ok" line (COUNT 0) */
#define FZ_SUPERVISE 64u          /* root calls between two looks at the workers */
#define FZ_KILL_ONE_IN 24u        /* a look kills a worker with this chance */
#define FZ_FAIL_LINES 8u          /* FAIL lines one process prints at most */
#define WORKER_NAME "sysfuzz-w"
#define CHILD_NAME "sysfuzz-x"

/* A worker, as the root sees it. */
struct fz_worker {
	int32_t handle;                /* 0: none alive */
	uint64_t pid;
	uint64_t left;                 /* calls of its share still to make */
	uint64_t generation;           /* incarnations so far */
	bool done;                     /* made its whole share */
};

struct fz_state fz;
uint8_t fz_scratch[FZ_SCRATCH] __attribute__((aligned(4096)));

/* The root's bookkeeping (persistent like the rest). */
static struct fz_counts *stats;        /* FZ_PROCS_MAX slots, mapped shared */
static int32_t stats_handle;
static struct fz_worker workers[FZ_PROCS_MAX];
static unsigned procs;
static struct fz_counts totals;        /* of every ended incarnation */
static uint64_t ends[FE_EXIT_INTERRUPT + 1]; /* workers' ends, by reason */
static uint64_t kills, respawns, spawn_failures, next_report, round_no;
static uint64_t sup_rng;               /* the supervisor's own generator */
static unsigned fail_lines;

/* fz_fail -- print "sysfuzz: FAIL ..." and mark this process failed */
void fz_fail(const char *fmt, ...)
{
	char what[200];
	va_list ap;

	fz.counts->failed++;
	if (fail_lines++ >= FZ_FAIL_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	printf("sysfuzz: FAIL pid %lu (seed %lu, call %lu): %s\n", fz.pid, fz.seed,
	       fz.counts->calls, what);
}

/* die -- a set-up step failed: the root says which and ends with status 1;
 * a worker (which may start while another fills the heap) ends quietly
 * with status 3, and the root respawns it */
static __attribute__((noreturn)) void die(const char *what, long err)
{
	if (fz.role == FZ_WORKER)
		fe_exit(3);
	printf("sysfuzz: cannot start: %s: %s\n", what, err_name((int)err));
	fe_exit(1);
}

/* map_page -- a fresh anonymous page mapped read+write at addr, kept */
static void map_page(uint64_t addr)
{
	long h = fe_obj_create(FE_TYPE_ANON, PAGE), r;

	if (h < 0)
		die("create a page", h);
	r = fe_map((int32_t)h, 0, PAGE, FE_PROT_READ | FE_PROT_WRITE |
		   FE_MAP_SHARED | FE_MAP_FIXED, addr);
	if (r < 0)
		die("map a page", r);
	fe_close((int32_t)h);
}

/* set_up -- what every fuzzing process needs before its first call; root
 * is the pid of the family's root */
static void set_up(enum fz_role role, uint64_t seed, uint64_t root)
{
	struct fe_stat st;
	long r;

	fz.role = role;
	fz.seed = seed;
	fz.rng = fe_mix64(seed);
	fz.pid = (uint64_t)fe_getpid();
	fz.prefix_len = (size_t)snprintf(fz.prefix, sizeof(fz.prefix), "fuzz/%lu/", fz.pid);
	fz.family_len = (size_t)snprintf(fz.family, sizeof(fz.family), "fuzz/%lu/s/",
					 root ? root : fz.pid);
	r = fe_open("bin/sysfuzz", FE_RIGHT_READ | FE_RIGHT_EXEC | FE_RIGHT_MAP);
	if (r < 0)
		die("open bin/sysfuzz", r);
	fz.code = (int32_t)r;
	if ((r = fe_obj_stat(fz.code, &st)) < 0)
		die("stat bin/sysfuzz", r);
	fz.code_id = st.id;
	map_page(FZ_EDGE);
	map_page(FZ_TOP_PAGE);
	if ((r = fe_chan_create(fz.carrier)) < 0)
		die("create the carrier channel", r);
}

/* precious_update -- the handles no fuzzed call may use, workers' included */
static void precious_update(void)
{
	fz.precious_count = 0;
	fz.precious[fz.precious_count++] = fz.code;
	fz.precious[fz.precious_count++] = fz.carrier[0];
	fz.precious[fz.precious_count++] = fz.carrier[1];
	if (stats_handle)
		fz.precious[fz.precious_count++] = stats_handle;
	for (unsigned i = 1; i < procs; i++)
		if (workers[i].handle)
			fz.precious[fz.precious_count++] = workers[i].handle;
}

/* map_stats -- map the stats object of handle h at FZ_STATS_ADDR */
static void map_stats(int32_t h)
{
	long r = fe_map(h, 0, STATS_BYTES, FE_PROT_READ | FE_PROT_WRITE |
			FE_MAP_SHARED | FE_MAP_FIXED, FZ_STATS_ADDR);

	if (r < 0)
		die("map the stats object", r);
	stats = (struct fz_counts *)(uintptr_t)FZ_STATS_ADDR;
}

/* add_counts -- *into += *from */
static void add_counts(struct fz_counts *into, const struct fz_counts *from)
{
	const uint64_t *f = (const uint64_t *)from;
	uint64_t *t = (uint64_t *)into;

	for (size_t i = 0; i < sizeof(*into) / sizeof(uint64_t); i++)
		t[i] += f[i];
}

/* worker_seed -- the seed of worker i's incarnation g */
static uint64_t worker_seed(unsigned i, uint64_t g)
{
	return fe_mix64(fz.seed ^ fe_mix64((uint64_t)i << 32 | g));
}

/* spawn_worker -- start worker i with the rest of its share */
static void spawn_worker(unsigned i)
{
	struct fe_handle_grant grant = {
		stats_handle, FE_RIGHT_READ | FE_RIGHT_WRITE | FE_RIGHT_MAP,
	};
	char seed[24], index[8], left[24], root[24];
	const char *argv[] = {WORKER_NAME, "worker", seed, index, left, root, NULL};
	struct fe_spawn sp = {.argv = argv, .argc = 6, .handle_count = 1, .handles = &grant};
	struct fe_exit_info info;
	long h;

	snprintf(seed, sizeof(seed), "%lu", worker_seed(i, workers[i].generation++));
	snprintf(index, sizeof(index), "%u", i);
	snprintf(left, sizeof(left), "%lu", workers[i].left);
	snprintf(root, sizeof(root), "%lu", fz.pid);
	memset(&stats[i], 0, sizeof(stats[i]));
	h = fe_spawn(fz.code, &sp, 0);
	if (h < 0) {
		spawn_failures++; /* the heap or the process table is full */
		return;           /* tried again at the next look */
	}
	memset(&info, 0, sizeof(info));
	fe_wait((int32_t)h, &info, FE_WAIT_NOHANG);
	workers[i].handle = (int32_t)h;
	workers[i].pid = info.pid;
	precious_update();
}

/* worker_ended -- account for worker i's incarnation, which has ended */
static void worker_ended(unsigned i, const struct fe_exit_info *info)
{
	struct fz_counts *c = &stats[i];
	char prefix[32];
	int n;

	if (info->reason <= FE_EXIT_INTERRUPT)
		ends[info->reason]++;
	workers[i].left = workers[i].left > c->calls ? workers[i].left - c->calls : 0;
	workers[i].done = c->done != 0;
	add_counts(&totals, c);
	memset(c, 0, sizeof(*c));
	fe_close(workers[i].handle);
	workers[i].handle = 0;
	precious_update();
	n = snprintf(prefix, sizeof(prefix), "fuzz/%lu/", workers[i].pid);
	fz_unbind_prefix(prefix, (size_t)n);
}

/* kill_worker -- end worker i at this random moment */
static void kill_worker(unsigned i)
{
	struct fe_exit_info info;

	fe_kill(workers[i].pid);
	if (fe_wait(workers[i].handle, &info, 0) > 0) {
		worker_ended(i, &info);
		kills++;
	}
}

/* supervise -- account for ended workers, kill one now and then, respawn */
static void supervise(bool forever)
{
	for (unsigned i = 1; i < procs; i++) {
		struct fe_exit_info info;

		if (workers[i].handle &&
		    fe_wait(workers[i].handle, &info, FE_WAIT_NOHANG) > 0)
			worker_ended(i, &info);
	}
	if (procs > 1 && fe_rand_below(&sup_rng, FZ_KILL_ONE_IN) == 0) {
		unsigned i = 1 + (unsigned)fe_rand_below(&sup_rng, procs - 1);

		if (workers[i].handle)
			kill_worker(i);
	}
	for (unsigned i = 1; i < procs; i++) {
		if (workers[i].handle || workers[i].done ||
		    (!forever && workers[i].left == 0))
			continue;
		if (workers[i].generation)
			respawns++;
		spawn_worker(i);
	}
}

/* family_calls -- calls made by every process so far */
static uint64_t family_calls(void)
{
	uint64_t n = totals.calls;

	for (unsigned i = 0; i < procs; i++)
		n += stats[i].calls;
	return n;
}

/* report -- a progress line whenever the family passed another step */
static void report(uint64_t count, uint64_t step)
{
	uint64_t calls = family_calls();

	while (calls >= next_report + step) {
		next_report += step;
		if (count)
			printf("sysfuzz %lu: %lu calls\n", fz.seed, next_report);
		else
			printf("sysfuzz: round %lu ok\n", ++round_no);
	}
}

/* finished -- whether the root and every worker made their shares */
static bool finished(uint64_t own_share)
{
	if (stats[0].calls < own_share)
		return false;
	for (unsigned i = 1; i < procs; i++)
		if (workers[i].handle || (!workers[i].done && workers[i].left))
			return false;
	return true;
}

/* end_orphans -- kill the processes adopted from ended workers */
static void end_orphans(void)
{
	static struct fe_proc_info list[64];
	bool again = true;

	while (again) {
		long n = fe_proc_list(list, 64, 1);

		again = false;
		for (long i = 0; i < n; i++) {
			if (list[i].parent_pid != fz.pid)
				continue;
			fe_kill(list[i].pid);
			again = true;
		}
	}
}

/* error_text -- "ERR_BADF n, ERR_FAULT m, ..." for the non-zero error counts */
static void error_text(char *buf, size_t cap, const struct fz_counts *c)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int e = 1; e < ERR__COUNT && at < cap; e++)
		if (c->errors[e])
			at += (size_t)snprintf(buf + at, cap - at, "%s%s %lu",
					       at ? ", " : "", err_name(-e),
					       c->errors[e]);
}

/* final_line -- the summary of the whole run */
static void final_line(const struct fz_counts *c)
{
	static char line[1024], errors[640];
	uint64_t errs = 0;
	int n;

	for (int e = 1; e < ERR__COUNT; e++)
		errs += c->errors[e];
	error_text(errors, sizeof(errors), c);
	n = snprintf(line, sizeof(line),
		     "sysfuzz %lu: %lu calls, %lu ok, %lu errors (%s), %lu kills, "
		     "%lu faults, %lu respawns (%lu refused), %lu touches, children "
		     "%lu exited %lu faulted %lu killed, %s\n",
		     fz.seed, c->calls, c->ok, errs, errors, kills,
		     ends[FE_EXIT_FAULT], respawns, spawn_failures, c->touches,
		     c->kid_ends[FE_EXIT_NORMAL], c->kid_ends[FE_EXIT_FAULT],
		     c->kid_ends[FE_EXIT_KILLED],
		     c->failed || c->odd ? "FAIL" : "ok");
	fe_write_all(line, n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* calls_line -- the calls made and succeeded, by call */
static void calls_line(const struct fz_counts *c)
{
	static char line[1536];
	size_t at = (size_t)snprintf(line, sizeof(line),
				     "sysfuzz %lu: by call (made/ok):", fz.seed);

	for (unsigned nr = 0; nr <= SYS__COUNT && at < sizeof(line); nr++)
		if (c->made[nr])
			at += (size_t)snprintf(line + at, sizeof(line) - at, " %s %lu/%lu",
					       fz_call_name(nr), c->made[nr],
					       c->succeeded[nr]);
	if (at >= sizeof(line) - 1)
		at = sizeof(line) - 2;
	line[at++] = '\n';
	fe_write_all(line, at);
}

/* run_root -- sysfuzz SEED COUNT [PROCS] */
static int run_root(uint64_t seed, uint64_t count)
{
	uint64_t share = count / procs, own = count - share * (procs - 1);
	uint64_t step = count ? (count / 20 < 1000 ? 1000 : count / 20) : FZ_ROUND;
	struct fz_counts all;
	long h;

	set_up(FZ_ROOT, seed, 0);
	fz.budget = own;
	sup_rng = fe_mix64(~seed);
	h = fe_obj_create(FE_TYPE_BLOB, STATS_BYTES);
	if (h < 0)
		die("create the stats object", h);
	stats_handle = (int32_t)h;
	map_stats(stats_handle);
	fz.counts = &stats[0];
	for (unsigned i = 1; i < procs; i++)
		workers[i].left = share;
	precious_update();
	printf("sysfuzz %lu: %lu calls in %u processes, names under fuzz/\n", seed,
	       count, procs);
	while (!count || !finished(own)) {
		for (unsigned k = 0; k < FZ_SUPERVISE; k++) {
			if (count && stats[0].calls >= own)
				break;
			fz_one();
		}
		if (count && stats[0].calls >= own)
			fe_sleep_ms(5); /* only the workers are left */
		supervise(!count);
		report(count, step);
	}
	fz_reset();
	end_orphans();
	all = totals;
	add_counts(&all, &stats[0]);
	calls_line(&all);
	final_line(&all);
	return all.failed || all.odd ? 1 : 0;
}

/* run_worker -- sysfuzz-w worker SEED INDEX LEFT ROOT: fuzz LEFT calls
 * (0: forever) in the family of root pid ROOT */
static int run_worker(uint64_t seed, uint64_t index, uint64_t left, uint64_t root)
{
	set_up(FZ_WORKER, seed, root);
	fz.budget = left;
	map_stats(FE_INHERITED_HANDLE(0));
	fe_close(FE_INHERITED_HANDLE(0)); /* the mapping holds the object */
	fz.counts = &stats[index];
	fz.precious_count = 3;
	fz.precious[0] = fz.code;
	fz.precious[1] = fz.carrier[0];
	fz.precious[2] = fz.carrier[1];
	while (!fz.budget || fz.counts->calls < fz.budget)
		fz_one();
	fz_reset();
	fz.counts->done = 1;
	return 0;
}

/* run_child -- a process a fuzzed spawn started: gone at once, one way or another */
static int run_child(int argc, char **argv)
{
	static volatile uint64_t *volatile nowhere = (volatile uint64_t *)8;

	switch (argc % 4) {
	case 0:
		return argc;
	case 1:
		fe_sleep_ms((uint64_t)argc % 8);
		return 0;
	case 2:
		if (strcmp(argv[0], CHILD_NAME) == 0)
			*nowhere = 1; /* a fault ends it */
		return 2;
	default:
		for (int i = 0; i < 3; i++)
			fe_yield();
		return 3;
	}
}

/* run_mem -- sysfuzz mem: the heap figures a leak check compares */
static int run_mem(void)
{
	static struct fe_proc_info list[192];
	struct fe_sysinfo si;
	uint64_t pages = 0;
	long n = fe_proc_list(list, 192, 0), err = fe_sysinfo(&si);

	if (n < 0 || err < 0) {
		printf("sysfuzz mem: %s\n", err_name((int)(n < 0 ? n : err)));
		return 1;
	}
	for (long i = 0; i < n; i++)
		pages += list[i].pages;
	printf("sysfuzz mem: heap used %lu, process pages %lu, other %lu, "
	       "objects %lu, names %lu, processes %lu\n", si.heap_used, pages,
	       si.heap_used - pages * PAGE, si.objects, si.names, si.processes);
	return 0;
}

/* usage -- how to run sysfuzz */
static int usage(void)
{
	printf("usage: sysfuzz SEED COUNT [PROCS]   (COUNT 0: forever; PROCS 1..%u)\n"
	       "       sysfuzz mem\n", FZ_PROCS_MAX);
	return 2;
}

/* main -- the root, a worker, a trivial child, or the heap figures */
int main(int argc, char **argv)
{
	uint64_t seed, count, n = 1, index, left, root;

	if (strcmp(argv[0], WORKER_NAME) == 0 && argc == 6 &&
	    strcmp(argv[1], "worker") == 0 && fe_inherited_count == 1 &&
	    fe_parse_arg("sysfuzz", "SEED", argv[2], &seed) &&
	    fe_parse_arg("sysfuzz", "INDEX", argv[3], &index) && index &&
	    index < FZ_PROCS_MAX && fe_parse_arg("sysfuzz", "LEFT", argv[4], &left) &&
	    fe_parse_arg("sysfuzz", "ROOT", argv[5], &root))
		return run_worker(seed, index, left, root);
	if (strcmp(argv[0], "sysfuzz") != 0)
		return run_child(argc, argv);
	if (argc == 2 && strcmp(argv[1], "mem") == 0)
		return run_mem();
	if (argc < 3 || argc > 4 || !fe_parse_arg("sysfuzz", "SEED", argv[1], &seed) ||
	    !fe_parse_arg("sysfuzz", "COUNT", argv[2], &count) ||
	    (argc == 4 && !fe_parse_arg("sysfuzz", "PROCS", argv[3], &n)))
		return usage();
	if (n < 1 || n > FZ_PROCS_MAX)
		return usage();
	procs = (unsigned)n;
	return run_root(seed, count);
}
