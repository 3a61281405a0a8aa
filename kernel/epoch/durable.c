/*
 * durable.c -- when a commit is durable on a device with flush requests
 * (virtio-pmem), and what may be seen before then.
 *
 * On an NVDIMM a commit is durable when its epoch store is flushed and
 * fenced (objstore/tx.c), and the epoch's output goes out right after it.
 * On virtio-pmem a store is in the host's page cache at once but on its
 * disk only once a FLUSH request that covers it completed; after a host
 * crash the device holds the last completed flush's state plus any subset
 * of the pages written since. So there:
 *
 *  - A GROUP COMMIT, with every CPU stopped at the end of a commit: the
 *    heap pages written since the last group (the flush primitive notes
 *    each page it is asked to write back: arch_flush_track) are copied
 *    into the journal as one record (objstore/journal.h), and a flush is
 *    asked for. One flush is in flight at a time; commits made meanwhile
 *    wait for the next group, which starts as soon as the flush completes
 *    -- so one flush covers every epoch committed while the one before it
 *    was in flight, and the flush rate adapts to what a flush costs.
 *  - OUTPUT WAITS FOR ITS FLUSH: each group remembers how far the console's
 *    and the host link's output had been queued at its last commit (the
 *    marks); only when its flush completed is that output let out. So
 *    nothing a person saw depends on a page a host crash may lose.
 *  - sync and fsync return only once a flush covering the caller's last
 *    commit completed (durable_sync).
 *  - Once a record's flush completed its pages are copied into the base
 *    copy, and power-on rebuilds the heap from the base copy and the
 *    journal (durable_power_on). A host crash loses at most the epochs
 *    committed since the newest record that reached the disk whole: never
 *    output that was seen, and never more than the commits of one group
 *    past the last completed flush.
 *
 * Completion is polled: at every safe point and idle point (the kernel
 * lock held). The journal's record must fit: a group that would not is
 * started early -- the commit waits for the flush in flight -- and the
 * journal is an eighth of the device, many times what one epoch can write
 * (HEAP_ENTRY_LOG_MAX and the DRAM cache's write-back are bounded by the
 * log, docs/virtio-pmem.md).
 *
 * A heap that fills its whole device (made for an NVDIMM, then given to
 * virtio-pmem) has no room for the journal: it runs with flushes and
 * output waiting for them, and power-on says that a host crash may damage
 * it.
 */
#include <string.h>

#include "arch/arch.h"
#include "console/console.h"
#include "core/heap.h"
#include "core/panic.h"
#include "core/printk.h"
#include "core/smp.h"
#include "core/time.h"
#include "dev/virtio_pmem.h"
#include "epoch/durable.h"
#include "errstr.h"
#include "hostlink/hostlink.h"
#include "mm/frame.h"
#include "mm/phys.h"
#include "obj/kobj.h"
#include "objstore/journal.h"
#include "task/ptable.h"
#include "task/sched.h"

/* What a group's flush lets out once it completed. */
struct marks {
	uint64_t console;              /* console output queued up to here */
	uint32_t link;                 /* the link's output put up to here */
	uint64_t commits;              /* kroot->commits at the group's last commit */
};

/* Volatile: rebuilt at every power-on. */
static bool requests;                  /* the NVM's durability needs flush requests */
static bool journaled;                 /* ... and a journal protects the heap */
static struct jn_writer writer;
static uint64_t *dirty;                /* a bit per heap page (arch_flush_track) */
static uint64_t heap_pages;
static uint32_t *group_pages;          /* the next record's pages (up to every heap page) */
static struct {
	bool busy;
	uint64_t seq;                  /* its record (0: no journal) */
	struct marks marks;
} inflight;
static bool pending;                   /* commits since the group in flight */
static struct marks pending_marks;
static uint64_t durable_commits;       /* commits covered by a completed flush */
static uint64_t sync_target[KROOT_MAX_PROCS * KPROC_MAX_THREADS];
static uint64_t sync_thread[KROOT_MAX_PROCS * KPROC_MAX_THREADS];
static struct {
	uint64_t commits;              /* commits that waited for a flush */
	uint64_t groups;               /* flushes asked for */
	uint64_t flushes;              /* flushes completed (their cost: pmem_stats) */
	uint64_t pages;                /* page images written to the journal */
	uint64_t rebases;              /* groups the journal could not hold */
	uint64_t sync_waits;           /* sync calls that blocked for a flush */
	uint64_t waiting_max;          /* commits not covered, just before a completion */
	uint64_t copy_ns_total, copy_ns_max; /* groups' copies into the journal */
} figures;

/* --- power-on --------------------------------------------------------------- */

/* flush_or_stop -- a flush waited for, at a step that must not go on
 * without it (power-on stops; a rebase keeps the base it has) */
static int flush_or_stop(const char *when)
{
	int err = pmem_flush_wait();

	if (err)
		pr_err("journal: the device failed a flush %s (%s)\n", when, err_str(err));
	return err;
}

/* alloc_dram -- zeroed DRAM frames for n bytes, or NULL */
static void *alloc_dram(uint64_t bytes)
{
	uint64_t frames = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	uint64_t phys;
	void *p;

	if (frame_alloc_run(frames, &phys))
		return NULL;
	p = phys_to_virt(phys);
	memset(p, 0, frames * PAGE_SIZE);
	return p;
}

/* start_tracking -- the writer continues after record `newest`, the flush
 * primitive notes every heap page it writes back from now on */
static int start_tracking(struct nvm *nvm, struct jn_header *h, uint64_t newest)
{
	heap_pages = h->heap_size / JN_PAGE;
	dirty = alloc_dram((heap_pages + 63) / 64 * 8);
	group_pages = alloc_dram(heap_pages * sizeof(uint32_t)); /* a group may exceed the journal */
	if (!dirty || !group_pages) {
		pr_err("journal: out of DRAM for the page bitmap of a %llu MiB heap\n",
		       (unsigned long long)(h->heap_size >> 20));
		return -ERR_NOMEM;
	}
	jn_writer_init(&writer, nvm->base, h, newest);
	arch_flush_track(nvm->base, h->heap_size, dirty);
	journaled = true;
	nvm->size = h->heap_size; /* the heap sees the working copy alone */
	return 0;
}

/* make_journal -- genesis on a blank device: lay it out, the header made
 * durable before the heap is formatted */
static int make_journal(struct nvm *nvm)
{
	struct jn_layout l;
	struct jn_header *h = (void *)((uint8_t *)nvm->base + nvm->size - JN_PAGE);
	int err = jn_plan(nvm->size, NVM_MIN_SIZE_DEFAULT / 4, &l);

	if (err) {
		pr_err("journal: a %llu MiB device has no room for a heap, its base copy and a journal\n",
		       (unsigned long long)(nvm->size >> 20));
		return err;
	}
	jn_make_header(h, nvm->size, &l, arch_cycles() ^ (nvm->phys << 12));
	memset((uint8_t *)h + JN_SENT_OFFSET, 0, sizeof(uint64_t));
	err = flush_or_stop("for the journal's header");
	if (err)
		return err;
	pr_info("journal: new: heap %llu MiB, base copy %llu MiB, journal %llu KiB\n",
		(unsigned long long)(l.heap_size >> 20), (unsigned long long)(l.heap_size >> 20),
		(unsigned long long)(l.journal_size >> 10));
	return start_tracking(nvm, h, 0);
}

/* recover -- rebuild the heap from the base copy and the journal, then
 * start a new generation of records */
static int recover(struct nvm *nvm, struct jn_header *h)
{
	struct jn_recovery r;
	const char *why;
	uint64_t restored;
	int err = jn_recover(nvm->base, h, &r, &why);

	if (err) {
		pr_err("heap: the journal on the device is damaged: %s\n  not touching the heap\n", why);
		return err;
	}
	err = flush_or_stop("after replaying the journal");
	if (err)
		return err;
	if (h->base_offset == 0) { /* a rebase was cut short: finish it */
		pr_info("journal: finishing a rebase the power cut short\n");
		jn_rebase_copy(nvm->base, h);
		err = flush_or_stop("for a rebase's copy");
		if (err)
			return err;
		jn_rebase_end(h);
	}
	h->generation++;
	jn_seal_header(h);
	err = flush_or_stop("for the journal's new generation");
	if (err)
		return err;
	restored = jn_restore_heap(nvm->base, h);
	if (r.skipped)
		pr_warn("journal: %llu whole records passed over: a record each needs is torn (written after a failed flush)\n",
			(unsigned long long)r.skipped);
	if (r.newest)
		pr_info("journal: replayed records %llu to %llu (%llu pages; %llu torn records ignored); heap restored from its base copy (%llu pages)\n",
			(unsigned long long)(r.newest - r.replayed + 1),
			(unsigned long long)r.newest, (unsigned long long)r.pages,
			(unsigned long long)r.incomplete, (unsigned long long)restored);
	else
		pr_info("journal: no record to replay (%llu torn records ignored); heap restored from its base copy (%llu pages)\n",
			(unsigned long long)r.incomplete, (unsigned long long)restored);
	return start_tracking(nvm, h, r.newest);
}

/* durable_power_on -- before the heap opens: on a device with flush
 * requests, recover the heap from its journal or lay a blank device out */
int durable_power_on(struct nvm *nvm)
{
	const struct jn_header *found;
	const char *why;
	int err;

	requests = nvm->flush_requests;
	if (!requests)
		return 0;
	err = jn_find(nvm->base, nvm->size, &found, &why);
	if (!err && found->device_size != nvm->size)
		pr_warn("journal: the device has %llu MiB, its journal's layout %llu MiB: the rest is not used (a heap on virtio-pmem does not grow)\n",
			(unsigned long long)(nvm->size >> 20),
			(unsigned long long)(found->device_size >> 20));
	if (!err)
		return recover(nvm, (struct jn_header *)found);
	if (err != -ERR_NOENT) {
		pr_err("heap: %s\n  not touching the device\n", why);
		return err;
	}
	if (heap_nvm_blank(nvm))
		return make_journal(nvm);
	pr_warn("journal: the heap fills the whole device (made for an NVDIMM?): no room for a journal, so a crash of the host may damage it; output still waits for flushes\n");
	return 0;
}

/* --- groups ----------------------------------------------------------------- */

/* marks_now -- what the last commit queued */
static struct marks marks_now(void)
{
	return (struct marks){
		.console = console_commit_mark(),
		.link = hostlink_commit_mark(),
		.commits = kroot->commits,
	};
}

/* take_dirty -- the pages written back since the last group, into
 * group_pages, the bitmap cleared; how many */
static uint32_t take_dirty(void)
{
	uint32_t n = 0;

	for (uint64_t w = 0; w < (heap_pages + 63) / 64; w++) {
		uint64_t bits = __atomic_exchange_n(&dirty[w], 0, __ATOMIC_ACQ_REL);

		while (bits) {
			group_pages[n++] = (uint32_t)(w * 64 + (uint64_t)__builtin_ctzll(bits));
			bits &= bits - 1;
		}
	}
	arch_flush_track_reset();
	return n;
}

/* finish_inflight -- the flush in flight completed (or the device failed it) */
static void finish_inflight(int result);

/* wait_inflight -- spin until the flush in flight completed */
static void wait_inflight(void)
{
	int r;

	while ((r = pmem_flush_poll()) == 0)
		arch_cpu_relax();
	finish_inflight(r);
}

/* give_back -- the group's `n` pages, not made durable, marked again for
 * the next group */
static void give_back(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		__atomic_fetch_or(&dirty[group_pages[i] / 64], 1ull << (group_pages[i] % 64),
				  __ATOMIC_ACQ_REL);
}

/* rebase -- a group the journal cannot hold, every CPU stopped and no
 * flush in flight: the base copy made equal to the working copy through a
 * rebase (objstore/journal.h), four flushes waited for; the journal is
 * empty after it. Whether it was done: a flush the device failed leaves
 * the header as it was, the journal's records valid. */
static bool rebase(void)
{
	struct jn_header *h = writer.header, before = *h;

	figures.rebases++;
	if (flush_or_stop("before a rebase"))
		return false;
	jn_rebase_begin(h);
	if (flush_or_stop("for a rebase's header"))
		goto out_restore;
	jn_rebase_copy(writer.dev, h);
	if (flush_or_stop("for a rebase's copy"))
		goto out_restore;
	jn_rebase_end(h);
	if (flush_or_stop("for a rebase's end"))
		goto out_restore;
	jn_writer_init(&writer, writer.dev, h, 0);
	return true;

out_restore:
	/* The device failed a flush: the header names the base copy again,
	 * with the generation whose records are live (the next flush covers it). */
	*h = before;
	return false;
}

/* write_record -- the group's pages as the journal's next record, its
 * number; 0 when the journal had no room and a rebase made the group
 * durable instead (or the device failed it: the pages wait for the next
 * group) */
static uint64_t write_record(void)
{
	uint32_t n = take_dirty();
	uint64_t seq;

	if (jn_write(&writer, group_pages, n, &seq) == 0) {
		figures.pages += n;
		return seq;
	}
	if (!rebase())
		give_back(n);
	return 0;
}

/* start_group -- with every CPU stopped: the group's record, and its flush */
static void start_group(struct marks m)
{
	uint64_t t0 = time_ns(), ns;
	int err;

	inflight.seq = journaled ? write_record() : 0;
	ns = time_ns() - t0;
	figures.copy_ns_total += ns;
	if (ns > figures.copy_ns_max)
		figures.copy_ns_max = ns;
	err = pmem_flush_start();
	KASSERT(err == 0); /* none is in flight */
	inflight.busy = true;
	inflight.marks = m;
	pending = false;
	figures.groups++;
}

/* release -- let out what a completed flush covered, and wake sync's waiters */
static void release(struct marks m)
{
	uint64_t waiting = kroot ? kroot->commits - durable_commits : 0;

	if (waiting > figures.waiting_max)
		figures.waiting_max = waiting; /* what a host crash just now could lose */
	console_release_to(m.console);
	hostlink_release_to(m.link);
	durable_commits = m.commits;
	if (kroot)
		sched_wake(KWAIT_DURABLE, 0); /* not before processes exist */
}

/* finish_inflight -- the flush completed: 1, or -ERR_IO (a failed flush
 * leaves the output held: what it covered is not known durable) */
static void finish_inflight(int result)
{
	inflight.busy = false;
	if (result < 0) {
		pending = true; /* the next group's flush covers it again */
		pending_marks = inflight.marks.commits > pending_marks.commits ? inflight.marks
									      : pending_marks;
		return;
	}
	figures.flushes++;
	if (inflight.seq)
		jn_flushed(&writer, inflight.seq);
	release(inflight.marks);
}

/* durable_committed -- at the end of every commit, every other CPU
 * stopped: let the epoch's output out, or start its group, or leave it to
 * the next one (power-on's own commits, before `running`, release nothing) */
void durable_committed(bool running)
{
	struct marks m = { 0 };

	if (!requests) {
		if (running) {
			console_release();
			hostlink_release();
		}
		return;
	}
	if (running)
		m = marks_now();
#ifdef FERRITE_MUTANT_OUTPUT_BEFORE_FLUSH /* tests: output let out before its flush */
	if (running) {
		console_release();
		hostlink_release();
	}
#endif
	figures.commits++;
	if (inflight.busy && durable_group_full())
		wait_inflight(); /* the group must not outgrow the journal */
	if (inflight.busy) {
		pending = true;
		pending_marks = m;
		return;
	}
	start_group(m);
}

/* durable_group_full -- whether the pages changed since the last group
 * fill a quarter of the journal's room: the next commit must start a
 * group (and wait for the flush in flight, if any: durable_committed) */
bool durable_group_full(void)
{
	return journaled && arch_flush_track_count() > jn_slots_free(&writer) / 4;
}

/* durable_poll -- at a safe or idle point (the kernel lock held): a
 * completed flush lets its output out, and the commits that waited for it
 * start their group */
void durable_poll(void)
{
	int r;

	if (!requests || !inflight.busy)
		return;
	r = pmem_flush_poll();
	if (r == 0)
		return;
	finish_inflight(r);
	if (pending) {
		smp_stop_others();
		start_group(pending_marks);
	}
}

/* durable_settle -- before the machine stops waiting for programs (power
 * off, the kernel's monitor): every commit made durable, its output out */
void durable_settle(void)
{
	if (!requests)
		return;
	if (inflight.busy)
		wait_inflight();
	if (pending) {
		smp_stop_others();
		start_group(pending_marks);
		wait_inflight();
	}
}

/* durable_release_link -- output the link wrote while nothing changed
 * since the last commit: made by committed state, so it goes with the
 * flush that covers that commit (at once when none is awaited) */
void durable_release_link(void)
{
	if (!requests || (!inflight.busy && !pending)) {
		hostlink_release();
		return;
	}
	if (pending)
		pending_marks.link = hostlink_commit_mark();
	else
		inflight.marks.link = hostlink_commit_mark();
}

/* --- sync ------------------------------------------------------------------- */

/* durable_sync -- SYS_SYNC, fsync: a commit is asked for; on a device with
 * flush requests the call blocks until a flush covered the commit that
 * follows its first issue (it is issued again when a flush completes);
 * whether the caller's state is durable now */
bool durable_sync(struct trap_frame *tf)
{
	struct pctx *p = sched_current();
	unsigned i = p->proc->slot * KPROC_MAX_THREADS + sched_current_tid();
	uint64_t thread = p->thread_id[sched_current_tid()];
	bool first = false;

	heap_request_commit();
	if (!requests)
		return true; /* committed at the safe point on the way back */
	if (sync_thread[i] != thread || !sync_target[i]) {
		sync_thread[i] = thread;
		sync_target[i] = kroot->commits + 1; /* the commit that follows */
		first = true;
	}
	if (durable_commits >= sync_target[i]) {
		sync_target[i] = 0;
		return true;
	}
	if (first)
		figures.sync_waits++;
	sched_block(tf, KWAIT_DURABLE, 0, 0);
	return false;
}

/* durable_power_on_done -- the heap is open: what it holds is durable */
void durable_power_on_done(void)
{
	if (requests) {
		/* power-on's own commits made durable; no thread runs yet, so
		 * there is no CPU to stop */
		if (inflight.busy)
			wait_inflight();
		if (pending) {
			start_group(pending_marks);
			wait_inflight();
		}
		pmem_flush_report(); /* what a flush costs here */
		if (journaled)
			console_keep_sent_in((uint64_t *)((uint8_t *)writer.header + JN_SENT_OFFSET));
	}
	durable_commits = kroot->commits;
	sched_wake(KWAIT_DURABLE, 0); /* syncs cut by the power: issued again */
}

/* durable_figures -- sysinfo's figures of the flushes of this power-on */
void durable_figures(struct fe_sysinfo *info)
{
	struct pmem_stats st;

	if (!requests)
		return;
	pmem_stats(&st);
	info->pmem_mode = journaled ? 2 : 1;
	info->pmem_flushes = figures.flushes;
	info->pmem_flush_mean_ns = st.flushes ? st.total_ns / st.flushes : 0;
	info->pmem_flush_max_ns = st.max_ns;
	info->pmem_groups = figures.groups;
	info->pmem_commits = figures.commits;
	info->pmem_journal_pages = figures.pages;
	info->pmem_rebases = figures.rebases;
	info->pmem_sync_waits = figures.sync_waits;
	info->pmem_waiting = kroot->commits - durable_commits;
	info->pmem_waiting_max = figures.waiting_max;
	info->pmem_copy_mean_ns = figures.groups ? figures.copy_ns_total / figures.groups : 0;
	info->pmem_copy_max_ns = figures.copy_ns_max;
}
