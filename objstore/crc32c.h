/*
 * crc32c.h -- CRC-32C (Castagnoli), the checksum of every objstore header.
 */
#ifndef OBJSTORE_CRC32C_H
#define OBJSTORE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* crc32c -- the CRC-32C of `len` bytes, continuing from `crc` (start with 0) */
uint32_t crc32c(uint32_t crc, const void *p, size_t len);

/* crc32c_portable -- the same, always in portable C (tables) */
uint32_t crc32c_portable(uint32_t crc, const void *p, size_t len);

/* crc32c_use -- compute crc32c with `fn` from now on (NULL: portable C).
 * Process-wide: `fn` must give the same results (a CPU instruction does). */
void crc32c_use(uint32_t (*fn)(uint32_t crc, const void *p, size_t len));

#endif
