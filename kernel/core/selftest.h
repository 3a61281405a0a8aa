/*
 * selftest.h -- in-kernel tests, run when the command line says `selftest`.
 *
 * A test is a function registered with SELFTEST(name); the runner calls each
 * in link order (or only those whose name starts with the value of
 * `selftest=PREFIX`), prints one line per test and a summary
 * `selftest: N passed, N failed`, then reports through isa-debug-exit.
 * Checks print both sides on failure and let the test go on; a failed check
 * marks the test failed.
 */
#ifndef CORE_SELFTEST_H
#define CORE_SELFTEST_H

#include <stdbool.h>
#include <stdint.h>

struct selftest {
	const char *name;
	void (*fn)(void);
};

#define SELFTEST(testname)                                                    \
	static void selftest_fn_##testname(void);                             \
	__attribute__((used, section(".selftests"), aligned(8)))              \
	static const struct selftest selftest_desc_##testname = {             \
		#testname, selftest_fn_##testname};                           \
	static void selftest_fn_##testname(void)

/* selftest_fail -- record a failed check in the running test and print it */
void selftest_fail(const char *file, int line, const char *what);

/* selftest_fail_u64 -- a failed comparison, printing both sides */
void selftest_fail_u64(const char *file, int line, const char *a_text,
		       const char *b_text, uint64_t a, uint64_t b);

#define ST_CHECK(cond)                                                        \
	do {                                                                  \
		if (!(cond))                                                  \
			selftest_fail(__FILE__, __LINE__, #cond);             \
	} while (0)

#define ST_CHECK_EQ(a, b)                                                     \
	do {                                                                  \
		uint64_t st_a_ = (uint64_t)(a), st_b_ = (uint64_t)(b);        \
		if (st_a_ != st_b_)                                           \
			selftest_fail_u64(__FILE__, __LINE__, #a, #b, st_a_,  \
					  st_b_);                             \
	} while (0)

/* selftest_run -- run the registered tests matching `prefix` ("" = all) */
__attribute__((noreturn)) void selftest_run(const char *prefix);

#endif
