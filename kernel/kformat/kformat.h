/*
 * kformat.h -- the kernel's persistent format: the layouts of its objects
 * in the heap.
 *
 * This is the kernel's half of the heap format, as objstore's format.h is
 * the heap's own: the kernel, its power-on checker (kcheck.c, beside this
 * header) and objtool all read these layouts; the gdb helpers read them
 * from the kernel's debug info, and the tests' image reader from what the
 * compiler makes of this header (tools/heapformat/describe.c): none copies
 * an offset. So every structure's size and every field's offset is pinned
 * below with an exact _Static_assert (KFORMAT_SIZE, KFORMAT_AT): a change
 * to a layout fails to compile until the assert, docs/format.md ("Kernel
 * objects") and KROOT_VERSION are changed with it. The ABI structures
 * embedded here (struct fe_exit_info, struct arch_user_regs) are pinned
 * where they are defined. This module depends on nothing of the kernel but
 * those two headers: it builds for the host too.
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
 *   kclock    OS_TYPE_KERNEL, app root OS_APP_ROOT_MACHINE: the clock rates
 *             measured on this kind of machine (core/time.c)
 *   klink     OS_TYPE_KERNEL, app root OS_APP_ROOT_LINK: the host link's
 *             powers -- a handle to it is how the link's service reads and
 *             writes the link -- and the program the kernel trusts to run
 *             as that service (hostlink/hostlink.c)
 *   kproc     OS_TYPE_PROCESS: identity, links to its first thread, address
 *             space, handle table and code object, and how it ended
 *   kthread   OS_TYPE_THREAD: the user register file and FPU state,
 *             "runnable" or "blocked in call N on X" (restarted when woken)
 *             or "exited with S" (until joined), and the link to the next
 *             thread of its process
 *   kaspace   OS_TYPE_ASPACE: the mappings, sorted by address (past the
 *             first 32, in an anonymous object it holds)
 *   khandles  OS_TYPE_HANDLES: the handle table
 *   kchannel  OS_TYPE_CHANNEL: two bounded message queues (one per direction),
 *             each an anonymous object of FE_CHAN_QUEUE slots of one page
 *   klinux    OS_TYPE_KERNEL: a Linux program's state (kernel/linux/):
 *             its descriptors, program break, directories, terminal modes
 *   klxfile   OS_TYPE_KERNEL: one open file of a Linux program (an open
 *             file description: what a descriptor names, with its offset)
 *   klxpipe   OS_TYPE_KERNEL: a pipe of Linux programs, its bytes in a ring
 *             (an anonymous object) and the descriptors naming its ends
 *   klxthreads OS_TYPE_KERNEL: the Linux state of each thread of a Linux
 *             program but its first (clear_child_tid, signal mask), by tid
 *
 * Reference counts (os_obj_ref): a process object is held by its process
 * table slot while it runs and by every handle to it; a thread, address
 * space and handle table by their process; a mapped object by each mapping;
 * any object by each handle, each catalogue name and each message carrying it.
 * A process's threads form a list: kproc.thread, then each kthread.next;
 * each thread is held by its process (the list holds one reference each).
 * The last reference is never dropped: it passes to the kernel root's reap
 * queue, which holds it until the object is deleted at a safe point
 * (kobj_reap), a step at a time: deleting a large object may take more log
 * than one epoch allows. So no object ever has a refcount of 0.
 */
#ifndef KFORMAT_KFORMAT_H
#define KFORMAT_KFORMAT_H

#include <stdint.h>

#include "arch/arch.h"
#include "ferrite/syscall.h"
#include "objstore/format.h"

/* Pin the layouts (see above): the size of struct s, the offset of field f. */
#define KFORMAT_SIZE(s, n) \
	_Static_assert(sizeof(struct s) == (n), "struct " #s " is " #n " bytes")
#define KFORMAT_AT(s, f, at) \
	_Static_assert(__builtin_offsetof(struct s, f) == (at), #s "." #f " is at " #at)
/* Every kernel object is a small objstore object: at most one 2 KiB block. */
#define KFORMAT_SMALL_MAX OS_LARGEST_SMALL

#define KROOT_MAGIC 0x544f4f52u    /* "ROOT" */
#define KPROC_MAGIC 0x434f5250u    /* "PROC" */
#define KTHREAD_MAGIC 0x44524854u  /* "THRD" */
#define KASPACE_MAGIC 0x50534153u  /* "SASP" */
#define KHANDLES_MAGIC 0x534c4448u /* "HDLS" */
#define KCHANNEL_MAGIC 0x4e414843u /* "CHAN" */
#define KCONSOLE_MAGIC 0x534e4f43u /* "CONS" */
#define KCLOCK_MAGIC 0x4b434c43u   /* "CLCK" */
#define KLINK_MAGIC 0x4b4e494cu    /* "LINK" */
#define KLINUX_MAGIC 0x584e4e4cu   /* "LNNX" */
#define KLXFILE_MAGIC 0x4c46584cu  /* "LXFL" */
#define KLXSIG_MAGIC 0x4749534cu   /* "LSIG" */
#define KLXPIPE_MAGIC 0x5050584cu  /* "LXPP" */
#define KLXTHREADS_MAGIC 0x4854584cu /* "LXTH" */
#define KLXLOCKS_MAGIC 0x4b434c4cu   /* "LLCK" */
#define KLAYER_MAGIC 0x5259414cu     /* "LAYR" */

#define KROOT_VERSION 2

#define KROOT_MAX_PROCS 192
#define KCONSOLE_LINE_MAX 253

/* kroot.line_ready: how the line being edited was ended */
#define KCONSOLE_LINE_EDITING 0        /* not yet */
#define KCONSOLE_LINE_ENTER 1          /* by Enter (or Ctrl-C: empty): the reads end it with '\n' */
#define KCONSOLE_LINE_EOF 2            /* by Ctrl-D: as it is, no '\n'; empty, an end of input */

struct kroot {
	uint32_t magic;
	uint32_t version;              /* KROOT_VERSION */
	uint64_t next_pid;             /* pids start at 1 and are never reused */
	uint64_t power_ons;            /* this one included */
	uint64_t commits;              /* epochs committed by the kernel */
	uint64_t mono_ns;              /* FE_CLOCK_MONOTONIC at the last commit */
	uint64_t console_fg_pid;       /* Ctrl-C kills this process; 0: none */
	uint16_t line_len;             /* console line being edited (FE_CONSOLE_LINE) */
	uint8_t line_ready;            /* the line is complete, not yet returned: KCONSOLE_LINE_* */
	char line[KCONSOLE_LINE_MAX];
	uint64_t reap_queue;           /* anonymous object: ring of KREAP_CAPACITY ids */
	uint64_t reap_head;            /* ring index of the oldest id */
	uint64_t reap_count;           /* ids waiting to be deleted */
	uint64_t procs[KROOT_MAX_PROCS]; /* process object ids by slot; 0: free */
	uint64_t console;              /* the kconsole object */
	uint32_t running_slot;         /* the slot running at the last commit; it runs first after a power-on */
	uint32_t console_pgrp;         /* the console's foreground process group (Linux's
					* tcsetpgrp); 0: the foreground process's own */
};
KFORMAT_SIZE(kroot, 1880);
KFORMAT_AT(kroot, magic, 0);
KFORMAT_AT(kroot, version, 4);
KFORMAT_AT(kroot, next_pid, 8);
KFORMAT_AT(kroot, power_ons, 16);
KFORMAT_AT(kroot, commits, 24);
KFORMAT_AT(kroot, mono_ns, 32);
KFORMAT_AT(kroot, console_fg_pid, 40);
KFORMAT_AT(kroot, line_len, 48);
KFORMAT_AT(kroot, line_ready, 50);
KFORMAT_AT(kroot, line, 51);
KFORMAT_AT(kroot, reap_queue, 304);
KFORMAT_AT(kroot, reap_head, 312);
KFORMAT_AT(kroot, reap_count, 320);
KFORMAT_AT(kroot, procs, 328);
KFORMAT_AT(kroot, console, 1864);
KFORMAT_AT(kroot, running_slot, 1872);
KFORMAT_AT(kroot, console_pgrp, 1876);
_Static_assert(sizeof(struct kroot) <= KFORMAT_SMALL_MAX, "a small object");

/*
 * The console's queues (console/console.c): two rings in anonymous objects,
 * addressed by byte counts that only grow (position = count % ring size).
 *
 * Output commit: bytes written in epoch E are appended at out_queued and
 * sent to the UART only after E commits. out_sent counts the bytes sent;
 * it alone is written outside the log (os_store_durable: stored, flushed
 * and fenced) right after each line goes out, so it never rolls back,
 * release never sends a committed byte twice, and after a power cut at
 * most the line that was being sent goes out again. Nothing may ever log a range covering it.
 *
 * Input: typed bytes are appended at in_queued (logged) and consumed at
 * in_read (logged), so input read in epoch E is consumed durably with E.
 *
 * The window's size is what a program last set (Linux's TIOCSWINSZ), for
 * all to read; 0 rows (as in every console made before it had a use: the
 * word was reserved) means none was set, and reads as 24 x 80.
 *
 * Invariants: out_sent <= out_queued as committed; out_queued - out_sent
 * <= KCONSOLE_OUT_BYTES; in_read <= in_queued; in_queued - in_read <=
 * KCONSOLE_IN_BYTES.
 */
#define KCONSOLE_OUT_BYTES (64u << 10)
#define KCONSOLE_IN_BYTES (4u << 10)

struct kconsole {
	uint32_t magic;
	uint16_t rows, cols;           /* the window's size programs set (TIOCSWINSZ); 0 rows: unset */
	uint64_t out_ring;             /* OS_TYPE_ANON, KCONSOLE_OUT_BYTES */
	uint64_t in_ring;              /* OS_TYPE_ANON, KCONSOLE_IN_BYTES */
	uint64_t out_queued;           /* bytes ever queued for output */
	uint64_t in_queued;            /* bytes ever typed and kept */
	uint64_t in_read;              /* bytes ever consumed */
	uint64_t out_sent;             /* durable, never logged */
};
KFORMAT_SIZE(kconsole, 56);
KFORMAT_AT(kconsole, magic, 0);
KFORMAT_AT(kconsole, rows, 4);
KFORMAT_AT(kconsole, cols, 6);
KFORMAT_AT(kconsole, out_ring, 8);
KFORMAT_AT(kconsole, in_ring, 16);
KFORMAT_AT(kconsole, out_queued, 24);
KFORMAT_AT(kconsole, in_queued, 32);
KFORMAT_AT(kconsole, in_read, 40);
KFORMAT_AT(kconsole, out_sent, 48);
_Static_assert(sizeof(struct kconsole) <= KFORMAT_SMALL_MAX, "a small object");

/*
 * The machine object (core/time.c): the fingerprint of the machine whose
 * clock rates were measured, and the rates, so that a power-on on the same
 * kind of machine need not calibrate. Logged before every write.
 */
#define KCLOCK_VERSION 1

struct kclock {
	uint32_t magic;                /* KCLOCK_MAGIC */
	uint32_t version;              /* KCLOCK_VERSION */
	uint8_t fingerprint[ARCH_FINGERPRINT_SIZE];
	uint64_t tsc_hz;
	uint64_t lapic_hz;
};
KFORMAT_SIZE(kclock, 120);
KFORMAT_AT(kclock, magic, 0);
KFORMAT_AT(kclock, version, 4);
KFORMAT_AT(kclock, fingerprint, 8);
KFORMAT_AT(kclock, tsc_hz, 104);
KFORMAT_AT(kclock, lapic_hz, 112);
_Static_assert(sizeof(struct kclock) <= KFORMAT_SMALL_MAX, "a small object");

/* Objects whose last reference went wait in the reap queue until deleted
 * (kobj_reap) at a safe point. One kernel entry releases at most a few
 * hundred objects (a process's handles and mappings) and one reap step
 * queues at most 2 * FE_CHAN_QUEUE + 2, so this never fills. */
#define KREAP_CAPACITY 4096u

/*
 * The host link's capability (hostlink/hostlink.c). The powers of the link
 * -- SYS_LINK_READ (FE_RIGHT_READ), SYS_LINK_WRITE (FE_RIGHT_WRITE),
 * SYS_LINK_MOVE through its window (READ into an object, WRITE out of
 * one), making a code object from a blob (FE_RIGHT_EXEC) -- are a handle to this
 * object, which only the kernel hands out: to the service it starts, as
 * its first inherited handle, without FE_RIGHT_GRANT, so it can be neither
 * passed on nor named. The service is started from `service`, the code
 * object bin/linkd named when the kernel imported its boot modules (a
 * reference held here): a program a user binds to bin/linkd later is just
 * a program. Invariant: no handle names an OS_TYPE_KERNEL object but this
 * one (kcheck.c).
 */
#define KLINK_VERSION 1

struct klink {
	uint32_t magic;                /* KLINK_MAGIC */
	uint32_t version;              /* KLINK_VERSION */
	uint64_t service;              /* the service's code object (held); 0: none */
};
KFORMAT_SIZE(klink, 16);
KFORMAT_AT(klink, magic, 0);
KFORMAT_AT(klink, version, 4);
KFORMAT_AT(klink, service, 8);
_Static_assert(sizeof(struct klink) <= KFORMAT_SMALL_MAX, "a small object");

/* The rescue reserve (epoch/rescue.c): an anonymous object of this many
 * pages, app root OS_APP_ROOT_RESERVE, filled from free pages at power-on
 * and given back to the heap only by a safe power-on, so that its rescue
 * shell starts even in a heap a runaway program filled. */
#define KRESERVE_PAGES 64u

enum kproc_state {
	KPROC_ALIVE = 1,
	KPROC_EXITED = 2,              /* exit holds how it ended */
};

/* kproc.flags. Zero in every process made before the field had a use (it
 * was reserved, and objects are made zeroed), so no layout version. */
#define KPROC_RESCUE 0x1u              /* a safe power-on's rescue shell (epoch/rescue.c) */
#define KPROC_LINK 0x2u                /* the host link's service (hostlink/hostlink.c) */
#define KPROC_LINUX 0x4u               /* a Linux program: kproc.linux_state is its state */
#define KPROC_TRACE 0x8u               /* with KPROC_LINUX: each call it makes is printed (linux/trace.c) */
#define KPROC_STOPPED 0x10u            /* with KPROC_LINUX: stopped by a signal (SIGSTOP,
					* SIGTSTP...) until SIGCONT; none of its threads runs */
#define KPROC_VFORK 0x20u              /* its address space is its parent's, lent by vfork
					* until it execs or ends (the parent waits: KWAIT_VFORK) */
#define KPROC_FLAGS_ALL (KPROC_RESCUE | KPROC_LINK | KPROC_LINUX | KPROC_TRACE | KPROC_STOPPED | \
			 KPROC_VFORK)

/* A process made before kproc.linux_state existed is this many bytes: it has no
 * KPROC_LINUX, and nothing reads its missing linux_state. */
#define KPROC_SIZE_BEFORE_LINUX 240

struct kproc {
	uint32_t magic;
	uint32_t state;                /* enum kproc_state */
	uint64_t pid;
	uint64_t parent_pid;           /* 0: started by the kernel */
	uint64_t thread;               /* object ids (its first thread); 0 once exited */
	uint64_t aspace;
	uint64_t handles;
	uint64_t code;                 /* the code object it runs (a reference) */
	uint32_t slot;                 /* index in kroot.procs while alive */
	uint32_t flags;                /* KPROC_* */
	uint64_t cpu_ns;               /* running time charged */
	char name[32];                 /* argv[0], NUL-terminated */
	struct fe_exit_info exit;      /* valid once KPROC_EXITED */
	uint64_t linux_state;          /* KPROC_LINUX: its klinux object (held); else 0 */
};
KFORMAT_SIZE(kproc, 248);
KFORMAT_AT(kproc, magic, 0);
KFORMAT_AT(kproc, state, 4);
KFORMAT_AT(kproc, pid, 8);
KFORMAT_AT(kproc, parent_pid, 16);
KFORMAT_AT(kproc, thread, 24);
KFORMAT_AT(kproc, aspace, 32);
KFORMAT_AT(kproc, handles, 40);
KFORMAT_AT(kproc, code, 48);
KFORMAT_AT(kproc, slot, 56);
KFORMAT_AT(kproc, flags, 60);
KFORMAT_AT(kproc, cpu_ns, 64);
KFORMAT_AT(kproc, name, 72);
KFORMAT_AT(kproc, exit, 104);
KFORMAT_AT(kproc, linux_state, 240);
_Static_assert(sizeof(struct kproc) <= KFORMAT_SMALL_MAX, "a small object");

enum kthread_state {
	KTHREAD_RUNNABLE = 1,
	KTHREAD_BLOCKED = 2,
	KTHREAD_EXITED = 3,            /* SYS_THREAD_EXIT: exit_status kept until joined */
};

enum kwait {
	KWAIT_NONE = 0,
	KWAIT_SLEEP = 1,               /* until wake_ns (monotonic) */
	KWAIT_PROCESS = 2,             /* until process `wait_obj` exits */
	KWAIT_CHANNEL = 3,             /* until channel `wait_obj` changes */
	KWAIT_CONSOLE = 4,             /* until console input arrives */
	KWAIT_CONSOLE_OUT = 5,         /* until queued console output was sent */
	KWAIT_THREAD = 6,              /* until thread `wait_obj` exits (SYS_THREAD_JOIN) */
	KWAIT_FUTEX = 7,               /* until SYS_FUTEX_WAKE on user address `wait_obj` of its process */
	KWAIT_LINK = 8,                /* until bytes arrive on the host link */
	KWAIT_LINK_OUT = 9,            /* until the host link's output has room */
	KWAIT_PIPE = 10,               /* until Linux pipe `wait_obj` changes (klxpipe) */
	KWAIT_POLL = 11,               /* until console input arrives or any Linux pipe
					* changes: a wait on many files (poll, select) */
	KWAIT_LOCK = 12,               /* until a Linux program's lock on catalogue object
					* `wait_obj` goes (record locks, flock) */
	KWAIT_CHILD = 13,              /* until a child of process `wait_obj` ends (wait4) */
	KWAIT_VFORK = 14,              /* until process `wait_obj`, its vfork child, gives
					* back the address space it borrowed (execve, exit);
					* no signal cuts it short */
	KWAIT_DURABLE = 15,            /* until a flush request covers the commit after
					* the call (sync on virtio-pmem: epoch/durable.c) */
};
#define KWAIT_LAST KWAIT_DURABLE

/* kthread.blocked_call of a Linux program: its call number with this bit,
 * so that no Linux call is ever taken for Ferrite's call of that number. */
#define KTHREAD_CALL_LINUX 0x80000000u

/* The threads of one process: at most this many, numbered (tid) from 0. */
#define KPROC_MAX_THREADS FE_THREADS_MAX

struct kthread {
	uint32_t magic;
	uint32_t state;                /* enum kthread_state */
	uint64_t proc;                 /* its process object id */
	uint32_t wait;                 /* enum kwait, when blocked */
	uint32_t blocked_call;         /* SYS_ number re-issued when woken;
					* KTHREAD_CALL_LINUX | a Linux call's */
	uint64_t wait_obj;
	uint64_t wake_ns;              /* monotonic deadline: KWAIT_SLEEP's end; any
					* other wait's too unless 0 (none) */
	/* The three fields below were reserved (zero) before threads: a
	 * process made then has one thread, tid 0, and no next. */
	uint64_t next;                 /* the process's next thread object; 0: the last */
	uint32_t tid;                  /* its number in the process, < KPROC_MAX_THREADS */
	uint32_t reserved;
	int64_t exit_status;           /* KTHREAD_EXITED: what it passed to SYS_THREAD_EXIT */
	struct arch_user_regs regs;    /* saved when the thread is switched out */
};
KFORMAT_SIZE(kthread, 736);
KFORMAT_AT(kthread, magic, 0);
KFORMAT_AT(kthread, state, 4);
KFORMAT_AT(kthread, proc, 8);
KFORMAT_AT(kthread, wait, 16);
KFORMAT_AT(kthread, blocked_call, 20);
KFORMAT_AT(kthread, wait_obj, 24);
KFORMAT_AT(kthread, wake_ns, 32);
KFORMAT_AT(kthread, next, 40);
KFORMAT_AT(kthread, tid, 48);
KFORMAT_AT(kthread, reserved, 52);
KFORMAT_AT(kthread, exit_status, 56);
KFORMAT_AT(kthread, regs, 64);
_Static_assert(sizeof(struct kthread) <= KFORMAT_SMALL_MAX, "a small object");

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
KFORMAT_SIZE(kmapping, 56);
KFORMAT_AT(kmapping, start, 0);
KFORMAT_AT(kmapping, end, 8);
KFORMAT_AT(kmapping, object, 16);
KFORMAT_AT(kmapping, offset, 24);
KFORMAT_AT(kmapping, limit, 32);
KFORMAT_AT(kmapping, shadow, 40);
KFORMAT_AT(kmapping, prot, 48);
KFORMAT_AT(kmapping, flags, 52);
KFORMAT_AT(kmapping, maxprot, 54);

/* kmapping.flags beside FE_MAP_SHARED or FE_MAP_PRIVATE: a fork shares
 * this shared mapping of an anonymous object with the child (Linux's
 * MAP_SHARED | MAP_ANONYMOUS). Without it a shared mapping of an
 * anonymous object is its process's own memory (a stack, a break, a
 * private anonymous mmap), which a fork freezes into a layer (below). */
#define KMAPPING_INHERIT 0x80

/*
 * A frozen layer of private memory (kernel/uvm/uvm.c, docs/linux.md
 * "fork"): what a mapping showed when a fork froze it, shared from then on
 * by the private mappings of both processes, which write their own copies
 * (their shadows) above it. A private mapping's `object` may be a layer:
 * its page i is then `pages`'s page i if i lies below `end` and `pages`
 * has it; else `below`'s page i when `below` is a layer; else the bytes
 * of `below` (an object) at page i that lie below `limit`, zero past it
 * or where below is 0. Every layer of a chain is indexed like the object
 * at its bottom, as a shadow is.
 *
 * Invariant (uvm.c): no page of `pages` is ever written once the layer
 * exists -- nothing maps them writable, no kernel call writes them, and
 * no object is resized while a layer holds it -- except by the merge at a
 * fork (uvm_fork), when the layer is held by one mapping alone, so that
 * nobody else sees it.
 * Checked (kcheck.c): pages an anonymous object; below 0, a layer or a
 * mappable object; chains no deeper than KLAYER_DEPTH_MAX.
 */
#define KLAYER_DEPTH_MAX 64
struct klayer {
	uint32_t magic;                /* KLAYER_MAGIC */
	uint32_t reserved;
	uint64_t pages;                /* OS_TYPE_ANON (held): the frozen copies */
	uint64_t end;                  /* pages' bytes at or past this offset do not show */
	uint64_t below;                /* a klayer or an object (held); 0: zeros */
	uint64_t limit;                /* an object below: its bytes at or past this read as zero */
};
KFORMAT_SIZE(klayer, 40);
KFORMAT_AT(klayer, pages, 8);
KFORMAT_AT(klayer, end, 16);
KFORMAT_AT(klayer, below, 24);
KFORMAT_AT(klayer, limit, 32);

/*
 * An address space holds up to KASPACE_MAX_MAPS mappings, numbered 0 to
 * count - 1 in address order. The first KASPACE_INLINE_MAPS are in the
 * kaspace itself; the rest are in its `more` object, an anonymous object
 * of whole pages, KASPACE_MORE_PER_PAGE mappings to a page (none across a
 * page boundary): mapping i >= KASPACE_INLINE_MAPS is mapping
 * (i - KASPACE_INLINE_MAPS) % KASPACE_MORE_PER_PAGE of page
 * (i - KASPACE_INLINE_MAPS) / KASPACE_MORE_PER_PAGE. `more` was the
 * reserved word (zero) before: an address space made then has no more
 * than KASPACE_INLINE_MAPS mappings, and none elsewhere.
 *
 * Invariants (kcheck.c): count <= KASPACE_MAX_MAPS; count >
 * KASPACE_INLINE_MAPS only with a `more`; every page of `more` that holds
 * a mapping below count exists (made when the room was made: a mapping
 * is never read from a page that is not there); `more` is held by its
 * address space alone (a refcount of 1). `more`, once made, stays until the address space is emptied
 * (uvm_destroy), so a program that goes back and forth across
 * KASPACE_INLINE_MAPS mappings makes it once.
 */
#define KASPACE_INLINE_MAPS 32
#define KASPACE_MORE_PER_PAGE ((unsigned)(FE_PAGE_SIZE / sizeof(struct kmapping))) /* 73 */
#define KASPACE_MAX_MAPS 256
#define KASPACE_MORE_PAGES \
	((KASPACE_MAX_MAPS - KASPACE_INLINE_MAPS + KASPACE_MORE_PER_PAGE - 1) / KASPACE_MORE_PER_PAGE)

struct kaspace {
	uint32_t magic;
	uint32_t count;                /* mappings, inline and in `more` */
	uint64_t more;                 /* 0, or the anonymous object of mappings
					* KASPACE_INLINE_MAPS and up (held) */
	struct kmapping map[KASPACE_INLINE_MAPS]; /* sorted by start, disjoint */
};
KFORMAT_SIZE(kaspace, 1808);
KFORMAT_AT(kaspace, magic, 0);
KFORMAT_AT(kaspace, count, 4);
KFORMAT_AT(kaspace, more, 8);
KFORMAT_AT(kaspace, map, 16);
_Static_assert(sizeof(struct kaspace) <= KFORMAT_SMALL_MAX, "a small object");
_Static_assert(KASPACE_MORE_PER_PAGE * sizeof(struct kmapping) <= FE_PAGE_SIZE,
	       "a page of `more` holds whole mappings");
_Static_assert(KASPACE_MORE_PER_PAGE == 73 && KASPACE_MORE_PAGES == 4,
	       "the mappings past the kaspace's own fill at most 4 pages");

struct khandle {
	uint64_t object;               /* 0: free slot */
	uint32_t gen;                  /* generation, part of the handle value: 1..KHANDLE_GEN_MAX */
	uint8_t rights;                /* FE_RIGHT_* */
	uint8_t end;                   /* channels: which end (0 or 1) */
	uint16_t reserved;
};
KFORMAT_SIZE(khandle, 16);
KFORMAT_AT(khandle, object, 0);
KFORMAT_AT(khandle, gen, 8);
KFORMAT_AT(khandle, rights, 12);
KFORMAT_AT(khandle, end, 13);
KFORMAT_AT(khandle, reserved, 14);

#define KHANDLE_GEN_MAX 0x7fffffu     /* handle values stay positive int32 */

struct khandles {
	uint32_t magic;
	uint32_t count;                /* slots in use */
	/* SYS_CONSOLE_SINK: the value of this table's handle to the channel
	 * end the process's console output goes to; 0 (as before it existed,
	 * when it was reserved): the console. A sink whose handle was closed
	 * counts as none. */
	uint64_t console_sink;
	struct khandle slot[FE_HANDLE_SLOTS];
};
KFORMAT_SIZE(khandles, 1936);
KFORMAT_AT(khandles, magic, 0);
KFORMAT_AT(khandles, count, 4);
KFORMAT_AT(khandles, console_sink, 8);
KFORMAT_AT(khandles, slot, 16);
_Static_assert(sizeof(struct khandles) <= KFORMAT_SMALL_MAX, "a small object");

/* A message slot: this header, then the bytes, in one page of a queue object. */
struct kmsg_header {
	uint32_t len;
	uint32_t rights;               /* of the passed object */
	uint64_t object;               /* passed object (a reference), 0 none */
	uint8_t end;                   /* passed channel end */
	uint8_t reserved[7];
};
KFORMAT_SIZE(kmsg_header, 24);
KFORMAT_AT(kmsg_header, len, 0);
KFORMAT_AT(kmsg_header, rights, 4);
KFORMAT_AT(kmsg_header, object, 8);
KFORMAT_AT(kmsg_header, end, 16);
KFORMAT_AT(kmsg_header, reserved, 17);

struct kchan_queue {
	uint64_t object;               /* OS_TYPE_ANON, FE_CHAN_QUEUE pages */
	uint32_t head;                 /* slot of the oldest message */
	uint32_t count;                /* messages queued */
};
KFORMAT_SIZE(kchan_queue, 16);
KFORMAT_AT(kchan_queue, object, 0);
KFORMAT_AT(kchan_queue, head, 8);
KFORMAT_AT(kchan_queue, count, 12);

struct kchannel {
	uint32_t magic;
	uint32_t open[2];              /* handles to each end, and messages carrying it */
	uint32_t reserved;
	struct kchan_queue queue[2];   /* queue[e]: messages sent by end e */
};
KFORMAT_SIZE(kchannel, 48);
KFORMAT_AT(kchannel, magic, 0);
KFORMAT_AT(kchannel, open, 4);
KFORMAT_AT(kchannel, reserved, 12);
KFORMAT_AT(kchannel, queue, 16);
_Static_assert(sizeof(struct kchannel) <= KFORMAT_SMALL_MAX, "a small object");

/*
 * A Linux program's state (kernel/linux/), held by its process
 * (kproc.linux_state). Paths are catalogue names: `root` is the part of the
 * catalogue the program sees as `/` (a prefix ending in '/', or "" for the
 * whole catalogue) and `cwd` the current directory below it ("" or a
 * prefix ending in '/'), both NUL-terminated. Each descriptor names an open
 * file (a klxfile, held by the descriptor); descriptors that share an open
 * file (dup) share its offset. The terminal modes are the termios the
 * program set with TCSETS, which decide how its reads of the console are
 * edited and echoed.
 *
 * The break is [brk_start, page_up(brk)), shown by ordinary mappings
 * (kernel/linux/memory.c); brk_object is 0 (a program started before
 * fork kept its break's object there, held, and nothing reads it now).
 *
 * Invariants (kcheck.c): version KLINUX_VERSION; brk_start <= brk <=
 * brk_start + KLINUX_BRK_MAX, in the user half, brk_start page aligned;
 * brk_object 0 or an anonymous object; root and cwd NUL-terminated,
 * empty or ending in '/'; every fd[i].file 0 or a klxfile; fd flags within
 * KLINUX_FD_FLAGS; signals a klxsig; sig_mask and sig_suspend_mask without
 * KLINUX_SIG_UNBLOCKABLE; sig_sent and sig_tsent within sig_pending, apart; sig_flags within
 * KLINUX_SIG_FLAGS; the alternate stack none (sp and size 0) or within
 * the user half; alarm_interval_ns 0 when alarm_ns is; threads 0 or a
 * klxthreads and locks 0 or a klxlocks (version 2; version 1, of
 * KLINUX_SIZE_BEFORE_THREADS bytes, has neither field).
 *
 * Signals: a raised signal is pending until the thread returns to user
 * mode unblocked, where it is delivered (its handler's frame pushed on the
 * stack) or acts by default (ignored, or the end of the program).
 * sig_pending holds the signals sent to the program (kill, the timer,
 * Ctrl-C), which any of its threads may take; those sent to one thread
 * wait in klxthreads. The mask, the mask rt_sigsuspend replaced and the
 * alternate stack here are the first thread's (tid 0); the others' are in
 * klxthreads (docs/linux.md, "Threads").
 */
#define KLINUX_VERSION 2
/* A klinux of version 1 is this many bytes: it has no `threads` and no
 * `locks`, and nothing reads them (a program started before threads stays
 * one thread, and takes no record lock). */
#define KLINUX_SIZE_BEFORE_THREADS 1720
#define KLINUX_FDS 64                  /* descriptors 0 .. KLINUX_FDS - 1 */
#define KLINUX_BRK_MAX (1ull << 30)    /* the most the break may grow */
#define KLINUX_PATH_MAX (FE_NAME_MAX + 1)
#define KLINUX_FD_CLOEXEC 0x1u
#define KLINUX_FD_FLAGS KLINUX_FD_CLOEXEC
#define KLINUX_NCCS 19                 /* Linux's struct termios (TCGETS), x86-64 */
#define KLINUX_SIGNALS 64              /* Linux's signals 1 .. 64 */
#define KLINUX_SIG_UNBLOCKABLE ((1ull << (9 - 1)) | (1ull << (19 - 1))) /* SIGKILL, SIGSTOP */
#define KLINUX_SIG_SUSPENDED 0x1u      /* in rt_sigsuspend: sig_suspend_mask is the mask to restore */
#define KLINUX_SIG_STOP_NEWS 0x2u      /* stopped, and its parent's wait has not said so yet */
#define KLINUX_SIG_CONT_NEWS 0x4u      /* continued, and its parent's wait has not said so yet */
#define KLINUX_SIG_STOPSIG_SHIFT 8     /* bits 8-15: the signal that stopped it last */
#define KLINUX_SIG_STOPSIG (0xffu << KLINUX_SIG_STOPSIG_SHIFT)
#define KLINUX_SIG_FLAGS (KLINUX_SIG_SUSPENDED | KLINUX_SIG_STOP_NEWS | KLINUX_SIG_CONT_NEWS | \
			  KLINUX_SIG_STOPSIG)

struct klinux_fd {
	uint64_t file;                 /* klxfile object (held); 0: a free descriptor */
	uint32_t flags;                /* KLINUX_FD_* */
	uint32_t reserved;
};
KFORMAT_SIZE(klinux_fd, 16);
KFORMAT_AT(klinux_fd, file, 0);
KFORMAT_AT(klinux_fd, flags, 8);
KFORMAT_AT(klinux_fd, reserved, 12);

struct klinux_termios {
	uint32_t iflag, oflag, cflag, lflag;
	uint8_t line;
	uint8_t cc[KLINUX_NCCS];
};
KFORMAT_SIZE(klinux_termios, 36);
KFORMAT_AT(klinux_termios, lflag, 12);
KFORMAT_AT(klinux_termios, cc, 17);

struct klinux {
	uint32_t magic;                /* KLINUX_MAGIC */
	uint32_t version;              /* KLINUX_VERSION */
	uint64_t brk_start;            /* the program break's lowest address */
	uint64_t brk;                  /* the break now; [brk_start, page_up(brk)) is mapped */
	uint64_t tid_address;          /* clear_child_tid of its thread of tid 0; 0: none */
	uint64_t brk_object;           /* 0; before fork, the anonymous object the
					* break showed (held), which nothing reads now */
	uint32_t umask;
	uint32_t pgid;                 /* its process group (fork.c); 0: its own pid */
	struct klinux_termios termios;
	uint32_t sid;                  /* its session; 0: its own pid */
	char root[KLINUX_PATH_MAX];
	char cwd[KLINUX_PATH_MAX];
	struct klinux_fd fd[KLINUX_FDS];
	/* signals (kernel/linux/signal.c): bit s-1 stands for signal s */
	uint64_t signals;              /* its dispositions, a klxsig (held) */
	uint64_t sig_pending;          /* raised, not yet delivered */
	uint64_t sig_sent;             /* of those, the ones kill sent (siginfo SI_USER) */
	uint64_t sig_tsent;            /* and the ones tgkill or tkill sent (SI_TKILL) */
	uint64_t sig_mask;             /* blocked: the mask of its thread of tid 0
					* (the others': klxthreads.sig_mask) */
	uint64_t sig_suspend_mask;     /* the mask rt_sigsuspend replaced, restored after the handler */
	uint64_t fault_addr;           /* the pending fault signal's address (siginfo si_addr) */
	uint32_t fault_code;           /* and its si_code */
	uint32_t sig_flags;            /* KLINUX_SIG_* */
	uint64_t altstack_sp;          /* sigaltstack: the alternate signal stack */
	uint64_t altstack_size;        /* 0: none */
	uint64_t alarm_ns;             /* ITIMER_REAL: monotonic time of the next SIGALRM; 0 none */
	uint64_t alarm_interval_ns;    /* and the interval after it; 0 once only */
	/* version 2 on */
	uint64_t threads;              /* its klxthreads (held), made by its first
					* clone; 0: none yet */
	uint64_t locks;                /* its record locks, a klxlocks (held), made
					* by its first lock; 0: none yet */
};
KFORMAT_SIZE(klinux, 1736);
KFORMAT_AT(klinux, magic, 0);
KFORMAT_AT(klinux, version, 4);
KFORMAT_AT(klinux, brk_start, 8);
KFORMAT_AT(klinux, brk, 16);
KFORMAT_AT(klinux, tid_address, 24);
KFORMAT_AT(klinux, brk_object, 32);
KFORMAT_AT(klinux, umask, 40);
KFORMAT_AT(klinux, pgid, 44);
KFORMAT_AT(klinux, termios, 48);
KFORMAT_AT(klinux, sid, 84);
KFORMAT_AT(klinux, root, 88);
KFORMAT_AT(klinux, cwd, 344);
KFORMAT_AT(klinux, fd, 600);
KFORMAT_AT(klinux, signals, 1624);
KFORMAT_AT(klinux, sig_pending, 1632);
KFORMAT_AT(klinux, sig_sent, 1640);
KFORMAT_AT(klinux, sig_tsent, 1648);
KFORMAT_AT(klinux, sig_mask, 1656);
KFORMAT_AT(klinux, sig_suspend_mask, 1664);
KFORMAT_AT(klinux, fault_addr, 1672);
KFORMAT_AT(klinux, fault_code, 1680);
KFORMAT_AT(klinux, sig_flags, 1684);
KFORMAT_AT(klinux, altstack_sp, 1688);
KFORMAT_AT(klinux, altstack_size, 1696);
KFORMAT_AT(klinux, alarm_ns, 1704);
KFORMAT_AT(klinux, alarm_interval_ns, 1712);
KFORMAT_AT(klinux, threads, 1720);
KFORMAT_AT(klinux, locks, 1728);
_Static_assert(KLINUX_SIZE_BEFORE_THREADS == __builtin_offsetof(struct klinux, threads),
	       "version 1 ends where threads begins");
_Static_assert(sizeof(struct klinux) <= KFORMAT_SMALL_MAX, "a small object");

/*
 * The Linux state of the threads of a Linux program (kernel/linux/thread.c),
 * by tid (kthread.tid): the address clone's CLONE_CHILD_CLEARTID or
 * set_tid_address gave, cleared and woken (futex) when the thread exits;
 * and each thread's own signal state (kernel/linux/signal.c): its mask,
 * the signals sent to it alone (tgkill, tkill, SIGPIPE) and which of
 * those tgkill or tkill sent, the mask rt_sigsuspend replaced while it
 * waits there (bit tid of `suspended`), and its alternate signal stack.
 * The first thread's (tid 0) clear_child_tid, mask, suspended mask and
 * alternate stack are klinux's, as before threads, so entry 0 of those
 * stays 0 here; its own pending signals are here. Held by its klinux
 * (klinux.threads), made by its first clone.
 *
 * Invariants (kcheck.c): entry 0 of clear_child_tid, sig_mask,
 * sig_suspend_mask, altstack_sp and altstack_size is 0, and bit 0 of
 * suspended; every clear_child_tid 0 or an address in the user half; no
 * mask holds KLINUX_SIG_UNBLOCKABLE; sig_tsent within sig_pending; each
 * alternate stack none (0, 0) or within the user half.
 */
struct klxthreads {
	uint32_t magic;                /* KLXTHREADS_MAGIC */
	uint32_t suspended;            /* bit tid: thread tid waits in rt_sigsuspend */
	uint64_t clear_child_tid[KPROC_MAX_THREADS];
	uint64_t sig_mask[KPROC_MAX_THREADS];     /* each thread's blocked signals */
	uint64_t sig_pending[KPROC_MAX_THREADS];  /* sent to the thread alone, not yet taken */
	uint64_t sig_tsent[KPROC_MAX_THREADS];    /* of those, the ones tgkill or tkill sent */
	uint64_t sig_suspend_mask[KPROC_MAX_THREADS]; /* the mask rt_sigsuspend replaced */
	uint64_t altstack_sp[KPROC_MAX_THREADS];  /* sigaltstack */
	uint64_t altstack_size[KPROC_MAX_THREADS]; /* 0: none */
};
KFORMAT_SIZE(klxthreads, 8 + 56 * KPROC_MAX_THREADS);
KFORMAT_AT(klxthreads, magic, 0);
KFORMAT_AT(klxthreads, suspended, 4);
KFORMAT_AT(klxthreads, clear_child_tid, 8);
KFORMAT_AT(klxthreads, sig_mask, 8 + 8 * KPROC_MAX_THREADS);
KFORMAT_AT(klxthreads, sig_pending, 8 + 16 * KPROC_MAX_THREADS);
KFORMAT_AT(klxthreads, altstack_size, 8 + 48 * KPROC_MAX_THREADS);
_Static_assert(sizeof(struct klxthreads) <= KFORMAT_SMALL_MAX, "a small object");

/*
 * The record locks a Linux program holds (kernel/linux/locks.c: fcntl
 * F_SETLK and F_SETLKW), each a range of bytes of a catalogue object,
 * shared (read) or exclusive (write). POSIX locks belong to the process:
 * its own never stand in its way, a new one replaces what it held of the
 * range, and closing any descriptor of an object drops them all. Made by
 * its first lock, held by its klinux (klinux.locks). The lock entries in
 * use are the first `count`, in no order.
 *
 * Invariants (kcheck.c): count <= KLXLOCKS_MAX; each entry in use names
 * an object one of the program's descriptors shows, start < end, a type
 * KLXLOCK_READ or KLXLOCK_WRITE, reserved 0; no two of one object
 * overlap; the entries past count are zero.
 */
#define KLXLOCKS_MAX 48
#define KLXLOCK_READ 1u
#define KLXLOCK_WRITE 2u
#define KLXLOCK_TO_END UINT64_MAX      /* klxlock.end of a lock to the end of the object, however far */
struct klxlock {
	uint64_t object;               /* the catalogue object locked (not held: a descriptor holds it) */
	uint64_t start, end;           /* the bytes [start, end) */
	uint32_t type;                 /* KLXLOCK_READ or KLXLOCK_WRITE */
	uint32_t reserved;
};
KFORMAT_SIZE(klxlock, 32);
struct klxlocks {
	uint32_t magic;                /* KLXLOCKS_MAGIC */
	uint32_t count;                /* entries in use: lock[0 .. count-1] */
	struct klxlock lock[KLXLOCKS_MAX];
};
KFORMAT_SIZE(klxlocks, 8 + 32 * KLXLOCKS_MAX);
KFORMAT_AT(klxlocks, count, 4);
KFORMAT_AT(klxlocks, lock, 8);
_Static_assert(sizeof(struct klxlocks) <= KFORMAT_SMALL_MAX, "a small object");

/*
 * A Linux program's signal dispositions, as rt_sigaction set them: for
 * signal s, entry s-1 of each array (Linux's struct sigaction, arrays
 * side by side so that the whole fits a small object). Held by its
 * klinux (klinux.signals).
 *
 * Invariants (kcheck.c): handler[i] is LX_SIG_DFL (0), LX_SIG_IGN (1) or
 * an address in the user half, and so is restorer[i] (or 0); mask[i]
 * never holds SIGKILL or SIGSTOP; flags[i] within KLXSIG_FLAGS; the
 * dispositions of SIGKILL and SIGSTOP stay the default.
 */
#define KLXSIG_SIG_DFL 0
#define KLXSIG_SIG_IGN 1
#define KLXSIG_FLAGS 0xdc000007u       /* SA_NOCLDSTOP SA_NOCLDWAIT SA_SIGINFO SA_RESTORER
					* SA_ONSTACK SA_RESTART SA_NODEFER SA_RESETHAND */

struct klxsig {
	uint32_t magic;                /* KLXSIG_MAGIC */
	uint32_t reserved;
	uint64_t handler[KLINUX_SIGNALS];
	uint64_t restorer[KLINUX_SIGNALS];
	uint64_t mask[KLINUX_SIGNALS];  /* blocked while the handler runs */
	uint32_t flags[KLINUX_SIGNALS]; /* SA_* */
};
KFORMAT_SIZE(klxsig, 1800);
KFORMAT_AT(klxsig, magic, 0);
KFORMAT_AT(klxsig, handler, 8);
KFORMAT_AT(klxsig, restorer, 520);
KFORMAT_AT(klxsig, mask, 1032);
KFORMAT_AT(klxsig, flags, 1544);
_Static_assert(sizeof(struct klxsig) <= KFORMAT_SMALL_MAX, "a small object");

/*
 * One open file of Linux programs (an open file description): what it
 * is, how it was opened, and its offset. Held by each descriptor naming it.
 * A catalogue object it shows is held by it (`object`), and so is the
 * pipe an end of a pipe belongs to (its access mode is the end's:
 * O_RDONLY or O_WRONLY); `path` is the name it was opened by, below the
 * program's root ("" for the root), and for a directory `cursor` is the
 * last name getdents64 returned ("" at the start).
 */
enum klxfile_kind {
	KLXFILE_CONSOLE = 1,           /* the console, or the sink it was sent to */
	KLXFILE_NULL = 2,              /* /dev/null */
	KLXFILE_ZERO = 3,              /* /dev/zero */
	KLXFILE_RANDOM = 4,            /* /dev/urandom, /dev/random */
	KLXFILE_OBJECT = 5,            /* a blob or code object of the catalogue */
	KLXFILE_DIR = 6,               /* a directory: a name prefix */
	KLXFILE_PIPE_READ = 7,         /* the read end of a pipe (object: the klxpipe) */
	KLXFILE_PIPE_WRITE = 8,        /* the write end of a pipe (object: the klxpipe) */
	KLXFILE_MEMINFO = 9,           /* /proc/meminfo: the heap's figures, read-only */
};
#define KLXFILE_KIND_LAST KLXFILE_MEMINFO
/* klxfile.flock: the whole-file lock flock took through this open file
 * (kernel/linux/locks.c); it goes with the open file's last descriptor */
#define KLXFILE_FLOCK_NONE 0u
#define KLXFILE_FLOCK_SHARED 1u
#define KLXFILE_FLOCK_EXCLUSIVE 2u
/* klxfile.flags: its access mode, as Linux's O_ACCMODE bits */
#define KLXFILE_ACCMODE 03u
#define KLXFILE_RDONLY 00u
#define KLXFILE_WRONLY 01u

struct klxfile {
	uint32_t magic;                /* KLXFILE_MAGIC */
	uint16_t kind;                 /* enum klxfile_kind */
	uint16_t flock;                /* KLXFILE_OBJECT: the flock it holds, KLXFILE_FLOCK_*; else 0 */
	uint32_t flags;                /* the open flags kept: access mode, O_APPEND, O_NONBLOCK (Linux's values) */
	uint32_t reserved2;
	uint64_t object;               /* KLXFILE_OBJECT: the object, a pipe's end:
					* the klxpipe (held); else 0 */
	uint64_t offset;
	char path[KLINUX_PATH_MAX];
	char cursor[KLINUX_PATH_MAX];
};
KFORMAT_SIZE(klxfile, 544);
KFORMAT_AT(klxfile, magic, 0);
KFORMAT_AT(klxfile, kind, 4);
KFORMAT_AT(klxfile, flock, 6);
KFORMAT_AT(klxfile, flags, 8);
KFORMAT_AT(klxfile, object, 16);
KFORMAT_AT(klxfile, offset, 24);
KFORMAT_AT(klxfile, path, 32);
KFORMAT_AT(klxfile, cursor, 288);
_Static_assert(sizeof(struct klxfile) <= KFORMAT_SMALL_MAX, "a small object");

/*
 * A pipe of Linux programs (kernel/linux/pipe.c), held by the open file of
 * each of its ends (klxfile.object). Its bytes are in `ring`, an anonymous
 * object of KLXPIPE_BYTES whose pages are made as they are first written,
 * addressed like the console's rings by counts that only grow: byte n
 * written is at n % KLXPIPE_BYTES. `readers` and `writers` count the
 * descriptors that name an open file of each end: a read of an empty pipe
 * with no writer is its end, a write with no reader is EPIPE.
 *
 * Invariants (kcheck.c): ring an anonymous object of KLXPIPE_BYTES bytes;
 * read <= written <= read + KLXPIPE_BYTES; readers and writers equal the
 * descriptors naming its ends (pipes live within one process until fork).
 */
#define KLXPIPE_BYTES (64u << 10)      /* Linux's pipe capacity */

struct klxpipe {
	uint32_t magic;                /* KLXPIPE_MAGIC */
	uint32_t reserved;
	uint32_t readers;              /* descriptors naming its read end */
	uint32_t writers;              /* descriptors naming its write end */
	uint64_t ring;                 /* OS_TYPE_ANON, KLXPIPE_BYTES (held) */
	uint64_t written;              /* bytes ever written */
	uint64_t read;                 /* bytes ever read */
};
KFORMAT_SIZE(klxpipe, 40);
KFORMAT_AT(klxpipe, magic, 0);
KFORMAT_AT(klxpipe, reserved, 4);
KFORMAT_AT(klxpipe, readers, 8);
KFORMAT_AT(klxpipe, writers, 12);
KFORMAT_AT(klxpipe, ring, 16);
KFORMAT_AT(klxpipe, written, 24);
KFORMAT_AT(klxpipe, read, 32);
_Static_assert(sizeof(struct klxpipe) <= KFORMAT_SMALL_MAX, "a small object");

_Static_assert(__builtin_offsetof(struct kthread, regs) % 16 == 0,
	       "FXSAVE needs 16-byte alignment");

#endif
