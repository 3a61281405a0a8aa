/*
 * upt.h -- user page tables: an address space as the kernel runs it, the
 * tables made for it, which CPU runs on which, and shootdowns (upt.c).
 */
#ifndef UVM_UPT_H
#define UVM_UPT_H

#include <stdint.h>

#include "kformat/kformat.h"

/* Volatile: a process's address space as the kernel runs it -- its
 * mappings, persistent in the heap, and the page tables made from them, a
 * cache that is empty after every power-on and may be dropped at any
 * time. One per process-table slot (task/proc.h's struct pctx holds it,
 * at an address that does not move). */
struct uspace {
	struct kaspace *as;            /* the mappings (persistent) */
	uint64_t pt_root;              /* its page tables; 0: none yet */
	unsigned slot;                 /* its process-table slot */
};

/* upt_activate -- run on us's page tables, made on first use; 0, or
 * -ERR_NOMEM when DRAM has no page for them */
int upt_activate(struct uspace *us);

/* upt_leave -- this CPU runs on the kernel's own tables (it is about to
 * idle: the tables it ran on may be freed meanwhile) */
void upt_leave(void);

/* upt_space -- the address space of process-table slot `slot` if it has
 * page tables, NULL if not */
struct uspace *upt_space(unsigned slot);

/* upt_shootdown -- us's tables lost a right or changed a frame: every
 * other CPU that runs on them is stopped, so that it leaves them and
 * loads them again with its TLB emptied (NULL: nothing to do) */
void upt_shootdown(const struct uspace *us);

/* upt_destroy -- free us's page tables, no CPU running on them any more
 * (others that did are stopped first) */
void upt_destroy(struct uspace *us);

#endif
