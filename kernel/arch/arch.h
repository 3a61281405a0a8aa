/*
 * arch.h -- what generic kernel code may ask of the architecture.
 *
 * The one header through which the rest of the kernel reaches the CPU:
 * nothing outside kernel/arch/ includes a header of kernel/arch/<arch>/
 * (the Makefile refuses such an include). Implemented once per
 * architecture under kernel/arch/<arch>/; today only x86_64. Generic code
 * never contains inline assembly, and never sees a vector number or an
 * error-code bit: faults arrive decoded (struct arch_fault).
 */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct madt_info;

/* arch_cpu_init -- the boot CPU's per-CPU area (CPU 0), GDT, TSS (with
 * the fault stacks) and IDT, SYSCALL and the FPU */
void arch_cpu_init(void);

/* --- more than one CPU (kernel/arch/x86_64/smp.c, core/smp.c) ------------ */

/* The most CPUs Ferrite runs on; more are left out. */
#define ARCH_MAX_CPUS 16

/* arch_cpu_index -- this CPU's number: 0 for the boot CPU, then 1, 2, ...
 * in the order the others started */
unsigned arch_cpu_index(void);

/* arch_smp_start -- start the machine's other CPUs, at most `wanted` CPUs
 * in all; each calls cpu_main(its index) once it runs, with interrupts
 * disabled, on its own kernel stack. A CPU that does not start is reported
 * and left out. Returns how many CPUs run, this one included (after
 * arch_interrupts_init and arch_timer_start). */
unsigned arch_smp_start(unsigned wanted, void (*cpu_main)(unsigned index));

/* arch_cpu_kick -- interrupt CPU `index`: it enters the kernel if it runs
 * user code, and leaves its halt if it idles */
void arch_cpu_kick(unsigned index);

/* arch_cpu_relax -- what a CPU does in each round of a spin */
void arch_cpu_relax(void);

/* arch_run_deferred_interrupts -- with the kernel lock just taken: the
 * handlers of interrupts that came while this CPU idled or waited for it */
void arch_run_deferred_interrupts(void);

/* arch_timer_start_this_cpu -- an application processor's tick, at the
 * rates and rate of arch_timer_start */
void arch_timer_start_this_cpu(void);

/* arch_interrupts_init -- mask the 8259s, enable the LAPIC and I/O APIC */
int arch_interrupts_init(const struct madt_info *madt);

/* arch_irq_route -- deliver ISA interrupt `irq` to `handler` (IOAPIC) */
void arch_irq_route(unsigned irq, void (*handler)(void));

/* How fast the machine's clocks count: what a calibration measures. */
struct arch_clock_rates {
	uint64_t tsc_hz;         /* time-stamp counter ticks per second */
	uint64_t lapic_hz;       /* LAPIC timer ticks per second (divided by 16) */
};

/* arch_timer_calibrate -- measure both rates against the PIT (30 ms of busy waiting) */
void arch_timer_calibrate(struct arch_clock_rates *out);

/* arch_timer_start -- tick at `hz`, the clocks counting at `r` */
void arch_timer_start(unsigned hz, void (*tick)(void),
		      const struct arch_clock_rates *r);

/* arch_timer_set_rates -- corrected rates: the tick is programmed anew */
void arch_timer_set_rates(const struct arch_clock_rates *r);

/* arch_tsc_hz -- TSC ticks per second in force, known after arch_timer_start */
uint64_t arch_tsc_hz(void);

/* arch_clock_check_start -- start checking the TSC rate against the PIT
 * in the background (55 ms, no waiting; timer.c) */
void arch_clock_check_start(void);

/* arch_clock_check_poll -- from a tick: 0 while the check runs (or none
 * does); 1 when done, with bounds on the true TSC rate in *lo_hz, *hi_hz */
int arch_clock_check_poll(uint64_t *lo_hz, uint64_t *hi_hz);

/* Bytes of a machine fingerprint. */
#define ARCH_FINGERPRINT_SIZE 96

/* arch_machine_fingerprint -- what identifies this kind of machine: the
 * same bytes on every power-on of the same CPU model under the same
 * hypervisor (or none) */
void arch_machine_fingerprint(uint8_t out[ARCH_FINGERPRINT_SIZE]);

/* arch_cycles -- the time-stamp counter */
uint64_t arch_cycles(void);

void arch_interrupts_enable(void);
void arch_interrupts_disable(void);

/* arch_wait_for_interrupt -- enable interrupts and halt until one arrives */
void arch_wait_for_interrupt(void);

/* arch_halt -- stop this CPU for good */
__attribute__((noreturn)) void arch_halt(void);

/* arch_qemu_exit -- leave QEMU through isa-debug-exit (status = code*2+1) */
void arch_qemu_exit(uint8_t code);

/* arch_dump_state -- print the registers of the caller and a backtrace */
void arch_dump_state(void);

/* arch_backtrace -- print up to `depth` return addresses from frame `fp` */
void arch_backtrace(uint64_t fp, unsigned depth);

/* arch_trigger_fault -- cause CPU exception `kind` ("ud", "pf", "de", "gp"), for self-tests */
void arch_trigger_fault(const char *kind);

/* Cache flushing for persistence. */
enum flush_kind { FLUSH_NONE, FLUSH_CLFLUSH, FLUSH_CLFLUSHOPT, FLUSH_CLWB };

/* arch_flush_pick -- the best flush the CPU offers (see the comment in flush.c) */
enum flush_kind arch_flush_pick(void);

/* arch_flush_supported -- whether this CPU can execute `kind` */
bool arch_flush_supported(enum flush_kind kind);

/* arch_flush_use -- flush with `kind` from now on */
void arch_flush_use(enum flush_kind kind);

/* arch_flush_range -- write back the cache lines of [p, p+len) */
void arch_flush_range(const void *p, size_t len);

/* arch_flush_track -- from now on, arch_flush_range also sets bit i of
 * `bits` for each page i of [base, base+len) it is asked to write back (a
 * device with flush requests copies those pages to its journal:
 * epoch/durable.c); atomically, from any CPU */
void arch_flush_track(const void *base, size_t len, uint64_t *bits);

/* arch_flush_track_count -- pages marked since arch_flush_track_reset */
uint64_t arch_flush_track_count(void);

/* arch_flush_track_reset -- the caller took the marks (cleared them) */
void arch_flush_track_reset(void);

/* arch_fence -- order the flushes before later stores */
void arch_fence(void);

const char *arch_flush_name(enum flush_kind kind);

/* arch_crc32c_supported -- whether the CPU computes CRC-32C (SSE 4.2 crc32)
 * and may be asked to (not under KVM: see crc32c.c) */
bool arch_crc32c_supported(void);

/* arch_crc32c_preferred -- whether that is also faster than the portable
 * CRC (not under TCG, which emulates crc32 a bit at a time: crc32c.c) */
bool arch_crc32c_preferred(void);

/* arch_crc32c -- CRC-32C of `len` bytes continuing from `crc` (start with
 * 0), by the CPU; equal to objstore's portable crc32c. Only when
 * arch_crc32c_supported(). */
uint32_t arch_crc32c(uint32_t crc, const void *p, size_t len);

/* arch_cpu_is_virtual -- whether CPUID reports a hypervisor */
bool arch_cpu_is_virtual(void);

/* --- marks for the NVM tracer (kernel/arch/x86_64/trace_mark.c,
 * include/ferrite/nvmtrace.h): in the kernel built for tracing
 * (FERRITE_NVM_TRACE) each is one load the tracer recognises; in any
 * other build, nothing at all. ------------------------------------------- */
#ifdef FERRITE_NVM_TRACE
/* arch_trace_output -- `byte` has just gone to the console */
void arch_trace_output(uint8_t byte);
/* arch_trace_event -- the kernel enters or leaves a window (enum nvt_event) */
void arch_trace_event(unsigned event);
#else
static inline void arch_trace_output(uint8_t byte)
{
	(void)byte;
}

static inline void arch_trace_event(unsigned event)
{
	(void)event;
}
#endif

/* --- port I/O, for the legacy devices of a PC (kernel/arch/x86_64/io.c):
 * the UART, the CMOS RTC, the ACPI PM registers ---------------------------- */
void arch_outb(uint16_t port, uint8_t value);
void arch_outw(uint16_t port, uint16_t value);
void arch_outl(uint16_t port, uint32_t value);
uint8_t arch_inb(uint16_t port);
uint16_t arch_inw(uint16_t port);
uint32_t arch_inl(uint16_t port);

/* --- the kernel's page tables (kernel/arch/x86_64/paging.c) ---------------
 * Built by mm/vm.c at every power-on; prot is VM_READ | VM_WRITE | VM_EXEC,
 * VM_UNCACHED, VM_HUGE (mm/vm.h). */

/* arch_pt_create -- a new, empty top-level table; 0 or -ERR_NOMEM */
int arch_pt_create(uint64_t *root_phys);

/* arch_pt_map -- map [virt, virt+size) to phys with VM_* protection; the
 * largest pages both addresses and the remaining size allow (2 MiB, or
 * 1 GiB with VM_HUGE), 4 KiB pages elsewhere. 0 or -ERR_NOMEM (then part of
 * the range may be mapped). */
int arch_pt_map(uint64_t root_phys, uint64_t virt, uint64_t phys,
		uint64_t size, unsigned prot);

/* arch_pt_activate -- switch this CPU to the tables at root_phys */
void arch_pt_activate(uint64_t root_phys);

/* arch_pt_set_kernel_root -- the tables whose upper half every user
 * address space shares (arch_pt_create_user). Gives each upper-half
 * top-level entry a table now, so later kernel mappings reach every
 * address space. 0 or -ERR_NOMEM. */
int arch_pt_set_kernel_root(uint64_t root_phys);

/* arch_pt_root -- the tables this CPU uses now */
uint64_t arch_pt_root(void);

/* --- user mode (kernel/arch/x86_64/user.c, docs/usermode.md) ------------- */

/* A frame of the entry code: what interrupted user mode. Opaque to generic
 * code, which reads and changes it only through the functions below. */
struct trap_frame;

/* The user register file as persisted in a thread object. Its layout is
 * part of the heap format: fixed-size fields only, no pointers, the size
 * checked below. `reserved` is zero. `fpu` is an FXSAVE64 image (x87, MMX,
 * SSE state; 512 bytes). */
struct arch_user_regs {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rip, rflags, fs_base, reserved;
	uint8_t fpu[512] __attribute__((aligned(16)));
};
/* Pinned: it is part of struct kthread (kernel/kformat/kformat.h), whose
 * layout the persistent format fixes; the gdb helpers and the tests read
 * these fields through the kernel's debug info and tools/heapformat. */
#define ARCH_USER_REGS_AT(f, at)                                              \
	_Static_assert(__builtin_offsetof(struct arch_user_regs, f) == (at), \
		       "arch_user_regs." #f " is persistent")
_Static_assert(sizeof(struct arch_user_regs) == 672, "arch_user_regs is persistent");
ARCH_USER_REGS_AT(rax, 0);
ARCH_USER_REGS_AT(rbx, 8);
ARCH_USER_REGS_AT(rcx, 16);
ARCH_USER_REGS_AT(rdx, 24);
ARCH_USER_REGS_AT(rsi, 32);
ARCH_USER_REGS_AT(rdi, 40);
ARCH_USER_REGS_AT(rbp, 48);
ARCH_USER_REGS_AT(rsp, 56);
ARCH_USER_REGS_AT(r8, 64);
ARCH_USER_REGS_AT(r9, 72);
ARCH_USER_REGS_AT(r10, 80);
ARCH_USER_REGS_AT(r11, 88);
ARCH_USER_REGS_AT(r12, 96);
ARCH_USER_REGS_AT(r13, 104);
ARCH_USER_REGS_AT(r14, 112);
ARCH_USER_REGS_AT(r15, 120);
ARCH_USER_REGS_AT(rip, 128);
ARCH_USER_REGS_AT(rflags, 136);
ARCH_USER_REGS_AT(fs_base, 144);
ARCH_USER_REGS_AT(reserved, 152);
ARCH_USER_REGS_AT(fpu, 160);

/* arch_user_regs_init -- a fresh thread: rip=entry, rsp, rdi/rsi/rdx = the
 * args, rflags = IF only, the default FPU state (FCW 0x37f, MXCSR 0x1f80),
 * everything else zero */
void arch_user_regs_init(struct arch_user_regs *r, uint64_t entry, uint64_t rsp,
			 uint64_t arg0, uint64_t arg1, uint64_t arg2);

/* arch_frame_save -- the user registers of a frame into r, with the live FPU state */
void arch_frame_save(const struct trap_frame *tf, struct arch_user_regs *r);

/* arch_frame_park -- on a CPU stopped for another (core/smp.c): keep its
 * user thread's live FPU state and FS base for arch_frame_save_parked, and
 * leave the user's page tables (arch_pt_leave_user) */
void arch_frame_park(void);

/* arch_frame_save_parked -- what arch_frame_save would give for the frame
 * tf of CPU `cpu`, parked in its kernel entry before handling it: called
 * by the CPU that stopped it. A SYSCALL frame comes out as the call not yet
 * made (re-issued when the thread is loaded again) */
void arch_frame_save_parked(const struct trap_frame *tf, unsigned cpu,
			    struct arch_user_regs *r);

/* arch_frame_load -- make a frame resume the thread of r (and load its FPU
 * state). Whatever r holds, the frame is safe to enter: user cs/ss, rflags
 * limited to the arithmetic flags and DF with IF set, rip and rsp as saved
 * unless outside the user half (then FE_USER_TOP, never mapped: the thread
 * faults in user mode), MXCSR stripped of bits the CPU would refuse. The
 * frame then leaves through IRETQ. */
void arch_frame_load(struct trap_frame *tf, const struct arch_user_regs *r);

/* arch_syscall_number -- the call number (rax) of a SYSCALL frame */
uint64_t arch_syscall_number(const struct trap_frame *tf);

/* arch_syscall_arg -- argument i (0..5: rdi rsi rdx r10 r8 r9) of a SYSCALL frame */
uint64_t arch_syscall_arg(const struct trap_frame *tf, unsigned i);
/* arch_syscall_args -- all six arguments of a SYSCALL frame, in order */
void arch_syscall_args(const struct trap_frame *tf, uint64_t args[6]);

/* arch_syscall_set_result -- the value the call returns (rax) */
void arch_syscall_set_result(struct trap_frame *tf, int64_t v);

/* arch_syscall_restart -- make a SYSCALL frame execute the same SYSCALL
 * again (rip back over it; rax still holds the number if set_result was
 * not called) */
void arch_syscall_restart(struct trap_frame *tf);

/* arch_saved_syscall_arg -- argument i (0..5) of the call a blocked
 * thread's saved registers will re-issue */
uint64_t arch_saved_syscall_arg(const struct arch_user_regs *r, unsigned i);

/* arch_syscall_complete_saved -- make a blocked thread's saved registers
 * (stopped at its SYSCALL, to be re-issued: arch_syscall_restart) go on
 * after the call instead, with `result` as its value */
void arch_syscall_complete_saved(struct arch_user_regs *r, int64_t result);

/* arch_user_fs_base, arch_set_user_fs_base -- the FS base of the user
 * thread this CPU runs (its thread-local storage), live in the CPU until
 * the thread is saved; setting fails (false) for an address outside the
 * user half */
uint64_t arch_user_fs_base(void);
bool arch_set_user_fs_base(uint64_t base);

/* arch_random -- 64 unpredictable bits: the CPU's RDRAND where it has
 * one, else the cycle counter stirred with every earlier value */
uint64_t arch_random(void);

/* arch_frame_ip -- the user instruction pointer of a frame */
uint64_t arch_frame_ip(const struct trap_frame *tf);

/* arch_frame_sp -- the user stack pointer of a frame */
uint64_t arch_frame_sp(const struct trap_frame *tf);

/* arch_frame_from_user -- whether the frame interrupted ring 3 */
bool arch_frame_from_user(const struct trap_frame *tf);

/* arch_user_start -- switch to the top of the kernel stack (the caller's
 * stack is abandoned), build an empty frame there, call
 * kernel_exit_to_user on it, and enter ring 3 with what it loaded. Called
 * once, by kmain; interrupts are disabled from here on except while the
 * kernel idles. */
__attribute__((noreturn)) void arch_user_start(void);

/* A CPU exception raised by user code, decoded once by the architecture:
 * generic code asks these fields, never the CPU's error bits. */
enum arch_access {
	ARCH_ACCESS_READ = 1,
	ARCH_ACCESS_WRITE = 2,
	ARCH_ACCESS_FETCH = 3,         /* an instruction fetch */
};

struct arch_fault {
	unsigned kind;                 /* FE_FAULT_* (<ferrite/syscall.h>) */
	uint64_t ip;                   /* the faulting instruction */
	bool restarts;                 /* a fault: returning runs the instruction
					* again (not a trap such as a breakpoint) */
	/* FE_FAULT_PAGE only: */
	uint64_t addr;                 /* the address accessed */
	enum arch_access access;
	bool present;                  /* the page was mapped: a protection violation */
	/* The CPU's own words, for arch_fault_describe. */
	uint64_t code;
};

/* arch_fault_describe -- a CPU exception of user code in words, e.g. "page
 * fault at 0x0 (read, not present), rip 0x401023"; a page fault says
 * `why` in place of the CPU's cause when it is not NULL. snprintf's result. */
int arch_fault_describe(const struct arch_fault *f, const char *why,
			char *buf, size_t len);

/* --- user address spaces (kernel/arch/x86_64/paging.c) -------------------
 * A user address space is a top-level page table whose upper half is the
 * kernel's (shared, supervisor-only) and whose lower half maps user pages
 * of FE_PAGE_SIZE in [0, FE_USER_TOP). Page tables are volatile (DRAM
 * frames); prot is VM_READ | VM_WRITE | VM_EXEC (mm/vm.h). */

/* arch_pt_create_user -- a new address space: the kernel half, no user pages; 0 or -ERR_NOMEM */
int arch_pt_create_user(uint64_t *root_phys);

/* arch_pt_map_user_page -- map one user page at va to phys, replacing what
 * was there (the caller flushes the TLB entry); 0, -ERR_INVAL (va not a
 * page of the user half, phys not a page, prot empty or not VM_READ/WRITE/
 * EXEC) or -ERR_NOMEM */
int arch_pt_map_user_page(uint64_t root, uint64_t va, uint64_t phys, unsigned prot);

/* arch_pt_unmap_user -- unmap every page of [va, va+len) (page-aligned, in
 * the user half), flushing the TLB entries when root is the current one */
void arch_pt_unmap_user(uint64_t root, uint64_t va, uint64_t len);

/* arch_pt_lookup_user -- the physical address behind user address va, and
 * the page's protection; 0, -ERR_NOENT if not mapped, -ERR_INVAL outside
 * the user half */
int arch_pt_lookup_user(uint64_t root, uint64_t va, uint64_t *phys, unsigned *prot);

/* arch_pt_take_user_marks -- which of VM_ACCESSED and VM_DIRTY the CPU
 * has set on user page va since they were last taken, when va maps phys
 * (0 otherwise); the ones in `take` are cleared. The caller makes every
 * CPU forget va's translation before relying on the marks again (a TLB
 * entry that holds a mark does not set it a second time). */
unsigned arch_pt_take_user_marks(uint64_t root, uint64_t va, uint64_t phys,
				 unsigned take);

/* arch_pt_unmap_user_page -- unmap user page va if it maps phys (the TLB
 * entry flushed when root is current): the VM_ACCESSED and VM_DIRTY marks
 * it had, read in the same atomic step, or -ERR_NOENT */
int arch_pt_unmap_user_page(uint64_t root, uint64_t va, uint64_t phys);

/* arch_pt_protect_user_page -- take the write bit from user page va if it
 * maps phys (the TLB entry flushed when root is current): its VM_ACCESSED
 * and VM_DIRTY marks, read in the same atomic step, or -ERR_NOENT */
int arch_pt_protect_user_page(uint64_t root, uint64_t va, uint64_t phys);

/* arch_pt_destroy_user -- free the address space's tables (never the pages
 * they map); switches to the kernel's tables first if root is current */
void arch_pt_destroy_user(uint64_t root);

/* arch_user_pt_switch -- run on the address space root_phys (CR3, if different) */
void arch_user_pt_switch(uint64_t root_phys);

/* arch_tlb_flush_page -- forget the current address space's translation of va */
void arch_tlb_flush_page(uint64_t va);

/* arch_pt_leave_user -- run on the kernel's own tables: this CPU keeps no
 * translation of any user address space (its TLB forgets them) */
void arch_pt_leave_user(void);

/* arch_pt_kernel_root -- the kernel's own tables (arch_pt_set_kernel_root) */
uint64_t arch_pt_kernel_root(void);

/* --- provided by the kernel: called by the arch entry code ----------------
 * Each runs on the kernel stack with interrupts disabled. */

/* kernel_enter_from_user -- the first step of every entry from ring 3,
 * before the frame is looked at: wait for the kernel (one CPU runs it at a
 * time, core/smp.c). False if the thread of the frame was ended meanwhile
 * by another CPU: then its call or fault is not handled (an interrupt
 * still is), and kernel_exit_to_user loads another thread. */
bool kernel_enter_from_user(struct trap_frame *tf);

/* syscall_handler -- carry out the SYSCALL of frame tf (the current thread's) */
void syscall_handler(struct trap_frame *tf);

/* user_fault -- a CPU exception raised by user code, decoded (never NMI,
 * double fault or machine check, which stay kernel panics) */
void user_fault(const struct arch_fault *f);

/* klock_held -- whether this CPU holds the kernel lock (core/smp.c): an
 * interrupt that arrives in kernel mode is handled now if it does, else
 * deferred until it takes the lock (arch_run_deferred_interrupts) */
bool klock_held(void);

/* kernel_exit_to_user -- the last step before ring 3: choose the thread to
 * run and, if it is not the one the frame holds, save the frame into the
 * old thread and arch_frame_load the new one; idles (interrupts enabled)
 * while nothing can run. Returns with interrupts disabled, the frame
 * holding a user context, and the kernel left to the other CPUs. */
void kernel_exit_to_user(struct trap_frame *tf);

#endif
