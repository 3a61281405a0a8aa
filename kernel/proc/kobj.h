/*
 * kobj.h -- the kernel's persistent objects: their layouts in the heap.
 *
 * Every piece of kernel state that must survive a power cut is one of these
 * structures, stored as the data of a small objstore object (object.h) of
 * the matching type. Nothing here holds a pointer: objects refer to each
 * other by object id, which never changes and is never reused. The layouts
 * are part of the heap format (docs/format.md, "Kernel objects"); each
 * starts with a magic so a checker or debugger can tell them apart, and a
 * wrong magic is treated as corruption, never trusted.
 *
 * Who writes: only the kernel, inside the running epoch, after logging the
 * bytes it changes (heap_log). Readers may be any kernel code.
 *
 *   kroot     OS_TYPE_KERNEL, app root 0: the process table, clocks, console
 *   kconsole  OS_TYPE_KERNEL: the console's persistent output and input queues
 *   kproc     OS_TYPE_PROCESS: identity, links to its thread, address space,
 *             handle table and code object, and how it ended
 *   kthread   OS_TYPE_THREAD: the user register file and FPU state, and
 *             "runnable" or "blocked in call N on X" (restarted when woken)
 *   kaspace   OS_TYPE_ASPACE: the mappings, sorted by address
 *   khandles  OS_TYPE_HANDLES: the handle table
 *   kchannel  OS_TYPE_CHANNEL: two bounded message queues (one per direction),
 *             each an anonymous object of FE_CHAN_QUEUE slots of one page
 *
 * Reference counts (os_obj_ref): a process object is held by its process
 * table slot while it runs and by every handle to it; a thread, address
 * space and handle table by their process; a mapped object by each mapping;
 * any object by each handle, each catalogue name and each message carrying it.
 * The last reference is never dropped: it passes to the kernel root's reap
 * queue, which holds it until the object is deleted at a safe point
 * (kobj_reap), a step at a time: deleting a large object may take more log
 * than one epoch allows. So no object ever has a refcount of 0.
 */
#ifndef PROC_KOBJ_H
#define PROC_KOBJ_H

#include <stdint.h>

#include "arch/arch.h"
#include "ferrite/syscall.h"

#define KROOT_MAGIC 0x544f4f52u    /* "ROOT" */
#define KPROC_MAGIC 0x434f5250u    /* "PROC" */
#define KTHREAD_MAGIC 0x44524854u  /* "THRD" */
#define KASPACE_MAGIC 0x50534153u  /* "SASP" */
#define KHANDLES_MAGIC 0x534c4448u /* "HDLS" */
#define KCHANNEL_MAGIC 0x4e414843u /* "CHAN" */
#define KCONSOLE_MAGIC 0x534e4f43u /* "CONS" */

#define KROOT_VERSION 2

#define KROOT_MAX_PROCS 192
#define KCONSOLE_LINE_MAX 253

struct kroot {
	uint32_t magic;
	uint32_t version;              /* KROOT_VERSION */
	uint64_t next_pid;             /* pids start at 1 and are never reused */
	uint64_t power_ons;            /* this one included */
	uint64_t commits;              /* epochs committed by the kernel */
	uint64_t mono_ns;              /* FE_CLOCK_MONOTONIC at the last commit */
	uint64_t console_fg_pid;       /* Ctrl-C kills this process; 0: none */
	uint16_t line_len;             /* console line being edited (FE_CONSOLE_LINE) */
	uint8_t line_ready;            /* the line is complete, not yet returned */
	char line[KCONSOLE_LINE_MAX];
	uint64_t reap_queue;           /* anonymous object: ring of KREAP_CAPACITY ids */
	uint64_t reap_head;            /* ring index of the oldest id */
	uint64_t reap_count;           /* ids waiting to be deleted */
	uint64_t procs[KROOT_MAX_PROCS]; /* process object ids by slot; 0: free */
	uint64_t console;              /* the kconsole object */
	uint32_t running_slot;         /* the slot running at the last commit; it runs first after a power-on */
	uint32_t reserved;
};

/*
 * The console's queues (console_io.c): two rings in anonymous objects,
 * addressed by byte counts that only grow (position = count % ring size).
 *
 * Output commit: bytes written in epoch E are appended at out_queued and
 * sent to the UART only after E commits. out_sent counts the bytes sent;
 * it alone is written outside the log: stored, flushed and fenced right
 * after each line goes out, so it never rolls back, release never sends a
 * committed byte twice, and after a power cut at most the line that was
 * being sent goes out again. Nothing may ever log a range covering it.
 *
 * Input: typed bytes are appended at in_queued (logged) and consumed at
 * in_read (logged), so input read in epoch E is consumed durably with E.
 *
 * Invariants: out_sent <= out_queued as committed; out_queued - out_sent
 * <= KCONSOLE_OUT_BYTES; in_read <= in_queued; in_queued - in_read <=
 * KCONSOLE_IN_BYTES.
 */
#define KCONSOLE_OUT_BYTES (64u << 10)
#define KCONSOLE_IN_BYTES (4u << 10)

struct kconsole {
	uint32_t magic;
	uint32_t reserved;
	uint64_t out_ring;             /* OS_TYPE_ANON, KCONSOLE_OUT_BYTES */
	uint64_t in_ring;              /* OS_TYPE_ANON, KCONSOLE_IN_BYTES */
	uint64_t out_queued;           /* bytes ever queued for output */
	uint64_t in_queued;            /* bytes ever typed and kept */
	uint64_t in_read;              /* bytes ever consumed */
	uint64_t out_sent;             /* durable, never logged */
};

/* Objects whose last reference went wait in the reap queue until deleted
 * (kobj_reap) at a safe point. One kernel entry releases at most a few
 * hundred objects (a process's handles and mappings) and one reap step
 * queues at most 2 * FE_CHAN_QUEUE + 2, so this never fills. */
#define KREAP_CAPACITY 4096u

enum kproc_state {
	KPROC_ALIVE = 1,
	KPROC_EXITED = 2,              /* exit holds how it ended */
};

struct kproc {
	uint32_t magic;
	uint32_t state;                /* enum kproc_state */
	uint64_t pid;
	uint64_t parent_pid;           /* 0: started by the kernel */
	uint64_t thread;               /* object ids; 0 once exited */
	uint64_t aspace;
	uint64_t handles;
	uint64_t code;                 /* the code object it runs (a reference) */
	uint32_t slot;                 /* index in kroot.procs while alive */
	uint32_t reserved;
	uint64_t cpu_ns;               /* running time charged */
	char name[32];                 /* argv[0], NUL-terminated */
	struct fe_exit_info exit;      /* valid once KPROC_EXITED */
};

enum kthread_state {
	KTHREAD_RUNNABLE = 1,
	KTHREAD_BLOCKED = 2,
};

enum kwait {
	KWAIT_NONE = 0,
	KWAIT_SLEEP = 1,               /* until wake_ns (monotonic) */
	KWAIT_PROCESS = 2,             /* until process `wait_obj` exits */
	KWAIT_CHANNEL = 3,             /* until channel `wait_obj` changes */
	KWAIT_CONSOLE = 4,             /* until console input arrives */
	KWAIT_CONSOLE_OUT = 5,         /* until queued console output was sent */
};

struct kthread {
	uint32_t magic;
	uint32_t state;                /* enum kthread_state */
	uint64_t proc;                 /* its process object id */
	uint32_t wait;                 /* enum kwait, when blocked */
	uint32_t blocked_call;         /* SYS_ number re-issued when woken */
	uint64_t wait_obj;
	uint64_t wake_ns;
	uint64_t reserved[3];
	struct arch_user_regs regs;    /* saved when the thread is switched out */
};

/* One mapping: [start, end) shows the object from byte `offset`. */
struct kmapping {
	uint64_t start, end;           /* page aligned user addresses */
	uint64_t object;               /* the object shown (a reference) */
	uint64_t offset;               /* object byte at `start`, page aligned */
	uint64_t limit;                /* private: object bytes at or past this offset read as zero */
	uint64_t shadow;               /* private: anonymous object with this mapping's copies; 0 none yet */
	uint32_t prot;                 /* FE_PROT_* now */
	uint16_t flags;                /* FE_MAP_SHARED or FE_MAP_PRIVATE */
	uint16_t maxprot;              /* what protect may grant */
};

#define KASPACE_MAX_MAPS 32

struct kaspace {
	uint32_t magic;
	uint32_t count;
	uint64_t reserved;
	struct kmapping map[KASPACE_MAX_MAPS]; /* sorted by start, disjoint */
};

struct khandle {
	uint64_t object;               /* 0: free slot */
	uint32_t gen;                  /* generation, part of the handle value: 1..KHANDLE_GEN_MAX */
	uint8_t rights;                /* FE_RIGHT_* */
	uint8_t end;                   /* channels: which end (0 or 1) */
	uint16_t reserved;
};

#define KHANDLE_GEN_MAX 0x7fffffu     /* handle values stay positive int32 */

struct khandles {
	uint32_t magic;
	uint32_t count;                /* slots in use */
	uint64_t reserved;
	struct khandle slot[FE_HANDLE_SLOTS];
};

/* A message slot: this header, then the bytes, in one page of a queue object. */
struct kmsg_header {
	uint32_t len;
	uint32_t rights;               /* of the passed object */
	uint64_t object;               /* passed object (a reference), 0 none */
	uint8_t end;                   /* passed channel end */
	uint8_t reserved[7];
};

struct kchan_queue {
	uint64_t object;               /* OS_TYPE_ANON, FE_CHAN_QUEUE pages */
	uint32_t head;                 /* slot of the oldest message */
	uint32_t count;                /* messages queued */
};

struct kchannel {
	uint32_t magic;
	uint32_t open[2];              /* handles to each end, and messages carrying it */
	uint32_t reserved;
	struct kchan_queue queue[2];   /* queue[e]: messages sent by end e */
};

_Static_assert(sizeof(struct kroot) <= 2048, "kroot fits a small block");
_Static_assert(sizeof(struct kconsole) <= 2048, "kconsole fits a small block");
_Static_assert(sizeof(struct kproc) <= 2048, "kproc fits a small block");
_Static_assert(sizeof(struct kthread) <= 2048, "kthread fits a small block");
_Static_assert(sizeof(struct kaspace) <= 2048, "kaspace fits a small block");
_Static_assert(sizeof(struct khandles) <= 2048, "khandles fits a small block");
_Static_assert(__builtin_offsetof(struct kthread, regs) % 16 == 0,
	       "FXSAVE needs 16-byte alignment");

#endif
