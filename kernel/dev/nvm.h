/*
 * nvm.h -- the non-volatile memory: an NVDIMM found through the ACPI NFIT,
 * or a virtio-pmem device (virtio_pmem.h), mapped into the HHDM, flushed
 * as its kind calls for (nvm.c).
 */
#ifndef DEV_NVM_H
#define DEV_NVM_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"

struct boot_info;

#define NVM_MIN_SIZE_DEFAULT (16ull << 20)

/* What kind of device holds the NVM. */
enum nvm_kind {
	NVM_NVDIMM,      /* ACPI NFIT: durable once a line is written back */
	NVM_VIRTIO_PMEM, /* virtio-pmem: durable once a FLUSH request completes */
};

struct nvm {
	enum nvm_kind kind;
	uint64_t phys;             /* physical base */
	uint64_t size;             /* bytes */
	void *base;                /* kernel address (HHDM) */
	bool flush_requests;       /* durability needs pmem_flush_* (virtio_pmem.h) */
	uint16_t spa_index;        /* NVDIMM: NFIT SPA range structure index */
	uint8_t pci_slot, pci_function; /* virtio-pmem: its PCI address on bus 0 */
	bool cpu_cache_persistent; /* eADR: no flush needed, only fences */
	enum flush_kind flush;     /* the CPU's write-back of lines (arch_flush_use) */
};

/* nvm_init -- find the NVDIMM and the virtio-pmem device, choose one
 * (nvm= on the command line, else the one holding a heap, else the
 * NVDIMM), check and map it; 0, or a negative error after a clear message */
int nvm_init(const struct boot_info *bi, struct nvm *out);

/* nvm_kind_name -- "NVDIMM" or "virtio-pmem device" */
const char *nvm_kind_name(enum nvm_kind kind);

#endif
