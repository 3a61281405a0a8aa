/*
 * ivshmem.c -- QEMU's ivshmem-plain device: shared memory, no more.
 *
 * The device (vendor 0x1af4, device 0x1110) shows a host memory backend
 * as its BAR 2; BAR 0 holds registers that only the doorbell variant
 * uses, and the plain device raises no interrupt. So the driver only
 * finds the device, has its memory placed (pci.c: qboot leaves it
 * unplaced) and maps it into the direct map, cached: it is RAM on the
 * host, and under a hypervisor an uncached mapping would make every
 * access slow. What the memory means is its user's business (the host
 * link's window, hostlink/hostlink.c); signalling goes another way (the
 * link's UART).
 */
#include <stdbool.h>
#include <stdint.h>

#include "core/printk.h"
#include "dev/ivshmem.h"
#include "dev/pci.h"
#include "mm/phys.h"
#include "mm/vm.h"

#define IVSHMEM_VENDOR 0x1af4
#define IVSHMEM_DEVICE 0x1110
#define SHARED_BAR 2

/* ivshmem_find -- the shared memory of the first ivshmem-plain device */
bool ivshmem_find(struct ivshmem *out)
{
	struct pci_device d;
	struct pci_bar bar;

	if (!pci_find(IVSHMEM_VENDOR, IVSHMEM_DEVICE, &d))
		return false;
	if (pci_enable(&d, false) || pci_bar(&d, SHARED_BAR, &bar) || bar.io) {
		pr_warn("ivshmem: 00:%02x.%u: no room to place its memory; not used\n",
			d.slot, d.function);
		return false;
	}
	if (vm_map_physical(bar.phys, bar.size)) {
		pr_warn("ivshmem: no frames to map its %llu KiB; not used\n",
			(unsigned long long)(bar.size >> 10));
		return false;
	}
	out->base = phys_to_virt(bar.phys);
	out->size = bar.size;
	return true;
}
