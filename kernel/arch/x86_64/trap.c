/*
 * trap.c -- what happens on an interrupt or a CPU exception.
 *
 * Interrupts go to the handler registered for their vector and are then
 * acknowledged. A CPU exception in the kernel is a kernel bug: we print what
 * the CPU told us (vector, error code, RIP, CR2, the registers and a
 * backtrace) and panic. User mode does not exist yet; when it does, an
 * exception raised by user code will kill only that process.
 */
#include <stdbool.h>
#include <stddef.h>

#include "arch/arch.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "core/panic.h"
#include "core/printk.h"

static void (*interrupt_handlers[256])(void);

static const char *const exception_names[32] = {
	[0] = "#DE divide error",
	[1] = "#DB debug",
	[2] = "NMI",
	[3] = "#BP breakpoint",
	[4] = "#OF overflow",
	[5] = "#BR bound range",
	[6] = "#UD invalid opcode",
	[7] = "#NM device not available",
	[8] = "#DF double fault",
	[10] = "#TS invalid TSS",
	[11] = "#NP segment not present",
	[12] = "#SS stack fault",
	[13] = "#GP general protection",
	[14] = "#PF page fault",
	[16] = "#MF x87 floating point",
	[17] = "#AC alignment check",
	[18] = "#MC machine check",
	[19] = "#XM SIMD floating point",
	[20] = "#VE virtualization",
	[21] = "#CP control protection",
};

/* trap_set_handler -- call `handler` for `vector` (an interrupt, not an exception) */
void trap_set_handler(unsigned vector, void (*handler)(void))
{
	KASSERT(vector >= 32 && vector < 256);
	interrupt_handlers[vector] = handler;
}

/* print_page_fault_cause -- decode a #PF error code into words */
static void print_page_fault_cause(uint64_t error, uint64_t cr2)
{
	printk(LOG_EMERG, "page fault at %p: %s, %s, %s mode%s\n",
	       (void *)cr2, error & 2 ? "write" : error & 16 ? "fetch" : "read",
	       error & 1 ? "protection violation" : "not present",
	       error & 4 ? "user" : "kernel",
	       error & 8 ? ", reserved bit set" : "");
}

/* trap_print_frame -- the registers of a frame, and the control registers */
void trap_print_frame(const struct trap_frame *tf)
{
	printk(LOG_EMERG, "rip %016llx cs %04llx rflags %016llx\n",
	       (unsigned long long)tf->rip, (unsigned long long)tf->cs,
	       (unsigned long long)tf->rflags);
	printk(LOG_EMERG, "rsp %016llx ss %04llx\n",
	       (unsigned long long)tf->rsp, (unsigned long long)tf->ss);
	printk(LOG_EMERG, "rax %016llx rbx %016llx rcx %016llx\n",
	       (unsigned long long)tf->rax, (unsigned long long)tf->rbx,
	       (unsigned long long)tf->rcx);
	printk(LOG_EMERG, "rdx %016llx rsi %016llx rdi %016llx\n",
	       (unsigned long long)tf->rdx, (unsigned long long)tf->rsi,
	       (unsigned long long)tf->rdi);
	printk(LOG_EMERG, "rbp %016llx r8  %016llx r9  %016llx\n",
	       (unsigned long long)tf->rbp, (unsigned long long)tf->r8,
	       (unsigned long long)tf->r9);
	printk(LOG_EMERG, "r10 %016llx r11 %016llx r12 %016llx\n",
	       (unsigned long long)tf->r10, (unsigned long long)tf->r11,
	       (unsigned long long)tf->r12);
	printk(LOG_EMERG, "r13 %016llx r14 %016llx r15 %016llx\n",
	       (unsigned long long)tf->r13, (unsigned long long)tf->r14,
	       (unsigned long long)tf->r15);
	printk(LOG_EMERG, "cr0 %016llx cr2 %016llx cr3 %016llx cr4 %016llx\n",
	       (unsigned long long)read_cr0(), (unsigned long long)read_cr2(),
	       (unsigned long long)read_cr3(), (unsigned long long)read_cr4());
}

/* kernel_exception -- report a CPU exception raised by kernel code, and panic */
static __attribute__((noreturn)) void kernel_exception(struct trap_frame *tf)
{
	uint64_t cr2 = read_cr2();
	const char *name = exception_names[tf->vector];

	if (!name)
		name = "reserved exception";
	printk(LOG_EMERG, "CPU exception %llu (%s), error code %#llx, rip %p, cr2 %p\n",
	       (unsigned long long)tf->vector, name,
	       (unsigned long long)tf->error_code, (void *)tf->rip, (void *)cr2);
	if (tf->vector == 14)
		print_page_fault_cause(tf->error_code, cr2);
	trap_print_frame(tf);
	printk(LOG_EMERG, "backtrace:\n");
	printk(LOG_EMERG, "  %p\n", (void *)tf->rip);
	arch_backtrace(tf->rbp, 16);
	panic_without_dump("CPU exception %llu (%s) at rip %p",
			   (unsigned long long)tf->vector, name, (void *)tf->rip);
}

/* trap_dispatch -- called by trap_entry.S for every interrupt and exception */
void trap_dispatch(struct trap_frame *tf)
{
	if (tf->vector < 32)
		kernel_exception(tf);
	if (tf->vector == VECTOR_SPURIOUS)
		return; /* no EOI for a spurious interrupt */
	if (interrupt_handlers[tf->vector])
		interrupt_handlers[tf->vector]();
	else
		pr_warn("trap: unexpected interrupt on vector %llu\n",
			(unsigned long long)tf->vector);
	lapic_eoi();
}
