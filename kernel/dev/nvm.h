/*
 * nvm.h -- the non-volatile memory: found through the ACPI NFIT, mapped
 * into the HHDM, flushed with the instruction the CPU and platform call for.
 */
#ifndef DEV_NVM_H
#define DEV_NVM_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"

#define NVM_MIN_SIZE_DEFAULT (16ull << 20)

struct nvm {
	uint64_t phys;             /* physical base */
	uint64_t size;             /* bytes */
	void *base;                /* kernel address (HHDM) */
	uint16_t spa_index;        /* NFIT SPA range structure index */
	bool cpu_cache_persistent; /* eADR: no flush needed, only fences */
	enum flush_kind flush;
};

/* nvm_init -- find, check and map the NVM; 0, or a negative error after a clear message */
int nvm_init(struct nvm *out);

#endif
