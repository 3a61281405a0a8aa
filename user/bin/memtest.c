/*
 * memtest.c -- memtest [PAGES] [PERIOD_MS] [PASSES]: write and verify
 * patterns through a shared mapping of a blob, forever, or PASSES passes
 * and exit (0: forever).
 *
 * At start the program creates a blob of PAGES pages (default 16), binds it
 * to "memtest/PID" and maps it shared and writable. Pass N (N = 1, 2, ...)
 * first checks that the blob still holds pass N-1's pattern (zeros before
 * pass 1), then stores pass N's pattern in every 64-bit word through the
 * mapping, checks it through the mapping, and reads one page back with
 * SYS_OBJ_READ to check that the object itself holds what the mapping shows.
 * Then it prints "memtest: pass N ok" and sleeps PERIOD_MS (default 300).
 *
 * The pass number, the mapping's address and the handle are ordinary
 * globals, persistent with the process; the blob's pages are heap pages. A
 * power cut rolls both back to the same commit, so a pass interrupted half
 * way resumes with the words it had stored still there, and the check at the
 * start of the next pass proves the pattern survived the cut. On a mismatch
 * the program prints "memtest: FAIL pass N: WHAT" and exits with status 1.
 */
#include <fe.h>

#define MEMTEST_WORDS_PER_PAGE (FE_PAGE_SIZE / sizeof(uint64_t))

static uint64_t memtest_pass;           /* the pass running, from 1 */
static uint64_t memtest_pages = 16;
static volatile uint64_t *memtest_words; /* the mapping */
static int32_t memtest_handle;
static uint64_t memtest_rng = 1;        /* picks the page read back */
static uint64_t memtest_page_buf[MEMTEST_WORDS_PER_PAGE];

/* memtest_fail -- print "memtest: FAIL pass N: WHAT" and exit with status 1 */
static __attribute__((noreturn, format(printf, 1, 2)))
void memtest_fail(const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	printf("memtest: FAIL pass %lu: %s\n", memtest_pass, what);
	fe_exit(1);
}

/* pattern -- the word at index i after pass (pass 0: the blob's zeros) */
static uint64_t pattern(uint64_t pass, uint64_t i)
{
	return pass == 0 ? 0 : fe_mix64(pass << 40 ^ i);
}

/* check_word -- fail if word i is not pass's */
static void check_word(uint64_t pass, uint64_t i, uint64_t got, const char *how)
{
	if (got != pattern(pass, i))
		memtest_fail("page %lu word %lu (%s) is %#lx, expected %#lx "
			     "(pattern of pass %lu)", i / MEMTEST_WORDS_PER_PAGE,
			     i % MEMTEST_WORDS_PER_PAGE, how, got,
			     pattern(pass, i), pass);
}

/* verify_mapping -- every word seen through the mapping is pass's */
static void verify_mapping(uint64_t pass)
{
	uint64_t i, words = memtest_pages * MEMTEST_WORDS_PER_PAGE;

	for (i = 0; i < words; i++)
		check_word(pass, i, memtest_words[i], "mapping");
}

/* verify_object -- one random page read with SYS_OBJ_READ is pass's */
static void verify_object(uint64_t pass)
{
	uint64_t page = fe_rand_below(&memtest_rng, memtest_pages);
	uint64_t first = page * MEMTEST_WORDS_PER_PAGE, i;
	long n = fe_obj_read(memtest_handle, page * FE_PAGE_SIZE,
			     memtest_page_buf, FE_PAGE_SIZE);

	if (n != FE_PAGE_SIZE)
		memtest_fail("read of page %lu: %ld", page, n);
	for (i = 0; i < MEMTEST_WORDS_PER_PAGE; i++)
		check_word(pass, first + i, memtest_page_buf[i], "object read");
}

/* memtest_setup -- create, name and map the blob */
static void memtest_setup(void)
{
	uint64_t bytes = memtest_pages * FE_PAGE_SIZE;
	char name[32];
	long h, addr;

	h = fe_obj_create(FE_TYPE_BLOB, bytes);
	if (h < 0)
		memtest_fail("create of %lu pages: %s", memtest_pages,
			     err_name((int)h));
	memtest_handle = (int32_t)h;
	snprintf(name, sizeof(name), "memtest/%ld", fe_getpid());
	if ((h = fe_bind(memtest_handle, name)) < 0)
		memtest_fail("bind %s: %s", name, err_name((int)h));
	addr = fe_map(memtest_handle, 0, bytes,
		      FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, 0);
	if (addr < 0)
		memtest_fail("map: %s", err_name((int)addr));
	memtest_words = (volatile uint64_t *)addr;
	printf("memtest: %lu pages of %s at %#lx\n", memtest_pages, name, addr);
}

/* main -- set up, then pass after pass, forever or PASSES of them */
int main(int argc, char **argv)
{
	uint64_t period_ms = 300, passes = 0, i, words;

	if (argc > 4) {
		printf("usage: memtest [PAGES] [PERIOD_MS] [PASSES]\n");
		return 2;
	}
	if (argc > 1 && !fe_parse_arg("memtest", "PAGES", argv[1], &memtest_pages))
		return 2;
	if (argc > 2 && !fe_parse_arg("memtest", "PERIOD_MS", argv[2], &period_ms))
		return 2;
	if (argc > 3 && !fe_parse_arg("memtest", "PASSES", argv[3], &passes))
		return 2;
	if (memtest_pages == 0 || memtest_pages > 4096) {
		printf("memtest: PAGES must be 1 to 4096\n");
		return 2;
	}
	memtest_setup();
	words = memtest_pages * MEMTEST_WORDS_PER_PAGE;
	while (!passes || memtest_pass < passes) {
		memtest_pass++;
		verify_mapping(memtest_pass - 1);
		for (i = 0; i < words; i++)
			memtest_words[i] = pattern(memtest_pass, i);
		verify_mapping(memtest_pass);
		verify_object(memtest_pass);
		printf("memtest: pass %lu ok\n", memtest_pass);
		if (period_ms > 0)
			fe_sleep_ms(period_ms);
	}
	return 0;
}
