/*
 * wear.c -- wear [STORES] [flush|nt]: the hostile program of the wear
 * test (docs/dram-cache.md): hammer one line of a mapped object.
 *
 * It creates a one-page blob, binds it to "wear/PID", maps it shared and
 * writable, and stores to its first word STORES times (default 100000):
 * each store followed by CLFLUSH of its line (`flush`, the default), or
 * made non-temporal (MOVNTI and SFENCE: `nt`). Both push the line out of
 * the CPU's caches at once. Mapped onto the NVM, every store would write
 * the NVM line; with the DRAM cache the line lives in a DRAM frame and the
 * NVM sees at most one write of it per commit. At the end the program
 * reads the word back with SYS_OBJ_READ (what the object holds, not what
 * the mapping shows) and prints
 *     wear: N stores (flush) to one line of wear/PID, read back V ok
 * or "wear: FAIL ..." and exit status 1.
 */
#include <fe.h>

/* store_flushed -- *word = v, the line flushed after */
static void store_flushed(volatile uint64_t *word, uint64_t v)
{
	*word = v;
	__asm__ volatile("clflush (%0)" : : "r"(word) : "memory");
}

/* store_nt -- *word = v, non-temporal, fenced */
static void store_nt(volatile uint64_t *word, uint64_t v)
{
	__asm__ volatile("movnti %1, (%0)\n\tsfence" : : "r"(word), "r"(v) : "memory");
}

/* main -- map, hammer, read back */
int main(int argc, char **argv)
{
	uint64_t stores = 100000, got = 0;
	bool nt = false;
	volatile uint64_t *word;
	char name[32];
	long h, addr, n;

	if (argc > 3 || (argc > 2 && strcmp(argv[2], "flush") && strcmp(argv[2], "nt"))) {
		printf("usage: wear [STORES] [flush|nt]\n");
		return 2;
	}
	if (argc > 1 && !fe_parse_arg("wear", "STORES", argv[1], &stores))
		return 2;
	nt = argc > 2 && !strcmp(argv[2], "nt");
	snprintf(name, sizeof(name), "wear/%ld", fe_getpid());
	h = fe_obj_create(FE_TYPE_BLOB, FE_PAGE_SIZE);
	if (h >= 0 && (n = fe_bind((int32_t)h, name)) < 0)
		h = n;
	addr = h < 0 ? h : fe_map((int32_t)h, 0, FE_PAGE_SIZE,
				   FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0);
	if (addr < 0) {
		printf("wear: FAIL: no one-page blob mapped: %s\n", err_name((int)addr));
		return 1;
	}
	word = (volatile uint64_t *)addr;
	for (uint64_t i = 1; i <= stores; i++) {
		if (nt)
			store_nt(word, i);
		else
			store_flushed(word, i);
	}
	n = fe_obj_read((int32_t)h, 0, &got, sizeof(got));
	if (n != sizeof(got) || got != stores) {
		printf("wear: FAIL: read back %lu (%ld bytes), stored %lu last\n", got, n, stores);
		return 1;
	}
	printf("wear: %lu stores (%s) to one line of %s, read back %lu ok\n",
	       stores, nt ? "nt" : "flush", name, got);
	return 0;
}
