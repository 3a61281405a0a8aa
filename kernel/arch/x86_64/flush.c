/*
 * flush.c -- writing cache lines back to persistent memory.
 *
 * Three instructions can do it, in order of preference: CLWB (writes back
 * and may keep the line), CLFLUSHOPT (evicts, weakly ordered, so a run of
 * them pipelines), CLFLUSH (evicts, strongly ordered: slowest). All are
 * ordered before later stores by SFENCE. CPUID tells which exist.
 * Known hazard: on the development machines' nested KVM, executing CLWB
 * kills QEMU ("KVM internal error"); so under a hypervisor we prefer
 * CLFLUSHOPT, and CLWB is used there only when flush=clwb asks for it.
 * When the platform says CPU caches are persistent (eADR), the NVM driver
 * selects FLUSH_NONE and only fences remain.
 *
 * Tracking: on a device whose durability comes by flush requests
 * (virtio-pmem) the CPU's write-backs do nothing for durability, but the
 * kernel still asks for one after every store to the heap, before the
 * commit that needs it (the persistence model proves it). So the request
 * itself says which pages changed: arch_flush_track has it noted, a bit a
 * page, for the journal (epoch/durable.c).
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "arch/x86_64/cpu.h"

#define CACHE_LINE 64

/*
 * WRITE_BACK(insn, addr) -- one cache-line write-back instruction. The
 * kernel built for NVM tracing (FERRITE_NVM_TRACE: make trace-kernel,
 * docs/persistence-model.md) loads a byte of the line right after it,
 * because TCG shows a plugin the address of a load but not of a
 * write-back; the normal build is the bare instruction.
 */
#ifdef FERRITE_NVM_TRACE
#define WRITE_BACK(insn, addr) \
	__asm__ volatile(insn " %0\n\tmovzbl %0, %%eax" : "+m"(*(addr)) : : "rax")
#else
#define WRITE_BACK(insn, addr) __asm__ volatile(insn " %0" : "+m"(*(addr)))
#endif

static enum flush_kind current = FLUSH_CLFLUSH;

#define TRACK_PAGE 4096u
static uintptr_t track_base;           /* 0: not tracking */
static size_t track_len;
static uint64_t *track_bits;
static uint64_t track_marked;          /* bits set since the last reset */

/* arch_flush_supported -- whether this CPU can execute `kind` */
bool arch_flush_supported(enum flush_kind kind)
{
	switch (kind) {
	case FLUSH_NONE:
		return true;
	case FLUSH_CLFLUSH:
		return cpuid(1, 0).edx & (1u << 19);
	case FLUSH_CLFLUSHOPT:
		return cpuid(7, 0).ebx & (1u << 23);
	case FLUSH_CLWB:
		return cpuid(7, 0).ebx & (1u << 24);
	}
	return false;
}

/* arch_flush_pick -- the best flush the CPU offers */
enum flush_kind arch_flush_pick(void)
{
	if (arch_flush_supported(FLUSH_CLWB) && !arch_cpu_is_virtual())
		return FLUSH_CLWB;
	if (arch_flush_supported(FLUSH_CLFLUSHOPT))
		return FLUSH_CLFLUSHOPT;
	return FLUSH_CLFLUSH;
}

/* arch_flush_use -- flush with `kind` from now on */
void arch_flush_use(enum flush_kind kind)
{
	current = kind;
}

/* arch_flush_name -- the instruction's name, for messages */
const char *arch_flush_name(enum flush_kind kind)
{
	static const char *const names[] = {
		[FLUSH_NONE] = "none",
		[FLUSH_CLFLUSH] = "clflush",
		[FLUSH_CLFLUSHOPT] = "clflushopt",
		[FLUSH_CLWB] = "clwb",
	};
	return names[kind];
}

/* arch_flush_track -- note the pages of [base, base+len) written back */
void arch_flush_track(const void *base, size_t len, uint64_t *bits)
{
	track_bits = bits;
	track_len = len;
	track_base = (uintptr_t)base;
}

/* arch_flush_track_count -- pages marked since the last reset */
uint64_t arch_flush_track_count(void)
{
	return __atomic_load_n(&track_marked, __ATOMIC_RELAXED);
}

/* arch_flush_track_reset -- the marks were taken */
void arch_flush_track_reset(void)
{
	__atomic_store_n(&track_marked, 0, __ATOMIC_RELAXED);
}

/* track -- mark the tracked pages [p, p+len) touches */
static void track(uintptr_t p, size_t len)
{
	uintptr_t end = track_base + track_len;
	uintptr_t lo = p < track_base ? track_base : p;
	uintptr_t hi = p + len > end ? end : p + len; /* exclusive */

	if (lo >= hi)
		return;
	for (uintptr_t page = (lo - track_base) / TRACK_PAGE;
	     page <= (hi - 1 - track_base) / TRACK_PAGE; page++) {
		uint64_t bit = 1ull << (page % 64);
		uint64_t *word = &track_bits[page / 64];

		if (__atomic_load_n(word, __ATOMIC_RELAXED) & bit)
			continue;
		if (!(__atomic_fetch_or(word, bit, __ATOMIC_ACQ_REL) & bit))
			__atomic_fetch_add(&track_marked, 1, __ATOMIC_RELAXED);
	}
}

/* arch_flush_range -- write back the cache lines of [p, p+len) */
void arch_flush_range(const void *p, size_t len)
{
	uintptr_t line = (uintptr_t)p & ~(uintptr_t)(CACHE_LINE - 1);
	uintptr_t end = (uintptr_t)p + len;

	if (track_base && len)
		track((uintptr_t)p, len);
	if (current == FLUSH_NONE || len == 0)
		return;
	for (; line < end; line += CACHE_LINE) {
		volatile char *addr = (volatile char *)line;

		switch (current) {
		case FLUSH_CLWB:
			WRITE_BACK("clwb", addr);
			break;
		case FLUSH_CLFLUSHOPT:
			WRITE_BACK("clflushopt", addr);
			break;
		default:
			WRITE_BACK("clflush", addr);
			break;
		}
	}
}

/* arch_fence -- order the flushes before later stores */
void arch_fence(void)
{
	__asm__ volatile("sfence" ::: "memory");
}
