/*
 * arch.h -- what generic kernel code may ask of the architecture.
 *
 * The one header through which kernel/core, mm, dev and acpi reach the CPU.
 * Implemented once per architecture under kernel/arch/<arch>/; today only
 * x86_64. Generic code never contains inline assembly.
 */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct madt_info;

/* arch_cpu_init -- GDT, TSS (with the fault stacks) and IDT of this CPU */
void arch_cpu_init(void);

/* arch_interrupts_init -- mask the 8259s, enable the LAPIC and I/O APIC */
int arch_interrupts_init(const struct madt_info *madt);

/* arch_irq_route -- deliver ISA interrupt `irq` to `handler` (IOAPIC) */
void arch_irq_route(unsigned irq, void (*handler)(void));

/* arch_timer_start -- calibrate the TSC and LAPIC timer, then tick at `hz` */
void arch_timer_start(unsigned hz, void (*tick)(void));

/* arch_tsc_hz -- TSC ticks per second, known after arch_timer_start */
uint64_t arch_tsc_hz(void);

/* arch_cycles -- the time-stamp counter */
uint64_t arch_cycles(void);

void arch_interrupts_enable(void);
void arch_interrupts_disable(void);

/* arch_wait_for_interrupt -- enable interrupts and halt until one arrives */
void arch_wait_for_interrupt(void);

/* arch_halt -- stop this CPU for good */
__attribute__((noreturn)) void arch_halt(void);

/* arch_qemu_exit -- leave QEMU through isa-debug-exit (status = code*2+1) */
void arch_qemu_exit(uint8_t code);

/* arch_dump_state -- print the registers of the caller and a backtrace */
void arch_dump_state(void);

/* arch_backtrace -- print up to `depth` return addresses from frame `fp` */
void arch_backtrace(uint64_t fp, unsigned depth);

/* arch_trigger_fault -- cause CPU exception `kind` ("ud", "pf", "de", "gp"), for self-tests */
void arch_trigger_fault(const char *kind);

/* Cache flushing for persistence. */
enum flush_kind { FLUSH_NONE, FLUSH_CLFLUSH, FLUSH_CLFLUSHOPT, FLUSH_CLWB };

/* arch_flush_pick -- the best flush the CPU offers (see the comment in flush.c) */
enum flush_kind arch_flush_pick(void);

/* arch_flush_supported -- whether this CPU can execute `kind` */
bool arch_flush_supported(enum flush_kind kind);

/* arch_flush_use -- flush with `kind` from now on */
void arch_flush_use(enum flush_kind kind);

/* arch_flush_range -- write back the cache lines of [p, p+len) */
void arch_flush_range(const void *p, size_t len);

/* arch_fence -- order the flushes before later stores */
void arch_fence(void);

const char *arch_flush_name(enum flush_kind kind);

/* arch_crc32c_supported -- whether the CPU computes CRC-32C (SSE 4.2 crc32)
 * and may be asked to (not under KVM: see crc32c.c) */
bool arch_crc32c_supported(void);

/* arch_crc32c -- CRC-32C of `len` bytes continuing from `crc` (start with
 * 0), by the CPU; equal to objstore's portable crc32c. Only when
 * arch_crc32c_supported(). */
uint32_t arch_crc32c(uint32_t crc, const void *p, size_t len);

/* arch_cpu_is_virtual -- whether CPUID reports a hypervisor */
bool arch_cpu_is_virtual(void);

#endif
