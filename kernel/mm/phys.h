/*
 * phys.h -- reaching physical memory from the kernel.
 *
 * The kernel maps physical memory linearly at HHDM_BASE ("higher-half direct
 * map"): all of [0, 4 GiB) until mm_init() (boot.S's early tables); from
 * then on every range of the memory map (RAM, ACPI tables, firmware areas)
 * except the device window below 4 GiB, plus the NVM once the NVM driver
 * maps it (vm.h). The kernel image runs at KERNEL_BASE + its physical
 * address.
 */
#ifndef MM_PHYS_H
#define MM_PHYS_H

#include <stdint.h>

#define HHDM_BASE 0xffff800000000000ull
#define KERNEL_BASE 0xffffffff80000000ull
#define PAGE_SIZE 4096ull

/* phys_to_virt -- the kernel address of a physical address in the HHDM */
static inline void *phys_to_virt(uint64_t phys)
{
	return (void *)(uintptr_t)(phys + HHDM_BASE);
}

/* virt_to_phys -- the physical address behind an HHDM or kernel-image address */
static inline uint64_t virt_to_phys(const void *virt)
{
	uint64_t v = (uint64_t)(uintptr_t)virt;
	return v >= KERNEL_BASE ? v - KERNEL_BASE : v - HHDM_BASE;
}

#endif
