/*
 * pci.c -- the PCI bus, as much of it as Ferrite's devices need.
 *
 * Configuration space is read and written through the PC's ports 0xcf8
 * (the address: bus, slot, function, register) and 0xcfc (the data),
 * "configuration mechanism #1", which both of QEMU's PC machines offer.
 * Only bus 0 is searched: every device Ferrite drives sits there.
 *
 * Placing memory. A device's memory (a BAR, base address register) must
 * be given a physical address before it answers there. SeaBIOS does that
 * for every device; qboot, the firmware of `--boot kernel`, does not. So
 * pci_enable places each memory BAR still at 0 itself, downward from the
 * start of the device window the kernel never maps as RAM (0xfe000000:
 * I/O APIC, HPET, local APIC, firmware), each aligned to its size, and
 * never below the end of the memory map's highest range under it
 * (pci_init): it collides with nothing the firmware or the RAM uses. A BAR
 * the firmware placed stays where it is. Sizing a BAR (write all ones,
 * read back which bits stuck) happens with the device's decoding off, so
 * that it never answers at the all-ones address meanwhile.
 *
 * All of this runs at power-on, on one CPU, before any driver uses its
 * device: the two ports are not shared with anything else.
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "core/bootinfo.h"
#include "dev/pci.h"
#include "ferrite/errors.h"

#define CONFIG_ADDRESS 0xcf8
#define CONFIG_DATA 0xcfc
#define CONFIG_ENABLE 0x80000000u
#define SLOTS 32
#define FUNCTIONS 8
#define HEADER_TYPE 0x0e
#define HEADER_MULTIFUNCTION 0x80
#define BAR0 0x10
#define BARS 6
#define BAR_IO 0x1u
#define BAR_TYPE_MASK 0x6u
#define BAR_TYPE_64 0x4u
#define BAR_PREFETCH 0x8u
#define BAR_MEM_MASK 0xfffffff0u
#define BAR_IO_MASK 0xfffffffcu
#define CAPABILITIES_MAX 48            /* a bound on a list's walk: no loop */
#define PLACE_TOP 0xfe000000ull        /* the device window (mm/vm.c) starts here */
#define FOUR_GIB 0x100000000ull

/* Where pci_enable may place memory: [place_floor, place_top), handed out
 * downward. */
static uint64_t place_floor = PLACE_TOP, place_top = PLACE_TOP;

/* address -- the configuration address of d's register `offset` */
static uint32_t address(const struct pci_device *d, uint8_t offset)
{
	return CONFIG_ENABLE | (uint32_t)d->bus << 16 | (uint32_t)d->slot << 11 |
	       (uint32_t)d->function << 8 | (offset & 0xfcu);
}

uint32_t pci_read32(const struct pci_device *d, uint8_t offset)
{
	arch_outl(CONFIG_ADDRESS, address(d, offset));
	return arch_inl(CONFIG_DATA);
}

uint16_t pci_read16(const struct pci_device *d, uint8_t offset)
{
	return (uint16_t)(pci_read32(d, offset) >> (8 * (offset & 2)));
}

uint8_t pci_read8(const struct pci_device *d, uint8_t offset)
{
	return (uint8_t)(pci_read32(d, offset) >> (8 * (offset & 3)));
}

void pci_write32(const struct pci_device *d, uint8_t offset, uint32_t value)
{
	arch_outl(CONFIG_ADDRESS, address(d, offset));
	arch_outl(CONFIG_DATA, value);
}

void pci_write16(const struct pci_device *d, uint8_t offset, uint16_t value)
{
	arch_outl(CONFIG_ADDRESS, address(d, offset));
	arch_outw(CONFIG_DATA + (offset & 2), value);
}

/* pci_init -- the floor of placed memory: the end of the highest range of
 * the memory map below the device window */
void pci_init(const struct boot_info *bi)
{
	uint64_t floor = 0;

	for (unsigned i = 0; i < bi->mmap_count; i++) {
		uint64_t base = bi->mmap[i].base, end = base + bi->mmap[i].size;

		if (base < PLACE_TOP && end > floor)
			floor = end < PLACE_TOP ? end : PLACE_TOP;
	}
	place_floor = floor;
}

/* pci_find -- the first function of bus 0 with this vendor and device */
bool pci_find(uint16_t vendor, uint16_t device, struct pci_device *out)
{
	for (uint8_t slot = 0; slot < SLOTS; slot++) {
		for (uint8_t fn = 0; fn < FUNCTIONS; fn++) {
			struct pci_device d = { .bus = 0, .slot = slot, .function = fn };
			uint32_t id = pci_read32(&d, 0);

			if ((id & 0xffff) == 0xffff) {
				if (fn == 0)
					break; /* no device in this slot */
				continue;
			}
			d.vendor = (uint16_t)id;
			d.device = (uint16_t)(id >> 16);
			if (d.vendor == vendor && d.device == device) {
				*out = d;
				return true;
			}
			if (fn == 0 && !(pci_read8(&d, HEADER_TYPE) & HEADER_MULTIFUNCTION))
				break;
		}
	}
	return false;
}

/* pci_next_capability -- the next capability of type id after `after` */
uint8_t pci_next_capability(const struct pci_device *d, uint8_t id, uint8_t after)
{
	uint8_t at;

	if (!(pci_read16(d, PCI_STATUS) & PCI_STATUS_CAPABILITIES))
		return 0;
	at = after ? pci_read8(d, after + 1) : pci_read8(d, PCI_CAPABILITIES);
	for (unsigned i = 0; i < CAPABILITIES_MAX && at >= 0x40; i++) {
		at &= 0xfc;
		if (pci_read8(d, at) == id)
			return at;
		at = pci_read8(d, at + 1);
	}
	return 0;
}

/* probe -- BAR `index` of d: where it is and how big (decoding must be
 * off); *wide when it takes two registers (a 64-bit BAR). Its register is
 * left as it was. */
static void probe(const struct pci_device *d, unsigned index, struct pci_bar *bar,
		  bool *wide)
{
	uint8_t reg = (uint8_t)(BAR0 + 4 * index);
	uint32_t lo = pci_read32(d, reg), lo_mask, hi = 0, hi_mask = 0xffffffffu;

	*bar = (struct pci_bar){0};
	bar->io = lo & BAR_IO;
	*wide = !bar->io && (lo & BAR_TYPE_MASK) == BAR_TYPE_64 && index + 1 < BARS;
	pci_write32(d, reg, 0xffffffffu);
	lo_mask = pci_read32(d, reg) & (bar->io ? BAR_IO_MASK : BAR_MEM_MASK);
	pci_write32(d, reg, lo);
	if (*wide) {
		hi = pci_read32(d, reg + 4);
		pci_write32(d, reg + 4, 0xffffffffu);
		hi_mask = pci_read32(d, reg + 4);
		pci_write32(d, reg + 4, hi);
	}
	if (!lo_mask)
		return; /* not implemented */
	if (bar->io) /* 16 or 32 bits of port address: the size within them */
		bar->size = (uint32_t)(~(lo_mask & 0xffff0000u ? lo_mask : lo_mask | 0xffff0000u) + 1);
	else
		bar->size = ~((uint64_t)hi_mask << 32 | lo_mask) + 1;
	bar->phys = (uint64_t)hi << 32 | (lo & (bar->io ? BAR_IO_MASK : BAR_MEM_MASK));
	bar->prefetchable = !bar->io && (lo & BAR_PREFETCH);
}

/* place -- give memory BAR `index` of d (of bar->size bytes) an address
 * below the device window; 0 or -ERR_NOSPC */
static int place(const struct pci_device *d, unsigned index, struct pci_bar *bar, bool wide)
{
	uint8_t reg = (uint8_t)(BAR0 + 4 * index);
	uint64_t at;

	if (bar->size > place_top || bar->size >= FOUR_GIB)
		return -ERR_NOSPC;
	at = (place_top - bar->size) & ~(bar->size - 1);
	if (at < place_floor)
		return -ERR_NOSPC;
	place_top = at;
	pci_write32(d, reg, (uint32_t)at | (pci_read32(d, reg) & ~BAR_MEM_MASK));
	if (wide)
		pci_write32(d, reg + 4, 0);
	bar->phys = at;
	return 0;
}

/* pci_enable -- every BAR sized, unplaced memory placed, decoding on */
int pci_enable(const struct pci_device *d, bool master)
{
	uint16_t command = pci_read16(d, PCI_COMMAND);
	bool wide = false;

	pci_write16(d, PCI_COMMAND, command & ~(PCI_COMMAND_MEMORY | PCI_COMMAND_IO));
	for (unsigned i = 0; i < BARS; i += wide ? 2 : 1) {
		struct pci_bar bar;

		probe(d, i, &bar, &wide);
		if (!bar.size || bar.io || bar.phys)
			continue;
		if (place(d, i, &bar, wide)) {
			pci_write16(d, PCI_COMMAND, command & ~(PCI_COMMAND_MEMORY | PCI_COMMAND_IO));
			return -ERR_NOSPC;
		}
	}
	command |= PCI_COMMAND_MEMORY;
	if (master)
		command |= PCI_COMMAND_MASTER;
	pci_write16(d, PCI_COMMAND, command);
	return 0;
}

/* pci_bar -- BAR `index` of d: where it answers and how big */
int pci_bar(const struct pci_device *d, unsigned index, struct pci_bar *out)
{
	uint16_t command = pci_read16(d, PCI_COMMAND);
	bool wide;

	if (index >= BARS)
		return -ERR_NOENT;
	pci_write16(d, PCI_COMMAND, command & ~(PCI_COMMAND_MEMORY | PCI_COMMAND_IO));
	probe(d, index, out, &wide);
	pci_write16(d, PCI_COMMAND, command);
	return out->size && out->phys ? 0 : -ERR_NOENT;
}
