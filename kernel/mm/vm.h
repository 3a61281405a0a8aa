/*
 * vm.h -- the kernel's address space.
 *
 * Layout (virtual):
 *   0x0000000000000000 - 0x00007fffffffffff  user space: per address space
 *                                            (arch_pt_create_user), pages
 *                                            in [FE_USER_BASE, FE_USER_TOP)
 *   0xffff800000000000 (HHDM_BASE)           physical memory, linearly:
 *                                            RAM, ACPI tables, and the NVM
 *                                            once the NVM driver maps it
 *   0xffffc00000000000 (MMIO_BASE)           device registers, uncached
 *   0xffffffff80000000 (KERNEL_BASE)         the kernel image
 * Page tables are volatile: rebuilt from these rules at every power-on.
 */
#ifndef MM_VM_H
#define MM_VM_H

#include <stdint.h>

struct boot_info;

#define MMIO_BASE 0xffffc00000000000ull

/* Protection bits for arch_pt_map and arch_pt_map_user_page (arch_pt_map and arch_pt_map_user_page, arch/arch.h). */
#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_EXEC 0x4
#define VM_UNCACHED 0x8
/* Kernel mappings only: 1 GiB leaves where aligned (and the CPU has them).
 * Only for a range nothing will later map more finely (a finer mapping
 * inside a large leaf is refused). */
#define VM_HUGE 0x10

/* What the CPU marks on a user page it uses (arch_pt_take_user_marks). */
#define VM_ACCESSED 0x20
#define VM_DIRTY 0x40

/* mm_init -- build the kernel's page tables and switch to them */
void mm_init(const struct boot_info *bi);

/* vm_map_physical -- make [phys, phys+size) reachable through the HHDM,
 * with 1 GiB pages where it can (the NVM: a few entries whatever its
 * size); 0 or -ERR_NOMEM */
int vm_map_physical(uint64_t phys, uint64_t size);

/* vm_map_mmio -- map device registers uncached; their kernel address */
void *vm_map_mmio(uint64_t phys, uint64_t size);

#endif
