/*
 * proc.h -- the process table: processes and their volatile contexts
 * (proc.c).
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
#ifndef TASK_PROC_H
#define TASK_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ferrite/syscall.h"
#include "kformat/kformat.h"
#include "task/ptable.h"

/* Every program's stack: [PROC_STACK_TOP - PROC_STACK_SIZE, PROC_STACK_TOP),
 * sparse (pages exist once touched); its segments lie below it. */
#define PROC_STACK_TOP 0x00007fff00000000ull
#define PROC_STACK_SIZE (8ull << 20)

/* proc_start -- start code object `code` as `name` with no parent,
 * kproc.flags `flags`, and `grant` (NULL or object 0: none) as its first
 * inherited handle (FE_INHERITED_HANDLE(0)); NULL, after saying why, if
 * it cannot */
struct spawn_grant;
struct pctx *proc_start(uint64_t code, const char *name, uint32_t flags,
			const struct spawn_grant *grant);
/* proc_start_shell -- start bin/osh with no parent and kproc.flags
 * `flags`; NULL, after saying why, if it cannot start */
struct pctx *proc_start_shell(uint32_t flags);
/* proc_is_shell -- whether p is a shell: a process named as bin/osh's are */
bool proc_is_shell(const struct pctx *p);
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
/* proc_ends -- how many processes ended since power-on (a count to
 * compare: something ended since it was last read) */
uint64_t proc_ends(void);
/* proc_console_shell_end -- how the last shell on the console ended in
 * this power-on (pid 0: none did) */
const struct fe_exit_info *proc_console_shell_end(void);
/* proc_on_console -- whether p's console is the console, not a channel
 * it was sent to (SYS_CONSOLE_SINK) */
bool proc_on_console(const struct pctx *p);
/* proc_is_ancestor -- whether `a` is `p` or one of its ancestors */
bool proc_is_ancestor(const struct pctx *a, const struct pctx *p);
/* proc_thread_new -- a new runnable thread of p at `entry` with stack
 * pointer `sp` and argument `arg`; its tid in *tid. -ERR_NOSPC when p has
 * KPROC_MAX_THREADS threads (exited ones not yet joined included) */
int proc_thread_new(struct pctx *p, uint64_t entry, uint64_t sp, uint64_t arg,
		    unsigned *tid);
/* proc_thread_forget -- drop p's exited thread `tid` (joined): unlinked
 * from the list, its reference released */
void proc_thread_forget(struct pctx *p, unsigned tid);
/* proc_threads_alive -- p's threads that have not exited */
unsigned proc_threads_alive(const struct pctx *p);

/* The start of a Linux program (kernel/linux/ registers it): given the
 * new process, with its segments, its interpreter's (`interp`, NULL for a
 * static program) and its stack (below stack_top) mapped, make its Linux
 * state and start stack and set its first thread's registers; 0, or an
 * error that undoes the spawn. */
struct elf_image;
typedef int (*proc_linux_start_fn)(struct pctx *p, const struct elf_image *img,
				   const struct elf_image *interp,
				   const struct spawn_args *a, uint64_t stack_top);
/* The interpreter a Linux program names (PT_INTERP, kernel/linux/
 * registers it): the object its absolute path names below a new
 * program's root, in *object; -ERR_NOENT if none, -ERR_TOOBIG for a
 * path too long. */
typedef int (*proc_linux_interp_fn)(const char *path, uint64_t *object);

/* A Linux program ends: what it holds of others' goes at once (its
 * descriptors: a pipe's reader sees the end of its file). */
typedef void (*proc_linux_end_fn)(struct pctx *p);
/* A Linux parent hears that a child of its ended (SIGCHLD). */
typedef void (*proc_child_end_fn)(struct pctx *parent, uint64_t child);

/* proc_on_linux_start -- at power-on: how Linux programs start, how
 * their interpreters are found, how they end, and what a Linux parent
 * hears of a child's end */
void proc_on_linux_start(proc_linux_start_fn start, proc_linux_interp_fn interp,
			 proc_linux_end_fn end, proc_child_end_fn child_end);

/* proc_fork -- a child of p running p's code from `regs` (its first
 * thread, not yet runnable), its memory p's copy-on-write -- or, if
 * `borrow` (vfork), p's own address space, lent until the child execs or
 * ends (KPROC_VFORK; the caller blocks p's thread on KWAIT_VFORK, and
 * the child's execve or end completes that call with its pid) --, its
 * handles p's but for process handles; in *out. An error ends the
 * half-made child. */
struct arch_user_regs;
int proc_fork(struct pctx *p, const struct arch_user_regs *regs, bool borrow,
	      struct pctx **out);

/* proc_exec_image -- p runs `code` (parsed into img) in place of what it
 * ran: its mappings replaced by the program's segments, its
 * interpreter's (interp_code, parsed into interp; 0: none) and a fresh
 * stack (whose top is *stack_top), and named `name`; an error leaves p
 * without a program (the caller ends it) */
int proc_exec_image(struct pctx *p, uint64_t code, const struct elf_image *img,
		    uint64_t interp_code, const struct elf_image *interp,
		    const char *name, uint64_t *stack_top);

/* What SYS_SPAWN copied from the caller, validated. */
struct spawn_grant {
	uint64_t object;
	uint32_t rights;
	uint8_t end;
};
struct spawn_args {
	uint32_t flags;                /* FE_SPAWN_* */
	unsigned argc;
	size_t argv_bytes;             /* strings, NUL-terminated, back to back */
	char argv[FE_SPAWN_MAX_ARGV_BYTES];
	unsigned grant_count;
	struct spawn_grant grant[FE_SPAWN_MAX_HANDLES];
	/* A Linux program's descriptors 0, 1 and 2 (fe_spawn.fd): each a
	 * grant above (checked: its object and rights fit the descriptor),
	 * or the console */
	struct fe_spawn_fd fd[3];
};

#endif
