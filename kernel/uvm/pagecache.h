/*
 * pagecache.h -- DRAM in front of the NVM: the user pages programs write
 * live in DRAM frames, and each commit writes the changed ones back to the
 * heap (pagecache.c; docs/dram-cache.md).
 */
#ifndef UVM_PAGECACHE_H
#define UVM_PAGECACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "ferrite/syscall.h"

struct uspace;

/* pagecache_init -- size the cache (cache= on the command line, the DRAM
 * and the undo log; none unless `wanted`) and say so; before the first
 * user page is mapped */
void pagecache_init(bool wanted);

/* pagecache_on -- whether user pages are cached (else they are mapped
 * onto the NVM and logged by their first write, as without a cache) */
bool pagecache_on(void);

/* pagecache_frame -- the DRAM frame holding page `index` of `object` in
 * *frame, 0 if none; for a `write` (by a user store or the kernel), the
 * page counts as written. -ERR_NOMEM when the log cannot take one more
 * written page now: a commit was asked for, the caller tries again after
 * it. */
int pagecache_frame(uint64_t object, uint64_t index, bool write, uint64_t *frame);

/* pagecache_fill -- cache page `index` of `object`, whose heap page is
 * `home` (`fresh`: allocated in the running epoch), to be written; its
 * frame in *frame.
 * No user page table may map `home` any more (uvm.c removed them).
 * -ERR_NOMEM when no frame can be had now: a commit is asked for when it
 * would free one (the caller tries again after it); -ERR_NOSPC when the
 * cache holds no page at all and DRAM has no frame: the caller does
 * without. */
int pagecache_fill(uint64_t object, uint64_t index, uint64_t home, bool fresh,
		   uint64_t *frame);

/* pagecache_mapped -- us's tables now map the frame of page `index` of
 * `object` at va, writable or not */
void pagecache_mapped(struct uspace *us, uint64_t object, uint64_t index,
		      uint64_t va, bool writable);

/* pagecache_unmap -- remove from us's tables every cached frame mapped in
 * [va, va+len), keeping what the CPU marked written; the caller removes
 * the rest and stops the CPUs that run us's threads */
void pagecache_unmap(struct uspace *us, uint64_t va, uint64_t len);

/* pagecache_read, pagecache_write -- os_obj_read and os_obj_write that
 * see cached pages: the kernel's reads and writes of object bytes */
int64_t pagecache_read(uint64_t object, uint64_t off, void *buf, uint64_t len);
int64_t pagecache_write(uint64_t object, uint64_t off, const void *buf,
			uint64_t len);

/* pagecache_resized -- `object` now has `size` bytes (0: it is being
 * deleted): its cached pages past the end are dropped, unwritten */
void pagecache_resized(uint64_t object, uint64_t size);

/* pagecache_deleted -- kobj_on_delete's hook (obj/kobj.h): an object
 * about to be deleted loses its cached pages, unwritten */
void pagecache_deleted(uint64_t id, uint16_t type);

/* What the write-back of one commit did. */
struct pagecache_commit {
	uint64_t pages;                /* dirty pages written back */
	uint64_t moved;                /* of them, to a new heap page */
};

/* pagecache_write_back -- at a commit, every other CPU stopped: write every
 * page written since the last commit to the heap, inside the epoch */
void pagecache_write_back(struct pagecache_commit *done);

/* pagecache_committed -- after the commit point of a commit that wrote
 * back: the log is kept for the next write-back again (pagecache_write_back
 * gave it back to the commit) */
void pagecache_committed(void);

/* pagecache_log_need -- undo-log bytes the next write-back may need */
uint64_t pagecache_log_need(void);

/* pagecache_written -- whether a cached page is known written since the
 * last commit (its dirty mark collected) */
bool pagecache_written(void);

/* pagecache_sweep -- collect the CPU's dirty marks of the writable cached
 * pages, unless one is known written already; those found unwritten lose
 * the write bit (cold), which may stop the CPUs that run on their tables */
void pagecache_sweep(void);

/* pagecache_figures -- the cache's part of sysinfo */
void pagecache_figures(struct fe_sysinfo *info);

#endif
