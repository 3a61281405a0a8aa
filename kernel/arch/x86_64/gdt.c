/*
 * gdt.c -- the segment descriptors and the task-state segment.
 *
 * In long mode segments are almost gone: we need a code and a data
 * descriptor for ring 0, the same two for ring 3, and a TSS. The user
 * descriptors sit where SYSRET looks for them (STAR's base 0x10 + 8 for
 * SS, + 16 for CS; see trap.h and user.c), hence data before code.
 *
 * Each CPU has its own GDT and TSS (a TSS descriptor is marked busy by
 * the CPU that loads it, and each CPU has its own stacks).
 *
 * The TSS gives two kinds of stack: rsp0, the top of the CPU's kernel
 * stack, where the CPU puts the frame of every interrupt or exception from ring 3;
 * and the interrupt stack table, which gives the double-fault, NMI and
 * machine-check handlers stacks of their own, so a kernel stack overflow
 * still ends in a readable dump instead of a triple fault.
 */
#include <stdint.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/user.h"

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct tss) == 104, "TSS layout");

#define IST_STACK_SIZE 8192

#define GDT_SLOTS 7

static uint8_t ist_stacks[ARCH_MAX_CPUS][3][IST_STACK_SIZE] __attribute__((aligned(16)));
static struct tss tss[ARCH_MAX_CPUS];

/* null, kernel code, kernel data, user data, user code, TSS (two slots) */
static const uint64_t gdt_template[GDT_SLOTS] = {
	0,
	0x00af9a000000ffffull, /* 0x08: 64-bit code, DPL 0 */
	0x00cf92000000ffffull, /* 0x10: data, DPL 0 */
	0x00cff2000000ffffull, /* 0x18: data, DPL 3 */
	0x00affa000000ffffull, /* 0x20: 64-bit code, DPL 3 */
};
_Static_assert(GDT_TSS / 8 + 2 == GDT_SLOTS, "TSS is last");

static uint64_t gdt[ARCH_MAX_CPUS][GDT_SLOTS];

/* tss_descriptor -- fill the two GDT slots of a 64-bit available TSS */
static void tss_descriptor(uint64_t *slot, const struct tss *t)
{
	uint64_t base = (uint64_t)(uintptr_t)t;
	uint64_t limit = sizeof(*t) - 1;

	slot[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
		  (0x89ull << 40) | (((limit >> 16) & 0xf) << 48) |
		  (((base >> 24) & 0xff) << 56);
	slot[1] = base >> 32;
}

/* gdt_init -- load the GDT and TSS of CPU `index`, whose kernel stack ends at stack_top */
void gdt_init(unsigned index, uint64_t stack_top)
{
	struct tss *t = &tss[index];
	uint64_t *g = gdt[index];
	struct descriptor_pointer gdtr;

	memset(t, 0, sizeof(*t));
	t->rsp[0] = stack_top;
	for (int i = 0; i < 3; i++)
		t->ist[i] = (uint64_t)(uintptr_t)&ist_stacks[index][i][IST_STACK_SIZE];
	t->iomap_base = sizeof(*t); /* no I/O permission bitmap */
	memcpy(g, gdt_template, sizeof(gdt_template));
	tss_descriptor(&g[GDT_TSS / 8], t);

	gdtr.limit = sizeof(gdt[0]) - 1;
	gdtr.base = (uint64_t)(uintptr_t)g;
	__asm__ volatile("lgdt %0\n\t"
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w2, %%ds\n\t"
			 "movw %w2, %%es\n\t"
			 "movw %w2, %%ss\n\t"
			 "ltr %w3"
			 :
			 : "m"(gdtr), "i"(GDT_KERNEL_CODE), "r"(GDT_KERNEL_DATA),
			   "r"(GDT_TSS)
			 : "rax", "memory");
}
