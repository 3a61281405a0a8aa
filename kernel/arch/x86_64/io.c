/*
 * io.c -- x86 port I/O, for the drivers of legacy devices (UART, PIT, CMOS
 * RTC, ACPI PM registers, isa-debug-exit). The only place the in and out
 * instructions live; generic drivers reach them through arch.h.
 */
#include <stdint.h>

#include "arch/arch.h"

/* arch_outb -- write a byte to an I/O port */
void arch_outb(uint16_t port, uint8_t value)
{
	__asm__ volatile("outb %0, %1" : : "a"(value), "Nd"(port));
}

/* arch_outw -- write a 16-bit word to an I/O port */
void arch_outw(uint16_t port, uint16_t value)
{
	__asm__ volatile("outw %0, %1" : : "a"(value), "Nd"(port));
}

/* arch_outl -- write a 32-bit word to an I/O port */
void arch_outl(uint16_t port, uint32_t value)
{
	__asm__ volatile("outl %0, %1" : : "a"(value), "Nd"(port));
}

/* arch_inb -- read a byte from an I/O port */
uint8_t arch_inb(uint16_t port)
{
	uint8_t value;

	__asm__ volatile("inb %1, %0" : "=a"(value) : "Nd"(port));
	return value;
}

/* arch_inw -- read a 16-bit word from an I/O port */
uint16_t arch_inw(uint16_t port)
{
	uint16_t value;

	__asm__ volatile("inw %1, %0" : "=a"(value) : "Nd"(port));
	return value;
}

/* arch_inl -- read a 32-bit word from an I/O port */
uint32_t arch_inl(uint16_t port)
{
	uint32_t value;

	__asm__ volatile("inl %1, %0" : "=a"(value) : "Nd"(port));
	return value;
}
