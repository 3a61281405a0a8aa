/*
 * main.c -- kmain: from the first C instruction to a running system.
 *
 * This file is the power-on order, read top to bottom in kmain and
 * power_on; no step starts another behind its back. The order matters:
 * the serial line first (so everything after can speak), then the
 * loader's information and the command line, the CPU tables, DRAM and the
 * kernel's page tables, ACPI (interrupt controllers, power-off, NVM), the
 * NVM and the heap on it with the boot modules, the timer (after the heap,
 * which remembers the clock rates of the machine: no 30 ms calibration at
 * every power-on), the other CPUs (which wait for the boot CPU to leave
 * the kernel), interrupts, and then the system (power_on): the kernel
 * root, the console, the link, snapshots, a safe power-on's holding, the
 * first shell on a new heap -- committed -- and then every process
 * carries on where it was. A missing or refused NVM is reported where it
 * is found but halts only after the self-tests, which need no heap. Any
 * failure that leaves the machine unusable says what is wrong and halts;
 * nothing is guessed.
 *
 * Every step is O(1) in the heap's size and object count: the heap is
 * opened, never scanned (objstore rolls back at most one epoch's log), and
 * the NVM is mapped with 1 GiB pages where the CPU has them. The TSC after
 * each step is kept (`profile`) and printed with loglevel=7.
 */
#include <stdbool.h>
#include <stdint.h>

#include "acpi/acpi.h"
#include "arch/arch.h"
#include "console/console.h"
#include "core/bootinfo.h"
#include "core/cmdline.h"
#include "core/heap.h"
#include "core/modules.h"
#include "core/panic.h"
#include "core/printk.h"
#include "core/selftest.h"
#include "core/smp.h"
#include "core/time.h"
#include "dev/nvm.h"
#include "dev/pci.h"
#include "dev/uart.h"
#include "dev/virtio_pmem.h"
#include "entry/entry.h"
#include "epoch/durable.h"
#include "epoch/epoch.h"
#include "epoch/rescue.h"
#include "epoch/snapshot.h"
#include "hostlink/hostlink.h"
#include "linux/linux.h"
#include "mm/frame.h"
#include "mm/vm.h"
#include "obj/kobj.h"
#include "task/channel.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/pagecache.h"
#include "uvm/uvm.h"

#define FERRITE_VERSION "0.1-dev"

void kmain(uint32_t boot_magic, uint32_t boot_info_phys);

static struct boot_info boot_info;
static struct nvm nvm;

/* The power-on profile: the TSC after each step, from kernel_entry_tsc. */
#define PROFILE_STEPS 16
static struct {
	const char *step;
	uint64_t tsc;
} profile[PROFILE_STEPS];
static unsigned profile_count;

/* stamp -- note that power-on step `step` ends now */
static void stamp(const char *step)
{
	if (profile_count < PROFILE_STEPS)
		profile[profile_count++] = (typeof(profile[0])){ step, arch_cycles() };
}

/* print_profile -- the TSC cycles each power-on step took (loglevel=7) */
static void print_profile(void)
{
	uint64_t prev = kernel_entry_tsc;

	for (unsigned i = 0; i < profile_count; i++) {
		pr_debug("power-on: %-10s %12llu cycles\n", profile[i].step,
			 (unsigned long long)(profile[i].tsc - prev));
		prev = profile[i].tsc;
	}
	pr_debug("power-on: %-10s %12llu cycles (%llu us)\n", "total",
		 (unsigned long long)(prev - kernel_entry_tsc),
		 (unsigned long long)(time_cycles_to_ns(prev - kernel_entry_tsc) / 1000));
}

/* apply_loglevel -- loglevel=N (0..7) from the command line */
static void apply_loglevel(void)
{
	uint64_t level;

	if (cmdline_number("loglevel", 0, LOG_DEBUG, LOG_INFO, &level))
		pr_warn("cmdline: loglevel=%s is not a number from 0 to 7\n",
			cmdline_get("loglevel"));
	else if (cmdline_has("loglevel"))
		printk_set_level((enum log_level)level);
}

/* platform_init -- ACPI tables, interrupt controllers and power-off */
static void platform_init(void)
{
	struct madt_info madt;

	if (acpi_init(boot_info.rsdp_phys))
		panic("acpi: no usable ACPI tables (see above)");
	if (acpi_madt_parse(&madt))
		panic("acpi: no usable MADT: cannot find the interrupt controllers");
	arch_interrupts_init(&madt);
	if (acpi_poweroff_prepare())
		pr_warn("acpi: power-off through S5 is unavailable\n");
}

/* import_modules -- the boot modules as programs bin/NAME (at genesis, or
 * with `import`), a commit each */
static void import_modules(void)
{
	if (!modules_wanted()) {
		modules_ignored(&boot_info);
		return;
	}
	for (unsigned i = 0; i < boot_info.module_count; i++)
		if (modules_import(&boot_info.modules[i]) == 0)
			epoch_commit(NULL);
}

/* power_on -- the system: the kernel root (made at genesis), what each
 * room keeps across power cuts made ready, a safe power-on's holding, the
 * first shell on a new heap; the power-on's record committed, the state
 * it starts from kept as a snapshot; then every process carries on */
static __attribute__((noreturn)) void power_on(void)
{
	bool genesis = kobj_root_init();

	kobj_on_delete(channel_deleted);
	kobj_on_delete(pagecache_deleted);
	kobj_on_delete(uvm_layer_deleted);
	linux_init();
	console_init();
	KLOG(&kroot->power_ons);
	kroot->power_ons++;
	pr_info("ferrite: power-on %llu, %u processes\n",
		(unsigned long long)kroot->power_ons, ptable_count());
	console_power_on();
	hostlink_power_on();
	snapshot_init(genesis);
	rescue_power_on();
	rescue_keep_shell();
	epoch_commit(NULL);
	if (snapshot_power_on(kroot->power_ons))
		epoch_commit(NULL); /* power-on-N alone in its epoch */
	stamp("proc");
	print_profile();
	time_check_start();
	epoch_start();
	uvm_init(epoch_user_logged());
	time_mono_start(kroot->mono_ns);
	sched_start(); /* the thread that ran at the last commit goes first */
}

/* kmain -- called by boot.S in the higher half with the loader's magic and information */
void kmain(uint32_t boot_magic, uint32_t boot_info_phys)
{
	bool heap_ok;

	stamp("boot");
	uart_init();
	printk_defer();
	if (bootinfo_parse(boot_magic, boot_info_phys, &boot_info)) {
		pr_err("boot: not started by a multiboot loader (magic %#x)\n",
		       boot_magic);
		halt_forever();
	}
	cmdline_init(boot_info.cmdline);
	if (cmdline_has("earlyprintk"))
		printk_flush(); /* every line to the UART as it is printed */
	apply_loglevel();
	pr_info("Ferrite %s, a persistent-object microkernel (%s)\n",
		FERRITE_VERSION, boot_info.loader);
	pr_info("cmdline: %s\n", cmdline_text());
	cmdline_warn_unknown();
	stamp("cmdline");

	arch_cpu_init();
	smp_init();
	stamp("cpu");
	frame_init(&boot_info);
	stamp("frames");
	mm_init(&boot_info);
	stamp("mm");
	platform_init();
	pci_init(&boot_info);
	stamp("acpi");
	heap_ok = nvm_init(&boot_info, &nvm) == 0;
	stamp("nvm");
	heap_ok = heap_ok && durable_power_on(&nvm) == 0;
	heap_ok = heap_ok && heap_init(&nvm) == 0;
	if (heap_ok)
		import_modules();
	stamp("heap");
	time_init(entry_tick);
	heap_set_wall_clock(time_wall_ns);
	pmem_set_clock(time_ns);
	stamp("timer");
	smp_start();
	stamp("cpus");
	uart_enable_receive_interrupt();
	hostlink_init();
	arch_interrupts_enable();

	if (cmdline_has("crash") || cmdline_has("selftest"))
		printk_flush(); /* tests read the lines as they come */
	if (cmdline_is("crash", "panic"))
		panic("crash=panic on the command line");
	if (cmdline_has("crash"))
		arch_trigger_fault(cmdline_get("crash"));
	if (cmdline_has("selftest"))
		selftest_run(cmdline_get("selftest"));
	if (!heap_ok)
		halt_forever();
	power_on();
}
