/*
 * fe.h -- the Ferrite user library: what a program calls.
 *
 * Three layers, all in user/lib/:
 *
 *   1. One function per system call (syscalls.c), named after it without
 *      the SYS_ prefix: fe_obj_open for SYS_OBJ_OPEN, fe_map for SYS_MAP...
 *      Each passes its arguments to the kernel exactly as the ABI in
 *      <ferrite/syscall.h> defines them, with no checks of its own, and
 *      returns the kernel's result: >= 0 on success, -ERR_x on failure. So
 *      tests can hand the kernel any pointer, length or handle they like.
 *   2. Conveniences over them (fe.c): names as C strings (fe_open, fe_bind,
 *      fe_unbind, fe_open_or_create), fe_sleep_ms, fe_spawn_program,
 *      fe_perror, fe_parse_arg.
 *   3. A little C runtime: threads with mutexes and condition variables
 *      (thread.c), printf/puts/putchar to the console (console.c),
 *      malloc/free/realloc/calloc on one anonymous heap object
 *      (malloc.c), and reproducible pseudo-random numbers (rand.c).
 *
 * Handles are int32_t (negative values are errors); addresses and sizes are
 * 64-bit. Nothing here keeps state outside the program's own memory, which
 * is persistent like the rest of the process: a program resumed after a
 * power cut finds its heap, its buffers and its variables as they were.
 */
#ifndef FE_H
#define FE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ctype.h>
#include <errstr.h>
#include <ferrite/errors.h>
#include <ferrite/syscall.h>
#include <numtext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number of handles inherited from the parent (set by crt0). */
extern uint64_t fe_inherited_count;

/* main -- every program's own; crt0 calls it and exits with its result */
int main(int argc, char **argv);

/* --- system calls, one each (syscalls.c) --------------------------------- */

/* fe_null -- SYS_NULL: the cheapest round trip into the kernel */
long fe_null(void);

/* fe_obj_create -- a new object of type FE_TYPE_* and size bytes -> handle */
long fe_obj_create(uint32_t type, uint64_t size);

/* fe_obj_open -- the object bound to name[name_len] -> handle with rights */
long fe_obj_open(const char *name, uint64_t name_len, uint32_t rights);

/* fe_obj_open_id -- the blob or code object with this id -> handle */
long fe_obj_open_id(uint64_t id, uint32_t rights);

/* fe_name_bind -- bind name[name_len] to the object of handle */
long fe_name_bind(int32_t handle, const char *name, uint64_t name_len);

/* fe_name_unbind -- remove the name name[name_len] */
long fe_name_unbind(const char *name, uint64_t name_len);

/* fe_name_rename -- move the binding of from[from_len] to to[to_len] */
long fe_name_rename(const char *from, uint64_t from_len, const char *to,
		    uint64_t to_len);

/* fe_name_list -- up to max names starting with prefix, after *cursor -> count */
long fe_name_list(const char *prefix, uint64_t prefix_len,
		  struct fe_cursor *cursor, struct fe_name_entry *entries,
		  uint64_t max);

/* fe_obj_stat -- what the object of handle is */
long fe_obj_stat(int32_t handle, struct fe_stat *st);

/* fe_obj_read -- up to len bytes at offset into buf -> bytes read */
long fe_obj_read(int32_t handle, uint64_t offset, void *buf, uint64_t len);

/* fe_obj_write -- up to len bytes of buf at offset -> bytes written */
long fe_obj_write(int32_t handle, uint64_t offset, const void *buf,
		  uint64_t len);

/* fe_obj_resize -- make the object size bytes long */
long fe_obj_resize(int32_t handle, uint64_t size);

/* fe_close -- drop a handle */
long fe_close(int32_t handle);

/* fe_dup -- a second handle to the same object with rights (a subset) */
long fe_dup(int32_t handle, uint32_t rights);

/* fe_map -- map len bytes at offset of handle; flags: FE_PROT_* | FE_MAP_* -> address */
long fe_map(int32_t handle, uint64_t offset, uint64_t len, uint32_t flags,
	    uint64_t addr);

/* fe_unmap -- remove the mappings in [addr, addr + len) */
long fe_unmap(uint64_t addr, uint64_t len);

/* fe_protect -- change the protection of [addr, addr + len) to FE_PROT_* */
long fe_protect(uint64_t addr, uint64_t len, uint32_t prot);

/* fe_sync -- return once the caller's state is durable (forces a commit) */
long fe_sync(void);

/* fe_snapshot -- SYS_SNAPSHOT: op on the snapshot called name (NULL: none), arg */
long fe_snapshot(uint32_t op, const char *name, uint64_t arg);

/* fe_spawn -- start the code object of handle as a new process, with
 * FE_SPAWN_* flags -> process handle */
long fe_spawn(int32_t code, const struct fe_spawn *spawn, uint32_t flags);

/* fe_exit -- end the calling process with status */
__attribute__((noreturn)) void fe_exit(long status);

/* fe_wait -- wait for the process of handle to end -> pid; with FE_WAIT_NOHANG 0 while it runs */
long fe_wait(int32_t process, struct fe_exit_info *info, uint32_t flags);

/* fe_kill -- kill pid, the caller or one of its descendants */
long fe_kill(uint64_t pid);

/* fe_proc_list -- up to max processes with pid >= first_pid -> count */
long fe_proc_list(struct fe_proc_info *info, uint64_t max, uint64_t first_pid);

/* fe_yield -- let another thread run */
long fe_yield(void);

/* fe_sleep_until -- block until FE_CLOCK_MONOTONIC reaches deadline_ns */
long fe_sleep_until(uint64_t deadline_ns);

/* fe_chan_create -- a channel; ends[0] and ends[1] are its two ends */
long fe_chan_create(int32_t ends[2]);

/* fe_chan_send -- queue len bytes of buf, and pass_handle unless it is -1 */
long fe_chan_send(int32_t handle, const void *buf, uint64_t len,
		  int32_t pass_handle);

/* fe_chan_recv -- the next message into buf[cap] (flags: FE_CHAN_NONBLOCK) -> bytes */
long fe_chan_recv(int32_t handle, void *buf, uint64_t cap,
		  struct fe_msg_info *info, uint32_t flags);

/* fe_console_read -- read from the console; mode: FE_CONSOLE_* -> bytes */
long fe_console_read(void *buf, uint64_t cap, uint32_t mode);

/* fe_console_write -- write len bytes of buf to the console -> bytes */
long fe_console_write(const void *buf, uint64_t len);

/* fe_time -- the clock FE_CLOCK_* in ns */
long fe_time(uint32_t clock);

/* fe_sysinfo -- figures about the whole system */
long fe_sysinfo(struct fe_sysinfo *info);

/* fe_console_fg -- make process the console's foreground (-1: none) */
long fe_console_fg(int32_t process);

/* fe_getpid -- the caller's pid */
long fe_getpid(void);

/* fe_thread_create -- a thread of this process runs at entry with rsp =
 * stack_top (aligned down to 16, less 8) and arg in rdi -> tid */
long fe_thread_create(uint64_t entry, uint64_t stack_top, uint64_t arg);

/* fe_thread_exit -- end the calling thread (the last one ends the process) */
long fe_thread_exit(long status);

/* fe_thread_join -- wait for thread tid to end, its status into *status;
 * it is then gone -> 0 */
long fe_thread_join(uint64_t tid, int64_t *status);

/* fe_futex_wait -- sleep while *addr == expected (-ERR_AGAIN if not) until
 * fe_futex_wake on addr -> 0 */
long fe_futex_wait(const uint32_t *addr, uint32_t expected);

/* fe_futex_wake -- wake at most max threads waiting on addr -> how many */
long fe_futex_wake(const uint32_t *addr, uint64_t max);

/* fe_gettid -- the calling thread's number in its process (0: the first) */
long fe_gettid(void);

/* fe_thread_list -- the threads of process pid, by tid -> how many listed */
long fe_thread_list(uint64_t pid, struct fe_thread_info *info, uint64_t max);

/* fe_poweroff -- commit everything, then power the machine off */
long fe_poweroff(void);

/* fe_resume -- let the processes a safe power-on holds run on -> how many */
long fe_resume(void);

/* fe_name_replace -- bind name[name_len] to the object of handle, whether
 * or not the name is bound (one change: a power cut leaves the old or the new) */
long fe_name_replace(int32_t handle, const char *name, uint64_t name_len);

/* fe_console_sink -- the caller's console output goes to the channel end
 * of handle (-1: the console again); children spawned later inherit it */
long fe_console_sink(int32_t channel);

/* fe_link_read -- up to cap bytes from the host link, with the link's
 * handle `link` (only the kernel hands one out: to the link's service) */
long fe_link_read(int32_t link, void *buf, uint64_t cap);

/* fe_link_write -- up to len bytes to the host, sent once committed, with
 * the link's handle -> bytes taken */
long fe_link_write(int32_t link, const void *buf, uint64_t len);

/* fe_link_move -- bytes between the host link's window and `object`, as
 * *move says, with the link's handle -> their CRC-32, or -ERR_x */
long fe_link_move(int32_t link, int32_t object, const struct fe_link_move *move);

/* fe_link_info -- what the host link offers (its window's size) */
long fe_link_info(int32_t link, struct fe_link_info *info);

/*
 * fe_syscall -- any call number (even one outside enum fe_syscall) with six
 * raw 64-bit arguments, for programs that test the kernel's checks (sysfuzz)
 */
long fe_syscall(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2,
		uint64_t a3, uint64_t a4, uint64_t a5);

/* --- conveniences (fe.c) -------------------------------------------------- */

/* fe_open -- fe_obj_open with a C string */
long fe_open(const char *name, uint32_t rights);

/* fe_bind -- fe_name_bind with a C string */
long fe_bind(int32_t handle, const char *name);

/* fe_unbind -- fe_name_unbind with a C string */
long fe_unbind(const char *name);

/* fe_open_or_create -- a read+write handle to the blob NAME, made and bound
 * if missing; -ERR_PERM if NAME is bound to something not writable (code) */
long fe_open_or_create(const char *name);

/* fe_now -- FE_CLOCK_MONOTONIC in ns */
uint64_t fe_now(void);

/* fe_sleep_ms -- sleep ms milliseconds (an absolute deadline underneath) */
long fe_sleep_ms(uint64_t ms);

/*
 * fe_spawn_program -- run "bin/NAME" with argv (NULL-terminated; NULL means
 * { name }) -> process handle. -ERR_NOENT when there is no bin/NAME.
 */
long fe_spawn_program(const char *name, const char *const *argv);

/* fe_spawn_program_grant -- fe_spawn_program, passing count handle grants
 * and FE_SPAWN_* flags */
long fe_spawn_program_grant(const char *name, const char *const *argv,
			    const struct fe_handle_grant *grants,
			    uint32_t count, uint32_t flags);

/* fe_spawn_program_with -- fe_spawn_program with the rest of *spawn (its
 * handle grants, a Linux program's descriptors) and FE_SPAWN_* flags; its
 * argv and argc are filled in from argv */
long fe_spawn_program_with(const char *name, const char *const *argv,
			   struct fe_spawn *spawn, uint32_t flags);

/* fe_perror -- print "prefix: message of err" on the console */
void fe_perror(const char *prefix, long err);

/*
 * fe_parse_arg -- the argument text, a number as parse_number reads it
 * (decimal, or hex after 0x; <numtext.h>), into *out; false, after printing
 * "program: what 'text' is not a number", if it is not one
 */
bool fe_parse_arg(const char *program, const char *what, const char *text,
		  uint64_t *out);

/* --- threads, mutexes, condition variables (thread.c) ------------------
 * Built on the system calls above. A mutex and a condition variable are a
 * 32-bit word each, all zero when free: put them anywhere, in memory that
 * stays mapped while they are used. Like every byte of the process they
 * are persistent: a program resumed after a power cut finds its locks as
 * the last commit left them, and its blocked threads waiting again. */

struct fe_mutex {
	uint32_t state;                /* 0 free, 1 held, 2 held with waiters */
};

struct fe_cond {
	uint32_t seq;                  /* bumped by every signal */
};

/* The stack of a thread fe_thread_start makes. */
#define FE_THREAD_STACK (64u << 10)

/* fe_thread_start -- run fn(arg) in a new thread with a stack of its own;
 * fn's result is the thread's exit status -> tid */
long fe_thread_start(long (*fn)(void *), void *arg);

/* fe_thread_wait -- join thread tid (fe_thread_join), its status into
 * *status, and give its stack back -> 0 */
long fe_thread_wait(long tid, int64_t *status);

void fe_mutex_lock(struct fe_mutex *m);
void fe_mutex_unlock(struct fe_mutex *m);

/* fe_cond_wait -- unlock m, sleep until signalled, lock m again (may wake
 * spuriously: wait in a loop over the condition) */
void fe_cond_wait(struct fe_cond *c, struct fe_mutex *m);
void fe_cond_signal(struct fe_cond *c);
void fe_cond_broadcast(struct fe_cond *c);

/* --- console output (console.c) ------------------------------------------- */

/* printf -- format to the console -> characters written, or a negative error */
int printf(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2)));

/* vprintf -- printf with a va_list */
int vprintf(const char *fmt, va_list ap) __attribute__((__format__(__printf__, 1, 0)));

/* puts -- s and a newline to the console */
int puts(const char *s);

/* putchar -- one character to the console -> c, or a negative error */
int putchar(int c);

/* fe_write_all -- all len bytes of buf to the console -> 0 or -ERR_x */
long fe_write_all(const void *buf, uint64_t len);

/* --- memory (malloc.c) ---------------------------------------------------- */

/* Where the heap object is mapped (a hint) and its size. */
#define FE_HEAP_HINT 0x0000100000000000ull
#define FE_HEAP_SIZE (1ull << 30)

/* malloc -- size bytes, 16-byte aligned, or NULL */
void *malloc(size_t size);

/* free -- give back what malloc, calloc or realloc returned (NULL: nothing) */
void free(void *ptr);

/* calloc -- n * size zeroed bytes, or NULL (also when n * size overflows) */
void *calloc(size_t n, size_t size);

/* realloc -- resize ptr's block to size bytes, moving it if need be, or NULL */
void *realloc(void *ptr, size_t size);

/* fe_keep_memory -- give a long-lived program now every page it will
 * write while it stays within `stack` bytes of stack below the caller and
 * `heap` bytes of malloc's heap, with its writable image: then a heap that
 * fills later cannot end it with a page fault (its calls fail with
 * -ERR_NOMEM instead). Done only if the heap has room to spare for it
 * (twice what it takes): 0, or -ERR_NOMEM when it did nothing. osh, the
 * console's shell, keeps its memory so. */
long fe_keep_memory(uint64_t stack, uint64_t heap);

/* --- pseudo-random numbers (rand.c) --------------------------------------- */

/* fe_mix64 -- x mixed so that every bit of it affects every bit of the result */
uint64_t fe_mix64(uint64_t x);

/* fe_rand_next -- advance *state; the next pseudo-random value */
uint64_t fe_rand_next(uint64_t *state);

/* fe_rand_below -- a pseudo-random value in [0, bound) (0 when bound is 0) */
uint64_t fe_rand_below(uint64_t *state, uint64_t bound);

#endif
