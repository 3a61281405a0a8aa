/*
 * nvm.c -- finding the NVM and making it usable.
 *
 * Two kinds of device can hold the NVM, and the NVM is never guessed:
 *  - an NVDIMM: its range comes from the NFIT's SPA range structure for
 *    persistent memory (acpi/nfit.c). A store is durable once its line is
 *    written back and fenced.
 *  - a virtio-pmem device (virtio_pmem.c): its range comes from the
 *    device's configuration. A store reaches the host's memory at once
 *    and its disk only when a FLUSH request completes, so the rest of the
 *    kernel sees `flush_requests` and asks for flushes (pmem_flush_*).
 * If a range is missing, malformed or too small, we say exactly what is
 * wrong and how to start QEMU, and the caller halts.
 *
 * Choosing. With both present: `nvm=nvdimm` or `nvm=virtio` on the
 * command line decides (the one named must be usable: no falling back to
 * an image nobody asked for); else the one whose first page holds a
 * Ferrite heap (the superblock's magic), so a machine given a second,
 * blank device carries on with its heap; else (both or neither hold one)
 * the NVDIMM, the default: durable line by line, with no request to wait
 * for. The choice and its reason are one line on the console. A device
 * that fails to initialise is reported and the other one used.
 *
 * Flushing: on an NVDIMM, with eADR (NFIT platform capabilities bit 0)
 * CPU caches are in the persistence domain and a fence is enough;
 * otherwise the CPU's best flush instruction (arch_flush_pick) unless
 * `flush=` overrides it. On virtio-pmem, none (FLUSH_NONE): the guest's
 * stores are in the host's memory, coherent with the device, and writing
 * lines back would make nothing more durable -- the FLUSH request does.
 *
 * nvm_init writes nothing to the NVM: what its bytes hold is the persistent
 * heap's business (core/heap.c).
 */
#include <numtext.h>
#include <objstore/format.h>
#include <stdbool.h>
#include <string.h>

#include "acpi/acpi.h"
#include "arch/arch.h"
#include "core/cmdline.h"
#include "core/printk.h"
#include "dev/nvm.h"
#include "dev/virtio_pmem.h"
#include "ferrite/errors.h"
#include "mm/phys.h"
#include "mm/vm.h"

static const char qemu_hint[] =
	"  Ferrite needs an NVDIMM or a virtio-pmem device. Start it with tools/run-qemu\n"
	"  (--pmem nvdimm, the default, or --pmem virtio), or give QEMU\n"
	"    -machine pc,nvdimm=on -m 256M,slots=2,maxmem=2G\n"
	"    -object memory-backend-file,id=nvm0,share=on,mem-path=IMAGE,size=1G\n"
	"    -device nvdimm,id=nv0,memdev=nvm0          (an NVDIMM), or\n"
	"    -device virtio-pmem-pci,id=pmem0,memdev=nvm0  (a virtio-pmem device)\n";

/* Which kind nvm= asks for. */
enum wanted { WANT_ANY, WANT_NVDIMM, WANT_VIRTIO };

/* nvm_kind_name -- "NVDIMM" or "virtio-pmem device" */
const char *nvm_kind_name(enum nvm_kind kind)
{
	return kind == NVM_NVDIMM ? "NVDIMM" : "virtio-pmem device";
}

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

/* wanted_kind -- what nvm= asks for */
static enum wanted wanted_kind(void)
{
	const char *text = cmdline_get("nvm");

	if (!text)
		return WANT_ANY;
	if (strcmp(text, "nvdimm") == 0)
		return WANT_NVDIMM;
	if (strcmp(text, "virtio") == 0)
		return WANT_VIRTIO;
	pr_warn("nvm: nvm=%s is not nvdimm or virtio; choosing as without it\n", text);
	return WANT_ANY;
}

/* choose_flush -- the flush instruction, from the default and flush= */
static enum flush_kind choose_flush(enum flush_kind kind)
{
	const char *wanted = cmdline_get("flush");

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

/* check_size -- the range is big enough and page aligned; 0 or a negative error after a message */
static int check_size(const struct nvm *n, uint64_t min)
{
	if (n->size < min) {
		pr_err("nvm: the %s has %llu KiB, less than the %llu KiB Ferrite needs\n"
		       "  give QEMU a larger memory-backend-file (tools/run-qemu --size 1G)\n",
		       nvm_kind_name(n->kind),
		       (unsigned long long)(n->size >> 10), (unsigned long long)(min >> 10));
		return -ERR_NOSPC;
	}
	if (n->phys % PAGE_SIZE || n->size % PAGE_SIZE) {
		pr_err("nvm: the NVM range %#llx+%#llx is not page aligned\n",
		       (unsigned long long)n->phys, (unsigned long long)n->size);
		return -ERR_INVAL;
	}
	return 0;
}

/* find_nvdimm -- the NFIT's persistent-memory range, checked and mapped;
 * -ERR_NOENT (nothing said) when there is none */
static int find_nvdimm(uint64_t min, struct nvm *out)
{
	struct nvm_region region;
	int err = acpi_nfit_find_nvm(&region);

	if (err == -ERR_NOENT)
		return err;
	if (err) {
		pr_err("nvm: the NFIT is malformed (see above); not guessing where the NVDIMM is\n");
		return err;
	}
	*out = (struct nvm){
		.kind = NVM_NVDIMM,
		.phys = region.base,
		.size = region.size,
		.spa_index = region.spa_index,
		.cpu_cache_persistent = region.cpu_cache_persistent,
	};
	err = check_size(out, min);
	if (err)
		return err;
	if (vm_map_physical(region.base, region.size)) {
		pr_err("nvm: out of DRAM for the page tables mapping the NVDIMM\n");
		return -ERR_NOMEM;
	}
	out->base = phys_to_virt(region.base);
	return 0;
}

/* find_virtio -- the virtio-pmem device's region, checked and mapped
 * (virtio_pmem.c); -ERR_NOENT (nothing said) when there is none */
static int find_virtio(const struct boot_info *bi, uint64_t min, struct nvm *out)
{
	struct pmem_region region;
	int err = pmem_init(bi, &region);

	if (err)
		return err;
	*out = (struct nvm){
		.kind = NVM_VIRTIO_PMEM,
		.phys = region.phys,
		.size = region.size,
		.base = phys_to_virt(region.phys),
		.flush_requests = true,
		.pci_slot = region.slot,
		.pci_function = region.function,
	};
	return check_size(out, min);
}

/* holds_heap -- whether the NVM's first page starts with a heap's magic */
static bool holds_heap(const struct nvm *n)
{
	return memcmp(n->base, OS_MAGIC, 8) == 0;
}

/* choose_between -- both kinds usable: which, said with its reason */
static const struct nvm *choose_between(const struct nvm *nvdimm, const struct nvm *virtio,
					enum wanted wanted)
{
	const struct nvm *chosen = nvdimm;
	const char *why;

	if (wanted != WANT_ANY) {
		chosen = wanted == WANT_NVDIMM ? nvdimm : virtio;
		why = wanted == WANT_NVDIMM ? "as nvm=nvdimm asks" : "as nvm=virtio asks";
	} else if (holds_heap(nvdimm) != holds_heap(virtio)) {
		chosen = holds_heap(nvdimm) ? nvdimm : virtio;
		why = holds_heap(nvdimm) ? "it holds a Ferrite heap, the virtio-pmem device does not"
					 : "it holds a Ferrite heap, the NVDIMM does not";
	} else {
		why = holds_heap(nvdimm) ? "both hold a Ferrite heap, and the NVDIMM is the default (durable line by line, no flush requests to wait for; nvm=virtio takes the other)"
					 : "neither holds a Ferrite heap, and the NVDIMM is the default (durable line by line, no flush requests to wait for; nvm=virtio takes the other)";
	}
	pr_info("nvm: an NVDIMM and a virtio-pmem device: using the %s: %s\n",
		nvm_kind_name(chosen->kind), why);
	return chosen;
}

/* choose -- the NVM to use, from what was found (errN: each finder's
 * result) and nvm=; NULL after a message when there is none to use */
static const struct nvm *choose(const struct nvm *nvdimm, int nvdimm_err,
				const struct nvm *virtio, int virtio_err)
{
	enum wanted wanted = wanted_kind();

	if (wanted == WANT_NVDIMM && nvdimm_err) {
		pr_err("nvm: nvm=nvdimm, but there is no usable NVDIMM%s; not using another device\n%s",
		       nvdimm_err == -ERR_NOENT ? "" : " (see above)", qemu_hint);
		return NULL;
	}
	if (wanted == WANT_VIRTIO && virtio_err) {
		pr_err("nvm: nvm=virtio, but there is no usable virtio-pmem device%s; not using another device\n%s",
		       virtio_err == -ERR_NOENT ? "" : " (see above)", qemu_hint);
		return NULL;
	}
	if (!nvdimm_err && !virtio_err)
		return choose_between(nvdimm, virtio, wanted);
	if (!nvdimm_err || !virtio_err) {
		const struct nvm *chosen = nvdimm_err ? virtio : nvdimm;
		int other_err = nvdimm_err ? nvdimm_err : virtio_err;

		if (other_err != -ERR_NOENT)
			pr_warn("nvm: the %s is not usable (see above); using the %s\n",
				nvm_kind_name(chosen == nvdimm ? NVM_VIRTIO_PMEM : NVM_NVDIMM),
				nvm_kind_name(chosen->kind));
		return chosen;
	}
	if (nvdimm_err == -ERR_NOENT && virtio_err == -ERR_NOENT)
		pr_err("nvm: no NVM: no NVDIMM (the ACPI tables have no NFIT, or it lists no persistent-memory range) and no virtio-pmem device (PCI 1af4:105b)\n%s",
		       qemu_hint);
	return NULL;
}

/* say_chosen -- the NVM line: size, place, device, flush */
static void say_chosen(const struct nvm *n)
{
	if (n->kind == NVM_VIRTIO_PMEM) {
		pr_info("nvm: %llu MiB at %#llx (virtio-pmem 00:%02x.%u), flush: requests%s%s\n",
			(unsigned long long)(n->size >> 20), (unsigned long long)n->phys,
			n->pci_slot, n->pci_function,
			n->flush != FLUSH_NONE ? " and " : "",
			n->flush != FLUSH_NONE ? arch_flush_name(n->flush) : "");
		return;
	}
	pr_info("nvm: %llu MiB at %#llx (NFIT SPA range %u), flush: %s%s\n",
		(unsigned long long)(n->size >> 20), (unsigned long long)n->phys,
		n->spa_index, arch_flush_name(n->flush),
		n->cpu_cache_persistent ? " (CPU caches persistent)" : "");
}

/* nvm_init -- find both kinds, choose one, set its flush */
int nvm_init(const struct boot_info *bi, struct nvm *out)
{
	struct nvm nvdimm, virtio;
	uint64_t min = min_size();
	int nvdimm_err = find_nvdimm(min, &nvdimm);
	int virtio_err = find_virtio(bi, min, &virtio);
	const struct nvm *chosen = choose(&nvdimm, nvdimm_err, &virtio, virtio_err);

	if (!chosen) /* the error said first, or none found */
		return nvdimm_err && nvdimm_err != -ERR_NOENT ? nvdimm_err
		       : virtio_err && virtio_err != -ERR_NOENT ? virtio_err : -ERR_NOENT;
	*out = *chosen;
	if (out->kind == NVM_NVDIMM)
		out->flush = choose_flush(out->cpu_cache_persistent ? FLUSH_NONE
								    : arch_flush_pick());
	else
		out->flush = choose_flush(FLUSH_NONE);
	arch_flush_use(out->flush);
	say_chosen(out);
	return 0;
}
