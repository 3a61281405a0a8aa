/*
 * smp.c -- the CPUs of an x86_64 machine: each one's own area, stacks and
 * tables, starting the application processors, and interrupting a CPU.
 *
 * Per CPU: a struct cpu_local (user.h) reached through GS, a kernel stack,
 * a GDT and TSS with their fault stacks (gdt.c), a local APIC and its
 * timer. CPU numbers (the index of core/smp.h) are dense: 0 is the boot
 * CPU, then the others in the order they started. The IDT is shared.
 *
 * Starting a CPU (the MADT lists them by APIC id): the boot CPU copies
 * ap_boot.S to AP_BOOT_PHYS and fills its parameters -- the tables (the
 * kernel half plus that page, identity mapped), this CPU's stack, its
 * index -- then sends INIT, a STARTUP IPI and, if the CPU has not
 * answered, a second one (the universal start-up of the SDM, 8.4.4.1). The
 * CPU comes up in real mode, climbs to long mode in ap_boot.S and calls
 * ap_boot_entry here, which switches to the kernel's tables, loads this
 * CPU's descriptors and MSRs, turns its local APIC on and says it is alive;
 * then the generic kernel takes it (cpu_main). A CPU that does not answer
 * within START_TIMEOUT_MS is reported, sent INIT again (back to waiting),
 * and left out: the system runs with the CPUs that came.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "acpi/acpi.h"
#include "arch/arch.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/user.h"
#include "core/panic.h"
#include "core/printk.h"
#include "mm/phys.h"
#include "mm/vm.h"

#define AP_BOOT_PHYS 0x8000     /* ap_boot.S's address; STARTUP vector 0x08 */
#define START_TIMEOUT_MS 1000   /* a CPU that has not answered by then is left out */
#define INIT_DELAY_US 10000     /* after INIT, on hardware (SDM 8.4.4.1) */
#define STARTUP_DELAY_US 200    /* between the two STARTUP IPIs */
#define MSR_KERNEL_GS_BASE 0xc0000102
#define EFER_LME (1u << 8)
#define EFER_NXE (1u << 11)
#define CR4_PGE (1ull << 7)

extern char ap_boot_start[], ap_boot_end[];
extern uint32_t ap_boot_cr3, ap_boot_efer, ap_boot_index;
extern uint64_t ap_boot_stack, ap_boot_target;

static struct cpu_local cpu_locals[ARCH_MAX_CPUS];
static uint8_t kernel_stacks[ARCH_MAX_CPUS][KERNEL_STACK_SIZE]
	__attribute__((aligned(KERNEL_STACK_SIZE)));
/* Each CPU's last user FS base and FPU state when it parked (arch_frame_park). */
static struct {
	uint8_t fpu[512] __attribute__((aligned(16)));
	uint64_t fs_base;
} parked[ARCH_MAX_CPUS];

static void (*ap_main)(unsigned index);
static volatile uint32_t ap_alive; /* the index of the last CPU that said so */

/* cpu_local_of -- the area of CPU `index` */
struct cpu_local *cpu_local_of(unsigned index)
{
	KASSERT(index < ARCH_MAX_CPUS);
	return &cpu_locals[index];
}

/* cpu_local_init -- give this CPU the area, kernel stack, GDT and TSS of
 * CPU `index` and point GS at the area */
void cpu_local_init(unsigned index)
{
	struct cpu_local *c = cpu_local_of(index);

	c->kernel_stack_top = (uint64_t)(uintptr_t)(kernel_stacks[index] + KERNEL_STACK_SIZE);
	c->index = index;
	c->apic_id = cpuid(1, 0).ebx >> 24;
	gdt_init(index, c->kernel_stack_top);
	wrmsr(MSR_GS_BASE, (uint64_t)(uintptr_t)c);
	wrmsr(MSR_KERNEL_GS_BASE, 0); /* the user's GS base: 0, and it cannot set one */
}

/* arch_cpu_index -- this CPU's number */
unsigned arch_cpu_index(void)
{
	uint32_t index;

	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(index) : "i"(CPU_INDEX));
	return index;
}

/* arch_cpu_relax -- a spinning CPU's pause */
void arch_cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

/* kick -- VECTOR_KICK's handler: the kick's work is entering the kernel */
static void kick(void)
{
}

/* arch_cpu_kick -- interrupt CPU `index` */
void arch_cpu_kick(unsigned index)
{
	lapic_send_ipi(cpu_local_of(index)->apic_id, ICR_FIXED | VECTOR_KICK);
}

/* arch_frame_park -- keep the live FS base and FPU state of this CPU's
 * user thread for arch_frame_save_parked, and leave the user's tables */
void arch_frame_park(void)
{
	unsigned i = arch_cpu_index();

	__asm__ volatile("fxsave64 %0" : "=m"(parked[i].fpu));
	parked[i].fs_base = rdmsr(MSR_FS_BASE);
	arch_pt_leave_user();
}

/* arch_parked_state -- what arch_frame_park kept on CPU `index` */
void arch_parked_state(unsigned index, const uint8_t **fpu, uint64_t *fs_base)
{
	*fpu = parked[index].fpu;
	*fs_base = parked[index].fs_base;
}

/* delay_us -- busy wait, by the TSC (its rate is known: time_init ran) */
static void delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + arch_tsc_hz() / 1000000 * us;

	while (rdtsc() < end)
		arch_cpu_relax();
}

/* ap_boot_entry -- an application processor's first C code (ap_boot.S) */
__attribute__((noreturn)) void ap_boot_entry(unsigned index);
void ap_boot_entry(unsigned index)
{
	/* PGE off and on: the identity map of ap_boot.S is global; forget it. */
	write_cr4(read_cr4() & ~CR4_PGE);
	arch_pt_activate(arch_pt_kernel_root());
	cpu_local_init(index);
	idt_init();
	user_mode_init();
	lapic_enable();
	__atomic_store_n(&ap_alive, index, __ATOMIC_RELEASE);
	ap_main(index);
	panic("smp: cpu %u came back from the scheduler", index);
}

/* answered -- wait until CPU `index` says it is alive, at most `us` */
static bool answered(unsigned index, uint64_t us)
{
	uint64_t end = rdtsc() + arch_tsc_hz() / 1000000 * us;

	do {
		if (__atomic_load_n(&ap_alive, __ATOMIC_ACQUIRE) == index)
			return true;
		arch_cpu_relax();
	} while (rdtsc() < end);
	return false;
}

/* start_one -- start the CPU with APIC id `apic_id` as CPU `index` */
static bool start_one(uint32_t apic_id, unsigned index)
{
	uint8_t *page = phys_to_virt(AP_BOOT_PHYS);

	*(uint64_t *)(page + ((char *)&ap_boot_stack - ap_boot_start)) =
		(uint64_t)(uintptr_t)(kernel_stacks[index] + KERNEL_STACK_SIZE);
	*(uint32_t *)(page + ((char *)&ap_boot_index - ap_boot_start)) = index;
	cpu_local_of(index)->apic_id = apic_id;
	lapic_send_ipi(apic_id, ICR_INIT | ICR_ASSERT);
	if (!arch_cpu_is_virtual())
		delay_us(INIT_DELAY_US);
	lapic_send_ipi(apic_id, ICR_STARTUP | (AP_BOOT_PHYS >> 12));
	if (answered(index, STARTUP_DELAY_US))
		return true;
	lapic_send_ipi(apic_id, ICR_STARTUP | (AP_BOOT_PHYS >> 12));
	if (answered(index, START_TIMEOUT_MS * 1000ull))
		return true;
	lapic_send_ipi(apic_id, ICR_INIT | ICR_ASSERT); /* back to waiting */
	pr_err("smp: the CPU with APIC id %u did not start within %u ms; left out\n",
	       apic_id, START_TIMEOUT_MS);
	return false;
}

/* boot_tables -- ap_boot.S's tables: the kernel half, and its page identity mapped */
static int boot_tables(uint64_t *root)
{
	int err = arch_pt_create_user(root);

	if (err)
		return err;
	err = arch_pt_map(*root, AP_BOOT_PHYS, AP_BOOT_PHYS, PAGE_SIZE,
			  VM_READ | VM_WRITE | VM_EXEC);
	if (!err && *root >= (1ull << 32))
		err = -1; /* ap_boot.S loads CR3 in 32-bit mode */
	if (err)
		arch_pt_destroy_user(*root);
	return err;
}

/* arch_smp_start -- start every other usable CPU of the MADT; how many run */
unsigned arch_smp_start(unsigned wanted, void (*cpu_main)(unsigned index))
{
	const struct madt_info *madt = apic_madt();
	uint32_t self = cpuid(1, 0).ebx >> 24;
	unsigned count = 1, listed = madt->cpu_count < MADT_MAX_CPUS ? madt->cpu_count
								     : MADT_MAX_CPUS;
	uint8_t *page = phys_to_virt(AP_BOOT_PHYS);
	uint64_t root;

	if (wanted > ARCH_MAX_CPUS)
		wanted = ARCH_MAX_CPUS;
	if (listed <= 1 || wanted <= 1)
		return 1;
	if (boot_tables(&root)) {
		pr_err("smp: no tables below 4 GiB to start the other CPUs with; running on one\n");
		return 1;
	}
	ap_main = cpu_main;
	trap_set_handler(VECTOR_KICK, kick);
	memcpy(page, ap_boot_start, (size_t)(ap_boot_end - ap_boot_start));
	*(uint32_t *)(page + ((char *)&ap_boot_cr3 - ap_boot_start)) = (uint32_t)root;
	*(uint32_t *)(page + ((char *)&ap_boot_efer - ap_boot_start)) =
		(uint32_t)rdmsr(MSR_EFER) & (EFER_LME | EFER_NXE);
	*(uint64_t *)(page + ((char *)&ap_boot_target - ap_boot_start)) =
		(uint64_t)(uintptr_t)ap_boot_entry;
	for (unsigned i = 0; i < listed && count < wanted; i++) {
		if (madt->cpu_apic_id[i] == self)
			continue;
		if (start_one(madt->cpu_apic_id[i], count))
			count++;
	}
	arch_pt_destroy_user(root);
	return count;
}
