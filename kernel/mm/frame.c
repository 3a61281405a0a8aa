/*
 * frame.c -- a bitmap allocator for DRAM frames.
 *
 * Two bitmaps, one bit per frame below the highest usable address:
 * `usable` says the frame is RAM we manage, `free_map` that it is free now.
 * Invariant: free_map is a subset of usable (checked by frame_free, which
 * refuses frames that are not usable or already free).
 * Allocation is next-fit, scanning 64 frames per word, so its cost is
 * bounded by the bitmap size over 64 and is constant when memory is
 * plentiful. Both bitmaps live in the first usable area large enough,
 * found before anything is allocated.
 */
#include <stdbool.h>
#include <string.h>

#include "core/bootinfo.h"
#include "core/panic.h"
#include "core/printk.h"
#include "ferrite/errors.h"
#include "mm/frame.h"
#include "mm/phys.h"

#define LOW_MEMORY_END 0x100000ull        /* BIOS, EBDA, real-mode leftovers */
#define EARLY_MAPPED_END 0x100000000ull  /* what the early page tables reach */

extern char __kernel_phys_start[], __kernel_phys_end[];

struct phys_range {
	uint64_t start, end;
};

static uint64_t *usable;
static uint64_t *free_map;
static uint64_t frame_limit; /* frames covered by the bitmaps */
static uint64_t free_frames, total_frames;
static uint64_t next_word; /* next-fit cursor, in words */

#define RESERVED_MAX (BOOT_MODULES_MAX + 3)
static struct phys_range reserved[RESERVED_MAX];
static unsigned reserved_count;

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static uint64_t align_down(uint64_t v, uint64_t a)
{
	return v & ~(a - 1);
}

/* reserve -- remember a physical range the allocator must not hand out */
static void reserve(uint64_t start, uint64_t end)
{
	KASSERT(reserved_count < RESERVED_MAX);
	reserved[reserved_count++] = (struct phys_range){
		align_down(start, PAGE_SIZE), align_up(end, PAGE_SIZE)
	};
}

/* collect_reserved -- low memory, the kernel, the loader's info and modules */
static void collect_reserved(const struct boot_info *bi)
{
	reserved_count = 0;
	reserve(0, LOW_MEMORY_END);
	reserve((uint64_t)__kernel_phys_start, (uint64_t)__kernel_phys_end);
	reserve(bi->info_phys, bi->info_phys + bi->info_size);
	for (unsigned i = 0; i < bi->module_count; i++)
		reserve(bi->modules[i].start, bi->modules[i].end);
}

/* overlapping_reservation -- a reservation that meets [start, end), or NULL */
static const struct phys_range *overlapping_reservation(uint64_t start,
							uint64_t end)
{
	for (unsigned i = 0; i < reserved_count; i++)
		if (reserved[i].start < end && start < reserved[i].end)
			return &reserved[i];
	return NULL;
}

/* find_area -- `size` bytes of usable, unreserved, early-mapped RAM */
static uint64_t find_area(const struct boot_info *bi, uint64_t size)
{
	for (unsigned i = 0; i < bi->mmap_count; i++) {
		const struct boot_mem_range *r = &bi->mmap[i];
		uint64_t start = align_up(r->base, PAGE_SIZE);
		uint64_t end = align_down(r->base + r->size, PAGE_SIZE);
		const struct phys_range *clash;

		if (r->type != BOOT_MEM_USABLE)
			continue;
		if (end > EARLY_MAPPED_END)
			end = EARLY_MAPPED_END;
		while (start + size <= end) {
			clash = overlapping_reservation(start, start + size);
			if (!clash)
				return start;
			start = clash->end;
		}
	}
	return 0;
}

/* mark_frames -- make frames [first, last) usable and free, a word at a time */
static void mark_frames(uint64_t first, uint64_t last)
{
	while (first < last) {
		unsigned bit = first % 64;
		unsigned count = last - first < 64 - bit ? (unsigned)(last - first) : 64 - bit;
		uint64_t mask = (count == 64 ? ~0ull : ((1ull << count) - 1)) << bit;
		uint64_t fresh = mask & ~usable[first / 64]; /* a range listed twice counts once */

		usable[first / 64] |= fresh;
		free_map[first / 64] |= fresh;
		total_frames += (uint64_t)__builtin_popcountll(fresh);
		first += count;
	}
}

/* first_reservation_in -- the reservation meeting [start, end) that starts first, or NULL */
static const struct phys_range *first_reservation_in(uint64_t start, uint64_t end)
{
	const struct phys_range *first = NULL;

	for (unsigned i = 0; i < reserved_count; i++)
		if (reserved[i].start < end && start < reserved[i].end &&
		    (!first || reserved[i].start < first->start))
			first = &reserved[i];
	return first;
}

/* mark_usable_range -- the whole frames of [base, base+size) outside every reservation */
static void mark_usable_range(uint64_t base, uint64_t size)
{
	uint64_t start = align_up(base, PAGE_SIZE);
	uint64_t end = align_down(base + size, PAGE_SIZE);

	if (end > frame_limit * PAGE_SIZE)
		end = frame_limit * PAGE_SIZE;
	while (start < end) {
		const struct phys_range *r = first_reservation_in(start, end);
		uint64_t stop = r ? (r->start > start ? r->start : start) : end;

		mark_frames(start / PAGE_SIZE, stop / PAGE_SIZE);
		if (!r)
			break;
		start = r->end;
	}
}

/* frame_init -- take the usable RAM of the memory map; panics if there is none */
void frame_init(const struct boot_info *bi)
{
	uint64_t top = 0, words, bytes, area;

	for (unsigned i = 0; i < bi->mmap_count; i++)
		if (bi->mmap[i].type == BOOT_MEM_USABLE &&
		    bi->mmap[i].base + bi->mmap[i].size > top)
			top = bi->mmap[i].base + bi->mmap[i].size;
	if (top <= LOW_MEMORY_END)
		panic("frame: the memory map has no usable RAM above 1 MiB");
	frame_limit = align_down(top, PAGE_SIZE) / PAGE_SIZE;
	words = align_up(frame_limit, 64) / 64;
	bytes = align_up(2 * words * sizeof(uint64_t), PAGE_SIZE);

	collect_reserved(bi);
	area = find_area(bi, bytes);
	if (!area)
		panic("frame: no room for the %llu-byte frame bitmaps",
		      (unsigned long long)bytes);
	reserve(area, area + bytes);
	usable = phys_to_virt(area);
	free_map = usable + words;
	memset(usable, 0, bytes);

	for (unsigned i = 0; i < bi->mmap_count; i++)
		if (bi->mmap[i].type == BOOT_MEM_USABLE)
			mark_usable_range(bi->mmap[i].base, bi->mmap[i].size);
	free_frames = total_frames;
	pr_info("frame: %llu MiB of RAM in %llu frames, bitmaps at %#llx\n",
		(unsigned long long)(total_frames * PAGE_SIZE >> 20),
		(unsigned long long)total_frames, (unsigned long long)area);
}

/* frame_alloc -- one zeroed frame; 0 or -ERR_NOMEM */
int frame_alloc(uint64_t *phys)
{
	uint64_t words = align_up(frame_limit, 64) / 64;

	for (uint64_t n = 0; n < words; n++) {
		uint64_t w = (next_word + n) % words;
		uint64_t bits = free_map[w];

		if (!bits)
			continue;
		uint64_t f = w * 64 + (uint64_t)__builtin_ctzll(bits);

		free_map[w] &= ~(1ull << (f % 64));
		free_frames--;
		next_word = w;
		*phys = f * PAGE_SIZE;
		memset(phys_to_virt(*phys), 0, PAGE_SIZE);
		return 0;
	}
	return -ERR_NOMEM;
}

/* take_run -- mark the free frames [first, first+count) allocated and zero them */
static void take_run(uint64_t first, uint64_t count)
{
	for (uint64_t f = first; f < first + count; f++)
		free_map[f / 64] &= ~(1ull << (f % 64));
	free_frames -= count;
	memset(phys_to_virt(first * PAGE_SIZE), 0, count * PAGE_SIZE);
}

/* frame_alloc_run -- `count` physically contiguous zeroed frames; 0, -ERR_INVAL or -ERR_NOMEM */
int frame_alloc_run(uint64_t count, uint64_t *phys)
{
	uint64_t run = 0;

	if (count == 0)
		return -ERR_INVAL;
	for (uint64_t f = 0; f < frame_limit; f++) {
		if (f % 64 == 0 && free_map[f / 64] == 0) {
			run = 0;
			f += 63;
			continue;
		}
		run = free_map[f / 64] & (1ull << (f % 64)) ? run + 1 : 0;
		if (run == count) {
			take_run(f + 1 - count, count);
			*phys = (f + 1 - count) * PAGE_SIZE;
			return 0;
		}
	}
	return -ERR_NOMEM;
}

/* frame_free -- give back a frame from frame_alloc; panics on a double free */
void frame_free(uint64_t phys)
{
	uint64_t f = phys / PAGE_SIZE;
	uint64_t bit = 1ull << (f % 64);

	/* Invariant: only allocated, usable frames come back. */
	if (phys % PAGE_SIZE || f >= frame_limit || !(usable[f / 64] & bit))
		panic("frame_free: %#llx is not a frame of the allocator",
		      (unsigned long long)phys);
	if (free_map[f / 64] & bit)
		panic("frame_free: double free of frame %#llx",
		      (unsigned long long)phys);
	free_map[f / 64] |= bit;
	free_frames++;
}

/* frame_free_count -- frames available now */
uint64_t frame_free_count(void)
{
	return free_frames;
}

/* frame_total_count -- frames managed in all */
uint64_t frame_total_count(void)
{
	return total_frames;
}
