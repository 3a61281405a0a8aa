/*
 * kobj.h -- the kernel root, typed access to the kernel's objects in the
 * heap, their references, and the reap queue (kobj.c). The layouts themselves are the
 * kernel's persistent format (kformat/kformat.h).
 */
#ifndef OBJ_KOBJ_H
#define OBJ_KOBJ_H

#include <stdbool.h>
#include <stdint.h>

#include "core/heap.h"
#include "kformat/kformat.h"

/* The kernel root, after kobj_root_init. */
extern struct kroot *kroot;

/* kobj_root_init -- at power-on: find the kernel root, or make it with
 * its reap queue (genesis); whether it was made */
bool kobj_root_init(void);

/* kobj_delete_hook -- what a room above drops of object `id` (of `type`)
 * just before the reaper deletes it */
typedef void (*kobj_delete_hook)(uint64_t id, uint16_t type);

/* kobj_on_delete -- at power-on: `hook` runs for every object the reaper
 * deletes, before it goes (and again if the deletion is cut part way) */
void kobj_on_delete(kobj_delete_hook hook);

/* kobj_new -- a zeroed small object of `type` with `magic` first; refcount 1 */
int kobj_new(uint16_t type, uint64_t size, uint32_t magic, uint64_t *id,
	     void **data);

/* kobj_data -- object `id`'s bytes if it is a small object of `type` whose
 * magic is `magic`; NULL otherwise */
void *kobj_data(uint64_t id, uint16_t type, uint32_t magic);

/* kobj_type -- the type of object `id`, 0 if it does not exist */
uint16_t kobj_type(uint64_t id);

/* kobj_hold -- one more reference to a live object */
void kobj_hold(uint64_t id);

/* kobj_release -- one reference less; the last one passes to the reap
 * queue, which deletes the object at a safe point */
void kobj_release(uint64_t id);

/* kobj_dying -- whether object `id` waits in the reap queue */
bool kobj_dying(uint64_t id);

/* kobj_reap -- delete queued objects, always leaving `keep` bytes of log
 * free; whether some remain (then commit and call again) */
bool kobj_reap(uint64_t keep);

/* KLOG -- log a kernel structure's bytes before changing them */
#define KLOG(ptr) heap_log((ptr), sizeof(*(ptr)))

#endif
