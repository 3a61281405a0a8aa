/*
 * sys_name.c -- the system calls on the catalogue: bind, unbind, rename,
 * list.
 *
 * The catalogue maps names (1 to FE_NAME_MAX bytes) to object ids; each
 * name holds one reference to its object. Binding needs the grant right
 * on a handle to a type that may be named (handle.c); unbinding and
 * renaming need only the names. Listing resumes from a cursor the caller
 * keeps, so a long listing is many short calls.
 */
#include <string.h>

#include "core/heap.h"
#include "ferrite/errors.h"
#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "task/handle.h"
#include "obj/kobj.h"
#include "task/proc.h"
#include "uvm/uvm.h"
#include "syscall/syscall.h"

#define LIST_MAX 64u                   /* entries one SYS_NAME_LIST returns at most */

/* bind_args -- the arguments of SYS_NAME_BIND and SYS_NAME_REPLACE
 * (handle, name, name_len): the handle's entry, which needs the grant
 * right and a type that may be named, and the name */
static int bind_args(struct syscall *call, struct khandle **h, char *name)
{
	int err = handle_lookup(call->caller, (int64_t)call->arg[0], HANDLE_ANY_TYPE,
				FE_RIGHT_GRANT, h);

	if (err)
		return err;
	if (!(handle_types(USE_NAME) & HANDLE_TYPE(kobj_type((*h)->object))))
		return -ERR_PERM;
	return copy_name(call->caller, name, call->arg[1], call->arg[2]);
}

/* SYS_NAME_BIND (handle, name, name_len) -> 0 */
int64_t sys_name_bind(struct syscall *call)
{
	const uint64_t name_len = call->arg[2];
	char name[FE_NAME_MAX];
	struct khandle *h;
	int err = bind_args(call, &h, name);

	if (err)
		return err;
	err = os_cat_insert(&kheap, name, name_len, h->object);
	if (err)
		return err;
	kobj_hold(h->object); /* the name's reference */
	return 0;
}

/* SYS_NAME_REPLACE (handle, name, name_len) -> 0: like SYS_NAME_BIND, but
 * a bound name is bound to the handle's object instead, in one change of
 * the catalogue (so a power cut leaves the old binding or the new one) */
int64_t sys_name_replace(struct syscall *call)
{
	const uint64_t name_len = call->arg[2];
	char name[FE_NAME_MAX];
	struct khandle *h;
	uint64_t old;
	int err = bind_args(call, &h, name);

	if (err)
		return err;
	err = os_cat_replace(&kheap, name, name_len, h->object, &old);
	if (err == -ERR_NOENT) {
		old = 0;
		err = os_cat_insert(&kheap, name, name_len, h->object);
	}
	if (err)
		return err;
	kobj_hold(h->object); /* the name's reference (before the old one
			       * goes: the two may be the same object) */
	if (old)
		kobj_release(old);
	return 0;
}

/* SYS_NAME_UNBIND (name, name_len) -> 0 */
int64_t sys_name_unbind(struct syscall *call)
{
	const uint64_t name_ptr = call->arg[0], name_len = call->arg[1];
	char name[FE_NAME_MAX];
	uint64_t id;
	int err;

	err = copy_name(call->caller, name, name_ptr, name_len);
	if (err)
		return err;
	err = os_cat_remove(&kheap, name, name_len, &id);
	if (err)
		return err;
	kobj_release(id);
	return 0;
}

/* SYS_NAME_RENAME (from, from_len, to, to_len) -> 0 */
int64_t sys_name_rename(struct syscall *call)
{
	struct pctx *p = call->caller;
	const uint64_t from_ptr = call->arg[0], from_len = call->arg[1];
	const uint64_t to_ptr = call->arg[2], to_len = call->arg[3];
	char from[FE_NAME_MAX], to[FE_NAME_MAX];
	int err;

	err = copy_name(p, from, from_ptr, from_len);
	if (err)
		return err;
	err = copy_name(p, to, to_ptr, to_len);
	if (err)
		return err;
	return os_cat_rename(&kheap, from, from_len, to, to_len);
}

/* read_cursor -- the caller's listing cursor: a new one over `prefix`, or
 * where the last call stopped */
static int read_cursor(struct pctx *p, uint64_t cursor_ptr, const char *prefix,
		       uint64_t prefix_len, struct os_cat_cursor *c)
{
	struct fe_cursor uc;
	int err = uvm_copy_in(&p->mem, &uc, cursor_ptr, sizeof(uc));

	if (err)
		return err;
	if (uc.len > FE_NAME_MAX || uc.started > 1)
		return -ERR_INVAL;
	if (!uc.len && !uc.started) {
		os_cat_cursor_init(c, prefix, prefix_len);
	} else {
		c->len = uc.len;
		c->started = uc.started;
		memcpy(c->name, uc.name, uc.len);
	}
	return 0;
}

/* write_cursor -- where this call stopped, for the next */
static int write_cursor(struct pctx *p, uint64_t cursor_ptr,
			const struct os_cat_cursor *c)
{
	struct fe_cursor uc;

	memset(&uc, 0, sizeof(uc));
	uc.len = c->len;
	uc.started = c->started;
	memcpy(uc.name, c->name, c->len);
	return uvm_copy_out(&p->mem, cursor_ptr, &uc, sizeof(uc));
}

/* SYS_NAME_LIST (prefix, prefix_len, cursor, entries, max) -> entries
 * written (up to LIST_MAX), the cursor moved past them; 0 at the end */
int64_t sys_name_list(struct syscall *call)
{
	static struct fe_name_entry entry;
	struct pctx *p = call->caller;
	const uint64_t prefix_ptr = call->arg[0], prefix_len = call->arg[1];
	const uint64_t cursor_ptr = call->arg[2], entries = call->arg[3];
	const uint64_t max = call->arg[4] < LIST_MAX ? call->arg[4] : LIST_MAX;
	char prefix[FE_NAME_MAX];
	struct os_cat_cursor c;
	uint64_t n = 0;
	int err;

	if (prefix_len > FE_NAME_MAX || !max)
		return -ERR_INVAL;
	if (prefix_len) {
		err = uvm_copy_in(&p->mem, prefix, prefix_ptr, prefix_len);
		if (err)
			return err;
	}
	err = read_cursor(p, cursor_ptr, prefix, prefix_len, &c);
	if (err)
		return err;
	while (n < max) {
		struct os_obj_info info;
		uint64_t id;

		err = os_cat_next(&kheap, &c, prefix, prefix_len, &id);
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
		err = uvm_copy_out(&p->mem, entries + n * sizeof(entry), &entry,
				   sizeof(entry));
		if (err)
			return err;
		n++;
	}
	err = write_cursor(p, cursor_ptr, &c);
	return err ? err : (int64_t)n;
}
