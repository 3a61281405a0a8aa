/*
 * apic.h -- LAPIC register access for the timer code.
 */
#ifndef ARCH_X86_64_APIC_H
#define ARCH_X86_64_APIC_H

#include <stdint.h>

#define LAPIC_TIMER_LVT 0x320
#define LAPIC_TIMER_INITIAL 0x380
#define LAPIC_TIMER_CURRENT 0x390
#define LAPIC_TIMER_DIVIDE 0x3e0

uint32_t lapic_read(unsigned reg);
void lapic_write(unsigned reg, uint32_t value);

/* lapic_enable -- turn on this CPU's local APIC (each CPU its own) */
void lapic_enable(void);

/* lapic_send_ipi -- send the interrupt command `low` (vector, delivery
 * mode) to the CPU whose APIC id is `apic_id`, once the last one left */
void lapic_send_ipi(uint32_t apic_id, uint32_t low);

/* Interrupt command delivery modes and flags (SDM 10.6.1). */
#define ICR_FIXED 0x000
#define ICR_INIT 0x500
#define ICR_STARTUP 0x600
#define ICR_ASSERT 0x4000

/* apic_madt -- what the MADT said, the usable CPUs among it (apic.c) */
struct madt_info;
const struct madt_info *apic_madt(void);

#endif
