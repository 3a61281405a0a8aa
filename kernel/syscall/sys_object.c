/*
 * sys_object.c -- the system calls on objects and handles: create, open
 * (by name or by id), stat, read, write, resize, close, dup.
 *
 * A program reaches an object only through a handle carrying rights; what
 * a handle to each type may carry and do is handle.c's type table. Bytes
 * move between a program and an object through a kernel buffer, a chunk
 * at a time, never through the program's own mapping of the object.
 */
#include <string.h>

#include "core/heap.h"
#include "ferrite/errors.h"
#include "hostlink/hostlink.h"
#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "task/handle.h"
#include "obj/kobj.h"
#include "uvm/pagecache.h"
#include "task/proc.h"
#include "uvm/uvm.h"
#include "syscall/syscall.h"

#define IO_CHUNK 4096u

static uint8_t io_buffer[IO_CHUNK];

/* create_code -- a code object of `size` bytes copied from the blob of
 * `source` -> a handle with code's rights. Only with the host link's
 * handle and its FE_RIGHT_EXEC (`link`): code objects come from the boot
 * modules, objtool, and a program put in live through the link
 * (docs/hostlink.md). */
static int64_t create_code(struct pctx *p, uint64_t size, int64_t source,
			   int64_t link)
{
	struct os_obj_info info;
	struct khandle *h;
	uint64_t id, at = 0;
	int err = hostlink_power(p, link, FE_RIGHT_EXEC);

	if (err)
		return err;
	err = handle_lookup(p, source, HANDLE_TYPE(OS_TYPE_BLOB), FE_RIGHT_READ, &h);
	if (!err)
		err = os_obj_stat(&kheap, h->object, &info);
	if (err)
		return err;
	if (info.size != size)
		return -ERR_INVAL;
	if (handle_full(p, 1))
		return -ERR_NOSPC;
	err = os_obj_create(&kheap, OS_TYPE_CODE, size, &id);
	if (err)
		return err;
	while (!err && at < size) {
		uint64_t want = size - at < IO_CHUNK ? size - at : IO_CHUNK;
		int64_t got = pagecache_read(h->object, at, io_buffer, want);

		if (got == (int64_t)want)
			got = os_obj_write(&kheap, id, at, io_buffer, want);
		if (got != (int64_t)want)
			err = got < 0 ? (int)got : -ERR_IO;
		at += want;
	}
	if (err) {
		kobj_release(id); /* its only reference: the reaper deletes it */
		return err;
	}
	return install_new(p, id, handle_rights_max(OS_TYPE_CODE), 0);
}

/* SYS_OBJ_CREATE (type, size[, source, link]) -> a handle with every
 * right (for FE_TYPE_CODE: code's rights, copied from the blob `source`
 * with the host link's handle `link`) */
int64_t sys_obj_create(struct syscall *call)
{
	struct pctx *p = call->caller;
	const uint64_t type = call->arg[0], size = call->arg[1];
	uint64_t id;
	int err;

	if (type == OS_TYPE_CODE)
		return create_code(p, size, (int64_t)call->arg[2], (int64_t)call->arg[3]);
	if (type != OS_TYPE_BLOB && type != OS_TYPE_ANON)
		return -ERR_INVAL;
	if (size > FE_OBJ_SIZE_MAX)
		return -ERR_TOOBIG;
	if (handle_full(p, 1))
		return -ERR_NOSPC;
	err = os_obj_create(&kheap, (uint16_t)type, size, &id);
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
	if (rights & ~(uint64_t)handle_rights_max(info.type))
		return -ERR_PERM;
	if (handle_full(p, 1))
		return -ERR_NOSPC;
	kobj_hold(id);
	return install_new(p, id, (uint32_t)rights, 1);
}

/* SYS_OBJ_OPEN (name, name_len, rights) -> a handle to the object named */
int64_t sys_obj_open(struct syscall *call)
{
	struct pctx *p = call->caller;
	const uint64_t name_ptr = call->arg[0], name_len = call->arg[1];
	const uint64_t rights = call->arg[2];
	char name[FE_NAME_MAX];
	uint64_t id;
	int err;

	err = copy_name(p, name, name_ptr, name_len);
	if (err)
		return err;
	err = os_cat_lookup(&kheap, name, name_len, &id);
	if (err)
		return err;
	return open_id(p, id, rights);
}

/* SYS_OBJ_OPEN_ID (id, rights) -> a handle to the object (blob and code only) */
int64_t sys_obj_open_id(struct syscall *call)
{
	const uint64_t id = call->arg[0], rights = call->arg[1];
	uint16_t type = kobj_type(id);

	if (!type)
		return -ERR_NOENT;
	if (!(handle_types(USE_OPEN_BY_ID) & HANDLE_TYPE(type)))
		return -ERR_PERM;
	return open_id(call->caller, id, rights);
}

/* SYS_OBJ_STAT (handle, stat) -> 0, the object's struct fe_stat */
int64_t sys_obj_stat(struct syscall *call)
{
	struct pctx *p = call->caller;
	const int64_t handle = (int64_t)call->arg[0];
	const uint64_t stat_ptr = call->arg[1];
	struct os_obj_info info;
	struct fe_stat st;
	struct khandle *h;
	int err;

	err = handle_lookup(p, handle, HANDLE_ANY_TYPE, 0, &h);
	if (err)
		return err;
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
	return uvm_copy_out(&p->mem, stat_ptr, &st, sizeof(st));
}

/* SYS_OBJ_READ (handle, offset, buf, len) -> bytes read (up to FE_IO_MAX) */
int64_t sys_obj_read(struct syscall *call)
{
	struct pctx *p = call->caller;
	const int64_t handle = (int64_t)call->arg[0];
	const uint64_t offset = call->arg[1], buf = call->arg[2];
	const uint64_t len = call->arg[3] < FE_IO_MAX ? call->arg[3] : FE_IO_MAX;
	uint64_t done = 0;
	struct khandle *h;
	int err;

	err = handle_lookup(p, handle, handle_types(USE_BYTES), FE_RIGHT_READ, &h);
	if (err)
		return err;
	while (done < len) {
		uint64_t want = len - done < IO_CHUNK ? len - done : IO_CHUNK;
		int64_t got = pagecache_read(h->object, offset + done,
					     io_buffer, want);

		if (got <= 0)
			return got < 0 && !done ? got : (int64_t)done;
		err = uvm_copy_out(&p->mem, buf + done, io_buffer, (uint64_t)got);
		if (err)
			return done ? (int64_t)done : err;
		done += (uint64_t)got;
		if ((uint64_t)got < want)
			break;
	}
	return (int64_t)done;
}

/* SYS_OBJ_WRITE (handle, offset, buf, len) -> bytes written, within the
 * object's size (up to FE_IO_MAX) */
int64_t sys_obj_write(struct syscall *call)
{
	struct pctx *p = call->caller;
	const int64_t handle = (int64_t)call->arg[0];
	const uint64_t offset = call->arg[1], buf = call->arg[2];
	const uint64_t len = call->arg[3] < FE_IO_MAX ? call->arg[3] : FE_IO_MAX;
	struct os_obj_info info;
	uint64_t done = 0;
	struct khandle *h;
	int err;

	err = handle_lookup(p, handle, handle_types(USE_BYTES), FE_RIGHT_WRITE, &h);
	if (err)
		return err;
	err = uvm_check(&p->mem, buf, len, UVM_READ);
	if (err)
		return err;
	err = os_obj_stat(&kheap, h->object, &info);
	if (err)
		return err;
	if (offset > info.size || len > info.size - offset)
		return -ERR_RANGE; /* resize first */
	while (done < len) {
		uint64_t want = len - done < IO_CHUNK ? len - done : IO_CHUNK;
		int64_t wrote;

		err = uvm_copy_in(&p->mem, io_buffer, buf + done, want);
		if (err)
			return done ? (int64_t)done : err;
		wrote = pagecache_write(h->object, offset + done, io_buffer,
					want);
		if (wrote < 0)
			return done ? (int64_t)done : wrote;
		done += (uint64_t)wrote;
	}
	return (int64_t)done;
}

/* SYS_OBJ_RESIZE (handle, size) -> 0 */
int64_t sys_obj_resize(struct syscall *call)
{
	struct pctx *p = call->caller;
	const int64_t handle = (int64_t)call->arg[0];
	const uint64_t size = call->arg[1];
	struct os_obj_info info;
	struct khandle *h;
	int err;

	err = handle_lookup(p, handle, handle_types(USE_BYTES), FE_RIGHT_WRITE, &h);
	if (err)
		return err;
	err = os_obj_stat(&kheap, h->object, &info);
	if (err)
		return err;
	if (size > FE_OBJ_SIZE_MAX)
		return -ERR_TOOBIG;
	err = os_obj_resize(&kheap, h->object, size);
	if (!err)
		pagecache_resized(h->object, size);
	/* Freed pages may still be in page tables (even after a partial
	 * shrink): drop every cache; the next faults rebuild them. */
	if (size < info.size)
		uvm_drop_all_tables();
	return err;
}

/* SYS_CLOSE (handle) -> 0 */
int64_t sys_close(struct syscall *call)
{
	const int64_t handle = (int64_t)call->arg[0];

	return handle_close(call->caller, handle);
}

/* SYS_DUP (handle, rights) -> a new handle to the same object with fewer
 * or the same rights */
int64_t sys_dup(struct syscall *call)
{
	struct pctx *p = call->caller;
	const int64_t handle = (int64_t)call->arg[0];
	const uint64_t rights = call->arg[1];
	struct khandle *h;
	int err;

	err = handle_lookup(p, handle, HANDLE_ANY_TYPE, 0, &h);
	if (err)
		return err;
	if (rights & ~(uint64_t)h->rights)
		return -ERR_PERM;
	if (handle_full(p, 1))
		return -ERR_NOSPC;
	kobj_hold(h->object);
	return install_new(p, h->object, (uint32_t)rights, h->end);
}
