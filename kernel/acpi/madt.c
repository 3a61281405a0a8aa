/*
 * madt.c -- where the interrupt controllers are: the Multiple APIC
 * Description Table, signature "APIC" (ACPI 6.x §5.2.12).
 *
 * After the header come the local APIC address (4 bytes) and flags (4
 * bytes), then entries of a 1-byte type and a 1-byte length. Ferrite reads
 * the local APICs (to count the CPUs and keep their APIC ids), the first
 * I/O APIC, the interrupt source overrides of ISA IRQs (QEMU: IRQ0 -> GSI2,
 * and the PCI IRQs 5, 9, 10, 11 level-triggered) and the 64-bit local APIC
 * address override. Every entry
 * is checked against the table's end and its type's size before it is read.
 */
#include <string.h>

#include "acpi/acpi.h"
#include "acpi/acpi_priv.h"
#include "core/printk.h"
#include "ferrite/errors.h"

#define MADT_LAPIC_ADDR 36
#define MADT_FLAGS 40
#define MADT_FIRST_ENTRY 44
#define MADT_PCAT_COMPAT 0x1

#define MADT_LAPIC 0                /* processor local APIC */
#define MADT_IOAPIC 1
#define MADT_OVERRIDE 2             /* interrupt source override */
#define MADT_LAPIC_ADDR_OVERRIDE 5
#define MADT_X2APIC 9               /* processor local x2APIC */

#define LAPIC_ID 3                  /* u8 */
#define LAPIC_FLAGS 4               /* u32: bit 0 enabled, bit 1 online capable */
#define X2APIC_ID 4                 /* u32 */
#define X2APIC_FLAGS 8
#define CPU_USABLE 0x3
#define IOAPIC_ADDR 4
#define IOAPIC_GSI_BASE 8
#define OVERRIDE_BUS 2
#define OVERRIDE_SOURCE 3
#define OVERRIDE_GSI 4
#define OVERRIDE_FLAGS 8
#define LAPIC_OVERRIDE_ADDR 4

/* The size each entry type Ferrite reads must have at least; 0 = skipped. */
static const uint8_t madt_min_len[] = {
	[MADT_LAPIC] = 8,
	[MADT_IOAPIC] = 12,
	[MADT_OVERRIDE] = 10,
	[MADT_LAPIC_ADDR_OVERRIDE] = 12,
	[MADT_X2APIC] = 16,
};

/* madt_override -- apply an interrupt source override to the ISA table */
static void madt_override(const uint8_t *e, uint32_t off, struct madt_info *out)
{
	uint8_t bus = e[OVERRIDE_BUS], source = e[OVERRIDE_SOURCE];

	if (bus != 0 || source >= 16) {
		pr_warn("acpi: MADT override at offset %#x for bus %u IRQ %u: not ISA, ignored\n",
			off, bus, source);
		return;
	}
	out->isa_irq[source].gsi = acpi_get32(e + OVERRIDE_GSI);
	out->isa_irq[source].flags = acpi_get16(e + OVERRIDE_FLAGS);
}

/* add_cpu -- count a usable CPU and keep its APIC id */
static void add_cpu(struct madt_info *out, uint32_t apic_id)
{
	if (out->cpu_count < MADT_MAX_CPUS)
		out->cpu_apic_id[out->cpu_count] = apic_id;
	out->cpu_count++;
}

/* madt_entry -- take what Ferrite needs from one entry of a known-good length */
static void madt_entry(const uint8_t *e, uint32_t off, struct madt_info *out)
{
	switch (e[0]) {
	case MADT_LAPIC:
		if (acpi_get32(e + LAPIC_FLAGS) & CPU_USABLE)
			add_cpu(out, e[LAPIC_ID]);
		break;
	case MADT_X2APIC:
		if (acpi_get32(e + X2APIC_FLAGS) & CPU_USABLE)
			add_cpu(out, acpi_get32(e + X2APIC_ID));
		break;
	case MADT_IOAPIC:
		if (out->ioapic_phys == 0) {
			out->ioapic_phys = acpi_get32(e + IOAPIC_ADDR);
			out->ioapic_gsi_base = acpi_get32(e + IOAPIC_GSI_BASE);
		}
		break;
	case MADT_OVERRIDE:
		madt_override(e, off, out);
		break;
	case MADT_LAPIC_ADDR_OVERRIDE:
		out->lapic_phys = acpi_get64(e + LAPIC_OVERRIDE_ADDR);
		break;
	}
}

/* madt_entry_check -- the entry at off fits in the table and its type */
static int madt_entry_check(const uint8_t *t, uint32_t len, uint32_t off)
{
	uint8_t type, elen;

	if (len - off < 2) {
		pr_err("acpi: MADT: entry header at offset %#x runs past the end (%u bytes)\n",
		       off, len);
		return -ERR_CORRUPT;
	}
	type = t[off];
	elen = t[off + 1];
	if (elen < 2 || elen > len - off) {
		pr_err("acpi: MADT: entry at offset %#x (type %u) has length %u: %s\n",
		       off, type, elen,
		       elen < 2 ? "shorter than its header" : "past the end");
		return -ERR_CORRUPT;
	}
	if (type < sizeof(madt_min_len) && elen < madt_min_len[type]) {
		pr_err("acpi: MADT: entry at offset %#x (type %u) has length %u < %u\n",
		       off, type, elen, madt_min_len[type]);
		return -ERR_CORRUPT;
	}
	return 0;
}

/* madt_defaults -- what holds before any entry is read */
static void madt_defaults(const uint8_t *t, struct madt_info *out)
{
	memset(out, 0, sizeof(*out));
	out->lapic_phys = acpi_get32(t + MADT_LAPIC_ADDR);
	out->pcat_compat = (acpi_get32(t + MADT_FLAGS) & MADT_PCAT_COMPAT) != 0;
	for (uint32_t irq = 0; irq < 16; irq++)
		out->isa_irq[irq].gsi = irq; /* flags 0: as the ISA bus says */
}

/* madt_parse -- the local APIC, the first I/O APIC and the ISA IRQ routing */
int madt_parse(const void *table, uint32_t length, struct madt_info *out)
{
	const uint8_t *t = table;
	uint32_t len, off;
	int err = acpi_table_check(table, length, "APIC");

	if (err)
		return err;
	len = ((const struct acpi_header *)table)->length;
	if (len < MADT_FIRST_ENTRY) {
		pr_err("acpi: MADT: length %u is too short for the local APIC address and flags\n",
		       len);
		return -ERR_CORRUPT;
	}
	madt_defaults(t, out);
	for (off = MADT_FIRST_ENTRY; off < len; off += t[off + 1]) {
		err = madt_entry_check(t, len, off);
		if (err)
			return err;
		madt_entry(t + off, off, out);
	}
	if (out->ioapic_phys == 0) {
		pr_err("acpi: MADT: no I/O APIC\n");
		return -ERR_NOENT;
	}
	return 0;
}

/* acpi_madt_parse -- madt_parse on the MADT found by acpi_init */
int acpi_madt_parse(struct madt_info *out)
{
	const struct acpi_header *madt = acpi_find_table("APIC", 0);

	if (!madt)
		return acpi_missing("APIC", "where the interrupt controllers are");
	return madt_parse(madt, madt->length, out);
}
