/*
 * isolation.c -- what a process must not reach of another's: a child holds
 * none of its parent's handles, whatever values it forges; a handle passed
 * and closed is gone for the holder that closed it, and only for it; no id
 * opens a kernel object; a child sees none of its parent's memory (its
 * mappings, its changed .data, its private copies); and a child reaches no
 * process it was not given. Each test runs usertest as its own child, whose
 * part (run_*_child here) tries and answers in its exit status.
 */
#include "usertest.h"

/* A byte in .data the parent changes before spawning: a child must still see
 * the program's own initial value (each process has its own copy). */
static volatile unsigned char data_secret = 0x11;
#define SECRET_INITIAL 0x11

/* test_forged_handles -- a child holds none of its parent's handles, whatever
 * value it tries: every slot and generation, and the parent's exact values */
void test_forged_handles(void)
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
int run_forge_child(int argc, char **argv)
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
void test_passed_then_closed(void)
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
int run_close_inherited_child(void)
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
void test_open_id_sweep(void)
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
void test_private_memory(void)
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
	EQ(info.vector, FE_FAULT_PAGE);
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

/* run_secret_child -- "usertest secret": the byte of .data its parent changed
 * before the spawn, as this program's image has it (exit status) */
int run_secret_child(void)
{
	return data_secret;
}

/* run_peek_child -- "usertest peek ADDR": read the parent's mapped address
 * ADDR (reported first); it must fault, 100 if it did not */
int run_peek_child(const char *where)
{
	touch_read(strtoull(where, NULL, 10));
	return 100;
}

/* run_private_view_child -- "usertest private-view": map the granted object
 * privately; its first byte (exit status); write a private copy */
int run_private_view_child(void)
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
void test_other_processes(void)
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
int run_others_child(const char *sibling)
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

/* test_link_powers -- the host link's powers (reading it, writing it,
 * making code from a blob) come only with the handle the kernel gives its
 * service: every handle a program can hold or forge is refused, for the
 * right reason */
void test_link_powers(void)
{
	int32_t blob = new_blob(PAGE, "\x7f" "ELF"), e[2] = {-1, -1};
	const int32_t forged[] = { FE_INHERITED_HANDLE(0), FE_HANDLE_VALUE(0, 2),
				   FE_HANDLE_VALUE(FE_HANDLE_SLOTS - 1, 1), 0, -1 };
	char buf[16] = "to the host";
	struct fe_link_move move = { .direction = FE_LINK_TO_OBJECT, .length = 16 };
	struct fe_link_info info;

	EQ(fe_chan_create(e), 0);
	for (unsigned i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
		if (forged[i] > 0 && object_id(forged[i]))
			continue; /* one of usertest's own: below */
		ERR(fe_link_read(forged[i], buf, sizeof(buf)), ERR_BADF);
		ERR(fe_link_write(forged[i], buf, sizeof(buf)), ERR_BADF);
		ERR(fe_link_move(forged[i], blob, &move), ERR_BADF);
		ERR(fe_link_info(forged[i], &info), ERR_BADF);
		ERR(fe_syscall(SYS_OBJ_CREATE, FE_TYPE_CODE, PAGE, (uint64_t)(int64_t)blob,
			       (uint64_t)(int64_t)forged[i], 0, 0), ERR_BADF);
	}
	/* Its own handles name other objects: the wrong type for the link
	 * (rights are checked first: a channel end cannot carry EXEC). */
	ERR(fe_link_read(blob, buf, sizeof(buf)), ERR_INVAL);
	ERR(fe_link_write(e[0], buf, sizeof(buf)), ERR_INVAL);
	ERR(fe_link_move(blob, blob, &move), ERR_INVAL);
	ERR(fe_link_info(e[1], &info), ERR_INVAL);
	ERR(fe_syscall(SYS_OBJ_CREATE, FE_TYPE_CODE, PAGE, (uint64_t)(int64_t)blob,
		       (uint64_t)(int64_t)blob, 0, 0), ERR_INVAL);
	ERR(fe_syscall(SYS_OBJ_CREATE, FE_TYPE_CODE, PAGE, (uint64_t)(int64_t)blob,
		       (uint64_t)(int64_t)e[1], 0, 0), ERR_PERM);
	EQ(fe_close(blob), 0);
	EQ(fe_close(e[0]), 0);
	EQ(fe_close(e[1]), 0);
}
