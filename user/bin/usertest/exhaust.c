/*
 * exhaust.c -- "usertest exhaust [hold]": every limit reached is a clear
 * error, and freeing recovers: a full handle table refuses every call that
 * would add a handle; a full process table refuses a spawn; a full channel
 * queue refuses a message; and a full heap fails its filler's writes while
 * a ticker child runs on and a grower child that touches a new page is
 * killed, until a shrink larger than one epoch's log gives the space back.
 * With hold, the heap stays full until a line is typed.
 */
#include "usertest.h"

#define PROCESS_TABLE 191      /* live processes SYS_SPAWN makes room for (docs/processes.md, limits) */

/* "usertest exhaust hold": keep the heap full until a line is typed, so a
 * test can watch other programs run meanwhile. */
bool exhaust_hold;
#define TICKS_WHILE 20         /* ticks the ticker must make while we watch */
#define WATCH_MS_MAX 600000    /* a bound for a hung ticker, never a criterion */

/* test_too_many_handles -- a full handle table refuses every call that
 * would add a handle; closing one makes room again */
void test_too_many_handles(void)
{
	static const char *const argv[] = {"hello", NULL};
	const struct fe_spawn sp = {.argv = argv, .argc = 1};
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
	ERR(fe_spawn((int32_t)code, &sp, 0), ERR_NOSPC);
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
void test_too_many_processes(void)
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
void test_queue_full(void)
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
void test_heap_full(void)
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
	EQ(info.vector, FE_FAULT_PAGE);
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
int run_ticker_child(void)
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
int run_grower_child(void)
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
