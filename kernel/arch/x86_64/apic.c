/*
 * apic.c -- the local APIC and the I/O APIC.
 *
 * The two 8259 PICs are remapped out of the exception range and masked;
 * every interrupt then comes through the APICs: ISA IRQs via the I/O APIC
 * (with the MADT's source overrides applied, e.g. IRQ 0 -> GSI 2 on QEMU)
 * on vector 0x20 + irq, the LAPIC timer on VECTOR_LAPIC_TIMER.
 */
#include <stdint.h>

#include "acpi/acpi.h"
#include "arch/arch.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "core/panic.h"
#include "core/printk.h"
#include "ferrite/errors.h"
#include "mm/vm.h"

#define LAPIC_ID 0x20
#define LAPIC_EOI 0xb0
#define LAPIC_SVR 0xf0
#define LAPIC_SVR_ENABLE 0x100
#define LAPIC_ICR_LOW 0x300
#define LAPIC_ICR_HIGH 0x310
#define ICR_PENDING (1u << 12)

#define IOAPIC_REGSEL 0x00
#define IOAPIC_WINDOW 0x10
#define IOAPIC_VERSION 0x01
#define IOAPIC_REDIRECTION 0x10

#define MPS_POLARITY_LOW 0x2   /* INTI flags: polarity bits = 11 */
#define MPS_TRIGGER_LEVEL 0x8  /* INTI flags: trigger bits = 11 */

static volatile uint32_t *lapic;
static volatile uint32_t *ioapic;
static struct madt_info madt_copy;

/* lapic_read -- a LAPIC register */
uint32_t lapic_read(unsigned reg)
{
	return lapic[reg / 4];
}

/* lapic_write -- set a LAPIC register */
void lapic_write(unsigned reg, uint32_t value)
{
	lapic[reg / 4] = value;
}

/* lapic_enable -- turn on this CPU's local APIC (each CPU its own) */
void lapic_enable(void)
{
	wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | (1u << 11)); /* global enable */
	lapic_write(LAPIC_SVR, LAPIC_SVR_ENABLE | VECTOR_SPURIOUS);
}

/* lapic_send_ipi -- send the interrupt command `low` to APIC id `apic_id` */
void lapic_send_ipi(uint32_t apic_id, uint32_t low)
{
	while (lapic_read(LAPIC_ICR_LOW) & ICR_PENDING)
		__asm__ volatile("pause");
	lapic_write(LAPIC_ICR_HIGH, apic_id << 24);
	lapic_write(LAPIC_ICR_LOW, low); /* this write sends it */
}

/* apic_madt -- what the MADT said (kept by arch_interrupts_init) */
const struct madt_info *apic_madt(void)
{
	return &madt_copy;
}

/* lapic_eoi -- acknowledge the interrupt being handled */
void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

static void ioapic_write(uint32_t reg, uint32_t value)
{
	ioapic[IOAPIC_REGSEL / 4] = reg;
	ioapic[IOAPIC_WINDOW / 4] = value;
}

static uint32_t ioapic_read(uint32_t reg)
{
	ioapic[IOAPIC_REGSEL / 4] = reg;
	return ioapic[IOAPIC_WINDOW / 4];
}

/* pic_disable -- remap the 8259s to vectors 0x20-0x2f and mask them all */
static void pic_disable(void)
{
	arch_outb(0x20, 0x11); /* ICW1: init, expect ICW4 */
	arch_outb(0xa0, 0x11);
	arch_outb(0x21, 0x20); /* ICW2: vector offsets */
	arch_outb(0xa1, 0x28);
	arch_outb(0x21, 0x04); /* ICW3: slave on IRQ 2 */
	arch_outb(0xa1, 0x02);
	arch_outb(0x21, 0x01); /* ICW4: 8086 mode */
	arch_outb(0xa1, 0x01);
	arch_outb(0x21, 0xff); /* mask everything */
	arch_outb(0xa1, 0xff);
}

/* arch_interrupts_init -- mask the 8259s, enable the LAPIC and I/O APIC */
int arch_interrupts_init(const struct madt_info *madt)
{
	uint32_t entries;

	madt_copy = *madt;
	pic_disable();
	lapic = vm_map_mmio(madt->lapic_phys, 4096);
	ioapic = vm_map_mmio(madt->ioapic_phys, 4096);
	lapic_enable();

	entries = ((ioapic_read(IOAPIC_VERSION) >> 16) & 0xff) + 1;
	for (uint32_t i = 0; i < entries; i++) { /* all masked */
		ioapic_write(IOAPIC_REDIRECTION + 2 * i, 1u << 16);
		ioapic_write(IOAPIC_REDIRECTION + 2 * i + 1, 0);
	}
	pr_info("apic: LAPIC %u at %#llx, I/O APIC at %#llx with %u inputs\n",
		lapic_read(LAPIC_ID) >> 24, (unsigned long long)madt->lapic_phys,
		(unsigned long long)madt->ioapic_phys, entries);
	return 0;
}

/* arch_irq_route -- deliver ISA interrupt `irq` to `handler` (IOAPIC) */
void arch_irq_route(unsigned irq, void (*handler)(void))
{
	uint32_t gsi, pin, low;
	uint16_t flags;

	KASSERT(irq < 16);
	gsi = madt_copy.isa_irq[irq].gsi;
	flags = madt_copy.isa_irq[irq].flags;
	pin = gsi - madt_copy.ioapic_gsi_base;
	trap_set_handler(VECTOR_IRQ_BASE + irq, handler);

	low = VECTOR_IRQ_BASE + irq; /* fixed delivery, physical, to APIC 0 */
	if ((flags & 0x3) == 0x3)
		low |= 1u << 13; /* active low */
	if ((flags & 0xc) == 0xc)
		low |= 1u << 15; /* level triggered */
	ioapic_write(IOAPIC_REDIRECTION + 2 * pin + 1,
		     (lapic_read(LAPIC_ID) >> 24) << 24);
	ioapic_write(IOAPIC_REDIRECTION + 2 * pin, low);
}
