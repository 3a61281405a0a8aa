/*
 * crc32c.c -- CRC-32C with the CPU's crc32 instruction (SSE 4.2).
 *
 * objstore checksums every header it reads or writes with CRC-32C; its
 * portable version walks 8 KiB of tables, the crc32 instruction does 8
 * bytes in a few cycles without touching memory. The instruction works on
 * general registers, so it is allowed in a kernel built with
 * -mgeneral-regs-only; it is written as inline assembly because the
 * compiler's builtin would need SSE 4.2 enabled for the whole file.
 *
 * Known hazard: on the development machines' nested KVM, executing crc32
 * kills QEMU ("KVM internal error ... emulation failure"), as CLWB does
 * (flush.c): that KVM emulates the guest's instructions and its emulator
 * has no crc32. So under KVM the heap keeps objstore's portable CRC; TCG
 * executes crc32 itself -- but one bit at a time (its helper loops over the
 * 64 bits of a crc32q), so under TCG the portable slice-by-8 is faster:
 * measured on the development machine, `ckptbench pause` at 1,024 pages
 * (the DRAM cache's write-back, an undo record per changed line) took
 * 4.63-4.67 ms with the portable CRC against 5.25-5.48 ms with the
 * instruction, about 0.7 us less per record. So the instruction is used
 * on real hardware and under hypervisors that run it natively, neither
 * KVM (the hazard) nor TCG (the emulation); the value is the same.
 * Same polynomial (0x82F63B78 reflected), initial value and final XOR (~0)
 * as objstore/crc32c.c; a self-test (kernel/core/heap_selftest.c) checks
 * the two agree.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "arch/x86_64/cpu.h"

#define CPUID1_ECX_SSE42 (1u << 20)
#define CPUID_HYPERVISOR_LEAF 0x40000000u

/* under -- whether the hypervisor CPUID reports has this 12-byte signature */
static bool under(uint32_t ebx, uint32_t ecx, uint32_t edx)
{
	struct cpuid_regs r;

	if (!arch_cpu_is_virtual())
		return false;
	r = cpuid(CPUID_HYPERVISOR_LEAF, 0);
	return r.ebx == ebx && r.ecx == ecx && r.edx == edx;
}

/* arch_crc32c_supported -- whether CPUID.1:ECX says SSE 4.2 (the crc32
 * instruction) and we are not under KVM ("KVMKVMKVM\0\0\0", the hazard
 * above): the instruction may be executed */
bool arch_crc32c_supported(void)
{
	return (cpuid(1, 0).ecx & CPUID1_ECX_SSE42) &&
	       !under(0x4b4d564bu, 0x564b4d56u, 0x4du);
}

/* arch_crc32c_preferred -- whether the instruction is also the faster way:
 * supported and not emulated by QEMU's TCG ("TCGTCGTCGTCG", above) */
bool arch_crc32c_preferred(void)
{
	return arch_crc32c_supported() && !under(0x54474354u, 0x43544743u, 0x47435447u);
}

/* arch_crc32c -- CRC-32C of `len` bytes continuing from `crc`, by the CPU */
uint32_t arch_crc32c(uint32_t crc, const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t c = ~crc & 0xffffffffu;

	for (; len >= 8; len -= 8, b += 8) {
		uint64_t word;

		__builtin_memcpy(&word, b, 8); /* an unaligned load, inlined */
		__asm__("crc32q %1, %0" : "+r"(c) : "rm"(word));
	}
	for (; len; len--, b++) {
		uint32_t c32 = (uint32_t)c;

		__asm__("crc32b %1, %0" : "+r"(c32) : "rm"(*b));
		c = c32;
	}
	return ~(uint32_t)c;
}
