/*
 * selftest.c -- running the in-kernel tests (`selftest` on the command line).
 *
 * Tests are gathered by the linker into the .selftests section (see the
 * SELFTEST macro). Each prints one line; the run ends with
 * `selftest: N passed, N failed` and leaves QEMU through isa-debug-exit:
 * status 33 when everything passed, 35 otherwise.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arch/arch.h"
#include "core/printk.h"
#include "core/selftest.h"

#define QEMU_EXIT_SELFTEST_PASSED 0x10
#define QEMU_EXIT_SELFTEST_FAILED 0x11

extern const struct selftest __selftests_start[], __selftests_end[];

static const struct selftest *running;
static unsigned checks_failed_in_test;

/* selftest_fail -- record a failed check in the running test and print it */
void selftest_fail(const char *file, int line, const char *what)
{
	checks_failed_in_test++;
	pr_err("selftest %s: %s:%d: check failed: %s\n",
	       running ? running->name : "?", file, line, what);
}

/* selftest_fail_u64 -- a failed comparison, printing both sides */
void selftest_fail_u64(const char *file, int line, const char *a_text,
		       const char *b_text, uint64_t a, uint64_t b)
{
	checks_failed_in_test++;
	pr_err("selftest %s: %s:%d: %s == %s failed: %#llx != %#llx\n",
	       running ? running->name : "?", file, line, a_text, b_text,
	       (unsigned long long)a, (unsigned long long)b);
}

/* selftest_run -- run the registered tests matching `prefix` ("" = all) */
void selftest_run(const char *prefix)
{
	unsigned passed = 0, failed = 0;

	for (const struct selftest *t = __selftests_start; t < __selftests_end;
	     t++) {
		if (strncmp(t->name, prefix, strlen(prefix)) != 0)
			continue;
		running = t;
		checks_failed_in_test = 0;
		t->fn();
		if (checks_failed_in_test) {
			failed++;
			pr_info("selftest: FAIL %s\n", t->name);
		} else {
			passed++;
			pr_info("selftest: ok   %s\n", t->name);
		}
	}
	running = NULL;
	pr_info("selftest: %u passed, %u failed\n", passed, failed);
	arch_qemu_exit(failed || !passed ? QEMU_EXIT_SELFTEST_FAILED
					 : QEMU_EXIT_SELFTEST_PASSED);
	arch_halt();
}
