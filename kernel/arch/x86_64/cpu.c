/*
 * cpu.c -- the x86_64 side of arch.h that is not interrupts, timers or
 * flushing: CPU setup, halting, leaving QEMU, register dumps, backtraces.
 */
#include <stdbool.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/user.h"
#include "core/printk.h"
#include "mm/phys.h"

#define QEMU_DEBUG_EXIT_PORT 0xf4

extern char __text_start[], __text_end[];
extern char boot_stack_bottom[], boot_stack_top[];

/* arch_cpu_init -- the boot CPU's per-CPU area (CPU 0), GDT, TSS (with
 * the fault stacks) and IDT, SYSCALL and the FPU */
void arch_cpu_init(void)
{
	cpu_local_init(0);
	idt_init();
	user_mode_init();
}

void arch_interrupts_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

void arch_interrupts_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

/* arch_wait_for_interrupt -- enable interrupts and halt until one arrives */
void arch_wait_for_interrupt(void)
{
	/* sti takes effect after the next instruction: no lost wake-up. */
	__asm__ volatile("sti; hlt" ::: "memory");
}

/* arch_halt -- stop this CPU for good */
void arch_halt(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* arch_qemu_exit -- leave QEMU through isa-debug-exit (status = code*2+1) */
void arch_qemu_exit(uint8_t code)
{
	arch_outb(QEMU_DEBUG_EXIT_PORT, code);
	/* Without the device the write does nothing and we return. */
}

/* arch_cycles -- the time-stamp counter */
uint64_t arch_cycles(void)
{
	return rdtsc();
}

/* arch_cpu_is_virtual -- whether CPUID reports a hypervisor */
bool arch_cpu_is_virtual(void)
{
	return cpuid(1, 0).ecx & (1u << 31);
}

/* put_regs -- append one CPUID leaf's registers to a fingerprint */
static uint8_t *put_regs(uint8_t *at, struct cpuid_regs r)
{
	memcpy(at, &r, sizeof(r));
	return at + sizeof(r);
}

/* arch_machine_fingerprint -- CPUID: vendor, signature, brand and the hypervisor's leaves */
void arch_machine_fingerprint(uint8_t out[ARCH_FINGERPRINT_SIZE])
{
	struct cpuid_regs leaf1 = cpuid(1, 0);
	uint8_t *at = out;

	_Static_assert(ARCH_FINGERPRINT_SIZE == 6 * sizeof(struct cpuid_regs),
		       "six CPUID leaves make a fingerprint");
	leaf1.ebx &= 0x0000ffffu; /* the APIC id and CLFLUSH count may vary */
	leaf1.ecx &= ~(1u << 27); /* OSXSAVE follows CR4, not the machine */
	at = put_regs(at, cpuid(0, 0));
	at = put_regs(at, leaf1);
	for (uint32_t leaf = 0x80000002u; leaf <= 0x80000004u; leaf++)
		at = put_regs(at, cpuid(leaf, 0)); /* the brand string */
	/* The hypervisor's leaf 0x40000000 (its signature); zeros on bare metal. */
	put_regs(at, arch_cpu_is_virtual() ? cpuid(0x40000000u, 0)
					    : (struct cpuid_regs){ 0, 0, 0, 0 });
}

/* is_kernel_stack_address -- whether a frame pointer may be followed */
static bool is_kernel_stack_address(uint64_t fp)
{
	return fp % 8 == 0 && fp >= KERNEL_BASE && fp < UINT64_MAX - 16;
}

/* arch_backtrace -- print up to `depth` return addresses from frame `fp` */
void arch_backtrace(uint64_t fp, unsigned depth)
{
	for (unsigned i = 0; i < depth && fp; i++) {
		const uint64_t *frame = (const uint64_t *)(uintptr_t)fp;

		if (!is_kernel_stack_address(fp))
			break;
		if (frame[1] < (uint64_t)__text_start ||
		    frame[1] >= (uint64_t)__text_end)
			break;
		printk(LOG_EMERG, "  %p\n", (void *)frame[1]);
		if (frame[0] <= fp)
			break; /* stacks grow down: a caller's frame lies above */
		fp = frame[0];
	}
}

/* arch_dump_state -- print the registers of the caller and a backtrace */
void __attribute__((noinline)) arch_dump_state(void)
{
	struct trap_frame f = { 0 };

	__asm__ volatile("movq %%rax, %c[rax](%0)\n\t"
			 "movq %%rbx, %c[rbx](%0)\n\t"
			 "movq %%rcx, %c[rcx](%0)\n\t"
			 "movq %%rdx, %c[rdx](%0)\n\t"
			 "movq %%rsi, %c[rsi](%0)\n\t"
			 "movq %%rdi, %c[rdi](%0)\n\t"
			 "movq %%rbp, %c[rbp](%0)\n\t"
			 "movq %%rsp, %c[rsp](%0)\n\t"
			 "movq %%r8, %c[r8](%0)\n\t"
			 "movq %%r9, %c[r9](%0)\n\t"
			 "movq %%r10, %c[r10](%0)\n\t"
			 "movq %%r11, %c[r11](%0)\n\t"
			 "movq %%r12, %c[r12](%0)\n\t"
			 "movq %%r13, %c[r13](%0)\n\t"
			 "movq %%r14, %c[r14](%0)\n\t"
			 "movq %%r15, %c[r15](%0)\n\t"
			 "movw %%cs, %c[cs](%0)\n\t"
			 "movw %%ss, %c[ss](%0)\n\t"
			 :
			 : "r"(&f),
			   [rax] "i"(__builtin_offsetof(struct trap_frame, rax)),
			   [rbx] "i"(__builtin_offsetof(struct trap_frame, rbx)),
			   [rcx] "i"(__builtin_offsetof(struct trap_frame, rcx)),
			   [rdx] "i"(__builtin_offsetof(struct trap_frame, rdx)),
			   [rsi] "i"(__builtin_offsetof(struct trap_frame, rsi)),
			   [rdi] "i"(__builtin_offsetof(struct trap_frame, rdi)),
			   [rbp] "i"(__builtin_offsetof(struct trap_frame, rbp)),
			   [rsp] "i"(__builtin_offsetof(struct trap_frame, rsp)),
			   [r8] "i"(__builtin_offsetof(struct trap_frame, r8)),
			   [r9] "i"(__builtin_offsetof(struct trap_frame, r9)),
			   [r10] "i"(__builtin_offsetof(struct trap_frame, r10)),
			   [r11] "i"(__builtin_offsetof(struct trap_frame, r11)),
			   [r12] "i"(__builtin_offsetof(struct trap_frame, r12)),
			   [r13] "i"(__builtin_offsetof(struct trap_frame, r13)),
			   [r14] "i"(__builtin_offsetof(struct trap_frame, r14)),
			   [r15] "i"(__builtin_offsetof(struct trap_frame, r15)),
			   [cs] "i"(__builtin_offsetof(struct trap_frame, cs)),
			   [ss] "i"(__builtin_offsetof(struct trap_frame, ss))
			 : "memory");
	f.rip = (uint64_t)(uintptr_t)__builtin_return_address(0);
	f.rflags = read_rflags();
	trap_print_frame(&f);
	printk(LOG_EMERG, "backtrace:\n");
	arch_backtrace(f.rbp, 16);
}

/* arch_trigger_fault -- cause CPU exception `kind` ("ud", "pf", "de", "gp"), for self-tests */
void arch_trigger_fault(const char *kind)
{
	if (strcmp(kind, "ud") == 0)
		__asm__ volatile("ud2");
	else if (strcmp(kind, "pf") == 0)
		__asm__ volatile("movq $0xdead, 0x10" ::: "memory"); /* write near NULL */
	else if (strcmp(kind, "de") == 0) {
		volatile uint32_t zero = 0;
		uint32_t one = 1;

		__asm__ volatile("divl %1" : "+a"(one) : "r"(zero) : "rdx");
	} else if (strcmp(kind, "gp") == 0) {
		uint64_t non_canonical = 0x8000000000000000ull, value;

		__asm__ volatile("movq (%1), %0" : "=r"(value) : "r"(non_canonical));
		(void)value;
	}
}
