/*
 * crc32.h -- CRC-32 as zlib, Ethernet and PNG compute it (IEEE 802.3:
 * polynomial 0xEDB88320 reflected, initial value and final XOR ~0):
 * crc32(0, "123456789", 9) = 0xCBF43926, Python's zlib.crc32.
 *
 * The host link's checksum (docs/hostlink.md), for the kernel (the bulk
 * window's copies, hostlink/hostlink.c) and the link's service alike.
 */
#ifndef LIBC_CRC32_H
#define LIBC_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* crc32_init -- make the tables now (crc32 otherwise makes them at its
 * first call: a program with threads calls this before it starts them) */
void crc32_init(void);

/* crc32 -- the CRC-32 of `len` bytes, continuing from `crc` (start with 0) */
uint32_t crc32(uint32_t crc, const void *p, size_t len);

#endif
