/*
 * sys_memory.c -- the system calls on address spaces: map, unmap, protect.
 *
 * Mapping shows (part of) an object in the caller's address space: shared
 * (its stores reach the object) or private (copy on write). What the
 * mapping may ever become is fixed here from the handle's rights
 * (maxprot); uvm.c keeps every mapping within it, and W^X.
 */
#include "core/heap.h"
#include "ferrite/errors.h"
#include "objstore/object.h"
#include "task/handle.h"
#include "task/proc.h"
#include "uvm/uvm.h"
#include "syscall/syscall.h"

#define MAP_FLAGS (FE_PROT_MASK | FE_MAP_SHARED | FE_MAP_PRIVATE | FE_MAP_FIXED)

/* map_rights -- the rights a handle needs for a mapping of `prot` */
static uint32_t map_rights(unsigned prot, unsigned sharing)
{
	uint32_t need = FE_RIGHT_MAP;

	if (prot & FE_PROT_READ)
		need |= FE_RIGHT_READ;
	if ((prot & FE_PROT_WRITE) && sharing == FE_MAP_SHARED)
		need |= FE_RIGHT_WRITE;
	if (prot & FE_PROT_EXEC)
		need |= FE_RIGHT_EXEC;
	return need;
}

/* map_maxprot -- the most a mapping through a handle with `rights` may
 * ever allow (a private mapping's copies are the caller's to write) */
static unsigned map_maxprot(uint32_t rights, unsigned sharing)
{
	unsigned maxprot = 0;

	if (rights & FE_RIGHT_READ)
		maxprot |= FE_PROT_READ;
	if ((rights & FE_RIGHT_WRITE) || sharing == FE_MAP_PRIVATE)
		maxprot |= FE_PROT_WRITE;
	if (rights & FE_RIGHT_EXEC)
		maxprot |= FE_PROT_EXEC;
	return maxprot;
}

/* SYS_MAP (handle, offset, len, flags, addr) -> the address mapped */
int64_t sys_map(struct syscall *call)
{
	struct pctx *p = call->caller;
	const int64_t handle = (int64_t)call->arg[0];
	const uint64_t offset = call->arg[1], len = call->arg[2];
	const uint64_t flags = call->arg[3], hint = call->arg[4];
	const unsigned prot = flags & FE_PROT_MASK;
	const unsigned sharing = flags & (FE_MAP_SHARED | FE_MAP_PRIVATE);
	struct os_obj_info info;
	struct khandle *h;
	uint64_t addr;
	int err;

	if (flags & ~(uint64_t)MAP_FLAGS ||
	    (sharing != FE_MAP_SHARED && sharing != FE_MAP_PRIVATE))
		return -ERR_INVAL;
	err = handle_lookup(p, handle, handle_types(USE_BYTES),
			    map_rights(prot, sharing), &h);
	if (err)
		return err;
	err = os_obj_stat(&kheap, h->object, &info);
	if (err)
		return err;
	err = uvm_map(&p->mem, h->object, offset, len, prot, (unsigned)flags,
		      map_maxprot(h->rights, sharing), info.size, hint, &addr);
	return err ? err : (int64_t)addr;
}

/* SYS_UNMAP (addr, len) -> 0 */
int64_t sys_unmap(struct syscall *call)
{
	const uint64_t addr = call->arg[0], len = call->arg[1];

	return uvm_unmap(&call->caller->mem, addr, len);
}

/* SYS_PROTECT (addr, len, prot) -> 0 */
int64_t sys_protect(struct syscall *call)
{
	const uint64_t addr = call->arg[0], len = call->arg[1];
	const uint64_t prot = call->arg[2];

	return uvm_protect(&call->caller->mem, addr, len, (unsigned)prot);
}
