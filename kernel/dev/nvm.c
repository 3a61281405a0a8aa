/*
 * nvm.c -- finding the NVM and making it usable.
 *
 * The NVM is never guessed: its range comes from the NFIT's SPA range
 * structure for persistent memory. If that is missing or malformed, or the
 * range is too small, we say exactly what is wrong and how to start QEMU,
 * and the caller halts.
 *
 * Flushing: with eADR (NFIT platform capabilities bit 0) CPU caches are in
 * the persistence domain and a fence is enough; otherwise the CPU's best
 * flush instruction (arch_flush_pick) unless `flush=` overrides it.
 *
 * nvm_init writes nothing to the NVM: what its bytes hold is the persistent
 * heap's business (core/heap.c).
 */
#include <numtext.h>
#include <stdbool.h>
#include <string.h>

#include "acpi/acpi.h"
#include "arch/arch.h"
#include "core/cmdline.h"
#include "core/printk.h"
#include "dev/nvm.h"
#include "ferrite/errors.h"
#include "mm/phys.h"
#include "mm/vm.h"

static const char qemu_hint[] =
	"  Ferrite needs an NVDIMM. Start it with tools/run-qemu, or give QEMU\n"
	"    -machine pc,nvdimm=on -m 256M,slots=2,maxmem=2G\n"
	"    -object memory-backend-file,id=nvm0,share=on,mem-path=IMAGE,size=1G\n"
	"    -device nvdimm,id=nv0,memdev=nvm0\n";

/* min_size -- the smallest NVM accepted (nvm.min=SIZE, default 16 MiB) */
static uint64_t min_size(void)
{
	const char *text = cmdline_get("nvm.min");
	uint64_t size;

	if (!text)
		return NVM_MIN_SIZE_DEFAULT;
	if (parse_size(text, &size) || size < PAGE_SIZE) {
		pr_warn("nvm: nvm.min=%s is not a size; using 16M\n", text);
		return NVM_MIN_SIZE_DEFAULT;
	}
	return size;
}

/* choose_flush -- the flush instruction, from the platform, CPU and flush= */
static enum flush_kind choose_flush(bool cpu_cache_persistent)
{
	const char *wanted = cmdline_get("flush");
	enum flush_kind kind = cpu_cache_persistent ? FLUSH_NONE : arch_flush_pick();

	if (!wanted)
		return kind;
	for (enum flush_kind k = FLUSH_NONE; k <= FLUSH_CLWB; k++) {
		if (strcmp(wanted, arch_flush_name(k)) != 0)
			continue;
		if (arch_flush_supported(k))
			return k;
		pr_warn("nvm: flush=%s: this CPU has no %s; using %s\n", wanted,
			wanted, arch_flush_name(kind));
		return kind;
	}
	pr_warn("nvm: flush=%s is not one of none, clflush, clflushopt, clwb; using %s\n",
		wanted, arch_flush_name(kind));
	return kind;
}

/* find_region -- the NFIT's persistent-memory range, with clear errors */
static int find_region(struct nvm_region *region)
{
	int err = acpi_nfit_find_nvm(region);

	if (err == -ERR_NOENT)
		pr_err("nvm: no NVDIMM: the ACPI tables have no NFIT or it lists no persistent-memory range\n%s",
		       qemu_hint);
	else if (err)
		pr_err("nvm: the NFIT is malformed (see above); not guessing where the NVM is\n");
	return err;
}

/* nvm_init -- find, check and map the NVM */
int nvm_init(struct nvm *out)
{
	struct nvm_region region;
	uint64_t min = min_size();
	int err = find_region(&region);

	if (err)
		return err;
	if (region.size < min) {
		pr_err("nvm: the NVDIMM has %llu KiB, less than the %llu KiB Ferrite needs\n"
		       "  give QEMU a larger memory-backend-file (tools/run-qemu --size 1G)\n",
		       (unsigned long long)(region.size >> 10),
		       (unsigned long long)(min >> 10));
		return -ERR_NOSPC;
	}
	if (region.base % PAGE_SIZE || region.size % PAGE_SIZE) {
		pr_err("nvm: the NVM range %#llx+%#llx is not page aligned\n",
		       (unsigned long long)region.base,
		       (unsigned long long)region.size);
		return -ERR_INVAL;
	}
	if (vm_map_physical(region.base, region.size)) {
		pr_err("nvm: out of DRAM for the page tables mapping the NVM\n");
		return -ERR_NOMEM;
	}
	*out = (struct nvm){
		.phys = region.base,
		.size = region.size,
		.base = phys_to_virt(region.base),
		.spa_index = region.spa_index,
		.cpu_cache_persistent = region.cpu_cache_persistent,
		.flush = choose_flush(region.cpu_cache_persistent),
	};
	arch_flush_use(out->flush);
	pr_info("nvm: %llu MiB at %#llx (NFIT SPA range %u), flush: %s%s\n",
		(unsigned long long)(out->size >> 20),
		(unsigned long long)out->phys, out->spa_index,
		arch_flush_name(out->flush),
		out->cpu_cache_persistent ? " (CPU caches persistent)" : "");
	return 0;
}
