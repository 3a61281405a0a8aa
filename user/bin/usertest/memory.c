/*
 * memory.c -- a process's memory: every wrong way to ask for a mapping,
 * unmap or protect; shared mappings that are the object's bytes, and that
 * protect cannot widen beyond the handle's rights; private copy-on-write
 * mappings isolated from each other and from the object; the user
 * library's malloc, realloc and calloc; and sync, which commits an epoch.
 */
#include "usertest.h"

/* test_map_errors -- every way to ask for a mapping wrongly */
void test_map_errors(void)
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
void test_map_shared(void)
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

/* test_map_shared_by_two -- two processes mapping one object shared see
 * one page: each one's stores (to the DRAM cache's frame, when there is
 * one) are what the other's mapping shows -- page 1 only read by the
 * parent before the child writes it (the cache must take the parent's
 * translation of the heap page away) -- and what the object holds */
void test_map_shared_by_two(void)
{
	static const char *const view_argv[] = {"usertest", "shared-view", NULL};
	int32_t h = new_blob(2 * PAGE, "original");
	struct fe_handle_grant g = {h, FE_RIGHT_READ | FE_RIGHT_WRITE | FE_RIGHT_MAP};
	struct fe_exit_info info;
	volatile char *m;
	char buf[2];
	long a;

	a = OK(fe_map(h, 0, 2 * PAGE, FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0));
	if (a < 0)
		goto out;
	m = (volatile char *)(uintptr_t)a;
	EQ(m[1], 'r');
	EQ(m[PAGE], 0);                /* page 1: read, never written here */
	m[0] = 'P';
	info = wait_for(OK(spawn_self(view_argv, &g, 1)));
	EQ(info.status, 'P');          /* the child saw the parent's store */
	EQ(m[1], 'C');                 /* and the parent sees the child's */
	EQ(m[PAGE], 'D');
	EQ(fe_obj_read(h, 0, buf, 2), 2);
	EQ(buf[0], 'P');
	EQ(buf[1], 'C');
	EQ(fe_obj_read(h, PAGE, buf, 1), 1);
	EQ(buf[0], 'D');
	EQ(fe_unmap((uint64_t)a, 2 * PAGE), 0);
out:
	EQ(fe_close(h), 0);
}

/* run_shared_view_child -- "usertest shared-view": map the granted
 * two-page object shared, store 'C' at byte 1 and 'D' at the first byte of
 * page 1; its byte 0 (exit status) */
int run_shared_view_child(void)
{
	long a = fe_map(FE_INHERITED_HANDLE(0), 0, 2 * PAGE,
			FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0);
	volatile char *m = (volatile char *)(uintptr_t)a;

	if (a < 0)
		return 1;
	m[1] = 'C';
	m[PAGE] = 'D';
	return m[0];
}

/* test_map_private -- copy-on-write mappings are isolated from each other */
void test_map_private(void)
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
void test_malloc(void)
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
void test_sync(void)
{
	struct fe_sysinfo before = sysinfo_now(), after;

	EQ(fe_sync(), 0);
	after = sysinfo_now();
	CHECK(after.commits > before.commits);
	CHECK(after.epoch > before.epoch);
}
