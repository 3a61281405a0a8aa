/*
 * ap_boot.S -- where an application processor starts: from real mode to
 * the kernel's C code in the higher half.
 *
 * A STARTUP IPI starts a CPU in 16-bit real mode at a page below 1 MiB
 * (vector * 4 KiB); smp.c copies these bytes to AP_BOOT_PHYS and fills
 * the parameters at their end before each start. Here is assembled a
 * position-dependent copy: every address is AP_BOOT_PHYS plus the offset
 * from ap_boot_start (AT()), so the code runs only at AP_BOOT_PHYS.
 *
 * The way up, as boot.S takes it but from real mode: load a GDT of our own
 * (32-bit code and data, 64-bit code), protected mode, PAE, the tables of
 * ap_boot_cr3 (the kernel half and the identity map of this page, which
 * must be below 4 GiB), EFER as the boot CPU has it (LME, and NXE when the
 * CPU has NX: the kernel's tables use NX), paging, the 64-bit code
 * segment; then the stack and a jump (through ap_boot_target) to
 * ap_boot_entry(ap_boot_index) in the higher half, which switches to the
 * kernel's own tables.
 *
 * Nothing here writes memory but the stack pointer's register: a CPU
 * that starts late (after the boot CPU gave up on it) harms nothing.
 */
#define AP_BOOT_PHYS 0x8000
#define AT(sym) (AP_BOOT_PHYS + (sym) - ap_boot_start)

#define CR0_PE 0x1
#define CR0_PG_WP 0x80010000
#define CR4_PAE 0x20
#define MSR_EFER 0xc0000080

	.section .rodata
	.balign 16
	.globl ap_boot_start, ap_boot_end
	.globl ap_boot_cr3, ap_boot_efer, ap_boot_stack, ap_boot_target, ap_boot_index
	.code16
ap_boot_start:
	cli
	cld
	xorw %ax, %ax
	movw %ax, %ds
	lgdtl AT(ap_boot_gdt_pointer)
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $0x08, $AT(ap_boot_32)

	.code32
ap_boot_32:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl AT(ap_boot_cr3), %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl AT(ap_boot_efer), %eax
	wrmsr
	movl %cr0, %eax
	orl $CR0_PG_WP, %eax
	movl %eax, %cr0
	ljmpl $0x18, $AT(ap_boot_64)

	.code64
ap_boot_64:
	movq AT(ap_boot_stack), %rsp
	movl AT(ap_boot_index), %edi
	movq AT(ap_boot_target), %rax
	jmpq *%rax

	.balign 8
ap_boot_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff  /* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff  /* 0x10: data */
	.quad 0x00af9a000000ffff  /* 0x18: 64-bit code */
ap_boot_gdt_pointer:
	.word ap_boot_gdt_pointer - ap_boot_gdt - 1
	.long AT(ap_boot_gdt)

	/* The parameters, filled by smp.c in the copy before each start. */
	.balign 8
ap_boot_cr3:   .long 0
ap_boot_efer:  .long 0            /* EFER bits to set */
ap_boot_stack: .quad 0
ap_boot_target: .quad 0
ap_boot_index: .long 0
ap_boot_end:
