/*
 * fault.c -- CPU exceptions raised by user code.
 *
 * The architecture decodes the exception (struct arch_fault: what kind,
 * where, and for a page fault the address, the access and whether the
 * page was present); this file decides what it means for the process. A
 * page fault is first offered to the address space (uvm_fault), which
 * resolves it when the access is allowed: a page made on first touch, a
 * private copy, or a page logged in the running epoch before it becomes
 * writable. Anything that cannot be resolved ends the faulting process
 * -- never the kernel -- with FE_EXIT_FAULT, the fault kind (FE_FAULT_*),
 * the address and instruction, and a line in words that its parent reads
 * with SYS_WAIT and the console shows after what the process wrote.
 *
 * A Linux program with a handler for the fault's signal (SIGSEGV and its
 * kin) goes on in its handler instead (linux/signal.c).
 *
 * A fault (unlike a trap such as a breakpoint) runs its instruction again
 * when the thread returns. So when the undo log could not take one more
 * kernel entry, the fault is left unresolved: it happens again after the
 * commit that epoch_reserve_entry asks for.
 */
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "core/heap.h"
#include "core/panic.h"
#include "ferrite/errors.h"
#include "console/console.h"
#include "epoch/epoch.h"
#include "linux/linux.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/uvm.h"

/* uvm_access_of -- the address-space access of a decoded page fault */
static unsigned uvm_access_of(enum arch_access access)
{
	switch (access) {
	case ARCH_ACCESS_WRITE:
		return UVM_WRITE;
	case ARCH_ACCESS_FETCH:
		return UVM_EXEC;
	default:
		return UVM_READ;
	}
}

/* describe -- how the process ended: the fault in words, a page fault
 * saying why the address space refused it (`why`) */
static void describe(const struct arch_fault *f, const char *why,
		     struct fe_exit_info *how)
{
	memset(how, 0, sizeof(*how));
	how->reason = FE_EXIT_FAULT;
	how->vector = f->kind;
	how->fault_rip = f->ip;
	if (f->kind == FE_FAULT_PAGE)
		how->fault_addr = f->addr;
	arch_fault_describe(f, why, how->detail, sizeof(how->detail));
}

/* user_fault -- a CPU exception raised by user code: resolved, or the end
 * of the process */
void user_fault(const struct arch_fault *f)
{
	struct pctx *p = sched_current();
	struct fe_exit_info how;
	const char *why = NULL;
	char line[sizeof(how.detail) + 64];
	int n;

	KASSERT(p != NULL);
	if (f->restarts && !epoch_reserve_entry())
		return; /* the instruction faults again after the commit */
	if (f->kind == FE_FAULT_PAGE) {
		int err = uvm_fault(&p->mem, f->addr, uvm_access_of(f->access), &why);

		if (!err)
			return;
		if (err == -ERR_CORRUPT)
			heap_damaged("a page fault of pid %llu (%s) at %#llx met a damaged object",
				     (unsigned long long)p->proc->pid, p->proc->name,
				     (unsigned long long)f->addr);
	}
	if (p->lx && linux_fault(p, f))
		return; /* its handler runs on the way back to user mode */
	describe(f, why, &how);
	/* Through the console queue: after what the process wrote before. */
	n = snprintf(line, sizeof(line), "[%llu %s] killed: %s\n",
		     (unsigned long long)p->proc->pid, p->proc->name, how.detail);
	console_emit(line, n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1);
	proc_exit(p, &how);
}
