/*
 * objects.c -- objects and handles: the empty call, creating objects of
 * every type and size, handles forged, closed or reused (-ERR_BADF), rights
 * that dup narrows and never widens, an object's bytes read and written
 * within its bounds, every pointer argument of every call checked
 * (-ERR_FAULT), and objects opened by id (blobs and code only).
 */
#include "usertest.h"

/* The addresses no system call may read or write through. */
static const uint64_t wild_pointers[] = {
	0, KERNEL_HHDM, KERNEL_TEXT, NONCANONICAL, UNMAPPED,
	FE_USER_TOP - 8, /* straddles the top of the user half */
};
#define WILD_COUNT (sizeof(wild_pointers) / sizeof(wild_pointers[0]))

/* test_null -- the empty call */
void test_null(void)
{
	EQ(fe_null(), 0);
}

/* test_create -- object creation and bad types */
void test_create(void)
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
void test_bad_handles(void)
{
	static const char *const argv[] = {"hello", NULL};
	const struct fe_spawn sp = {.argv = argv, .argc = 1};
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
		ERR(fe_spawn(f, &sp, 0), ERR_BADF);
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
void test_rights(void)
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
void test_read_write(void)
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
void test_wild_pointers(void)
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
		ERR(fe_spawn((int32_t)code, p, 0), ERR_FAULT);
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

/* test_open_id -- blobs and code by id; nothing else */
void test_open_id(void)
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
