/*
 * heap.c -- the kernel's persistent heap: power-on, genesis, the transaction.
 *
 * The whole NVM is one objstore heap. At power-on heap_init looks at its
 * first page and decides, before writing anything:
 *  - blank (no heap magic, first 4 KiB zero): format it (genesis);
 *  - a heap of this layout major version: open it, which rolls back the
 *    epoch that was running when the power went;
 *  - a heap of another major version, a damaged heap, or data that is not
 *    a heap at all: say so and return an error (the caller halts). Nothing
 *    is written: the bytes may matter to someone, and a kernel that does
 *    not understand them must not "repair" them.
 *
 * "Damaged" covers everything power-on reads (docs/hostile-images.md):
 * objstore validates the superblock, every record of the undo log and the
 * root block before the rollback writes a byte (os_diagnose); the rollback
 * then stays pending (os_open_tentative) while kcheck_image validates the
 * kernel objects in the rolled-back heap. If they are damaged, the bytes
 * the rollback overwrote, kept in DRAM, are put back (os_open_retract):
 * the image is byte for byte as it was. Only then is the rollback
 * committed.
 *
 * An NVM larger than the heap (tools/run-qemu --size, or objtool grow's
 * counterpart on a machine) is grown into right after the open, before
 * the first epoch begins: the new pages join the never-used tail in one
 * commit of the superblock alone, O(1) (objstore/resize.c); a heap that
 * cannot grow runs at its size, said why. An NVM smaller than the heap is
 * refused like any damage.
 *
 * Genesis is complete when the kernel's root object exists
 * (app_roots[OS_APP_ROOT_KERNEL]). kobj_root_init makes it (obj/kobj.c)
 * after the boot modules were imported (kernel/core/modules.c), in the
 * power-on's first record (kernel/main.c). A heap
 * without it -- made by objtool, or whose first power-on was cut short --
 * simply has genesis finished at the next power-on (heap_genesis).
 *
 * The kernel then runs one long transaction, the epoch: heap_init leaves
 * one begun, kernel code logs before writing (heap_log), and heap_commit,
 * called by the epoch module alone (kernel/epoch/epoch.c), ends it and
 * begins the next. A power cut returns the heap to the last
 * commit. With `logcheck` on the command line, every commit and abort
 * first proves that the epoch changed no byte it did not log
 * (core/logcheck.h).
 *
 * Platform: flushes and fences are the NVM driver's choice (arch_flush_*);
 * CRC-32C is the CPU's crc32 instruction when it has one; the creation
 * time is the RTC's wall clock.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "core/heap.h"
#include "core/logcheck.h"
#include "core/panic.h"
#include "core/printk.h"
#include "dev/rtc.h"
#include "errstr.h"
#include "ferrite/nvmtrace.h"
#include "mm/frame.h"
#include "mm/phys.h"
#include "objstore/object.h"
#include "kformat/kcheck.h"
#include "core/cmdline.h"

#define BLANK_PROBE_BYTES 4096

struct objstore kheap;

#define KCHECK_PRINTED_MAX 8      /* kernel-object problems printed at a refusal */

/* Volatile, set by heap_init. */
static uint64_t nvm_phys;
static uint64_t save_phys, save_frames; /* DRAM keeping what a pending rollback overwrote */
static bool genesis;              /* genesis runs in this power-on */
static bool ready;                /* heap_init succeeded */
static bool commit_requested;     /* heap_request_commit since the last commit */

/* heap_fatal -- objstore found one of its invariants broken */
static __attribute__((noreturn)) void heap_fatal(const char *message)
{
	panic("%s", message);
}

/* Volatile: the wall clock, the RTC's until heap_set_wall_clock. */
static uint64_t (*wall_clock)(void) = rtc_wall_ns;

/* heap_now_ns -- the wall time objstore stamps: the heap's creation, and
 * the mtime of objects a transaction changes (format.h) */
static uint64_t heap_now_ns(void)
{
	return wall_clock();
}

static struct os_platform platform = {
	.flush = arch_flush_range,
	.fence = arch_fence,
	.fatal = heap_fatal,
	.now_ns = heap_now_ns,
};

/* heap_set_wall_clock -- the clock heap_now_ns reads from now on (the
 * TSC's, once time runs: the RTC counts only seconds, slowly) */
void heap_set_wall_clock(uint64_t (*clock)(void))
{
	wall_clock = clock;
}

/* --- finding the heap --------------------------------------------------- */

/* has_magic -- whether the NVM starts with a heap's magic */
static bool has_magic(const struct nvm *nvm)
{
	return memcmp(nvm->base, OS_MAGIC, 8) == 0;
}

/* heap_nvm_blank -- whether the first bytes of the NVM are all zero (what
 * genesis formats) */
bool heap_nvm_blank(const struct nvm *nvm)
{
	const uint8_t *p = nvm->base;

	for (unsigned i = 0; i < BLANK_PROBE_BYTES; i++)
		if (p[i])
			return false;
	return true;
}

/* scramble -- spread the bits of x over all 64 (a bijection: distinct in, distinct out) */
static uint64_t scramble(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* format -- genesis: an empty heap over the whole NVM */
static int format(const struct nvm *nvm)
{
	/* A heap id that differs between geneses (the TSC and the RTC); not a secret. */
	uint64_t id[2] = { scramble(arch_cycles()), scramble(nvm->phys ^ rtc_wall_ns()) };
	struct os_create_opts opts = { .heap_id = (const uint8_t *)id };
	struct os_stats st;
	int err = os_create(&kheap, nvm->base, nvm->size, &platform, &opts);

	if (err) {
		pr_err("heap: cannot format the %llu MiB NVM: %s\n",
		       (unsigned long long)(nvm->size >> 20), err_str(err));
		return err;
	}
	os_stats(&kheap, &st);
	pr_info("heap: genesis: formatted %llu MiB (log %llu KiB)\n",
		(unsigned long long)(nvm->size >> 20),
		(unsigned long long)(st.log_size >> 10));
	return 0;
}

/* explain_refusal -- why os_diagnose refused the heap (-ERR_VERSION or
 * -ERR_CORRUPT: the magic was checked), and that nothing was written */
static void explain_refusal(const struct nvm *nvm, int err,
			    const struct os_diagnosis *d)
{
	const struct os_superblock *sb = nvm->base;
	char size_note[96] = "";

	if (err == -ERR_VERSION) {
		pr_err("heap: the NVM holds a Ferrite heap of layout version %u.%u; this kernel reads layouts %u.x to %u.x (it writes %u.%u)\n"
		       "  not touching it: boot a kernel that reads layout %u, or give this one another image\n",
		       sb->layout_major, sb->layout_minor, OS_LAYOUT_OLDEST_MAJOR,
		       OS_LAYOUT_MAJOR, OS_LAYOUT_MAJOR, OS_LAYOUT_MINOR, sb->layout_major);
		return;
	}
	if (sb->heap_size > nvm->size)
		snprintf(size_note, sizeof(size_note),
			 "\n  its superblock says the heap has %llu bytes, the NVM has %llu",
			 (unsigned long long)sb->heap_size,
			 (unsigned long long)nvm->size);
	pr_err("heap: the Ferrite heap on the NVM is damaged: %s%s\n"
	       "  not touching it: `objtool IMAGE check` on the host says what is wrong\n",
	       d->why, size_note);
}

/* save_buffer -- DRAM for the `bytes` a rollback overwrites; NULL if none */
static void *save_buffer(uint64_t bytes)
{
	uint64_t phys;

	if (!bytes)
		return NULL;
	save_frames = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	if (frame_alloc_run(save_frames, &phys)) {
		save_frames = 0;
		pr_warn("heap: no %llu KiB of DRAM to keep what the rollback overwrites: a refusal of the kernel objects would leave the rollback done\n",
			(unsigned long long)(bytes >> 10));
		return NULL;
	}
	save_phys = phys;
	return phys_to_virt(phys);
}

/* save_free -- give back the DRAM of save_buffer */
static void save_free(void)
{
	for (uint64_t i = 0; i < save_frames; i++)
		frame_free(save_phys + i * PAGE_SIZE);
	save_frames = 0;
}

/* list_snapshots -- the snapshots a person could power on into, and how */
static void list_snapshots(void)
{
	struct os_snap_info list[OS_SNAP_NODES];
	unsigned count = os_snap_list(&kheap, list, OS_SNAP_NODES), named = 0;

	for (unsigned i = 0; i < count; i++) {
		if (!list[i].name[0])
			continue;
		if (!named++)
			pr_err("  the heap keeps these snapshots:\n");
		pr_err("    %-24s epoch %llu\n", list[i].name, (unsigned long long)list[i].epoch);
	}
	if (named)
		pr_err("  power on into one with: tools/run-qemu --append resume=NAME\n");
}

/* print_kernel_problem -- one problem kcheck_image found, under a heading */
static void print_kernel_problem(void *ctx, const char *message)
{
	unsigned *printed = ctx;

	if (*printed == 0)
		pr_err("heap: the kernel objects in the Ferrite heap on the NVM are damaged:\n");
	if ((*printed)++ < KCHECK_PRINTED_MAX)
		pr_err("  %s\n", message);
}

/* check_kernel_objects -- kcheck_image before anything trusts the kernel
 * objects; on a problem, put back what the rollback wrote and refuse */
static int check_kernel_objects(void)
{
	unsigned printed = 0;
	struct kcheck_report report = { .problem = print_kernel_problem, .ctx = &printed };

	if (!kcheck_image(&kheap, &report))
		return 0;
	if (printed > KCHECK_PRINTED_MAX)
		pr_err("  ... and %u more\n", printed - KCHECK_PRINTED_MAX);
	if (!kheap.pending)
		pr_err("  stopping: `objtool IMAGE check` on the host says what is wrong\n");
	else if (os_open_retract(&kheap))
		pr_err("  the rollback of the unfinished epoch stays (no DRAM kept what it overwrote); nothing else was written\n");
	else
		pr_err("  not touching it: `objtool IMAGE check` on the host says what is wrong\n");
	list_snapshots();
	return -ERR_CORRUPT;
}

/* Volatile: the snapshot this power-on started from, "" if none. */
static char resumed_from[OS_SNAP_NAME_MAX + 1];

/* heap_resumed_from -- the snapshot this power-on started from, or NULL */
const char *heap_resumed_from(void)
{
	return resumed_from[0] ? resumed_from : NULL;
}

/* power_on_target -- the snapshot this power-on starts from: resume=NAME,
 * else the one `snapshot boot` chose; NULL if none */
static const char *power_on_target(void)
{
	static struct os_snap_info list[OS_SNAP_NODES];
	const char *name = cmdline_get("resume");
	unsigned count;

	if (name && *name)
		return name;
	if (name)
		pr_warn("cmdline: resume= names no snapshot; ignored\n");
	count = os_snap_list(&kheap, list, OS_SNAP_NODES);
	for (unsigned i = 0; i < count; i++)
		if (list[i].boot) {
			pr_info("heap: snapshot boot: every power-on starts from snapshot %s (`snapshot boot off` stops it)\n",
				list[i].name);
			return list[i].name;
		}
	return NULL;
}

/* before_name -- a free name for the state a restore to `target` replaces:
 * before-TARGET-N, N counting up from 1 */
static void before_name(const char *target, char *out, size_t size)
{
	for (unsigned n = 1;; n++) {
		int len = snprintf(out, size, "before-%s-%u", target, n);

		if (len < 0 || (size_t)len >= size)
			len = snprintf(out, size, "before-resume-%u", n);
		if (os_snap_find(&kheap, out) < 0)
			return;
	}
}

/* power_on_into -- restore the snapshot `target`, keeping the live state;
 * 1 if it did, 0 if the table has no room to keep the live state (a
 * normal power-on, said why), or an error */
static int power_on_into(const char *target)
{
	char before[OS_SNAP_NAME_MAX + 1];
	int index = os_snap_find(&kheap, target), err;
	struct os_snap_usage u;

	if (index < 0) {
		pr_err("heap: there is no snapshot named '%s' to power on into\n", target);
		list_snapshots();
		return -ERR_NOENT;
	}
	os_snap_usage(&kheap, &u);
	if (u.nodes >= OS_SNAP_NODES) {
		pr_warn("heap: not powering on into snapshot %s: the snapshot table is full (%u places, removed snapshots others need included), and the state this power-on replaces must be kept in one; powering on as usual. Remove the oldest or the newest snapshot (`snapshot rm NAME` at the osh prompt, or `objtool IMAGE snapshot rm NAME`; `snapshots` shows the table), then power on into %s again\n",
			target, OS_SNAP_NODES, target);
		return 0;
	}
	before_name(target, before, sizeof(before));
	err = os_snap_restore(&kheap, target, before, rtc_wall_ns());
	if (err) {
		pr_err("heap: powering on into snapshot %s failed: %s\n"
		       "  `objtool IMAGE check` on the host says what is wrong\n",
		       target, err_name(err));
		return err;
	}
	pr_info("heap: powered on into snapshot %s; the state it replaced is kept as snapshot %s\n",
		target, before);
	memcpy(resumed_from, target, strlen(target) + 1);
	return 1;
}

/* console_seen -- after a restore: the snapshot's console output was all
 * seen when it was taken (released right after that commit), and what was
 * sent since belongs to the state replaced; nothing is sent again. The
 * cursor is the one word written outside the log, so it may be anything
 * relative to the snapshot's queue: set to it, durably. */
static void console_seen(void)
{
	uint64_t queued, *sent = kcheck_output_cursor(&kheap, &queued);

	if (sent && *sent != queued && os_store_durable(&kheap, sent, queued))
		panic("heap: the console's output cursor is not an aligned word of the heap");
}

/* restore -- finish a restore a power cut interrupted, then power on into
 * `target` if asked: the rollback is committed first, as a restore writes */
static int restore(const char *target)
{
	bool restored = false;
	int err;

	os_open_confirm(&kheap);
	save_free();
	if (os_snap_restoring(&kheap)) {
		err = os_snap_finish(&kheap);
		if (err) {
			pr_err("heap: finishing the restore a power cut interrupted failed: %s\n"
			       "  `objtool IMAGE check` on the host says what is wrong\n", err_name(err));
			return err;
		}
		pr_info("heap: finished the restore to a snapshot that a power cut interrupted\n");
		restored = true;
	}
	if (target) {
		err = power_on_into(target);
		if (err < 0)
			return err;
		restored = restored || err;
	}
	if (restored)
		console_seen();
	return 0;
}

/* open_heap -- open the heap on the NVM, validating all that power-on
 * reads (superblock, log, root block, kernel objects) before the rollback
 * becomes a write that stays; or, when this power-on goes into a snapshot,
 * validating the kernel objects of the state restored */
static int open_heap(const struct nvm *nvm)
{
	struct os_diagnosis d;
	struct os_stats st;
	const char *target;
	int err = os_diagnose(nvm->base, nvm->size, &d);

	if (!err)
		err = os_open_tentative(&kheap, nvm->base, nvm->size, &platform,
					save_buffer(d.undo_bytes));
	if (err) {
		explain_refusal(nvm, err, &d);
		save_free();
		return err;
	}
	target = power_on_target();
	if (target || os_snap_restoring(&kheap))
		err = restore(target);
	if (!err)
		err = check_kernel_objects();
	save_free();
	if (err)
		return err;
	os_open_confirm(&kheap);
	os_stats(&kheap, &st);
	pr_info("heap: opened, epoch %llu, rolled back %llu records\n",
		(unsigned long long)st.epoch, (unsigned long long)st.rolled_back);
	return 0;
}

/* mib -- bytes in whole MiB, for messages */
static unsigned long long mib(uint64_t bytes)
{
	return (unsigned long long)(bytes >> 20);
}

/* grow -- give the heap the NVM past its end (objstore/resize.c): the new
 * pages join the never-used tail, one commit of the superblock alone; a
 * heap that cannot grow keeps its size, said why */
static void grow(const struct nvm *nvm)
{
	struct os_resize_plan plan;
	int err;

	if (kheap.sb->heap_size >= nvm->size)
		return;
	err = os_resize(&kheap, nvm->size, &plan);
	if (!err && plan.new_page_count == plan.page_count)
		return; /* less than a page more */
	if (!err) {
		pr_info("heap: grew from %llu MiB to %llu MiB\n", mib(plan.heap_size),
			mib(plan.new_size));
		return;
	}
	if (plan.refusal == OS_RESIZE_OLD_LAYOUT)
		pr_warn("heap: not growing to the NVM's %llu MiB: the heap was made with layout %u.%u, before heaps could grow; running at its %llu MiB\n",
			mib(nvm->size), kheap.sb->layout_major, kheap.sb->layout_minor,
			mib(plan.heap_size));
	else if (plan.refusal == OS_RESIZE_TOO_LARGE)
		pr_warn("heap: not growing to the NVM's %llu MiB: this heap can grow to %llu MiB at most (the room its page descriptors were made with); running at its %llu MiB\n",
			mib(nvm->size), mib(plan.max_size), mib(plan.heap_size));
	else
		pr_warn("heap: not growing to the NVM's %llu MiB: %s; running at its %llu MiB\n",
			mib(nvm->size), err_name(err), mib(plan.heap_size));
}

/* attach -- format a blank NVM or open its heap; refuse anything else */
static int attach(const struct nvm *nvm)
{
	if (!has_magic(nvm) && heap_nvm_blank(nvm) && cmdline_has("resume"))
		pr_warn("cmdline: resume=%s ignored: the NVM is blank, so this power-on is genesis, with no snapshot to power on into\n",
			cmdline_get("resume"));
	if (has_magic(nvm)) {
		int err;

		arch_trace_event(NVT_EVENT_ROLLBACK_BEGIN);
		err = open_heap(nvm);
		arch_trace_event(NVT_EVENT_ROLLBACK_END);
		if (!err)
			grow(nvm);
		return err;
	}
	if (heap_nvm_blank(nvm))
		return format(nvm);
	pr_err("heap: the NVM holds data that is not a Ferrite heap (no %s magic, and its first %u bytes are not zero)\n"
	       "  not touching it: give Ferrite a blank (all-zero) image, or a heap made by objtool create\n",
	       OS_MAGIC, BLANK_PROBE_BYTES);
	return -ERR_INVAL;
}

/* exempt_capture -- what snapshot capture writes outside the log (the head
 * map, the area's data pages: meaningless until the commit, format.h), for
 * the log checker, before the first transaction can capture */
static void exempt_capture(void)
{
	uint64_t off[2], len[2];
	unsigned n = os_snap_unlogged(&kheap, off, len);

	for (unsigned i = 0; i < n; i++)
		logcheck_exempt(os_ptr(&kheap, off[i]), len[i]);
}

/* heap_init -- open or create the heap, begin the epoch */
int heap_init(const struct nvm *nvm)
{
	bool formatted = !has_magic(nvm);
	int err;

	nvm_phys = nvm->phys;
	platform.crc32c = arch_crc32c_preferred() ? arch_crc32c : NULL;
	err = attach(nvm);
	if (err)
		return err;
	logcheck_init();
	exempt_capture();
	/* An epoch commits by the epoch store: its log written once (the NVM
	 * write accounting's figures), and a wait more every millisecond is
	 * nothing to a commit that pauses the machine anyway. So objstore's
	 * sets (os_tx_set: the allocator's) are logged writes here, and
	 * heap_log's callers stay undo: for the epoch's millisecond they read
	 * back in place what they wrote (user pages through the MMU, kernel
	 * objects through plain pointers), which bytes kept aside until the
	 * commit would not show them. */
	os_commit_by_redo(&kheap, false);
	err = os_tx_begin(&kheap);
	KASSERT(err == 0);
	ready = true;
	genesis = os_app_root(&kheap, OS_APP_ROOT_KERNEL) == 0;
	if (genesis && !formatted)
		pr_info("heap: genesis: the heap has no kernel root object yet (made by objtool, or its first power-on was cut short); finishing genesis\n");
	return 0;
}

/* --- the interface of the running kernel --------------------------------- */

/* heap_ready -- whether heap_init succeeded: the heap is open, an epoch runs */
bool heap_ready(void)
{
	return ready;
}

/* heap_genesis -- whether genesis runs in this power-on */
bool heap_genesis(void)
{
	return genesis;
}

/* heap_phys -- the physical address of heap offset `heap_off` */
uint64_t heap_phys(uint64_t heap_off)
{
	return nvm_phys + heap_off;
}

/* heap_log -- save a range before the epoch first writes it; panic if the log is full */
void heap_log(const void *p, size_t len)
{
	int err = os_tx_log(&kheap, p, len);

	if (err)
		panic("heap: heap_log(%p, %llu bytes) from %p: %s (%llu bytes of log left)",
		      p, (unsigned long long)len, __builtin_return_address(0),
		      err_name(err), (unsigned long long)heap_log_free());
}

/* heap_damaged -- say what is damaged, stop without committing */
void heap_damaged(const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pr_err("heap: damaged: %s\n"
	       "  stopping without committing: the heap keeps epoch %llu; `objtool IMAGE check` on the host says what is wrong\n",
	       what, (unsigned long long)os_epoch(&kheap));
	halt_forever();
}

/* heap_abort -- undo the running transaction and begin the next */
void heap_abort(void)
{
	int err;

	logcheck_verify();
	err = os_tx_abort(&kheap);
	if (!err) {
		logcheck_update();
		err = os_tx_begin(&kheap);
	}
	/* Invariant: after heap_init's first os_tx_begin a transaction always runs. */
	KASSERT(err == 0);
}

/* heap_request_commit -- ask for a commit at the next safe point */
void heap_request_commit(void)
{
	commit_requested = true;
}

/* heap_commit_requested -- whether a commit was asked for since the last */
bool heap_commit_requested(void)
{
	return commit_requested;
}

/* heap_commit -- check the epoch's writes (logcheck), commit it, begin the next */
int heap_commit(void)
{
	int err;

	logcheck_verify();
	err = os_tx_commit(&kheap);
	if (err)
		return err;
	commit_requested = false;
	logcheck_update();
	return os_tx_begin(&kheap);
}

/* heap_log_free -- bytes left in the undo log for the running epoch */
uint64_t heap_log_free(void)
{
	return os_log_free(&kheap);
}
