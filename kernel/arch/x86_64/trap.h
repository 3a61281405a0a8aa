/*
 * trap.h -- the trap frame, the segment selectors and vectors, and the
 * x86_64 interrupt plumbing.
 *
 * The constants above the C part are shared with the assembly entry code
 * (trap_entry.S, syscall_entry.S), which includes this header with
 * __ASSEMBLY__ defined.
 */
#ifndef ARCH_X86_64_TRAP_H
#define ARCH_X86_64_TRAP_H

/* The GDT (gdt.c). The user selectors are laid out as SYSRET needs them:
 * user data right below user code, both 8 and 16 bytes above STAR's base. */
#define GDT_KERNEL_CODE 0x08
#define GDT_KERNEL_DATA 0x10
#define GDT_USER_DATA 0x18
#define GDT_USER_CODE 0x20
#define GDT_TSS 0x28
#define USER_CS (GDT_USER_CODE | 3)
#define USER_SS (GDT_USER_DATA | 3)

#define IST_DOUBLE_FAULT 1
#define IST_NMI 2
#define IST_MACHINE_CHECK 3

#define VECTOR_IRQ_BASE 0x20      /* ISA IRQ n arrives on 0x20 + n */
#define VECTOR_LAPIC_TIMER 0xf0
#define VECTOR_KICK 0xf1          /* IPI: enter the kernel (smp.c) */
#define VECTOR_SPURIOUS 0xff
/* Not CPU vectors: what built a frame that no interrupt built. */
#define VECTOR_SYSCALL 0x100      /* syscall_entry: may leave with SYSRET */
#define VECTOR_USER_LOADED 0x101  /* arch_frame_load: must leave with IRETQ */

/* Byte offsets in struct trap_frame, for the assembly code (checked in trap.c). */
#define TF_VECTOR 120
#define TF_ERROR_CODE 128
#define TF_RIP 136
#define TF_CS 144
#define TF_RFLAGS 152
#define TF_RSP 160
#define TF_SS 168
#define TF_SIZE 176

#ifdef __ASSEMBLY__
/* save_general_registers -- push rax..r15 in struct trap_frame's order
 * (trap_entry.S, syscall_entry.S): the frame's general-register part */
	.macro save_general_registers
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	.endm
#else

#include <stdint.h>

/* What the entry code leaves on the stack; the CPU's part starts at rip.
 * Interrupts, exceptions and SYSCALL all build this one shape. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};

/* The operand of lgdt and lidt. */
struct descriptor_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* trap_dispatch -- called by trap_entry.S for every interrupt and exception */
void trap_dispatch(struct trap_frame *tf);

/* trap_decode_fault -- a user exception as generic code sees it (struct
 * arch_fault, arch/arch.h); cr2 is the CPU's CR2 when it is a page fault */
struct arch_fault;
void trap_decode_fault(const struct trap_frame *tf, uint64_t cr2,
		       struct arch_fault *f);

/* trap_print_frame -- the registers of a frame, and the control registers */
void trap_print_frame(const struct trap_frame *tf);

/* trap_set_handler -- call `handler` for `vector` (an interrupt, not an exception) */
void trap_set_handler(unsigned vector, void (*handler)(void));

/* lapic_eoi -- acknowledge the interrupt being handled */
void lapic_eoi(void);

/* idt_init -- fill the IDT with the 256 stubs (once) and load it on this CPU */
void idt_init(void);

/* gdt_init -- load the GDT and TSS of CPU `index`, whose kernel stack ends at stack_top */
void gdt_init(unsigned index, uint64_t stack_top);

#endif /* __ASSEMBLY__ */

#endif
