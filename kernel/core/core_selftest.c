/*
 * core_selftest.c -- self-tests of the kernel core: the frame allocator,
 * the command line, formatting as the kernel uses it, and time.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "core/cmdline.h"
#include "core/selftest.h"
#include "core/time.h"
#include "ferrite/errors.h"
#include "mm/frame.h"
#include "mm/phys.h"

#define FRAME_TEST_COUNT 512

static uint64_t frames[FRAME_TEST_COUNT];

/* frames_distinct -- whether no two of the first n test frames are equal */
static bool frames_distinct(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			if (frames[i] == frames[j])
				return false;
	return true;
}

SELFTEST(frame_alloc_free)
{
	uint64_t before = frame_free_count();

	for (unsigned i = 0; i < FRAME_TEST_COUNT; i++) {
		ST_CHECK_EQ(frame_alloc(&frames[i]), 0);
		ST_CHECK_EQ(frames[i] % PAGE_SIZE, 0);
		ST_CHECK(frames[i] >= 0x100000); /* never the first MiB */
		/* Frames come zeroed and are writable through the HHDM. */
		uint64_t *p = phys_to_virt(frames[i]);
		ST_CHECK_EQ(p[0] | p[511], 0);
		p[0] = frames[i];
	}
	ST_CHECK(frames_distinct(FRAME_TEST_COUNT));
	ST_CHECK_EQ(frame_free_count(), before - FRAME_TEST_COUNT);
	for (unsigned i = 0; i < FRAME_TEST_COUNT; i++) {
		ST_CHECK_EQ(*(uint64_t *)phys_to_virt(frames[i]), frames[i]);
		frame_free(frames[i]);
	}
	ST_CHECK_EQ(frame_free_count(), before);
}

SELFTEST(frame_exhaustion)
{
	uint64_t before = frame_free_count(), phys, taken = 0;
	uint64_t first = 0, prev = 0;

	/* Take every frame, chaining them through their first word. */
	while (frame_alloc(&phys) == 0) {
		*(uint64_t *)phys_to_virt(phys) = prev;
		prev = phys;
		if (!first)
			first = phys;
		taken++;
	}
	ST_CHECK_EQ(taken, before);
	ST_CHECK_EQ(frame_free_count(), 0);
	ST_CHECK_EQ(frame_alloc(&phys), -ERR_NOMEM);
	while (prev) {
		uint64_t next = *(uint64_t *)phys_to_virt(prev);

		frame_free(prev);
		prev = next;
	}
	ST_CHECK_EQ(frame_free_count(), before);
}

SELFTEST(cmdline_parse)
{
	char saved[1024];

	strlcpy(saved, cmdline_text(), sizeof(saved));
	cmdline_init("  a=1 flag b=x=y  a=2 empty= ");
	ST_CHECK(cmdline_is("a", "2")); /* the last word wins */
	ST_CHECK(cmdline_has("flag"));
	ST_CHECK(cmdline_is("flag", ""));
	ST_CHECK(cmdline_is("b", "x=y"));
	ST_CHECK(cmdline_is("empty", ""));
	ST_CHECK(!cmdline_has("missing"));
	ST_CHECK(cmdline_get("missing") == NULL);
	cmdline_init("");
	ST_CHECK(!cmdline_has("a"));
	cmdline_init(saved);
	ST_CHECK(strcmp(cmdline_text(), saved) == 0);
}

SELFTEST(printk_format)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s %d %u %#llx", "nvm:", -5, 7u, 0x100000000ull);
	ST_CHECK(strcmp(buf, "nvm: -5 7 0x100000000") == 0);
	snprintf(buf, sizeof(buf), "%016llx|%-4s|%p", 0xabcull, "x", (void *)0x10);
	ST_CHECK(strcmp(buf, "0000000000000abc|x   |0x0000000000000010") == 0);
	ST_CHECK_EQ(snprintf(buf, 4, "%s", "truncated"), 9);
	ST_CHECK(strcmp(buf, "tru") == 0);
}

SELFTEST(time_advances)
{
	uint64_t t0 = time_ns(), ticks0 = time_ticks(), last = t0;

	/* Wait 20 ms of TSC time; the 1 kHz tick must advance meanwhile. */
	while (time_ns() - t0 < 20000000) {
		uint64_t now = time_ns();

		ST_CHECK(now >= last); /* monotonic */
		last = now;
		arch_wait_for_interrupt();
	}
	ST_CHECK(time_ticks() > ticks0);
	ST_CHECK(arch_tsc_hz() > 100000000); /* faster than 100 MHz */
	/* One second of cycles is one second, to within the 32.32 rounding. */
	uint64_t one_second = time_cycles_to_ns(arch_tsc_hz());
	ST_CHECK(one_second >= 999999999 && one_second <= 1000000001);
}
