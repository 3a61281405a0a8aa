/*
 * proc.h -- processes, threads, address spaces, handles and channels: the
 * interface between the files of kernel/proc.
 *
 * Persistent state is in kformat/kformat.h. This header adds the volatile side: a
 * cache per process-table slot (struct pctx) of where its objects' bytes
 * are and of its page tables. The cache is derived from the heap and can
 * be dropped at any time (it is empty after every power-on).
 *
 * The kernel runs with interrupts disabled and one kernel stack; a system
 * call runs to completion or blocks by recording "blocked, restart call N"
 * in its thread (sched_block) and returning. So none of these functions is
 * ever re-entered.
 */
#ifndef PROC_PROC_H
#define PROC_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/heap.h"
#include "kformat/kformat.h"

struct trap_frame;

/* Volatile: one per process-table slot that is in use. */
struct pctx {
	uint64_t proc_id;
	struct kproc *proc;
	struct kthread *thread;
	struct kaspace *as;
	struct khandles *ht;
	uint64_t pt_root;              /* page tables (a cache of `as`); 0 none yet */
};

extern struct kroot *kroot;

/* --- kobj.c: typed access to kernel objects --------------------------- */
/* kobj_new -- a zeroed small object of `type` with `magic` first; refcount 1 */
int kobj_new(uint16_t type, uint64_t size, uint32_t magic, uint64_t *id,
	     void **data);
/* kobj_data -- object `id`'s bytes if it is a small object of `type` whose
 * magic is `magic`; NULL otherwise */
void *kobj_data(uint64_t id, uint16_t type, uint32_t magic);
/* kobj_type -- the type of object `id`, 0 if it does not exist */
uint16_t kobj_type(uint64_t id);
/* kobj_hold -- one more reference to a live object */
void kobj_hold(uint64_t id);
/* kobj_release -- one reference less; the last one passes to the reap
 * queue, which deletes the object at a safe point */
void kobj_release(uint64_t id);
/* kobj_dying -- whether object `id` waits in the reap queue */
bool kobj_dying(uint64_t id);
/* kobj_reap_init -- the reap queue of a new kernel root */
int kobj_reap_init(void);
/* kobj_reap -- delete queued objects, always leaving `keep` bytes of log
 * free; whether some remain (then commit and call again) */
bool kobj_reap(uint64_t keep);
/* KLOG -- log a kernel structure's bytes before changing them */
#define KLOG(ptr) heap_log((ptr), sizeof(*(ptr)))

/* --- proc.c: the process table ----------------------------------------- */
/* proc_init -- find or create the kernel root; start bin/osh at genesis */
void proc_init(void);
/* proc_slot -- the context of slot `slot`, NULL if free */
struct pctx *proc_slot(unsigned slot);
/* proc_current -- the running process, NULL when none */
struct pctx *proc_current(void);
/* proc_by_pid -- a live process, NULL if none */
struct pctx *proc_by_pid(uint64_t pid);
/* proc_spawn -- start `code` (a code object) with argv and handles; the
 * new process's slot in *slot */
struct spawn_args;
int proc_spawn(struct pctx *parent, uint64_t code, const struct spawn_args *a,
	       unsigned *slot);
/* proc_exit -- end a process: release everything it holds, record how it
 * ended (`how`, whose pid proc_exit fills in), wake its waiters */
void proc_exit(struct pctx *p, struct fe_exit_info *how);
/* proc_end -- proc_exit with a reason, status and detail text */
void proc_end(struct pctx *p, uint32_t reason, int64_t status,
	      const char *detail);
/* proc_is_ancestor -- whether `a` is `p` or one of its ancestors */
bool proc_is_ancestor(const struct pctx *a, const struct pctx *p);
/* proc_count -- live processes */
unsigned proc_count(void);

/* What SYS_SPAWN copied from the caller, validated. */
struct spawn_grant {
	uint64_t object;
	uint32_t rights;
	uint8_t end;
};
struct spawn_args {
	unsigned argc;
	size_t argv_bytes;             /* strings, NUL-terminated, back to back */
	char argv[FE_SPAWN_MAX_ARGV_BYTES];
	unsigned grant_count;
	struct spawn_grant grant[FE_SPAWN_MAX_HANDLES];
};

/* --- sched.c: running, blocking, waking, clocks ------------------------ */
/* sched_block -- block the current thread in the call `tf` is making; the
 * call is re-issued when it is woken */
void sched_block(struct trap_frame *tf, enum kwait wait, uint64_t obj,
		 uint64_t wake_ns);
/* sched_wake -- make runnable every thread blocked on (wait, obj) */
void sched_wake(enum kwait wait, uint64_t obj);
/* sched_yield -- let others run before the current thread goes on */
void sched_yield(void);
/* sched_forget -- the process in `slot` is gone */
void sched_forget(unsigned slot);
/* sched_commit_soon -- commit at the next safe point (SYS_SYNC) */
void sched_commit_soon(void);
/* sched_power_off -- save the caller, commit, and power off (returns only on failure) */
void sched_power_off(struct trap_frame *tf);
/* sched_ckpt_info -- fill the checkpoint figures of sysinfo */
void sched_ckpt_info(struct fe_sysinfo *info);
/* sched_tick -- the timer interrupt */
void sched_tick(void);
/* mono_ns -- FE_CLOCK_MONOTONIC */
uint64_t mono_ns(void);
/* sched_start -- enter user mode for good (does not return) */
__attribute__((noreturn)) void sched_start(void);

/* --- uvm.c: address spaces --------------------------------------------- */
enum uvm_access { UVM_READ = 1, UVM_WRITE = 2, UVM_EXEC = 4 };

/* uvm_map -- show `object` from `offset` at [addr, addr+len) (hint unless
 * FE_MAP_FIXED); takes a reference on the object. The address in *out. */
int uvm_map(struct pctx *p, uint64_t object, uint64_t offset, uint64_t len,
	    unsigned prot, unsigned flags, unsigned maxprot, uint64_t limit,
	    uint64_t addr, uint64_t *out);
int uvm_unmap(struct pctx *p, uint64_t addr, uint64_t len);
int uvm_protect(struct pctx *p, uint64_t addr, uint64_t len, unsigned prot);
/* uvm_destroy -- release every mapping and the page tables */
void uvm_destroy(struct pctx *p);
/* uvm_fault -- resolve a user access at va; 0, or an error with *why set */
int uvm_fault(struct pctx *p, uint64_t va, unsigned access, const char **why);
/* uvm_activate -- switch to p's page tables (made on first use) */
int uvm_activate(struct pctx *p);
/* What user memory cost the epoch that just committed. */
struct uvm_epoch {
	uint64_t pages;                /* user pages logged by write faults */
	uint64_t fault_ns;             /* time those faults spent in the kernel */
};
/* uvm_epoch_end -- after a commit: take the write bit from every user page
 * written in the epoch, so its next write is logged in the new one */
void uvm_epoch_end(struct uvm_epoch *done);
/* uvm_drop_tables -- free p's page tables (they are only a cache) */
void uvm_drop_tables(struct pctx *p);
/* uvm_pages -- pages of memory p has made (anonymous and copied pages) */
uint64_t uvm_pages(struct pctx *p);
/* Copies between kernel buffers and p's memory, with p's access rights:
 * -ERR_FAULT for anything outside p's mappings or the user half. */
int uvm_copy_in(struct pctx *p, void *dst, uint64_t src, uint64_t len);
/* uvm_check -- -ERR_FAULT unless [addr, addr+len) is mapped with `access`
 * (for checking a buffer before anything changes) */
int uvm_check(struct pctx *p, uint64_t addr, uint64_t len, unsigned access);
int uvm_copy_out(struct pctx *p, uint64_t dst, const void *src, uint64_t len);
/* uvm_copy_string -- a NUL-terminated string of at most max-1 bytes; its length */
int uvm_copy_string(struct pctx *p, char *dst, uint64_t src, size_t max);

/* --- handle.c ----------------------------------------------------------- */
/* handle_install -- a new handle for a reference the caller holds (the
 * handle takes it over); the handle value, or -ERR_NOSPC (caller keeps it) */
int handle_install(struct pctx *p, uint64_t object, uint32_t rights,
		   uint8_t end);
/* handle_get -- the entry for value h if it carries every right in `need` */
int handle_get(struct pctx *p, int64_t h, uint32_t need, struct khandle **out);
int handle_close(struct pctx *p, int64_t h);
void handle_close_all(struct pctx *p);

/* console_input_poll -- take typed bytes from the UART (Ctrl-C kills the
 * foreground process); wakes readers */
void console_input_poll(void);

/* --- console_io.c -------------------------------------------------------- */
int64_t console_read(struct trap_frame *tf, struct pctx *p, uint64_t buf,
		     uint64_t cap, uint64_t mode);
int64_t console_write(struct trap_frame *tf, struct pctx *p, uint64_t buf,
		      uint64_t len);
/* console_init -- find (or at genesis make) the console's queues */
void console_init(void);
/* console_emit -- queue kernel text for the console (sent after the
 * epoch commits); the bytes queued (fewer when the queue is full) */
size_t console_emit(const char *text, size_t len);
/* console_release -- right after a commit (or at power-on): send the
 * committed output to the UART, moving the durable "sent" cursor */
void console_release(void);

/* What a system call returns when it did not finish: the thread blocked
 * (the call is re-issued when it wakes), or the calling process is gone. */
#define SYSCALL_BLOCKED INT64_MIN
#define SYSCALL_GONE (INT64_MIN + 1)

/* sched_log_short -- whether the undo log could not take everything one
 * more kernel entry may log; if so, a commit happens at the next return to
 * user mode, and the caller backs out before changing anything (a system
 * call is restarted, a fault simply happens again) */
bool sched_log_short(void);

#endif
