/*
 * ptable.h -- the process table: slots in the kernel root, and the
 * volatile context of each live process (ptable.c).
 */
#ifndef TASK_PTABLE_H
#define TASK_PTABLE_H

#include <stdint.h>

#include "kformat/kformat.h"
#include "uvm/upt.h"

/* Volatile: one per process-table slot that is in use. */
struct pctx {
	uint64_t proc_id;
	struct kproc *proc;
	struct kthread *thread[KPROC_MAX_THREADS]; /* by tid; NULL: no such thread */
	uint64_t thread_id[KPROC_MAX_THREADS];     /* their objects */
	struct uspace mem;             /* its address space, and page tables (uvm/upt.h) */
	struct khandles *ht;
	struct klinux *lx;             /* a Linux program's state (kproc.linux_state); NULL: a Ferrite program */
};

/* ptable_slot -- the context of slot `slot`, NULL if the slot is free */
struct pctx *ptable_slot(unsigned slot);

/* ptable_by_pid -- the live process `pid`, NULL if none */
struct pctx *ptable_by_pid(uint64_t pid);

/* ptable_count -- live processes */
unsigned ptable_count(void);

/* ptable_free_slot -- a free slot, -1 if none */
int ptable_free_slot(void);

/* ptable_claim -- slot `slot` now holds process object `id` (logged);
 * its context, holding only the process until the caller fills it */
struct pctx *ptable_claim(unsigned slot, uint64_t id, struct kproc *proc);

/* ptable_free -- slot `slot` holds no process any more (logged); its
 * context is forgotten */
void ptable_free(unsigned slot);

#endif
