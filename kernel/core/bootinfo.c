/*
 * bootinfo.c -- reading the multiboot1 and multiboot2 information.
 *
 * The loader's structures live in low memory (mapped by the early page
 * tables). We copy out what the kernel needs and remember where the
 * structure itself lies, so the frame allocator leaves it alone: the
 * multiboot2 RSDP tag is a copy of the RSDP inside it.
 */
#include <stddef.h>
#include <string.h>

#include "core/bootinfo.h"
#include "ferrite/errors.h"
#include "mm/phys.h"

#define MB1_BOOTLOADER_MAGIC 0x2badb002
#define MB2_BOOTLOADER_MAGIC 0x36d76289

#define MB1_INFO_CMDLINE (1u << 2)
#define MB1_INFO_MODS (1u << 3)
#define MB1_INFO_MMAP (1u << 6)

#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_MODULE 3
#define MB2_TAG_MMAP 6
#define MB2_TAG_ACPI_OLD 14
#define MB2_TAG_ACPI_NEW 15
#define MB2_INFO_MAX (1u << 20) /* sanity bound on the loader's total_size */

struct mb1_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
} __attribute__((packed));

struct mb1_module {
	uint32_t start, end, string, reserved;
} __attribute__((packed));

struct mb1_mmap_entry {
	uint32_t size;
	uint64_t base, length;
	uint32_t type;
} __attribute__((packed));

struct mb2_tag {
	uint32_t type, size;
};

struct mb2_mmap_entry {
	uint64_t base, length;
	uint32_t type, reserved;
};

/* add_mem_range -- append one memory-map entry, ignoring empty ones */
static void add_mem_range(struct boot_info *bi, uint64_t base, uint64_t size,
			  uint32_t type)
{
	if (size == 0 || bi->mmap_count == BOOT_MMAP_MAX)
		return;
	bi->mmap[bi->mmap_count++] =
		(struct boot_mem_range){ .base = base, .size = size, .type = type };
}

/* add_module -- append one module with its command line */
static void add_module(struct boot_info *bi, uint64_t start, uint64_t end,
		       const char *cmdline)
{
	struct boot_module *m;

	if (bi->module_count == BOOT_MODULES_MAX)
		return;
	m = &bi->modules[bi->module_count++];
	m->start = start;
	m->end = end;
	strlcpy(m->cmdline, cmdline ? cmdline : "", sizeof(m->cmdline));
}

/* skip_first_word -- the arguments after a multiboot1 command line's kernel path */
static const char *skip_first_word(const char *s)
{
	while (*s && *s != ' ')
		s++;
	while (*s == ' ')
		s++;
	return s;
}

/* parse_mb1 -- the multiboot1 information structure */
static void parse_mb1(const struct mb1_info *info, struct boot_info *bi)
{
	bi->loader = "multiboot1";
	bi->info_size = sizeof(*info);
	/* Multiboot1 loaders (QEMU -kernel, GRUB's `multiboot`) put the
	 * kernel's own path first; multiboot2 gives only the arguments. */
	if (info->flags & MB1_INFO_CMDLINE)
		strlcpy(bi->cmdline,
			skip_first_word(phys_to_virt(info->cmdline)),
			sizeof(bi->cmdline));
	if (info->flags & MB1_INFO_MMAP) {
		uint64_t p = info->mmap_addr;
		uint64_t end = p + info->mmap_length;

		while (p + sizeof(struct mb1_mmap_entry) <= end) {
			const struct mb1_mmap_entry *e = phys_to_virt(p);

			add_mem_range(bi, e->base, e->length, e->type);
			p += e->size + sizeof(e->size);
		}
	}
	if (info->flags & MB1_INFO_MODS) {
		const struct mb1_module *mods = phys_to_virt(info->mods_addr);

		for (uint32_t i = 0; i < info->mods_count; i++)
			add_module(bi, mods[i].start, mods[i].end,
				   mods[i].string ? phys_to_virt(mods[i].string)
						  : NULL);
	}
}

/* parse_mb2_mmap -- the entries of a multiboot2 memory-map tag */
static void parse_mb2_mmap(const struct mb2_tag *tag, struct boot_info *bi)
{
	const uint8_t *p = (const uint8_t *)tag + 16;
	const uint8_t *end = (const uint8_t *)tag + tag->size;
	uint32_t entry_size = ((const uint32_t *)tag)[2];

	if (entry_size < sizeof(struct mb2_mmap_entry))
		return;
	for (; p + entry_size <= end; p += entry_size) {
		const struct mb2_mmap_entry *e = (const void *)p;

		add_mem_range(bi, e->base, e->length, e->type);
	}
}

/* parse_mb2 -- the multiboot2 tags */
static int parse_mb2(uint64_t info_phys, struct boot_info *bi)
{
	const uint8_t *base = phys_to_virt(info_phys);
	uint32_t total = *(const uint32_t *)base;
	uint32_t off = 8;

	if (total < 16 || total > MB2_INFO_MAX)
		return -ERR_INVAL;
	bi->loader = "multiboot2";
	bi->info_size = total;
	while (off + sizeof(struct mb2_tag) <= total) {
		const struct mb2_tag *tag = (const void *)(base + off);

		if (tag->type == MB2_TAG_END)
			break;
		if (tag->size < sizeof(*tag) || off + tag->size > total)
			return -ERR_INVAL;
		switch (tag->type) {
		case MB2_TAG_CMDLINE:
			strlcpy(bi->cmdline, (const char *)(tag + 1),
				sizeof(bi->cmdline));
			break;
		case MB2_TAG_MODULE: {
			const uint32_t *m = (const uint32_t *)(tag + 1);

			add_module(bi, m[0], m[1], (const char *)(m + 2));
			break;
		}
		case MB2_TAG_MMAP:
			parse_mb2_mmap(tag, bi);
			break;
		case MB2_TAG_ACPI_NEW:
			bi->rsdp_phys = info_phys + off + sizeof(*tag);
			break;
		case MB2_TAG_ACPI_OLD:
			if (!bi->rsdp_phys)
				bi->rsdp_phys = info_phys + off + sizeof(*tag);
			break;
		}
		off += (tag->size + 7) & ~7u;
	}
	return 0;
}

/* bootinfo_parse -- read the loader's information; 0 or -ERR_INVAL */
int bootinfo_parse(uint32_t magic, uint32_t info_phys, struct boot_info *out)
{
	memset(out, 0, sizeof(*out));
	out->info_phys = info_phys;
	if (magic == MB1_BOOTLOADER_MAGIC) {
		parse_mb1(phys_to_virt(info_phys), out);
		return 0;
	}
	if (magic == MB2_BOOTLOADER_MAGIC)
		return parse_mb2(info_phys, out);
	return -ERR_INVAL;
}
