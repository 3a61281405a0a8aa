/*
 * paging.h -- x86_64 4-level page tables, for the generic mm code.
 */
#ifndef ARCH_X86_64_PAGING_H
#define ARCH_X86_64_PAGING_H

#include <stdint.h>

/* Page-table entry bits. */
#define PTE_PRESENT (1ull << 0)
#define PTE_WRITE (1ull << 1)
#define PTE_USER (1ull << 2)
#define PTE_PWT (1ull << 3)
#define PTE_PCD (1ull << 4)
#define PTE_LARGE (1ull << 7)
#define PTE_GLOBAL (1ull << 8)
#define PTE_NX (1ull << 63)
#define PTE_ADDR 0x000ffffffffff000ull

/* arch_pt_create -- a new, empty top-level table; 0 or -ERR_NOMEM */
int arch_pt_create(uint64_t *root_phys);

/* arch_pt_map -- map [virt, virt+size) to phys with VM_* protection; 2 MiB
 * pages wherever both addresses and the remaining size allow, 4 KiB pages
 * elsewhere. 0 or -ERR_NOMEM (then part of the range may be mapped). */
int arch_pt_map(uint64_t root_phys, uint64_t virt, uint64_t phys,
		uint64_t size, unsigned prot);

/* arch_pt_activate -- switch this CPU to the tables at root_phys */
void arch_pt_activate(uint64_t root_phys);

/* arch_pt_set_kernel_root -- the tables whose upper half every user
 * address space shares (arch_pt_create_user). Gives each upper-half
 * top-level entry a table now, so later kernel mappings reach every
 * address space. 0 or -ERR_NOMEM. */
int arch_pt_set_kernel_root(uint64_t root_phys);

/* arch_pt_root -- the tables this CPU uses now */
uint64_t arch_pt_root(void);

#endif
