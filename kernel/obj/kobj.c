/*
 * kobj.c -- the kernel root, typed access to the kernel's objects in the
 * heap, their references, and the reap queue.
 *
 * The kernel root (struct kroot, app root 0 of the heap) is where every
 * other kernel object is reached from: the process table, the console,
 * the reap queue. kobj_root_init finds it at every power-on, or makes it
 * at genesis; its existence is what makes genesis complete (heap.c).
 *
 * Every kernel object is a small objstore object whose bytes start with a
 * magic (kformat/kformat.h). kobj_data hands out a pointer only when the id exists,
 * has the expected type and its bytes carry the expected magic, so a stale
 * or forged id can never be mistaken for another kind of object.
 *
 * Deleting: kobj_release drops one reference; the last one is not dropped
 * but passes to the reap queue, which holds it until kobj_reap deletes the
 * object at a safe point. So every object in the heap, committed or not,
 * has a refcount of at least 1 (objtool check verifies it), also while it
 * waits in the queue across commits. kobj_reap deletes queued objects at safe
 * points, a channel after releasing what it alone holds (its queues and
 * the objects its queued messages carry, which join the queue: no
 * recursion). Processes are torn down by proc_exit before their last
 * reference goes, so here they are just freed. What the rooms above keep
 * about an object (a channel's queues, the DRAM cache's pages) they drop
 * in the hooks kobj_on_delete registers, run just before it goes. Deleting a large object
 * may need more log than is left: objstore then leaves it cut part way
 * and the reaper finishes it after the next commit.
 *
 * An objstore error on a reference or a deletion means a damaged heap (an
 * id that must name a live object does not): heap_damaged stops the
 * machine before the epoch commits.
 */
#include <string.h>

#include "core/heap.h"
#include "core/panic.h"
#include "errstr.h"
#include "ferrite/errors.h"
#include "objstore/object.h"
#include "obj/kobj.h"

#define DELETE_HOOKS 4

static int kobj_reap_init(void);

struct kroot *kroot;

/* Volatile: registered at every power-on (kernel/main.c). */
static kobj_delete_hook delete_hooks[DELETE_HOOKS];
static unsigned delete_hook_count;

/* kobj_root_init -- find the kernel root, or make it (genesis); whether it was made */
bool kobj_root_init(void)
{
	uint64_t id = os_app_root(&kheap, 0);
	void *data;
	int err;

	if (id) {
		kroot = kobj_data(id, OS_TYPE_KERNEL, KROOT_MAGIC);
		if (!kroot)
			panic("kobj: the heap's kernel root (object %llu) is missing or damaged",
			      (unsigned long long)id);
		if (kroot->version != KROOT_VERSION)
			panic("kobj: the heap's kernel objects are version %u; this kernel knows version %u (make a new image, or boot the kernel that made it)",
			      kroot->version, KROOT_VERSION);
		return false;
	}
	err = kobj_new(OS_TYPE_KERNEL, sizeof(*kroot), KROOT_MAGIC, &id, &data);
	if (!err)
		err = os_app_root_set(&kheap, 0, id);
	if (err)
		panic("kobj: cannot create the kernel root: %s", err_str(err));
	kroot = data;
	kroot->version = KROOT_VERSION;
	kroot->next_pid = 1;
	if (kobj_reap_init())
		panic("kobj: no room in the heap for the kernel's reap queue");
	return true;
}

/* kobj_on_delete -- `hook` runs for every object the reaper deletes */
void kobj_on_delete(kobj_delete_hook hook)
{
	/* Invariant: registered once each, at power-on. */
	KASSERT(delete_hook_count < DELETE_HOOKS);
	delete_hooks[delete_hook_count++] = hook;
}

/* kobj_new -- a zeroed small object of `type` with `magic` first; refcount 1 */
int kobj_new(uint16_t type, uint64_t size, uint32_t magic, uint64_t *id,
	     void **data)
{
	int err = os_obj_create(&kheap, type, size, id);
	uint32_t *bytes;

	if (err)
		return err;
	/* A fresh block: rollback frees it, so its first bytes need no log. */
	bytes = os_obj_data(&kheap, *id);
	KASSERT(bytes != NULL);
	bytes[0] = magic;
	*data = bytes;
	return 0;
}

/* kobj_type -- the type of object `id`, 0 if it does not exist */
uint16_t kobj_type(uint64_t id)
{
	struct os_obj_info info;

	if (!id || os_obj_head(&kheap, id, &info))
		return 0;
	return info.type;
}

/* kobj_data -- object `id`'s bytes if it is a small object of `type` with `magic` */
void *kobj_data(uint64_t id, uint16_t type, uint32_t magic)
{
	uint32_t *bytes;

	if (kobj_type(id) != type)
		return NULL;
	bytes = os_obj_data(&kheap, id);
	if (!bytes || bytes[0] != magic)
		return NULL;
	return bytes;
}

/* kobj_hold -- one more reference to a live object */
void kobj_hold(uint64_t id)
{
	uint32_t count;
	int err = os_obj_ref(&kheap, id, 1, &count);

	if (err)
		heap_damaged("object #%llu: cannot take a reference: %s",
			     (unsigned long long)id, err_name(err));
}

/* kobj_release -- one reference less; the last one passes to the reap queue */
void kobj_release(uint64_t id)
{
	uint64_t at = (kroot->reap_head + kroot->reap_count) % KREAP_CAPACITY;
	struct os_obj_info info;
	uint32_t count;
	int err = os_obj_head(&kheap, id, &info);

	if (!err && info.refcount > 1)
		err = os_obj_ref(&kheap, id, -1, &count);
	if (err)
		heap_damaged("object #%llu: cannot drop a reference: %s",
			     (unsigned long long)id, err_name(err));
	if (info.refcount > 1)
		return;
	if (kroot->reap_count == KREAP_CAPACITY)
		panic("kobj: the reap queue is full");
	/* The queue's pages exist since genesis: this write allocates nothing. */
	if (os_obj_write(&kheap, kroot->reap_queue, at * 8, &id, 8) != 8)
		panic("kobj: cannot queue object %llu for deletion",
		      (unsigned long long)id);
	KLOG(&kroot->reap_count);
	kroot->reap_count++;
}

/* kobj_dying -- whether object `id` waits in the reap queue (its one
 * reference is the queue's: nothing may take another) */
bool kobj_dying(uint64_t id)
{
	for (uint64_t i = 0; i < kroot->reap_count; i++) {
		uint64_t queued;

		if (os_obj_read(&kheap, kroot->reap_queue,
				(kroot->reap_head + i) % KREAP_CAPACITY * 8,
				&queued, 8) != 8)
			heap_damaged("the reap queue #%llu is unreadable",
				     (unsigned long long)kroot->reap_queue);
		if (queued == id)
			return true;
	}
	return false;
}

/* kobj_reap_init -- the reap queue of a new kernel root, every page made */
static int kobj_reap_init(void)
{
	static const uint8_t zero[FE_PAGE_SIZE];
	uint64_t size = KREAP_CAPACITY * 8ull;
	int err = os_obj_create(&kheap, OS_TYPE_ANON, size, &kroot->reap_queue);

	for (uint64_t off = 0; !err && off < size; off += sizeof(zero))
		if (os_obj_write(&kheap, kroot->reap_queue, off, zero,
				 sizeof(zero)) != sizeof(zero))
			err = -ERR_NOMEM;
	return err;
}

/* kobj_reap -- delete queued objects, leaving at least `keep` bytes of log free */
bool kobj_reap(uint64_t keep)
{
	while (kroot->reap_count && heap_log_free() > keep) {
		uint64_t id;
		int err;

		if (os_obj_read(&kheap, kroot->reap_queue, kroot->reap_head * 8,
				&id, 8) != 8)
			heap_damaged("the reap queue #%llu is unreadable",
				     (unsigned long long)kroot->reap_queue);
		for (unsigned i = 0; i < delete_hook_count; i++)
			delete_hooks[i](id, kobj_type(id));
		err = os_obj_delete_keep(&kheap, id, keep);
		if (err == -ERR_NOSPC)
			return true; /* cut part way: the rest after a commit */
		if (err)
			heap_damaged("object #%llu cannot be deleted: %s",
				     (unsigned long long)id, err_name(err));
		KLOG(&kroot->reap_head);
		kroot->reap_head = (kroot->reap_head + 1) % KREAP_CAPACITY;
		KLOG(&kroot->reap_count);
		kroot->reap_count--;
	}
	return kroot->reap_count != 0;
}
