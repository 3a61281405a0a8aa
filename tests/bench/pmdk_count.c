/*
 * pmdk_count.c -- an LD_PRELOAD library that counts what libpmemobj asks
 * of libpmem, for `bench_pmdk --count` (build/bench/pmdk_count.so).
 *
 * libpmemobj reaches libpmem only through its exported functions
 * (pmem_flush, pmem_drain, pmem_persist, pmem_memcpy...), so defining them
 * here puts a counter in front of each; the real one is called next
 * (dlsym RTLD_NEXT). A fence is pmem_drain, pmem_persist, or a
 * pmem_mem* call without PMEM_F_MEM_NODRAIN; lines are the 64-byte lines
 * of every range flushed or written with non-temporal stores; a wait is a
 * fence with such a write-back before it (bench.h). What libpmem
 * does inside a call (e.g. a flush it skips) is not seen: these count what
 * PMDK requests, as the objstore counters do.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <libpmem.h>

#include "bench.h"

static struct bench_counts counts;

/* real -- the next definition of `name` (libpmem's) */
static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "pmdk_count: no %s after this library\n", name);
		abort();
	}
	return f;
}

/* lines -- the 64-byte lines [p, p+len) touches */
static uint64_t lines(const void *p, size_t len)
{
	uintptr_t first = (uintptr_t)p & ~(uintptr_t)63;

	return len ? ((uintptr_t)p + len - 1 - first) / 64 + 1 : 0;
}

/* fenced -- count a fence: a wait if write-backs are outstanding */
static void fenced(void)
{
	counts.fences++;
	counts.waits += counts.pending;
	counts.pending = false;
}

/* counted -- count one call writing back [p, p+len), fenced if `fence` */
static void counted(const void *p, size_t len, int fence)
{
	counts.flush_calls++;
	counts.lines += lines(p, len);
	counts.pending |= len != 0;
	if (fence)
		fenced();
}

/* pmdk_counts_get -- the counters so far */
void pmdk_counts_get(struct bench_counts *out)
{
	*out = counts;
}

/* pmdk_counts_reset -- zero the counters */
void pmdk_counts_reset(void)
{
	counts = (struct bench_counts){ 0 };
}

/* pmem_flush -- counted, then libpmem's */
void pmem_flush(const void *addr, size_t len)
{
	static void (*f)(const void *, size_t);

	if (!f)
		f = real("pmem_flush");
	counted(addr, len, 0);
	f(addr, len);
}

/* pmem_drain -- counted, then libpmem's */
void pmem_drain(void)
{
	static void (*f)(void);

	if (!f)
		f = real("pmem_drain");
	fenced();
	f();
}

/* pmem_persist -- counted, then libpmem's */
void pmem_persist(const void *addr, size_t len)
{
	static void (*f)(const void *, size_t);

	if (!f)
		f = real("pmem_persist");
	counted(addr, len, 1);
	f(addr, len);
}

/* pmem_memcpy -- counted, then libpmem's */
void *pmem_memcpy(void *dest, const void *src, size_t len, unsigned flags)
{
	static void *(*f)(void *, const void *, size_t, unsigned);

	if (!f)
		f = real("pmem_memcpy");
	counted(dest, len, !(flags & PMEM_F_MEM_NODRAIN));
	return f(dest, src, len, flags);
}

/* pmem_memmove -- counted, then libpmem's */
void *pmem_memmove(void *dest, const void *src, size_t len, unsigned flags)
{
	static void *(*f)(void *, const void *, size_t, unsigned);

	if (!f)
		f = real("pmem_memmove");
	counted(dest, len, !(flags & PMEM_F_MEM_NODRAIN));
	return f(dest, src, len, flags);
}

/* pmem_memset -- counted, then libpmem's */
void *pmem_memset(void *dest, int c, size_t len, unsigned flags)
{
	static void *(*f)(void *, int, size_t, unsigned);

	if (!f)
		f = real("pmem_memset");
	counted(dest, len, !(flags & PMEM_F_MEM_NODRAIN));
	return f(dest, c, len, flags);
}

/* pmem_msync -- counted (it should not be called: PMEM_IS_PMEM_FORCE=1) */
int pmem_msync(const void *addr, size_t len)
{
	static int (*f)(const void *, size_t);

	if (!f)
		f = real("pmem_msync");
	counts.msyncs++;
	counted(addr, len, 1);
	return f(addr, len);
}
