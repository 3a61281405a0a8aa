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
	out_printf("user pages logged: last epoch %lu, mean %lu per epoch\n",
		   si.pages_last, si.pages_mean);
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
		   size_text(si.heap_size, a, sizeof(a)),
		   size_text(si.heap_used, b, sizeof(b)),
		   size_text(si.heap_free, c, sizeof(c)),
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
