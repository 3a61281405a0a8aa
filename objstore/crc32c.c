/*
 * crc32c.c -- CRC-32C, slice-by-8, portable C.
 *
 * Tables are computed on first use (a few microseconds) rather than kept
 * as 8 KiB of source. A platform whose CPU computes CRC-32C (SSE 4.2's
 * crc32 instruction) offers it through os_platform.crc32c: faster, and no
 * 8 KiB of tables to keep in the cache. Polynomial 0x82F63B78 (reflected), initial value and
 * final XOR ~0, as in iSCSI and ext4: crc32c(0, "123456789", 9) = 0xE3069283.
 */
#include <stdbool.h>

#include "crc32c.h"
#include "objstore/objstore.h"

#define CRC32C_POLY 0x82f63b78u

static uint32_t table[8][256];
static bool table_ready;

/* An accelerated implementation from the platform (os_platform.crc32c), or NULL. */
static uint32_t (*accelerated)(uint32_t crc, const void *p, size_t len);

/* crc32c_use -- compute crc32c with `fn` from now on (NULL: portable C) */
void crc32c_use(uint32_t (*fn)(uint32_t crc, const void *p, size_t len))
{
	accelerated = fn;
}

/* crc32c -- the CRC-32C of `len` bytes, continuing from `crc` (start with 0) */
uint32_t crc32c(uint32_t crc, const void *p, size_t len)
{
	return accelerated ? accelerated(crc, p, len) : crc32c_portable(crc, p, len);
}

/* make_tables -- the eight slice tables */
static void make_tables(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int s = 1; s < 8; s++)
			table[s][i] = (table[s - 1][i] >> 8) ^
				      table[0][table[s - 1][i] & 0xff];
	table_ready = true;
}

/* crc32c_portable -- the same, always in portable C (tables) */
uint32_t crc32c_portable(uint32_t crc, const void *p, size_t len)
{
	const uint8_t *b = p;

	if (!table_ready)
		make_tables();
	crc = ~crc;
	while (len && ((uintptr_t)b & 7)) {
		crc = (crc >> 8) ^ table[0][(crc ^ *b++) & 0xff];
		len--;
	}
	for (; len >= 8; len -= 8, b += 8) {
		uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 |
				     (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
		uint32_t hi = (uint32_t)b[4] | (uint32_t)b[5] << 8 |
			      (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;

		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		      table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
		      table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *b++) & 0xff];
	return ~crc;
}

/* os_crc32c_reference -- the portable CRC-32C, for platforms to check theirs against */
uint32_t os_crc32c_reference(uint32_t crc, const void *p, size_t len)
{
	return crc32c_portable(crc, p, len);
}
