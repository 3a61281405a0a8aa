/*
 * check.h -- a tiny framework for the host unit tests.
 *
 *	CHECK_TEST(memcpy_basic) { CHECK_EQ(f(1), 2); ... }
 *	int main(void) { return check_run_all(); }
 *
 * CHECK_TEST registers a test function (before main runs); check_run_all
 * calls them in the order they appear in the file, prints "ok" or "FAIL"
 * with each name, and ends with the line "N passed, N failed", where N
 * counts TEST FUNCTIONS (a test fails if any of its checks fails; checks go
 * on after a failure). The exit status is 0 only if nothing failed.
 * check_run_selected runs only the tests a predicate accepts: the others are
 * neither run nor counted, so a selection never reports a pass it did not
 * test.
 *
 * A failed check prints its file, line and the expressions; CHECK_EQ and
 * CHECK_STR_EQ also print both values. Everything here uses the host's C
 * library only, through functions defined in this header: include check.h
 * BEFORE libc_names.h, which renames memcpy, snprintf... to Ferrite's, so
 * the framework never judges Ferrite's libc with Ferrite's libc.
 */
#ifndef TESTS_UNIT_CHECK_H
#define TESTS_UNIT_CHECK_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct check_test {
	const char *name;
	void (*fn)(void);
	struct check_test *next;
};

/* The registered tests, in registration order, and the running one's fate. */
static struct check_test *check_first, **check_last = &check_first;
static bool check_current_failed;

/* check_register -- append a test to the list that check_run_all runs */
static inline void check_register(struct check_test *test)
{
	*check_last = test;
	check_last = &test->next;
}

#define CHECK_TEST(testname)                                                  \
	static void check_fn_##testname(void);                                \
	static struct check_test check_desc_##testname = {                    \
		#testname, check_fn_##testname, NULL};                        \
	__attribute__((constructor)) static void check_reg_##testname(void)   \
	{                                                                     \
		check_register(&check_desc_##testname);                       \
	}                                                                     \
	static void check_fn_##testname(void)

/* check_fail -- report a failed check of the running test */
static inline void check_fail(const char *file, int line, const char *what)
{
	check_current_failed = true;
	printf("  %s:%d: check failed: %s\n", file, line, what);
}

/* check_eq -- compare two integers; on a mismatch print both; true if equal */
static inline bool check_eq(const char *file, int line, const char *a_text,
			    const char *b_text, uintmax_t a, uintmax_t b)
{
	if (a == b)
		return true;
	check_fail(file, line, "CHECK_EQ");
	printf("    %s = %jd (%#jx)\n    %s = %jd (%#jx)\n", a_text,
	       (intmax_t)a, a, b_text, (intmax_t)b, b);
	return false;
}

/* check_print_str -- print s quoted, with unprintable bytes escaped */
static inline void check_print_str(const char *s, size_t len)
{
	putchar('"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* check_host_strlen -- the length of s, without any library */
static inline size_t check_host_strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

/* check_bytes_eq -- whether a[0..n) and b[0..n) hold the same bytes */
static inline bool check_bytes_eq(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (size_t i = 0; i < n; i++) {
		if (p[i] != q[i])
			return false;
	}
	return true;
}

/* check_show -- print "text = value" for a string or NULL */
static inline void check_show(const char *text, const char *s, size_t len)
{
	printf("    %s = ", text);
	if (s == NULL)
		printf("NULL");
	else
		check_print_str(s, len);
	putchar('\n');
}

/* check_str_eq -- compare strings (or NULLs); on a mismatch print both; true if equal */
static inline bool check_str_eq(const char *file, int line, const char *a_text,
				const char *b_text, const char *a, const char *b)
{
	size_t a_len = a != NULL ? check_host_strlen(a) : 0;
	size_t b_len = b != NULL ? check_host_strlen(b) : 0;

	if (a == NULL || b == NULL ? a == b :
	    a_len == b_len && check_bytes_eq(a, b, a_len))
		return true;
	check_fail(file, line, "CHECK_STR_EQ");
	check_show(a_text, a, a_len);
	check_show(b_text, b, b_len);
	return false;
}

/* check_mem_eq -- compare two n-byte buffers; on a mismatch print both; true if equal */
static inline bool check_mem_eq(const char *file, int line, const char *a_text,
				const char *b_text, const void *a, const void *b,
				size_t n)
{
	if (check_bytes_eq(a, b, n))
		return true;
	check_fail(file, line, "CHECK_MEM_EQ");
	check_show(a_text, a, n);
	check_show(b_text, b, n);
	return false;
}

/* Each argument is evaluated exactly once. */
#define CHECK(cond)                                                           \
	do {                                                                  \
		if (!(cond))                                                  \
			check_fail(__FILE__, __LINE__, #cond);                \
	} while (0)

#define CHECK_EQ(a, b)                                                        \
	check_eq(__FILE__, __LINE__, #a, #b, (uintmax_t)(a), (uintmax_t)(b))

#define CHECK_STR_EQ(a, b) check_str_eq(__FILE__, __LINE__, #a, #b, (a), (b))

#define CHECK_MEM_EQ(a, b, n)                                                 \
	check_mem_eq(__FILE__, __LINE__, #a, #b, (a), (b), (n))

/* check_run_selected -- run the registered tests that `wanted` accepts
 * (every one if it is NULL); the exit status for main. A test not wanted is
 * not run, not printed and not counted in "N passed, N failed". */
static inline int check_run_selected(bool (*wanted)(const char *name))
{
	unsigned passed = 0, failed = 0;

	for (struct check_test *t = check_first; t != NULL; t = t->next) {
		if (wanted != NULL && !wanted(t->name))
			continue;
		check_current_failed = false;
		t->fn();
		printf("%s %s\n", check_current_failed ? "FAIL" : "ok  ", t->name);
		if (check_current_failed)
			failed++;
		else
			passed++;
		fflush(stdout);
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}

/* check_run_all -- run every registered test; the exit status for main */
static inline int check_run_all(void)
{
	return check_run_selected(NULL);
}

#endif
