/*
 * host_platform.c -- objstore's platform on a Linux host.
 *
 * The image is a file mapped shared; its pages are the host's page cache,
 * so flushing is not what makes them durable (msync would be), but we
 * execute the same instructions a real NVM platform needs, so benchmarks
 * pay the real cost of every flush and fence (as PMDK does when
 * PMEM_IS_PMEM_FORCE=1). The instruction is chosen once from CPUID:
 * CLWB, else CLFLUSHOPT, else CLFLUSH. CRC-32C comes from SSE 4.2's crc32
 * instruction when the CPU has it (objstore's portable tables otherwise).
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_platform.h"

enum host_flush { HOST_CLFLUSH, HOST_CLFLUSHOPT, HOST_CLWB };

static enum host_flush flush_kind = HOST_CLFLUSH;
static int detected;
static int has_crc32;

/* detect -- pick the flush instruction from CPUID leaf 7 */
static void detect(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid(1, &a, &b, &c, &d))
		has_crc32 = (c >> 20) & 1; /* SSE 4.2 */
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

/* host_crc32c -- CRC-32C with the crc32 instruction, 8 bytes at a time */
__attribute__((target("sse4.2"))) uint32_t host_crc32c(uint32_t crc,
						       const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t c = ~crc & 0xffffffffu;

	for (; len >= 8; len -= 8, b += 8) {
		uint64_t word;

		memcpy(&word, b, 8);
		c = __builtin_ia32_crc32di(c, word);
	}
	for (; len; len--, b++)
		c = __builtin_ia32_crc32qi((uint32_t)c, *b);
	return ~(uint32_t)c;
}

static struct os_platform platform = {
	.flush = host_flush,
	.fence = host_fence,
	.fatal = host_fatal,
	.now_ns = host_now_ns,
};

/* host_platform -- the table */
const struct os_platform *host_platform(void)
{
	/* Not under the detection: host_flush_name may have detected first. */
	if (!detected)
		detect();
	platform.crc32c = has_crc32 ? host_crc32c : NULL;
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
