/*
 * host_platform.c -- objstore's platform on a Linux host.
 *
 * The image is a file mapped shared; its pages are the host's page cache,
 * so flushing is not what makes them durable (msync would be), but we
 * execute the same instructions a real NVM platform needs, so benchmarks
 * pay the real cost of every flush and fence (as PMDK does when
 * PMEM_IS_PMEM_FORCE=1). The instruction is chosen once from CPUID:
 * CLWB, else CLFLUSHOPT, else CLFLUSH.
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "host_platform.h"

enum host_flush { HOST_CLFLUSH, HOST_CLFLUSHOPT, HOST_CLWB };

static enum host_flush flush_kind = HOST_CLFLUSH;
static int detected;

/* detect -- pick the flush instruction from CPUID leaf 7 */
static void detect(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		if (b & (1u << 24))
			flush_kind = HOST_CLWB;
		else if (b & (1u << 23))
			flush_kind = HOST_CLFLUSHOPT;
	}
	detected = 1;
}

/* host_flush -- write back the cache lines of [p, p+len) */
static void host_flush(const void *p, size_t len)
{
	uintptr_t line = (uintptr_t)p & ~(uintptr_t)63;
	uintptr_t end = (uintptr_t)p + len;

	for (; line < end; line += 64) {
		volatile char *a = (volatile char *)line;

		if (flush_kind == HOST_CLWB)
			__asm__ volatile("clwb %0" : "+m"(*a));
		else if (flush_kind == HOST_CLFLUSHOPT)
			__asm__ volatile("clflushopt %0" : "+m"(*a));
		else
			__asm__ volatile("clflush %0" : "+m"(*a));
	}
}

/* host_fence -- order the flushes */
static void host_fence(void)
{
	__asm__ volatile("sfence" ::: "memory");
}

/* host_fatal -- an objstore invariant broke */
static __attribute__((noreturn)) void host_fatal(const char *message)
{
	fprintf(stderr, "objstore: fatal: %s\n", message);
	abort();
}

/* host_now_ns -- CLOCK_REALTIME in nanoseconds */
static uint64_t host_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct os_platform platform = {
	.flush = host_flush,
	.fence = host_fence,
	.fatal = host_fatal,
	.now_ns = host_now_ns,
};

/* host_platform -- the table */
const struct os_platform *host_platform(void)
{
	if (!detected)
		detect();
	return &platform;
}

/* host_flush_name -- which instruction host_platform flushes with */
const char *host_flush_name(void)
{
	static const char *const names[] = { "clflush", "clflushopt", "clwb" };

	if (!detected)
		detect();
	return names[flush_kind];
}
