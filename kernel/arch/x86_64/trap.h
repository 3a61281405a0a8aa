/*
 * trap.h -- the trap frame, and the x86_64 interrupt plumbing.
 */
#ifndef ARCH_X86_64_TRAP_H
#define ARCH_X86_64_TRAP_H

#include <stdint.h>

/* What trap_entry.S leaves on the stack; the CPU's part starts at rip. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};

#define VECTOR_IRQ_BASE 0x20      /* ISA IRQ n arrives on 0x20 + n */
#define VECTOR_LAPIC_TIMER 0xf0
#define VECTOR_SPURIOUS 0xff

/* The operand of lgdt and lidt. */
struct descriptor_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* trap_dispatch -- called by trap_entry.S for every interrupt and exception */
void trap_dispatch(struct trap_frame *tf);

/* trap_print_frame -- the registers of a frame, and the control registers */
void trap_print_frame(const struct trap_frame *tf);

/* trap_set_handler -- call `handler` for `vector` (an interrupt, not an exception) */
void trap_set_handler(unsigned vector, void (*handler)(void));

/* lapic_eoi -- acknowledge the interrupt being handled */
void lapic_eoi(void);

/* idt_init -- load the IDT with the 256 stubs */
void idt_init(void);

/* gdt_init -- load the GDT and TSS of this CPU */
void gdt_init(void);

#define GDT_KERNEL_CODE 0x08
#define GDT_KERNEL_DATA 0x10
#define IST_DOUBLE_FAULT 1
#define IST_NMI 2
#define IST_MACHINE_CHECK 3

#endif
