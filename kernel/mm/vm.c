/*
 * vm.c -- the kernel's address space, built at every power-on.
 *
 * mm_init replaces the early page tables of boot.S with tables built from
 * the memory map: the kernel image with per-section protection (text
 * read+execute, rodata read-only, data and bss read+write, never both
 * writable and executable), and the direct map (HHDM) of every range the
 * loader reported (RAM, ACPI tables, reserved firmware areas) except the
 * device window just below 4 GiB, which only vm_map_mmio maps, uncached.
 * The identity mapping of low memory is gone afterwards: a stray NULL
 * dereference in the kernel faults.
 */
#include "arch/arch.h"
#include "core/bootinfo.h"
#include "core/panic.h"
#include "core/printk.h"
#include "mm/phys.h"
#include "mm/vm.h"

#define LARGE_PAGE (2ull << 20)
#define DEVICE_WINDOW_START 0xfe000000ull /* IOAPIC, HPET, LAPIC, firmware */
#define DEVICE_WINDOW_END 0x100000000ull
#define MMIO_SIZE (1ull << 30)

extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_end[];

static uint64_t kernel_root;
static uint64_t mmio_next = MMIO_BASE;

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static uint64_t align_down(uint64_t v, uint64_t a)
{
	return v & ~(a - 1);
}

/* map_or_panic -- a mapping mm_init cannot do without */
static void map_or_panic(uint64_t virt, uint64_t phys, uint64_t size,
			 unsigned prot)
{
	if (arch_pt_map(kernel_root, virt, phys, size, prot))
		panic("vm: out of frames while building the kernel page tables");
}

/* map_kernel_section -- one section of the image at KERNEL_BASE + phys */
static void map_kernel_section(const char *start, const char *end,
			       unsigned prot)
{
	uint64_t virt = (uint64_t)start;

	map_or_panic(virt, virt - KERNEL_BASE, (uint64_t)(end - start), prot);
}

/* map_direct -- add [start, end) to the HHDM, in whole 2 MiB pages */
static void map_direct(uint64_t start, uint64_t end)
{
	start = align_down(start, LARGE_PAGE);
	end = align_up(end, LARGE_PAGE);
	if (start < end)
		map_or_panic(HHDM_BASE + start, start, end - start,
			     VM_READ | VM_WRITE);
}

/* map_memory_range -- the HHDM for one memory-map entry, skipping the device window */
static void map_memory_range(uint64_t start, uint64_t end)
{
	if (start < DEVICE_WINDOW_START)
		map_direct(start, end < DEVICE_WINDOW_START ? end
							    : DEVICE_WINDOW_START);
	if (end > DEVICE_WINDOW_END)
		map_direct(start > DEVICE_WINDOW_END ? start : DEVICE_WINDOW_END,
			   end);
}

/* mm_init -- build the kernel's page tables and switch to them */
void mm_init(const struct boot_info *bi)
{
	if (arch_pt_create(&kernel_root))
		panic("vm: no frame for the kernel's top-level page table");
	map_kernel_section(__text_start, __text_end, VM_READ | VM_EXEC);
	map_kernel_section(__rodata_start, __rodata_end, VM_READ);
	map_kernel_section(__data_start, __bss_end, VM_READ | VM_WRITE);
	map_direct(0, LARGE_PAGE); /* low memory: EBDA and BIOS area for ACPI */
	for (unsigned i = 0; i < bi->mmap_count; i++)
		map_memory_range(bi->mmap[i].base,
				 bi->mmap[i].base + bi->mmap[i].size);
	if (arch_pt_set_kernel_root(kernel_root))
		panic("vm: out of frames for the kernel half of the page tables");
	arch_pt_activate(kernel_root);
}

/* vm_map_physical -- make [phys, phys+size) reachable through the HHDM */
int vm_map_physical(uint64_t phys, uint64_t size)
{
	uint64_t start = align_down(phys, PAGE_SIZE);
	uint64_t end = align_up(phys + size, PAGE_SIZE);

	return arch_pt_map(kernel_root, HHDM_BASE + start, start, end - start,
			   VM_READ | VM_WRITE | VM_HUGE);
}

/* vm_map_mmio -- map device registers uncached; their kernel address */
void *vm_map_mmio(uint64_t phys, uint64_t size)
{
	uint64_t start = align_down(phys, PAGE_SIZE);
	uint64_t bytes = align_up(phys + size, PAGE_SIZE) - start;
	uint64_t virt = mmio_next;

	if (virt + bytes > MMIO_BASE + MMIO_SIZE)
		panic("vm: MMIO window exhausted");
	if (arch_pt_map(kernel_root, virt, start, bytes,
			VM_READ | VM_WRITE | VM_UNCACHED))
		panic("vm: out of frames mapping MMIO at %#llx",
		      (unsigned long long)phys);
	mmio_next += bytes;
	return (void *)(uintptr_t)(virt + (phys - start));
}
