/*
 * bootinfo.h -- what the boot loader told us, in one loader-neutral form.
 *
 * kmain converts the multiboot1 or multiboot2 information into a struct
 * boot_info first thing; nothing else reads the loader's structures.
 */
#ifndef CORE_BOOTINFO_H
#define CORE_BOOTINFO_H

#include <stdint.h>

#define BOOT_MMAP_MAX 128
#define BOOT_MODULES_MAX 32
#define BOOT_CMDLINE_MAX 1024
#define BOOT_MODULE_NAME_MAX 128

/* Memory-map types, numbered as the multiboot/E820 map numbers them. */
enum boot_mem_type {
	BOOT_MEM_USABLE = 1,
	BOOT_MEM_RESERVED = 2,
	BOOT_MEM_ACPI_RECLAIMABLE = 3,
	BOOT_MEM_ACPI_NVS = 4,
	BOOT_MEM_BAD = 5,
};

struct boot_mem_range {
	uint64_t base;
	uint64_t size;
	uint32_t type;
};

struct boot_module {
	uint64_t start; /* physical, first byte */
	uint64_t end;   /* physical, one past the last byte */
	char cmdline[BOOT_MODULE_NAME_MAX];
};

struct boot_info {
	const char *loader;          /* "multiboot1" or "multiboot2" */
	uint64_t info_phys;          /* the loader's structure, kept reserved */
	uint64_t info_size;
	char cmdline[BOOT_CMDLINE_MAX];
	struct boot_mem_range mmap[BOOT_MMAP_MAX];
	unsigned mmap_count;
	struct boot_module modules[BOOT_MODULES_MAX];
	unsigned module_count;
	uint64_t rsdp_phys;          /* an RSDP (copy) given by the loader, or 0 */
};

/* bootinfo_parse -- read the loader's information; 0 or -ERR_INVAL */
int bootinfo_parse(uint32_t magic, uint32_t info_phys, struct boot_info *out);

#endif
