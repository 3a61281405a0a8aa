/*
 * host_platform.h -- objstore's platform on a Linux host: real cache-flush
 * instructions on a mapped image, as PMDK does with PMEM_IS_PMEM_FORCE.
 */
#ifndef HOST_PLATFORM_H
#define HOST_PLATFORM_H

#include "objstore/objstore.h"

/* host_platform -- the table: CLWB, CLFLUSHOPT or CLFLUSH (CPUID) + SFENCE */
const struct os_platform *host_platform(void);

/* host_crc32c -- CRC-32C by SSE 4.2's crc32 instruction (only call it when
 * host_platform()->crc32c is set: the CPU has the instruction) */
uint32_t host_crc32c(uint32_t crc, const void *p, size_t len);

/* host_flush_name -- which instruction host_platform flushes with */
const char *host_flush_name(void);

#endif
