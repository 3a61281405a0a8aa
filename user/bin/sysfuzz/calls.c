/*
 * calls.c -- one function per system call, and the table that picks them.
 *
 * Each fuzz_* function draws the arguments of one call (gen.c), issues it
 * through fz_call, which counts its result, and keeps what a success made
 * (a handle, a mapping, a child) in the pools for later calls. Registers a
 * call does not use get junk now and then: the kernel must ignore them.
 *
 * Some results are promises the fuzzer can check on the spot: a number
 * outside the table is -ERR_NOSYS whatever its upper bits, SYS_NULL is 0,
 * SYS_GETPID is the pid, SYS_RESUME is -ERR_INVAL, a new handle has a valid slot and generation, a
 * mapping lies in the user half, page aligned, and every negative result
 * is an error code. A broken one is a FAIL line (fz_fail).
 *
 * Calls that would stop the fuzzing in a boring way are shaped, not left
 * out: SYS_CONSOLE_READ and SYS_CHAN_RECV do not block (FE_CONSOLE_NONBLOCK,
 * FE_CHAN_NONBLOCK are or-ed into valid flags), SYS_WAIT blocks only on a
 * trivial child, SYS_SLEEP_UNTIL sleeps a few milliseconds at most -- except
 * in a worker now and then (may_block), which the root kills in time --,
 * SYS_CONSOLE_WRITE writes nothing (every buffer it gets is bad, or 0
 * bytes), SYS_CONSOLE_FG names -1 or a handle, SYS_KILL and SYS_EXIT end
 * the caller only in a worker and rarely, SYS_POWEROFF is never made, a
 * thread is made with a bad entry or stack or as a short one on a stack of
 * the fuzzer's, joined at once, SYS_FUTEX_WAIT never finds its value,
 * SYS_THREAD_EXIT is not made (the fuzzer's one thread would end it), a
 * console sink is taken away again at once (the fuzzer reports on the
 * console), and the host link's calls must fail: the fuzzer is not the
 * link's service.
 *
 * A few entries of the table are scenarios of several calls: touch (a load
 * or store at a mapping or a wild address: page faults), flood (a channel
 * queue filled), crowd (the handle table and the address space filled
 * while a few calls are fuzzed) and squeeze (the heap filled while a few
 * calls are fuzzed, in runs with an end only).
 */
#include "sysfuzz.h"

#define PAGE FE_PAGE_SIZE
#define MS 1000000ull
#define KASPACE_MAPS 32u         /* mappings an address space holds (docs/syscalls.md) */

/* Where fz_name makes most names. */
static char name_buf[FZ_NAME_BUF];

/* A fuzz function and how often it is picked. */
struct fz_entry {
	void (*run)(void);
	unsigned weight;
};

/* fz_call -- issue system call nr, count its result; the result */
long fz_call(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
	     uint64_t a4, uint64_t a5)
{
	long r = fe_syscall(nr, a0, a1, a2, a3, a4, a5);
	struct fz_counts *c = fz.counts;
	unsigned which = nr < SYS__COUNT ? (unsigned)nr : SYS__COUNT;

	c->calls++;
	c->made[which]++;
	fz.since_reset++;
	if (r >= 0) {
		c->ok++;
		c->succeeded[which]++;
	}
	else if (r > -ERR__COUNT)
		c->errors[-r]++;
	else {
		c->odd++;
		fz_fail("call %lu returned %ld, which is no error code", nr, r);
	}
	return r;
}

/* fz_call_name -- the short name of call number nr ("obj_create"), or "nosys" */
const char *fz_call_name(unsigned nr)
{
	static const char *const names[SYS__COUNT] = {
		"null", "obj_create", "obj_open", "obj_open_id", "name_bind",
		"name_unbind", "name_rename", "name_list", "obj_stat", "obj_read",
		"obj_write", "obj_resize", "close", "dup", "map", "unmap", "protect",
		"sync", "spawn", "exit", "wait", "kill", "proc_list", "yield",
		"sleep_until", "chan_create", "chan_send", "chan_recv",
		"console_read", "console_write", "time", "sysinfo", "console_fg",
		"getpid", "poweroff", "resume", "snapshot", "thread_create",
		"thread_exit", "thread_join", "futex_wait", "futex_wake", "gettid",
		"thread_list", "name_replace", "console_sink", "link_read",
		"link_write", "link_move", "link_info",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == SYS__COUNT, "a name per call");

	return nr < SYS__COUNT ? names[nr] : "nosys";
}

/* junk -- a value for an argument register the call does not use */
static uint64_t junk(void)
{
	return fz_chance(2) ? 0 : fz_any();
}

/* may_block -- whether this call may block for good: only in a worker,
 * now and then (the root kills it at a random moment, as any worker) */
static bool may_block(void)
{
	return fz.role == FZ_WORKER && fz_chance(16);
}

/* check_handle -- a call that made handle r gave a well-formed value */
static void check_handle(const char *call, long r)
{
	uint64_t slot = (uint64_t)r & 0xff, gen = (uint64_t)r >> 8;

	if (r <= 0 || slot >= FE_HANDLE_SLOTS || gen == 0 || gen > 0x7fffff)
		fz_fail("%s returned the handle %ld", call, r);
}

/* new_handle -- keep the handle a call returned */
static void new_handle(const char *call, long r)
{
	check_handle(call, r);
	fz_pool_add((int32_t)r);
}

/* fuzz_null -- SYS_NULL with junk in every register: 0 */
static void fuzz_null(void)
{
	long r = fz_call(SYS_NULL, junk(), junk(), junk(), junk(), junk(), junk());

	if (r != 0)
		fz_fail("SYS_NULL returned %ld", r);
}

/* fuzz_no_such_call -- a number outside the table, maybe a real one with
 * upper bits set: -ERR_NOSYS */
static void fuzz_no_such_call(void)
{
	static const uint64_t numbers[] = {
		SYS__COUNT, SYS__COUNT + 1, 63, 64, 255, 256, 1000, UINT32_MAX,
		UINT64_MAX, 1ull << 63,
	};
	uint64_t nr;
	long r;

	switch (fz_rand(3)) {
	case 0:
		nr = numbers[fz_rand(sizeof(numbers) / sizeof(numbers[0]))];
		break;
	case 1:
		/* A real number with upper bits set: never the real call. */
		nr = (1ull << (32 + fz_rand(32))) | fz_rand(SYS__COUNT);
		break;
	default:
		nr = fz_any() | (1ull << 62);
		break;
	}
	r = fz_call(nr, fz_any(), fz_any(), fz_any(), fz_any(), fz_any(), fz_any());
	if (r != -ERR_NOSYS)
		fz_fail("call number %#lx returned %ld, expected ERR_NOSYS", nr, r);
}

/* fuzz_obj_create -- SYS_OBJ_CREATE of any type and size */
static void fuzz_obj_create(void)
{
	static const uint64_t types[] = {
		FE_TYPE_BLOB, FE_TYPE_BLOB, FE_TYPE_BLOB, FE_TYPE_ANON, FE_TYPE_ANON,
		FE_TYPE_CODE, 0, FE_TYPE_PROCESS, FE_TYPE_CHANNEL, FE_TYPE_CATALOGUE,
		9, 1ull << 32 | FE_TYPE_BLOB,
	};
	uint64_t type = fz_chance(16) ? fz_any()
				      : types[fz_rand(sizeof(types) / sizeof(types[0]))];
	long r = fz_call(SYS_OBJ_CREATE, type, fz_size(), fz_handle(), fz_handle(),
			 junk(), junk());

	if (r >= 0 && type == FE_TYPE_CODE)
		fz_fail("SYS_OBJ_CREATE made a code object for a program without the link's handle");
	if (r < 0)
		return;
	fz_id_add((int32_t)r);
	new_handle("SYS_OBJ_CREATE", r);
}

/* open_rights -- rights to ask for: never write or grant on what is not the fuzzer's */
static uint64_t open_rights(bool own)
{
	uint64_t rights = fz_rights();

	return own ? rights : rights & ~(uint64_t)(FE_RIGHT_WRITE | FE_RIGHT_GRANT);
}

/* fuzz_obj_open -- SYS_OBJ_OPEN of the fuzzer's names and others' */
static void fuzz_obj_open(void)
{
	uint64_t name, len;
	bool own;
	long r;

	fz_name(false, name_buf, &name, &len, &own);
	r = fz_call(SYS_OBJ_OPEN, name, len, open_rights(own), junk(), junk(), junk());
	if (r >= 0)
		new_handle("SYS_OBJ_OPEN", r);
}

/* fuzz_obj_open_id -- SYS_OBJ_OPEN_ID of the fuzzer's ids and any */
static void fuzz_obj_open_id(void)
{
	bool own;
	uint64_t id = fz_id(&own);
	long r = fz_call(SYS_OBJ_OPEN_ID, id, open_rights(own), junk(), junk(),
			 junk(), junk());

	if (r >= 0)
		new_handle("SYS_OBJ_OPEN_ID", r);
}

/* fuzz_name_bind -- SYS_NAME_BIND of any handle to a name of the fuzzer's */
static void fuzz_name_bind(void)
{
	uint64_t name, len;
	bool own;

	fz_name(true, name_buf, &name, &len, &own);
	fz_call(SYS_NAME_BIND, fz_handle(), name, len, junk(), junk(), junk());
}

/* fuzz_name_replace -- SYS_NAME_REPLACE of any handle to a name of the fuzzer's */
static void fuzz_name_replace(void)
{
	uint64_t name, len;
	bool own;

	fz_name(true, name_buf, &name, &len, &own);
	fz_call(SYS_NAME_REPLACE, fz_handle(), name, len, junk(), junk(), junk());
}

/* fuzz_name_unbind -- SYS_NAME_UNBIND of one of the fuzzer's names */
static void fuzz_name_unbind(void)
{
	uint64_t name, len;
	bool own;

	fz_name(true, name_buf, &name, &len, &own);
	fz_call(SYS_NAME_UNBIND, name, len, junk(), junk(), junk(), junk());
}

/* fuzz_name_rename -- SYS_NAME_RENAME from one of the fuzzer's names to
 * another */
static void fuzz_name_rename(void)
{
	static char from_buf[FZ_NAME_BUF];
	uint64_t from, len, to, to_len;
	bool own;

	fz_name(true, from_buf, &from, &len, &own);
	fz_name(true, name_buf, &to, &to_len, &own);
	fz_call(SYS_NAME_RENAME, from, len, to, to_len, junk(), junk());
}

/* fill_cursor -- a cursor in scratch: zero (from the start) or random */
static uint64_t fill_cursor(void)
{
	struct fe_cursor *c = (struct fe_cursor *)(void *)fz_scratch;

	if (fz_chance(8))
		return fz_ptr_out(sizeof(*c));
	memset(c, 0, sizeof(*c));
	if (fz_chance(3)) {
		c->len = (uint16_t)(fz_chance(2) ? fz_rand(FE_NAME_MAX + 2) : fz_any());
		c->started = (uint8_t)fz_rand(3);
		for (unsigned i = 0; i < sizeof(c->name); i++)
			c->name[i] = (char)fz_any();
	}
	return (uint64_t)(uintptr_t)c;
}

/* fuzz_name_list -- SYS_NAME_LIST of any prefix, from a zero or random cursor */
static void fuzz_name_list(void)
{
	uint64_t prefix, len, max = fz_len(8), entries;
	uint64_t most = (max < 64 ? max : 64) * sizeof(struct fe_name_entry);
	bool own;

	fz_name(false, name_buf, &prefix, &len, &own);
	if (fz_chance(4)) {
		prefix = (uint64_t)(uintptr_t)fz.prefix;
		len = fz.prefix_len;
	}
	entries = fz_ptr_out(most);
	if (entries >= (uint64_t)(uintptr_t)fz_scratch &&
	    entries < (uint64_t)(uintptr_t)fz_scratch + sizeof(struct fe_cursor))
		entries += sizeof(struct fe_cursor); /* keep the cursor apart */
	fz_call(SYS_NAME_LIST, prefix, len, fill_cursor(), entries, max, junk());
}

/* fuzz_obj_stat -- SYS_OBJ_STAT of any handle */
static void fuzz_obj_stat(void)
{
	fz_call(SYS_OBJ_STAT, fz_handle(), fz_ptr_out(sizeof(struct fe_stat)),
		junk(), junk(), junk(), junk());
}

/* fuzz_obj_read -- SYS_OBJ_READ of any handle, offset and length */
static void fuzz_obj_read(void)
{
	uint64_t len = fz_len(fz_rand(2) ? PAGE : FE_IO_MAX);
	uint64_t most = len < FE_IO_MAX ? len : FE_IO_MAX;

	fz_call(SYS_OBJ_READ, fz_handle(), fz_offset(), fz_ptr_out(most), len,
		junk(), junk());
}

/* fuzz_obj_write -- SYS_OBJ_WRITE of any handle, offset and length */
static void fuzz_obj_write(void)
{
	uint64_t len = fz_len(fz_rand(2) ? PAGE : FE_IO_MAX);
	uint64_t most = len < FE_IO_MAX ? len : FE_IO_MAX;

	fz_call(SYS_OBJ_WRITE, fz_handle(), fz_offset(), fz_ptr_in(most), len,
		junk(), junk());
}

/* fuzz_obj_resize -- SYS_OBJ_RESIZE of any handle to any size */
static void fuzz_obj_resize(void)
{
	fz_call(SYS_OBJ_RESIZE, fz_handle(), fz_size(), junk(), junk(), junk(), junk());
}

/* fuzz_close -- SYS_CLOSE of any handle */
static void fuzz_close(void)
{
	uint64_t h = fz_handle();

	if (fz_call(SYS_CLOSE, h, junk(), junk(), junk(), junk(), junk()) == 0)
		fz_pool_closed(h);
}

/* fuzz_dup -- SYS_DUP of any handle with any rights */
static void fuzz_dup(void)
{
	long r = fz_call(SYS_DUP, fz_handle(), fz_rights(), junk(), junk(), junk(),
			 junk());

	if (r >= 0)
		new_handle("SYS_DUP", r);
}

/* map_flags -- protection and sharing bits, mostly valid */
static uint64_t map_flags(void)
{
	uint64_t prot = fz_rand(FE_PROT_MASK + 1);
	uint64_t sharing = fz_rand(4) ? (fz_rand(2) ? FE_MAP_SHARED : FE_MAP_PRIVATE)
				      : fz_rand(4) * FE_MAP_SHARED;
	uint64_t fixed = fz_chance(4) ? FE_MAP_FIXED : 0;

	if (fz_chance(16))
		return fz_any();
	if (fz_chance(16))
		return prot | sharing | fixed | (1ull << fz_rand(64));
	return prot | sharing | fixed;
}

/* bad_outside_user_half -- a bad pointer no mapping can cover: fz_ptr_bad's
 * user-half holes (after the edge page, the never-mapped range) stay bad
 * only if no SYS_MAP is ever asked to map there; once one was, a console
 * write through a "bad" pointer printed its zero bytes onto the console,
 * in front of another program's line */
static uint64_t bad_outside_user_half(void)
{
	uint64_t addr;

	do
		addr = fz_ptr_bad();
	while (addr >= FE_USER_BASE && addr < FE_USER_TOP);
	return addr;
}

/* map_address -- where to ask for a mapping (a hint, or fixed) */
static uint64_t map_address(void)
{
	switch (fz_rand(8)) {
	case 0: case 1:
		return 0;
	case 2: case 3:
		return FZ_MAP_BASE + fz_rand(1u << 18) * PAGE;
	case 4:
		return FZ_TOP_PAGE - fz_rand(4) * PAGE;       /* taken, or the last free pages */
	case 5:
		return FE_USER_BASE + fz_rand(16) * PAGE;     /* the image: taken */
	case 6:
		return FZ_MAP_BASE + fz_rand(1u << 18) * PAGE + 1 + fz_rand(PAGE - 1);
	default:
		return bad_outside_user_half();
	}
}

/* fuzz_map -- SYS_MAP of any handle, offset, length, flags and address */
static void fuzz_map(void)
{
	uint64_t flags = map_flags(), addr = map_address();
	uint64_t len = fz_rand(2) ? (1 + fz_rand(16)) * PAGE - fz_rand(2) : fz_len(PAGE);
	long r = fz_call(SYS_MAP, fz_handle(), fz_offset(), len, flags, addr, junk());
	uint64_t got = (uint64_t)r;

	if (r < 0)
		return;
	if (got % PAGE || got < FE_USER_BASE || got >= FE_USER_TOP ||
	    ((flags & FE_MAP_FIXED) && got != addr))
		fz_fail("SYS_MAP (flags %#lx, address %#lx) returned %#lx", flags, addr, got);
	fz_map_add(got, (len + PAGE - 1) & ~(uint64_t)(PAGE - 1));
}

/* fuzz_unmap -- SYS_UNMAP of a range (never the fuzzer's own) */
static void fuzz_unmap(void)
{
	uint64_t addr, len;

	fz_range(&addr, &len);
	if (fz_call(SYS_UNMAP, addr, len, junk(), junk(), junk(), junk()) == 0)
		fz_map_removed(addr, len);
}

/* fuzz_protect -- SYS_PROTECT of a range (never the fuzzer's own) to any
 * protection */
static void fuzz_protect(void)
{
	uint64_t addr, len, prot = fz_chance(8) ? fz_any() : fz_rand(FE_PROT_MASK + 1);

	fz_range(&addr, &len);
	fz_call(SYS_PROTECT, addr, len, prot, junk(), junk(), junk());
}

/* fuzz_sync -- SYS_SYNC */
static void fuzz_sync(void)
{
	fz_call(SYS_SYNC, junk(), junk(), junk(), junk(), junk(), junk());
}

/* spawn_string -- an argument string for a trivial child into buf */
static const char *spawn_string(char *buf, size_t cap, bool first)
{
	size_t n;

	if (first && fz_rand(4))
		return "sysfuzz-x";
	n = fz_chance(32) ? cap - 1 : fz_rand(24);
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(1 + fz_rand(255));
	buf[n] = '\0';
	/* Only the root and the workers are named exactly so. */
	if (strcmp(buf, "sysfuzz") == 0 || strcmp(buf, "sysfuzz-w") == 0)
		buf[0] = 'X';
	return buf;
}

/* spawn_grants -- handles to pass, some bad */
static uint64_t spawn_grants(uint32_t *count)
{
	static struct fe_handle_grant grants[FE_SPAWN_MAX_HANDLES + 1];

	*count = (uint32_t)(fz_rand(4) ? fz_rand(3) : fz_rand(FE_SPAWN_MAX_HANDLES + 2));
	for (unsigned i = 0; i < sizeof(grants) / sizeof(grants[0]); i++)
		grants[i] = (struct fe_handle_grant){
			(int32_t)fz_handle(), (uint32_t)fz_rights(),
		};
	return fz_chance(8) ? fz_ptr_in(sizeof(grants)) : (uint64_t)(uintptr_t)grants;
}

/* spawn_code -- a code handle: the program's own code, or anything that is
 * not another program (which would really run) */
static uint64_t spawn_code(void)
{
	uint64_t h = fz_handle();
	struct fe_stat st;

	if (fz_rand(3) == 0)
		return (uint64_t)(int64_t)fz.code;
	if (fe_obj_stat((int32_t)h, &st) == 0 && (h >> 31) == 0 &&
	    st.type == FE_TYPE_CODE && st.id != fz.code_id)
		return (uint64_t)(int64_t)fz.code;
	return h;
}

/* spawn_flags -- SYS_SPAWN's flags: mostly none, now and then the trace
 * (refused: sysfuzz is no Linux program) or any bits */
static uint64_t spawn_flags(void)
{
	if (fz_chance(8))
		return FE_SPAWN_TRACE;
	return fz_chance(8) ? fz_any() : 0;
}

/* fuzz_spawn -- SYS_SPAWN of bin/sysfuzz (or a non-program) with any
 * arguments and grants */
static void fuzz_spawn(void)
{
	static char strings[4][64];
	static const char *argv[FE_SPAWN_MAX_ARGS + 2];
	static struct fe_spawn sp;
	uint64_t args = (uint64_t)(uintptr_t)&sp;
	long r;

	for (unsigned i = 0; i < sizeof(argv) / sizeof(argv[0]); i++)
		argv[i] = spawn_string(strings[i % 4], sizeof(strings[0]), i == 0);
	sp.argv = argv;
	sp.argc = (uint32_t)(fz_rand(4) ? 1 + fz_rand(4) : fz_len(FE_SPAWN_MAX_ARGS));
	sp.handles = (const struct fe_handle_grant *)(uintptr_t)spawn_grants(&sp.handle_count);
	memset(sp.fd, 0, sizeof(sp.fd));
	if (fz_chance(8)) /* descriptors, which a program of Ferrite's refuses */
		for (unsigned i = 0; i < 3; i++)
			sp.fd[i] = (struct fe_spawn_fd){
				(uint8_t)fz_rand(FE_SPAWN_MAX_HANDLES + 2), (uint8_t)fz_rand(3),
			};
	sp.reserved = fz_chance(32) ? (uint16_t)fz_any() : 0;
	if (fz_chance(8))
		sp.argv = (const char *const *)(uintptr_t)fz_ptr_in(sizeof(argv));
	if (fz_chance(16))
		args = fz_ptr_in(sizeof(sp));
	if (fz.kid_count == FZ_KIDS)
		sp.argc = 0; /* enough children: only the refusal */
	r = fz_call(SYS_SPAWN, spawn_code(), args, spawn_flags(), junk(), junk(), junk());
	if (r < 0)
		return;
	check_handle("SYS_SPAWN", r);
	fz_kid_add((int32_t)r);
	fz_pool_add((int32_t)r);
}

/* fuzz_exit -- SYS_EXIT with any status, in a worker now and then */
static void fuzz_exit(void)
{
	/* Only a worker ends itself, and rarely: the root sees it and respawns. */
	if (fz.role == FZ_WORKER && fz_chance(8))
		fz_call(SYS_EXIT, fz_any(), junk(), junk(), junk(), junk(), junk());
}

/* fuzz_wait -- SYS_WAIT on any handle (blocking only on a trivial child) */
static void fuzz_wait(void)
{
	uint64_t flags = fz_rand(4) ? FE_WAIT_NOHANG : fz_rights();
	uint64_t h = fz_rand(3) ? fz_handle() : (uint64_t)(int64_t)fz_kid_handle();
	bool kid = false;

	for (unsigned i = 0; i < fz.kid_count; i++)
		kid |= (uint64_t)(int64_t)fz.kids[i].handle == h;
	if (!(flags & ~(uint64_t)FE_WAIT_NOHANG) && !kid && !may_block())
		flags |= FE_WAIT_NOHANG; /* block only on a child that ends soon */
	fz_call(SYS_WAIT, h, fz_ptr_out(sizeof(struct fe_exit_info)), flags, junk(),
		junk(), junk());
}

/* fuzz_kill -- SYS_KILL of a child, any pid, or (rarely, a worker) itself */
static void fuzz_kill(void)
{
	uint64_t pid;

	switch (fz_rand(6)) {
	case 0: case 1:
		pid = fz.kid_count ? fz.kids[fz_rand(fz.kid_count)].pid : 0;
		break;
	case 2:
		pid = 1 + fz_rand(fz.pid + 8);
		break;
	case 3:
		pid = fz_chance(2) ? 0 : UINT64_MAX;
		break;
	case 4:
		pid = fz_any();
		break;
	default:
		pid = fz.pid;
		break;
	}
	/* Only a worker kills itself, and rarely. */
	if (pid == fz.pid && (fz.role != FZ_WORKER || !fz_chance(64)))
		pid = UINT64_MAX;
	fz_call(SYS_KILL, pid, junk(), junk(), junk(), junk(), junk());
}

/* fuzz_proc_list -- SYS_PROC_LIST into any buffer, from any pid */
static void fuzz_proc_list(void)
{
	uint64_t max = fz_len(8);
	uint64_t most = (max < 192 ? max : 192) * sizeof(struct fe_proc_info);
	uint64_t first = fz_rand(2) ? fz_rand(fz.pid + 8) : fz_any();

	fz_call(SYS_PROC_LIST, fz_ptr_out(most), max, first, junk(), junk(), junk());
}

/* fuzz_yield -- SYS_YIELD */
static void fuzz_yield(void)
{
	fz_call(SYS_YIELD, junk(), junk(), junk(), junk(), junk(), junk());
}

/* fuzz_sleep_until -- SYS_SLEEP_UNTIL of a past or near deadline */
static void fuzz_sleep_until(void)
{
	uint64_t now = fe_now(), deadline;

	switch (fz_rand(4)) {
	case 0:
		deadline = 0;
		break;
	case 1:
		deadline = now - fz_rand(now + 1);
		break;
	default:
		/* A short sleep: never a hang (but a long one in a worker). */
		deadline = now + (may_block() ? fz_rand(10000 * MS) : fz_rand(2 * MS));
		break;
	}
	fz_call(SYS_SLEEP_UNTIL, deadline, junk(), junk(), junk(), junk(), junk());
}

/* fuzz_chan_create -- SYS_CHAN_CREATE; both ends join the pool */
static void fuzz_chan_create(void)
{
	uint64_t ends = fz_readable(2 * sizeof(int32_t));
	int32_t pair[2];

	if (fz_call(SYS_CHAN_CREATE, ends, junk(), junk(), junk(), junk(), junk()) != 0)
		return;
	memcpy(pair, (const void *)(uintptr_t)ends, sizeof(pair));
	new_handle("SYS_CHAN_CREATE", pair[0]);
	new_handle("SYS_CHAN_CREATE", pair[1]);
}

/* may_pass -- whether sending handle `pass` on channel `end` could make a
 * cycle of channels that no process holds (docs/syscalls.md, SYS_CHAN_SEND):
 * only the carrier, which is never passed, carries channel ends */
static bool may_pass(uint64_t end, uint64_t pass)
{
	struct fe_stat ps, es;

	if ((int64_t)pass == -1 || (pass >> 31) != 0 ||
	    fe_obj_stat((int32_t)pass, &ps) != 0 || ps.type != FE_TYPE_CHANNEL)
		return true;
	if (end == (uint64_t)(int64_t)fz.carrier[0])
		return true;
	/* The same channel: the kernel refuses it, which is worth a call. */
	return (end >> 31) == 0 && fe_obj_stat((int32_t)end, &es) == 0 &&
	       es.id == ps.id;
}

/* fuzz_chan_send -- SYS_CHAN_SEND of any bytes on any handle, passing any
 * handle that makes no cycle */
static void fuzz_chan_send(void)
{
	uint64_t len = fz_len(fz_rand(2) ? 32 : FE_CHAN_MSG_MAX);
	uint64_t most = len < FE_CHAN_MSG_MAX ? len : FE_CHAN_MSG_MAX;
	uint64_t end = fz_chance(4) ? (uint64_t)(int64_t)fz.carrier[0] : fz_handle();
	uint64_t pass = fz_rand(2) ? UINT64_MAX : fz_handle();

	if (!may_pass(end, pass))
		pass = UINT64_MAX;
	fz_call(SYS_CHAN_SEND, end, fz_ptr_in(most), len, pass, junk(), junk());
}

/* fuzz_chan_recv -- SYS_CHAN_RECV on any handle; a handle received joins the
 * pool */
static void fuzz_chan_recv(void)
{
	uint64_t cap = fz_len(fz_rand(2) ? 64 : FE_CHAN_MSG_MAX);
	uint64_t most = cap < FE_CHAN_MSG_MAX ? cap : FE_CHAN_MSG_MAX;
	uint64_t end = fz_chance(4) ? (uint64_t)(int64_t)fz.carrier[1] : fz_handle();
	uint64_t info = fz_readable(sizeof(struct fe_msg_info));
	uint64_t flags = fz_rand(8) ? FE_CHAN_NONBLOCK : fz_rights();
	struct fe_msg_info got;
	long r;

	if (!(flags & ~(uint64_t)FE_CHAN_NONBLOCK) && !may_block())
		flags |= FE_CHAN_NONBLOCK; /* never wait for a message nobody sends */
	/* The kernel writes the message before the info, so they may overlap. */
	r = fz_call(SYS_CHAN_RECV, end, fz_ptr_out(most), cap, info, flags, junk());
	if (r < 0)
		return;
	memcpy(&got, (const void *)(uintptr_t)info, sizeof(got));
	if (got.handle != -1)
		new_handle("SYS_CHAN_RECV", got.handle);
}

/* fuzz_console_read -- SYS_CONSOLE_READ in any mode into any buffer */
static void fuzz_console_read(void)
{
	uint64_t cap = fz_len(64);
	uint64_t mode = fz_rand(8) ? fz_rand(3) : fz_any();

	fz_call(SYS_CONSOLE_READ, fz_ptr_out(cap < FE_IO_MAX ? cap : FE_IO_MAX), cap,
		mode | (may_block() ? 0 : FE_CONSOLE_NONBLOCK), junk(), junk(), junk());
}

/* fuzz_console_write -- SYS_CONSOLE_WRITE of a buffer it refuses whole, or of
 * 0 bytes */
static void fuzz_console_write(void)
{
	uint64_t len = fz_len(64), buf = fz_ptr_bad();

	if (fz_chance(4)) {
		buf = FZ_EDGE + PAGE - fz_rand(PAGE);  /* straddles the end: refused whole */
		if (len <= FZ_EDGE + PAGE - buf)
			len = FZ_EDGE + PAGE - buf + 1 + fz_rand(PAGE);
	} else if (fz_chance(4)) {
		buf = (uint64_t)(uintptr_t)fz_scratch;
		len = 0;
	}
	fz_call(SYS_CONSOLE_WRITE, buf, len, junk(), junk(), junk(), junk());
}

/* fuzz_time -- SYS_TIME of any clock: only the two exist */
static void fuzz_time(void)
{
	static const uint64_t clocks[] = {
		FE_CLOCK_MONOTONIC, FE_CLOCK_WALL, 2, 3, 1ull << 32, UINT64_MAX,
	};
	uint64_t clock = fz_chance(8) ? fz_any() : clocks[fz_rand(6)];
	long r = fz_call(SYS_TIME, clock, junk(), junk(), junk(), junk(), junk());

	if ((clock <= FE_CLOCK_WALL) != (r >= 0))
		fz_fail("SYS_TIME(%#lx) returned %ld", clock, r);
}

/* fuzz_sysinfo -- SYS_SYSINFO into any buffer */
static void fuzz_sysinfo(void)
{
	fz_call(SYS_SYSINFO, fz_ptr_out(sizeof(struct fe_sysinfo)), junk(), junk(),
		junk(), junk(), junk());
}

/* fuzz_console_fg -- SYS_CONSOLE_FG of -1, a trivial child or any handle */
static void fuzz_console_fg(void)
{
	uint64_t h;

	switch (fz_rand(4)) {
	case 0:
		h = UINT64_MAX;
		break;
	case 1:
		h = (uint64_t)(int64_t)fz_kid_handle();
		break;
	default:
		h = fz_handle();
		break;
	}
	fz_call(SYS_CONSOLE_FG, h, junk(), junk(), junk(), junk(), junk());
}

/* fuzz_console_sink -- SYS_CONSOLE_SINK of -1 or any handle; a sink set
 * is taken away at once, and that must succeed */
static void fuzz_console_sink(void)
{
	uint64_t h = fz_chance(4) ? UINT64_MAX : (uint64_t)(int64_t)fz_handle();
	long r = fz_call(SYS_CONSOLE_SINK, h, junk(), junk(), junk(), junk(), junk());

	if (r == 0 && h != UINT64_MAX) {
		r = fz_call(SYS_CONSOLE_SINK, UINT64_MAX, junk(), junk(), junk(), junk(), junk());
		if (r != 0)
			fz_fail("SYS_CONSOLE_SINK(-1) returned %ld", r);
	}
}

/* fuzz_link -- SYS_LINK_READ, _WRITE, _MOVE or _INFO: the fuzzer holds
 * no handle to the link, so they fail, whatever handles and buffers it
 * names */
static void fuzz_link(void)
{
	static const uint64_t calls[] = { SYS_LINK_READ, SYS_LINK_WRITE, SYS_LINK_MOVE,
					  SYS_LINK_INFO };
	static const char *const names[] = { "READ", "WRITE", "MOVE", "INFO" };
	unsigned which = (unsigned)fz_rand(4);
	uint64_t len = which == 0 ? fz_len(256) : fz_len(64);
	uint64_t buf = which == 0 || which == 3 ? fz_ptr_out(len) : fz_ptr_in(len);
	long r = which == 2 ? fz_call(SYS_LINK_MOVE, fz_handle(), fz_handle(), buf, junk(),
				      junk(), junk())
			    : fz_call(calls[which], fz_handle(), buf, len, junk(), junk(), junk());

	if (r >= 0)
		fz_fail("SYS_LINK_%s returned %ld to a program without the link's handle",
			names[which], r);
}

/* fuzz_getpid -- SYS_GETPID: the pid */
static void fuzz_getpid(void)
{
	long r = fz_call(SYS_GETPID, junk(), junk(), junk(), junk(), junk(), junk());

	if ((uint64_t)r != fz.pid)
		fz_fail("SYS_GETPID returned %ld, expected %lu", r, fz.pid);
}

/* fuzz_resume -- SYS_RESUME: -ERR_INVAL, since nothing is held (the fuzzer
 * is not run from a safe power-on's rescue shell) */
static void fuzz_resume(void)
{
	long r = fz_call(SYS_RESUME, junk(), junk(), junk(), junk(), junk(), junk());

	if (r != -ERR_INVAL)
		fz_fail("SYS_RESUME returned %ld, expected ERR_INVAL", r);
}

/* touch -- a load or store of the fuzzer's own, at a mapping or a wild
 * address (workers only: a fault ends the worker, and the root counts it) */
static void touch(void)
{
	volatile uint8_t *at;
	const struct fz_map *m;

	if (fz.role != FZ_WORKER)
		return;
	if (fz.map_count && !fz_chance(256)) {
		m = &fz.maps[fz_rand(fz.map_count)];
		at = (volatile uint8_t *)(uintptr_t)(m->addr + fz_rand(m->len < (1u << 20)
								      ? m->len : (1u << 20)));
	} else if (fz_chance(16)) {
		at = (volatile uint8_t *)(uintptr_t)fz_ptr_bad();
	} else {
		return;
	}
	fz.counts->touches++;
	if (fz_rand(2))
		(void)*at;
	else
		*at = (uint8_t)fz_any();
}

/* flood -- send on one channel end until its queue is full */
static void flood(void)
{
	uint64_t end = fz_handle();

	for (unsigned i = 0; i <= FE_CHAN_QUEUE; i++)
		if (fz_call(SYS_CHAN_SEND, end, (uint64_t)(uintptr_t)fz_scratch,
			    fz_rand(64), UINT64_MAX, junk(), junk()) < 0)
			break;
}

/* crowd -- fill the handle table and the address space, fuzz a few calls
 * in the crowd (the paths of a full table), then give the room back */
static void crowd(void)
{
	static int32_t extra[FE_HANDLE_SLOTS];
	static uint64_t maps[KASPACE_MAPS];
	static bool crowding;
	unsigned handles = 0, mapped = 0;
	long anon, r;

	if (crowding || !fz_chance(4))
		return;
	crowding = true;
	anon = fz_call(SYS_OBJ_CREATE, FE_TYPE_ANON, PAGE, 0, 0, 0, 0);
	while (anon > 0 && mapped < KASPACE_MAPS &&
	       (r = fz_call(SYS_MAP, (uint64_t)anon, 0, PAGE, FE_PROT_READ |
			    FE_MAP_PRIVATE, 0, 0)) > 0)
		maps[mapped++] = (uint64_t)r;
	while (anon > 0 && handles < FE_HANDLE_SLOTS &&
	       (r = fz_call(SYS_DUP, (uint64_t)anon, fz_rights() & FE_RIGHTS_ALL,
			    0, 0, 0, 0)) > 0)
		extra[handles++] = (int32_t)r;
	for (unsigned i = 0; i < 16; i++)
		fz_one();
	while (handles)
		fz_call(SYS_CLOSE, (uint64_t)(int64_t)extra[--handles], 0, 0, 0, 0, 0);
	while (mapped)
		fz_call(SYS_UNMAP, maps[--mapped], PAGE, 0, 0, 0, 0);
	if (anon > 0)
		fz_call(SYS_CLOSE, (uint64_t)anon, 0, 0, 0, 0, 0);
	crowding = false;
}

/* squeeze -- fill the heap with one object's pages until it refuses, fuzz
 * a few calls with no heap left (the paths of a full heap, in every process
 * of the family), then free it. Not in a run without end: the power-cut
 * campaign's other programs share the heap. */
static void squeeze(void)
{
	static bool squeezing;
	long blob, r;
	uint64_t at = 0;

	if (squeezing || !fz.budget || !fz_chance(16))
		return;
	squeezing = true;
	blob = fz_call(SYS_OBJ_CREATE, FE_TYPE_BLOB, FE_OBJ_SIZE_MAX, 0, 0, 0, 0);
	while (blob > 0 && (r = fz_call(SYS_OBJ_WRITE, (uint64_t)blob, at,
					(uint64_t)(uintptr_t)fz_scratch, FE_IO_MAX,
					0, 0)) > 0)
		at += (uint64_t)r;
	for (unsigned i = 0; i < 16; i++)
		fz_one();
	if (blob > 0)
		fz_call(SYS_CLOSE, (uint64_t)blob, 0, 0, 0, 0, 0);
	squeezing = false;
}

/* --- threads ---------------------------------------------------------------- */

/* A word no one wakes, and a stack for the fuzzer's short-lived threads
 * (one at a time: each is joined before the next). */
static uint32_t fz_futex_word = 1;
static uint8_t thread_stack[4096] __attribute__((aligned(16)));

/* short_thread -- a thread's whole life: exit at once with 42 */
static void short_thread(void)
{
	fe_thread_exit(42);
}

/* fuzz_thread_create -- SYS_THREAD_CREATE with an entry or a stack outside
 * the user half (refused: -ERR_INVAL), or a short-lived thread, joined at
 * once (a stack inside it but unmapped would fault and end the fuzzer) */
static void fuzz_thread_create(void)
{
	uint64_t entry = (uint64_t)(uintptr_t)short_thread;
	uint64_t stack = (uint64_t)(uintptr_t)(thread_stack + sizeof(thread_stack));
	int64_t status = 0;
	long r;

	if (fz_chance(2)) {
		if (fz_chance(2))
			entry = fz_chance(2) ? fz_rand(FE_USER_BASE) : FE_USER_TOP + fz_rand(1ull << 46);
		else
			stack = fz_chance(2) ? fz_rand(FE_USER_BASE + 16) : FE_USER_TOP + 1 + fz_rand(1ull << 46);
		r = fz_call(SYS_THREAD_CREATE, entry, stack, junk(), junk(), junk(), junk());
		if (r != -ERR_INVAL)
			fz_fail("SYS_THREAD_CREATE of entry %#lx, stack %#lx returned %ld",
				entry, stack, r);
		return;
	}
	r = fz_call(SYS_THREAD_CREATE, entry, stack, junk(), junk(), junk(), junk());
	if (r == -ERR_NOSPC || r == -ERR_NOMEM)
		return;
	if (r <= 0 || r >= FE_THREADS_MAX)
		fz_fail("SYS_THREAD_CREATE returned the tid %ld", r);
	else if (fe_thread_join((uint64_t)r, &status) != 0 || status != 42)
		fz_fail("SYS_THREAD_JOIN of tid %ld: status %ld", r, (long)status);
}

/* fuzz_thread_join -- SYS_THREAD_JOIN of any tid (none but this one exists
 * between fuzz_thread_create's): -ERR_NOENT, -ERR_INVAL for itself */
static void fuzz_thread_join(void)
{
	uint64_t tid = fz_chance(4) ? 0 : fz_chance(2) ? fz_rand(FE_THREADS_MAX) : fz_any();
	long r = fz_call(SYS_THREAD_JOIN, tid, fz_ptr_out(8), junk(), junk(), junk(), junk());

	if (r != (tid == 0 ? -ERR_INVAL : -ERR_NOENT))
		fz_fail("SYS_THREAD_JOIN of tid %lu returned %ld", tid, r);
}

/* fuzz_futex -- SYS_FUTEX_WAIT that must not sleep (a value the word does
 * not hold, or a bad address) and SYS_FUTEX_WAKE of anything: no waiter */
static void fuzz_futex(void)
{
	uint64_t addr = fz_chance(2) ? (uint64_t)(uintptr_t)&fz_futex_word : fz_ptr_bad();
	long r;

	if (fz_chance(2)) {
		r = fz_call(SYS_FUTEX_WAIT, addr, fz_futex_word + 1 + fz_rand(1000), junk(),
			    junk(), junk(), junk());
		if (r >= 0)
			fz_fail("SYS_FUTEX_WAIT on a word that differs returned %ld", r);
		return;
	}
	r = fz_call(SYS_FUTEX_WAKE, fz_chance(2) ? addr : fz_any(), fz_any(), junk(),
		    junk(), junk(), junk());
	if (r > 0)
		fz_fail("SYS_FUTEX_WAKE woke %ld threads; none waits", r);
}

/* fuzz_gettid -- SYS_GETTID: 0, the fuzzer's one thread */
static void fuzz_gettid(void)
{
	long r = fz_call(SYS_GETTID, junk(), junk(), junk(), junk(), junk(), junk());

	if (r != 0)
		fz_fail("SYS_GETTID returned %ld, expected 0", r);
}

/* fuzz_thread_list -- SYS_THREAD_LIST of any pid into any buffer */
static void fuzz_thread_list(void)
{
	uint64_t max = fz_rand(FE_THREADS_MAX + 2);
	uint64_t pid = fz_chance(2) ? fz.pid : fz_chance(2) ? fz_rand(64) : fz_any();

	fz_call(SYS_THREAD_LIST, pid, fz_ptr_out(max * sizeof(struct fe_thread_info)),
		max, junk(), junk(), junk());
}

/* The calls and their weights (per thousand, roughly). */
static const struct fz_entry fz_table[] = {
	{fuzz_null, 10},        {fuzz_no_such_call, 20}, {fuzz_obj_create, 60},
	{fuzz_obj_open, 50},    {fuzz_obj_open_id, 30},  {fuzz_name_bind, 40},
	{fuzz_name_unbind, 30}, {fuzz_name_rename, 30},  {fuzz_name_list, 30},
	{fuzz_obj_stat, 40},    {fuzz_obj_read, 50},     {fuzz_obj_write, 50},
	{fuzz_obj_resize, 40},  {fuzz_close, 50},        {fuzz_dup, 40},
	{fuzz_map, 50},         {fuzz_unmap, 40},        {fuzz_protect, 40},
	{fuzz_sync, 3},         {fuzz_spawn, 12},        {fuzz_exit, 1},
	{fuzz_wait, 25},        {fuzz_kill, 20},         {fuzz_proc_list, 20},
	{fuzz_yield, 10},       {fuzz_sleep_until, 5},   {fuzz_chan_create, 30},
	{fuzz_chan_send, 50},   {fuzz_chan_recv, 50},    {fuzz_console_read, 15},
	{fuzz_console_write, 15}, {fuzz_time, 10},       {fuzz_sysinfo, 10},
	{fuzz_console_fg, 15},  {fuzz_getpid, 10},       {fuzz_resume, 2},
	{fuzz_thread_create, 8}, {fuzz_thread_join, 8},  {fuzz_futex, 15},
	{fuzz_gettid, 5},       {fuzz_thread_list, 8},   {fuzz_name_replace, 20},
	{fuzz_console_sink, 8}, {fuzz_link, 8},
	{touch, 3},
	{flood, 4},             {crowd, 1},              {squeeze, 1},
};

/* fz_one -- one fuzzed system call chosen at random */
void fz_one(void)
{
	unsigned total = 0, pick;

	for (unsigned i = 0; i < sizeof(fz_table) / sizeof(fz_table[0]); i++)
		total += fz_table[i].weight;
	pick = (unsigned)fz_rand(total);
	for (unsigned i = 0; i < sizeof(fz_table) / sizeof(fz_table[0]); i++) {
		if (pick < fz_table[i].weight) {
			fz_table[i].run();
			break;
		}
		pick -= fz_table[i].weight;
	}
	if (fz.since_reset >= FZ_RESET_CALLS)
		fz_reset();
	else if (fz.since_reset % 64 == 0)
		fz_kids_reap();
}
