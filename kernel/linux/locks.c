/*
 * locks.c -- locks between Linux programs: POSIX record locks (fcntl
 * F_GETLK, F_SETLK, F_SETLKW) and whole-file locks (flock), on catalogue
 * objects.
 *
 * A record lock is a range of an object's bytes, shared (F_RDLCK) or
 * exclusive (F_WRLCK), held by a process: its klxlocks (kformat.h), made
 * by its first lock. Another program's lock is in the way of a new one
 * when their ranges meet and either is exclusive; a program's own locks
 * never are -- a new lock takes the place of what it held of its range,
 * and F_UNLCK cuts, splits or removes them. Closing any descriptor of an
 * object drops every record lock the program holds on it, as POSIX says
 * (lx_locks_closed), and so does the program's end, whose descriptors are
 * all closed then.
 *
 * A flock belongs to an open file (klxfile.flock): shared or exclusive,
 * in the way of another open file's flock on the same object when either
 * is exclusive, gone with the open file's last descriptor. The two kinds
 * never meet, as on Linux.
 *
 * Who holds what is found by looking: the live Linux programs in the
 * process table, their locks and their descriptors' open files. A lock
 * that must wait (F_SETLKW, flock without LOCK_NB) blocks on the object
 * (KWAIT_LOCK) and is asked again when any lock on it goes; a signal cuts
 * the wait short (and SA_RESTART asks again after its handler), as on
 * Linux. All of it is heap state: after a power cut a held lock is still
 * held, and a waiting program still waits for it.
 *
 * Not here: deadlock detection (EDEADLK: two programs waiting for each
 * other wait until one is ended), locks on anything but catalogue
 * objects (EINVAL), open file description locks (F_OFD_*).
 */
#include <stdint.h>

#include "core/heap.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "objstore/object.h"
#include "task/proc.h"
#include "task/ptable.h"
#include "task/sched.h"
#include "uvm/uvm.h"

/* locks_of -- lx's record locks, NULL if it has none */
static struct klxlocks *locks_of(const struct klinux *lx)
{
	if (lx->version < 2 || !lx->locks)
		return NULL;
	return kobj_data(lx->locks, OS_TYPE_KERNEL, KLXLOCKS_MAGIC);
}

/* record_in_the_way -- a record lock another program holds on `object`
 * that a lock of `type` on [start, end) would meet; its pid in *pid */
static const struct klxlock *record_in_the_way(const struct pctx *self, uint64_t object,
					       uint64_t start, uint64_t end, uint32_t type,
					       uint64_t *pid)
{
	for (unsigned slot = 0; slot < KROOT_MAX_PROCS; slot++) {
		const struct pctx *q = ptable_slot(slot);
		const struct klxlocks *l = q && q != self && q->lx ? locks_of(q->lx) : NULL;

		for (unsigned i = 0; l && i < l->count; i++) {
			const struct klxlock *k = &l->lock[i];

			if (k->object == object && k->start < end && start < k->end &&
			    (type == KLXLOCK_WRITE || k->type == KLXLOCK_WRITE)) {
				*pid = q->proc->pid;
				return k;
			}
		}
	}
	return NULL;
}

/* flock_in_the_way -- whether an open file other than `mine` holds a flock
 * on `object` that a flock of `type` would meet */
static bool flock_in_the_way(uint64_t mine, uint64_t object, uint16_t type)
{
	for (unsigned slot = 0; slot < KROOT_MAX_PROCS; slot++) {
		const struct pctx *q = ptable_slot(slot);

		for (unsigned fd = 0; q && q->lx && fd < KLINUX_FDS; fd++) {
			const uint64_t id = q->lx->fd[fd].file;
			const struct klxfile *f = id && id != mine ?
				kobj_data(id, OS_TYPE_KERNEL, KLXFILE_MAGIC) : NULL;

			if (f && f->kind == KLXFILE_OBJECT && f->object == object && f->flock &&
			    (type == KLXFILE_FLOCK_EXCLUSIVE || f->flock == KLXFILE_FLOCK_EXCLUSIVE))
				return true;
		}
	}
	return false;
}

/* wait_for -- the calling thread waits until a lock on `object` goes */
static int64_t wait_for(struct lxcall *c, uint64_t object)
{
	sched_block(c->tf, KWAIT_LOCK, object, 0);
	return SYSCALL_BLOCKED;
}

/* drop_entry -- entry i of l is free: the last takes its place */
static void drop_entry(struct klxlocks *l, unsigned i)
{
	l->lock[i] = l->lock[l->count - 1];
	l->lock[l->count - 1] = (struct klxlock){ 0 };
	l->count--;
}

/* meets -- whether one of l's locks on object meets [start, end) */
static bool meets(const struct klxlocks *l, uint64_t object, uint64_t start, uint64_t end)
{
	for (unsigned i = 0; i < l->count; i++)
		if (l->lock[i].object == object && l->lock[i].start < end && start < l->lock[i].end)
			return true;
	return false;
}

/* splits -- whether one of l's locks on object holds [start, end) with
 * bytes on both sides, so that cutting the range out makes two of it */
static bool splits(const struct klxlocks *l, uint64_t object, uint64_t start, uint64_t end)
{
	for (unsigned i = 0; i < l->count; i++)
		if (l->lock[i].object == object && l->lock[i].start < start && l->lock[i].end > end)
			return true;
	return false;
}

/* cut -- l's locks on object no longer cover [start, end) (logged by the
 * caller; there is room for a split); whether any lock changed */
static bool cut(struct klxlocks *l, uint64_t object, uint64_t start, uint64_t end)
{
	bool changed = false;

	for (unsigned i = 0; i < l->count;) {
		struct klxlock *k = &l->lock[i];

		if (k->object != object || k->end <= start || end <= k->start) {
			i++;
			continue;
		}
		changed = true;
		if (k->start < start && k->end > end) {         /* the middle goes */
			l->lock[l->count] = (struct klxlock){ object, end, k->end, k->type, 0 };
			l->count++;
			k->end = start;
			i++;
		} else if (k->start < start) {                  /* the tail goes */
			k->end = start;
			i++;
		} else if (k->end > end) {                      /* the head goes */
			k->start = end;
			i++;
		} else {                                        /* all of it */
			drop_entry(l, i);
		}
	}
	return changed;
}

/* join -- l's new lock at entry `at` takes in the locks of its type that
 * touch it */
static void join(struct klxlocks *l, unsigned at)
{
	for (unsigned i = 0; i < l->count;) {
		struct klxlock *k = &l->lock[i], *n = &l->lock[at];

		if (i == at || k->object != n->object || k->type != n->type ||
		    (k->end != n->start && n->end != k->start)) {
			i++;
			continue;
		}
		if (k->start < n->start)
			n->start = k->start;
		if (k->end > n->end)
			n->end = k->end;
		if (at == l->count - 1)
			at = i;                /* drop_entry moves the last into i */
		drop_entry(l, i);
		i = 0;
	}
}

/* locks_made -- lx's klxlocks, made if it has none; NULL on a full heap */
static struct klxlocks *locks_made(struct klinux *lx, int64_t *err)
{
	struct klxlocks *l = locks_of(lx);
	uint64_t id;
	void *data;
	int e;

	if (l || lx->locks) {
		*err = l ? 0 : lx_errno(-ERR_CORRUPT);
		return l;
	}
	e = kobj_new(OS_TYPE_KERNEL, sizeof(*l), KLXLOCKS_MAGIC, &id, &data);
	*err = lx_errno(e);
	if (e)
		return NULL;
	KLOG(&lx->locks);
	lx->locks = id;                /* lx holds it from here; a fresh block: no log */
	return data;
}

/* range_of -- the bytes [*start, *end) an F_*LK's struct flock names, for
 * open file f */
static int64_t range_of(const struct lx_flock *fl, const struct klxfile *f,
			uint64_t *start, uint64_t *end)
{
	struct os_obj_info info;
	int64_t base = 0, first;

	if (fl->whence == LX_SEEK_CUR)
		base = (int64_t)f->offset;
	else if (fl->whence == LX_SEEK_END) {
		if (os_obj_head(&kheap, f->object, &info))
			return -LX_EIO;
		base = (int64_t)info.size;
	} else if (fl->whence != LX_SEEK_SET)
		return -LX_EINVAL;
	if (__builtin_add_overflow(base, fl->start, &first))
		return -LX_EINVAL;
	if (fl->len < 0) {             /* the bytes before */
		*end = (uint64_t)first;
		if (__builtin_add_overflow(first, fl->len, &first))
			return -LX_EINVAL;
	} else if (fl->len == 0) {
		*end = KLXLOCK_TO_END;
	} else if (__builtin_add_overflow(first, fl->len, (int64_t *)end)) {
		return -LX_EINVAL;
	}
	if (first < 0)
		return -LX_EINVAL;
	*start = (uint64_t)first;
	return 0;
}

/* record_lock -- F_SETLK(W): lock [start, end) of f's object with `type`, or unlock it */
static int64_t record_lock(struct lxcall *c, const struct klxfile *f, uint16_t type,
			   uint64_t start, uint64_t end, bool wait)
{
	const uint32_t want = type == LX_F_RDLCK ? KLXLOCK_READ : KLXLOCK_WRITE;
	struct klxlocks *l = locks_of(c->lx);
	uint64_t pid;
	int64_t err;

	if (type == LX_F_UNLCK) {
		if (!l || !meets(l, f->object, start, end))
			return 0;
		if (l->count == KLXLOCKS_MAX && splits(l, f->object, start, end))
			return -LX_ENOLCK;
		KLOG(l);
		cut(l, f->object, start, end);
		sched_wake(KWAIT_LOCK, f->object);
		return 0;
	}
	if ((f->flags & LX_O_ACCMODE) == (type == LX_F_RDLCK ? LX_O_WRONLY : LX_O_RDONLY))
		return -LX_EBADF;
	if (record_in_the_way(c->p, f->object, start, end, want, &pid))
		return wait ? wait_for(c, f->object) : -LX_EAGAIN;
	l = locks_made(c->lx, &err);
	if (!l)
		return err;
	if (l->count + 1 + splits(l, f->object, start, end) > KLXLOCKS_MAX)
		return -LX_ENOLCK;
	KLOG(l);
	if (cut(l, f->object, start, end))
		sched_wake(KWAIT_LOCK, f->object); /* an exclusive lock may be shared now */
	l->lock[l->count] = (struct klxlock){ f->object, start, end, want, 0 };
	l->count++;
	join(l, l->count - 1);
	return 0;
}

/* lx_record_lock -- fcntl's F_GETLK, F_SETLK and F_SETLKW on open file f:
 * struct flock at user address arg */
int64_t lx_record_lock(struct lxcall *c, const struct klxfile *f, uint64_t cmd, uint64_t arg)
{
	struct lx_flock fl;
	const struct klxlock *k;
	uint64_t start, end, pid;
	int64_t err = lx_errno(uvm_copy_in(&c->p->mem, &fl, arg, sizeof(fl)));

	if (err)
		return err;
	if (fl.type != LX_F_RDLCK && fl.type != LX_F_WRLCK &&
	    (fl.type != LX_F_UNLCK || cmd == LX_F_GETLK))
		return -LX_EINVAL;
	if (f->kind != KLXFILE_OBJECT)
		return -LX_EINVAL;     /* locks on catalogue objects only */
	err = range_of(&fl, f, &start, &end);
	if (err)
		return err;
	if (cmd != LX_F_GETLK)
		return record_lock(c, f, (uint16_t)fl.type, start, end, cmd == LX_F_SETLKW);
	k = record_in_the_way(c->p, f->object, start, end,
			      fl.type == LX_F_RDLCK ? KLXLOCK_READ : KLXLOCK_WRITE, &pid);
	if (!k) {
		fl.type = LX_F_UNLCK;
	} else {
		fl.type = k->type == KLXLOCK_READ ? LX_F_RDLCK : LX_F_WRLCK;
		fl.whence = LX_SEEK_SET;
		fl.start = (int64_t)k->start;
		fl.len = k->end == KLXLOCK_TO_END ? 0 : (int64_t)(k->end - k->start);
		fl.pid = (int32_t)pid;
	}
	return lx_errno(uvm_copy_out(&c->p->mem, arg, &fl, sizeof(fl)));
}

/* flock (fd, operation) -> 0 */
int64_t lx_flock(struct lxcall *c)
{
	const int64_t fd = (int64_t)(int32_t)c->arg[0];
	const uint64_t op = c->arg[1] & ~(uint64_t)LX_LOCK_NB;
	const uint64_t id = fd >= 0 && fd < KLINUX_FDS ? c->lx->fd[fd].file : 0;
	struct klxfile *f = id ? kobj_data(id, OS_TYPE_KERNEL, KLXFILE_MAGIC) : NULL;
	uint16_t want;

	if (!f)
		return -LX_EBADF;
	if (op != LX_LOCK_SH && op != LX_LOCK_EX && op != LX_LOCK_UN)
		return -LX_EINVAL;
	if (f->kind != KLXFILE_OBJECT)
		return -LX_EINVAL;     /* locks on catalogue objects only */
	want = op == LX_LOCK_SH ? KLXFILE_FLOCK_SHARED :
	       op == LX_LOCK_EX ? KLXFILE_FLOCK_EXCLUSIVE : KLXFILE_FLOCK_NONE;
	if (f->flock == want)
		return 0;
	if (f->flock) {                /* a change lets go of the old lock first, as on Linux */
		KLOG(&f->flock);
		f->flock = KLXFILE_FLOCK_NONE;
		sched_wake(KWAIT_LOCK, f->object);
	}
	if (want && flock_in_the_way(id, f->object, want))
		return c->arg[1] & LX_LOCK_NB ? -LX_EAGAIN : wait_for(c, f->object);
	if (want) {
		KLOG(&f->flock);
		f->flock = want;
	}
	return 0;
}

/* lx_locks_closed -- a descriptor of lx's open file f closes: POSIX drops
 * the program's record locks on its object, and the open file's flock
 * goes with its last descriptor (whoever waits for either looks again) */
void lx_locks_closed(struct klinux *lx, const struct klxfile *f)
{
	struct klxlocks *l = locks_of(lx);
	const bool held = l && meets(l, f->object, 0, KLXLOCK_TO_END);

	if (f->kind != KLXFILE_OBJECT)
		return;
	if (held) {
		KLOG(l);
		cut(l, f->object, 0, KLXLOCK_TO_END);
	}
	if (held || f->flock)
		sched_wake(KWAIT_LOCK, f->object);
}
