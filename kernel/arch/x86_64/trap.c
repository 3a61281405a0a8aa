/*
 * trap.c -- what happens on an interrupt or a CPU exception.
 *
 * Interrupts go to the handler registered for their vector and are then
 * acknowledged. What else happens depends on the ring the CPU was in:
 *
 *  - ring 3 (user code): an exception is the running thread's fault and
 *    goes to the generic kernel, decoded (user_fault, struct arch_fault),
 *    never to a panic; then,
 *    exception or interrupt, kernel_exit_to_user decides what runs next.
 *    The frame lies at the top of the kernel stack (TSS.rsp0).
 *  - ring 0: an exception is a kernel bug: we print what the CPU told us
 *    (vector, error code, RIP, CR2, the registers and a backtrace) and
 *    panic. An interrupt returns to the interrupted kernel code (the idle
 *    loop, or boot code before the first entry to user mode).
 *
 * Every entry from ring 3 first waits for the kernel (kernel_enter_from_user:
 * one CPU runs it at a time, core/smp.c); an interrupt is acknowledged
 * before, and handled after. An interrupt that comes at an idle CPU's
 * halt, or while the CPU waits for the kernel, is acknowledged and noted,
 * and handled when the CPU next has the kernel.
 *
 * NMI, double fault and machine check are never the user's doing and run
 * on their own stacks (IST): they panic from either ring.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "arch/arch.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/user.h"
#include "core/panic.h"
#include "core/printk.h"
#include "ferrite/syscall.h"

_Static_assert(offsetof(struct trap_frame, vector) == TF_VECTOR, "TF_ offsets");
_Static_assert(offsetof(struct trap_frame, error_code) == TF_ERROR_CODE, "TF_ offsets");
_Static_assert(offsetof(struct trap_frame, rip) == TF_RIP, "TF_ offsets");
_Static_assert(offsetof(struct trap_frame, cs) == TF_CS, "TF_ offsets");
_Static_assert(offsetof(struct trap_frame, rflags) == TF_RFLAGS, "TF_ offsets");
_Static_assert(offsetof(struct trap_frame, rsp) == TF_RSP, "TF_ offsets");
_Static_assert(offsetof(struct trap_frame, ss) == TF_SS, "TF_ offsets");
_Static_assert(sizeof(struct trap_frame) == TF_SIZE, "TF_ offsets");
/* Every entry from ring 3 keeps the stack 16-byte aligned for the C code. */
_Static_assert(TF_SIZE % 16 == 0, "frame keeps the stack aligned");

#define VECTOR_NMI 2
#define VECTOR_DOUBLE_FAULT 8
#define VECTOR_PAGE_FAULT 14
#define VECTOR_MACHINE_CHECK 18

#define PF_PRESENT 0x01
#define PF_WRITE 0x02
#define PF_USER 0x04
#define PF_RESERVED 0x08
#define PF_FETCH 0x10

struct exception_name {
	const char *mnemonic;
	const char *words;
};

static const struct exception_name exception_names[32] = {
	[0] = { "#DE", "divide error" },
	[1] = { "#DB", "debug trap" },
	[2] = { "NMI", "non-maskable interrupt" },
	[3] = { "#BP", "breakpoint" },
	[4] = { "#OF", "overflow" },
	[5] = { "#BR", "bound range exceeded" },
	[6] = { "#UD", "invalid opcode" },
	[7] = { "#NM", "device not available" },
	[8] = { "#DF", "double fault" },
	[10] = { "#TS", "invalid TSS" },
	[11] = { "#NP", "segment not present" },
	[12] = { "#SS", "stack fault" },
	[13] = { "#GP", "general protection fault" },
	[14] = { "#PF", "page fault" },
	[16] = { "#MF", "x87 floating-point error" },
	[17] = { "#AC", "alignment check" },
	[18] = { "#MC", "machine check" },
	[19] = { "#XM", "SIMD floating-point exception" },
	[20] = { "#VE", "virtualization exception" },
	[21] = { "#CP", "control protection fault" },
};

static void (*interrupt_handlers[256])(void);

/* trap_set_handler -- call `handler` for `vector` (an interrupt, not an exception) */
void trap_set_handler(unsigned vector, void (*handler)(void))
{
	KASSERT(vector >= 32 && vector < 256);
	interrupt_handlers[vector] = handler;
}

/* access_of -- what the faulting access was, from a #PF error code */
static enum arch_access access_of(uint64_t error)
{
	if (error & PF_WRITE)
		return ARCH_ACCESS_WRITE;
	return error & PF_FETCH ? ARCH_ACCESS_FETCH : ARCH_ACCESS_READ;
}

/* access_words -- an access in words */
static const char *access_words(enum arch_access access)
{
	static const char *const words[] = {
		[ARCH_ACCESS_READ] = "read", [ARCH_ACCESS_WRITE] = "write",
		[ARCH_ACCESS_FETCH] = "execute",
	};

	return words[access];
}

/* cause_words -- why a page access faulted */
static const char *cause_words(bool present)
{
	return present ? "protection violation" : "not present";
}

/* print_page_fault_cause -- decode a #PF error code into words */
static void print_page_fault_cause(uint64_t error, uint64_t cr2)
{
	printk(LOG_EMERG, "page fault at %p: %s, %s, %s mode%s\n",
	       (void *)cr2, access_words(access_of(error)),
	       cause_words(error & PF_PRESENT), error & PF_USER ? "user" : "kernel",
	       error & PF_RESERVED ? ", reserved bit set" : "");
}

/* FE_FAULT_* (the user ABI) numbers faults as the CPU numbers its vectors. */
_Static_assert(FE_FAULT_DIVIDE == 0 && FE_FAULT_BREAKPOINT == 3 &&
	       FE_FAULT_OVERFLOW == 4 && FE_FAULT_INVALID_OPCODE == 6 &&
	       FE_FAULT_PROTECTION == 13 && FE_FAULT_PAGE == VECTOR_PAGE_FAULT &&
	       FE_FAULT_SIMD == 19 && FE_FAULT_CONTROL == 21,
	       "FE_FAULT_* are the x86 exception vectors");

/* trap_decode_fault -- a user exception as generic code sees it; cr2 is
 * the CPU's CR2 when it is a page fault */
void trap_decode_fault(const struct trap_frame *tf, uint64_t cr2,
		       struct arch_fault *f)
{
	unsigned vector = (unsigned)tf->vector;

	*f = (struct arch_fault){
		.kind = vector,
		.ip = tf->rip,
		/* #BP and #OF are traps: the instruction already ran. */
		.restarts = vector != FE_FAULT_BREAKPOINT && vector != FE_FAULT_OVERFLOW,
		.code = tf->error_code,
	};
	if (vector == VECTOR_PAGE_FAULT) {
		f->addr = cr2;
		f->access = access_of(tf->error_code);
		f->present = tf->error_code & PF_PRESENT;
	}
}

/* arch_fault_describe -- a CPU exception of user code in words; snprintf's result */
int arch_fault_describe(const struct arch_fault *f, const char *why,
			char *buf, size_t len)
{
	const char *words = f->kind < 32 ? exception_names[f->kind].words : NULL;

	if (f->kind == FE_FAULT_PAGE)
		return snprintf(buf, len, "page fault at 0x%llx (%s, %s), rip 0x%llx",
				(unsigned long long)f->addr, access_words(f->access),
				why ? why : cause_words(f->present),
				(unsigned long long)f->ip);
	if (!words)
		return snprintf(buf, len, "CPU exception %u, rip 0x%llx", f->kind,
				(unsigned long long)f->ip);
	if (f->code) /* 0 also for the exceptions without an error code */
		return snprintf(buf, len, "%s (error 0x%llx), rip 0x%llx", words,
				(unsigned long long)f->code, (unsigned long long)f->ip);
	return snprintf(buf, len, "%s, rip 0x%llx", words, (unsigned long long)f->ip);
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
	const struct exception_name *e = &exception_names[tf->vector];
	char name[48];

	if (e->mnemonic)
		snprintf(name, sizeof(name), "%s %s", e->mnemonic, e->words);
	else
		snprintf(name, sizeof(name), "reserved exception");
	printk(LOG_EMERG, "CPU exception %llu (%s), error code %#llx, rip %p, cr2 %p\n",
	       (unsigned long long)tf->vector, name,
	       (unsigned long long)tf->error_code, (void *)tf->rip, (void *)cr2);
	if (tf->vector == VECTOR_PAGE_FAULT)
		print_page_fault_cause(tf->error_code, cr2);
	trap_print_frame(tf);
	printk(LOG_EMERG, "backtrace:\n");
	printk(LOG_EMERG, "  %p\n", (void *)tf->rip);
	arch_backtrace(tf->rbp, 16);
	panic_without_dump("CPU exception %llu (%s) at rip %p",
			   (unsigned long long)tf->vector, name, (void *)tf->rip);
}

/* handle -- run the handler of interrupt vector v (the kernel lock held) */
static void handle(unsigned v)
{
	if (interrupt_handlers[v])
		interrupt_handlers[v]();
	else
		pr_warn("trap: unexpected interrupt on vector %u\n", v);
}

/* acknowledge -- EOI, at once: every source is edge-triggered (the LAPIC
 * timer, IPIs, the ISA UART through the I/O APIC), so nothing is lost when
 * the handler runs later, and no interrupt is in service while this CPU
 * waits for the kernel (it may halt then: core/smp.c) */
static bool acknowledge(unsigned v)
{
	if (v == VECTOR_SPURIOUS)
		return false; /* no EOI for a spurious interrupt, and nothing to run */
	lapic_eoi();
	return true;
}

/* Interrupts that came while this CPU waited for the kernel, one bit per
 * vector; run once it has the kernel (arch_run_deferred_interrupts). Two
 * of one vector meanwhile run once: the handlers only note that time
 * passed or that something is waiting. */
static uint64_t deferred[ARCH_MAX_CPUS][4];

/* arch_run_deferred_interrupts -- the handlers of the interrupts that came
 * while this CPU waited for the kernel lock (it holds it now) */
void arch_run_deferred_interrupts(void)
{
	uint64_t *d = deferred[arch_cpu_index()];

	for (unsigned w = 0; w < 4; w++)
		while (d[w]) {
			unsigned bit = (unsigned)__builtin_ctzll(d[w]);

			d[w] &= ~(1ull << bit);
			handle(w * 64 + bit);
		}
}

/* is_machine_event -- an exception that says something about the machine, not the code */
static bool is_machine_event(unsigned vector)
{
	return vector == VECTOR_NMI || vector == VECTOR_DOUBLE_FAULT ||
	       vector == VECTOR_MACHINE_CHECK;
}

/*
 * misdelivered_syscall -- a SYSCALL that reached LSTAR without the switch
 * to ring 0. Some hypervisors (the PVM flavour of KVM on the development
 * machines) run the guest's SYSCALL as a plain jump to LSTAR, still in
 * ring 3, which then faults fetching the kernel's entry point. Everything
 * else SYSCALL does has happened: rcx holds the return address and r11
 * the flags. Such a fault is turned into the system call it was.
 */
static bool misdelivered_syscall(const struct trap_frame *tf, uint64_t cr2)
{
	return tf->rip == (uint64_t)(uintptr_t)syscall_entry && cr2 == tf->rip &&
	       (tf->error_code & (PF_USER | PF_FETCH)) == (PF_USER | PF_FETCH);
}

/* syscall_trap -- syscall_entry.S's C half: enter the kernel, carry out
 * the call (unless its thread was ended meanwhile), leave */
void syscall_trap(struct trap_frame *tf)
{
	if (kernel_enter_from_user(tf))
		syscall_handler(tf);
	kernel_exit_to_user(tf);
}

/* user_trap -- an interrupt or exception that arrived from ring 3 */
static void user_trap(struct trap_frame *tf)
{
	unsigned vector = (unsigned)tf->vector;
	uint64_t cr2 = vector == VECTOR_PAGE_FAULT ? read_cr2() : 0;
	struct arch_fault f;
	bool thread_here;

	if (vector == VECTOR_PAGE_FAULT && misdelivered_syscall(tf, cr2)) {
		tf->rip = tf->rcx;
		tf->rflags = (tf->r11 & USER_RFLAGS_KEEP) | RFLAGS_IF | RFLAGS_FIXED;
		tf->vector = VECTOR_SYSCALL;
		tf->error_code = 0;
		syscall_trap(tf);
		return;
	}
	if (vector >= 32 && !acknowledge(vector))
		return; /* spurious: straight back to user mode */
	thread_here = kernel_enter_from_user(tf);
	if (vector >= 32) {
		handle(vector);
	} else if (thread_here) { /* else it was ended meanwhile: nothing to handle */
		trap_decode_fault(tf, cr2, &f);
		user_fault(&f);
	}
	kernel_exit_to_user(tf);
}

/* kernel_trap -- an interrupt that arrived in kernel mode: while this CPU
 * holds the kernel (power-on, before user mode), handled now; at an idle
 * CPU's halt or while it waits for the kernel lock (core/smp.c), noted and
 * handled once it has the lock */
static void kernel_trap(struct trap_frame *tf)
{
	unsigned v = (unsigned)tf->vector;

	if (!acknowledge(v))
		return;
	if (klock_held())
		handle(v);
	else
		deferred[arch_cpu_index()][v / 64] |= 1ull << (v % 64);
}

/* trap_dispatch -- called by trap_entry.S for every interrupt and exception */
void trap_dispatch(struct trap_frame *tf)
{
	if (arch_frame_from_user(tf) && !is_machine_event((unsigned)tf->vector)) {
		user_trap(tf);
		return;
	}
	if (tf->vector < 32)
		kernel_exception(tf);
	kernel_trap(tf);
}
