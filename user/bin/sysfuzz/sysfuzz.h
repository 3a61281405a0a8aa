/*
 * sysfuzz.h -- the system-call fuzzer's shared state and its three parts:
 *
 *   main.c   the family: the root process, the workers it spawns, kills and
 *            respawns, the trivial children fuzzed spawns start, the
 *            counts, the final line, cleaning up (docs/fuzzing.md)
 *   gen.c    random arguments (pointers, lengths, handles, names, rights)
 *            and the pools of things the fuzzer made (handles, ids,
 *            mappings, children), with the guards that keep a call from
 *            stopping the fuzzing itself in a boring way
 *   calls.c  one function per system call, each issuing exactly one call
 *            through fz_call; the weighted table that picks them
 *
 * Everything lives in ordinary globals, that is in the process's persistent
 * memory: a fuzzer cut by a power failure resumes with the same state.
 */
#ifndef SYSFUZZ_H
#define SYSFUZZ_H

#include <fe.h>

/* The process's own layout, which no fuzzed call may unmap or protect: the
 * program image, whose writable part [fe_image_data, fe_image_end) the
 * kernel may not write either (besides the scratch buffer), and the stack
 * region (docs/processes.md: STACK_TOP and STACK_SIZE). */
extern char fe_image_data[], fe_image_end[]; /* user/user.ld */
#define FZ_IMAGE_TOP (((uint64_t)(uintptr_t)fe_image_end + FE_PAGE_SIZE - 1) & \
		      ~(uint64_t)(FE_PAGE_SIZE - 1))
#define FZ_DATA ((uint64_t)(uintptr_t)fe_image_data)
#define FZ_STACK_LOW 0x00007ffeff800000ull
#define FZ_STACK_HIGH 0x00007fff00000000ull
/* Pages mapped once at start and kept: the edge page (one page with
 * nothing mapped after it, for buffers that straddle the end of a mapping),
 * the stats mapping, and the last page of user space. */
#define FZ_EDGE 0x0000300000000000ull
#define FZ_STATS_ADDR 0x0000380000000000ull
#define FZ_TOP_PAGE (FE_USER_TOP - FE_PAGE_SIZE)
/* Where mappings without an address land (uvm.c's search base). */
#define FZ_MAP_BASE 0x0000100000000000ull

#define FZ_SCRATCH (72u << 10)   /* the one buffer the kernel may write */
#define FZ_NAME_BUF (2 * FE_NAME_MAX) /* a buffer fz_name makes a name in */
#define FZ_PROCS_MAX 16u         /* processes of one family */
#define FZ_POOL 24u              /* live handles kept */
#define FZ_STALE 16u             /* closed handle values kept */
#define FZ_IDS 16u               /* ids of objects the fuzzer made */
#define FZ_MAPS 12u              /* mappings kept */
#define FZ_KIDS 4u               /* trivial children alive at once */
#define FZ_RESET_CALLS 4096u     /* calls between two resets (bounds heap use) */

enum fz_role {
	FZ_ROOT = 1,     /* started by a person: supervises, fuzzes safely */
	FZ_WORKER = 2,   /* spawned by the root; may crash itself */
};

/* One process's figures, in the stats object every process of the family
 * maps shared (slot 0: the root; slot i: worker i). */
struct fz_counts {
	uint64_t calls;
	uint64_t ok;
	uint64_t errors[ERR__COUNT]; /* by code: errors[ERR_BADF] ... */
	uint64_t odd;            /* negative results that are no error code */
	uint64_t made[SYS__COUNT + 1]; /* by call number; [SYS__COUNT]: none such */
	uint64_t succeeded[SYS__COUNT + 1];
	uint64_t touches;        /* direct loads and stores into mappings */
	uint64_t kid_ends[FE_EXIT_INTERRUPT + 1]; /* trivial children, by reason */
	uint64_t done;           /* the worker finished its budget */
	uint64_t failed;         /* it found a broken promise (printed FAIL) */
};

/* A mapping the fuzzer made and has not unmapped as a whole. */
struct fz_map {
	uint64_t addr;
	uint64_t len;
};

/* A trivial child a fuzzed spawn started. */
struct fz_kid {
	int32_t handle;
	uint64_t pid;
};

/* The state of one fuzzing process. */
struct fz_state {
	enum fz_role role;
	uint64_t seed;
	uint64_t rng;
	uint64_t pid;
	uint64_t budget;         /* calls to make; 0: forever */
	char prefix[32];         /* "fuzz/PID/": its own names */
	size_t prefix_len;
	char family[40];         /* "fuzz/ROOTPID/s/": names every process of
				  * the family changes; with prefix, the
				  * only names it binds, unbinds or renames */
	size_t family_len;
	struct fz_counts *counts;/* its slot of the stats object */
	int32_t code;            /* bin/sysfuzz, READ | EXEC | MAP */
	uint64_t code_id;
	int32_t carrier[2];      /* the one channel that may carry channel ends */
	int32_t precious[4 + FZ_PROCS_MAX]; /* handles no fuzzed call may use */
	unsigned precious_count;
	int32_t pool[FZ_POOL];
	unsigned pool_count;
	int32_t stale[FZ_STALE];
	unsigned stale_next;
	uint64_t ids[FZ_IDS];
	unsigned ids_next;
	struct fz_map maps[FZ_MAPS];
	unsigned map_count;
	struct fz_kid kids[FZ_KIDS];
	unsigned kid_count;
	uint64_t since_reset;
};

extern struct fz_state fz;
extern uint8_t fz_scratch[FZ_SCRATCH];

/* --- main.c ---------------------------------------------------------------- */

/* fz_fail -- print "sysfuzz: FAIL ..." and mark this process failed */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --- gen.c ----------------------------------------------------------------- */

/* fz_rand -- a pseudo-random value in [0, bound) */
uint64_t fz_rand(uint64_t bound);
/* fz_chance -- true with probability 1/n */
bool fz_chance(uint64_t n);
/* fz_any -- a pseudo-random 64-bit value */
uint64_t fz_any(void);

/* fz_ptr_in -- a pointer to len bytes the kernel will read */
uint64_t fz_ptr_in(uint64_t len);
/* fz_ptr_out -- a pointer to up to len bytes the kernel may write */
uint64_t fz_ptr_out(uint64_t len);
/* fz_ptr_bad -- a pointer the kernel must refuse whatever the length */
uint64_t fz_ptr_bad(void);
/* fz_readable -- a pointer to len bytes the fuzzer may read back itself */
uint64_t fz_readable(uint64_t len);
/* fz_len -- a length around `typical` or at a boundary */
uint64_t fz_len(uint64_t typical);
/* fz_offset -- an offset into an object */
uint64_t fz_offset(void);
/* fz_size -- a size for an object */
uint64_t fz_size(void);
/* fz_rights -- rights bits, mostly valid */
uint64_t fz_rights(void);
/* fz_handle -- a handle argument: live, closed or forged; never precious */
uint64_t fz_handle(void);
/* fz_range -- an address range for unmap and protect, never the fuzzer's own */
void fz_range(uint64_t *addr, uint64_t *len);
/* fz_name -- a name argument, made in buf; *own: it is under the prefix */
void fz_name(bool own_only, char *buf, uint64_t *ptr, uint64_t *len, bool *own);

/* fz_is_precious -- whether handle value v is one no fuzzed call may use */
bool fz_is_precious(uint64_t v);
/* fz_pool_add -- keep a new handle (closing a random one if the pool is full) */
void fz_pool_add(int32_t h);
/* fz_pool_closed -- forget handle value v, which is closed now */
void fz_pool_closed(uint64_t v);
/* fz_id_add -- remember the id of an object the fuzzer made */
void fz_id_add(int32_t h);
/* fz_id_own -- whether id is one the fuzzer made */
bool fz_id_own(uint64_t id);
/* fz_id -- an object id to open: the fuzzer's own or any */
uint64_t fz_id(bool *own);
/* fz_map_add -- remember a mapping (unmapping a random one if full) */
void fz_map_add(uint64_t addr, uint64_t len);
/* fz_map_removed -- forget the mappings that meet [addr, addr + len) */
void fz_map_removed(uint64_t addr, uint64_t len);
/* fz_kid_add -- remember a trivial child */
void fz_kid_add(int32_t handle);
/* fz_kid_handle -- a trivial child's handle, or -1 */
int32_t fz_kid_handle(void);
/* fz_kids_reap -- forget (and count) the trivial children that ended */
void fz_kids_reap(void);
/* fz_kids_end -- kill, wait for and close every trivial child */
void fz_kids_end(void);
/* fz_reset -- close every handle, unmap every mapping, unbind every name */
void fz_reset(void);
/* fz_unbind_prefix -- unbind every name under prefix; names unbound */
uint64_t fz_unbind_prefix(const char *prefix, size_t len);

/* --- calls.c --------------------------------------------------------------- */

/* fz_call -- issue system call nr, count its result; the result */
long fz_call(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
	     uint64_t a4, uint64_t a5);
/* fz_one -- one fuzzed system call chosen at random */
void fz_one(void);
/* fz_call_name -- the short name of call number nr ("obj_create"), or "nosys" */
const char *fz_call_name(unsigned nr);

#endif
