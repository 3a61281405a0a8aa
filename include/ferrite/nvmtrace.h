/*
 * nvmtrace.h -- the NVM trace: what the nvmtrace plugin
 * (tools/nvmtrace) records of a run and the crash-state tools read, and
 * the marks by which the kernel built for tracing tells it what it does
 * (docs/persistence-model.md).
 *
 * A trace is a header, then the image as it was when QEMU started (an
 * NVT_INIT record for each page that is not all zero), then records in
 * the order the vCPU executed them, then an NVT_INSNS record and one
 * NVT_END record. Every record is a struct nvt_record; a store's
 * bytes (`size` of them, as they were right after the store) follow it,
 * padded with zeros to a multiple of 8. Offsets are from the start of the
 * NVM (the image file), not guest-physical addresses. Little-endian, as
 * the host and the guest are.
 *
 * What is recorded, for the NVM's range only: every store, whether it was
 * non-temporal, and every cache-line write-back (CLFLUSH, CLFLUSHOPT,
 * CLWB). Ordering points are recorded wherever they are executed
 * (SFENCE, MFENCE, a locked instruction, a serialising one): they order
 * the write-backs before them, whatever memory they touch. And, from the
 * kernel built for tracing only, its marks: each byte it sends to the
 * console (so a crash state knows what a person had seen by then) and
 * the windows of its persistence protocol (a commit, the logging of a
 * user page, the power-on's rollback).
 */
#ifndef NVMTRACE_TRACE_H
#define NVMTRACE_TRACE_H

#include <stdint.h>

#define NVT_MAGIC "FENVMTR1"

struct nvt_header {
	char magic[8];        /* NVT_MAGIC */
	uint64_t nvm_base;    /* guest-physical address of NVM offset 0 */
	uint64_t nvm_size;    /* bytes */
	uint64_t reserved[5]; /* zero */
};

enum nvt_kind {
	NVT_STORE = 1,        /* size bytes at offset; sub: NVT_STORE_* */
	NVT_WRITEBACK = 2,    /* the line at offset; sub: NVT_WB_* */
	NVT_FENCE = 3,        /* an ordering point; sub: NVT_FENCE_*; offset 0 */
	NVT_INIT = 5,         /* a page of the starting image at offset;
			       * NVT_PAGE bytes follow */
	NVT_END = 4,          /* the last record; offset: the kernel's flushes
			       * the plugin could not attribute (must be 0);
			       * pc: user-mode flushes, ignored (not attributable) */
	NVT_OUTPUT = 6,       /* a byte sent to the console: size 1, the byte
			       * follows (padded to 8); offset 0 */
	NVT_EVENT = 7,        /* the kernel entered or left a window; sub:
			       * enum nvt_event; offset 0 */
	NVT_INSNS = 8,        /* right before NVT_END: offset: the guest
			       * instructions executed (blocks entered times
			       * their length; ns under -icount shift=0) */
};

enum nvt_store { NVT_STORE_CACHED = 0, NVT_STORE_NONTEMPORAL = 1 };
enum nvt_writeback { NVT_WB_CLFLUSH = 0, NVT_WB_CLFLUSHOPT = 1, NVT_WB_CLWB = 2 };
enum nvt_fence {
	NVT_FENCE_SFENCE = 0,
	NVT_FENCE_MFENCE = 1,
	NVT_FENCE_LOCKED = 2,   /* LOCK prefix, or XCHG with memory */
	NVT_FENCE_SERIAL = 3,   /* CPUID, IRET, WRMSR, MOV to CR, LGDT, ... */
};

/* The windows the kernel marks: each has a BEGIN (even) and an END (odd). */
enum nvt_event {
	NVT_EVENT_COMMIT_BEGIN = 0,   /* epoch_commit (kernel/epoch/epoch.c) */
	NVT_EVENT_COMMIT_END = 1,
	NVT_EVENT_PAGE_LOG_BEGIN = 2, /* a write fault logs a user page (uvm.c) */
	NVT_EVENT_PAGE_LOG_END = 3,
	NVT_EVENT_ROLLBACK_BEGIN = 4, /* power-on opens the heap: recovery */
	NVT_EVENT_ROLLBACK_END = 5,
	NVT_EVENT_PMEM_FLUSH_BEGIN = 6, /* a virtio-pmem FLUSH request sent ... */
	NVT_EVENT_PMEM_FLUSH_END = 7,   /* ... and its answer taken (virtio_pmem.c) */
};

struct nvt_record {
	uint8_t kind;     /* enum nvt_kind */
	uint8_t sub;      /* its kind's enum */
	uint8_t size;     /* NVT_STORE: bytes stored (1 to 64); else 0 */
	uint8_t vcpu;
	uint32_t reserved; /* zero */
	uint64_t offset;  /* into the NVM */
	uint64_t pc;      /* the instruction's virtual address */
};

_Static_assert(sizeof(struct nvt_header) == 64, "nvt_header is 64 bytes");
_Static_assert(sizeof(struct nvt_record) == 24, "nvt_record is 24 bytes");

#define NVT_LINE 64   /* bytes in a cache line */
#define NVT_PAGE 4096 /* bytes of an NVT_INIT record's page */

/*
 * The marks. A version 1 plugin sees the address of a load but no register,
 * so the kernel built for tracing says things by loading from a table: one
 * instruction, `ds movzbl ENTRY, %eax` (the DS prefix, which nothing else
 * puts on a MOVZX, is how the plugin knows a mark), from the table of
 * NVT_MARK_ENTRIES bytes aligned to NVT_MARK_ALIGN, so that the address's
 * low bits say which entry: NVT_MARK_OUTPUT + byte, NVT_MARK_EVENT + event.
 */
#define NVT_MARK_OUTPUT 0    /* 256 entries: a console byte */
#define NVT_MARK_EVENT 256   /* an enum nvt_event */
#define NVT_MARK_ENTRIES 512
#define NVT_MARK_ALIGN 1024

/* nvt_padded -- the bytes a store's data takes in the trace */
static inline uint64_t nvt_padded(uint64_t size)
{
	return (size + 7) & ~(uint64_t)7;
}

#endif
