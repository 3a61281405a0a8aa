/*
 * nvmtrace.c -- a QEMU TCG plugin that records what a guest does to its
 * NVM: every store (with the bytes stored), every cache-line write-back,
 * every ordering point. The trace (include/ferrite/nvmtrace.h) is what the crash-state
 * generator and the write accounting read (docs/persistence-model.md).
 *
 *   qemu-system-x86_64 ... -plugin build/nvmtrace.so,out=TRACE,image=IMAGE,
 *                                  base=0x100000000,size=33554432
 *
 * tools/run-qemu --trace-nvm TRACE passes all of it.
 *
 * Three things TCG does not hand a plugin, and how they are recovered:
 *
 *  - The value of a store. A memory callback gets the address, after the
 *    access. The NVM is a file QEMU maps shared (memory-backend-file,
 *    share=on), so the plugin maps the same file and reads the bytes the
 *    store just left there. One vCPU, so no other store can come between.
 *  - The address a write-back instruction flushes. CLFLUSH, CLFLUSHOPT and
 *    CLWB are not memory accesses to TCG, and a version 1 plugin cannot
 *    read registers. The kernel built for tracing (FERRITE_NVM_TRACE,
 *    kernel/arch/x86_64/flush.c, its one flush primitive) loads a byte of
 *    each line right after flushing it; the plugin watches the load that
 *    follows each kernel write-back in a block and records the write-back
 *    of that line. A kernel write-back without that load is counted
 *    (NVT_END), and a trace with any is refused by its readers; user
 *    programs' write-backs are counted and ignored (treated as never
 *    done, which can only make the model stricter).
 *  - Ordering points. They are instructions: decoded once, at
 *    translation, with a callback on each execution.
 *  - What the kernel does: the bytes it sends to the console, the windows
 *    of its protocol. Port I/O is not a memory access either; the kernel
 *    built for tracing says them with marks (include/ferrite/nvmtrace.h:
 *    a DS-prefixed MOVZX load from a table, whose address says the byte
 *    or the event), recorded as NVT_OUTPUT and NVT_EVENT.
 *  - More than one memory callback on an instruction. QEMU 7.2 injects
 *    only the last one registered and calls it for loads and stores
 *    alike, so each instruction gets one, which asks
 *    qemu_plugin_mem_is_store.
 *  - Guest-physical addresses. QEMU 7.2's qemu_plugin_hwaddr_phys_addr
 *    returns an offset in QEMU's own RAM-block space, not the guest-
 *    physical address (later QEMUs fixed it). The kernel reaches all of
 *    physical memory at HHDM_BASE + address (kernel/mm/phys.h), so the
 *    first access of the kernel there to the NVM's range tells the offset
 *    of the NVM's block; from then on any access, the kernel's or a user
 *    program's through its own mapping, is placed by that offset. The
 *    kernel touches the NVM before any program can; the trace's replay
 *    check (the final image rebuilt from the trace, byte for byte) is
 *    what proves the placement.
 *  - A write-back that ends its block. TCG may end a block after any
 *    instruction (always under -singlestep; under -icount wherever the
 *    instruction budget to the next timer deadline runs out), so the
 *    load that tells a write-back's line may be the first instruction of
 *    the next block. Such a write-back is left pending, keyed by the
 *    address of the instruction after it, and the first load of a block
 *    at that address completes it. The kernel flushes with interrupts
 *    off, so that block is the very next one: nothing comes between the
 *    write-back and the record of it. (Were a handler to run first, its
 *    fences would find the write-back missing -- stricter -- but a store
 *    of its own to the same line would be taken as written back too.)
 *  - Guest time. A version 1 plugin cannot read QEMU's clock; it counts
 *    the instructions of every block entered (NVT_INSNS), which under
 *    -icount shift=0 (tools/run-qemu --icount 0) are nanoseconds of the
 *    guest's busy time.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin-api.h"
#include "ferrite/nvmtrace.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_HALF 0xffff800000000000ull
#define HHDM_BASE 0xffff800000000000ull /* kernel/mm/phys.h */
#define HHDM_SIZE (1ull << 46)
#define PAGE 4096ull
#define OUT_BUFFER (4u << 20)

/* What an instruction is to the persistence model. */
enum role { ROLE_NONE, ROLE_STORE_NT, ROLE_WRITEBACK, ROLE_FENCE, ROLE_MARK };

struct decoded {
	enum role role;
	uint8_t sub; /* enum nvt_writeback or nvt_fence */
};

static FILE *out;
static char *out_buf;
static const uint8_t *nvm;      /* the image, mapped shared, read-only */
static uint64_t nvm_base, nvm_size;
static uint64_t block_start;    /* the NVM's offset 0 in QEMU's RAM-block space */
static bool block_known;
static uint64_t kernel_writebacks, marked_writebacks, user_writebacks;
static uint64_t guest_insns;    /* instructions of every block entered */

/* Kernel write-backs that ended their block, waiting for the load at
 * the address after them (several if an interrupt handler's write-back
 * ends a block too). */
#define PENDING_MAX 8
struct pending_writeback {
	uint64_t next_pc;  /* the address of the load that tells the line; 0: free */
	uint64_t pc;
	uint8_t sub;
};
static struct pending_writeback pending[PENDING_MAX];

/* --- the trace ------------------------------------------------------------ */

static void emit(uint8_t kind, uint8_t sub, uint8_t size, unsigned vcpu,
		 uint64_t offset, uint64_t pc, const void *data)
{
	static const uint8_t zeros[8];
	struct nvt_record r = {
		.kind = kind, .sub = sub, .size = size, .vcpu = (uint8_t)vcpu,
		.offset = offset, .pc = pc,
	};

	fwrite(&r, sizeof(r), 1, out);
	if (size) {
		fwrite(data, size, 1, out);
		fwrite(zeros, nvt_padded(size) - size, 1, out);
	}
}

/* A callback's user data: the instruction's address, what it is (sub,
 * below 16) and, for a write-back, its length in bytes. */
static void *site(uint64_t pc, uint8_t sub)
{
	return (void *)(uintptr_t)((pc << 8) | sub);
}

static void *site_sized(uint64_t pc, uint8_t sub, size_t size)
{
	return site(pc, (uint8_t)(sub | size << 4));
}

static uint64_t site_pc(void *udata)
{
	/* The top byte of a canonical address went; sign-extend bit 55. */
	return (uint64_t)((int64_t)(uintptr_t)udata >> 8);
}

static uint8_t site_sub(void *udata)
{
	return (uint8_t)(uintptr_t)udata & 0xf;
}

static uint8_t site_size(void *udata)
{
	return (uint8_t)(uintptr_t)udata >> 4;
}

/* nvm_offset -- the NVM offset a guest access lands on, or -1 */
static int64_t nvm_offset(qemu_plugin_meminfo_t info, uint64_t vaddr)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	uint64_t ram, gpa = vaddr - HHDM_BASE;

	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return -1;
	ram = qemu_plugin_hwaddr_phys_addr(hw);
	if (!block_known && vaddr >= HHDM_BASE && gpa < HHDM_SIZE &&
	    gpa - nvm_base < nvm_size) {
		block_start = ram - (gpa - nvm_base);
		block_known = true;
	}
	if (!block_known || ram - block_start >= nvm_size)
		return -1;
	return (int64_t)(ram - block_start);
}

/* --- callbacks at execution ------------------------------------------------ */

static void on_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		     void *udata)
{
	uint64_t size = 1ull << qemu_plugin_mem_size_shift(info);
	uint64_t done = 0;

	if (!qemu_plugin_mem_is_store(info))
		return;

	/* A store across a page boundary may land on two unrelated frames. */
	while (done < size) {
		uint64_t va = vaddr + done;
		uint64_t span = PAGE - (va & (PAGE - 1));
		int64_t off = nvm_offset(info, va);

		if (span > size - done)
			span = size - done;
		if (off >= 0) {
			if ((uint64_t)off + span > nvm_size)
				span = nvm_size - (uint64_t)off;
			emit(NVT_STORE, site_sub(udata), (uint8_t)span, vcpu,
			     (uint64_t)off, site_pc(udata), nvm + off);
		}
		done += span;
	}
}

/* record_writeback -- the write-back at pc, of the line a load at vaddr read */
static void record_writeback(unsigned int vcpu, qemu_plugin_meminfo_t info,
			     uint64_t vaddr, uint64_t pc, uint8_t sub)
{
	int64_t off = nvm_offset(info, vaddr);

	marked_writebacks++;
	if (off >= 0)
		emit(NVT_WRITEBACK, sub, 0, vcpu,
		     (uint64_t)off & ~(uint64_t)(NVT_LINE - 1), pc, NULL);
}

static void on_writeback_mark(unsigned int vcpu, qemu_plugin_meminfo_t info,
			      uint64_t vaddr, void *udata)
{
	if (qemu_plugin_mem_is_store(info)) { /* not a mark: a store, recorded at the write-back's pc */
		on_access(vcpu, info, vaddr, site(site_pc(udata), NVT_STORE_CACHED));
		return;
	}
	record_writeback(vcpu, info, vaddr, site_pc(udata), site_sub(udata));
}

/* on_block_start -- the first access of a block: the load that completes
 * a pending write-back, or an ordinary access */
static void on_block_start(unsigned int vcpu, qemu_plugin_meminfo_t info,
			   uint64_t vaddr, void *udata)
{
	uint64_t pc = site_pc(udata);

	if (!qemu_plugin_mem_is_store(info)) {
		for (size_t i = 0; i < PENDING_MAX; i++) {
			if (pending[i].next_pc == pc) {
				pending[i].next_pc = 0;
				record_writeback(vcpu, info, vaddr, pending[i].pc, pending[i].sub);
				return;
			}
		}
	}
	on_access(vcpu, info, vaddr, udata);
}

static void on_writeback(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	if (site_pc(udata) >= KERNEL_HALF)
		kernel_writebacks++;
	else
		user_writebacks++;
}

/* on_writeback_ending_block -- a kernel write-back whose load comes in
 * another block: leave it pending (none free: it stays unattributed) */
static void on_writeback_ending_block(unsigned int vcpu, void *udata)
{
	uint64_t pc = site_pc(udata);

	on_writeback(vcpu, udata);
	for (size_t i = 0; i < PENDING_MAX; i++) {
		if (!pending[i].next_pc) {
			pending[i] = (struct pending_writeback){
				.next_pc = pc + site_size(udata), .pc = pc,
				.sub = site_sub(udata),
			};
			return;
		}
	}
}

/* on_mark -- a kernel mark: the entry of the table it loads says what */
static void on_mark(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		    void *udata)
{
	uint64_t entry = vaddr & (NVT_MARK_ALIGN - 1);
	uint8_t byte = (uint8_t)entry;

	if (qemu_plugin_mem_is_store(info) || entry >= NVT_MARK_ENTRIES)
		return;
	if (entry < NVT_MARK_EVENT)
		emit(NVT_OUTPUT, 0, 1, vcpu, 0, site_pc(udata), &byte);
	else
		emit(NVT_EVENT, (uint8_t)(entry - NVT_MARK_EVENT), 0, vcpu, 0,
		     site_pc(udata), NULL);
}

static void on_fence(unsigned int vcpu, void *udata)
{
	emit(NVT_FENCE, site_sub(udata), 0, vcpu, 0, site_pc(udata), NULL);
}

/* --- decoding, at translation ---------------------------------------------- */

/* decode -- what an x86-64 instruction is to the model (the few that matter) */
static struct decoded decode(const uint8_t *b, size_t n)
{
	struct decoded none = { ROLE_NONE, 0 };
	bool lock = false, opsize = false, rep = false;
	uint8_t op, modrm, mod, reg;
	static const char segment_or_address[] = { 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65, 0x67 };
	size_t i = 0;

	if (n >= 4 && b[0] == 0x3e && b[1] == 0x0f && b[2] == 0xb6 && (b[3] >> 6) != 3)
		return (struct decoded){ ROLE_MARK, 0 }; /* ds movzbl MEM, REG */
	for (; i < n; i++) { /* legacy prefixes */
		if (b[i] == 0xf0)
			lock = true;
		else if (b[i] == 0x66)
			opsize = true;
		else if (b[i] == 0xf2 || b[i] == 0xf3)
			rep = true;
		else if (!memchr(segment_or_address, b[i], sizeof(segment_or_address)))
			break;
	}
	if (lock)
		return (struct decoded){ ROLE_FENCE, NVT_FENCE_LOCKED };
	if (i < n && (b[i] & 0xf0) == 0x40)
		i++; /* REX */
	if (i >= n)
		return none;
	op = b[i++];
	mod = (i < n ? b[i] : 0) >> 6;
	if ((op == 0x86 || op == 0x87) && mod != 3)
		return (struct decoded){ ROLE_FENCE, NVT_FENCE_LOCKED }; /* XCHG mem */
	if (op == 0xcf)
		return (struct decoded){ ROLE_FENCE, NVT_FENCE_SERIAL }; /* IRET */
	if (op == 0xc5 && i + 2 < n) /* two-byte VEX: map 0F */
		return (b[i + 1] == 0x2b || b[i + 1] == 0xe7) && (b[i + 2] >> 6) != 3 ?
			(struct decoded){ ROLE_STORE_NT, 0 } : none;
	if (op == 0xc4 && i + 3 < n) /* three-byte VEX */
		return (b[i] & 0x1f) == 1 && (b[i + 2] == 0x2b || b[i + 2] == 0xe7) &&
		       (b[i + 3] >> 6) != 3 ? (struct decoded){ ROLE_STORE_NT, 0 } : none;
	if (op != 0x0f || i >= n)
		return none;
	op = b[i++];
	modrm = i < n ? b[i] : 0;
	mod = modrm >> 6;
	reg = (modrm >> 3) & 7;
	switch (op) {
	case 0xae:
		if (rep)
			return none; /* F3 0F AE: RDFSBASE and friends */
		if (mod == 3 && reg == 7)
			return (struct decoded){ ROLE_FENCE, NVT_FENCE_SFENCE };
		if (mod == 3 && reg == 6)
			return (struct decoded){ ROLE_FENCE, NVT_FENCE_MFENCE };
		if (mod != 3 && reg == 7)
			return (struct decoded){ ROLE_WRITEBACK,
						 opsize ? NVT_WB_CLFLUSHOPT : NVT_WB_CLFLUSH };
		if (mod != 3 && reg == 6 && opsize)
			return (struct decoded){ ROLE_WRITEBACK, NVT_WB_CLWB };
		return none;
	case 0xc3: /* MOVNTI */
	case 0x2b: /* MOVNTPS, MOVNTPD */
	case 0xe7: /* MOVNTQ, MOVNTDQ */
		return mod != 3 ? (struct decoded){ ROLE_STORE_NT, 0 } : none;
	case 0xa2: /* CPUID */
	case 0x30: /* WRMSR */
	case 0x22: /* MOV to CRn */
	case 0x08: /* INVD */
	case 0x09: /* WBINVD */
		return (struct decoded){ ROLE_FENCE, NVT_FENCE_SERIAL };
	case 0x01: /* LGDT, LIDT; SERIALIZE */
		if ((mod != 3 && (reg == 2 || reg == 3)) || modrm == 0xe8)
			return (struct decoded){ ROLE_FENCE, NVT_FENCE_SERIAL };
		return none;
	case 0x00: /* LLDT, LTR */
		return reg == 2 || reg == 3 ? (struct decoded){ ROLE_FENCE, NVT_FENCE_SERIAL }
					    : none;
	default:
		return none;
	}
}

#define TB_MAX_INSNS 512 /* TCG_MAX_INSNS */

/* on_translate -- instrument a block: every store; the ordering points and
 * write-backs; the load right after each kernel write-back, which tells
 * its line; and the kernel's marks */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct decoded d[TB_MAX_INSNS];
	uint64_t pcs[TB_MAX_INSNS];

	(void)id;
	if (n > TB_MAX_INSNS)
		n = TB_MAX_INSNS;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		pcs[i] = qemu_plugin_insn_vaddr(insn);
		d[i] = decode(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn));
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		/* One memory callback per instruction, for reads and writes:
		 * QEMU 7.2 injects only the last one registered and calls it
		 * whatever the direction, so the callback asks. */
		uint8_t store = d[i].role == ROLE_STORE_NT ? NVT_STORE_NONTEMPORAL :
							     NVT_STORE_CACHED;

		if (d[i].role == ROLE_MARK && pcs[i] >= KERNEL_HALF)
			qemu_plugin_register_vcpu_mem_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, site(pcs[i], 0));
		else if (i > 0 && d[i - 1].role == ROLE_WRITEBACK && pcs[i - 1] >= KERNEL_HALF)
			qemu_plugin_register_vcpu_mem_cb(insn, on_writeback_mark,
							 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
							 site(pcs[i - 1], d[i - 1].sub));
		else
			qemu_plugin_register_vcpu_mem_cb(insn, i ? on_access : on_block_start,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, site(pcs[i], store));
		if (d[i].role == ROLE_FENCE)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_fence,
							       QEMU_PLUGIN_CB_NO_REGS,
							       site(pcs[i], d[i].sub));
		if (d[i].role == ROLE_WRITEBACK && i + 1 == n && pcs[i] >= KERNEL_HALF)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_writeback_ending_block, QEMU_PLUGIN_CB_NO_REGS,
				site_sized(pcs[i], d[i].sub, qemu_plugin_insn_size(insn)));
		else if (d[i].role == ROLE_WRITEBACK)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_writeback,
							       QEMU_PLUGIN_CB_NO_REGS,
							       site(pcs[i], d[i].sub));
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &guest_insns, n);
}

/* --- setup and teardown ---------------------------------------------------- */

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	struct nvt_record end = {
		.kind = NVT_END,
		.offset = kernel_writebacks - marked_writebacks,
		.pc = user_writebacks,
	};

	(void)id;
	(void)udata;
	emit(NVT_INSNS, 0, 0, 0, guest_insns, 0, NULL);
	fwrite(&end, sizeof(end), 1, out);
	if (fclose(out) != 0)
		fprintf(stderr, "nvmtrace: writing the trace: %s\n", strerror(errno));
}

/* write_start_image -- the image before the guest runs: its non-zero pages */
static void write_start_image(void)
{
	static const uint8_t zero_page[NVT_PAGE];

	for (uint64_t off = 0; off + NVT_PAGE <= nvm_size; off += NVT_PAGE) {
		struct nvt_record r = { .kind = NVT_INIT, .offset = off };

		if (!memcmp(nvm + off, zero_page, NVT_PAGE))
			continue;
		fwrite(&r, sizeof(r), 1, out);
		fwrite(nvm + off, NVT_PAGE, 1, out);
	}
}

static int refuse(const char *why, const char *what)
{
	fprintf(stderr, "nvmtrace: %s%s%s\n", why, what ? ": " : "", what ? what : "");
	return -1;
}

static int map_image(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	void *m;

	if (fd < 0)
		return refuse(strerror(errno), path);
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < nvm_size) {
		close(fd);
		return refuse("the image is smaller than size=", path);
	}
	m = mmap(NULL, nvm_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return refuse(strerror(errno), path);
	nvm = m;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *out_path = NULL, *image = NULL;
	struct nvt_header h = { .magic = NVT_MAGIC };

	if (!info->system_emulation || strcmp(info->target_name, "x86_64") != 0)
		return refuse("only x86_64 system emulation is traced", NULL);
	if (info->system.smp_vcpus != 1)
		return refuse("one vCPU only: the model has no cross-CPU ordering yet", NULL);
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		const char *v = eq ? eq + 1 : "";

		if (!strncmp(argv[i], "out=", 4))
			out_path = v;
		else if (!strncmp(argv[i], "image=", 6))
			image = v;
		else if (!strncmp(argv[i], "base=", 5))
			nvm_base = strtoull(v, NULL, 0);
		else if (!strncmp(argv[i], "size=", 5))
			nvm_size = strtoull(v, NULL, 0);
		else
			return refuse("unknown argument (out=, image=, base=, size=)", argv[i]);
	}
	if (!out_path || !image || !nvm_base || !nvm_size)
		return refuse("needs out=TRACE,image=PATH,base=ADDR,size=BYTES", NULL);
	if (map_image(image) != 0)
		return -1;
	out = fopen(out_path, "wb");
	if (!out)
		return refuse(strerror(errno), out_path);
	out_buf = malloc(OUT_BUFFER);
	if (out_buf)
		setvbuf(out, out_buf, _IOFBF, OUT_BUFFER);
	h.nvm_base = nvm_base;
	h.nvm_size = nvm_size;
	fwrite(&h, sizeof(h), 1, out);
	write_start_image();
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
