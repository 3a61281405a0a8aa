/*
 * idt.c -- the interrupt descriptor table: 256 interrupt gates, all
 * pointing at the stubs of trap_entry.S. The double fault, NMI and machine
 * check run on their own stacks (IST, see gdt.c).
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/trap.h"

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct idt_gate) == 16, "IDT gate layout");

extern const uint64_t trap_stubs[256];
static struct idt_gate idt[256];

/* gate_ist -- which interrupt stack a vector runs on (0: the current one) */
static uint8_t gate_ist(unsigned vector)
{
	switch (vector) {
	case 2:
		return IST_NMI;
	case 8:
		return IST_DOUBLE_FAULT;
	case 18:
		return IST_MACHINE_CHECK;
	default:
		return 0;
	}
}

/* idt_init -- fill the IDT with the 256 stubs (once) and load it on this CPU */
void idt_init(void)
{
	static bool filled;
	struct descriptor_pointer idtr;

	for (unsigned v = 0; v < 256 && !filled; v++) {
		uint64_t handler = trap_stubs[v];

		idt[v] = (struct idt_gate){
			.offset_low = handler & 0xffff,
			.selector = GDT_KERNEL_CODE,
			.ist = gate_ist(v),
			.type_attr = 0x8e, /* present, DPL 0, interrupt gate */
			.offset_mid = (handler >> 16) & 0xffff,
			.offset_high = handler >> 32,
		};
	}
	filled = true;
	idtr.limit = sizeof(idt) - 1;
	idtr.base = (uint64_t)(uintptr_t)idt;
	__asm__ volatile("lidt %0" : : "m"(idtr));
}
