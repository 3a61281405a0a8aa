/*
 * args.c -- what the families of system calls share in checking their
 * arguments and handing out results: a catalogue name copied in, a
 * handle installed for a new reference.
 */
#include "ferrite/errors.h"
#include "obj/kobj.h"
#include "syscall/syscall.h"
#include "task/handle.h"
#include "task/proc.h"
#include "uvm/uvm.h"

/* copy_name -- a catalogue name from user memory */
int copy_name(struct pctx *p, char *name, uint64_t ptr, uint64_t len)
{
	if (!len || len > FE_NAME_MAX)
		return -ERR_INVAL;
	return uvm_copy_in(&p->mem, name, ptr, len);
}

/* install_new -- a handle for a reference we hold; released if no slot */
int64_t install_new(struct pctx *p, uint64_t object, uint32_t rights,
		    uint8_t end)
{
	int h = handle_install(p, object, rights, end);

	if (h < 0)
		kobj_release(object);
	return h;
}
