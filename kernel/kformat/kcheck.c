/*
 * kcheck.c -- the kernel objects a power-on reads, validated before use.
 *
 * The kernel trusts its own objects once they are in memory: a process
 * table slot names a process, a process names its thread, a mapping names
 * an object it can map, a handle names a live object. A damaged or forged
 * image must never turn that trust into a fault, so before the kernel
 * reads any of them (and before it writes a byte: the heap's rollback is
 * still pending, core/heap.c) this file walks what power-on and the first
 * moments of every process will use and checks each field:
 *
 *  - every object: the id names a live object (objstore checks its
 *    header's crc) of the expected type, small, of the layout's size, with
 *    the layout's magic;
 *  - every stored id: of the expected type (a mapping's object mappable, a
 *    queue anonymous, a thread's process its own);
 *  - every enum, count and index: in range; every ring cursor: within its
 *    invariants (kformat.h);
 *  - a thread's saved user registers are not checked here: arch_frame_load
 *    makes any register file safe to enter (user CS/SS, RFLAGS reduced to
 *    the arithmetic flags plus IF with IOPL 0, RIP/RSP/FS base inside the
 *    user half, MXCSR masked), so a forged one can only fault in user mode.
 *
 * What is read later -- catalogue nodes, object pages, queued messages --
 * is checked where it is used, by objstore (-ERR_CORRUPT) or by the kernel
 * code that reads it. Problems are reported as "kernel objects: #ID (what):
 * problem", the same words in the kernel and in objtool check.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "objstore/object.h"
#include "kformat/kcheck.h"
#include "kformat/kformat.h"

#define KCHECK_MESSAGE_MAX 200

struct kcheck {
	const struct objstore *os;
	const struct kcheck_report *report;
	unsigned problems;
};

#define ULL(x) ((unsigned long long)(x))

/* problem -- report one problem (printf-style) and count it */
static __attribute__((format(printf, 2, 3))) void
problem(struct kcheck *k, const char *fmt, ...)
{
	char message[KCHECK_MESSAGE_MAX];
	int n = snprintf(message, sizeof(message), "kernel objects: ");
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message + n, sizeof(message) - (size_t)n, fmt, ap);
	va_end(ap);
	k->problems++;
	if (k->report && k->report->problem)
		k->report->problem(k->report->ctx, message);
}

/* head -- the header of object `id` of `type`; false (reported as `what`) if it is not one */
static bool head(struct kcheck *k, uint64_t id, uint16_t type, const char *what,
		 struct os_obj_info *info)
{
	int err;

	if (!id) {
		problem(k, "%s: object id is 0", what);
		return false;
	}
	err = os_obj_head(k->os, id, info);
	if (err == -ERR_CORRUPT) {
		problem(k, "%s: #%llu: its object header or id index entry is damaged",
			what, ULL(id));
		return false;
	}
	if (err) {
		problem(k, "%s: #%llu is not a live object", what, ULL(id));
		return false;
	}
	if (info->refcount == 0) {
		problem(k, "%s: #%llu has a refcount of 0", what, ULL(id));
		return false;
	}
	if (type && info->type != type) {
		problem(k, "%s: #%llu has type %s, not %s", what, ULL(id),
			os_obj_type_name(info->type), os_obj_type_name(type));
		return false;
	}
	return true;
}

/* kobj_bytes_of -- the bytes of kernel object `id`: its type, magic and
 * size checked, the size being `size` or `older` (a layout it had before) */
static const void *kobj_bytes_of(struct kcheck *k, uint64_t id, uint16_t type,
				 uint64_t size, uint64_t older, uint32_t magic,
				 const char *what)
{
	struct os_obj_info info;
	const uint32_t *bytes;

	if (!head(k, id, type, what, &info))
		return NULL;
	if (info.placement != OS_PLACE_SMALL || (info.size != size && info.size != older)) {
		problem(k, "%s: #%llu has %llu bytes, its layout %llu", what, ULL(id),
			ULL(info.size), ULL(size));
		return NULL;
	}
	bytes = os_obj_data(k->os, id);
	if (!bytes || bytes[0] != magic) {
		problem(k, "%s: #%llu has magic %#x, not %#x", what, ULL(id),
			bytes ? bytes[0] : 0, magic);
		return NULL;
	}
	return bytes;
}

/* kobj_bytes -- the bytes of kernel object `id`: its type, size and magic checked */
static const void *kobj_bytes(struct kcheck *k, uint64_t id, uint16_t type,
			      uint64_t size, uint32_t magic, const char *what)
{
	return kobj_bytes_of(k, id, type, size, size, magic, what);
}

/* kproc_bytes -- a process object: its layout now, or the one before kproc.linux_state */
static const struct kproc *kproc_bytes(struct kcheck *k, uint64_t id, const char *what)
{
	return kobj_bytes_of(k, id, OS_TYPE_PROCESS, sizeof(struct kproc),
			     KPROC_SIZE_BEFORE_LINUX, KPROC_MAGIC, what);
}

/* anon -- whether `id` is an anonymous object of `size` bytes, every page made if `full` */
static bool anon(struct kcheck *k, uint64_t id, uint64_t size, bool full,
		 const char *what)
{
	struct os_obj_info info;
	int err;

	if (!head(k, id, OS_TYPE_ANON, what, &info))
		return false;
	if (info.size != size) {
		problem(k, "%s: #%llu has %llu bytes, not %llu", what, ULL(id),
			ULL(info.size), ULL(size));
		return false;
	}
	if (!full)
		return true;
	err = os_obj_stat(k->os, id, &info); /* counts its pages: a few */
	if (err || info.pages != size / OS_PAGE_SIZE) {
		problem(k, "%s: #%llu lacks some of its %llu pages", what, ULL(id),
			ULL(size / OS_PAGE_SIZE));
		return false;
	}
	return true;
}

/* check_channel -- a channel a handle (or the reap queue) names */
static void check_channel(struct kcheck *k, uint64_t id, const char *what)
{
	const struct kchannel *c = kobj_bytes(k, id, OS_TYPE_CHANNEL, sizeof(*c),
					KCHANNEL_MAGIC, what);

	if (!c)
		return;
	for (int e = 0; e < 2; e++) {
		const struct kchan_queue *q = &c->queue[e];

		if (q->head >= FE_CHAN_QUEUE || q->count > FE_CHAN_QUEUE)
			problem(k, "channel #%llu: queue %d: head %u or count %u beyond %u slots",
				ULL(id), e, q->head, q->count, FE_CHAN_QUEUE);
		else if (!q->object && q->count)
			problem(k, "channel #%llu: queue %d holds %u messages but has no queue object",
				ULL(id), e, q->count);
		else if (q->object)
			anon(k, q->object, (uint64_t)FE_CHAN_QUEUE * FE_PAGE_SIZE, false,
			     e ? "channel queue 1" : "channel queue 0");
	}
}

/* check_link -- the host link's capability object and its service's program */
static void check_link(struct kcheck *k, uint64_t id)
{
	const struct klink *l = kobj_bytes(k, id, OS_TYPE_KERNEL, sizeof(*l),
					   KLINK_MAGIC, "host link (app root 3)");
	struct os_obj_info info;

	if (!l)
		return;
	if (l->version != KLINK_VERSION)
		problem(k, "host link #%llu: version %u; this kernel knows version %u",
			ULL(id), l->version, KLINK_VERSION);
	else if (l->service)
		(void)head(k, l->service, OS_TYPE_CODE, "host link's service", &info);
}

/* check_handles -- a process's handle table; every handle names a live object */
static void check_handles(struct kcheck *k, uint64_t id, uint64_t pid,
			  const char *owner)
{
	const struct khandles *t = kobj_bytes(k, id, OS_TYPE_HANDLES, sizeof(*t),
					      KHANDLES_MAGIC, owner);
	struct os_obj_info info;
	unsigned used = 0;
	char what[96];

	if (!t)
		return;
	for (unsigned i = 0; i < FE_HANDLE_SLOTS; i++) {
		const struct khandle *h = &t->slot[i];

		if (h->gen > KHANDLE_GEN_MAX || (h->object && h->gen == 0))
			problem(k, "handle table #%llu (pid %llu): slot %u: generation %u out of range",
				ULL(id), ULL(pid), i, h->gen);
		if (!h->object)
			continue;
		used++;
		if (h->rights & ~FE_RIGHTS_ALL || h->end > 1 || h->reserved) {
			problem(k, "handle table #%llu (pid %llu): slot %u: rights %#x or end %u out of range",
				ULL(id), ULL(pid), i, h->rights, h->end);
			continue;
		}
		snprintf(what, sizeof(what), "handle table #%llu (pid %llu): slot %u",
			 ULL(id), ULL(pid), i);
		if (!head(k, h->object, 0, what, &info))
			continue;
		if (info.type == OS_TYPE_CHANNEL)
			check_channel(k, h->object, what);
		else if (info.type == OS_TYPE_PROCESS)
			(void)kproc_bytes(k, h->object, what);
		/* Invariant: the only kernel object a handle names is the link. */
		else if (info.type == OS_TYPE_KERNEL &&
			 h->object != os_app_root(k->os, OS_APP_ROOT_LINK))
			problem(k, "%s: names kernel object #%llu, which is not the host link's",
				what, ULL(h->object));
	}
	if (t->console_sink && (t->console_sink > INT32_MAX ||
				(t->console_sink & 0xff) >= FE_HANDLE_SLOTS))
		problem(k, "handle table #%llu (pid %llu): console sink %#llx is not a handle value",
			ULL(id), ULL(pid), ULL(t->console_sink));
	if (used != t->count)
		problem(k, "handle table #%llu (pid %llu): count %u, but %u slots in use",
			ULL(id), ULL(pid), t->count, used);
}

/* mappable -- whether objects of `type` may be mapped */
static bool mappable(uint16_t type)
{
	return type == OS_TYPE_BLOB || type == OS_TYPE_CODE || type == OS_TYPE_ANON;
}

/* mapping_problem -- what is wrong with mapping m (after `prev_end`), NULL if nothing */
static const char *mapping_problem(const struct kmapping *m, uint64_t prev_end)
{
	if (m->start % FE_PAGE_SIZE || m->end % FE_PAGE_SIZE || m->offset % FE_PAGE_SIZE)
		return "not page aligned";
	if (m->start < FE_USER_BASE || m->end > FE_USER_TOP || m->start >= m->end)
		return "outside the user half, or empty";
	if (m->start < prev_end)
		return "overlaps or precedes the mapping before it";
	if (m->offset + (m->end - m->start) < m->offset)
		return "object offset wraps around";
	if (m->prot & ~FE_PROT_MASK || m->maxprot & ~FE_PROT_MASK ||
	    m->prot & ~m->maxprot)
		return "protection out of range";
	if (m->flags != FE_MAP_SHARED && m->flags != FE_MAP_PRIVATE &&
	    m->flags != (FE_MAP_SHARED | KMAPPING_INHERIT))
		return "neither shared nor private";
	if (m->flags == FE_MAP_SHARED && m->shadow)
		return "a shared mapping with a private shadow";
	return NULL;
}

/* check_source -- what private mapping `what` shows below its copies: a
 * mappable object, or a chain of frozen layers (kformat.h, struct
 * klayer) ending in one or in nothing, no deeper than KLAYER_DEPTH_MAX */
static void check_source(struct kcheck *k, uint64_t id, const char *what)
{
	struct os_obj_info info;

	for (unsigned depth = 0; id; depth++) {
		const struct klayer *l;

		if (!head(k, id, 0, what, &info))
			return;
		if (info.type != OS_TYPE_KERNEL) {
			if (!mappable(info.type))
				problem(k, "%s: shows #%llu, of type %s, which cannot be mapped",
					what, ULL(id), os_obj_type_name(info.type));
			return;
		}
		if (depth == KLAYER_DEPTH_MAX) {
			problem(k, "%s: layers deeper than %u", what, KLAYER_DEPTH_MAX);
			return;
		}
		l = kobj_bytes(k, id, OS_TYPE_KERNEL, sizeof(*l), KLAYER_MAGIC, what);
		if (!l)
			return;
		if (l->pages)
			(void)head(k, l->pages, OS_TYPE_ANON, what, &info);
		id = l->below;
	}
}

/* check_more -- an address space's `more` (kformat.h): an anonymous
 * object its address space alone holds, of at most KASPACE_MORE_PAGES
 * pages, with each page that holds one of its `count` mappings; those
 * pages' addresses in page[]. false (reported) if it is not so. */
static bool check_more(struct kcheck *k, const struct kaspace *as, uint64_t id,
		       uint64_t pid, const struct kmapping *page[KASPACE_MORE_PAGES])
{
	unsigned past = as->count > KASPACE_INLINE_MAPS ? as->count - KASPACE_INLINE_MAPS : 0;
	unsigned need = (past + KASPACE_MORE_PER_PAGE - 1) / KASPACE_MORE_PER_PAGE;
	struct os_obj_info info;
	uint64_t off, held;
	char what[96];

	snprintf(what, sizeof(what), "address space #%llu (pid %llu): its more mappings",
		 ULL(id), ULL(pid));
	if (!as->more) {
		if (past)
			problem(k, "%s: %u mappings, but no object for those past %u",
				what, as->count, KASPACE_INLINE_MAPS);
		return !past;
	}
	if (!head(k, as->more, OS_TYPE_ANON, what, &info))
		return false;
	if (info.refcount != 1 || info.size % OS_PAGE_SIZE ||
	    info.size > (uint64_t)KASPACE_MORE_PAGES * OS_PAGE_SIZE ||
	    info.size < (uint64_t)need * OS_PAGE_SIZE) {
		problem(k, "%s: #%llu has %llu bytes and %u references; %u mappings need %u whole pages (at most %u) and one reference",
			what, ULL(as->more), ULL(info.size), info.refcount, as->count,
			need, KASPACE_MORE_PAGES);
		return false;
	}
	for (unsigned p = 0; p < need; p++) {
		if (os_obj_page_held(k->os, as->more, p, &off, &held) || !off) {
			problem(k, "%s: #%llu lacks its page %u", what, ULL(as->more), p);
			return false;
		}
		page[p] = os_ptr(k->os, off);
	}
	return true;
}

/* check_aspace -- an address space: sorted, disjoint mappings of mappable objects */
static void check_aspace(struct kcheck *k, uint64_t id, uint64_t pid,
			 const char *owner)
{
	const struct kaspace *as = kobj_bytes(k, id, OS_TYPE_ASPACE, sizeof(*as),
					      KASPACE_MAGIC, owner);
	const struct kmapping *page[KASPACE_MORE_PAGES];
	struct os_obj_info info;
	uint64_t prev_end = 0;
	char what[96];

	if (!as)
		return;
	if (as->count > KASPACE_MAX_MAPS) {
		problem(k, "address space #%llu (pid %llu): %u mappings, at most %u",
			ULL(id), ULL(pid), as->count, KASPACE_MAX_MAPS);
		return;
	}
	if (!check_more(k, as, id, pid, page))
		return;
	for (unsigned i = 0; i < as->count; i++) {
		unsigned past = i - KASPACE_INLINE_MAPS;
		const struct kmapping *m = i < KASPACE_INLINE_MAPS ? &as->map[i] :
			&page[past / KASPACE_MORE_PER_PAGE][past % KASPACE_MORE_PER_PAGE];
		const char *why = mapping_problem(m, prev_end);

		prev_end = m->end;
		if (why) {
			problem(k, "address space #%llu (pid %llu): mapping %u [%#llx, %#llx): %s",
				ULL(id), ULL(pid), i, ULL(m->start), ULL(m->end), why);
			continue;
		}
		snprintf(what, sizeof(what), "address space #%llu (pid %llu): mapping %u",
			 ULL(id), ULL(pid), i);
		if (m->flags & FE_MAP_PRIVATE)
			check_source(k, m->object, what);
		else if (head(k, m->object, 0, what, &info) && !mappable(info.type))
			problem(k, "%s: shows #%llu, of type %s, which cannot be mapped",
				what, ULL(m->object), os_obj_type_name(info.type));
		if (m->shadow)
			(void)head(k, m->shadow, OS_TYPE_ANON, what, &info);
	}
}

/* check_thread -- a thread: its process, number, state and wait; its
 * next thread's id, 0 if it is unreadable */
static uint64_t check_thread(struct kcheck *k, uint64_t id, uint64_t proc_id,
			     uint64_t pid, const char *owner, uint32_t *tids,
			     unsigned *alive, bool *unreadable)
{
	const struct kthread *t = kobj_bytes(k, id, OS_TYPE_THREAD, sizeof(*t),
					     KTHREAD_MAGIC, owner);

	if (!t) {
		*unreadable = true;
		return 0;
	}
	if (t->proc != proc_id)
		problem(k, "thread #%llu (pid %llu): belongs to #%llu, not its process #%llu",
			ULL(id), ULL(pid), ULL(t->proc), ULL(proc_id));
	if (t->tid >= KPROC_MAX_THREADS)
		problem(k, "thread #%llu (pid %llu): tid %u out of range",
			ULL(id), ULL(pid), t->tid);
	else if (*tids & (1u << t->tid))
		problem(k, "thread #%llu (pid %llu): tid %u is another thread's too",
			ULL(id), ULL(pid), t->tid);
	else
		*tids |= 1u << t->tid;
	if (t->state != KTHREAD_RUNNABLE && t->state != KTHREAD_BLOCKED &&
	    t->state != KTHREAD_EXITED)
		problem(k, "thread #%llu (pid %llu): state %u out of range",
			ULL(id), ULL(pid), t->state);
	else if (t->state == KTHREAD_BLOCKED &&
		 (t->wait == KWAIT_NONE || t->wait > KWAIT_LAST))
		problem(k, "thread #%llu (pid %llu): blocked on wait kind %u, out of range",
			ULL(id), ULL(pid), t->wait);
	*alive += t->state != KTHREAD_EXITED;
	return t->next;
}

/* check_threads -- a process's thread list: at most KPROC_MAX_THREADS
 * threads, each well formed, distinct tids, one of them not exited */
static void check_threads(struct kcheck *k, const struct kproc *p, uint64_t id)
{
	_Static_assert(KPROC_MAX_THREADS <= 32, "tids fit a 32-bit set");
	uint64_t thread = p->thread;
	bool unreadable = false;
	uint32_t tids = 0;
	unsigned n, alive = 0;
	char what[80];

	for (n = 0; thread && n < KPROC_MAX_THREADS; n++) {
		snprintf(what, sizeof(what), "process #%llu (pid %llu): thread %u",
			 ULL(id), ULL(p->pid), n);
		thread = check_thread(k, thread, id, p->pid, what, &tids, &alive,
				      &unreadable);
	}
	if (thread)
		problem(k, "process #%llu (pid %llu): more than %u threads, or a loop",
			ULL(id), ULL(p->pid), KPROC_MAX_THREADS);
	else if (!alive && !unreadable)
		problem(k, "process #%llu (pid %llu): no thread that has not exited",
			ULL(id), ULL(p->pid));
}

/* path_ok -- whether a klinux path is NUL-terminated, and empty or ending in '/' */
static bool path_ok(const char *path)
{
	const char *end = memchr(path, 0, KLINUX_PATH_MAX);

	return end && (end == path || end[-1] == '/');
}

/* The ends of pipes the live programs' descriptors name, and how many
 * name each (a pipe outlives the fork that shares it, so its counts are
 * every program's). Static: far too big for a kernel stack, and a check
 * runs one at a time. */
struct pipe_tally {
	unsigned count;
	struct {
		uint64_t pipe;
		uint32_t ends[2];      /* descriptors naming its read end, its write end */
	} pipe[KROOT_MAX_PROCS * KLINUX_FDS];
};
static struct pipe_tally pipes;

/* tally_end -- one more descriptor names an end of pipe `pipe` */
static void tally_end(struct pipe_tally *t, uint64_t pipe, bool write)
{
	unsigned i = 0;

	while (i < t->count && t->pipe[i].pipe != pipe)
		i++;
	if (i == t->count) { /* a new one: there are fewer pipes than descriptors */
		t->count++;
		t->pipe[i].pipe = pipe;
		t->pipe[i].ends[0] = t->pipe[i].ends[1] = 0;
	}
	t->pipe[i].ends[write]++;
}

/* check_lxpipe -- a pipe an end of a pipe holds */
static bool check_lxpipe(struct kcheck *k, uint64_t id, const char *owner)
{
	const struct klxpipe *p = kobj_bytes(k, id, OS_TYPE_KERNEL, sizeof(*p),
					     KLXPIPE_MAGIC, owner);

	if (!p)
		return false;
	if (p->reserved || p->read > p->written || p->written - p->read > KLXPIPE_BYTES) {
		problem(k, "%s: pipe #%llu: %llu bytes read of %llu written, in a ring of %u",
			owner, ULL(id), ULL(p->read), ULL(p->written), KLXPIPE_BYTES);
		return false;
	}
	return anon(k, p->ring, KLXPIPE_BYTES, false, "pipe's ring");
}

/* check_pipe_counts -- each pipe's counts of descriptors naming its ends
 * are those of the programs that name them */
static void check_pipe_counts(struct kcheck *k, const struct pipe_tally *t)
{
	for (unsigned i = 0; i < t->count; i++) {
		const struct klxpipe *p = os_obj_data(k->os, t->pipe[i].pipe);

		if (p->readers != t->pipe[i].ends[0] || p->writers != t->pipe[i].ends[1])
			problem(k, "pipe #%llu counts %u readers and %u writers; %u and %u descriptors name its ends",
				ULL(t->pipe[i].pipe), p->readers, p->writers,
				t->pipe[i].ends[0], t->pipe[i].ends[1]);
	}
}

/* check_lxfile -- an open file of a Linux program; an end of a pipe is
 * tallied in t */
static void check_lxfile(struct kcheck *k, uint64_t id, const char *owner,
			 struct pipe_tally *t)
{
	const struct klxfile *f = kobj_bytes(k, id, OS_TYPE_KERNEL, sizeof(*f),
					     KLXFILE_MAGIC, owner);
	struct os_obj_info info;
	bool write;

	if (!f)
		return;
	if (f->kind < KLXFILE_CONSOLE || f->kind > KLXFILE_KIND_LAST ||
	    f->flock > KLXFILE_FLOCK_EXCLUSIVE || (f->flock && f->kind != KLXFILE_OBJECT) ||
	    f->reserved2 || !path_ok(f->path) || !memchr(f->cursor, 0, sizeof(f->cursor)))
		problem(k, "%s: open file #%llu: kind %u, flock %u, reserved fields or paths out of range",
			owner, ULL(id), f->kind, f->flock);
	else if (f->kind == KLXFILE_OBJECT) {
		if (head(k, f->object, 0, owner, &info) &&
		    info.type != OS_TYPE_BLOB && info.type != OS_TYPE_CODE)
			problem(k, "%s: open file #%llu shows #%llu, of type %s, not a file",
				owner, ULL(id), ULL(f->object), os_obj_type_name(info.type));
	} else if (f->kind == KLXFILE_PIPE_READ || f->kind == KLXFILE_PIPE_WRITE) {
		write = f->kind == KLXFILE_PIPE_WRITE;
		if ((f->flags & KLXFILE_ACCMODE) != (write ? KLXFILE_WRONLY : KLXFILE_RDONLY))
			problem(k, "%s: open file #%llu: an end of a pipe opened with flags %#x",
				owner, ULL(id), f->flags);
		else if (check_lxpipe(k, f->object, owner))
			tally_end(t, f->object, write);
	} else if (f->object) {
		problem(k, "%s: open file #%llu of kind %u holds object #%llu",
			owner, ULL(id), f->kind, ULL(f->object));
	}
}

/* check_lxsig -- a Linux program's signal dispositions */
static void check_lxsig(struct kcheck *k, uint64_t id, const char *owner)
{
	const struct klxsig *a = kobj_bytes(k, id, OS_TYPE_KERNEL, sizeof(*a),
					    KLXSIG_MAGIC, owner);

	if (!a)
		return;
	for (unsigned i = 0; i < KLINUX_SIGNALS; i++) {
		const uint64_t bit = 1ull << i;

		if ((a->handler[i] > KLXSIG_SIG_IGN && a->handler[i] >= FE_USER_TOP) ||
		    a->restorer[i] >= FE_USER_TOP || a->mask[i] & KLINUX_SIG_UNBLOCKABLE ||
		    a->flags[i] & ~KLXSIG_FLAGS || a->reserved ||
		    (bit & KLINUX_SIG_UNBLOCKABLE && (a->handler[i] || a->flags[i])))
			problem(k, "%s: dispositions #%llu: signal %u out of range (handler %#llx, flags %#x)",
				owner, ULL(id), i + 1, ULL(a->handler[i]), a->flags[i]);
	}
}

/* check_linux_signals -- the signal state of a Linux program's klinux */
static void check_linux_signals(struct kcheck *k, const struct klinux *lx, const char *what)
{
	if ((lx->sig_mask | lx->sig_suspend_mask) & KLINUX_SIG_UNBLOCKABLE ||
	    (lx->sig_sent | lx->sig_tsent) & ~lx->sig_pending || lx->sig_sent & lx->sig_tsent ||
	    lx->sig_flags & ~KLINUX_SIG_FLAGS)
		problem(k, "%s: signal sets out of range (pending %#llx, sent %#llx, mask %#llx, flags %#x)",
			what, ULL(lx->sig_pending), ULL(lx->sig_sent), ULL(lx->sig_mask),
			lx->sig_flags);
	if ((lx->altstack_size || lx->altstack_sp) &&
	    (lx->altstack_sp >= FE_USER_TOP || lx->altstack_size > FE_USER_TOP - lx->altstack_sp))
		problem(k, "%s: alternate signal stack [%#llx, +%#llx) out of range", what,
			ULL(lx->altstack_sp), ULL(lx->altstack_size));
	if (!lx->alarm_ns && lx->alarm_interval_ns)
		problem(k, "%s: an interval timer with an interval and no expiry", what);
	check_lxsig(k, lx->signals, what);
}

/* check_lxthreads -- the Linux state of a Linux program's threads */
static void check_lxthreads(struct kcheck *k, uint64_t id, const char *owner)
{
	const struct klxthreads *t = kobj_bytes(k, id, OS_TYPE_KERNEL, sizeof(*t),
						KLXTHREADS_MAGIC, owner);

	if (!t)
		return;
	if (t->suspended & 1u || t->clear_child_tid[0] || t->sig_mask[0] ||
	    t->sig_suspend_mask[0] || t->altstack_sp[0] || t->altstack_size[0])
		problem(k, "%s: threads #%llu: the first thread's entries are not 0 (klinux keeps them)",
			owner, ULL(id));
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++) {
		const uint64_t sp = t->altstack_sp[tid], size = t->altstack_size[tid];

		if (t->clear_child_tid[tid] >= FE_USER_TOP ||
		    (t->sig_mask[tid] | t->sig_suspend_mask[tid]) & KLINUX_SIG_UNBLOCKABLE ||
		    t->sig_tsent[tid] & ~t->sig_pending[tid] ||
		    ((sp || size) && (sp >= FE_USER_TOP || size > FE_USER_TOP - sp)))
			problem(k, "%s: threads #%llu: thread %u clears %#llx, mask %#llx, "
				"pending %#llx (tgkill %#llx), alternate stack [%#llx, +%#llx): out of range",
				owner, ULL(id), tid, ULL(t->clear_child_tid[tid]), ULL(t->sig_mask[tid]),
				ULL(t->sig_pending[tid]), ULL(t->sig_tsent[tid]), ULL(sp), ULL(size));
	}
}

/* shown_by_a_descriptor -- whether one of lx's descriptors shows object `object` */
static bool shown_by_a_descriptor(struct kcheck *k, const struct klinux *lx, uint64_t object)
{
	for (unsigned fd = 0; fd < KLINUX_FDS; fd++) {
		const struct klxfile *f = lx->fd[fd].file ?
			kobj_bytes(k, lx->fd[fd].file, OS_TYPE_KERNEL, sizeof(*f), KLXFILE_MAGIC,
				   "a descriptor") : NULL;

		if (f && f->kind == KLXFILE_OBJECT && f->object == object)
			return true;
	}
	return false;
}

/* check_lxlocks -- the record locks a Linux program holds */
static void check_lxlocks(struct kcheck *k, uint64_t id, const struct klinux *lx,
			  const char *owner)
{
	const struct klxlocks *l = kobj_bytes(k, id, OS_TYPE_KERNEL, sizeof(*l),
					      KLXLOCKS_MAGIC, owner);
	static const struct klxlock zero;

	if (!l)
		return;
	if (l->count > KLXLOCKS_MAX) {
		problem(k, "%s: locks #%llu: %u in use, of %u", owner, ULL(id), l->count,
			KLXLOCKS_MAX);
		return;
	}
	for (unsigned i = 0; i < KLXLOCKS_MAX; i++) {
		const struct klxlock *a = &l->lock[i];

		if (i >= l->count) {
			if (memcmp(a, &zero, sizeof(zero)))
				problem(k, "%s: locks #%llu: entry %u past the count is not zero",
					owner, ULL(id), i);
			continue;
		}
		if (a->start >= a->end || (a->type != KLXLOCK_READ && a->type != KLXLOCK_WRITE) ||
		    a->reserved || !shown_by_a_descriptor(k, lx, a->object))
			problem(k, "%s: locks #%llu: entry %u (object #%llu, [%llu, %llu), type %u) "
				"out of range or of an object no descriptor shows", owner, ULL(id), i,
				ULL(a->object), ULL(a->start), ULL(a->end), a->type);
		for (unsigned j = 0; j < i; j++)
			if (l->lock[j].object == a->object && l->lock[j].start < a->end &&
			    a->start < l->lock[j].end)
				problem(k, "%s: locks #%llu: entries %u and %u overlap", owner,
					ULL(id), j, i);
	}
}

/* check_linux -- a Linux program's state (kformat.h lists the invariants) */
static void check_linux(struct kcheck *k, uint64_t id, uint64_t pid)
{
	const struct klinux *lx;
	struct os_obj_info info;
	char what[96];

	snprintf(what, sizeof(what), "Linux state #%llu (pid %llu)", ULL(id), ULL(pid));
	lx = kobj_bytes_of(k, id, OS_TYPE_KERNEL, sizeof(*lx), KLINUX_SIZE_BEFORE_THREADS,
			   KLINUX_MAGIC, what);
	if (!lx)
		return;
	if (os_obj_stat(k->os, id, &info) ||
	    info.size != (lx->version == 1 ? KLINUX_SIZE_BEFORE_THREADS : sizeof(*lx))) {
		problem(k, "%s: version %u in %llu bytes", what, lx->version, ULL(info.size));
		return;
	}
	if (lx->version != KLINUX_VERSION && lx->version != 1) {
		problem(k, "%s: version %u; this kernel knows version %u", what,
			lx->version, KLINUX_VERSION);
		return;
	}
	if (lx->brk_start % FE_PAGE_SIZE || lx->brk_start < FE_USER_BASE ||
	    lx->brk < lx->brk_start || lx->brk - lx->brk_start > KLINUX_BRK_MAX ||
	    lx->brk >= FE_USER_TOP)
		problem(k, "%s: break [%#llx, %#llx) out of range", what,
			ULL(lx->brk_start), ULL(lx->brk));
	if (lx->brk_object)
		(void)head(k, lx->brk_object, OS_TYPE_ANON, what, &info);
	if (!path_ok(lx->root) || !path_ok(lx->cwd))
		problem(k, "%s: root or current directory malformed", what);
	for (unsigned fd = 0; fd < KLINUX_FDS; fd++) {
		const struct klinux_fd *d = &lx->fd[fd];

		if (d->flags & ~KLINUX_FD_FLAGS || d->reserved || (!d->file && d->flags))
			problem(k, "%s: descriptor %u: flags %#x out of range", what, fd, d->flags);
		if (d->file) {
			char fdwhat[128];

			snprintf(fdwhat, sizeof(fdwhat), "%s: descriptor %u", what, fd);
			check_lxfile(k, d->file, fdwhat, &pipes);
		}
	}
	check_linux_signals(k, lx, what);
	if (lx->version >= 2 && lx->threads)
		check_lxthreads(k, lx->threads, what);
	if (lx->version >= 2 && lx->locks)
		check_lxlocks(k, lx->locks, lx, what);
}

/* check_process -- a live process in table slot `slot`, and what it holds */
static void check_process(struct kcheck *k, const struct kroot *r,
			  unsigned slot, uint64_t id)
{
	struct os_obj_info info;
	char what[80];
	const struct kproc *p;

	snprintf(what, sizeof(what), "process table slot %u", slot);
	p = kproc_bytes(k, id, what);
	if (!p)
		return;
	if (p->state != KPROC_ALIVE || p->slot != slot) {
		problem(k, "process #%llu: state %u, slot %u; the table has it alive in slot %u",
			ULL(id), p->state, p->slot, slot);
		return;
	}
	if (p->pid == 0 || p->pid >= r->next_pid || p->parent_pid >= p->pid)
		problem(k, "process #%llu: pid %llu or parent %llu out of range (next pid %llu)",
			ULL(id), ULL(p->pid), ULL(p->parent_pid), ULL(r->next_pid));
	if (!memchr(p->name, 0, sizeof(p->name)))
		problem(k, "process #%llu (pid %llu): name is not terminated",
			ULL(id), ULL(p->pid));
	if (p->flags & ~KPROC_FLAGS_ALL)
		problem(k, "process #%llu (pid %llu): flags %#x out of range",
			ULL(id), ULL(p->pid), p->flags);
	if ((p->flags & (KPROC_TRACE | KPROC_STOPPED | KPROC_VFORK)) && !(p->flags & KPROC_LINUX))
		problem(k, "process #%llu (pid %llu): traced, stopped or vforked, yet not a Linux program (flags %#x)",
			ULL(id), ULL(p->pid), p->flags);
	check_threads(k, p, id);
	snprintf(what, sizeof(what), "process #%llu (pid %llu): address space", ULL(id), ULL(p->pid));
	check_aspace(k, p->aspace, p->pid, what);
	snprintf(what, sizeof(what), "process #%llu (pid %llu): handle table", ULL(id), ULL(p->pid));
	check_handles(k, p->handles, p->pid, what);
	snprintf(what, sizeof(what), "process #%llu (pid %llu): code", ULL(id), ULL(p->pid));
	(void)head(k, p->code, OS_TYPE_CODE, what, &info);
	if (!(p->flags & KPROC_LINUX))
		return;
	/* only a process of the layout with linux_state has the flag */
	if (os_obj_stat(k->os, id, &info) || info.size != sizeof(*p)) {
		problem(k, "process #%llu (pid %llu): a Linux program in a process of the older layout",
			ULL(id), ULL(p->pid));
		return;
	}
	check_linux(k, p->linux_state, p->pid);
}

/* check_console -- the console object and its two rings */
static void check_console(struct kcheck *k, uint64_t id)
{
	const struct kconsole *c = kobj_bytes(k, id, OS_TYPE_KERNEL, sizeof(*c),
					KCONSOLE_MAGIC, "console");

	if (!c)
		return;
	anon(k, c->out_ring, KCONSOLE_OUT_BYTES, true, "console output ring");
	anon(k, c->in_ring, KCONSOLE_IN_BYTES, true, "console input ring");
	if (c->out_sent > c->out_queued ||
	    c->out_queued - c->out_sent > KCONSOLE_OUT_BYTES ||
	    c->in_read > c->in_queued ||
	    c->in_queued - c->in_read > KCONSOLE_IN_BYTES)
		problem(k, "console #%llu: cursors out of order (output %llu sent of %llu, input %llu read of %llu)",
			ULL(id), ULL(c->out_sent), ULL(c->out_queued),
			ULL(c->in_read), ULL(c->in_queued));
}

/* check_reap_queue -- the queue and every object waiting in it */
static void check_reap_queue(struct kcheck *k, const struct kroot *r)
{
	struct os_obj_info info;

	if (!anon(k, r->reap_queue, KREAP_CAPACITY * 8ull, false, "reap queue"))
		return;
	if (r->reap_head >= KREAP_CAPACITY || r->reap_count > KREAP_CAPACITY) {
		problem(k, "kernel root: reap queue head %llu or count %llu beyond %u",
			ULL(r->reap_head), ULL(r->reap_count), KREAP_CAPACITY);
		return;
	}
	for (uint64_t i = 0; i < r->reap_count; i++) {
		uint64_t id = 0;

		if (os_obj_read(k->os, r->reap_queue,
				(r->reap_head + i) % KREAP_CAPACITY * 8, &id, 8) != 8) {
			problem(k, "reap queue #%llu: entry %llu is unreadable",
				ULL(r->reap_queue), ULL(i));
			return;
		}
		if (head(k, id, 0, "reap queue entry", &info) &&
		    info.type == OS_TYPE_CHANNEL)
			check_channel(k, id, "reap queue's channel");
	}
}

/* kcheck_image -- check the kernel objects of `os`; the problems found */
/* kcheck_output_cursor -- the console's durable output cursor and how far
 * output was queued, when the kernel root and the console are sound
 * enough to say (their sizes and magics); NULL otherwise */
uint64_t *kcheck_output_cursor(const struct objstore *os, uint64_t *queued)
{
	struct kcheck_report quiet = { .problem = NULL };
	struct kcheck k = { .os = os, .report = &quiet };
	uint64_t id = os_app_root(os, OS_APP_ROOT_KERNEL);
	const struct kroot *r;
	const struct kconsole *c;

	r = id ? kobj_bytes(&k, id, OS_TYPE_KERNEL, sizeof(*r), KROOT_MAGIC, "kernel root") : NULL;
	c = r && r->console ? kobj_bytes(&k, r->console, OS_TYPE_KERNEL, sizeof(*c),
					 KCONSOLE_MAGIC, "console") : NULL;
	if (!c)
		return NULL;
	*queued = c->out_queued;
	return (uint64_t *)&c->out_sent;
}

unsigned kcheck_image(const struct objstore *os, const struct kcheck_report *report)
{
	struct kcheck k = { .os = os, .report = report };
	uint64_t id = os_app_root(os, OS_APP_ROOT_KERNEL);
	const struct kroot *r;

	if (!id)
		return 0; /* genesis is not finished: nothing to check */
	r = kobj_bytes(&k, id, OS_TYPE_KERNEL, sizeof(*r), KROOT_MAGIC, "kernel root (app root 0)");
	if (!r)
		return k.problems;
	if (r->version != KROOT_VERSION) {
		problem(&k, "kernel root #%llu: version %u; this kernel knows version %u",
			ULL(id), r->version, KROOT_VERSION);
		return k.problems;
	}
	if (r->line_len > KCONSOLE_LINE_MAX || r->line_ready > KCONSOLE_LINE_EOF ||
	    r->running_slot >= KROOT_MAX_PROCS)
		problem(&k, "kernel root #%llu: line length %u, line ready %u or running slot %u out of range",
			ULL(id), r->line_len, r->line_ready, r->running_slot);
	if (r->console)
		check_console(&k, r->console);
	check_reap_queue(&k, r);
	id = os_app_root(os, OS_APP_ROOT_RESERVE);
	if (id)
		anon(&k, id, KRESERVE_PAGES * (uint64_t)FE_PAGE_SIZE, false,
		     "rescue reserve (app root 2)");
	id = os_app_root(os, OS_APP_ROOT_LINK);
	if (id)
		check_link(&k, id);
	pipes.count = 0;
	for (unsigned slot = 0; slot < KROOT_MAX_PROCS; slot++)
		if (r->procs[slot])
			check_process(&k, r, slot, r->procs[slot]);
	check_pipe_counts(&k, &pipes);
	return k.problems;
}
