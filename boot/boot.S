/*
 * boot.S -- from the boot loader to C.
 *
 * Both loaders enter boot_entry32 in 32-bit protected mode with paging off,
 * EAX holding their magic and EBX the physical address of their information
 * structure: GRUB through the multiboot2 header, QEMU -kernel through the
 * multiboot1 header (with the a.out kludge, see linker.ld). We check the CPU
 * can run in long mode, build early page tables, enable long mode and
 * paging, jump to the higher half and call
 *
 *	kmain(uint32_t boot_magic, uint32_t boot_info_phys)
 *
 * The early page tables map, with 2 MiB pages:
 *	[0, 4 GiB)  at 0                  identity, needed until we jump high
 *	[0, 4 GiB)  at HHDM_BASE          the direct map (kernel/mm/phys.h)
 *	[0, 1 GiB)  at KERNEL_BASE        the kernel image (-mcmodel=kernel)
 * mm_init() replaces them with the kernel's real tables.
 *
 * Until long mode works there is no C: on a CPU without long mode we say so
 * on COM1 by polling and halt.
 */

#define KERNEL_BASE 0xffffffff80000000
#define PHYS(sym) ((sym) - KERNEL_BASE)

#define MB1_MAGIC 0x1badb002
#define MB1_FLAGS 0x00010003 /* page-align modules, memory map, a.out kludge */
#define MB2_MAGIC 0xe85250d6

#define PTE_P 0x1
#define PTE_W 0x2
#define PTE_PS 0x80

#define COM1 0x3f8

	.section .multiboot, "a"
	.balign 4
mb1_header:
	.long MB1_MAGIC
	.long MB1_FLAGS
	.long -(MB1_MAGIC + MB1_FLAGS)
	.long mb1_header          /* header_addr */
	.long __kernel_phys_start /* load_addr */
	.long __load_end_phys     /* load_end_addr */
	.long __bss_end_phys      /* bss_end_addr */
	.long boot_entry32        /* entry_addr */

	.balign 8
mb2_header:
	.long MB2_MAGIC
	.long 0                   /* architecture: i386 protected mode */
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + 0 + (mb2_header_end - mb2_header))
	/* information request: command line, modules, memory map, ACPI */
	.balign 8
mb2_info_request:
	.short 1, 0
	.long mb2_info_request_end - mb2_info_request
	.long 1, 3, 6, 14, 15
mb2_info_request_end:
	.balign 8
	.short 0, 0               /* end tag */
	.long 8
mb2_header_end:

	.section .boot.text, "ax"
	.code32
	.globl boot_entry32
boot_entry32:
	cli
	cld
	movl %eax, %edi           /* kmain's first argument: the magic */
	movl %ebx, %esi           /* second: the boot information */
	rdtsc                     /* the moment the kernel got the CPU */
	movl %eax, PHYS(kernel_entry_tsc)
	movl %edx, PHYS(kernel_entry_tsc) + 4
	movl $PHYS(boot_stack_top), %esp

	/* Long mode: CPUID leaf 0x80000001, EDX bit 29. */
	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	jb no_long_mode
	movl $0x80000001, %eax
	cpuid
	btl $29, %edx
	jnc no_long_mode
	movl %edx, %ebp           /* keep: bit 20 says whether NX exists */

	call build_early_page_tables

	movl %cr4, %eax
	orl $(1 << 5), %eax       /* PAE */
	movl %eax, %cr4
	movl $PHYS(early_pml4), %eax
	movl %eax, %cr3

	movl $0xc0000080, %ecx    /* EFER */
	rdmsr
	orl $(1 << 8), %eax       /* LME */
	btl $20, %ebp
	jnc 1f
	orl $(1 << 11), %eax      /* NXE, when the CPU has NX */
1:	wrmsr

	movl %cr0, %eax
	orl $((1 << 31) | (1 << 16)), %eax /* PG, WP */
	movl %eax, %cr0

	lgdt early_gdt_pointer
	ljmp $0x08, $boot_entry64

/* build_early_page_tables -- fill the tables described at the top */
build_early_page_tables:
	/* Four page directories, 2048 entries of 2 MiB: [0, 4 GiB). */
	movl $PHYS(early_pd), %ebx
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $21, %eax
	orl $(PTE_P | PTE_W | PTE_PS), %eax
	movl %eax, (%ebx, %ecx, 8)
	movl %ecx, %eax
	shrl $11, %eax            /* bits 32+ of the address (index >> 11) */
	movl %eax, 4(%ebx, %ecx, 8)
	incl %ecx
	cmpl $2048, %ecx
	jne 1b

	/* The low PDPT points at the four directories. */
	movl $PHYS(early_pdpt_low), %ebx
	xorl %ecx, %ecx
2:	movl %ecx, %eax
	shll $12, %eax
	addl $(PHYS(early_pd) + PTE_P + PTE_W), %eax
	movl %eax, (%ebx, %ecx, 8)
	incl %ecx
	cmpl $4, %ecx
	jne 2b

	/* PML4[0] (identity) and PML4[256] (HHDM) share the low PDPT. */
	movl $(PHYS(early_pdpt_low) + PTE_P + PTE_W), %eax
	movl %eax, PHYS(early_pml4)
	movl %eax, PHYS(early_pml4) + 256 * 8
	/* PML4[511] -> high PDPT; its entry 510 (-2 GiB) -> the first directory. */
	movl $(PHYS(early_pdpt_high) + PTE_P + PTE_W), %eax
	movl %eax, PHYS(early_pml4) + 511 * 8
	movl $(PHYS(early_pd) + PTE_P + PTE_W), %eax
	movl %eax, PHYS(early_pdpt_high) + 510 * 8
	ret

no_long_mode:
	movl $no_long_mode_message, %esi
3:	movb (%esi), %al
	testb %al, %al
	jz 5f
	movw $(COM1 + 5), %dx     /* line status: wait for an empty holding register */
4:	inb %dx, %al
	testb $0x20, %al
	jz 4b
	movb (%esi), %al
	movw $COM1, %dx
	outb %al, %dx
	incl %esi
	jmp 3b
5:	hlt
	jmp 5b

	.code64
boot_entry64:
	movabsq $higher_half, %rax
	jmp *%rax

	.section .boot.rodata, "a"
no_long_mode_message:
	.asciz "ferrite: this CPU has no long mode (x86_64); cannot boot\r\n"

	.balign 8
early_gdt:
	.quad 0
	.quad 0x00af9a000000ffff  /* 0x08: 64-bit code, ring 0 */
	.quad 0x00cf92000000ffff  /* 0x10: data, ring 0 */
early_gdt_end:
early_gdt_pointer:
	.short early_gdt_end - early_gdt - 1
	.long early_gdt

	.text
higher_half:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movabsq $boot_stack_top, %rsp
	xorl %ebp, %ebp           /* the end of every backtrace */
	/* %edi and %esi still hold the loader's magic and information. */
	call kmain
6:	cli
	hlt
	jmp 6b

	.data
	.balign 8
	.globl kernel_entry_tsc
kernel_entry_tsc:
	.quad 0

	.bss
	.balign 4096
early_pml4:
	.skip 4096
early_pdpt_low:
	.skip 4096
early_pdpt_high:
	.skip 4096
early_pd:
	.skip 4 * 4096
	.globl boot_stack_bottom, boot_stack_top
boot_stack_bottom:
	.skip 16384
boot_stack_top:
