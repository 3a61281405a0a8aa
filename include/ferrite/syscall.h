/*
 * syscall.h -- the system-call ABI of Ferrite, shared by the kernel and the
 * user library. docs/syscalls.md is its reference.
 *
 * Calling convention (x86_64 SYSCALL): number in rax, arguments in rdi, rsi,
 * rdx, r10, r8, r9; the result in rax. rcx and r11 are clobbered (the CPU
 * uses them); every other register, and the FPU/SSE state, is preserved.
 * A result >= 0 is success; a negative result is -ERR_x from
 * <ferrite/errors.h>.
 *
 * Every number, structure and flag here is part of the ABI and of the
 * persistent state of running programs: never renumber, only append.
 *
 * Blocking calls (wait, sleep_until, chan_recv, console_read) are
 * restartable: a thread that blocks is recorded as "blocked, restart this
 * call"; when woken it executes the same SYSCALL instruction again with the
 * same registers. So their arguments must stay meaningful when re-issued
 * (sleep takes an absolute deadline, not a duration).
 */
#ifndef FERRITE_SYSCALL_H
#define FERRITE_SYSCALL_H

#include <stdint.h>

enum fe_syscall {
	SYS_NULL = 0,          /* () -> 0: the cheapest call, for benchmarks */
	/* objects */
	SYS_OBJ_CREATE = 1,    /* (type, size[, blob handle, link handle with FE_RIGHT_EXEC: for FE_TYPE_CODE]) -> handle with FE_RIGHTS_ALL */
	SYS_OBJ_OPEN = 2,      /* (name, name_len, rights) -> handle */
	SYS_OBJ_OPEN_ID = 3,   /* (id, rights) -> handle (blob and code only) */
	SYS_NAME_BIND = 4,     /* (handle, name, name_len) */
	SYS_NAME_UNBIND = 5,   /* (name, name_len) */
	SYS_NAME_RENAME = 6,   /* (from, from_len, to, to_len) */
	SYS_NAME_LIST = 7,     /* (prefix, prefix_len, struct fe_cursor *, struct fe_name_entry *, max) -> count */
	SYS_OBJ_STAT = 8,      /* (handle, struct fe_stat *) */
	SYS_OBJ_READ = 9,      /* (handle, offset, buf, len) -> bytes read */
	SYS_OBJ_WRITE = 10,    /* (handle, offset, buf, len) -> bytes written */
	SYS_OBJ_RESIZE = 11,   /* (handle, size) */
	SYS_CLOSE = 12,        /* (handle) */
	SYS_DUP = 13,          /* (handle, rights) -> new handle with those rights */
	/* memory */
	SYS_MAP = 14,          /* (handle, offset, len, prot | flags, addr) -> address */
	SYS_UNMAP = 15,        /* (addr, len) */
	SYS_PROTECT = 16,      /* (addr, len, prot) */
	SYS_SYNC = 17,         /* () -> 0 once the caller's state is durable */
	/* processes */
	SYS_SPAWN = 18,        /* (code handle, const struct fe_spawn *, flags) -> process handle */
	SYS_EXIT = 19,         /* (status): does not return */
	SYS_WAIT = 20,         /* (process handle, struct fe_exit_info *, flags) -> pid; 0 if FE_WAIT_NOHANG and still running */
	SYS_KILL = 21,         /* (pid): the caller or one of its descendants */
	SYS_PROC_LIST = 22,    /* (struct fe_proc_info *, max, first_pid) -> count */
	SYS_YIELD = 23,        /* () */
	SYS_SLEEP_UNTIL = 24,  /* (monotonic ns deadline) */
	/* channels */
	SYS_CHAN_CREATE = 25,  /* (int32_t ends[2]) */
	SYS_CHAN_SEND = 26,    /* (handle, buf, len, handle to pass or -1) */
	SYS_CHAN_RECV = 27,    /* (handle, buf, cap, struct fe_msg_info *, flags) -> bytes */
	/* console, time, system */
	SYS_CONSOLE_READ = 28, /* (buf, cap, mode) -> bytes */
	SYS_CONSOLE_WRITE = 29,/* (buf, len) -> bytes */
	SYS_TIME = 30,         /* (clock) -> ns */
	SYS_SYSINFO = 31,      /* (struct fe_sysinfo *, its size) */
	SYS_CONSOLE_FG = 32,   /* (process handle, or -1 for none): Ctrl-C kills it */
	SYS_GETPID = 33,       /* () -> the caller's pid */
	SYS_POWEROFF = 34,     /* () commit everything, then ACPI power-off */
	SYS_RESUME = 35,       /* () -> processes released: a safe power-on's held processes run on */
	SYS_SNAPSHOT = 36,     /* (op, name, name_len, arg) -> count or 0: whole-system snapshots */
	/* threads */
	SYS_THREAD_CREATE = 37,/* (entry, stack top, arg) -> tid */
	SYS_THREAD_EXIT = 38,  /* (status): the caller's thread ends; the last one ends the process */
	SYS_THREAD_JOIN = 39,  /* (tid, int64_t *status) -> 0 once it ended, its status stored */
	SYS_FUTEX_WAIT = 40,   /* (uint32_t *addr, expected) -> 0 when woken, -ERR_AGAIN if *addr != expected */
	SYS_FUTEX_WAKE = 41,   /* (uint32_t *addr, max) -> threads woken */
	SYS_GETTID = 42,       /* () -> the caller's tid */
	SYS_THREAD_LIST = 43,  /* (pid, struct fe_thread_info *, max) -> threads listed */
	/* names, console routing, the host link */
	SYS_NAME_REPLACE = 44, /* (handle, name, name_len): bind name to the handle's object, bound or not */
	SYS_CONSOLE_SINK = 45, /* (channel handle, or -1): the caller's console output goes there; children inherit it */
	SYS_LINK_READ = 46,    /* (link, buf, cap) -> bytes from the host link; the link's handle, FE_RIGHT_READ */
	SYS_LINK_WRITE = 47,   /* (link, buf, len) -> bytes queued for the host, sent after the commit; FE_RIGHT_WRITE */
	SYS_LINK_MOVE = 48,    /* (link, object, struct fe_link_move *) -> CRC-32 of the bytes moved between the link's window and the object */
	SYS_LINK_INFO = 49,    /* (link, struct fe_link_info *) -> 0: the link's window; any right */
	SYS__COUNT
};

/* Handles: small positive integers naming entries of the caller's handle
 * table. A handle's value carries a generation, so a closed handle stays
 * invalid (-ERR_BADF) even after its slot is reused. */
#define FE_HANDLE_SLOTS 120
#define FE_HANDLE_VALUE(slot, gen) ((int32_t)(((uint32_t)(gen) << 8) | (uint32_t)(slot)))
/* The i-th handle passed by spawn, in the child (gen 1, slots from 0). */
#define FE_INHERITED_HANDLE(i) FE_HANDLE_VALUE((i), 1)

/* Rights carried by a handle. */
#define FE_RIGHT_READ 0x01   /* read, map readable; wait on a process; receive */
#define FE_RIGHT_WRITE 0x02  /* write, resize, map shared writable; make a process the console foreground; send */
#define FE_RIGHT_MAP 0x04    /* map into an address space */
#define FE_RIGHT_EXEC 0x08   /* map executable; spawn (code objects) */
#define FE_RIGHT_GRANT 0x10  /* pass to another process (spawn, chan_send); bind a name to it */
#define FE_RIGHTS_ALL 0x1f

/* Object types (the objstore's numbering, format.h). */
#define FE_TYPE_BLOB 1       /* bytes, mappable, openable by id */
#define FE_TYPE_CODE 2       /* an ELF image, executed in place; read-only to programs */
#define FE_TYPE_PROCESS 3
#define FE_TYPE_THREAD 4
#define FE_TYPE_ASPACE 5
#define FE_TYPE_CHANNEL 6
#define FE_TYPE_CATALOGUE 7
#define FE_TYPE_ANON 8       /* anonymous memory: private, never opened by id */

/* SYS_MAP: protection in the low bits, sharing in the next. */
#define FE_PROT_READ 0x01
#define FE_PROT_WRITE 0x02
#define FE_PROT_EXEC 0x04
#define FE_PROT_MASK 0x07
#define FE_MAP_SHARED 0x10   /* writes reach the object */
#define FE_MAP_PRIVATE 0x20  /* copy on write: writes stay in this process */
#define FE_MAP_FIXED 0x40    /* exactly at addr (which must be free), not a hint */

/* The user half: [FE_USER_BASE, FE_USER_TOP). */
#define FE_USER_BASE 0x0000000000400000ull
#define FE_USER_TOP 0x00007ffffffff000ull
#define FE_PAGE_SIZE 4096u

/* The note that marks a Ferrite program (user/crt0.S): an ELF note named
 * FE_NOTE_NAME of type FE_NOTE_PROGRAM whose 4-byte descriptor is the ABI
 * version, FE_NOTE_ABI. An executable without it is a Linux program. */
#define FE_NOTE_NAME "Ferrite"
#define FE_NOTE_PROGRAM 1u
#define FE_NOTE_ABI 1u

/* Largest size of an object a program creates or resizes (objects are
 * sparse: only pages written take space). */
#define FE_OBJ_SIZE_MAX (1ull << 40)

/* Largest transfer of one SYS_OBJ_READ / SYS_OBJ_WRITE / SYS_CONSOLE_WRITE;
 * longer requests transfer this much and return the count (loop for more). */
#define FE_IO_MAX (64u << 10)

/* SYS_LINK_MOVE: bytes between the host link's bulk window (memory the
 * host maps too, docs/hostlink.md) and an object, all of them or none:
 * FE_LINK_TO_OBJECT with the link's FE_RIGHT_READ and the object's
 * FE_RIGHT_WRITE, FE_LINK_TO_WINDOW with the link's FE_RIGHT_WRITE and
 * the object's FE_RIGHT_READ. The call returns the CRC-32 (zlib's),
 * continued from `crc`, of the bytes as they are now in the object read
 * back (to the object) or as put in the window (to the window). */
#define FE_LINK_TO_OBJECT 1
#define FE_LINK_TO_WINDOW 2
struct fe_link_move {
	uint32_t direction;      /* FE_LINK_TO_OBJECT or FE_LINK_TO_WINDOW */
	uint32_t crc;            /* the CRC-32 of what came before (0 at first) */
	uint64_t offset;         /* in the object */
	uint64_t at;             /* in the window */
	uint64_t length;         /* at most FE_IO_MAX */
};

/* SYS_LINK_INFO: what the host link offers. */
struct fe_link_info {
	uint64_t window;         /* bytes of the bulk window; 0: none */
	uint64_t reserved[3];    /* 0 */
};

struct fe_stat {
	uint64_t id;
	uint64_t size;
	uint64_t modified_epoch;
	uint64_t pages;          /* data pages allocated */
	uint32_t type;           /* FE_TYPE_* */
	uint32_t refcount;
	uint32_t rights;         /* of the handle stat was called on */
	uint32_t reserved;
};

#define FE_NAME_MAX 255

/* A position in the catalogue for SYS_NAME_LIST. Zero it to start at the
 * first name with the prefix; the kernel advances it past each name it
 * returns. */
struct fe_cursor {
	uint16_t len;
	uint8_t started;
	uint8_t reserved;
	char name[FE_NAME_MAX];
};

struct fe_name_entry {
	uint64_t id;
	uint64_t size;
	uint32_t type;
	uint16_t len;            /* bytes of name, no NUL counted */
	uint16_t reserved;
	char name[FE_NAME_MAX + 1]; /* NUL-terminated */
};

/* SYS_SPAWN arguments. argv strings and the handle list are copied. */
#define FE_SPAWN_MAX_ARGS 64
#define FE_SPAWN_MAX_ARGV_BYTES 4096
#define FE_SPAWN_MAX_HANDLES 8

/* SYS_SPAWN flags (its third argument; 0 in every program built before
 * it had any). */
#define FE_SPAWN_TRACE 0x1u      /* the kernel prints each Linux call the
				  * program makes (a Linux program only) */
#define FE_SPAWN_FLAGS FE_SPAWN_TRACE

struct fe_handle_grant {
	int32_t handle;          /* must carry FE_RIGHT_GRANT */
	uint32_t rights;         /* a subset of the handle's rights */
};

/* A Linux program's standard descriptor (fe_spawn.fd[0..2]) from a grant:
 * descriptor 0 reads the grant's object (FE_RIGHT_READ, a blob or code
 * object), 1 and 2 write it (FE_RIGHT_WRITE, a blob), from offset 0 or,
 * with FE_SPAWN_FD_APPEND, at its end. A grant of 0 leaves the descriptor
 * on the console. Ferrite's own programs take none (-ERR_NOTSUP). */
#define FE_SPAWN_FD_GRANT(i) ((uint8_t)((i) + 1)) /* the i-th handle grant */
#define FE_SPAWN_FD_APPEND 0x01  /* writes go to the end (O_APPEND) */

struct fe_spawn_fd {
	uint8_t grant;           /* 0: the console; FE_SPAWN_FD_GRANT(i): handles[i] */
	uint8_t flags;           /* FE_SPAWN_FD_APPEND */
};

struct fe_spawn {
	const char *const *argv; /* argv[0] names the process (ps, kill lines) */
	uint32_t argc;
	uint32_t handle_count;
	const struct fe_handle_grant *handles;
	struct fe_spawn_fd fd[3]; /* a Linux program's descriptors 0, 1 and 2 */
	uint16_t reserved;       /* 0 */
};
_Static_assert(sizeof(struct fe_spawn) == 32, "struct fe_spawn is part of the ABI");

/* How a process ended (SYS_WAIT). */
enum fe_exit_reason {
	FE_EXIT_RUNNING = 0,     /* SYS_WAIT with FE_WAIT_NOHANG: still running */
	FE_EXIT_NORMAL = 1,      /* SYS_EXIT(status) */
	FE_EXIT_KILLED = 2,      /* SYS_KILL; a Linux program's signal (status: its number) */
	FE_EXIT_FAULT = 3,       /* a CPU exception in user mode */
	FE_EXIT_INTERRUPT = 4,   /* Ctrl-C while in the foreground */
};

/* What a fault was (fe_exit_info.vector, with FE_EXIT_FAULT): the CPU
 * exception, numbered as x86 numbers its exception vectors. */
enum fe_fault {
	FE_FAULT_DIVIDE = 0,           /* #DE divide error */
	FE_FAULT_DEBUG = 1,            /* #DB */
	FE_FAULT_BREAKPOINT = 3,       /* #BP int3 (a trap) */
	FE_FAULT_OVERFLOW = 4,         /* #OF into (a trap) */
	FE_FAULT_BOUND = 5,            /* #BR */
	FE_FAULT_INVALID_OPCODE = 6,   /* #UD */
	FE_FAULT_NO_DEVICE = 7,        /* #NM */
	FE_FAULT_SEGMENT = 11,         /* #NP */
	FE_FAULT_STACK = 12,           /* #SS */
	FE_FAULT_PROTECTION = 13,      /* #GP: privileged or non-canonical */
	FE_FAULT_PAGE = 14,            /* #PF: fault_addr says where */
	FE_FAULT_FPU = 16,             /* #MF x87 */
	FE_FAULT_ALIGNMENT = 17,       /* #AC */
	FE_FAULT_SIMD = 19,            /* #XM */
	FE_FAULT_CONTROL = 21,         /* #CP */
};

#define FE_WAIT_NOHANG 0x1

struct fe_exit_info {
	uint64_t pid;
	int64_t status;          /* FE_EXIT_NORMAL: the exit status; FE_EXIT_KILLED: the
				  * Linux signal that ended a Linux program, else 0 */
	uint32_t reason;         /* enum fe_exit_reason */
	uint32_t vector;         /* FE_EXIT_FAULT: enum fe_fault */
	uint64_t fault_addr;     /* page faults: the address */
	uint64_t fault_rip;
	char detail[96];         /* e.g. "page fault at 0x0 (read, not present), rip 0x401023" */
};
/* Part of the heap format too: the kernel keeps it in every ended process
 * object (struct kproc, kernel/kformat/kformat.h). Pinned: an edit here must
 * not silently move the bytes of a persistent structure. */
_Static_assert(sizeof(struct fe_exit_info) == 136, "fe_exit_info is persistent");
_Static_assert(__builtin_offsetof(struct fe_exit_info, status) == 8, "fe_exit_info is persistent");
_Static_assert(__builtin_offsetof(struct fe_exit_info, reason) == 16, "fe_exit_info is persistent");
_Static_assert(__builtin_offsetof(struct fe_exit_info, vector) == 20, "fe_exit_info is persistent");
_Static_assert(__builtin_offsetof(struct fe_exit_info, fault_addr) == 24, "fe_exit_info is persistent");
_Static_assert(__builtin_offsetof(struct fe_exit_info, fault_rip) == 32, "fe_exit_info is persistent");
_Static_assert(__builtin_offsetof(struct fe_exit_info, detail) == 40, "fe_exit_info is persistent");

enum fe_proc_state {
	FE_PROC_RUNNABLE = 1,
	FE_PROC_BLOCKED = 2,
	FE_PROC_EXITED = 3,      /* reserved: an ended process leaves the table at once */
};
/* Or-ed into fe_proc_info.state: a safe power-on holds the process; it
 * runs again after SYS_RESUME. */
#define FE_PROC_HELD 0x100

struct fe_proc_info {
	uint64_t pid;
	uint64_t parent_pid;     /* 0: none */
	uint64_t cpu_ns;         /* user + kernel time charged */
	uint64_t pages;          /* pages of memory the process has touched */
	uint32_t state;          /* enum fe_proc_state, maybe | FE_PROC_HELD */
	uint32_t blocked_on;     /* the SYS_ number it is blocked in, when blocked */
	char name[32];
};

/* The threads of one process: at most this many, tids 0 to FE_THREADS_MAX-1
 * (the first thread is 0). */
#define FE_THREADS_MAX 32

/* One thread, as SYS_THREAD_LIST says it. */
struct fe_thread_info {
	uint32_t tid;
	uint32_t state;          /* FE_THREAD_* */
	uint32_t blocked_on;     /* the SYS_ number it is blocked in, when blocked */
	int32_t cpu;             /* the CPU running it now, -1 none */
	int64_t exit_status;     /* FE_THREAD_EXITED: its status, until joined */
};
#define FE_THREAD_RUNNABLE 1
#define FE_THREAD_BLOCKED 2
#define FE_THREAD_EXITED 3

/* SYS_SNAPSHOT operations (docs/snapshots.md). */
enum fe_snapshot_op {
	FE_SNAP_TAKE = 1,        /* (name): the whole system as of the next commit; returns once durable */
	FE_SNAP_REMOVE = 2,      /* (name): its space goes back once no other snapshot needs it */
	FE_SNAP_LIST = 3,        /* (-, -, struct fe_snapshot_list *): the snapshots and the area */
	FE_SNAP_BOOT = 4,        /* (name, or len 0 for off): every power-on starts from it */
	FE_SNAP_KEEP = 5,        /* (-, -, count): power-on snapshots kept */
};

#define FE_SNAP_NAME_MAX 39      /* bytes of a snapshot name */
#define FE_SNAP_MAX 64           /* snapshots (with hidden ones) a heap holds */
#define FE_SNAP_TAKE_MAX (FE_SNAP_MAX - 1) /* taken at most: one place stays for the state a power-on into a snapshot replaces */

/* Snapshot flags. */
#define FE_SNAP_HEAD 0x1         /* the newest: the live state's changes go to it */
#define FE_SNAP_BOOTS 0x2        /* every power-on starts from it */
#define FE_SNAP_AUTO 0x4         /* taken by the system (power-on-N, before-NAME-N) */
#define FE_SNAP_HIDDEN 0x8       /* removed, kept while another snapshot needs its pages */

struct fe_snapshot_info {
	char name[FE_SNAP_NAME_MAX + 1]; /* "" for a hidden one */
	uint64_t epoch;          /* the committed epoch it holds */
	uint64_t time_ns;        /* wall clock when taken */
	uint64_t pages;          /* 4 KiB pages its copies take */
	uint64_t held;           /* pages removing it gives back now */
	uint32_t flags;          /* FE_SNAP_* */
	uint32_t reserved;
};

struct fe_snapshot_list {
	uint64_t area_pages;     /* pages of the snapshot area */
	uint64_t free_pages;
	uint64_t dropped;        /* times the area filled and every snapshot was dropped */
	uint32_t keep;           /* power-on snapshots kept */
	uint32_t count;          /* entries filled in `snapshots` */
	struct fe_snapshot_info snapshots[FE_SNAP_MAX];
};

/* SYS_CHAN_RECV flags and result. */
#define FE_CHAN_NONBLOCK 0x1
#define FE_CHAN_MSG_MAX 4000u    /* bytes of one message */
#define FE_CHAN_QUEUE 16u        /* messages queued in each direction */

struct fe_msg_info {
	uint32_t len;            /* bytes of the message (may exceed cap: truncated) */
	int32_t handle;          /* the handle passed with it, or -1 */
};

/* SYS_CONSOLE_READ modes. */
#define FE_CONSOLE_LINE 0        /* the kernel echoes and edits; returns a line with '\n' */
#define FE_CONSOLE_RAW 1         /* bytes as typed, no echo; at least one */
#define FE_CONSOLE_NONBLOCK 0x100 /* or-ed with a mode: -ERR_AGAIN instead of blocking */
#define FE_CONSOLE_NOECHO 0x200  /* or-ed with FE_CONSOLE_LINE: edited, not echoed (a password) */

/* SYS_TIME clocks. */
#define FE_CLOCK_MONOTONIC 0     /* ns of running time since genesis; continues across power-off */
#define FE_CLOCK_WALL 1          /* ns since 1970-01-01 UTC, from the RTC */

/* The most CPUs Ferrite runs on (the kernel's ARCH_MAX_CPUS). */
#define FE_MAX_CPUS 16

struct fe_sysinfo {
	uint64_t heap_size;      /* bytes of the NVM heap */
	uint64_t heap_used;      /* bytes in use (data pages) */
	uint64_t heap_free;
	uint64_t objects;
	uint64_t names;
	uint64_t power_ons;      /* power-ons of this heap, this one included */
	uint64_t epoch;          /* the committed epoch */
	uint64_t commits;        /* commits since genesis */
	uint64_t processes;      /* live processes */
	uint64_t uptime_ns;      /* FE_CLOCK_MONOTONIC now */
	uint64_t log_size;
	uint64_t log_used;
	uint64_t log_high_water;
	/* Checkpoints (docs/checkpoints.md). Figures "since this power-on"
	 * start again at every power-on. */
	uint64_t ckpt_period_ns;    /* ckpt= on the command line (default 1 ms); 0: no periodic commits */
	uint64_t ckpt_interval_ns;  /* the interval in force (the period, stretched so checkpoint work stays ~<= 10%) */
	uint64_t pause_last_ns;     /* the last commit: user code stopped -> resumed */
	uint64_t pause_max_ns;      /* since this power-on */
	uint64_t pause_mean_ns;     /* since this power-on */
	uint64_t power_on_commits;  /* commits since this power-on */
	uint64_t pages_last;        /* user pages the last committed epoch wrote to the heap (logged, or written back from the cache) */
	uint64_t pages_mean;        /* per commit, since this power-on */
	uint64_t resume_cycles;     /* this power-on: kernel entry -> first user thread loaded (TSC); 0 at genesis */
	uint64_t resume_ns;
	uint64_t rolled_back_records; /* this power-on's rollback */
	uint64_t rolled_back_bytes;
	/* The CPUs (docs/processes.md). The fields above are the structure's
	 * first version (FE_SYSINFO_SIZE_1 bytes), which SYS_SYSINFO fills
	 * when its size argument is not sizeof(struct fe_sysinfo): programs
	 * built before this part existed passed no size. */
	uint64_t cpus;              /* CPUs running */
	uint64_t power_on_ns;       /* time since this power-on */
	uint64_t stop_last_ns;      /* the last commit: first kick -> every other CPU stopped */
	uint64_t stop_max_ns;       /* since this power-on */
	uint64_t cpu_busy_ns[FE_MAX_CPUS]; /* time each CPU ran threads, this power-on */
	/* The DRAM cache in front of the NVM (docs/dram-cache.md); the
	 * fields above are the second version (FE_SYSINFO_SIZE_2 bytes).
	 * Counts are since this power-on. */
	uint64_t cache_pages_max;   /* its size in pages; 0: no cache */
	uint64_t cache_pages;       /* pages cached now */
	uint64_t cache_dirty;       /* of them, known written since the last commit */
	uint64_t cache_written_last; /* pages the last commit wrote back */
	uint64_t cache_written_back; /* pages written back by commits */
	uint64_t cache_moved;       /* of them, to a new heap page (the rest in place) */
	uint64_t cache_fills;       /* pages copied into DRAM (misses) */
	uint64_t cache_hits;        /* faults on a page already cached */
	uint64_t cache_evictions;   /* clean pages given back to make room */
	uint64_t cache_full;        /* commits asked for because no cached page was clean */
	/* A device whose stores are durable only after a flush request
	 * (virtio-pmem, docs/virtio-pmem.md); the fields above are the third
	 * version (FE_SYSINFO_SIZE_3 bytes). All 0 on an NVDIMM; counts are
	 * since this power-on. */
	uint64_t pmem_mode;         /* 0: an NVDIMM; 1: flush requests; 2: and a journal protects the heap */
	uint64_t pmem_flushes;      /* flushes completed */
	uint64_t pmem_flush_mean_ns; /* a flush: request sent -> completion taken */
	uint64_t pmem_flush_max_ns;
	uint64_t pmem_groups;       /* group commits: flushes asked for */
	uint64_t pmem_commits;      /* commits whose output waited for a flush */
	uint64_t pmem_journal_pages; /* page images written to the journal */
	uint64_t pmem_rebases;      /* groups the journal could not hold: the base copy rebuilt whole */
	uint64_t pmem_sync_waits;   /* sync calls that blocked for a flush */
	uint64_t pmem_waiting;      /* commits not yet covered by a completed flush, now */
	uint64_t pmem_waiting_max;  /* the most there were, just before a flush completed:
				     * the most epochs a host crash could have lost */
	uint64_t pmem_copy_mean_ns; /* a group's copy into the journal, every CPU stopped */
	uint64_t pmem_copy_max_ns;
	/* The kernel lock (docs/processes.md, "Every CPU"); the fields above
	 * are the fourth version (FE_SYSINFO_SIZE_4 bytes). Since this
	 * power-on. */
	uint64_t klock_held_ns[FE_MAX_CPUS]; /* time each CPU held the kernel lock */
	uint64_t klock_wait_ns[FE_MAX_CPUS]; /* time each CPU waited for it, spinning or halted */
};
#define FE_SYSINFO_SIZE_1 200
#define FE_SYSINFO_SIZE_2 360
#define FE_SYSINFO_SIZE_3 440
#define FE_SYSINFO_SIZE_4 544

#endif
