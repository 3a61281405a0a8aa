/*
 * usertest.c -- every system call, as a program sees it, in the spirit of
 * xv6's usertests.
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
 */
#include <fe.h>

/* Addresses a program must never reach. */
#define KERNEL_HHDM 0xffff800000000000ull   /* the kernel's direct map */
#define KERNEL_TEXT 0xffffffff80000000ull   /* the kernel image */
#define NONCANONICAL 0x0000800000000000ull  /* just above the user half */
#define UNMAPPED 0x00005ff000000000ull      /* user half, nothing mapped there */
#define WRAPPING 0xfffffffffffff000ull      /* + 0x2000 wraps around zero */

#define VECTOR_DE 0
#define VECTOR_GP 13
#define VECTOR_PF 14

#define PAGE FE_PAGE_SIZE
#define NS_PER_MS 1000000ull

static unsigned passed, failed;
static const char *group = "?";    /* the check group running, for messages */
static char group_buf[64];
static long self_pid;

/* --- checking -------------------------------------------------------------- */

/* describe -- a value as a message shows it: errors by name */
static const char *describe(long v, char *buf, size_t cap)
{
	if (v < 0 && v > -ERR__COUNT)
		snprintf(buf, cap, "%ld (%s)", v, err_name((int)v));
	else
		snprintf(buf, cap, "%ld (%#lx)", v, (unsigned long)v);
	return buf;
}

/* report -- count a check; print it if it failed */
static void report(bool ok, int line, const char *what, long got,
		   const char *want)
{
	char g[48];

	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("usertest: FAIL %s (line %d): %s = %s, expected %s\n", group, line,
	       what, describe(got, g, sizeof(g)), want);
}

/* expect_eq -- check got == want; returns got */
static long expect_eq(long got, long want, int line, const char *what)
{
	char w[48];

	report(got == want, line, what, got, describe(want, w, sizeof(w)));
	return got;
}

/* expect_ok -- check got >= 0; returns got */
static long expect_ok(long got, int line, const char *what)
{
	report(got >= 0, line, what, got, "success (>= 0)");
	return got;
}

/* expect_fail -- check got < 0 (any error) */
static long expect_fail(long got, int line, const char *what)
{
	report(got < 0, line, what, got, "an error");
	return got;
}

/* expect_true -- check a condition */
static bool expect_true(bool cond, int line, const char *what)
{
	report(cond, line, what, cond, "true");
	return cond;
}

#define EQ(expr, want) expect_eq((long)(expr), (long)(want), __LINE__, #expr)
#define ERR(expr, err) expect_eq((long)(expr), -(long)(err), __LINE__, #expr)
#define OK(expr) expect_ok((long)(expr), __LINE__, #expr)
#define FAILS(expr) expect_fail((long)(expr), __LINE__, #expr)
#define CHECK(cond) expect_true((cond), __LINE__, #cond)

/* set_group -- name the checks that follow */
static void set_group(const char *fmt, const char *arg)
{
	snprintf(group_buf, sizeof(group_buf), fmt, arg);
	group = group_buf;
}

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

/* The addresses no system call may read or write through. */
static const uint64_t wild_pointers[] = {
	0, KERNEL_HHDM, KERNEL_TEXT, NONCANONICAL, UNMAPPED,
	FE_USER_TOP - 8, /* straddles the top of the user half */
};
#define WILD_COUNT (sizeof(wild_pointers) / sizeof(wild_pointers[0]))

/* --- helpers --------------------------------------------------------------- */

/* test_name -- "usertest/PID/suffix" into buf */
static const char *test_name(char *buf, size_t cap, const char *suffix)
{
	snprintf(buf, cap, "usertest/%ld/%s", self_pid, suffix);
	return buf;
}

/* new_blob -- a blob of size bytes holding text at offset 0 -> handle */
static int32_t new_blob(uint64_t size, const char *text)
{
	long h = OK(fe_obj_create(FE_TYPE_BLOB, size));

	if (h >= 0 && text != NULL)
		EQ(fe_obj_write((int32_t)h, 0, text, strlen(text)), (long)strlen(text));
	return (int32_t)h;
}

/* object_id -- the id of the object of handle, or 0 */
static uint64_t object_id(int32_t h)
{
	struct fe_stat st;

	return fe_obj_stat(h, &st) < 0 ? 0 : st.id;
}

/* handle_rights -- the rights of handle, or 0 */
static uint32_t handle_rights(int32_t h)
{
	struct fe_stat st;

	return fe_obj_stat(h, &st) < 0 ? 0 : st.rights;
}

/* spawn_self -- run "usertest ARGS..." (NULL-terminated) -> process handle */
static long spawn_self(const char *const *argv, const struct fe_handle_grant *grants,
		       uint32_t count)
{
	return fe_spawn_program_grant("usertest", argv, grants, count);
}

/* wait_for -- wait for a child and close its handle -> the exit info */
static struct fe_exit_info wait_for(long h)
{
	struct fe_exit_info info;

	memset(&info, 0, sizeof(info));
	if (h < 0)
		return info;
	OK(fe_wait((int32_t)h, &info, 0));
	EQ(fe_close((int32_t)h), 0);
	return info;
}

/* child_pid -- the pid of a child, from a wait that does not hang */
static uint64_t child_pid(long h)
{
	struct fe_exit_info info;

	memset(&info, 0, sizeof(info));
	if (h < 0 || fe_wait((int32_t)h, &info, FE_WAIT_NOHANG) < 0)
		return 0;
	return info.pid;
}

/* sysinfo_now -- sysinfo, zeroed on failure */
static struct fe_sysinfo sysinfo_now(void)
{
	struct fe_sysinfo si;

	memset(&si, 0, sizeof(si));
	OK(fe_sysinfo(&si));
	return si;
}

/* --- objects, names and handles ------------------------------------------- */

/* test_null -- the empty call */
static void test_null(void)
{
	EQ(fe_null(), 0);
}

/* test_create -- object creation and bad types */
static void test_create(void)
{
	struct fe_stat st;
	long h;

	h = OK(fe_obj_create(FE_TYPE_BLOB, 3 * PAGE));
	EQ(fe_obj_stat((int32_t)h, &st), 0);
	EQ(st.type, FE_TYPE_BLOB);
	EQ(st.size, 3 * PAGE);
	EQ(st.rights, FE_RIGHTS_ALL);
	CHECK(st.id != 0);
	EQ(fe_close((int32_t)h), 0);

	ERR(fe_obj_create(0, 0), ERR_INVAL);
	ERR(fe_obj_create(99, 0), ERR_INVAL);
	ERR(fe_obj_create(FE_TYPE_PROCESS, 0), ERR_INVAL);
	ERR(fe_obj_create(FE_TYPE_THREAD, 0), ERR_INVAL);
	ERR(fe_obj_create(FE_TYPE_CATALOGUE, 0), ERR_INVAL);
	ERR(fe_obj_create(FE_TYPE_CHANNEL, 0), ERR_INVAL);
	ERR(fe_obj_create(FE_TYPE_BLOB, FE_OBJ_SIZE_MAX + 1), ERR_TOOBIG);
	ERR(fe_obj_create(FE_TYPE_ANON, ~0ull), ERR_TOOBIG);

	/* Objects are sparse: the largest costs nothing until written. */
	h = OK(fe_obj_create(FE_TYPE_BLOB, FE_OBJ_SIZE_MAX));
	EQ(fe_obj_stat((int32_t)h, &st), 0);
	EQ(st.size, FE_OBJ_SIZE_MAX);
	EQ(st.pages, 0);
	EQ(fe_obj_write((int32_t)h, FE_OBJ_SIZE_MAX - 2, "hi", 2), 2);
	EQ(fe_obj_stat((int32_t)h, &st), 0);
	EQ(st.pages, 1);
	ERR(fe_obj_resize((int32_t)h, FE_OBJ_SIZE_MAX + 1), ERR_TOOBIG);
	EQ(fe_close((int32_t)h), 0);
}

/* test_bad_handles -- forged, closed and out-of-range handles are -ERR_BADF */
static void test_bad_handles(void)
{
	static const char *const argv[] = {"hello", NULL};
	const struct fe_spawn sp = {argv, 1, 0, NULL};
	struct fe_stat st;
	struct fe_exit_info info;
	char buf[8];
	int32_t h = new_blob(PAGE, NULL);
	int32_t slot = h & 0xff, gen = (int32_t)((uint32_t)h >> 8);
	const int32_t forged[] = {
		0, -1, INT32_MIN, 0x7fffffff,
		FE_HANDLE_VALUE(FE_HANDLE_SLOTS, 1),
		FE_HANDLE_VALUE(slot, gen + 1),
		FE_HANDLE_VALUE(slot, gen ^ 0x800000),
	};
	size_t i;

	for (i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
		int32_t f = forged[i];

		ERR(fe_obj_stat(f, &st), ERR_BADF);
		ERR(fe_obj_read(f, 0, buf, sizeof(buf)), ERR_BADF);
		ERR(fe_obj_write(f, 0, buf, sizeof(buf)), ERR_BADF);
		ERR(fe_obj_resize(f, 0), ERR_BADF);
		ERR(fe_close(f), ERR_BADF);
		ERR(fe_dup(f, FE_RIGHT_READ), ERR_BADF);
		ERR(fe_name_bind(f, "x", 1), ERR_BADF);
		ERR(fe_map(f, 0, PAGE, FE_PROT_READ | FE_MAP_SHARED, 0), ERR_BADF);
		ERR(fe_wait(f, &info, FE_WAIT_NOHANG), ERR_BADF);
		ERR(fe_chan_send(f, buf, 1, -1), ERR_BADF);
		ERR(fe_spawn(f, &sp), ERR_BADF);
		if (f != -1)
			ERR(fe_console_fg(f), ERR_BADF);
	}

	/* A closed handle stays invalid, even once its slot is reused. */
	EQ(fe_close(h), 0);
	ERR(fe_obj_stat(h, &st), ERR_BADF);
	ERR(fe_close(h), ERR_BADF);
	{
		int32_t again = new_blob(PAGE, NULL);

		CHECK(again != h);
		ERR(fe_obj_stat(h, &st), ERR_BADF);
		OK(fe_obj_stat(again, &st));
		EQ(fe_close(again), 0);
	}
}

/* test_rights -- dup narrows rights and never widens them */
static void test_rights(void)
{
	char buf[8] = "rights";
	int32_t h = new_blob(PAGE, "rights");
	long ro, wo, again;

	ro = OK(fe_dup(h, FE_RIGHT_READ));
	EQ(handle_rights((int32_t)ro), FE_RIGHT_READ);
	EQ(object_id((int32_t)ro), object_id(h));
	ERR(fe_dup((int32_t)ro, FE_RIGHT_READ | FE_RIGHT_WRITE), ERR_PERM);
	ERR(fe_dup((int32_t)ro, FE_RIGHTS_ALL), ERR_PERM);
	ERR(fe_dup(h, 0x100), ERR_PERM);
	again = OK(fe_dup((int32_t)ro, FE_RIGHT_READ));
	EQ(fe_close((int32_t)again), 0);

	EQ(fe_obj_read((int32_t)ro, 0, buf, 6), 6);
	ERR(fe_obj_write((int32_t)ro, 0, buf, 6), ERR_PERM);
	ERR(fe_obj_resize((int32_t)ro, 0), ERR_PERM);
	ERR(fe_name_bind((int32_t)ro, "usertest-ro", 11), ERR_PERM);
	ERR(fe_map((int32_t)ro, 0, PAGE, FE_PROT_READ | FE_MAP_SHARED, 0), ERR_PERM);

	wo = OK(fe_dup(h, FE_RIGHT_WRITE));
	ERR(fe_obj_read((int32_t)wo, 0, buf, 6), ERR_PERM);
	EQ(fe_obj_write((int32_t)wo, 0, buf, 6), 6);

	EQ(fe_close((int32_t)ro), 0);
	EQ(fe_close((int32_t)wo), 0);
	EQ(fe_close(h), 0);
}

/* test_read_write -- object bytes, sizes and bounds */
static void test_read_write(void)
{
	char buf[64];
	struct fe_stat st;
	int32_t h = new_blob(2 * PAGE, NULL);
	long r;

	EQ(fe_obj_write(h, 100, "hello", 5), 5);
	memset(buf, 0, sizeof(buf));
	EQ(fe_obj_read(h, 100, buf, 5), 5);
	CHECK(memcmp(buf, "hello", 5) == 0);
	EQ(fe_obj_read(h, 0, buf, 4), 4);
	CHECK(memcmp(buf, "\0\0\0\0", 4) == 0);   /* never written: zero */
	EQ(fe_obj_read(h, 2 * PAGE, buf, 8), 0);     /* at the end */
	EQ(fe_obj_read(h, 2 * PAGE - 2, buf, 8), 2); /* across the end */
	EQ(fe_obj_write(h, PAGE - 3, "straddle", 8), 8);
	EQ(fe_obj_read(h, PAGE - 3, buf, 8), 8);
	CHECK(memcmp(buf, "straddle", 8) == 0);
	EQ(fe_obj_read(h, 0, buf, 0), 0);

	/* A huge length is cut to the object and FE_IO_MAX, never a crash. */
	r = fe_obj_read(h, 2 * PAGE - 16, buf, 1ull << 62);
	CHECK(r == 16 || r == -ERR_FAULT);

	EQ(fe_obj_resize(h, 5 * PAGE + 7), 0);
	EQ(fe_obj_stat(h, &st), 0);
	EQ(st.size, 5 * PAGE + 7);
	EQ(fe_obj_read(h, 100, buf, 5), 5);
	CHECK(memcmp(buf, "hello", 5) == 0);
	EQ(fe_obj_resize(h, 0), 0);
	EQ(fe_obj_stat(h, &st), 0);
	EQ(st.size, 0);
	EQ(fe_obj_read(h, 0, buf, 8), 0);
	EQ(fe_close(h), 0);
}

/* test_wild_pointers -- every pointer argument is checked (-ERR_FAULT) */
static void test_wild_pointers(void)
{
	struct fe_cursor cursor;
	struct fe_name_entry entry;
	struct fe_msg_info mi;
	char buf[16] = "x";
	int32_t h = new_blob(4 * PAGE, "0123456789abcdef"); /* room for 0x2000 */
	int32_t ends[2] = {-1, -1};
	long code = OK(fe_open("bin/hello", FE_RIGHT_READ | FE_RIGHT_EXEC));
	size_t i;

	OK(fe_chan_create(ends));
	for (i = 0; i < WILD_COUNT; i++) {
		void *p = ptr(wild_pointers[i]);

		memset(&cursor, 0, sizeof(cursor));
		ERR(fe_obj_open(p, 5, FE_RIGHT_READ), ERR_FAULT);
		ERR(fe_name_bind(h, p, 5), ERR_FAULT);
		ERR(fe_name_unbind(p, 5), ERR_FAULT);
		ERR(fe_name_rename(p, 5, "usertest-x", 10), ERR_FAULT);
		ERR(fe_name_rename("usertest-x", 10, p, 5), ERR_FAULT);
		ERR(fe_name_list(p, 5, &cursor, &entry, 1), ERR_FAULT);
		ERR(fe_name_list("", 0, p, &entry, 1), ERR_FAULT);
		ERR(fe_name_list("", 0, &cursor, p, 1), ERR_FAULT);
		ERR(fe_obj_stat(h, p), ERR_FAULT);
		ERR(fe_obj_read(h, 0, p, 16), ERR_FAULT);
		ERR(fe_obj_write(h, 0, p, 16), ERR_FAULT);
		ERR(fe_spawn((int32_t)code, p), ERR_FAULT);
		ERR(fe_proc_list(p, 4, 0), ERR_FAULT);
		ERR(fe_chan_create(p), ERR_FAULT);
		ERR(fe_chan_send(ends[0], p, 4, -1), ERR_FAULT);
		ERR(fe_console_read(p, 4, FE_CONSOLE_RAW | FE_CONSOLE_NONBLOCK), ERR_FAULT);
		ERR(fe_console_write(p, 4), ERR_FAULT);
		ERR(fe_sysinfo(p), ERR_FAULT);
	}
	/* A message waits while the receiver's buffers are bad. */
	OK(fe_chan_send(ends[0], "wild", 4, -1));
	ERR(fe_chan_recv(ends[1], ptr(KERNEL_TEXT), sizeof(buf), &mi, 0), ERR_FAULT);
	ERR(fe_chan_recv(ends[1], buf, sizeof(buf), ptr(KERNEL_HHDM), 0), ERR_FAULT);

	/* Pointer + length wrapping around, or beyond the user half. */
	ERR(fe_obj_write(h, 0, ptr(WRAPPING), 0x2000), ERR_FAULT);
	ERR(fe_obj_read(h, 0, ptr(WRAPPING), 0x2000), ERR_FAULT);
	ERR(fe_console_write(ptr(WRAPPING), 0x2000), ERR_FAULT);
	ERR(fe_chan_send(ends[0], ptr(~0ull - 0xff), 0x200, -1), ERR_FAULT);

	EQ(fe_close((int32_t)code), 0);
	EQ(fe_close(ends[0]), 0);
	EQ(fe_close(ends[1]), 0);
	EQ(fe_close(h), 0);
}

/* test_names -- bind, open, rename, unbind, and bad names */
static void test_names(void)
{
	char a[FE_NAME_MAX + 2], b[FE_NAME_MAX + 2], longest[FE_NAME_MAX + 2];
	int32_t h = new_blob(PAGE, "named");
	long h2;

	test_name(a, sizeof(a), "a");
	test_name(b, sizeof(b), "b");
	EQ(fe_bind(h, a), 0);
	ERR(fe_bind(h, a), ERR_EXIST);
	h2 = OK(fe_open(a, FE_RIGHT_READ));
	EQ(object_id((int32_t)h2), object_id(h));
	EQ(handle_rights((int32_t)h2), FE_RIGHT_READ);
	EQ(fe_close((int32_t)h2), 0);
	ERR(fe_open(a, 0x100), ERR_PERM);

	EQ(fe_name_rename(a, strlen(a), b, strlen(b)), 0);
	ERR(fe_open(a, FE_RIGHT_READ), ERR_NOENT);
	ERR(fe_name_rename(a, strlen(a), b, strlen(b)), ERR_NOENT);
	EQ(fe_bind(h, a), 0);
	ERR(fe_name_rename(a, strlen(a), b, strlen(b)), ERR_EXIST);
	EQ(fe_unbind(a), 0);
	EQ(fe_unbind(b), 0);
	ERR(fe_unbind(b), ERR_NOENT);
	ERR(fe_open(b, FE_RIGHT_READ), ERR_NOENT);

	/* Empty and too long names; the longest allowed one works. */
	ERR(fe_obj_open("x", 0, FE_RIGHT_READ), ERR_INVAL);
	ERR(fe_name_bind(h, "x", 0), ERR_INVAL);
	ERR(fe_name_unbind("x", 0), ERR_INVAL);
	memset(longest, 'n', sizeof(longest));
	ERR(fe_obj_open(longest, FE_NAME_MAX + 1, FE_RIGHT_READ), ERR_INVAL);
	ERR(fe_name_bind(h, longest, FE_NAME_MAX + 1), ERR_INVAL);
	ERR(fe_obj_open(longest, 1ull << 40, FE_RIGHT_READ), ERR_INVAL);
	ERR(fe_name_unbind(longest, ~0ull), ERR_INVAL);
	test_name(longest, sizeof(longest), "");
	memset(longest + strlen(longest), 'L', FE_NAME_MAX - strlen(longest));
	EQ(fe_name_bind(h, longest, FE_NAME_MAX), 0);
	h2 = OK(fe_obj_open(longest, FE_NAME_MAX, FE_RIGHT_READ));
	EQ(fe_close((int32_t)h2), 0);
	EQ(fe_name_unbind(longest, FE_NAME_MAX), 0);
	EQ(fe_close(h), 0);

	/* Anonymous memory has no name. */
	h2 = OK(fe_obj_create(FE_TYPE_ANON, PAGE));
	FAILS(fe_bind((int32_t)h2, a));
	EQ(fe_close((int32_t)h2), 0);
}

/* test_list -- names come back in order, in batches, from a cursor */
static void test_list(void)
{
	char prefix[64], name[64];
	const char *suffixes[] = {"l/c", "l/a", "l/b"};
	struct fe_name_entry entries[2];
	struct fe_cursor cursor;
	int32_t h = new_blob(123, NULL);
	size_t i;

	for (i = 0; i < 3; i++)
		EQ(fe_bind(h, test_name(name, sizeof(name), suffixes[i])), 0);
	test_name(prefix, sizeof(prefix), "l/");
	memset(&cursor, 0, sizeof(cursor));
	EQ(fe_name_list(prefix, strlen(prefix), &cursor, entries, 2), 2);
	CHECK(strcmp(entries[0].name, test_name(name, sizeof(name), "l/a")) == 0);
	CHECK(strcmp(entries[1].name, test_name(name, sizeof(name), "l/b")) == 0);
	EQ(entries[0].len, strlen(name));
	EQ(entries[0].type, FE_TYPE_BLOB);
	EQ(entries[0].size, 123);
	EQ(entries[0].id, object_id(h));
	EQ(fe_name_list(prefix, strlen(prefix), &cursor, entries, 2), 1);
	CHECK(strcmp(entries[0].name, test_name(name, sizeof(name), "l/c")) == 0);
	EQ(fe_name_list(prefix, strlen(prefix), &cursor, entries, 2), 0);
	memset(&cursor, 0, sizeof(cursor));
	ERR(fe_name_list(prefix, strlen(prefix), &cursor, entries, 0), ERR_INVAL);
	EQ(fe_name_list("usertest-no-such-prefix/", 24, &cursor, entries, 2), 0);
	for (i = 0; i < 3; i++)
		EQ(fe_unbind(test_name(name, sizeof(name), suffixes[i])), 0);
	EQ(fe_close(h), 0);
}

/* test_open_id -- blobs and code by id; nothing else */
static void test_open_id(void)
{
	int32_t h = new_blob(PAGE, "by id");
	int32_t ends[2] = {-1, -1};
	long h2, anon, code;
	char buf[8];

	h2 = OK(fe_obj_open_id(object_id(h), FE_RIGHT_READ));
	EQ(fe_obj_read((int32_t)h2, 0, buf, 5), 5);
	CHECK(memcmp(buf, "by id", 5) == 0);
	EQ(fe_close((int32_t)h2), 0);
	ERR(fe_obj_open_id(~0ull, FE_RIGHT_READ), ERR_NOENT);
	ERR(fe_obj_open_id(0, FE_RIGHT_READ), ERR_NOENT);
	ERR(fe_obj_open_id(object_id(h), 0x100), ERR_PERM);

	OK(fe_chan_create(ends));
	FAILS(fe_obj_open_id(object_id(ends[0]), FE_RIGHT_READ));
	anon = OK(fe_obj_create(FE_TYPE_ANON, PAGE));
	FAILS(fe_obj_open_id(object_id((int32_t)anon), FE_RIGHT_READ));

	/* Code objects open read-only, by name and by id. */
	code = OK(fe_open("bin/hello", FE_RIGHT_READ | FE_RIGHT_EXEC));
	ERR(fe_open("bin/hello", FE_RIGHT_READ | FE_RIGHT_WRITE), ERR_PERM);
	ERR(fe_obj_open_id(object_id((int32_t)code), FE_RIGHT_WRITE), ERR_PERM);
	h2 = OK(fe_obj_open_id(object_id((int32_t)code), FE_RIGHT_READ));
	EQ(fe_obj_read((int32_t)h2, 0, buf, 4), 4);
	CHECK(memcmp(buf, "\177ELF", 4) == 0);

	EQ(fe_close((int32_t)h2), 0);
	EQ(fe_close((int32_t)code), 0);
	EQ(fe_close((int32_t)anon), 0);
	EQ(fe_close(ends[0]), 0);
	EQ(fe_close(ends[1]), 0);
	EQ(fe_close(h), 0);
}

/* --- memory ---------------------------------------------------------------- */

/* test_map_errors -- every way to ask for a mapping wrongly */
static void test_map_errors(void)
{
	const uint32_t rw = FE_PROT_READ | FE_PROT_WRITE;
	int32_t h = new_blob(2 * PAGE, NULL);
	long ro, nomap, noexec, a;

	ro = OK(fe_dup(h, FE_RIGHT_READ | FE_RIGHT_MAP));
	nomap = OK(fe_dup(h, FE_RIGHT_READ | FE_RIGHT_WRITE));
	noexec = OK(fe_dup(h, FE_RIGHT_READ | FE_RIGHT_MAP));
	ERR(fe_map((int32_t)ro, 0, PAGE, rw | FE_MAP_SHARED, 0), ERR_PERM);
	ERR(fe_map((int32_t)nomap, 0, PAGE, FE_PROT_READ | FE_MAP_SHARED, 0), ERR_PERM);
	ERR(fe_map((int32_t)noexec, 0, PAGE, FE_PROT_READ | FE_PROT_EXEC | FE_MAP_PRIVATE, 0),
	    ERR_PERM);
	ERR(fe_map(h, 0, PAGE, rw | FE_PROT_EXEC | FE_MAP_PRIVATE, 0), ERR_INVAL);
	ERR(fe_map(h, 0, PAGE, rw | FE_MAP_SHARED | FE_MAP_PRIVATE, 0), ERR_INVAL);
	ERR(fe_map(h, 0, PAGE, rw, 0), ERR_INVAL);
	ERR(fe_map(h, 0, PAGE, rw | FE_MAP_SHARED | 0x8000, 0), ERR_INVAL);
	ERR(fe_map(h, 1, PAGE, rw | FE_MAP_SHARED, 0), ERR_INVAL);
	ERR(fe_map(h, 0, 0, rw | FE_MAP_SHARED, 0), ERR_INVAL);
	FAILS(fe_map(h, 0, 1ull << 62, rw | FE_MAP_SHARED, 0));
	FAILS(fe_map(h, ~0ull & ~(uint64_t)(PAGE - 1), PAGE, rw | FE_MAP_SHARED, 0));
	ERR(fe_map(h, 0, PAGE, rw | FE_MAP_SHARED | FE_MAP_FIXED, UNMAPPED + 1), ERR_INVAL);
	FAILS(fe_map(h, 0, PAGE, rw | FE_MAP_SHARED | FE_MAP_FIXED, KERNEL_TEXT));
	FAILS(fe_map(h, 0, PAGE, rw | FE_MAP_SHARED | FE_MAP_FIXED, 0));
	FAILS(fe_map(h, 0, PAGE, rw | FE_MAP_SHARED | FE_MAP_FIXED, FE_USER_BASE));
	FAILS(fe_map(h, 0, 2 * PAGE, rw | FE_MAP_SHARED | FE_MAP_FIXED, FE_USER_TOP - PAGE));

	/* FIXED at a free address is exactly there; a hint may be anywhere. */
	a = EQ(fe_map(h, 0, PAGE, rw | FE_MAP_SHARED | FE_MAP_FIXED, UNMAPPED), UNMAPPED);
	FAILS(fe_map(h, 0, PAGE, rw | FE_MAP_SHARED | FE_MAP_FIXED, UNMAPPED));
	if (a > 0)
		EQ(fe_unmap((uint64_t)a, PAGE), 0);
	a = OK(fe_map(h, 0, PAGE, FE_PROT_READ | FE_MAP_SHARED, KERNEL_HHDM));
	CHECK((uint64_t)a >= FE_USER_BASE && (uint64_t)a < FE_USER_TOP);
	if (a > 0)
		EQ(fe_unmap((uint64_t)a, PAGE), 0);

	ERR(fe_unmap(UNMAPPED + 1, PAGE), ERR_INVAL);
	ERR(fe_unmap(UNMAPPED, 0), ERR_INVAL);
	FAILS(fe_unmap(KERNEL_TEXT, PAGE));
	FAILS(fe_unmap(WRAPPING, 0x2000));
	ERR(fe_protect(UNMAPPED + 1, PAGE, FE_PROT_READ), ERR_INVAL);
	FAILS(fe_protect(KERNEL_TEXT, PAGE, FE_PROT_READ));
	FAILS(fe_protect(UNMAPPED, PAGE, FE_PROT_READ));

	EQ(fe_close((int32_t)ro), 0);
	EQ(fe_close((int32_t)nomap), 0);
	EQ(fe_close((int32_t)noexec), 0);
	EQ(fe_close(h), 0);
}

/* test_map_shared -- a shared mapping and the object's bytes are the same */
static void test_map_shared(void)
{
	const uint32_t rw = FE_PROT_READ | FE_PROT_WRITE;
	int32_t h = new_blob(2 * PAGE, "mapped");
	volatile char *m;
	char buf[8];
	long a, ro;

	a = OK(fe_map(h, 0, 2 * PAGE, rw | FE_MAP_SHARED, 0));
	if (a < 0)
		goto out;
	m = (volatile char *)(uintptr_t)a;
	EQ((uint64_t)a % PAGE, 0);
	EQ(m[0], 'm');
	m[PAGE + 1] = 'S';
	EQ(fe_obj_read(h, PAGE + 1, buf, 1), 1);
	EQ(buf[0], 'S');
	EQ(fe_obj_write(h, 1, "A", 1), 1);
	EQ(m[1], 'A');

	/* The kernel never writes through a read-only mapping, or into code. */
	EQ(fe_protect((uint64_t)a, PAGE, FE_PROT_READ), 0);
	ERR(fe_obj_read(h, 0, (void *)(uintptr_t)a, 4), ERR_FAULT);
	ERR(fe_obj_read(h, 0, (void *)(uintptr_t)&test_map_shared, 4), ERR_FAULT);
	ERR(fe_protect((uint64_t)a, PAGE, rw | FE_PROT_EXEC), ERR_INVAL);
	EQ(fe_protect((uint64_t)a, PAGE, rw), 0);
	m[2] = 'B';
	EQ(fe_obj_read(h, 2, buf, 1), 1);
	EQ(buf[0], 'B');
	EQ(fe_unmap((uint64_t)a, 2 * PAGE), 0);

	/* protect cannot give more than the handle allowed at map time. */
	ro = OK(fe_dup(h, FE_RIGHT_READ | FE_RIGHT_MAP));
	a = OK(fe_map((int32_t)ro, 0, PAGE, FE_PROT_READ | FE_MAP_SHARED, 0));
	if (a > 0) {
		ERR(fe_protect((uint64_t)a, PAGE, rw), ERR_PERM);
		ERR(fe_protect((uint64_t)a, PAGE, FE_PROT_READ | FE_PROT_EXEC), ERR_PERM);
		EQ(fe_unmap((uint64_t)a, PAGE), 0);
	}
	EQ(fe_close((int32_t)ro), 0);
out:
	EQ(fe_close(h), 0);
}

/* test_map_private -- copy-on-write mappings are isolated from each other */
static void test_map_private(void)
{
	const uint32_t rw = FE_PROT_READ | FE_PROT_WRITE;
	int32_t h = new_blob(PAGE, "original");
	volatile char *p1, *p2;
	char buf[8];
	long a1, a2;

	a1 = OK(fe_map(h, 0, PAGE, rw | FE_MAP_PRIVATE, 0));
	a2 = OK(fe_map(h, 0, PAGE, rw | FE_MAP_PRIVATE, 0));
	if (a1 < 0 || a2 < 0)
		goto out;
	CHECK(a1 != a2);
	p1 = (volatile char *)(uintptr_t)a1;
	p2 = (volatile char *)(uintptr_t)a2;
	EQ(p1[0], 'o');
	EQ(p2[0], 'o');
	p1[0] = '1';
	EQ(p2[0], 'o');
	p2[0] = '2';
	EQ(p1[0], '1');
	EQ(p2[0], '2');
	EQ(fe_obj_read(h, 0, buf, 1), 1);
	EQ(buf[0], 'o');
	EQ(fe_unmap((uint64_t)a1, PAGE), 0);
	EQ(fe_unmap((uint64_t)a2, PAGE), 0);
out:
	EQ(fe_close(h), 0);
}

/* test_malloc -- the user library's heap on its anonymous object */
static void test_malloc(void)
{
	enum { N = 200 };
	static unsigned char *blocks[N];
	unsigned char *big;
	size_t i;

	for (i = 0; i < N; i++) {
		blocks[i] = malloc(i * 37 + 1);
		if (!CHECK(blocks[i] != NULL))
			return;
		CHECK(((uintptr_t)blocks[i] & 15) == 0);
		memset(blocks[i], (int)i, i * 37 + 1);
	}
	for (i = 0; i < N; i += 2)
		free(blocks[i]);
	for (i = 1; i < N; i += 2)
		CHECK(blocks[i][i * 37] == (unsigned char)i);
	for (i = 1; i < N; i += 2) {
		blocks[i] = realloc(blocks[i], i * 80 + 1);
		if (!CHECK(blocks[i] != NULL))
			return;
		CHECK(blocks[i][i * 37] == (unsigned char)i);
		free(blocks[i]);
	}
	big = calloc(1, 1u << 20);
	if (CHECK(big != NULL)) {
		CHECK(big[0] == 0 && big[(1u << 20) - 1] == 0);
		free(big);
	}
	CHECK(calloc(~(size_t)0 / 2, 4) == NULL);
	CHECK(malloc(FE_HEAP_SIZE + 1) == NULL);
}

/* test_sync -- sync commits */
static void test_sync(void)
{
	struct fe_sysinfo before = sysinfo_now(), after;

	EQ(fe_sync(), 0);
	after = sysinfo_now();
	CHECK(after.commits > before.commits);
	CHECK(after.epoch > before.epoch);
}

/* --- processes ------------------------------------------------------------- */

/* test_spawn -- start programs, exit statuses, argv, bad requests */
static void test_spawn(void)
{
	static const char *const exit42[] = {"usertest", "exit", "42", NULL};
	static const char *const args[] = {"usertest", "argc", "b", "c", "d", NULL};
	const char *too_many[FE_SPAWN_MAX_ARGS + 2];
	static char big_arg[FE_SPAWN_MAX_ARGV_BYTES + 1];
	const char *big_argv[] = {"usertest", big_arg, NULL};
	const char *wild_argv[] = {"usertest", ptr(KERNEL_TEXT), NULL};
	struct fe_spawn sp;
	struct fe_exit_info info;
	long code, ro, blob;
	size_t i;

	info = wait_for(OK(fe_spawn_program("hello", NULL)));
	EQ(info.reason, FE_EXIT_NORMAL);
	EQ(info.status, 0);
	CHECK(info.pid > 0 && info.pid != (uint64_t)self_pid);
	info = wait_for(OK(spawn_self(exit42, NULL, 0)));
	EQ(info.reason, FE_EXIT_NORMAL);
	EQ(info.status, 42);
	info = wait_for(OK(spawn_self(args, NULL, 0)));
	EQ(info.status, 5);
	ERR(fe_spawn_program("usertest-no-such-program", NULL), ERR_NOENT);

	code = OK(fe_open("bin/usertest", FE_RIGHT_READ | FE_RIGHT_EXEC));
	memset(&sp, 0, sizeof(sp));
	sp.argv = exit42;
	sp.argc = 3;
	ro = OK(fe_dup((int32_t)code, FE_RIGHT_READ));
	ERR(fe_spawn((int32_t)ro, &sp), ERR_PERM);
	blob = new_blob(PAGE, "not a program");
	FAILS(fe_spawn((int32_t)blob, &sp));
	sp.argc = 0;
	ERR(fe_spawn((int32_t)code, &sp), ERR_INVAL);
	for (i = 0; i < FE_SPAWN_MAX_ARGS + 1; i++)
		too_many[i] = "x";
	too_many[i] = NULL;
	sp.argv = too_many;
	sp.argc = FE_SPAWN_MAX_ARGS + 1;
	ERR(fe_spawn((int32_t)code, &sp), ERR_INVAL);
	memset(big_arg, 'a', sizeof(big_arg) - 1);
	sp.argv = big_argv;
	sp.argc = 2;
	ERR(fe_spawn((int32_t)code, &sp), ERR_TOOBIG);
	sp.argv = wild_argv;
	ERR(fe_spawn((int32_t)code, &sp), ERR_FAULT);
	sp.argv = ptr(UNMAPPED);
	ERR(fe_spawn((int32_t)code, &sp), ERR_FAULT);
	sp.argv = exit42;
	sp.argc = 3;
	sp.handle_count = FE_SPAWN_MAX_HANDLES + 1;
	sp.handles = ptr(UNMAPPED);
	FAILS(fe_spawn((int32_t)code, &sp));
	sp.handle_count = 1;
	ERR(fe_spawn((int32_t)code, &sp), ERR_FAULT);

	EQ(fe_close((int32_t)blob), 0);
	EQ(fe_close((int32_t)ro), 0);
	EQ(fe_close((int32_t)code), 0);
}

/* test_grants -- handles passed at spawn carry exactly the rights granted */
static void test_grants(void)
{
	static const char *const argv[] = {"usertest", "child-handle", NULL};
	int32_t h = new_blob(PAGE, "grant");
	struct fe_handle_grant g = {h, FE_RIGHT_READ};
	struct fe_exit_info info;
	long nogrant;

	info = wait_for(OK(spawn_self(argv, &g, 1)));
	EQ(info.reason, FE_EXIT_NORMAL);
	EQ(info.status, 0);

	g.rights = FE_RIGHT_READ | 0x100;
	ERR(spawn_self(argv, &g, 1), ERR_PERM);
	nogrant = OK(fe_dup(h, FE_RIGHT_READ | FE_RIGHT_WRITE));
	g.handle = (int32_t)nogrant;
	g.rights = FE_RIGHT_READ;
	ERR(spawn_self(argv, &g, 1), ERR_PERM);
	EQ(fe_close((int32_t)nogrant), 0);
	nogrant = OK(fe_dup(h, FE_RIGHT_READ | FE_RIGHT_GRANT));
	g.handle = (int32_t)nogrant;
	g.rights = FE_RIGHT_READ | FE_RIGHT_WRITE;
	ERR(spawn_self(argv, &g, 1), ERR_PERM);
	EQ(fe_close((int32_t)nogrant), 0);
	g.handle = FE_HANDLE_VALUE(FE_HANDLE_SLOTS - 1, 77);
	ERR(spawn_self(argv, &g, 1), ERR_BADF);
	EQ(fe_close(h), 0);
}

/* test_wait_kill -- NOHANG, kill of a sleeping child and its exit reason */
static void test_wait_kill(void)
{
	static const char *const sleeper[] = {"usertest", "sleep", NULL};
	struct fe_exit_info info;
	struct fe_proc_info me;
	long h, weak;
	uint64_t pid;

	h = OK(spawn_self(sleeper, NULL, 0));
	memset(&info, 0, sizeof(info));
	EQ(fe_wait((int32_t)h, &info, FE_WAIT_NOHANG), 0); /* 0: still running */
	EQ(info.reason, FE_EXIT_RUNNING);
	pid = info.pid;
	CHECK(pid > 0);
	weak = OK(fe_dup((int32_t)h, FE_RIGHT_WRITE));
	ERR(fe_wait((int32_t)weak, &info, FE_WAIT_NOHANG), ERR_PERM);
	EQ(fe_close((int32_t)weak), 0);
	ERR(fe_wait((int32_t)h, &info, 0x80), ERR_INVAL);
	EQ(fe_console_fg((int32_t)h), 0);
	EQ(fe_console_fg(-1), 0);

	EQ(fe_kill(pid), 0);
	info = wait_for(h);
	EQ(info.reason, FE_EXIT_KILLED);
	EQ(info.pid, pid);
	CHECK(info.detail[0] != '\0');
	ERR(fe_kill(pid), ERR_NOENT);

	ERR(fe_kill(0), ERR_NOENT);
	ERR(fe_kill(1ull << 40), ERR_NOENT);
	if (fe_proc_list(&me, 1, (uint64_t)self_pid) == 1 && me.parent_pid != 0)
		ERR(fe_kill(me.parent_pid), ERR_PERM);

	h = new_blob(PAGE, NULL);
	FAILS(fe_wait((int32_t)h, &info, FE_WAIT_NOHANG));
	FAILS(fe_console_fg((int32_t)h));
	EQ(fe_close((int32_t)h), 0);
}

/* test_proc_list -- the caller is in the list, as it is */
static void test_proc_list(void)
{
	struct fe_proc_info procs[16];
	long n, i;
	bool found = false;

	n = OK(fe_proc_list(procs, 16, 0));
	for (i = 0; i < n; i++) {
		if (procs[i].pid != (uint64_t)self_pid)
			continue;
		found = true;
		CHECK(strncmp(procs[i].name, "usertest", sizeof(procs[i].name)) == 0);
		EQ(procs[i].state, FE_PROC_RUNNABLE);
		CHECK(procs[i].pages > 0);
	}
	for (i = 1; i < n; i++)
		CHECK(procs[i].pid > procs[i - 1].pid);
	if (n < 16)
		CHECK(found);
	EQ(fe_proc_list(procs, 1, (uint64_t)self_pid), 1);
	EQ(procs[0].pid, self_pid);
	EQ(fe_proc_list(procs, 0, 0), 0);
	EQ(fe_proc_list(procs, 16, ~0ull), 0);
	CHECK(self_pid > 0);
	EQ(fe_getpid(), self_pid);
}

/* test_time -- clocks, sleeping, yielding */
static void test_time(void)
{
	uint64_t t0, t1, deadline;

	t0 = (uint64_t)OK(fe_time(FE_CLOCK_MONOTONIC));
	t1 = (uint64_t)OK(fe_time(FE_CLOCK_MONOTONIC));
	CHECK(t1 >= t0);
	CHECK(fe_time(FE_CLOCK_WALL) > 1600000000ll * 1000000000ll);
	ERR(fe_time(7), ERR_INVAL);

	EQ(fe_yield(), 0);
	deadline = fe_now() + 20 * NS_PER_MS;
	EQ(fe_sleep_until(deadline), 0);
	CHECK(fe_now() >= deadline);
	EQ(fe_sleep_until(0), 0);
	EQ(fe_sleep_ms(1), 0);
	CHECK(fe_now() > t1);
}

/* test_sysinfo -- the figures are consistent */
static void test_sysinfo(void)
{
	struct fe_sysinfo si = sysinfo_now();

	CHECK(si.heap_size > 0);
	CHECK(si.heap_used <= si.heap_size);
	CHECK(si.heap_free <= si.heap_size - si.heap_used);
	CHECK(si.objects > 0);
	CHECK(si.names > 0);
	CHECK(si.power_ons >= 1);
	CHECK(si.processes >= 1);
	CHECK(si.uptime_ns > 0 && si.uptime_ns <= fe_now());
	CHECK(si.log_used <= si.log_size);
	CHECK(si.log_high_water <= si.log_size);
}

/* test_console -- console reads and writes */
static void test_console(void)
{
	char buf[8];

	EQ(fe_console_write("", 0), 0);
	EQ(fe_console_write("usertest: console\n", 18), 18);
	ERR(fe_console_read(buf, sizeof(buf), FE_CONSOLE_RAW | FE_CONSOLE_NONBLOCK), ERR_AGAIN);
	ERR(fe_console_read(buf, sizeof(buf), 5), ERR_INVAL);
	ERR(fe_console_read(buf, 0, FE_CONSOLE_RAW | FE_CONSOLE_NONBLOCK), ERR_INVAL);
}

/* --- channels -------------------------------------------------------------- */

/* test_channel_messages -- send, receive, truncation, order, full queue */
static void test_channel_messages(void)
{
	static char big[FE_CHAN_MSG_MAX + 1];
	struct fe_msg_info mi;
	int32_t e[2] = {-1, -1};
	char buf[16];
	unsigned i;

	EQ(fe_chan_create(e), 0);
	CHECK(e[0] != e[1]);
	OK(fe_chan_send(e[0], "ping", 4, -1));
	memset(&mi, 0, sizeof(mi));
	EQ(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0), 4);
	EQ(mi.len, 4);
	EQ(mi.handle, -1);
	CHECK(memcmp(buf, "ping", 4) == 0);
	OK(fe_chan_send(e[1], "pong", 4, -1));
	EQ(fe_chan_recv(e[0], buf, sizeof(buf), &mi, FE_CHAN_NONBLOCK), 4);
	ERR(fe_chan_recv(e[1], buf, sizeof(buf), &mi, FE_CHAN_NONBLOCK), ERR_AGAIN);

	OK(fe_chan_send(e[0], "0123456789", 10, -1));
	EQ(fe_chan_recv(e[1], buf, 4, &mi, 0), 4);
	EQ(mi.len, 10);
	OK(fe_chan_send(e[0], big, FE_CHAN_MSG_MAX, -1));
	EQ(fe_chan_recv(e[1], big, sizeof(big), &mi, 0), FE_CHAN_MSG_MAX);
	ERR(fe_chan_send(e[0], big, FE_CHAN_MSG_MAX + 1, -1), ERR_TOOBIG);

	for (i = 0; i < FE_CHAN_QUEUE; i++)
		OK(fe_chan_send(e[0], &i, sizeof(i), -1));
	ERR(fe_chan_send(e[0], &i, sizeof(i), -1), ERR_NOSPC);
	for (i = 0; i < FE_CHAN_QUEUE; i++) {
		unsigned got = ~0u;

		EQ(fe_chan_recv(e[1], &got, sizeof(got), &mi, FE_CHAN_NONBLOCK), sizeof(got));
		EQ(got, i);
	}
	ERR(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0x40), ERR_INVAL);
	EQ(fe_close(e[0]), 0);
	EQ(fe_close(e[1]), 0);
}

/* test_channel_handles -- handles travel with messages, with their rights */
static void test_channel_handles(void)
{
	struct fe_msg_info mi;
	int32_t e[2] = {-1, -1};
	int32_t h = new_blob(PAGE, "passed");
	char buf[8];
	long ro, weak;

	EQ(fe_chan_create(e), 0);
	OK(fe_chan_send(e[0], "h", 1, h));
	memset(&mi, 0, sizeof(mi));
	EQ(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0), 1);
	CHECK(mi.handle >= 0 && mi.handle != h);
	EQ(object_id(mi.handle), object_id(h));
	EQ(fe_obj_read(mi.handle, 0, buf, 6), 6);
	CHECK(memcmp(buf, "passed", 6) == 0);
	EQ(fe_close(mi.handle), 0);

	ro = OK(fe_dup(h, FE_RIGHT_READ));
	ERR(fe_chan_send(e[0], "h", 1, (int32_t)ro), ERR_PERM);
	ERR(fe_chan_send(e[0], "h", 1, FE_HANDLE_VALUE(3, 999)), ERR_BADF);
	EQ(fe_close((int32_t)ro), 0);

	/* The rights of the ends themselves. */
	weak = OK(fe_dup(e[0], FE_RIGHT_READ));
	ERR(fe_chan_send((int32_t)weak, "x", 1, -1), ERR_PERM);
	EQ(fe_close((int32_t)weak), 0);
	weak = OK(fe_dup(e[1], FE_RIGHT_WRITE));
	ERR(fe_chan_recv((int32_t)weak, buf, sizeof(buf), &mi, FE_CHAN_NONBLOCK), ERR_PERM);
	EQ(fe_close((int32_t)weak), 0);
	FAILS(fe_chan_send(h, "x", 1, -1));
	FAILS(fe_chan_recv(h, buf, sizeof(buf), &mi, FE_CHAN_NONBLOCK));

	/* A closed peer. */
	EQ(fe_close(e[0]), 0);
	ERR(fe_chan_send(e[1], "x", 1, -1), ERR_PEER);
	ERR(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0), ERR_PEER);
	EQ(fe_close(e[1]), 0);
	EQ(fe_close(h), 0);
}

/* test_channel_end_in_flight -- an end carried by a queued message is open */
static void test_channel_end_in_flight(void)
{
	struct fe_msg_info mi;
	int32_t e[2] = {-1, -1}, reply[2] = {-1, -1};
	char buf[8];

	/* Passed, and the sender's copy closed: the end is still open. */
	EQ(fe_chan_create(e), 0);
	EQ(fe_chan_create(reply), 0);
	OK(fe_chan_send(e[1], "req", 3, reply[1]));
	EQ(fe_close(reply[1]), 0);
	ERR(fe_chan_recv(reply[0], buf, sizeof(buf), &mi, FE_CHAN_NONBLOCK), ERR_AGAIN);
	/* Received: the new handle keeps it open, and answers. */
	EQ(fe_chan_recv(e[0], buf, sizeof(buf), &mi, 0), 3);
	CHECK(mi.handle >= 0);
	OK(fe_chan_send(mi.handle, "ans", 3, -1));
	EQ(fe_close(mi.handle), 0);
	EQ(fe_chan_recv(reply[0], buf, sizeof(buf), &mi, 0), 3);
	/* Dropped unanswered: the waiter learns no answer can come. */
	ERR(fe_chan_recv(reply[0], buf, sizeof(buf), &mi, 0), ERR_PEER);
	EQ(fe_close(reply[0]), 0);

	/* A message carrying an end dies with its channel: the end closes. */
	EQ(fe_chan_create(reply), 0);
	OK(fe_chan_send(e[1], "req", 3, reply[1]));
	EQ(fe_close(reply[1]), 0);
	EQ(fe_close(e[0]), 0);
	EQ(fe_close(e[1]), 0);
	ERR(fe_chan_recv(reply[0], buf, sizeof(buf), &mi, 0), ERR_PEER);
	EQ(fe_close(reply[0]), 0);
}

/* --- isolation between processes ------------------------------------------ */

/* A byte in .data the parent changes before spawning: a child must still see
 * the program's own initial value (each process has its own copy). */
static volatile unsigned char data_secret = 0x11;
#define SECRET_INITIAL 0x11

/* test_forged_handles -- a child holds none of its parent's handles, whatever
 * value it tries: every slot and generation, and the parent's exact values */
static void test_forged_handles(void)
{
	char values[4][24];
	const char *argv[] = {"usertest", "forge", values[0], values[1], values[2],
			      values[3], NULL};
	int32_t blob = new_blob(PAGE, "parent's"), anon, e[2] = {-1, -1};
	struct fe_exit_info info;

	anon = (int32_t)OK(fe_obj_create(FE_TYPE_ANON, PAGE));
	EQ(fe_chan_create(e), 0);
	snprintf(values[0], sizeof(values[0]), "%d", blob);
	snprintf(values[1], sizeof(values[1]), "%d", anon);
	snprintf(values[2], sizeof(values[2]), "%d", e[0]);
	snprintf(values[3], sizeof(values[3]), "%d", e[1]);
	info = wait_for(OK(spawn_self(argv, NULL, 0)));
	EQ(info.reason, FE_EXIT_NORMAL);
	EQ(info.status, 0);   /* the number of values that named anything */
	EQ(fe_obj_read(blob, 0, values[0], 8), 8);   /* still the parent's */
	CHECK(memcmp(values[0], "parent's", 8) == 0);
	EQ(fe_close(anon), 0);
	EQ(fe_close(e[0]), 0);
	EQ(fe_close(e[1]), 0);
	EQ(fe_close(blob), 0);
}

/* run_forge_child -- "usertest forge H...": a child given no handle tries
 * every slot with generations 1..8, and its parent's values; how many named
 * something (0 expected) */
static int run_forge_child(int argc, char **argv)
{
	struct fe_stat st;
	char buf[4];
	int hits = 0;

	for (uint32_t slot = 0; slot < FE_HANDLE_SLOTS + 8; slot++)
		for (uint32_t gen = 0; gen <= 8; gen++)
			if (fe_obj_stat(FE_HANDLE_VALUE(slot, gen), &st) != -ERR_BADF)
				hits++;
	for (int i = 2; i < argc; i++) {
		int32_t h = (int32_t)strtol(argv[i], NULL, 10);

		hits += fe_obj_stat(h, &st) != -ERR_BADF;
		hits += fe_obj_read(h, 0, buf, sizeof(buf)) != -ERR_BADF;
		hits += fe_obj_write(h, 0, "x", 1) != -ERR_BADF;
		hits += fe_map(h, 0, PAGE, FE_PROT_READ | FE_MAP_SHARED, 0) != -ERR_BADF;
		hits += fe_chan_send(h, "x", 1, -1) != -ERR_BADF;
		hits += fe_dup(h, FE_RIGHT_READ) != -ERR_BADF;
		hits += fe_close(h) != -ERR_BADF;
	}
	return hits;
}

/* test_passed_then_closed -- a handle passed and closed is gone for the
 * holder that closed it, and only for it; a slot used again never revives
 * the values it had */
static void test_passed_then_closed(void)
{
	static const char *const argv[] = {"usertest", "close-inherited", NULL};
	int32_t h = new_blob(PAGE, "kept"), e[2] = {-1, -1}, stale[64];
	struct fe_handle_grant g = {h, FE_RIGHT_READ | FE_RIGHT_WRITE};
	struct fe_exit_info info;
	struct fe_msg_info mi;
	struct fe_stat st;
	char buf[8];
	unsigned i;

	info = wait_for(OK(spawn_self(argv, &g, 1)));
	EQ(info.reason, FE_EXIT_NORMAL);
	EQ(info.status, 0);
	EQ(fe_obj_read(h, 0, buf, 4), 4);          /* the parent's copy lives on */
	CHECK(memcmp(buf, "kept", 4) == 0);

	/* Passed in a message, received, closed by the receiver. */
	EQ(fe_chan_create(e), 0);
	OK(fe_chan_send(e[0], "h", 1, h));
	memset(&mi, 0, sizeof(mi));
	EQ(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0), 1);
	CHECK(mi.handle >= 0 && mi.handle != h);
	EQ(fe_close(mi.handle), 0);
	ERR(fe_obj_read(mi.handle, 0, buf, 4), ERR_BADF);
	ERR(fe_chan_send(e[0], "h", 1, mi.handle), ERR_BADF);
	EQ(fe_obj_read(h, 0, buf, 4), 4);
	EQ(fe_close(e[0]), 0);
	EQ(fe_close(e[1]), 0);

	/* One slot made and closed again and again: no old value comes back. */
	for (i = 0; i < 64; i++) {
		stale[i] = (int32_t)OK(fe_obj_create(FE_TYPE_BLOB, 0));
		EQ(fe_close(stale[i]), 0);
	}
	for (i = 0; i < 64; i++)
		ERR(fe_obj_stat(stale[i], &st), ERR_BADF);
	EQ(fe_close(h), 0);
}

/* run_close_inherited_child -- "usertest close-inherited": close the granted
 * handle, then find it unusable */
static int run_close_inherited_child(void)
{
	int32_t h = FE_INHERITED_HANDLE(0);
	struct fe_stat st;
	char buf[4];

	if (fe_inherited_count != 1 || fe_obj_read(h, 0, buf, 4) != 4)
		return 10;
	if (fe_close(h) != 0)
		return 11;
	if (fe_obj_stat(h, &st) != -ERR_BADF || fe_obj_read(h, 0, buf, 4) != -ERR_BADF ||
	    fe_obj_write(h, 0, "x", 1) != -ERR_BADF || fe_close(h) != -ERR_BADF)
		return 12;
	return 0;
}

/* test_open_id_sweep -- every id up to the newest opens as a blob or code
 * object, or not at all: kernel objects (processes, threads, address
 * spaces, handle tables, channels, anon memory, the kernel root) are refused */
static void test_open_id_sweep(void)
{
	static const char *const sleeper[] = {"usertest", "sleep", NULL};
	int32_t blob = new_blob(PAGE, NULL);
	uint64_t top = object_id(blob), id, first, refused = 0, opened = 0;
	long child = OK(spawn_self(sleeper, NULL, 0));
	bool child_refused = false;
	uint64_t child_id = object_id((int32_t)child);

	first = top > 3000 ? top - 3000 : 1;
	for (id = first; id <= top + 64; id++) {
		long h = fe_obj_open_id(id, FE_RIGHT_READ);
		struct fe_stat st;

		if (h >= 0) {
			opened++;
			if (OK(fe_obj_stat((int32_t)h, &st)) >= 0)
				CHECK(st.type == FE_TYPE_BLOB || st.type == FE_TYPE_CODE);
			EQ(fe_close((int32_t)h), 0);
			continue;
		}
		if (h == -ERR_PERM) {
			refused++;
			child_refused |= id == child_id;
		} else {
			ERR(h, ERR_NOENT);
		}
	}
	CHECK(opened > 0);
	CHECK(refused > 0);
	CHECK(child_refused);           /* a live process, by its id */
	ERR(fe_obj_open_id(child_id, FE_RIGHT_READ | FE_RIGHT_WRITE), ERR_PERM);
	EQ(fe_kill(child_pid(child)), 0);
	wait_for(child);
	EQ(fe_close(blob), 0);
}

/* test_private_memory -- a child sees none of its parent's memory: not its
 * mappings, not its changed data, not its private copies of an object */
static void test_private_memory(void)
{
	const uint32_t rw = FE_PROT_READ | FE_PROT_WRITE;
	static const char *const secret_argv[] = {"usertest", "secret", NULL};
	static const char *const view_argv[] = {"usertest", "private-view", NULL};
	char where[24];
	const char *peek_argv[] = {"usertest", "peek", where, NULL};
	int32_t report = new_blob(sizeof(uint64_t), NULL);
	int32_t blob = new_blob(PAGE, "original"), e[2] = {-1, -1};
	struct fe_handle_grant g = {report, FE_RIGHT_READ | FE_RIGHT_WRITE};
	struct fe_exit_info info;
	long anon, a, priv, code;
	char buf[8];

	/* Memory mapped in the parent is not mapped in the child. */
	anon = OK(fe_obj_create(FE_TYPE_ANON, PAGE));
	a = OK(fe_map((int32_t)anon, 0, PAGE, rw | FE_MAP_SHARED, 0));
	if (a > 0)
		*(volatile char *)(uintptr_t)a = 'S';
	snprintf(where, sizeof(where), "%ld", a);
	info = wait_for(OK(spawn_self(peek_argv, &g, 1)));
	EQ(info.reason, FE_EXIT_FAULT);
	EQ(info.vector, VECTOR_PF);
	EQ(info.fault_addr, (uint64_t)a);

	/* The parent's changed .data stays the parent's. */
	data_secret = 0x5a;
	info = wait_for(OK(spawn_self(secret_argv, NULL, 0)));
	EQ(info.status, SECRET_INITIAL);
	data_secret = SECRET_INITIAL;

	/* A private copy stays private after spawn, both ways. */
	priv = OK(fe_map(blob, 0, PAGE, rw | FE_MAP_PRIVATE, 0));
	if (priv > 0)
		*(volatile char *)(uintptr_t)priv = 'P';
	g.handle = blob;
	g.rights = FE_RIGHT_READ | FE_RIGHT_MAP;
	info = wait_for(OK(spawn_self(view_argv, &g, 1)));
	EQ(info.status, 'o');          /* the object's byte, not the parent's copy */
	if (priv > 0)
		EQ(*(volatile char *)(uintptr_t)priv, 'P');
	EQ(fe_obj_read(blob, 0, buf, 1), 1);
	EQ(buf[0], 'o');               /* nor the child's copy */

	/* Only data objects map: not processes, channels; code never writably. */
	EQ(fe_chan_create(e), 0);
	ERR(fe_map(e[0], 0, PAGE, FE_PROT_READ | FE_MAP_SHARED, 0), ERR_PERM);
	code = OK(fe_open("bin/hello", FE_RIGHT_READ | FE_RIGHT_MAP));
	ERR(fe_map((int32_t)code, 0, PAGE, rw | FE_MAP_SHARED, 0), ERR_PERM);
	a = OK(fe_map((int32_t)code, 0, PAGE, rw | FE_MAP_PRIVATE, 0));
	if (a > 0) {
		*(volatile char *)(uintptr_t)a = 'X'; /* a private copy */
		EQ(fe_obj_read((int32_t)code, 0, buf, 4), 4);
		CHECK(memcmp(buf, "\177ELF", 4) == 0);
		EQ(fe_unmap((uint64_t)a, PAGE), 0);
	}
	EQ(fe_close((int32_t)code), 0);
	EQ(fe_close(e[0]), 0);
	EQ(fe_close(e[1]), 0);
	if (priv > 0)
		EQ(fe_unmap((uint64_t)priv, PAGE), 0);
	EQ(fe_close((int32_t)anon), 0);
	EQ(fe_close(blob), 0);
	EQ(fe_close(report), 0);
}

/* run_private_view_child -- "usertest private-view": map the granted object
 * privately; its first byte (exit status); write a private copy */
static int run_private_view_child(void)
{
	long a = fe_map(FE_INHERITED_HANDLE(0), 0, PAGE,
			FE_PROT_READ | FE_PROT_WRITE | FE_MAP_PRIVATE, 0);
	volatile char *m = (volatile char *)(uintptr_t)a;
	char first;

	if (a < 0)
		return 1;
	first = m[0];
	m[0] = 'C';
	return first;
}

/* test_other_processes -- a child reaches no process it was not given:
 * kill a sibling or its parent, wait on or bring to the foreground a
 * process through a handle without the right */
static void test_other_processes(void)
{
	static const char *const sleeper[] = {"usertest", "sleep", NULL};
	char sibling[24];
	const char *argv[] = {"usertest", "others", sibling, NULL};
	long s = OK(spawn_self(sleeper, NULL, 0)), weak;
	struct fe_handle_grant g;
	struct fe_exit_info info;
	uint64_t pid = child_pid(s);

	snprintf(sibling, sizeof(sibling), "%lu", pid);
	weak = OK(fe_dup((int32_t)s, FE_RIGHT_GRANT));
	g.handle = (int32_t)weak;
	g.rights = FE_RIGHT_GRANT;
	info = wait_for(OK(spawn_self(argv, &g, 1)));
	EQ(info.reason, FE_EXIT_NORMAL);
	EQ(info.status, 0);            /* a bit per act that was not refused */
	memset(&info, 0, sizeof(info));
	EQ(fe_wait((int32_t)s, &info, FE_WAIT_NOHANG), 0); /* the sibling lives */
	EQ(fe_kill(pid), 0);
	info = wait_for(s);
	EQ(info.reason, FE_EXIT_KILLED);
	EQ(fe_close((int32_t)weak), 0);
}

/* run_others_child -- "usertest others PID" holding a GRANT-only handle to
 * its sibling PID: every act on it, and on its parent, must be refused */
static int run_others_child(const char *sibling)
{
	uint64_t pid = strtoull(sibling, NULL, 10);
	int32_t h = FE_INHERITED_HANDLE(0);
	struct fe_exit_info info;
	struct fe_proc_info me;
	int bad = 0;

	if (fe_kill(pid) != -ERR_PERM)
		bad |= 1;
	if (fe_proc_list(&me, 1, (uint64_t)self_pid) != 1 ||
	    fe_kill(me.parent_pid) != -ERR_PERM)
		bad |= 2;
	if (fe_wait(h, &info, FE_WAIT_NOHANG) != -ERR_PERM)
		bad |= 4;
	if (fe_console_fg(h) != -ERR_PERM)
		bad |= 8;
	if (fe_dup(h, FE_RIGHT_READ) != -ERR_PERM)
		bad |= 16;
	if (fe_kill(pid) != -ERR_PERM) /* holding a handle gives no kill */
		bad |= 32;
	return bad;
}

/* --- isolation: forbidden acts in a child ---------------------------------- */

/* fault_report -- tell the parent where the coming page fault will be */
static void fault_report(uint64_t addr)
{
	if (fe_inherited_count > 0)
		fe_obj_write(FE_INHERITED_HANDLE(0), 0, &addr, sizeof(addr));
}

/* touch_read -- read a byte at addr (reported first) */
static void touch_read(uint64_t addr)
{
	fault_report(addr);
	(void)*(volatile uint8_t *)ptr(addr);
}

/* touch_write -- write a byte at addr (reported first) */
static void touch_write(uint64_t addr)
{
	fault_report(addr);
	*(volatile uint8_t *)ptr(addr) = 0xcc;
}

/* touch_exec -- call addr (reported first) */
static void touch_exec(uint64_t addr)
{
	fault_report(addr);
	((void (*)(void))ptr(addr))();
}

/* map_anon_rw -- a fresh anonymous page, mapped read+write */
static uint64_t map_anon_rw(void)
{
	long h = fe_obj_create(FE_TYPE_ANON, PAGE);
	long a = fe_map((int32_t)h, 0, PAGE,
			FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0);

	*(volatile char *)(uintptr_t)a = 1;
	return (uint64_t)a;
}

static unsigned char data_ret[16] = {0xc3};   /* ret, in .data */
static const char rodata_text[] = "read-only";

/* fault_kread -- read kernel memory (the direct map) */
static void fault_kread(void) { touch_read(KERNEL_HHDM); }
/* fault_kread_text -- read the kernel image */
static void fault_kread_text(void) { touch_read(KERNEL_TEXT); }
/* fault_kwrite -- write kernel memory */
static void fault_kwrite(void) { touch_write(KERNEL_TEXT); }
/* fault_kjump -- jump to kernel code */
static void fault_kjump(void) { touch_exec(KERNEL_TEXT); }
/* fault_text_write -- write the program's own code */
static void fault_text_write(void) { touch_write((uint64_t)(uintptr_t)&main); }
/* fault_rodata_write -- write the program's read-only data */
static void fault_rodata_write(void) { touch_write((uint64_t)(uintptr_t)rodata_text); }
/* fault_exec_data -- execute from .data */
static void fault_exec_data(void) { touch_exec((uint64_t)(uintptr_t)data_ret); }
/* fault_null -- read address 0 */
static void fault_null(void) { touch_read(0); }
/* fault_unmapped -- read a user address with nothing mapped */
static void fault_unmapped(void) { touch_read(UNMAPPED); }

/* fault_exec_stack -- execute from the stack */
static void fault_exec_stack(void)
{
	volatile unsigned char code[16];

	code[0] = 0xc3;
	touch_exec((uint64_t)(uintptr_t)code);
}

/* fault_exec_heap -- execute from malloc's heap */
static void fault_exec_heap(void)
{
	volatile unsigned char *code = malloc(16);

	code[0] = 0xc3;
	touch_exec((uint64_t)(uintptr_t)code);
}

/* fault_ro_map -- write through a read-only mapping of a blob */
static void fault_ro_map(void)
{
	long h = fe_obj_create(FE_TYPE_BLOB, PAGE);
	long a = fe_map((int32_t)h, 0, PAGE, FE_PROT_READ | FE_MAP_SHARED, 0);

	touch_write((uint64_t)a);
}

/* fault_protect -- write a page made read-only by protect */
static void fault_protect(void)
{
	uint64_t a = map_anon_rw();

	fe_protect(a, PAGE, FE_PROT_READ);
	touch_write(a);
}

/* fault_unmap -- read a page after unmapping it */
static void fault_unmap(void)
{
	uint64_t a = map_anon_rw();

	fe_unmap(a, PAGE);
	touch_read(a);
}

/* fault_hlt -- a privileged instruction */
static void fault_hlt(void) { __asm__ volatile("hlt"); }
/* fault_cli -- turn interrupts off */
static void fault_cli(void) { __asm__ volatile("cli"); }

/* fault_cr3 -- load the page-table base */
static void fault_cr3(void)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(launder(0)) : "memory");
}

/* fault_noncanonical -- read a non-canonical address (#GP, not #PF) */
static void fault_noncanonical(void)
{
	(void)*(volatile uint8_t *)ptr(NONCANONICAL);
}

/* fault_divide -- divide by zero (in asm: gcc rewrites 1 / x without a div) */
static void fault_divide(void)
{
	uint64_t lo = 1, hi = 0;

	__asm__ volatile("divq %2" : "+a"(lo), "+d"(hi) : "r"(launder(0)));
}

struct fault_kind {
	const char *name;
	uint32_t vector;
	void (*act)(void);
};

static const struct fault_kind fault_kinds[] = {
	{"kread", VECTOR_PF, fault_kread},
	{"kread-text", VECTOR_PF, fault_kread_text},
	{"kwrite", VECTOR_PF, fault_kwrite},
	{"kjump", VECTOR_PF, fault_kjump},
	{"text-write", VECTOR_PF, fault_text_write},
	{"rodata-write", VECTOR_PF, fault_rodata_write},
	{"ro-map-write", VECTOR_PF, fault_ro_map},
	{"protect-write", VECTOR_PF, fault_protect},
	{"exec-data", VECTOR_PF, fault_exec_data},
	{"exec-stack", VECTOR_PF, fault_exec_stack},
	{"exec-heap", VECTOR_PF, fault_exec_heap},
	{"null", VECTOR_PF, fault_null},
	{"unmapped", VECTOR_PF, fault_unmapped},
	{"unmap-read", VECTOR_PF, fault_unmap},
	{"hlt", VECTOR_GP, fault_hlt},
	{"cli", VECTOR_GP, fault_cli},
	{"cr3", VECTOR_GP, fault_cr3},
	{"noncanonical", VECTOR_GP, fault_noncanonical},
	{"divide", VECTOR_DE, fault_divide},
};

#define FAULT_KIND_COUNT (sizeof(fault_kinds) / sizeof(fault_kinds[0]))

/* test_fault -- one forbidden act in a child ends it with the right fault */
static void test_fault(const struct fault_kind *kind)
{
	const char *argv[] = {"usertest", "fault", kind->name, NULL};
	int32_t report_blob = new_blob(sizeof(uint64_t), NULL);
	struct fe_handle_grant g = {report_blob, FE_RIGHT_READ | FE_RIGHT_WRITE};
	struct fe_exit_info info;
	uint64_t expected = ~0ull;

	set_group("fault %s", kind->name);
	info = wait_for(OK(spawn_self(argv, &g, 1)));
	EQ(info.reason, FE_EXIT_FAULT);
	EQ(info.vector, kind->vector);
	CHECK(info.detail[0] != '\0');
	if (kind->vector == VECTOR_PF) {
		EQ(fe_obj_read(report_blob, 0, &expected, sizeof(expected)),
		   sizeof(expected));
		EQ(info.fault_addr, expected);
	}
	EQ(fe_close(report_blob), 0);
}

/* run_fault_child -- "usertest fault KIND": do the act; it must not return */
static int run_fault_child(const char *name)
{
	size_t i;

	for (i = 0; i < FAULT_KIND_COUNT; i++) {
		if (strcmp(fault_kinds[i].name, name) == 0) {
			fault_kinds[i].act();
			printf("usertest: fault %s did not fault\n", name);
			return 100;
		}
	}
	printf("usertest: no fault kind '%s'\n", name);
	return 2;
}

/* --- the stress modes ------------------------------------------------------ */

/* leak_result -- print the before/after line of a stress mode; 0 or 1 (leak) */
static int leak_result(const char *mode, long n, const struct fe_sysinfo *before,
		       const struct fe_sysinfo *after)
{
	/* Slack for kernel structures that grow once and are reused. */
	const uint64_t slack = 16 * PAGE;
	bool leak = after->objects != before->objects ||
		    after->heap_used > before->heap_used + slack;

	printf("usertest %s %ld: %s (objects %lu -> %lu, heap_used %lu -> %lu)\n",
	       mode, n, leak ? "LEAK" : "ok", before->objects, after->objects,
	       before->heap_used, after->heap_used);
	return leak;
}

/* many_round -- n sleeping children at once, then kill and wait them all */
static unsigned many_round(long n)
{
	static const char *const sleeper[] = {"usertest", "sleep", NULL};
	int32_t handles[FE_HANDLE_SLOTS];
	struct fe_exit_info info;
	unsigned bad = 0;
	long i, started = 0;

	for (i = 0; i < n; i++) {
		long h = spawn_self(sleeper, NULL, 0);

		if (h < 0) {
			printf("usertest: spawn %ld of %ld: %s\n", i + 1, n, err_str((int)h));
			bad++;
			break;
		}
		handles[started++] = (int32_t)h;
	}
	for (i = 0; i < started; i++)
		if (fe_kill(child_pid(handles[i])) < 0)
			bad++;
	for (i = 0; i < started; i++) {
		if (fe_wait(handles[i], &info, 0) < 0 || info.reason != FE_EXIT_KILLED)
			bad++;
		fe_close(handles[i]);
	}
	return bad;
}

/* churn_round -- spawn hello, let it exit, wait for it */
static unsigned churn_round(long n)
{
	struct fe_exit_info info;
	unsigned bad = 0;
	long i;

	for (i = 0; i < n; i++) {
		long h = fe_spawn_program("hello", NULL);

		if (h < 0 || fe_wait((int32_t)h, &info, 0) < 0 ||
		    info.reason != FE_EXIT_NORMAL || info.status != 0)
			bad++;
		if (h >= 0)
			fe_close((int32_t)h);
	}
	return bad;
}

/* objects_round -- n blobs created, bound, written, unbound and closed */
static unsigned objects_round(long n)
{
	static char page[PAGE];
	char name[64], suffix[32];
	unsigned bad = 0;
	long i;

	for (i = 0; i < n; i++) {
		long h = fe_obj_create(FE_TYPE_BLOB, 0);

		snprintf(suffix, sizeof(suffix), "obj/%ld", i);
		test_name(name, sizeof(name), suffix);
		if (h < 0 || fe_bind((int32_t)h, name) < 0 ||
		    fe_obj_resize((int32_t)h, PAGE) < 0 ||
		    fe_obj_write((int32_t)h, 0, page, PAGE) != PAGE ||
		    fe_unbind(name) < 0)
			bad++;
		if (h >= 0 && fe_close((int32_t)h) < 0)
			bad++;
	}
	return bad;
}

struct stress_mode {
	const char *name;
	long max;                 /* the largest N accepted */
	unsigned (*round)(long n);
};

static const struct stress_mode stress_modes[] = {
	{"many", FE_HANDLE_SLOTS - 8, many_round},
	{"churn", 1000000, churn_round},
	{"objects", 1000000, objects_round},
};

/* run_stress -- one warm-up round, then N, comparing sysinfo around it */
static int run_stress(const struct stress_mode *mode, const char *count)
{
	struct fe_sysinfo before, after;
	char *end;
	long n = strtol(count, &end, 10);
	unsigned bad;

	if (*count == '\0' || *end != '\0' || n < 1 || n > mode->max) {
		printf("usertest %s: N must be 1..%ld, not '%s'\n", mode->name,
		       mode->max, count);
		return 2;
	}
	mode->round(1);
	fe_sync();
	before = sysinfo_now();
	bad = mode->round(n);
	fe_sync();
	after = sysinfo_now();
	if (bad > 0)
		printf("usertest %s %ld: %u operations failed\n", mode->name, n, bad);
	return leak_result(mode->name, n, &before, &after) || bad > 0;
}

struct test {
	const char *name;
	void (*run)(void);
};

/* --- exhaustion: every limit is an error, and freeing recovers ------------- */

#define PROCESS_TABLE 192      /* live processes (docs/processes.md, limits) */

/* "usertest exhaust hold": keep the heap full until a line is typed, so a
 * test can watch other programs run meanwhile. */
static bool exhaust_hold;
#define TICKS_WHILE 20         /* ticks the ticker must make while we watch */
#define WATCH_MS_MAX 600000    /* a bound for a hung ticker, never a criterion */

/* test_too_many_handles -- a full handle table refuses every call that
 * would add a handle; closing one makes room again */
static void test_too_many_handles(void)
{
	static const char *const argv[] = {"hello", NULL};
	const struct fe_spawn sp = {argv, 1, 0, NULL};
	int32_t h = new_blob(PAGE, "handles"), e[2] = {-1, -1}, extra[FE_HANDLE_SLOTS];
	long code = OK(fe_open("bin/hello", FE_RIGHT_READ | FE_RIGHT_EXEC)), r = 0;
	struct fe_msg_info mi;
	unsigned n = 0, i;
	char buf[4];

	EQ(fe_chan_create(e), 0);
	OK(fe_chan_send(e[0], "h", 1, h));        /* a handle waiting to arrive */
	while (n < FE_HANDLE_SLOTS) {
		r = fe_dup(h, FE_RIGHT_READ);
		if (r < 0)
			break;
		extra[n++] = (int32_t)r;
	}
	ERR(r, ERR_NOSPC);
	CHECK(n > FE_HANDLE_SLOTS / 2);
	ERR(fe_obj_create(FE_TYPE_BLOB, 0), ERR_NOSPC);
	ERR(fe_open("bin/hello", FE_RIGHT_READ), ERR_NOSPC);
	ERR(fe_obj_open_id(object_id(h), FE_RIGHT_READ), ERR_NOSPC);
	ERR(fe_chan_create(e), ERR_NOSPC);
	ERR(fe_spawn((int32_t)code, &sp), ERR_NOSPC);
	ERR(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0), ERR_NOSPC);
	EQ(fe_close(extra[--n]), 0);              /* room for one: it arrives */
	EQ(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0), 1);
	CHECK(mi.handle >= 0);
	EQ(object_id(mi.handle), object_id(h));
	EQ(fe_close(mi.handle), 0);
	for (i = 0; i < n; i++)
		EQ(fe_close(extra[i]), 0);
	r = OK(fe_obj_create(FE_TYPE_BLOB, 0));
	EQ(fe_close((int32_t)r), 0);
	EQ(fe_close(e[0]), 0);
	EQ(fe_close(e[1]), 0);
	EQ(fe_close((int32_t)code), 0);
	EQ(fe_close(h), 0);
}

/* test_too_many_processes -- sleepers until the process table is full: a
 * clear error; killing them gives every slot back */
static void test_too_many_processes(void)
{
	static const char *const sleeper[] = {"usertest", "sleep", NULL};
	static uint64_t pids[PROCESS_TABLE];
	uint64_t before = sysinfo_now().processes, full;
	unsigned n = 0, i;
	long r = 0;

	while (n < PROCESS_TABLE) {
		r = spawn_self(sleeper, NULL, 0);
		if (r < 0)
			break;
		pids[n++] = child_pid(r);
		EQ(fe_close((int32_t)r), 0);   /* the child lives on without it */
	}
	ERR(r, ERR_NOSPC);
	full = sysinfo_now().processes;
	EQ(full, PROCESS_TABLE);
	ERR(fe_spawn_program("hello", NULL), ERR_NOSPC);
	for (i = 0; i < n; i++)
		EQ(fe_kill(pids[i]), 0);
	EQ(sysinfo_now().processes, before);
	printf("usertest exhaust: process table full at %lu processes (%u started here): %s\n",
	       full, n, err_name((int)r));
	r = OK(fe_spawn_program("hello", NULL));
	EQ(wait_for(r).status, 0);
}

/* test_queue_full -- a full channel queue refuses the next message; the
 * other direction is not affected; receiving one makes room for one */
static void test_queue_full(void)
{
	int32_t e[2] = {-1, -1};
	struct fe_msg_info mi;
	unsigned i, got;

	EQ(fe_chan_create(e), 0);
	for (i = 0; i < FE_CHAN_QUEUE; i++)
		OK(fe_chan_send(e[0], &i, sizeof(i), -1));
	ERR(fe_chan_send(e[0], &i, sizeof(i), -1), ERR_NOSPC);
	OK(fe_chan_send(e[1], "back", 4, -1));
	EQ(fe_chan_recv(e[1], &got, sizeof(got), &mi, 0), sizeof(got));
	EQ(got, 0);
	OK(fe_chan_send(e[0], &i, sizeof(i), -1));
	ERR(fe_chan_send(e[0], &i, sizeof(i), -1), ERR_NOSPC);
	EQ(fe_close(e[0]), 0);
	EQ(fe_close(e[1]), 0);
}

/* The words of the blob the heap-full check shares with its children. */
enum board_word {
	BOARD_TICKS = 0,           /* the ticker's count */
	BOARD_GROWER_READY = 1,    /* the grower has mapped its fresh memory */
	BOARD_GROWER_GO = 2,       /* the grower may touch it */
};

/* board_word -- word w of the shared board */
static uint64_t board_word(int32_t board, enum board_word w)
{
	uint64_t n = 0;

	fe_obj_read(board, w * sizeof(n), &n, sizeof(n));
	return n;
}

/* ticks -- what the ticker child has counted so far */
static uint64_t ticks(int32_t board)
{
	return board_word(board, BOARD_TICKS);
}

/* watch_ticker -- whether the ticker makes TICKS_WHILE more ticks (bounded) */
static bool watch_ticker(int32_t board)
{
	uint64_t start = ticks(board);

	for (unsigned ms = 0; ms < WATCH_MS_MAX; ms++) {
		if (ticks(board) >= start + TICKS_WHILE)
			return true;
		fe_sleep_ms(1);
	}
	return false;
}

/* fill_heap -- write a blob of the heap's size until the heap is full;
 * the error that stopped it, and the bytes written in *written */
static long fill_heap(int32_t hog, uint64_t size, uint64_t *written)
{
	static char chunk[FE_IO_MAX];
	long r;

	memset(chunk, 0xa5, sizeof(chunk));
	*written = 0;
	for (;;) {
		if (*written + sizeof(chunk) > size)
			return -ERR_RANGE;
		r = fe_obj_write(hog, *written, chunk, sizeof(chunk));
		if (r <= 0)
			return r;
		*written += (uint64_t)r;
	}
}

/* test_heap_full -- one process fills the heap: its calls fail with
 * -ERR_NOMEM, a second process that allocates nothing keeps running, and
 * giving the space back (a shrink bigger than one epoch's log, resumed
 * after -ERR_NOSPC) brings heap use back to where it was */
static void test_heap_full(void)
{
	static const char *const ticker[] = {"usertest", "tick", NULL};
	static const char *const grower[] = {"usertest", "grow", NULL};
	int32_t board = new_blob(PAGE, NULL);
	struct fe_handle_grant g = {board, FE_RIGHT_READ | FE_RIGHT_WRITE | FE_RIGHT_MAP};
	struct fe_sysinfo before, full, after;
	struct fe_exit_info info;
	uint64_t written = 0, zero = 0, one = 1;
	long child, victim, hog, r, shrinks = 0;

	EQ(fe_obj_write(board, 0, &zero, sizeof(zero)), sizeof(zero)); /* its page made */
	child = OK(spawn_self(ticker, &g, 1));
	CHECK(watch_ticker(board));                /* running, its pages made */
	victim = OK(spawn_self(grower, &g, 1));
	while (board_word(board, BOARD_GROWER_READY) == 0)
		fe_sleep_ms(1);
	fe_sync();
	before = sysinfo_now();
	hog = OK(fe_obj_create(FE_TYPE_BLOB, before.heap_size));
	r = fill_heap((int32_t)hog, before.heap_size, &written);
	ERR(r, ERR_NOMEM);
	full = sysinfo_now();
	CHECK(full.heap_free < 64 * PAGE);
	CHECK(watch_ticker(board));                /* the other process runs on */
	r = fe_obj_create(FE_TYPE_BLOB, PAGE);     /* a header may still fit... */
	if (r >= 0) {
		ERR(fe_obj_write((int32_t)r, 0, &zero, sizeof(zero)), ERR_NOMEM);
		EQ(fe_close((int32_t)r), 0);
	} else {
		ERR(r, ERR_NOMEM);
	}
	FAILS(fe_spawn_program("hello", NULL));    /* ...a process does not */
	EQ(fe_sync(), 0);
	if (exhaust_hold) {
		char line[8];

		printf("usertest exhaust: the heap is full; Enter gives it back\n");
		OK(fe_console_read(line, sizeof(line), FE_CONSOLE_LINE));
	}
	/* A process touching a new page now ends with a fault (no quota). */
	EQ(fe_obj_write(board, BOARD_GROWER_GO * 8, &one, sizeof(one)), sizeof(one));
	info = wait_for(victim);
	EQ(info.reason, FE_EXIT_FAULT);
	EQ(info.vector, VECTOR_PF);
	CHECK(strstr(info.detail, "heap full") != NULL);

	/* Give it back: a shrink frees pages until the log runs short, then
	 * says -ERR_NOSPC with the object cut part way; call again. */
	while ((r = fe_obj_resize((int32_t)hog, 0)) == -ERR_NOSPC)
		shrinks++;
	EQ(r, 0);
	EQ(fe_close((int32_t)hog), 0);
	fe_sync();
	after = sysinfo_now();
	CHECK(after.heap_used <= before.heap_used + 16 * PAGE);
	CHECK(watch_ticker(board));
	printf("usertest exhaust: heap full after %lu KiB (%s, %lu KiB free); "
	       "the shrink took %ld more calls after -ERR_NOSPC (log %lu KiB); "
	       "heap_used %lu -> %lu -> %lu\n",
	       written >> 10, err_name(-ERR_NOMEM), full.heap_free >> 10, shrinks,
	       before.log_size >> 10, before.heap_used, full.heap_used, after.heap_used);
	r = OK(fe_spawn_program("hello", NULL));
	EQ(wait_for(r).status, 0);
	EQ(fe_kill(child_pid(child)), 0);
	EQ(wait_for(child).reason, FE_EXIT_KILLED);
	EQ(fe_close(board), 0);
}

/* run_ticker_child -- "usertest tick": count, in the granted blob's first
 * word (mapped), one tick per millisecond, until killed */
static int run_ticker_child(void)
{
	long a = fe_map(FE_INHERITED_HANDLE(0), 0, PAGE,
			FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0);
	volatile uint64_t *count = (volatile uint64_t *)(uintptr_t)a;

	if (a < 0)
		return 1;
	for (;;) {
		(*count)++;
		fe_sleep_ms(1);
	}
}

/* run_grower_child -- "usertest grow": map fresh anonymous memory, say
 * so on the board, wait for the go, then touch it (a page never made) */
static int run_grower_child(void)
{
	int32_t board = FE_INHERITED_HANDLE(0);
	long h = fe_obj_create(FE_TYPE_ANON, 64 * PAGE), a;
	uint64_t one = 1;

	if (h < 0)
		return 1;
	a = fe_map((int32_t)h, 0, 64 * PAGE, FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0);
	if (a < 0)
		return 2;
	fe_obj_write(board, BOARD_GROWER_READY * 8, &one, sizeof(one));
	while (board_word(board, BOARD_GROWER_GO) == 0)
		fe_sleep_ms(1);
	for (uint64_t off = 0; off < 64 * PAGE; off += PAGE)
		*(volatile char *)(uintptr_t)(a + off) = 1;
	return 0;
}

static const struct test exhaust_tests[] = {
	{"too many handles", test_too_many_handles},
	{"too many processes", test_too_many_processes},
	{"channel queue full", test_queue_full},
	{"heap full", test_heap_full},
};

/* --- children and main ----------------------------------------------------- */

/* run_child_handle -- "usertest child-handle": check the granted blob */
static int run_child_handle(void)
{
	int32_t h = FE_INHERITED_HANDLE(0);
	struct fe_stat st;
	char buf[8];

	if (fe_inherited_count != 1)
		return 10;
	if (fe_obj_read(h, 0, buf, 5) != 5 || memcmp(buf, "grant", 5) != 0)
		return 11;
	if (fe_obj_write(h, 0, "x", 1) != -ERR_PERM)
		return 12;
	if (handle_rights(h) != FE_RIGHT_READ)
		return 13;
	if (fe_obj_stat(FE_INHERITED_HANDLE(1), &st) != -ERR_BADF)
		return 14;
	return 0;
}

/* run_child -- the modes usertest runs as its own child; -1 if argv is none */
static int run_child(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "fault") == 0)
		return run_fault_child(argv[2]);
	if (argc == 3 && strcmp(argv[1], "exit") == 0)
		return (int)strtol(argv[2], NULL, 10);
	if (strcmp(argv[1], "argc") == 0)
		return argc;
	if (argc == 2 && strcmp(argv[1], "sleep") == 0) {
		for (;;)
			fe_sleep_ms(1000000);
	}
	if (argc == 2 && strcmp(argv[1], "child-handle") == 0)
		return run_child_handle();
	if (strcmp(argv[1], "forge") == 0)
		return run_forge_child(argc, argv);
	if (argc == 2 && strcmp(argv[1], "close-inherited") == 0)
		return run_close_inherited_child();
	if (argc == 3 && strcmp(argv[1], "peek") == 0) {
		touch_read(strtoull(argv[2], NULL, 10));
		return 100;
	}
	if (argc == 2 && strcmp(argv[1], "secret") == 0)
		return data_secret;
	if (argc == 2 && strcmp(argv[1], "private-view") == 0)
		return run_private_view_child();
	if (argc == 3 && strcmp(argv[1], "others") == 0)
		return run_others_child(argv[2]);
	if (argc == 2 && strcmp(argv[1], "tick") == 0)
		return run_ticker_child();
	if (argc == 2 && strcmp(argv[1], "grow") == 0)
		return run_grower_child();
	return -1;
}

static const struct test tests[] = {
	{"null", test_null},
	{"create", test_create},
	{"bad handles", test_bad_handles},
	{"rights", test_rights},
	{"read/write", test_read_write},
	{"wild pointers", test_wild_pointers},
	{"names", test_names},
	{"list", test_list},
	{"open by id", test_open_id},
	{"map errors", test_map_errors},
	{"map shared", test_map_shared},
	{"map private", test_map_private},
	{"malloc", test_malloc},
	{"sync", test_sync},
	{"spawn", test_spawn},
	{"grants", test_grants},
	{"wait/kill", test_wait_kill},
	{"proc list", test_proc_list},
	{"time", test_time},
	{"sysinfo", test_sysinfo},
	{"console", test_console},
	{"channel messages", test_channel_messages},
	{"channel handles", test_channel_handles},
	{"channel end in flight", test_channel_end_in_flight},
	{"forged handles", test_forged_handles},
	{"passed then closed", test_passed_then_closed},
	{"open by id sweep", test_open_id_sweep},
	{"private memory", test_private_memory},
	{"other processes", test_other_processes},
};

/* run_tests -- a table of checks */
static void run_tests(const struct test *t, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		group = t[i].name;
		t[i].run();
	}
}

/* summary -- the summary line; 1 if any check failed */
static int summary(void)
{
	printf("usertest: %u passed, %u failed\n", passed, failed);
	return failed != 0;
}

/* run_all -- every check; the summary line; 1 if any failed */
static int run_all(void)
{
	size_t i;

	run_tests(tests, sizeof(tests) / sizeof(tests[0]));
	for (i = 0; i < FAULT_KIND_COUNT; i++)
		test_fault(&fault_kinds[i]);
	return summary();
}

/* run_exhaust -- "usertest exhaust": every limit reached, then recovered */
static int run_exhaust(void)
{
	run_tests(exhaust_tests, sizeof(exhaust_tests) / sizeof(exhaust_tests[0]));
	return summary();
}

/* main -- run the checks, a stress mode, or a child's part */
int main(int argc, char **argv)
{
	size_t i;
	int r;

	self_pid = fe_getpid();
	if (argc == 1)
		return run_all();
	if (strcmp(argv[1], "exhaust") == 0 &&
	    (argc == 2 || (argc == 3 && strcmp(argv[2], "hold") == 0))) {
		exhaust_hold = argc == 3;
		return run_exhaust();
	}
	r = run_child(argc, argv);
	if (r >= 0)
		return r;
	for (i = 0; i < sizeof(stress_modes) / sizeof(stress_modes[0]); i++)
		if (argc == 3 && strcmp(argv[1], stress_modes[i].name) == 0)
			return run_stress(&stress_modes[i], argv[2]);
	printf("usage: usertest [exhaust [hold] | many N | churn N | objects N]\n");
	return 2;
}
