/*
 * ptable.c -- the process table: slots in the kernel root, and the
 * volatile context of each live process.
 *
 * The kernel root (kroot.procs, obj/kobj.h) names the process object in
 * each slot, 0 for a free slot. A slot's context (struct pctx) caches
 * where that process's objects' bytes are: its process, threads, address
 * space and handle table, and its page tables (uvm/upt.h). The cache is
 * derived from the heap, empty after every power-on, and loaded on first
 * use from the objects the power-on check proved well formed
 * (kformat/kcheck.c); proc.c claims a slot when it makes a process and
 * frees it when the process ends.
 *
 * Invariant: ctx[slot].proc_id is kroot->procs[slot] or 0 (not loaded).
 */
#include <string.h>

#include "core/heap.h"
#include "core/panic.h"
#include "obj/kobj.h"
#include "task/ptable.h"

/* Volatile: the contexts of the slots in use, loaded on first use after
 * every power-on. */
static struct pctx ctx[KROOT_MAX_PROCS];

/* load_threads -- the cache of p's threads, from its thread list (which
 * the power-on check, kcheck.c, proved well formed); false if it is not */
static bool load_threads(struct pctx *p)
{
	uint64_t id = p->proc->thread;
	unsigned n = 0;

	memset(p->thread, 0, sizeof(p->thread));
	for (; id && n < KPROC_MAX_THREADS; n++) {
		struct kthread *t = kobj_data(id, OS_TYPE_THREAD, KTHREAD_MAGIC);

		if (!t || t->tid >= KPROC_MAX_THREADS || p->thread[t->tid])
			return false;
		p->thread[t->tid] = t;
		p->thread_id[t->tid] = id;
		id = t->next;
	}
	return n > 0 && !id;
}

/* load_ctx -- fill the cache of slot `slot` from process object `id` */
static struct pctx *load_ctx(unsigned slot, uint64_t id)
{
	struct pctx *p = &ctx[slot];
	struct kproc *proc = kobj_data(id, OS_TYPE_PROCESS, KPROC_MAGIC);

	if (!proc || proc->state != KPROC_ALIVE)
		panic("ptable: slot %u names object %llu, which is not a live process",
		      slot, (unsigned long long)id);
	p->proc = proc;
	p->mem.as = kobj_data(proc->aspace, OS_TYPE_ASPACE, KASPACE_MAGIC);
	p->mem.slot = slot;
	p->ht = kobj_data(proc->handles, OS_TYPE_HANDLES, KHANDLES_MAGIC);
	/* kproc.linux_state exists only in processes with KPROC_LINUX (kformat.h) */
	p->lx = proc->flags & KPROC_LINUX ?
		kobj_data(proc->linux_state, OS_TYPE_KERNEL, KLINUX_MAGIC) : NULL;
	if (!load_threads(p) || !p->mem.as || !p->ht ||
	    (proc->flags & KPROC_LINUX && !p->lx))
		panic("ptable: process %llu (pid %llu) has a damaged thread list, address space, handle table or Linux state",
		      (unsigned long long)id, (unsigned long long)proc->pid);
	p->proc_id = id;
	return p;
}

/* ptable_slot -- the context of slot `slot`, NULL if free */
struct pctx *ptable_slot(unsigned slot)
{
	uint64_t id = kroot->procs[slot];

	if (!id)
		return NULL;
	if (ctx[slot].proc_id == id)
		return &ctx[slot];
	return load_ctx(slot, id);
}

/* ptable_by_pid -- a live process, NULL if none */
struct pctx *ptable_by_pid(uint64_t pid)
{
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct pctx *p = ptable_slot(i);

		if (p && p->proc->pid == pid)
			return p;
	}
	return NULL;
}

/* ptable_count -- live processes */
unsigned ptable_count(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++)
		n += kroot->procs[i] != 0;
	return n;
}

/* ptable_claim -- slot `slot` now holds process object `id` (logged);
 * its context, holding only the process until the caller fills it */
struct pctx *ptable_claim(unsigned slot, uint64_t id, struct kproc *proc)
{
	KLOG(&kroot->procs[slot]);
	kroot->procs[slot] = id;
	ctx[slot] = (struct pctx){ .proc_id = id, .proc = proc, .mem.slot = slot };
	return &ctx[slot];
}

/* ptable_free -- slot `slot` holds no process any more (logged) */
void ptable_free(unsigned slot)
{
	KLOG(&kroot->procs[slot]);
	kroot->procs[slot] = 0;
	memset(&ctx[slot], 0, sizeof(ctx[slot]));
}

/* ptable_free_slot -- a free slot, -1 if none */
int ptable_free_slot(void)
{
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++)
		if (!kroot->procs[i])
			return (int)i;
	return -1;
}
