/*
 * arch_selftest.c -- self-tests of the x86_64 user-mode machinery that need
 * no process: the segments and MSRs SYSCALL/SYSRET depend on, the TSS's
 * kernel stack, the FPU control bits, fault descriptions, the register
 * file and frame conversions, user page tables (and that they leak no
 * frame), and the RTC. What the CPU holds is read back from the CPU
 * (SGDT, STR, RDMSR, control registers), not from our variables.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/paging.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/user.h"
#include "core/selftest.h"
#include "dev/rtc.h"
#include "ferrite/errors.h"
#include "ferrite/syscall.h"
#include "mm/frame.h"
#include "mm/phys.h"
#include "mm/vm.h"

#define DESC_PRESENT (1ull << 47)
#define DESC_DPL(d) (((d) >> 45) & 3)
#define DESC_CODE (1ull << 43)
#define DESC_LONG (1ull << 53)
#define TSS_RSP0_OFFSET 4
#define EFER_NXE (1ull << 11)
#define FXSAVE_MXCSR 24
#define FXSAVE_XMM0 160
#define RFLAGS_ID (1ull << 21)

/* current_gdt -- the descriptor table the CPU uses */
static const uint64_t *current_gdt(void)
{
	struct descriptor_pointer gdtr;

	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	return (const uint64_t *)(uintptr_t)gdtr.base;
}

/* current_tss -- the TSS the task register points at, through its GDT descriptor */
static const uint8_t *current_tss(void)
{
	const uint64_t *gdt = current_gdt();
	uint16_t tr;
	uint64_t lo, base;

	__asm__ volatile("str %0" : "=r"(tr));
	lo = gdt[tr / 8];
	base = ((lo >> 16) & 0xffffff) | (((lo >> 56) & 0xff) << 24) |
	       (gdt[tr / 8 + 1] << 32);
	return (const uint8_t *)(uintptr_t)base;
}

SELFTEST(arch_segments_for_sysret)
{
	const uint64_t *gdt = current_gdt();
	uint64_t star = rdmsr(MSR_STAR), rsp0;
	uint16_t tr;

	/* User data at 0x18, user code (64-bit) at 0x20, both DPL 3. */
	ST_CHECK(gdt[GDT_USER_DATA / 8] & DESC_PRESENT);
	ST_CHECK_EQ(DESC_DPL(gdt[GDT_USER_DATA / 8]), 3);
	ST_CHECK(!(gdt[GDT_USER_DATA / 8] & DESC_CODE));
	ST_CHECK(gdt[GDT_USER_CODE / 8] & DESC_PRESENT);
	ST_CHECK_EQ(DESC_DPL(gdt[GDT_USER_CODE / 8]), 3);
	ST_CHECK(gdt[GDT_USER_CODE / 8] & DESC_CODE);
	ST_CHECK(gdt[GDT_USER_CODE / 8] & DESC_LONG);
	ST_CHECK_EQ(DESC_DPL(gdt[GDT_KERNEL_CODE / 8]), 0);
	/* SYSRET: CS = base + 16 | 3, SS = base + 8 | 3; SYSCALL: 0x08, 0x10. */
	ST_CHECK_EQ(star >> 48, 0x10);
	ST_CHECK_EQ((star >> 32) & 0xffff, 0x08);
	ST_CHECK_EQ(((star >> 48) + 16) | 3, USER_CS);
	ST_CHECK_EQ(((star >> 48) + 8) | 3, USER_SS);
	ST_CHECK_EQ(USER_CS, 0x23);
	ST_CHECK_EQ(USER_SS, 0x1b);
	ST_CHECK_EQ(rdmsr(MSR_LSTAR), (uint64_t)(uintptr_t)syscall_entry);
	ST_CHECK_EQ(rdmsr(MSR_FMASK) & SYSCALL_RFLAGS_CLEAR, SYSCALL_RFLAGS_CLEAR);
	ST_CHECK(rdmsr(MSR_EFER) & EFER_SCE);
	/* The TSS follows the user segments; rsp0 is the kernel stack top. */
	__asm__ volatile("str %0" : "=r"(tr));
	ST_CHECK_EQ(tr, GDT_TSS);
	memcpy(&rsp0, current_tss() + TSS_RSP0_OFFSET, sizeof(rsp0));
	ST_CHECK_EQ(rsp0, cpu_local_of(arch_cpu_index())->kernel_stack_top);
	/* GS is this CPU's area in the kernel, and the user's is 0. */
	ST_CHECK_EQ(rdmsr(MSR_GS_BASE), (uint64_t)(uintptr_t)cpu_local_of(arch_cpu_index()));
	ST_CHECK_EQ(rdmsr(0xc0000102), 0); /* IA32_KERNEL_GS_BASE */
	ST_CHECK_EQ(rsp0 % KERNEL_STACK_SIZE, 0);
	ST_CHECK(rsp0 >= KERNEL_BASE);
}

SELFTEST(arch_fpu_for_user_code)
{
	uint64_t cr0 = read_cr0(), cr4 = read_cr4();

	ST_CHECK(!(cr0 & CR0_EM));
	ST_CHECK(cr0 & CR0_MP);
	ST_CHECK(!(cr0 & CR0_TS));
	ST_CHECK(cr0 & CR0_NE);
	ST_CHECK(cr4 & CR4_OSFXSR);
	ST_CHECK(cr4 & CR4_OSXMMEXCPT);
}

/* describe_is -- whether a user exception (vector, error code, cr2, rip),
 * decoded by trap_decode_fault, reads exactly `want` in arch_fault_describe */
static bool describe_is(unsigned vector, uint64_t error, uint64_t cr2,
			uint64_t rip, const char *want)
{
	struct trap_frame tf = { .vector = vector, .error_code = error, .rip = rip };
	struct arch_fault f;
	char buf[96];
	int n;

	trap_decode_fault(&tf, cr2, &f);
	n = arch_fault_describe(&f, NULL, buf, sizeof(buf));
	return n == (int)strlen(want) && strcmp(buf, want) == 0;
}

/* decodes_as -- whether trap_decode_fault reads a #PF error code as `access`
 * and `present`, and a vector as restarting or not */
static bool decodes_as(unsigned vector, uint64_t error, enum arch_access access,
		       bool present, bool restarts)
{
	struct trap_frame tf = { .vector = vector, .error_code = error, .rip = 0x401000 };
	struct arch_fault f;

	trap_decode_fault(&tf, 0x1000, &f);
	if (f.kind != vector || f.ip != 0x401000 || f.restarts != restarts)
		return false;
	if (vector != FE_FAULT_PAGE)
		return f.addr == 0;
	return f.addr == 0x1000 && f.access == access && f.present == present;
}

SELFTEST(arch_fault_decoding)
{
	ST_CHECK(decodes_as(14, 0x4, ARCH_ACCESS_READ, false, true));
	ST_CHECK(decodes_as(14, 0x7, ARCH_ACCESS_WRITE, true, true));
	ST_CHECK(decodes_as(14, 0x15, ARCH_ACCESS_FETCH, true, true));
	ST_CHECK(decodes_as(13, 0, 0, false, true));
	ST_CHECK(decodes_as(3, 0, 0, false, false));  /* #BP: a trap */
	ST_CHECK(decodes_as(4, 0, 0, false, false));  /* #OF: a trap */
}

SELFTEST(arch_fault_descriptions)
{
	struct trap_frame tf = { .vector = 6, .rip = 0x401005 };
	struct arch_fault f;
	char small[8], line[96];

	ST_CHECK(describe_is(14, 0x4, 0, 0x401023,
			     "page fault at 0x0 (read, not present), rip 0x401023"));
	ST_CHECK(describe_is(14, 0x7, 0x402000, 0x401000,
			     "page fault at 0x402000 (write, protection violation), rip 0x401000"));
	ST_CHECK(describe_is(14, 0x15, 0x7ffffffff000, 0x7ffffffff000,
			     "page fault at 0x7ffffffff000 (execute, protection violation), rip 0x7ffffffff000"));
	ST_CHECK(describe_is(13, 0, 0, 0x401000, "general protection fault, rip 0x401000"));
	ST_CHECK(describe_is(13, 0x28, 0, 0x401000,
			     "general protection fault (error 0x28), rip 0x401000"));
	ST_CHECK(describe_is(6, 0, 0, 0x401005, "invalid opcode, rip 0x401005"));
	ST_CHECK(describe_is(0, 0, 0, 0x401007, "divide error, rip 0x401007"));
	ST_CHECK(describe_is(3, 0, 0, 0x401001, "breakpoint, rip 0x401001"));
	ST_CHECK(describe_is(19, 0, 0, 0x401001, "SIMD floating-point exception, rip 0x401001"));
	ST_CHECK(describe_is(15, 0, 0, 0x40, "CPU exception 15, rip 0x40"));
	ST_CHECK(describe_is(77, 0, 0, 0x40, "CPU exception 77, rip 0x40"));
	/* Truncated like snprintf, returning the full length. */
	trap_decode_fault(&tf, 0, &f);
	ST_CHECK_EQ(arch_fault_describe(&f, NULL, small, sizeof(small)),
		    strlen("invalid opcode, rip 0x401005"));
	ST_CHECK(strcmp(small, "invalid") == 0);
	/* The kernel's reason in place of the CPU's. */
	tf = (struct trap_frame){ .vector = 14, .error_code = 0x7, .rip = 0x401000 };
	trap_decode_fault(&tf, 0x402000, &f);
	arch_fault_describe(&f, "read-only", line, sizeof(line));
	ST_CHECK(strcmp(line, "page fault at 0x402000 (write, read-only), rip 0x401000") == 0);
}

/* fpu_u32 -- a 32-bit field of an FXSAVE image */
static uint32_t fpu_u32(const uint8_t *fpu, unsigned offset)
{
	uint32_t v;

	memcpy(&v, fpu + offset, sizeof(v));
	return v;
}

SELFTEST(arch_user_regs_init_fresh_thread)
{
	static struct arch_user_regs r;
	uint16_t fcw;

	memset(&r, 0xa5, sizeof(r));
	arch_user_regs_init(&r, 0x401000, 0x7ffffffde000, 1, 2, 3);
	ST_CHECK_EQ(r.rip, 0x401000);
	ST_CHECK_EQ(r.rsp, 0x7ffffffde000);
	ST_CHECK_EQ(r.rdi, 1);
	ST_CHECK_EQ(r.rsi, 2);
	ST_CHECK_EQ(r.rdx, 3);
	ST_CHECK_EQ(r.rflags, RFLAGS_IF);
	ST_CHECK_EQ(r.rax | r.rbx | r.rcx | r.rbp | r.r8 | r.r15 | r.fs_base |
			    r.reserved, 0);
	memcpy(&fcw, r.fpu, sizeof(fcw));
	ST_CHECK_EQ(fcw, 0x37f);
	ST_CHECK_EQ(fpu_u32(r.fpu, FXSAVE_MXCSR), 0x1f80);
	ST_CHECK_EQ(r.fpu[4] | r.fpu[FXSAVE_XMM0] | r.fpu[511], 0);
}

SELFTEST(arch_frame_load_sanitizes)
{
	static struct arch_user_regs r, back;
	struct trap_frame tf;
	uint32_t bad_mxcsr = 0xffffffff;
	uint64_t xmm0 = 0x0123456789abcdefull;

	arch_user_regs_init(&r, 0x401000, 0x500000, 7, 8, 9);
	r.rbx = 0xb;
	r.r15 = 0xf;
	r.rflags = ~0ull; /* IOPL 3, NT, VM, RF, AC, TF, ID: none may pass */
	r.fs_base = 0x8000000000000000ull; /* non-canonical */
	memcpy(r.fpu + FXSAVE_MXCSR, &bad_mxcsr, sizeof(bad_mxcsr));
	memcpy(r.fpu + FXSAVE_XMM0, &xmm0, sizeof(xmm0));
	memset(&tf, 0, sizeof(tf));
	arch_frame_load(&tf, &r); /* must not #GP on the MXCSR */
	ST_CHECK_EQ(tf.vector, VECTOR_USER_LOADED);
	ST_CHECK_EQ(tf.cs, USER_CS);
	ST_CHECK_EQ(tf.ss, USER_SS);
	ST_CHECK_EQ(tf.rip, 0x401000);
	ST_CHECK_EQ(tf.rsp, 0x500000);
	ST_CHECK_EQ(tf.rdi, 7);
	ST_CHECK_EQ(tf.rbx, 0xb);
	ST_CHECK_EQ(tf.r15, 0xf);
	ST_CHECK_EQ(tf.rflags, USER_RFLAGS_KEEP | RFLAGS_IF | RFLAGS_FIXED);
	ST_CHECK(!(tf.rflags & (RFLAGS_IOPL | RFLAGS_NT | RFLAGS_VM | RFLAGS_RF |
				RFLAGS_AC | RFLAGS_TF | RFLAGS_ID)));
	ST_CHECK(arch_frame_from_user(&tf));
	/* Back out: the live FPU state is what was loaded, MXCSR mended. */
	arch_frame_save(&tf, &back);
	ST_CHECK_EQ(back.rip, 0x401000);
	ST_CHECK_EQ(back.rbx, 0xb);
	ST_CHECK_EQ(back.fs_base, 0);
	ST_CHECK_EQ(back.reserved, 0);
	ST_CHECK(fpu_u32(back.fpu, FXSAVE_MXCSR) != 0);
	ST_CHECK_EQ(fpu_u32(back.fpu, FXSAVE_MXCSR) & ~0xffffu, 0);
	ST_CHECK(memcmp(back.fpu + FXSAVE_XMM0, &xmm0, sizeof(xmm0)) == 0);
	/* Addresses outside the user half become FE_USER_TOP. */
	r.rip = 0x8000000000000000ull;
	r.rsp = 0xffff800000000000ull;
	arch_frame_load(&tf, &r);
	ST_CHECK_EQ(tf.rip, FE_USER_TOP);
	ST_CHECK_EQ(tf.rsp, FE_USER_TOP);
}

SELFTEST(arch_frame_load_misaligned_image)
{
	static uint8_t raw[sizeof(struct arch_user_regs) + 16] __attribute__((aligned(16)));
	static struct arch_user_regs r, back;
	struct arch_user_regs *odd = (struct arch_user_regs *)(raw + 8);
	struct trap_frame tf;
	uint64_t xmm0 = 0xfeedface;

	arch_user_regs_init(&r, 0x401000, 0x500000, 0, 0, 0);
	memcpy(r.fpu + FXSAVE_XMM0, &xmm0, sizeof(xmm0));
	memcpy(odd, &r, sizeof(r));
	arch_frame_load(&tf, odd); /* FXRSTOR64 of a misaligned image would #GP */
	arch_frame_save(&tf, odd);
	memcpy(&back, odd, sizeof(back));
	ST_CHECK(memcmp(back.fpu + FXSAVE_XMM0, &xmm0, sizeof(xmm0)) == 0);
	ST_CHECK_EQ(fpu_u32(back.fpu, FXSAVE_MXCSR), 0x1f80);
}

SELFTEST(arch_syscall_frame_accessors)
{
	struct arch_user_regs saved;
	struct trap_frame tf;

	memset(&tf, 0, sizeof(tf));
	tf.vector = VECTOR_SYSCALL;
	tf.cs = USER_CS;
	tf.rax = SYS_GETPID;
	tf.rdi = 10;
	tf.rsi = 11;
	tf.rdx = 12;
	tf.r10 = 13;
	tf.r8 = 14;
	tf.r9 = 15;
	tf.rcx = 99; /* SYSCALL's rip copy: never an argument */
	tf.rip = 0x401002;
	tf.rsp = 0x500000;
	ST_CHECK_EQ(arch_syscall_number(&tf), SYS_GETPID);
	for (unsigned i = 0; i < 6; i++)
		ST_CHECK_EQ(arch_syscall_arg(&tf, i), 10 + i);
	arch_frame_save(&tf, &saved); /* a thread blocked in the call */
	for (unsigned i = 0; i < 6; i++)
		ST_CHECK_EQ(arch_saved_syscall_arg(&saved, i), 10 + i);
	arch_syscall_set_result(&tf, -ERR_INVAL);
	ST_CHECK_EQ(tf.rax, (uint64_t)-ERR_INVAL);
	arch_syscall_restart(&tf);
	ST_CHECK_EQ(arch_frame_ip(&tf), 0x401000);
	ST_CHECK_EQ(arch_frame_sp(&tf), 0x500000);
	ST_CHECK(arch_frame_from_user(&tf));
	tf.cs = GDT_KERNEL_CODE;
	ST_CHECK(!arch_frame_from_user(&tf));
}

/* kernel_half_supervisor -- whether no entry of a table tree has the U bit
 * (level 4: a top-level table, from entry `first`) */
static bool kernel_half_supervisor(uint64_t table_phys, int level, unsigned first)
{
	const uint64_t *t = phys_to_virt(table_phys);

	for (unsigned i = first; i < 512; i++) {
		if (!(t[i] & PTE_PRESENT))
			continue;
		if (t[i] & PTE_USER)
			return false;
		if (level > 1 && !(t[i] & PTE_LARGE) &&
		    !kernel_half_supervisor(t[i] & PTE_ADDR, level - 1, 0))
			return false;
	}
	return true;
}

/* user_tables_are_open -- whether the tables above a user leaf are U|W|P */
static bool user_tables_are_open(uint64_t root, uint64_t va)
{
	const uint64_t *t = phys_to_virt(root);
	uint64_t open = PTE_PRESENT | PTE_WRITE | PTE_USER;

	for (int shift = 39; shift > 12; shift -= 9) {
		uint64_t e = t[(va >> shift) & 511];

		if ((e & open) != open)
			return false;
		t = phys_to_virt(e & PTE_ADDR);
	}
	return true;
}

SELFTEST(arch_user_page_tables)
{
	uint64_t before = frame_free_count(), kernel = arch_pt_root();
	uint64_t root, page[3], phys, top_page = FE_USER_TOP - FE_PAGE_SIZE;
	const uint64_t *top, *ktop = phys_to_virt(kernel);
	bool nx = rdmsr(MSR_EFER) & EFER_NXE;
	unsigned prot;

	ST_CHECK_EQ(arch_pt_create_user(&root), 0);
	top = phys_to_virt(root);
	ST_CHECK(memcmp(top + 256, ktop + 256, 256 * sizeof(uint64_t)) == 0);
	for (unsigned i = 0; i < 256; i++)
		ST_CHECK_EQ(top[i], 0);
	ST_CHECK(kernel_half_supervisor(root, 4, 256));
	for (unsigned i = 0; i < 3; i++)
		ST_CHECK_EQ(frame_alloc(&page[i]), 0);

	/* Map, look up, replace. */
	ST_CHECK_EQ(arch_pt_map_user_page(root, FE_USER_BASE, page[0], VM_READ | VM_WRITE), 0);
	ST_CHECK_EQ(arch_pt_map_user_page(root, FE_USER_BASE + FE_PAGE_SIZE, page[1],
					  VM_READ | VM_EXEC), 0);
	ST_CHECK_EQ(arch_pt_map_user_page(root, top_page, page[2], VM_READ), 0);
	ST_CHECK_EQ(arch_pt_lookup_user(root, FE_USER_BASE + 0x123, &phys, &prot), 0);
	ST_CHECK_EQ(phys, page[0] + 0x123);
	ST_CHECK_EQ(prot, nx ? VM_READ | VM_WRITE : VM_READ | VM_WRITE | VM_EXEC);
	ST_CHECK_EQ(arch_pt_lookup_user(root, FE_USER_BASE + FE_PAGE_SIZE, &phys, &prot), 0);
	ST_CHECK_EQ(prot, VM_READ | VM_EXEC);
	ST_CHECK_EQ(arch_pt_lookup_user(root, top_page, &phys, &prot), 0);
	ST_CHECK_EQ(phys, page[2]);
	ST_CHECK_EQ(prot, nx ? VM_READ : VM_READ | VM_EXEC);
	ST_CHECK(user_tables_are_open(root, FE_USER_BASE));
	ST_CHECK(user_tables_are_open(root, top_page));
	ST_CHECK(kernel_half_supervisor(root, 4, 256)); /* still */
	ST_CHECK_EQ(arch_pt_map_user_page(root, top_page, page[1], VM_READ | VM_WRITE), 0);
	ST_CHECK_EQ(arch_pt_lookup_user(root, top_page, &phys, &prot), 0);
	ST_CHECK_EQ(phys, page[1]);

	/* Bad requests are refused, never mapped. */
	ST_CHECK_EQ(arch_pt_map_user_page(root, FE_USER_BASE + 1, page[0], VM_READ), -ERR_INVAL);
	ST_CHECK_EQ(arch_pt_map_user_page(root, FE_USER_TOP, page[0], VM_READ), -ERR_INVAL);
	ST_CHECK_EQ(arch_pt_map_user_page(root, KERNEL_BASE, page[0], VM_READ), -ERR_INVAL);
	ST_CHECK_EQ(arch_pt_map_user_page(root, FE_USER_BASE, page[0] + 8, VM_READ), -ERR_INVAL);
	ST_CHECK_EQ(arch_pt_map_user_page(root, FE_USER_BASE, 1ull << 60, VM_READ), -ERR_INVAL);
	ST_CHECK_EQ(arch_pt_map_user_page(root, FE_USER_BASE, page[0], 0), -ERR_INVAL);
	ST_CHECK_EQ(arch_pt_map_user_page(root, FE_USER_BASE, page[0], VM_UNCACHED), -ERR_INVAL);
	ST_CHECK_EQ(arch_pt_lookup_user(root, FE_USER_BASE + 2 * FE_PAGE_SIZE, &phys, &prot),
		    -ERR_NOENT);
	ST_CHECK_EQ(arch_pt_lookup_user(root, 0x40000000000ull, &phys, &prot), -ERR_NOENT);
	ST_CHECK_EQ(arch_pt_lookup_user(root, KERNEL_BASE, &phys, &prot), -ERR_INVAL);

	/* Through the MMU: on the user tables, the user address reads the page. */
	*(volatile uint64_t *)phys_to_virt(page[0]) = 0x5eed;
	arch_user_pt_switch(root);
	ST_CHECK_EQ(arch_pt_root(), root);
	ST_CHECK_EQ(*(volatile uint64_t *)(uintptr_t)FE_USER_BASE, 0x5eed);

	/* Unmap one page (flushed: root is current), then everything. */
	arch_pt_unmap_user(root, FE_USER_BASE, FE_PAGE_SIZE);
	ST_CHECK_EQ(arch_pt_lookup_user(root, FE_USER_BASE, &phys, &prot), -ERR_NOENT);
	ST_CHECK_EQ(arch_pt_lookup_user(root, FE_USER_BASE + FE_PAGE_SIZE, &phys, &prot), 0);
	arch_pt_unmap_user(root, 0, FE_USER_TOP);
	ST_CHECK_EQ(arch_pt_lookup_user(root, FE_USER_BASE + FE_PAGE_SIZE, &phys, &prot),
		    -ERR_NOENT);
	ST_CHECK_EQ(arch_pt_lookup_user(root, top_page, &phys, &prot), -ERR_NOENT);

	/* Destroying the current address space returns to the kernel's. */
	arch_pt_destroy_user(root);
	ST_CHECK_EQ(arch_pt_root(), kernel);
	for (unsigned i = 0; i < 3; i++)
		frame_free(page[i]);
	ST_CHECK_EQ(frame_free_count(), before);
}

SELFTEST(arch_user_page_tables_free_every_table)
{
	uint64_t before = frame_free_count(), root, page;

	ST_CHECK_EQ(frame_alloc(&page), 0);
	ST_CHECK_EQ(arch_pt_create_user(&root), 0);
	/* Pages 512 GiB, 1 GiB and 2 MiB apart: tables at every level. */
	for (uint64_t va = FE_USER_BASE; va < FE_USER_TOP; va += 1ull << 39) {
		ST_CHECK_EQ(arch_pt_map_user_page(root, va, page, VM_READ), 0);
		ST_CHECK_EQ(arch_pt_map_user_page(root, va + (1ull << 30), page, VM_READ), 0);
		ST_CHECK_EQ(arch_pt_map_user_page(root, va + (2ull << 20), page, VM_READ), 0);
	}
	ST_CHECK(frame_free_count() < before - 256);
	arch_pt_destroy_user(root);
	frame_free(page);
	ST_CHECK_EQ(frame_free_count(), before);
}

SELFTEST(rtc_wall_clock)
{
	uint64_t ns = rtc_wall_ns();

	/* The date itself is the host's; only that it is one is tested. */
	ST_CHECK(ns >= 946684800ull * 1000000000ull); /* 2000-01-01 */
	ST_CHECK_EQ(ns % 1000000000ull, 0);
}
