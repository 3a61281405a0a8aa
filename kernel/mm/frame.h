/*
 * frame.h -- the DRAM frame allocator (volatile).
 *
 * Hands out 4 KiB frames of the RAM the boot loader reported usable, minus
 * the first MiB, the kernel image, the loader's information and modules.
 * Everything it manages is volatile: page tables, kernel stacks, caches.
 * Persistent state never lives in these frames (DESIGN.md §3).
 */
#ifndef MM_FRAME_H
#define MM_FRAME_H

#include <stdint.h>

struct boot_info;

/* frame_init -- take the usable RAM of the memory map; panics if there is none */
void frame_init(const struct boot_info *bi);

/* frame_alloc -- one zeroed frame; 0 or -ERR_NOMEM */
int frame_alloc(uint64_t *phys);

/* frame_alloc_run -- `count` physically contiguous zeroed frames, the
 * first at *phys (first fit: for large buffers taken once, at power-on);
 * 0, -ERR_INVAL for count 0, or -ERR_NOMEM. Each frame goes back by
 * frame_free. */
int frame_alloc_run(uint64_t count, uint64_t *phys);

/* frame_free -- give back a frame from frame_alloc; panics on a double free */
void frame_free(uint64_t phys);

/* frame_free_count -- frames available now */
uint64_t frame_free_count(void);

/* frame_total_count -- frames managed in all */
uint64_t frame_total_count(void);

#endif
