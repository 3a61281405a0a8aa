/*
 * pci.h -- the PCI bus: finding a device, its registers and its memory.
 *
 * Configuration space through the PC's ports 0xcf8/0xcfc (mechanism #1),
 * bus 0 only: QEMU's pc and q35 machines put every device Ferrite drives
 * there. Used at power-on only, by one CPU, before a driver's device is
 * in use (pci.c).
 */
#ifndef DEV_PCI_H
#define DEV_PCI_H

#include <stdbool.h>
#include <stdint.h>

struct boot_info;

/* A function on the bus. */
struct pci_device {
	uint8_t bus, slot, function;
	uint16_t vendor, device;
};

/* A base address register, as pci_bar found (and if need be placed) it. */
struct pci_bar {
	uint64_t phys;          /* where the device answers; 0 if none */
	uint64_t size;          /* bytes */
	bool io;                /* I/O ports, not memory */
	bool prefetchable;
};

/* Configuration-space offsets a driver needs. */
#define PCI_COMMAND 0x04
#define PCI_STATUS 0x06
#define PCI_CAPABILITIES 0x34
#define PCI_STATUS_CAPABILITIES 0x10
#define PCI_COMMAND_IO 0x01
#define PCI_COMMAND_MEMORY 0x02
#define PCI_COMMAND_MASTER 0x04

/* pci_init -- where the kernel may place memory a device's firmware left
 * unplaced: below the device window, above every range of the memory map */
void pci_init(const struct boot_info *bi);

/* pci_find -- the first function with this vendor and device id; whether
 * there is one */
bool pci_find(uint16_t vendor, uint16_t device, struct pci_device *out);

uint32_t pci_read32(const struct pci_device *d, uint8_t offset);
uint16_t pci_read16(const struct pci_device *d, uint8_t offset);
uint8_t pci_read8(const struct pci_device *d, uint8_t offset);
void pci_write32(const struct pci_device *d, uint8_t offset, uint32_t value);
void pci_write16(const struct pci_device *d, uint8_t offset, uint16_t value);

/* pci_next_capability -- the offset of the first capability of type `id`
 * after offset `after` (0: from the start of the list); 0 when none */
uint8_t pci_next_capability(const struct pci_device *d, uint8_t id, uint8_t after);

/* pci_enable -- size every BAR of d, place the memory ones its firmware
 * left unplaced, and turn memory decoding on (and bus mastering if asked);
 * 0, or -ERR_NOSPC when there is no room to place one (then decoding
 * stays off) */
int pci_enable(const struct pci_device *d, bool master);

/* pci_bar -- BAR `index` of d, enabled (pci_enable) -> 0, or -ERR_NOENT
 * when it is not there */
int pci_bar(const struct pci_device *d, unsigned index, struct pci_bar *out);

#endif
