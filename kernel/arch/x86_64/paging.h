/*
 * paging.h -- x86_64 4-level page tables, for the generic mm code.
 */
#ifndef ARCH_X86_64_PAGING_H
#define ARCH_X86_64_PAGING_H

#include <stdint.h>

/* arch_pt_create -- a new, empty top-level table; 0 or -ERR_NOMEM */
int arch_pt_create(uint64_t *root_phys);

/* arch_pt_map -- map [virt, virt+size) to phys with VM_* protection; 2 MiB
 * pages wherever both addresses and the remaining size allow, 4 KiB pages
 * elsewhere. 0 or -ERR_NOMEM (then part of the range may be mapped). */
int arch_pt_map(uint64_t root_phys, uint64_t virt, uint64_t phys,
		uint64_t size, unsigned prot);

/* arch_pt_activate -- switch this CPU to the tables at root_phys */
void arch_pt_activate(uint64_t root_phys);

/* arch_pt_root -- the tables this CPU uses now */
uint64_t arch_pt_root(void);

#endif
