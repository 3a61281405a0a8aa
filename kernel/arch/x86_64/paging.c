/*
 * paging.c -- building x86_64 page tables.
 *
 * Tables are DRAM frames (mm/frame.c) reached through the HHDM. Kernel
 * leaves are 2 MiB pages where alignment allows, otherwise 4 KiB, global
 * and supervisor-only; with VM_HUGE (the NVM), 1 GiB pages where
 * alignment allows and the CPU has them (CPUID PDPE1GB): mapping the NVM
 * costs a few entries whatever its size, so power-on does not grow with
 * the heap. Mapping over
 * an existing mapping replaces it; replacing a large page by a finer
 * mapping is not needed by the kernel and is refused with a panic (an
 * invariant of how mm_init uses this, not a user-reachable path).
 *
 * User address spaces. Each has its own top-level table: entries 0..255
 * (the user half, below 0x800000000000) are its own, entries 256..511 are
 * copies of the kernel's. Those copies point at the kernel's own
 * lower-level tables, so a later kernel mapping shows in every address
 * space -- provided no new top-level entry is ever needed. That is why
 * arch_pt_set_kernel_root gives every kernel-half entry a table at once
 * (about 1 MiB of DRAM). Invariants:
 *  - no kernel-half entry at any level has the U bit (user code can never
 *    reach kernel memory, whatever its tables look like);
 *  - user-half tables are U|W|P at every level above the leaf, so the
 *    leaf alone decides the page's protection;
 *  - user leaves are 4 KiB, never global (CR3 switches flush them), and
 *    NX unless executable (when the CPU has NX);
 *  - the frames behind user leaves belong to the caller: destroying an
 *    address space frees its tables only.
 */
#include <stdbool.h>

#include "arch/arch.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/paging.h"
#include "core/panic.h"
#include "ferrite/errors.h"
#include "ferrite/syscall.h"
#include "mm/frame.h"
#include "mm/phys.h"
#include "mm/vm.h"

#define HUGE_PAGE (1ull << 30)
#define LARGE_PAGE (2ull << 20)
#define TABLE_ENTRIES 512
#define KERNEL_HALF_FIRST 256 /* the first top-level entry of the kernel half */
#define VM_USER_PROT (VM_READ | VM_WRITE | VM_EXEC)
#define USER_TABLE_BITS (PTE_PRESENT | PTE_WRITE | PTE_USER)

_Static_assert(FE_USER_TOP <= (uint64_t)KERNEL_HALF_FIRST << 39,
	       "the user range lies in the user half");
_Static_assert(FE_PAGE_SIZE == PAGE_SIZE, "user pages are 4 KiB pages");

/* The kernel's tables: the kernel half of every user address space. */
static uint64_t kernel_root;

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

/* has_huge_pages -- whether the CPU maps 1 GiB pages (CPUID PDPE1GB) */
static bool has_huge_pages(void)
{
	return cpuid(0x80000001u, 0).edx & (1u << 26);
}

/* leaf_size -- the largest leaf allowed that maps virt to phys within size bytes */
static uint64_t leaf_size(uint64_t virt, uint64_t phys, uint64_t size, unsigned prot)
{
	if ((prot & VM_HUGE) && virt % HUGE_PAGE == 0 && phys % HUGE_PAGE == 0 &&
	    size >= HUGE_PAGE && has_huge_pages())
		return HUGE_PAGE;
	if (virt % LARGE_PAGE == 0 && phys % LARGE_PAGE == 0 && size >= LARGE_PAGE)
		return LARGE_PAGE;
	return PAGE_SIZE;
}

/* map_one -- one leaf of `step` bytes (HUGE_PAGE, LARGE_PAGE or PAGE_SIZE) */
static int map_one(uint64_t root_phys, uint64_t virt, uint64_t phys,
		   uint64_t step, uint64_t bits)
{
	uint64_t *table = phys_to_virt(root_phys);
	int levels = step == HUGE_PAGE ? 1 : step == LARGE_PAGE ? 2 : 3; /* below the root */
	int shift = 39;

	for (int i = 0; i < levels; i++, shift -= 9) {
		int err = next_table(&table[(virt >> shift) & 511], &table);

		if (err)
			return err;
	}
	table[(virt >> shift) & 511] = phys | bits | (step != PAGE_SIZE ? PTE_LARGE : 0);
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
		uint64_t step = leaf_size(virt, phys, size, prot);
		int err = map_one(root_phys, virt, phys, step, bits);

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

/* arch_pt_set_kernel_root -- the tables whose upper half every address
 * space shares; gives each upper-half top-level entry a table */
int arch_pt_set_kernel_root(uint64_t root_phys)
{
	uint64_t *top = phys_to_virt(root_phys);

	for (unsigned i = KERNEL_HALF_FIRST; i < TABLE_ENTRIES; i++) {
		uint64_t *unused;
		int err = next_table(&top[i], &unused);

		if (err)
			return err;
	}
	kernel_root = root_phys;
	return 0;
}

/* arch_pt_create_user -- a new address space: the kernel half, no user pages */
int arch_pt_create_user(uint64_t *root_phys)
{
	const uint64_t *kernel_top = phys_to_virt(kernel_root);
	uint64_t *top;
	int err;

	KASSERT(kernel_root);
	err = frame_alloc(root_phys);
	if (err)
		return err;
	top = phys_to_virt(*root_phys);
	for (unsigned i = KERNEL_HALF_FIRST; i < TABLE_ENTRIES; i++)
		top[i] = kernel_top[i];
	return 0;
}

/* is_user_page -- whether va is the start of a page of the user range */
static bool is_user_page(uint64_t va)
{
	return va % PAGE_SIZE == 0 && va < FE_USER_TOP;
}

/* user_pte -- the leaf entry for user address va; with `create`, the
 * tables on the way are made; 0, -ERR_NOENT or -ERR_NOMEM */
static int user_pte(uint64_t root, uint64_t va, bool create, uint64_t **pte)
{
	uint64_t *table = phys_to_virt(root);

	for (int shift = 39; shift > 12; shift -= 9) {
		uint64_t *entry = &table[(va >> shift) & 511];

		if (!(*entry & PTE_PRESENT)) {
			uint64_t phys;
			int err;

			if (!create)
				return -ERR_NOENT;
			err = frame_alloc(&phys);
			if (err)
				return err;
			*entry = phys | USER_TABLE_BITS;
		}
		/* Invariant: the user half has 4 KiB leaves only. */
		KASSERT(!(*entry & PTE_LARGE));
		table = phys_to_virt(*entry & PTE_ADDR);
	}
	*pte = &table[(va >> 12) & 511];
	return 0;
}

/* arch_pt_map_user_page -- map one user page at va to phys, replacing what was there */
int arch_pt_map_user_page(uint64_t root, uint64_t va, uint64_t phys, unsigned prot)
{
	uint64_t *pte, bits = PTE_PRESENT | PTE_USER;
	int err;

	if (!is_user_page(va) || (phys & ~PTE_ADDR) || !prot ||
	    (prot & ~VM_USER_PROT))
		return -ERR_INVAL;
	err = user_pte(root, va, true, &pte);
	if (err)
		return err;
	if (prot & VM_WRITE)
		bits |= PTE_WRITE;
	if (!(prot & VM_EXEC) && nx_enabled())
		bits |= PTE_NX;
	*pte = phys | bits;
	return 0;
}

/* arch_pt_unmap_user -- unmap every page of [va, va+len), flushing them if root is current */
void arch_pt_unmap_user(uint64_t root, uint64_t va, uint64_t len)
{
	bool current = arch_pt_root() == root;
	uint64_t end;

	/* Invariant: callers pass a checked range of the user half. */
	KASSERT(va % PAGE_SIZE == 0 && va <= FE_USER_TOP && len <= FE_USER_TOP - va);
	end = va + len;
	while (va < end) {
		uint64_t *table = phys_to_virt(root);
		int shift = 39;

		for (; shift > 12; shift -= 9) {
			uint64_t entry = table[(va >> shift) & 511];

			if (!(entry & PTE_PRESENT))
				break;
			table = phys_to_virt(entry & PTE_ADDR);
		}
		if (shift > 12) { /* no table here: skip what it would map */
			va = (va | ((1ull << shift) - 1)) + 1;
			continue;
		}
		table[(va >> 12) & 511] = 0;
		if (current)
			arch_tlb_flush_page(va);
		va += PAGE_SIZE;
	}
}

/* arch_pt_lookup_user -- the physical address behind user address va, and its protection */
int arch_pt_lookup_user(uint64_t root, uint64_t va, uint64_t *phys, unsigned *prot)
{
	uint64_t *pte;
	int err;

	if (va >= FE_USER_TOP)
		return -ERR_INVAL;
	err = user_pte(root, va, false, &pte);
	if (err)
		return err;
	if (!(*pte & PTE_PRESENT))
		return -ERR_NOENT;
	*phys = (*pte & PTE_ADDR) | (va % PAGE_SIZE);
	*prot = VM_READ;
	if (*pte & PTE_WRITE)
		*prot |= VM_WRITE;
	if (!(*pte & PTE_NX))
		*prot |= VM_EXEC;
	return 0;
}

/* pte_marks -- the VM_ACCESSED and VM_DIRTY marks of a leaf entry */
static unsigned pte_marks(uint64_t pte)
{
	return (pte & PTE_ACCESSED ? VM_ACCESSED : 0u) | (pte & PTE_DIRTY ? VM_DIRTY : 0u);
}

/* arch_pt_take_user_marks -- the accessed and dirty marks of user page va
 * (mapping phys), those in `take` cleared */
unsigned arch_pt_take_user_marks(uint64_t root, uint64_t va, uint64_t phys,
				 unsigned take)
{
	uint64_t *pte, clear = 0, old;

	if (va >= FE_USER_TOP || user_pte(root, va, false, &pte))
		return 0;
	if (!(*pte & PTE_PRESENT) || (*pte & PTE_ADDR) != phys)
		return 0;
	if (take & VM_ACCESSED)
		clear |= PTE_ACCESSED;
	if (take & VM_DIRTY)
		clear |= PTE_DIRTY;
	/* Atomic: another CPU's page walk may set a mark meanwhile. */
	old = __atomic_fetch_and(pte, ~clear, __ATOMIC_SEQ_CST);
	return pte_marks(old);
}

/* clear_user_pte -- clear `bits` of user page va's entry if it maps phys,
 * atomically: a write through it on another CPU sets the dirty mark
 * before, or faults after. Its marks before, or -ERR_NOENT. */
static int clear_user_pte(uint64_t root, uint64_t va, uint64_t phys, uint64_t bits)
{
	uint64_t *pte, old;

	if (va >= FE_USER_TOP || user_pte(root, va, false, &pte))
		return -ERR_NOENT;
	old = *pte;
	if (!(old & PTE_PRESENT) || (old & PTE_ADDR) != phys)
		return -ERR_NOENT;
	old = __atomic_fetch_and(pte, ~bits, __ATOMIC_SEQ_CST);
	if (arch_pt_root() == root)
		arch_tlb_flush_page(va);
	return (int)pte_marks(old);
}

/* arch_pt_unmap_user_page -- unmap user page va if it maps phys; its marks */
int arch_pt_unmap_user_page(uint64_t root, uint64_t va, uint64_t phys)
{
	return clear_user_pte(root, va, phys, ~0ull);
}

/* arch_pt_protect_user_page -- take va's write bit if it maps phys; its marks */
int arch_pt_protect_user_page(uint64_t root, uint64_t va, uint64_t phys)
{
	return clear_user_pte(root, va, phys, PTE_WRITE);
}

/* free_user_table -- free a user-half table and the tables below it, not the pages */
static void free_user_table(uint64_t phys, int level)
{
	const uint64_t *table = phys_to_virt(phys);

	if (level > 1) /* level 1 entries are user pages */
		for (unsigned i = 0; i < TABLE_ENTRIES; i++)
			if (table[i] & PTE_PRESENT)
				free_user_table(table[i] & PTE_ADDR, level - 1);
	frame_free(phys);
}

/* arch_pt_destroy_user -- free the address space's tables (never the pages they map) */
void arch_pt_destroy_user(uint64_t root)
{
	const uint64_t *top = phys_to_virt(root);

	KASSERT(root != kernel_root);
	if (arch_pt_root() == root)
		write_cr3(kernel_root);
	for (unsigned i = 0; i < KERNEL_HALF_FIRST; i++)
		if (top[i] & PTE_PRESENT)
			free_user_table(top[i] & PTE_ADDR, 3);
	frame_free(root);
}

/* arch_user_pt_switch -- run on the address space root_phys (CR3, if different) */
void arch_user_pt_switch(uint64_t root_phys)
{
	if (arch_pt_root() != root_phys)
		write_cr3(root_phys);
}

/* arch_pt_leave_user -- run on the kernel's own tables */
void arch_pt_leave_user(void)
{
	arch_user_pt_switch(kernel_root);
}

/* arch_pt_kernel_root -- the kernel's own tables */
uint64_t arch_pt_kernel_root(void)
{
	return kernel_root;
}

/* arch_tlb_flush_page -- forget the current address space's translation of va */
void arch_tlb_flush_page(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}
