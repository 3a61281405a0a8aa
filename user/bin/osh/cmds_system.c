/*
 * cmds_system.c -- the builtins about the whole system: sync, epoch (and
 * stats), uptime, mem, poweroff; and echo and clear.
 *
 * The figures come from SYS_SYSINFO (docs/checkpoints.md#figures).
 */
#include "osh.h"

#define NS_PER_S 1000000000ul

/* sysinfo_or_complain -- fe_sysinfo, reported for cmd */
static bool sysinfo_or_complain(const char *cmd, struct fe_sysinfo *si)
{
	long err = fe_sysinfo(si);

	if (err < 0)
		complain("%s: %s", cmd, err_str((int)err));
	return err >= 0;
}

/* cmd_sync -- sync: make everything so far durable, and say which epoch that is */
void cmd_sync(int argc, char **argv)
{
	struct fe_sysinfo si;
	long err;

	(void)argc;
	(void)argv;
	out_flush();
	err = fe_sync();
	if (err < 0)
		complain("sync: %s", err_str((int)err));
	else if (sysinfo_or_complain("sync", &si))
		out_printf("sync: epoch %lu committed\n", si.epoch);
}

/* us -- nanoseconds as microseconds with one decimal, into buf */
static const char *us(uint64_t ns, char *buf, size_t cap)
{
	snprintf(buf, cap, "%lu.%lu", ns / 1000, ns / 100 % 10);
	return buf;
}

/* print_cpus -- the CPUs, how busy each was, and the commits' stop of the others */
static void print_cpus(const struct fe_sysinfo *si)
{
	char a[32], b[32];

	out_printf("cpus: %lu running; busy since power-on:", si->cpus);
	for (uint64_t i = 0; i < si->cpus && i < FE_MAX_CPUS; i++)
		out_printf(" cpu%lu %lu%%", i,
			   si->power_on_ns ? si->cpu_busy_ns[i] * 100 / si->power_on_ns : 0);
	out_printf("\n");
	if (si->cpus > 1)
		out_printf("stopping the other cpus at a commit: last %s us, max %s us\n",
			   us(si->stop_last_ns, a, sizeof(a)), us(si->stop_max_ns, b, sizeof(b)));
	out_printf("kernel lock since power-on, us held/waited:");
	for (uint64_t i = 0; i < si->cpus && i < FE_MAX_CPUS; i++)
		out_printf(" cpu%lu %s/%s", i, us(si->klock_held_ns[i], a, sizeof(a)),
			   us(si->klock_wait_ns[i], b, sizeof(b)));
	out_printf("\n");
}

/* print_cache -- the DRAM cache's lines of `stats` */
static void print_cache(const struct fe_sysinfo *si)
{
	if (!si->cache_pages_max) {
		out_printf("dram cache: off; user pages are mapped onto the nvm\n");
		return;
	}
	out_printf("dram cache: %lu of %lu pages, %lu written since the last commit; "
		   "%lu fills, %lu hits, %lu evictions, %lu commits asked when full\n",
		   si->cache_pages, si->cache_pages_max, si->cache_dirty, si->cache_fills,
		   si->cache_hits, si->cache_evictions, si->cache_full);
	out_printf("dram cache written back: last commit %lu pages; %lu since power-on, "
		   "%lu to new heap pages\n",
		   si->cache_written_last, si->cache_written_back, si->cache_moved);
}

/* print_flushes -- on virtio-pmem, the flush requests the commits wait for */
static void print_flushes(const struct fe_sysinfo *si)
{
	char a[32], b[32];

	if (!si->pmem_mode)
		return;
	out_printf("flushes: %lu completed, mean %s us, max %s us; %lu groups for %lu commits, "
		   "%lu commits waiting now (at most %lu); %lu syncs waited\n",
		   si->pmem_flushes, us(si->pmem_flush_mean_ns, a, sizeof(a)),
		   us(si->pmem_flush_max_ns, b, sizeof(b)), si->pmem_groups, si->pmem_commits,
		   si->pmem_waiting, si->pmem_waiting_max, si->pmem_sync_waits);
	if (si->pmem_mode == 2)
		out_printf("journal: %lu page images written, a group's copy %s us mean, %s us max "
			   "(every cpu stopped); %lu rebases (a group it could not hold)\n",
			   si->pmem_journal_pages, us(si->pmem_copy_mean_ns, a, sizeof(a)),
			   us(si->pmem_copy_max_ns, b, sizeof(b)), si->pmem_rebases);
	else
		out_printf("journal: none (the heap fills the device): a host crash may damage the heap\n");
}

/* cmd_epoch -- epoch, stats: the checkpoint figures */
void cmd_epoch(int argc, char **argv)
{
	struct fe_sysinfo si;
	char a[32], b[32], c[32];

	(void)argc;
	if (!sysinfo_or_complain(argv[0], &si))
		return;
	out_printf("epoch %lu committed; %lu commits since genesis, %lu since this power-on\n",
		   si.epoch, si.commits, si.power_on_commits);
	if (si.ckpt_period_ns)
		out_printf("checkpoint every %s us while dirty (now every %s us)\n",
			   us(si.ckpt_period_ns, a, sizeof(a)),
			   us(si.ckpt_interval_ns, b, sizeof(b)));
	else
		out_printf("periodic checkpoints off (ckpt=0): commits on sync, idle, full log\n");
	out_printf("pause: last %s us, mean %s us, max %s us\n",
		   us(si.pause_last_ns, a, sizeof(a)), us(si.pause_mean_ns, b, sizeof(b)),
		   us(si.pause_max_ns, c, sizeof(c)));
	out_printf("user pages to the heap: last epoch %lu, mean %lu per epoch\n",
		   si.pages_last, si.pages_mean);
	print_cache(&si);
	print_flushes(&si);
	print_cpus(&si);
	out_printf("undo log: %lu KiB, %lu KiB used, high water %lu KiB\n",
		   si.log_size >> 10, si.log_used >> 10, si.log_high_water >> 10);
	out_printf("power-on %lu: ", si.power_ons);
	if (si.resume_ns)
		out_printf("resumed in %s us, rolled back %lu records (%lu KiB)\n",
			   us(si.resume_ns, a, sizeof(a)), si.rolled_back_records,
			   (si.rolled_back_bytes + 1023) >> 10);
	else
		out_printf("genesis\n");
	out_printf("running for %lu s since genesis\n", si.uptime_ns / NS_PER_S);
}

/* cmd_uptime -- uptime: running time since genesis, and the power-on count */
void cmd_uptime(int argc, char **argv)
{
	struct fe_sysinfo si;
	uint64_t s;

	(void)argc;
	(void)argv;
	if (!sysinfo_or_complain("uptime", &si))
		return;
	s = si.uptime_ns / NS_PER_S;
	out_printf("up %lud %02lu:%02lu:%02lu since genesis (%lu s of running time); "
		   "power-on %lu; epoch %lu; %lu processes\n",
		   s / 86400, s / 3600 % 24, s / 60 % 60, s % 60, s, si.power_ons,
		   si.epoch, si.processes);
}

/* cmd_mem -- mem: the heap's size, use, and counts */
void cmd_mem(int argc, char **argv)
{
	struct fe_sysinfo si;
	char a[32], b[32], c[32];

	(void)argc;
	(void)argv;
	if (!sysinfo_or_complain("mem", &si))
		return;
	out_printf("heap %s: %s used, %s free (%lu%% used)\n",
		   size_text(a, sizeof(a), si.heap_size),
		   size_text(b, sizeof(b), si.heap_used),
		   size_text(c, sizeof(c), si.heap_free),
		   si.heap_size ? si.heap_used * 100 / si.heap_size : 0);
	out_printf("%lu objects, %lu names, %lu processes\n", si.objects, si.names,
		   si.processes);
}

/* cmd_poweroff -- poweroff: commit everything and power the machine off.
 * The call returns at the next power-on, when osh simply carries on. */
void cmd_poweroff(int argc, char **argv)
{
	long err;

	(void)argc;
	(void)argv;
	out_printf("poweroff: committing, then powering off\n");
	out_flush();
	err = fe_poweroff();
	if (err < 0)
		complain("poweroff: %s", err_str((int)err));
}

/* cmd_exit -- exit [STATUS]: end the shell (with $?, or STATUS); its
 * background jobs run on. On the console the kernel starts a new osh. */
void cmd_exit(int argc, char **argv)
{
	uint64_t status = (uint64_t)shell_status;

	if (argc == 2 && (parse_number(argv[1], &status) < 0 || status > 255)) {
		complain("exit: '%s' is not a status from 0 to 255", argv[1]);
		return;
	}
	out_flush();
	fe_exit((int)status);
}

/* --- snapshots (docs/snapshots.md) --- */

/* time_text -- wall-clock ns since 1970 as "YYYY-MM-DD HH:MM:SS" (UTC), "-" for 0 */
static const char *time_text(uint64_t ns, char *buf, size_t cap)
{
	uint64_t s = ns / NS_PER_S, days = s / 86400, secs = s % 86400;
	/* Days to a civil date, counting 400-year eras from 0000-03-01. */
	uint64_t z = days + 719468, era = z / 146097, doe = z % 146097;
	uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	uint64_t day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
	uint64_t year = yoe + era * 400 + (month <= 2);

	if (!ns)
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%04lu-%02lu-%02lu %02lu:%02lu:%02lu", year, month, day,
			 secs / 3600, secs / 60 % 60, secs % 60);
	return buf;
}

#define SNAPSHOT_USAGE "snapshot NAME | snapshot rm NAME | snapshot boot NAME|off | snapshot keep N"

/* snapshot_take -- snapshot NAME: returns once the snapshot is durable */
static void snapshot_take(const char *name)
{
	long err;

	out_flush();
	err = fe_snapshot(FE_SNAP_TAKE, name, 0);
	if (err == -ERR_EXIST)
		complain("snapshot: there is a snapshot named %s already ('snapshot rm %s' first)",
			 name, name);
	else if (err == -ERR_NOSPC)
		complain("snapshot: %d snapshots already: remove one first", FE_SNAP_TAKE_MAX);
	else if (err == -ERR_TOOBIG || err == -ERR_INVAL)
		complain("snapshot: '%s' is not a snapshot name (1 to %d printable bytes, no spaces)",
			 name, FE_SNAP_NAME_MAX);
	else if (err < 0)
		complain("snapshot: %s", err_str((int)err));
	else
		out_printf("snapshot %s taken\n", name);
}

/* snapshot_result -- what a snapshot subcommand said */
static void snapshot_result(const char *what, const char *name, long err)
{
	if (err == -ERR_NOENT)
		complain("snapshot %s: no snapshot named %s ('snapshots' lists them)", what, name);
	else if (err < 0)
		complain("snapshot %s: %s", what, err_str((int)err));
}

/* cmd_snapshot -- snapshot NAME, snapshot rm NAME, snapshot boot NAME|off,
 * snapshot keep N */
void cmd_snapshot(int argc, char **argv)
{
	const char *sub = argv[1];
	uint64_t n;

	if (argc == 2 && strcmp(sub, "rm") && strcmp(sub, "boot") && strcmp(sub, "keep")) {
		snapshot_take(sub);
	} else if (argc == 3 && !strcmp(sub, "rm")) {
		snapshot_result("rm", argv[2], fe_snapshot(FE_SNAP_REMOVE, argv[2], 0));
	} else if (argc == 3 && !strcmp(sub, "boot")) {
		bool off = !strcmp(argv[2], "off");
		long err = fe_snapshot(FE_SNAP_BOOT, off ? NULL : argv[2], 0);

		snapshot_result("boot", argv[2], err);
		if (err >= 0 && off)
			out_printf("snapshot boot: off: power-ons resume the state as it is\n");
		else if (err >= 0)
			out_printf("snapshot boot: every power-on starts from %s\n", argv[2]);
	} else if (argc == 3 && !strcmp(sub, "keep")) {
		if (parse_number(argv[2], &n) < 0 || n > FE_SNAP_MAX) {
			complain("snapshot keep: '%s' is not a count from 0 to %d", argv[2], FE_SNAP_MAX);
			return;
		}
		snapshot_result("keep", argv[2], fe_snapshot(FE_SNAP_KEEP, NULL, n));
	} else {
		complain("usage: %s", SNAPSHOT_USAGE);
		shell_status = STATUS_USAGE;
	}
}

/* cmd_snapshots -- snapshots: name, epoch, when taken, pages held */
void cmd_snapshots(int argc, char **argv)
{
	static struct fe_snapshot_list list;
	char size[32], when[32];
	uint32_t hidden = 0;
	long err;

	(void)argc;
	(void)argv;
	err = fe_snapshot(FE_SNAP_LIST, NULL, (uint64_t)(uintptr_t)&list);
	if (err < 0) {
		complain("snapshots: %s", err_str((int)err));
		return;
	}
	if (!list.area_pages) {
		out_printf("this heap has no snapshot area (made by a layout 1 Ferrite)\n");
		return;
	}
	out_printf("%-24s %8s  %-19s %10s  %s\n", "NAME", "EPOCH", "TAKEN (UTC)", "ONLY IT", "");
	for (uint32_t i = 0; i < list.count; i++) {
		const struct fe_snapshot_info *s = &list.snapshots[i];

		if (s->flags & FE_SNAP_HIDDEN)
			continue;
		out_printf("%-24s %8lu  %-19s %10s  %s%s%s\n", s->name, s->epoch,
			   time_text(s->time_ns, when, sizeof(when)),
			   size_text(size, sizeof(size), s->held * 4096),
			   s->flags & FE_SNAP_HEAD ? "newest " : "",
			   s->flags & FE_SNAP_BOOTS ? "boot " : "",
			   s->flags & FE_SNAP_AUTO ? "auto" : "");
	}
	for (uint32_t i = 0; i < list.count; i++)
		hidden += (list.snapshots[i].flags & FE_SNAP_HIDDEN) != 0;
	out_printf("area: %s free of %s; table: %u of %d places (%u removed, kept while others need them); power-on snapshots kept: %u\n",
		   size_text(size, sizeof(size), list.free_pages * 4096),
		   size_text(when, sizeof(when), list.area_pages * 4096), list.count,
		   FE_SNAP_MAX, hidden, list.keep);
}

/* cmd_echo -- echo WORDS...: the words, separated by spaces */
void cmd_echo(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		out_printf("%s%s", argv[i], i + 1 < argc ? " " : "");
	out_bytes("\n", 1);
}

/* cmd_clear -- clear: an empty screen */
void cmd_clear(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	out_bytes("\x1b[H\x1b[2J", 7);
}
