/*
 * proc.c -- the process table: genesis of the first process, spawn, exit.
 *
 * The kernel root lists the live processes by slot (the process table,
 * ptable.c). A process is five objects created in one epoch: the process,
 * its first thread, address space and handle table, and an anonymous
 * stack; its program text is the code object itself, mapped in place.
 * More threads (SYS_THREAD_CREATE) join the list that starts at
 * kproc.thread and goes on through kthread.next; each has a number, its
 * tid, which indexes the process's cache (struct pctx) of its threads.
 *
 * Exit releases everything the process holds at once and keeps only the
 * process object, with how it ended, for as long as a handle to it exists
 * (the parent's, for SYS_WAIT). A spawn that fails half way is undone by
 * the same teardown, so no failure leaves a half-built process.
 *
 * A program without Ferrite's note is a Linux program (task/elf.h): the
 * Linux personality (kernel/linux/) lays out its start and its state
 * through the hook it registers at power-on (proc_on_linux_start), so
 * this file knows no more of Linux than that a process may hold a klinux,
 * and that a dynamic program names an interpreter (the C library's
 * loader), a code object the personality finds by its path, which the
 * spawn checks before it makes anything and maps beside the program.
 */
#include <errstr.h>
#include <stdio.h>
#include <string.h>

#include "core/cmdline.h"
#include "core/heap.h"
#include "core/panic.h"
#include "core/printk.h"
#include "ferrite/errors.h"
#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "obj/kobj.h"
#include "task/elf.h"
#include "task/handle.h"
#include "task/proc.h"
#include "task/ptable.h"
#include "task/sched.h"
#include "uvm/pagecache.h"
#include "uvm/uvm.h"

#define STACK_TOP PROC_STACK_TOP
#define STACK_SIZE PROC_STACK_SIZE
#define SHELL_PROGRAM "bin/osh"
#define SHELL_NAME "osh"
/* shell=sh on the command line: the console's shell is busybox's sh (a
 * Linux program, bin/busybox started as "sh"); a rescue shell is osh */
#define LINUX_SHELL_PROGRAM "bin/busybox"
#define LINUX_SHELL_NAME "sh"
/* SYS_SPAWN never takes the table's last free slot: it is kept for the
 * shell the kernel starts, a safe power-on's rescue shell above all (a
 * runaway program may have filled the rest). */
#define SPAWN_MAX_PROCS (KROOT_MAX_PROCS - 1)

/* Volatile: since power-on. */
static proc_linux_start_fn linux_start;        /* the Linux personality's start */
static proc_linux_interp_fn linux_interp;      /* and its finding of interpreters */
static proc_linux_end_fn linux_ended;          /* its end */
static proc_child_end_fn child_ended;          /* and its word of a child's end */
static uint64_t ends;                          /* processes ended */
static struct fe_exit_info console_shell_end;  /* the last shell on the console to end */

/* proc_is_ancestor -- whether `a` is `p` or one of its ancestors */
bool proc_is_ancestor(const struct pctx *a, const struct pctx *p)
{
	uint64_t pid = p->proc->pid;

	/* Parents have smaller pids (orphans are adopted by older processes), so this walk ends. */
	for (unsigned depth = 0; pid && depth <= KROOT_MAX_PROCS; depth++) {
		struct pctx *q;

		if (pid == a->proc->pid)
			return true;
		q = ptable_by_pid(pid);
		if (!q)
			return false;
		pid = q->proc->parent_pid;
	}
	return false;
}

/* proc_threads_alive -- p's threads that have not exited */
unsigned proc_threads_alive(const struct pctx *p)
{
	unsigned n = 0;

	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++)
		n += p->thread[tid] && p->thread[tid]->state != KTHREAD_EXITED;
	return n;
}

/* proc_thread_new -- a new runnable thread of p; its tid in *tid */
int proc_thread_new(struct pctx *p, uint64_t entry, uint64_t sp, uint64_t arg,
		    unsigned *tid)
{
	struct kthread *t, *first = NULL;
	unsigned i = 0;
	uint64_t id;
	void *data;
	int err;

	while (i < KPROC_MAX_THREADS && p->thread[i])
		i++;
	if (i == KPROC_MAX_THREADS)
		return -ERR_NOSPC;
	err = kobj_new(OS_TYPE_THREAD, sizeof(*t), KTHREAD_MAGIC, &id, &data);
	if (err)
		return err;
	t = data;
	t->proc = p->proc_id;
	t->tid = i;
	arch_user_regs_init(&t->regs, entry, sp, arg, 0, 0);
	t->state = KTHREAD_RUNNABLE;
	/* Second in the list: the first stays where kproc.thread says. */
	for (unsigned j = 0; j < KPROC_MAX_THREADS; j++)
		if (p->thread[j] && p->thread_id[j] == p->proc->thread)
			first = p->thread[j];
	KASSERT(first != NULL);
	t->next = first->next;
	KLOG(&first->next);
	first->next = id;
	p->thread[i] = t;
	p->thread_id[i] = id;
	*tid = i;
	return 0;
}

/* proc_thread_forget -- drop p's exited thread `tid`: unlinked, released */
void proc_thread_forget(struct pctx *p, unsigned tid)
{
	uint64_t id = p->thread_id[tid];
	struct kthread *t = p->thread[tid];

	KASSERT(t && t->state == KTHREAD_EXITED);
	if (p->proc->thread == id) {
		KLOG(&p->proc->thread);
		p->proc->thread = t->next;
	} else {
		for (unsigned i = 0; i < KPROC_MAX_THREADS; i++)
			if (p->thread[i] && p->thread[i]->next == id) {
				KLOG(&p->thread[i]->next);
				p->thread[i]->next = t->next;
			}
	}
	p->thread[tid] = NULL;
	p->thread_id[tid] = 0;
	kobj_release(id);
}

/* release_id -- drop the reference an id field holds, and clear the field */
static void release_id(uint64_t *field)
{
	if (!*field)
		return;
	kobj_release(*field);
	*field = 0;
}

/* vfork_child -- sched_complete_waiting's pick: the parent of the child
 * giving back its borrowed address space */
static uint64_t vfork_child_id;
static bool vfork_child(const struct kthread *t)
{
	return t->wait_obj == vfork_child_id;
}

/* give_back -- vfork's child p ends or execs: the address space it
 * borrowed is its parent's alone again, the parent's tables dropped (p
 * may have changed the mappings under them), and the parent's vfork
 * returns p's pid */
static void give_back(struct pctx *p)
{
	struct pctx *parent = ptable_by_pid(p->proc->parent_pid);

	uvm_drop_tables(&p->mem);
	KLOG(&p->proc->flags);
	p->proc->flags &= ~KPROC_VFORK;
	KLOG(&p->proc->aspace);
	release_id(&p->proc->aspace);
	p->mem.as = NULL;
	if (!parent)
		return;
	uvm_drop_tables(&parent->mem);
	vfork_child_id = p->proc_id;
	sched_complete_waiting(KWAIT_VFORK, vfork_child, (int64_t)p->proc->pid);
}

/* release_space -- p lets go of its address space: its mappings too,
 * unless a vfork's child borrows it still (its parent died first) */
static void release_space(struct pctx *p)
{
	struct os_obj_info info;

	if (!p->mem.as)
		return;
	if (p->proc->flags & KPROC_VFORK) {
		give_back(p);
		return;
	}
	if (os_obj_head(&kheap, p->proc->aspace, &info) == 0 && info.refcount > 1)
		uvm_drop_tables(&p->mem); /* the borrower keeps the mappings */
	else
		uvm_destroy(&p->mem);
}

/* teardown -- release everything p holds and free its slot */
static void teardown(struct pctx *p)
{
	struct kproc *proc = p->proc;
	unsigned slot = proc->slot;

	sched_forget(slot); /* first: no CPU may run on the tables uvm_destroy frees */
	if (p->ht)
		handle_close_all(p);
	release_space(p);
	KLOG(proc);
	for (unsigned tid = 0; tid < KPROC_MAX_THREADS; tid++)
		if (p->thread[tid] && p->thread_id[tid] != proc->thread)
			kobj_release(p->thread_id[tid]);
	release_id(&proc->thread);
	release_id(&proc->aspace);
	release_id(&proc->handles);
	release_id(&proc->code);
	if (p->lx && linux_ended)
		linux_ended(p);
	if (proc->flags & KPROC_LINUX) /* kproc.linux_state exists: kformat.h */
		release_id(&proc->linux_state);
	p->lx = NULL;
	if (kroot->console_fg_pid == proc->pid) {
		KLOG(&kroot->console_fg_pid);
		kroot->console_fg_pid = 0;
	}
	ptable_free(slot);
}

/* adopt_orphans -- p's children become its parent's, so kill still reaches them */
static void adopt_orphans(struct pctx *p)
{
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct pctx *q = ptable_slot(i);

		if (q && q->proc->parent_pid == p->proc->pid) {
			KLOG(&q->proc->parent_pid);
			q->proc->parent_pid = p->proc->parent_pid;
		}
	}
}

/* proc_exit -- end a process, record how, wake its waiters (its
 * parent's among them: wait4) */
void proc_exit(struct pctx *p, struct fe_exit_info *how)
{
	uint64_t id = p->proc_id;
	struct kproc *proc = p->proc;
	struct pctx *parent = ptable_by_pid(proc->parent_pid);
	/* a spawn that failed before the handle table was made (a full heap) has none */
	bool console_shell = p->ht && proc_on_console(p) && proc_is_shell(p);

	adopt_orphans(p);
	teardown(p);
	how->pid = proc->pid;
	proc->exit = *how;
	proc->state = KPROC_EXITED;
	sched_wake(KWAIT_PROCESS, id);
	if (parent) {
		sched_wake(KWAIT_CHILD, parent->proc_id);
		if (child_ended)
			child_ended(parent, id);
	}
	kobj_release(id); /* the slot's reference */
	ends++;
	if (console_shell)
		console_shell_end = *how;
}

/* proc_ends -- how many processes ended since power-on */
uint64_t proc_ends(void)
{
	return ends;
}

/* proc_console_shell_end -- how the last shell on the console ended in
 * this power-on (pid 0: none did) */
const struct fe_exit_info *proc_console_shell_end(void)
{
	return &console_shell_end;
}

/* proc_on_console -- whether p's console is the console, not a channel
 * (a sink: SYS_CONSOLE_SINK, as for the host link's `run`) */
bool proc_on_console(const struct pctx *p)
{
	return p->ht->console_sink == 0;
}

/* proc_end -- proc_exit with a reason, status and detail text */
void proc_end(struct pctx *p, uint32_t reason, int64_t status,
	      const char *detail)
{
	struct fe_exit_info how;

	memset(&how, 0, sizeof(how));
	how.reason = reason;
	how.status = status;
	snprintf(how.detail, sizeof(how.detail), "%s", detail);
	proc_exit(p, &how);
}

/* code_read -- elf_read_fn over a code object */
static int64_t code_read(void *ctx_id, uint64_t off, void *buf, uint64_t len)
{
	return pagecache_read(*(uint64_t *)ctx_id, off, buf, len);
}

/* new_process -- the process, thread, address space and handle table objects */
static int new_process(unsigned slot, struct pctx *parent, uint64_t code,
		       const char *name, struct pctx **out)
{
	struct kproc *proc;
	uint64_t id;
	void *data;
	int err = kobj_new(OS_TYPE_PROCESS, sizeof(*proc), KPROC_MAGIC, &id, &data);

	if (err)
		return err;
	proc = data;
	proc->state = KPROC_ALIVE;
	proc->slot = slot;
	KLOG(&kroot->next_pid);
	if (!kroot->next_pid)
		kroot->next_pid = 1;
	proc->pid = kroot->next_pid++;
	proc->parent_pid = parent ? parent->proc->pid : 0;
	snprintf(proc->name, sizeof(proc->name), "%s", name);
	kobj_hold(code);
	proc->code = code;
	*out = ptable_claim(slot, id, proc);

	err = kobj_new(OS_TYPE_THREAD, sizeof(struct kthread), KTHREAD_MAGIC,
		       &proc->thread, &data);
	if (err)
		return err;
	(*out)->thread[0] = data;
	(*out)->thread_id[0] = proc->thread;
	(*out)->thread[0]->proc = id;
	err = kobj_new(OS_TYPE_ASPACE, sizeof(struct kaspace), KASPACE_MAGIC,
		       &proc->aspace, &data);
	if (err)
		return err;
	(*out)->mem.as = data;
	err = kobj_new(OS_TYPE_HANDLES, sizeof(struct khandles), KHANDLES_MAGIC,
		       &proc->handles, &data);
	if (err)
		return err;
	(*out)->ht = data;
	return 0;
}

/* map_program -- the ELF segments: text in place, data copy-on-write */
static int map_program(struct pctx *p, uint64_t code, const struct elf_image *img)
{
	for (unsigned i = 0; i < img->count; i++) {
		const struct elf_segment *s = &img->seg[i];
		uint64_t start = s->vaddr & ~(uint64_t)(FE_PAGE_SIZE - 1);
		uint64_t end = (s->vaddr + s->memsz + FE_PAGE_SIZE - 1) &
			       ~(uint64_t)(FE_PAGE_SIZE - 1);
		uint64_t offset = s->offset - (s->vaddr - start);
		bool in_place = !(s->prot & FE_PROT_WRITE) && s->memsz == s->filesz;
		uint64_t addr;
		int err;

		if (in_place)
			err = uvm_map(&p->mem, code, offset, end - start, s->prot,
				      FE_MAP_SHARED | FE_MAP_FIXED, s->prot, 0,
				      start, &addr);
		else
			err = uvm_map(&p->mem, code, offset, end - start, s->prot,
				      FE_MAP_PRIVATE | FE_MAP_FIXED,
				      s->prot | FE_PROT_READ, /* W^X stays */
				      s->offset + s->filesz, start, &addr);
		if (err)
			return err;
	}
	return 0;
}

/* push_arguments -- argv on the new stack; the stack pointer and argv in *sp, *argv */
static int push_arguments(struct pctx *p, const struct spawn_args *a,
			  uint64_t *sp, uint64_t *argv)
{
	uint64_t strings = (STACK_TOP - a->argv_bytes) & ~15ull;
	uint64_t pointers[FE_SPAWN_MAX_ARGS + 1];
	uint64_t table = (strings - (a->argc + 1) * 8) & ~15ull;
	size_t pos = 0;
	int err;

	for (unsigned i = 0; i < a->argc; i++) {
		pointers[i] = strings + pos;
		pos += strlen(&a->argv[pos]) + 1;
	}
	pointers[a->argc] = 0;
	err = uvm_copy_out(&p->mem, strings, a->argv, a->argv_bytes);
	if (!err)
		err = uvm_copy_out(&p->mem, table, pointers, (a->argc + 1) * 8);
	*sp = table;
	*argv = table;
	return err;
}

/* A Linux program's interpreter, found and checked before the spawn makes anything. */
struct interp {
	uint64_t code;                 /* its code object; 0: none (a static program) */
	struct elf_image img;
};

/* map_image -- the program's segments, its interpreter's (in->code 0:
 * none) and a fresh stack below STACK_TOP */
static int map_image(struct pctx *p, uint64_t code, const struct elf_image *img,
		     const struct interp *in)
{
	uint64_t stack, addr;
	int err = map_program(p, code, img);

	if (!err && in->code)
		err = map_program(p, in->code, &in->img);
	if (err)
		return err;
	err = os_obj_create(&kheap, OS_TYPE_ANON, STACK_SIZE, &stack);
	if (err)
		return err;
	err = uvm_map(&p->mem, stack, 0, STACK_SIZE, FE_PROT_READ | FE_PROT_WRITE,
		      FE_MAP_SHARED | FE_MAP_FIXED, FE_PROT_READ | FE_PROT_WRITE,
		      0, STACK_TOP - STACK_SIZE, &addr);
	kobj_release(stack); /* the mapping holds it now, or nothing does */
	return err;
}

/* build -- everything of a new process after its objects exist */
static int build(struct pctx *p, uint64_t code, const struct elf_image *img,
		 const struct interp *in, const struct spawn_args *a)
{
	uint64_t sp = 0, argv = 0;
	int err = map_image(p, code, img, in);

	if (err)
		return err;
	if (img->abi == ELF_ABI_FERRITE) {
		err = push_arguments(p, a, &sp, &argv);
		if (err)
			return err;
	}
	for (unsigned i = 0; i < a->grant_count; i++) {
		const struct spawn_grant *g = &a->grant[i];
		int h;

		kobj_hold(g->object);
		h = handle_install(p, g->object, g->rights, g->end);
		if (h < 0) {
			kobj_release(g->object);
			return h;
		}
	}
	KLOG(p->thread[0]);
	if (img->abi == ELF_ABI_FERRITE)
		arch_user_regs_init(&p->thread[0]->regs, img->entry, sp, a->argc,
				    argv, a->grant_count);
	else if (!linux_start)
		return -ERR_NOEXEC;
	else {
		err = linux_start(p, img, in->code ? &in->img : NULL, a, STACK_TOP);
		if (err)
			return err;
	}
	p->thread[0]->state = KTHREAD_RUNNABLE;
	return 0;
}

/* proc_on_linux_start -- at power-on: how Linux programs start, how
 * their interpreters are found, how they end, and what a Linux parent
 * hears of a child's end */
void proc_on_linux_start(proc_linux_start_fn start, proc_linux_interp_fn interp,
			 proc_linux_end_fn end, proc_child_end_fn child_end)
{
	linux_start = start;
	linux_interp = interp;
	linux_ended = end;
	child_ended = child_end;
}

/* proc_fork -- a child of p: a new process running p's code from `regs`
 * (its first thread, not yet runnable: the caller makes it so), its
 * address space p's copy-on-write (uvm_fork), its handle table p's but
 * for process handles (a parent's children are not its child's). The
 * caller adds what its personality keeps. An error ends the half-made
 * child; p is as it was. */
int proc_fork(struct pctx *p, const struct arch_user_regs *regs, bool borrow,
	      struct pctx **out)
{
	int free = ptable_free_slot();
	struct pctx *c = NULL;
	int err;

	*out = NULL;
	if (free < 0 || ptable_count() >= SPAWN_MAX_PROCS)
		return -ERR_NOSPC;
	err = new_process((unsigned)free, p, p->proc->code, p->proc->name, &c);
	if (!err && borrow) { /* vfork: p's own address space, not a copy */
		KLOG(c->proc);
		kobj_release(c->proc->aspace);
		kobj_hold(p->proc->aspace);
		c->proc->aspace = p->proc->aspace;
		c->proc->flags |= KPROC_VFORK;
		c->mem.as = p->mem.as;
	} else if (!err) {
		err = uvm_fork(&p->mem, &c->mem);
	}
	if (err) {
		if (c)
			proc_end(c, FE_EXIT_KILLED, 0, "fork failed");
		return err;
	}
	handle_fork(p, c);
	c->thread[0]->regs = *regs;                /* a fresh thread: no log */
	KLOG(&c->proc->flags);
	c->proc->flags |= p->proc->flags & KPROC_TRACE;
	*out = c;
	return 0;
}

/* proc_exec_image -- p runs `code` (img) in place of what it ran: every
 * mapping gone, the new program's segments, its interpreter's
 * (interp_code 0: none) and a fresh stack (its top in *stack_top) made,
 * and p named `name`. The caller checked all it could first: an error
 * here leaves p without its program, and the caller ends it. */
int proc_exec_image(struct pctx *p, uint64_t code, const struct elf_image *img,
		    uint64_t interp_code, const struct elf_image *interp,
		    const char *name, uint64_t *stack_top)
{
	static struct interp in;       /* the kernel runs one call at a time */
	void *data;
	int err;

	if (p->proc->flags & KPROC_VFORK) { /* a space of its own from here */
		give_back(p);
		err = kobj_new(OS_TYPE_ASPACE, sizeof(struct kaspace), KASPACE_MAGIC,
			       &p->proc->aspace, &data); /* logged by give_back */
		if (err)
			return err;
		p->mem.as = data;
	} else {
		uvm_destroy(&p->mem);
	}
	KLOG(p->proc);
	kobj_hold(code);
	kobj_release(p->proc->code);
	p->proc->code = code;
	snprintf(p->proc->name, sizeof(p->proc->name), "%s", name);
	*stack_top = STACK_TOP;
	in.code = interp_code;
	if (interp_code)
		in.img = *interp;
	return map_image(p, code, img, &in);
}

/* find_interp -- the code object and checked image of the interpreter
 * Linux program `name` names at `path`; says why not */
static int find_interp(const char *name, const char *path, struct interp *in)
{
	struct os_obj_info info;
	const char *why = NULL;
	int err = linux_interp ? linux_interp(path, &in->code) : -ERR_NOEXEC;

	if (err == -ERR_NOENT)
		pr_info("spawn: %s: its interpreter %s is not in the catalogue (ENOENT)\n",
			name, path);
	else if (err)
		pr_info("spawn: %s: its interpreter %s: %s\n", name, path, err_str(err));
	if (err)
		return err;
	err = os_obj_head(&kheap, in->code, &info);
	if (!err && info.type != OS_TYPE_CODE)
		err = -ERR_NOEXEC;
	if (err) {
		pr_info("spawn: %s: its interpreter %s is not a code object (put it with `fe put-linux`)\n",
			name, path);
		return err;
	}
	err = elf_parse_interp(code_read, &in->code, info.size, FE_USER_BASE,
			       STACK_TOP - STACK_SIZE, &in->img, &why);
	if (err)
		pr_info("spawn: %s: its interpreter %s is not one Ferrite runs: %s\n",
			name, path, why ? why : "unreadable");
	return err;
}

/* redirects -- whether a gives a descriptor 0, 1 or 2 something other
 * than the console */
static bool redirects(const struct spawn_args *a)
{
	return a->fd[0].grant || a->fd[1].grant || a->fd[2].grant;
}

/* proc_spawn -- start `code` with argv and handles; the new slot in *slot */
int proc_spawn(struct pctx *parent, uint64_t code, const struct spawn_args *a,
	       unsigned *slot)
{
	static struct interp in;       /* the kernel runs one call at a time */
	struct os_obj_info info;
	struct elf_image img;
	const char *why = NULL;
	struct pctx *p = NULL;
	int free = ptable_free_slot();
	int err;

	if (free < 0 || (parent && ptable_count() >= SPAWN_MAX_PROCS))
		return -ERR_NOSPC;
	err = os_obj_stat(&kheap, code, &info);
	if (err)
		return err;
	err = elf_parse(code_read, &code, info.size, FE_USER_BASE,
			STACK_TOP - STACK_SIZE, &img, &why);
	if (err) {
		pr_info("spawn: %s: not a program Ferrite runs: %s\n", a->argv,
			why ? why : "unreadable");
		return err;
	}
	if (img.abi == ELF_ABI_FERRITE && redirects(a))
		return -ERR_NOTSUP; /* descriptors are a Linux program's */
	if ((a->flags & FE_SPAWN_TRACE) && img.abi != ELF_ABI_LINUX)
		return -ERR_NOTSUP; /* only Linux calls are traced (linux/trace.c) */
	in.code = 0;
	if (img.interp[0]) {
		err = find_interp(a->argv, img.interp, &in);
		if (err)
			return err;
	}
	err = new_process((unsigned)free, parent, code, a->argv, &p);
	if (!err)
		err = build(p, code, &img, &in, a);
	if (err) {
		if (p)
			proc_end(p, FE_EXIT_KILLED, 0, "spawn failed");
		return err;
	}
	*slot = (unsigned)free;
	return 0;
}

/* proc_start -- code object `code` as `name`, with no parent, kproc.flags
 * `flags`, and `grant` (if its object is not 0) as its first inherited
 * handle; NULL, after saying why, if it cannot start */
struct pctx *proc_start(uint64_t code, const char *name, uint32_t flags,
			const struct spawn_grant *grant)
{
	static struct spawn_args args;
	struct spawn_args *a = &args;
	struct pctx *p;
	unsigned slot;
	int err;

	a->flags = 0;
	a->argc = 1;
	a->argv_bytes = strlen(name) + 1;
	memcpy(a->argv, name, a->argv_bytes);
	a->grant_count = grant && grant->object ? 1 : 0;
	if (a->grant_count)
		a->grant[0] = *grant;
	err = proc_spawn(NULL, code, a, &slot);
	if (err) {
		pr_err("ferrite: cannot start %s: %s\n", name, err_str(err));
		return NULL;
	}
	p = ptable_slot(slot);
	KLOG(&p->proc->flags);
	p->proc->flags |= flags;
	return p;
}

/* linux_shell -- whether the console's shell is busybox sh (shell=sh) */
static bool linux_shell(void)
{
	return cmdline_is("shell", "sh");
}

/* proc_start_shell -- the console's shell (bin/osh; busybox sh with
 * shell=sh, but for a rescue shell) with no parent and kproc.flags
 * `flags`; NULL, after saying why, if it cannot start */
struct pctx *proc_start_shell(uint32_t flags)
{
	const bool lx = linux_shell() && !(flags & KPROC_RESCUE);
	const char *program = lx ? LINUX_SHELL_PROGRAM : SHELL_PROGRAM;
	uint64_t code;

	if (os_cat_lookup(&kheap, program, strlen(program), &code)) {
		pr_info("ferrite: no %s in the catalogue\n", program);
		return NULL;
	}
	return proc_start(code, lx ? LINUX_SHELL_NAME : SHELL_NAME, flags, NULL);
}

/* proc_is_shell -- whether p is a shell: a process named as bin/osh's
 * are, or with shell=sh the Linux program the kernel gave the console
 * (its children and orphans, named sh too, are not) */
bool proc_is_shell(const struct pctx *p)
{
	return strcmp(p->proc->name, SHELL_NAME) == 0 ||
	       (linux_shell() && p->lx && p->proc->pid == kroot->console_fg_pid);
}
