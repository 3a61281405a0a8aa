/*
 * crc32.c -- CRC-32 (IEEE 802.3, zlib's), slice-by-8, portable C.
 *
 * Eight bytes a step through eight 1 KiB tables, made at first use: under
 * QEMU's TCG a table lookup per byte is most of what the host link's bulk
 * path costs per byte after its copies (hostlink/hostlink.c), and slicing
 * does a quarter of the work of the byte-wise loop. No SSE: the kernel
 * runs this too, with general registers only.
 */
#include <stdbool.h>
#include <stdint.h>

#include <crc32.h>

#define CRC32_POLY 0xedb88320u

/* Eight bytes that may alias anything. */
typedef uint64_t crc32_word __attribute__((may_alias));

static uint32_t table[8][256];
static bool table_ready;

/* crc32_init -- the eight slice tables */
void crc32_init(void)
{
	if (table_ready)
		return;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32_POLY & (0u - (c & 1)));
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int s = 1; s < 8; s++)
			table[s][i] = (table[s - 1][i] >> 8) ^ table[0][table[s - 1][i] & 0xff];
	__atomic_store_n(&table_ready, true, __ATOMIC_RELEASE);
}

/* crc32 -- the CRC-32 of `len` bytes continuing from `crc` */
uint32_t crc32(uint32_t crc, const void *p, size_t len)
{
	const uint8_t *b = p;

	if (!__atomic_load_n(&table_ready, __ATOMIC_ACQUIRE))
		crc32_init();
	crc = ~crc;
	while (len && ((uintptr_t)b & 7)) {
		crc = (crc >> 8) ^ table[0][(crc ^ *b++) & 0xff];
		len--;
	}
	for (; len >= 8; len -= 8, b += 8) {
		uint64_t w = *(const crc32_word *)(const void *)b ^ crc;

		crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^
		      table[5][(w >> 16) & 0xff] ^ table[4][(w >> 24) & 0xff] ^
		      table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
		      table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *b++) & 0xff];
	return ~crc;
}
