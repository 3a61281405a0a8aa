/*
 * faults.c -- forbidden acts, each done by a child ("usertest fault KIND")
 * that must end with FE_EXIT_FAULT and the expected CPU exception: reading,
 * writing or jumping into the kernel, writing its own code or read-only
 * data, writing through a read-only mapping or protection, executing data,
 * stack or heap, touching address 0 or an unmapped page, privileged
 * instructions, a non-canonical address, a division by zero. For a page
 * fault the child first writes the address it is about to touch into a
 * blob its parent granted it (inherited handle 0), and the parent checks
 * the kernel reported exactly that address.
 */
#include "usertest.h"

/* map_anon_rw -- a fresh anonymous page, mapped read+write */
static uint64_t map_anon_rw(void)
{
	long h = fe_obj_create(FE_TYPE_ANON, PAGE);
	long a = fe_map((int32_t)h, 0, PAGE,
			FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0);

	*(volatile char *)(uintptr_t)a = 1;
	return (uint64_t)a;
}

static unsigned char data_ret[16] = {0xc3};   /* ret, in .data */
static const char rodata_text[] = "read-only";

/* fault_kread -- read kernel memory (the direct map) */
static void fault_kread(void) { touch_read(KERNEL_HHDM); }
/* fault_kread_text -- read the kernel image */
static void fault_kread_text(void) { touch_read(KERNEL_TEXT); }
/* fault_kwrite -- write kernel memory */
static void fault_kwrite(void) { touch_write(KERNEL_TEXT); }
/* fault_kjump -- jump to kernel code */
static void fault_kjump(void) { touch_exec(KERNEL_TEXT); }
/* fault_text_write -- write the program's own code */
static void fault_text_write(void) { touch_write((uint64_t)(uintptr_t)&main); }
/* fault_rodata_write -- write the program's read-only data */
static void fault_rodata_write(void) { touch_write((uint64_t)(uintptr_t)rodata_text); }
/* fault_exec_data -- execute from .data */
static void fault_exec_data(void) { touch_exec((uint64_t)(uintptr_t)data_ret); }
/* fault_null -- read address 0 */
static void fault_null(void) { touch_read(0); }
/* fault_unmapped -- read a user address with nothing mapped */
static void fault_unmapped(void) { touch_read(UNMAPPED); }

/* fault_exec_stack -- execute from the stack */
static void fault_exec_stack(void)
{
	volatile unsigned char code[16];

	code[0] = 0xc3;
	touch_exec((uint64_t)(uintptr_t)code);
}

/* fault_exec_heap -- execute from malloc's heap */
static void fault_exec_heap(void)
{
	volatile unsigned char *code = malloc(16);

	code[0] = 0xc3;
	touch_exec((uint64_t)(uintptr_t)code);
}

/* fault_ro_map -- write through a read-only mapping of a blob */
static void fault_ro_map(void)
{
	long h = fe_obj_create(FE_TYPE_BLOB, PAGE);
	long a = fe_map((int32_t)h, 0, PAGE, FE_PROT_READ | FE_MAP_SHARED, 0);

	touch_write((uint64_t)a);
}

/* fault_protect -- write a page made read-only by protect */
static void fault_protect(void)
{
	uint64_t a = map_anon_rw();

	fe_protect(a, PAGE, FE_PROT_READ);
	touch_write(a);
}

/* fault_unmap -- read a page after unmapping it */
static void fault_unmap(void)
{
	uint64_t a = map_anon_rw();

	fe_unmap(a, PAGE);
	touch_read(a);
}

/* fault_hlt -- a privileged instruction */
static void fault_hlt(void) { __asm__ volatile("hlt"); }
/* fault_cli -- turn interrupts off */
static void fault_cli(void) { __asm__ volatile("cli"); }

/* fault_cr3 -- load the page-table base */
static void fault_cr3(void)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(launder(0)) : "memory");
}

/* fault_noncanonical -- read a non-canonical address (#GP, not #PF) */
static void fault_noncanonical(void)
{
	(void)*(volatile uint8_t *)ptr(NONCANONICAL);
}

/* fault_divide -- divide by zero (in asm: gcc rewrites 1 / x without a div) */
static void fault_divide(void)
{
	uint64_t lo = 1, hi = 0;

	__asm__ volatile("divq %2" : "+a"(lo), "+d"(hi) : "r"(launder(0)));
}

struct fault_kind {
	const char *name;
	uint32_t fault;                /* FE_FAULT_*: what the kernel must report */
	void (*act)(void);
};

static const struct fault_kind fault_kinds[] = {
	{"kread", FE_FAULT_PAGE, fault_kread},
	{"kread-text", FE_FAULT_PAGE, fault_kread_text},
	{"kwrite", FE_FAULT_PAGE, fault_kwrite},
	{"kjump", FE_FAULT_PAGE, fault_kjump},
	{"text-write", FE_FAULT_PAGE, fault_text_write},
	{"rodata-write", FE_FAULT_PAGE, fault_rodata_write},
	{"ro-map-write", FE_FAULT_PAGE, fault_ro_map},
	{"protect-write", FE_FAULT_PAGE, fault_protect},
	{"exec-data", FE_FAULT_PAGE, fault_exec_data},
	{"exec-stack", FE_FAULT_PAGE, fault_exec_stack},
	{"exec-heap", FE_FAULT_PAGE, fault_exec_heap},
	{"null", FE_FAULT_PAGE, fault_null},
	{"unmapped", FE_FAULT_PAGE, fault_unmapped},
	{"unmap-read", FE_FAULT_PAGE, fault_unmap},
	{"hlt", FE_FAULT_PROTECTION, fault_hlt},
	{"cli", FE_FAULT_PROTECTION, fault_cli},
	{"cr3", FE_FAULT_PROTECTION, fault_cr3},
	{"noncanonical", FE_FAULT_PROTECTION, fault_noncanonical},
	{"divide", FE_FAULT_DIVIDE, fault_divide},
};

#define FAULT_KIND_COUNT (sizeof(fault_kinds) / sizeof(fault_kinds[0]))

/* test_fault -- one forbidden act in a child ends it with the right fault */
static void test_fault(const struct fault_kind *kind)
{
	const char *argv[] = {"usertest", "fault", kind->name, NULL};
	int32_t report_blob = new_blob(sizeof(uint64_t), NULL);
	struct fe_handle_grant g = {report_blob, FE_RIGHT_READ | FE_RIGHT_WRITE};
	struct fe_exit_info info;
	uint64_t expected = ~0ull;

	set_group("fault %s", kind->name);
	info = wait_for(OK(spawn_self(argv, &g, 1)));
	EQ(info.reason, FE_EXIT_FAULT);
	EQ(info.vector, kind->fault);
	CHECK(info.detail[0] != '\0');
	if (kind->fault == FE_FAULT_PAGE) {
		EQ(fe_obj_read(report_blob, 0, &expected, sizeof(expected)),
		   sizeof(expected));
		EQ(info.fault_addr, expected);
	}
	EQ(fe_close(report_blob), 0);
}

/* test_faults -- every forbidden act, each in a child of its own */
void test_faults(void)
{
	size_t i;

	for (i = 0; i < FAULT_KIND_COUNT; i++)
		test_fault(&fault_kinds[i]);
}

/* run_fault_child -- "usertest fault KIND": do the act; it must not return */
int run_fault_child(const char *name)
{
	size_t i;

	for (i = 0; i < FAULT_KIND_COUNT; i++) {
		if (strcmp(fault_kinds[i].name, name) == 0) {
			fault_kinds[i].act();
			printf("usertest: fault %s did not fault\n", name);
			return 100;
		}
	}
	printf("usertest: no fault kind '%s'\n", name);
	return 2;
}
