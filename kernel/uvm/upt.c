/*
 * upt.c -- user page tables: made for an address space on first use,
 * loaded by the CPUs that run its threads, shot down, and freed.
 *
 * Page tables are DRAM and volatile: a cache of an address space's
 * mappings (uvm.c fills them a page per fault), empty after every
 * power-on. This file owns their life and knows two things about them:
 *
 *  - which address spaces have tables, by process-table slot (the DRAM
 *    cache's mappers name tables by slot, and a page cached or protected
 *    must leave every table that maps it);
 *  - which tables each CPU runs on. A CPU loads an address space's tables
 *    when it runs one of its threads (upt_activate: the scheduler, and a
 *    fault before it maps a page) and leaves them when it idles
 *    (upt_leave) or is stopped (core/smp.c parks it on the kernel's
 *    tables; the record here may then still name the tables it left,
 *    which costs at most a needless stop).
 *
 * Invariant: a CPU other than this one that may hold a translation of
 * us's tables in its TLB has loaded[cpu] == us->pt_root. So taking a right
 * away or changing a frame stops exactly those CPUs (upt_shootdown), and
 * tables are freed only once none runs on them (upt_destroy). The kernel
 * lock is held throughout: only its holder changes tables or this record.
 */
#include "arch/arch.h"
#include "core/panic.h"
#include "core/smp.h"
#include "ferrite/errors.h"
#include "uvm/upt.h"

/* Volatile: rebuilt at every power-on. */
static struct uspace *spaces[KROOT_MAX_PROCS]; /* by slot: those with tables */
static uint64_t loaded[ARCH_MAX_CPUS];         /* the user tables each CPU runs on; 0 none */

/* upt_activate -- run on us's tables, made on first use */
int upt_activate(struct uspace *us)
{
	if (!us->pt_root) {
		int err = arch_pt_create_user(&us->pt_root);

		if (err)
			return err;
		/* Invariant: one address space per slot has tables. */
		KASSERT(spaces[us->slot] == NULL || spaces[us->slot] == us);
		spaces[us->slot] = us;
	}
	arch_user_pt_switch(us->pt_root);
	loaded[arch_cpu_index()] = us->pt_root;
	return 0;
}

/* upt_leave -- this CPU runs on the kernel's own tables */
void upt_leave(void)
{
	arch_pt_leave_user();
	loaded[arch_cpu_index()] = 0;
}

/* upt_space -- slot's address space if it has tables, NULL if not */
struct uspace *upt_space(unsigned slot)
{
	return slot < KROOT_MAX_PROCS ? spaces[slot] : NULL;
}

/* runs_elsewhere -- whether a CPU other than this one runs on tables `root` */
static bool runs_elsewhere(uint64_t root)
{
	unsigned self = arch_cpu_index();

	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		if (i != self && loaded[i] == root && cpus[i].online)
			return true;
	return false;
}

/* upt_shootdown -- stop every other CPU that runs on us's tables */
void upt_shootdown(const struct uspace *us)
{
	if (us && us->pt_root && runs_elsewhere(us->pt_root))
		smp_stop_others();
}

/* upt_destroy -- free us's tables, stopping the CPUs that run on them */
void upt_destroy(struct uspace *us)
{
	if (!us->pt_root)
		return;
	upt_shootdown(us);
	for (unsigned i = 0; i < ARCH_MAX_CPUS; i++)
		if (loaded[i] == us->pt_root)
			loaded[i] = 0; /* stopped, or this CPU: leaves them below */
	arch_pt_destroy_user(us->pt_root); /* leaves them first if they are current */
	if (spaces[us->slot] == us)
		spaces[us->slot] = NULL;
	us->pt_root = 0;
}
