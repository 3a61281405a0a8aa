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

#endif
