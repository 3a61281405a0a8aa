/*
 * heap.h -- the kernel's persistent heap: objstore on the whole NVM.
 *
 * heap_init, at every power-on, opens the heap (rolling back the epoch
 * that did not commit) or formats a blank NVM (genesis) and begins the
 * kernel's one long transaction, the epoch. Genesis is complete once the
 * kernel's root object exists (app_roots[OS_APP_ROOT_KERNEL]), which
 * kobj_root_init (obj/kobj.c) creates, committed after the boot modules
 * were imported (kernel/core/modules.c). From then on kernel code logs each
 * persistent range before its first write in the epoch (heap_log); the
 * epoch module (kernel/epoch/epoch.c) decides when it ends with heap_commit,
 * which begins the next. docs/heap.md tells the whole story.
 */
#ifndef CORE_HEAP_H
#define CORE_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/nvm.h"
#include "ferrite/syscall.h"
#include "objstore/objstore.h"

/* The most one kernel entry (a system call or a fault) may log: FE_IO_MAX
 * of data plus metadata. Every entry starts with at least this much log
 * free (epoch_reserve_entry), so objstore never runs out of log half way. */
#define HEAP_ENTRY_LOG_MAX (FE_IO_MAX * 2 + (64u << 10))

/* The open heap, after heap_init. Volatile: rebuilt at every power-on. */
extern struct objstore kheap;

/* heap_init -- open or create (genesis) the heap on the NVM, begin the
 * epoch transaction. 0, or an error after printing a
 * clear message (the caller halts); writes nothing to an NVM that holds
 * anything but a blank or a valid heap of this layout major version. */
int heap_init(const struct nvm *nvm);

/* heap_nvm_blank -- whether the NVM's first bytes are all zero: a power-on
 * there is genesis */
bool heap_nvm_blank(const struct nvm *nvm);

/* heap_set_wall_clock -- the clock objstore's wall-time stamps read (the
 * RTC's until then) */
void heap_set_wall_clock(uint64_t (*clock)(void));

/* heap_ready -- whether heap_init succeeded: the heap is open, an epoch runs */
bool heap_ready(void);

/* heap_genesis -- whether genesis runs in this power-on: the heap had no
 * kernel root object (formatted now, made by objtool, or a first power-on
 * cut short); the caller creates the root */
bool heap_genesis(void);

/* heap_phys -- the physical address of heap offset `heap_off` */
uint64_t heap_phys(uint64_t heap_off);

/* heap_damaged -- the kernel met a damaged heap structure after power-on
 * (objstore's -ERR_CORRUPT, or a kernel object that breaks its layout):
 * say what, and stop the machine without committing the running epoch, so
 * the heap keeps its last committed state (docs/hostile-images.md) */
__attribute__((noreturn, format(printf, 1, 2))) void heap_damaged(const char *fmt, ...);

/* heap_log -- save [p, p+len) in the undo log before the epoch first
 * writes it; panics (naming the caller) if the log is full: callers keep
 * within budget (heap_log_free) */
void heap_log(const void *p, size_t len);

/* heap_request_commit -- ask for a commit at the next safe point: a full
 * written set or DRAM cache, a writer waiting for output room, SYS_SYNC.
 * When the commit comes is the epoch's (epoch/epoch.c); each commit
 * answers every request made before it. */
void heap_request_commit(void);

/* heap_commit_requested -- whether a commit was asked for since the last */
bool heap_commit_requested(void);

/* heap_commit -- commit the running transaction, begin the next; 0 or an
 * error. Only the epoch calls it (epoch_commit, kernel/epoch/epoch.c): every
 * commit of the kernel goes through there. */
int heap_commit(void);

/* heap_abort -- undo the running transaction, begin the next (power-on:
 * a boot module the heap cannot take) */
void heap_abort(void);

/* heap_log_free -- bytes left in the undo log for the running epoch */
uint64_t heap_log_free(void);

/* heap_resumed_from -- the snapshot this power-on started from
 * (resume=NAME, snapshot boot), or NULL */
const char *heap_resumed_from(void);

#endif
