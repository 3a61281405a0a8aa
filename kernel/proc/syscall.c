/*
 * syscall.c -- the system calls: decode and check, then act.
 *
 * Every call reads its arguments from the frame, checks all of them
 * (handles and rights, user pointers through uvm_copy_*, sizes against
 * the limits in <ferrite/syscall.h>) before changing anything, and returns
 * 0 or a positive value, or -ERR_x. docs/syscalls.md is the reference.
 *
 * Before a call runs, sched_log_short checks that the undo log has room for
 * everything one call may log; if not, the call is restarted after a
 * commit, so objstore never runs out of log half way through a call and
 * a commit never records a thread in the middle of one.
 */
#include <errstr.h>
#include <stdio.h>
#include <string.h>

#include "acpi/acpi.h"
#include "arch/arch.h"
#include "core/heap.h"
#include "core/panic.h"
#include "core/printk.h"
#include "core/time.h"
#include "dev/rtc.h"
#include "ferrite/errors.h"
#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "proc/channel.h"
#include "proc/proc.h"

#define IO_CHUNK 4096u
#define LIST_MAX 64u

typedef int64_t (*syscall_fn)(struct trap_frame *tf, struct pctx *p,
			      const uint64_t *a);

static uint8_t io_buffer[IO_CHUNK];

/* allowed_rights -- the most a handle to an object of `type` may carry */
static uint32_t allowed_rights(uint16_t type)
{
	switch (type) {
	case OS_TYPE_BLOB:
	case OS_TYPE_ANON:
		return FE_RIGHTS_ALL;
	case OS_TYPE_CODE: /* read-only to programs */
		return FE_RIGHT_READ | FE_RIGHT_MAP | FE_RIGHT_EXEC | FE_RIGHT_GRANT;
	case OS_TYPE_CHANNEL:
	case OS_TYPE_PROCESS:
		return FE_RIGHT_READ | FE_RIGHT_WRITE | FE_RIGHT_GRANT;
	default:
		return 0;
	}
}

/* is_data -- objects with bytes a program may read, write or map */
static bool is_data(uint16_t type)
{
	return type == OS_TYPE_BLOB || type == OS_TYPE_CODE || type == OS_TYPE_ANON;
}

/* data_handle -- the entry for handle h, with `need` rights, of a data object */
static int data_handle(struct pctx *p, uint64_t h, uint32_t need,
		       struct khandle **out)
{
	int err = handle_get(p, (int64_t)h, need, out);

	if (err)
		return err;
	return is_data(kobj_type((*out)->object)) ? 0 : -ERR_INVAL;
}

/* copy_name -- a catalogue name from user memory */
static int copy_name(struct pctx *p, char *name, uint64_t ptr, uint64_t len)
{
	if (!len || len > FE_NAME_MAX)
		return -ERR_INVAL;
	return uvm_copy_in(p, name, ptr, len);
}

/* install_new -- a handle for a reference we hold; released if no slot */
static int64_t install_new(struct pctx *p, uint64_t id, uint32_t rights,
			   uint8_t end)
{
	int h = handle_install(p, id, rights, end);

	if (h < 0)
		kobj_release(id);
	return h;
}

static int64_t sys_null(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	(void)tf, (void)p, (void)a;
	return 0;
}

static int64_t sys_obj_create(struct trap_frame *tf, struct pctx *p,
			      const uint64_t *a)
{
	uint64_t id;
	int err;

	(void)tf;
	if (a[0] == OS_TYPE_CODE)
		return -ERR_PERM;
	if (a[0] != OS_TYPE_BLOB && a[0] != OS_TYPE_ANON)
		return -ERR_INVAL;
	if (a[1] > FE_OBJ_SIZE_MAX)
		return -ERR_TOOBIG;
	if (p->ht->count == FE_HANDLE_SLOTS)
		return -ERR_NOSPC;
	err = os_obj_create(&kheap, (uint16_t)a[0], a[1], &id);
	if (err)
		return err;
	return install_new(p, id, FE_RIGHTS_ALL, 0);
}

/* open_id -- a handle with `rights` to object id (checked) */
static int64_t open_id(struct pctx *p, uint64_t id, uint64_t rights)
{
	struct os_obj_info info;

	if (os_obj_stat(&kheap, id, &info) || kobj_dying(id))
		return -ERR_NOENT; /* none, or waiting for the reaper */
	if (rights & ~(uint64_t)allowed_rights(info.type))
		return -ERR_PERM;
	if (p->ht->count == FE_HANDLE_SLOTS)
		return -ERR_NOSPC;
	kobj_hold(id);
	return install_new(p, id, (uint32_t)rights, 1);
}

static int64_t sys_obj_open(struct trap_frame *tf, struct pctx *p,
			    const uint64_t *a)
{
	char name[FE_NAME_MAX];
	uint64_t id;
	int err = copy_name(p, name, a[0], a[1]);

	(void)tf;
	if (!err)
		err = os_cat_lookup(&kheap, name, a[1], &id);
	return err ? err : open_id(p, id, a[2]);
}

static int64_t sys_obj_open_id(struct trap_frame *tf, struct pctx *p,
			       const uint64_t *a)
{
	uint16_t type = kobj_type(a[0]);

	(void)tf;
	if (!type)
		return -ERR_NOENT;
	if (type != OS_TYPE_BLOB && type != OS_TYPE_CODE)
		return -ERR_PERM;
	return open_id(p, a[0], a[1]);
}

static int64_t sys_name_bind(struct trap_frame *tf, struct pctx *p,
			     const uint64_t *a)
{
	char name[FE_NAME_MAX];
	struct khandle *h;
	uint16_t type;
	int err = handle_get(p, (int64_t)a[0], FE_RIGHT_GRANT, &h);

	(void)tf;
	if (err)
		return err;
	type = kobj_type(h->object);
	if (type != OS_TYPE_BLOB && type != OS_TYPE_CODE && type != OS_TYPE_CHANNEL)
		return -ERR_PERM;
	err = copy_name(p, name, a[1], a[2]);
	if (!err)
		err = os_cat_insert(&kheap, name, a[2], h->object);
	if (!err)
		kobj_hold(h->object);
	return err;
}

static int64_t sys_name_unbind(struct trap_frame *tf, struct pctx *p,
			       const uint64_t *a)
{
	char name[FE_NAME_MAX];
	uint64_t id;
	int err = copy_name(p, name, a[0], a[1]);

	(void)tf;
	if (!err)
		err = os_cat_remove(&kheap, name, a[1], &id);
	if (!err)
		kobj_release(id);
	return err;
}

static int64_t sys_name_rename(struct trap_frame *tf, struct pctx *p,
			       const uint64_t *a)
{
	char from[FE_NAME_MAX], to[FE_NAME_MAX];
	int err = copy_name(p, from, a[0], a[1]);

	(void)tf;
	if (!err)
		err = copy_name(p, to, a[2], a[3]);
	return err ? err : os_cat_rename(&kheap, from, a[1], to, a[3]);
}

static int64_t sys_name_list(struct trap_frame *tf, struct pctx *p,
			     const uint64_t *a)
{
	static struct fe_name_entry entry;
	char prefix[FE_NAME_MAX];
	struct fe_cursor uc;
	struct os_cat_cursor c;
	uint64_t max = a[4] < LIST_MAX ? a[4] : LIST_MAX, n = 0;
	int err = 0;

	(void)tf;
	if (a[1] > FE_NAME_MAX || !max)
		return -ERR_INVAL;
	if (a[1])
		err = uvm_copy_in(p, prefix, a[0], a[1]);
	if (!err)
		err = uvm_copy_in(p, &uc, a[2], sizeof(uc));
	if (err)
		return err;
	if (uc.len > FE_NAME_MAX || uc.started > 1)
		return -ERR_INVAL;
	if (!uc.len && !uc.started) {
		os_cat_cursor_init(&c, prefix, a[1]);
	} else {
		c.len = uc.len;
		c.started = uc.started;
		memcpy(c.name, uc.name, uc.len);
	}
	while (n < max) {
		struct os_obj_info info;
		uint64_t id;

		err = os_cat_next(&kheap, &c, prefix, a[1], &id);
		if (err == -ERR_NOENT)
			break;
		if (err)
			return err;
		memset(&entry, 0, sizeof(entry));
		entry.id = id;
		if (!os_obj_stat(&kheap, id, &info)) {
			entry.size = info.size;
			entry.type = info.type;
		}
		entry.len = c.len;
		memcpy(entry.name, c.name, c.len);
		err = uvm_copy_out(p, a[3] + n * sizeof(entry), &entry,
				   sizeof(entry));
		if (err)
			return err;
		n++;
	}
	memset(&uc, 0, sizeof(uc));
	uc.len = c.len;
	uc.started = c.started;
	memcpy(uc.name, c.name, c.len);
	err = uvm_copy_out(p, a[2], &uc, sizeof(uc));
	return err ? err : (int64_t)n;
}

static int64_t sys_obj_stat(struct trap_frame *tf, struct pctx *p,
			    const uint64_t *a)
{
	struct os_obj_info info;
	struct fe_stat st;
	struct khandle *h;
	int err = handle_get(p, (int64_t)a[0], 0, &h);

	(void)tf;
	if (!err)
		err = os_obj_stat(&kheap, h->object, &info);
	if (err)
		return err;
	memset(&st, 0, sizeof(st));
	st.id = info.id;
	st.size = info.size;
	st.modified_epoch = info.modified_epoch;
	st.pages = info.pages;
	st.type = info.type;
	st.refcount = info.refcount;
	st.rights = h->rights;
	return uvm_copy_out(p, a[1], &st, sizeof(st));
}

static int64_t sys_obj_read(struct trap_frame *tf, struct pctx *p,
			    const uint64_t *a)
{
	uint64_t len = a[3] < FE_IO_MAX ? a[3] : FE_IO_MAX, done = 0;
	struct khandle *h;
	int err = data_handle(p, a[0], FE_RIGHT_READ, &h);

	(void)tf;
	if (err)
		return err;
	while (done < len) {
		uint64_t want = len - done < IO_CHUNK ? len - done : IO_CHUNK;
		int64_t got = os_obj_read(&kheap, h->object, a[1] + done,
					  io_buffer, want);

		if (got <= 0)
			return got < 0 && !done ? got : (int64_t)done;
		err = uvm_copy_out(p, a[2] + done, io_buffer, (uint64_t)got);
		if (err)
			return done ? (int64_t)done : err;
		done += (uint64_t)got;
		if ((uint64_t)got < want)
			break;
	}
	return (int64_t)done;
}

static int64_t sys_obj_write(struct trap_frame *tf, struct pctx *p,
			     const uint64_t *a)
{
	uint64_t len = a[3] < FE_IO_MAX ? a[3] : FE_IO_MAX, done = 0;
	struct os_obj_info info;
	struct khandle *h;
	int err = data_handle(p, a[0], FE_RIGHT_WRITE, &h);

	(void)tf;
	if (!err)
		err = uvm_check(p, a[2], len, UVM_READ);
	if (!err)
		err = os_obj_stat(&kheap, h->object, &info);
	if (err)
		return err;
	if (a[1] > info.size || len > info.size - a[1])
		return -ERR_RANGE; /* resize first */
	while (done < len) {
		uint64_t want = len - done < IO_CHUNK ? len - done : IO_CHUNK;
		int64_t wrote;

		err = uvm_copy_in(p, io_buffer, a[2] + done, want);
		if (err)
			return done ? (int64_t)done : err;
		wrote = os_obj_write(&kheap, h->object, a[1] + done, io_buffer,
				     want);
		if (wrote < 0)
			return done ? (int64_t)done : wrote;
		done += (uint64_t)wrote;
	}
	return (int64_t)done;
}

static int64_t sys_obj_resize(struct trap_frame *tf, struct pctx *p,
			      const uint64_t *a)
{
	struct os_obj_info info;
	struct khandle *h;
	int err = data_handle(p, a[0], FE_RIGHT_WRITE, &h);

	(void)tf;
	if (!err)
		err = os_obj_stat(&kheap, h->object, &info);
	if (err)
		return err;
	if (a[1] > FE_OBJ_SIZE_MAX)
		return -ERR_TOOBIG;
	err = os_obj_resize(&kheap, h->object, a[1]);
	if (a[1] < info.size) {
		/* Freed pages may still be in page tables (even after a partial
		 * shrink): drop every cache; the next faults rebuild them. */
		for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
			struct pctx *q = proc_slot(i);

			if (q)
				uvm_drop_tables(q);
		}
	}
	return err;
}

static int64_t sys_close(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	(void)tf;
	return handle_close(p, (int64_t)a[0]);
}

static int64_t sys_dup(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	struct khandle *h;
	int err = handle_get(p, (int64_t)a[0], 0, &h);

	(void)tf;
	if (err)
		return err;
	if (a[1] & ~(uint64_t)h->rights)
		return -ERR_PERM;
	if (p->ht->count == FE_HANDLE_SLOTS)
		return -ERR_NOSPC;
	kobj_hold(h->object);
	return install_new(p, h->object, (uint32_t)a[1], h->end);
}

static int64_t sys_map(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	unsigned prot = a[3] & FE_PROT_MASK, sharing = a[3] & (FE_MAP_SHARED | FE_MAP_PRIVATE);
	uint32_t need = FE_RIGHT_MAP;
	unsigned maxprot = 0;
	struct os_obj_info info;
	struct khandle *h;
	uint64_t addr;
	int err;

	(void)tf;
	if (a[3] & ~(uint64_t)(FE_PROT_MASK | FE_MAP_SHARED | FE_MAP_PRIVATE | FE_MAP_FIXED) ||
	    (sharing != FE_MAP_SHARED && sharing != FE_MAP_PRIVATE))
		return -ERR_INVAL;
	if (prot & FE_PROT_READ)
		need |= FE_RIGHT_READ;
	if ((prot & FE_PROT_WRITE) && sharing == FE_MAP_SHARED)
		need |= FE_RIGHT_WRITE;
	if (prot & FE_PROT_EXEC)
		need |= FE_RIGHT_EXEC;
	err = data_handle(p, a[0], need, &h);
	if (err)
		return err;
	if (h->rights & FE_RIGHT_READ)
		maxprot |= FE_PROT_READ;
	if ((h->rights & FE_RIGHT_WRITE) || sharing == FE_MAP_PRIVATE)
		maxprot |= FE_PROT_WRITE;
	if (h->rights & FE_RIGHT_EXEC)
		maxprot |= FE_PROT_EXEC;
	err = os_obj_stat(&kheap, h->object, &info);
	if (!err)
		err = uvm_map(p, h->object, a[1], a[2], prot, a[3], maxprot,
			      info.size, a[4], &addr);
	return err ? err : (int64_t)addr;
}

static int64_t sys_unmap(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	(void)tf;
	return uvm_unmap(p, a[0], a[1]);
}

static int64_t sys_protect(struct trap_frame *tf, struct pctx *p,
			   const uint64_t *a)
{
	(void)tf;
	return uvm_protect(p, a[0], a[1], (unsigned)a[2]);
}

static int64_t sys_sync(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	(void)tf, (void)p, (void)a;
	sched_commit_soon();
	return 0;
}

/* copy_spawn_args -- argv and grants of SYS_SPAWN, checked */
static int copy_spawn_args(struct pctx *p, uint64_t user, struct spawn_args *s)
{
	uint64_t argv[FE_SPAWN_MAX_ARGS];
	struct fe_handle_grant grants[FE_SPAWN_MAX_HANDLES];
	struct fe_spawn sp;
	int err = uvm_copy_in(p, &sp, user, sizeof(sp));

	if (err)
		return err;
	if (!sp.argc || sp.argc > FE_SPAWN_MAX_ARGS ||
	    sp.handle_count > FE_SPAWN_MAX_HANDLES)
		return -ERR_INVAL;
	err = uvm_copy_in(p, argv, (uint64_t)(uintptr_t)sp.argv, sp.argc * 8ull);
	if (err)
		return err;
	s->argc = sp.argc;
	s->argv_bytes = 0;
	for (unsigned i = 0; i < sp.argc; i++) {
		int len = uvm_copy_string(p, s->argv + s->argv_bytes, argv[i],
					  sizeof(s->argv) - s->argv_bytes);

		if (len < 0)
			return len;
		s->argv_bytes += (size_t)len + 1;
	}
	if (sp.handle_count) {
		err = uvm_copy_in(p, grants, (uint64_t)(uintptr_t)sp.handles,
				  sp.handle_count * sizeof(grants[0]));
		if (err)
			return err;
	}
	s->grant_count = sp.handle_count;
	for (unsigned i = 0; i < sp.handle_count; i++) {
		struct khandle *h;

		err = handle_get(p, grants[i].handle, FE_RIGHT_GRANT, &h);
		if (err)
			return err;
		if (grants[i].rights & ~h->rights)
			return -ERR_PERM;
		s->grant[i] = (struct spawn_grant){
			.object = h->object, .rights = grants[i].rights, .end = h->end,
		};
	}
	return 0;
}

static int64_t sys_spawn(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	static struct spawn_args args;
	struct khandle *h;
	unsigned slot;
	int err = handle_get(p, (int64_t)a[0], FE_RIGHT_READ | FE_RIGHT_EXEC, &h);

	(void)tf;
	if (err)
		return err;
	if (kobj_type(h->object) != OS_TYPE_CODE)
		return -ERR_NOEXEC;
	err = copy_spawn_args(p, a[1], &args);
	if (err)
		return err;
	if (p->ht->count == FE_HANDLE_SLOTS)
		return -ERR_NOSPC;
	err = proc_spawn(p, h->object, &args, &slot);
	if (err)
		return err;
	kobj_hold(proc_slot(slot)->proc_id);
	return install_new(p, proc_slot(slot)->proc_id,
			   FE_RIGHT_READ | FE_RIGHT_WRITE | FE_RIGHT_GRANT, 0);
}

static int64_t sys_exit(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	char detail[48];

	(void)tf;
	snprintf(detail, sizeof(detail), "exited with status %lld",
		 (long long)a[0]);
	proc_end(p, FE_EXIT_NORMAL, (int64_t)a[0], detail);
	return SYSCALL_GONE;
}

/* process_handle -- the process object behind handle h, with `need` rights */
static int process_handle(struct pctx *p, uint64_t h, uint32_t need,
			  uint64_t *id, struct kproc **proc)
{
	struct khandle *e;
	int err = handle_get(p, (int64_t)h, need, &e);

	if (err)
		return err;
	*proc = kobj_data(e->object, OS_TYPE_PROCESS, KPROC_MAGIC);
	*id = e->object;
	return *proc ? 0 : -ERR_INVAL;
}

static int64_t sys_wait(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	struct fe_exit_info running;
	struct kproc *proc;
	uint64_t id;
	int err;

	if (a[2] & ~(uint64_t)FE_WAIT_NOHANG)
		return -ERR_INVAL;
	err = process_handle(p, a[0], FE_RIGHT_READ, &id, &proc);
	if (err)
		return err;
	if (proc->state == KPROC_EXITED) {
		err = uvm_copy_out(p, a[1], &proc->exit, sizeof(proc->exit));
		return err ? err : (int64_t)proc->pid;
	}
	if (a[2] & FE_WAIT_NOHANG) {
		memset(&running, 0, sizeof(running));
		running.pid = proc->pid;
		running.reason = FE_EXIT_RUNNING;
		err = uvm_copy_out(p, a[1], &running, sizeof(running));
		return err ? err : 0;
	}
	sched_block(tf, KWAIT_PROCESS, id, 0);
	return SYSCALL_BLOCKED;
}

static int64_t sys_kill(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	struct pctx *target = proc_by_pid(a[0]);
	char detail[40];

	(void)tf;
	if (!target)
		return -ERR_NOENT;
	if (!proc_is_ancestor(p, target))
		return -ERR_PERM;
	snprintf(detail, sizeof(detail), "killed by pid %llu",
		 (unsigned long long)p->proc->pid);
	if (target == p) {
		proc_end(p, FE_EXIT_KILLED, 0, detail);
		return SYSCALL_GONE;
	}
	proc_end(target, FE_EXIT_KILLED, 0, detail);
	return 0;
}

static int64_t sys_proc_list(struct trap_frame *tf, struct pctx *p,
			     const uint64_t *a)
{
	static struct fe_proc_info list[KROOT_MAX_PROCS];
	uint64_t max = a[1] < KROOT_MAX_PROCS ? a[1] : KROOT_MAX_PROCS;
	unsigned n = 0;
	int err;

	(void)tf;
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct pctx *q = proc_slot(i);
		struct fe_proc_info info;
		unsigned at;

		if (!q || q->proc->pid < a[2])
			continue;
		memset(&info, 0, sizeof(info));
		info.pid = q->proc->pid;
		info.parent_pid = q->proc->parent_pid;
		info.cpu_ns = q->proc->cpu_ns;
		info.pages = uvm_pages(q);
		info.state = q->thread->state == KTHREAD_RUNNABLE ? FE_PROC_RUNNABLE
								  : FE_PROC_BLOCKED;
		info.blocked_on = info.state == FE_PROC_BLOCKED ? q->thread->blocked_call : 0;
		memcpy(info.name, q->proc->name, sizeof(info.name));
		for (at = n; at > 0 && list[at - 1].pid > info.pid; at--)
			list[at] = list[at - 1];
		list[at] = info;
		n++;
	}
	if (n > max)
		n = (unsigned)max;
	err = n ? uvm_copy_out(p, a[0], list, n * sizeof(list[0])) : 0;
	return err ? (int64_t)err : (int64_t)n;
}

static int64_t sys_yield(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	(void)tf, (void)p, (void)a;
	sched_yield();
	return 0;
}

static int64_t sys_sleep_until(struct trap_frame *tf, struct pctx *p,
			       const uint64_t *a)
{
	(void)p;
	if (mono_ns() >= a[0])
		return 0;
	sched_block(tf, KWAIT_SLEEP, 0, a[0]);
	return SYSCALL_BLOCKED;
}

static int64_t sys_chan_create(struct trap_frame *tf, struct pctx *p,
			       const uint64_t *a)
{
	int32_t ends[2] = {-1, -1};
	uint64_t id;
	int err;

	(void)tf;
	if (p->ht->count + 2 > FE_HANDLE_SLOTS)
		return -ERR_NOSPC;
	err = uvm_copy_out(p, a[0], ends, sizeof(ends)); /* check before creating */
	if (!err)
		err = channel_create(&id);
	if (err)
		return err;
	for (int e = 0; e < 2; e++) {
		kobj_hold(id);
		ends[e] = handle_install(p, id, FE_RIGHT_READ | FE_RIGHT_WRITE |
						    FE_RIGHT_GRANT, (uint8_t)e);
	}
	kobj_release(id); /* the handles hold it now */
	return uvm_copy_out(p, a[0], ends, sizeof(ends));
}

/* channel_handle -- the channel and end behind handle h, with `need` rights */
static int channel_handle(struct pctx *p, uint64_t h, uint32_t need,
			  struct khandle **e)
{
	int err = handle_get(p, (int64_t)h, need, e);

	if (err)
		return err;
	return kobj_type((*e)->object) == OS_TYPE_CHANNEL ? 0 : -ERR_INVAL;
}

static int64_t sys_chan_send(struct trap_frame *tf, struct pctx *p,
			     const uint64_t *a)
{
	static uint8_t msg[FE_CHAN_MSG_MAX];
	struct khandle *e, *pass = NULL;
	int err = channel_handle(p, a[0], FE_RIGHT_WRITE, &e);

	(void)tf;
	if (err)
		return err;
	if (a[2] > FE_CHAN_MSG_MAX)
		return -ERR_TOOBIG;
	if ((int64_t)a[3] != -1) {
		err = handle_get(p, (int64_t)a[3], FE_RIGHT_GRANT, &pass);
		if (err)
			return err;
		if (pass->object == e->object)
			return -ERR_INVAL; /* a channel holding itself could never be freed */
	}
	err = uvm_copy_in(p, msg, a[1], a[2]);
	if (err)
		return err;
	return channel_send(e->object, e->end, msg, (uint32_t)a[2],
			    pass ? pass->object : 0, pass ? pass->rights : 0,
			    pass ? pass->end : 0);
}

static int64_t sys_chan_recv(struct trap_frame *tf, struct pctx *p,
			     const uint64_t *a)
{
	static uint8_t msg[FE_CHAN_MSG_MAX];
	struct fe_msg_info info = {.handle = -1};
	struct kmsg_header h;
	struct khandle *e;
	uint64_t cap = a[2] < FE_CHAN_MSG_MAX ? a[2] : FE_CHAN_MSG_MAX;
	int err;

	if (a[4] & ~(uint64_t)FE_CHAN_NONBLOCK)
		return -ERR_INVAL;
	err = channel_handle(p, a[0], FE_RIGHT_READ, &e);
	if (err)
		return err;
	err = channel_peek(e->object, e->end, msg, (uint32_t)cap, &h);
	if (err == -ERR_AGAIN && !(a[4] & FE_CHAN_NONBLOCK)) {
		sched_block(tf, KWAIT_CHANNEL, e->object, 0);
		return SYSCALL_BLOCKED;
	}
	if (err)
		return err;
	if (h.object && p->ht->count == FE_HANDLE_SLOTS)
		return -ERR_NOSPC;
	info.len = h.len;
	if (cap > h.len)
		cap = h.len;
	err = uvm_copy_out(p, a[1], msg, cap);
	if (!err)
		err = uvm_copy_out(p, a[3], &info, sizeof(info));
	if (err)
		return err; /* the message stays queued */
	channel_pop(e->object, e->end);
	if (h.object) {
		info.handle = (int32_t)install_new(p, h.object, h.rights, h.end);
		channel_carried_dropped(&h); /* after install: never seen closed */
		uvm_copy_out(p, a[3], &info, sizeof(info)); /* checked above */
	}
	return (int64_t)cap;
}

static int64_t sys_console_read(struct trap_frame *tf, struct pctx *p,
				const uint64_t *a)
{
	return console_read(tf, p, a[0], a[1], a[2]);
}

static int64_t sys_console_write(struct trap_frame *tf, struct pctx *p,
				 const uint64_t *a)
{
	return console_write(tf, p, a[0], a[1]);
}

static int64_t sys_time(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	static uint64_t wall_at_power_on, ns_at_read;

	(void)tf, (void)p;
	if (a[0] == FE_CLOCK_MONOTONIC)
		return (int64_t)mono_ns();
	if (a[0] != FE_CLOCK_WALL)
		return -ERR_INVAL;
	if (!wall_at_power_on) {
		wall_at_power_on = rtc_wall_ns();
		ns_at_read = time_ns();
	}
	return (int64_t)(wall_at_power_on + time_ns() - ns_at_read);
}

static int64_t sys_sysinfo(struct trap_frame *tf, struct pctx *p,
			   const uint64_t *a)
{
	struct fe_sysinfo info;
	struct os_stats s;

	(void)tf;
	os_stats(&kheap, &s);
	memset(&info, 0, sizeof(info));
	info.heap_size = s.heap_size;
	info.heap_free = s.pages_free * FE_PAGE_SIZE;
	info.heap_used = (s.page_count - s.pages_free) * FE_PAGE_SIZE;
	info.objects = s.objects;
	info.names = s.names;
	info.power_ons = kroot->power_ons;
	info.epoch = s.epoch;
	info.commits = kroot->commits;
	info.processes = proc_count();
	info.uptime_ns = mono_ns();
	info.log_size = s.log_size;
	info.log_used = s.log_used;
	info.log_high_water = s.log_high_water;
	info.rolled_back_records = s.rolled_back;
	info.rolled_back_bytes = s.rolled_back_bytes;
	sched_ckpt_info(&info);
	return uvm_copy_out(p, a[0], &info, sizeof(info));
}

static int64_t sys_console_fg(struct trap_frame *tf, struct pctx *p,
			      const uint64_t *a)
{
	struct kproc *proc;
	uint64_t id, pid = 0;
	int err;

	(void)tf;
	if ((int64_t)a[0] != -1) {
		err = process_handle(p, a[0], FE_RIGHT_WRITE, &id, &proc);
		if (err)
			return err;
		if (proc->state != KPROC_ALIVE)
			return -ERR_NOENT;
		pid = proc->pid;
	}
	KLOG(&kroot->console_fg_pid);
	kroot->console_fg_pid = pid;
	return 0;
}

static int64_t sys_getpid(struct trap_frame *tf, struct pctx *p, const uint64_t *a)
{
	(void)tf, (void)a;
	return (int64_t)p->proc->pid;
}

static int64_t sys_poweroff(struct trap_frame *tf, struct pctx *p,
			    const uint64_t *a)
{
	(void)p, (void)a;
	arch_syscall_set_result(tf, 0);
	sched_power_off(tf);
	return -ERR_IO; /* only if ACPI power-off failed */
}

static const syscall_fn syscalls[SYS__COUNT] = {
	[SYS_NULL] = sys_null,
	[SYS_OBJ_CREATE] = sys_obj_create,
	[SYS_OBJ_OPEN] = sys_obj_open,
	[SYS_OBJ_OPEN_ID] = sys_obj_open_id,
	[SYS_NAME_BIND] = sys_name_bind,
	[SYS_NAME_UNBIND] = sys_name_unbind,
	[SYS_NAME_RENAME] = sys_name_rename,
	[SYS_NAME_LIST] = sys_name_list,
	[SYS_OBJ_STAT] = sys_obj_stat,
	[SYS_OBJ_READ] = sys_obj_read,
	[SYS_OBJ_WRITE] = sys_obj_write,
	[SYS_OBJ_RESIZE] = sys_obj_resize,
	[SYS_CLOSE] = sys_close,
	[SYS_DUP] = sys_dup,
	[SYS_MAP] = sys_map,
	[SYS_UNMAP] = sys_unmap,
	[SYS_PROTECT] = sys_protect,
	[SYS_SYNC] = sys_sync,
	[SYS_SPAWN] = sys_spawn,
	[SYS_EXIT] = sys_exit,
	[SYS_WAIT] = sys_wait,
	[SYS_KILL] = sys_kill,
	[SYS_PROC_LIST] = sys_proc_list,
	[SYS_YIELD] = sys_yield,
	[SYS_SLEEP_UNTIL] = sys_sleep_until,
	[SYS_CHAN_CREATE] = sys_chan_create,
	[SYS_CHAN_SEND] = sys_chan_send,
	[SYS_CHAN_RECV] = sys_chan_recv,
	[SYS_CONSOLE_READ] = sys_console_read,
	[SYS_CONSOLE_WRITE] = sys_console_write,
	[SYS_TIME] = sys_time,
	[SYS_SYSINFO] = sys_sysinfo,
	[SYS_CONSOLE_FG] = sys_console_fg,
	[SYS_GETPID] = sys_getpid,
	[SYS_POWEROFF] = sys_poweroff,
};

/* syscall_handler -- a SYSCALL from user mode */
void syscall_handler(struct trap_frame *tf)
{
	struct pctx *p = proc_current();
	uint64_t nr = arch_syscall_number(tf);
	uint64_t args[6];
	int64_t result;

	KASSERT(p != NULL);
	if (sched_log_short()) {
		arch_syscall_restart(tf); /* re-issued after the commit */
		return;
	}
	if (nr >= SYS__COUNT || !syscalls[nr]) {
		arch_syscall_set_result(tf, -ERR_NOSYS);
		return;
	}
	for (unsigned i = 0; i < 6; i++)
		args[i] = arch_syscall_arg(tf, i);
	result = syscalls[nr](tf, p, args);
	if (result == -ERR_CORRUPT)
		heap_damaged("system call %llu of pid %llu (%s) met a damaged heap structure",
			     (unsigned long long)nr, (unsigned long long)p->proc->pid,
			     p->proc->name);
	if (result != SYSCALL_BLOCKED && result != SYSCALL_GONE)
		arch_syscall_set_result(tf, result);
}
