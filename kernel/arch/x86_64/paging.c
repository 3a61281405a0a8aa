/*
 * paging.c -- building x86_64 page tables.
 *
 * Tables are DRAM frames (mm/frame.c) reached through the HHDM. Leaves are
 * 2 MiB pages where alignment allows, otherwise 4 KiB. Mapping over an
 * existing mapping replaces it; replacing a 2 MiB page by a finer mapping
 * is not needed by the kernel and is refused with a panic (an invariant of
 * how mm_init uses this, not a user-reachable path).
 */
#include <stdbool.h>

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/paging.h"
#include "core/panic.h"
#include "ferrite/errors.h"
#include "mm/frame.h"
#include "mm/phys.h"
#include "mm/vm.h"

#define PTE_PRESENT (1ull << 0)
#define PTE_WRITE (1ull << 1)
#define PTE_PWT (1ull << 3)
#define PTE_PCD (1ull << 4)
#define PTE_LARGE (1ull << 7)
#define PTE_GLOBAL (1ull << 8)
#define PTE_NX (1ull << 63)
#define PTE_ADDR 0x000ffffffffff000ull

#define LARGE_PAGE (2ull << 20)

/* nx_enabled -- whether EFER.NXE is on (boot.S sets it when the CPU has NX) */
static bool nx_enabled(void)
{
	return rdmsr(MSR_EFER) & (1ull << 11);
}

/* leaf_bits -- the PTE bits for VM_* protection */
static uint64_t leaf_bits(unsigned prot)
{
	uint64_t bits = PTE_PRESENT | PTE_GLOBAL;

	if (prot & VM_WRITE)
		bits |= PTE_WRITE;
	if (!(prot & VM_EXEC) && nx_enabled())
		bits |= PTE_NX;
	if (prot & VM_UNCACHED)
		bits |= PTE_PCD | PTE_PWT;
	return bits;
}

/* next_table -- the table an entry points to, created if absent */
static int next_table(uint64_t *entry, uint64_t **table)
{
	uint64_t phys;

	if (!(*entry & PTE_PRESENT)) {
		int err = frame_alloc(&phys);

		if (err)
			return err;
		*entry = phys | PTE_PRESENT | PTE_WRITE;
	}
	if (*entry & PTE_LARGE)
		panic("paging: refining a 2 MiB mapping is not supported");
	*table = phys_to_virt(*entry & PTE_ADDR);
	return 0;
}

/* map_one -- one leaf, of LARGE_PAGE or PAGE_SIZE bytes */
static int map_one(uint64_t root_phys, uint64_t virt, uint64_t phys,
		   bool large, uint64_t bits)
{
	uint64_t *table = phys_to_virt(root_phys);
	int levels = large ? 2 : 3; /* tables to walk below the root */
	int shift = 39;

	for (int i = 0; i < levels; i++, shift -= 9) {
		int err = next_table(&table[(virt >> shift) & 511], &table);

		if (err)
			return err;
	}
	table[(virt >> shift) & 511] = phys | bits | (large ? PTE_LARGE : 0);
	return 0;
}

/* arch_pt_create -- a new, empty top-level table; 0 or -ERR_NOMEM */
int arch_pt_create(uint64_t *root_phys)
{
	return frame_alloc(root_phys);
}

/* arch_pt_map -- map [virt, virt+size) to phys with VM_* protection */
int arch_pt_map(uint64_t root_phys, uint64_t virt, uint64_t phys,
		uint64_t size, unsigned prot)
{
	uint64_t bits = leaf_bits(prot);

	KASSERT(virt % PAGE_SIZE == 0 && phys % PAGE_SIZE == 0 &&
		size % PAGE_SIZE == 0);
	while (size) {
		bool large = virt % LARGE_PAGE == 0 && phys % LARGE_PAGE == 0 &&
			     size >= LARGE_PAGE;
		uint64_t step = large ? LARGE_PAGE : PAGE_SIZE;
		int err = map_one(root_phys, virt, phys, large, bits);

		if (err)
			return err;
		virt += step;
		phys += step;
		size -= step;
	}
	return 0;
}

/* arch_pt_activate -- switch this CPU to the tables at root_phys */
void arch_pt_activate(uint64_t root_phys)
{
	write_cr4(read_cr4() | (1ull << 7)); /* PGE: global kernel pages */
	write_cr3(root_phys);
}

/* arch_pt_root -- the tables this CPU uses now */
uint64_t arch_pt_root(void)
{
	return read_cr3() & PTE_ADDR;
}
