/*
 * usertest.h -- every system call, as a program sees it, in the spirit of
 * xv6's usertests: what the files of usertest share.
 *
 *   usertest              run every check; one line per failed check, then
 *                         "usertest: N passed, M failed" (exit status M != 0)
 *   usertest many N       N concurrent sleeping children, killed and waited
 *   usertest churn N      N spawn + exit + wait of bin/hello
 *   usertest objects N    N blobs created, bound, written, unbound, closed
 *   usertest exhaust      fill the handle table, the process table, a
 *                         channel queue and the heap; each must be a clear
 *                         error and be given back ("N passed, M failed")
 *   usertest exhaust hold the same, waiting for a typed line while the
 *                         heap is full (a test watches others run meanwhile)
 *
 * many, churn and objects compare sysinfo's objects and heap_used before
 * and after and print one result line (exit status 1 on a leak).
 *
 * Isolation is checked by running usertest itself as a child, "usertest
 * fault KIND", for each forbidden act (fault_kinds[]): the child does the
 * act and must end with FE_EXIT_FAULT and the expected CPU exception; for a
 * page fault the child first writes the address it is about to touch into
 * a blob its parent granted it (inherited handle 0), and the parent checks
 * the kernel reported exactly that address. Other child modes ("exit N",
 * "argc ...", "sleep", "child-handle") serve the spawn, wait, kill and
 * handle-passing checks; "forge", "close-inherited", "peek ADDR",
 * "secret", "private-view" and "others PID" try to reach what belongs to
 * the parent or a sibling; "tick" and "grow" are the bystanders of the
 * heap-full check. docs/security.md maps each attack to its group.
 *
 * Every system call is exercised except SYS_POWEROFF, which would end the
 * run (osh's poweroff command uses it).
 *
 * Where the ABI fixes the error (a bad handle is -ERR_BADF, a bad pointer
 * -ERR_FAULT, missing rights -ERR_PERM...) the check wants exactly it;
 * where several errors would be honest (a non-blob opened by id) it wants
 * any error, and never success.
 *
 * usertest is one program in several files (user/bin/usertest/):
 *
 *   main.c        the harness (counting and reporting checks), the tables
 *                 of checks in the order they run, the child modes, main
 *   common.c      helpers the groups share: blobs, ids, rights, spawning
 *                 usertest as a child, sysinfo, touching an address
 *   objects.c     creating objects, handles, rights, bytes, wild pointers,
 *                 opening by id
 *   names.c       binding, opening, renaming, unbinding and listing names
 *   memory.c      mappings, protect, unmap, malloc, sync
 *   processes.c   spawn, grants, wait and kill, the process list
 *   time.c        clocks, sleeping, yielding, sysinfo
 *   console.c     console reads and writes
 *   channels.c    messages, handles in messages, ends in flight
 *   threads.c     threads: create, join, futexes, a mutex and a condition
 *                 variable from four threads, shared handles, a faulting
 *                 thread (child "thread-fault"), the thread table filled
 *   isolation.c   what a child must not reach of its parent or a sibling
 *   faults.c      forbidden acts in a child, each a CPU exception
 *   exhaust.c     "usertest exhaust": every limit reached, then recovered
 *   stress.c      "usertest many|churn|objects N": the leak checks
 */
#ifndef USERTEST_H
#define USERTEST_H

#include <fe.h>

/* Addresses a program must never reach. */
#define KERNEL_HHDM 0xffff800000000000ull   /* the kernel's direct map */
#define KERNEL_TEXT 0xffffffff80000000ull   /* the kernel image */
#define NONCANONICAL 0x0000800000000000ull  /* just above the user half */
#define UNMAPPED 0x00005ff000000000ull      /* user half, nothing mapped there */
#define WRAPPING 0xfffffffffffff000ull      /* + 0x2000 wraps around zero */

#define PAGE FE_PAGE_SIZE

/* The pid of this process (main sets it before anything runs). */
extern long self_pid;

/* launder -- an address the compiler cannot reason about */
static inline uint64_t launder(uint64_t addr)
{
	__asm__ volatile("" : "+r"(addr));
	return addr;
}

/* ptr -- an address as a pointer, laundered */
static inline void *ptr(uint64_t addr)
{
	return (void *)(uintptr_t)launder(addr);
}

/* --- main.c: checking ------------------------------------------------------ */

/* expect_eq -- check got == want; returns got */
long expect_eq(long got, long want, int line, const char *what);
/* expect_ok -- check got >= 0; returns got */
long expect_ok(long got, int line, const char *what);
/* expect_fail -- check got < 0 (any error) */
long expect_fail(long got, int line, const char *what);
/* expect_true -- check a condition */
bool expect_true(bool cond, int line, const char *what);

#define EQ(expr, want) expect_eq((long)(expr), (long)(want), __LINE__, #expr)
#define ERR(expr, err) expect_eq((long)(expr), -(long)(err), __LINE__, #expr)
#define OK(expr) expect_ok((long)(expr), __LINE__, #expr)
#define FAILS(expr) expect_fail((long)(expr), __LINE__, #expr)
#define CHECK(cond) expect_true((cond), __LINE__, #cond)

/* set_group -- name the checks that follow */
void set_group(const char *fmt, const char *arg);

/* --- common.c -------------------------------------------------------------- */

/* test_name -- "usertest/PID/suffix" into buf */
const char *test_name(char *buf, size_t cap, const char *suffix);
/* new_blob -- a blob of size bytes holding text at offset 0 -> handle */
int32_t new_blob(uint64_t size, const char *text);
/* object_id -- the id of the object of handle, or 0 */
uint64_t object_id(int32_t h);
/* handle_rights -- the rights of handle, or 0 */
uint32_t handle_rights(int32_t h);
/* spawn_self -- run "usertest ARGS..." (NULL-terminated) -> process handle */
long spawn_self(const char *const *argv, const struct fe_handle_grant *grants,
		uint32_t count);
/* wait_for -- wait for a child and close its handle -> the exit info */
struct fe_exit_info wait_for(long h);
/* child_pid -- the pid of a child, from a wait that does not hang */
uint64_t child_pid(long h);
/* sysinfo_now -- sysinfo, zeroed on failure */
struct fe_sysinfo sysinfo_now(void);
/* touch_read -- read a byte at addr (reported first) */
void touch_read(uint64_t addr);
/* touch_write -- write a byte at addr (reported first) */
void touch_write(uint64_t addr);
/* touch_exec -- call addr (reported first) */
void touch_exec(uint64_t addr);

/* --- the groups of checks, each a test_* the tables of main.c name --------- */

/* objects.c */
void test_null(void);
void test_create(void);
void test_bad_handles(void);
void test_rights(void);
void test_read_write(void);
void test_wild_pointers(void);
void test_open_id(void);

/* names.c */
void test_names(void);
void test_list(void);

/* memory.c */
void test_map_errors(void);
void test_map_shared(void);
void test_map_shared_by_two(void);
int run_shared_view_child(void);
void test_map_private(void);
void test_malloc(void);
void test_sync(void);

/* processes.c, and the child of test_grants */
void test_spawn(void);
void test_grants(void);
void test_spawn_fds(void);
void test_wait_kill(void);
void test_proc_list(void);
int run_child_handle(void);

/* time.c */
void test_time(void);
void test_sysinfo(void);

/* console.c */
void test_console(void);

/* channels.c */
void test_channel_messages(void);
void test_channel_handles(void);
void test_channel_end_in_flight(void);

/* threads.c, and the child of test_thread_fault */
void test_thread_create_join(void);
void test_futex(void);
void test_mutex_counters(void);
void test_thread_handles(void);
void test_thread_fault(void);
void test_thread_table_full(void);
int run_thread_fault_child(void);

/* isolation.c, and the children its checks run */
void test_forged_handles(void);
void test_passed_then_closed(void);
void test_open_id_sweep(void);
void test_private_memory(void);
void test_other_processes(void);
void test_link_powers(void);
int run_forge_child(int argc, char **argv);
int run_close_inherited_child(void);
int run_secret_child(void);
int run_peek_child(const char *where);
int run_private_view_child(void);
int run_others_child(const char *sibling);

/* faults.c: every forbidden act, and the child that does one */
void test_faults(void);
int run_fault_child(const char *name);

/* exhaust.c, and the bystanders of the heap-full check */
void test_too_many_handles(void);
void test_too_many_processes(void);
void test_queue_full(void);
void test_heap_full(void);
int run_ticker_child(void);
int run_grower_child(void);
/* "usertest exhaust hold": keep the heap full until a line is typed */
extern bool exhaust_hold;

/* stress.c: "usertest NAME N" for a stress mode NAME; -1 if there is none */
int run_stress_mode(const char *name, const char *count);

#endif
